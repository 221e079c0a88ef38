"""Claim depth-d1: in d = 1 the stack question is decided by the width pattern and F(1) F(-1).

Every bias-free relu stack on the line is F(x) = F(1) relu(x) + F(-1) relu(-x), and a plain stack
of widths (m'_1, ..., m'_N), biases allowed or not, equals such an F iff the pair (F(1), F(-1)) lies
in the class of the widths: "axes" (m'_1 = 1), "closed_quadrants" (m'_1 >= 2, some later width 1)
or "all" (proofs/informal/depth-d1.md).  The pair, the classes, the explicit plain stack, exact 1-D
piecewise-linear maps and the decisions are in oracle/algebra/stacks/d1.py (shared with
`absorb check`); the oracle check here cross-checks the class against a brute-force enumeration of
small plain stacks evaluated directly, and the biased stacks against two necessary conditions.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional, Sequence

from hypothesis import strategies as st

from oracle.core.rational import qvec, svec
from oracle.algebra.exact import safe_recheck
from oracle.algebra.stacks.d1 import (d1_class, d1_pair, decide_d1, decide_d1_biased, in_class,
                                      layers_as_pl_blocks, pl_blocks_from_json, pl_blocks_json,
                                      pl_constant_on_a_half_line, pl_equal, pl_injective, pl_stack,
                                      recheck_d1_decision)
from oracle.algebra.stacks.layers import Layer, layers_from_json, layers_to_json
from oracle.claims import coverage
from oracle.claims.base import Certificate, counterexample, oracle_check

CLAIM_D1 = "depth-d1"
Q = Fraction
BRUTE_VALUES = (-1, 0, 1, 2)   # weights of the brute-force enumeration
BRUTE_MAX_WEIGHTS = 6          # 4^6 = 4096 plain stacks per width tuple


# ================================================================ brute force (independent of the lemmas)

@functools.lru_cache(maxsize=64)
def brute_force_pairs(widths: tuple[int, ...], values: tuple[int, ...] = BRUTE_VALUES) -> frozenset:
    """Every pair (P(1), P(-1)) of the plain stacks of these widths with weights in `values`,
    evaluated directly (independent of the lemmas of depth-d1)."""
    vals = [Q(v) for v in values]
    pairs = set()
    for combo in itertools.product(vals, repeat=2 * sum(widths)):
        it = iter(combo)
        layers = []
        for m in widths:
            U = [[next(it)] for _ in range(m)]
            layers.append((U, [[next(it) for _ in range(m)]]))
        pairs.add(d1_pair(layers, None))
    return frozenset(pairs)


def _sign(v: Fraction) -> int:
    return (v > 0) - (v < 0)


def brute_force_report(widths: Sequence[int]) -> Optional[dict[str, Any]]:
    """Cross-check of the class by enumeration (None when the tuple is too large to enumerate)."""
    widths = tuple(widths)
    if 2 * sum(widths) > BRUTE_MAX_WEIGHTS:
        return None
    pairs = brute_force_pairs(widths)
    cls = d1_class(widths)
    outside = [p for p in pairs if not in_class(cls, *p)]
    signs = sorted({(_sign(a), _sign(b)) for a, b in pairs})
    expected = sorted((s, t) for s in (-1, 0, 1) for t in (-1, 0, 1) if in_class(cls, Q(s), Q(t)))
    return {"widths": list(widths), "values": list(BRUTE_VALUES), "stacks": len(BRUTE_VALUES) ** (2 * sum(widths)),
            "pairs": len(pairs), "outside_class": [svec(list(p)) for p in outside[:4]],
            "sign_classes": [list(s) for s in signs], "expected_sign_classes": [list(s) for s in expected],
            "ok": not outside and signs == expected}


@functools.lru_cache(maxsize=16)
def biased_brute_force(widths: tuple[int, ...]) -> Optional[dict[str, Any]]:
    """Every biased plain stack of these widths with weights and biases in {-1, 0, 1} (up to 8
    parameters), as exact PL maps: the count of those constant on a half-line and of the injective ones
    (parts (i), (ii) of the proof predict: all constant if the first width is 1, none injective if some
    width is 1)."""
    n = sum(3 * m + 1 for m in widths)
    if n > 8:
        return None
    const = inj = total = 0
    for combo in itertools.product((Q(-1), Q(0), Q(1)), repeat=n):
        it = iter(combo)
        blocks = []
        for m in widths:
            blocks.append({"v": [next(it) for _ in range(m)], "w": [next(it) for _ in range(m)],
                           "b_up": [next(it) for _ in range(m)], "b_down": next(it)})
        P = pl_stack(blocks, residual=False)
        total += 1
        const += pl_constant_on_a_half_line(P)
        inj += pl_injective(P)
    return {"widths": list(widths), "stacks": total, "constant_on_a_half_line": const, "injective": inj}


# ================================================================ the oracle check

@dataclass
class D1Instance:
    """A d = 1 residual stack (scalar skips, optional biases) and the plain widths to compare with."""

    layers: list[Layer]
    skips: list[Fraction]
    plain_widths: list[int] = field(default_factory=list)
    biases: Optional[list[tuple[list[Fraction], Fraction]]] = None   # (b_up, b_down) per block

    def size(self) -> dict[str, Any]:
        """d = 1, the widest layer and the depth, for the report's instance-size figure."""
        return {"d": 1, "m": max(len(U) for U, _ in self.layers), "depth": len(self.layers)}

    def subjects(self) -> list[coverage.Subject]:
        """The blocks in exact rationals (scalar skips, biases), for the coverage measurement."""
        out = []
        for k, (U, W) in enumerate(self.layers):
            bias = self.biases[k] if self.biases else None
            biased = bias is not None and (any(v != 0 for v in bias[0]) or bias[1] != 0)
            out.append(coverage.Subject([list(r) for r in U], [list(r) for r in W], [[self.skips[k]]], biased))
        return out


@st.composite
def d1_instances(draw: st.DrawFn) -> D1Instance:
    """d = 1 residual stacks: depth 1..3, widths 1..4, skips in {1, -1, 0, 1/2, 3} (1 most often),
    collinear rows on purpose (every d = 1 block of width >= 2 is degenerate), and plain widths
    equal to the stack's own half of the time, otherwise any tuple of length 1..3."""
    L = draw(st.integers(1, 3))
    widths = [draw(st.integers(1, 4)) for _ in range(L)]
    vals = st.integers(-6, 6).map(lambda n: Q(n, 2))
    layers = [([[draw(vals)] for _ in range(m)], [[draw(vals) for _ in range(m)]]) for m in widths]
    skips = [draw(st.sampled_from([Q(1), Q(1), Q(1), Q(-1), Q(0), Q(1, 2), Q(3)])) for _ in range(L)]
    if draw(st.booleans()):
        plain = list(widths)
    else:
        plain = [draw(st.integers(1, 3)) for _ in range(draw(st.integers(1, 3)))]
    biases = None
    if draw(st.integers(0, 3)) == 0:   # a quarter of the stacks are biased (the necessary conditions)
        biases = [([draw(vals) for _ in range(m)], draw(vals)) for m in widths]
    return D1Instance(layers, skips, plain, biases)


def _with_biases(layers: Sequence[Layer], skips: Sequence[Fraction], biases: Sequence[tuple]) -> list[dict[str, Any]]:
    blocks = layers_as_pl_blocks(layers, skips)
    for rec, (bu, bd) in zip(blocks, biases):
        rec["b_up"], rec["b_down"] = list(bu), bd
    return blocks


def _biased_certificate(inst: D1Instance) -> Certificate:
    blocks = _with_biases(inst.layers, inst.skips, inst.biases)
    dec = decide_d1_biased(blocks, inst.plain_widths)
    data: dict[str, Any] = {"pl_blocks": pl_blocks_json(blocks), "decision": dec}
    brute = biased_brute_force(tuple(inst.plain_widths))
    data["biased_brute_force"] = brute
    ok = True
    if brute is not None:
        if inst.plain_widths[0] == 1:
            ok = brute["constant_on_a_half_line"] == brute["stacks"]
        if 1 in inst.plain_widths:
            ok = ok and brute["injective"] == 0
    return Certificate(CLAIM_D1, ok, True, "exact rationals (1-D piecewise-linear maps)", data,
                       f"biased stack: {dec['verdict']}" + (f" ({dec['reason']})" if "reason" in dec else "")
                       if ok else "a plain stack violates part (i) or (ii)")


def d1_certificate(inst: D1Instance) -> Certificate:
    """Decide the instance by depth-d1 and cross-check by methods that do not use its proof."""
    if inst.biases is not None:
        return _biased_certificate(inst)
    dec = decide_d1(inst.layers, inst.skips, inst.plain_widths)
    data: dict[str, Any] = {"residual": layers_to_json(inst.layers), "skips": svec(inst.skips), "decision": dec}
    F = pl_stack(layers_as_pl_blocks(inst.layers, inst.skips), residual=True)
    ok = True
    if dec["absorbable"]:
        # The exact 1-D piecewise-linear comparison proves F = P without using Lemma 1.
        P = pl_stack(layers_as_pl_blocks(layers_from_json(dec["plain"]), None), residual=False)
        data["pl_equal"] = pl_equal(F, P)
        ok = dec["identity_at_pm1"] and data["pl_equal"]
    brute = brute_force_report(inst.plain_widths)
    data["brute_force"] = brute
    if brute is not None:
        ok = ok and brute["ok"]
        if not dec["absorbable"]:
            # No enumerated plain stack has F's pair (and so none equals F).
            a, b = qvec(dec["pair"])
            data["brute_force_hits_pair"] = (a, b) in brute_force_pairs(tuple(inst.plain_widths))
            ok = ok and not data["brute_force_hits_pair"]
    data["homogeneous"] = F(Q(2)) == 2 * F(Q(1)) and F(Q(-3)) == 3 * F(Q(-1)) and F(Q(0)) == 0
    ok = ok and data["homogeneous"]
    verdict = "a plain stack of these widths equals F" if dec["absorbable"] else "no plain stack of these widths equals F"
    return Certificate(CLAIM_D1, ok, True, "exact rationals (pair at +-1, exact 1-D piecewise-linear comparison)",
                       data, f"class {dec['class']}, pair {dec['pair']}: {verdict}" if ok else
                       "decision and cross-checks disagree")


@safe_recheck
def recheck_d1(cert: dict[str, Any]) -> bool:
    """Re-verify a depth-d1 certificate from its JSON alone."""
    if cert.get("claim") != CLAIM_D1 or not cert.get("holds"):
        return False
    data = cert["data"]
    if "pl_blocks" in data:
        blocks = pl_blocks_from_json(data["pl_blocks"])
        dec = data["decision"]
        if decide_d1_biased(blocks, dec["plain_widths"]) != dec:
            return False
        brute = data.get("biased_brute_force")
        return brute is None or biased_brute_force(tuple(dec["plain_widths"])) == brute
    layers = layers_from_json(data["residual"])
    skips = qvec(data["skips"])
    if len(skips) != len(layers) or len(layers[0][1]) != 1:
        return False
    dec = data["decision"]
    if not recheck_d1_decision(layers, skips, dec):
        return False
    if dec["absorbable"]:
        F = pl_stack(layers_as_pl_blocks(layers, skips), residual=True)
        P = pl_stack(layers_as_pl_blocks(layers_from_json(dec["plain"]), None), residual=False)
        if not pl_equal(F, P):
            return False
    brute = data.get("brute_force")
    if brute is not None:
        fresh = brute_force_report(dec["plain_widths"])
        if fresh != brute:
            return False
    return True


@oracle_check(CLAIM_D1, d1_instances(), recheck_d1, "exact rationals (pair at +-1, 1-D piecewise-linear maps)")
def check_d1(inst: Any) -> Certificate:
    """Certify depth-d1 on a d = 1 stack: the class, the construction, and the brute-force cross-check."""
    return d1_certificate(inst)


# ================================================================ boundary instance (bias_free)

def _biased_pair() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    res = [{"v": [Q(-1)], "w": [Q(1)], "b_up": [Q(-1)], "M": Q(1)}, {"v": [Q(1)], "w": [Q(0)], "M": Q(1)}]
    plain = [{"v": [Q(1)], "w": [Q(1)], "b_up": [Q(1)]}, {"v": [Q(1)], "w": [Q(1)], "b_down": Q(-1)}]
    return res, plain


@counterexample(claims=(CLAIM_D1,), dropped="bias_free",
                description="d = 1 with biases: x + relu(-x - 1) followed by y + 0 relu(y) equals "
                            "relu(x + 1) - 1, a biased plain stack of widths (1, 1), although "
                            "F(1) F(-1) = -1 != 0 (F is not homogeneous)")
def d1_biased() -> Certificate:
    """Drop bias_free: the pair (F(1), F(-1)) no longer decides (exact 1-D comparison)."""
    res, plain = _biased_pair()
    F, P = pl_stack(res, True), pl_stack(plain, False)
    a, b = F(Q(1)), F(Q(-1))
    eq = pl_equal(F, P)
    holds = eq and a * b != 0 and d1_class([1, 1]) == "axes"
    data = {"kind": "d1_biased", "residual": pl_blocks_json(res), "plain": pl_blocks_json(plain), "pair": svec([a, b]),
            "equal": eq, "knots": svec(list(F.on(P.knots).knots))}
    return Certificate(CLAIM_D1, holds, True, "exact rationals (1-D piecewise-linear comparison)", data,
                       "" if holds else "boundary facts failed")


@safe_recheck
def recheck_d1_counterexample(cert: dict[str, Any]) -> bool:
    """Re-verify the d = 1 biased boundary certificate from its data alone."""
    data = cert["data"]
    if data.get("kind") != "d1_biased":
        return False
    res, plain = pl_blocks_from_json(data["residual"]), pl_blocks_from_json(data["plain"])
    F, P = pl_stack(res, True), pl_stack(plain, False)
    return (pl_equal(F, P) and F(Q(1)) * F(Q(-1)) != 0 and [len(b["v"]) for b in plain] == [1, 1]
            and [len(b["v"]) for b in res] == [1, 1])
