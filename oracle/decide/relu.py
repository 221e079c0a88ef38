"""Exact decisions for ungated relu-type blocks, for ``absorb check`` to call (claims relu-complete and
relu-limit).  Pure functions: they take a residual ``blocks.Block`` and return a verdict dict

    {"verdict": "absorbable" | "not_absorbable" | "undecided", "claim": ..., "exact": bool,
     "reason": str, "certificate": {...}, "plain": Block | None}

with a certificate that ``recheck_relu`` / ``recheck_odd`` re-verify from the block and the
certificate alone.

* ``decide_relu(block, width=None)``: every relu block (degenerate, biased, any d >= 1, any M).
  The minimal width m* of a relu block equal to x -> M x + B(x) (relu-complete) decides
  absorbability at ``width`` (default: the block's own width m): absorbable iff m* <= width.
  Small enumerations (enumeration_work <= EXACT_WORK): m* exactly (all sign vectors and class
  sets).  Otherwise exact bounds: the cost-0 case (m* = |script-H|, an "index set" over the kink
  classes) is decided by the index-set search, the constructions with s = +1 bound m* above, so
  m* <= m is decided whenever the search finishes and the bounds do not straddle m.  Class data
  are exact integer sums (canonical.exact_weighted_sums), never Fractions on the hot path.
* ``decide_odd(block)``: gelu, gelu_tanh, silu, quick_gelu (and relu) blocks that are
  nondegenerate in the bias-free sense, with or without biases (relu-limit): absorbable at the
  same width iff an index set S with W_down[:,S] W_up[S,:] = -M exists; the replacing block flips
  the rows and b_up entries in S and adds W_S b_S to b_down.

Every absorbable verdict carries its replacing block (``plain``) in float64, built from exact
rationals and verified against the residual block exactly (canonical forms) when it holds the
exact values; the certificate's ``emitted_block`` records which arrays, if any, had to be rounded
to float64 (with the largest entry error), see docs/check.md.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

import numpy as np

from oracle.core import activations, linalg
from oracle.core import rational
from oracle.core.rational import (
    float_nearest, float_up, is_float64, mantissas, nmod_mat, qmat, qvec, rounding_errors, to_fraction
)
from oracle.algebra import search
from oracle.core.progress import Progress, quiet
from oracle.core.blocks import Block, nondegeneracy
from oracle.core.errors import InputError
from oracle.algebra.canonical import (
    Comparison, compare_blocks, dyadic_floats, exact_weighted_sums, family_of, group_rows,
    relu_form, relu_function_equal, rows_with_bias
)
from oracle.algebra.relu_width import (
    MAX_EXACT_CLASSES, WidthResult, build_construction, construction_form, kernel_basis, minimal_width,
    n_matrix
)
from oracle.algebra.exact import derived_property
from oracle.algebra.limits import limit_enclosure
from oracle.algebra.construct import flip_block
from oracle.algebra.construct import spot_points, verify_equal_at_points
from oracle.algebra.canonical import relu_form_exact

SMALL = 20_000  # m * d up to which the full exact canonical form is computed
RELU_COMPLETE_CLAIM = "relu-complete"
RELU_LIMIT_CLAIM = "relu-limit"



_P = 2147483629  # a prime below 2^31


def rank_lower_mod_p(A: np.ndarray, p: int = _P) -> int:
    """A rigorous lower bound for the rank of a float64 matrix: its rank modulo a prime.

    Each row is scaled by a power of two to integers (row scaling keeps the rank); a set of rows
    independent modulo p is independent over the rationals.
    """
    A = np.atleast_2d(np.asarray(A, dtype=np.float64))
    if A.size == 0:
        return 0
    mant, ex = mantissas(A)  # A = mant * 2^ex entrywise, exactly
    nz = mant != 0
    low = np.where(nz, ex, np.iinfo(np.int64).max).min(axis=1)
    low = np.where(low == np.iinfo(np.int64).max, 0, low)
    sh = np.where(nz, ex - low[:, None], 0)
    uniq, inv = np.unique(sh, return_inverse=True)
    table = np.array([pow(2, int(k), p) for k in uniq], dtype=np.int64)
    res = (np.mod(mant, p) * table[inv.reshape(sh.shape)]) % p
    return int(nmod_mat(A.shape[0], A.shape[1], res.ravel().tolist(), p).rank())


def _verdict(verdict: str, claim: Optional[str], exact: bool, reason: str, cert: dict[str, Any],
             plain: Optional[Block] = None) -> dict[str, Any]:
    return {"verdict": verdict, "claim": claim, "exact": exact, "reason": reason,
            "certificate": cert, "plain": plain}


def _block_info(block: Block) -> dict[str, Any]:
    return {"activation": block.activation, "d": block.d, "m": block.m,
            "M": "identity" if block.M is None else "given",
            "biases": [n for n in ("b_up", "b_down") if getattr(block, n) is not None
                       and np.any(getattr(block, n) != 0)]}


# ---------------------------------------------------------------------------- relu-complete

EXACT_WORK = 120_000_000  # enumeration_work up to which m* is computed exactly (about 2 s)
MAX_BUILD_RANK = 48  # the (s, T) construction inverts an |T| x |T| Gram matrix of rationals


def enumeration_work(h: int, d: int) -> int:
    """Cost estimate of the exact minimum over s and T: 2^h sign vectors x class sets x d^2."""
    sets = sum(math.comb(h, k) for k in range(min(h, d) + 1))
    return (2 ** h) * sets * d * d


def classes_fast(block: Block) -> dict[str, Any]:
    """Active classes of a relu block without the full rational form: O(m d), exact.

    A class H is active iff alpha_H = sum_{i in H} |lam_i| w_i / 2 != 0; for classes of several
    units the sums sum |u_i[f]| w_i are formed exactly as integers times powers of two
    (canonical.exact_weighted_sums), never as Fractions."""
    rows = rows_with_bias(block)
    g = group_rows(rows, "scale")
    W = block.W_down
    active, multi_active, inactive_multi = [], [], []
    multi = [k for k, mem in enumerate(g.members) if len(mem) > 1]
    lead_abs = np.abs(np.where(g.lead >= 0, rows[np.arange(rows.shape[0]), np.maximum(g.lead, 0)], 0.0))
    N, E = exact_weighted_sums(W, [g.members[k] for k in multi], lead_abs)
    sums = {k: (N[:, j], int(E[j])) for j, k in enumerate(multi)}
    for k, mem in enumerate(g.members):
        if len(mem) == 1:
            if np.any(W[:, mem[0]] != 0):
                active.append(k)
            continue
        if any(v != 0 for v in sums[k][0]):
            active.append(k)
            multi_active.append(k)
        else:
            inactive_multi.append(k)
    return {"grouping": g, "rows": rows, "active": active, "multi_active": multi_active,
            "inactive_multi": inactive_multi, "sums": sums, "lead_abs": lead_abs}


def _divide(N: np.ndarray, E: int, a: float) -> tuple[Optional[tuple[np.ndarray, int]], Fraction]:
    """N 2^E / a for a double a > 0: as (integers, exponent) when the quotient is dyadic, else None;
    also a as a Fraction for the exact fallback."""
    aq = to_fraction(a)
    num, den = aq.numerator, aq.denominator  # den is a power of two
    if all(int(v) % num == 0 for v in N):
        return (np.array([int(v) // num for v in N], dtype=object), E + den.bit_length() - 1), aq
    return None, aq


@dataclass
class ClassData:
    """The index-set form of a relu block: N_s = N_plus + sum_{H : s_H = -1} v_H r_H^T.

    r_H is the row u of the class's representative unit, v_H = sum_{i in H} |lam_i| w_i with
    lam_i = u_i[f] / r_H[f] (twice alpha_H in that normalisation), and
    N_plus = M + sum_H (beta_H - alpha_H) r_H^T (inactive classes included) is N_s at s = +1.
    Singleton classes (the usual case) keep v_H = w_i as float64 columns: no rational work.
    """

    reps: list[int]  # representative unit of each active class, in class order
    V_multi: dict[int, tuple[np.ndarray, int, Fraction]]  # position -> (N, E, a_rep): v_H = N 2^E / a_rep
    N_plus: Any  # fmpq_mat d x d (exact), or None when it is the float skip itself (or not formed)
    V_float: Optional[np.ndarray]  # d x h, None when some entry is not a float64
    N_plus_float: Optional[np.ndarray]  # d x d, None when some entry is not a float64 (or not formed)
    nonzero_columns: Optional[int]  # of N_plus, exact (None: not formed, M = I with d > m)

    def V_exact(self, block: Block) -> Any:
        """The d x h matrix of the v_H as an exact fmpq_mat."""
        if self.V_float is not None:
            return rational.from_float64(self.V_float)
        cols = [self.V_column(block, j) for j in range(len(self.reps))]
        return rational.from_fractions([[c[a] for c in cols] for a in range(block.d)], len(cols))

    def V_column(self, block: Block, j: int) -> list[Fraction]:
        """v_H of the class at position j, exactly."""
        if j not in self.V_multi:
            return qvec(block.W_down[:, self.reps[j]])
        N, E, a = self.V_multi[j]
        scale = Fraction(2) ** E / a
        return [Fraction(int(v)) * scale for v in N]


def _fmpq_to_floats(A: Any) -> Optional[np.ndarray]:
    """An fmpq_mat as float64 when every entry is a double (checked exactly), else None."""
    r, c = A.nrows(), A.ncols()
    out = np.empty(r * c, dtype=np.float64)
    for k, v in enumerate(A.entries()):
        p, q = int(v.p), int(v.q)
        if q & (q - 1):
            return None
        f = dyadic_floats(np.array([p], dtype=object), -(q.bit_length() - 1))
        if f is None:
            return None
        out[k] = f[0]
    return out.reshape(r, c)


def class_representative(g: Any, rows: np.ndarray, k: int) -> int:
    """The unit that stands for class k, chosen from the class alone (not from the unit order).

    The rows of a class are parallel with one lead position f.  The representative is a unit with
    the smallest |u_i[f]|, a positive lead entry preferred, the lowest index last.  Units tied on the
    first two keys have equal rows (parallel, same lead entry), so every quantity built from the
    representative (r_H, v_H = sum |u_i[f]| w_i / |r_H[f]|, N_plus) is the same whichever of them
    is taken, and permuting the units permutes nothing in the class problem.  The smallest lead
    entry also keeps v_H dyadic whenever every lead entry is a power-of-two multiple of it (the
    case of rows r and 3 r: dividing by 3 made v_H non-dyadic when 3 r came first)."""
    mem = g.members[k]
    f = int(g.lead[mem[0]])
    return min(mem, key=lambda i: (abs(float(rows[i, f])), 0 if rows[i, f] > 0 else 1, i))


def class_data(block: Block, cls: dict[str, Any]) -> ClassData:
    """v_H and N_plus exactly (python-flint for the d x d part), plus float64 copies when exact."""
    g, rows = cls["grouping"], cls["rows"]
    d = block.d
    W = block.W_down
    lead_abs = cls["lead_abs"]
    reps: list[int] = []
    V_multi: dict[int, tuple[np.ndarray, int, Fraction]] = {}
    V_float: Optional[np.ndarray] = None
    pos_of: dict[int, int] = {}
    for pos, k in enumerate(cls["active"]):
        reps.append(class_representative(g, rows, k))
        pos_of[k] = pos
    V_float = W[:, reps].copy() if reps else np.zeros((d, 0))
    # v_H = (sum_i |u_i[f]| w_i) / |r[f]| for classes of several units
    opp_groups: list[list[int]] = []
    opp_pos: list[int] = []
    for k in cls["multi_active"]:
        pos, rep = pos_of[k], reps[pos_of[k]]
        f = int(g.lead[rep])
        N, E = cls["sums"][k]
        q, a = _divide(N, E, lead_abs[rep])
        if q is None:
            V_multi[pos] = (N, E, a)
            V_float = None
        else:
            V_multi[pos] = (q[0], q[1], Fraction(1))
            if V_float is not None:
                col = dyadic_floats(q[0], q[1])
                if col is None:
                    V_float = None
                else:
                    V_float[:, pos] = col
        opp = [i for i in g.members[k] if np.sign(rows[i, f]) != np.sign(rows[rep, f])]
        if opp:
            opp_groups.append(opp)
            opp_pos.append(pos)
    if block.M is None and d > block.m:
        # N_s = I + at most m rank-one terms has rank >= d - m > 0 for every s: nothing to form
        return ClassData(reps, V_multi, None, V_float, None, None)
    S = block.skip()
    # N_plus = M + sum_H t_H r_H^T + sum_{inactive multi units} w_i u_i^T / 2, with
    # t_H = -(sum over units oriented against the representative of |u_i[f]| w_i) / |r[f]|
    terms: list[Any] = []
    if opp_groups:
        N, E = exact_weighted_sums(W, opp_groups, lead_abs)
        cols_f, cols_q, ok = [], [], True
        for j, pos in enumerate(opp_pos):
            rep = reps[pos]
            q, a = _divide(N[:, j], int(E[j]), lead_abs[rep])
            col = None if q is None else dyadic_floats(q[0], q[1])
            if col is None:
                ok = False
                scale = Fraction(2) ** int(E[j]) / a
                cols_q.append([-Fraction(int(v)) * scale for v in N[:, j]])
            else:
                cols_q.append(None)
            cols_f.append(None if col is None else -col)
        R = np.vstack([block.W_up[reps[pos]] for pos in opp_pos])
        if ok:
            terms.append(rational.from_float64(np.column_stack(cols_f)) * rational.from_float64(R))
        else:
            full = [cq if cq is not None else qvec(cf) for cq, cf in zip(cols_q, cols_f)]
            terms.append(rational.from_fractions([[c[a] for c in full] for a in range(d)], len(full))
                         * rational.from_float64(R))
    inactive_units = [i for k in cls["inactive_multi"] for i in g.members[k]]
    if inactive_units:
        terms.append(rational.from_float64(W[:, inactive_units]) * rational.from_float64(block.W_up[inactive_units])
                     / 2)
    if terms:
        Nm = rational.from_float64(S)
        for t in terms:
            Nm = Nm + t
        N_float = _fmpq_to_floats(Nm)
        if N_float is not None:
            nnz = int(np.count_nonzero(np.any(N_float != 0, axis=0)))
        else:
            Nq = rational.to_fractions(Nm)
            nnz = sum(1 for j in range(d) if any(Nq[a][j] != 0 for a in range(d)))
        return ClassData(reps, V_multi, Nm, V_float, N_float, nnz)
    nnz = int(np.count_nonzero(np.any(S != 0, axis=0)))
    return ClassData(reps, V_multi, None, V_float, S, nnz)


def _odd_part(q: int) -> int:
    q = abs(int(q))
    return q >> ((q & -q).bit_length() - 1) if q else 1


def _search_data(block: Block, cd: ClassData) -> tuple[Optional[np.ndarray], Optional[np.ndarray], int]:
    """The class problem sum_{H in S} v_H r_H^T = -N_plus as float64 arrays (V, N), exactly.

    When a class's units have lead entries whose ratio is not a power of two, v_H (and N_plus) are
    rationals with odd denominators and not float64 numbers.  The equation is homogeneous in
    (V, N_plus), so multiplying both by the least common multiple L of those odd denominators keeps
    its solutions S; L V and L N_plus are dyadic and usually float64 numbers.  Returns (V', N', L)
    with V' = L V and N' = L N_plus exactly, or (None, None, L) when even the scaled arrays are not
    float64 numbers.  The choice depends only on the block, so a re-check rebuilds the same arrays."""
    if cd.V_float is not None and cd.N_plus_float is not None:
        return cd.V_float, cd.N_plus_float, 1
    if cd.N_plus is None and cd.N_plus_float is None:  # not formed (M = I with d > m)
        return cd.V_float, None, 1
    V = cd.V_exact(block)
    N = cd.N_plus if cd.N_plus is not None else rational.from_float64(cd.N_plus_float)
    L = 1
    for A in (V, N):
        for v in A.entries():
            o = _odd_part(int(v.q))
            L = L * o // math.gcd(L, o)
    Vs, Ns = _fmpq_to_floats(V * L), _fmpq_to_floats(N * L)
    if Vs is None or Ns is None:
        return None, None, L
    return Vs, Ns, L


def _rank_lower(A: np.ndarray) -> tuple[int, str]:
    """A rigorous lower bound for rank A (rank modulo a prime), cheap on the first rows first."""
    n, d = A.shape
    if n == 0:
        return 0, "no rows"
    k = min(n, d)
    r = linalg.rank_mod_p(A[:k])
    if r == k:  # already the largest possible value
        return r, f"rank of the first {k} rows modulo the prime {linalg.PRIMES[0]}"
    return rank_lower_mod_p(A), f"rank of all rows modulo the prime {_P}"


def decide_relu(block: Block, width: Optional[int] = None, progress: Progress = quiet,
                max_classes: int = MAX_EXACT_CLASSES, max_exhaustive: int = 36,
                small_limit: int = SMALL, max_work: int = EXACT_WORK,
                check_block: bool = True) -> dict[str, Any]:
    """Decide whether a relu block of ``width`` units (default: the block's m) equals x -> M x + B(x).

    Rests on relu-complete: absorbable at width w iff m* <= w.  m* is enumerated exactly when the
    enumeration is small (enumeration_work <= max_work); otherwise the index-set machinery decides
    whether m* = |script-H| and constructions give upper bounds.  Returns the verdict dict of the
    module docstring; an absorbable verdict comes with the replacing block (``plain``), built.
    """
    if block.activation != "relu" or block.gated:
        raise ValueError("decide_relu needs an ungated relu block")
    if block.kind != "residual":
        raise ValueError("decide_relu needs a residual block (x -> M x + B(x))")
    t0 = time.perf_counter()
    w = block.m if width is None else int(width)
    info = _block_info(block)
    d, m = block.d, block.m
    form = None
    if m * d <= small_limit and d * d <= small_limit:
        progress("exact canonical form (rationals)")
        form = relu_form(block)
        h = len(form.active)
        if h <= max_classes and enumeration_work(h, d) <= max_work:
            progress(f"minimal width: {h} active classes, all sign vectors and class sets")
            wr = minimal_width(form, max_classes)
            return _finish_small(block, form, wr, w, info, t0)
    return _decide_relu_large(block, w, info, progress, max_exhaustive, t0, form, check_block, small_limit)


def _hyper(h: int) -> str:
    return f"{h} active kink hyperplane" + ("" if h == 1 else "s")


# ------------------------------------------------------------ building float64 blocks

def _primitive(vec: list[Fraction]) -> tuple[list[Fraction], Fraction]:
    """vec = scale * ints with ints a primitive integer vector (signs kept); a zero vec is kept."""
    ints, scale = linalg.primitive(vec)
    return ([Fraction(n) for n in ints], scale) if scale else (list(vec), Fraction(1))


def _dyadic_unit(row: list[Fraction], col: list[Fraction]) -> tuple[list[Fraction], list[Fraction]]:
    """Rescale one relu unit (row [u | c], output column w) by a positive factor so that both are
    float64 numbers when possible: w relu(h) = (w / t) relu(t h) for t > 0.  The product w row^T
    has a float64 factorisation iff its scalar part has a power-of-two denominator; otherwise the
    row is kept integral (the kink stays exact) and the column is what gets rounded."""
    if all(is_float64(v) for v in row) and all(is_float64(v) for v in col):
        return row, col
    if not any(row) or not any(col):
        return row, col
    R, a = _primitive(row)
    C, b = _primitive(col)
    gamma = a * b
    return R, [gamma * v for v in C]


def _round_info(exact: dict[str, list[Fraction]], floats: dict[str, np.ndarray]) -> dict[str, Any]:
    """Which arrays of an emitted block hold rounded values, with the largest entry error (rounded up)."""

    rounded, err = rounding_errors(exact, floats)
    # small blocks: the exact values themselves, row-major
    values = {name: [str(q) for q in exact[name]] for name in rounded if len(exact[name]) <= 4096}
    out = {"exact": not rounded, "rounded": rounded, "max_entry_error": err}
    if values:
        out["exact_values"] = values
    return out


def _float_block(units: list[tuple[list[Fraction], list[Fraction]]], b_down: list[Fraction], d: int,
                 width: int) -> tuple[Block, dict[str, Any]]:
    """A plain relu block of exactly ``width`` units from exact units (row [u | c], column w),
    padded with zero units; the emitted-block record says which arrays were rounded."""
    units = list(units) + [([Fraction(0)] * (d + 1), [Fraction(0)] * d)] * (width - len(units))
    with np.errstate(over="ignore"):
        U = np.array([[float(v) for v in r[:d]] for r, _ in units], dtype=np.float64).reshape(width, d)
        c = np.array([float(r[d]) for r, _ in units], dtype=np.float64)
        Wd = np.array([[float(v) for v in col] for _, col in units], dtype=np.float64).reshape(width, d).T
        bd = np.array([float(v) for v in b_down], dtype=np.float64)
    if not (np.all(np.isfinite(U)) and np.all(np.isfinite(c)) and np.all(np.isfinite(Wd)) and np.all(np.isfinite(bd))):
        raise OverflowError("the replacing block has entries beyond the float64 range")
    exact = {"W_up": [v for r, _ in units for v in r[:d]], "b_up": [r[d] for r, _ in units],
             "W_down": [units[j][1][a] for a in range(d) for j in range(width)], "b_down": list(b_down)}
    info = _round_info(exact, {"W_up": U, "b_up": c, "W_down": Wd, "b_down": bd})
    blk = Block("relu", W_up=U, W_down=np.ascontiguousarray(Wd), b_up=c if np.any(c != 0) else None,
                b_down=bd if np.any(bd != 0) else None, kind="plain")
    return blk, info


def _construction_plain(block: Block, con: Any, w: int) -> tuple[Optional[Block], dict[str, Any]]:
    """The width-w float64 block of a relu-complete construction (exact rationals), padded."""
    d = block.d
    units = [_dyadic_unit(list(con.W_up[j]) + [con.b_up[j]], [con.W_down[a][j] for a in range(d)])
             for j in range(con.width)]
    try:
        plain, rec = _float_block(units, list(con.b_down), d, w)
    except OverflowError as e:
        return None, {"exact": False, "built": False, "reason": str(e)}
    _record_check(block, plain, rec, "emitted block",
                  "the exact construction equals the residual block (canonical forms); the file holds "
                  "the listed arrays rounded to float64")
    return plain, rec


def construction_emitted(block: Block, con_json: dict[str, Any], w: int) -> dict[str, Any]:
    """The emitted-block record of a relu-complete construction stated as exact strings (a
    certificate's ``construction``), rebuilt as _finish_small writes it: which arrays the width-w
    float64 file holds rounded, their exact values and errors.  The comparison note ``check`` is
    left out (the document re-check treats it as prose)."""
    d = block.d
    Wu, bu = qmat(con_json["W_up"]), qvec(con_json["b_up"])
    Wd = qmat(con_json["W_down"]) if con_json["W_up"] else [[] for _ in range(d)]
    units = [_dyadic_unit([to_fraction(v) for v in Wu[j]] + [to_fraction(bu[j])],
                          [to_fraction(Wd[a][j]) for a in range(d)]) for j in range(len(Wu))]
    try:
        return _float_block(units, [to_fraction(v) for v in qvec(con_json["b_down"])], d, w)[1]
    except OverflowError as e:
        return {"exact": False, "built": False, "reason": str(e)}


def _record_check(block: Block, plain: Block, rec: dict[str, Any], what: str, rounded: str) -> None:
    """rec["check"]: when nothing was rounded, the emitted block equals the residual block in exact
    canonical forms (a difference would contradict the construction and raises); otherwise the
    note ``rounded`` on what is exact and what the file holds."""
    if rec["exact"]:
        cmp = compare_blocks(block, plain)
        if not cmp.equal:  # pragma: no cover - would contradict the construction
            raise RuntimeError(f"{what} differs from the residual block")
        rec["check"] = "equal to the residual block (exact canonical forms): " + cmp.reason
    else:
        rec["check"] = rounded


def _finish_small(block: Block, form: Any, wr: WidthResult, w: int, info: dict[str, Any],
                  t0: float) -> dict[str, Any]:
    d = block.d
    con = build_construction(form, wr.s, wr.T)
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
        plain, rec = _construction_plain(block, con, w)
        cert["emitted_block"] = rec
        cert["emitted_block_exact"] = rec["exact"]
        reason = (f"minimal width m* = {wr.lower} <= {w} (relu-complete: {_hyper(len(form.active))} "
                  f"+ cost {wr.cost}); the constructed block equals x -> Mx + B(x) exactly")
        if not rec["exact"]:
            reason += ("; some of its weights are not float64 numbers: the emitted file holds "
                       + ", ".join(rec.get("rounded", [])) + " rounded")
        return _verdict("absorbable", RELU_COMPLETE_CLAIM, True, reason, cert, plain)
    reason = (f"minimal width m* = {wr.lower} > {w} (relu-complete: {_hyper(len(form.active))} "
              f"+ cost {wr.cost}, exact over all sign vectors and class sets)")
    return _verdict("not_absorbable", RELU_COMPLETE_CLAIM, True, reason, cert)


def _b_down_for_signs(block: Block, cd: ClassData, signs: np.ndarray) -> list[Fraction]:
    """b_down of the class construction: b_down + sum_{u_i != 0} c_i w_i / 2 + sum_{u_i = 0} relu(c_i) w_i
    - sum_H s_H c_H v_H / 2 (c_H the representative's bias), exactly (python-flint)."""
    d = block.d
    base = qvec(block.b_down) if block.b_down is not None else [Fraction(0)] * d
    if block.b_up is None or not np.any(block.b_up != 0):
        return base
    c = block.b_up
    live = np.any(block.W_up != 0, axis=1)
    g = [to_fraction(ci) / 2 if lv else max(to_fraction(ci), Fraction(0)) for ci, lv in zip(c, live)]
    tot = rational.from_float64(block.W_down) * rational.from_fractions([[v] for v in g], 1)
    hq = [Fraction(int(s)) * to_fraction(c[r]) / 2 for s, r in zip(signs, cd.reps)]
    if cd.reps and any(hq):
        tot = tot - cd.V_exact(block) * rational.from_fractions([[v] for v in hq], 1)
    add = [rational.to_fraction(v) for v in tot.entries()]
    return [a + b for a, b in zip(base, add)]


def _class_block(block: Block, cd: ClassData, signs: np.ndarray, w: int,
                 pairs: bool) -> tuple[Block, dict[str, Any]]:
    """The class construction in float64: one unit s_H [r_H | c_H] with output v_H per active class,
    and (pairs=True) two units +-e_j with outputs +-N_plus[:, j] per nonzero column of N_plus."""
    d = block.d
    c = block.b_up if block.b_up is not None else np.zeros(block.m)
    if cd.V_float is not None and (not pairs or cd.N_plus_float is not None):
        return _class_block_floats(block, cd, signs, w, pairs, c)
    units: list[tuple[list[Fraction], list[Fraction]]] = []
    for j, (s, r) in enumerate(zip(signs, cd.reps)):
        units.append(([Fraction(int(s)) * to_fraction(x) for x in block.W_up[r]] + [Fraction(int(s)) * to_fraction(c[r])],
                      cd.V_column(block, j)))
    if pairs:
        Nq = (rational.to_fractions(cd.N_plus) if cd.N_plus is not None
              else qmat(cd.N_plus_float))
        for j in range(d):
            col = [Nq[a][j] for a in range(d)]
            if any(col):
                e = [Fraction(0)] * (d + 1)
                e[j] = Fraction(1)
                units.append((e, col))
                units.append(([-x for x in e], [-x for x in col]))
    return _float_block(units, _b_down_for_signs(block, cd, signs), d, w)


def _class_block_floats(block: Block, cd: ClassData, signs: np.ndarray, w: int, pairs: bool,
                        c: np.ndarray) -> tuple[Block, dict[str, Any]]:
    """_class_block when every weight is already a float64 (only b_down can need rounding): O(m d)."""

    d = block.d
    sg = signs.astype(np.float64)
    ups = [block.W_up[cd.reps] * sg[:, None]]  # negation is exact
    bs = [c[cd.reps] * sg]
    cols = [cd.V_float]
    if pairs:
        nz = np.flatnonzero(np.any(cd.N_plus_float != 0, axis=0))
        E = np.zeros((nz.size, d))
        E[np.arange(nz.size), nz] = 1.0
        ups += [E, -E]
        bs += [np.zeros(nz.size)] * 2
        cols += [cd.N_plus_float[:, nz], -cd.N_plus_float[:, nz]]
    U = np.vstack(ups)
    n = U.shape[0]
    if n > w:  # pragma: no cover - callers check the width first
        raise ValueError("construction wider than the width asked")
    U = np.vstack([U, np.zeros((w - n, d))])
    cb = np.concatenate(bs + [np.zeros(w - n)])
    Wd = np.hstack(cols + [np.zeros((d, w - n))])
    want = _b_down_for_signs(block, cd, signs)
    with np.errstate(over="ignore"):
        bd = np.array([float_nearest(v) for v in want], dtype=np.float64)
    if not np.all(np.isfinite(bd)):
        raise InputError("the replacing block's b_down overflows float64; no float64 block file can hold it")
    err = max((abs(q - Fraction(float(f))) for q, f in zip(want, bd)), default=Fraction(0))
    rec: dict[str, Any] = {"exact": err == 0, "rounded": [] if err == 0 else ["b_down"],
                           "max_entry_error": {} if err == 0 else {"b_down": float_up(err)}}
    if err:
        rec["b_down_exact"] = [str(v) for v in want]
    blk = Block("relu", W_up=U, W_down=np.ascontiguousarray(Wd), b_up=cb if np.any(cb != 0) else None,
                b_down=bd if np.any(bd != 0) else None, kind="plain")
    return blk, rec


def check_class_block(block: Block, plain: Block, rec: dict[str, Any]) -> None:
    """The comparison ``decide_relu(..., check_block=False)`` left to its caller."""
    _check_class_block(block, plain, rec)


def _check_class_block(block: Block, plain: Block, rec: dict[str, Any]) -> None:
    """Verify an emitted class construction: exactly (canonical forms) when nothing was rounded; with
    only b_down rounded, exactly at points with the rounding as offset (relu is rational)."""
    _record_check(block, plain, rec, "class construction",
                  "the construction is exact in rationals (N_s = 0 verified exactly); the file holds the "
                  "listed arrays rounded to float64")


def _decide_relu_large(block: Block, w: int, info: dict[str, Any], progress: Progress,
                       max_exhaustive: int, t0: float, form: Any = None,
                       check_block: bool = True, small_limit: int = SMALL) -> dict[str, Any]:
    d = block.d
    progress(f"grouping {block.m} units into kink hyperplanes (exact)")
    cls = classes_fast(block)
    h = len(cls["active"])
    cd = class_data(block, cls)
    progress(f"{h} active kink hyperplanes; index-set search over the classes")
    cert: dict[str, Any] = {"kind": "relu_complete_bounds", "block": info, "width_asked": w,
                            "active_classes": h}

    def upper_bound() -> int:
        """Upper bounds (only needed when the search does not settle m* = h): s = +1 with T = r
        independent classes (cost <= 2d - r), or T = {} with the pairs +-e_j for the nonzero
        columns of N_plus (cost <= 2 * nonzero columns)."""
        r, how = _rank_lower(block.W_up[cd.reps]) if h else (0, "no active classes")
        nnz = d if cd.nonzero_columns is None else cd.nonzero_columns
        cert.update({"rank_of_active_directions_at_least": r, "rank_method": how,
                     "nonzero_columns_of_N_plus": cd.nonzero_columns})
        return min(h + 2 * d - r, h + 2 * nnz)

    lower = h
    if block.M is None and d > block.m:
        cert["search"] = {"status": "none", "method": "rank: every N_s is I plus at most m rank-one terms, "
                          "so rank N_s >= d - m > 0", "exact": True, "kind": "rank_identity",
                          "violated": ["rank"], "d": d, "m": block.m}
        cert.update({"lower": h + 1, "upper": upper_bound()})
        return _bounds_verdict(block, cert, cd, h + 1, cert["upper"], w, h, form)
    V, N, scale = _search_data(block, cd)
    if scale != 1:
        cert["class_problem_scale"] = scale
    if V is None or N is None:
        cert["note"] = ("the class problem has weights that are not float64 numbers even after scaling "
                        "by the odd denominators; decided in Python integers instead where possible")
        return _exact_class_search(block, cert, cd, w, h, form, max_exhaustive, progress, upper_bound,
                                   small_limit)
    U = block.W_up[cd.reps] if h else np.zeros((0, d))
    if h == 0:
        zero = cd.nonzero_columns == 0
        res = search.SearchResult("found" if zero else "none", () if zero else None, "no active classes",
                                  {"kind": "index_set" if zero else "trivial"}, True)
    else:
        res = search.find_index_set(U, V, N, max_exhaustive=max_exhaustive)
    cert["search"] = {"status": res.status, "method": res.method, "exact": res.exact,
                      **search.jsonable(res.certificate)}  # noqa: SLF001
    if res.status == "found":
        cert.update({"m_star": h, "lower": h, "upper": h, "S_classes": list(res.S)})
        if h > w:
            return _verdict("not_absorbable", RELU_COMPLETE_CLAIM, True,
                            f"minimal width m* = {h} (number of active kink hyperplanes) > {w}", cert)
        signs = np.ones(h, dtype=np.int64)
        signs[list(res.S)] = -1
        progress("building the replacing block (one unit per kink hyperplane)")
        plain, rec = _class_block(block, cd, signs, w, pairs=False)
        if check_block:
            _check_class_block(block, plain, rec)
        else:
            rec["check"] = None  # the caller compares the block it emits (check_class_block otherwise)
        # singleton classes, one per unit in unit order: the class problem is the unit problem
        # (same float64 numbers), so S_units satisfies W_down[:,S] W_up[S,:] = -M as verified
        same = (scale == 1 and h == block.m and cd.reps == list(range(block.m)) and np.array_equal(U, block.W_up)
                and np.array_equal(V, block.W_down)
                and np.array_equal(cd.N_plus_float, np.eye(d) if block.M is None else block.M))
        cert.update({"emitted_block": rec, "emitted_block_exact": rec["exact"],
                     "S_units": [cd.reps[j] for j in res.S], "class_problem_is_unit_problem": bool(same)})
        reason = (f"minimal width m* = {h} <= {w}: with the classes in S sign-flipped, N_s = 0 exactly "
                  f"(index-set search over the {_hyper(h)}), so one unit per hyperplane gives "
                  "x -> Mx + B(x) exactly")
        if not rec["exact"]:
            reason += "; the emitted file holds " + ", ".join(rec["rounded"]) + " rounded to float64"
        return _verdict("absorbable", RELU_COMPLETE_CLAIM, True, reason, cert, plain)
    if res.status == "none":
        lower = h + 1
    elif h > 0:  # inconclusive in float64: the same question in Python integers
        fs = cert.pop("search")
        cert["float_search"] = {"status": fs["status"], "method": fs["method"]}
        return _exact_class_search(block, cert, cd, w, h, form, max_exhaustive, progress, upper_bound,
                                   small_limit)
    cert.update({"lower": lower, "upper": upper_bound()})
    form = _cost_one_pass(block, cert, w, h, form, max_exhaustive, progress, small_limit)
    _unit_level_upper(block, cert, w, max_exhaustive, progress)
    return _bounds_verdict(block, cert, cd, lower, cert["upper"], w, h, form)


def _exact_class_search(block: Block, cert: dict[str, Any], cd: ClassData, w: int, h: int, form: Any,
                        max_exhaustive: int, progress: Progress, upper_bound: Any,
                        small_limit: int = SMALL) -> dict[str, Any]:
    """Cost zero (some s with N_s = 0) decided in Python integers when the float64 class search was
    skipped or inconclusive: the exact rational form scaled to integers (cost_problem_ints with T
    empty), a divisibility obstruction, then an exact meet in the middle (search.exact_int).  The
    cost-one pass and the plain unit search run afterwards as on the float64 path, so the same
    fallbacks run whichever unit of a class comes first."""
    lower = h
    if block.m * block.d <= small_limit and block.d * block.d <= small_limit:
        if form is None:
            progress("exact canonical form (rationals) for the exact class search")
            form = relu_form(block)
        if len(form.active) == h:
            progress(f"cost zero in Python integers ({h} classes)")
            r = exact_cost_search(form, [])
            cert["search"] = {"status": r["status"], "kind": "exact_integer", "exact": r["status"] != "unknown",
                              "method": ("exact integer search: divisibility obstruction, then meet in the "
                                         "middle (no float64 rounding, no bit limit)")}
            if r["status"] == "none":
                cert["search"]["certificate"] = r["certificate"]
                lower = h + 1
            elif r["status"] == "found":
                cert["search"]["s"] = r["s"]
                cert.update({"m_star": h, "lower": h, "upper": h,
                             "S_classes": [j for j in range(h) if r["s"][j] < 0]})
                if h > w:
                    return _verdict("not_absorbable", RELU_COMPLETE_CLAIM, True,
                                    f"minimal width m* = {h} (number of active kink hyperplanes) > {w}", cert)
                plain, rec = _cost_one_construction(block, form, r["s"], [], w)
                cert.update({"emitted_block": rec, "emitted_block_exact": rec["exact"]})
                reason = (f"minimal width m* = {h} <= {w}: with the classes in S sign-flipped, N_s = 0 "
                          f"exactly (exact integer search over the {_hyper(h)}), so one unit per hyperplane "
                          "gives x -> Mx + B(x) exactly")
                if plain is None:
                    reason += "; the replacing block was not built: " + rec["reason"]
                elif not rec["exact"]:
                    reason += "; the emitted file holds " + ", ".join(rec["rounded"]) + " rounded to float64"
                return _verdict("absorbable", RELU_COMPLETE_CLAIM, True, reason, cert, plain)
            else:
                cert["search"]["reason"] = r["reason"]
    cert.update({"lower": lower, "upper": upper_bound()})
    form = _cost_one_pass(block, cert, w, h, form, max_exhaustive, progress, small_limit)
    _unit_level_upper(block, cert, w, max_exhaustive, progress)
    return _bounds_verdict(block, cert, cd, lower, cert["upper"], w, h, form)


def _cost_one_pass(block: Block, cert: dict[str, Any], w: int, h: int, form: Any, max_exhaustive: int,
                   progress: Progress, small_limit: int = SMALL) -> Any:
    """When the bounds leave width w open: is the cost (|T| + 2 rank(N_s P_T)) 1 for some (s, T)?

    Cost 1 needs |T| = 1 and N_s P_T = 0 (cost 0 is N_s = 0, cost >= 2 otherwise), which for each
    class H is an index-set problem in the signs of the other classes (cost_one_problem).  A
    solution gives m* <= h + 1 (its construction is built and compared exactly); no solution for any
    class, after cost 0 was excluded, gives m* >= h + 2.  Runs for at most MAX_COST_ONE_CLASSES
    classes and m d <= SMALL (the exact canonical form)."""
    if not (cert["lower"] <= w < cert["upper"]) or not 1 <= h <= MAX_COST_ONE_CLASSES:
        return form
    if block.m * block.d > small_limit or block.d * block.d > small_limit:
        return form
    if form is None:
        progress("exact canonical form (rationals) for the cost-one search")
        form = relu_form(block)
    if len(form.active) != h:  # pragma: no cover - the two class computations agree
        return form
    progress(f"cost one: an index-set problem per class ({h} classes)")
    r = cost_one(form, max_exhaustive)
    cert["cost_one"] = r
    if r["status"] == "found":
        cert["upper"] = min(cert["upper"], h + 1)
    elif r["status"] == "none" and cert["lower"] == h + 1:
        cert["lower"] = h + 2
    if cert["lower"] <= w < cert["upper"] and cert["upper"] > h + 2 and w >= h + 2:
        progress("cost two: an index-set problem per pair of classes")
        r2 = cost_two_pairs(form, max_exhaustive)
        cert["cost_two"] = r2
        if r2["status"] == "found":
            cert["upper"] = h + 2
    return form


def _unit_level_upper(block: Block, cert: dict[str, Any], w: int, max_exhaustive: int,
                      progress: Progress) -> None:
    """When the exact bounds leave width w open and w >= m, the plain index-set search over the
    block's own units: an index set S (W_down[:,S] W_up[S,:] = -M, verified exactly) makes the sign
    flip of the block a relu block of width m equal to F (relu-limit (A)), so m* <= m.  This is
    tried whatever the class-level search said (its problem can be skipped, or inconclusive, while
    the units' own problem is easy).  Lowers cert["upper"] to m and records S."""
    if not (cert["lower"] <= w < cert["upper"] and block.m <= w):
        return
    U, W = block.W_up, block.W_down
    progress("plain index-set search over the units")
    res = search.find_index_set(U, W, block.M, max_exhaustive=max_exhaustive)
    cert["unit_search"] = {"status": res.status, "method": res.method}
    if res.status == "found" and search.verify_index_set(U, W, block.M, res.S):
        cert.update({"upper": block.m, "S_units": sorted(int(i) for i in res.S),
                     "upper_by_unit_index_set": True})


def _flip_upper_block(block: Block, cert: dict[str, Any], compare: bool = True) -> tuple[Optional[Block], dict[str, Any]]:
    """The sign flip of the units in cert["S_units"] (verified exactly) as the replacing block
    (``compare``: with a rounded b_down, the note on the comparison of the exact flip)."""
    S = cert["S_units"]
    try:
        plain, note = flip_block(block, S)
    except InputError as exc:
        return None, {"exact": False, "built": False, "reason": f"the sign flip's b_down is not storable: {exc}"}
    rounded = bool(note.get("b_down_rounded"))
    rec: dict[str, Any] = {"exact": not rounded, "rounded": ["b_down"] if rounded else [],
                           "max_entry_error": {"b_down": note["b_down_max_rounding_error"]} if rounded else {},
                           "construction": "the units in S sign-flipped (W_down[:,S] W_up[S,:] = -M exactly)"}
    if rounded:
        rec["b_down_exact"] = note["b_down_exact"]
        if compare:
            _record_check(block, plain, rec, "sign flip", "the flip is exact in rationals; the file holds "
                          "b_down rounded to float64")
    else:
        rec.update(flip_exactness(block, plain))
    return plain, rec


BOUNDS_NOTE = ("lower: one unit per active hyperplane, plus one when no sign vector gives N_s = 0 (exact "
               "index-set search); upper: the constructions with s = +1 (T a basis of the active directions, "
               "or T empty with pairs +-e_j)")


def active_rank_lower(block: Block) -> tuple[int, str]:
    """The proved lower bound on the rank of the active kink directions, and how it was proved, as
    a relu_complete_bounds certificate states them (rank_of_active_directions_at_least, rank_method)."""
    cls = classes_fast(block)
    cd = class_data(block, cls)
    return _rank_lower(block.W_up[cd.reps]) if cls["active"] else (0, "no active classes")


def bounds_emitted(block: Block, cert: dict[str, Any]) -> Optional[dict[str, Any]]:
    """The emitted-block record of an absorbable relu_complete_bounds certificate, rebuilt from the
    weights and the certificate's verified data as decide_relu writes it, without the comparison
    note ``check``: the class block of the signs in S_classes (m* = h), the exact integer search's
    signs, the cost-one / cost-two construction, the sign flip of S_units, or the upper-bound
    construction.  None when the construction is not rebuilt (the upper-bound solve)."""
    cls = classes_fast(block)
    cd = class_data(block, cls)
    h = len(cls["active"])
    w = block.m
    s = cert.get("search") or {}
    if s.get("kind") == "exact_integer" and s.get("status") == "found":
        form = relu_form(block)
        return _cost_one_record(block, form, [int(v) for v in s["s"]], [], w)
    if s.get("status") == "found":
        signs = np.ones(h, dtype=np.int64)
        signs[[int(j) for j in cert["S_classes"]]] = -1
        return _class_block(block, cd, signs, w, pairs=False)[1]
    c1, c2, upper = cert.get("cost_one") or {}, cert.get("cost_two") or {}, cert["upper"]
    if c1.get("status") == "found" and upper == h + 1:
        return _cost_one_record(block, relu_form(block), [int(v) for v in c1["s"]], [int(c1["class"])], w)
    if c2.get("status") == "found" and upper == h + 2:
        return _cost_one_record(block, relu_form(block), [int(v) for v in c2["s"]], [int(t) for t in c2["T"]], w)
    if cert.get("upper_by_unit_index_set"):
        return _flip_upper_block(block, cert, compare=False)[1]
    if cd.nonzero_columns is not None and h + 2 * cd.nonzero_columns <= w:
        rec = _class_block(block, cd, np.ones(h, dtype=np.int64), w, pairs=True)[1]
        rec["construction"] = "s = +1, T empty: one unit per hyperplane and pairs +-e_j for N_plus"
        return rec
    return None


def _cost_one_record(block: Block, form: Any, s: list[int], T: list[int], w: int) -> dict[str, Any]:
    """_cost_one_construction's record without the comparison note."""
    con = build_construction(form, s, T)
    d = block.d
    units = [_dyadic_unit(list(con.W_up[j]) + [con.b_up[j]], [con.W_down[a][j] for a in range(d)])
             for j in range(con.width)]
    try:
        rec = _float_block(units, list(con.b_down), d, w)[1]
    except OverflowError as e:
        return {"exact": False, "built": False, "reason": str(e)}
    rec["construction"] = f"T = classes {T} with the signs s of the cost-{len(T)} search (relu-complete)"
    return rec


def _bounds_verdict(block: Block, cert: dict[str, Any], cd: ClassData, lower: int, upper: int, w: int,
                    h: int, form: Any) -> dict[str, Any]:
    cert["bounds_note"] = BOUNDS_NOTE
    if lower > w:
        return _verdict("not_absorbable", RELU_COMPLETE_CLAIM, True,
                        f"minimal width m* >= {lower} > {w}: {_hyper(h)} need a unit each and "
                        "no choice of signs gives N_s = 0 (exact index-set search)", cert)
    lower, upper = cert["lower"], cert["upper"]
    if lower > w:
        return _verdict("not_absorbable", RELU_COMPLETE_CLAIM, True,
                        f"minimal width m* >= {lower} > {w}: {_hyper(h)} need a unit each, no choice of "
                        "signs gives N_s = 0, and no class H with signs gives N_s P_H = 0 (exact index-set "
                        "searches: cost 0 and cost 1 excluded)", cert)
    c1 = cert.get("cost_one") or {}
    c2 = cert.get("cost_two") or {}
    if upper <= w:
        if c1.get("status") == "found" and upper == h + 1 and form is not None:
            plain, rec = _cost_one_construction(block, form, c1["s"], [int(c1["class"])], w)
        elif c2.get("status") == "found" and upper == h + 2 and form is not None:
            plain, rec = _cost_one_construction(block, form, c2["s"], [int(t) for t in c2["T"]], w)
        elif cert.get("upper_by_unit_index_set"):
            plain, rec = _flip_upper_block(block, cert)
        else:
            plain, rec = _upper_block(block, cd, w, h, form)
        cert["emitted_block"] = rec
        cert["emitted_block_exact"] = rec["exact"]
        reason = f"minimal width m* <= {upper} <= {w} (relu-complete construction)"
        if cert.get("upper_by_unit_index_set"):
            reason = (f"minimal width m* <= m = {upper} <= {w}: an index set S of the block's own units "
                      "gives W_down[:,S] W_up[S,:] = -M exactly, so the sign flip of S is a relu block of "
                      "width m equal to x -> Mx + B(x) (relu-limit (A))")
        if plain is None:
            reason += "; the replacing block was not built: " + rec["reason"]
        elif not rec["exact"]:
            reason += "; the emitted file holds " + ", ".join(rec["rounded"]) + " rounded to float64"
        return _verdict("absorbable", RELU_COMPLETE_CLAIM, True, reason, cert, plain)
    return _verdict("undecided", RELU_COMPLETE_CLAIM, False,
                    f"exact bounds {lower} <= m* <= {upper} leave width {w} open: the minimum over sign "
                    f"vectors and class sets (exponential in the {_hyper(h)}) was not finished", cert)


def _upper_block(block: Block, cd: ClassData, w: int, h: int, form: Any) -> tuple[Optional[Block], dict[str, Any]]:
    """Build a block of width <= w from the upper-bound constructions (pairs first: no solving)."""
    if h + 2 * cd.nonzero_columns <= w:
        plain, rec = _class_block(block, cd, np.ones(h, dtype=np.int64), w, pairs=True)
        _check_class_block(block, plain, rec)
        rec["construction"] = "s = +1, T empty: one unit per hyperplane and pairs +-e_j for N_plus"
        return plain, rec
    if form is not None:
        wr = minimal_width(form, max_classes=-1)  # bounds only: the best of s = +1 with T = basis or {}
        if wr.upper <= w and (not wr.T or len(wr.T) <= MAX_BUILD_RANK):
            con = build_construction(form, wr.s, wr.T)
            same, why = relu_function_equal(construction_form(con, block.d), form)
            if not same:  # pragma: no cover
                raise RuntimeError(f"relu-complete construction failed: {why}")
            plain, rec = _construction_plain(block, con, w)
            rec["construction"] = f"s = +1, T = {len(wr.T or [])} independent classes"
            return plain, rec
    return None, {"exact": False, "built": False,
                  "reason": "the construction of this width needs an exact rational solve with one "
                            "unknown per independent kink direction, not attempted at this size"}


def recheck_relu(block: Block, cert: dict[str, Any]) -> bool:
    """Re-verify a decide_relu certificate from the block and the certificate alone."""
    try:
        kind = cert["kind"]
        if kind == "relu_complete":
            form = relu_form(block)
            h = len(form.active)
            if enumeration_work(h, block.d) > EXACT_WORK or h > MAX_EXACT_CLASSES:
                return False  # decide_relu never certifies an exact m* beyond this work
            wr = minimal_width(form)
            if wr.lower != cert["m_star"] or not wr.exact:
                return False
            # the stated optimum (s, T, cost) and the class count are the exact minimisation's
            if (h != cert["active_classes"] or wr.cost != cert["cost"] or list(wr.s or []) != list(cert["s"] or [])
                    or list(wr.T or []) != list(cert["T"] or []) or cert["m_star"] != h + cert["cost"]):
                return False

            con = cert["construction"]
            Wd = qmat(con["W_down"])
            cf = relu_form_exact(qmat(con["W_up"]), Wd if con["W_up"] else [[] for _ in range(block.d)],
                                 None, qvec(con["b_up"]), qvec(con["b_down"]))
            # the stated width of the construction is its number of rows, which is m*
            return (relu_function_equal(cf, form)[0] and len(con["W_up"]) == wr.lower
                    and con.get("width") == len(con["W_up"]))
        if kind == "relu_complete_bounds":
            return _recheck_bounds(block, cert)
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError):
        return False
    return False


def _recheck_bounds(block: Block, cert: dict[str, Any]) -> bool:
    """Every stated bound of a relu_complete_bounds certificate must follow from the block."""
    cls = classes_fast(block)
    h = len(cls["active"])
    if h != cert["active_classes"]:
        return False
    cd = class_data(block, cls)
    lower, upper = int(cert["lower"]), int(cert["upper"])
    s = cert.get("search", {})
    U = block.W_up[cd.reps] if h else np.zeros((0, block.d))
    V, N, scale = _search_data(block, cd)
    if int(cert.get("class_problem_scale", 1)) != scale:
        return False
    if s.get("kind") == "exact_integer" and s.get("status") == "found":  # N_s = 0 exactly, s as stated
        form = relu_form(block)
        sv = [int(v) for v in s["s"]]
        if (len(form.active) != h or len(sv) != h or any(v not in (1, -1) for v in sv)
                or lower != h or upper != h or cert.get("m_star") != h):
            return False
        return all(v == 0 for v in n_matrix(form, sv).entries())
    if s.get("status") == "found":  # m* = h: the signs in S give N_s = 0
        if V is None or N is None or lower != h or upper != h or cert.get("m_star") != h:
            return False
        return bool(search.verify_index_set(U, V, N, cert["S_classes"])) if h else cd.nonzero_columns == 0
    # upper: the constructions give h + 2d - r (r a proved lower bound of the rank) and h + 2 nnz
    r, _ = _rank_lower(block.W_up[cd.reps]) if h else (0, "")
    if int(cert["rank_of_active_directions_at_least"]) > r:
        return False
    if cert["nonzero_columns_of_N_plus"] != cd.nonzero_columns:
        return False
    nnz = block.d if cd.nonzero_columns is None else cd.nonzero_columns
    bound = min(h + 2 * block.d - int(cert["rank_of_active_directions_at_least"]), h + 2 * nnz)
    if cert.get("upper_by_unit_index_set"):  # the sign flip of the units in S: width m
        if not search.verify_index_set(block.W_up, block.W_down, block.M, cert["S_units"]):
            return False
        bound = min(bound, block.m)
    c1 = cert.get("cost_one") or {}
    form = None
    if c1.get("status") in ("found", "none"):
        form = relu_form(block)
        if len(form.active) != h:
            return False
    if c1.get("status") == "found":  # the construction for (s, T = {H}) has width h + 1: rebuild it
        con = build_construction(form, [int(v) for v in c1["s"]], [int(c1["class"])])
        if con.width != h + 1 or not relu_function_equal(construction_form(con, block.d), form)[0]:
            return False
        bound = min(bound, h + 1)
    c2 = cert.get("cost_two") or {}
    if c2.get("status") == "found":  # the construction for (s, T = {H, G}) has width h + 2
        if form is None:
            form = relu_form(block)
            if len(form.active) != h:
                return False
        T2 = [int(t) for t in c2["T"]]
        con = build_construction(form, [int(v) for v in c2["s"]], T2)
        if (len(set(T2)) != 2 or con.width != h + 2
                or not relu_function_equal(construction_form(con, block.d), form)[0]):
            return False
        bound = min(bound, h + 2)
    if upper < bound:
        return False
    if lower <= h:
        return lower >= 0  # one unit per active hyperplane needs no further evidence
    if lower == h + 2:  # cost 1 excluded for every class as well
        if c1.get("status") != "none" or not _recheck_cost_one_none(form, c1["certificates"]):
            return False
    elif lower != h + 1:
        return False
    if s.get("status") != "none":
        return False
    k = s.get("kind")
    if k == "exact_integer":
        if form is None:
            form = relu_form(block)
        return len(form.active) == h and recheck_exact_cost_none(form, [], s["certificate"])
    if k == "rank_identity":
        return block.M is None and block.d > block.m
    if V is None or N is None:
        return False
    if k == "linear":
        return bool(search.check_linear_certificate(U, V, N, search.decode_matrix(s["Y"]))["certified"])
    if k == "necessary_conditions":
        return not search.necessary_conditions(U, V, N)["possible"]
    if k == "exhaustive":
        return search.exhaustive_search(U, V, N, max_m=40, limit=1) == []
    if k == "trivial":
        return h == 0 and bool(cd.nonzero_columns)
    return False


# ---------------------------------------------------------------------------- cost one: |T| = 1

MAX_COST_ONE_CLASSES = 36  # the search per class is meet in the middle up to this many classes
_F53 = 2 ** 53


def _lcm_den(rows: list[list[Fraction]]) -> int:
    den = 1
    for r in rows:
        for v in r:
            den = den * v.denominator // math.gcd(den, v.denominator)
    return den


def cost_one_problem(form: Any, j: int) -> tuple[str, Any]:
    """cost_problem for T = {H_j}."""
    return cost_problem(form, [j])


def cost_problem(form: Any, T: list[int]) -> tuple[str, Any]:
    """The question "some s with N_s K = 0" for T = {H_j} (K a basis of u_j-perp), as an index-set
    problem W_down'[:,S] W_up'[S,:] = -M' in integers stored exactly as float64.

    N_s = N_+ + sum_{G : s_G = -1} 2 alpha_G u_G^T (N_+ = N_s at s = +1), so N_s K = 0 iff
    sum_{G in S} (2 alpha_G)(u_G^T K) = -N_+ K.  Multiplying the columns 2 alpha_G by the common
    denominator lam and the rows u_G^T K by mu keeps the solutions S and makes both integral; the
    right-hand side lam mu N_+ K must then be integral too, else no S exists.  Returns ('trivial',
    None) when u_j-perp is {0} (d = 1: every s works), ('none', {'kind': 'integrality'}),
    ('unknown', reason) when some integer needs more than 53 bits, or ('problem', (W_up', W_down', M'))."""
    what, data = cost_problem_ints(form, T)
    if what != "ints":
        return what, data
    Ai, Bi, Ci = data
    d, h = form.d, len(form.active)
    k = len(Ci[0]) if Ci else 0
    if any(abs(v) >= _F53 for r in (*Ai, *Bi, *Ci) for v in r):
        return "unknown", "the scaled integers need more than 53 bits"
    Wd = np.array([[float(v) for v in r] for r in Ai], dtype=np.float64).reshape(d, h)
    Wu = np.zeros((h, d))
    Wu[:, :k] = np.array([[float(v) for v in r] for r in Bi], dtype=np.float64).reshape(h, k)
    Mm = np.zeros((d, d))
    Mm[:, :k] = np.array([[float(v) for v in r] for r in Ci], dtype=np.float64).reshape(d, k)
    return "problem", (Wu, Wd, Mm)


def cost_problem_ints(form: Any, T: list[int]) -> tuple[str, Any]:
    """cost_problem's scaled problem in Python integers (no size limit): ('ints', (A, B, C)) with
    A the d x h columns lam 2 alpha_G, B the h x k rows mu u_G^T K and C = lam mu N_+ K, so that
    N_s K = 0 iff sum_{G in S} A[:,G] B[G,:] = -C for S = {G : s_G = -1}; or ('trivial', None), or
    ('none', {'kind': 'integrality'})."""
    act = form.active
    d, h = form.d, len(act)
    Kq = kernel_basis([act[j].u for j in T], d)
    k = Kq.ncols()
    if k == 0:
        return "trivial", None
    K = rational.to_fractions(Kq)
    A = [[2 * c.alpha[a] for c in act] for a in range(d)]
    B = [[sum((c.u[t] * K[t][q] for t in range(d)), Fraction(0)) for q in range(k)] for c in act]
    Np = rational.to_fractions(n_matrix(form, [1] * h))
    C = [[sum((Np[a][t] * K[t][q] for t in range(d)), Fraction(0)) for q in range(k)] for a in range(d)]
    lam, mu = _lcm_den(A), _lcm_den(B)
    Cs = [[v * lam * mu for v in r] for r in C]
    if any(v.denominator != 1 for r in Cs for v in r):
        return "none", {"kind": "integrality"}
    Ai = [[int(v * lam) for v in r] for r in A]
    Bi = [[int(v * mu) for v in r] for r in B]
    Ci = [[int(v) for v in r] for r in Cs]
    return "ints", (Ai, Bi, Ci)


def _subset_vectors(Ai: list[list[int]], Bi: list[list[int]], Ci: list[list[int]]
                    ) -> tuple[list[list[int]], list[int]]:
    """The integer problem sum_{G in S} A[:,G] B[G,:] = -C as a subset sum of the vec(A[:,G] B[G,:])."""
    d, h, k = len(Ai), len(Bi), len(Ci[0]) if Ci else 0
    vecs = [[Ai[a][g] * Bi[g][q] for a in range(d) for q in range(k)] for g in range(h)]
    target = [-Ci[a][q] for a in range(d) for q in range(k)]
    return vecs, target


def exact_cost_search(form: Any, T: list[int]) -> dict[str, Any]:
    """Some s with N_s P_T = 0, decided in Python integers (search.exact_int): no rounding, no bit
    limit.  {'status': 'found', 'S': ..., 's': ...}, {'status': 'none', 'certificate': ...} or
    {'status': 'unknown', 'reason': ...}; T = [] asks for N_s = 0 itself (cost zero)."""
    h = len(form.active)
    what, data = cost_problem_ints(form, T)
    if what == "trivial":
        return {"status": "found", "S": [], "s": [1] * h}
    if what == "none":
        return {"status": "none", "certificate": data}
    vecs, target = _subset_vectors(*data)
    r = search.exact_int.exact_subset_search(vecs, target)
    if r["status"] == "found":
        s = [1] * h
        for i in r["S"]:
            if i not in T:
                s[i] = -1
        return {"status": "found", "S": sorted(r["S"]), "s": s}
    return r


def recheck_exact_cost_none(form: Any, T: list[int], cert: dict[str, Any]) -> bool:
    """Re-verify exact_cost_search's 'none' certificate from the form."""
    what, data = cost_problem_ints(form, T)
    if what == "none":
        return cert.get("kind") == "integrality"
    if what != "ints":
        return False
    vecs, target = _subset_vectors(*data)
    return search.exact_int.check_none(vecs, target, cert)


def cost_one(form: Any, max_exhaustive: int = 36) -> dict[str, Any]:
    """Whether some s and one class H give N_s K_H = 0, i.e. cost |T| + 2 rank = 1 (relu-complete).

    Returns {'status': 'found', 'class': j, 'S': [...], 's': [...]} (the construction is built and
    compared by the caller), {'status': 'none', 'certificates': [...]} (exact, one per class), or
    {'status': 'unknown', 'reason': ...}."""
    act = form.active
    h = len(act)
    certs: list[dict[str, Any]] = []
    for j in range(h):
        what, data = cost_one_problem(form, j)
        if what == "trivial":
            return {"status": "found", "class": j, "S": [], "s": [1] * h}
        if what == "none":
            certs.append({"class": j, **data})
            continue
        if what == "unknown":  # more than 53 bits: the same question in Python integers
            r = exact_cost_search(form, [j])
            if r["status"] == "found":
                return {"status": "found", "class": j, "S": r["S"], "s": r["s"], "exact_integers": True}
            if r["status"] == "none":
                certs.append({"class": j, "kind": "exact_integer", "certificate": r["certificate"]})
                continue
            return {"status": "unknown", "reason": f"class {j}: {data}; {r['reason']}"}
        Wu, Wd, Mm = data
        res = search.find_index_set(Wu, Wd, Mm, max_exhaustive=max_exhaustive)
        if res.status == "found":
            S = sorted(int(i) for i in res.S)
            s = [1] * h
            for i in S:
                if i != j:
                    s[i] = -1
            return {"status": "found", "class": j, "S": S, "s": s}
        if res.status != "none":
            return {"status": "unknown", "reason": f"class {j}: the index-set search was inconclusive ({res.method})"}
        certs.append({"class": j, **search.jsonable(res.certificate)})
    return {"status": "none", "certificates": certs}


MAX_COST_TWO_PAIRS = 400  # pairs of classes tried for cost two (each an index-set search)


def cost_two_pairs(form: Any, max_exhaustive: int = 36) -> dict[str, Any]:
    """Some s and two classes H, G with independent directions and N_s P_{H,G} = 0: cost |T| = 2,
    rank 0, so m* <= h + 2.  Only 'found' is used (an upper bound); cost two can also come from
    T empty and rank N_s = 1, which is not searched, so 'not found' proves nothing."""
    act = form.active
    h, d = len(act), form.d
    tried = 0
    for j in range(h):
        for g in range(j + 1, h):
            if rational.from_fractions([act[j].u, act[g].u], d).rank() < 2:
                continue
            tried += 1
            if tried > MAX_COST_TWO_PAIRS:
                return {"status": "not_found", "pairs_tried": tried - 1, "reason": "pair budget"}
            what, data = cost_problem(form, [j, g])
            if what == "trivial":
                return {"status": "found", "T": [j, g], "S": [], "s": [1] * h}
            if what != "problem":
                continue
            res = search.find_index_set(*data, max_exhaustive=max_exhaustive)
            if res.status == "found":
                S = sorted(int(i) for i in res.S)
                sg = [1] * h
                for i in S:
                    if i not in (j, g):
                        sg[i] = -1
                return {"status": "found", "T": [j, g], "S": S, "s": sg}
    return {"status": "not_found", "pairs_tried": tried}


def _recheck_cost_one_none(form: Any, certs: list[dict[str, Any]]) -> bool:
    """Every class has a certificate that its problem has no solution, re-verified."""
    h = len(form.active)
    if sorted(int(c["class"]) for c in certs) != list(range(h)):
        return False
    for c in certs:
        k = c.get("kind")
        if k == "exact_integer":
            if not recheck_exact_cost_none(form, [int(c["class"])], c["certificate"]):
                return False
            continue
        what, data = cost_one_problem(form, int(c["class"]))
        if what == "none":
            if k != "integrality":
                return False
            continue
        if what != "problem":
            return False
        Wu, Wd, Mm = data
        if k == "linear":
            ok = search.check_linear_certificate(Wu, Wd, Mm, search.decode_matrix(c["Y"]))["certified"]
        elif k == "necessary_conditions":
            ok = not search.necessary_conditions(Wu, Wd, Mm)["possible"]
        elif k == "exhaustive":
            ok = search.exhaustive_search(Wu, Wd, Mm, max_m=40, limit=1) == []
        else:
            ok = False
        if not ok:
            return False
    return True


def _cost_one_construction(block: Block, form: Any, s: list[int], T: list[int], w: int
                           ) -> tuple[Optional[Block], dict[str, Any]]:
    """The relu-complete construction for (s, T) with N_s P_T = 0 (width h + |T|), compared exactly
    with the block."""
    con = build_construction(form, s, T)
    same, why = relu_function_equal(construction_form(con, block.d), form)
    if not same or con.width != len(form.active) + len(T):
        return None, {"exact": False, "built": False,
                      "reason": f"the cost-{len(T)} construction did not reproduce the block ({why})"}
    plain, rec = _construction_plain(block, con, w)
    rec["construction"] = f"T = classes {T} with the signs s of the cost-{len(T)} search (relu-complete)"
    return plain, rec


# ---------------------------------------------------------------------------- relu-limit

def limit_properties(activation: str, limit: bool = True) -> dict[str, Any]:
    """The two hypotheses on the activation, re-derived: s(z) - s(-z) = z (catalog) and (``limit``)
    the relu limit.  Sufficiency (the sign flip) needs only the first; the limit is derived only for
    the converse.  Both derivations are cached per process."""
    return dict(_limit_properties(activation, limit))


@functools.lru_cache(maxsize=None)
def _limit_properties(activation: str, limit: bool) -> tuple[tuple[str, Any], ...]:
    odd, how = derived_property(activation, "odd_part_identity")
    out: dict[str, Any] = {"sigma_odd_part": bool(odd), "sigma_odd_part_method": how}
    if limit:
        lim = limit_enclosure(activation)
        out.update({"sigma_limit_relu": bool(lim["holds"]),
                    "sigma_limit_relu_method": f"|s - relu| <= {lim['sup_bound']} enclosed with arb balls on "
                                               f"{lim['interval']} ({lim['pieces']} pieces)"})
    return tuple(out.items())


# the Coq theorem behind the flip, and the lemma giving each activation's odd-part identity
FLIP_THEOREM = "SkipAbsorption.Limit.biased_sign_flip"
ODD_PART_LEMMA = {name: f"SkipAbsorption.RealActivations.{name}_odd_part" for name in activations.COQ_ODD_PART}


def flip_exactness(block: Block, plain: Block) -> dict[str, Any]:
    """What an emitted sign flip of S rests on when nothing was rounded, instead of comparing it.

    The caller has verified W_down[:,S] W_up[S,:] = -M exactly (multi-modular) for the S it
    flipped.  With s(z) - s(-z) = z, relu-limit (A) (Coq: biased_sign_flip) gives
    Mx + B(x) = flipped block for every x; the flipped block's arrays are the block's own float64
    numbers negated (exact) and b_down + W_S b_S computed exactly and representable.  So the
    block is equal by a proved construction; no canonical comparison is needed.  A float64
    evaluation at two points guards the implementation (evidence only, not part of the proof).
    """
    lemma = ODD_PART_LEMMA.get(block.activation)
    if lemma is not None:  # a checked proof about the same function (RealActivations.v defines it)
        how = f"Coq {lemma} (checked proof)"
    else:
        odd, method = derived_property(block.activation, "odd_part_identity")
        if not odd:  # pragma: no cover - callers only flip activations with the identity
            raise RuntimeError(f"{block.activation}: s(z) - s(-z) = z could not be re-derived")
        how = "re-derived: " + method
    evidence = _flip_float_evidence(block, plain)
    return {"check": ("not compared: the emitted block is the proved construction. W_down[:,S] W_up[S,:] "
                      "= -M verified exactly (multi-modular), s(z) - s(-z) = z (" + how
                      + "), so Mx + B(x) = the flipped block for "
                      f"every x by relu-limit (A) (Coq {FLIP_THEOREM}); negating float64 rows is exact and "
                      "b_down + W_S b_S is exact"),
            "rests_on": {"index_condition": "verified exactly (multi-modular)",
                         "odd_part_identity": how, "theorem": FLIP_THEOREM,
                         "odd_part_lemma": lemma, "arrays": "float64 negation (exact); b_down + W_S b_S exact"},
            "float_evidence": evidence}


def _flip_float_evidence(block: Block, plain: Block) -> str:
    """F - P at two random points in float64, relative to the size of the terms summed (a guard)."""
    rng = np.random.default_rng(20)
    X = rng.standard_normal((2, block.d))
    with np.errstate(all="ignore"):
        F, P = block.eval_f64(X), plain.eval_f64(X)
        pre = X @ block.W_up.T + (0.0 if block.b_up is None else block.b_up)
        mag = (np.abs(block.act.f64(pre)) @ np.abs(block.W_down).T
               + (np.abs(X) if block.M is None else np.abs(X) @ np.abs(block.M).T)
               + (0.0 if block.b_down is None else np.abs(block.b_down)))
        err = float(np.max(np.abs(F - P) / (mag + 1e-300)))
    if not (np.all(np.isfinite(F)) and np.all(np.isfinite(P)) and np.all(np.isfinite(mag))):
        return "float64 evaluation overflows at the sample points: no float evidence (not needed for the proof)"
    if not err <= 1e-6:  # pragma: no cover - would contradict the construction
        raise RuntimeError(f"sign-flip block differs from the residual block in float64 (rel. {err:.3g})")
    return f"float64 evaluation at 2 points agrees (relative difference {err:.2g}; evidence, not a proof)"


def flip_with_bias(block: Block, S: list[int]) -> tuple[Block, dict[str, Any]]:
    """The replacing block of relu-limit (A): rows and b_up in S negated, b_down + W_S b_S (exact)."""

    return flip_block(block.without_skip(), S)


def decide_odd(block: Block, progress: Progress = quiet, max_exhaustive: int = 36) -> dict[str, Any]:
    """Decide a gelu / gelu_tanh / silu (or relu) block nondegenerate in the bias-free sense (relu-limit)."""
    if block.activation not in activations.RELU_LIMIT:
        raise ValueError(f"decide_odd needs a block of {', '.join(activations.RELU_LIMIT)} (relu-limit's hypotheses)")
    if block.kind != "residual":
        raise ValueError("decide_odd needs a residual block (x -> M x + B(x))")
    info = _block_info(block)
    progress("activation hypothesis for the sign flip (odd part)")
    # the relu limit is needed only for the converse (no index set): derived below when used
    props = limit_properties(block.activation, limit=False)
    progress("exact nondegeneracy (bias-free sense)")
    nd = nondegeneracy(block.W_up, block.W_down)
    cert: dict[str, Any] = {"kind": "relu_limit", "block": info, "activation_properties": props,
                            "nondegenerate": nd.as_dict()}
    if not props["sigma_odd_part"]:
        return _verdict("undecided", RELU_LIMIT_CLAIM, False,
                        "the activation's odd-part identity could not be re-derived", cert)
    M = block.M  # None: the identity, never formed when the rank condition settles it (d > m)
    progress("index-set search")
    res = search.find_index_set(block.W_up, block.W_down, M, max_exhaustive=max_exhaustive)
    cert["search"] = {"status": res.status, "method": res.method, "exact": res.exact,
                      **search.jsonable(res.certificate)}  # noqa: SLF001
    if res.status == "found":
        S = sorted(int(i) for i in res.S)
        if not res.exact:  # pragma: no cover - every "found" of find_index_set is verified exactly
            raise RuntimeError("index set found without exact verification")
        plain, note = flip_with_bias(block, S)
        rounded = bool(note.get("b_down_rounded"))
        cert.update({"S": S, "construction": ODD_FLIP_CONSTRUCTION, **note})
        cert.update(odd_flip_emitted(block, plain, note))
        reason = (f"index set S of size {len(S)} with W_down[:,S] W_up[S,:] = -M exactly; since "
                  "s(z) - s(-z) = z, flipping the rows and b_up entries in S and adding W_S b_S to b_down "
                  "gives x -> Mx + B(x) exactly (relu-limit (A), Coq "
                  f"{FLIP_THEOREM}; the emitted block is that construction, not compared)")
        if rounded:
            reason += "; the corrected b_down is not a float64: the emitted file holds it rounded"
        return _verdict("absorbable", RELU_LIMIT_CLAIM, True, reason, cert, plain)
    if nd.ok and res.status == "none":
        progress("activation hypothesis for the converse (relu limit, arb balls)")
        props = limit_properties(block.activation)
        cert["activation_properties"] = props
        if not props["sigma_limit_relu"]:
            return _verdict("undecided", RELU_LIMIT_CLAIM, False,
                            "no index set, but the activation's relu limit could not be re-derived", cert)
    if not nd.ok:
        return _verdict("undecided", RELU_LIMIT_CLAIM, False,
                        ("no index set" if res.status == "none" else "no index set found (search inconclusive)")
                        + ", but the block is degenerate in the bias-free sense (zero or collinear "
                        "rows of W_up, or zero columns of W_down): relu-limit's converse needs nondegeneracy"
                        + ("; for relu use decide_relu (relu-complete)" if block.activation == "relu" else ""),
                        cert)
    if res.status == "none":
        return _verdict("not_absorbable", RELU_LIMIT_CLAIM, bool(res.exact),
                        f"no index set S gives W_down[:,S] W_up[S,:] = -M ({res.method}); the block is "
                        "nondegenerate in the bias-free sense, so by relu-limit (B) no block of the same "
                        "activation and width, with or without biases, equals it", cert)
    return _verdict("undecided", RELU_LIMIT_CLAIM, False,
                    f"the index-set search was inconclusive ({res.method})", cert)


ODD_FLIP_CONSTRUCTION = "rows and b_up entries in S negated, b_down + W_S b_S"


def odd_flip_emitted(block: Block, plain: Block, note: dict[str, Any]) -> dict[str, Any]:
    """The emitted-block fields of a relu-limit (A) flip (``plain``, ``note`` from flip_with_bias):
    emitted_block (what was rounded, how it was checked), emitted_block_exact and emitted_block_check.
    Deterministic, so the document re-check (oracle/decide/document.py) rebuilds and compares them."""
    rounded = bool(note.get("b_down_rounded"))
    rec: dict[str, Any] = {
        "exact": not rounded, "rounded": ["b_down"] if rounded else [],
        "max_entry_error": {"b_down": note["b_down_max_rounding_error"]} if rounded else {},
        "construction": ODD_FLIP_CONSTRUCTION}
    if not rounded:  # S was verified exactly by the search: the flip is the proved construction
        rec.update(flip_exactness(block, plain))
        check = rec["check"]
    else:
        cmp: Comparison = (compare_blocks(block, plain) if family_of(block.activation) is not None
                           else _ball_comparison(block, plain, note))
        check = cmp.reason
        rec["check"] = ("exact algebra (W_S U_S = -M verified, b_down + W_S b_S computed "
                        "exactly); the file holds b_down rounded to float64")
    return {"emitted_block_exact": not rounded, "emitted_block": rec, "emitted_block_check": check}


def _ball_comparison(block: Block, plain: Block, note: dict[str, Any]) -> Comparison:
    """Evidence for an activation without a canonical form: F - P equals the b_down rounding at a
    few points (arb balls).  The identity itself is relu-limit (A), exact algebra."""

    offset = None
    if note.get("b_down_rounded"):
        offset = [Fraction(v) - Fraction(float(f)) for v, f in zip(note["b_down_exact"], plain.b_down)]
    pts = spot_points(block.d, np.random.default_rng(7), n_random=2, n_basis=2)
    chk = verify_equal_at_points(block, plain, pts, "ball", offset)
    return Comparison(bool(chk["agree"]), False, "odd",
                      f"arb-ball spot check at {len(pts)} points: "
                      + ("agree" if chk["agree"] else "DIFFER"), chk)


def recheck_odd(block: Block, cert: dict[str, Any]) -> bool:
    """Re-verify a decide_odd certificate from the block and the certificate alone."""
    try:
        if cert.get("kind") != "relu_limit":
            return False
        s = cert["search"]
        # the flip needs the odd-part identity; the converse (no index set) also the relu limit
        props = limit_properties(block.activation, limit=s["status"] != "found")
        if not (props["sigma_odd_part"] and props.get("sigma_limit_relu", s["status"] == "found")):
            return False
        M = block.M  # None: the identity
        if s["status"] == "found":
            return bool(search.verify_index_set(block.W_up, block.W_down, M, cert["S"]))
        if s["status"] == "none":
            # the stated nondegeneracy must be this block's; "no index set" is verified for a
            # degenerate block too (its verdict is then undecided: the converse needs nondegeneracy)
            if nondegeneracy(block.W_up, block.W_down).ok is not cert["nondegenerate"]["nondegenerate"]:
                return False
            k = s.get("kind")
            if k == "linear":
                return bool(search.check_linear_certificate(block.W_up, block.W_down, M,
                                                            search.decode_matrix(s["Y"]))["certified"])
            if k == "necessary_conditions":
                return not search.necessary_conditions(block.W_up, block.W_down, M)["possible"]
            if k == "exhaustive":
                return search.exhaustive_search(block.W_up, block.W_down, M, max_m=40, limit=1) == []
        if s["status"] == "unknown":
            # an inconclusive search proves nothing and its verdict is undecided; the stated
            # nondegeneracy must still be this block's
            return nondegeneracy(block.W_up, block.W_down).ok is cert["nondegenerate"]["nondegenerate"]
        return False
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return False
