"""The relaxation certificate: a linear functional Y proving that no index set exists.

For any d x d matrix Y and 0/1 vector s, <Y, A(s)> = <Y, M> + sum_i s_i w_i^T Y u_i,
so L = <Y, M> + sum_i min(0, w_i^T Y u_i) > 0 rules out every index set.  Y comes
from a first-order minimisation of ||W_down diag(z) W_up + M||_F^2 over the cube;
only the re-check of L needs to be rigorous (exact, or float64 with a-priori
rounding-error bounds), and it reads nothing but the weights and Y.
"""

from __future__ import annotations

import base64
import hashlib
import math
import time
from fractions import Fraction
from typing import Any

import numpy as np

from oracle.algebra.search.bounds import (
    ETA, UROUND, col_norms_up, gamma_bound, next_up, next_up1, norm_up, rigorous_sum_bounds, sqrt_down
)
from oracle.algebra.search.common import as_f64, check_shapes
from oracle.algebra.search.modular import Dyadic
from oracle.core.rational import float_down

try:  # scipy only speeds up the relaxation (symmetric mat-vec)
    from scipy.linalg import blas as _blas
except Exception:  # pragma: no cover - scipy is a declared dependency
    _blas = None


def _exact_small(m: int, d: int) -> bool:
    """Whether exact Python-int arithmetic over all m d^2 terms is affordable."""
    return m * d * d <= 400_000


def _top_exponent(x: np.ndarray, need_min: bool = True) -> tuple[int, int] | None:
    """(e_min, e_max) with 2^(e-1) <= |v| < 2^e over the nonzero entries, or None if all are zero.

    Without ``need_min`` only e_max is computed (e_min is then returned as e_max), which
    needs no temporary copy of a large matrix.
    """
    if x.size == 0:
        return None
    hi = max(float(x.max()), -float(x.min()))
    if hi == 0.0:
        return None
    e_max = int(np.frexp(hi)[1])
    if not need_min:
        return e_max, e_max
    nz = np.abs(x[x != 0])
    return int(np.frexp(nz.min())[1]), e_max


def balance(U: np.ndarray, W: np.ndarray, Mm: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Exact power-of-two rescaling (2^b U, 2^a W, 2^t M), t = a + b, that keeps float64 products in range.

    Then A'(s) = W' diag(s) U' + M' = 2^t A(s) for every s, so a linear certificate
    for the rescaled weights is one for the given weights.  Weights near 1e200
    would overflow every product; a scaling is used only when all three matrices
    stay exactly representable, otherwise the weights are returned unchanged (the
    float check then finds its bounds infinite and certifies nothing).
    """
    ew, eu, em = _top_exponent(W, False), _top_exponent(U, False), _top_exponent(Mm)
    if ew is None or eu is None:
        return U, W, Mm, 0
    P = ew[1] + eu[1]  # products w_i u_i^T are below 2^P
    t_lo, t_hi = -1e9, 400 - P
    if em is not None:
        t_lo = -1000 - em[0]  # the smallest entry of M stays a normal number
        t_hi = min(t_hi, 400 - em[1])
    if t_lo <= 0 <= t_hi and -300 <= P <= 300:
        return U, W, Mm, 0  # ordinary magnitudes: nothing to do
    if t_lo > t_hi:
        return U, W, Mm, 0  # no common range: leave it to the exact check or to 'not certified'
    t = int(min(max(-P, t_lo), t_hi))
    k = t + P  # split so that both factors shrink or grow alike
    a, b = -ew[1] + k // 2, -eu[1] + (k - k // 2)
    with np.errstate(all="ignore"):
        W2, U2, M2 = np.ldexp(W, a), np.ldexp(U, b), np.ldexp(Mm, t)
        exact = all(np.all(np.isfinite(x2)) and np.array_equal(np.ldexp(x2, -e), x)
                    for x2, x, e in ((W2, W, a), (U2, U, b), (M2, Mm, t)))
    return (U2, W2, M2, t) if exact else (U, W, Mm, 0)


def _unscale_down(x: float, t: int) -> float:
    """A float64 lower bound for x * 2^-t (x >= 0), safe under overflow and underflow."""
    with np.errstate(all="ignore"):
        r = float(np.ldexp(x, -t))
    if not math.isfinite(r):
        return float(np.finfo(np.float64).max)
    if r != 0.0 and abs(r) < 2.0 ** -1022:  # subnormal: ldexp may have rounded up
        r = math.nextafter(r, -math.inf)
    return max(r, 0.0) if x >= 0 else r


def check_linear_certificate(
    W_up: Any, W_down: Any, M: Any, Y: Any, method: str = "auto"
) -> dict[str, Any]:
    """Rigorously re-check that min over 0/1 s of <Y, A(s)> is positive, from the weights and Y alone.

    ``method``: "exact" (Fractions; small sizes), "float" (float64 with an a-priori
    rounding-error bound, valid at any size) or "auto".
    """
    U, W, Mm = check_shapes(W_up, W_down, M)
    Yv = as_f64(Y, "Y")
    m, d = U.shape
    if Yv.shape != (d, d):
        raise ValueError(f"Y must have shape {(d, d)}")
    exact = _exact_small(m, d) if method == "auto" else method == "exact"
    t = 0
    if not exact:
        U, W, Mm, t = balance(U, W, Mm)
    with np.errstate(all="ignore"):  # overflow shows up as infinite bounds, which certify nothing
        a, c, how = _linear_functional_terms(U, W, Mm, Yv, exact)
    if how == "exact":
        L = c + sum((min(Fraction(0), x) for x in a), Fraction(0))
        lower = float_down(L)
        nY2 = sum((Fraction(float(y)) ** 2 for y in Yv.ravel()), Fraction(0))
        certified = L > 0
        dist = 0.0
        if certified and nY2 > 0:
            # ||A(s)||_F >= <Y, A(s)>/||Y||_F >= L/||Y||_F; compare squares exactly
            dist = sqrt_down(L * L / nY2)
        return {"certified": bool(certified), "lower_bound": lower, "distance_lower_bound": dist,
                "method": how, "lower_bound_exact": str(L)}
    (ah, ae), (ch, ce) = a, c
    lower, _ = rigorous_sum_bounds(np.append(np.minimum(0.0, ah), ch), np.append(ae, ce))
    certified = lower > 0.0
    dist = 0.0
    if certified:
        nY = norm_up(Yv.ravel())
        dist = math.nextafter(lower / nY, -math.inf) if 0 < nY < math.inf else 0.0
    out = {"certified": bool(certified), "lower_bound": lower, "distance_lower_bound": dist,
           "method": how}
    if t:
        # the terms were computed for 2^t A(s); bounds for A(s) follow by an exact power of two
        out.update(lower_bound=_unscale_down(lower, t) if certified else lower,
                   distance_lower_bound=_unscale_down(dist, t), scaled_by_power_of_two=t)
    return out


def _linear_functional_terms(
    U: np.ndarray, W: np.ndarray, Mm: np.ndarray, Y: np.ndarray, exact: bool
) -> tuple[Any, Any, str]:
    """Return (a, c, how): a_i = w_i^T Y u_i and c = <Y, M>, exactly or with error bounds.

    Exact mode returns Fractions.  Float mode returns ((a_hat, a_err), (c_hat, c_err))
    where the true values lie within the stated errors (see the comment below).
    """
    m, d = U.shape
    if exact:
        # scale every matrix to integers (Python ints, no overflow) and divide once at the end
        DU, DW, DM, DY = Dyadic(U), Dyadic(W), Dyadic(Mm), Dyadic(Y)
        Ui, Wi = DU.python_ints(DU.scale), DW.python_ints(DW.scale)
        Mi, Yi = DM.python_ints(DM.scale), DY.python_ints(DY.scale)
        G = Wi.T @ Yi  # m x d exact integers
        den_a = 1 << (DU.scale + DW.scale + DY.scale)
        a = [Fraction(sum(G[i, k] * Ui[i, k] for k in range(d)), den_a) for i in range(m)]
        c = Fraction(int(sum(Yi.ravel() * Mi.ravel())), 1 << (DY.scale + DM.scale))
        return a, c, "exact"
    # Float64 with an a-priori bound.  Model: each BLAS entry of W^T Y is a sum of d
    # rounded products in some order (no fast matrix multiplication), so
    #   |fl(W^T Y) - W^T Y| <= gamma_d |W|^T |Y| + (1+gamma_d) d eta   (entrywise),
    # and likewise for the row-wise dot with U.  Combining both stages,
    #   |a_hat_i - a_i| <= (2 gamma_d + gamma_d^2) |w_i|^T |Y| |u_i|
    #                      + 3 d eta (1 + sum_k |u_ik|),
    # and |w_i|^T |Y| |u_i| <= ||w_i||_2 ||Y||_F ||u_i||_2 (Cauchy-Schwarz twice), which
    # avoids a second large product.  The norms are rounded up by norm_up.
    if np.count_nonzero(Y - np.diag(np.diagonal(Y))) == 0:
        # diagonal Y (e.g. M = I at z = 0): G_ik = w_ki y_k needs one rounding per
        # entry instead of a length-d dot product, so the bound below still holds
        G = W.T * np.diagonal(Y)[None, :]
    else:
        G = W.T @ Y
    a_hat = np.einsum("ik,ik->i", G, U)
    del G
    g = gamma_bound(d)
    nw = col_norms_up(W)
    nu_ = col_norms_up(U.T)
    nY = norm_up(Y.ravel())
    l1u = next_up(np.sum(np.abs(U), axis=1) * (1.0 + gamma_bound(d)))
    k = next_up(2.0 * g + g * g) * (1.0 + 8 * UROUND)
    a_err = next_up(next_up(next_up(k * nw) * nu_) * nY) + next_up(3.0 * d * ETA * (1.0 + l1u)) * (1.0 + 8 * UROUND)
    a_err = next_up(a_err)
    # <Y, M> over the nonzero entries of M (n of them): rounded products, summed with
    # math.fsum (correctly rounded) for moderate n, else with numpy (error gamma_n):
    # |c_hat - c| <= u/(1-u) sum|p_hat| + n eta + [u |c_hat|  or  gamma_n sum|p_hat|].
    nzm = Mm != 0
    prods = Y[nzm] * Mm[nzm]
    n = prods.size
    absp = np.abs(prods)
    if n <= 1_000_000:
        c_hat = math.fsum(prods.tolist())
        abs_sum = math.fsum(absp.tolist())
        sum_err = UROUND * abs(c_hat)
    else:
        c_hat = float(np.sum(prods))
        abs_sum = float(np.sum(absp)) / (1.0 - gamma_bound(n))  # upper bound for sum|p_hat|
        sum_err = gamma_bound(n) * abs_sum * (1.0 + 4 * UROUND)
    abs_sum_up = next_up1((abs_sum + n * ETA) * (1.0 + 4 * UROUND))
    c_err = next_up1((2.0 * UROUND * abs_sum_up + sum_err + (n + 1) * ETA) * (1.0 + 8 * UROUND))
    return (a_hat, a_err), (c_hat, c_err), "float64-rigorous"


def _symmetric_products(U: np.ndarray, W: np.ndarray, block: int = 1024,
                        dtype: Any = np.float64) -> np.ndarray:
    """Q = (W^T W) o (U U^T) with only its upper triangle filled (C order, one m x m buffer).

    Row blocks are formed with plain gemm, which OpenBLAS runs faster than syrk,
    and only the columns right of each block's diagonal are computed, so the flop
    count matches syrk while no second m x m array is ever allocated.
    """
    m = U.shape[0]
    Q = np.empty((m, m), dtype=dtype)
    U = U.astype(dtype, copy=False)
    Wt = np.ascontiguousarray(W.T, dtype=dtype)  # m x d, so that row blocks are contiguous
    for i0 in range(0, m, block):
        i1 = min(m, i0 + block)
        G = U[i0:i1] @ U[i0:].T
        G *= Wt[i0:i1] @ Wt[i0:].T
        Q[i0:i1, i0:] = G
        del G
    return Q


def _symv(Q: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Q x for the symmetric Q held in its upper triangle (C order)."""
    if _blas is not None:
        # the C-ordered upper triangle is the lower triangle of the Fortran-ordered Q.T
        if Q.dtype == np.float32:
            return _blas.ssymv(1.0, Q.T, x.astype(np.float32), lower=1).astype(np.float64)
        return _blas.dsymv(1.0, Q.T, x, lower=1)
    return np.triu(Q) @ x + np.triu(Q, 1).T @ x  # pragma: no cover - slow fallback


class Gram:
    """The PSD matrix Q = (W^T W) o (U U^T) of the relaxation, stored or applied implicitly.

    Q z = (w_i^T (W diag(z) U) u_i)_i, so Q can be applied in O(m d^2) time and O(m d)
    memory without ever forming it.  The m x m matrix is formed only when it is the
    cheaper choice (m <= 2 d^2) *and* it takes no more than a small multiple of the
    weights' own memory (or 256 MiB): a block with d << m never asks for m^2 memory.
    """

    def __init__(self, U: np.ndarray, W: np.ndarray, dtype: Any) -> None:
        m, d = U.shape
        self.U, self.W, self.m = U, W, m
        item = np.dtype(dtype).itemsize
        allowance = max(4 * (U.nbytes + W.nbytes), 256 * 2 ** 20)
        self.explicit = m <= 2 * d * d and m * m * item <= allowance
        self.Q: np.ndarray | None = None
        self.dtype = np.dtype(dtype) if self.explicit else np.dtype(np.float64)
        if self.explicit:
            self.Q = _symmetric_products(U, W, dtype=dtype)
        else:
            self.Wt = np.ascontiguousarray(W.T)  # m x d

    def __call__(self, z: np.ndarray) -> np.ndarray:
        """Q z."""
        if self.Q is not None:
            return _symv(self.Q, z)
        nz = np.flatnonzero(z)
        if nz.size == 0:
            return np.zeros(self.m)
        A = self.W[:, nz] @ (z[nz, None] * self.U[nz, :])  # d x d
        return np.einsum("ik,ik->i", self.Wt @ A, self.U)

    def trace(self) -> float:
        """The trace sum_i |w_i|^2 |u_i|^2 (an upper bound of the largest eigenvalue)."""
        if self.Q is not None:
            return float(np.diag(self.Q).sum())
        return float(np.einsum("ij,ij->i", self.U, self.U) @ np.einsum("ji,ji->i", self.W, self.W))


def _lambda_max_upper(Q: Gram, m: int, iters: int = 30) -> float:
    """A safe step-size constant: at least the largest eigenvalue of the PSD matrix Q (with margin)."""
    # Power iteration gives a lower estimate; the Gershgorin-free bound trace(Q) is an
    # upper bound but can be very loose, so take the power estimate times 1.5 capped by it.
    tr = Q.trace()
    v = np.random.default_rng(0).standard_normal(m)
    lam = 0.0
    for _ in range(iters):
        w = Q(v)
        nrm = float(np.linalg.norm(w))
        if nrm == 0.0 or not math.isfinite(nrm):
            return max(tr, 1e-300)
        lam = nrm / float(np.linalg.norm(v))
        v = w / nrm
    return max(min(1.5 * lam, tr), 1e-300)


def relaxation_certificate(
    W_up: Any, W_down: Any, M: Any, max_iter: int = 300, tol: float = 1e-9,
    check_method: str = "auto", fw_iter: int = 30, refine: bool = False,
    q_dtype: str = "auto",
) -> dict[str, Any]:
    """Minimise ||W_down diag(z) W_up + M||_F^2 over [0,1]^m and turn the iterate into a linear certificate.

    With Y = A(z) at the final z, the identity <Y, A(s)> = <Y, M> + sum_i s_i a_i,
    a_i = w_i^T Y u_i, gives L = <Y,M> + sum_i min(0, a_i) <= <Y, A(s)> for all
    0/1 s; L > 0 proves that no index set exists.  In exact arithmetic L equals
    f(z) - gap/2 (gap = Frank-Wolfe duality gap at z), so the iteration stops as
    soon as that quantity is clearly positive (unless ``refine``).  The first
    ``fw_iter`` steps are Frank-Wolfe with exact line search; after that the
    method switches to accelerated projected gradient (FISTA with restarts), which
    converges much faster when the minimiser is a vertex with zero gradient (the
    condition-satisfying case).  Every iteration costs one symmetric m x m mat-vec.
    ``q_dtype`` ("auto", "float64", "float32"): precision of the m x m matrix Q,
    which only steers the optimiser; "auto" takes float32 for m >= 2048 (half the
    memory and time).  The certificate is re-checked from Y in float64 either way.
    """
    t0 = time.perf_counter()
    U, W, Mm = check_shapes(W_up, W_down, M)
    m, d = U.shape
    with np.errstate(all="ignore"):  # overflow is detected below (non-finite Y), never warned
        out = _relax(U, W, Mm, max_iter, tol, check_method, fw_iter, refine, q_dtype)
    out["time_total"] = time.perf_counter() - t0
    return out


def _relax(U0: np.ndarray, W0: np.ndarray, M0: np.ndarray, max_iter: int, tol: float,
           check_method: str, fw_iter: int, refine: bool, q_dtype: str) -> dict[str, Any]:
    """The body of :func:`relaxation_certificate` (on exactly rescaled weights)."""
    U, W, Mm, tscale = balance(U0, W0, M0)
    m, d = U.shape
    if np.count_nonzero(Mm - np.diag(np.diagonal(Mm))) == 0:
        c = np.einsum("ki,ik,k->i", W, U, np.diagonal(Mm))  # diagonal M: c_i = sum_k w_ki M_kk u_ik
    else:
        c = np.einsum("ik,ik->i", W.T @ Mm, U)  # c_i = w_i^T M u_i
    nM2 = float(np.sum(Mm * Mm))
    qdt = np.float32 if (q_dtype == "float32" or (q_dtype == "auto" and m >= 2048)) else np.float64
    rel_eps = 1e-5 if qdt == np.float32 else 1e-10  # accuracy of objective values
    z = np.zeros(m)
    Qz = np.zeros(m)
    f = nM2
    best_vertex: tuple[float, np.ndarray] | None = None
    Q: Gram | None = None
    it = 0
    gap = math.inf
    status = "max_iter"
    t_setup = 0.0
    lip = 0.0
    z_prev, Qz_prev, f_prev, tk = z, Qz, f, 1.0

    def consider_vertex(sv: np.ndarray, Qsv: np.ndarray) -> bool:
        """Record a binary point; True when its objective is zero up to rounding."""
        nonlocal best_vertex
        quad = float(sv @ Qsv)
        lin = float(c @ sv)
        # objective relative to the size of its terms (cancellation limits accuracy)
        fs = (quad + 2.0 * lin + nM2) / (abs(quad) + 2.0 * abs(lin) + nM2 + 1e-300)
        if best_vertex is None or fs < best_vertex[0]:
            best_vertex = (fs, sv.copy())
        return fs <= rel_eps

    while True:
        grad_half = Qz + c  # a_i = w_i^T A(z) u_i
        s = (grad_half < 0).astype(np.float64)
        dvec = s - z
        gap = float(-2.0 * grad_half @ dvec)
        L_est = f - gap / 2.0
        # stop when the float estimate is safely positive; the rigorous check follows
        if not refine and L_est > 1e3 * rel_eps * max(f, 1e-300) and L_est > 0:
            status = "positive"
            break
        if gap <= tol * max(nM2, 1e-300) or f <= 1e-300:
            status = "converged"
            break
        if it >= max_iter:
            break
        if Q is None:
            ts = time.perf_counter()
            Q = Gram(U, W, qdt)
            t_setup = time.perf_counter() - ts
        if it < fw_iter:
            Qs = Q(s)
            hit = consider_vertex(s, Qs)
            Qd = Qs - Qz
            dQd = float(dvec @ Qd)
            gamma = 1.0 if dQd <= 0 else min(1.0, gap / (2.0 * dQd))
            z = z + gamma * dvec
            Qz = Qz + gamma * Qd
        else:
            if lip == 0.0:
                lip = _lambda_max_upper(Q, m)
                z_prev, Qz_prev, f_prev, tk = z, Qz, f, 1.0
            # FISTA step on f/2 = z'Qz/2 + c'z + const, gradient Qz + c, Lipschitz lip
            t_next = (1.0 + math.sqrt(1.0 + 4.0 * tk * tk)) / 2.0
            beta = (tk - 1.0) / t_next
            y = z + beta * (z - z_prev)
            Qy = Qz + beta * (Qz - Qz_prev)
            z_new = np.clip(y - (Qy + c) / lip, 0.0, 1.0)
            Qz_new = Q(z_new)
            f_new = float(z_new @ Qz_new + 2.0 * c @ z_new + nM2)
            if f_new > f:  # restart the momentum when the objective goes up
                tk, z_prev, Qz_prev = 1.0, z, Qz
                z_new = np.clip(z - (Qz + c) / lip, 0.0, 1.0)
                Qz_new = Q(z_new)
            else:
                tk = t_next
                z_prev, Qz_prev = z, Qz
            z, Qz = z_new, Qz_new
            hit = False
            if it % 10 == 0:
                sr = (z > 0.5).astype(np.float64)
                hit = consider_vertex(sr, Q(sr))
        np.clip(z, 0.0, 1.0, out=z)
        f = float(z @ Qz + 2.0 * c @ z + nM2)
        it += 1
        if hit:
            status = "binary_candidate"
            break
    explicit = Q is None or Q.explicit
    del Q
    # the certificate matrix Y = A(z); z = 0 gives Y = M without any large product
    if np.any(z):
        nzc = np.flatnonzero(z)
        Y = W[:, nzc] @ (z[nzc, None] * U[nzc, :]) + Mm
    else:
        Y = Mm.copy()
    t_cert = time.perf_counter()
    if np.all(np.isfinite(Y)):
        # checked on the given weights (the check rescales them the same way by itself)
        chk = check_linear_certificate(U0, W0, M0, Y, method=check_method)
    else:
        chk = {"certified": False, "lower_bound": -math.inf, "distance_lower_bound": 0.0,
               "method": "none: the relaxation overflowed float64 even after rescaling"}
    if not math.isfinite(f):
        f = math.inf
    # binary points worth an exact check: the best vertex seen, and z rounded at 1/2
    # when the relaxed objective is small (the minimiser is then close to binary)
    candidates: list[tuple[int, ...]] = []
    if best_vertex is not None and best_vertex[0] <= 1e4 * rel_eps:
        candidates.append(tuple(int(i) for i in np.flatnonzero(best_vertex[1])))
    zr = tuple(int(i) for i in np.flatnonzero(z > 0.5))
    if f <= 1e-4 * max(nM2, 1e-300) and zr not in candidates:
        candidates.append(zr)
    out = {
        "certified": chk["certified"],
        "lower_bound": chk["lower_bound"],
        "distance_lower_bound": chk["distance_lower_bound"],
        "method": "frank-wolfe/fista + linear certificate (" + chk["method"] + ")",
        "check": chk,
        "Y": Y,
        "z": z,
        "objective": f if not tscale else float(np.ldexp(f, -2 * tscale)),
        "gap": gap,
        "iterations": it,
        "status": status,
        "candidates": candidates,
        "time_setup_Q": t_setup,
        "q_dtype": np.dtype(qdt).name,
        "q_form": "m x m matrix" if explicit else "implicit (O(m d) memory)",
        "scaled_by_power_of_two": tscale,
        "time_check": time.perf_counter() - t_cert,
    }
    return out


# ----------------------------------------------------------------------------
# serialisation of certificate matrices
# ----------------------------------------------------------------------------


def encode_matrix(a: np.ndarray) -> dict[str, Any]:
    """Encode a float64 matrix losslessly for JSON (base64 of little-endian bytes + sha256)."""
    arr = np.ascontiguousarray(np.asarray(a, dtype="<f8"))
    raw = arr.tobytes()
    return {"shape": list(arr.shape), "dtype": "float64-le",
            "base64": base64.b64encode(raw).decode("ascii"),
            "sha256": hashlib.sha256(raw).hexdigest()}


def decode_matrix(obj: dict[str, Any]) -> np.ndarray:
    """Inverse of :func:`encode_matrix`, checking the stored hash."""
    raw = base64.b64decode(obj["base64"])
    if hashlib.sha256(raw).hexdigest() != obj["sha256"]:
        raise ValueError("matrix payload does not match its sha256")
    return np.frombuffer(raw, dtype="<f8").reshape(obj["shape"]).astype(np.float64)
