"""``absorb recheck CERT.json [FILE ...]``: re-verify a certificate from its document (and the weights).

Four kinds of document are read:

* ``absorb check --json`` of a block: the block file is given as FILE.  The certificate must
  re-verify from the weights (:func:`oracle.decide.recheck_certificate`), its block summary must
  be this block's, and the verdict, claim and exactness the document states must be the ones the
  certificate supports (a tampered verdict on a sound certificate is refused too);
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
from typing import Any, Optional

import numpy as np

import oracle.claims as claim_modules
from oracle.algebra.stacks import sweep
from oracle.core import io as bio
from oracle.core.blocks import Block, nondegeneracy
from oracle.core.errors import InputError, RegistryError
from oracle.decide.block import NECESSITY_PROVED, invertibility, recheck_certificate
from oracle.decide.scan import recheck_scan
from oracle.decide.stacks import recheck_decision
from oracle.decide.witness import recheck_witness

MAX_DOCUMENT_BYTES = 200_000_000

# certificate kind -> the claims a verdict resting on it may name
_CLAIMS = {"zero_skip": {None}, "homogeneous": {"homogeneous-impossible"}, "gated_zero": {"gated-impossible"},
           "index_set": {"relu-gelu-iff", "glu-flip"}, "no_index_set": {"relu-gelu-iff", "glu-flip"},
           "search_inconclusive": {"relu-gelu-iff", "glu-flip"},
           "hypothesis_failed": {"homogeneous-impossible", "gated-impossible"},
           "unsupported": {None}, "relu_complete": {"relu-complete"}, "relu_complete_bounds": {"relu-complete"},
           "relu_limit": {"relu-limit"}, "convention_not_decided": {None}}


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
    if "scan_format" in doc:
        return "scan"
    if doc.get("verdict") in ("agree", "differ"):
        return "witness"
    if doc.get("input") == "stack":
        return "stack"
    if "verdict" in doc and isinstance(doc.get("certificate"), dict):
        return "block"
    raise InputError("not a certificate document of absorb check, absorb witness or absorb audit "
                     "(no verdict and certificate, no claims)")


def _expected(block: Block, cert: dict[str, Any]) -> Optional[str]:
    """The verdict a certificate of this kind supports for this block (None: kind unknown)."""
    kind = cert.get("kind")
    if kind in ("zero_skip", "index_set"):
        return "absorbable"
    if kind == "homogeneous":
        return "not_absorbable" if cert.get("activation_properties_verified") else "undecided"
    if kind == "gated_zero":
        return "not_absorbable" if cert.get("activation_properties_verified") else "undecided"
    if kind in ("hypothesis_failed", "search_inconclusive", "unsupported", "convention_not_decided"):
        return "undecided"
    if kind == "no_index_set":
        M = block.M
        blocked = (any(getattr(block, n) is not None and np.any(getattr(block, n) != 0)
                       for n in ("b_up", "b_gate", "b_down"))
                   or block.activation not in NECESSITY_PROVED or block.d < 2
                   or not nondegeneracy(block.W_up, block.W_down).ok
                   or (M is not None and invertibility(M)["invertible"] is not True))
        return "undecided" if blocked else "not_absorbable"
    if kind == "relu_complete":
        return "absorbable" if cert["m_star"] <= cert["width_asked"] else "not_absorbable"
    if kind == "relu_complete_bounds":
        if cert["lower"] > cert["width_asked"]:
            return "not_absorbable"
        return "absorbable" if cert["upper"] <= cert["width_asked"] else "undecided"
    if kind == "relu_limit":
        if "S" in cert:
            return "absorbable"
        s = cert.get("search", {})
        if s.get("status") == "none" and cert.get("nondegenerate", {}).get("nondegenerate"):
            return "not_absorbable"
        return "undecided"
    return None


def recheck_block_document(block: Block, doc: dict[str, Any]) -> tuple[bool, str]:
    """Whether a ``check --json`` document holds for this block, and why (or why not)."""
    cert = doc.get("certificate")
    if not isinstance(cert, dict):
        return False, "the document has no certificate"
    kind = cert.get("kind")
    info = cert.get("block") or (cert.get("hypotheses") or {}).get("block")
    if isinstance(info, dict):
        for key, mine in (("activation", block.activation), ("d", block.d), ("m", block.m)):
            if key in info and info[key] != mine:
                return False, (f"the certificate is about a block with {key} = {info[key]!r}, the file's "
                               f"block has {mine!r}")
    try:
        want = _expected(block, cert)
    except (KeyError, TypeError, ValueError):
        return False, f"the {kind!r} certificate is malformed"
    if want is None:
        return False, f"unknown certificate kind {kind!r}"
    if doc.get("verdict") != want:
        return False, f"the document says {doc.get('verdict')!r}, its {kind!r} certificate supports {want!r}"
    if doc.get("claim") not in _CLAIMS.get(kind, set()):
        return False, f"the document names claim {doc.get('claim')!r}; a {kind!r} certificate rests on " + \
            " or ".join(repr(c) for c in sorted(_CLAIMS[kind], key=str))
    if doc.get("exact") is True and want == "undecided":
        return False, "the document calls an undecided verdict exact"
    search = cert.get("search") if isinstance(cert.get("search"), dict) else {}
    if doc.get("exact") is True and kind in ("no_index_set", "relu_limit") and want == "not_absorbable" \
            and search.get("exact") is not True:
        return False, "the document calls the verdict exact, but its index-set search is not exact"
    if not recheck_certificate(block, cert):
        return False, f"the {kind!r} certificate does not re-verify from the weights"
    return True, f"the {kind!r} certificate re-verifies from the weights: {want} ({doc.get('claim')})"


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


def recheck(doc: dict[str, Any], files: list[str]) -> tuple[bool, str]:
    """(holds, reason) for a document of absorb check / witness / audit and the weight files."""
    kind = kind_of(doc)
    if kind == "audit":
        return recheck_audit_document(doc)
    if kind == "scan":
        return recheck_scan(doc, files)
    if kind == "stack":
        return (True, "the stack decision re-verifies from its certificate") if recheck_decision(doc) else (
            False, "the stack decision does not re-verify from its certificate")
    if kind == "witness":
        paths = files or [doc.get("residual"), doc.get("plain")]
        if len(paths) != 2 or not all(isinstance(x, str) for x in paths):
            raise InputError("a witness document needs the residual and the plain block files "
                             "(absorb recheck CERT.json RESIDUAL PLAIN)")
        R, P = _read_block(paths[0]), _read_block(paths[1])
        ok = recheck_witness(R, P, doc)
        return ok, (f"the {doc['verdict']!r} document re-verifies from the two blocks" if ok
                    else f"the {doc['verdict']!r} document does not re-verify from the two blocks")
    if len(files) != 1:
        raise InputError("a block document needs its block file: absorb recheck CERT.json FILE")
    return recheck_block_document(_read_block(files[0]), doc)


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
