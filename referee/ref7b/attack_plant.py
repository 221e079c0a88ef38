"""Referee ref7b: a write-stage corruption smaller than the test's +0.5 (the planted change of
tests/test_scan_emit_safetensors.py::test_a_corrupted_compiled_weight_fails_the_end_to_end_check),
made after plan_block's exact check; does `absorb scan --emit` (run in-process, as that test does)
still write the file?  Each size is run in a fresh subprocess.
Run: nice .venv/bin/python referee/ref7b/attack_plant.py"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHILD = r'''
import json, sys, io, contextlib
from pathlib import Path
import numpy as np
sys.path.insert(0, "tests")
import test_scan_emit_safetensors as T
from oracle.cli import main
from oracle.decide import compile_safetensors as cs
delta = float(sys.argv[1]); tmp = Path(sys.argv[2])
real = cs.float32_arrays
def broken(arrays, err):
    got, rounding = real(arrays, err)
    got["W_down"] = got["W_down"].copy()
    got["W_down"][0, 0] += np.float32(delta)
    return got, rounding
cs.float32_arrays = broken
src = T._write(tmp / "in", T._weights(19), T._config())
out = tmp / "out" / "c.safetensors"; out.parent.mkdir()
buf = io.StringIO()
with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
    code = main(["scan", str(src), "--emit", str(out), "--json"])
v = json.loads(buf.getvalue())["compiled"]["end_to_end"]
print(json.dumps({"delta": delta, "exit": code, "written": out.exists(), "e2e_rel": v["max_relative_difference"]}))
'''
for delta in (0.5, 0.001, 2e-4, 5e-5, 1e-5):
    tmp = tempfile.mkdtemp(prefix="ref7b_plant_")
    r = subprocess.run(["nice", sys.executable, "-c", CHILD, str(delta), tmp], capture_output=True, text=True, cwd=ROOT)
    print(r.stdout.strip() or r.stderr[-500:], flush=True)
