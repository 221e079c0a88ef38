"""The combined decision: necessary conditions, exhaustive search, or the relaxation certificate."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from oracle.algebra.search.common import _check_shapes, _jsonable
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


def find_index_set(
    W_up: Any, W_down: Any, M: Any, max_exhaustive: int = 36, max_iter: int = 300
) -> SearchResult:
    """Decide whether an index set S with W_down[:,S] W_up[S,:] = -M exists, with a re-checkable certificate.

    M = None stands for the identity, which is then formed only if the rank condition
    (fewer nonzero units than d) does not already settle the question.
    """
    if M is None:
        nc = necessary_conditions(W_up, W_down, None)
        if not nc["possible"]:
            return SearchResult("none", None, "necessary condition: " + ",".join(nc["violated"]),
                                {"kind": "necessary_conditions", **_jsonable(nc)}, True)
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
