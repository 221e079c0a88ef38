"""generic-weights: every failing set lies in the zero set of a polynomial that is nonzero at a witness."""

import copy
import json
from fractions import Fraction

import pytest
from hypothesis import given, settings

from oracle.algebra.exact import det, identity, index_sum
from oracle.claims import generic_weights as gw
from oracle.algebra import generic_polys as ga
from oracle.claims.base import run_check
from oracle.formal import consistency

Q = Fraction


def _samples():
    return {c["id"]: c for c in consistency.load_registry()}["generic-weights"]["samples"]


def _inst(U, W, M):
    q = lambda a: [[Q(v) for v in r] for r in a]  # noqa: E731
    return gw.WeightsInstance(q(U), q(W), q(M))


@settings(max_examples=60, deadline=None)
@given(inst=gw.STRATEGY)
def test_certificate_holds_and_rechecks(inst):
    cert = gw.check(inst)
    assert cert.holds and cert.exact, cert.reason
    data = json.loads(json.dumps(cert.as_dict()))
    assert gw.recheck(data)
    assert len(cert.data["pieces"]) == 2 ** inst.m
    # the witness of (ii) is W_down = 0: every value is det M
    detM = det(inst.M)
    assert all(Q(p["at_witness"]) == detM for p in cert.data["pieces"])


def test_run_check_reaches_the_declared_ranges():
    res = run_check(gw.check, 40, samples=_samples())
    assert res.passed, res.failure
    assert set(res.drawn["d"]) == {1, 2, 3}
    assert set(res.drawn["M"]) == {"identity", "invertible", "singular"}
    assert res.drawn["degenerate"] > 0 and res.drawn["biased"] == 0


def test_drawn_weights_do_reach_the_failing_sets():
    """The inclusion 'fails => polynomial vanishes' is tested only where a property fails:
    the strategy must draw such weights, for each clause."""
    seen = {"rank": 0, "piece": 0, "zero_row": 0, "collinear": 0, "zero_col": 0}

    @settings(max_examples=150, deadline=None, database=None)
    @given(inst=gw.STRATEGY)
    def run(inst):
        c = gw.check(inst).data
        seen["rank"] += c["rank"]["rank_W_up"] < c["rank"]["r"]
        seen["piece"] += any(p["singular"] for p in c["pieces"][1:]) and c["M_invertible"]
        if inst.d >= 2:
            seen["zero_row"] += bool(c["degenerate"]["zero_rows"])
            seen["collinear"] += bool(c["degenerate"]["collinear_pairs"])
            seen["zero_col"] += bool(c["degenerate"]["zero_cols"])
    run()
    assert all(v > 0 for v in seen.values()), seen


def test_witness_values():
    d, m = 3, 4
    U0, W0 = ga.nondegenerate_witness(d, m)
    assert [ga.pair_minor(U0, l, k) for l, k in ((0, 1), (0, 3), (1, 3))] == [1, 3, 2]
    assert ga.nondegenerate(U0, W0)
    E = ga.rank_witness(2, 5)
    assert ga.minor_rank(E, 2) == 1 and ga.rank(E, 2) == 2
    assert ga.minor_rank(ga.rank_witness(3, 2), 3) == 1 and ga.rank(ga.rank_witness(3, 2), 3) == 2
    M = [[Q(2), Q(1)], [Q(1), Q(1)]]
    assert ga.piece_det([[Q(5), Q(7)]], ga.pieces_witness_down(2, 1), M, (0,)) == 1


def test_failing_weights_make_the_polynomials_vanish():
    # rows (1, 2) and (-2, -4) are collinear, row 2 is zero, column 1 is zero; M + W_S U_S
    # with S = {0}: I + (-1/5, -2/5)^T (1, 2) is singular.
    inst = _inst([[1, 2], [-2, -4], [0, 0]], [[Q(-1, 5), 0, 3], [Q(-2, 5), 0, 1]], identity(2))
    cert = gw.check(inst)
    assert cert.holds, cert.reason
    polys = {p["poly"]: p for p in cert.data["nondegeneracy"]}
    assert polys["minor_0_1"]["fails"] and Q(polys["minor_0_1"]["at_weights"]) == 0
    assert polys["row_2"]["fails"] and polys["col_1"]["fails"]
    piece0 = next(p for p in cert.data["pieces"] if p["S"] == [0])
    assert piece0["singular"] and Q(piece0["at_weights"]) == 0
    assert cert.data["rank"]["rank_W_up"] == 1 and Q(cert.data["rank"]["minor_at_weights"]) == 0


def test_singular_M_and_d1_are_not_claimed_but_their_boundary_is_checked():
    cert = gw.check(_inst([[1], [2]], [[3, 4]], [[0]]))
    assert cert.holds and not cert.data["M_invertible"]
    assert cert.data["pieces"][0]["singular"]  # S = {}: the piece is M = 0
    assert cert.data["nondegeneracy"] == "not claimed for d = 1"


def test_counterexamples_hold_and_recheck():
    for fn, tag in ((gw.zero_skip_pieces, "M_invertible_ii"), (gw.d1_rows_collinear, "d_ge_2_iii")):
        assert fn.counterexample_info.dropped == tag
        assert fn.counterexample_info.claims == ("generic-weights",)
        cert = fn()
        assert cert.holds and cert.exact
        assert gw.recheck_counterexample(json.loads(json.dumps(cert.as_dict())))


def test_tampered_certificates_are_rejected():
    cert = gw.check(_inst([[1, 0], [1, 1], [1, 2]], [[1, 0, 2], [0, 1, 1]], [[2, 1], [1, 1]])).as_dict()
    assert gw.recheck(cert)
    bad = copy.deepcopy(cert)
    bad["data"]["pieces"][3]["at_weights"] = "7"
    assert not gw.recheck(bad)
    bad = copy.deepcopy(cert)
    bad["data"]["W_up"][2][1] = "3"  # the stored values no longer match the weights
    assert not gw.recheck(bad)
    bad = copy.deepcopy(cert)
    bad["data"]["problems"] = ["(i) something"]
    assert not gw.recheck(bad)
    cx = gw.zero_skip_pieces().as_dict()
    cx["data"]["M"] = [["1", "0"], ["0", "1"]]  # invertible M: the S = {} piece is I
    assert not gw.recheck_counterexample(cx)


# ---------------------------------------------------------------- planted bugs: the audit's runner must fail

def _transposed_pair_minor(W_up, l, k):
    return W_up[l][0] * W_up[k][1] - W_up[l][1] * W_up[k][1]  # planted: k's coordinate 1, not 0


def _wrong_pieces_witness(d, m):
    return [[Q(-1) if a == i else Q(0) for i in range(m)] for a in range(d)]  # planted: not W_down = 0


def _rank_witness_one_row_short(d, m):
    return [[Q(1) if l == j and l > 0 else Q(0) for j in range(d)] for l in range(m)]  # planted: drops e_1


@pytest.mark.parametrize("name, fn", [("pair_minor", _transposed_pair_minor),
                                      ("pieces_witness_down", _wrong_pieces_witness),
                                      ("rank_witness", _rank_witness_one_row_short)])
def test_planted_bug_fails_the_oracle_run(monkeypatch, name, fn):
    monkeypatch.setattr(gw, name, fn)
    res = run_check(gw.check, 20, samples=_samples())  # what `absorb audit --quick` runs
    assert not res.passed and res.failing is not None, name


# ---------------------------------------------------------------- part (iv): the empty-interior constructions

def test_real_root_count_is_exact():
    from flint import fmpq_poly
    x2m2 = fmpq_poly([-2, 0, 1])  # roots +-sqrt 2, irrational
    assert ga.real_root_count(x2m2 * fmpq_poly([1, 1])) == 3
    assert ga.real_root_count(fmpq_poly([1, 0, 1])) == 0
    assert ga.real_root_count(fmpq_poly([1, -2, 1]) * fmpq_poly([1, -2, 1])) == 1  # (x - 1)^4
    assert ga.real_root_count(fmpq_poly([5])) == 0
    with pytest.raises(ValueError):
        ga.real_root_count(fmpq_poly([0]))


def test_part_iv_moves_failing_weights_to_good_ones_within_eps():
    # rows (1, 2), (2, 4), (0, 0): rank 1 < 2, a collinear pair, a zero row, a zero column 2;
    # the piece of S = {0} is I + (-1/5, -2/5)^T (1, 2), singular.
    U = [[1, 2], [2, 4], [0, 0]]
    W = [[Q(-1, 5), 0, 0], [Q(-2, 5), 1, 0]]
    eps = Q(1, 1000)
    inst = gw.WeightsInstance(*(_inst(U, W, identity(2)).__dict__[k] for k in ("W_up", "W_down", "M")),
                              defect="collinear", eps=eps)
    cert = gw.check(inst)
    assert cert.holds, cert.reason
    iv = cert.data["iv"]
    Uq, Wq = inst.W_up, inst.W_down
    # (i): the moved W_up has rank 2, and no entry moved by eps or more (recomputed here)
    U1 = [[Q(v) for v in r] for r in iv["rank"]["W_up"]]
    assert ga.rank(U1, 2) == 2 and ga.max_distance(U1, Uq) < eps
    # (ii): W_down scaled, W_up kept; every piece invertible; the singular t counted per S
    W1 = [[Q(v) for v in r] for r in iv["pieces"]["W_down"]]
    assert ga.max_distance(W1, Wq) < eps
    assert all(det(ga.mat_add(inst.M, index_sum(Uq, W1, S))) != 0 for S in ga.subsets(3))
    assert len(iv["pieces"]["singular_t"]) == 8 and all(n <= 2 for n in iv["pieces"]["singular_t"])
    assert iv["pieces"]["singular_t"][1] >= 1  # S = {0} is singular at t = 1
    # (iii): nondegenerate, within eps
    U2 = [[Q(v) for v in r] for r in iv["nondegeneracy"]["W_up"]]
    W2 = [[Q(v) for v in r] for r in iv["nondegeneracy"]["W_down"]]
    assert ga.nondegenerate(U2, W2) and ga.max_distance(U2, Uq) < eps and ga.max_distance(W2, Wq) < eps


def test_singular_t_counts_in_one_dimension():
    # d = m = 1, M = 1, u = 1, w = -1: det(1 + t w u) = 1 - t, singular only at t = 1
    out, problems = ga.pieces_dense([[Q(1)]], [[Q(-1)]], [[Q(1)]], Q(1, 10))
    assert not problems and out["singular_t"] == [0, 1]
    assert Q(out["W_down"][0][0]) != -1 and abs(Q(out["W_down"][0][0]) + 1) < Q(1, 10)


def test_planted_defects_are_present():
    @settings(max_examples=80, deadline=None, database=None)
    @given(inst=gw.STRATEGY)
    def run(inst):
        assert inst.defect in gw.defects_for(inst.d, inst.m, inst.M)
        assert gw.defect_present(inst.defect, inst.W_up, inst.W_down, inst.M)
    run()
    # an instance that claims a defect it does not have is refused
    cert = gw.check(gw.WeightsInstance(*(_inst([[1, 0], [0, 1]], [[1, 0], [0, 1]], identity(2)).__dict__[k]
                                         for k in ("W_up", "W_down", "M")), defect="zero_row"))
    assert not cert.holds and "planted defect zero_row is absent" in cert.reason


def test_tampered_part_iv_is_rejected():
    inst = gw.WeightsInstance(*(_inst([[1, 2], [2, 4]], [[1, 0], [0, 0]], identity(2)).__dict__[k]
                                for k in ("W_up", "W_down", "M")), defect="zero_col", eps=Q(1, 3))
    cert = gw.check(inst).as_dict()
    assert cert["holds"] and gw.recheck(cert)
    bad = copy.deepcopy(cert)
    bad["data"]["iv"]["rank"]["delta"] = "1/7"
    assert not gw.recheck(bad)
    bad = copy.deepcopy(cert)
    bad["data"]["eps"] = "0"
    assert not gw.recheck(bad)


def _no_plant(draw, defect, U, W, M):
    return U, W  # planted: the defect is named but not planted


def _no_move(scale, count):
    return [Q(0)] * count  # planted: delta = 0, the weights are not moved


@pytest.mark.parametrize("module, name, fn", [(gw, "_plant", _no_plant), (ga, "candidates", _no_move)],
                         ids=["_plant", "candidates"])
def test_planted_bug_in_part_iv_fails_the_oracle_run(monkeypatch, module, name, fn):
    monkeypatch.setattr(module, name, fn)
    res = run_check(gw.check, 20, samples=_samples())
    assert not res.passed and res.failing is not None, name


# ---------------------------------------------------------------- planted bugs (issue 28)
# Each plants, in this process, a bug that once survived the quick audit (docs/mutation.md) and
# asserts that the claim's quick-audit oracle run (20 instances, seed 0, corners first) fails.

def _quick_run() -> dict:
    from oracle.commands import audit
    from oracle.formal import consistency
    entry = next(c for c in consistency.load_registry() if c["id"] == "generic-weights")
    return audit.oracle_face(entry, audit.QUICK_INSTANCES, audit.DEFAULT_SEED, progress=lambda *a, **k: None)


def test_corners_reach_a_rank_polynomial_without_real_roots():
    counts = [gw.evaluate(c.W_up, c.W_down, c.M, c.defect, c.eps)["iv"]["rank"]["q_real_roots"]
              for c in gw.weights_corners()]
    assert 0 in counts and all(not gw.evaluate(c.W_up, c.W_down, c.M, c.defect, c.eps)["problems"]
                               for c in gw.weights_corners())


def test_rotation_corner_catches_one_candidate_too_few(monkeypatch):
    # part (iv) tries one candidate fewer than it must (2 * roots instead of roots + 1, as a mutant
    # did): with no real root it tries none; the rotation corner fails first
    from oracle.algebra import generic_polys
    real = generic_polys.candidates
    monkeypatch.setattr(generic_polys, "candidates", lambda scale, count: real(scale, 2 * (count - 1)))
    out = _quick_run()
    assert out["status"] == "FAILED" and out["failing"]["phase"] == "example", out.get("failing")


def test_forged_certificate_catches_a_recheck_that_ignores_the_stored_record(monkeypatch):
    # the re-check accepts whatever is stored as long as the weights re-evaluate without a problem
    def lax(cert):
        data = cert["data"]
        return not gw.evaluate(gw.qmat(data["W_up"]), gw.qmat(data["W_down"]), gw.qmat(data["M"]),
                               data["defect"], gw.q_parse(data["eps"]))["problems"]
    monkeypatch.setattr(gw, "recheck", lax)
    assert _quick_run()["status"] == "FAILED"


def test_forged_certificate_is_refused_by_the_real_recheck():
    c = gw.weights_corners()[0]
    cert = gw.check(c)
    assert cert.holds and gw.recheck(cert.as_dict())
    assert not gw.recheck(gw._forged(cert.as_dict()["data"]))


def test_cubic_corner_catches_a_wrong_discriminant_threshold(monkeypatch):
    import inspect
    src = inspect.getsource(gw.distinct_real_roots)
    assert src.count("return 3 if disc > 0 else 1") == 1
    ns: dict = {}
    exec(src.replace("return 3 if disc > 0 else 1", "return 3 if disc > 1 else 1"), vars(gw), ns)
    monkeypatch.setattr(gw, "distinct_real_roots", ns["distinct_real_roots"])
    out = _quick_run()
    assert out["status"] == "FAILED" and out["failing"]["phase"] == "example", out.get("failing")


def test_a_root_count_comparison_that_did_not_run_fails(monkeypatch):
    real = gw.root_count_mismatches

    def skips_rank(W_up, W_down, M, iv, checked=None):
        iv2 = {k: v for k, v in iv.items() if k != "rank"}
        return real(W_up, W_down, M, iv2, checked)
    monkeypatch.setattr(gw, "root_count_mismatches", skips_rank)
    c = gw.weights_corners()[0]
    assert any("recomputed" in p for p in gw.evaluate(c.W_up, c.W_down, c.M, c.defect, c.eps)["problems"])


def test_d1_nondegeneracy_is_checked_both_ways(monkeypatch):
    # a nondegeneracy test that forgets zero columns calls a d = 1, m = 1 block with W_down = 0
    # nondegenerate; the two-sided d = 1 check refuses it
    monkeypatch.setattr(gw, "nondegenerate", lambda U, W: not ga.zero_rows(U) and not ga.collinear_pairs(U))
    info = gw.evaluate([[Q(2)]], [[Q(0)]], [[Q(1)]], "zero_col", Q(1))
    assert any(p.startswith("d = 1") for p in info["problems"])
    monkeypatch.undo()
    assert not gw.evaluate([[Q(2)]], [[Q(0)]], [[Q(1)]], "zero_col", Q(1))["problems"]
