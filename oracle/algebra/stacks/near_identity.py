"""depth-near-identity's hypotheses for two relu blocks in d >= 3, decided in exact rationals
(proofs/informal/depth-near-identity.md):

  norm      |W_l| |U_l| < 1 for both blocks (then x -> x + B_l(x) is a homeomorphism)
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
import random
from fractions import Fraction
from typing import Any, Optional, Sequence

from oracle.core.rational import qvec, svec
from oracle.algebra.exact import all_index_sets_exact, dot, identity
from oracle.algebra.stacks.layers import Layer, apply_layer, nondegenerate, spectral_sq_bound

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
    """The key of the bend edge H_i cap n_{j,D}^perp a bend point record lies on."""
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

