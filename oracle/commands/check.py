"""``absorb check FILE [--json] [--emit OUT [--min-width]]``: read a block file (or a stack file, see
docs/stacks.md), decide it with :func:`oracle.decide.decide` (or :func:`oracle.decide.stacks.decide_stack`),
print the verdict and write the replacing block when asked."""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path
from typing import Any, Optional

import numpy as np

from oracle.core.progress import quiet, stderr_progress
from oracle.decide.block import LARGE_BLOCK, Verdict, decide
from oracle.decide import min_width
from oracle.decide.document_fields import file_sha256
from oracle.core.errors import InputError
from oracle.core import io as bio
from oracle.core import stackfiles
from oracle.commands.output import emit_json, verdict_status
from oracle.core.blocks import Stack
from oracle.algebra.exact import block_to_json


def _search_line(s: dict[str, Any], proves_none: bool) -> Optional[str]:
    """One line on the index-set search certificate (never '> 0' for a bound that proves nothing)."""
    kind = s.get("kind")
    if kind == "linear":
        lb = s.get("lower_bound")
        if proves_none:
            return (f"certificate: linear functional Y (d x d) with lower bound {lb:.6g} (positive); "
                    f"min over S of ||W_S U_S + M||_F >= {s['distance_lower_bound']:.6g} ({s.get('check_method')})")
        shown = "none (overflow)" if lb is None or not math.isfinite(lb) else f"{lb:.6g}"
        return (f"certificate: none; the relaxation's linear functional Y gives the bound "
                f"{shown}, which is not positive, so it proves nothing ({s.get('check_method')})")
    if kind == "necessary_conditions":
        return f"certificate: necessary condition(s) violated: {', '.join(s.get('violated', []))}"
    if kind == "exhaustive":
        return f"certificate: exhaustive exact search over {s.get('nonzero_units')} nonzero units"
    if kind == "rank_identity":
        return f"certificate: {s.get('method')}"
    if kind == "compressed_01" and proves_none:
        if s.get("outcome") == "inconsistent":
            how = "the compressed system is inconsistent over the rationals"
        elif not s.get("free_variables"):
            how = "its single rational solution is no flip set"
        else:
            how = f"all 2^{s.get('free_variables')} 0/1 points of its solution space fail the full condition"
        return (f"certificate: no flip set of the units: the flip condition under {s.get('functionals')} fixed "
                f"integer functionals (exact rationals): {how}")
    return None


def _summary(v: Verdict, plain_path: Optional[str]) -> str:
    c = v.certificate
    b = c.get("block", {})
    lines = [f"verdict: {v.verdict}" + (" (exact)" if v.exact else " (not exact)"),
             f"block:   {b.get('activation')} d = {b.get('d')}, m = {b.get('m')}, "
             f"M = {b.get('M')}, biases: {', '.join(b.get('biases') or []) or 'none'}",
             f"claim:   {v.claim or '-'}" + (f" (also met: {', '.join(c['also_applies'])})"
                                            if c.get("also_applies") else ""),
             f"reason:  {v.reason}"]
    conv = c.get("replacing_biases")
    if conv:
        what = "WITH biases allowed" if conv == "allowed" else "WITHOUT biases"
        line = f"biases:  the question decided: a replacing block {what} (--replacing-biases {conv})"
        oc = c.get("other_convention")
        if oc:
            how = "the answer differs" if oc["verdict"] != v.verdict else "the same answer, by its own certificate"
            line += (f"; {'without' if conv == 'allowed' else 'with'} biases {how}: "
                     f"{oc['verdict']} ({'exact' if oc['exact'] else 'not exact'}, {oc['claim']})")
        lines.append(line)
    kind = c.get("kind")
    s = c.get("search", {})
    if c.get("S") is not None and (kind == "index_set" or v.verdict == "absorbable"):
        lines.append(f"S:       {c['S'][:40]}{' ...' if len(c['S']) > 40 else ''} (|S| = {len(c['S'])})")
    if kind == "relu_complete":
        lines.append(f"m*:      {c['m_star']} = {c['active_classes']} active kink hyperplanes + cost {c['cost']} "
                     f"({c['method']})")
    elif kind == "relu_complete_bounds":
        mid = (f"m* = {c['m_star']}" if c.get("m_star") is not None
               else f"{c.get('lower')} <= m* <= {c.get('upper')}")
        lines.append(f"m*:      {mid} ({c['active_classes']} active kink hyperplanes; index-set search over "
                     f"them: {s.get('method', 'skipped')})")
    line = None
    if kind == "no_index_set" or s.get("status") == "none":
        line = _search_line(s, proves_none=True)
    elif kind == "search_inconclusive" or s.get("status") == "unknown":
        line = _search_line(s, proves_none=False)
    if line:
        lines.append(line)
    dist = c.get("distance") or {}
    if dist.get("nearest_S") is not None:
        S = dist["nearest_S"]
        lines.append(f"nearest: S = {S[:20]}{' ...' if dist['nearest_size'] > 20 else ''} gives "
                     f"||W_S U_S + M||_F = {dist['residual_fro']:.3g} (exact; float64 rounding of the "
                     f"weights accounts for up to {dist['rounding_tolerance']:.3g})"
                     + ("; WITHIN ROUNDING: the stored weights are probably a rounded absorbable block"
                        if dist["within_rounding"] else ""))
    elif dist.get("lower_bound") is not None:
        what = "min over sign vectors of ||N_s||_F" if b.get("activation") == "relu" \
            else "every index set S has ||W_S U_S + M||_F"
        lines.append(f"nearest: {what} >= {dist['lower_bound']:.6g} (certified)")
    mw = c.get("minimal_width")
    if isinstance(mw, dict):
        if type(mw.get("value")) is int:
            head = f"{mw['value']} ({mw['active_classes']} active classes + cost {mw['cost']}; {mw['claim']})"
        elif mw.get("exists") is False:
            head = "none: no such block of any width"
        else:
            head = "not settled"
        lines.append(f"m*:      minimal width of a residual-free block equal to the block: {head} -- {mw['reason']}")
    w = c.get("absorption_width")
    if w:
        val = w.get("value")
        if val is not None:
            head = f"minimal absorption width {val}"
        elif w.get("at_least") is not None:
            head = f"between {w['at_least']} and {w['at_most']}"
        elif w.get("at_most"):
            head = f"at most {w['at_most']}"
        else:
            head = w.get("note", "unknown")
        lines.append("width:   " + head + (f" -- {w.get('reason')}" if w.get("reason") else ""))
    rec = c.get("emitted_block")
    if plain_path:
        if rec and not rec.get("exact", True):
            errs = ", ".join(f"{k} within {e:.3g}" for k, e in rec.get("max_entry_error", {}).items())
            lines.append(f"wrote:   {plain_path} (residual-free block, kind = plain; ROUNDED to float64: "
                         f"{errs or ', '.join(rec.get('rounded', []))} of the exact values)")
        else:
            lines.append(f"wrote:   {plain_path} (residual-free block, kind = plain; exact: equals the "
                         "residual block as a function)")
    return "\n".join(lines)


def _same_file(a: Path, b: Path) -> bool:
    """True when two paths name the same file (existing or not)."""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def check_output_path(source: Path, out: Path, option: str) -> None:
    """Refuse, before any work, an output path that cannot be written: the input file itself, an
    existing folder, or a file in a folder that does not exist (InputError, exit 2)."""
    if _same_file(source, out):
        raise InputError(f"{option} {out} is the input file; refusing to overwrite it")
    if out.is_dir():
        raise InputError(f"{option} {out} is a folder; give a file name")
    parent = out.parent
    if not parent.is_dir():
        raise InputError(f"{option} {out}: the folder {parent} does not exist")


def _write_emitted(v: Verdict, out: str, default_fmt: str) -> str:
    """Write the replacing block, with its rounding record in the metadata; re-read and compare."""

    rec = v.certificate.get("emitted_block") or {}
    rounded = ",".join(rec.get("rounded", [])) or None
    bound = "; ".join(f"{k}: |entry - exact value| <= {e!r}" for k, e in rec.get("max_entry_error", {}).items())
    bio.write_block(v.plain, out, bio.format_for_output(out, default_fmt), rounded=rounded,
                    rounding_error=bound or None)
    # re-read what was written and confirm it is the constructed block bit for bit
    back = bio.read_block(out)
    for name in ("W_up", "W_down", "W_gate", "b_up", "b_gate", "b_down"):
        a, b = getattr(back, name), getattr(v.plain, name)
        if (a is None) != (b is None) or (a is not None and not np.array_equal(a, b)):
            raise InputError(f"{out}: re-read block differs in {name}")  # pragma: no cover
    return str(out)


def run(args: argparse.Namespace) -> int:
    """``absorb check FILE [--json] [--emit OUT]``: a block file, or a stack file (docs/stacks.md)."""

    path = Path(args.file)
    fmt = bio.detect_format(path)
    if getattr(args, "emit", None):
        check_output_path(path, Path(args.emit), "--emit")
    if stackfiles.is_stack_file(path):
        return _run_stack(args, path, fmt)
    block = bio.read_block(path)
    progress = stderr_progress() if block.m * block.d >= LARGE_BLOCK else quiet
    v = decide(block, progress=progress, replacing_biases=getattr(args, "replacing_biases", "auto"))
    written = None
    if getattr(args, "min_width", False):
        if not getattr(args, "emit", None):
            raise InputError("--min-width needs --emit OUT (the file to write the minimal-width block to)")
        written = _write_min_width(v, block, args.emit, fmt)
    elif getattr(args, "emit", None):
        if v.plain is None:
            why = (v.certificate.get("emitted_block") or {}).get("reason")
            print(f"absorb check: nothing emitted: verdict is {v.verdict}"
                  + (f"; {why}" if why and v.verdict == "absorbable" else ""), file=sys.stderr)
        else:
            written = _write_emitted(v, args.emit, fmt)
    if args.json:
        doc = v.as_dict(None if getattr(args, "min_width", False) else written)
        if getattr(args, "min_width", False) and written:
            doc["min_width_block"] = written
        if written:
            # the file is bound to the document: absorb recheck compares its hash and contents
            key = "min_width_block" if getattr(args, "min_width", False) else "plain_block"
            doc[f"{key}_sha256"] = file_sha256(written)
        emit_json(doc)
    else:
        print(_summary(v, written))
    return verdict_status(v.verdict, getattr(args, "exit_code", False))


def _write_min_width(v: Verdict, block: Any, out: str, fmt: str) -> Optional[str]:
    """Write the construction of width exactly m* (relu-complete / gelu-complete); None with a
    message on stderr when the minimal width is not settled or is 0."""
    st = v.certificate.get("minimal_width")
    if not isinstance(st, dict) or type(st.get("value")) is not int:
        why = st.get("reason") if isinstance(st, dict) else "no minimal-width claim applies to this block"
        print(f"absorb check: nothing emitted: the minimal width is not settled ({why})", file=sys.stderr)
        return None
    if st["value"] == 0:
        print("absorb check: nothing emitted: m* = 0, F is the constant b_down and a block file needs a unit",
              file=sys.stderr)
        return None
    plain, rec = min_width.plain_block(block, st)
    bound = "; ".join(f"{k}: |entry - exact value| <= {e!r}" for k, e in rec.get("max_entry_error", {}).items())
    bio.write_block(plain, out, bio.format_for_output(out, fmt), rounded=",".join(rec["rounded"]) or None,
                    rounding_error=bound or None)
    back = bio.read_block(out)
    if back.m != st["value"] or not np.array_equal(back.W_up, plain.W_up) or not np.array_equal(back.W_down, plain.W_down):
        raise InputError(f"{out}: re-read block differs from the minimal-width block")  # pragma: no cover
    print(f"absorb check: wrote {out}: residual-free block of width m* = {st['value']} ({st['claim']}); "
          + ("exact: " + rec["check"] if rec["exact"] else "ROUNDED: " + ", ".join(rec["rounded"])
             + " hold float64 roundings of the exact construction"), file=sys.stderr)
    return str(out)


def _run_stack(args: argparse.Namespace, path: Path, fmt: str) -> int:
    """``absorb check`` on a stack file: decide_stack, or the block decision for a one-block stack."""

    # lazy: only stack files need the stack decision, whose claim modules pull hypothesis
    from oracle.decide import stacks

    st = stackfiles.read_stack(path)
    if stackfiles.stack_kind(st) != "residual_stack":
        raise InputError(f"{path}: kind = plain_stack has no skips to absorb; check needs a residual_stack")
    plain_stack: Optional[Stack] = None
    if len(st.blocks) == 1:
        # the block decision, so that an absorbable verdict can emit its (possibly biased) block

        b = st.blocks[0]
        v = decide(b, progress=stderr_progress() if b.m * b.d >= LARGE_BLOCK else quiet,
                   replacing_biases=getattr(args, "replacing_biases", "auto"))
        res = {"verdict": v.verdict, "claim": v.claim, "exact": v.exact, "reason": "one block: " + v.reason,
               "certificate": {"activation": b.activation, "d": b.d, "layers": 1, "widths": [b.m],
                               "block": block_to_json(b), "block_certificate": v.certificate},
               "replacing_biases": v.certificate.get("replacing_biases")}
        if v.plain is not None:
            plain_stack = Stack([v.plain])
    else:
        res = stacks.decide_stack(st, replacing_biases=getattr(args, "replacing_biases", "auto"))
        if getattr(args, "emit", None) and res["verdict"] == "absorbable" and "plain_stack" in res:
            # built only to be written: the document states the plain stack in exact rationals, which
            # a float64 file can hold only when they are dyadic (otherwise plain_stack_from_result
            # refuses the --emit, naming why)
            try:
                plain_stack = stacks.plain_stack_from_result(res, st.blocks[0].activation)
            except InputError as e:
                raise InputError(f"--emit {args.emit}: {e}; the verdict and the exact plain stack are in the "
                                 "document without --emit") from None
    written = None
    if getattr(args, "emit", None):
        if plain_stack is None:
            print(f"absorb check: nothing emitted: verdict is {res['verdict']}", file=sys.stderr)
        else:
            out = Path(args.emit)
            stackfiles.write_stack(plain_stack, out, bio_format(out, fmt))
            back = stackfiles.read_stack(out)
            for a, b in zip(back.blocks, plain_stack.blocks):
                for name in ("W_up", "W_down", "b_up", "b_down"):
                    x, y = getattr(a, name), getattr(b, name)
                    if (x is None) != (y is None) or (x is not None and not np.array_equal(x, y)):
                        raise InputError(f"{out}: re-read stack differs in {name}")  # pragma: no cover
            written = str(out)
    if args.json:
        emit_json({**res, "input": "stack", **({"plain_block": written} if written else {})})
    else:
        print(stacks.format_decision(res))
        conv = res.get("replacing_biases")
        if conv and "block_certificate" not in res["certificate"]:
            print("biases:  the plain stacks this verdict is about: " + {
                "both": "with or without biases", "none": "bias-free", "allowed": "with biases allowed",
                "unstated": "not stated by the claim's statement"}.get(conv, conv))
        free = res.get("biases_none")
        if free:
            print(f"biases:  without biases the answer differs: {free['verdict']} ({free['claim']}, exact): "
                  f"{free['reason']}")
        line = _stack_certificate_line(res)
        if line:
            print(line)
        cert = res["certificate"]
        if "block_certificate" in cert:
            print(_summary(Verdict(res["verdict"], res["claim"], res["exact"], res["reason"],
                                   cert["block_certificate"]), None))
        if written:
            print(f"wrote:   {written} (plain stack, kind = plain_stack, {len(plain_stack.blocks)} blocks)")
    return verdict_status(res["verdict"], getattr(args, "exit_code", False))


def _stack_certificate_line(res: dict[str, Any]) -> Optional[str]:
    """One line on what a stack verdict's certificate holds (the JSON has all of it)."""
    c, claim = res["certificate"], res["claim"]
    if "block_certificate" in c:
        return None  # the block summary follows
    if claim == "depth-narrow" and "conditions" in c:
        k = c["conditions"]
        bounds = ", ".join(f"{p['bound_U_sq']} * {p['bound_W_sq']}" for p in k.get("pieces", [])
                           if p.get("method") == "norm")
        return (f"certificate: part ({k['part']}); every piece I + W_l D U_l invertible"
                + (f" (|U_l|_F^2 |W_l|_F^2 < 1, exact: {bounds})" if bounds else "")
                + (f"; nondegenerate {k['nondegenerate']}" if "nondegenerate" in k else "")
                + (f"; transversal kinks ({k['transversal']['checked']} checks)" if k.get("transversal") else ""))
    if claim == "depth-narrow":
        return f"certificate: part ({c.get('part')}); rigorous float64 norm bounds {c.get('norm_bounds_sq')}"
    if claim == "depth-d2":
        k = c["conditions"]
        return (f"certificate: homeomorphic blocks (norm bounds), nondegenerate {k['nondegenerate']}, "
                f"{k['kink_rays']} kink rays in general position, index sets per block: "
                + ", ".join(str(S) if S else "none" for S in k["index_sets"]))
    if claim == "depth-d1-biased" and c.get("d1_biased", {}).get("part") == "B0":
        k = c["d1_biased"]
        return (f"certificate: part (B0), bias-free plain stacks of widths {k['plain_widths']}: F(0) = {k['F_at_0']}, "
                f"kinks away from 0 {k['kinks_away_from_0']}, (F(1), F(-1)) = {tuple(k['pair'])}, class '{k['class']}'")
    if claim in ("depth-d1", "depth-d1-biased") and "d1_biased" in c:
        k = c["d1_biased"]
        return (f"certificate: F piecewise linear, {k['kinks']} kinks, end slopes {k['end_slopes']}, slopes "
                f"{k['slopes']}; widths {k['plain_widths']} have at most {k['kink_bound']} kinks"
                + (f"; part {k['part']}" if k.get("part") else ""))
    if claim == "depth-dead-block":
        n = len(c["dead"]["regions"])
        empty = sum("empty" in r for r in c["dead"]["regions"])
        return (f"certificate: Farkas multipliers on {n - empty} activation regions of block 1 and {empty} "
                f"emptiness certificates; part ({c['part']})"
                + (f": interior point {c['invertible_piece']['point']}, det {c['invertible_piece']['det']}"
                   if c["part"] == "c" else f": block 1 by {c['block_1_verdict']['claim']}, second layer "
                   f"of {c['P2']['width_needed']} units"))
    if claim == "depth-d1":
        k = c["d1"]
        return (f"certificate: F(1) = {k['pair'][0]}, F(-1) = {k['pair'][1]}; widths {k['plain_widths']} "
                f"reach the class '{k['class']}' of pairs (axes: F(1) F(-1) = 0; closed_quadrants: >= 0; all)")
    if claim == "depth-near-identity":
        k = c["conditions"]
        return (f"certificate: norm bounds |U_l|^2 |W_l|^2 < 1 (exact), nondegenerate, (G1) and (G2) over all "
                f"2^{k['widths'][0]} layer-1 patterns, bend edges per layer-1 unit {k['k']} (exact bend points), "
                "index sets per block: " + ", ".join(str(S) if S else "none" for S in k["index_sets"]))
    if claim == "relu-gelu-iff" and res["verdict"] == "absorbable":
        return f"certificate: index sets with W_S U_S = -M_l exactly, per block: {c['chosen_sets']}"
    if claim in ("depth-impossible", "depth-any"):
        return f"certificate: every block flat at 0; skip product M_L ... M_1 = {c['skip_product']} != 0"
    return None


def bio_format(out: Path, default: str) -> str:
    """The output format of an emitted file: its extension, else the input's format."""

    return bio.format_for_output(out, default)
