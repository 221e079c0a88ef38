"""The activation catalog: every backend agrees, enclosures are rigorous and tight,
and every declared property is re-derived (a wrong declaration fails)."""

from dataclasses import replace
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, arb_series, ctx
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
    ("relu2", dict(square_flip=False), "square_flip"),
    ("relu", dict(square_flip=True), "square_flip"),
    ("glu", dict(square_flip=True), "square_flip"),
    ("gelu", dict(relu_limit=False), "relu_limit"),
    ("quick_gelu", dict(relu_limit=False), "relu_limit"),
    ("relu2", dict(relu_limit=True), "relu_limit"),
    ("glu", dict(relu_limit=True), "relu_limit"),
    ("bilinear", dict(relu_limit=True), "relu_limit"),
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


def test_the_relu_limit_check_encloses_the_gap_rigorously():
    """|s - relu| on [-64, 64] from arb balls: at most 1/2 for the relu-like entries (the bound
    behind s(t z + c)/t -> relu(z)), far above it for relu2, whose limit check fails."""
    for name in ("relu", "gelu", "gelu_tanh", "silu", "quick_gelu", "swiglu"):
        worst, ok = A.relu_gap_enclosure(A.CATALOG[name])
        assert ok and 0 <= worst <= 0.5, name
    worst, ok = A.relu_gap_enclosure(A.CATALOG["relu2"], top=4)
    assert not ok and worst > 1
    # silu - relu peaks near 0.278 at |y| = 1.28: the enclosure is within its ball width of that
    worst, _ = A.relu_gap_enclosure(A.CATALOG["silu"], top=4, pieces_per_unit=256)
    assert 0.278 <= worst <= 0.3


def test_property_families_follow_the_declarations():
    assert A.ODD_PART == ("relu", "gelu", "gelu_tanh", "silu", "quick_gelu")
    assert A.RELU_LIMIT == ("relu", "gelu", "gelu_tanh", "silu", "quick_gelu")
    assert A.SQUARE_FLIP == ("relu2",)
    assert A.ODD_GATES == ("reglu", "swiglu", "geglu", "geglu_tanh")
    assert A.FLIP_GATES == ("glu",)
    assert A.BIASED_FLIP == ("relu2", "reglu", "swiglu", "geglu", "geglu_tanh", "glu")
    assert A.ZERO_GATES == ("reglu", "swiglu", "geglu", "geglu_tanh", "bilinear")
    assert A.SMOOTH_ZERO_GATES == ("swiglu", "geglu", "geglu_tanh")
    assert A.BLOCK_DEGREE_2 == ("relu2", "reglu", "bilinear")
    assert A.FLAT_AT_0 == ("relu2", "reglu", "swiglu", "geglu", "geglu_tanh", "bilinear")
    assert A.HOMOGENEOUS == ("relu", "relu2", "reglu", "bilinear")
    assert A.WITH_SLOPES == ("gelu", "gelu_tanh", "silu")


def test_a_new_entry_joins_the_families_its_declarations_name():
    """members() reads the catalog: an entry declared like silu joins silu's property families."""
    entry = replace(A.CATALOG["silu"], name="silu_copy")
    old = dict(A.CATALOG)
    try:
        A.CATALOG["silu_copy"] = entry
        assert "silu_copy" in A.members(lambda a: not a.gated and a.odd_part_identity and a.relu_limit)
        assert "silu_copy" not in A.members(lambda a: a.gated)
    finally:
        A.CATALOG.clear()
        A.CATALOG.update(old)


SLOPE_POINTS = [-30.0, -6.5, -1.25, -0.125, 0.0, 0.375, 1.0, 2.75, 9.0, 30.0]


def slope_mismatches(a) -> list:
    """Where the slopes of an entry are not its own function and derivative: the balls must be
    narrow and hold mpmath's value of s (the mp form) and its numerical derivative, the float64
    pair must be within 1e-12 of them, and the power-series form must carry s and s' as its two
    coefficients."""
    bad = []
    for z in SLOPE_POINTS:
        with mpmath.workprec(400):
            v = a.mp(mpmath.mpf(z))
            dv = mpmath.diff(a.mp, mpmath.mpf(z))
        old = ctx.prec
        ctx.prec = 200
        try:
            s, ds = a.slopes.ball(arb(z))
            series = a.slopes.series(arb_series([arb(z), arb(1)], prec=2)).coeffs()
        finally:
            ctx.prec = old
        for what, ball, ref in (("s", s, v), ("s'", ds, dv), ("series s", series[0], v),
                                ("series s'", series[1], dv)):
            if not (ball.is_finite() and ball.rad() < 1e-20):
                bad.append((z, what, "wide"))
                continue
            with mpmath.workprec(400):  # the ball holds the reference (up to mpmath's own error)
                gap = abs(mpmath.mpf(ball.mid().str(100, radius=False)) - ref)
                if gap > mpmath.mpf(ball.rad().str(10, radius=False)) * 2 + mpmath.mpf(10) ** -50:
                    bad.append((z, what, "misses"))
        f, df = a.slopes.f64(z)
        if abs(f - float(v)) > 1e-12 * max(1.0, abs(float(v))) or abs(df - float(dv)) > 1e-12:
            bad.append((z, "float64", "off"))
    return bad


@pytest.mark.parametrize("name", [n for n in NAMES if A.CATALOG[n].slopes is not None])
def test_slopes_are_the_derivative_of_the_entry(name):
    assert slope_mismatches(A.CATALOG[name]) == []


def test_a_wrong_slope_is_seen():
    """The check above has teeth: silu's slopes on the gelu entry, and gelu's derivative scaled by
    1 + 1e-7 in the balls alone, are both found."""
    gelu, silu = A.CATALOG["gelu"], A.CATALOG["silu"]
    swapped = slope_mismatches(replace(gelu, slopes=silu.slopes))
    assert {w for _, w, _ in swapped} == {"s", "s'", "series s", "series s'", "float64"}

    def scaled(z):
        s, ds = gelu.slopes.ball(z)
        return s, ds * (1 + arb(10) ** -7)
    off = slope_mismatches(replace(gelu, slopes=replace(gelu.slopes, ball=scaled)))
    assert off and {w for _, w, _ in off} == {"s'"}


# the Coq lemmas each coverage family names, per member
COQ_LEMMAS = {
    "COQ_ODD_PART": [("RealActivations.v", "Lemma {}_odd_part"), ("Activations.v", "Corollary {}_sign_flip")],
    "COQ_RELU_LIMIT": [("RealActivations.v", "Theorem {}_limit_relu")],
}


@pytest.mark.parametrize("family, refines", [
    ("COQ_ODD_PART", "ODD_PART"), ("COQ_RELU_LIMIT", "RELU_LIMIT"), ("LEMMA_T", "RELU_LIMIT"),
    ("NECESSITY_PROVED", "COQ_ODD_PART"), ("BIASED_FLIP_NECESSITY", "BIASED_FLIP"),
    ("DEPTH_ANALYTIC", "WITH_SLOPES"),
])
def test_coverage_families_refine_property_families(family, refines):
    """A family of what a proof covers never holds an activation without the property it needs,
    and keeps catalog order."""
    members, wider = getattr(A, family), getattr(A, refines)
    assert members and set(members) <= set(wider), (family, refines)
    assert list(members) == [n for n in A.CATALOG if n in members]
    assert family in A.FAMILY_DOCS and refines in A.FAMILY_DOCS


@pytest.mark.parametrize("family", sorted(COQ_LEMMAS))
def test_the_coq_lemmas_of_coverage_families_exist(family):
    from pathlib import Path
    coq = Path(__file__).resolve().parents[1] / "proofs" / "coq"
    for name in getattr(A, family):
        for file, pattern in COQ_LEMMAS[family]:
            text = (coq / file).read_text()
            assert pattern.format(name) in text, (family, name, file, pattern.format(name))
    # quick_gelu has the properties but no Coq definition: it is not covered
    assert "quick_gelu" not in getattr(A, family)
    assert "Definition quick_gelu" not in (coq / "RealActivations.v").read_text()
