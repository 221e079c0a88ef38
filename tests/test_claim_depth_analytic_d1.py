"""depth-analytic-d1: the drawn d = 1 instances (widths up to 12, depth 1..3), the proof's limit block
and eps stack, the near misses of Proposition D1', the re-check, planted lies in the rank routine,
the boundary instances, and the registry entry."""

import copy
import json
import random
from fractions import Fraction

import pytest

from oracle.algebra.stacks import analytic as an
from oracle.claims import base, load
from oracle.claims import boundary as bd
from oracle.claims import depth_analytic_d1 as g
from oracle.claims import depth_boundary
from oracle.core.rational import arb
from oracle.formal import consistency as C

Q = Fraction


def _json(x):
    return json.loads(json.dumps(x))


def test_distinct_moduli_is_exact():
    assert g.distinct_moduli([[Q(1)], [Q(-3, 4)], [Q(1, 2)]])
    assert not g.distinct_moduli([[Q(3, 4)], [Q(-3, 4)]])      # opposite
    assert not g.distinct_moduli([[Q(3, 4)], [Q(3, 4)]])       # equal
    assert not g.distinct_moduli([[Q(0)], [Q(1)]])             # a zero row
    assert not g.distinct_moduli([[Q(1), Q(2)]])               # not d = 1


def test_drawing_meets_the_proof_hypotheses():
    rng = random.Random(3)
    for U, W in g.random_layers([12, 1, 7], rng):
        assert g.distinct_moduli(U) and all(v != 0 for v in W[0])
    U, W = g.lemma_block(20, rng)
    assert len(U) == 20 and g.distinct_moduli(U) and all(v != 0 for v in W[0])
    assert {v[0] > 0 for v in U} == {True, False}             # signs mixed
    pts = g.distinct_abs_points(42, rng)
    assert len({abs(x[0]) for x in pts}) == 42 and all(x[0] != 0 for x in pts)
    layers = g.split((U, W), [7, 8, 5], g.EPS)
    assert [len(u) for u, _ in layers] == [7, 8, 5]
    assert [r for u, _ in layers for r in u] == U
    assert [v for _, w in layers for v in w[0]] == [g.EPS * v for v in W[0]]
    assert g.shrink([12, 12, 12]) == [6, 7, 7] and sum(g.shrink([12, 12])) == g.MAX_SUM


@pytest.mark.parametrize("act, widths", [("gelu", [12, 8]), ("silu", [12]), ("gelu_tanh", [1, 9, 7])])
def test_check_certifies_beyond_the_sweep_and_rechecks(act, widths):
    cert = g.check(g.D1Instance(act, widths, 5, 16))
    assert cert.holds and cert.exact, cert.reason
    doc = _json(cert.as_dict())
    assert g.recheck_d1(doc)
    data = doc["data"]
    assert data["limit"]["widths"] == [sum(widths)] and data["eps_stack"]["widths"] == widths
    assert data["stack"]["d"] == 1 and data["stack"]["N"] == 2 * sum(widths)
    near = data["near"]["facts"]
    assert sorted(near["dependent"]) == sorted(g.DEPENDENT) and sorted(near["moved"]) == sorted(g.MOVED)
    assert all(f["relation_contains_0"] and not f["certified"] for f in near["dependent"].values())
    assert all(c["certified"] for c in near["moved"].values())


def test_width_one_block_has_only_the_unit_near_misses():
    cert = g.check(g.D1Instance("gelu", [1], 2, 4))
    assert cert.holds
    facts = cert.data["near"]["facts"]
    assert sorted(facts["dependent"]) == ["zero_output", "zero_row"] and facts["moved"] == {}
    assert g.recheck_d1(_json(cert.as_dict()))


def test_near_misses_behave_as_the_proposition_says():
    """Opposite and equal pairs: the exact dependency in balls, no certificate at any precision;
    moved apart by 2^-16: certified; a zero row or zero output: a vanishing column."""
    rng = random.Random("near")
    base_blk = g.lemma_block(4, rng)
    pts = g.distinct_abs_points(10, rng)
    for act in an.ACTIVATIONS:
        for kind in g.DEPENDENT:
            blk = g.degenerate_block(kind, base_blk)
            assert all(b.contains(0) for b in g.dependency_balls(kind, act, blk, pts)), (act, kind)
            rows = an.choose_rows(an.jacobian_float(act, [blk], pts))
            for p in (128, 512):
                assert an.minor_det(act, [blk], pts, rows, p).contains(0)
            assert not an.certify(act, [blk], pts)["certified"]
        for kind in g.MOVED:
            moved = g.moved_block(kind, base_blk, 16)
            assert g.distinct_moduli(moved[0])
            assert an.certify(act, [moved], pts, g.PROOF_PRECISIONS)["certified"], (act, kind)
    # the relation has teeth: on the moved (non-opposite) block the same combination excludes 0
    moved = g.moved_block("opposite", base_blk, 4)
    assert not all(b.contains(0) for b in g.dependency_balls("opposite", "gelu", moved, pts))


def _good():
    return _json(g.check(g.D1Instance("gelu", [3, 4], 1, 8)).as_dict())


def test_recheck_refuses_tampering():
    good = _good()
    assert g.recheck_d1(good)
    cases = []
    bad = copy.deepcopy(good)                       # a changed weight of the drawn stack
    bad["data"]["stack"]["theta"][0] += 1
    cases.append(bad)
    bad = copy.deepcopy(good)                       # a d = 2 certificate is outside the claim
    bad["data"]["stack"] = _json(an.make_certificate("gelu", 2, [3, 4], 0))
    cases.append(bad)
    bad = copy.deepcopy(good)                       # the limit block of the wrong width
    bad["data"]["limit"] = _json(an.certify("gelu", [g.lemma_block(6, random.Random(0))],
                                             g.distinct_abs_points(14, random.Random(0))))
    cases.append(bad)
    bad = copy.deepcopy(good)                       # an eps stack that is not the limit block split
    bad["data"]["eps"] = "1/8"
    cases.append(bad)
    bad = copy.deepcopy(good)                       # a dependent near miss said to certify
    bad["data"]["near"]["facts"]["dependent"]["opposite"]["certified"] = True
    cases.append(bad)
    bad = copy.deepcopy(good)                       # a near miss left out
    del bad["data"]["near"]["facts"]["dependent"]["equal"]
    cases.append(bad)
    bad = copy.deepcopy(good)                       # the opposite block replaced by a moved one
    moved = g.moved_block("opposite", ([[Q(v) for v in r] for r in good["data"]["near"]["W_up"]],
                                       [[Q(v) for v in r] for r in good["data"]["near"]["W_down"]]), 4)
    bad["data"]["near"]["facts"]["dependent"]["opposite"]["W_up"] = [[str(v) for v in r] for r in moved[0]]
    cases.append(bad)
    bad = copy.deepcopy(good)                       # another claim's certificate
    bad["claim"] = "depth-analytic-generic"
    cases.append(bad)
    bad = copy.deepcopy(good)                       # a precision beyond what the re-check accepts
    bad["data"]["limit"]["precision"] = 4096
    cases.append(bad)
    for i, b in enumerate(cases):
        assert not g.recheck_d1(b), i


def test_limit_block_with_an_opposite_pair_is_refused():
    """A limit block with u_2 = -u_1 is outside Proposition D1' (and its determinant contains 0)."""
    good = _good()
    bad = copy.deepcopy(good)
    lim = bad["data"]["limit"]
    lim["theta"][1] = -lim["theta"][0]              # u_2 = -u_1 (theta: U row-major, then W)
    assert not g.recheck_d1(bad)


def test_planted_lie_full_rank_everywhere_fails_the_check(monkeypatch):
    """A rank routine that always reports a nonzero determinant would certify the opposite and equal
    pairs, which Proposition D1' says are dependent: the check must fail, and the run too."""
    real = an.jacobian_and_minor_det

    def lying(name, layers, points, rows, prec):
        J, _ = real(name, layers, points, rows, prec)
        return J, arb(1)

    monkeypatch.setattr(an, "jacobian_and_minor_det", lying)
    cert = g.check(g.D1Instance("silu", [2, 3], 4, 8))
    assert not cert.holds and "near misses" in cert.reason
    res = base.run_check(g.check, 2)
    assert not res.passed


def test_planted_lie_rank_deficient_everywhere_fails_the_check(monkeypatch):
    """A rank routine whose determinant ball always contains 0: nothing certifies, the check fails
    and a good certificate no longer re-checks."""
    good = _good()
    real = an.jacobian_and_minor_det

    def lying(name, layers, points, rows, prec):
        J, _ = real(name, layers, points, rows, prec)
        return J, arb(0)

    monkeypatch.setattr(an, "jacobian_and_minor_det", lying)
    cert = g.check(g.D1Instance("gelu", [3, 4], 1, 8))
    assert not cert.holds and "stack" in cert.reason
    assert not g.recheck_d1(good)


def test_planted_bug_a_dropped_jacobian_column_fails(monkeypatch):
    good = _good()
    real = an.jacobian_point

    def dropped(name, layers, x, ball):
        rows = real(name, layers, x, ball)
        for r in rows:
            r[-1] = r[-1] * 0
        return rows

    monkeypatch.setattr(an, "jacobian_point", dropped)
    assert not g.check(g.D1Instance("gelu", [3, 4], 1, 8)).holds
    assert not g.recheck_d1(good)


def test_oracle_check_runs_and_rechecks():
    res = base.run_check(g.check, 4)
    assert res.passed and res.instances == 4 and res.exact_instances == 4


@pytest.mark.parametrize("fn, dropped", [(g.analytic_d1_index_sets, "generic_weight"),
                                         (g.analytic_d1_depth_one, "depth_ge_2"),
                                         (g.analytic_d1_relu, "sigma_analytic")])
def test_boundary_instances_hold_and_recheck(fn, dropped):
    assert fn in load().counterexamples
    assert fn.counterexample_info.claims == (g.CLAIM,) and fn.counterexample_info.dropped == dropped
    cert = fn()
    assert cert.holds and cert.claim == g.CLAIM
    doc = _json(cert.as_dict())
    if dropped == "sigma_analytic":
        assert depth_boundary.recheck_depth_counterexample(doc)
        assert doc["data"]["kind"] == "dimension_d1"
    else:
        assert bd.recheck_counterexample(doc)
        assert doc["data"]["rank_certificate"]["d"] == 1 and doc["data"]["rank_certificate"]["certified"]
        bad = copy.deepcopy(doc)                    # the plain stack changed: the values no longer agree
        bad["data"]["plain"][0]["W_down"][0][1] = "1/2"
        assert not bd.recheck_counterexample(bad)


def test_registry_entry():
    reg = {c["id"]: c for c in C.load_registry()}
    c = reg[g.CLAIM]
    assert c["oracle"] == "oracle.claims.depth_analytic_d1:check"
    assert c["informal"] == "informal/depth-analytic-d1.md"
    assert {"d_eq_1", "sigma_analytic", "depth_ge_2", "generic_weight", "bias_free"} == set(c["hypotheses"])
    assert "analytic_rank_certified" not in c["hypotheses"]
    assert c["coq"] == reg["depth-analytic"]["coq"] == reg["depth-analytic-generic"]["coq"]
    assert c["samples"]["d"] == "1"
    # every hypothesis but d_eq_1 has a boundary instance in d = 1; d_eq_1 has a stated reason
    dropped = {fn.counterexample_info.dropped for fn in load().counterexamples
               if g.CLAIM in fn.counterexample_info.claims}
    assert dropped == {"generic_weight", "depth_ge_2", "sigma_analytic"}
    assert set(c["coq_counterexamples_absent"]) == {"d_eq_1"}


def _quick() -> dict:
    from oracle.commands import audit
    entry = next(c for c in C.load_registry() if c["id"] == g.CLAIM)
    return audit.oracle_face(entry, audit.QUICK_INSTANCES, audit.DEFAULT_SEED, progress=lambda *a, **k: None)


def test_quick_audit_passes_with_its_corner_instances():
    from oracle.commands import audit
    out = _quick()
    assert out["status"] == "pass", out.get("failure")
    assert out["examples"] == len(g.d1_corners()) == 4 and out["instances"] == audit.QUICK_INSTANCES


def test_planted_bug_an_opposite_pair_left_distinct_fails_on_a_corner(monkeypatch):
    """If the 'opposite' near miss were built without making the pair opposite, the relation of
    Proposition D1' would not vanish and the block would certify: a corner instance must catch it."""
    real = g.degenerate_block

    def wrong(kind, base_blk):
        return ([list(r) for r in base_blk[0]], [list(base_blk[1][0])]) if kind == "opposite" else real(kind, base_blk)

    monkeypatch.setattr(g, "degenerate_block", wrong)
    out = _quick()
    assert out["status"] == "FAILED" and out["failing"]["phase"] == "example", out.get("failing")
