"""Referee 21: an independent Jacobian of residual stacks in arb ball arithmetic.

Written for the review of the all-widths full-rank proof of depth-analytic (d >= 2); it shares no
code with oracle/algebra/stacks/analytic.py (then oracle/claims/depth_analytic.py).  The Jacobian
is computed by forward-mode dual numbers over arb: every quantity carries its value and its
gradient in all N weights, and the activations are built from the primitives erf, exp and tanh,
whose derivatives are 2/sqrt(pi) exp(-z^2), exp(z) and 1 - tanh(z)^2.  The activation-derivative
formulas of the proof (gelu' = Phi + z phi, ...) are never used here.

Weights are exact rationals (fmpq) turned into exact arb balls; every arb operation returns a
ball containing the exact value, so a determinant ball that excludes 0 proves that the minor is
nonzero.  Rows of the minor are chosen by a float64 pivoted QR of the ball midpoints, which is
trusted for nothing.
"""

from __future__ import annotations

import random
from fractions import Fraction as Q

import numpy as np
import scipy.linalg
from flint import arb, arb_mat, ctx, fmpq

GELU_TANH_A = fmpq(44715, 1000000)


class Dual:
    __slots__ = ("v", "g")

    def __init__(self, v, g):
        self.v = v
        self.g = g  # list of arb, length N

    def __add__(self, o):
        if isinstance(o, Dual):
            return Dual(self.v + o.v, [a + b for a, b in zip(self.g, o.g)])
        return Dual(self.v + o, self.g)

    __radd__ = __add__

    def __neg__(self):
        return Dual(-self.v, [-a for a in self.g])

    def __sub__(self, o):
        return self + (-o)

    def __rsub__(self, o):
        return (-self) + o

    def __mul__(self, o):
        if isinstance(o, Dual):
            return Dual(self.v * o.v, [self.v * b + o.v * a for a, b in zip(self.g, o.g)])
        return Dual(self.v * o, [a * o for a in self.g])

    __rmul__ = __mul__

    def __truediv__(self, o):
        if isinstance(o, Dual):
            inv = 1 / o.v
            return Dual(self.v * inv, [(a * o.v - self.v * b) * inv * inv for a, b in zip(self.g, o.g)])
        return self * (1 / arb(o) if not isinstance(o, arb) else 1 / o)


def unary(x: Dual, f, df) -> Dual:
    fv, dv = f(x.v), df(x.v)
    return Dual(fv, [dv * a for a in x.g])


def d_erf(x):
    return unary(x, lambda v: v.erf(), lambda v: 2 / arb.pi().sqrt() * (-(v * v)).exp())


def d_exp(x):
    return unary(x, lambda v: v.exp(), lambda v: v.exp())


def d_tanh(x):
    return unary(x, lambda v: v.tanh(), lambda v: 1 - v.tanh() * v.tanh())


def act(name: str, z: Dual) -> Dual:
    if name == "gelu":
        return z * (1 + d_erf(z * (1 / arb(2).sqrt()))) * arb(0.5)
    if name == "silu":
        return z / (1 + d_exp(-z))
    if name == "gelu_tanh":
        c = (arb(2) / arb.pi()).sqrt()
        a = arb(GELU_TANH_A)
        return z * arb(0.5) * (1 + d_tanh(c * (z + a * (z * z * z))))
    if name == "quick_gelu":  # z sigmoid(1.702 z), outside the claim; the lemma's hypotheses hold for it
        return z / (1 + d_exp(-(z * arb(fmpq(1702, 1000)))))
    raise ValueError(name)


def jacobian(name: str, layers, points) -> arb_mat:
    """Kd x N Jacobian of theta -> (F(x_k))_k at rational layers [(U, W), ...] (U m x d, W d x m).
    Parameter order: for each layer, U row-major then W row-major."""
    d = len(points[0])
    N = sum(2 * d * len(U) for U, _ in layers)
    # parameters as duals
    params = []
    k = 0
    for U, W in layers:
        m = len(U)
        Ud = [[None] * d for _ in range(m)]
        Wd = [[None] * m for _ in range(d)]
        for i in range(m):
            for c in range(d):
                g = [arb(0)] * N
                g[k] = arb(1)
                Ud[i][c] = Dual(arb(fmpq(U[i][c].numerator, U[i][c].denominator)), g)
                k += 1
        for a in range(d):
            for i in range(m):
                g = [arb(0)] * N
                g[k] = arb(1)
                Wd[a][i] = Dual(arb(fmpq(W[a][i].numerator, W[a][i].denominator)), g)
                k += 1
        params.append((Ud, Wd))
    rows = []
    for x in points:
        y = [Dual(arb(fmpq(v.numerator, v.denominator)), [arb(0)] * N) for v in x]
        for Ud, Wd in params:
            m = len(Ud)
            h = []
            for i in range(m):
                z = Ud[i][0] * y[0]
                for c in range(1, d):
                    z = z + Ud[i][c] * y[c]
                h.append(act(name, z))
            y = [y[a] + sum_duals([Wd[a][i] * h[i] for i in range(m)]) for a in range(d)]
        for a in range(d):
            rows.append(y[a].g)
    return arb_mat(rows)


def sum_duals(xs):
    s = xs[0]
    for t in xs[1:]:
        s = s + t
    return s


def mids(J: arb_mat) -> np.ndarray:
    return np.array([[float(J[i, j].mid()) for j in range(J.ncols())] for i in range(J.nrows())])


def pick_rows(J: arb_mat) -> list[int]:
    A = mids(J)
    _, _, piv = scipy.linalg.qr(A.T, pivoting=True, mode="economic")
    return sorted(int(p) for p in piv[: A.shape[1]])


def minor_det(J: arb_mat, rows) -> arb:
    N = J.ncols()
    return arb_mat([[J[r, j] for j in range(N)] for r in rows]).det()


def certify(name, layers, points, precs=(128, 256, 512, 1024)):
    """(certified, det ball, precision, rows). Rows chosen once at 128 bits."""
    old = ctx.prec
    rows = None
    try:
        for p in precs:
            ctx.prec = p
            J = jacobian(name, layers, points)
            if rows is None:
                rows = pick_rows(J)
            det = minor_det(J, rows)
            if not det.contains(0):
                return True, det, p, rows
        return False, det, p, rows
    finally:
        ctx.prec = old


def float_svals(name, layers, points):
    old = ctx.prec
    ctx.prec = 128
    try:
        J = jacobian(name, layers, points)
    finally:
        ctx.prec = old
    return np.linalg.svd(mids(J), compute_uv=False)


# ---------------------------------------------------------------- random rational data

def rq(rng: random.Random, lo=-12, hi=12, den=8) -> Q:
    while True:
        v = Q(rng.randint(lo, hi), den)
        if v != 0:
            return v


def parallel(u, v) -> bool:
    return all(u[a] * v[b] == u[b] * v[a] for a in range(len(u)) for b in range(a + 1, len(u)))


def rows_nonparallel(m, d, rng):
    while True:
        U = [[rq(rng) for _ in range(d)] for _ in range(m)]
        if not any(parallel(U[i], U[j]) for i in range(m) for j in range(i)):
            return U


def points(d, K, rng):
    return [[Q(rng.randint(-20, 20), 8) for _ in range(d)] for _ in range(K)]


def split(U, W, widths, eps=Q(1)):
    layers, k = [], 0
    for m in widths:
        layers.append(([list(r) for r in U[k:k + m]], [[eps * v for v in r[k:k + m]] for r in W]))
        k += m
    return layers
