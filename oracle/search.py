"""Index-set search and non-existence certificates for the relu/gelu condition.

The question (SPEC.md, claim ``relu-gelu-iff``): given ``W_up`` (m x d, rows
``u_i``), ``W_down`` (d x m, columns ``w_i``) and ``M`` (d x d), is there an index
set ``S`` with ``sum_{i in S} w_i u_i^T = -M`` exactly?  With a 0/1 vector ``z``
this reads ``A(z) := W_down diag(z) W_up + M = 0``.

Every float64 number is a dyadic rational, so the question is a question about
integers once all entries are multiplied by a suitable power of two.  This module
offers

* exact helpers (:func:`to_fraction_matrix`, :func:`verify_index_set`),
* cheap necessary conditions (:func:`necessary_conditions`),
* an exact meet-in-the-middle enumeration for small ``m`` (:func:`exhaustive_search`),
* a scalable certificate of non-existence from a convex relaxation
  (:func:`relaxation_certificate`), re-checkable from the weights and one matrix
  ``Y`` alone (:func:`check_linear_certificate`),
* the combination (:func:`find_index_set`).

Only numpy, scipy (optional, for symmetric BLAS kernels) and the standard library
are used, and every function takes plain arrays.
"""

from __future__ import annotations

import base64
import hashlib
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable

import numpy as np

from . import linalg

try:  # scipy only speeds up the relaxation (symmetric rank-k update, symmetric mat-vec)
    from scipy.linalg import blas as _blas
except Exception:  # pragma: no cover - scipy is a declared dependency
    _blas = None

__all__ = [
    "SearchResult",
    "to_fraction_matrix",
    "verify_index_set",
    "condition_residual",
    "necessary_conditions",
    "exhaustive_search",
    "relaxation_certificate",
    "check_linear_certificate",
    "find_index_set",
    "encode_matrix",
    "decode_matrix",
]

# Unit roundoff of binary64 and a bound for the absolute error of one product that
# lands in the subnormal range.  2^-1022 (the smallest normal number) also covers
# hardware that flushes subnormal results to zero.
_U = 2.0 ** -53
_ETA = 2.0 ** -1022


# ----------------------------------------------------------------------------
# input handling and exact representations
# ----------------------------------------------------------------------------


def _as_f64(a: Any, name: str, ndim: int = 2) -> np.ndarray:
    """Return ``a`` as a float64 array of the given rank, rejecting NaN and Inf."""
    arr = np.asarray(a, dtype=np.float64)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or Inf")
    return arr


def _check_shapes(W_up: Any, W_down: Any, M: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate the three arrays and return them as float64."""
    U = _as_f64(W_up, "W_up")
    W = _as_f64(W_down, "W_down")
    Mm = _as_f64(M, "M")
    m, d = U.shape
    if W.shape != (d, m):
        raise ValueError(f"W_down must have shape {(d, m)}, got {W.shape}")
    if Mm.shape != (d, d):
        raise ValueError(f"M must have shape {(d, d)}, got {Mm.shape}")
    return U, W, Mm


def _normalize_S(S: Iterable[int] | np.ndarray, m: int) -> np.ndarray:
    """Turn an index collection or a 0/1 vector of length m into sorted unique indices."""
    arr = np.asarray(list(S) if not isinstance(S, np.ndarray) else S)
    if arr.dtype == bool:
        if arr.shape != (m,):
            raise ValueError("a boolean mask for S must have length m")
        return np.flatnonzero(arr)
    idx = np.unique(arr.astype(np.int64)) if arr.size else np.zeros(0, dtype=np.int64)
    if idx.size and (idx[0] < 0 or idx[-1] >= m):
        raise ValueError(f"indices of S must lie in 0..{m - 1}")
    return idx


def to_fraction_matrix(a: Any) -> np.ndarray:
    """Convert a float64 array exactly to an object array of Fractions (NaN/Inf rejected)."""
    arr = np.asarray(a, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError("array contains NaN or Inf; it has no exact rational value")
    out = np.empty(arr.shape, dtype=object)
    flat_in = arr.ravel()
    flat_out = out.ravel()  # a view, because `out` is freshly allocated and contiguous
    for k in range(flat_in.size):
        # Fraction(float) is exact: every finite double is m * 2^e.
        flat_out[k] = Fraction(float(flat_in[k]))
    return out


class _Dyadic:
    """Exact view of a float64 array as ``mant * 2^exp`` with odd int64 mantissas.

    ``scale`` is the least s >= 0 making every entry of ``a * 2^s`` an integer;
    ``top`` is the largest exponent, used for a-priori size bounds.
    """

    def __init__(self, a: np.ndarray) -> None:
        fr, ex = np.frexp(a)
        mant = (fr * 2.0 ** 53).astype(np.int64)  # exact: |fr| < 1 carries 53 bits
        ex = ex.astype(np.int64) - 53
        nz = mant != 0
        absm = np.abs(mant)
        low = absm & (-absm)  # lowest set bit, a power of two (0 for zero entries)
        tz = np.zeros_like(ex)
        tz[nz] = np.frexp(low[nz].astype(np.float64))[1].astype(np.int64) - 1
        self.mant = np.where(nz, mant >> tz, 0)
        self.exp = np.where(nz, ex + tz, 0)
        self.nonzero = nz
        self.shape = a.shape
        self.scale = int(max(0, -int(self.exp[nz].min()))) if nz.any() else 0
        self.top = int(self.exp[nz].max()) if nz.any() else 0  # largest exponent
        self._uniq: tuple[int, np.ndarray, np.ndarray] | None = None

    def max_abs_int(self, s: int) -> int:
        """An upper bound (as a Python int) for |entries| of ``a * 2^s``."""
        if not self.nonzero.any():
            return 0
        return (1 << 53) << max(0, self.top + s)

    def residues(self, p: int, s: int) -> np.ndarray:
        """Residues in [0, p) of the integer matrix ``a * 2^s`` (requires s >= scale)."""
        sh = self.exp + s
        if self.nonzero.any() and int(sh[self.nonzero].min()) < 0:
            raise ValueError("scale too small for an integer representation")
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


def _mod_matmul_zero(
    left: _Dyadic, right: _Dyadic, extra: _Dyadic,
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


def _sub(D: _Dyadic, rows: np.ndarray | None, cols: np.ndarray | None) -> _Dyadic:
    """A sub-matrix of a dyadic view, keeping the representation exact."""
    new = object.__new__(_Dyadic)
    sel = (slice(None) if rows is None else rows, slice(None) if cols is None else cols)
    new.mant = D.mant[sel]
    new.exp = D.exp[sel]
    new.nonzero = D.nonzero[sel]
    new.shape = new.mant.shape
    nz = new.nonzero
    new.scale = int(max(0, -int(new.exp[nz].min()))) if nz.any() else 0
    new.top = int(new.exp[nz].max()) if nz.any() else 0
    new._uniq = None
    return new


def verify_index_set(W_up: Any, W_down: Any, M: Any, S: Iterable[int] | np.ndarray) -> bool:
    """Exactly decide whether ``W_down[:,S] @ W_up[S,:] + M == 0`` (multi-modular, exact)."""
    U, W, Mm = _check_shapes(W_up, W_down, M)
    idx = _normalize_S(S, U.shape[0])
    return _mod_matmul_zero(_Dyadic(W), _Dyadic(U), _Dyadic(Mm), idx, idx)


def condition_residual(W_up: Any, W_down: Any, M: Any, S: Iterable[int] | np.ndarray) -> float:
    """Max-abs entry of ``W_down[:,S] @ W_up[S,:] + M`` in float64 (a size of the near miss)."""
    U, W, Mm = _check_shapes(W_up, W_down, M)
    idx = _normalize_S(S, U.shape[0])
    A = W[:, idx] @ U[idx, :] + Mm
    return float(np.max(np.abs(A))) if A.size else 0.0


# ----------------------------------------------------------------------------
# rigorous float bounds and the necessary conditions
# ----------------------------------------------------------------------------


def _rigorous_sum_bounds(terms: np.ndarray, term_err: np.ndarray | float) -> tuple[float, float]:
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
    slack = (2.0 * _U * abs(x) + e * (1.0 + 4.0 * _U) + 2.0 ** -1074) * (1.0 + 8.0 * _U)
    lo = math.nextafter(math.nextafter(x - slack, -math.inf), -math.inf)
    hi = math.nextafter(math.nextafter(x + slack, math.inf), math.inf)
    return lo, hi


def _frac_down(q: Fraction) -> float:
    """The largest float64 not above the rational q (finite q assumed)."""
    f = float(q)
    while Fraction(f) > q:
        f = math.nextafter(f, -math.inf)
    return f


def _frac_up(q: Fraction) -> float:
    """The smallest float64 not below the rational q."""
    f = float(q)
    while Fraction(f) < q:
        f = math.nextafter(f, math.inf)
    return f


def _gamma(n: int) -> float:
    """Upper bound on gamma_n = n u / (1 - n u), rounded up (Higham's dot-product constant)."""
    nu = n * _U
    if nu >= 0.5:
        raise ValueError("dimension too large for the float64 error bound")
    return math.nextafter(nu / (1.0 - nu) * (1.0 + 4 * _U), math.inf)


def _exact_small(m: int, d: int) -> bool:
    """Whether exact Python-int arithmetic over all m d^2 terms is affordable."""
    return m * d * d <= 400_000


def _linear_functional_terms(
    U: np.ndarray, W: np.ndarray, Mm: np.ndarray, Y: np.ndarray, exact: bool
) -> tuple[Any, Any, str]:
    """Return (a, c, how): a_i = w_i^T Y u_i and c = <Y, M>, exactly or with error bounds.

    Exact mode returns Fractions.  Float mode returns ((a_hat, a_err), (c_hat, c_err))
    where the true values lie within the stated errors (see the comment below).
    """
    m, d = U.shape
    if exact:
        # scale every matrix to integers (Python ints, no overflow) and divide once at the end
        DU, DW, DM, DY = _Dyadic(U), _Dyadic(W), _Dyadic(Mm), _Dyadic(Y)
        Ui, Wi = DU.python_ints(DU.scale), DW.python_ints(DW.scale)
        Mi, Yi = DM.python_ints(DM.scale), DY.python_ints(DY.scale)
        G = Wi.T @ Yi  # m x d exact integers
        den_a = 1 << (DU.scale + DW.scale + DY.scale)
        a = [Fraction(sum(G[i, k] * Ui[i, k] for k in range(d)), den_a) for i in range(m)]
        c = Fraction(int(sum(Yi.ravel() * Mi.ravel())), 1 << (DY.scale + DM.scale))
        return a, c, "exact"
    # Float64 with an a-priori bound.  Model: each BLAS entry of W^T Y is a sum of d
    # rounded products in some order (no fast matrix multiplication), so
    #   |fl(W^T Y) - W^T Y| <= gamma_d |W|^T |Y| + (1+gamma_d) d eta   (entrywise),
    # and likewise for the row-wise dot with U.  Combining both stages,
    #   |a_hat_i - a_i| <= (2 gamma_d + gamma_d^2) |w_i|^T |Y| |u_i|
    #                      + 3 d eta (1 + sum_k |u_ik|),
    # and |w_i|^T |Y| |u_i| <= ||w_i||_2 ||Y||_F ||u_i||_2 (Cauchy-Schwarz twice), which
    # avoids a second large product.  The norms are rounded up by _norm_up.
    if np.count_nonzero(Y - np.diag(np.diagonal(Y))) == 0:
        # diagonal Y (e.g. M = I at z = 0): G_ik = w_ki y_k needs one rounding per
        # entry instead of a length-d dot product, so the bound below still holds
        G = W.T * np.diagonal(Y)[None, :]
    else:
        G = W.T @ Y
    a_hat = np.einsum("ik,ik->i", G, U)
    del G
    g = _gamma(d)
    nw = _col_norms_up(W)
    nu_ = _col_norms_up(U.T)
    nY = _norm_up(Y.ravel())
    l1u = _up(np.sum(np.abs(U), axis=1) * (1.0 + _gamma(d)))
    k = _up(2.0 * g + g * g) * (1.0 + 8 * _U)
    a_err = _up(_up(_up(k * nw) * nu_) * nY) + _up(3.0 * d * _ETA * (1.0 + l1u)) * (1.0 + 8 * _U)
    a_err = _up(a_err)
    # <Y, M> over the nonzero entries of M (n of them): rounded products, summed with
    # math.fsum (correctly rounded) for moderate n, else with numpy (error gamma_n):
    # |c_hat - c| <= u/(1-u) sum|p_hat| + n eta + [u |c_hat|  or  gamma_n sum|p_hat|].
    nzm = Mm != 0
    prods = Y[nzm] * Mm[nzm]
    n = prods.size
    absp = np.abs(prods)
    if n <= 1_000_000:
        c_hat = math.fsum(prods.tolist())
        abs_sum = math.fsum(absp.tolist())
        sum_err = _U * abs(c_hat)
    else:
        c_hat = float(np.sum(prods))
        abs_sum = float(np.sum(absp)) / (1.0 - _gamma(n))  # upper bound for sum|p_hat|
        sum_err = _gamma(n) * abs_sum * (1.0 + 4 * _U)
    abs_sum_up = _up1((abs_sum + n * _ETA) * (1.0 + 4 * _U))
    c_err = _up1((2.0 * _U * abs_sum_up + sum_err + (n + 1) * _ETA) * (1.0 + 8 * _U))
    return (a_hat, a_err), (c_hat, c_err), "float64-rigorous"


def _up(x: np.ndarray | float) -> np.ndarray:
    """Move every entry one ulp towards +inf (covers the rounding of the last operation)."""
    return np.nextafter(np.asarray(x, dtype=np.float64), np.inf)


def _up1(x: float) -> float:
    """Scalar version of :func:`_up`."""
    return math.nextafter(float(x), math.inf)


def _norm_up(v: np.ndarray) -> float:
    """An upper bound for the Euclidean norm of a float64 vector."""
    # fl(sum of squares) >= (1 - gamma_{n+1}) * true - n eta; the sqrt adds one rounding.
    n = v.size
    s = math.fsum((v * v).tolist()) if n <= 1_000_000 else float(np.dot(v, v))
    s_up = (s + (n + 1) * _ETA) / (1.0 - _gamma(n + 2))
    return _up1(_up1(math.sqrt(_up1(s_up))) * (1.0 + 4 * _U))


def _col_norms_up(A: np.ndarray) -> np.ndarray:
    """Upper bounds for the Euclidean norms of the columns of A."""
    n = A.shape[0]
    s = np.einsum("ij,ij->j", A, A)
    s_up = _up((s + (n + 1) * _ETA) / (1.0 - _gamma(n + 2)))
    return _up(_up(np.sqrt(s_up)) * (1.0 + 4 * _U))


def necessary_conditions(W_up: Any, W_down: Any, M: Any) -> dict[str, Any]:
    """Cheap necessary conditions for an index set S with sum_{i in S} w_i u_i^T = -M."""
    U, W, Mm = _check_shapes(W_up, W_down, M)
    m, d = U.shape
    checks: dict[str, dict[str, Any]] = {}
    violated: list[str] = []

    active = (np.any(U != 0, axis=1)) & (np.any(W != 0, axis=0))
    n_active = int(active.sum())
    small_rank = max(m, d) <= 48

    # rank(M) <= rank(sum over S) <= min(rank W_up, rank W_down, number of nonzero units in S)
    if small_rank:
        rM = linalg.rank(Mm)
        rU, rW = linalg.rank(U), linalg.rank(W)
        ok = min(rU, rW, n_active) >= rM
        checks["rank"] = {"holds": ok, "rank_M": rM, "rank_W_up": rU, "rank_W_down": rW,
                          "nonzero_units": n_active, "method": "exact (python-flint)"}
    else:
        # Only a lower bound for rank(M) is cheap and rigorous at large sizes
        # (rank modulo a prime never exceeds the rational rank); upper bounds for the
        # weights' ranks are skipped, only the count of nonzero units is used.
        if np.count_nonzero(Mm - np.diag(np.diag(Mm))) == 0:
            rM_lo = int(np.count_nonzero(np.diag(Mm)))
            how = "M diagonal: exact rank"
        elif d <= 768:
            rM_lo = linalg.rank_mod_p(Mm)
            how = "rank of M mod a prime (lower bound)"
        else:
            rM_lo, how = 0, "skipped (large non-diagonal M)"
        ok = n_active >= rM_lo
        checks["rank"] = {"holds": ok, "rank_M_lower": rM_lo, "nonzero_units": n_active,
                          "method": how + "; ranks of W_up/W_down not computed at this size"}
    if not checks["rank"]["holds"]:
        violated.append("rank")

    # trace: Y = I gives <I, A(s)> = tr M + sum_i s_i u_i.w_i, which must vanish, so
    # -tr M must lie in [sum of negative a_i, sum of positive a_i], a_i = u_i.w_i.
    P = (W * U.T)  # P[j, i] = w_ji u_ij, one rounding per product
    trM = sum((Fraction(float(x)) for x in np.diag(Mm)), Fraction(0))
    exact_md = m * d <= 400_000
    if exact_md:
        # P_ji = w_ji u_ij as exact integers scaled by 2^(sw+su)
        DU, DW = _Dyadic(U), _Dyadic(W)
        den = 1 << (DU.scale + DW.scale)
        Pint = DW.python_ints(DW.scale) * DU.python_ints(DU.scale).T
        a_int = Pint.sum(axis=0) if d else np.zeros(m, dtype=object)
        neg = Fraction(int(sum(x for x in a_int if x < 0)), den)
        pos = Fraction(int(sum(x for x in a_int if x > 0)), den)
        ok = neg <= -trM <= pos
        checks["trace"] = {"holds": ok, "minus_trace": str(-trM), "reachable_low": str(neg),
                           "reachable_high": str(pos), "method": "exact"}
    else:
        # a_hat_i = fl(sum_k P_ki): each product has error <= u|p|/(1-u) + eta and the
        # summation adds gamma_d sum|p_hat|, so |a_hat_i - a_i| <= gamma_{d+1}(1+gamma)
        # sum_k |p_hat_ki| + 2 d eta; the sum of |p_hat| is inflated to an upper bound.
        a_hat = P.sum(axis=0)
        g = _gamma(d + 1)
        absP = _up(np.abs(P).sum(axis=0) * (1.0 + _gamma(d)))
        err = _up(_up(g * (1.0 + 2.0 * g)) * absP + 4.0 * d * _ETA)
        neg_lo, _ = _rigorous_sum_bounds(np.minimum(a_hat, 0.0), err)
        _, pos_hi = _rigorous_sum_bounds(np.maximum(a_hat, 0.0), err)
        # infinite bounds (overflow) leave the condition undecided, i.e. not violated
        ok = (math.isinf(neg_lo) or Fraction(neg_lo) <= -trM) and \
            (math.isinf(pos_hi) or -trM <= Fraction(pos_hi))
        checks["trace"] = {"holds": ok, "minus_trace": float(-trM), "reachable_low": neg_lo,
                           "reachable_high": pos_hi,
                           "method": "float64 with a-priori rounding bound (widened interval)"}
    if not ok:
        violated.append("trace")

    # diagonal entries: Y = E_jj gives M_jj + sum_i s_i w_ji u_ij = 0.  O(m d) in total.
    diag_bad: list[int] = []
    if exact_md:
        for j in range(d):
            row = Pint[j]
            mj = Fraction(float(Mm[j, j]))
            lo = mj + Fraction(int(sum(x for x in row if x < 0)), den)
            hi = mj + Fraction(int(sum(x for x in row if x > 0)), den)
            if lo > 0 or hi < 0:
                diag_bad.append(j)
        dmethod = "exact"
    else:
        # product error <= u |p_hat| / (1 - u) + eta; sums then exact via Fractions
        # only for the few rows that look violated in float.
        err = (_U * np.abs(P) / (1 - _U) + _ETA) * (1 + 4 * _U)
        lo_f = np.diag(Mm) + np.minimum(P, 0).sum(axis=1)
        hi_f = np.diag(Mm) + np.maximum(P, 0).sum(axis=1)
        scale = np.abs(np.diag(Mm)) + np.abs(P).sum(axis=1)
        suspects = np.flatnonzero((lo_f > 1e-9 * scale) | (hi_f < -1e-9 * scale))
        for j in suspects[:64]:
            lo, _ = _rigorous_sum_bounds(np.append(np.minimum(P[j], 0), Mm[j, j]),
                                         np.append(err[j], 0.0))
            _, hi = _rigorous_sum_bounds(np.append(np.maximum(P[j], 0), Mm[j, j]),
                                         np.append(err[j], 0.0))
            if lo > 0 or hi < 0:
                diag_bad.append(int(j))
        dmethod = "float64 products with rounding bounds, exact summation"
    checks["diagonal"] = {"holds": not diag_bad, "violated_rows": diag_bad[:32],
                          "method": dmethod}
    if diag_bad:
        violated.append("diagonal")

    return {"possible": not violated, "violated": violated, "checks": checks,
            "exact": True}


# ----------------------------------------------------------------------------
# exact meet-in-the-middle enumeration
# ----------------------------------------------------------------------------

_P31 = 2147483647  # 2^31 - 1, prime


def _fingerprints(
    DU: _Dyadic, DW: _Dyadic, DM: _Dyadic, units: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, list[int]]:
    """Two random linear fingerprints of each unit's outer product and of -M, packed in int64.

    The fingerprint of a d x d matrix X is <r s^T, 2^E X> mod p for random r, s;
    it is additive, so a true solution always matches, and every match is then
    verified exactly (false matches cost time, never correctness).
    """
    p = _P31
    su, sw, sm = DU.scale, DW.scale, DM.scale
    E = max(su + sw, sm)
    Ur = DU.residues(p, su)[units, :]  # |units| x d
    Wr = DW.residues(p, sw)[:, units]  # d x |units|
    Mr = DM.residues(p, sm)
    c1 = pow(2, E - su - sw, p)
    c2 = pow(2, E - sm, p)
    fs, ts = [], []
    d = Ur.shape[1]
    for _ in range(2):
        r = rng.integers(0, p, size=d, dtype=np.int64)
        s = rng.integers(0, p, size=d, dtype=np.int64)
        a = ((Wr * r[:, None]) % p).sum(axis=0) % p  # r . w_i
        b = ((Ur * s[None, :]) % p).sum(axis=1) % p  # s . u_i
        f = (a * b) % p * c1 % p
        Ms = ((Mr * s[None, :]) % p).sum(axis=1) % p  # M s
        t = int(((Ms * r) % p).sum() % p) * c2 % p
        fs.append(f)
        ts.append((-t) % p)
    return np.stack(fs), ts


def _subset_sums(f: np.ndarray, p: int) -> np.ndarray:
    """All 2^k subset sums mod p of the columns of f (2 x k); index bit j <-> element j."""
    out = np.zeros((f.shape[0], 1), dtype=np.int64)
    for j in range(f.shape[1]):
        out = np.concatenate([out, (out + f[:, j:j + 1]) % p], axis=1)
    return out


def exhaustive_search(
    W_up: Any, W_down: Any, M: Any, max_m: int = 40, limit: int | None = None, seed: int = 0,
    check_necessary: bool = True,
) -> list[tuple[int, ...]]:
    """All index sets S with W_down[:,S] W_up[S,:] = -M exactly (meet in the middle, m <= max_m).

    Pruning: the necessary conditions are tested first; units whose outer product
    is exactly zero are factored out (every subset of them can be added to a
    solution); the two halves are matched on exact additive fingerprints modulo
    2^31 - 1, and each match is confirmed with the exact multi-modular verifier.
    """
    U, W, Mm = _check_shapes(W_up, W_down, M)
    m, d = U.shape
    DU, DW, DM = _Dyadic(U), _Dyadic(W), _Dyadic(Mm)
    # Units whose outer product is exactly zero never change the sum: search the
    # others and attach every subset of the zero units at the end.
    active = np.flatnonzero(np.any(U != 0, axis=1) & np.any(W != 0, axis=0))
    zero_units = np.setdiff1d(np.arange(m), active)
    k = active.size
    if k > max_m:
        raise ValueError(f"exhaustive search over {k} nonzero units exceeds max_m={max_m}; "
                         "use relaxation_certificate or find_index_set instead")
    if check_necessary and not necessary_conditions(U, W, Mm)["possible"]:
        return []
    rng = np.random.default_rng(seed)
    p = _P31
    f, t = _fingerprints(DU, DW, DM, active, rng)
    h = k // 2
    left = _subset_sums(f[:, :h], p)
    right = _subset_sums(f[:, h:], p)
    lkey = left[0] * p + left[1]
    need = ((t[0] - right[0]) % p) * p + ((t[1] - right[1]) % p)
    order = np.argsort(lkey, kind="stable")
    sk = lkey[order]
    lo = np.searchsorted(sk, need, side="left")
    hi = np.searchsorted(sk, need, side="right")
    found: list[tuple[int, ...]] = []
    base: list[tuple[int, ...]] = []
    for rj in np.flatnonzero(hi > lo):
        for li in order[lo[rj]:hi[rj]]:
            li, rji = int(li), int(rj)
            S = [int(active[b]) for b in range(h) if (li >> b) & 1]
            S += [int(active[h + b]) for b in range(k - h) if (rji >> b) & 1]
            if _mod_matmul_zero(DW, DU, DM, np.array(S, dtype=np.int64),
                                np.array(S, dtype=np.int64)):
                base.append(tuple(sorted(S)))
    zl = [int(z) for z in zero_units]
    for S in base:
        for mask in range(1 << len(zl)):
            extra = [zl[b] for b in range(len(zl)) if (mask >> b) & 1]
            found.append(tuple(sorted(S + tuple(extra))))
            if limit is not None and len(found) >= limit:
                return sorted(found)
    return sorted(found)


# ----------------------------------------------------------------------------
# linear certificates and the relaxation
# ----------------------------------------------------------------------------


def check_linear_certificate(
    W_up: Any, W_down: Any, M: Any, Y: Any, method: str = "auto"
) -> dict[str, Any]:
    """Rigorously re-check that min over 0/1 s of <Y, A(s)> is positive, from the weights and Y alone.

    ``method``: "exact" (Fractions; small sizes), "float" (float64 with an a-priori
    rounding-error bound, valid at any size) or "auto".
    """
    U, W, Mm = _check_shapes(W_up, W_down, M)
    Yv = _as_f64(Y, "Y")
    m, d = U.shape
    if Yv.shape != (d, d):
        raise ValueError(f"Y must have shape {(d, d)}")
    exact = _exact_small(m, d) if method == "auto" else method == "exact"
    a, c, how = _linear_functional_terms(U, W, Mm, Yv, exact)
    if how == "exact":
        L = c + sum((min(Fraction(0), x) for x in a), Fraction(0))
        lower = _frac_down(L)
        nY2 = sum((Fraction(float(y)) ** 2 for y in Yv.ravel()), Fraction(0))
        certified = L > 0
        dist = 0.0
        if certified and nY2 > 0:
            # ||A(s)||_F >= <Y, A(s)>/||Y||_F >= L/||Y||_F; compare squares exactly
            dist = _sqrt_down(L * L / nY2)
        return {"certified": bool(certified), "lower_bound": lower, "distance_lower_bound": dist,
                "method": how, "lower_bound_exact": str(L)}
    (ah, ae), (ch, ce) = a, c
    lower, _ = _rigorous_sum_bounds(np.append(np.minimum(0.0, ah), ch), np.append(ae, ce))
    certified = lower > 0.0
    dist = 0.0
    if certified:
        nY = _norm_up(Yv.ravel())
        dist = math.nextafter(lower / nY, -math.inf) if nY > 0 else 0.0
    return {"certified": bool(certified), "lower_bound": lower, "distance_lower_bound": dist,
            "method": how}


def _sqrt_down(q: Fraction) -> float:
    """A float64 lower bound for sqrt(q), q >= 0 rational."""
    x = _frac_down(q)
    r = math.sqrt(x)
    while Fraction(r) ** 2 > q:
        r = math.nextafter(r, -math.inf)
    return r


def _symmetric_products(U: np.ndarray, W: np.ndarray, block: int = 1024,
                        dtype: Any = np.float64) -> np.ndarray:
    """Q = (W^T W) o (U U^T) with only its upper triangle filled (C order, one m x m buffer).

    Row blocks are formed with plain gemm, which OpenBLAS runs faster than syrk,
    and only the columns right of each block's diagonal are computed, so the flop
    count matches syrk while no second m x m array is ever allocated.
    """
    m = U.shape[0]
    Q = np.empty((m, m), dtype=dtype)
    U = U.astype(dtype, copy=False)
    Wt = np.ascontiguousarray(W.T, dtype=dtype)  # m x d, so that row blocks are contiguous
    for i0 in range(0, m, block):
        i1 = min(m, i0 + block)
        G = U[i0:i1] @ U[i0:].T
        G *= Wt[i0:i1] @ Wt[i0:].T
        Q[i0:i1, i0:] = G
        del G
    return Q


def _symv(Q: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Q x for the symmetric Q held in its upper triangle (C order)."""
    if _blas is not None:
        # the C-ordered upper triangle is the lower triangle of the Fortran-ordered Q.T
        if Q.dtype == np.float32:
            return _blas.ssymv(1.0, Q.T, x.astype(np.float32), lower=1).astype(np.float64)
        return _blas.dsymv(1.0, Q.T, x, lower=1)
    return np.triu(Q) @ x + np.triu(Q, 1).T @ x  # pragma: no cover - slow fallback


def _lambda_max_upper(Q: np.ndarray, m: int, iters: int = 30) -> float:
    """A safe step-size constant: at least the largest eigenvalue of the PSD matrix Q (with margin)."""
    # Power iteration gives a lower estimate; the Gershgorin-free bound trace(Q) is an
    # upper bound but can be very loose, so take the power estimate times 1.5 capped by it.
    diag = np.diag(Q)
    tr = float(diag.sum())
    v = np.random.default_rng(0).standard_normal(m)
    lam = 0.0
    for _ in range(iters):
        w = _symv(Q, v)
        nrm = float(np.linalg.norm(w))
        if nrm == 0.0:
            return max(tr, 1e-300)
        lam = nrm / float(np.linalg.norm(v))
        v = w / nrm
    return max(min(1.5 * lam, tr), 1e-300)


def relaxation_certificate(
    W_up: Any, W_down: Any, M: Any, max_iter: int = 300, tol: float = 1e-9,
    check_method: str = "auto", fw_iter: int = 30, refine: bool = False,
    q_dtype: str = "auto",
) -> dict[str, Any]:
    """Minimise ||W_down diag(z) W_up + M||_F^2 over [0,1]^m and turn the iterate into a linear certificate.

    With Y = A(z) at the final z, the identity <Y, A(s)> = <Y, M> + sum_i s_i a_i,
    a_i = w_i^T Y u_i, gives L = <Y,M> + sum_i min(0, a_i) <= <Y, A(s)> for all
    0/1 s; L > 0 proves that no index set exists.  In exact arithmetic L equals
    f(z) - gap/2 (gap = Frank-Wolfe duality gap at z), so the iteration stops as
    soon as that quantity is clearly positive (unless ``refine``).  The first
    ``fw_iter`` steps are Frank-Wolfe with exact line search; after that the
    method switches to accelerated projected gradient (FISTA with restarts), which
    converges much faster when the minimiser is a vertex with zero gradient (the
    condition-satisfying case).  Every iteration costs one symmetric m x m mat-vec.
    ``q_dtype`` ("auto", "float64", "float32"): precision of the m x m matrix Q,
    which only steers the optimiser; "auto" takes float32 for m >= 2048 (half the
    memory and time).  The certificate is re-checked from Y in float64 either way.
    """
    t0 = time.perf_counter()
    U, W, Mm = _check_shapes(W_up, W_down, M)
    m, d = U.shape
    if np.array_equal(Mm, np.eye(d)):
        c = np.einsum("ki,ik->i", W, U)  # c_i = w_i . u_i
    else:
        c = np.einsum("ik,ik->i", W.T @ Mm, U)  # c_i = w_i^T M u_i
    nM2 = float(np.sum(Mm * Mm))
    qdt = np.float32 if (q_dtype == "float32" or (q_dtype == "auto" and m >= 2048)) else np.float64
    rel_eps = 1e-5 if qdt == np.float32 else 1e-10  # accuracy of objective values
    z = np.zeros(m)
    Qz = np.zeros(m)
    f = nM2
    best_vertex: tuple[float, np.ndarray] | None = None
    Q: np.ndarray | None = None
    it = 0
    gap = math.inf
    status = "max_iter"
    t_setup = 0.0
    lip = 0.0
    z_prev, Qz_prev, f_prev, tk = z, Qz, f, 1.0

    def consider_vertex(sv: np.ndarray, Qsv: np.ndarray) -> bool:
        """Record a binary point; True when its objective is zero up to rounding."""
        nonlocal best_vertex
        quad = float(sv @ Qsv)
        lin = float(c @ sv)
        # objective relative to the size of its terms (cancellation limits accuracy)
        fs = (quad + 2.0 * lin + nM2) / (abs(quad) + 2.0 * abs(lin) + nM2 + 1e-300)
        if best_vertex is None or fs < best_vertex[0]:
            best_vertex = (fs, sv.copy())
        return fs <= rel_eps

    while True:
        grad_half = Qz + c  # a_i = w_i^T A(z) u_i
        s = (grad_half < 0).astype(np.float64)
        dvec = s - z
        gap = float(-2.0 * grad_half @ dvec)
        L_est = f - gap / 2.0
        # stop when the float estimate is safely positive; the rigorous check follows
        if not refine and L_est > 1e3 * rel_eps * max(f, 1e-300) and L_est > 0:
            status = "positive"
            break
        if gap <= tol * max(nM2, 1e-300) or f <= 1e-300:
            status = "converged"
            break
        if it >= max_iter:
            break
        if Q is None:
            ts = time.perf_counter()
            Q = _symmetric_products(U, W, dtype=qdt)
            t_setup = time.perf_counter() - ts
        if it < fw_iter:
            Qs = _symv(Q, s)
            hit = consider_vertex(s, Qs)
            Qd = Qs - Qz
            dQd = float(dvec @ Qd)
            gamma = 1.0 if dQd <= 0 else min(1.0, gap / (2.0 * dQd))
            z = z + gamma * dvec
            Qz = Qz + gamma * Qd
        else:
            if lip == 0.0:
                lip = _lambda_max_upper(Q, m)
                z_prev, Qz_prev, f_prev, tk = z, Qz, f, 1.0
            # FISTA step on f/2 = z'Qz/2 + c'z + const, gradient Qz + c, Lipschitz lip
            t_next = (1.0 + math.sqrt(1.0 + 4.0 * tk * tk)) / 2.0
            beta = (tk - 1.0) / t_next
            y = z + beta * (z - z_prev)
            Qy = Qz + beta * (Qz - Qz_prev)
            z_new = np.clip(y - (Qy + c) / lip, 0.0, 1.0)
            Qz_new = _symv(Q, z_new)
            f_new = float(z_new @ Qz_new + 2.0 * c @ z_new + nM2)
            if f_new > f:  # restart the momentum when the objective goes up
                tk, z_prev, Qz_prev = 1.0, z, Qz
                z_new = np.clip(z - (Qz + c) / lip, 0.0, 1.0)
                Qz_new = _symv(Q, z_new)
            else:
                tk = t_next
                z_prev, Qz_prev = z, Qz
            z, Qz = z_new, Qz_new
            hit = False
            if it % 10 == 0:
                sr = (z > 0.5).astype(np.float64)
                hit = consider_vertex(sr, _symv(Q, sr))
        np.clip(z, 0.0, 1.0, out=z)
        f = float(z @ Qz + 2.0 * c @ z + nM2)
        it += 1
        if hit:
            status = "binary_candidate"
            break
    del Q
    # the certificate matrix Y = A(z); z = 0 gives Y = M without any large product
    if np.any(z):
        nzc = np.flatnonzero(z)
        Y = W[:, nzc] @ (z[nzc, None] * U[nzc, :]) + Mm
    else:
        Y = Mm.copy()
    t_cert = time.perf_counter()
    chk = check_linear_certificate(U, W, Mm, Y, method=check_method)
    # binary points worth an exact check: the best vertex seen, and z rounded at 1/2
    # when the relaxed objective is small (the minimiser is then close to binary)
    candidates: list[tuple[int, ...]] = []
    if best_vertex is not None and best_vertex[0] <= 1e4 * rel_eps:
        candidates.append(tuple(int(i) for i in np.flatnonzero(best_vertex[1])))
    zr = tuple(int(i) for i in np.flatnonzero(z > 0.5))
    if f <= 1e-4 * max(nM2, 1e-300) and zr not in candidates:
        candidates.append(zr)
    out = {
        "certified": chk["certified"],
        "lower_bound": chk["lower_bound"],
        "distance_lower_bound": chk["distance_lower_bound"],
        "method": "frank-wolfe/fista + linear certificate (" + chk["method"] + ")",
        "check": chk,
        "Y": Y,
        "z": z,
        "objective": f,
        "gap": gap,
        "iterations": it,
        "status": status,
        "candidates": candidates,
        "time_setup_Q": t_setup,
        "q_dtype": np.dtype(qdt).name,
        "time_check": time.perf_counter() - t_cert,
        "time_total": time.perf_counter() - t0,
    }
    return out


# ----------------------------------------------------------------------------
# serialisation of certificate matrices and the combined driver
# ----------------------------------------------------------------------------


def encode_matrix(a: np.ndarray) -> dict[str, Any]:
    """Encode a float64 matrix losslessly for JSON (base64 of little-endian bytes + sha256)."""
    arr = np.ascontiguousarray(np.asarray(a, dtype="<f8"))
    raw = arr.tobytes()
    return {"shape": list(arr.shape), "dtype": "float64-le",
            "base64": base64.b64encode(raw).decode("ascii"),
            "sha256": hashlib.sha256(raw).hexdigest()}


def decode_matrix(obj: dict[str, Any]) -> np.ndarray:
    """Inverse of :func:`encode_matrix`, checking the stored hash."""
    raw = base64.b64decode(obj["base64"])
    if hashlib.sha256(raw).hexdigest() != obj["sha256"]:
        raise ValueError("matrix payload does not match its sha256")
    return np.frombuffer(raw, dtype="<f8").reshape(obj["shape"]).astype(np.float64)


@dataclass
class SearchResult:
    """Outcome of :func:`find_index_set`."""

    status: str  # "found" | "none" | "unknown"
    S: tuple[int, ...] | None
    method: str
    certificate: dict[str, Any] = field(default_factory=dict)
    exact: bool = False


def find_index_set(
    W_up: Any, W_down: Any, M: Any, max_exhaustive: int = 36, max_iter: int = 300
) -> SearchResult:
    """Decide whether an index set S with W_down[:,S] W_up[S,:] = -M exists, with a re-checkable certificate."""
    U, W, Mm = _check_shapes(W_up, W_down, M)
    m, d = U.shape
    nc = necessary_conditions(U, W, Mm)
    if not nc["possible"]:
        return SearchResult("none", None, "necessary condition: " + ",".join(nc["violated"]),
                            {"kind": "necessary_conditions", **_jsonable(nc)}, True)
    active = int(np.sum(np.any(U != 0, axis=1) & np.any(W != 0, axis=0)))
    if active <= max_exhaustive:
        sols = exhaustive_search(U, W, Mm, max_m=max_exhaustive, limit=1, check_necessary=False)
        if sols:
            return SearchResult("found", sols[0], "meet-in-the-middle",
                                {"kind": "index_set", "S": list(sols[0])}, True)
        return SearchResult("none", None, "meet-in-the-middle (exhaustive)",
                            {"kind": "exhaustive", "nonzero_units": active}, True)
    rel = relaxation_certificate(U, W, Mm, max_iter=max_iter)
    for S in rel["candidates"]:
        if verify_index_set(U, W, Mm, S):
            return SearchResult("found", tuple(S), "relaxation rounding + exact verification",
                                {"kind": "index_set", "S": list(S)}, True)
    cert = {"kind": "linear", "Y": encode_matrix(rel["Y"]), "lower_bound": rel["lower_bound"],
            "distance_lower_bound": rel["distance_lower_bound"], "check_method": rel["check"]["method"],
            "gap": rel["gap"], "iterations": rel["iterations"]}
    if rel["certified"]:
        return SearchResult("none", None, rel["method"], cert, True)
    return SearchResult("unknown", None, rel["method"], cert, False)


def _jsonable(obj: Any) -> Any:
    """Convert numpy scalars and tuples inside a nested structure to JSON types."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return obj
