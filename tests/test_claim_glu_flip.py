"""glu-flip: negating gate rows and output columns in S adds W_S U_S-type linear terms."""

import copy
from fractions import Fraction

import numpy as np
from hypothesis import given, settings

from oracle.core.blocks import Block
from oracle.claims import glu_flip as gf
from oracle.claims.base import run_check

Q = Fraction


@settings(max_examples=100, deadline=None)
@given(inst=gf.STRATEGY)
def test_certificate_holds_and_rechecks(inst):
    cert = gf.check(inst)
    assert cert.holds and cert.exact
    # a planted block meets W_S U_S = -M exactly; a near miss (2^-30 off) exactly does not, and
    # its flip is told apart from Mx + B(x) by ball enclosures
    assert cert.data["algebraic_identity"] is (not inst.near_miss)
    if inst.near_miss:
        assert cert.data["told_apart"]["told_apart"] and cert.data["told_apart"]["diff_bound"] > 2.0 ** -40
    assert cert.data["flip_symmetry"]["all_contain_0"] and cert.data["flip_symmetry"]["checked"] > 0
    assert gf.recheck(cert.as_dict())


def test_run_check_passes():
    res = run_check(gf.check, 20)
    assert res.passed and res.instances == 20


def _one_dim(delta=0.0):
    b = Block("glu", W_up=np.array([[1.0]]), W_down=np.array([[-1.0 + delta]]), W_gate=np.array([[1.0]]))
    return gf.GluInstance(b, (0,), [[Q(3)], [Q(-5, 2)], [Q(1, 3)]])


def test_one_dimensional_example():
    cert = gf.check(_one_dim())
    assert cert.holds
    assert [r["x"] for r in cert.data["points"]] == [["3"], ["-5/2"], ["1/3"], ["0"]]
    assert all(r["diff_bound"] < 2.0 ** -80 for r in cert.data["points"])


def test_near_miss_not_certified():
    # presented as planted, the 2^-30 near miss is refused: W_S U_S = -M fails exactly
    cert = gf.check(_one_dim(delta=2.0 ** -30))
    assert not cert.holds
    assert cert.data["algebraic_identity"] is False
    # the flip identity B_S(x) = B(x) - W_S U_S x still holds at every point (any S)
    assert all(r["equal"] for r in cert.data["points"])
    # presented as a near miss, it is certified: Mx + B(x) and B_S(x) differ by 2^-30 x at x = 1
    inst = _one_dim(delta=2.0 ** -30)
    inst.near_miss = True
    cert = gf.check(inst)
    assert cert.holds and cert.data["told_apart"]["x"] == ["1"] and cert.data["told_apart"]["told_apart"]
    assert 2.0 ** -31 < cert.data["told_apart"]["diff_bound"] < 2.0 ** -29
    assert gf.recheck(cert.as_dict())


def test_tampered_certificates_rejected():
    d = gf.check(_one_dim()).as_dict()
    bad = copy.deepcopy(d)
    bad["data"]["S"] = []
    assert not gf.recheck(bad)
    bad = copy.deepcopy(d)
    bad["data"]["W_gate"][0][0] = "2"  # the flip still holds for any gate: tamper the output instead
    assert gf.recheck(bad)
    bad["data"]["W_down"][0][0] = "-3/4"
    assert not gf.recheck(bad)


def test_flipped_matrices():
    G, D = gf.flipped([[Q(1), Q(2)], [Q(3), Q(4)]], [[Q(5), Q(6)], [Q(7), Q(8)]], (1,))
    assert G == [[1, 2], [-3, -4]] and D == [[5, -6], [7, -8]]
