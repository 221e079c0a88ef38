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
values on those rays.
"""

from __future__ import annotations

import functools
import itertools
import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Optional, Sequence

import numpy as np
from flint import fmpq, fmpq_mat
from hypothesis import assume
from hypothesis import strategies as st

from oracle.core.blocks import Block, Stack
from oracle.claims.absorption_width import build_block, lower_bound_table
from oracle.claims import coverage
from oracle.claims.base import Certificate, counterexample, oracle_check
from oracle.algebra.exact import (
    all_index_sets_exact, identity, line_key, matmul, matvec_q, qmat, qvec, safe_recheck, smat,
    svec, transpose
)
from oracle.algebra.exact import nullspace

CLAIM_NARROW = "depth-narrow"
CLAIM_D2 = "depth-d2"
CLAIM_DIM = "depth-dimension"
CLAIM_WIDTH = "depth-width"

QMat = list[list[Fraction]]
QVec = list[Fraction]
Layer = tuple[QMat, QMat]  # (U or V: m x d, W: d x m)

MAX_DET_M = 12        # 2^m piece determinants are enumerated up to this width
MAX_TRANSVERSAL_M = 12
TRANSVERSAL_BUDGET = 4_000_000  # m_1 2^(m_1 - 1) m_2 d vector operations
Q = Fraction


# ================================================================ exact basics

def _fq(x: Fraction) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def _qf(x: fmpq) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def to_flint(a: QMat) -> fmpq_mat:
    """A rational matrix (list of rows) as a python-flint fmpq_mat."""
    rows, cols = len(a), (len(a[0]) if a else 0)
    return fmpq_mat(rows, cols, [_fq(Fraction(v)) for r in a for v in r])


def qdet(a: QMat) -> Fraction:
    """Exact determinant (python-flint)."""
    return _qf(to_flint(a).det()) if a else Fraction(1)


def qrank(a: QMat) -> int:
    """Exact rank (python-flint)."""
    return to_flint(a).rank() if a and a[0] else 0


def _relu(v: Fraction) -> Fraction:
    return v if v > 0 else Fraction(0)


def layers_of(stack: Stack) -> list[Layer]:
    """The exact (W_up, W_down) of every block of a stack."""
    return [(qmat(b.W_up), qmat(b.W_down)) for b in stack.blocks]


def layers_to_json(layers: Sequence[Layer]) -> list[dict[str, Any]]:
    """Exact string form of a list of layers."""
    return [{"W_up": smat(U), "W_down": smat(W)} for U, W in layers]


def layers_from_json(data: Sequence[dict[str, Any]]) -> list[Layer]:
    """Inverse of layers_to_json, with shape checks (raises ValueError on malformed data)."""
    out = []
    d = None
    for rec in data:
        U, W = qmat(rec["W_up"]), qmat(rec["W_down"])
        m = len(U)
        if m == 0 or any(len(r) != len(U[0]) for r in U):
            raise ValueError("ragged W_up")
        dd = len(U[0])
        if d is not None and dd != d:
            raise ValueError("dimension mismatch between layers")
        d = dd
        if len(W) != d or any(len(r) != m for r in W):
            raise ValueError("W_down has the wrong shape")
        out.append((U, W))
    if not out:
        raise ValueError("empty stack")
    return out


def apply_layer(layer: Layer, x: QVec, residual: bool) -> QVec:
    """x -> x + W relu(U x) (residual) or W relu(U x) (plain), exactly."""
    U, W = layer
    h = [_relu(v) for v in matvec_q(U, x)]
    out = matvec_q(W, h)
    return [a + b for a, b in zip(x, out)] if residual else out


def eval_stack(layers: Sequence[Layer], x: QVec, residual: bool) -> QVec:
    """Evaluate a residual or plain relu stack exactly, first layer first."""
    for layer in layers:
        x = apply_layer(layer, x, residual)
    return x


def nondegenerate(U: QMat, W: QMat) -> bool:
    """Rows of U nonzero and pairwise non-collinear, columns of W nonzero (exact)."""
    keys = [line_key(r) for r in U]
    if any(k is None for k in keys) or len(set(keys)) != len(keys):
        return False
    return all(any(W[a][i] != 0 for a in range(len(W))) for i in range(len(U)))


def piece(U: QMat, W: QMat, S: Sequence[int]) -> QMat:
    """I + W_S U_S: the linear piece of x + B(x) where exactly the units in S are active."""
    d = len(W)
    out = identity(d)
    for i in S:
        for a in range(d):
            if W[a][i]:
                for b in range(d):
                    out[a][b] += W[a][i] * U[i][b]
    return out


# ================================================================ pieces invertible (depth-narrow)

def spectral_sq_bound(a: QMat) -> Fraction:
    """An exact rational upper bound of |a|_2^2: min(Frobenius^2, |a|_1 |a|_inf)."""
    frob = sum((v * v for r in a for v in r), Fraction(0))
    n1 = max((sum((abs(r[j]) for r in a), Fraction(0)) for j in range(len(a[0]))), default=Fraction(0))
    ninf = max((sum((abs(v) for v in r), Fraction(0)) for r in a), default=Fraction(0))
    return min(frob, n1 * ninf)


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
    inv = to_flint(V).inv()
    x = inv * fmpq_mat(d, 1, [fmpq(-1)] * d)
    return [_qf(x[i, 0]) for i in range(d)]


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


# ================================================================ d = 2 ray geometry

def _cross(a: QVec, b: QVec) -> Fraction:
    return a[0] * b[1] - a[1] * b[0]


def _dot(a: QVec, b: QVec) -> Fraction:
    return a[0] * b[0] + a[1] * b[1]


def _half(v: QVec) -> int:
    return 0 if v[1] > 0 or (v[1] == 0 and v[0] > 0) else 1


def _ray_cmp(a: QVec, b: QVec) -> int:
    ha, hb = _half(a), _half(b)
    if ha != hb:
        return ha - hb
    c = _cross(a, b)
    return -1 if c > 0 else (1 if c < 0 else 0)


def same_ray(a: QVec, b: QVec) -> bool:
    """a and b span the same open ray."""
    return _cross(a, b) == 0 and _dot(a, b) > 0


def sort_rays(rays: Sequence[QVec]) -> list[QVec]:
    """Nonzero vectors sorted counterclockwise from the positive x axis, one per ray."""
    out: list[QVec] = []
    for r in sorted((list(r) for r in rays if any(r)), key=functools.cmp_to_key(_ray_cmp)):
        if not out or not same_ray(out[-1], r):
            out.append(r)
    if len(out) > 1 and same_ray(out[0], out[-1]):
        out.pop()
    return out


AXES: list[QVec] = [[Q(1), Q(0)], [Q(0), Q(1)], [Q(-1), Q(0)], [Q(0), Q(-1)]]


def candidate_rays(layers: Sequence[Layer], residual: bool) -> list[QVec]:
    """Rays (d = 2) between which the stack is linear: the axes plus every ray where some unit's
    pre-activation changes sign. Built layer by layer: on a sector where the prefix is linear, a
    pre-activation is linear, so its sign change is at the ray |z(b)| a + |z(a)| b."""
    rays = sort_rays(AXES)
    for l, (U, _) in enumerate(layers):
        vals = [eval_stack(layers[:l], r, residual) for r in rays]
        new = []
        for k in range(len(rays)):
            a, b = rays[k], rays[(k + 1) % len(rays)]
            fa, fb = vals[k], vals[(k + 1) % len(rays)]
            for u in U:
                za, zb = _dot(u, fa), _dot(u, fb)
                if za * zb < 0:
                    new.append([abs(zb) * a[0] + abs(za) * b[0], abs(zb) * a[1] + abs(za) * b[1]])
        rays = sort_rays(rays + new)
    return rays


def _sector_matrix(a: QVec, b: QVec, fa: QVec, fb: QVec) -> QMat:
    """The linear map sending a -> fa and b -> fb (a, b independent)."""
    det = _cross(a, b)
    inv = [[b[1] / det, -b[0] / det], [-a[1] / det, a[0] / det]]
    return matmul([[fa[0], fb[0]], [fa[1], fb[1]]], inv)


def kink_rays(layers: Sequence[Layer], residual: bool) -> list[QVec]:
    """The rays (d = 2) where the stack is not differentiable: adjacent linear pieces differ."""
    rays = candidate_rays(layers, residual)
    vals = [eval_stack(layers, r, residual) for r in rays]
    n = len(rays)
    pieces = [_sector_matrix(rays[k], rays[(k + 1) % n], vals[k], vals[(k + 1) % n]) for k in range(n)]
    return [rays[k] for k in range(n) if pieces[k - 1] != pieces[k]]


def equal_2d(f: Callable[[QVec], QVec], g: Callable[[QVec], QVec], rays: Sequence[QVec]) -> bool:
    """Proof of f == g on R^2 when both are positively homogeneous and linear between the rays."""
    return all(f(r) == g(r) for r in rays)


def stacks_equal(res: Sequence[Layer], plain: Sequence[Layer]) -> tuple[bool, list[QVec]]:
    """Exact identity test of a residual and a plain stack for d = 1 (rays +-1) or d = 2 (all
    candidate rays of both): a proof of equality on all of R^d, not a sample."""
    d = len(res[0][1])
    if d == 1:
        rays = [[Q(1)], [Q(-1)]]
    elif d == 2:
        rays = sort_rays(candidate_rays(res, True) + candidate_rays(plain, False))
    else:
        raise ValueError("exact stack identity is implemented for d <= 2")
    ok = all(eval_stack(res, r, True) == eval_stack(plain, r, False) for r in rays)
    return ok, rays


def homeomorphism_2d(U: QMat, W: QMat) -> dict[str, Any]:
    """Exact test (d = 2) that x -> x + W relu(U x) is a homeomorphism of R^2.

    The map is linear and invertible on each sector between consecutive candidate rays iff the
    cross products of consecutive ray images are nonzero; with one common sign it maps the
    circle to itself as a covering whose degree is the number of image sectors containing a
    fixed direction e; it is a homeomorphism iff that degree is 1.
    """
    layer = [(U, W)]
    rays = candidate_rays(layer, True)
    imgs = [eval_stack(layer, r, True) for r in rays]
    n = len(rays)
    signs = [_cross(imgs[k], imgs[(k + 1) % n]) for k in range(n)]
    out: dict[str, Any] = {"rays": [svec(r) for r in rays]}
    if any(s == 0 for s in signs) or len({s > 0 for s in signs}) != 1:
        return {**out, "ok": False, "reason": "a piece is singular or the orientation changes (fold)"}
    pos = signs[0] > 0
    # A reference direction on no image ray; among n + 1 distinct directions one always works.
    for k in range(1, n + 3):
        e = [Q(1), Q(k)]
        if not any(same_ray(a, e) for a in imgs):
            break
    count = 0
    for k in range(n):
        a, b = imgs[k], imgs[(k + 1) % n]
        if not pos:
            a, b = b, a
        if _cross(a, e) > 0 and _cross(e, b) > 0:
            count += 1
    return {**out, "ok": count == 1, "orientation": 1 if pos else -1, "reference": svec(e),
            "degree": count}


def homeo_certificate(U: QMat, W: QMat) -> dict[str, Any]:
    """Homeomorphism certificate of one block: the norm bound, else (d = 2) the exact winding test."""
    p = pieces_certificate(U, W)
    if p["norm_ok"]:
        return {"method": "norm", "ok": True, "bound_U_sq": p["bound_U_sq"], "bound_W_sq": p["bound_W_sq"]}
    if len(W) == 2:
        return {"method": "winding", **homeomorphism_2d(U, W)}
    return {"method": "none", "ok": False, "reason": "norm bound >= 1 and d != 2"}


def _rot(v: QVec) -> QVec:
    return [-v[1], v[0]]


def preimage_rays(U: QMat, W: QMat, targets: Sequence[QVec]) -> list[Optional[QVec]]:
    """The rays G^{-1}(s) for a homeomorphism G = I + B of R^2 (exact; None where not found):
    on each sector between candidate rays G is an invertible linear map A, and s has its
    preimage in that sector iff A^{-1} s lies in the closed sector."""
    layer = [(U, W)]
    rays = candidate_rays(layer, True)
    vals = [eval_stack(layer, r, True) for r in rays]
    n = len(rays)
    sectors = []
    for k in range(n):
        a, b = rays[k], rays[(k + 1) % n]
        A = _sector_matrix(a, b, vals[k], vals[(k + 1) % n])
        sectors.append((a, b, A, A[0][0] * A[1][1] - A[0][1] * A[1][0]))
    out: list[Optional[QVec]] = []
    for s in targets:
        found = None
        for a, b, A, det in sectors:
            if det == 0:
                continue
            x = [(A[1][1] * s[0] - A[0][1] * s[1]) / det, (-A[1][0] * s[0] + A[0][0] * s[1]) / det]
            if _cross(a, x) >= 0 and _cross(x, b) >= 0:
                found = x
                break
        out.append(found)
    return out


def d2_conditions(layers: Sequence[Layer]) -> dict[str, Any]:
    """Every hypothesis of depth-d2, decided exactly, plus the index sets of both blocks."""
    d = len(layers[0][1])
    out: dict[str, Any] = {"d": d, "L": len(layers)}
    if d != 2 or len(layers) != 2:
        return {**out, "applies": False, "reason": "depth-d2 needs d = 2 and two blocks"}
    (U1, W1), (U2, W2) = layers
    out["homeomorphism"] = [homeo_certificate(U, W) for U, W in layers]
    out["nondegenerate"] = [nondegenerate(U, W) for U, W in layers]
    ok = all(h["ok"] for h in out["homeomorphism"]) and all(out["nondegenerate"])
    # H3: no layer-1 kink ray is sent by G = I + B_1 onto a kink line of B_2.
    G = lambda x: apply_layer((U1, W1), x, True)  # noqa: E731
    l1 = [r for u in U1 for r in (_rot(u), [-v for v in _rot(u)])]
    h3 = all(_dot(u2, G(r)) != 0 for r in l1 for u2 in U2)
    out["layer1_rays"] = [svec(r) for r in l1]
    out["h3_layer1_images_off_layer2_lines"] = h3
    ok = ok and h3
    l2: list[QVec] = []
    if ok:
        targets = [s for u2 in U2 for s in (_rot(u2), [-v for v in _rot(u2)])]
        found = preimage_rays(U1, W1, targets)
        ok = all(r is not None for r in found)
        l2 = [r for r in found if r is not None]
    out["layer2_rays"] = [svec(r) for r in l2]
    h4 = ok and not any(_cross(a, b) == 0 and _dot(a, b) < 0 for a, b in itertools.combinations(l2, 2))
    out["h4_no_antipodal_layer2_rays"] = h4
    ok = ok and h4
    out["applies"] = ok
    if ok:
        kinks = kink_rays(layers, True)
        out["kink_rays"] = len(kinks)
        out["expected_kink_rays"] = 2 * (len(U1) + len(U2))
        I = identity(2)
        out["index_sets"] = [[list(S) for S in all_index_sets_exact(U, W, I)] for U, W in layers]
    return out


# ================================================================ depth-dimension

def rank_dim(d: int, p: int, q: int) -> int:
    """Dimension of the variety of p x q real matrices of rank <= d."""
    return p * q if d >= min(p, q) else d * (p + q - d)


def plain_dimension(d: int, widths: Sequence[int]) -> int:
    """D_plain: an upper bound of the dimension of the plain family's functions (see
    depth-dimension.md): d m_1 + d m_L + sum_l dim{rank <= d in R^{m_{l+1} x m_l}} - sum m_l."""
    L = len(widths)
    red = d * widths[0] + d * widths[-1] + sum(rank_dim(d, widths[l + 1], widths[l]) for l in range(L - 1))
    return red - sum(widths)


def junction_gaps(d: int, widths: Sequence[int]) -> list[int]:
    """delta_l = d (m_l + m_{l+1}) - dim{rank <= d}: what each junction's GL(d) freedom removes."""
    return [d * (widths[l] + widths[l + 1]) - rank_dim(d, widths[l + 1], widths[l])
            for l in range(len(widths) - 1)]


def patterns_at(layers: Sequence[Layer], x: QVec) -> Optional[list[list[int]]]:
    """Activation patterns of the residual stack at x; None when some pre-activation is 0."""
    pats = []
    for U, W in layers:
        z = matvec_q(U, x)
        if any(v == 0 for v in z):
            return None
        pats.append([1 if v > 0 else 0 for v in z])
        x = [a + b for a, b in zip(x, matvec_q(W, [v if v > 0 else Fraction(0) for v in z]))]
    return pats


def jacobian_rows(layers: Sequence[Layer], x: QVec) -> list[list[fmpq]]:
    """d rows of the exact Jacobian of theta -> F_theta(x) (columns: U_1, W_1, U_2, W_2, ...
    row-major), valid where no pre-activation at x is 0 (the map is polynomial nearby).
    Entries are python-flint rationals (fmpq)."""
    d = len(x)
    zero = fmpq(0)
    y = [_fq(Fraction(v)) for v in x]
    per_layer = []
    for U, W in layers:
        Uf = [[_fq(v) for v in r] for r in U]
        Wf = [[_fq(v) for v in r] for r in W]
        m = len(U)
        z = [sum((Uf[i][c] * y[c] for c in range(d)), zero) for i in range(m)]
        D = [v > 0 for v in z]
        act = [v if D[i] else zero for i, v in enumerate(z)]
        A = [[fmpq(int(a == b)) + sum((Wf[a][i] * Uf[i][b] for i in range(m) if D[i]), zero)
              for b in range(d)] for a in range(d)]
        per_layer.append((Wf, y, D, act, A))
        y = [y[a] + sum((Wf[a][i] * act[i] for i in range(m)), zero) for a in range(d)]
    L = len(layers)
    suffix: list[list[list[fmpq]]] = [[]] * L  # suffix[l] = A_L ... A_{l+1}, applied after layer l
    S = [[fmpq(int(a == b)) for b in range(d)] for a in range(d)]
    for l in range(L - 1, -1, -1):
        suffix[l] = S
        A = per_layer[l][4]
        S = [[sum((S[a][k] * A[k][b] for k in range(d)), zero) for b in range(d)] for a in range(d)]
    rows: list[list[fmpq]] = [[] for _ in range(d)]
    for l, (Wf, yl, D, act, _) in enumerate(per_layer):
        Sl = suffix[l]
        m = len(D)
        SW = [[sum((Sl[a][k] * Wf[k][i] for k in range(d)), zero) for i in range(m)] for a in range(d)]
        for a in range(d):
            row = rows[a]
            for i in range(m):          # d F / d U[i][c] = S_l w_i [unit i active] y_c
                for c in range(d):
                    row.append(SW[a][i] * yl[c] if D[i] else zero)
            for a2 in range(d):         # d F / d W[a2][i] = S_l e_a2 act_i
                for i in range(m):
                    row.append(Sl[a][a2] * act[i])
    return rows


def _fmat(rows: Sequence[Sequence[fmpq]]) -> fmpq_mat:
    return fmpq_mat(len(rows), len(rows[0]) if rows else 0, [v for r in rows for v in r])


def _points(d: int, count: int, seed: int) -> list[QVec]:
    rng = random.Random(seed)
    return [[Fraction(rng.randint(-40, 40), rng.randint(1, 7)) for _ in range(d)] for _ in range(count)]


def _pivots(a: fmpq_mat, rank: int) -> list[int]:
    """Pivot columns of the reduced row echelon form of a (rank known)."""
    R, _ = a.rref()
    out, c = [], 0
    for r in range(rank):
        while R[r, c] == 0:
            c += 1
        out.append(c)
        c += 1
    return out


def rank_certificate(layers: Sequence[Layer], seed: int = 0, max_rounds: int = 3) -> dict[str, Any]:
    """Exact Jacobian rank of theta -> (F_theta(x_k))_k at rational points with nonzero
    pre-activations, with a nonsingular minor (row and column indices) as the certificate."""
    d = len(layers[0][1])
    widths = [len(U) for U, _ in layers]
    N, m = 2 * d * sum(widths), sum(widths)
    bound = plain_dimension(d, widths)
    target = N - m
    pts: list[QVec] = []
    rows: list[list[fmpq]] = []
    need = -(-target // d) + 3
    rank = 0
    for attempt in range(max_rounds):
        for x in _points(d, 4 * need, seed + attempt):
            if len(pts) >= need:
                break
            if patterns_at(layers, x) is None:
                continue
            pts.append(x)
            rows += jacobian_rows(layers, x)
        rank = _fmat(rows).rank() if rows else 0
        if rank >= target:
            break
        need *= 2
    pivcols: list[int] = []
    pivrows: list[int] = []
    if rows and rank:
        pivcols = _pivots(_fmat(rows), rank)
        sub = [[r[j] for j in pivcols] for r in rows]
        pivrows = _pivots(_fmat(sub).transpose(), rank)
    return {"d": d, "widths": widths, "N": N, "m": m, "N_minus_m": target, "D_plain": bound,
            "gaps": junction_gaps(d, widths), "points": [svec(x) for x in pts],
            "patterns": [patterns_at(layers, x) for x in pts], "rank": rank,
            "minor_rows": pivrows, "minor_cols": pivcols,
            "certified": rank > bound,
            "excluded_added_widths": [k for k in range(0, 3 * d + 1)
                                      if plain_dimension(d, [w + k for w in widths]) < rank]}


def check_rank_certificate(layers: Sequence[Layer], cert: dict[str, Any]) -> bool:
    """Re-verify: patterns strict at every point, D_plain recomputed, the stated minor nonzero."""
    d = len(layers[0][1])
    widths = [len(U) for U, _ in layers]
    if cert["D_plain"] != plain_dimension(d, widths) or cert["N"] != 2 * d * sum(widths):
        return False
    pts = [qvec(x) for x in cert["points"]]
    rows: list[list[fmpq]] = []
    for x, pat in zip(pts, cert["patterns"]):
        if pat is None or len(x) != d or patterns_at(layers, x) != pat:
            return False
        rows += jacobian_rows(layers, x)
    r, ri, ci = cert["rank"], cert["minor_rows"], cert["minor_cols"]
    if len(pts) != len(cert["patterns"]) or not isinstance(r, int):
        return False
    if len(ri) != r or len(ci) != r or len(set(ri)) != r or len(set(ci)) != r:
        return False
    if r and _fmat([[rows[i][j] for j in ci] for i in ri]).det() == 0:
        return False
    return r > cert["D_plain"] and cert.get("certified") is True


# ================================================================ depth-width

def canonical_form(U: QMat, W: QMat, M: Optional[QMat] = None) -> tuple[QMat, dict[tuple[int, ...], QVec]]:
    """Canonical form of x -> M x + W relu(U x): its linear part M + (1/2) sum w_i u_i^T and, for each
    line l (primitive integer vector), alpha_l = (1/2) sum |c_i| w_i over units with u_i = c_i l.
    Two such maps are equal iff their canonical forms are (Lemma R of relu-gelu-iff.md)."""
    d = len(W)
    lin = [row[:] for row in M] if M is not None else [[Fraction(0)] * d for _ in range(d)]
    even: dict[tuple[int, ...], QVec] = {}
    for i, u in enumerate(U):
        w = [W[a][i] for a in range(d)]
        for a in range(d):
            for b in range(d):
                lin[a][b] += w[a] * u[b] / 2
        key = line_key(u)
        if key is None:
            continue
        j = next(k for k, v in enumerate(key) if v)
        c = u[j] / key[j]
        acc = even.setdefault(key, [Fraction(0)] * d)
        for a in range(d):
            acc[a] += abs(c) * w[a] / 2
    return lin, {k: v for k, v in even.items() if any(v)}


def independent_rows(U: QMat) -> list[int]:
    """A maximal set of linearly independent rows (greedy, exact)."""
    chosen: list[int] = []
    for i in range(len(U)):
        if qrank([U[j] for j in chosen + [i]]) == len(chosen) + 1:
            chosen.append(i)
    return chosen


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


def _q(n: int, den: int) -> Fraction:
    return Fraction(n, den)


def _mat(draw: st.DrawFn, rows: int, cols: int, num: int, den: int, nonzero: bool = False) -> QMat:
    vals = st.integers(-num, num).filter(lambda v: v != 0) if nonzero else st.integers(-num, num)
    return [[_q(draw(vals), den) for _ in range(cols)] for _ in range(rows)]


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


# ================================================================ shared certificate pieces

def _find_difference(res: Sequence[Layer], plain: Sequence[Layer], seed: int,
                     first: Optional[QVec] = None) -> Optional[dict[str, Any]]:
    """A rational point where the residual and the plain stack differ exactly."""
    d = len(res[0][1])
    cands = ([first] if first is not None else []) + _points(d, 60, seed)
    for x in cands:
        if not any(x):
            continue
        fx, px = eval_stack(res, x, True), eval_stack(plain, x, False)
        if fx != px:
            return {"x": svec(x), "F": svec(fx), "P": svec(px)}
    return None


def _check_difference(res: Sequence[Layer], plain: Sequence[Layer], wit: dict[str, Any]) -> bool:
    x = qvec(wit["x"])
    fx, px = eval_stack(res, x, True), eval_stack(plain, x, False)
    return fx != px and svec(fx) == wit["F"] and svec(px) == wit["P"]


def _as_layers(inst: Any) -> StackInstance:
    if isinstance(inst, StackInstance):
        return inst
    if isinstance(inst, Stack):
        return StackInstance(layers_of(inst))
    raise TypeError("expected a StackInstance or a Stack")


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
        wit = _find_difference(layers, cand, inst.seed, first)
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
        if not _check_difference(layers, cand, data["difference"]):
            return False
        if cond["part"] == "a":
            x = qvec(data["cone_point"])
            if not any(x) or any(v > 0 for v in matvec_q(cand[0][0], x)):
                return False
            if not any(eval_stack(layers, x, True)):
                return False
    return True


@oracle_check(CLAIM_NARROW, narrow_instances(), recheck_narrow, "exact rationals (python-flint)")
def check_narrow(inst: Any) -> Certificate:
    """Certify depth-narrow's hypotheses exactly and refute a candidate plain stack of narrow widths."""
    return narrow_certificate(_as_layers(inst))


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
        wit = _find_difference(layers, inst.candidate, inst.seed)
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
        return _check_difference(layers, layers_from_json(data["candidate"]), data["difference"])
    return True


@oracle_check(CLAIM_D2, d2_instances(), recheck_d2, "exact rationals (ray geometry, python-flint)")
def check_d2(inst: Any) -> Certificate:
    """Certify depth-d2's hypotheses exactly (d = 2, two homeomorphic blocks) and its verdict."""
    return d2_certificate(_as_layers(inst))


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


@oracle_check(CLAIM_DIM, dimension_instances(), recheck_dimension,
              "exact rationals (python-flint rank and a nonzero minor)")
def check_dimension(inst: Any) -> Certificate:
    """Certify rank DPhi > D_plain exactly at a concrete stack and rational points."""
    return dimension_certificate(_as_layers(inst))


# ================================================================ depth-width

def width_certificate(inst: StackInstance) -> Certificate:
    """Build the plain stack of widths m_l + 2d - rank U_l and prove it equals F exactly."""
    layers = inst.layers
    d = len(layers[0][1])
    per = width_construction(layers)
    plain = [(qmat(p["W_up"]), qmat(p["W_down"])) for p in per]
    pts = _points(d, 6, inst.seed)
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


@oracle_check(CLAIM_WIDTH, width_instances(), recheck_width, "exact rationals (canonical forms)")
def check_width(inst: Any) -> Certificate:
    """Construct the wider plain stack and verify it exactly."""
    return width_certificate(_as_layers(inst))


# ================================================================ boundary counterexamples

def _L(U: list, W: list) -> Layer:
    return (qmat(U), qmat(W))


def _neg(a: QMat) -> QMat:
    return [[-v for v in r] for r in a]


def _identity_cx(claim: str, kind: str, res: list[Layer], plain: list[Layer],
                 extra: dict[str, Any], holds_extra: bool, method: str = "exact rationals") -> Certificate:
    ok, rays = stacks_equal(res, plain)
    data = {"kind": kind, "residual": layers_to_json(res), "plain": layers_to_json(plain),
            "rays": [svec(r) for r in rays], **extra}
    return Certificate(claim, ok and holds_extra, True, method + " (identity proved on every ray)", data,
                       "" if ok and holds_extra else "identity or boundary fact failed")


def _narrow_singular() -> tuple[list[Layer], list[Layer]]:
    I2 = identity(2)
    blk = (I2, _neg(I2))
    return [blk, blk], [(_neg(I2), _neg(I2))] * 2


@counterexample(claims=(CLAIM_NARROW,), dropped="pieces_invertible",
                description="d = 2, two blocks W_up = I, W_down = -I: the piece with both units active "
                            "is 0, and the stack equals the plain stack (-relu(-x)) o (-relu(-x)) of "
                            "widths (2, 2), first width <= d")
def narrow_singular_piece() -> Certificate:
    """Drop invertible pieces: a residual stack equal to a plain stack of narrow first width."""
    res, plain = _narrow_singular()
    U, W = res[0]
    singular = qdet(piece(U, W, [0, 1])) == 0
    return _identity_cx(CLAIM_NARROW, "narrow_singular_piece", res, plain,
                        {"singular_piece": [0, 1], "plain_widths": [2, 2]}, singular)


def _d1_fold() -> tuple[list[Layer], list[Layer]]:
    res = [_L([[1], [-1]], [[1, 3]]), _L([[1]], [[1]])]
    plain = [_L([[1], [-1]], [[4, 4]]), _L([[1]], [[1]])]
    return res, plain


@counterexample(claims=(CLAIM_NARROW,), dropped="nondegenerate",
                description="d = 1 (rows 1 and -1 are collinear): x + relu(x) + 3 relu(-x) = 2|x| folds "
                            "R onto [0, oo), every piece is invertible, and F = 4|x| is the plain stack "
                            "relu o (4 relu(x) + 4 relu(-x)) of widths (2, 1), last width d")
def narrow_d1_fold() -> Certificate:
    """Drop nondegeneracy in part (c): a folding d = 1 stack with invertible pieces is plain."""
    res, plain = _d1_fold()
    pieces_ok = all(pieces_certificate(U, W)["ok"] for U, W in res)
    degenerate = not nondegenerate(*res[0])
    part = narrow_part(1, [2, 1], [2, 1])
    return _identity_cx(CLAIM_NARROW, "narrow_d1_fold", res, plain,
                        {"pieces_invertible": pieces_ok, "block1_nondegenerate": not degenerate,
                         "part": part}, pieces_ok and degenerate and part == "c")


def _d2_fold() -> tuple[list[Layer], list[Layer]]:
    I2 = identity(2)
    res = [(I2, _neg(I2)), _L([[-1, 0], [0, -1], [1, 1]], [[2, 0, 1], [0, 3, -1]])]
    plain = [(_neg(I2), _neg(I2)), _L([[-1, 0], [0, -1], [1, 1]], [[1, 0, 1], [0, 2, -1]])]
    return res, plain


@counterexample(claims=(CLAIM_D2,), dropped="homeomorphic_blocks",
                description="d = 2, folded stack with a dead unit: x + B_1(x) = -relu(-x) maps R^2 onto "
                            "the closed negative quadrant (not a homeomorphism), where the third unit of "
                            "B_2 is dead; F equals a plain stack of widths (2, 3) although B_2 has no "
                            "index set, and F has fewer than 2 (m_1 + m_2) kink rays")
def d2_folded_dead_unit() -> Certificate:
    """Drop the homeomorphism hypothesis: the 'only if both index sets' direction fails."""
    res, plain = _d2_fold()
    I2 = identity(2)
    S1 = all_index_sets_exact(*res[0], I2)
    S2 = all_index_sets_exact(*res[1], I2)
    not_homeo = not homeo_certificate(*res[0])["ok"]
    kinks = len(kink_rays(res, True))
    nondeg = all(nondegenerate(U, W) for U, W in res)
    holds = not_homeo and S2 == [] and bool(S1) and nondeg and kinks < 2 * (2 + 3)
    return _identity_cx(CLAIM_D2, "d2_folded_dead_unit", res, plain,
                        {"index_sets": [[list(s) for s in S1], [list(s) for s in S2]],
                         "block1_homeomorphism": not not_homeo, "kink_rays": kinks,
                         "expected_if_generic": 2 * (2 + 3)}, holds)


def _d1_random() -> list[Layer]:
    return [_L([[Q(3, 2)], [Q(-1, 2)]], [[Q(1, 3), Q(5, 4)]]), _L([[Q(-2)], [Q(1)]], [[Q(1, 2), Q(-1, 5)]])]


def d1_plain_form(res: list[Layer]) -> list[Layer]:
    """d = 1: F = a relu(x) - b relu(-x) with a = F(1), b = -F(-1) is the plain stack
    (a relu(y) - b relu(-y)) o (relu(x) - relu(-x)) of widths (2, 2)."""
    a = eval_stack(res, [Q(1)], True)[0]
    b = -eval_stack(res, [Q(-1)], True)[0]
    return [_L([[1], [-1]], [[1, -1]]), ([[Q(1)], [Q(-1)]], [[a, -b]])]


@counterexample(claims=(CLAIM_DIM,), dropped="rank_certified",
                description="d = 1: every positively homogeneous map is a width-2 block, so every residual "
                            "stack of widths (2, 2) is a plain stack of widths (2, 2); the Jacobian of "
                            "theta -> F_theta has rank <= 2 <= D_plain = 3, so no rank certificate exists")
def dimension_d1() -> Certificate:
    """Drop the rank certificate: in d = 1 residual stacks are plain, and the rank stays low."""
    res = _d1_random()
    plain = d1_plain_form(res)
    rc = rank_certificate(res, seed=7)
    low = rc["rank"] <= 2 and rc["D_plain"] == 3 and not rc["certified"]
    return _identity_cx(CLAIM_DIM, "dimension_d1", res, plain, {"rank": rc["rank"], "D_plain": rc["D_plain"],
                                                                "points": rc["points"]}, low)


def _width_deficient() -> tuple[QMat, QMat]:
    U = qmat([[1, 0, 0], [0, 1, 0], [1, 1, 0]])
    W = qmat([[1, Q(1, 2), 0], [0, 1, Q(1, 3)], [Q(1, 4), 0, 1]])
    return U, W


@counterexample(claims=(CLAIM_WIDTH,), dropped="rows_span",
                description="d = 3, one block with rows e1, e2, e1 + e2 (rank 2 < min(m, d) = 3): the "
                            "exact minimal relu width of x + B(x) is m + 2d - rank = 7 > max(m + d, 2d) = 6")
def width_rank_deficient() -> Certificate:
    """Drop rank W_up = min(m, d): the width max(m + d, 2d) no longer suffices (L = 1)."""
    U, W = _width_deficient()
    lb = lower_bound_table(U, W)
    per = width_construction([(U, W)])[0]
    holds = lb["all_invertible"] and 3 + lb["C"] == 7 and per["width"] == 7 and per["canonical_equal"] \
        and nondegenerate(U, W) and qrank(U) == 2
    data = {"kind": "width_rank_deficient", "W_up": smat(U), "W_down": smat(W), "C": lb["C"],
            "all_invertible": lb["all_invertible"], "minimal_width": 3 + lb["C"],
            "construction": {"W_up": per["W_up"], "W_down": per["W_down"]}}
    return Certificate(CLAIM_WIDTH, holds, True, "exact rationals (absorption-width lower-bound table)", data,
                       "" if holds else "boundary facts failed")


DEPTH_BOUNDARY = [narrow_singular_piece, narrow_d1_fold, d2_folded_dead_unit, dimension_d1,
                  width_rank_deficient]


@safe_recheck
def recheck_depth_counterexample(cert: dict[str, Any]) -> bool:
    """Re-verify one of the depth boundary certificates from its data alone."""
    data = cert["data"]
    kind = data["kind"]
    if kind == "width_rank_deficient":
        U, W = qmat(data["W_up"]), qmat(data["W_down"])
        lb = lower_bound_table(U, W)
        up, down = qmat(data["construction"]["W_up"]), qmat(data["construction"]["W_down"])
        return (qrank(U) < min(len(U), len(W)) and lb["all_invertible"] and nondegenerate(U, W)
                and len(U) + lb["C"] > max(len(U) + len(W), 2 * len(W))
                and canonical_form(U, W, identity(len(W))) == canonical_form(up, down))
    res, plain = layers_from_json(data["residual"]), layers_from_json(data["plain"])
    if not stacks_equal(res, plain)[0]:
        return False
    if [len(U) for U, _ in res] != [len(U) for U, _ in plain] and kind != "narrow_singular_piece":
        return False
    d = len(res[0][1])
    if kind == "narrow_singular_piece":
        U, W = res[0]
        return len(plain[0][0]) <= d and not pieces_certificate(U, W)["ok"]
    if kind == "narrow_d1_fold":
        return all(pieces_certificate(U, W)["ok"] for U, W in res) and not nondegenerate(*res[0]) \
            and narrow_part(d, [len(U) for U, _ in res], [len(U) for U, _ in plain]) == "c"
    if kind == "d2_folded_dead_unit":
        I2 = identity(2)
        return (not homeo_certificate(*res[0])["ok"] and all_index_sets_exact(*res[1], I2) == []
                and all(nondegenerate(U, W) for U, W in res))
    if kind == "dimension_d1":
        rc = rank_certificate(res, seed=7)
        return d == 1 and not rc["certified"]
    return False
