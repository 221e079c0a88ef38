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
    """How far the bias-free weights are from the index condition (relaxation; float64 measurement),
    with the linear certificate Y of the lower bound and the relaxation's point z, so that a
    re-check recomputes both numbers from the document and the weights."""
    rel = search.relaxation_certificate(block.W_up, block.W_down, np.eye(block.d), max_iter=150,
                                        refine=True)
    out = {"relaxed_distance_float64": math.sqrt(max(rel["objective"], 0.0)),
           "note": "float64 measurement of ||W_down diag(z) W_up + I||_F at the relaxation's final point z in "
                   "[0,1]^m (an upper bound on the relaxed minimum, not a rigorous bound)",
           "certified_lower_bound_for_index_sets": rel["distance_lower_bound"] if rel["certified"] else None,
           "norm_of_I": math.sqrt(block.d), "iterations": rel["iterations"]}
    if rel["certified"]:
        out["certificate_Y"] = search.encode_matrix(rel["Y"])
    out["z"] = search.encode_matrix(np.asarray(rel["z"], dtype=np.float64))
    return out


SCAN_FORMAT = "absorb-scan-2"  # the document's layout; absorb recheck reads this layout only


def scan(path: str, progress: Callable[[str], None] = lambda s: None,
         distances: bool = True) -> dict[str, Any]:
    """Scan a checkpoint: one entry per MLP block with shapes, activation, biases and verdict, and
    every linear layer that is in no block, with the reason it was skipped."""
    reuse_freed_memory()
    ck = open_checkpoint(path)
    specs, skipped = families.discover(ck)
    out_blocks = []
    t0 = time.perf_counter()
    for k, spec in enumerate(specs, 1):
        act, act_src = families.spec_activation(ck, spec)
        progress(f"[{k}/{len(specs)}] {spec['prefix'] or '<root>'} ({spec['family']}, {act}) "
                 f"{time.perf_counter() - t0:.1f}s")
        entry = families.spec_entry(ck, spec, act, act_src)
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
    doc: dict[str, Any] = {
        "scan_format": SCAN_FORMAT, "checkpoint": str(path), "format": ck.format,
        "files": [str(f) for f in ck.files], "tensors": len(ck.names()),
        "inventory_sha256": families.inventory_digest(ck),
        "blocks": out_blocks, "skipped": skipped,
        "summary": {"mlp_blocks": len(out_blocks), "verdicts": counts,
                    "skipped_linear_layers": len(skipped),
                    "refused_linear_layers": sum(1 for e in skipped if e.get("refused")),
                    "guessed_blocks": sum(1 for e in out_blocks if e["discovery"]["guessed"])},
        "note": "each block is taken as x -> x + MLP(x) with M = I; layer norms, attention "
                "and the order of normalisation (pre-/post-LN) are outside the analysis",
        "seconds": round(time.perf_counter() - t0, 2)}
    shared = families.shared_layers(ck, len(out_blocks))
    if shared:
        doc["shared_layers"] = shared
    return doc


def _scan_one(ck: Any, spec: dict[str, Any], act: str, entry: dict[str, Any],
              distances: bool) -> None:
    """Load, decide and measure one block, filling its report entry (ck: any reader that
    oracle.core.formats.open_checkpoint returns; they share one interface)."""
    entry["dtype"] = families.block_dtype(ck, spec)
    block = families.load_block(ck, spec, act)
    entry.update(families.weights_note(ck, spec))
    entry.update({"d": block.d, "m": block.m, "weights_sha256": families.weights_digest(block),
                  "biases_present": sorted(spec["biases"]),
                  "biases_nonzero": families.nonzero_biases(block)})
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


def _judge(block: Block, entry: dict[str, Any]) -> dict[str, Any]:
    """The verdict of absorb check's decision procedure (oracle.decide.decide) for the real block,
    biases included: relu blocks by relu-complete, gelu-family blocks by relu-limit.  The whole
    certificate goes into the document (absorb recheck re-verifies it from the checkpoint)."""
    v = decide(block)
    return {"verdict": v.verdict, "claim": v.claim, "exact": v.exact, "reason": v.reason,
            "certificate": v.certificate}


def _short(e: dict[str, Any]) -> str:
    """The note column: exactness, claim and the certificate's method."""
    c = e.get("certificate") or {}
    s = c.get("search") or {}
    how = s.get("method") or c.get("kind") or ""
    if e["verdict"] == "error" or not e.get("claim"):
        return e["reason"][:90]
    return f"{'exact' if e['exact'] else 'not exact'}, {e['claim']} [{how}]"


def run(args: argparse.Namespace) -> int:
    """``absorb scan CHECKPOINT [--json]``: exit 0 when every MLP block found was read and decided,
    2 when the checkpoint or a block could not be read or a linear layer was refused (one line on
    stderr), 3 when the checkpoint was read but holds no MLP block (the skipped layers are listed)."""

    t0 = time.perf_counter()

    def progress(msg: str) -> None:
        print(f"absorb scan: {msg}", file=sys.stderr, flush=True)

    doc = scan(args.checkpoint, progress=progress)
    progress(f"done in {time.perf_counter() - t0:.1f}s")
    if args.json:
        emit_json(doc)
        return _scan_status(doc)
    print(f"checkpoint: {doc['checkpoint']} ({doc['format']}, {doc['tensors']} tensors, "
          f"{doc['summary']['mlp_blocks']} MLP blocks)")
    if doc["blocks"]:
        _table(doc)
    _skipped_lines(doc)
    if doc["blocks"]:
        print(f"summary: {doc['summary']['verdicts']}; {doc['note']}")
    return _scan_status(doc)


def _table(doc: dict[str, Any]) -> None:
    """One row per block, the distance lines, and where activations, weights and guesses came from."""
    bw = max(22, min(40, max(len(e["block"]) + 1 for e in doc["blocks"])))
    fw = max(8, min(16, max(len(e["family"]) for e in doc["blocks"])))
    tw = max(7, min(18, max(len(e.get("dtype") or "-") for e in doc["blocks"])))
    print(f"{'block':<{bw}} {'family':<{fw}} {'d':>5} {'m':>6} {'activation':<10} {'dtype':<{tw}} "
          f"{'biases':<14} {'verdict':<15} note")
    for e in doc["blocks"]:
        b = ",".join(e["biases_nonzero"]) or "none"
        label = e["block"] + ("*" if e["discovery"]["guessed"] else "")
        name = label if len(label) <= bw else ".." + label[-(bw - 2):]
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
    for rule in dict.fromkeys(e["discovery"]["rule"] for e in doc["blocks"]):
        n = sum(e["discovery"]["rule"] == rule for e in doc["blocks"])
        print(f"found ({n} block{'s' if n != 1 else ''}): {rule}")
    guesses: dict[str, list[str]] = {}
    for e in doc["blocks"]:
        for g in e["discovery"]["guessed"]:
            guesses.setdefault(g, []).append(e["block"] or "<root>")
    for g, blocks in guesses.items():
        where = ", ".join(blocks[:3]) + (f" and {len(blocks) - 3} more" if len(blocks) > 3 else "")
        print(f"guessed (* {len(blocks)} block{'s' if len(blocks) != 1 else ''}: {where}): {g}")
    notes = dict.fromkeys(e["quantization"] for e in doc["blocks"] if e.get("quantization"))
    for q in notes:
        es = [e for e in doc["blocks"] if e.get("quantization") == q]
        counts = [r for e in es for a in e.get("graph_arithmetic", []) for r in a.get("rounded", {}).values()]
        tally = (f" ({sum(r['rounded_entries'] for r in counts)} of {sum(r['entries'] for r in counts)} "
                 "entries rounded)") if counts else ""
        print(f"weights ({len(es)} block{'s' if len(es) != 1 else ''}): {q}{tally}")
    if doc.get("shared_layers"):
        print(f"shared layers: {doc['shared_layers']['note']} ({doc['shared_layers']['source']})")


def _skipped_lines(doc: dict[str, Any], shown: int = 3) -> None:
    """The linear layers in no block, grouped by reason (refused ones first)."""
    sk = doc["skipped"]
    if not sk:
        return
    by: dict[tuple[bool, str], list[dict[str, Any]]] = {}
    for e in sk:
        by.setdefault((not e.get("refused"), e["reason"]), []).append(e)
    print(f"skipped {len(sk)} linear layer{'s' if len(sk) != 1 else ''} in no MLP block "
          f"({doc['summary']['refused_linear_layers']} refused):")
    for (not_refused, reason), es in sorted(by.items(), key=lambda kv: (kv[0][0], -len(kv[1]))):
        names = ", ".join(f"{x.get('node') or x['tensor']} {tuple(x['shape']) if x.get('shape') else ''}".rstrip()
                          for x in es[:shown])
        more = f" and {len(es) - shown} more" if len(es) > shown else ""
        print(f"  {'refused' if not not_refused else 'skipped'} {len(es)}: {names}{more}: {reason}")


def _scan_status(doc: dict[str, Any]) -> int:
    """Exit status of a scan, with one line on stderr when it is not 0: 2 when a block could not be
    read or a linear layer was refused, 3 when no MLP block was found."""
    bad = [e for e in doc["blocks"] if e["verdict"] == "error"]
    refused = [e for e in doc["skipped"] if e.get("refused")]
    if bad:
        first = bad[0]
        print(f"absorb scan: error: {len(bad)} block(s) could not be analysed; first: "
              f"{first['block'] or '<root>'}: {first['error']}", file=sys.stderr)
        return 2
    if refused:
        first = refused[0]
        print(f"absorb scan: error: {len(refused)} linear layer(s) refused; first: "
              f"{first.get('node') or first['tensor']}: {first['reason']}", file=sys.stderr)
        return 2
    if not doc["blocks"]:
        print(f"absorb scan: error: no MLP block found in {doc['checkpoint']} ({doc['tensors']} tensors, "
              f"{len(doc['skipped'])} linear layers skipped, listed on stdout)", file=sys.stderr)
        return 3
    return 0
