"""Tests for claims depth-impossible (Cor. 7) and depth-any."""

import copy
import json
from fractions import Fraction

import numpy as np
from hypothesis import example, given, settings

from oracle.core.blocks import Block, Stack
from oracle.claims.base import run_check
from oracle.claims.depth import (
    DepthInstance, check_general_skips, check_identity_skips, depth_instances,
    recheck_general_skips, recheck_identity_skips, skip_product
)


def _json(cert):
    return json.loads(json.dumps(cert.as_dict()))


def _float_product(stack):
    P = np.eye(stack.blocks[0].d)
    for b in stack.blocks:
        P = b.skip() @ P
    return P


def _assert_ray(inst, data):
    ray = data["ray"]
    P = _float_product(inst.residual)
    assert np.allclose([[float(Fraction(a)) for a in r] for r in data["skip_product"]], P)
    v = np.array([float(Fraction(a)) for a in ray["v"]])
    Pv = P @ v
    assert np.any(Pv != 0)
    bound = Fraction(ray["quotient"]["error_bound"])
    assert bound < Fraction(max(abs(Pv))) / 2
    t = 2.0 ** -ray["quotient"]["j"]
    q = (inst.residual.eval_f64(t * v) - inst.plain.eval_f64(t * v)) / t
    assert np.max(np.abs(q - Pv)) <= float(bound) * (1 + 1e-6) + 1e-6


def _vanishing_gate_instance():
    """A drawn instance that once broke the certificate: the residual relu2 block has zero weights
    (F = x exactly) and the plain stack's output is 0 in the first coordinate and
    4 silu(-4 y) (4 y) with y = 262144 in the second (about e^-1000000).  Along v = e_1 the
    quotient error is that tiny number alone; its exact endpoint had about 455000 digits and writing
    it failed with Python's int-to-str limit (ValueError)."""
    col, row = np.array([[0.0], [4.0]]), np.array([[0.0, 4.0]])
    R = Stack([Block("relu2", W_up=np.zeros((1, 2)), W_down=np.zeros((2, 1)), M=np.eye(2))])
    Q = Stack([Block("relu2", W_up=np.array([[4.0, 0.0]]), W_down=col, kind="plain"),
               Block("relu2", W_up=row, W_down=col, kind="plain"),
               Block("swiglu", W_up=row, W_down=col, W_gate=-row, kind="plain")])
    return DepthInstance(R, Q, None)


def test_a_vanishing_quotient_error_is_stated_short():
    data = _json(check_identity_skips(_vanishing_gate_instance()))
    assert data["holds"] and recheck_identity_skips(data)
    quotient = data["data"]["ray"]["quotient"]
    assert quotient["j"] == 0 and data["data"]["ray"]["backend"] == "ball"
    # the bound is the floor, 2^-64 of the target 1/2: short, and still above the true error
    assert quotient["error_bound"] == "1/36893488147419103232" and quotient["half_max_Pv"] == "1/2"
    assert "e-455379" in quotient["quotient"][1]
    bad = copy.deepcopy(data)
    bad["data"]["ray"]["quotient"]["error_bound"] = "1/73786976294838206464"  # below the floor
    assert not recheck_identity_skips(bad)


@settings(max_examples=100, deadline=None)
@given(depth_instances(True))
@example(_vanishing_gate_instance())
def test_identity_skip_certificate(inst):
    cert = check_identity_skips(inst)
    data = _json(cert)
    assert cert.holds and cert.exact and recheck_identity_skips(data)
    d = inst.residual.blocks[0].d
    assert data["data"]["skip_product"] == [[str(int(i == j)) for j in range(d)] for i in range(d)]
    exact_kinds = all(b.act.exact is not None for b in inst.residual.blocks + inst.plain.blocks)
    assert data["data"]["ray"]["backend"] == ("exact" if exact_kinds else "ball")
    _assert_ray(inst, data["data"])


@settings(max_examples=100, deadline=None)
@given(depth_instances(False))
def test_general_skip_certificate(inst):
    cert = check_general_skips(inst)
    data = _json(cert)
    assert cert.holds and cert.exact and recheck_general_skips(data)
    assert data["data"]["hypotheses"]["skip_product_nonzero"] is True
    _assert_ray(inst, data["data"])


def _block(act, M=None, kind="residual", m=2, scale=1.0):
    gate = np.array([[1.0, -0.5], [0.25, 1.0], [1.0, 1.0]])[:m] if act not in ("relu", "relu2") else None
    return Block(act, W_up=scale * np.array([[1.0, 2.0], [-1.0, 0.5], [0.5, 0.5]])[:m],
                 W_down=np.array([[1.0, -1.0, 0.5], [0.5, 2.0, 1.0]])[:, :m], W_gate=gate,
                 M=M, kind=kind)


def test_concrete_polynomial_stack_is_exact():
    R = Stack([_block("relu2"), _block("bilinear")])
    Q = Stack([_block("reglu", kind="plain", m=3)])
    cert = check_identity_skips(DepthInstance(R, Q))
    assert cert.holds and cert.exact and cert.method == "exact rationals"
    ray = cert.data["ray"]
    assert ray["v"] == ["1", "0"] and ray["Pv"] == ["1", "0"]
    # Exact witness: the difference is a nonzero rational vector.
    assert any(Fraction(a) != 0 for a in ray["witness"]["difference"])


def test_product_of_nonzero_singular_skips_is_rejected():
    M1, M2 = np.diag([1.0, 0.0]), np.diag([0.0, 1.0])
    R = Stack([_block("relu2", M=M1), _block("swiglu", M=M2)])
    assert skip_product(R) == [[0, 0], [0, 0]]
    Q = Stack([_block("relu2", kind="plain")])
    cert = check_general_skips(DepthInstance(R, Q))
    assert not cert.holds and cert.data["hypotheses"]["skip_product_nonzero"] is False
    assert not recheck_general_skips(_json(cert))
    # Swapping the order keeps a nonzero product only if M2 M1 != 0; here M1 M2 = 0 as well,
    # while M1 M1 = M1 != 0 is accepted.
    ok = check_general_skips(DepthInstance(Stack([_block("relu2", M=M1), _block("swiglu", M=M1)]), Q))
    assert ok.holds and ok.data["skip_product"] == [["1", "0"], ["0", "0"]]


def test_non_flat_blocks_are_not_certified():
    Q = Stack([_block("relu2", kind="plain")])
    relu_res = check_identity_skips(DepthInstance(Stack([_block("relu")]), Q))
    assert not relu_res.holds and relu_res.data["hypotheses"]["res_blocks_flat"] is False
    glu_plain = check_identity_skips(DepthInstance(Stack([_block("geglu")]),
                                                   Stack([_block("glu", kind="plain")])))
    assert not glu_plain.holds and glu_plain.data["hypotheses"]["plain_blocks_flat"] is False
    general = check_identity_skips(DepthInstance(Stack([_block("relu2", M=2 * np.eye(2))]), Q))
    assert not general.holds and general.data["hypotheses"]["identity_skips"] is False


def test_tampered_certificates_are_rejected():
    R = Stack([_block("geglu", M=np.array([[1.0, 1.0], [0.0, 1.0]])), _block("relu2")])
    Q = Stack([_block("swiglu", kind="plain"), _block("reglu", kind="plain", m=3)])
    good = _json(check_general_skips(DepthInstance(R, Q)))
    assert good["holds"] and recheck_general_skips(good)
    point = copy.deepcopy(good)
    point["data"]["ray"]["witness"]["x"] = ["0", "0"]
    assert not recheck_general_skips(point)
    skip = copy.deepcopy(good)
    skip["data"]["residual"][0]["M"][0][1] = 2.0
    assert not recheck_general_skips(skip)
    weight = copy.deepcopy(good)
    weight["data"]["plain"][1]["W_down"][0][0] = 3.0
    assert not recheck_general_skips(weight)
    product = copy.deepcopy(good)
    product["data"]["skip_product"][0][0] = "2"
    assert not recheck_general_skips(product)
    quotient = copy.deepcopy(good)
    quotient["data"]["ray"]["quotient"]["j"] = 0
    assert good["data"]["ray"]["quotient"]["j"] != 0
    assert not recheck_general_skips(quotient)
    assert not recheck_identity_skips(good)


def test_run_checks_pass():
    for fn in (check_identity_skips, check_general_skips):
        res = run_check(fn, 20)
        assert res.passed and res.instances == 20 and res.exact_instances == 20
