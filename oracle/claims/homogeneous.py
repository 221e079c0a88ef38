"""Claims homogeneous-impossible (Prop. 5) and homogeneous-any-width.

Let B, B' be positively homogeneous of degree k (bias-free relu2, reglu, bilinear blocks:
k = 2), F(x) = M x + B(x) and e = F - B'. Then, for every x and s > 0,

    e(s x) - s^k e(x) = (s - s^k) M x,

because the degree-k parts cancel. With s = 2 and M x != 0 the right side is nonzero, so
e(x) or e(2x) is nonzero: an exact witness that F != B'. Nothing here uses the widths.

Quantitative form (any width): from the same identity and the triangle inequality,
max(|e(v)|, |e(s v)|) >= ((s - s^k)/(1 + s^k)) |M v| for 0 < s < 1; for k = 2 and a rational s
near sqrt 2 - 1 the factor is a rational lower bound of (sqrt 2 - 1)/2 within 1e-6.
Both sides are compared through exact squared Euclidean norms.

The general-k constant c_k = max_{0<s<1} |s - s^k|/(1 + s^k) (absolute value: for k < 1 the
difference s - s^k is negative, see the informal proof's correction) is computed with mpmath
for k = 2, 3, 1/2 and compared with its closed form; for k = 3 the inequality is also checked
exactly on degree-3 maps x -> W_down relu(W_up x)^3 built from the instance's weights.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

import mpmath
import numpy as np
from scipy import optimize
from hypothesis import strategies as st

from oracle.core import activations
from oracle.core.blocks import Block
from oracle.core.strategies import optional_vector, residual_and_candidate
from oracle.claims.base import Certificate, oracle_check
from oracle.algebra.exact import (
    has_nonzero_skip, block_from_json, block_to_json, is_zero_matrix, matvec_q, property_is_proved,
    recheck_variant, safe_recheck, skip_matrix
)
from oracle.core.rational import q_str, qmat, qvec, svec
from oracle.claims.gated import refuse_forgeries

CLAIM_SAME = "homogeneous-impossible"
CLAIM_ANY_WIDTH = "homogeneous-any-width"

# A rational close to sqrt 2 - 1 (from the convergent 577/408 of sqrt 2).
S_NEAR_SQRT2_M1 = Fraction(169, 408)
TOLERANCE = Fraction(1, 10**6)


@dataclass
class HomogeneousInstance:
    """A residual block F, a candidate plain block B', and optionally a point to use."""

    residual: Block
    plain: Block
    point: Optional[list[Fraction]] = None


# ================================================================ exact pieces

def sqnorm(v: list[Fraction]) -> Fraction:
    """Exact squared Euclidean norm."""
    return sum((x * x for x in v), Fraction(0))


def error_map(F: Block, P: Block, x: list[Fraction]) -> list[Fraction]:
    """e(x) = F(x) - P(x) in exact rationals."""
    return [Fraction(a) - Fraction(b) for a, b in zip(F.evaluate(x, "exact"), P.evaluate(x, "exact"))]


def scaling_identity(F: Block, P: Block, x: list[Fraction], k: int,
                     s: Fraction = Fraction(2)) -> dict[str, Any]:
    """Evaluate e(s x) - s^k e(x) and (s - s^k) M x exactly; 'holds' says if they agree."""
    M = skip_matrix(F)
    ex = error_map(F, P, x)
    esx = error_map(F, P, [s * v for v in x])
    lhs = [b - s**k * a for a, b in zip(ex, esx)]
    Mx = matvec_q(M, x)
    rhs = [(s - s**k) * v for v in Mx]
    return {"x": svec(x), "s": q_str(s), "k": k, "Mx": svec(Mx), "e_x": svec(ex),
            "e_sx": svec(esx), "lhs": svec(lhs), "rhs": svec(rhs), "holds": lhs == rhs}


def relu_power(W_up: np.ndarray, W_down: np.ndarray, x: list[Fraction], k: int) -> list[Fraction]:
    """x -> W_down relu(W_up x)^k exactly: a positively homogeneous map of integer degree k."""
    up = matvec_q(qmat(W_up), x)
    hidden = [max(u, Fraction(0)) ** k for u in up]
    return matvec_q(qmat(W_down), hidden)


def ratio(s: Fraction, k: int) -> Fraction:
    """(s - s^k)/(1 + s^k) for integer k, exactly."""
    return (s - s**k) / (1 + s**k)


def sqrt2_constant_bounds(c: Fraction) -> dict[str, bool]:
    """Exact checks that c <= (sqrt 2 - 1)/2 and (sqrt 2 - 1)/2 - c < 1e-6."""
    # c <= (sqrt2 - 1)/2  <=>  2c + 1 <= sqrt2  <=>  (2c + 1)^2 <= 2 (both sides positive).
    below = 2 * c + 1 > 0 and (2 * c + 1) ** 2 <= 2
    # (sqrt2 - 1)/2 < c + tol  <=>  sqrt2 < 2(c + tol) + 1  <=>  2 < (2(c + tol) + 1)^2.
    close = (2 * (c + TOLERANCE) + 1) ** 2 > 2
    return {"lower_bound": below, "within_1e-6": close}


def half_constant_bounds(r: Fraction) -> dict[str, Any]:
    """k = 1/2 with s = r^2: |s - s^k|/(1 + s^k) = (r - r^2)/(1 + r) against 3 - 2 sqrt 2, exactly."""
    c = (r - r * r) / (1 + r)
    # c <= 3 - 2 sqrt2  <=>  2 sqrt2 <= 3 - c  <=>  8 <= (3 - c)^2 (3 - c > 0).
    below = 3 - c > 0 and (3 - c) ** 2 >= 8
    close = 3 - c - TOLERANCE > 0 and (3 - c - TOLERANCE) ** 2 < 8
    return {"s": q_str(r * r), "value": q_str(c), "lower_bound": below, "within_1e-6": close}


@functools.lru_cache(maxsize=None)
def numeric_constant(k_num: int, k_den: int) -> tuple[str, str]:
    """c_k = max_{0<s<1} |s - s^k|/(1 + s^k) by mpmath (40 digits): (maximiser, value)."""
    with mpmath.workdps(40):
        k = mpmath.mpf(k_num) / k_den
        f = lambda s: abs(s - s**k) / (1 + s**k)  # noqa: E731
        # A grid start, then Newton on f' (f is smooth on (0,1) since s != s^k there).
        grid = [mpmath.mpf(i) / 200 for i in range(1, 200)]
        s0 = max(grid, key=f)
        s_star = mpmath.findroot(lambda s: mpmath.diff(f, s), s0)
        return mpmath.nstr(s_star, 30), mpmath.nstr(f(s_star), 30)


def general_k_constants() -> dict[str, Any]:
    """mpmath maxima for k = 2, 3, 1/2 compared with the closed forms (numeric, 40 digits)."""
    out = {}
    with mpmath.workdps(40):
        closed = {"2": (mpmath.sqrt(2) - 1) / 2, "3": mpmath.mpf(1) / 3,
                  "1/2": 3 - 2 * mpmath.sqrt(2)}
        for key, (a, b) in {"2": (2, 1), "3": (3, 1), "1/2": (1, 2)}.items():
            s_star, val = numeric_constant(a, b)
            agree = abs(mpmath.mpf(val) - closed[key]) < mpmath.mpf(10) ** -25
            out[key] = {"maximiser": s_star, "value": val, "matches_closed_form": bool(agree)}
    return out


# ================================================================ the certificate

def _hypotheses(F: Block, P: Block) -> dict[str, Any]:
    """Exact and symbolic checks of the hypotheses on this pair (homogeneous-any-width's; the same-width
    claim adds one)."""
    kF, kP = F.act.block_degree, P.act.block_degree
    M = skip_matrix(F) if F.kind == "residual" else None
    h = {
        "residual_is_residual": F.kind == "residual",
        "candidate_is_plain": P.kind == "plain",
        "bias_free": not F.has_bias and not P.has_bias,
        "k": kF,
        "k_candidate": kP,
        "same_degree": kF is not None and kF == kP,
        "k_pos": kF is not None and kF > 0,
        "k_ne_1": kF is not None and kF != 1,
        "M_nonzero": M is not None and not is_zero_matrix(M),
        # sympy re-derivation of the scalar function's homogeneity degree (catalog check).
        "sigma_homogeneous": kF is not None and property_is_proved(F.activation, "homogeneity_degree"),
        "tau_homogeneous": kP is not None and property_is_proved(P.activation, "homogeneity_degree"),
    }
    return h


def hypotheses_same_width(F: Block, P: Block) -> dict[str, Any]:
    """homogeneous-impossible's hypotheses: the common ones and the same kind and width."""
    return {**_hypotheses(F, P), "same_kind_and_width": F.activation == P.activation and F.m == P.m}


def _choose_point(F: Block, point: Optional[list[Fraction]]) -> Optional[list[Fraction]]:
    """The given point if M x != 0 there, otherwise a basis vector with a nonzero M column."""
    M = skip_matrix(F)
    if point is not None and any(v != 0 for v in matvec_q(M, point)):
        return point
    for j in range(F.d):  # pragma: no branch M != 0 is decided before (M_nonzero), so some column of M is nonzero
        e = [Fraction(int(i == j)) for i in range(F.d)]
        if any(v != 0 for v in matvec_q(M, e)):
            return e
    return None


def _quantitative(F: Block, P: Block, v: list[Fraction]) -> dict[str, Any]:
    """The k = 2 gap bound at v and the k = 3 inequality on relu^3 maps, all exact."""
    s = S_NEAR_SQRT2_M1
    ident = scaling_identity(F, P, v, 2, s)
    c = ratio(s, 2)
    Mv = matvec_q(skip_matrix(F), v)
    big = max(sqnorm(qvec(ident["e_x"])), sqnorm(qvec(ident["e_sx"])))
    # max(|e(v)|, |e(sv)|) >= c |Mv|  <=>  max of squared norms >= c^2 |Mv|^2.
    gap = {"s": q_str(s), "constant": q_str(c), "identity": ident,
           "max_sq_norm": q_str(big), "bound_sq": q_str(c * c * sqnorm(Mv)),
           "M_is_identity": skip_matrix(F) == [[Fraction(int(i == j)) for j in range(F.d)]
                                               for i in range(F.d)],
           "holds": ident["holds"] and big >= c * c * sqnorm(Mv),
           "constant_vs_sqrt2": sqrt2_constant_bounds(c)}
    # Degree 3: e3 = M x + H3(x) - H3'(x) with H3, H3' relu-cube maps from the two blocks' weights.
    s3, M = Fraction(1, 2), skip_matrix(F)

    def e3(x: list[Fraction]) -> list[Fraction]:
        a = relu_power(F.W_up, F.W_down, x, 3)
        b = relu_power(P.W_up, P.W_down, x, 3)
        return [m + p - q for m, p, q in zip(matvec_q(M, x), a, b)]
    ev, esv = e3(v), e3([s3 * t for t in v])
    lhs = [b - s3**3 * a for a, b in zip(ev, esv)]
    rhs = [(s3 - s3**3) * t for t in Mv]
    c3 = ratio(s3, 3)
    big3 = max(sqnorm(ev), sqnorm(esv))
    cubic = {"s": q_str(s3), "constant": q_str(c3), "constant_is_one_third": c3 == Fraction(1, 3),
             "e_v": svec(ev), "e_sv": svec(esv), "identity": lhs == rhs,
             "holds": lhs == rhs and big3 >= c3 * c3 * sqnorm(Mv)}
    return {"k2": gap, "k3": cubic, "k_half": half_constant_bounds(S_NEAR_SQRT2_M1),
            "numeric_constants": general_k_constants()}


def _quantitative_holds(F: Block, P: Block, x: list[Fraction], out: dict[str, Any]) -> bool:
    """homogeneous-any-width's quantitative record into out["quantitative"], and whether it holds."""
    q = _quantitative(F, P, x)
    out["quantitative"] = q
    return q["k2"]["holds"] and all(q["k2"]["constant_vs_sqrt2"].values()) \
        and q["k3"]["holds"] and q["k3"]["constant_is_one_third"] \
        and q["k_half"]["lower_bound"] and q["k_half"]["within_1e-6"] \
        and all(c["matches_closed_form"] for c in q["numeric_constants"].values())


def _certify(data: dict[str, Any], same_width: bool) -> Certificate:
    """Recompute a homogeneous certificate from its data (used by the checks and their rechecks)."""
    claim = CLAIM_SAME if same_width else CLAIM_ANY_WIDTH
    F, P = block_from_json(data["residual"]), block_from_json(data["plain"])
    hyp = (hypotheses_same_width if same_width else _hypotheses)(F, P)
    out: dict[str, Any] = {"residual": data["residual"], "plain": data["plain"],
                           "hypotheses": hyp}
    failed = [k for k, v in hyp.items() if v is False]
    if failed:
        return Certificate(claim, False, True, "exact rationals", out,
                           "hypothesis fails: " + ", ".join(failed))
    k = hyp["k"]
    given = qvec(data["point"]) if data.get("point") is not None else None
    x = _choose_point(F, given)
    if x is None:  # pragma: no branch cannot happen when M != 0 (decided above); kept as a guard
        return Certificate(claim, False, True, "exact rationals", out, "no x with Mx != 0")
    out["point"] = svec(given) if given is not None else None
    ident = scaling_identity(F, P, x, k)
    ex, e2x = qvec(ident["e_x"]), qvec(ident["e_sx"])
    w = x if any(ex) else [2 * v for v in x]
    ew = ex if any(ex) else e2x
    out["scaling"] = ident
    out["witness"] = {"x": svec(w), "F": svec([Fraction(v) for v in F.evaluate(w, "exact")]),
                      "candidate": svec([Fraction(v) for v in P.evaluate(w, "exact")]),
                      "difference": svec(ew), "differs": any(ew)}
    ok = ident["holds"] and any(v != 0 for v in qvec(ident["Mx"])) and any(ew)
    ok = ok and (same_width or _quantitative_holds(F, P, x, out))
    reason = (f"e(2x) - 2^{k} e(x) = (2 - 2^{k}) M x != 0 exactly, so F != B' at the witness"
              if ok else "the scaling certificate did not verify")
    return Certificate(claim, ok, ok, "exact rationals (mpmath only for the reported c_k values)",
                       out, reason)


def _instance_data(instance: Any) -> dict[str, Any]:
    if isinstance(instance, tuple):
        instance = HomogeneousInstance(*instance)
    return {"residual": block_to_json(instance.residual), "plain": block_to_json(instance.plain),
            "point": svec(instance.point) if instance.point is not None else None}


def _recheck(cert: dict[str, Any], same_width: bool) -> bool:
    claim = CLAIM_SAME if same_width else CLAIM_ANY_WIDTH
    if cert.get("claim") != claim or not cert.get("holds"):
        return False
    data = cert["data"]
    again = _certify({"residual": data["residual"], "plain": data["plain"],
                      "point": data.get("point")}, same_width)
    keys = ["hypotheses", "scaling", "witness"] + ([] if same_width else ["quantitative"])
    return again.holds and again.exact == cert["exact"] and \
        all(again.data[k] == data[k] for k in keys)


recheck_same_width = recheck_variant(_recheck, True, "recheck_same_width",
                                     "Re-derive a homogeneous-impossible certificate from its JSON alone.")
recheck_any_width = recheck_variant(_recheck, False, "recheck_any_width",
                                    "Re-derive a homogeneous-any-width certificate from its JSON alone.")


# ================================================================ trying to break it

BREAK_STARTS = 2  # least-squares fits from this many random starts per instance
BREAK_POINTS = 32


def break_attempt(F: Block, P: Block, x: list[Fraction], seed: int = 0) -> dict[str, Any]:
    """Try to break the impossibility: fit a plain block of P's kind and width to F by nonlinear
    least squares (scipy, float64) on random points from several starts. The best fit found is
    then refuted exactly by the scaling witness at x, as any candidate must be; a near hit (a tiny
    float residual) would be reported as one and still has to pass that exact test."""
    rng = np.random.default_rng(seed)
    d, m = F.d, P.m
    X = rng.uniform(-2.0, 2.0, size=(BREAK_POINTS, d))
    target = F.eval_f64(X)
    shapes = [("W_up", (m, d)), ("W_down", (d, m))] + ([("W_gate", (m, d))] if P.gated else [])
    sizes = [int(np.prod(sh)) for _, sh in shapes]

    def unpack(theta: np.ndarray) -> Block:
        parts, k = {}, 0
        for (name, sh), n in zip(shapes, sizes):
            parts[name] = theta[k:k + n].reshape(sh)
            k += n
        return Block(P.activation, kind="plain", **parts)

    def residual(theta: np.ndarray) -> np.ndarray:
        return (unpack(theta).eval_f64(X) - target).ravel()

    best, best_cost = None, np.inf
    for _ in range(BREAK_STARTS):
        fit = optimize.least_squares(residual, rng.normal(0.0, 1.0, sum(sizes)), max_nfev=15)
        if fit.cost < best_cost:
            best, best_cost = fit.x, float(fit.cost)
    scale = float(np.linalg.norm(target)) or 1.0
    rel = float(np.sqrt(2 * best_cost)) / scale
    cand = unpack(best)
    refuted = _refuted_exactly(F, cand, x)
    return {"method": f"scipy.optimize.least_squares from {BREAK_STARTS} random starts on "
                      f"{BREAK_POINTS} random points (float64 evidence), best fit re-checked exactly",
            "starts": BREAK_STARTS, "points": BREAK_POINTS, "seed": seed,
            "best_relative_residual": rel, "near_hit": rel < 1e-6,
            "best_candidate": block_to_json(cand), "best_refuted_exactly": refuted}


def _refuted_exactly(F: Block, cand: Block, x: list[Fraction]) -> bool:
    """The scaling identity at x shows F(x) != cand(x) or F(2x) != cand(2x), exactly."""
    ident = scaling_identity(F, cand, x, F.act.block_degree)
    return bool(ident["holds"]) and (any(qvec(ident["e_x"])) or any(qvec(ident["e_sx"])))


# ================================================================ strategies

@st.composite
def same_width_instances(draw: st.DrawFn) -> HomogeneousInstance:
    """A degree-2 residual block with nonzero M and a plain block of the same kind and width
    (independent weights, or B itself: then e(x) = M x exactly)."""
    F, P = draw(residual_and_candidate(activations.BLOCK_DEGREE_2, has_nonzero_skip))
    return HomogeneousInstance(F, P, draw(optional_vector(F.d, 6, 4)))


@st.composite
def any_width_instances(draw: st.DrawFn) -> HomogeneousInstance:
    """A degree-2 residual block with nonzero M and a degree-2 plain block of any kind and width."""
    F, P = draw(residual_and_candidate(activations.BLOCK_DEGREE_2, has_nonzero_skip,
                                       candidate_kinds=activations.BLOCK_DEGREE_2, max_candidate_m=5))
    return HomogeneousInstance(F, P, draw(optional_vector(F.d, 6, 4)))


# ================================================================ corner instances
# Always checked before the drawn ones: an instance given as a tuple, an M with a zero first column
# (the check passes over e_1 to e_2), and one instance per hypothesis that fails it alone.  On the
# latter the check must say that the claim does not apply, and code written apart from the
# hypothesis tests (INDEPENDENT_FAILS) must confirm that this hypothesis fails.

@dataclass
class FailingHypothesisInstance(HomogeneousInstance):
    """A pair on which exactly the hypothesis ``expect`` fails."""

    expect: str = ""


def _degree_one(b: Block) -> bool:
    """b's block map is not of degree 2 but of degree 1 at a point: B(2x) = 2 B(x) != 0, exactly."""
    B = b.without_skip() if b.kind == "residual" else b
    x = [Fraction(1)] + [Fraction(1, 2)] * (b.d - 1)
    bx = [Fraction(v) for v in B.evaluate(x, "exact")]
    b2x = [Fraction(v) for v in B.evaluate([2 * t for t in x], "exact")]
    return any(bx) and b2x == [2 * v for v in bx]


INDEPENDENT_FAILS: dict[str, Any] = {
    "M_nonzero": lambda F, P: F.M is None or not np.any(np.asarray(F.M) != 0),
    "same_kind_and_width": lambda F, P: F.activation != P.activation or F.W_down.shape[1] != P.W_down.shape[1],
    "k_ne_1": lambda F, P: _degree_one(F) and _degree_one(P),
}


def _corner_block(act: str, up: list, down: list, M: Optional[list]) -> Block:
    kw = {"W_up": np.array(up, dtype=np.float64), "W_down": np.array(down, dtype=np.float64)}
    if activations.get(act).gated:
        kw["W_gate"] = np.array(up, dtype=np.float64)[::-1] if len(up) > 1 else -np.array(up, dtype=np.float64)
    if M is None:
        return Block(act, kind="plain", **kw)
    return Block(act, M=np.array(M, dtype=np.float64), **kw)


_U2, _D2 = [[1, -1], [0.5, 2]], [[1, 0], [-0.5, 1]]
_U2b, _D2b = [[-1, 0.5], [1, 1]], [[2, 1], [0, -1]]
_U1, _D1 = [[1, 2]], [[1], [-0.5]]
_N2, _I2, _Z2 = [[0, 1], [0, 0]], [[1, 0], [0, 1]], [[0, 0], [0, 0]]


def _corners(same_width: bool) -> list[Any]:
    """Both claims' corners; the same-width claim's last one fails same_kind_and_width, the any-width
    claim's last one is a pair of two kinds (relu2 against reglu of another width), which it covers."""
    other = _corner_block("bilinear", _U2b, _D2b, None) if same_width else _corner_block("reglu", _U1, _D1, None)
    last = FailingHypothesisInstance(_corner_block("relu2", _U2, _D2, _I2), other, None, "same_kind_and_width") \
        if same_width else HomogeneousInstance(_corner_block("relu2", _U2, _D2, _I2), other, None)
    return [(_corner_block("relu2", _U2, _D2, _I2), _corner_block("relu2", _U2b, _D2b, None)),
            HomogeneousInstance(_corner_block("reglu", _U2, _D2, _N2), _corner_block("reglu", _U2b, _D2b, None), None),
            FailingHypothesisInstance(_corner_block("relu2", _U2, _D2, _Z2), _corner_block("relu2", _U2b, _D2b, None),
                                      None, "M_nonzero"),
            FailingHypothesisInstance(_corner_block("relu", _U2, _D2, _I2), _corner_block("relu", _U2b, _D2b, None),
                                      None, "k_ne_1"),
            last]


def _failing_certificate(inst: FailingHypothesisInstance, cert: Certificate) -> Certificate:
    failed = [k for k, v in cert.data["hypotheses"].items() if v is False]
    indep = bool(INDEPENDENT_FAILS[inst.expect](inst.residual, inst.plain))
    holds = not cert.holds and failed == [inst.expect] and indep
    data = {**cert.data, "kind": "failing_hypothesis", "expect": inst.expect, "failed": failed,
            "independently_fails": indep}
    return Certificate(cert.claim, holds, True, cert.method, data,
                       f"the claim does not apply: {inst.expect} fails (re-decided apart)" if holds else
                       f"failing-hypothesis corner {inst.expect}: the check found {failed}, the independent test {indep}")


# Edits of a holding certificate that the re-check must refuse.
FORGERIES = [("claim", lambda c: c.update(claim="forged")), ("holds", lambda c: c.update(holds=False)),
             ("witness difference", lambda c: c["data"]["witness"].update(
                 difference=[q_str(Fraction(v) + 1) for v in c["data"]["witness"]["difference"]])),
             ("hypotheses", lambda c: c["data"]["hypotheses"].update(forged=True))]


def _forgeries_refused(cert: Certificate, recheck: Any) -> Certificate:
    return refuse_forgeries(cert, recheck, base=FORGERIES)


def _recheck_failing(cert: dict[str, Any], same_width: bool) -> bool:
    data = cert["data"]
    F, P = block_from_json(data["residual"]), block_from_json(data["plain"])
    hyp = (hypotheses_same_width if same_width else _hypotheses)(F, P)
    failed = [k for k, v in hyp.items() if v is False]
    return (cert.get("claim") == (CLAIM_SAME if same_width else CLAIM_ANY_WIDTH) and cert.get("holds") is True
            and hyp == data["hypotheses"] and failed == [data["expect"]] == data["failed"]
            and bool(INDEPENDENT_FAILS[data["expect"]](F, P)))


def _is_failing(cert: dict[str, Any]) -> bool:
    return (cert.get("data") or {}).get("kind") == "failing_hypothesis"


@safe_recheck
def recheck_same_width_any(cert: dict[str, Any]) -> bool:
    """The same-width re-check with the break attempt's, or for a failing-hypothesis corner: recomputed."""
    return _recheck_failing(cert, True) if _is_failing(cert) else recheck_same_width(cert) and _recheck_break(cert)


@safe_recheck
def recheck_any_width_any(cert: dict[str, Any]) -> bool:
    """recheck_any_width, or for a failing-hypothesis corner: recomputed."""
    return _recheck_failing(cert, False) if _is_failing(cert) else recheck_any_width(cert)


# ================================================================ registered checks

@oracle_check(CLAIM_SAME, same_width_instances(), lambda c: recheck_same_width_any(c),
              "exact rationals", examples=lambda: _corners(True))
def check_same_width(instance: Any) -> Certificate:
    """Certify F != B' for a degree-2 residual block and a same-kind, same-width plain block;
    also try to break the claim with least-squares fits and refute the best fit exactly (on a
    failing-hypothesis corner: that the claim does not apply)."""
    cert = _certify(_instance_data(instance), True)
    if isinstance(instance, FailingHypothesisInstance):
        return _failing_certificate(instance, cert)
    if cert.holds and cert.data["residual"]["W_up"] and len(cert.data["residual"]["W_up"]) <= 3:
        F, P = block_from_json(cert.data["residual"]), block_from_json(cert.data["plain"])
        x = _choose_point(F, qvec(cert.data["point"]) if cert.data.get("point") else None)
        att = break_attempt(F, P, x, seed=F.d * 100 + F.m)
        cert.data["break_attempt"] = att
        cert.holds = cert.exact = att["best_refuted_exactly"]
    return _forgeries_refused(cert, lambda c: recheck_same_width(c) and _recheck_break(c))


@safe_recheck
def _recheck_break(cert: dict[str, Any]) -> bool:
    """The stored best fit is refuted exactly (the fit itself is float evidence, not re-run)."""
    att = cert["data"].get("break_attempt")
    if att is None:  # tried on blocks of width <= 3 only (time)
        return len(cert["data"]["residual"]["W_up"]) > 3
    F, cand = block_from_json(cert["data"]["residual"]), block_from_json(att["best_candidate"])
    given = cert["data"].get("point")
    x = _choose_point(F, qvec(given) if given else None)
    return att["best_refuted_exactly"] and _refuted_exactly(F, cand, x)


@oracle_check(CLAIM_ANY_WIDTH, any_width_instances(), lambda c: recheck_any_width_any(c), "exact rationals",
              examples=lambda: _corners(False))
def check_any_width(instance: Any) -> Certificate:
    """Certify F != B' for any-width degree-2 candidates, with the quantitative gap for k = 2 (on a
    failing-hypothesis corner: that the claim does not apply)."""
    cert = _certify(_instance_data(instance), False)
    if isinstance(instance, FailingHypothesisInstance):
        return _failing_certificate(instance, cert)
    return _forgeries_refused(cert, recheck_any_width)
