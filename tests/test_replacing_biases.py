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
    """M = 0: B itself replaces the block, but B carries a bias, so it answers 'allowed' only."""
    b = Block("relu", W_up=np.array([[1.0]]), W_down=np.array([[1.0]]), b_up=np.array([1.0]), M=np.zeros((1, 1)))
    assert decide(b, replacing_biases="allowed").verdict == "absorbable"
    v = decide(b, replacing_biases="none")
    assert v.verdict == "undecided" and not v.exact and v.answers["none"] is None
    free = Block("relu", W_up=np.array([[1.0]]), W_down=np.array([[1.0]]), M=np.zeros((1, 1)))
    assert decide(free, replacing_biases="none").verdict == "absorbable"
