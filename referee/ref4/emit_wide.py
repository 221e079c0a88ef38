"""Referee round 4, piece A: wider blocks (many classes) reach upper_plan / identity_pair; widths
stored vs reported, end to end at scales 1 and 100.  Usage: .venv/bin/python referee/ref4/emit_wide.py"""
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from emit_attack import layer, run_case  # noqa: E402

rng = np.random.default_rng(12)
with tempfile.TemporaryDirectory() as t:
    for d, m, act in ((3, 24, "erf_gelu"), (4, 20, "tanh_gelu"), (2, 30, "relu"), (5, 40, "erf_gelu")):
        r = run_case(f"wide_{d}_{m}_{act}", [layer(rng, d, m)], d, Path(t), act=act)
        print(json.dumps(r), flush=True)
