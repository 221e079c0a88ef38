"""Part (D) of relu2-biased and gated-biased (proofs/informal/relu2-biased.md, gated-biased.md): the
blocks of the two biased claims that are affine maps, and relu2 blocks with room for at most one
square on a new kink hyperplane.  Exact algebra shared by the decision (oracle/decide/biased.py)
and the oracle checks (oracle/claims/relu2_biased.py, gated_biased.py).

* relu2_part_d: case D1 (no kink class with a nonzero output and no quadratic part: F = N x + c,
  absorbable with biases iff 4 rank N <= m') and case D2 (m' - n = 2, or 3 with n = 0: k <= 1 and
  T empty, decided by the single-square test);
* gated_affine: a gated block whose units all have gate row 0 or compute 0 is N x + c; the rank of
  N bracketed exactly (rational upper bound, interval lower bound) where gate values are
  transcendental.
"""

from __future__ import annotations

from typing import Any, Optional

from oracle.algebra import flips
from oracle.core import activations, arith
from oracle.core.blocks import Block
from oracle.core.rational import arb, fmpq, fmpq_mat, to_arb, to_fmpq, to_fraction


def block_flip_data(block: Block) -> flips.FlipData:
    """The exact flip data of a block (as oracle/decide/biased.py builds it)."""
    return flips.flip_data(flips.flip_kind(block.activation), block.W_up, block.W_down, block.M, b_up=block.b_up,
                           W_gate=block.W_gate, b_gate=block.b_gate)


def zero_units(fd: flips.FlipData) -> list[int]:
    """Units that compute 0: output column 0 or value map 0."""
    return [i for i in range(fd.m) if all(v == 0 for v in fd.col(i))
            or (all(v == 0 for v in fd.U[i]) and fd.b[i] == 0)]



MAX_PART_D_ENTRIES = 40_000   # m * d above this: part (D) is not tried (exact fmpq algebra per unit)
MAX_D2_SUBSETS = 1 << 12      # the sets E that (D2) tries, at most
MAX_D2_BESIDE_D = 16          # (D2) with one class in T enumerates the 2 x 2 minors: d at most this
MAX_BALL_RANK_D = 64          # interval elimination for the lower rank bound: d at most this


def _fmat(rows: list[list[fmpq]], nrows: int, ncols: int) -> fmpq_mat:
    return fmpq_mat(nrows, ncols, [v for r in rows for v in r]) if nrows and ncols else fmpq_mat(nrows, ncols)


def _rank_factor(N: fmpq_mat) -> list[tuple[list[fmpq], list[fmpq]]]:
    """N = sum_q c_q r_q^T exactly: r_q the nonzero rows of the reduced echelon form, c_q the
    matching pivot columns of N."""
    d_out, d_in = N.nrows(), N.ncols()
    R, rk = N.rref()
    piv = [next(c for c in range(d_in) if R[q, c] != 0) for q in range(rk)]
    out = [([N[o, piv[q]] for o in range(d_out)], [R[q, a] for a in range(d_in)]) for q in range(rk)]
    chk = fmpq_mat(d_out, d_in)
    for cq, rq in out:
        for o in range(d_out):
            for a in range(d_in):
                chk[o, a] += cq[o] * rq[a]
    if chk != N:  # pragma: no cover - the factorisation is exact
        raise RuntimeError("rank factorisation failed")
    return out


def _quadratic_and_linear(row: list[fmpq], d: int) -> tuple[list[list[fmpq]], list[fmpq]]:
    """A scalar polynomial mod constants (coefficients in the order of flips.monomials) as
    (A, l) with p(x) = x^T A x + l . x, A symmetric."""
    A = [[fmpq(0)] * d for _ in range(d)]
    l = [fmpq(0)] * d
    for (a, c), v in zip(flips.monomials(d), row):
        if c == -1:
            l[a] = v
        elif a == c:
            A[a][a] = v
        else:
            A[a][c] = A[c][a] = v / 2
    return A, l


def single_square(R: list[list[fmpq]], d: int) -> Optional[tuple[list[fmpq], list[fmpq], fmpq]]:
    """(beta, v, e) with R = beta (v . x + e)^2 mod constants (relu2-biased (D2)), or None.
    R: d coefficient rows (mod constants).  R = 0 gives beta = 0."""
    nz = [o for o in range(len(R)) if any(v != 0 for v in R[o])]
    if not nz:
        return [fmpq(0)] * len(R), [fmpq(1)] + [fmpq(0)] * (d - 1), fmpq(0)
    p = R[nz[0]]
    k = next(j for j, v in enumerate(p) if v != 0)
    beta = [R[o][k] / p[k] for o in range(len(R))]
    if any(R[o][j] != beta[o] * p[j] for o in range(len(R)) for j in range(len(p))):
        return None  # the rows span more than a line
    A, l = _quadratic_and_linear(p, d)
    Am = _fmat(A, d, d)
    if Am.rank() != 1:
        return None  # rank 0 with l != 0 (a linear map is no square), or rank >= 2
    j = next(a for a in range(d) if A[a][a] != 0)  # a rank-one symmetric matrix has a nonzero diagonal entry
    v = [A[a][j] for a in range(d)]
    lam = 1 / A[j][j]                              # A = lam v v^T
    a0 = next(a for a in range(d) if v[a] != 0)
    e = l[a0] / (2 * lam * v[a0])
    if any(l[a] != 2 * lam * e * v[a] for a in range(d)):
        return None  # l outside the range of A
    return [lam * x for x in beta], v, e


def relu2_part_d(fd: flips.FlipData, cl: Any, width: int, k0_exhausted: bool) -> dict[str, Any]:
    """relu2-biased (D) at width m' = width: case D1 (script-H empty, R_0 without quadratic part:
    absorbable iff 4 rank N <= m') or D2 (m' - n = 2 or 3: k <= 1, with T empty or |T| = 1; needs
    the k = 0 search of (C) to have been exhaustive).  status 'found' (with plan), 'none' (exact),
    'inconclusive' or 'not_applicable'."""
    d = fd.d
    active = cl.active
    n = len(active)
    r = width - n
    mons = flips.monomials(d)
    quad = [k for k, (a, c) in enumerate(mons) if c != -1]
    lin = {a: k for k, (a, c) in enumerate(mons) if c == -1}
    if n == 0 and all(cl.R0[o][k] == 0 for o in range(d) for k in quad):
        N = _fmat([[cl.R0[o][lin[a]] for a in range(d)] for o in range(d)], d, d)
        rho = N.rank()
        out: dict[str, Any] = {"case": "D1", "rank_N": rho, "width": width, "units_needed": 4 * rho}
        if 4 * rho > width:
            return {**out, "status": "none", "plan": None,
                    "reason": f"M x + B(x) is affine with linear part N of rank {rho}; 4 rank N = {4 * rho} "
                              f"> {width} units"}
        squares = []
        for cq, rq in _rank_factor(N):
            quarter = [x / 4 for x in cq]
            squares += [(quarter, rq, fmpq(1)), ([-x for x in quarter], rq, fmpq(-1))]
        return {**out, "status": "found", "plan": flips.Relu2Plan([], [], {}, squares),
                "reason": f"M x + B(x) is affine with linear part N of rank {rho}: {2 * rho} squares "
                          f"(c/4)((r.x + 1)^2 - (r.x - 1)^2) = c r.x, {4 * rho} <= {width} units"}
    if r not in (2, 3):
        return {"case": None, "status": "not_applicable", "plan": None,
                "reason": f"{n} active kink hyperplanes and {r} spare units: neither case of (D)"}
    out = {"case": "D2", "active_classes": n, "spare_units": r}
    if not k0_exhausted:
        return {**out, "status": "inconclusive", "plan": None,
                "reason": "the k = 0 search of (C) was not exhaustive"}
    if (1 << n) > MAX_D2_SUBSETS:
        return {**out, "status": "inconclusive", "plan": None,
                "reason": f"2^{n} sets E exceed the limit {MAX_D2_SUBSETS}"}
    for mask in range(1 << n):
        E = [active[j] for j in range(n) if (mask >> j) & 1]
        R = flips.poly_of_plan(cl, E)
        sq = single_square(R, d)
        if sq is not None:
            return {**out, "status": "found", "E_tried": mask + 1,
                    "plan": flips.Relu2Plan(E, [], {}, [sq] if any(x != 0 for x in sq[0]) else []),
                    "reason": f"R_E is one vector square for |E| = {len(E)} (k = 1, T empty)"}
        if r == 3 and d <= MAX_D2_BESIDE_D:  # k = 1 with one class H in T (the minors cost d^4)
            for h in active:
                if h in E:
                    continue
                got = square_beside_class(R, flips.square_coeffs(*cl.reps[h]), d)
                if got is not None:
                    beta_h, square = got
                    return {**out, "status": "found", "E_tried": mask + 1,
                            "plan": flips.Relu2Plan(E, [h], {h: beta_h}, [square]),
                            "reason": f"R_E - beta_H h_H^2 is one vector square for |E| = {len(E)} and one "
                                      "class H in T (k = 1, |T| = 1)"}
    what = "T empty" if r == 2 else "|T| <= 1"
    if r == 3 and d > MAX_D2_BESIDE_D:
        return {**out, "status": "inconclusive", "plan": None,
                "reason": f"d = {d} > {MAX_D2_BESIDE_D}: the one-class-in-T test of (D2) is not run"}
    return {**out, "status": "none", "E_tried": 1 << n, "plan": None,
            "reason": f"no solution of (2) with k = 0, and for none of the {1 << n} sets E is R_E one vector "
                      f"square plus squares on the classes of T (k = 1 forces {what})"}


def _row_as_combination(row: list[fmpq], p: list[fmpq], q: list[fmpq]) -> Optional[tuple[fmpq, fmpq]]:
    """(s, t) with row = s p + t q (p, q linearly independent), or None."""
    n = len(p)
    for j1 in range(n):
        for j2 in range(j1 + 1, n):
            det = p[j1] * q[j2] - p[j2] * q[j1]
            if det != 0:
                s = (row[j1] * q[j2] - row[j2] * q[j1]) / det
                t = (p[j1] * row[j2] - p[j2] * row[j1]) / det
                return (s, t) if all(row[j] == s * p[j] + t * q[j] for j in range(n)) else None
    raise ValueError("p and q are linearly dependent")  # pragma: no cover - the caller makes them independent


def square_beside_class(R: list[list[fmpq]], q: list[fmpq], d: int
                        ) -> Optional[tuple[list[fmpq], tuple[list[fmpq], list[fmpq], fmpq]]]:
    """(beta_H, (beta, v, e)) with R = beta_H h_H^2 + beta (v . x + e)^2 mod constants, q the
    coefficients of h_H^2 (relu2-biased (D2), |T| = 1), or None.  R must have a row outside span(q)
    (else k = 0 works).  The rows are then s_o p + t_o q for one row p, and p + mu q must be a scalar
    times a square for some mu: the 2 x 2 minors of its quadratic matrix A_p + mu u u^T are affine in
    mu (u u^T has rank 1), so mu is the common root, or any mu when they all vanish identically (then
    two values, 0 and 1, cover the one mu where the matrix may vanish)."""
    out_of_span = [o for o in range(len(R)) if any(R[o][j] * q[k] != R[o][k] * q[j]
                                                   for j in range(len(q)) for k in range(len(q)))]
    if not out_of_span:
        return None
    p = R[out_of_span[0]]
    st = []
    for row in R:
        c = _row_as_combination(row, p, q)
        if c is None:
            return None  # R mod span(q) has rank >= 2: no single square
        st.append(c)
    Ap, _ = _quadratic_and_linear(p, d)
    Aq, _ = _quadratic_and_linear(q, d)
    cands: set = set()
    all_zero = True
    for i in range(d):
        for j in range(i + 1, d):
            for k in range(d):
                for l in range(k + 1, d):
                    # det [[Ap_ik + mu Aq_ik, Ap_il + mu Aq_il], [Ap_jk + mu Aq_jk, Ap_jl + mu Aq_jl]] = c0 + c1 mu
                    c0 = Ap[i][k] * Ap[j][l] - Ap[i][l] * Ap[j][k]
                    c1 = Ap[i][k] * Aq[j][l] + Aq[i][k] * Ap[j][l] - Ap[i][l] * Aq[j][k] - Aq[i][l] * Ap[j][k]
                    if c1 != 0:
                        cands.add(-c0 / c1)
                        all_zero = False
                    elif c0 != 0:
                        return None  # a minor that never vanishes
    if all_zero:
        cands = {fmpq(0), fmpq(1)}
    for mu in sorted(cands):
        row = [a + mu * b for a, b in zip(p, q)]
        sq = single_square([row], d)
        if sq is None or sq[0][0] == 0:
            continue
        lam, v, e = sq[0][0], sq[1], sq[2]
        beta = [s * lam for s, _ in st]
        beta_h = [t - mu * s for s, t in st]
        return beta_h, (beta, v, e)
    return None


def k0_exhausted(classes: dict[str, Any]) -> bool:
    """True when relu2_decide_classes ended inconclusive only because it does not search k >= 1
    (its k = 0 search over every |T| <= r finished without hitting a limit)."""
    return classes.get("status") == "inconclusive" and str(classes.get("reason", "")).startswith(
        "no solution of (2) with k = 0")



# gated-biased (D): blocks whose units all have gate row 0 (or compute 0) are affine maps

GATE_PREC = 256  # bits of the balls around transcendental gate values g(c)


def gate_value(activation: str, c: fmpq) -> tuple[Optional[fmpq], Any]:
    """g(c) exactly when the catalog knows it as a rational (g(0), piecewise-polynomial gates),
    and a ball around it."""
    act = activations.get(activation)
    exact: Optional[fmpq] = None
    if c == 0:
        exact = to_fmpq(act.value_at_0)
    elif act.exact is not None:
        exact = to_fmpq(act.exact(to_fraction(c)))
    with arith.precision("ball", GATE_PREC):
        ball = to_arb(to_fraction(exact)) if exact is not None else act.ball(to_arb(to_fraction(c)))
        ball = ball + arb(0)
    return exact, ball


def _ball_rank_lower(N: list[list[Any]]) -> int:
    """A lower bound of the rank of the real matrix enclosed by the balls N: Gaussian elimination
    with pivots whose balls exclude 0 (their product is a nonzero minor)."""
    A = [list(r) for r in N]
    rows, cols = list(range(len(A))), list(range(len(A[0]) if A else 0))
    r = 0
    with arith.precision("ball", GATE_PREC):
        while rows and cols:
            best = None
            for i in rows:
                for j in cols:
                    if not A[i][j].contains(0):
                        size = abs(A[i][j].mid())
                        if best is None or size > best[0]:
                            best = (size, i, j)
            if best is None:
                break
            _, pi, pj = best
            rows.remove(pi)
            cols.remove(pj)
            r += 1
            for i in rows:
                f = A[i][pj] / A[pi][pj]
                for j in cols:
                    A[i][j] = A[i][j] - f * A[pi][j]
    return r


def gated_affine(block: Block) -> Optional[dict[str, Any]]:
    """gated-biased (D) data of a block whose units all have gate row 0 or compute 0 (None for any
    other block): F(x) = N x + c with N = M + sum_z g(z) K_z, K_z = sum of w_i u_i^T over the
    units of gate bias z, and the bracket rank_lower <= rank N <= rank_upper (equal when every
    g(z) is rational; rank_upper is the rank of [M' | K_z ...] over the transcendental g(z))."""
    if block.activation not in activations.BIASED_FLIP or not block.act.gated:
        return None
    if block.m * block.d > MAX_PART_D_ENTRIES:
        return None
    fd = block_flip_data(block)
    d = fd.d
    zero = zero_units(fd)
    aff = [i for i in range(fd.m) if i not in zero and all(v == 0 for v in fd.G[i])]
    if len(zero) + len(aff) != fd.m:
        return None
    groups: dict[Any, list[int]] = {}
    for i in aff:
        groups.setdefault(to_fraction(fd.c[i]), []).append(i)
    Mx = fmpq_mat(d, d, [v for row in fd.M for v in row])
    cx = [fmpq(0)] * d if block.b_down is None else [to_fmpq(v) for v in block.b_down]
    inexact = []  # (z, K, k, ball g(z))
    values = {}
    for z in sorted(groups):
        K = fmpq_mat(d, d)
        k = [fmpq(0)] * d
        for i in groups[z]:
            w = fd.col(i)
            for o in range(d):
                if w[o] != 0:
                    k[o] += w[o] * fd.b[i]
                    for a in range(d):
                        K[o, a] += w[o] * fd.U[i][a]
        g_exact, g_ball = gate_value(block.activation, to_fmpq(z))
        values[str(z)] = str(to_fraction(g_exact)) if g_exact is not None else g_ball.str(20, radius=True)
        if g_exact is not None:
            Mx += g_exact * K
            cx = [x + g_exact * y for x, y in zip(cx, k)]
        else:
            inexact.append((z, K, k, g_ball))
    cat = fmpq_mat(d, d * (1 + len(inexact)))
    for o in range(d):
        for a in range(d):
            cat[o, a] = Mx[o, a]
            for q, (_, K, _, _) in enumerate(inexact):
                cat[o, d * (q + 1) + a] = K[o, a]
    R, r_up = cat.rref()
    piv = [next(c for c in range(cat.ncols()) if R[q, c] != 0) for q in range(r_up)]
    basis = [[cat[o, p] for o in range(d)] for p in piv]  # columns of [M' | K ...] spanning it
    with arith.precision("ball", GATE_PREC):
        Nb = [[to_arb(to_fraction(Mx[o, a])) + sum((g * to_arb(to_fraction(K[o, a])) for _, K, _, g in inexact),
                                                    arb(0)) for a in range(d)] for o in range(d)]
        cb = [to_arb(to_fraction(cx[o])) + sum((g * to_arb(to_fraction(k[o])) for _, _, k, g in inexact), arb(0))
              for o in range(d)]
    r_low = r_up if not inexact else (min(_ball_rank_lower(Nb), r_up) if d <= MAX_BALL_RANK_D else 0)
    if not inexact or all(all(v == 0 for v in k) for _, _, k, _ in inexact):
        c_zero: Optional[bool] = all(v == 0 for v in cx)
    else:
        c_zero = False if any(not v.contains(0) for v in cb) else None
    n_zero: Optional[bool] = True if r_up == 0 else (False if r_low >= 1 else None)
    return {"fd": fd, "affine_units": aff, "zero_units": zero, "gate_values": values,
            "rank_upper": r_up, "rank_lower": r_low, "rank_exact": r_low == r_up,
            "N_zero": n_zero, "c_zero": c_zero, "M_exact": Mx, "c_exact": cx, "inexact": inexact,
            "basis": basis, "N_ball": Nb, "c_ball": cb}


def gated_affine_outcome(block: Block, ga: dict[str, Any], convention: str) -> tuple[str, str]:
    """(outcome, why) of gated-biased (D) for one convention: 'allowed' (replacing blocks with
    biases) or 'none' (bias-free ones)."""
    m = block.m
    lo, up = ga["rank_lower"], ga["rank_upper"]
    rank = f"rank N = {up}" if lo == up else f"{lo} <= rank N <= {up}"
    if convention == "allowed":
        if up <= m:
            return "absorbable", f"{rank} <= m = {m}"
        if lo > m:
            return "not_absorbable", f"{rank} > m = {m} (image lemma: the columns of N lie in the span of the m output columns)"
        return "undecided", f"{rank}: the comparison with m = {m} is not settled"
    act = block.act
    if act.value_at_0 == 0 and act.continuous_at_0:
        if ga["N_zero"] is True and ga["c_zero"] is True:
            return "absorbable", "N = 0 and c = 0: x -> Mx + B(x) is the zero map, the zero block"
        if ga["N_zero"] is False:
            return "not_absorbable", (f"N != 0 ({rank}): a bias-free block with g(0) = 0, g continuous at 0, is o(t) "
                                      "along t x as t -> 0+, while F(t x) / t = N x")
        if ga["c_zero"] is False:
            return "not_absorbable", "c = F(0) != 0, while a bias-free block vanishes at 0"
        return "undecided", "whether N = 0 and c = 0 is not settled"
    if ga["c_zero"] is False:
        return "not_absorbable", "c = F(0) != 0, while a bias-free block vanishes at 0"
    if lo > m:
        return "not_absorbable", f"{rank} > m = {m} (image lemma)"
    if ga["c_zero"] is True and up <= m:
        return "absorbable", f"c = 0 and {rank} <= m = {m}; g(0) = {act.value_at_0}"
    return "undecided", f"c = 0 and {rank} <= m = {m} not both settled"



def relu2_affine(block: Block) -> Optional[tuple[fmpq_mat, list[fmpq]]]:
    """(N, c) when x -> Mx + B(x) of a relu2 block is the affine map N x + c (relu2-biased (D1):
    no kink class with nonzero output and no quadratic part), else None."""
    if block.activation not in activations.SQUARE_FLIP or block.m * block.d > MAX_PART_D_ENTRIES:
        return None
    fd = block_flip_data(block)
    cl = flips.relu2_classes(fd)
    d = fd.d
    mons = flips.monomials(d)
    if cl.active or any(cl.R0[o][k] != 0 for o in range(d) for k, (_, c) in enumerate(mons) if c != -1):
        return None
    lin = {a: k for k, (a, c) in enumerate(mons) if c == -1}
    N = _fmat([[cl.R0[o][lin[a]] for a in range(d)] for o in range(d)], d, d)
    # c = F(0) = b_down + sum_i w_i relu2(b_i)
    c = [fmpq(0)] * d if block.b_down is None else [to_fmpq(v) for v in block.b_down]
    for i in range(fd.m):
        if fd.b[i] > 0:
            w = fd.col(i)
            c = [x + w[o] * fd.b[i] * fd.b[i] for o, x in enumerate(c)]
    return N, c
