"""The algebra of generic-weights (proofs/informal/generic-weights.md): the polynomials whose zero
sets hold the failing weights, their witnesses, the properties recomputed directly, and the
constructions of part (iv) with their exact root counts (Sturm's theorem on python-flint fmpq_poly).
The claim's oracle check (oracle/claims/generic_weights.py) evaluates them on planted weights.

  (i)   minor_rank: det W_up[:r, :r], r = min(m, d); witness rank_witness (ones on the diagonal);
  (ii)  piece_det: det(M + W_down[:,S] W_up[S,:]); witness pieces_witness_down (W_down = 0);
  (iii) row_coord, pair_minor, col_coord (d >= 2); witness nondegenerate_witness;
  (iv)  rank_dense, pieces_dense, nondegenerate_dense: the moves of GenericWeights.v, each trying
        one more rational delta below eps than its polynomials have real roots.
"""

from __future__ import annotations

from itertools import combinations
from fractions import Fraction
from typing import Any

from oracle.core.rational import QMat, fmpq, fmpq_poly, q_str, smat, to_fmpq, to_fmpq_mat, to_fraction
from oracle.algebra.exact import det, index_sum, line_key

__all__ = ["rank", "zeros", "subsets", "mat_add", "axpy", "max_distance", "minor_rank", "piece_det",
           "row_coord", "pair_minor", "col_coord", "rank_witness", "pieces_witness_down",
           "nondegenerate_witness", "zero_rows", "zero_cols", "collinear_pairs", "nondegenerate",
           "interpolate", "real_root_count", "along", "candidates", "rank_dense", "pieces_dense",
           "nondegenerate_dense"]

Q = Fraction


# ---------------------------------------------------------------- exact helpers

def rank(a: QMat, cols: int) -> int:
    """The exact rank of a rational matrix with ``cols`` columns."""
    if not a or cols == 0:
        return 0
    return int(to_fmpq_mat(a, cols).rank())


def zeros(r: int, c: int) -> QMat:
    return [[Q(0)] * c for _ in range(r)]


def subsets(m: int) -> list[tuple[int, ...]]:
    return [tuple(i for i in range(m) if mask >> i & 1) for mask in range(1 << m)]


def mat_add(a: QMat, b: QMat) -> QMat:
    return [[x + y for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]


# ---------------------------------------------------------------- the polynomials

def minor_rank(W_up: QMat, d: int) -> Fraction:
    """(i): the leading r x r minor of W_up, r = min(m, d)."""
    r = min(len(W_up), d)
    return det([row[:r] for row in W_up[:r]])


def piece_det(W_up: QMat, W_down: QMat, M: QMat, S: tuple[int, ...]) -> Fraction:
    """(ii): det(M + W_down[:,S] W_up[S,:])."""
    return det(mat_add(M, index_sum(W_up, W_down, S)))


def row_coord(W_up: QMat, l: int) -> Fraction:
    """(iii): the first coordinate of row l (zero on a zero row)."""
    return W_up[l][0]


def pair_minor(W_up: QMat, l: int, k: int) -> Fraction:
    """(iii): the 2 x 2 minor of rows l, k in coordinates 0, 1 (zero when they are collinear)."""
    return W_up[l][0] * W_up[k][1] - W_up[l][1] * W_up[k][0]


def col_coord(W_down: QMat, l: int) -> Fraction:
    """(iii): the first coordinate of column l (zero on a zero column)."""
    return W_down[0][l]


# ---------------------------------------------------------------- the witnesses

def rank_witness(d: int, m: int) -> QMat:
    """W_up with ones on the diagonal: rank min(m, d)."""
    return [[Q(1) if l == j else Q(0) for j in range(d)] for l in range(m)]


def pieces_witness_down(d: int, m: int) -> QMat:
    """W_down = 0: every M + W_S U_S is M."""
    return zeros(d, m)


def nondegenerate_witness(d: int, m: int) -> tuple[QMat, QMat]:
    """(W_up, W_down) with rows (1, l, 0, ...) and columns e_1 (d >= 2)."""
    up = [[Q(1), Q(l)] + [Q(0)] * (d - 2) for l in range(m)]
    down = [[Q(1) if a == 0 else Q(0) for _ in range(m)] for a in range(d)]
    return up, down


# ---------------------------------------------------------------- the properties, recomputed directly

def zero_rows(W_up: QMat) -> list[int]:
    return [l for l, r in enumerate(W_up) if all(v == 0 for v in r)]


def zero_cols(W_down: QMat, m: int) -> list[int]:
    return [l for l in range(m) if all(row[l] == 0 for row in W_down)]


def collinear_pairs(W_up: QMat) -> list[list[int]]:
    """Pairs of nonzero rows on one line through 0 (zero rows are reported by zero_rows)."""
    keys = [line_key(r) for r in W_up]
    return [[l, k] for l, k in combinations(range(len(W_up)), 2)
            if keys[l] is not None and keys[l] == keys[k]]


def nondegenerate(W_up: QMat, W_down: QMat) -> bool:
    m = len(W_up)
    return not zero_rows(W_up) and not collinear_pairs(W_up) and not zero_cols(W_down, m)


# ---------------------------------------------------------------- (iv): the empty-interior constructions

def interpolate(values: list[Fraction]) -> fmpq_poly:
    """The polynomial of degree < len(values) taking values[i] at t = i (Lagrange, exactly)."""
    n = len(values)
    out = fmpq_poly([0])
    for i, v in enumerate(values):
        term = fmpq_poly([to_fmpq(v)])
        for j in range(n):
            if j != i:
                term = term * fmpq_poly([-j, 1]) * fmpq(1, i - j)
        out = out + term
    return out


def real_root_count(p: fmpq_poly) -> int:
    """The number of distinct real roots of a nonzero polynomial (Sturm's theorem, exactly)."""
    if p.is_zero():
        raise ValueError("the zero polynomial has every real number as a root")
    if p.degree() <= 0:
        return 0
    g = p / p.gcd(p.derivative())  # squarefree, the same roots
    chain = [g, g.derivative()]
    while not chain[-1].is_zero() and chain[-1].degree() > 0:
        chain.append(-(divmod(chain[-2], chain[-1])[1]))
    chain = [c for c in chain if not c.is_zero()]

    def changes(signs: list[int]) -> int:
        signs = [x for x in signs if x != 0]
        return sum(1 for a, b in zip(signs, signs[1:]) if a != b)

    lead = [1 if c.coeffs()[-1] > 0 else -1 for c in chain]
    at_plus = lead
    at_minus = [x * (-1) ** c.degree() for x, c in zip(lead, chain)]
    return changes(at_minus) - changes(at_plus)


def along(f: Any, degree: int) -> tuple[fmpq_poly, bool]:
    """t -> f(t) as a polynomial, from its values at t = 0..degree, and whether it also agrees at
    t = degree + 1 and t = -1 (a check of the degree bound the proof uses)."""
    p = interpolate([f(Q(t)) for t in range(degree + 1)])
    ok = all(to_fraction(p(fmpq(t))) == f(Q(t)) for t in (degree + 1, -1))
    return p, ok


def candidates(scale: Fraction, count: int) -> list[Fraction]:
    """``count`` distinct rationals in (0, scale): scale/2, scale/3, ..."""
    return [scale / (k + 2) for k in range(count)]


def max_distance(a: QMat, b: QMat) -> Fraction:
    return max((abs(x - y) for ra, rb in zip(a, b) for x, y in zip(ra, rb)), default=Q(0))


def axpy(a: QMat, t: Fraction, b: QMat) -> QMat:
    return [[x + t * y for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]


def _record_move(out: dict[str, Any], problems: list[str], clause: str, delta: Fraction,
                 moved: dict[str, tuple[QMat, QMat]], eps: Fraction, what: str
                 ) -> tuple[dict[str, Any], list[str]]:
    """Record the chosen delta, each moved matrix (name -> (moved, drawn)) and the largest distance
    moved; a move that is not below eps is a problem of the clause."""
    dist = max(max_distance(new, old) for new, old in moved.values())
    out.update(delta=q_str(delta), **{k: smat(new) for k, (new, _) in moved.items()}, distance=q_str(dist))
    if not dist < eps:
        problems.append(f"(iv)({clause}) the moved {what} not within eps")
    return out, problems


def rank_dense(W_up: QMat, d: int, eps: Fraction) -> tuple[dict[str, Any], list[str]]:
    """(iv)(i), as in GenericWeights.generic_rank_dense: W_up + delta E, E the rank witness.

    The leading r x r block of W_up + delta E is A + delta I, so q(delta) = det(A + delta I) is
    monic of degree r and has at most r real roots; where q(delta) != 0 the first r rows are
    independent.  The candidates delta = eps/2, eps/3, ... are tried, one more than q has real
    roots; each is checked directly (the rank recomputed) against q."""
    m, problems = len(W_up), []
    r = min(m, d)
    E = rank_witness(d, m)
    q, deg_ok = along(lambda t: minor_rank(axpy(W_up, t, E), d), r)
    if not deg_ok or q.degree() != r or q.coeffs()[-1] != 1:
        problems.append(f"(iv)(i) det(A + delta I) is not monic of degree {r} along W_up + delta E")
        return {"q": str(q)}, problems
    roots = real_root_count(q)
    tried = []
    chosen = None
    for delta in candidates(eps, roots + 1):
        U1 = axpy(W_up, delta, E)
        full, qv = rank(U1, d) == r, to_fraction(q(to_fmpq(delta)))
        tried.append({"delta": q_str(delta), "full_rank": full, "q": q_str(qv)})
        if qv != 0 and not full:
            problems.append(f"(iv)(i) q(delta) != 0 at delta = {q_str(delta)} but the rank is below {r}")
        if full:
            chosen = (delta, U1)
            break
    out: dict[str, Any] = {"q": str(q), "q_real_roots": roots, "tried": tried}
    if roots > r:
        problems.append(f"(iv)(i) det(A + delta I) has {roots} > {r} real roots")
    if chosen is None:
        problems.append(f"(iv)(i) none of {roots + 1} candidates delta < eps gives rank {r}")
        return out, problems
    return _record_move(out, problems, "i", chosen[0], {"W_up": (chosen[1], W_up)}, eps, "W_up is")


def pieces_dense(W_up: QMat, W_down: QMat, M: QMat, eps: Fraction) -> tuple[dict[str, Any], list[str]]:
    """(iv)(ii), as in GenericWeights.generic_pieces_dense: (1 + delta) W_down, W_up kept.

    For each S, p_S(t) = det(M + t W_S U_S) has degree <= d and p_S(0) = det M != 0, so at most d
    values of t make the piece singular (counted exactly per S).  One more candidate than the
    total count is tried, each checked directly (every piece's rank recomputed) against the p_S."""
    m, d, problems = len(W_up), len(M), []
    detM = det(M)
    polys, singular_t = [], []
    for S in subsets(m):
        P = index_sum(W_up, W_down, S)
        p, deg_ok = along(lambda t, P=P: det(axpy(M, t, P)), d)
        if not deg_ok:  # p interpolates d + 1 values, so it has degree <= d; two more values check it
            problems.append(f"(iv)(ii) det(M + t W_S U_S) is not of degree <= {d} for S = {list(S)}")
        if to_fraction(p(fmpq(0))) != detM or p.is_zero():
            problems.append(f"(iv)(ii) det(M + t W_S U_S) at t = 0 is not det M for S = {list(S)}")
            return {"singular_t": singular_t}, problems
        n = real_root_count(p)
        if n > d:
            problems.append(f"(iv)(ii) {n} > d singular t for S = {list(S)}")
        polys.append(p)
        singular_t.append(n)
    A = max((abs(v) for r in W_down for v in r), default=Q(0))
    total = sum(singular_t)
    tried, chosen = [], None
    for delta in candidates(eps / (A + 1), total + 1):
        t = 1 + delta
        W1 = [[t * v for v in r] for r in W_down]
        inv = [rank(mat_add(M, index_sum(W_up, W1, S)), d) == d for S in subsets(m)]
        nz = [to_fraction(p(to_fmpq(t))) != 0 for p in polys]
        tried.append({"delta": q_str(delta), "all_invertible": all(inv)})
        if inv != nz:
            problems.append(f"(iv)(ii) at t = {q_str(t)} some piece's invertibility disagrees with det(M + t W_S U_S)")
        if all(inv):
            chosen = (delta, W1)
            break
    out: dict[str, Any] = {"singular_t": singular_t, "tried": tried}
    if chosen is None:
        problems.append(f"(iv)(ii) none of {total + 1} scalings (1 + delta) W_down makes every piece invertible")
        return out, problems
    return _record_move(out, problems, "ii", chosen[0], {"W_down": (chosen[1], W_down)}, eps, "W_down is")


def nondegenerate_dense(W_up: QMat, W_down: QMat, eps: Fraction) -> tuple[dict[str, Any], list[str]]:
    """(iv)(iii), d >= 2, as in GenericWeights.generic_nondegenerate_dense: the line
    (W_up + delta U0, W_down + delta W0) towards the witness of (iii).

    Along it each polynomial of (iii) is a polynomial in delta that is not the zero polynomial
    (leading coefficients 1, 1 and k - l), so it has at most 1, 1 or 2 real roots; where none
    vanishes the weights are nondegenerate.  One more candidate than the total count of roots is
    tried, each checked directly (zero rows, collinear rows, zero columns) against the polynomials."""
    m, problems = len(W_up), []
    U0, W0 = nondegenerate_witness(len(W_up[0]), m)
    lin = lambda a, b: fmpq_poly([to_fmpq(a), to_fmpq(b)])  # noqa: E731  a + b delta
    polys: dict[str, fmpq_poly] = {}
    for l in range(m):
        polys[f"row_{l}"] = lin(W_up[l][0], U0[l][0])
        polys[f"col_{l}"] = lin(W_down[0][l], W0[0][l])
    for l, k in combinations(range(m), 2):
        polys[f"minor_{l}_{k}"] = (lin(W_up[l][0], U0[l][0]) * lin(W_up[k][1], U0[k][1])
                                   - lin(W_up[l][1], U0[l][1]) * lin(W_up[k][0], U0[k][0]))
    counts = {}
    for name, p in polys.items():
        if p.is_zero():
            problems.append(f"(iv)(iii) {name} is the zero polynomial along the line")
            return {"roots": counts}, problems
        counts[name] = real_root_count(p)
    scale = eps / (m + 1)  # every witness entry is below m + 1
    total = sum(counts.values())
    tried, chosen = [], None
    for delta in candidates(scale, total + 1):
        U1, W1 = axpy(W_up, delta, U0), axpy(W_down, delta, W0)
        nd = nondegenerate(U1, W1)
        nz = all(p(to_fmpq(delta)) != 0 for p in polys.values())
        tried.append({"delta": q_str(delta), "nondegenerate": nd})
        if nz and not nd:
            problems.append(f"(iv)(iii) no polynomial vanishes at delta = {q_str(delta)} but the weights are degenerate")
        if nd:
            chosen = (delta, U1, W1)
            break
    out: dict[str, Any] = {"roots": counts, "tried": tried}
    if chosen is None:
        problems.append(f"(iv)(iii) none of {total + 1} points of the line is nondegenerate")
        return out, problems
    return _record_move(out, problems, "iii", chosen[0],
                        {"W_up": (chosen[1], W_up), "W_down": (chosen[2], W_down)}, eps, "weights are")
