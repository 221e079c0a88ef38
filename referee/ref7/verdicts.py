"""Referee ref7, piece 2: value_at_zero verdicts through the CLI (subprocesses).

Group T ("bias-free exists"): blocks with biases whose function x -> Mx + B(x) equals a bias-free
block (F(0) = 0 exactly, often by cancellation of transcendental gate values such as
silu(c) - silu(-c) - c or sigmoid(c) + sigmoid(-c) - 1): `check --replacing-biases none` must not
say not_absorbable.
Group N (F(0) != 0): the value_at_zero certificate's coordinate and value are compared with an
independent mpmath evaluation (80 digits); then forged (F_at_0, coordinate, block file, kind, a ball
containing 0, claim, moved to the other question) and rechecked: every forgery must be refused.
Run: nice .venv/bin/python referee/ref7/verdicts.py  (prints one line per case, then counts)."""
import json
import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
A = ["nice", sys.executable, "-m", "oracle.cli"]
mpmath.mp.dps = 80
T = Path(tempfile.mkdtemp(prefix="ref7v_"))
TINY = 2.0 ** -1074
GATES = {"reglu": lambda z: max(z, 0), "swiglu": lambda z: z / (1 + mpmath.exp(-z)),
         "geglu": lambda z: z / 2 * (1 + mpmath.erf(z / mpmath.sqrt(2))),
         "geglu_tanh": lambda z: z / 2 * (1 + mpmath.tanh(mpmath.sqrt(2 / mpmath.pi) * (z + mpmath.mpf("0.044715") * z ** 3))),
         "glu": lambda z: 1 / (1 + mpmath.exp(-z))}
UNG = {"relu": lambda z: max(z, 0), "relu2": lambda z: max(z, 0) ** 2}


def save(name, act, **kw):
    f = T / f"{name}.npz"
    np.savez(f, activation=np.array(act), kind=np.array("residual"),
             **{k: np.array(v, dtype=float) for k, v in kw.items()})
    return f


def cli(*args):
    return subprocess.run(A + [str(a) for a in args], capture_output=True, text=True, cwd=ROOT, timeout=900)


def F0(act, kw):
    """F(0) by mpmath from the exact float values."""
    W = np.array(kw["W_down"], dtype=float)
    d, m = W.shape
    bu = kw.get("b_up", [0.0] * m)
    bd = kw.get("b_down", [0.0] * d)
    if act in GATES:
        bg = kw.get("b_gate", [0.0] * m)
        h = [GATES[act](mpmath.mpf(float(bg[i]))) * mpmath.mpf(float(bu[i])) for i in range(m)]
    else:
        h = [UNG[act](mpmath.mpf(float(bu[i]))) for i in range(m)]
    return [mpmath.fsum([mpmath.mpf(float(W[a][i])) * h[i] for i in range(m)]) + mpmath.mpf(float(bd[a])) for a in range(d)]


def true_bias_free(rng):
    """Blocks with biases equal to a bias-free block (F(0) = 0 exactly in the reals)."""
    out = []
    for d in (1, 2, 3):
        for b in (0.5, 3.0, 2.0 ** -537, 2.0 ** -20, 1e150):
            # relu2: w relu2(z) + w relu2(-z) = w z^2, z = u.x + b; b_down = -w b^2, M = -2 b w u^T
            u = rng.integers(-3, 4, d).astype(float); u[0] = u[0] or 1.0
            w = rng.integers(-3, 4, d).astype(float); w[0] = w[0] or 1.0
            bd = -w * b * b
            if not np.all(np.isfinite(bd)) or np.any((bd != 0) & (np.abs(bd) < 1e-300)):
                continue
            if any(Fraction(float(x)) != Fraction(float(wi)) * Fraction(b) ** 2 * -1 for x, wi in zip(bd, w)):
                continue  # b^2 w not exact in float64
            M = -2 * b * np.outer(w, u)
            out.append((f"relu2_d{d}_b{b:g}", "relu2", dict(W_up=[u, -u], b_up=[b, -b], W_down=np.stack([w, w], 1),
                                                              b_down=bd, M=M)))
            # relu: w relu(z) - w relu(-z) = w z; b_down = -w b, M = -w u^T  (F = 0) plus a bias-free unit
            v = rng.integers(-2, 3, d).astype(float); v[-1] = v[-1] or 2.0
            out.append((f"relu_d{d}_b{b:g}", "relu", dict(W_up=[u, -u, v], b_up=[b, -b, 0.0],
                                                           W_down=np.stack([w, -w, w], 1), b_down=-w * b,
                                                           M=-np.outer(w, u))))
    for act in GATES:
        for d in (1, 2, 3):
            for c in (1.0, -0.75, 30.0, -40.0, TINY, 1e-300, 5e3):
                a = rng.integers(-2, 3, d).astype(float); a[0] = a[0] or 1.0
                u = rng.integers(-2, 3, d).astype(float); u[-1] = u[-1] or 1.0
                w = rng.integers(-2, 3, d).astype(float); w[0] = w[0] or 1.0
                e = 0.5
                if act == "glu":
                    # sigmoid(z) + sigmoid(-z) = 1: w (u.x + e) affine; b_down = -w e, M = -w u^T: F = 0
                    kw = dict(W_gate=[a, -a], b_gate=[c, -c], W_up=[u, u], b_up=[e, e], W_down=np.stack([w, w], 1),
                              b_down=-w * e, M=-np.outer(w, u))
                else:
                    # g(z) - g(-z) = z: w z (u.x + e) = w (a.x)(u.x) + w (c u + e a).x + w c e
                    if act == "reglu" and c != 1.0:
                        pass
                    ce = Fraction(c) * Fraction(e)
                    if float(ce) != ce:
                        continue
                    Mm = -(np.outer(w, c * u + e * a))
                    if not np.all(np.isfinite(Mm)):
                        continue
                    kw = dict(W_gate=[a, -a], b_gate=[c, -c], W_up=[u, u], b_up=[e, e], W_down=np.stack([w, -w], 1),
                              b_down=-w * c * e, M=Mm)
                    # exactness of M in float64 (else F is not exactly the bias-free function)
                    ok = all(Fraction(float(Mm[i, j])) == -Fraction(float(w[i])) * (Fraction(c) * Fraction(float(u[j]))
                             + Fraction(e) * Fraction(float(a[j]))) for i in range(d) for j in range(d))
                    if not ok:
                        continue
                out.append((f"{act}_d{d}_c{c:g}", act, kw))
    return out


def nonzero_blocks(rng):
    """F(0) != 0 (sometimes only just), for every value_at_zero activation."""
    out = []
    for act in ["relu", "relu2", *GATES]:
        for d in (1, 2, 3):
            for bias in (0.5, TINY, 1.0 / 3):
                m = d + 1
                U = rng.integers(-2, 3, (m, d)).astype(float)
                W = rng.integers(-2, 3, (d, m)).astype(float); W[:, 0] = W[:, 0] + (W[:, 0] == 0)
                kw = dict(W_up=U, W_down=W, b_up=[bias] * m, M=np.eye(d))
                if act in GATES:
                    kw["W_gate"] = rng.integers(-2, 3, (m, d)).astype(float)
                    kw["b_gate"] = [bias if act != "glu" else 0.0] + [0.0] * (m - 1)
                out.append((f"N_{act}_d{d}_{bias:g}", act, kw))
        # glu: F(0) = sigmoid(c) - 1/2 with c = 2^-1074 (nonzero, far below any ball's radius)
    out.append(("N_glu_doubt", "glu", dict(W_gate=[[1.0]], b_gate=[TINY], W_up=[[1.0]], b_up=[1.0], W_down=[[1.0]],
                                           b_down=[-0.5], M=[[1.0]])))
    out.append(("N_swiglu_doubt", "swiglu", dict(W_gate=[[1.0]], b_gate=[2.0 ** -600], W_up=[[1.0]], b_up=[1.0],
                                                 W_down=[[1.0]], M=[[1.0]])))
    return out


def main():
    rng = np.random.default_rng(7)
    bad, counts = [], {"T": 0, "T_not_absorbable": 0, "N": 0, "N_value_at_zero": 0, "forged": 0, "forged_held": 0,
                       "true_recheck": 0, "true_refused": 0}
    for name, act, kw in true_bias_free(rng):
        f = save(name, act, **kw)
        z = F0(act, kw)
        r = cli("check", f, "--replacing-biases", "none", "--json")
        counts["T"] += 1
        if r.returncode != 0:
            print("T", name, "check exit", r.returncode, r.stderr.strip()[-200:]); bad.append(name); continue
        doc = json.loads(r.stdout)
        kind = doc["certificate"].get("kind")
        line = f"T {name}: F(0)~{[mpmath.nstr(v, 5) for v in z]} none -> {doc['verdict']} ({doc['claim']}, {kind})"
        if doc["verdict"] == "not_absorbable" and max(abs(v) for v in z) <= mpmath.mpf(10) ** -60:
            counts["T_not_absorbable"] += 1; bad.append(line); line += "  <-- WRONG"
        print(line, flush=True)
    for name, act, kw in nonzero_blocks(rng):
        f = save(name, act, **kw)
        z = F0(act, kw)
        r = cli("check", f, "--replacing-biases", "none", "--json")
        counts["N"] += 1
        doc = json.loads(r.stdout)
        c = doc["certificate"]
        line = f"N {name}: F(0)~{[mpmath.nstr(v, 6) for v in z]} none -> {doc['verdict']} ({doc['claim']}, {c.get('kind')})"
        if c.get("kind") != "value_at_zero":
            print(line, flush=True); continue
        counts["N_value_at_zero"] += 1
        a = c["coordinate"]
        first = next(i for i, v in enumerate(z) if v != 0)
        s = c["F_at_0"]
        if s.startswith("["):
            mid, rad = s[1:-1].split("+/-")
            okv = abs(mpmath.mpf(mid) - z[a]) <= mpmath.mpf(rad) and abs(mpmath.mpf(mid)) > mpmath.mpf(rad)
        else:
            okv = abs(mpmath.mpf(Fraction(s).numerator) / Fraction(s).denominator - z[a]) <= abs(z[a]) * mpmath.mpf(10) ** -70
        if not okv or a != first:
            line += f"  <-- VALUE/COORD MISMATCH cert {a}:{s}"; bad.append(line)
        print(line, flush=True)
        p = T / f"{name}.json"
        p.write_text(r.stdout)
        if not (len(z) == 1 or "_0.5" in name or "doubt" in name):
            continue
        ok = cli("recheck", p, f)
        counts["true_recheck"] += 1
        if ok.returncode != 0:
            counts["true_refused"] += 1; bad.append(f"true doc refused {name}: {ok.stdout[:200]}")
        forgeries = {}
        if s.startswith("["):
            forgeries["ball_with_0"] = ("certificate", "F_at_0", "[0 +/- 1.00]")
            forgeries["ball_wider"] = ("certificate", "F_at_0", s.replace("e-", "e-1", 1) if "e-" in s else s + " ")
            forgeries["ball_as_rational"] = ("certificate", "F_at_0", mid.strip()[:30])
        else:
            forgeries["value"] = ("certificate", "F_at_0", str(Fraction(s) * 2))
            forgeries["value_ball"] = ("certificate", "F_at_0", f"[{float(Fraction(s))} +/- 1e-300]")
        forgeries["coord"] = ("certificate", "coordinate", (a + 1) % len(z))
        forgeries["kind_conv_not_decided"] = ("certificate", "kind", "convention_not_decided")
        forgeries["claim_relu"] = ("claim", None, "relu-complete" if act != "relu" else "gated-biased")
        forgeries["verdict"] = ("verdict", None, "absorbable")
        for fname, (k1, k2, val) in forgeries.items():
            g = json.loads(r.stdout)
            if k2 is None:
                g[k1] = val
            else:
                g[k1][k2] = val
            if fname == "coord" and len(z) == 1:
                g["certificate"]["coordinate"] = 1
            q = T / f"{name}_{fname}.json"; q.write_text(json.dumps(g))
            rr = cli("recheck", q, f)
            counts["forged"] += 1
            if rr.returncode == 0:
                counts["forged_held"] += 1; bad.append(f"FORGERY HELD {name} {fname}: {rr.stdout[:160]}")
        # the same true document against another block file: b_down chosen so that F(0) = 0 in coordinate a
        kw2 = dict(kw)
        W = np.array(kw["W_down"], dtype=float)
        d = W.shape[0]
        bd = np.array(kw.get("b_down", [0.0] * d), dtype=float)
        if not s.startswith("["):
            bd2 = bd.copy(); bd2[a] = float(Fraction(bd[a]) - Fraction(s))
            if Fraction(bd2[a]) == Fraction(bd[a]) - Fraction(s):
                kw2["b_down"] = bd2
                f2 = save(name + "_other", act, **kw2)
                rr = cli("recheck", p, f2)
                counts["forged"] += 1
                if rr.returncode == 0:
                    counts["forged_held"] += 1; bad.append(f"FORGERY HELD {name} other block: {rr.stdout[:160]}")
        # the none certificate moved to the allowed question (value_at_zero answers none only)
        g = json.loads(r.stdout)
        oc = g["certificate"].pop("other_convention", None)
        if oc is not None:
            g["certificate"]["replacing_biases"] = "allowed"
            g["biases_allowed"], g["biases_none"] = g.get("biases_none"), g.get("biases_allowed")
            q = T / f"{name}_moved.json"; q.write_text(json.dumps(g))
            rr = cli("recheck", q, f)
            counts["forged"] += 1
            if rr.returncode == 0:
                counts["forged_held"] += 1; bad.append(f"FORGERY HELD {name} moved: {rr.stdout[:160]}")
    print(json.dumps(counts))
    print("PROBLEMS:", len(bad))
    for b in bad:
        print("  ", b)


if __name__ == "__main__":
    main()
