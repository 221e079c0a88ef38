"""relu-complete: the exact minimal width m* of a relu block equal to M x + B(x), for every relu
block (degenerate, biased, d = 1), with the construction, an independent referee and a brute-force
cross-check."""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections import defaultdict
from fractions import Fraction

import pytest
from hypothesis import given, settings

from oracle.formal import consistency
from oracle.algebra.canonical import relu_form_exact, relu_function_equal
from oracle.claims import relu_complete as rc
from oracle.claims import load
from oracle.claims.base import run_check
from oracle.algebra.pl_check import ExactRelu, pl_equal
from oracle.algebra.relu_width import build_construction, construction_form, cost, minimal_width

Q = Fraction
I1 = [[Q(1)]]


def _mstar(U, W, M, c=None, b=None):
    return minimal_width(relu_form_exact(U, W, M, c, b))


@settings(max_examples=80, deadline=None)
@given(inst=rc.STRATEGY)
def test_relu_complete_certificate_holds_and_rechecks(inst):
    cert = rc.check(inst)
    assert cert.holds and cert.exact
    assert cert.data["construction"]["width"] == cert.data["m_star"]
    d = json.loads(json.dumps(cert.as_dict()))
    assert rc.recheck(d)


def test_relu_complete_run_check_passes():
    res = run_check(rc.check, 25)
    assert res.passed and res.instances == 25


def test_tampered_certificates_are_rejected():
    inst = rc.ReluInstance("opposite", [[Q(1)], [Q(-1)]], [[Q(2), Q(2)]], I1)
    cert = rc.check(inst).as_dict()
    assert cert["data"]["m_star"] == 2 and rc.recheck(cert)
    bad = copy.deepcopy(cert)
    bad["data"]["m_star"] = 1  # a narrower width claimed
    assert not rc.recheck(bad)
    bad = copy.deepcopy(cert)
    bad["data"]["construction"]["W_down"][0][0] = "5"  # a different block
    assert not rc.recheck(bad)
    bad = copy.deepcopy(cert)
    bad["data"]["instance"]["W_down"][0][0] = "3"  # the block changed under the certificate
    assert not rc.recheck(bad)
    bad = copy.deepcopy(cert)
    bad["data"]["grid_search"] = {"found": [0, 1]}  # a narrower grid block was found
    assert not rc.recheck(bad)
    bad = copy.deepcopy(cert)
    del bad["data"]["instance"]
    assert not rc.recheck(bad)
    bad = copy.deepcopy(cert)
    bad["holds"] = False
    assert not rc.recheck(bad)


def test_boundary_instances_by_hand():
    """relu-complete.md, 'Special cases': each value of m* checked against the text."""
    # opposite orientations in one class: x + 2|x| = 3 relu(x) + relu(-x)
    assert _mstar([[Q(1)], [Q(-1)]], [[Q(2), Q(2)]], I1).lower == 2
    # zero output column: x = relu(x) - relu(-x)
    assert _mstar([[Q(1)]], [[Q(0)]], I1).lower == 2
    # alpha = 0 class: 2 relu(x) - relu(2x) = 0
    assert _mstar([[Q(1)], [Q(2)]], [[Q(2), Q(-1)]], I1).lower == 2
    # zero row with a bias: a constant, absorbed by b_down; biases on one side only
    r = _mstar([[Q(0)], [Q(1)]], [[Q(3), Q(-1)]], I1, [Q(2), Q(0)], None)
    assert r.lower == 1  # x - relu(x) + 6 = -relu(-x) + 6
    # d = 1 with an index set: x - relu(x) = -relu(-x), one unit
    assert _mstar([[Q(1)]], [[Q(-1)]], I1).lower == 1
    # M = 0: nothing to absorb
    assert _mstar([[Q(1)]], [[Q(1)]], [[Q(0)]]).lower == 1
    assert _mstar([[Q(1)]], [[Q(0)]], [[Q(0)]]).lower == 0
    # distinct parallel hyperplanes (collinear rows, different biases) behave like distinct units:
    # same width iff an index set exists
    U, W, c = [[Q(1)], [Q(1)]], [[Q(-1), Q(3)]], [Q(0), Q(1)]
    assert _mstar(U, W, I1, c).lower == 2  # S = {0}: w u = -1
    W2 = [[Q(2), Q(3)]]
    assert _mstar(U, W2, I1, c).lower == 3  # no subset sum of (2, 3) equals -1


def test_nondegenerate_case_is_absorption_width_and_relu_gelu_iff():
    """For nondegenerate bias-free blocks m* = m + C (absorption-width) and m* <= m iff an index set."""
    from oracle.claims.absorption_width import lower_bound_table
    from oracle.algebra.exact import all_index_sets_exact, identity

    rng = random.Random(5)
    checked = 0
    for _ in range(40):
        d, m = 2, rng.randint(2, 4)
        U = [[Q(rng.randint(-3, 3)) for _ in range(d)] for _ in range(m)]
        W = [[Q(rng.randint(-3, 3)) for _ in range(m)] for _ in range(d)]
        inst = rc.ReluInstance("generic", U, W, identity(d))
        if not rc._nondegenerate(inst):
            continue
        r = _mstar(U, W, identity(d))
        assert r.lower == m + lower_bound_table(U, W)["C"]
        assert (r.lower <= m) == bool(all_index_sets_exact(U, W, identity(d)))
        checked += 1
    assert checked >= 10


def test_construction_matches_cost_for_every_choice():
    """|build_construction(s, T)| = |script-H| + cost(s, T), and it is F, for every (s, T) (not just optima)."""
    U = [[Q(1), Q(0)], [Q(0), Q(1)], [Q(1), Q(1)]]
    W = [[Q(1), Q(0), Q(-1)], [Q(0), Q(2), Q(1)]]
    M = [[Q(1), Q(0)], [Q(0), Q(1)]]
    c = [Q(1), Q(0), Q(-1)]
    form = relu_form_exact(U, W, M, c, [Q(1), Q(0)])
    F = ExactRelu(U, W, c, [Q(1), Q(0)], M)
    h = len(form.active)
    for s in itertools.product((1, -1), repeat=h):
        for T in ([], [0], [2], [0, 1]):
            con = build_construction(form, s, T)
            assert con.width == h + cost(form, s, T)
            assert relu_function_equal(construction_form(con, 2), form)[0]
            G = ExactRelu(con.W_up, con.W_down, con.b_up, con.b_down, None, d=2)
            assert pl_equal(F, G)


def test_referee_rejects_wrong_blocks():
    """The independent referee is not vacuous: it tells equal from nearly equal functions."""
    F = ExactRelu([[Q(1), Q(1)], [Q(1), Q(-1)]], [[Q(1), Q(0)], [Q(0), Q(1)]], None, None, [[Q(1), Q(0)], [Q(0), Q(1)]])
    G = ExactRelu([[Q(1), Q(1)], [Q(1), Q(-1)]], [[Q(1), Q(0)], [Q(0), Q(1)]], None, None, [[Q(1), Q(0)], [Q(0), Q(1)]])
    assert pl_equal(F, G)
    H = ExactRelu([[Q(1), Q(1)], [Q(1), Q(-1)], [Q(1), Q(2)]], [[Q(1), Q(0), Q(1, 64)], [Q(0), Q(1), Q(0)]],
                  None, None, [[Q(1), Q(0)], [Q(0), Q(1)]])
    assert not pl_equal(F, H)
    K = ExactRelu([[Q(1)]], [[Q(1)]], [Q(-3)], None, I1)  # kink far out at x = 3
    L = ExactRelu([[Q(1)]], [[Q(1)]], [Q(-3)], None, [[Q(1)]], d=1)
    assert pl_equal(K, L)
    assert not pl_equal(K, ExactRelu([[Q(1)]], [[Q(1)]], [Q(-4)], None, I1))


def test_grid_search_is_not_vacuous():
    """The d = 1 grid search finds blocks of width m* when they exist in the grid."""
    found = 0
    for U, W, c in (([[Q(1)]], [[Q(-1)]], None), ([[Q(1)], [Q(-1)]], [[Q(2), Q(2)]], None),
                    ([[Q(1)], [Q(1)]], [[Q(-1), Q(1)]], [Q(0), Q(1)])):
        inst = rc.ReluInstance("generic", U, W, I1, c)
        r = _mstar(U, W, I1, c)
        g = rc.grid_lower_bound(inst, r.lower + 1)
        assert g["found"] is not None and len(g["found"]) == r.lower
        found += 1
        assert rc.grid_lower_bound(inst, r.lower)["found"] is None
    assert found == 3


def _units_d2():
    us = [[Q(a), Q(b)] for a in (-1, 0, 1) for b in (-1, 0, 1) if (a, b) != (0, 0)]
    us += [[Q(1), Q(2)], [Q(2), Q(1)], [Q(-1), Q(-2)], [Q(-2), Q(-1)]]
    ws = [[Q(a), Q(b)] for a in (-2, -1, 0, 1, 2) for b in (-2, -1, 0, 1, 2) if (a, b) != (0, 0)]
    return [(u, w) for u in us for w in ws]


def test_brute_force_d2_lower_bound():
    """relu-complete against exhaustive search: no bias-free d = 2 grid block of width < m* (up to 3)
    equals x + B(x), for 25 random grid targets; the referee is oracle/algebra/pl_check.py."""
    units = _units_d2()
    P = [[Q(a, 2), Q(b, 2)] for a in range(-5, 6, 2) for b in range(-5, 6, 3)]

    def fp(u, w):
        out = []
        for x in P:
            h = max(u[0] * x[0] + u[1] * x[1], Q(0))
            out += [w[0] * h, w[1] * h]
        return tuple(out)
    fps = [fp(u, w) for u, w in units]
    singles, pairs = defaultdict(list), defaultdict(list)
    for i, f in enumerate(fps):
        singles[f].append(i)
    for i in range(len(units)):
        for j in range(i, len(units)):
            pairs[tuple(a + b for a, b in zip(fps[i], fps[j]))].append((i, j))
    rng = random.Random(11)
    stats = defaultdict(int)
    for _ in range(25):
        m = rng.randint(1, 2)
        sel = [units[rng.randrange(len(units))] for _ in range(m)]
        U = [u for u, _ in sel]
        W = [[w[a] for _, w in sel] for a in range(2)]
        M = [[Q(1), Q(0)], [Q(0), Q(1)]] if rng.random() < 0.5 else [[Q(rng.randint(-1, 1)) for _ in range(2)] for _ in range(2)]
        F = ExactRelu(U, W, None, None, M)
        r = _mstar(U, W, M)
        target = tuple(v for x in P for v in F(x))
        cands = []
        if r.lower > 0 and all(v == 0 for v in target):
            cands.append(())
        if r.lower > 1:
            cands += [(i,) for i in singles.get(target, [])]
        if r.lower > 2:
            cands += pairs.get(target, [])
        if r.lower > 3:
            cands += [(i,) + p for i in range(len(units))
                      for p in pairs.get(tuple(a - b for a, b in zip(target, fps[i])), [])]
        for cnd in cands:
            G = ExactRelu([units[i][0] for i in cnd], [[units[i][1][a] for i in cnd] for a in range(2)]
                          if cnd else [[], []], None, None, None, d=2)
            assert not pl_equal(F, G), ("a block narrower than m* equals F", U, W, M, cnd)
        stats[r.lower] += 1
    assert sum(stats.values()) == 25 and len(stats) >= 2


def test_counterexample_registered_and_drops_a_real_tag():
    reg = {c["id"]: c for c in consistency.load_registry()}
    fn = rc.gelu_scales_counterexample
    assert fn in load().counterexamples
    info = fn.counterexample_info
    assert info.claims == ("relu-complete",) and info.dropped in reg["relu-complete"]["hypotheses"]
    cert = fn()
    assert cert.holds and cert.data["relu_m_star"] == 2 and "1" not in cert.data["width2_linear_options"]


# ---------------------------------------------------------------- planted bugs (issue 28)
# Each test plants, in this process, a bug that once survived the quick audit (docs/mutation.md)
# and asserts that the claim's quick-audit oracle run (20 instances, seed 0, corners first) fails.

def _quick_fails() -> str:
    from oracle.commands import audit
    entry = next(c for c in consistency.load_registry() if c["id"] == "relu-complete")
    out = audit.oracle_face(entry, audit.QUICK_INSTANCES, audit.DEFAULT_SEED, progress=lambda *a, **k: None)
    assert out["status"] == "FAILED", "the planted bug survived the quick audit of relu-complete"
    return out.get("failure") or ""


def test_negative_controls_catch_a_referee_that_probes_too_few_points(monkeypatch):
    # the d = 1 check probes only 0 and 1 whatever the breakpoints: it calls many unequal pairs equal
    from oracle.algebra import pl_check
    monkeypatch.setattr(pl_check, "_check_1d", lambda D, breaks: all(D(t) for t in (Q(0), Q(1))))
    _quick_fails()


def test_negative_controls_catch_a_referee_with_moved_breakpoints(monkeypatch):
    # every breakpoint moved by 7 (as a wrong breakpoint formula along a d = 2 kink line does)
    from oracle.algebra import pl_check
    real = pl_check._check_1d
    monkeypatch.setattr(pl_check, "_check_1d", lambda D, breaks: real(D, [b + 7 for b in breaks]))
    _quick_fails()


def test_controls_are_unequal_to_F_for_both_equality_tests():
    for inst in rc.relu_corners() + [rc.ReluInstance("opposite", [[Q(1)], [Q(-1)]], [[Q(2), Q(2)]], I1)]:
        form = relu_form_exact(inst.W_up, inst.W_down, inst.M, inst.b_up, inst.b_down)
        r = minimal_width(form)
        con = build_construction(form, r.s, r.T)
        ctl = rc._controls(inst, con)
        assert len(ctl) >= 2
        for k in ctl:
            assert not relu_function_equal(construction_form(k, inst.d), form)[0]
            if inst.d <= 2:
                assert not pl_equal(inst.function(), ExactRelu(k.W_up, k.W_down, k.b_up, k.b_down, None, d=inst.d))


def test_hypotheses_redecided_catch_a_wrong_nondegeneracy_test(monkeypatch):
    # columns with only positive entries taken for zero columns: the absorption-width cross-check
    # would be skipped on them; the separately written test disagrees
    monkeypatch.setattr(rc, "_nondegenerate", lambda inst: all(
        any(inst.W_down[a][i] < 0 for a in range(inst.d)) for i in range(inst.m))
        and rc.nondegenerate_indep(inst.W_up, inst.W_down))
    _quick_fails()


def test_hypotheses_redecided_catch_a_wrong_line_key(monkeypatch):
    # line_key with the sign lost (0 instead of -1): every row with a negative leading entry gets
    # the same key, so such rows count as collinear
    from oracle.algebra import exact
    real = exact.line_key

    def wrong(row):
        k = real(row)
        lead = next((v for v in row if v != 0), None)
        return k if lead is None or lead > 0 else tuple(0 for _ in k)
    monkeypatch.setattr(rc, "line_key", wrong)
    _quick_fails()


def test_grid_positive_control_catches_a_search_that_finds_nothing(monkeypatch):
    real = rc.grid_lower_bound

    def blind(inst, below):
        out = real(inst, below)
        out["found"] = None
        return out
    monkeypatch.setattr(rc, "grid_lower_bound", blind)
    _quick_fails()


def test_a_check_that_did_not_run_fails():
    inst = rc.ReluInstance("opposite", [[Q(1)], [Q(-1)]], [[Q(2), Q(2)]], I1)
    ev = rc._evaluate(inst)
    assert rc._holds(ev, 1) and ev["construction_in_grid"]
    for key in ("construction_equal_by_referee", "m_star_independent_agrees", "hypotheses_agree"):
        bad = dict(ev)
        del bad[key]
        assert not rc._holds(bad, 1), key
    bad = dict(ev, controls_told_apart=[True, False])
    assert not rc._holds(bad, 1)
    nd = rc.ReluInstance("generic", [[Q(1), Q(0)], [Q(0), Q(1)]], [[Q(1), Q(0)], [Q(0), Q(1)]],
                         [[Q(1), Q(0)], [Q(0), Q(1)]])
    ev = rc._evaluate(nd)
    assert ev["hypotheses"]["nondegenerate"] and ev["hypotheses"]["bias_free"] and rc._holds(ev, 2)
    bad = dict(ev)
    del bad["agrees_with_absorption_width"]   # the nondegenerate bias-free cross-check skipped
    assert not rc._holds(bad, 2)


def _exec_mutant(monkeypatch, module, name, old, new, *targets):
    """Redefine module.name from its source with `old` replaced by `new`; patch it into targets."""
    import inspect
    src = inspect.getsource(getattr(module, name))
    assert src.count(old) == 1
    ns: dict = {}
    exec(src.replace(old, new), vars(module), ns)
    for t in (module,) + targets:
        monkeypatch.setattr(t, name, ns[name])


def test_parallel_corner_catches_a_referee_that_skips_the_transversal(monkeypatch):
    # parallel kink lines of different scale counted as different directions, so the transversal
    # check is skipped; the d = 2 corner with lines u = (2, 0), (-1, 0) fails first
    from oracle.algebra import pl_check
    _exec_mutant(monkeypatch, pl_check, "pl_equal", "(u[0] / (u[0] if u[0] else u[1]),",
                 "(u[0] + (u[0] if u[0] else u[1]),", rc)
    from oracle.commands import audit
    entry = next(c for c in consistency.load_registry() if c["id"] == "relu-complete")
    out = audit.oracle_face(entry, audit.QUICK_INSTANCES, audit.DEFAULT_SEED, progress=lambda *a, **k: None)
    assert out["status"] == "FAILED" and out["failing"]["phase"] == "example", out.get("failing")


def test_bezout_contract_catches_a_wrong_extended_euclid(monkeypatch):
    from oracle.algebra import relu_width
    _exec_mutant(monkeypatch, relu_width, "bezout_vector", "if g == 0:", "if g > 0:", rc)
    _quick_fails()


def test_grid_membership_is_decided_twice(monkeypatch):
    # a grid description that lost w = -1/2 disagrees with the table on a block with that unit
    inst = rc.ReluInstance("generic", [[Q(1)]], [[Q(-1, 2)]], [[Q(0)]])  # its construction is itself
    ev = rc._evaluate(inst)
    assert ev["grid_membership_agrees"] and ev["construction_in_grid"] and rc._holds(ev, 1)
    real = rc._grid_units
    monkeypatch.setattr(rc, "_grid_units", lambda con, biased: real(con, biased) and all(
        w != Q(-1, 2) for row in con.W_down for w in row))
    ev = rc._evaluate(inst)
    assert not ev["grid_membership_agrees"] and not rc._holds(ev, 1)


def test_grid_table_is_held_to_its_description(monkeypatch):
    # a grid table that lost a weight (w = 1/2 replaced by 0, as a mutant did) is not the grid described
    inst = rc.ReluInstance("opposite", [[Q(1)], [Q(-1)]], [[Q(2), Q(2)]], I1)
    assert rc._evaluate(inst)["grid_table_is_description"]
    real = rc._grid_tables.__wrapped__

    def lost(biased):
        units, fps, singles, pairs = real(biased)
        return [(u, c, Q(0) if w == Q(1, 2) else w) for u, c, w in units], fps, singles, pairs
    monkeypatch.setattr(rc, "_grid_tables", lost)
    ev = rc._evaluate(inst)
    assert not ev["grid_table_is_description"] and not rc._holds(ev, 1)


def test_kind_is_read_from_the_weights():
    # labels the strategy gives must match the weights (a strategy that plants a pair on the wrong
    # units, or zeroes the wrong row, draws blocks of another kind than it declares)
    ok = rc.ReluInstance("parallel", [[Q(1), Q(2)], [Q(1), Q(2)]], [[Q(1), Q(1)], [Q(0), Q(1)]],
                         [[Q(1), Q(0)], [Q(0), Q(1)]], [Q(0), Q(1)], None)
    assert rc.kind_present(ok) and rc.check(ok).holds
    for bad in (rc.ReluInstance("parallel", [[Q(1), Q(2)], [Q(2), Q(4)]], [[Q(1), Q(1)], [Q(0), Q(1)]],
                                [[Q(1), Q(0)], [Q(0), Q(1)]], [Q(0), Q(1)], None),
                rc.ReluInstance("zero_row", [[Q(1)], [Q(0)]], [[Q(1), Q(1)]], I1),
                rc.ReluInstance("identity_like", [[Q(1), Q(1)], [Q(0), Q(1)]], [[Q(1), Q(1)], [Q(0), Q(1)]],
                                [[Q(1), Q(0)], [Q(0), Q(1)]])):
        assert not rc.kind_present(bad) and not rc.check(bad).holds


def test_kernel_contract_catches_a_wrong_independent_kernel(monkeypatch):
    # elimination that skips negative entries (a mutant of _kernel_q) returns vectors off the kernel
    real = rc._kernel_q

    def wrong(rows, d):
        K = real(rows, d)
        return [[v + 1 for v in k] for k in K] if rows else K
    monkeypatch.setattr(rc, "_kernel_q", wrong)
    _quick_fails()


def test_down_only_corner_needs_the_b_down_test():
    inst = rc.relu_corners()[-1]
    ev = rc._evaluate(inst)
    assert rc._holds(ev, 1) and ev["F_at_0"] == ["-1"]
    assert all(Q(v) == 0 for v in ev["construction"]["b_up"])   # only b_down carries F(0)
    assert not rc._holds(dict(ev, F0_nonzero_construction_biased=False), 1)
