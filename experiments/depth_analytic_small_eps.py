"""Check the full-rank proof sketch of depth-analytic (proofs/informal/depth-analytic.md,
"Full rank for all widths when d >= 2") against ball arithmetic.

The sketch: at weights (U_l, eps W_l) with all rows u_{l,i} pairwise non-parallel, the Jacobian with
its U-columns divided by eps tends, as eps -> 0, to the Jacobian of ONE residual block of width
m = m_1 + ... + m_L with all rows stacked (at W = the stacked W_l); that one has full rank 2 d m when
d >= 2 (the lemma), so the stack has full rank N for small eps.

For each (d, widths) below this script certifies in arb (oracle.algebra.stacks.analytic.certify):
  (1) the limit: the depth-1 block of width m with the stacked rows and output weights;
  (2) the stack at eps = 1/16 with the same rows and output weights scaled by eps.
Both are certificates (determinant balls that exclude 0), not float evidence; they check the
sketch's construction, they do not replace its proof.

    .venv/bin/python experiments/depth_analytic_small_eps.py
"""

from __future__ import annotations

import random
import sys
import time
from fractions import Fraction as Q

from oracle.algebra.stacks import analytic as da

CASES = [(2, [3, 3]), (2, [6, 6, 6]), (3, [4, 2, 5]), (4, [6, 6]), (2, [10, 10]), (3, [2, 2, 2, 2]),
         (5, [3, 3])]
EPS = Q(1, 16)


def parallel(u: list, v: list) -> bool:
    """u and v are parallel: every 2 x 2 minor of [u; v] is 0 (exact)."""
    return all(u[a] * v[b] == u[b] * v[a] for a in range(len(u)) for b in range(a + 1, len(u)))


def stacked(d: int, widths: list[int], rng: random.Random):
    """All m = sum(widths) rows drawn as one wide layer (nonzero entries), redrawn until they are
    pairwise non-parallel (checked exactly), as the lemma asks; output weights nonzero."""
    while True:
        (U, W), = da.random_layers(d, [sum(widths)], rng)
        if not any(parallel(U[i], U[j]) for i in range(len(U)) for j in range(i)):
            return U, W


def main() -> int:
    ok = True
    for d, widths in CASES:
        rng = random.Random(f"small-eps/{d}/{widths}")
        U, W = stacked(d, widths, rng)
        pts = da.random_points(d, da.point_count(d, widths), rng)
        t = time.perf_counter()
        limit = da.certify("gelu", [(U, W)], pts)
        layers, k = [], 0
        for m in widths:
            layers.append(([list(r) for r in U[k:k + m]], [[EPS * v for v in r[k:k + m]] for r in W]))
            k += m
        res = {a: da.certify(a, layers, pts) for a in da.ACTIVATIONS}
        good = limit["certified"] and all(c["certified"] for c in res.values())
        ok &= good
        print(f"d = {d}, widths {tuple(widths)}, N = {da.param_count(d, widths)}: limit (gelu, depth 1, "
              f"width {sum(widths)}) {'certified' if limit['certified'] else 'NOT certified'} "
              f"det {limit['det']}; stack at eps = 1/16: "
              + ", ".join(f"{a} {'certified' if c['certified'] else 'NOT certified'} ({c['precision']} bits)"
                          for a, c in res.items()) + f"; {time.perf_counter() - t:.1f} s", flush=True)
    print("all certified" if ok else "SOME NOT CERTIFIED", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
