"""A second relu block dead on the image of the first (claim depth-dead-block,
proofs/informal/depth-dead-block.md), in exact rationals.

Block l of a residual stack is x -> M_l x + W_l relu(U_l x + c_l) + e_l.  Block 2 is *dead* on the
image of block 1 when U_2 G_1(x) + c_2 <= 0 for every x.  On the activation region of a pattern D of
block 1, {x : a_i . x <= b_i} with (a_i, b_i) = (-u_i, c_i) for i in D and (u_i, -c_i) otherwise,
G_1 is affine, so unit j of block 2 is g . x + h there; the certificate is, per pattern, either
Farkas multipliers lambda >= 0 with sum lambda_i a_i = g and lambda . b + h <= 0 for every unit, or
y >= 0 with sum y_i a_i = 0 and y . b < 0 (the region is empty).  Basic multipliers (at most d,
resp. d + 1, nonzero entries on independent rows) exist whenever the fact holds, so the search over
supports is complete.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from typing import Any, Optional, Sequence

from oracle.core.rational import qmat, qvec, smat, svec

Q = Fraction
QMat = list[list[Fraction]]

MAX_DEAD_WORK = 400_000   # 2^m1 * (m2 + 1) * (supports of size <= d + 1) small solves at most


# ================================================================ exact linear algebra (small)

def _solve(A: QMat, b: Sequence[Fraction]) -> Optional[list[Fraction]]:
    """The unique solution of A z = b (A of size r x k, independent columns), or None when the
    columns are dependent or the system is inconsistent."""
    r, k = len(A), len(A[0]) if A else 0
    M = [list(A[i]) + [Q(b[i])] for i in range(r)]
    row = 0
    piv = []
    for col in range(k):
        p = next((i for i in range(row, r) if M[i][col] != 0), None)
        if p is None:
            return None     # dependent columns
        M[row], M[p] = M[p], M[row]
        inv = 1 / M[row][col]
        M[row] = [v * inv for v in M[row]]
        for i in range(r):
            if i != row and M[i][col] != 0:
                f = M[i][col]
                M[i] = [a - f * c for a, c in zip(M[i], M[row])]
        piv.append(col)
        row += 1
    if any(M[i][k] != 0 for i in range(row, r)):
        return None         # inconsistent
    z = [Q(0)] * k
    for i, col in enumerate(piv):
        z[col] = M[i][k]
    return z


def rank(A: QMat) -> int:
    """The rank of a rational matrix."""
    M = [list(r) for r in A]
    rk = 0
    cols = len(M[0]) if M else 0
    for col in range(cols):
        p = next((i for i in range(rk, len(M)) if M[i][col] != 0), None)
        if p is None:
            continue
        M[rk], M[p] = M[p], M[rk]
        for i in range(len(M)):
            if i != rk and M[i][col] != 0:
                f = M[i][col] / M[rk][col]
                M[i] = [a - f * c for a, c in zip(M[i], M[rk])]
        rk += 1
    return rk


def inverse(A: QMat) -> Optional[QMat]:
    """The inverse of a square rational matrix, or None when it is singular."""
    n = len(A)
    cols = []
    for j in range(n):
        e = [Q(int(i == j)) for i in range(n)]
        z = _solve(A, e)
        if z is None:
            return None
        cols.append(z)
    return [[cols[j][i] for j in range(n)] for i in range(n)]


def _matmul(A: QMat, B: QMat) -> QMat:
    return [[sum((A[i][k] * B[k][j] for k in range(len(B))), Q(0)) for j in range(len(B[0]))] for i in range(len(A))]


def _matvec(A: QMat, x: Sequence[Fraction]) -> list[Fraction]:
    return [sum((a * v for a, v in zip(row, x)), Q(0)) for row in A]


def det(A: QMat) -> Fraction:
    """The determinant (exact elimination)."""
    M = [list(r) for r in A]
    n, out = len(M), Q(1)
    for col in range(n):
        p = next((i for i in range(col, n) if M[i][col] != 0), None)
        if p is None:
            return Q(0)
        if p != col:
            M[col], M[p] = M[p], M[col]
            out = -out
        out *= M[col][col]
        for i in range(col + 1, n):
            f = M[i][col] / M[col][col]
            M[i] = [a - f * c for a, c in zip(M[i], M[col])]
    return out


# ================================================================ blocks

def exact_block(U: QMat, W: QMat, M: Optional[QMat], c: Optional[Sequence[Fraction]],
                e: Optional[Sequence[Fraction]]) -> dict[str, Any]:
    """A residual relu block in exact rationals (M = None: the identity; biases None: zero)."""
    m, d = len(U), len(U[0])
    return {"U": [list(r) for r in U], "W": [list(r) for r in W],
            "M": [list(r) for r in M] if M is not None else [[Q(int(i == j)) for j in range(d)] for i in range(d)],
            "c": list(c) if c is not None else [Q(0)] * m, "e": list(e) if e is not None else [Q(0)] * d}


def block_json(b: dict[str, Any]) -> dict[str, Any]:
    """Exact string form of an exact block."""
    return {"U": smat(b["U"]), "W": smat(b["W"]), "M": smat(b["M"]), "c": svec(b["c"]), "e": svec(b["e"])}


def block_from_json(data: dict[str, Any]) -> dict[str, Any]:
    """Inverse of block_json, with shape checks (ValueError)."""
    b = {"U": qmat(data["U"]), "W": qmat(data["W"]), "M": qmat(data["M"]), "c": qvec(data["c"]), "e": qvec(data["e"])}
    m, d = len(b["U"]), len(b["M"])
    if (m == 0 or any(len(r) != d for r in b["U"]) or len(b["W"]) != d or any(len(r) != m for r in b["W"])
            or any(len(r) != d for r in b["M"]) or len(b["c"]) != m or len(b["e"]) != d):
        raise ValueError("block of the wrong shape")
    return b


def evaluate(b: dict[str, Any], x: Sequence[Fraction]) -> list[Fraction]:
    """The residual block at x, exactly."""
    pre = [sum((u * v for u, v in zip(row, x)), Q(0)) + c for row, c in zip(b["U"], b["c"])]
    act = [p if p > 0 else Q(0) for p in pre]
    return [mx + wa + e for mx, wa, e in zip(_matvec(b["M"], x), _matvec(b["W"], act), b["e"])]


def region_rows(b1: dict[str, Any], D: int) -> list[tuple[list[Fraction], Fraction]]:
    """The constraints a_i . x <= b_i of the activation region of pattern D (a bit mask) of block 1."""
    out = []
    for i, (u, c) in enumerate(zip(b1["U"], b1["c"])):
        out.append(([-v for v in u], c) if D >> i & 1 else (list(u), -c))
    return out


def piece(b1: dict[str, Any], D: int) -> tuple[QMat, list[Fraction]]:
    """G_1 = A_D x + a_D on the region of D: A_D = M_1 + W_1 D U_1, a_D = W_1 D c_1 + e_1."""
    d, m = len(b1["M"]), len(b1["U"])
    on = [i for i in range(m) if D >> i & 1]
    A = [[b1["M"][r][s] + sum((b1["W"][r][i] * b1["U"][i][s] for i in on), Q(0)) for s in range(d)] for r in range(d)]
    a = [b1["e"][r] + sum((b1["W"][r][i] * b1["c"][i] for i in on), Q(0)) for r in range(d)]
    return A, a


# ================================================================ Farkas certificates

def _bound(rows: list[tuple[list[Fraction], Fraction]], g: list[Fraction], h: Fraction,
           d: int) -> Optional[dict[str, Fraction]]:
    """lambda >= 0 on at most d independent rows with sum lambda_i a_i = g and lambda . b + h <= 0."""
    if all(v == 0 for v in g) and h <= 0:
        return {}
    for k in range(1, min(d, len(rows)) + 1):
        for S in itertools.combinations(range(len(rows)), k):
            A = [[rows[i][0][r] for i in S] for r in range(d)]     # d x k: columns a_i
            lam = _solve(A, g)
            if lam is None or any(v < 0 for v in lam):
                continue
            if sum((lv * rows[i][1] for lv, i in zip(lam, S)), Q(0)) + h <= 0:
                return {str(i): lv for i, lv in zip(S, lam) if lv != 0}
    return None


def _empty(rows: list[tuple[list[Fraction], Fraction]], d: int) -> Optional[dict[str, Fraction]]:
    """y >= 0 on at most d + 1 rows with sum y_i a_i = 0 and y . b = -1 (the region is empty)."""
    for k in range(1, min(d + 1, len(rows)) + 1):
        for S in itertools.combinations(range(len(rows)), k):
            A = [[rows[i][0][r] for i in S] for r in range(d)] + [[rows[i][1] for i in S]]
            y = _solve(A, [Q(0)] * d + [Q(-1)])
            if y is not None and all(v >= 0 for v in y):
                return {str(i): v for i, v in zip(S, y) if v != 0}
    return None


def dead_work(d: int, m1: int, m2: int) -> int:
    """The number of small solves the search may need (checked against MAX_DEAD_WORK)."""
    supports = sum(len(list(itertools.combinations(range(m1), k))) for k in range(1, min(d + 1, m1) + 1))
    return 2 ** m1 * (m2 + 1) * supports


def dead_certificate(b1: dict[str, Any], b2: dict[str, Any]) -> dict[str, Any]:
    """Decide exactly whether block 2 is dead on the image of block 1, with the certificate:
    {"dead": True, "regions": [...]} or {"dead": False, "pattern": D, "unit": j} (the pattern's region
    is nonempty and unit j is positive somewhere on its image: no certificate exists)."""
    d, m1 = len(b1["M"]), len(b1["U"])
    regions = []
    for D in range(2 ** m1):
        rows = region_rows(b1, D)
        A, a = piece(b1, D)
        lams = []
        failed = None
        for j, (u, c) in enumerate(zip(b2["U"], b2["c"])):
            g = [sum((u[r] * A[r][s] for r in range(d)), Q(0)) for s in range(d)]
            h = sum((ur * ar for ur, ar in zip(u, a)), Q(0)) + c
            lam = _bound(rows, g, h, d)
            if lam is None:
                failed = j
                break
            lams.append({k: str(v) for k, v in lam.items()})
        if failed is None:
            regions.append({"pattern": D, "bounds": lams})
            continue
        y = _empty(rows, d)
        if y is None:
            return {"dead": False, "pattern": D, "unit": failed,
                    "reason": f"the region of pattern {D} is not empty and no multipliers bound unit {failed} "
                              "of block 2 by 0 there (complete search over supports)"}
        regions.append({"pattern": D, "empty": {k: str(v) for k, v in y.items()}})
    return {"dead": True, "regions": regions}


def check_dead_certificate(b1: dict[str, Any], b2: dict[str, Any], cert: dict[str, Any]) -> bool:
    """Verify a dead certificate exactly: every pattern of block 1 has a region entry, each either
    empty (y >= 0, sum y_i a_i = 0, y . b < 0) or bounding every unit of block 2 (lambda >= 0,
    sum lambda_i a_i = g, lambda . b + h <= 0)."""
    d, m1 = len(b1["M"]), len(b1["U"])
    regions = cert["regions"]
    if cert.get("dead") is not True or sorted(r["pattern"] for r in regions) != list(range(2 ** m1)):
        return False
    for reg in regions:
        D = reg["pattern"]
        rows = region_rows(b1, D)
        if "empty" in reg:
            y = {int(k): Q(v) for k, v in reg["empty"].items()}
            if any(v < 0 for v in y.values()) or any(not 0 <= i < m1 for i in y):
                return False
            if any(sum((y[i] * rows[i][0][s] for i in y), Q(0)) != 0 for s in range(d)):
                return False
            if not sum((y[i] * rows[i][1] for i in y), Q(0)) < 0:
                return False
            continue
        A, a = piece(b1, D)
        if len(reg["bounds"]) != len(b2["U"]):
            return False
        for (u, c), lam_s in zip(zip(b2["U"], b2["c"]), reg["bounds"]):
            lam = {int(k): Q(v) for k, v in lam_s.items()}
            if any(v < 0 for v in lam.values()) or any(not 0 <= i < m1 for i in lam):
                return False
            g = [sum((u[r] * A[r][s] for r in range(d)), Q(0)) for s in range(d)]
            h = sum((ur * ar for ur, ar in zip(u, a)), Q(0)) + c
            if any(sum((lam[i] * rows[i][0][s] for i in lam), Q(0)) != g[s] for s in range(d)):
                return False
            if not sum((lam[i] * rows[i][1] for i in lam), Q(0)) + h <= 0:
                return False
    return True


# ================================================================ (b) and (c)

def second_layer(b2: dict[str, Any], m2: int) -> Optional[dict[str, Any]]:
    """(b): the plain block P_2 of width m2 equal to M_2 y + e_2 on {U_2 y + c_2 <= 0}, or None when
    m2 < 2 d - rank U_2.  Rows -u_j (j in J, independent; J empty when m2 >= 2 d) and +-n_k (standard
    vectors completing a basis); down projection M_2 A^{-1} and output bias e_2 - M_2 A^{-1} a."""
    d = len(b2["M"])
    J: list[int] = []
    if m2 < 2 * d:   # with room for 2 d units the identity pairs +-e_k are used (weights +-1 and M_2)
        for j, u in enumerate(b2["U"]):
            if rank([b2["U"][i] for i in J + [j]]) == len(J) + 1:
                J.append(j)
    basis = [[-v for v in b2["U"][j]] for j in J]
    ns = []
    for k in range(d):
        ek = [Q(int(s == k)) for s in range(d)]
        if rank(basis + ns + [ek]) == len(basis) + len(ns) + 1:
            ns.append(ek)
    need = len(J) + 2 * len(ns)
    if need > m2:
        return None
    A = basis + ns
    Ainv = inverse(A)
    if Ainv is None:   # pragma: no cover - A is a basis by construction
        raise ValueError("the completed basis is singular")
    B = _matmul(b2["M"], Ainv)
    a = [-b2["c"][j] for j in J] + [Q(0)] * len(ns)
    up, bias, cols = [], [], []
    for r, j in enumerate(J):
        up.append(basis[r])
        bias.append(-b2["c"][j])
        cols.append([B[s][r] for s in range(d)])
    for k, n in enumerate(ns):
        r = len(J) + k
        up += [list(n), [-v for v in n]]
        bias += [Q(0), Q(0)]
        cols += [[B[s][r] for s in range(d)], [-B[s][r] for s in range(d)]]
    while len(up) < m2:
        up.append([Q(0)] * d)
        bias.append(Q(0))
        cols.append([Q(0)] * d)
    Ba = _matvec(B, a)
    return {"W_up": up, "b_up": bias, "W_down": [[cols[i][s] for i in range(m2)] for s in range(d)],
            "b_down": [e - v for e, v in zip(b2["e"], Ba)], "dead_rows": J, "rank": len(J), "width_needed": need}


def second_layer_json(p2: dict[str, Any]) -> dict[str, Any]:
    """The plain layer of second_layer in the stack JSON form (W_up, W_down, b_up, b_down)."""
    return {"W_up": smat(p2["W_up"]), "W_down": smat(p2["W_down"]), "b_up": svec(p2["b_up"]), "b_down": svec(p2["b_down"])}


def _candidate_points(b1: dict[str, Any], tries: int, seed: int):
    """Rational points next to every vertex of block 1's kink arrangement (one per side of each d
    independent hyperplanes meeting there), then random small rationals."""
    d, m = len(b1["M"]), len(b1["U"])
    for S in itertools.combinations(range(m), d):
        A = [list(b1["U"][i]) for i in S]
        vertex = _solve(A, [-b1["c"][i] for i in S])
        if vertex is None:
            continue
        for sigma in itertools.product((1, -1), repeat=d):
            v = _solve(A, [Q(sg) for sg in sigma])
            if v is None:   # pragma: no cover - A is invertible here
                continue
            for k in range(0, 40, 3):
                t = Q(1, 2 ** k)
                yield [x + t * y for x, y in zip(vertex, v)]
    rng = random.Random(seed)
    for t in range(tries):
        yield [Q(rng.randint(-8 * (1 + t // 20), 8 * (1 + t // 20)), rng.randint(1, 4)) for _ in range(d)]


def invertible_piece(b1: dict[str, Any], M2: QMat, tries: int = 200, seed: int = 0) -> Optional[dict[str, Any]]:
    """(c): a rational point x off every kink hyperplane of block 1 (so inside the open region of its
    pattern D) where M_2 (M_1 + W_1 D U_1) is invertible; None when none is found at the candidate
    points (next to every vertex of the arrangement, then random: a search, not exhaustive, so None
    leaves part (c) open)."""
    seen: set[int] = set()
    for x in _candidate_points(b1, tries, seed):
        pre = [sum((u * v for u, v in zip(row, x)), Q(0)) + c for row, c in zip(b1["U"], b1["c"])]
        if any(p == 0 for p in pre):
            continue
        D = sum(1 << i for i, p in enumerate(pre) if p > 0)
        if D in seen:
            continue
        seen.add(D)
        A, _ = piece(b1, D)
        dt = det(_matmul(M2, A))
        if dt != 0:
            return {"point": svec(x), "pattern": D, "det": str(dt)}
    return None


def check_invertible_piece(b1: dict[str, Any], M2: QMat, rec: dict[str, Any]) -> bool:
    """Re-verify (c)'s point: off every kink hyperplane, of the stated pattern, with the stated
    nonzero determinant."""
    x = qvec(rec["point"])
    if len(x) != len(b1["M"]):
        return False
    pre = [sum((u * v for u, v in zip(row, x)), Q(0)) + c for row, c in zip(b1["U"], b1["c"])]
    if any(p == 0 for p in pre):
        return False
    D = sum(1 << i for i, p in enumerate(pre) if p > 0)
    A, _ = piece(b1, D)
    dt = det(_matmul(M2, A))
    return D == rec["pattern"] and dt != 0 and Q(rec["det"]) == dt
