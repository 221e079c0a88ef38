"""Referee 21: checks of the all-widths full-rank proof of depth-analytic (d >= 2).

Uses the independent dual-number Jacobian of ref21_jac.py (no code shared with the oracle).

  0. the dual-number Jacobian against float64 central differences (a test of the code);
  A. the limit block (depth 1, width m, rows pairwise non-parallel), d >= 2: the lemma predicts
     rank 2 d m; certified in arb (determinant ball excludes 0) for all three activations,
     including m < d and m = 1;
  B. stacks at weights (U_l, eps W_l), eps = 1/64, with widths the earlier checks did not use
     (all widths 1, depth 6; widths below d; one wide and one narrow layer): certified in arb;
  C. the limit itself: with the rows of the limit's minor fixed, the determinant of the stack's
     Jacobian with U-columns divided by eps approaches the limit's determinant as eps -> 0;
  D. where the lemma's hypothesis (rows pairwise non-parallel, d >= 2) fails: float singular
     values (evidence only) and exact dependency vectors checked in balls;
  E. quick_gelu (outside the claim), to which the lemma's hypotheses also apply.

    .venv/bin/python experiments/referee/ref21_checks.py
"""

from __future__ import annotations

import random
import sys
import time
from fractions import Fraction as Q
from pathlib import Path

import numpy as np
from flint import arb, arb_mat, ctx, fmpq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ref21_jac import (certify, float_svals, jacobian, minor_det, pick_rows, points, rows_nonparallel,
                       rq, split)

ACTS = ("gelu", "gelu_tanh", "silu")


def K_for(d, m):
    return 2 * m + d + 1


def part_0():
    """The dual-number Jacobian against float64 central differences of an independent numpy stack."""
    import math
    print("0. dual-number Jacobian vs float64 central differences (d = 3, widths (2, 3), eps = 1/2)")
    rng = random.Random("ref21-0")
    d, widths = 3, [2, 3]
    U = rows_nonparallel(5, d, rng)
    W = [[rq(rng) for _ in range(5)] for _ in range(d)]
    layers = split(U, W, widths, Q(1, 2))
    pts = points(d, 4, rng)
    c, a3 = math.sqrt(2 / math.pi), 0.044715
    fs = {"gelu": lambda z: z * (1 + np.vectorize(math.erf)(z / math.sqrt(2))) / 2,
          "silu": lambda z: z / (1 + np.exp(-z)),
          "gelu_tanh": lambda z: z / 2 * (1 + np.tanh(c * (z + a3 * z ** 3)))}
    flat = []
    for Ul, Wl in layers:
        flat += [float(v) for r in Ul for v in r] + [float(v) for r in Wl for v in r]
    th = np.array(flat)

    def F(th, s):
        out, k = [], 0
        ls = []
        for Ul, _ in layers:
            m = len(Ul)
            Un = th[k:k + m * d].reshape(m, d); k += m * d
            Wn = th[k:k + m * d].reshape(d, m); k += m * d
            ls.append((Un, Wn))
        for x in pts:
            y = np.array([float(v) for v in x])
            for Un, Wn in ls:
                y = y + Wn @ s(Un @ y)
            out += list(y)
        return np.array(out)
    worst = 0.0
    for name in ACTS:
        J = np.array([[float(v) for v in row] for row in
                      [[jacobian(name, layers, pts)[i, j].mid() for j in range(len(th))] for i in range(len(pts) * d)]])
        h = 1e-6
        FD = np.array([(F(th + h * e, fs[name]) - F(th - h * e, fs[name])) / (2 * h) for e in np.eye(len(th))]).T
        err = float(np.abs(FD - J).max())
        worst = max(worst, err)
        print(f"  {name}: max |dual - central difference| = {err:.1e}")
    return worst < 1e-6


def part_a():
    print("A. limit block (depth 1), rows pairwise non-parallel: predicted rank 2dm")
    ok = True
    for d, m in [(2, 1), (2, 2), (2, 7), (2, 16), (3, 1), (5, 1), (6, 2), (4, 9)]:
        rng = random.Random(f"ref21-A/{d}/{m}")
        U = rows_nonparallel(m, d, rng)
        W = [[rq(rng) for _ in range(m)] for _ in range(d)]
        pts = points(d, K_for(d, m), rng)
        out = []
        for a in ACTS:
            good, det, p, _ = certify(a, [(U, W)], pts)
            ok &= good
            out.append(f"{a} {'certified' if good else 'NOT certified'} ({p} bits, det {det.str(3, radius=False)})")
        print(f"  d={d} m={m} N={2*d*m}: " + "; ".join(out), flush=True)
    return ok


def part_b():
    print("B. stacks at (U_l, W_l / 64), all rows pairwise non-parallel: predicted rank N")
    ok = True
    eps = Q(1, 64)
    for d, widths in [(2, [1] * 6), (2, [12, 1]), (6, [1, 1]), (3, [1, 7]), (2, [2] * 7), (5, [1, 2, 1]),
                      (7, [1, 1])]:
        rng = random.Random(f"ref21-B/{d}/{widths}")
        m = sum(widths)
        U = rows_nonparallel(m, d, rng)
        W = [[rq(rng) for _ in range(m)] for _ in range(d)]
        layers = split(U, W, widths, eps)
        pts = points(d, K_for(d, m), rng)
        out = []
        t = time.perf_counter()
        for a in ACTS:
            good, det, p, _ = certify(a, layers, pts)
            ok &= good
            out.append(f"{a} {'certified' if good else 'NOT certified'} ({p} bits)")
        print(f"  d={d} widths={tuple(widths)} N={2*d*m}: " + "; ".join(out)
              + f" [{time.perf_counter() - t:.1f} s]", flush=True)
    return ok


def rescaled_det(a, layers, pts, rows, eps, d):
    """det of the chosen minor of the Jacobian with U-columns divided by eps."""
    J = jacobian(a, layers, pts)
    N = J.ncols()
    # U-columns: per layer, first m*d columns
    cols_u = []
    k = 0
    for U, _ in layers:
        m = len(U)
        cols_u += list(range(k, k + m * d))
        k += 2 * m * d
    inv = 1 / arb(eps.numerator) * arb(eps.denominator)
    M = arb_mat([[J[r, j] * (inv if j in cols_u else 1) for j in range(N)] for r in rows])
    return M.det()


def part_c():
    print("C. convergence of the rescaled determinant to the limit block's (same rows)")
    d, widths = 2, [2, 3]
    m = sum(widths)
    rng = random.Random("ref21-C")
    U = rows_nonparallel(m, d, rng)
    W = [[rq(rng) for _ in range(m)] for _ in range(d)]
    pts = points(d, K_for(d, m), rng)
    old = ctx.prec
    ctx.prec = 256
    try:
        for a in ACTS:
            Jl = jacobian(a, [(U, W)], pts)
            rows = pick_rows(Jl)
            # the limit block's parameter order is (U all rows, W all columns); the stack's is
            # (U_1, W_1, U_2, W_2): permute the limit's columns to the stack's order
            perm = []
            k = 0
            for mw in widths:
                perm += list(range(k * d, (k + mw) * d))                       # U rows k..k+mw
                perm += [m * d + a2 * m + i for a2 in range(d) for i in range(k, k + mw)]  # W cols
                k += mw
            Ml = arb_mat([[Jl[r, j] for j in perm] for r in rows])
            dl = Ml.det()
            line = [f"limit {dl.str(6, radius=False)}"]
            for e in (4, 16, 256, 4096):
                eps = Q(1, e)
                line.append(f"eps=1/{e}: {rescaled_det(a, split(U, W, widths, eps), pts, rows, eps, d).str(6, radius=False)}")
            print(f"  {a}: " + "; ".join(line), flush=True)
    finally:
        ctx.prec = old
    return True


def smallest(name, layers, pts):
    s = float_svals(name, layers, pts)
    return s[-1] / s[0], len(s)


def dependency_check(name, layers, pts, vec):
    """J vec in balls: does every entry contain 0 (consistent with an exact dependency)?"""
    old = ctx.prec
    ctx.prec = 256
    try:
        J = jacobian(name, layers, pts)
        N = J.ncols()
        v = arb_mat([[arb(fmpq(x.numerator, x.denominator))] for x in vec])
        r = J * v
        return all(r[i, 0].contains(0) for i in range(r.nrows())), max(abs(float(r[i, 0].mid())) for i in range(r.nrows()))
    finally:
        ctx.prec = old


def part_d():
    print("D. outside the lemma's hypothesis (float64 singular values are evidence only)")
    rng = random.Random("ref21-D")
    d = 2
    u = [Q(3, 4), Q(-5, 8)]
    w = [Q(7, 8), Q(1, 2)]
    w2 = [Q(-3, 8), Q(5, 4)]
    pts2 = points(2, 12, rng)
    # opposite rows, equal output columns: U = [u; -u], W = [w w]
    U = [u, [-v for v in u]]
    W = [[w[0], w[0]], [w[1], w[1]]]
    # dependency: W-columns (w, -w) and both U-rows -u:
    # w s(z) - w s(-z) - w s'(z) z - w s'(-z) z = w z - w z = 0 with z = u.x (s(z) - s(-z) = z).
    # order: U row 1, U row 2, then W row-major (W[0][0], W[0][1], W[1][0], W[1][1])
    vec = [-u[0], -u[1], -u[0], -u[1], w[0], -w[0], w[1], -w[1]]
    for a in ACTS:
        dep, res = dependency_check(a, [(U, W)], pts2, vec)
        r, n = smallest(a, [(U, W)], pts2)
        print(f"  d=2, u_2 = -u_1, w_2 = w_1 ({a}): J v contains 0 in every ball: {dep} "
              f"(|mid| <= {res:.1e}); float smallest/largest singular value {r:.1e}", flush=True)
    # opposite rows and parallel output columns w_2 = 3 w_1: dependency W-columns (w, -w),
    # U-rows -u and -u/3 (w s'(z)(-u.x) + 3 w s'(-z)(-u.x / 3) = -w z)
    U = [u, [-v for v in u]]
    W = [[w[0], 3 * w[0]], [w[1], 3 * w[1]]]
    vec = [-u[0], -u[1], -u[0] / 3, -u[1] / 3, w[0], -w[0], w[1], -w[1]]
    for a in ACTS:
        dep, res = dependency_check(a, [(U, W)], pts2, vec)
        print(f"  d=2, u_2 = -u_1, w_2 = 3 w_1 ({a}): J v contains 0 in every ball: {dep} (|mid| <= {res:.1e})",
              flush=True)
    # the same two units in two layers of a stack (widths (1, 1)), at eps = 1 and eps = 1/64
    for e in (Q(1), Q(1, 64)):
        for a in ACTS:
            good, det, p, _ = certify(a, split(U, W, [1, 1], e), pts2)
            print(f"  d=2 stack widths (1, 1), u_2 = -u_1, w_2 = 3 w_1, eps = {e} ({a}): "
                  f"{'certified full rank 8' if good else 'NOT certified'} ({p} bits)", flush=True)
    U = [u, [-v for v in u]]
    W = [[w[0], w2[0]], [w[1], w2[1]]]
    for a in ACTS:
        good, det, p, _ = certify(a, [(U, W)], pts2)
        print(f"  d=2, u_2 = -u_1, w_2 not parallel to w_1 ({a}): "
              f"{'certified full rank 8' if good else 'NOT certified'} ({p} bits)", flush=True)
    U = [u, [2 * v for v in u]]
    W = [[w[0], w2[0]], [w[1], w2[1]]]
    for a in ACTS:
        good, det, p, _ = certify(a, [(U, W)], pts2)
        r, _ = smallest(a, [(U, W)], pts2)
        print(f"  d=2, u_2 = 2 u_1 ({a}): {'certified full rank 8' if good else 'NOT certified'} ({p} bits); "
              f"float sigma_min/sigma_max {r:.1e}", flush=True)
    # d = 1: opposite rows dependent, distinct |u| (the sketch)
    pts1 = points(1, 12, rng)
    U = [[Q(3, 4)], [Q(-3, 4)]]
    W = [[Q(1, 2), Q(5, 4)]]
    for a in ACTS:
        r, _ = smallest(a, [(U, W)], pts1)
        print(f"  d=1, u_2 = -u_1 ({a}): float sigma_min/sigma_max {r:.1e}", flush=True)
    U = [[Q(3, 4)], [Q(-5, 4)], [Q(2, 1)]]
    W = [[Q(1, 2), Q(5, 4), Q(-3, 4)]]
    pts1 = points(1, 14, rng)
    for a in ACTS:
        good, det, p, _ = certify(a, [(U, W)], pts1)
        print(f"  d=1, block u = (3/4, -5/4, 2), distinct |u| ({a}): "
              f"{'certified full rank 6' if good else 'NOT certified'} ({p} bits)", flush=True)
    for a in ACTS:
        good, det, p, _ = certify(a, split(U, W, [1, 2], Q(1, 64)), pts1)
        print(f"  d=1, stack widths (1, 2) at eps = 1/64 from that block ({a}): "
              f"{'certified full rank 6' if good else 'NOT certified'} ({p} bits)", flush=True)
    return True


def part_e():
    print("E. quick_gelu (not in the claim; z s' - s = 1.702 z^2 q (1 - q) != 0 and the same limits, so the lemma applies)")
    for d, widths in [(2, [5]), (2, [3, 2]), (3, [2, 2, 2])]:
        rng = random.Random(f"ref21-E/{d}/{widths}")
        m = sum(widths)
        U = rows_nonparallel(m, d, rng)
        W = [[rq(rng) for _ in range(m)] for _ in range(d)]
        pts = points(d, K_for(d, m), rng)
        good, det, p, _ = certify("quick_gelu", split(U, W, widths, Q(1, 64)), pts)
        print(f"  d={d} widths={tuple(widths)} eps = 1/64: {'certified' if good else 'NOT certified'} ({p} bits)",
              flush=True)


def main() -> int:
    t = time.perf_counter()
    ok = part_0()
    ok &= part_a()
    ok &= part_b()
    part_c()
    part_d()
    part_e()
    print(f"0 agrees, A and B all certified: {ok}; {time.perf_counter() - t:.0f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
