"""The activation and gate catalog, with every form the oracle needs.

Each entry evaluates in four ways:
  * ``f64``   -- vectorised float64 (numpy / scipy.special);
  * ``mp``    -- mpmath at the caller's working precision (the reference);
  * ``exact`` -- Fraction -> Fraction, only for piecewise-polynomial entries;
  * ``ball``  -- python-flint ``arb`` balls: rigorous enclosures (Arb's error bounds).
The gelu family's entries also carry ``slopes``: s with its derivative s' (balls, float64) and s
on arb power series, for the Jacobian rank certificate of depth-analytic.

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
from scipy import special

from oracle.core import arith
from oracle.core.errors import InputError
from oracle.core.rational import arb, arb_series, fmpq


class _LazySympy:
    """sympy, imported on first use: only the symbolic re-derivations of the catalog's properties
    need it, and importing it costs about half a second that most commands never use."""

    def __getattr__(self, name: str) -> Any:
        return getattr(importlib.import_module("sympy"), name)


sympy: Any = _LazySympy()

# The cubic coefficient of the tanh form of GELU, as an exact decimal and as an exact rational.
_GELU_TANH_C = "0.044715"
_GELU_TANH_Q = fmpq(44715, 10**6)
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


# ---------------------------------------------------------------- slopes: s and s' together
# The Jacobian rank certificate of depth-analytic (oracle/algebra/stacks/analytic.py) needs the
# derivative s' beside s, in three forms: arb balls (the certified Jacobian), float64 (only to
# choose its rows) and s alone on a length-2 arb power series written from erf and exp (Arb then
# differentiates; the certificate's independent derivative check shares no slope formula with the
# balls).  With Phi = (1 + erf(z / sqrt 2)) / 2, phi = exp(-z^2 / 2) / sqrt(2 pi), q = 1/(1 + e^-z)
# and t = tanh(c (z + a z^3)), c = sqrt(2/pi), a = 0.044715:
#   gelu' = Phi + z phi,   silu' = q + z q (1 - q),
#   gelu_tanh' = (1 + t)/2 + (z/2)(1 - t^2) c (1 + 3 a z^2).


@dataclass(frozen=True)
class Slopes:
    """s with its derivative, in the three forms the rank certificate of depth-analytic uses."""

    ball: Callable[[arb], tuple[arb, arb]]          # balls containing s(z) and s'(z)
    f64: Callable[[float], tuple[float, float]]     # s(z), s'(z) in float64 (choosing rows only)
    series: Callable[[arb_series], arb_series]      # s on a power series, from erf and exp alone


def _gelu_slope_b(z: arb) -> tuple[arb, arb]:
    Phi = (1 + (z / arb(2).sqrt()).erf()) / 2
    phi = (-(z * z) / 2).exp() / (2 * arb.pi()).sqrt()
    return z * Phi, Phi + z * phi


def _silu_slope_b(z: arb) -> tuple[arb, arb]:
    q = 1 / (1 + (-z).exp())
    return z * q, q + z * q * (1 - q)


def _gelu_tanh_slope_b(z: arb) -> tuple[arb, arb]:
    c = (arb(2) / arb.pi()).sqrt()
    a = arb(_GELU_TANH_Q)
    t = (c * (z + a * z * z * z)).tanh()  # z*z*z: arb's power of a ball around 0 is nan
    return z / 2 * (1 + t), (1 + t) / 2 + z / 2 * (1 - t * t) * c * (1 + 3 * a * z * z)


def _gelu_slope64(z: float) -> tuple[float, float]:
    Phi = (1 + math.erf(z / math.sqrt(2))) / 2
    return z * Phi, Phi + z * math.exp(-z * z / 2) / math.sqrt(2 * math.pi)


def _silu_slope64(z: float) -> tuple[float, float]:
    q = 1 / (1 + math.exp(-z)) if z > -700 else 0.0
    return z * q, q + z * q * (1 - q)


def _gelu_tanh_slope64(z: float) -> tuple[float, float]:
    c, a = math.sqrt(2 / math.pi), 0.044715
    t = math.tanh(c * (z + a * z ** 3))
    return z / 2 * (1 + t), (1 + t) / 2 + z / 2 * (1 - t * t) * c * (1 + 3 * a * z * z)


def _gelu_series(z: arb_series) -> arb_series:
    return z * (1 + (z * (1 / arb(2).sqrt())).erf()) / 2


def _silu_series(z: arb_series) -> arb_series:
    return z / (1 + (-z).exp())


def _gelu_tanh_series(z: arb_series) -> arb_series:
    c = (arb(2) / arb.pi()).sqrt()
    u = c * (z + arb(_GELU_TANH_Q) * z * z * z)
    return z * (1 + (1 - 2 / ((2 * u).exp() + 1))) / 2  # tanh u = 1 - 2 / (e^{2u} + 1)


_SLOPES = {
    "gelu": Slopes(_gelu_slope_b, _gelu_slope64, _gelu_series),
    "gelu_tanh": Slopes(_gelu_tanh_slope_b, _gelu_tanh_slope64, _gelu_tanh_series),
    "silu": Slopes(_silu_slope_b, _silu_slope64, _silu_series),
}


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
    square_flip: bool  # f(z) + f(-z) == z^2 for all z (flipping a unit removes a square)
    relu_limit: bool  # f(t z + c)/t -> relu(z) as t -> +inf, for all real z and c
    value_at_0: Fraction
    continuous_at_0: bool
    differentiable_at_0: bool
    # s' beside s (of g for a gate), where the catalog has it: depth-analytic's Jacobian needs it
    slopes: Optional[Slopes] = None

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
            "square_flip": self.square_flip,
            "relu_limit": self.relu_limit,
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
    return Activation(name, role, formula, *forms, slopes=_SLOPES.get(base), **props)


# s(z) - s(-z) = z and s(t z + c)/t -> relu(z): relu and its smooth relatives
_ODD = dict(odd_part_identity=True, flip_symmetry=False, square_flip=False, relu_limit=True)
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
               odd_part_identity=False, flip_symmetry=False, square_flip=True, relu_limit=False,
               differentiable_at_0=True, **_ZERO_SMOOTH),
        _entry("reglu", "gate", "g = relu", "relu", homogeneity_degree=1,
               differentiable_at_0=False, **_ODD, **_ZERO_SMOOTH),
        _entry("swiglu", "gate", "g = silu", "silu", homogeneity_degree=None,
               differentiable_at_0=True, **_ODD, **_ZERO_SMOOTH),
        _entry("geglu", "gate", "g = gelu (erf form)", "gelu", homogeneity_degree=None,
               differentiable_at_0=True, **_ODD, **_ZERO_SMOOTH),
        _entry("geglu_tanh", "gate", "g = gelu (tanh form)", "gelu_tanh",
               homogeneity_degree=None, differentiable_at_0=True, **_ODD, **_ZERO_SMOOTH),
        _entry("glu", "gate", "g = sigmoid = 1/(1 + exp(-z))", "sigmoid",
               homogeneity_degree=None, odd_part_identity=False, flip_symmetry=True, square_flip=False,
               relu_limit=False, value_at_0=Fraction(1, 2), continuous_at_0=True, differentiable_at_0=True),
        _entry("bilinear", "gate", "g(z) = z", "identity", homogeneity_degree=1,
               odd_part_identity=False, flip_symmetry=False, square_flip=False, relu_limit=False,
               differentiable_at_0=True, **_ZERO_SMOOTH),
    ]
}


def get(name: str) -> Activation:
    """Look up a catalog entry, raising InputError with the known names if it is absent."""
    try:
        return CATALOG[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(CATALOG))
        raise InputError(f"unknown activation {name!r}; known: {known}") from None


# ---------------------------------------------------------------- families
# Two kinds of family, both in catalog order (so samples and reports are reproducible):
#  * families by declared property: computed from the declarations above, so a new catalog entry
#    joins every family whose properties it declares (and check_properties re-derives them);
#  * families by what a proof covers: a theorem proved for named activations (a Coq lemma about a
#    defined function, an informal lemma proved case by case).  A new entry joins these only with
#    its proof; each is a subset of the property family it refines (tests/test_activations.py
#    checks that, and that the Coq lemmas named below exist).


def members(test: Callable[[Activation], bool]) -> tuple[str, ...]:
    """The names of the catalog entries passing ``test``, in catalog order."""
    return tuple(n for n, a in CATALOG.items() if test(a))


FAMILY_DOCS: dict[str, str] = {}


def _family(name: str, names: tuple[str, ...], doc: str) -> tuple[str, ...]:
    """Register a family's description (``absorb activations`` prints it) and return its members."""
    FAMILY_DOCS[name] = " ".join(doc.split())
    return names


ODD_PART = _family("ODD_PART", members(lambda a: not a.gated and a.odd_part_identity), """
    Ungated s with s(z) - s(-z) = z: the sign flip of relu-gelu-iff and relu-limit (A) applies.""")

RELU_LIMIT = _family(
    "RELU_LIMIT", members(lambda a: not a.gated and a.odd_part_identity and a.relu_limit), """
    Ungated s with s(z) - s(-z) = z and s(t z + c)/t -> relu(z), both hypotheses of relu-limit,
    whose Coq theorem Limit.relu_limit_iff takes them as binders and so covers every member.""")

SQUARE_FLIP = _family("SQUARE_FLIP", members(lambda a: not a.gated and a.square_flip), """
    Ungated s with s(z) + s(-z) = z^2: flipping a unit removes w (u.x + b)^2 (relu2-biased (A),
    Coq BiasedFlip.biased_square_flip).""")

ODD_GATES = _family("ODD_GATES", members(lambda a: a.gated and a.odd_part_identity), """
    Gates with g(z) - g(-z) = z: flipping a gate row removes w (a.x + c)(u.x + e) (gated-biased
    (A)).""")

FLIP_GATES = _family("FLIP_GATES", members(lambda a: a.gated and a.flip_symmetry), """
    Gates with g(z) + g(-z) = 1 (the sigmoid): flipping a gate row and its output column removes
    w (u.x + e) (glu-flip, gated-biased (A)).""")

BIASED_FLIP = _family(
    "BIASED_FLIP", members(lambda a: a.name in SQUARE_FLIP + ODD_GATES + FLIP_GATES), """
    The three above: biased blocks have flip sets (part (A) of relu2-biased and gated-biased).""")

ZERO_GATES = _family(
    "ZERO_GATES", members(lambda a: a.gated and a.value_at_0 == 0 and a.continuous_at_0), """
    Gates with g(0) = 0, continuous at 0: bias-free blocks are o(|x|) at 0 (gated-continuity).""")

SMOOTH_ZERO_GATES = _family(
    "SMOOTH_ZERO_GATES", members(lambda a: a.gated and a.value_at_0 == 0 and a.differentiable_at_0
                                 and a.block_degree is None), """
    Gates with g(0) = 0, differentiable at 0 and not homogeneous: the gates of gated-impossible
    that the homogeneous claims do not already cover.""")

BLOCK_DEGREE_2 = _family("BLOCK_DEGREE_2", members(lambda a: a.block_degree == 2), """
    Bias-free blocks positively homogeneous of degree 2: the kinds homogeneous-any-width samples.""")

FLAT_AT_0 = _family(
    "FLAT_AT_0", members(lambda a: (a.block_degree is not None and a.block_degree > 1)
                         or (a.gated and a.value_at_0 == 0 and a.continuous_at_0)), """
    Bias-free blocks that vanish at 0 and are o(|x|) there: homogeneous of block degree > 1, or a
    gate with g(0) = 0 continuous at 0 (depth-impossible and depth-any; the flatness test of
    oracle/algebra/stacks/layers.py re-derives it per block).""")

HOMOGENEOUS = _family("HOMOGENEOUS", members(lambda a: a.homogeneity_degree is not None), """
    Positively homogeneous s or g: units whose (row, bias) lie on one line through 0 share a kink
    hyperplane, whatever their sign (for the others only rows equal up to sign share a class).""")

COQ_ODD_PART = _family("COQ_ODD_PART", ("relu", "gelu", "gelu_tanh", "silu"), """
    What the Coq proofs cover of ODD_PART: the functions proofs/coq/RealActivations.v defines,
    with s(z) - s(-z) = z proved there (RealActivations.<name>_odd_part) and the sign flip in
    Activations.<name>_sign_flip; the activations relu-gelu-iff and absorption-width name.
    quick_gelu has the identity (re-derived by the catalog) but no Coq definition.""")

COQ_RELU_LIMIT = _family("COQ_RELU_LIMIT", ("relu", "gelu", "gelu_tanh", "silu"), """
    What the Coq proofs cover of RELU_LIMIT: the relu limit proved for the defined function
    (RealActivations.<name>_limit_relu); the activations relu-limit names and its oracle samples.""")

LEMMA_T = _family("LEMMA_T", ("gelu", "gelu_tanh", "silu"), """
    What Lemma T of proofs/informal/relu-limit.md covers of RELU_LIMIT: for these s the functions
    s(v.x + b) of distinct +-(v, b) classes are independent modulo affine maps, so the canonical
    forms of oracle/algebra/canonical.py decide equality of their blocks.  (relu has its own kink
    lemma; quick_gelu(z) = silu(1.702 z)/1.702 would follow from silu's case by rescaling, which
    the proof does not write out.)""")

WITH_SLOPES = _family("WITH_SLOPES", members(lambda a: not a.gated and a.slopes is not None), """
    Ungated s whose entry carries s' beside s (balls, float64, power series): the activations
    whose stacks' Jacobians the catalog can enclose.""")

DEPTH_ANALYTIC = _family("DEPTH_ANALYTIC", ("gelu", "gelu_tanh", "silu"), """
    What depth-analytic's proof covers of WITH_SLOPES (proofs/informal/depth-analytic.md): s
    real-analytic and not a polynomial, and p s + q z s' a polynomial only if p = q = 0, shown
    for each of these; its rank certificate (oracle/algebra/stacks/analytic.py) takes s and s'
    from the catalog.  (quick_gelu has no slopes entry and is not covered.)""")

NECESSITY_PROVED = _family("NECESSITY_PROVED", ("relu", "gelu"), """
    What relu-gelu-iff's converse covers (no index set => not absorbable): Coq Necessity.relu_iff
    and Limit.gelu_iff.""")

BIASED_FLIP_NECESSITY = _family(
    "BIASED_FLIP_NECESSITY", ("relu2", "reglu", "swiglu", "geglu", "geglu_tanh", "glu"), """
    What part (B) covers of BIASED_FLIP (no flip set => not absorbable, for nondegenerate blocks):
    relu2 (proofs/informal/relu2-biased.md) and the gates relu, silu, gelu, gelu_tanh and the
    sigmoid, whose gate classes are identifiable (proofs/informal/gated-biased.md).""")


def families() -> list[tuple[str, tuple[str, ...], str]]:
    """Every family: (name, members, description)."""
    return [(name, globals()[name], doc) for name, doc in FAMILY_DOCS.items()]


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


# |s - relu| is enclosed on [-_LIMIT_TOP, _LIMIT_TOP] in balls of width 1/_LIMIT_PIECES and sampled
# beyond at 60 digits; a declared relu limit needs the bound RELU_GAP_BOUND everywhere.
_LIMIT_TOP = 64
_LIMIT_PIECES = 32
RELU_GAP_BOUND = Fraction(1, 2)
_LIMIT_TAILS = [Fraction(sgn * 10 ** k) for k in range(2, 31, 2) for sgn in (1, -1)]
_LIMIT_RAYS = [(Fraction(z), Fraction(c)) for z in (1, -1, 3) for c in (0, 2)]


def relu_gap_enclosure(a: Activation, top: int = _LIMIT_TOP, pieces_per_unit: int = _LIMIT_PIECES,
                       lower: Optional[int] = None) -> tuple[float, bool]:
    """An upper bound of |s(y) - relu(y)| for y in [lower, top] (lower = -top by default) from arb
    balls of width 1/pieces_per_unit (rigorous), and whether it is at most RELU_GAP_BOUND."""
    lo = -top if lower is None else lower
    n = (top - lo) * pieces_per_unit
    half = 1.0 / (2 * pieces_per_unit)  # a power of two: the balls' centres and radii are exact
    worst, ok = 0.0, True
    with arith.precision("ball", 128):
        bound = arb(RELU_GAP_BOUND.numerator) / RELU_GAP_BOUND.denominator  # exact: a dyadic
        for k in range(n):
            Y = arb(lo + (2 * k + 1) * half, half)
            r = abs(a.ball(Y) - Y.max(arb(0))).upper()
            worst = max(worst, float(r))
            ok = ok and bool(r <= bound)
    return worst, ok


def _check_relu_limit(a: Activation) -> PropertyCheck:
    """s(t z + c)/t -> relu(z).  Declared: |s - relu| <= 1/2 on [-64, 64] by arb balls and at
    |y| = 10^2 .. 10^30 at 60 digits, so |s(t z + c)/t - relu(z)| <= (1/2 + |c|)/t.  Declared
    not: |s(t z + c)/t - relu(z)| stays large at t = 10^6 and 10^12 on some ray (60 digits)."""
    prop = "relu_limit"
    if a.relu_limit:
        worst, inside = relu_gap_enclosure(a)
        tail = mpmath.mpf(0)
        with mpmath.workdps(_DIGITS + 10):
            for y in _LIMIT_TAILS:
                relu_y = mpmath.mpf(max(y, Fraction(0)).numerator)  # y is an integer here
                tail = max(tail, abs(_numeric(a.sym, y) - relu_y))
        ok = inside and tail <= mpmath.mpf(RELU_GAP_BOUND.numerator) / RELU_GAP_BOUND.denominator
        return PropertyCheck(prop, True, bool(ok),
                             f"|s - relu| <= 1/2: arb balls on [-{_LIMIT_TOP}, {_LIMIT_TOP}], "
                             f"{_DIGITS} digits at |y| = 1e2..1e30 (numeric beyond 64)",
                             f"enclosed max {worst:.3g}; tail max {mpmath.nstr(tail, 5)}")
    found = None
    with mpmath.workdps(_DIGITS + 10):
        for z, c in _LIMIT_RAYS:
            gaps = []
            for t in (10 ** 6, 10 ** 12):
                relu_z = mpmath.mpf(max(z, Fraction(0)).numerator)  # z is an integer here
                gaps.append(abs(_numeric(a.sym, t * z + c) / t - relu_z))
            if gaps[1] > mpmath.mpf(1) / 100 and gaps[1] >= gaps[0] / 2:
                found = (z, c, gaps[1])
                break
    if found is None:
        return PropertyCheck(prop, False, False, f"no counterexample at {_DIGITS} digits",
                             "s(t z + c)/t approaches relu(z) on every sampled ray")
    z, c, gap = found
    return PropertyCheck(prop, False, True, f"counterexample at {_DIGITS} digits",
                         f"|s(t z + c)/t - relu(z)| = {mpmath.nstr(gap, 5)} at t = 1e12, z = {z}, c = {c}")


def check_properties(a: Activation) -> list[PropertyCheck]:
    """Re-derive every declared property of a catalog entry; each result says if it agrees."""
    return [check_property(a, prop) for prop in _CHECKS]


_CHECKS: dict[str, Callable[[Activation], PropertyCheck]] = {
    "homogeneity_degree": lambda a: _check_homogeneity(a),
    "odd_part_identity": lambda a: _check_identity(a.sym, lambda f, z: f(z) - f(-z) - z,
                                                   a.odd_part_identity, "odd_part_identity"),
    "flip_symmetry": lambda a: _check_identity(a.sym, lambda f, z: f(z) + f(-z) - 1, a.flip_symmetry,
                                               "flip_symmetry"),
    "square_flip": lambda a: _check_identity(a.sym, lambda f, z: f(z) + f(-z) - z**2, a.square_flip,
                                             "square_flip"),
    "relu_limit": lambda a: _check_relu_limit(a),
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
