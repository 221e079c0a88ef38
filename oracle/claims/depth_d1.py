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
import json
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional, Sequence

from hypothesis import strategies as st

from oracle.core.rational import qvec, svec
from oracle.algebra.exact import safe_recheck
from oracle.algebra.stacks.d1 import (biased_layers_from_json, d1_class, d1_pair, decide_d1, decide_d1_biased,
                                      in_class, kink_bound, layers_as_pl_blocks, one_layer, pl_blocks_from_json,
                                      pl_blocks_json, pl_constant_on_a_half_line, pl_equal, pl_injective, pl_kinks,
                                      pl_stack, recheck_d1_biased, recheck_d1_decision)
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


# ================================================================ cross-checks independent of the drawn widths
# The brute force above covers only the plain widths a draw names, and only small ones; the class
# table below covers every width tuple of the drawn range at once, by a separately written
# enumeration on sign pairs.  A residual stack whose skips are all 0 is literally a plain stack of its
# own widths, so its verdict is known without any lemma (positive verdicts checked, biased ones too).
# The exact piecewise-linear map behind the biased verdicts is compared with direct evaluation.

CLASS_TABLE_MAX_DEPTH = 3
CLASS_TABLE_MAX_WIDTH = 4


def _sgn(v: Any) -> int:
    return (v > 0) - (v < 0)


def _layer_signs(p: int, q: int, m: int) -> set:
    """The sign pairs (sign y(1), sign y(-1)) one plain layer of width m can output from an input pair
    of signs (p, q), by enumerating units v in {1, -1} and outputs w in {-1, 0, 1} (at most 3 units).
    Exact on signs: scaling the two input values by positive factors scales the two output coordinates
    by the same factors, and relu(v p), relu(-v p) are never both nonzero, so the output signs depend
    only on the input signs and the signs of the outputs w."""
    k = min(m, 3)
    vecs = [(max(v * p, 0), max(v * q, 0)) for v in (1, -1)]
    out = set()
    for units in itertools.product(vecs, repeat=k):
        for ws in itertools.product((-1, 0, 1), repeat=k):
            out.add((_sgn(sum(w * u[0] for w, u in zip(ws, units))), _sgn(sum(w * u[1] for w, u in zip(ws, units)))))
    return out


@functools.lru_cache(maxsize=None)
def reachable_sign_pairs(widths: tuple[int, ...]) -> frozenset:
    """Every sign pair (sign P(1), sign P(-1)) of bias-free plain stacks of these widths, layer by layer
    from the input pair (1, -1) (the identity at +-1); written apart from d1_class and in_class."""
    states = {(1, -1)}
    for m in widths:
        states = set().union(*(_layer_signs(p, q, m) for p, q in states))
    return frozenset(states)


def class_table() -> dict[str, Any]:
    """d1_class and in_class against reachable_sign_pairs for EVERY width tuple of length
    1..CLASS_TABLE_MAX_DEPTH with widths 1..CLASS_TABLE_MAX_WIDTH (the range the strategy draws).
    Recomputed on every call (cheap: the enumeration is cached, d1_class is not trusted to be)."""
    tuples = [w for L in range(1, CLASS_TABLE_MAX_DEPTH + 1)
              for w in itertools.product(range(1, CLASS_TABLE_MAX_WIDTH + 1), repeat=L)]
    disagree = []
    for w in tuples:
        cls = d1_class(w)
        expected = {(s, t) for s in (-1, 0, 1) for t in (-1, 0, 1) if in_class(cls, Q(s), Q(t))}
        if expected != set(reachable_sign_pairs(w)):
            disagree.append({"widths": list(w), "class": cls})
    return {"tuples": len(tuples), "disagree": disagree[:8], "ok": not disagree}


def _eval_biased(blocks: Sequence[dict[str, Any]], x: Fraction) -> Fraction:
    """A biased d = 1 residual stack (PL blocks with 'M') at x, by direct evaluation."""
    for blk in blocks:
        bu = blk.get("b_up") or [Q(0)] * len(blk["v"])
        y = Q(blk.get("M", 1)) * x + Q(blk.get("b_down", 0))
        for v, w, c in zip(blk["v"], blk["w"], bu):
            y += Q(w) * max(Q(v) * x + Q(c), Q(0))
        x = y
    return x


def _pl_matches_direct(blocks: Sequence[dict[str, Any]]) -> bool:
    """The exact PL map of a biased stack against direct evaluation at its knots, between them and
    beyond both ends (two points each side, which fixes the end slopes)."""
    F = pl_stack(blocks, residual=True)
    ks = list(F.knots)
    pts = ks + [(a + b) / 2 for a, b in zip(ks, ks[1:])] + [ks[0] - 1, ks[0] - 2, ks[-1] + 1, ks[-1] + 2]
    if any(F(x) != _eval_biased(blocks, x) for x in pts):
        return False
    return (F(ks[0] - 1) - F(ks[0] - 2) == F.left and F(ks[-1] + 2) - F(ks[-1] + 1) == F.right)


def _skips_all_zero(inst: D1Instance) -> bool:
    return all(s == 0 for s in inst.skips) and list(inst.plain_widths) == [len(U) for U, _ in inst.layers]


def d1_cross_checks(inst: D1Instance, dec: dict[str, Any]) -> dict[str, Any]:
    """The checks that do not depend on which plain widths were drawn (see above)."""
    problems = []
    table = class_table()
    if not table["ok"]:
        problems.append(f"d1_class disagrees with the enumeration of sign pairs on {table['disagree']}")
    plain_itself = _skips_all_zero(inst)
    if inst.biases is not None:
        blocks = _with_biases(inst.layers, inst.skips, inst.biases)
        if not _pl_matches_direct(blocks):
            problems.append("the exact piecewise-linear map differs from direct evaluation")
        if plain_itself and dec.get("verdict") == "not_absorbable":
            problems.append("all skips are 0 (the stack is a plain stack of these widths) but the verdict is "
                            "not_absorbable")
    else:
        if plain_itself and not dec.get("absorbable"):
            problems.append("all skips are 0 (the stack is a plain stack of these widths) but the verdict is "
                            "not absorbable")
        if set(reachable_sign_pairs(tuple(inst.plain_widths))) != \
                {(s, t) for s in (-1, 0, 1) for t in (-1, 0, 1) if in_class(dec["class"], Q(s), Q(t))}:
            problems.append(f"the class {dec['class']} is not the enumerated one for {inst.plain_widths}")
        a, b = qvec(dec["pair"])
        if ((_sgn(a), _sgn(b)) in reachable_sign_pairs(tuple(inst.plain_widths))) != bool(dec["absorbable"]):
            problems.append("the verdict disagrees with the enumerated sign pairs of the plain widths")
    return {"class_table": {"tuples": table["tuples"], "disagree": table["disagree"]},
            "skips_all_zero": plain_itself, "problems": problems, "ok": not problems}


@st.composite
def d1_plain_as_residual(draw: st.DrawFn) -> D1Instance:
    """Targeted: a stack with every skip 0 (a plain stack of its own widths, biased or not), compared
    with its own widths; depth 1..3, widths 1..3."""
    L = draw(st.integers(1, 3))
    widths = [draw(st.integers(1, 3)) for _ in range(L)]
    vals = st.integers(-4, 4).map(lambda n: Q(n, 2))
    layers = [([[draw(vals)] for _ in range(m)], [[draw(vals) for _ in range(m)]]) for m in widths]
    biases = None
    if draw(st.booleans()):
        biases = [([draw(vals) for _ in range(m)], draw(vals)) for m in widths]
    return D1Instance(layers, [Q(0)] * L, list(widths), biases)


def _lay(units: Sequence[tuple[int, int]]) -> Layer:
    return [[Q(v)] for v, _ in units], [[Q(w) for _, w in units]]


def d1_corners() -> list[D1Instance]:
    """Corner instances checked on every run before the drawn ones: pairs on the axes with a
    negative entry (the plain stack's later layers must keep the sign), pairs of opposite signs
    against widths whose only 1 comes late, many units, zero skips (biased and not), and a biased
    plain unit that is constant on the right half-line only."""
    one = Q(1)
    out = [
        D1Instance([_lay([(1, -1)])], [one], [2, 1]),                 # x - relu(x): pair (0, -1)
        D1Instance([_lay([(1, -2), (-1, 1)])], [one], [2, 1]),        # pair (-1, 0)
        D1Instance([_lay([(1, -2)])], [one], [3, 2, 1]),              # pair (-1, -1)
        D1Instance([_lay([(1, 0)])], [one], [2, 2, 1]),               # F = x: pair (1, -1), late 1
        D1Instance([_lay([(1, 0)])], [one], [3, 3, 1]),
        D1Instance([_lay([(1, 0)])], [one], [2, 3]),                  # class all
        D1Instance([_lay([(1, 1), (-1, 2), (2, -1), (-2, 1)]), _lay([(1, 1), (-1, -1), (1, 2)])],
                   [Q(1, 2), Q(-1)], [4, 3]),
        D1Instance([_lay([(1, 1), (-1, 1)]), _lay([(1, 2)])], [Q(0), Q(0)], [2, 1]),
        # biased, zero skip: relu(-x) is a plain stack of width 1, constant on [0, oo) only
        D1Instance([_lay([(-1, 1)])], [Q(0)], [1], [([Q(0)], Q(0))]),
        D1Instance([_lay([(1, -1)])], [Q(0)], [1], [([Q(1)], Q(2))]),
        D1Instance([_lay([(1, 1), (-1, 1)]), _lay([(-1, 1)])], [Q(0), Q(0)], [2, 1],
                   [([Q(1), Q(-1)], Q(0)), ([Q(1)], Q(-1))]),
        # biased, identity skips: strictly monotone against a width-1 plain layer; not constant at either end
        D1Instance([_lay([(1, 1)])], [one], [2, 1], [([Q(-1)], Q(1))]),
        D1Instance([_lay([(1, 1)])], [one], [1, 2], [([Q(-1)], Q(1))]),
    ]
    return out


def _instance_from_certificate(data: dict[str, Any]) -> D1Instance:
    """The checked stack back from a certificate's data (biased: its PL blocks; else the layers)."""
    dec = data["decision"]
    if "pl_blocks" in data:
        blocks = pl_blocks_from_json(data["pl_blocks"])
        layers = [([[v] for v in b["v"]], [list(b["w"])]) for b in blocks]
        biases = [(list(b.get("b_up") or [Q(0)] * len(b["v"])), Q(b.get("b_down", 0))) for b in blocks]
        return D1Instance(layers, [Q(b.get("M", 1)) for b in blocks], list(dec["plain_widths"]), biases)
    return D1Instance(layers_from_json(data["residual"]), qvec(data["skips"]), list(dec["plain_widths"]))


@safe_recheck
def recheck_d1_all(cert: dict[str, Any]) -> bool:
    """recheck_d1, and the cross-checks of d1_cross_checks recomputed from the certificate alone."""
    if not recheck_d1(cert):
        return False
    data = cert["data"]
    extra = d1_cross_checks(_instance_from_certificate(data), data["decision"])
    return extra["ok"] and extra == data.get("cross_checks")


@oracle_check(CLAIM_D1, st.one_of(d1_instances(), d1_plain_as_residual()), recheck_d1_all,
              "exact rationals (pair at +-1, 1-D piecewise-linear maps)", examples=lambda: d1_corners())
def check_d1(inst: Any) -> Certificate:
    """Certify depth-d1 on a d = 1 stack: the class, the construction, and the brute-force cross-check;
    then the cross-checks that do not rest on the drawn widths (d1_cross_checks)."""
    cert = d1_certificate(inst)
    extra = d1_cross_checks(inst, cert.data["decision"])
    cert.data["cross_checks"] = extra
    if cert.holds and not extra["ok"]:
        cert.holds = False
        cert.reason = "cross-check failed: " + "; ".join(extra["problems"])
    # the re-check must refuse the certificate for another claim and with a skip added (both are
    # refused before anything is recomputed, so they cost nothing on every instance)
    d = cert.as_dict()
    forged = [{**d, "claim": "forged"}] + ([{**d, "data": {**d["data"], "skips": d["data"]["skips"] + ["1"]}}]
                                           if "skips" in d["data"] else [])
    accepted = cert.holds and any(recheck_d1_all(f) for f in forged)
    return cert if not accepted else Certificate(CLAIM_D1, False, True, cert.method, cert.data,
                                                 "the re-check accepts a forged certificate")


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


# ================================================================ depth-d1-biased (part (B))

CLAIM_D1B = "depth-d1-biased"
ONE_LAYER_BRUTE_MAX = 10     # kinks for the orientation brute force of (B1)


@dataclass
class D1BiasedInstance(coverage.Drawn):
    """A d = 1 residual stack with biases, the plain widths asked about, and how it was drawn
    ('random', 'planted': every block is one layer of its width, 'near_miss': a planted stack with
    one entry moved by 2^-30)."""

    layers: list[Layer]
    skips: list[Fraction]
    biases: list[tuple[list[Fraction], Fraction]]
    plain_widths: list[int]
    kind: str = "random"

    def size(self) -> dict[str, Any]:
        """d = 1, the widest layer and the depth."""
        return {"d": 1, "m": max(len(U) for U, _ in self.layers), "depth": len(self.layers)}

    def subjects(self) -> list[coverage.Subject]:
        """The blocks in exact rationals (scalar skips, biases), for the coverage measurement."""
        return [coverage.Subject([list(r) for r in U], [list(r) for r in W], [[self.skips[k]]],
                                 any(v != 0 for v in self.biases[k][0]) or self.biases[k][1] != 0)
                for k, (U, W) in enumerate(self.layers)]


@st.composite
def d1_biased_instances(draw: st.DrawFn) -> D1BiasedInstance:
    """d = 1 residual stacks with biases: depth 1..3, widths 1..4, skips in {1, -1, 0, 1/2, 3}, zero
    units and units sharing a kink on purpose; planted stacks (each block has a spare unit: a zero
    unit or two units at one kink, so the block is one layer of its width) and near misses (the spare
    unit's weight moved by 2^-30); plain widths the stack's own three times in four."""
    L = draw(st.integers(1, 3))
    widths = [draw(st.integers(1, 4)) for _ in range(L)]
    kind = draw(st.sampled_from(["random", "random", "planted", "near_miss"]))
    vals = st.integers(-6, 6).map(lambda n: Q(n, 2))
    nonzero = st.sampled_from([Q(n, 2) for n in range(-6, 7) if n != 0])
    layers, biases = [], []
    skips = [draw(st.sampled_from([Q(1), Q(1), Q(-1), Q(0), Q(1, 2), Q(3)])) for _ in range(L)]
    for l, m in enumerate(widths):
        v = [draw(vals) for _ in range(m)]
        w = [draw(vals) for _ in range(m)]
        c = [draw(vals) for _ in range(m)]
        if m >= 2 and draw(st.booleans()):          # two units at one kink (v, c scaled together)
            k = draw(st.integers(1, m - 1))
            s = draw(nonzero)
            v[k], c[k] = s * v[0], s * c[0]
        if kind != "random" and m >= 2:              # a spare unit: weight 0 (planted) or 2^-30
            v[-1] = draw(nonzero)
            w[-1] = Q(0) if kind == "planted" else coverage.NEAR_MISS_STEP
        elif kind != "random":                       # width 1: the skip 0 (planted) or 2^-30
            skips[l] = Q(0) if kind == "planted" else coverage.NEAR_MISS_STEP
        layers.append(([[x] for x in v], [w]))
        biases.append((c, draw(vals)))
    if draw(st.integers(0, 3)) > 0:
        plain = list(widths)
    else:
        plain = [draw(st.integers(1, 3)) for _ in range(draw(st.integers(1, 3)))]
    return D1BiasedInstance(layers, skips, biases, plain, kind)


def one_layer_brute(f: Any, m: int) -> Optional[bool]:
    """(B1) by brute force, without the subset-sum lemma: f is one layer of width m iff one of the
    layers built from units at the kinks of f (every orientation of one unit per kink, plus, with a
    spare unit, the identity-slope correction at the first kink), with the output bias fixed at 0,
    equals f by the exact piecewise-linear comparison. None above ONE_LAYER_BRUTE_MAX kinks."""
    ks = pl_kinks(f)
    if len(ks) > ONE_LAYER_BRUTE_MAX:
        return None
    if len(ks) > m:
        return False
    if len(ks) < m and (len(ks) >= 1 or m >= 2):
        cand = one_layer(f, m)   # the construction of the spare-unit cases, checked by pl_equal below
        layers = [cand["units"]] if cand["in_G"] else []
    else:
        layers = [[(Q(1), -t, dj) if o >> k & 1 else (Q(-1), t, dj) for k, (t, dj) in enumerate(ks)]
                  for o in range(2 ** len(ks))]
    for units in layers:
        g = pl_stack([{"v": [v for v, _, _ in units], "w": [w for _, _, w in units],
                       "b_up": [c for _, c, _ in units]}], residual=False)
        g = pl_stack([{"v": [v for v, _, _ in units], "w": [w for _, _, w in units],
                       "b_up": [c for _, c, _ in units], "b_down": f(Q(0)) - g(Q(0))}], residual=False)
        if pl_equal(f, g):
            return True
    return False


@functools.lru_cache(maxsize=16)
def biased_brute_force_b(widths: tuple[int, ...]) -> Optional[dict[str, Any]]:
    """Every biased plain stack of these widths with weights and biases in {-1, 0, 1} (up to 8
    parameters), as exact PL maps: the most kinks, and how many are constant on a half-line and how
    many have a bounded-on-one-side image (s_- s_+ <= 0). Part (B2) predicts: at most prod (m + 1) - 1
    kinks, all constant on a half-line if the first width is 1, all bounded on one side if some width
    is 1."""
    n = sum(3 * m + 1 for m in widths)
    if n > 8:
        return None
    const = bounded = total = most = 0
    for combo in itertools.product((Q(-1), Q(0), Q(1)), repeat=n):
        it = iter(combo)
        blocks = [{"v": [next(it) for _ in range(m)], "w": [next(it) for _ in range(m)],
                   "b_up": [next(it) for _ in range(m)], "b_down": next(it)} for m in widths]
        P = pl_stack(blocks, residual=False)
        total += 1
        most = max(most, len(pl_kinks(P)))
        const += pl_constant_on_a_half_line(P)
        bounded += P.left * P.right <= 0
    return {"widths": list(widths), "stacks": total, "most_kinks": most, "constant_on_a_half_line": const,
            "bounded_on_one_side": bounded}


def _brute_b_ok(brute: dict[str, Any]) -> bool:
    w = brute["widths"]
    ok = brute["most_kinks"] <= kink_bound(w)
    if w[0] == 1:
        ok = ok and brute["constant_on_a_half_line"] == brute["stacks"]
    if 1 in w:
        ok = ok and brute["bounded_on_one_side"] == brute["stacks"]
    return ok


def d1_biased_certificate(inst: D1BiasedInstance) -> Certificate:
    """Decide a biased d = 1 stack by part (B) and cross-check by methods that do not use its lemmas."""
    blocks = _with_biases(inst.layers, inst.skips, inst.biases)
    dec = decide_d1_biased(blocks, inst.plain_widths)
    F = pl_stack(blocks, residual=True)
    data: dict[str, Any] = {"pl_blocks": pl_blocks_json(blocks), "decision": dec, "kind": inst.kind}
    ok = True
    if dec["verdict"] == "absorbable":
        plain = biased_layers_from_json(dec["plain"])
        data["pl_equal"] = pl_equal(F, pl_stack(plain, residual=False))
        ok = data["pl_equal"] and [len(b["v"]) for b in plain] == inst.plain_widths
    first = one_layer_brute(F, inst.plain_widths[0])
    data["one_layer_brute"] = first
    if first is not None and dec.get("one_layer") is not None:
        ok = ok and first == dec["one_layer"]["in_G"]
    brute = biased_brute_force_b(tuple(inst.plain_widths))
    data["biased_brute_force"] = brute
    if brute is not None:
        ok = ok and _brute_b_ok(brute)
    data["recheck"] = recheck_d1_biased(blocks, dec) if dec["verdict"] != "undecided" else None
    if data["recheck"] is False:
        ok = False
    # planted: every block is one layer of its width, so for the stack's own widths it is decided
    planted = inst.kind == "planted" and inst.plain_widths == [len(U) for U, _ in inst.layers]
    if planted:
        ok = ok and dec["verdict"] == "absorbable"
    data["drawn"] = {"planted": planted, "near_miss": inst.kind == "near_miss"}
    return Certificate(CLAIM_D1B, ok, True, "exact rationals (1-D piecewise-linear maps)", data,
                       f"{dec['verdict']}: {dec.get('reason', '')}" if ok else "decision and cross-checks disagree")


@safe_recheck
def recheck_d1_biased_cert(cert: dict[str, Any]) -> bool:
    """Re-verify a depth-d1-biased certificate from its JSON alone: the instance is rebuilt from the
    exact blocks, and the whole certificate is recomputed and compared field by field."""
    if cert.get("claim") != CLAIM_D1B or not cert.get("holds"):
        return False
    data = cert["data"]
    blocks = pl_blocks_from_json(data["pl_blocks"])
    layers = [([[v] for v in b["v"]], [list(b["w"])]) for b in blocks]
    inst = D1BiasedInstance(layers, [b["M"] for b in blocks], [(list(b["b_up"]), b["b_down"]) for b in blocks],
                            list(data["decision"]["plain_widths"]), data["kind"])
    fresh = d1_biased_certificate(inst)
    if not fresh.holds or json.loads(json.dumps(fresh.data, default=str)) != json.loads(json.dumps(data, default=str)):
        return False
    dec = data["decision"]
    return dec["verdict"] == "undecided" or recheck_d1_biased(blocks, dec)


@oracle_check(CLAIM_D1B, d1_biased_instances(), recheck_d1_biased_cert, "exact rationals (1-D piecewise-linear maps)")
def check_d1_biased(inst: Any) -> Certificate:
    """Certify depth-d1-biased on a biased d = 1 stack: the decision, its plain stack, and brute force;
    the re-check must refuse the certificate for another claim."""
    cert = d1_biased_certificate(inst)
    accepted = cert.holds and recheck_d1_biased_cert({**cert.as_dict(), "claim": "forged"})
    return cert if not accepted else Certificate(CLAIM_D1B, False, True, cert.method, cert.data,
                                                 "the re-check accepts a forged certificate")
