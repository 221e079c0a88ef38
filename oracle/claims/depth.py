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

from hypothesis import assume
from hypothesis import strategies as st

from oracle.core import activations, arith
from oracle.core.blocks import Stack
from oracle.core.rational import smat
from oracle.core.strategies import blocks
from oracle.algebra.exact import (identity, is_zero_matrix, recheck_variant, skip_matrix, stack_from_json,
                                  stack_to_json)
from oracle.algebra.stacks.layers import is_flat, skip_product
from oracle.claims.base import Certificate, oracle_check
from oracle.claims.gated import (BALL_PREC, NO_WITNESS, backend_for, directions, pair_data, ray_certificate,
                                 recheck_ray, stored_pair)

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


def _hypotheses(R: Stack, Q: Stack, identity_skips: bool) -> dict[str, Any]:
    d = R.blocks[0].d
    h = {
        "residual_blocks_residual": all(b.kind == "residual" for b in R.blocks),
        "plain_blocks_plain": all(b.kind == "plain" for b in Q.blocks),
        "res_blocks_flat": all(is_flat(b) for b in R.blocks),
        "plain_blocks_flat": all(is_flat(b) for b in Q.blocks),
        "d_pos": d > 0,
        "dims_match": Q.blocks[0].d == d,
        "skip_product_nonzero": not is_zero_matrix(skip_product(R)),
    }
    if identity_skips:
        h["identity_skips"] = all(skip_matrix(b) == identity(d) for b in R.blocks)
    return h


@arith.precision("ball", BALL_PREC)  # every ball of the certificate at BALL_PREC bits
def _certify(data: dict[str, Any], identity_skips: bool) -> Certificate:
    claim = CLAIM_ID if identity_skips else CLAIM_ANY
    R, Q = stack_from_json(data["residual"]), stack_from_json(data["plain"])
    hyp = _hypotheses(R, Q, identity_skips)
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


def _recheck(cert: dict[str, Any], identity_skips: bool) -> bool:
    R, Q = stored_pair(cert, CLAIM_ID if identity_skips else CLAIM_ANY, stack_from_json,
                       lambda R, Q: _hypotheses(R, Q, identity_skips))
    P = skip_product(R)
    if cert["data"]["skip_product"] != smat(P):
        return False
    return recheck_ray(R, Q, P, cert["data"]["ray"], backend_for(R.blocks + Q.blocks) == "exact")


recheck_identity_skips = recheck_variant(_recheck, True, "recheck_identity_skips",
                                         "Re-verify a depth-impossible certificate from its JSON alone.")
recheck_general_skips = recheck_variant(_recheck, False, "recheck_general_skips",
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
    if not identity_skips:
        assume(not is_zero_matrix(skip_product(R)))
    # Half of the candidates copy the residual stack's depth and widths (the paper's statement).
    if draw(st.booleans()):
        pw = widths
    else:
        pw = [draw(st.integers(1, 4)) for _ in range(draw(st.integers(1, 3)))]
    Q = Stack([draw(blocks(draw(st.sampled_from(KINDS)), d=d, m=m, skip="none")) for m in pw])
    return DepthInstance(R, Q, draw(directions(d)))


# ================================================================ registered checks

@oracle_check(CLAIM_ID, depth_instances(True), recheck_identity_skips,
              f"exact rationals (polynomial kinds), arb balls at {BALL_PREC} bits otherwise")
def check_identity_skips(instance: Any) -> Certificate:
    """Certify that a residual stack with identity skips is no composition of flat plain blocks."""
    return _certify(pair_data(instance, stack_to_json), True)


@oracle_check(CLAIM_ANY, depth_instances(False), recheck_general_skips,
              f"exact rationals (polynomial kinds), arb balls at {BALL_PREC} bits otherwise")
def check_general_skips(instance: Any) -> Certificate:
    """Certify the same with skips M_l whose product is nonzero (checked exactly)."""
    return _certify(pair_data(instance, stack_to_json), False)
