"""`absorb check` reports the minimal width (relu-complete, gelu-complete) as the top-level integer
`minimal_width` with `minimal_width_claim`; `--emit OUT --min-width` writes a block of exactly that
width; the documents re-check with `absorb recheck`, forged copies are refused, and the emitted
block agrees with the residual block under `absorb witness`.  Every command runs as a subprocess
of the installed `absorb` on real files.  Degenerate gelu-family blocks (collinear rows), which
relu-limit leaves undecided, are decided by gelu-complete."""

from __future__ import annotations

import copy
import json
from fractions import Fraction
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from oracle.core import io as bio
from oracle.core.blocks import Block
from oracle.decide import decide
from oracle.decide.document import recheck_block_document

ABSORB = str(Path(sys.executable).with_name("absorb"))


def absorb(*argv: object) -> subprocess.CompletedProcess:
    return subprocess.run([ABSORB, *map(str, argv)], capture_output=True, text=True, timeout=600)


def _block(act, U, W, M=None, bu=None, bd=None) -> Block:
    f = lambda a: None if a is None else np.array(a, dtype=float)  # noqa: E731
    return Block(act, W_up=f(U), W_down=f(W), M=f(M), b_up=f(bu), b_down=f(bd), kind="residual")


# (name, block, expected minimal width, expected claim, verdict at its own width)
CASES = [
    ("gelu_opposite", _block("gelu", [[1], [-1]], [[1, 1]]), 1, "gelu-complete", "absorbable"),
    ("gelu_doubled", _block("gelu", [[1], [2]], [[1, -1]]), 2, "gelu-complete", "absorbable"),
    ("gelu_three", _block("gelu", [[1], [2]], [[1, 1]]), 3, "gelu-complete", "not_absorbable"),
    ("silu_collinear_2d", _block("silu", [[1, 0], [2, 0], [0, 1]], [[1, -1, 0], [0, 0, 1]]), 4, "gelu-complete",
     "not_absorbable"),
    ("gelu_tanh_biased", _block("gelu_tanh", [[1], [1]], [[1, 1]], bu=[0, 1], bd=[1]), 3, "gelu-complete",
     "not_absorbable"),
    ("relu_opposite", _block("relu", [[1], [-1]], [[2, 2]]), 2, "relu-complete", "absorbable"),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("minw")
    out = {}
    for name, blk, *_ in CASES:
        p = d / f"{name}.npz"
        bio.write_block(blk, p)
        out[name] = p
    return d, out


@pytest.mark.parametrize("name,blk,mstar,claim,verdict", CASES, ids=[c[0] for c in CASES])
def test_check_reports_minimal_width_and_rechecks(files, name, blk, mstar, claim, verdict):
    d, paths = files
    r = absorb("check", paths[name], "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["verdict"] == verdict
    assert type(doc["minimal_width"]) is int and doc["minimal_width"] == mstar
    assert doc["minimal_width_claim"] == claim
    cert_path = d / f"{name}.json"
    cert_path.write_text(r.stdout)
    rr = absorb("recheck", cert_path, paths[name])
    assert rr.returncode == 0 and rr.stdout.startswith("holds"), rr.stdout + rr.stderr
    # forged copies: a narrower width, another claim, a changed construction, a stray top-level width
    forged = []
    bad = copy.deepcopy(doc)
    bad["minimal_width"] = mstar - 1
    forged.append(("minimal_width", bad))
    bad = copy.deepcopy(doc)
    bad["minimal_width_claim"] = "relu-complete" if claim == "gelu-complete" else "gelu-complete"
    forged.append(("minimal_width_claim", bad))
    bad = copy.deepcopy(doc)
    bad["certificate"]["minimal_width"]["value"] = mstar - 1
    bad["minimal_width"] = mstar - 1
    forged.append(("certificate.minimal_width", bad))
    bad = copy.deepcopy(doc)
    bad["certificate"]["minimal_width"]["construction"]["W_down"][0][0] = "7"
    forged.append(("certificate", bad))
    for i, (field, bad) in enumerate(forged):
        p = d / f"{name}_forged{i}.json"
        p.write_text(json.dumps(bad))
        rr = absorb("recheck", p, paths[name])
        assert rr.returncode == 1 and rr.stdout.startswith("does not hold: " + field), (field, rr.stdout, rr.stderr)


@pytest.mark.parametrize("name,blk,mstar,claim,verdict", CASES, ids=[c[0] for c in CASES])
def test_emit_min_width_writes_block_of_that_width(files, name, blk, mstar, claim, verdict):
    d, paths = files
    out = d / f"{name}_min.npz"
    r = absorb("check", paths[name], "--emit", out, "--min-width", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["min_width_block"] == str(out) and doc["minimal_width"] == mstar
    plain = bio.read_block(out)
    assert plain.kind == "plain" and plain.m == mstar and plain.activation == blk.activation
    w = absorb("witness", paths[name], out, "--json")
    assert w.returncode == 0, w.stderr
    assert json.loads(w.stdout)["verdict"] == "agree"
    # the document written with --min-width re-checks too
    p = d / f"{name}_min.json"
    p.write_text(r.stdout)
    rr = absorb("recheck", p, paths[name])
    assert rr.stdout.startswith("holds"), rr.stdout + rr.stderr


def test_min_width_needs_emit(files):
    d, paths = files
    r = absorb("check", paths["gelu_three"], "--min-width")
    assert r.returncode == 2 and "--min-width needs --emit" in r.stderr


def test_degenerate_gelu_block_was_undecided_by_relu_limit_and_is_decided_now():
    blk = _block("gelu", [[1], [2]], [[1, 1]])
    v = decide(blk)
    assert v.verdict == "not_absorbable" and v.claim == "gelu-complete" and v.exact
    assert v.certificate["relu_limit_said"]  # what relu-limit said before: the block is degenerate
    assert "degenerate" in v.certificate["relu_limit_said"]
    ok, why = recheck_block_document(blk, json.loads(json.dumps(v.as_dict())))
    assert ok, why
    # the same block asked for a bias-free replacing block with a b_down: none exists at any width
    b2 = _block("gelu", [[1], [2]], [[1, 1]], bd=[1])
    v2 = decide(b2, replacing_biases="none")
    assert v2.verdict == "not_absorbable" and v2.certificate["minimal_width"]["exists"] is False
    assert "minimal_width" not in v2.as_dict()
    ok, why = recheck_block_document(b2, json.loads(json.dumps(v2.as_dict())))
    assert ok, why
    v3 = decide(b2, replacing_biases="allowed")
    assert v3.as_dict()["minimal_width"] == 3


def test_zero_row_with_bias_bias_free_question_settled_by_balls():
    # F(0) = gelu(1) != 0 (enclosed in arb balls): no bias-free block of any width; with biases m* = 1
    blk = _block("gelu", [[0], [1]], [[1, 1]], bu=[1, 0])
    v = decide(blk, replacing_biases="none")
    assert v.certificate["minimal_width"]["exists"] is False and v.verdict == "not_absorbable"
    ok, why = recheck_block_document(blk, json.loads(json.dumps(v.as_dict())))
    assert ok, why
    v = decide(blk, replacing_biases="allowed")
    assert v.as_dict()["minimal_width"] == 2 and v.verdict == "absorbable"


def test_unit_order_does_not_change_the_minimal_width():
    a = _block("silu", [[1, 0], [2, 0], [0, 1]], [[1, -1, 0], [0, 0, 1]])
    b = _block("silu", [[0, 1], [2, 0], [1, 0]], [[0, -1, 1], [1, 0, 0]])
    assert decide(a).as_dict()["minimal_width"] == decide(b).as_dict()["minimal_width"] == 4


def test_stated_minimal_width_without_settling_certificate_is_refused():
    blk = _block("gelu", [[1], [2]], [[1, 1]], bd=[1])
    doc = json.loads(json.dumps(decide(blk, replacing_biases="none").as_dict()))
    doc["minimal_width"] = 3
    doc["minimal_width_claim"] = "gelu-complete"
    ok, why = recheck_block_document(blk, doc)
    assert not ok and why.startswith("minimal_width")


def test_another_optimal_plan_is_accepted_and_a_costlier_one_refused(files):
    """x + gelu(x) + gelu(2x) (d = 1): its one class set T = {0} kills N_s K_T (K_T is empty), so
    every sign vector s reaches the minimum; a document stating the flipped signs is a true document
    and holds (the re-check verifies the stated plan's cost and rebuilds its construction).  A plan
    that costs more (T emptied, so 2 rank(N_s) counts) is refused, as is a malformed one."""
    _, paths = files
    doc = json.loads(absorb("check", paths["gelu_three"], "--json").stdout)
    mw = doc["certificate"]["minimal_width"]
    assert mw["T"] and mw["value"] == 3
    other = copy.deepcopy(doc)
    om = other["certificate"]["minimal_width"]
    om["s"] = [-v for v in om["s"]]
    from oracle.algebra import gelu_width
    blk = next(c[1] for c in CASES if c[0] == "gelu_three")
    om["construction"] = gelu_width.construct(gelu_width.gelu_form(blk), om["s"], om["T"]).as_json()
    assert om["construction"] != mw["construction"] or om["s"] != mw["s"]
    d = files[0]
    (d / "other_plan.json").write_text(json.dumps(other))
    r = absorb("recheck", d / "other_plan.json", paths["gelu_three"])
    assert r.returncode == 0, r.stdout + r.stderr
    costly = copy.deepcopy(doc)
    costly["certificate"]["minimal_width"]["T"] = []
    (d / "costly_plan.json").write_text(json.dumps(costly))
    r = absorb("recheck", d / "costly_plan.json", paths["gelu_three"])
    assert r.returncode == 1 and "minimal_width" in r.stdout + r.stderr
    bad = copy.deepcopy(doc)
    bad["certificate"]["minimal_width"]["s"] = [2] * len(mw["s"])
    (d / "bad_plan.json").write_text(json.dumps(bad))
    r = absorb("recheck", d / "bad_plan.json", paths["gelu_three"])
    assert r.returncode == 1 and "minimal_width" in r.stdout + r.stderr


def test_rounded_emit_is_labelled_and_witness_says_so(tmp_path):
    """x + gelu(3x/8)/8 with three zero rows: the width-2 block needs the output weights 67/24 and
    -8/3 (the class row 3/8 is fixed by the even part, so no scaling makes them dyadic).  check --emit
    writes their float64 roundings and labels the file; witness finds the (exact, rounding-sized)
    difference of the floats and says the file is labelled; recheck compares the stated labels with
    the files and refuses a document that drops or changes them."""
    blk = _block("gelu", [[0], [0.375], [0], [0]], [[0, 0.125, 0, 0]])
    f, out = tmp_path / "b.npz", tmp_path / "plain.npz"
    bio.write_block(blk, f)
    r = absorb("check", "--json", f, "--emit", out)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["verdict"] == "absorbable" and doc["minimal_width"] == 2
    assert doc["certificate"]["emitted_block"]["rounded"] == ["W_down"]
    with np.load(out) as z:
        assert str(z["rounded"]) == "W_down"
        assert sorted(z["W_down"][0][:2]) == [float(Fraction(-8, 3)), float(Fraction(67, 24))]
    text = absorb("witness", f, out)
    assert "note:    the plain file says it holds float64 roundings of exact values (W_down" in text.stdout
    r = absorb("witness", "--json", f, out)
    w = json.loads(r.stdout)
    assert w["rounding_labels"] == {"plain": {"rounded": "W_down",
                                              "rounding_error": w["rounding_labels"]["plain"]["rounding_error"]}}
    assert w["rounding_labels"]["plain"]["rounding_error"].startswith("W_down: |entry - exact value| <= ")
    wf = tmp_path / "w.json"
    wf.write_text(r.stdout)
    rc = absorb("recheck", wf, f, out)
    assert rc.returncode == 0 and rc.stdout.startswith("holds:"), rc.stdout + rc.stderr
    for forged in ({"plain": {"rounded": "b_down"}}, {}, {"residual": w["rounding_labels"]["plain"]}):
        wf.write_text(json.dumps({**w, "rounding_labels": forged}))
        rc = absorb("recheck", wf, f, out)
        assert rc.returncode != 0 and "rounding_labels" in rc.stdout + rc.stderr, (forged, rc.stdout)


def test_relu_class_construction_document_rechecks(tmp_path):
    """x + relu(x) + relu(2x) = 4 relu(x) - relu(-x): absorbable at m = 2 by relu-complete's class
    construction (no index set: no subset of W_down U sums to -1).  Its document re-checks through
    the CLI; the bias question reads the construction's stated biases (a merge once dropped the
    import that reading needs, and recheck died with an internal error)."""
    f = tmp_path / "rc.npz"
    bio.write_block(_block("relu", [[1], [2]], [[1, 1]]), f)
    r = absorb("check", "--json", f)
    doc = json.loads(r.stdout)
    assert (doc["verdict"], doc["certificate"]["kind"]) == ("absorbable", "relu_complete")
    assert isinstance(doc["certificate"].get("construction"), dict)
    cert = tmp_path / "rc.json"
    cert.write_text(r.stdout)
    rc = absorb("recheck", cert, f)
    assert rc.returncode == 0 and rc.stdout.startswith("holds:"), rc.stdout + rc.stderr
