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
from flint import arb, arb_mat, ctx, fmpq, fmpz

from oracle.core.errors import InputError

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


def to_fraction(x: float) -> Fraction:
    """The exact rational value of a finite float."""
    return Fraction(float(x))


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


def to_arb(v: Any) -> arb:
    """A ball enclosing a number: exact for floats, ints and dyadic Fractions, else correctly
    rounded at the working precision; strings are read as exact rationals."""
    if isinstance(v, arb):
        return v
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if not np.isfinite(f):
            raise InputError(f"coordinate {f} is not finite")
        return arb(f)  # exact: a finite float64 is a dyadic rational
    if isinstance(v, (int, np.integer)):
        return arb(fmpz(int(v)))
    if isinstance(v, str):
        v = Fraction(v)
    if isinstance(v, Fraction):
        return arb(fmpq(v.numerator, v.denominator))
    raise InputError(f"cannot convert a coordinate of type {type(v).__name__} to a ball")


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


def matrix_to_dyadic_ints(a: np.ndarray) -> tuple[list[list[int]], int]:
    """Write a finite float64 matrix exactly as N * 2**e with an integer matrix N."""
    a = np.atleast_2d(np.asarray(a, dtype=np.float64))
    if not np.all(np.isfinite(a)):
        raise ValueError("matrix has NaN or Inf entries")
    mant, expo = np.frexp(a)
    # Each entry is (mant * 2**53) * 2**(expo - 53) with an integer first factor.
    ints = (mant * 2.0**53).astype(np.int64)
    shifts = expo.astype(np.int64) - 53
    nz = ints != 0
    if not nz.any():
        return [[0] * a.shape[1] for _ in range(a.shape[0])], 0
    e = int(shifts[nz].min())
    rows = []
    for i in range(a.shape[0]):
        rows.append([int(ints[i, j]) << int(shifts[i, j] - e) if ints[i, j] else 0
                     for j in range(a.shape[1])])
    return rows, e


def ball_to_interval(b: arb) -> tuple[float, float]:
    """Float endpoints (rounded outward) of a ball, for display and JSON."""
    lo, hi = b.lower(), b.upper()
    # arb endpoints are exact; widen by one ulp in float to stay outward after rounding.
    return float(np.nextafter(float(lo), -np.inf)), float(np.nextafter(float(hi), np.inf))
