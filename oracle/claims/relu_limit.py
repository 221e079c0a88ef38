"""Oracle check of relu-limit: with biases, and for relu, gelu, gelu_tanh and silu, a nondegenerate
block absorbs its skip at the same width iff W_down[:,S] W_up[S,:] = -M for some S.

* Limits (hypothesis `sigma_limit_relu`), per activation: |s - relu| <= 1/2 is enclosed with arb
  balls on a subdivision of [0, 64] (s - relu is even by `sigma_odd_part`; beyond 64 the tail
  bounds of proofs/informal/relu-limit.md apply), and |s(t z + c)/t - relu(z)| <= (|c| + 1/2)/t is
  enclosed at sample (z, c, t).
* Sufficiency with biases: on blocks built with an index set S and random biases, the flip of
  the rows and b_up entries in S with b_down + W_S b_S is checked: the algebra exactly, the
  functional identity exactly for relu and with arb balls for the others (evidence for an
  identity that part (A) proves).
* Necessity: on nondegenerate blocks with no index set (all 2^m subsets, exact), the relu limit
  x -> M x + W_down relu(W_up x) has minimal width m* > m (relu-complete, exact), so by the limit
  argument no block of the same activation and width, biased or not, equals M x + B(x).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional

import numpy as np
from hypothesis import strategies as st

from oracle.core import activations, arith
from oracle.core.rational import arb, qmat, qvec, smat, svec, to_arb
from oracle.algebra import construct
from oracle.core.blocks import Block
from oracle.algebra.canonical import relu_form_exact
from oracle.algebra.pl_check import ExactRelu, pl_equal
from oracle.algebra.relu_width import minimal_width
from oracle.core.strategies import condition_blocks, dyadic_weights, nondegenerate_blocks
from oracle.claims.base import Certificate, counterexample, oracle_check
from oracle.algebra.limits import R_BOUND, limit_enclosure
from oracle.algebra.exact import (
    BALL_PREC, all_index_sets_exact, balls_agree, eval_ball, eval_plain_q, identity, index_sum, line_key,
    nondegenerate_exact, safe_recheck
)

CLAIM = "relu-limit"
Q = Fraction
# the limits (L) are enclosed by oracle/algebra/limits.py (limit_enclosure, R_BOUND), shared with absorb check


# ---------------------------------------------------------------------------- instances

@dataclass
class LimitInstance:
    """'sufficiency' (index set S known, random biases) or 'necessity' (nondegenerate block)."""

    kind: str
    block: Block
    S: tuple[int, ...] = ()
    points: list[list[Fraction]] = field(default_factory=list)

    @property
    def near_miss(self) -> bool:
        """True for a planted block moved off its index condition by 2^-30."""
        return self.kind == "near_miss"


def _points(d: int) -> st.SearchStrategy[list[list[Fraction]]]:
    coord = st.builds(Fraction, st.integers(-20, 20), st.sampled_from([1, 2, 3, 4]))
    return st.lists(st.lists(coord, min_size=d, max_size=d), min_size=2, max_size=3)


def _with_biases(draw: st.DrawFn, b: Block) -> Block:
    which = draw(st.sampled_from(["none", "up", "down", "both"]))
    bu = draw(dyadic_weights((b.m,))) if which in ("up", "both") else None
    bd = draw(dyadic_weights((b.d,))) if which in ("down", "both") else None
    return Block(b.activation, W_up=b.W_up, W_down=b.W_down, b_up=bu, b_down=bd, M=b.M)


@st.composite
def _sufficiency(draw: st.DrawFn) -> LimitInstance:
    act = draw(st.sampled_from(activations.COQ_RELU_LIMIT))
    d = draw(st.integers(1, 3))
    inst = draw(condition_blocks(activation=act, d=d, extra=draw(st.integers(0, 1)),
                                 skip=draw(st.sampled_from(["identity", "invertible", "singular"]))))
    b = _with_biases(draw, inst.block)
    return LimitInstance("sufficiency", b, inst.S, draw(_points(b.d)))


@st.composite
def _near_miss(draw: st.DrawFn) -> LimitInstance:
    """A planted block (with biases) whose W_down[:, S] has one entry moved by 2^-30: decided by
    the necessity half (no index set, and the relu limit needs m* > m units)."""
    act = draw(st.sampled_from(activations.COQ_RELU_LIMIT))
    inst = draw(condition_blocks(activation=act, d=draw(st.integers(1, 3)), others=1,
                                 skip=draw(st.sampled_from(["identity", "invertible", "singular"])),
                                 near_miss=True))
    return LimitInstance("near_miss", _with_biases(draw, inst.block), inst.S)


@st.composite
def _necessity(draw: st.DrawFn) -> LimitInstance:
    act = draw(st.sampled_from(activations.COQ_RELU_LIMIT))
    d = draw(st.integers(1, 3))
    m = 1 if d == 1 else draw(st.integers(2, 5 if d == 2 else 4))
    b = draw(nondegenerate_blocks(act, d=d, m=m, skip=draw(st.sampled_from(["identity", "invertible", "any"]))))
    return LimitInstance("necessity", _with_biases(draw, b))


STRATEGY = st.one_of(_sufficiency(), _necessity(), _near_miss())


# ---------------------------------------------------------------------------- the check

def _exact_parts(b: Block) -> tuple[list, list, list, list, list]:
    d, m = b.d, b.m
    U, W, M = qmat(b.W_up), qmat(b.W_down), qmat(b.skip())
    c = qvec(b.b_up) if b.b_up is not None else [Q(0)] * m
    bd = qvec(b.b_down) if b.b_down is not None else [Q(0)] * d
    return U, W, M, c, bd


def flip_construction(U: list, W: list, c: list, bd: list, S: list[int]) -> tuple[list, list, list]:
    """Rows and b_up entries negated in S; b_down + sum_{i in S} c_i w_i (exact).

    Built by the construction `absorb check` emits (construct.flip_block), so a fault in it
    shows here; the exact b_down is taken from its note when float64 had to round it.
    """
    vals = [v for r in U + W for v in r] + list(c) + list(bd)
    if any(Q(float(v)) != v for v in vals):
        raise ValueError("weights are not float64-exact")
    f = lambda a: np.array([[float(v) for v in r] for r in a], dtype=np.float64)  # noqa: E731
    blk = Block("relu", W_up=f(U), W_down=f(W), b_up=np.array([float(v) for v in c]),
                b_down=np.array([float(v) for v in bd]), kind="residual")
    plain, note = construct.flip_block(blk, S)
    U2 = qmat(plain.W_up)
    c2 = [Q(float(v)) for v in plain.b_up]
    bd2 = ([Q(v) for v in note["b_down_exact"]] if note.get("b_down_rounded")
           else [Q(float(v)) for v in plain.b_down])
    return U2, c2, bd2


def _compare(act: str, U: list, W: list, M: list, c: list, bd: list, U2: list, c2: list, bd2: list,
             pts: list) -> tuple[bool, list[dict[str, Any]]]:
    rows, ok = [], True
    for p in pts:
        if act == "relu":
            lhs = eval_plain_q("relu", U, W, p, M=M, b_up=c, b_down=bd)
            rhs = eval_plain_q("relu", U2, W, p, b_up=c2, b_down=bd2)
            good = lhs == rhs
            rows.append({"x": svec(p), "value": svec(lhs), "equal": good})
        else:
            good, width = balls_agree(eval_ball(act, U, W, p, M=M, b_up=c, b_down=bd),
                                      eval_ball(act, U2, W, p, b_up=c2, b_down=bd2))
            rows.append({"x": svec(p), "diff_bound": width, "equal": good})
        ok = ok and good
    return ok, rows


def _limit_width(U: list, W: list, M: list) -> dict[str, Any]:
    """m* of the bias-free relu limit x -> M x + W_down relu(W_up x) (relu-complete)."""
    wr = minimal_width(relu_form_exact(U, W, M))
    return wr.as_json()


def _bump_first(rows: list[list[str]]) -> None:
    rows[0][0] = str(Q(rows[0][0]) + 1)


def _collinear(c: dict[str, Any]) -> None:
    U = c["data"]["W_up"]
    U[-1] = list(U[0])


# Edits of a holding certificate that the re-check must refuse, on every kind: an activation
# outside the family, a claimed index set that is none; on sufficiency: an S that is no index set,
# a flipped weight, a stored relu value; on necessity: a block with two equal rows (degenerate).
FORGERIES = {
    "any": [("activation", lambda c: c["data"].update(activation="forged")),
            ("index sets", lambda c: c["data"]["index_sets"].append([-1]))],
    "sufficiency": [("S", lambda c: c["data"].update(S=[0, 0])),
                    ("flipped W_up", lambda c: _bump_first(c["data"]["flipped"]["W_up"])),
                    ("relu value", lambda c: c["data"]["points"][0].update(value="forged"))],
    "necessity": [("equal rows", _collinear)],
}


def _forged(cert: dict[str, Any], edit: Any) -> dict[str, Any]:
    bad = json.loads(json.dumps(cert))
    edit(bad)
    return bad


@oracle_check(CLAIM, STRATEGY, recheck=lambda c: recheck(c),
              precision=f"exact (algebra, relu, limit widths); arb {BALL_PREC} bits (limits, gelu family)")
def check(inst: LimitInstance) -> Certificate:
    """Check relu-limit on one instance (limit enclosures; biased flip; necessity via the relu limit);
    the re-check must refuse every forgery of FORGERIES that applies to the instance's kind."""
    cert = _check(inst)
    d = cert.as_dict()
    tries = FORGERIES["any"] + FORGERIES.get(inst.kind, []) if cert.holds else []
    relu_value = [n for n, _ in tries if n == "relu value" and inst.block.activation != "relu"]
    many = [n for n, _ in tries if n == "equal rows" and inst.block.m < 2]
    accepted = [n for n, edit in tries if n not in relu_value + many and recheck(_forged(d, edit))]
    cert.data["forgeries_refused"] = not accepted
    return cert if not accepted else Certificate(
        CLAIM, False, False, cert.method, cert.data, "the re-check accepts forged certificates: " + ", ".join(accepted))


def _check(inst: LimitInstance) -> Certificate:
    b = inst.block
    act = b.activation
    U, W, M, c, bd = _exact_parts(b)
    lim = limit_enclosure(act)
    props = {"odd_part_identity": activations.get(act).odd_part_identity}
    data: dict[str, Any] = {"kind": inst.kind, "activation": act, "W_up": smat(U), "W_down": smat(W),
                            "M": smat(M), "b_up": svec(c), "b_down": svec(bd),
                            "limit": {k: v for k, v in lim.items() if k != "samples"},
                            "limit_samples_ok": all(s["ok"] for s in lim["samples"]), **props}
    holds = lim["holds"] and props["odd_part_identity"]
    found = all_index_sets_exact(U, W, M)
    data["index_sets"] = [list(s) for s in found]
    if inst.kind == "sufficiency":
        S = list(inst.S)
        alg = index_sum(U, W, S) == [[-v for v in r] for r in M]
        U2, c2, bd2 = flip_construction(U, W, c, bd, S)
        pts = [qvec(p) for p in inst.points] + [[Q(0)] * b.d]
        ok, rows = _compare(act, U, W, M, c, bd, U2, c2, bd2, pts)
        data.update({"S": S, "algebraic_identity": alg, "flipped": {"W_up": smat(U2), "b_up": svec(c2),
                                                                      "b_down": svec(bd2)},
                     "points": rows})
        holds = holds and alg and ok and tuple(S) in found
        how = "exact rationals (algebra; relu values)" + ("" if act == "relu" else
                                                          f"; arb balls at {BALL_PREC} bits as evidence")
    else:
        nd = nondegenerate_exact(U, W)
        lw = _limit_width(U, W, M)
        data.update({"nondegenerate_bias_free": nd, "limit_relu_width": lw,
                     "m": b.m})
        # relu-complete for the limit: m* <= m iff an index set exists (nondegenerate)
        consistent = (lw["m_star"] <= b.m) == bool(found)
        data["limit_width_consistent_with_index_sets"] = consistent
        holds = holds and nd and lw["m_star"] is not None and consistent
        data["verdict"] = "absorbable (index set)" if found else \
            "not absorbable at width m: the relu limit needs m* = %d > m units" % lw["m_star"]
        how = "exact rationals (all 2^m index sets; relu-complete m* of the limit)"
    return Certificate(CLAIM, holds, exact=holds, method=how, data=data,
                       reason="" if holds else "limit enclosure, construction or necessity check failed")


@safe_recheck
def recheck(cert: dict[str, Any]) -> bool:
    """Re-verify from the certificate's data: index sets, construction or limit width, and limits."""
    data = cert["data"]
    act = data["activation"]
    if act not in activations.COQ_RELU_LIMIT or not limit_enclosure(act)["holds"]:
        return False
    U, W, M = qmat(data["W_up"]), qmat(data["W_down"]), qmat(data["M"])
    c, bd = qvec(data["b_up"]), qvec(data["b_down"])
    found = all_index_sets_exact(U, W, M)
    if sorted(map(tuple, data["index_sets"])) != sorted(found):
        return False
    if data["kind"] == "sufficiency":
        S = list(data["S"])
        if tuple(S) not in found:
            return False
        U2, c2, bd2 = flip_construction(U, W, c, bd, S)
        fl = data["flipped"]
        if smat(U2) != fl["W_up"] or svec(c2) != fl["b_up"] or svec(bd2) != fl["b_down"]:
            return False
        pts = [qvec(r["x"]) for r in data["points"]]
        ok, rows = _compare(act, U, W, M, c, bd, U2, c2, bd2, pts)
        if act == "relu" and [r["value"] for r in rows] != [r["value"] for r in data["points"]]:
            return False
        return ok and bool(pts)
    if not nondegenerate_exact(U, W):
        return False
    lw = _limit_width(U, W, M)
    return lw["m_star"] == data["limit_relu_width"]["m_star"] and (lw["m_star"] <= len(U)) == bool(found)


# ---------------------------------------------------------------------------- counterexamples

def split_relu_q(z: Fraction) -> Fraction:
    """The split relu s(z) = (relu(z - 1) + relu(z + 1))/2: (L) and (O) hold, kinks at +-1."""
    return (max(z - 1, Q(0)) + max(z + 1, Q(0))) / 2


def split_as_relu(units: list[tuple[Fraction, Fraction, Fraction]]) -> tuple[list, list, list]:
    """A d = 1 split-relu block with units (u, c, w) as a relu block of twice the width."""
    up, cs, ws = [], [], []
    for u, c, w in units:
        for shift in (-1, 1):
            up.append([u])
            cs.append(c + shift)
            ws.append(w / 2)
    return up, cs, [ws]


SPLIT_B = [(Q(2), Q(-1), Q(2)), (Q(2), Q(-5), Q(2)), (Q(1), Q(-1), Q(-4))]
SPLIT_B_PRIME = [(Q(1), Q(-2), Q(4)), (Q(1), Q(0), Q(1)), (Q(-1), Q(0), Q(-1))]


@counterexample(claims=(CLAIM,), dropped="nondegenerate",
                description="split relu s(z) = (relu(z-1) + relu(z+1))/2 satisfies both limit and odd-part "
                            "hypotheses; x + 2 s(2x-1) + 2 s(2x-5) - 4 s(x-1) (three distinct kink "
                            "hyperplanes) equals 4 s(x-2) + s(x) - s(-x) of the same width, yet no index set")
def split_relu_distinct_hyperplanes() -> Certificate:
    """Distinct affine hyperplanes do not suffice for a general s with (L) and (O)."""
    up, cs, wd = split_as_relu(SPLIT_B)
    up2, cs2, wd2 = split_as_relu(SPLIT_B_PRIME)
    F = ExactRelu(up, wd, cs, None, [[Q(1)]], d=1)
    G = ExactRelu(up2, wd2, cs2, None, None, d=1)
    equal = pl_equal(F, G)  # exact, independent of any canonical-form lemma
    pts = [Q(k, 7) for k in range(-40, 41)]
    direct = all(x + sum(w * split_relu_q(u * x + c) for u, c, w in SPLIT_B)
                 == sum(w * split_relu_q(u * x + c) for u, c, w in SPLIT_B_PRIME) for x in pts)
    hyper = sorted(-c / u for u, c, _ in SPLIT_B)
    distinct = len(set(hyper)) == len(hyper)
    S = all_index_sets_exact([[u] for u, _, _ in SPLIT_B], [[w for _, _, w in SPLIT_B]], [[Q(1)]])
    # the hypotheses on s: (O) s(z) - s(-z) = z and |s - relu| <= 1/2, both piecewise-linear identities
    odd = all(split_relu_q(z) - split_relu_q(-z) == z for z in pts)
    near = all(abs(split_relu_q(z) - max(z, Q(0))) <= R_BOUND for z in pts)
    collinear = len({line_key([u]) for u, _, _ in SPLIT_B}) < len(SPLIT_B)
    holds = equal and direct and distinct and S == [] and odd and near and collinear
    return Certificate(CLAIM, holds, exact=True, method="exact rationals; pl_check referee on the "
                       "equivalent relu blocks of width 6",
                       data={"kind": "split_relu", "B": [[str(v) for v in t] for t in SPLIT_B],
                             "B_prime": [[str(v) for v in t] for t in SPLIT_B_PRIME],
                             "kink_hyperplanes": [str(v) for v in hyper], "index_sets": [],
                             "degenerate_bias_free": collinear})


@counterexample(claims=(CLAIM,), dropped="sigma_limit_relu",
                description="s(z) = z/2 has s(z) - s(-z) = z but s(tz)/t -> z/2: with W_up = W_down = I "
                            "(nondegenerate) x + B(x) = (3/2) x = 3 I s(I x), while no index set gives -I")
def linear_activation() -> Certificate:
    """Without the relu limit, a nondegenerate block absorbs without an index set."""
    I = identity(2)
    s = lambda z: z / 2  # noqa: E731
    F = lambda x: [x[a] + sum(I[a][i] * s(sum(I[i][b] * x[b] for b in range(2))) for i in range(2))  # noqa: E731
                   for a in range(2)]
    G = lambda x: [sum(3 * I[a][i] * s(sum(I[i][b] * x[b] for b in range(2))) for i in range(2))  # noqa: E731
                   for a in range(2)]
    # both sides are linear maps; equal matrices (checked on a basis) means equal functions
    basis_ok = all(F(e) == G(e) for e in I)
    S = all_index_sets_exact(I, I, I)
    odd = all(s(z) - s(-z) == z for z in (Q(-3), Q(1, 2), Q(5)))
    limit_fails = s(Q(1000)) / 1000 != max(Q(1), Q(0)) and s(Q(-1000)) / 1000 != 0
    holds = basis_ok and S == [] and odd and limit_fails
    return Certificate(CLAIM, holds, exact=True, method="exact rationals (linear maps compared on a basis)",
                       data={"kind": "linear_activation", "W_up": smat(I), "W_down": smat(I),
                             "W_down_prime": "3 I", "index_sets": []})


@counterexample(claims=(CLAIM,), dropped="sigma_odd_part",
                description="elu satisfies the relu limit but elu(z) - elu(-z) != z: x - elu(x) has the index "
                            "set S = {1}, yet it is 0 on (0, inf) and -1/e at -1, so no (strictly monotone or "
                            "constant) width-1 elu block equals it")
def elu_no_odd_part() -> Certificate:
    """Without s(z) - s(-z) = z the index condition does not give absorption."""
    def elu(z: arb) -> arb:
        return z if z > 0 else z.exp() - 1

    with arith.precision("ball", BALL_PREC):
        F = lambda x: to_arb(x) - elu(to_arb(x))  # noqa: E731
        zeros = all(F(x) == 0 for x in (Q(1, 2), Q(1), Q(3)))
        at_m1 = F(Q(-1))
        odd_fails = not (elu(arb(1)) - elu(arb(-1)) - 1).contains(0)
        # (L): |elu - relu| <= 1, since e^z - 1 is in (-1, 0] for z <= 0
        near = all(bool(abs(elu(arb(z)) - arb(z).max(arb(0))).upper() <= 1) for z in (-50, -1, -0.5, 0, 2))
    S = all_index_sets_exact([[Q(1)]], [[Q(-1)]], [[Q(1)]])
    holds = zeros and not at_m1.contains(0) and odd_fails and near and S == [(0,)]
    return Certificate(CLAIM, holds, exact=True,
                       method=f"arb balls at {BALL_PREC} bits (rigorous) and the monotonicity argument",
                       data={"kind": "elu", "index_sets": [[0]], "F_at_minus_1": at_m1.str(20, radius=True),
                             "F_zero_on": ["1/2", "1", "3"]})
