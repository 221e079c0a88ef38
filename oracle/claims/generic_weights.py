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
invertible unimodular matrix, or a singular one), each planted on one failing set (``DEFECTS``:
W_up of low rank, a singular piece, two collinear rows, a zero row, a zero column; the defect is
confirmed present by direct recomputation), the check evaluates every polynomial EXACTLY
(python-flint fmpq) at the drawn weights and at the witness, certifies each witness value is
nonzero and that the property really holds at the witness (rank, invertibility and
nondegeneracy recomputed independently of the polynomials), and checks the inclusion "the
property fails at the drawn weights => the polynomial vanishes there".

Part (iv), the empty-interior form, is tested on the same failing weights with a drawn rational
eps, by the constructions of GenericWeights.v: W_up + delta E (``rank_dense``); (1 + delta) W_down
with the singular t of each S counted exactly, at most d (``pieces_dense``); the line towards the
witness of (iii) (``nondegenerate_dense``). Each tries rational delta below eps, one more than the
number of real roots of its polynomials (Sturm), verifies the property directly at each candidate
against the polynomials, and fails when no candidate works or the move is not below eps. How often
the drawn weights fail says nothing about Lebesgue measure.

Where a clause is not claimed the check records why and checks its boundary instead: for a
singular M (clause (ii)) the piece of S = {} is M itself, singular at every weight; for d = 1
and m >= 2 (clause (iii)) every weight is degenerate.

The polynomials, witnesses, direct recomputations and the constructions of (iv) are algebra and
live in oracle/algebra/generic_polys.py; this module keeps the strategy (the planted defects), the
check and the re-checks.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import Any, Optional

from hypothesis import strategies as st

from oracle.core.rational import QMat, q_parse, q_str, qmat, smat
from oracle.algebra.exact import det, identity, index_sum, safe_recheck
from oracle.algebra.generic_polys import (
    collinear_pairs, col_coord, mat_add, minor_rank, nondegenerate, nondegenerate_dense, nondegenerate_witness,
    pair_minor, piece_det, pieces_dense, pieces_witness_down, rank, rank_dense, rank_witness, row_coord,
    subsets, zero_cols, zero_rows, zeros
)
from oracle.claims import coverage
from oracle.claims.base import Certificate, counterexample, oracle_check
from oracle.core.strategies import rank_one, unimodular

CLAIM = "generic-weights"
MAX_M = 5  # 2^m pieces per instance

Q = Fraction


# ---------------------------------------------------------------- instances

@dataclass
class WeightsInstance(coverage.Shaped):
    """Rational weights (W_up m x d, W_down d x m) and a skip matrix M."""

    W_up: QMat
    W_down: QMat
    M: QMat
    defect: str = "none"     # the failing set planted into the weights (DEFECTS)
    eps: Fraction = Fraction(1)  # the distance of part (iv)

    def subjects(self) -> list[coverage.Subject]:
        return [coverage.Subject(self.W_up, self.W_down, self.M, False)]


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
        M = zeros(d, d)
    else:
        M = [[Q(float(v)) for v in row] for row in rank_one(draw, d)]
    U, W = _matrix(draw, m, d), _matrix(draw, d, m)
    # Every instance is planted on a failing set: that is where the inclusions "fails => the
    # polynomial vanishes" say something, and where the empty-interior constructions of (iv)
    # have to move the weights.  The other entries stay random.
    defect = draw(st.sampled_from(defects_for(d, m, M)))
    U, W = _plant(draw, defect, U, W, M)
    eps = draw(st.sampled_from(EPS))
    return WeightsInstance(U, W, M, defect, eps)


DEFECTS = ("rank_deficient", "singular_piece", "collinear", "zero_row", "zero_col")
EPS = (Q(1), Q(1, 3), Q(1, 10), Q(1, 1000))


def defects_for(d: int, m: int, M: QMat) -> list[str]:
    """The defects that can be planted: a singular piece only for an invertible M (for a singular
    M the piece of S = {} is singular anyway), two collinear rows only for m >= 2."""
    return [k for k in DEFECTS if not (k == "singular_piece" and det(M) == 0)
            and not (k == "collinear" and m < 2)]


def _nonzero_row(draw: st.DrawFn, U: QMat, l: int) -> None:
    if all(v == 0 for v in U[l]):
        U[l][draw(st.integers(0, len(U[l]) - 1))] = draw(st.sampled_from([Q(1), Q(-2), Q(1, 3)]))


def _plant(draw: st.DrawFn, defect: str, U: QMat, W: QMat, M: QMat) -> tuple[QMat, QMat]:
    """Move the drawn weights onto the failing set named by ``defect``."""
    m, d = len(U), len(M)
    if defect == "rank_deficient":
        if m >= d:  # r = d: a zero column of W_up puts every row in a hyperplane
            j = draw(st.integers(0, d - 1))
            for row in U:
                row[j] = Q(0)
        else:  # r = m: one row a combination of the others (zero when m = 1)
            k = draw(st.integers(0, m - 1))
            cs = [draw(st.sampled_from([Q(0), Q(1), Q(-1), Q(1, 2)])) for _ in range(m)]
            U[k] = [sum((cs[l] * U[l][j] for l in range(m) if l != k), Q(0)) for j in range(d)]
    elif defect == "singular_piece":
        # det(M + w u^T) = det M (1 + u^T M^-1 w) = 0 for w = -M u / |u|^2
        l = draw(st.integers(0, m - 1))
        _nonzero_row(draw, U, l)
        n2 = sum(v * v for v in U[l])
        Mu = [sum(M[a][b] * U[l][b] for b in range(d)) for a in range(d)]
        for a in range(d):
            W[a][l] = -Mu[a] / n2
    elif defect == "collinear":
        l, k = draw(st.permutations(range(m)))[:2]
        _nonzero_row(draw, U, l)
        c = draw(st.sampled_from([Q(-2), Q(-1, 2), Q(1), Q(3)]))
        U[k] = [c * v for v in U[l]]
    elif defect == "zero_row":
        U[draw(st.integers(0, m - 1))] = [Q(0)] * d
    elif defect == "zero_col":
        l = draw(st.integers(0, m - 1))
        for a in range(d):
            W[a][l] = Q(0)
    return U, W


def defect_present(defect: str, W_up: QMat, W_down: QMat, M: QMat) -> bool:
    """Whether the weights really lie on the failing set that was planted (recomputed directly)."""
    m, d = len(W_up), len(M)
    if defect == "rank_deficient":
        return rank(W_up, d) < min(m, d)
    if defect == "singular_piece":
        return det(M) != 0 and any(rank(mat_add(M, index_sum(W_up, W_down, S)), d) < d for S in subsets(m)[1:])
    if defect == "collinear":
        return bool(collinear_pairs(W_up))
    if defect == "zero_row":
        return bool(zero_rows(W_up))
    if defect == "zero_col":
        return bool(zero_cols(W_down, m))
    return False


STRATEGY = _instances()


# ---------------------------------------------------------------- the evaluation

def evaluate(W_up: QMat, W_down: QMat, M: QMat, defect: str = "none", eps: Fraction = Q(1)) -> dict[str, Any]:
    """Every polynomial at the weights and at its witness, with the properties recomputed; the
    planted defect confirmed; and the constructions of (iv) run within eps of the weights."""
    m, d = len(W_up), len(M)
    r = min(m, d)
    out: dict[str, Any] = {"d": d, "m": m, "defect": defect, "eps": q_str(eps)}
    problems: list[str] = []
    if defect != "none" and not defect_present(defect, W_up, W_down, M):
        problems.append(f"the planted defect {defect} is absent from the weights")

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
    for S in subsets(m):
        A = mat_add(M, index_sum(W_up, W_down, S))
        singular = rank(A, d) < d
        v, v_wit = piece_det(W_up, W_down, M, S), piece_det(W_up, Z, M, S)
        pieces.append({"S": list(S), "at_weights": q_str(v), "at_witness": q_str(v_wit), "singular": singular})
        if singular and v != 0:
            problems.append(f"(ii) M + W_S U_S is singular for S = {list(S)} but its determinant is nonzero")
        if invertible_M and v_wit == 0:
            problems.append(f"(ii) det(M + W_S U_S) vanishes at its witness W_down = 0 for S = {list(S)}")
        if invertible_M and rank(mat_add(M, index_sum(W_up, Z, S)), d) < d:
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
        # not claimed for d = 1; the boundary: with m >= 2 every weight is degenerate.  Checked both
        # ways: in one dimension the weights are nondegenerate exactly when m = 1 and both are nonzero
        out["nondegeneracy"] = "not claimed for d = 1"
        expected = m == 1 and W_up[0][0] != 0 and W_down[0][0] != 0
        if nondegenerate(W_up, W_down) != expected:
            problems.append("d = 1: the weights are nondegenerate for m >= 2 or degenerate for m = 1 with "
                            "both weights nonzero")

    # (iv) the empty-interior form: within eps of these (planted, failing) weights
    if not eps > 0:
        problems.append("(iv) eps must be positive")
    else:
        iv: dict[str, Any] = {}
        iv["rank"], pr = rank_dense(W_up, d, eps)
        problems += pr
        if invertible_M:
            iv["pieces"], pr = pieces_dense(W_up, W_down, M, eps)
            problems += pr
        else:
            iv["pieces"] = "not claimed for a singular M"
        if d >= 2:
            iv["nondegeneracy"], pr = nondegenerate_dense(W_up, W_down, eps)
            problems += pr
        else:
            iv["nondegeneracy"] = "not claimed for d = 1"
        out["iv"] = iv
        checked: list[str] = []
        problems += root_count_mismatches(W_up, W_down, M, iv, checked)
        # every recorded count must have been recomputed (a comparison that did not run fails)
        recorded = [k for k, field in (("rank", "q_real_roots"), ("pieces", "singular_t"), ("nondegeneracy", "roots"))
                    if isinstance(iv.get(k), dict) and field in iv[k]]
        if sorted(checked) != sorted(recorded):
            problems.append(f"(iv) recorded root counts {recorded} but recomputed {checked}")
    out["problems"] = problems
    return out


# ---------------------------------------------------------------- (iv)'s root counts, recomputed
# Part (iv) tries one more candidate than its polynomials have real roots (Sturm chains in
# oracle/algebra/generic_polys.py); an undercount there would leave too few candidates and still
# pass wherever the first candidate works.  Every count is recomputed here from the polynomial's own
# values (coefficients by exact interpolation) and the sign of its discriminant (degree <= 3).

def _coeffs(values: list[Fraction]) -> list[Fraction]:
    """Coefficients c_0..c_n of the polynomial of degree <= n taking values[t] at t = 0..n."""
    n = len(values) - 1
    A = [[Q(t) ** k for k in range(n + 1)] + [Q(values[t])] for t in range(n + 1)]
    for col in range(n + 1):
        piv = next(r for r in range(col, n + 1) if A[r][col] != 0)
        A[col], A[piv] = A[piv], A[col]
        A[col] = [v / A[col][col] for v in A[col]]
        for r in range(n + 1):
            if r != col and A[r][col] != 0:
                f = A[r][col]
                A[r] = [x - f * y for x, y in zip(A[r], A[col])]
    c = [A[k][n + 1] for k in range(n + 1)]
    while len(c) > 1 and c[-1] == 0:
        c.pop()
    return c


def distinct_real_roots(c: list[Fraction]) -> int:
    """Distinct real roots of a nonzero polynomial of degree <= 3 (coefficients low to high)."""
    if len(c) > 4 or all(v == 0 for v in c):
        raise ValueError("degree <= 3 and nonzero only")
    if len(c) <= 1:
        return 0
    if len(c) == 2:
        return 1
    if len(c) == 3:
        disc = c[1] ** 2 - 4 * c[2] * c[0]
        return 2 if disc > 0 else (1 if disc == 0 else 0)
    dd, cc, bb, aa = c   # a x^3 + b x^2 + c x + d
    disc = 18 * aa * bb * cc * dd - 4 * bb ** 3 * dd + bb ** 2 * cc ** 2 - 4 * aa * cc ** 3 - 27 * aa ** 2 * dd ** 2
    if disc != 0:
        return 3 if disc > 0 else 1
    return 1 if bb * bb == 3 * aa * cc else 2   # a triple root, or a double and a simple one


def root_count_mismatches(W_up: QMat, W_down: QMat, M: QMat, iv: dict[str, Any],
                          checked: Optional[list[str]] = None) -> list[str]:
    """(iv)'s recorded root counts against distinct_real_roots of the same polynomials; the names
    of the clauses compared are appended to ``checked``."""
    checked = [] if checked is None else checked
    m, d = len(W_up), len(M)
    r = min(m, d)
    out = []
    rk = iv.get("rank")
    if isinstance(rk, dict) and "q_real_roots" in rk:
        A = [row[:r] for row in W_up[:r]]
        vals = [det([[A[a][b] + (t if a == b else 0) for b in range(r)] for a in range(r)]) for t in range(r + 1)]
        checked.append("rank")
        if distinct_real_roots(_coeffs(vals)) != rk["q_real_roots"]:
            out.append("(iv)(i) the recorded number of real roots of det(A + delta I) is wrong")
    pc = iv.get("pieces")
    if isinstance(pc, dict) and "singular_t" in pc:
        counts = []
        for S in subsets(m):
            P = index_sum(W_up, W_down, S)
            vals = [det([[M[a][b] + t * P[a][b] for b in range(d)] for a in range(d)]) for t in range(d + 1)]
            counts.append(distinct_real_roots(_coeffs(vals)))
        checked.append("pieces")
        if counts[:len(pc["singular_t"])] != pc["singular_t"] or len(pc["singular_t"]) != len(counts):
            out.append("(iv)(ii) the recorded numbers of singular t are wrong")
    nd = iv.get("nondegeneracy")
    if isinstance(nd, dict) and isinstance(nd.get("roots"), dict) and d >= 2:
        U0, W0 = nondegenerate_witness(d, m)
        line = lambda t: ([[a + t * b for a, b in zip(r1, r2)] for r1, r2 in zip(W_up, U0)],  # noqa: E731
                          [[a + t * b for a, b in zip(r1, r2)] for r1, r2 in zip(W_down, W0)])
        pts = [line(Q(t)) for t in range(3)]
        polys = {}
        for l in range(m):
            polys[f"row_{l}"] = [row_coord(U, l) for U, _ in pts[:2]]
            polys[f"col_{l}"] = [col_coord(W, l) for _, W in pts[:2]]
        for l, k in combinations(range(m), 2):
            polys[f"minor_{l}_{k}"] = [pair_minor(U, l, k) for U, _ in pts]
        fresh = {name: distinct_real_roots(_coeffs(v)) for name, v in polys.items()
                 if any(x != 0 for x in _coeffs(v))}
        checked.append("nondegeneracy")
        if fresh != nd["roots"]:
            out.append("(iv)(iii) the recorded root counts along the line are wrong")
    return out


def weights_corners() -> list[WeightsInstance]:
    """Corner instances checked on every run before the drawn ones: leading blocks A of W_up for
    which det(A + delta I) has no real root (d = 2: a rotation, delta^2 + 1) or a double one
    (d = 2: a shear, delta^2), so (iv)(i) tries exactly one candidate, or three with a discriminant
    below 1 (d = 3); and a d = 3 block above the width (m = 4 > d) with a zero column of W_down."""
    I2 = identity(2)
    rot = WeightsInstance([[Q(0), Q(-1)], [Q(1), Q(0)]], [[Q(0), Q(1)], [Q(0), Q(2)]], I2, "zero_col", Q(1, 3))
    shear = WeightsInstance([[Q(0), Q(1)], [Q(0), Q(0)]], [[Q(1), Q(1, 2)], [Q(-1), Q(3)]], [[Q(0), Q(1)], [Q(-1), Q(0)]],
                            "zero_row", Q(1, 10))
    U3 = [[Q(1), Q(2), Q(0)], [Q(0), Q(1), Q(-1)], [Q(2), Q(0), Q(1)], [Q(1), Q(1), Q(1)]]
    W3 = [[Q(1), Q(0), Q(-1), Q(1, 2)], [Q(2), Q(0), Q(1), Q(0)], [Q(0), Q(0), Q(3), Q(-1)]]
    wide = WeightsInstance(U3, W3, identity(3), "zero_col", Q(1))
    # det(A + delta I) = delta (delta + 1/4) (delta + 1/2): three real roots, discriminant 1/1024 < 1
    cubic = WeightsInstance([[Q(0), Q(0), Q(0)], [Q(0), Q(1, 4), Q(0)], [Q(0), Q(0), Q(1, 2)]],
                            [[Q(1), Q(-1), Q(2)], [Q(0), Q(1), Q(1)], [Q(1, 2), Q(0), Q(-1)]], identity(3),
                            "rank_deficient", Q(1, 3))
    return [rot, shear, wide, cubic]


def _forged(data: dict[str, Any]) -> dict[str, Any]:
    """The certificate with one stored value changed (the rank minor at the weights, plus one)
    and no problem recorded: a re-check that reads the weights again must refuse it."""
    bad = copy.deepcopy(data)
    bad["rank"]["minor_at_weights"] = q_str(q_parse(bad["rank"]["minor_at_weights"]) + 1)
    return {"claim": CLAIM, "holds": True, "exact": True, "data": bad}


@oracle_check(CLAIM, STRATEGY, recheck=lambda c: recheck(c), precision="exact rationals",
              examples=weights_corners)
def check(inst: WeightsInstance) -> Certificate:
    """Each polynomial is nonzero at its witness and vanishes wherever its property fails; within
    eps of the planted failing weights the constructions of (iv) reach weights where each
    property holds.  The re-check is held to a forged copy of the certificate (one stored value
    changed): it must refuse it."""
    info = evaluate(inst.W_up, inst.W_down, inst.M, inst.defect, inst.eps)
    problems = list(info["problems"])
    data = {"W_up": smat(inst.W_up), "W_down": smat(inst.W_down), "M": smat(inst.M), **info}
    if not problems and recheck(_forged(data)):
        problems.append("the re-check accepted a certificate whose stored rank minor is not the weights'")
    holds = not problems
    return Certificate(CLAIM, holds, exact=True,
                       method="exact rationals (python-flint fmpq determinants and ranks)",
                       data=data, reason="; ".join(problems))


@safe_recheck
def recheck(cert: dict[str, Any]) -> bool:
    """Re-evaluate every polynomial from the stored weights; it must match and show no problem."""
    data = cert["data"]
    U, W, M = qmat(data["W_up"]), qmat(data["W_down"]), qmat(data["M"])
    if len(U) > MAX_M or len(M) > 3 or any(len(r) != len(M) for r in U + M) or \
            any(len(r) != len(U) for r in W) or len(W) != len(M):
        return False
    if data.get("defect") not in DEFECTS + ("none",):
        return False
    info = evaluate(U, W, M, data["defect"], q_parse(data["eps"]))
    keys = ("rank", "pieces", "M_invertible", "degenerate", "nondegeneracy", "defect", "eps", "iv")
    return not info["problems"] and not data["problems"] and all(info[k] == data[k] for k in keys)


# ---------------------------------------------------------------- boundary counterexamples

@counterexample(claims=(CLAIM,), dropped="M_invertible_ii",
                description="M = 0 (d = 2, m = 2): the piece of S = {} is M + 0 = 0 for every weight, so "
                            "'every M + W_S U_S is invertible' fails everywhere, not on a null set")
def zero_skip_pieces() -> Certificate:
    """Drop M invertible in (ii): det(M + W_S U_S) for S = {} is the zero polynomial."""
    d, m = 2, 2
    M = zeros(d, d)
    U0, W0 = nondegenerate_witness(d, m)
    # the polynomial of S = {} at the witness of (ii), at the witness of (iii) and at W = E, I
    samples = [(rank_witness(d, m), pieces_witness_down(d, m)), (U0, W0), (rank_witness(d, m), identity(d))]
    values = [piece_det(U, W, M, ()) for U, W in samples]
    holds = all(v == 0 for v in values) and det(M) == 0 and all(not any(r) for r in index_sum(U0, W0, ()))
    return Certificate(CLAIM, holds, exact=True, method="exact rationals",
                       data={"kind": "zero_skip_pieces", "M": smat(M), "S": [],
                             "weights": [{"W_up": smat(U), "W_down": smat(W)} for U, W in samples],
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
        M = qmat(data["M"])
        vals = [piece_det(qmat(w["W_up"]), qmat(w["W_down"]), M, ()) for w in data["weights"]]
        return det(M) == 0 and bool(vals) and all(v == 0 for v in vals) and \
            [q_str(v) for v in vals] == data["det_at_weights"]
    if data["kind"] == "d1_rows_collinear":
        rows = data["rows_checked"]
        return bool(rows) and all(not nondegenerate([[q_parse(a)], [q_parse(b)]], [[Q(1), Q(1)]])
                                  for a, b, _ in rows)
    return False
