"""gelu-complete, d = 2: brute force over a grid of small blocks (rows in {-1,0,1,2}^2, outputs in
{-1,0,1}^2, widths 0..2): no grid block narrower than m* has the canonical form of F = M x + B(x)
(classes +-(u, b) with their e-coefficients and M + L; the constant is left free, as b_down fixes it).
Equality of forms is equality of functions by Lemma E of proofs/informal/gelu-complete.md; what this
tests independently is the minimisation over (s, T).  Targets: 400 random blocks of width 1..3, half
of them degenerate (a copied, negated or doubled row), M in {I, 0, e1 e1^T, e1 e2^T}.
Run: .venv/bin/python experiments/gelu_complete_d2_bruteforce.py SEED (output in the .txt beside it)."""
import itertools, random, sys
from fractions import Fraction as Q

from oracle.algebra.gelu_width import gelu_form_exact, width
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
rows = [r for r in itertools.product([-1, 0, 1, 2], repeat=2) if any(r)]
ws = [w for w in itertools.product([-1, 0, 1], repeat=2) if any(w)]
units = [(r, w) for r in rows for w in ws]
I = [[Q(1), Q(0)], [Q(0), Q(1)]]
def key_no_const(f):
    k = f.key(); return (k[0], k[1])
def grid_keys(width_):
    for combo in itertools.combinations_with_replacement(range(len(units)), width_):
        U = [[Q(v) for v in units[i][0]] for i in combo]
        W = [[Q(units[i][1][a]) for i in combo] for a in range(2)] if combo else [[], []]
        yield key_no_const(gelu_form_exact(U, W, None, None, None, d=2))
# precompute keys of widths 0..2
tables = {w_: set(grid_keys(w_)) for w_ in range(3)}
print("grid units", len(units), "keys", {k: len(v) for k, v in tables.items()})
stats = {"targets": 0, "violations": 0, "attained": 0, "by_mstar": {}}
for t in range(400):
    m = random.randint(1, 3)
    idx = [random.randrange(len(units)) for _ in range(m)]
    if random.random() < 0.5 and m >= 2:  # degenerate: copy, negate or double a row
        f = random.choice([1, -1, 2])
        units_sel = [units[i] for i in idx]
        r0 = units_sel[0][0]
        units_sel[1] = (tuple(f * v for v in r0), units_sel[1][1])
    else:
        units_sel = [units[i] for i in idx]
    U = [[Q(v) for v in r] for r, _ in units_sel]
    W = [[Q(w[a]) for _, w in units_sel] for a in range(2)]
    Mc = random.choice([I, [[Q(0)]*2 for _ in range(2)], [[Q(1), Q(0)], [Q(0), Q(0)]], [[Q(0), Q(1)], [Q(0), Q(0)]]])
    F = gelu_form_exact(U, W, Mc, d=2)
    wr = width(F); ms = wr.lower
    k = key_no_const(F)
    stats["targets"] += 1
    stats["by_mstar"][ms] = stats["by_mstar"].get(ms, 0) + 1
    for w_ in range(min(ms, 3)):
        if k in tables[w_]:
            stats["violations"] += 1; print("VIOLATION", U, W, ms, w_)
    if ms <= 2 and k in tables[ms]:
        stats["attained"] += 1
print(stats)
