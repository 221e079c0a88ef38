"""Oracle check of gated-biased: a biased gated block (reglu, swiglu, geglu, geglu_tanh, glu)
absorbs its skip at its own width iff a flip set exists (distinct gate classes, nonzero units).

Instances (hypothesis): planted (odd-part gates: pairs of units with gates (a, c) and (a, c - 1),
the same value map and outputs w, -w remove w (u . x + e); glu: units with sum w_k u_k^T = -M),
generic, near misses (one output weight of a planted instance moved by 2^-30) and degenerate
blocks (zero gate row, zero output, repeated gate class); d = 1..3, widths below, at and above d,
general M.

Per instance: the exact flip-set search (compressed 0/1 system, candidates verified on the full
condition (Q), (L) in rationals); when S exists the flipped block with b_down + c_S is compared
with F at sample points, exactly in rationals for reglu and with arb balls for the others (the
identity itself is the exact algebra plus the proved flip lemma (1) / (1'), so the verdict is exact
and the balls are evidence); when none exists on a block meeting (B), the certificate of
non-existence. Re-checking recomputes every step from the stored weights.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

import mpmath
import numpy as np
from hypothesis import strategies as st

from oracle.algebra import affine, flips
from oracle.core import arith
from oracle.core.blocks import Block
from oracle.core.rational import arb, qmat, qvec, smat, svec, to_arb, to_fraction
from oracle.algebra.exact import BALL_PREC, balls_agree, eval_ball, eval_plain_q, safe_recheck
from oracle.core import activations
from oracle.core.strategies import dyadic_weights, integer_inverse, unimodular
from oracle.claims.base import Certificate, oracle_check
from oracle.claims import coverage

CLAIM = "gated-biased"
# the gates whose gate classes gated-biased (B) proves identifiable (the catalog's family)
GATES = tuple(n for n in activations.BIASED_FLIP_NECESSITY if activations.get(n).gated)
Q = Fraction


@dataclass
class BiasedGatedInstance(coverage.Shaped, coverage.Drawn):
    ROWS = "U"

    kind: str
    gate: str
    G: list[list[Fraction]]
    c: list[Fraction]
    U: list[list[Fraction]]
    e: list[Fraction]
    W: list[list[Fraction]]
    M: list[list[Fraction]]
    b_down: list[Fraction]
    points: list[list[Fraction]]

    def subjects(self) -> list[coverage.Subject]:
        """The block for the coverage measurement: gate rows as the rows whose classes matter."""
        biased = any(v != 0 for v in self.c) or any(v != 0 for v in self.e) or any(v != 0 for v in self.b_down)
        return [coverage.Subject(self.G, self.W, self.M, biased)]


def _qa(a: Any) -> list:
    return [[Q(float(v)) for v in row] for row in np.atleast_2d(a)]


def _qv(v: Any) -> list:
    return [Q(float(x)) for x in np.ravel(v)]


def _skip(draw: st.DrawFn, d: int) -> np.ndarray:
    """Identity, unimodular, arbitrary dyadic, or singular: zero, rank one (dyadic outer product) or
    the averaging matrix (1/d) 1 1^T for d in {1, 2} (dyadic, so the float64 planted algebra is exact)."""
    how = draw(st.sampled_from(["identity", "invertible", "any", "zero", "rank_one", "mean"]))
    if how == "identity":
        return np.eye(d)
    if how == "invertible":
        return draw(unimodular(d)).astype(np.float64)
    if how == "zero":
        return np.zeros((d, d))
    if how == "rank_one" or (how == "mean" and d == 3):
        v = np.array(draw(st.lists(st.integers(-2, 2), min_size=d, max_size=d)), dtype=np.float64)
        w = np.array(draw(st.lists(st.integers(-2, 2), min_size=d, max_size=d)), dtype=np.float64)
        return np.outer(v, w) / 2
    if how == "mean":
        return np.full((d, d), 1.0 / d)
    return draw(dyadic_weights((d, d)))


def _points(draw: st.DrawFn, d: int) -> list[list[Fraction]]:
    coord = st.builds(Fraction, st.integers(-12, 12), st.sampled_from([1, 2, 3, 4]))
    return draw(st.lists(st.lists(coord, min_size=d, max_size=d), min_size=2, max_size=3))


def _nonzero_row(draw: st.DrawFn, d: int) -> np.ndarray:
    row = draw(dyadic_weights((d,)))
    if not np.any(row):
        row[0] = 1.0
    return row


@st.composite
def _planted(draw: st.DrawFn, near_miss: bool = False) -> BiasedGatedInstance:
    gate = draw(st.sampled_from(GATES))
    d = draw(st.integers(1, 3))
    M = _skip(draw, d)
    P = draw(unimodular(d)).astype(np.float64)
    A = -M @ integer_inverse(P.astype(np.int64)).astype(np.float64)
    units = []  # (gate row, gate bias, value row, value bias, output column)
    for k in range(d):
        a, c = _nonzero_row(draw, d), float(draw(st.integers(-4, 4))) / 2
        e = float(draw(st.integers(-2, 2)))
        if gate in activations.FLIP_GATES:
            units.append((a, c, P[k], e, A[:, k]))
        else:
            units += [(a, c, P[k], e, A[:, k]), (a, c - 1.0, P[k], e, -A[:, k])]
    for _ in range(draw(st.integers(0, 2))):
        units.append((_nonzero_row(draw, d), float(draw(st.integers(-2, 2))), draw(dyadic_weights((d,))),
                      float(draw(st.integers(-2, 2))), draw(dyadic_weights((d,)))))
    order = draw(st.permutations(range(len(units))))
    units = [units[i] for i in order]
    W = [[Q(float(u[4][a])) for u in units] for a in range(d)]
    if near_miss:  # move an output weight of a planted unit
        W[0][order.index(0)] += Q(1, 2 ** 30)
    return BiasedGatedInstance("near_miss" if near_miss else "planted", gate,
                         [[Q(float(v)) for v in u[0]] for u in units], [Q(u[1]) for u in units],
                         [[Q(float(v)) for v in u[2]] for u in units], [Q(u[3]) for u in units], W, _qa(M),
                         _qv(draw(dyadic_weights((d,)))), _points(draw, d))


@st.composite
def _generic(draw: st.DrawFn) -> BiasedGatedInstance:
    gate = draw(st.sampled_from(GATES))
    d = draw(st.integers(1, 3))
    m = draw(st.sampled_from(sorted({max(1, d - 1), d, d + 1, 2 * d})))
    M = _skip(draw, d)
    return BiasedGatedInstance("generic", gate, _qa(draw(dyadic_weights((m, d)))), _qv(draw(dyadic_weights((m,)))),
                         _qa(draw(dyadic_weights((m, d)))), _qv(draw(dyadic_weights((m,)))),
                         _qa(draw(dyadic_weights((d, m)))), _qa(M), _qv(draw(dyadic_weights((d,)))),
                         _points(draw, d))


@st.composite
def _degenerate(draw: st.DrawFn, defect: Optional[str] = None) -> BiasedGatedInstance:
    inst = draw(_generic())
    m, d = len(inst.U), len(inst.M)
    if m < 2:
        inst.G.append([Q(1)] * d)
        inst.c.append(Q(0))
        inst.U.append([Q(1)] * d)
        inst.e.append(Q(0))
        for row in inst.W:
            row.append(Q(1))
        m += 1
    i, j = draw(st.permutations(range(m)))[:2]
    defect = defect or draw(st.sampled_from(["zero_gate_row", "zero_output", "repeated_class", "scaled_class",
                                             "boundary_pair"]))
    if defect == "zero_gate_row":
        inst.G[i] = [Q(0)] * d
    elif defect == "zero_output":
        for row in inst.W:
            row[i] = Q(0)
    elif defect == "repeated_class":
        s = draw(st.sampled_from([Q(-1), Q(1)]))
        inst.G[j] = [s * v for v in inst.G[i]]
        inst.c[j] = s * inst.c[i]
    elif defect == "scaled_class":
        # (a, c) and t (a, c), t in {2, -1/2}: the same class for a homogeneous gate (reglu: a kink
        # hyperplane), distinct classes for the other gates (e.g. silu pairs (a, c), (2a, 2c)), where
        # (B) still applies
        t = draw(st.sampled_from([Q(2), Q(-1, 2)]))
        if not any(inst.G[i]):
            inst.G[i] = [Q(1)] * d
        inst.G[j] = [t * v for v in inst.G[i]]
        inst.c[j] = t * inst.c[i]
        inst.kind = "degenerate" if inst.gate in activations.HOMOGENEOUS else "scaled_class"
        return inst
    else:  # boundary pair: equal gates, opposite values (g(x) x - g(x) x), absorbable by other means
        inst.G[j], inst.c[j] = list(inst.G[i]), inst.c[i]
        inst.U[j], inst.e[j] = [-v for v in inst.U[i]], -inst.e[i]
        for row in inst.W:
            row[j] = row[i]
    inst.kind = "degenerate"
    return inst


@st.composite
def _affine(draw: st.DrawFn) -> BiasedGatedInstance:
    """gated-biased (D) (issue 29): every unit has gate row 0 (gate bias 0, 1, -1 or 1/2: the unit is
    g(c) w (u . x + e)) or output 0; d = 1..3, widths below, at and above d."""
    gate = draw(st.sampled_from(GATES))
    d = draw(st.integers(1, 3))
    m = draw(st.sampled_from(sorted({max(1, d - 1), d, d + 1})))
    M = _skip(draw, d)
    G, c, U, e, W = [], [], [], [], []
    for _ in range(m):
        zero_out = draw(st.integers(0, 4)) == 0
        G.append(_qv(draw(dyadic_weights((d,)))) if zero_out else [Q(0)] * d)
        c.append(Q(draw(st.sampled_from([0, 0, 1, -1, 2])), 2))
        U.append(_qv(draw(dyadic_weights((d,)))))
        e.append(Q(draw(st.integers(-2, 2)), 2))
        W.append([Q(0)] * d if zero_out else _qv(draw(dyadic_weights((d,)))))
    Wd = [[W[i][a] for i in range(m)] for a in range(d)]
    bd = [Q(0)] * d if draw(st.booleans()) else _qv(draw(dyadic_weights((d,))))
    return BiasedGatedInstance("affine", gate, G, c, U, e, Wd, _qa(M), bd, _points(draw, d))


STRATEGY = st.one_of(_planted(), _planted(near_miss=True), _generic(), _degenerate(),
                     _degenerate(defect="scaled_class"), _affine())


# ---------------------------------------------------------------- exact pieces

def flipped(gate: str, G: list, c: list, W: list, bd: list, S: list[int], c_S: list) -> tuple[list, list, list, list]:
    """Part (A): gate rows and gate biases in S negated (glu: output columns too); b_down + c_S."""
    G2 = [[-v for v in r] if i in S else list(r) for i, r in enumerate(G)]
    c2 = [-v if i in S else v for i, v in enumerate(c)]
    negate_outputs = gate in activations.FLIP_GATES
    W2 = [[-v if (negate_outputs and i in S) else v for i, v in enumerate(row)] for row in W]
    return G2, c2, W2, [x + y for x, y in zip(bd, c_S)]



@functools.lru_cache(maxsize=None)
def gate_property(gate: str) -> bool:
    """The flip identity of the gate, as re-derived by the activation catalog."""
    act = activations.get(gate)
    return activations.check_property(act, "flip_symmetry" if act.flip_symmetry else "odd_part_identity").holds


def evaluate(inst: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    """Decide the instance from its exact data and verify every step; (holds, data)."""
    gate = inst["gate"]
    G, c, U, e, W, M, bd = (qmat(inst["W_gate"]), qvec(inst["b_gate"]), qmat(inst["W_up"]), qvec(inst["b_up"]),
                            qmat(inst["W_down"]), qmat(inst["M"]), qvec(inst["b_down"]))
    d = len(M)
    pts = [qvec(p) for p in inst["points"]] + [[Q(0)] * d]
    # the instance's shapes: a point or a row of another length would be cut short by zip, unseen
    m = len(U)
    shapes_ok = (all(len(p) == d for p in pts) and all(len(r) == d for r in G + U + M) and len(W) == d
                 and all(len(r) == m for r in W) and len(G) == len(c) == len(e) == m and len(bd) == d)
    kind = flips.flip_kind(gate)
    fd = flips.flip_data(kind, U, W, M, b_up=e, W_gate=G, b_gate=c)
    nd = flips.flip_nondegeneracy(fd, gate)
    res = flips.find_flip_set(fd)
    prop = gate_property(gate)
    data: dict[str, Any] = {"nondegenerate": nd["nondegenerate"], "search_status": res.status,
                            "search": res.certificate, "gate_identity_verified": prop}
    ok = shapes_ok and prop and (res.status in ("found", "none") or not nd["nondegenerate"])
    # auxiliary objects of the decision, recomputed apart: the flip residual of single units, of all
    # units and of the set found; the test functionals of the compressed solve; exact block values
    subsets = [[i] for i in range(len(U))] + [list(range(len(U)))] + ([list(res.S)] if res.status == "found" else [])
    wrong = [T for T in subsets if not _same_residual(flips.flip_residual(fd, T), indep_residual(gate, G, c, U, e, W, M, T))]
    k = res.certificate.get("functionals") if isinstance(res.certificate, dict) else None
    funcs_ok = k is None or all(tuple(flips.func_vectors(d, j)) == indep_func_vectors(d, j) for j in range(int(k)))
    values_ok = activations.get(gate).exact is None or all(
        eval_plain_q(gate, U, W, p, M=M, b_up=e, b_down=bd, W_gate=G, b_gate=c) == indep_value(gate, G, c, U, e, W, M, bd, p)
        for p in pts)
    balls_ok = all(_ball_holds(eval_ball(gate, U, W, p, M=M, W_gate=G, b_up=e, b_gate=c, b_down=bd),
                               indep_value_mp(gate, G, c, U, e, W, M, bd, p)) for p in pts)
    # the ball comparison itself can fail: two values 10^-6 apart are refused
    refuses = not balls_agree([arb(1)], [arb(1) + arb(10) ** -6])[0] and balls_agree([arb(1)], [arb(1)])[0]
    data["auxiliary_recomputed"] = {"residual_mismatch": wrong, "functionals": funcs_ok, "values": values_ok,
                                    "balls": balls_ok, "ball_comparison_refuses": refuses}
    ok = ok and not wrong and funcs_ok and values_ok and balls_ok and refuses
    if res.status == "found":
        S = res.S
        qz, lo, const = flips.flip_residual(fd, S)
        c_S = [to_fraction(v) for v in const]
        G2, c2, W2, bd2 = flipped(gate, G, c, W, bd, S, c_S)
        rows = []
        for p in pts:
            if activations.get(gate).exact is not None:
                lhs = eval_plain_q(gate, U, W, p, M=M, b_up=e, b_down=bd, W_gate=G, b_gate=c)
                rhs = eval_plain_q(gate, U, W2, p, b_up=e, b_down=bd2, W_gate=G2, b_gate=c2)
                good = lhs == rhs
                rows.append({"x": svec(p), "value": svec(lhs), "equal": good})
            else:
                good, width = balls_agree(eval_ball(gate, U, W, p, M=M, W_gate=G, b_up=e, b_gate=c, b_down=bd),
                                          eval_ball(gate, U, W2, p, W_gate=G2, b_up=e, b_gate=c2, b_down=bd2))
                rows.append({"x": svec(p), "diff_bound": width, "equal": good})
            ok = ok and good
        data.update({"S": S, "c_S": svec(c_S), "flip_condition": qz and lo, "comparisons": rows,
                     "verdict": "absorbable (A)"})
        ok = ok and qz and lo
        # the positive verdict recomputed too: the brute force finds a flip set
        again = indep_has_flip_set(gate, G, c, U, e, W, M)
        data["flip_set_recomputed"] = again
        ok = ok and again in (True, None)
    elif res.status == "none" and nd["nondegenerate"]:
        data["verdict"] = "not absorbable (B)"
        # the negative verdict recomputed: no subset of the units satisfies the flip condition
        # (brute force over all 2^m subsets, separately written; m small in the strategy)
        again = indep_has_flip_set(gate, G, c, U, e, W, M)
        data["flip_set_recomputed"] = again
        ok = ok and again in (False, None)
    else:
        data["verdict"] = "undecided (degenerate, no flip set)" if not nd["nondegenerate"] else "undecided"
    # the hypothesis of (B), tested by separately written code
    nd_indep = indep_nondegenerate(gate, G, c, U, e, W)
    data["nondegenerate_recomputed"] = nd_indep
    ok = ok and nd_indep == nd["nondegenerate"]
    if inst["kind"] == "planted":
        ok = ok and res.status == "found"
    if inst["kind"] == "degenerate":  # degenerate by construction: never "not absorbable"
        ok = ok and data["verdict"] != "not absorbable (B)"
    good, upd = _check_part_d(inst, pts)
    data.update(upd)
    ok = ok and good
    built = (e, c2, bd2) if res.status == "found" else None
    good, data["value_at_zero"] = _check_value_at_zero(gate, G, c, U, e, W, M, bd, built)
    ok = ok and good
    if inst["kind"] == "affine":
        ok = ok and "part_d" in data
    return ok, data


def _check_value_at_zero(gate: str, G: list, c: list, U: list, e: list, W: list, M: list, bd: list,
                         built: Optional[tuple[list, list, list]]) -> tuple[bool, dict[str, Any]]:
    """Part (E): F(0) = W_down (g(b_gate) * b_up) + b_down, by the separately written evaluator (plain
    Fractions for a gate with an exact form, else 60-digit mpmath) against eval_ball's enclosure;
    when a coordinate is proved nonzero (exact, or a ball excluding 0), the sentence says no bias-free
    gated block equals F: the block's own weights without biases give exactly 0 at 0 whatever g(0) is
    (so differ from F there), and a flip of (A) equal to F carries a nonzero bias."""
    d = len(M)
    zero = [Q(0)] * d
    ball = eval_ball(gate, U, W, zero, M=M, W_gate=G, b_up=e, b_gate=c, b_down=bd)
    if activations.get(gate).exact is not None:
        F0 = indep_value(gate, G, c, U, e, W, M, bd, zero)
        out: dict[str, Any] = {"F_at_0": svec(F0), "exact": True}
        nonzero = any(v != 0 for v in F0)
    else:
        F0 = indep_value_mp(gate, G, c, U, e, W, M, bd, zero)
        out = {"F_at_0": [mpmath.nstr(v, 20) for v in F0], "exact": False}
        nonzero = any(not b_.contains(0) for b_ in ball)
    out["enclosure_agrees"] = _ball_holds(ball, F0) if not out["exact"] else all(
        b_.contains(to_arb(v)) for b_, v in zip(ball, F0))
    ok = out["enclosure_agrees"]
    out["nonzero"] = nonzero
    if nonzero:
        free = eval_ball(gate, U, W, zero, W_gate=G)
        out["bias_free_weights_vanish_at_0"] = all(v.is_zero() for v in free)
        ok = ok and out["bias_free_weights_vanish_at_0"]
        if built is not None:
            out["constructed_biased"] = any(v != 0 for part in built for v in part)
            ok = ok and out["constructed_biased"]
    return ok, out


def _check_part_d(inst: dict[str, Any], pts: list) -> tuple[bool, dict[str, Any]]:
    """gated-biased (D) on a block whose units all have gate row 0 or compute 0: the outcome for
    both questions (with biases, without) against a separate computation of N, c and rank N
    (exact where the gate values are rational, 60-digit mpmath otherwise), and, where absorbable
    with biases, the affine formula F = N x + c itself: d units with gate row 0 carrying the columns
    of N (the proof's block regroups them into rank N units) compared with F in balls."""
    gate = inst["gate"]
    arr = {k: np.array([[float(v) for v in r] for r in qmat(inst[k])]) for k in ("W_gate", "W_up", "W_down", "M")}
    vec = {k: np.array([float(v) for v in qvec(inst[k])]) for k in ("b_gate", "b_up", "b_down")}
    block = Block(gate, W_up=arr["W_up"], W_down=arr["W_down"], W_gate=arr["W_gate"], b_gate=vec["b_gate"],
                  b_up=vec["b_up"], b_down=vec["b_down"], M=arr["M"])
    ga = affine.gated_affine(block)
    if ga is None:
        return True, {}
    m, d = block.m, block.d
    out = {conv: affine.gated_affine_outcome(block, ga, conv)[0] for conv in ("allowed", "none")}
    N, cvec, exact = indep_affine_map(inst)
    rank = _indep_rank_num(N, exact)
    # the map part (D) decides on, held to the separate computation: exactly where the gate values are
    # rational, else its balls must hold the 60-digit values; and its rank bounds must bracket the rank
    # (with the lower bound tight for d <= affine.MAX_BALL_RANK_D: the balls certify every minor here)
    if exact:
        map_ok = ([[to_fraction(ga["M_exact"][o, k]) for k in range(d)] for o in range(d)] == N
                  and [to_fraction(v) for v in ga["c_exact"]] == cvec)
    else:
        map_ok = all(_ball_holds(list(bs), list(vs)) for bs, vs in zip(list(ga["N_ball"]) + [ga["c_ball"]], N + [cvec]))
    rank_ok = ga["rank_lower"] <= rank <= ga["rank_upper"] and (d > affine.MAX_BALL_RANK_D or ga["rank_lower"] == rank)
    c_zero = all(v == 0 for v in cvec) if exact else all(abs(v) < mpmath.mpf(10) ** -40 for v in cvec)
    a = activations.get(gate)
    want_allowed = "absorbable" if rank <= m else "not_absorbable"
    if a.value_at_0 == 0:
        want_none = "absorbable" if (rank == 0 and c_zero) else "not_absorbable"
    else:
        want_none = "absorbable" if (c_zero and rank <= m) else "not_absorbable"
    ok = map_ok and rank_ok and \
        all(out[cv] in (want, "undecided") for cv, want in (("allowed", want_allowed), ("none", want_none)))
    if exact:  # rational gate values: the bracket is exact, so part (D) must decide
        ok = ok and out["allowed"] == want_allowed and out["none"] == want_none
    upd: dict[str, Any] = {"part_d": {"allowed": out["allowed"], "none": out["none"],
                                      "rank_upper": ga["rank_upper"], "rank_lower": ga["rank_lower"]},
                           "part_d_recomputed": {"rank": rank, "c_zero": c_zero, "exact": exact, "map": map_ok,
                                                 "rank_bracketed": rank_ok}}
    if out["allowed"] == "absorbable":
        # the proof's block: rank N units with gate row 0 and gate bias z0, value rows r_q / g(z0)
        with arith.precision("ball", BALL_PREC):
            Nb = [[to_arb(v) if exact else arb(mpmath.nstr(v, 60)) for v in row] for row in N]
            cb = [to_arb(v) if exact else arb(mpmath.nstr(v, 60)) for v in cvec]
            z0 = 0 if a.value_at_0 != 0 else 1
            g0 = a.ball(arb(z0))
            # N = sum_j N e_j e_j^T: d units (value row e_j / g0, output N e_j), then compare balls
            rows = [[arb(1) / g0 if j == k else arb(0) for k in range(d)] for j in range(d)]
            cols = [[Nb[o][j] for j in range(d)] for o in range(d)]
            agree = True
            for x in pts:
                F = eval_ball(gate, qmat(inst["W_up"]), qmat(inst["W_down"]), x, M=qmat(inst["M"]),
                              W_gate=qmat(inst["W_gate"]), b_up=qvec(inst["b_up"]), b_gate=qvec(inst["b_gate"]),
                              b_down=qvec(inst["b_down"]))
                P = eval_ball(gate, rows, cols, x, W_gate=[[0] * d for _ in range(d)], b_gate=[z0] * d, b_down=cb)
                agree = agree and balls_agree(F, P, tol=1e-30)[0]
        upd["part_d"]["construction_agrees"] = agree
        ok = ok and agree
    return ok, upd


def indep_affine_map(inst: dict[str, Any]) -> tuple[list, list, bool]:
    """N and c of F = N x + c from the instance, by plain sums: exact Fractions when every g(c_i)
    of a unit with gate row 0 is rational (g(0), piecewise-polynomial gates), else mpmath numbers."""
    gate = inst["gate"]
    a = activations.get(gate)
    G, cg, U, e, W, M, bd = (qmat(inst["W_gate"]), qvec(inst["b_gate"]), qmat(inst["W_up"]), qvec(inst["b_up"]),
                             qmat(inst["W_down"]), qmat(inst["M"]), qvec(inst["b_down"]))
    d, m = len(M), len(U)
    vals, exact = [], True
    for i in range(m):
        if any(G[i]):
            vals.append(Q(0))  # a unit with a gate row computes 0 here (zero output)
        elif cg[i] == 0:
            vals.append(Q(a.value_at_0))
        elif a.exact is not None:
            vals.append(Q(a.exact(Q(cg[i]))))
        else:
            exact = False
            with mpmath.workdps(60):
                vals.append(a.mp(mpmath.mpf(cg[i].numerator) / cg[i].denominator))
    conv = (lambda v: v) if exact else (lambda v: mpmath.mpf(v.numerator) / v.denominator)  # noqa: E731
    with mpmath.workdps(60):
        N = [[conv(Q(M[o][k])) + sum((vals[i] * conv(Q(W[o][i] * U[i][k])) for i in range(m) if not any(G[i])),
                                      conv(Q(0))) for k in range(d)] for o in range(d)]
        cvec = [conv(Q(bd[o])) + sum((vals[i] * conv(Q(W[o][i] * e[i])) for i in range(m) if not any(G[i])),
                                     conv(Q(0))) for o in range(d)]
    return N, cvec, exact


def _indep_rank_num(N: list, exact: bool) -> int:
    """Rank by Gaussian elimination: exact over Fractions, or at 60 digits with pivots above 1e-40."""
    A = [list(r) for r in N]
    rank = 0
    with mpmath.workdps(60):
        for col in range(len(A[0]) if A else 0):
            piv = max(range(rank, len(A)), key=lambda i: abs(A[i][col]), default=None)
            if piv is None or (A[piv][col] == 0 if exact else abs(A[piv][col]) < mpmath.mpf(10) ** -40):
                continue
            A[rank], A[piv] = A[piv], A[rank]
            for i in range(rank + 1, len(A)):
                f = A[i][col] / A[rank][col]
                A[i] = [x - f * y for x, y in zip(A[i], A[rank])]
            rank += 1
    return rank


# ---------------------------------------------------------------- independent recomputation
# Written apart from oracle.algebra.flips (plain Fractions), so that a wrong negative verdict of the
# decision code ("nondegenerate", "no flip set") is caught by the check.

INDEP_MAX_UNITS = 12  # brute force over 2^m subsets


def indep_nondegenerate(gate: str, G: list, c: list, U: list, e: list, W: list) -> bool:
    """Hypothesis of (B) directly: a_i != 0, w_i != 0, (u_i, e_i) != 0, and no two units
    gate-equivalent ((a_j, c_j) a real multiple of (a_i, c_i) for a homogeneous gate (reglu),
    +-(a_i, c_i) otherwise)."""
    m = len(U)
    for i in range(m):
        if not any(G[i]) or not any(row[i] for row in W) or (not any(U[i]) and e[i] == 0):
            return False
    for i in range(m):
        for j in range(i + 1, m):
            p, q = list(G[i]) + [c[i]], list(G[j]) + [c[j]]
            if gate in activations.HOMOGENEOUS:
                if all(p[s] * q[t] == p[t] * q[s] for s in range(len(p)) for t in range(s + 1, len(p))):
                    return False
            elif p == q or p == [-v for v in q]:
                return False
    return True


def _same_residual(got: tuple, want: tuple) -> bool:
    qz, lo, const = got
    return (bool(qz), bool(lo), [to_fraction(v) for v in const]) == want


def indep_residual(gate: str, G: list, c: list, U: list, e: list, W: list, M: list,
                   S: list[int]) -> tuple[bool, bool, list]:
    """(quadratic part 0, linear part -M, constant) of the polynomials the units of S remove:
    w_i (a_i . x + c_i)(u_i . x + e_i) for the odd gates, w_i (u_i . x + e_i) for glu."""
    d = len(M)
    glu = gate in activations.FLIP_GATES
    quad = [[[Q(0)] * d for _ in range(d)] for _ in range(d)]
    lin = [[Q(0)] * d for _ in range(d)]
    const = [Q(0)] * d
    for i in S:
        a, s_ = ([Q(0)] * d, Q(1)) if glu else (G[i], c[i])
        for o in range(d):
            w = W[o][i]
            for k in range(d):
                lin[o][k] += w * (s_ * U[i][k] + e[i] * a[k])
                for l in range(d):
                    quad[o][k][l] += w * (a[k] * U[i][l] + U[i][k] * a[l])
            const[o] += w * s_ * e[i]
    return (all(v == 0 for blk in quad for r in blk for v in r),
            all(lin[o][k] == -M[o][k] for o in range(d) for k in range(d)), const)


def indep_func_vectors(d: int, j: int) -> tuple[list[int], ...]:
    """The j-th test functional of the compressed solve as its docstring states it: the 64-bit linear
    congruential sequence x -> 6364136223846793005 x + 1442695040888963407 mod 2^64 started at
    (j + 1) * 0x9E3779B97F4A7C15, each entry the top 4 bits minus 8; four vectors of length d."""
    mod = 2 ** 64
    x = ((j + 1) * 0x9E3779B97F4A7C15) % mod
    vecs = []
    for _ in range(4):
        v = []
        for _a in range(d):
            x = (x * 6364136223846793005 + 1442695040888963407) % mod
            v.append(x // 2 ** 60 - 8)
        vecs.append(v)
    return tuple(vecs)


def indep_value(gate: str, G: list, c: list, U: list, e: list, W: list, M: list, bd: list, x: list) -> list:
    """M x + sum_i w_i g(a_i . x + c_i)(u_i . x + e_i) + b_down, by plain sums (a gate with an exact form)."""
    g = activations.get(gate).exact
    d, m = len(M), len(U)
    h = [g(sum((G[i][k] * x[k] for k in range(d)), Q(0)) + c[i]) * (sum((U[i][k] * x[k] for k in range(d)), Q(0)) + e[i])
         for i in range(m)]
    return [sum((M[o][k] * x[k] for k in range(d)), Q(0)) + sum((W[o][i] * h[i] for i in range(m)), Q(0)) + bd[o]
            for o in range(d)]


def indep_value_mp(gate: str, G: list, c: list, U: list, e: list, W: list, M: list, bd: list, x: list) -> list:
    """The block's value at x at 60 digits with mpmath (the gate by its mpmath form)."""
    g = activations.get(gate).mp
    d, m = len(M), len(U)
    with mpmath.workdps(60):
        f = lambda v: mpmath.mpf(v.numerator) / v.denominator  # noqa: E731
        h = [g(f(sum((G[i][k] * x[k] for k in range(d)), Q(0)) + c[i])) * f(sum((U[i][k] * x[k] for k in range(d)), Q(0)) + e[i])
             for i in range(m)]
        return [f(sum((M[o][k] * x[k] for k in range(d)), Q(0)) + bd[o]) + mpmath.fsum(f(W[o][i]) * h[i] for i in range(m))
                for o in range(d)]


def _ball_holds(ball: list, vals: list) -> bool:
    """Each ball lies within 10^-30 of the 60-digit value (its radius small, its midpoint close)."""
    with mpmath.workdps(60):
        return len(ball) == len(vals) and all(
            float(b.rad()) < 1e-25 and abs(mpmath.mpf(b.mid().str(40, radius=False)) - v) <= mpmath.mpf(b.rad()) + mpmath.mpf(10) ** -30
            for b, v in zip(ball, vals))


def indep_has_flip_set(gate: str, G: list, c: list, U: list, e: list, W: list, M: list) -> Optional[bool]:
    """Does some subset S satisfy the flip condition (quadratic part 0, linear part -M)?  None when
    m > INDEP_MAX_UNITS."""
    m, d = len(U), len(M)
    if m > INDEP_MAX_UNITS:
        return None
    # per unit and output o: quadratic coefficients (symmetrised a u^T + u a^T) and linear row
    quad, lin = [], []
    for i in range(m):
        if gate in activations.FLIP_GATES:
            quad.append([[Q(0)] * (d * d) for _ in range(d)])
            lin.append([[W[o][i] * U[i][k] for k in range(d)] for o in range(d)])
        else:
            quad.append([[W[o][i] * (G[i][k] * U[i][l] + U[i][k] * G[i][l]) for k in range(d) for l in range(d)]
                         for o in range(d)])
            lin.append([[W[o][i] * (c[i] * U[i][k] + e[i] * G[i][k]) for k in range(d)] for o in range(d)])
    for mask in range(1 << m):
        S = [i for i in range(m) if mask >> i & 1]
        good = True
        for o in range(d):
            if any(sum((quad[i][o][t] for i in S), Q(0)) != 0 for t in range(d * d)) or \
                    any(sum((lin[i][o][k] for i in S), Q(0)) != -M[o][k] for k in range(d)):
                good = False
                break
        if good:
            return True
    return False


def _spec(inst: BiasedGatedInstance) -> dict[str, Any]:
    return {"kind": inst.kind, "gate": inst.gate, "W_gate": smat(inst.G), "b_gate": svec(inst.c),
            "W_up": smat(inst.U), "b_up": svec(inst.e), "W_down": smat(inst.W), "M": smat(inst.M),
            "b_down": svec(inst.b_down), "points": [svec(p) for p in inst.points]}


def _planted_fixed(gate: str, d: int) -> BiasedGatedInstance:
    """A planted instance of the given gate with M = I and value rows e_k (so A = -I), gate rows
    (1, ..., 1) + e_k, gate biases k/2, and one extra unit: a flip set exists."""
    units = []  # (gate row, gate bias, value row, value bias, output column)
    for k in range(d):
        a = [Q(1 + (j == k)) for j in range(d)]
        u = [Q(int(j == k)) for j in range(d)]
        col = [Q(-int(j == k)) for j in range(d)]
        if gate in activations.FLIP_GATES:
            units.append((a, Q(k, 2), u, Q(k), col))
        else:
            units += [(a, Q(k, 2), u, Q(k), col), (a, Q(k, 2) - 1, u, Q(k), [-v for v in col])]
    units.append(([Q(-1)] + [Q(2)] * (d - 1), Q(1, 4), [Q(1)] * d, Q(-1), [Q(1, 2)] * d))
    pts = [[Q(j + 1, 3) for j in range(d)], [Q(-2)] + [Q(1)] * (d - 1)]
    return BiasedGatedInstance("planted", gate, [list(u[0]) for u in units], [u[1] for u in units],
                               [list(u[2]) for u in units], [u[3] for u in units],
                               [[u[4][a] for u in units] for a in range(d)],
                               [[Q(int(a == b)) for b in range(d)] for a in range(d)], [Q(1, 2)] * d, pts)


def _rows(text: str) -> list[list[Fraction]]:
    """A rational matrix written as text: rows separated by ';', entries by spaces ('1/2 -1; 3 0')."""
    return [[Q(v) for v in row.split()] for row in text.split(";")]


# The corner instances' data, as text tables (read by _table_instance): gate rows, gate biases, value
# rows, value biases, W_down, M, b_down, sample points.
CORNER_TABLES = {
    "scaled": ("1 -1; 2 -2; 0 1", "1/2 1 -1", "1 1; 1 -1; 2 1", "0 1 0", "1 2 -1; 1/2 0 1", "1 0; 0 1", "0 0",
               "1 -1; 2 3"),
    "glu affine c": ("0", "1", "1", "1", "1", "1", "0", "1; -3/2"),
    "glu affine 0": ("0", "1", "1", "0", "1", "1", "0", "1; -3/2"),
    "opposite class": ("1 -2; -1 2; 1 1", "1/2 -1/2 0", "1 0; 0 1; 1 1", "1 0 -1", "1 2 1; -1 1 1/2", "1 0; 0 1",
                       "0 1", "1 2; -1 1/2"),
    "zero value map": ("1 0; 1 1", "0 1", "0 0; 1 -1", "0 2", "1 1; -1 1", "1 0; 0 1", "0 1", "1 1; -1/2 2"),
}


def _table_instance(kind: str, gate: str, table: tuple[str, ...]) -> BiasedGatedInstance:
    G, c, U, e, W, M, bd, pts = table
    return BiasedGatedInstance(kind, gate, _rows(G), _rows(c)[0], _rows(U), _rows(e)[0], _rows(W), _rows(M),
                               _rows(bd)[0], _rows(pts))


def gated_corners() -> list[BiasedGatedInstance]:
    """Corner instances checked on every run before the drawn ones: a planted instance of every gate
    (each gate's flip, the glu's negated outputs included, is exercised on every run); for every gate
    whose classes are +-(row, bias), two gate rows (a, c) and (2a, 2c) (distinct classes there, one
    class for reglu); and a unit whose only defect is a zero value map (u = 0, e = 0) with a nonzero
    gate and a nonzero output."""
    out = [_planted_fixed(g, 1 if g in activations.FLIP_GATES else 2) for g in GATES]
    for g in GATES:
        kind = "degenerate" if g in activations.HOMOGENEOUS else "scaled_class"
        out.append(_table_instance(kind, g, CORNER_TABLES["scaled"]))
    # gated-biased (D) with an irrational gate value (glu, sigmoid(1)): F(0) = sigmoid(1) != 0, and F(0) = 0
    out += [_table_instance("affine", "glu", CORNER_TABLES[k]) for k in ("glu affine c", "glu affine 0")]
    # a gate class repeated with the opposite sign: (a, c) and -(a, c), one class for every gate
    out.append(_table_instance("degenerate", "swiglu", CORNER_TABLES["opposite class"]))
    out.append(_table_instance("degenerate", "swiglu", CORNER_TABLES["zero value map"]))
    return out


@oracle_check(CLAIM, STRATEGY, recheck=lambda c: recheck(c),
              precision=f"exact rationals (flip condition, reglu values); arb {BALL_PREC} bits as evidence",
              examples=gated_corners)
def check(inst: BiasedGatedInstance) -> Certificate:
    """Check gated-biased on one instance."""
    spec = _spec(inst)
    ok, data = evaluate(spec)
    # the block the coverage measurement sees is this instance's block (gate rows, outputs, skip, biases)
    subj = inst.subjects()
    biased = any(v != 0 for v in list(inst.c) + list(inst.e) + list(inst.b_down))
    data["coverage_subject_ok"] = len(subj) == 1 and (subj[0].U, subj[0].W, subj[0].M, subj[0].biased) == \
        (inst.G, inst.W, inst.M, biased)
    ok = ok and data["coverage_subject_ok"]
    return Certificate(CLAIM, ok, exact=ok,
                       method="exact flip-set solve and flip condition (rationals) + proved flip lemma; reglu values "
                              f"exact, other gates arb balls at {BALL_PREC} bits as evidence",
                       data={**spec, **data}, reason="" if ok else f"check failed: {data.get('verdict')}")


@safe_recheck
def recheck(cert: dict[str, Any]) -> bool:
    """Recompute the decision from the stored weights and compare every recorded outcome."""
    data = cert["data"]
    ok, again = evaluate(data)
    keys = ("search_status", "S", "verdict", "c_S", "nondegenerate", "nondegenerate_recomputed",
            "flip_set_recomputed", "part_d", "value_at_zero")
    same_vals = [r.get("value") for r in again.get("comparisons", [])] == [r.get("value") for r in data.get("comparisons", [])]
    return ok and same_vals and all(again.get(k) == data.get(k) for k in keys)
