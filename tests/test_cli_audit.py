"""The `absorb` command itself: audit (JSON, reports, failure paths), activations, help.

Names every claim of the registry: skip-reduction, homogeneous-impossible,
homogeneous-any-width, gated-impossible, gated-continuity, depth-impossible, depth-any,
relu-gelu-iff, non-generic, absorption-width, glu-flip.
"""

import json
import subprocess
import sys

import pytest

from oracle.commands import audit
from oracle import cli
from oracle.formal import consistency
import oracle.claims as claim_modules
from oracle.claims import base

REGISTRY_IDS = [c["id"] for c in consistency.load_registry()]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "oracle.cli", *args], capture_output=True, text=True,
                          timeout=900)


@pytest.fixture(scope="module")
def quick_doc(quick_audit_doc) -> dict:
    """`absorb audit --quick` in this process (tests/conftest.py: one run shared with test_report)."""
    return quick_audit_doc


def test_quick_audit_passes_and_lists_every_claim(quick_doc):
    assert quick_doc["ok"], quick_doc["problems"]
    assert [c["id"] for c in quick_doc["claims"]] == REGISTRY_IDS
    measure = consistency.measure_claims(consistency.load_registry(), consistency.ROOT / "proofs" / "coq")
    for c in quick_doc["claims"]:
        assert c["oracle"]["status"] == "pass"
        assert c["oracle"]["instances"] == audit.QUICK_INSTANCES
        assert c["informal_status"] == "ok"
        if c["lean"]["status"] != "absent":
            assert c["lean"]["detail"].startswith("written, not compiled in this environment")
        if c["coq"]["status"] == "checked":
            # Every checked proof carries its formal scope and rests only on the allowed axioms:
            # those of the reals, and the measure library's only for the claims that use it.
            assert c["coq"]["scope"] and c["coq"]["instance"]
            assert set(c["coq"]["axioms"]) <= set(consistency.allowed_axioms(c["id"] in measure)), c["id"]
    # Every boundary case of SPEC.md is there and verified.
    names = {cx["name"] for cx in quick_doc["counterexamples"] if cx["verified"]}
    assert {"relu_degree_one", "biased_relu2", "biased_swiglu", "glu_gate_half", "width_m_plus_d",
            "zero_skip", "singular_skip"} <= names
    expected_coq = "checked" if consistency.coq_available() else "skipped"
    assert {c["coq"]["status"] for c in quick_doc["claims"]} <= {expected_coq, "absent"}


def test_table_shows_the_formal_scope_never_a_bare_checked(quick_doc):
    from oracle.report import document as report
    rows = {r[0]: r for r in report.rows(quick_doc)}
    coq_col, lean_col = report.HEADER.index("Coq"), report.HEADER.index("Lean")
    if consistency.coq_available():
        assert rows["relu-gelu-iff"][coq_col] == "full"
        assert rows["homogeneous-any-width"][coq_col] == "full"
        assert rows["homogeneous-impossible"][coq_col] == "full"
        assert rows["non-generic"][coq_col] == "full"
        assert rows["depth-width"][coq_col] == "full"
        assert rows["depth-narrow"][coq_col] == "full"
        assert rows["relu-complete"][coq_col] == "full"
    assert rows["depth-any"][lean_col] == "flat blocks only*"
    assert rows["relu-gelu-iff"][lean_col] == "relu half*"
    assert rows["homogeneous-any-width"][lean_col] == "gap, c_k, 3 constants*"
    assert not any(r[coq_col] == "checked" or r[lean_col].startswith("written") for r in rows.values())


def test_reports_render_every_claim(quick_doc, quick_audit_reports):
    from oracle.report import document as report
    (md, _), (html, _) = quick_audit_reports["md"], quick_audit_reports["html"]
    for path in (md, html):
        text = path.read_text()
        for cid in REGISTRY_IDS:
            assert cid in text
        assert "written, not compiled in this environment" in text
    assert "audit PASSED" in report.terminal_table(quick_doc)
    assert "data:image/svg+xml;base64," in html.read_text()  # figures embedded, no side files


def test_a_failing_oracle_check_fails_the_audit(monkeypatch):
    real = claim_modules.resolve

    def broken(ref):
        fn = real(ref)
        if ref.endswith("homogeneous:check_same_width"):
            def wrong(instance):
                cert = fn(instance)
                cert.holds = False
                cert.reason = "deliberately broken"
                return cert
            wrong.check_info = fn.check_info
            return wrong
        return fn

    monkeypatch.setattr(claim_modules, "resolve", broken)
    monkeypatch.setattr(audit, "QUICK_INSTANCES", 3)
    doc = audit.audit(quick=True)
    assert not doc["ok"]
    row = next(c for c in doc["claims"] if c["id"] == "homogeneous-impossible")
    assert row["oracle"]["status"] == "FAILED"
    assert any("homogeneous-impossible: oracle check FAILED" in p for p in doc["problems"])


def test_a_missing_oracle_module_shows_as_missing(monkeypatch):
    registry = consistency.load_registry()
    registry[0] = dict(registry[0], oracle="oracle.claims.not_there:check")
    monkeypatch.setattr(consistency, "load_registry", lambda root=consistency.ROOT: registry)
    monkeypatch.setattr(audit, "QUICK_INSTANCES", 2)
    doc = audit.audit(quick=True)
    assert doc["claims"][0]["oracle"]["status"] == "missing"
    assert not doc["ok"]


def test_audit_rejects_a_bad_report_suffix_with_exit_2():
    r = run_cli("audit", "--quick", "--report", "out.pdf")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == ["absorb audit: error: --report must end in .md or .html, got 'out.pdf'"]


def test_activations_json_lists_the_checked_catalog():
    r = run_cli("activations", "--json")
    assert r.returncode == 0
    doc = json.loads(r.stdout)
    assert doc["all_verified"] is True
    assert len(doc["activations"]) == 12
    glu = next(a for a in doc["activations"] if a["name"] == "glu")
    assert glu["declared"]["value_at_0"] == "1/2" and glu["declared"]["flip_symmetry"] is True
    assert all(c["verified"] for a in doc["activations"] for c in a["checks"])


def test_help_lists_every_command_of_the_design():
    r = run_cli("--help")
    assert r.returncode == 0
    for cmd in ("audit", "check", "witness", "activations", "scan"):
        assert cmd in r.stdout


def test_no_command_prints_help_and_exits_2(capsys):
    assert cli.main([]) == 2
    assert "COMMAND" in capsys.readouterr().out


def test_unbuilt_command_says_so(monkeypatch, capsys):
    monkeypatch.setitem(cli.COMMANDS, "scan", ("oracle.no_such_module", "placeholder"))
    assert cli.main(["scan", "x.safetensors"]) == 2
    assert capsys.readouterr().err.strip() == "absorb scan: not built yet"
