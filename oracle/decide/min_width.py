"""The minimal width of a residual-free block equal to x -> M x + B(x), for ``absorb check``.

Two claims settle it for ungated blocks: relu-complete (relu) and gelu-complete (gelu, gelu_tanh,
silu).  :func:`statement` computes, from the weights alone, what the claim says for the question
asked (``replacing_biases``: 'allowed' or 'none'):

* value: the exact minimal width m* (an int), or None when it is not settled here (too many
  active classes for the exact enumeration, a block too large for exact rationals, or a relu block
  with biases asked for a bias-free replacing block, which relu-complete does not answer);
* exists: False when no replacing block of any width exists (gelu-complete (b): a bias-free block
  needs F(0) = 0 and unbiased active classes);
* the optimal (s, T), and the exact construction of width m* (proofs/informal/relu-complete.md and
  gelu-complete.md, "Construction").

The statement is a pure function of the weights and the question, so the re-check recomputes it
and compares field by field.  :func:`decide_gelu` turns it into a verdict for gelu-family blocks
that relu-limit leaves undecided (degenerate blocks: zero, equal, opposite or collinear rows), and
:func:`plain_block` builds the float64 block of width m* that ``--emit OUT --min-width`` writes.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Optional

import numpy as np

from oracle.algebra import gelu_width
from oracle.algebra.canonical import compare_blocks, relu_form
from oracle.algebra.relu_width import MAX_EXACT_CLASSES, build_construction, cost, minimal_width
from oracle.core import arith
from oracle.core.blocks import Block
from oracle.core.rational import rounding_errors, to_arb
from oracle.decide.relu import EXACT_WORK, enumeration_work

GELU_CLAIM = gelu_width.CLAIM
RELU_CLAIM = "relu-complete"
MAX_ENTRIES = 20_000  # m * d up to which the exact rational form is computed here


def applies(block: Block) -> bool:
    """Whether a minimal-width claim covers this block's activation."""
    return not block.gated and (block.activation == "relu" or block.activation in gelu_width.FAMILY)


def statement(block: Block, conv: str) -> Optional[dict[str, Any]]:
    """What relu-complete / gelu-complete say about the minimal width for question ``conv``."""
    if not applies(block) or block.kind != "residual":
        return None
    relu = block.activation == "relu"
    claim = RELU_CLAIM if relu else GELU_CLAIM
    out: dict[str, Any] = {"claim": claim, "replacing_biases": conv}
    if block.m * block.d > MAX_ENTRIES or block.d * block.d > MAX_ENTRIES:
        out.update({"value": None, "exists": None,
                    "reason": f"not computed: m*d = {block.m * block.d} exceeds the {MAX_ENTRIES} entries up to "
                              "which the exact form is formed for this statement"})
        return out
    form = relu_form(block) if relu else gelu_width.gelu_form(block)
    h = len(form.active)
    # the exact enumeration only when it is small (as oracle/decide/relu.py), exact bounds otherwise
    wr = minimal_width(form, MAX_EXACT_CLASSES if enumeration_work(h, block.d) <= EXACT_WORK else -1)
    out.update({"active_classes": len(form.active), "lower": wr.lower, "upper": wr.upper,
                "s": wr.s, "T": wr.T, "cost": wr.cost, "method": wr.method})
    if relu:
        exists: Optional[bool] = True if (conv == "allowed" or not form.biased) else None
        con_json = build_construction(form, wr.s, wr.T).as_json()
        if exists is None:
            why = ("relu-complete answers the bias-free question for bias-free blocks only; this block has "
                   "biases")
        else:
            why = "relu-complete" + ("" if conv == "allowed" else ": F is bias-free, so biases never save a unit")
    else:
        exists = True if conv == "allowed" else form.bias_free_representable()
        if exists is None:
            exists = _f0_vanishes(block, form)
        con = gelu_width.construct(form, wr.s, wr.T)
        con_json = con.as_json()
        if exists is None:
            why = ("gelu-complete (b) needs F(0) = 0; F(0) = rational + sum of s(c) terms of zero rows with "
                   "biases, and its arb enclosure contains 0: not settled")
        elif exists:
            why = "gelu-complete (a)" if conv == "allowed" else "gelu-complete (b): F(0) = 0, active classes unbiased"
        else:
            why = ("gelu-complete (b): no bias-free block of any width equals F (F(0) != 0 or an active class "
                   "has b_H != 0)")
    value = wr.lower if (wr.exact and exists) else None
    if exists and not wr.exact:
        why += f"; only bounds {wr.lower} <= m* <= {wr.upper} ({wr.method})"
    out.update({"value": value, "exists": exists, "reason": why,
                "construction": con_json if (exists and wr.exact) else None})
    return out


def with_stated_plan(block: Block, st: dict[str, Any], stated: Any) -> dict[str, Any]:
    """The statement ``st`` (recomputed from the weights) with the plan a document states, when that
    plan is another optimal one: several (s, T) can reach the minimum (a class in T has no sign
    that matters, equal costs tie), and a document is verified, not decided again.  The stated
    (s, T) must be well formed for the block's active classes, its cost |T| + 2 rank(N_s K_T) is
    recomputed exactly and must equal the minimum, and the construction is rebuilt from it.
    Anything else returns ``st`` unchanged, so the field comparison refuses the document."""
    if not isinstance(stated, dict) or st.get("value") is None or st.get("cost") is None:
        return st
    s, T = stated.get("s"), stated.get("T")
    if s == st.get("s") and T == st.get("T"):
        return st
    form = relu_form(block) if block.activation == "relu" else gelu_width.gelu_form(block)
    h = len(form.active)
    if not (isinstance(s, list) and len(s) == h and all(type(v) is int and v in (1, -1) for v in s)):
        return st
    if not (isinstance(T, list) and all(type(i) is int and 0 <= i < h for i in T) and T == sorted(set(T))):
        return st
    if cost(form, s, T) != st["cost"]:
        return st
    if block.activation == "relu":
        con = build_construction(form, s, T).as_json()
    else:
        con = gelu_width.construct(form, s, T).as_json()
    return {**st, "s": list(s), "T": list(T),
            "construction": con if st.get("construction") is not None else None}


def _f0_vanishes(block: Block, form: Any) -> Optional[bool]:
    """False when an arb enclosure of F(0) = const + sum_c v_c s(c) excludes 0 in some output, else
    None (a ball containing 0 proves nothing)."""
    const, sym = form.f0_terms()
    s = block.act.ball
    with arith.precision("ball", 200):
        for a in range(block.d):
            acc = to_arb(const[a])
            for key, vec in sym.items():
                acc += to_arb(vec[a]) * s(to_arb(key))
            if not acc.contains(0):
                return False
    return None


def gelu_verdict(cert: dict[str, Any]) -> str:
    """The verdict a gelu_complete certificate supports."""
    st = cert["minimal_width"]
    if st["exists"] is False:
        return "not_absorbable"
    if st["value"] is None:
        return "undecided"
    return "absorbable" if st["value"] <= cert["width_asked"] else "not_absorbable"


def decide_gelu(block: Block, st: Optional[dict[str, Any]], info: dict[str, Any], before: str
                ) -> Optional[tuple[str, str, dict[str, Any], Optional[Block]]]:
    """(verdict, reason, certificate, plain) from gelu-complete's statement ``st``, or None when it
    does not settle the question."""
    if st is None or st["claim"] != GELU_CLAIM or (st["value"] is None and st["exists"] is not False):
        return None
    cert = {"kind": "gelu_complete", "block": info, "width_asked": block.m, "minimal_width": st,
            "relu_limit_said": before}
    verdict = gelu_verdict(cert)
    plain = None
    if st["exists"] is False:
        reason = st["reason"]
    else:
        reason = (f"minimal width m* = {st['value']} ({st['active_classes']} active classes +-(u, b) + cost "
                  f"{st['cost']}; gelu-complete) {'<=' if st['value'] <= block.m else '>'} m = {block.m}")
        if verdict == "absorbable":
            plain, rec = plain_block(block, st, block.m)
            cert["emitted_block"] = rec
            reason += "; the emitted block is the construction of width m*, padded with zero units"
            if not rec["exact"]:
                reason += " (" + ", ".join(rec["rounded"]) + " rounded to float64)"
    return verdict, reason, cert, plain


def _q(v: Any) -> Fraction:
    return Fraction(v)


def plain_block(block: Block, st: dict[str, Any], width: Optional[int] = None) -> tuple[Block, dict[str, Any]]:
    """The float64 block of the statement's construction, padded with zero units to ``width``
    (default m*); the record says which arrays were rounded and how the block was checked."""
    con = st["construction"]
    d = block.d
    k = int(con["width"])
    w = k if width is None else int(width)
    if w < 1:
        raise ValueError("m* = 0: F is a constant map; a block file needs at least one unit")
    U = [[_q(v) for v in r] for r in con["W_up"]] + [[Fraction(0)] * d for _ in range(w - k)]
    c = [_q(v) for v in con["b_up"]] + [Fraction(0)] * (w - k)
    W = [[_q(v) for v in r] + [Fraction(0)] * (w - k) for r in con["W_down"]] if k else \
        [[Fraction(0)] * w for _ in range(d)]
    bd = [_q(v) for v in con["b_down"]]
    sym = {Fraction(key): [_q(x) for x in vec] for key, vec in (con.get("b_down_s_terms") or {}).items()}
    Uf = np.array([[float(v) for v in r] for r in U], dtype=np.float64).reshape(w, d)
    cf = np.array([float(v) for v in c], dtype=np.float64)
    Wf = np.array([[float(v) for v in r] for r in W], dtype=np.float64).reshape(d, w)
    if sym:
        # b_down holds sum_c v_c s(c) as well: a real number, enclosed at 200 bits and rounded
        s = block.act.ball
        with arith.precision("ball", 200):
            vals = []
            for a in range(d):
                acc = to_arb(bd[a])
                for key, vec in sym.items():
                    acc += to_arb(vec[a]) * s(to_arb(key))
                vals.append(acc)
        bf = np.array([float(v.mid()) for v in vals], dtype=np.float64)
        sym_err = max(float(abs(v - to_arb(float(f))).upper()) for v, f in zip(vals, bf))
    else:
        bf = np.array([float(v) for v in bd], dtype=np.float64)
        sym_err = 0.0
    exact = {"W_up": [v for r in U for v in r], "b_up": c, "W_down": [v for r in W for v in r]}
    rounded, err = rounding_errors(exact, {"W_up": Uf, "b_up": cf, "W_down": Wf})
    if not sym:
        r2, e2 = rounding_errors({"b_down": bd}, {"b_down": bf})
        rounded += r2
        err.update(e2)
    else:
        rounded.append("b_down")
        err["b_down"] = sym_err
    plain = Block(block.activation, W_up=Uf, W_down=np.ascontiguousarray(Wf),
                  b_up=cf if np.any(cf != 0) else None, b_down=bf if np.any(bf != 0) else None, kind="plain")
    rec: dict[str, Any] = {"exact": not rounded, "rounded": rounded, "max_entry_error": err, "width": w,
                           "construction_width": k}
    if not rounded:
        cmp = compare_blocks(block, plain)
        if not cmp.equal:  # pragma: no cover - would contradict the construction
            raise RuntimeError("the minimal-width block differs from the residual block")
        rec["check"] = "equal to the residual block (exact canonical forms, oracle/algebra/canonical.py): " + cmp.reason
    else:
        rec["check"] = ("the exact construction equals the residual block (canonical forms); the file holds the "
                        "listed arrays rounded to float64" + (" (b_down holds s(c) terms of zero rows, enclosed in "
                                                              "arb balls)" if sym else ""))
    return plain, rec
