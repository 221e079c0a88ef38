"""`absorb audit`: every claim's informal proof, Coq proof, Lean proof, oracle check
and boundary counterexamples, side by side. Needs no input."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Optional

import oracle.claims as claim_modules
from oracle.formal import consistency
from oracle.report import document as report
from oracle.claims import base, coverage
from oracle.core import io, stackfiles
from oracle.core.blocks import Block, Stack
from oracle.core import activations
from oracle.core.errors import InputError, RegistryError
from oracle.report import figures
from oracle.commands.output import Progress, emit_json, load_document

QUICK_INSTANCES = 20
FULL_INSTANCES = 100


def _progress(msg: str) -> None:
    """A progress line on stderr (library callers; the command passes its own Progress)."""
    print(f"[audit] {msg}", file=sys.stderr, flush=True)


def _coq_face(claim: dict[str, Any], proof: dict[str, Any]) -> dict[str, Any]:
    """The Coq column of one claim: its formal scope when everything checks, else why not."""
    names = consistency.registry_names(claim.get("coq"))
    if not names:
        return {"status": "absent", "detail": claim.get("coq_absent", "no reason given"), "names": []}
    pc = proof["claims"].get(claim["id"], {}).get("coq", {})
    base = {"names": names, "scope": pc.get("scope", ""), "scope_note": pc.get("scope_note", ""),
            "instance": pc.get("instance", []), "counterexamples": pc.get("counterexamples", {})}
    if pc.get("findings"):
        return {**base, "status": "FAILED", "detail": "; ".join(pc["findings"])}
    coq = proof["coq"]
    if coq["status"] == "skipped":
        return {**base, "status": "skipped", "detail": coq["detail"]}
    if coq["status"] != "compiled" or coq.get("general_findings"):
        return {**base, "status": "FAILED",
                "detail": "; ".join(coq.get("general_findings") or [coq["detail"]])}
    axioms = pc.get("axioms", [])
    scope = base["scope"] + (f" ({base['scope_note']})" if base["scope_note"] else "")
    return {**base, "status": "checked", "axioms": axioms,
            "detail": f"formal scope: {scope}. Compiled by coqc; statement as pinned in "
                      f"proofs/pinned/coq-statements.txt; instance {', '.join(base['instance'])} proved "
                      f"through the main theorem; Print Assumptions"
                      f"{'' if pc.get('axioms_attributed') else ' (all registered declarations together)'}: "
                      + (", ".join(a.rsplit('.', 1)[-1] for a in axioms) or "closed under the global context")}


def _lean_face(claim: dict[str, Any], proof: dict[str, Any]) -> dict[str, Any]:
    """The Lean column of one claim: written (never compiled here) with its scope, or why not."""
    names = consistency.registry_names(claim.get("lean"))
    if not names:
        return {"status": "absent", "detail": claim.get("lean_absent", "no reason given"), "names": []}
    pl = proof["claims"].get(claim["id"], {}).get("lean", {})
    base = {"names": names, "scope": pl.get("scope", ""), "scope_note": pl.get("scope_note", "")}
    if pl.get("findings"):
        return {**base, "status": "FAILED", "detail": "; ".join(pl["findings"])}
    scope = base["scope"] + (f" ({base['scope_note']})" if base["scope_note"] else "")
    return {**base, "status": "written",
            "detail": f"written, not compiled in this environment; formal scope: {scope}. Names resolved by "
                      "namespace and checked against lean/external-names.txt, binders, escape hatches and "
                      "the statement as pinned in proofs/pinned/lean-statements.txt checked"}


def oracle_face(claim: dict[str, Any], n: int, seed: int,
                progress: Callable[[str], None] = _progress) -> dict[str, Any]:
    ref = claim.get("oracle")
    if not ref:
        return {"status": "missing", "detail": "no oracle check registered"}
    try:
        fn = claim_modules.resolve(ref)
    except RegistryError as e:
        return {"status": "missing", "detail": str(e)}
    samples = claim.get("samples") if isinstance(claim.get("samples"), dict) and \
        not coverage.samples_findings(claim["samples"]) else None
    res = base.run_check(fn, n, seed=seed, samples=samples, progress=progress)
    out = {"status": "pass" if res.passed else "FAILED", "ref": ref, **res.as_dict()}
    out["failing_object"] = res.failing_instance
    out["coverage"] = _coverage(claim, res, samples)
    if res.passed and out["coverage"]["problems"]:
        out["status"] = "FAILED"
        out["failure"] = "coverage: " + "; ".join(out["coverage"]["problems"])
    return out


def _coverage(claim: dict[str, Any], res: base.RunResult, samples: Optional[dict[str, Any]]) -> dict[str, Any]:
    """Declared against drawn ranges of one claim; problems when a declared range was never drawn."""
    if samples is None:
        return {"declared": None, "summary": "-", "drawn": res.drawn, "problems":
                ["no well-formed 'samples' table in proofs/claims.toml"]}
    problems = []
    judged = res.requested >= base.COVERAGE_MIN
    if res.passed and judged:  # a failed run stopped early; its coverage says nothing
        miss = coverage.missing(samples, res.drawn)
        if miss:
            problems.append(f"declared ranges never drawn in {res.instances + res.top_up} instances "
                            f"(seed {res.seed}): {', '.join(miss)}")
        extra = coverage.outside(samples, res.drawn)
        if extra:
            problems.append(f"drawn outside the declared ranges: {', '.join(extra)} "
                            "(the registry understates the samples)")
    return {"declared": samples, "summary": coverage.describe(samples)
            + ("" if judged else f" (not judged: fewer than {base.COVERAGE_MIN} instances)"), "drawn": res.drawn,
            "reasons": claim.get("samples_reason") or {}, "problems": problems}


def _own_checkable(x: Any) -> Any:
    own = getattr(x, "as_checkable", None)
    if callable(own):
        return own()
    return x if isinstance(x, (Block, Stack)) else None


def failure_object(instance: Any) -> Any:
    """The block or stack of a generated instance that `absorb check` can read, or None."""
    return coverage.search_instance(instance, _own_checkable)


def write_failure(cid: str, oracle: dict[str, Any], outdir: Path, n: int) -> dict[str, Any]:
    """Write a failing instance as a block or stack file (and its certificate as JSON)."""
    f = oracle["failing"]
    seed, idx = oracle["seed"], f["index"]
    stem = outdir / f"{cid}-seed{seed}-instance{idx}"
    # the same seed and the same number of instances draw the same instances, in the same order
    # (hypothesis plans its generation by the number asked for, so keep --instances as it was)
    info = {"claim": cid, "seed": seed, "index": idx, "phase": f["phase"], "reason": f["reason"],
            "reproduce": f"absorb audit --claim {cid} --seed {seed} --instances {n}",
            "file": None, "certificate": oracle.get("failing_certificate")}
    obj = failure_object(oracle.get("failing_object"))
    outdir.mkdir(parents=True, exist_ok=True)
    if obj is not None:
        path = stem.with_suffix(".npz")
        try:
            if isinstance(obj, Stack):
                stackfiles.write_stack(obj, path)
            else:
                io.write_block(obj, path)
            info["file"] = str(path)
        except Exception as e:  # an unwritable instance is reported, never fatal
            info["file_error"] = f"{type(e).__name__}: {e}"
    else:
        info["file_error"] = "the instance holds no block or stack"
    stem.with_suffix(".json").write_text(json.dumps(info, indent=1, default=str))
    info["json"] = str(stem.with_suffix(".json"))
    return info


def _counterexamples(selected: set[str], known_ids: list[str]) -> tuple[list[dict[str, Any]], Optional[str]]:
    """Run the registered boundary counterexamples of the selected claims (and those naming no
    known claim, which the audit then reports)."""
    try:
        registered = claim_modules.load().counterexamples
    except RegistryError as e:
        return [], str(e)
    out = []
    for fn in registered:
        info: base.CounterexampleInfo = fn.counterexample_info  # type: ignore[attr-defined]
        if not (selected & set(info.claims) or not set(info.claims) & set(known_ids)):
            continue
        start = time.perf_counter()
        data = None
        try:
            cert = fn()
            ok, detail, exact = cert.holds, cert.reason, cert.exact
            method, data = cert.method, cert.data
        except Exception as e:  # a crashing counterexample is reported, not fatal
            ok, detail, exact, method = False, f"{type(e).__name__}: {e}", False, "-"
        out.append({"name": fn.__name__, "claims": list(info.claims), "dropped": info.dropped,
                    "description": info.description, "verified": ok, "exact": exact,
                    "method": method, "detail": detail,
                    "seconds": round(time.perf_counter() - start, 3),
                    # the concrete weights and points, for the report
                    "data": data})
    return out, None


# the proof sources and pinned statements an audit reads, relative to the checkout
SOURCE_GLOBS = ("proofs/claims.toml", "proofs/hypotheses.toml", "proofs/informal/*.md", "proofs/coq/**/*.v",
                "proofs/coq/_CoqProject", "proofs/pinned/*.txt", "lean/**/*.lean", "lean/external-names.txt")


def source_hashes(root: Path = consistency.ROOT) -> dict[str, Any]:
    """SHA-256 of every proof source and pinned statement (sorted paths relative to root)."""
    files: dict[str, str] = {}
    for pattern in SOURCE_GLOBS:
        for p in sorted(root.glob(pattern)):
            if p.is_file() and ".lake" not in p.parts:
                files[p.relative_to(root).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return {"algorithm": "sha256", "files": dict(sorted(files.items()))}


DEFAULT_SEED = 0  # fixed, so that two runs without --seed draw the same instances
FAILURES_DIR = "audit-failures"


def select_claims(registry: list[dict[str, Any]], wanted: Optional[list[str]]) -> list[dict[str, Any]]:
    """The claims named by --claim (comma-separated or repeated), in registry order; all when None."""
    if not wanted:
        return registry
    names = [w.strip() for item in wanted for w in item.split(",") if w.strip()]
    known = [c["id"] for c in registry]
    unknown = [w for w in names if w not in known]
    if unknown or not names:
        raise InputError(f"unknown claim {', '.join(unknown) or '(empty)'}; known: {', '.join(known)}")
    return [c for c in registry if c["id"] in names]


def audit(quick: bool = False, claims: Optional[list[str]] = None, instances: Optional[int] = None,
          seed: int = DEFAULT_SEED, failures_dir: str = FAILURES_DIR,
          progress: Optional[Progress] = None) -> dict[str, Any]:
    """Run everything and return the audit document (oracle/report/document.py renders it).

    ``claims`` restricts the oracle checks, boundary counterexamples and proof findings to
    those claims; ``instances`` overrides the number of generated instances per claim;
    ``seed`` fixes them (printed in the document). A failing instance is written to
    ``failures_dir`` as a block or stack file with its certificate.  ``progress`` receives the
    stages, steps and per-instance messages (default: every message as a line on stderr).
    """
    say = progress or Progress("audit", verbose=True)
    t0 = time.perf_counter()
    n = instances if instances is not None else (QUICK_INSTANCES if quick else FULL_INSTANCES)
    full_registry = consistency.load_registry()
    registry = select_claims(full_registry, claims)
    selected = {c["id"] for c in registry}
    known_ids = [c["id"] for c in full_registry]

    def concerns_selection(line: str) -> bool:
        # "claim-id: ..." lines of other claims are left out when --claim narrows the audit
        head = line.split(":", 1)[0]
        return head in selected or head not in known_ids

    # The proof check (static scans, the Coq build and its queries) runs in a thread that
    # mostly waits for coqc; start it first so it overlaps the oracle work.
    proof_box: dict[str, Any] = {}

    def proof_check() -> None:
        try:
            proof_box["p"] = consistency.check_all(attribute=True)
        except Exception as e:  # reported as a problem, never a traceback
            proof_box["error"] = f"{type(e).__name__}: {e}"

    coq_thread = threading.Thread(target=proof_check)
    say.stage("proof check in the background: registry, sources, Coq build, statements, assumptions")
    coq_thread.start()

    claims_out = []
    for i, c in enumerate(registry, 1):
        say.step(i - 1, len(registry), f"oracle check {i}/{len(registry)}: {c['id']} ({n} generated "
                 f"instances, seed {seed})", short="oracle checks")
        oracle = oracle_face(c, n, seed, say.detail)
        if oracle.get("failing"):
            oracle["failing"].update(write_failure(c["id"], oracle, Path(failures_dir), n))
        oracle.pop("failing_object", None)
        outcome = (f"{oracle['status']}"
                   + (f", {oracle.get('instances')} instances"
                      + (f" + {oracle['top_up']} to reach the declared ranges" if oracle.get("top_up") else "")
                      + f" in {oracle.get('seconds', 0):.1f}s" if "instances" in oracle
                      else f": {oracle.get('detail', '')}"))
        if oracle["status"] == "pass":
            say.detail("    " + outcome)
        else:
            say.important(f"{c['id']}: oracle check {outcome}")
        claims_out.append({"id": c["id"], "title": c["title"], "paper_ref": c["paper_ref"],
                           "statement": c["statement"], "hypotheses": c.get("hypotheses", []),
                           "informal": c.get("informal"), "oracle": oracle,
                           "registry": dict(c)})  # every registry field, for the report

    say.step(len(registry), len(registry), "oracle checks done")
    say.stage("boundary counterexamples")
    cexs, cex_problem = _counterexamples(selected, known_ids)
    for cx in cexs:
        if cx["verified"]:
            say.detail(f"    {cx['name']}: verified")
        else:
            say.important(f"counterexample {cx['name']}: NOT VERIFIED")

    say.stage("activation catalog: re-deriving every declared property")
    catalog = activations.catalog_report()

    say.stage("waiting for the proof check (Coq)")
    coq_thread.join()
    proof = proof_box.get("p") or {
        "ok": False, "findings": [f"-: proof check crashed: {proof_box.get('error')}"], "notes": [],
        "claims": {}, "pinned_diffs": {},
        "coq": {"status": "failed", "detail": str(proof_box.get("error")), "general_findings": []},
        "lean": {"status": "written, not compiled in this environment"}}
    findings = [f for f in proof["findings"] if concerns_selection(f)]
    coq_line = f"Coq: {proof['coq']['status']} ({proof['coq']['detail']})"
    if proof["coq"]["status"] == "compiled":
        say.detail("    " + coq_line)
    else:
        say.important(coq_line)

    for c, out in zip(registry, claims_out):
        out["informal_status"] = "missing" if any(
            f.startswith(c["id"] + ": informal proof") for f in findings) else "ok"
        out["coq"] = _coq_face(c, proof)
        out["lean"] = _lean_face(c, proof)
        out["boundary"] = [cx for cx in cexs if c["id"] in cx["claims"]]

    problems = list(findings)
    if cex_problem:
        problems.append(cex_problem)
    for out in claims_out:
        o = out["oracle"]
        if o["status"] != "pass":
            problems.append(f"{out['id']}: oracle check {o['status']}: "
                            f"{o.get('failure') or o.get('detail', '')}")
        if o.get("failing"):
            f = o["failing"]
            problems.append(f"{out['id']}: failing instance {f['index']} of seed {f['seed']} "
                            f"(reproduce: {f['reproduce']}); written to "
                            + (f"{f['file']} (absorb check reads it) and {f['json']}" if f.get("file")
                               else f"{f['json']} ({f.get('file_error')})"))
    problems += [f"counterexample {cx['name']} not verified: {cx['detail']}" for cx in cexs
                 if not cx["verified"]]
    # A counterexample must drop a hypothesis that its claims really have.
    tags = {c["id"]: set(c.get("hypotheses", [])) for c in full_registry}
    for cx in cexs:
        for cid in cx["claims"]:
            if cid not in tags:
                problems.append(f"counterexample {cx['name']} names unknown claim {cid}")
            elif cx["dropped"] not in tags[cid]:
                problems.append(f"counterexample {cx['name']} drops {cx['dropped']!r}, "
                                f"which is not a hypothesis of {cid}")
    problems += [f"activation {a['name']}: a declared property did not re-derive" for a in catalog
                 if not a["all_verified"]]
    return {
        "ok": not problems,
        "quick": quick,
        "instances_per_claim": n,
        "seed": seed,
        "selected_claims": None if len(registry) == len(full_registry) else [c["id"] for c in registry],
        "problems": problems,
        "claims": claims_out,
        "counterexamples": cexs,
        "coq": {"status": proof["coq"]["status"], "detail": proof["coq"]["detail"]},
        "lean": {"status": "written, not compiled in this environment"},
        "notes": [x for x in proof.get("notes", []) if concerns_selection(x)],
        "pinned_diffs": proof.get("pinned_diffs", {}),
        "activations": catalog,
        "sources": source_hashes(),  # what the verdicts were computed from, for absorb recheck
        "seconds": round(time.perf_counter() - t0, 1),
        "run": report.run_info(),  # version, commit, date, machine, Coq version
    }


def check_arguments(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Refuse bad arguments before any work (InputError, exit 2); returns the --scan documents."""
    if args.report:
        out = Path(args.report)
        if out.suffix not in (".md", ".html", ".htm"):
            raise InputError(f"--report must end in .md or .html, got {args.report!r}")
        if out.is_dir():
            raise InputError(f"--report {args.report} is a folder; give a file name ending in .md or .html")
        if not out.parent.is_dir():
            raise InputError(f"--report {args.report}: the folder {out.parent} does not exist")
        if not os.access(out.parent, os.W_OK):
            raise InputError(f"--report {args.report}: the folder {out.parent} is not writable")
        figures.require_matplotlib()  # fail in one line now, not after the whole audit
    if args.instances is not None and args.instances < 1:
        raise InputError(f"--instances must be at least 1, got {args.instances}")
    if args.seed is not None and args.seed < 0:
        raise InputError(f"--seed must be a nonnegative integer, got {args.seed}")
    select_claims(consistency.load_registry(), args.claim)
    scans = getattr(args, "scan", None) or []
    if scans and not args.report:
        raise InputError("--scan puts a scan document into the report: give --report FILE.html (or .md) too")
    docs = []
    for path in scans:
        try:
            docs.append(report.check_scan(load_document(path), path))
        except InputError as e:
            raise InputError(str(e) if str(e).startswith("--scan") else f"--scan {e}") from None
    return docs


def run(args: argparse.Namespace) -> int:
    """Entry point of `absorb audit`: the table on stdout ends with the verdict line."""
    scans = check_arguments(args)
    verbose = bool(getattr(args, "verbose", False))
    say = Progress("audit", verbose=verbose)
    try:
        doc = audit(quick=args.quick, claims=args.claim, instances=args.instances,
                    seed=DEFAULT_SEED if args.seed is None else args.seed, progress=say)
        if args.report:
            say.stage(f"writing the report {args.report}")
            report.write_report(doc, args.report, scans=scans)
    finally:
        say.close()
    if args.report:
        say.important(f"report written to {args.report}")
    if args.json:
        emit_json(doc)
    else:
        print(report.terminal_table(doc, verdict=False))
        notes = proof_notes(doc, verbose)
        if notes:
            print(notes)
        print("")
        print(report.verdict_line(doc))
    return 0 if doc["ok"] else 1


def proof_notes(doc: dict[str, Any], verbose: bool = True) -> str:
    """The reasons the registry gives for weakened checks (with ``verbose``; otherwise how many
    there are), and the diffs of changed statements (always: they fail the audit)."""
    lines = []
    if doc.get("notes") and verbose:
        lines.append("")
        lines.append("reasons given in proofs/claims.toml for checks that are weakened or absent:")
        lines += [f"  - {n}" for n in doc["notes"]]
    elif doc.get("notes"):
        lines.append(f"reasons for weakened or absent checks: {len(doc['notes'])} in proofs/claims.toml "
                     "(absorb audit --verbose lists them; so does the report)")
    for path, diff in doc.get("pinned_diffs", {}).items():
        lines.append("")
        lines.append(f"{path} differs from the statements regenerated now (review; if intended, run "
                     "`absorb pin`):")
        lines += ["  " + ln for ln in diff.splitlines()]
    return "\n".join(lines)
