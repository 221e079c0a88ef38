"""Referee round 4, piece A: small gelu blocks with float32 (non-integer) weights; the minimal
construction can pick a second class nearly parallel to the first (entries ~1e15), and the written
model then differs from the original (scan --emit exits 1).  Run from the worktree root:
.venv/bin/python referee/ref4/emit_conditioning.py"""
import sys, json, tempfile
import numpy as np
from pathlib import Path
sys.path.insert(0, "referee/ref4")
from emit_attack import run_case
rng = np.random.default_rng(7)
out = []
for k in range(6):
    d, m = int(rng.integers(1, 4)), int(rng.integers(1, 5))
    f = lambda *s: (rng.standard_normal(s) * 0.7).astype(np.float32).astype(np.float64)
    L = {"up": f(m, d), "b_up": f(m), "down": f(d, m), "b_down": f(d)}
    if m >= 2 and rng.random() < .5:
        L["up"][1] = -L["up"][0]; L["b_up"][1] = -L["b_up"][0]
    if m == 1:
        L["b_up"] = None; L["b_down"] = None
    r = run_case(f"big{k}", [L], d, Path(tempfile.mkdtemp()))
    print(json.dumps(r))
