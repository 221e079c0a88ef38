"""Claim depth-analytic: for gelu, gelu_tanh and silu, almost every bias-free residual stack
of depth L >= 2 is no bias-free plain stack of the same widths, once one Jacobian rank certificate
exists (proofs/informal/depth-analytic.md).

The certificate (a full-rank N x N minor of the Jacobian of theta -> (F_theta(x_k))_k, enclosed in
arb balls, with an independent forward-mode derivative check) and the committed sweep are built
and re-checked in oracle/algebra/stacks/analytic.py and sweep.py, shared with `absorb check`.
This module draws instances (fresh width tuples, or entries of the committed sweep), certifies
them, and holds the boundary instances: a gelu stack that IS plain (the exceptional null set is
not empty) and depth one (the count gives nothing).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional, Sequence

from hypothesis import strategies as st

from oracle.core.rational import qmat, qvec, smat, svec
from oracle.algebra.exact import all_index_sets_exact, identity, safe_recheck
from oracle.algebra.stacks.analytic import (ACTIVATIONS, CLAIM, Layer, balls_overlap, certificate_parts,
                                            certify, eval_stack_ball, make_certificate, param_count,
                                            plain_dimension, point_count, random_points, rank_full,
                                            recheck)
from oracle.algebra.stacks.sweep import entry_certificate, load_sweep
from oracle.claims import coverage
from oracle.claims.base import Certificate, counterexample, oracle_check

Q = Fraction


# ================================================================ the oracle check

@dataclass
class AnalyticInstance:
    """Either a fresh width tuple to certify (sweep_index None) or an entry of the committed sweep
    to re-check (sweep_index modulo the number of entries)."""

    activation: str
    d: int
    widths: list[int]
    seed: int
    sweep_index: Optional[int] = None

    def size(self) -> dict[str, Any]:
        """d, the widest layer and the depth, for the report's instance-size figure."""
        return {"d": self.d, "m": max(self.widths), "depth": len(self.widths)}


@st.composite
def analytic_instances(draw: st.DrawFn) -> AnalyticInstance:
    """Fresh instances (d <= 3, L in {2, 3}, widths <= 3) and, one time in three, a sweep entry."""
    act = draw(st.sampled_from(ACTIVATIONS))
    d = draw(st.integers(1, 3))
    widths = [draw(st.integers(1, 3)) for _ in range(draw(st.integers(2, 3)))]
    seed = draw(st.integers(0, 10 ** 6))
    idx = draw(st.integers(0, 10 ** 6)) if draw(st.integers(0, 2)) == 0 else None
    return AnalyticInstance(act, d, widths, seed, idx)


def analytic_certificate(inst: AnalyticInstance) -> Certificate:
    """Certify rank N at fresh random rational weights, or take an entry of the committed sweep."""
    source = "fresh"
    if inst.sweep_index is not None:
        sweep = load_sweep()
        entry = sweep["entries"][inst.sweep_index % len(sweep["entries"])]
        cert = entry_certificate(entry, inst.activation)
        source = f"sweep entry {inst.sweep_index % len(sweep['entries'])}"
    else:
        cert = make_certificate(inst.activation, inst.d, inst.widths, inst.seed)
    ok = bool(cert["certified"])
    reason = (f"{cert['activation']}, d = {cert['d']}, widths {cert['widths']} ({source}): an N x N minor "
              f"(N = {cert['N']}) of the Jacobian has determinant {cert['det']} (arb, {cert['precision']} "
              f"bits), so rank N > D_plain = {cert['D_plain']}: almost every bias-free residual stack of these "
              "widths is no bias-free plain stack of the same widths") if ok else \
        f"no certificate for {cert['activation']}, d = {cert['d']}, widths {cert['widths']} ({source})" + \
        (f": {cert['reason']}" if cert.get("reason") else "")
    # what this instance reached, for the coverage measurement: the layers the certificate uses
    # (a sweep entry has its own d and widths), bias-free with identity skips
    _, layers, _, _ = certificate_parts(cert)
    subs = [coverage.Subject(U, W, identity(len(W)), False) for U, W in layers]
    drawn = coverage.features(coverage.Subjects(subs))
    return Certificate(CLAIM, ok, True, "arb balls (python-flint), determinant enclosure excludes 0",
                       {"source": source, "certificate": cert, "drawn": drawn}, reason)


@safe_recheck
def recheck_analytic(cert: dict[str, Any]) -> bool:
    """Re-verify a depth-analytic oracle certificate from its data alone."""
    return cert.get("claim") == CLAIM and bool(cert.get("holds")) and recheck(cert["data"]["certificate"])


def _omit_one_more(c: dict[str, Any]) -> None:
    omitted = set(c["rows_omitted"])
    c["rows_omitted"].append(next(i for i in range(len(c["points"]) * c["d"]) if i not in omitted))


def _repeat_point(c: dict[str, Any]) -> None:
    c["points"][1] = list(c["points"][0])


# Edits of a rank certificate (the dict of oracle/algebra/stacks/analytic.py's certify) that
# recheck_det must refuse, each breaking one stored fact: the claim, the verdict, N, D_plain, an
# activation outside the family, the widths, a point's length, the omitted rows (out of range, one
# too many), two equal points, the precision, the determinant (not a string, a ball holding 0, a
# ball far from the recomputed one).
RANK_FORGERIES: list[tuple[str, Any]] = [
    ("claim", lambda c: c.update(claim="forged")),
    ("certified", lambda c: c.update(certified=False)),
    ("N", lambda c: c.update(N=c["N"] + 1)),
    ("D_plain", lambda c: c.update(D_plain=c["D_plain"] + 1)),
    ("activation", lambda c: c.update(activation="relu")),
    ("widths", lambda c: c.update(widths=[])),
    ("point length", lambda c: c["points"].__setitem__(0, c["points"][0][:-1])),
    ("omitted row out of range", lambda c: c.update(rows_omitted=[-1])),
    ("one more omitted row", _omit_one_more),
    ("equal points", _repeat_point),
    ("precision", lambda c: c.update(precision=7)),
    ("determinant not a string", lambda c: c.update(det=1.0)),
    ("determinant ball holding 0", lambda c: c.update(det="[0 +/- 1.00]")),
    ("determinant far from the recomputed one", lambda c: c.update(det="[1.00e+300 +/- 1.00]")),
]


def rank_forgeries_accepted(cert: dict[str, Any], key: str, recheck_fn: Any) -> list[str]:
    """The forgeries of RANK_FORGERIES, applied to the rank certificate cert["data"][key], that
    recheck_fn accepts (empty when it refuses every one)."""
    def forged(edit: Any) -> dict[str, Any]:
        bad = json.loads(json.dumps(cert))
        edit(bad["data"][key])
        return bad
    return [name for name, edit in RANK_FORGERIES if recheck_fn(forged(edit))]


@oracle_check(CLAIM, analytic_instances(), recheck_analytic,
              "arb balls at 128-512 bits (python-flint): a determinant enclosure that excludes 0")
def check(inst: Any) -> Certificate:
    """Certify full Jacobian rank N (gelu, gelu_tanh, silu; L >= 2) in ball arithmetic; the re-check
    must refuse every forgery of RANK_FORGERIES."""
    if not isinstance(inst, AnalyticInstance):  # pragma: no branch the strategy draws AnalyticInstances only
        raise TypeError("expected an AnalyticInstance")
    cert = analytic_certificate(inst)
    accepted = rank_forgeries_accepted(cert.as_dict(), "certificate", recheck_analytic) if cert.holds else []
    cert.data["forgeries_refused"] = not accepted
    return cert if not accepted else Certificate(
        CLAIM, False, True, cert.method, cert.data, "the re-check accepts forged certificates: " + ", ".join(accepted))


# ================================================================ boundary instances

def index_set_stack() -> list[Layer]:
    """d = 2, L = 2, widths (3, 3), dyadic weights; in each block units 0, 1 have W_S U_S = -I."""
    U1 = qmat([[1, Q(1, 2)], [0, 1], [Q(3, 4), Q(-5, 8)]])
    W1 = qmat([[-1, Q(1, 2), Q(3, 8)], [0, -1, Q(-1, 2)]])      # W_S = -(U_S)^-1
    U2 = qmat([[1, 0], [Q(-1, 4), 1], [Q(5, 8), Q(7, 8)]])
    W2 = qmat([[-1, 0, Q(-1, 4)], [Q(-1, 4), -1, Q(5, 8)]])
    return [(U1, W1), (U2, W2)]


def flipped(layers: Sequence[Layer], sets: Sequence[Sequence[int]]) -> list[Layer]:
    """The layers with the rows of U_l in S_l negated."""
    return [([[-v for v in u] if i in S else list(u) for i, u in enumerate(U)], [list(r) for r in W])
            for (U, W), S in zip(layers, sets)]


def boundary_points(d: int) -> list[list[Fraction]]:
    """The 12 rational points (fixed per d) where the boundary stacks are compared in balls."""
    rng = random.Random(f"analytic-boundary/{d}")
    return random_points(d, 12, rng)


@counterexample(claims=(CLAIM, "depth-analytic-generic"), dropped="generic_weight",
                description="gelu, d = 2, widths (3, 3): both blocks have an index set S with "
                            "W_S U_S = -I, so flipping those rows gives a plain stack equal to the residual "
                            "one (s(-z) = s(z) - z); its Jacobian still has full rank N = 24 (certified), so "
                            "the exceptional null set is not empty and a certificate decides no given stack")
def analytic_index_sets() -> Certificate:
    """Drop 'almost every': a residual gelu stack that IS a plain stack of the same widths."""
    layers = index_set_stack()
    I2 = identity(2)
    sets = [all_index_sets_exact(U, W, I2) for U, W in layers]
    plain = flipped(layers, [S[0] for S in sets]) if all(sets) else []
    pts = boundary_points(2)
    agree = bool(plain) and all(balls_overlap(eval_stack_ball("gelu", layers, x, True),
                                               eval_stack_ball("gelu", plain, x, False)) for x in pts)
    rank = certify("gelu", layers, random_points(2, point_count(2, [3, 3]), random.Random("index-sets")))
    return index_sets_certificate(CLAIM, layers, plain, sets, pts, rank, agree)


def index_sets_certificate(claim: str, layers: Any, plain: Any, sets: Any, pts: Any, rank: dict[str, Any],
                           agree: bool) -> Certificate:
    """The certificate of an index-set boundary instance: the residual gelu stack, its flipped plain
    stack, the index sets, the points where they agree and the rank certificate; it holds when the two
    stacks agree at the points and the rank is certified full."""
    holds = agree and rank["certified"]
    data = {"kind": "analytic_index_sets", "activation": "gelu",
            "residual": [{"W_up": smat(U), "W_down": smat(W)} for U, W in layers],
            "plain": [{"W_up": smat(U), "W_down": smat(W)} for U, W in plain],
            "index_sets": [[list(s) for s in S] for S in sets], "points": [svec(x) for x in pts],
            "rank_certificate": rank}
    return Certificate(claim, holds, True, "exact index sets (rationals); values and rank in arb balls", data,
                       "" if holds else "boundary facts failed")


def depth_one_block() -> Layer:
    """d = 2, m = 3, W_S U_S = -I for S = {0, 1}: an absorbable gelu block."""
    return index_set_stack()[0]


@counterexample(claims=(CLAIM, "depth-analytic-generic"), dropped="depth_ge_2",
                description="depth 1 (gelu, d = 2, m = 3): no junction, so D_plain = N = 12 and the count "
                            "excludes nothing even though the Jacobian has full rank 12 (certified), and this "
                            "very block is absorbable (index set S = {0, 1}); at depth 1 the question is "
                            "decided by relu-limit (Thm. 10), not by this count: a limit of the proof, not a "
                            "false conclusion (for d >= 2 almost every block is still no plain block)")
def analytic_depth_one() -> Certificate:
    """Drop L >= 2: the dimension count gives nothing at depth one."""
    U, W = depth_one_block()
    layers = [(U, W)]
    S = all_index_sets_exact(U, W, identity(2))
    plain = flipped(layers, [S[0]]) if S else []
    pts = boundary_points(2)
    agree = bool(plain) and all(balls_overlap(eval_stack_ball("gelu", layers, x, True),
                                               eval_stack_ball("gelu", plain, x, False)) for x in pts)
    N = param_count(2, [3])
    rank = certify("gelu", layers, random_points(2, point_count(2, [3]), random.Random("depth-one")))
    holds = agree and rank["certified"] and plain_dimension(2, [3]) == N
    data = {"kind": "analytic_depth_one", "activation": "gelu",
            "residual": [{"W_up": smat(U), "W_down": smat(W)}],
            "plain": [{"W_up": smat(u), "W_down": smat(w)} for u, w in plain],
            "index_sets": [list(s) for s in S], "points": [svec(x) for x in pts],
            "N": N, "D_plain": plain_dimension(2, [3]), "rank_certificate": rank}
    return Certificate(CLAIM, holds, True, "exact index sets (rationals); values and rank in arb balls", data,
                       "" if holds else "boundary facts failed")


@safe_recheck
def recheck_counterexample(cert: dict[str, Any]) -> bool:
    """Re-verify a depth-analytic boundary certificate from its data alone."""
    data = cert["data"]
    kind = data["kind"]
    act = data["activation"]
    res = [(qmat(r["W_up"]), qmat(r["W_down"])) for r in data["residual"]]
    plain = [(qmat(r["W_up"]), qmat(r["W_down"])) for r in data["plain"]]
    d = len(res[0][1])
    pts = [qvec(x) for x in data["points"]]
    if len(plain) != len(res) or [len(U) for U, _ in plain] != [len(U) for U, _ in res] or not pts:
        return False
    # the plain stack is the residual one with the rows of an exact index set flipped
    for (U, W), (V, W2) in zip(res, plain):
        S = [i for i in range(len(U)) if V[i] != U[i]]
        if W2 != W or any(V[i] != [-v for v in U[i]] for i in S):
            return False
        if tuple(S) not in all_index_sets_exact(U, W, identity(d)):
            return False
    if not all(balls_overlap(eval_stack_ball(act, res, x, True), eval_stack_ball(act, plain, x, False))
               for x in pts):
        return False
    rc = data["rank_certificate"]
    if [len(U) for U, _ in res] != rc["widths"] or not rank_full(rc):
        return False
    if kind == "analytic_index_sets":
        return len(res) >= 2
    if kind == "analytic_depth_one":
        return len(res) == 1 and plain_dimension(d, rc["widths"]) == param_count(d, rc["widths"])
    return False

