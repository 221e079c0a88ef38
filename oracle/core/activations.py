"""The activation and gate catalog of SPEC.md, with every form the oracle needs.

Each entry evaluates in four ways:
  * ``f64``   -- vectorised float64 (numpy / scipy.special);
  * ``mp``    -- mpmath at the caller's working precision (the reference);
  * ``exact`` -- Fraction -> Fraction, only for piecewise-polynomial entries;
  * ``ball``  -- python-flint ``arb`` balls: rigorous enclosures (Arb's error bounds).

Each entry also *declares* the properties the theorems use; ``check_properties``
re-derives every declaration independently (sympy where it can decide, otherwise
at 60 significant digits on many points), so a wrong declaration is caught.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Optional

import importlib

import mpmath
import numpy as np
from flint import arb
from scipy import special

from oracle.core.errors import InputError


class _LazySympy:
    """sympy, imported on first use: only the symbolic re-derivations of the catalog's properties
    need it, and importing it costs about half a second that most commands never use."""

    def __getattr__(self, name: str) -> Any:
        return getattr(importlib.import_module("sympy"), name)


sympy: Any = _LazySympy()

# The cubic coefficient of the tanh form of GELU, as an exact decimal.
_GELU_TANH_C = "0.044715"
# The slope of CLIP's quick_gelu z * sigmoid(1.702 z), as an exact rational 851/500.
_QUICK_K = (851, 500)


# ---------------------------------------------------------------- float64 forms

def _relu64(z: np.ndarray) -> np.ndarray:
    return np.maximum(z, 0.0)


def _gelu64(z: np.ndarray) -> np.ndarray:
    return 0.5 * z * (1.0 + special.erf(z / math.sqrt(2.0)))


def _gelu_tanh64(z: np.ndarray) -> np.ndarray:
    inner = math.sqrt(2.0 / math.pi) * (z + 0.044715 * z**3)
    return 0.5 * z * (1.0 + np.tanh(inner))


def _silu64(z: np.ndarray) -> np.ndarray:
    return z * special.expit(z)


def _quick_gelu64(z: np.ndarray) -> np.ndarray:
    return z * special.expit(1.702 * z)


def _relu2_64(z: np.ndarray) -> np.ndarray:
    r = np.maximum(z, 0.0)
    return r * r


def _sigmoid64(z: np.ndarray) -> np.ndarray:
    return special.expit(z)


def _identity64(z: np.ndarray) -> np.ndarray:
    return np.asarray(z, dtype=np.float64).copy()


# ---------------------------------------------------------------- mpmath forms
# These read the ambient mpmath precision; callers wrap them in mp.workprec.

def _relu_mp(z: Any) -> Any:
    z = mpmath.mpf(z)
    return z if z > 0 else mpmath.mpf(0)


def _gelu_mp(z: Any) -> Any:
    z = mpmath.mpf(z)
    return z / 2 * (1 + mpmath.erf(z / mpmath.sqrt(2)))


def _gelu_tanh_mp(z: Any) -> Any:
    z = mpmath.mpf(z)
    inner = mpmath.sqrt(2 / mpmath.pi) * (z + mpmath.mpf(_GELU_TANH_C) * z**3)
    return z / 2 * (1 + mpmath.tanh(inner))


def _silu_mp(z: Any) -> Any:
    z = mpmath.mpf(z)
    return z / (1 + mpmath.exp(-z))


def _quick_gelu_mp(z: Any) -> Any:
    z = mpmath.mpf(z)
    return z / (1 + mpmath.exp(-(mpmath.mpf(_QUICK_K[0]) / _QUICK_K[1]) * z))


def _relu2_mp(z: Any) -> Any:
    r = _relu_mp(z)
    return r * r


def _sigmoid_mp(z: Any) -> Any:
    z = mpmath.mpf(z)
    return 1 / (1 + mpmath.exp(-z))


def _identity_mp(z: Any) -> Any:
    return mpmath.mpf(z)


# ---------------------------------------------------------------- exact forms

def _relu_q(z: Fraction) -> Fraction:
    return z if z > 0 else Fraction(0)


def _relu2_q(z: Fraction) -> Fraction:
    r = _relu_q(z)
    return r * r


def _identity_q(z: Fraction) -> Fraction:
    return Fraction(z)


# ---------------------------------------------------------------- ball forms
# Arb propagates rigorous error bounds through every operation and special
# function, so each result is a ball guaranteed to contain the true value.

def _relu_b(z: arb) -> arb:
    return z.max(arb(0))


def _gelu_b(z: arb) -> arb:
    return z / 2 * (1 + (z / arb(2).sqrt()).erf())


def _gelu_tanh_b(z: arb) -> arb:
    # z*z*z, not z**3: arb's power of a ball that straddles 0 is nan.
    inner = (arb(2) / arb.pi()).sqrt() * (z + arb(_GELU_TANH_C) * z * z * z)
    return z / 2 * (1 + inner.tanh())


def _silu_b(z: arb) -> arb:
    return z / (1 + (-z).exp())


def _quick_gelu_b(z: arb) -> arb:
    # arb(851) / 500 is a ball around the exact slope 1.702 (not the float64 1.702)
    return z / (1 + (-(arb(_QUICK_K[0]) / _QUICK_K[1]) * z).exp())


def _relu2_b(z: arb) -> arb:
    r = _relu_b(z)
    return r * r


def _sigmoid_b(z: arb) -> arb:
    return 1 / (1 + (-z).exp())


def _identity_b(z: arb) -> arb:
    return arb(z)


# ---------------------------------------------------------------- sympy forms

def _relu_s(z: sympy.Expr) -> sympy.Expr:
    return sympy.Max(z, 0)


def _gelu_s(z: sympy.Expr) -> sympy.Expr:
    return z / 2 * (1 + sympy.erf(z / sympy.sqrt(2)))


def _gelu_tanh_s(z: sympy.Expr) -> sympy.Expr:
    c = sympy.Rational(44715, 10**6)
    return z / 2 * (1 + sympy.tanh(sympy.sqrt(2 / sympy.pi) * (z + c * z**3)))


def _silu_s(z: sympy.Expr) -> sympy.Expr:
    return z / (1 + sympy.exp(-z))


def _quick_gelu_s(z: sympy.Expr) -> sympy.Expr:
    return z / (1 + sympy.exp(-sympy.Rational(*_QUICK_K) * z))


def _relu2_s(z: sympy.Expr) -> sympy.Expr:
    return sympy.Max(z, 0) ** 2


def _sigmoid_s(z: sympy.Expr) -> sympy.Expr:
    return 1 / (1 + sympy.exp(-z))


def _identity_s(z: sympy.Expr) -> sympy.Expr:
    return z


# ---------------------------------------------------------------- the catalog

@dataclass(frozen=True)
class Activation:
    """One catalog entry: an ungated activation sigma or a gate g, with its declared properties."""

    name: str
    role: str  # "activation" (B = W_down s(W_up x)) or "gate" (B = W_down (g(W_gate x) * W_up x))
    formula: str
    f64: Callable[[np.ndarray], np.ndarray]
    mp: Callable[[Any], Any]
    ball: Callable[[arb], arb]
    sym: Callable[[sympy.Expr], sympy.Expr]
    exact: Optional[Callable[[Fraction], Fraction]]
    # Declared properties of the scalar function itself.
    homogeneity_degree: Optional[int]  # positive homogeneity degree, None if not homogeneous
    odd_part_identity: bool  # f(z) - f(-z) == z for all z
    flip_symmetry: bool  # f(z) + f(-z) == 1 for all z
    value_at_0: Fraction
    continuous_at_0: bool
    differentiable_at_0: bool

    @property
    def gated(self) -> bool:
        """True for gates (the block multiplies g(W_gate x) with W_up x)."""
        return self.role == "gate"

    @property
    def block_degree(self) -> Optional[int]:
        """Positive-homogeneity degree of the whole bias-free block, or None."""
        if self.homogeneity_degree is None:
            return None
        return self.homogeneity_degree + (1 if self.gated else 0)

    def declared(self) -> dict[str, Any]:
        """The declared properties as a JSON-ready dict."""
        return {
            "homogeneity_degree": self.homogeneity_degree,
            "block_degree": self.block_degree,
            "odd_part_identity": self.odd_part_identity,
            "flip_symmetry": self.flip_symmetry,
            "value_at_0": str(self.value_at_0),
            "continuous_at_0": self.continuous_at_0,
            "differentiable_at_0": self.differentiable_at_0,
        }


def _entry(name: str, role: str, formula: str, base: str, **props: Any) -> Activation:
    forms = {
        "relu": (_relu64, _relu_mp, _relu_b, _relu_s, _relu_q),
        "gelu": (_gelu64, _gelu_mp, _gelu_b, _gelu_s, None),
        "gelu_tanh": (_gelu_tanh64, _gelu_tanh_mp, _gelu_tanh_b, _gelu_tanh_s, None),
        "silu": (_silu64, _silu_mp, _silu_b, _silu_s, None),
        "quick_gelu": (_quick_gelu64, _quick_gelu_mp, _quick_gelu_b, _quick_gelu_s, None),
        "relu2": (_relu2_64, _relu2_mp, _relu2_b, _relu2_s, _relu2_q),
        "sigmoid": (_sigmoid64, _sigmoid_mp, _sigmoid_b, _sigmoid_s, None),
        "identity": (_identity64, _identity_mp, _identity_b, _identity_s, _identity_q),
    }[base]
    return Activation(name, role, formula, *forms, **props)


_ODD = dict(odd_part_identity=True, flip_symmetry=False)
_ZERO_SMOOTH = dict(value_at_0=Fraction(0), continuous_at_0=True)

CATALOG: dict[str, Activation] = {
    a.name: a
    for a in [
        _entry("relu", "activation", "max(z, 0)", "relu", homogeneity_degree=1,
               differentiable_at_0=False, **_ODD, **_ZERO_SMOOTH),
        _entry("gelu", "activation", "z * Phi(z) = (z/2)(1 + erf(z/sqrt 2))", "gelu",
               homogeneity_degree=None, differentiable_at_0=True, **_ODD, **_ZERO_SMOOTH),
        _entry("gelu_tanh", "activation",
               "(z/2)(1 + tanh(sqrt(2/pi)(z + 0.044715 z^3)))", "gelu_tanh",
               homogeneity_degree=None, differentiable_at_0=True, **_ODD, **_ZERO_SMOOTH),
        _entry("silu", "activation", "z / (1 + exp(-z))", "silu",
               homogeneity_degree=None, differentiable_at_0=True, **_ODD, **_ZERO_SMOOTH),
        # CLIP's activation; quick_gelu(z) = silu(k z) / k with k = 1.702 = 851/500, so it has
        # s(z) - s(-z) = z, and s(t z + c)/t = silu(k t z + k c)/(k t) -> relu(z) by silu's limit
        _entry("quick_gelu", "activation", "z * sigmoid(1.702 z) = silu(1.702 z) / 1.702", "quick_gelu",
               homogeneity_degree=None, differentiable_at_0=True, **_ODD, **_ZERO_SMOOTH),
        _entry("relu2", "activation", "max(z, 0)^2", "relu2", homogeneity_degree=2,
               odd_part_identity=False, flip_symmetry=False, differentiable_at_0=True,
               **_ZERO_SMOOTH),
        _entry("reglu", "gate", "g = relu", "relu", homogeneity_degree=1,
               differentiable_at_0=False, **_ODD, **_ZERO_SMOOTH),
        _entry("swiglu", "gate", "g = silu", "silu", homogeneity_degree=None,
               differentiable_at_0=True, **_ODD, **_ZERO_SMOOTH),
        _entry("geglu", "gate", "g = gelu (erf form)", "gelu", homogeneity_degree=None,
               differentiable_at_0=True, **_ODD, **_ZERO_SMOOTH),
        _entry("geglu_tanh", "gate", "g = gelu (tanh form)", "gelu_tanh",
               homogeneity_degree=None, differentiable_at_0=True, **_ODD, **_ZERO_SMOOTH),
        _entry("glu", "gate", "g = sigmoid = 1/(1 + exp(-z))", "sigmoid",
               homogeneity_degree=None, odd_part_identity=False, flip_symmetry=True,
               value_at_0=Fraction(1, 2), continuous_at_0=True, differentiable_at_0=True),
        _entry("bilinear", "gate", "g(z) = z", "identity", homogeneity_degree=1,
               odd_part_identity=False, flip_symmetry=False, differentiable_at_0=True,
               **_ZERO_SMOOTH),
    ]
}


def get(name: str) -> Activation:
    """Look up a catalog entry, raising InputError with the known names if it is absent."""
    try:
        return CATALOG[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(CATALOG))
        raise InputError(f"unknown activation {name!r}; known: {known}") from None


# ---------------------------------------------------------------- property checks

@dataclass
class PropertyCheck:
    """The outcome of re-deriving one declared property."""

    prop: str
    declared: Any
    holds: bool  # does the declaration agree with what was derived?
    method: str
    detail: str = ""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"property": self.prop, "declared": self.declared, "verified": self.holds,
                "method": self.method, "detail": self.detail}


_DIGITS = 60
_SAMPLES = [Fraction(n, 8) for n in range(-80, 81) if n != 0] + [
    Fraction(1, 1000), Fraction(-3, 1000), Fraction(37, 3), Fraction(-41, 7)]


def _is_zero_symbolic(expr: sympy.Expr) -> bool:
    """True only when sympy proves expr == 0 (False means 'not proved', not 'nonzero')."""
    try:
        return sympy.simplify(expr) == 0
    except Exception:  # sympy can raise on hard expressions; treat as undecided
        return False


def _numeric(f: Callable[[sympy.Expr], sympy.Expr], z: Fraction) -> mpmath.mpf:
    """f at rational z evaluated with sympy to _DIGITS significant digits."""
    with mpmath.workdps(_DIGITS + 10):
        return mpmath.mpf(sympy.N(f(sympy.Rational(z.numerator, z.denominator)), _DIGITS + 10))


def _tolerance() -> mpmath.mpf:
    return mpmath.mpf(10) ** (-(_DIGITS - 10))


def _check_identity(f: Callable[[sympy.Expr], sympy.Expr], lhs: Callable, declared: bool,
                    prop: str) -> PropertyCheck:
    """Check a pointwise identity lhs(f, z) == 0 for all real z; lhs builds a sympy expression."""
    p = sympy.Symbol("p", positive=True)
    # Split z into z = p > 0 and z = -p so that Max/Piecewise forms evaluate symbolically.
    proved = all(_is_zero_symbolic(lhs(f, s)) for s in (p, -p)) and _is_zero_symbolic(
        lhs(f, sympy.Integer(0)))
    if proved:
        return PropertyCheck(prop, declared, declared is True, "sympy (z > 0, z < 0, z = 0)")
    worst, where = mpmath.mpf(0), None
    for z in _SAMPLES:
        with mpmath.workdps(_DIGITS + 10):
            v = abs(mpmath.mpf(sympy.N(lhs(f, sympy.Rational(z.numerator, z.denominator)),
                                       _DIGITS + 10)))
        if v > worst:
            worst, where = v, z
    holds_numerically = worst < _tolerance()
    detail = f"max |residual| = {mpmath.nstr(worst, 5)} at z = {where}" if where is not None \
        else "residual 0 at every sample"
    if not holds_numerically:
        # A residual far above the working precision is a genuine counterexample.
        return PropertyCheck(prop, declared, declared is False,
                             f"counterexample at {_DIGITS} digits", detail)
    return PropertyCheck(prop, declared, declared is True,
                         f"numeric, {len(_SAMPLES)} points at {_DIGITS} digits", detail)


def _check_homogeneity(a: Activation) -> PropertyCheck:
    k = a.homogeneity_degree
    if k is not None:
        t, p = sympy.Symbol("t", positive=True), sympy.Symbol("p", positive=True)
        ok = all(_is_zero_symbolic(a.sym(t * s) - t**k * a.sym(s)) for s in (p, -p))
        return PropertyCheck("homogeneity_degree", k, ok,
                             "sympy: f(t z) - t^k f(z) == 0 for t > 0, z = +-p")
    # Declared not homogeneous: if f were homogeneous of some degree k, then
    # f(2z)/f(z) = 2^k would be the same at every z with f(z) != 0.
    ratios = []
    for z in (Fraction(1), Fraction(-1), Fraction(1, 3), Fraction(5, 2)):
        fz = _numeric(a.sym, z)
        if abs(fz) > _tolerance():
            ratios.append(_numeric(a.sym, 2 * z) / fz)
    spread = max(ratios) - min(ratios) if ratios else mpmath.mpf(0)
    ok = spread > _tolerance()
    return PropertyCheck("homogeneity_degree", None, ok,
                         f"f(2z)/f(z) not constant at {_DIGITS} digits",
                         f"ratio spread {mpmath.nstr(spread, 5)}")


def _check_value_at_0(a: Activation) -> PropertyCheck:
    v = sympy.nsimplify(a.sym(sympy.Integer(0)))
    ok = v == sympy.Rational(a.value_at_0.numerator, a.value_at_0.denominator)
    return PropertyCheck("value_at_0", str(a.value_at_0), ok, "sympy exact", f"f(0) = {v}")


def _one_sided_limits(expr: sympy.Expr, h: sympy.Symbol) -> tuple[Any, Any]:
    return sympy.limit(expr, h, 0, "+"), sympy.limit(expr, h, 0, "-")


def _check_continuity(a: Activation) -> PropertyCheck:
    h = sympy.Symbol("h", real=True)
    f0 = a.sym(sympy.Integer(0))
    lp, lm = _one_sided_limits(a.sym(h), h)
    ok = (sympy.simplify(lp - f0) == 0 and sympy.simplify(lm - f0) == 0) == a.continuous_at_0
    return PropertyCheck("continuous_at_0", a.continuous_at_0, ok, "sympy one-sided limits",
                         f"limits {lp}, {lm}; f(0) = {f0}")


def _check_differentiability(a: Activation) -> PropertyCheck:
    h = sympy.Symbol("h", real=True)
    f0 = a.sym(sympy.Integer(0))
    lp, lm = _one_sided_limits((a.sym(h) - f0) / h, h)
    derivable = lp.is_finite and lm.is_finite and sympy.simplify(lp - lm) == 0
    ok = bool(derivable) == a.differentiable_at_0
    return PropertyCheck("differentiable_at_0", a.differentiable_at_0, ok,
                         "sympy one-sided difference quotients", f"limits {lp}, {lm}")


def check_properties(a: Activation) -> list[PropertyCheck]:
    """Re-derive every declared property of a catalog entry; each result says if it agrees."""
    return [check_property(a, prop) for prop in _CHECKS]


_CHECKS: dict[str, Callable[[Activation], PropertyCheck]] = {
    "homogeneity_degree": lambda a: _check_homogeneity(a),
    "odd_part_identity": lambda a: _check_identity(a.sym, lambda f, z: f(z) - f(-z) - z,
                                                   a.odd_part_identity, "odd_part_identity"),
    "flip_symmetry": lambda a: _check_identity(a.sym, lambda f, z: f(z) + f(-z) - 1, a.flip_symmetry,
                                               "flip_symmetry"),
    "value_at_0": lambda a: _check_value_at_0(a),
    "continuous_at_0": lambda a: _check_continuity(a),
    "differentiable_at_0": lambda a: _check_differentiability(a),
}


def check_property(a: Activation, prop: str) -> PropertyCheck:
    """Re-derive one declared property (the names of check_properties' results)."""
    if prop not in _CHECKS:
        raise KeyError(f"no check for property {prop!r}")
    return _CHECKS[prop](a)


def catalog_report() -> list[dict[str, Any]]:
    """Every catalog entry with its declared and re-derived properties."""
    out = []
    for a in CATALOG.values():
        checks = check_properties(a)
        out.append({
            "name": a.name, "role": a.role, "formula": a.formula,
            "exact_form": a.exact is not None, "declared": a.declared(),
            "checks": [c.as_dict() for c in checks],
            "all_verified": all(c.holds for c in checks),
        })
    return out
