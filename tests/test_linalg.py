"""Tests for oracle.core.linalg: exact linear algebra on python-flint matrices.

Every operation is compared with an independent computation (sympy's exact
matrices, or the defining identity checked exactly), on dyadic floats with
extreme exponents as well as on non-dyadic rationals.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle.core import linalg
from oracle.core import rational

q = st.builds(Fraction, st.integers(-6, 6), st.integers(1, 5))


def _sym(rows):
    return sympy.Matrix([[sympy.Rational(v.numerator, v.denominator) for v in r] for r in rows])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5).flatmap(lambda n: st.integers(1, 5).flatmap(
    lambda k: st.lists(st.lists(q, min_size=k, max_size=k), min_size=n, max_size=n))))
def test_rank_rref_nullspace_agree_with_sympy(rows):
    S = _sym(rows)
    assert linalg.rank(rows) == S.rank()
    R, piv = linalg.rref(rows)
    Rs, pivs = S.rref()
    assert piv == list(pivs)
    assert rational.to_fractions(R) == [[Fraction(int(v.p), int(v.q)) for v in Rs.row(i)]
                                      for i in range(len(piv))]
    X = linalg.nullspace(rows)
    assert X.ncols() == len(rows[0]) - S.rank()
    A = rational.to_fmpq_mat(rows)
    assert all(v == 0 for v in (A * X).entries())
    if X.ncols():
        assert linalg.rank(X) == X.ncols()


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5).flatmap(lambda n: st.lists(st.lists(q, min_size=n, max_size=n),
                                                     min_size=n, max_size=n)))
def test_det_inverse_solve(rows):
    S = _sym(rows)
    dt = rational.to_fraction(linalg.det(rows))
    assert dt == Fraction(int(sympy.fraction(S.det())[0]), int(sympy.fraction(S.det())[1]))
    inv = linalg.inverse(rows)
    n = len(rows)
    b = [[Fraction(i + 1)] for i in range(n)]
    x = linalg.solve(rows, b)
    if dt == 0:
        assert inv is None and x is None and not linalg.is_invertible(rows)
    else:
        assert linalg.is_invertible(rows)
        I = linalg.matmul(rows, inv)
        assert rational.to_fractions(I) == [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
        assert rational.to_fractions(linalg.matmul(rows, x)) == b


def test_float64_conversion_is_exact_at_extreme_exponents():
    a = np.array([[1e300, 2.0 ** -1074], [0.1, -3.0]])
    Q = rational.from_float64(a)
    assert rational.to_fractions(Q) == [[Fraction(1e300), Fraction(2.0 ** -1074)],
                                      [Fraction(0.1), Fraction(-3)]]
    N, e = rational.dyadic_ints(a)
    assert e == -1074 - 52 or all(Fraction(int(N[i, j])) * Fraction(2) ** e == Fraction(a[i, j])
                                  for i in range(2) for j in range(2))
    assert linalg.rank(a) == 2
    with pytest.raises(ValueError):
        rational.from_float64(np.array([[np.nan]]))


def test_rank_mod_p_is_a_lower_bound_and_primes_differ():
    p = linalg.PRIMES[0]
    # determinant exactly p: singular modulo p, regular over Q and modulo the other primes
    M = np.diag([float(p), 1.0, 1.0])
    M[0, 1] = 1.0
    assert linalg.rank_mod_p(M, p) == 2
    assert linalg.rank_mod_p(M, linalg.PRIMES[1]) == 3
    assert linalg.rank(M) == 3
    rng = np.random.default_rng(0)
    A = rng.standard_normal((40, 12)) @ rng.standard_normal((12, 30))  # rounding: full rank likely
    for p in linalg.PRIMES:
        assert linalg.rank_mod_p(A, p) <= linalg.rank(A)


def test_empty_and_zero_matrices():
    assert linalg.rank(np.zeros((3, 2))) == 0
    assert linalg.rank([[]]) == 0
    assert linalg.nullspace([[0, 0]]).ncols() == 2
    assert linalg.inverse([[0]]) is None
    assert linalg.rank_mod_p(np.zeros((2, 2))) == 0
