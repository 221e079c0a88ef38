"""No verdict of the oracle rests on a Python ``assert``: ``python -O`` (PYTHONOPTIMIZE) strips
them, and a failed check would then be reported as passing.  The package has no assert statement
at all (counted with ``ast``), the runner raises ``CheckFailed`` (oracle/core/errors.py), and an
audit with a planted failing check, run in a subprocess with PYTHONOPTIMIZE=1, still fails.

Claims exercised: skip-reduction, non-generic.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import oracle.claims as claim_modules
from oracle.claims import base
from oracle.core.errors import CheckFailed

ROOT = Path(__file__).resolve().parents[1]


def _asserts(root: Path) -> list[str]:
    """Every assert statement in the package under root, as 'file:line'."""
    out = []
    for p in sorted((root / "oracle").rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Assert):
                out.append(f"{p.relative_to(root)}:{node.lineno}")
    return out


def test_no_assert_statement_in_the_package():
    assert _asserts(ROOT) == []


def test_the_count_sees_a_planted_assert(tmp_path):
    """The ast count is not blind: an assert planted in a copy is found."""
    dst = tmp_path / "oracle" / "claims"
    dst.mkdir(parents=True)
    (dst / "planted.py").write_text("def f(cert):\n    assert cert.holds, 'planted'\n    return cert\n")
    assert _asserts(tmp_path) == ["oracle/claims/planted.py:2"]


def _planted(kind: str):
    """A registered check of skip-reduction whose certificate fails ('holds') or whose re-check
    refuses every certificate ('recheck')."""
    real = claim_modules.resolve("oracle.claims.skip_reduction:check")

    def wrong(instance):
        cert = real(instance)
        if kind == "holds":
            cert.holds = False
            cert.reason = "planted failure"
        return cert
    info = real.check_info
    wrong.check_info = base.CheckInfo(info.claim, info.strategy,
                                      (lambda cert: False) if kind == "recheck" else info.recheck,
                                      info.precision)
    return wrong


@pytest.mark.parametrize("kind, message", [("holds", "check failed: planted failure"),
                                           ("recheck", "certificate did not re-check from its own data")])
def test_the_runner_raises_check_failed(kind, message):
    res = base.run_check(_planted(kind), 3)
    assert not res.passed
    assert res.failure == f"CheckFailed: {message}"
    assert issubclass(CheckFailed, Exception) and not issubclass(CheckFailed, AssertionError)


_OPTIMIZED_AUDIT = r"""
import json, sys
assert False, "asserts are live: this interpreter is not optimized"   # stripped under -O
import oracle.claims as claim_modules
from oracle.claims import base
from oracle.commands import audit

real_resolve = claim_modules.resolve


def planted(ref):
    fn = real_resolve(ref)
    if ref == "oracle.claims.skip_reduction:check":
        def wrong(instance):
            cert = fn(instance)
            cert.holds = False
            cert.reason = "planted failure"
            return cert
        wrong.check_info = fn.check_info
        return wrong
    if ref == "oracle.claims.non_generic:check":
        def same(instance):
            return fn(instance)
        info = fn.check_info
        same.check_info = base.CheckInfo(info.claim, info.strategy, lambda cert: False, info.precision)
        return same
    return fn


claim_modules.resolve = planted
doc = audit.audit(claims=["skip-reduction", "non-generic"], instances=3, failures_dir=sys.argv[1])
print(json.dumps({"optimize": sys.flags.optimize, "ok": doc["ok"], "problems": doc["problems"],
                  "oracle": {c["id"]: [c["oracle"]["status"], c["oracle"].get("failure")]
                             for c in doc["claims"]}}))
"""


def test_an_optimized_audit_still_fails_a_planted_failing_check(tmp_path):
    env = {**os.environ, "PYTHONOPTIMIZE": "1", "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-c", _OPTIMIZED_AUDIT, str(tmp_path / "failures")], cwd=ROOT,
                       env=env, capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["optimize"] == 1          # the asserts of this interpreter are gone ...
    assert out["ok"] is False            # ... and the audit still fails
    assert out["oracle"]["skip-reduction"] == ["FAILED", "CheckFailed: check failed: planted failure"]
    assert out["oracle"]["non-generic"] == ["FAILED",
                                            "CheckFailed: certificate did not re-check from its own data"]
    assert any(p.startswith("skip-reduction: oracle check FAILED") for p in out["problems"])
    assert any(p.startswith("non-generic: oracle check FAILED") for p in out["problems"])
