"""Tests for claims gated-impossible (Prop. 6) and gated-continuity."""

import copy
import json
from fractions import Fraction

import numpy as np
from hypothesis import given, settings

from oracle.core import activations
from oracle.core.blocks import Block
from oracle.claims.base import run_check
from oracle.claims.gated import (
    GatedInstance, check_continuity, check_jacobian,
    continuity_instances, jacobian_at_0, jacobian_instances, recheck_continuity, recheck_jacobian
)


def _json(cert):
    return json.loads(json.dumps(cert.as_dict()))


def _assert_ray(inst, ray):
    """The stored quotient is within the stated bound of M v, confirmed in float64."""
    v = np.array([float(Fraction(a)) for a in ray["v"]])
    Mv = inst.residual.skip() @ v
    assert np.allclose([float(Fraction(a)) for a in ray["Pv"]], Mv)
    bound = Fraction(ray["quotient"]["error_bound"])
    assert bound < Fraction(ray["quotient"]["half_max_Pv"]) == Fraction(max(abs(Mv))) / 2
    t = 2.0 ** -ray["quotient"]["j"]
    q = (inst.residual.eval_f64(t * v) - inst.plain.eval_f64(t * v)) / t
    assert np.max(np.abs(q - Mv)) <= float(bound) + 1e-6


@settings(max_examples=100, deadline=None)
@given(jacobian_instances())
def test_jacobian_certificate(inst):
    cert = check_jacobian(inst)
    data = _json(cert)
    assert cert.holds and cert.exact and recheck_jacobian(data)
    jac = data["data"]["jacobian"]
    assert jac["J_B_is_zero"] and jac["J_candidate_is_zero"]
    M = inst.residual.skip()
    assert [[float(Fraction(a)) for a in r] for r in jac["J_F"]] == M.tolist()
    _assert_ray(inst, data["data"]["ray"])


@settings(max_examples=100, deadline=None)
@given(continuity_instances())
def test_continuity_certificate(inst):
    cert = check_continuity(inst)
    data = _json(cert)
    assert cert.holds and cert.exact and recheck_continuity(data)
    assert data["data"]["hypotheses"]["gate_continuous_at_0"] is True
    _assert_ray(inst, data["data"]["ray"])


def _pair(gate="swiglu", plain_gate=None, M=None, m_plain=2):
    F = Block(gate, W_up=np.array([[1.0, -1.0], [0.5, 2.0]]), W_down=np.array([[1.0, 0.0], [2.0, -1.0]]),
              W_gate=np.array([[1.0, 1.0], [-1.0, 0.5]]), M=M)
    pg = plain_gate or gate
    P = Block(pg, W_up=np.arange(1.0, 2 * m_plain + 1).reshape(m_plain, 2) / 4,
              W_down=np.ones((2, m_plain)), W_gate=np.ones((m_plain, 2)), kind="plain")
    return GatedInstance(F, P)


def test_catalog_sets():
    assert sorted(activations.SMOOTH_ZERO_GATES) == ["geglu", "geglu_tanh", "swiglu"]
    assert sorted(activations.ZERO_GATES) == ["bilinear", "geglu", "geglu_tanh", "reglu", "swiglu"]


def test_jacobian_of_glu_is_half_product():
    b = Block("glu", W_up=np.array([[2.0, 0.0]]), W_down=np.array([[1.0], [3.0]]),
              W_gate=np.array([[5.0, 7.0]]), kind="plain")
    # g(0) = 1/2: J = W_down diag(1/2) W_up, independent of W_gate.
    assert jacobian_at_0(b) == [[Fraction(1), Fraction(0)], [Fraction(3), Fraction(0)]]


def test_tampered_certificates_are_rejected():
    good = _json(check_jacobian(_pair(M=np.array([[1.0, 0.5], [0.0, 2.0]]))))
    assert recheck_jacobian(good)
    zero_point = copy.deepcopy(good)
    zero_point["data"]["ray"]["witness"]["x"] = ["0", "0"]
    assert not recheck_jacobian(zero_point)
    moved = copy.deepcopy(good)
    moved["data"]["ray"]["witness"]["j"] += 1  # x no longer equals 2^-j v
    assert not recheck_jacobian(moved)
    skip = copy.deepcopy(good)
    skip["data"]["residual"]["M"][0][0] = 3.0
    assert not recheck_jacobian(skip)
    weight = copy.deepcopy(good)
    # v = e_2 here, so change a weight that acts on the second coordinate.
    assert good["data"]["ray"]["v"] == ["0", "1"]
    weight["data"]["residual"]["W_up"][0][1] = 4.0
    assert not recheck_jacobian(weight)
    bound = copy.deepcopy(good)
    bound["data"]["ray"]["quotient"]["error_bound"] = "0"
    assert good["data"]["ray"]["quotient"]["error_bound"] != "0"
    assert not recheck_jacobian(bound)
    jac = copy.deepcopy(good)
    jac["data"]["jacobian"]["J_F"] = [["0", "0"], ["0", "0"]]
    assert not recheck_jacobian(jac)
    # The Jacobian certificate is not a continuity certificate.
    assert not recheck_continuity(good)


def test_hypothesis_violations_are_not_certified():
    glu = check_jacobian(_pair("glu"))
    assert not glu.holds and glu.data["hypotheses"]["gate_zero_at_0"] is False
    assert not recheck_jacobian(_json(glu))
    zero = check_continuity(_pair(M=np.zeros((2, 2))))
    assert not zero.holds and zero.data["hypotheses"]["M_nonzero"] is False
    other_gate = check_jacobian(_pair(plain_gate="geglu"))
    assert not other_gate.holds and other_gate.data["hypotheses"]["same_gate_and_width"] is False
    # The continuity claim accepts another gate and width that vanish at 0 ...
    cont = check_continuity(_pair(plain_gate="reglu", m_plain=3))
    assert cont.holds and recheck_continuity(_json(cont))
    # ... but not a glu candidate (g(0) = 1/2).
    glu_candidate = check_continuity(_pair(plain_gate="glu"))
    assert not glu_candidate.holds


def test_run_checks_pass():
    for fn in (check_jacobian, check_continuity):
        res = run_check(fn, 20)
        assert res.passed and res.instances == 20 and res.exact_instances == 20
