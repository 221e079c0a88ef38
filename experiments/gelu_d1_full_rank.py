"""Check the d = 1 full-rank argument of proofs/informal/depth-analytic-d1.md against ball
arithmetic, on width tuples beyond depth-analytic's sweep (widths <= 6).

The argument: (R1, as in depth-analytic.md) at weights (U_l, eps W_l) the column-rescaled Jacobian
of a residual stack tends to that of ONE block x -> x + sum_i w_i s(u_i x) of width m = m_1 + ... + m_L;
(Lemma D1) for s in {gelu, gelu_tanh, silu} and nonzero u_1..u_m with pairwise distinct |u_i|,
the 2 m functions s(u_i x), x s'(u_i x) are linearly independent, so that block has rank 2 m.

For each case below this script certifies in arb balls (oracle.algebra.stacks.analytic.certify:
rational weights and points, a chain-rule Jacobian checked against an independent forward-mode
derivative, an N x N minor whose determinant ball excludes 0 with a margin):

  (A) the lemma's block: width m in 7..40, rows with pairwise distinct |u_i| (checked exactly,
      signs mixed), nonzero output weights, all three activations;
  (B) the stack at eps = 1/16 built from the same rows (split into layers), d = 1, widths beyond
      the sweep, all three activations;
  (C) the stack at random rational weights (depth-analytic's own draw), the same widths;
  (D) the lemma's hypothesis at work: a block with an opposite pair u, -u.  The exact identity
      s(u x) - s(-u x) = u x (s'(u x) + s'(-u x)) makes its Jacobian rank-deficient; the script
      checks that every ball of that combination contains 0 and that the determinant ball of the
      chosen minor contains 0 at every precision (consistent with the dependency; a ball that
      contains 0 proves nothing by itself, the identity is what proves the dependency).

Every "certified" line is a proof of rank N for THAT rational instance (ball arithmetic), not a
proof of the lemma; the lemma rests on the written argument.  Precisions go up to 8192 bits: in
d = 1 the determinants are very small (the functions s(u x) for nearby u are nearly dependent on
a bounded set of points).

    nice .venv/bin/python experiments/gelu_d1_full_rank.py
"""

from __future__ import annotations

import random
import sys
import time
from fractions import Fraction as Q

from oracle.algebra.stacks import analytic as an
from flint import acb, acb_poly
from oracle.core.rational import arb, ctx, to_arb

PRECISIONS = (128, 256, 512, 1024, 2048, 4096, 8192)
EPS = Q(1, 16)
BLOCK_WIDTHS = (7, 8, 9, 10, 12, 16, 20, 24, 32, 40)
STACK_WIDTHS = ([7, 7], [8, 3], [3, 9], [10, 10], [7, 8, 9], [1, 10], [10, 1], [4, 4, 4, 4])


def distinct_moduli(U: list[list[Q]]) -> bool:
    """Every row nonzero and the |u_i| pairwise distinct (exact, d = 1)."""
    mods = [abs(r[0]) for r in U]
    return all(mods) and len(set(mods)) == len(mods)


def lemma_block(m: int, rng: random.Random) -> tuple[list[list[Q]], list[list[Q]]]:
    """m rows u_i = +-k_i / 8 with distinct k_i in 1..2m+4 (mixed signs), outputs nonzero eighths."""
    ks = rng.sample(range(1, 2 * m + 5), m)
    U = [[Q(rng.choice((-1, 1)) * k, 8)] for k in ks]
    W = [[Q(rng.choice([k for k in range(-8, 9) if k]), 8) for _ in range(m)]]
    return U, W


def points(count: int, rng: random.Random) -> list[list[Q]]:
    """count nonzero rational points, multiples of 1/16 in [-8, 8], with pairwise distinct |x|.
    No two points are opposite, as a precaution for the row choice: for one block,
    row(x) - row(-x) = x (u_1..u_m, w_1..w_m) (from s(-z) = s(z) - z), so two opposite pairs make
    those four rows dependent whatever the weights.  With 2 m + 2 points that costs at most one
    dimension and the whole evaluation matrix can still have rank N; but the float64 pivoted QR
    that picks the N rows of the minor may keep all four, and that minor is singular at every
    precision.  A first draw with two such pairs (silu, m = 10) failed in this way; the referee
    (the independent reading of the note, its finding F7) certified the same points with another
    row choice.  So the failure came from the row choice, not from the points."""
    mods = rng.sample(range(1, 129), count)
    return [[Q(rng.choice((-1, 1)) * k, 16)] for k in mods]


def line(tag: str, cert: dict, seconds: float) -> str:
    state = "certified" if cert["certified"] else "NOT certified"
    return (f"{tag}: N = {cert['N']}, {state}, det {cert['det']} ({cert['precision']} bits), "
            f"{seconds:.2f} s")


def part_a() -> bool:
    ok = True
    print("(A) Lemma D1's block (depth 1, width m, distinct |u_i|, mixed signs)")
    for m in BLOCK_WIDTHS:
        rng = random.Random(f"gelu-d1/block/{m}")
        U, W = lemma_block(m, rng)
        if not distinct_moduli(U):
            raise RuntimeError("the drawn rows do not have distinct moduli")
        pts = points(2 * m + 2, rng)
        for act in an.ACTIVATIONS:
            t = time.perf_counter()
            cert = an.certify(act, [(U, W)], pts, precisions=PRECISIONS)
            ok &= bool(cert["certified"])
            print("  " + line(f"{act:9s} m = {m:2d}", cert, time.perf_counter() - t), flush=True)
    return ok


def split(U: list[list[Q]], W: list[list[Q]], widths: list[int], eps: Q):
    layers, k = [], 0
    for m in widths:
        layers.append(([list(r) for r in U[k:k + m]], [[eps * v for v in r[k:k + m]] for r in W]))
        k += m
    return layers


def part_b_c() -> bool:
    ok = True
    print("(B) stacks at eps = 1/16 from a lemma block; (C) stacks at depth-analytic's random weights")
    for widths in STACK_WIDTHS:
        m = sum(widths)
        rng = random.Random(f"gelu-d1/stack/{widths}")
        U, W = lemma_block(m, rng)
        if not distinct_moduli(U):
            raise RuntimeError("the drawn rows do not have distinct moduli")
        pts = points(2 * m + 2, rng)
        small = split(U, W, widths, EPS)
        rnd = an.random_layers(1, widths, rng)
        for act in an.ACTIVATIONS:
            t = time.perf_counter()
            cert = an.certify(act, small, pts, precisions=PRECISIONS)
            ok &= bool(cert["certified"])
            print("  " + line(f"(B) {act:9s} widths {tuple(widths)}", cert, time.perf_counter() - t), flush=True)
            t = time.perf_counter()
            cert = an.certify(act, rnd, pts, precisions=PRECISIONS)
            ok &= bool(cert["certified"])
            print("  " + line(f"(C) {act:9s} widths {tuple(widths)}", cert, time.perf_counter() - t), flush=True)
    return ok


def part_d() -> bool:
    """An opposite pair: the exact dependency, seen in balls."""
    print("(D) an opposite pair u, -u (the lemma's hypothesis fails): the dependency in balls")
    ok = True
    u = Q(3, 4)
    U = [[u], [-u], [Q(5, 8)]]
    W = [[Q(1), Q(1), Q(1)]]
    rng = random.Random("gelu-d1/opposite")
    pts = points(8, rng)
    for act in an.ACTIVATIONS:
        old = ctx.prec
        ctx.prec = 256
        try:
            worst = 0.0
            for (x,) in pts:
                xb = to_arb(x)
                sp, dp = an.value_and_slope(act, to_arb(u) * xb)
                sm, dm = an.value_and_slope(act, -to_arb(u) * xb)
                comb = sp - sm - to_arb(u) * xb * (dp + dm)
                ok &= bool(comb.contains(0))
                worst = max(worst, float(comb.rad()))
        finally:
            ctx.prec = old
        cert = an.certify(act, [(U, W)], pts, precisions=(128, 512, 2048))
        ok &= not cert["certified"]
        # the determinant ball of the chosen minor must contain 0 at EVERY precision ("not
        # certified" alone would also cover a ball without 0 that misses the 1/4 margin)
        rows = an.choose_rows(an.jacobian_float(act, [(U, W)], pts))
        dets = [an.minor_det(act, [(U, W)], pts, rows, p) for p in (128, 512, 2048)]
        ok &= all(dt.contains(0) for dt in dets)
        print(f"  {act:9s}: s(ux) - s(-ux) - u x (s'(ux) + s'(-ux)) contains 0 at all 8 points "
              f"(largest radius {worst:.1e}); minor determinant at 128, 512, 2048 bits: "
              + ", ".join(dt.str(3, radius=True) for dt in dets) + " ("
              + ("all contain 0" if all(dt.contains(0) for dt in dets) else "SOME EXCLUDE 0 (unexpected)")
              + f"); {'NOT certified (as expected)' if not cert['certified'] else 'CERTIFIED (unexpected)'}",
              flush=True)
    return ok


def part_e() -> bool:
    """Balls for the complex-plane facts (illustration only; the note proves them)."""
    print("(E) the complex-plane facts, in acb balls at 128 bits (illustrations of proved facts)")
    old = ctx.prec
    ctx.prec = 128
    ok = True
    try:
        pi = arb.pi()
        # silu: simple pole at i pi with residue i pi, so h s(i pi + h) -> i pi
        for e in (20, 40):
            h = acb(arb(2) ** -e)
            z = acb(0, pi) + h
            val = h * z / (1 + (-z).exp())
            print(f"  silu: h * s(i pi + h) at h = 2^-{e}: {val.str(8, radius=False)} (i pi = {acb(0, pi).str(8, radius=False)})")
            ok &= bool(abs(val - acb(0, pi)) < arb(2) ** (-e + 4))
        # gelu_tanh: poles where c (z + a z^3) = i pi (k + 1/2); the nearest to 0 (k = 0 and k = -1)
        a = arb(44715) / 10 ** 6
        c = (2 / pi).sqrt()
        mods = []
        for k in range(-3, 3):
            w = acb(0, pi * (2 * k + 1) / 2) / c
            roots = acb_poly([-w, 1, 0, a]).roots()
            mods += [(float(abs(r).mid()), k, r) for r in roots]
        mods.sort(key=lambda t: t[0])
        rho, k, r = mods[0]
        print(f"  gelu_tanh: nearest poles to 0 have modulus {rho:.6f} (k = {k}, z = {r.str(8, radius=False)}); "
              f"next moduli {', '.join(f'{t[0]:.4f}' for t in mods[1:5])}")
        # gelu: -sqrt(2 pi) e^{-T^2/2} s(iT) -> 1 and -sqrt(2 pi) e^{-T^2/2} (iT) s'(iT) / T^2 -> 1
        for T in (4, 16, 64):
            z = acb(0, T)
            Phi = (1 + (z / arb(2).sqrt()).erf()) / 2
            phi = (-(z * z) / 2).exp() / (2 * pi).sqrt()
            sv = z * Phi
            xs = z * (Phi + z * phi)
            scale = -(2 * pi).sqrt() * (-arb(T) ** 2 / 2).exp()
            print(f"  gelu, T = {T}: -sqrt(2 pi) e^(-T^2/2) s(iT) = {(scale * sv).str(6, radius=False)}, "
                  f"-sqrt(2 pi) e^(-T^2/2) iT s'(iT) / T^2 = {(scale * xs / T ** 2).str(6, radius=False)}")
    finally:
        ctx.prec = old
    return ok


def part_f() -> bool:
    print("(F) a residual stack that is a plain stack, with a full-rank Jacobian (d = 1, widths (1, 1))")
    res = [([[Q(1)]], [[Q(-1)]]), ([[Q(1)]], [[Q(-1)]])]
    plain = [([[Q(-1)]], [[Q(-1)]]), ([[Q(-1)]], [[Q(-1)]])]
    pts = [[Q(k, 4)] for k in (1, -3, 5, 7, -9, 11)]
    ok = True
    for act in an.ACTIVATIONS:
        cert = an.certify(act, res, pts)
        xs = pts + [[Q(k, 7)] for k in range(-20, 21)]
        same = all(an.balls_overlap(an.eval_stack_ball(act, res, x, True), an.eval_stack_ball(act, plain, x, False))
                   for x in xs)
        ok &= bool(cert["certified"]) and same
        print(f"  {act:9s}: residual and plain stacks overlap at all {len(xs)} points: {same}; "
              f"Jacobian {'certified' if cert['certified'] else 'NOT certified'}, rank {cert['N']}, det {cert['det']}")
    return ok


def part_g() -> bool:
    import sympy as sp
    print("(G) exact checks (sympy) of the Laurent step (silu) and of the growth formulas (gelu)")
    ok = True
    h = sp.Symbol("h")
    silu = lambda w: w / (1 + sp.exp(-w))  # noqa: E731
    z = sp.Symbol("z")
    silu_d = sp.diff(silu(z), z)
    for u in (sp.Rational(3, 2), sp.Rational(-5, 4), sp.Rational(7, 3)):
        x0 = sp.I * sp.pi / u
        res = sp.simplify(sp.limit(h * silu(u * (x0 + h)), h, 0))
        dbl = sp.simplify(sp.limit(h ** 2 * (x0 + h) * silu_d.subs(z, u * (x0 + h)), h, 0))
        good = sp.simplify(res - sp.I * sp.pi / u) == 0 and sp.simplify(dbl - sp.pi ** 2 / u ** 3) == 0
        ok &= bool(good)
        print(f"  silu, u = {u}: residue of s(u x) at i pi/u = {res} (predicted i pi/u), "
              f"coefficient of (x - x0)^-2 in x s'(u x) = {dbl} (predicted pi^2/u^3): {'ok' if good else 'MISMATCH'}")
    y, u, T = sp.symbols("y u T", real=True)
    Phi = lambda w: (1 + sp.erf(w / sp.sqrt(2))) / 2  # noqa: E731
    gelu = lambda w: w * Phi(w)  # noqa: E731
    gelu_d = sp.diff(gelu(z), z)
    I = lambda t: sp.sqrt(sp.pi / 2) * sp.erfi(t / sp.sqrt(2))  # noqa: E731
    checks = {
        "I'(T) - e^(T^2/2)": sp.diff(I(T), T) - sp.exp(T ** 2 / 2),
        "s(iuy) - [iuy/2 - uy I(uy)/sqrt(2 pi)]":
            gelu(sp.I * u * y) - (sp.I * u * y / 2 - u * y * I(u * y) / sp.sqrt(2 * sp.pi)),
        "iy s'(iuy) - [iy/2 - y I(uy)/sqrt(2 pi) - u y^2 e^(u^2 y^2/2)/sqrt(2 pi)]":
            sp.I * y * gelu_d.subs(z, sp.I * u * y)
            - (sp.I * y / 2 - y * I(u * y) / sp.sqrt(2 * sp.pi) - u * y ** 2 * sp.exp(u ** 2 * y ** 2 / 2) / sp.sqrt(2 * sp.pi)),
    }
    for name, expr in checks.items():
        val = sp.simplify(expr.rewrite(sp.erfi))
        ok &= val == 0
        print(f"  gelu: {name} simplifies to {val}")
    lim = sp.limit(T * I(T) * sp.exp(-T ** 2 / 2), T, sp.oo)
    ok &= lim == 1
    print(f"  gelu: limit of T I(T) e^(-T^2/2) as T -> oo = {lim}")
    return ok


def main() -> int:
    t = time.perf_counter()
    ok = part_a()
    ok &= part_b_c()
    ok &= part_d()
    ok &= part_e()
    ok &= part_f()
    ok &= part_g()
    print(f"total {time.perf_counter() - t:.1f} s; " + ("all as predicted" if ok else "SOME NOT AS PREDICTED"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
