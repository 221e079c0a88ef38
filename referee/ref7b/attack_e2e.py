"""Referee ref7b: how sensitive is the end-to-end check of the safetensors --emit path?

A correct compile cannot be made wrong from the CLI, so a WRONG compiled checkpoint is planted here
(written with safetensors' own writer, with the config.json the CLI writes) and handed to
oracle.decide.compile_safetensors.verify, the check the CLI runs before it renames the files.
W1: layer 0's MLP contributes little (W_down x 1e-5): a compiled layer 0 that drops B entirely
    (P(a) = a) passes the check.
W2: a relu unit that fires only for one token id never drawn by the check's random inputs: its
    down column is set to garbage in the compiled file; the check passes, the two models differ on
    that token (measured here with the independent forward of tests/test_scan_emit_safetensors.py).
Run: nice .venv/bin/python referee/ref7b/attack_e2e.py"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file, save_file

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
import test_scan_emit_safetensors as T  # noqa: E402
from oracle.decide import compile_safetensors as cs  # noqa: E402

CMD = ["nice", sys.executable, "-c", "from oracle.cli import main; raise SystemExit(main())"]


def compile_cli(t, cfg, tag):
    tmp = Path(tempfile.mkdtemp(prefix=f"ref7b_{tag}_"))
    src = T._write(tmp / "in", t, cfg)
    (tmp / "out").mkdir()
    out = tmp / "out" / "c.safetensors"
    r = subprocess.run([*CMD, "scan", str(src), "--emit", str(out), "--json"], capture_output=True, text=True, cwd=ROOT)
    return tmp, src, out, r


def plant(tmp, comp, cfg_path, name):
    d = tmp / name
    d.mkdir()
    save_file(comp, str(d / "c.safetensors"))
    (d / "config.json").write_text(cfg_path.read_text())
    return d / "c.safetensors", d / "config.json"


# W1 -------------------------------------------------------------------------------------------
t = T._weights(7)
t["encoder.layer.0.output.dense.weight"] = (t["encoder.layer.0.output.dense.weight"] * 1e-5).astype(np.float32)
t["encoder.layer.0.output.dense.bias"] = (t["encoder.layer.0.output.dense.bias"] * 1e-5).astype(np.float32)
tmp, src, out, r = compile_cli(t, T._config(), "w1")
print("W1 CLI rc", r.returncode)
comp = load_file(str(out))
p = "encoder.layer.0."
w = comp[p + "intermediate.dense.weight"].shape[0]
# the identity alone, in relu-free gelu form: s(a) - s(-a) = a, width 2d, padded with zero units
d = T.D
up = np.zeros((w, d), np.float32); dn = np.zeros((d, w), np.float32)
up[:d] = np.eye(d); up[d:2 * d] = -np.eye(d); dn[:, :d] = np.eye(d); dn[:, d:2 * d] = -np.eye(d)
comp[p + "intermediate.dense.weight"], comp[p + "intermediate.dense.bias"] = up, np.zeros(w, np.float32)
comp[p + "output.dense.weight"], comp[p + "output.dense.bias"] = dn, np.zeros(d, np.float32)
wrong, wcfg = plant(tmp, comp, out.parent / "config.json", "wrong")
v = cs.verify(str(src), str(wrong), config=wcfg)
a = T._encode(t, T.IDS, "gelu", True)
b = T._encode(load_file(str(wrong)), T.IDS, "gelu", False)
print(json.dumps({"case": "W1_drop_small_block", "within_tolerance": v["within_tolerance"],
                  "e2e_rel_f32": v["max_relative_difference"], "e2e_rel_f64": v["float64"]["max_relative_difference"],
                  "independent_abs_diff": float(np.max(np.abs(a - b)))}))

# W2 -------------------------------------------------------------------------------------------
rng = np.random.default_rng(0)
drawn = set(rng.integers(0, T.VOCAB, size=(2, 12)).ravel().tolist())
unseen = [i for i in range(T.VOCAB) if i not in drawn]
print("token ids never drawn by the check:", unseen)
tok = unseen[0]
t = T._weights(11, relu_pairs=True)
cfg = T._config(act="relu")
# find a-values for each token at layer 0 input is complicated; instead make the unit fire on a
# direction only the unseen token's word embedding has: give that token a huge embedding component
# along a fresh direction the LN cannot remove, by making its row very different from the others
emb = t["embeddings.word_embeddings.weight"].copy()
emb[tok] = emb[tok] * 0 + np.array([6, -6, 6, -6, 6, -6, 6, -6], np.float32)
t["embeddings.word_embeddings.weight"] = emb
tmp, src, out, r = compile_cli(t, cfg, "w2")
print("W2 CLI rc", r.returncode, (r.stderr.strip().splitlines() or [""])[-1][:200])
if r.returncode == 0:
    comp = load_file(str(out))
    # find, in the compiled layer 0, the unit most selective for the unseen token: its pre-activation
    # at position 0 for the unseen token minus the max over the drawn tokens
    from oracle.decide import bert_numpy
    wu, bu = comp[p + "intermediate.dense.weight"].astype(np.float64), comp[p + "intermediate.dense.bias"].astype(np.float64)
    print("  (W2 searches a unit active only on the unseen token; see the report for the outcome)")
    # the layer-0 input a for each token alone at position 0 is not independent of context; use the
    # check's own inputs vs one sequence made of the unseen token
    def layer0_a(ids):
        w64 = {k: v.astype(np.float64) for k, v in t.items() if v.dtype.kind == "f"}
        e = "embeddings."
        x = np.stack([w64[e + "word_embeddings.weight"][i] + w64[e + "position_embeddings.weight"][j]
                      + w64[e + "token_type_embeddings.weight"][0] for j, i in enumerate(ids)])
        x = T._ln(x, w64[e + "LayerNorm.weight"], w64[e + "LayerNorm.bias"])
        # attention of layer 0 as in T._encode
        def lin(n, z):
            return z @ w64[p + n + ".weight"].T + w64[p + n + ".bias"]
        q, k, vv = lin("attention.self.query", x), lin("attention.self.key", x), lin("attention.self.value", x)
        dh = T.D // T.HEADS; ctx = np.zeros_like(x)
        for h in range(T.HEADS):
            sl = slice(h * dh, (h + 1) * dh)
            for i in range(len(ids)):
                s = np.array([q[i, sl] @ k[j, sl] for j in range(len(ids))]) / np.sqrt(dh)
                pr = np.exp(s - s.max()); ctx[i, sl] = (pr / pr.sum()) @ vv[:, sl]
        return T._ln(x + lin("attention.output.dense", ctx), w64[p + "attention.output.LayerNorm.weight"],
                     w64[p + "attention.output.LayerNorm.bias"])
    ids_seen = rng_ids = np.random.default_rng(0).integers(0, T.VOCAB, size=(2, 12))
    A_seen = np.concatenate([layer0_a(list(r_)) for r_ in ids_seen])
    probe = [3, tok, 5, 29]
    A_probe = layer0_a(probe)
    pre_seen = A_seen @ wu.T + bu
    pre_probe = A_probe[1] @ wu.T + bu
    gap = pre_probe - pre_seen.max(axis=0)
    j = int(np.argmax(gap))
    print(json.dumps({"best_unit": j, "pre_probe": float(pre_probe[j]), "max_pre_seen": float(pre_seen[:, j].max())}))
    # make unit j fire only above the seen maximum: shift its bias (the CHECKED original is unchanged;
    # only the planted wrong compiled file gets a new unit j' = relu(w_j a + b') with b' between)
    cut = -(pre_seen[:, j].max() + (pre_probe[j] - pre_seen[:, j].max()) / 2) + bu[j]
    if pre_probe[j] > pre_seen[:, j].max():
        wu2, dn2 = comp[p + "intermediate.dense.weight"].copy(), comp[p + "output.dense.weight"].copy()
        bu2 = comp[p + "intermediate.dense.bias"].copy()
        # append one extra unit (wrong: the original has no such unit) that fires only on the unseen token
        wu2 = np.vstack([wu2, wu2[j:j + 1]]); bu2 = np.concatenate([bu2, np.array([cut - bu[j] + bu[j] - (pre_seen[:, j].max() - bu[j]) - bu[j] + bu[j]], np.float32)])
        bu2[-1] = -(pre_seen[:, j].max() - bu[j]) - 1e-3 * 0 - (pre_probe[j] - pre_seen[:, j].max()) / 2
        dn2 = np.hstack([dn2, np.array([[5.0], [-5.0]] * (T.D // 2), np.float32)])
        comp[p + "intermediate.dense.weight"], comp[p + "intermediate.dense.bias"] = wu2.astype(np.float32), bu2.astype(np.float32)
        comp[p + "output.dense.weight"] = dn2.astype(np.float32)
        cfgw = json.loads((out.parent / "config.json").read_text())
        cfgw["absorb"]["intermediate_sizes"][0] += 1
        d2 = tmp / "wrong"; d2.mkdir(); save_file(comp, str(d2 / "c.safetensors"))
        (d2 / "config.json").write_text(json.dumps(cfgw))
        v = cs.verify(str(src), str(d2 / "c.safetensors"), config=d2 / "config.json")
        a = T._encode(t, probe, "relu", True); b = T._encode(load_file(str(d2 / "c.safetensors")), probe, "relu", False)
        a2 = T._encode(t, T.IDS, "relu", True); b2 = T._encode(load_file(str(d2 / "c.safetensors")), T.IDS, "relu", False)
        print(json.dumps({"case": "W2_unit_only_on_unseen_token", "within_tolerance": v["within_tolerance"],
                          "e2e_rel_f32": v["max_relative_difference"],
                          "independent_abs_diff_on_probe_with_unseen_token": float(np.max(np.abs(a - b))),
                          "independent_abs_diff_on_tests_IDS": float(np.max(np.abs(a2 - b2)))}))
        # debug: the planted unit's pre-activation on the probe (its own layer-0 input)
        print("  planted unit pre-activation on probe:", float(A_probe[1] @ wu2[-1].astype(np.float64) + bu2[-1]),
              "max on the check's inputs:", float((A_seen @ wu2[-1].astype(np.float64) + bu2[-1]).max()))
    else:
        print("W2: no unit selective for the unseen token; not shown")
