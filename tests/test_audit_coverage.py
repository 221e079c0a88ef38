"""`absorb audit --coverage`: branch coverage (coverage.py, branch mode) of each claim's check and
decision code by the instances the audit draws (oracle/report/branches.py).

A planted never-taken branch in a test-only module (tests/branch_planted.py) is reported as
missed, a branch marked with ``# pragma: no branch`` is listed with its reason instead, and the
command's table and JSON are checked on a claim audited with a single instance (relu2-biased).
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from oracle.report import branches

import branch_planted

PLANTED = Path(branch_planted.__file__).resolve()
MISSED = re.compile(r"^oracle/(claims|algebra|decide)/[\w/]+\.py:\d+->(\d+|exit) \([\w.<>]+\)$")


def _measure(x: int) -> tuple[str, dict]:
    return branches.measure(lambda: branch_planted.classify(x), roots=(PLANTED,), leave_out=())


def test_a_branch_not_taken_is_reported_missed():
    out, rep = _measure(3)
    assert out == "small"
    where = rep["missed"][0].split(" ")[0]
    assert where.endswith("branch_planted.py:6->7"), rep["missed"]
    assert rep["missed"] == [f"{rep['missed'][0]}"] and rep["missed"][0].endswith("(classify)")
    # branches of lines 6 and 8; 8->9 is marked, so only 6->7 counts as missed
    assert (rep["branches"], rep["reached"]) == (4, 3)
    assert rep["percent"] == 75.0
    # never_called was not entered: its branches are no part of what was measured
    assert not any("never_called" in m for m in rep["missed"])


def test_taking_the_branch_removes_it_from_the_missed_list():
    out, rep = _measure(10**10)
    assert out == "huge"
    assert not any(":6->7" in m for m in rep["missed"])
    assert any(":6->8" in m for m in rep["missed"])  # now the other side of line 6 is not taken


def test_a_marked_branch_is_listed_with_its_reason():
    _, rep = _measure(3)
    marks = rep["marked_unreachable"]
    assert len(marks) == 1
    assert marks[0]["where"].endswith("branch_planted.py:8 (classify)")
    assert marks[0]["reason"] == "the tests pass no negative number (a planted mark)"


def test_a_mark_without_a_reason_says_so():
    rep = branches.summarize({})
    assert rep == {"branches": 0, "reached": 0, "percent": None, "missed": [], "marked_unreachable": [],
                   "files": {}}
    doc = {"claims": [{"id": "x"}], "branch_coverage": {"x": {
        "branches": 2, "reached": 1, "percent": 50.0, "missed": ["oracle/claims/x.py:3->4 (f)"],
        "marked_unreachable": [{"where": "oracle/claims/x.py:9 (f)", "reason": None}], "files": {}}}}
    text = branches.table(doc)
    assert "x: marked unreachable at oracle/claims/x.py:9 (f): NO REASON GIVEN" in text
    assert "x: 1 missed branches: oracle/claims/x.py:3->4 (f)" in text


def _absorb(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "oracle.cli", "audit", "--claim", "relu2-biased",
                           "--instances", "1", "--coverage", *args], capture_output=True, text=True,
                          timeout=900)


@pytest.fixture(scope="module")
def json_run() -> dict:
    done = _absorb("--json")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.usefixtures("coq_required")
def test_cli_json_reports_the_branches_of_one_instance(json_run):
    rep = json_run["branch_coverage"]["relu2-biased"]
    assert set(rep) == {"branches", "reached", "percent", "missed", "marked_unreachable", "files"}
    assert 0 < rep["reached"] < rep["branches"]
    assert rep["percent"] == round(100 * rep["reached"] / rep["branches"], 1)
    # one instance cannot reach every branch; each miss names a real place in the claims' code
    assert len(rep["missed"]) == rep["branches"] - rep["reached"]
    assert all(MISSED.match(m) for m in rep["missed"]), rep["missed"][:5]
    assert "oracle/claims/relu2_biased.py" in rep["files"]
    assert sum(f["branches"] for f in rep["files"].values()) == rep["branches"]
    assert not any(f in rep["files"] for f in ("oracle/claims/base.py", "oracle/claims/coverage.py"))


@pytest.mark.usefixtures("coq_required")
def test_cli_table_format():
    # a separate process: its counts are compared with its own row, not with the JSON run's (the
    # order of set iteration may differ between processes)
    done = _absorb()
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    lines = done.stdout.splitlines()
    head = [i for i, l in enumerate(lines) if l.startswith("branch coverage of each claim's check")]
    assert len(head) == 1
    assert lines[head[0] + 1].split() == ["claim", "reached", "branches", "percent", "marked", "unreachable"]
    row = lines[head[0] + 2].split()
    assert row[0] == "relu2-biased" and row[4] == "0"
    reached, total = int(row[1]), int(row[2])
    assert 0 < reached < total and row[3] == f"{100 * reached / total:.1f}%"
    missed = re.match(r"^  relu2-biased: (\d+) missed branches: (\S+ \(\S+\))", lines[head[0] + 3])
    assert missed and int(missed.group(1)) == total - reached
    assert MISSED.match(missed.group(2)), missed.group(2)
    assert lines[-1].startswith("audit PASSED")


def test_a_coverage_document_rechecks_and_a_forged_count_is_refused(tmp_path):
    """`absorb audit --coverage --json` writes branch_coverage; `absorb recheck` re-runs the audit
    with the measurement on and confirms the field like every other (it used to refuse it as an
    unknown field); a changed count of reached branches is refused."""
    absorb = str(Path(sys.executable).with_name("absorb"))
    r = subprocess.run([absorb, "audit", "--quick", "--claim", "skip-reduction", "--instances", "2",
                        "--coverage", "--json"], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    doc = json.loads(r.stdout)
    assert doc["branch_coverage"]["skip-reduction"]["branches"] > 0
    p = tmp_path / "audit.json"
    p.write_text(r.stdout)
    r = subprocess.run([absorb, "recheck", str(p)], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0 and r.stdout.startswith("holds"), r.stdout + r.stderr[-2000:]
    doc["branch_coverage"]["skip-reduction"]["reached"] += 1
    p.write_text(json.dumps(doc))
    r = subprocess.run([absorb, "recheck", str(p)], capture_output=True, text=True, timeout=900)
    assert r.returncode == 1 and "branch_coverage" in r.stdout, r.stdout + r.stderr[-2000:]
