"""Referee ref7: edge cases run by hand, as one script (CLI subprocesses).
1. glu, F(0) = sigmoid(c) - 1/2 with c = 2^-1074, 2^-100, 2^-190, 2^-210: value_at_zero must decide
   only where its 200-bit ball excludes 0 (true value 2^-(k+2)), else undecided.
2. Part (D) certificates answering 'none' (reglu with a zero gate row, relu2 affine d = 2): the
   certificate's 'convention' removed or set to 'allowed', other_convention dropped and
   biases_allowed := not_absorbable (the true answer with biases is absorbable): must be refused.
3. A relu stack document answering 'none' (depth-d1-biased (B0)) relabelled replacing_biases
   allowed / auto: must be refused.
4. Missed decisions (sound): bilinear and quick_gelu with F(0) != 0 under none.
5. Forgeries inside other_convention's value_at_zero certificate (glu asked allowed)."""
import json, subprocess, sys, tempfile
from pathlib import Path
import numpy as np
ROOT = Path(__file__).resolve().parents[2]
A = ["nice", sys.executable, "-m", "oracle.cli"]
T = Path(tempfile.mkdtemp(prefix="ref7e_"))


def cli(*a):
    return subprocess.run(A + [str(x) for x in a], capture_output=True, text=True, cwd=ROOT)


def save(name, act, **kw):
    f = T / f"{name}.npz"
    np.savez(f, activation=np.array(act), kind=np.array("residual"), **{k: np.array(v, dtype=float) for k, v in kw.items()})
    return f


for k in (1074, 100, 190, 210):
    f = save(f"dz{k}", "glu", W_gate=[[1.]], b_gate=[2.0 ** -k], W_up=[[1.]], b_up=[1.], W_down=[[1.]], b_down=[-.5], M=[[-1.]])
    d = json.loads(cli("check", f, "--replacing-biases", "none", "--json").stdout)
    print(f"1. c = 2^-{k}: {d['verdict']} ({d['certificate']['kind']}) F_at_0 = {d['certificate'].get('F_at_0')}")
blocks = {"reglu_D": ("reglu", dict(W_gate=[[0.]], b_gate=[1.], W_up=[[1.]], b_up=[0.], W_down=[[1.]], M=[[1.]]), "gated-biased"),
          "relu2_D": ("relu2", dict(W_up=[[1., 0], [-1, 0], [1, 0], [-1, 0]], b_up=[1., -1, 0, 0],
                                    W_down=[[1., 1, -1, -1], [0, 0, 0, 0]], b_down=[-1., 0], M=[[-1., 0], [0, 0]]), "relu2-biased")}
for name, (act, kw, claim) in blocks.items():
    f = save(name, act, **kw)
    d = json.loads(cli("check", f, "--replacing-biases", "none", "--json").stdout)
    c = d["certificate"]
    print(f"2. {name}: none -> {d['verdict']} part {c.get('part')} convention {c.get('convention')}; allowed -> {d['biases_allowed']['verdict']}")
    for how in ("remove", "allowed"):
        g = json.loads(json.dumps(d)); gc = g["certificate"]; gc.pop("other_convention", None)
        if how == "remove":
            gc.pop("convention", None)
        else:
            gc["convention"] = "allowed"
        g["biases_allowed"] = {"verdict": "not_absorbable", "claim": claim, "exact": True}
        p = T / f"{name}_{how}.json"; p.write_text(json.dumps(g))
        r = cli("recheck", p, f)
        print(f"   convention {how}: recheck exit {r.returncode}: {r.stdout.strip()[:100]}")
s = T / "stack.npz"
arrs = {f"{k}.{l}": np.array(v) for l in range(2) for k, v in (("W_up", [[1.0], [-1.0]]), ("W_down", [[1.0, 0.5]]), ("b_up", [0.5, -1.0]))}
np.savez(s, kind=np.array("residual_stack"), layers=np.array("2"), activation=np.array("relu"), **arrs)
d = json.loads(cli("check", s, "--replacing-biases", "none", "--json").stdout)
print(f"3. stack none -> {d['verdict']} ({d['claim']}); allowed -> {json.loads(cli('check', s, '--replacing-biases', 'allowed', '--json').stdout)['verdict']}")
for rb in ("allowed", "auto"):
    g = dict(d); g["replacing_biases"] = rb
    p = T / f"stack_{rb}.json"; p.write_text(json.dumps(g))
    r = cli("recheck", p)
    print(f"   relabelled {rb}: recheck exit {r.returncode}: {r.stdout.strip()[:100]}")
for name, act, kw in (("bilinear", "bilinear", dict(W_gate=[[1.], [1.]], b_gate=[1., 0.], W_up=[[1.], [1.]], b_up=[1., 0.], W_down=[[1., -1.]], M=[[-2.]])),
                      ("quick_gelu", "quick_gelu", dict(W_up=[[1.]], b_up=[.5], W_down=[[-1.]], M=[[1.]]))):
    f = save(name, act, **kw)
    d = json.loads(cli("check", f, "--replacing-biases", "none", "--json").stdout)
    print(f"4. {name} (F(0) != 0): none -> {d['verdict']} ({d['claim']})")
# 5. the value_at_zero certificate inside other_convention (glu, asked allowed): claim, F_at_0 (a ball
#    containing 0), coordinate and replacing_biases forged there: must be refused.
f = save("glu_oc", "glu", W_gate=[[1.], [2.]], b_gate=[.5, 0.], W_up=[[1.], [1.]], b_up=[1., 0.], W_down=[[1., -1.]], M=[[-1.]])
d = json.loads(cli("check", f, "--replacing-biases", "allowed", "--json").stdout)
print(f"5. glu allowed -> {d['verdict']}; other_convention {d['certificate']['other_convention']['certificate']['kind']}")
for name, path, val in (("claim", ("claim",), "relu2-biased"), ("F_at_0", ("certificate", "F_at_0"), "[0 +/- 1.00]"),
                        ("coordinate", ("certificate", "coordinate"), 1), ("replacing_biases", ("replacing_biases",), "allowed")):
    g = json.loads(json.dumps(d)); t = g["certificate"]["other_convention"]
    for k in path[:-1]:
        t = t[k]
    t[path[-1]] = val
    if name == "claim":
        g["biases_none"]["claim"] = val
    p = T / f"glu_oc_{name}.json"; p.write_text(json.dumps(g))
    r = cli("recheck", p, f)
    print(f"   other_convention {name} forged: recheck exit {r.returncode}: {r.stdout.strip()[:100]}")
