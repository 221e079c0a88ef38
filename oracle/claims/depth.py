"""Claims depth-impossible (Cor. 7) and depth-any.

A map is flat at 0 when it vanishes there and is o(|x|). Bias-free relu2, reglu, bilinear blocks
(homogeneous of degree 2) and swiglu, geglu blocks (gate vanishing and continuous at 0) are flat.
A residual stack F = F_L o ... o F_1 with F_l(x) = M_l x + B_l(x) is then P x + (flat) with
P = M_L ... M_1, while any composition of flat plain blocks, of any number and widths, is flat.
So F(t v)/t -> P v and the plain composition's quotient -> 0: when P v != 0 they differ.
(Flatness and the skip product are in oracle/algebra/stacks/layers.py, shared with `absorb check`.)

Certificate: the exact product P, a direction v with P v != 0, the first t = 2^-j where the two
compositions differ rigorously at t v (exact rationals when every block is polynomial, arb balls
otherwise), and a t where (F(tv) - Q(tv))/t is enclosed within a stated rational distance of P v
(less than half of max |(P v)_i|).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from oracle.core import activations, arith
from oracle.core.blocks import Stack
from oracle.core.rational import q_parse, q_str, smat
from oracle.core.strategies import blocks
from oracle.algebra.exact import (identity, is_zero_matrix, recheck_variant, skip_matrix, stack_from_json,
                                  stack_to_json)
from oracle.algebra.stacks.layers import is_flat, skip_product
from oracle.claims.base import Certificate, oracle_check
from oracle.claims.gated import (BALL_PREC, NO_WITNESS, corner_block, gate_at_0, backend_for, directions,
                                 failing_hypothesis_result, pair_data, refuse_forgeries, ray_certificate, recheck_ray, stored_pair)

CLAIM_ID = "depth-impossible"
CLAIM_ANY = "depth-any"
DIFFER = "the stacks differ rigorously at t v; the quotient is enclosed near M_L...M_1 v"
KINDS = activations.FLAT_AT_0   # the blocks flat at 0 (homogeneous of degree > 1, or g(0) = 0)


@dataclass
class DepthInstance:
    """A residual stack, a plain stack (any depth and widths), optionally a direction v."""

    residual: Stack
    plain: Stack
    direction: Optional[list[Fraction]] = None


def hypotheses_any(R: Stack, Q: Stack) -> dict[str, Any]:
    """depth-any's hypotheses: residual and plain stacks of flat blocks, a nonzero skip product."""
    d = R.blocks[0].d
    return {
        "residual_blocks_residual": all(b.kind == "residual" for b in R.blocks),
        "plain_blocks_plain": all(b.kind == "plain" for b in Q.blocks),
        "res_blocks_flat": all(is_flat(b) for b in R.blocks),
        "plain_blocks_flat": all(is_flat(b) for b in Q.blocks),
        "d_pos": d > 0,
        "dims_match": Q.blocks[0].d == d,
        "skip_product_nonzero": not is_zero_matrix(skip_product(R)),
    }


def hypotheses_identity(R: Stack, Q: Stack) -> dict[str, Any]:
    """depth-impossible's hypotheses: depth-any's and identity skips."""
    d = R.blocks[0].d
    return {**hypotheses_any(R, Q), "identity_skips": all(skip_matrix(b) == identity(d) for b in R.blocks)}


HYPOTHESES = {CLAIM_ID: hypotheses_identity, CLAIM_ANY: hypotheses_any}


@arith.precision("ball", BALL_PREC)  # every ball of the certificate at BALL_PREC bits
def _certify(data: dict[str, Any], claim: str) -> Certificate:
    R, Q = stack_from_json(data["residual"]), stack_from_json(data["plain"])
    hyp = HYPOTHESES[claim](R, Q)
    out: dict[str, Any] = {"residual": data["residual"], "plain": data["plain"],
                           "hypotheses": hyp, "direction": data.get("direction")}
    backend = backend_for(R.blocks + Q.blocks)
    method = "exact rationals" if backend == "exact" else f"arb balls at {BALL_PREC} bits"
    failed = [k for k, v in hyp.items() if v is False]
    if failed:
        return Certificate(claim, False, True, method, out, "hypothesis fails: " + ", ".join(failed))
    P = skip_product(R)
    out["skip_product"] = smat(P)
    out["ray"], ok = ray_certificate(R, Q, P, data.get("direction"), backend)
    return Certificate(claim, ok, ok, method, out, DIFFER if ok else NO_WITNESS)


def _recheck(cert: dict[str, Any], claim: str) -> bool:
    R, Q = stored_pair(cert, claim, stack_from_json, HYPOTHESES[claim])
    P = skip_product(R)
    return cert["data"]["skip_product"] == smat(P) and \
        recheck_ray(R, Q, P, cert["data"]["ray"], backend_for(R.blocks + Q.blocks) == "exact")


recheck_identity_skips = recheck_variant(_recheck, CLAIM_ID, "recheck_identity_skips",
                                         "Re-verify a depth-impossible certificate from its JSON alone.")
recheck_general_skips = recheck_variant(_recheck, CLAIM_ANY, "recheck_general_skips",
                                        "Re-verify a depth-any certificate from its JSON alone.")


# ================================================================ strategies

@st.composite
def depth_instances(draw: st.DrawFn, identity_skips: bool) -> DepthInstance:
    """A residual stack of 1..3 flat blocks and a plain stack of 1..3 flat blocks of any widths."""
    d = draw(st.integers(1, 3))
    L = draw(st.integers(1, 3))
    widths = [draw(st.integers(1, 4)) for _ in range(L)]
    skip = "identity" if identity_skips else draw(st.sampled_from(["any", "identity", "mixed"]))
    res = []
    for m in widths:
        sk = skip if skip != "mixed" else draw(st.sampled_from(["any", "identity", "singular"]))
        res.append(draw(blocks(draw(st.sampled_from(KINDS)), d=d, m=m, skip=sk)))
    R = Stack(res)
    assume(not is_zero_matrix(skip_product(R)))  # always true for identity skips (the product is I)
    # Half of the candidates copy the residual stack's depth and widths (the paper's statement).
    if draw(st.booleans()):
        pw = widths
    else:
        pw = [draw(st.integers(1, 4)) for _ in range(draw(st.integers(1, 3)))]
    Q = Stack([draw(blocks(draw(st.sampled_from(KINDS)), d=d, m=m, skip="none")) for m in pw])
    return DepthInstance(R, Q, draw(directions(d)))


# ================================================================ corner instances
# Always checked before the drawn ones: an instance given as a tuple, and one instance per
# hypothesis that fails it alone.  On the latter the check must say that the claim does not
# apply, and code written apart from the hypothesis tests (INDEPENDENT_FAILS) must confirm that
# this hypothesis fails (see oracle/claims/gated.py for the same pattern).

@dataclass
class FailingHypothesisInstance(DepthInstance):
    """A pair of stacks on which exactly the hypothesis ``expect`` fails."""

    expect: str = ""


def _not_flat(b: Any) -> bool:
    """A gated block whose gate is nonzero at 0 (enclosed in a ball) and W_down W_up != 0 has the
    linear part g(0) W_down W_up at 0: it is not o(|x|)."""
    return b.act.gated and not gate_at_0(b.activation).contains(0) and bool(np.any(b.W_down @ b.W_up != 0))


def _float_product(R: Stack) -> np.ndarray:
    P = np.eye(R.blocks[0].d)
    for b in R.blocks:
        P = np.asarray(b.M, dtype=np.float64) @ P  # small dyadic entries: the products are exact
    return P


INDEPENDENT_FAILS: dict[str, Any] = {
    "skip_product_nonzero": lambda R, Q: not np.any(_float_product(R) != 0),
    "res_blocks_flat": lambda R, Q: any(_not_flat(b) for b in R.blocks),
    "plain_blocks_flat": lambda R, Q: any(_not_flat(b) for b in Q.blocks),
}

_W2 = [[[1, -1], [0.5, 2]], [[2, 1], [-1, 0.5]], [[1, 0], [-0.5, 1]]]
_W1 = [[[1, 2]], [[-1, 1]], [[1], [-0.5]]]
_I2, _N2, _R1 = [[1, 0], [0, 1]], [[0, 1], [0, 0]], [[1, 2], [0.5, 1]]


def identity_corners() -> list[Any]:
    """depth-impossible's corners: a tuple, a residual and a plain glu block (a skip other than the
    identity would lie outside the claim's declared samples, M = identity)."""
    return [(Stack([corner_block("swiglu", _W2, _I2), corner_block("reglu", _W1, _I2)]), Stack([corner_block("geglu", _W1, None)])),
            FailingHypothesisInstance(Stack([corner_block("glu", _W2, _I2)]), Stack([corner_block("reglu", _W1, None)]),
                                      None, "res_blocks_flat"),
            FailingHypothesisInstance(Stack([corner_block("bilinear", _W2, _I2)]), Stack([corner_block("glu", _W1, None)]),
                                      None, "plain_blocks_flat")]


def any_corners() -> list[Any]:
    """depth-any's corners: a tuple with a direction, nonzero skips whose product is 0, a residual
    and a plain glu block."""
    return [(Stack([corner_block("reglu", _W2, _R1)]), Stack([corner_block("bilinear", _W1, None)] * 2),
             [Fraction(1), Fraction(0)]),
            FailingHypothesisInstance(Stack([corner_block("swiglu", _W2, _N2), corner_block("geglu", _W1, _N2)]),
                                      Stack([corner_block("geglu", _W1, None)]), None, "skip_product_nonzero"),
            FailingHypothesisInstance(Stack([corner_block("glu", _W2, _R1)]), Stack([corner_block("reglu", _W1, None)]),
                                      None, "res_blocks_flat"),
            FailingHypothesisInstance(Stack([corner_block("reglu", _W2, _R1)]), Stack([corner_block("glu", _W1, None)]),
                                      None, "plain_blocks_flat")]


def _checked(instance: Any, claim: str, recheck: Any) -> Certificate:
    """The claim's certificate; a holding one also has every forgery of the ray record and of the
    skip product refused by ``recheck``; on a failing-hypothesis corner: that the claim does not
    apply, the one failing hypothesis confirmed independently."""
    cert = _certify(pair_data(instance, stack_to_json), claim)
    if isinstance(instance, FailingHypothesisInstance):
        indep = bool(INDEPENDENT_FAILS[instance.expect](instance.residual, instance.plain))
        return failing_hypothesis_result(cert, claim, instance.expect, indep)
    extra = [("skip product", lambda c: c["data"]["skip_product"][0].__setitem__(
        0, q_str(q_parse(c["data"]["skip_product"][0][0]) + 1)))]
    return refuse_forgeries(cert, recheck, extra)


def _recheck_any(cert: dict[str, Any], claim: str) -> bool:
    data = cert.get("data") or {}
    if data.get("kind") != "failing_hypothesis":
        return _recheck(cert, claim)
    R, Q = stack_from_json(data["residual"]), stack_from_json(data["plain"])
    hyp = HYPOTHESES[claim](R, Q)
    failed = [k for k, v in hyp.items() if v is False]
    return (cert.get("claim") == claim and cert.get("holds") is True and hyp == data["hypotheses"]
            and failed == [data["expect"]] == data["failed"] and bool(INDEPENDENT_FAILS[data["expect"]](R, Q)))


recheck_identity_any = recheck_variant(_recheck_any, CLAIM_ID, "recheck_identity_any",
                                       "recheck_identity_skips, or for a failing-hypothesis corner: recomputed.")
recheck_general_any = recheck_variant(_recheck_any, CLAIM_ANY, "recheck_general_any",
                                      "recheck_general_skips, or for a failing-hypothesis corner: recomputed.")


# ================================================================ registered checks

@oracle_check(CLAIM_ID, depth_instances(True), recheck_identity_any,
              f"exact rationals (polynomial kinds), arb balls at {BALL_PREC} bits otherwise",
              examples=identity_corners)
def check_identity_skips(instance: Any) -> Certificate:
    """Certify that a residual stack with identity skips is no composition of flat plain blocks
    (on a failing-hypothesis corner: that the claim does not apply)."""
    return _checked(instance, CLAIM_ID, recheck_identity_skips)


@oracle_check(CLAIM_ANY, depth_instances(False), recheck_general_any,
              f"exact rationals (polynomial kinds), arb balls at {BALL_PREC} bits otherwise",
              examples=any_corners)
def check_general_skips(instance: Any) -> Certificate:
    """Certify the same with skips M_l whose product is nonzero (checked exactly; on a
    failing-hypothesis corner: that the claim does not apply)."""
    return _checked(instance, CLAIM_ANY, recheck_general_skips)
