"""Exact relu layers and stacks: evaluation, JSON forms, pieces, canonical forms and flat blocks.

A layer is the pair (U, W) of a bias-free relu block x -> W relu(U x) in exact rationals (U: m x d,
W: d x m, lists of rows of Fractions); a residual stack applies x -> x + W_l relu(U_l x) layer by
layer, a plain one x -> W_l relu(U_l x).  Everything here is shared by the depth claims
(oracle/claims/depth_*.py) and by the decision for stacks (oracle/decide/stacks.py).
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any, Optional, Sequence

from oracle.core import linalg
from oracle.core.blocks import Block, Stack
from oracle.core.rational import QMat, QVec, qmat, qvec, smat, svec, to_fmpq_mat, to_fraction
from oracle.algebra.exact import identity, line_key, matmul, matvec_q, property_is_proved, skip_matrix

Layer = tuple[QMat, QMat]  # (U or V: m x d, W: d x m)


# ================================================================ exact basics

def qdet(a: QMat) -> Fraction:
    """Exact determinant (python-flint)."""
    return to_fraction(to_fmpq_mat(a).det()) if a else Fraction(1)


def qrank(a: QMat) -> int:
    """Exact rank (python-flint)."""
    return linalg.rank(a) if a and a[0] else 0


def _relu(v: Fraction) -> Fraction:
    return v if v > 0 else Fraction(0)


def layers_of(stack: Stack) -> list[Layer]:
    """The exact (W_up, W_down) of every block of a stack."""
    return [(qmat(b.W_up), qmat(b.W_down)) for b in stack.blocks]


def layers_to_json(layers: Sequence[Layer]) -> list[dict[str, Any]]:
    """Exact string form of a list of layers."""
    return [{"W_up": smat(U), "W_down": smat(W)} for U, W in layers]


def layers_from_json(data: Sequence[dict[str, Any]]) -> list[Layer]:
    """Inverse of layers_to_json, with shape checks (raises ValueError on malformed data)."""
    out = []
    d = None
    for rec in data:
        U, W = qmat(rec["W_up"]), qmat(rec["W_down"])
        m = len(U)
        if m == 0 or any(len(r) != len(U[0]) for r in U):
            raise ValueError("ragged W_up")
        dd = len(U[0])
        if d is not None and dd != d:
            raise ValueError("dimension mismatch between layers")
        d = dd
        if len(W) != d or any(len(r) != m for r in W):
            raise ValueError("W_down has the wrong shape")
        out.append((U, W))
    if not out:
        raise ValueError("empty stack")
    return out


def apply_layer(layer: Layer, x: QVec, residual: bool) -> QVec:
    """x -> x + W relu(U x) (residual) or W relu(U x) (plain), exactly."""
    U, W = layer
    h = [_relu(v) for v in matvec_q(U, x)]
    out = matvec_q(W, h)
    return [a + b for a, b in zip(x, out)] if residual else out


def eval_stack(layers: Sequence[Layer], x: QVec, residual: bool) -> QVec:
    """Evaluate a residual or plain relu stack exactly, first layer first."""
    for layer in layers:
        x = apply_layer(layer, x, residual)
    return x


def nondegenerate(U: QMat, W: QMat) -> bool:
    """Rows of U nonzero and pairwise non-collinear, columns of W nonzero (exact)."""
    keys = [line_key(r) for r in U]
    if any(k is None for k in keys) or len(set(keys)) != len(keys):
        return False
    return all(any(W[a][i] != 0 for a in range(len(W))) for i in range(len(U)))


def piece(U: QMat, W: QMat, S: Sequence[int]) -> QMat:
    """I + W_S U_S: the linear piece of x + B(x) where exactly the units in S are active."""
    d = len(W)
    out = identity(d)
    for i in S:
        for a in range(d):
            if W[a][i]:
                for b in range(d):
                    out[a][b] += W[a][i] * U[i][b]
    return out


def spectral_sq_bound(a: QMat) -> Fraction:
    """An exact rational upper bound of |a|_2^2: min(Frobenius^2, |a|_1 |a|_inf)."""
    frob = sum((v * v for r in a for v in r), Fraction(0))
    n1 = max((sum((abs(r[j]) for r in a), Fraction(0)) for j in range(len(a[0]))), default=Fraction(0))
    ninf = max((sum((abs(v) for v in r), Fraction(0)) for r in a), default=Fraction(0))
    return min(frob, n1 * ninf)


# ================================================================ rational points and witnesses

def rational_points(d: int, count: int, seed: int) -> list[QVec]:
    """count points of Q^d with coordinates n / k, |n| <= 40, 1 <= k <= 7, drawn from the seed."""
    rng = random.Random(seed)
    return [[Fraction(rng.randint(-40, 40), rng.randint(1, 7)) for _ in range(d)] for _ in range(count)]


def find_difference(res: Sequence[Layer], plain: Sequence[Layer], seed: int,
                    first: Optional[QVec] = None) -> Optional[dict[str, Any]]:
    """A rational point where the residual and the plain stack differ exactly."""
    d = len(res[0][1])
    cands = ([first] if first is not None else []) + rational_points(d, 60, seed)
    for x in cands:
        if not any(x):
            continue
        fx, px = eval_stack(res, x, True), eval_stack(plain, x, False)
        if fx != px:
            return {"x": svec(x), "F": svec(fx), "P": svec(px)}
    return None


def check_difference(res: Sequence[Layer], plain: Sequence[Layer], wit: dict[str, Any]) -> bool:
    """Re-verify a witness of find_difference: the two stacks differ at x, with the stated values."""
    x = qvec(wit["x"])
    fx, px = eval_stack(res, x, True), eval_stack(plain, x, False)
    return fx != px and svec(fx) == wit["F"] and svec(px) == wit["P"]


# ================================================================ canonical forms (relu blocks with a skip)

def canonical_form(U: QMat, W: QMat, M: Optional[QMat] = None) -> tuple[QMat, dict[tuple[int, ...], QVec]]:
    """Canonical form of x -> M x + W relu(U x): its linear part M + (1/2) sum w_i u_i^T and, for each
    line l (primitive integer vector), alpha_l = (1/2) sum |c_i| w_i over units with u_i = c_i l.
    Two such maps are equal iff their canonical forms are (Lemma R of relu-gelu-iff.md)."""
    d = len(W)
    lin = [row[:] for row in M] if M is not None else [[Fraction(0)] * d for _ in range(d)]
    even: dict[tuple[int, ...], QVec] = {}
    for i, u in enumerate(U):
        w = [W[a][i] for a in range(d)]
        for a in range(d):
            for b in range(d):
                lin[a][b] += w[a] * u[b] / 2
        key = line_key(u)
        if key is None:
            continue
        j = next(k for k, v in enumerate(key) if v)
        c = u[j] / key[j]
        acc = even.setdefault(key, [Fraction(0)] * d)
        for a in range(d):
            acc[a] += abs(c) * w[a] / 2
    return lin, {k: v for k, v in even.items() if any(v)}


def independent_rows(U: QMat) -> list[int]:
    """A maximal set of linearly independent rows (greedy, exact)."""
    chosen: list[int] = []
    for i in range(len(U)):
        if qrank([U[j] for j in chosen + [i]]) == len(chosen) + 1:
            chosen.append(i)
    return chosen


def absorbing_widths(layers: Sequence[Layer]) -> dict[str, Any]:
    """depth-width's widths m_l + 2d - rank U_l (each I + B_l is a plain block of that width), with
    the ranks."""
    d = len(layers[0][1])
    ranks = [qrank(U) for U, _ in layers]
    return {"absorbing_widths": [len(U) + 2 * d - r for (U, _), r in zip(layers, ranks)],
            "ranks_W_up": ranks}


# ================================================================ flat blocks (depth-impossible, depth-any)

def is_flat(b: Block) -> bool:
    """Flat at 0, re-derived: homogeneous of block degree > 1, or a gate vanishing and continuous at 0."""
    if b.has_bias:
        return False
    a = b.act
    if a.block_degree is not None and a.block_degree > 1:
        return property_is_proved(b.activation, "homogeneity_degree")
    return a.gated and a.value_at_0 == 0 and property_is_proved(b.activation, "value_at_0") \
        and a.continuous_at_0 and property_is_proved(b.activation, "continuous_at_0")


def skip_product(s: Stack) -> QMat:
    """M_L ... M_1 exactly (the first block's skip is applied first)."""
    P = identity(s.blocks[0].d)
    for b in s.blocks:
        P = matmul(skip_matrix(b), P)
    return P
