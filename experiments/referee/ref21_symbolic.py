"""Referee 21: symbolic checks (sympy, exact) of two steps of the depth-analytic all-widths lemma.

1. The isolating operator.  For d = 3 and m = 3 units with rational, pairwise non-parallel rows,
   v_i is the component of u_1 orthogonal to u_i and D = prod_{i >= 2} (v_i . grad)^2.  With s an
   undefined smooth function, check exactly that
     D[s(u_i.x) (alpha_i) + s'(u_i.x) (beta_i.x)] = 0 for i >= 2, and
     D[alpha s(z) + w s'(z) (beta.x)] = Gamma (alpha s^(4)(z) + w s^(5)(z) (beta.x)) + c w s^(4)(z),
   z = u_1.x, Gamma = prod gamma_i^2, c = sum over the 2m - 2 first-order factors of
   (beta . v_k) prod_{j != k} gamma_j.
2. The identities z s'(z) - s(z) = z^2 phi(z) (gelu), z^2 q (1 - q) (silu),
   (z^2/2)(1 - t^2) c (1 + 3 a z^2) (gelu_tanh), and the limits of s and z s' at -inf and of
   s - z and z s' - z at +inf (the asymptotic part of "p s + q z s' polynomial => p = q = 0").
"""

from __future__ import annotations

import sympy as sp


def operator_check() -> bool:
    x = sp.symbols("x1:4")
    X = sp.Matrix(x)
    s = sp.Function("s")
    u = [sp.Matrix([1, 2, -1]), sp.Matrix([3, -1, 2]), sp.Matrix([-2, 1, 5])]
    al, w = sp.symbols("alpha w")
    beta = sp.Matrix(sp.symbols("b1:4"))
    vs = []
    for ui in u[1:]:
        v = u[0] - (u[0].dot(ui) / ui.dot(ui)) * ui
        assert v.dot(ui) == 0 and v.dot(u[0]) != 0
        vs.append(v)

    def dirder(f, v):
        return sum(v[c] * sp.diff(f, x[c]) for c in range(3))

    def D(f):
        for v in vs:
            f = dirder(dirder(f, v), v)
        return sp.simplify(f)

    ok = True
    for ui in u[1:]:
        zi = ui.dot(X)
        b2 = sp.Matrix(sp.symbols("c1:4"))
        t0 = sp.Symbol("t")
        term = al * s(zi) + w * sp.diff(s(t0), t0).subs(t0, zi) * b2.dot(X)
        r = D(term)
        print(f"  D kills the unit with row {list(ui)}: {r == 0}")
        ok &= r == 0
    t = sp.Symbol("t")
    z = u[0].dot(X)
    first = al * s(z) + w * sp.diff(s(t), t).subs(t, z) * beta.dot(X)
    lhs = D(first)
    gam = [v.dot(u[0]) for v in vs]
    Gamma = sp.prod([g ** 2 for g in gam])
    factors = [v for v in vs for _ in range(2)]
    gf = [v.dot(u[0]) for v in factors]
    c = sum(beta.dot(factors[k]) * sp.prod([gf[j] for j in range(len(gf)) if j != k]) for k in range(len(gf)))
    s4 = sp.diff(s(t), t, 4).subs(t, z)
    s5 = sp.diff(s(t), t, 5).subs(t, z)
    rhs = Gamma * (al * s4 + w * s5 * beta.dot(X)) + c * w * s4
    same = sp.simplify(lhs - rhs) == 0
    print(f"  D on the first unit equals Gamma (alpha s'''' + w s^(5) beta.x) + c w s'''': {same} (Gamma = {Gamma})")
    return ok and same


def activation_check() -> bool:
    z = sp.Symbol("z", real=True)
    Phi = (1 + sp.erf(z / sp.sqrt(2))) / 2
    phi = sp.exp(-z ** 2 / 2) / sp.sqrt(2 * sp.pi)
    q = 1 / (1 + sp.exp(-z))
    c, a = sp.sqrt(2 / sp.pi), sp.Rational(44715, 1000000)
    th = sp.tanh(c * (z + a * z ** 3))
    acts = {
        "gelu": (z * Phi, z ** 2 * phi),
        "silu": (z * q, z ** 2 * q * (1 - q)),
        "gelu_tanh": (z / 2 * (1 + th), z ** 2 / 2 * (1 - th ** 2) * c * (1 + 3 * a * z ** 2)),
    }
    ok = True
    for name, (s, claimed) in acts.items():
        ds = sp.diff(s, z)
        ident = sp.simplify(z * ds - s - claimed) == 0
        lims = [sp.limit(s, z, -sp.oo), sp.limit(z * ds, z, -sp.oo), sp.limit(s - z, z, sp.oo),
                sp.limit(z * ds - z, z, sp.oo)]
        good = ident and all(v == 0 for v in lims)
        ok &= good
        print(f"  {name}: z s' - s identity {ident}; limits s(-inf), z s'(-inf), (s - z)(+inf), "
              f"(z s' - z)(+inf) = {lims}")
    return ok


def main() -> int:
    print("1. isolating operator (d = 3, m = 3, s undefined)")
    a = operator_check()
    print("2. activation facts")
    b = activation_check()
    print("all symbolic checks hold" if a and b else "A SYMBOLIC CHECK FAILED")
    return 0 if a and b else 1


if __name__ == "__main__":
    raise SystemExit(main())
