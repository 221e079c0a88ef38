"""Referee round 6d: targeted attacks on the trust5 changes (auto merge rule, value_at_zero,
emitted-file SHA-256 binding, field whitelist, other_convention).  Each case builds a block, runs
`absorb check` in-process (referee/ref4/true_docs.py's run/save), forges the document or the file,
and runs `absorb recheck`.  Prints one line per case: what was expected and what happened.
Usage: .venv/bin/python referee/ref6d/attack.py"""
from __future__ import annotations

import copy
import hashlib
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "referee" / "ref4"))
from true_docs import run, save  # noqa: E402

from oracle.core.blocks import Block  # noqa: E402
from oracle.core import activations  # noqa: E402

T = Path(tempfile.mkdtemp(prefix="ref6d_"))
A = np.array
FAIL = []


def check(b: Block, name: str, *extra: str) -> dict:
    f = T / f"{name}.npz"
    save(b, f)
    rc, out, err = run("check", str(f), "--json", *extra)
    if rc != 0 or not out.strip():
        raise SystemExit(f"check failed for {name}: {rc} {err[-300:]}")
    return json.loads(out)


def recheck(doc: dict, name: str, blockname: str) -> tuple[int, str]:
    d = T / f"{name}.json"
    d.write_text(json.dumps(doc))
    rc, out, err = run("recheck", str(d), str(T / f"{blockname}.npz"))
    return rc, (out + err).strip().replace("\n", " | ")


def expect(label: str, cond: bool, detail: str) -> None:
    print(("ok    " if cond else "FAIL  ") + label + ": " + detail[:260], flush=True)
    if not cond:
        FAIL.append(label)


def F(b: Block, x: np.ndarray) -> np.ndarray:
    """M x + B(x) in float (the catalog's f64), for spot checks of 'same function'."""
    act = activations.CATALOG[b.activation]
    bu = b.b_up if b.b_up is not None else 0
    bd = b.b_down if b.b_down is not None else 0
    z = b.W_up @ x + bu
    if b.gated:
        bg = b.b_gate if b.b_gate is not None else 0
        h = act.f64(b.W_gate @ x + bg) * z
    else:
        h = act.f64(z)
    M = b.M if b.M is not None else np.eye(b.d)
    return M @ x + b.W_down @ h + bd


# ---------------------------------------------------------------- 1. the auto merge rule
cases = {
    # relu2: 4 relu(x+1)^2 - relu(2x+2)^2 = 0 (t = lam^2 = 4): dead group -> bias-free question
    "relu2_t2_cancel": (Block("relu2", W_up=A([[1.], [2.]]), b_up=A([1., 2.]), W_down=A([[4., -1.]])), "none"),
    # relu2 with t = lam (wrong power): 2 relu(x+1)^2 - relu(2x+2)^2 = -2 relu(x+1)^2 != 0: live
    "relu2_t1_not_cancel": (Block("relu2", W_up=A([[1.], [2.]]), b_up=A([1., 2.]), W_down=A([[2., -1.]])), "allowed"),
    # relu: 2 relu(x+1) - relu(2x+2) = 0: dead
    "relu_t_cancel": (Block("relu", W_up=A([[1.], [2.]]), b_up=A([1., 2.]), W_down=A([[2., -1.]])), "none"),
    # relu, negative factor: relu(x+1) - relu(-x-1) = x + 1: live, must not be merged
    "relu_neg_scale": (Block("relu", W_up=A([[1.], [-1.]]), b_up=A([1., -1.]), W_down=A([[1., -1.]])), "allowed"),
    "relu_neg_scale_plus": (Block("relu", W_up=A([[1.], [-1.]]), b_up=A([1., -1.]), W_down=A([[1., 1.]])), "allowed"),
    # gelu: 2 gelu(x+1) - gelu(2x+2) != 0: gelu is not homogeneous, must not be merged by rescaling
    "gelu_rescale": (Block("gelu", W_up=A([[1.], [2.]]), b_up=A([1., 2.]), W_down=A([[2., -1.]])), "allowed"),
    "gelu_tanh_rescale": (Block("gelu_tanh", W_up=A([[1.], [2.]]), b_up=A([1., 2.]), W_down=A([[2., -1.]])), "allowed"),
    "silu_rescale": (Block("silu", W_up=A([[1.], [2.]]), b_up=A([1., 2.]), W_down=A([[2., -1.]])), "allowed"),
    # gelu: equal units, columns cancel: dead
    "gelu_equal_cancel": (Block("gelu", W_up=A([[1.], [1.]]), b_up=A([1., 1.]), W_down=A([[1., -1.]])), "none"),
    # reglu: gate rows scaled by 2 (relu gate is homogeneous) -- must not be merged as if ungated
    "reglu_gate_scale": (Block("reglu", W_gate=A([[1.], [2.]]), b_gate=A([1., 2.]), W_up=A([[1.], [1.]]),
                                W_down=A([[2., -1.]])), None),
    # reglu: value rows scaled by 2 with equal gate: 2*u - 2u = 0 in fact, but not merged (only incompleteness)
    "reglu_equal_cancel": (Block("reglu", W_gate=A([[1.], [1.]]), b_gate=A([1., 1.]), W_up=A([[1.], [1.]]),
                                  b_up=A([1., 1.]), W_down=A([[1., -1.]])), "none"),
    # three relu units, two cancel partly: columns 1, -1, 1 (sum 1): live
    "relu_three_partial": (Block("relu", W_up=A([[1.], [1.], [1.]]), b_up=A([1., 1., 1.]), W_down=A([[1., -1., 1.]])), "allowed"),
    # relu with a zero row and positive biases (constants): relu(1)*2 - relu(2) = 0: dead
    "relu_const_cancel": (Block("relu", W_up=A([[0.], [0.]]), b_up=A([1., 2.]), W_down=A([[2., -1.]])), "none"),
    # relu, constants with opposite-sign biases: relu(1) - relu(-1)*... not merged, live (F(0) = 1)
    "relu_const_opp": (Block("relu", W_up=A([[0.], [0.]]), b_up=A([1., -1.]), W_down=A([[1., -1.]])), "allowed"),
    # relu2, d=2, tiny factors (subnormal scale): rows (1,1,b) and (2^-1000)(1,1,b)
    "relu2_tiny_scale": (Block("relu2", W_up=A([[1., 1.], [2.**-500, 2.**-500]]), b_up=A([1., 2.**-500]),
                               W_down=A([[1., -2.**1000], [0., 0.]])), "none"),
}
for name, (b, want) in cases.items():
    d = check(b, name, "--replacing-biases", "auto")
    got = d.get("replacing_biases")
    ac = d["certificate"].get("auto_convention", {})
    rc, msg = recheck(d, name, name)
    detail = f"question {got} verdict {d['verdict']} ({d['claim']}) cancelling {ac.get('cancelling_groups')} | recheck rc={rc}"
    if want is not None:
        expect(f"auto/{name}", got == want and rc == 0, detail + f" (want question {want})")
    else:
        expect(f"auto/{name}", rc == 0, detail)
    # the same function: the twin's verdict must agree with a bias-free twin checked directly
    if "dead_unit_biases_zeroed" in d["certificate"]:
        units = d["certificate"]["dead_unit_biases_zeroed"]
        tw = copy.deepcopy(b)
        bu = b.b_up.copy(); bu[units] = 0
        tw = Block(b.activation, W_up=b.W_up, W_down=b.W_down, W_gate=b.W_gate, b_up=bu,
                   b_gate=None if b.b_gate is None else np.where(np.isin(np.arange(b.m), units), 0, b.b_gate),
                   b_down=b.b_down)
        if True:
            xs = np.linspace(-3, 3, 13)
            diff = max(float(np.max(np.abs(F(b, A([x] * b.d)) - F(tw, A([x] * b.d))))) for x in xs)
            expect(f"auto/{name}/twin_same_function", diff < 1e-9, f"max |F - F_twin| on a line = {diff}")

# ---------------------------------------------------------------- 2. value_at_zero
vz = Block("relu", W_up=A([[1.]]), b_up=A([.5]), W_down=A([[-1.]]))
d = check(vz, "vz", "--replacing-biases", "none")
expect("vaz/true", d["certificate"]["kind"] == "value_at_zero" and recheck(d, "vz_t", "vz")[0] == 0,
       f"kind {d['certificate']['kind']} verdict {d['verdict']}")
# same document against a relu block with F(0) = 0 (b_up = -1/2)
save(Block("relu", W_up=A([[1.]]), b_up=A([-.5]), W_down=A([[-1.]])), T / "vz0.npz")
rc, msg = recheck(d, "vz_on_f0zero", "vz0")
expect("vaz/on_F0_zero", rc != 0, f"rc={rc} {msg}")
# against gelu with F(0) != 0 (block field mismatch expected; also forge block info)
for act in ("gelu", "silu", "relu2"):
    gb = Block(act, W_up=A([[1.]]), b_up=A([.5]), W_down=A([[-1.]]))
    save(gb, T / f"vz_{act}.npz")
    g = copy.deepcopy(d)
    ref = check(gb, f"vz_{act}_ref", "--replacing-biases", "none")
    g["certificate"]["block"] = ref["certificate"]["block"]
    g["certificate"]["F_at_0"] = "-1/2" if act != "gelu" else g["certificate"]["F_at_0"]
    rc, msg = recheck(g, f"vz_on_{act}", f"vz_{act}")
    expect(f"vaz/on_{act}", rc != 0, f"rc={rc} {msg}")
# the value_at_zero certificate as the answer to the allowed question
g = copy.deepcopy(d)
g["replacing_biases"] = "allowed"; g["certificate"]["replacing_biases"] = "allowed"
g["biases_allowed"], g["biases_none"] = g.get("biases_none"), g.get("biases_allowed")
g["certificate"].pop("other_convention", None)
rc, msg = recheck(g, "vz_as_allowed", "vz")
expect("vaz/as_allowed", rc != 0, f"rc={rc} {msg}")
# wrong coordinate / value written differently
for k, v in (("coordinate", 1), ("F_at_0", "-0.5"), ("F_at_0", "-2/4"), ("F_at_0", "-1/3")):
    g = copy.deepcopy(d); g["certificate"][k] = v
    rc, msg = recheck(g, f"vz_{k}", "vz")
    expect(f"vaz/forge_{k}={v}", rc != 0, f"rc={rc} {msg}")
# d=2 block, F(0) nonzero only in coordinate 1: coordinate 0 forged
vz2 = Block("relu", W_up=A([[1., 0.], [0., 1.]]), b_up=A([0., .5]), W_down=A([[1., 0.], [0., 1.]]))
d2 = check(vz2, "vz2", "--replacing-biases", "none")
expect("vaz/d2_true", d2["verdict"] == "not_absorbable" and recheck(d2, "vz2t", "vz2")[0] == 0,
       f"kind {d2['certificate'].get('kind')} coord {d2['certificate'].get('coordinate')}")
# b_down only (no b_up): F(0) = b_down
vz3 = Block("relu", W_up=A([[1.]]), W_down=A([[1.]]), b_down=A([2.**-1074]))
d3 = check(vz3, "vz3", "--replacing-biases", "none")
expect("vaz/b_down_subnormal", d3["verdict"] == "not_absorbable" and recheck(d3, "vz3t", "vz3")[0] == 0,
       f"verdict {d3['verdict']} kind {d3['certificate'].get('kind')} F0 {d3['certificate'].get('F_at_0')}")
# biases cancel in F(0): relu(1) - relu(1) + 0 = 0 but different rows -> F(0)=0, must not be value_at_zero
vz4 = Block("relu", W_up=A([[1.], [2.]]), b_up=A([1., 1.]), W_down=A([[1., -1.]]))
d4 = check(vz4, "vz4", "--replacing-biases", "none")
expect("vaz/F0_cancels", d4["certificate"].get("kind") != "value_at_zero",
       f"verdict {d4['verdict']} kind {d4['certificate'].get('kind')}")

# ---------------------------------------------------------------- 3. the emitted file
def emitted(b: Block, name: str, *extra: str) -> tuple[dict, Path]:
    P = T / f"{name}_emit.npz"
    d = check(b, name, "--replacing-biases", "allowed", "--emit", str(P), *extra)
    return d, P


e1 = Block("relu", W_up=A([[1.], [-1.]]), W_down=A([[1., 1.]]))  # x + |x|
e2 = Block("relu", W_up=A([[1.], [-1.]]), W_down=A([[1., 2.]]))  # another block of width 2
for extra in ((), ("--min-width",)):
    tag = "mw" if extra else "plain"
    d1, P1 = emitted(e1, f"e1{tag}", *extra)
    d2_, P2 = emitted(e2, f"e2{tag}", *extra)
    key = "min_width_block_sha256" if extra else "plain_block_sha256"
    keys = [k for k in d1 if k.endswith("sha256")] + [k for k in d1["certificate"] if k.endswith("sha256")]
    rc, msg = recheck(d1, f"e1{tag}_t", f"e1{tag}")
    expect(f"emit/{tag}/true", rc == 0, f"sha keys {keys} rc={rc} {msg}")
    # swap the file for block e2's emitted file, hash recomputed in the document
    orig = P1.read_bytes()
    P1.write_bytes(P2.read_bytes())
    g = copy.deepcopy(d1)
    h = hashlib.sha256(P1.read_bytes()).hexdigest()
    for where in (g, g["certificate"]):
        for k in list(where):
            if k.endswith("sha256"):
                where[k] = h
    rc, msg = recheck(g, f"e1{tag}_swap", f"e1{tag}")
    expect(f"emit/{tag}/swapped_file_rehashed", rc != 0, f"rc={rc} {msg}")
    rc, msg = recheck(d1, f"e1{tag}_swap2", f"e1{tag}")
    expect(f"emit/{tag}/swapped_file_old_hash", rc != 0, f"rc={rc} {msg}")
    # the same block saved again (other bytes, same contents): hash differs
    P1.write_bytes(orig)
    z = dict(np.load(P1, allow_pickle=False)); np.savez_compressed(P1, **z)
    rc, msg = recheck(d1, f"e1{tag}_resaved", f"e1{tag}")
    print(f"info  emit/{tag}/resaved_same_contents: rc={rc} {msg[:200]}")
    P1.write_bytes(orig)
    # file absent: named
    P1.unlink()
    rc, msg = recheck(d1, f"e1{tag}_absent", f"e1{tag}")
    expect(f"emit/{tag}/absent_named", rc == 0 and ("not" in msg), f"rc={rc} {msg}")
    P1.write_bytes(orig)
    # hash field dropped
    g = copy.deepcopy(d1)
    for where in (g, g["certificate"]):
        for k in list(where):
            if k.endswith("sha256"):
                del where[k]
    rc, msg = recheck(g, f"e1{tag}_nohash", f"e1{tag}")
    print(f"info  emit/{tag}/hash_dropped: rc={rc} {msg[:240]}")
    # the file path changed to another valid file holding the same block (copy)
    Q = T / f"e1{tag}_copy.npz"; Q.write_bytes(orig)
    g = json.loads(json.dumps(d1).replace(str(P1), str(Q)))
    rc, msg = recheck(g, f"e1{tag}_copy", f"e1{tag}")
    print(f"info  emit/{tag}/path_to_identical_copy: rc={rc} {msg[:200]}")

# ---------------------------------------------------------------- 4. auto_convention / cancelling_groups forged
b = cases["relu2_t2_cancel"][0]
d = check(b, "relu2_t2_cancel", "--replacing-biases", "auto")
for label, mut in (
    ("cancelling_dropped", lambda c: c["auto_convention"].pop("cancelling_groups", None)),
    ("cancelling_extra", lambda c: c["auto_convention"].setdefault("cancelling_groups", []).append([0])),
    ("auto_convention_dropped", lambda c: c.pop("auto_convention")),
):
    g = copy.deepcopy(d)
    mut(g["certificate"])
    rc, msg = recheck(g, f"ac_{label}", "relu2_t2_cancel")
    expect(f"auto_forge/{label}", rc != 0 or "not verified" in msg, f"rc={rc} {msg}")
for nm in ("relu_t_cancel", "reglu_equal_cancel", "gelu_equal_cancel", "relu_const_cancel", "relu2_tiny_scale"):
    dd = check(cases[nm][0], nm, "--replacing-biases", "auto")
    if "dead_unit_biases_zeroed" not in dd["certificate"]:
        print(f"info  {nm}: no dead_unit_biases_zeroed (kind {dd['certificate'].get('kind')})")
        continue
    g = copy.deepcopy(dd)
    g["certificate"]["dead_unit_biases_zeroed"] = g["certificate"]["dead_unit_biases_zeroed"][:1]
    rc, msg = recheck(g, f"ac_subset_{nm}", nm)
    expect(f"auto_forge/dead_zeroed_subset/{nm}", rc != 0, f"rc={rc} {msg}")
# the relu2 doc (dead group) rechecked against the t = lam block (not dead): must refuse
save(cases["relu2_t1_not_cancel"][0], T / "r2live.npz")
rc, msg = recheck(d, "ac_on_live", "r2live")
expect("auto_forge/doc_on_live_block", rc != 0, f"rc={rc} {msg}")

# ---------------------------------------------------------------- 5. other_convention forged
b = Block("relu", W_up=A([[1.]]), b_up=A([.5]), W_down=A([[-1.]]))
d = check(b, "oc", "--replacing-biases", "allowed")
oc = d["certificate"].get("other_convention")
print(f"info  other_convention on relu x - relu(x+1/2) allowed: {None if oc is None else (oc['verdict'], oc['certificate'].get('kind'))}")
if oc is not None:
    for label, mut in (
        ("verdict_flip", lambda o: o.__setitem__("verdict", "absorbable")),
        ("drop_cert", lambda o: o.pop("certificate")),
        ("claim_swap", lambda o: o.__setitem__("claim", "gelu-complete")),
        ("extra_field", lambda o: o.__setitem__("note", "x")),
        ("cert_extra_field", lambda o: o["certificate"].__setitem__("note", "x")),
        ("conv_same", lambda o: o.__setitem__("replacing_biases", "allowed")),
    ):
        g = copy.deepcopy(d)
        mut(g["certificate"]["other_convention"])
        rc, msg = recheck(g, f"oc_{label}", "oc")
        expect(f"other/{label}", rc != 0, f"rc={rc} {msg}")
    # other_convention whose verdict equals the main, with a homogeneous cert on a relu block? use undecided
    g = copy.deepcopy(d)
    g["certificate"]["other_convention"] = {"replacing_biases": "none", "verdict": "undecided", "claim": None,
                                            "exact": False, "reason": "x",
                                            "certificate": {"kind": "convention_not_decided", "replacing_biases": "none"}}
    g["biases_none"] = None
    rc, msg = recheck(g, "oc_undecided", "oc")
    expect("other/downgraded_to_undecided", rc != 0 or "not verified" in msg or "undecided" in msg, f"rc={rc} {msg}")

# ---------------------------------------------------------------- 6. unknown fields
d = check(vz, "vzf", "--replacing-biases", "none")
for label, where in (("top", lambda g: g), ("cert", lambda g: g["certificate"]),
                     ("block", lambda g: g["certificate"]["block"]),
                     ("abs_width", lambda g: g["certificate"]["absorption_width"])):
    g = copy.deepcopy(d); where(g)["minimal_width"] = 1
    rc, msg = recheck(g, f"f_{label}", "vzf")
    expect(f"fields/{label}_extra_minimal_width", rc != 0, f"rc={rc} {msg}")

print(f"\nfailed: {len(FAIL)}: {FAIL}")
