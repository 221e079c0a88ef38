"""gated-biased: biased reglu / swiglu / geglu / geglu_tanh / glu blocks absorb their skip at their
own width iff a flip set exists (distinct gate classes, nonzero units)."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest
from hypothesis import given, settings

from oracle.algebra import flips
from oracle.claims import boundary as bd
from oracle.claims import gated_biased as gb
from oracle.claims import load
from oracle.claims.base import run_check
from oracle.core import activations

Q = Fraction


def _inst(gate, G, c, U, e, W, M, kind="generic", b_down=None):
    d = len(M)
    qm = lambda a: [[Q(v) for v in r] for r in a]  # noqa: E731
    return gb.BiasedGatedInstance(kind, gate, qm(G), [Q(v) for v in c], qm(U), [Q(v) for v in e], qm(W), qm(M),
                            [Q(v) for v in (b_down or [0] * d)], [[Q(3)] * d, [Q(-5, 2)] * d])


@settings(max_examples=50, deadline=None)
@given(inst=gb.STRATEGY)
def test_certificates_hold_and_recheck_from_json(inst):
    cert = gb.check(inst)
    assert cert.holds and cert.exact
    assert gb.recheck(json.loads(json.dumps(cert.as_dict())))
    if inst.kind == "planted":
        assert cert.data["verdict"] == "absorbable (A)" and cert.data["flip_condition"]


def test_run_check_passes():
    res = run_check(gb.check, 30)
    assert res.passed and res.instances == 30 and res.exact_instances == 30


@pytest.mark.parametrize("gate", ["reglu", "swiglu", "geglu", "geglu_tanh"])
def test_the_d1_example_of_the_issue(gate):
    # units g(x - 1) x and g(x) (-x), both flipped: removed (x - 1) x - x^2 = -x, so x + B(x) is a flip
    cert = gb.check(_inst(gate, [[1], [1]], [-1, 0], [[1], [-1]], [0, 0], [[1, 1]], [[1]]))
    assert cert.holds and cert.data["S"] == [0, 1] and cert.data["verdict"] == "absorbable (A)"
    assert all(r["equal"] for r in cert.data["comparisons"])
    if gate == "reglu":  # exact rational values
        assert all("value" in r for r in cert.data["comparisons"])


def test_glu_flip_with_biases():
    # w nu removed: w = -1, value x + 1: removed -x - 1, so M = 1 and b_down + c_S = -1
    cert = gb.check(_inst("glu", [[2]], [Q(1, 2)], [[1]], [1], [[-1]], [[1]]))
    assert cert.holds and cert.data["S"] == [0] and cert.data["c_S"] == ["-1"]


def test_near_miss_and_bias_free_blocks_are_not_absorbable():
    near = gb.check(_inst("swiglu", [[1], [1]], [-1, 0], [[1], [-1]], [0, 0], [[Q(1) + Q(1, 2 ** 30), 1]], [[1]]))
    assert near.holds and near.data["verdict"] == "not absorbable (B)"
    free = gb.check(_inst("geglu", [[1, 0], [0, 1]], [0, 0], [[1, 1], [1, -1]], [0, 0], [[1, 0], [0, 1]],
                          [[1, 0], [0, 1]]))
    assert free.holds and free.data["verdict"] == "not absorbable (B)"  # Prop. 6, against biased B' too


def test_degenerate_blocks_are_not_called_not_absorbable():
    # two units in one gate class (the distinct_gate_classes counterexample): no flip set, but absorbable
    cert = gb.check(_inst("swiglu", [[1], [1]], [0, 0], [[1], [-1]], [0, 0], [[1, 1]], [[1]]))
    assert cert.holds and cert.data["nondegenerate"] is False
    assert cert.data["verdict"].startswith("undecided")


def test_gate_classes():
    fd = flips.flip_data("odd_gate", [[Q(1)], [Q(1)]], [[Q(1), Q(1)]], [[Q(1)]], W_gate=[[Q(1)], [Q(2)]],
                         b_gate=[Q(1), Q(2)])
    # (1, 1) and (2, 2): one hyperplane; distinct classes for silu, the same class for relu
    assert flips.flip_nondegeneracy(fd, "swiglu")["nondegenerate"] is True
    assert flips.flip_nondegeneracy(fd, "reglu")["repeated_classes"] == [[0, 1]]
    fd2 = flips.flip_data("glu", [[Q(1)], [Q(1)]], [[Q(1), Q(1)]], [[Q(1)]], W_gate=[[Q(1)], [Q(-1)]],
                          b_gate=[Q(1), Q(-1)])
    assert flips.flip_nondegeneracy(fd2, "glu")["repeated_classes"] == [[0, 1]]  # +-(a, c): one class


def test_tampered_certificates_are_rejected():
    d = gb.check(_inst("reglu", [[1], [1]], [-1, 0], [[1], [-1]], [0, 0], [[1, 1]], [[1]])).as_dict()
    assert gb.recheck(d)
    for path, value in ((("W_down", 0, 0), "2"), (("b_gate", 1), "1"), (("S",), [0]),
                        (("verdict",), "not absorbable (B)"), (("gate",), "glu")):
        bad = copy.deepcopy(d)
        tgt = bad["data"]
        for k in path[:-1]:
            tgt = tgt[k]
        tgt[path[-1]] = value
        assert not gb.recheck(bad), path


def test_counterexamples_of_gated_biased_hold_and_recheck():
    expected = {"gated_repeated_class": "distinct_gate_classes", "gated_wider": "same_width",
                "bilinear_gate": "gate_identifiable"}
    for fn in bd.FLIP_BOUNDARY:
        if fn.__name__ not in expected:
            continue
        assert fn in load().counterexamples
        assert fn.counterexample_info.claims == ("gated-biased",)
        assert fn.counterexample_info.dropped == expected.pop(fn.__name__)
        cert = fn()
        assert cert.holds
        d = json.loads(json.dumps(cert.as_dict()))
        assert bd.recheck_counterexample(d)
        bad = copy.deepcopy(d)
        bad["data"]["plain"]["W_down"][0][0] = "3"
        assert not bd.recheck_counterexample(bad)
        # the gate is read from the data: one outside the family the instance needs is refused
        for gate in ("glu", "reglu" if fn.__name__ == "bilinear_gate" else "bilinear"):
            bad = copy.deepcopy(d)
            bad["data"]["residual"]["activation"] = bad["data"]["plain"]["activation"] = gate
            assert not bd.recheck_counterexample(bad), (fn.__name__, gate)
    assert not expected


def test_the_gated_counterexamples_hold_for_every_identifiable_odd_gate():
    """g(x) x + g(1) x - g(-1) x = g(x) x + x for every g with g(z) - g(-z) = z: the re-check
    evaluates the gate the data names, so the same weights re-check with each such gate. The
    stored ball bound is a fact of the stored gate (the re-check compares it), so each gate's
    certificate carries its own bound, computed here from the two sides' balls."""
    from oracle.algebra.exact import balls_agree, eval_ball
    from oracle.core.rational import qmat, qvec
    for fn in (bd.gated_wider, bd.gated_repeated_class):
        d = json.loads(json.dumps(fn().as_dict()))
        R, P = d["data"]["residual"], d["data"]["plain"]
        for gate in activations.ODD_GATES:
            other = copy.deepcopy(d)
            other["data"]["residual"]["activation"] = other["data"]["plain"]["activation"] = gate
            other["data"]["max_diff_bound"] = max(balls_agree(
                eval_ball(gate, qmat(R["W_up"]), qmat(R["W_down"]), qvec(x), M=qmat(R["M"]),
                          W_gate=qmat(R["W_gate"]), b_gate=qvec(R["b_gate"])),
                eval_ball(gate, qmat(P["W_up"]), qmat(P["W_down"]), qvec(x), W_gate=qmat(P["W_gate"]),
                          b_gate=qvec(P["b_gate"])))[1] for x in d["data"]["points"])
            assert bd.recheck_counterexample(other) == (gate in activations.BIASED_FLIP_NECESSITY), gate
            if gate != "swiglu" and gate in activations.BIASED_FLIP_NECESSITY:
                # the swiglu bound stored by the certificate is not this gate's bound: refused
                stale = copy.deepcopy(other)
                stale["data"]["max_diff_bound"] = d["data"]["max_diff_bound"]
                if stale["data"]["max_diff_bound"] != other["data"]["max_diff_bound"]:
                    assert not bd.recheck_counterexample(stale), gate


# Planted bugs: the oracle check itself (as the quick audit runs it, 20 instances) must fail.

def test_check_fails_when_every_block_is_called_nondegenerate(monkeypatch):
    orig = flips.flip_nondegeneracy
    monkeypatch.setattr(flips, "flip_nondegeneracy", lambda fd, act: {**orig(fd, act), "nondegenerate": True})
    res = run_check(gb.check, 20)
    assert not res.passed and "not absorbable (B)" in res.failure


def test_check_fails_when_the_flip_search_misses_sets(monkeypatch):
    orig = flips.find_flip_set

    def miss(fd, *a, **k):
        r = orig(fd, *a, **k)
        if r.status == "found":
            r.status, r.S = "none", None
        return r

    monkeypatch.setattr(flips, "find_flip_set", miss)
    assert not run_check(gb.check, 20).passed


def test_independent_recomputation_on_the_examples():
    Q = Fraction
    # silu(x - 1) x + silu(x) (-x): both units form a flip set for M = 1
    G, c, U, e, W = [[Q(1)], [Q(1)]], [Q(-1), Q(0)], [[Q(1)], [Q(-1)]], [Q(0), Q(0)], [[Q(1), Q(1)]]
    assert gb.indep_has_flip_set("swiglu", G, c, U, e, W, [[Q(1)]]) is True
    assert gb.indep_has_flip_set("swiglu", G, c, U, e, W, [[Q(2)]]) is False
    assert gb.indep_nondegenerate("swiglu", [[Q(1)], [Q(2)]], [Q(0), Q(0)], U, e, W)
    assert not gb.indep_nondegenerate("reglu", [[Q(1)], [Q(2)]], [Q(0), Q(0)], U, e, W)
    assert not gb.indep_nondegenerate("swiglu", [[Q(1)], [Q(-1)]], [Q(1), Q(-1)], U, e, W)
    assert not gb.indep_nondegenerate("reglu", [[Q(0)]], [Q(1)], [[Q(1)]], [Q(0)], [[Q(1)]])


def test_part_b_flip_is_up_to_reordering_and_rescaling():
    """Issue 29: (B) says B' is a flip of B only up to reordering the units, moving a factor s between
    a unit's output and value map, and (relu gate) rescaling the gate by t > 0. reglu, d = 1, M = 1,
    units (a, c, u, e, w) = (1, -1, 1, 0, 1), (1, 0, -1, 0, 1): S = {0, 1} flips both gates
    ((x - 1) x - x^2 = -x). B' lists the flipped units in the other order, the first with its gate
    scaled by t = 3 and its value map by s = 2: it equals x + B(x) exactly (quadratic on each piece of
    the kinks 0, 1, three points per piece), and it is literally B_S for no S."""
    from itertools import combinations
    from oracle.algebra.exact import eval_plain_q
    units = [(Q(1), Q(-1), Q(1), Q(0), Q(1)), (Q(1), Q(0), Q(-1), Q(0), Q(1))]
    t, s = Q(3), Q(2)
    a, c, u, e, w = units[1]
    Bp = [(-t * a, -t * c, s * u, s * e, w / (t * s))]
    a, c, u, e, w = units[0]
    Bp.append((-a, -c, u, e, w))

    def ev(us, x, M=None):
        return eval_plain_q("reglu", [[v[2]] for v in us], [[v[4] for v in us]], [x], M=M, b_up=[v[3] for v in us],
                            W_gate=[[v[0]] for v in us], b_gate=[v[1] for v in us])
    pts = [Q(v) for v in (-3, -2, -1)] + [Q(1, 4), Q(1, 2), Q(3, 4)] + [Q(v) for v in (2, 3, 4)]
    assert all(ev(units, x, M=[[Q(1)]]) == ev(Bp, x) for x in pts)
    literal = [[(-g, -cc, uu, ee, ww) if i in S else (g, cc, uu, ee, ww)
                for i, (g, cc, uu, ee, ww) in enumerate(units)] for k in range(3) for S in combinations(range(2), k)]
    assert Bp not in literal
    # the flip set the oracle finds is S = {0, 1}
    cert = gb.check(_inst("reglu", [[1], [1]], [-1, 0], [[1], [-1]], [0, 0], [[1, 1]], [[1]]))
    assert cert.holds and cert.data["verdict"] == "absorbable (A)" and cert.data["S"] == [0, 1]
