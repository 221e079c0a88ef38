"""depth-narrow's hypotheses, decided exactly: invertible pieces, the part of the claim that covers
given plain widths, nondegeneracy and the transversality of part (c) (proofs/informal/depth-narrow.md).

Every piece I + W_l D U_l (D a 0/1 diagonal) is certified invertible by the norm bound
|W_l|_2 |U_l|_2 < 1, or for m <= MAX_DET_M by its 2^m exact determinants.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, Optional, Sequence

from oracle.core import linalg
from oracle.core.rational import QMat, QVec, svec, to_fmpq_mat, to_fraction
from oracle.algebra.exact import nullspace
from oracle.algebra.stacks.layers import Layer, nondegenerate, piece, qdet, spectral_sq_bound

MAX_DET_M = 12        # 2^m piece determinants are enumerated up to this width
MAX_TRANSVERSAL_M = 12
TRANSVERSAL_BUDGET = 4_000_000  # m_1 2^(m_1 - 1) m_2 d vector operations


def pieces_certificate(U: QMat, W: QMat) -> dict[str, Any]:
    """Certify that every I + W D U (D any 0/1 diagonal) is invertible.

    First the norm bound |W|_2^2 |U|_2^2 < 1 (then |W D U| < 1); otherwise, for m <= MAX_DET_M,
    the 2^m exact determinants. The norm bound also makes x -> x + B(x) injective (B is
    Lipschitz with constant |W| |U| < 1) and hence a homeomorphism.
    """
    bu, bw = spectral_sq_bound(U), spectral_sq_bound(W)
    out: dict[str, Any] = {"bound_U_sq": str(bu), "bound_W_sq": str(bw), "norm_ok": bu * bw < 1}
    if out["norm_ok"]:
        return {**out, "method": "norm", "ok": True}
    m = len(U)
    if m > MAX_DET_M:
        return {**out, "method": "none", "ok": False,
                "reason": f"norm bound >= 1 and m = {m} > {MAX_DET_M}: determinants not enumerated"}
    zero = []
    dets = []
    for k in range(m + 1):
        for S in itertools.combinations(range(m), k):
            v = qdet(piece(U, W, S))
            dets.append(v)
            if v == 0:
                zero.append(list(S))
    out.update({"method": "det", "patterns": 2 ** m, "ok": not zero, "singular_patterns": zero[:8]})
    if m <= 4:
        out["dets"] = [str(v) for v in dets]
    return out


def check_pieces_certificate(U: QMat, W: QMat, cert: dict[str, Any]) -> bool:
    """Re-verify a pieces certificate from the weights."""
    fresh = pieces_certificate(U, W)
    return fresh["ok"] and cert.get("ok") is True and cert.get("method") == fresh["method"] \
        and cert.get("bound_U_sq") == fresh["bound_U_sq"] and cert.get("bound_W_sq") == fresh["bound_W_sq"]


def _parallel(a: QVec, b: QVec) -> bool:
    n = len(a)
    return all(a[i] * b[j] - a[j] * b[i] == 0 for i in range(n) for j in range(i + 1, n))


def transversal(layers: Sequence[Layer]) -> dict[str, Any]:
    """depth-narrow (c): no (I + W_1 D U_1)^T u2_j is parallel to a row u1_i (D over the units != i).

    (I + W_1 D U_1)^T u2_j = u2_j + sum_{k in D} (w1_k . u2_j) u1_k.
    """
    (U1, W1), (U2, _) = layers[0], layers[1]
    m1, d = len(U1), len(W1)
    if m1 > MAX_TRANSVERSAL_M or m1 * 2 ** (m1 - 1) * len(U2) * d > TRANSVERSAL_BUDGET:
        return {"ok": False, "checked": 0, "reason": f"m_1 = {m1}, m_2 = {len(U2)}, d = {d}: too many "
                "patterns to enumerate"}
    coeff = [[sum((W1[a][k] * u2[a] for a in range(d)), Fraction(0)) for k in range(m1)] for u2 in U2]
    checked = 0
    for i in range(m1):
        others = [k for k in range(m1) if k != i]
        for r in range(len(others) + 1):
            for D in itertools.combinations(others, r):
                for j, u2 in enumerate(U2):
                    v = list(u2)
                    for k in D:
                        c = coeff[j][k]
                        if c:
                            v = [x + c * y for x, y in zip(v, U1[k])]
                    checked += 1
                    if _parallel(v, U1[i]):
                        return {"ok": False, "checked": checked,
                                "failure": {"i": i, "j": j, "D": list(D), "vector": svec(v)}}
    return {"ok": True, "checked": checked}


def cone_point(V: QMat, d: int) -> Optional[QVec]:
    """A nonzero x with V x <= 0 when V has at most d rows (the cone where a plain first layer is 0)."""
    ns = nullspace(V, d)
    if ns:
        return ns[0]
    # V is d x d and invertible: x = V^{-1} (-1, ..., -1).
    x = linalg.solve(V, to_fmpq_mat([[-1]] * d))
    if x is None:
        raise ValueError("the first layer has no nonzero point where it vanishes")
    return [to_fraction(x[i, 0]) for i in range(d)]


def narrow_part(d: int, widths: Sequence[int], plain_widths: Sequence[int]) -> Optional[str]:
    """Which part of depth-narrow covers plain stacks of these widths: 'a', 'b', 'c' or None."""
    if not plain_widths:
        return None
    if plain_widths[0] <= d:
        return "a"
    if min(plain_widths) < d:
        return "b"
    if len(widths) == 2 and len(plain_widths) == 2 and plain_widths[1] == d and \
            plain_widths[0] <= widths[0]:
        return "c"
    return None


def narrow_conditions(layers: Sequence[Layer], plain_widths: Sequence[int]) -> dict[str, Any]:
    """Every hypothesis of depth-narrow for a residual stack and plain widths, decided exactly."""
    d = len(layers[0][1])
    widths = [len(U) for U, _ in layers]
    part = narrow_part(d, widths, plain_widths)
    pieces = [pieces_certificate(U, W) for U, W in layers]
    out: dict[str, Any] = {"d": d, "widths": widths, "plain_widths": list(plain_widths), "part": part,
                           "pieces": pieces, "pieces_invertible": all(p["ok"] for p in pieces)}
    ok = part is not None and out["pieces_invertible"]
    if part == "c":
        out["nondegenerate"] = [nondegenerate(U, W) for U, W in layers]
        out["transversal"] = transversal(layers)
        ok = ok and all(out["nondegenerate"]) and out["transversal"]["ok"]
    out["applies"] = ok
    return out

