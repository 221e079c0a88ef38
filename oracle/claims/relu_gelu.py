"""Oracle check of relu-gelu-iff (Thms. 8 and 10), plus exact helpers shared by sibling modules.

The check covers both directions on generated instances:

* sufficiency -- on blocks built to satisfy W_down[:,S] W_up[S,:] = -M, flipping the rows
  of W_up in S gives a residual-free block B' with B'(x) = Mx + B(x). The algebraic identity
  W_S U_S = -M is verified exactly; the functional identity exactly in rationals for relu and
  with arb ball enclosures for gelu, gelu_tanh and silu (that part is numerical evidence: the
  identity itself is proved in proofs/informal/relu-gelu-iff.md, part (A));
* necessity -- on small nondegenerate relu blocks every one of the 2^m index sets is examined
  exactly; when none works, candidate residual-free blocks of the same width are refuted by an
  exact witness point, located with the kink-hyperplane argument of the proof (part (B));
* the rank consequence |S| >= d for invertible M (part (C)), exactly.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional, Sequence

import numpy as np
from hypothesis import strategies as st

from oracle.core import activations
from oracle.core.blocks import Block, exact_rank
from oracle.core.strategies import condition_blocks, dyadic_weights, nondegenerate_blocks
from oracle.claims.base import Certificate, oracle_check
from oracle.core.rational import QMat, QVec, qmat, qvec, smat, svec
from oracle.algebra.exact import (
    BALL_PREC, all_index_sets_exact, balls_agree, dot, eval_ball, eval_plain_q, index_sum, line_key,
    nondegenerate_exact, nullspace
)
from oracle.algebra import construct
from oracle.algebra.canonical import relu_form_exact
from oracle.algebra.relu_width import minimal_width
from oracle.algebra.search import exhaustive_search

CLAIM = "relu-gelu-iff"


# ---------------------------------------------------------------- kink witnesses (relu)

def _kink_vector(W_up: QMat, W_down: QMat, key: tuple[int, ...]) -> QVec:
    """sum over units on the line `key` of w_j |u_j . l|: the jump of the second difference across l^perp."""
    l = [Fraction(v) for v in key]
    d = len(W_down)
    out = [Fraction(0)] * d
    for j, row in enumerate(W_up):
        if line_key(row) == key:
            s = abs(dot(row, l))
            for a in range(d):
                out[a] += W_down[a][j] * s
    return out


def kink_witness(W_up: QMat, W_down: QMat, M: QMat, C_up: QMat, C_down: QMat) -> Optional[dict[str, Any]]:
    """An exact point where Mx + W_down relu(W_up x) differs from the relu block (C_up, C_down).

    If the two sides put different kink vectors on some hyperplane l^perp, the second difference
    of their gap along l at a generic point x0 of l^perp is t (k_F(l) - k_B'(l)) != 0, so one of
    x0 - t l, x0, x0 + t l is a witness. Otherwise the gap is the linear map L x and e_b works for
    a nonzero column b of L. Returns None only when the candidate equals F everywhere.
    """
    d = len(M)
    rows = [r for r in W_up + C_up if line_key(r) is not None]
    keys = list(dict.fromkeys(line_key(r) for r in rows))
    F = lambda x: eval_plain_q("relu", W_up, W_down, x, M=M)  # noqa: E731
    G = lambda x: eval_plain_q("relu", C_up, C_down, x)  # noqa: E731
    for key in keys:
        kf, kg = _kink_vector(W_up, W_down, key), _kink_vector(C_up, C_down, key)
        if kf == kg:
            continue
        l = [Fraction(v) for v in key]
        basis = nullspace([l], d)
        others = [r for r in rows if line_key(r) != key]
        # Points on the moment curve of the basis avoid each other hyperplane for all but
        # finitely many parameters, so a small search always succeeds.
        for c in itertools.count(1):
            x0 = [sum((Fraction(c) ** k * b[i] for k, b in enumerate(basis)), Fraction(0))
                  for i in range(d)] if basis else [Fraction(0)] * d
            if all(dot(r, x0) != 0 for r in others):
                break
        bounds = [abs(dot(r, x0)) / abs(dot(r, l)) for r in others if dot(r, l) != 0]
        t = min(bounds) / 2 if bounds else Fraction(1)
        pts = [[a + t * b for a, b in zip(x0, l)], x0, [a - t * b for a, b in zip(x0, l)]]
        for p in pts:
            fp, gp = F(p), G(p)
            if fp != gp:
                return {"method": "kink", "line": list(key), "x": svec(p),
                        "F": svec(fp), "candidate": svec(gp)}
        raise AssertionError("kink vectors differ but the second difference vanished")  # pragma: no cover
    # Same kinks on every hyperplane: the gap is linear; evaluate it on the basis vectors.
    for b in range(d):
        e = [Fraction(int(i == b)) for i in range(d)]
        fe, ge = F(e), G(e)
        if fe != ge:
            return {"method": "linear part", "line": None, "x": svec(e), "F": svec(fe),
                    "candidate": svec(ge)}
    return None


# ---------------------------------------------------------------- instances

@dataclass
class Instance:
    """One generated instance: a 'sufficiency' block with its S, or a 'necessity' relu block."""

    kind: str
    block: Block
    S: tuple[int, ...] = ()  # the planted S (for a near miss: the S it misses)
    points: list[list[Fraction]] = field(default_factory=list)
    candidate: Optional[tuple[np.ndarray, np.ndarray]] = None

    @property
    def near_miss(self) -> bool:
        """True for a planted block moved off its index condition by 2^-30."""
        return self.kind == "near_miss"


def _points(d: int) -> st.SearchStrategy[list[list[Fraction]]]:
    coord = st.builds(Fraction, st.integers(-40, 40), st.sampled_from([1, 2, 3, 4, 7, 8]))
    return st.lists(st.lists(coord, min_size=d, max_size=d), min_size=2, max_size=4)


@st.composite
def _sufficiency(draw: st.DrawFn) -> Instance:
    inst = draw(condition_blocks(activation="relu", extra=draw(st.integers(0, 2)),
                                 skip=draw(st.sampled_from(["identity", "invertible"]))))
    return Instance("sufficiency", inst.block, inst.S, draw(_points(inst.block.d)))


@st.composite
def _near_miss(draw: st.DrawFn) -> Instance:
    """A planted relu block with one W_down[:, S] entry moved by 2^-30: S misses by that much."""
    inst = draw(condition_blocks(activation="relu", extra=draw(st.integers(0, 2)),
                                 skip=draw(st.sampled_from(["identity", "invertible"])), near_miss=True))
    b = inst.block
    cand = (draw(dyadic_weights((b.m, b.d))), draw(dyadic_weights((b.d, b.m))))
    return Instance("near_miss", b, inst.S, draw(_points(b.d)), cand)


@st.composite
def _necessity(draw: st.DrawFn) -> Instance:
    d = draw(st.integers(2, 3))
    m = draw(st.integers(2, 8 if d == 2 else 6))
    skip = draw(st.sampled_from(["identity", "invertible"]))
    b = draw(nondegenerate_blocks("relu", d=d, m=m, skip=skip))
    cand = (draw(dyadic_weights((m, d))), draw(dyadic_weights((d, m))))
    return Instance("necessity", b, (), draw(_points(d)), cand)


STRATEGY = st.one_of(_sufficiency(), _necessity(), _near_miss())


def _skip(b: Block) -> QMat:
    return qmat(b.skip())


def _flip(W_up: QMat, S: Sequence[int]) -> QMat:
    """The up rows of the sign-flip block for S, built by the construction `absorb check` uses."""
    d = len(W_up[0]) if W_up else 0
    up = np.array([[float(v) for v in r] for r in W_up], dtype=np.float64).reshape(len(W_up), d)
    if any(Fraction(float(v)) != v for r in W_up for v in r):
        raise ValueError("W_up is not float64-exact")
    probe = Block("relu", W_up=up, W_down=np.zeros((d, len(W_up))), kind="residual")
    plain, _ = construct.flip_block(probe, S)
    return qmat(plain.W_up)


def _kink_points(W_up: QMat, d: int) -> list[QVec]:
    """Points lying exactly on kink hyperplanes (where relu is not smooth), one per row."""
    pts = []
    for row in W_up[:3]:
        ns = nullspace([row], d)
        if ns:
            pts.append([sum((b[i] for b in ns), Fraction(0)) for i in range(d)])
    return pts


def _check_function_identity(act: str, U: QMat, W: QMat, M: QMat, Uf: QMat,
                             pts: list[QVec]) -> tuple[bool, bool, list[dict[str, Any]]]:
    """Compare Mx + B(x) with B'(x) at pts: exact for relu, arb balls otherwise."""
    rows = []
    ok = True
    exact = activations.get(act).exact is not None
    for p in pts:
        if exact:
            lhs, rhs = eval_plain_q(act, U, W, p, M=M), eval_plain_q(act, Uf, W, p)
            good = lhs == rhs
            rows.append({"x": svec(p), "value": svec(lhs), "equal": good})
        else:
            lhs, rhs = eval_ball(act, U, W, p, M=M), eval_ball(act, Uf, W, p)
            good, width = balls_agree(lhs, rhs)
            rows.append({"x": svec(p), "diff_bound": width, "equal": good})
        ok = ok and good
    return ok, exact, rows


def _relu_value(c: dict[str, Any]) -> None:
    c["data"]["points"]["relu"][0]["value"] = "forged"


# Edits of a holding certificate that the re-check must refuse.  On every kind: the width, a
# claimed index set that is none, relu-complete's m*.  Where the certificate has them: the
# near-miss record, the S of the construction, the activations compared, the points, a relu value,
# and (necessity without index sets) the activation.
FORGERIES: dict[str, list[tuple[str, Any]]] = {
    "any": [("m", lambda c: c["data"].update(m=c["data"]["m"] + 1)),
            ("index sets", lambda c: c["data"]["index_sets"].append([-1])),
            ("m*", lambda c: c["data"].update(relu_complete_m_star=c["data"]["relu_complete_m_star"] + 1))],
    "near_miss": [("near-miss record", lambda c: c["data"]["near_miss"].update(forged=True))],
    "S": [("S", lambda c: c["data"].update(S=[0, 0]))],
    "points": [("activations compared", lambda c: c["data"]["points"].update(forged=[])),
               ("no relu points", lambda c: c["data"]["points"].update(relu=[])),
               ("relu value", _relu_value)],
    "witnesses": [("activation", lambda c: c["data"].update(activation="gelu"))],
}


def _forgeries(data: dict[str, Any]) -> list[tuple[str, Any]]:
    keys = ["any"] + [k for k in ("near_miss", "S", "witnesses") if k in data] \
        + (["points"] if "relu" in data.get("points", {}) else [])
    return [f for k in keys for f in FORGERIES[k]]


def _forged(cert: dict[str, Any], edit: Any) -> dict[str, Any]:
    bad = json.loads(json.dumps(cert))
    edit(bad)
    return bad


@oracle_check(CLAIM, STRATEGY, recheck=lambda c: recheck(c), precision=f"exact (relu) / arb {BALL_PREC} bits")
def check(inst: Instance) -> Certificate:
    """Check relu-gelu-iff on one instance (sufficiency by sign flip, necessity by exhaustive search);
    the re-check must refuse every forgery of FORGERIES that applies to the certificate."""
    cert = _check(inst)
    d = cert.as_dict()
    accepted = [n for n, edit in (_forgeries(cert.data) if cert.holds else []) if recheck(_forged(d, edit))]
    cert.data["forgeries_refused"] = not accepted
    return cert if not accepted else Certificate(
        CLAIM, False, False, cert.method, cert.data, "the re-check accepts forged certificates: " + ", ".join(accepted))


def _check(inst: Instance) -> Certificate:
    b = inst.block
    U, W, M = qmat(b.W_up), qmat(b.W_down), _skip(b)
    d, m = b.d, b.m
    data: dict[str, Any] = {"kind": inst.kind, "activation": b.activation, "W_up": smat(U),
                            "W_down": smat(W), "M": smat(M), "d": d, "m": m}
    found = _search(b)
    data["index_sets"] = [list(S) for S in found]
    data["search"] = found_how = _SEARCH_HOW
    rank_M = exact_rank(M)
    rank_ok = all(len(S) >= d and exact_rank([[W[a][i] for i in S] for a in range(d)] or [[0]]) == d
                  for S in found) if rank_M == d else True
    data["rank_M"] = rank_M
    data["all_S_have_size_at_least_d"] = rank_ok
    # The conclusion decided without the index sets: relu-complete's exact minimal width m*
    # (canonical form, signs and ranks) is at most m iff the relu block absorbs at width m.
    mstar = _m_star(U, W, M)
    data["relu_complete_m_star"] = mstar
    data["m_star_agrees_with_index_sets"] = agree = (mstar <= m) == bool(found)
    data["drawn"] = {"planted": bool(found)} if inst.kind != "near_miss" else {}
    if not agree:
        return Certificate(CLAIM, False, False, "exact", data,
                           f"relu-complete's m* = {mstar} and the index sets {found} disagree about width {m}")
    if inst.kind == "near_miss" and tuple(inst.S) in found:
        # W_S U_S + M = +-2^-30 e_a u_j^T != 0 exactly: the moved S can never satisfy the condition
        return Certificate(CLAIM, False, False, "exact", data, f"the near-miss S = {list(inst.S)} was found as an index set")
    if inst.kind == "near_miss" and not found:
        nm = _near_miss_refuted(U, W, M, list(inst.S))
        data["near_miss"] = nm
        if not nm["refuted"]:
            return Certificate(CLAIM, False, False, "exact", data,
                               "the flip of a near-miss S was not told apart from the block")
    if inst.kind == "sufficiency":
        # The same weights are checked with every activation having s(z) - s(-z) = z.
        S = inst.S
        alg = index_sum(U, W, S) == [[-v for v in row] for row in M]
        pts = [qvec(p) for p in inst.points] + _kink_points(U, d)
        per_act, fn_ok = {}, True
        for act in activations.COQ_ODD_PART:
            ok, _, rows = _check_function_identity(act, U, W, M, _flip(U, S), pts)
            per_act[act] = rows
            fn_ok = fn_ok and ok
        data.update({"S": list(S), "algebraic_identity": alg, "points": per_act,
                     "S_found_by_search": tuple(S) in found})
        holds = alg and fn_ok and rank_ok and tuple(S) in found
        # exact: relu is compared in rationals and W_S U_S = -M is exact; for gelu, gelu_tanh
        # and silu the verdict rests on that identity plus the proved sign-flip lemma, and the
        # ball comparison is supporting evidence only.
        how = (f"exact rationals (relu, W_S U_S = -M); arb balls at {BALL_PREC} bits as evidence "
               "for gelu, gelu_tanh, silu")
        return Certificate(CLAIM, holds, exact=holds, method=how, data=data,
                           reason="" if holds else "sign-flip construction or rank check failed")
    # necessity: relu, nondegenerate, small m
    wits = []
    if found:
        # Absorbable after all (the weights happen to satisfy the condition): confirm by construction.
        pts = [qvec(p) for p in inst.points]
        fn_ok, _, rows = _check_function_identity("relu", U, W, M, _flip(U, found[0]), pts)
        data["points"] = {"relu": rows}
        holds = fn_ok and rank_ok
    else:
        C_up, C_down = qmat(inst.candidate[0]), qmat(inst.candidate[1])
        cands = [("drawn", C_up, C_down), ("flip of unit 0", _flip(U, [0]), W)]
        moved = [list(r) for r in U]
        moved[0] = [v + Fraction(1, 2) * (k + 1) for k, v in enumerate(moved[0])]
        cands.append(("unit 0 moved off its hyperplane", moved, W))
        holds = rank_ok
        for name, cu, cd in cands:
            w = kink_witness(U, W, M, cu, cd)
            holds = holds and w is not None
            wits.append({"candidate": name, "C_up": smat(cu), "C_down": smat(cd), "witness": w})
        data["witnesses"] = wits
    method = f"exact: {found_how}, exact witnesses in rationals"
    return Certificate(CLAIM, holds, exact=holds, method=method, data=data,
                       reason="" if holds else "necessity check failed")


_SEARCH_HOW = "search.exhaustive_search (exact meet-in-the-middle)"


def _m_star(U: QMat, W: QMat, M: QMat) -> int:
    """relu-complete's exact minimal width of x -> Mx + W relu(U x)."""
    wr = minimal_width(relu_form_exact(U, W, M))
    if not wr.exact:
        raise ValueError("m* not determined exactly")
    return wr.lower


def _near_miss_refuted(U: QMat, W: QMat, M: QMat, S: list[int]) -> dict[str, Any]:
    """The flip of a near-miss S differs from F by (M + W_S U_S) x != 0: an exact relu witness at a
    basis vector, and for gelu, gelu_tanh and silu a ball enclosure of the difference excluding 0."""
    d = len(M)
    Uf = _flip(U, S)
    for j in range(d):
        e = [Fraction(int(i == j)) for i in range(d)]
        diff = [a - b for a, b in zip(eval_plain_q("relu", U, W, e, M=M), eval_plain_q("relu", Uf, W, e))]
        if any(diff):
            break
    else:
        return {"S": S, "refuted": False}
    balls = {}
    for act in (a for a in activations.COQ_ODD_PART if a != "relu"):  # relu was compared exactly above
        same, width = balls_agree(eval_ball(act, U, W, e, M=M), eval_ball(act, Uf, W, e))
        balls[act] = {"told_apart": not same, "diff_bound": width}
    refuted = all(v["told_apart"] for v in balls.values())
    return {"S": S, "x": svec(e), "relu_difference": svec(diff), "balls": balls, "refuted": refuted}


def _search(b: Block) -> list[tuple[int, ...]]:
    """All S with W_S U_S = -M, by the search package's exact meet-in-the-middle."""
    return [tuple(S) for S in exhaustive_search(b.W_up, b.W_down, b.skip())]


def recheck(cert: dict[str, Any]) -> bool:
    """Re-verify a relu-gelu-iff certificate from its data alone (independent brute force)."""
    try:
        data = cert["data"]
        act = data["activation"]
        U, W, M = qmat(data["W_up"]), qmat(data["W_down"]), qmat(data["M"])
        d = len(M)
        if len(U) != data["m"] or any(len(r) != d for r in U) or len(W) != d:
            return False
        found = all_index_sets_exact(U, W, M)
        if sorted(map(tuple, data["index_sets"])) != sorted(found):
            return False
        if (_m_star(U, W, M) <= len(U)) != bool(found) or data["relu_complete_m_star"] != _m_star(U, W, M):
            return False
        if data["kind"] == "near_miss" and not found:
            nm = _near_miss_refuted(U, W, M, data["near_miss"]["S"])
            if not nm["refuted"] or nm != data["near_miss"]:
                return False
        if exact_rank(M) == d and any(len(S) < d for S in found):
            return False
        if data["kind"] == "sufficiency" or found:
            S = data["S"] if data["kind"] == "sufficiency" else list(found[0])
            if tuple(S) not in found:
                return False
            acts = activations.COQ_ODD_PART if data["kind"] == "sufficiency" else ("relu",)
            if set(data["points"]) != set(acts):
                return False
            for a in acts:
                pts = [qvec(r["x"]) for r in data["points"][a]]
                ok, _, rows = _check_function_identity(a, U, W, M, _flip(U, S), pts)
                if not pts or not ok:
                    return False
                # The stored exact values bind the certificate to these very weights.
                if a == "relu" and [r["value"] for r in rows] != [r["value"] for r in data["points"][a]]:
                    return False
            return True
        if act != "relu" or not nondegenerate_exact(U, W):
            return False
        for w in data["witnesses"]:
            cu, cd, wt = qmat(w["C_up"]), qmat(w["C_down"]), w["witness"]
            x = qvec(wt["x"])
            if eval_plain_q("relu", U, W, x, M=M) == eval_plain_q("relu", cu, cd, x):
                return False
        return bool(data["witnesses"])
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return False

