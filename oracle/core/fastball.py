"""Certified evaluation of one block on a whole batch of points (rigorous ball arithmetic).

``Block.evaluate(x, 'ball')`` is the per-point reference: it converts the weights
and runs one matrix-vector product per layer for every point.  Here the weights
are converted once and each layer is one ``arb_mat`` product over the whole batch:

    [W_up | b_up] . [X ; 1]                      -> pre-activations (m x n)
    [W_gate | b_gate] . [X ; 1]                  -> gate pre-activations (gated only)
    H = s(pre)   or   H = g(gate) * pre          -> hidden values (m x n), catalog ball forms
    [W_down | M | b_down] . [H ; X ; 1]          -> outputs (d x n)

Biases and the skip term ride along as extra columns, so every output is a single
Arb matrix product; Arb's matrix multiplication returns balls that contain the
exact result (it bounds its own rounding error), the float64 weights and points
enter exactly (a float64 is a dyadic rational that fits in any precision >= 53
bits), and the activations are the ``ball`` forms of the catalog, which carry
Arb's rigorous error bounds.  So every returned ball contains the true value of
the block at the given point.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

import numpy as np

from oracle.core import arith
from oracle.core.rational import arb, arb_mat, to_arb
from oracle.core.blocks import Block
from oracle.core.errors import InputError

__all__ = ["BallBlock", "prepare", "eval_ball_batch", "eval_interval_batch"]


def _matrix_from_f64(a: np.ndarray) -> arb_mat:
    """Exact arb_mat copy of a float64 matrix (each entry a dyadic rational)."""
    a = np.asarray(a, dtype=np.float64)
    r, c = a.shape
    return arb_mat(r, c, [arb(v) for v in a.ravel().tolist()])


def _points_matrix(X: Any, d: int) -> tuple[arb_mat, int]:
    """The batch as a (d+1) x n arb_mat [X^T ; 1] and the number n of points."""
    # float arrays enter exactly; integer and object arrays go through to_arb (no rounding)
    if isinstance(X, np.ndarray) and np.issubdtype(X.dtype, np.floating):
        A = np.atleast_2d(np.asarray(X, dtype=np.float64))
        if A.ndim != 2 or A.shape[1] != d:
            raise InputError(f"points must form an n x {d} array, got shape {A.shape}")
        if not np.all(np.isfinite(A)):
            raise InputError("points contain NaN or Inf")
        n = A.shape[0]
        ext = np.vstack([A.T, np.ones((1, n))])
        return _matrix_from_f64(ext), n
    rows = [list(p) for p in X]
    for p in rows:
        if len(p) != d:
            raise InputError(f"point has {len(p)} coordinates, block expects d = {d}")
    n = len(rows)
    entries = [to_arb(rows[j][i]) for i in range(d) for j in range(n)]
    entries += [arb(1)] * n
    return arb_mat(d + 1, n, entries), n


@dataclass
class BallBlock:
    """A block with its weights converted once to exact Arb matrices, ready for batches."""

    block: Block
    up: arb_mat  # m x (d+1): [W_up | b_up]
    gate: Optional[arb_mat]  # m x (d+1): [W_gate | b_gate], gated blocks only
    down: arb_mat  # d x (m+d+1) with skip, d x (m+1) without: [W_down | M | b_down]
    fn: Callable[[arb], arb]
    prec: int

    def eval(self, X: Any) -> list[list[arb]]:
        """Balls for every output coordinate at every point of X (n x d); result[j][k] = F(x_j)_k."""
        b = self.block
        d, m = b.d, b.m
        with arith.precision("ball", self.prec):
            Xe, n = _points_matrix(X, d)
            if n == 0:
                return []
            pre = (self.up * Xe).entries()  # row-major m x n
            if self.gate is not None:
                g = (self.gate * Xe).entries()
                fn = self.fn
                hidden = [fn(gv) * pv for gv, pv in zip(g, pre)]
            else:
                fn = self.fn
                hidden = [fn(pv) for pv in pre]
            if b.skip() is not None:
                # stack [H ; X ; 1]: Xe already holds [X^T ; 1] row-major
                rhs = arb_mat(m + d + 1, n, hidden + Xe.entries())
            else:
                rhs = arb_mat(m + 1, n, hidden + Xe.entries()[d * n:])
            out = (self.down * rhs).entries()  # row-major d x n
        return [[out[k * n + j] for k in range(d)] for j in range(n)]


def prepare(block: Block, prec: int = arith.DEFAULT_PREC) -> BallBlock:
    """Convert a block's weights once (exactly) for repeated batch evaluation at ``prec`` bits."""
    if prec < 53:
        raise InputError("ball precision must be at least 53 bits (float64 weights enter exactly)")
    m, d = block.m, block.d
    zeros_m = np.zeros((m, 1))
    b_up = zeros_m if block.b_up is None else block.b_up.reshape(m, 1)
    up = _matrix_from_f64(np.hstack([block.W_up, b_up]))
    gate = None
    if block.gated:
        b_g = zeros_m if block.b_gate is None else block.b_gate.reshape(m, 1)
        gate = _matrix_from_f64(np.hstack([block.W_gate, b_g]))
    b_down = np.zeros((d, 1)) if block.b_down is None else block.b_down.reshape(d, 1)
    S = block.skip()
    parts = [block.W_down] + ([S] if S is not None else []) + [b_down]
    down = _matrix_from_f64(np.hstack(parts))
    return BallBlock(block, up, gate, down, block.act.ball, prec)


def eval_ball_batch(block: Block, X: Any, prec: int = arith.DEFAULT_PREC) -> list[list[arb]]:
    """Rigorous balls for the block (skip included for residual blocks) at every point of X.

    X is an n x d float64 array (entries enter exactly) or a sequence of points whose
    coordinates are floats, ints, Fractions or arb balls; the result is a list of n
    lists of d balls, each containing the exact output coordinate.
    """
    return prepare(block, prec).eval(X)


def eval_interval_batch(block: Block, X: Any,
                        prec: int = arith.DEFAULT_PREC) -> tuple[np.ndarray, np.ndarray]:
    """Float64 arrays (lo, hi), each n x d, rounded outward so that lo <= F(x) <= hi entrywise."""
    balls = eval_ball_batch(block, X, prec)
    n = len(balls)
    d = block.d
    lo = np.empty((n, d))
    hi = np.empty((n, d))
    for j, row in enumerate(balls):
        for k, ball in enumerate(row):
            lo[j, k], hi[j, k] = arith.ball_to_interval(ball)
    return lo, hi


def max_relative_radius(balls: Sequence[Sequence[arb]]) -> float:
    """The largest rad / max(1, |mid|) over a batch result (a tightness measure, rounded to float)."""
    worst = 0.0
    for row in balls:
        for b in row:
            r = float(b.rad())
            worst = max(worst, r / max(1.0, abs(float(b.mid()))))
    return worst
