"""Exact decisions for ungated relu-type blocks, for ``absorb check`` to call (claims relu-complete and
relu-limit).  Pure functions: they take a residual ``blocks.Block`` and return a verdict dict

    {"verdict": "absorbable" | "not_absorbable" | "undecided", "claim": ..., "exact": bool,
     "reason": str, "certificate": {...}, "plain": Block | None}

with a certificate that ``recheck_relu`` / ``recheck_odd`` re-verify from the block and the
certificate alone.

* ``decide_relu(block, width=None)``: every relu block (degenerate, biased, any d >= 1, any M).
  The minimal width m* of a relu block equal to x -> M x + B(x) (relu-complete) decides
  absorbability at ``width`` (default: the block's own width m): absorbable iff m* <= width.
  Small blocks: m* exactly (all sign vectors and class sets).  Large blocks: exact bounds; the
  cost-0 case (m* = |script-H|, an "index set" over the classes) is decided by the index-set
  search, so m* <= m is decided whenever the search finishes.
* ``decide_odd(block)``: gelu, gelu_tanh, silu (and relu) blocks that are nondegenerate in the
  bias-free sense, with or without biases (relu-limit): absorbable at the same width iff an index
  set S with W_down[:,S] W_up[S,:] = -M exists; the replacing block flips the rows and b_up entries
  in S and adds W_S b_S to b_down.

Every replacing block is verified against the residual block exactly through the canonical forms
(oracle/canonical.py) before it is returned.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, Callable, Optional

import numpy as np

from . import search
from .blocks import Block, nondegeneracy
from .canonical import (Comparison, compare_blocks, fq, group_rows, relu_form, relu_function_equal,
                        _rows_of)
from .relu_width import MAX_EXACT_CLASSES, WidthResult, build_block, construction_form, minimal_width

Progress = Callable[[str], None]
SMALL = 20_000  # m * d up to which the full exact canonical form is computed
RELU_COMPLETE = "relu-complete"
RELU_LIMIT = "relu-limit"
ODD_ACTS = ("gelu", "gelu_tanh", "silu", "relu")


def _quiet(_: str) -> None:
    return None


_P = 2147483629  # a prime below 2^31


def rank_lower_mod_p(A: np.ndarray, p: int = _P) -> int:
    """A rigorous lower bound for the rank of a float64 matrix: its rank modulo a prime.

    Each row is scaled by a power of two to integers (row scaling keeps the rank); a set of rows
    independent modulo p is independent over the rationals.
    """
    from flint import nmod_mat

    A = np.atleast_2d(np.asarray(A, dtype=np.float64))
    if A.size == 0:
        return 0
    fr, ex = np.frexp(A)
    mant = (fr * 2.0 ** 53).astype(np.int64)
    ex = ex.astype(np.int64) - 53
    nz = mant != 0
    low = np.where(nz, ex, np.iinfo(np.int64).max).min(axis=1)
    low = np.where(low == np.iinfo(np.int64).max, 0, low)
    sh = np.where(nz, ex - low[:, None], 0)
    uniq, inv = np.unique(sh, return_inverse=True)
    table = np.array([pow(2, int(k), p) for k in uniq], dtype=np.int64)
    res = (np.mod(mant, p) * table[inv.reshape(sh.shape)]) % p
    return int(nmod_mat(A.shape[0], A.shape[1], res.ravel().tolist(), p).rank())


def _is_double(v: Fraction) -> bool:
    try:
        return Fraction(float(v)) == v
    except OverflowError:
        return False


def _verdict(verdict: str, claim: Optional[str], exact: bool, reason: str, cert: dict[str, Any],
             plain: Optional[Block] = None) -> dict[str, Any]:
    return {"verdict": verdict, "claim": claim, "exact": exact, "reason": reason,
            "certificate": cert, "plain": plain}


def _block_info(block: Block) -> dict[str, Any]:
    return {"activation": block.activation, "d": block.d, "m": block.m,
            "M": "identity" if block.M is None else "given",
            "biases": [n for n in ("b_up", "b_down") if getattr(block, n) is not None
                       and np.any(getattr(block, n) != 0)]}


def _pad(U: list, c: list, Wcols: list, d: int, width: int) -> tuple[list, list, list]:
    """Pad with zero units (u = 0, c = 0, w = 0) up to ``width``."""
    while len(U) < width:
        U.append([Fraction(0)] * d)
        c.append(Fraction(0))
        Wcols.append([Fraction(0)] * d)
    return U, c, Wcols


def _to_block(U: list, c: list, W_down: list, b_down: list, act: str) -> tuple[Optional[Block], bool]:
    """A plain block from exact rationals; (block, every entry was an exact double)."""
    allv = [v for r in U for v in r] + list(c) + [v for r in W_down for v in r] + list(b_down)
    exact = all(_is_double(v) for v in allv)
    m = len(U)
    if m == 0:
        return None, exact
    d = len(W_down)
    blk = Block(act, W_up=np.array([[float(v) for v in r] for r in U], dtype=np.float64).reshape(m, d),
                W_down=np.array([[float(v) for v in r] for r in W_down], dtype=np.float64).reshape(d, m),
                b_up=np.array([float(v) for v in c]) if any(c) else None,
                b_down=np.array([float(v) for v in b_down]) if any(b_down) else None, kind="plain")
    return blk, exact


# ---------------------------------------------------------------------------- relu-complete

def _classes_fast(block: Block) -> dict[str, Any]:
    """Active classes of a relu block without the full rational form (O(m d) plus small classes)."""
    rows = _rows_of(block)
    g = group_rows(rows, "scale")
    W = block.W_down
    active, multi_active, inactive_multi = [], [], []
    for k, mem in enumerate(g.members):
        if len(mem) == 1:
            if np.any(W[:, mem[0]] != 0):
                active.append(k)
            continue
        f = int(g.lead[mem[0]])
        alpha = [sum((abs(fq(rows[i, f])) * fq(W[a, i]) for i in mem), Fraction(0)) for a in range(block.d)]
        if any(alpha):
            active.append(k)
            multi_active.append(k)
        else:
            inactive_multi.append(k)
    return {"grouping": g, "rows": rows, "active": active, "multi_active": multi_active,
            "inactive_multi": inactive_multi}


def _index_problem(block: Block, cls: dict[str, Any]) -> Optional[tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]]:
    """The cost-0 question (some s with N_s = 0) as an index-set problem on float64 arrays, or None.

    For a class H with representative row r (one of its units) and lam_i = u_i[f]/r[f]:
    N_s = M + sum_inactive beta r^T + sum_active (beta - alpha) r^T + sum_{s_H = -1} 2 alpha r^T, with
    alpha, beta relative to r.  Singleton active classes give the unit itself (beta = alpha = w/2);
    the problem is "some S with sum_S v_H r_H^T = -M'" with v_H = 2 alpha_H.
    """
    g, rows = cls["grouping"], cls["rows"]
    d = block.d
    W = block.W_down
    Mq = [[fq(v) for v in r] for r in block.skip()]
    extra = False
    units_U, units_W = [], []
    for k in cls["active"]:
        mem = g.members[k]
        rep = mem[0]
        if len(mem) == 1:
            units_U.append(block.W_up[rep])
            units_W.append(W[:, rep])
            continue
        f = int(g.lead[rep])
        lam = {i: fq(rows[i, f]) / fq(rows[rep, f]) for i in mem}
        v = [sum((abs(lam[i]) * fq(W[a, i]) for i in mem), Fraction(0)) for a in range(d)]
        t = [sum(((lam[i] - abs(lam[i])) * fq(W[a, i]) for i in mem), Fraction(0)) / 2 for a in range(d)]
        if not all(_is_double(x) for x in v):
            return None
        units_U.append(block.W_up[rep])
        units_W.append(np.array([float(x) for x in v]))
        if any(t):
            extra = True
            r = [fq(x) for x in block.W_up[rep]]
            for a in range(d):
                for b in range(d):
                    Mq[a][b] += t[a] * r[b]
    for k in cls["inactive_multi"]:
        mem = g.members[k]
        extra = True
        for i in mem:
            for a in range(d):
                wa = fq(W[a, i]) / 2
                if wa:
                    for b in range(d):
                        Mq[a][b] += wa * fq(block.W_up[i, b])
    if extra and not all(_is_double(x) for r in Mq for x in r):
        return None
    M2 = np.array([[float(x) for x in r] for r in Mq]) if extra else block.skip()
    if not units_U:
        return np.zeros((0, d)), np.zeros((d, 0)), M2, []
    return np.vstack(units_U), np.column_stack(units_W), M2, cls["active"]


def decide_relu(block: Block, width: Optional[int] = None, progress: Progress = _quiet,
                max_classes: int = MAX_EXACT_CLASSES, max_exhaustive: int = 36,
                small_limit: int = SMALL) -> dict[str, Any]:
    """Decide whether a relu block of ``width`` units (default: the block's m) equals x -> M x + B(x).

    Rests on relu-complete: absorbable at width w iff m* <= w.  Returns the verdict dict described
    in the module docstring; the certificate states m* (or exact bounds) and how it was obtained.
    """
    if block.activation != "relu" or block.gated:
        raise ValueError("decide_relu needs an ungated relu block")
    if block.kind != "residual":
        raise ValueError("decide_relu needs a residual block (x -> M x + B(x))")
    t0 = time.perf_counter()
    w = block.m if width is None else int(width)
    info = _block_info(block)
    d, m = block.d, block.m
    if m * d <= small_limit:
        progress("exact canonical form (rationals)")
        form = relu_form(block)
        h = len(form.active)
        if h <= max_classes:
            progress(f"minimal width: {h} active classes, all sign vectors and class sets")
            wr = minimal_width(form, max_classes)
            return _finish_small(block, form, wr, w, info, t0)
    return _decide_relu_large(block, w, info, progress, max_exhaustive, t0)


def _hyper(h: int) -> str:
    return f"{h} active kink hyperplane" + ("" if h == 1 else "s")


def _finish_small(block: Block, form: Any, wr: WidthResult, w: int, info: dict[str, Any],
                  t0: float) -> dict[str, Any]:
    d = block.d
    con = build_block(form, wr.s, wr.T)
    same, why = relu_function_equal(construction_form(con, d), form)
    if not same or con.width != wr.lower:  # pragma: no cover - would contradict the proof
        raise RuntimeError(f"relu-complete construction failed: {why}")
    cert: dict[str, Any] = {
        "kind": "relu_complete", "block": info, "width_asked": w, "m_star": wr.lower,
        "active_classes": len(form.active), "s": wr.s, "T": wr.T, "cost": wr.cost,
        "method": wr.method, "construction": con.as_json(),
        "construction_check": "equal canonical forms (exact rationals): " + why,
        "seconds": round(time.perf_counter() - t0, 3)}
    if wr.lower <= w:
        cols = [[con.W_down[a][j] for a in range(d)] for j in range(con.width)]
        U, c, cols = _pad([list(r) for r in con.W_up], list(con.b_up), cols, d, w)
        Wd = [[cols[j][a] for j in range(len(cols))] for a in range(d)]
        plain, exact_floats = _to_block(U, c, Wd, con.b_down, "relu")
        cert["emitted_block_exact"] = exact_floats
        if plain is not None and exact_floats:
            cmp = compare_blocks(block, plain)
            cert["emitted_block_check"] = cmp.reason
            if not cmp.equal:  # pragma: no cover
                raise RuntimeError("emitted block differs from the residual block")
        reason = (f"minimal width m* = {wr.lower} <= {w} (relu-complete: {_hyper(len(form.active))} "
                  f"+ cost {wr.cost}); the constructed block equals x -> Mx + B(x) exactly")
        if not exact_floats:
            reason += "; some weights of the constructed block are not float64 numbers: the emitted file holds them rounded"
        return _verdict("absorbable", RELU_COMPLETE, True, reason, cert, plain)
    reason = (f"minimal width m* = {wr.lower} > {w} (relu-complete: {_hyper(len(form.active))} "
              f"+ cost {wr.cost}, exact over all sign vectors and class sets)")
    return _verdict("not_absorbable", RELU_COMPLETE, True, reason, cert)


def _decide_relu_large(block: Block, w: int, info: dict[str, Any], progress: Progress,
                       max_exhaustive: int, t0: float) -> dict[str, Any]:
    from .decide import flip_block

    d = block.d
    progress(f"grouping {block.m} units into kink hyperplanes (exact)")
    cls = _classes_fast(block)
    h = len(cls["active"])
    progress(f"{h} active kink hyperplanes; index-set search over the classes")
    prob = _index_problem(block, cls)
    cert: dict[str, Any] = {"kind": "relu_complete_bounds", "block": info, "width_asked": w,
                            "active_classes": h}
    # upper bound: s = +1 and T = r independent classes give cost <= r + 2 (d - r) = 2d - r
    r = rank_lower_mod_p(block.W_up[[cls["grouping"].reps[k] for k in cls["active"]]]) if h else 0
    upper = h + 2 * d - r
    lower = h
    cert["rank_of_active_directions_at_least"] = r
    if prob is None:
        cert.update({"lower": lower, "upper": upper,
                     "note": "the class problem has weights that are not float64 numbers; index search skipped"})
        return _bounds_verdict(cert, lower, upper, w, h)
    U, W, M2, _ = prob
    if U.shape[0] == 0:
        zero = not np.any(M2 != 0)
        res = search.SearchResult("found" if zero else "none", () if zero else None, "no active classes",
                                  {"kind": "index_set" if zero else "trivial"}, True)
    else:
        res = search.find_index_set(U, W, M2, max_exhaustive=max_exhaustive)
    cert["search"] = {"status": res.status, "method": res.method, "exact": res.exact,
                      **search._jsonable(res.certificate)}  # noqa: SLF001
    if res.status == "found":
        lower = upper = h
        cert.update({"m_star": h, "lower": h, "upper": h, "S_classes": list(res.S)})
        if h > w:
            return _verdict("not_absorbable", RELU_COMPLETE, True,
                            f"minimal width m* = {h} (number of active kink hyperplanes) > {w}", cert)
        if cls["multi_active"] or cls["inactive_multi"] or block.m != w:
            cert["note"] = "absorbable by relu-complete; the replacing block is not built for merged classes at this size"
            return _verdict("absorbable", RELU_COMPLETE, True,
                            f"minimal width m* = {h} <= {w}: the signed classes satisfy N_s = 0 exactly", cert)
        # every active class is one unit: flip those in S (and b_up, with the b_down correction)
        active_units = [cls["grouping"].reps[k] for k in cls["active"]]
        S_units = [active_units[j] for j in res.S]
        plain, note = flip_block(block.without_skip(), S_units)
        # units outside the active classes have w = 0; flip_block keeps them, harmless
        cmp = compare_blocks(block, plain)
        cert.update({"S_units": S_units, "emitted_block_check": cmp.reason, **note})
        if not cmp.equal:  # pragma: no cover - would contradict the construction
            raise RuntimeError("flip construction differs from the residual block")
        exact_file = not note.get("b_down_rounded", False)
        cert["emitted_block_exact"] = exact_file
        return _verdict("absorbable", RELU_COMPLETE, True,
                        f"minimal width m* = {h} <= {w}: flipping the {len(S_units)} units in S gives the "
                        "residual block exactly (canonical forms compared exactly)", cert, plain)
    if res.status == "none":
        lower = h + 1
    cert.update({"lower": lower, "upper": upper})
    return _bounds_verdict(cert, lower, upper, w, h)


def _bounds_verdict(cert: dict[str, Any], lower: int, upper: int, w: int, h: int) -> dict[str, Any]:
    cert["seconds_note"] = "bounds from the class count, the index-set search and rank W_up"
    if lower > w:
        return _verdict("not_absorbable", RELU_COMPLETE, True,
                        f"minimal width m* >= {lower} > {w}: {h} active kink hyperplanes need a unit each and "
                        "no choice of signs gives N_s = 0 (exact index-set search)", cert)
    if upper <= w:
        return _verdict("absorbable", RELU_COMPLETE, True,
                        f"minimal width m* <= {upper} <= {w} (relu-complete construction; not built at this size)",
                        cert)
    return _verdict("undecided", RELU_COMPLETE, False,
                    f"exact bounds {lower} <= m* <= {upper} leave width {w} open: the minimum over sign vectors "
                    f"and class sets was not finished for {h} active classes", cert)


def recheck_relu(block: Block, cert: dict[str, Any]) -> bool:
    """Re-verify a decide_relu certificate from the block and the certificate alone."""
    try:
        kind = cert["kind"]
        if kind == "relu_complete":
            form = relu_form(block)
            wr = minimal_width(form)
            if wr.lower != cert["m_star"] or not wr.exact:
                return False
            from .canonical import relu_form_exact

            con = cert["construction"]
            q = lambda a: [Fraction(v) for v in a]  # noqa: E731
            Wd = [q(r) for r in con["W_down"]]
            cf = relu_form_exact([q(r) for r in con["W_up"]], Wd if con["W_up"] else [[] for _ in range(block.d)],
                                 None, q(con["b_up"]), q(con["b_down"]))
            return relu_function_equal(cf, form)[0] and len(con["W_up"]) == wr.lower
        if kind == "relu_complete_bounds":
            cls = _classes_fast(block)
            if len(cls["active"]) != cert["active_classes"]:
                return False
            s = cert.get("search", {})
            prob = _index_problem(block, cls)
            if s.get("status") == "found":
                if prob is None:
                    return False
                U, W, M2, _ = prob
                return bool(search.verify_index_set(U, W, M2, cert["S_classes"])) if U.shape[0] else not np.any(M2 != 0)
            if s.get("status") == "none" and cert["lower"] > cert["active_classes"]:
                if prob is None:
                    return False
                U, W, M2, _ = prob
                k = s.get("kind")
                if k == "linear":
                    return bool(search.check_linear_certificate(U, W, M2, search.decode_matrix(s["Y"]))["certified"])
                if k == "necessary_conditions":
                    return not search.necessary_conditions(U, W, M2)["possible"]
                if k == "exhaustive":
                    return search.exhaustive_search(U, W, M2, max_m=40, limit=1) == []
                if k == "trivial":
                    return U.shape[0] == 0 and bool(np.any(M2 != 0))
                return False
            return cert["lower"] <= cert["active_classes"]
    except (KeyError, TypeError, ValueError, IndexError):
        return False
    return False


# ---------------------------------------------------------------------------- relu-limit

def limit_properties(activation: str) -> dict[str, Any]:
    """The two hypotheses on the activation, re-derived: s(z) - s(-z) = z (catalog) and the limit."""
    from .claims.exact import derived_property
    from .claims.relu_limit import limit_enclosure

    odd, how = derived_property(activation, "odd_part_identity")
    lim = limit_enclosure(activation)
    return {"sigma_odd_part": bool(odd), "sigma_odd_part_method": how,
            "sigma_limit_relu": bool(lim["holds"]),
            "sigma_limit_relu_method": f"|s - relu| <= {lim['sup_bound']} enclosed with arb balls on "
                                       f"{lim['interval']} ({lim['pieces']} pieces)"}


def flip_with_bias(block: Block, S: list[int]) -> tuple[Block, dict[str, Any]]:
    """The replacing block of relu-limit (A): rows and b_up in S negated, b_down + W_S b_S (exact)."""
    from .decide import flip_block

    return flip_block(block.without_skip(), S)


def decide_odd(block: Block, progress: Progress = _quiet, max_exhaustive: int = 36) -> dict[str, Any]:
    """Decide a gelu / gelu_tanh / silu (or relu) block nondegenerate in the bias-free sense (relu-limit)."""
    if block.activation not in ODD_ACTS or block.gated:
        raise ValueError("decide_odd needs an ungated gelu, gelu_tanh, silu or relu block")
    if block.kind != "residual":
        raise ValueError("decide_odd needs a residual block (x -> M x + B(x))")
    info = _block_info(block)
    progress("activation hypotheses (odd part, relu limit)")
    props = limit_properties(block.activation)
    progress("exact nondegeneracy (bias-free sense)")
    nd = nondegeneracy(block.W_up, block.W_down)
    cert: dict[str, Any] = {"kind": "relu_limit", "block": info, "activation_properties": props,
                            "nondegenerate": nd.as_dict()}
    if not (props["sigma_odd_part"] and props["sigma_limit_relu"]):
        return _verdict("undecided", RELU_LIMIT, False,
                        "the activation's odd-part identity or relu limit could not be re-derived", cert)
    M = block.skip()
    progress("index-set search")
    res = search.find_index_set(block.W_up, block.W_down, M, max_exhaustive=max_exhaustive)
    cert["search"] = {"status": res.status, "method": res.method, "exact": res.exact,
                      **search._jsonable(res.certificate)}  # noqa: SLF001
    if res.status == "found":
        S = sorted(int(i) for i in res.S)
        plain, note = flip_with_bias(block, S)
        cmp: Comparison = compare_blocks(block, plain)
        cert.update({"S": S, "construction": "rows and b_up entries in S negated, b_down + W_S b_S",
                     "emitted_block_check": cmp.reason, **note})
        rounded = bool(note.get("b_down_rounded"))
        if not rounded and not cmp.equal:  # pragma: no cover - would contradict (A)
            raise RuntimeError("flip construction differs from the residual block")
        cert["emitted_block_exact"] = not rounded
        reason = (f"index set S of size {len(S)} with W_down[:,S] W_up[S,:] = -M exactly; since "
                  "s(z) - s(-z) = z, flipping the rows and b_up entries in S and adding W_S b_S to b_down "
                  "gives x -> Mx + B(x) exactly (relu-limit (A))")
        if rounded:
            reason += "; the corrected b_down is not a float64: the emitted file holds it rounded"
        return _verdict("absorbable", RELU_LIMIT, True, reason, cert, plain)
    if not nd.ok:
        return _verdict("undecided", RELU_LIMIT, False,
                        "no index set, but the block is degenerate in the bias-free sense (zero or collinear "
                        "rows of W_up, or zero columns of W_down): relu-limit's converse needs nondegeneracy"
                        + ("; for relu use decide_relu (relu-complete)" if block.activation == "relu" else ""),
                        cert)
    if res.status == "none":
        return _verdict("not_absorbable", RELU_LIMIT, bool(res.exact),
                        f"no index set S gives W_down[:,S] W_up[S,:] = -M ({res.method}); the block is "
                        "nondegenerate in the bias-free sense, so by relu-limit (B) no block of the same "
                        "activation and width, with or without biases, equals it", cert)
    return _verdict("undecided", RELU_LIMIT, False,
                    f"the index-set search was inconclusive ({res.method})", cert)


def recheck_odd(block: Block, cert: dict[str, Any]) -> bool:
    """Re-verify a decide_odd certificate from the block and the certificate alone."""
    try:
        if cert.get("kind") != "relu_limit":
            return False
        props = limit_properties(block.activation)
        if not (props["sigma_odd_part"] and props["sigma_limit_relu"]):
            return False
        M = block.skip()
        s = cert["search"]
        if s["status"] == "found":
            return bool(search.verify_index_set(block.W_up, block.W_down, M, cert["S"]))
        if s["status"] == "none":
            if not nondegeneracy(block.W_up, block.W_down).ok:
                return False
            k = s.get("kind")
            if k == "linear":
                return bool(search.check_linear_certificate(block.W_up, block.W_down, M,
                                                            search.decode_matrix(s["Y"]))["certified"])
            if k == "necessary_conditions":
                return not search.necessary_conditions(block.W_up, block.W_down, M)["possible"]
            if k == "exhaustive":
                return search.exhaustive_search(block.W_up, block.W_down, M, max_m=40, limit=1) == []
        return False
    except (KeyError, TypeError, ValueError, IndexError):
        return False
