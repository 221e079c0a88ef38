"""Tests for claim depth-width: plain stacks of widths m_l + 2d - rank W_up,l equal the residual stack."""

import copy
import json
from fractions import Fraction as Q

from oracle.claims.base import run_check
from oracle.claims import depth_stacks as ds
from oracle.claims import depth_boundary as db
from oracle.core import rational
from oracle.algebra.stacks import layers as sl
from oracle.algebra.stacks import planar as sp
from oracle.algebra.exact import identity


def _json(cert):
    return json.loads(json.dumps(cert.as_dict()))


def test_run_check_passes_exactly():
    res = run_check(ds.check_width, 25)
    assert res.claim == "depth-width" and res.passed and res.instances == 25 and res.exact_instances == 25


def test_canonical_form_decides_identities():
    one = [[Q(1)]]
    # x + relu(x) = 2 relu(x) - relu(-x)
    assert sl.canonical_form([[Q(1)]], [[Q(1)]], one) == sl.canonical_form([[Q(1)], [Q(-1)]], [[Q(2), Q(-1)]])
    # x + relu(x) != 2 relu(x) + relu(-x)
    assert sl.canonical_form([[Q(1)]], [[Q(1)]], one) != sl.canonical_form([[Q(1)], [Q(-1)]], [[Q(2), Q(1)]])
    # rescaled rows on one line merge: relu(2x) + relu(-x) has alpha = (2 + 1)/2 on the line of 1
    lin, even = sl.canonical_form([[Q(2)], [Q(-1)]], [[Q(1), Q(1)]])
    assert even == {(1,): [Q(3, 2)]} and lin == [[Q(1, 2)]]


def test_widths_generic_and_rank_deficient():
    gen = [([[Q(1), Q(0)], [Q(0), Q(1)], [Q(1), Q(1)]], [[Q(1), Q(2), Q(-1)], [Q(0), Q(1), Q(3)]]),
           ([[Q(2), Q(1)]], [[Q(1)], [Q(1)]])]
    per = ds.width_construction(gen)
    assert [p["width"] for p in per] == [5, 4] == [max(3 + 2, 4), max(1 + 2, 4)]
    assert all(p["canonical_equal"] for p in per)
    U, W = db.width_deficient_block()
    p = ds.width_construction([(U, W)])[0]
    assert p["rank_U"] == 2 and p["width"] == 7 > p["generic_width"] == 6 and p["canonical_equal"]
    cert = ds.check_width(ds.StackInstance(gen))
    assert cert.holds and ds.recheck_width(_json(cert))


def test_construction_equals_the_stack_at_points():
    gen = [([[Q(1), Q(-2)], [Q(3), Q(1)]], [[Q(1, 2), Q(2)], [Q(-1), Q(1, 3)]])] * 3
    plain = [(rational.qmat(p["W_up"]), rational.qmat(p["W_down"])) for p in ds.width_construction(gen)]
    for x in sl.rational_points(2, 20, 1):
        assert sl.eval_stack(gen, x, True) == sl.eval_stack(plain, x, False)
    ok, _ = sp.stacks_equal(gen, plain)   # d = 2: a proof on all of R^2
    assert ok


def test_tampered_certificates_are_rejected():
    gen = [([[Q(1), Q(0)], [Q(0), Q(1)], [Q(1), Q(1)]], [[Q(1), Q(2), Q(-1)], [Q(0), Q(1), Q(3)]])]
    good = _json(ds.check_width(ds.StackInstance(gen)))
    assert ds.recheck_width(good)
    bad = copy.deepcopy(good)
    bad["data"]["layers"][0]["W_down"][0][0] = "7"
    assert not ds.recheck_width(bad)
    bad = copy.deepcopy(good)
    bad["data"]["residual"][0]["W_down"][1][2] = "4"
    assert not ds.recheck_width(bad)
    bad = copy.deepcopy(good)       # drop a unit: wrong width and wrong function
    bad["data"]["layers"][0]["W_up"].pop()
    for r in bad["data"]["layers"][0]["W_down"]:
        r.pop()
    assert not ds.recheck_width(bad)
    assert identity(2) == [[1, 0], [0, 1]]
