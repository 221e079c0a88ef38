"""Input handling shared by the search modules: validated float64 arrays, index sets, JSON."""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np


def as_f64(a: Any, name: str, ndim: int = 2) -> np.ndarray:
    """Return ``a`` as a float64 array of the given rank, rejecting NaN and Inf."""
    arr = np.asarray(a, dtype=np.float64)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or Inf")
    return arr


def check_shapes(W_up: Any, W_down: Any, M: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate the three arrays and return them as float64."""
    U = as_f64(W_up, "W_up")
    W = as_f64(W_down, "W_down")
    # M = None means the identity; it is formed here, so callers that can decide without
    # it (the rank condition when d exceeds the number of units) check before calling
    Mm = np.eye(U.shape[1]) if M is None else as_f64(M, "M")
    m, d = U.shape
    if W.shape != (d, m):
        raise ValueError(f"W_down must have shape {(d, m)}, got {W.shape}")
    if Mm.shape != (d, d):
        raise ValueError(f"M must have shape {(d, d)}, got {Mm.shape}")
    return U, W, Mm


def normalize_S(S: Iterable[int] | np.ndarray, m: int) -> np.ndarray:
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
