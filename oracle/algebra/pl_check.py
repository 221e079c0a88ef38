"""An exact equality test for piecewise-linear functions of one or two variables that does not use
the canonical-form theory: an independent referee for relu-complete.

A relu block (with biases, skip M) is affine on every cell of the arrangement of its kink lines
{u_i . x + c_i = 0}.  For two such functions F, G let D = F - G, affine on each cell of the union
of both arrangements.

* d = 1: D is 0 iff it vanishes at every breakpoint and at one point beyond each end.
* d = 2: D is 0 iff it vanishes on every kink line (a one-dimensional check along the line, whose
  breakpoints are its intersections with the other lines) and, when all lines are parallel (or
  there is at most one), on a transversal line.  Reason: every cell of an arrangement whose lines
  are not all parallel is a convex polygon with edges on two non-parallel lines or on two
  parallel ones, so its boundary holds three non-collinear points where D = 0, and D is affine
  on the closed cell; for parallel arrangements the outer half-planes meet the transversal.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Optional, Sequence

Vec = list[Fraction]


class ExactRelu:
    """x -> M x + W_down relu(W_up x + b_up) + b_down in exact rationals (M None: no skip)."""

    def __init__(self, W_up: Sequence[Sequence[Fraction]], W_down: Sequence[Sequence[Fraction]],
                 b_up: Optional[Sequence[Fraction]] = None, b_down: Optional[Sequence[Fraction]] = None,
                 M: Optional[Sequence[Sequence[Fraction]]] = None, d: Optional[int] = None) -> None:
        self.U = [[Fraction(v) for v in r] for r in W_up]
        self.W = [[Fraction(v) for v in r] for r in W_down]
        self.d = len(self.W) if d is None else d
        m = len(self.U)
        self.c = [Fraction(v) for v in b_up] if b_up is not None else [Fraction(0)] * m
        self.b = [Fraction(v) for v in b_down] if b_down is not None else [Fraction(0)] * self.d
        self.M = None if M is None else [[Fraction(v) for v in r] for r in M]

    def __call__(self, x: Sequence[Fraction]) -> Vec:
        h = [max(sum((a * b for a, b in zip(r, x)), Fraction(0)) + c, Fraction(0))
             for r, c in zip(self.U, self.c)]
        out = [bb + sum((w * v for w, v in zip(row, h)), Fraction(0)) for row, bb in zip(self.W, self.b)]
        if self.M is not None:
            out = [o + sum((a * b for a, b in zip(r, x)), Fraction(0)) for o, r in zip(out, self.M)]
        return out

    def lines(self) -> list[tuple[Vec, Fraction]]:
        """The kink hyperplanes (u, c) of units with u != 0 (duplicates kept)."""
        return [(r, c) for r, c in zip(self.U, self.c) if any(v != 0 for v in r)]


def _check_1d(D: Callable[[Fraction], bool], breaks: list[Fraction]) -> bool:
    pts = sorted(set(breaks))
    probes = [pts[0] - 1] + pts + [pts[-1] + 1] if pts else [Fraction(0), Fraction(1)]
    return all(D(t) for t in probes)


def pl_equal(F: ExactRelu, G: ExactRelu) -> bool:
    """Exact equality of two relu functions of d = 1 or d = 2 variables (see the module docstring)."""
    d = F.d
    if G.d != d or d not in (1, 2):
        raise ValueError("pl_equal handles d = 1 and d = 2 only")
    zero = lambda x: F(x) == G(x)  # noqa: E731
    lines = F.lines() + G.lines()
    if d == 1:
        return _check_1d(lambda t: zero([t]), [-c / u[0] for u, c in lines])
    # d = 2: along every kink line, then a transversal when the lines are all parallel
    def along(p0: Vec, dvec: Vec) -> bool:
        breaks = []
        for u, c in lines:
            slope = u[0] * dvec[0] + u[1] * dvec[1]
            if slope != 0:
                breaks.append(-(u[0] * p0[0] + u[1] * p0[1] + c) / slope)
        return _check_1d(lambda t: zero([p0[0] + t * dvec[0], p0[1] + t * dvec[1]]), breaks)

    for u, c in lines:
        nn = u[0] * u[0] + u[1] * u[1]
        p0 = [-c * u[0] / nn, -c * u[1] / nn]  # a point on the line
        if not along(p0, [-u[1], u[0]]):
            return False
    directions = {(u[0] / (u[0] if u[0] else u[1]), u[1] / (u[0] if u[0] else u[1])) for u, _ in lines}
    if len(directions) <= 1:
        if not lines:
            return all(zero(p) for p in ([Fraction(0), Fraction(0)], [Fraction(1), Fraction(0)],
                                         [Fraction(0), Fraction(1)]))
        u, _ = lines[0]
        if not along([Fraction(0), Fraction(0)], list(u)):
            return False
    return True
