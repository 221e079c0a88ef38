"""Claim depth-near-identity: two relu blocks near the identity in d >= 3.

For F = (I + B_2) o (I + B_1), d >= 3, both blocks homeomorphisms (certified by |W_l| |U_l| < 1),
nondegenerate, with the sheets in general position (G1, G2) and enough bend edges (bend_count), F is a
plain relu stack of widths (m_1, m_2) iff both blocks have index sets W_S U_S = -I; under the norm bound
they never do (proofs/informal/depth-near-identity.md).  Every hypothesis is decided in exact
rationals by oracle/algebra/stacks/near_identity.py (shared with `absorb check`); the check here
also refutes every sign-flip stack and a random candidate at exact points.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional, Sequence

from hypothesis import assume
from hypothesis import strategies as st

from oracle.core.rational import qvec, svec
from oracle.algebra.exact import all_index_sets_exact, dot, identity, safe_recheck
from oracle.algebra.stacks.layers import (Layer, apply_layer, canonical_form, check_difference, eval_stack,
                                          find_difference, layers_from_json, layers_to_json, rational_points)
from oracle.algebra.stacks.near_identity import (index_set_breaks_g1, near_identity_conditions,
                                                 other_hypotheses, recheck_conditions)
from oracle.claims import coverage
from oracle.claims.base import Certificate, counterexample, oracle_check

CLAIM_NI = "depth-near-identity"
Q = Fraction


# ================================================================ the oracle check

@dataclass
class NearIdentityInstance:
    """Two exact relu layers (d >= 3), a candidate plain stack to refute, and the bend-search seed."""

    layers: list[Layer]
    candidate: Optional[list[Layer]] = None
    seed: int = 0

    def size(self) -> dict[str, Any]:
        """d, the widest layer and the depth, for the report's instance-size figure."""
        return {"d": len(self.layers[0][1]), "m": max(len(U) for U, _ in self.layers), "depth": 2}

    def subjects(self) -> list[coverage.Subject]:
        """The two layers as bias-free blocks with identity skips, for the coverage measurement."""
        d = len(self.layers[0][1])
        return [coverage.Subject([list(r) for r in U], [list(r) for r in W], identity(d), False)
                for U, W in self.layers]


@st.composite
def near_identity_instances(draw: st.DrawFn) -> NearIdentityInstance:
    """d in {3, 4}; widths below, at and above d (d = 3: m_2 in 1..4, m_1 in 1..5 with m_1 < 2 m_2, the
    range where bend_count can hold; d = 4: m_1 in 1..4, m_2 in 1..3); |W_l| |U_l| < 1. About half of
    the draws are d = 3 with widths (4, 4) or (5, 4): both widths >= d + 1, the only widths for which
    the claim is not settled by the small-widths remark (a plain block of width <= d is never onto)."""
    if draw(st.booleans()):
        d, m2 = 3, 4
        m1 = draw(st.integers(4, 5))
    else:
        d = draw(st.integers(3, 4))
        m2 = draw(st.integers(1, 4 if d == 3 else 3))
        m1 = draw(st.integers(1, min(5, 2 * m2 - 1) if d == 3 else 4))
    layers = []
    for m in (m1, m2):
        U = [[Q(draw(st.integers(-8, 8).filter(bool)), 8) for _ in range(d)] for _ in range(m)]
        den = 8 * 4 * m * d
        W = [[Q(draw(st.integers(-8, 8).filter(bool)), den) for _ in range(m)] for _ in range(d)]
        layers.append((U, W))
    # the bend-edge search is seeded: the hypotheses are decided with the seed the check will use
    seed = draw(st.integers(0, 1000))
    assume(near_identity_conditions(layers, seed)["applies"])
    cand = [([[Q(draw(st.integers(-4, 4)), 2) for _ in range(d)] for _ in range(w)],
             [[Q(draw(st.integers(-4, 4)), 2) for _ in range(w)] for _ in range(d)]) for w in (m1, m2)]
    return NearIdentityInstance(layers, cand, seed)


def _flip(U: list, S: Sequence[int]) -> list:
    return [[-v for v in u] if i in S else list(u) for i, u in enumerate(U)]


def flip_candidates(layers: Sequence[Layer]) -> list[tuple[list[int], list[int], list[Layer]]]:
    """Every sign-flip stack: negate the rows of U_1 in S_1 and of U_2 in S_2 (2^{m_1 + m_2} stacks)."""
    (U1, W1), (U2, W2) = layers
    out = []
    for k1 in range(len(U1) + 1):
        for S1 in itertools.combinations(range(len(U1)), k1):
            for k2 in range(len(U2) + 1):
                for S2 in itertools.combinations(range(len(U2)), k2):
                    out.append((list(S1), list(S2), [(_flip(U1, S1), W1), (_flip(U2, S2), W2)]))
    return out


def near_identity_certificate(inst: NearIdentityInstance) -> Certificate:
    """Hypotheses decided exactly; the verdict; every sign-flip stack and a candidate refuted exactly."""
    layers = inst.layers
    cond = near_identity_conditions(layers, inst.seed)
    data: dict[str, Any] = {"residual": layers_to_json(layers), "conditions": cond}
    if not cond["applies"]:
        return Certificate(CLAIM_NI, False, True, "exact rationals", data,
                           f"hypotheses of depth-near-identity do not hold: {cond.get('reason')}")
    if all(cond["index_sets"]):   # impossible under the norm bound; kept as a check of that step
        return Certificate(CLAIM_NI, False, True, "exact rationals", data,
                           "a block has an index set although |W| |U| < 1")
    refuted = []
    pts = [x for x in rational_points(cond["d"], 40, inst.seed) if any(x)]
    fx = [eval_stack(layers, x, True) for x in pts]
    for S1, S2, cand in flip_candidates(layers):
        wit = None
        for x, f in zip(pts, fx):
            px = eval_stack(cand, x, False)
            if px != f:
                wit = {"x": svec(x), "F": svec(f), "P": svec(px)}
                break
        if wit is None:
            return Certificate(CLAIM_NI, False, True, "exact rationals", data,
                               f"sign-flip stack {S1}, {S2} not refuted")
        refuted.append({"S1": S1, "S2": S2, "difference": wit})
    data["flip_stacks_refuted"] = refuted
    if inst.candidate is not None:
        data["candidate"] = layers_to_json(inst.candidate)
        wit = find_difference(layers, inst.candidate, inst.seed)
        data["difference"] = wit
        if wit is None:
            return Certificate(CLAIM_NI, False, True, "exact rationals", data, "candidate not refuted")
    return Certificate(CLAIM_NI, True, True, "exact rationals", data,
                       f"d = {cond['d']}, widths {cond['widths']}: near-identity blocks with generic sheets and "
                       f"bend counts {cond['k']}, no index set: F is no plain stack of these widths; "
                       f"{len(refuted)} sign-flip stacks and a random candidate differ at exact points")


@safe_recheck
def recheck_near_identity(cert: dict[str, Any]) -> bool:
    """Re-verify a depth-near-identity certificate from its JSON alone."""
    if cert.get("claim") != CLAIM_NI or not cert.get("holds"):
        return False
    data = cert["data"]
    layers = layers_from_json(data["residual"])
    cond = data["conditions"]
    if not recheck_conditions(layers, cond) or all(cond["index_sets"]):
        return False
    flips = {(tuple(S1), tuple(S2)): cand for S1, S2, cand in flip_candidates(layers)}
    if len(data["flip_stacks_refuted"]) != len(flips):
        return False
    fcache: dict[tuple, list] = {}
    for rec in data["flip_stacks_refuted"]:
        wit = rec["difference"]
        x = qvec(wit["x"])
        key = tuple(x)
        if key not in fcache:
            fcache[key] = eval_stack(layers, x, True)
        px = eval_stack(flips[(tuple(rec["S1"]), tuple(rec["S2"]))], x, False)
        if px == fcache[key] or svec(fcache[key]) != wit["F"] or svec(px) != wit["P"]:
            return False
    if "candidate" in data:
        return check_difference(layers, layers_from_json(data["candidate"]), data["difference"])
    return True


@oracle_check(CLAIM_NI, near_identity_instances(), recheck_near_identity,
              "exact rationals (normal tables, exact bend points)")
def check_near_identity(inst: Any) -> Certificate:
    """Certify depth-near-identity's hypotheses exactly (d >= 3, two near-identity blocks) and its verdict."""
    return near_identity_certificate(inst)


# ================================================================ boundary instance (homeomorphic_blocks)

def _folded() -> tuple[list[Layer], list[Layer]]:
    I3 = identity(3)
    neg = [[-v for v in r] for r in I3]
    U2 = [[Q(-1), Q(0), Q(0)], [Q(0), Q(-1), Q(0)], [Q(0), Q(0), Q(-1)], [Q(1), Q(1), Q(1)]]
    res = [(I3, neg), (U2, [[Q(2), Q(0), Q(0), Q(1)], [Q(0), Q(3), Q(0), Q(-1)], [Q(0), Q(0), Q(4), Q(1)]])]
    plain = [(neg, neg), (U2, [[Q(1), Q(0), Q(0), Q(1)], [Q(0), Q(2), Q(0), Q(-1)], [Q(0), Q(0), Q(3), Q(1)]])]
    return res, plain


def folded_identity(res: Sequence[Layer], plain: Sequence[Layer]) -> dict[str, Any]:
    """F = P exactly for the folded d = 3 instance: (1) block 1 and plain layer 1 are the same map
    (equal canonical forms); (2) both map R^3 onto the closed negative orthant K (every output is
    -relu(-x)); (3) on K every pre-activation of the second layers has one sign (checked on K's
    generators -e_k), so both second layers are linear on K, and they agree on the generators."""
    d = 3
    (U1, W1), (U2, W2) = res
    (V1, X1), (V2, X2) = plain
    same_first = canonical_form(U1, W1, identity(d)) == canonical_form(V1, X1)
    gens = [[Q(-1) if a == k else Q(0) for a in range(d)] for k in range(d)]
    def one_sign(U: list) -> bool:
        return all(all(dot(u, g) >= 0 for g in gens) or all(dot(u, g) <= 0 for g in gens) for u in U)
    linear_on_K = one_sign(U2) and one_sign(V2)
    agree = all(apply_layer((U2, W2), g, True) == apply_layer((V2, X2), g, False) for g in gens)
    neg = [[-v for v in r] for r in identity(d)]
    into_K = V1 == neg and X1 == neg        # the plain first layer is x -> -relu(-x), with values in K
    return {"same_first_layer": same_first, "plain_first_layer_is_minus_relu_minus": into_K,
            "second_layers_linear_on_orthant": linear_on_K, "agree_on_generators": agree,
            "ok": same_first and into_K and linear_on_K and agree}


@counterexample(claims=(CLAIM_NI,), dropped="homeomorphic_blocks",
                description="d = 3, folded stack: x + B_1(x) = -relu(-x) maps R^3 onto the closed "
                            "negative orthant (no homeomorphism), where the fourth unit of B_2 (row "
                            "(1, 1, 1)) is dead; F equals a plain stack of widths (3, 4) although B_2 "
                            "has no index set. It does not isolate homeomorphic_blocks: it also fails "
                            "sheets_generic (G1 at D = {} and, forced by block 1's index set, at "
                            "D = {0, 1, 2}; G2) and bend_count (k = 0, 0, 0), all decided exactly")
def near_identity_folded() -> Certificate:
    """Drop the homeomorphism hypothesis: a d = 3 stack without index sets in block 2 is plain."""
    res, plain = _folded()
    ident = folded_identity(res, plain)
    I3 = identity(3)
    S1 = all_index_sets_exact(*res[0], I3)
    S2 = all_index_sets_exact(*res[1], I3)
    U1, W1 = res[0]
    not_homeo = apply_layer(res[0], [Q(1), Q(1), Q(1)], True) == [Q(0)] * 3   # a nonzero point goes to 0
    pts = [[Q(1), Q(-2), Q(3)], [Q(-3), Q(1), Q(2)], [Q(2), Q(5), Q(-7)]]
    at_points = all(eval_stack(res, x, True) == eval_stack(plain, x, False) for x in pts)
    holds = ident["ok"] and not_homeo and S2 == [] and bool(S1) and at_points and \
        [len(U) for U, _ in res] == [len(U) for U, _ in plain]
    others = other_hypotheses(res)
    forced = index_set_breaks_g1(res, S1[0]) if S1 else None
    data = {"kind": "near_identity_folded", "residual": layers_to_json(res), "plain": layers_to_json(plain),
            "identity": ident, "index_sets": [[list(s) for s in S1], [list(s) for s in S2]],
            "block1_kills_a_nonzero_point": not_homeo,
            # what the instance does not isolate: the other hypotheses it fails, decided exactly
            "isolates_dropped_hypothesis": False, "other_hypotheses": others,
            "G1_forced_by_index_set": forced}
    return Certificate(CLAIM_NI, holds, True, "exact rationals (canonical form and the orthant argument)",
                       data, "" if holds else "boundary facts failed")


@safe_recheck
def recheck_near_identity_counterexample(cert: dict[str, Any]) -> bool:
    """Re-verify the folded boundary certificate from its data alone."""
    data = cert["data"]
    if data.get("kind") != "near_identity_folded":
        return False
    res, plain = layers_from_json(data["residual"]), layers_from_json(data["plain"])
    I3 = identity(3)
    S1 = all_index_sets_exact(*res[0], I3)
    if data.get("other_hypotheses") != json.loads(json.dumps(other_hypotheses(res))) or \
            data.get("G1_forced_by_index_set") != (index_set_breaks_g1(res, S1[0]) if S1 else None):
        return False
    return (folded_identity(res, plain)["ok"] and all_index_sets_exact(*res[1], I3) == []
            and apply_layer(res[0], [Q(1), Q(1), Q(1)], True) == [Q(0)] * 3
            and [len(U) for U, _ in res] == [len(U) for U, _ in plain])
