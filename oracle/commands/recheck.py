"""``absorb recheck CERT.json [FILE ...]``: re-verify a certificate from its document (and the weights).

Five kinds of document are read:

* ``absorb check --json`` of a block: the block file is given as FILE.  The one re-check of such
  a document, shared with the library, is :func:`oracle.decide.document.check_block_document`:
  the stated facts are recomputed from the weights, the certificate's evidence re-verified, and
  the verdict, claim and exactness must be the ones that evidence supports; a refusal names the
  field;
* ``absorb check --json`` of a stack (``"input": "stack"``): the certificate carries the stack,
  re-verified by :func:`oracle.decide.stacks.recheck_decision`;
* ``absorb witness --json``: the two block files are FILE FILE, or the paths the document names;
  re-verified by :func:`oracle.decide.witness.recheck_witness`;
* ``absorb audit --json``: every claim's sample certificate is re-verified by the re-check its
  claim registered (``proofs/claims.toml``'s ``oracle`` field), from the certificate alone;
* the depth-analytic sweep (``proofs/certificates/depth-analytic-sweep.json``): the claimed range
  is covered exactly once and every entry's rank certificates are recomputed from the stored
  rational weights and points (:func:`oracle.algebra.stacks.sweep.recheck_sweep`; ``--every K``
  recomputes every K-th entry only, and says so), with progress on stderr.

Exit status 0 when the document holds, 1 when it does not (with the reason), 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

import oracle.claims as claim_modules
from oracle.algebra.stacks import sweep
from oracle.core import io as bio
from oracle.core.blocks import Block
from oracle.core.errors import InputError, RegistryError
from oracle.decide.document import recheck_block_document
from oracle.decide.stacks import recheck_decision
from oracle.decide.witness import recheck_witness

MAX_DOCUMENT_BYTES = 200_000_000

def load_document(path: str) -> dict[str, Any]:
    """A JSON document (strict: no NaN/Infinity, no duplicate keys), or InputError."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_DOCUMENT_BYTES:
            raise InputError(f"{p}: larger than {MAX_DOCUMENT_BYTES} bytes")
        text = p.read_text()
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{p}: cannot read: {' '.join(str(e).split())[:200]}") from None

    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    try:
        doc = json.loads(text, object_pairs_hook=bio.no_duplicate_keys, parse_constant=no_constant)
    except (ValueError, RecursionError) as e:
        raise InputError(f"{p}: not a JSON document: {' '.join(str(e).split())[:200]}") from None
    if not isinstance(doc, dict):
        raise InputError(f"{p}: the document is not a JSON object")
    return doc


def kind_of(doc: dict[str, Any]) -> str:
    """'sweep', 'audit', 'witness', 'stack' or 'block', from the document's keys."""
    fmt = doc.get("format")
    if isinstance(fmt, str) and fmt.startswith("depth-analytic-sweep"):
        if fmt != sweep.SWEEP_FORMAT:
            raise InputError(f"sweep format {fmt!r} is not the supported {sweep.SWEEP_FORMAT!r}")
        return "sweep"
    if isinstance(doc.get("claims"), list) and "counterexamples" in doc:
        return "audit"
    if doc.get("verdict") in ("agree", "differ") or (doc.get("verdict") == "undecided" and "residual" in doc
                                                     and "plain" in doc):
        return "witness"
    if doc.get("input") == "stack":
        return "stack"
    if "verdict" in doc and isinstance(doc.get("certificate"), dict):
        return "block"
    raise InputError("not a certificate document of absorb check, absorb witness or absorb audit "
                     "(no verdict and certificate, no claims)")


def recheck_audit_document(doc: dict[str, Any]) -> tuple[bool, str]:
    """Re-verify every claim's sample certificate in an audit document with its registered re-check."""
    n = 0
    for c in doc["claims"]:
        if not isinstance(c, dict):
            return False, "a claims entry is not an object"
        cid, oracle = c.get("id"), c.get("oracle") or {}
        sample = oracle.get("sample")
        if sample is None:
            continue
        ref = (c.get("registry") or {}).get("oracle") or oracle.get("ref")
        # only this package's registered checks are ever used, whatever the document names
        if not isinstance(ref, str) or not ref.startswith("oracle.claims.") or ":" not in ref:
            return False, f"{cid}: the oracle check {ref!r} is not one of oracle.claims' registered checks"
        try:
            info = claim_modules.resolve(ref).check_info
        except RegistryError:
            return False, f"{cid}: the oracle check {ref!r} is not a registered check"
        if info.claim != cid or sample.get("claim") != cid:
            return False, f"{cid}: the sample certificate is for claim {sample.get('claim')!r}"
        if sample.get("holds") is not True:
            return False, f"{cid}: the sample certificate does not say that the claim holds"
        try:
            ok = bool(info.recheck(sample))
        except Exception as e:  # a malformed certificate is a certificate that does not hold
            ok = False
            why = f"{type(e).__name__}"
        else:
            why = ""
        if not ok:
            return False, f"{cid}: the sample certificate does not re-verify" + (f" ({why})" if why else "")
        n += 1
    if n == 0:
        return False, "the audit document holds no certificates"
    return True, f"{n} claim certificates re-verify from the document alone"


def _read_block(path: str) -> Block:
    return bio.read_block(path)


def _recheck_audit(doc: dict[str, Any], files: list[str]) -> tuple[bool, str]:
    if files:
        raise InputError("an audit document needs no other file: absorb recheck AUDIT.json")
    return recheck_audit_document(doc)


def _recheck_stack(doc: dict[str, Any], files: list[str]) -> tuple[bool, str]:
    return (True, "the stack decision re-verifies from its certificate") if recheck_decision(doc) else (
        False, "the stack decision does not re-verify from its certificate")


def _recheck_witness(doc: dict[str, Any], files: list[str]) -> tuple[bool, str]:
    paths = files or [doc.get("residual"), doc.get("plain")]
    if len(paths) != 2 or not all(isinstance(x, str) for x in paths):
        raise InputError("a witness document needs the residual and the plain block files "
                         "(absorb recheck CERT.json RESIDUAL PLAIN)")
    R, P = _read_block(paths[0]), _read_block(paths[1])
    ok = recheck_witness(R, P, doc)
    if doc["verdict"] == "undecided":
        return ok, ("the 'undecided' document claims no verdict; its float64 difference re-measures from the two "
                    "blocks" if ok else "the 'undecided' document's float64 difference does not re-measure from the "
                    "two blocks (or its seed is missing)")
    return ok, (f"the {doc['verdict']!r} document re-verifies from the two blocks" if ok
                else f"the {doc['verdict']!r} document does not re-verify from the two blocks")


def _recheck_block(doc: dict[str, Any], files: list[str]) -> tuple[bool, str]:
    if len(files) != 1:
        raise InputError("a block document needs its block file: absorb recheck CERT.json FILE")
    return recheck_block_document(_read_block(files[0]), doc)


# document kind (kind_of) -> its re-check: (document, weight files) -> (holds, reason).  The sweep
# has its own entry in run (progress and --every); a new kind of document adds one entry here.
RECHECKS: dict[str, Callable[[dict[str, Any], list[str]], tuple[bool, str]]] = {
    "audit": _recheck_audit, "stack": _recheck_stack, "witness": _recheck_witness, "block": _recheck_block,
}


def recheck(doc: dict[str, Any], files: list[str]) -> tuple[bool, str]:
    """(holds, reason) for a document of absorb check / witness / audit and the weight files."""
    kind = kind_of(doc)
    if kind not in RECHECKS:
        raise InputError(f"a {kind} document is re-checked by absorb recheck {kind.upper()}.json alone")
    return RECHECKS[kind](doc, files)


def recheck_sweep_document(doc: dict[str, Any], every: int = 1, quiet: bool = False) -> dict[str, Any]:
    """Re-check a depth-analytic sweep document, with a progress line on stderr every 10 s."""
    start = time.perf_counter()
    last = [start]

    def progress(done: int, total: int, entry: dict[str, Any]) -> None:
        now = time.perf_counter()
        if not quiet and (now - last[0] >= 10 or done == total):
            last[0] = now
            print(f"absorb recheck: {done}/{total} entries recomputed (last d = {entry['d']}, widths "
                  f"{tuple(entry['widths'])}), {now - start:.0f} s", file=sys.stderr, flush=True)

    res = sweep.recheck_sweep(doc, every=every, progress=progress)
    res["seconds"] = round(time.perf_counter() - start, 1)
    return res


def run(args: argparse.Namespace) -> int:
    """``absorb recheck CERT.json [FILE ...] [--every K] [--json]``."""
    doc = load_document(args.certificate)
    every = getattr(args, "every", None)
    kind = kind_of(doc)
    if every is not None and kind != "sweep":
        raise InputError("--every applies to a depth-analytic sweep document only")
    if every is not None and every < 1:
        raise InputError(f"--every must be a positive integer, not {every}")
    extra: dict[str, Any] = {}
    if kind == "sweep":
        if args.files:
            raise InputError("a sweep document needs no other file: absorb recheck SWEEP.json")
        res = recheck_sweep_document(doc, every or 1)
        ok, why = res["holds"], res["reason"]
        if ok:
            why += f" (largest radius/|mid| {res['worst_ratio']:.3g}, {res['worst_entry']}; {res['seconds']} s)"
        extra = {k: v for k, v in res.items() if k not in ("holds", "reason")}
    else:
        ok, why = recheck(doc, list(args.files))
    if getattr(args, "json", False):
        print(json.dumps({"holds": ok, "kind": kind, "reason": why, **extra}))
    else:
        print(f"{'holds' if ok else 'does not hold'}: {why}")
    return 0 if ok else 1
