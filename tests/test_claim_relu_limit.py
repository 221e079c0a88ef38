"""relu-limit: with biases and for relu, gelu, gelu_tanh, silu, a nondegenerate block absorbs at the
same width iff an index set exists; limits enclosed with balls; the boundary counterexamples."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings

from oracle.formal import consistency
from oracle.core import activations
from oracle.core.blocks import Block
from oracle.claims import relu_limit as rl
from oracle.claims import load
from oracle.claims.base import run_check

Q = Fraction


@settings(max_examples=60, deadline=None)
@given(inst=rl.STRATEGY)
def test_relu_limit_certificate_holds_and_rechecks(inst):
    cert = rl.check(inst)
    assert cert.holds and cert.exact
    assert rl.recheck(json.loads(json.dumps(cert.as_dict())))


def test_relu_limit_run_check_passes():
    res = run_check(rl.check, 20)
    assert res.passed and res.instances == 20


@pytest.mark.parametrize("act", activations.COQ_RELU_LIMIT)
def test_limits_are_enclosed(act):
    e = rl.limit_enclosure(act)
    assert e["holds"] and e["enclosed_max"] <= 0.5
    assert all(s["ok"] for s in e["samples"])
    if act != "relu":
        assert e["enclosed_max"] > 0.1  # s - relu is really nonzero: the bound is not vacuous


def test_biased_flip_and_tampering():
    """Sufficiency with biases: flip rows and b_up in S, add W_S b_S to b_down."""
    U = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    W = np.array([[-1.0, 0.0, 2.0], [0.0, -1.0, 0.5]])
    b = Block("gelu", W_up=U, W_down=W, b_up=np.array([0.5, -1.0, 2.0]), b_down=np.array([1.0, 0.0]))
    inst = rl.LimitInstance("sufficiency", b, (0, 1), [[Q(1), Q(-2)], [Q(-3, 2), Q(1, 4)]])
    cert = rl.check(inst).as_dict()
    assert cert["holds"] and cert["data"]["flipped"]["b_down"] == ["1/2", "1"]  # 1 - 1/2, 0 + 1
    assert rl.recheck(cert)
    bad = copy.deepcopy(cert)
    bad["data"]["flipped"]["b_down"] = ["1", "0"]  # the correction forgotten
    assert not rl.recheck(bad)
    bad = copy.deepcopy(cert)
    bad["data"]["S"] = [0]
    assert not rl.recheck(bad)
    bad = copy.deepcopy(cert)
    bad["data"]["index_sets"] = []
    assert not rl.recheck(bad)
    bad = copy.deepcopy(cert)
    bad["data"]["activation"] = "relu2"  # no relu limit
    assert not rl.recheck(bad)


def test_necessity_certificate_and_tampering():
    b = Block("silu", W_up=np.array([[1.0, 0.0], [0.0, 1.0]]), W_down=np.eye(2), b_up=np.array([3.0, -1.0]))
    cert = rl.check(rl.LimitInstance("necessity", b)).as_dict()
    assert cert["holds"] and cert["data"]["index_sets"] == []
    assert cert["data"]["limit_relu_width"]["m_star"] == 4  # x + relu(x) per coordinate: 2 + 2
    assert rl.recheck(cert)
    bad = copy.deepcopy(cert)
    bad["data"]["limit_relu_width"]["m_star"] = 2
    assert not rl.recheck(bad)
    bad = copy.deepcopy(cert)
    bad["data"]["W_up"] = [["1", "0"], ["2", "0"]]  # collinear rows: outside the hypothesis
    assert not rl.recheck(bad)


EXPECTED = {"split_relu_distinct_hyperplanes": "nondegenerate", "linear_activation": "sigma_limit_relu",
            "elu_no_odd_part": "sigma_odd_part"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counterexamples_hold_and_drop_real_tags(name):
    reg = {c["id"]: c for c in consistency.load_registry()}
    fn = getattr(rl, name)
    assert fn in load().counterexamples
    info = fn.counterexample_info
    assert info.claims == ("relu-limit",) and info.dropped == EXPECTED[name]
    assert info.dropped in reg["relu-limit"]["hypotheses"]
    cert = fn()
    assert cert.holds and cert.exact


def test_split_relu_identity_by_hand():
    s = rl.split_relu_q
    for x in (Q(-3), Q(0), Q(1, 2), Q(1), Q(2), Q(5, 2), Q(3), Q(7)):
        lhs = x + 2 * s(2 * x - 1) + 2 * s(2 * x - 5) - 4 * s(x - 1)
        assert lhs == 4 * s(x - 2) + s(x) - s(-x)
    assert s(Q(0)) == Q(1, 2)  # the split relu does not vanish at 0
