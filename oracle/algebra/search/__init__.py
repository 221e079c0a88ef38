"""Index-set search and non-existence certificates for the relu/gelu condition.

The question (claim ``relu-gelu-iff``, proofs/informal/relu-gelu-iff.md): given ``W_up`` (m x d, rows
``u_i``), ``W_down`` (d x m, columns ``w_i``) and ``M`` (d x d), is there an index
set ``S`` with ``sum_{i in S} w_i u_i^T = -M`` exactly?  With a 0/1 vector ``z``
this reads ``A(z) := W_down diag(z) W_up + M = 0``.

Every float64 number is a dyadic rational, so the question is a question about
integers once all entries are multiplied by a suitable power of two.  The package
is split by concern:

* ``modular``: exact verification of a given S by multi-modular integer
  arithmetic (:func:`verify_index_set`);
* ``bounds``: rigorous float64 rounding-error bounds;
* ``subsets``: cheap necessary conditions (:func:`necessary_conditions`) and the
  exact meet-in-the-middle enumeration for small ``m`` (:func:`exhaustive_search`);
* ``relaxation``: the scalable certificate of non-existence from a convex
  relaxation (:func:`relaxation_certificate`), re-checkable from the weights and
  one matrix ``Y`` alone (:func:`check_linear_certificate`);
* ``gram``: a candidate from the m x m normal equations, for m <= d^2
  (:func:`gram_candidate`; float64, the candidate is then verified exactly);
* ``lattice``: candidates from LLL reduction of the subset-sum embedding, for
  m > d^2 or a singular Gram matrix (:func:`lattice_candidates`; verified exactly);
* ``planted``: dense blocks with a planted index set, exact in float64 (tests, benchmarks);
* ``exact_int``: the same question in Python integers (no 53-bit limit): a divisibility
  obstruction and an exact meet in the middle (:func:`exact_int.exact_subset_search`);
* ``driver``: the combination (:func:`find_index_set`);
* ``distance``: the nearest index set and whether it misses only by rounding
  (:func:`nearest_index_set`).

Every function takes plain arrays; the names below are the public interface (``jsonable``
turns the numpy values inside a certificate into JSON types).
"""

from __future__ import annotations

from oracle.core.jsontypes import jsonable
from oracle.algebra.search import exact_int
from oracle.algebra.search.distance import nearest_index_set, residual_exact, rounding_tolerance
from oracle.algebra.search.driver import SearchResult, find_index_set
from oracle.algebra.search.gram import gram_candidate
from oracle.algebra.search.lattice import lattice_candidates
from oracle.algebra.search.modular import condition_residual, verify_index_set
from oracle.algebra.search.relaxation import (
    check_linear_certificate, decode_matrix, encode_matrix, relaxation_certificate
)
from oracle.algebra.search.subsets import exhaustive_search, necessary_conditions

__all__ = [
    "SearchResult",
    "verify_index_set",
    "condition_residual",
    "necessary_conditions",
    "exhaustive_search",
    "relaxation_certificate",
    "check_linear_certificate",
    "find_index_set",
    "gram_candidate",
    "lattice_candidates",
    "encode_matrix",
    "decode_matrix",
    "nearest_index_set",
    "residual_exact",
    "rounding_tolerance",
    "jsonable",
    "exact_int",
]
