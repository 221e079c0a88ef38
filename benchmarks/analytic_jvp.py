"""Cost of depth-analytic's derivative check (the chain-rule Jacobian against forward-mode arb
series), as a ratio within one run: the same certificate work with the check and with it
replaced by a no-op, interleaved, CPU time (time.process_time).

    python benchmarks/analytic_jvp.py [--rounds 3]

Two workloads: (a) what the quick audit's depth-analytic oracle does per instance (certify fresh
random weights, then re-check from JSON) on 60 instances drawn like analytic_instances
(d <= 3, L in {2, 3}, widths <= 3); (b) `absorb recheck --every 10` on the committed sweep
(101 of 1008 entries, three activations each).  Prints a Markdown table; nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from oracle.algebra.stacks import analytic as da  # noqa: E402
from oracle.algebra.stacks import sweep  # noqa: E402


def audit_like() -> None:
    for s in range(60):
        rng = random.Random(f"bench/{s}")
        d = rng.randint(1, 3)
        widths = [rng.randint(1, 3) for _ in range(rng.randint(2, 3))]
        cert = da.make_certificate(da.ACTIVATIONS[s % 3], d, widths, s)
        assert cert["certified"] and da.recheck(cert)


def sweep_every_10() -> None:
    res = sweep.recheck_sweep(sweep.load_sweep(), every=10)
    assert res["holds"], res["reason"]


def cpu(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    real = da.derivative_mismatch
    rows = []
    for name, fn in (("quick-audit-like: 60 fresh certificates + re-checks", audit_like),
                     ("sweep re-check, every 10th entry (303 determinants)", sweep_every_10)):
        with_, without = [], []
        for _ in range(a.rounds):
            da.derivative_mismatch = lambda *args: ""
            without.append(cpu(fn))
            da.derivative_mismatch = real
            with_.append(cpu(fn))
        rows.append((name, min(without), min(with_)))
    print("| workload | without the check (CPU s, best of %d) | with it | ratio |" % a.rounds)
    print("|---|---|---|---|")
    for name, wo, w in rows:
        print(f"| {name} | {wo:.2f} | {w:.2f} | {w / wo:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
