"""Tests for claim skip-reduction (Lemma 4): oracle.claims.skip_reduction.check."""

import copy
import json
from fractions import Fraction

import numpy as np
from hypothesis import given, settings

from oracle.core.blocks import Block
from oracle.claims.base import run_check
from oracle.claims.skip_reduction import STRATEGY, check, recheck
from oracle.core.strategies import ConditionInstance


def _json(cert):
    """The certificate as it would be read back from a JSON file."""
    return json.loads(json.dumps(cert.as_dict()))


@settings(max_examples=100, deadline=None)
@given(STRATEGY)
def test_reduction_certificate_holds_and_rechecks(instance):
    cert = check(instance)
    data = _json(cert)
    assert cert.holds and cert.exact
    assert recheck(data)
    # Independent float64 confirmation of the matrix identity M (M^-1 W_down) = W_down.
    b = instance[0].block if isinstance(instance[0], ConditionInstance) else instance[0]
    red = np.array([[float(Fraction(v)) for v in r] for r in data["data"]["reduction"]["W_down_reduced"]])
    assert np.allclose(b.skip() @ red, b.W_down)
    assert len(data["data"]["point_checks"]) == len(instance[1])
    assert all(p["equal"] for p in data["data"]["point_checks"])
    if isinstance(instance[0], ConditionInstance):
        cond = data["data"]["condition"]
        assert cond["original_equals_minus_M"] and cond["reduced_equals_minus_I"]
        assert len(cond["sign_flip_checks"]) == len(instance[1])


def _shear_block(act="relu"):
    M = np.array([[1.0, 2.0], [0.0, 1.0]])  # inverse [[1, -2], [0, 1]]
    return Block(act, W_up=np.array([[1.0, -0.5], [0.25, 2.0]]),
                 W_down=np.array([[1.0, 3.0], [-2.0, 0.5]]), M=M)


def test_concrete_reduced_weights_and_values():
    cert = check(_shear_block())
    red = cert.data["reduction"]
    assert red["M_inverse"] == [["1", "-2"], ["0", "1"]]
    # M^-1 W_down = [[1 + 4, 3 - 1], [-2, 1/2]].
    assert red["W_down_reduced"] == [["5", "2"], ["-2", "1/2"]]
    # At x = e_1: W_up x = (1, 1/4), relu keeps both; F = M e_1 + W_down (1, 1/4) = (1 + 7/4, -15/8).
    first = cert.data["point_checks"][0]
    assert first["x"] == ["1", "0"] and first["F"] == ["11/4", "-15/8"] and first["M_G"] == first["F"]


def test_gated_and_ball_instances_certified():
    gated = Block("swiglu", W_up=np.array([[1.0, 0.5]]), W_down=np.array([[2.0], [-1.0]]),
                  W_gate=np.array([[0.5, -1.0]]), M=np.array([[0.0, 1.0], [1.0, 0.0]]))
    cert = check(gated)
    assert cert.holds and cert.exact and cert.method.startswith("exact matrix identities")
    assert recheck(_json(cert))


def test_condition_instance_sign_flip():
    # W_down[:, S] W_up[S, :] = -M with S = {0, 1}: W_S = -M U_S^-1, U_S = I.
    M = np.array([[1.0, 1.0], [0.0, 1.0]])
    b = Block("gelu", W_up=np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
              W_down=np.hstack([-M, np.array([[0.5], [0.25]])]), M=M)
    cert = check(ConditionInstance(b, (0, 1)))
    assert cert.holds and cert.exact
    cond = cert.data["condition"]
    assert cond["original_equals_minus_M"] and cond["reduced_equals_minus_I"]
    assert all(f["equal"] for f in cond["sign_flip_checks"])
    # A wrong index set breaks the condition, and the checker says so.
    bad = check(ConditionInstance(b, (0, 2)))
    assert not bad.holds and not bad.data["condition"]["original_equals_minus_M"]


def test_tampered_certificates_are_rejected():
    good = _json(check(_shear_block()))
    assert recheck(good)
    point = copy.deepcopy(good)
    point["data"]["points"][0] = ["3", "0"]
    assert not recheck(point)
    weight = copy.deepcopy(good)
    weight["data"]["block"]["W_down"][0][1] = 3.5
    assert not recheck(weight)
    inverse = copy.deepcopy(good)
    inverse["data"]["reduction"]["W_down_reduced"][0][0] = "4"
    assert not recheck(inverse)
    value = copy.deepcopy(good)
    value["data"]["point_checks"][0]["F"][0] = "3"
    assert not recheck(value)
    assert not recheck({"claim": "skip-reduction", "holds": True})  # malformed


def test_singular_M_is_not_certified():
    b = Block("relu", W_up=np.ones((1, 2)), W_down=np.ones((2, 1)),
              M=np.array([[0.5, 0.5], [0.5, 0.5]]))
    cert = check(b)
    assert not cert.holds and cert.data["M_invertible"] is False
    assert not recheck(_json(cert))


def test_run_check_passes():
    res = run_check(check, 20)
    assert res.passed and res.instances == 20 and res.exact_instances == 20
