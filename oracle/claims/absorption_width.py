"""Oracle check of absorption-width: m + d units absorb the skip; generically no fewer do (relu).

Upper bound (proofs/informal/absorption-width.md, part (A)). With rank W_up = d pick d
independent rows u_{i_1..i_d}, solve sum_k b_k u_{i_k}^T = -I exactly, replace w_{i_k} by
w_{i_k} - b_k and append the units (-u_{i_k}, b_k). The result is a residual-free block of width
m + d equal to x + B(x) for every s with s(z) - s(-z) = z. Checked exactly in rationals for relu
and with arb ball enclosures (evidence; the identity is proved) for gelu, gelu_tanh and silu.

Lower bound (part (B), relu, nondegenerate). The minimal width is m + C with
C = min over disjoint S, T of |T| + 2 rank((I + W_S U_S) P_T), P_T the orthogonal projector onto
the complement of span{u_i : i in T}. The check enumerates every (S, T) exactly, reports all
det(I + W_S U_S), confirms C = d when they are all nonzero (so no block of width m + d - 1 of
the only possible form exists), and builds and verifies the width m + C block of the proof.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional, Sequence

from hypothesis import assume
from hypothesis import strategies as st

from oracle.core import activations, linalg
from oracle.core import rational
from oracle.core.blocks import Block, exact_inverse, exact_rank, nondegeneracy, rref
from oracle.algebra.canonical import relu_form_exact
from oracle.algebra.pl_check import ExactRelu, pl_equal
from oracle.algebra.relu_width import minimal_width
from oracle.core.strategies import blocks, nondegenerate_blocks
from oracle.algebra.stacks.layers import canonical_form
from oracle.claims.base import Certificate, oracle_check
from oracle.claims.coverage import NEAR_MISS_STEP
from oracle.core.rational import qmat, qvec, smat, svec
from oracle.algebra.exact import (
    balls_agree, det, eval_ball, eval_plain_q, identity, index_sum, matmul, nullspace, transpose
)

CLAIM = "absorption-width"
MAX_LOWER_M = 5  # the (S, T) enumeration has 3^m terms


# ---------------------------------------------------------------- exact linear algebra

def _rank_cols(a: list[list[Fraction]], cols: list[list[Fraction]]) -> int:
    """rank(a K) where K has the given column vectors."""
    if not cols:
        return 0
    return linalg.rank(linalg.matmul(a, rational.to_fmpq_mat(cols).transpose()))


def _independent_rows(rows: list[list[Fraction]]) -> list[int]:
    """Indices of a maximal independent subset of the rows: the pivot columns of the transpose."""
    if not rows:
        return []
    return linalg.rref(rational.to_fmpq_mat(rows).transpose())[1]


def is_dyadic(v: Fraction) -> bool:
    """True when v is an integer over a power of two (exactly representable given enough bits)."""
    den = Fraction(v).denominator
    return den & (den - 1) == 0


# ---------------------------------------------------------------- constructions

def build_block(U: list, W: list, S: Sequence[int], T: Sequence[int],
                M: Optional[list] = None) -> tuple[list, list]:
    """The residual-free block of width m + |T| + 2 rank(A P_T) from the proof of part (A).

    A = M + W_S U_S. Units: (u_i, w_i) off S and T; (-u_i, w_i) on S \\ T; on T the pair
    (u_i, w_i + z_i), (-u_i, -z_i) with z_i = y_i - [i in S] w_i where A (I - P_T) = sum y_i u_i^T;
    and a pair (l_q, b_q), (-l_q, -b_q) for a rank factorization A P_T = sum b_q l_q^T.
    """
    d, m = len(W), len(U)
    M = identity(d) if M is None else M
    S, T = set(S), set(T)
    A = [[x + y for x, y in zip(ra, rb)] for ra, rb in zip(M, index_sum(U, W, sorted(S)))]
    basis = _independent_rows([U[i] for i in sorted(T)])
    Tl = [sorted(T)[k] for k in basis]
    R = [U[i] for i in Tl]
    y = {i: [Fraction(0)] * d for i in T}
    if R:
        G = exact_inverse(matmul(R, transpose(R)))
        Y = matmul(matmul(A, transpose(R)), G)  # A (I - P_T) = Y R
        for k, i in enumerate(Tl):
            y[i] = [Y[a][k] for a in range(d)]
        P = [[Fraction(int(a == b)) - v for b, v in enumerate(row)]
             for a, row in enumerate(matmul(transpose(R), matmul(G, R)))]
    else:
        P = identity(d)
    AP = matmul(A, P)
    L, piv = rref(AP)
    Bq = [[AP[a][c] for a in range(d)] for c in piv]  # AP = sum_q Bq[q] L[q]^T
    up, down_cols = [], []
    for i in range(m):
        w = [W[a][i] for a in range(d)]
        if i in T:
            z = [yv - (wv if i in S else 0) for yv, wv in zip(y[i], w)]
            up += [list(U[i]), [-v for v in U[i]]]
            down_cols += [[a + b for a, b in zip(w, z)], [-v for v in z]]
        elif i in S:
            up.append([-v for v in U[i]])
            down_cols.append(w)
        else:
            up.append(list(U[i]))
            down_cols.append(w)
    for l, b in zip(L, Bq):
        up += [list(l), [-v for v in l]]
        down_cols += [list(b), [-v for v in b]]
    return up, transpose(down_cols)


def spec_construction(U: list, W: list, M: Optional[list] = None) -> Optional[dict[str, Any]]:
    """The m + d recipe of absorption-width (proofs/informal/absorption-width.md) for
    x -> Mx + B(x); prefers d independent rows whose inverse is dyadic.  None if rank < d."""
    d, m = len(W), len(U)
    M = identity(d) if M is None else M
    first = None
    for rows in itertools.combinations(range(m), d):
        inv = exact_inverse([U[i] for i in rows])
        if inv is None:
            continue
        first = first or (rows, inv)
        if all(is_dyadic(v) for r in inv for v in r):
            first = (rows, inv)
            break
    if first is None:
        return None
    rows, inv = first
    # sum_k b_k u_{i_k}^T = [b_1..b_d] U_I = -M, so [b_1..b_d] = -M U_I^{-1}.
    Bm = [[-v for v in r] for r in matmul(M, inv)]
    b = [[Bm[a][k] for a in range(d)] for k in range(d)]
    up = [list(r) for r in U] + [[-v for v in U[i]] for i in rows]
    cols = [[W[a][i] for a in range(d)] for i in range(m)]
    for k, i in enumerate(rows):
        cols[i] = [x - y for x, y in zip(cols[i], b[k])]
    cols += b
    return {"rows": list(rows), "b": b, "W_up": up, "W_down": transpose(cols)}


def lower_bound_table(U: list, W: list, M: Optional[list] = None, max_T: Optional[int] = None) -> dict[str, Any]:
    """Exact C = min over disjoint (S, T) of |T| + 2 rank((M + W_S U_S) P_T), and all det(M + W_S U_S)
    (with max_T: the minimum over |T| <= max_T only, for a corner's purpose)."""
    m, d = len(U), len(W)
    I = identity(d) if M is None else M
    dets, best = {}, None
    A_of = {}
    for S in itertools.chain.from_iterable(itertools.combinations(range(m), k) for k in range(m + 1)):
        A = [[x + y for x, y in zip(ra, rb)] for ra, rb in zip(I, index_sum(U, W, S))]
        A_of[S] = A
        dets[S] = det(A)
    for S, A in A_of.items():
        rest = [i for i in range(m) if i not in S]
        for k in range(min(len(rest), m if max_T is None else max_T) + 1):
            for T in itertools.combinations(rest, k):
                K = nullspace([U[i] for i in T], d) if T else identity(d)
                cost = len(T) + 2 * _rank_cols(A, K)
                if best is None or cost < best[0]:
                    best = (cost, S, T)
    return {"C": best[0], "argmin_S": list(best[1]), "argmin_T": list(best[2]),
            "pairs": 3 ** m, "dets": {",".join(map(str, S)): str(v) for S, v in dets.items()},
            "all_invertible": all(v != 0 for v in dets.values())}


# ---------------------------------------------------------------- verification

def verify_equal(U: list, W: list, up: list, down: list, pts: list,
                 acts: Sequence[str] = activations.COQ_ODD_PART, M: Optional[list] = None) -> tuple[bool, dict[str, Any]]:
    """Mx + B(x) == B'(x) at pts (M = I when not given): exact for relu, arb balls for the others."""
    d = len(W)
    I = identity(d) if M is None else M
    out, ok = {}, True
    for act in acts:
        rows = []
        for p in pts:
            if act == "relu":
                lhs, rhs = eval_plain_q("relu", U, W, p, M=I), eval_plain_q("relu", up, down, p)
                good = lhs == rhs
                rows.append({"x": svec(p), "equal": good})
            else:
                good, width = balls_agree(eval_ball(act, U, W, p, M=I), eval_ball(act, up, down, p))
                rows.append({"x": svec(p), "equal": good, "diff_bound": width})
            ok = ok and good
        out[act] = rows
    return ok, out


# ---------------------------------------------------------------- instances

@dataclass
class WidthInstance:
    """A nondegenerate block with rank W_up = d and points to compare at."""

    block: Block
    points: list[list[Fraction]]
    planted: bool = False  # M = -W_S U_S for a drawn S: width m suffices (C = 0)
    near_miss: bool = False  # that M with one entry moved by 2^-30
    purpose: str = ""  # a corner's reason to exist, verified by _purpose_met ("" for drawn instances)


@st.composite
def _instances(draw: st.DrawFn) -> WidthInstance:
    d = draw(st.integers(1, 3))
    skip = draw(st.sampled_from(["identity", "invertible", "singular"]))
    if d >= 2 and draw(st.integers(0, 3)) == 0:
        # the exact-width half has no rank condition: nondegenerate blocks with m < d or
        # rank W_up < d (the m + d construction does not apply to them, the lower bound does)
        m = draw(st.integers(1, MAX_LOWER_M if d <= 2 else 4))
        b = draw(nondegenerate_blocks("relu", d=d, m=m, skip=skip))
        assume(m < d or exact_rank(qmat(b.W_up)) < d)
    else:
        m = draw(st.integers(d, MAX_LOWER_M if d <= 2 else 4))
        # degenerate blocks too: the m + d construction needs only rank W_up = d
        make = nondegenerate_blocks if draw(st.integers(0, 2)) else blocks
        b = draw(make("relu", d=d, m=m, skip=skip))
        assume(exact_rank(qmat(b.W_up)) == d)
    planted = near = False
    if draw(st.integers(0, 3)) == 0:
        # planted: M = -W_S U_S (exact in float64 for these small dyadic weights), so M + W_S U_S = 0
        S = draw(st.lists(st.integers(0, m - 1), unique=True, min_size=1, max_size=m))
        M = -(b.W_down[:, S] @ b.W_up[S, :])
        planted = True
        if draw(st.booleans()):
            M = M.copy()
            M[draw(st.integers(0, d - 1)), draw(st.integers(0, d - 1))] += 2.0 ** -30
            near, planted = True, False
        b = Block("relu", W_up=b.W_up, W_down=b.W_down, M=M)
    coord = st.builds(Fraction, st.integers(-30, 30), st.sampled_from([1, 2, 3, 4, 8]))
    pts = draw(st.lists(st.lists(coord, min_size=d, max_size=d), min_size=2, max_size=4))
    return WidthInstance(b, pts, planted, near)


STRATEGY = _instances()


def _m_star(U: list, W: list, M: list) -> int:
    """relu-complete's exact minimal width of x -> Mx + W relu(U x) (canonical form and ranks)."""
    wr = minimal_width(relu_form_exact(U, W, M))
    if not wr.exact:
        raise ValueError("m* not determined exactly")
    return wr.lower


def carried_biases(b: Block) -> list[str]:
    """The names of the block's bias vectors with a nonzero entry (empty: the block is bias-free)."""
    return [n for n in ("b_up", "b_gate", "b_down")
            if getattr(b, n, None) is not None and any(v != 0 for v in getattr(b, n))]


def _referee_equal(U: list, W: list, M: list, up: list, down: list) -> bool:
    """The piecewise-linear referee (d <= 2): x -> Mx + W relu(Ux) equals the relu block (up, down)."""
    d = len(W)
    return pl_equal(ExactRelu(U, W, None, None, M, d=d), ExactRelu(up, down, None, None, None, d=d))


def overlap_pairs(m: int) -> list[tuple[list[int], list[int]]]:
    """(S, T) pairs that overlap, so that build_block's units on S and T meet: S = T = {0}, and
    S = every unit with T = {m - 1}."""
    return [([0], [0]), (list(range(m)), [m - 1])]


def overlap_block_check(U: list, W: list, M: list, S: list[int], T: list[int], pts: list) -> dict[str, Any]:
    """build_block for one (S, T): its width against m + |T| + 2 rank((M + W_S U_S) P_T), computed
    here, and its function against F (exact points; the referee for d <= 2)."""
    d, m = len(W), len(U)
    A = [[x + y for x, y in zip(ra, rb)] for ra, rb in zip(M, index_sum(U, W, S))]
    K = nullspace([U[i] for i in T], d)
    width = m + len(T) + 2 * _rank_cols(A, K)
    up, down = build_block(U, W, S, T, M)
    ok = len(up) == width and verify_equal(U, W, up, down, pts, acts=("relu",), M=M)[0]
    if d <= 2:
        ok = ok and _referee_equal(U, W, M, up, down)
    return {"S": list(S), "T": list(T), "width": len(up), "expected_width": width, "ok": ok}


def planted_contract(U: list, W: list, M: list, planted: bool, near_miss: bool) -> bool:
    """The instance is what it says it is, decided from its weights by trying every index set S:
    planted means M + W_S U_S = 0 for some nonempty S; a near miss means no S gives 0 and some S
    leaves exactly one nonzero entry, of size 2^-30 (coverage.NEAR_MISS_STEP); an ordinary
    instance claims neither."""
    m = len(U)
    rests = []
    for k in range(1, m + 1):
        for S in itertools.combinations(range(m), k):
            rests.append([v for ra, rb in zip(M, index_sum(U, W, S)) for v in (x + y for x, y in zip(ra, rb))])
    zero = any(all(v == 0 for v in r) for r in rests)
    one_off = any(sorted(abs(v) for v in r if v != 0) == [NEAR_MISS_STEP] for r in rests)
    if planted and near_miss:
        return False
    if planted:
        return zero
    if near_miss:
        return not zero and one_off
    return True


def _purpose_met(purpose: str, lb: Optional[dict[str, Any]], con: Optional[dict[str, Any]] = None,
                 UWM: Optional[tuple] = None) -> bool:
    """A corner's stated purpose, checked on its records: "odd_C" needs C = 1 (the optimum removes
    a kink with a nonempty T: no rank argument alone gives an odd C); "needs_T2" needs C = 2 with
    every (S, T) with |T| <= 1 costing more (recomputed from UWM = (U, W, M)); "dyadic_rows" needs
    the m + d construction to be dyadic on rows other than the first d, whose inverse is not."""
    if not purpose:
        return True
    if purpose == "odd_C":
        return lb is not None and lb["C"] == 1 and len(lb["argmin_T"]) == 1
    if purpose == "needs_T2":
        return lb is not None and UWM is not None and lb["C"] == 2 \
            and lower_bound_table(*UWM, max_T=1)["C"] > 2
    if purpose == "dyadic_rows":
        if con is None or UWM is None:
            return False
        d = len(UWM[1])
        first = exact_inverse([UWM[0][i] for i in range(d)])
        return con["dyadic"] is True and con["rows"] != list(range(d)) and first is not None \
            and not all(Fraction(v).denominator == 1 << (Fraction(v).denominator.bit_length() - 1)
                        for r in first for v in r)
    return False


def plus_one_kink(up: list, down: list, d: int) -> tuple[list, list]:
    """A negative control: the block (up, down) plus the unit e_1 relu(x_d).  It differs from the
    block by e_1 relu(x_d), which is 0 on the half-space x_d <= 0 (for d = 2: on the x_1-axis)."""
    e = [Fraction(int(a == d - 1)) for a in range(d)]
    return [list(r) for r in up] + [e], [list(row) + [Fraction(int(a == 0))] for a, row in enumerate(down)]


def controls_told_apart(U: list, W: list, M: list, up: list, down: list) -> bool:
    """Both equality tests (canonical forms; the referee for d <= 2) refuse the control
    plus_one_kink(up, down) against F."""
    d = len(W)
    cu, cd = plus_one_kink(up, down, d)
    if canonical_form(U, W, M) == canonical_form(cu, cd):
        return False
    return d > 2 or not _referee_equal(U, W, M, cu, cd)


def _all_dyadic(*mats: list) -> bool:
    return all(is_dyadic(v) for a in mats for row in a for v in row)


def width_corners() -> list[WidthInstance]:
    """Corner instances checked on every run before the drawn ones: d = 3 planted on all three
    units (M = -W U, so C = 0); d = 3 with two units (m < d, no m + d construction, only the exact
    width); d = 1 with M = 0 and one unit; a d = 2 near miss of a planted M; d = 2 whose first two
    rows have a non-dyadic inverse and a later pair a dyadic one; d = 2 with C = 1 (M + w_1 u_1^T
    = y u_0^T, so T = {0} removes it: an odd C, and a kink line with u[1] = 0); d = 3 whose C = 2
    only |T| = 2 reaches."""
    import numpy as np
    F = Fraction
    U3 = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, -1.0], [1.0, 1.0, 0.5]])
    W3 = np.array([[0.5, -1.0, 1.0], [1.0, 0.5, 0.0], [-0.5, 0.0, 2.0]])
    planted = WidthInstance(Block("relu", W_up=U3, W_down=W3, M=-(W3 @ U3)),
                            [[F(1), F(-2), F(1, 2)], [F(-3), F(1), F(2)]], planted=True)
    narrow = WidthInstance(Block("relu", W_up=np.array([[1.0, 2.0, 0.0], [0.0, 1.0, -1.0]]),
                                 W_down=np.array([[1.0, 0.0], [0.5, -1.0], [0.0, 2.0]]), M=np.eye(3)),
                           [[F(1), F(1), F(1)], [F(-2), F(1, 2), F(3)]])
    line = WidthInstance(Block("relu", W_up=np.array([[2.0]]), W_down=np.array([[-0.5]]), M=np.zeros((1, 1))),
                         [[F(3)], [F(-5, 2)]])
    U2, W2 = np.array([[1.0, -1.0], [2.0, 1.0]]), np.array([[1.0, 0.5], [-1.0, 1.0]])
    M2 = -(W2[:, [1]] @ U2[[1], :])
    M2[0, 1] += 2.0 ** -30
    near = WidthInstance(Block("relu", W_up=U2, W_down=W2, M=M2), [[F(1), F(2)], [F(-1, 3), F(4)]], near_miss=True)
    # the first two rows have the inverse diag(1/3, 1): the construction must prefer rows 1, 2
    third = WidthInstance(Block("relu", W_up=np.array([[3.0, 0.0], [0.0, 1.0], [1.0, 0.0]]),
                                W_down=np.array([[1.0, -0.5, 0.25], [0.5, 1.0, -1.0]]), M=np.eye(2)),
                          [[F(1, 3), F(2)], [F(-1), F(-3, 2)]], purpose="dyadic_rows")
    # M = y u_0^T - w_1 u_1^T with y = (1, 1), u_0 = e_1, u_1 = e_2, w_0 = (1, -1), w_1 = (1/2, 1)
    odd = WidthInstance(Block("relu", W_up=np.eye(2), W_down=np.array([[1.0, 0.5], [-1.0, 1.0]]),
                              M=np.array([[1.0, -0.5], [1.0, -1.0]])),
                        [[F(1), F(-1)], [F(-2), F(3)]], purpose="odd_C")
    # d = 3, U = W = I, M = [y1 y2 0] with y1 = (1, 0, 1), y2 = (0, 1, 1): every M + W_S U_S has
    # rank >= 2 and two nonzero columns, so C = 2 comes only from T = {0, 1} (|T| = 2)
    two = WidthInstance(Block("relu", W_up=np.eye(3), W_down=np.eye(3),
                              M=np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]])),
                        [[F(1), F(-1), F(2)], [F(-2), F(3), F(-1, 2)]], purpose="needs_T2")
    return [planted, narrow, line, near, third, odd, two]


def _bump(rows: list[list[str]]) -> None:
    rows[0][0] = str(Fraction(rows[0][0]) + 1)


# Edits of a holding certificate that the re-check must refuse.  On the construction: its width,
# its factor b, its points (none), its weights; dropped while rank W_up = d.  On the lower bound:
# C, the determinant table, the minimal block's width, its weights, the overlapping-pair records.
CONSTRUCTION_FORGERIES: list[tuple[str, Any]] = [
    ("dropped construction", lambda c: c["data"].update(construction=None)),
    ("construction width", lambda c: c["data"]["construction"]["W_up"].pop()),
    ("construction factor b", lambda c: _bump(c["data"]["construction"]["b"])),
    ("no construction points", lambda c: c["data"]["construction"]["points"].update(relu=[])),
    ("construction weight", lambda c: _bump(c["data"]["construction"]["W_down"])),
]
LOWER_BOUND_FORGERIES: list[tuple[str, Any]] = [
    ("C", lambda c: c["data"]["lower_bound"].update(C=c["data"]["lower_bound"]["C"] + 1)),
    ("determinants", lambda c: c["data"]["lower_bound"].update(dets=["forged"])),
    ("minimal block width", lambda c: c["data"]["lower_bound"]["min_block"]["W_up"].append(
        c["data"]["lower_bound"]["min_block"]["W_up"][0])),
    ("minimal block weight", lambda c: _bump(c["data"]["lower_bound"]["min_block"]["W_down"])),
    ("overlapping pairs", lambda c: c["data"]["lower_bound"].update(overlapping=["forged"])),
]


def _forged(cert: dict[str, Any], edit: Any) -> dict[str, Any]:
    bad = json.loads(json.dumps(cert))
    edit(bad)
    return bad


@oracle_check(CLAIM, STRATEGY, recheck=lambda c: recheck(c),
              precision="exact (relu, lower bound); arb 128 bits as evidence (gelu, gelu_tanh, silu)",
              examples=width_corners)
def check(inst: WidthInstance) -> Certificate:
    """Build and verify the width m + d block; compute the exact minimal relu width m + C; the
    re-check must refuse every forgery (CONSTRUCTION_FORGERIES, LOWER_BOUND_FORGERIES) of the
    parts the certificate has."""
    cert = _check(inst)
    data = cert.data
    tries = (CONSTRUCTION_FORGERIES if data.get("construction") else []) \
        + (LOWER_BOUND_FORGERIES if "lower_bound" in data else []) if cert.holds else []
    d = cert.as_dict()
    accepted = [n for n, edit in tries if recheck(_forged(d, edit))]
    cert.data["forgeries_refused"] = not accepted
    return cert if not accepted else Certificate(
        CLAIM, False, False, cert.method, cert.data, "the re-check accepts forged certificates: " + ", ".join(accepted))


def _check(inst: WidthInstance) -> Certificate:
    b = inst.block
    biased = carried_biases(b)
    if biased:
        # the claim's hypothesis bias_free is decided here, never assumed: a biased block is not
        # covered (x + relu(x + 1) is no bias-free block: it is 1 at 0), and its biases are not dropped
        return Certificate(CLAIM, False, True, "exact (the hypothesis read from the block)",
                           {"hypotheses": {"bias_free": False}, "biases": biased},
                           "hypothesis fails: bias_free (the block carries " + ", ".join(biased)
                           + "); the claim does not apply")
    U, W, M = qmat(b.W_up), qmat(b.W_down), qmat(b.skip())
    d, m = b.d, b.m
    pts = [qvec(p) for p in inst.points] + [[Fraction(0)] * d]
    rk = exact_rank(U)
    nondeg = nondegeneracy(b.W_up, b.W_down).ok
    data: dict[str, Any] = {
        "W_up": smat(U), "W_down": smat(W), "M": smat(M), "d": d, "m": m, "rank_W_up": rk}
    # the instance held to its contract: planted / near miss as drawn, decided from the weights
    data["instance_contract"] = planted_contract(U, W, M, inst.planted, inst.near_miss)
    if not data["instance_contract"]:
        return Certificate(CLAIM, False, False, "exact (every index set S)", data,
                           "the instance is not what it says (planted or near miss)")
    con = spec_construction(U, W, M)
    if con is None:
        # rank W_up < d: only the exact-width half applies (nondegenerate blocks, any rank)
        if not (nondeg and m <= MAX_LOWER_M):
            return Certificate(CLAIM, False, False, "exact rank", {"rank": rk},
                               "rank W_up < d and the block is degenerate: no part of the claim applies")
        data["construction"] = None
        holds = True
    else:
        bsum = matmul(transpose(con["b"]), [U[i] for i in con["rows"]])
        alg = bsum == [[-v for v in r] for r in M]
        ok_up, rows_up = verify_equal(U, W, con["W_up"], con["W_down"], pts, M=M)
        dy = _all_dyadic(con["W_up"], con["W_down"])
        data["construction"] = {"rows": con["rows"], "b": smat(con["b"]), "W_up": smat(con["W_up"]),
                                "W_down": smat(con["W_down"]), "width": len(con["W_up"]),
                                "sum_b_u_equals_minus_M": alg, "points": rows_up,
                                "dyadic": dy, "float64_note": "" if dy else
                                "some weights are non-dyadic rationals: float64 cannot hold them exactly; "
                                "the relu verification is exact in rationals"}
        # the recorded float64 note is true: non-dyadic weights only when no d rows have a dyadic inverse
        data["construction"]["no_dyadic_choice_missed"] = dy or not any(
            inv is not None and all(is_dyadic(v) for r in inv for v in r)
            for inv in (exact_inverse([U[i] for i in rows]) for rows in itertools.combinations(range(m), d)))
        holds = alg and ok_up and len(con["W_up"]) == m + d and data["construction"]["no_dyadic_choice_missed"]
    if nondeg and m <= MAX_LOWER_M:
        lb = lower_bound_table(U, W, M)
        up2, down2 = build_block(U, W, lb["argmin_S"], lb["argmin_T"], M)
        ok_min, rows_min = verify_equal(U, W, up2, down2, pts, acts=("relu",), M=M)
        # The conclusion decided independently: relu-complete's m* from the canonical form
        # (signs and ranks of N_s) must be m + C, and for d <= 2 the piecewise-linear referee
        # must find the width m + C block equal to F as a function (not only at points).
        lb["relu_complete_m_star"] = _m_star(U, W, M)
        ok_min = ok_min and lb["relu_complete_m_star"] == m + lb["C"]
        if d <= 2:
            lb["min_block_equal_by_referee"] = _referee_equal(U, W, M, up2, down2)
            ok_min = ok_min and lb["min_block_equal_by_referee"]
        lb.update({"min_width": m + lb["C"], "min_block": {"W_up": smat(up2), "W_down": smat(down2),
                                                          "points": rows_min}})
        # C <= 2d - rank W_up always (the width m + 2d - r construction), and with every
        # M + W_S U_S invertible the proof gives C = 2d - rank W_up (= d at full rank).
        bound_ok = lb["C"] <= 2 * d - rk and len(up2) == m + lb["C"] and ok_min
        if lb["all_invertible"]:
            bound_ok = bound_ok and lb["C"] == 2 * d - rk
        lb["minimal_width_is_m_plus_d"] = lb["C"] == d
        # part (A) holds for EVERY (S, T), not only the disjoint optimum: the block for an
        # overlapping pair (S = T = {0}, and S = all units, T = {m - 1}) has width
        # m + |T| + 2 rank(A P_T) and equals F (points; the referee for d <= 2)
        lb["overlapping"] = [overlap_block_check(U, W, M, S, T, pts) for S, T in overlap_pairs(m)]
        bound_ok = bound_ok and all(r["ok"] for r in lb["overlapping"])
        # negative control: the minimal block plus one kink must be told apart from F
        lb["control_told_apart"] = controls_told_apart(U, W, M, up2, down2)
        bound_ok = bound_ok and lb["control_told_apart"]
        data["lower_bound"] = lb
        holds = holds and bound_ok
    if con is not None:
        data["construction"]["control_told_apart"] = controls_told_apart(U, W, M, con["W_up"], con["W_down"])
        holds = holds and data["construction"]["control_told_apart"]
    data["purpose"] = inst.purpose
    data["purpose_met"] = _purpose_met(inst.purpose, data.get("lower_bound"), data.get("construction"), (U, W, M))
    holds = holds and data["purpose_met"]
    return Certificate(CLAIM, holds, exact=holds,
                       method="exact rationals (relu, algebra, lower bound); arb balls as evidence",
                       data=data, reason="" if holds else "construction or lower bound failed")


def recheck(cert: dict[str, Any]) -> bool:
    """Re-verify an absorption-width certificate from its data alone."""
    try:
        data = cert["data"]
        U, W, M = qmat(data["W_up"]), qmat(data["W_down"]), qmat(data["M"])
        d, m = len(W), len(U)
        con = data["construction"]
        rk = exact_rank(U)
        if con is None:
            # no m + d construction: only for rank W_up < d, and then the lower bound must be there
            if rk == d or "lower_bound" not in data:
                return False
            pts = [qvec(r["x"]) for r in data["lower_bound"]["min_block"]["points"]["relu"]]
        else:
            up, down, b = qmat(con["W_up"]), qmat(con["W_down"]), qmat(con["b"])
            rows = con["rows"]
            if len(up) != m + d or len(down) != d or any(len(r) != m + d for r in down):
                return False
            if matmul(transpose(b), [U[i] for i in rows]) != [[-v for v in r] for r in M]:
                return False
            pts = [qvec(r["x"]) for r in con["points"]["relu"]]
            if not pts or not verify_equal(U, W, up, down, pts, M=M)[0]:
                return False
            # the construction as a function, exactly (the points may all lie where a unit is off)
            if canonical_form(U, W, M) != canonical_form(up, down):
                return False
            dy = _all_dyadic(up, down)
            if not dy and any(inv is not None and all(is_dyadic(v) for r in inv for v in r)
                              for inv in (exact_inverse([U[i] for i in rows_])
                                          for rows_ in itertools.combinations(range(m), d))):
                return False
        if "lower_bound" in data:
            lb = data["lower_bound"]
            fresh = lower_bound_table(U, W, M)
            if _m_star(U, W, M) != m + fresh["C"]:
                return False
            if fresh["C"] != lb["C"] or fresh["dets"] != lb["dets"] or fresh["C"] > 2 * d - rk:
                return False
            if fresh["all_invertible"] and fresh["C"] != 2 * d - rk:
                return False
            up2, down2 = qmat(lb["min_block"]["W_up"]), qmat(lb["min_block"]["W_down"])
            if len(up2) != m + fresh["C"] or lb.get("min_width") != m + fresh["C"]:
                return False
            # the referee is called for exactly when d <= 2, and its recorded verdict must be its own
            referee = _referee_equal(U, W, M, up2, down2) if d <= 2 else None
            if referee is False or lb.get("min_block_equal_by_referee") != referee:
                return False
            # the minimal block as a function, exactly and for every d (Lemma R's canonical form):
            # the points alone miss a unit that is off at all of them
            if canonical_form(U, W, M) != canonical_form(up2, down2):
                return False
            again = [overlap_block_check(U, W, M, S, T, pts) for S, T in overlap_pairs(m)]
            if again != lb.get("overlapping") or not all(r["ok"] for r in again):
                return False
            return verify_equal(U, W, up2, down2, pts, acts=("relu",), M=M)[0]
        return True
    except (KeyError, TypeError, ValueError, ZeroDivisionError, IndexError):
        return False
