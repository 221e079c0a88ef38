"""depth-analytic-generic: the drawn instances (d >= 2, widths up to 8), the one-block limit of the
all-widths proof, the re-check, a planted bug in the Jacobian, and the registry entry."""

import copy
import json
import random
from fractions import Fraction

import pytest

from oracle.claims import base
from oracle.claims import depth_analytic as da
from oracle.algebra.stacks import analytic as an
from oracle.claims import depth_analytic_generic as g
from oracle.formal import consistency as C

Q = Fraction


def _json(x):
    return json.loads(json.dumps(x))


def test_non_parallel_is_exact():
    assert g.non_parallel([[Q(1), Q(2)], [Q(2), Q(1)]])
    assert not g.non_parallel([[Q(1), Q(2)], [Q(2), Q(4)]])          # parallel, not equal
    assert not g.non_parallel([[Q(1), Q(2)], [Q(-1), Q(-2)]])        # opposite
    assert not g.non_parallel([[Q(0), Q(0)], [Q(1), Q(0)]])          # a zero row


def test_drawn_layers_and_limit_blocks_have_non_parallel_rows():
    rng = random.Random(5)
    for d in (2, 3):
        for U, W in g.random_layers(d, [8, 1, 5], rng):
            assert g.non_parallel(U) and all(v != 0 for r in W for v in r)
        U, W = g.limit_block(d, 12, rng)
        assert len(U) == 12 and g.non_parallel(U)


def test_shrink_keeps_the_parameter_bound():
    assert g.shrink(2, [3, 3]) == [3, 3]
    w = g.shrink(4, [8, 8, 8])
    assert an.param_count(4, w) <= g.MAX_PARAMS and len(w) == 3 and max(w) - min(w) <= 1


@pytest.mark.parametrize("act, d, widths", [("gelu", 2, [8, 1]), ("silu", 3, [1, 7]),
                                            ("gelu_tanh", 4, [2, 3, 1])])
def test_check_certifies_beyond_the_sweep_and_rechecks(act, d, widths):
    cert = g.check(g.GenericInstance(act, d, widths, 3))
    assert cert.holds and cert.exact
    doc = _json(cert.as_dict())
    assert g.recheck_generic(doc)
    assert doc["data"]["limit"] is not None and doc["data"]["limit"]["widths"] == [sum(widths)]
    assert doc["data"]["beyond_sweep"] == (d > 4 or max(widths) > 6)


def _good():
    return _json(g.check(g.GenericInstance("gelu", 2, [2, 3], 1)).as_dict())


def test_recheck_refuses_tampering():
    good = _good()
    assert g.recheck_generic(good)
    bad = copy.deepcopy(good)                       # a d = 1 certificate is outside the claim
    d1 = an.make_certificate("gelu", 1, [2, 3], 0)
    assert d1["certified"]
    bad["data"]["stack"] = _json(d1)
    assert not g.recheck_generic(bad)
    bad = copy.deepcopy(good)                       # the limit block left out although cheap
    bad["data"]["limit"] = None
    assert not g.recheck_generic(bad)
    bad = copy.deepcopy(good)                       # the limit block of the wrong width
    bad["data"]["limit"] = _json(g.limit_certificate("gelu", 2, 4, 1))
    assert not g.recheck_generic(bad)
    bad = copy.deepcopy(good)                       # a changed weight of the stack
    bad["data"]["stack"]["theta"][0] += 1
    assert not g.recheck_generic(bad)
    bad = copy.deepcopy(good)                       # another claim's certificate
    bad["claim"] = "depth-analytic"
    assert not g.recheck_generic(bad)


def test_limit_block_with_parallel_rows_is_refused():
    """R2 needs pairwise non-parallel rows: a limit certificate whose rows are parallel (u_2 = 2 u_1)
    is refused by the re-check even though its determinant excludes 0 (the referee's case)."""
    U = [[Q(3, 4), Q(-1, 2)], [Q(3, 2), Q(-1)], [Q(1, 4), Q(5, 8)]]
    W = [[Q(1, 2), Q(-3, 8), Q(1)], [Q(5, 8), Q(1, 4), Q(-1, 2)]]
    pts = an.random_points(2, an.point_count(2, [3]), random.Random(0))
    cert = _json(an.certify("gelu", [(U, W)], pts))
    assert cert["certified"]                        # full rank: non-parallel is sufficient, not necessary
    assert not g.recheck_limit(cert, 3, 2)
    U2 = [[Q(3, 4), Q(-1, 2)], [Q(1, 2), Q(1)], [Q(1, 4), Q(5, 8)]]
    ok = _json(an.certify("gelu", [(U2, W)], pts))
    assert ok["certified"] and g.recheck_limit(ok, 3, 2)


def test_planted_bug_a_dropped_jacobian_column_fails(monkeypatch):
    """A Jacobian with one column dropped (set to 0: the derivative in one weight lost) must not
    certify: the check fails on the instance, and a good certificate no longer re-checks."""
    good = _good()
    real = an.jacobian_point

    def dropped(name, layers, x, ball):
        rows = real(name, layers, x, ball)
        for r in rows:
            r[-1] = r[-1] * 0
        return rows

    monkeypatch.setattr(an, "jacobian_point", dropped)
    cert = g.check(g.GenericInstance("gelu", 2, [2, 3], 1))
    assert not cert.holds and "no certificate" in cert.reason
    assert not g.recheck_generic(good)
    res = base.run_check(g.check, 2)
    assert not res.passed


def test_oracle_check_runs_and_rechecks():
    res = base.run_check(g.check, 4)
    assert res.passed and res.instances == 4 and res.exact_instances == 4


def test_registry_entry():
    reg = {c["id"]: c for c in C.load_registry()}
    c = reg[g.CLAIM]
    assert c["oracle"] == "oracle.claims.depth_analytic_generic:check"
    assert "analytic_rank_certified" not in c["hypotheses"]
    assert {"d_ge_2", "sigma_analytic", "depth_ge_2", "generic_weight", "bias_free"} <= set(c["hypotheses"])
    assert c["coq"] == reg["depth-analytic"]["coq"]
    # the shared boundary instances name this claim too
    for fn in (da.analytic_index_sets, da.analytic_depth_one):
        assert g.CLAIM in fn.counterexample_info.claims
        assert fn.counterexample_info.dropped in c["hypotheses"]
