"""Exact verification of W_down[:,S] W_up[S,:] = -M by multi-modular integer arithmetic.

Every float64 is ``mant * 2^exp``; scaled by a common power of two the three
matrices become integer matrices, whose product is checked modulo enough primes
that the Chinese remainder theorem turns "zero modulo every prime" into "zero".
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Iterable

import numpy as np

from oracle.algebra.search.common import check_shapes, normalize_S
from oracle.core.rational import odd_mantissas


class Dyadic:
    """Exact view of a float64 array as ``mant * 2^exp`` with odd int64 mantissas.

    ``scale`` is the least s >= 0 making every entry of ``a * 2^s`` an integer;
    ``top`` is the largest exponent, used for a-priori size bounds.
    """

    def __init__(self, a: np.ndarray) -> None:
        self.mant, self.exp = odd_mantissas(a)
        nz = self.mant != 0
        self.nonzero = nz
        self.shape = a.shape
        self.scale = int(max(0, -int(self.exp[nz].min()))) if nz.any() else 0
        self.top = int(self.exp[nz].max()) if nz.any() else 0  # largest exponent
        self.max_abs = float(np.max(np.abs(a))) if a.size else 0.0  # exact: |x| of a double is a double
        self.a = a  # the values themselves (a view), for the direct residues of small integers
        self._uniq: tuple[int, np.ndarray, np.ndarray] | None = None

    def max_abs_int(self, s: int) -> int:
        """The largest |entry| of the integer matrix ``a * 2^s`` (s >= scale), exactly, as a Python int.

        The largest |entry| of ``a`` is itself a double, so its product with 2^s is computed
        exactly as a Fraction (an integer once s >= scale; rounded up otherwise).
        """
        if not self.nonzero.any():
            return 0
        q = Fraction(self.max_abs) * (Fraction(2) ** s)
        return -((-q.numerator) // q.denominator)  # the ceiling

    def residues(self, p: int, s: int) -> np.ndarray:
        """Residues in [0, p) of the integer matrix ``a * 2^s`` (requires s >= scale)."""
        sh = self.exp + s
        if self.nonzero.any() and int(sh[self.nonzero].min()) < 0:
            raise ValueError("scale too small for an integer representation")
        if self.max_abs_int(s) < 2 ** 53:
            # every integer a * 2^s is a double (|.| < 2^53), so ldexp is exact and so is fmod
            # (the remainder of two doubles is always representable): no per-exponent tables
            v = np.fmod(np.ldexp(self.a, s), float(p))
            v[v < 0] += p
            return v.astype(np.int64)
        sh = np.where(self.nonzero, sh, 0)
        # the distinct exponents are computed once per shift and reused for every prime
        if self._uniq is None or self._uniq[0] != s:
            uq, iv = np.unique(sh, return_inverse=True)
            self._uniq = (s, uq, iv.reshape(sh.shape))
        _, uniq, inv = self._uniq
        table = np.array([pow(2, int(k), p) for k in uniq], dtype=np.int64)
        pw = table[inv]
        r = np.mod(self.mant, p)  # numpy mod of int64 is nonnegative for p > 0
        return (r * pw) % p  # both factors < p < 2^31 so the product fits in int64

    def python_ints(self, s: int) -> np.ndarray:
        """The integer matrix ``a * 2^s`` as an object array of Python ints (small sizes)."""
        out = np.empty(self.shape, dtype=object)
        fm = self.mant.ravel()
        fe = (self.exp + s).ravel()
        fo = out.ravel()
        for k in range(fm.size):
            v = int(fm[k])
            e = int(fe[k])
            fo[k] = v << e if e >= 0 else Fraction(v, 1 << -e)
        return out


def _is_prime(n: int) -> bool:
    """Deterministic primality test for n < 2^64 (Miller-Rabin with fixed bases)."""
    if n < 2:
        return False
    for q in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        if n % q == 0:
            return n == q
    dd, r = n - 1, 0
    while dd % 2 == 0:
        dd //= 2
        r += 1
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        x = pow(a, dd, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _primes_below(start: int) -> Iterable[int]:
    """Yield the primes below ``start`` in decreasing order."""
    n = start - 1
    while n > 2:
        if _is_prime(n):
            yield n
        n -= 1


def mod_matmul_zero(
    left: Dyadic, right: Dyadic, extra: Dyadic,
    rows: np.ndarray | None, cols: np.ndarray | None,
) -> bool:
    """Exactly decide ``left[:, cols] @ right[rows, :] + extra == 0`` by multi-modular arithmetic.

    All three matrices are scaled to integers by one common power of two.  Each
    prime p satisfies n (p-1)^2 + (p-1) < 2^53, so the float64 BLAS product of the
    residue matrices consists of integers below 2^53 and is exact in any summation
    order.  Vanishing modulo primes whose product exceeds twice an a-priori bound
    on the integer entries implies vanishing over the integers (Chinese remainder
    theorem: the only multiple of P in (-P/2, P/2) is 0).
    """
    L = left if cols is None else _sub(left, None, cols)
    R = right if rows is None else _sub(right, rows, None)
    n = L.shape[1]
    sL, sR, sE = L.scale, R.scale, extra.scale
    E = max(sL + sR, sE)
    # exact integer identity: (L*2^sL)(R*2^sR) 2^(E-sL-sR) + (X*2^sE) 2^(E-sE) = 2^E (L R + X)
    bound = n * L.max_abs_int(sL) * R.max_abs_int(sR) * (1 << (E - sL - sR)) \
        + extra.max_abs_int(sE) * (1 << (E - sE))
    if bound == 0:
        return True
    pmax = int(math.isqrt((2 ** 53 - 2 ** 27) // max(n, 1)))
    pmax = min(pmax, 2 ** 31 - 1)
    prod = 1
    for p in _primes_below(pmax):
        Lr = L.residues(p, sL).astype(np.float64)
        Rr = R.residues(p, sR).astype(np.float64)
        Xr = extra.residues(p, sE)
        P = (Lr @ Rr).astype(np.int64) % p if n else np.zeros(extra.shape, dtype=np.int64)
        c1 = pow(2, E - sL - sR, p)
        c2 = pow(2, E - sE, p)
        tot = (P * c1 % p + Xr * c2 % p) % p
        if np.any(tot):
            return False
        prod *= p
        if prod > 2 * bound:
            return True
    raise RuntimeError("ran out of primes")  # pragma: no cover


def _sub(D: Dyadic, rows: np.ndarray | None, cols: np.ndarray | None) -> Dyadic:
    """A sub-matrix of a dyadic view, keeping the representation exact."""
    new = object.__new__(Dyadic)
    sel = (slice(None) if rows is None else rows, slice(None) if cols is None else cols)
    new.mant = D.mant[sel]
    new.exp = D.exp[sel]
    new.nonzero = D.nonzero[sel]
    new.shape = new.mant.shape
    nz = new.nonzero
    new.scale = int(max(0, -int(new.exp[nz].min()))) if nz.any() else 0
    new.top = int(new.exp[nz].max()) if nz.any() else 0
    mag = np.ldexp(np.abs(new.mant).astype(np.float64), new.exp.astype(np.int64)) if nz.any() else np.zeros(1)
    new.max_abs = float(mag.max())  # |mant| < 2^53 and the exponent is the entry's own: exact
    new.a = D.a[sel]
    new._uniq = None
    return new


def verify_index_set(W_up: Any, W_down: Any, M: Any, S: Iterable[int] | np.ndarray) -> bool:
    """Exactly decide whether ``W_down[:,S] @ W_up[S,:] + M == 0`` (multi-modular, exact)."""
    U, W, Mm = check_shapes(W_up, W_down, M)
    idx = normalize_S(S, U.shape[0])
    # the dyadic views of the columns and rows in S only (the other units never enter)
    return mod_matmul_zero(Dyadic(W[:, idx]), Dyadic(U[idx, :]), Dyadic(Mm), None, None)


def condition_residual(W_up: Any, W_down: Any, M: Any, S: Iterable[int] | np.ndarray) -> float:
    """Max-abs entry of ``W_down[:,S] @ W_up[S,:] + M`` in float64 (a size of the near miss)."""
    U, W, Mm = check_shapes(W_up, W_down, M)
    idx = normalize_S(S, U.shape[0])
    A = W[:, idx] @ U[idx, :] + Mm
    return float(np.max(np.abs(A))) if A.size else 0.0
