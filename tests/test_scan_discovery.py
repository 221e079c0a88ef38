"""Block discovery that does not rest on the family-name table alone: matrices are paired by shape
within each layer, with the activation from config.json (its activation key, or what its
model_type fixes), and every guess is said, in the JSON (``discovery.guessed``) and in the text
output (a ``*`` after the block and a ``guessed`` line).  Checkpoints are written with the
safetensors and PyTorch writers under the tensor names of DistilBERT, GPT-J, MPT, ALBERT (one
layer shared by all), BLOOM, Falcon, Mistral, Qwen2, RoBERTa and Meta's original Llama layout.
Claims exercised: relu-limit (gelu blocks), gated-impossible (gated blocks)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from formatfiles import ints
from oracle.cli import main
from oracle.core.formats.torch_file import write_state_dict
from oracle.decide.scan import scan

D, M, V = 4, 6, 10  # width, MLP width, vocabulary


def _save(d: Path, t: dict, cfg: dict | None, torch: bool = False) -> Path:
    if cfg is not None:
        (d / "config.json").write_text(json.dumps(cfg))
    if torch:
        p = d / "pytorch_model.bin"
        write_state_dict(p, t)
        return p
    p = d / "model.safetensors"
    save_file(t, str(p))
    return p


def _layers(rng, n: int, fn) -> dict:
    t = {}
    for i in range(n):
        t.update(fn(i, rng))
    return t


CASES = {
    # name: (tensors of layer i, config, expected (family, activation), expected guesses per block)
    "distilbert": (lambda i, r: {
        f"distilbert.transformer.layer.{i}.attention.q_lin.weight": ints(r, D, D),
        f"distilbert.transformer.layer.{i}.attention.out_lin.weight": ints(r, D, D),
        f"distilbert.transformer.layer.{i}.ffn.lin1.weight": ints(r, M, D),
        f"distilbert.transformer.layer.{i}.ffn.lin1.bias": ints(r, M),
        f"distilbert.transformer.layer.{i}.ffn.lin2.weight": ints(r, D, M),
        f"distilbert.transformer.layer.{i}.ffn.lin2.bias": ints(r, D)},
        {"model_type": "distilbert", "activation": "gelu", "dim": D, "hidden_dim": M},
        ("distilbert", "gelu"), []),
    "gptj": (lambda i, r: {
        f"transformer.h.{i}.attn.q_proj.weight": ints(r, D, D),
        f"transformer.h.{i}.mlp.fc_in.weight": ints(r, M, D), f"transformer.h.{i}.mlp.fc_in.bias": ints(r, M),
        f"transformer.h.{i}.mlp.fc_out.weight": ints(r, D, M), f"transformer.h.{i}.mlp.fc_out.bias": ints(r, D)},
        {"model_type": "gptj", "activation_function": "gelu_new", "n_embd": D}, ("gptj", "gelu_tanh"), []),
    "mpt": (lambda i, r: {
        f"transformer.blocks.{i}.attn.Wqkv.weight": ints(r, 3 * D, D),
        f"transformer.blocks.{i}.ffn.up_proj.weight": ints(r, M, D),
        f"transformer.blocks.{i}.ffn.down_proj.weight": ints(r, D, M)},
        {"model_type": "mpt", "d_model": D}, ("mpt", "gelu"),
        ["orientation: stored out x in (torch Linear) assumed; no bias tells it from Conv1D's in x out"]),
    "no-config": (lambda i, r: {
        f"net.stages.{i}.mix.weight": ints(r, D, D),
        f"net.stages.{i}.a.weight": ints(r, M, D), f"net.stages.{i}.a.bias": ints(r, M),
        f"net.stages.{i}.b.weight": ints(r, D, M), f"net.stages.{i}.b.bias": ints(r, D)},
        None, ("structure", "gelu"),
        ["model width d = 4: the most common dimension of the checkpoint's matrices (6 of 6); no hidden size "
         "in config.json", "activation gelu: no activation in config.json"]),
    "conv1d-storage": (lambda i, r: {
        f"h.{i}.attn.c_attn.weight": ints(r, D, 3 * D),
        f"h.{i}.ff.c_in.weight": ints(r, D, M), f"h.{i}.ff.c_in.bias": ints(r, M),
        f"h.{i}.ff.c_out.weight": ints(r, M, D), f"h.{i}.ff.c_out.bias": ints(r, D)},
        {"model_type": "custom", "hidden_act": "relu", "hidden_size": D}, ("custom", "relu"), []),
    "meta-llama": (lambda i, r: {
        f"layers.{i}.attention.wq.weight": ints(r, D, D),
        f"layers.{i}.feed_forward.w1.weight": ints(r, M, D),
        f"layers.{i}.feed_forward.w3.weight": ints(r, M, D),
        f"layers.{i}.feed_forward.w2.weight": ints(r, D, M)},
        {"hidden_size": D, "hidden_act": "silu"}, ("structure", "swiglu"),
        ["orientation: stored out x in (torch Linear) assumed for a gated block"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("torch", [False, True], ids=["safetensors", "pytorch"])
def test_blocks_found_by_shape(tmp_path, case, torch):
    fn, cfg, (family, act), guesses = CASES[case]
    t = _layers(np.random.default_rng(1), 2, fn)
    doc = scan(str(_save(tmp_path, t, cfg, torch)))
    assert doc["summary"]["mlp_blocks"] == 2, doc["skipped"]
    for b in doc["blocks"]:
        assert (b["family"], b["activation"]) == (family, act)
        assert b["discovery"]["rule"].startswith("by shape")
        assert b["discovery"]["guessed"] == guesses
        assert b["verdict"] in ("absorbable", "not_absorbable", "undecided") and b["d"] == D
    # the attention matrices are listed as skipped, with the reason
    assert doc["skipped"] and all("attention" in e["reason"] or "square" in e["reason"] for e in doc["skipped"])


def test_gated_meta_names_take_w1_as_the_gate(tmp_path):
    fn, cfg, _, _ = CASES["meta-llama"]
    doc = scan(str(_save(tmp_path, _layers(np.random.default_rng(1), 1, fn), cfg)))
    (b,) = doc["blocks"]
    assert b["tensors"] == {"gate": "layers.0.feed_forward.w1.weight", "up": "layers.0.feed_forward.w3.weight",
                            "down": "layers.0.feed_forward.w2.weight"}
    assert "the gate is the matrix whose name says so" in b["discovery"]["rule"]


def test_conv1d_storage_is_read_from_the_biases(tmp_path):
    """A (d, m) matrix with an m-long bias is an up projection stored in x out: it is transposed."""
    fn, cfg, _, _ = CASES["conv1d-storage"]
    t = _layers(np.random.default_rng(1), 1, fn)
    doc = scan(str(_save(tmp_path, t, cfg)))
    (b,) = doc["blocks"]
    assert b["tensors"] == {"up": "h.0.ff.c_in.weight", "down": "h.0.ff.c_out.weight"}
    assert b["views"] == {"up": ["T"], "down": ["T"]} and "Conv1D" in b["discovery"]["rule"]
    assert (b["d"], b["m"]) == (D, M)


def test_albert_shared_layer(tmp_path):
    r = np.random.default_rng(2)
    g = "albert.encoder.albert_layer_groups.0.albert_layers.0."
    t = {"albert.embeddings.word_embeddings.weight": ints(r, V, 3),
         "albert.encoder.embedding_hidden_mapping_in.weight": ints(r, D, 3),
         g + "attention.dense.weight": ints(r, D, D),
         g + "ffn.weight": ints(r, M, D), g + "ffn.bias": ints(r, M),
         g + "ffn_output.weight": ints(r, D, M), g + "ffn_output.bias": ints(r, D)}
    cfg = {"model_type": "albert", "hidden_act": "gelu_new", "hidden_size": D, "num_hidden_layers": 12,
           "embedding_size": 3}
    p = _save(tmp_path, t, cfg)
    doc = scan(str(p))
    (b,) = doc["blocks"]
    assert b["tensors"] == {"up": g + "ffn.weight", "down": g + "ffn_output.weight"}
    assert (b["family"], b["activation"], b["discovery"]["guessed"]) == ("albert", "gelu_tanh", [])
    assert doc["shared_layers"]["layers_per_block"] == 12
    assert {e["tensor"] for e in doc["skipped"]} == {"albert.encoder.embedding_hidden_mapping_in.weight",
                                                     g + "attention.dense.weight",
                                                     "albert.embeddings.word_embeddings.weight"}


@pytest.mark.parametrize("model_type,cfg_extra,names,want", [
    ("bloom", {}, "gpt_neox", "gelu_tanh"),
    ("falcon", {}, "gpt_neox", "gelu"),
    ("falcon", {"activation": "relu"}, "gpt_neox", "relu"),
    ("mistral", {"hidden_act": "silu"}, "llama", "swiglu"),
    ("qwen2", {"hidden_act": "silu"}, "llama", "swiglu"),
    ("roberta", {"hidden_act": "gelu"}, "bert", "gelu"),
])
def test_activation_from_the_model_type_or_config(tmp_path, model_type, cfg_extra, names, want):
    r = np.random.default_rng(3)
    if names == "gpt_neox":
        t = {"transformer.h.0.mlp.dense_h_to_4h.weight": ints(r, M, D),
             "transformer.h.0.mlp.dense_4h_to_h.weight": ints(r, D, M)}
    elif names == "llama":
        t = {f"model.layers.0.mlp.{p}_proj.weight": ints(r, *((D, M) if p == "down" else (M, D)))
             for p in ("gate", "up", "down")}
    else:
        t = {f"{model_type}.encoder.layer.0.intermediate.dense.weight": ints(r, M, D),
             f"{model_type}.encoder.layer.0.output.dense.weight": ints(r, D, M)}
    doc = scan(str(_save(tmp_path, t, {"model_type": model_type, **cfg_extra})))
    (b,) = doc["blocks"]
    assert b["activation"] == want and b["discovery"]["guessed"] == [], b["activation_source"]
    assert b["activation_source"].startswith("config.json")


def test_text_output_marks_guesses(tmp_path, capsys):
    fn, cfg, _, _ = CASES["no-config"]
    p = _save(tmp_path, _layers(np.random.default_rng(1), 2, fn), cfg)
    assert main(["scan", str(p)]) == 0
    out = capsys.readouterr().out
    assert "net.stages.0*" in out and "net.stages.1*" in out
    lines = [ln for ln in out.splitlines() if ln.startswith("guessed (* 2 blocks")]
    assert len(lines) == 2 and any("activation gelu" in ln for ln in lines), out
    assert "skipped 2 linear layers in no MLP block (0 refused)" in out


def test_unpaired_linear_layers_exit_3_and_are_listed(tmp_path, capsys):
    r = np.random.default_rng(4)
    t = {"enc.0.attn.q.weight": ints(r, D, D), "enc.0.proj.weight": ints(r, M, D),
         "enc.0.other.weight": ints(r, M + 1, D)}
    p = _save(tmp_path, t, {"hidden_size": D})
    code = main(["scan", str(p)])
    out, err = capsys.readouterr()
    assert code == 3
    errors = [ln for ln in err.splitlines() if ": error:" in ln]
    assert len(errors) == 1 and "no MLP block found" in errors[0] and "3 linear layers skipped" in errors[0]
    assert "0 MLP blocks" in out and "skipped 3 linear layers" in out and "no partner of shape" in out


@pytest.mark.parametrize("torch", [False, True], ids=["safetensors", "pytorch"])
def test_integer_weights_are_refused_not_read_as_numbers(tmp_path, capsys, torch):
    """int8 matrices (bitsandbytes-style, scales in other tensors) are quantized layers: a named block
    made of them is an error and unnamed ones are listed as refused; exit 2 (never read as plain
    numbers, which would drop their scales)."""
    r = np.random.default_rng(6)
    i8 = lambda *s: r.integers(-5, 5, s).astype(np.int8)  # noqa: E731
    t = {"bert.encoder.layer.0.intermediate.dense.weight": i8(M, D),
         "bert.encoder.layer.0.intermediate.dense.SCB": np.ones(M, np.float32),
         "bert.encoder.layer.0.output.dense.weight": i8(D, M),
         "bert.encoder.layer.1.foo.weight": i8(M, D), "bert.encoder.layer.1.bar.weight": i8(D, M),
         "bert.embeddings.position_ids": np.arange(8).reshape(1, 8).astype(np.int64)}
    p = _save(tmp_path, t, {"hidden_size": D, "hidden_act": "gelu"}, torch)
    code = main(["scan", str(p), "--json"])
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert code == 2
    errors = [ln for ln in err.splitlines() if ": error:" in ln]
    assert len(errors) == 1 and "stored as int8" in errors[0], err
    (b,) = doc["blocks"]
    assert b["verdict"] == "error" and "quantized weight" in b["error"]
    assert {e["tensor"] for e in doc["skipped"]} == {"bert.encoder.layer.1.foo.weight", "bert.encoder.layer.1.bar.weight"}
    assert all(e["refused"] for e in doc["skipped"])
