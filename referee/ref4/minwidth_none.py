"""Referee round 4, piece B: `absorb check --replacing-biases none --emit P --min-width` must write a
bias-free block (the question asked is about bias-free replacing blocks), of the width the document
states, equal to the block (compared with oracle.algebra.canonical.compare_blocks).
Usage: .venv/bin/python referee/ref4/minwidth_none.py"""
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from true_docs import hand, planted, run, save  # noqa: E402

from oracle.algebra.canonical import compare_blocks  # noqa: E402
from oracle.core import io as bio  # noqa: E402

bad = n = rounded = 0
with tempfile.TemporaryDirectory() as t:
    for i, b in enumerate(hand()[:4] + planted(120)):
        if b.activation not in ("gelu", "gelu_tanh", "silu", "relu"):
            continue
        f = Path(t) / f"b{i}.npz"; P = Path(t) / f"p{i}.npz"
        save(b, f)
        for conv in ("none", "allowed"):
            P.unlink(missing_ok=True)
            rc, out, err = run("check", str(f), "--json", "--replacing-biases", conv, "--emit", str(P), "--min-width")
            if not P.exists():
                continue
            n += 1
            doc = json.loads(out)
            p = bio.read_block(P)
            probs = []
            if conv == "none" and ((p.b_up is not None and np.any(p.b_up != 0)) or (p.b_down is not None and np.any(p.b_down != 0))):
                probs.append("biases in a block written for the bias-free question")
            if p.m != doc.get("minimal_width"):
                probs.append(f"width {p.m} != minimal_width {doc.get('minimal_width')}")
            c = compare_blocks(b, p)
            if not c.equal:
                X = np.random.default_rng(i).standard_normal((200, b.d)) * 3
                fa, fb = b.eval_f64(X), p.eval_f64(X)
                rel = float(np.max(np.abs(fa - fb)) / max(1.0, np.max(np.abs(fa))))
                if "ROUNDED" in err and rel < 1e-9:
                    rounded += 1  # the file holds rounded arrays, as stderr says, and agrees in float64
                else:
                    probs.append(f"not equal to the block (canonical forms; float64 relative difference {rel:.1e})")
            if probs:
                bad += 1
                print(i, b.activation, conv, probs)
print(f"min-width blocks written: {n}, problems: {bad}, equal up to the stated rounding (float64 evaluation, relative < 1e-9): {rounded}")
