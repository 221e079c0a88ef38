"""Candidate index sets from lattice reduction (python-flint's LLL); never a proof by themselves.

Every float64 is an integer times a power of two, so with one common power 2^E the index
condition sum_i s_i vec(w_i u_i^T) = -vec(M) becomes an integer system A s = b (A: r x n for the
r coordinates that are not zero in every term and the n units with a nonzero outer product).
The rows of the basis

    (2 e_i, 0, K a_i)   for every unit i,          (1, ..., 1, 1, K b)

span a lattice that contains, for every 0/1 solution s, the vector
sum_i s_i (2 e_i, 0, K a_i) - (1, ..., 1, 1, K b) = (2 s - 1, -1, 0), of length sqrt(n + 1): every
coordinate +-1 and the last block zero.  With the weight K large, vectors with a nonzero last
block are long, so a reduced basis tends to contain such a +-1 vector when the solution is much
shorter than the other lattice vectors (low density: weights with many significant bits).  Every
reduced row (and every sum or difference of two rows) of that shape gives a candidate s, which the
caller verifies exactly; nothing is concluded from a failure.
"""

from __future__ import annotations

import math
import multiprocessing
import time
from typing import Any, Optional

import numpy as np
import scipy.linalg

from oracle.core.rational import fmpz_mat
from oracle.algebra.search.modular import Dyadic

MAX_UNITS = 128  # lattice dimension n + 1 beyond which the reduction is not attempted
MAX_ROWS = 4096  # integer constraint rows (coordinates of d x d) at most
MAX_BITS = 256  # bits of the integer system's entries at most
TIME_LIMIT = 8.0  # seconds one reduction may take (it runs in a child process that is stopped then)


def _lll_child(basis: list[list[int]], conn: Any) -> None:
    """Reduce in a child process and send the rows back as Python ints."""
    red = fmpz_mat(basis).lll()
    conn.send([[int(v) for v in row] for row in red.tolist()])
    conn.close()


def _reduce(basis: list[list[int]], seconds: float) -> Optional[list[list[int]]]:
    """LLL-reduce the rows of ``basis``; None when it did not finish within ``seconds`` (or no child could start).

    The reduction is one call into FLINT that cannot be interrupted, so with a time limit it runs
    in a forked child process, which is killed when the limit passes (where fork is not
    available the reduction runs in this process, without a limit).
    """
    if "fork" not in multiprocessing.get_all_start_methods():
        return [[int(v) for v in row] for row in fmpz_mat(basis).lll().tolist()]
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_lll_child, args=(basis, send), daemon=True)
    try:
        proc.start()
    except (AssertionError, OSError):  # e.g. inside a daemonic worker, which may have no children
        send.close()
        recv.close()
        return None
    send.close()
    out = None
    try:
        if recv.poll(seconds if math.isfinite(seconds) else None):
            out = recv.recv()
    except (EOFError, OSError):
        out = None
    finally:
        recv.close()
        if proc.is_alive():
            proc.kill()
        proc.join()
    return out


def _independent_rows(rows: list[list[int]], rhs: list[int]) -> tuple[list[list[int]], list[int]]:
    """A subset of the equations whose rows of (A | b) look independent (float64 QR with pivoting).

    The subset only shapes the lattice: every solution of the full system solves it, and every
    candidate read from it is verified against the full condition, so a poor choice (rounding)
    costs candidates, never correctness.
    """
    if len(rows) <= len(rows[0]) + 1:
        return rows, rhs
    F = np.array([[float(v) for v in row] + [float(b)] for row, b in zip(rows, rhs)])
    F /= np.maximum(np.max(np.abs(F), axis=1, keepdims=True), 1e-300)
    _, R, piv = scipy.linalg.qr(F.T, mode="economic", pivoting=True)
    diag = np.abs(np.diagonal(R))
    k = int(np.sum(diag > 1e-10 * diag[0])) if diag.size and diag[0] > 0 else 0
    keep = sorted(int(i) for i in piv[:max(k, 1)])
    return [rows[i] for i in keep], [rhs[i] for i in keep]


def integer_system(U: np.ndarray, W: np.ndarray, Mm: np.ndarray, units: np.ndarray
                   ) -> tuple[list[list[int]], list[int]]:
    """The exact integer system (rows of A over ``units``, and b) with the common content removed.

    Coordinates (j, k) where every term w_ji u_ik and M_jk vanish are dropped.
    """
    DU, DW, DM = Dyadic(U[units]), Dyadic(W[:, units]), Dyadic(Mm)
    su, sw, sm = DU.scale, DW.scale, DM.scale
    E = max(su + sw, sm)
    Ui = DU.python_ints(su)  # n x d
    Wi = DW.python_ints(sw)  # d x n
    Mi = DM.python_ints(sm)  # d x d
    f1 = 1 << (E - su - sw)
    f2 = 1 << (E - sm)
    d = U.shape[1]
    n = len(units)
    rows: list[list[int]] = []
    rhs: list[int] = []
    for j in range(d):
        wj = [int(Wi[j, i]) for i in range(n)]
        if not any(wj) and Mi[j].tolist() == [0] * d:
            continue
        for k in range(d):
            row = [wj[i] * int(Ui[i, k]) * f1 for i in range(n)]
            b = -int(Mi[j, k]) * f2
            if any(row) or b:
                rows.append(row)
                rhs.append(b)
    g = 0
    for row, b in zip(rows, rhs):
        for v in row:
            g = math.gcd(g, v)
        g = math.gcd(g, b)
    if g > 1:
        rows = [[v // g for v in row] for row in rows]
        rhs = [b // g for b in rhs]
    return rows, rhs


def lattice_candidates(U: np.ndarray, W: np.ndarray, Mm: np.ndarray, units: np.ndarray,
                       max_units: int = MAX_UNITS, seconds: Optional[float] = None) -> dict[str, Any]:
    """Reduce the embedding lattice of the module docstring and read 0/1 candidates off it.

    Returns ``{"candidates": [tuple, ...], "dimension", "constraints", "time", "attempted", "note"}``;
    the candidates are index sets of the original units (sorted), to be verified exactly.
    """
    t0 = time.perf_counter()
    seconds = TIME_LIMIT if seconds is None else seconds  # math.inf: no limit
    n = len(units)
    if n > max_units:
        return {"candidates": [], "attempted": False, "dimension": n + 1, "constraints": None,
                "time": 0.0, "note": f"{n} units exceed the lattice limit {max_units}"}
    d = U.shape[1]
    if d * d > MAX_ROWS:
        return {"candidates": [], "attempted": False, "dimension": n + 1, "constraints": d * d,
                "time": 0.0, "note": f"d^2 = {d * d} constraint rows exceed the lattice limit {MAX_ROWS}"}
    rows, rhs = integer_system(U, W, Mm, units)
    if not rows:  # every term and M vanish: s = 0 solves it (the caller checks)
        return {"candidates": [()], "attempted": False, "dimension": n + 1, "constraints": 0,
                "time": time.perf_counter() - t0, "note": "no nonzero coordinate"}
    bits = max((abs(v).bit_length() for row in rows for v in row), default=0)
    bits = max(bits, max((abs(b).bit_length() for b in rhs), default=0))
    if bits > MAX_BITS:
        return {"candidates": [], "attempted": False, "dimension": n + 1, "constraints": len(rows),
                "time": time.perf_counter() - t0,
                "note": f"the integer system needs {bits}-bit entries (lattice limit {MAX_BITS})"}
    rows, rhs = _independent_rows(rows, rhs)
    r = len(rows)
    K = 1 << (max(1, math.isqrt(n + 1)).bit_length() + 2)  # > 4 sqrt(n + 1): a power of two
    basis = []
    for i in range(n):
        row = [0] * (n + 1)
        row[i] = 2
        basis.append(row + [K * rows[t][i] for t in range(r)])
    basis.append([1] * (n + 1) + [K * b for b in rhs])
    red = _reduce(basis, seconds)
    if red is None:
        return {"candidates": [], "attempted": True, "dimension": n + 1, "constraints": r,
                "time": time.perf_counter() - t0,
                "note": f"reduction not finished within {seconds:g} s (or no child process could start)"}
    R = np.array(red, dtype=object)
    head = R[:, :n + 1]
    # kernel vectors (last block zero) with small entries: only those can give +-1 vectors
    tail_zero = np.array([all(v == 0 for v in R[k, n + 1:]) and max(abs(int(v)) for v in R[k, :n + 1]) <= 8
                          for k in range(R.shape[0])], dtype=bool)
    H = head[tail_zero].astype(np.int64) if tail_zero.any() else np.zeros((0, n + 1), dtype=np.int64)
    cands: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()

    def take(v: np.ndarray) -> None:
        if abs(int(v[n])) != 1 or not np.all(np.abs(v[:n]) == 1):
            return
        y = v[:n] * (-int(v[n]))  # normalise to last coordinate -1: y = 2 s - 1
        S = tuple(int(units[i]) for i in np.flatnonzero(y > 0))
        if S not in seen:
            seen.add(S)
            cands.append(S)

    for v in H:
        take(v)
    if not cands and 1 < H.shape[0] <= 400:
        # the solution is sometimes a sum or difference of two reduced vectors
        for a in range(H.shape[0]):
            for sgn in (1, -1):
                V = H[a + 1:] * sgn + H[a]
                ok = np.all(np.abs(V) == 1, axis=1)
                for v in V[ok]:
                    take(v)
            if len(cands) >= 8:
                break
    return {"candidates": cands, "attempted": True, "dimension": n + 1, "constraints": r,
            "time": time.perf_counter() - t0, "note": f"{int(tail_zero.sum())} reduced vectors in the kernel"}
