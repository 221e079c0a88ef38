"""Oracle check of non-generic (Cor. 11): the index condition fails for almost every weight.

For a random dyadic nondegenerate block and every index set S (m <= 10) the check computes
W_S U_S + M exactly (all weights scaled to integers) and confirms it is nonzero. It also records
why each polynomial p_S(W) = ||W_S U_S + M||_F^2 is not the zero polynomial: at W_down = 0 it
equals ||M||_F^2 > 0 (proofs/informal/non-generic.md, Part 1). Weights come from a seeded numpy
generator with 20-bit dyadic entries rather than from hypothesis' value shrinker, which favours
special values such as 0 and +-1 that make the condition far likelier than for generic weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import strategies as st

from oracle.core.blocks import Block, nondegeneracy
from oracle.core.strategies import rank_one, unimodular
from oracle.claims.base import Certificate, oracle_check
from oracle.core.rational import q_str
from oracle.algebra.exact import qmat, smat
from oracle.claims.relu_gelu import _nondegenerate_q
from oracle.algebra.search import exhaustive_search

CLAIM = "non-generic"


@dataclass
class GenericInstance:
    """A block with generic (random 20-bit dyadic) weights and its skip matrix."""

    block: Block
    seed: int


def random_block(seed: int, d: int, m: int, M: np.ndarray) -> Block:
    """A relu block with weights k / 2^16, |k| <= 2^20, from a seeded generator."""
    rng = np.random.default_rng(seed)
    up = rng.integers(-2**20, 2**20, size=(m, d)) / 2.0**16
    down = rng.integers(-2**20, 2**20, size=(d, m)) / 2.0**16
    return Block("relu", W_up=up, W_down=down, M=M)


@st.composite
def _instances(draw: st.DrawFn) -> GenericInstance:
    d = draw(st.integers(2, 3))
    m = draw(st.integers(1, 10))
    kind = draw(st.sampled_from(["identity", "unimodular", "rank_one"]))
    M = np.eye(d) if kind == "identity" else (draw(unimodular(d)).astype(np.float64) if kind == "unimodular"
                                              else rank_one(draw, d))
    seed = draw(st.integers(0, 2**32 - 1))
    b = random_block(seed, d, m, M)
    from hypothesis import assume
    assume(nondegeneracy(b.W_up, b.W_down).ok)
    return GenericInstance(b, seed)


STRATEGY = _instances()


def _common_scale(mats: list[list[list[Fraction]]]) -> int:
    den = 1
    for a in mats:
        for row in a:
            for v in row:
                den = den * v.denominator // np.gcd(den, v.denominator)
    return int(den)


def subset_norms(U: list, W: list, M: list) -> list[int]:
    """For every mask S (bit i <-> unit i): s^4 ||W_S U_S + M||_F^2 as an exact integer (s = scale)."""
    s = _common_scale([U, W, M])
    Ui = [[int(v * s) for v in row] for row in U]
    Wi = [[int(v * s) for v in row] for row in W]
    Mi = [[int(v * s * s) for v in row] for row in M]
    m, d = len(U), len(M)
    outer = [[Wi[a][i] * Ui[i][b] for a in range(d) for b in range(d)] for i in range(m)]
    # Gray-code walk: each step adds or removes one outer product (Python ints: exact, no overflow).
    acc = [v for row in Mi for v in row]
    norms = [0] * (1 << m)
    norms[0] = sum(v * v for v in acc)
    mask = 0
    for k in range(1, 1 << m):
        i = (k & -k).bit_length() - 1
        mask ^= 1 << i
        sign = 1 if mask >> i & 1 else -1
        oi = outer[i]
        acc = [x + sign * y for x, y in zip(acc, oi)]
        norms[mask] = sum(v * v for v in acc)
    return norms


def _evaluate(U: list, W: list, M: list) -> dict[str, Any]:
    m, d = len(U), len(M)
    s = _common_scale([U, W, M])
    norms = subset_norms(U, W, M)
    best = min(range(1 << m), key=lambda k: norms[k])
    m_norm2 = sum(v * v for row in M for v in row)
    zero_sets = [[i for i in range(m) if k >> i & 1] for k in range(1 << m) if norms[k] == 0]
    return {"subsets": 1 << m, "zero_subsets": zero_sets,
            "min_norm2": q_str(Fraction(norms[best], s**4)),
            "argmin_S": [i for i in range(m) if best >> i & 1],
            # p_S at W_down = 0 is ||M||^2 for every S: the polynomial is not identically zero.
            "p_S_at_W_down_0": q_str(m_norm2), "M_nonzero": m_norm2 != 0}


@oracle_check(CLAIM, STRATEGY, recheck=lambda c: recheck(c), precision="exact integers")
def check(inst: GenericInstance) -> Certificate:
    """Every W_S U_S + M is nonzero on a generic block, and each p_S is a nonzero polynomial."""
    b = inst.block
    U, W, M = qmat(b.W_up), qmat(b.W_down), qmat(b.skip())
    info = _evaluate(U, W, M)
    cross = None
    try:
        cross = [list(S) for S in exhaustive_search(b.W_up, b.W_down, b.skip())]
    except ImportError:  # search.py is optional here; the integer enumeration stands alone
        pass
    holds = info["M_nonzero"] and not info["zero_subsets"] and (cross is None or cross == [])
    data = {"W_up": smat(U), "W_down": smat(W), "M": smat(M), "seed": inst.seed,
            "nondegenerate": True, "search_cross_check": cross, **info}
    return Certificate(CLAIM, holds, exact=True, method="exact integer arithmetic over all 2^m sets",
                       data=data, reason="" if holds else "some S satisfies the condition")


def recheck(cert: dict[str, Any]) -> bool:
    """Re-verify from the data: recompute every subset norm and the value of p_S at W_down = 0."""
    try:
        d = cert["data"]
        U, W, M = qmat(d["W_up"]), qmat(d["W_down"]), qmat(d["M"])
        if len(U) > 12 or not _nondegenerate_q(U, W):
            return False
        info = _evaluate(U, W, M)
        return (info["M_nonzero"] and not info["zero_subsets"] and not d["zero_subsets"]
                and info["min_norm2"] == d["min_norm2"] and info["subsets"] == d["subsets"]
                and info["p_S_at_W_down_0"] == d["p_S_at_W_down_0"])
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return False
