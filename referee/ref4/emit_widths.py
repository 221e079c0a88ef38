"""Referee round 4, piece A: widths and float32 bounds of ``scan --emit`` against ``absorb check``.

For drawn blocks (gelu via Erf, relu; biases or not; zero, repeated and opposite rows; d = 1..4), the
block is written both as an ONNX post-LN graph (emit_attack.build) and as a block file; then
  * the width scan --emit reports for a 'minimal' block must equal the units stored in the graph and
    the width of ``absorb check FILE --emit P --min-width --replacing-biases allowed`` (P's m);
  * the float32 bound per array must hold against the exact construction of P (float64 read back
    from P compared with the stored float32; P's entries are the exact construction when P says so);
  * the written model must match the original (onnxruntime, scales 1 and 100).
Usage: .venv/bin/python referee/ref4/emit_widths.py [N]
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
from emit_attack import ROOT, build, run_case  # noqa: E402


def draw(rng):
    d = int(rng.integers(1, 5)); m = int(rng.integers(1, 7))
    up = rng.integers(-2, 3, size=(m, d)).astype(float)
    bu = rng.integers(-2, 3, size=m).astype(float) if rng.random() < .6 else None
    for i in range(1, m):
        r = rng.random()
        if r < .15: up[i] = 0
        elif r < .3: up[i] = up[i - 1]; bu is not None and bu.__setitem__(i, bu[i - 1])
        elif r < .45: up[i] = -up[i - 1]; bu is not None and bu.__setitem__(i, -bu[i - 1])
        elif r < .55: up[i] = 2 * up[i - 1]
    down = rng.integers(-2, 3, size=(d, m)).astype(float)
    if rng.random() < .3:  # planted: x + s(x) + s(-x) pairs
        down = -down
    bd = rng.integers(-2, 3, size=d).astype(float) if bu is not None else None
    return d, {"up": up, "b_up": bu, "down": down, "b_down": bd}


def main(n):
    rng = np.random.default_rng(4)
    bad = 0
    with tempfile.TemporaryDirectory() as t:
        t = Path(t)
        for k in range(n):
            d, L = draw(rng)
            act = "relu" if k % 3 == 2 else "erf_gelu"
            r = run_case(f"w{k}", [L], d, t, act=act)
            line = {"k": k, "d": d, "m": L["up"].shape[0], "act": act, "blocks": r.get("blocks"), "exit": r["exit"]}
            if "problem" in r or "refused" in r:
                line["problem"] = r.get("problem") or r.get("refused"); bad += 1
            if r["exit"] == 0:
                m = L["up"].shape[0]
                bf = t / f"w{k}.npz"
                arrs = {"W_up": L["up"], "W_down": L["down"], "activation": np.array("gelu" if act != "relu" else "relu"),
                        "kind": np.array("residual")}
                if L["b_up"] is not None:
                    arrs.update(b_up=L["b_up"], b_down=L["b_down"])
                np.savez(bf, **arrs)
                P = t / f"w{k}_plain.npz"
                c = subprocess.run([sys.executable, "-m", "oracle.cli", "check", str(bf), "--emit", str(P), "--min-width",
                                    "--replacing-biases", "allowed", "--json"], capture_output=True, text=True, cwd=ROOT)
                if not P.exists():
                    line["check"] = f"check --min-width wrote nothing (exit {c.returncode}): {c.stderr.strip()[-150:]}"
                    bad += 1
                else:
                    p = np.load(P)
                    w = p["W_up"].shape[0]
                    doc = json.loads(c.stdout)
                    line["check_min_width"] = doc.get("minimal_width")
                    line["check_emit_width"] = w
                    con, wb, wa, mw = r["blocks"][0]
                    if con == "minimal" and (wa != max(1, doc.get("minimal_width")) or mw != doc.get("minimal_width")):
                        line["problem"] = f"scan --emit width {wa}/{mw}, check says minimal_width {doc.get('minimal_width')}"; bad += 1
                    model = onnx.load(str(t / f"w{k}_c.onnx"))
                    ini = {x.name: numpy_helper.to_array(x) for x in model.graph.initializer}
                    Wu = ini["absorb_compiled.0.W_up"].T.astype(float)
                    # the same construction? compare up to unit order is not needed when both use plain_block
                    if con == "minimal" and Wu.shape == p["W_up"].shape:
                        e = float(np.max(np.abs(Wu - p["W_up"])))
                        line["stored_vs_check_emit_W_up"] = e
            print(json.dumps(line), flush=True)
    print("problems:", bad)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 12)
