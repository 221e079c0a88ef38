"""The exact minimal width of a relu block equal to x -> M x + B(x) (claim relu-complete).

From the canonical form (oracle/algebra/canonical.py): F(x) = (M + L) x + const + sum_H alpha_H |h_H(x)|
with h_H(x) = u_H . x + b_H over the affine kink hyperplanes H of B.  Let script-H be the classes
with alpha_H != 0.  For signs s in {+-1}^script-H put

    N_s = M + L - sum_{H in script-H} s_H alpha_H u_H^T,

and for T a subset of script-H let K_T be a basis of {x : u_H . x = 0 for H in T}.  Then a relu
block of width m' (with biases when F has them) equals F iff m' >= m* with

    m* = |script-H| + min_{s, T} ( |T| + 2 rank(N_s K_T) )

(proofs/informal/relu-complete.md).  rank(N_s K_T) is rank(N_s P_T) for the orthogonal projector
P_T onto the same subspace.  Only T whose directions u_H are linearly independent need to be
tried (dropping a dependent direction keeps the span and lowers |T|), so |T| <= d.

Everything is exact (python-flint fmpq_mat).  ``minimal_width`` enumerates s and T when
|script-H| is small and returns exact lower and upper bounds otherwise; ``build_construction`` constructs
a block of width exactly |script-H| + |T| + 2 rank(N_s K_T) for given (s, T).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional, Sequence

from oracle.algebra.canonical import ReluForm, relu_form_exact
from oracle.core.linalg import nullspace, primitive
from oracle.core.rational import fmpq, fmpq_mat, to_fmpq_mat, to_fractions

MAX_EXACT_CLASSES = 14  # 2^|script-H| sign vectors are enumerated below this
_COMPLEMENT_WORK = 20_000_000  # rk^3 * bits per try, summed over the tries of _complement, at most
# the largest entry allowed in the oblique projector B (U_T B)^-1 U_T of a chosen complement; the
# orthogonal projector's entries are at most 1, and a complement nearly inside ker U_T (an extended
# Euclid vector of a float32 row's huge primitive integers) gives entries near 1e15 and a construction
# whose weights cancel to that size
OBLIQUE_MAX = 64


def _outer(v: Sequence[Fraction], u: Sequence[Fraction]) -> fmpq_mat:
    # the product of a column and a row in FLINT: d + d conversions instead of d^2 Fraction products
    return to_fmpq_mat([[a] for a in v], 1) * to_fmpq_mat([list(u)], len(u))


def _rank(a: fmpq_mat) -> int:
    return 0 if a.nrows() == 0 or a.ncols() == 0 else a.rank()


def kernel_basis(rows: list[list[Fraction]], d: int) -> fmpq_mat:
    """A d x k matrix whose columns form a basis of {x : r . x = 0 for all given rows}."""
    if not rows:
        return fmpq_mat([[fmpq(int(i == j)) for j in range(d)] for i in range(d)]) if d else fmpq_mat(0, 0)
    return nullspace(to_fmpq_mat(rows, d), d)


def n_matrix(form: ReluForm, s: Sequence[int]) -> fmpq_mat:
    """N_s = M + L - sum_H s_H alpha_H u_H^T over the active classes (s in their order)."""
    N = form.linear()
    for sign, c in zip(s, form.active):
        if sign > 0:
            N = N - _outer(c.alpha, c.u)
        else:
            N = N + _outer(c.alpha, c.u)
    return N


def independent_subsets(vectors: list[list[Fraction]], d: int, limit: int) -> list[tuple[int, ...]]:
    """All index sets T (|T| <= min(d, limit)) whose vectors are linearly independent."""
    out: list[tuple[int, ...]] = [()]
    frontier: list[tuple[int, ...]] = [()]
    for size in range(1, min(d, limit) + 1):
        nxt = []
        for T in frontier:
            start = T[-1] + 1 if T else 0
            for j in range(start, len(vectors)):
                cand = T + (j,)
                if _rank(to_fmpq_mat([vectors[i] for i in cand], d)) == len(cand):
                    nxt.append(cand)
        out.extend(nxt)
        frontier = nxt
    return out


@dataclass
class WidthResult:
    """The minimal width m* (exact when lower == upper) with an optimal (s, T) when known."""

    lower: int
    upper: int
    s: Optional[list[int]] = None  # signs of the active classes at the optimum (or best known)
    T: Optional[list[int]] = None  # positions in form.active
    cost: Optional[int] = None  # |T| + 2 rank(N_s K_T) at (s, T)
    method: str = ""
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def exact(self) -> bool:
        """True when the minimal width is known exactly."""
        return self.lower == self.upper

    def as_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"m_star": self.lower if self.exact else None, "lower": self.lower, "upper": self.upper,
                "s": self.s, "T": self.T, "cost": self.cost, "method": self.method, **self.detail}


def cost(form: ReluForm, s: Sequence[int], T: Sequence[int]) -> int:
    """|T| + 2 rank(N_s K_T) for the given signs and class positions."""
    act = form.active
    K = kernel_basis([act[i].u for i in T], form.d)
    N = n_matrix(form, s)
    return len(T) + 2 * (_rank(N * K) if K.ncols() else 0)


def minimal_width(form: ReluForm, max_classes: int = MAX_EXACT_CLASSES) -> WidthResult:
    """m* = |script-H| + min over s, T of |T| + 2 rank(N_s K_T), exactly when |script-H| <= max_classes."""
    act = form.active
    h = len(act)
    d = form.d
    dirs = [c.u for c in act]
    r = _rank(to_fmpq_mat(dirs, d)) if h else 0
    # an always valid upper bound: s = +1, T = a basis of the span of the directions
    basis: list[int] = []
    for i in range(h):
        if _rank(to_fmpq_mat([dirs[j] for j in basis + [i]], d)) == len(basis) + 1:
            basis.append(i)
    s_plus = [1] * h
    best_cost = cost(form, s_plus, basis)
    best = (s_plus, basis)
    c0 = 2 * _rank(n_matrix(form, s_plus))
    if c0 < best_cost:
        best_cost, best = c0, (s_plus, [])
    if h > max_classes:
        return WidthResult(h, h + best_cost, best[0], best[1], best_cost,
                           f"bounds only: {h} active classes exceed the exact enumeration limit "
                           f"{max_classes}", {"active_classes": h, "rank_directions": r})
    Ts = independent_subsets(dirs, d, d)
    kernels = {T: kernel_basis([dirs[i] for i in T], d) for T in Ts}
    # the sign of a class in T does not matter (its linear share is free): fix it to +1
    for signs in itertools.product((1, -1), repeat=h):
        N = n_matrix(form, signs)
        rk = _rank(N)
        if 2 * rk < best_cost:
            best_cost, best = 2 * rk, (list(signs), [])
        for T in Ts:
            if not T or len(T) >= best_cost:
                continue
            if any(signs[i] < 0 for i in T):
                continue
            if len(T) + 2 * max(0, rk - len(T)) >= best_cost:
                continue
            K = kernels[T]
            c = len(T) + 2 * (_rank(N * K) if K.ncols() else 0)
            if c < best_cost:
                best_cost, best = c, (list(signs), list(T))
        if best_cost == 0:
            break
    return WidthResult(h + best_cost, h + best_cost, best[0], best[1], best_cost,
                       f"exact: all 2^{h} sign vectors and {len(Ts)} independent class sets",
                       {"active_classes": h, "rank_directions": r})


@dataclass
class Construction:
    """A plain relu block (exact rationals) built from (s, T); width |script-H| + cost."""

    W_up: list[list[Fraction]]
    b_up: list[Fraction]
    W_down: list[list[Fraction]]  # d x width
    b_down: list[Fraction]

    @property
    def width(self) -> int:
        """Number of units."""
        return len(self.W_up)

    def as_json(self) -> dict[str, Any]:
        """Exact strings."""
        s = lambda a: [str(v) for v in a]  # noqa: E731
        return {"W_up": [s(r) for r in self.W_up], "b_up": s(self.b_up),
                "W_down": [s(r) for r in self.W_down], "b_down": s(self.b_down), "width": self.width}


def _is_dyadic(v: Any) -> bool:
    q = int(v.q)
    return q & (q - 1) == 0


def bezout_vector(row: list[Fraction]) -> list[int]:
    """Integers b with p . b = 1 for the primitive integer vector p proportional to row."""
    p, _ = primitive(row)
    # extended Euclid along the entries: g = sum p_j b_j throughout
    b = [0] * len(p)
    g = 0
    for j, x in enumerate(p):
        if x == 0:
            continue
        if g == 0:
            g, b[j] = abs(x), (1 if x > 0 else -1)
            continue
        # solve g * s + x * t = gcd(g, x)
        old_r, r, old_s, s_, old_t, t = g, x, 1, 0, 0, 1
        while r:
            q = old_r // r
            old_r, r = r, old_r - q * r
            old_s, s_ = s_, old_s - q * s_
            old_t, t = t, old_t - q * t
        if old_r < 0:
            old_r, old_s, old_t = -old_r, -old_s, -old_t
        b = [v * old_s for v in b]
        b[j] = old_t
        g = old_r
    return b


def _complement(UT: fmpq_mat, rows: list[list[Fraction]], d: int, tries: int = 256) -> fmpq_mat:
    """A complement B of ker U_T (U_T B invertible) for the construction: ``_dyadic_complement``'s
    choice when its oblique projector B (U_T B)^-1 U_T has no entry above OBLIQUE_MAX in absolute
    value, else the orthogonal one, B = U_T^T, whose projector has entries of at most 1.  Any
    complement gives the same rank of R (the width); the choice only decides how large the
    construction's weights are against the block's, and so how much float rounding costs."""
    B = _dyadic_complement(UT, rows, d, tries)
    P = B * (UT * B).inv() * UT
    if all(abs(v) <= OBLIQUE_MAX for v in P.entries()):
        return B
    return UT.transpose()


def _dyadic_complement(UT: fmpq_mat, rows: list[list[Fraction]], d: int, tries: int = 256) -> fmpq_mat:
    """A d x |T| matrix B with U_T B invertible, chosen so that B (U_T B)^-1 U_T is dyadic when
    that is easy: for one class an integer b with p . b = 1 (p the primitive integer direction,
    extended Euclid), for several classes coordinate columns J tried in turn; the rref pivot
    columns otherwise.  R = N_s - N_s B (U_T B)^-1 U_T then has rank(N_s P_T) and, with dyadic
    N_s, float64-friendly entries."""
    k = len(rows)
    if k == 1:
        b = bezout_vector(rows[0])
        return fmpq_mat([[fmpq(v)] for v in b])
    Rr, rk = UT.rref()  # rk = |T|: the classes in T have independent directions
    piv = [next(j for j in range(d) if Rr[i, j] != 0) for i in range(rk)]
    # each try inverts an rk x rk minor: about rk^3 operations on numbers of `bits` bits; the tries
    # stop at a fixed work budget (deterministic, so a re-check derives the same block), which keeps
    # a block of 40 classes with entries near 1e300 from spending minutes on a nicer-looking basis
    bits = max((int(v.p).bit_length() + int(v.q).bit_length() for v in UT.entries()), default=1)
    tries = min(tries, _COMPLEMENT_WORK // max(1, rk ** 3 * bits))
    if tries and not all(_is_dyadic(v) for v in Rr.entries()):
        for J in itertools.islice(itertools.combinations(range(d), rk), tries):
            sub = fmpq_mat([[UT[i, j] for j in J] for i in range(rk)])
            if sub.det() != 0 and all(_is_dyadic(v) for v in (sub.inv() * UT).entries()):
                piv = list(J)
                break
    return fmpq_mat([[fmpq(int(j == c)) for c in piv] for j in range(d)])


def build_construction(form: ReluForm, s: Sequence[int], T: Sequence[int]) -> Construction:
    """The block of the proof of relu-complete (upper bound) for signs s and class positions T.

    One unit s_H (u_H, b_H) with output 2 alpha_H per class outside T; two units +-(u_H, b_H) with
    outputs alpha_H +- beta_H per class in T, where beta_H = s_H alpha_H + y_H; one pair +-(l_q, 0)
    with outputs +-v_q per term of a rank factorisation of R = N_s - sum_{H in T} y_H u_H^T;
    b_down matches the constant.  Y = (y_H) is N_s B (U_T B)^-1 for a complement B of ker U_T
    (an oblique instead of the orthogonal projection): R vanishes on the columns of B and agrees
    with N_s on ker U_T, so rank R = rank(N_s P_T) as the width needs; B is chosen (_complement)
    so that the weights stay float64 numbers far more often than with the Gram inverse of the
    orthogonal projection.
    """
    d = form.d
    act = form.active
    T = list(T)
    N = n_matrix(form, s)
    ups: list[list[Fraction]] = []
    bs: list[Fraction] = []
    cols: list[list[Fraction]] = []
    y: dict[int, list[Fraction]] = {}
    if T:
        UT = to_fmpq_mat([act[i].u for i in T], d)
        B = _complement(UT, [act[i].u for i in T], d)
        Y = N * B * (UT * B).inv()  # d x |T|: R = N - Y U_T vanishes on the columns of B
        Yq = to_fractions(Y)
        for k, i in enumerate(T):
            y[i] = [Yq[a][k] for a in range(d)]
        R = N - Y * UT
    else:
        R = N
    for i, c in enumerate(act):
        if i in y:
            beta = [s[i] * a + b for a, b in zip(c.alpha, y[i])]
            ups += [list(c.u), [-v for v in c.u]]
            bs += [c.b, -c.b]
            cols += [[a + b for a, b in zip(c.alpha, beta)], [a - b for a, b in zip(c.alpha, beta)]]
        else:
            ups.append([s[i] * v for v in c.u])
            bs.append(s[i] * c.b)
            cols.append([2 * a for a in c.alpha])
    # rank factorisation R = C F: F the nonzero rows of rref(R), C the pivot columns of R
    if R.nrows() and R.ncols():
        Rr, rank = R.rref()
        Rq = to_fractions(R)
        Fq = to_fractions(Rr)[:rank]
        for q in range(rank):
            pc = next(j for j in range(d) if Fq[q][j] != 0)
            v = [Rq[a][pc] for a in range(d)]
            ups += [list(Fq[q]), [-x for x in Fq[q]]]
            bs += [Fraction(0), Fraction(0)]
            cols += [v, [-x for x in v]]
    # constant: the block's canonical constant is b_down + sum_j b_j w_j / 2
    b_down = list(form.const)
    for bj, col in zip(bs, cols):
        if bj:
            for a in range(d):
                b_down[a] -= bj * col[a] / 2
    W_down = [[cols[j][a] for j in range(len(cols))] for a in range(d)]
    return Construction(ups, bs, W_down, b_down)


def construction_form(con: Construction, d: int) -> ReluForm:
    """The canonical form of a constructed plain block (to compare with the target exactly)."""
    return relu_form_exact(con.W_up, con.W_down if con.W_up else [[] for _ in range(d)], None,
                           con.b_up, con.b_down)
