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

from oracle import io as bio
from oracle import strategies as S
from oracle.blocks import Block
from oracle.cli import main
from oracle.decide import decide
from oracle.witness import find_witness, recheck_witness


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
    assert w["verdict"] == "agree" and w["evidence"]["kind"] == "sign_flip"
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
