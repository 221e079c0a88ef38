"""Arithmetic backends: float64, mpmath at any precision, rigorous balls, exact rationals.

Weights arrive as float64 arrays; every float64 is a dyadic rational, so the
exact and ball backends start from the *exact* value of each weight. The
backends share one interface (``convert``, ``matvec``) so that a block is
evaluated by the same code in each of them.
"""

from __future__ import annotations

import contextlib
from fractions import Fraction
from typing import Any, Iterator, Sequence

import mpmath
import numpy as np
from oracle.core.rational import arb, arb_mat, ctx, to_arb

BACKENDS = ("float64", "mp", "ball", "exact")
DEFAULT_PREC = 128  # bits, for "mp" and "ball"


@contextlib.contextmanager
def precision(backend: str, prec: int = DEFAULT_PREC) -> Iterator[None]:
    """Set the working precision (in bits) of the mp or ball backend for a block of code."""
    if backend == "mp":
        with mpmath.workprec(prec):
            yield
    elif backend == "ball":
        old = ctx.prec
        ctx.prec = prec
        try:
            yield
        finally:
            ctx.prec = old
    else:
        yield


def convert_matrix(a: np.ndarray, backend: str) -> Any:
    """A float64 matrix (or vector) in the representation a backend computes with."""
    a = np.asarray(a, dtype=np.float64)
    if backend == "float64":
        return a
    if backend == "exact":
        return [[Fraction(float(v)) for v in row] for row in np.atleast_2d(a)]
    if backend == "mp":
        return [[mpmath.mpf(float(v)) for v in row] for row in np.atleast_2d(a)]
    if backend == "ball":
        # arb(float) is exact: a float64 is a dyadic with a 53-bit mantissa.
        return arb_mat([[arb(float(v)) for v in row] for row in np.atleast_2d(a)])
    raise ValueError(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}")


def convert_vector(x: Sequence[Any], backend: str) -> Any:
    """A vector of floats, Fractions or ints in a backend's representation."""
    if backend == "float64":
        return np.asarray([float(v) for v in x], dtype=np.float64)
    if backend == "exact":
        return [Fraction(v) if not isinstance(v, float) else Fraction(v) for v in x]
    if backend == "mp":
        return [_to_mpf(v) for v in x]
    if backend == "ball":
        return [to_arb(v) for v in x]
    raise ValueError(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}")


def _to_mpf(v: Any) -> Any:
    if isinstance(v, Fraction):
        return mpmath.mpf(v.numerator) / v.denominator
    return mpmath.mpf(v)


def matvec(a: Any, x: Any, backend: str) -> Any:
    """a @ x in the given backend (a from convert_matrix, x from convert_vector)."""
    if backend == "float64":
        return a @ x
    if backend == "ball":
        col = arb_mat([[v] for v in x])
        prod = a * col
        return [prod[i, 0] for i in range(prod.nrows())]
    # mp and exact: plain Python sums keep mpmath's precision and Fraction exactness.
    return [sum((r * v for r, v in zip(row, x)), start=(Fraction(0) if backend == "exact"
                                                       else mpmath.mpf(0))) for row in a]


def ball_to_interval(b: arb) -> tuple[float, float]:
    """Float endpoints (rounded outward) of a ball, for display and JSON."""
    lo, hi = b.lower(), b.upper()
    # arb endpoints are exact; widen by one ulp in float to stay outward after rounding.
    return float(np.nextafter(float(lo), -np.inf)), float(np.nextafter(float(hi), np.inf))
