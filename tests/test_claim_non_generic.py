"""non-generic: every W_S U_S + M is nonzero on generic weights; each p_S is a nonzero polynomial."""

import copy
from fractions import Fraction

import numpy as np
from hypothesis import given, settings

from oracle.core.blocks import Block
from oracle.claims import non_generic as ng
from oracle.claims.base import run_check

Q = Fraction


@settings(max_examples=100, deadline=None)
@given(inst=ng.STRATEGY)
def test_certificate_holds_and_rechecks(inst):
    cert = ng.check(inst)
    assert cert.holds and cert.exact
    d, m = inst.block.d, inst.block.m
    assert cert.data["subsets"] == 2 ** m
    # ||M||_F^2 exactly (M is the identity, unimodular, or a rank-one dyadic matrix)
    assert cert.data["p_S_at_W_down_0"] == str(sum(Fraction(float(v)) ** 2 for v in inst.block.skip().ravel()))
    assert Fraction(cert.data["min_norm2"]) > 0
    assert ng.recheck(cert.as_dict())


def test_run_check_passes():
    res = run_check(ng.check, 20)
    assert res.passed and res.instances == 20


def test_subset_norms_values():
    U = [[Q(1), Q(0)], [Q(0), Q(1)]]
    W = [[Q(-1), Q(0)], [Q(0), Q(-1)]]
    norms = ng.subset_norms(U, W, [[Q(1), Q(0)], [Q(0), Q(1)]])
    assert norms == [2, 1, 1, 0]  # ||I||^2, ||diag(0,1)||^2, ||diag(1,0)||^2, ||0||^2 (scale 1)


def _instance(delta):
    up = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    down = np.array([[-1.0 + delta, 0.0, 3.0], [0.0, -1.0, 1.0]])
    return ng.NonGenericInstance(Block("relu", W_up=up, W_down=down), seed=-1)


def test_condition_satisfied_is_reported():
    cert = ng.check(_instance(0.0))
    assert not cert.holds and cert.data["zero_subsets"] == [[0, 1]]


def test_near_miss_has_exact_tiny_norm():
    cert = ng.check(_instance(2.0 ** -30))
    assert cert.holds
    assert Fraction(cert.data["min_norm2"]) == Fraction(1, 2 ** 60)
    assert cert.data["argmin_S"] == [0, 1]


def test_tampered_certificate_rejected():
    d = ng.check(_instance(2.0 ** -30)).as_dict()
    assert ng.recheck(d)
    bad = copy.deepcopy(d)
    bad["data"]["min_norm2"] = "1"
    assert not ng.recheck(bad)
    bad = copy.deepcopy(d)
    bad["data"]["W_down"][0][0] = "-1"  # now S = {0, 1} satisfies the condition
    assert not ng.recheck(bad)
    bad = copy.deepcopy(d)
    bad["data"]["W_up"][2] = ["2", "0"]  # collinear with row 0: degenerate
    assert not ng.recheck(bad)
