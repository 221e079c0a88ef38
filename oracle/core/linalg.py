"""Exact linear algebra on python-flint matrices: the one place the package does it.

Every finite float64 is a dyadic rational ``n * 2**e``, so a float64 matrix is an
integer matrix times one power of two, held here as a flint ``fmpz_mat``.  Rank,
reduced row echelon form, solving, inversion, null spaces and determinants are
then FLINT's (fraction-free or multi-modular algorithms in C) instead of Python
loops over ``Fraction`` objects.  ``rank_mod_p`` gives a cheap rigorous *lower*
bound for the rational rank from one ``nmod_mat`` elimination: a minor that is
nonzero modulo p is nonzero over the integers.

Inputs may be numpy arrays (float or integer), lists of rows of ints, Fractions,
exact strings or flint numbers, or flint matrices (read by ``oracle.core.rational``, the
one home of conversions); results are flint matrices (``fmpq_mat``) or plain Python values.
"""

from __future__ import annotations

import math

from fractions import Fraction
from typing import Any, Optional, Sequence

import numpy as np

from oracle.core.rational import (Matrix, check_finite, fmpq, fmpq_mat, fmpz_mat, mantissas, nmod_mat,
                                  to_fmpq_mat, to_fmpz_mat)

__all__ = [
    "rank", "rref", "solve", "inverse", "nullspace", "det", "is_invertible", "primitive",
    "rank_mod_p", "matmul", "PRIMES",
]

# The three largest primes below 2^31 (residue products fit in int64, so the reduction
# is vectorised) and the largest below 2^62 (nmod_mat works modulo any word-size
# prime).  Callers retry with the next prime when a matrix's determinant happens to be
# divisible by one of them.
PRIMES = (2147483647, 2147483629, 2147483587, 4611686018427387847)


def matmul(a: Matrix, b: Matrix) -> fmpq_mat:
    """Exact product of two matrices."""
    return to_fmpq_mat(a) * to_fmpq_mat(b)


# ---------------------------------------------------------------- exact operations

def rank(a: Matrix) -> int:
    """Exact rank over the rationals."""
    Z = to_fmpz_mat(a)
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
    Z = to_fmpz_mat(a)
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
    mant, expo = mantissas(a)
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
    check_finite(arr)
    if arr.size == 0:
        return 0
    return int(nmod_mat(arr.shape[0], arr.shape[1], _residues(arr, p), p).rank())
