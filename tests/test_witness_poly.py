"""Exact agreement of relu2 and gated blocks from forms with a polynomial part
(oracle/algebra/canonical.poly_form): an emitted block of `absorb check --emit` and its source, a
permuted and rescaled copy, and a flipped unit with its polynomial moved into b_down and the skip
agree exactly; a flip without its polynomial, or any changed weight, is never called equal (the
float64 values of every pair called equal agree to rounding).
Claims exercised: relu2-biased, gated-biased (the flip identities (A))."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle.algebra.canonical import poly_form, poly_forms_equal
from oracle.core import strategies as S
from oracle.core.blocks import Block
from oracle.decide import decide
from oracle.decide.witness import find_witness, recheck_witness

POLY_FAMILIES = ["relu2", "reglu", "swiglu", "geglu", "geglu_tanh", "glu", "bilinear"]


def _gap(R: Block, P: Block) -> float:
    X = np.random.default_rng(0).standard_normal((32, R.d)) * 3
    a, b = R.eval_f64(X), P.eval_f64(X)
    return float(np.max(np.abs(a - b)) / (1 + np.max(np.abs(a))))


def _permuted_rescaled(b: Block, rng: np.random.Generator) -> Block:
    """Units permuted; relu2 units rescaled by t = 2 (u, b -> 2u, 2b and w -> w / 4, exact); reglu gate
    rows by 2 with their value rows halved (relu(2z) (v/2) = relu(z) v)."""
    P = copy.deepcopy(b)
    perm = rng.permutation(b.m)
    for name in ("W_up", "W_gate"):
        if getattr(P, name) is not None:
            setattr(P, name, getattr(P, name)[perm].copy())
    for name in ("b_up", "b_gate"):
        if getattr(P, name) is not None:
            setattr(P, name, getattr(P, name)[perm].copy())
    P.W_down = P.W_down[:, perm].copy()
    if b.activation == "relu2":
        P.W_up, P.W_down = 2 * P.W_up, P.W_down / 4
        if P.b_up is not None:
            P.b_up = 2 * P.b_up
    if b.activation == "reglu":
        P.W_gate, P.W_up = 2 * P.W_gate, P.W_up / 2
        if P.b_gate is not None:
            P.b_gate = 2 * P.b_gate
        if P.b_up is not None:
            P.b_up = P.b_up / 2
    return P


@settings(max_examples=60)
@given(st.sampled_from(POLY_FAMILIES).flatmap(lambda a: S.blocks(a, bias=True, skip="any")), st.integers(0, 99))
def test_permuted_and_rescaled_blocks_agree_exactly(b, seed):
    P = _permuted_rescaled(b, np.random.default_rng(seed))
    ev = poly_forms_equal(b, P)
    assert ev is not None and ev["kind"] == "polynomial_forms", b.activation
    assert _gap(b, P) < 1e-9


@settings(max_examples=100)
@given(st.sampled_from(POLY_FAMILIES).flatmap(lambda a: S.blocks(a, bias=True, skip="any")),
       st.integers(0, 5), st.sampled_from([-1.0, 0.5, 1.0]))
def test_changed_blocks_are_never_called_equal(b, unit, delta):
    """A flip without its polynomial, or one moved weight, changes the function: never 'equal'
    (and whenever the forms are equal the float64 values agree)."""
    i = unit % b.m
    P = copy.deepcopy(b)
    if b.gated:
        P.W_gate = P.W_gate.copy()
        P.W_gate[i] = -P.W_gate[i]
    else:
        P.W_up = P.W_up.copy()
        P.W_up[i] = -P.W_up[i]
    Q = copy.deepcopy(b)
    Q.W_down = Q.W_down.copy()
    Q.W_down[0, i] += delta
    for other in (P, Q):
        ev = poly_forms_equal(b, other)
        if ev is not None:
            assert _gap(b, other) < 1e-9  # equal forms are equal functions
        if _gap(b, other) > 1e-6:
            assert ev is None


@pytest.mark.parametrize("act", ["relu2", "swiglu", "reglu", "geglu", "glu"])
def test_emitted_blocks_agree_exactly_and_the_document_rechecks(act):
    rng = np.random.default_rng(11)
    found = 0
    for _ in range(400):
        kw = {}
        d, m = 2, int(rng.integers(3, 6))
        U = rng.integers(-2, 3, (m, d)).astype(float)
        if act != "relu2":
            kw["W_gate"] = rng.integers(-2, 3, (m, d)).astype(float)
            kw["b_gate"] = rng.integers(-2, 3, m).astype(float)
        b = Block(act, W_up=U, W_down=rng.integers(-2, 3, (d, m)).astype(float),
                  b_up=rng.integers(-2, 3, m).astype(float), b_down=rng.integers(-2, 3, d).astype(float),
                  M=rng.integers(-2, 3, (d, d)).astype(float), **kw)
        v = decide(b)
        if v.verdict != "absorbable" or v.plain is None or not v.certificate.get("emitted_block_exact", True):
            continue
        doc = json.loads(json.dumps(find_witness(b, v.plain)))
        assert (doc["verdict"], doc["exact"]) == ("agree", True), doc
        assert recheck_witness(b, v.plain, doc)
        bad = copy.deepcopy(doc)
        bad["evidence"]["classes"] += 1
        assert not recheck_witness(b, v.plain, bad)  # stated counts are verified
        found += 1
        if found >= 3:
            break
    assert found >= 1, f"no absorbable {act} block drawn"


def test_forms_are_none_for_other_families_and_large_blocks():
    assert poly_form(Block("gelu", W_up=np.ones((2, 2)), W_down=np.ones((2, 2)))) is None
    big = Block("relu2", W_up=np.ones((400, 40)), W_down=np.ones((40, 400)))
    assert poly_form(big) is None
