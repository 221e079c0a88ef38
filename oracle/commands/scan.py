"""``absorb scan CHECKPOINT``: find every MLP block of a model checkpoint and decide it.

Checkpoints: ``.safetensors`` (a file or a Hugging Face directory of shards), GGUF (llama.cpp),
ONNX and PyTorch state dicts (``.bin``/``.pt``, zip or legacy; restricted unpickling, never a
plain pickle).  The readers are in ``oracle.core.formats``; where each family keeps its blocks and
which activation it uses is in ``oracle.core.families`` (Hugging Face names, GGUF architectures,
ONNX graphs).

The block analysed is the skip-connected MLP x -> x + B(x) (layer norms and attention are
outside it).  Tensors are loaded one block at a time, within the memory budget planned from the
headers.  For a quantized GGUF block the weights are the values ``gguf.quants.dequantize``
gives, and the verdict is about those dequantized weights; the report says so.
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
from oracle.core.formats import open_checkpoint
from oracle.core.io import reuse_freed_memory
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
    reuse_freed_memory()
    ck = open_checkpoint(path)
    specs = families.find_blocks(ck)
    out_blocks = []
    t0 = time.perf_counter()
    for k, spec in enumerate(specs, 1):
        act, act_src = families.spec_activation(ck, spec)
        progress(f"[{k}/{len(specs)}] {spec['prefix'] or '<root>'} ({spec['family']}, {act}) "
                 f"{time.perf_counter() - t0:.1f}s")
        entry: dict[str, Any] = {"block": spec["prefix"], "family": spec["family"],
                                 "tensors": spec["tensors"], "activation": act,
                                 "activation_source": act_src}
        for k2 in ("skip_in_graph", "nodes"):
            if k2 in spec:
                entry[k2] = spec[k2]
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
    return {"checkpoint": str(path), "format": ck.format, "files": [str(f) for f in ck.files],
            "tensors": len(ck.names()),
            "blocks": out_blocks, "summary": {"mlp_blocks": len(out_blocks), "verdicts": counts},
            "note": "each block is taken as x -> x + MLP(x) with M = I; layer norms, attention "
                    "and the order of normalisation (pre-/post-LN) are outside the analysis",
            "seconds": round(time.perf_counter() - t0, 2)}


def _scan_one(ck: Any, spec: dict[str, Any], act: str, entry: dict[str, Any],
              distances: bool) -> None:
    """Load, decide and measure one block, filling its report entry (ck: any reader that
    oracle.core.formats.open_checkpoint returns; they share one interface)."""
    entry["dtype"] = families.block_dtype(ck, spec)
    quantized = sorted({ck.dtype(n) for n in spec["tensors"].values()} - _FLOAT_STORAGE)
    if quantized:
        entry["quantized_types"] = quantized
        entry["quantization"] = (f"{'/'.join(quantized)} weights dequantized by gguf.quants.dequantize "
                                 "(float32, widened exactly); the verdict is about the dequantized weights")
    block = families.load_block(ck, spec, act)
    entry.update({"d": block.d, "m": block.m,
                  "biases_present": sorted(spec["biases"]),
                  "biases_nonzero": [n for n in ("b_up", "b_gate", "b_down")
                                     if getattr(block, n) is not None and np.any(getattr(block, n) != 0)]})
    entry.update(_judge(block, entry))
    if distances and not block.gated and block.act.odd_part_identity:
        entry["bias_free_distance"] = _distance(
            Block(block.activation, W_up=block.W_up, W_down=block.W_down))


def _unsupported(ck: Any, spec: dict[str, Any], act: str, src: str) -> dict[str, Any]:
    """An entry for a block whose activation is not in the catalog (shapes from the header only)."""
    d, m = families.block_dims(ck, spec)
    return {"d": d, "m": m, "dtype": families.block_dtype(ck, spec),
            "biases_present": sorted(spec["biases"]), "biases_nonzero": [],
            "verdict": "undecided", "claim": None, "exact": False,
            "reason": f"activation {act!r} ({src}) is not in the catalog (absorb activations lists it); "
                      "no claim applies", "certificate": {"kind": "unsupported_activation"}}


# stored types that hold the weights' numbers themselves (widened exactly); others are quantized
_FLOAT_STORAGE = {"float64", "float32", "float16", "bfloat16", "F64", "F32", "F16", "BF16"}


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
    print(f"checkpoint: {doc['checkpoint']} ({doc['format']}, {doc['tensors']} tensors, "
          f"{doc['summary']['mlp_blocks']} MLP blocks)")
    if not doc["blocks"]:
        print("no MLP blocks found (Hugging Face names: " + ", ".join(families.FAMILIES)
              + "; GGUF blk.N.ffn_*; ONNX MatMul -> activation -> MatMul)")
        return 0
    bw = max(22, min(40, max(len(e["block"]) for e in doc["blocks"])))
    fw = max(8, min(16, max(len(e["family"]) for e in doc["blocks"])))
    tw = max(7, min(18, max(len(e.get("dtype") or "-") for e in doc["blocks"])))
    print(f"{'block':<{bw}} {'family':<{fw}} {'d':>5} {'m':>6} {'activation':<10} {'dtype':<{tw}} "
          f"{'biases':<14} {'verdict':<15} note")
    for e in doc["blocks"]:
        b = ",".join(e["biases_nonzero"]) or "none"
        name = e["block"] if len(e["block"]) <= bw else ".." + e["block"][-(bw - 2):]
        dd, mm = ("-" if e["d"] is None else e["d"]), ("-" if e["m"] is None else e["m"])
        print(f"{name:<{bw}} {e['family']:<{fw}} {dd:>5} {mm:>6} {e['activation']:<10} "
              f"{e.get('dtype') or '-':<{tw}} {b:<14} {e['verdict']:<15} {_short(e)}")
        dist = e.get("bias_free_distance")
        if dist:
            lb = dist["certified_lower_bound_for_index_sets"]
            print(f"{'':<{bw}}   index condition: relaxed distance from W_S U_S = -I "
                  f"{dist['relaxed_distance_float64']:.4g} (float64 measurement; ||I||_F = "
                  f"{dist['norm_of_I']:.4g})" + (f", certified min_S ||W_S U_S + I||_F >= {lb:.4g}"
                                                  if lb else ""))
    for src in dict.fromkeys(e["activation_source"] for e in doc["blocks"]):
        n = sum(e["activation_source"] == src for e in doc["blocks"])
        print(f"activation ({n} block{'s' if n != 1 else ''}): {src}")
    quantized = sorted({q for e in doc["blocks"] for q in e.get("quantized_types", [])})
    if quantized:
        print(f"weights: {'/'.join(quantized)} tensors dequantized by gguf.quants.dequantize (float32, "
              "widened exactly); each verdict is about the dequantized weights")
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
