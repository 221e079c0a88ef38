"""Building and verifying replacing blocks: the sign-flip block of an index set, with its exact
b_down correction, and exact or ball-enclosed comparison of two blocks at given points.

Used by ``decide`` (absorb check), ``relu_decide`` and ``witness``; it decides nothing itself.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Optional

import numpy as np

from oracle.core import linalg
from oracle.core import rational
from oracle.core.blocks import Block
from oracle.core.errors import InputError
from oracle.core import arith, fastball
from oracle.core.rational import float_nearest, float_up, to_arb


def flip_block(block: Block, S: Any) -> tuple[Block, dict[str, Any]]:
    """B' from the sign flips of relu-gelu-iff (proofs/informal/relu-gelu-iff.md) for index set S; also the exact b_down correction used."""
    S = np.asarray(sorted(int(i) for i in S), dtype=np.int64)
    W_up, W_down = block.W_up.copy(), block.W_down.copy()
    W_gate = None if block.W_gate is None else block.W_gate.copy()
    b_up = None if block.b_up is None else block.b_up.copy()
    b_gate = None if block.b_gate is None else block.b_gate.copy()
    if block.gated:
        # g(-z) = 1 - g(z): flip the gate rows (and gate biases) and negate the output columns
        W_gate[S] = -W_gate[S]
        if b_gate is not None:
            b_gate[S] = -b_gate[S]
        W_down[:, S] = -W_down[:, S]
    else:
        # s(-z) = s(z) - z: flip the up rows (and up biases)
        W_up[S] = -W_up[S]
        if b_up is not None:
            b_up[S] = -b_up[S]
    note: dict[str, Any] = {}
    b_down = None if block.b_down is None else block.b_down.copy()
    if block.b_up is not None and np.any(block.b_up[S] != 0):
        # the flipped units also lose the constant W_S b_up[S]; add it back, computed exactly
        corr = linalg.matmul(block.W_down[:, S], block.b_up[S][:, None])
        base = rational.from_float64((np.zeros(block.d) if b_down is None else b_down)[:, None])
        want = [rational.to_fraction(v) for v in (base + corr).entries()]
        with np.errstate(over="ignore"):
            b_down = np.array([float_nearest(v) for v in want])
        err = [abs(v - Fraction(float(f))) for v, f in zip(want, b_down)]
        rounded = any(e != 0 for e in err)
        note = {"b_down_correction": [str(rational.to_fraction(c)) for c in corr.entries()[:16]],
                "b_down_rounded": rounded}
        if rounded:
            if not np.all(np.isfinite(b_down)):
                raise InputError("the corrected b_down = b_down + W_down[:,S] b_up[S] overflows float64; "
                                 "no float64 block file can hold the replacing block")
            note["b_down_exact"] = [str(v) for v in want]
            note["b_down_max_rounding_error"] = float_up(max(err))
    plain = Block(block.activation, W_up=W_up, W_down=W_down, W_gate=W_gate, b_up=b_up,
                  b_gate=b_gate, b_down=b_down, kind="plain")
    return plain, note


def spot_points(d: int, rng: np.random.Generator, n_random: int, n_basis: int) -> list[list[Fraction]]:
    """Exact test points: +-e_j for the first n_basis coordinates and n_random points with
    coordinates in [-4, 4] on the grid 1/64."""
    pts: list[list[Fraction]] = []
    for j in range(min(d, n_basis)):
        for s in (1, -1):
            x = [Fraction(0)] * d
            x[j] = Fraction(s)
            pts.append(x)
    for _ in range(n_random):
        pts.append([Fraction(int(v), 64) for v in rng.integers(-256, 257, size=d)])
    return pts


def _exact_outputs(block: Block, points: list[list[Fraction]]) -> list[list[Fraction]]:
    """The block's outputs at the points in exact rationals (FLINT matrices; activation with an exact form)."""
    d, m, n = block.d, block.m, len(points)
    X = rational.from_fractions([[p[j] for p in points] for j in range(d)])  # d x n

    def affine(Wm: np.ndarray, b: Optional[np.ndarray]) -> list[Fraction]:
        Z = rational.from_float64(Wm) * X
        if b is not None:
            Z = Z + rational.from_float64(np.repeat(b[:, None], n, axis=1))
        return [rational.to_fraction(v) for v in Z.entries()]  # row-major

    f = block.act.exact
    pre = affine(block.W_up, block.b_up)
    if block.gated:
        hidden = [f(g) * u for g, u in zip(affine(block.W_gate, block.b_gate), pre)]
    else:
        hidden = [f(u) for u in pre]
    out = rational.from_float64(block.W_down) * rational.from_fractions(
        [hidden[i * n:(i + 1) * n] for i in range(m)], n)
    if block.b_down is not None:
        out = out + rational.from_float64(np.repeat(block.b_down[:, None], n, axis=1))
    if block.kind == "residual":
        out = out + (X if block.M is None else rational.from_float64(block.M) * X)
    vals = [rational.to_fraction(v) for v in out.entries()]
    return [[vals[k * n + j] for k in range(d)] for j in range(n)]


def verify_equal_at_points(F: Block, P: Block, points: list[list[Fraction]],
                           backend: str, offset: Optional[list[Fraction]] = None) -> dict[str, Any]:
    """Check F(x) - P(x) = offset (0 when not given) at the points: exactly ('exact') or with arb balls ('ball')."""

    delta = offset or [Fraction(0)] * F.d
    worst_rad = 0.0
    if backend == "exact":
        for x, a, b in zip(points, _exact_outputs(F, points), _exact_outputs(P, points)):
            if any(u - v != e for u, v, e in zip(a, b, delta)):
                return {"agree": False, "backend": backend, "point": [str(v) for v in x]}
    else:
        for x, a, b in zip(points, fastball.eval_ball_batch(F, points), fastball.eval_ball_batch(P, points)):
            for u, v, e in zip(a, b, delta):
                diff = u - v - to_arb(e)
                if not diff.contains(0):
                    return {"agree": False, "backend": backend, "point": [str(v) for v in x],
                            "difference": list(arith.ball_to_interval(diff))}
                worst_rad = max(worst_rad, float(diff.rad()))
    out: dict[str, Any] = {"agree": True, "backend": backend, "points": len(points)}
    if offset is not None:
        out["compared_with"] = "the exact b_down: F(x) - P(x) equals the rounding of b_down at every point"
    if backend == "ball":
        out["max_ball_radius"] = worst_rad
        out["precision_bits"] = arith.DEFAULT_PREC
    return out
