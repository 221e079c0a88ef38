"""`absorb audit --claim/--instances/--seed`: runs a reviewer can steer and repeat, a planted
failure reproduced from its printed seed and written as a file `absorb check` reads, and the
coverage of each claim's declared sample ranges (oracle/claims/coverage.py).

Claims exercised: relu-complete, relu-gelu-iff, glu-flip, depth-width, homogeneous-impossible.
"""

import json
import re
import subprocess
import sys

import numpy as np
import pytest

import oracle.claims as claim_modules
from oracle.claims import base, coverage, relu_complete
from oracle.commands import audit
from oracle.core import io, strategies
from oracle.core.blocks import Block
from oracle.formal import consistency


def run_cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "oracle.cli", *args], capture_output=True, text=True,
                          timeout=900, cwd=cwd)


def _planted_bug(monkeypatch, claim_ref: str, bad) -> None:
    """Make the check named claim_ref fail on instances where bad(instance) holds."""
    real = claim_modules.resolve

    def resolve(ref):
        fn = real(ref)
        if ref != claim_ref:
            return fn

        def wrong(instance):
            cert = fn(instance)
            if bad(instance):
                cert.holds = False
                cert.reason = "planted bug"
            return cert
        wrong.check_info = fn.check_info
        return wrong
    monkeypatch.setattr(claim_modules, "resolve", resolve)


def test_claims_are_selected_by_id_comma_or_repeat():
    reg = consistency.load_registry()
    assert [c["id"] for c in audit.select_claims(reg, ["glu-flip,relu-complete"])] == ["glu-flip", "relu-complete"]
    assert [c["id"] for c in audit.select_claims(reg, ["relu-complete", "glu-flip"])] == ["glu-flip", "relu-complete"]
    assert len(audit.select_claims(reg, None)) == len(reg)


def test_unknown_claim_and_bad_numbers_exit_2_in_one_line():
    r = run_cli("audit", "--claim", "no-such-claim")
    assert r.returncode == 2
    assert r.stderr.strip().startswith("absorb audit: error: unknown claim no-such-claim; known: skip-reduction,")
    r = run_cli("audit", "--claim", "glu-flip", "--instances", "0")
    assert r.returncode == 2 and r.stderr.strip() == "absorb audit: error: --instances must be at least 1, got 0"
    r = run_cli("audit", "--claim", "glu-flip", "--seed", "-3")
    assert r.returncode == 2 and r.stderr.strip() == "absorb audit: error: --seed must be a nonnegative integer, got -3"


def test_seed_fixes_the_instances_and_is_printed(tmp_path):
    a = audit.audit(claims=["relu-complete"], instances=6, seed=5, failures_dir=str(tmp_path))
    b = audit.audit(claims=["relu-complete"], instances=6, seed=5, failures_dir=str(tmp_path))
    c = audit.audit(claims=["relu-complete"], instances=6, seed=6, failures_dir=str(tmp_path))
    sig = lambda doc: [(s["d"], s["m"]) for s in doc["claims"][0]["oracle"]["sizes"]]  # noqa: E731
    assert a["ok"] and a["seed"] == 5 and a["claims"][0]["oracle"]["seed"] == 5
    assert sig(a) == sig(b)
    assert a["claims"][0]["oracle"]["sample"] == b["claims"][0]["oracle"]["sample"]
    assert sig(a) != sig(c)
    assert [x["id"] for x in a["claims"]] == ["relu-complete"] and a["selected_claims"] == ["relu-complete"]
    # only the counterexamples of the selected claim run
    assert {cx["name"] for cx in a["counterexamples"]} == {"gelu_scales_counterexample"}
    from oracle.report import document
    table = document.terminal_table(a)
    assert "seed 5 (the same seed draws the same instances)" in table
    assert "audited claims: relu-complete (--claim)" in table


def test_a_planted_failure_is_reproduced_from_its_printed_seed(monkeypatch, tmp_path):
    # the planted bug: relu-complete's check "fails" on every d = 2 block with a nonzero skip
    bad = lambda inst: inst.d == 2 and any(v != 0 for r in inst.M for v in r)  # noqa: E731
    _planted_bug(monkeypatch, "oracle.claims.relu_complete:check", bad)
    doc = audit.audit(claims=["relu-complete"], instances=40, seed=11, failures_dir=str(tmp_path / "f1"))
    assert not doc["ok"]
    o = doc["claims"][0]["oracle"]
    assert o["status"] == "FAILED"
    f = o["failing"]
    assert f["seed"] == 11 and f["phase"] == "main"
    assert f["reproduce"] == "absorb audit --claim relu-complete --seed 11 --instances 40"
    problem = next(p for p in doc["problems"] if "failing instance" in p)
    assert f"failing instance {f['index']} of seed 11" in problem and f["file"] in problem
    # the file is a residual relu block with d = 2 and a nonzero skip, as the bug needs
    blk = io.read_block(f["file"])
    assert blk.activation == "relu" and blk.d == 2 and blk.kind == "residual" and np.any(blk.skip() != 0)
    meta = json.loads(open(f["json"]).read())
    assert meta["reason"].endswith("planted bug") and meta["certificate"]["holds"] is False
    # rerunning the printed command gives the same failing instance, written to the same kind of file
    again = audit.audit(claims=["relu-complete"], instances=40, seed=11,
                        failures_dir=str(tmp_path / "f2"))
    g = again["claims"][0]["oracle"]["failing"]
    assert g["index"] == f["index"]
    blk2 = io.read_block(g["file"])
    for k in ("W_up", "W_down", "M"):
        assert np.array_equal(getattr(blk, k), getattr(blk2, k))
    # and `absorb check` reads the written file and decides it
    r = run_cli("check", f["file"], "--json")
    assert r.returncode == 0, r.stderr
    verdict = json.loads(r.stdout)
    assert verdict["verdict"] in ("absorbable", "not_absorbable", "undecided") and verdict["claim"]


def test_a_failing_stack_instance_is_written_as_a_stack_file(monkeypatch, tmp_path):
    _planted_bug(monkeypatch, "oracle.claims.depth_stacks:check_width", lambda inst: len(inst.layers) >= 2)
    doc = audit.audit(claims=["depth-width"], instances=20, seed=3, failures_dir=str(tmp_path))
    f = doc["claims"][0]["oracle"]["failing"]
    assert f["file"].endswith(".npz")
    r = run_cli("check", f["file"])
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("stack: relu")


@pytest.mark.usefixtures("root_coq_build_locked")   # its subprocess builds proofs/coq
def test_progress_of_many_instances_goes_to_stderr(tmp_path):
    # per-instance progress is shown with --verbose (without it, a status line or a few stage lines)
    r = run_cli("audit", "--claim", "glu-flip", "--instances", "30", "--seed", "2", "--verbose", cwd=tmp_path)
    assert r.returncode == 0, r.stdout[-2000:]
    assert "[audit] glu-flip: 30/30 instances" in r.stderr
    assert "[audit] glu-flip: 3/30 instances" in r.stderr
    assert "seed 2 (the same seed draws the same instances)" in r.stdout
    assert re.search(r"glu-flip +d 1\.\.3; m <=>; M I,inv,sing; deg; planted; near", r.stdout)


# ---------------------------------------------------------------- coverage

def _with_samples(monkeypatch, cid: str, **changes) -> None:
    reg = consistency.load_registry()
    for c in reg:
        if c["id"] == cid:
            c["samples"] = {**c["samples"], **changes}
    monkeypatch.setattr(consistency, "load_registry", lambda root=consistency.ROOT: reg)


def test_a_declared_range_that_is_never_drawn_fails_the_audit(monkeypatch, tmp_path):
    monkeypatch.setattr(base, "TOP_UP_MAX", 5)
    _with_samples(monkeypatch, "homogeneous-impossible", d="1..5")
    doc = audit.audit(claims=["homogeneous-impossible"], instances=20, failures_dir=str(tmp_path))
    o = doc["claims"][0]["oracle"]
    assert o["status"] == "FAILED" and o["top_up"] == 5 and len(o["sizes"]) == 25
    assert o["coverage"]["problems"] == ["declared ranges never drawn in 25 instances (seed 0): d = 4, d = 5"]
    assert not doc["ok"]
    # fewer than COVERAGE_MIN instances are not held to the ranges (and not topped up)
    few = audit.audit(claims=["homogeneous-impossible"], instances=5, failures_dir=str(tmp_path))
    o = few["claims"][0]["oracle"]
    assert few["ok"] and o["top_up"] == 0 and o["coverage"]["problems"] == []
    assert o["coverage"]["summary"].endswith("(not judged: fewer than 20 instances)")


def test_a_range_drawn_outside_the_declaration_fails_the_audit(monkeypatch, tmp_path):
    _with_samples(monkeypatch, "relu-complete", d="2..3", biased=False)
    doc = audit.audit(claims=["relu-complete"], instances=20, failures_dir=str(tmp_path))
    probs = doc["claims"][0]["oracle"]["coverage"]["problems"]
    assert probs == ["drawn outside the declared ranges: d = 1, biased (the registry understates the samples)"]
    assert not doc["ok"]


def test_every_claim_declares_samples_the_statement_justifies():
    reg = consistency.load_registry()
    for c in reg:
        assert coverage.samples_findings(c["samples"], c.get("samples_reason")) == [], c["id"]
        assert coverage.unjustified_exclusions(c["hypotheses"], c["samples"], c.get("samples_reason")) == [], c["id"]
    byid = {c["id"]: coverage.declared(c["samples"]) for c in reg}
    # d = 1 wherever the statement allows it, general M where it allows M
    assert min(byid["relu-complete"]["d"]) == 1 and byid["relu-complete"]["M"] == {"identity", "invertible", "singular"}
    assert min(byid["absorption-width"]["d"]) == 1 and "singular" in byid["absorption-width"]["M"]
    assert min(byid["relu-gelu-iff"]["d"]) == 2  # d_ge_2
    assert byid["depth-d2"]["d"] == {2}
    for cid in ("relu-gelu-iff", "relu-limit", "glu-flip", "relu-complete"):
        assert byid[cid]["planted"] and byid[cid]["near_miss"], cid


def test_an_exclusion_without_a_reason_is_a_registry_finding():
    reg = consistency.load_registry()
    c = next(c for c in reg if c["id"] == "relu-complete")
    c["samples"] = {**c["samples"], "d": "2..3", "degenerate": False}
    out = consistency.registry_findings([c], consistency.ROOT, consistency.Notes())
    texts = [str(f) for f in out]
    assert any("d: the statement allows d = 1, the oracle starts at d = 2" in t for t in texts)
    assert any("degenerate: the statement reaches it, the samples exclude it" in t for t in texts)
    c2 = dict(c, samples_reason={"d": "a reason", "degenerate": "another"})
    texts = [str(f) for f in consistency.registry_findings([c2], consistency.ROOT, consistency.Notes())]
    assert not any("samples exclude" in t for t in texts)
    c3 = dict(c, samples={**c["samples"], "colour": "red"})
    texts = [str(f) for f in consistency.registry_findings([c3], consistency.ROOT, consistency.Notes())]
    assert any("samples has unknown key 'colour'" in t for t in texts)


def test_features_of_planted_near_miss_degenerate_and_biased_instances():
    I = np.eye(2)
    near = strategies.ConditionInstance(Block("relu", W_up=I, W_down=-I + np.array([[2.0 ** -30, 0], [0, 0]])),
                                        (0, 1), near_miss=True)
    f = coverage.features(near)
    assert f["near_miss"] and not f["planted"] and f["d"] == 2 and f["m"] == ["at"] and f["M"] == "identity"
    planted = strategies.ConditionInstance(Block("relu", W_up=I, W_down=-I), (0, 1))
    assert coverage.features(planted)["planted"]
    deg = Block("relu", W_up=np.array([[1.0, 0], [2.0, 0], [0, 1.0]]), W_down=np.ones((2, 3)),
                M=np.array([[1.0, 1.0], [1.0, 1.0]]), b_up=np.array([0, 0, 0.5]))
    f = coverage.features(deg)
    assert f["degenerate"] and f["biased"] and f["M"] == "singular" and f["m"] == ["above"]
    inst = relu_complete.ReluInstance("x", [[1]], [[1]], [[2]])
    assert coverage.features(inst) == {"d": 1, "m": ["at"], "M": "invertible", "degenerate": False,
                                       "biased": False, "planted": False, "near_miss": False}
