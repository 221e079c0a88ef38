"""Oracle check of glu-flip: the sigmoid gate turns sign flips into the relu/gelu condition.

For a glu block B(x) = W_down (g(W_gate x) * W_up x) with g the sigmoid and an index set S
with W_down[:,S] W_up[S,:] = -M, the block B_S with the gate rows in S negated and the output
columns in S negated satisfies B_S(x) = Mx + B(x) (proof: proofs/informal/glu-flip.md, from
g(z) + g(-z) = 1). The check verifies W_S U_S = -M exactly and compares both sides with arb
ball enclosures at generated points, and checks g(z) + g(-z) = 1 in balls at every gate
pre-activation it used. The ball comparisons are evidence; the identity itself is proved.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from oracle.core import activations, arith
from oracle.core.strategies import condition_blocks
from oracle.claims.base import Certificate, oracle_check
from oracle.algebra.exact import (
    BALL_PREC, BALL_TOL, balls_agree, eval_ball, index_sum, matvec_q, qmat, qvec, smat, svec, to_arb
)

CLAIM = "glu-flip"


@dataclass
class GluInstance:
    """A glu block satisfying the index condition for S, and points to compare at."""

    block: Any
    S: tuple[int, ...]
    points: list[list[Fraction]]


@st.composite
def _instances(draw: st.DrawFn) -> GluInstance:
    inst = draw(condition_blocks(activation="glu", extra=draw(st.integers(0, 2)),
                                 skip=draw(st.sampled_from(["identity", "invertible"]))))
    d = inst.block.d
    coord = st.builds(Fraction, st.integers(-30, 30), st.sampled_from([1, 2, 3, 5, 8]))
    pts = draw(st.lists(st.lists(coord, min_size=d, max_size=d), min_size=2, max_size=4))
    return GluInstance(inst.block, inst.S, pts)


STRATEGY = _instances()


def flipped(W_gate: list, W_down: list, S: Any) -> tuple[list, list]:
    """Gate rows in S negated, output columns in S negated (exact)."""
    G = [[-v for v in row] if i in S else list(row) for i, row in enumerate(W_gate)]
    D = [[-v if j in S else v for j, v in enumerate(row)] for row in W_down]
    return G, D


def _flip_symmetry(z: Fraction) -> tuple[bool, float]:
    """Enclose g(z) + g(-z) - 1 for the sigmoid; True when the ball holds 0 and is tiny."""
    g = activations.get("glu").ball
    with arith.precision("ball", BALL_PREC):
        zb = to_arb(z)
        r = g(zb) + g(-zb) - 1
        width = float(r.rad()) + abs(float(r.mid()))
        return bool(r.contains(0)) and width < BALL_TOL, width


def verify(U: list, W: list, G: list, M: list, S: Any, pts: list) -> tuple[bool, dict[str, Any]]:
    """Exact W_S U_S = -M; ball comparison of Mx + B(x) and B_S(x); flip symmetry at the gate inputs."""
    alg = index_sum(U, W, S) == [[-v for v in row] for row in M]
    G2, W2 = flipped(G, W, S)
    rows, ok = [], alg
    sym_worst, sym_ok, n_sym = 0.0, True, 0
    for p in pts:
        lhs = eval_ball("glu", U, W, p, M=M, W_gate=G)
        rhs = eval_ball("glu", U, W2, p, W_gate=G2)
        good, width = balls_agree(lhs, rhs)
        rows.append({"x": svec(p), "diff_bound": width, "equal": good})
        ok = ok and good
        for z in matvec_q(G, p):
            s_ok, w = _flip_symmetry(z)
            sym_ok, sym_worst, n_sym = sym_ok and s_ok, max(sym_worst, w), n_sym + 1
    return ok and sym_ok, {"algebraic_identity": alg, "points": rows,
                           "flip_symmetry": {"checked": n_sym, "all_contain_0": sym_ok,
                                             "max_bound": sym_worst}}


@oracle_check(CLAIM, STRATEGY, recheck=lambda c: recheck(c), precision=f"arb {BALL_PREC} bits")
def check(inst: GluInstance) -> Certificate:
    """Check the glu sign flip on one instance."""
    b = inst.block
    U, W, G, M = qmat(b.W_up), qmat(b.W_down), qmat(b.W_gate), qmat(b.skip())
    pts = [qvec(p) for p in inst.points] + [[Fraction(0)] * b.d]
    ok, info = verify(U, W, G, M, inst.S, pts)
    data = {"W_up": smat(U), "W_down": smat(W), "W_gate": smat(G), "M": smat(M),
            "S": list(inst.S), **info}
    # exact: the verdict rests on the exact identity W_S U_S = -M and the proved flip lemma
    # (with g(z) + g(-z) = 1 re-derived by the activation catalog); the balls are evidence.
    return Certificate(CLAIM, ok, exact=ok,
                       method=f"exact W_S U_S = -M + proved flip identity; arb balls at {BALL_PREC} bits as evidence",
                       data=data, reason="" if ok else "flip identity not confirmed")


def recheck(cert: dict[str, Any]) -> bool:
    """Re-verify a glu-flip certificate from its data."""
    try:
        d = cert["data"]
        U, W, G, M = qmat(d["W_up"]), qmat(d["W_down"]), qmat(d["W_gate"]), qmat(d["M"])
        pts = [qvec(r["x"]) for r in d["points"]]
        if not pts or any(i < 0 or i >= len(U) for i in d["S"]):
            return False
        ok, _ = verify(U, W, G, M, tuple(d["S"]), pts)
        return ok
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return False

