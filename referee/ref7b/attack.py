"""Referee ref7b: attack `absorb scan MODEL.safetensors --emit OUT.safetensors` through the CLI.

Each case writes a tiny BERT checkpoint (safetensors' own writer) and config.json, runs the CLI as a
subprocess, and records exit status and the last stderr line.  For exit 0 the written checkpoint
is compared with the original by an independent float64 forward (tests/test_scan_emit_safetensors.py's
_encode, which does not import oracle/decide/bert_numpy.py), plus checks on what was written.
Run: nice .venv/bin/python referee/ref7b/attack.py [case ...]
"""
from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file, save_file

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
import test_scan_emit_safetensors as T  # noqa: E402

IDS = T.IDS


def _act(name, x):
    """The activations by their Hugging Face names (written here, not imported from oracle)."""
    if name == "relu":
        return np.maximum(x, 0.0)
    if name == "silu":
        return x / (1.0 + np.exp(-x))
    if name in ("gelu_new", "gelu_pytorch_tanh"):
        return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))
    from scipy.special import erf
    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


T._act = _act


def absorb(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(["nice", sys.executable, "-c", "from oracle.cli import main; raise SystemExit(main())",
                           *args], capture_output=True, text=True, cwd=ROOT, **kw)


def run_case(name, tensors, cfg, act="gelu", check=True, src_is_dir=False, extra=None, layers=T.LAYERS):
    tmp = Path(tempfile.mkdtemp(prefix=f"ref7b_{name}_"))
    src = T._write(tmp / "in", tensors, cfg) if tensors is not None else None
    if extra:
        src = extra(tmp / "in") or src
    if src_is_dir:
        src = tmp / "in"
    out = tmp / "out" / "c.safetensors"
    out.parent.mkdir()
    r = absorb("scan", str(src), "--emit", str(out), "--json")
    last = (r.stderr.strip().splitlines() or [""])[-1][:300]
    left = sorted(p.name for p in out.parent.iterdir())
    res = {"case": name, "rc": r.returncode, "stderr_last": last, "out_dir": left}
    if r.returncode == 0:
        doc = json.loads(r.stdout)
        e2e = doc.get("compile", doc).get("end_to_end") if isinstance(doc, dict) else None
        if e2e is None:
            for k, v in doc.items():
                if isinstance(v, dict) and "end_to_end" in v:
                    e2e = v["end_to_end"]
        res["e2e_rel"] = e2e and e2e.get("max_relative_difference")
        ocfg = json.loads((out.parent / "config.json").read_text())
        res["written_cfg"] = {k: ocfg.get(k) for k in ("num_hidden_layers", "hidden_size", "intermediate_size",
                                                        "hidden_act")}
        res["intermediate_sizes"] = ocfg["absorb"]["intermediate_sizes"]
        if check:
            comp = load_file(str(out))
            orig = tensors
            try:
                a = T._encode(orig, IDS, act, True)
                b = T._encode(comp, IDS, act, False)
                res["independent_max_abs_diff"] = float(np.max(np.abs(a - b)))
            except Exception as ex:  # noqa: BLE001
                res["independent_check"] = f"could not run: {ex!r}"
    shutil.rmtree(tmp, ignore_errors=True)
    return res


def w(seed=7, **kw):
    return T._weights(seed, **kw)


def c(**kw):
    return T._config(**kw)


def cases():
    L0 = "encoder.layer.0."
    yield "baseline_gelu", w(), c(), "gelu"
    yield "hidden_act_gelu_new", w(), c(act="gelu_new"), "gelu_new"
    yield "hidden_act_relu", w(), c(act="relu"), "relu"
    yield "hidden_act_silu", w(), c(act="silu"), "silu"
    yield "hidden_act_quick_gelu", w(), c(act="quick_gelu"), "gelu"
    yield "hidden_act_list", w(), c(act=["gelu"]), "gelu"
    yield "hidden_act_absent", w(), {k: v for k, v in c().items() if k != "hidden_act"}, "gelu"
    yield "cfg_num_hidden_layers_5", w(), c(num_hidden_layers=5), "gelu"
    yield "cfg_hidden_size_64", w(), c(hidden_size=64), "gelu"
    yield "cfg_intermediate_size_3", w(), c(intermediate_size=3), "gelu"
    yield "cfg_layer_norm_eps_1e-5", w(), c(layer_norm_eps=1e-5), "gelu"
    yield "cfg_layer_norm_eps_str", w(), c(layer_norm_eps="abc"), "gelu"
    yield "cfg_is_decoder", w(), c(is_decoder=True), "gelu"
    yield "cfg_relative_key", w(), c(position_embedding_type="relative_key"), "gelu"
    yield "cfg_model_type_absent", w(), {k: v for k, v in c().items() if k != "model_type"}, "gelu"
    yield "cfg_model_type_electra", w(), c(model_type="electra"), "gelu"
    yield "cfg_heads_3_not_dividing", w(), c(num_attention_heads=3), "gelu"
    yield "cfg_heads_true", w(), c(num_attention_heads=True), "gelu"
    yield "cfg_max_pos_4", w(), c(max_position_embeddings=4), "gelu"
    yield "no_config", w(), None, "gelu"
    t = w(); del t[L0 + "attention.self.key.weight"]
    yield "missing_key_weight", t, c(), "gelu"
    t = w(); del t[L0 + "intermediate.dense.bias"]
    yield "mlp_up_no_bias", t, c(), "gelu"
    t = w(); del t[L0 + "output.dense.bias"]
    yield "mlp_down_no_bias", t, c(), "gelu"
    t = w(); del t[L0 + "output.LayerNorm.weight"]; del t[L0 + "output.LayerNorm.bias"]
    yield "missing_output_layernorm", t, c(), "gelu"
    t = w(); t["cls.predictions.bias"] = np.zeros(T.VOCAB, np.float32)
    t["cls.predictions.decoder.weight"] = t["embeddings.word_embeddings.weight"].copy()
    yield "extra_mlm_head_tied_copy", t, c(), "gelu"
    t = w(); t[L0 + "attention.self.distance_embedding.weight"] = np.ones((31, T.D // T.HEADS), np.float32)
    yield "extra_relative_distance_tensor_cfg_absolute", t, c(), "gelu"
    # a third layer with attention but no MLP tensors: config says 3 layers
    t = w(); rng = np.random.default_rng(3)
    for n in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
        t[f"encoder.layer.2.{n}.weight"] = rng.standard_normal((T.D, T.D)).astype(np.float32)
        t[f"encoder.layer.2.{n}.bias"] = np.zeros(T.D, np.float32)
    for n in ("attention.output.LayerNorm", "output.LayerNorm"):
        t[f"encoder.layer.2.{n}.weight"] = np.ones(T.D, np.float32)
        t[f"encoder.layer.2.{n}.bias"] = np.zeros(T.D, np.float32)
    yield "layer2_attention_without_mlp", t, c(num_hidden_layers=3), "gelu"
    t = w(); t["encoder.layer.0.intermediate.dense.weight"] = t["encoder.layer.1.intermediate.dense.weight"]
    yield "shared_up_weight_across_layers", t, c(), "gelu"
    t = w(); t[L0 + "intermediate.dense.weight"] = t[L0 + "intermediate.dense.weight"].copy(); t[L0 + "intermediate.dense.weight"][3, 2] = np.nan
    yield "nan_in_mlp", t, c(), "gelu"
    t = w(); t["pooler.dense.weight"] = t["pooler.dense.weight"].copy(); t["pooler.dense.weight"][0, 0] = np.inf
    yield "inf_in_pooler", t, c(), "gelu"
    t = w(); t["embeddings.position_ids"] = t["embeddings.position_ids"].copy()
    t["extra.nan"] = np.array([np.nan], np.float32)
    yield "nan_in_unused_extra_tensor", t, c(), "gelu"
    t = w(); t[L0 + "intermediate.dense.weight"] = (t[L0 + "intermediate.dense.weight"] * 10).astype(np.int8)
    yield "int8_mlp_up_weight", t, c(), "gelu"
    t = w(); t[L0 + "output.dense.weight"] = t[L0 + "output.dense.weight"].astype(np.int32)
    yield "int32_mlp_down_weight", t, c(), "gelu"
    t = w(); t[L0 + "intermediate.dense.weight"] = t[L0 + "intermediate.dense.weight"].astype(np.float16)
    yield "float16_mlp", t, c(), "gelu"
    t = w(); t["pooler.dense.weight"] = t["pooler.dense.weight"].astype(np.float64)
    yield "float64_pooler", t, c(), "gelu"
    t = w(); t["embeddings.word_embeddings.weight"] = t["embeddings.word_embeddings.weight"].astype(np.int8)
    yield "int8_word_embeddings", t, c(), "gelu"
    t = w(); t[L0 + "intermediate.dense.weight"] = t[L0 + "intermediate.dense.weight"] * 300
    yield "large_mlp_weights_x300", t, c(), "gelu"
    t = w(); t[L0 + "intermediate.dense.weight"] = t[L0 + "intermediate.dense.weight"] * 1e-6
    yield "tiny_mlp_weights_1e-6", t, c(), "gelu"


def main(sel):
    results = []
    for name, t, cfg, act in cases():
        if sel and name not in sel:
            continue
        r = run_case(name, t, cfg, act)
        print(json.dumps(r), flush=True)
        results.append(r)
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
