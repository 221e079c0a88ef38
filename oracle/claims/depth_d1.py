"""Claim depth-d1: in d = 1 the stack question is decided by the width pattern and F(1) F(-1).

Every bias-free relu stack on the line (residual with any scalar skips, or plain) is continuous and
positively homogeneous, hence F(x) = F(1) relu(x) + F(-1) relu(-x). A plain relu stack of widths
(m'_1, ..., m'_N), biases allowed or not, equals such an F iff

    m'_1 = 1:                          F(1) F(-1) = 0     ("axes")
    m'_1 >= 2 and some later width 1:  F(1) F(-1) >= 0    ("closed_quadrants")
    every width >= 2:                  always             ("all")

(proofs/informal/depth-d1.md). This module computes the pair (F(1), F(-1)) exactly, the class of a
width tuple, the explicit plain stack, an exact 1-D piecewise-linear toolkit (for biased stacks,
which are not homogeneous) and the oracle check, which cross-checks the class against a brute-force
enumeration of small plain stacks evaluated directly.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional, Sequence

from hypothesis import strategies as st

from oracle.algebra.exact import qvec, safe_recheck, svec
from oracle.claims.base import Certificate, counterexample, oracle_check
from oracle.claims.depth_stacks import Layer, layers_from_json, layers_to_json
from oracle.claims import coverage

CLAIM_D1 = "depth-d1"
Q = Fraction
CLASSES = ("axes", "closed_quadrants", "all")
BRUTE_VALUES = (-1, 0, 1, 2)   # weights of the brute-force enumeration
BRUTE_MAX_WEIGHTS = 6          # 4^6 = 4096 plain stacks per width tuple


# ================================================================ the pair and the classes

def _relu(v: Fraction) -> Fraction:
    return v if v > 0 else Fraction(0)


def eval_d1(layers: Sequence[Layer], x: Fraction, skips: Optional[Sequence[Fraction]]) -> Fraction:
    """A d = 1 stack at x, exactly: residual with scalar skips M_l (skips given) or plain (skips None)."""
    for l, (U, W) in enumerate(layers):
        out = sum((W[0][i] * _relu(U[i][0] * x) for i in range(len(U))), Fraction(0))
        x = out + (skips[l] * x if skips is not None else 0)
    return x


def d1_pair(layers: Sequence[Layer], skips: Optional[Sequence[Fraction]]) -> tuple[Fraction, Fraction]:
    """(F(1), F(-1)): for a bias-free stack this determines F on all of R."""
    return eval_d1(layers, Q(1), skips), eval_d1(layers, Q(-1), skips)


def d1_class(widths: Sequence[int]) -> str:
    """The set of pairs (F(1), F(-1)) of plain stacks of these widths, by name."""
    if not widths or any(w < 1 for w in widths):
        raise ValueError("widths must be positive")
    if widths[0] == 1:
        return "axes"
    if any(w == 1 for w in widths[1:]):
        return "closed_quadrants"
    return "all"


def in_class(cls: str, a: Fraction, b: Fraction) -> bool:
    """Membership of the pair (a, b) in a class of depth-d1."""
    if cls == "all":
        return True
    if cls == "closed_quadrants":
        return a * b >= 0
    if cls == "axes":
        return a * b == 0
    raise ValueError(f"unknown class {cls!r}")


def _layer(m: int, units: Sequence[tuple[Fraction, Fraction]]) -> Layer:
    units = list(units) + [(Q(1), Q(0))] * (m - len(units))
    return [[v] for v, _ in units], [[w for _, w in units]]


def d1_plain_stack(widths: Sequence[int], a: Fraction, b: Fraction) -> Optional[list[Layer]]:
    """The bias-free plain stack of these widths with pair (a, b), or None when none exists.

    First layer: units (1, a), (-1, b) (width >= 2), or the one unit (1, a) if b = 0 and (-1, b)
    otherwise (width 1). Later layers act as the identity on the current pairs: units (1, 1),
    (-1, -1) (width >= 2) or the unit (s, s) (width 1), s the common sign of a and b. Padding
    units are (1, 0)."""
    a, b = Q(a), Q(b)
    if not in_class(d1_class(widths), a, b):
        return None
    if widths[0] == 1:
        first = [(Q(1), a)] if b == 0 else [(Q(-1), b)]
    else:
        first = [(Q(1), a), (Q(-1), b)]
    s = Q(1) if (a >= 0 and b >= 0) else Q(-1)
    out = [_layer(widths[0], first)]
    for m in widths[1:]:
        out.append(_layer(m, [(s, s)] if m == 1 else [(Q(1), Q(1)), (Q(-1), Q(-1))]))
    return out


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


# ================================================================ exact 1-D piecewise-linear maps

@dataclass(frozen=True)
class PL1:
    """A continuous piecewise-linear map R -> R: values at sorted knots and the two end slopes."""

    knots: tuple[Fraction, ...]
    values: tuple[Fraction, ...]
    left: Fraction
    right: Fraction

    def __call__(self, x: Fraction) -> Fraction:
        k = self.knots
        if x <= k[0]:
            return self.values[0] + self.left * (x - k[0])
        if x >= k[-1]:
            return self.values[-1] + self.right * (x - k[-1])
        for t in range(len(k) - 1):
            if k[t] <= x <= k[t + 1]:
                lam = (x - k[t]) / (k[t + 1] - k[t])
                return self.values[t] + lam * (self.values[t + 1] - self.values[t])
        raise AssertionError("unreachable")

    def on(self, knots: Sequence[Fraction]) -> "PL1":
        ks = tuple(sorted(set(self.knots) | set(knots)))
        return PL1(ks, tuple(self(x) for x in ks), self.left, self.right)


def pl_identity() -> PL1:
    return PL1((Q(0),), (Q(0),), Q(1), Q(1))


def pl_affine(f: PL1, a: Fraction, c: Fraction) -> PL1:
    """x -> a f(x) + c."""
    return PL1(f.knots, tuple(a * v + c for v in f.values), a * f.left, a * f.right)


def pl_add(f: PL1, g: PL1) -> PL1:
    f2, g2 = f.on(g.knots), g.on(f.knots)
    return PL1(f2.knots, tuple(u + v for u, v in zip(f2.values, g2.values)), f.left + g.left, f.right + g.right)


def pl_relu(f: PL1) -> PL1:
    """x -> relu(f(x)): adds the zeros of f as knots."""
    ks, vs = list(f.knots), list(f.values)
    new = []
    for t in range(len(ks) - 1):
        if vs[t] * vs[t + 1] < 0:
            new.append(ks[t] + vs[t] / (vs[t] - vs[t + 1]) * (ks[t + 1] - ks[t]))
    if f.left != 0 and vs[0] != 0 and (vs[0] > 0) == (f.left > 0):
        new.append(ks[0] - vs[0] / f.left)      # the left end piece crosses 0
    if f.right != 0 and vs[-1] != 0 and (vs[-1] > 0) != (f.right > 0):
        new.append(ks[-1] - vs[-1] / f.right)   # the right end piece crosses 0
    g = f.on(new)
    return PL1(g.knots, tuple(_relu(v) for v in g.values), f.left if g.values[0] > 0 or
               (g.values[0] == 0 and f.left < 0) else Q(0),
               f.right if g.values[-1] > 0 or (g.values[-1] == 0 and f.right > 0) else Q(0))


def pl_stack(blocks: Sequence[dict[str, Any]], residual: bool) -> PL1:
    """A d = 1 relu stack with optional biases as an exact PL1. Each block is a dict with lists
    'v' (W_up column), 'w' (W_down row), optional 'b_up', 'b_down' and (residual) 'M'."""
    f = pl_identity()
    for blk in blocks:
        m = len(blk["v"])
        bu = blk.get("b_up") or [Q(0)] * m
        acc = pl_affine(f, Q(blk.get("M", 1)) if residual else Q(0), Q(blk.get("b_down", 0)))
        for i in range(m):
            acc = pl_add(acc, pl_affine(pl_relu(pl_affine(f, Q(blk["v"][i]), Q(bu[i]))), Q(blk["w"][i]), Q(0)))
        f = acc
    return f


def pl_equal(f: PL1, g: PL1) -> bool:
    """Equality of two PL1 maps: same values on the union of the knots and the same end slopes."""
    f2, g2 = f.on(g.knots), g.on(f.knots)
    return f2.values == g2.values and f.left == g.left and f.right == g.right


def layers_as_pl_blocks(layers: Sequence[Layer], skips: Optional[Sequence[Fraction]]) -> list[dict[str, Any]]:
    out = []
    for l, (U, W) in enumerate(layers):
        rec: dict[str, Any] = {"v": [r[0] for r in U], "w": list(W[0])}
        if skips is not None:
            rec["M"] = skips[l]
        out.append(rec)
    return out


# ================================================================ the decision

def decide_d1(layers: Sequence[Layer], skips: Sequence[Fraction],
              plain_widths: Optional[Sequence[int]] = None) -> dict[str, Any]:
    """Decide whether a bias-free d = 1 residual stack equals a plain stack of the given widths
    (default: its own widths). Returns the pair, the class, the verdict and the plain stack."""
    widths = list(plain_widths) if plain_widths is not None else [len(U) for U, _ in layers]
    a, b = d1_pair(layers, skips)
    cls = d1_class(widths)
    out: dict[str, Any] = {"pair": svec([a, b]), "plain_widths": widths, "class": cls,
                           "absorbable": in_class(cls, a, b)}
    if out["absorbable"]:
        plain = d1_plain_stack(widths, a, b)
        out["plain"] = layers_to_json(plain)
        out["identity_at_pm1"] = d1_pair(plain, None) == (a, b)
    return out


def recheck_d1_decision(layers: Sequence[Layer], skips: Sequence[Fraction], dec: dict[str, Any]) -> bool:
    """Re-verify a decide_d1 result from the weights alone (the identity by the pair at +-1)."""
    fresh = decide_d1(layers, skips, dec["plain_widths"])
    if {k: fresh[k] for k in ("pair", "class", "absorbable")} != {k: dec[k] for k in ("pair", "class", "absorbable")}:
        return False
    if dec["absorbable"]:
        plain = layers_from_json(dec["plain"])
        if [len(U) for U, _ in plain] != dec["plain_widths"] or len(plain[0][1]) != 1:
            return False
        return d1_pair(plain, None) == tuple(qvec(dec["pair"]))
    return True


# ================================================================ the oracle check

@dataclass
class D1Instance:
    layers: list[Layer]
    skips: list[Fraction]
    plain_widths: list[int] = field(default_factory=list)
    biases: Optional[list[tuple[list[Fraction], Fraction]]] = None   # (b_up, b_down) per block

    def size(self) -> dict[str, Any]:
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


def _biased_certificate(inst: D1Instance) -> Certificate:
    blocks = _with_biases(inst.layers, inst.skips, inst.biases)
    dec = decide_d1_biased(blocks, inst.plain_widths)
    data: dict[str, Any] = {"pl_blocks": _pl_json(blocks), "decision": dec}
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
        blocks = _pl_from_json(data["pl_blocks"])
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


def _pl_json(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for b in blocks:
        rec = {}
        for k, v in b.items():
            rec[k] = svec(v) if isinstance(v, list) else str(v)
        out.append(rec)
    return out


def _pl_from_json(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for b in blocks:
        out.append({k: (qvec(v) if isinstance(v, list) else Q(v)) for k, v in b.items()})
    return out


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
    data = {"kind": "d1_biased", "residual": _pl_json(res), "plain": _pl_json(plain), "pair": svec([a, b]),
            "equal": eq, "knots": svec(list(F.on(P.knots).knots))}
    return Certificate(CLAIM_D1, holds, True, "exact rationals (1-D piecewise-linear comparison)", data,
                       "" if holds else "boundary facts failed")


@safe_recheck
def recheck_d1_counterexample(cert: dict[str, Any]) -> bool:
    data = cert["data"]
    if data.get("kind") != "d1_biased":
        return False
    res, plain = _pl_from_json(data["residual"]), _pl_from_json(data["plain"])
    F, P = pl_stack(res, True), pl_stack(plain, False)
    return (pl_equal(F, P) and F(Q(1)) * F(Q(-1)) != 0 and [len(b["v"]) for b in plain] == [1, 1]
            and [len(b["v"]) for b in res] == [1, 1])


# ================================================================ biased stacks: two necessary conditions

def pl_slopes(f: PL1) -> list[Fraction]:
    """The slopes of all pieces of f, from the left end to the right end."""
    inner = [(f.values[t + 1] - f.values[t]) / (f.knots[t + 1] - f.knots[t]) for t in range(len(f.knots) - 1)]
    return [f.left] + inner + [f.right]


def pl_constant_on_a_half_line(f: PL1) -> bool:
    return f.left == 0 or f.right == 0


def pl_injective(f: PL1) -> bool:
    """A continuous piecewise-linear map is injective iff it is strictly monotone."""
    s = pl_slopes(f)
    return all(v > 0 for v in s) or all(v < 0 for v in s)


def decide_d1_biased(blocks: Sequence[dict[str, Any]], widths: Sequence[int]) -> dict[str, Any]:
    """d = 1 with biases (residual stack given as PL blocks): the two necessary conditions of
    depth-d1 (biases allowed on both sides): a plain stack with first width 1 is constant on a
    half-line, and one with some width 1 is not injective. Otherwise undecided."""
    F = pl_stack(blocks, residual=True)
    out: dict[str, Any] = {"plain_widths": list(widths), "knots": svec(list(F.knots)),
                           "slopes": svec(pl_slopes(F)), "verdict": "undecided"}
    if widths[0] == 1 and not pl_constant_on_a_half_line(F):
        out.update(verdict="not_absorbable", reason="the first width is 1, so every plain stack of these "
                   "widths is constant on a half-line; F has nonzero slopes at both ends")
    elif any(w == 1 for w in widths) and pl_injective(F):
        out.update(verdict="not_absorbable", reason="some width is 1, so no plain stack of these widths is "
                   "injective; F is strictly monotone")
    return out


def pl_blocks_json(blocks: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return _pl_json(list(blocks))


def pl_blocks_from_json(data: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return _pl_from_json(list(data))
