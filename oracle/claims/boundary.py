"""Boundary counterexamples: drop one hypothesis and the conclusion of a claim really fails.

Each function builds an explicit instance (proofs/informal/boundary-cases.md), verifies the
identity "residual block == residual-free block" (exactly in rationals where the activation
allows, otherwise with arb ball enclosures, which are evidence for an identity proved by
hand), confirms that the dropped hypothesis indeed fails on the instance, and returns a
Certificate whose data suffices for ``recheck_counterexample``.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any, Callable, Optional

from oracle.core import activations, arith
from oracle.core.blocks import exact_rank
from oracle.core.rational import arb, qmat, qvec, smat, svec
from oracle.algebra import flips
from oracle.algebra.exact import (BALL_PREC, all_index_sets_exact, balls_agree, eval_ball, eval_plain_q,
                                  identity, line_key)
from oracle.claims import depth_analytic, generic_weights
from oracle.algebra.canonical import relu_form_exact
from oracle.algebra.pl_check import ExactRelu, pl_equal
from oracle.algebra.relu_width import minimal_width
from oracle.algebra.stacks.layers import nondegenerate as nondegenerate_exact
from oracle.claims.absorption_width import lower_bound_table, spec_construction
from oracle.claims.base import Certificate, counterexample

Q = Fraction
# Sample points: integers, halves, thirds, sevenths, the break points and 0.
POINTS_1D = sorted({Q(n, k) for n in range(-12, 13) for k in (1, 2, 3, 7)})
POINTS_2D = [[a, b] for a in (Q(-5, 2), Q(-1), Q(0), Q(1, 3), Q(2)) for b in (Q(-7, 3), Q(0), Q(1), Q(5, 2))]


def _neg(a: list) -> list:
    return [[-v for v in row] for row in a]


def _exact_compare(lhs: Callable, rhs: Callable, pts: list) -> tuple[bool, int]:
    bad = sum(1 for p in pts if lhs(p) != rhs(p))
    return bad == 0, len(pts)


def _ball_compare(lhs: Callable, rhs: Callable, pts: list) -> tuple[bool, float]:
    worst, ok = 0.0, True
    for p in pts:
        good, w = balls_agree(lhs(p), rhs(p))
        ok, worst = ok and good, max(worst, w)
    return ok, worst


def _spec(act: str, W_up: Any, W_down: Any, **kw: Any) -> dict[str, Any]:
    """A block as exact strings (weights may also be closed-form strings for balls)."""
    out = {"activation": act, "W_up": smat(W_up), "W_down": W_down if isinstance(W_down, str) else smat(W_down)}
    for k, v in kw.items():
        if v is not None:
            out[k] = smat(v) if isinstance(v[0], list) else svec(v)
    return out


# ---------------------------------------------------------------- 1. k = 1

def _relu_flip_instance() -> tuple[list, list, list, list]:
    U, W = identity(2), _neg(identity(2))
    return U, W, _neg(U), W


@counterexample(claims=("homogeneous-impossible", "homogeneous-any-width"),
                dropped="k_ne_1",
                description="relu is homogeneous of degree 1: x + B(x) with W_up = I, W_down = -I "
                            "equals the relu block with W_up = -I, W_down = -I; two such blocks "
                            "compose to two plain blocks")
def relu_degree_one() -> Certificate:
    """k = 1: a relu residual block (and a stack of two) equals residual-free relu blocks."""
    U, W, U2, W2 = _relu_flip_instance()
    I = identity(2)
    F = lambda x: eval_plain_q("relu", U, W, x, M=I)  # noqa: E731
    G = lambda x: eval_plain_q("relu", U2, W2, x)  # noqa: E731
    ok1, n = _exact_compare(F, G, POINTS_2D)
    ok2, _ = _exact_compare(lambda x: F(F(x)), lambda x: G(G(x)), POINTS_2D)
    # Piecewise identity: coordinatewise x_k - relu(x_k) = -relu(-x_k), checked on both signs.
    piece = all(t - max(t, 0) == -max(-t, 0) for t in (Q(-3), Q(-1, 2), Q(0), Q(1, 5), Q(4)))
    S = all_index_sets_exact(U, W, I)
    holds = ok1 and ok2 and piece and S == [(0, 1)]
    return Certificate("homogeneous-impossible", holds, exact=True, method="exact rationals",
                       data={"kind": "relu_degree_one", "residual": _spec("relu", U, W, M=I),
                             "plain": _spec("relu", U2, W2), "points": [svec(p) for p in POINTS_2D],
                             "depth": 2, "index_sets": [list(s) for s in S], "degree": 1})


@counterexample(claims=("depth-impossible", "depth-any"), dropped="res_blocks_flat",
                description="relu blocks are not o(|x|) at 0: the depth-2 relu stack of "
                            "relu_degree_one equals a composition of two residual-free relu blocks")
def relu_stack_not_flat() -> Certificate:
    """Drop flatness in the depth theorems: a residual relu stack equals a residual-free stack."""
    cert = relu_degree_one()
    cert.claim = "depth-impossible"
    return cert


# ---------------------------------------------------------------- 2. biased relu2

RELU2_PLAIN = {"W_up": [[Q(1)], [Q(-1)], [Q(1)], [Q(-1)]], "b_up": [Q(1), Q(-1), Q(-1), Q(1)],
               "W_down": [[Q(1, 4), Q(1, 4), Q(-1, 4), Q(-1, 4)]]}


def relu2_pieces(W_up: list, b_up: list, W_down: list) -> list[tuple[str, list[Fraction]]]:
    """The biased relu2 block as a polynomial (coefficients of 1, x, x^2) on each piece of R (d = 1)."""
    breaks = sorted({-b / r[0] for r, b in zip(W_up, b_up) if r[0] != 0})
    probes = ([breaks[0] - 1] + [(a + c) / 2 for a, c in zip(breaks, breaks[1:])] + [breaks[-1] + 1]) \
        if breaks else [Q(0)]
    out = []
    for probe in probes:
        coeffs = [Q(0)] * 3
        for r, b, w in zip(W_up, b_up, W_down[0]):
            a = r[0]
            if a * probe + b > 0:  # the unit is active on this whole piece: add w (a x + b)^2
                coeffs[0] += w * b * b
                coeffs[1] += w * 2 * a * b
                coeffs[2] += w * a * a
        out.append((str(probe), coeffs))
    return out


@counterexample(claims=("homogeneous-impossible", "homogeneous-any-width"), dropped="bias_free",
                description="(relu(x+1)^2 + relu(-x-1)^2 - relu(x-1)^2 - relu(1-x)^2)/4 = x: a biased "
                            "width-4 relu2 block equals x + B(x) with W_down = 0")
def biased_relu2() -> Certificate:
    """Biases break homogeneity: a width-4 biased relu2 block computes x exactly."""
    P = RELU2_PLAIN
    B_up = [[Q(1)], [Q(2)], [Q(-1)], [Q(3)]]  # any weights; W_down = 0 makes B = 0
    B_down = [[Q(0)] * 4]
    F = lambda x: eval_plain_q("relu2", B_up, B_down, x, M=[[Q(1)]])  # noqa: E731
    G = lambda x: eval_plain_q("relu2", P["W_up"], P["W_down"], x, b_up=P["b_up"])  # noqa: E731
    ok, n = _exact_compare(F, G, [[t] for t in POINTS_1D])
    pieces = relu2_pieces(P["W_up"], P["b_up"], P["W_down"])
    poly_ok = all(c == [0, 1, 0] for _, c in pieces)
    # Homogeneity of degree 2 fails for the biased block: B'(2x) != 4 B'(x) at x = 1.
    nonhom = G([Q(2)]) != [4 * v for v in G([Q(1)])]
    holds = ok and poly_ok and nonhom
    return Certificate("homogeneous-impossible", holds, exact=True,
                       method="exact polynomial identity on each piece + exact rationals",
                       data={"kind": "biased_relu2", "residual": _spec("relu2", B_up, B_down, M=[[Q(1)]]),
                             "plain": _spec("relu2", P["W_up"], P["W_down"], b_up=P["b_up"]),
                             "pieces": [[p, svec(c)] for p, c in pieces],
                             "points": [[q] for q in svec(POINTS_1D)], "plain_not_homogeneous": nonhom})


# ---------------------------------------------------------------- 3. biased swiglu

def _swiglu_plain(d: int) -> dict[str, Any]:
    # Gate row 0 with gate bias 1: each unit computes silu(1) (e_k . x); output 1/silu(1) = 1 + e^-1.
    return {"W_gate": [[Q(0)] * d for _ in range(d)], "b_gate": [Q(1)] * d, "W_up": identity(d),
            "W_down": "(1 + exp(-1)) * I"}


def closed_form_down(d: int) -> list:
    """(1 + e^-1) I in arb balls: the W_down whose swiglu block with gate bias 1 is the identity."""
    with arith.precision("ball", BALL_PREC):
        c = 1 + arb(-1).exp()
        return [[c if i == j else arb(0) for j in range(d)] for i in range(d)]


@counterexample(claims=("gated-impossible", "gated-continuity"), dropped="bias_free",
                description="a swiglu unit with zero gate row and gate bias 1 computes silu(1)(u.x); "
                            "d such units with outputs e_k / silu(1) = (1 + e^-1) e_k equal x")
def biased_swiglu() -> Certificate:
    """Gate biases make the gate nonzero at 0: a biased width-d swiglu block equals x (d = 2)."""
    d = 2
    P = _swiglu_plain(d)
    Bg, Bu, Bd = [[Q(1), Q(-1)], [Q(2), Q(1)]], [[Q(1), Q(0)], [Q(1), Q(1)]], [[Q(0)] * d for _ in range(d)]
    down = closed_form_down(d)
    F = lambda x: eval_ball("swiglu", Bu, Bd, x, M=identity(d), W_gate=Bg)  # noqa: E731
    G = lambda x: eval_ball("swiglu", P["W_up"], down, x, W_gate=P["W_gate"], b_gate=P["b_gate"])  # noqa: E731
    ok, worst = _ball_compare(F, G, POINTS_2D)
    # The gate at the origin: silu(1) is enclosed away from 0, so the effective gate is not zero at 0.
    with arith.precision("ball", BALL_PREC):
        g1 = activations.get("swiglu").ball(arb(1))
    gate_nonzero = not g1.contains(0)
    holds = ok and gate_nonzero
    return Certificate("gated-impossible", holds, exact=False,
                       method=f"arb balls at {BALL_PREC} bits (identity proved: silu(1)(1 + e^-1) = 1)",
                       data={"kind": "biased_swiglu", "d": d,
                             "residual": _spec("swiglu", Bu, Bd, W_gate=Bg, M=identity(d)),
                             "plain": {"activation": "swiglu", "W_up": smat(P["W_up"]),
                                       "W_gate": smat(P["W_gate"]), "b_gate": svec(P["b_gate"]),
                                       "W_down": P["W_down"]},
                             "points": [svec(p) for p in POINTS_2D], "max_diff_bound": worst,
                             "silu_1": str(g1)})


# ---------------------------------------------------------------- 4. glu

GLU = {"W_gate": [[Q(1), Q(2)], [Q(-1), Q(1)]], "W_up": identity(2), "W_down": _neg(identity(2))}


@counterexample(claims=("gated-impossible", "gated-continuity"), dropped="gate_zero_at_0",
                description="sigmoid gate, g(0) = 1/2: x + B(x) with W_up = I, W_down = -I equals the "
                            "glu block with the gate rows and output columns negated")
def glu_gate_half() -> Certificate:
    """g(0) != 0: a glu residual block equals a glu block of the same width (sign flip)."""
    G0 = GLU
    G2, W2 = _neg(G0["W_gate"]), _neg(G0["W_down"])
    F = lambda x: eval_ball("glu", G0["W_up"], G0["W_down"], x, M=identity(2), W_gate=G0["W_gate"])  # noqa: E731
    G = lambda x: eval_ball("glu", G0["W_up"], W2, x, W_gate=G2)  # noqa: E731
    ok, worst = _ball_compare(F, G, POINTS_2D)
    with arith.precision("ball", BALL_PREC):
        g0 = activations.get("glu").ball(arb(0))
    half = g0.contains(Q(1, 2).numerator / arb(2)) and g0.rad() == 0 and not g0.contains(0)
    holds = ok and half
    return Certificate("gated-impossible", holds, exact=False,
                       method=f"arb balls at {BALL_PREC} bits (identity proved from g(z) + g(-z) = 1)",
                       data={"kind": "glu_gate_half",
                             "residual": _spec("glu", G0["W_up"], G0["W_down"], W_gate=G0["W_gate"], M=identity(2)),
                             "plain": _spec("glu", G0["W_up"], W2, W_gate=G2),
                             "points": [svec(p) for p in POINTS_2D], "max_diff_bound": worst,
                             "g_at_0": str(g0)})


# ---------------------------------------------------------------- 5. width m + d

@counterexample(claims=("relu-gelu-iff",), dropped="same_width",
                description="W_up = W_down = I (d = m = 2): no index set gives -I, yet x + B(x) = "
                            "2 relu(x_k) - relu(-x_k) coordinatewise, a relu block of width m + d = 4")
def width_m_plus_d() -> Certificate:
    """A nondegenerate relu block with no index set is absorbed at width m + d."""
    U, W, I = identity(2), identity(2), identity(2)
    S = all_index_sets_exact(U, W, I)
    con = spec_construction(U, W)
    F = lambda x: eval_plain_q("relu", U, W, x, M=I)  # noqa: E731
    G = lambda x: eval_plain_q("relu", con["W_up"], con["W_down"], x)  # noqa: E731
    ok, _ = _exact_compare(F, G, POINTS_2D)
    holds = ok and S == [] and len(con["W_up"]) == 4
    return Certificate("relu-gelu-iff", holds, exact=True, method="exact rationals, all 2^m index sets",
                       data={"kind": "width_m_plus_d", "residual": _spec("relu", U, W, M=I),
                             "plain": _spec("relu", con["W_up"], con["W_down"]), "index_sets": [],
                             "points": [svec(p) for p in POINTS_2D], "width": 4, "m": 2, "d": 2})


# ---------------------------------------------------------------- 6. singular M

@counterexample(claims=("homogeneous-impossible", "gated-impossible"), dropped="M_nonzero",
                description="M = 0: F = B, so B' = B absorbs (relu2 and swiglu blocks)")
def zero_skip() -> Certificate:
    """M = 0 is trivially absorbable: the residual-free block is B itself."""
    Z = [[Q(0)] * 2 for _ in range(2)]
    U, W, Gt = [[Q(1), Q(-2)], [Q(3), Q(1)], [Q(-1), Q(1)]], [[Q(1), Q(2), Q(-1)], [Q(0), Q(1), Q(1)]], \
        [[Q(2), Q(1)], [Q(-1), Q(1)], [Q(1), Q(1)]]
    ok2, _ = _exact_compare(lambda x: eval_plain_q("relu2", U, W, x, M=Z),
                            lambda x: eval_plain_q("relu2", U, W, x), POINTS_2D)
    oks, worst = _ball_compare(lambda x: eval_ball("swiglu", U, W, x, M=Z, W_gate=Gt),
                               lambda x: eval_ball("swiglu", U, W, x, W_gate=Gt), POINTS_2D)
    holds = ok2 and oks
    return Certificate("homogeneous-impossible", holds, exact=True,
                       method="exact rationals (relu2); swiglu weights identical, balls as evidence",
                       data={"kind": "zero_skip", "M": smat(Z), "relu2": _spec("relu2", U, W),
                             "swiglu": _spec("swiglu", U, W, W_gate=Gt),
                             "points": [svec(p) for p in POINTS_2D], "max_diff_bound": worst})


@counterexample(claims=("skip-reduction", "relu-gelu-iff"), dropped="M_invertible",
                description="M = (1/2) 1 1^T (d = 2, singular, doubly stochastic): a width-1 relu block "
                            "absorbs Mx with S = {1}, |S| = 1 < d; the identity skip with the same B "
                            "is not absorbable at width 1")
def singular_skip() -> Certificate:
    """A singular nonzero M absorbed at width 1 < d, so |S| >= d and the reduction to M = I fail."""
    M = [[Q(1, 2), Q(1, 2)], [Q(1, 2), Q(1, 2)]]
    U, W = [[Q(1), Q(1)]], [[Q(-1, 2)], [Q(-1, 2)]]
    U2 = _neg(U)
    ok, _ = _exact_compare(lambda x: eval_plain_q("relu", U, W, x, M=M),
                           lambda x: eval_plain_q("relu", U2, W, x), POINTS_2D)
    S = all_index_sets_exact(U, W, M)
    S_identity = all_index_sets_exact(U, W, identity(2))
    rank_M = exact_rank(M)
    holds = ok and S == [(0,)] and rank_M == 1 and S_identity == []
    return Certificate("relu-gelu-iff", holds, exact=True, method="exact rationals",
                       data={"kind": "singular_skip", "residual": _spec("relu", U, W, M=M),
                             "plain": _spec("relu", U2, W), "index_sets": [list(s) for s in S],
                             "rank_M": rank_M, "index_sets_for_identity_skip": [],
                             "points": [svec(p) for p in POINTS_2D]})


# ---------------------------------------------------------------- further: nondegeneracy

@counterexample(claims=("relu-gelu-iff",), dropped="nondegenerate",
                description="collinear rows, d = 1: x + 2 relu(x) + 2 relu(-x) = 3 relu(x) + relu(-x), "
                            "yet the subset sums of w_i u_i are 0, 2, -2, 0, never -1")
def collinear_rows() -> Certificate:
    """Nondegeneracy is needed for necessity: a degenerate block absorbs without an index set."""
    U, W, I = [[Q(1)], [Q(-1)]], [[Q(2), Q(2)]], [[Q(1)]]
    U2, W2 = [[Q(1)], [Q(-1)]], [[Q(3), Q(1)]]
    ok, _ = _exact_compare(lambda x: eval_plain_q("relu", U, W, x, M=I),
                           lambda x: eval_plain_q("relu", U2, W2, x), [[t] for t in POINTS_1D])
    S = all_index_sets_exact(U, W, I)
    degenerate = line_key(U[0]) == line_key(U[1])
    holds = ok and S == [] and degenerate
    return Certificate("relu-gelu-iff", holds, exact=True, method="exact rationals",
                       data={"kind": "collinear_rows", "residual": _spec("relu", U, W, M=I),
                             "plain": _spec("relu", U2, W2), "index_sets": [],
                             "points": [[q] for q in svec(POINTS_1D)]})


# ---------------------------------------------------------------- further: a biased residual block

BIASED_RESIDUAL = {"W_up": [[Q(1)]], "b_up": [Q(1)], "W_down": [[Q(1)]], "M": [[Q(1)]]}
BIASED_RESIDUAL_PLAIN = {"W_up": [[Q(1)], [Q(-1)]], "b_up": [Q(1), Q(-1)], "W_down": [[Q(2), Q(-1)]],
                         "b_down": [Q(-1)]}


def _biased_residual_facts(res: dict[str, Any], pl: dict[str, Any]) -> dict[str, Any]:
    """What makes x + relu(x + 1) a boundary case of absorption-width and depth-width, recomputed
    from exact weights: the hypotheses other than bias_free hold (relu, rank W_up = d, a nondegenerate
    block), the claimed width m + C = m + d is reached by a *biased* relu block (proved equal by the
    exact piecewise-linear test), and F(0) != 0, so no bias-free relu block (relu(0) = 0) equals F."""
    U, b, W, M = res["W_up"], res["b_up"], res["W_down"], res["M"]
    d, m = len(W), len(U)
    F = ExactRelu(U, W, b_up=b, M=M)
    G = ExactRelu(pl["W_up"], pl["W_down"], b_up=pl["b_up"], b_down=pl["b_down"])
    lb = lower_bound_table(U, W, M)
    star = minimal_width(relu_form_exact(U, W, M=M, b_up=b))
    return {"equal": pl_equal(F, G), "F_at_0": svec(F([Q(0)] * d)), "C": lb["C"], "m": m, "d": d,
            "plain_width": len(pl["W_up"]), "rank_W_up": exact_rank(U),
            "nondegenerate": nondegenerate_exact(U, W), "biased": any(v != 0 for v in b),
            "m_star_biased": star.lower if star.exact else None}


def _biased_residual_holds(f: dict[str, Any]) -> bool:
    return (f["equal"] and any(Q(v) != 0 for v in f["F_at_0"]) and f["biased"] and f["nondegenerate"]
            and f["rank_W_up"] == f["d"] and f["plain_width"] == f["m"] + f["C"] == f["m"] + f["d"]
            and f["m_star_biased"] == f["plain_width"])


@counterexample(claims=("absorption-width", "depth-width"), dropped="bias_free",
                description="d = m = 1, M = 1, u = 1, b_up = 1, w = 1: x + relu(x + 1) = 2 relu(x + 1) - "
                            "relu(-x - 1) - 1 (width m + C = m + d = 2 with biases), but F(0) = 1, so no "
                            "bias-free block equals it")
def biased_residual_block() -> Certificate:
    """Drop bias_free in absorption-width and depth-width: the width m + d is reached only with biases."""
    res, pl = BIASED_RESIDUAL, BIASED_RESIDUAL_PLAIN
    facts = _biased_residual_facts(res, pl)
    holds = _biased_residual_holds(facts)
    return Certificate("absorption-width", holds, exact=True,
                       method="exact rationals (1-D piecewise-linear identity; F(0) != 0)",
                       data={"kind": "biased_residual_block",
                             "residual": _spec("relu", res["W_up"], res["W_down"], b_up=res["b_up"], M=res["M"]),
                             "plain": _spec("relu", pl["W_up"], pl["W_down"], b_up=pl["b_up"], b_down=pl["b_down"]),
                             "points": [[q] for q in svec(POINTS_1D)], **facts})


BOUNDARY = [relu_degree_one, relu_stack_not_flat, biased_relu2, biased_swiglu, glu_gate_half, width_m_plus_d,
            zero_skip, singular_skip, collinear_rows, biased_residual_block]


# ---------------------------------------------------------------- biased flips (relu2-biased, gated-biased)

def _flip_sets(kind: str, U: list, W: list, M: list, b: list, G: Any = None, c: Any = None) -> list[list[int]]:
    """Every flip set of a small block (all 2^m subsets, exact)."""
    fd = flips.flip_data(kind, U, W, M, b_up=b, W_gate=G, b_gate=c)
    return [[i for i in range(fd.m) if (mask >> i) & 1] for mask in range(1 << fd.m)
            if flips.verify_flip_set(fd, [i for i in range(fd.m) if (mask >> i) & 1])]


RELU2_REPEATED = {"W_up": [[Q(1)], [Q(-1)], [Q(1)]], "b_up": [Q(0), Q(0), Q(1, 2)], "W_down": [[Q(1), Q(-1), Q(1)]]}
RELU2_REPEATED_PLAIN = {"W_up": [[Q(-1)], [Q(1)], [Q(-1)]], "b_up": [Q(0), Q(1, 2), Q(-1, 2)],
                        "W_down": [[Q(-2), Q(2), Q(1)]], "b_down": [Q(-1, 4)]}
RELU2_WIDE_PLAIN = {"W_up": [[Q(-1)], [Q(1)], [Q(-1)]], "b_up": [Q(0), Q(1, 2), Q(-1, 2)],
                    "W_down": [[Q(-1), Q(1), Q(1)]], "b_down": [Q(-1, 4)]}


def _relu2_d1_identity(res: dict[str, Any], pl: dict[str, Any]) -> tuple[bool, list]:
    """x + B(x) = B'(x) for d = 1 relu2 blocks: the polynomial of each side on every piece between the
    union of both sides' kink points (exact), plus the values at the sample points."""
    def pieces_poly(blk: dict[str, Any], skip: bool) -> Callable:
        def at(x: Fraction) -> list[Fraction]:  # coefficients (1, x, x^2) of the block on the piece of x
            co = [Q(0), Q(1) if skip else Q(0), Q(0)]
            for r, bb, w in zip(blk["W_up"], blk["b_up"], blk["W_down"][0]):
                a = r[0]
                if a * x + bb > 0:
                    co = [co[0] + w * bb * bb, co[1] + 2 * w * a * bb, co[2] + w * a * a]
            co[0] += blk.get("b_down", [Q(0)])[0]
            return co
        return at
    kinks = sorted({-bb / r[0] for blk in (res, pl) for r, bb in zip(blk["W_up"], blk["b_up"]) if r[0] != 0})
    probes = [kinks[0] - 1] + [(a + c) / 2 for a, c in zip(kinks, kinks[1:])] + [kinks[-1] + 1]
    F, G = pieces_poly(res, True), pieces_poly(pl, False)
    return all(F(p) == G(p) for p in probes), [str(p) for p in probes]


def _relu2_counterexample(kind: str, res: dict[str, Any], pl: dict[str, Any]) -> Certificate:
    same, probes = _relu2_d1_identity(res, pl)
    Fv = lambda x: eval_plain_q("relu2", res["W_up"], res["W_down"], x, M=[[Q(1)]], b_up=res["b_up"])  # noqa: E731
    Gv = lambda x: eval_plain_q("relu2", pl["W_up"], pl["W_down"], x, b_up=pl["b_up"], b_down=pl["b_down"])  # noqa: E731
    ok, _ = _exact_compare(Fv, Gv, [[t] for t in POINTS_1D])
    S = _flip_sets("relu2", res["W_up"], res["W_down"], [[Q(1)]], res["b_up"])
    holds = same and ok and S == [] and len(pl["W_up"]) == (len(res["W_up"]) if kind == "relu2_repeated_hyperplane" else 3)
    return Certificate("relu2-biased", holds, exact=True,
                       method="exact polynomial identity on every piece + exact rationals; all 2^m flip sets",
                       data={"kind": kind, "residual": _spec("relu2", res["W_up"], res["W_down"], b_up=res["b_up"],
                                                             M=[[Q(1)]]),
                             "plain": _spec("relu2", pl["W_up"], pl["W_down"], b_up=pl["b_up"], b_down=pl["b_down"]),
                             "piece_probes": probes, "flip_sets": S, "points": [[q] for q in svec(POINTS_1D)]})


@counterexample(claims=("relu2-biased",), dropped="distinct_kink_hyperplanes",
                description="d = 1: x + relu2(x) - relu2(-x) + relu2(x + 1/2) (units 1 and 2 share the kink x = 0, "
                            "every unit nonzero) has no flip set, yet equals -2 relu2(-x) + 2 relu2(x + 1/2) + "
                            "relu2(-x - 1/2) - 1/4, a relu2 block of the same width 3")
def relu2_repeated_hyperplane() -> Certificate:
    """Two units on one kink hyperplane: absorbed at the same width without a flip set."""
    return _relu2_counterexample("relu2_repeated_hyperplane", RELU2_REPEATED, RELU2_REPEATED_PLAIN)


@counterexample(claims=("relu2-biased",), dropped="same_width",
                description="d = 1, B = relu2(x) (width 1, no flip set): x + relu2(x) = -relu2(-x) + relu2(x + 1/2) + "
                            "relu2(-x - 1/2) - 1/4, a relu2 block of width 3")
def relu2_wider() -> Certificate:
    """A nondegenerate relu2 block without a flip set absorbs its skip at width m + 2."""
    res = {"W_up": [[Q(1)]], "b_up": [Q(0)], "W_down": [[Q(1)]]}
    return _relu2_counterexample("relu2_wider", res, RELU2_WIDE_PLAIN)


@counterexample(claims=("relu2-biased",), dropped="sigma_relu2",
                description="relu instead of relu2: x - relu(x) = -relu(-x) (d = m = 1), while the relu2 flip "
                            "condition w (u.x + b)^2 = -x^2 = -x + c fails")
def relu_not_relu2() -> Certificate:
    """For relu the flip removes a degree-1 term, so the relu2 flip condition is not necessary."""
    U, W, I = [[Q(1)]], [[Q(-1)]], [[Q(1)]]
    ok, _ = _exact_compare(lambda x: eval_plain_q("relu", U, W, x, M=I),
                           lambda x: eval_plain_q("relu", [[Q(-1)]], W, x), [[t] for t in POINTS_1D])
    S = _flip_sets("relu2", U, W, I, [Q(0)])
    holds = ok and S == []
    return Certificate("relu2-biased", holds, exact=True, method="exact rationals (piecewise linear, kink at 0 sampled)",
                       data={"kind": "relu_not_relu2", "residual": _spec("relu", U, W, M=I),
                             "plain": _spec("relu", [[Q(-1)]], W), "relu2_flip_sets": S,
                             "points": [[q] for q in svec(POINTS_1D)]})


@counterexample(claims=("gated-biased",), dropped="distinct_gate_classes",
                description="swiglu, d = 1: silu(x) x - silu(x) x = 0 (two units in one gate class, all nonzero), so "
                            "x + B(x) = x = silu(1) x - silu(-1) x, a width-2 block, yet no flip set (removed x^2, -x^2)")
def gated_repeated_class() -> Certificate:
    """Two units in one gate class cancel; the freed units absorb the skip without a flip set."""
    res = {"W_gate": [[Q(1)], [Q(1)]], "b_gate": [Q(0), Q(0)], "W_up": [[Q(1)], [Q(-1)]], "W_down": [[Q(1), Q(1)]]}
    return _gated_counterexample("gated_repeated_class", res, extra_units=0)


@counterexample(claims=("gated-biased",), dropped="same_width",
                description="swiglu, d = 1, B = silu(x) x (width 1, no flip set): x + B(x) = silu(x) x + silu(1) x - "
                            "silu(-1) x, a swiglu block of width 3")
def gated_wider() -> Certificate:
    """A nondegenerate gated block without a flip set absorbs its skip at width m + 2."""
    res = {"W_gate": [[Q(1)]], "b_gate": [Q(0)], "W_up": [[Q(1)]], "W_down": [[Q(1)]]}
    return _gated_counterexample("gated_wider", res, extra_units=2)


def _gated_counterexample(kind: str, res: dict[str, Any], extra_units: int) -> Certificate:
    m = len(res["W_up"])
    keep = m if extra_units else 0  # gated_wider keeps B's unit; gated_repeated_class drops both (they cancel)
    pl = {"W_gate": res["W_gate"][:keep] + [[Q(0)], [Q(0)]], "b_gate": res["b_gate"][:keep] + [Q(1), Q(-1)],
          "W_up": res["W_up"][:keep] + [[Q(1)], [Q(1)]], "W_down": [res["W_down"][0][:keep] + [Q(1), Q(-1)]]}
    Fb = lambda x: eval_ball("swiglu", res["W_up"], res["W_down"], x, M=[[Q(1)]], W_gate=res["W_gate"],  # noqa: E731
                             b_gate=res["b_gate"])
    Gb = lambda x: eval_ball("swiglu", pl["W_up"], pl["W_down"], x, W_gate=pl["W_gate"], b_gate=pl["b_gate"])  # noqa: E731
    ok, worst = _ball_compare(Fb, Gb, [[t] for t in POINTS_1D])
    S = _flip_sets("odd_gate", res["W_up"], res["W_down"], [[Q(1)]], [Q(0)] * m, res["W_gate"], res["b_gate"])
    # the identity behind it: silu(1) - silu(-1) = 1, enclosed
    with arith.precision("ball", BALL_PREC):
        g = activations.get("swiglu").ball
        odd = g(arb(1)) - g(arb(-1)) - 1
    width = len(pl["W_up"])
    holds = ok and S == [] and odd.contains(0) and width == m + extra_units
    return Certificate("gated-biased", holds, exact=False,
                       method=f"arb balls at {BALL_PREC} bits (identity proved from g(z) - g(-z) = z); all 2^m flip "
                              "sets exact",
                       data={"kind": kind, "residual": _spec("swiglu", res["W_up"], res["W_down"], W_gate=res["W_gate"],
                                                             b_gate=res["b_gate"], M=[[Q(1)]]),
                             "plain": _spec("swiglu", pl["W_up"], pl["W_down"], W_gate=pl["W_gate"], b_gate=pl["b_gate"]),
                             "flip_sets": S, "points": [[q] for q in svec(POINTS_1D)], "max_diff_bound": worst})


@counterexample(claims=("gated-biased",), dropped="gate_identifiable",
                description="bilinear gate g(z) = z, d = 1: x + x (x + 1) = x (x + 2), one unit, while no flip set "
                            "of either kind exists (w gamma nu = x^2 + x and w nu = x + 1 are never -x + c)")
def bilinear_gate() -> Certificate:
    """Without an identifiable gate the units of B' need not be those of B."""
    U, W, G, e = [[Q(1)]], [[Q(1)]], [[Q(1)]], [Q(1)]
    U2, e2 = [[Q(1)]], [Q(2)]
    Fv = lambda x: [x[0] + x[0] * (x[0] + 1)]  # noqa: E731
    Gv = lambda x: [x[0] * (x[0] + 2)]  # noqa: E731
    # both sides are polynomials of degree 2: equal values at three points means equal polynomials
    ok = all(Fv([t]) == Gv([t]) for t in (Q(-1), Q(0), Q(2))) and all(Fv([t]) == Gv([t]) for t in POINTS_1D)
    S_odd = _flip_sets("odd_gate", U, W, [[Q(1)]], e, G, [Q(0)])
    S_glu = _flip_sets("glu", U, W, [[Q(1)]], e, G, [Q(0)])
    holds = ok and S_odd == [] and S_glu == []
    return Certificate("gated-biased", holds, exact=True, method="exact polynomial identity (degree 2, three points)",
                       data={"kind": "bilinear_gate", "residual": _spec("bilinear", U, W, W_gate=G, b_up=e, M=[[Q(1)]]),
                             "plain": _spec("bilinear", U2, W, W_gate=G, b_up=e2), "flip_sets": [],
                             "points": [[q] for q in svec(POINTS_1D)]})


_FLIP_KINDS = ("relu2_repeated_hyperplane", "relu2_wider", "relu_not_relu2", "gated_repeated_class", "gated_wider",
               "bilinear_gate")


def _recheck_flip_counterexample(data: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    """Re-verify a counterexample of relu2-biased / gated-biased from its data: whether the boundary
    facts hold, and the stored facts recomputed from the weights (the caller compares them)."""
    kind = data["kind"]
    pts = [qvec(p) for p in data["points"]]
    res, pl = data["residual"], data["plain"]
    R = {k: (qmat(v) if isinstance(v[0], list) else qvec(v)) for k, v in res.items() if k != "activation"}
    P = {k: (qmat(v) if isinstance(v[0], list) else qvec(v)) for k, v in pl.items() if k != "activation"}
    M = R.get("M")
    if not pts or M != [[Q(1)]]:
        return False, {}
    if kind in ("relu2_repeated_hyperplane", "relu2_wider"):
        P.setdefault("b_down", [Q(0)])
        same, probes = _relu2_d1_identity(R, P)
        vals = all(eval_plain_q("relu2", R["W_up"], R["W_down"], x, M=M, b_up=R["b_up"])
                   == eval_plain_q("relu2", P["W_up"], P["W_down"], x, b_up=P["b_up"], b_down=P["b_down"]) for x in pts)
        S = _flip_sets("relu2", R["W_up"], R["W_down"], M, R["b_up"])
        keys = [line_key([r[0], b]) for r, b in zip(R["W_up"], R["b_up"])]
        if kind == "relu2_repeated_hyperplane":
            shape = len(set(keys)) < len(keys) and all(w != 0 for w in R["W_down"][0]) and len(P["W_up"]) == len(R["W_up"])
        else:
            shape = len(R["W_up"]) == 1 and len(P["W_up"]) == 3 and R["W_down"][0][0] != 0 and R["W_up"][0][0] != 0
        return same and vals and S == [] and shape, {"piece_probes": probes, "flip_sets": S}
    if kind == "relu_not_relu2":
        ok = all(eval_plain_q("relu", R["W_up"], R["W_down"], x, M=M) == eval_plain_q("relu", P["W_up"], P["W_down"], x)
                 for x in pts)
        S = _flip_sets("relu2", R["W_up"], R["W_down"], M, [Q(0)] * len(R["W_up"]))
        return ok and S == [] and res["activation"] == "relu", {"relu2_flip_sets": S}
    act = res["activation"]
    if act != pl["activation"] or act not in activations.CATALOG:
        return False, {}
    if kind in ("gated_repeated_class", "gated_wider"):
        # the other hypotheses of gated-biased (B) hold: an identifiable gate with g(z) - g(-z) = z
        if act not in activations.ODD_GATES or act not in activations.BIASED_FLIP_NECESSITY:
            return False, {}
        ok, worst = _ball_compare(lambda x: eval_ball(act, R["W_up"], R["W_down"], x, M=M, W_gate=R["W_gate"],
                                                      b_gate=R["b_gate"]),
                                  lambda x: eval_ball(act, P["W_up"], P["W_down"], x, W_gate=P["W_gate"],
                                                      b_gate=P["b_gate"]), pts)
        m = len(R["W_up"])
        S = _flip_sets("odd_gate", R["W_up"], R["W_down"], M, [Q(0)] * m, R["W_gate"], R["b_gate"])
        if kind == "gated_repeated_class":
            G = R["W_gate"]
            shape = m == 2 and G[0] == G[1] and G[0] != [Q(0)] and R["b_gate"][0] == R["b_gate"][1] \
                and len(P["W_up"]) == 2 and all(w != 0 for w in R["W_down"][0])
        else:
            shape = m == 1 and len(P["W_up"]) == 3
        return ok and S == [] and shape, {"flip_sets": S, "max_diff_bound": worst}
    if kind == "bilinear_gate":
        # the dropped hypothesis: a gate (with an exact form) outside the identifiable family
        gate = activations.CATALOG[act]
        if not gate.gated or gate.exact is None or act in activations.BIASED_FLIP_NECESSITY:
            return False, {}
        ok = _exact_compare(block_fn(res, True), block_fn(pl, True), pts)[0] and len(pts) >= 3
        e = R.get("b_up", [Q(0)])
        S = _flip_sets("odd_gate", R["W_up"], R["W_down"], M, e, R["W_gate"], [Q(0)]) + \
            _flip_sets("glu", R["W_up"], R["W_down"], M, e, R["W_gate"], [Q(0)])
        return ok and S == [] and len(R["W_up"]) == len(P["W_up"]) == 1, {"flip_sets": S}
    return False, {}


FLIP_BOUNDARY = [relu2_repeated_hyperplane, relu2_wider, relu_not_relu2, gated_repeated_class, gated_wider,
                 bilinear_gate]


# ---------------------------------------------------------------- re-checking

def block_fn(spec: dict[str, Any], exact: bool, M: Any = None) -> Callable:
    """The map x -> block(x) of a stored block spec: exact rationals, or arb balls (exact=False)."""
    act = spec["activation"]
    U = qmat(spec["W_up"])
    d = len(U[0])
    if isinstance(spec["W_down"], str):
        if spec["W_down"] != "(1 + exp(-1)) * I":
            raise ValueError("unknown closed form")
        W: Any = closed_form_down(d)
    else:
        W = qmat(spec["W_down"])
    Mq = qmat(spec["M"]) if "M" in spec else (qmat(M) if M is not None else None)
    b_up = qvec(spec["b_up"]) if "b_up" in spec else None
    b_down = qvec(spec["b_down"]) if "b_down" in spec else None
    G = qmat(spec["W_gate"]) if "W_gate" in spec else None
    bg = qvec(spec["b_gate"]) if "b_gate" in spec else None
    if exact:
        return lambda x: eval_plain_q(act, U, W, x, M=Mq, b_up=b_up, b_down=b_down, W_gate=G, b_gate=bg)
    return lambda x: eval_ball(act, U, W, x, M=Mq, W_gate=G, b_up=b_up, b_down=b_down, b_gate=bg)


def _as_json(value: Any) -> Any:
    """A value in the form a certificate stores it (lists, strings for rationals, plain numbers)."""
    return json.loads(json.dumps(value, default=str))


def stored_mismatch(data: dict[str, Any], recomputed: dict[str, Any]) -> Optional[str]:
    """The first stored fact of a certificate's data that is missing or differs from its
    recomputation (a message naming the field), or None when every one agrees."""
    for key, value in recomputed.items():
        if key not in data:
            return f"the stored field {key!r} is missing"
        if _as_json(data[key]) != _as_json(value):
            return (f"the stored field {key!r} = {_as_json(data[key])!r} differs from its recomputation "
                    f"{_as_json(value)!r}")
    return None


def _recheck_kind(data: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    """Whether the boundary facts of one of this module's counterexamples hold, re-verified from its
    weights, and the stored facts of its data recomputed from them."""
    kind = data["kind"]
    pts = [qvec(p) for p in data["points"]]
    if not pts:
        return False, {}
    if kind in _FLIP_KINDS:
        return _recheck_flip_counterexample(data)
    if kind == "zero_skip":
        Mz = qmat(data["M"])
        if any(v != 0 for r in Mz for v in r):
            return False, {}
        ok = _exact_compare(block_fn(data["relu2"], True, Mz), block_fn(data["relu2"], True), pts)[0]
        sw = data["swiglu"]
        oks, worst = _ball_compare(block_fn(sw, False, Mz), block_fn(sw, False), pts)
        return ok and oks, {"max_diff_bound": worst}
    res, pl = data["residual"], data["plain"]
    exact = activations.get(res["activation"]).exact is not None
    if res["activation"] != pl["activation"]:
        return False, {}
    cmp = _exact_compare if exact else _ball_compare
    same, worst = cmp(block_fn(res, exact), block_fn(pl, exact), pts)
    if not same:
        return False, {}
    U, M = qmat(res["W_up"]), qmat(res["M"])
    if kind == "relu_degree_one":
        # Depth 2 as well: (x + B) o (x + B) equals B' o B'.
        F, G = block_fn(res, True), block_fn(pl, True)
        S = all_index_sets_exact(U, qmat(res["W_down"]), M)
        ok = all(F(F(p)) == G(G(p)) for p in pts) and "b_up" not in pl
        return ok, {"index_sets": [list(s) for s in S], "depth": 2,
                    "degree": activations.get(res["activation"]).homogeneity_degree}
    if kind == "biased_relu2":
        pieces = relu2_pieces(qmat(pl["W_up"]), qvec(pl["b_up"]), qmat(pl["W_down"]))
        G = block_fn(pl, True)
        nonhom = G([Q(2)]) != [4 * v for v in G([Q(1)])]
        ok = all(c == [0, 1, 0] for _, c in pieces) and any(v != 0 for v in qvec(pl["b_up"])) and nonhom
        return ok, {"pieces": [[p, svec(c)] for p, c in pieces], "plain_not_homogeneous": nonhom}
    if kind == "biased_swiglu":
        with arith.precision("ball", BALL_PREC):
            g1 = activations.get(pl["activation"]).ball(arb(1))
        ok = any(v != 0 for v in qvec(pl["b_gate"])) and "b_gate" not in res and not g1.contains(0)
        return ok, {"d": len(M), "max_diff_bound": worst, "silu_1": str(g1)}
    if kind == "biased_residual_block":
        R = {"W_up": U, "b_up": qvec(res["b_up"]), "W_down": qmat(res["W_down"]), "M": M}
        P = {"W_up": qmat(pl["W_up"]), "b_up": qvec(pl["b_up"]), "W_down": qmat(pl["W_down"]),
             "b_down": qvec(pl["b_down"])}
        facts = _biased_residual_facts(R, P)
        return res["activation"] == "relu" and _biased_residual_holds(facts), facts
    if kind == "glu_gate_half":  # the dropped hypothesis: a gate with g(0) != 0
        gate = activations.get(res["activation"])
        with arith.precision("ball", BALL_PREC):
            g0 = gate.ball(arb(0))
        ok = gate.gated and gate.value_at_0 != 0 and len(U) == len(qmat(pl["W_up"]))
        return ok, {"max_diff_bound": worst, "g_at_0": str(g0)}
    W = qmat(res["W_down"])
    S = [list(s) for s in all_index_sets_exact(U, W, M)]
    if kind == "width_m_plus_d":
        ok = S == [] and len(qmat(pl["W_up"])) == len(U) + len(M) and len(set(map(line_key, U))) == len(U)
        return ok, {"index_sets": S, "width": len(qmat(pl["W_up"])), "m": len(U), "d": len(M)}
    if kind == "singular_skip":
        S_id = [list(s) for s in all_index_sets_exact(U, W, identity(len(M)))]
        rank_M = exact_rank(M)
        ok = rank_M < len(M) and any(len(s) < len(M) for s in S) and len(U) < len(M) and S_id == []
        return ok, {"index_sets": S, "rank_M": rank_M, "index_sets_for_identity_skip": S_id}
    if kind == "collinear_rows":
        return S == [] and len(qmat(pl["W_up"])) == len(U), {"index_sets": S}
    return False, {}


def _analytic_facts(data: dict[str, Any]) -> dict[str, Any]:
    """The stored facts of depth-analytic's boundary instances that its own re-check does not compare:
    the index sets of every block, and for depth one N and D_plain (the rank certificate is re-checked
    there, from its own data)."""
    res = [(qmat(r["W_up"]), qmat(r["W_down"])) for r in data["residual"]]
    d = len(res[0][1])
    sets = [[list(s) for s in all_index_sets_exact(U, W, identity(d))] for U, W in res]
    if data["kind"] == "analytic_index_sets":
        return {"index_sets": sets}
    widths = [len(U) for U, _ in res]
    return {"index_sets": sets[0], "N": depth_analytic.param_count(d, widths),
            "D_plain": depth_analytic.plain_dimension(d, widths)}


def _generic_weights_facts(data: dict[str, Any]) -> dict[str, Any]:
    """The stored facts of generic-weights' boundary instances that its own re-check does not compare:
    the piece S = {} that zero_skip_pieces evaluates, and for d1_rows_collinear the shape d = 1, m = 2
    and why each pair of rows is degenerate."""
    if data["kind"] == "zero_skip_pieces":
        return {"S": []}
    rows = data["rows_checked"]
    return {"d": 1, "m": 2, "rows_checked": [[a, b, "zero row" if Q(a) == 0 or Q(b) == 0 else "collinear"]
                                             for a, b, _ in rows]}


def recheck_counterexample_reason(cert: dict[str, Any]) -> tuple[bool, str]:
    """Re-verify a boundary certificate from its data: both sides agree at every stored point, the
    fact that makes the instance a boundary case still holds, and every stored fact the re-check can
    recompute (index sets, flip sets, piece polynomials, the values at 0, C, widths, ranks, ball
    bounds) equals its recomputation. (holds, reason); a refusal names the field that differs."""
    try:
        data = cert["data"]
        kind = data["kind"]
        if kind in ("analytic_index_sets", "analytic_depth_one"):  # depth-analytic's own re-check
            ok, recomputed = depth_analytic.recheck_counterexample(cert), _analytic_facts(data)
        elif kind in ("zero_skip_pieces", "d1_rows_collinear"):  # generic-weights' own re-check
            ok, recomputed = generic_weights.recheck_counterexample(cert), _generic_weights_facts(data)
        else:
            ok, recomputed = _recheck_kind(data)
        if ok:
            why = stored_mismatch(data, recomputed)
            if why is not None:
                return False, f"{kind}: {why}"
        return (True, f"{kind}: re-verified from its data") if ok else \
            (False, f"{kind}: the boundary facts do not hold on the stored weights and points")
    except (KeyError, TypeError, ValueError, ZeroDivisionError, IndexError) as e:
        return False, f"malformed counterexample data ({type(e).__name__}: {e})"


def recheck_counterexample(cert: dict[str, Any]) -> bool:
    """Re-verify a boundary certificate from its data (recheck_counterexample_reason without the reason)."""
    return recheck_counterexample_reason(cert)[0]
