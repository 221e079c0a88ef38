"""`absorb audit`: every claim's informal proof, Coq proof, Lean proof, oracle check
and boundary counterexamples, side by side. Needs no input."""

from __future__ import annotations

import argparse
import importlib
import sys
import threading
import time
from typing import Any, Optional

from . import consistency, report
from .claims import base

QUICK_INSTANCES = 20
FULL_INSTANCES = 100


def _progress(msg: str) -> None:
    print(f"[audit] {msg}", file=sys.stderr, flush=True)


def _coq_face(claim: dict[str, Any], build: consistency.CoqBuild,
              findings: list[str]) -> dict[str, Any]:
    names = consistency._names(claim.get("coq"))
    if not names:
        return {"status": "absent", "detail": claim.get("coq_absent", "no reason given"), "names": []}
    mine = [f for f in findings if f.startswith(claim["id"] + ":") and "Coq" in f]
    if mine:
        return {"status": "FAILED", "detail": "; ".join(mine), "names": names}
    if build.status == "skipped":
        return {"status": "skipped", "detail": build.detail, "names": names}
    if build.status == "failed":
        return {"status": "FAILED", "detail": build.detail, "names": names}
    axioms = sorted({a for n in names for a in build.assumptions.get(n, [])})
    return {"status": "checked", "detail": "compiled by coqc; Print Assumptions: "
            + (", ".join(axioms) if axioms else "closed under the global context"),
            "names": names, "assumptions": {n: build.assumptions.get(n, []) for n in names},
            "scope": claim.get("formal_scope", "the whole claim")}


def _lean_face(claim: dict[str, Any], findings: list[str]) -> dict[str, Any]:
    names = consistency._names(claim.get("lean"))
    if not names:
        return {"status": "absent", "detail": claim.get("lean_absent", "no reason given"), "names": []}
    mine = [f for f in findings if f.startswith(claim["id"] + ":") and "Lean" in f]
    if mine:
        return {"status": "FAILED", "detail": "; ".join(mine), "names": names}
    return {"status": "written", "detail": "written, not compiled in this environment "
            "(names, binders and sorry-freedom checked)", "names": names}


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

    # The Coq build runs in a subprocess; start it first so it overlaps the oracle work.
    build_box: dict[str, consistency.CoqBuild] = {}
    coq_thread = threading.Thread(target=lambda: build_box.setdefault("b", consistency.coq_build()))
    _progress("compiling the Coq development and printing assumptions (in the background)")
    coq_thread.start()

    _progress("static consistency: registry, informal proofs, Coq/Lean names, binders, tests")
    findings = [str(f) for f in consistency.static_findings()]

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
    from . import activations
    catalog = activations.catalog_report()

    _progress("waiting for Coq")
    coq_thread.join()
    build = build_box["b"]
    _progress(f"    Coq: {build.status} ({build.detail})")
    if build.status == "failed":
        findings.append(f"-: Coq: {build.detail}")

    for c, out in zip(registry, claims_out):
        out["informal_status"] = "missing" if any(
            f.startswith(c["id"] + ":") and "informal" in f for f in findings) else "ok"
        out["coq"] = _coq_face(c, build, findings)
        out["lean"] = _lean_face(c, findings)
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
        "coq": {"status": build.status, "detail": build.detail},
        "lean": {"status": "written, not compiled in this environment"},
        "activations": catalog,
        "seconds": round(time.perf_counter() - t0, 1),
        "run": report.run_info(),  # version, commit, date, machine, Coq version
    }


def run(args: argparse.Namespace) -> int:
    """Entry point of `absorb audit`."""
    if args.report and not args.report.endswith((".md", ".html", ".htm")):
        from .errors import InputError
        raise InputError(f"--report must end in .md or .html, got {args.report!r}")
    if args.report:
        from . import figures
        figures.require_matplotlib()  # fail in one line now, not after the whole audit
    doc = audit(quick=args.quick)
    if args.report:
        report.write_report(doc, args.report)
        _progress(f"report written to {args.report}")
    if args.json:
        from .cli import emit_json
        emit_json(doc)
    else:
        print(report.terminal_table(doc))
    return 0 if doc["ok"] else 1
