"""Referee check of relu-complete: the Coq definitions (proofs/coq/ReluClasses.v),
evaluated literally in exact rationals, against the oracle's canonical form and m*.

For each random small relu block with biases (zero rows, zero columns, collinear and
opposite rows, alpha = 0 classes, d = 1..3) this script

1. evaluates the computable parts of ReluClasses.v as written there (lead, nrow, nbias,
   same_kink, alpha, none_before / first_of_class, kink, count, Nmat, kconst) with
   python-flint fmpq, transcribed line by line from the Coq text, without using the
   oracle;
2. compares the kink classes, the alpha vectors, the linear part, the constant and
   N_s (for every sign vector) with oracle.algebra.canonical.relu_form_exact and
   oracle.algebra.relu_width.n_matrix;
3. computes the Coq width condition literally: width_suffices d m m' holds iff some
   s, some T subset of the kinks and some k with completes(N_s, T, k) have
   count(kinks) + |T| + 2k <= m'.  completes(N, T, k) (N = sum_{r in T} y_r nrow_r^T +
   k outer products, on the d x d range) holds iff k >= rank(N K_T), K_T a kernel basis
   of the T normals (Lemma 3); the script checks the "if" direction with an explicit
   exact witness (y, a, l) for k = rank(N K_T), and the "only if" direction holds since
   (N - sum y nrow^T) K_T = N K_T.  The least m' is compared with the oracle's exact m*
   (minimal_width).  All T (not only independent ones) and all sign vectors are tried.

Any disagreement is printed with the instance and counted; exit code 1 if any.
Run: .venv/bin/python experiments/referee/rc_coq_vs_oracle.py [n_instances] [seed]
"""

from __future__ import annotations

import itertools
import random
import sys
from fractions import Fraction

from flint import fmpq, fmpq_mat

from oracle.algebra.canonical import relu_form_exact
from oracle.algebra.relu_width import minimal_width, n_matrix

Q = fmpq


# ----------------------------------------------------------------- Coq, literally

def lead(d, u):
    """Fixpoint lead: lead 0 u = 0; lead (S k) u = if lead k u = 0 then u k else lead k u."""
    cur = Q(0)
    for k in range(d):
        cur = u[k] if cur == 0 else cur
    return cur


def nrow(d, Wu, i):
    l = lead(d, Wu[i])
    # Coq's division by zero is some real; nrow is only used where lead <> 0 (guarded below)
    return [Wu[i][j] / l for j in range(d)] if l != 0 else None


def nbias(d, Wu, bu, i):
    l = lead(d, Wu[i])
    return bu[i] / l if l != 0 else None


def vec_eqb(d, a, b):
    return all(a[j] == b[j] for j in range(d))


def same_kink(d, Wu, bu, i, j):
    if lead(d, Wu[i]) == 0 or lead(d, Wu[j]) == 0:
        return False
    return vec_eqb(d, nrow(d, Wu, i), nrow(d, Wu, j)) and nbias(d, Wu, bu, i) == nbias(d, Wu, bu, j)


def alpha(d, m, Wd, Wu, bu, r):
    return [sum((abs(lead(d, Wu[i])) * Wd[o][i] / 2 for i in range(m) if same_kink(d, Wu, bu, r, i)), Q(0))
            for o in range(d)]


def none_before(r, p):
    return all(not p(k) for k in range(r))


def first_of_class(d, Wu, bu, r):
    return lead(d, Wu[r]) != 0 and none_before(r, lambda j: same_kink(d, Wu, bu, j, r))


def kink(d, m, Wd, Wu, bu, r):
    return first_of_class(d, Wu, bu, r) and not vec_eqb(d, alpha(d, m, Wd, Wu, bu, r), [Q(0)] * d)


def count(n, p):
    return sum(1 for i in range(n) if p(i))


def sgn(s, r):
    return Q(-1) if s[r] else Q(1)


def Nmat(d, m, M, Wd, Wu, bu, s):
    ks = [r for r in range(m) if kink(d, m, Wd, Wu, bu, r)]
    N = fmpq_mat(d, d)
    for o in range(d):
        for j in range(d):
            v = M[o][j] + sum((Wd[o][i] * Wu[i][j] for i in range(m)), Q(0)) / 2
            v -= sum((sgn(s, r) * alpha(d, m, Wd, Wu, bu, r)[o] * nrow(d, Wu, r)[j] for r in ks), Q(0))
            N[o, j] = v
    return N


def relu(z):
    return z if z > 0 else Q(0)


def kconst(d, m, Wd, Wu, bu, bd):
    return [bd[o] + sum(((Wd[o][i] * relu(bu[i])) if lead(d, Wu[i]) == 0 else Wd[o][i] * bu[i] / 2
                         for i in range(m)), Q(0)) for o in range(d)]


# ----------------------------------------------------------------- exact linear algebra

def rank(A):
    return 0 if A.nrows() == 0 or A.ncols() == 0 else A.rank()


def kernel(rows, d):
    """Columns: a basis of {x : r . x = 0 for every row r}."""
    if not rows:
        return fmpq_mat([[Q(int(i == j)) for j in range(d)] for i in range(d)])
    A = fmpq_mat(rows)
    R, rk = A.rref()
    piv = []
    for i in range(rk):
        piv.append(next(j for j in range(d) if R[i, j] != 0))
    free = [j for j in range(d) if j not in piv]
    K = fmpq_mat(d, len(free))
    for c, f in enumerate(free):
        K[f, c] = 1
        for i, p in enumerate(piv):
            K[p, c] = -R[i, f]
    return K


def completes_witness(N, Trows, d):
    """An exact witness of completes(N, T, k) with k = rank(N K_T): returns (k, ok) where ok says
    N = Y U_T + sum_q a_q l_q^T holds exactly with k terms."""
    K = kernel(Trows, d)
    if K.ncols() == 0:
        P = fmpq_mat(d, d)
    else:
        P = K * (K.transpose() * K).inv() * K.transpose()  # orthogonal projector onto V-perp
    R = N * P
    k = rank(R)
    rest = N - R  # rows in span(Trows)
    if Trows:
        U = fmpq_mat(Trows)  # |T| x d
        # solve Y U = rest for Y (d x |T|): U^T Y^T = rest^T, least-norm via a row basis of U
        basis = []
        for i in range(U.nrows()):
            cand = basis + [i]
            if rank(fmpq_mat([Trows[c] for c in cand])) == len(cand):
                basis = cand
        Ub = fmpq_mat([Trows[c] for c in basis])
        G = Ub * Ub.transpose()
        Yb = rest * Ub.transpose() * G.inv()  # d x |basis|
        recon = Yb * Ub
    else:
        recon = fmpq_mat(d, d)
    # rank factorisation of R: R = C F with C = columns of R at pivot columns
    if k:
        Rt, rk = R.transpose().rref()  # row space of R^T = column space of R
        piv = [next(j for j in range(d) if Rt[i, j] != 0) for i in range(rk)]
        # columns of R at a maximal independent set of columns
        cols = []
        for j in range(d):
            cand = cols + [j]
            sub = fmpq_mat([[R[i, c] for c in cand] for i in range(d)])
            if rank(sub) == len(cand):
                cols = cand
        C = fmpq_mat([[R[i, c] for c in cols] for i in range(d)])  # d x k
        # F (k x d) with C F = R: F = (C^T C)^-1 C^T R
        F = (C.transpose() * C).inv() * C.transpose() * R
        outer = C * F
        assert len(cols) == k
    else:
        outer = fmpq_mat(d, d)
    return k, (recon + outer == N)


def coq_mstar(d, m, M, Wd, Wu, bu):
    """min m' with width_suffices d m m' (Coq), by enumeration of s on the kinks and all T."""
    ks = [r for r in range(m) if kink(d, m, Wd, Wu, bu, r)]
    nk = count(m, lambda r: kink(d, m, Wd, Wu, bu, r))
    best = None
    witness_fail = []
    for bits in itertools.product((False, True), repeat=len(ks)):
        s = [False] * m
        for r, b in zip(ks, bits):
            s[r] = b
        N = Nmat(d, m, M, Wd, Wu, bu, s)
        for size in range(len(ks) + 1):
            for T in itertools.combinations(ks, size):
                Trows = [nrow(d, Wu, r) for r in T]
                K = kernel(Trows, d)
                kmin = rank(N * K) if K.ncols() else 0
                k2, ok = completes_witness(N, Trows, d)
                if k2 != kmin or not ok:
                    witness_fail.append((bits, T, kmin, k2, ok))
                c = nk + size + 2 * kmin
                if best is None or c < best:
                    best = c
    return best, witness_fail


# ----------------------------------------------------------------- random blocks

SCALES = [Q(1), Q(-1), Q(2), Q(-2), Q(1, 2), Q(-1, 2), Q(3)]
SMALL = [Q(0), Q(1), Q(-1), Q(2), Q(-2), Q(1, 2)]


def rand_vec(rng, d, pool=SMALL):
    return [rng.choice(pool) for _ in range(d)]


def random_instance(rng):
    d = rng.randint(1, 3)
    m = rng.randint(0, 6 if d < 3 else 4)
    biased = rng.random() < 0.7
    nplanes = rng.randint(1, 4)
    planes = []
    for _ in range(nplanes):
        u = rand_vec(rng, d)
        if all(v == 0 for v in u):
            u[rng.randrange(d)] = Q(1)
        c = rng.choice(SMALL) if biased else Q(0)
        planes.append((u, c))
    Wu, bu, Wd_cols = [], [], []
    for i in range(m):
        kind = rng.random()
        if kind < 0.12:  # zero row (a constant unit)
            Wu.append([Q(0)] * d)
            bu.append(rng.choice(SMALL) if biased else Q(0))
        elif kind < 0.22 and biased:  # opposite row with the same bias: a different hyperplane
            u, c = rng.choice(planes)
            Wu.append([-v for v in u])
            bu.append(c)
        elif kind < 0.30:  # fresh random row
            Wu.append(rand_vec(rng, d))
            bu.append(rng.choice(SMALL) if biased else Q(0))
        else:  # on a plane, any nonzero scale (collinear and opposite rows)
            u, c = rng.choice(planes)
            lam = rng.choice(SCALES)
            Wu.append([lam * v for v in u])
            bu.append(lam * c)
        Wd_cols.append([Q(0)] * d if rng.random() < 0.12 else rand_vec(rng, d))
    # plant alpha = 0 classes: for some unit i, add j on the same hyperplane with |lam_j| w_j = -|lam_i| w_i
    if m >= 2 and rng.random() < 0.35:
        i, j = rng.sample(range(m), 2)
        l_i = lead(d, Wu[i])
        if l_i != 0:
            lam = rng.choice(SCALES)
            Wu[j] = [lam * v for v in Wu[i]]
            bu[j] = lam * bu[i]
            Wd_cols[j] = [-abs(l_i) * w / abs(lam * l_i) for w in Wd_cols[i]]
    Wd = [[Wd_cols[i][o] for i in range(m)] for o in range(d)]
    kindM = rng.random()
    if kindM < 0.25:
        M = [[Q(int(a == b)) for b in range(d)] for a in range(d)]
    elif kindM < 0.35:
        M = [[Q(0)] * d for _ in range(d)]
    elif kindM < 0.55:  # rank one
        a, b = rand_vec(rng, d), rand_vec(rng, d)
        M = [[a[o] * b[j] for j in range(d)] for o in range(d)]
    else:
        M = [rand_vec(rng, d, [Q(0), Q(1), Q(-1), Q(2)]) for _ in range(d)]
    bd = rand_vec(rng, d) if biased and rng.random() < 0.6 else [Q(0)] * d
    return d, m, M, Wd, Wu, bu, bd


def F(x):
    return Fraction(int(x.p), int(x.q))


def to_frac(A):
    return [[F(v) for v in r] for r in A]


def check_one(inst):
    d, m, M, Wd, Wu, bu, bd = inst
    problems = []
    form = relu_form_exact(to_frac(Wu), to_frac(Wd) if m else [[] for _ in range(d)], to_frac(M),
                           [F(v) for v in bu], [F(v) for v in bd])
    # classes: Coq's first units and members vs the oracle's classes
    firsts = [r for r in range(m) if first_of_class(d, Wu, bu, r)]
    coq_classes = {r: [i for i in range(m) if same_kink(d, Wu, bu, r, i)] for r in firsts}
    orc = {c.units[0]: c for c in form.classes}
    if sorted(coq_classes) != sorted(orc):
        problems.append(f"first units differ: coq {sorted(coq_classes)} oracle {sorted(orc)}")
    else:
        for r, members in coq_classes.items():
            c = orc[r]
            if sorted(c.units) != members:
                problems.append(f"class of {r}: coq members {members} oracle {c.units}")
            if [F(v) for v in nrow(d, Wu, r)] != list(c.u) or F(nbias(d, Wu, bu, r)) != c.b:
                problems.append(f"class of {r}: normal form differs")
            if [F(v) for v in alpha(d, m, Wd, Wu, bu, r)] != list(c.alpha):
                problems.append(f"class of {r}: alpha coq {alpha(d, m, Wd, Wu, bu, r)} oracle {c.alpha}")
    zero_coq = [i for i in range(m) if lead(d, Wu[i]) == 0]
    if zero_coq != list(form.zero_units):
        problems.append(f"zero rows differ: coq {zero_coq} oracle {form.zero_units}")
    ks = [r for r in range(m) if kink(d, m, Wd, Wu, bu, r)]
    act = [c.units[0] for c in form.active]
    if ks != act:  # the oracle lists classes in order of first unit: same order expected
        problems.append(f"kinks differ: coq {ks} oracle {act}")
    if count(m, lambda r: kink(d, m, Wd, Wu, bu, r)) != len(form.active):
        problems.append("kink count differs")
    kc = kconst(d, m, Wd, Wu, bu, bd)
    if [F(v) for v in kc] != list(form.const):
        problems.append(f"constant differs: coq {kc} oracle {form.const}")
    # N_s for every sign vector (oracle sign +1 = Coq false)
    if ks == act:
        for bits in itertools.product((False, True), repeat=len(ks)):
            s = [False] * m
            for r, b in zip(ks, bits):
                s[r] = b
            Nc = Nmat(d, m, M, Wd, Wu, bu, s)
            No = n_matrix(form, [(-1 if b else 1) for b in bits])
            if Nc != No:
                problems.append(f"N_s differs at s = {bits}")
                break
    # m*
    coq, wf = coq_mstar(d, m, M, Wd, Wu, bu)
    if wf:
        problems.append(f"completes witness failed: {wf[:2]}")
    res = minimal_width(form)
    if not res.exact or res.lower != coq:
        problems.append(f"m* differs: coq {coq} oracle [{res.lower}, {res.upper}]")
    return problems, coq, len(ks)


def show(inst):
    d, m, M, Wd, Wu, bu, bd = inst
    s = lambda A: [[str(v) for v in r] for r in A]  # noqa: E731
    return (f"d={d} m={m} M={s(M)} W_down={s(Wd)} W_up={s(Wu)} b_up={[str(v) for v in bu]} "
            f"b_down={[str(v) for v in bd]}")


MUTANTS = {
    # each mutant changes one Coq definition the way a wrong formalisation might; the script
    # must then report disagreements (it is not a check that cannot fail)
    "alpha_no_abs": ("alpha", lambda d, m, Wd, Wu, bu, r: [sum((lead(d, Wu[i]) * Wd[o][i] / 2 for i in range(m)
                                                                 if same_kink(d, Wu, bu, r, i)), Q(0)) for o in range(d)]),
    "same_kink_ignores_bias": ("same_kink", lambda d, Wu, bu, i, j: lead(d, Wu[i]) != 0 and lead(d, Wu[j]) != 0
                               and vec_eqb(d, nrow(d, Wu, i), nrow(d, Wu, j))),
    "lead_last_nonzero": ("lead", lambda d, u: next((u[k] for k in reversed(range(d)) if u[k] != 0), Q(0))),
    "kink_ignores_alpha": ("kink", lambda d, m, Wd, Wu, bu, r: first_of_class(d, Wu, bu, r)),
}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    for a in sys.argv[1:]:
        if a.startswith("--mutant="):
            name, (fn, impl) = a.split("=", 1)[1], MUTANTS[a.split("=", 1)[1]]
            globals()[fn] = impl
            print("MUTANT", name)
    n = int(args[0]) if args else 1500
    seed = int(args[1]) if len(args) > 1 else 1
    rng = random.Random(seed)
    bad = 0
    stats = {"d": {}, "mstar": {}, "kinks": {}, "alpha0": 0, "zero_row": 0, "opposite": 0, "biased": 0}
    for t in range(n):
        inst = random_instance(rng)
        d, m, M, Wd, Wu, bu, bd = inst
        problems, ms, nk = check_one(inst)
        stats["d"][d] = stats["d"].get(d, 0) + 1
        stats["mstar"][ms] = stats["mstar"].get(ms, 0) + 1
        stats["kinks"][nk] = stats["kinks"].get(nk, 0) + 1
        if any(first_of_class(d, Wu, bu, r) and not kink(d, m, Wd, Wu, bu, r) for r in range(m)):
            stats["alpha0"] += 1
        if any(lead(d, Wu[i]) == 0 for i in range(m)):
            stats["zero_row"] += 1
        if any(same_kink(d, Wu, bu, i, j) and lead(d, Wu[i]) * lead(d, Wu[j]) < 0
               for i in range(m) for j in range(m)):
            stats["opposite"] += 1
        if any(v != 0 for v in bu) or any(v != 0 for v in bd):
            stats["biased"] += 1
        if problems:
            bad += 1
            if bad <= 10:
                print("DISAGREEMENT", show(inst))
                for p in problems:
                    print("   ", p)
    print(f"{n} instances (seed {seed}), {bad} with a disagreement")
    print("by d:", dict(sorted(stats["d"].items())), "| m* values:", dict(sorted(stats["mstar"].items())),
          "| kink counts:", dict(sorted(stats["kinks"].items())))
    print(f"with an alpha = 0 class: {stats['alpha0']}, a zero row: {stats['zero_row']}, "
          f"opposite rows on one class: {stats['opposite']}, biased: {stats['biased']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
