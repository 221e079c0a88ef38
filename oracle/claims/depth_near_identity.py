"""Claim depth-near-identity: two relu blocks near the identity in d >= 3.

For F = (I + B_2) o (I + B_1), d >= 3, both blocks homeomorphisms (certified by |W_l| |U_l| < 1),
nondegenerate, with the sheets in general position (G1, G2) and enough bend edges (bend_count), F is a
plain relu stack of widths (m_1, m_2) iff both blocks have index sets W_S U_S = -I; under the norm bound
they never do (proofs/informal/depth-near-identity.md). Every hypothesis is decided here in exact
rationals:

  normals   n_{j,D} = (I + W_1 D U_1)^T u2_j for every set D of layer-1 units (2^{m_1} of them)
  (G1)      n_{j,D} outside span{u1_i : i in I} for every I of one or two layer-1 rows
  (G2)      n_{j',D} outside span{n_{j,D}, u1_i} for j != j'
  bends     for each layer-1 unit i, exact rational bend points q (on H_i, strict signs on the other
            rows, on exactly one layer-2 sheet S_j with c_ij = u2_j . w1_i != 0), one per distinct
            bend edge H_i cap n_{j,D}^perp; k_i = number of edges found (a lower bound); the condition
            is k_(t) > t for the sorted k.
"""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional, Sequence

from hypothesis import assume
from hypothesis import strategies as st

from oracle.algebra.exact import (all_index_sets_exact, dot, identity, qvec, safe_recheck,
                                  svec)
from oracle.claims.base import Certificate, counterexample, oracle_check
from oracle.claims.depth_stacks import (Layer, _check_difference, _find_difference, _points, apply_layer,
                                        canonical_form, eval_stack, layers_from_json, layers_to_json,
                                        nondegenerate, spectral_sq_bound)
from oracle.claims import coverage

CLAIM_NI = "depth-near-identity"
Q = Fraction
MAX_M1 = 8           # 2^{m_1} sets D are enumerated
MAX_M2 = 8
MAX_D = 6
BEND_SAMPLES = 24    # points tried per edge plane when d >= 4


# ================================================================ exact linear algebra (small)

def _rref(vectors: Sequence[Sequence[Fraction]], ncols: int) -> tuple[list[list[Fraction]], list[int]]:
    rows = [list(v) for v in vectors]
    piv: list[int] = []
    r = 0
    for c in range(ncols):
        p = next((k for k in range(r, len(rows)) if rows[k][c] != 0), None)
        if p is None:
            continue
        rows[r], rows[p] = rows[p], rows[r]
        pv = rows[r][c]
        rows[r] = [x / pv for x in rows[r]]
        for k in range(len(rows)):
            if k != r and rows[k][c] != 0:
                f = rows[k][c]
                rows[k] = [x - f * y for x, y in zip(rows[k], rows[r])]
        piv.append(c)
        r += 1
    return rows[:r], piv


def complement(vectors: Sequence[Sequence[Fraction]], d: int) -> list[list[Fraction]]:
    """A basis of {x : v . x = 0 for every given v} (exact)."""
    rows, piv = _rref(vectors, d)
    basis = []
    for f in (c for c in range(d) if c not in piv):
        v = [Q(0)] * d
        v[f] = Q(1)
        for k, c in enumerate(piv):
            v[c] = -rows[k][f]
        basis.append(v)
    return basis


def in_span(v: Sequence[Fraction], comp: Sequence[Sequence[Fraction]]) -> bool:
    """v lies in a subspace given by a basis of its orthogonal complement."""
    return all(dot(v, k) == 0 for k in comp)


def plane_key(basis: Sequence[Sequence[Fraction]], d: int) -> tuple:
    """A canonical key of the subspace spanned by `basis` (its reduced row echelon form)."""
    rows, _ = _rref(basis, d)
    return tuple(tuple(str(x) for x in r) for r in rows)


# ================================================================ the conditions

def normals(layers: Sequence[Layer]) -> tuple[list[list[list[Fraction]]], list[list[Fraction]]]:
    """n[j][D] (D a bitmask of layer-1 units) and c[j][i] = u2_j . w1_i."""
    (U1, W1), (U2, _) = layers
    m1, d = len(U1), len(W1)
    c = [[sum((U2[j][a] * W1[a][i] for a in range(d)), Q(0)) for i in range(m1)] for j in range(len(U2))]
    n = []
    for j in range(len(U2)):
        row: list[list[Fraction]] = [list(U2[j])] + [[]] * ((1 << m1) - 1)
        for D in range(1, 1 << m1):
            i = (D & -D).bit_length() - 1
            row[D] = [p + c[j][i] * u for p, u in zip(row[D & (D - 1)], U1[i])]
        n.append(row)
    return n, c


def _bits(D: int, m: int) -> list[int]:
    return [i for i in range(m) if D >> i & 1]


def g1_failure(layers: Sequence[Layer], n: list) -> Optional[dict[str, Any]]:
    """The first (j, D, I) with n_{j,D} in span{u1_i : i in I}, |I| in {1, 2}; None if (G1) holds."""
    U1 = layers[0][0]
    m1, d = len(U1), len(U1[0])
    comps = [(I, complement([U1[i] for i in I], d)) for k in (1, 2) for I in itertools.combinations(range(m1), k)]
    for j, row in enumerate(n):
        for D, v in enumerate(row):
            for I, comp in comps:
                if in_span(v, comp):
                    return {"j": j, "D": _bits(D, m1), "I": list(I)}
    return None


def g2_failure(layers: Sequence[Layer], n: list) -> Optional[dict[str, Any]]:
    """The first (j, j', D, i) with n_{j',D} in span{n_{j,D}, u1_i}; None if (G2) holds."""
    U1 = layers[0][0]
    m1, d, m2 = len(U1), len(U1[0]), len(n)
    if m2 < 2:
        return None
    for D in range(1 << m1):
        for j in range(m2):
            for i in range(m1):
                comp = complement([n[j][D], U1[i]], d)
                for j2 in range(m2):
                    if j2 != j and in_span(n[j2][D], comp):
                        return {"j": j, "j2": j2, "D": _bits(D, m1), "i": i}
    return None


def _G(layer: Layer, q: Sequence[Fraction]) -> list[Fraction]:
    return apply_layer(layer, list(q), True)


def bend_edges(layers: Sequence[Layer], seed: int = 0) -> list[list[dict[str, Any]]]:
    """For each layer-1 unit i, one exact bend point per distinct bend edge found."""
    (U1, W1), (U2, _) = layers
    m1, m2, d = len(U1), len(U2), len(W1)
    n, c = normals(layers)
    rng = random.Random(seed)
    out = []
    for i in range(m1):
        others = [r for r in range(m1) if r != i]
        edges: dict[tuple, dict[str, Any]] = {}
        for j in range(m2):
            if c[j][i] == 0:
                continue
            for bits in range(1 << len(others)):
                if len(edges) > m1:       # k_i >= m_1 + 1 already meets the count for every N
                    break
                D = sum(1 << others[t] for t in range(len(others)) if bits >> t & 1)
                K = complement([U1[i], n[j][D]], d)      # the edge plane, dimension d - 2 by (G1)
                if len(K) != d - 2:
                    continue
                key = plane_key(K, d)
                if key in edges:
                    continue
                if d == 3:
                    cands = [K[0], [-v for v in K[0]]]
                else:
                    cands = []
                    for _ in range(BEND_SAMPLES):
                        cf = [Q(rng.randint(-6, 6)) for _ in K]
                        cands.append([sum((cf[t] * K[t][a] for t in range(len(K))), Q(0)) for a in range(d)])
                for q in cands:
                    if not any(q):
                        continue
                    strict = True
                    for r in others:            # the signs of the other rows, stopping early
                        v = dot(U1[r], q)
                        if v == 0 or (v > 0) != bool(D >> r & 1):
                            strict = False
                            break
                    if not strict:
                        continue
                    Gq = _G(layers[0], q)
                    if any(dot(U2[j2], Gq) == 0 for j2 in range(m2) if j2 != j):
                        continue
                    edges[key] = {"j": j, "D": _bits(D, m1), "q": svec(q)}
                    break
        out.append(list(edges.values()))
    return out


def is_bend_point(layers: Sequence[Layer], i: int, rec: dict[str, Any]) -> bool:
    """Re-verify one bend point from the weights."""
    (U1, W1), (U2, _) = layers
    m1, m2, d = len(U1), len(U2), len(W1)
    q, j = qvec(rec["q"]), rec["j"]
    if len(q) != d or not any(q) or dot(U1[i], q) != 0:
        return False
    others = [r for r in range(m1) if r != i]
    if any(dot(U1[r], q) == 0 for r in others):
        return False
    D = sorted(r for r in others if dot(U1[r], q) > 0)
    if D != rec["D"]:
        return False
    c = sum((U2[j][a] * W1[a][i] for a in range(d)), Q(0))
    Gq = _G(layers[0], q)
    return c != 0 and dot(U2[j], Gq) == 0 and all(dot(U2[j2], Gq) != 0 for j2 in range(m2) if j2 != j)


def edge_key(layers: Sequence[Layer], i: int, rec: dict[str, Any]) -> tuple:
    U1 = layers[0][0]
    n, _ = normals(layers)
    D = sum(1 << r for r in rec["D"])
    return plane_key(complement([U1[i], n[rec["j"]][D]], len(U1[0])), len(U1[0]))


def count_condition(ks: Sequence[int]) -> bool:
    """k_(t) > t for the sorted k (every nonempty N has an i with k_i > |N|)."""
    s = sorted(ks)
    return all(s[t] > t + 1 for t in range(len(s)))


def near_identity_conditions(layers: Sequence[Layer], seed: int = 0) -> dict[str, Any]:
    """Every hypothesis of depth-near-identity, decided exactly (cheap ones first)."""
    d = len(layers[0][1])
    widths = [len(U) for U, _ in layers]
    out: dict[str, Any] = {"d": d, "widths": widths, "applies": False}
    if len(layers) != 2 or d < 3:
        out["reason"] = "needs two blocks and d >= 3"
        return out
    if widths[0] > MAX_M1 or widths[1] > MAX_M2 or d > MAX_D:
        out["reason"] = f"too large for the exact tables (m_1 <= {MAX_M1}, m_2 <= {MAX_M2}, d <= {MAX_D})"
        return out
    norms = []
    for U, W in layers:
        bu, bw = spectral_sq_bound(U), spectral_sq_bound(W)
        norms.append({"bound_U_sq": str(bu), "bound_W_sq": str(bw), "ok": bu * bw < 1})
    out["norm"] = norms
    out["nondegenerate"] = [nondegenerate(U, W) for U, W in layers]
    out["index_sets"] = [[list(s) for s in all_index_sets_exact(U, W, identity(d))[:4]] for U, W in layers]
    if not all(x["ok"] for x in norms):
        out["reason"] = "the norm bound |W_l| |U_l| < 1 fails for some block (homeomorphism not certified)"
        return out
    if not all(out["nondegenerate"]):
        out["reason"] = "some block is degenerate"
        return out
    n, _ = normals(layers)
    out["G1_failure"] = g1_failure(layers, n)
    out["G2_failure"] = g2_failure(layers, n)
    if out["G1_failure"] or out["G2_failure"]:
        out["reason"] = "the sheets are not in general position (G1 or G2 fails)"
        return out
    edges = bend_edges(layers, seed)
    out["bend_edges"] = edges
    out["k"] = [len(e) for e in edges]
    out["count_ok"] = count_condition(out["k"])
    if not out["count_ok"]:
        out["reason"] = f"bend_count fails: k = {out['k']} (needs k_(t) > t sorted)"
        return out
    out["applies"] = True
    out["reason"] = "all hypotheses hold"
    return out


def recheck_conditions(layers: Sequence[Layer], cond: dict[str, Any]) -> bool:
    """Re-verify a conditions dictionary that says the claim applies, from the weights alone."""
    if not cond.get("applies"):
        return False
    d = len(layers[0][1])
    if len(layers) != 2 or d < 3 or [len(U) for U, _ in layers] != cond["widths"]:
        return False
    for (U, W), rec in zip(layers, cond["norm"]):
        if not spectral_sq_bound(U) * spectral_sq_bound(W) < 1:
            return False
    if not all(nondegenerate(U, W) for U, W in layers):
        return False
    n, _ = normals(layers)
    if g1_failure(layers, n) is not None or g2_failure(layers, n) is not None:
        return False
    ks = []
    for i, recs in enumerate(cond["bend_edges"]):
        keys = set()
        for rec in recs:
            if not is_bend_point(layers, i, rec):
                return False
            keys.add(edge_key(layers, i, rec))
        ks.append(len(keys))
    if len(ks) != len(layers[0][0]) or ks != cond["k"]:
        return False
    sets = [[list(s) for s in all_index_sets_exact(U, W, identity(d))[:4]] for U, W in layers]
    return count_condition(ks) and sets == cond["index_sets"]


# ================================================================ the oracle check

@dataclass
class NearIdentityInstance:
    layers: list[Layer]
    candidate: Optional[list[Layer]] = None
    seed: int = 0

    def size(self) -> dict[str, Any]:
        return {"d": len(self.layers[0][1]), "m": max(len(U) for U, _ in self.layers), "depth": 2}

    def subjects(self) -> list[coverage.Subject]:
        """The two layers as bias-free blocks with identity skips, for the coverage measurement."""
        d = len(self.layers[0][1])
        return [coverage.Subject([list(r) for r in U], [list(r) for r in W], identity(d), False)
                for U, W in self.layers]


@st.composite
def near_identity_instances(draw: st.DrawFn) -> NearIdentityInstance:
    """d in {3, 4}; widths below, at and above d (d = 3: m_2 in 1..4, m_1 in 1..5 with m_1 < 2 m_2, the
    range where bend_count can hold; d = 4: m_1 in 1..4, m_2 in 1..3); |W_l| |U_l| < 1. About half of
    the draws are d = 3 with widths (4, 4) or (5, 4): both widths >= d + 1, the only widths for which
    the claim is not settled by the small-widths remark (a plain block of width <= d is never onto)."""
    if draw(st.booleans()):
        d, m2 = 3, 4
        m1 = draw(st.integers(4, 5))
    else:
        d = draw(st.integers(3, 4))
        m2 = draw(st.integers(1, 4 if d == 3 else 3))
        m1 = draw(st.integers(1, min(5, 2 * m2 - 1) if d == 3 else 4))
    layers = []
    for m in (m1, m2):
        U = [[Q(draw(st.integers(-8, 8).filter(bool)), 8) for _ in range(d)] for _ in range(m)]
        den = 8 * 4 * m * d
        W = [[Q(draw(st.integers(-8, 8).filter(bool)), den) for _ in range(m)] for _ in range(d)]
        layers.append((U, W))
    # the bend-edge search is seeded: the hypotheses are decided with the seed the check will use
    seed = draw(st.integers(0, 1000))
    assume(near_identity_conditions(layers, seed)["applies"])
    cand = [([[Q(draw(st.integers(-4, 4)), 2) for _ in range(d)] for _ in range(w)],
             [[Q(draw(st.integers(-4, 4)), 2) for _ in range(w)] for _ in range(d)]) for w in (m1, m2)]
    return NearIdentityInstance(layers, cand, seed)


def _flip(U: list, S: Sequence[int]) -> list:
    return [[-v for v in u] if i in S else list(u) for i, u in enumerate(U)]


def flip_candidates(layers: Sequence[Layer]) -> list[tuple[list[int], list[int], list[Layer]]]:
    """Every sign-flip stack: negate the rows of U_1 in S_1 and of U_2 in S_2 (2^{m_1 + m_2} stacks)."""
    (U1, W1), (U2, W2) = layers
    out = []
    for k1 in range(len(U1) + 1):
        for S1 in itertools.combinations(range(len(U1)), k1):
            for k2 in range(len(U2) + 1):
                for S2 in itertools.combinations(range(len(U2)), k2):
                    out.append((list(S1), list(S2), [(_flip(U1, S1), W1), (_flip(U2, S2), W2)]))
    return out


def near_identity_certificate(inst: NearIdentityInstance) -> Certificate:
    """Hypotheses decided exactly; the verdict; every sign-flip stack and a candidate refuted exactly."""
    layers = inst.layers
    cond = near_identity_conditions(layers, inst.seed)
    data: dict[str, Any] = {"residual": layers_to_json(layers), "conditions": cond}
    if not cond["applies"]:
        return Certificate(CLAIM_NI, False, True, "exact rationals", data,
                           f"hypotheses of depth-near-identity do not hold: {cond.get('reason')}")
    if all(cond["index_sets"]):   # impossible under the norm bound; kept as a check of that step
        return Certificate(CLAIM_NI, False, True, "exact rationals", data,
                           "a block has an index set although |W| |U| < 1")
    refuted = []
    pts = [x for x in _points(cond["d"], 40, inst.seed) if any(x)]
    fx = [eval_stack(layers, x, True) for x in pts]
    for S1, S2, cand in flip_candidates(layers):
        wit = None
        for x, f in zip(pts, fx):
            px = eval_stack(cand, x, False)
            if px != f:
                wit = {"x": svec(x), "F": svec(f), "P": svec(px)}
                break
        if wit is None:
            return Certificate(CLAIM_NI, False, True, "exact rationals", data,
                               f"sign-flip stack {S1}, {S2} not refuted")
        refuted.append({"S1": S1, "S2": S2, "difference": wit})
    data["flip_stacks_refuted"] = refuted
    if inst.candidate is not None:
        data["candidate"] = layers_to_json(inst.candidate)
        wit = _find_difference(layers, inst.candidate, inst.seed)
        data["difference"] = wit
        if wit is None:
            return Certificate(CLAIM_NI, False, True, "exact rationals", data, "candidate not refuted")
    return Certificate(CLAIM_NI, True, True, "exact rationals", data,
                       f"d = {cond['d']}, widths {cond['widths']}: near-identity blocks with generic sheets and "
                       f"bend counts {cond['k']}, no index set: F is no plain stack of these widths; "
                       f"{len(refuted)} sign-flip stacks and a random candidate differ at exact points")


@safe_recheck
def recheck_near_identity(cert: dict[str, Any]) -> bool:
    """Re-verify a depth-near-identity certificate from its JSON alone."""
    if cert.get("claim") != CLAIM_NI or not cert.get("holds"):
        return False
    data = cert["data"]
    layers = layers_from_json(data["residual"])
    cond = data["conditions"]
    if not recheck_conditions(layers, cond) or all(cond["index_sets"]):
        return False
    flips = {(tuple(S1), tuple(S2)): cand for S1, S2, cand in flip_candidates(layers)}
    if len(data["flip_stacks_refuted"]) != len(flips):
        return False
    fcache: dict[tuple, list] = {}
    for rec in data["flip_stacks_refuted"]:
        wit = rec["difference"]
        x = qvec(wit["x"])
        key = tuple(x)
        if key not in fcache:
            fcache[key] = eval_stack(layers, x, True)
        px = eval_stack(flips[(tuple(rec["S1"]), tuple(rec["S2"]))], x, False)
        if px == fcache[key] or svec(fcache[key]) != wit["F"] or svec(px) != wit["P"]:
            return False
    if "candidate" in data:
        return _check_difference(layers, layers_from_json(data["candidate"]), data["difference"])
    return True


@oracle_check(CLAIM_NI, near_identity_instances(), recheck_near_identity,
              "exact rationals (normal tables, exact bend points)")
def check_near_identity(inst: Any) -> Certificate:
    """Certify depth-near-identity's hypotheses exactly (d >= 3, two near-identity blocks) and its verdict."""
    return near_identity_certificate(inst)


# ================================================================ boundary instance (homeomorphic_blocks)

def _folded() -> tuple[list[Layer], list[Layer]]:
    I3 = identity(3)
    neg = [[-v for v in r] for r in I3]
    U2 = [[Q(-1), Q(0), Q(0)], [Q(0), Q(-1), Q(0)], [Q(0), Q(0), Q(-1)], [Q(1), Q(1), Q(1)]]
    res = [(I3, neg), (U2, [[Q(2), Q(0), Q(0), Q(1)], [Q(0), Q(3), Q(0), Q(-1)], [Q(0), Q(0), Q(4), Q(1)]])]
    plain = [(neg, neg), (U2, [[Q(1), Q(0), Q(0), Q(1)], [Q(0), Q(2), Q(0), Q(-1)], [Q(0), Q(0), Q(3), Q(1)]])]
    return res, plain


def folded_identity(res: Sequence[Layer], plain: Sequence[Layer]) -> dict[str, Any]:
    """F = P exactly for the folded d = 3 instance: (1) block 1 and plain layer 1 are the same map
    (equal canonical forms); (2) both map R^3 onto the closed negative orthant K (every output is
    -relu(-x)); (3) on K every pre-activation of the second layers has one sign (checked on K's
    generators -e_k), so both second layers are linear on K, and they agree on the generators."""
    d = 3
    (U1, W1), (U2, W2) = res
    (V1, X1), (V2, X2) = plain
    same_first = canonical_form(U1, W1, identity(d)) == canonical_form(V1, X1)
    gens = [[Q(-1) if a == k else Q(0) for a in range(d)] for k in range(d)]
    def one_sign(U: list) -> bool:
        return all(all(dot(u, g) >= 0 for g in gens) or all(dot(u, g) <= 0 for g in gens) for u in U)
    linear_on_K = one_sign(U2) and one_sign(V2)
    agree = all(apply_layer((U2, W2), g, True) == apply_layer((V2, X2), g, False) for g in gens)
    neg = [[-v for v in r] for r in identity(d)]
    into_K = V1 == neg and X1 == neg        # the plain first layer is x -> -relu(-x), with values in K
    return {"same_first_layer": same_first, "plain_first_layer_is_minus_relu_minus": into_K,
            "second_layers_linear_on_orthant": linear_on_K, "agree_on_generators": agree,
            "ok": same_first and into_K and linear_on_K and agree}


def other_hypotheses(layers: Sequence[Layer], seed: int = 0) -> dict[str, Any]:
    """The hypotheses other than homeomorphic_blocks, decided exactly for any two layers (d >= 3):
    nondegeneracy, the first (G1) and (G2) failures (None when they hold), the bend-edge counts k
    and whether bend_count holds.  Used to state what a boundary instance does and does not isolate."""
    n, _ = normals(layers)
    k = [len(e) for e in bend_edges(layers, seed)]
    return {"nondegenerate": [nondegenerate(U, W) for U, W in layers], "G1_failure": g1_failure(layers, n),
            "G2_failure": g2_failure(layers, n), "k": k, "count_ok": count_condition(k)}


def index_set_breaks_g1(layers: Sequence[Layer], S: Sequence[int]) -> Optional[dict[str, Any]]:
    """If W_{1,S} U_{1,S} = -I then G_S = I + W_{1,S} U_{1,S} = 0, so every n_{j,S} = G_S^T u2_j is 0 and
    lies in the span of any row: (G1) fails at D = S.  Returns that failure (None if S is no index set).
    Hence under sheets_generic block 1 never has an index set, and the claim's conclusion reads
    'F is never a plain stack of these widths'."""
    (U1, W1), (U2, _) = layers
    d = len(W1)
    if [[sum((W1[a][i] * U1[i][b] for i in S), Q(0)) for b in range(d)] for a in range(d)] != \
            [[Q(-1) if a == b else Q(0) for b in range(d)] for a in range(d)]:
        return None
    n, _ = normals(layers)
    D = sum(1 << i for i in S)
    return {"j": 0, "D": sorted(S), "I": [0], "n_jD": svec(n[0][D]),
            "all_n_jD_zero": all(not any(n[j][D]) for j in range(len(U2)))}


@counterexample(claims=(CLAIM_NI,), dropped="homeomorphic_blocks",
                description="d = 3, folded stack: x + B_1(x) = -relu(-x) maps R^3 onto the closed "
                            "negative orthant (no homeomorphism), where the fourth unit of B_2 (row "
                            "(1, 1, 1)) is dead; F equals a plain stack of widths (3, 4) although B_2 "
                            "has no index set. It does not isolate homeomorphic_blocks: it also fails "
                            "sheets_generic (G1 at D = {} and, forced by block 1's index set, at "
                            "D = {0, 1, 2}; G2) and bend_count (k = 0, 0, 0), all decided exactly")
def near_identity_folded() -> Certificate:
    """Drop the homeomorphism hypothesis: a d = 3 stack without index sets in block 2 is plain."""
    res, plain = _folded()
    ident = folded_identity(res, plain)
    I3 = identity(3)
    S1 = all_index_sets_exact(*res[0], I3)
    S2 = all_index_sets_exact(*res[1], I3)
    U1, W1 = res[0]
    not_homeo = apply_layer(res[0], [Q(1), Q(1), Q(1)], True) == [Q(0)] * 3   # a nonzero point goes to 0
    pts = [[Q(1), Q(-2), Q(3)], [Q(-3), Q(1), Q(2)], [Q(2), Q(5), Q(-7)]]
    at_points = all(eval_stack(res, x, True) == eval_stack(plain, x, False) for x in pts)
    holds = ident["ok"] and not_homeo and S2 == [] and bool(S1) and at_points and \
        [len(U) for U, _ in res] == [len(U) for U, _ in plain]
    others = other_hypotheses(res)
    forced = index_set_breaks_g1(res, S1[0]) if S1 else None
    data = {"kind": "near_identity_folded", "residual": layers_to_json(res), "plain": layers_to_json(plain),
            "identity": ident, "index_sets": [[list(s) for s in S1], [list(s) for s in S2]],
            "block1_kills_a_nonzero_point": not_homeo,
            # what the instance does not isolate: the other hypotheses it fails, decided exactly
            "isolates_dropped_hypothesis": False, "other_hypotheses": others,
            "G1_forced_by_index_set": forced}
    return Certificate(CLAIM_NI, holds, True, "exact rationals (canonical form and the orthant argument)",
                       data, "" if holds else "boundary facts failed")


@safe_recheck
def recheck_near_identity_counterexample(cert: dict[str, Any]) -> bool:
    data = cert["data"]
    if data.get("kind") != "near_identity_folded":
        return False
    res, plain = layers_from_json(data["residual"]), layers_from_json(data["plain"])
    I3 = identity(3)
    S1 = all_index_sets_exact(*res[0], I3)
    if data.get("other_hypotheses") != json.loads(json.dumps(other_hypotheses(res))) or \
            data.get("G1_forced_by_index_set") != (index_set_breaks_g1(res, S1[0]) if S1 else None):
        return False
    return (folded_identity(res, plain)["ok"] and all_index_sets_exact(*res[1], I3) == []
            and apply_layer(res[0], [Q(1), Q(1), Q(1)], True) == [Q(0)] * 3
            and [len(U) for U, _ in res] == [len(U) for U, _ in plain])
