"""``absorb scan CHECKPOINT``: find every MLP block of a .safetensors checkpoint and decide it.

Recognised layouts (tensor names; weights of torch ``Linear`` are stored out x in):

* BERT / ViT   ``<p>intermediate.dense`` (m x d) and ``<p>output.dense`` (d x m), gelu;
* GPT-2        ``<p>mlp.c_fc`` and ``<p>mlp.c_proj``: ``Conv1D`` stores in x out, so both are
  transposed; gelu_tanh;
* Llama        ``<p>mlp.gate_proj``, ``<p>mlp.up_proj`` (m x d), ``<p>mlp.down_proj`` (d x m), swiglu;
  Gemma has the same names and a gelu_tanh gate: recognised from ``model_type`` in config.json;
* Qwen-MoE     ``<p>mlp.experts.N.{gate,up,down}_proj`` and ``<p>mlp.shared_expert.*``, swiglu;
* Mixtral      ``<p>block_sparse_moe.experts.N.w1`` (gate), ``w3`` (up), ``w2`` (down), swiglu;
* T5           ``<p>DenseReluDense.wi`` / ``wo``, relu; gated T5 (v1.1, Flan)
  ``DenseReluDense.wi_0`` (gate), ``wi_1`` (up), ``wo``, gelu_tanh gate;
* OPT          ``<p>fc1`` / ``<p>fc2`` (not under ``mlp.``), relu;
* GPT-NeoX     ``<p>mlp.dense_h_to_4h`` / ``<p>mlp.dense_4h_to_h``, gelu;
* ViT / CLIP / Phi  ``<p>mlp.fc1`` / ``<p>mlp.fc2``, gelu (CLIP: quick_gelu from config.json,
  z sigmoid(1.702 z), in the catalog and decided by relu-limit like gelu).

The activation comes from config.json next to the checkpoint when present (the key each family
uses in Hugging Face configs, nested ``text_config`` / ``vision_config`` for CLIP), otherwise the
family default.  An expert of a mixture-of-experts layer is analysed on its own, as
x -> x + E(x): the router mixes experts with input-dependent weights, which is outside the
analysis.

The block analysed is the skip-connected MLP x -> x + B(x) (layer norms and
attention are outside it).  Tensors are loaded one block at a time.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any, Callable

import numpy as np

from oracle.core import activations
from oracle.algebra import search
from oracle.core.blocks import Block
from oracle.decide.block import decide
from oracle.core.errors import InputError
from oracle.core.io import Checkpoint
from oracle.core import families
from oracle.commands.output import emit_json


def _distance(block: Block) -> dict[str, Any]:
    """How far the bias-free weights are from the index condition (relaxation; float64 measurement)."""
    rel = search.relaxation_certificate(block.W_up, block.W_down, np.eye(block.d), max_iter=150,
                                        refine=True)
    return {"relaxed_distance_float64": math.sqrt(max(rel["objective"], 0.0)),
            "note": "float64 measurement of min over z in [0,1]^m of ||W_down diag(z) W_up + I||_F "
                    "(the distance of the relaxed problem, not a rigorous bound)",
            "certified_lower_bound_for_index_sets": rel["distance_lower_bound"] if rel["certified"] else None,
            "norm_of_I": math.sqrt(block.d), "iterations": rel["iterations"]}


def scan(path: str, progress: Callable[[str], None] = lambda s: None,
         distances: bool = True) -> dict[str, Any]:
    """Scan a checkpoint: one entry per MLP block with shapes, activation, biases and verdict."""
    ck = Checkpoint(path)
    specs = families.find_blocks(ck)
    out_blocks = []
    t0 = time.perf_counter()
    for k, spec in enumerate(specs, 1):
        act, act_src = families.block_activation(ck, spec["family"], spec["prefix"])
        progress(f"[{k}/{len(specs)}] {spec['prefix'] or '<root>'} ({spec['family']}, {act}) "
                 f"{time.perf_counter() - t0:.1f}s")
        entry: dict[str, Any] = {"block": spec["prefix"], "family": spec["family"],
                                 "tensors": spec["tensors"], "activation": act,
                                 "activation_source": act_src}
        if spec.get("expert"):
            entry["expert_note"] = ("one expert of a mixture-of-experts layer, analysed on its own as "
                                    "x -> x + E(x); the router's input-dependent mixing is outside the analysis")
        try:
            if spec.get("error"):
                raise InputError(spec["error"])
            if act not in activations.CATALOG:
                entry.update(_unsupported(ck, spec, act, act_src))
            else:
                _scan_one(ck, spec, act, entry, distances)
        except InputError as e:
            # one bad block is reported and the scan goes on; the command exits 2 at the end
            entry.update({"verdict": "error", "claim": None, "exact": False, "error": str(e),
                          "reason": str(e)})
            entry.setdefault("d", None)
            entry.setdefault("m", None)
            entry.setdefault("biases_nonzero", [])
        out_blocks.append(entry)
    counts: dict[str, int] = {}
    for e in out_blocks:
        counts[e["verdict"]] = counts.get(e["verdict"], 0) + 1
    return {"checkpoint": str(path), "files": [str(f) for f in ck.files], "tensors": len(ck.names()),
            "blocks": out_blocks, "summary": {"mlp_blocks": len(out_blocks), "verdicts": counts},
            "note": "each block is taken as x -> x + MLP(x) with M = I; layer norms, attention "
                    "and the order of normalisation (pre-/post-LN) are outside the analysis",
            "seconds": round(time.perf_counter() - t0, 2)}


def _scan_one(ck: Checkpoint, spec: dict[str, Any], act: str, entry: dict[str, Any],
              distances: bool) -> None:
    """Load, decide and measure one block, filling its report entry."""
    block = families.load_block(ck, spec, act)
    entry.update({"d": block.d, "m": block.m,
                  "dtype": ck.dtype(spec["tensors"]["up"]),
                  "biases_present": sorted(spec["biases"]),
                  "biases_nonzero": [n for n in ("b_up", "b_gate", "b_down")
                                     if getattr(block, n) is not None and np.any(getattr(block, n) != 0)]})
    entry.update(_judge(block, entry))
    if distances and not block.gated and block.act.odd_part_identity:
        entry["bias_free_distance"] = _distance(
            Block(block.activation, W_up=block.W_up, W_down=block.W_down))


def _unsupported(ck: Checkpoint, spec: dict[str, Any], act: str, src: str) -> dict[str, Any]:
    """An entry for a block whose activation is not in the catalog (shapes from the header only)."""
    shape = ck.shape(spec["tensors"]["up"])
    m, d = (shape[1], shape[0]) if families.FAMILIES[spec["family"]].transpose else (shape[0], shape[1])
    return {"d": int(d), "m": int(m), "dtype": ck.dtype(spec["tensors"]["up"]),
            "biases_present": sorted(spec["biases"]), "biases_nonzero": [],
            "verdict": "undecided", "claim": None, "exact": False,
            "reason": f"activation {act!r} ({src}) is not in the catalog (absorb activations lists it); "
                      "no claim applies", "certificate": {"kind": "unsupported_activation"}}


def _judge(block: Block, entry: dict[str, Any]) -> dict[str, Any]:
    """The verdict of absorb check's decision procedure (oracle.decide.decide) for the real block,
    biases included: relu blocks by relu-complete, gelu-family blocks by relu-limit."""
    v = decide(block)
    return {"verdict": v.verdict, "claim": v.claim, "exact": v.exact, "reason": v.reason,
            "certificate": _slim(v.certificate)}


def _slim(cert: dict[str, Any]) -> dict[str, Any]:
    """Drop bulky payloads (the d x d certificate matrix) from the scan report."""
    out = {}
    for k, v in cert.items():
        if isinstance(v, dict):
            v = {kk: ("<d x d certificate matrix omitted from the scan report>" if kk == "Y" else vv)
                 for kk, vv in v.items()}
        out[k] = v
    return out


def _short(e: dict[str, Any]) -> str:
    """The note column: exactness, claim and the certificate's method."""
    c = e.get("certificate") or {}
    s = c.get("search") or {}
    how = s.get("method") or c.get("kind") or ""
    if e["verdict"] == "error" or not e.get("claim"):
        return e["reason"][:90]
    return f"{'exact' if e['exact'] else 'not exact'}, {e['claim']} [{how}]"


def run(args: argparse.Namespace) -> int:
    """``absorb scan CHECKPOINT [--json]``."""

    t0 = time.perf_counter()

    def progress(msg: str) -> None:
        print(f"absorb scan: {msg}", file=sys.stderr, flush=True)

    doc = scan(args.checkpoint, progress=progress)
    progress(f"done in {time.perf_counter() - t0:.1f}s")
    bad = [e for e in doc["blocks"] if e["verdict"] == "error"]
    if args.json:
        emit_json(doc)
        return _scan_status(bad)
    print(f"checkpoint: {doc['checkpoint']} ({doc['tensors']} tensors, {doc['summary']['mlp_blocks']} MLP blocks)")
    if not doc["blocks"]:
        print("no MLP blocks of a known naming scheme found (" + ", ".join(families.FAMILIES) + ")")
        return 0
    print(f"{'block':<22} {'family':<8} {'d':>5} {'m':>6} {'activation':<10} {'biases':<14} "
          f"{'verdict':<15} note")
    for e in doc["blocks"]:
        b = ",".join(e["biases_nonzero"]) or "none"
        name = e["block"] if len(e["block"]) <= 22 else ".." + e["block"][-20:]
        dd, mm = ("-" if e["d"] is None else e["d"]), ("-" if e["m"] is None else e["m"])
        print(f"{name:<22} {e['family']:<8} {dd:>5} {mm:>6} {e['activation']:<10} "
              f"{b:<14} {e['verdict']:<15} {_short(e)}")
        dist = e.get("bias_free_distance")
        if dist:
            lb = dist["certified_lower_bound_for_index_sets"]
            print(f"{'':<22}   index condition: relaxed distance from W_S U_S = -I "
                  f"{dist['relaxed_distance_float64']:.4g} (float64 measurement; ||I||_F = "
                  f"{dist['norm_of_I']:.4g})" + (f", certified min_S ||W_S U_S + I||_F >= {lb:.4g}"
                                                  if lb else ""))
    print(f"summary: {doc['summary']['verdicts']}; {doc['note']}")
    return _scan_status(bad)


def _scan_status(bad: list[dict[str, Any]]) -> int:
    """Exit status of a scan: 2 (with one line on stderr) when any block could not be read."""
    if not bad:
        return 0
    first = bad[0]
    print(f"absorb scan: error: {len(bad)} block(s) could not be analysed; first: "
          f"{first['block'] or '<root>'}: {first['error']}", file=sys.stderr)
    return 2
