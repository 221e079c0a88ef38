"""Flip sets of biased relu2 and gated blocks, in exact rational arithmetic.

A flip changes one unit by a polynomial of degree <= 2 in x (proofs/informal/relu2-biased.md,
gated-biased.md):

* s(z) + s(-z) = z^2 (``kind = "square"``, the catalog's SQUARE_FLIP: relu2): flipping
  (u_i, b_i, w_i) -> -(u_i, b_i, w_i) removes w_i (u_i . x + b_i)^2;
* gates with g(z) - g(-z) = z (``kind = "odd_gate"``, ODD_GATES: reglu, swiglu, geglu, geglu_tanh):
  flipping the gate row and gate bias removes w_i (a_i . x + c_i)(u_i . x + e_i);
* gates with g(z) + g(-z) = 1 (``kind = "flip_gate"``, FLIP_GATES: the sigmoid): flipping the gate row and
  bias and negating the output column removes w_i (u_i . x + e_i).

A set S is a *flip set* when the removed polynomials of its units sum to -M x + (a constant):
quadratic parts cancel, linear parts give -M.  That is a linear condition on the 0/1 vector of S.
:func:`find_flip_set` decides it exactly: it compresses the condition with k = m + 8 integer
linear functionals (deterministic, so a certificate names them by k alone), solves the compressed
0/1 system by exact row reduction and enumeration of the free variables, and verifies every
candidate against the full condition (:func:`verify_flip_set`).  A compressed system has at least
the solutions of the full one, so "no solution of the compressed system" proves that no flip set
exists; a candidate counts only once the full exact check passes.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any, Optional, Sequence

import numpy as np

from oracle.core import activations
from oracle.core.rational import fmpq, fmpq_mat, to_fmpq

SQUARE, ODD_GATE, FLIP_GATE = FLIP_KINDS = ("square", "odd_gate", "flip_gate")  # the three flips
MAX_FREE = 16           # free variables enumerated exactly (2^16 assignments)
MAX_SOLVE_UNITS = 400         # widths beyond which the exact compressed solve is not attempted
MAX_SOLUTIONS = 64      # compressed solutions verified before giving up


def flip_kind(activation: str) -> Optional[str]:
    """The flip kind of an activation by its declared identity (the catalog's families): SQUARE for
    s(z) + s(-z) = z^2, ODD_GATE for gates with g(z) - g(-z) = z, FLIP_GATE for gates with
    g(z) + g(-z) = 1; None when no flip applies."""
    if activation in activations.SQUARE_FLIP:
        return SQUARE
    if activation in activations.ODD_GATES:
        return ODD_GATE
    if activation in activations.FLIP_GATES:
        return FLIP_GATE
    return None


@dataclass
class FlipData:
    """The exact pieces of a block that flips touch (lists of fmpq).

    relu2: rows ``U`` and biases ``b`` of W_up / b_up; gates: gate rows ``G`` and biases ``c``,
    value rows ``U`` and biases ``b`` (= b_up); ``W`` the output columns (d x m), ``M`` the skip.
    """

    kind: str
    d: int
    m: int
    U: list[list[fmpq]]
    b: list[fmpq]
    W: list[list[fmpq]]  # d rows of m entries
    M: list[list[fmpq]]
    G: Optional[list[list[fmpq]]] = None
    c: Optional[list[fmpq]] = None

    def col(self, i: int) -> list[fmpq]:
        return [self.W[a][i] for a in range(self.d)]


def flip_data(kind: str, W_up: Any, W_down: Any, M: Any, b_up: Any = None,
              W_gate: Any = None, b_gate: Any = None) -> FlipData:
    """Exact FlipData from arrays or lists (floats read exactly, Fractions, ints; M None = identity).
    ``kind`` is a flip kind (FLIP_KINDS) or an activation, whose kind is taken (flip_kind)."""
    if kind not in FLIP_KINDS:
        resolved = flip_kind(kind)
        if resolved is None:
            raise ValueError(f"no flip applies to {kind!r}")
        kind = resolved
    U = [[to_fmpq(v) for v in row] for row in np.asarray(W_up, dtype=object).tolist()]
    m, d = len(U), len(U[0])
    W = [[to_fmpq(v) for v in row] for row in np.asarray(W_down, dtype=object).tolist()]
    if M is None:
        Mq = [[fmpq(1 if a == j else 0) for j in range(d)] for a in range(d)]
    else:
        Mq = [[to_fmpq(v) for v in row] for row in np.asarray(M, dtype=object).tolist()]
    b = [fmpq(0)] * m if b_up is None else [to_fmpq(v) for v in np.asarray(b_up, dtype=object).tolist()]
    G = c = None
    if kind != SQUARE:
        G = [[to_fmpq(v) for v in row] for row in np.asarray(W_gate, dtype=object).tolist()]
        c = [fmpq(0)] * m if b_gate is None else [to_fmpq(v) for v in np.asarray(b_gate, dtype=object).tolist()]
    return FlipData(kind, d, m, U, b, W, Mq, G, c)


# ---------------------------------------------------------------- the removed polynomials

def _dot(x: Sequence[fmpq], y: Sequence[Any]) -> fmpq:
    s = fmpq(0)
    for a, b in zip(x, y):
        if a != 0 and b != 0:
            s += a * b
    return s


def unit_factors(fd: FlipData, i: int) -> tuple[list[fmpq], list[fmpq], fmpq, fmpq]:
    """(p, q, s, t) with the scalar removed polynomial (p . x + s)(q . x + t); the unit removes
    w_i times it.  relu2: p = q = u_i, s = t = b_i; odd gates: (a_i . x + c_i)(u_i . x + e_i);
    glu: p = 0, s = 1 (the factor 1) times (u_i . x + e_i)."""
    if fd.kind == SQUARE:
        return fd.U[i], fd.U[i], fd.b[i], fd.b[i]
    if fd.kind == ODD_GATE:
        return fd.G[i], fd.U[i], fd.c[i], fd.b[i]
    return [fmpq(0)] * fd.d, fd.U[i], fmpq(1), fd.b[i]


def func_vectors(d: int, j: int) -> tuple[list[int], list[int], list[int], list[int]]:
    """The j-th test functional: integer vectors r, y, z, l with entries in [-8, 7], from a 64-bit
    linear congruential sequence seeded by j (a fixed recipe, so a certificate needs only j)."""
    x = (j + 1) * 0x9E3779B97F4A7C15 % (1 << 64)
    out = []
    for _ in range(4):
        vec = []
        for _a in range(d):
            x = (6364136223846793005 * x + 1442695040888963407) % (1 << 64)
            vec.append(int(x >> 60) - 8)
        out.append(vec)
    return out[0], out[1], out[2], out[3]


def compressed_system(fd: FlipData, k: Optional[int] = None) -> tuple[fmpq_mat, fmpq_mat]:
    """The k x m matrix V and k x 1 right side t of the compressed flip condition.

    Functional j applied to the removed polynomial of unit i, w_i (p . x + s)(q . x + t):
    (r . w_i) [((p.y)(q.z) + (p.z)(q.y))/2 + s (q . l) + t (p . l)], and to -M x: -(r^T M l).
    The dot products are FLINT matrix products; only the final combination is a Python loop.
    """
    m, d = fd.m, fd.d
    k = m + 8 if k is None else k
    facs = [unit_factors(fd, i) for i in range(m)]
    vecs = [func_vectors(d, j) for j in range(k)]
    R = fmpq_mat(k, d, [fmpq(v) for r, _, _, _ in vecs for v in r])
    cols = lambda idx: fmpq_mat(d, k, [fmpq(vecs[j][idx][a]) for a in range(d) for j in range(k)])  # noqa: E731
    Y, Z, L = cols(1), cols(2), cols(3)
    P = fmpq_mat(m, d, [v for p, _, _, _ in facs for v in p])
    Qm = fmpq_mat(m, d, [v for _, q, _, _ in facs for v in q])
    Wm = fmpq_mat(d, m, [v for row in fd.W for v in row])
    RW = R * Wm
    PY, PZ, PL = P * Y, P * Z, P * L
    QY, QZ, QL = Qm * Y, Qm * Z, Qm * L
    V = fmpq_mat(k, m)
    half = fmpq(1, 2)
    for i, (_, _, s, t) in enumerate(facs):
        for j in range(k):
            rw = RW[j, i]
            if rw == 0:
                continue
            val = (PY[i, j] * QZ[i, j] + PZ[i, j] * QY[i, j]) * half
            if s != 0:
                val += s * QL[i, j]
            if t != 0:
                val += t * PL[i, j]
            if val != 0:
                V[j, i] = rw * val
    RM = R * fmpq_mat(d, d, [v for row in fd.M for v in row])
    rhs = fmpq_mat(k, 1)
    for j in range(k):
        acc = fmpq(0)
        for a in range(d):
            acc += RM[j, a] * L[a, j]
        rhs[j, 0] = -acc
    return V, rhs


# ---------------------------------------------------------------- exact full check

def flip_residual(fd: FlipData, S: Sequence[int]) -> tuple[bool, bool, list[fmpq]]:
    """(quadratic part cancels, linear part equals -M, the constant c_S) for the set S, exactly.

    With (p . x + s)(q . x + t) = x^T p q^T x + (s q + t p) . x + s t per unit: the symmetrised
    quadratic parts sum_S w_i vec(p_i q_i^T + q_i p_i^T), the linear parts sum_S w_i (s_i q_i + t_i p_i)^T
    and the constants sum_S s_i t_i w_i, as FLINT products of rational matrices."""
    d = fd.d
    S = sorted(set(int(i) for i in S))
    if not S:
        zero = all(v == 0 for row in fd.M for v in row)
        return True, zero, [fmpq(0)] * d
    facs = [unit_factors(fd, i) for i in S]
    WS = fmpq_mat(d, len(S), [fd.W[a][i] for a in range(d) for i in S])
    quad_rows, lin_rows, consts = [], [], []
    for p, q, s_, t in facs:
        pq = [p[a] * q[b] + q[a] * p[b] for a in range(d) for b in range(a, d)]
        quad_rows.extend(pq)
        lin_rows.extend(s_ * qq + t * pp for pp, qq in zip(p, q))
        consts.append(s_ * t)
    nq = d * (d + 1) // 2
    quad = WS * fmpq_mat(len(S), nq, quad_rows)
    lin = WS * fmpq_mat(len(S), d, lin_rows)
    const = WS * fmpq_mat(len(S), 1, consts)
    quad_zero = all(v == 0 for v in quad.entries())
    lin_ok = all(lin[o, a] + fd.M[o][a] == 0 for o in range(d) for a in range(d))
    return quad_zero, lin_ok, [const[o, 0] for o in range(d)]


def verify_flip_set(fd: FlipData, S: Sequence[int]) -> bool:
    """True when S is a flip set (exact)."""
    if any(not 0 <= int(i) < fd.m for i in S):
        return False
    qz, lo, _ = flip_residual(fd, S)
    return qz and lo


# ---------------------------------------------------------------- the 0/1 solve

@dataclass
class FlipSearch:
    status: str  # "found" | "none" | "inconclusive"
    S: Optional[list[int]]
    method: str
    certificate: dict[str, Any]


def solve01(V: fmpq_mat, t: fmpq_mat, max_free: int) -> tuple[str, list[list[int]], dict[str, Any]]:
    """0/1 solutions of V s = t: ("inconsistent" | "enumerated" | "too_many_free", solutions, info)."""
    k, m = V.nrows(), V.ncols()
    A = fmpq_mat(k, m + 1)
    for j in range(k):
        for i in range(m):
            A[j, i] = V[j, i]
        A[j, m] = t[j, 0]
    R, rank = A.rref()
    piv = []
    row = 0
    for col in range(m + 1):
        if row < rank and R[row, col] != 0:
            piv.append(col)
            row += 1
    if piv and piv[-1] == m:
        return "inconsistent", [], {"rank": rank - 1, "augmented_rank": rank}
    free = [c for c in range(m) if c not in set(piv)]
    info = {"rank": rank, "free_variables": len(free)}
    if len(free) > max_free:
        return "too_many_free", [], info
    sols = []
    # pivot value = R[r, m] - sum_f R[r, f] s_f; enumerate the free assignments
    rows = [(p, R[r, m], [(f, R[r, f]) for f in free if R[r, f] != 0]) for r, p in enumerate(piv)]
    for mask in range(1 << len(free)):
        s = [0] * m
        for bit, f in enumerate(free):
            if (mask >> bit) & 1:
                s[f] = 1
        ok = True
        for p, rhs, terms in rows:
            v = rhs
            for f, coef in terms:
                if s[f]:
                    v -= coef
            if v == 0:
                s[p] = 0
            elif v == 1:
                s[p] = 1
            else:
                ok = False
                break
        if ok:
            sols.append([i for i in range(m) if s[i]])
            if len(sols) > MAX_SOLUTIONS:
                return "too_many_solutions", sols, info
    return "enumerated", sols, info


def find_flip_set(fd: FlipData, max_free: int = MAX_FREE) -> FlipSearch:
    """Decide exactly whether a flip set exists (or say why not decided)."""
    if fd.m > MAX_SOLVE_UNITS:
        return FlipSearch("inconclusive", None, "not attempted",
                          {"reason": f"m = {fd.m} units exceed the exact compressed solve's limit {MAX_SOLVE_UNITS}"})
    k = fd.m + 8
    V, t = compressed_system(fd, k)
    status, sols, info = solve01(V, t, max_free)
    cert = {"kind": "compressed_01", "functionals": k, **info}
    if status == "inconsistent":
        return FlipSearch("none", None, "compressed system inconsistent over the rationals",
                          {**cert, "outcome": "inconsistent"})
    for S in sols:
        if verify_flip_set(fd, S):
            return FlipSearch("found", S, "compressed 0/1 solve, verified exactly", {**cert, "outcome": "found"})
    if status == "enumerated":
        how = ("the compressed system has a single rational solution and it is no flip set"
               if info["free_variables"] == 0 else
               f"all 2^{info['free_variables']} 0/1 points of the compressed solution space tried; none is a flip set")
        return FlipSearch("none", None, how, {**cert, "outcome": "exhausted", "candidates_rejected": len(sols)})
    return FlipSearch("inconclusive", None, "compressed solve inconclusive",
                      {**cert, "outcome": status,
                       "reason": (f"{info['free_variables']} free variables exceed {max_free}"
                                  if status == "too_many_free" else
                                  f"more than {MAX_SOLUTIONS} compressed solutions, none a flip set")})


def recheck_search(fd: FlipData, cert: dict[str, Any], S: Optional[Sequence[int]]) -> bool:
    """Re-derive a search outcome from the block's exact data and the certificate alone."""
    if cert.get("kind") != "compressed_01":
        return False
    if S is not None and not verify_flip_set(fd, S):
        return False
    k = int(cert["functionals"])
    if k < 1:
        return False
    V, t = compressed_system(fd, k)
    status, sols, info = solve01(V, t, MAX_FREE)
    # the stated ranks and count of free variables are the solve's, whatever the outcome
    if any(cert.get(key) != info.get(key) for key in ("rank", "free_variables", "augmented_rank")):
        return False
    if S is not None:
        return cert.get("outcome") == "found"
    if cert["outcome"] == "inconsistent":
        return status == "inconsistent"
    if cert["outcome"] == "exhausted":
        return (status == "enumerated" and cert.get("candidates_rejected") == len(sols)
                and not any(verify_flip_set(fd, s) for s in sols))
    return False


# ---------------------------------------------------------------- nondegeneracy

def _sign_key(vec: Sequence[fmpq]) -> Optional[tuple]:
    """+-vec normalised: the first nonzero entry positive (None for the zero vector)."""
    for v in vec:
        if v != 0:
            s = 1 if v > 0 else -1
            return tuple(s * x for x in vec)
    return None


def _line_key(vec: Sequence[fmpq]) -> Optional[tuple]:
    """vec up to any nonzero real factor: divided by its first nonzero entry."""
    for v in vec:
        if v != 0:
            return tuple(x / v for x in vec)
    return None


def class_key(fd: FlipData, i: int, activation: str) -> Optional[tuple]:
    """The class of unit i: its affine kink hyperplane for a positively homogeneous s or g (the
    catalog's HOMOGENEOUS: relu2, reglu), else +-(gate row, gate bias) (swiglu, geglu, geglu_tanh,
    glu); None when the row is zero."""
    if fd.kind == SQUARE:
        row, bias = fd.U[i], fd.b[i]
    else:
        row, bias = fd.G[i], fd.c[i]
    if all(v == 0 for v in row):
        return None
    full = list(row) + [bias]
    return _line_key(full) if activation in activations.HOMOGENEOUS else _sign_key(full)


def flip_nondegeneracy(fd: FlipData, activation: str) -> dict[str, Any]:
    """The hypothesis of part (B): rows nonzero, classes pairwise distinct, units nonzero."""
    zero_rows, zero_units, keys = [], [], {}
    repeated = []
    for i in range(fd.m):
        key = class_key(fd, i, activation)
        w = fd.col(i)
        value_zero = fd.kind != SQUARE and all(v == 0 for v in fd.U[i]) and fd.b[i] == 0
        if key is None:
            zero_rows.append(i)
        elif key in keys:
            repeated.append([keys[key], i])
        else:
            keys[key] = i
        if all(v == 0 for v in w) or value_zero:
            zero_units.append(i)
    ok = not zero_rows and not zero_units and not repeated
    what = "kink hyperplane" if activation in activations.HOMOGENEOUS else "gate class +-(row, bias)"
    return {"nondegenerate": ok, "class": what, "zero_rows": zero_rows[:16], "zero_units": zero_units[:16],
            "repeated_classes": repeated[:16]}


# ---------------------------------------------------------------- relu2: class sums (part (C))

def monomials(d: int) -> list[tuple[int, int]]:
    """Index pairs of the coefficient vector of a scalar polynomial mod constants: (a, b) with
    a <= b for x_a x_b, then (a, -1) for x_a."""
    return [(a, b) for a in range(d) for b in range(a, d)] + [(a, -1) for a in range(d)]


def square_coeffs(u: Sequence[fmpq], b: fmpq) -> list[fmpq]:
    """Coefficients of (u . x + b)^2 mod constants, in the order of monomials."""
    d = len(u)
    out = []
    for a, c in monomials(d):
        if c == -1:
            out.append(2 * b * u[a])
        elif a == c:
            out.append(u[a] * u[a])
        else:
            out.append(2 * u[a] * u[c])
    return out


def add_class_unit(al: list[fmpq], poly: list[list[fmpq]], lam: fmpq, w: Sequence[fmpq],
                   sq: Sequence[fmpq]) -> None:
    """Add one unit w relu2(lam h) of the kink class of h to the class's alpha and the polynomial
    part: for lam > 0 it is lam^2 w relu2(h); for lam < 0 it is lam^2 w relu2(-h) =
    lam^2 w (h^2 - relu2(h)), so alpha loses lam^2 w and poly[o][k] gains lam^2 w_o sq[k], sq the
    coefficients of h^2 mod constants (square_coeffs)."""
    f = lam * lam
    for o in range(len(w)):
        if w[o] == 0:
            continue
        if lam > 0:
            al[o] += f * w[o]
        else:
            al[o] -= f * w[o]
            for k, v in enumerate(sq):
                if v != 0:
                    poly[o][k] += f * w[o] * v


@dataclass
class Relu2Classes:
    """The class form of F(x) = M x + B(x): B = sum_H alpha_H relu2(h_H) + P (relu2-biased.md (C))."""

    reps: list[tuple[list[fmpq], fmpq]]     # (u_H, b_H): a unit of B chosen as the representative
    members: list[list[tuple[int, fmpq]]]   # (unit, lambda) with (u_i, b_i) = lambda (u_H, b_H)
    alpha: list[list[fmpq]]                 # alpha_H in Q^d
    R0: list[list[fmpq]]                    # d rows: coefficients of M x + P(x) mod constants
    zero_rows: list[int]

    @property
    def active(self) -> list[int]:
        return [h for h, a in enumerate(self.alpha) if any(v != 0 for v in a)]


def relu2_classes(fd: FlipData) -> Relu2Classes:
    """Group the units by affine kink hyperplane; alpha_H and R_0 exactly."""
    d = fd.d
    keys: dict[tuple, int] = {}
    reps, members, zero_rows = [], [], []
    nmon = len(monomials(d))
    R0 = [[fmpq(0)] * nmon for _ in range(d)]
    lin_index = {a: k for k, (a, c) in enumerate(monomials(d)) if c == -1}
    for o in range(d):
        for a in range(d):
            R0[o][lin_index[a]] += fd.M[o][a]
    for i in range(fd.m):
        row = fd.U[i]
        if all(v == 0 for v in row):
            zero_rows.append(i)
            continue
        key = _line_key(list(row) + [fd.b[i]])
        if key not in keys:
            keys[key] = len(reps)
            reps.append((list(row), fd.b[i]))
            members.append([])
        h = keys[key]
        u_H = reps[h][0]
        lead = next(a for a in range(d) if u_H[a] != 0)
        lam = row[lead] / u_H[lead]
        members[h].append((i, lam))
    alpha = []
    for h, mem in enumerate(members):
        al = [fmpq(0)] * d
        sq = square_coeffs(*reps[h])
        for i, lam in mem:
            add_class_unit(al, R0, lam, fd.col(i), sq)
        alpha.append(al)
    return Relu2Classes(reps, members, alpha, R0, zero_rows)


def _rref_rows(rows: list[list[fmpq]], ncols: int) -> tuple[fmpq_mat, list[int]]:
    A = fmpq_mat(len(rows), ncols, [v for r in rows for v in r]) if rows else fmpq_mat(0, ncols)
    R, rank = A.rref()
    piv, r = [], 0
    for col in range(ncols):
        if r < rank and R[r, col] != 0:
            piv.append(col)
            r += 1
    return R, piv


def _complement_basis(rows: list[list[fmpq]], ncols: int) -> list[list[fmpq]]:
    """A basis (as vectors) of {k : row . k = 0 for every row}."""
    if not rows:
        return [[fmpq(1 if a == b else 0) for a in range(ncols)] for b in range(ncols)]
    R, piv = _rref_rows(rows, ncols)
    free = [c for c in range(ncols) if c not in set(piv)]
    basis = []
    for f in free:
        k = [fmpq(0)] * ncols
        k[f] = fmpq(1)
        for r, p in enumerate(piv):
            k[p] = -R[r, f]
        basis.append(k)
    return basis


@dataclass
class Relu2Plan:
    """A solution of (2) with k = 0 or with the d = 1 squares: what the construction needs."""

    E: list[int]                 # flipped single-unit classes (indices into classes.reps)
    T: list[int]                 # classes with two units
    beta: dict[int, list[fmpq]]  # beta_H for H in T
    squares: list[tuple[list[fmpq], list[fmpq], fmpq]]  # (beta_g, v_g, e_g): beta_g (v_g . x + e_g)^2


MAX_T_SYSTEMS = 64


def poly_of_plan(cl: Relu2Classes, E: Sequence[int]) -> list[list[fmpq]]:
    """R_E = R_0 + sum_{H in E} alpha_H h_H^2 (mod constants)."""
    R = [list(r) for r in cl.R0]
    for h in E:
        sq = square_coeffs(*cl.reps[h])
        for o, a in enumerate(cl.alpha[h]):
            if a != 0:
                for k, v in enumerate(sq):
                    if v != 0:
                        R[o][k] += a * v
    return R


def _solve_T(cl: Relu2Classes, T: list[int]) -> tuple[str, Optional[Relu2Plan], dict[str, Any]]:
    """Is there E (outside T) and beta_T with R_E - sum_T beta_H h_H^2 = 0 mod constants?"""
    active = cl.active
    d = len(cl.R0)
    nmon = len(cl.R0[0])
    phis = [square_coeffs(*cl.reps[h]) for h in T]
    K = _complement_basis(phis, nmon)  # columns k with phi_H . k = 0 for H in T
    cand = [h for h in active if h not in T]
    # equations: for every output o and basis vector k: sum_H eps_H alpha_H[o] (phi_H . k) = -(R0[o] . k)
    nk = len(K)
    V = fmpq_mat(d * nk, len(cand))
    t = fmpq_mat(d * nk, 1)
    for kk, kv in enumerate(K):
        phk = [_dot(square_coeffs(*cl.reps[h]), kv) for h in cand]
        for o in range(d):
            row = o * nk + kk
            for j, h in enumerate(cand):
                if cl.alpha[h][o] != 0 and phk[j] != 0:
                    V[row, j] = cl.alpha[h][o] * phk[j]
            t[row, 0] = -_dot(cl.R0[o], kv)
    if len(cand) == 0:
        ok = all(t[r, 0] == 0 for r in range(t.nrows()))
        sols = [[]] if ok else []
        status = "enumerated"
    else:
        status, sols, _ = solve01(V, t, MAX_FREE)
    info = {"T": T, "status": status}
    for sel in sols:
        E = [cand[j] for j in sel]
        R = poly_of_plan(cl, E)
        # beta from the rows of R in span(phi_T): solve exactly per output
        beta: dict[int, list[fmpq]] = {h: [fmpq(0)] * d for h in T}
        ok = True
        if T:
            A = fmpq_mat(len(T), nmon, [v for p in phis for v in p])
            for o in range(d):
                # find coefficients y with y^T A = R[o]
                At = A.transpose()
                aug = fmpq_mat(nmon, len(T) + 1)
                for r in range(nmon):
                    for c in range(len(T)):
                        aug[r, c] = At[r, c]
                    aug[r, len(T)] = R[o][r]
                Rr, rank = aug.rref()
                piv, rr = [], 0
                for col in range(len(T) + 1):
                    if rr < rank and Rr[rr, col] != 0:
                        piv.append(col)
                        rr += 1
                if piv and piv[-1] == len(T):
                    ok = False
                    break
                for r, p in enumerate(piv):
                    beta[T[p]][o] = Rr[r, len(T)]
        elif any(v != 0 for row in R for v in row):
            ok = False
        if ok:
            return "found", Relu2Plan(E, list(T), beta, []), info
    if status in ("enumerated", "inconsistent"):
        return "none", None, info
    return "inconclusive", None, info


def relu2_decide_classes(fd: FlipData, width: Optional[int] = None) -> dict[str, Any]:
    """Part (C) at width m' (default m): 'found' with a plan, 'none' (exact), or 'inconclusive'."""
    cl = relu2_classes(fd)
    mp = fd.m if width is None else width
    active = cl.active
    n = len(active)
    r = mp - n
    out: dict[str, Any] = {"classes": len(cl.reps), "active_classes": n, "spare_units": r,
                           "zero_rows": cl.zero_rows[:16]}
    if r < 0:
        out.update(status="none", reason=f"{n} kink hyperplanes with nonzero alpha need {n} > {mp} units")
        return {**out, "plan": None, "classes_obj": cl}
    tried, inconclusive, budget = 0, False, False
    nmon = len(cl.R0[0])
    for size in range(0, min(r, n, nmon) + 1):
        for T in combinations(active, size):
            if size and len(_rref_rows([square_coeffs(*cl.reps[h]) for h in T], nmon)[1]) < size:
                continue  # dependent squares: a smaller T does the same
            tried += 1
            if tried > MAX_T_SYSTEMS:
                inconclusive = budget = True
                break
            status, plan, _ = _solve_T(cl, list(T))
            if status == "found":
                out.update(status="found", reason=f"equation (2) solved with no new kink hyperplane, |T| = {size}, "
                               f"|E| = {len(plan.E)}")
                return {**out, "plan": plan, "classes_obj": cl}
            if status == "inconclusive":
                inconclusive = True  # this T is undecided; go on with the others (a found plan is verified)
        if budget:
            break
    out["T_systems"] = tried
    d = fd.d
    if d == 1 and r >= 2:
        plan = relu2_d1_plan(cl, r)
        if plan is not None:
            out.update(status="found", reason="d = 1, r >= 2: equation (2) solved by the closed form "
                       "(relu2-biased.md (C), the d = 1 case)")
            return {**out, "plan": plan, "classes_obj": cl}
        out.update(status="none", reason=f"d = 1, r = {r}: no class of nonzero alpha, R_0 = l x with l != 0, "
                   "and two squares on new kink points need 4 spare units")
        return {**out, "plan": None, "classes_obj": cl}
    if d == 1 and not inconclusive:
        out.update(status="none", reason="d = 1: no choice of E, T and squares solves equation (2)")
        return {**out, "plan": None, "classes_obj": cl}
    if inconclusive:
        out.update(status="inconclusive", reason="too many class sets T or free variables to enumerate")
    elif r <= 1:
        out.update(status="none", reason=f"{r} spare unit(s): no pair on a new kink hyperplane fits, and no "
                   "E, T with |T| <= r solves (2)")
    else:
        out.update(status="inconclusive", reason=f"no solution of (2) with k = 0 and |T| <= {r}; pairs of units "
                   "on new kink hyperplanes (k >= 1) are not searched for d >= 2")
    return {**out, "plan": None, "classes_obj": cl}


def relu2_d1_plan(cl: Relu2Classes, r: int) -> Optional[Relu2Plan]:
    """d = 1 with r >= 2 spare units: the closed form of relu2-biased.md (C).  Write
    R_0 = a0 x^2 + l0 x (mod constants).  n >= 2 classes: two of them in T span every
    a x^2 + l x; n = 1: one square on a new kink point, with E = {} or E = {H} so that the x^2
    coefficient is nonzero (or R_E is already constant); n = 0: one square iff a0 != 0 or l0 = 0,
    else two squares, which need r >= 4.  None exactly when no solution of (2) exists."""
    if len(cl.R0) != 1 or r < 2:
        raise ValueError(f"the d = 1 closed form needs d = 1 and r >= 2 spare units, got "
                         f"{len(cl.R0)} output rows and r = {r}")
    active = cl.active
    n = len(active)
    one = fmpq(1)
    if n >= 2:
        T = active[:2]
        (p1, q1), (p2, q2) = (square_coeffs(*cl.reps[h]) for h in T)
        a0, l0 = cl.R0[0][0], cl.R0[0][1]
        det = p1 * q2 - p2 * q1          # nonzero: distinct kink points
        b1 = (a0 * q2 - p2 * l0) / det
        b2 = (p1 * l0 - a0 * q1) / det
        return Relu2Plan([], list(T), {T[0]: [b1], T[1]: [b2]}, [])
    for E in ([], active[:1]):
        a, l = poly_of_plan(cl, E)[0]
        if a != 0:
            return Relu2Plan(list(E), [], {}, [([a], [one], l / (2 * a))])
        if l == 0:
            return Relu2Plan(list(E), [], {}, [])
    if r >= 4:  # n = 0, R_0 = l0 x: p (x + 1)^2 + q (x - 1)^2 with p + q = 0, 2 (p - q) = l0
        l0 = cl.R0[0][1]
        return Relu2Plan([], [], {}, [([l0 / 4], [one], one), ([-l0 / 4], [one], -one)])
    return None


def relu2_plan_block(fd: FlipData, cl: Relu2Classes, plan: Relu2Plan, width: int
                     ) -> tuple[list[list[fmpq]], list[fmpq], list[list[fmpq]]]:
    """(W_up rows, b_up, W_down columns as a list of d-vectors) of the construction, padded to width."""
    d = fd.d
    rows, bs, cols = [], [], []
    for h in cl.active:
        u, b = cl.reps[h]
        al = cl.alpha[h]
        if h in plan.T:
            be = plan.beta[h]
            rows += [list(u), [-v for v in u]]
            bs += [b, -b]
            cols += [[x + y for x, y in zip(al, be)], list(be)]
        elif h in plan.E:
            rows.append([-v for v in u])
            bs.append(-b)
            cols.append([-v for v in al])
        else:
            rows.append(list(u))
            bs.append(b)
            cols.append(list(al))
    for be, v, e in plan.squares:
        rows += [list(v), [-x for x in v]]
        bs += [e, -e]
        cols += [list(be), list(be)]
    while len(rows) < width:
        rows.append([fmpq(0)] * d)
        bs.append(fmpq(0))
        cols.append([fmpq(0)] * d)
    return rows, bs, cols


def relu2_form(units: Sequence[tuple[Sequence[fmpq], fmpq, Sequence[fmpq]]], M: Optional[list[list[fmpq]]],
               b_down: Sequence[fmpq], d: int) -> tuple[dict, tuple]:
    """The canonical form of x -> M x + sum w relu2(u . x + b) + b_down: the nonzero alpha of every
    kink hyperplane (its key: (u, b) divided by the first nonzero entry) and the polynomial part
    (coefficients of the monomials, then the constant). Two such maps are equal iff their forms
    are (relu2-biased.md, Lemma 1)."""
    mons = monomials(d)
    nmon = len(mons)
    poly = [[fmpq(0)] * (nmon + 1) for _ in range(d)]
    lin_index = {a: k for k, (a, c) in enumerate(mons) if c == -1}
    if M is not None:
        for o in range(d):
            for a in range(d):
                poly[o][lin_index[a]] += M[o][a]
    for o in range(d):
        poly[o][nmon] += b_down[o]
    alpha: dict[tuple, list[fmpq]] = {}
    for u, b, w in units:
        if all(v == 0 for v in u):
            if b > 0:
                for o in range(d):
                    poly[o][nmon] += w[o] * b * b
            continue
        key = _line_key(list(u) + [b])
        lam = next(v for v in list(u) + [b] if v != 0)  # (u, b) = lam * key
        ku, kb = list(key[:d]), key[d]
        al = alpha.setdefault(key, [fmpq(0)] * d)
        add_class_unit(al, poly, lam, w, square_coeffs(ku, kb))
        if lam < 0:  # the constant of h^2 = (ku . x + kb)^2
            for o in range(d):
                poly[o][nmon] += lam * lam * w[o] * kb * kb
    nz = {k: tuple(v) for k, v in alpha.items() if any(x != 0 for x in v)}
    return nz, tuple(tuple(r) for r in poly)
