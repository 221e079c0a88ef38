"""Dense blocks with a planted index set, exact in float64 (test and benchmark instances).

Two families, both with W_down[:,S] W_up[S,:] = -M holding exactly for the stored doubles (each
generator checks it with the exact verifier before returning):

* :func:`planted_orthogonal` (large d, m <= d^2): W_up[S] = D Q for a dense orthogonal Q with
  dyadic entries (normalised Hadamard blocks mixed by signed permutations, twice) and a diagonal D
  of powers of two, W_down[:,S] = -M Q^T D^-1; the other units are N(0, 1) rounded to multiples
  of 1/64.  The index condition is then a system the Gram solve settles.
* :func:`planted_dyadic` (small d, m > d^2): |S| = k units; all but d of them are N(0, 1) rounded
  to ``bits`` fractional bits, and the last d solve the condition through a unimodular W_up block
  (unit lower triangular with small integers), computed in exact integer arithmetic.  Many
  significant bits make the lattice embedding of the subset sum sparse (low density).
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from oracle.algebra.search.modular import verify_index_set


def _hadamard(k: int) -> np.ndarray:
    """The Sylvester Hadamard matrix of order 2^k (entries +-1, H H^T = 2^k I)."""
    H = np.ones((1, 1))
    for _ in range(k):
        H = np.block([[H, H], [H, -H]])
    return H


def dyadic_orthogonal(d: int, rng: np.random.Generator) -> np.ndarray:
    """A d x d orthogonal matrix with dyadic entries, dense when 4 divides d.

    H_(4^j) / 2^j is orthogonal with entries +-2^-j; blocks of it on the diagonal (4^j the largest
    power of four dividing d), interleaved with random signed permutations, twice.
    """
    j = 0
    while d % (4 ** (j + 1)) == 0:
        j += 1
    b = 4 ** j
    Hb = _hadamard(2 * j) / 2.0 ** j
    Q = np.eye(d)
    for _ in range(2):
        perm = rng.permutation(d)
        signs = rng.choice([-1.0, 1.0], d)
        Q = (Q[:, perm] * signs[None, :]) @ np.kron(np.eye(d // b), Hb)
    return Q


def planted_orthogonal(d: int, m: int, seed: int = 0, M: Optional[np.ndarray] = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(W_up, W_down, M, S) with |S| = d; M defaults to the identity (any M with small dyadic entries works)."""
    if m < d:
        raise ValueError("a planted index set of size d needs m >= d")
    rng = np.random.default_rng(seed)
    Mm = np.eye(d) if M is None else np.asarray(M, dtype=np.float64)
    Q = dyadic_orthogonal(d, rng)
    e = rng.integers(-3, 4, d)
    U = np.round(rng.standard_normal((m, d)) * 64) / 64
    W = np.round(rng.standard_normal((d, m)) * 64) / 64
    S = np.sort(rng.choice(m, d, replace=False))
    U[S] = np.ldexp(Q, e[:, None])  # D Q: row i times 2^e_i
    W[:, S] = -(Mm @ np.ldexp(Q.T, -e[None, :]))  # -M Q^T D^-1
    if not verify_index_set(U, W, Mm, S):
        raise ValueError("the planted condition is not exact in float64 for this M")
    return U, W, Mm, S


def planted_dyadic(d: int, m: int, k: Optional[int] = None, bits: int = 16, seed: int = 0
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(W_up, W_down, M = I, S) with |S| = k (default max(d, m // 3)) and ``bits``-bit dyadic weights."""
    k = max(d, m // 3) if k is None else k
    if not d <= k <= m or bits > 18:
        raise ValueError("need d <= k <= m and bits <= 18")
    rng = np.random.default_rng(seed)
    one = 1 << bits
    Ui = np.round(rng.standard_normal((m, d)) * one).astype(np.int64)
    Wi = np.round(rng.standard_normal((d, m)) * one).astype(np.int64)
    S = np.sort(rng.choice(m, k, replace=False))
    first, rest = S[:d], S[d:]
    L = np.tril(rng.integers(-2, 3, (d, d)), -1) + np.diag(rng.choice([-1, 1], d))
    Linv = np.round(np.linalg.inv(L)).astype(np.int64)
    if not np.array_equal(Linv @ L, np.eye(d, dtype=np.int64)):
        raise ValueError("unimodular block not inverted exactly")  # pragma: no cover
    Ui[first] = L * one  # W_up[first] = L
    # W_first L = -I - W_rest U_rest; scaled by 2^(2 bits) this is an int64 identity:
    # 2^(2 bits) W_first = R L^-1 with R = -2^(2 bits) I - Wi_rest Ui_rest
    R = -(one * one) * np.eye(d, dtype=np.int64) - Wi[:, rest] @ Ui[rest]
    num = R @ Linv
    if np.any(np.abs(num) >= 2 ** 53):
        raise ValueError("planted weights do not fit float64 exactly; lower bits")
    U = Ui.astype(np.float64) / one
    W = Wi.astype(np.float64) / one
    W[:, first] = num.astype(np.float64) / float(one * one)  # exact: |num| < 2^53, a power-of-two divisor
    if not verify_index_set(U, W, np.eye(d), S):
        raise ValueError("planted condition not exact")  # pragma: no cover
    return U, W, np.eye(d), S
