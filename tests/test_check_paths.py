"""`absorb check` on every decision path wired in by the decide branch: relu blocks of every kind
(relu-complete), gelu / gelu_tanh / silu / quick_gelu blocks with biases (relu-limit), stack files
(relu-gelu-iff sufficiency, depth-narrow, depth-d2, depth-dimension), the emitted files and their
rounding record, and tampered certificates of every new kind.  Every input is built here.

Claims exercised: relu-complete, relu-limit, relu-gelu-iff, glu-flip, depth-narrow, depth-d2,
depth-dimension.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from oracle.core import io as bio
from oracle.core import stackfiles
from oracle.decide import stacks
from oracle.core.blocks import Block, Stack
from oracle.cli import main
from oracle.decide.block import decide, recheck_certificate
from oracle.algebra.pl_check import ExactRelu, pl_equal
from forgery import put

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _q(a) -> list:
    return [[Fraction(float(v)) for v in r] for r in np.atleast_2d(a)]


def _exact(b: Block) -> ExactRelu:
    """The block as an exact piecewise-linear function for the independent referee (d <= 2)."""
    M = None if b.kind == "plain" else _q(b.skip())
    return ExactRelu(_q(b.W_up), _q(b.W_down), None if b.b_up is None else [Fraction(float(v)) for v in b.b_up],
                     None if b.b_down is None else [Fraction(float(v)) for v in b.b_down], M, d=b.d)


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _roundtrip(v) -> dict:
    return json.loads(json.dumps(v.certificate, default=str))


# ---------------------------------------------------------------- relu: degenerate, biased, d = 1

DEGENERATE = {
    # name: (W_up, W_down, b_up, b_down, expected m*)
    "parallel_rows_and_zero_column": ([[2, -1], [4, -2], [1, -1], [0, 2]],
                                      [[.75, .75, 1, 0], [.75, 0, .5, 0]], None, None, 4),
    "repeated_rows": ([[1, 0], [1, 0], [0, 1]], [[-.5, -.5, 0], [0, 0, -1]], None, None, 2),
    "zero_columns_only": ([[1, 0], [0, 1], [1, 1], [1, -1]], np.zeros((2, 4)), None, None, 4),
    "zero_row_constant": ([[1], [0]], [[1, 5]], [0, 1], None, 2),
    "opposite_rows_d1": ([[1], [-2]], [[3, .25]], None, None, 2),
    "single_kink_d1": ([[1]], [[3]], None, None, 2),
    "zero_columns_too_narrow": ([[1, 0], [0, 1], [1, 1]], np.zeros((2, 3)), None, None, 4),
}


@pytest.mark.parametrize("name", sorted(DEGENERATE))
def test_degenerate_relu_blocks_exact_minimal_width(name):
    """relu-complete: the exact m* (hand-computed) decides; absorbable blocks come with a replacing
    block that the independent piecewise-linear referee (no canonical forms) finds equal."""
    U, W, bu, bd, m_star = DEGENERATE[name]
    b = Block("relu", W_up=np.array(U, float), W_down=np.array(W, float),
              b_up=None if bu is None else np.array(bu, float), b_down=None if bd is None else np.array(bd, float))
    v = decide(b)
    assert (v.claim, v.exact) == ("relu-complete", True)
    assert v.certificate["m_star"] == m_star
    assert v.verdict == ("absorbable" if m_star <= b.m else "not_absorbable")
    assert recheck_certificate(b, _roundtrip(v))
    if v.verdict == "absorbable":
        P = v.plain
        assert P.kind == "plain" and P.m == b.m and v.certificate["emitted_block"]["exact"] is True
        assert pl_equal(_exact(b), _exact(P))
    else:
        assert v.plain is None


def test_relu_complete_for_a_singular_skip_and_d_3():
    b = Block("relu", W_up=np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]]),
              W_down=np.array([[-1.0, 0, 0, 0], [0, -1, 0, 0], [0, 0, 0, 0.5]]),
              M=np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 0]]))
    v = decide(b)
    # W_S U_S = -M for S = {0, 1}: m* = 3 active hyperplanes (the zero column makes one inactive)
    assert (v.verdict, v.claim, v.certificate["m_star"]) == ("absorbable", "relu-complete", 3)
    assert v.certificate["hypotheses"]["M_invertible"]["invertible"] is False
    assert v.certificate["also_applies"] == []  # relu-gelu-iff needs M invertible, relu-limit nondegeneracy
    assert sorted(v.certificate["S"]) == [0, 1]


def test_biased_relu_absorbable_and_not():
    # index set S = {0, 1}, biases: the flip with b_down + W_S b_S (exact here)
    U = np.array([[1.0, 0], [0, 1], [1, -1]])
    W = np.array([[-1.0, 0, 0.5], [0, -1, 0.25]])
    b = Block("relu", W_up=U, W_down=W, b_up=np.array([0.5, -1.0, 0.25]), b_down=np.array([1.0, 0.0]))
    v = decide(b)
    assert (v.verdict, v.claim, v.exact) == ("absorbable", "relu-complete", True)
    assert v.certificate["S"] == [0, 1] and v.certificate["emitted_block"]["exact"] is True
    assert np.array_equal(v.plain.b_down, [1.0 - 0.5, 0.0 + 1.0])  # b_down + W_S b_S
    assert pl_equal(_exact(b), _exact(v.plain))
    # no index set and nondegenerate: m* > m
    b2 = Block("relu", W_up=U, W_down=np.array([[1.0, 0, 0.5], [0, 1, 0.25]]), b_up=np.array([0.5, -1.0, 0.25]))
    v2 = decide(b2)
    assert (v2.verdict, v2.exact) == ("not_absorbable", True) and v2.certificate["m_star"] > 3
    assert recheck_certificate(b2, _roundtrip(v2))


def test_large_relu_paths_give_exact_bounds_and_build_the_block():
    """Above the enumeration limit: the index-set machinery over the kink classes decides, with exact
    bounds, and an absorbable verdict (merged classes, no unit-level shortcut) still emits a block."""
    rng = np.random.default_rng(3)
    d, m = 6, 40
    b = Block("relu", W_up=rng.integers(-8, 9, (m, d)) / 4.0, W_down=rng.integers(-8, 9, (d, m)) / 4.0)
    v = decide(b)
    c = v.certificate
    assert (v.verdict, v.exact, c["kind"]) == ("not_absorbable", True, "relu_complete_bounds")
    assert c["lower"] == m + 1 <= c["upper"] and recheck_certificate(b, _roundtrip(v))
    # 36 units on 12 hyperplanes (three copies each, scaled 1, 2, 1/2; beyond the enumeration
    # limit): h + 2d <= m, so the construction with pairs +-e_j gives a block of width m
    base = rng.integers(-4, 5, (12, d)).astype(float)
    base[base[:, 0] == 0, 0] = 1.0
    U = np.vstack([base, 2 * base, base / 2])
    W = rng.integers(-4, 5, (d, 36)) / 8.0
    bb = Block("relu", W_up=U, W_down=W)
    v = decide(bb)
    c = v.certificate
    assert (v.verdict, v.exact, c["kind"], c["active_classes"]) == ("absorbable", True, "relu_complete_bounds", 12)
    assert c["upper"] <= 36 and v.plain is not None and v.plain.m == 36
    from oracle.algebra.canonical import compare_blocks
    assert compare_blocks(bb, v.plain).equal is True
    assert recheck_certificate(bb, _roundtrip(v))


# ---------------------------------------------------------------- gelu family with biases

@pytest.mark.parametrize("act", ["gelu", "gelu_tanh", "silu", "quick_gelu"])
def test_biased_gelu_family(act):
    U = np.vstack([np.eye(3), [[1.0, -2.0, 0.5], [0.0, 1.0, 1.0], [-1.0, 0.25, 2.0]]])
    W = np.hstack([-np.eye(3), [[0.5, -1.0, 0.25], [1.0, 0.0, -0.5], [-0.25, 0.75, 1.0]]])
    bu, bd = np.array([0.5, -1.0, 0.25, 1.5, -0.75, 0.0]), np.array([0.125, -0.5, 1.0])
    b = Block(act, W_up=U, W_down=W, b_up=bu, b_down=bd)
    v = decide(b)
    assert (v.verdict, v.claim, v.exact) == ("absorbable", "relu-limit", True)
    assert v.certificate["S"] == [0, 1, 2] and v.certificate["emitted_block"]["exact"] is True
    # the construction: rows and b_up in S negated, b_down + W_S b_S
    assert np.array_equal(v.plain.W_up[:3], -U[:3]) and np.array_equal(v.plain.b_up[:3], -bu[:3])
    assert np.array_equal(v.plain.b_down, bd + W[:, :3] @ bu[:3])
    assert recheck_certificate(b, _roundtrip(v))
    # the flip is the proved construction (not compared); the re-check verifies S itself
    rests = v.certificate["emitted_block"]["rests_on"]
    assert rests["theorem"] == "SkipAbsorption.Limit.biased_sign_flip"
    assert "sigma_limit_relu" not in v.certificate["activation_properties"]  # sufficiency needs only the odd part
    assert not recheck_certificate(b, _tamper(_roundtrip(v), ("S",), [0, 1]))
    from oracle.algebra.construct import verify_equal_at_points
    pts = [[Fraction(1, 2), Fraction(-3, 4), Fraction(2)], [Fraction(-5), Fraction(1, 8), Fraction(0)]]
    assert verify_equal_at_points(b, v.plain, pts, "ball")["agree"]
    # no index set (W_down positive on the diagonal), nondegenerate, biased: not absorbable
    b2 = Block(act, W_up=U, W_down=-W, b_up=bu, b_down=bd)
    v2 = decide(b2)
    assert (v2.verdict, v2.claim, v2.exact) == ("not_absorbable", "relu-limit", True)
    assert v2.certificate["hypotheses"]["nondegenerate"]["nondegenerate"] is True
    assert v2.certificate["activation_properties"]["sigma_limit_relu"] is True
    assert recheck_certificate(b2, _roundtrip(v2))
    # degenerate (a repeated row) without an index set: relu-limit leaves it undecided, naming the
    # reason; gelu-complete decides it for gelu, gelu_tanh and silu through m* (issue 31), and the
    # certificate keeps what relu-limit said
    U3 = U.copy()
    U3[4] = U3[3]
    b3 = Block(act, W_up=U3, W_down=-W, b_up=bu, b_down=bd)
    v3 = decide(b3)
    if act == "quick_gelu":
        assert v3.verdict == "undecided" and not v3.exact and "nondegeneracy" in v3.reason
    else:
        assert v3.claim == "gelu-complete" and v3.exact and "nondegeneracy" in v3.certificate["relu_limit_said"]
        mw = v3.certificate["minimal_width"]
        assert v3.verdict == ("absorbable" if mw["value"] <= 6 else "not_absorbable")
        assert recheck_certificate(b3, _roundtrip(v3))


def test_quick_gelu_is_silu_rescaled():
    """The catalog's quick_gelu(z) = z sigmoid(1.702 z) equals silu(1.702 z) / 1.702 (arb balls)."""
    from flint import arb

    from oracle.core import activations, arith
    q, s = activations.get("quick_gelu"), activations.get("silu")
    with arith.precision("ball", 128):
        k = arb(851) / 500
        for z in (arb(-7) / 3, arb(0), arb(1) / 8, arb(5)):
            diff = q.ball(z) - s.ball(k * z) / k
            assert diff.contains(0) and float(diff.rad()) < 1e-30
    checks = {c.prop: c for c in activations.check_properties(q)}
    assert checks["odd_part_identity"].holds and checks["odd_part_identity"].method.startswith("sympy")
    assert all(c.holds for c in checks.values())


# ---------------------------------------------------------------- emitted files and witness

def test_emit_round_trip_with_witness(tmp_path, capsys):
    for name in ("relu_degenerate", "gelu_biased"):
        src = EXAMPLES / f"{name}.npz"
        out = tmp_path / f"{name}_plain.safetensors"
        code, text, err = _cli(capsys, "check", str(src), "--json", "--emit", str(out))
        doc = json.loads(text)
        assert code == 0 and doc["verdict"] == "absorbable" and doc["plain_block"] == str(out)
        P = bio.read_block(out)
        assert P.kind == "plain" and not bio.SafetensorsFile(out).metadata.get("rounded")
        code, text, _ = _cli(capsys, "witness", str(src), str(out), "--json")
        w = json.loads(text)
        assert code == 0 and (w["verdict"], w["exact"]) == ("agree", True)


def test_emitted_file_says_it_is_rounded(tmp_path, capsys):
    """x + relu(x + 2^-60) + 1: m* = 2, but every width-2 block needs b_down = 1 - 2^-60."""
    src = tmp_path / "r.npz"
    bio.write_block(Block("relu", W_up=np.array([[1.0], [0.0]]), W_down=np.array([[1.0, 0.0]]),
                          b_up=np.array([2.0 ** -60, 0.0]), b_down=np.array([1.0])), src)
    out = tmp_path / "p.npz"
    code, text, _ = _cli(capsys, "check", str(src), "--emit", str(out))
    assert code == 0 and "verdict: absorbable (exact)" in text and "ROUNDED to float64: b_down within" in text
    code, text, _ = _cli(capsys, "check", str(src), "--json")
    rec = json.loads(text)["certificate"]["emitted_block"]
    assert rec["exact"] is False and rec["rounded"] == ["b_down"]
    assert rec["exact_values"]["b_down"] == [str(Fraction(1) - Fraction(1, 2 ** 60))]
    with np.load(out) as z:
        assert str(z["rounded"]) == "b_down" and "b_down: |entry - exact value| <=" in str(z["rounding_error"])
        assert abs(Fraction(float(z["b_down"][0])) - (1 - Fraction(1, 2 ** 60))) <= Fraction(rec["max_entry_error"]["b_down"])
    code, text, _ = _cli(capsys, "witness", str(src), str(out), "--json")
    assert json.loads(text)["verdict"] == "differ"  # the stored numbers differ by the rounding


# ---------------------------------------------------------------- stacks through absorb check

def test_stack_files_through_check(tmp_path, capsys):
    code, text, _ = _cli(capsys, "check", str(EXAMPLES / "relu_stack_absorbable.npz"), "--json",
                         "--emit", str(tmp_path / "plain.npz"))
    doc = json.loads(text)
    assert code == 0 and (doc["verdict"], doc["claim"], doc["exact"], doc["input"]) == (
        "absorbable", "relu-gelu-iff", True, "stack")
    assert stacks.recheck_decision(doc)
    plain = stackfiles.read_stack(tmp_path / "plain.npz")
    res = stackfiles.read_stack(EXAMPLES / "relu_stack_absorbable.npz")
    assert stackfiles.stack_kind(plain) == "plain_stack"
    X = np.array([[1.5, -2.0], [-0.25, 3.0], [0.0, 0.0], [7.0, 1.0]])
    assert np.array_equal(plain.eval_f64(X), res.eval_f64(X))
    for name, verdict, claim in (("relu_stack_narrow", "not_absorbable", "depth-narrow"),
                                 ("relu_stack_near_identity", "not_absorbable", "depth-d2"),
                                 ("relu_stack_generic", "undecided", "depth-dimension")):
        code, text, err = _cli(capsys, "check", str(EXAMPLES / f"{name}.npz"), "--emit", str(tmp_path / "x.npz"))
        assert code == 0 and f"verdict: {verdict} ({claim}" in text
        assert "nothing emitted" in err and not (tmp_path / "x.npz").exists()
    assert "rank certificate: rank 18" in text and "ALMOST EVERY" in text


def test_one_block_stack_uses_the_block_decision(tmp_path, capsys):
    p = tmp_path / "one.npz"
    stackfiles.write_stack(Stack([Block("gelu", W_up=np.eye(2), W_down=-np.eye(2), b_up=np.array([1.0, 0.5]))]), p)
    code, text, _ = _cli(capsys, "check", str(p), "--json", "--emit", str(tmp_path / "o.npz"))
    doc = json.loads(text)
    assert (doc["verdict"], doc["claim"]) == ("absorbable", "relu-limit") and stacks.recheck_decision(doc)
    back = stackfiles.read_stack(tmp_path / "o.npz")
    assert np.array_equal(back.blocks[0].b_down, [-1.0, -0.5])  # W_S b_S with W_S = -I


@pytest.mark.parametrize("mutate,fragment", [
    (lambda a: a.update(layers=np.array("3")), "block 2 has no W_up.2"),
    (lambda a: a.update(kind=np.array("plain_stack")), "plain_stack"),
    (lambda a: a.update(**{"W_up.1": np.ones((3, 5))}), "block 1"),
    (lambda a: a.update(activation=np.array("mish")), "unknown activation"),
])
def test_bad_stack_input_is_one_line_and_exit_2(tmp_path, capsys, mutate, fragment):
    arrays = {"W_up.0": np.eye(2), "W_down.0": np.eye(2), "W_up.1": np.eye(2), "W_down.1": np.eye(2),
              "kind": np.array("residual_stack"), "layers": np.array("2"), "activation": np.array("relu")}
    mutate(arrays)
    p = tmp_path / "s.npz"
    with open(p, "wb") as fh:
        np.savez(fh, **arrays)
    code, out, err = _cli(capsys, "check", str(p))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert fragment in err


# ---------------------------------------------------------------- tampered certificates

_tamper = put  # tests/forgery.py: a copy of the certificate with one field changed


def test_tampered_relu_complete_certificates_are_rejected():
    b = Block("relu", W_up=np.array([[2.0, -1], [4, -2], [1, -1], [0, 2]]),
              W_down=np.array([[.75, .75, 1, 0], [.75, 0, .5, 0]]))
    cert = _roundtrip(decide(b))
    assert cert["kind"] == "relu_complete" and recheck_certificate(b, cert)
    for path, value in ((("m_star",), 3), (("construction", "W_down", 0, 0), "7"),
                        (("hypotheses", "nondegenerate", "nondegenerate"), True),
                        (("also_applies",), ["relu-gelu-iff"]), (("kind",), "relu_limit")):
        assert not recheck_certificate(b, _tamper(cert, path, value)), path
    other = Block("relu", W_up=b.W_up, W_down=b.W_down * 2)
    assert not recheck_certificate(other, cert)


def test_tampered_relu_complete_bounds_certificates_are_rejected():
    rng = np.random.default_rng(0)
    d, m = 6, 40
    b = Block("relu", W_up=rng.integers(-8, 9, (m, d)) / 4.0, W_down=rng.integers(-8, 9, (d, m)) / 4.0)
    cert = _roundtrip(decide(b))
    assert cert["kind"] == "relu_complete_bounds" and recheck_certificate(b, cert)
    assert not recheck_certificate(b, _tamper(cert, ("upper",), m))  # below the constructions' bound
    assert not recheck_certificate(b, _tamper(cert, ("lower",), m + 2))
    assert not recheck_certificate(b, _tamper(cert, ("rank_of_active_directions_at_least",), d + 1))
    assert not recheck_certificate(b, _tamper(cert, ("active_classes",), m - 1))
    s = cert["search"]
    if s["kind"] == "linear":
        from oracle.algebra import search
        Y = search.decode_matrix(s["Y"])
        assert not recheck_certificate(b, _tamper(cert, ("search", "Y"), search.encode_matrix(-Y)))
    found = _tamper(cert, ("search", "status"), "found")
    found.update(S_classes=[0, 1], m_star=m, lower=m, upper=m)
    assert not recheck_certificate(b, found)


def test_tampered_relu_limit_certificates_are_rejected():
    U = np.vstack([np.eye(2), [[1.0, -1.0]]])
    W = np.hstack([-np.eye(2), [[0.5], [0.25]]])
    b = Block("silu", W_up=U, W_down=W, b_up=np.array([1.0, 0.0, -0.5]))
    cert = _roundtrip(decide(b))
    assert cert["kind"] == "relu_limit" and recheck_certificate(b, cert)
    assert not recheck_certificate(b, _tamper(cert, ("S",), [0]))
    assert not recheck_certificate(b, _tamper(cert, ("hypotheses", "bias_free"), True))
    b2 = Block("silu", W_up=U, W_down=-W)
    cert2 = _roundtrip(decide(b2))
    assert cert2["search"]["status"] == "none" and recheck_certificate(b2, cert2)
    assert not recheck_certificate(b2, _tamper(cert2, ("search", "status"), "found"))
    # the same certificate on a degenerate block (relu-limit's converse does not apply)
    deg = Block("silu", W_up=np.vstack([np.eye(2), [[1.0, 0.0]]]), W_down=-W)
    assert not recheck_certificate(deg, cert2)


def test_tampered_stack_decisions_are_rejected():
    doc = stacks.decide_stack(stackfiles.read_stack(EXAMPLES / "relu_stack_absorbable.npz"))
    doc = json.loads(json.dumps(doc))
    assert stacks.recheck_decision(doc)
    bad = copy.deepcopy(doc)
    bad["certificate"]["chosen_sets"][0] = [0]
    assert not stacks.recheck_decision(bad)
    bad = copy.deepcopy(doc)
    bad["plain_stack"][1]["W_up"][2] = ["-1", "-1"]
    assert not stacks.recheck_decision(bad)
