"""`absorb scan --json` documents re-check with `absorb recheck SCAN.json CHECKPOINT` (issue 27,
deliverables 1 and 2 for scans): the round trip holds for checkpoints of every format (run as
subprocesses, the way a user runs them), and a document with any forged field is refused with
the field named: verdicts, certificate evidence, tensor names, weights hashes, the inventory, the
list of blocks, skipped layers, discovery's guesses, distances.  Claims exercised: relu-limit
(gelu blocks), relu-complete (relu blocks), gated-impossible (the gated block)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from formatfiles import ints, onnx_quantized_encoder, write_gguf
from oracle.cli import main
from oracle.core.formats.torch_file import write_state_dict
from oracle.algebra import search
from oracle.core import families
from oracle.core.blocks import Block
from oracle.core.formats import open_checkpoint
from oracle.decide.scan import _check_distance, _Refused, bias_free_distance, scan

D, M = 4, 6


def _tensors(rng) -> dict[str, np.ndarray]:
    U = np.vstack([np.eye(D), ints(rng, M - D, D)]).astype(np.float32)
    W = np.hstack([-np.eye(D), ints(rng, D, M - D)]).astype(np.float32)
    return {
        # a BERT-named biased gelu block, and one that satisfies the index condition
        "bert.encoder.layer.0.intermediate.dense.weight": ints(rng, M, D),
        "bert.encoder.layer.0.intermediate.dense.bias": ints(rng, M),
        "bert.encoder.layer.0.output.dense.weight": ints(rng, D, M),
        "bert.encoder.layer.0.attention.self.query.weight": ints(rng, D, D),
        "bert.encoder.layer.1.intermediate.dense.weight": U,
        "bert.encoder.layer.1.output.dense.weight": W,
        # names in no table (found by shape, orientation guessed), and a layer with no partner
        "net.stages.0.proj_a.weight": ints(rng, M, D),
        "net.stages.0.proj_b.weight": ints(rng, D, M),
        "net.stages.1.proj_a.weight": ints(rng, M + 2, D),
        # a Llama-named gated block
        "model.layers.0.mlp.gate_proj.weight": ints(rng, M, D),
        "model.layers.0.mlp.up_proj.weight": ints(rng, M, D),
        "model.layers.0.mlp.down_proj.weight": ints(rng, D, M),
    }


def _ck(tmp_path: Path) -> Path:
    p = tmp_path / "model.safetensors"
    save_file(_tensors(np.random.default_rng(5)), str(p))
    return p


def _doc(tmp_path: Path, capsys) -> tuple[Path, dict]:
    p = _ck(tmp_path)
    assert main(["scan", str(p), "--json"]) == 0
    return p, json.loads(capsys.readouterr().out)


def _recheck(capsys, tmp_path: Path, doc: dict, ck: Path) -> tuple[int, str]:
    f = tmp_path / "scan.json"
    f.write_text(json.dumps(doc))
    code = main(["recheck", str(f), str(ck)])
    out, err = capsys.readouterr()
    return code, out + err


def _set(doc: dict, path: list, value) -> None:
    cur = doc
    for k in path[:-1]:
        cur = cur[k]
    cur[path[-1]] = value


def test_the_document_covers_every_layer(tmp_path, capsys):
    p, doc = _doc(tmp_path, capsys)
    assert [b["block"] for b in doc["blocks"]] == ["bert.encoder.layer.0", "bert.encoder.layer.1",
                                                   "model.layers.0", "net.stages.0"]
    skipped = {e["tensor"]: e["reason"] for e in doc["skipped"]}
    assert set(skipped) == {"bert.encoder.layer.0.attention.self.query.weight", "net.stages.1.proj_a.weight"}
    assert "attention" in skipped["bert.encoder.layer.0.attention.self.query.weight"]
    assert "no partner of shape (4, 8)" in skipped["net.stages.1.proj_a.weight"]
    # no config.json: every activation is a guess (the family's default, or gelu for a block found
    # by shape), and so are the width and the orientation of the block found by shape
    guessed = {b["block"]: b["discovery"]["guessed"] for b in doc["blocks"]}
    assert [g.split(":")[0] for g in guessed["net.stages.0"]] == ["model width d = 4", "orientation",
                                                                  "activation gelu"]
    assert guessed["model.layers.0"] == ["activation swiglu: no activation in config.json"]
    assert doc["summary"]["guessed_blocks"] == 4
    assert "bias_free_distance" in doc["blocks"][0] and "certificate_Y" in doc["blocks"][0]["bias_free_distance"]


def test_the_round_trip_holds(tmp_path, capsys):
    p, doc = _doc(tmp_path, capsys)
    code, text = _recheck(capsys, tmp_path, doc, p)
    assert code == 0 and text.startswith("holds: the scan of"), text
    assert "4 MLP blocks and 2 skipped layers" in text and "4 certificates re-verified" in text


FORGERIES = [
    (["blocks", 1, "verdict"], "not_absorbable", "blocks[1].verdict"),
    (["blocks", 0, "certificate", "search", "violated"], ["trace"], "blocks[0].certificate.search.violated"),
    (["blocks", 0, "certificate", "search", "violated"], [], "blocks[0].certificate.search.violated"),
    (["blocks", 0, "exact"], False, "blocks[0].exact"),
    (["blocks", 0, "claim"], "relu-complete", "blocks[0].claim"),
    (["blocks", 0, "tensors", "up"], "bert.encoder.layer.1.intermediate.dense.weight", "blocks[0].tensors"),
    (["blocks", 0, "weights_sha256"], "0" * 64, "blocks[0].weights_sha256"),
    (["blocks", 0, "activation"], "relu", "blocks[0].activation"),
    (["blocks", 3, "discovery", "guessed"], [], "blocks[3].discovery.guessed"),
    (["blocks", 2, "d"], 5, "blocks[2].d"),
    (["blocks", 0, "bias_free_distance", "certified_lower_bound_for_index_sets"], 9.0,
     "blocks[0].bias_free_distance.certified_lower_bound_for_index_sets"),
    (["inventory_sha256"], "f" * 64, "inventory_sha256"),
    (["tensors"], 99, "tensors"),
    (["scan_format"], "absorb-scan-1", "scan_format"),
    (["summary", "verdicts"], {"absorbable": 4}, "summary.verdicts"),
    (["skipped", 1, "reason"], "an attention projection", "skipped[1].reason"),
]


@pytest.mark.parametrize("path,value,field", FORGERIES, ids=[f for _, _, f in FORGERIES])
def test_a_forged_field_is_refused_and_named(tmp_path, capsys, path, value, field):
    p, doc = _doc(tmp_path, capsys)
    forged = copy.deepcopy(doc)
    _set(forged, path, value)
    assert forged != doc
    code, text = _recheck(capsys, tmp_path, forged, p)
    assert code == 1 and text.startswith("does not hold: " + field), text


def test_blocks_added_removed_or_of_another_checkpoint_are_refused(tmp_path, capsys):
    p, doc = _doc(tmp_path, capsys)
    for forged, why in ((dict(doc, blocks=doc["blocks"][:-1]), "blocks: the document lists 3 MLP blocks, "
                         "discovery finds 4"),
                        (dict(doc, blocks=doc["blocks"] + doc["blocks"][:1]), "blocks: the document lists 5"),
                        (dict(doc, skipped=doc["skipped"][:1]), "skipped (length)")):
        code, text = _recheck(capsys, tmp_path, forged, p)
        assert code == 1 and why in text, text
    # the same names with other weights: the weights hash is refused
    t = _tensors(np.random.default_rng(5))
    t["bert.encoder.layer.0.output.dense.weight"][0, 0] += 1
    other = tmp_path / "other.safetensors"
    save_file(t, str(other))
    code, text = _recheck(capsys, tmp_path, doc, other)
    assert code == 1 and "blocks[0].weights_sha256" in text, text
    # another checkpoint altogether: the inventory
    save_file({"x.weight": ints(np.random.default_rng(1), D, D)}, str(tmp_path / "x.safetensors"))
    code, text = _recheck(capsys, tmp_path, doc, tmp_path / "x.safetensors")
    assert code == 1 and text.startswith("does not hold: tensors: the document says 12"), text
    assert "another checkpoint" in text


def test_a_forged_distance_certificate_is_refused():
    """The distance numbers are re-derived from their own certificate Y and point z."""
    rng = np.random.default_rng(5)
    b = Block("gelu", W_up=ints(rng, M, D).astype(np.float64), W_down=ints(rng, D, M).astype(np.float64))
    dist = bias_free_distance(b)
    assert dist["certified_lower_bound_for_index_sets"] is not None
    _check_distance(b, dist, "x")  # holds as computed
    forgeries = [({"relaxed_distance_float64": dist["relaxed_distance_float64"] * 1.01}, "x.relaxed_distance_float64"),
                 ({"z": search.encode_matrix(np.zeros(M))}, "x.relaxed_distance_float64"),
                 ({"z": search.encode_matrix(np.full(M, 2.0))}, "x.z"),
                 ({"certified_lower_bound_for_index_sets": 1e9}, "x.certified_lower_bound_for_index_sets"),
                 ({"certificate_Y": search.encode_matrix(-np.eye(D))}, "x.certified_lower_bound_for_index_sets")]
    for change, field in forgeries:
        with pytest.raises(_Refused, match="^" + field.replace(".", r"\.")):
            _check_distance(b, {**dist, **change}, "x")


def _write(fmt: str, d: Path) -> Path:
    rng = np.random.default_rng(11)
    if fmt == "gguf":
        t = {f"blk.{i}.ffn_{r}.weight": (ints(rng, *((32, 64) if r == "down" else (64, 32))), "Q8_0")
             for i in range(2) for r in ("gate", "up", "down")}
        return write_gguf(d / "m.gguf", "llama", t)
    if fmt == "onnx-int8":
        return onnx_quantized_encoder(d / "m.onnx", 2, 8, 16, "cast_mul")
    if fmt == "pytorch":
        p = d / "pytorch_model.bin"
        write_state_dict(p, {k: v for k, v in _tensors(rng).items() if not k.startswith("net.")})
        return p
    return _ck(d)


@pytest.mark.parametrize("fmt", ["safetensors", "gguf", "onnx-int8", "pytorch"])
def test_round_trip_through_the_command_line(tmp_path, fmt):
    """absorb scan --json, then absorb recheck, as subprocesses: holds, exit 0."""
    p = _write(fmt, tmp_path)
    absorb = [sys.executable, "-m", "oracle.cli"]
    r = subprocess.run(absorb + ["scan", str(p), "--json"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    (tmp_path / "scan.json").write_text(r.stdout)
    r2 = subprocess.run(absorb + ["recheck", str(tmp_path / "scan.json"), str(p)], capture_output=True,
                        text=True, timeout=600)
    assert r2.returncode == 0 and r2.stdout.startswith("holds: the scan of"), r2.stdout + r2.stderr
    # without the checkpoint argument, the path the document names is used
    r3 = subprocess.run(absorb + ["recheck", str(tmp_path / "scan.json")], capture_output=True, text=True,
                        timeout=600)
    assert r3.returncode == 0, r3.stdout + r3.stderr


def test_scan_library_and_discovery_agree(tmp_path):
    p = _ck(tmp_path)
    specs, skipped = families.discover(open_checkpoint(p))
    assert [s["prefix"] for s in specs] == [b["block"] for b in scan(str(p))["blocks"]]
    assert len(skipped) == 2


def test_timing_numbers_are_not_compared(tmp_path, capsys):
    """Timings inside a certificate differ between runs (a real int8 MiniLM's search.gram.time did):
    a number under a timing key is accepted, anything else under it is not."""
    p, doc = _doc(tmp_path, capsys)
    timed = copy.deepcopy(doc)
    timed["blocks"][0]["certificate"]["search"]["time"] = 123.5
    code, text = _recheck(capsys, tmp_path, timed, p)
    assert code == 0, text
    timed["blocks"][0]["certificate"]["search"]["time"] = "fast"
    code, text = _recheck(capsys, tmp_path, timed, p)
    assert code == 1 and "blocks[0].certificate.search.time" in text, text
