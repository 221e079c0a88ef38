"""`absorb scan` on GGUF, ONNX and PyTorch files written here with each format's own writer.

Claims exercised: relu-limit (gelu-type blocks, with and without biases), relu-complete (relu
blocks), gated-impossible (bias-free gated blocks: Llama, Gemma, Phi-3, MoE experts)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from formatfiles import D, M, absorbable_pair, ints, onnx_mlp, write_gguf
from oracle.cli import main
from oracle.commands.scan import scan
from oracle.core.families import find_blocks, load_block
from oracle.core.formats import open_checkpoint
from oracle.core.formats.torch_file import write_state_dict


def _by_block(doc):
    return {b["block"]: b for b in doc["blocks"]}


# ---------------------------------------------------------------------- GGUF

def test_gguf_llama_blocks_quantized_and_float(tmp_path: Path) -> None:
    from gguf import GGMLQuantizationType
    from gguf.quants import dequantize, quantize

    rng = np.random.default_rng(0)
    gate = rng.standard_normal((M, 32)).astype(np.float32)
    t = {"token_embd.weight": ints(rng, 10, 32),
         "blk.0.ffn_gate.weight": (gate, "Q8_0"),
         "blk.0.ffn_up.weight": (rng.standard_normal((M, 32)), "Q4_0"),
         "blk.0.ffn_down.weight": ints(rng, 32, M).astype(np.float16),
         "blk.0.attn_q.weight": ints(rng, 32, 32),
         "blk.1.ffn_gate.weight": ints(rng, M, 32), "blk.1.ffn_up.weight": ints(rng, M, 32),
         "blk.1.ffn_down.weight": ints(rng, 32, M)}
    p = write_gguf(tmp_path / "m.gguf", "llama", t)
    ck = open_checkpoint(p)
    specs = find_blocks(ck)
    assert [s["prefix"] for s in specs] == ["blk.0", "blk.1"]
    blk = load_block(ck, specs[0], "swiglu")
    # the weights are exactly what gguf's own dequantizer gives (float32), widened to float64
    want = dequantize(quantize(gate, GGMLQuantizationType.Q8_0), GGMLQuantizationType.Q8_0)
    assert np.array_equal(blk.W_gate, want.astype(np.float64)) and (blk.d, blk.m) == (32, M)
    doc = scan(str(p), distances=False)
    b0, b1 = doc["blocks"]
    assert (b0["activation"], b0["verdict"], b0["claim"], b0["exact"]) == (
        "swiglu", "not_absorbable", "gated-impossible", True)
    assert "general.architecture = 'llama'" in b0["activation_source"]
    assert b0["dtype"] == "Q8_0/Q4_0/F16" and b1["dtype"] == "F32"
    assert "dequantized" in b0["quantization"] and "quantization" not in b1


def test_gguf_gemma_is_a_tanh_gelu_gate_and_bert_is_ungated(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    t = {"blk.0.ffn_gate.weight": ints(rng, M, D * 8), "blk.0.ffn_up.weight": ints(rng, M, D * 8),
         "blk.0.ffn_down.weight": ints(rng, D * 8, M)}
    doc = scan(str(write_gguf(tmp_path / "g.gguf", "gemma3", t)), distances=False)
    (b,) = doc["blocks"]
    assert (b["activation"], b["claim"], b["verdict"]) == ("geglu_tanh", "gated-impossible", "not_absorbable")
    U, W = absorbable_pair(rng)
    t = {"blk.0.ffn_up.weight": U, "blk.0.ffn_up.bias": np.zeros(M, np.float32),
         "blk.0.ffn_down.weight": W, "blk.0.ffn_down.bias": np.zeros(D, np.float32),
         "blk.1.ffn_up.weight": ints(rng, M, D), "blk.1.ffn_up.bias": ints(rng, M),
         "blk.1.ffn_down.weight": ints(rng, D, M), "blk.1.ffn_down.bias": ints(rng, D)}
    doc = scan(str(write_gguf(tmp_path / "b.gguf", "bert", t)), distances=False)
    b0, b1 = doc["blocks"]
    # W_S U_S = -I with S the first d units: absorbable exactly (the orientation of the matrices is right)
    assert (b0["activation"], b0["verdict"], b0["exact"]) == ("gelu_tanh", "absorbable", True)
    assert b1["biases_nonzero"] == ["b_up", "b_down"] and b1["claim"] == "relu-limit"


def test_gguf_phi3_fused_up_and_moe_experts(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    gate, up = ints(rng, M, 32), ints(rng, M, 32)
    t = {"blk.0.ffn_up.weight": np.vstack([gate, up]), "blk.0.ffn_down.weight": ints(rng, 32, M)}
    ck = open_checkpoint(write_gguf(tmp_path / "p.gguf", "phi3", t))
    (spec,) = find_blocks(ck)
    blk = load_block(ck, spec, "swiglu")
    assert np.array_equal(blk.W_gate, gate) and np.array_equal(blk.W_up, up) and blk.m == M
    n_exp = 3
    t = {"blk.0.ffn_gate_exps.weight": ints(rng, n_exp, M, 32), "blk.0.ffn_up_exps.weight": ints(rng, n_exp, M, 32),
         "blk.0.ffn_down_exps.weight": ints(rng, n_exp, 32, M), "blk.0.ffn_gate_inp.weight": ints(rng, n_exp, 32)}
    p = write_gguf(tmp_path / "moe.gguf", "qwen2moe", t)
    ck = open_checkpoint(p)
    specs = find_blocks(ck)
    assert [s["prefix"] for s in specs] == [f"blk.0.expert.{e}" for e in range(n_exp)]
    blk = load_block(ck, specs[2], "swiglu")
    assert np.array_equal(blk.W_down, t["blk.0.ffn_down_exps.weight"][2])
    doc = scan(str(p), distances=False)
    assert all(b["verdict"] == "not_absorbable" and "mixture-of-experts" in b["expert_note"] for b in doc["blocks"])


# ---------------------------------------------------------------------- ONNX

@pytest.mark.parametrize("act,want", [("erf_gelu", "gelu"), ("tanh_gelu", "gelu_tanh"), ("relu", "relu"),
                                      ("gelu_op", "gelu"), ("silu", "silu"), ("gemm_relu", "relu")])
def test_onnx_activation_from_the_graph(tmp_path: Path, act: str, want: str) -> None:
    rng = np.random.default_rng(3)
    U, W = absorbable_pair(rng)
    blocks = [{"up": U, "down": W, "act": act},
              {"up": ints(rng, M, D), "down": ints(rng, D, M), "b_up": ints(rng, M), "b_down": ints(rng, D),
               "act": act}]
    p = onnx_mlp(tmp_path / "m.onnx", blocks, names=False)
    doc = scan(str(p), distances=False)
    b0, b1 = doc["blocks"]
    assert (b0["activation"], b1["activation"]) == (want, want)
    assert b0["skip_in_graph"] is True
    # the stored [in, out] weights were transposed: the index condition holds exactly
    assert (b0["verdict"], b0["exact"]) == ("absorbable", True), b0["reason"]
    assert b1["biases_nonzero"] == ["b_up", "b_down"]
    if act in ("erf_gelu", "tanh_gelu", "silu"):
        assert "identified as" in b0["activation_source"]
    else:
        assert "operator" in b0["activation_source"]


def test_onnx_hf_names_survive_and_gated_blocks(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    blocks = [{"up": ints(rng, M, D), "down": ints(rng, D, M), "b_up": ints(rng, M), "b_down": ints(rng, D),
               "act": "erf_gelu"},
              {"gate": ints(rng, M, D), "up": ints(rng, M, D), "down": ints(rng, D, M), "act": "silu"}]
    doc = scan(str(onnx_mlp(tmp_path / "m.onnx", blocks, names=True)), distances=False)
    b0, b1 = doc["blocks"]
    assert (b0["family"], b0["block"]) == ("bert", "encoder.layer.0")
    assert (b1["activation"], b1["verdict"], b1["claim"]) == ("swiglu", "not_absorbable", "gated-impossible")


def test_onnx_unknown_activation_is_undecided(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    p = onnx_mlp(tmp_path / "m.onnx", [{"up": ints(rng, M, D), "down": ints(rng, D, M), "act": "tanh_only"}])
    (b,) = scan(str(p), distances=False)["blocks"]
    assert b["verdict"] == "undecided" and "matches no catalog activation" in b["reason"]


# ---------------------------------------------------------------------- PyTorch

@pytest.mark.parametrize("legacy", [False, True])
def test_pytorch_state_dict_zip_and_legacy(tmp_path: Path, legacy: bool) -> None:
    rng = np.random.default_rng(6)
    U, W = absorbable_pair(rng)
    t = {"bert.encoder.layer.0.intermediate.dense.weight": U,
         "bert.encoder.layer.0.intermediate.dense.bias": np.zeros(M, np.float32),
         "bert.encoder.layer.0.output.dense.weight": W.astype(np.float16),
         "bert.encoder.layer.1.intermediate.dense.weight": ints(rng, M, D).astype(np.float64),
         "bert.encoder.layer.1.output.dense.weight": ints(rng, D, M)}
    p = tmp_path / "pytorch_model.bin"
    write_state_dict(p, t, legacy=legacy)
    (tmp_path / "config.json").write_text(json.dumps({"hidden_act": "relu"}))
    doc = scan(str(p), distances=False)
    b0, b1 = doc["blocks"]
    assert (b0["family"], b0["activation"], b0["verdict"], b0["exact"]) == ("bert", "relu", "absorbable", True)
    assert b0["dtype"] == "float32/float16" and doc["format"] == "pytorch"
    assert b1["claim"] == "relu-complete"


def test_phi3_fused_gate_up_in_safetensors(tmp_path: Path) -> None:
    from safetensors.numpy import save_file

    rng = np.random.default_rng(7)
    gate, up = ints(rng, M, D), ints(rng, M, D)
    p = tmp_path / "model.safetensors"
    save_file({"model.layers.0.mlp.gate_up_proj.weight": np.vstack([gate, up]),
               "model.layers.0.mlp.down_proj.weight": ints(rng, D, M)}, str(p))
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "phi3", "hidden_act": "silu"}))
    ck = open_checkpoint(p)
    (spec,) = find_blocks(ck)
    blk = load_block(ck, spec, "swiglu")
    assert spec["family"] == "phi3" and np.array_equal(blk.W_gate, gate) and np.array_equal(blk.W_up, up)
    (b,) = scan(str(p), distances=False)["blocks"]
    assert (b["activation"], b["verdict"], b["claim"]) == ("swiglu", "not_absorbable", "gated-impossible")


def test_scan_table_shows_dtype_and_activation_source(tmp_path: Path, capsys) -> None:
    rng = np.random.default_rng(8)
    t = {"blk.0.ffn_gate.weight": (rng.standard_normal((M, 32)), "Q8_0"),
         "blk.0.ffn_up.weight": ints(rng, M, 32), "blk.0.ffn_down.weight": ints(rng, 32, M)}
    assert main(["scan", str(write_gguf(tmp_path / "m.gguf", "qwen2", t))]) == 0
    out = capsys.readouterr().out
    assert "Q8_0/F32/F32" in out and "general.architecture = 'qwen2'" in out
    assert "dequantized" in out
