"""Exact decisions for biased blocks of the "impossible" families (claims relu2-biased, gated-biased).

``decide_biased(block)`` handles relu2, reglu, swiglu, geglu, geglu_tanh and glu blocks (biases
allowed, any d >= 1, any M) and returns the verdict dict of oracle/decide/relu.py:

    {"verdict", "claim", "exact", "reason", "certificate", "plain"}

* A flip set S (proofs/informal/relu2-biased.md, gated-biased.md (A)) always gives absorbability:
  the flipped block with b_down + c_S equals x -> M x + B(x); the flip condition is verified exactly
  and the emitted block is compared with the residual block at sample points (exact rationals for
  relu2 and reglu, arb balls otherwise).
* For blocks meeting the hypotheses of part (B) (distinct kink hyperplanes / gate classes, nonzero
  units) the absence of a flip set, decided exactly, gives "not_absorbable".
* Degenerate relu2 blocks go through the class sums of relu2-biased (C): decided exactly with one
  spare unit or in d = 1, absorbable whenever a k = 0 solution exists, undecided otherwise.
* Degenerate gated blocks: absorbable when a flip set of the units exists, or when zero units can be
  replaced by zero-gate-row units carrying the linear map N_S = M + L_S left by a set S whose quadratic
  parts cancel (gated-biased.md (C)); otherwise undecided.

``recheck_biased(block, cert)`` re-verifies a certificate from the block and the certificate alone.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any, Optional

import numpy as np

from oracle.core.rational import (arb, fmpq, fmpq_mat, float_nearest, float_up, qmat, qvec, rounding_errors,
                                  to_arb, to_fmpq, to_fraction)

from oracle.algebra import flips, search
from oracle.algebra.affine import (GATE_PREC, gate_value, k0_exhausted, relu2_affine, gated_affine,
                                   gated_affine_outcome, relu2_part_d)
from oracle.algebra.exact import ball_abs_upper, balls_agree, derived_property, eval_ball
from oracle.algebra.construct import flip_block, spot_points, verify_equal_at_points
from oracle.core import activations, arith
from oracle.core.progress import Progress, quiet
from oracle.core.blocks import Block
from oracle.core.errors import InputError

RELU2_CLAIM = "relu2-biased"
GATED_CLAIM = "gated-biased"


def claim_of(activation: str) -> str:
    """relu2-biased for s(z) + s(-z) = z^2 (ungated), gated-biased for the gates."""
    return RELU2_CLAIM if activation in activations.SQUARE_FLIP else GATED_CLAIM


def _verdict(verdict: str, claim: str, exact: bool, reason: str, cert: dict[str, Any],
             plain: Optional[Block] = None) -> dict[str, Any]:
    cert["outcome"] = verdict
    return {"verdict": verdict, "claim": claim, "exact": exact, "reason": reason,
            "certificate": cert, "plain": plain}


# the identity each flip kind rests on: (catalog property, the identity in words)
_FLIP_IDENTITY = {flips.SQUARE: ("square_flip", "s(z) + s(-z) = z^2"),
                  flips.ODD_GATE: ("odd_part_identity", "g(z) - g(-z) = z"),
                  flips.FLIP_GATE: ("flip_symmetry", "g(z) + g(-z) = 1")}


@functools.lru_cache(maxsize=None)
def gate_properties(activation: str) -> dict[str, Any]:
    """The identity the flip rests on, re-derived by the activation catalog (sympy where it
    decides, else 60 digits): s(z) + s(-z) = z^2, g(z) - g(-z) = z or g(z) + g(-z) = 1."""
    prop, identity = _FLIP_IDENTITY[flips.flip_kind(activation)]
    ok, method = derived_property(activation, prop)
    return {"identity": identity, "verified": bool(ok), "method": f"activation catalog ({method})"}


def block_flip_data(block: Block) -> flips.FlipData:
    kind = flips.flip_kind(block.activation)
    return flips.flip_data(kind, block.W_up, block.W_down, block.M, b_up=block.b_up,
                           W_gate=block.W_gate, b_gate=block.b_gate)


def flip_block_info(block: Block) -> dict[str, Any]:
    return {"activation": block.activation, "d": block.d, "m": block.m,
            "M": "identity" if block.M is None else "given",
            "biases": [n for n in ("b_up", "b_gate", "b_down") if getattr(block, n) is not None
                       and np.any(getattr(block, n) != 0)]}



# ---------------------------------------------------------------- the flipped block

def flipped_block(block: Block, fd: flips.FlipData, S: list[int]) -> tuple[Block, dict[str, Any]]:
    """The block of part (A) for the flip set S, with b_down + c_S (exact value in the note)."""
    S_arr = np.asarray(sorted(S), dtype=np.int64)
    _, _, const = flips.flip_residual(fd, S)
    base = [fmpq(0)] * block.d if block.b_down is None else [to_fmpq(v) for v in block.b_down]
    want = [to_fraction(b + c) for b, c in zip(base, const)]
    with np.errstate(over="ignore"):
        b_down = np.array([float_nearest(v) for v in want])
    if not np.all(np.isfinite(b_down)):
        raise InputError("the corrected b_down = b_down + c_S overflows float64; no float64 block file can "
                         "hold the replacing block")
    err = [abs(v - Fraction(float(f))) for v, f in zip(want, b_down)]
    W_up, W_down = block.W_up.copy(), block.W_down.copy()
    W_gate = None if block.W_gate is None else block.W_gate.copy()
    b_up = None if block.b_up is None else block.b_up.copy()
    b_gate = None if block.b_gate is None else block.b_gate.copy()
    if fd.kind == flips.SQUARE:
        W_up[S_arr] = 0.0 - W_up[S_arr]  # 0.0 - x: no negative zeros in the emitted file
        W_down[:, S_arr] = 0.0 - W_down[:, S_arr]
        if b_up is not None:
            b_up[S_arr] = 0.0 - b_up[S_arr]
        what = "units in S flipped: rows of W_up, b_up entries and W_down columns negated; b_down + c_S"
    else:
        W_gate[S_arr] = 0.0 - W_gate[S_arr]
        if b_gate is not None:
            b_gate[S_arr] = 0.0 - b_gate[S_arr]
        what = "gate rows and gate biases in S negated"
        if fd.kind == flips.FLIP_GATE:
            W_down[:, S_arr] = 0.0 - W_down[:, S_arr]
            what += ", their output columns negated"
        what += "; b_down + c_S"
    plain = Block(block.activation, W_up=W_up, W_down=W_down, W_gate=W_gate, b_up=b_up, b_gate=b_gate,
                  b_down=b_down if np.any(b_down != 0) else None, kind="plain")
    rounded = any(e != 0 for e in err)
    note: dict[str, Any] = {"c_S": [str(to_fraction(c)) for c in const[:16]], "b_down_rounded": rounded,
                            "construction": what}
    if rounded:
        note["b_down_exact"] = [str(v) for v in want]
        note["b_down_max_rounding_error"] = float_up(max(err))
    return plain, note


def spot_check(block: Block, plain: Block, note: dict[str, Any]) -> dict[str, Any]:
    """The flipped block against the residual block at fixed sample points (seed 20): exact rationals
    when the activation has an exact form, arb balls otherwise.  Deterministic, so the document
    re-check (oracle/decide/document.py) measures it again and compares."""
    offset = None
    if note.get("b_down_rounded"):
        offset = [Fraction(v) - Fraction(float(f)) for v, f in zip(note["b_down_exact"], plain.b_down)]
    rng = np.random.default_rng(20)
    big = block.m * block.d >= 200_000
    if block.act.exact is not None:
        pts = spot_points(block.d, rng, n_random=2 if big else 5, n_basis=1 if big else 3)
        return verify_equal_at_points(block, plain, pts, "exact", offset)
    pts = spot_points(block.d, rng, n_random=1 if big else 3, n_basis=1 if big else 2)
    return verify_equal_at_points(block, plain, pts, "ball", offset)


def flip_emitted_record(note: dict[str, Any], check: dict[str, Any]) -> dict[str, Any]:
    """The emitted-block record of a part (A) flip: only b_down can need rounding (``note`` from
    flipped_block or flip_block, ``check`` the spot check the note on the check describes)."""
    rounded = bool(note.get("b_down_rounded"))
    return {"exact": not rounded, "rounded": ["b_down"] if rounded else [],
            "max_entry_error": {"b_down": note["b_down_max_rounding_error"]} if rounded else {},
            "construction": note["construction"],
            "check": ("flip condition verified exactly (proved identity of part (A)); spot check of the "
                      f"emitted block at {check.get('points')} points ({check['backend']})"
                      + ("; the file holds b_down rounded, compared with the exact value" if rounded else ""))}


# ---------------------------------------------------------------- decision

def decide_biased(block: Block, progress: Progress = quiet) -> dict[str, Any]:
    """Decide a residual block whose activation has flip sets (the catalog's BIASED_FLIP: relu2,
    reglu, swiglu, geglu, geglu_tanh, glu), biases allowed.  "not_absorbable" needs part (B) (or
    relu2-biased (C)), proved for the members of BIASED_FLIP_NECESSITY only: for any other member
    such an outcome is reported as undecided."""
    if block.activation not in activations.BIASED_FLIP:
        raise ValueError(f"decide_biased does not handle {block.activation!r}")
    if block.kind != "residual":
        raise ValueError("decide_biased needs a residual block")
    r = _decide_biased(block, progress)
    if r["verdict"] == "not_absorbable" and block.activation not in activations.BIASED_FLIP_NECESSITY:
        r = _verdict("undecided", r["claim"], False,
                     f"{r['reason']}; but the necessity of a flip set is proved for "
                     f"{', '.join(activations.BIASED_FLIP_NECESSITY)} only, not for {block.activation}",
                     r["certificate"])
    return r


def _decide_biased(block: Block, progress: Progress) -> dict[str, Any]:
    claim = claim_of(block.activation)
    props = gate_properties(block.activation)
    cert: dict[str, Any] = {"kind": "biased_flip", "claim": claim, "block": flip_block_info(block),
                            "activation_property": props}
    if not props["verified"]:
        return _verdict("undecided", claim, False, f"the identity {props['identity']} could not be re-derived",
                        cert)
    if block.activation in activations.FLIP_GATES:
        return _decide_glu(block, cert, progress)
    progress("exact flip data and nondegeneracy")
    fd = block_flip_data(block)
    nd = flips.flip_nondegeneracy(fd, block.activation)
    cert["nondegeneracy"] = nd
    progress("flip-set search (compressed exact 0/1 solve)")
    res = flips.find_flip_set(fd)
    cert["search"] = {"status": res.status, "method": res.method, **res.certificate}
    if res.status == "found":
        return _absorbable_by_flip(block, fd, res.S, cert, claim)
    if nd["nondegenerate"] and res.status == "none":
        hyp = "distinct kink hyperplanes" if block.activation in activations.HOMOGENEOUS else "distinct gate classes"
        return _verdict("not_absorbable", claim, True,
                        f"no flip set: {res.method}; every unit is nonzero with {hyp}, so by {claim} (B) no "
                        f"{block.activation} block of width {block.m}, with or without biases, equals "
                        "x -> Mx + B(x)", cert)
    if nd["nondegenerate"]:
        return _verdict("undecided", claim, False,
                        f"the flip-set search was inconclusive ({res.certificate.get('reason', res.method)})", cert)
    if block.activation in activations.SQUARE_FLIP:
        return _decide_relu2_classes(block, fd, cert)
    padded = _padded_construction(block, fd, cert)  # exact emitted block where it applies
    if padded is not None:
        return padded
    affine = decide_gated_affine(block, "allowed")
    if affine is not None and affine["verdict"] != "undecided":
        return affine
    return _verdict("undecided", claim, False,
                    ("no flip set of the units" if res.status == "none" else "flip-set search inconclusive")
                    + "; the block is degenerate (zero gate rows, zero units or repeated gate classes: "
                    + _defects(nd) + "), outside gated-biased (B); degenerate gated blocks are decided only when a flip "
                    "set exists or zero units can carry the remaining linear map", cert)


def _defects(nd: dict[str, Any]) -> str:
    parts = []
    if nd["zero_rows"]:
        parts.append(f"zero rows {nd['zero_rows']}")
    if nd["zero_units"]:
        parts.append(f"zero units {nd['zero_units']}")
    if nd["repeated_classes"]:
        parts.append(f"repeated classes {nd['repeated_classes']}")
    return ", ".join(parts)


def _absorbable_by_flip(block: Block, fd: flips.FlipData, S: list[int], cert: dict[str, Any],
                        claim: str) -> dict[str, Any]:
    if not flips.verify_flip_set(fd, S):  # pragma: no cover - find_flip_set verifies
        raise RuntimeError("flip set fails the exact check")
    plain, note = flipped_block(block, fd, S)
    chk = spot_check(block, plain, note)
    if not chk["agree"]:  # pragma: no cover - would contradict part (A)
        raise RuntimeError(f"flipped block differs from the residual block: {chk}")
    rec = flip_emitted_record(note, chk)
    cert.update({"S": sorted(S), "size": len(S), **note, "spot_check": chk, "emitted_block": rec,
                 "emitted_block_exact": rec["exact"], "part": "A"})
    poly = {flips.SQUARE: "w_i (u_i.x + b_i)^2", flips.FLIP_GATE: "w_i (u_i.x + e_i)",
            flips.ODD_GATE: "w_i (a_i.x + c_i)(u_i.x + e_i)"}[fd.kind]
    reason = (f"flip set S of size {len(S)}: the removed polynomials {poly} over S sum to -Mx + c_S exactly; "
              f"by {claim} (A) the flipped block with b_down + c_S equals x -> Mx + B(x) for every x")
    if rec["rounded"]:
        reason += (f"; b_down + c_S is not a float64: the emitted file holds it rounded (error at most "
                   f"{note['b_down_max_rounding_error']:.3g} per entry)")
    return _verdict("absorbable", claim, True, reason, cert, plain)


# what a glu flip of part (A) emits (the note of flip_block, with the gate's wording)
GLU_CONSTRUCTION = "gate rows and gate biases in S negated, their output columns negated; b_down + W_S b_up[S]"


def _decide_glu(block: Block, cert: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """glu: the flip condition is the index condition W_S U_S = -M of the value rows."""
    fd = block_flip_data(block)
    nd = flips.flip_nondegeneracy(fd, block.activation)
    cert["nondegeneracy"] = nd
    progress("index-set search on the value rows")
    res = search.find_index_set(block.W_up, block.W_down, block.M)
    cert["search"] = {"status": res.status, "method": res.method, "exact": res.exact,
                      **search.jsonable(res.certificate)}
    if res.status == "found":
        S = sorted(int(i) for i in res.S)
        plain, note = flip_block(block.without_skip(), S)
        note["construction"] = GLU_CONSTRUCTION
        chk = spot_check(block, plain, note)
        if not chk["agree"]:  # pragma: no cover
            raise RuntimeError(f"flipped block differs from the residual block: {chk}")
        rec = flip_emitted_record(note, chk)
        cert.update({"S": S, "size": len(S), "spot_check": chk, "emitted_block": rec,
                     "emitted_block_exact": rec["exact"], "part": "A",
                     **{k: v for k, v in note.items() if k != "construction"}})
        reason = (f"index set S of size {len(S)} with W_down[:,S] W_up[S,:] = -M exactly; since g(z) + g(-z) = 1, "
                  "flipping the gate rows and biases in S and negating their output columns gives x -> Mx + B(x) "
                  "(gated-biased (A); glu-flip when bias-free)")
        return _verdict("absorbable", GATED_CLAIM, True, reason, cert, plain)
    if res.status == "none" and nd["nondegenerate"]:
        return _verdict("not_absorbable", GATED_CLAIM, bool(res.exact),
                        f"no index set S gives W_down[:,S] W_up[S,:] = -M ({res.method}); every unit is nonzero "
                        "with distinct gate classes +-(gate row, gate bias), so by gated-biased (B) no glu block of "
                        "the same width, with or without biases, equals x -> Mx + B(x)", cert)
    if not nd["nondegenerate"]:
        padded = _padded_construction(block, fd, cert)  # exact emitted block where it applies
        if padded is not None:
            return padded
        affine = decide_gated_affine(block, "allowed")
        if affine is not None and affine["verdict"] != "undecided":
            return affine
    if res.status == "none":
        return _verdict("undecided", GATED_CLAIM, False,
                        "no index set, but the block is degenerate (" + _defects(nd) + "): gated-biased (B) needs "
                        "distinct gate classes and nonzero units", cert)
    return _verdict("undecided", GATED_CLAIM, False, f"the index-set search was inconclusive ({res.method})", cert)


def _decide_relu2_classes(block: Block, fd: flips.FlipData, cert: dict[str, Any]) -> dict[str, Any]:
    """Degenerate relu2 blocks: the class sums of relu2-biased (C)."""
    r = flips.relu2_decide_classes(fd)
    cl, plan = r.pop("classes_obj"), r.pop("plan")
    cert["classes"] = r
    cert["part"] = "C"
    if r["status"] == "none":
        return _verdict("not_absorbable", RELU2_CLAIM, True,
                        f"degenerate relu2 block ({_defects(cert['nondegeneracy'])}): {r['active_classes']} kink "
                        "hyperplanes carry relu2 terms, "
                        f"{r['spare_units']} spare unit(s); {r['reason']}: by relu2-biased (C) no relu2 block of "
                        f"width {block.m} equals x -> Mx + B(x)", cert)
    if r["status"] == "inconclusive":
        sharper = _decide_relu2_part_d(block, fd, cert, r, cl)
        if sharper is not None:
            return sharper
        return _verdict("undecided", RELU2_CLAIM, False,
                        f"degenerate relu2 block ({_defects(cert['nondegeneracy'])}), no flip set of its units: "
                        f"{r['reason']}", cert)
    plain, rec = relu2_plan_plain(block, fd, cl, plan)
    cert["emitted_block"] = rec
    cert["emitted_block_exact"] = rec["exact"]
    cert["plan"] = {"E": plan.E, "T": plan.T, "squares": len(plan.squares)}
    reason = (f"degenerate relu2 block ({_defects(cert['nondegeneracy'])}) without a flip set of its units; class "
              f"sums of relu2-biased (C) over {r['active_classes']} active kink hyperplanes with {r['spare_units']} "
              f"spare unit(s): {r['reason']}; the constructed block equals x -> Mx + B(x) exactly (class forms "
              "compared in rationals)")
    if rec["rounded"]:
        reason += f"; the emitted file holds {', '.join(rec['rounded'])} rounded to float64"
    return _verdict("absorbable", RELU2_CLAIM, True, reason, cert, plain)


def relu2_plan_plain(block: Block, fd: flips.FlipData, cl: Any, plan: Any) -> tuple[Block, dict[str, Any]]:
    """The float64 block of a class plan, verified exactly (before rounding) through the class forms."""
    d = block.d
    rows, bs, cols = flips.relu2_plan_block(fd, cl, plan, block.m)
    # b_down: the constants of F and of the units must agree: compare at x = 0
    units_F = [(fd.U[i], fd.b[i], fd.col(i)) for i in range(fd.m)]
    bdF = [fmpq(0)] * d if block.b_down is None else [to_fmpq(v) for v in block.b_down]
    _, polyF = flips.relu2_form(units_F, fd.M, bdF, d)
    _, polyP0 = flips.relu2_form(list(zip(rows, bs, cols)), None, [fmpq(0)] * d, d)
    bd = [polyF[o][-1] - polyP0[o][-1] for o in range(d)]
    if flips.relu2_form(units_F, fd.M, bdF, d) != flips.relu2_form(list(zip(rows, bs, cols)), None, bd, d):
        raise RuntimeError("relu2 class construction differs from the residual block")  # pragma: no cover
    exact = {"W_up": [to_fraction(v) for r in rows for v in r], "b_up": [to_fraction(v) for v in bs],
             "W_down": [to_fraction(cols[j][a]) for a in range(d) for j in range(len(rows))], "b_down": [to_fraction(v) for v in bd]}
    with np.errstate(over="ignore"):
        arrs = {"W_up": np.array([float_nearest(v) for v in exact["W_up"]]).reshape(len(rows), d),
                "b_up": np.array([float_nearest(v) for v in exact["b_up"]]),
                "W_down": np.array([float_nearest(v) for v in exact["W_down"]]).reshape(d, len(rows)),
                "b_down": np.array([float_nearest(v) for v in exact["b_down"]])}
    if not all(np.all(np.isfinite(a)) for a in arrs.values()):
        raise InputError("the constructed relu2 block has entries beyond the float64 range")
    rounded, err = rounding_errors(exact, arrs)
    plain = Block(block.activation, W_up=arrs["W_up"], W_down=arrs["W_down"], b_up=arrs["b_up"],
                  b_down=arrs["b_down"] if np.any(arrs["b_down"] != 0) else None, kind="plain")
    rec = {"exact": not rounded, "rounded": rounded, "max_entry_error": err,
           "construction": "relu2-biased (C): one unit per active kink hyperplane (flipped on E), two on T, "
                           "pairs on new kink hyperplanes for the squares, b_down from the constants",
           "check": "equal to the residual block: the class forms (relu2-biased Lemma 1) agree in exact rationals"
                    + ("; the file holds the rounded values" if rounded else "")}
    return plain, rec


# ---------------------------------------------------------------- degenerate gated blocks: padding

def _zero_units(fd: flips.FlipData) -> list[int]:
    """Units that compute 0: output column 0 or value map 0."""
    return [i for i in range(fd.m) if all(v == 0 for v in fd.col(i))
            or (all(v == 0 for v in fd.U[i]) and fd.b[i] == 0)]


def _restrict(fd: flips.FlipData, keep: list[int], quadratic_only: bool = False) -> flips.FlipData:
    z = fmpq(0)
    return flips.FlipData(fd.kind, fd.d, len(keep), [fd.U[i] for i in keep],
                          [z if quadratic_only else fd.b[i] for i in keep],
                          [[row[i] for i in keep] for row in fd.W],
                          [[z] * fd.d for _ in range(fd.d)] if quadratic_only else fd.M,
                          None if fd.G is None else [fd.G[i] for i in keep],
                          None if fd.c is None else [z if quadratic_only else fd.c[i] for i in keep])


def _linear_part(fd: flips.FlipData, S: list[int]) -> fmpq_mat:
    """N_S = M + sum_{i in S} w_i (c_i u_i + e_i a_i)^T (the linear part the padding must produce)."""
    d = fd.d
    N = fmpq_mat(d, d, [v for row in fd.M for v in row])
    for i in S:
        p, q, s, t = flips.unit_factors(fd, i)
        w = fd.col(i)
        for o in range(d):
            if w[o] != 0:
                for a in range(d):
                    N[o, a] += w[o] * (s * q[a] + t * p[a])
    return N


def padding_units(activation: str) -> tuple[list[tuple[Fraction, Fraction]], str]:
    """How zero-gate-row units carry a rank-one term v l^T: a list of (gate bias c, output scale)
    whose units c-gate * (l . x) * scale * v sum to v l^T, and the identity that makes them do so.
    g(z) + g(-z) = 1 gives g(0) = 1/2: one unit (0, 2).  A gate with an exact form and g(1) != 0
    (relu): one unit (1, 1/g(1)).  Otherwise g(1) - g(-1) = 1 (g(z) - g(-z) = z): (1, 1), (-1, -1)."""
    act = activations.get(activation)
    if act.flip_symmetry:
        return [(Fraction(0), Fraction(2))], "g(0) = 1/2, from g(z) + g(-z) = 1"
    if act.exact is not None and act.exact(Fraction(1)) != 0:
        g1 = act.exact(Fraction(1))
        return [(Fraction(1), 1 / g1)], f"g(1) = {g1} exactly"
    return [(Fraction(1), Fraction(1)), (Fraction(-1), Fraction(-1))], "g(1) - g(-1) = 1"


def _padded_construction(block: Block, fd: flips.FlipData, cert: dict[str, Any]) -> Optional[dict[str, Any]]:
    """gated-biased (A) for the units that compute something, plus zero-gate-row units in the slots of
    the zero units carrying the remaining linear map N_S = M + L_S (rank rho): per rank one unit for
    reglu (relu(1) = 1) and glu (g(0) = 1/2), two for the other gates (g(1) - g(-1) = 1), as
    padding_units says.  Needs (Q) for S and per_rank * rho <= number of zero units.  None when no
    such S is found among the candidates."""
    zero = _zero_units(fd)
    if not zero:
        return None
    keep = [i for i in range(fd.m) if i not in zero]
    pad, pad_identity = padding_units(block.activation)
    per_rank = len(pad)
    budget = len(zero) // per_rank
    sub = _restrict(fd, keep)
    cands: list[list[int]] = [[]]
    if fd.kind != flips.FLIP_GATE and keep and len(keep) <= flips.MAX_SOLVE_UNITS:
        V, t = flips.compressed_system(_restrict(fd, keep, quadratic_only=True))
        status, sols, _ = flips.solve01(V, t, flips.MAX_FREE)
        cands += [s for s in sols if s]
    best = None
    for S in cands:
        qz, _, const = flips.flip_residual(sub, S)
        if not qz:
            continue
        N = _linear_part(sub, S)
        rho = N.rank()
        if rho <= budget and (best is None or rho < best[1]):
            best = (S, rho, N, const)
    if best is None:
        return None
    S_sub, rho, N, const = best
    S = [keep[i] for i in S_sub]
    d = block.d
    # rank factorisation N = C R (R: the nonzero rows of the reduced echelon form, C: pivot columns of N)
    R, rk = N.rref()
    piv = [next(c for c in range(d) if R[r, c] != 0) for r in range(rk)]
    pads = [([N[o, piv[q]] for o in range(d)], [R[q, a] for a in range(d)]) for q in range(rk)]
    check = fmpq_mat(d, d)
    for v, l in pads:
        for o in range(d):
            for a in range(d):
                check[o, a] += v[o] * l[a]
    if check != N:  # pragma: no cover - the factorisation is exact
        raise RuntimeError("rank factorisation failed")
    # the exact replacing block: kept units (gate rows and biases negated on S; glu: outputs too) ...
    G = [list(fd.G[i]) for i in range(fd.m)]
    c = list(fd.c)
    U = [list(fd.U[i]) for i in range(fd.m)]
    e = list(fd.b)
    W = [list(row) for row in fd.W]
    for i in S:
        G[i] = [-v for v in G[i]]
        c[i] = -c[i]
        if fd.kind == flips.FLIP_GATE:
            for o in range(d):
                W[o][i] = -W[o][i]
    slots = list(zero)
    units = []  # (gate bias, value row, output column) of the padding, gate rows 0
    for v, l in pads:
        units += [(to_fmpq(cb), l, [to_fmpq(scale) * x for x in v]) for cb, scale in pad]
    for i in slots:  # every zero unit becomes a padding unit or an explicit zero unit
        G[i] = [fmpq(0)] * d
        U[i] = [fmpq(0)] * d
        e[i] = fmpq(0)
        c[i] = fmpq(0)
        for o in range(d):
            W[o][i] = fmpq(0)
    for (cb, l, v), i in zip(units, slots):
        c[i], U[i] = cb, list(l)
        for o in range(d):
            W[o][i] = v[o]
    base = [fmpq(0)] * d if block.b_down is None else [to_fmpq(x) for x in block.b_down]
    bd = [x + y for x, y in zip(base, const)]
    exact = {"W_gate": [to_fraction(v) for r in G for v in r], "b_gate": [to_fraction(v) for v in c],
             "W_up": [to_fraction(v) for r in U for v in r], "b_up": [to_fraction(v) for v in e],
             "W_down": [to_fraction(v) for r in W for v in r], "b_down": [to_fraction(v) for v in bd]}
    shapes = {"W_gate": (fd.m, d), "W_up": (fd.m, d), "W_down": (d, fd.m)}
    with np.errstate(over="ignore"):
        arrs = {k: np.array([float_nearest(v) for v in vals]).reshape(shapes.get(k, (-1,))) for k, vals in exact.items()}
    if not all(np.all(np.isfinite(a)) for a in arrs.values()):
        return None
    rounded, err = rounding_errors(exact, arrs)
    plain = Block(block.activation, W_up=arrs["W_up"], W_down=arrs["W_down"], W_gate=arrs["W_gate"],
                  b_up=arrs["b_up"], b_gate=arrs["b_gate"], b_down=arrs["b_down"], kind="plain")
    # evidence next to the exact algebra: the exact replacing block against F at sample points (balls)
    pts = spot_points(d, np.random.default_rng(21), n_random=3, n_basis=2)
    Mq = qmat(fd.M)
    Fq = lambda x: eval_ball(block.activation, qmat(fd.U), qmat(fd.W), x, M=Mq,  # noqa: E731
                             W_gate=qmat(fd.G), b_up=qvec(fd.b), b_gate=qvec(fd.c),
                             b_down=None if block.b_down is None else qvec(block.b_down))
    Pq = lambda x: eval_ball(block.activation, qmat(U), qmat(W), x, W_gate=qmat(G), b_up=qvec(e),  # noqa: E731
                             b_gate=qvec(c), b_down=qvec(bd))
    agree = all(balls_agree(Fq(x), Pq(x))[0] for x in pts)
    if not agree:  # pragma: no cover - would contradict part (A) and the padding identity
        raise RuntimeError("padded construction differs from the residual block")
    cert.update({"part": "A+padding", "S": sorted(S), "size": len(S), "zero_units": zero,
                 "padding": {"rank": rho, "units": len(units), "per_rank": per_rank},
                 "spot_check": {"agree": True, "backend": "ball", "points": len(pts)},
                 "emitted_block": {"exact": not rounded, "rounded": rounded, "max_entry_error": err,
                                   "construction": "units computing something flipped on S (gate rows and biases "
                                                   "negated), zero units replaced by zero-gate-row units carrying "
                                                   "N_S = M + L_S, b_down + c_S",
                                   "check": "exact algebra ((Q) for S, N_S = sum v l^T exactly) and the proved "
                                            "identities; arb-ball spot check of the exact block"
                                            + ("; the file holds rounded values" if rounded else "")}})
    cert["emitted_block_exact"] = not rounded
    reason = (f"degenerate {block.activation} block ({len(zero)} zero unit(s)): the other units flipped on S "
              f"(|S| = {len(S)}, quadratic parts cancel exactly) leave the linear map N_S = M + L_S of rank {rho}, "
              f"which {len(units)} zero-gate-row unit(s) in the zero units' slots produce exactly "
              f"({pad_identity}); "
              "by gated-biased (A) and that identity the block equals x -> Mx + B(x)")
    if rounded:
        reason += f"; the emitted file holds {', '.join(rounded)} rounded to float64"
    return _verdict("absorbable", GATED_CLAIM, True, reason, cert, plain)


# ---------------------------------------------------------------- re-checking

def recheck_biased(block: Block, cert: dict[str, Any]) -> bool:
    """Re-verify a decide_biased certificate from the block and the certificate alone."""
    try:
        if cert.get("kind") != "biased_flip" or block.activation not in activations.BIASED_FLIP:
            return False
        if cert.get("outcome") == "not_absorbable" and block.activation not in activations.BIASED_FLIP_NECESSITY:
            return False
        if cert.get("claim") != claim_of(block.activation) or not gate_properties(block.activation)["verified"]:
            return False
        fd = block_flip_data(block)
        nd = flips.flip_nondegeneracy(fd, block.activation)
        if nd["nondegenerate"] != cert["nondegeneracy"]["nondegenerate"]:
            return False
        s = cert["search"]
        # a stated compressed solve (its ranks, free variables, outcome) is re-derived whatever the part
        stated_solve_ok = (fd.kind == flips.FLIP_GATE or not isinstance(s, dict) or s.get("kind") != "compressed_01"
                           or s.get("outcome") not in ("found", "inconsistent", "exhausted")
                           or flips.recheck_search(fd, s, cert["S"] if s.get("outcome") == "found" else None))
        if not stated_solve_ok:
            return False
        if cert.get("part") == "A+padding":
            zero = _zero_units(fd)
            keep = [i for i in range(fd.m) if i not in zero]
            if sorted(zero) != sorted(cert["zero_units"]) or any(i not in keep for i in cert["S"]):
                return False
            sub = _restrict(fd, keep)
            S_sub = [keep.index(int(i)) for i in cert["S"]]
            per = len(padding_units(block.activation)[0])
            qz, _, _ = flips.flip_residual(sub, S_sub)
            return qz and _linear_part(sub, S_sub).rank() * per <= len(zero)
        if cert.get("part") == "D":
            return recheck_part_d(block, cert)
        if cert.get("outcome") == "undecided":
            return True  # states only that nothing was proved; the stated nondegeneracy was re-checked
        if fd.kind == flips.FLIP_GATE:
            if s["status"] == "found":
                return bool(search.verify_index_set(block.W_up, block.W_down, block.M, cert["S"]))
            if s["status"] == "none" and nd["nondegenerate"]:
                k = s.get("kind")
                if k == "linear":
                    return bool(search.check_linear_certificate(block.W_up, block.W_down, block.M,
                                                                search.decode_matrix(s["Y"]))["certified"])
                if k == "necessary_conditions":
                    return not search.necessary_conditions(block.W_up, block.W_down, block.M)["possible"]
                if k == "exhaustive":
                    return search.exhaustive_search(block.W_up, block.W_down, block.M, max_m=40, limit=1) == []
            return False
        if cert.get("part") == "A":
            return flips.verify_flip_set(fd, cert["S"])
        if cert.get("part") == "C":
            r = flips.relu2_decide_classes(fd)
            return r["status"] == cert["classes"]["status"] and r["status"] in ("found", "none")
        if s["status"] == "none" and nd["nondegenerate"]:
            return flips.recheck_search(fd, s, None)
        return False
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return False


# ---------------------------------------------------------------- part (D): affine blocks, one square


def _decide_relu2_part_d(block: Block, fd: flips.FlipData, cert: dict[str, Any], classes: dict[str, Any],
                         cl: Any) -> Optional[dict[str, Any]]:
    """relu2-biased (D) where (C) was inconclusive: None when (D) does not decide either."""
    res = relu2_part_d(fd, cl, block.m, k0_exhausted(classes))
    plan = res.pop("plan")
    cert["part_d"] = res
    if res["status"] not in ("found", "none"):
        return None
    cert["part"] = "D"
    what = {"D1": "relu2-biased (D1): x -> Mx + B(x) is an affine map N x + c",
            "D2": "relu2-biased (D2): at most one square on a new kink hyperplane fits"}[res["case"]]
    if res["status"] == "none":
        return _verdict("not_absorbable", RELU2_CLAIM, True,
                        f"{what}; {res['reason']}: no relu2 block of width {block.m}, with or without biases, "
                        "equals x -> Mx + B(x)", cert)
    plain, rec = relu2_plan_plain(block, fd, cl, plan)
    cert["emitted_block"] = rec
    cert["emitted_block_exact"] = rec["exact"]
    cert["plan"] = {"E": plan.E, "T": plan.T, "squares": len(plan.squares)}
    reason = (f"{what}; {res['reason']}; the constructed relu2 block with biases equals x -> Mx + B(x) exactly "
              "(class forms compared in rationals)")
    if rec["rounded"]:
        reason += f"; the emitted file holds {', '.join(rec['rounded'])} rounded to float64"
    return _verdict("absorbable", RELU2_CLAIM, True, reason, cert, plain)


def gated_affine_plain(block: Block, ga: dict[str, Any], convention: str) -> tuple[Block, dict[str, Any]]:
    """The replacing block of gated-biased (D): rank_upper units with gate row 0 (zero units up to
    width m).  N = C (L N) with C the basis columns of [M' | K ...] and L = (C^T C)^-1 C^T (exact),
    one unit per column of C: gate bias z0, value row (L N)_q / g(z0), output C_q; b_down = c
    (without biases: z0 = 0 and b_down = 0, which needs c = 0 and g(0) != 0, or N = 0)."""
    d, m = block.d, block.m
    act = block.act
    C = ga["basis"]
    r = len(C)
    Ws = {"W_gate": np.zeros((m, d)), "b_gate": np.zeros(m), "W_up": np.zeros((m, d)), "b_up": np.zeros(m),
          "W_down": np.zeros((d, m)), "b_down": np.zeros(d)}
    errs: dict[str, Fraction] = {}
    if r:
        Cm = fmpq_mat(d, r, [C[q][o] for o in range(d) for q in range(r)])
        L = (Cm.transpose() * Cm).inv() * Cm.transpose()
        parts = [ga["M_exact"]] + [K for _, K, _, _ in ga["inexact"]]
        if any(Cm * (L * P) != P for P in parts):  # pragma: no cover - the columns of P lie in span C
            raise RuntimeError("a column of M' or K_z lies outside the span of the chosen columns")
        if convention == "none" or act.value_at_0 != 0:
            z0 = fmpq(0)
        else:
            z0 = fmpq(1)
        g_exact, g_ball = gate_value(block.activation, z0)
        with arith.precision("ball", GATE_PREC):
            LM = L * ga["M_exact"]
            LK = [(g, L * K) for _, K, _, g in ga["inexact"]]
            for q in range(r):
                for a in range(d):
                    val = to_arb(to_fraction(LM[q, a])) + sum((g * to_arb(to_fraction(X[q, a])) for g, X in LK), arb(0))
                    val = val / g_ball
                    f = float(val.mid())
                    Ws["W_up"][q, a] = f
                    if not (LK or g_exact is None):
                        e = abs(to_fraction(LM[q, a] / g_exact) - Fraction(f))
                    else:
                        e = ball_abs_upper(val - to_arb(Fraction(f)))
                    errs["W_up"] = max(errs.get("W_up", Fraction(0)), e)
                for o in range(d):
                    Ws["W_down"][o, q] = float_nearest(to_fraction(C[q][o]))
                    errs["W_down"] = max(errs.get("W_down", Fraction(0)), abs(to_fraction(C[q][o]) - Fraction(Ws["W_down"][o, q])))
                Ws["b_gate"][q] = float(to_fraction(z0))
            if convention == "allowed":
                for o in range(d):
                    v = ga["c_ball"][o]
                    exact_c = not any(any(x != 0 for x in k) for _, _, k, _ in ga["inexact"])
                    f = float_nearest(to_fraction(ga["c_exact"][o])) if exact_c else float(v.mid())
                    Ws["b_down"][o] = f
                    e = (abs(to_fraction(ga["c_exact"][o]) - Fraction(f)) if exact_c
                         else ball_abs_upper(v - to_arb(Fraction(f))))
                    errs["b_down"] = max(errs.get("b_down", Fraction(0)), e)
    elif convention == "allowed":
        for o in range(d):
            v = ga["c_ball"][o]
            Ws["b_down"][o] = float(v.mid()) if ga["inexact"] else float_nearest(to_fraction(ga["c_exact"][o]))
            errs["b_down"] = ball_abs_upper(v - to_arb(Fraction(Ws["b_down"][o]))) if ga["inexact"] else abs(
                to_fraction(ga["c_exact"][o]) - Fraction(Ws["b_down"][o]))
    if not all(np.all(np.isfinite(a)) for a in Ws.values()):
        raise InputError("the affine replacing block has entries beyond the float64 range")
    nz = lambda a: a if np.any(a != 0) else None  # noqa: E731
    plain = Block(block.activation, W_up=Ws["W_up"], W_down=Ws["W_down"], W_gate=Ws["W_gate"],
                  b_up=None, b_gate=nz(Ws["b_gate"]), b_down=nz(Ws["b_down"]), kind="plain")
    rounded = sorted(k for k, e in errs.items() if e != 0)
    rec = {"exact": not rounded, "rounded": rounded,
           "max_entry_error": {k: float_up(errs[k]) for k in rounded},
           "construction": (f"{r} unit(s) with gate row 0 and gate bias {to_fraction(z0) if r else 0}: value rows "
                            "(L N)_q / g(z0), output columns the basis columns C_q of [M' | K_z ...], N = C L N exactly; "
                            + ("b_down = c" if convention == "allowed" else "no biases")),
           "check": "N = C L N verified exactly on the rational parts M' and K_z; the entries are balls around "
                    "the transcendental gate values where they occur, rounded to float64 with the stated error"}
    return plain, rec


def decide_gated_affine(block: Block, convention: str = "allowed") -> Optional[dict[str, Any]]:
    """gated-biased (D) for the convention asked, as a verdict dict; None when the block is not
    affine (some unit has a nonzero gate row and computes something)."""
    ga = gated_affine(block)
    if ga is None:
        return None
    outcome, why = gated_affine_outcome(block, ga, convention)
    what = "with biases" if convention == "allowed" else "without biases"
    cert: dict[str, Any] = {
        "kind": "biased_flip", "claim": GATED_CLAIM, "block": flip_block_info(block), "part": "D",
        "convention": convention,
        "affine": {"affine_units": ga["affine_units"][:64], "zero_units": ga["zero_units"][:64],
                   "gate_values": ga["gate_values"], "rank_upper": ga["rank_upper"],
                   "rank_lower": ga["rank_lower"], "rank_exact": ga["rank_exact"],
                   "N_zero": ga["N_zero"], "c_zero": ga["c_zero"]},
        "nondegeneracy": flips.flip_nondegeneracy(ga["fd"], block.activation),
        "search": {"status": "not_run", "method": "gated-biased (D): every unit is affine"}}
    head = (f"every unit of this {block.activation} block has gate row 0 or computes 0, so x -> Mx + B(x) = N x + c "
            "(gated-biased (D))")
    if outcome == "undecided":
        return _verdict("undecided", GATED_CLAIM, False, f"{head}; {why}", cert)
    if outcome == "not_absorbable":
        return _verdict("not_absorbable", GATED_CLAIM, True,
                        f"{head}; {why}: no {block.activation} block {what} of width {block.m} equals it", cert)
    plain, rec = gated_affine_plain(block, ga, convention)
    cert["emitted_block"] = rec
    cert["emitted_block_exact"] = rec["exact"]
    chk = _affine_spot_check(block, plain)
    cert["spot_check"] = chk
    if not chk["agree"]:  # pragma: no cover - would contradict the construction
        raise RuntimeError(f"affine replacing block differs from the residual block: {chk}")
    what = "with biases" if nonzero_biases_of(plain) else "without biases"
    reason = f"{head}; {why}: the {block.activation} block {what} built from N = C L N equals it"
    if rec["rounded"]:
        reason += (f" (the file holds {', '.join(rec['rounded'])} rounded to float64: the gate values are "
                   "transcendental or the values not float64)")
    return _verdict("absorbable", GATED_CLAIM, True, reason, cert, plain)


def nonzero_biases_of(b: Block) -> bool:
    return any(v is not None and np.any(v != 0) for v in (b.b_up, b.b_gate, b.b_down))


def _affine_spot_check(block: Block, plain: Block) -> dict[str, Any]:
    """The emitted block against the residual block at fixed points (balls): the largest
    difference, which must stay within a rounding-size tolerance."""
    pts = spot_points(block.d, np.random.default_rng(22), n_random=3, n_basis=2)
    worst, scale = 0.0, 1.0
    for x in pts:
        F = eval_ball(block.activation, block.W_up, block.W_down, x, M=block.M if block.M is not None else np.eye(block.d),
                      W_gate=block.W_gate, b_up=block.b_up, b_gate=block.b_gate, b_down=block.b_down)
        P = eval_ball(plain.activation, plain.W_up, plain.W_down, x, W_gate=plain.W_gate, b_up=plain.b_up,
                      b_gate=plain.b_gate, b_down=plain.b_down)
        for f, p in zip(F, P):
            worst = max(worst, float(abs(f - p).upper()))
            scale = max(scale, float(abs(f).upper()))
    return {"agree": worst <= 1e-9 * scale, "backend": "ball", "points": len(pts), "max_difference": worst}


# ---------------------------------------------------------------- part (D) without biases

def decide_bias_free(block: Block) -> Optional[dict[str, Any]]:
    """Part (D) for the question 'does a bias-free block of the same width equal x -> Mx + B(x)',
    for blocks with biases: relu2 blocks that are affine maps (relu2-biased (D1)) and affine gated
    blocks (gated-biased (D)).  None when part (D) does not apply or does not settle it."""
    if block.activation not in activations.BIASED_FLIP:
        return None
    if block.act.gated:
        v = decide_gated_affine(block, "none")
        return None if v is None or v["verdict"] == "undecided" else v
    aff = relu2_affine(block)
    if aff is None:
        return None
    N, c = aff
    cert: dict[str, Any] = {"kind": "biased_flip", "claim": RELU2_CLAIM, "block": flip_block_info(block),
                            "part": "D", "convention": "none",
                            "affine": {"rank_N": N.rank(), "c_zero": all(v == 0 for v in c)},
                            "nondegeneracy": flips.flip_nondegeneracy(block_flip_data(block), block.activation),
                            "search": {"status": "not_run", "method": "relu2-biased (D1): the block is affine"}}
    head = "relu2-biased (D1): x -> Mx + B(x) is an affine map N x + c"
    if N.rank() == 0 and all(v == 0 for v in c):
        d, m = block.d, block.m
        plain = Block(block.activation, W_up=np.zeros((m, d)), W_down=np.zeros((d, m)), kind="plain")
        cert["emitted_block"] = {"exact": True, "rounded": [], "max_entry_error": {},
                                 "construction": "the zero block", "check": "N = 0 and c = 0 exactly"}
        cert["emitted_block_exact"] = True
        return _verdict("absorbable", RELU2_CLAIM, True, f"{head} with N = 0 and c = 0: the zero block, without "
                        "biases, equals it", cert, plain)
    why = f"N of rank {N.rank()}" if N.rank() else "c = F(0) != 0"
    return _verdict("not_absorbable", RELU2_CLAIM, True,
                    f"{head} with {why}; a relu2 block without biases is 2-homogeneous (B'(0) = 0, B'(2x) = 4 B'(x)), "
                    f"so no relu2 block without biases, of any width, equals it", cert)


def part_d_supported(block: Block, cert: dict[str, Any]) -> str:
    """The verdict part (D) gives for this block and the certificate's question, recomputed from
    the weights ('undecided' when part (D) does not apply or the stated facts differ).  A verdict
    computed for replacing blocks with biases answers the bias-free question too when it is
    not_absorbable (a fortiori) or when its replacing block, rebuilt here, has no biases."""
    try:
        conv = cert.get("convention", "allowed")
        asked = cert.get("replacing_biases", conv)
        if conv not in ("allowed", "none") or asked not in ("allowed", "none") or (conv == "none" and asked != "none"):
            return "undecided"
        plain: Optional[Block] = None
        if block.act.gated:
            ga = gated_affine(block)
            if ga is None:
                return "undecided"
            got, _ = gated_affine_outcome(block, ga, conv)
            a = cert["affine"]
            if not all(a[k] == ga[k] for k in ("rank_upper", "rank_lower", "N_zero", "c_zero")):
                return "undecided"
            if got == "absorbable" and asked != conv:
                plain = gated_affine_plain(block, ga, conv)[0]
        elif conv == "none":
            v = decide_bias_free(block)
            if v is None or v["certificate"]["affine"] != cert["affine"]:
                return "undecided"
            got = v["verdict"]
        else:
            fd = block_flip_data(block)
            r = flips.relu2_decide_classes(fd)
            cl = r.pop("classes_obj")
            r.pop("plan")
            if r["status"] != "inconclusive":
                return "undecided"
            res = relu2_part_d(fd, cl, block.m, k0_exhausted(r))
            plan = res.pop("plan")
            stated = cert.get("part_d", {})
            if res["case"] != stated.get("case") or res.get("rank_N") != stated.get("rank_N"):
                return "undecided"
            got = {"found": "absorbable", "none": "not_absorbable"}.get(res["status"], "undecided")
            if got == "absorbable" and asked != conv:
                plain = relu2_plan_plain(block, fd, cl, plan)[0]
        if asked != conv and got == "absorbable" and (plain is None or nonzero_biases_of(plain)):
            return "undecided"
        return got
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return "undecided"


def rebuilt_facts(block: Block, cert: dict[str, Any]) -> Optional[dict[str, Any]]:
    """The fields decide writes, as functions of the weights, into a biased_flip certificate of part C,
    part D or A+padding, rebuilt from the weights and the certificate's part and convention: the
    class sums (``classes``), part (D)'s search (``part_d``), the plan and the emitted block of
    relu2-biased (C)/(D); the affine facts, the fixed search note, the emitted block and its spot
    check of gated-biased (D) (or relu2-biased (D1) without biases); the flip set, the padding and
    the emitted block of a padded flip.  None when that part does not apply to these weights."""
    part = cert.get("part")
    fd = block_flip_data(block)
    if part == "A+padding":
        scratch: dict[str, Any] = {}
        if _padded_construction(block, fd, scratch) is None:
            return None
        return {k: scratch[k] for k in ("S", "size", "zero_units", "padding", "spot_check", "emitted_block",
                                        "emitted_block_exact")}
    if part == "D" and (block.act.gated or cert.get("convention") == "none"):
        conv = cert.get("convention", "allowed")
        if conv not in ("allowed", "none"):
            return None
        v = decide_gated_affine(block, conv) if block.act.gated else decide_bias_free(block)
        if v is None:
            return None
        c = v["certificate"]
        return {k: c[k] for k in ("convention", "affine", "nondegeneracy", "search", "emitted_block",
                                  "emitted_block_exact", "spot_check") if k in c}
    if part not in ("C", "D"):
        return None
    r = flips.relu2_decide_classes(fd)
    cl, plan = r.pop("classes_obj"), r.pop("plan")
    out: dict[str, Any] = {"classes": r}
    if part == "D":
        if r["status"] != "inconclusive":
            return None
        res = relu2_part_d(fd, cl, block.m, k0_exhausted(r))
        plan = res.pop("plan")
        out["part_d"] = res
    if plan is not None:
        out["plan"] = {"E": plan.E, "T": plan.T, "squares": len(plan.squares)}
        rec = relu2_plan_plain(block, fd, cl, plan)[1]
        out.update({"emitted_block": rec, "emitted_block_exact": rec["exact"]})
    return out


def recheck_part_d(block: Block, cert: dict[str, Any]) -> bool:
    """Re-derive a part (D) verdict from the block: the same case, outcome and stated ranks."""
    outcome = cert.get("outcome")
    return outcome in ("absorbable", "not_absorbable") and part_d_supported(block, cert) == outcome
