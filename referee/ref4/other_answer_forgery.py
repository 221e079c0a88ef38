"""Referee round 4, piece B: a 'none' document whose not_absorbable answer is copied into
biases_allowed (certificate.other_convention dropped) holds, though the answer with biases allowed
is absorbable.  For each block: absorb check FILE --replacing-biases none --json, forge, absorb
recheck.  Run from anywhere: .venv/bin/python referee/ref4/other_answer_forgery.py"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
A = [sys.executable, "-m", "oracle.cli"]
BLOCKS = {
    # x - gelu(x + 1/2) = gelu(-x - 1/2) - 1/2: absorbable with biases; F(0) != 0, so not bias-free
    "gelu": dict(W_up=[[1.]], b_up=[.5], W_down=[[-1.]], b_down=[0.]),
    "silu": dict(W_up=[[1.]], b_up=[.5], W_down=[[-1.]], b_down=[0.]),
    "gelu_tanh": dict(W_up=[[1.]], b_up=[.5], W_down=[[-1.]], b_down=[0.]),
    "relu": dict(W_up=[[1.]], b_up=[.5], W_down=[[-1.]], b_down=[0.]),
    "relu2": dict(W_up=[[1.], [1.]], b_up=[.5, 0.], W_down=[[-1., 0.]], b_down=[0.]),
    "swiglu": dict(W_gate=[[0.]], b_gate=[1.], W_up=[[1.]], b_up=[.5], W_down=[[-1.]], b_down=[0.]),
    "reglu": dict(W_gate=[[0.]], b_gate=[1.], W_up=[[1.]], b_up=[.5], W_down=[[-1.]], b_down=[0.]),
}
with tempfile.TemporaryDirectory() as t:
    for act, kw in BLOCKS.items():
        f = Path(t) / f"{act}.npz"
        np.savez(f, activation=np.array(act), kind=np.array("residual"), **{k: np.array(v) for k, v in kw.items()})
        r = subprocess.run(A + ["check", str(f), "--replacing-biases", "none", "--json"], capture_output=True, text=True, cwd=ROOT)
        d = json.loads(r.stdout)
        oc = d["certificate"].get("other_convention")
        line = f"{act}: none -> {d['verdict']} ({d['claim']}); allowed -> {(d.get('biases_allowed') or {}).get('verdict')}"
        if oc is None or d["verdict"] != "not_absorbable":
            print(line, "| not the case (no differing answer)")
            continue
        d["certificate"].pop("other_convention")
        d["biases_allowed"] = {"verdict": d["verdict"], "claim": d["claim"], "exact": d["exact"]}
        g = Path(t) / f"{act}_forged.json"
        g.write_text(json.dumps(d))
        r2 = subprocess.run(A + ["recheck", str(g), str(f)], capture_output=True, text=True, cwd=ROOT)
        named = "biases_allowed" in r2.stdout
        print(line, f"| forged biases_allowed = not_absorbable: recheck exit {r2.returncode}, "
                    f"{'named as not verified' if named else 'NOT named'}: {r2.stdout.strip()[:90]}")
