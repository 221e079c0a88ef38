"""depth-d1: d = 1 stacks are decided exactly by the width pattern and the sign of F(1) F(-1)."""

import json
import subprocess
import sys
from fractions import Fraction as Q

import numpy as np
import pytest

from oracle.claims import depth_d1 as d1
from oracle.algebra.stacks import d1 as sd1
from oracle.claims.base import run_check
from oracle.core import stackfiles
from oracle.core.blocks import Block, Stack
from oracle.decide import stacks


def _layers(spec):
    return [([[Q(v)] for v in U], [[Q(w) for w in W]]) for U, W in spec]


def test_classes_and_membership():
    assert sd1.d1_class([1]) == "axes" and sd1.d1_class([1, 3, 2]) == "axes"
    assert sd1.d1_class([2, 1]) == "closed_quadrants" and sd1.d1_class([3, 2, 1, 4]) == "closed_quadrants"
    assert sd1.d1_class([2]) == "all" and sd1.d1_class([2, 2, 5]) == "all"
    assert sd1.in_class("axes", Q(0), Q(-3)) and not sd1.in_class("axes", Q(1), Q(-3))
    assert sd1.in_class("closed_quadrants", Q(-1), Q(-2)) and not sd1.in_class("closed_quadrants", Q(1), Q(-2))
    assert sd1.in_class("all", Q(1), Q(-2))
    with pytest.raises(ValueError):
        sd1.d1_class([2, 0])


@pytest.mark.parametrize("widths", [(1,), (2,), (1, 1), (1, 2), (2, 1), (3,)])
def test_brute_force_agrees_with_the_class(widths):
    rep = d1.brute_force_report(widths)
    assert rep["ok"] and rep["outside_class"] == []
    assert rep["sign_classes"] == rep["expected_sign_classes"]
    # (2, 1) misses exactly the two open quadrants with F(1) F(-1) < 0
    if widths == (2, 1):
        assert [1, -1] not in rep["sign_classes"] and [-1, 1] not in rep["sign_classes"]
        assert [1, 1] in rep["sign_classes"] and [-1, -1] in rep["sign_classes"]


@pytest.mark.parametrize("widths", [(1,), (2, 1), (2, 2), (1, 3), (3, 1, 2), (2, 2, 1)])
@pytest.mark.parametrize("a,b", [(4, 4), (-3, -1), (2, -5), (0, 7), (-2, 0), (0, 0), (Q(1, 2), Q(3, 8))])
def test_construction_has_the_pair(widths, a, b):
    a, b = Q(a), Q(b)
    plain = sd1.d1_plain_stack(widths, a, b)
    if not sd1.in_class(sd1.d1_class(widths), a, b):
        assert plain is None
        return
    assert [len(U) for U, _ in plain] == list(widths)
    assert sd1.d1_pair(plain, None) == (a, b)
    # checked again without the homogeneity lemma: exact 1-D piecewise-linear maps
    P = sd1.pl_stack(sd1.layers_as_pl_blocks(plain, None), residual=False)
    assert P(Q(5)) == 5 * a and P(Q(-7)) == 7 * b


def test_referee_example_is_absorbable():
    res = _layers([([1, -1], [1, 3]), ([1], [1])])
    dec = sd1.decide_d1(res, [Q(1), Q(1)])
    assert dec["pair"] == ["4", "4"] and dec["class"] == "closed_quadrants" and dec["absorbable"]
    assert dec["plain"] == [{"W_up": [["1"], ["-1"]], "W_down": [["4", "4"]]},
                            {"W_up": [["1"]], "W_down": [["1"]]}]


def test_pl_toolkit_matches_direct_evaluation():
    blocks = [{"v": [Q(2), Q(-1)], "w": [Q(1), Q(-3, 2)], "b_up": [Q(-1), Q(1, 3)], "b_down": Q(1, 5), "M": Q(-1)},
              {"v": [Q(1, 2)], "w": [Q(3)], "b_up": [Q(2)], "M": Q(1)}]
    f = sd1.pl_stack(blocks, residual=True)
    for x in [Q(n, 3) for n in range(-20, 21)]:
        y = x
        for b in blocks:
            bu = b.get("b_up", [0] * len(b["v"]))
            y = b.get("M", 1) * y + sum(w * max(v * y + c, 0) for v, w, c in zip(b["v"], b["w"], bu)) + b.get("b_down", 0)
        assert f(x) == y
    g = sd1.pl_stack(blocks[:1], residual=True)
    assert not sd1.pl_equal(f, g) and sd1.pl_equal(f, f.on([Q(100)]))


def test_biased_boundary_instance():
    cert = d1.d1_biased()
    assert cert.holds and cert.exact and cert.data["pair"] == ["1", "-1"]
    assert d1.recheck_d1_counterexample(json.loads(json.dumps(cert.as_dict())))
    bad = json.loads(json.dumps(cert.as_dict()))
    bad["data"]["plain"][1]["b_down"] = "-2"
    assert not d1.recheck_d1_counterexample(bad)


def test_oracle_check_passes_and_recheck_catches_tampering():
    res = run_check(d1.check_d1, 25)
    assert res.passed, res.failure
    assert res.instances == 25 and res.exact_instances == 25
    cert = d1.d1_certificate(d1.D1Instance(_layers([([1, -1], [Q(1, 2), Q(1, 2)]), ([1], [Q(1, 4)])]),
                                           [Q(1), Q(1)], [2, 1]))
    # F(1) = 15/8, F(-1) = -1/2: of opposite signs, so no plain (2, 1) stack
    assert cert.holds and cert.data["decision"]["pair"] == ["15/8", "-1/2"]
    assert not cert.data["decision"]["absorbable"] and cert.data["brute_force_hits_pair"] is False
    good = json.loads(json.dumps(cert.as_dict()))
    assert d1.recheck_d1(good)
    bad = json.loads(json.dumps(good))
    bad["data"]["decision"]["absorbable"] = True
    assert not d1.recheck_d1(bad)
    bad = json.loads(json.dumps(good))
    bad["data"]["skips"][1] = "3"
    assert not d1.recheck_d1(bad)


def _stack(spec, skips=None):
    blocks = []
    for l, (U, W) in enumerate(spec):
        kw = {} if skips is None else {"M": np.array([[float(skips[l])]])}
        blocks.append(Block("relu", W_up=np.array([[float(v)] for v in U]), W_down=np.array([[float(w) for w in W]]), **kw))
    return Stack(blocks)


def test_decide_stack_referee_example_and_emit(tmp_path):
    st = _stack([([1, -1], [1, 3]), ([1], [1])])
    res = stacks.decide_stack(st)
    assert (res["verdict"], res["claim"], res["exact"]) == ("absorbable", "depth-d1", True)
    assert stacks.recheck_decision(json.loads(json.dumps(res)))
    p = tmp_path / "referee_d1.npz"
    stackfiles.write_stack(st, p)
    out = tmp_path / "plain.npz"
    r = subprocess.run([sys.executable, "-m", "oracle.cli", "check", str(p), "--json", "--emit", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    js = json.loads(r.stdout)
    assert js["verdict"] == "absorbable" and js["claim"] == "depth-d1" and js["exact"] is True
    back = stackfiles.read_stack(out)
    assert stackfiles.stack_kind(back) == "plain_stack" and [b.m for b in back.blocks] == [2, 1]
    for x in (-2.5, -1.0, 0.0, 0.75, 3.0):   # the emitted plain stack is 4|x|
        y = np.array([x])
        for b in back.blocks:
            y = b.W_down @ np.maximum(b.W_up @ y, 0)
        assert y[0] == 4 * abs(x)
    r = subprocess.run([sys.executable, "-m", "oracle.cli", "check", str(p)], capture_output=True, text=True)
    assert "verdict: absorbable (depth-d1, exact)" in r.stdout and "F(1) = 4, F(-1) = 4" in r.stdout


def test_decide_stack_not_absorbable_and_skips():
    st = _stack([([1, -1], [0.5, 0.5]), ([1], [0.25])])
    res = stacks.decide_stack(st)
    assert (res["verdict"], res["claim"], res["exact"]) == ("not_absorbable", "depth-d1", True)
    assert "plain_stack" not in res and stacks.recheck_decision(json.loads(json.dumps(res)))
    bad = json.loads(json.dumps(res))
    bad["verdict"] = "absorbable"
    assert not stacks.recheck_decision(bad)
    # a skip M = -1 on the second block: G(1) = 3/2, G(-1) = -1/2, F = -G + relu(G)/4 at +-1
    st2 = _stack([([1, -1], [0.5, 0.5]), ([1], [0.25])], skips=[1, -1])
    res2 = stacks.decide_stack(st2)
    assert res2["certificate"]["d1"]["pair"] == ["-9/8", "1/2"] and res2["verdict"] == "not_absorbable"
    # widths (2, 2): always a plain stack
    st3 = _stack([([1, -1], [0.5, 0.5]), ([1, 2], [0.25, -1])])
    res3 = stacks.decide_stack(st3)
    assert res3["verdict"] == "absorbable" and res3["claim"] == "depth-d1"
    assert stacks.recheck_decision(json.loads(json.dumps(res3)))


def test_referee_absorption_width_block(tmp_path):
    """d = m = 1, u = w = 1, M = -1: -x + relu(x) = -relu(-x) is a width-1 block (relu-complete)."""
    p = tmp_path / "block.npz"
    np.savez(p, W_up=np.array([[1.0]]), W_down=np.array([[1.0]]), M=np.array([[-1.0]]),
             kind=np.array("residual"), activation=np.array("relu"))
    out = tmp_path / "plain_block.npz"
    r = subprocess.run([sys.executable, "-m", "oracle.cli", "check", str(p), "--json", "--emit", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    js = json.loads(r.stdout)
    assert js["verdict"] == "absorbable" and js["exact"] is True and js["claim"] == "relu-complete"
    with np.load(out) as z:
        U, W = z["W_up"], z["W_down"]
    assert U.shape == (1, 1)
    for x in (-2.0, -0.5, 0.0, 1.5):
        assert (W @ np.maximum(U @ np.array([x]), 0))[0] == -x + max(x, 0.0)


def _biased(spec):
    return Stack([Block("relu", W_up=np.array([[float(v)] for v in U]), W_down=np.array([[float(w) for w in W]]),
                        b_up=np.array([float(c) for c in bu]), b_down=np.array([float(bd)])) for U, W, bu, bd in spec])


def test_biased_d1_necessary_conditions():
    # first width 1: a plain stack would be constant on a half-line; F has slopes 1 and 2 at the ends
    st = _biased([([1], [1], [-1], 0), ([1, -1], [0.5, 0.25], [0, 1], 0.5)])
    res = stacks.decide_stack(st)
    assert (res["verdict"], res["claim"], res["exact"]) == ("not_absorbable", "depth-d1-biased", True)
    assert "constant on a half-line" in res["reason"]
    js = json.loads(json.dumps(res))
    assert stacks.recheck_decision(js)
    js["certificate"]["pl_blocks"][0]["b_up"] = ["5"]
    assert not stacks.recheck_decision(js)
    # widths (2, 1): a width-1 layer makes every plain stack non-injective; F is strictly increasing
    st2 = _biased([([1, -1], [0.5, 0.25], [-1, 0], 0), ([1], [0.25], [0.5], -1)])
    res2 = stacks.decide_stack(st2)
    assert res2["verdict"] == "not_absorbable" and "strictly monotone" in res2["reason"]
    assert res2["certificate"]["d1_biased"]["slopes"][0] == "3/4"
    assert stacks.recheck_decision(json.loads(json.dumps(res2)))
    # widths (2, 2) with biases: neither condition applies, so no exact verdict
    st3 = _biased([([1, -1], [0.5, 0.25], [-1, 0], 0), ([1, 2], [0.25, 1], [0.5, 0], -1)])
    assert stacks.decide_stack(st3)["verdict"] == "undecided"


def test_pl_monotone_and_half_line():
    f = sd1.pl_stack([{"v": [Q(1)], "w": [Q(-1)], "b_up": [Q(0)], "M": Q(1)}], residual=True)   # x - relu(x)
    assert sd1.pl_slopes(f) == [1, 0] and sd1.pl_constant_on_a_half_line(f) and not sd1.pl_injective(f)
    g = sd1.pl_stack([{"v": [Q(1)], "w": [Q(1)], "b_up": [Q(-2)], "M": Q(1)}], residual=True)     # x + relu(x - 2)
    assert sd1.pl_injective(g) and not sd1.pl_constant_on_a_half_line(g)


# ---------------------------------------------------------------- the Coq proof (proofs/coq/DepthD1.v)

def _d1_claim():
    from oracle.formal import consistency as C
    return next(c for c in C.load_registry() if c["id"] == "depth-d1")


def _d1_pins():
    from oracle.formal import consistency as C
    from oracle.formal import pinned
    return pinned.load(C.ROOT / pinned.COQ_FILE)


def test_d1_coq_registration_is_full_with_its_parts():
    from oracle.formal import consistency as C
    c = _d1_claim()
    names = C.registry_names(c["coq"])
    assert names[0] == "SkipAbsorption.DepthD1.depth_d1" and "coq_absent" not in c
    for part in ("depth_d1_homogeneous", "plain_stack_is_res_stack", "d1_construction_correct",
                 "d1_biased_plain_stacks", "d1_open_set"):
        assert f"SkipAbsorption.DepthD1.{part}" in names, part
    assert C.scope_label(c, "coq") == "full"
    assert C.formal_tags(c, "coq") == ["d_eq_1"]
    assert set(c["coq_extra_hypotheses"]) == {"widths_positive"}
    assert c["coq_counterexamples"] == {"bias_free": "SkipAbsorption.Counterexamples.depth_d1_needs_bias_free"}


def test_d1_pinned_main_statement_binds_d_eq_1_and_states_both_iffs():
    from oracle.formal import pinned
    pins = _d1_pins()
    main = pins["SkipAbsorption.DepthD1.depth_d1"]
    assert pinned.binder_names(main.statement) == ["d", "d_eq_1", "res", "ws", "widths_positive"]
    concl = pinned.conclusion(main.statement)
    # homogeneity, then the iff for bias-free and for biased plain stacks, against the same condition
    assert "RealActivations.relu (x 0%nat)" in concl and "RealActivations.relu (- x 0%nat)" in concl
    assert concl.count("<->") == 2 and concl.count("DepthD1.d1_condition ws") == 2
    assert "DepthD1.plain_stack d Ps x i" in concl and "DepthD1.bplain_stack d Bs x i" in concl
    # the width condition is pinned with its body: the three cases of the statement
    cond = main.uses["SkipAbsorption.DepthD1.d1_condition"]
    assert "m1 = 1%nat /\\ a * b = 0" in cond
    assert "(2 <= m1)%nat /\\ @List.In nat 1%nat rest /\\ 0 <= a * b" in cond
    assert "@List.Forall nat (fun m : nat => (2 <= m)%nat) ws" in cond
    # the instance is stated with the standard library only
    assert pins["SkipAbsorption.Instances.depth_d1_instance"].uses == {}


def test_d1_pinned_open_set_is_about_every_nearby_residual_stack():
    from oracle.formal import pinned
    st = _d1_pins()["SkipAbsorption.DepthD1.d1_open_set"].statement
    assert pinned.binder_names(st)[:2] == ["d", "d_eq_1"] and "first_width_ge_2" in pinned.binder_names(st)
    concl = pinned.conclusion(st)
    assert concl.startswith("exists (res0 : list (Linalg.mat * DepthStack.layer)) (delta : R), 0 < delta /\\")
    assert "forall res : list (Linalg.mat * DepthStack.layer), DepthD1.near delta res res0 ->" in concl
    assert "0 < DepthD1.res_stack d res (Linalg.v1 1) 0%nat" in concl


def test_d1_lean_mirror_is_registered_as_parts_a_and_b():
    from oracle.formal import consistency as C
    from oracle.formal import pinned
    c = _d1_claim()
    assert C.registry_names(c["lean"])[0] == "SkipAbsorption.depth_d1_homogeneous"
    assert "SkipAbsorption.d1_construction_correct" in C.registry_names(c["lean"])
    assert C.scope_label(c, "lean") == "parts (a) and (b)" and C.scope_note(c, "lean")
    # d = 1 is in the Lean types, with the registry's reason; no binder is then required
    assert c["lean_hypotheses"] == [] and c["lean_hypotheses_reason"]
    assert C.formal_tags(c, "lean") == []
    lean = pinned.load(C.ROOT / pinned.LEAN_FILE)
    assert "rstack1 res x = rstack1 res 1 * relu x + rstack1 res (-1) * relu (-x)" in \
        lean["SkipAbsorption.depth_d1_homogeneous"].statement
