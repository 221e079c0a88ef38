"""The combined decision: necessary conditions, exhaustive search, or the relaxation certificate."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from oracle.algebra.search.common import check_shapes
from oracle.core.jsontypes import jsonable
from oracle.algebra.search.gram import gram_candidate
from oracle.algebra.search.lattice import MAX_UNITS, lattice_candidates
from oracle.algebra.search.modular import verify_index_set
from oracle.algebra.search.relaxation import encode_matrix, relaxation_certificate
from oracle.algebra.search.subsets import exhaustive_search, necessary_conditions


@dataclass
class SearchResult:
    """Outcome of :func:`find_index_set`."""

    status: str  # "found" | "none" | "unknown"
    S: tuple[int, ...] | None
    method: str
    certificate: dict[str, Any] = field(default_factory=dict)
    exact: bool = False


def _float_screen(U: np.ndarray, W: np.ndarray, Mm: np.ndarray, S: tuple[int, ...]) -> bool:
    """A cheap float64 filter before the exact check: ||W_S U_S + M|| small against its terms' sizes.

    Only decides whether the exact (and slower) verification is worth running; a true solution
    passes (its float residual is rounding error, far below the threshold).
    """
    idx = np.asarray(S, dtype=np.int64)
    with np.errstate(all="ignore"):
        R = (W[:, idx] @ U[idx] if idx.size else 0.0) + Mm
        res = float(np.linalg.norm(R))
        size = float(np.linalg.norm(W[:, idx], axis=0) @ np.linalg.norm(U[idx], axis=1)) if idx.size else 0.0
        size += float(np.linalg.norm(Mm))
    return math.isfinite(res) and res <= 1e-9 * size


def _constructive(U: np.ndarray, W: np.ndarray, Mm: np.ndarray, active: np.ndarray,
                  max_lattice: int) -> tuple[SearchResult | None, dict[str, Any]]:
    """The Gram solve (n <= d^2 units) and lattice reduction (n <= max_lattice): candidates, verified exactly."""
    n, d = active.size, U.shape[1]
    log: dict[str, Any] = {}
    lattice_worth = n <= max_lattice
    if n <= d * d:
        g = gram_candidate(U, W, Mm, active)
        # strict JSON: a non-finite diagnostic (overflow) is recorded as None
        log["gram"] = {k: (None if isinstance(g[k], float) and not math.isfinite(g[k]) else g[k])
                       for k in ("iterations", "relative_residual", "max_deviation", "form", "sketch", "time")}
        S = g["S"]
        # a real solution far from {0, 1} (some entry within 0.05 of 1/2, or outside [-0.45, 1.45])
        # is not worth a d x |S| x d product: no set near it solves the system unless the Gram
        # matrix is singular, which the lattice below is for
        near = g["max_deviation"] is not None and g["max_deviation"] <= 0.45
        if S is not None and near and _float_screen(U, W, Mm, S) and verify_index_set(U, W, Mm, S):
            return SearchResult("found", S, "Gram solve (normal equations) + exact verification",
                                {"kind": "index_set", "S": list(S), "found_by": "gram", **log}, True), log
        if lattice_worth:
            # a nonsingular Gram matrix has one real solution, and it was not 0/1; the lattice
            # can only help when A x = -vec(M) has real solutions (a singular Gram matrix): the
            # real residual of x tells (float64; it only decides whether to try)
            x = g["x"]
            real = False
            if x is not None:
                with np.errstate(all="ignore"):
                    R = W[:, active] @ (x[:, None] * U[active]) + Mm
                    real = float(np.linalg.norm(R)) <= 1e-6 * max(float(np.linalg.norm(Mm)), 1e-300)
            log["gram"]["real_solution"] = real
            lattice_worth = real
    if lattice_worth:
        lat = lattice_candidates(U, W, Mm, active)
        log["lattice"] = {k: lat[k] for k in ("attempted", "dimension", "constraints", "time", "note")}
        for S in lat["candidates"]:
            if _float_screen(U, W, Mm, S) and verify_index_set(U, W, Mm, S):
                return SearchResult("found", S, "lattice reduction (LLL) + exact verification",
                                    {"kind": "index_set", "S": list(S), "found_by": "lattice", **log}, True), log
    return None, log


def find_index_set(
    W_up: Any, W_down: Any, M: Any, max_exhaustive: int = 36, max_iter: int = 300,
    max_lattice: int = MAX_UNITS,
) -> SearchResult:
    """Decide whether an index set S with W_down[:,S] W_up[S,:] = -M exists, with a re-checkable certificate.

    M = None stands for the identity, which is then formed only if the rank condition
    (fewer nonzero units than d) does not already settle the question.  Order: necessary
    conditions; meet in the middle (at most ``max_exhaustive`` nonzero units, exact either way);
    the Gram solve (nonzero units <= d^2) and lattice reduction (at most ``max_lattice`` nonzero
    units), whose candidates count only once verified exactly; the relaxation certificate, which
    can prove that no S exists.
    """
    if M is None:
        nc = necessary_conditions(W_up, W_down, None)
        if not nc["possible"]:
            return SearchResult("none", None, "necessary condition: " + ",".join(nc["violated"]),
                                {"kind": "necessary_conditions", **jsonable(nc)}, True)
    U, W, Mm = check_shapes(W_up, W_down, M)
    m, d = U.shape
    nc = necessary_conditions(U, W, Mm)
    if not nc["possible"]:
        return SearchResult("none", None, "necessary condition: " + ",".join(nc["violated"]),
                            {"kind": "necessary_conditions", **jsonable(nc)}, True)
    active = int(np.sum(np.any(U != 0, axis=1) & np.any(W != 0, axis=0)))
    if active <= max_exhaustive:
        sols = exhaustive_search(U, W, Mm, max_m=max_exhaustive, limit=1, check_necessary=False)
        if sols:
            return SearchResult("found", sols[0], "meet-in-the-middle",
                                {"kind": "index_set", "S": list(sols[0])}, True)
        return SearchResult("none", None, "meet-in-the-middle (exhaustive)",
                            {"kind": "exhaustive", "nonzero_units": active}, True)
    act = np.flatnonzero(np.any(U != 0, axis=1) & np.any(W != 0, axis=0))
    found, tried = _constructive(U, W, Mm, act, max_lattice)
    if found is not None:
        return found
    rel = relaxation_certificate(U, W, Mm, max_iter=max_iter)
    for S in rel["candidates"]:
        if verify_index_set(U, W, Mm, S):
            return SearchResult("found", tuple(S), "relaxation rounding + exact verification",
                                {"kind": "index_set", "S": list(S), **tried}, True)
    cert = {"kind": "linear", "Y": encode_matrix(rel["Y"]), "lower_bound": rel["lower_bound"],
            "distance_lower_bound": rel["distance_lower_bound"], "check_method": rel["check"]["method"],
            "gap": rel["gap"], "iterations": rel["iterations"], **tried}
    if rel["certified"]:
        return SearchResult("none", None, rel["method"], cert, True)
    return SearchResult("unknown", None, rel["method"], cert, False)
