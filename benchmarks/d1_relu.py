"""`absorb check` on d = 1 relu blocks with many units (issue 29), as ratios within one run.

    python benchmarks/d1_relu.py [--sizes 16 20 24 31] [--baseline-max 24]

A d = 1 relu block with small integer weights has very many index sets (subsets S with
sum_{i in S} w_i u_i = -M).  The meet-in-the-middle search used to confirm every fingerprint
match with the exact multi-modular verifier even when one solution was asked for, so `decide`
spent minutes verifying index sets after its verdict was settled.  It now stops at the first
verified solution.  The baseline, measured in the same run on the same blocks, is that old work:
`exhaustive_search(..., limit=None)` on the block's units (every match verified; the count of
index sets is printed).  Both are CPU times (time.process_time), best of ``--rounds``.  The
baseline is skipped above ``--baseline-max`` units (it grows like the number of index sets).
Prints a Markdown table; nothing is asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from oracle.algebra import search  # noqa: E402
from oracle.core.blocks import Block  # noqa: E402
from oracle.decide.block import decide  # noqa: E402


def block(m: int, seed: int = 0) -> Block:
    """u in {-8..8} \\ {0}, w in {-8..8}/4, b_up in {-16..16}/4: many shared index sets."""
    rng = np.random.default_rng(seed)
    U = rng.integers(-8, 9, (m, 1)).astype(float)
    U[U == 0] = 1.0
    W = rng.integers(-8, 9, (1, m)) / 4.0
    bu = rng.integers(-16, 17, m) / 4.0
    return Block("relu", W_up=U, W_down=W, b_up=bu)


def best(f, rounds: int) -> tuple[float, object, float]:
    """Least CPU time of this process over ``rounds`` calls, the result, and the least wall time
    (the wall time includes child processes, e.g. the lattice reduction's)."""
    out, t, wall = None, float("inf"), float("inf")
    for _ in range(rounds):
        t0, w0 = time.process_time(), time.perf_counter()
        out = f()
        t = min(t, time.process_time() - t0)
        wall = min(wall, time.perf_counter() - w0)
    return t, out, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[16, 20, 24, 31])
    ap.add_argument("--baseline-max", type=int, default=24)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    print("| m | verdict | m* | `decide` CPU (s) | `decide` wall (s) | baseline: verify every index set, CPU (s) "
          "| index sets | ratio (CPU) |")
    print("|---|---|---|---|---|---|---|---|")
    for m in a.sizes:
        b = block(m)
        t_new, v, w_new = best(lambda: decide(b), a.rounds)
        c = v.certificate
        ms = c.get("m_star", f"{c.get('lower')}..{c.get('upper')}")
        active = int(np.sum(np.any(b.W_up != 0, axis=1) & np.any(b.W_down != 0, axis=0)))
        if m <= a.baseline_max and active <= 36:
            t_old, sols, _ = best(lambda: search.exhaustive_search(b.W_up, b.W_down, None, max_m=40), 1)
            base, n, ratio = f"{t_old:.3f}", str(len(sols)), f"{t_old / max(t_new, 1e-9):.0f}x"
        else:
            base, n, ratio = "not run", "-", "-"
        print(f"| {m} | {v.verdict} ({'exact' if v.exact else 'not exact'}) | {ms} | {t_new:.3f} | {w_new:.3f} | {base} | "
              f"{n} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
