"""Referee round 4, piece A: the float32 bound per array that scan --emit states, against the exact
construction (gelu-complete / relu-complete statement recomputed here from the float32 weights;
the b_down terms sum_c v_c gelu(c) evaluated with mpmath at 60 digits).
Usage: .venv/bin/python referee/ref4/emit_bounds.py [N]"""
from __future__ import annotations

import sys
import tempfile
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
from emit_attack import build  # noqa: E402
from oracle.core.blocks import Block  # noqa: E402
from oracle.decide import compile as comp  # noqa: E402
from oracle.decide.min_width import statement  # noqa: E402

mpmath.mp.dps = 60


def gelu(x):
    return x * (1 + mpmath.erf(x / mpmath.sqrt(2))) / 2


def main(n):
    rng = np.random.default_rng(7)
    worst = 0.0
    bad = 0
    with tempfile.TemporaryDirectory() as t:
        for k in range(n):
            d, m = int(rng.integers(1, 4)), int(rng.integers(1, 5))
            f = lambda *s: (rng.standard_normal(s) * 0.7).astype(np.float32).astype(np.float64)
            L = {"up": f(m, d), "b_up": f(m), "down": f(d, m), "b_down": f(d)}
            if m >= 2 and rng.random() < .5:
                L["up"][1] = -L["up"][0]; L["b_up"][1] = -L["b_up"][0]
            if m == 1:
                L["b_up"] = None; L["b_down"] = None  # m = 1 with a bias is not recognised by the scan
            src = build(Path(t) / f"b{k}.onnx", [L], d)
            out = Path(t) / f"b{k}_c.onnx"
            doc = comp.compile_checkpoint(str(src), out)
            (e,) = doc["blocks"]
            block = Block("gelu", W_up=L["up"], W_down=L["down"], b_up=L["b_up"], b_down=L["b_down"])
            st = statement(block, "allowed")
            con = st.get("construction")
            if e["construction"] != "minimal" or con is None:
                print(k, e["construction"]); continue
            ini = {x.name: numpy_helper.to_array(x) for x in onnx.load(str(out)).graph.initializer}
            w = e["width_after"]; kk = int(con["width"])
            ex = {"W_up": [[Fraction(v) for v in r] for r in con["W_up"]] + [[Fraction(0)] * d] * (w - kk),
                  "b_up": [Fraction(v) for v in con["b_up"]] + [Fraction(0)] * (w - kk),
                  "W_down": [[Fraction(v) for v in r] + [Fraction(0)] * (w - kk) for r in con["W_down"]] if kk else [[Fraction(0)] * w] * d}
            bd = [mpmath.mpf(Fraction(v).numerator) / Fraction(v).denominator for v in con["b_down"]]
            for key, vec in (con.get("b_down_s_terms") or {}).items():
                c = Fraction(key); cm = mpmath.mpf(c.numerator) / c.denominator
                for a in range(d):
                    q = Fraction(vec[a]); bd[a] += mpmath.mpf(q.numerator) / q.denominator * gelu(cm)
            stored = {"W_up": ini.get("absorb_compiled.0.W_up"), "W_down": ini.get("absorb_compiled.0.W_down"),
                      "b_up": ini.get("absorb_compiled.0.b_up"), "b_down": ini.get("absorb_compiled.0.b_down")}
            line = []
            for role in ("W_up", "b_up", "W_down", "b_down"):
                S = stored[role]
                if S is None:
                    # no initializer: the bias must be exactly zero
                    vals = ex.get(role) if role != "b_down" else bd
                    flat = [v for r in vals for v in (r if isinstance(r, list) else [r])]
                    if any(v != 0 for v in flat):
                        line.append(f"{role}: no initializer but nonzero exact entries"); bad += 1
                    continue
                S = S.T if role in ("W_up", "W_down") else S
                if role == "b_down":
                    err = max(abs(mpmath.mpf(float(S[a])) - bd[a]) for a in range(d))
                else:
                    E = ex[role]
                    flat = [v for r in E for v in (r if isinstance(r, list) else [r])]
                    err = max(abs(Fraction(float(s)) - v) for s, v in zip(S.reshape(-1), flat))
                    err = mpmath.mpf(err.numerator) / err.denominator
                bound = e["float32"]["max_entry_error"].get(role, 0.0)
                worst = max(worst, float(err))
                if float(err) > 1e-3: print("   ", role, float(err), bound, float(np.max(np.abs(S))))
                if err > bound:
                    line.append(f"{role}: |stored - exact| = {float(err):.3g} > stated {bound:.3g}"); bad += 1
            print(k, d, m, w, "ok" if not line else line, flush=True)
    print("violations:", bad, "largest error seen:", worst)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
