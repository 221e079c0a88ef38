"""Referee ref6a: is the conclusion of depth-analytic-d1 false at depth 1 (the boundary instance
analytic_d1_depth_one drops depth_ge_2)?  gelu-complete gives the exact minimal width m* of a
plain block equal to x + B(x); at depth 1 E = {theta : m* <= m}.  For random d = 1 blocks m* = m + 1,
and for the boundary block (one unit with w u = -1) m* = m: E is a proper, thin subset at depth 1.
Run: nice .venv/bin/python referee/ref6a/depth_one.py"""
import random
from fractions import Fraction

import numpy as np

from oracle.algebra.gelu_width import minimal_width_result
from oracle.claims import depth_analytic_d1 as g
from oracle.core.blocks import Block

rng = random.Random(7)
counts = {}
for act in ("gelu", "gelu_tanh", "silu"):
    for m in (1, 2, 3, 5, 8):
        for t in range(5):
            U = [[Fraction(rng.choice((-1, 1)) * k, 97)] for k in rng.sample(range(1, 400), m)]
            W = [[Fraction(rng.choice([k for k in range(-300, 301) if k]), 89) for _ in range(m)]]
            b = Block(act, np.array(U, dtype=float), np.array(W, dtype=float), M=np.eye(1))
            r = minimal_width_result(b)
            key = (r["value"] - m) if r["exact"] else "inexact"
            counts[key] = counts.get(key, 0) + 1
print("random d = 1 blocks (3 activations x widths 1,2,3,5,8 x 5): m* - m ->", counts)
U, W = g.index_set_stack_d1()[0]
b = Block("gelu", np.array(U, dtype=float), np.array(W, dtype=float), M=np.eye(1))
r = minimal_width_result(b)
print("the boundary block analytic_d1_depth_one (m = 2): m* =", r["value"], "exact", r["exact"])
