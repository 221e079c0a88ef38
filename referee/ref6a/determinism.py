"""Referee ref6a: are the audit's depth-analytic-d1 instances the same in two processes?  Prints the
drawn instances (seed 0, 20 instances) and the coverage tally; run it twice with different
PYTHONHASHSEED and compare.  Run: PYTHONHASHSEED=1 nice .venv/bin/python referee/ref6a/determinism.py"""
import oracle.claims.depth_analytic_d1 as g
from oracle.algebra.stacks import analytic as an
from oracle.commands import audit
from oracle.formal import consistency

seen = []
orig = g.d1_certificate
g.d1_certificate = lambda inst: (seen.append((inst.activation, inst.widths, inst.seed, inst.delta)), orig(inst))[1]
claim = next(c for c in consistency.load_registry() if c["id"] == g.CLAIM)
face = audit.oracle_face(claim, 20, 0, lambda s: None)
print("ACTIVATIONS order:", an.ACTIVATIONS)
print("tally:", face["coverage"]["drawn"])
for s in seen:
    print(s)
