"""Referee round 4, piece B: --replacing-biases auto and biases on units whose outputs cancel.
The reglu block of tests/test_auto_convention.py (x + reglu unit with a zero output column: auto
decides the bias-free question, not_absorbable) gets two more units, identical rows and biases
2^-1074, output columns +1 and -1: B is the same function, and no output column is zero.
Does auto still pick the same question and verdict?  Also: the tiny bias on b_down (a constant
output term, which no unit carries).  Usage: .venv/bin/python referee/ref4/auto_cancel.py"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
T = 2.0 ** -1074
cases = {
    "base": dict(W_up=[[1.]], W_gate=[[1.]], W_down=[[0.]], M=[[1.]]),
    "cancelling_pair_tiny_bias": dict(W_up=[[1.], [1.], [1.]], W_gate=[[1.], [1.], [1.]], W_down=[[0., 1., -1.]],
                                      b_up=[0., T, T], M=[[1.]]),
    "cancelling_pair_no_bias": dict(W_up=[[1.], [1.], [1.]], W_gate=[[1.], [1.], [1.]], W_down=[[0., 1., -1.]], M=[[1.]]),
    "tiny_b_down": dict(W_up=[[1.]], W_gate=[[1.]], W_down=[[0.]], b_up=[0.], b_down=[T], M=[[1.]]),
}
with tempfile.TemporaryDirectory() as t:
    for name, kw in cases.items():
        f = Path(t) / f"{name}.npz"
        np.savez(f, activation=np.array("reglu"), kind=np.array("residual"), **{k: np.array(v) for k, v in kw.items()})
        r = subprocess.run([sys.executable, "-m", "oracle.cli", "check", str(f), "--json"], capture_output=True, text=True, cwd=ROOT)
        d = json.loads(r.stdout)
        ac = d["certificate"].get("auto_convention")
        print(f"{name}: auto -> question {d.get('replacing_biases')!r}, verdict {d['verdict']} ({d['claim']}); "
              f"auto_convention {json.dumps(ac)[:160] if ac else None}")
