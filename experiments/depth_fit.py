#!/usr/bin/env python3
"""Evidence for the depth open problem: least-squares fits of plain relu stacks to residual stacks.

For a random bias-free residual relu stack F = (I + B_L) o ... o (I + B_1) on R^d we fit a plain
stack P = B'_L o ... o B'_1 (B'(x) = W' relu(V x), no skip) of chosen widths to F at sample points,
first with Adam from random starts, then polish the best starts with scipy's trust-region
least-squares solver (method "trf") and an analytic Jacobian.  The reported error is the relative
squared error sum |P(x_k) - F(x_k)|^2 / sum |F(x_k)|^2 over the fit points.

THIS IS FLOATING-POINT EVIDENCE, NOT PROOF.  A fit that reaches ~1e-30 strongly suggests an exact
representation exists (and for added width max(m + d, 2d) - m one is constructed and verified exactly
by the claim `depth-width`); a fit that stalls at 1e-2 suggests, but does not prove, that none exists.
The proofs are in proofs/informal/depth-*.md and proofs/informal/open-problem.md.

Every random draw comes from numpy's default_rng with a seed listed in the output.

Usage:  nice python experiments/depth_fit.py            # full run (< 10 min on 2 cores), writes the JSON
        python experiments/depth_fit.py --quick --out /tmp/x.json   # smoke test (seconds)
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import sys

# One BLAS thread: the Jacobians are small, and threaded SVDs on a shared 2-core machine are
# dozens of times slower than single-threaded ones (measured: 0.8 s vs 0.02 s per call).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np
from scipy.optimize import least_squares

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "depth_fit_results.json"
BASE_SEED = 20260423  # every seed below is BASE_SEED + a small offset, listed in the output


# ---------------------------------------------------------------- stacks

def residual_stack(d: int, widths: list[int], rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """Random residual blocks (U, W): U ~ N(0, 1), W ~ N(0, 1/m) entrywise."""
    return [(rng.standard_normal((m, d)), rng.standard_normal((d, m)) / np.sqrt(m)) for m in widths]


def eval_residual(blocks: list[tuple[np.ndarray, np.ndarray]], X: np.ndarray) -> np.ndarray:
    """x -> x + W relu(U x), block after block (rows of X are points)."""
    H = X
    for U, W in blocks:
        H = H + np.maximum(H @ U.T, 0.0) @ W.T
    return H


def shapes(d: int, widths: list[int]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Shapes of (V_l, W'_l) for a plain stack."""
    return [((m, d), (d, m)) for m in widths]


def unpack(theta: np.ndarray, d: int, widths: list[int]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Flat parameter vector -> list of (V_l, W'_l)."""
    out, k = [], 0
    for (sv, sw) in shapes(d, widths):
        nv, nw = sv[0] * sv[1], sw[0] * sw[1]
        out.append((theta[k:k + nv].reshape(sv), theta[k + nv:k + nv + nw].reshape(sw)))
        k += nv + nw
    return out


def n_params(d: int, widths: list[int]) -> int:
    """Number of plain-stack parameters, 2 d sum(widths)."""
    return 2 * d * sum(widths)


def forward_plain(theta: np.ndarray, d: int, widths: list[int], X: np.ndarray):
    """Plain stack output and the cache needed for backpropagation."""
    cache = []
    H = X
    for V, W in unpack(theta, d, widths):
        Z = H @ V.T
        A = np.maximum(Z, 0.0)
        cache.append((H, Z, A, V, W))
        H = A @ W.T
    return H, cache


def loss_grad(theta: np.ndarray, d: int, widths: list[int], X: np.ndarray, Y: np.ndarray,
              scale: float) -> tuple[float, np.ndarray]:
    """Relative squared error and its gradient (reverse mode)."""
    out, cache = forward_plain(theta, d, widths, X)
    R = out - Y
    loss = float(np.sum(R * R) / scale)
    G = 2.0 * R / scale
    grads = []
    for H, Z, A, V, W in reversed(cache):
        dW = G.T @ A
        GZ = (G @ W) * (Z > 0)
        dV = GZ.T @ H
        grads.append((dV, dW))
        G = GZ @ V
    flat = np.concatenate([np.concatenate([dV.ravel(), dW.ravel()]) for dV, dW in reversed(grads)])
    return loss, flat


def residual_vector(theta, d, widths, X, Y, scale):
    """Residuals (P(x_k) - F(x_k)) / sqrt(scale), flattened."""
    out, _ = forward_plain(theta, d, widths, X)
    return ((out - Y) / np.sqrt(scale)).ravel()


def jacobian(theta, d, widths, X, Y, scale):
    """Analytic Jacobian of residual_vector: per-sample reverse mode, one output coordinate at a time."""
    out, cache = forward_plain(theta, d, widths, X)
    n = X.shape[0]
    J = np.zeros((n, d, theta.size))
    for c in range(d):
        G = np.zeros((n, d))
        G[:, c] = 1.0
        blocks = []
        for H, Z, A, V, W in reversed(cache):
            dW = np.einsum("ni,nj->nij", G, A)            # (n, d, m)
            GZ = (G @ W) * (Z > 0)
            dV = np.einsum("ni,nj->nij", GZ, H)           # (n, m, d)
            blocks.append((dV.reshape(n, -1), dW.reshape(n, -1)))
            G = GZ @ V
        J[:, c, :] = np.concatenate([np.concatenate([a, b], axis=1) for a, b in reversed(blocks)], axis=1)
    return J.reshape(n * d, theta.size) / np.sqrt(scale)


# ---------------------------------------------------------------- optimisers

def adam(theta: np.ndarray, d, widths, X, Y, scale, steps: int, lr: float = 1e-2) -> tuple[np.ndarray, float]:
    """Plain Adam with a cosine learning-rate decay; returns the best iterate seen."""
    m1 = np.zeros_like(theta)
    m2 = np.zeros_like(theta)
    b1, b2, eps = 0.9, 0.999, 1e-12
    best, best_loss = theta.copy(), np.inf
    for t in range(1, steps + 1):
        loss, g = loss_grad(theta, d, widths, X, Y, scale)
        if loss < best_loss:
            best, best_loss = theta.copy(), loss
        m1 = b1 * m1 + (1 - b1) * g
        m2 = b2 * m2 + (1 - b2) * g * g
        step = lr * 0.5 * (1 + np.cos(np.pi * t / steps))
        theta = theta - step * (m1 / (1 - b1 ** t)) / (np.sqrt(m2 / (1 - b2 ** t)) + eps)
    loss, _ = loss_grad(theta, d, widths, X, Y, scale)
    if loss < best_loss:
        best, best_loss = theta.copy(), loss
    return best, best_loss


def polish(theta: np.ndarray, d, widths, X, Y, scale, max_nfev: int) -> tuple[np.ndarray, float]:
    """Trust-region reflective least squares with the analytic Jacobian."""
    res = least_squares(residual_vector, theta, jac=jacobian, args=(d, widths, X, Y, scale),
                        method="trf", ftol=1e-15, xtol=1e-15, gtol=1e-15, max_nfev=max_nfev)
    r = res.fun
    return res.x, float(r @ r)


def init_plain(d: int, widths: list[int], rng: np.random.Generator) -> np.ndarray:
    """He-style random start: V ~ N(0, 2/d), W' ~ N(0, 1/m)."""
    parts = []
    for m in widths:
        parts.append(rng.standard_normal(m * d) * np.sqrt(2.0 / d))
        parts.append(rng.standard_normal(d * m) / np.sqrt(m))
    return np.concatenate(parts)


def warm_start(blocks, d: int, widths: list[int], rng: np.random.Generator, noise: float) -> Optional[np.ndarray]:
    """The exact per-layer construction of `depth-width` (x + B(x) as a plain block of width
    m + d, rank U = d), perturbed by relative noise; None when the widths do not fit it."""
    parts = []
    for (U, W), w in zip(blocks, widths):
        m = U.shape[0]
        if w < m + d or np.linalg.matrix_rank(U) < d:
            return None
        rows = _independent_rows(U, d)
        Bm = -np.linalg.inv(U[rows])              # columns b_k with sum_k b_k u_k^T = -I
        V = np.vstack([U, -U[rows]])
        Wp = np.hstack([W, Bm]).copy()
        for k, i in enumerate(rows):
            Wp[:, i] -= Bm[:, k]
        pad = w - V.shape[0]
        V = np.vstack([V, np.zeros((pad, d))])
        Wp = np.hstack([Wp, np.zeros((d, pad))])
        parts += [V.ravel(), Wp.ravel()]
    theta = np.concatenate(parts)
    return theta * (1 + noise * rng.standard_normal(theta.size))


def _independent_rows(U: np.ndarray, d: int) -> list[int]:
    rows: list[int] = []
    for i in range(U.shape[0]):
        if np.linalg.matrix_rank(U[rows + [i]]) == len(rows) + 1:
            rows.append(i)
        if len(rows) == d:
            break
    return rows


# ---------------------------------------------------------------- one run

@dataclass
class Config:
    """One fit: a residual stack (seeded) against plain stacks of the given widths."""

    label: str
    d: int
    residual_widths: list[int]
    plain_widths: list[int]
    seed: int
    restarts: int
    adam_steps: int
    polish_top: int
    max_nfev: int
    n_points: int
    warm: bool = False


def run(cfg: Config) -> dict:
    """Fit and return the run record of the results schema."""
    t0 = time.perf_counter()
    rng = np.random.default_rng(cfg.seed)
    blocks = residual_stack(cfg.d, cfg.residual_widths, rng)
    X = rng.standard_normal((cfg.n_points, cfg.d))
    Y = eval_residual(blocks, X)
    scale = float(np.sum(Y * Y))
    starts = []
    for r in range(cfg.restarts):
        srng = np.random.default_rng(cfg.seed * 1000 + r)
        if cfg.warm:
            theta0 = warm_start(blocks, cfg.d, cfg.plain_widths, srng, noise=0.05)
            if theta0 is None:
                raise SystemExit(f"{cfg.label}: widths do not fit the warm-start construction")
        else:
            theta0 = init_plain(cfg.d, cfg.plain_widths, srng)
        starts.append(adam(theta0, cfg.d, cfg.plain_widths, X, Y, scale, cfg.adam_steps))
    starts.sort(key=lambda s: s[1])
    best = starts[0][1]
    for theta, _ in starts[:cfg.polish_top]:
        _, err = polish(theta, cfg.d, cfg.plain_widths, X, Y, scale, cfg.max_nfev)
        best = min(best, err)
    return {"label": cfg.label, "d": cfg.d, "residual_widths": cfg.residual_widths,
            "plain_widths": cfg.plain_widths,
            "added_width": cfg.plain_widths[0] - cfg.residual_widths[0],
            "best_error": best, "restarts": cfg.restarts,
            "seconds": round(time.perf_counter() - t0, 2)}


def configs(quick: bool) -> list[Config]:
    """The experiment list; quick mode keeps a few small runs with short budgets."""
    S = BASE_SEED
    if quick:
        kw = dict(restarts=2, adam_steps=300, polish_top=1, max_nfev=60, n_points=60)
        return [
            Config("depth-1 control d=2, m=3, plain width m", 2, [3], [3], S + 1, **kw),
            Config("depth-1 control d=2, m=3, plain width m+d", 2, [3], [5], S + 1, **kw),
            Config("d=1 residual (1,1), plain (2,2)", 1, [1, 1], [2, 2], S + 2, **kw),
            Config("d=2 residual (2,2), plain (2,2)", 2, [2, 2], [2, 2], S + 3, **kw),
        ]
    kw = dict(restarts=16, adam_steps=3000, polish_top=4, max_nfev=600, n_points=300)
    out = [
        Config("depth-1 control d=2, m=3, plain width m", 2, [3], [3], S + 1, **kw),
        Config("depth-1 control d=2, m=3, plain width m+1", 2, [3], [4], S + 1, **kw),
        Config("depth-1 control d=2, m=3, plain width m+d", 2, [3], [5], S + 1, **kw),
        Config("d=1 residual (1,1), plain (1,1)", 1, [1, 1], [1, 1], S + 2, **kw),
        Config("d=1 residual (1,1), plain (2,2)", 1, [1, 1], [2, 2], S + 2, **kw),
    ]
    for no, inst in enumerate((4, 6), 1):
        for k in range(4):
            w = 3 + k
            out.append(Config(f"d=2 residual (3,3) #{no}, plain ({w},{w})", 2, [3, 3], [w, w],
                              S + inst, **kw))
        out.append(Config(f"d=2 residual (3,3) #{no}, plain (5,5), warm start "
                          "(exact construction + 5% noise)", 2, [3, 3], [5, 5], S + inst, warm=True,
                          **{**kw, "restarts": 2}))
    kw3 = dict(restarts=10, adam_steps=3000, polish_top=3, max_nfev=400, n_points=300)
    for no, inst in enumerate((5, 7), 1):
        for k in range(4):
            w = 4 + k
            out.append(Config(f"d=3 residual (4,4) #{no}, plain ({w},{w})", 3, [4, 4], [w, w],
                              S + inst, **kw3))
        out.append(Config(f"d=3 residual (4,4) #{no}, plain (7,7), warm start "
                          "(exact construction + 5% noise)", 3, [4, 4], [7, 7], S + inst, warm=True,
                          **{**kw3, "restarts": 2}))
    return out


def main(argv: Optional[list[str]] = None) -> int:
    """Run the experiments and write the results JSON."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a few small runs (smoke test)")
    p.add_argument("--out", default=None, help=f"results file (default {DEFAULT_OUT.name} in full mode; "
                                               "quick mode writes only when --out is given)")
    args = p.parse_args(argv)
    cfgs = configs(args.quick)
    runs = []
    for c in cfgs:
        r = run(c)
        runs.append(r)
        print(f"{r['label']:<78} best {r['best_error']:.3e}  ({r['seconds']:.1f}s)", flush=True)
    doc = {"script": "experiments/depth_fit.py",
           "seeds": sorted({c.seed for c in cfgs}),
           "restart_seeds": "seed * 1000 + restart index",
           "generated": _dt.date.today().isoformat(),
           "note": "floating-point evidence, not proof",
           "mode": "quick" if args.quick else "full",
           "runs": runs}
    out = args.out or (None if args.quick else str(DEFAULT_OUT))
    if out:
        Path(out).write_text(json.dumps(doc, indent=2) + "\n")
        print(f"wrote {out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
