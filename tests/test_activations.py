"""The activation catalog: every backend agrees, enclosures are rigorous and tight,
and every declared property is re-derived (a wrong declaration fails)."""

from dataclasses import replace
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, ctx
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle.core import activations as A
from oracle.core.errors import InputError

NAMES = sorted(A.CATALOG)
points = st.floats(-30, 30, allow_nan=False, allow_infinity=False, width=64)


def mp_ref(a, z, prec=512):
    with mpmath.workprec(prec):
        return a.mp(mpmath.mpf(z))


def test_catalog_has_every_entry_of_the_spec():
    assert set(NAMES) == {"relu", "gelu", "gelu_tanh", "silu", "quick_gelu", "relu2", "reglu", "swiglu",
                          "geglu", "geglu_tanh", "glu", "bilinear"}
    assert {n for n in NAMES if A.CATALOG[n].gated} == {
        "reglu", "swiglu", "geglu", "geglu_tanh", "glu", "bilinear"}


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60)
@given(z=points)
def test_float64_agrees_with_mpmath(name, z):
    # Stated bound: 1e-14 relative to max(1, |f(z)|) (a few ulps of the float64 formulas).
    a = A.CATALOG[name]
    ref = mp_ref(a, z)
    got = float(a.f64(np.array([z]))[0])
    assert abs(got - float(ref)) <= 1e-14 * max(1.0, abs(float(ref)))


@pytest.mark.parametrize("name", [n for n in NAMES if A.CATALOG[n].exact is not None])
@settings(max_examples=60)
@given(z=points)
def test_exact_form_matches_mpmath_exactly(name, z):
    a = A.CATALOG[name]
    q = a.exact(Fraction(z))
    # A dyadic input makes relu, relu2 and identity exact in 512-bit mpmath too.
    with mpmath.workprec(512):
        ref = a.mp(mpmath.mpf(z))
        assert mpmath.mpf(q.numerator) / q.denominator == ref
    assert isinstance(q, Fraction)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60)
@given(z=points)
def test_ball_contains_high_precision_value_and_is_tight(name, z):
    a = A.CATALOG[name]
    old = ctx.prec
    ctx.prec = 128
    try:
        b = a.ball(arb(z))
    finally:
        ctx.prec = old
    # 1500 bits: near |z| = 30, gelu(z) differs from z by about 2^-650, which a 600-bit
    # reference cannot resolve (its own rounding error would exceed the ball's radius).
    ref = mp_ref(a, z, prec=1500)
    # The reference, turned exactly into an arb point, must lie in the 128-bit ball.
    ctx.prec = 1600
    try:
        man, exp = ref.man_exp if ref != 0 else (0, 0)  # mpmath keeps the sign apart
        point = arb(int(man) * (-1 if ref < 0 else 1)) * arb(2) ** int(exp)
        assert b.contains(point)
    finally:
        ctx.prec = old
    # Tightness: width at most 2^-100 relative to max(1, |value|) at 128 bits.
    assert float(b.rad()) <= 2.0**-100 * max(1.0, abs(float(ref)))


@pytest.mark.parametrize("name", NAMES)
def test_every_declared_property_is_verified(name):
    checks = A.check_properties(A.CATALOG[name])
    bad = [c.as_dict() for c in checks if not c.holds]
    assert not bad


@pytest.mark.parametrize("name, wrong, prop", [
    ("relu2", dict(homogeneity_degree=3), "homogeneity_degree"),
    ("gelu", dict(homogeneity_degree=1), "homogeneity_degree"),
    ("relu2", dict(odd_part_identity=True), "odd_part_identity"),
    ("bilinear", dict(odd_part_identity=True), "odd_part_identity"),
    ("silu", dict(odd_part_identity=False), "odd_part_identity"),
    ("swiglu", dict(flip_symmetry=True), "flip_symmetry"),
    ("glu", dict(flip_symmetry=False), "flip_symmetry"),
    ("glu", dict(value_at_0=Fraction(0)), "value_at_0"),
    ("relu", dict(differentiable_at_0=True), "differentiable_at_0"),
    ("gelu", dict(differentiable_at_0=False), "differentiable_at_0"),
    ("silu", dict(continuous_at_0=False), "continuous_at_0"),
])
def test_a_wrong_declaration_is_caught(name, wrong, prop):
    bad = replace(A.CATALOG[name], **wrong)
    results = {c.prop: c.holds for c in A.check_properties(bad)}
    assert results[prop] is False


def test_block_degree_counts_the_linear_factor_of_a_gate():
    assert A.get("relu2").block_degree == 2
    assert A.get("reglu").block_degree == 2
    assert A.get("bilinear").block_degree == 2
    assert A.get("relu").block_degree == 1
    assert A.get("swiglu").block_degree is None


def test_unknown_activation_is_an_input_error():
    with pytest.raises(InputError, match="unknown activation 'tanh'"):
        A.get("tanh")
