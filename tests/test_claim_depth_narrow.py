"""Tests for claim depth-narrow: invertible pieces rule out plain stacks with a narrow layer."""

import copy
import json
from fractions import Fraction as Q

import pytest
from hypothesis import given, settings

from oracle.claims.base import run_check
from oracle.claims import depth_stacks as ds
from oracle.algebra import exact
from oracle.algebra.stacks import layers as sl
from oracle.algebra.stacks import narrow as sn


def _json(cert):
    return json.loads(json.dumps(cert.as_dict()))


def _small_stack(d, widths, seed=1):
    # Near-identity exact layers: |W| |U| < 1, so the norm certificate applies.
    import random
    rng = random.Random(seed)
    out = []
    for m in widths:
        U = [[Q(rng.choice([-3, -2, -1, 1, 2, 3]), 2) for _ in range(d)] for _ in range(m)]
        W = [[Q(rng.choice([-3, -2, -1, 1, 2, 3]), 16 * m * d) for _ in range(m)] for _ in range(d)]
        out.append((U, W))
    return out


def test_run_check_passes_exactly():
    res = run_check(ds.check_narrow, 25)
    assert res.claim == "depth-narrow" and res.passed and res.instances == 25 and res.exact_instances == 25


def test_part_a_uses_the_cone_point_of_the_proof():
    layers = _small_stack(2, [3, 3])
    cand = [([[Q(1), Q(2)], [Q(-1), Q(1)]], [[Q(1), Q(0)], [Q(2), Q(1)]]),
            ([[Q(1), Q(1)]] * 5, [[Q(1)] * 5, [Q(-1)] * 5])]
    cert = ds.check_narrow(ds.StackInstance(layers, [2, 5], cand, 3))
    assert cert.holds and cert.exact and cert.data["conditions"]["part"] == "a"
    x = [Q(v) for v in cert.data["cone_point"]]
    assert any(x) and all(v <= 0 for v in exact.matvec_q(cand[0][0], x))
    assert sl.eval_stack(cand, x, False) == [0, 0]
    assert any(sl.eval_stack(layers, x, True))
    assert ds.recheck_narrow(_json(cert))


def test_part_c_transversality_is_checked_over_all_patterns():
    layers = [([[Q(1), Q(0)], [Q(0), Q(1)], [Q(1), Q(2)]], [[Q(1, 8), Q(-1, 16), Q(1, 32)], [Q(1, 16), Q(1, 8), Q(-1, 32)]]),
              ([[Q(2), Q(-1)], [Q(1), Q(3)]], [[Q(1, 16), Q(-1, 32)], [Q(1, 32), Q(1, 16)]])]
    cond = sn.narrow_conditions(layers, [3, 2])
    assert cond["part"] == "c" and cond["applies"]
    # for each i, each D not containing i (2^(m1-1) of them), each j: 3 * 4 * 2 = 24 checks
    assert cond["transversal"] == {"ok": True, "checked": 24}


def test_transversality_failure_is_detected():
    # Block 2 has a row equal to a layer-1 row and W_1 has no effect on it: (I + W_1 D U_1)^T u2 = u2.
    U1, W1 = [[Q(1), Q(0)], [Q(0), Q(1)], [Q(1), Q(1)]], [[Q(0), Q(1, 64), Q(0)], [Q(0), Q(0), Q(1, 64)]]
    U2, W2 = [[Q(1), Q(0)], [Q(1), Q(-1)]], [[Q(1, 32), Q(1, 32)], [Q(-1, 32), Q(1, 32)]]
    t = sn.transversal([(U1, W1), (U2, W2)])
    assert not t["ok"] and t["failure"]["i"] == 0 and t["failure"]["j"] == 0
    cert = ds.check_narrow(ds.StackInstance([(U1, W1), (U2, W2)], [3, 2], None))
    assert not cert.holds


def test_pieces_certificates_norm_and_determinants():
    U, W = [[Q(1), Q(0)], [Q(0), Q(1)]], [[Q(1, 4), Q(0)], [Q(0), Q(1, 4)]]
    p = sn.pieces_certificate(U, W)
    assert p["method"] == "norm" and p["ok"] and p["bound_U_sq"] == "1" and p["bound_W_sq"] == "1/16"
    W2 = [[Q(3), Q(0)], [Q(0), Q(1)]]
    p2 = sn.pieces_certificate(U, W2)
    assert p2["method"] == "det" and p2["ok"] and p2["dets"] == ["1", "4", "2", "8"]
    W3 = [[Q(-1), Q(0)], [Q(0), Q(1)]]
    p3 = sn.pieces_certificate(U, W3)
    assert not p3["ok"] and p3["singular_patterns"] == [[0], [0, 1]]


@settings(max_examples=30, deadline=None)
@given(ds.narrow_instances())
def test_invertible_pieces_give_no_zero_of_F(inst):
    # The first step of depth-narrow: F(x) != 0 for x != 0, checked exactly at rational points.
    for x in sl.rational_points(len(inst.layers[0][1]), 12, inst.seed):
        if any(x):
            assert any(sl.eval_stack(inst.layers, x, True))


def test_hypothesis_failures_are_reported():
    I2 = [[Q(1), Q(0)], [Q(0), Q(1)]]
    minus = [[Q(-1), Q(0)], [Q(0), Q(-1)]]
    bad = ds.check_narrow(ds.StackInstance([(I2, minus), (I2, minus)], [2, 2], None))
    assert not bad.holds and bad.data["conditions"]["pieces_invertible"] is False
    wide = ds.check_narrow(ds.StackInstance(_small_stack(2, [3, 3]), [3, 3], None))
    assert not wide.holds and wide.data["conditions"]["part"] is None


def test_tampered_certificates_are_rejected():
    layers = _small_stack(2, [3, 3])
    cand = [([[Q(1), Q(2)], [Q(-1), Q(1)]], [[Q(1), Q(0)], [Q(2), Q(1)]]),
            ([[Q(1), Q(1)]] * 5, [[Q(1)] * 5, [Q(-1)] * 5])]
    good = _json(ds.check_narrow(ds.StackInstance(layers, [2, 5], cand, 3)))
    assert ds.recheck_narrow(good)
    w = copy.deepcopy(good)
    w["data"]["residual"][0]["W_down"][0][0] = "5"          # breaks the norm bound and the data
    assert not ds.recheck_narrow(w)
    c = copy.deepcopy(good)
    c["data"]["conditions"]["pieces"][0]["bound_U_sq"] = "1/2"
    assert not ds.recheck_narrow(c)
    p = copy.deepcopy(good)
    p["data"]["cone_point"] = ["1", "1"]                   # the candidate's first layer is active there
    assert not ds.recheck_narrow(p)
    x = copy.deepcopy(good)
    x["data"]["difference"]["P"] = x["data"]["difference"]["F"]
    assert not ds.recheck_narrow(x)
    widths = copy.deepcopy(good)
    widths["data"]["conditions"]["plain_widths"] = [3, 3]
    assert not ds.recheck_narrow(widths)
    claim = copy.deepcopy(good)
    claim["claim"] = "depth-d2"
    assert not ds.recheck_narrow(claim)
    assert not ds.recheck_narrow({"claim": "depth-narrow", "holds": True, "data": {}})
