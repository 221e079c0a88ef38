"""Stacks on the line (d = 1): the pair (F(1), F(-1)), the classes of depth-d1, the explicit plain
stack, exact 1-D piecewise-linear maps, and the decisions (proofs/informal/depth-d1.md).

Every bias-free relu stack on the line (residual with any scalar skips, or plain) is continuous and
positively homogeneous, hence F(x) = F(1) relu(x) + F(-1) relu(-x).  A plain relu stack of widths
(m'_1, ..., m'_N), biases allowed or not, equals such an F iff

    m'_1 = 1:                          F(1) F(-1) = 0     ("axes")
    m'_1 >= 2 and some later width 1:  F(1) F(-1) >= 0    ("closed_quadrants")
    every width >= 2:                  always             ("all")

With biases F is no longer homogeneous; it is an exact piecewise-linear map (PL1), and two
necessary conditions decide some stacks: a plain stack with first width 1 is constant on a
half-line, and one with some width 1 is not injective.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional, Sequence

from oracle.core.rational import qvec, svec
from oracle.algebra.stacks.layers import Layer, layers_from_json, layers_to_json

Q = Fraction
CLASSES = ("axes", "closed_quadrants", "all")


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
        raise ValueError(f"{x} is in no piece of the map")  # unreachable: the pieces cover R

    def on(self, knots: Sequence[Fraction]) -> "PL1":
        ks = tuple(sorted(set(self.knots) | set(knots)))
        return PL1(ks, tuple(self(x) for x in ks), self.left, self.right)


def pl_identity() -> PL1:
    """x -> x."""
    return PL1((Q(0),), (Q(0),), Q(1), Q(1))


def pl_affine(f: PL1, a: Fraction, c: Fraction) -> PL1:
    """x -> a f(x) + c."""
    return PL1(f.knots, tuple(a * v + c for v in f.values), a * f.left, a * f.right)


def pl_add(f: PL1, g: PL1) -> PL1:
    """x -> f(x) + g(x)."""
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
    """d = 1 layers (and scalar skips, for a residual stack) as the blocks pl_stack reads."""
    out = []
    for l, (U, W) in enumerate(layers):
        rec: dict[str, Any] = {"v": [r[0] for r in U], "w": list(W[0])}
        if skips is not None:
            rec["M"] = skips[l]
        out.append(rec)
    return out


def pl_slopes(f: PL1) -> list[Fraction]:
    """The slopes of all pieces of f, from the left end to the right end."""
    inner = [(f.values[t + 1] - f.values[t]) / (f.knots[t + 1] - f.knots[t]) for t in range(len(f.knots) - 1)]
    return [f.left] + inner + [f.right]


def pl_constant_on_a_half_line(f: PL1) -> bool:
    """f is constant on (-oo, a] or on [a, oo) for some a (an end slope is 0)."""
    return f.left == 0 or f.right == 0


def pl_injective(f: PL1) -> bool:
    """A continuous piecewise-linear map is injective iff it is strictly monotone."""
    s = pl_slopes(f)
    return all(v > 0 for v in s) or all(v < 0 for v in s)


def pl_blocks_json(blocks: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The exact string form of PL blocks (lists become lists of strings, numbers strings)."""
    out = []
    for b in blocks:
        rec = {}
        for k, v in b.items():
            rec[k] = svec(v) if isinstance(v, list) else str(v)
        out.append(rec)
    return out


def pl_blocks_from_json(data: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Inverse of pl_blocks_json."""
    return [{k: (qvec(v) if isinstance(v, list) else Q(v)) for k, v in b.items()} for b in data]


# ================================================================ the decisions

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

