"""Exact-rational and ball helpers shared by the claims and the decisions.

Matrices are lists of rows of Fractions (QMat), vectors lists of Fractions (QVec);
certificates store them as exact strings (smat / svec) and weights as float lists,
which JSON round-trips exactly. Ball helpers use python-flint's arb.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any, Optional, Sequence

import numpy as np

from oracle.core import activations, arith, linalg
from oracle.core.rational import QMat, QVec, arb, fraction_of_exact_arb, qmat, to_arb, to_fraction
from oracle.core.blocks import Block, Stack

BALL_PREC = 128
# A ball for a difference that is exactly zero has radius near 2^-prec times the magnitudes
# involved; 2^-80 at 128 bits leaves room for moderate weights while rejecting any real gap.
BALL_TOL = 2.0 ** -80



def transpose(a: QMat) -> QMat:
    """Transpose of a list-of-rows matrix."""
    return [list(col) for col in zip(*a)] if a else []


def matmul(a: QMat, b: QMat) -> QMat:
    """Exact product of two rational matrices."""
    bt = transpose(b)
    return [[sum((x * y for x, y in zip(row, col)), Fraction(0)) for col in bt] for row in a]


def matvec_q(a: QMat, x: QVec) -> QVec:
    """Exact matrix-vector product."""
    return [sum((r * v for r, v in zip(row, x)), Fraction(0)) for row in a]


def identity(d: int) -> QMat:
    """The d x d identity in Fractions."""
    return [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]


def index_sum(W_up: QMat, W_down: QMat, S: Sequence[int]) -> QMat:
    """W_down[:,S] W_up[S,:] = sum_{i in S} w_i u_i^T, exactly."""
    d = len(W_down)
    out = [[Fraction(0)] * d for _ in range(d)]
    for i in S:
        for a in range(d):
            wa = W_down[a][i]
            if wa:
                for b in range(d):
                    out[a][b] += wa * W_up[i][b]
    return out


def all_index_sets_exact(W_up: QMat, W_down: QMat, M: QMat) -> list[tuple[int, ...]]:
    """Every S with W_S U_S = -M, by brute force over all 2^m subsets in exact rationals."""
    m, d = len(W_up), len(M)
    outer = [[[W_down[a][i] * W_up[i][b] for b in range(d)] for a in range(d)] for i in range(m)]
    found = []
    for mask in range(1 << m):
        acc = [row[:] for row in M]
        for i in range(m):
            if mask >> i & 1:
                oi = outer[i]
                for a in range(d):
                    ra, oa = acc[a], oi[a]
                    for b in range(d):
                        ra[b] += oa[b]
        if all(v == 0 for row in acc for v in row):
            found.append(tuple(i for i in range(m) if mask >> i & 1))
    return found


def eval_plain_q(act: str, W_up: QMat, W_down: QMat, x: QVec, M: Optional[QMat] = None,
                 b_up: Optional[QVec] = None, b_down: Optional[QVec] = None,
                 W_gate: Optional[QMat] = None, b_gate: Optional[QVec] = None) -> QVec:
    """Mx + W_down h + b_down in exact rationals, with h = s(W_up x + b_up) for an activation and
    h = g(W_gate x + b_gate) * (W_up x + b_up) for a gate (s or g must have an exact form)."""
    a = activations.get(act)
    if a.exact is None or (a.gated and W_gate is None):
        raise ValueError(f"{act} has no exact form" if a.exact is None else "a gated block needs W_gate")
    pre = matvec_q(W_up, x)
    if b_up is not None:
        pre = [p + b for p, b in zip(pre, b_up)]
    if a.gated:
        gp = matvec_q(W_gate, x)
        if b_gate is not None:
            gp = [p + b for p, b in zip(gp, b_gate)]
        hidden = [a.exact(g) * p for g, p in zip(gp, pre)]
    else:
        hidden = [a.exact(p) for p in pre]
    out = matvec_q(W_down, hidden)
    if b_down is not None:
        out = [o + b for o, b in zip(out, b_down)]
    if M is not None:
        out = [o + v for o, v in zip(out, matvec_q(M, x))]
    return out


def _avec(a: Any, x: Sequence[arb]) -> list[arb]:
    return [sum((to_arb(r) * v for r, v in zip(row, x)), arb(0)) for row in a]


def eval_ball(act: str, W_up: Any, W_down: Any, x: Sequence[Any], M: Any = None,
              W_gate: Any = None, b_up: Any = None, b_gate: Any = None, b_down: Any = None,
              prec: int = BALL_PREC) -> list[arb]:
    """Rigorous enclosure of Mx + B(x) for an ungated or gated block with rational or arb weights."""
    a = activations.get(act)
    with arith.precision("ball", prec):
        xb = [to_arb(v) for v in x]
        pre = _avec(W_up, xb)
        if b_up is not None:
            pre = [p + to_arb(b) for p, b in zip(pre, b_up)]
        if a.gated:
            gp = _avec(W_gate, xb)
            if b_gate is not None:
                gp = [p + to_arb(b) for p, b in zip(gp, b_gate)]
            hidden = [a.ball(g) * p for g, p in zip(gp, pre)]
        else:
            hidden = [a.ball(p) for p in pre]
        out = _avec(W_down, hidden)
        if b_down is not None:
            out = [o + to_arb(b) for o, b in zip(out, b_down)]
        if M is not None:
            out = [o + v for o, v in zip(out, _avec(M, xb))]
        return out


def balls_agree(lhs: Sequence[arb], rhs: Sequence[arb], tol: float = BALL_TOL) -> tuple[bool, float]:
    """Do two vectors of balls overlap entrywise with a tiny difference enclosure? (evidence, not proof)"""
    worst = 0.0
    ok = True
    for p, q in zip(lhs, rhs):
        diff = p - q
        r = float(diff.rad()) + abs(float(diff.mid()))
        worst = max(worst, r)
        ok = ok and diff.contains(0) and r < tol
    return ok, worst


def line_key(row: Sequence[Fraction]) -> Optional[tuple[int, ...]]:
    """Primitive integer vector with positive leading entry spanning the line of a rational row."""
    ints, scale = linalg.primitive(row)
    if not scale:
        return None
    sgn = 1 if next(v for v in ints if v != 0) > 0 else -1
    return tuple(sgn * v for v in ints)


def nondegenerate_exact(W_up: QMat, W_down: QMat) -> bool:
    """Nondegenerate in the bias-free sense, exactly: no zero row of W_up, no two rows of W_up on
    one line through 0, no zero column of W_down."""
    keys = [line_key(r) for r in W_up]
    cols = all(any(W_down[a][i] != 0 for a in range(len(W_down))) for i in range(len(W_up)))
    return None not in keys and len(set(keys)) == len(keys) and cols


def nullspace(a: QMat, d: int) -> QMat:
    """A basis (list of vectors) of {x in Q^d : a x = 0}: the canonical one from the exact rref."""
    X = linalg.nullspace(a, d)
    return [[to_fraction(X[i, j]) for i in range(X.nrows())] for j in range(X.ncols())]


def det(a: QMat) -> Fraction:
    """The exact determinant of a square rational matrix (1 for the empty matrix)."""
    return to_fraction(linalg.det(a)) if a else Fraction(1)


def dot(u: Sequence[Fraction], v: Sequence[Fraction]) -> Fraction:
    """Exact dot product."""
    return sum((a * b for a, b in zip(u, v)), Fraction(0))



_WEIGHTS = ("W_up", "W_down", "W_gate", "b_up", "b_gate", "b_down", "M")


def block_to_json(b: Block) -> dict[str, Any]:
    """A block as JSON-ready data: float lists (exact round-trip) plus activation and kind."""
    out: dict[str, Any] = {"activation": b.activation, "kind": b.kind}
    for name in _WEIGHTS:
        v = getattr(b, name)
        if v is not None:
            out[name] = np.asarray(v, dtype=np.float64).tolist()
    return out


def block_from_json(data: dict[str, Any]) -> Block:
    """Inverse of block_to_json; validation of the Block rejects malformed data."""
    kw = {name: np.array(data[name], dtype=np.float64) for name in _WEIGHTS if name in data}
    return Block(data["activation"], kind=data.get("kind", "residual"), **kw)


def stack_to_json(s: Stack) -> list[dict[str, Any]]:
    """A stack as a list of block records, first block first."""
    return [block_to_json(b) for b in s.blocks]


def stack_from_json(data: list[dict[str, Any]]) -> Stack:
    """Inverse of stack_to_json."""
    return Stack([block_from_json(b) for b in data])


def is_zero_matrix(a: QMat) -> bool:
    """True when every entry is exactly 0."""
    return all(v == 0 for r in a for v in r)


def skip_matrix(b: Block) -> QMat:
    """The exact skip matrix of a residual block (identity when M is absent)."""
    return identity(b.d) if b.M is None else qmat(b.M)


def has_nonzero_skip(b: Block) -> bool:
    """True when the residual block's skip matrix is not exactly zero."""
    return not is_zero_matrix(skip_matrix(b))


def has_exact_form(b: Block) -> bool:
    """True when the block's activation has an exact rational form (relu, relu2, reglu, bilinear)."""
    return b.act.exact is not None


def ball_str(x: arb) -> str:
    """Display form of a ball."""
    return x.str(20, radius=True)


def ball_excludes_zero(x: arb) -> bool:
    """True when the ball provably does not contain 0."""
    return not x.contains(0)


def ball_abs_upper(x: arb, floor: Optional[Fraction] = None) -> Fraction:
    """An exact rational upper bound of |x| over the ball (Arb's endpoints are exact).

    With a floor, an endpoint that lies rigorously below the floor is replaced by the floor
    before it becomes a Fraction: a ball around e^-1000000 has endpoints whose exponents have a
    million bits, and their Fractions would be as long (too long to write as a string, and for
    larger exponents too large to build at all).  The result is still an upper bound of |x|."""
    f = to_arb(floor) if floor is not None else None
    ends = []
    for e in (x.upper(), -x.lower()):
        ends.append(Fraction(floor) if f is not None and e < f else fraction_of_exact_arb(e))
    return max(ends)


@functools.lru_cache(maxsize=None)
def derived_property(name: str, prop: str) -> tuple[bool, str]:
    """Re-derive one declared property of a catalog entry: (declaration verified, method)."""
    c = activations.check_property(activations.get(name), prop)
    return c.holds, c.method


def property_is_proved(name: str, prop: str) -> bool:
    """True when the declared property holds and was re-derived symbolically (sympy)."""
    holds, method = derived_property(name, prop)
    return holds and method.startswith("sympy")


def safe_recheck(fn):
    """Decorator: a recheck that raises on malformed data answers False instead."""
    @functools.wraps(fn)
    def wrapped(cert: dict[str, Any]) -> bool:
        try:
            return bool(fn(cert))
        except Exception:  # malformed or tampered JSON is simply not a valid certificate
            return False
    return wrapped


def recheck_variant(recheck: Any, variant: Any, name: str, doc: str) -> Any:
    """One claim's re-check from a module's re-check shared by two claims: cert ->
    recheck(cert, variant) under safe_recheck, with its own name and docstring."""
    def one(cert: dict[str, Any]) -> bool:
        return recheck(cert, variant)
    one.__name__ = one.__qualname__ = name
    one.__doc__ = doc
    return safe_recheck(one)


