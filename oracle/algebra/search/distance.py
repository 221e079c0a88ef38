"""How far a block is from the index condition: the nearest index set and its residual.

A "not absorbable (exact)" verdict is about the stored floats.  A user who meant
1/3, or a unit scaled by 3, stores a rounding of an absorbable block, and the
useful answer is then "S misses -M only by rounding".  For blocks with few
nonzero units every index set is compared (meet in the middle on squared norms,
in float64: a measurement), and the residual ||W_S U_S + M||_F of the nearest one
is then computed exactly.  The rounding tolerance of S is the size of the error
that rounding every weight to float64 can cause in W_S U_S + M:

    tol(S) = 4 u (sum_{i in S} ||w_i|| ||u_i|| + ||M||_F),    u = 2^-53,

twice the first-order bound 2 u sum |w_i||u_i|^T + u |M| of that error.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np
from oracle.core import linalg
from oracle.core import rational
from oracle.core.rational import fmpq
from oracle.algebra.search.bounds import UROUND
from oracle.algebra.search.common import check_shapes

MAX_PAIRS = 2 ** 22  # left x right subset pairs compared at most (each costs d^2 flops)


def residual_exact(W_up: Any, W_down: Any, M: Any, S: Sequence[int]) -> float:
    """||W_down[:,S] W_up[S,:] + M||_F computed exactly, rounded to the nearest float64."""
    U, W, Mm = check_shapes(W_up, W_down, M)
    idx = sorted(int(i) for i in S)
    A = rational.from_float64(Mm)
    if idx:
        A = A + linalg.matmul(W[:, idx], U[idx])
    sq = fmpq(0)
    for v in A.entries():
        sq += v * v
    try:
        return math.sqrt(float(rational.to_fraction(sq)))
    except OverflowError:
        return math.inf


def rounding_tolerance(W_up: Any, W_down: Any, M: Any, S: Sequence[int]) -> float:
    """The size of W_S U_S + M that rounding each weight to float64 can produce (see the module docstring)."""
    U, W, Mm = check_shapes(W_up, W_down, M)
    idx = np.asarray(sorted(int(i) for i in S), dtype=np.int64)
    with np.errstate(all="ignore"):
        terms = np.linalg.norm(W[:, idx], axis=0) @ np.linalg.norm(U[idx], axis=1) if idx.size else 0.0
        return float(4.0 * UROUND * (terms + np.linalg.norm(Mm)))


def _subset_sums(V: np.ndarray) -> np.ndarray:
    """All 2^k subset sums of the rows of V (k x n), index bit j <-> row j."""
    out = np.zeros((1, V.shape[1]))
    for j in range(V.shape[0]):
        out = np.concatenate([out, out + V[j]], axis=0)
    return out


def nearest_index_set(W_up: Any, W_down: Any, M: Any) -> Optional[dict[str, Any]]:
    """The index set S minimising ||W_S U_S + M||_F over all subsets of the nonzero units, or None when too many.

    The minimum is searched in float64 (||L + R + M||^2 expanded into norms and one
    matrix product of the left and right half's subset sums); the returned residual
    of the chosen S is exact.  Units whose outer product is zero never matter.
    """
    U, W, Mm = check_shapes(W_up, W_down, M)
    m, d = U.shape
    active = np.flatnonzero(np.any(U != 0, axis=1) & np.any(W != 0, axis=0))
    k = active.size
    h = k // 2
    if (1 << h) * (1 << (k - h)) > MAX_PAIRS or (1 << max(h, k - h)) * d * d > 2 ** 25:
        return None
    with np.errstate(all="ignore"):
        outer = np.stack([np.outer(W[:, i], U[i]).ravel() for i in active]) if k else np.zeros((0, d * d))
        L = _subset_sums(outer[:h]) + Mm.ravel()
        R = _subset_sums(outer[h:])
        sq = (np.einsum("ij,ij->i", L, L)[:, None] + np.einsum("ij,ij->i", R, R)[None, :]
              + 2.0 * (L @ R.T))
    if not np.all(np.isfinite(sq)):
        return None  # magnitudes beyond float64: no measurement
    a, b = np.unravel_index(int(np.argmin(sq)), sq.shape)
    S = [int(active[j]) for j in range(h) if (a >> j) & 1]
    S += [int(active[h + j]) for j in range(k - h) if (b >> j) & 1]
    S.sort()
    res = residual_exact(U, W, Mm, S)
    tol = rounding_tolerance(U, W, Mm, S)
    return {"S": S, "residual_fro": res, "rounding_tolerance": tol,
            "within_rounding": bool(res <= tol), "subsets_compared": int(sq.size),
            "method": "all subsets of the nonzero units compared in float64; residual of S exact"}
