"""Canonical forms of ungated blocks: the data that decides equality of two blocks as functions.

relu.  Every unit with u_i != 0 kinks on the affine hyperplane {u_i . x + c_i = 0} (c_i = b_up[i],
0 without biases).  Units whose rows (u_i, c_i) are proportional share that hyperplane; they form
one *class* H, whatever their orientation or scale.  We normalise the class to (u_H, b_H) with the
first nonzero entry of u_H equal to 1, so (u_i, c_i) = lam_i (u_H, b_H) with lam_i = u_i[f], the
first nonzero entry of u_i (a float64, hence exact).  From relu(z) = z/2 + |z|/2,

    M x + B(x) = (M + L) x + const + sum_H alpha_H |u_H . x + b_H|,
    L = W_down W_up / 2,   alpha_H = sum_{i in H} |lam_i| w_i / 2,
    const = b_down + sum_{u_i != 0} c_i w_i / 2 + sum_{u_i = 0} relu(c_i) w_i.

The functions |u_H . x + b_H| of distinct affine hyperplanes are linearly independent modulo
affine maps (proofs/informal/relu-complete.md, Lemma 1), so two relu blocks are the same function
iff every hyperplane carries the same alpha_H in both and the affine parts agree.

gelu, gelu_tanh, silu.  Here the scale of a row matters, only its sign does not:
s(-z) = s(z) - z.  Units are grouped by +-(u_i, c_i) (the sign chosen so that the first nonzero
entry of u_i is positive); a unit of the opposite orientation contributes w_i s(h_H) plus the
affine map w_i (u_i . x + c_i).  So

    M x + B(x) = A(x) + sum_H gamma_H s(u_H . x + b_H),   gamma_H = sum_{i in H} w_i,
    A(x) = M x + b_down + sum_{i flipped} w_i (u_i . x + c_i) + sum_{u_i = 0} w_i s(c_i).

Without biases, Lemma T of proofs/informal/relu-limit.md (the tails of gelu, gelu_tanh and silu
decay at different rates along a generic ray) makes the s(u_H . x) of distinct classes
independent modulo affine maps; with biases the same lemma covers distinct +-(u, c) classes
(proved there as well).  Units with u_i = 0 give constants w_i s(c_i); those are compared by
grouping |c_i| (s(-c) = s(c) - c) and, when their coefficients differ, with arb balls.

Everything here is exact: float64 weights are dyadic rationals.  Grouping is O(m d): rows are
normalised in float64 and hashed, equal keys are then *settled exactly* (an exact test of
proportionality by products of doubles), and sums of products that decide equality go through
the exact multi-modular check ``search.verify_index_set`` or through Fractions for small classes.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional, Sequence

import numpy as np

from oracle.core.rational import (
    fmpq_mat, mantissas, odd_mantissas, qmat, qvec, to_fmpq_mat, to_fraction, to_fractions
)
from oracle.core.progress import Progress, quiet
from oracle.core.blocks import Block
from oracle.algebra import search
from oracle.algebra.exact import derived_property
from oracle.core import activations, arith





# ---------------------------------------------------------------------------- exact float tools

def _products_equal_mantissa(a: np.ndarray, b: np.ndarray, c: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Exact a*b == c*e for any finite doubles (slow path: odd mantissas and exponents)."""
    ma, ea = odd_mantissas(a)
    mb, eb = odd_mantissas(b)
    mc, ec = odd_mantissas(c)
    me, ee = odd_mantissas(e)
    z1 = (ma == 0) | (mb == 0)
    z2 = (mc == 0) | (me == 0)
    sign_ok = np.sign(ma) * np.sign(mb) == np.sign(mc) * np.sign(me)
    exp_ok = ea + eb == ec + ee
    ua, ub, uc, ue = (np.abs(v).astype(np.uint64) for v in (ma, mb, mc, me))
    with np.errstate(over="ignore"):
        wrap_ok = ua * ub == uc * ue  # modulo 2^64
    flt_ok = np.abs(ma).astype(np.float64) * np.abs(mb).astype(np.float64) == \
        np.abs(mc).astype(np.float64) * np.abs(me).astype(np.float64)
    return np.where(z1 | z2, z1 & z2, sign_ok & exp_ok & wrap_ok & flt_ok)


_SPLIT = 134217729.0  # 2^27 + 1 (Veltkamp)
_LO, _HI = 2.0 ** -450, 2.0 ** 450


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dekker: p = fl(a b) and the exact error a b - p (valid without over/underflow)."""
    p = a * b
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, err


def _safe(x: np.ndarray) -> np.ndarray:
    ax = np.abs(x)
    return (ax == 0) | ((ax >= _LO) & (ax <= _HI))


def products_equal(a: np.ndarray, b: np.ndarray, c: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Elementwise exact test of a*b == c*e for float64 arrays (broadcastable), without rounding.

    Fast path: Dekker's error-free product p + err = a b (exact when no factor is huge or tiny;
    the pair (p, err) is unique, so equal products give equal pairs).  Entries with factors
    outside [2^-450, 2^450] use the slow path: each product of doubles is (odd integer) 2^k with a
    unique odd integer below 2^106, and two such integers are equal iff they agree modulo 2^64
    and their correctly rounded float64 values agree (which bounds the gap by 2^54 < 2^64).
    """
    a, b, c, e = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (a, b, c, e)))
    with np.errstate(all="ignore"):
        p1, e1 = _two_product(a, b)
        p2, e2 = _two_product(c, e)
        out = (p1 == p2) & (e1 == e2)
    safe = _safe(a) & _safe(b) & _safe(c) & _safe(e)
    if not safe.all():
        bad = ~safe
        out = out.copy()
        out[bad] = _products_equal_mantissa(a[bad], b[bad], c[bad], e[bad])
    return out


def exact_ratio(num: np.ndarray, den: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """q = fl(num / den) and a mask of the entries where q * den == num exactly (den != 0)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    with np.errstate(all="ignore"):
        q = num / den
    ok = products_equal(q, den, num, np.ones_like(num)) & np.isfinite(q)
    return q, ok


def scaled_equal(mu: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Elementwise exact test of mu * x == y (mu broadcastable): one rounding-free product each.

    When mu is a power of two and no entry leaves [2^-450, 2^450] the float product is exact and
    a plain comparison decides; otherwise Dekker's error-free product does.
    """
    mu, x, y = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (mu, x, y)))
    fr, _ = np.frexp(mu)
    pow2 = np.abs(fr) == 0.5
    safe = _safe(mu) & _safe(x) & _safe(y)
    with np.errstate(all="ignore"):
        if bool((pow2 & safe).all()):
            return mu * x == y
        return products_equal(mu, x, y, np.ones_like(y))


def exact_weighted_sums(W: np.ndarray, groups: Sequence[Sequence[int]],
                        coef: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every group g, sum_{i in g} coef[i] * W[:, i] exactly, as N[:, g] * 2^E[g].

    N is a (d x groups) object array of Python integers and E an int64 array: each product of two
    doubles is an integer times a power of two, so shifting every term of a group to the group's
    smallest exponent makes the sum an exact integer sum.  Vectorised (numpy object arrays), about
    a microsecond per term, instead of Fractions."""
    d = W.shape[0]
    if not groups:
        return np.zeros((d, 0), dtype=object), np.zeros(0, dtype=np.int64)
    units = np.concatenate([np.asarray(g, dtype=np.int64) for g in groups])
    sizes = np.array([len(g) for g in groups], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    gid = np.repeat(np.arange(len(groups)), sizes)
    nw, ew = mantissas(W[:, units])
    nc, ec = mantissas(np.asarray(coef, dtype=np.float64)[units])
    nz = (nw != 0) & (nc[None, :] != 0)
    pe = ew + ec[None, :]
    big = np.iinfo(np.int64).max
    colmin = np.where(nz, pe, big).min(axis=0) if d else np.full(units.size, big)
    E = np.minimum.reduceat(colmin, starts)
    E = np.where(E == big, 0, E)
    sh = np.where(nz, pe - E[gid][None, :], 0)
    terms = np.where(nz, nw, 0).astype(object) * nc.astype(object)[None, :]
    terms = terms * np.power(2, sh.astype(object))
    return np.add.reduceat(terms, starts, axis=1), E


def dyadic_floats(N: np.ndarray, E: int) -> Optional[np.ndarray]:
    """The doubles equal to N * 2^E (N Python integers), or None when some value is not a double."""
    out = np.empty(len(N), dtype=np.float64)
    E = int(E)
    for k, n in enumerate(N):
        n = int(n)
        if n == 0:
            out[k] = 0.0
            continue
        bl = n.bit_length()
        # plain case: n has at most 53 significant bits and n 2^E is a normal double
        if bl <= 1024 and int(float(n)) == n and -1021 <= E + bl <= 1024:
            out[k] = math.ldexp(float(n), E)
            continue
        q = Fraction(n) * Fraction(2) ** E  # rare: decide exactly
        try:
            g = float(q)
        except OverflowError:
            return None
        if Fraction(g) != q:
            return None
        out[k] = g
    return out


# ---------------------------------------------------------------------------- grouping rows

@dataclass
class Grouping:
    """Units grouped into exact classes (relu: proportional rows; odd family: rows up to sign)."""

    class_of: np.ndarray  # class index per unit, -1 for units with u_i = 0
    lead: np.ndarray  # index f of the first nonzero entry of u_i, -1 for zero rows
    reps: list[int]  # one representative unit per class
    members: list[list[int]]  # units of each class

    @property
    def n_classes(self) -> int:
        """Number of classes."""
        return len(self.reps)


def group_rows(rows: np.ndarray, mode: str) -> Grouping:
    """Group the rows (u_i, c_i) of an n x (d+1) array into exact classes.

    mode 'scale': (u_i, c_i) proportional with any nonzero factor (relu hyperplanes);
    mode 'sign':  (u_i, c_i) equal up to sign (gelu, gelu_tanh, silu).
    Only the first d columns decide whether a row is a zero row (u_i = 0).
    """
    rows = np.asarray(rows, dtype=np.float64)
    n, d1 = rows.shape
    d = d1 - 1
    nz = rows[:, :d] != 0
    live = nz.any(axis=1)
    lead = np.where(live, np.argmax(nz, axis=1), -1)
    class_of = np.full(n, -1, dtype=np.int64)
    idx = np.flatnonzero(live)
    if idx.size == 0:
        return Grouping(class_of, lead, [], [])
    pivots = rows[idx, lead[idx]]
    with np.errstate(all="ignore"):
        if mode == "scale":
            # If two rows are proportional, each normalised entry is the same real number and
            # division rounds it identically: equal rows give bitwise equal keys. Keys may also
            # collide for rows that are not proportional; those are settled exactly below.
            keys = rows[idx] / pivots[:, None] + 0.0
        elif mode == "sign":
            keys = rows[idx] * np.sign(pivots)[:, None] + 0.0  # exact: negation only
        else:
            raise ValueError(f"unknown grouping mode {mode!r}")
    groups: dict[bytes, list[int]] = {}
    for i, key in zip(idx.tolist(), keys):
        groups.setdefault(key.tobytes(), []).append(i)
    reps: list[int] = []
    members: list[list[int]] = []
    if mode == "sign":
        for g in groups.values():
            class_of[g] = len(reps)
            reps.append(g[0])
            members.append(g)
        return Grouping(class_of, lead, reps, members)
    # settle the float keys exactly: r_j ~ r_rep iff r_j[k] r_rep[f] == r_rep[k] r_j[f] for all k
    multi = [g for g in groups.values() if len(g) > 1]
    bad: set[int] = set()
    if multi:
        js = np.array([j for g in multi for j in g[1:]], dtype=np.int64)
        rs = np.array([g[0] for g in multi for _ in g[1:]], dtype=np.int64)
        same_lead = lead[js] == lead[rs]
        fj = rows[js, lead[js]]
        fr = rows[rs, lead[rs]]
        # r_j ~ r_rep iff r_j = lam r_rep with lam = r_j[f] / r_rep[f]; when lam is an exact
        # double this is one rounding-free product per entry, otherwise cross-multiply
        lam, lam_ok = exact_ratio(fj, fr)
        ok = np.zeros(js.size, dtype=bool)
        a = np.flatnonzero(lam_ok)
        if a.size:
            ok[a] = scaled_equal(lam[a][:, None], rows[rs[a]], rows[js[a]]).all(axis=1)
        b = np.flatnonzero(~lam_ok)
        if b.size:
            ok[b] = products_equal(rows[js[b]], fr[b][:, None], rows[rs[b]], fj[b][:, None]).all(axis=1)
        ok &= same_lead
        bad = set(js[~ok].tolist())
    for g in groups.values():
        good = [j for j in g if j not in bad]
        class_of[good] = len(reps)
        reps.append(good[0])
        members.append(good)
        rest = [j for j in g if j in bad]
        # float collision: regroup these rows by their exact normalised rows (rare)
        sub: dict[tuple[Fraction, ...], list[int]] = {}
        for j in rest:
            f = int(lead[j])
            p = to_fraction(rows[j, f])
            sub.setdefault(tuple(to_fraction(v) / p for v in rows[j]), []).append(j)
        for sg in sub.values():
            # a regrouped row may still be proportional to the good part's representative
            r0 = good[0]
            if _proportional_exact(rows[sg[0]], rows[r0]):
                class_of[sg] = class_of[r0]
                members[int(class_of[r0])].extend(sg)
            else:
                class_of[sg] = len(reps)
                reps.append(sg[0])
                members.append(sg)
    return Grouping(class_of, lead, reps, members)


def _proportional_exact(a: np.ndarray, b: np.ndarray) -> bool:
    fa = [to_fraction(v) for v in a]
    fb = [to_fraction(v) for v in b]
    ia = next((k for k, v in enumerate(fa[:-1]) if v != 0), None)
    ib = next((k for k, v in enumerate(fb[:-1]) if v != 0), None)
    if ia is None or ia != ib:
        return False
    return all(x * fb[ia] == y * fa[ia] for x, y in zip(fa, fb))


def rows_with_bias(block: Block) -> np.ndarray:
    """The m x (d+1) array [W_up | b_up]."""
    b = np.zeros(block.m) if block.b_up is None else block.b_up
    return np.hstack([block.W_up, b[:, None]])


# ---------------------------------------------------------------------------- relu: exact form

@dataclass
class ReluClass:
    """One affine kink hyperplane {u . x + b = 0} of a relu block with the units on it."""

    u: list[Fraction]  # normalised: first nonzero entry 1
    b: Fraction
    units: list[int]
    lam: list[Fraction]  # (u_i, c_i) = lam_i (u, b)
    alpha: list[Fraction]  # sum |lam_i| w_i / 2: the coefficient of |u . x + b|
    beta: list[Fraction]  # sum lam_i w_i / 2: this class's share of L (beta u^T) and of const

    @property
    def active(self) -> bool:
        """alpha != 0: the hyperplane is a kink of the function."""
        return any(v != 0 for v in self.alpha)

    def as_json(self) -> dict[str, Any]:
        """Exact strings."""
        s = lambda v: str(v)  # noqa: E731 - Fraction prints as p/q
        return {"u": [s(v) for v in self.u], "b": s(self.b), "units": list(self.units),
                "lambda": [s(v) for v in self.lam], "alpha": [s(v) for v in self.alpha]}


@dataclass
class ReluForm:
    """The canonical form of x -> M x + W_down relu(W_up x + b_up) + b_down (M = 0 when plain)."""

    d: int
    m: int
    classes: list[ReluClass]
    zero_units: list[int]  # units with u_i = 0 (constants relu(c_i) w_i)
    M: fmpq_mat
    L: fmpq_mat  # W_down W_up / 2
    const: list[Fraction]
    biased: bool  # some c_i != 0 or b_down != 0

    @property
    def active(self) -> list[ReluClass]:
        """The classes with alpha_H != 0 (the set script-H of relu-complete)."""
        return [c for c in self.classes if c.active]

    def linear(self) -> fmpq_mat:
        """M + L: the linear part of the function after removing sum alpha_H |h_H|."""
        return self.M + self.L

    def as_json(self) -> dict[str, Any]:
        """Exact strings."""
        return {"d": self.d, "m": self.m, "classes": [c.as_json() for c in self.classes],
                "active": [k for k, c in enumerate(self.classes) if c.active],
                "zero_units": self.zero_units,
                "M_plus_L": [[str(v) for v in r] for r in to_fractions(self.linear())],
                "const": [str(v) for v in self.const], "biased": self.biased}


def relu_form_exact(W_up: Sequence[Sequence[Fraction]], W_down: Sequence[Sequence[Fraction]],
                    M: Optional[Sequence[Sequence[Fraction]]] = None,
                    b_up: Optional[Sequence[Fraction]] = None,
                    b_down: Optional[Sequence[Fraction]] = None) -> ReluForm:
    """Canonical form from exact rational weights (lists of Fractions); M None means no skip."""
    m = len(W_up)
    d = len(W_down)
    U = [[Fraction(v) for v in r] for r in W_up]
    W = [[Fraction(v) for v in r] for r in W_down]
    c = [Fraction(v) for v in b_up] if b_up is not None else [Fraction(0)] * m
    bd = [Fraction(v) for v in b_down] if b_down is not None else [Fraction(0)] * d
    keyed: dict[tuple[Fraction, ...], list[int]] = {}
    lam: dict[int, Fraction] = {}
    zero_units = []
    for i in range(m):
        f = next((k for k, v in enumerate(U[i]) if v != 0), None)
        if f is None:
            zero_units.append(i)
            continue
        lam[i] = U[i][f]
        keyed.setdefault(tuple(v / U[i][f] for v in U[i] + [c[i]]), []).append(i)
    classes = []
    for key, units in keyed.items():
        alpha = [sum((abs(lam[i]) * W[a][i] for i in units), Fraction(0)) / 2 for a in range(d)]
        beta = [sum((lam[i] * W[a][i] for i in units), Fraction(0)) / 2 for a in range(d)]
        classes.append(ReluClass(list(key[:d]), key[d], units, [lam[i] for i in units], alpha, beta))
    Lq = to_fmpq_mat(W, m) * to_fmpq_mat(U, d) / 2 if m else fmpq_mat(d, d)
    Mq = to_fmpq_mat(M, d) if M is not None else fmpq_mat(d, d)
    const = list(bd)
    for i in range(m):
        if i in lam:
            add = c[i] / 2
        else:
            add = max(c[i], Fraction(0))
        if add:
            for a in range(d):
                const[a] += add * W[a][i]
    biased = any(v != 0 for v in c) or any(v != 0 for v in bd)
    return ReluForm(d, m, classes, zero_units, Mq, Lq, const, biased)


def relu_form(block: Block) -> ReluForm:
    """Exact canonical form of a relu block (``Block``), including its skip when residual."""
    if block.activation != "relu":
        raise ValueError(f"relu_form needs a relu block, got {block.activation}")
    S = block.skip()
    return relu_form_exact(qmat(np.atleast_2d(block.W_up)), qmat(np.atleast_2d(block.W_down)),
                           None if S is None else qmat(np.atleast_2d(S)),
                           None if block.b_up is None else qvec(block.b_up),
                           None if block.b_down is None else qvec(block.b_down))


def relu_function_equal(a: ReluForm, b: ReluForm) -> tuple[bool, str]:
    """Exact equality of the two functions from their canonical forms, with the reason."""
    if a.d != b.d:
        return False, "different dimensions"
    key = lambda c: tuple(c.u) + (c.b,)  # noqa: E731
    alpha_a = {key(c): c.alpha for c in a.classes if c.active}
    alpha_b = {key(c): c.alpha for c in b.classes if c.active}
    for k in set(alpha_a) | set(alpha_b):
        za = alpha_a.get(k, [Fraction(0)] * a.d)
        zb = alpha_b.get(k, [Fraction(0)] * b.d)
        if za != zb:
            return False, f"hyperplane u = {[str(v) for v in k[:-1]]}, b = {k[-1]}: alpha differs"
    if a.linear() != b.linear():
        return False, "linear parts M + L differ"
    if a.const != b.const:
        return False, "constant terms differ"
    return True, "same alpha on every hyperplane, same linear part and constant"


# ---------------------------------------------------------------------------- fast comparison

@dataclass
class Comparison:
    """Outcome of comparing two ungated blocks through their canonical forms."""

    equal: Optional[bool]  # None: not decided (only for constants s(c) of the odd family)
    exact: bool
    family: str  # "relu" | "odd"
    reason: str
    detail: dict[str, Any] = field(default_factory=dict)
    # for witnesses (not serialised): class -> mask of the output coordinates whose coefficient
    # differs, the grouping of the stacked units (R first, then P) and their rows [u | c]
    masks: dict[int, np.ndarray] = field(default_factory=dict, repr=False)
    grouping: Optional[Grouping] = field(default=None, repr=False)
    rows: Optional[np.ndarray] = field(default=None, repr=False)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"equal": self.equal, "exact": self.exact, "family": self.family,
                "reason": self.reason, **self.detail}


def family_of(activation: str) -> Optional[str]:
    """'relu' for relu (its kink lemma), 'odd' for the activations of Lemma T (LEMMA_T of the
    catalog: gelu, gelu_tanh, silu), None otherwise (no canonical form decides equality)."""
    if activation == "relu":
        return "relu"
    if activation in activations.LEMMA_T:
        return "odd"
    return None


def _skip_or_zero(b: Block) -> np.ndarray:
    S = b.skip()
    return np.zeros((b.d, b.d)) if S is None else S


def compare_blocks(R: Block, P: Block, progress: Progress = quiet) -> Comparison:
    """Decide exactly whether two ungated blocks of one family (relu, or one of gelu/gelu_tanh/silu)
    are the same function, from their canonical forms.  O((m_R + m_P) d) plus one exact
    multi-modular product over the units whose classes differ in their affine share."""
    fam = family_of(R.activation)
    if fam is None or R.activation != P.activation or R.d != P.d:
        raise ValueError("compare_blocks needs two blocks with the same activation among "
                         "relu, gelu, gelu_tanh, silu and the same d")
    t0 = time.perf_counter()
    d = R.d
    rows = np.vstack([rows_with_bias(R), rows_with_bias(P)])
    W = np.hstack([R.W_down, P.W_down])  # columns: units of R, then units of P
    side = np.concatenate([np.zeros(R.m, dtype=np.int64), np.ones(P.m, dtype=np.int64)])
    progress(f"grouping {R.m} + {P.m} units into exact classes ({'hyperplanes' if fam == 'relu' else '+-(u, c)'})")
    g = group_rows(rows, "scale" if fam == "relu" else "sign")
    progress(f"{g.n_classes} classes in {time.perf_counter() - t0:.1f}s; comparing coefficients")
    lead_val = np.where(g.lead >= 0, rows[np.arange(rows.shape[0]), np.maximum(g.lead, 0)], 0.0)
    if fam == "relu":
        coef = np.abs(lead_val)  # alpha_H = sum |lam_i| w_i / 2 with lam_i = u_i[f]
    else:
        coef = np.ones_like(lead_val)  # gamma_H = sum w_i
    # orientation relative to the class representative: +1 same, -1 opposite
    rep_of = np.array([g.reps[c] if c >= 0 else -1 for c in g.class_of], dtype=np.int64)
    orient = np.where(g.class_of >= 0, np.sign(lead_val) * np.sign(
        np.where(rep_of >= 0, lead_val[np.maximum(rep_of, 0)], 1.0)), 0.0)
    # ---- even coefficients, class by class
    differing: list[tuple[int, int]] = []  # (class, output coordinate)
    masks: dict[int, np.ndarray] = {}
    flipped_classes: list[int] = []
    pair_cls, pair_r, pair_p = [], [], []
    general: list[int] = []
    for k, mem in enumerate(g.members):
        r_units = [i for i in mem if side[i] == 0]
        p_units = [i for i in mem if side[i] == 1]
        if len(r_units) == 1 and len(p_units) == 1:
            pair_cls.append(k)
            pair_r.append(r_units[0])
            pair_p.append(p_units[0])
        elif len(mem) == 1:
            i = mem[0]
            nzk = np.flatnonzero(W[:, i] != 0)
            if nzk.size:  # a lone unit with w != 0 has a nonzero coefficient on its own class
                differing.append((k, int(nzk[0])))
                masks[k] = W[:, i] != 0
        else:
            general.append(k)
    if pair_cls:
        pr, pp = np.array(pair_r), np.array(pair_p)
        # coef_r w_r == coef_p w_p: with nu = coef_r / coef_p exact, test nu w_r == w_p
        nu, nu_ok = exact_ratio(coef[pr], coef[pp])
        eq = np.empty((d, pr.size), dtype=bool)
        a_ = np.flatnonzero(nu_ok)
        if a_.size:
            eq[:, a_] = scaled_equal(nu[a_][None, :], W[:, pr[a_]], W[:, pp[a_]])
        b_ = np.flatnonzero(~nu_ok)
        if b_.size:
            eq[:, b_] = products_equal(coef[pr[b_]][None, :], W[:, pr[b_]], coef[pp[b_]][None, :], W[:, pp[b_]])
        bad_cols = np.flatnonzero(~eq.all(axis=0))
        for c in bad_cols:
            differing.append((pair_cls[int(c)], int(np.flatnonzero(~eq[:, c])[0])))
            masks[pair_cls[int(c)]] = ~eq[:, c]
        if not differing:
            # equal coefficients: the affine shares differ where the orientations differ
            # (and the coefficient is nonzero)
            opp = (orient[pr] != orient[pp]) & np.any(W[:, pr] != 0, axis=0)
            flipped_classes.extend(int(pair_cls[int(c)]) for c in np.flatnonzero(opp))
    # classes with several units on one side: exact integer sums (canonical.exact_weighted_sums)
    if general:
        sg = np.where(side == 0, 1.0, -1.0)
        mems = [g.members[k] for k in general]
        co_N, _ = exact_weighted_sums(W, mems, sg * coef)
        sh_N, _ = exact_weighted_sums(W, mems, sg * lead_val)  # lead_val = rows[i, f]
        for j, k in enumerate(general):
            nzc = [a for a in range(d) if co_N[a, j] != 0]
            if nzc:
                differing.append((k, nzc[0]))
                masks[k] = np.array([co_N[a, j] != 0 for a in range(d)])
                continue
            if differing:
                continue
            if any(v != 0 for v in sh_N[:, j]):
                flipped_classes.append(k)
    detail: dict[str, Any] = {"classes": g.n_classes, "units": [R.m, P.m]}
    if differing:
        k, a = differing[0]
        rep = g.reps[k]
        detail.update({"differing_class": _class_json(rows, rep, fam), "output_coordinate": a,
                       "differing_classes": len(differing), "seconds": round(time.perf_counter() - t0, 3)})
        what = "alpha (the coefficient of |u_H . x + b_H|)" if fam == "relu" else "gamma (the sum of w_i over the class)"
        return Comparison(False, True, fam,
                          f"the class of unit {rep if rep < R.m else rep - R.m} "
                          f"({'R' if rep < R.m else 'P'}) has a different {what} in output "
                          f"coordinate {a}: by the independence lemma the functions differ", detail,
                          masks, g, rows)
    progress(f"coefficients agree on all classes; {len(flipped_classes)} classes carry different "
             "affine shares; exact affine check")
    # ---- affine parts
    pairs = dict(zip(pair_cls, zip(pair_r, pair_p)))
    ok, how = _affine_equal(R, P, rows, W, side, g, flipped_classes, orient, fam, pairs)
    detail.update({"classes_with_different_affine_share": len(flipped_classes),
                   "affine_check": how, "seconds": round(time.perf_counter() - t0, 3)})
    if ok is None:
        return Comparison(None, False, fam, how, detail)
    if ok:
        return Comparison(True, True, fam,
                          "same coefficient on every class and the same affine part (exact): "
                          "the two blocks are the same function", detail)
    return Comparison(False, True, fam, "the coefficients agree on every class but the affine parts "
                      "differ (exact)", detail)


def _class_json(rows: np.ndarray, rep: int, fam: str) -> dict[str, Any]:
    r = rows[rep]
    f = int(np.flatnonzero(r[:-1] != 0)[0])
    if fam == "relu":
        q = [to_fraction(v) / to_fraction(r[f]) for v in r]
    else:
        q = [to_fraction(v) * (1 if r[f] > 0 else -1) for v in r]
    return {"u": [str(v) for v in q[:-1][:16]] + (["..."] if len(q) > 17 else []), "b": str(q[-1])}


def _affine_equal(R: Block, P: Block, rows: np.ndarray, W: np.ndarray, side: np.ndarray,
                  g: Grouping, flipped_classes: list[int], orient: np.ndarray,
                  fam: str, pairs: Optional[dict[int, tuple[int, int]]] = None) -> tuple[Optional[bool], str]:
    """Exactly compare the affine parts, given equal class coefficients.

    relu: twice the difference of the affine parts is
      2 (M_R - M_P) x + 2 (b_R - b_P) + 2 sum_{u=0} relu(c) w (R minus P)
      + sum over units of the classes in `flipped_classes` of +-w_i (u_i . x + c_i),
    since on every other class the shares sum lam_i w_i agree.  odd family: the difference is
      (M_R - M_P) x + (b_R - b_P) + sum over *opposite-oriented* units of +-w_i (u_i . x + c_i)
      + sum_{u=0} w s(c) (R minus P).
    Every term is one "unit" (row, column) of a product W~ U~ with float64 entries, so one call of
    the exact multi-modular search.verify_index_set decides it.  Two shortcuts keep the product
    small: a relu class made of one unit of R and one oppositely oriented unit of P with equal alpha
    contributes exactly 2 w_r (u_r . x + c_r) (one term instead of two), and an odd-family pair with
    the same orientation cancels; skips and b_down enter as the additive matrix when that is exact.
    """

    d = R.d
    sgn = np.where(side == 0, 1.0, -1.0)
    urows: list[np.ndarray] = []
    wcols: list[np.ndarray] = []
    mults: list[float] = []
    two = 2.0 if fam == "relu" else 1.0

    def add(row: np.ndarray, col: np.ndarray, mult: float) -> None:
        urows.append(row)
        wcols.append(col)
        mults.append(mult)

    pairs = pairs or {}
    if fam == "relu":
        for k in flipped_classes:
            if k in pairs:
                r = pairs[k][0]
                add(rows[r], W[:, r], 2.0)  # P's unit contributes exactly -w_r (u_r . x + c_r)
                continue
            for i in g.members[k]:
                add(rows[i], W[:, i], sgn[i])
    else:
        # units oriented against their class representative carry w_i (u_i . x + c_i); a pair of
        # one unit of R and one of P with equal w (checked) and equal orientation cancels
        skip_units: set[int] = set()
        for r, q in pairs.values():
            if orient[r] == orient[q]:
                skip_units.update((r, q))
        for i in np.flatnonzero((orient < 0) & (g.class_of >= 0)).tolist():
            if i not in skip_units:
                add(rows[i], W[:, i], sgn[i])
    e_last = np.zeros(d + 1)
    e_last[d] = 1.0
    zero_units = np.flatnonzero(g.class_of < 0).tolist()
    const_terms: list[tuple[float, int]] = []
    for i in zero_units:
        ci = rows[i, d]
        if fam == "relu":
            if ci > 0:
                add(ci * e_last, W[:, i], two * sgn[i])
        elif ci != 0:
            const_terms.append((ci, i))
            if ci < 0:  # s(c) = s(|c|) - |c| for c < 0
                add(-ci * e_last, W[:, i], -sgn[i])
    extra = np.zeros((d + 1, d + 1))
    SR, SP = _skip_or_zero(R), _skip_or_zero(P)
    bR = np.zeros(d) if R.b_down is None else R.b_down
    bP = np.zeros(d) if P.b_down is None else P.b_down
    with np.errstate(over="ignore"):
        for A, B, put in ((SR, SP, lambda v: extra.__setitem__((slice(0, d), slice(0, d)), v)),
                          (bR, bP, lambda v: extra.__setitem__((slice(0, d), d), v))):
            if np.array_equal(A, B):
                continue
            # exact when one side is zero (doubling is exact unless it overflows)
            if not np.any(B != 0) and np.all(np.isfinite(two * A)):
                put(two * A)
                continue
            if not np.any(A != 0) and np.all(np.isfinite(two * B)):
                put(-two * B)
                continue
            for blk_vals, s in ((A, 1.0), (B, -1.0)):
                if blk_vals.ndim == 2:
                    for k in range(d):
                        if np.any(blk_vals[:, k] != 0):
                            row = np.zeros(d + 1)
                            row[k] = 1.0
                            add(row, blk_vals[:, k], two * s)
                elif np.any(blk_vals != 0):
                    add(e_last, blk_vals, two * s)
    transcendental = False
    if fam == "odd" and const_terms:
        # the constants s(|c|) cancel when their coefficients agree; otherwise only balls can tell
        groups: dict[float, list[int]] = {}
        for ci, i in const_terms:
            groups.setdefault(abs(ci), []).append(i)
        for units in groups.values():
            tot = [sum((int(sgn[i]) * to_fraction(W[k, i]) for i in units), Fraction(0)) for k in range(d)]
            transcendental = transcendental or any(v != 0 for v in tot)
    if transcendental:
        extra[:, d] = 0.0  # the constants are left to the balls
    if not urows and not np.any(extra != 0):
        ok: bool = True
        how = "no affine difference terms"
    elif not urows:
        ok = False
        how = "the skip matrices or b_down differ and nothing else does (exact)"
    else:
        U = np.vstack(urows)
        with np.errstate(over="ignore"):
            Wt = np.vstack([np.column_stack(wcols) * np.array(mults)[None, :], np.zeros((1, len(wcols)))])
        if transcendental:
            U = U.copy()
            U[:, d] = 0.0  # compare the linear parts only; the constant is left to the balls
        if not (np.all(np.isfinite(U)) and np.all(np.isfinite(Wt))):
            ok = _affine_equal_fractions(urows, wcols, mults, d, linear_only=transcendental, extra=extra)
            how = "exact Fractions (doubling overflowed)"
        else:
            ok = bool(search.verify_index_set(U, Wt, extra, range(U.shape[0])))
            how = f"exact multi-modular product over {U.shape[0]} terms (search.verify_index_set)"
    if transcendental and ok:
        # the difference is a constant sum of rationals and of values s(|c|): compare it with balls
        res = _odd_constants_by_balls(R, P)
        return res, how + "; constants s(c) of zero rows with different coefficients compared with arb " \
            + ("balls: they differ" if res is False else "balls: not separated (undecided)")
    return ok, how


def _affine_equal_fractions(urows: list[np.ndarray], wcols: list[np.ndarray], mults: list[float],
                            d: int, linear_only: bool = False, extra: Optional[np.ndarray] = None) -> bool:
    tot = [[Fraction(0)] * (d + 1) for _ in range(d)]
    if extra is not None:
        for a in range(d):
            for b in range(d if linear_only else d + 1):
                tot[a][b] += to_fraction(extra[a, b])
    for r, c, mu in zip(urows, wcols, mults):
        for a in range(d):
            if c[a] != 0:
                ca = to_fraction(c[a]) * to_fraction(mu)
                for b in range(d if linear_only else d + 1):
                    tot[a][b] += ca * to_fraction(r[b])
    return all(v == 0 for row in tot for v in row)


def _odd_constants_by_balls(R: Block, P: Block) -> Optional[bool]:
    """F_R - F_P is a constant here; compare it at x = 0 with arb balls (False if certified nonzero)."""

    x = [Fraction(0)] * R.d
    a, b = R.evaluate(x, "ball", arith.DEFAULT_PREC), P.evaluate(x, "ball", arith.DEFAULT_PREC)
    if any(not (u - v).contains(0) for u, v in zip(a, b)):
        return False
    return None


# ---------------------------------------------------------------------------- gelu family: exact form

@dataclass
class OddClass:
    """Units of a gelu/gelu_tanh/silu block on one row +-(u, c) (first nonzero entry of u positive)."""

    u: list[Fraction]
    b: Fraction
    units: list[int]
    eps: list[int]  # +1 if (u_i, c_i) = (u, b), -1 if = -(u, b)
    gamma: list[Fraction]  # sum of w_i over the class


@dataclass
class OddForm:
    """Canonical form of M x + W_down s(W_up x + b_up) + b_down for s in gelu, gelu_tanh, silu."""

    d: int
    classes: list[OddClass]
    zero_units: list[int]
    A: fmpq_mat  # linear part M + sum_{eps = -1} w_i u_i^T
    a0: list[Fraction]  # b_down + sum_{eps = -1} w_i c_i (plus the rational parts of zero rows)
    zero_constants: dict[Fraction, list[Fraction]]  # |c| -> coefficient vector of s(|c|)


def odd_form(block: Block) -> OddForm:
    """Exact canonical form of a block whose activation is in LEMMA_T (gelu, gelu_tanh, silu)."""
    if block.activation not in activations.LEMMA_T:
        raise ValueError(f"odd_form needs one of {', '.join(activations.LEMMA_T)}, got {block.activation}")
    d, m = block.d, block.m
    rows = rows_with_bias(block)
    g = group_rows(rows, "sign")
    W = qmat(block.W_down)
    S = block.skip()
    A = to_fmpq_mat(S) if S is not None else fmpq_mat(d, d)
    a0 = qvec(block.b_down) if block.b_down is not None else [Fraction(0)] * d
    classes = []
    for k, mem in enumerate(g.members):
        rep = rows[g.reps[k]]
        f = int(g.lead[g.reps[k]])
        sg = 1 if rep[f] > 0 else -1
        u = [to_fraction(v) * sg for v in rep]
        eps = [1 if rows[i, f] > 0 else -1 for i in mem]  # the class vector has u[f] > 0
        gamma = [sum((W[a][i] for i in mem), Fraction(0)) for a in range(d)]
        classes.append(OddClass(u[:d], u[d], list(mem), eps, gamma))
        for i, e in zip(mem, eps):
            if e < 0:  # s(-h) = s(h) - h, and -h = u_i . x + c_i
                ui = to_fmpq_mat([[W[a][i]] for a in range(d)], 1) * to_fmpq_mat(rows[i:i + 1, :d])
                A = A + ui
                for a in range(d):
                    a0[a] += W[a][i] * to_fraction(rows[i, d])
    zero_constants: dict[Fraction, list[Fraction]] = {}
    zero_units = np.flatnonzero(g.class_of < 0).tolist()
    for i in zero_units:
        c = to_fraction(rows[i, d])
        if c == 0:
            continue  # s(0) = 0
        vec = zero_constants.setdefault(abs(c), [Fraction(0)] * d)
        for a in range(d):
            vec[a] += W[a][i]
            if c < 0:
                a0[a] -= W[a][i] * abs(c)
    return OddForm(d, classes, zero_units, A, a0, zero_constants)


# ------------------------------------------------------------------ forms with a polynomial part
#
# relu2 and the gated families have no exact form above.  Their flip identities move a unit's
# argument to its negative at the price of a polynomial of degree <= 2:
#   relu2:                      s(-z) = z^2 - s(z), and s(t z) = t^2 s(z) for t > 0;
#   reglu, swiglu, geglu(_tanh): g(-z) = g(z) - z  (and relu(t z) = t relu(z) for t > 0, reglu);
#   glu:                        g(-z) = 1 - g(z);   bilinear: g(z) = z (the block is a polynomial).
# So every such block is  P(x) + sum over classes k of  phi(h_k . y) A_k(y),  y = (x, 1), with P a
# vector polynomial of degree <= 2 (skip, b_down, the flips' squares and products), h_k a class
# representative (first nonzero entry +1 for relu2 and reglu, +-1 otherwise) and A_k a vector
# (relu2) or an affine map (gates).  Two blocks with equal P and equal A_k for every class are
# the same function: that direction is the identities above, exactly (relu2-biased (A) and the
# class sums of (C), proofs/informal/relu2-biased.md; gated-biased (A), proofs/informal/
# gated-biased.md).  Unequal forms prove nothing here (the converse needs Lemma 1 / Lemma G and
# their hypotheses), so a caller answers only "equal" from them.

POLY_FORM_WORK = 3_000_000  # m * (d+1)^2 * d exact operations above which no form is built

_POLY_IDENTITY = {
    "square_flip": "s(z) + s(-z) = z^2 and s(t z) = t^2 s(z) for t > 0 (relu2-biased (A) and (C), "
                   "proofs/informal/relu2-biased.md)",
    "odd_part_identity": "g(z) - g(-z) = z (gated-biased (A), proofs/informal/gated-biased.md)",
    "flip_symmetry": "g(z) + g(-z) = 1 (glu-flip and gated-biased (A), proofs/informal/gated-biased.md)",
    "identity": "g(z) = z: a bilinear block is a polynomial of degree 2",
}


@dataclass
class PolyForm:
    """P (upper-triangle coefficients of y_i y_j, each a vector over the outputs) and the classes."""

    poly: dict[tuple[int, int], list[Fraction]]
    classes: dict[tuple[Fraction, ...], list[Fraction]]
    identity: str


def _property(name: str, prop: str) -> bool:
    return bool(derived_property(name, prop)[0])  # the catalog's re-derivation, cached per process


def _identity_gate(act: Any) -> bool:
    """g(z) = z: positively homogeneous of degree 1 (re-derived) with g(1) = 1 and g(-1) = -1, so
    g(t) = t g(1) and g(-t) = t g(-1) for t > 0, and g(0) = 0."""
    return bool(act.gated and act.homogeneity_degree == 1 and act.exact is not None and act.value_at_0 == 0
                and act.exact(Fraction(1)) == 1 and act.exact(Fraction(-1)) == -1
                and _property(act.name, "homogeneity_degree"))


def poly_form(block: Block) -> Optional[PolyForm]:
    """The form above for a relu2 or gated block, exactly; None for other families, for blocks
    too large (POLY_FORM_WORK) or when the identity the form uses does not re-derive."""
    act, d, m = block.act, block.d, block.m
    if m * (d + 1) ** 2 * max(d, 1) > POLY_FORM_WORK:
        return None
    name = block.activation
    if not act.gated and act.square_flip and act.homogeneity_degree == 2:
        if not (_property(name, "square_flip") and _property(name, "homogeneity_degree")):
            return None
        rule = "square_flip"
    elif _identity_gate(act):
        rule = "identity"
    elif act.gated and act.odd_part_identity and _property(name, "odd_part_identity"):
        rule = "odd_part_identity"
        if act.homogeneity_degree is not None and not _property(name, "homogeneity_degree"):
            return None
    elif act.gated and act.flip_symmetry and _property(name, "flip_symmetry"):
        rule = "flip_symmetry"
    else:
        return None
    q = Fraction
    n = d + 1
    poly: dict[tuple[int, int], list[Fraction]] = {}
    classes: dict[tuple[Fraction, ...], list[Fraction]] = {}

    def add_poly(i: int, j: int, c: Fraction, w: list[Fraction]) -> None:
        if c == 0:
            return
        key = (i, j) if i <= j else (j, i)
        acc = poly.setdefault(key, [q(0)] * d)
        for k in range(d):
            acc[k] += c * w[k]

    def add_product(a: list[Fraction], b: list[Fraction], c: Fraction, w: list[Fraction]) -> None:
        # c (a . y)(b . y) w
        for i in range(n):
            if a[i] == 0:
                continue
            for j in range(n):
                if b[j] != 0:
                    add_poly(i, j, c * a[i] * b[j], w)

    def add_class(key: tuple[Fraction, ...], vec: list[Fraction], c: Fraction) -> None:
        acc = classes.setdefault(key, [q(0)] * len(vec))
        for k, v in enumerate(vec):
            acc[k] += c * v

    S = block.skip()
    if S is not None:
        for j in range(d):
            add_poly(j, d, q(1), [q(float(S[k, j])) for k in range(d)])
    if block.b_down is not None:
        add_poly(d, d, q(1), [q(float(v)) for v in block.b_down])
    U = block.W_up
    bu = block.b_up
    for i in range(m):
        w = [q(float(v)) for v in block.W_down[:, i]]
        if not any(w):
            continue
        v = [q(float(x)) for x in U[i]] + [q(float(bu[i])) if bu is not None else q(0)]
        if rule == "square_flip":
            t = next((x for x in v if x != 0), None)
            if t is None:
                continue
            if not any(v[:d]):  # a constant unit: relu2(b) w
                add_poly(d, d, v[d] * v[d] if v[d] > 0 else q(0), w)
                continue
            h = tuple(x / t for x in v)
            add_class(h, w, (1 if t > 0 else -1) * t * t)
            if t < 0:  # s(t z) = t^2 s(-z) = t^2 (z^2 - s(z))
                add_product(list(h), list(h), t * t, w)
            continue
        a = [q(float(x)) for x in block.W_gate[i]] + [q(float(block.b_gate[i])) if block.b_gate is not None else q(0)]
        wv = [wk * vj for wk in w for vj in v]  # w (v . y) as a d x (d+1) matrix
        if rule == "identity":
            add_product(a, v, q(1), w)
            continue
        t = next((x for x in a if x != 0), None)
        if t is None:  # g(0) (v . y) w
            add_product([q(0)] * d + [q(1)], v, act.value_at_0, w)
            continue
        if not any(a[:d]) and act.exact is not None:  # a constant gate with an exact value: g(c) (v . y) w
            add_product([q(0)] * d + [q(1)], v, q(act.exact(a[d])), w)
            continue
        if rule == "odd_part_identity" and act.homogeneity_degree == 1:
            h, scale = tuple(x / abs(t) for x in a), abs(t)  # relu(t z) = |t| relu(sign(t) z)
            h = tuple(x if t > 0 else -x for x in h)
        else:
            h, scale = (tuple(a) if t > 0 else tuple(-x for x in a)), q(1)
        if t > 0:
            add_class(h, wv, scale)
        elif rule == "odd_part_identity":  # g(-z) = g(z) - z
            add_class(h, wv, scale)
            add_product(list(h), v, -scale, w)
        else:  # glu: g(-z) = 1 - g(z)
            add_class(h, wv, q(-1))
            add_product([q(0)] * d + [q(1)], v, q(1), w)
    poly = {k: c for k, c in poly.items() if any(c)}
    classes = {k: c for k, c in classes.items() if any(c)}
    return PolyForm(poly, classes, _POLY_IDENTITY[rule])


def poly_forms_equal(R: Block, P: Block) -> Optional[dict[str, Any]]:
    """Evidence that R and P are the same function by equal forms with a polynomial part (exact
    rationals), or None when the forms differ or cannot be built."""
    if R.activation != P.activation or R.d != P.d:
        return None
    t0 = time.perf_counter()
    fR, fP = poly_form(R), poly_form(P)
    if fR is None or fP is None or fR.poly != fP.poly or fR.classes != fP.classes:
        return None
    return {"kind": "polynomial_forms", "identity": fR.identity, "classes": len(fR.classes),
            "polynomial_terms": len(fR.poly), "units": [R.m, P.m],
            "seconds": round(time.perf_counter() - t0, 3),
            "detail": (f"equal forms P(x) + sum over {len(fR.classes)} classes (exact rationals): the "
                       f"polynomial parts of degree <= 2 agree in all {len(fR.poly)} monomial coefficients "
                       f"and every class's coefficient agrees; by {fR.identity} the blocks are equal")}
