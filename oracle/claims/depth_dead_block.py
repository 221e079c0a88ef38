"""Claim depth-dead-block: a relu stack of two blocks whose second block is dead on the image of the
first is M_2 G_1 + e_2; with a width < d and an invertible piece it is no plain stack, and when G_1 is
a plain block and m_2 >= 2 d - rank U_2 it is one (proofs/informal/depth-dead-block.md).

The instances are built so that the answer is known without the claim: block 1 folds,
G_1(x) = x - V^{-1} relu(V x + c) + e_1 = V^{-1}(-c - relu(-(V x + c))) + e_1, whose image is
V^{-1}(-c - R^d_+) + e_1 and which is the plain block P_1(x) = -V^{-1} relu(-V x - c) - V^{-1} c + e_1;
the units u = alpha V of block 2 with alpha >= 0 are dead on that image iff
c_2 <= alpha . c - u . e_1, and fire at x* = V^{-1}(-c) otherwise.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from hypothesis import strategies as st

from oracle.core.rational import qvec, svec
from oracle.algebra.exact import safe_recheck
from oracle.algebra.stacks import dead
from oracle.claims import coverage
from oracle.claims.base import Certificate, counterexample, oracle_check

CLAIM = "depth-dead-block"
Q = Fraction
QMat = list[list[Fraction]]


@dataclass
class DeadInstance(coverage.Drawn):
    """Two exact relu blocks (dead.exact_block dicts), V and c of the fold, alpha of block 2's rows,
    and how it was drawn: 'planted' (dead), 'near_miss' (one bias of block 2 moved by 2^-30 off a dead
    boundary), 'random' (some alpha entry negative: not dead)."""

    b1: dict[str, Any]
    b2: dict[str, Any]
    V: QMat
    c: list[Fraction]
    kind: str

    def size(self) -> dict[str, Any]:
        """d, the widest block and the depth."""
        return {"d": len(self.V), "m": max(len(self.b1["U"]), len(self.b2["U"])), "depth": 2}

    def subjects(self) -> list[coverage.Subject]:
        """Both blocks in exact rationals, for the coverage measurement."""
        return [coverage.Subject(b["U"], b["W"], b["M"], any(v != 0 for v in b["c"]) or any(v != 0 for v in b["e"]))
                for b in (self.b1, self.b2)]


@st.composite
def dead_instances(draw: st.DrawFn) -> DeadInstance:
    """d = 2, 3; block 1 folds through an invertible V (unit triangular factors) with 0 or 1 extra unit
    of zero down column; block 2 has 1 .. 2d units with rows alpha V; skips of block 2 identity,
    invertible or zero; biases half of the time."""
    d = draw(st.integers(2, 3))
    small = st.integers(-2, 2).map(Q)
    Lm = [[Q(int(i == j)) if j >= i else draw(small) for j in range(d)] for i in range(d)]
    Um = [[Q(int(i == j)) if j <= i else draw(small) for j in range(d)] for i in range(d)]
    V = [[sum((Lm[i][k] * Um[k][j] for k in range(d)), Q(0)) for j in range(d)] for i in range(d)]
    Vinv = dead.inverse(V)
    biased = draw(st.booleans())
    vals = st.integers(-4, 4).map(lambda n: Q(n, 2))
    c = [draw(vals) if biased else Q(0) for _ in range(d)]
    e1 = [draw(vals) if biased else Q(0) for _ in range(d)]
    extra = draw(st.integers(0, 1))
    U1 = [list(r) for r in V] + [[draw(small) for _ in range(d)] for _ in range(extra)]
    W1 = [[-Vinv[i][j] for j in range(d)] + [Q(0)] * extra for i in range(d)]
    c1 = list(c) + [draw(vals) if biased else Q(0) for _ in range(extra)]
    b1 = dead.exact_block(U1, W1, None, c1, e1)
    kind = draw(st.sampled_from(["planted", "planted", "near_miss", "random"]))
    m2 = draw(st.integers(1, 2 * d))
    U2, c2 = [], []
    for j in range(m2):
        alpha = [draw(st.integers(0, 2).map(Q)) for _ in range(d)]
        if kind == "random" and j == 0:
            alpha[draw(st.integers(0, d - 1))] = Q(-1)
        u = [sum((alpha[k] * V[k][s] for k in range(d)), Q(0)) for s in range(d)]
        edge = sum((a * ck for a, ck in zip(alpha, c)), Q(0)) - sum((ui * ei for ui, ei in zip(u, e1)), Q(0))
        slack = draw(st.sampled_from([Q(0), Q(0), Q(1, 2), Q(1)]))
        bias = edge - slack
        if kind == "near_miss" and j == 0:
            if all(a == 0 for a in alpha):
                alpha[0] = Q(1)
                u = [sum((alpha[k] * V[k][s] for k in range(d)), Q(0)) for s in range(d)]
                edge = sum((a * ck for a, ck in zip(alpha, c)), Q(0)) - sum((ui * ei for ui, ei in zip(u, e1)), Q(0))
            bias = edge + coverage.NEAR_MISS_STEP
        U2.append(u)
        c2.append(bias)
    W2 = [[draw(small) for _ in range(m2)] for _ in range(d)]
    W2[0][0] = Q(1)  # unit 0's down column is nonzero, so a unit that fires changes F
    M2 = draw(st.sampled_from(["identity", "invertible", "zero"]))
    Mmat = None if M2 == "identity" else [[Q(2 * int(i == j)) + (Q(1) if (i, j) == (0, d - 1) else Q(0))
                                           for j in range(d)] for i in range(d)] if M2 == "invertible" else \
        [[Q(0)] * d for _ in range(d)]
    e2 = [draw(vals) if biased else Q(0) for _ in range(d)]
    b2 = dead.exact_block(U2, W2, Mmat, c2, e2)
    return DeadInstance(b1, b2, V, c, kind)


def _points(d: int, V: QMat, c: list[Fraction]) -> list[list[Fraction]]:
    """Rational test points: the fold's apex V^{-1}(-c), the axes, and a few fixed mixed points."""
    Vinv = dead.inverse(V)
    apex = [sum((Vinv[i][k] * -c[k] for k in range(d)), Q(0)) for i in range(d)]
    pts = [apex, [Q(0)] * d]
    for s in (Q(3), Q(-5, 2)):
        for k in range(d):
            pts.append([s if i == k else Q(0) for i in range(d)])
    pts += [[Q(7, 3) * (-1) ** i + Q(i) for i in range(d)], [Q(-11, 4) + Q(2 * i, 5) for i in range(d)]]
    return pts


def _plain_eval(layer: dict[str, Any], x: list[Fraction]) -> list[Fraction]:
    pre = [sum((u * v for u, v in zip(row, x)), Q(0)) + b for row, b in zip(layer["W_up"], layer["b_up"])]
    act = [p if p > 0 else Q(0) for p in pre]
    return [sum((w * a for w, a in zip(row, act)), Q(0)) + e for row, e in zip(layer["W_down"], layer["b_down"])]


def _fold_plain(V: QMat, c: list[Fraction], e1: list[Fraction], m1: int) -> dict[str, Any]:
    """P_1(x) = -V^{-1} relu(-V x - c) - V^{-1} c + e_1, padded with zero units to width m1."""
    d = len(V)
    Vinv = dead.inverse(V)
    up = [[-v for v in row] for row in V] + [[Q(0)] * d for _ in range(m1 - d)]
    bu = [-v for v in c] + [Q(0)] * (m1 - d)
    down = [[-Vinv[i][j] for j in range(d)] + [Q(0)] * (m1 - d) for i in range(d)]
    bd = [e1[i] - sum((Vinv[i][k] * c[k] for k in range(d)), Q(0)) for i in range(d)]
    return {"W_up": up, "b_up": bu, "W_down": down, "b_down": bd}


def _first(regs: list[dict[str, Any]], key: str) -> Optional[dict[str, Any]]:
    return next((r for r in regs if key in r and any(r[key])), None)


def _set_all(mult: dict[str, str], value: str) -> None:
    for k in mult:
        mult[k] = value


def _region_forgeries(cert: dict[str, Any], m1: int) -> list[tuple[str, Any]]:
    """Edits of a dead certificate that check_dead_certificate must refuse: not dead, a dropped
    region, and in a bounding region: a bound dropped, a multiplier negative, of a unit outside
    block 1, all 0, one scaled (the linear identity or the bound fails).  (The drawn dead
    instances have no empty region, whose multipliers are not forged here.)"""
    regs = cert["regions"]
    out: list[tuple[str, Any]] = [("not dead", lambda c: c.update(dead=False)),
                                  ("dropped region", lambda c: c["regions"].pop())]
    b = _first(regs, "bounds")
    if b is not None:
        i = regs.index(b)
        j = next(j for j, lam in enumerate(b["bounds"]) if lam)
        k = next(iter(b["bounds"][j]))
        out += [("dropped bound", lambda c: c["regions"][i]["bounds"].pop()),
                ("negative lambda", lambda c: c["regions"][i]["bounds"][j].update({k: "-1"})),
                ("lambda of a unit outside block 1", lambda c: c["regions"][i]["bounds"][j].update({str(m1): "1"})),
                ("lambda = 0", lambda c: _set_all(c["regions"][i]["bounds"][j], "0")),
                ("lambda scaled", lambda c: c["regions"][i]["bounds"][j].update(
                    {k: str(2 * Q(c["regions"][i]["bounds"][j][k]) + 1)}))]
    return out


def forged_dead_accepted(b1: dict[str, Any], b2: dict[str, Any], cert: dict[str, Any]) -> list[str]:
    """The names of the forgeries of a dead certificate (_region_forgeries) that
    dead.check_dead_certificate accepts; empty when it refuses every one."""
    def forged(edit: Any) -> dict[str, Any]:
        bad = json.loads(json.dumps(cert))
        edit(bad)
        return bad
    return [n for n, edit in _region_forgeries(cert, len(b1["U"])) if dead.check_dead_certificate(b1, b2, forged(edit))]


def dead_block_certificate(inst: DeadInstance) -> Certificate:
    """Decide dead_on_image exactly and cross-check (a), (b), (c) against the fold's known answer."""
    b1, b2 = inst.b1, inst.b2
    d, m1, m2 = len(inst.V), len(b1["U"]), len(b2["U"])
    dc = dead.dead_certificate(b1, b2)
    data: dict[str, Any] = {"blocks": [dead.block_json(b1), dead.block_json(b2)], "V": [svec(r) for r in inst.V],
                            "c": svec(inst.c), "kind": inst.kind, "dead": dc}
    ok = dc["dead"] == (inst.kind == "planted")
    if dc["dead"]:
        ok = ok and dead.check_dead_certificate(b1, b2, dc)
        data["forged_dead_certificates_accepted"] = accepted = forged_dead_accepted(b1, b2, dc)
        ok = ok and not accepted
    pts = _points(d, inst.V, inst.c)
    F = [dead.evaluate(b2, dead.evaluate(b1, x)) for x in pts]
    G = [dead.evaluate(b1, x) for x in pts]
    affine = [[sum((r * g for r, g in zip(row, gx)), Q(0)) + e for row, e in zip(b2["M"], b2["e"])] for gx in G]
    data["part_a_at_points"] = all(f == a for f, a in zip(F, affine))
    if dc["dead"]:
        ok = ok and data["part_a_at_points"]
    else:
        # the unit that is not dead fires at the apex (near miss) or far along a negative alpha
        x0 = pts[0]
        fires = [sum((u * g for u, g in zip(row, dead.evaluate(b1, x0))), Q(0)) + cj > 0
                 for row, cj in zip(b2["U"], b2["c"])]
        data["fires_at_apex"] = any(fires)
        if inst.kind == "near_miss":
            ok = ok and data["fires_at_apex"]
    P1 = _fold_plain(inst.V, inst.c, b1["e"], m1)
    data["P1_equals_G1_at_points"] = all(_plain_eval(P1, x) == g for x, g in zip(pts, G))
    ok = ok and data["P1_equals_G1_at_points"]
    if dc["dead"]:
        p2 = dead.second_layer(b2, m2)
        data["part_b"] = None if p2 is None else {"width_needed": p2["width_needed"], "rank": p2["rank"]}
        if p2 is not None:
            data["part_b_at_points"] = all(_plain_eval(p2, _plain_eval(P1, x)) == f for x, f in zip(pts, F))
            ok = ok and data["part_b_at_points"] and m2 >= 2 * d - dead.rank(b2["U"])
        else:
            ok = ok and m2 < 2 * d - dead.rank(b2["U"])
        if min(m1, m2) < d:
            pc = dead.invertible_piece(b1, b2["M"])
            data["part_c"] = pc
            # the fold's piece on {V x + c < 0} is the identity, so with M_2 invertible (c) applies
            if b2["M"] != [[Q(0)] * d for _ in range(d)]:
                ok = ok and pc is not None and dead.check_invertible_piece(b1, b2["M"], pc)
    drawn = {"planted": inst.kind == "planted", "near_miss": inst.kind == "near_miss"}
    data["drawn"] = drawn
    return Certificate(CLAIM, ok, True, "exact rationals (Farkas multipliers, exact evaluation)", data,
                       ("dead (certificate over all patterns)" if dc["dead"] else "not dead: " + dc["reason"])
                       if ok else "the dead-ness decision or a cross-check disagrees with the fold's known answer")


@safe_recheck
def recheck_dead_block(cert: dict[str, Any]) -> bool:
    """Re-verify a depth-dead-block certificate from its JSON alone."""
    if cert.get("claim") != CLAIM or not cert.get("holds"):
        return False
    data = cert["data"]
    b1, b2 = (dead.block_from_json(b) for b in data["blocks"])
    inst = DeadInstance(b1, b2, [qvec(r) for r in data["V"]], qvec(data["c"]), data["kind"])
    fresh = dead_block_certificate(inst)
    return fresh.holds and fresh.data == data


@oracle_check(CLAIM, dead_instances(), recheck_dead_block, "exact rationals (Farkas multipliers, exact evaluation)")
def check_dead_block(inst: Any) -> Certificate:
    """Certify depth-dead-block on a drawn two-block stack; the re-check must refuse the certificate
    with another claim or another verdict."""
    cert = dead_block_certificate(inst)
    forged = [dict(cert.as_dict(), claim="forged"), dict(cert.as_dict(), holds=False)]
    accepted = cert.holds and any(recheck_dead_block(f) for f in forged)
    return cert if not accepted else Certificate(CLAIM, False, True, cert.method, cert.data,
                                                 "the re-check accepts a forged certificate")


# ================================================================ boundary instance (dead_on_image)

def _firing_pair() -> tuple[dict[str, Any], dict[str, Any]]:
    """The fold x - relu(x) on R^2 (image -R^2_+) and a second block of width 4 whose unit
    relu(y_1 + 1) fires on the whole image near 0."""
    I = [[Q(1), Q(0)], [Q(0), Q(1)]]
    b1 = dead.exact_block(I, [[Q(-1), Q(0)], [Q(0), Q(-1)]], None, None, None)
    U2 = [[Q(1), Q(0)], [Q(0), Q(0)], [Q(0), Q(0)], [Q(0), Q(0)]]
    W2 = [[Q(1), Q(0), Q(0), Q(0)], [Q(0), Q(0), Q(0), Q(0)]]
    b2 = dead.exact_block(U2, W2, None, [Q(1), Q(0), Q(0), Q(0)], None)
    return b1, b2


def _firing_facts(b1: dict[str, Any], b2: dict[str, Any]) -> dict[str, Any]:
    x = [Q(0), Q(0)]
    F = dead.evaluate(b2, dead.evaluate(b1, x))
    G = dead.evaluate(b1, x)
    affine = [sum((r * g for r, g in zip(row, G)), Q(0)) + e for row, e in zip(b2["M"], b2["e"])]
    P1 = _fold_plain([[Q(1), Q(0)], [Q(0), Q(1)]], [Q(0), Q(0)], b1["e"], 2)
    p2 = dead.second_layer(b2, 4)
    P = _plain_eval(p2, _plain_eval(P1, x)) if p2 is not None else None
    return {"point": svec(x), "F": svec(F), "M2_G1_plus_e2": svec(affine),
            "plain_b": svec(P) if P is not None else None, "dead": dead.dead_certificate(b1, b2)["dead"]}


@counterexample(claims=(CLAIM,), dropped="dead_on_image",
                description="the fold x - relu(x) on R^2 followed by a block whose unit relu(y_1 + 1) fires near 0: "
                            "F(0) = (1, 0) while M_2 G_1(0) + e_2 = 0 and part (b)'s plain stack gives 0")
def dead_block_fires() -> Certificate:
    """Drop dead_on_image: (a) and (b) fail at the point 0 (exact)."""
    b1, b2 = _firing_pair()
    facts = _firing_facts(b1, b2)
    holds = (not facts["dead"] and facts["F"] != facts["M2_G1_plus_e2"] and facts["plain_b"] is not None
             and facts["plain_b"] != facts["F"])
    data = {"kind": "dead_block_fires", "blocks": [dead.block_json(b1), dead.block_json(b2)], **facts}
    return Certificate(CLAIM, holds, True, "exact rationals", data, "" if holds else "boundary facts failed")


@safe_recheck
def recheck_dead_block_counterexample(cert: dict[str, Any]) -> bool:
    """Re-verify the dead_on_image boundary certificate from its data alone."""
    data = cert["data"]
    if data.get("kind") != "dead_block_fires":
        return False
    b1, b2 = (dead.block_from_json(b) for b in data["blocks"])
    facts = _firing_facts(b1, b2)
    return (all(data[k] == v for k, v in facts.items()) and not facts["dead"]
            and facts["F"] != facts["M2_G1_plus_e2"] and facts["plain_b"] != facts["F"])
