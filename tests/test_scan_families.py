"""`absorb scan` naming schemes beyond BERT / GPT-2 / Llama (issue 11 section 4): T5 (plain and gated),
OPT, GPT-NeoX, ViT/CLIP/Phi (mlp.fc1/fc2), Gemma, Mixtral and Qwen-MoE experts, each on a small
synthetic safetensors checkpoint, with and without config.json.  Verdicts name their claims
(relu-gelu-iff, relu-limit, gated-impossible)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from oracle.core import io as bio
from oracle.cli import main
from oracle.commands.scan import scan
from oracle.core.families import find_blocks

D, M = 4, 6


def _w(rng, *shape):
    return (rng.integers(-8, 9, shape) / 8).astype(np.float32)


def _write(tmp_path: Path, tensors: dict, config: dict | None = None) -> Path:
    p = tmp_path / "model.safetensors"
    save_file(tensors, str(p))
    if config is not None:
        (tmp_path / "config.json").write_text(json.dumps(config))
    return p


def _t5(rng, gated: bool) -> dict:
    t = {}
    for stack, layer in (("encoder", 1), ("decoder", 2)):
        pre = f"{stack}.block.0.layer.{layer}.DenseReluDense."
        if gated:
            t[pre + "wi_0.weight"] = _w(rng, M, D)
            t[pre + "wi_1.weight"] = _w(rng, M, D)
        else:
            t[pre + "wi.weight"] = _w(rng, M, D)
        t[pre + "wo.weight"] = _w(rng, D, M)
        t[f"{stack}.block.0.layer.0.SelfAttention.q.weight"] = _w(rng, D, D)
    return t


CASES = {
    "t5": (lambda r: _t5(r, False), None,
           [("t5", "decoder.block.0.layer.2", "relu"), ("t5", "encoder.block.0.layer.1", "relu")]),
    "t5_config": (lambda r: _t5(r, False), {"feed_forward_proj": "relu", "dense_act_fn": "relu"},
                  [("t5", "decoder.block.0.layer.2", "relu"), ("t5", "encoder.block.0.layer.1", "relu")]),
    "t5_gated": (lambda r: _t5(r, True), {"feed_forward_proj": "gated-gelu", "dense_act_fn": "gelu_new"},
                 [("t5_gated", "decoder.block.0.layer.2", "geglu_tanh"),
                  ("t5_gated", "encoder.block.0.layer.1", "geglu_tanh")]),
    "opt": (lambda r: {"model.decoder.layers.0.fc1.weight": _w(r, M, D), "model.decoder.layers.0.fc1.bias": _w(r, M),
                       "model.decoder.layers.0.fc2.weight": _w(r, D, M), "model.decoder.layers.0.fc2.bias": _w(r, D),
                       "model.decoder.layers.0.self_attn.k_proj.weight": _w(r, D, D)},
            {"model_type": "opt", "activation_function": "relu"},
            [("opt", "model.decoder.layers.0", "relu")]),
    "gpt_neox": (lambda r: {"gpt_neox.layers.0.mlp.dense_h_to_4h.weight": _w(r, M, D),
                            "gpt_neox.layers.0.mlp.dense_h_to_4h.bias": _w(r, M),
                            "gpt_neox.layers.0.mlp.dense_4h_to_h.weight": _w(r, D, M),
                            "gpt_neox.layers.0.mlp.dense_4h_to_h.bias": _w(r, D)},
                 {"model_type": "gpt_neox", "hidden_act": "gelu"},
                 [("gpt_neox", "gpt_neox.layers.0", "gelu")]),
    "phi": (lambda r: {"model.layers.0.mlp.fc1.weight": _w(r, M, D), "model.layers.0.mlp.fc1.bias": _w(r, M),
                       "model.layers.0.mlp.fc2.weight": _w(r, D, M), "model.layers.0.mlp.fc2.bias": _w(r, D)},
            {"model_type": "phi", "hidden_act": "gelu_new"},
            [("fc", "model.layers.0", "gelu_tanh")]),
    "vit_timm": (lambda r: {"blocks.0.mlp.fc1.weight": _w(r, M, D), "blocks.0.mlp.fc2.weight": _w(r, D, M)},
                 None, [("fc", "blocks.0", "gelu")]),
    "clip": (lambda r: {"text_model.encoder.layers.0.mlp.fc1.weight": _w(r, M, D),
                        "text_model.encoder.layers.0.mlp.fc2.weight": _w(r, D, M),
                        "vision_model.encoder.layers.0.mlp.fc1.weight": _w(r, M, D),
                        "vision_model.encoder.layers.0.mlp.fc2.weight": _w(r, D, M)},
             {"model_type": "clip", "text_config": {"hidden_act": "quick_gelu"},
              "vision_config": {"hidden_act": "gelu"}},
             [("fc", "text_model.encoder.layers.0", "quick_gelu"), ("fc", "vision_model.encoder.layers.0", "gelu")]),
    "gemma": (lambda r: {"model.layers.0.mlp.gate_proj.weight": _w(r, M, D), "model.layers.0.mlp.up_proj.weight": _w(r, M, D),
                         "model.layers.0.mlp.down_proj.weight": _w(r, D, M)},
              {"model_type": "gemma", "hidden_act": "gelu", "hidden_activation": "gelu_pytorch_tanh"},
              [("gemma", "model.layers.0", "geglu_tanh")]),
    "gemma_no_hidden_activation": (
        lambda r: {"model.layers.0.mlp.gate_proj.weight": _w(r, M, D), "model.layers.0.mlp.up_proj.weight": _w(r, M, D),
                   "model.layers.0.mlp.down_proj.weight": _w(r, D, M)},
        {"model_type": "gemma", "hidden_act": "gelu"}, [("gemma", "model.layers.0", "geglu_tanh")]),
    "mixtral": (lambda r: {f"model.layers.0.block_sparse_moe.experts.{j}.{n}.weight": _w(r, *(s))
                           for j in range(3) for n, s in (("w1", (M, D)), ("w3", (M, D)), ("w2", (D, M)))}
                | {"model.layers.0.block_sparse_moe.gate.weight": _w(r, 3, D)},
                {"model_type": "mixtral", "hidden_act": "silu"},
                [("mixtral", f"model.layers.0.block_sparse_moe.experts.{j}", "swiglu") for j in range(3)]),
    "qwen_moe": (lambda r: {f"model.layers.1.mlp.{e}.{n}.weight": _w(r, *(s))
                            for e in ("experts.0", "experts.1", "shared_expert")
                            for n, s in (("gate_proj", (M, D)), ("up_proj", (M, D)), ("down_proj", (D, M)))}
                 | {"model.layers.1.mlp.gate.weight": _w(r, 2, D)},
                 {"model_type": "qwen2_moe", "hidden_act": "silu"},
                 [("qwen_moe", "model.layers.1.mlp.experts.0", "swiglu"),
                  ("qwen_moe", "model.layers.1.mlp.experts.1", "swiglu"),
                  ("qwen_moe", "model.layers.1.mlp.shared_expert", "swiglu")]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_naming_scheme(tmp_path: Path, case: str) -> None:
    make, config, want = CASES[case]
    p = _write(tmp_path, make(np.random.default_rng(0)), config)
    ck = bio.Checkpoint(p)
    specs = find_blocks(ck)
    got_fp = [(s["family"], s["prefix"]) for s in specs]
    assert got_fp == [(f, pre) for f, pre, _ in want]
    doc = scan(str(p), distances=False)
    acts = [(b["family"], b["block"], b["activation"]) for b in doc["blocks"]]
    assert acts == want
    for b in doc["blocks"]:
        assert (b["d"], b["m"]) == (D, M)
        if b["activation"] in ("swiglu", "geglu_tanh"):
            # gates vanishing at 0 and differentiable there: never absorbable (bias-free)
            assert (b["verdict"], b["claim"], b["exact"]) == ("not_absorbable", "gated-impossible", True)
        if b["activation"] in ("gelu", "quick_gelu", "gelu_tanh", "silu"):
            # CLIP's quick_gelu is in the catalog: relu-limit decides it like gelu
            assert b["claim"] == "relu-limit"
            if b["certificate"]["hypotheses"]["nondegenerate"]["nondegenerate"]:
                assert b["exact"] is True and b["verdict"] in ("absorbable", "not_absorbable")
        if b["family"] in ("mixtral", "qwen_moe"):
            assert "mixture-of-experts" in b["expert_note"]


def test_t5_relu_block_with_an_index_set_is_absorbable(tmp_path: Path) -> None:
    """A T5 relu block built with W_S U_S = -I (S = first d units): absorbable (relu-gelu-iff)."""
    rng = np.random.default_rng(1)
    U = np.vstack([np.eye(D), _w(rng, M - D, D)]).astype(np.float32)
    W = np.hstack([-np.eye(D), _w(rng, D, M - D)]).astype(np.float32)
    t = {"encoder.block.0.layer.1.DenseReluDense.wi.weight": U, "encoder.block.0.layer.1.DenseReluDense.wo.weight": W}
    doc = scan(str(_write(tmp_path, t)), distances=False)
    (b,) = doc["blocks"]
    assert (b["family"], b["activation"], b["verdict"], b["exact"]) == ("t5", "relu", "absorbable", True)


def test_opt_not_confused_with_mlp_fc(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    t = {"a.fc1.weight": _w(rng, M, D), "a.fc2.weight": _w(rng, D, M),
         "b.mlp.fc1.weight": _w(rng, M, D), "b.mlp.fc2.weight": _w(rng, D, M)}
    specs = find_blocks(bio.Checkpoint(_write(tmp_path, t)))
    assert [(s["family"], s["prefix"]) for s in specs] == [("opt", "a"), ("fc", "b")]


def test_missing_partner_tensor_is_a_clean_error(tmp_path: Path, capsys) -> None:
    rng = np.random.default_rng(3)
    t = {"model.layers.0.block_sparse_moe.experts.0.w1.weight": _w(rng, M, D),
         "model.layers.0.block_sparse_moe.experts.0.w2.weight": _w(rng, D, M)}  # w3 missing
    p = _write(tmp_path, t)
    assert main(["scan", str(p)]) == 2
    err = capsys.readouterr().err
    # progress lines, then exactly one error line naming the missing tensor; the scan went on
    errors = [ln for ln in err.strip().splitlines() if "error" in ln]
    assert len(errors) == 1 and "w3.weight" in errors[0] and "Traceback" not in err
    assert err.strip().splitlines()[-1] == errors[0]


def test_scan_cli_table_names_new_families(tmp_path: Path, capsys) -> None:
    make, config, _ = CASES["mixtral"]
    p = _write(tmp_path, make(np.random.default_rng(0)), config)
    assert main(["scan", str(p)]) == 0
    out = capsys.readouterr().out
    assert "mixtral" in out and "experts.2" in out and out.count("not_absorbable") >= 3


def test_activation_outside_the_catalog_is_undecided(tmp_path: Path) -> None:
    """An activation the catalog does not hold (here mish) gets no verdict, only its shapes."""
    rng = np.random.default_rng(2)
    t = {"vision_model.encoder.layers.0.mlp.fc1.weight": _w(rng, M, D),
         "vision_model.encoder.layers.0.mlp.fc2.weight": _w(rng, D, M)}
    doc = scan(str(_write(tmp_path, t, {"model_type": "clip", "vision_config": {"hidden_act": "mish"}})),
               distances=False)
    (b,) = doc["blocks"]
    assert (b["activation"], b["verdict"], b["claim"], b["exact"]) == ("mish", "undecided", None, False)
    assert "not in the catalog" in b["reason"] and (b["d"], b["m"]) == (D, M)
