"""The one exact representation: python-flint types and every conversion to and from them.

This is the only module of the package that imports python-flint; the rest of ``oracle`` takes
the flint types and the converters from here, so that "how a weight becomes an exact number"
has one answer.  Three forms of an exact number exist in the package, each with a use:

* ``fmpq`` / ``fmpq_mat`` (and ``fmpz`` / ``fmpz_mat``): FLINT's rationals and matrices, for any
  computation (rank, solving, products);
* ``Fraction`` and lists of them (``QVec``, ``QMat``): Python's rationals, for small hand-written
  algebra and for certificates' internal data;
* exact strings ``"n/d"`` (``q_str`` / ``q_parse``, ``smat`` / ``svec``): what certificates store
  in JSON.

A finite float64 is a dyadic rational ``n * 2**e``; every conversion from a float here is
exact.  Balls (``arb``) enclose a number; ``to_arb`` is exact for floats, integers and dyadic
fractions and correctly rounded at the working precision otherwise.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Optional, Sequence, Union

import numpy as np
from flint import (acb, acb_mat, arb, arb_mat, arb_series, ctx, fmpq, fmpq_mat, fmpq_poly,
                   fmpz, fmpz_mat, fmpz_poly, nmod_mat)

from oracle.core.errors import InputError

__all__ = [
    # python-flint's types, re-exported: import them from here, never from flint
    "acb", "acb_mat", "arb", "arb_mat", "arb_series", "ctx", "fmpq", "fmpq_mat", "fmpq_poly",
    "fmpz", "fmpz_mat", "fmpz_poly", "nmod_mat",
    # the Python forms
    "QVec", "QMat", "Matrix",
    # scalars
    "to_fmpq", "to_fraction", "fraction_of_float", "fraction_of_exact_arb", "q_str", "q_parse", "to_arb",
    "float_nearest", "float_down", "float_up", "is_float64", "rounding_errors",
    # matrices and vectors
    "check_finite", "mantissas", "odd_mantissas", "dyadic_ints", "from_float64", "from_fractions", "to_fmpq_mat",
    "to_fmpz_mat", "to_fractions", "fraction_array", "fmpq_rows", "qmat", "qvec", "smat", "svec",
]

QVec = list[Fraction]
QMat = list[list[Fraction]]
Matrix = Union[np.ndarray, fmpq_mat, fmpz_mat, Sequence[Sequence[Any]]]


# ---------------------------------------------------------------- scalars

def fraction_of_float(x: Any) -> Fraction:
    """A finite float (or numpy float) as the exact Fraction it denotes."""
    f = float(x)
    if not math.isfinite(f):
        raise ValueError(f"{f} has no exact rational value")
    return Fraction(f)


def to_fmpq(v: Any) -> fmpq:
    """One exact rational as an fmpq: ints, floats (read exactly), Fractions, exact strings, flint."""
    if isinstance(v, fmpq):
        return v
    if isinstance(v, (bool, int, np.integer, fmpz)):
        return fmpq(int(v))
    if isinstance(v, (float, np.floating)):
        n, d = fraction_of_float(v).as_integer_ratio()
        return fmpq(n, d)
    if isinstance(v, str):
        v = Fraction(v)
    if isinstance(v, Fraction):
        return fmpq(v.numerator, v.denominator)
    raise TypeError(f"cannot read {type(v).__name__} as an exact rational")


def to_fraction(q: Any) -> Fraction:
    """An fmpq, fmpz, int, float (exactly), Fraction or exact string as a Python Fraction."""
    if isinstance(q, Fraction):
        return q
    if isinstance(q, fmpq):
        return Fraction(int(q.p), int(q.q))
    if isinstance(q, (float, np.floating)):
        return fraction_of_float(q)
    if isinstance(q, str):
        return Fraction(q)
    if isinstance(q, (bool, int, np.integer, fmpz)):
        return Fraction(int(q))
    raise TypeError(f"cannot read {type(q).__name__} as an exact rational")


def q_str(x: Any) -> str:
    """The exact string form ``n/d`` (or ``n``) of a rational, as certificates store it."""
    x = to_fraction(x)
    return f"{x.numerator}/{x.denominator}" if x.denominator != 1 else str(x.numerator)


def q_parse(s: str) -> Fraction:
    """The rational an exact string denotes (the inverse of ``q_str``)."""
    return Fraction(s)


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
    if isinstance(v, fmpq):
        return arb(v)
    if isinstance(v, str):
        v = Fraction(v)
    if isinstance(v, Fraction):
        return arb(fmpq(v.numerator, v.denominator))
    raise InputError(f"cannot convert a coordinate of type {type(v).__name__} to a ball")


def fraction_of_exact_arb(x: arb) -> Fraction:
    """The exact value of a ball of radius 0 (e.g. Arb's upper or lower endpoint) as a Fraction."""
    if x.rad() != 0:
        raise ValueError(f"{x.str(10, radius=True)} is not an exact ball")
    man, exp = x.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


# ---------------------------------------------------------------- rationals to float64

_MAX_FLOAT = float(np.finfo(np.float64).max)


def float_nearest(q: Any) -> float:
    """The float64 nearest to a rational (Python rounds Fraction -> float correctly); +-inf
    beyond the float range."""
    q = to_fraction(q)
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def float_down(q: Any) -> float:
    """The largest float64 not above the rational q (-inf below the float range)."""
    q = to_fraction(q)
    f = float_nearest(q)
    if f == math.inf:
        f = _MAX_FLOAT
    while math.isfinite(f) and Fraction(f) > q:
        f = math.nextafter(f, -math.inf)
    return f


def float_up(q: Any) -> float:
    """The smallest float64 not below the rational q (+inf above the float range)."""
    q = to_fraction(q)
    f = float_nearest(q)
    if f == -math.inf:
        f = -_MAX_FLOAT
    while math.isfinite(f) and Fraction(f) < q:
        f = math.nextafter(f, math.inf)
    return f


def rounding_errors(exact: dict[str, Sequence[Fraction]], floats: dict[str, np.ndarray]
                    ) -> tuple[list[str], dict[str, float]]:
    """Which arrays hold rounded values (a float64 entry differs from its exact value, entries
    paired in row-major order), and for each the largest entry error rounded up to a float64."""
    rounded, err = [], {}
    for name, vals in exact.items():
        e = max((abs(q - Fraction(float(f))) for q, f in zip(vals, floats[name].ravel())), default=Fraction(0))
        if e:
            rounded.append(name)
            err[name] = float_up(e)
    return rounded, err


def is_float64(q: Any) -> bool:
    """True when the rational is exactly a (finite) float64."""
    q = to_fraction(q)
    try:
        return Fraction(float(q)) == q
    except OverflowError:
        return False


# ---------------------------------------------------------------- float64 arrays, exactly

def check_finite(a: np.ndarray) -> None:
    """Refuse NaN and Inf: they have no exact rational value."""
    if not np.all(np.isfinite(a)):
        raise ValueError("matrix has NaN or Inf entries; it has no exact rational value")


def mantissas(a: Any) -> tuple[np.ndarray, np.ndarray]:
    """Integer mantissas (|n| < 2^53, int64) and exponents with a == n * 2**e entrywise (finite a)."""
    frac, expo = np.frexp(np.asarray(a, dtype=np.float64))
    # frexp gives |frac| in [1/2, 1): frac * 2^53 is an integer, so the scaling is exact
    return (frac * 2.0 ** 53).astype(np.int64), expo.astype(np.int64) - 53


def odd_mantissas(a: Any) -> tuple[np.ndarray, np.ndarray]:
    """a == n * 2**e entrywise with odd int64 mantissas n (n = e = 0 for zero entries): the
    unique such form, so equal numbers get equal (n, e) (finite a)."""
    mant, expo = mantissas(a)
    nz = mant != 0
    absm = np.abs(mant)
    low = absm & (-absm)  # the lowest set bit, a power of two (0 for zero entries)
    tz = np.zeros_like(expo)
    if nz.any():
        tz[nz] = np.frexp(low[nz].astype(np.float64))[1].astype(np.int64) - 1
    return np.where(nz, mant >> tz, 0), np.where(nz, expo + tz, 0)


def dyadic_ints(a: np.ndarray) -> tuple[fmpz_mat, int]:
    """A finite float64 matrix exactly as ``N * 2**e`` with an integer flint matrix N."""
    arr = np.atleast_2d(np.asarray(a, dtype=np.float64))
    check_finite(arr)
    nr, nc = arr.shape
    if arr.size == 0:
        return fmpz_mat(nr, nc), 0
    mant, expo = mantissas(arr)
    nz = mant != 0
    if not nz.any():
        return fmpz_mat(nr, nc), 0
    e = int(expo[nz].min())
    shift = np.where(nz, expo - e, 0)
    if int(shift.max()) <= 9:
        # every scaled entry is below 2^62: numpy int64 arithmetic is exact and fast
        flat = (mant << shift).ravel().tolist()
    else:
        flat = [int(v) << int(s) for v, s in zip(mant.ravel().tolist(), shift.ravel().tolist())]
    return fmpz_mat(nr, nc, flat), e


def from_float64(a: np.ndarray) -> fmpq_mat:
    """The exact rational matrix of a finite float64 (or integer/bool) array."""
    arr = np.atleast_2d(np.asarray(a))
    if arr.dtype.kind in "iub":
        return fmpq_mat(fmpz_mat(arr.shape[0], arr.shape[1], [int(v) for v in arr.ravel().tolist()]))
    N, e = dyadic_ints(arr)
    Q = fmpq_mat(N)
    return Q * (fmpz(2) ** e) if e >= 0 else Q / (fmpz(2) ** (-e))


# ---------------------------------------------------------------- matrices and vectors

def from_fractions(rows: Sequence[Sequence[Any]], ncols: Optional[int] = None) -> fmpq_mat:
    """A list of rows (ints, Fractions, exact strings, floats read exactly, fmpq) as an fmpq_mat."""
    nr = len(rows)
    nc = ncols if ncols is not None else (len(rows[0]) if nr else 0)
    flat = []
    for r in rows:
        if len(r) != nc:
            raise ValueError(f"ragged matrix: a row has {len(r)} entries, expected {nc}")
        flat.extend(to_fmpq(v) for v in r)
    return fmpq_mat(nr, nc, flat)


def to_fmpq_mat(a: Matrix, ncols: Optional[int] = None) -> fmpq_mat:
    """Any supported matrix form (flint, numpy, list of rows) as an exact fmpq_mat.

    An empty list of rows needs ``ncols`` to know its shape (0 x ncols).
    """
    if isinstance(a, fmpq_mat):
        return a
    if isinstance(a, fmpz_mat):
        return fmpq_mat(a)
    if isinstance(a, np.ndarray) and a.dtype != object:
        return from_float64(a)
    return from_fractions([list(r) for r in a], ncols)


def to_fmpz_mat(a: Matrix) -> fmpz_mat:
    """An integer matrix with the same row space, column relations and rank as a (rows scaled)."""
    if isinstance(a, fmpz_mat):
        return a
    if isinstance(a, np.ndarray) and a.dtype != object and a.dtype.kind == "f":
        return dyadic_ints(a)[0]
    return to_fmpq_mat(a).numer_denom()[0]


def to_fractions(A: Any) -> QMat:
    """An fmpq_mat or fmpz_mat (or a numpy array, exactly) as a list of rows of Fractions."""
    if isinstance(A, np.ndarray):
        return [[fraction_of_float(v) for v in row] for row in np.atleast_2d(A)]
    return [[to_fraction(A[i, j]) for j in range(A.ncols())] for i in range(A.nrows())]


def fraction_array(a: Any) -> np.ndarray:
    """A float64 array of any shape as an object array of the exact Fractions (NaN/Inf refused)."""
    arr = np.asarray(a, dtype=np.float64)
    check_finite(arr)
    out = np.empty(arr.shape, dtype=object)
    out.ravel()[:] = [Fraction(v) for v in arr.ravel().tolist()]  # Fraction(float) is exact
    return out


def fmpq_rows(A: fmpq_mat) -> list[list[fmpq]]:
    """The entries of an fmpq_mat as a list of rows of fmpq."""
    return [[A[i, j] for j in range(A.ncols())] for i in range(A.nrows())]


def qmat(a: Any) -> QMat:
    """A matrix (numpy floats, ints, Fractions, exact strings or flint) as rows of exact Fractions."""
    if isinstance(a, (fmpq_mat, fmpz_mat, np.ndarray)):
        return to_fractions(a)
    return [[to_fraction(v) for v in row] for row in a]


def qvec(v: Any) -> QVec:
    """A vector (floats read exactly, ints, Fractions, exact strings, fmpq) as exact Fractions."""
    return [to_fraction(x) for x in v]


def smat(a: Any) -> list[list[str]]:
    """The exact string form of a rational matrix, as certificates store it."""
    return [[q_str(v) for v in row] for row in qmat(a)]


def svec(v: Any) -> list[str]:
    """The exact string form of a rational vector."""
    return [q_str(x) for x in v]
