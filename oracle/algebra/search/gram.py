"""A candidate index set from the normal equations of the index condition (float64; never a proof).

With a_i = vec(w_i u_i^T) the index condition reads A s = -vec(M) for a 0/1 vector s.  The Gram
matrix of the columns is never formed from A (d^2 x m): its entries are

    <a_i, a_j> = (w_i . w_j)(u_i . u_j),   so   A^T A = (W_down^T W_down) o (W_up W_up^T),

and A^T vec(M) has entries w_i^T M u_i.  When the a_i are linearly independent (generic weights
with m <= d^2) the real solution of A s = -vec(M), if there is one, is unique and equals the
solution of the m x m system (A^T A) s = -A^T vec(M).  It is computed here by conjugate gradients
(Jacobi preconditioned) in floating point, rounded to 0/1 and screened by a float64 residual; the
caller verifies the rounded set exactly (``modular.verify_index_set``), which is the only step the
verdict rests on.  A singular Gram matrix (repeated units, m > d^2) or a system without a 0/1
solution gives a rounded set that fails the exact check, and the caller moves on.

Memory: the m x m matrix is formed (upper triangle, one buffer) under the same rule as the
relaxation's (``relaxation.Gram``: at most a few times the weights' own memory, or 256 MiB);
otherwise each product Q z is applied implicitly in O(m d) memory.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from oracle.algebra.search.relaxation import Gram, balance


def _cg(apply, rhs: np.ndarray, diag: np.ndarray, max_iter: int, rtol: float) -> tuple[np.ndarray, int, float]:
    """Preconditioned conjugate gradients for Q x = rhs (Q PSD, given as a function); (x, iterations, rel. residual)."""
    m = rhs.size
    x = np.zeros(m)
    r = rhs.copy()
    nb = float(np.linalg.norm(rhs))
    if nb == 0.0:
        return x, 0, 0.0
    pinv = np.where(diag > 0, 1.0 / np.where(diag > 0, diag, 1.0), 0.0)
    z = pinv * r
    p = z.copy()
    rz = float(r @ z)
    it = 0
    rel = 1.0
    while it < max_iter:
        Ap = apply(p)
        pAp = float(p @ Ap)
        if not pAp > 0 or not math.isfinite(pAp):
            break  # a direction of zero curvature: singular (or overflowing) Gram matrix
        a = rz / pAp
        x += a * p
        r -= a * Ap
        it += 1
        rel = float(np.linalg.norm(r)) / nb
        if rel <= rtol or not math.isfinite(rel):
            break
        z = pinv * r
        rz_new = float(r @ z)
        p = z + (rz_new / rz) * p
        rz = rz_new
    return x, it, rel


def gram_candidate(U: np.ndarray, W: np.ndarray, Mm: np.ndarray, units: np.ndarray,
                   max_iter: int = 100, rtol: float = 1e-10, sketch: int = 6, seed: int = 0) -> dict[str, Any]:
    """The rounded real solution of the normal equations over ``units`` (the others get s_i = 0).

    Returns ``{"S", "x", "iterations", "relative_residual", "max_deviation", "form", "sketch", "time"}``:
    ``x`` the real solution, ``S`` the units where it exceeds 1/2 (sorted), ``max_deviation`` the
    largest distance of x from {0, 1} (small when the system has a 0/1 solution and is well
    conditioned), ``sketch`` the size k of the Gaussian sketch used (None: the full system).
    Floating point throughout: the caller verifies ``S`` exactly.
    """
    t0 = time.perf_counter()
    Ub, Wb, Mb, _ = balance(U[units], W[:, units], Mm)
    m, d = Ub.shape
    k = math.isqrt(sketch * m) + 1
    sketched = k < d
    if sketched:
        # R^T (W diag(s) U + M) T = 0 is the same kind of system with k x k matrices; a Gaussian
        # sketch keeps a unique 0/1 solution unique (k^2 > m) at a fraction of the cost
        rng = np.random.default_rng(seed)
        R = rng.standard_normal((d, k)) / math.sqrt(d)
        T = rng.standard_normal((d, k)) / math.sqrt(d)
        with np.errstate(all="ignore"):
            Wb, Ub, Mb = R.T @ Wb, Ub @ T, R.T @ Mb @ T
        m, d = Ub.shape
    with np.errstate(all="ignore"):
        # float32 for the large matrix halves time and memory; CG corrects nothing beyond a
        # candidate, and the exact check decides
        Q = Gram(Ub, Wb, np.float32 if m >= 2048 else np.float64)
        if Q.Q is not None:
            diag = np.diagonal(Q.Q).astype(np.float64)
        else:
            diag = np.einsum("ij,ij->i", Ub, Ub) * np.einsum("ji,ji->i", Wb, Wb)
        if np.count_nonzero(Mb - np.diag(np.diagonal(Mb))) == 0:
            c = np.einsum("ki,ik,k->i", Wb, Ub, np.diagonal(Mb))
        else:
            c = np.einsum("ik,ik->i", Wb.T @ Mb, Ub)
        x, it, rel = _cg(Q, -c, diag, max_iter, rtol)
    form = "m x m matrix" if Q.Q is not None else "implicit (O(m d) memory)"
    del Q
    if not np.all(np.isfinite(x)):
        return {"S": None, "iterations": it, "relative_residual": rel, "max_deviation": math.inf,
                "form": form, "sketch": k if sketched else None, "x": None, "time": time.perf_counter() - t0}
    S = tuple(int(units[i]) for i in np.flatnonzero(x > 0.5))
    dev = float(np.max(np.minimum(np.abs(x), np.abs(x - 1.0)))) if x.size else 0.0
    return {"S": S, "iterations": it, "relative_residual": rel, "max_deviation": dev, "form": form,
            "sketch": k if sketched else None, "x": x,  # for the caller's test of real solvability
            "time": time.perf_counter() - t0}
