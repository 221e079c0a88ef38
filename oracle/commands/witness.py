"""``absorb witness R P [--json]``: a certified input where two blocks differ, or the evidence that
they agree (the decision is oracle/decide/witness.py)."""

from __future__ import annotations

import argparse
import sys
import time

from oracle.commands.output import emit_json, verdict_status
from oracle.core import io as bio
from oracle.core import stackfiles
from oracle.decide.stack_witness import find_stack_witness
from oracle.decide.witness import find_witness

_PROGRESS = 100_000  # m * d (both blocks) from which progress goes to stderr


def run(args: argparse.Namespace) -> int:
    """``absorb witness R P [--json]``."""
    t0 = time.perf_counter()
    if stackfiles.is_stack_file(args.residual) and stackfiles.is_stack_file(args.plain):
        return _run_stacks(args)
    R, lab_r = bio.read_labelled_block(args.residual)
    P, lab_p = bio.read_labelled_block(args.plain)
    big = R.m * R.d + P.m * P.d >= _PROGRESS

    def progress(msg: str) -> None:
        if big:
            print(f"absorb witness: [{time.perf_counter() - t0:6.1f}s] {msg}", file=sys.stderr, flush=True)

    progress(f"read {args.residual} ({R.activation}, d = {R.d}, m = {R.m}) and {args.plain} "
             f"({P.activation}, m = {P.m})")
    doc = find_witness(R, P, progress=progress)
    progress(f"done: {doc['verdict']}")
    doc = {"residual": str(args.residual), "plain": str(args.plain), **doc}
    labels = bio.rounding_labels(lab_r, lab_p)
    if labels:
        doc["rounding_labels"] = labels
    status = verdict_status(doc["verdict"], getattr(args, "exit_code", False))
    if args.json:
        emit_json(doc)
        return status
    print(f"verdict: {doc['verdict']}" + (" (exact)" if doc["exact"] else " (not exact)"))
    for role, lab in labels.items():
        print(f"note:    the {role} file says it holds float64 roundings of exact values ({lab['rounded']}"
              + (f"; {lab['rounding_error']}" if lab.get("rounding_error") else "")
              + "): the verdict is about the stored floats, so a difference of rounding size is expected")
    if doc["verdict"] == "differ":
        if doc.get("point") is not None:
            pt = doc["point"]
            shown = ", ".join(pt[:6]) + (", ..." if len(pt) > 6 else "")
            if "point_nonzeros" in doc and len(pt) > 6:
                shown = "0 except " + ", ".join(f"x_{k} = {v}" for k, v in doc["point_nonzeros"].items())
            print(f"point:   x = ({shown})  [{doc['why_this_point']}]")
            print(f"output coordinate {doc['coordinate']}: R = {doc['R_value']}, P = {doc['P_value']}")
            print(f"method:  {doc['method']}")
        else:
            print(f"reason:  {doc['reason']}")
        if "canonical" in doc:
            print(f"forms:   {doc['canonical']['reason']}")
    elif doc["verdict"] == "agree":
        print(f"evidence: {doc['evidence']['detail']}")
        if "S" in doc["evidence"]:
            print(f"S = {doc['evidence']['S']}")
        if doc["evidence"].get("kind") == "canonical_forms":
            e = doc["evidence"]
            print(f"classes: {e['classes']} (units {e['units'][0]} + {e['units'][1]}), "
                  f"{e.get('classes_with_different_affine_share', 0)} with different affine shares; "
                  f"{e.get('affine_check')}; {e.get('seconds')}s")
    else:
        print(f"reason:  {doc['reason']} (float64 max difference "
              f"{doc['float64_max_difference_on_64_random_points']:.3g})")
    return status


def _run_stacks(args: argparse.Namespace) -> int:
    """``absorb witness R P`` on two stack files (oracle/decide/stack_witness.py)."""
    doc = find_stack_witness(stackfiles.read_stack(args.residual), stackfiles.read_stack(args.plain))
    doc = {"residual": str(args.residual), "plain": str(args.plain), **doc}
    status = verdict_status(doc["verdict"], getattr(args, "exit_code", False))
    if args.json:
        emit_json(doc)
        return status
    print(f"verdict: {doc['verdict']}" + (" (exact)" if doc["exact"] else " (not exact)"))
    if doc["verdict"] == "differ":
        print(f"point:   x = ({', '.join(doc['point'])})  [{doc['method']}]")
        print(f"output: R = ({', '.join(doc['R_value'])}), P = ({', '.join(doc['P_value'])})")
    elif doc["verdict"] == "agree":
        print(f"evidence: {doc['evidence']['detail']}")
    else:
        print(f"reason:  {doc['reason']}")
    return status
