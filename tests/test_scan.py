"""`absorb scan` on small synthetic checkpoints with BERT, GPT-2 and Llama tensor names.

Claims exercised: relu-limit (biased gelu blocks), gated-impossible (Llama)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file

from oracle.core import io as bio
from oracle.commands.scan import scan
from oracle.core.families import find_blocks

ROOT = Path(__file__).resolve().parents[1]


def _ck(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    d, m = 4, 6
    t = {}
    f32 = lambda *s: (rng.integers(-8, 9, s) / 8).astype(np.float32)  # noqa: E731
    # BERT layer 0: biased; BERT layer 1: zero biases, and a condition-satisfying block
    t["bert.encoder.layer.0.intermediate.dense.weight"] = f32(m, d)
    t["bert.encoder.layer.0.intermediate.dense.bias"] = f32(m)
    t["bert.encoder.layer.0.output.dense.weight"] = f32(d, m)
    t["bert.encoder.layer.0.output.dense.bias"] = f32(d)
    t["bert.encoder.layer.0.attention.output.dense.weight"] = f32(d, d)  # not an MLP
    U = np.vstack([np.eye(d), f32(m - d, d)]).astype(np.float32)
    W = np.hstack([-np.eye(d), f32(d, m - d)]).astype(np.float32)
    t["bert.encoder.layer.1.intermediate.dense.weight"] = U
    t["bert.encoder.layer.1.intermediate.dense.bias"] = np.zeros(m, np.float32)
    t["bert.encoder.layer.1.output.dense.weight"] = W
    # GPT-2: Conv1D weights stored transposed (in x out)
    t["h.0.mlp.c_fc.weight"] = f32(d, m)
    t["h.0.mlp.c_fc.bias"] = f32(m)
    t["h.0.mlp.c_proj.weight"] = f32(m, d)
    t["h.0.attn.c_proj.weight"] = f32(d, d)
    # Llama
    t["model.layers.0.mlp.gate_proj.weight"] = f32(m, d)
    t["model.layers.0.mlp.up_proj.weight"] = f32(m, d)
    t["model.layers.0.mlp.down_proj.weight"] = f32(d, m)
    p = tmp_path / "model.safetensors"
    save_file(t, str(p))
    return p


def test_scan_recognises_all_three_layouts(tmp_path: Path) -> None:
    p = _ck(tmp_path)
    specs = find_blocks(bio.Checkpoint(p))
    assert [(s["family"], s["prefix"]) for s in specs] == [
        ("bert", "bert.encoder.layer.0"), ("bert", "bert.encoder.layer.1"),
        ("gpt2", "h.0"), ("llama", "model.layers.0")]
    doc = scan(str(p))
    by = {b["block"]: b for b in doc["blocks"]}
    b0 = by["bert.encoder.layer.0"]
    assert (b0["d"], b0["m"], b0["activation"]) == (4, 6, "gelu")
    assert b0["biases_nonzero"] == ["b_up", "b_down"]
    # a biased gelu block: relu-limit decides it exactly when it is nondegenerate (bias-free sense)
    nd = b0["certificate"]["hypotheses"]["nondegenerate"]["nondegenerate"]
    assert b0["claim"] == "relu-limit"
    if nd:
        assert b0["verdict"] in ("absorbable", "not_absorbable") and b0["exact"] is True
    else:
        assert b0["verdict"] in ("absorbable", "undecided") and "nondegeneracy" in b0["reason"]
    assert b0["bias_free_distance"]["relaxed_distance_float64"] >= 0
    b1 = by["bert.encoder.layer.1"]  # zero biases count as bias-free; S = first d units
    assert b1["biases_nonzero"] == [] and b1["verdict"] == "absorbable" and b1["exact"]
    assert b1["bias_free_distance"]["relaxed_distance_float64"] < 1e-3
    g = by["h.0"]
    assert (g["d"], g["m"], g["activation"]) == (4, 6, "gelu_tanh")  # transposed correctly
    ll = by["model.layers.0"]
    assert (ll["activation"], ll["verdict"], ll["claim"], ll["exact"]) == (
        "swiglu", "not_absorbable", "gated-impossible", True)
    assert doc["summary"]["mlp_blocks"] == 4


def test_scan_cli_json_and_config_activation(tmp_path: Path) -> None:
    p = _ck(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"hidden_act": "relu"}))
    r = subprocess.run([sys.executable, "-m", "oracle.cli", "scan", str(p), "--json"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    acts = {b["block"]: b["activation"] for b in doc["blocks"]}
    assert acts["bert.encoder.layer.0"] == "relu" and acts["model.layers.0"] == "reglu"
    assert "[1/4]" in r.stderr  # progress goes to stderr


def test_scan_bad_checkpoints_exit_2(tmp_path: Path, capsys) -> None:
    from oracle.cli import main

    (tmp_path / "x.safetensors").write_text("garbage")
    t = {"h.0.mlp.c_fc.weight": np.zeros((4, 6), np.float32)}  # c_proj missing
    save_file(t, str(tmp_path / "y.safetensors"))
    for name in ("x.safetensors", "y.safetensors", "absent.safetensors"):
        assert main(["scan", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        # progress lines may precede it (a block with a missing tensor is reported and the
        # scan goes on); the error itself is one line
        errors = [ln for ln in err.strip().splitlines() if ": error:" in ln]
        assert len(errors) == 1 and "Traceback" not in err, err
