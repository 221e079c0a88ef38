"""Oracle check of glu-flip: the sigmoid gate turns sign flips into the relu/gelu condition.

For a glu block B(x) = W_down (g(W_gate x) * W_up x) with g the sigmoid and an index set S
with W_down[:,S] W_up[S,:] = -M, the block B_S with the gate rows in S negated and the output
columns in S negated satisfies B_S(x) = Mx + B(x) (proof: proofs/informal/glu-flip.md, from
g(z) + g(-z) = 1). The check verifies W_S U_S = -M exactly and compares both sides with arb
ball enclosures at generated points, and checks g(z) + g(-z) = 1 in balls at every gate
pre-activation it used. The ball comparisons are evidence; the identity itself is proved.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import strategies as st

from oracle.algebra import construct
from oracle.core import activations, arith
from oracle.core.blocks import Block
from oracle.core.strategies import condition_blocks
from oracle.claims.base import Certificate, oracle_check
from oracle.core.rational import qmat, qvec, smat, svec, to_arb
from oracle.algebra.exact import BALL_PREC, BALL_TOL, balls_agree, eval_ball, index_sum, matvec_q

CLAIM = "glu-flip"


@dataclass
class GluInstance:
    """A glu block satisfying the index condition for S, and points to compare at."""

    block: Any
    S: tuple[int, ...]
    points: list[list[Fraction]]
    near_miss: bool = False  # one W_down[:, S] entry moved by 2^-30 off the condition


@st.composite
def _instances(draw: st.DrawFn) -> GluInstance:
    inst = draw(condition_blocks(activation="glu", d=draw(st.integers(1, 3)), extra=draw(st.integers(0, 2)),
                                 skip=draw(st.sampled_from(["identity", "invertible", "singular"])),
                                 require_nondegenerate=draw(st.booleans()),
                                 near_miss=draw(st.integers(0, 2)) == 0))
    d = inst.block.d
    coord = st.builds(Fraction, st.integers(-30, 30), st.sampled_from([1, 2, 3, 5, 8]))
    pts = draw(st.lists(st.lists(coord, min_size=d, max_size=d), min_size=2, max_size=4))
    return GluInstance(inst.block, inst.S, pts, inst.near_miss)


STRATEGY = _instances()


def flipped(W_gate: list, W_down: list, S: Any) -> tuple[list, list]:
    """Gate rows in S negated, output columns in S negated: the flip `absorb check` emits
    (construct.flip_block on a glu block), read back exactly."""
    f = lambda a: np.array([[float(v) for v in r] for r in a], dtype=np.float64)  # noqa: E731
    if any(Fraction(float(v)) != v for a in (W_gate, W_down) for r in a for v in r):
        raise ValueError("weights are not float64-exact")
    m, d = len(W_gate), len(W_down)
    probe = Block("glu", W_up=np.zeros((m, d)), W_down=f(W_down), W_gate=f(W_gate), kind="residual")
    plain, _ = construct.flip_block(probe, sorted(S))
    return qmat(plain.W_gate), qmat(plain.W_down)


def _flip_symmetry(z: Fraction) -> tuple[bool, float]:
    """Enclose g(z) + g(-z) - 1 for the sigmoid; True when the ball holds 0 and is tiny."""
    g = activations.get("glu").ball
    with arith.precision("ball", BALL_PREC):
        zb = to_arb(z)
        r = g(zb) + g(-zb) - 1
        width = float(r.rad()) + abs(float(r.mid()))
        return bool(r.contains(0)) and width < BALL_TOL, width


def verify(U: list, W: list, G: list, M: list, S: Any, pts: list,
           near_miss: bool = False) -> tuple[bool, dict[str, Any]]:
    """Exact W_S U_S = -M (or, for a near miss, exactly not); ball comparison of Mx + B(x) with
    B_S(x) + (M + W_S U_S) x (the flip identity, for any S); flip symmetry at the gate inputs;
    for a near miss, Mx + B(x) and B_S(x) told apart at a basis vector."""
    WU = index_sum(U, W, S)
    gap = [[a + b for a, b in zip(ra, rb)] for ra, rb in zip(M, WU)]  # M + W_S U_S
    alg = all(v == 0 for r in gap for v in r)
    G2, W2 = flipped(G, W, S)
    rows, ok = [], alg != near_miss
    sym_worst, sym_ok, n_sym = 0.0, True, 0
    apart = None
    if near_miss:
        d = len(M)
        j = next((j for j in range(d) if any(gap[a][j] for a in range(d))), None)
        if j is not None:  # pragma: no branch j is None only when M + W_S U_S = 0, i.e. alg, which a near miss already fails (ok = alg != near_miss)
            e = [Fraction(int(i == j)) for i in range(d)]
            same, width = balls_agree(eval_ball("glu", U, W, e, M=M, W_gate=G), eval_ball("glu", U, W2, e, W_gate=G2))
            apart = {"x": svec(e), "told_apart": not same, "diff_bound": width}
        ok = ok and apart is not None and apart["told_apart"]
    for p in pts:
        lhs = eval_ball("glu", U, W, p, M=M, W_gate=G)
        rhs = eval_ball("glu", U, W2, p, M=gap, W_gate=G2)
        good, width = balls_agree(lhs, rhs)
        rows.append({"x": svec(p), "diff_bound": width, "equal": good})
        ok = ok and good
        for z in matvec_q(G, p):
            s_ok, w = _flip_symmetry(z)
            sym_ok, sym_worst, n_sym = sym_ok and s_ok, max(sym_worst, w), n_sym + 1
    return ok and sym_ok, {"algebraic_identity": alg, "near_miss": near_miss, "told_apart": apart,
                           "points": rows,
                           "flip_symmetry": {"checked": n_sym, "all_contain_0": sym_ok,
                                             "max_bound": sym_worst}}


def _third(c: dict[str, Any]) -> None:
    c["data"]["W_gate"][0][0] = "1/3"


# Edits of a holding certificate that the re-check must refuse: an index outside the block, no
# points, a gate weight no float64 holds (the flip is read back through float64 blocks), a point.
FORGERIES = [("index out of range", lambda c: c["data"]["S"].append(len(c["data"]["W_up"]))),
             ("no points", lambda c: c["data"].update(points=[])),
             ("gate weight 1/3", _third),
             ("told_apart", lambda c: c["data"].update(told_apart={"forged": True}))]


def _forged(cert: dict[str, Any], edit: Any) -> dict[str, Any]:
    bad = json.loads(json.dumps(cert))
    edit(bad)
    return bad


@oracle_check(CLAIM, STRATEGY, recheck=lambda c: recheck(c), precision=f"arb {BALL_PREC} bits")
def check(inst: GluInstance) -> Certificate:
    """Check the glu sign flip on one instance; the re-check must refuse every forgery of FORGERIES."""
    cert = _check(inst)
    accepted = [n for n, edit in FORGERIES if cert.holds and recheck(_forged(cert.as_dict(), edit))]
    cert.data["forgeries_refused"] = not accepted
    return cert if not accepted else Certificate(
        CLAIM, False, False, cert.method, cert.data, "the re-check accepts forged certificates: " + ", ".join(accepted))


def _check(inst: GluInstance) -> Certificate:
    b = inst.block
    U, W, G, M = qmat(b.W_up), qmat(b.W_down), qmat(b.W_gate), qmat(b.skip())
    pts = [qvec(p) for p in inst.points] + [[Fraction(0)] * b.d]
    ok, info = verify(U, W, G, M, inst.S, pts, inst.near_miss)
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
        ok, again = verify(U, W, G, M, tuple(d["S"]), pts, bool(d["near_miss"]))
        return ok and again["told_apart"] == d["told_apart"]
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return False

