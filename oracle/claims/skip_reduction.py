"""Claim skip-reduction (Lemma 4): an invertible skip matrix reduces to the identity.

For invertible M, F(x) = M x + W_down s(W_up x) equals M G(x) with the reduced block
G(x) = x + (M^-1 W_down) s(W_up x); the residual-free class is closed under
left-multiplying its output matrix by an invertible matrix, so F is absorbable iff G is.

The check verifies, in exact rationals:
  * M^-1 is an inverse of M, and M (M^-1 W_down) = W_down, M^-1 (M W_down) = W_down
    (left-multiplying the output matrix by M^-1 and back is the identity on blocks);
  * M G(x) = F(x) at sample points -- exactly for the piecewise-polynomial kinds, with arb
    balls for the others (there the decisive step is the exact matrix identity above, since
    F and M G share the same hidden vector; the balls are a consistency check);
  * for blocks built with W_down[:, S] W_up[S, :] = -M: the reduced block satisfies the same
    condition with -I, and the sign-flipped plain block of the reduced block, with its output
    matrix multiplied back by M, equals F at the sample points.

This module also holds the small JSON/evaluation helpers shared by the claim modules of
issue 3 (homogeneous, gated, depth): a certificate stores weights as float lists (a float's
JSON repr round-trips exactly) and points as exact rational strings.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any, Optional, Sequence

import numpy as np
from hypothesis import strategies as st

from oracle.core import activations, arith
from oracle.core.blocks import Block, exact_inverse
from oracle.core.rational import QMat, QVec, arb, qmat, qvec, smat, svec, to_arb
from oracle.core.strategies import ConditionInstance, blocks, condition_blocks
from oracle.claims.base import Certificate, oracle_check
from oracle.algebra.exact import (
    BALL_PREC, ball_str, block_from_json, block_to_json, has_exact_form, identity, matmul, matvec_q,
    property_is_proved, safe_recheck, skip_matrix
)

CLAIM = "skip-reduction"
Q = Fraction

# ================================================================ the reduction itself

def _output_pieces(b: Block, W_down: QMat, x: QVec, backend: str) -> list[Any]:
    """W_down h(x) for the hidden vector h of block b, with W_down given as exact Fractions."""
    plain = Block(b.activation, W_up=b.W_up, W_down=np.zeros((b.d, b.m)), W_gate=b.W_gate,
                  kind="plain")
    # The hidden vector: evaluate the plain block with W_down = e_i columns one at a time would
    # be wasteful, so compute it directly with the catalog function.
    act = b.act
    fn = act.exact if backend == "exact" else act.ball
    conv = (lambda v: v) if backend == "exact" else to_arb  # noqa: E731
    xs = [conv(v) for v in x]
    up = [sum((conv(Fraction(float(w))) * xi for w, xi in zip(row, xs)), conv(Fraction(0)))
          for row in plain.W_up]
    if b.gated:
        gp = [sum((conv(Fraction(float(w))) * xi for w, xi in zip(row, xs)), conv(Fraction(0)))
              for row in plain.W_gate]
        hidden = [fn(g) * u for g, u in zip(gp, up)]
    else:
        hidden = [fn(u) for u in up]
    return [sum((conv(w) * h for w, h in zip(row, hidden)), conv(Fraction(0))) for row in W_down]


def _reduction_facts(b: Block) -> tuple[Optional[QMat], dict[str, Any]]:
    """Exact inverse of M, reduced output matrix and the round-trip identities."""
    M = skip_matrix(b)
    Minv = exact_inverse(M)
    if Minv is None:  # pragma: no branch the claim's instances have an invertible M (declared samples M = identity, invertible)
        return None, {"M_invertible": False}
    W = qmat(b.W_down)
    Wred = matmul(Minv, W)
    facts = {
        "M_invertible": True,
        "M_inverse": smat(Minv),
        "W_down_reduced": smat(Wred),
        "M_times_Minv_is_I": matmul(M, Minv) == identity(b.d),
        "Minv_times_M_is_I": matmul(Minv, M) == identity(b.d),
        "M_times_reduced_is_W_down": matmul(M, Wred) == W,
        "Minv_times_M_W_down_is_W_down": matmul(Minv, matmul(M, W)) == W,
    }
    return Minv, facts


def _point_check(b: Block, Wred: QMat, x: QVec) -> dict[str, Any]:
    """Compare F(x) = Mx + B(x) with M G(x), G(x) = x + Wred h(x), at one point."""
    M = skip_matrix(b)
    if has_exact_form(b):
        F = [Fraction(v) for v in b.evaluate(x, "exact")]
        G = [xi + r for xi, r in zip(x, _output_pieces(b, Wred, x, "exact"))]
        MG = matvec_q(M, G)
        return {"x": svec(x), "F": svec(F), "M_G": svec(MG), "equal": F == MG,
                "backend": "exact"}
    F = b.evaluate(x, "ball", BALL_PREC)
    G = [to_arb(xi) + r for xi, r in zip(x, _output_pieces(b, Wred, x, "ball"))]
    MG = [sum((to_arb(mij) * gj for mij, gj in zip(row, G)), arb(0)) for row in M]
    diff = [f - g for f, g in zip(F, MG)]
    return {"x": svec(x), "F": [ball_str(v) for v in F], "M_G": [ball_str(v) for v in MG],
            "equal": all(dv.contains(0) and dv.rad() < arb(2) ** -90 for dv in diff),
            "backend": f"arb {BALL_PREC} bits"}


def _sign_flip_check(b: Block, Wred: QMat, S: Sequence[int], x: QVec) -> dict[str, Any]:
    """The plain block W (M Wred) s(D_S W_up x) against F(x) at one point."""
    up = np.asarray(b.W_up).copy()
    for i in S:
        up[i] = -up[i]
    Wback = matmul(skip_matrix(b), Wred)
    flipped = Block(b.activation, W_up=up, W_down=np.zeros((b.d, b.m)), kind="plain")
    if has_exact_form(b):
        F = [Fraction(v) for v in b.evaluate(x, "exact")]
        P = _output_pieces(flipped, Wback, x, "exact")
        return {"x": svec(x), "F": svec(F), "plain": svec(P), "equal": F == P}
    F = b.evaluate(x, "ball", BALL_PREC)
    P = _output_pieces(flipped, Wback, x, "ball")
    diff = [f - p for f, p in zip(F, P)]
    return {"x": svec(x), "F": [ball_str(v) for v in F], "plain": [ball_str(v) for v in P],
            "equal": all(dv.contains(0) and dv.rad() < arb(2) ** -90 for dv in diff)}


def default_points(d: int) -> list[QVec]:
    """Deterministic sample points: the basis vectors, their negatives and two mixed points."""
    pts = []
    for j in range(d):
        e = [Fraction(int(i == j)) for i in range(d)]
        pts += [e, [-v for v in e]]
    pts.append([Fraction(1 + 2 * i, 3 + i) * (-1) ** i for i in range(d)])
    pts.append([Fraction(5, 7) - Fraction(i, 2) for i in range(d)])
    return pts


def _unpack(instance: Any) -> tuple[Block, Optional[tuple[int, ...]], Optional[list[QVec]]]:
    """Accept a Block, a ConditionInstance, or (one of those, points)."""
    points = None
    if isinstance(instance, tuple) and len(instance) == 2 and not isinstance(instance[0], int):
        instance, points = instance
    if isinstance(instance, ConditionInstance):
        return instance.block, tuple(instance.S), points
    return instance, None, points


def _certify(data: dict[str, Any]) -> Certificate:
    """Recompute every fact of a skip-reduction certificate from its data (used by check and recheck)."""
    with arith.precision("ball", BALL_PREC):
        return _certify_at_prec(data)


def _certify_at_prec(data: dict[str, Any]) -> Certificate:
    b = block_from_json(data["block"])
    S = data.get("S")
    points = [qvec(p) for p in data["points"]]
    if b.kind != "residual":  # pragma: no branch every instance is a residual block (the strategy draws no plain one)
        return Certificate(CLAIM, False, False, "input", {}, "the block is not residual")
    if b.has_bias:  # pragma: no branch the claim is stated bias-free; its declared samples hold no bias (biased = false)
        return Certificate(CLAIM, False, False, "input", {}, "the claim is stated bias-free")
    Minv, facts = _reduction_facts(b)
    if Minv is None:  # pragma: no branch the claim's instances have an invertible M (declared samples M = identity, invertible)
        return Certificate(CLAIM, False, True, "exact rationals", facts,
                           "M is singular: hypothesis M_invertible fails, nothing to reduce")
    Wred = qmat(facts["W_down_reduced"])
    out: dict[str, Any] = {"block": data["block"], "points": data["points"], "reduction": facts,
                           "point_checks": [_point_check(b, Wred, x) for x in points]}
    ok = all(facts[k] for k in facts if k.startswith(("M_times", "Minv_times")))
    ok = ok and all(p["equal"] for p in out["point_checks"])
    exact = True
    if S is not None:
        S = [int(i) for i in S]
        U = qmat(b.W_up)
        W = qmat(b.W_down)
        US = [U[i] for i in S]
        cond = matmul([[row[i] for i in S] for row in W], US)
        cond_red = matmul([[row[i] for i in S] for row in Wred], US)
        negM = [[-v for v in r] for r in skip_matrix(b)]
        negI = [[-v for v in r] for r in identity(b.d)]
        sign_ok = b.act.odd_part_identity and not b.gated
        flips = [_sign_flip_check(b, Wred, S, x) for x in points] if sign_ok else []
        out["S"] = S
        out["condition"] = {"original_equals_minus_M": cond == negM,
                            "reduced_equals_minus_I": cond_red == negI,
                            "odd_part_identity": sign_ok,
                            "sign_flip_checks": flips}
        ok = ok and cond == negM and cond_red == negI and sign_ok
        ok = ok and all(f["equal"] for f in flips)
        # Away from the exact kinds the sign-flip equality rests on s(z) - s(-z) = z, which must
        # have been proved symbolically for the certificate to be called exact.
        if not has_exact_form(b):
            exact = property_is_proved(b.activation, "odd_part_identity")
    method = ("exact rationals" if has_exact_form(b)
              else f"exact matrix identities + arb balls at {BALL_PREC} bits")
    reason = ("F = M G with G the reduced block, checked exactly" if ok
              else "a reduction identity failed")
    return Certificate(CLAIM, ok, exact and ok, method, out, reason)


def _strategy() -> st.SearchStrategy:
    kinds = sorted(activations.CATALOG)
    odd = [n for n, a in activations.CATALOG.items() if a.odd_part_identity and not a.gated]
    point = lambda d: st.lists(  # noqa: E731
        st.builds(Fraction, st.integers(-8, 8), st.integers(1, 4)), min_size=d, max_size=d)
    plain = st.tuples(st.sampled_from(kinds), st.sampled_from(["identity", "invertible"])).flatmap(
        lambda ak: blocks(ak[0], max_d=3, max_m=4, skip=ak[1]))
    cond = st.sampled_from(odd).flatmap(
        lambda a: condition_blocks(a, skip="invertible", others=1))
    inst = st.one_of(plain, cond)

    def with_points(i: Any) -> st.SearchStrategy:
        d = (i.block if isinstance(i, ConditionInstance) else i).d
        return st.tuples(st.just(i), st.lists(point(d), min_size=1, max_size=3))
    return inst.flatmap(with_points)


STRATEGY = _strategy()


@safe_recheck
def recheck(cert: dict[str, Any]) -> bool:
    """Re-derive a skip-reduction certificate from its JSON and compare every stored fact."""
    data = cert["data"]
    if cert.get("claim") != CLAIM or not cert.get("holds"):
        return False
    again = _certify({"block": data["block"], "points": data["points"], "S": data.get("S")})
    if not again.holds or again.exact != cert["exact"]:
        return False
    # Every stored value must be what the weights give: a tampered point, weight or inverse fails.
    return again.data["reduction"] == data["reduction"] and \
        again.data["point_checks"] == data["point_checks"] and \
        again.data.get("condition") == data.get("condition")


def corners() -> list[Any]:
    """Always checked before the drawn instances: a bare block (no points given: the check uses
    default_points), a gelu block with an invertible skip, both in the claim's declared samples."""
    up, down = np.array([[1.0, -0.5], [2.0, 1.0]]), np.array([[0.5, 1.0], [-1.0, 0.25]])
    return [Block("relu2", W_up=up, W_down=down, M=np.eye(2)),
            Block("gelu", W_up=up, W_down=down, M=np.array([[1.0, 1.0], [0.0, 1.0]]))]


def _bump_point(c: dict[str, Any]) -> None:
    x = c["data"]["points"][0]
    x[0] = str(Fraction(x[0]) + 1)


# Edits of a holding certificate that the re-check must refuse.
FORGERIES = [("claim", lambda c: c.update(claim="forged")),
             ("exact", lambda c: c.update(exact=not c["exact"])),
             ("point", _bump_point)]


@oracle_check(CLAIM, STRATEGY, recheck, "exact rationals (relu-type), arb balls otherwise", examples=corners)
def check(instance: Any) -> Certificate:
    """Certify the reduction F = M G for a block with invertible M (and the condition, if given);
    a holding certificate must also have every forgery of FORGERIES refused by recheck."""
    b, S, points = _unpack(instance)
    points = points if points is not None else default_points(b.d)
    data = {"block": block_to_json(b), "points": [svec(p) for p in points],
            "S": list(S) if S is not None else None}
    cert = _certify(data)
    accepted = [n for n, edit in FORGERIES if cert.holds and recheck(_forged(cert.as_dict(), edit))]
    cert.data["forgeries_refused"] = not accepted
    return cert if not accepted else Certificate(
        CLAIM, False, False, cert.method, cert.data, "the re-check accepts forged certificates: " + ", ".join(accepted))


def _forged(cert: dict[str, Any], edit: Any) -> dict[str, Any]:
    bad = json.loads(json.dumps(cert))
    edit(bad)
    return bad
