"""The facts Step R2 of depth-analytic.md uses about the activation, checked in sympy for
quick_gelu(z) = z * sigmoid(k z) with k = 851/500 (the catalog's exact 1.702).

R2 needs: s smooth, and p s(z) + q z s'(z) a polynomial only if p = q = 0.  The argument for the
second: s(z) -> 0 and z s'(z) -> 0 as z -> -inf (so the polynomial tends to 0 and is 0), s(z) - z
-> 0 and z s'(z) - z -> 0 as z -> +inf (so p + q = 0), and z s'(z) - s(z) is not identically 0
(so q = 0, then p = 0).  This script checks the identity z s' - s = k z^2 q (1 - q) (q the sigmoid
at k z), that it is nonzero at z = 1, and the four limits, all symbolically.  quick_gelu is outside
the registered claims; this is the check that lets the all-widths proof apply to it.

Run: .venv/bin/python experiments/quick_gelu_polynomial_fact.py  (output in the .txt next to it)
"""

import sympy as sp


def main() -> int:
    z = sp.Symbol("z", real=True)
    k = sp.Rational(851, 500)
    q = 1 / (1 + sp.exp(-k * z))
    s = z * q
    ds = sp.diff(s, z)
    identity = sp.simplify(z * ds - s - k * z ** 2 * q * (1 - q)) == 0
    at_one = sp.nsimplify((z * ds - s).subs(z, 1))
    nonzero = bool(sp.N(at_one, 30) > 0)
    limits = [sp.limit(s, z, -sp.oo), sp.limit(z * ds, z, -sp.oo),
              sp.limit(s - z, z, sp.oo), sp.limit(z * ds - z, z, sp.oo)]
    print(f"quick_gelu, k = {k}: z s' - s = k z^2 q (1 - q): {identity}")
    print(f"  z s' - s at z = 1: {sp.N(at_one, 12)} (nonzero: {nonzero})")
    print(f"  limits s(-inf), z s'(-inf), (s - z)(+inf), (z s' - z)(+inf) = {limits}")
    ok = identity and nonzero and all(v == 0 for v in limits)
    print("all checks hold" if ok else "A CHECK FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
