"""Boundary counterexamples: each really violates the conclusion once its hypothesis is dropped."""

import copy
import json
from fractions import Fraction

import pytest

from oracle.claims import boundary as bd
from oracle.claims import load
from oracle.core.rational import qmat, to_arb
from oracle.algebra.exact import all_index_sets_exact, eval_ball, eval_plain_q, identity

Q = Fraction
EXPECTED = {
    "relu_degree_one": ("k_ne_1", {"homogeneous-impossible", "homogeneous-any-width"}),
    "relu_stack_not_flat": ("res_blocks_flat", {"depth-impossible", "depth-any"}),
    "biased_relu2": ("bias_free", {"homogeneous-impossible", "homogeneous-any-width"}),
    "biased_swiglu": ("bias_free", {"gated-impossible", "gated-continuity"}),
    "glu_gate_half": ("gate_zero_at_0", {"gated-impossible", "gated-continuity"}),
    "width_m_plus_d": ("same_width", {"relu-gelu-iff"}),
    "zero_skip": ("M_nonzero", {"homogeneous-impossible", "gated-impossible"}),
    "singular_skip": ("M_invertible", {"skip-reduction", "relu-gelu-iff"}),
    "collinear_rows": ("nondegenerate", {"relu-gelu-iff"}),
    "biased_residual_block": ("bias_free", {"absorption-width", "depth-width"}),
}


@pytest.mark.parametrize("fn", bd.BOUNDARY, ids=lambda f: f.__name__)
def test_registered_holds_and_rechecks(fn):
    assert fn in load().counterexamples
    dropped, claims = EXPECTED[fn.__name__]
    info = fn.counterexample_info
    assert info.dropped == dropped and set(info.claims) == claims
    cert = fn()
    assert cert.holds
    d = json.loads(json.dumps(cert.as_dict()))  # the JSON form alone must suffice
    assert bd.recheck_counterexample(d)


def test_relu_k1_block_equals_plain_block():
    # Prop. 5 with k = 1 would forbid this: x + B(x) equals a residual-free relu block of width 2.
    U, W = identity(2), [[-1, 0], [0, -1]]
    for x in ([Q(3), Q(-2)], [Q(-1, 3), Q(5, 7)], [Q(0), Q(-4)]):
        lhs = eval_plain_q("relu", qmat(U), qmat(W), x, M=identity(2))
        assert lhs == eval_plain_q("relu", [[-1, 0], [0, -1]], qmat(W), x)
        assert lhs == [-max(-v, 0) for v in x]


def test_biased_relu2_is_the_identity_map():
    P = bd.RELU2_PLAIN
    for t in (Q(-7, 3), Q(-1), Q(0), Q(1, 2), Q(1), Q(9)):
        assert eval_plain_q("relu2", P["W_up"], P["W_down"], [t], b_up=P["b_up"]) == [t]
    assert [c for _, c in bd.relu2_pieces(P["W_up"], P["b_up"], P["W_down"])] == [[0, 1, 0]] * 3


def test_exact_gated_blocks_agree_with_their_balls():
    """eval_plain_q evaluates gates with an exact form (reglu, bilinear): sum w g(a.x + c)(u.x + e)
    + M x, the value the ball evaluation encloses; a gate without W_gate or exact form is refused."""
    G, U, W = [[Q(1), Q(-2)], [Q(1, 2), Q(3)]], [[Q(2), Q(1)], [Q(-1), Q(1, 3)]], [[Q(1), Q(-1)], [Q(2), Q(1, 2)]]
    c, e, M = [Q(1, 4), Q(-1)], [Q(0), Q(2)], [[Q(1), Q(0)], [Q(1), Q(-1)]]
    for act, g in (("reglu", lambda z: max(z, Q(0))), ("bilinear", lambda z: z)):
        for x in ([Q(1), Q(-2)], [Q(-3, 2), Q(1, 5)], [Q(0), Q(0)]):
            got = eval_plain_q(act, U, W, x, M=M, b_up=e, W_gate=G, b_gate=c)
            hid = [g(G[i][0] * x[0] + G[i][1] * x[1] + c[i]) * (U[i][0] * x[0] + U[i][1] * x[1] + e[i]) for i in range(2)]
            want = [W[o][0] * hid[0] + W[o][1] * hid[1] + M[o][0] * x[0] + M[o][1] * x[1] for o in range(2)]
            assert got == want, (act, x)
            balls = eval_ball(act, U, W, x, M=M, b_up=e, W_gate=G, b_gate=c)
            assert all((b - to_arb(v)).contains(0) for b, v in zip(balls, got))
    with pytest.raises(ValueError, match="needs W_gate"):
        eval_plain_q("reglu", U, W, [Q(1), Q(1)])
    with pytest.raises(ValueError, match="no exact form"):
        eval_plain_q("swiglu", U, W, [Q(1), Q(1)], W_gate=G)


def test_biased_swiglu_has_nonzero_derivative_at_0():
    # silu(1) (1 + e^-1) = 1: the biased unit passes x through, so F = x is absorbed.
    val = eval_ball("swiglu", identity(2), bd.closed_form_down(2), [Q(2), Q(-3)],
                    W_gate=[[0, 0], [0, 0]], b_gate=[1, 1])
    assert all((v - t).contains(0) and float((v - t).rad()) < 1e-30 for v, t in zip(val, (2, -3)))


def test_glu_block_absorbs_identity_skip():
    cert = bd.glu_gate_half()
    assert cert.data["g_at_0"].startswith("0.5")
    assert cert.data["max_diff_bound"] < 2.0 ** -80
    d = json.loads(json.dumps(cert.as_dict()))
    assert bd.recheck_counterexample(d)
    # the re-check reads the gate from the data and needs g(0) != 0: a gate vanishing at 0 is refused
    bad = copy.deepcopy(d)
    bad["data"]["residual"]["activation"] = bad["data"]["plain"]["activation"] = "swiglu"
    assert not bd.recheck_counterexample(bad)


def test_width_m_plus_d_has_no_index_set():
    assert all_index_sets_exact(identity(2), identity(2), identity(2)) == []
    cert = bd.width_m_plus_d()
    assert len(cert.data["plain"]["W_up"]) == 4


def test_singular_skip_index_set_smaller_than_d():
    cert = bd.singular_skip()
    assert cert.data["index_sets"] == [[0]] and cert.data["rank_M"] == 1


@pytest.mark.parametrize("fn", bd.BOUNDARY, ids=lambda f: f.__name__)
def test_tampered_weight_rejected(fn):
    d = fn().as_dict()
    bad = copy.deepcopy(d)
    if fn is bd.zero_skip:
        # B' = B for every B here, so the weights are free; what matters is M = 0.
        bad["data"]["M"][0][0] = "1/1024"
    else:
        bad["data"]["plain"]["W_up"][0][0] = "5/3"
    assert not bd.recheck_counterexample(bad)


def test_biased_residual_block_is_the_referees_instance():
    """Issue 29: absorption-width and depth-width without bias_free. d = m = 1, M = 1, u = 1, b_up = 1,
    w = 1: C = 1 and x + relu(x + 1) = 2 relu(x + 1) - relu(-x - 1) - 1 (width m + C = m + d = 2 with
    biases, and relu-complete's m* is 2), but F(0) = 1 while every bias-free relu block is 0 at 0."""
    cert = bd.biased_residual_block()
    assert cert.holds and cert.exact
    data = cert.data
    assert (data["C"], data["m"], data["d"], data["plain_width"], data["m_star_biased"]) == (1, 1, 1, 2, 2)
    assert data["F_at_0"] == ["1"] and data["equal"] and data["nondegenerate"] and data["rank_W_up"] == 1
    F = lambda t: t + max(t + 1, 0)  # noqa: E731
    G = lambda t: 2 * max(t + 1, 0) - max(-t - 1, 0) - 1  # noqa: E731
    assert all(F(t) == G(t) for t in (Q(-3), Q(-1), Q(-1, 2), Q(0), Q(5, 3)))
    assert eval_plain_q("relu", [[Q(1)], [Q(-1)], [Q(3)]], [[Q(2), Q(-1), Q(7)]], [Q(0)]) == [0]  # bias-free: 0 at 0
    d = cert.as_dict()
    for path, value in ((("residual", "b_up"), ["0"]), (("plain", "b_down"), ["0"]),
                        (("residual", "W_down"), [["0"]]), (("plain", "W_down"), [["2", "-2"]])):
        bad = copy.deepcopy(d)
        bad["data"][path[0]][path[1]] = value
        assert not bd.recheck_counterexample(bad), path
    # the hypotheses absorption-width and depth-width keep are registered; bias_free is among them
    from oracle.formal.consistency import load_registry
    reg = {c["id"]: c for c in load_registry()}
    for cid in ("absorption-width", "depth-width"):
        assert "bias_free" in reg[cid]["hypotheses"]
        assert reg[cid]["coq_counterexamples"]["bias_free"] == \
            "SkipAbsorption.Counterexamples.absorption_width_needs_bias_free"


def test_tampered_skip_rejected():
    d = bd.singular_skip().as_dict()
    d["data"]["residual"]["M"] = [["1", "0"], ["0", "1"]]  # invertible M: no width-1 absorber
    assert not bd.recheck_counterexample(d)


def test_generic_weights_boundary_cases_are_registered_and_recheck():
    """generic-weights' boundary instances live in its own module and recheck through this one."""
    from oracle.claims import generic_weights as gw
    from oracle.algebra import generic_polys as ga
    for fn, tag in ((gw.zero_skip_pieces, "M_invertible_ii"), (gw.d1_rows_collinear, "d_ge_2_iii")):
        assert fn in load().counterexamples
        assert fn.counterexample_info.dropped == tag and fn.counterexample_info.claims == ("generic-weights",)
        cert = fn()
        assert cert.holds
        assert bd.recheck_counterexample(json.loads(json.dumps(cert.as_dict())))
    # M = 0: the S = {} piece is singular at every stored weight; an invertible M is refused
    d = gw.zero_skip_pieces().as_dict()
    assert d["data"]["det_at_weights"] == ["0", "0", "0"]
    bad = copy.deepcopy(d)
    bad["data"]["M"] = [["1", "0"], ["0", "2"]]
    assert not bd.recheck_counterexample(bad)
    # d = 1: a pair of rows that were nondegenerate would be refused (two rows of R^2 are not collinear)
    d = gw.d1_rows_collinear().as_dict()
    assert all(why in ("zero row", "collinear") for _, _, why in d["data"]["rows_checked"])
    assert ga.nondegenerate([[Q(1), Q(0)], [Q(0), Q(1)]], [[Q(1), Q(1)], [Q(0), Q(0)]])


# The inputs of a counterexample (the weights, the sample points, its kind); every other field of
# its data is a stored fact that the re-check recomputes from these and compares.
_INPUT_FIELDS = {"kind", "residual", "plain", "points", "M", "relu2", "swiglu"}


def _tampered(value):
    """A value of the same shape as a stored fact but different from it."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return 2 * value + 1.0
    if isinstance(value, str):
        return value + "0"
    if isinstance(value, list):
        return value[:-1] if value else ["0"]
    if value is None:
        return 0
    raise TypeError(type(value))


@pytest.mark.parametrize("fn", bd.BOUNDARY + bd.FLIP_BOUNDARY, ids=lambda f: f.__name__)
def test_every_stored_fact_is_compared(fn):
    """Referee finding (issue 29 follow-up): the re-check recomputed from the weights but never
    compared the stored facts, so data.C = 5 still re-checked. Every stored fact of every
    counterexample of this module, tampered, must be refused with the field named."""
    d = json.loads(json.dumps(fn().as_dict()))
    ok, why = bd.recheck_counterexample_reason(d)
    assert ok, why
    facts = sorted(set(d["data"]) - _INPUT_FIELDS)
    assert facts, "a counterexample with no stored fact to compare"
    for key in facts:
        bad = copy.deepcopy(d)
        bad["data"][key] = _tampered(d["data"][key])
        ok, why = bd.recheck_counterexample_reason(bad)
        assert not ok and repr(key) in why, (key, why)
        assert not bd.recheck_counterexample(bad)
        missing = copy.deepcopy(d)
        del missing["data"][key]
        ok, why = bd.recheck_counterexample_reason(missing)
        assert not ok and repr(key) in why and "missing" in why, (key, why)


def test_biased_residual_block_refuses_the_referees_tampering():
    """The two tamperings the referee tried: C = 5 and F(0) = 0 stored on the exact instance."""
    d = json.loads(json.dumps(bd.biased_residual_block().as_dict()))
    for key, value in (("C", 5), ("F_at_0", ["0"]), ("m_star_biased", 3), ("rank_W_up", 0),
                       ("plain_width", 3), ("equal", False), ("nondegenerate", False), ("biased", False),
                       ("m", 2), ("d", 2)):
        bad = copy.deepcopy(d)
        bad["data"][key] = value
        ok, why = bd.recheck_counterexample_reason(bad)
        assert not ok and f"'{key}'" in why, (key, why)


def test_singular_skip_rechecks_the_identity_skip():
    """The stored 'no index set for the identity skip' is a recomputed fact (it used to be stored
    and never looked at): a certificate claiming an index set for the identity skip is refused."""
    d = bd.singular_skip().as_dict()
    assert d["data"]["index_sets_for_identity_skip"] == []
    bad = copy.deepcopy(d)
    bad["data"]["index_sets_for_identity_skip"] = [[0]]
    ok, why = bd.recheck_counterexample_reason(bad)
    assert not ok and "index_sets_for_identity_skip" in why


def test_stored_facts_of_the_delegated_kinds_are_compared():
    """depth-analytic's and generic-weights' boundary instances re-check through their own modules;
    the stored facts those re-checks did not look at (index sets, N, D_plain, the piece S, d, m and
    why each d = 1 pair of rows is degenerate) are compared here, and a tampered one is refused by name."""
    from oracle.claims import depth_analytic as da
    from oracle.claims import generic_weights as gw
    cases = [(da.analytic_index_sets, "index_sets", lambda v: v[:-1]),
             (da.analytic_depth_one, "index_sets", lambda v: v[:-1]),
             (da.analytic_depth_one, "N", lambda v: v + 1),
             (da.analytic_depth_one, "D_plain", lambda v: v - 1),
             (gw.zero_skip_pieces, "S", lambda v: [0]),
             (gw.d1_rows_collinear, "d", lambda v: 2),
             (gw.d1_rows_collinear, "m", lambda v: 3),
             (gw.d1_rows_collinear, "rows_checked",
              lambda v: [[a, b, "collinear" if why == "zero row" else "zero row"] for a, b, why in v])]
    docs = {}
    for fn, key, change in cases:
        if fn not in docs:
            docs[fn] = json.loads(json.dumps(fn().as_dict()))
            ok, why = bd.recheck_counterexample_reason(docs[fn])
            assert ok, why
        d = docs[fn]
        bad = copy.deepcopy(d)
        bad["data"][key] = change(d["data"][key])
        assert bad["data"][key] != d["data"][key]
        ok, why = bd.recheck_counterexample_reason(bad)
        assert not ok and repr(key) in why, (fn.__name__, key, why)
        assert not bd.recheck_counterexample(bad)
