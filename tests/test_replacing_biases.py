"""The bias convention is explicit (issue 29): `absorb check --replacing-biases allowed|none|auto`.

The question "does x -> Mx + B(x) equal a residual-free block of the same family and width" has two
readings: the replacing block may carry biases (allowed) or must be bias-free (none).  For relu2,
reglu and swiglu blocks the answers differ on degenerate blocks; the referee's case is a bias of
2^-1074 on a unit whose output column is zero, which used to turn `not_absorbable` into
`absorbable`.  Now each convention's verdict depends only on the function, and the document says
which convention it decides and reports the other one's answer where it differs.

Claims exercised: homogeneous-impossible, gated-impossible (bias-free replacing blocks),
relu2-biased, gated-biased (replacing blocks with biases).
"""

from __future__ import annotations

import json
from fractions import Fraction
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from oracle.core import io as bio
from oracle.core.blocks import Block
from oracle.core.errors import InputError
from oracle.decide.block import decide, recheck_certificate

ROOT = Path(__file__).resolve().parents[1]
TINY = 2.0 ** -1074  # the least positive double

# (activation, claim deciding 'allowed', claim deciding 'none')
FAMILIES = [("relu2", "relu2-biased", "homogeneous-impossible"),
            ("reglu", "gated-biased", "homogeneous-impossible"),
            ("swiglu", "gated-biased", "gated-impossible")]


def block(act: str, tiny: bool) -> Block:
    """W_down = 0, M = I (F(x) = x): a bias-free replacing block cannot be x (it is homogeneous of
    degree 2, or flat at 0), a biased one can (SPEC.md); ``tiny`` puts 2^-1074 into b_up of unit 0,
    whose output column is zero, so the function is the same."""
    b_up = np.zeros(4 if act == "relu2" else 2)
    b_up[0] = TINY if tiny else 0.0
    if act == "relu2":
        return Block("relu2", W_up=np.array([[1.0], [1.0], [-1.0], [-1.0]]), W_down=np.zeros((1, 4)), b_up=b_up)
    return Block(act, W_up=np.array([[1.0], [0.5]]), W_gate=np.array([[1.0], [-1.0]]), W_down=np.zeros((1, 2)),
                 b_up=b_up)


def roundtrip(v) -> dict:
    return json.loads(json.dumps(v.certificate, default=str))


@pytest.mark.parametrize("act,claim_allowed,claim_none", FAMILIES)
def test_each_convention_has_one_answer_whatever_the_dead_bias(act, claim_allowed, claim_none):
    for tiny in (False, True):
        b = block(act, tiny)
        allowed = decide(b, replacing_biases="allowed")
        none = decide(b, replacing_biases="none")
        assert (allowed.verdict, allowed.claim, allowed.exact) == ("absorbable", claim_allowed, True)
        assert (none.verdict, none.claim, none.exact) == ("not_absorbable", claim_none, True)
        for v, conv, other in ((allowed, "allowed", "none"), (none, "none", "allowed")):
            c = roundtrip(v)
            assert c["replacing_biases"] == conv
            assert c["other_convention"]["replacing_biases"] == other
            assert c["other_convention"]["verdict"] == (none if conv == "allowed" else allowed).verdict
            assert recheck_certificate(b, c)
            doc = v.as_dict()
            assert doc["replacing_biases"] == conv
            assert doc["biases_allowed"]["verdict"] == "absorbable"
            assert doc["biases_none"]["verdict"] == "not_absorbable"
        if tiny:  # the bias-free question rests on the same block with the dead unit's bias set to 0
            assert roundtrip(none)["dead_unit_biases_zeroed"] == [0]
        assert none.plain is None and allowed.plain is not None


@pytest.mark.parametrize("act,claim_allowed,claim_none", FAMILIES)
def test_auto_follows_the_block_and_reports_the_other_answer(act, claim_allowed, claim_none):
    free, tiny = decide(block(act, False)), decide(block(act, True))
    assert (free.verdict, free.certificate["replacing_biases"]) == ("not_absorbable", "none")
    # the 2^-1074 sits on a unit whose output column is zero: auto does not read it (referee F6)
    assert (tiny.verdict, tiny.certificate["replacing_biases"]) == ("not_absorbable", "none")
    assert free.certificate["other_convention"]["verdict"] == "absorbable"
    assert tiny.certificate["other_convention"]["verdict"] == "absorbable"
    assert "auto_convention" not in free.certificate
    assert tiny.certificate["auto_convention"]["dead_units_with_biases_ignored"] == [0]
    # a bias on a live unit (output column not zero) is the block's own convention: allowed
    b = block(act, True)
    live = Block(act, W_up=b.W_up, W_gate=b.W_gate, W_down=np.eye(1, b.m), b_up=b.b_up)
    assert decide(live).certificate["replacing_biases"] == "allowed"


def test_dead_unit_certificate_refused_when_the_unit_is_live():
    b = block("relu2", True)
    c = roundtrip(decide(b, replacing_biases="none"))
    live = Block("relu2", W_up=b.W_up, W_down=np.array([[1.0, 0.0, 0.0, 0.0]]), b_up=b.b_up)
    assert not recheck_certificate(live, c)
    bad = json.loads(json.dumps(c))
    bad["dead_unit_biases_zeroed"] = [7]
    assert not recheck_certificate(b, bad)
    bad["dead_unit_biases_zeroed"] = []
    assert not recheck_certificate(b, bad)


def test_a_live_bias_leaves_the_bias_free_question_open_or_decided_honestly():
    """A nonzero bias on a unit with a nonzero output column: no bias-free twin; the bias-free answer
    is established only a fortiori (not absorbable with biases) or by a bias-free emitted block."""
    b = Block("relu2", W_up=np.array([[1.0], [1.0], [-1.0], [-1.0]]), W_down=np.array([[0.5, 0.0, 0.0, 0.0]]),
              b_up=np.array([1.0, 0.0, 0.0, 0.0]))
    v = decide(b, replacing_biases="none")
    assert v.certificate["replacing_biases"] == "none"
    if v.verdict == "undecided":
        assert not v.exact and v.certificate["kind"] == "convention_not_decided"
    else:
        assert v.exact and recheck_certificate(b, roundtrip(v))
    with pytest.raises(InputError):
        decide(b, replacing_biases="sometimes")


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "oracle.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


@pytest.mark.parametrize("act", ["relu2", "reglu", "swiglu"])
def test_through_the_cli(tmp_path, act):
    """`absorb check --replacing-biases none --json` then `absorb recheck`, for the bias-free block and
    its 2^-1074 twin; the text output names the convention and the other answer."""
    verdicts = []
    for tiny in (False, True):
        f = tmp_path / f"{act}{int(tiny)}.npz"
        bio.write_block(block(act, tiny), f)
        r = _cli("check", str(f), "--json", "--replacing-biases", "none")
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        verdicts.append((doc["verdict"], doc["replacing_biases"], doc["biases_allowed"]["verdict"]))
        c = tmp_path / f"{act}{int(tiny)}.json"
        c.write_text(r.stdout)
        rr = _cli("recheck", str(c), str(f))
        assert rr.returncode == 0, rr.stdout + rr.stderr
        t = _cli("check", str(f), "--replacing-biases", "allowed")
        assert t.returncode == 0, t.stderr
        assert "biases:  the question decided: a replacing block WITH biases allowed" in t.stdout
        assert "without biases the answer differs: not_absorbable" in t.stdout
    assert verdicts == [("not_absorbable", "none", "absorbable")] * 2
    bad = _cli("check", str(tmp_path / f"{act}0.npz"), "--replacing-biases", "maybe")
    assert bad.returncode != 0


@pytest.mark.parametrize("name,conv", [("relu_stack_d1_referee", "both"), ("relu_stack_absorbable", "both"),
                                       ("relu_stack_narrow", "unstated")])
def test_stack_verdicts_say_which_plain_stacks_they_are_about(name, conv):
    """Stack verdicts name the convention: depth-d1 covers plain stacks with or without biases, the
    sign flips of a bias-free stack give a bias-free plain stack, depth-narrow's statement does not
    say (reported as such, not guessed)."""
    from oracle.core import stackfiles
    from oracle.decide import stacks

    res = stacks.decide_stack(stackfiles.read_stack(ROOT / "examples" / f"{name}.npz"))
    assert res["verdict"] != "undecided"
    assert res["replacing_biases"] == conv
    r = _cli("check", str(ROOT / "examples" / f"{name}.npz"))
    assert r.returncode == 0 and "biases:  the plain stacks this verdict is about" in r.stdout


def test_flat_stack_verdict_is_about_bias_free_plain_stacks():
    from oracle.core.blocks import Stack
    from oracle.decide import stacks

    b = Block("relu2", W_up=np.array([[1.0, 0.5], [0.0, 1.0]]), W_down=np.array([[1.0, 0.0], [0.5, 1.0]]))
    res = stacks.decide_stack(Stack([b, b]))
    assert (res["verdict"], res["claim"], res["replacing_biases"]) == ("not_absorbable", "depth-impossible", "none")


def test_zero_skip_with_biases_answers_only_the_biased_question():
    """M = 0: B itself replaces the block, but B carries a bias, so it answers 'allowed' only; the
    bias-free question is answered by F(0) = relu(1) = 1 != 0 (relu-complete: a bias-free relu block
    vanishes at 0), exactly, with a value_at_zero certificate that re-checks."""
    b = Block("relu", W_up=np.array([[1.0]]), W_down=np.array([[1.0]]), b_up=np.array([1.0]), M=np.zeros((1, 1)))
    assert decide(b, replacing_biases="allowed").verdict == "absorbable"
    v = decide(b, replacing_biases="none")
    assert v.verdict == "not_absorbable" and v.exact and v.claim == "relu-complete"
    assert v.certificate["kind"] == "value_at_zero" and v.answers["none"]["verdict"] == "not_absorbable"
    assert recheck_certificate(b, v.certificate)
    free = Block("relu", W_up=np.array([[1.0]]), W_down=np.array([[1.0]]), M=np.zeros((1, 1)))
    assert decide(free, replacing_biases="none").verdict == "absorbable"


# ---------------------------------------------------------------- stacks (issue 29, referee F1 and F5)
# The referee's cases (tests/data/referee29, written by the referee's make_cases.py): S2 is
# x + relu(-x - 1) then y + 0 relu(y); D4 folds by -relu(-x) and then has a dead width-3 block with
# b_down = (1, 1); S4 is x + relu(x + 1) then y + 0 relu(y); S5 has coinciding kinks, then width 1.

REF29 = ROOT / "tests" / "data" / "referee29"


def _stack_json(name, conv):
    r = _cli("check", str(REF29 / f"{name}.npz"), "--json", "--replacing-biases", conv)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _stack_recheck(doc, tmp_path):
    p = tmp_path / "doc.json"
    p.write_text(json.dumps(doc))
    return _cli("recheck", str(p))


def test_stack_none_is_the_bias_free_question_d1(tmp_path):
    """S2 under `none`: F = relu(x + 1) - 1 has a kink at -1, and a bias-free plain relu stack on the
    line is P(1) relu(x) + P(-1) relu(-x) (depth-d1-biased (B0)): not_absorbable; under `auto` the
    biased answer is absorbable and the bias-free one is reported beside it; both re-check."""
    none = _stack_json("s2_d1_biased_example", "none")
    assert (none["verdict"], none["claim"], none["replacing_biases"]) == ("not_absorbable", "depth-d1-biased", "none")
    assert none["certificate"]["d1_biased"]["kinks_away_from_0"] == ["-1"] and "plain_stack" not in none
    r = _stack_recheck(none, tmp_path)
    assert r.returncode == 0 and "holds" in r.stdout, r.stdout + r.stderr
    auto = _stack_json("s2_d1_biased_example", "auto")
    assert (auto["verdict"], auto["replacing_biases"]) == ("absorbable", "allowed")
    assert auto["biases_none"]["verdict"] == "not_absorbable"
    assert _stack_recheck(auto, tmp_path).returncode == 0
    forged = json.loads(json.dumps(auto))
    forged["biases_none"]["verdict"] = "absorbable"
    assert _stack_recheck(forged, tmp_path).returncode != 0
    allowed = _stack_json("s2_d1_biased_example", "allowed")
    assert (allowed["verdict"], allowed["replacing_biases"]) == ("absorbable", "allowed")


def test_stack_none_without_a_claim_is_undecided_d2():
    """D4 under `none`: the plain stack found carries biases and no registered stack claim decides the
    bias-free question for d >= 2, so the answer is undecided (never the biased answer)."""
    none = _stack_json("d4_dead_biased", "none")
    assert none["verdict"] == "undecided" and none["replacing_biases"] is None and "plain_stack" not in none
    assert "no registered stack claim" in none["reason"]
    assert none["other_convention"]["verdict"] == "absorbable"
    r = _cli("check", str(REF29 / "d4_dead_biased.npz"), "--replacing-biases", "none")
    assert "verdict: undecided" in r.stdout


def test_bias_free_d1_homogeneous_f_is_decided_by_the_class():
    """(B0) when F is homogeneous although the stack has a bias (on a unit whose output weight is 0):
    F = x + relu(x), then depth-d1's class of (F(1), F(-1)) decides the bias-free question."""
    from oracle.core.blocks import Stack
    from oracle.decide import stacks

    b1 = Block("relu", W_up=np.array([[1.0], [1.0]]), W_down=np.array([[1.0, 0.0]]), b_up=np.array([0.0, 3.0]))
    b2 = Block("relu", W_up=np.array([[1.0]]), W_down=np.array([[0.0]]))
    st = Stack([b1, b2])
    res = stacks.decide_stack(st, replacing_biases="none")
    # F(x) = x + relu(x) then the identity, widths (2, 1): end slopes 1 and 2, so (B2) (ii') excludes
    # every plain stack, biased or not: that verdict answers both questions
    assert (res["verdict"], res["claim"], res["replacing_biases"]) == ("not_absorbable", "depth-d1-biased", "both")
    assert stacks.recheck_decision(json.loads(json.dumps(res)))
    b3 = Block("relu", W_up=np.array([[1.0], [-1.0]]), W_down=np.array([[0.0, 0.0]]))
    res2 = stacks.decide_stack(Stack([b1, b3]), replacing_biases="none")
    # widths (2, 2): the plain stack found has zero biases, so the verdict answers both questions
    assert (res2["verdict"], res2["replacing_biases"]) == ("absorbable", "both")
    assert all(Fraction(v) == 0 for rec in res2["plain_stack"] for k in ("b_up", "b_down") for v in rec.get(k, []))
    assert stacks.recheck_decision(json.loads(json.dumps(res2)))
    # (B0) itself on the same stack: homogeneous F, pair (2, -1) in the class 'all' of widths (2, 2)
    from oracle.algebra.stacks import d1 as sd1
    blocks = stacks._d1_pl_blocks(Stack([b1, b3]))
    dec = sd1.decide_d1_bias_free(blocks, [2, 2])
    assert (dec["verdict"], dec["pair"], dec["class"]) == ("absorbable", ["2", "-1"], "all")
    assert sd1.recheck_d1_bias_free(blocks, dec)
    bad = dict(dec, plain=sd1.layers_to_json([([[Fraction(1)], [Fraction(-1)]], [[Fraction(2), Fraction(2)]]),
                                              ([[Fraction(1)], [Fraction(-1)]], [[Fraction(1), Fraction(-1)]])]))
    assert not sd1.recheck_d1_bias_free(blocks, bad)
    no = sd1.decide_d1_bias_free(blocks, [1, 2])     # class 'axes': F(1) F(-1) = -2 != 0
    assert no["verdict"] == "not_absorbable" and sd1.recheck_d1_bias_free(blocks, no)
    with pytest.raises(InputError):
        stacks.decide_stack(st, replacing_biases="sometimes")


@pytest.mark.parametrize("name", ["s2_d1_biased_example", "d4_dead_biased", "s4_width1_monotone",
                                  "s5_cancel_kinks_w1"])
@pytest.mark.parametrize("conv", ["auto", "none"])
def test_stack_verdicts_cite_a_claim_whose_hypotheses_the_stack_meets(name, conv):
    """Referee F5: a decided stack verdict cites a claim whose bias_free tag (if any) the input meets;
    S4 and S5 carry biases, so they cite depth-d1-biased, not depth-d1."""
    from oracle.core import stackfiles
    from oracle.formal.consistency import load_registry

    tags = {c["id"]: set(c.get("hypotheses", [])) for c in load_registry()}
    st = stackfiles.read_stack(REF29 / f"{name}.npz")
    biased = any(b.has_bias for b in st.blocks)
    assert biased
    doc = _stack_json(name, conv)
    for res in [doc] + ([doc["biases_none"]] if "biases_none" in doc else []):
        if res["verdict"] != "undecided":
            assert res["claim"] in tags
            assert not (biased and "bias_free" in tags[res["claim"]]), (name, res["claim"])
            if res["claim"] in ("depth-d1", "depth-d1-biased"):
                assert "d_eq_1" in tags[res["claim"]] and st.blocks[0].d == 1
    if name in ("s4_width1_monotone", "s5_cancel_kinks_w1"):
        assert (doc["verdict"], doc["claim"]) == ("not_absorbable", "depth-d1-biased")
