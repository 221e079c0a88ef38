"""``absorb recheck CERT.json [FILE ...]``: re-verify a certificate from its document (and the weights).

Five kinds of document are read:

* ``absorb check --json`` of a block: the block file is given as FILE.  The one re-check of such
  a document, shared with the library, is :func:`oracle.decide.document.check_block_document`:
  the stated facts are recomputed from the weights, the certificate's evidence re-verified, and
  the verdict, claim and exactness must be the ones that evidence supports; a refusal names the
  field;
* ``absorb check --json`` of a stack (``"input": "stack"``): the certificate carries the stack,
  re-verified by :func:`oracle.decide.stacks.recheck_decision`; an undecided document without a
  claim states only what the procedures found, checked against the stack file given as FILE (the
  decision run again and compared field by field); the answer to the other bias question
  (``other_convention``) must carry a certificate that re-verifies
  (:func:`oracle.decide.stacks.check_other_answer`), and a one-block stack's holds line repeats
  what the block document's re-check names as not verified;
* ``absorb witness --json``: the two block files are FILE FILE, or the paths the document names;
  re-verified by :func:`oracle.decide.witness.recheck_witness`;
* ``absorb audit --json``: the bindings first (the SHA-256 of every proof source and pinned
  statement, the registry entries, absent Coq/Lean proofs, the seed and instance counts), every
  claim's sample certificate re-verified by the re-check its claim registered
  (``proofs/claims.toml``'s ``oracle`` field), then the audit run again from the document's seed
  and compared field by field (timings aside); a refusal names the field;
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
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import oracle.claims as claim_modules
from oracle.claims import base
from oracle.algebra.exact import block_from_json
from oracle.algebra.stacks import sweep
from oracle.core import io as bio
from oracle.core import stackfiles
from oracle.core.blocks import Block
from oracle.core.errors import InputError, RegistryError
from oracle.commands import audit as audit_cmd
from oracle.commands.output import json_safe, load_document
from oracle.decide.document import Refused, recheck_block_document, same
from oracle.formal import consistency
from oracle.decide.scan import recheck_scan
from oracle.decide.stacks import check_other_answer, decide_stack, recheck_decision, stack_convention
from oracle.decide.stack_witness import recheck_stack_witness
from oracle.decide.witness import recheck_witness


def kind_of(doc: dict[str, Any]) -> str:
    """'sweep', 'audit', 'scan', 'witness', 'stack' or 'block', from the document's keys."""
    fmt = doc.get("format")
    if isinstance(fmt, str) and fmt.startswith("depth-analytic-sweep"):
        if fmt != sweep.SWEEP_FORMAT:
            raise InputError(f"sweep format {fmt!r} is not the supported {sweep.SWEEP_FORMAT!r}")
        return "sweep"
    if isinstance(doc.get("claims"), list) and "counterexamples" in doc:
        return "audit"
    if "scan_format" in doc:
        return "scan"
    if doc.get("verdict") in ("agree", "differ") or (doc.get("verdict") == "undecided" and "residual" in doc
                                                     and "plain" in doc):
        return "witness"
    if doc.get("input") == "stack":
        return "stack"
    if "verdict" in doc and isinstance(doc.get("certificate"), dict):
        return "block"
    raise InputError("not a certificate document of absorb check, absorb witness or absorb audit "
                     "(no verdict and certificate, no claims)")


_VOLATILE = {"seconds", "run"}  # timings and the machine a run happened on: not facts about the claims


def _same_run(stated: Any, fresh: Any, field: str) -> None:
    """Refuse with the first field where a re-run differs (timings left out)."""
    if isinstance(stated, dict) and isinstance(fresh, dict):
        for k in sorted(set(stated) | set(fresh), key=str):
            if k in _VOLATILE:
                continue
            if k not in fresh:
                raise Refused(f"{field}.{k}", "is not in the re-run audit: a field the re-check cannot confirm")
            if k not in stated:
                raise Refused(f"{field}.{k}", "is missing")
            _same_run(stated[k], fresh[k], f"{field}.{k}")
        return
    if isinstance(stated, list) and isinstance(fresh, list) and len(stated) == len(fresh):
        for i, (a, b) in enumerate(zip(stated, fresh)):
            _same_run(a, b, f"{field}[{i}]")
        return
    if stated != fresh or type(stated) is not type(fresh):
        raise Refused(field, f"states {_short(stated)}, the re-run gives {_short(fresh)}")


def _short(x: Any) -> str:
    r = json.dumps(x, default=str)
    return r if len(r) <= 80 else r[:77] + "..."


def _rerun_json(x: Any) -> Any:
    return json.loads(json.dumps(json_safe(x), default=str, allow_nan=False))


def _audit_bindings(doc: dict[str, Any]) -> int:
    """The cheap bindings of an audit document: registry, absent proofs, seed and counts, sample
    certificates (each re-verified by its claim's registered re-check). Returns the sample count."""
    registry = {c["id"]: c for c in consistency.load_registry()}
    full = "seed" in doc or "coq" in doc or "sources" in doc
    if full:
        for key, typ in (("seed", int), ("instances_per_claim", int), ("quick", bool), ("sources", dict)):
            if type(doc.get(key)) is not typ:
                raise Refused(key, "is missing or not a " + typ.__name__ + " (an audit document binds it)")
        same(doc["sources"], audit_cmd.source_hashes(), "sources")
    if not isinstance(doc.get("ok"), bool) or not isinstance(doc.get("problems", []), list):
        raise Refused("ok", "is missing or not true or false")
    if doc["ok"] and doc.get("problems"):
        raise Refused("ok", "the document says ok and lists problems")
    n = 0
    for i, c in enumerate(doc["claims"]):
        where = f"claims[{i}]"
        if not isinstance(c, dict):
            raise Refused(where, "is not an object")
        cid, oracle = c.get("id"), c.get("oracle") or {}
        if cid not in registry:
            raise Refused(f"{where}.id", f"{cid!r} is not a claim of proofs/claims.toml")
        if "registry" in c:
            ref = c["registry"].get("oracle") if isinstance(c["registry"], dict) else None
            if not isinstance(ref, str) or not ref.startswith("oracle.claims.") or ":" not in ref:
                raise Refused(f"{where}.registry.oracle", f"{cid}: the oracle check {ref!r} is not one of "
                                                          "oracle.claims' registered checks")
            reg = _rerun_json(registry[cid])
            for k, v in c["registry"].items():
                same(v, reg.get(k), f"{where}.registry.{k}")
        for face in ("coq", "lean"):
            if face in c:
                names = consistency.registry_names(registry[cid].get(face))
                st = (c[face] or {}).get("status") if isinstance(c[face], dict) else None
                if (st == "absent") != (not names):
                    raise Refused(f"{where}.{face}.status", f"{cid}: states {st!r}, proofs/claims.toml "
                                  + ("registers no " if not names else "registers ") + f"{face.title()} proof")
        if full:
            if oracle.get("seed") != doc["seed"]:
                raise Refused(f"{where}.oracle.seed", f"states {oracle.get('seed')!r}, the audit's seed is {doc['seed']}")
            if oracle.get("requested") != doc["instances_per_claim"]:
                raise Refused("instances_per_claim", f"states {doc['instances_per_claim']!r}, the oracle run of "
                              f"{cid} ({where}.oracle.requested) asked for {oracle.get('requested')!r}")
        if oracle.get("status") == "pass" and "instances" in oracle and "requested" in oracle \
                and oracle["instances"] != oracle["requested"]:
            raise Refused(f"{where}.oracle.instances", f"states {oracle['instances']!r} for a passed run of "
                          f"{oracle['requested']!r} requested instances")
        if isinstance(oracle.get("sizes"), list) and type(oracle.get("instances")) is int \
                and len(oracle["sizes"]) != oracle["instances"] + int(oracle.get("top_up") or 0):
            raise Refused(f"{where}.oracle.instances", f"states {oracle['instances']!r} (+ {oracle.get('top_up') or 0} "
                          f"topped up), the run lists {len(oracle['sizes'])} checked instances")
        sample = oracle.get("sample")
        if sample is None:
            continue
        ref = (c.get("registry") or {}).get("oracle") or oracle.get("ref")
        # only this package's registered checks are ever used, whatever the document names
        if not isinstance(ref, str) or not ref.startswith("oracle.claims.") or ":" not in ref:
            raise Refused(f"{where}.oracle.ref", f"{cid}: the oracle check {ref!r} is not one of oracle.claims' "
                                                 "registered checks")
        try:
            info = claim_modules.resolve(ref).check_info
        except RegistryError:
            raise Refused(f"{where}.oracle.ref", f"{cid}: the oracle check {ref!r} is not a registered check") from None
        if info.claim != cid or sample.get("claim") != cid:
            raise Refused(f"{where}.oracle.sample.claim", f"{cid}: the sample certificate is for claim "
                                                          f"{sample.get('claim')!r}")
        if sample.get("holds") is not True:
            raise Refused(f"{where}.oracle.sample.holds", f"{cid}: the sample certificate does not say that the "
                                                          "claim holds")
        try:
            ok = bool(info.recheck(sample))
        except Exception as e:  # a malformed certificate is a certificate that does not hold
            ok, why = False, f" ({type(e).__name__})"
        else:
            why = ""
        if not ok:
            raise Refused(f"{where}.oracle.sample", f"{cid}: the sample certificate does not re-verify{why}")
        n += 1
    if n == 0:
        raise Refused("claims", "the audit document holds no certificates")
    return n


def _audit_rerun(doc: dict[str, Any]) -> str:
    """Re-run what the document reports and compare: the whole audit (same claims, seed and instance
    count; the Coq build reuses its cache) for an absorb audit document, else each claim's oracle run."""
    print("absorb recheck: re-running the audit from the document's seed to confirm every field "
          "(progress below)", file=sys.stderr, flush=True)
    if "seed" in doc:
        with tempfile.TemporaryDirectory() as tmp:
            # a document written with --coverage is re-run with the measurement on, so that its
            # branch_coverage field is confirmed like every other field (the same instances reach
            # the same branches)
            fresh = audit_cmd.audit(quick=doc["quick"], claims=doc.get("selected_claims"),
                                    instances=doc["instances_per_claim"], seed=doc["seed"],
                                    failures_dir=str(Path(tmp) / "failures"),
                                    branch_coverage="branch_coverage" in doc)
        fresh = _rerun_json(fresh)
        for k in doc:
            if k not in fresh and k not in _VOLATILE:
                raise Refused(k, "is not a field of an audit document: the re-check cannot confirm it")
        _same_run(doc, fresh, "document")
        return "every field re-runs identically (the audit re-run from seed " + str(doc["seed"]) + ")"
    # a document holding only the claims' oracle runs: each run again from its seed
    registry = {c["id"]: c for c in consistency.load_registry()}
    for i, c in enumerate(doc["claims"]):
        o = c.get("oracle") or {}
        if set(c) - {"id", "oracle", "registry"}:
            extra = sorted(set(c) - {"id", "oracle", "registry"})[0]
            raise Refused(f"claims[{i}].{extra}", "a partial audit document can confirm only id, oracle and "
                                                  "registry")
        _same_run(o, _rerun_json(_oracle_rerun(registry[c["id"]], o)), f"claims[{i}].oracle")
    if doc.get("counterexamples"):
        raise Refused("counterexamples", "a partial audit document's counterexamples are not re-run")
    extra = set(doc) - {"ok", "claims", "counterexamples", "problems"}
    if extra:
        raise Refused(sorted(extra)[0], "a partial audit document can confirm only ok, claims and problems")
    if doc["ok"] is not all((c.get("oracle") or {}).get("status") == "pass" for c in doc["claims"]):
        raise Refused("ok", "does not match the claims' re-run oracle checks")
    return "each claim's oracle run re-runs identically from its seed (a partial document: no proofs, sources or counterexamples)"


def _oracle_rerun(reg: dict[str, Any], o: dict[str, Any]) -> dict[str, Any]:
    """One claim's oracle run again, with the registered check, from the seed and count it states."""
    n, seed = o.get("requested"), o.get("seed")
    if type(n) is not int or type(seed) is not int or n < 1:
        raise Refused("oracle.requested", "a re-run needs the requested instance count and the seed")
    if "coverage" in o:  # as absorb audit runs it, with the declared sample ranges
        fresh = audit_cmd.oracle_face(reg, n, seed)
        fresh.pop("failing_object", None)
        return fresh
    res = base.run_check(claim_modules.resolve(reg["oracle"]), n, seed=seed)
    return {"status": "pass" if res.passed else "FAILED", "ref": reg["oracle"], **res.as_dict()}


def recheck_audit_document(doc: dict[str, Any], rerun: bool = True) -> tuple[bool, str]:
    """Verify an audit document: its bindings, every sample certificate, and (``rerun``) every other
    field by running the audit again from the document's seed."""
    try:
        n = _audit_bindings(doc)
        how = _audit_rerun(doc) if rerun else "the bindings only (no re-run)"
    except Refused as e:
        return False, str(e)
    except (KeyError, TypeError, ValueError) as e:
        return False, f"the audit document is malformed ({type(e).__name__})"
    return True, f"{n} claim certificates re-verify from the document alone; {how}"


def _read_block(path: str) -> Block:
    return bio.read_block(path)


def _recheck_audit(doc: dict[str, Any], files: list[str]) -> tuple[bool, str]:
    if files:
        raise InputError("an audit document needs no other file: absorb recheck AUDIT.json")
    return recheck_audit_document(doc)


def _recheck_stack(doc: dict[str, Any], files: list[str]) -> tuple[bool, str]:
    cert = doc.get("certificate")
    try:
        # an answer to the other bias question must carry a certificate that re-verifies (before the
        # re-run below, so that the refusal names the field)
        check_other_answer(doc)
    except Refused as e:
        return False, str(e)
    if doc.get("claim") is None and doc.get("verdict") == "undecided" and isinstance(cert, dict) \
            and "block_certificate" not in cert:
        # no claim, no verdict: what such a document states (the stack's summary, what the
        # procedures found) is checked against the stack file by running the decision again
        if len(files) != 1:
            raise InputError("an undecided stack document without a claim is checked against its stack file: "
                             "absorb recheck CERT.json STACK")
        stack = stackfiles.read_stack(files[0])
        stated = {k: v for k, v in doc.items() if k not in ("input", "plain_block")}
        # the document does not name the question it was asked (--replacing-biases): it holds when it
        # is exactly the decision of one of the questions; otherwise each question's first difference
        # is reported
        misses = []
        for question in ("auto", "allowed", "none"):
            try:
                _same_run(stated, _rerun_json(decide_stack(stack, question)), "document")
            except Refused as e:
                misses.append(f"--replacing-biases {question}: {e}")
                continue
            return True, (f"the undecided stack document (no claim) re-runs identically from the stack file "
                          f"(--replacing-biases {question})")
        return False, "the re-run of no question gives this document (" + "; ".join(misses) + ")"
    if files:
        raise InputError("a stack document with a claim carries its stack: absorb recheck CERT.json")
    held = "the stack decision re-verifies from its certificate"
    bc = cert.get("block_certificate") if isinstance(cert, dict) else None
    if isinstance(bc, dict) and "biases_none" not in doc:
        # a stack of one block: the block document's re-check (as recheck_decision runs it), keeping
        # what it names as not verified instead of a bare "re-verifies"
        try:
            block = block_from_json(cert["block"])
        except (KeyError, TypeError, ValueError, IndexError):
            return False, "certificate.block: is not a block the re-check can read"
        ok, why = recheck_block_document(block, {**{k: doc.get(k) for k in ("verdict", "claim", "exact")},
                                                 "certificate": bc})
        if not ok:
            return False, f"the stack decision does not re-verify from its certificate (one block: {why})"
        held += f" (one block: {why})"
    elif not recheck_decision(doc):
        return False, "the stack decision does not re-verify from its certificate"
    # the question the verdict answers follows from the verified verdict and claim; a one-block stack
    # states its block certificate's (verified above), decided or not (oracle/commands/check.py)
    want = bc.get("replacing_biases") if isinstance(bc, dict) else stack_convention(doc)
    if doc.get("replacing_biases", want) != want:
        return False, (f"replacing_biases: states {_short(doc.get('replacing_biases'))}, a {doc.get('verdict')} "
                       f"verdict of {doc.get('claim')} answers {_short(want)}")
    return True, held


def _recheck_witness(doc: dict[str, Any], files: list[str]) -> tuple[bool, str]:
    paths = files or [doc.get("residual"), doc.get("plain")]
    if len(paths) != 2 or not all(isinstance(x, str) for x in paths):
        raise InputError("a witness document needs the residual and the plain block files "
                         "(absorb recheck CERT.json RESIDUAL PLAIN)")
    if doc.get("input") == "stacks":   # absorb witness on two stack files (oracle/decide/stack_witness.py)
        ok = recheck_stack_witness(stackfiles.read_stack(paths[0]), stackfiles.read_stack(paths[1]), doc)
        return ok, (f"the {doc['verdict']!r} stack witness document re-verifies from the two stacks" if ok
                    else f"the {doc['verdict']!r} stack witness document does not re-verify from the two stacks")
    (R, lab_r), (P, lab_p) = bio.read_labelled_block(paths[0]), bio.read_labelled_block(paths[1])
    if "rounding_labels" in doc and doc["rounding_labels"] != bio.rounding_labels(lab_r, lab_p):
        return False, ("the document's rounding_labels are not the files' own 'rounded' / 'rounding_error' "
                       f"metadata (stated {doc['rounding_labels']!r}, files {bio.rounding_labels(lab_r, lab_p)!r})")
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
    "scan": recheck_scan,
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
