"""Referee check of absorption-width (exact half): the right-hand sides of the Coq theorems
absorption_width_exact and absorption_width_invertible (proofs/coq/AbsorptionWidth.v),
evaluated in exact rationals, against the oracle (oracle.claims.absorption_width) and against
relu-complete's width_suffices (rc_coq_vs_oracle.coq_mstar).

For random nondegenerate bias-free relu blocks (d = 1..3) and skips M (identity, zero, rank one,
random), the least m' for which the Coq condition

    exists S, T disjoint, k:  M + W_S U_S = sum_{i in T} y_i u_i^T + (k outer products),
                              m + |T| + 2k <= m'

holds is m + min over disjoint S, T of |T| + 2 rank((M + W_S U_S) K_T).  It must equal the
oracle's m + C (lower_bound_table), relu-complete's m* (Coq width_suffices, enumerated), and,
when every M + W_S U_S is invertible, m + 2d - rank W_up (absorption_width_invertible).
Run: .venv/bin/python experiments/referee/aw_coq_vs_oracle.py [n] [seed]
"""

from __future__ import annotations

import itertools
import os
import random
import sys
from fractions import Fraction

from flint import fmpq, fmpq_mat

sys.path.insert(0, os.path.dirname(__file__))
from rc_coq_vs_oracle import coq_mstar, kernel, rank  # noqa: E402

from oracle.claims.absorption_width import lower_bound_table  # noqa: E402

Q = fmpq


def nondegenerate(d, m, Wd, Wu):
    """rows_nonzero, rows_noncollinear, cols_nonzero of Necessity.v."""
    for l in range(m):
        if all(Wu[l][j] == 0 for j in range(d)) or all(Wd[o][l] == 0 for o in range(d)):
            return False
    for l in range(m):
        for l2 in range(l + 1, m):
            if rank(fmpq_mat([Wu[l], Wu[l2]])) < 2:  # collinear (d = 1: always)
                return False
    return True


def coq_exact_width(d, m, M, Wd, Wu):
    best = None
    for S in itertools.chain.from_iterable(itertools.combinations(range(m), k) for k in range(m + 1)):
        A = fmpq_mat(d, d)
        for o in range(d):
            for j in range(d):
                A[o, j] = M[o][j] + sum((Wd[o][i] * Wu[i][j] for i in S), Q(0))
        rest = [i for i in range(m) if i not in S]
        for k in range(len(rest) + 1):
            for T in itertools.combinations(rest, k):
                K = kernel([Wu[i] for i in T], d)
                c = m + len(T) + 2 * (rank(A * K) if K.ncols() else 0)
                best = c if best is None or c < best else best
    return best


def all_invertible(d, m, M, Wd, Wu):
    for S in itertools.chain.from_iterable(itertools.combinations(range(m), k) for k in range(m + 1)):
        A = fmpq_mat([[M[o][j] + sum((Wd[o][i] * Wu[i][j] for i in S), Q(0)) for j in range(d)] for o in range(d)])
        if A.det() == 0:
            return False
    return True


POOL = [Q(0), Q(1), Q(-1), Q(2), Q(-2), Q(1, 2), Q(3)]


def random_nd(rng):
    while True:
        d = rng.randint(1, 3)
        m = rng.randint(0, 1) if d == 1 else rng.randint(0, 4)
        Wu = [[rng.choice(POOL) for _ in range(d)] for _ in range(m)]
        Wd = [[rng.choice(POOL) for _ in range(m)] for _ in range(d)]
        if nondegenerate(d, m, Wd, Wu):
            break
    r = rng.random()
    if r < 0.3:
        M = [[Q(int(a == b)) for b in range(d)] for a in range(d)]
    elif r < 0.4:
        M = [[Q(0)] * d for _ in range(d)]
    elif r < 0.6 and m:  # plant an index condition M = -W_S U_S
        S = [i for i in range(m) if rng.random() < 0.5]
        M = [[-sum((Wd[o][i] * Wu[i][j] for i in S), Q(0)) for j in range(d)] for o in range(d)]
    else:
        M = [[rng.choice(POOL) for _ in range(d)] for _ in range(d)]
    return d, m, M, Wd, Wu


def F(x):
    return Fraction(int(x.p), int(x.q))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 600
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    rng = random.Random(seed)
    bad = inv = 0
    for _ in range(n):
        d, m, M, Wd, Wu = random_nd(rng)
        coq_aw = coq_exact_width(d, m, M, Wd, Wu)
        coq_rc, _ = coq_mstar(d, m, M, Wd, Wu, [Q(0)] * m)
        tab = lower_bound_table([[F(v) for v in r] for r in Wu], [[F(v) for v in r] for r in Wd],
                                [[F(v) for v in r] for r in M])
        problems = []
        if coq_aw != coq_rc:
            problems.append(f"absorption_width_exact {coq_aw} vs width_suffices {coq_rc}")
        if coq_aw != m + tab["C"]:
            problems.append(f"absorption_width_exact {coq_aw} vs oracle m + C = {m + tab['C']}")
        if all_invertible(d, m, M, Wd, Wu):
            inv += 1
            r = rank(fmpq_mat(Wu)) if m else 0
            if coq_aw != m + 2 * d - r:
                problems.append(f"invertible case: {coq_aw} vs m + 2d - r = {m + 2 * d - r}")
            if tab["all_invertible"] is not True:
                problems.append("oracle says not all invertible")
        if problems:
            bad += 1
            print("DISAGREEMENT", d, m, M, Wd, Wu, problems)
    print(f"{n} nondegenerate bias-free blocks (seed {seed}), {inv} with every M + W_S U_S invertible, "
          f"{bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
