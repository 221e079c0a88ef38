"""depth-dimension's certificate: the exact Jacobian rank of theta -> (F_theta(x_k))_k for a residual
relu stack, against the dimension bound D_plain of the plain stacks of the same widths
(proofs/informal/depth-dimension.md).

Near a point where no pre-activation vanishes the map is polynomial in the weights; its Jacobian
is computed exactly (python-flint rationals) and a nonsingular minor (row and column indices)
certifies its rank.  The dimension count (rank varieties of the junction products) is shared with
depth-analytic's certificate (oracle/algebra/stacks/analytic.py).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Optional, Sequence

from oracle.core.rational import QVec, fmpq, fmpq_mat, qvec, svec, to_fmpq, to_fmpq_mat
from oracle.algebra.exact import matvec_q
from oracle.algebra.stacks.layers import Layer, rational_points


# ================================================================ the dimension count

def rank_variety_dim(d: int, p: int, q: int) -> int:
    """dim{X in R^{p x q} : rank X <= d} = r (p + q - r) with r = min(d, p, q) (p q when d >= min(p, q))."""
    r = min(d, p, q)
    return r * (p + q - r)


def plain_dimension(d: int, widths: Sequence[int]) -> int:
    """D_plain: an upper bound of the dimension of the plain relu family's functions (see
    depth-dimension.md): d m_1 + d m_L + sum_l dim{rank <= d in R^{m_{l+1} x m_l}} - sum m_l (one
    positive rescaling per unit)."""
    L = len(widths)
    red = d * widths[0] + d * widths[-1] + sum(rank_variety_dim(d, widths[l + 1], widths[l])
                                               for l in range(L - 1))
    return red - sum(widths)


def junction_gaps(d: int, widths: Sequence[int]) -> list[int]:
    """delta_l = d (m_l + m_{l+1}) - dim{rank <= d}: what each junction's GL(d) freedom removes."""
    return [d * (widths[l] + widths[l + 1]) - rank_variety_dim(d, widths[l + 1], widths[l])
            for l in range(len(widths) - 1)]


# ================================================================ the exact Jacobian and its rank

def patterns_at(layers: Sequence[Layer], x: QVec) -> Optional[list[list[int]]]:
    """Activation patterns of the residual stack at x; None when some pre-activation is 0."""
    pats = []
    for U, W in layers:
        z = matvec_q(U, x)
        if any(v == 0 for v in z):
            return None
        pats.append([1 if v > 0 else 0 for v in z])
        x = [a + b for a, b in zip(x, matvec_q(W, [v if v > 0 else Fraction(0) for v in z]))]
    return pats


def chain_rule_rows(layers: Sequence[tuple[Sequence[Sequence[Any]], Sequence[Sequence[Any]]]],
                    x: Sequence[Any], act: Callable[[Any], tuple[Any, Any]], zero: Any, one: Any
                    ) -> list[list[Any]]:
    """The d rows of dF/dtheta at x for the residual stack y_l = y_{l-1} + W_l s(U_l y_{l-1}), in
    any number type (exact rationals, arb balls, floats; zero and one are its 0 and 1), from
    act(z) = (s(z), s'(z)).  With A_l = I + W_l diag(s'(z_l)) U_l and the suffix products
    S_l = A_L ... A_{l+1}:  dF/dU_l[i, c] = S_l w_{l,i} s'(z_{l,i}) y_{l-1,c} and
    dF/dW_l[a, i] = S_l e_a s(z_{l,i}); columns U_1, W_1, U_2, W_2, ... row-major."""
    d = len(x)
    y = list(x)
    per = []
    for U, W in layers:
        m = len(U)
        z = [sum((U[i][c] * y[c] for c in range(d)), zero) for i in range(m)]
        hs = [act(zi) for zi in z]
        h, s = [p[0] for p in hs], [p[1] for p in hs]
        A = [[(one if a == b else zero) + sum((W[a][i] * s[i] * U[i][b] for i in range(m)), zero)
              for b in range(d)] for a in range(d)]
        per.append((W, y, s, h, A))
        y = [y[a] + sum((W[a][i] * h[i] for i in range(m)), zero) for a in range(d)]
    L = len(layers)
    suffix: list[Any] = [None] * L   # suffix[l] = A_L ... A_{l+1}, applied after layer l
    S = [[(one if a == b else zero) for b in range(d)] for a in range(d)]
    for l in range(L - 1, -1, -1):
        suffix[l] = S
        A = per[l][4]
        S = [[sum((S[a][k] * A[k][b] for k in range(d)), zero) for b in range(d)] for a in range(d)]
    rows: list[list[Any]] = [[] for _ in range(d)]
    for l, (W, yl, s, h, _) in enumerate(per):
        Sl = suffix[l]
        m = len(s)
        SW = [[sum((Sl[a][k] * W[k][i] for k in range(d)), zero) for i in range(m)] for a in range(d)]
        for a in range(d):
            row = rows[a]
            for i in range(m):
                g = SW[a][i] * s[i]
                row.extend(g * yl[c] for c in range(d))
            for a2 in range(d):
                row.extend(Sl[a][a2] * h[i] for i in range(m))
    return rows


def _relu_exact(z: fmpq) -> tuple[fmpq, fmpq]:
    """relu and its slope on one side of the kink (a unit at z = 0 counts as inactive)."""
    return (z, fmpq(1)) if z > 0 else (fmpq(0), fmpq(0))


def jacobian_rows(layers: Sequence[Layer], x: QVec) -> list[list[fmpq]]:
    """d rows of the exact Jacobian of theta -> F_theta(x) (columns: U_1, W_1, U_2, W_2, ...
    row-major), valid where no pre-activation at x is 0 (the map is polynomial nearby).
    Entries are python-flint rationals (fmpq)."""
    exact = [([[to_fmpq(v) for v in r] for r in U], [[to_fmpq(v) for v in r] for r in W]) for U, W in layers]
    return chain_rule_rows(exact, [to_fmpq(v) for v in x], _relu_exact, fmpq(0), fmpq(1))


def _pivots(a: fmpq_mat, rank: int) -> list[int]:
    """Pivot columns of the reduced row echelon form of a (rank known)."""
    R, _ = a.rref()
    out, c = [], 0
    for r in range(rank):
        while R[r, c] == 0:
            c += 1
        out.append(c)
        c += 1
    return out


def rank_certificate(layers: Sequence[Layer], seed: int = 0, max_rounds: int = 3) -> dict[str, Any]:
    """Exact Jacobian rank of theta -> (F_theta(x_k))_k at rational points with nonzero
    pre-activations, with a nonsingular minor (row and column indices) as the certificate."""
    d = len(layers[0][1])
    widths = [len(U) for U, _ in layers]
    N, m = 2 * d * sum(widths), sum(widths)
    bound = plain_dimension(d, widths)
    target = N - m
    pts: list[QVec] = []
    rows: list[list[fmpq]] = []
    need = -(-target // d) + 3
    rank = 0
    for attempt in range(max_rounds):
        for x in rational_points(d, 4 * need, seed + attempt):
            if len(pts) >= need:
                break
            if patterns_at(layers, x) is None:
                continue
            pts.append(x)
            rows += jacobian_rows(layers, x)
        rank = to_fmpq_mat(rows).rank() if rows else 0
        if rank >= target:
            break
        need *= 2
    pivcols: list[int] = []
    pivrows: list[int] = []
    if rows and rank:
        pivcols = _pivots(to_fmpq_mat(rows), rank)
        sub = [[r[j] for j in pivcols] for r in rows]
        pivrows = _pivots(to_fmpq_mat(sub).transpose(), rank)
    return {"d": d, "widths": widths, "N": N, "m": m, "N_minus_m": target, "D_plain": bound,
            "gaps": junction_gaps(d, widths), "points": [svec(x) for x in pts],
            "patterns": [patterns_at(layers, x) for x in pts], "rank": rank,
            "minor_rows": pivrows, "minor_cols": pivcols,
            "certified": rank > bound,
            "excluded_added_widths": [k for k in range(0, 3 * d + 1)
                                      if plain_dimension(d, [w + k for w in widths]) < rank]}


def check_rank_certificate(layers: Sequence[Layer], cert: dict[str, Any]) -> bool:
    """Re-verify: patterns strict at every point, D_plain recomputed, the stated minor nonzero."""
    d = len(layers[0][1])
    widths = [len(U) for U, _ in layers]
    if cert["D_plain"] != plain_dimension(d, widths) or cert["N"] != 2 * d * sum(widths):
        return False
    pts = [qvec(x) for x in cert["points"]]
    rows: list[list[fmpq]] = []
    for x, pat in zip(pts, cert["patterns"]):
        if pat is None or len(x) != d or patterns_at(layers, x) != pat:
            return False
        rows += jacobian_rows(layers, x)
    r, ri, ci = cert["rank"], cert["minor_rows"], cert["minor_cols"]
    if len(pts) != len(cert["patterns"]) or not isinstance(r, int):
        return False
    if len(ri) != r or len(ci) != r or len(set(ri)) != r or len(set(ci)) != r:
        return False
    if r and to_fmpq_mat([[rows[i][j] for j in ci] for i in ri]).det() == 0:
        return False
    return r > cert["D_plain"] and cert.get("certified") is True

