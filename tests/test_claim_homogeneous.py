"""Tests for claims homogeneous-impossible (Prop. 5) and homogeneous-any-width."""

import copy
import json
from fractions import Fraction

import numpy as np
from hypothesis import given, settings

from oracle.core.blocks import Block
from oracle.claims.base import run_check
from oracle.claims.homogeneous import (
    HomogeneousInstance, any_width_instances, check_any_width, check_same_width, error_map,
    half_constant_bounds, numeric_constant, recheck_any_width, recheck_same_width,
    same_width_instances, scaling_identity, sqrt2_constant_bounds
)


def _json(cert):
    return json.loads(json.dumps(cert.as_dict()))


def _float_difference(inst, x):
    """F(x) - B'(x) in float64, an independent evaluation path."""
    pt = np.array([float(Fraction(v)) for v in x])
    return inst.residual.eval_f64(pt) - inst.plain.eval_f64(pt)


@settings(max_examples=100, deadline=None)
@given(same_width_instances())
def test_same_width_certificate(inst):
    cert = check_same_width(inst)
    data = _json(cert)
    assert cert.holds and cert.exact and recheck_same_width(data)
    sc, wit = data["data"]["scaling"], data["data"]["witness"]
    assert sc["k"] == 2 and sc["lhs"] == sc["rhs"]
    assert [Fraction(v) for v in sc["rhs"]] == [-2 * Fraction(v) for v in sc["Mx"]]
    diff = [Fraction(v) for v in wit["difference"]]
    assert any(diff)
    assert np.allclose(_float_difference(inst, wit["x"]), [float(v) for v in diff])


@settings(max_examples=100, deadline=None)
@given(any_width_instances())
def test_any_width_certificate(inst):
    cert = check_any_width(inst)
    data = _json(cert)
    assert cert.holds and cert.exact and recheck_any_width(data)
    q = data["data"]["quantitative"]
    assert q["k2"]["constant"] == "40391/195025"  # (s - s^2)/(1 + s^2) at s = 169/408
    assert Fraction(q["k2"]["max_sq_norm"]) >= Fraction(q["k2"]["bound_sq"]) > 0
    assert q["k3"]["constant"] == "1/3" and q["k3"]["holds"]


def _pair(act="relu2", plain_act=None, M=None, m_plain=2):
    F = Block(act, W_up=np.array([[1.0, -1.0], [0.5, 2.0]]), W_down=np.array([[1.0, 0.0], [2.0, -1.0]]),
              W_gate=np.array([[1.0, 1.0], [-1.0, 0.5]]) if act in ("reglu", "bilinear") else None,
              M=M)
    pa = plain_act or act
    P = Block(pa, W_up=np.arange(1.0, 2 * m_plain + 1).reshape(m_plain, 2) / 4,
              W_down=np.ones((2, m_plain)),
              W_gate=np.ones((m_plain, 2)) if pa in ("reglu", "bilinear") else None, kind="plain")
    return HomogeneousInstance(F, P)


def test_concrete_identity_values():
    cert = check_same_width(_pair())
    sc = cert.data["scaling"]
    # x = e_1 (M = I), k = 2: e(2x) - 4 e(x) = -2 e_1.
    assert sc["x"] == ["1", "0"] and sc["rhs"] == ["-2", "0"] and sc["lhs"] == ["-2", "0"]


def test_tampered_certificates_are_rejected():
    good = _json(check_any_width(_pair(plain_act="bilinear", m_plain=3)))
    assert recheck_any_width(good)
    witness = copy.deepcopy(good)
    witness["data"]["witness"]["x"] = ["0", "0"]
    assert not recheck_any_width(witness)
    weight = copy.deepcopy(good)
    weight["data"]["plain"]["W_down"][0][0] = 1.5
    assert not recheck_any_width(weight)
    wrong_k = copy.deepcopy(good)
    wrong_k["data"]["scaling"]["k"] = 3
    wrong_k["data"]["hypotheses"]["k"] = 3
    assert not recheck_any_width(wrong_k)
    const = copy.deepcopy(good)
    const["data"]["quantitative"]["k2"]["constant"] = "1/4"
    assert not recheck_any_width(const)
    # A same-width certificate does not pass as an any-width one, nor the other way round.
    assert not recheck_same_width(good)


def test_hypothesis_violations_are_not_certified():
    zero_M = check_same_width(_pair(M=np.zeros((2, 2))))
    assert not zero_M.holds and zero_M.data["hypotheses"]["M_nonzero"] is False
    relu = check_same_width(_pair("relu"))
    assert not relu.holds and relu.data["hypotheses"]["k_ne_1"] is False
    assert not recheck_same_width(_json(relu))
    mixed = check_any_width(_pair("relu2", plain_act="relu"))  # candidate of degree 1
    assert not mixed.holds and mixed.data["hypotheses"]["same_degree"] is False
    wider = check_same_width(_pair(m_plain=3))  # same-width claim refuses another width
    assert not wider.holds and wider.data["hypotheses"]["same_kind_and_width"] is False


def test_relu_breaks_the_degree_two_identity_and_k1_gives_no_witness():
    F = Block("relu", W_up=np.array([[1.0]]), W_down=np.array([[1.0]]))
    zero = Block("relu", W_up=np.array([[1.0]]), W_down=np.array([[0.0]]), kind="plain")
    x = [Fraction(1)]
    bad = scaling_identity(F, zero, x, 2)
    # e(x) = x + relu(x): e(2) - 4 e(1) = 4 - 8 = -4, but (2 - 4) * 1 = -2.
    assert not bad["holds"] and bad["lhs"] == ["-4"] and bad["rhs"] == ["-2"]
    # The sign-flip construction: x - relu(x) = -relu(-x), so e = 0 and k = 1 gives no witness.
    G = Block("relu", W_up=np.array([[1.0]]), W_down=np.array([[-1.0]]))
    flip = Block("relu", W_up=np.array([[-1.0]]), W_down=np.array([[-1.0]]), kind="plain")
    for v in (Fraction(3), Fraction(-5, 2), Fraction(1, 7)):
        assert error_map(G, flip, [v]) == [0]
    ok = scaling_identity(G, flip, x, 1)
    assert ok["holds"] and ok["rhs"] == ["0"] and ok["e_x"] == ["0"]


def test_constants():
    assert sqrt2_constant_bounds(Fraction(40391, 195025)) == {"lower_bound": True, "within_1e-6": True}
    assert not sqrt2_constant_bounds(Fraction(40391, 195025) - Fraction(1, 10**5))["within_1e-6"]
    assert not sqrt2_constant_bounds(Fraction(2072, 10**4))["lower_bound"]  # above (sqrt2-1)/2
    half = half_constant_bounds(Fraction(169, 408))
    assert half["lower_bound"] and half["within_1e-6"]
    s3, c3 = numeric_constant(3, 1)
    assert abs(float(s3) - 0.5) < 1e-20 and abs(float(c3) - 1 / 3) < 1e-15
    s2, c2 = numeric_constant(2, 1)
    assert abs(float(c2) - (2 ** 0.5 - 1) / 2) < 1e-15


def test_run_checks_pass():
    for fn in (check_same_width, check_any_width):
        res = run_check(fn, 20)
        assert res.passed and res.instances == 20 and res.exact_instances == 20
