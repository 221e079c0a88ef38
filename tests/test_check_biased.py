"""`absorb check` on biased blocks of the "impossible" families: relu2 (relu2-biased) and reglu,
swiglu, geglu, geglu_tanh, glu (gated-biased), every decision path, the emitted files and tampered
certificates.

Claims exercised: relu2-biased, gated-biased (and glu-flip, still cited for bias-free glu blocks
with an index set).
"""

from __future__ import annotations

import copy
import importlib.util
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from oracle.algebra.construct import verify_equal_at_points
from oracle.cli import main
from oracle.core import io as bio
from oracle.core.blocks import Block
from oracle.decide import decide, recheck_certificate

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
PTS1 = [[Fraction(n, 4)] for n in range(-12, 13)]
PTS2 = [[Fraction(a, 2), Fraction(b, 3)] for a in (-3, 0, 1, 4) for b in (-2, 0, 5)]


def _examples():
    spec = importlib.util.spec_from_file_location("make_biased_examples", EXAMPLES / "make_biased_examples.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _json(v) -> dict:
    return json.loads(json.dumps(v.certificate, default=str))


def _pts(d):
    return PTS1 if d == 1 else PTS2


@pytest.mark.parametrize("gate", ["reglu", "swiglu", "geglu", "geglu_tanh"])
def test_issue_example_absorbable_for_every_odd_part_gate(gate):
    b = Block(gate, W_up=np.array([[1.0], [-1.0]]), W_down=np.array([[1.0, 1.0]]), W_gate=np.array([[1.0], [1.0]]),
              b_gate=np.array([-1.0, 0.0]))
    v = decide(b)
    assert (v.verdict, v.claim, v.exact) == ("absorbable", "gated-biased", True)
    assert v.certificate["S"] == [0, 1] and v.certificate["emitted_block"]["exact"] is True
    backend = "exact" if gate == "reglu" else "ball"
    assert verify_equal_at_points(b, v.plain, PTS1[::3], backend)["agree"]
    assert recheck_certificate(b, _json(v))
    # the gate rows and gate biases are negated, nothing else
    assert np.array_equal(v.plain.W_gate, -b.W_gate) and np.array_equal(v.plain.W_down, b.W_down)


def test_example_files_decide_as_documented(tmp_path, capsys):
    mod = _examples()
    mod.OUT = tmp_path
    mod.main()
    want = {"swiglu_biased_absorbable": ("absorbable", "gated-biased"),
            "swiglu_biased_generic": ("not_absorbable", "gated-biased"),
            "relu2_biased_absorbable": ("absorbable", "relu2-biased"),
            "relu2_degenerate": ("absorbable", "relu2-biased")}
    for name, (verdict, claim) in want.items():
        b = bio.read_block(tmp_path / f"{name}.npz")
        # the allowed reading (relu2_degenerate's only bias sits on a unit whose output column is
        # zero, so the default auto reads no bias there: docs/check.md)
        v = decide(b, replacing_biases="allowed")
        assert (v.verdict, v.claim, v.exact) == (verdict, claim, True), name
        assert recheck_certificate(b, _json(v))
        # the committed example files are the ones the script writes
        committed = bio.read_block(EXAMPLES / f"{name}.npz")
        assert np.array_equal(committed.W_up, b.W_up) and np.array_equal(committed.W_down, b.W_down)
    out = tmp_path / "plain.npz"
    code = main(["check", str(tmp_path / "relu2_biased_absorbable.npz"), "--emit", str(out), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["verdict"] == "absorbable" and doc["claim"] == "relu2-biased"
    P = bio.read_block(out)
    F = bio.read_block(tmp_path / "relu2_biased_absorbable.npz")
    assert P.kind == "plain" and P.m == F.m
    assert verify_equal_at_points(F, P, PTS2, "exact")["agree"]


def test_relu2_degenerate_paths():
    # boundary-cases.md 2 with a bias: absorbable at width 4 by class sums, not at width 3
    b4 = Block("relu2", W_up=np.array([[1.0], [2.0], [-1.0], [3.0]]), W_down=np.zeros((1, 4)),
               b_up=np.array([1.0, 0.0, 0.0, 0.0]))
    # W_down = 0: the biases sit on dead units, so the biased question is asked explicitly
    v4 = decide(b4, replacing_biases="allowed")
    assert (v4.verdict, v4.exact, v4.certificate["part"]) == ("absorbable", True, "C")
    assert verify_equal_at_points(b4, v4.plain, PTS1, "exact")["agree"]
    b3 = Block("relu2", W_up=np.array([[1.0], [2.0], [-1.0]]), W_down=np.zeros((1, 3)),
               b_up=np.array([1.0, 0.0, 0.0]))
    v3 = decide(b3, replacing_biases="allowed")
    assert (v3.verdict, v3.claim, v3.exact) == ("not_absorbable", "relu2-biased", True)
    assert recheck_certificate(b3, _json(v3)) and recheck_certificate(b4, _json(v4))
    # a repeated kink hyperplane with one spare unit: decided exactly by (C), built and emitted
    br = Block("relu2", W_up=np.array([[1.0], [-1.0], [1.0]]), W_down=np.array([[1.0, -1.0, 1.0]]),
               b_up=np.array([0.0, 0.0, 0.5]))
    vr = decide(br)
    assert (vr.verdict, vr.exact) == ("absorbable", True) and vr.certificate["emitted_block"]["exact"]
    assert verify_equal_at_points(br, vr.plain, PTS1, "exact")["agree"]


def test_relu2_degenerate_beyond_the_proof_is_undecided():
    # d = 2, zero outputs: F = x is affine of rank 2, so relu2-biased (D1) now decides it (issue 29):
    # 4 rank N = 8 > 4 units, not absorbable
    b = Block("relu2", W_up=np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, -1.0]]), W_down=np.zeros((2, 4)),
              b_up=np.array([1.0, 0.0, 0.0, 0.0]))
    v = decide(b, replacing_biases="allowed")
    assert v.verdict == "not_absorbable" and v.exact and v.claim == "relu2-biased"
    assert "(D1)" in v.reason and v.certificate["part_d"]["rank_N"] == 2
    assert recheck_certificate(b, _json(v))
    # one class with a nonzero output and four spare units (n = 1, r = 4): outside (D1) and (D2);
    # no k = 0 solution, and squares on new kink hyperplanes (k >= 1) are not searched for d >= 2
    b = Block("relu2", W_up=np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, -1.0], [2.0, 1.0]]),
              W_down=np.array([[1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]]),
              b_up=np.array([1.0, 0.0, 0.0, 0.0, 0.0]))
    v = decide(b, replacing_biases="allowed")
    assert v.verdict == "undecided" and not v.exact and v.claim == "relu2-biased"
    assert "k >= 1" in v.reason
    assert recheck_certificate(b, _json(v))


def test_degenerate_gated_blocks_are_undecided_not_wrong():
    # two units in one gate class cancel (the gated_repeated_class counterexample, with a bias)
    b = Block("swiglu", W_up=np.array([[1.0], [-1.0]]), W_down=np.array([[1.0, 1.0]]),
              W_gate=np.array([[1.0], [1.0]]), b_gate=np.array([0.5, 0.5]))
    v = decide(b)
    assert v.verdict == "undecided" and not v.exact and "repeated classes" in v.reason
    # a zero gate row with a flip set still decides (part (A) needs no nondegeneracy)
    z = Block("reglu", W_up=np.array([[1.0]]), W_down=np.array([[-1.0]]), W_gate=np.array([[0.0]]),
              b_gate=np.array([1.0]))
    vz = decide(z)  # x - relu(1) x = 0: the flip of the zero-gate unit removes -x
    assert (vz.verdict, vz.exact) == ("absorbable", True)
    assert verify_equal_at_points(z, vz.plain, PTS1, "exact")["agree"]


def test_glu_with_and_without_biases():
    G = np.array([[1.0, 2.0], [3.0, 1.0]])
    free = Block("glu", W_up=np.eye(2), W_down=np.eye(2), W_gate=G)
    v = decide(free)
    assert (v.verdict, v.claim, v.exact) == ("not_absorbable", "gated-biased", True)
    flip = Block("glu", W_up=np.eye(2), W_down=-np.eye(2), W_gate=G)
    assert decide(flip).claim == "glu-flip"  # bias-free with an index set: the narrower claim, as before
    biased = Block("glu", W_up=np.eye(2), W_down=-np.eye(2), W_gate=G, b_up=np.array([1.0, -0.5]),
                   b_gate=np.array([0.25, 0.0]))
    vb = decide(biased)
    assert (vb.verdict, vb.claim, vb.exact) == ("absorbable", "gated-biased", True)
    assert verify_equal_at_points(biased, vb.plain, PTS2[:4], "ball")["agree"]
    assert recheck_certificate(biased, _json(vb)) and recheck_certificate(free, _json(v))


def test_rounded_b_down_is_recorded():
    # pair (1, beta, -1/4), (1, -1, 1/4): removes (beta + 1)/2 x + const with const = -(beta^2 - 1)/4, and
    # b_down + const = 1 - 2^-41 - 2^-82 needs more than 53 bits: the verdict is exact, the file rounded
    beta = 1.0 + 2.0 ** -40
    b = Block("relu2", W_up=np.array([[1.0], [1.0]]), W_down=np.array([[-0.25, 0.25]]), b_up=np.array([beta, -1.0]),
              b_down=np.array([1.0]), M=np.array([[(beta + 1.0) / 2]]))
    v = decide(b)
    assert (v.verdict, v.claim, v.exact) == ("absorbable", "relu2-biased", True)
    rec = v.certificate["emitted_block"]
    assert rec["rounded"] == ["b_down"] and rec["exact"] is False and v.certificate["spot_check"]["agree"]
    assert Fraction(v.certificate["b_down_exact"][0]) == 1 - Fraction(2) ** -41 - Fraction(2) ** -82
    assert recheck_certificate(b, _json(v))


def test_tampered_biased_certificates_are_rejected():
    b = Block("relu2", W_up=np.array([[1.0], [1.0], [0.0]]), W_down=np.array([[-1.0, 1.0, 0.5]]),
              b_up=np.array([0.25, -0.25, 1.0]))
    v = decide(b)
    assert v.verdict == "absorbable"
    cert = _json(v)
    assert recheck_certificate(b, cert)
    bad = copy.deepcopy(cert)
    bad["S"] = [0]
    assert not recheck_certificate(b, bad)
    bad = copy.deepcopy(cert)
    bad["claim"] = "gated-biased"
    assert not recheck_certificate(b, bad)
    g = Block("swiglu", W_up=np.eye(2), W_down=np.eye(2), W_gate=np.array([[1.0, 0.0], [0.0, 1.0]]),
              b_gate=np.array([0.5, -0.5]))
    vg = decide(g)
    assert vg.verdict == "not_absorbable"
    cg = _json(vg)
    assert recheck_certificate(g, cg)
    bad = copy.deepcopy(cg)
    bad["nondegeneracy"]["nondegenerate"] = False
    assert not recheck_certificate(g, bad)
    bad = copy.deepcopy(cg)
    bad["search"]["outcome"] = "exhausted" if cg["search"]["outcome"] == "inconsistent" else "inconsistent"
    assert not recheck_certificate(g, bad)
    # the certificate does not transfer to a block that has a flip set (a glu block, another claim)
    h = Block("glu", W_up=np.eye(2), W_down=-np.eye(2), W_gate=np.eye(2), b_gate=np.array([0.5, -0.5]))
    assert not recheck_certificate(h, cg)


@pytest.mark.parametrize("gate", ["reglu", "swiglu", "geglu_tanh", "glu"])
def test_zero_units_carry_the_remaining_linear_map(gate):
    """Degenerate gated blocks with zero units: the live units (flipped on S, here S empty) leave
    N_S = M + L_S, which zero-gate-row units in the zero units' slots produce exactly."""
    b = Block(gate, W_up=np.array([[1.0], [1.0], [0.0]]), W_down=np.array([[1.0, 0.0, 0.0]]),
              W_gate=np.array([[1.0], [2.0], [1.0]]), b_gate=np.array([0.5, 0.0, 0.0]))
    v = decide(b)
    assert (v.verdict, v.claim, v.exact) == ("absorbable", "gated-biased", True)
    assert v.certificate["part"] == "A+padding" and v.certificate["padding"]["rank"] == 1
    backend = "exact" if gate == "reglu" else "ball"
    assert verify_equal_at_points(b, v.plain, PTS1[::4], backend)["agree"]
    cert = _json(v)
    assert recheck_certificate(b, cert)
    bad = copy.deepcopy(cert)
    bad["zero_units"] = [2]
    assert not recheck_certificate(b, bad)


def test_too_few_zero_units_stay_undecided():
    # swiglu needs two padding units per rank for an exact padding: d = 2, rank 2, only two zero units.
    # Every unit computes 0, so the block is affine (F = x) and gated-biased (D) decides it (issue 29):
    # rank N = 2 <= 2, one unit per rank with the transcendental scale 1 / silu(1), emitted rounded
    b = Block("swiglu", W_up=np.eye(2), W_down=np.zeros((2, 2)), W_gate=np.array([[1.0, -1.0], [2.0, 1.0]]),
              b_gate=np.array([0.5, 0.0]))
    v = decide(b, replacing_biases="allowed")
    assert (v.verdict, v.exact) == ("absorbable", True) and v.certificate["part"] == "D"
    assert v.certificate["emitted_block"]["rounded"] == ["W_up"]
    # a unit that computes something next to two zero units: neither the padding (four units
    # needed) nor (D) (not every unit is affine) applies
    b = Block("swiglu", W_up=np.eye(2)[[0, 1, 0]], W_down=np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 0.5]]),
              W_gate=np.array([[1.0, -1.0], [2.0, 1.0], [1.0, 1.0]]), b_gate=np.array([0.5, 0.0, 0.25]))
    v = decide(b, replacing_biases="allowed")
    assert v.verdict == "undecided" and not v.exact and "zero units" in v.reason
    # four zero units suffice
    b4 = Block("swiglu", W_up=np.eye(2)[[0, 1, 0, 1]], W_down=np.zeros((2, 4)),
               W_gate=np.array([[1.0, -1.0], [2.0, 1.0], [1.0, 0.0], [0.0, 1.0]]), b_gate=np.array([0.5, 0, 0, 0]))
    # W_down = 0: the biases sit on dead units, so the biased question is asked explicitly
    v4 = decide(b4, replacing_biases="allowed")
    assert (v4.verdict, v4.exact) == ("absorbable", True)
    assert verify_equal_at_points(b4, v4.plain, PTS2[:5], "ball")["agree"]
