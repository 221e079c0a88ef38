"""Exact linear algebra on python-flint matrices: the one place the package does it.

Every finite float64 is a dyadic rational ``n * 2**e``, so a float64 matrix is an
integer matrix times one power of two, held here as a flint ``fmpz_mat``.  Rank,
reduced row echelon form, solving, inversion, null spaces and determinants are
then FLINT's (fraction-free or multi-modular algorithms in C) instead of Python
loops over ``Fraction`` objects.  ``rank_mod_p`` gives a cheap rigorous *lower*
bound for the rational rank from one ``nmod_mat`` elimination: a minor that is
nonzero modulo p is nonzero over the integers.

Inputs may be numpy arrays (float or integer), lists of rows of ints, Fractions,
exact strings or flint numbers, or flint matrices; results are flint matrices
(``fmpq_mat``) or plain Python values, and ``to_fractions`` converts back for the
callers that keep lists of Fractions.
"""

from __future__ import annotations

import math

from fractions import Fraction
from typing import Any, Optional, Sequence, Union

import numpy as np
from flint import fmpq, fmpq_mat, fmpz, fmpz_mat, nmod_mat

__all__ = [
    "Matrix", "dyadic_ints", "from_float64", "from_fractions", "to_fmpq_mat", "to_fractions",
    "fraction", "rank", "rref", "solve", "inverse", "nullspace", "det", "is_invertible",
    "rank_mod_p", "matmul", "PRIMES",
]

Matrix = Union[np.ndarray, fmpq_mat, fmpz_mat, Sequence[Sequence[Any]]]

# The three largest primes below 2^31 (residue products fit in int64, so the reduction
# is vectorised) and the largest below 2^62 (nmod_mat works modulo any word-size
# prime).  Callers retry with the next prime when a matrix's determinant happens to be
# divisible by one of them.
PRIMES = (2147483647, 2147483629, 2147483587, 4611686018427387847)


# ---------------------------------------------------------------- conversions

def _check_finite(a: np.ndarray) -> None:
    if not np.all(np.isfinite(a)):
        raise ValueError("matrix has NaN or Inf entries; it has no exact rational value")


def _mantissas(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer mantissas (|n| < 2^53, int64) and exponents with a == n * 2**e entrywise."""
    frac, expo = np.frexp(a)
    # frexp gives |frac| in [1/2, 1): frac * 2^53 is an integer, so the scaling is exact
    return (frac * 2.0 ** 53).astype(np.int64), expo.astype(np.int64) - 53


def dyadic_ints(a: np.ndarray) -> tuple[fmpz_mat, int]:
    """A finite float64 matrix exactly as ``N * 2**e`` with an integer flint matrix N."""
    arr = np.atleast_2d(np.asarray(a, dtype=np.float64))
    _check_finite(arr)
    nr, nc = arr.shape
    if arr.size == 0:
        return fmpz_mat(nr, nc), 0
    mant, expo = _mantissas(arr)
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


def _fmpq(v: Any) -> fmpq:
    """One exact rational as an fmpq (floats are read exactly, strings as rationals)."""
    if isinstance(v, fmpq):
        return v
    if isinstance(v, (int, np.integer, fmpz)):
        return fmpq(int(v))
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if not np.isfinite(f):
            raise ValueError(f"{f} has no exact rational value")
        n, d = f.as_integer_ratio()
        return fmpq(n, d)
    if isinstance(v, str):
        v = Fraction(v)
    if isinstance(v, Fraction):
        return fmpq(v.numerator, v.denominator)
    raise TypeError(f"cannot read {type(v).__name__} as an exact rational")


def from_fractions(rows: Sequence[Sequence[Any]], ncols: Optional[int] = None) -> fmpq_mat:
    """A list of rows (ints, Fractions, exact strings, floats read exactly) as an fmpq_mat."""
    nr = len(rows)
    nc = ncols if ncols is not None else (len(rows[0]) if nr else 0)
    flat = []
    for r in rows:
        if len(r) != nc:
            raise ValueError(f"ragged matrix: a row has {len(r)} entries, expected {nc}")
        flat.extend(_fmpq(v) for v in r)
    return fmpq_mat(nr, nc, flat)


def to_fmpq_mat(a: Matrix, ncols: Optional[int] = None) -> fmpq_mat:
    """Any supported matrix form as an exact fmpq_mat."""
    if isinstance(a, fmpq_mat):
        return a
    if isinstance(a, fmpz_mat):
        return fmpq_mat(a)
    if isinstance(a, np.ndarray) and a.dtype != object:
        return from_float64(a)
    return from_fractions([list(r) for r in a], ncols)


def _to_fmpz_mat(a: Matrix) -> fmpz_mat:
    """An integer matrix with the same row space, column relations and rank as a (scaled rows)."""
    if isinstance(a, fmpz_mat):
        return a
    if isinstance(a, np.ndarray) and a.dtype != object and a.dtype.kind == "f":
        return dyadic_ints(a)[0]
    return to_fmpq_mat(a).numer_denom()[0]


def fraction(q: Any) -> Fraction:
    """An fmpq (or fmpz, int) as a Python Fraction."""
    if isinstance(q, fmpq):
        return Fraction(int(q.p), int(q.q))
    return Fraction(int(q))


def to_fractions(A: Any) -> list[list[Fraction]]:
    """An fmpq_mat or fmpz_mat as a list of rows of Fractions."""
    return [[fraction(A[i, j]) for j in range(A.ncols())] for i in range(A.nrows())]


def matmul(a: Matrix, b: Matrix) -> fmpq_mat:
    """Exact product of two matrices."""
    return to_fmpq_mat(a) * to_fmpq_mat(b)


# ---------------------------------------------------------------- exact operations

def rank(a: Matrix) -> int:
    """Exact rank over the rationals."""
    Z = _to_fmpz_mat(a)
    if Z.nrows() == 0 or Z.ncols() == 0:
        return 0
    return int(Z.rank())


def _pivots(R: fmpq_mat, r: int) -> list[int]:
    piv = []
    for i in range(r):
        piv.append(next(j for j in range(R.ncols()) if R[i, j] != 0))
    return piv


def rref(a: Matrix, ncols: Optional[int] = None) -> tuple[fmpq_mat, list[int]]:
    """Reduced row echelon form: the matrix of its nonzero rows, and their pivot columns."""
    A = to_fmpq_mat(a, ncols)
    if A.nrows() == 0 or A.ncols() == 0:
        return fmpq_mat(0, A.ncols()), []
    R, r = A.rref()
    r = int(r)
    rows = fmpq_mat(r, A.ncols(), [R[i, j] for i in range(r) for j in range(A.ncols())])
    return rows, _pivots(R, r)


def det(a: Matrix) -> fmpq:
    """Exact determinant of a square matrix."""
    A = to_fmpq_mat(a)
    if A.nrows() != A.ncols():
        raise ValueError("determinant of a non-square matrix")
    return A.det()


def is_invertible(a: Matrix) -> bool:
    """True when the square matrix has full rank over the rationals."""
    Z = _to_fmpz_mat(a)
    if Z.nrows() != Z.ncols():
        raise ValueError("invertibility of a non-square matrix")
    return Z.nrows() == 0 or int(Z.rank()) == Z.nrows()


def inverse(a: Matrix) -> Optional[fmpq_mat]:
    """The exact inverse of a square matrix, or None when it is singular."""
    A = to_fmpq_mat(a)
    if A.nrows() != A.ncols():
        raise ValueError("inverse of a non-square matrix")
    if A.nrows() == 0:
        return A
    if not is_invertible(A.numer_denom()[0]):
        return None
    return A.inv()


def solve(a: Matrix, b: Matrix) -> Optional[fmpq_mat]:
    """X with A X = B for square invertible A (exact), or None when A is singular."""
    A, B = to_fmpq_mat(a), to_fmpq_mat(b)
    if A.nrows() != A.ncols() or B.nrows() != A.nrows():
        raise ValueError(f"cannot solve a {A.nrows()}x{A.ncols()} system for a "
                         f"{B.nrows()}x{B.ncols()} right-hand side")
    if not is_invertible(A.numer_denom()[0]):
        return None
    return A.solve(B)


def primitive(row: Sequence[Any]) -> tuple[list[int], Fraction]:
    """row = scale * p with p a primitive integer vector (coprime entries, the signs of row) and
    scale > 0; a zero row gives (zeros, 0)."""
    fr = [Fraction(v) for v in row]
    den = math.lcm(*(v.denominator for v in fr)) if fr else 1
    nums = [int(v * den) for v in fr]
    g = math.gcd(*nums) if nums else 0
    if g == 0:
        return [0] * len(nums), Fraction(0)
    return [n // g for n in nums], Fraction(g, den)


def nullspace(a: Matrix, ncols: Optional[int] = None) -> fmpq_mat:
    """The canonical basis of {x : A x = 0} as the columns of an n x k matrix (k = n - rank).

    Column j is e_f - sum_k R[k, f] e_(p_k) for the j-th free column f of the reduced
    row echelon form R (pivot columns p_k): the same basis whatever FLINT's internals.
    """
    R, piv = rref(a, ncols)
    n = R.ncols()
    free = [c for c in range(n) if c not in set(piv)]
    X = fmpq_mat(n, len(free))
    for j, f in enumerate(free):
        X[f, j] = 1
        for k, pc in enumerate(piv):
            X[pc, j] = -R[k, f]
    return X


# ---------------------------------------------------------------- modular rank

def _residues(a: np.ndarray, p: int) -> list[int]:
    """Residues mod p of the integer matrix a * 2^s (s the least shift making it integral)."""
    mant, expo = _mantissas(a)
    nz = mant != 0
    if not nz.any():
        return [0] * a.size
    sh = np.where(nz, expo - int(expo[nz].min()), 0)
    if p < 2 ** 31:
        # 2^sh mod p by square-and-multiply on whole arrays: every product of two
        # residues is below 2^62, so int64 arithmetic is exact
        pw = np.ones_like(sh)
        base = np.int64(2)
        k = sh.copy()
        while np.any(k):
            odd = (k & 1).astype(bool)
            pw[odd] = pw[odd] * base % p
            base = base * base % p
            k >>= 1
        return ((np.mod(mant, p) * pw) % p).ravel().tolist()
    # word-size primes: the products need Python integers
    uniq, inv = np.unique(sh, return_inverse=True)
    table = [pow(2, int(k), p) for k in uniq]
    return [(m % p) * table[i] % p for m, i in zip(mant.ravel().tolist(), inv.ravel().tolist())]


def rank_mod_p(a: np.ndarray, p: int = PRIMES[0]) -> int:
    """Rank over GF(p) of the integer-scaled float64 matrix: a rigorous lower bound for its rank over Q."""
    arr = np.atleast_2d(np.asarray(a, dtype=np.float64))
    _check_finite(arr)
    if arr.size == 0:
        return 0
    return int(nmod_mat(arr.shape[0], arr.shape[1], _residues(arr, p), p).rank())
