"""Claims depth-narrow, depth-d2, depth-dimension and depth-width (the paper's open problem).

The question: is a residual stack F = (I + B_L) o ... o (I + B_1) of bias-free relu blocks
(B_l(x) = W_l relu(U_l x), U_l of size m_l x d) equal to a plain stack P = B'_L o ... o B'_1 of the
same widths? The four claims (proofs/informal/depth-*.md) and what the checks certify exactly:

  depth-narrow     every piece I + W_l D U_l invertible (exact determinants, or the norm bound
                   |W_l| |U_l| < 1) => F(x) != 0 for x != 0, so F is no plain stack whose first
                   width is <= d or that has a width < d; for L = 2 with a last width d, also
                   under nondegeneracy and a transversality condition checked exactly.
  depth-d2         d = 2, L = 2, both I + B_l homeomorphisms (norm bound or exact winding number),
                   nondegenerate, kink rays in general position (exact ray computations): F is a
                   plain stack of the same widths iff each block has an index set with
                   W_S U_S = -I.
  depth-dimension  an exact rational Jacobian of theta -> (F_theta(x_k))_k with rank above the
                   dimension bound D_plain of the plain family; certificate: a nonzero minor.
  depth-width      each I + B_l is a plain block of width m_l + 2d - rank U_l (built and verified
                   by an exact canonical form), so the plain stack of those widths equals F.

Exact arithmetic throughout: Fractions for evaluation, python-flint fmpq_mat for ranks and
determinants. The d = 2 and d = 1 identity tests are proofs: a positively homogeneous map that is
linear on each sector between consecutive candidate rays (all of angle < pi) is determined by its
values on those rays.  The algebra (layers, the hypotheses, ray geometry, the rank certificate) is
shared with `absorb check` and lives in oracle/algebra/stacks/; this module draws the instances,
builds and re-checks the certificates, and depth_boundary.py holds the boundary counterexamples.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional, Sequence

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from oracle.core.blocks import Block, Stack
from oracle.core.rational import QMat, qmat, qvec, smat, svec
from oracle.algebra.exact import identity, matvec_q, safe_recheck
from oracle.algebra.stacks.layers import (Layer, canonical_form, check_difference, eval_stack,
                                          find_difference, independent_rows, layers_from_json,
                                          layers_of, layers_to_json, nondegenerate, qrank,
                                          rational_points)
from oracle.algebra.stacks.narrow import cone_point, narrow_conditions
from oracle.algebra.stacks.planar import d2_conditions, stacks_equal
from oracle.algebra.stacks.rank import check_rank_certificate, rank_certificate
from oracle.claims import coverage
from oracle.claims.absorption_width import build_block
from oracle.claims.base import Certificate, oracle_check
from oracle.claims.gated import refuse_forgeries as refuse_forgeries_of

CLAIM_NARROW = "depth-narrow"
CLAIM_D2 = "depth-d2"
CLAIM_DIM = "depth-dimension"
CLAIM_WIDTH = "depth-width"


# ================================================================ depth-width's construction

def width_construction(layers: Sequence[Layer]) -> list[dict[str, Any]]:
    """Per layer: the plain block of width m + 2d - rank U equal to x + B(x) (absorption-width (A)
    with S empty and T a maximal independent set of rows), with its exact canonical-form proof."""
    out = []
    for U, W in layers:
        d, m = len(W), len(U)
        T = independent_rows(U)
        up, down = build_block(U, W, [], T)
        same = canonical_form(U, W, identity(d)) == canonical_form(up, down)
        out.append({"m": m, "rank_U": len(T), "T": T, "width": len(up),
                    "formula_width": m + 2 * d - len(T), "generic_width": max(m + d, 2 * d),
                    "W_up": smat(up), "W_down": smat(down), "canonical_equal": same})
    return out


# ================================================================ instances and strategies

@dataclass
class StackInstance:
    """A residual relu stack (exact layers), plain widths to compare with, and a candidate plain stack."""

    layers: list[Layer]
    plain_widths: list[int] = field(default_factory=list)
    candidate: Optional[list[Layer]] = None
    seed: int = 0

    def subjects(self) -> list[coverage.Subject]:
        """The layers as bias-free blocks with identity skips, for the coverage measurement."""
        d = len(self.layers[0][1])
        return [coverage.Subject([list(r) for r in U], [list(r) for r in W], identity(d), False)
                for U, W in self.layers]

    def as_checkable(self) -> Stack:
        """The residual stack as relu blocks (float64; rounded where an entry is not dyadic)."""
        f = lambda a: np.array([[float(v) for v in r] for r in a], dtype=np.float64)  # noqa: E731
        d = len(self.layers[0][1])
        return Stack([Block("relu", W_up=f(U) if U else np.zeros((0, d)), W_down=f(W), kind="residual")
                      for U, W in self.layers])

    def size(self) -> dict[str, Any]:
        """d, the widest layer and the depth, for the report's instance-size figure."""
        U0 = self.layers[0][0]
        return {"d": len(U0[0]) if U0 else len(self.layers[0][1]),
                "m": max(len(U) for U, _ in self.layers), "depth": len(self.layers)}


def _mat(draw: st.DrawFn, rows: int, cols: int, num: int, den: int, nonzero: bool = False) -> QMat:
    vals = st.integers(-num, num).filter(lambda v: v != 0) if nonzero else st.integers(-num, num)
    return [[Fraction(draw(vals), den) for _ in range(cols)] for _ in range(rows)]


@st.composite
def residual_layers(draw: st.DrawFn, d: int, widths: Sequence[int], small: bool,
                    nondeg: bool = False) -> list[Layer]:
    """Random exact layers; small=True keeps |W| |U| < 1 (near identity, homeomorphic blocks)."""
    out = []
    for m in widths:
        U = _mat(draw, m, d, 8, 8, nonzero=True)
        den = 8 * 4 * m * d if small else 8
        W = _mat(draw, d, m, 8, den, nonzero=True)
        if nondeg:
            assume(nondegenerate(U, W))
        out.append((U, W))
    return out


@st.composite
def narrow_instances(draw: st.DrawFn) -> StackInstance:
    """A stack with invertible pieces and plain widths covered by part (a), (b) or (c)."""
    part = draw(st.sampled_from(["a", "b", "c"]))
    d = draw(st.integers(1, 3)) if part == "a" else draw(st.integers(2, 3))
    if part == "c":
        widths = [draw(st.integers(d + 1, d + 2)), draw(st.integers(1, 4))]
        plain = [draw(st.integers(d + 1, widths[0])), d]
    else:
        widths = [draw(st.integers(1, 4)) for _ in range(draw(st.integers(1, 3)))]
        if part == "a":
            plain = [draw(st.integers(1, d))] + [draw(st.integers(1, 4)) for _ in range(draw(st.integers(0, 2)))]
        else:
            plain = [draw(st.integers(d + 1, d + 3))] + [draw(st.integers(1, 4)) for _ in range(draw(st.integers(0, 2)))]
            plain[draw(st.integers(0, len(plain) - 1))] = draw(st.integers(1, d - 1))
    small = draw(st.booleans())
    layers = draw(residual_layers(d, widths, small, nondeg=(part == "c")))
    # The check is about stacks that meet the hypotheses; failing ones are tested separately.
    assume(narrow_conditions(layers, plain)["applies"])
    cand = [(_mat(draw, w, d, 4, 2), _mat(draw, d, w, 4, 2)) for w in plain]
    return StackInstance(layers, plain, cand, draw(st.integers(0, 1000)))


@st.composite
def d2_instances(draw: st.DrawFn) -> StackInstance:
    """d = 2, two homeomorphic nondegenerate blocks (norm-small, or larger and winding-certified)."""
    widths = [draw(st.integers(1, 4)), draw(st.integers(1, 4))]
    small = draw(st.integers(0, 3)) > 0
    layers = draw(residual_layers(2, widths, small, nondeg=True))
    assume(d2_conditions(layers)["applies"])
    cand = [(_mat(draw, w, 2, 4, 2), _mat(draw, 2, w, 4, 2)) for w in widths]
    return StackInstance(layers, widths, cand, draw(st.integers(0, 1000)))


@st.composite
def dimension_instances(draw: st.DrawFn) -> StackInstance:
    """d in {2, 3}, L in {2, 3}, small widths, near-identity rational weights."""
    d = draw(st.integers(2, 3))
    L = draw(st.integers(2, 3)) if d == 2 else 2
    widths = [draw(st.integers(1, 3)) for _ in range(L)]
    layers = draw(residual_layers(d, widths, small=True))
    # rank_certified is a hypothesis of the claim: only stacks whose certificate exists are in
    # its scope (some stacks, e.g. with a row repeated across layers, have rank <= D_plain)
    inst = StackInstance(layers, widths, None, draw(st.integers(0, 1000)))
    assume(dimension_certificate(inst).holds)
    return inst


@st.composite
def width_instances(draw: st.DrawFn) -> StackInstance:
    """Any d in 1..3, L in 1..3, widths 1..4; sometimes a rank-deficient W_up (collinear rows)."""
    d = draw(st.integers(1, 3))
    widths = [draw(st.integers(1, 4)) for _ in range(draw(st.integers(1, 3)))]
    layers = []
    for m in widths:
        U = _mat(draw, m, d, 6, 4)
        W = _mat(draw, d, m, 6, 4)
        if m >= 2 and draw(st.booleans()):
            c = Fraction(draw(st.sampled_from([-2, -1, 1, 3])), 2)
            U[1] = [c * v for v in U[0]]
        layers.append((U, W))
    return StackInstance(layers, [], None, draw(st.integers(0, 1000)))


def _as_layers(inst: Any) -> StackInstance:
    if isinstance(inst, StackInstance):
        return inst
    if isinstance(inst, Stack):  # pragma: no branch every instance is a StackInstance or a Stack (strategies, corners)
        return StackInstance(layers_of(inst))
    raise TypeError("expected a StackInstance or a Stack")


# ================================================================ corners and forgeries shared by the stack claims

def corner_stack() -> Stack:
    """Two near-identity relu blocks in d = 3 (widths 1 and 2, identity skips), given as a Stack:
    depth-dimension certifies rank 15 > D_plain = 8 on it, depth-width builds its plain stack."""
    U1, W1 = [[0.625, -1.0, -0.125]], [[-0.0625], [0.03125], [0.0625]]
    U2 = [[-1.0, 0.125, -0.25], [-0.125, -0.625, -0.625]]
    W2 = [[-0.0078125, -0.03125], [0.0078125, -0.015625], [0.03125, -0.015625]]
    return Stack([Block("relu", W_up=np.array(U), W_down=np.array(W), M=np.eye(3)) for U, W in ((U1, W1), (U2, W2))])


def _layer0(c: dict[str, Any]) -> dict[str, Any]:
    return c["data"]["residual"][0]


def _mismatched_layer(c: dict[str, Any]) -> None:
    L0 = _layer0(c)
    c["data"]["residual"].append({"W_up": [r + ["1"] for r in L0["W_up"]], "W_down": L0["W_down"]})


# Edits of the residual stack a certificate stores that layers_from_json must refuse, and of the claim.
STACK_FORGERIES: list[tuple[str, Any]] = [
    ("claim", lambda c: c.update(claim="forged")),
    ("ragged W_up", lambda c: _layer0(c)["W_up"][0].append("1")),
    ("layer of another dimension", _mismatched_layer),
    ("W_down of the wrong shape", lambda c: _layer0(c).update(W_down=_layer0(c)["W_down"][1:])),
    ("empty stack", lambda c: c["data"].update(residual=[])),
]


def refuse_forgeries(cert: Certificate, recheck: Any, extra: Sequence[tuple[str, Any]] = ()) -> Certificate:
    """cert, or a failing certificate when ``recheck`` accepts one of STACK_FORGERIES or ``extra``."""
    return refuse_forgeries_of(cert, recheck, extra, base=STACK_FORGERIES)


# ================================================================ depth-narrow

def narrow_certificate(inst: StackInstance) -> Certificate:
    """Hypotheses of depth-narrow decided exactly, and a concrete candidate refuted exactly."""
    layers, plain = inst.layers, inst.plain_widths
    cond = narrow_conditions(layers, plain)
    data: dict[str, Any] = {"residual": layers_to_json(layers), "conditions": cond}
    if not cond["applies"]:
        return Certificate(CLAIM_NARROW, False, True, "exact rationals", data,
                           "hypotheses of depth-narrow do not hold on this instance")
    d = cond["d"]
    cand = inst.candidate
    if cand is not None:
        data["candidate"] = layers_to_json(cand)
        first = None
        if cond["part"] == "a":
            # The proof's mechanism: the candidate's first layer vanishes at some x != 0 ...
            first = cone_point(cand[0][0], d)
            data["cone_point"] = svec(first)
            data["candidate_zero_there"] = not any(eval_stack(cand, first, False))
            data["F_nonzero_there"] = any(eval_stack(layers, first, True))
        wit = find_difference(layers, cand, inst.seed, first)
        data["difference"] = wit
        if wit is None:
            return Certificate(CLAIM_NARROW, False, True, "exact rationals", data,
                               "no point found where the candidate differs")
        if cond["part"] == "a" and not (data["candidate_zero_there"] and data["F_nonzero_there"]):
            return Certificate(CLAIM_NARROW, False, True, "exact rationals", data,
                               "cone point does not behave as the proof says")
    return Certificate(CLAIM_NARROW, True, True, "exact rationals (python-flint determinants)", data,
                       f"part ({cond['part']}): every piece is invertible"
                       + (", both blocks nondegenerate, kinks transversal" if cond["part"] == "c" else "")
                       + "; the candidate differs at an exact witness")


@safe_recheck
def recheck_narrow(cert: dict[str, Any]) -> bool:
    """Re-verify a depth-narrow certificate from its JSON alone."""
    if cert.get("claim") != CLAIM_NARROW or not cert.get("holds"):
        return False
    data = cert["data"]
    layers = layers_from_json(data["residual"])
    cond = data["conditions"]
    fresh = narrow_conditions(layers, cond["plain_widths"])
    if not fresh["applies"] or fresh != cond:
        return False
    if "candidate" in data:
        cand = layers_from_json(data["candidate"])
        if [len(U) for U, _ in cand] != cond["plain_widths"]:
            return False
        if not check_difference(layers, cand, data["difference"]):
            return False
        if cond["part"] == "a":
            x = qvec(data["cone_point"])
            if not any(x) or any(v > 0 for v in matvec_q(cand[0][0], x)):
                return False
            if not any(eval_stack(layers, x, True)):
                return False
    return True


def _bump_difference(c: dict[str, Any]) -> None:
    w = c["data"]["difference"]
    w["P"] = w["F"]  # the stored candidate value made equal to F's: no longer a difference


CONDITION_FORGERIES = [("conditions", lambda c: c["data"]["conditions"].update(forged=True))]
CANDIDATE_FORGERIES = [
    ("candidate of other widths", lambda c: c["data"]["candidate"].append(c["data"]["candidate"][-1])),
    ("difference", _bump_difference),
]
CONE_FORGERIES = [("cone point 0", lambda c: c["data"].update(cone_point=["0"] * len(c["data"]["cone_point"])))]


def _narrow_forgeries(cert: Certificate) -> list[tuple[str, Any]]:
    data = cert.data
    return CONDITION_FORGERIES + (CANDIDATE_FORGERIES if "candidate" in data else []) \
        + (CONE_FORGERIES if "cone_point" in data else [])


@oracle_check(CLAIM_NARROW, narrow_instances(), recheck_narrow, "exact rationals (python-flint)")
def check_narrow(inst: Any) -> Certificate:
    """Certify depth-narrow's hypotheses exactly and refute a candidate plain stack of narrow widths;
    the re-check must refuse every forgery of STACK_FORGERIES and _narrow_forgeries."""
    cert = narrow_certificate(_as_layers(inst))
    return refuse_forgeries(cert, recheck_narrow, _narrow_forgeries(cert))


# ================================================================ depth-d2

def d2_certificate(inst: StackInstance) -> Certificate:
    """Hypotheses of depth-d2 decided exactly; the verdict follows the index sets of the blocks."""
    layers = inst.layers
    cond = d2_conditions(layers)
    data: dict[str, Any] = {"residual": layers_to_json(layers), "conditions": cond}
    if not cond["applies"]:
        return Certificate(CLAIM_D2, False, True, "exact rationals", data,
                           "hypotheses of depth-d2 do not hold on this instance")
    # Cross-check of the proof's first step: F has exactly 2 (m_1 + m_2) kink rays.
    if cond["kink_rays"] != cond["expected_kink_rays"]:
        return Certificate(CLAIM_D2, False, True, "exact rationals", data,
                           "kink ray count differs from 2 (m_1 + m_2)")
    both = all(cond["index_sets"])
    data["plain_same_widths"] = both
    if both:
        # Sufficiency: flip the rows in S_l of each block and verify the identity exactly.
        plain = []
        for (U, W), S in zip(layers, cond["index_sets"]):
            S0 = set(S[0])
            plain.append(([[-v for v in u] if i in S0 else list(u) for i, u in enumerate(U)], W))
        ok, rays = stacks_equal(layers, plain)
        data["plain"] = layers_to_json(plain)
        return Certificate(CLAIM_D2, ok, True, "exact rationals", data,
                           "both blocks have index sets: the sign-flipped stack equals F" if ok
                           else "sign-flipped stack does not match")
    if inst.candidate is not None:
        data["candidate"] = layers_to_json(inst.candidate)
        wit = find_difference(layers, inst.candidate, inst.seed)
        data["difference"] = wit
        if wit is None:
            return Certificate(CLAIM_D2, False, True, "exact rationals", data, "candidate not refuted")
    return Certificate(CLAIM_D2, True, True, "exact rationals", data,
                       "homeomorphic nondegenerate blocks, kink rays in general position, and no index "
                       "set for some block: F is no plain stack of widths (m_1, m_2)")


@safe_recheck
def recheck_d2(cert: dict[str, Any]) -> bool:
    """Re-verify a depth-d2 certificate from its JSON alone."""
    if cert.get("claim") != CLAIM_D2 or not cert.get("holds"):
        return False
    data = cert["data"]
    layers = layers_from_json(data["residual"])
    fresh = d2_conditions(layers)
    if not fresh["applies"] or fresh != data["conditions"]:
        return False
    if fresh["kink_rays"] != fresh["expected_kink_rays"]:
        return False
    both = all(fresh["index_sets"])
    if data.get("plain_same_widths") != both:
        return False
    if both:
        return stacks_equal(layers, layers_from_json(data["plain"]))[0]
    if "candidate" in data:
        return check_difference(layers, layers_from_json(data["candidate"]), data["difference"])
    return True


def _d2_forgeries(cert: Certificate) -> list[tuple[str, Any]]:
    flip = [("plain_same_widths", lambda c: c["data"].update(plain_same_widths=not c["data"]["plain_same_widths"]))]
    cand = [("difference", _bump_difference)] if "difference" in cert.data else []
    return CONDITION_FORGERIES + flip + cand


@oracle_check(CLAIM_D2, d2_instances(), recheck_d2, "exact rationals (ray geometry, python-flint)")
def check_d2(inst: Any) -> Certificate:
    """Certify depth-d2's hypotheses exactly (d = 2, two homeomorphic blocks) and its verdict; the
    re-check must refuse every forgery of STACK_FORGERIES and _d2_forgeries."""
    cert = d2_certificate(_as_layers(inst))
    return refuse_forgeries(cert, recheck_d2, _d2_forgeries(cert))


# ================================================================ depth-dimension

def dimension_certificate(inst: StackInstance) -> Certificate:
    """The exact Jacobian rank certificate of depth-dimension."""
    layers = inst.layers
    rc = rank_certificate(layers, seed=inst.seed)
    data = {"residual": layers_to_json(layers), "rank": rc}
    ok = rc["certified"]
    return Certificate(CLAIM_DIM, ok, True, "exact rationals (python-flint rank and determinant)", data,
                       (f"Jacobian rank {rc['rank']} > D_plain = {rc['D_plain']}: almost every stack "
                        "with these activation patterns is no plain stack of the same widths")
                       if ok else f"rank {rc['rank']} <= D_plain = {rc['D_plain']}: no certificate")


@safe_recheck
def recheck_dimension(cert: dict[str, Any]) -> bool:
    """Re-verify a depth-dimension certificate: patterns, D_plain and a nonzero minor."""
    if cert.get("claim") != CLAIM_DIM or not cert.get("holds"):
        return False
    data = cert["data"]
    return check_rank_certificate(layers_from_json(data["residual"]), data["rank"])


def _bump_rank_field(c: dict[str, Any], key: str) -> None:
    c["data"]["rank"][key] += 1


def _repeat_minor_row(c: dict[str, Any]) -> None:
    r = c["data"]["rank"]["minor_rows"]
    r[0] = r[-1]


DIMENSION_FORGERIES = [
    ("D_plain", lambda c: _bump_rank_field(c, "D_plain")),
    ("pattern", lambda c: c["data"]["rank"]["patterns"].__setitem__(0, None)),
    ("dropped pattern", lambda c: c["data"]["rank"]["patterns"].pop()),
    ("repeated minor row", _repeat_minor_row),
]


@oracle_check(CLAIM_DIM, dimension_instances(), recheck_dimension,
              "exact rationals (python-flint rank and a nonzero minor)", examples=lambda: [corner_stack()])
def check_dimension(inst: Any) -> Certificate:
    """Certify rank DPhi > D_plain exactly at a concrete stack and rational points; the re-check
    must refuse every forgery of STACK_FORGERIES and DIMENSION_FORGERIES."""
    return refuse_forgeries(dimension_certificate(_as_layers(inst)), recheck_dimension, DIMENSION_FORGERIES)


# ================================================================ depth-width

def width_certificate(inst: StackInstance) -> Certificate:
    """Build the plain stack of widths m_l + 2d - rank U_l and prove it equals F exactly."""
    layers = inst.layers
    d = len(layers[0][1])
    per = width_construction(layers)
    plain = [(qmat(p["W_up"]), qmat(p["W_down"])) for p in per]
    pts = rational_points(d, 6, inst.seed)
    agree = all(eval_stack(layers, x, True) == eval_stack(plain, x, False) for x in pts)
    data = {"residual": layers_to_json(layers), "layers": per, "points": [svec(x) for x in pts],
            "points_agree": agree}
    ok = agree and all(p["canonical_equal"] and p["width"] == p["formula_width"] for p in per)
    # When rank U_l = min(m_l, d) (almost every weight) the width is max(m_l + d, 2d).
    ok = ok and all(p["width"] == p["generic_width"] for p in per if p["rank_U"] == min(p["m"], d))
    return Certificate(CLAIM_WIDTH, ok, True, "exact rationals (canonical forms)", data,
                       "each I + B_l equals its plain block (canonical forms agree), so the plain "
                       "stack equals F" if ok else "construction failed")


@safe_recheck
def recheck_width(cert: dict[str, Any]) -> bool:
    """Re-verify a depth-width certificate: canonical forms and widths recomputed."""
    if cert.get("claim") != CLAIM_WIDTH or not cert.get("holds"):
        return False
    data = cert["data"]
    layers = layers_from_json(data["residual"])
    d = len(layers[0][1])
    if len(data["layers"]) != len(layers):
        return False
    plain = []
    for (U, W), p in zip(layers, data["layers"]):
        up, down = qmat(p["W_up"]), qmat(p["W_down"])
        if len(down) != d or any(len(r) != len(up) for r in down) or any(len(r) != d for r in up):
            return False
        if canonical_form(U, W, identity(d)) != canonical_form(up, down):
            return False
        if len(up) != len(U) + 2 * d - qrank(U):
            return False
        plain.append((up, down))
    pts = [qvec(x) for x in data["points"]]
    return all(eval_stack(layers, x, True) == eval_stack(plain, x, False) for x in pts)


def _zero_unit(c: dict[str, Any]) -> None:
    p = c["data"]["layers"][0]
    p["W_up"].append(["0"] * len(p["W_up"][0]))
    for r in p["W_down"]:
        r.append("0")


def _double_output(c: dict[str, Any]) -> None:
    p = c["data"]["layers"][0]
    p["W_down"] = [[str(2 * Fraction(v)) for v in r] for r in p["W_down"]]


WIDTH_FORGERIES = [
    ("dropped plain block", lambda c: c["data"]["layers"].pop()),
    ("plain W_down of the wrong shape", lambda c: c["data"]["layers"][0].update(W_down=c["data"]["layers"][0]["W_down"][1:])),
    ("plain block of another map", _double_output),
    ("plain block with a zero unit added (same map, another width)", _zero_unit),
]


@oracle_check(CLAIM_WIDTH, width_instances(), recheck_width, "exact rationals (canonical forms)",
              examples=lambda: [corner_stack()])
def check_width(inst: Any) -> Certificate:
    """Construct the wider plain stack and verify it exactly (bias-free stacks only: a Stack whose
    blocks carry biases fails the hypothesis, its biases are not dropped)."""
    if isinstance(inst, Stack):
        biased = [f"block {k}: {n}" for k, b in enumerate(inst.blocks)
                  for n in ("b_up", "b_gate", "b_down")
                  if getattr(b, n, None) is not None and any(v != 0 for v in getattr(b, n))]
        if biased:  # pragma: no branch a biased stack lies outside the declared samples (biased = false); tests/test_claim_bias_hypothesis.py gives one
            return Certificate(CLAIM_WIDTH, False, True, "exact (the hypothesis read from the stack)",
                               {"hypotheses": {"bias_free": False}, "biases": biased},
                               "hypothesis fails: bias_free (" + "; ".join(biased) + "); the claim does not apply")
    return refuse_forgeries(width_certificate(_as_layers(inst)), recheck_width, WIDTH_FORGERIES)

