"""gelu-complete: the exact minimal width m* of a gelu / gelu_tanh / silu block equal to M x + B(x)
(proofs/informal/gelu-complete.md), with the issue 31 hand cases, forged certificates and a
brute-force count in d = 1 that does not use the formula."""

from __future__ import annotations

import copy
import itertools
import json
from fractions import Fraction

from hypothesis import given, settings

from oracle.algebra.gelu_width import construct, forms_equal, gelu_form_exact, width
from oracle.claims import gelu_complete as gc
from oracle.claims import load
from oracle.claims.base import run_check
from oracle.formal import consistency

Q = Fraction
I1 = [[Q(1)]]


def _mstar(U, W, M, c=None, b=None):
    wr = width(gelu_form_exact(U, W, M, c, b))
    assert wr.exact
    return wr.lower


@settings(max_examples=60, deadline=None)
@given(inst=gc.STRATEGY)
def test_gelu_complete_certificate_holds_and_rechecks(inst):
    cert = gc.check(inst)
    assert cert.holds and cert.exact
    assert cert.data["construction"]["width"] == cert.data["m_star"]
    d = json.loads(json.dumps(cert.as_dict()))
    assert gc.recheck(d)


def test_gelu_complete_run_check_passes():
    res = run_check(gc.check, 20)
    assert res.passed and res.instances == 20


def test_issue_31_hand_cases():
    # x + gelu(x) + gelu(-x) = 2 gelu(x)
    assert _mstar([[Q(1)], [Q(-1)]], [[Q(1), Q(1)]], I1) == 1
    # x + gelu(x) - gelu(2x) = gelu(-x) - gelu(-2x)
    f = gelu_form_exact([[Q(1)], [Q(2)]], [[Q(1), Q(-1)]], I1)
    wr = width(f)
    assert wr.lower == 2 and wr.s == [-1, -1] and wr.T == []
    con = construct(f, wr.s, wr.T).con
    assert con.W_up == [[Q(-1)], [Q(-2)]] and con.W_down == [[Q(1), Q(-1)]]
    # x + gelu(x) + gelu(2x) needs 3 (relu's analogue needs 2)
    assert _mstar([[Q(1)], [Q(2)]], [[Q(1), Q(1)]], I1) == 3
    # x + 2 gelu(x) - gelu(2x): 3; 2 gelu(x) - gelu(2x) without skip: 2
    assert _mstar([[Q(1)], [Q(2)]], [[Q(2), Q(-1)]], I1) == 3
    assert _mstar([[Q(1)], [Q(2)]], [[Q(2), Q(-1)]], [[Q(0)]]) == 2
    # an opposite pair with cancelling outputs is the linear map w h: x + (s(x) - s(-x)) = 2x needs 2
    assert _mstar([[Q(1)], [Q(-1)]], [[Q(1), Q(-1)]], I1) == 2


def test_bias_free_representability():
    # b_down only: F(0) != 0, no bias-free block
    f = gelu_form_exact([[Q(1)]], [[Q(1)]], I1, None, [Q(1)])
    assert f.bias_free_representable() is False
    # a biased class whose outputs cancel, constants cancelling: bias-free representable
    f = gelu_form_exact([[Q(1)], [Q(-1)], [Q(1)]], [[Q(1), Q(-1), Q(1)]], I1, [Q(1), Q(-1), Q(0)], [Q(-1)])
    assert f.bias_free_representable() is True
    wr = width(f)
    con = construct(f, wr.s, wr.T).con
    assert all(v == 0 for v in con.b_up + con.b_down)
    # an active biased class: not bias-free representable
    f = gelu_form_exact([[Q(1)]], [[Q(1)]], I1, [Q(1)])
    assert f.bias_free_representable() is False
    # a zero row with a bias: F(0) = gelu(1) w is not rational, the exact form leaves it open (None)
    f = gelu_form_exact([[Q(0)], [Q(1)]], [[Q(1), Q(1)]], I1, [Q(1), Q(0)])
    assert f.bias_free_representable() is None
    # two zero rows whose s-terms cancel (s(1) - s(-1) = 1): a rational F(0) = 1, decided exactly
    f = gelu_form_exact([[Q(0)], [Q(0)], [Q(1)]], [[Q(1), Q(-1), Q(1)]], I1, [Q(1), Q(-1), Q(0)])
    assert f.sym == {} and f.const == [Q(1)] and f.bias_free_representable() is False


def test_zero_rows_with_bias_keep_symbolic_constants():
    f = gelu_form_exact([[Q(0)], [Q(1)]], [[Q(1), Q(1)]], I1, [Q(-3), Q(0)])
    assert f.sym == {Q(3): [Q(1)]} and f.const == [Q(-3)]  # s(-3) = s(3) - 3
    wr = width(f)
    g = construct(f, wr.s, wr.T)
    assert forms_equal(g.form(1), f)
    g.sym = {}
    assert not forms_equal(g.form(1), f)


def test_tampered_certificates_are_rejected():
    inst = gc.GeluInstance("opposite", "gelu", [[Q(1)], [Q(-1)]], [[Q(1), Q(1)]], I1)
    cert = gc.check(inst).as_dict()
    assert cert["data"]["m_star"] == 1 and gc.recheck(cert)
    bad = copy.deepcopy(cert)
    bad["data"]["m_star"] = 0
    assert not gc.recheck(bad)
    bad = copy.deepcopy(cert)
    bad["data"]["construction"]["W_down"][0][0] = "3"
    assert not gc.recheck(bad)
    bad = copy.deepcopy(cert)
    bad["data"]["instance"]["W_down"][0][0] = "3"  # the block changed under the certificate
    assert not gc.recheck(bad)
    bad = copy.deepcopy(cert)
    bad["data"]["instance"]["activation"] = "relu"  # outside the hypothesis
    assert not gc.recheck(bad)


def test_ball_check_rejects_a_wrong_block():
    inst = gc.GeluInstance("doubled", "silu", [[Q(1)], [Q(2)]], [[Q(1), Q(-1)]], I1)
    f = inst.form()
    wr = width(f)
    con = construct(f, wr.s, wr.T)
    assert gc.ball_difference(inst, con)["agree"]
    con.con.W_up[0] = [Q(1)]  # gelu(x) in place of gelu(-x): differs by x
    assert not gc.ball_difference(inst, con)["agree"]
    assert not forms_equal(con.form(1), f)


def _grid_blocks(width_, biased):
    us = [Q(1), Q(-1), Q(2), Q(-2)]
    cs = [Q(-1), Q(0), Q(1)] if biased else [Q(0)]
    ws = [Q(k, 2) for k in (-4, -2, -1, 1, 2, 4)]
    units = list(itertools.product(us, cs, ws))
    for combo in itertools.combinations_with_replacement(range(len(units)), width_):
        sel = [units[i] for i in combo]
        yield [[u] for u, _, _ in sel], [[w for _, _, w in sel]], [c for _, c, _ in sel]


def test_brute_force_d1_no_narrower_block():
    """d = 1: no grid block narrower than m* has F's canonical form, and for these targets one of
    width m* does (the count, checked without the formula's minimisation)."""
    targets = [([[Q(1)], [Q(-1)]], [[Q(1), Q(1)]], None),
               ([[Q(1)], [Q(2)]], [[Q(1), Q(-1)]], None),
               ([[Q(1)], [Q(2)]], [[Q(1), Q(1)]], None),
               ([[Q(1)], [Q(1)]], [[Q(1), Q(1)]], [Q(0), Q(1)])]
    for U, W, c in targets:
        f = gelu_form_exact(U, W, I1, c)
        ms = _mstar(U, W, I1, c)
        biased = c is not None
        for w_ in range(ms + 1):
            found = False
            for U2, W2, c2 in _grid_blocks(w_, biased):
                # b_down fixes the constant: compare everything but the constant
                g = gelu_form_exact(U2, W2 if U2 else [[]], None, c2 if biased else None, None, d=1)
                g.const = list(f.const)
                if forms_equal(g, f):
                    found = True
                    break
            assert found == (w_ == ms), (U, W, c, w_, ms)


def test_counterexample_registered_and_drops_a_real_tag():
    reg = load()
    ces = [f for f in reg.counterexamples if gc.CLAIM in f.counterexample_info.claims]
    assert ces and all(f().holds for f in ces)
    tags = {f.counterexample_info.dropped for f in ces}
    claim = next(c for c in consistency.load_registry() if c["id"] == gc.CLAIM)
    assert tags <= set(claim["hypotheses"])
