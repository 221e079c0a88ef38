"""``absorb scan CHECKPOINT``: find every MLP block of a model checkpoint and decide it.

Checkpoints: ``.safetensors`` (a file or a Hugging Face directory of shards), GGUF (llama.cpp),
ONNX and PyTorch state dicts (``.bin``/``.pt``, zip or legacy; restricted unpickling, never a
plain pickle).  The readers are in ``oracle.core.formats``; where each family keeps its blocks and
which activation it uses is in ``oracle.core.families`` (Hugging Face names, GGUF architectures,
ONNX graphs).

The block analysed is the skip-connected MLP x -> x + B(x) (layer norms and attention are
outside it).  Tensors are loaded one block at a time, within the memory budget planned from the
headers.  For a quantized GGUF block the weights are the values ``gguf.quants.dequantize``
gives; for a quantized ONNX graph, the values the graph computes from its integer initializers
(oracle/core/formats/onnx_const.py); the verdict is about those weights, and the report says so.

The scan itself (discovery, loading, decisions, the document) is oracle/decide/scan.py, which also
re-checks a scan document (``absorb recheck SCAN.json CHECKPOINT``); this module prints it.  Exit
status: 0 when every block found was decided, 2 when a file, block or linear layer could not be
read or was refused (one line on stderr), 3 when the checkpoint holds no MLP block.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

from oracle.commands.output import emit_json
from oracle.core import families
from oracle.core.errors import InputError
from oracle.core.formats import open_checkpoint
from oracle.decide import compile_safetensors
from oracle.decide.compile import check_compilable, compile_checkpoint, load_tokenizer, verify
from oracle.decide.scan import SCAN_FORMAT, scan

__all__ = ["SCAN_FORMAT", "run", "scan"]


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
    out = _emit_target(args)

    def progress(msg: str) -> None:
        print(f"absorb scan: {msg}", file=sys.stderr, flush=True)

    doc = scan(args.checkpoint, progress=progress)
    progress(f"done in {time.perf_counter() - t0:.1f}s")
    status = _scan_status(doc)
    if out is not None and status == 0:
        doc["compiled"] = _compile(args, out, progress)
        if not doc["compiled"]["written"]:
            v = doc["compiled"]["end_to_end"]
            wc = doc["compiled"].get("written_check")
            why = []
            if not v["within_tolerance"]:
                why.append(f"the compiled model differs from the original by {v['max_relative_difference']:.3g} "
                           f"(relative), more than {v['tolerance']:g}")
            if wc is not None and not wc["passed"]:
                why.append("the file read back does not hold the construction: " + "; ".join(wc["failures"]))
            print(f"absorb scan: error: {'; '.join(why)}; {out} is not written", file=sys.stderr)
            status = 1
    if args.json:
        emit_json(doc)
        return status
    print(f"checkpoint: {doc['checkpoint']} ({doc['format']}, {doc['tensors']} tensors, "
          f"{doc['summary']['mlp_blocks']} MLP blocks)")
    if doc["blocks"]:
        _table(doc)
    _skipped_lines(doc)
    if doc["blocks"]:
        print(f"summary: {doc['summary']['verdicts']}; {doc['note']}")
    if "compiled" in doc:
        _compiled_lines(doc["compiled"])
    return status


def _compile(args: argparse.Namespace, out: Path, progress: Any) -> dict[str, Any]:
    """Compile into a temporary file beside ``out``, check it end to end, and give it the name
    ``out`` only when the check passed; the temporary file is removed in every other case (a
    refusal, an error, an interruption, or a check above the tolerance), so no partial or
    unverified model is ever left on disk."""
    if _is_safetensors(args.checkpoint):
        return _compile_safetensors(args, out, progress)
    fd, name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        t1 = time.perf_counter()
        comp = compile_checkpoint(args.checkpoint, tmp, progress=progress)
        progress(f"compiled in {time.perf_counter() - t1:.1f}s; checking end to end")
        comp["end_to_end"] = v = verify(args.checkpoint, str(tmp), getattr(args, "tokenizer", None))
        passed = v["verified"] and v["within_tolerance"]
        if not v["verified"]:  # pragma: no cover - _emit_target requires onnxruntime
            raise InputError(f"the compiled model could not be checked end to end ({v['reason']}); not written")
        if passed:
            if out.exists():
                raise InputError(f"--emit {out} appeared while compiling; refusing to overwrite it")
            os.replace(tmp, out)
        comp.update({"output": str(out) if passed else None, "written": passed})
        if not passed:
            comp["not_written"] = (f"the end-to-end difference {v['max_relative_difference']:.3g} exceeds "
                                   f"{v['tolerance']:g}; the compiled file was deleted")
        return comp
    finally:
        tmp.unlink(missing_ok=True)


def _is_safetensors(path: str) -> bool:
    return open_checkpoint(path).format == "safetensors"


def _compile_safetensors(args: argparse.Namespace, out: Path, progress: Any) -> dict[str, Any]:
    """The safetensors path of ``_compile``: the checkpoint and its config.json are written to two
    temporary files beside ``out``, checked end to end with the numpy encoder, and renamed (the
    config first, then the checkpoint) only when the check passed; both temporary files are
    removed in every other case."""
    cfg_out = compile_safetensors.config_target(out)
    tmps = []
    for n in (out.name, cfg_out.name):
        fd, name = tempfile.mkstemp(prefix=f".{n}.", suffix=".partial", dir=out.parent)
        os.close(fd)
        tmps.append(Path(name))
    tmp, tmp_cfg = tmps
    renamed: list[Path] = []
    try:
        t1 = time.perf_counter()
        comp = compile_safetensors.compile_checkpoint(args.checkpoint, tmp, tmp_cfg, progress=progress)
        progress(f"compiled in {time.perf_counter() - t1:.1f}s; checking end to end (numpy encoder)")
        comp["end_to_end"] = v = compile_safetensors.verify(args.checkpoint, str(tmp), getattr(args, "tokenizer", None),
                                                            config=tmp_cfg)
        if not v["verified"]:
            raise InputError(f"the compiled checkpoint could not be checked end to end ({v['reason']}); not written")
        wc = comp["written_check"]
        passed = v["within_tolerance"] and wc["passed"]
        if passed:
            mask = os.umask(0)
            os.umask(mask)
            for t, final in ((tmp_cfg, cfg_out), (tmp, out)):
                os.chmod(t, 0o666 & ~mask)  # the permissions of an ordinary new file, not mkstemp's 0600
                if final.exists():
                    raise InputError(f"{final} appeared while compiling; refusing to overwrite it")
                os.replace(t, final)
                renamed.append(final)
        comp.update({"output": str(out) if passed else None, "config": str(cfg_out) if passed else None,
                     "written": passed})
        if not wc["passed"]:
            comp["not_written"] = ("the file read back does not hold the construction: " + wc["failures"][0]
                                   + (f" (and {len(wc['failures']) - 1} more)" if len(wc["failures"]) > 1 else "")
                                   + "; the compiled checkpoint and its config.json were deleted")
        elif not passed:
            comp["not_written"] = (f"the end-to-end difference {v['max_relative_difference']:.3g} (float32; float64 "
                                   f"{v['float64']['max_relative_difference']:.3g}) exceeds {v['tolerance']:g}; "
                                   "the compiled checkpoint and its config.json were deleted")
        return comp
    except BaseException:
        for f in renamed:  # a failure after a rename (the second one) leaves neither file
            f.unlink(missing_ok=True)
        raise
    finally:
        for t in tmps:
            t.unlink(missing_ok=True)


def _emit_target(args: argparse.Namespace) -> Optional[Path]:
    """The --emit path, refused before any work when it exists, is the input or sits in a
    missing folder."""
    if not getattr(args, "emit", None):
        if getattr(args, "tokenizer", None):
            raise InputError("--tokenizer needs --emit OUT (it feeds the end-to-end check of the compiled model)")
        return None
    out, src = Path(args.emit), Path(args.checkpoint)
    if out.exists():
        what = "is the input" if src.exists() and out.resolve() == src.resolve() else "exists"
        raise InputError(f"--emit {out} {what}; refusing to overwrite it")
    if not out.parent.is_dir():
        raise InputError(f"--emit {out}: the folder {out.parent} does not exist")
    if getattr(args, "tokenizer", None):
        if not Path(args.tokenizer).is_file():
            raise InputError(f"--tokenizer {args.tokenizer}: no such file")
        load_tokenizer(Path(args.tokenizer))  # refused now, not after the model is written
    if src.exists() and _is_safetensors(args.checkpoint):
        if out.suffix != ".safetensors":
            raise InputError(f"--emit {out}: a safetensors checkpoint is compiled into a .safetensors file "
                             "(safetensors in, safetensors out)")
        cfg = compile_safetensors.config_target(out)
        if cfg.exists():
            raise InputError(f"--emit {out}: {cfg} exists (the compiled checkpoint's config.json is written "
                             "there); refusing to overwrite it, choose another folder")
        compile_safetensors.check_compilable(args.checkpoint)  # refused before the scan
        return out
    try:
        import onnxruntime  # noqa: F401  (optional: the end-to-end check needs it)
    except ImportError:
        raise InputError("--emit needs onnxruntime (pip install onnxruntime): a compiled model is written only "
                         "after it matched the original end to end") from None
    if out.suffix != ".onnx":
        raise InputError(f"--emit {out}: an ONNX model is compiled into an ONNX file, whose name ends in .onnx "
                         "(the output keeps the input's format)")
    check_compilable(args.checkpoint)  # an architecture that cannot be compiled is refused before the scan
    return out


def _compiled_lines(c: dict[str, Any]) -> None:
    """The compiled model: one row per block (widths, construction, float32 rounding), sizes and the
    end-to-end measurement."""
    st = c.get("format") == "safetensors"
    removed = (f"{c['skips_removed']} MLP skips removed; config.json: absorb.mlp_skip = false, intermediate_sizes "
               f"{c['intermediate_sizes']}") if st else f"{c['skip_adds_removed']} skip Add nodes removed"
    if c["written"]:
        print(f"compiled: {c['output']} ({removed})" + (f" and {c['config']}" if st else ""))
    else:
        print(f"compiled: not written ({c['not_written']}); {removed}")
    if st:
        print(f"loaders: {c['loaders']}")
    bw = max(22, min(40, max(len(e["block"]) + 1 for e in c["blocks"])))
    print(f"{'block':<{bw}} {'m':>6} {'width':>6} {'added':>6} {'construction':<14} {'float32 storage':<30} "
          + ("" if st else "norm after skip"))
    for e in c["blocks"]:
        r = e["float32"]
        store = "exact" if r["exact_in_float32"] else \
            "rounded, max err " + f"{max(r['max_entry_error'].values()):.2g}"
        print(f"{e['block']:<{bw}} {e['width_before']:>6} {e['width_after']:>6} "
              f"{e['width_after'] - e['width_before']:>+6} {e['construction']:<14} "
              f"{store:<30} " + ("" if st else (e['norm_after_skip'] or '-')))
    for kind in dict.fromkeys(e["construction"] for e in c["blocks"]):
        first = next(e for e in c["blocks"] if e["construction"] == kind)
        print(f"{kind}: {first['why']}")
    wc = c.get("written_check")
    if wc is not None:
        print(f"written file read back: {wc['arrays_checked']} arrays of {wc['blocks_checked']} blocks "
              + ("equal the construction within the stated float32 bounds" if wc["passed"]
                 else "NOT within the stated float32 bounds: " + "; ".join(wc["failures"])))
    sb = c["size_bytes"]
    print(f"size: {sb['before']} -> {sb['after']} bytes (x{sb['ratio']})")
    v = c["end_to_end"]
    if not v["verified"]:
        print(f"end to end: not verified: {v['reason']}")
        return
    if st:
        print(f"end to end ({v['inputs']}): largest relative difference {v['max_relative_difference']:.3g} "
              f"(float32 numpy encoder; float64: {v['float64']['max_relative_difference']:.3g}; "
              + ", ".join(f"{o['output']}: {o['relative_difference']:.2g} (abs {o['max_abs_difference']:.2g})"
                          for o in v["outputs"]) + ")")
        if "fed" in v:
            f = v["fed"]
            print(f"end-to-end inputs: {f['distinct_ids']} distinct token ids of {f['vocabulary']}"
                  + (" (every id)" if f["every_id"] else "") + f", {f['sequences']} sequences, "
                  f"{f['padded_sequences']} padded; {v['covers']}")
        return
    print(f"end to end ({v['inputs']}): largest relative difference {v['max_relative_difference']:.3g} "
          f"(float32 measurement, onnxruntime {v['onnxruntime']}; "
          + ", ".join(f"{o['output']}: {o['relative_difference']:.2g}" for o in v["outputs"]
                      if "relative_difference" in o) + ")")


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


def _skipped_lines(doc: dict[str, Any], shown: int = 3, groups: int = 8) -> None:
    """The linear layers in no block, grouped by reason (refused ones first; a node named inside a
    reason does not split its group); the JSON document lists every layer."""
    sk = doc["skipped"]
    if not sk:
        return
    by: dict[tuple[bool, str], list[dict[str, Any]]] = {}
    for e in sk:
        by.setdefault((not e.get("refused"), re.sub(r" \(node [^)]*\)", "", e["reason"])), []).append(e)
    print(f"skipped {len(sk)} linear layer{'s' if len(sk) != 1 else ''} in no MLP block "
          f"({doc['summary']['refused_linear_layers']} refused):")
    ordered = sorted(by.items(), key=lambda kv: (kv[0][0], -len(kv[1])))
    for (not_refused, reason), es in ordered[:groups]:
        names = ", ".join(f"{x.get('node') or x['tensor']} {tuple(x['shape']) if x.get('shape') else ''}".rstrip()
                          for x in es[:shown])
        more = f" and {len(es) - shown} more" if len(es) > shown else ""
        print(f"  {'refused' if not not_refused else 'skipped'} {len(es)}: {names}{more}: {reason}")
    if len(ordered) > groups:
        print(f"  ... and {len(ordered) - groups} other reasons ({sum(len(es) for _, es in ordered[groups:])} "
              "layers; --json lists every layer)")


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
