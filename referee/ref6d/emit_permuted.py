"""Referee round 6d: the file check --emit wrote, replaced by the same block with its units
permuted (another valid block of the same width, the same function) and the document's SHA-256
recomputed.  Does recheck hold?  Usage: .venv/bin/python referee/ref6d/emit_permuted.py"""
import hashlib
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "referee" / "ref4"))
from true_docs import run  # noqa: E402

t = Path(tempfile.mkdtemp(prefix="ref6d_perm_"))
blocks = {
    "relu_abs": dict(activation="relu", W_up=[[1.], [-1.]], W_down=[[1., 1.]]),
    "relu_abs_d2": dict(activation="relu", W_up=[[1., 0.], [-1., 0.], [0., 1.]], W_down=[[1., 1., 0.], [0., 0., 2.]]),
    "gelu_biased": None,
}
for name, kw in blocks.items():
    f = (ROOT / "examples" / "gelu_biased.npz") if kw is None else t / f"{name}.npz"
    if kw is not None:
        np.savez(f, kind=np.array("residual"), **{k: np.array(v) for k, v in kw.items()})
    for extra in ([], ["--min-width"]):
        P = t / f"{name}_{len(extra)}_emit.npz"
        rc, out, err = run("check", str(f), "--json", "--replacing-biases", "allowed", "--emit", str(P), *extra)
        d = json.loads(out)
        if not P.is_file():
            print(f"{name} {extra}: nothing emitted ({d['verdict']})"); continue
        z = dict(np.load(P, allow_pickle=False))
        m = z["W_up"].shape[0]
        perm = np.roll(np.arange(m), 1)
        z["W_up"] = z["W_up"][perm]
        z["W_down"] = z["W_down"][:, perm]
        for k in ("b_up", "W_gate", "b_gate"):
            if k in z and z[k].ndim >= 1 and z[k].shape[0] == m:
                z[k] = z[k][perm]
        np.savez(P, **z)
        h = hashlib.sha256(P.read_bytes()).hexdigest()
        for where in (d, d["certificate"]):
            for k in list(where):
                if k.endswith("_sha256"):
                    where[k] = h
        D = t / "doc.json"; D.write_text(json.dumps(d))
        rc2, o2, e2 = run("recheck", str(D), str(f))
        print(f"{name} {' '.join(extra) or 'plain'}: m={m} units rolled, hash recomputed: recheck rc={rc2}: {(o2 + e2).strip()[:230]}")
