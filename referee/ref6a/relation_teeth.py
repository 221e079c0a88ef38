"""Referee ref6a: how much the near-miss relation check (dependency_balls 'opposite', balls must
contain 0) can see.  silu is replaced by silu(z) + c z^3 (odd part no longer linear) for several c;
the relation ball contains 0 when the perturbation is below the ball radius.  At the check's 256
bits even c = 1e-60 is seen; there is no bound on the radius, so at a cut precision (8 bits) c = 1e-2
passes.  Run: nice .venv/bin/python referee/ref6a/relation_teeth.py"""
import random

from flint import arb

import oracle.algebra.stacks.analytic as an
import oracle.claims.depth_analytic_d1 as g
from oracle.core import activations as acts

orig = an._slopes
rng = random.Random(3)
base = g.lemma_block(4, rng)
pts = g.distinct_abs_points(10, rng)
blk = g.degenerate_block("opposite", base)
for c in ("0", "1e-2", "1e-6", "1e-20", "1e-60"):
    cc = arb(c)

    def patched(name, cc=cc):
        s = orig(name)
        if name != "silu":
            return s
        return acts.Slopes(lambda z: (s.ball(z)[0] + cc * z * z * z, s.ball(z)[1] + 3 * cc * z * z),
                           lambda z: (s.f64(z)[0] + float(cc.mid()) * z ** 3, s.f64(z)[1] + 3 * float(cc.mid()) * z * z),
                           lambda z: s.series(z) + z * z * z * cc)
    an._slopes = patched
    for prec in (256, 8):
        balls = g.dependency_balls("opposite", "silu", blk, pts, prec)
        print(f"c = {c:6s} prec {prec:3d}: relation contains 0: {all(b.contains(0) for b in balls)}, "
              f"largest radius {max(float(b.rad()) for b in balls):.3g}")
an._slopes = orig
