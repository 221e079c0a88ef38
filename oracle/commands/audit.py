"""`absorb audit`: every claim's informal proof, Coq proof, Lean proof, oracle check
and boundary counterexamples, side by side. Needs no input."""

from __future__ import annotations

import argparse
import importlib
import sys
import threading
import time
from typing import Any, Optional

from oracle.formal import consistency
from oracle.report import document as report
from oracle.claims import base
from oracle.core import activations
from oracle.core.errors import InputError
from oracle.report import figures
from oracle.commands.output import emit_json

QUICK_INSTANCES = 20
FULL_INSTANCES = 100


def _progress(msg: str) -> None:
    print(f"[audit] {msg}", file=sys.stderr, flush=True)


def _coq_face(claim: dict[str, Any], proof: dict[str, Any]) -> dict[str, Any]:
    """The Coq column of one claim: its formal scope when everything checks, else why not."""
    names = consistency._names(claim.get("coq"))
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
    names = consistency._names(claim.get("lean"))
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


def _oracle_face(claim: dict[str, Any], n: int) -> dict[str, Any]:
    ref = claim.get("oracle")
    if not ref:
        return {"status": "missing", "detail": "no oracle check registered"}
    try:
        fn = base.resolve(ref)
    except (ImportError, AttributeError) as e:
        return {"status": "missing", "detail": f"{ref}: {e}"}
    if not hasattr(fn, "check_info"):
        return {"status": "FAILED", "detail": f"{ref} is not registered with @oracle_check"}
    res = base.run_check(fn, n)
    status = "pass" if res.passed else "FAILED"
    return {"status": status, "ref": ref, **res.as_dict()}


def _counterexamples() -> tuple[list[dict[str, Any]], Optional[str]]:
    try:
        importlib.import_module("oracle.claims.boundary")
    except ImportError as e:
        return [], f"oracle.claims.boundary missing: {e}"
    out = []
    for fn in base.COUNTEREXAMPLES:
        info: base.CounterexampleInfo = fn.counterexample_info  # type: ignore[attr-defined]
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


def audit(quick: bool = False) -> dict[str, Any]:
    """Run everything and return the audit document (see report.py for its rendering)."""
    t0 = time.perf_counter()
    n = QUICK_INSTANCES if quick else FULL_INSTANCES
    registry = consistency.load_registry()

    # The proof check (static scans, the Coq build and its queries) runs in a thread that
    # mostly waits for coqc; start it first so it overlaps the oracle work.
    proof_box: dict[str, Any] = {}

    def proof_check() -> None:
        try:
            proof_box["p"] = consistency.check_all(attribute=True)
        except Exception as e:  # reported as a problem, never a traceback
            proof_box["error"] = f"{type(e).__name__}: {e}"

    coq_thread = threading.Thread(target=proof_check)
    _progress("proof check in the background: registry, sources, Coq build, statements, assumptions")
    coq_thread.start()

    claims_out = []
    for i, c in enumerate(registry, 1):
        _progress(f"oracle check {i}/{len(registry)}: {c['id']} ({n} generated instances)")
        oracle = _oracle_face(c, n)
        _progress(f"    {oracle['status']}"
                  + (f", {oracle.get('instances')} instances in {oracle.get('seconds', 0):.1f}s"
                     if "instances" in oracle else f": {oracle.get('detail', '')}"))
        claims_out.append({"id": c["id"], "title": c["title"], "paper_ref": c["paper_ref"],
                           "statement": c["statement"], "hypotheses": c.get("hypotheses", []),
                           "informal": c.get("informal"), "oracle": oracle,
                           "registry": dict(c)})  # every registry field, for the report

    _progress("boundary counterexamples")
    cexs, cex_problem = _counterexamples()
    for cx in cexs:
        _progress(f"    {cx['name']}: {'verified' if cx['verified'] else 'NOT VERIFIED'}")

    _progress("activation catalog: re-deriving every declared property")
    catalog = activations.catalog_report()

    _progress("waiting for the proof check (Coq)")
    coq_thread.join()
    proof = proof_box.get("p") or {
        "ok": False, "findings": [f"-: proof check crashed: {proof_box.get('error')}"], "notes": [],
        "claims": {}, "pinned_diffs": {},
        "coq": {"status": "failed", "detail": str(proof_box.get("error")), "general_findings": []},
        "lean": {"status": "written, not compiled in this environment"}}
    findings = list(proof["findings"])
    _progress(f"    Coq: {proof['coq']['status']} ({proof['coq']['detail']})")

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
        if out["oracle"]["status"] != "pass":
            problems.append(f"{out['id']}: oracle check {out['oracle']['status']}: "
                            f"{out['oracle'].get('failure') or out['oracle'].get('detail', '')}")
    problems += [f"counterexample {cx['name']} not verified: {cx['detail']}" for cx in cexs
                 if not cx["verified"]]
    # A counterexample must drop a hypothesis that its claims really have.
    tags = {c["id"]: set(c.get("hypotheses", [])) for c in registry}
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
        "problems": problems,
        "claims": claims_out,
        "counterexamples": cexs,
        "coq": {"status": proof["coq"]["status"], "detail": proof["coq"]["detail"]},
        "lean": {"status": "written, not compiled in this environment"},
        "notes": proof.get("notes", []),
        "pinned_diffs": proof.get("pinned_diffs", {}),
        "activations": catalog,
        "seconds": round(time.perf_counter() - t0, 1),
        "run": report.run_info(),  # version, commit, date, machine, Coq version
    }


def run(args: argparse.Namespace) -> int:
    """Entry point of `absorb audit`."""
    if args.report and not args.report.endswith((".md", ".html", ".htm")):
        raise InputError(f"--report must end in .md or .html, got {args.report!r}")
    if args.report:
        figures.require_matplotlib()  # fail in one line now, not after the whole audit
    doc = audit(quick=args.quick)
    if args.report:
        report.write_report(doc, args.report)
        _progress(f"report written to {args.report}")
    if args.json:
        emit_json(doc)
    else:
        print(report.terminal_table(doc))
        print(proof_notes(doc))
    return 0 if doc["ok"] else 1


def proof_notes(doc: dict[str, Any]) -> str:
    """The reasons the registry gives for weakened checks, and the diffs of changed statements."""
    lines = []
    if doc.get("notes"):
        lines.append("")
        lines.append("reasons given in proofs/claims.toml for checks that are weakened or absent:")
        lines += [f"  - {n}" for n in doc["notes"]]
    for path, diff in doc.get("pinned_diffs", {}).items():
        lines.append("")
        lines.append(f"{path} differs from the statements regenerated now (review; if intended, run "
                     "`absorb pin`):")
        lines += ["  " + ln for ln in diff.splitlines()]
    return "\n".join(lines)
