"""Write proofs/certificates/depth-analytic-sweep.json: a ball-arithmetic rank certificate of the
claim depth-analytic for every d <= 4, L in {2, 3} and widths m_l <= 6, for gelu, gelu_tanh and
silu (the three share the rational weights and points of each width tuple).

    .venv/bin/python experiments/depth_analytic_sweep.py [--max-d 4] [--max-width 6] [--out PATH]

Deterministic: the weights and points of each width tuple come from a seeded generator
(oracle.algebra.stacks.sweep.sweep_entry). Every entry is re-checkable from the JSON alone
(oracle.algebra.stacks.analytic.recheck on sweep.entry_certificate(entry, activation)).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

from oracle.algebra.stacks import analytic as an
from oracle.algebra.stacks import sweep


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-d", type=int, default=4)
    ap.add_argument("--max-width", type=int, default=6)
    ap.add_argument("--out", default=str(sweep.SWEEP_PATH))
    args = ap.parse_args(argv)
    todo = sweep.sweep_widths(args.max_d, (2, 3), args.max_width)
    entries = []
    start = time.perf_counter()
    for n, (d, widths) in enumerate(todo):
        t = time.perf_counter()
        e = sweep.sweep_entry(d, widths)
        e["seconds"] = round(time.perf_counter() - t, 3)
        entries.append(e)
        bad = [a for a, r in e["results"].items() if not r["certified"]]
        if bad or n % 50 == 0:
            print(f"{n + 1}/{len(todo)} d={d} widths={widths} {e['seconds']}s"
                  + (f" NOT certified: {bad}" if bad else ""), file=sys.stderr, flush=True)
    total = time.perf_counter() - start
    doc = {"format": "depth-analytic-sweep/1", "claim": an.CLAIM, "activations": list(an.ACTIVATIONS),
           "max_d": args.max_d, "depths": [2, 3], "max_width": args.max_width,
           "encoding": "theta = integers over theta_den in the order U_1, W_1, U_2, W_2, ... (row-major); "
                       "points = integers over points_den; rows = all K d rows but rows_omitted",
           "seconds": round(total, 1), "machine": platform.machine(), "python": platform.python_version(),
           "entries": entries}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    cert = sum(all(r["certified"] for r in e["results"].values()) for e in entries)
    print(f"{cert}/{len(entries)} width tuples certified for all three activations in {total:.0f}s",
          file=sys.stderr)
    return 0 if cert == len(entries) else 1


if __name__ == "__main__":
    raise SystemExit(main())
