"""relu2-biased: biased relu2 blocks absorb their skip at their own width iff a flip set exists
(distinct kink hyperplanes, nonzero units); degenerate blocks through the class sums (part (C))."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import numpy as np
from flint import fmpq
from hypothesis import given, settings

from oracle.algebra import flips
from oracle.claims import boundary as bd
from oracle.claims import relu2_biased as rb
from oracle.claims import load
from oracle.claims.base import run_check

Q = Fraction


def _spec(U, b, W, M, b_down=None, kind="generic"):
    d = len(M)
    return {"kind": kind, "W_up": [[str(v) for v in r] for r in U], "b_up": [str(v) for v in b],
            "W_down": [[str(v) for v in r] for r in W], "M": [[str(v) for v in r] for r in M],
            "b_down": [str(v) for v in (b_down or [0] * d)], "points": [["3"] * d, ["-5/2"] * d]}


def _cert(spec):
    inst = rb.Relu2Instance(spec["kind"], [[Q(v) for v in r] for r in spec["W_up"]], [Q(v) for v in spec["b_up"]],
                            [[Q(v) for v in r] for r in spec["W_down"]], [[Q(v) for v in r] for r in spec["M"]],
                            [Q(v) for v in spec["b_down"]], [[Q(v) for v in p] for p in spec["points"]])
    return rb.check(inst)


@settings(max_examples=60, deadline=None)
@given(inst=rb.STRATEGY)
def test_certificates_hold_and_recheck_from_json(inst):
    cert = rb.check(inst)
    assert cert.holds and cert.exact
    d = json.loads(json.dumps(cert.as_dict()))
    assert rb.recheck(d)
    if inst.kind == "planted":
        assert cert.data["verdict"] == "absorbable (A)" and cert.data["class_forms_equal"]


def test_run_check_passes():
    res = run_check(rb.check, 30)
    assert res.passed and res.instances == 30 and res.exact_instances == 30


def test_pair_removes_a_linear_term():
    # (u, 1/4, w) and (u, -1/4, -w) remove w (u.x): with u = 1, w = -1 this is -x = -M x for M = 1
    cert = _cert(_spec([[1], [1]], [Q(1, 4), Q(-1, 4)], [[-1, 1]], [[1]]))
    assert cert.holds and cert.data["S"] == [0, 1] and cert.data["verdict"] == "absorbable (A)"
    assert cert.data["c_S"] == ["0"]


def test_near_miss_has_no_flip_set():
    cert = _cert(_spec([[1], [1]], [Q(1, 4), Q(-1, 4)], [[Q(-1) + Q(1, 2 ** 30), 1]], [[1]]))
    assert cert.holds and cert.data["search_status"] == "none" and cert.data["verdict"] == "not absorbable (B)"
    assert cert.data["nondegenerate"] is True


def test_bias_free_nondegenerate_blocks_never_absorb():
    # (L) reads 0 = -M when every b_i = 0: Prop. 5 for nondegenerate blocks, against biased B' too
    cert = _cert(_spec([[1, 0], [0, 1], [1, 1]], [0, 0, 0], [[1, -1, 2], [0, 1, -1]], [[1, 0], [0, 1]]))
    assert cert.holds and cert.data["verdict"] == "not absorbable (B)"


def test_tampered_certificates_are_rejected():
    d = _cert(_spec([[1], [1]], [Q(1, 4), Q(-1, 4)], [[-1, 1]], [[1]])).as_dict()
    assert rb.recheck(d)
    bad = copy.deepcopy(d)
    bad["data"]["W_down"][0][0] = "-2"
    assert not rb.recheck(bad)
    bad = copy.deepcopy(d)
    bad["data"]["S"] = [0]
    assert not rb.recheck(bad)
    bad = copy.deepcopy(d)
    bad["data"]["verdict"] = "not absorbable (B)"
    assert not rb.recheck(bad)


def test_compressed_solve_finds_a_planted_set_among_many_units():
    rng = np.random.default_rng(3)
    d, units = 3, []
    for k in range(d):  # pairs removing -e_k e_k^T each: sum = -I
        u = np.eye(d)[k]
        units += [(u, 0.5, -np.eye(d)[k] / 2), (u, -0.5, np.eye(d)[k] / 2)]
    for _ in range(18):
        units.append((rng.integers(-3, 4, d) / 2, rng.integers(-4, 5) / 4, rng.integers(-3, 4, d) / 2))
    order = rng.permutation(len(units))
    U = np.array([units[i][0] for i in order])
    b = np.array([units[i][1] for i in order])
    W = np.array([units[i][2] for i in order]).T
    fd = flips.flip_data("relu2", U, W, None, b_up=b)
    res = flips.find_flip_set(fd)
    assert res.status == "found" and flips.verify_flip_set(fd, res.S)
    assert sorted(res.S) == sorted(int(np.where(order == i)[0][0]) for i in range(2 * d))
    assert flips.recheck_search(fd, res.certificate, res.S)
    W2 = W.copy()
    W2[0, int(np.where(order == 0)[0][0])] += 2.0 ** -30
    fd2 = flips.flip_data("relu2", U, W2, None, b_up=b)
    res2 = flips.find_flip_set(fd2)
    assert res2.status == "none" and flips.recheck_search(fd2, res2.certificate, None)


def test_many_units_in_small_dimension_are_inconclusive_not_wrong():
    # d = 2 has only 10 monomial coefficients: 34 units leave >= 24 free 0/1 variables
    rng = np.random.default_rng(5)
    U, W, b = rng.integers(-3, 4, (34, 2)) / 2, rng.integers(-3, 4, (2, 34)) / 2, rng.integers(-4, 5, 34) / 4
    res = flips.find_flip_set(flips.flip_data("relu2", U, W, None, b_up=b))
    assert res.status in ("inconclusive", "none")
    if res.status == "inconclusive":
        assert "free variables" in res.certificate["reason"]


def _classes(U, b, W, M, width=None):
    fd = flips.flip_data("relu2", [[Q(v) for v in r] for r in U], [[Q(v) for v in r] for r in W],
                         [[Q(v) for v in r] for r in M], b_up=[Q(v) for v in b])
    return fd, flips.relu2_decide_classes(fd, width)


def test_class_sums_on_the_boundary_example():
    # boundary-cases.md 2: W_down = 0, d = 1: x needs two squares, i.e. four units
    U, b, W = [[1], [2], [-1], [3]], [0, 0, 0, 0], [[0, 0, 0, 0]]
    _, r4 = _classes(U, b, W, [[1]])
    assert r4["status"] == "found" and r4["plan"].squares and r4["spare_units"] == 4
    _, r3 = _classes(U[:3], b[:3], [[0, 0, 0]], [[1]])
    assert r3["status"] == "none"


def test_class_sums_construction_equals_the_residual_block():
    # the repeated-hyperplane counterexample, decided and built by part (C)
    U, b, W = [[1], [-1], [1]], [0, 0, Q(1, 2)], [[1, -1, 1]]
    fd, r = _classes(U, b, W, [[1]])
    assert r["status"] == "found" and r["spare_units"] == 1
    rows, bs, cols = flips.relu2_plan_block(fd, r["classes_obj"], r["plan"], fd.m)
    formF = flips.relu2_form([(fd.U[i], fd.b[i], fd.col(i)) for i in range(fd.m)], fd.M, [fmpq(0)], 1)
    _, p0 = flips.relu2_form(list(zip(rows, bs, cols)), None, [fmpq(0)], 1)
    bdn = [formF[1][0][-1] - p0[0][-1]]
    assert flips.relu2_form(list(zip(rows, bs, cols)), None, bdn, 1) == formF
    assert bdn == [fmpq(-1, 4)]


def test_class_form_detects_a_difference():
    one = [([fmpq(1)], fmpq(0), [fmpq(1)])]
    two = [([fmpq(2)], fmpq(0), [fmpq(1, 4)])]  # the same function: relu2(2x)/4 = relu2(x)
    three = [([fmpq(-1)], fmpq(0), [fmpq(-1)])]  # -relu2(-x) = relu2(x) - x^2: different
    f = flips.relu2_form(one, None, [fmpq(0)], 1)
    assert flips.relu2_form(two, None, [fmpq(0)], 1) == f
    assert flips.relu2_form(three, None, [fmpq(0)], 1) != f


def test_counterexamples_of_relu2_biased_hold_and_recheck():
    expected = {"relu2_repeated_hyperplane": "distinct_kink_hyperplanes", "relu2_wider": "same_width",
                "relu_not_relu2": "sigma_relu2"}
    for fn in bd.FLIP_BOUNDARY:
        if fn.__name__ not in expected:
            continue
        assert fn in load().counterexamples
        assert fn.counterexample_info.claims == ("relu2-biased",)
        assert fn.counterexample_info.dropped == expected.pop(fn.__name__)
        cert = fn()
        assert cert.holds and cert.exact
        d = json.loads(json.dumps(cert.as_dict()))
        assert bd.recheck_counterexample(d)
        bad = copy.deepcopy(d)
        bad["data"]["plain"]["W_down"][0][0] = "3"
        assert not bd.recheck_counterexample(bad)
    assert not expected


def _plan_equals_F(fd, r, width):
    rows, bs, cols = flips.relu2_plan_block(fd, r["classes_obj"], r["plan"], width)
    assert len(rows) <= width
    formF = flips.relu2_form([(fd.U[i], fd.b[i], fd.col(i)) for i in range(fd.m)], fd.M, [fmpq(0)] * fd.d, fd.d)
    _, p0 = flips.relu2_form(list(zip(rows, bs, cols)), None, [fmpq(0)] * fd.d, fd.d)
    bdn = [formF[1][o][-1] - p0[o][-1] for o in range(fd.d)]
    return flips.relu2_form(list(zip(rows, bs, cols)), None, bdn, fd.d) == formF


def test_d1_many_classes_is_decided_not_inconclusive():
    # the referee's block: kinks at 0..19 (outputs 1) plus two zero-output units, M = 1, width 22.
    # The T = {} system has 18 free 0/1 variables (more than MAX_FREE): it must not stop the search.
    U = [[1]] * 22
    b = [-k for k in range(20)] + [100, 101]
    W = [[1] * 20 + [0, 0]]
    fd, r = _classes(U, b, W, [[1]])
    assert r["status"] == "found" and r["spare_units"] == 2
    assert _plan_equals_F(fd, r, 22)


def test_d1_closed_form_cases():
    # n = 0 (all outputs zero), R_0 = x: not absorbable with 2 or 3 spare units, absorbable with 4
    for m, want in ((2, "none"), (3, "none"), (4, "found"), (5, "found")):
        fd, r = _classes([[1]] * m, [0] * m, [[0] * m], [[1]])
        assert r["status"] == want, (m, r["reason"])
        if want == "found":
            assert _plan_equals_F(fd, r, m)
    # n = 0 with R_0 = 0 mod constants (M = 0): one unit is enough, the constant goes to b_down
    fd, r = _classes([[1], [1]], [1, 2], [[0, 0]], [[0]])
    assert r["status"] == "found" and _plan_equals_F(fd, r, 2)
    # n = 1, R_0 = x: one square needs E = {H}, so that the x^2 coefficient is nonzero
    fd, r = _classes([[1], [0], [0]], [0, 0, 0], [[1, 0, 0]], [[1]])
    assert r["status"] == "found" and _plan_equals_F(fd, r, 3)
    # n = 2, r = 2: T = both classes
    fd, r = _classes([[1], [1], [0], [0]], [0, 1, 0, 0], [[1, 2, 0, 0]], [[3]])
    assert r["status"] == "found" and _plan_equals_F(fd, r, 4)


# Planted bugs: the oracle check itself (as the audit runs it) must fail.

def test_check_fails_when_part_c_always_says_not_absorbable(monkeypatch):
    orig = flips.relu2_decide_classes

    def never(fd, width=None):
        out = dict(orig(fd, width))
        out.update(status="none", plan=None)
        return out

    monkeypatch.setattr(flips, "relu2_decide_classes", never)
    # about one draw in seven is absorbable through (C); the full audit's 100 instances meet several
    res = run_check(rb.check, 100)
    assert not res.passed and "not absorbable (C)" in res.failure


def test_check_fails_when_every_block_is_called_nondegenerate(monkeypatch):
    orig = flips.flip_nondegeneracy
    monkeypatch.setattr(flips, "flip_nondegeneracy", lambda fd, act: {**orig(fd, act), "nondegenerate": True})
    res = run_check(rb.check, 20)
    assert not res.passed


def test_independent_part_c_agrees_on_the_examples():
    # the 22-unit d = 1 block; boundary-cases.md 2 at widths 3 and 4; the repeated-hyperplane example
    assert rb.indep_part_c([[Q(1)]] * 22, [Q(-k) for k in range(20)] + [Q(100), Q(101)],
                           [[Q(1)] * 20 + [Q(0), Q(0)]], [[Q(1)]], 22) == "found"
    assert rb.indep_part_c([[Q(1)], [Q(2)], [Q(-1)]], [Q(0)] * 3, [[Q(0)] * 3], [[Q(1)]], 3) == "none"
    assert rb.indep_part_c([[Q(1)], [Q(2)], [Q(-1)], [Q(3)]], [Q(0)] * 4, [[Q(0)] * 4], [[Q(1)]], 4) == "found"
    assert rb.indep_part_c([[Q(1)], [Q(-1)], [Q(1)]], [Q(0), Q(0), Q(1, 2)], [[Q(1), Q(-1), Q(1)]], [[Q(1)]],
                           3) == "found"
    assert not rb.indep_nondegenerate([[Q(1)], [Q(-1)]], [Q(0), Q(0)], [[Q(1), Q(1)]])
    assert rb.indep_nondegenerate([[Q(1)], [Q(-1)]], [Q(0), Q(1)], [[Q(1), Q(1)]])


def test_referee_cancelling_class_instance_needs_four_units(tmp_path, capsys):
    """Issue 29 (relu2-biased (C) false as first worded): d = 1, M = 1, units (u, b, w) = (1, 0, 1),
    (1, 0, -1), (1, 1, 0). Both kink classes have alpha_H = 0 (the first two outputs cancel, the third
    is zero), so n = 0, B = 0 and F(x) = x. Letting T range over all kink classes would promise width
    n + |T| = 2 (R_0 = x is in span{x^2, (x + 1)^2} mod constants); with E, T inside script-H the
    count says at least 4 units, and the oracle's check and `absorb check` both say so, exactly."""
    from oracle.core.blocks import Block
    from oracle.decide import decide, recheck_certificate

    U, b, W, M = [[1], [1], [1]], [0, 0, 1], [[1, -1, 0]], [[1]]
    # the wider reading's solution: x = (1/2)(x + 1)^2 - (1/2) x^2 - 1/2 at every point
    assert all(t == Q(1, 2) * (t + 1) ** 2 - Q(1, 2) * t * t - Q(1, 2) for t in (Q(-3), Q(0), Q(5, 7), Q(4)))
    fd, r3 = _classes(U, b, W, M)
    cl = r3["classes_obj"]
    assert len(cl.reps) == 2 and all(all(v == 0 for v in a) for a in cl.alpha) and cl.active == []
    assert r3["active_classes"] == 0 and r3["spare_units"] == 3
    for width, want in ((2, "none"), (3, "none"), (4, "found"), (5, "found")):
        fd_w, r = _classes(U, b, W, M, width)
        assert r["status"] == want, (width, r["reason"])
        if want == "found":
            assert _plan_equals_F(fd_w, r, width)
        assert rb.indep_part_c([[Q(v) for v in row] for row in U], [Q(v) for v in b],
                               [[Q(v) for v in row] for row in W], [[Q(1)]], width) == want
    # the oracle's check at width 3 (the block itself) and at width 4 (one zero unit more)
    cert3 = _cert(_spec(U, b, W, M, kind="degenerate"))
    assert cert3.holds and cert3.exact and cert3.data["verdict"] == "not absorbable (C)"
    assert cert3.data["part_c_recomputed"] == "none" and cert3.data["search_status"] == "none"
    assert rb.recheck(json.loads(json.dumps(cert3.as_dict())))
    cert4 = _cert(_spec(U + [[0]], b + [0], [W[0] + [0]], M, kind="degenerate"))
    assert cert4.holds and cert4.exact and cert4.data["verdict"] == "absorbable (C)"
    assert cert4.data["construction_width"] == 4 and cert4.data["values_equal"]
    # absorb check: not absorbable at width 3, absorbable at width 4, both exact and rechecked
    blk3 = Block("relu2", W_up=np.array([[1.0], [1.0], [1.0]]), b_up=np.array([0.0, 0.0, 1.0]),
                 W_down=np.array([[1.0, -1.0, 0.0]]))
    # the only bias sits on a unit with a zero output column, which the default 'auto' does not
    # read (docs/check.md): the question here is replacing blocks with biases, asked explicitly
    v3 = decide(blk3, replacing_biases="allowed")
    assert (v3.verdict, v3.claim, v3.exact) == ("not_absorbable", "relu2-biased", True)
    assert recheck_certificate(blk3, json.loads(json.dumps(v3.certificate, default=str)))
    blk4 = Block("relu2", W_up=np.array([[1.0], [1.0], [1.0], [0.0]]), b_up=np.array([0.0, 0.0, 1.0, 0.0]),
                 W_down=np.array([[1.0, -1.0, 0.0, 0.0]]))
    v4 = decide(blk4, replacing_biases="allowed")
    assert (v4.verdict, v4.claim, v4.exact) == ("absorbable", "relu2-biased", True)
    assert recheck_certificate(blk4, json.loads(json.dumps(v4.certificate, default=str)))
    # the command line: `absorb check` on both files, JSON verdicts, and the emitted width-4 block
    from oracle.cli import main
    from oracle.core import io as bio
    for blk, want in ((blk3, "not_absorbable"), (blk4, "absorbable")):
        src = tmp_path / f"w{blk.W_up.shape[0]}.npz"
        bio.write_block(blk, src)
        out = tmp_path / f"plain{blk.W_up.shape[0]}.npz"
        args = ["check", str(src), "--json", "--replacing-biases", "allowed"] + (
            ["--emit", str(out)] if want == "absorbable" else [])
        code = main(args)
        doc = json.loads(capsys.readouterr().out)
        assert (doc["verdict"], doc["claim"]) == (want, "relu2-biased"), doc
        assert doc.get("exact") is True, doc
        if want == "absorbable":
            assert code == 0 and bio.read_block(out).W_up.shape == (4, 1)
    # the emitted plain block (no skip) has width 4 and computes x, exactly (floats read as rationals)
    p4 = v4.plain
    assert p4.W_up.shape == (4, 1)
    qU = [[Q(float(v)) for v in row] for row in p4.W_up]
    qW = [[Q(float(v)) for v in row] for row in p4.W_down]
    qb = [Q(float(v)) for v in p4.b_up] if p4.b_up is not None else None
    qbd = [Q(float(v)) for v in p4.b_down] if p4.b_down is not None else None
    for t in (Q(-3), Q(-1), Q(-1, 2), Q(0), Q(2, 3), Q(5)):
        assert rb.eval_plain_q("relu2", qU, qW, [t], b_up=qb, b_down=qbd) == [t]


def test_part_b_flip_is_up_to_reordering_and_rescaling():
    """Issue 29: (B) says B' is a flip of B only up to reordering and rescaling the units. Here B has
    units (u, b, w) = (1, 1/4, -1), (1, -1/4, 1), M = 1 and the flip set S = {0, 1} (c_S = 0). B' lists
    the flipped units in the other order and rescales one by t = 2 ((t u, t b, w / t^2)): it equals
    x + B(x) exactly (both sides are quadratic on each piece of the kinks -1/4, 1/4 and agree at three
    points of each), yet it is literally B_S for no S; sorted and rescaled back it is B_S for S = {0, 1}."""
    from itertools import combinations
    units = [(Q(1), Q(1, 4), Q(-1)), (Q(1), Q(-1, 4), Q(1))]
    M = [[Q(1)]]
    cert = _cert(_spec([[u] for u, _, _ in units], [b for _, b, _ in units], [[w for _, _, w in units]], M))
    assert cert.data["S"] == [0, 1] and cert.data["c_S"] == ["0"]
    t = Q(2)
    Bp = [(-t * units[1][0], -t * units[1][1], -units[1][2] / t ** 2), (-units[0][0], -units[0][1], -units[0][2])]
    pts = [Q(v) for v in (-3, -2, -1)] + [Q(-1, 8), Q(0), Q(1, 8)] + [Q(v) for v in (1, 2, 3)]
    for x in pts:
        lhs = rb.eval_plain_q("relu2", [[u] for u, _, _ in units], [[w for _, _, w in units]], [x], M=M,
                              b_up=[b for _, b, _ in units])
        rhs = rb.eval_plain_q("relu2", [[u] for u, _, _ in Bp], [[w for _, _, w in Bp]], [x], b_up=[b for _, b, _ in Bp])
        assert lhs == rhs, x
    literal = [[(-u, -b, -w) if i in S else (u, b, w) for i, (u, b, w) in enumerate(units)]
               for k in range(3) for S in combinations(range(2), k)]
    assert Bp not in literal

    def normal(unit):  # undo the positive rescaling: |u| = 1
        u, b, w = unit
        s = abs(u)
        return (u / s, b / s, w * s * s)
    assert sorted(map(normal, Bp)) == sorted(literal[-1])


def test_title_counterexample_zero_row_absorbs_without_flip_set():
    """Referee (issue 29 follow-up): the title's 'absorbable at the same width iff a flip set exists'
    needs the necessity's hypotheses. d = 1, M = 2, units (u, b, w) = (1, 0, 1), (1, 1, 1), (0, 1, 1):
    2x + B(x) = 2 relu2(x + 1) + relu2(-x - 1) - relu2(-x), a relu2 block of the same width 3, yet no
    flip set exists; the zero row u_3 = 0 breaks distinct_kink_hyperplanes (nonzero units), and the
    oracle, which sees the degenerate block, finds the width-3 block by part (C)."""
    U, b, W, M = [[Q(1)], [Q(1)], [Q(0)]], [Q(0), Q(1), Q(1)], [[Q(1), Q(1), Q(1)]], [[Q(2)]]
    U2, b2, W2 = [[Q(1)], [Q(-1)], [Q(-1)]], [Q(1), Q(-1), Q(0)], [[Q(2), Q(1), Q(-1)]]
    # both sides are quadratic on each of (-oo, -1], [-1, 0], [0, oo): three points per piece decide
    pts = [Q(-4), Q(-3), Q(-2), Q(-1), Q(-1, 2), Q(-1, 3), Q(0), Q(1), Q(5, 2)]
    for t in pts:
        lhs = rb.eval_plain_q("relu2", U, W, [t], M=M, b_up=b)
        assert lhs == rb.eval_plain_q("relu2", U2, W2, [t], b_up=b2)
        assert lhs == [2 * t + max(t, 0) ** 2 + max(t + 1, 0) ** 2 + 1]
    assert bd._flip_sets("relu2", U, W, M, b) == []
    assert not rb.indep_nondegenerate(U, b, W)   # the zero row: the hypothesis of (B) fails
    cert = _cert(_spec(U, b, W, M))
    assert cert.holds and cert.data["verdict"] == "absorbable (C)", cert.data.get("verdict")
    assert cert.data["construction_width"] == 3
    assert rb.recheck(json.loads(json.dumps(cert.as_dict())))
