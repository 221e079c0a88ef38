"""depth-analytic's rank certificate: for gelu, gelu_tanh and silu, a weight vector theta and points
x_1..x_K at which the Jacobian of theta -> (F_theta(x_1), ..., F_theta(x_K)) has full rank
N = 2 d (m_1 + ... + m_L) (proofs/informal/depth-analytic.md).  The claims depth-analytic and
depth-analytic-generic and the decision for gelu-family stacks (`absorb check`) use it.  This module
produces and re-checks the certificate:

  * theta and the points are rationals, stored exactly (integers over a stated common
    denominator);
  * the Jacobian is the chain rule evaluated in arb ball arithmetic: with y_0 = x,
    z_l = U_l y_{l-1}, y_l = y_{l-1} + W_l s(z_l), the pieces A_l = I + W_l diag(s'(z_l)) U_l
    and the suffix products S_l = A_L ... A_{l+1},
        dF/dU_l[i, c] = S_l w_{l,i} s'(z_{l,i}) y_{l-1,c},   dF/dW_l[a, i] = S_l e_a s(z_{l,i});
    every ball contains the exact value (Arb bounds its own rounding, and erf, exp, tanh);
  * the chain rule is checked against an independent derivative: along one fixed dense direction v,
    forward mode on length-2 arb power series (Arb's own derivatives of erf and exp, the
    activation written from erf and exp alone) encloses J(x_k) v at every point, and the two
    enclosures must overlap (a wrong chain rule is still of rank N, so the rank alone would not
    see it);
  * an N x N minor (rows picked by a float64 pivoted QR, and recorded) has a determinant
    ball that excludes 0, which proves rank N; a certificate is issued only when the ball excludes
    0 with a margin (radius <= |mid| / MARGIN) and its stored string is itself a ball without 0.

The float64 pass only chooses rows; nothing it computes is trusted.  The re-check recomputes
the Jacobian, the minor and its determinant from the JSON alone.  A ball that contains 0 is
"not certified" (never a proof that the rank is lower).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Any, Callable, Optional, Sequence

import numpy as np
import scipy.linalg

from oracle.core import activations
from oracle.core.rational import QMat, arb, arb_mat, arb_series, ctx, to_arb, to_fraction
from oracle.algebra.stacks.rank import chain_rule_rows, junction_gaps, rank_variety_dim

CLAIM = "depth-analytic"
ACTIVATIONS = activations.DEPTH_ANALYTIC   # gelu, gelu_tanh, silu: what the proof covers
PRECISIONS = (128, 256, 512)      # bits; a certificate is tried at each in turn
MAX_JSON_DIGITS = 4000            # a numerator or denominator longer than this is refused
MARGIN = 4                        # certify only when the determinant's radius is <= |mid| / MARGIN

Layer = tuple[QMat, QMat]  # (U: m x d, W: d x m)


# ================================================================ the activations and their slopes

def _slopes(name: str) -> activations.Slopes:
    """The catalog's s and s' of a covered activation (ValueError for any other name)."""
    if name not in ACTIVATIONS:
        raise ValueError(f"depth-analytic covers {', '.join(ACTIVATIONS)}, not {name!r}")
    slopes = activations.CATALOG[name].slopes
    if slopes is None:
        raise ValueError(f"the catalog entry {name!r} carries no slopes")
    return slopes


def value_and_slope(name: str, z: arb) -> tuple[arb, arb]:
    """Balls containing s(z) and s'(z) (the catalog's slopes of s; formulas in
    oracle/core/activations.py and the informal proof)."""
    return _slopes(name).ball(z)


def value_and_slope64(name: str, z: float) -> tuple[float, float]:
    """float64 versions of value_and_slope (for choosing rows only)."""
    return _slopes(name).f64(z)


# ================================================================ the dimension count (rank varieties: oracle/algebra/stacks/rank.py)

def param_count(d: int, widths: Sequence[int]) -> int:
    """N = 2 d (m_1 + ... + m_L): the weights of a residual stack, and of a plain one."""
    return 2 * d * sum(widths)


def plain_dimension(d: int, widths: Sequence[int]) -> int:
    """D = d m_1 + d m_L + sum_l dim{rank <= d in R^{m_{l+1} x m_l}} = N - sum_l delta_l: the
    dimension of the reduced parameters (U_1, the junction products, V_L) of a plain stack."""
    L = len(widths)
    return d * widths[0] + d * widths[-1] + sum(rank_variety_dim(d, widths[l + 1], widths[l])
                                                for l in range(L - 1))


# ================================================================ exact encodings

def encode(values: Sequence[Fraction]) -> tuple[int, list[int]]:
    """Rationals as (common denominator, integer numerators): exact and compact."""
    den = math.lcm(*(to_fraction(v).denominator for v in values)) if values else 1
    return den, [int(to_fraction(v) * den) for v in values]


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError("expected an integer")
    if v and len(str(abs(v))) > MAX_JSON_DIGITS:
        raise ValueError("integer too long")
    return v


def decode(den: Any, nums: Any) -> list[Fraction]:
    """Inverse of encode (ValueError on anything that is not integers over a positive integer)."""
    den = _int(den)
    if den <= 0 or not isinstance(nums, list):
        raise ValueError("bad encoding")
    return [Fraction(_int(n), den) for n in nums]


def flatten_layers(layers: Sequence[Layer]) -> list[Fraction]:
    """theta in the column order of the Jacobian: U_1 row-major, W_1 row-major, U_2, W_2, ..."""
    out: list[Fraction] = []
    for U, W in layers:
        out += [v for r in U for v in r] + [v for r in W for v in r]
    return out


def unflatten(d: int, widths: Sequence[int], flat: Sequence[Fraction]) -> list[Layer]:
    """Inverse of flatten_layers (ValueError when the length does not match the widths)."""
    if len(flat) != param_count(d, widths):
        raise ValueError("theta has the wrong length for these widths")
    out, k = [], 0
    for m in widths:
        U = [list(flat[k + i * d:k + (i + 1) * d]) for i in range(m)]
        k += m * d
        W = [list(flat[k + a * m:k + (a + 1) * m]) for a in range(d)]
        k += m * d
        out.append((U, W))
    return out


# ================================================================ the Jacobian

def jacobian_point(name: str, layers: Sequence[Layer], x: Sequence[Any], ball: bool) -> list[list[Any]]:
    """The d rows of dF/dtheta at one point (balls, or floats when ball=False): the chain rule of
    oracle/algebra/stacks/rank.py with s and s' of the activation."""
    if ball:
        return chain_rule_rows(layers, x, lambda z: value_and_slope(name, z), arb(0), arb(1))
    return chain_rule_rows(layers, x, lambda z: value_and_slope64(name, z), 0.0, 1.0)


def _ball_layers(layers: Sequence[Layer]) -> list[tuple[list[list[arb]], list[list[arb]]]]:
    return [([[to_arb(v) for v in r] for r in U], [[to_arb(v) for v in r] for r in W]) for U, W in layers]


def jacobian_ball(name: str, layers: Sequence[Layer], points: Sequence[Sequence[Fraction]],
                  prec: int) -> arb_mat:
    """The (K d) x N Jacobian in balls at the working precision prec (bits)."""
    old = ctx.prec
    ctx.prec = prec
    try:
        bl = _ball_layers(layers)
        rows: list[list[arb]] = []
        for x in points:
            rows += jacobian_point(name, bl, [to_arb(v) for v in x], True)
        return arb_mat(len(rows), len(rows[0]), [v for r in rows for v in r])
    finally:
        ctx.prec = old


def jacobian_float(name: str, layers: Sequence[Layer], points: Sequence[Sequence[Fraction]]) -> np.ndarray:
    """The same Jacobian in float64 (only used to choose rows)."""
    fl = [([[float(v) for v in r] for r in U], [[float(v) for v in r] for r in W]) for U, W in layers]
    rows: list[list[float]] = []
    for x in points:
        rows += jacobian_point(name, fl, [float(v) for v in x], False)
    return np.array(rows, dtype=np.float64)


def choose_rows(J: np.ndarray) -> list[int]:
    """N rows of a (K d) x N float matrix by QR with column pivoting on its transpose."""
    N = J.shape[1]
    if not np.all(np.isfinite(J)):
        return list(range(min(N, J.shape[0])))
    _, _, piv = scipy.linalg.qr(J.T, mode="economic", pivoting=True)
    return sorted(int(i) for i in piv[:N])


def jacobian_and_minor_det(name: str, layers: Sequence[Layer], points: Sequence[Sequence[Fraction]],
                           rows: Sequence[int], prec: int) -> tuple[arb_mat, arb]:
    """The full Jacobian ball matrix and the determinant ball of the chosen N x N minor."""
    J = jacobian_ball(name, layers, points, prec)
    N = J.ncols()
    old = ctx.prec
    ctx.prec = prec
    try:
        sub = arb_mat(N, N, [J[i, j] for i in rows for j in range(N)])
        return J, sub.det()
    finally:
        ctx.prec = old


def minor_det(name: str, layers: Sequence[Layer], points: Sequence[Sequence[Fraction]],
              rows: Sequence[int], prec: int) -> arb:
    """The determinant ball of the chosen N x N minor."""
    return jacobian_and_minor_det(name, layers, points, rows, prec)[1]


# ================================================================ an independent derivative
#
# The chain rule above is the certificate's only link to dF/dtheta: a wrong formula (a dropped
# suffix product, the input x in place of y_{l-1}) is still a generic matrix and still of rank N.
# So every certificate is also checked against a derivative taken another way: forward mode on
# truncated power series (arb_series of length 2, i.e. dual numbers whose arithmetic and whose
# erf/exp derivatives are Arb's own), with the activation written from erf and exp alone
# (tanh u = 1 - 2 / (e^{2u} + 1)); neither value_and_slope nor jacobian_point is used.  Along one
# dense direction v the series F(theta + t v)(x_k) has t-coefficient J(x_k) v, for every point.

JVP_RELATIVE_WIDTH = 2.0 ** -40   # a difference ball wider than this (relative) proves nothing



def _series_activation(name: str, z: arb_series) -> arb_series:
    """s(z) on a length-2 series, from erf and exp directly (the catalog's series form: no slope
    formula)."""
    return _slopes(name).series(z)


def check_direction(N: int) -> list[int]:
    """The direction v of the derivative check: N nonzero integers in [-3, 3], fixed by N alone
    (dense, so every column of J enters J v)."""
    rng = random.Random(f"depth-analytic/jvp/{N}")
    return [rng.choice((-3, -2, -1, 1, 2, 3)) for _ in range(N)]


def _coeff(s: arb_series, k: int) -> arb:
    c = s.coeffs()
    return c[k] if k < len(c) else arb(0)


def jvp_ball(name: str, layers: Sequence[Layer], points: Sequence[Sequence[Fraction]],
             direction: Sequence[int], prec: int) -> list[arb]:
    """Balls containing the t-derivative at t = 0 of F_{theta + t v}(x_k), stacked over the points
    (row k d + a is output a at point k): the same numbers as J v, computed without J."""
    old = ctx.prec
    ctx.prec = prec
    try:
        ser = lambda a, b: arb_series([a, b], prec=2)  # noqa: E731
        q = to_arb
        k = 0
        dual: list[tuple[list[list[arb_series]], list[list[arb_series]]]] = []
        for U, W in layers:   # theta + t v in flatten_layers' order: U_l row-major, then W_l
            Us, Ws = [], []
            for r in U:
                Us.append([ser(q(v), arb(direction[k + c])) for c, v in enumerate(r)])
                k += len(r)
            for r in W:
                Ws.append([ser(q(v), arb(direction[k + c])) for c, v in enumerate(r)])
                k += len(r)
            dual.append((Us, Ws))
        out: list[arb] = []
        for x in points:
            d = len(x)
            y = [ser(q(v), arb(0)) for v in x]
            for Us, Ws in dual:
                h = [_series_activation(name, sum((u[c] * y[c] for c in range(1, d)), u[0] * y[0]))
                     for u in Us]
                y = [y[a] + sum((Ws[a][i] * h[i] for i in range(1, len(h))), Ws[a][0] * h[0])
                     for a in range(d)]
            out += [_coeff(ya, 1) for ya in y]
        return out
    finally:
        ctx.prec = old


def derivative_mismatch(name: str, layers: Sequence[Layer], points: Sequence[Sequence[Fraction]],
                        J: arb_mat, prec: int) -> str:
    """'' when J v (the chain-rule Jacobian times check_direction) and the forward-mode series
    derivative overlap at every point and every output, else a one-line reason."""
    N = J.ncols()
    v = check_direction(N)
    ref = jvp_ball(name, layers, points, v, prec)
    old = ctx.prec
    ctx.prec = prec
    try:
        Jv = J * arb_mat(N, 1, v)
        if Jv.nrows() != len(ref):
            return f"the Jacobian has {Jv.nrows()} rows, the points give {len(ref)}"
        d = len(points[0])
        for r, b in enumerate(ref):
            a = Jv[r, 0]
            diff = a - b
            where = f"point {r // d}, output {r % d}"
            if not (a.is_finite() and b.is_finite()):
                return f"the derivative check along a fixed direction is not finite at {where}"
            if not diff.contains(0):
                return (f"the chain-rule Jacobian disagrees with the forward-mode derivative at {where}: "
                        f"J v = {a.str(6, radius=True)}, series {b.str(6, radius=True)}")
            if diff.rad() > JVP_RELATIVE_WIDTH * max(1.0, float(abs(b.mid()))):
                return f"the derivative check at {where} is too wide to compare (radius {float(diff.rad()):.3g})"
        return ""
    finally:
        ctx.prec = old


# ================================================================ random instances

def _distinct_rows(U: QMat) -> bool:
    """No row is zero (a dead unit's output weights are free) and no two rows are equal (two
    such units can trade weights); opposite rows lose no rank but are avoided as well."""
    for i, u in enumerate(U):
        if not any(u):
            return False
        for v in U[:i]:
            if u == v or u == [-t for t in v]:
                return False
    return True


def random_layers(d: int, widths: Sequence[int], rng: random.Random) -> list[Layer]:
    """Rational weights: U entries in [-3/2, 3/2] (eighths), W entries in [-1, 1] (eighths), all
    nonzero, rows of each U pairwise distinct up to sign."""
    nz = lambda n: [k for k in range(-n, n + 1) if k]
    out = []
    for m in widths:
        while True:
            U = [[Fraction(rng.choice(nz(12)), 8) for _ in range(d)] for _ in range(m)]
            if _distinct_rows(U):
                break
        W = [[Fraction(rng.choice(nz(8)), 8) for _ in range(m)] for _ in range(d)]
        out.append((U, W))
    return out


def random_points(d: int, count: int, rng: random.Random, no_opposite: bool = False) -> list[list[Fraction]]:
    """count distinct nonzero rational points with coordinates in [-2, 2] (multiples of 1/32).
    With no_opposite, a candidate whose negative is already drawn is skipped as well (the same
    random sequence otherwise, so a draw without opposite pairs is unchanged): for ONE block,
    s(-z) = s(z) - z makes row(x) - row(-x) of the evaluation matrix linear in x, so d + 1
    opposite pairs give dependent rows, which the float row choice of certify may keep
    (proofs/informal/depth-analytic-d1.md, Section 2.4)."""
    if count > 64 ** d // (2 if no_opposite else 1):
        raise ValueError("too many points for the grid")
    pts: list[list[Fraction]] = []
    seen = set()
    while len(pts) < count:
        x = tuple(Fraction(rng.randint(-64, 64), 32) for _ in range(d))
        if any(x) and x not in seen and not (no_opposite and tuple(-v for v in x) in seen):
            seen.add(x)
            pts.append(list(x))
    return pts


def point_count(d: int, widths: Sequence[int]) -> int:
    """Points used: 2 m + d + 1 (N / d = 2 m would be the least; a few more make room for
    the pivoting pass, and small widths need them: with m < d the values F(x_k) - x_k lie in a
    common subspace, and 2 m points do not reach rank N)."""
    return 2 * sum(widths) + d + 1


# ================================================================ certificates

def certify(activation: str, layers: Sequence[Layer], points: Sequence[Sequence[Fraction]],
            precisions: Sequence[int] = PRECISIONS) -> dict[str, Any]:
    """Try to certify rank N at the given weights and points; the certificate dictionary says
    whether it succeeded (certified) and holds everything the re-check needs."""
    d = len(layers[0][1])
    widths = [len(U) for U, _ in layers]
    N = param_count(d, widths)
    tden, tnum = encode(flatten_layers(layers))
    pden, pnum = encode([v for x in points for v in x])
    cert: dict[str, Any] = {
        "claim": CLAIM, "activation": activation, "d": d, "widths": widths, "N": N,
        "D_plain": plain_dimension(d, widths), "gaps": junction_gaps(d, widths),
        "theta_den": tden, "theta": tnum, "points_den": pden,
        "points": [pnum[k * d:(k + 1) * d] for k in range(len(points))],
        "rows_omitted": [], "precision": None, "det": None, "certified": False}
    if len(points) * d < N:
        cert["reason"] = "fewer rows than parameters"
        return cert
    J = jacobian_float(activation, layers, points)
    rows = choose_rows(J)
    cert["rows_omitted"] = sorted(set(range(len(points) * d)) - set(rows))
    for prec in precisions:
        J, det = jacobian_and_minor_det(activation, layers, points, rows, prec)
        cert["precision"], cert["det"] = prec, det.str(6, radius=True)
        if clear_of_zero(det) and not arb(cert["det"]).contains(0):
            why = derivative_mismatch(activation, layers, points, J, prec)
            if why:   # a Jacobian that is not dF/dtheta certifies nothing, at any precision
                cert["reason"] = why
            else:
                cert["certified"] = True
            break
    return cert


def clear_of_zero(det: arb, margin: int = MARGIN) -> bool:
    """A determinant ball that excludes 0 with room to spare: radius <= |mid| / margin.  The
    certificate is issued only then (a re-check by another order of operations or another Arb
    version then still excludes 0); the re-check itself asks only that 0 is excluded."""
    return not det.contains(0) and bool(det.rad() * margin <= abs(det.mid()))


def det_ratio(det: arb) -> float:
    """radius / |mid| of a determinant ball (inf when the midpoint is 0), for the re-check's report."""
    m = abs(det.mid())
    return float(det.rad() / m) if m != 0 else math.inf


def make_certificate(activation: str, d: int, widths: Sequence[int], seed: int, attempts: int = 3,
                     draw_layers: Callable[[int, Sequence[int], random.Random], list[Layer]] = random_layers,
                     tag: str = "") -> dict[str, Any]:
    """A certificate at random rational weights and points (a new draw if one fails).  The
    weights come from draw_layers (random_layers by default); tag prefixes the seed string, so
    that another way of drawing them has its own random sequence."""
    cert: dict[str, Any] = {}
    for k in range(attempts):
        rng = random.Random(f"{tag}{activation}/{d}/{list(widths)}/{seed}/{k}")
        layers = draw_layers(d, widths, rng)
        pts = random_points(d, point_count(d, widths), rng)
        cert = certify(activation, layers, pts)
        cert["seed"] = [seed, k]
        if cert["certified"]:
            break
    return cert


def certificate_parts(cert: dict[str, Any], min_depth: int = 2
                      ) -> tuple[str, list[Layer], list[list[Fraction]], list[int]]:
    """Decode a certificate (ValueError/KeyError/TypeError on malformed data); the claim needs
    depth >= 2, the depth-1 boundary instance decodes with min_depth = 1."""
    act = cert["activation"]
    if act not in ACTIVATIONS:
        raise ValueError("activation not covered")
    d, widths = _int(cert["d"]), [_int(m) for m in cert["widths"]]
    if d < 1 or not widths or min(widths) < 1 or len(widths) < min_depth:
        raise ValueError("bad widths")
    layers = unflatten(d, widths, decode(cert["theta_den"], cert["theta"]))
    flat = [v for x in cert["points"] for v in x]
    if any(not isinstance(x, list) or len(x) != d for x in cert["points"]):
        raise ValueError("bad points")
    vals = decode(cert["points_den"], flat)
    pts = [vals[k * d:(k + 1) * d] for k in range(len(cert["points"]))]
    omitted = [_int(i) for i in cert["rows_omitted"]]
    nrows = len(pts) * d
    if len(set(omitted)) != len(omitted) or any(i < 0 or i >= nrows for i in omitted):
        raise ValueError("bad omitted rows")
    rows = [i for i in range(nrows) if i not in set(omitted)]
    return act, layers, pts, rows


def recheck_reason(cert: dict[str, Any]) -> str:
    """'' when the certificate re-verifies from its JSON alone, else a one-line reason (recheck_det)."""
    return recheck_det(cert)[0]


def recheck_det(cert: dict[str, Any]) -> tuple[str, Optional[arb]]:
    """Re-verify a certificate from its JSON alone: the dimension count (L >= 2, D_plain < N),
    the distinct points, and a determinant ball of the stated N x N minor, recomputed at the
    stated precision, that excludes 0 and overlaps the stored one, whose own ball must exclude 0
    too, and a Jacobian that agrees with the forward-mode derivative (derivative_mismatch).  Returns ('', the recomputed determinant ball) when the certificate holds, else
    (a one-line reason, None)."""
    try:
        if cert.get("claim") != CLAIM:
            return f"the certificate is for claim {cert.get('claim')!r}", None
        if cert.get("certified") is not True:
            return "the certificate does not say certified", None
        act, layers, pts, rows = certificate_parts(cert)
        d, widths = cert["d"], cert["widths"]
        N = param_count(d, widths)
        if cert["N"] != N:
            return f"N = {cert['N']!r} is stated, the widths give N = {N}", None
        if cert["D_plain"] != plain_dimension(d, widths) or cert["gaps"] != junction_gaps(d, widths):
            return "the stated dimension count (D_plain, gaps) is not the one of these widths", None
        if not cert["D_plain"] < N:
            return "D_plain is not below N", None
        if len(rows) != N:
            return f"the minor is {len(rows)} x {N}, not N x N with N = {N} ({len(pts) * d} rows, " \
                f"{len(pts) * d - len(rows)} omitted)", None
        if len({tuple(x) for x in pts}) != len(pts):
            return "two points are equal", None
        prec = _int(cert["precision"])
        if prec not in PRECISIONS:
            return f"precision {prec} is not one of {list(PRECISIONS)}", None
        if not isinstance(cert["det"], str):
            return "the stored determinant is not a string", None
        stored = arb(cert["det"])
        if not stored.is_finite() or stored.contains(0):
            return f"the stored determinant ball {cert['det']} contains 0", None
        J, det = jacobian_and_minor_det(act, layers, pts, rows, prec)
        if det.contains(0):
            return f"the recomputed determinant ball {det.str(6, radius=True)} contains 0", None
        # the stored enclosure must describe the recomputed one (a tampered weight, point or row
        # changes the determinant and is refused even when the new one happens to be nonzero)
        if not det.overlaps(stored):
            return f"the recomputed determinant {det.str(6, radius=True)} does not overlap the stored " \
                f"{cert['det']} (a changed weight, point or row)", None
        # the matrix must be dF/dtheta: J v against an independent forward-mode derivative
        why = derivative_mismatch(act, layers, pts, J, prec)
        if why:
            return why, None
        return "", det
    except (KeyError, TypeError, ValueError, ZeroDivisionError, IndexError, AttributeError) as e:
        return f"malformed certificate ({type(e).__name__}: {' '.join(str(e).split())[:120]})", None


def recheck(cert: dict[str, Any]) -> bool:
    """Whether a certificate re-verifies from its JSON alone (recheck_reason gives the reason)."""
    return recheck_reason(cert) == ""


def rank_full(cert: dict[str, Any]) -> bool:
    """Re-check a rank certificate of any depth (a depth-1 one included): the stated N and D_plain
    are those of the widths, N rows, certified, a stored determinant ball without 0 that contains
    the determinant recomputed at the stated precision (which must exclude 0 too; a forged or
    stale det, or rows_omitted naming another minor, is refused), and a Jacobian that agrees with
    the forward-mode derivative; no dimension count (at depth 1 it excludes nothing)."""
    act, layers, pts, rows = certificate_parts(cert, min_depth=1)
    d, widths = len(layers[0][1]), [len(U) for U, _ in layers]
    N = param_count(d, widths)
    if cert.get("N") != N or cert.get("D_plain") != plain_dimension(d, widths):
        return False
    if len(rows) != N or cert.get("certified") is not True or not isinstance(cert.get("det"), str):
        return False
    stored = arb(cert["det"])
    if not stored.is_finite() or stored.contains(0):
        return False
    prec = _int(cert["precision"])
    J, det = jacobian_and_minor_det(act, layers, pts, rows, prec)
    return not det.contains(0) and stored.contains(det) and derivative_mismatch(act, layers, pts, J, prec) == ""


# ================================================================ evaluation in balls

def eval_stack_ball(name: str, layers: Sequence[Layer], x: Sequence[Fraction], residual: bool,
                    prec: int = 128) -> list[arb]:
    """Balls containing F(x) (residual) or P(x) (plain) for a stack of exact layers."""
    old = ctx.prec
    ctx.prec = prec
    try:
        d = len(x)
        y = [to_arb(v) for v in x]
        for U, W in _ball_layers(layers):
            z = [sum((U[i][c] * y[c] for c in range(d)), arb(0)) for i in range(len(U))]
            h = [value_and_slope(name, zi)[0] for zi in z]
            out = [sum((W[a][i] * h[i] for i in range(len(h))), arb(0)) for a in range(d)]
            y = [y[a] + out[a] for a in range(d)] if residual else out
        return y
    finally:
        ctx.prec = old


def balls_overlap(a: Sequence[arb], b: Sequence[arb]) -> bool:
    """Every ball of a overlaps the ball of b at the same place (values that may be equal)."""
    return all(u.overlaps(v) for u, v in zip(a, b))
