"""The time of `absorb audit --quick` against a fixed baseline workload measured in the same run.

Issue 28 strengthens the oracle checks and asks that the quick audit stay within 1.5x of its time
before that work.  A wall time on a shared 2-core machine says little, so this script measures CPU
time and divides it by the CPU time of a fixed workload run in the same process, interleaved with
the audits (baseline, audit, baseline, audit, ...):

* the audit: ``absorb audit --quick --json`` (``--claim`` restricts it) in a child process; its CPU
  time is the user + system time of that process and every process it waited for (coqc
  included), from ``resource.getrusage(RUSAGE_CHILDREN)``; the oracle part alone is the sum of the
  per-claim ``seconds`` the audit document reports (wall time inside the audit);
* the baseline: a fixed mix of the arithmetic the audit is made of, run in this process (exact
  rational ranks of fixed integer matrices with python-flint, mpmath evaluations of erf at 128
  bits, small numpy products), CPU time of this process.

Reports the least of ``--rounds`` for each, the ratio audit / baseline, and, given the ratio
measured before the change (``--reference``, e.g. the one in benchmarks/README.md section 9),
whether the new ratio is within 1.5x of it.  Nothing is asserted; a failing audit is reported.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def baseline_workload() -> int:
    """A fixed amount of exact, multiprecision and float work; returns a checksum of it."""
    import flint
    import mpmath
    import numpy as np

    total = 0
    for k in range(400):  # exact ranks of 24 x 24 integer matrices, fixed entries
        rows = [[((i * 7 + j * 13 + k * 3) % 11) - 5 for j in range(24)] for i in range(24)]
        total += flint.fmpq_mat(rows).rank()
    with mpmath.workprec(128):
        acc = mpmath.mpf(0)
        for i in range(40000):
            acc += mpmath.erf(mpmath.mpf(i) / 1000)
    total += int(acc)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 64))
    for _ in range(3000):
        a = np.tanh(a @ a.T / 64)
    return total + int(abs(a).sum())


def run_baseline() -> float:
    t0 = time.process_time()
    baseline_workload()
    return time.process_time() - t0


def run_audit(claims: list[str]) -> dict:
    cmd = [str(Path(sys.executable).parent / "absorb"), "audit", "--quick", "--json"]
    for c in claims:
        cmd += ["--claim", c]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - w0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    try:
        doc = json.loads(done.stdout)
        oracle = sum(c["oracle"].get("seconds", 0) for c in doc["claims"])
        ok = doc["ok"]
    except (json.JSONDecodeError, KeyError):
        oracle, ok = float("nan"), False
    return {"cpu": cpu, "wall": wall, "oracle": oracle, "ok": ok, "exit": done.returncode}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--claim", action="append", default=[], help="restrict the audit (repeatable)")
    ap.add_argument("--reference", type=float, help="the audit / baseline CPU ratio measured before")
    a = ap.parse_args()
    base, audits = [], []
    for _ in range(a.rounds):
        base.append(run_baseline())
        audits.append(run_audit(a.claim))
    base.append(run_baseline())
    b = min(base)
    best = min(audits, key=lambda x: x["cpu"])
    ratio = best["cpu"] / b
    print(f"quick audit{' --claim ' + ','.join(a.claim) if a.claim else ''}, {a.rounds} rounds, "
          f"{datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}, "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print("| what | CPU (s) | wall (s) | ratio to baseline (CPU) |")
    print("|---|---|---|---|")
    print(f"| baseline workload (least of {len(base)}) | {b:.2f} | - | 1 |")
    for i, x in enumerate(audits, 1):
        print(f"| `absorb audit --quick`, round {i} ({'PASSED' if x['ok'] else 'FAILED'}, exit {x['exit']}) "
              f"| {x['cpu']:.1f} | {x['wall']:.1f} | {x['cpu'] / b:.1f} |")
    print(f"| oracle checks alone (sum of per-claim seconds, wall, best round) | - | {best['oracle']:.1f} | - |")
    print(f"\naudit / baseline (CPU, least of each): {ratio:.2f}")
    if a.reference:
        print(f"against the reference {a.reference:.2f}: {ratio / a.reference:.2f}x "
              f"({'within' if ratio <= 1.5 * a.reference else 'NOT within'} 1.5x)")


if __name__ == "__main__":
    main()
