"""`absorb witness`: certified differences and exact agreement evidence (homogeneous-impossible,
gated-impossible, relu-gelu-iff, glu-flip)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle.core import io as bio
from oracle.core import strategies as S
from oracle.core.blocks import Block
from oracle.cli import main
from oracle.decide.block import decide
from oracle.decide.witness import find_witness, recheck_witness


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(["relu2", "reglu", "bilinear", "swiglu", "geglu"]).flatmap(
    lambda a: st.tuples(S.blocks(a, d=2, m=3), S.blocks(a, d=2, m=3, skip="none"))))
def test_theorem_kinds_always_give_a_certified_difference(pair) -> None:
    R, P = pair
    w = find_witness(R, P)
    assert w["verdict"] == "differ" and w["exact"]
    assert recheck_witness(R, P, w)
    x = [Fraction(s) for s in w["point"]]
    a, b = R.evaluate(x, "mp"), P.evaluate(x, "mp")
    k = w["coordinate"]
    assert abs(a[k] - b[k]) > 0  # the claimed coordinate really differs at 128 bits


@pytest.mark.parametrize("act", ["relu", "gelu", "silu", "glu"])
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_sign_flip_block_agrees_and_a_perturbed_one_differs(act: str, data) -> None:
    inst = data.draw(S.condition_blocks(act, d=2, extra=1))
    R = inst.block
    P = decide(R).plain
    w = find_witness(R, P)
    # ungated relu-type blocks are compared through their canonical forms, glu by the sign flip
    assert w["verdict"] == "agree"
    assert w["evidence"]["kind"] == ("sign_flip" if act == "glu" else "canonical_forms")
    assert recheck_witness(R, P, w)
    Q = Block(act, W_up=P.W_up, W_down=P.W_down + 2.0 ** -30, W_gate=P.W_gate, kind="plain")
    w2 = find_witness(R, Q)
    assert w2["verdict"] == "differ" and w2["exact"] and recheck_witness(R, Q, w2)
    assert not recheck_witness(R, Q, {"verdict": "agree"})


def test_relu_tiny_difference_is_found_exactly() -> None:
    # P adds 2^-20 relu(x1 - x2) to the first output: a tiny one-sided difference
    R = Block("relu", W_up=np.array([[1.0, 1.0], [1.0, -1.0]]), W_down=np.array([[1.0, 0.0], [0.0, 1.0]]),
              M=np.zeros((2, 2)))
    P = Block("relu", W_up=np.array([[1.0, 1.0], [1.0, -1.0]]), W_down=np.array([[1.0, 2.0 ** -20], [0.0, 1.0]]),
              kind="plain")
    w = find_witness(R, P)
    assert w["verdict"] == "differ" and w["method"] == "exact rational arithmetic"
    assert Fraction(w["difference"]) != 0 and recheck_witness(R, P, w)


def test_cli_witness_json_and_dimension_mismatch(tmp_path: Path, capsys) -> None:
    R = Block("relu2", W_up=np.eye(2), W_down=np.eye(2))
    P = Block("relu2", W_up=np.eye(2), W_down=np.eye(2), kind="plain")
    bio.write_block(R, tmp_path / "r.npz")
    bio.write_block(P, tmp_path / "p.safetensors")
    assert main(["witness", str(tmp_path / "r.npz"), str(tmp_path / "p.safetensors"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "differ" and recheck_witness(R, P, doc)
    bio.write_block(Block("relu2", W_up=np.eye(3), W_down=np.eye(3), kind="plain"), tmp_path / "q.npz")
    assert main(["witness", str(tmp_path / "r.npz"), str(tmp_path / "q.npz")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "dimension" in err


# ------------------------------------------------------------------ canonical forms (issue 12 item 10)

def _perm_rescale(b: Block, seed: int, powers: bool = True) -> Block:
    rng = np.random.default_rng(seed)
    p = rng.permutation(b.m)
    s = 2.0 ** rng.integers(-3, 4, b.m) if powers else np.ones(b.m)
    bu = None if b.b_up is None else b.b_up[p] * s
    return Block(b.activation, W_up=b.W_up[p] * s[:, None], W_down=b.W_down[:, p] / s[None, :], b_up=bu,
                 b_down=b.b_down, kind="plain")


@pytest.mark.parametrize("bias", [False, True])
def test_relu_permuted_and_rescaled_blocks_agree_exactly(bias: bool) -> None:
    """relu-complete Lemma 1: units permuted and rescaled by powers of two are the same function."""
    rng = np.random.default_rng(7)
    d, m = 24, 96
    R = Block("relu", W_up=rng.standard_normal((m, d)), W_down=rng.standard_normal((d, m)),
              b_up=rng.standard_normal(m) if bias else None, kind="plain")
    P = _perm_rescale(R, 1)
    w = find_witness(R, P)
    assert w["verdict"] == "agree" and w["exact"] and w["evidence"]["kind"] == "canonical_forms"
    assert w["evidence"]["classes"] == m and recheck_witness(R, P, w)
    # all rows scaled by 2 and outputs halved: the same; by 2 without halving: different
    P2 = Block("relu", W_up=2 * R.W_up, W_down=R.W_down / 2, b_up=None if R.b_up is None else 2 * R.b_up,
               kind="plain")
    assert find_witness(R, P2)["verdict"] == "agree"
    P3 = Block("relu", W_up=2 * R.W_up, W_down=R.W_down, b_up=P2.b_up, kind="plain")
    w3 = find_witness(R, P3)
    assert w3["verdict"] == "differ" and w3["exact"] and w3["point"] is not None
    assert recheck_witness(R, P3, w3)
    assert not recheck_witness(R, P3, {"verdict": "agree", "evidence": {"kind": "canonical_forms"}})
    x = [Fraction(t) for t in w3["point"]]
    k = w3["coordinate"]
    assert R.evaluate(x, "exact")[k] != P3.evaluate(x, "exact")[k]


def test_relu_kink_witness_on_one_changed_unit() -> None:
    """A single unit moved to another hyperplane: the witness lies across the differing hyperplane."""
    rng = np.random.default_rng(3)
    d, m = 6, 10
    U, W = rng.integers(-3, 4, (m, d)).astype(float), rng.integers(-3, 4, (d, m)).astype(float)
    U[0, 0], W[0, 0] = 1.0, 1.0
    R = Block("relu", W_up=U, W_down=W, kind="plain")
    U2 = U.copy()
    U2[0, 0] = 1.0 + 2.0 ** -20  # a nearby hyperplane
    P = Block("relu", W_up=U2, W_down=W, kind="plain")
    w = find_witness(R, P)
    assert w["verdict"] == "differ" and w["method"] == "exact rational arithmetic"
    assert "kink hyperplane" in w["why_this_point"] and recheck_witness(R, P, w)
    tampered = dict(w, point=["0"] * d)
    assert not recheck_witness(R, P, tampered)


@pytest.mark.parametrize("act", ["gelu", "gelu_tanh", "silu"])
def test_odd_family_permuted_agree_and_rescaled_differ(act: str) -> None:
    """relu-limit Lemma T: for gelu-type activations permutations and sign flips (with their affine
    correction) are the same function, positive rescalings are not."""
    rng = np.random.default_rng(5)
    d, m = 5, 12
    R = Block(act, W_up=rng.standard_normal((m, d)), W_down=rng.standard_normal((d, m)),
              b_up=rng.standard_normal(m), kind="plain")
    assert find_witness(R, _perm_rescale(R, 2, powers=False))["verdict"] == "agree"
    P = _perm_rescale(R, 2, powers=True)
    w = find_witness(R, P)
    assert w["verdict"] == "differ" and w["exact"] and w["point"] is not None
    assert w["method"].startswith("arb ball") and recheck_witness(R, P, w)


def test_residual_against_flip_with_biases_agrees() -> None:
    """x + B(x) against its biased sign-flip construction (relu-limit (A)) agrees exactly."""
    from oracle.decide.relu import decide_odd

    U = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    W = np.array([[-1.0, 0.0, 2.0], [0.0, -1.0, 0.5]])
    R = Block("silu", W_up=U, W_down=W, b_up=np.array([0.5, -1.0, 2.0]), b_down=np.array([1.0, 0.0]))
    P = decide_odd(R)["plain"]
    w = find_witness(R, P)
    assert w["verdict"] == "agree" and w["evidence"]["classes_with_different_affine_share"] >= 2
    Pw = Block("silu", W_up=P.W_up, W_down=P.W_down, b_up=P.b_up, kind="plain")  # b_down correction dropped
    w2 = find_witness(R, Pw)
    assert w2["verdict"] == "differ" and recheck_witness(R, Pw, w2)


def test_cli_witness_large_agree_with_progress(tmp_path: Path, capsys) -> None:
    rng = np.random.default_rng(0)
    d, m = 128, 512
    R = Block("relu", W_up=rng.standard_normal((m, d)), W_down=rng.standard_normal((d, m)), kind="plain")
    bio.write_block(R, tmp_path / "r.npz")
    bio.write_block(_perm_rescale(R, 4), tmp_path / "p.npz")
    assert main(["witness", str(tmp_path / "r.npz"), str(tmp_path / "p.npz")]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("verdict: agree (exact)") and "absorb witness: [" in out.err
