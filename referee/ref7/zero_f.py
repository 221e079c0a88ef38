"""Referee ref7: blocks with biases whose function is 0 (or bias-free) by cancellation, asked every
question; each true document must re-check (CLI subprocesses).  Run from the worktree."""
import json, subprocess, sys, tempfile
from pathlib import Path
import numpy as np
ROOT = Path(__file__).resolve().parents[2]
A = ["nice", sys.executable, "-m", "oracle.cli"]
T = Path(tempfile.mkdtemp(prefix="ref7z_"))
b, c, e = 0.5, 0.75, 0.5
BL = {
    # s(z) - s(-z) = z for relu, gelu, gelu_tanh, silu: units (1, b, 1), (-1, -b, -1); b_down = -b, M = -1: F = 0
    **{a: dict(W_up=[[1.], [-1.]], b_up=[b, -b], W_down=[[1., -1.]], b_down=[-b], M=[[-1.]])
       for a in ("relu", "gelu", "gelu_tanh", "silu")},
    # relu2(z) + relu2(-z) = z^2: F = x^2 (bias-free relu2 block of width 2)
    "relu2": dict(W_up=[[1.], [-1.]], b_up=[b, -b], W_down=[[1., 1.]], b_down=[-b * b], M=[[-2 * b]]),
    # odd-part gates: w z (x + e) with z = x + c; F = x^2
    **{a: dict(W_gate=[[1.], [-1.]], b_gate=[c, -c], W_up=[[1.], [1.]], b_up=[e, e], W_down=[[1., -1.]],
               b_down=[-c * e], M=[[-(c + e)]]) for a in ("reglu", "swiglu", "geglu", "geglu_tanh")},
    # sigmoid: sigma(z) + sigma(-z) = 1: (x + e); b_down = -e, M = -1: F = 0
    "glu": dict(W_gate=[[1.], [-1.]], b_gate=[c, -c], W_up=[[1.], [1.]], b_up=[e, e], W_down=[[1., 1.]],
                b_down=[-e], M=[[-1.]]),
}
n = refused = 0
for act, kw in BL.items():
    f = T / f"{act}.npz"
    np.savez(f, activation=np.array(act), kind=np.array("residual"), **{k: np.array(v) for k, v in kw.items()})
    for q in ("allowed", "none", "auto"):
        r = subprocess.run(A + ["check", str(f), "--replacing-biases", q, "--json"], capture_output=True, text=True, cwd=ROOT)
        d = json.loads(r.stdout)
        p = T / f"{act}_{q}.json"; p.write_text(r.stdout)
        rr = subprocess.run(A + ["recheck", str(p), str(f)], capture_output=True, text=True, cwd=ROOT)
        n += 1; refused += rr.returncode != 0
        print(f"{act} {q}: {d['verdict']} ({d['claim']}, {d['certificate'].get('kind')}); allowed="
              f"{(d.get('biases_allowed') or {}).get('verdict')} none={(d.get('biases_none') or {}).get('verdict')}; "
              f"recheck exit {rr.returncode} {rr.stdout.strip()[:120] if rr.returncode else ''}", flush=True)
print(json.dumps({"true_docs": n, "refused": refused}))
