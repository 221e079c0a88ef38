"""Tests for oracle.algebra.search: the index-set condition of claim relu-gelu-iff.

Exactness of the verifier and the searches, near misses, soundness of the
linear (relaxation) certificates and of their float64 error bounds.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracle.algebra.search import (
    SearchResult, check_linear_certificate, condition_residual, decode_matrix, encode_matrix,
    exhaustive_search, find_index_set, necessary_conditions, relaxation_certificate, verify_index_set
)
from oracle.core.rational import fraction_array

CLAIM = "relu-gelu-iff"

# ----------------------------------------------------------------------------
# helpers: planted instances and exact brute force
# ----------------------------------------------------------------------------


def unimodular(d: int, rng: np.random.Generator, steps: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """An integer matrix with determinant +-1 and its (integer) inverse."""
    A = np.eye(d)
    for _ in range(steps):
        i, j = rng.choice(d, 2, replace=False)
        A[i] += rng.integers(-1, 2) * A[j]
    inv = np.round(np.linalg.inv(A))
    assert np.array_equal(A @ inv, np.eye(d))
    return A, inv


def planted(d: int, m: int, size: int, rng: np.random.Generator, M: np.ndarray | None = None,
            frac_bits: int = 2):
    """A block with an index set S (|S| = size >= d) satisfying W_down[:,S] W_up[S,:] = -M exactly.

    Other weights are dyadic numbers k / 2^frac_bits with small k, so every float
    operation used in the construction is exact.
    """
    if M is None:
        M = np.eye(d)
    den = 2.0 ** frac_bits
    U = rng.integers(-4, 5, (m, d)) / den
    W = rng.integers(-4, 5, (d, m)) / den
    S = np.sort(rng.choice(m, size, replace=False))
    US, inv = unimodular(d, rng)
    U[S[:d]] = US
    rest = S[d:]
    R = W[:, rest] @ U[rest]
    W[:, S[:d]] = (-M - R) @ inv
    return U, W, M, tuple(int(i) for i in S)


def exact_A(U, W, M, S) -> np.ndarray:
    """A(S) = W[:,S] U[S,:] + M in Fractions."""
    Uf, Wf, Mf = fraction_array(U), fraction_array(W), fraction_array(M)
    idx = list(S)
    if not idx:
        return Mf
    return Wf[:, idx] @ Uf[idx, :] + Mf


def exact_dot(x: np.ndarray, y: np.ndarray) -> Fraction:
    """Exact dot product of two float64 vectors (integer arithmetic on numerators)."""
    num, den_exp = [], []
    for a, b in zip(x.tolist(), y.tolist()):
        na, da = a.as_integer_ratio()
        nb, db = b.as_integer_ratio()
        num.append(na * nb)
        den_exp.append((da * db).bit_length() - 1)  # denominators are powers of two
    E = max(den_exp, default=0)
    return Fraction(sum(n << (E - e) for n, e in zip(num, den_exp)), 1 << E)


def brute_force(U, W, M) -> list[tuple[int, ...]]:
    """All index sets by enumerating every subset with exact Fractions."""
    m = U.shape[0]
    out = []
    for r in range(m + 1):
        for S in itertools.combinations(range(m), r):
            if all(x == 0 for x in exact_A(U, W, M, S).ravel()):
                out.append(S)
    return sorted(out)


# ----------------------------------------------------------------------------
# exact helpers
# ----------------------------------------------------------------------------


def test_fraction_array_is_exact_and_rejects_nonfinite():
    a = np.array([[0.1, -2.0 ** -1074], [3.0, 1e300]])
    fr = fraction_array(a)
    assert fr[0, 0] == Fraction(3602879701896397, 36028797018963968)
    assert fr[0, 1] == Fraction(-1, 2 ** 1074)
    assert fr[1, 0] == 3 and fr[1, 1] == int(1e300)
    with pytest.raises(ValueError):
        fraction_array(np.array([1.0, np.nan]))
    with pytest.raises(ValueError):
        verify_index_set(np.ones((2, 2)), np.ones((2, 2)), np.array([[np.inf, 0], [0, 1]]), [0])


@pytest.mark.parametrize("d,m,size", [(3, 10, 3), (4, 14, 6), (5, 18, 9)])
def test_planted_set_is_found_exactly(d, m, size):
    rng = np.random.default_rng(100 + d)
    U, W, M, S = planted(d, m, size, rng)
    assert verify_index_set(U, W, M, S)
    assert all(x == 0 for x in exact_A(U, W, M, S).ravel())
    assert condition_residual(U, W, M, S) == 0.0
    sols = exhaustive_search(U, W, M)
    assert S in sols
    for T in sols:  # every reported set is a true solution
        assert all(x == 0 for x in exact_A(U, W, M, T).ravel())
    res = find_index_set(U, W, M)
    assert res.status == "found" and res.exact
    assert res.S is not None and verify_index_set(U, W, M, res.S)


def test_planted_with_general_dyadic_M_and_boolean_mask():
    rng = np.random.default_rng(7)
    M = np.array([[1.5, 0.25, 0.0], [-0.5, 2.0, 1.0], [0.0, 0.75, -1.0]])
    U, W, M, S = planted(3, 12, 5, rng, M=M)
    mask = np.zeros(12, dtype=bool)
    mask[list(S)] = True
    assert verify_index_set(U, W, M, mask)
    assert S in exhaustive_search(U, W, M)


def test_near_miss_is_not_verified():
    rng = np.random.default_rng(3)
    U, W, M, S = planted(4, 14, 6, rng)
    for which in ("up", "down", "M"):
        U2, W2, M2 = U.copy(), W.copy(), M.copy()
        if which == "up":
            U2[S[0], 1] += 2.0 ** -30
        elif which == "down":
            W2[2, S[-1]] -= 2.0 ** -30
        else:
            M2[3, 0] += 2.0 ** -30
        assert not verify_index_set(U2, W2, M2, S)
        res = condition_residual(U2, W2, M2, S)
        assert 0.0 < res < 1e-7
        assert S not in exhaustive_search(U2, W2, M2)


def test_verify_handles_extreme_exponents():
    # entries 2^-1000 and 2^900 force integers of ~1900 bits: many primes are needed
    U = np.array([[2.0 ** -1000, 1.0], [0.0, 2.0 ** 900]])
    W = np.array([[2.0 ** 1000, 0.0], [0.0, -(2.0 ** -900)]])
    M = np.array([[-1.0, -(2.0 ** 1000)], [0.0, 1.0]])
    assert verify_index_set(U, W, M, [0, 1])
    M2 = M.copy()
    M2[0, 1] = math.nextafter(M2[0, 1], 0.0)
    assert not verify_index_set(U, W, M2, [0, 1])


# ----------------------------------------------------------------------------
# meet in the middle against brute force
# ----------------------------------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10 ** 6), m=st.integers(4, 10), d=st.integers(1, 3))
def test_meet_in_the_middle_matches_brute_force(seed, m, d):
    rng = np.random.default_rng(seed)
    # tiny integer entries make coincidences (several solutions, zero units) common
    U = rng.integers(-1, 2, (m, d)).astype(float)
    W = rng.integers(-1, 2, (d, m)).astype(float)
    T = rng.choice(m, rng.integers(0, m + 1), replace=False)
    M = -(W[:, T] @ U[T, :]) if T.size else np.zeros((d, d))
    expected = brute_force(U, W, M)
    assert tuple(sorted(int(t) for t in T)) in expected
    assert exhaustive_search(U, W, M) == expected


def test_several_solutions_all_reported():
    # units 0,1 have equal outer products, so {0,2} and {1,2} both work; 3 is a zero unit
    U = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    W = np.array([[1.0, 1.0, 0.0, 5.0], [0.0, 0.0, 1.0, 5.0]])
    M = -np.eye(2)
    got = exhaustive_search(U, W, M)
    assert got == [(0, 2), (0, 2, 3), (1, 2), (1, 2, 3)]
    assert got == brute_force(U, W, M)


def test_zero_target_and_zero_units():
    # M = 0: the empty set works, and units with a zero outer product may be added freely
    U = np.array([[0.0, 0.0], [1.0, 2.0], [0.0, 1.0]])
    W = np.array([[3.0, 0.0, 1.0], [1.0, 0.0, 0.0]])  # unit 0 has u = 0, unit 1 has w = 0
    got = exhaustive_search(U, W, np.zeros((2, 2)))
    assert got == [(), (0,), (0, 1), (1,)]
    assert got == brute_force(U, W, np.zeros((2, 2)))


def test_exhaustive_refuses_large_m():
    rng = np.random.default_rng(0)
    U = rng.standard_normal((50, 3))
    W = rng.standard_normal((3, 50))
    with pytest.raises(ValueError, match="max_m"):
        exhaustive_search(U, W, np.eye(3), max_m=40)


# ----------------------------------------------------------------------------
# necessary conditions
# ----------------------------------------------------------------------------


def test_trace_condition_violated():
    # every u_i . w_i >= 0 but tr M = 3 > 0, so sum_S u_i.w_i = -3 is unreachable
    rng = np.random.default_rng(1)
    U = np.abs(rng.integers(1, 4, (8, 3))).astype(float)
    W = U.T.copy()
    nc = necessary_conditions(U, W, np.eye(3))
    assert nc["possible"] is False and "trace" in nc["violated"]
    assert nc["checks"]["trace"]["reachable_low"] == "0"
    res = find_index_set(U, W, np.eye(3))
    assert res.status == "none" and res.exact and "trace" in res.method
    blob = json.loads(json.dumps(res.certificate))
    assert blob["checks"]["trace"]["holds"] is False


def test_rank_condition_violated():
    rng = np.random.default_rng(2)
    U = rng.integers(-3, 4, (2, 4)).astype(float)  # only two units: rank <= 2 < 4
    W = rng.integers(-3, 4, (4, 2)).astype(float)
    nc = necessary_conditions(U, W, np.eye(4))
    assert nc["checks"]["rank"]["rank_M"] == 4
    assert nc["checks"]["rank"]["holds"] is False and not nc["possible"]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10 ** 6), n=st.integers(1, 30), k=st.integers(1, 30))
def test_rank_mod_p_is_a_lower_bound_and_exact_on_small_integers(seed, n, k):
    from oracle.core import linalg

    rng = np.random.default_rng(seed)
    r = int(rng.integers(0, min(n, k) + 1))
    A = (rng.integers(-3, 4, (n, r)) @ rng.integers(-3, 4, (r, k))).astype(float) / 4.0
    exact = linalg.rank(A)
    assert exact <= r
    # entries far below the prime: the rank modulo p equals the rational rank here
    for p in linalg.PRIMES:
        assert linalg.rank_mod_p(A, p) == exact
    # a multiple of the prime makes the mod-p rank drop, never rise
    B = np.array([[float(linalg.PRIMES[0]), 0.0], [0.0, 1.0]])
    assert linalg.rank_mod_p(B) == 1 and linalg.rank(B) == 2


def test_necessary_conditions_hold_on_planted():
    rng = np.random.default_rng(5)
    U, W, M, S = planted(4, 12, 5, rng)
    nc = necessary_conditions(U, W, M)
    assert nc["possible"] and nc["violated"] == []


def test_trace_float_path_encloses_exact_values():
    # m*d above the exact threshold exercises the float64 interval with error bounds
    rng = np.random.default_rng(9)
    m, d = 5200, 80
    U = rng.standard_normal((m, d))
    W = rng.standard_normal((d, m))
    W[:, : m // 2] = np.abs(W[:, : m // 2]) * np.sign(U[: m // 2].T)  # many positive a_i
    M = np.eye(d)
    tr = necessary_conditions(U, W, M)["checks"]["trace"]
    assert tr["method"].startswith("float64")
    a = [exact_dot(W[:, i], U[i]) for i in range(m)]
    low = sum(x for x in a if x < 0)
    high = sum(x for x in a if x > 0)
    assert Fraction(tr["reachable_low"]) <= low and Fraction(tr["reachable_high"]) >= high
    assert abs(Fraction(tr["reachable_low"]) - low) < Fraction(1, 10 ** 6)
    assert tr["holds"] == (low <= -d <= high)
    # the same block with a trace far outside the reachable interval
    big = necessary_conditions(U, W, -(float(high) + 10.0) * np.eye(d) / d)
    assert big["checks"]["trace"]["holds"] is False and "trace" in big["violated"]


# ----------------------------------------------------------------------------
# relaxation certificates
# ----------------------------------------------------------------------------


def random_block(d, m, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, d)) * scale, rng.standard_normal((d, m)) * scale, np.eye(d)


@pytest.mark.parametrize("d,m,scale", [(6, 24, 1.0), (12, 48, 1.0), (40, 160, 1.0), (64, 256, 0.125)])
def test_random_blocks_are_certified(d, m, scale):
    U, W, M = random_block(d, m, d, scale)
    rel = relaxation_certificate(U, W, M)
    assert rel["certified"] and rel["lower_bound"] > 0
    assert 0 < rel["distance_lower_bound"] <= rel["lower_bound"] / np.linalg.norm(rel["Y"]) * (1 + 1e-12)
    # re-check from the weights and Y alone, with both checkers
    for method in ("float", "exact") if m * d * d <= 400_000 else ("float",):
        chk = check_linear_certificate(U, W, M, rel["Y"], method=method)
        assert chk["certified"] and chk["lower_bound"] > 0
        assert chk["lower_bound"] <= rel["lower_bound"] * (1 + 1e-9) + 1e-12


def test_fw_iterations_are_used_when_needed():
    # with unit-variance weights Y = M is not a certificate; the solver must iterate
    U, W, M = random_block(24, 96, 11)
    assert not check_linear_certificate(U, W, M, M)["certified"]
    rel = relaxation_certificate(U, W, M)
    assert rel["iterations"] > 0 and rel["certified"]
    assert rel["gap"] >= 0 and rel["objective"] > 0


def test_tampered_certificates_are_rejected():
    U, W, M = random_block(8, 32, 4)
    rel = relaxation_certificate(U, W, M)
    Y = rel["Y"]
    assert check_linear_certificate(U, W, M, Y)["certified"]
    assert not check_linear_certificate(U, W, M, -Y)["certified"]
    assert not check_linear_certificate(U, W, M, -Y, method="float")["certified"]
    # change one unit so that a_i = w_i^T Y u_i becomes hugely negative
    i = 0
    W2 = W.copy()
    a_i = W[:, i] @ Y @ U[i]
    W2[:, i] = -np.sign(a_i) * 1e6 * W[:, i] if a_i != 0 else 1e6 * (Y @ U[i])
    assert not check_linear_certificate(U, W2, M, Y)["certified"]
    # and transplant the certificate onto a block that really satisfies the condition
    rng = np.random.default_rng(4)
    Up, Wp, Mp, S = planted(8, 32, 10, rng)
    assert verify_index_set(Up, Wp, Mp, S)
    for method in ("exact", "float"):
        assert not check_linear_certificate(Up, Wp, Mp, Y, method=method)["certified"]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10 ** 6), m=st.integers(3, 8), d=st.integers(2, 3),
       scale=st.sampled_from([1.0, 0.3, 1e-3, 1e5]), diagonal=st.booleans())
def test_rigorous_bounds_are_lower_bounds(seed, m, d, scale, diagonal):
    rng = np.random.default_rng(seed)
    U = rng.standard_normal((m, d)) * scale
    W = rng.standard_normal((d, m))
    M = rng.standard_normal((d, d))
    Y = rng.standard_normal((d, d))
    if diagonal:  # exercises the diagonal fast path of the float checker
        Y = np.diag(np.diag(Y))
        M = np.diag(np.diag(M))
    Yf = fraction_array(Y)
    # exact minimum of <Y, A(s)> and of ||A(s)||_F^2 over all 0/1 s
    inner, dist2 = [], []
    for r in range(m + 1):
        for S in itertools.combinations(range(m), r):
            A = exact_A(U, W, M, S)
            inner.append(sum((a * y for a, y in zip(A.ravel(), Yf.ravel())), Fraction(0)))
            dist2.append(sum((a * a for a in A.ravel()), Fraction(0)))
    L_exact = min(inner)
    for method in ("float", "exact"):
        chk = check_linear_certificate(U, W, M, Y, method=method)
        assert Fraction(chk["lower_bound"]) <= L_exact
        assert chk["certified"] == (L_exact > 0) or (method == "float" and L_exact > 0)
        if chk["certified"]:
            d_lb = Fraction(chk["distance_lower_bound"])
            assert d_lb > 0 and d_lb * d_lb <= min(dist2)
    exact_chk = check_linear_certificate(U, W, M, Y, method="exact")
    assert Fraction(exact_chk["lower_bound_exact"]) == L_exact
    # the float bound is not loose either
    fl = check_linear_certificate(U, W, M, Y, method="float")["lower_bound"]
    assert abs(Fraction(fl) - L_exact) <= Fraction(1, 10 ** 9) * (1 + abs(L_exact))


# ----------------------------------------------------------------------------
# the combined driver and its certificates
# ----------------------------------------------------------------------------


def test_find_index_set_large_m_planted_uses_rounding():
    rng = np.random.default_rng(21)
    U, W, M, S = planted(6, 48, 8, rng)
    res = find_index_set(U, W, M, max_exhaustive=20, max_iter=3000, max_lattice=0)
    assert res.status == "found" and res.exact
    assert verify_index_set(U, W, M, res.S)
    assert "relaxation" in res.method


def test_find_index_set_none_certificate_is_rechecked_from_json():
    U, W, M = random_block(16, 64, 8)
    res = find_index_set(U, W, M)
    assert isinstance(res, SearchResult)
    assert res.status == "none" and res.exact and res.S is None
    blob = json.loads(json.dumps(res.certificate))
    Y = decode_matrix(blob["Y"])
    chk = check_linear_certificate(U, W, M, Y)
    assert chk["certified"] and chk["lower_bound"] == blob["lower_bound"]


def test_find_index_set_small_none_by_exhaustion():
    rng = np.random.default_rng(6)
    U = rng.integers(-2, 3, (12, 3)).astype(float)
    W = rng.integers(-2, 3, (3, 12)).astype(float)
    M = np.array([[0.5, 0, 0], [0, 1, 0], [0, 0, 1]])  # half-integer entry: unreachable
    res = find_index_set(U, W, M)
    assert res.status == "none" and res.exact and res.S is None
    assert brute_force(U[:8], W[:, :8], M) == []


def test_encode_decode_roundtrip_and_tamper_detection():
    a = np.random.default_rng(0).standard_normal((3, 4))
    enc = encode_matrix(a)
    assert np.array_equal(decode_matrix(enc), a)
    enc["sha256"] = "0" * 64
    with pytest.raises(ValueError):
        decode_matrix(enc)


def test_exhaustive_search_stops_at_the_limit_and_finds_all_without_one():
    """d = 1 with small integer weights has many index sets: with limit=k exactly k verified sets are
    returned (the search no longer verifies every match first); without a limit all of them, as many
    as a brute-force count over every subset."""
    from fractions import Fraction
    from itertools import product as _product

    rng = np.random.default_rng(4)
    m = 12
    U = rng.integers(1, 4, (m, 1)).astype(float)
    W = rng.integers(-3, 4, (1, m)) / 2.0
    M = np.array([[1.0]])
    brute = [S for S in (tuple(i for i, z in enumerate(bits) if z) for bits in _product((0, 1), repeat=m))
             if sum((Fraction(W[0, i]) * Fraction(U[i, 0]) for i in S), Fraction(0)) == -1]
    assert len(brute) > 3
    every = exhaustive_search(U, W, M)
    assert sorted(every) == sorted(brute)
    for k in (1, 3):
        some = exhaustive_search(U, W, M, limit=k)
        assert len(some) == k and all(verify_index_set(U, W, M, S) for S in some)
        assert set(some) <= set(brute)
