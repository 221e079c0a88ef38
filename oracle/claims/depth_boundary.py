"""Boundary counterexamples of depth-narrow, depth-d2, depth-dimension and depth-width: each drops one
hypothesis, and the conclusion really fails on an explicit stack, verified in exact rationals
(identities of stacks proved on every candidate ray: oracle/algebra/stacks/planar.py).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from oracle.core.rational import QMat, qmat, smat, svec
from oracle.algebra.exact import all_index_sets_exact, identity, safe_recheck
from oracle.algebra.stacks.layers import (Layer, canonical_form, eval_stack, layers_from_json,
                                          layers_to_json, nondegenerate, piece, qdet, qrank)
from oracle.algebra.stacks.narrow import narrow_part, pieces_certificate
from oracle.algebra.stacks.planar import homeo_certificate, kink_rays, stacks_equal
from oracle.algebra.stacks.rank import rank_certificate
from oracle.claims.absorption_width import lower_bound_table
from oracle.claims.base import Certificate, counterexample
from oracle.claims.depth_stacks import CLAIM_D2, CLAIM_DIM, CLAIM_NARROW, CLAIM_WIDTH, width_construction

Q = Fraction


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


def narrow_singular_stacks() -> tuple[list[Layer], list[Layer]]:
    """d = 2, W_up = I, W_down = -I twice, and the plain stack (-relu(-x)) o (-relu(-x))."""
    I2 = identity(2)
    blk = (I2, _neg(I2))
    return [blk, blk], [(_neg(I2), _neg(I2))] * 2


@counterexample(claims=(CLAIM_NARROW,), dropped="pieces_invertible",
                description="d = 2, two blocks W_up = I, W_down = -I: the piece with both units active "
                            "is 0, and the stack equals the plain stack (-relu(-x)) o (-relu(-x)) of "
                            "widths (2, 2), first width <= d")
def narrow_singular_piece() -> Certificate:
    """Drop invertible pieces: a residual stack equal to a plain stack of narrow first width."""
    res, plain = narrow_singular_stacks()
    U, W = res[0]
    singular = qdet(piece(U, W, [0, 1])) == 0
    return _identity_cx(CLAIM_NARROW, "narrow_singular_piece", res, plain,
                        {"singular_piece": [0, 1], "plain_widths": [2, 2]}, singular)


def d1_fold_stacks() -> tuple[list[Layer], list[Layer]]:
    """d = 1: x + relu(x) + 3 relu(-x) then the identity layer, and the plain stack 4|x|."""
    res = [_L([[1], [-1]], [[1, 3]]), _L([[1]], [[1]])]
    plain = [_L([[1], [-1]], [[4, 4]]), _L([[1]], [[1]])]
    return res, plain


@counterexample(claims=(CLAIM_NARROW,), dropped="nondegenerate",
                description="d = 1 (rows 1 and -1 are collinear): x + relu(x) + 3 relu(-x) = 2|x| folds "
                            "R onto [0, oo), every piece is invertible, and F = 4|x| is the plain stack "
                            "relu o (4 relu(x) + 4 relu(-x)) of widths (2, 1), last width d")
def narrow_d1_fold() -> Certificate:
    """Drop nondegeneracy in part (c): a folding d = 1 stack with invertible pieces is plain."""
    res, plain = d1_fold_stacks()
    pieces_ok = all(pieces_certificate(U, W)["ok"] for U, W in res)
    degenerate = not nondegenerate(*res[0])
    part = narrow_part(1, [2, 1], [2, 1])
    return _identity_cx(CLAIM_NARROW, "narrow_d1_fold", res, plain,
                        {"pieces_invertible": pieces_ok, "block1_nondegenerate": not degenerate,
                         "part": part}, pieces_ok and degenerate and part == "c")


def d2_fold_stacks() -> tuple[list[Layer], list[Layer]]:
    """d = 2: a folding first block (-relu(-x)) and a second block with a dead unit, and its plain stack."""
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
    res, plain = d2_fold_stacks()
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


def d1_random_layers() -> list[Layer]:
    """A d = 1 residual stack of widths (2, 2) with rational weights."""
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
    res = d1_random_layers()
    plain = d1_plain_form(res)
    rc = rank_certificate(res, seed=7)
    low = rc["rank"] <= 2 and rc["D_plain"] == 3 and not rc["certified"]
    return _identity_cx(CLAIM_DIM, "dimension_d1", res, plain, {"rank": rc["rank"], "D_plain": rc["D_plain"],
                                                                "points": rc["points"]}, low)


def width_deficient_block() -> tuple[QMat, QMat]:
    """d = 3: rows e1, e2, e1 + e2 (rank 2) and a W_down with invertible pieces."""
    U = qmat([[1, 0, 0], [0, 1, 0], [1, 1, 0]])
    W = qmat([[1, Q(1, 2), 0], [0, 1, Q(1, 3)], [Q(1, 4), 0, 1]])
    return U, W


@counterexample(claims=(CLAIM_WIDTH,), dropped="rows_span",
                description="d = 3, one block with rows e1, e2, e1 + e2 (rank 2 < min(m, d) = 3): the "
                            "exact minimal relu width of x + B(x) is m + 2d - rank = 7 > max(m + d, 2d) = 6")
def width_rank_deficient() -> Certificate:
    """Drop rank W_up = min(m, d): the width max(m + d, 2d) no longer suffices (L = 1)."""
    U, W = width_deficient_block()
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

