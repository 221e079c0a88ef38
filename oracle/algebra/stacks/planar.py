"""Exact ray geometry of relu stacks in the plane (d = 2), and depth-d2's hypotheses.

A positively homogeneous map of R^2 that is linear on each sector between consecutive rays (every
sector of angle < pi) is determined by its values on those rays; the stacks here are such maps, so
comparing them on their candidate rays is a proof of equality on all of R^2, not a sample
(proofs/informal/depth-d2.md).  Also: kink rays, the winding test that x -> x + B(x) is a
homeomorphism, preimages of rays, and every hypothesis of depth-d2 decided exactly.
"""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction
from typing import Any, Optional, Sequence

from oracle.core.rational import QMat, QVec, svec
from oracle.algebra.exact import all_index_sets_exact, identity, matmul
from oracle.algebra.stacks.layers import Layer, apply_layer, eval_stack, nondegenerate
from oracle.algebra.stacks.narrow import pieces_certificate

Q = Fraction


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


def rot90(v: QVec) -> QVec:
    """v turned by a quarter turn counterclockwise."""
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
    l1 = [r for u in U1 for r in (rot90(u), [-v for v in rot90(u)])]
    h3 = all(_dot(u2, G(r)) != 0 for r in l1 for u2 in U2)
    out["layer1_rays"] = [svec(r) for r in l1]
    out["h3_layer1_images_off_layer2_lines"] = h3
    ok = ok and h3
    l2: list[QVec] = []
    if ok:
        targets = [s for u2 in U2 for s in (rot90(u2), [-v for v in rot90(u2)])]
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

