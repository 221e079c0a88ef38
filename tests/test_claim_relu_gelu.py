"""relu-gelu-iff: sign-flip sufficiency, exhaustive necessity, kink witnesses, |S| >= d."""

import copy
from fractions import Fraction

import numpy as np
from hypothesis import given, settings

from oracle.core.blocks import Block
from oracle.algebra import exact as ex
from oracle.core.rational import qmat, qvec, svec
from oracle.claims import relu_gelu as rg
from oracle.claims.base import run_check

Q = Fraction


@settings(max_examples=100, deadline=None)
@given(inst=rg.STRATEGY)
def test_certificate_holds_and_rechecks(inst):
    cert = rg.check(inst)
    assert cert.holds, cert.reason
    assert cert.exact
    assert rg.recheck(cert.as_dict())
    for S in cert.data["index_sets"]:
        assert len(S) >= cert.data["d"]  # M invertible in every generated instance


def test_run_check_passes():
    res = run_check(rg.check, 20)
    assert res.passed and res.instances == 20 and res.exact_instances == 20


def _suff_instance(W_down_delta=0.0):
    up = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    down = np.array([[-1.0, 0.0, 2.0], [0.0, -1.0, 1.0]])
    down[0, 0] += W_down_delta
    b = Block("relu", W_up=up, W_down=down)
    return rg.Instance("sufficiency", b, (0, 1), [[Q(1), Q(-2)], [Q(1, 3), Q(5)]])


def test_known_instance_values():
    cert = rg.check(_suff_instance())
    assert cert.holds and cert.data["index_sets"] == [[0, 1]]
    assert cert.data["algebraic_identity"] is True
    row = cert.data["points"]["relu"][0]
    # F(1, -2) = x + B(x) = (1 - relu(1) + 2 relu(-1), -2 - relu(-2) + relu(-1)) = (0, -2)
    assert row["x"] == ["1", "-2"] and row["value"] == ["0", "-2"]
    assert all(r["diff_bound"] < 2.0 ** -80 for r in cert.data["points"]["gelu"])


def test_near_miss_is_not_certified():
    cert = rg.check(_suff_instance(W_down_delta=2.0 ** -30))
    assert not cert.holds
    assert cert.data["index_sets"] == [] and cert.data["algebraic_identity"] is False


def test_tampered_S_and_weight_rejected():
    d = rg.check(_suff_instance()).as_dict()
    bad = copy.deepcopy(d)
    bad["data"]["S"] = [0]
    assert not rg.recheck(bad)
    bad = copy.deepcopy(d)
    bad["data"]["W_down"][0][2] = "17/8"  # outside S: the stored exact values no longer match
    assert not rg.recheck(bad)
    bad = copy.deepcopy(d)
    bad["data"]["W_down"][0][0] = "-9/8"  # inside S: the condition itself breaks
    assert not rg.recheck(bad)
    bad = copy.deepcopy(d)
    bad["data"]["index_sets"] = []
    assert not rg.recheck(bad)


def _nec_instance():
    up = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 2.0]])
    down = np.array([[1.0, 0.5, -1.0], [2.0, 1.0, 0.25]])
    cand = (np.array([[1.0, 1.0], [0.0, 1.0], [1.0, -1.0]]), np.eye(2, 3))
    return rg.Instance("necessity", Block("relu", W_up=up, W_down=down), (), [[Q(1), Q(1)]], cand)


def test_necessity_witnesses_are_exact():
    cert = rg.check(_nec_instance())
    assert cert.holds and cert.data["index_sets"] == []
    methods = [w["witness"]["method"] for w in cert.data["witnesses"]]
    assert methods == ["kink", "linear part", "kink"]
    U, W = qmat(cert.data["W_up"]), qmat(cert.data["W_down"])
    for w in cert.data["witnesses"]:
        x = qvec(w["witness"]["x"])
        lhs = ex.eval_plain_q("relu", U, W, x, M=ex.identity(2))
        rhs = ex.eval_plain_q("relu", qmat(w["C_up"]), qmat(w["C_down"]), x)
        assert lhs != rhs and svec(lhs) == w["witness"]["F"]
    assert rg.recheck(cert.as_dict())


def test_tampered_witness_rejected():
    d = rg.check(_nec_instance()).as_dict()
    bad = copy.deepcopy(d)
    bad["data"]["witnesses"][0]["witness"]["x"] = ["0", "0"]  # F(0) = B'(0) = 0
    assert not rg.recheck(bad)


def test_kink_witness_none_for_the_true_absorber():
    U, W = [[Q(1), Q(0)], [Q(0), Q(1)]], [[Q(-1), Q(0)], [Q(0), Q(-1)]]
    assert rg.kink_witness(U, W, ex.identity(2), [[Q(-1), Q(0)], [Q(0), Q(-1)]], W) is None
    # A positively rescaled flipped unit (output divided by the scale) is the same function.
    assert rg.kink_witness(U, W, ex.identity(2), [[Q(-2), Q(0)], [Q(0), Q(-1)]],
                           [[Q(-1, 2), Q(0)], [Q(0), Q(-1)]]) is None
