"""Subset search: cheap necessary conditions and the exact meet-in-the-middle enumeration."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from oracle.core import linalg
from oracle.algebra.search.bounds import ETA, UROUND, gamma_bound, next_up, rigorous_sum_bounds, sqrt_down
from oracle.algebra.search.common import as_f64, check_shapes
from oracle.algebra.search.modular import Dyadic, mod_matmul_zero


def necessary_conditions(W_up: Any, W_down: Any, M: Any) -> dict[str, Any]:
    """Cheap necessary conditions for an index set S with sum_{i in S} w_i u_i^T = -M (M = None: identity)."""
    if M is None:
        # identity skip: rank I = d, so fewer than d nonzero units settle it without forming I
        U, W = as_f64(W_up, "W_up"), as_f64(W_down, "W_down")
        if W.shape != U.shape[::-1]:
            raise ValueError(f"W_down must have shape {U.shape[::-1]}, got {W.shape}")
        n_act = int(np.sum(np.any(U != 0, axis=1) & np.any(W != 0, axis=0)))
        d = U.shape[1]
        if n_act < d:
            return {"possible": False, "violated": ["rank"], "exact": True,
                    "checks": {"rank": {"holds": False, "rank_M": d, "nonzero_units": n_act,
                                        "method": "M = identity: rank d exceeds the number of nonzero units"}}}
        M = np.eye(d)
    U, W, Mm = check_shapes(W_up, W_down, M)
    m, d = U.shape
    checks: dict[str, dict[str, Any]] = {}
    violated: list[str] = []

    active = (np.any(U != 0, axis=1)) & (np.any(W != 0, axis=0))
    n_active = int(active.sum())
    small_rank = max(m, d) <= 48

    # rank(M) <= rank(sum over S) <= min(rank W_up, rank W_down, number of nonzero units in S)
    if small_rank:
        rM = linalg.rank(Mm)
        rU, rW = linalg.rank(U), linalg.rank(W)
        ok = min(rU, rW, n_active) >= rM
        checks["rank"] = {"holds": ok, "rank_M": rM, "rank_W_up": rU, "rank_W_down": rW,
                          "nonzero_units": n_active, "method": "exact (python-flint)"}
    else:
        # Only a lower bound for rank(M) is cheap and rigorous at large sizes
        # (rank modulo a prime never exceeds the rational rank); upper bounds for the
        # weights' ranks are skipped, only the count of nonzero units is used.
        if np.count_nonzero(Mm - np.diag(np.diag(Mm))) == 0:
            rM_lo = int(np.count_nonzero(np.diag(Mm)))
            how = "M diagonal: exact rank"
        elif d <= 768:
            rM_lo = linalg.rank_mod_p(Mm)
            how = "rank of M mod a prime (lower bound)"
        else:
            rM_lo, how = 0, "skipped (large non-diagonal M)"
        ok = n_active >= rM_lo
        checks["rank"] = {"holds": ok, "rank_M_lower": rM_lo, "nonzero_units": n_active,
                          "method": how + "; ranks of W_up/W_down not computed at this size"}
    if not checks["rank"]["holds"]:
        violated.append("rank")

    # trace: Y = I gives <I, A(s)> = tr M + sum_i s_i u_i.w_i, which must vanish, so
    # -tr M must lie in [sum of negative a_i, sum of positive a_i], a_i = u_i.w_i.
    P = (W * U.T)  # P[j, i] = w_ji u_ij, one rounding per product
    trM = sum((Fraction(float(x)) for x in np.diag(Mm)), Fraction(0))
    exact_md = m * d <= 400_000
    if exact_md:
        # P_ji = w_ji u_ij as exact integers scaled by 2^(sw+su)
        DU, DW = Dyadic(U), Dyadic(W)
        den = 1 << (DU.scale + DW.scale)
        Pint = DW.python_ints(DW.scale) * DU.python_ints(DU.scale).T
        a_int = Pint.sum(axis=0) if d else np.zeros(m, dtype=object)
        neg = Fraction(int(sum(x for x in a_int if x < 0)), den)
        pos = Fraction(int(sum(x for x in a_int if x > 0)), den)
        ok = neg <= -trM <= pos
        checks["trace"] = {"holds": ok, "minus_trace": str(-trM), "reachable_low": str(neg),
                           "reachable_high": str(pos), "method": "exact"}
    else:
        # a_hat_i = fl(sum_k P_ki): each product has error <= u|p|/(1-u) + eta and the
        # summation adds gamma_d sum|p_hat|, so |a_hat_i - a_i| <= gamma_{d+1}(1+gamma)
        # sum_k |p_hat_ki| + 2 d eta; the sum of |p_hat| is inflated to an upper bound.
        a_hat = P.sum(axis=0)
        g = gamma_bound(d + 1)
        absP = next_up(np.abs(P).sum(axis=0) * (1.0 + gamma_bound(d)))
        err = next_up(next_up(g * (1.0 + 2.0 * g)) * absP + 4.0 * d * ETA)
        neg_lo, _ = rigorous_sum_bounds(np.minimum(a_hat, 0.0), err)
        _, pos_hi = rigorous_sum_bounds(np.maximum(a_hat, 0.0), err)
        # infinite bounds (overflow) leave the condition undecided, i.e. not violated
        ok = (math.isinf(neg_lo) or Fraction(neg_lo) <= -trM) and \
            (math.isinf(pos_hi) or -trM <= Fraction(pos_hi))
        checks["trace"] = {"holds": ok, "minus_trace": float(-trM), "reachable_low": neg_lo,
                           "reachable_high": pos_hi,
                           "method": "float64 with a-priori rounding bound (widened interval)"}
    if not ok:
        violated.append("trace")

    # diagonal entries: Y = E_jj gives M_jj + sum_i s_i w_ji u_ij = 0.  O(m d) in total.
    diag_bad: list[int] = []
    gap_sq = Fraction(0)  # sum over violated rows of the squared distance of 0 from [lo, hi]
    if exact_md:
        for j in range(d):
            row = Pint[j]
            mj = Fraction(float(Mm[j, j]))
            lo = mj + Fraction(int(sum(x for x in row if x < 0)), den)
            hi = mj + Fraction(int(sum(x for x in row if x > 0)), den)
            if lo > 0 or hi < 0:
                diag_bad.append(j)
                gap_sq += min(abs(lo), abs(hi)) ** 2
        dmethod = "exact"
    else:
        # product error <= u |p_hat| / (1 - u) + eta; sums then exact via Fractions
        # only for the few rows that look violated in float.
        err = (UROUND * np.abs(P) / (1 - UROUND) + ETA) * (1 + 4 * UROUND)
        lo_f = np.diag(Mm) + np.minimum(P, 0).sum(axis=1)
        hi_f = np.diag(Mm) + np.maximum(P, 0).sum(axis=1)
        scale = np.abs(np.diag(Mm)) + np.abs(P).sum(axis=1)
        suspects = np.flatnonzero((lo_f > 1e-9 * scale) | (hi_f < -1e-9 * scale))
        for j in suspects[:64]:
            lo, _ = rigorous_sum_bounds(np.append(np.minimum(P[j], 0), Mm[j, j]),
                                         np.append(err[j], 0.0))
            _, hi = rigorous_sum_bounds(np.append(np.maximum(P[j], 0), Mm[j, j]),
                                         np.append(err[j], 0.0))
            if lo > 0 or hi < 0:
                diag_bad.append(int(j))
                gap_sq += Fraction(lo if lo > 0 else -hi) ** 2  # the bound that is violated is finite
        dmethod = "float64 products with rounding bounds, exact summation"
    # |A(s)_jj| >= gap_j for every s, so ||A(s)||_F >= sqrt(sum gap_j^2): a distance bound
    checks["diagonal"] = {"holds": not diag_bad, "violated_rows": diag_bad[:32],
                          "gap_norm": sqrt_down(gap_sq) if diag_bad else 0.0,
                          "method": dmethod}
    if diag_bad:
        violated.append("diagonal")

    return {"possible": not violated, "violated": violated, "checks": checks,
            "exact": True}


_P31 = 2147483647  # 2^31 - 1, prime


def _fingerprints(
    DU: Dyadic, DW: Dyadic, DM: Dyadic, units: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, list[int]]:
    """Two random linear fingerprints of each unit's outer product and of -M, packed in int64.

    The fingerprint of a d x d matrix X is <r s^T, 2^E X> mod p for random r, s;
    it is additive, so a true solution always matches, and every match is then
    verified exactly (false matches cost time, never correctness).
    """
    p = _P31
    su, sw, sm = DU.scale, DW.scale, DM.scale
    E = max(su + sw, sm)
    Ur = DU.residues(p, su)[units, :]  # |units| x d
    Wr = DW.residues(p, sw)[:, units]  # d x |units|
    Mr = DM.residues(p, sm)
    c1 = pow(2, E - su - sw, p)
    c2 = pow(2, E - sm, p)
    fs, ts = [], []
    d = Ur.shape[1]
    for _ in range(2):
        r = rng.integers(0, p, size=d, dtype=np.int64)
        s = rng.integers(0, p, size=d, dtype=np.int64)
        a = ((Wr * r[:, None]) % p).sum(axis=0) % p  # r . w_i
        b = ((Ur * s[None, :]) % p).sum(axis=1) % p  # s . u_i
        f = (a * b) % p * c1 % p
        Ms = ((Mr * s[None, :]) % p).sum(axis=1) % p  # M s
        t = int(((Ms * r) % p).sum() % p) * c2 % p
        fs.append(f)
        ts.append((-t) % p)
    return np.stack(fs), ts


def _subset_sums(f: np.ndarray, p: int) -> np.ndarray:
    """All 2^k subset sums mod p of the columns of f (2 x k); index bit j <-> element j."""
    out = np.zeros((f.shape[0], 1), dtype=np.int64)
    for j in range(f.shape[1]):
        out = np.concatenate([out, (out + f[:, j:j + 1]) % p], axis=1)
    return out


def exhaustive_search(
    W_up: Any, W_down: Any, M: Any, max_m: int = 40, limit: int | None = None, seed: int = 0,
    check_necessary: bool = True,
) -> list[tuple[int, ...]]:
    """All index sets S with W_down[:,S] W_up[S,:] = -M exactly (meet in the middle, m <= max_m).

    Pruning: the necessary conditions are tested first; units whose outer product
    is exactly zero are factored out (every subset of them can be added to a
    solution); the two halves are matched on exact additive fingerprints modulo
    2^31 - 1, and each match is confirmed with the exact multi-modular verifier.  With ``limit``,
    matches are verified only until that many solutions are known (a block with many index sets,
    e.g. d = 1 with small integer weights, would otherwise verify every one of them).
    """
    U, W, Mm = check_shapes(W_up, W_down, M)
    m, d = U.shape
    DU, DW, DM = Dyadic(U), Dyadic(W), Dyadic(Mm)
    # Units whose outer product is exactly zero never change the sum: search the
    # others and attach every subset of the zero units at the end.
    active = np.flatnonzero(np.any(U != 0, axis=1) & np.any(W != 0, axis=0))
    zero_units = np.setdiff1d(np.arange(m), active)
    k = active.size
    if k > max_m:
        raise ValueError(f"exhaustive search over {k} nonzero units exceeds max_m={max_m}; "
                         "use relaxation_certificate or find_index_set instead")
    if check_necessary and not necessary_conditions(U, W, Mm)["possible"]:
        return []
    rng = np.random.default_rng(seed)
    p = _P31
    f, t = _fingerprints(DU, DW, DM, active, rng)
    h = k // 2
    left = _subset_sums(f[:, :h], p)
    right = _subset_sums(f[:, h:], p)
    lkey = left[0] * p + left[1]
    need = ((t[0] - right[0]) % p) * p + ((t[1] - right[1]) % p)
    order = np.argsort(lkey, kind="stable")
    sk = lkey[order]
    lo = np.searchsorted(sk, need, side="left")
    hi = np.searchsorted(sk, need, side="right")
    found: list[tuple[int, ...]] = []
    base: list[tuple[int, ...]] = []
    for rj in np.flatnonzero(hi > lo):
        if limit is not None and len(base) >= limit:
            break  # every base solution gives at least one index set: enough are known
        for li in order[lo[rj]:hi[rj]]:
            if limit is not None and len(base) >= limit:
                break
            li, rji = int(li), int(rj)
            S = [int(active[b]) for b in range(h) if (li >> b) & 1]
            S += [int(active[h + b]) for b in range(k - h) if (rji >> b) & 1]
            if mod_matmul_zero(DW, DU, DM, np.array(S, dtype=np.int64),
                                np.array(S, dtype=np.int64)):
                base.append(tuple(sorted(S)))
    zl = [int(z) for z in zero_units]
    for S in base:
        for mask in range(1 << len(zl)):
            extra = [zl[b] for b in range(len(zl)) if (mask >> b) & 1]
            found.append(tuple(sorted(S + tuple(extra))))
            if limit is not None and len(found) >= limit:
                return sorted(found)
    return sorted(found)
