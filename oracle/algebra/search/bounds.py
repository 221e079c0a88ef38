"""Rigorous float64 error bounds: guaranteed enclosures of sums, dot products and norms.

Every bound follows the standard model of floating-point arithmetic (each operation
is exact up to a relative error u = 2^-53, plus an absolute error below 2^-1022 when
the result lands in the subnormal range); each function states what it encloses.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from oracle.core.rational import float_down

# Unit roundoff of binary64 and a bound for the absolute error of one product that
# lands in the subnormal range.  2^-1022 (the smallest normal number) also covers
# hardware that flushes subnormal results to zero.
UROUND = 2.0 ** -53

ETA = 2.0 ** -1022


def rigorous_sum_bounds(terms: np.ndarray, term_err: np.ndarray | float) -> tuple[float, float]:
    """Guaranteed lower and upper bounds for the exact sum of reals known as ``terms +- term_err``.

    ``math.fsum`` returns the correctly rounded sum x of the float64 terms, so the
    exact sum lies within 2u|x| of x; the per-term errors are added on top, and
    every remaining float operation is covered by the (1 + 8u) factor and the final
    outward steps of one ulp each.
    """
    te = np.broadcast_to(np.asarray(term_err, dtype=np.float64), terms.shape)
    if not (np.all(np.isfinite(terms)) and np.all(np.isfinite(te))):
        return -math.inf, math.inf  # overflow somewhere: nothing can be concluded
    x = math.fsum(terms.ravel().tolist())
    e = math.fsum(te.ravel().tolist())
    slack = (2.0 * UROUND * abs(x) + e * (1.0 + 4.0 * UROUND) + 2.0 ** -1074) * (1.0 + 8.0 * UROUND)
    lo = math.nextafter(math.nextafter(x - slack, -math.inf), -math.inf)
    hi = math.nextafter(math.nextafter(x + slack, math.inf), math.inf)
    return lo, hi


def sqrt_down(q: Fraction) -> float:
    """A float64 lower bound for sqrt(q), q >= 0 rational."""
    x = float_down(q)
    r = math.sqrt(x)
    while Fraction(r) ** 2 > q:
        r = math.nextafter(r, -math.inf)
    return r


def gamma_bound(n: int) -> float:
    """Upper bound on gamma_n = n u / (1 - n u), rounded up (Higham's dot-product constant)."""
    nu = n * UROUND
    if nu >= 0.5:
        raise ValueError("dimension too large for the float64 error bound")
    return math.nextafter(nu / (1.0 - nu) * (1.0 + 4 * UROUND), math.inf)


def next_up(x: np.ndarray | float) -> np.ndarray:
    """Move every entry one ulp towards +inf (covers the rounding of the last operation)."""
    return np.nextafter(np.asarray(x, dtype=np.float64), np.inf)


def next_up1(x: float) -> float:
    """Scalar version of :func:`next_up`."""
    return math.nextafter(float(x), math.inf)


def norm_up(v: np.ndarray) -> float:
    """An upper bound for the Euclidean norm of a float64 vector."""
    # fl(sum of squares) >= (1 - gamma_{n+1}) * true - n eta; the sqrt adds one rounding.
    n = v.size
    s = math.fsum((v * v).tolist()) if n <= 1_000_000 else float(np.dot(v, v))
    s_up = (s + (n + 1) * ETA) / (1.0 - gamma_bound(n + 2))
    return next_up1(next_up1(math.sqrt(next_up1(s_up))) * (1.0 + 4 * UROUND))


def col_norms_up(A: np.ndarray) -> np.ndarray:
    """Upper bounds for the Euclidean norms of the columns of A."""
    n = A.shape[0]
    s = np.einsum("ij,ij->j", A, A)
    s_up = next_up((s + (n + 1) * ETA) / (1.0 - gamma_bound(n + 2)))
    return next_up(next_up(np.sqrt(s_up)) * (1.0 + 4 * UROUND))
