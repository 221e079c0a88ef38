"""Referee ref6a: what the audit's instances of depth-analytic-d1 actually are (seed 0, the
quick 20 and the full 100 runs): depth, widths, summed width, activation, and which of them the
coverage table can see.  Run: nice .venv/bin/python referee/ref6a/drawn_range.py"""
import collections
import sys

import oracle.claims.depth_analytic_d1 as g
from oracle.commands import audit
from oracle.formal import consistency

seen = []
orig = g.d1_certificate


def rec(inst):
    seen.append(inst)
    return orig(inst)


g.d1_certificate = rec
claim = next(c for c in consistency.load_registry() if c["id"] == g.CLAIM)
for n in (20, 100):
    seen.clear()
    face = audit.oracle_face(claim, n, 0, lambda s: None)
    drawn = seen[4:]   # the 4 corners come first
    depth = collections.Counter(len(i.widths) for i in drawn)
    acts = collections.Counter(i.activation for i in drawn)
    sums = sorted(sum(i.widths) for i in drawn)
    maxw = collections.Counter(max(i.widths) for i in drawn)
    print(f"n = {n}: status {face['status']}, {len(drawn)} drawn + {len(seen) - len(drawn)} corners")
    print(f"  depth: {dict(sorted(depth.items()))}  (depth 1 is outside Corollary D1; >= 4 never)")
    print(f"  activation: {dict(acts)}")
    print(f"  widest layer: {dict(sorted(maxw.items()))}")
    print(f"  summed width m: min {sums[0]}, median {sums[len(sums) // 2]}, max {sums[-1]}; "
          f"m >= 15: {sum(s >= 15 for s in sums)}")
    print(f"  depth >= 2 with some width >= 7: {sum(len(i.widths) >= 2 and max(i.widths) >= 7 for i in drawn)}")
    print(f"  coverage features seen by the audit: {face['coverage']['drawn']}")
    print(f"  declared: {face['coverage']['summary']}")
