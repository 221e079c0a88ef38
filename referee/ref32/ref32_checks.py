"""Referee checks for proofs/informal/open-problem-gelu-d1.md (issue 32, d = 1 part).

Independent of the oracle's Jacobian code: the activations, their derivatives and a forward-mode
(dual number) Jacobian of d = 1 residual stacks are written here from scratch in python-flint arb
balls.  Only oracle.algebra.stacks.analytic.certify is imported, to reproduce the experiment's own
certificates (rows chosen, weights, points), which are then recomputed with this file's code.

    nice .venv/bin/python referee/ref32/ref32_checks.py
"""

from __future__ import annotations

import random
import time
from fractions import Fraction as Q

import mpmath as mp
from flint import arb, arb_mat, ctx, fmpq

A_GT = fmpq(44715, 10 ** 6)


def qa(v: Q) -> arb:
    return arb(fmpq(v.numerator, v.denominator))


# ------------------------------------------------------------ own activations (value, derivative)
def act(name: str, z: arb) -> tuple[arb, arb]:
    if name == "gelu":
        P = (1 + (z / arb(2).sqrt()).erf()) / 2
        p = (-(z * z) / 2).exp() / (2 * arb.pi()).sqrt()
        return z * P, P + z * p
    if name == "silu":
        e = (-z).exp()
        q = 1 / (1 + e)
        return z * q, q + z * e * q * q          # d/dz z/(1+e^-z) = q + z e^-z / (1+e^-z)^2
    if name == "gelu_tanh":
        c = (arb(2) / arb.pi()).sqrt()
        a = arb(A_GT)
        g = c * (z + a * z * z * z)
        e2 = (2 * g).exp()
        t = (e2 - 1) / (e2 + 1)                  # tanh from exp, not arb's tanh
        dt = 4 * e2 / ((e2 + 1) * (e2 + 1))      # 1 - tanh^2
        return z * (1 + t) / 2, (1 + t) / 2 + z / 2 * dt * c * (1 + 3 * a * z * z)
    raise ValueError(name)


def stack_jacobian(name, layers, pts, prec):
    """K x N Jacobian of a d = 1 residual stack by forward mode with a gradient vector carried
    along (column order of the oracle: per layer, the u's then the w's)."""
    old = ctx.prec
    ctx.prec = prec
    try:
        flat = []
        for U, W in layers:
            flat += [qa(r[0]) for r in U] + [qa(v) for v in W[0]]
        N = len(flat)
        rows = []
        for (x,) in pts:
            yv, yd = qa(x), [arb(0)] * N          # y and its gradient in theta
            k = 0
            for U, W in layers:
                m = len(U)
                accv, accd = yv, list(yd)
                for i in range(m):
                    ju, jw = k + i, k + m + i
                    uv, wv = flat[ju], flat[jw]
                    zv = uv * yv
                    zd = [uv * g for g in yd]
                    zd[ju] += yv
                    sv, sd = act(name, zv)
                    accv += wv * sv
                    f = wv * sd
                    accd = [p + f * q for p, q in zip(accd, zd)]
                    accd[jw] += sv
                k += 2 * m
                yv, yd = accv, accd
            rows.append(yd)
        return arb_mat(rows)
    finally:
        ctx.prec = old


def block_matrix(name, us, ws, pts, prec):
    """Rows (s(u_i x) ..., w_i x s'(u_i x) ...) of one block, own formulas, in balls."""
    old = ctx.prec
    ctx.prec = prec
    try:
        rows = []
        for x in pts:
            xb = qa(x)
            vals = [act(name, qa(u) * xb) for u in us]
            rows.append([v[0] for v in vals] + [qa(w) * xb * v[1] for w, v in zip(ws, vals)])
        return arb_mat(rows)
    finally:
        ctx.prec = old


def det_at(M, rows, prec):
    old = ctx.prec
    ctx.prec = prec
    try:
        N = M.ncols()
        return arb_mat([[M[i, j] for j in range(N)] for i in rows]).det()
    finally:
        ctx.prec = old


def first_certified(name, us, ws, pts, precs=(128, 256, 512, 1024, 2048, 4096, 8192, 16384)):
    """Square block matrix (len(pts) == 2m): first precision whose det ball excludes 0."""
    for p in precs:
        M = block_matrix(name, us, ws, pts, p)
        d = det_at(M, range(M.nrows()), p)
        if not d.contains(0):
            return p, d
    return None, d


# ------------------------------------------------------------ (1) recompute the experiment's certificates
def part1():
    from oracle.algebra.stacks import analytic as an
    import importlib.util
    spec = importlib.util.spec_from_file_location("exp", "experiments/gelu_d1_full_rank.py")
    exp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(exp)
    print("(1) the experiment's certificates recomputed with an independent forward-mode Jacobian")
    cases = []
    for m in (7, 20, 40):
        rng = random.Random(f"gelu-d1/block/{m}")
        U, W = exp.lemma_block(m, rng)
        pts = exp.points(2 * m + 2, rng)
        cases.append((f"block m={m}", [(U, W)], pts))
    for widths in ([7, 8, 9], [4, 4, 4, 4], [10, 1]):
        rng = random.Random(f"gelu-d1/stack/{widths}")
        U, W = exp.lemma_block(sum(widths), rng)
        pts = exp.points(2 * sum(widths) + 2, rng)
        cases.append((f"eps=1/16 {tuple(widths)}", exp.split(U, W, widths, exp.EPS), pts))
        rnd = an.random_layers(1, widths, rng)
        cases.append((f"random {tuple(widths)}", rnd, pts))
    ok = True
    for tag, layers, pts in cases:
        for name in ("gelu", "gelu_tanh", "silu"):
            if tag.startswith("block m=40") and name != "gelu_tanh":
                continue
            t = time.perf_counter()
            cert = an.certify(name, layers, pts, precisions=exp.PRECISIONS)
            K = len(pts)
            rows = sorted(set(range(K)) - set(cert["rows_omitted"]))
            prec = cert["precision"]
            M = stack_jacobian(name, layers, pts, prec)
            d = det_at(M, rows, prec)
            stored = arb(cert["det"])
            good = cert["certified"] and not d.contains(0) and d.overlaps(stored)
            ok &= good
            print(f"  {tag:22s} {name:9s} N={M.ncols():3d} prec {prec:5d}: stored {cert['det']}, "
                  f"own {d.str(6, radius=True)} -> {'agree, excludes 0' if good else 'DISAGREE'} "
                  f"({time.perf_counter() - t:.1f} s)", flush=True)
    return ok


# ------------------------------------------------------------ (2) near misses of the lemma's hypothesis
def part2():
    print("(2) near misses: |u_2| -> |u_1|, u_2 -> -u_1, u_1 -> 0 (one block, own formulas, 2m points)")
    base = [Q(3, 4), Q(-5, 8), Q(11, 8), Q(1, 3)]
    ws = [Q(1), Q(-2, 3), Q(1, 2), Q(3, 2)]
    pts = [Q(k, 5) + Q(1, 97) * k * k for k in range(1, 9)]   # 8 points, distinct |x|, all > 0
    ok = True
    for name in ("gelu", "gelu_tanh", "silu"):
        for kind in ("equal-modulus", "opposite", "zero"):
            line = []
            for e in (4, 8, 16, 32):
                dl = Q(1, 2 ** e)
                us = list(base)
                if kind == "equal-modulus":
                    us[1] = us[0] * (1 + dl)
                elif kind == "opposite":
                    us[1] = -us[0] * (1 + dl)
                else:
                    us[0] = dl
                p, d = first_certified(name, us, ws, pts)
                ok &= p is not None
                line.append(f"2^-{e}: {float(d.mid()):.2e} ({p} b)" if p else f"2^-{e}: NOT certified")
            # the exact degenerate case: must not certify (a dependency is proved by (S4)/equality)
            us = list(base)
            if kind == "equal-modulus":
                us[1] = us[0]
            elif kind == "opposite":
                us[1] = -us[0]
            else:
                us[0] = Q(0)
            p, d = first_certified(name, us, ws, pts, precs=(128, 1024))
            ok &= p is None
            line.append(f"delta=0: {'contains 0' if p is None else 'EXCLUDES 0?!'}")
            print(f"  {name:9s} {kind:13s} " + "; ".join(line), flush=True)
    return ok


def part2b():
    """Scaling of the determinant with delta (expected: a power of delta as the pair merges)."""
    print("(2b) slope log|det| / log(delta) between delta = 2^-16 and 2^-32")
    base = [Q(3, 4), Q(-5, 8), Q(11, 8), Q(1, 3)]
    ws = [Q(1), Q(-2, 3), Q(1, 2), Q(3, 2)]
    pts = [Q(k, 5) + Q(1, 97) * k * k for k in range(1, 9)]
    for name in ("gelu", "silu"):
        for kind in ("equal-modulus", "opposite"):
            vals = []
            for e in (16, 32):
                dl = Q(1, 2 ** e)
                us = list(base)
                us[1] = us[0] * (1 + dl) if kind == "equal-modulus" else -us[0] * (1 + dl)
                p, d = first_certified(name, us, ws, pts)
                vals.append(float(abs(d.mid()).log()))
            slope = (vals[1] - vals[0]) / (-16 * mp.log(2))
            print(f"  {name:9s} {kind:13s}: det ~ delta^{float(slope):.2f}")


# ------------------------------------------------------------ (3) the complex-plane facts, independently
def part3():
    print("(3) gelu_tanh poles (argument principle, mpmath) and the Laurent step")
    mp.mp.dps = 40
    c = mp.sqrt(2 / mp.pi)
    a = mp.mpf(44715) / 10 ** 6
    Qf = lambda z: c * (z + a * z ** 3)
    dQ = lambda z: c * (1 + 3 * a * z ** 2)
    g = lambda z: mp.cosh(Qf(z))
    dg = lambda z: mp.sinh(Qf(z)) * dQ(z)

    def count(R):
        f = lambda t: dg(R * mp.expj(t)) / g(R * mp.expj(t)) * 1j * R * mp.expj(t)
        return mp.quad(f, mp.linspace(0, 2 * mp.pi, 33)) / (2j * mp.pi)

    for R in (1, 2.8, 2.82, 2.83, 4.4, 4.6):
        print(f"  zeros of cosh(Q(z)) in |z| < {R}: {mp.nstr(count(R), 8)}")
    p = mp.findroot(lambda z: Qf(z) - 1j * mp.pi / 2, mp.mpc(0.63, 2.75))
    print(f"  a pole: p = {mp.nstr(p, 12)}, |p| = {mp.nstr(abs(p), 10)}, Q'(p) = {mp.nstr(dQ(p), 8)} (nonzero: simple)")
    s = lambda z: z / 2 * (1 + mp.tanh(Qf(z)))
    ds = lambda z: mp.diff(s, z)
    res_pred = p / (2 * dQ(p))
    for u in (mp.mpf(3) / 2, mp.mpf(-5) / 4):
        x0 = p / u
        r = mp.mpf(1) / 10 ** 3
        circ = lambda k: lambda t: (s(u * (x0 + r * mp.expj(t))) * (r * mp.expj(t)) ** k)
        c_m1 = mp.quad(circ(1), [0, 2 * mp.pi]) / (2 * mp.pi)   # coefficient of (x-x0)^-1 of s(ux)
        ds_ = lambda z: (1 + mp.tanh(Qf(z))) / 2 + z / 2 * (1 - mp.tanh(Qf(z)) ** 2) * dQ(z)
        circ2 = lambda t: ((x0 + r * mp.expj(t)) * ds_(u * (x0 + r * mp.expj(t))) * (r * mp.expj(t)) ** 2)
        c_m2 = mp.quad(circ2, [0, 2 * mp.pi]) / (2 * mp.pi)   # coefficient of (x-x0)^-2 of x s'(ux)
        print(f"  u = {u}: [x-x0]^-1 of s(ux) = {mp.nstr(c_m1, 10)} vs c_-1/u = {mp.nstr(res_pred / u, 10)}; "
              f"[x-x0]^-2 of x s'(ux) = {mp.nstr(c_m2, 10)} vs -c_-1 x0/u^2 = {mp.nstr(-res_pred * x0 / u ** 2, 10)}")
    # gelu: along iR the largest |u| dominates; an equal-modulus opposite pair cancels exactly
    mp.mp.dps = 60
    gs = lambda z: z * (1 + mp.erf(z / mp.sqrt(2))) / 2
    gd = lambda z: (1 + mp.erf(z / mp.sqrt(2))) / 2 + z * mp.exp(-z * z / 2) / mp.sqrt(2 * mp.pi)
    for y in (20, 40, 80):
        u1, u2 = mp.mpf(1), mp.mpf(-1) * (1 - mp.mpf(1) / 100)
        f = gs(1j * u1 * y) + 1j * y * gd(1j * u2 * y)
        ratio = f / (mp.exp(u1 ** 2 * y ** 2 / 2) / mp.sqrt(2 * mp.pi))
        rel = gs(1j * u1 * y) - gs(-1j * u1 * y) - u1 * (1j * y * gd(1j * u1 * y) + 1j * y * gd(-1j * u1 * y))
        print(f"  gelu y = {y}: [s(iy) + iy s'(-0.99 iy)] / (e^(y^2/2)/sqrt(2pi)) = {mp.nstr(ratio, 8)} (-> -1); "
              f"opposite-pair relation at iy = {mp.nstr(abs(rel), 3)}")


# ------------------------------------------------------------ (4) opposite points: rank or row choice?
def part4():
    from oracle.algebra.stacks import analytic as an
    import importlib.util
    spec = importlib.util.spec_from_file_location("exp", "experiments/gelu_d1_full_rank.py")
    exp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(exp)
    print("(4) one block with two opposite pairs among the points (silu, m = 10)")
    rng = random.Random("gelu-d1/block/10")
    U, W = exp.lemma_block(10, rng)
    pts = exp.points(22, rng)
    pts[1] = [-pts[0][0]]
    pts[3] = [-pts[2][0]]
    us, ws = [r[0] for r in U], W[0]
    cert = an.certify("silu", [(U, W)], pts, precisions=(128, 512, 2048))
    omitted = cert["rows_omitted"]
    print(f"  oracle certify: certified = {cert['certified']}, rows omitted {omitted}, det {cert['det']}")
    # own choice: omit one row of the dependent quadruple (0, 1, 2, 3) and one other row
    for drop in ([1, 21], [3, 21], [0, 21], [4, 21]):
        rows = [k for k in range(22) if k not in drop]
        M = block_matrix("silu", us, ws, [p[0] for p in pts], 512)
        d = det_at(M, rows, 512)
        print(f"  own rows (omit {drop}): det {d.str(6, radius=True)} -> "
              f"{'excludes 0' if not d.contains(0) else 'contains 0'}")


# ------------------------------------------------------------ (5) exact facts (sympy)
def part5():
    import sympy as sp
    print("(5) exact (sympy): (S4) s(-z) = s(z) - z, and Q at the critical points of gelu_tanh")
    z = sp.Symbol("z")
    a, c = sp.Rational(44715, 10 ** 6), sp.sqrt(2 / sp.pi)
    acts = {"gelu": z * (1 + sp.erf(z / sp.sqrt(2))) / 2, "silu": z / (1 + sp.exp(-z)),
            "gelu_tanh": z / 2 * (1 + sp.tanh(c * (z + a * z ** 3)))}
    ok = True
    for n, s in acts.items():
        e = sp.simplify((s.subs(z, -z) - (s - z)).rewrite(sp.exp))
        ok &= e == 0
        print(f"  {n:9s}: s(-z) - (s(z) - z) = {e}")
    Qz = c * (z + a * z ** 3)
    v = sp.N(sp.simplify(Qz.subs(z, sp.I / sp.sqrt(3 * a)) / sp.I))
    print(f"  gelu_tanh: Q(i/sqrt(3a)) = {v} i, not in pi (Z + 1/2) (pi/2 = {sp.N(sp.pi / 2)}): poles simple")
    return ok


if __name__ == "__main__":
    t0 = time.perf_counter()
    ok = part1()
    ok &= part2()
    part2b()
    part3()
    part4()
    ok &= part5()
    print(f"total {time.perf_counter() - t0:.1f} s; {'all as expected' if ok else 'SOMETHING UNEXPECTED'}")
