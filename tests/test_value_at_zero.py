"""The bias-free question decided by F(0) != 0 (referee round 4, B3: a missed decision).

relu, d = m = 1, u = 1, b_up = 1/2, W_down = -1, b_down = 0, M = 1 under --replacing-biases none
was undecided, though F(0) = -1/2 != 0 and every bias-free relu block vanishes at 0.  relu-complete's
statement (proofs/claims.toml, proofs/informal/relu-complete.md) now says so, and check decides
the block not_absorbable, exact, with a certificate of kind value_at_zero (a coordinate of F(0) and
its exact value) that absorb recheck evaluates again from the block file.

Claims exercised: relu-complete (its bias-free sentence).
"""

from __future__ import annotations

import json
from fractions import Fraction
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from oracle.core.blocks import Block
from oracle.decide import decide
from oracle.decide.document import Refused, check_block_document
from forgery import put

ROOT = Path(__file__).resolve().parents[1]


def _cli(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "oracle.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


def test_the_referees_block_is_not_absorbable_without_biases(tmp_path):
    f = tmp_path / "r.npz"
    np.savez(f, W_up=np.array([[1.0]]), W_down=np.array([[-1.0]]), b_up=np.array([0.5]), M=np.array([[1.0]]),
             activation=np.array("relu"), kind=np.array("residual"))
    r = _cli("check", f, "--replacing-biases", "none", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["verdict"], doc["claim"], doc["exact"]) == ("not_absorbable", "relu-complete", True)
    c = doc["certificate"]
    assert c["kind"] == "value_at_zero" and c["coordinate"] == 0 and c["F_at_0"] == "-1/2"
    assert doc["biases_none"]["verdict"] == "not_absorbable"
    assert c["other_convention"]["verdict"] == "absorbable"  # with biases: relu-complete's construction
    p = tmp_path / "d.json"
    p.write_text(r.stdout)
    ok = _cli("recheck", p, f)
    assert ok.returncode == 0 and ok.stdout.startswith("holds: the 'value_at_zero' certificate"), ok.stdout
    for path, value, field in ((("certificate", "F_at_0"), "-1/4", "certificate"),
                               (("certificate", "coordinate"), 1, "certificate"),
                               (("verdict",), "absorbable", "verdict"),
                               (("claim",), "gelu-complete", "claim"),
                               (("certificate", "replacing_biases"), "allowed", "certificate")):
        p.write_text(json.dumps(put(doc, path, value)))
        bad = _cli("recheck", p, f)
        assert bad.returncode == 1 and bad.stdout.startswith(f"does not hold: {field}"), (path, bad.stdout)


@pytest.mark.parametrize("d,m,seed", [(1, 1, 0), (2, 3, 1), (3, 2, 2), (4, 5, 3)])
def test_any_relu_block_with_f0_nonzero(d, m, seed):
    """Any d, m: biases drawn so that F(0) != 0, decided under none; the certificate re-checks, and
    on the block with F(0) = 0 (b_down chosen to cancel) it is refused."""
    rng = np.random.default_rng(seed)
    # the first d units are an index set (W_S U_S = -I = -M): absorbable with biases (a sign flip
    # that moves the biases), so only the bias-free question is open without F(0)
    U = np.vstack([np.eye(d), rng.integers(-3, 4, (m, d)).astype(float)])
    W = np.hstack([-np.eye(d), rng.integers(-3, 4, (d, m)).astype(float)])
    c = np.abs(rng.integers(1, 4, m + d)).astype(float) / 2
    m = m + d
    b = Block("relu", W_up=U, W_down=W, b_up=c, M=np.eye(d))
    F0 = W @ np.maximum(c, 0)
    if not np.any(F0 != 0):
        b = Block("relu", W_up=U, W_down=W, b_up=c, b_down=np.ones(d), M=np.eye(d))
    v = decide(b, replacing_biases="none")
    assert v.verdict == "not_absorbable" and v.exact and v.certificate["kind"] == "value_at_zero", v.reason
    doc = json.loads(json.dumps(v.as_dict()))
    check_block_document(b, doc)
    a = v.certificate["coordinate"]
    bd = (b.b_down.copy() if b.b_down is not None else np.zeros(d))
    bd[:] -= (b.W_down @ np.maximum(c, 0) + bd)  # F(0) = 0 now (small integers and halves: exact)
    zero = Block("relu", W_up=U, W_down=W, b_up=c, b_down=bd, M=np.eye(d))
    assert not np.any(zero.W_down @ np.maximum(c, 0) + zero.b_down != 0), a
    with pytest.raises(Refused):
        check_block_document(zero, doc)
    assert decide(zero, replacing_biases="none").certificate["kind"] != "value_at_zero"



# relu2 and the gates (relu2-biased (E), gated-biased (E)): a bias-free relu2 block vanishes at 0
# (relu2(0) = 0), and so does a bias-free gated block whatever g(0) is (its value map W_up x is 0 at
# 0).  Each block is absorbable with biases by a flip of part (A) and is not affine, so only
# F(0) != 0 answers the bias-free question.  Odd-part gates (and relu2): units (x + 1)-gate times
# (x + 1)-value and x-gate times x-value with outputs 1, -1 remove (x + 1)^2 - x^2 = 2x + 1 when
# flipped, so M = -2; F(0) = g(1) (silu(1) = sigmoid(1), gelu(1) = Phi(1), gelu_tanh(1) are
# transcendental: an arb ball).  The sigmoid gate (glu) flips with W_S U_S = -M: M = -1 and gate
# rows 1 without gate bias; F(0) = sigmoid(0) * 1 = 1/2, or sigmoid(1/2) with gate bias 1/2.
_ODD = dict(W_gate=[[1.0], [1.0]], b_gate=[1.0, 0.0], W_up=[[1.0], [1.0]], b_up=[1.0, 0.0], W_down=[[1.0, -1.0]],
            M=[[-2.0]])
F0_BLOCKS = {
    "relu2": ("relu2", dict(W_up=[[1.0], [1.0]], b_up=[1.0, 0.0], W_down=[[1.0, -1.0]], M=[[-2.0]]), "1"),
    "reglu": ("reglu", _ODD, "1"),
    "swiglu": ("swiglu", _ODD, "[0.731058578630004879251159"),
    "geglu": ("geglu", _ODD, "[0.841344746068542948585232"),
    "geglu_tanh": ("geglu_tanh", _ODD, "[0.841191990608276704781995"),
    "glu": ("glu", dict(W_gate=[[1.0], [1.0]], W_up=[[1.0], [1.0]], b_up=[1.0, 0.0], W_down=[[1.0, -1.0]],
                        M=[[-1.0]]), "1/2"),
    "glu_gate_bias": ("glu", dict(W_gate=[[1.0], [2.0]], b_gate=[0.5, 0.0], W_up=[[1.0], [1.0]], b_up=[1.0, 0.0],
                                  W_down=[[1.0, -1.0]], M=[[-1.0]]), "[0.622459331201854564638900"),
}
F0_CLAIM = {"relu2": "relu2-biased"}


@pytest.mark.parametrize("name", sorted(F0_BLOCKS))
def test_relu2_and_gated_blocks_with_f0_nonzero(tmp_path, name):
    """check --replacing-biases none decides not_absorbable (exact) by value_at_zero, naming the
    claim of the activation; allowed stays absorbable; recheck (CLI) holds, and refuses a changed
    value, another claim, the certificate moved to the other question, and the block with b_down
    chosen so that F(0) = 0."""
    act, kw, F0 = F0_BLOCKS[name]
    claim = F0_CLAIM.get(act, "gated-biased")
    f = tmp_path / "b.npz"
    np.savez(f, activation=np.array(act), kind=np.array("residual"), **{k: np.array(v) for k, v in kw.items()})
    r = _cli("check", f, "--replacing-biases", "none", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    c = doc["certificate"]
    assert (doc["verdict"], doc["claim"], doc["exact"]) == ("not_absorbable", claim, True), doc["reason"]
    assert c["kind"] == "value_at_zero" and c["coordinate"] == 0, c
    assert c["F_at_0"] == F0 if not F0.startswith("[") else (c["F_at_0"].startswith(F0) and "+/-" in c["F_at_0"])
    assert c["other_convention"]["verdict"] == "absorbable" and c["other_convention"]["claim"] == claim
    allowed = json.loads(_cli("check", f, "--replacing-biases", "allowed", "--json").stdout)
    assert allowed["verdict"] == "absorbable" and allowed["biases_none"]["verdict"] == "not_absorbable"
    p = tmp_path / "d.json"
    p.write_text(r.stdout)
    ok = _cli("recheck", p, f)
    assert ok.returncode == 0 and ok.stdout.startswith("holds: the 'value_at_zero' certificate"), ok.stdout
    other_claim = "relu-complete" if act != "relu2" else "gated-biased"
    for path, value, field in ((("certificate", "F_at_0"), "-1/4", "certificate"),
                               (("certificate", "coordinate"), 1, "certificate"),
                               (("claim",), other_claim, "claim"),
                               (("certificate", "replacing_biases"), "allowed", "")):
        p.write_text(json.dumps(put(doc, path, value)))
        bad = _cli("recheck", p, f)
        assert bad.returncode == 1 and bad.stdout.startswith(f"does not hold: {field}"), (path, bad.stdout)
        assert path[-1] in bad.stdout.splitlines()[0] or field, (path, bad.stdout)
    # b_down = -F(0) (exact for the rational cases): then F(0) = 0 and the certificate is refused
    if not F0.startswith("["):
        g = tmp_path / "z.npz"
        np.savez(g, activation=np.array(act), kind=np.array("residual"), b_down=np.array([-float(Fraction(F0))]),
                 **{k: np.array(v) for k, v in kw.items()})
        p.write_text(r.stdout)
        bad = _cli("recheck", p, g)
        assert bad.returncode == 1 and bad.stdout.startswith("does not hold:"), bad.stdout
        z = json.loads(_cli("check", g, "--replacing-biases", "none", "--json").stdout)
        assert z["certificate"]["kind"] != "value_at_zero", z


def test_a_bias_free_gated_block_vanishes_at_zero_whatever_the_gate():
    """The sentence's reason, in exact rationals and arb balls: every catalog gate, random bias-free
    weights, F(0) = 0 exactly (the glu gate has g(0) = 1/2); and with a value bias the same weights
    give F(0) != 0, found by value_at_zero."""
    from oracle.core import activations
    from oracle.algebra.exact import eval_ball
    from oracle.decide.block import value_at_zero
    rng = np.random.default_rng(4)
    gates = [a for a in activations.BIASED_FLIP if activations.get(a).gated]
    assert set(gates) == {"reglu", "swiglu", "geglu", "geglu_tanh", "glu"}
    for a in gates:
        G, U, W = (rng.integers(-3, 4, s).astype(float) for s in ((3, 2), (3, 2), (2, 3)))
        vals = eval_ball(a, U, W, [0.0, 0.0], W_gate=G)
        assert all(v.is_zero() for v in vals), (a, vals)
        b = Block(a, W_gate=G, W_up=U, W_down=W)
        assert value_at_zero(b) is None
        W[:, 0] = [1.0, 0.0]
        b = Block(a, W_gate=G, W_up=U, W_down=W, b_up=np.array([1.0, 0.0, 0.0]), b_gate=np.array([0.5, 0.0, 0.0]))
        hit = value_at_zero(b)
        assert hit is not None and hit[0] == 0, (a, hit)
