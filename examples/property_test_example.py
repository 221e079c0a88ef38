"""A user's own property-based test of a statement about blocks, written with the package's
hypothesis strategies and its exact evaluators.

The statement tested here (the sufficiency half of the paper's relu theorem, in our words): if a
relu block x -> x + W_down relu(W_up x) has units S with W_down[:, S] W_up[S, :] = -I, then
negating the rows of W_up in S gives a residual-free block equal to it at every input.  Since
relu(z) - relu(-z) = z, the flipped units contribute W_S relu(-U_S x) = W_S relu(U_S x) - W_S U_S x
= W_S relu(U_S x) + x.

Run it with pytest (``python -m pytest examples/property_test_example.py``) or as a script.  The
strategies draw small dyadic weights, so the weights are exact rationals and ``Block.evaluate(x,
"exact")`` compares the two blocks without any rounding; a counterexample, if hypothesis found one,
would be a real one.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle.core.blocks import Block
from oracle.core.strategies import blocks, condition_blocks
from oracle.decide import decide, recheck_certificate

rationals = st.fractions(min_value=-4, max_value=4, max_denominator=16)


def flip(block: Block, S: tuple[int, ...]) -> Block:
    """The residual-free block with the rows of W_up in S negated."""
    W_up = block.W_up.copy()
    W_up[list(S)] *= -1
    return Block(block.activation, W_up=W_up, W_down=block.W_down, kind="plain")


@settings(max_examples=40, deadline=None)
@given(inst=condition_blocks(activation="relu"), data=st.data())
def test_flipping_the_index_set_removes_the_skip(inst, data) -> None:
    """The statement above, checked exactly at hypothesis-chosen rational points."""
    residual, plain = inst.block, flip(inst.block, inst.S)
    x = data.draw(st.lists(rationals, min_size=residual.d, max_size=residual.d))
    assert residual.evaluate(x, "exact") == plain.evaluate(x, "exact")


@settings(max_examples=40, deadline=None)
@given(inst=condition_blocks(activation="relu"))
def test_the_decision_procedure_agrees_and_its_certificate_rechecks(inst) -> None:
    """``decide`` finds such a block absorbable exactly, and its certificate re-checks from the
    weights and the certificate alone."""
    v = decide(inst.block)
    assert (v.verdict, v.exact) == ("absorbable", True)
    assert recheck_certificate(inst.block, v.certificate)


@settings(max_examples=30, deadline=None)
@given(b=blocks(activation="swiglu", skip="identity"))
def test_bias_free_swiglu_blocks_never_absorb(b) -> None:
    """A bias-free gated block with a gate vanishing at 0 (Prop. 6): never absorbable."""
    v = decide(b)
    assert (v.verdict, v.claim, v.exact) == ("not_absorbable", "gated-impossible", True)


def test_a_hand_made_counterexample_to_a_false_statement() -> None:
    """Without the index condition the flip is not the same function: a concrete point shows it."""
    b = Block("relu", W_up=np.array([[1.0, 0.0], [0.0, 1.0]]), W_down=np.array([[-1.0, 0.0], [0.0, -0.5]]))
    x = [Fraction(0), Fraction(1)]
    assert b.evaluate(x, "exact") != flip(b, (0, 1)).evaluate(x, "exact")


if __name__ == "__main__":
    import sys

    import pytest

    sys.exit(pytest.main([__file__, "-q"]))
