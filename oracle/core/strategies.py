"""Hypothesis strategies for blocks, importable by other test suites.

Weights are small dyadic rationals (integers divided by a power of two), so
every float64 weight is exact and exact rational checks stay cheap. The
condition-satisfying blocks are built from integer matrices with integer
inverses, so W_down[:, S] W_up[S, :] = -M holds exactly in float64.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Optional, Sequence

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from oracle.core import activations
from oracle.core.blocks import Block, exact_inverse, nondegeneracy
from oracle.core.errors import CheckFailed

@st.composite
def dims(draw: st.DrawFn, min_d: int = 1, max_d: int = 4, min_m: int = 1,
         max_m: int = 6) -> tuple[int, int]:
    """A pair (d, m) of input dimension and hidden width."""
    return draw(st.integers(min_d, max_d)), draw(st.integers(min_m, max_m))


def dyadic(max_abs: int = 4, bits: int = 3) -> st.SearchStrategy[float]:
    """Floats of the form n / 2**bits with |value| <= max_abs (exact in float64)."""
    scale = 2 ** bits
    return st.integers(-max_abs * scale, max_abs * scale).map(lambda n: n / scale)


def float_weights(shape: tuple[int, ...], max_abs: float = 8.0) -> st.SearchStrategy[np.ndarray]:
    """Arrays of arbitrary finite float64 values in [-max_abs, max_abs] (any dyadic)."""
    n = int(np.prod(shape))
    return st.lists(st.floats(-max_abs, max_abs, allow_nan=False, allow_infinity=False,
                              allow_subnormal=False, width=64),
                    min_size=n, max_size=n).map(lambda v: np.array(v, dtype=np.float64).reshape(shape))


def dyadic_weights(shape: tuple[int, ...], max_abs: int = 4,
                   bits: int = 3) -> st.SearchStrategy[np.ndarray]:
    """Arrays of small dyadic rationals n / 2**bits."""
    n = int(np.prod(shape))
    return st.lists(dyadic(max_abs, bits), min_size=n, max_size=n).map(
        lambda v: np.array(v, dtype=np.float64).reshape(shape))


def rational_weights(shape: tuple[int, int], max_num: int = 9,
                     max_den: int = 9) -> st.SearchStrategy[list[list[Fraction]]]:
    """Matrices of Fractions with small numerators and denominators (not dyadic in general)."""
    q = st.builds(Fraction, st.integers(-max_num, max_num), st.integers(1, max_den))
    return st.lists(st.lists(q, min_size=shape[1], max_size=shape[1]),
                    min_size=shape[0], max_size=shape[0])


@st.composite
def unimodular(draw: st.DrawFn, d: int, steps: int = 6) -> np.ndarray:
    """A d x d integer matrix whose inverse is also an integer matrix (det = +-1)."""
    a = np.eye(d, dtype=np.int64)
    for _ in range(draw(st.integers(0, steps))):
        i, j = draw(st.integers(0, d - 1)), draw(st.integers(0, d - 1))
        c = draw(st.integers(-2, 2))
        if i != j:
            a[i] += c * a[j]  # elementary row addition keeps det = 1
    perm = draw(st.permutations(range(d)))
    signs = np.array(draw(st.lists(st.sampled_from([-1, 1]), min_size=d, max_size=d)))
    return (a[list(perm)] * signs[:, None]).astype(np.int64)


def integer_inverse(a: np.ndarray) -> np.ndarray:
    """The exact inverse of an integer matrix with integer inverse, as int64 (asserts integrality)."""
    inv = exact_inverse([[Fraction(int(v)) for v in row] for row in a])
    if inv is None or any(v.denominator != 1 for row in inv for v in row):
        raise ValueError("matrix has no integer inverse")
    return np.array([[int(v) for v in row] for row in inv], dtype=np.int64)


@st.composite
def blocks(draw: st.DrawFn, activation: Optional[str] = None, d: Optional[int] = None,
           m: Optional[int] = None, max_d: int = 4, max_m: int = 6, bias: bool = False,
           skip: str = "identity") -> Block:
    """A block with small dyadic weights; skip is 'identity', 'invertible', 'any', 'singular' or 'none'.

    'singular' draws a nonzero skip matrix of rank 1 (for d = 1 that is a nonzero scalar).
    """
    act = activation or draw(st.sampled_from(sorted(activations.CATALOG)))
    d = d or draw(st.integers(1, max_d))
    m = m or draw(st.integers(1, max_m))
    kw: dict = {
        "W_up": draw(dyadic_weights((m, d))),
        "W_down": draw(dyadic_weights((d, m))),
    }
    if activations.get(act).gated:
        kw["W_gate"] = draw(dyadic_weights((m, d)))
        if bias:
            kw["b_gate"] = draw(dyadic_weights((m,)))
    if bias:
        kw["b_up"] = draw(dyadic_weights((m,)))
        kw["b_down"] = draw(dyadic_weights((d,)))
    if skip == "none":
        return Block(act, kind="plain", **kw)
    if skip == "invertible":
        kw["M"] = draw(unimodular(d)).astype(np.float64)
    elif skip == "any":
        kw["M"] = draw(dyadic_weights((d, d)))
    elif skip == "singular":
        kw["M"] = rank_one(draw, d)
    return Block(act, **kw)


def rank_one(draw: st.DrawFn, d: int) -> np.ndarray:
    """A nonzero d x d matrix v w^T with small nonzero dyadic v, w (singular when d >= 2)."""
    nz = st.integers(-4, 4).filter(lambda v: v != 0).map(lambda v: v / 2)
    v = np.array([draw(nz) for _ in range(d)])
    w = np.array([draw(nz) for _ in range(d)])
    return np.outer(v, w)


def optional_vector(d: int, max_num: int, max_den: int) -> st.SearchStrategy[Optional[list[Fraction]]]:
    """None, or d rationals n/k with |n| <= max_num and 1 <= k <= max_den (a direction or a point
    an instance may carry, None leaving the choice to the check)."""
    q = st.builds(Fraction, st.integers(-max_num, max_num), st.integers(1, max_den))
    return st.one_of(st.none(), st.lists(q, min_size=d, max_size=d))


@st.composite
def residual_and_candidate(draw: st.DrawFn, kinds: Sequence[str], keep: Callable[[Block], bool],
                           candidate_kinds: Optional[Sequence[str]] = None,
                           max_candidate_m: int = 4) -> tuple[Block, Block]:
    """A residual block F of one of ``kinds`` (d in 1..3, width 1..4, skip the identity, any
    matrix or rank one; kept when keep(F)) and a plain candidate: with candidate_kinds None, of
    F's kind and width (independent weights, or F's own B); else of one of candidate_kinds and
    any width up to max_candidate_m."""
    kind = draw(st.sampled_from(kinds))
    d, m = draw(st.integers(1, 3)), draw(st.integers(1, 4))
    F = draw(blocks(kind, d=d, m=m, skip=draw(st.sampled_from(["identity", "any", "singular"]))).filter(keep))
    if candidate_kinds is None:
        P = draw(st.one_of(blocks(kind, d=d, m=m, skip="none"), st.just(F.without_skip())))
    else:
        P = draw(blocks(draw(st.sampled_from(candidate_kinds)), d=d, m=draw(st.integers(1, max_candidate_m)),
                        skip="none"))
    return F, P


def _is_nondegenerate(b: Block) -> bool:
    return nondegeneracy(b.W_up, b.W_down).ok


def nondegenerate_blocks(activation: Optional[str] = None, **kw) -> st.SearchStrategy[Block]:
    """Blocks whose W_up rows are nonzero and pairwise non-collinear and W_down columns nonzero."""
    return blocks(activation, **kw).filter(_is_nondegenerate)


@st.composite
def degenerate_blocks(draw: st.DrawFn, activation: Optional[str] = None,
                      **kw) -> tuple[Block, str]:
    """A block made degenerate on purpose: ('zero_row' | 'collinear_rows' | 'zero_column')."""
    kw.setdefault("max_m", 6)
    b = draw(blocks(activation, m=draw(st.integers(2, kw.pop("max_m"))), **kw))
    defect = draw(st.sampled_from(["zero_row", "collinear_rows", "zero_column"]))
    up, down = b.W_up.copy(), b.W_down.copy()
    i, j = draw(st.permutations(range(b.m)))[:2]
    if defect == "zero_row":
        up[i] = 0.0
    elif defect == "collinear_rows":
        c = draw(st.sampled_from([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 3.0]))
        up[j] = c * up[i]
    else:
        down[:, i] = 0.0
    b.W_up, b.W_down = up, down
    b.validate()
    return b, defect


NEAR_MISS = 2.0 ** -30  # a near miss moves one entry of W_down[:, S] by this much


@dataclass
class ConditionInstance:
    """A block with a known index set S such that W_down[:, S] W_up[S, :] = -M exactly.

    When ``near_miss`` is set, one entry of W_down[:, S] was then moved by 2^-30, so S misses
    the condition by exactly that much (the block is otherwise the planted one).
    """

    block: Block
    S: tuple[int, ...]
    near_miss: bool = False
    moved: Optional[tuple[int, int]] = None  # (row, unit) of the moved W_down entry


@st.composite
def condition_blocks(draw: st.DrawFn, activation: str = "relu", d: Optional[int] = None,
                     extra: int = 0, others: int = 2, skip: str = "identity",
                     require_nondegenerate: bool = True, near_miss: bool = False) -> ConditionInstance:
    """A block satisfying the index condition exactly with |S| = d + extra.

    U_S = [P; R] and W_S = [A, C] with P unimodular, R and C random integers and
    A = (-M - C R) P^{-1}, so W_S U_S = A P + C R = -M with integer arithmetic.
    skip is 'identity', 'invertible' (a unimodular M) or 'singular': then |S| = k < d
    (k = 1 when d = 1), U_S and W_S are random integers and M = -W_S U_S has rank <= k, so
    the block may be narrower than d. ``near_miss`` moves one entry of W_down[:, S] by 2^-30.
    """
    d = d or draw(st.integers(2, 3))
    ints = lambda shape: np.array(draw(st.lists(st.integers(-3, 3), min_size=int(np.prod(shape)),  # noqa: E731
                                                max_size=int(np.prod(shape))))).reshape(shape).astype(np.int64)
    if skip == "singular":
        k = draw(st.integers(1, max(1, d - 1)))
        U_S, W_S = ints((k, d)), ints((d, k))
        M = -(W_S @ U_S)
        assume(np.any(M != 0))
    else:
        M = np.eye(d, dtype=np.int64) if skip == "identity" else draw(unimodular(d))
        P = draw(unimodular(d))
        R, C = ints((extra, d)), ints((d, extra))
        A = (-M - C @ R) @ integer_inverse(P)
        U_S, W_S = np.vstack([P, R]), np.hstack([A, C])
    if not np.array_equal(W_S @ U_S, -M):  # an integer identity: it guards the construction itself
        raise CheckFailed("the planted index set does not satisfy W_S U_S = -M")
    n_S = len(U_S)
    n_other = draw(st.integers(0, others))
    U_o, W_o = ints((n_other, d)), ints((d, n_other))
    m = n_S + n_other
    order = draw(st.permutations(range(m)))
    W_up = np.zeros((m, d))
    W_down = np.zeros((d, m))
    all_up, all_down = np.vstack([U_S, U_o]), np.hstack([W_S, W_o])
    for src, dst in enumerate(order):
        W_up[dst] = all_up[src]
        W_down[:, dst] = all_down[:, src]
    S = tuple(sorted(order[:n_S]))
    moved = None
    if near_miss:
        # a unit with a nonzero row, so the move changes W_S U_S (by 2^-30 e_a u_j^T)
        moved = (draw(st.integers(0, d - 1)), draw(st.sampled_from([j for j in S if np.any(W_up[j] != 0)])))
        W_down[moved] += draw(st.sampled_from([-1.0, 1.0])) * NEAR_MISS
    kw = {}
    if activations.get(activation).gated:
        kw["W_gate"] = draw(dyadic_weights((m, d)))
    block = Block(activation, W_up=W_up, W_down=W_down,
                  M=None if skip == "identity" else M.astype(np.float64), **kw)
    if require_nondegenerate:
        assume(_is_nondegenerate(block))
    return ConditionInstance(block, S, near_miss, moved)
