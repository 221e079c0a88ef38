"""Oracle check of gelu-complete: the exact minimal width m* of a gelu / gelu_tanh / silu block equal
to M x + B(x) (proofs/informal/gelu-complete.md).

For every drawn block (degenerate: zero rows with and without bias, zero columns, equal, opposite,
doubled and parallel rows, classes whose outputs cancel; d = 1..3; biased and bias-free; planted
blocks whose function is a narrower block; near misses of those) the check

* computes the canonical form and m* exactly (oracle/algebra/gelu_width.py: all sign vectors and
  all independent class sets, python-flint rationals);
* builds the width-m* block of the construction and verifies it equals F exactly through the
  canonical forms (equal e-coefficients on every class, equal M + L and constant: the consequence
  of Lemma E), and independently in arb ball arithmetic at rational points with the drawn
  activation (the enclosure of F(x) - B'(x) must contain 0 and be narrow);
* cross-checks with independent code where another claim applies: for bias-free blocks
  m*_relu <= m* (relu_width on the same weights, the relu-limit comparison of the informal proof);
  for nondegenerate bias-free blocks m* = m + C (absorption_width.lower_bound_table); for blocks
  whose classes are singletons with nonzero outputs, m* <= m iff an index set exists (exact);
* for planted blocks, m* <= the width of the narrower block they were built from.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

import numpy as np
from hypothesis import strategies as st

from oracle.algebra.canonical import relu_form_exact
from oracle.algebra.exact import all_index_sets_exact, identity, line_key, safe_recheck
from oracle.algebra.gelu_width import FAMILY, construct, forms_equal, gelu_form_exact, width
from oracle.algebra.relu_width import cost, minimal_width
from oracle.claims import coverage
from oracle.claims.absorption_width import lower_bound_table
from oracle.claims.base import Certificate, counterexample, oracle_check
from oracle.core import arith
from oracle.core.activations import get
from oracle.core.blocks import Block
from oracle.core.rational import QMat, to_arb

CLAIM = "gelu-complete"
Q = Fraction


@dataclass
class GeluInstance(coverage.Shaped):
    """A gelu-family block in exact rationals with its skip M; `kind` names how it was drawn;
    `narrow` is the width of the block a planted instance was built from (None otherwise)."""

    kind: str
    activation: str
    W_up: QMat
    W_down: QMat
    M: QMat
    b_up: Optional[list[Fraction]] = None
    b_down: Optional[list[Fraction]] = None
    narrow: Optional[int] = None

    def as_json(self) -> dict[str, Any]:
        """Exact strings."""
        s = lambda a: None if a is None else [str(v) for v in a]  # noqa: E731
        return {"kind": self.kind, "activation": self.activation, "W_up": [s(r) for r in self.W_up],
                "W_down": [s(r) for r in self.W_down], "M": [s(r) for r in self.M],
                "b_up": s(self.b_up), "b_down": s(self.b_down), "narrow": self.narrow}

    @staticmethod
    def from_json(data: dict[str, Any]) -> "GeluInstance":
        """Inverse of as_json."""
        q = lambda a: None if a is None else [Q(v) for v in a]  # noqa: E731
        return GeluInstance(data["kind"], data["activation"], [q(r) for r in data["W_up"]],
                            [q(r) for r in data["W_down"]], [q(r) for r in data["M"]], q(data.get("b_up")),
                            q(data.get("b_down")), data.get("narrow"))

    @property
    def near_miss(self) -> bool:
        """True for a planted block moved by 2^-30."""
        return self.kind == "near_miss"

    def subjects(self) -> list[coverage.Subject]:
        """The block in exact rationals, for the coverage measurement."""
        biased = any(v != 0 for v in (self.b_up or []) + (self.b_down or []))
        return [coverage.Subject(self.W_up, self.W_down, self.M, biased)]

    def form(self):
        """The canonical form of F = M x + B(x)."""
        return gelu_form_exact(self.W_up, self.W_down, self.M, self.b_up, self.b_down, d=self.d)

    def as_checkable(self) -> Block:
        """The residual block in float64 (entries are small dyadic rationals here)."""
        f = lambda a: np.array([[float(v) for v in r] for r in a])  # noqa: E731
        g = lambda a: None if a is None else np.array([float(v) for v in a])  # noqa: E731
        return Block(self.activation, W_up=f(self.W_up), W_down=f(self.W_down), M=f(self.M),
                     b_up=g(self.b_up), b_down=g(self.b_down), kind="residual")


INSTANCE_KINDS = ("generic", "equal_rows", "opposite", "doubled", "parallel", "zero_row", "zero_column",
                  "gamma_zero", "identity_like")


def _skip(draw: st.DrawFn, d: int) -> QMat:
    small = st.integers(-3, 3)
    kind = draw(st.sampled_from(["I", "I", "int", "zero", "rank1"]))
    if kind == "I":
        return identity(d)
    if kind == "zero":
        return [[Q(0)] * d for _ in range(d)]
    if kind == "rank1":
        v = [Q(draw(small)) for _ in range(d)]
        return [[a * b for b in v] for a in v]
    return [[Q(draw(small)) for _ in range(d)] for _ in range(d)]


def apply_kind(kind: str, U: QMat, W: QMat, c: Optional[list[Fraction]]) -> Optional[list[Fraction]]:
    """Give the weights (in place) the structure the kind names; the (possibly new) b_up."""
    d, m = len(W), len(U)
    if m >= 2:
        i, j = 0, 1
        if kind in ("equal_rows", "opposite", "doubled", "gamma_zero"):
            f = {"equal_rows": 1, "opposite": -1, "doubled": 2, "gamma_zero": -1}[kind]
            U[j] = [f * v for v in U[i]]
            if c is not None:
                c[j] = f * c[i]
            if kind == "gamma_zero":  # w_j = -w_i on the opposite row: the class's e-coefficient is 0
                for a in range(d):
                    W[a][j] = -W[a][i]
        elif kind == "parallel":  # same row, another bias: a different class
            U[j] = list(U[i])
            if c is None:
                c = [Q(0)] * m
            c[j] = c[i] + 1
    if kind == "zero_row":
        U[0] = [Q(0)] * d
    elif kind == "zero_column":
        for a in range(d):
            W[a][0] = Q(0)
    elif kind == "identity_like" and m >= d:
        for a in range(d):
            U[a] = [Q(int(a == b)) for b in range(d)]
    return c


@st.composite
def gelu_instances(draw: st.DrawFn, max_d: int = 3) -> GeluInstance:
    """Small blocks of every kind in exact dyadic rationals (degenerate, biased, d = 1 included)."""
    act = draw(st.sampled_from(FAMILY))
    d = draw(st.integers(1, max_d))
    m = draw(st.integers(1, 4 if d < 3 else 3))
    kind = draw(st.sampled_from(INSTANCE_KINDS))
    small = st.integers(-3, 3)
    U = [[Q(draw(small)) for _ in range(d)] for _ in range(m)]
    W = [[Q(draw(small), draw(st.sampled_from([1, 2]))) for _ in range(m)] for _ in range(d)]
    bias = draw(st.sampled_from(["none", "none", "up", "down", "both"]))
    c = [Q(draw(st.integers(-2, 2))) for _ in range(m)] if bias in ("up", "both") else None
    bd = [Q(draw(st.integers(-2, 2))) for _ in range(d)] if bias in ("down", "both") else None
    c = apply_kind(kind, U, W, c)
    return GeluInstance(kind, act, U, W, _skip(draw, d), c, bd)


@st.composite
def planted_instances(draw: st.DrawFn) -> GeluInstance:
    """F is a narrower block P of width p, written as M x + B(x) with B wider than p: B is P with one
    unit split into two equal halves (a degenerate class) minus the pairs v (s(l . x) - s(-l . x))
    of a rank factorisation of M.  So m* <= p < m.  Or its near miss: one output entry of those
    pairs moved by 2^-30 (the pair then leaves a class with a nonzero e-coefficient)."""
    act = draw(st.sampled_from(FAMILY))
    d = draw(st.integers(1, 3))
    p = draw(st.integers(1, 3))
    small = st.integers(-3, 3)
    U = [[Q(draw(small)) for _ in range(d)] for _ in range(p)]
    W = [[Q(draw(small), 2) for _ in range(p)] for _ in range(d)]
    biased = draw(st.booleans())
    c = [Q(draw(st.integers(-2, 2))) for _ in range(p)] if biased else None
    # split unit 0 into two halves (same class, same function)
    U = [U[0]] + U
    for a in range(d):
        W[a] = [W[a][0] / 2, W[a][0] / 2] + W[a][1:]
    if c is not None:
        c = [c[0]] + c
    # M = sum_q v_q l_q^T (rank 1 or 2 from integer vectors); B gets -v_q s(l_q x) + v_q s(-l_q x)
    r = draw(st.integers(1, min(2, d)))
    M = [[Q(0)] * d for _ in range(d)]
    for _ in range(r):
        v = [Q(draw(small)) for _ in range(d)]
        l = [Q(draw(small)) for _ in range(d)]
        if not any(l):
            l[0] = Q(1)
        for a in range(d):
            for b in range(d):
                M[a][b] += v[a] * l[b]
        U += [list(l), [-x for x in l]]
        for a in range(d):
            W[a] += [-v[a], v[a]]
        if c is not None:
            c += [Q(0), Q(0)]
    near = draw(st.booleans())
    if near:
        W[0][-1] += Q(1, 2 ** 30)
    return GeluInstance("near_miss" if near else "planted", act, U, W, M, c, None, None if near else p + 1)


STRATEGY = st.one_of(gelu_instances(), planted_instances())


# ---------------------------------------------------------------------------- independent evidence

def _ball_points(d: int) -> list[list[Fraction]]:
    pts = [[Q(a * k + b, 3) for k, b in zip(range(1, d + 1), (1, -2, 5))] for a in (-4, -1, 2, 5)]
    return pts + [[Q(0)] * d]


def ball_difference(inst: GeluInstance, con) -> dict[str, Any]:
    """F(x) - B'(x) enclosed in arb balls at rational points, with the drawn activation."""
    s = get(inst.activation).ball
    d = inst.d
    widest = 0.0
    contains = True
    c = con.con
    with arith.precision("ball", 128):
        def blk(U, W, bu, bd, M, x):
            out = []
            for a in range(d):
                v = to_arb(0)
                if M is not None:
                    v += sum((to_arb(M[a][b]) * to_arb(x[b]) for b in range(d)), to_arb(0))
                for i in range(len(U)):
                    z = sum((U[i][b] * x[b] for b in range(d)), Q(0)) + (bu[i] if bu else 0)
                    if W[a][i]:
                        v += to_arb(W[a][i]) * s(to_arb(z))
                if bd:
                    v += to_arb(bd[a])
                out.append(v)
            return out
        for x in _ball_points(d):
            F = blk(inst.W_up, inst.W_down, inst.b_up, inst.b_down, inst.M, x)
            G = blk(c.W_up, c.W_down if c.W_up else [[] for _ in range(d)], c.b_up, c.b_down, None, x)
            for k, vec in con.sym.items():
                for a in range(d):
                    G[a] += to_arb(vec[a]) * s(to_arb(k))
            for a in range(d):
                diff = F[a] - G[a]
                contains = contains and diff.contains(0)
                widest = max(widest, float(diff.rad()))
    return {"points": len(_ball_points(d)), "all_contain_0": contains, "max_radius": widest,
            "agree": contains and widest < 1e-20}


def _nondegenerate(inst: GeluInstance) -> bool:
    keys = [line_key(r) for r in inst.W_up]
    cols = all(any(inst.W_down[a][i] != 0 for a in range(inst.d)) for i in range(inst.m))
    return None not in keys and len(set(keys)) == len(keys) and cols


def _evaluate(inst: GeluInstance) -> dict[str, Any]:
    """Everything the certificate states, recomputed from the weights."""
    d = inst.d
    form = inst.form()
    wr = width(form)
    con = construct(form, wr.s, wr.T)
    out: dict[str, Any] = {"form": form.as_json(), "width": wr.as_json(), "construction": con.as_json(),
                           "m_star": wr.lower, "exact_min": wr.exact,
                           "m_star_is_cost_at_optimum": wr.lower == len(form.active) + cost(form, wr.s, wr.T),
                           "construction_width_is_m_star": con.width == wr.lower,
                           "construction_equal_by_forms": forms_equal(con.form(d), form),
                           "bias_free_representable": form.bias_free_representable()}
    if out["bias_free_representable"] is True:
        # (b): the construction is then bias-free
        out["construction_bias_free"] = (all(v == 0 for v in con.con.b_up) and all(v == 0 for v in con.con.b_down)
                                         and not con.sym)
    out["ball"] = ball_difference(inst, con)
    out["construction_equal_in_balls"] = out["ball"]["agree"]
    if not form.biased:
        rw = minimal_width(relu_form_exact(inst.W_up, inst.W_down, inst.M))
        out["relu_m_star"] = rw.lower
        out["relu_at_most_gelu"] = rw.exact and rw.lower <= wr.lower
        if _nondegenerate(inst):
            C = lower_bound_table(inst.W_up, inst.W_down, inst.M)["C"]
            out["absorption_width_C"] = C
            out["agrees_with_absorption_width"] = wr.lower == inst.m + C
    if (not form.zero_units and all(len(c.units) == 1 for c in form.classes)
            and all(c.active for c in form.classes)):
        S = all_index_sets_exact(inst.W_up, inst.W_down, inst.M)
        out["index_sets"] = [list(x) for x in S]
        out["same_width_iff_index_set"] = (wr.lower <= inst.m) == bool(S)
    if inst.narrow is not None:
        out["planted_within_narrow"] = wr.lower <= inst.narrow < inst.m
    return out


_ALWAYS = ("exact_min", "m_star_is_cost_at_optimum", "construction_width_is_m_star",
           "construction_equal_by_forms", "construction_equal_in_balls")
_IF_PRESENT = ("construction_bias_free", "relu_at_most_gelu", "agrees_with_absorption_width",
               "same_width_iff_index_set", "planted_within_narrow")


def _holds(ev: dict[str, Any]) -> bool:
    return all(ev[k] for k in _ALWAYS) and all(ev[k] for k in _IF_PRESENT if k in ev)


def gelu_corners() -> list[GeluInstance]:
    """Always checked before the drawn instances: one block of every kind of apply_kind (d = 2,
    width 3; parallel and opposite rows with and without b_up), a width-1 block in d = 1, and an
    identity_like kind narrower than d (left generic)."""
    base_U = [[Q(1), Q(-2)], [Q(2), Q(1)], [Q(-1), Q(3)]]
    base_W = [[Q(1), Q(-1, 2), Q(2)], [Q(-3, 2), Q(1), Q(1, 2)]]
    acts = [FAMILY[k % len(FAMILY)] for k in range(12)]
    out = []
    for k, (kind, c) in enumerate([("equal_rows", None), ("opposite", [Q(1), Q(0), Q(-1)]), ("doubled", None),
                                   ("gamma_zero", [Q(2), Q(1), Q(0)]), ("parallel", None),
                                   ("parallel", [Q(0), Q(1), Q(2)]), ("zero_row", None), ("zero_column", None),
                                   ("identity_like", None)]):
        U, W = [list(r) for r in base_U], [list(r) for r in base_W]
        c = apply_kind(kind, U, W, None if c is None else list(c))
        out.append(GeluInstance(kind, acts[k], U, W, identity(2) if k % 2 else [[Q(1), Q(1)], [Q(0), Q(1)]], c, None))
    one = [[Q(2)]], [[Q(-1)]]
    out.append(GeluInstance("generic", acts[9], *one, identity(1), apply_kind("generic", *one, None), None))
    narrow = [[Q(1), Q(2)]], [[Q(1)], [Q(-1)]]
    out.append(GeluInstance("identity_like", acts[10], *narrow, identity(2), apply_kind("identity_like", *narrow, None), None))
    return out


@oracle_check(CLAIM, STRATEGY, recheck=lambda c: recheck(c),
              precision="exact rationals (python-flint); arb balls at 128 bits for the point comparison",
              examples=gelu_corners)
def check(inst: GeluInstance) -> Certificate:
    """Compute m* exactly, build the width-m* block, verify it exactly and in balls, cross-check; the
    re-check must refuse the certificate with an activation outside the family or another m*."""
    cert = _check(inst)
    d = cert.as_dict()
    forged = [{**d, "data": {**d["data"], "instance": {**d["data"]["instance"], "activation": "relu"}}},
              {**d, "data": {**d["data"], "m_star": d["data"]["m_star"] + 1}}]
    accepted = cert.holds and any(recheck(f) for f in forged)
    return cert if not accepted else Certificate(CLAIM, False, False, cert.method, cert.data,
                                                 "the re-check accepts a forged certificate")


def _check(inst: GeluInstance) -> Certificate:
    """Compute m* exactly, build the width-m* block, verify it exactly and in balls, cross-check."""
    ev = _evaluate(inst)
    data: dict[str, Any] = {"instance": inst.as_json(), **ev}
    data["drawn"] = {"planted": ev["m_star"] <= inst.m}
    holds = _holds(ev)
    return Certificate(CLAIM, holds, exact=holds,
                       method="exact rationals (canonical forms, Lemma E of gelu-complete.md); arb balls at "
                              "rational points; cross-checks with relu_width, absorption-width and index sets",
                       data=data, reason="" if holds else "construction or a cross-check failed: "
                       + ", ".join(k for k in _ALWAYS + _IF_PRESENT if k in ev and not ev[k]))


@safe_recheck
def recheck(cert: dict[str, Any]) -> bool:
    """Recompute the form, m*, the construction and every verification from the stored weights."""
    data = cert["data"]
    inst = GeluInstance.from_json(data["instance"])
    if inst.activation not in FAMILY:
        return False
    ev = _evaluate(inst)
    if ev["m_star"] != data["m_star"] or ev["construction"] != data["construction"]:
        return False
    return _holds(ev) and cert["holds"] is True


# ---------------------------------------------------------------------------- boundary case

@counterexample(claims=(CLAIM,), dropped="sigma_gelu_family",
                description="relu: 2 relu(x) - relu(2x) = 0, so with M = 0 the block is the zero map (width 0), "
                            "while the gelu-family formula counts two active classes (+-1 and +-2) and gives 2")
def relu_scales_counterexample() -> Certificate:
    """Without the hypothesis (s = relu) the formula overcounts: e(z) = |z|/2 is homogeneous."""
    U, W, M = [[Q(1)], [Q(2)]], [[Q(2), Q(-1)]], [[Q(0)]]
    gf = gelu_form_exact(U, W, M)
    formula = width(gf)
    rf = relu_form_exact(U, W, M)
    relu_true = minimal_width(rf)
    # the relu block really is the zero map: 2 relu(x) - relu(2x) at exact points
    pts = [Q(k, 3) for k in range(-9, 10)]
    zero = all(2 * max(x, 0) - max(2 * x, 0) == 0 for x in pts) and not rf.active
    holds = formula.exact and formula.lower == 2 and relu_true.exact and relu_true.lower == 0 and zero
    return Certificate(CLAIM, holds, exact=True,
                       method="exact rationals: the gelu-family formula and relu-complete's m* on the same weights; "
                              "the relu block is piecewise linear with its only kink at 0 and vanishes at 19 "
                              "points on both sides",
                       data={"kind": "relu_scales", "formula_m_star": formula.lower, "relu_m_star": relu_true.lower,
                             "relu_block_is_zero": zero})
