"""Batch ball evaluation (oracle.core.fastball): enclosure, agreement with the per-point reference, tightness.

The reference value is Block.evaluate(x, 'mp', prec=400).  mpmath rounds at every
step, so that value is only within about 2^-390 (relative to the size of the terms)
of the true one, while the 128-bit balls have radii near 2^-120: a true value
inside the ball but within 2^-390 of its edge is the only way a correct ball could
miss the mp value, and no such coincidence is expected at these sizes.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, ctx, fmpz
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle.core import activations, fastball
from oracle.core.blocks import Block
from oracle.core.errors import InputError
from oracle.core.strategies import blocks, dyadic_weights, float_weights

PREC = 128
REF_PREC = 400
# Tightness bound for small dyadic weights at 128 bits: rad <= 2^-100 * max(1, |mid|).
REL_RADIUS = 2.0 ** -100

CATALOG = sorted(activations.CATALOG)


def exact_arb(v: mpmath.mpf) -> arb:
    """The exact value of an mpmath number as a zero-radius ball."""
    sign, man, exp, _ = v._mpf_
    old = ctx.prec
    ctx.prec = 2000  # large enough that the product below is exact
    try:
        # negation rounds to the working precision in python-flint, so do it here too
        b = arb(fmpz(-int(man) if sign else int(man))) * arb(2) ** int(exp)
    finally:
        ctx.prec = old
    assert b.is_exact()
    return b


def reference(block: Block, x: list) -> list[arb]:
    """The 400-bit mpmath value of the block at x, as exact balls."""
    return [exact_arb(v) for v in block.evaluate(x, "mp", prec=REF_PREC)]


@st.composite
def block_and_points(draw: st.DrawFn, activation: str) -> tuple[Block, np.ndarray]:
    """A small block of the given activation (random biases and skip) and 1-4 dyadic points."""
    bias = draw(st.booleans())
    skip = draw(st.sampled_from(["identity", "any", "none"]))
    b = draw(blocks(activation, max_d=4, max_m=6, bias=bias, skip=skip))
    n = draw(st.integers(1, 4))
    X = draw(dyadic_weights((n, b.d), max_abs=4, bits=4))
    return b, X


def _check_batch(b: Block, X: np.ndarray, tight: bool) -> None:
    balls = fastball.eval_ball_batch(b, X, prec=PREC)
    assert len(balls) == X.shape[0]
    for j, x in enumerate(X):
        row = balls[j]
        assert len(row) == b.d
        ref = reference(b, [float(v) for v in x])
        per_point = b.evaluate([float(v) for v in x], "ball", prec=PREC)
        for k in range(b.d):
            assert row[k].contains(ref[k]), (b.activation, j, k, row[k], ref[k])
            # both are rigorous enclosures of the same number, so they must intersect
            assert row[k].overlaps(per_point[k])
            if tight:
                scale = max(1.0, abs(float(row[k].mid())))
                assert float(row[k].rad()) <= REL_RADIUS * scale, (b.activation, row[k])


@pytest.mark.parametrize("activation", CATALOG)
@settings(max_examples=50)
@given(data=st.data())
def test_batch_contains_mp_reference(activation: str, data: st.DataObject) -> None:
    """Every ball contains the 400-bit mp value, meets the per-point ball, and is tight."""
    b, X = data.draw(block_and_points(activation))
    _check_batch(b, X, tight=True)


@settings(max_examples=50)
@given(act=st.sampled_from(CATALOG), data=st.data())
def test_arbitrary_float_weights(act: str, data: st.DataObject) -> None:
    """Containment also holds for arbitrary float64 weights and points (not only short dyadics)."""
    d = data.draw(st.integers(1, 3))
    m = data.draw(st.integers(1, 5))
    kw = {"W_up": data.draw(float_weights((m, d), 3.0)),
          "W_down": data.draw(float_weights((d, m), 3.0))}
    if activations.get(act).gated:
        kw["W_gate"] = data.draw(float_weights((m, d), 3.0))
    b = Block(act, **kw)
    X = data.draw(float_weights((2, d), 3.0))
    _check_batch(b, X, tight=False)


def test_radius_reported_at_128_bits() -> None:
    """A gelu block with d = 8, m = 32 and unit-size weights: stated radius bound holds at 128 bits."""
    rng = np.random.default_rng(7)
    d, m = 8, 32
    b = Block("gelu", W_up=np.round(rng.standard_normal((m, d)) * 64) / 64,
              W_down=np.round(rng.standard_normal((d, m)) * 64) / 64)
    X = np.round(rng.standard_normal((5, d)) * 64) / 64
    balls = fastball.eval_ball_batch(b, X, prec=PREC)
    worst = fastball.max_relative_radius(balls)
    assert 0.0 < worst <= REL_RADIUS
    # higher precision gives a smaller radius (the enclosure tracks the working precision)
    assert fastball.max_relative_radius(fastball.eval_ball_batch(b, X, prec=256)) < worst * 2.0 ** -100


def test_interval_endpoints_enclose_reference() -> None:
    """The float endpoints are rounded outward: lo <= mp value <= hi with lo < hi."""
    rng = np.random.default_rng(3)
    b = Block("swiglu", W_up=rng.standard_normal((6, 3)), W_down=rng.standard_normal((3, 6)),
              W_gate=rng.standard_normal((6, 3)), b_up=rng.standard_normal(6))
    X = rng.standard_normal((4, 3))
    lo, hi = fastball.eval_interval_batch(b, X)
    assert lo.shape == hi.shape == (4, 3)
    for j in range(4):
        ref = b.evaluate(list(X[j]), "mp", prec=REF_PREC)
        for k in range(3):
            assert mpmath.mpf(lo[j, k]) <= ref[k] <= mpmath.mpf(hi[j, k])
            assert lo[j, k] < hi[j, k]
            # outward rounding costs at most a couple of ulps at 128 bits
            assert hi[j, k] - lo[j, k] <= 4 * math.ulp(abs(float(ref[k]))) + 1e-300


def test_mixed_point_types_and_rational_points() -> None:
    """Points given as Fractions, ints and balls: a non-dyadic 1/3 still gives an enclosure."""
    b = Block("gelu", W_up=np.array([[1.0, -2.0], [0.5, 0.25]]),
              W_down=np.array([[1.0, 3.0], [-1.0, 0.5]]))
    pts = [[Fraction(1, 3), 2], [arb(0.5), -1.25]]
    balls = fastball.eval_ball_batch(b, pts)
    for p, row in zip(pts, balls):
        x = [Fraction(1, 3) if isinstance(v, Fraction) else float(v if not isinstance(v, arb)
                                                                   else float(v.mid())) for v in p]
        ref = reference(b, x)
        assert all(r.contains(q) for r, q in zip(row, ref))


def test_relu_exact_points_give_exact_values() -> None:
    """relu with dyadic data and high precision: products are exact, so the radius is zero."""
    b = Block("relu", W_up=np.array([[1.0, -1.0], [0.5, 2.0], [-3.0, 0.25]]),
              W_down=np.array([[1.0, -2.0, 0.5], [0.0, 1.0, 1.0]]))
    X = np.array([[1.0, 2.0], [-0.5, 0.75]])
    balls = fastball.eval_ball_batch(b, X, prec=PREC)
    for x, row in zip(X, balls):
        exact = b.evaluate([Fraction(float(v)) for v in x], "exact")
        for r, q in zip(row, exact):
            assert r.is_exact()
            assert r == arb(fmpz(q.numerator)) / q.denominator


def test_empty_batch_and_bad_input() -> None:
    """An empty batch returns []; wrong shapes, NaN and too little precision raise InputError."""
    b = Block("silu", W_up=np.ones((2, 3)), W_down=np.ones((3, 2)))
    assert fastball.eval_ball_batch(b, np.zeros((0, 3))) == []
    with pytest.raises(InputError):
        fastball.eval_ball_batch(b, np.zeros((2, 4)))
    with pytest.raises(InputError):
        fastball.eval_ball_batch(b, np.array([[0.0, np.nan, 1.0]]))
    with pytest.raises(InputError):
        fastball.eval_ball_batch(b, [[1.0, 2.0]])
    with pytest.raises(InputError):
        fastball.eval_ball_batch(b, np.zeros((1, 3)), prec=32)
