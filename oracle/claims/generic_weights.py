"""Oracle check of generic-weights: each "almost every weight" clause is a nonzero polynomial.

The claim (proofs/informal/generic-weights.md) puts every failing set inside the zero set of one
polynomial in the weights (W_down, W_up) and shows that polynomial is not the zero polynomial by
an explicit weight where it does not vanish:

  (i)   rank W_up < r = min(m, d)  =>  minor_rank(W) = det W_up[:r, :r] = 0;
        witness: W_up = E (ones on the diagonal), value 1;
  (ii)  M + W_S U_S singular       =>  piece_S(W) = det(M + W_down[:,S] W_up[S,:]) = 0;
        witness: W_down = 0 (W_up as drawn), value det M, nonzero for invertible M;
  (iii) (d >= 2) row l zero        =>  row_l(W) = W_up[l][0] = 0;
        rows l, l' collinear       =>  minor_{l,l'}(W) = W_up[l][0] W_up[l'][1] - W_up[l][1] W_up[l'][0] = 0;
        column l zero              =>  col_l(W) = W_down[0][l] = 0;
        witness: W_up rows (1, l, 0, ...), W_down columns e_1: values 1, l' - l, 1.

On hypothesis-drawn rational weights (d = 1..3, m below, at and above d, M the identity, an
invertible unimodular matrix, or a singular one) the check evaluates every polynomial EXACTLY
(python-flint fmpq) at the drawn weights and at the witness, certifies each witness value is
nonzero and that the property really holds at the witness (rank, invertibility and
nondegeneracy recomputed independently of the polynomials), and checks the inclusion "the
property fails at the drawn weights => the polynomial vanishes there". The drawn weights are
small integers and fractions, so zero rows, zero columns and rank drops are drawn often, and
collinear rows and singular pieces are planted on part of the instances (that is the point: the
inclusion is tested where it matters); how often says nothing about Lebesgue measure.

Where a clause is not claimed the check records why and checks its boundary instead: for a
singular M (clause (ii)) the piece of S = {} is M itself, singular at every weight; for d = 1
and m >= 2 (clause (iii)) every weight is degenerate.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import Any

from flint import fmpq, fmpq_mat
from hypothesis import strategies as st

from oracle.algebra.exact import identity, index_sum, line_key, q_parse, q_str, safe_recheck
from oracle.claims import coverage
from oracle.claims.base import Certificate, counterexample, oracle_check
from oracle.core.strategies import rank_one, unimodular

CLAIM = "generic-weights"
MAX_M = 5  # 2^m pieces per instance

Q = Fraction
QMat = list[list[Fraction]]


# ---------------------------------------------------------------- exact helpers

def _fm(a: QMat, rows: int, cols: int) -> fmpq_mat:
    return fmpq_mat(rows, cols, [fmpq(v.numerator, v.denominator) for r in a for v in r])


def det(a: QMat) -> Fraction:
    """The exact determinant of a square rational matrix (1 for the empty matrix)."""
    n = len(a)
    if n == 0:
        return Q(1)
    v = _fm(a, n, n).det()
    return Q(int(v.p), int(v.q))


def rank(a: QMat, cols: int) -> int:
    """The exact rank of a rational matrix with ``cols`` columns."""
    if not a or cols == 0:
        return 0
    return int(_fm(a, len(a), cols).rank())


def _zeros(r: int, c: int) -> QMat:
    return [[Q(0)] * c for _ in range(r)]


def _subsets(m: int) -> list[tuple[int, ...]]:
    return [tuple(i for i in range(m) if mask >> i & 1) for mask in range(1 << m)]


def _plus(a: QMat, b: QMat) -> QMat:
    return [[x + y for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]


# ---------------------------------------------------------------- the polynomials

def minor_rank(W_up: QMat, d: int) -> Fraction:
    """(i): the leading r x r minor of W_up, r = min(m, d)."""
    r = min(len(W_up), d)
    return det([row[:r] for row in W_up[:r]])


def piece_det(W_up: QMat, W_down: QMat, M: QMat, S: tuple[int, ...]) -> Fraction:
    """(ii): det(M + W_down[:,S] W_up[S,:])."""
    return det(_plus(M, index_sum(W_up, W_down, S)))


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
    return _zeros(d, m)


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


# ---------------------------------------------------------------- instances

@dataclass
class WeightsInstance:
    """Rational weights (W_up m x d, W_down d x m) and a skip matrix M."""

    W_up: QMat
    W_down: QMat
    M: QMat

    @property
    def d(self) -> int:
        return len(self.M)

    @property
    def m(self) -> int:
        return len(self.W_up)

    def subjects(self) -> list[coverage.Subject]:
        return [coverage.Subject(self.W_up, self.W_down, self.M, False)]

    def size(self) -> dict[str, Any]:
        return {"d": self.d, "m": self.m}


_ENTRY = st.one_of(st.integers(-3, 3).map(Q),
                   st.fractions(min_value=-4, max_value=4, max_denominator=4).map(Q))


def _matrix(draw: st.DrawFn, rows: int, cols: int) -> QMat:
    return [[draw(_ENTRY) for _ in range(cols)] for _ in range(rows)]


@st.composite
def _instances(draw: st.DrawFn) -> WeightsInstance:
    d = draw(st.integers(1, 3))
    m = draw(st.integers(1, min(MAX_M, d + 2)))
    kind = draw(st.sampled_from(["identity", "invertible", "invertible", "singular"]))
    if kind == "identity":
        M = identity(d)
    elif kind == "invertible":
        M = [[Q(int(v)) for v in row] for row in draw(unimodular(d))]
    elif d == 1 or draw(st.booleans()):
        M = _zeros(d, d)
    else:
        M = [[Q(float(v)) for v in row] for row in rank_one(draw, d)]
    U, W = _matrix(draw, m, d), _matrix(draw, d, m)
    # Weights on a failing set, where the inclusion "fails => the polynomial vanishes" is tested:
    # random small entries hit zero rows and rank drops often, collinear rows and singular pieces
    # rarely, so those are also planted.
    plant = draw(st.sampled_from(["none", "none", "collinear", "singular_piece"]))
    if plant == "collinear" and m >= 2:
        l, k = draw(st.permutations(range(m)))[:2]
        c = draw(st.sampled_from([Q(-2), Q(-1, 2), Q(1), Q(3)]))
        U[k] = [c * v for v in U[l]]
    elif plant == "singular_piece":
        # det(M + w u^T) = det M (1 + u^T M^-1 w) = 0 for w = -M u / |u|^2
        l = draw(st.integers(0, m - 1))
        n2 = sum(v * v for v in U[l])
        if n2 != 0 and det(M) != 0:
            Mu = [sum(M[a][b] * U[l][b] for b in range(d)) for a in range(d)]
            for a in range(d):
                W[a][l] = -Mu[a] / n2
    return WeightsInstance(U, W, M)


STRATEGY = _instances()


# ---------------------------------------------------------------- the evaluation

def evaluate(W_up: QMat, W_down: QMat, M: QMat) -> dict[str, Any]:
    """Every polynomial at the weights and at its witness, with the properties recomputed."""
    m, d = len(W_up), len(M)
    r = min(m, d)
    out: dict[str, Any] = {"d": d, "m": m}
    problems: list[str] = []

    # (i) rank
    E = rank_witness(d, m)
    rk, rk_wit = rank(W_up, d), rank(E, d)
    at_w, at_wit = minor_rank(W_up, d), minor_rank(E, d)
    out["rank"] = {"r": r, "rank_W_up": rk, "minor_at_weights": q_str(at_w),
                   "minor_at_witness": q_str(at_wit), "rank_at_witness": rk_wit}
    if at_wit == 0:
        problems.append("(i) the rank minor vanishes at its witness")
    if rk_wit != r:
        problems.append(f"(i) the witness has rank {rk_wit}, not {r}")
    if rk < r and at_w != 0:
        problems.append("(i) rank W_up < min(m, d) but the minor is nonzero")

    # (ii) pieces M + W_S U_S
    invertible_M = det(M) != 0
    Z = pieces_witness_down(d, m)
    pieces = []
    for S in _subsets(m):
        A = _plus(M, index_sum(W_up, W_down, S))
        singular = rank(A, d) < d
        v, v_wit = piece_det(W_up, W_down, M, S), piece_det(W_up, Z, M, S)
        pieces.append({"S": list(S), "at_weights": q_str(v), "at_witness": q_str(v_wit), "singular": singular})
        if singular and v != 0:
            problems.append(f"(ii) M + W_S U_S is singular for S = {list(S)} but its determinant is nonzero")
        if invertible_M and v_wit == 0:
            problems.append(f"(ii) det(M + W_S U_S) vanishes at its witness W_down = 0 for S = {list(S)}")
        if invertible_M and rank(_plus(M, index_sum(W_up, Z, S)), d) < d:
            problems.append(f"(ii) the witness piece for S = {list(S)} is singular")
    out["pieces"] = pieces
    out["M_invertible"] = invertible_M
    if not invertible_M:
        # not claimed; the boundary: the piece of S = {} is M, singular at every weight
        if not (pieces[0]["S"] == [] and pieces[0]["singular"] and Fraction(pieces[0]["at_witness"]) == 0):
            problems.append("(ii) singular M but the piece of S = {} is not singular")

    # (iii) nondegeneracy
    zr, zc, cp = zero_rows(W_up), zero_cols(W_down, m), collinear_pairs(W_up)
    out["degenerate"] = {"zero_rows": zr, "zero_cols": zc, "collinear_pairs": cp}
    if d >= 2:
        U0, W0 = nondegenerate_witness(d, m)
        polys = []
        for l in range(m):
            polys.append({"poly": f"row_{l}", "at_weights": q_str(row_coord(W_up, l)),
                          "at_witness": q_str(row_coord(U0, l)), "fails": l in zr})
            polys.append({"poly": f"col_{l}", "at_weights": q_str(col_coord(W_down, l)),
                          "at_witness": q_str(col_coord(W0, l)), "fails": l in zc})
        for l, k in combinations(range(m), 2):
            polys.append({"poly": f"minor_{l}_{k}", "at_weights": q_str(pair_minor(W_up, l, k)),
                          "at_witness": q_str(pair_minor(U0, l, k)), "fails": [l, k] in cp})
        for p in polys:
            if Fraction(p["at_witness"]) == 0:
                problems.append(f"(iii) {p['poly']} vanishes at its witness")
            if p["fails"] and Fraction(p["at_weights"]) != 0:
                problems.append(f"(iii) {p['poly']}: the property fails but the polynomial is nonzero")
        if not nondegenerate(U0, W0):
            problems.append("(iii) the witness weights are degenerate")
        out["nondegeneracy"] = polys
    else:
        # not claimed for d = 1; the boundary: with m >= 2 every weight is degenerate
        out["nondegeneracy"] = "not claimed for d = 1"
        if m >= 2 and nondegenerate(W_up, W_down):
            problems.append("d = 1 with m >= 2 but the weights are nondegenerate")
    out["problems"] = problems
    return out


@oracle_check(CLAIM, STRATEGY, recheck=lambda c: recheck(c), precision="exact rationals")
def check(inst: WeightsInstance) -> Certificate:
    """Each polynomial is nonzero at its witness and vanishes wherever its property fails."""
    info = evaluate(inst.W_up, inst.W_down, inst.M)
    holds = not info["problems"]
    data = {"W_up": _s(inst.W_up), "W_down": _s(inst.W_down), "M": _s(inst.M), **info}
    return Certificate(CLAIM, holds, exact=True,
                       method="exact rationals (python-flint fmpq determinants and ranks)",
                       data=data, reason="; ".join(info["problems"]))


def _s(a: QMat) -> list[list[str]]:
    return [[q_str(v) for v in r] for r in a]


def _p(a: Any) -> QMat:
    return [[q_parse(v) for v in r] for r in a]


@safe_recheck
def recheck(cert: dict[str, Any]) -> bool:
    """Re-evaluate every polynomial from the stored weights; it must match and show no problem."""
    data = cert["data"]
    U, W, M = _p(data["W_up"]), _p(data["W_down"]), _p(data["M"])
    if len(U) > MAX_M or len(M) > 3 or any(len(r) != len(M) for r in U + M) or \
            any(len(r) != len(U) for r in W) or len(W) != len(M):
        return False
    info = evaluate(U, W, M)
    keys = ("rank", "pieces", "M_invertible", "degenerate", "nondegeneracy")
    return not info["problems"] and not data["problems"] and all(info[k] == data[k] for k in keys)


# ---------------------------------------------------------------- boundary counterexamples

@counterexample(claims=(CLAIM,), dropped="M_invertible_ii",
                description="M = 0 (d = 2, m = 2): the piece of S = {} is M + 0 = 0 for every weight, so "
                            "'every M + W_S U_S is invertible' fails everywhere, not on a null set")
def zero_skip_pieces() -> Certificate:
    """Drop M invertible in (ii): det(M + W_S U_S) for S = {} is the zero polynomial."""
    d, m = 2, 2
    M = _zeros(d, d)
    U0, W0 = nondegenerate_witness(d, m)
    # the polynomial of S = {} at the witness of (ii), at the witness of (iii) and at W = E, I
    samples = [(rank_witness(d, m), pieces_witness_down(d, m)), (U0, W0), (rank_witness(d, m), identity(d))]
    values = [piece_det(U, W, M, ()) for U, W in samples]
    holds = all(v == 0 for v in values) and det(M) == 0 and all(not any(r) for r in index_sum(U0, W0, ()))
    return Certificate(CLAIM, holds, exact=True, method="exact rationals",
                       data={"kind": "zero_skip_pieces", "M": _s(M), "S": [],
                             "weights": [{"W_up": _s(U), "W_down": _s(W)} for U, W in samples],
                             "det_at_weights": [q_str(v) for v in values],
                             "why": "W_down[:,{}] W_up[{},:] = 0, so the piece of S = {} is M = 0 for every weight"},
                       reason="" if holds else "the S = {} piece is not singular")


@counterexample(claims=(CLAIM,), dropped="d_ge_2_iii",
                description="d = 1, m = 2: rows u_0, u_1 in R^1 are collinear whenever both are nonzero "
                            "(u_1 = (u_1/u_0) u_0), so every weight is degenerate; the 2 x 2 minor of (iii) does "
                            "not exist and the failing set is all of R^{1 x 2} x R^{2 x 1}")
def d1_rows_collinear() -> Certificate:
    """Drop d >= 2 in (iii): in R^1 every pair of rows is collinear or has a zero row."""
    grid = [Q(v, k) for v in range(-3, 4) for k in (1, 2)]
    pairs = [(a, b) for a in grid for b in grid]
    checked = []
    holds = True
    for a, b in pairs:
        U = [[a], [b]]
        W = [[Q(1), Q(1)]]
        deg = not nondegenerate(U, W)
        why = "zero row" if a == 0 or b == 0 else "collinear"
        # the explicit multiple: u_1 = (b/a) u_0 when a != 0
        ok = deg and (a == 0 or b == 0 or b == (b / a) * a)
        holds = holds and ok
        checked.append([q_str(a), q_str(b), why])
    return Certificate(CLAIM, holds, exact=True, method="exact rationals (every pair of a grid)",
                       data={"kind": "d1_rows_collinear", "d": 1, "m": 2, "rows_checked": checked,
                             "why": "two numbers u_0 != 0, u_1 satisfy u_1 = (u_1/u_0) u_0"},
                       reason="" if holds else "some d = 1 pair of rows is nondegenerate")


@safe_recheck
def recheck_counterexample(cert: dict[str, Any]) -> bool:
    """Re-verify a generic-weights boundary certificate from its data."""
    data = cert["data"]
    if data["kind"] == "zero_skip_pieces":
        M = _p(data["M"])
        vals = [piece_det(_p(w["W_up"]), _p(w["W_down"]), M, ()) for w in data["weights"]]
        return det(M) == 0 and bool(vals) and all(v == 0 for v in vals) and \
            [q_str(v) for v in vals] == data["det_at_weights"]
    if data["kind"] == "d1_rows_collinear":
        rows = data["rows_checked"]
        return bool(rows) and all(not nondegenerate([[q_parse(a)], [q_parse(b)]], [[Q(1), Q(1)]])
                                  for a, b, _ in rows)
    return False
