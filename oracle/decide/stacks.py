"""The decision for a whole stack of blocks (the paper's open problem).

``decide_stack(stack)`` returns ``{"verdict", "claim", "exact", "reason", "certificate"}`` (plus
``"plain_stack"`` when absorbable), where the verdict is about a plain stack of the *same* depth
and widths.  ``recheck_decision`` re-verifies an exact verdict from that dictionary alone.  Stack
files are read and written by oracle/core/stackfiles.py.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any, Optional

import numpy as np

from oracle.core.blocks import Block, Stack
from oracle.core.errors import InputError
from oracle.core.rational import qmat, qvec, smat, svec, to_fraction
from oracle.core.stackfiles import stack_kind
from oracle.algebra.exact import (all_index_sets_exact, block_from_json, block_to_json, identity,
                                  is_zero_matrix, stack_from_json, stack_to_json)
from oracle.algebra.canonical import compare_blocks
from oracle.algebra.stacks import analytic, d1, dead, near_identity
from oracle.algebra.stacks.layers import (absorbing_widths, is_flat, layers_from_json, layers_of,
                                          layers_to_json, skip_product)
from oracle.algebra.stacks.narrow import narrow_conditions, narrow_part
from oracle.algebra.stacks.planar import d2_conditions
from oracle.algebra.stacks.rank import check_rank_certificate, rank_certificate
from oracle.algebra.stacks.sweep import entry_certificate, find_sweep_entry
from oracle.decide import block as single
from oracle.decide import document
from oracle.decide.document_fields import Refused

# Exact procedures run on Fractions; above these sizes the verdict reports what was skipped.
MAX_EXACT_ENTRIES = 4096      # m * d per block for the exact (Fraction) procedures
MAX_INDEX_SEARCH_M = 14       # 2^m index sets per block ...
INDEX_SEARCH_BUDGET = 4_000_000   # ... and 2^m m d^2 exact additions per block
MAX_RANK_PARAMS = 400         # N = 2 d sum m_l for the Jacobian rank certificate
MAX_ANALYTIC_PARAMS = 400     # N for depth-analytic's ball-arithmetic certificate (gelu family)


# ================================================================ the decision

def _result(verdict: str, claim: Optional[str], exact: bool, reason: str,
            certificate: dict[str, Any], plain: Optional[list[dict[str, Any]]] = None) -> dict[str, Any]:
    out = {"verdict": verdict, "claim": claim, "exact": exact, "reason": reason, "certificate": certificate}
    if plain is not None:
        out["plain_stack"] = plain
    return out


def _summary(stack: Stack) -> dict[str, Any]:
    b0 = stack.blocks[0]
    return {"activation": b0.activation, "d": b0.d, "layers": len(stack.blocks),
            "widths": [b.m for b in stack.blocks]}


def _flat_decision(stack: Stack, info: dict[str, Any]) -> dict[str, Any]:
    flat = [is_flat(b) for b in stack.blocks]
    if not all(flat):
        return _result("undecided", None, False, "a block has biases (not flat at 0): the depth "
                       "theorems do not apply", {**info, "flat": flat})
    P = skip_product(stack)
    ident = all(b.M is None or np.array_equal(b.M, np.eye(b.d)) for b in stack.blocks)
    cert = {**info, "flat": flat, "skip_product": smat(P)}
    if sum(b.m * b.d for b in stack.blocks) <= 16 * MAX_EXACT_ENTRIES:
        cert["blocks"] = stack_to_json(stack)
    if is_zero_matrix(P):
        return _result("undecided", None, True, "the skip product M_L ... M_1 is 0: the depth theorems "
                       "do not apply", cert)
    return _result("not_absorbable", "depth-impossible" if ident else "depth-any", True,
                   "every block is flat at 0 (o(|x|)) and M_L ... M_1 != 0: the stack has derivative "
                   "M_L ... M_1 != 0 at 0, every composition of flat plain blocks has derivative 0", cert)


def _flip_stack(layers: list, sets: list) -> list:
    return [([[-v for v in u] if i in set(S) else list(u) for i, u in enumerate(U)], W)
            for (U, W), S in zip(layers, sets)]


# which plain stacks a stack claim's verdict is about (docs/check.md, "The question asked"):
# 'both' = with or without biases, 'none' = bias-free plain stacks, 'unstated' = the claim's
# statement does not say
_STACK_CONVENTION = {"depth-d1": "both", "depth-impossible": "none", "depth-any": "none",
                     "depth-narrow": "unstated", "depth-d2": "unstated", "depth-near-identity": "unstated",
                     "depth-dead-block": "both", "depth-d1-biased": "both"}


def stack_convention(res: dict[str, Any]) -> Optional[str]:
    """The bias convention a stack decision answers: 'allowed', 'none', 'both', 'unstated', or None
    (undecided).  An absorbable verdict whose plain stack has no nonzero bias answers both."""
    if res["verdict"] == "undecided":
        return None
    bc = res["certificate"].get("block_certificate")
    if bc is not None:
        return bc.get("replacing_biases")
    if ((res["certificate"].get("d1_biased") or {}).get("part") == "B0"
            and res["claim"] == "depth-d1-biased"):
        return "none"  # (B0) is the bias-free question only (its re-check requires it to be stated)
    if res["verdict"] == "absorbable" and res["claim"] == "relu-gelu-iff":
        return "both"  # the sign flips of a bias-free stack: a bias-free plain stack
    if res["verdict"] == "absorbable" and any(
            Fraction(v) != 0 for rec in res.get("plain_stack") or [] for k in ("b_up", "b_down") for v in rec.get(k, [])):
        return "allowed"  # the plain stack found carries biases: the bias-free question is not answered
    return _STACK_CONVENTION.get(res["claim"] or "", "unstated")


CONVENTIONS = ("auto", "allowed", "none")

# the fields of the other question's answer (``other_convention``): the block path's shape
# (oracle/decide/block.py) and, for an absorbable answer, the plain stack its certificate rebuilds
OTHER_ANSWER_FIELDS = ("replacing_biases", "verdict", "claim", "exact", "reason", "certificate", "plain_stack")


def other_answer(res: dict[str, Any]) -> dict[str, Any]:
    """The answer a decision found to a question other than the one asked, as ``other_convention``:
    the whole decision (its certificate included, so that recheck_decision verifies it from the
    document alone), not only its verdict."""
    return {k: res[k] for k in OTHER_ANSWER_FIELDS if k in res}


def decide_stack(stack: Stack, replacing_biases: str = "auto") -> dict[str, Any]:
    """Decide whether a residual stack equals a plain stack of the same depth and widths; the
    result says which plain stacks (with or without biases) the verdict is about.

    ``replacing_biases`` is the question asked (docs/check.md): 'allowed' (plain stacks may carry
    biases), 'none' (bias-free plain stacks only) or 'auto' (the answer found, with the bias-free
    answer under ``biases_none`` when it is decided and differs).  A verdict that does not answer
    the question asked becomes ``undecided`` with the reason; it is never reported as an answer."""
    if replacing_biases not in CONVENTIONS:
        raise InputError(f"replacing_biases must be one of {CONVENTIONS}, not {replacing_biases!r}")
    res = _decide_stack(stack)
    res["replacing_biases"] = conv = stack_convention(res)
    if replacing_biases == "auto":
        if conv == "allowed":
            free = _bias_free_decision(stack, res)
            if free["verdict"] != "undecided" and free["verdict"] != res["verdict"]:
                res["biases_none"] = free
        return res
    if conv in ("both", replacing_biases):
        return res
    if replacing_biases == "none" and conv in ("allowed", None):
        free = _bias_free_decision(stack, res)
        if free["verdict"] != "undecided" or conv == "allowed":
            return free
        return res
    if conv is None:
        return res
    why = ("its plain stack carries biases" if conv == "allowed" else "its claim's statement is about "
           "bias-free plain stacks only" if conv == "none" else "its claim's statement does not say whether "
           "the plain stacks may carry biases")
    out = _result("undecided", None, False, f"the question asked is plain stacks "
                  f"{'with biases allowed' if replacing_biases == 'allowed' else 'without biases'}; the verdict "
                  f"{res['verdict']} ({res['claim']}) does not answer it: {why}", res["certificate"])
    out["replacing_biases"] = None
    out["other_convention"] = other_answer(res)
    return out


def _bias_free_decision(stack: Stack, res: dict[str, Any]) -> dict[str, Any]:
    """The bias-free question (plain stacks without biases) for a stack whose decision answered
    another one.  d = 1 relu: depth-d1-biased (B0), a bias-free plain stack is
    x -> P(1) relu(x) + P(-1) relu(-x), so F must be of that form and (F(1), F(-1)) in depth-d1's
    class for the widths.  Otherwise undecided: no registered stack claim states for d >= 2 that a
    bias-free plain stack fixes 0 or is positively homogeneous."""
    info = _summary(stack)
    act = stack.blocks[0].act
    if info["d"] != 1 or act.name != "relu" or max(b.m * b.d for b in stack.blocks) > MAX_EXACT_ENTRIES:
        out = _result("undecided", None, False, "the question asked is bias-free plain stacks; the answer found "
                      f"({res['verdict']}, {res['claim']}) is about plain stacks with biases, and no registered "
                      "stack claim decides the bias-free question here (none states for d >= 2 that a bias-free "
                      "plain stack maps 0 to 0 or is positively homogeneous)", res["certificate"])
        out["replacing_biases"] = None
        out["other_convention"] = other_answer(res)
        return out
    blocks = _d1_pl_blocks(stack)
    dec = d1.decide_d1_bias_free(blocks, info["widths"])
    cert = {**info, "pl_blocks": d1.pl_blocks_json(blocks), "d1_biased": dec}
    head = "bias-free plain stacks (depth-d1-biased (B0)): "
    if dec["verdict"] == "absorbable":
        out = _result("absorbable", "depth-d1-biased", True, head + dec["reason"], cert, dec["plain"])
    else:
        out = _result("not_absorbable", "depth-d1-biased", True, head + dec["reason"], cert)
    out["replacing_biases"] = "none"
    return out


def _decide_stack(stack: Stack) -> dict[str, Any]:

    if stack_kind(stack) != "residual_stack":
        raise InputError("decide_stack needs a residual stack (kind residual_stack); a plain stack "
                         "has no skips to absorb")
    info = _summary(stack)
    act = stack.blocks[0].act
    if len(stack.blocks) == 1:
        # One block: the single-block decision procedure (absorb check on a block file) applies.
        v = single.decide(stack.blocks[0])
        return _result(v.verdict, v.claim, v.exact, "one block: " + v.reason,
                       {**info, "block": block_to_json(stack.blocks[0]), "block_certificate": v.certificate})
    # Flat at 0 (o(|x|)): homogeneous of block degree > 1, or a gate vanishing and continuous at 0.
    if (act.block_degree is not None and act.block_degree > 1) or \
            (act.gated and act.value_at_0 == 0 and act.continuous_at_0):
        return _flat_decision(stack, info)
    if act.gated or not act.odd_part_identity:
        return _result("undecided", None, False, f"no stack claim covers activation {act.name!r}", info)

    big = max(b.m * b.d for b in stack.blocks) > MAX_EXACT_ENTRIES
    biased = any(b.has_bias for b in stack.blocks)
    ident = all(b.M is None or np.array_equal(b.M, np.eye(b.d)) for b in stack.blocks)
    if big:
        return _large_decision(stack, info, biased, ident)

    layers = layers_of(stack)
    d = info["d"]
    # 0. d = 1, relu, no biases: depth-d1 decides every depth, width and scalar skip exactly.
    if d == 1 and act.name == "relu" and not biased:
        return _d1_decision(stack, layers, info)
    if d == 1 and act.name == "relu":
        return _d1_biased_decision(stack, info)
    # 1. Every block absorbs its own skip at the same width: the sign flips give the plain stack
    #    (relu-gelu-iff (A), any activation with s(z) - s(-z) = z, any M_l).
    searchable = all(b.m <= MAX_INDEX_SEARCH_M and 2 ** b.m * b.m * b.d ** 2 <= INDEX_SEARCH_BUDGET
                     for b in stack.blocks)
    if not biased and searchable:
        Ms = [identity(d) if b.M is None else qmat(b.M) for b in stack.blocks]
        sets = [all_index_sets_exact(U, W, M) for (U, W), M in zip(layers, Ms)]
        info["index_sets"] = [[list(s) for s in S[:4]] for S in sets]
        if all(sets):
            plain = _flip_stack(layers, [S[0] for S in sets])
            cert = {**info, "residual": layers_to_json(layers), "skips": [
                smat(M) for M in Ms], "chosen_sets": [list(S[0]) for S in sets]}
            return _result("absorbable", "relu-gelu-iff", True,
                           "every block satisfies W_S U_S = -M for some S: flipping those rows gives "
                           "plain blocks equal to the residual ones", cert, layers_to_json(plain))
    else:
        info["index_sets"] = None
    # 1b. depth-dead-block: block 2 never fires on the image of block 1 (biases and skips allowed).
    if act.name == "relu" and len(stack.blocks) == 2 and d >= 2:
        res = _dead_block_decision(stack, info)
        if res is not None:
            return res
    if biased or not ident:
        return _result("undecided", None, False, "biases or skip matrices other than I: the stack "
                       "claims (depth-narrow, depth-d2, depth-dimension) assume bias-free identity skips"
                       + _dead_note(info), info)
    if act.name in analytic.ACTIVATIONS:
        return _analytic_decision(act.name, layers, info)
    if act.name != "relu":
        return _result("undecided", None, False,
                       f"{act.name}: the stack claims are proved for relu; depth-width still gives a plain "
                       "stack of widths m_l + 2d - rank W_up,l", {**info, **absorbing_widths(layers)})
    residual = layers_to_json(layers)
    # 2. depth-narrow for the same widths.
    cond = narrow_conditions(layers, info["widths"])
    if cond["applies"]:
        return _result("not_absorbable", "depth-narrow", True,
                       f"depth-narrow part ({cond['part']}): every piece I + W_l D U_l is invertible"
                       + (", both blocks are nondegenerate and the layer-2 kinks are transversal"
                          if cond["part"] == "c" else "")
                       + "; no plain stack of these widths equals the residual stack",
                       {**info, "residual": residual, "conditions": cond})
    # 3. depth-d2.
    if d == 2 and len(layers) == 2 and searchable:
        c2 = d2_conditions(layers)
        if c2["applies"] and c2["kink_rays"] == c2["expected_kink_rays"]:
            return _result("not_absorbable", "depth-d2", True,
                           "d = 2, two homeomorphic nondegenerate blocks with kink rays in general "
                           "position, and some block has no index set: no plain stack of widths "
                           f"({info['widths'][0]}, {info['widths'][1]}) equals the residual stack",
                           {**info, "residual": residual, "conditions": c2})
    # 3b. depth-near-identity (d >= 3, two homeomorphic blocks).
    if d >= 3 and len(layers) == 2:
        c3 = near_identity.near_identity_conditions(layers)
        if c3["applies"] and not all(c3["index_sets"]):
            return _result("not_absorbable", "depth-near-identity", True,
                           f"d = {d}, two near-identity blocks (|W_l| |U_l| < 1), nondegenerate, sheets in "
                           f"general position, bend counts {c3['k']}, and some block has no index set: no "
                           f"plain stack of widths ({info['widths'][0]}, {info['widths'][1]}) equals the "
                           "residual stack", {**info, "residual": residual, "conditions": c3})
        info["near_identity_conditions"] = {k: c3.get(k) for k in ("applies", "reason", "k")}
    # 4. Undecided: the generic statement with its rank certificate, and the wider construction.
    cert: dict[str, Any] = {**info, "residual": residual, "narrow_conditions": cond,
                            **absorbing_widths(layers)}
    N = 2 * d * sum(info["widths"])
    reason = ("no proved claim decides this stack; depth-width: it IS a plain stack of widths "
              f"{cert['absorbing_widths']}" + _dead_note(info))
    if N <= MAX_RANK_PARAMS:
        rc = rank_certificate(layers)
        cert["rank_certificate"] = rc
        if rc["certified"]:
            reason += (f"; depth-dimension: the Jacobian rank {rc['rank']} exceeds D_plain = "
                       f"{rc['D_plain']}, so ALMOST EVERY stack with these activation patterns is no "
                       "plain stack of the same widths (this says nothing about this one stack)")
    else:
        cert["rank_certificate"] = None
        reason += f"; rank certificate skipped (N = {N} > {MAX_RANK_PARAMS} parameters)"
    return _result("undecided", "depth-dimension" if cert["rank_certificate"] and
                   cert["rank_certificate"]["certified"] else None, False, reason, cert)


def _analytic_decision(name: str, layers: list, info: dict[str, Any]) -> dict[str, Any]:
    """gelu, gelu_tanh, silu with identity skips and no index sets in every block: no claim decides
    the given stack; depth-analytic's rank certificate says what holds for almost every stack."""
    cert: dict[str, Any] = {**info, "residual": layers_to_json(layers), **absorbing_widths(layers)}
    reason = ("no proved claim decides this stack; depth-width: it IS a plain stack of widths "
              f"{cert['absorbing_widths']}")
    st = analytic_statement(name, layers)
    cert["analytic"] = st
    if st["certified"]:
        reason += (f"; depth-analytic: the Jacobian has full rank N = {st['N']} > D_plain = {st['D_plain']} "
                   f"(arb certificate at {st['at']}), so ALMOST EVERY bias-free residual {name} stack of "
                   "these widths is no bias-free plain stack of the same widths (a statement about almost "
                   "every stack, not a verdict about this one)")
        if cert["d"] >= 2:
            reason += ("; depth-analytic-generic: for d >= 2 the same holds for every width tuple, "
                       "without a certificate")
        return _result("undecided", "depth-analytic", False, reason, cert)
    reason += f"; no depth-analytic certificate ({st.get('skipped', 'the determinant enclosures contain 0')})"
    if cert["d"] >= 2:
        reason += ("; depth-analytic-generic: since d >= 2, ALMOST EVERY bias-free residual "
                   f"{name} stack of these widths is no bias-free plain stack of the same widths (a "
                   "statement about almost every stack, not a verdict about this one)")
        return _result("undecided", "depth-analytic-generic", False, reason, cert)
    return _result("undecided", None, False, reason, cert)


def analytic_statement(activation: str, layers: list) -> dict[str, Any]:
    """The rank certificate for a given stack's widths, and what it proves: a statement about
    almost every stack of these widths, never a verdict about the given one.

    The certificate is first tried at the given weights (then the stack is a regular point of the
    evaluation map); if that fails, the committed sweep's entry for these widths is used, else one
    at fresh random rational weights."""
    d = len(layers[0][1])
    widths = [len(U) for U, _ in layers]
    N = analytic.param_count(d, widths)
    out: dict[str, Any] = {"claim": analytic.CLAIM, "N": N, "D_plain": analytic.plain_dimension(d, widths),
                           "certified": False, "at": None, "certificate": None}
    if len(widths) < 2 or N > MAX_ANALYTIC_PARAMS or activation not in analytic.ACTIVATIONS:
        out["skipped"] = ("depth 1: the count gives nothing" if len(widths) < 2 else
                          f"N = {N} > {MAX_ANALYTIC_PARAMS} parameters" if N > MAX_ANALYTIC_PARAMS
                          else "activation not covered")
        return out
    rng = random.Random(f"check/{d}/{widths}")
    cert = analytic.certify(activation, layers, analytic.random_points(d, analytic.point_count(d, widths), rng))
    at = "the given weights"
    if not cert["certified"]:
        entry = find_sweep_entry(d, widths)
        if entry is not None and entry["results"][activation]["certified"]:
            cert, at = entry_certificate(entry, activation), "the committed sweep's weights"
        else:
            cert, at = analytic.make_certificate(activation, d, widths, 0), "fresh random rational weights"
    out.update(certified=bool(cert["certified"]), at=at if cert["certified"] else None, certificate=cert)
    return out


def _d1_decision(stack: Stack, layers: list, info: dict[str, Any]) -> dict[str, Any]:
    """d = 1: F is determined by (F(1), F(-1)), and depth-d1 says which pairs plain stacks of the
    same widths reach; the plain stack is built and proved equal at x = 1 and x = -1."""
    skips = [qmat(b.M)[0][0] if b.M is not None else Fraction(1) for b in stack.blocks]
    dec = d1.decide_d1(layers, skips)
    cert = {**info, "residual": layers_to_json(layers), "skips": svec(skips), "d1": dec}
    a, b = dec["pair"]
    head = (f"d = 1: F(x) = F(1) relu(x) + F(-1) relu(-x) with F(1) = {a}, F(-1) = {b}; plain stacks of "
            f"widths {dec['plain_widths']} reach exactly the pairs of class '{dec['class']}'")
    if dec["absorbable"]:
        return _result("absorbable", "depth-d1", True, head + "; the plain stack with the same pair equals F "
                       "(checked exactly at x = 1 and x = -1, which determine a homogeneous map of the line)",
                       cert, dec["plain"])
    return _result("not_absorbable", "depth-d1", True, head + f", and ({a}, {b}) is not one of them: no plain "
                   "stack of these widths (biases allowed) equals the residual stack", cert)


def _d1_pl_blocks(stack: Stack) -> list[dict[str, Any]]:
    """The blocks of a d = 1 stack as exact PL blocks (oracle/algebra/stacks/d1.py), biases included."""
    out = []
    for b in stack.blocks:
        rec: dict[str, Any] = {"v": [r[0] for r in qmat(b.W_up)], "w": qmat(b.W_down)[0],
                               "M": qmat(b.M)[0][0] if b.M is not None else Fraction(1)}
        if b.b_up is not None:
            rec["b_up"] = qvec(np.asarray(b.b_up).ravel())
        if b.b_down is not None:
            rec["b_down"] = to_fraction(np.asarray(b.b_down).ravel()[0])
        out.append(rec)
    return out


def _d1_biased_decision(stack: Stack, info: dict[str, Any]) -> dict[str, Any]:
    """d = 1 with biases: part (B) of depth-d1 on the exact piecewise-linear form of F."""
    blocks = _d1_pl_blocks(stack)
    dec = d1.decide_d1_biased(blocks, info["widths"])
    cert = {**info, "pl_blocks": d1.pl_blocks_json(blocks), "d1_biased": dec}
    if dec["verdict"] == "undecided":
        return _result("undecided", None, False, "d = 1 with biases: " + dec["reason"], cert)
    head = (f"d = 1 with biases: F is piecewise linear with {dec['kinks']} kinks and end slopes "
            f"{dec['end_slopes'][0]}, {dec['end_slopes'][1]}; ")
    if dec["verdict"] == "absorbable":
        return _result("absorbable", d1.biased_claim(dec), True, head + dec["reason"] + " (checked by the exact "
                       "piecewise-linear comparison)", cert, dec["plain"])
    return _result("not_absorbable", d1.biased_claim(dec), True, head + dec["reason"], cert)


def _exact_block(b: Block) -> dict[str, Any]:
    return dead.exact_block(qmat(b.W_up), qmat(b.W_down), qmat(b.M) if b.M is not None else None,
                            qvec(np.asarray(b.b_up).ravel()) if b.b_up is not None else None,
                            qvec(np.asarray(b.b_down).ravel()) if b.b_down is not None else None)


def _float_block(rec: dict[str, Any], kind: str) -> Block:
    """A Block from exact JSON (an exact block of oracle/algebra/stacks/dead.py, kind 'residual', or a
    plain layer W_up/W_down/b_up/b_down); ValueError when an entry is not a float64 number."""
    def arr(vals: Any) -> np.ndarray:
        out = np.array(vals, dtype=object)
        flat = [Fraction(v) for v in out.ravel()]
        if any(q.denominator & (q.denominator - 1) for q in flat):
            raise ValueError("a weight is not dyadic")
        return np.array([float(q) for q in flat]).reshape(out.shape)
    if kind == "residual":
        return Block("relu", W_up=arr(rec["U"]), W_down=arr(rec["W"]), M=arr(rec["M"]), b_up=arr(rec["c"]),
                     b_down=arr(rec["e"]))
    return Block("relu", kind="plain", W_up=arr(rec["W_up"]), W_down=arr(rec["W_down"]),
                 b_up=arr(rec["b_up"]) if "b_up" in rec else None, b_down=arr(rec["b_down"]) if "b_down" in rec else None)


def _plain_layer_json(b: Block) -> dict[str, Any]:
    rec = {"W_up": smat(qmat(b.W_up)), "W_down": smat(qmat(b.W_down))}
    rec["b_up"] = svec(qvec(np.asarray(b.b_up).ravel())) if b.b_up is not None else ["0"] * b.m
    rec["b_down"] = svec(qvec(np.asarray(b.b_down).ravel())) if b.b_down is not None else ["0"] * b.d
    return rec


def _dead_block_decision(stack: Stack, info: dict[str, Any]) -> Optional[dict[str, Any]]:
    """depth-dead-block: when block 2 is dead on the image of block 1 (exact Farkas certificate),
    F = M_2 G_1 + e_2; decided by (c) (a width < d and an invertible piece) or (b) (G_1 is a plain block
    and m_2 >= 2 d - rank U_2); None otherwise (not dead, too large, or dead with neither part: then
    info['dead_block'] says why and the other procedures run)."""
    d, (m1, m2) = info["d"], info["widths"]
    if dead.dead_work(d, m1, m2) > dead.MAX_DEAD_WORK:
        info["dead_block"] = f"not searched: {dead.dead_work(d, m1, m2)} > {dead.MAX_DEAD_WORK} small solves"
        return None
    b1, b2 = _exact_block(stack.blocks[0]), _exact_block(stack.blocks[1])
    dc = dead.dead_certificate(b1, b2)
    if not dc["dead"]:
        info["dead_block"] = dc["reason"]
        return None
    cert = {**info, "dead_blocks": [dead.block_json(b1), dead.block_json(b2)], "dead": dc}
    head = ("block 2 is dead on the image of block 1 (exact Farkas certificate over the "
            f"{2 ** m1} activation patterns of block 1), so F = M_2 G_1 + e_2 (depth-dead-block (a))")
    if min(m1, m2) < d:
        pc = dead.invertible_piece(b1, b2["M"])
        if pc is not None:
            cert["part"], cert["invertible_piece"] = "c", pc
            return _result("not_absorbable", "depth-dead-block", True, head + f"; on the open region of the point "
                           f"{pc['point']} F is affine with an invertible linear part (det {pc['det']}), and a plain "
                           f"stack with a width < d = {d} has an image of measure zero (part (c)): no plain stack "
                           "of these widths, biases allowed, equals F", cert)
    p2 = dead.second_layer(b2, m2)
    if p2 is None:
        return _dead_open(info, head + f"; part (b) needs m_2 >= 2 d - rank U_2 = {2 * d - dead.rank(b2['U'])} "
                          "and part (c) a width < d with an invertible piece found")
    v = single.decide(stack.blocks[0])
    if v.verdict != "absorbable" or v.plain is None or v.plain.m != m1:
        return _dead_open(info, head + f"; block 1 alone is {v.verdict} at width {m1} ({v.claim}), so part (b) "
                          "does not apply")
    cert["block_1_verdict"] = {"verdict": v.verdict, "claim": v.claim, "exact": v.exact}
    cmp = compare_blocks(stack.blocks[0], v.plain)
    if cmp.equal is not True:   # pragma: no cover - the block decision's plain block equals its block
        return _result("undecided", None, False, head + "; block 1's plain block is not proved equal", cert)
    plain = [_plain_layer_json(v.plain), dead.second_layer_json(p2)]
    cert["part"], cert["P2"] = "b", {k: p2[k] for k in ("dead_rows", "rank", "width_needed")}
    cert["P1_equal"] = cmp.reason
    return _result("absorbable", "depth-dead-block", True, head + f"; block 1 is a plain block of width {m1} "
                   f"({v.claim}; equal canonical forms, exact), and a plain block of width {m2} >= 2 d - rank U_2 = "
                   f"{p2['width_needed']} is M_2 y + e_2 on the image (part (b))", cert, plain)


def _dead_open(info: dict[str, Any], note: str) -> None:
    """Block 2 is dead but neither part decides: the reduction is noted and the other procedures run
    (an undecided verdict then states it)."""
    info["dead_block"] = note
    return None


def _dead_note(info: dict[str, Any]) -> str:
    note = info.get("dead_block")
    return f" [{note}]" if isinstance(note, str) and note.startswith("block 2 is dead") else ""


def _recheck_dead_block(result: dict[str, Any]) -> bool:
    cert = result["certificate"]
    b1, b2 = (dead.block_from_json(r) for r in cert["dead_blocks"])
    d, widths = len(b1["M"]), [len(b1["U"]), len(b2["U"])]
    if cert["widths"] != widths or cert["d"] != d or not dead.check_dead_certificate(b1, b2, cert["dead"]):
        return False
    if result["verdict"] == "not_absorbable":
        return (cert.get("part") == "c" and min(widths) < d and "plain_stack" not in result
                and dead.check_invertible_piece(b1, b2["M"], cert["invertible_piece"]))
    if result["verdict"] != "absorbable" or cert.get("part") != "b":
        return False
    plain = result["plain_stack"]
    p2 = dead.second_layer(b2, widths[1])
    if p2 is None or len(plain) != 2 or plain[1] != dead.second_layer_json(p2):
        return False
    P1 = _float_block(plain[0], "plain")
    return P1.m == widths[0] and compare_blocks(_float_block(cert["dead_blocks"][0], "residual"), P1).equal is True


def _float_norm_sq_upper(a: np.ndarray) -> float:
    """A rigorous upper bound of |a|_F^2 from float64 arithmetic: each square and each addition
    has relative error <= 2^-53, so any summation order is within (1 + 2^-53)^(n+1) <= 1 + 2n 2^-53
    (n 2^-53 < 1e-3); underflowed squares are covered by n * 2^-1022."""
    a = np.asarray(a, dtype=np.float64)
    n = a.size
    s = float(np.sum(a * a))
    return s * (1 + 2 * (n + 1) * 2.0 ** -53) + n * 2.0 ** -1022


def _large_decision(stack: Stack, info: dict[str, Any], biased: bool, ident: bool) -> dict[str, Any]:
    """Stacks too large for the exact procedures: only depth-narrow parts (a)/(b) with the norm bound."""
    d, widths = info["d"], info["widths"]
    part = narrow_part(d, widths, widths)
    if stack.blocks[0].activation == "relu" and not biased and ident and part in ("a", "b"):
        bounds = [(_float_norm_sq_upper(b.W_up), _float_norm_sq_upper(b.W_down)) for b in stack.blocks]
        # The product is rounded up by one more relative 2^-52 before comparing with 1.
        ok = [bu * bw * (1 + 2.0 ** -52) < 1 for bu, bw in bounds]
        cert = {**info, "part": part, "norm_bounds_sq": [[bu, bw] for bu, bw in bounds], "norm_ok": ok,
                "method": "rigorous float64 upper bounds of the Frobenius norms"}
        if all(ok):
            return _result("not_absorbable", "depth-narrow", True,
                           f"depth-narrow part ({part}): |W_l|_F |U_l|_F < 1 (rigorous bound) makes every "
                           "piece invertible", cert)
        return _result("undecided", None, False, "too large for the exact procedures and the norm bound "
                       "is not below 1", cert)
    return _result("undecided", None, False,
                   f"too large for the exact procedures (m d > {MAX_EXACT_ENTRIES} in some block); the "
                   "generic statements of depth-dimension and depth-d2 do not decide one stack", info)


# ================================================================ re-checking a decision

def recheck_decision(result: dict[str, Any]) -> bool:
    """Re-verify an exact verdict of decide_stack from its dictionary alone (False if it does not hold),
    and the bias-free answer ``biases_none`` that an 'auto' decision reports beside it, if any."""
    if not _recheck_one(result):
        return False
    free = result.get("biases_none")
    if free is None:
        return True
    try:
        return (isinstance(free, dict) and free.get("replacing_biases") == "none"
                and free["certificate"]["pl_blocks"] == result["certificate"]["pl_blocks"]
                and free["verdict"] != result["verdict"] and _recheck_one(free))
    except (KeyError, TypeError):
        return False


def check_other_answer(doc: dict[str, Any]) -> None:
    """Refuse (:class:`Refused`, naming the field) an answer to the other bias question that no
    certificate in the document answers.  check states that answer in ``other_convention``, only
    beside an undecided verdict without a claim (decide_stack: the question asked is not the one the
    decision answered, or _bias_free_decision found no bias-free answer), as a whole decision whose
    certificate is the document's own; a stack document has no ``biases_allowed``, and its
    ``biases_none`` is a whole decision that recheck_decision verifies.  Before this, a decided
    ``other_convention`` carried only a verdict, a claim and exactness, with no certificate."""
    if "biases_allowed" in doc:
        raise Refused("biases_allowed", "check writes no biases_allowed in a stack document (the answer with "
                      "biases allowed is the verdict itself or other_convention)")
    oc = doc.get("other_convention")
    if oc is None:
        return
    if not isinstance(oc, dict):
        raise Refused("other_convention", "is not an object")
    for k in oc:
        if k not in OTHER_ANSWER_FIELDS:
            raise Refused(f"other_convention.{k}", "is a field check never writes in the other question's answer")
    if doc.get("verdict") != "undecided" or doc.get("claim") is not None:
        raise Refused("other_convention", "check states the other question's answer only beside an undecided "
                      f"verdict without a claim; this document states {doc.get('verdict')!r} ({doc.get('claim')})")
    verdict, conv = oc.get("verdict"), oc.get("replacing_biases")
    if verdict not in ("absorbable", "not_absorbable"):
        raise Refused("other_convention.verdict", f"states {verdict!r}; check states only a decided answer there")
    if not isinstance(oc.get("certificate"), dict):
        raise Refused("other_convention.certificate", f"the {verdict} answer to the question {conv!r} is stated "
                      "without a certificate, and the undecided verdict's certificate answers no question")
    if oc["certificate"] != doc.get("certificate"):
        raise Refused("other_convention.certificate", "is not the document's certificate (check states the "
                      "decision about the same stack that the undecided verdict reports)")
    if not recheck_decision(oc):
        raise Refused("other_convention", f"the {verdict} answer ({oc.get('claim')}) does not re-verify from its "
                      "certificate")
    if conv != stack_convention(oc) or conv not in ("allowed", "none", "unstated"):
        raise Refused("other_convention.replacing_biases", f"states {conv!r}; a {verdict} verdict of "
                      f"{oc.get('claim')} answers {stack_convention(oc)!r}")


def _recheck_one(result: dict[str, Any]) -> bool:
    try:
        cert = result["certificate"]
        claim = result["claim"]
        if "block_certificate" in cert:  # a stack of one block, decided by oracle.decide.block
            doc = {k: result.get(k) for k in ("verdict", "claim", "exact")}
            return document.recheck_block_document(block_from_json(cert["block"]),
                                                   {**doc, "certificate": cert["block_certificate"]})[0]
        if not result.get("exact"):
            rc = cert.get("rank_certificate")
            if claim == "depth-dimension":
                return check_rank_certificate(layers_from_json(cert["residual"]), rc)
            if claim == "depth-analytic":
                st = cert["analytic"]
                rc2 = st["certificate"]
                return (result["verdict"] == "undecided" and st["certified"] is True
                        and rc2["activation"] == cert["activation"] and rc2["d"] == cert["d"]
                        and rc2["widths"] == cert["widths"] and analytic.recheck(rc2))
            if claim == "depth-analytic-generic":
                # a statement about almost every stack of the family: only its premises are checked
                return (result["verdict"] == "undecided" and cert["activation"] in analytic.ACTIVATIONS
                        and int(cert["d"]) >= 2 and len(cert["widths"]) >= 2)
            return False
        if claim in ("depth-impossible", "depth-any"):
            st = stack_from_json(cert["blocks"])
            P = skip_product(st)
            ident = all(b.M is None or np.array_equal(b.M, np.eye(b.d)) for b in st.blocks)
            return (all(is_flat(b) for b in st.blocks) and not is_zero_matrix(P) and smat(P) == cert["skip_product"]
                    and claim == ("depth-impossible" if ident else "depth-any")
                    and result["verdict"] == "not_absorbable")
        if claim == "relu-gelu-iff" and result["verdict"] == "absorbable":
            layers = layers_from_json(cert["residual"])
            plain = layers_from_json(result["plain_stack"])
            Ms = [qmat(M) for M in cert["skips"]]
            if len(plain) != len(layers):
                return False
            for (U, W), (V, W2), M, S in zip(layers, plain, Ms, cert["chosen_sets"]):
                if W2 != W or len(V) != len(U):
                    return False
                if tuple(S) not in all_index_sets_exact(U, W, M):
                    return False
                if any(V[i] != ([-v for v in U[i]] if i in S else U[i]) for i in range(len(U))):
                    return False
            return True
        if claim == "depth-narrow" and "conditions" in cert:
            layers = layers_from_json(cert["residual"])
            fresh = narrow_conditions(layers, [len(U) for U, _ in layers])
            return fresh["applies"] and fresh == cert["conditions"] and result["verdict"] == "not_absorbable"
        if claim in ("depth-d1", "depth-d1-biased") and "d1_biased" in cert:
            blocks = d1.pl_blocks_from_json(cert["pl_blocks"])
            dec = cert["d1_biased"]
            if (dec["plain_widths"] != [len(b["v"]) for b in blocks] or dec["verdict"] != result["verdict"]
                    or d1.biased_claim(dec) != claim):
                return False
            if dec.get("part") == "B0":
                if result.get("replacing_biases") != "none" or not d1.recheck_d1_bias_free(blocks, dec):
                    return False
            elif not d1.recheck_d1_biased(blocks, dec):
                return False
            if dec["verdict"] == "absorbable":
                return result.get("plain_stack") == dec["plain"]
            return "plain_stack" not in result
        if claim == "depth-d1":
            layers = layers_from_json(cert["residual"])
            skips = qvec(cert["skips"])
            dec = cert["d1"]
            if len(skips) != len(layers) or dec["plain_widths"] != [len(U) for U, _ in layers]:
                return False
            if not d1.recheck_d1_decision(layers, skips, dec):
                return False
            if dec["absorbable"]:
                return result["verdict"] == "absorbable" and result.get("plain_stack") == dec["plain"]
            return result["verdict"] == "not_absorbable" and "plain_stack" not in result
        if claim == "depth-dead-block":
            return _recheck_dead_block(result)
        if claim == "depth-near-identity":
            layers = layers_from_json(cert["residual"])
            cond = cert["conditions"]
            return (near_identity.recheck_conditions(layers, cond) and not all(cond["index_sets"])
                    and result["verdict"] == "not_absorbable")
        if claim == "depth-d2":
            layers = layers_from_json(cert["residual"])
            fresh = d2_conditions(layers)
            return (fresh["applies"] and fresh == cert["conditions"] and not all(fresh["index_sets"])
                    and fresh["kink_rays"] == fresh["expected_kink_rays"]
                    and result["verdict"] == "not_absorbable")
        return False
    except (KeyError, TypeError, ValueError, ZeroDivisionError, IndexError):
        return False


# ================================================================ command-line helpers (for `absorb check`)

def plain_stack_from_result(result: dict[str, Any], activation: str) -> Stack:
    """The plain stack of an 'absorbable' decision as a Stack (exact rationals rounded to float64
    only when they are dyadic; otherwise an InputError says the weights are not representable)."""
    blocks = []
    for rec in result["plain_stack"]:
        arrs = {}
        for name in ("W_up", "W_down"):
            vals = qmat(rec[name])
            if any(q.denominator & (q.denominator - 1) for row in vals for q in row):
                raise InputError("the plain stack has non-dyadic weights that float64 cannot hold exactly")
            arrs[name] = np.array([[float(q) for q in row] for row in vals])
        for name in ("b_up", "b_down"):   # biased plain stacks (depth-d1 part (B), depth-dead-block)
            if name in rec:
                vals = qvec(rec[name])
                if any(q.denominator & (q.denominator - 1) for q in vals):
                    raise InputError("the plain stack has non-dyadic biases that float64 cannot hold exactly")
                if any(q != 0 for q in vals):
                    arrs[name] = np.array([float(q) for q in vals])
        blocks.append(Block(activation, kind="plain", **arrs))
    return Stack(blocks)


def format_decision(result: dict[str, Any]) -> str:
    """A short terminal rendering of a decide_stack result."""
    c = result["certificate"]
    head = (f"stack: {c.get('activation')}, d = {c.get('d')}, {c.get('layers')} blocks, widths "
            f"{c.get('widths')}")
    lines = [head, f"verdict: {result['verdict']}" + (f" ({result['claim']}, "
             f"{'exact' if result['exact'] else 'not exact'})" if result["claim"] else ""),
             f"reason: {result['reason']}"]
    an = c.get("analytic")
    if an and an.get("certified"):
        ac = an["certificate"]
        lines.append(f"rank certificate (depth-analytic): full rank N = {an['N']} > D_plain = {an['D_plain']} "
                     f"at {an['at']}, {len(ac['points'])} points, minor determinant {ac['det']} "
                     f"({ac['precision']}-bit arb balls)")
    rc = c.get("rank_certificate")
    if rc:
        lines.append(f"rank certificate: rank {rc['rank']} at {len(rc['points'])} points, D_plain = "
                     f"{rc['D_plain']}, N - m = {rc['N_minus_m']}")
    return "\n".join(lines)
