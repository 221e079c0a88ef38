"""Index-set search at every size (issue 20): the Gram solve, lattice reduction and their exact check.

Planted instances are exact in float64 (oracle.algebra.search.planted checks each with the exact
verifier); every "found" must come with an index set the exact multi-modular check accepts.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from oracle.algebra import search
from oracle.algebra.search import driver, gram, lattice, modular
from oracle.algebra.search.planted import planted_dyadic, planted_orthogonal


@pytest.mark.parametrize("d,m,seed", [(16, 64, 0), (32, 160, 1), (48, 192, 2)])
def test_gram_solve_finds_planted_set(d, m, seed):
    U, W, M, S = planted_orthogonal(d, m, seed=seed)
    res = search.find_index_set(U, W, M)
    assert res.status == "found" and res.exact
    assert "Gram" in res.method and res.certificate["found_by"] == "gram"
    assert tuple(res.S) == tuple(int(i) for i in S)
    assert search.verify_index_set(U, W, M, res.S)


def test_gram_solve_with_a_general_skip():
    d, m = 16, 80
    M = np.diag(np.arange(1.0, d + 1)) + np.eye(d, k=1) / 4
    U, W, Mm, S = planted_orthogonal(d, m, seed=3, M=M)
    res = search.find_index_set(U, W, Mm)
    assert res.status == "found" and "Gram" in res.method
    assert search.verify_index_set(U, W, Mm, res.S) and tuple(res.S) == tuple(int(i) for i in S)


def test_gram_sketch_and_full_agree_on_the_candidate():
    U, W, M, S = planted_orthogonal(64, 256, seed=4)
    units = np.arange(256)
    full = gram.gram_candidate(U, W, M, units, sketch=10 ** 9)
    sk = gram.gram_candidate(U, W, M, units, sketch=6)
    assert full["sketch"] is None and sk["sketch"] is not None and sk["sketch"] < 64
    assert full["S"] == sk["S"] == tuple(int(i) for i in S)
    assert full["max_deviation"] < 1e-3 and sk["max_deviation"] < 1e-3


@pytest.fixture
def no_lattice_time_limit(monkeypatch):
    """The reduction's wall-clock limit protects absorb check; tests must not depend on the machine's load."""
    monkeypatch.setattr(lattice, "TIME_LIMIT", math.inf)


@pytest.mark.parametrize("d,m,seed", [(3, 48, 0), (3, 60, 1), (4, 64, 2)])
def test_lattice_finds_planted_set_beyond_d_squared(d, m, seed, no_lattice_time_limit):
    U, W, M, S = planted_dyadic(d, m, seed=seed)
    assert m > d * d  # the Gram matrix is singular: only the lattice can help
    res = search.find_index_set(U, W, M)
    assert res.status == "found" and res.exact
    assert "lattice" in res.method and res.certificate["found_by"] == "lattice"
    assert search.verify_index_set(U, W, M, res.S)


def test_near_miss_is_not_reported_absorbable():
    U, W, M, S = planted_orthogonal(16, 64, seed=5)
    W = W.copy()
    W[3, S[0]] += 2.0 ** -30  # exact in float64; W_S U_S + M is now 2^-30 u_S0 in one row
    g = gram.gram_candidate(U, W, M, np.arange(64))
    assert g["S"] == tuple(int(i) for i in S)  # the float candidate is still S ...
    assert driver._float_screen(U, W, M, g["S"])  # ... and passes the float64 screen ...
    assert not search.verify_index_set(U, W, M, g["S"])  # ... but not the exact check
    res = search.find_index_set(U, W, M)
    assert res.status != "found"


def test_near_miss_block_is_not_absorbable_in_absorb_check():
    from oracle.core.blocks import Block
    from oracle.decide import decide

    U, W, M, S = planted_orthogonal(16, 64, seed=6)
    W2 = W.copy()
    W2[0, S[1]] -= 2.0 ** -30
    exact = decide(Block("gelu", U, W))
    near = decide(Block("gelu", U, W2))
    assert exact.verdict == "absorbable" and exact.exact
    assert near.verdict != "absorbable"


def _triplicated(seed: int = 7):
    """d = 3, m = 9 <= d^2 with one planted unit present three times: a singular Gram matrix."""
    U, W, M, S = planted_dyadic(3, 7, k=4, seed=seed)
    i = int(S[0])
    U = np.vstack([U, U[i], U[i]])
    W = np.hstack([W, W[:, [i]], W[:, [i]]])
    return U, W, M, S


def test_singular_gram_falls_through_to_the_lattice(no_lattice_time_limit):
    U, W, M, S = _triplicated()
    m = U.shape[0]
    assert m <= 9
    g = gram.gram_candidate(U, W, M, np.arange(m))
    # s_i + s_j + s_k = 1 has no unique real solution: the candidate is not an index set
    assert g["S"] is None or not search.verify_index_set(U, W, M, g["S"])
    res = search.find_index_set(U, W, M, max_exhaustive=0)
    assert res.status == "found" and "lattice" in res.method
    assert search.verify_index_set(U, W, M, res.S)
    assert "gram" in res.certificate  # the Gram solve was tried first


def test_lying_candidates_are_refused(monkeypatch):
    U, W, M, S = planted_orthogonal(16, 64, seed=8)
    wrong = tuple(int(i) for i in S[1:])  # one unit short of the planted set
    x = np.zeros(64)
    x[S] = 1.0  # a real solution, so that the driver goes on to the (lying) lattice
    monkeypatch.setattr(driver, "gram_candidate",
                        lambda *a, **k: {"S": wrong, "x": x, "iterations": 0, "relative_residual": 0.0,
                                         "max_deviation": 0.0, "form": "lie", "sketch": None, "time": 0.0})
    monkeypatch.setattr(driver, "lattice_candidates",
                        lambda *a, **k: {"candidates": [wrong, (0, 1, 2)], "attempted": True,
                                         "dimension": 65, "constraints": 256, "time": 0.0, "note": "lie"})
    monkeypatch.setattr(driver, "_float_screen", lambda *a: True)  # only the exact check stands
    res = search.find_index_set(U, W, M)
    assert res.S != wrong and res.S != (0, 1, 2)
    assert res.certificate["gram"]["real_solution"] and "lattice" in res.certificate  # both lies were read
    if res.status == "found":  # the relaxation may still find the true set; then it is exact
        assert search.verify_index_set(U, W, M, res.S)


def test_lattice_reads_no_candidate_from_a_random_block(no_lattice_time_limit):
    rng = np.random.default_rng(9)
    U = np.round(rng.standard_normal((40, 3)) * 2 ** 12) / 2 ** 12
    W = np.round(rng.standard_normal((3, 40)) * 2 ** 12) / 2 ** 12
    lat = lattice.lattice_candidates(U, W, np.eye(3), np.arange(40))
    assert lat["attempted"]
    assert not any(search.verify_index_set(U, W, np.eye(3), c) for c in lat["candidates"])


def test_modular_bound_still_uses_enough_primes():
    # W U + M equals p E_00 for the first prime p the verifier uses: zero modulo p, not zero
    rng = np.random.default_rng(10)
    U = rng.integers(-3, 4, (5, 4)).astype(float)
    W = rng.integers(-3, 4, (4, 5)).astype(float)
    pmax = min(int(np.sqrt((2 ** 53 - 2 ** 27) // 5)), 2 ** 31 - 1)
    p = next(modular._primes_below(pmax))
    M = -(W @ U)
    assert search.verify_index_set(U, W, M, range(5))
    M[0, 0] += p
    assert not search.verify_index_set(U, W, M, range(5))


def test_direct_residues_match_the_exponent_tables():
    rng = np.random.default_rng(11)
    a = np.ldexp(rng.integers(-2 ** 20, 2 ** 20, (6, 7)).astype(float), rng.integers(-8, 4, (6, 7)))
    D = modular.Dyadic(a)
    p = 2147483629
    assert D.max_abs_int(D.scale) < 2 ** 53  # the direct (fmod) path
    exact = np.array([[int(v) % p for v in row] for row in D.python_ints(D.scale)], dtype=np.int64)
    assert np.array_equal(D.residues(p, D.scale), exact)
    big = modular.Dyadic(np.ldexp(a, 60))  # integers beyond 2^53: the table path
    s = big.scale + 40
    assert big.max_abs_int(s) >= 2 ** 53
    exact_big = np.array([[int(v) % p for v in row] for row in big.python_ints(s)], dtype=np.int64)
    assert np.array_equal(big.residues(p, s), exact_big)


def test_relu_class_construction_is_compared_when_it_is_the_emitted_block(monkeypatch):
    """The class construction is compared (exact canonical forms); the sign flip of a verified S is not."""
    from oracle.core.blocks import Block
    from oracle.decide import block as blk

    U, W, M, S = planted_orthogonal(16, 64, seed=12)
    v = blk.decide(Block("relu", U, W))
    assert v.verdict == "absorbable" and v.exact and v.certificate["S"] == [int(i) for i in S]
    # the flip of an exactly verified S is the proved construction: not compared, and says so
    rec = v.certificate["emitted_block"]
    assert rec["check"].startswith("not compared: the emitted block is the proved construction")
    assert rec["rests_on"]["theorem"] == "SkipAbsorption.Limit.biased_sign_flip"
    assert "SkipAbsorption.Limit.biased_sign_flip" in v.reason
    from oracle.algebra.canonical import compare_blocks
    assert compare_blocks(Block("relu", U, W), v.plain).equal is True  # and it is equal (exact, here)
    assert blk.recheck_certificate(Block("relu", U, W), v.certificate)
    # the class search ran on the block's own numbers (one class per unit): its exact check is reused
    assert v.certificate["class_problem_is_unit_problem"] is True
    import copy
    bad = copy.deepcopy(v.certificate)
    bad["S"] = bad["S"][1:]  # the re-check verifies the unit index condition itself
    assert not blk.recheck_certificate(Block("relu", U, W), bad)
    monkeypatch.setattr(blk, "_unit_flip", lambda *a, **k: None)  # no flip: the class block is emitted
    v2 = blk.decide(Block("relu", U, W))
    assert v2.verdict == "absorbable" and v2.plain is not None
    assert v2.certificate["emitted_block"]["check"].startswith("equal to the residual block")


def test_lattice_time_limit_stops_the_reduction(monkeypatch):
    monkeypatch.setattr(lattice, "TIME_LIMIT", 0.0)  # the child cannot finish in no time
    U, W, M, S = planted_dyadic(3, 48, seed=0)
    lat = lattice.lattice_candidates(U, W, M, np.arange(48))
    assert lat["attempted"] and lat["candidates"] == [] and "not finished" in lat["note"]


@pytest.mark.parametrize("e", [500, -500])
def test_extreme_exponents_are_balanced_before_the_float_solves(e, no_lattice_time_limit):
    # W_up 2^e and W_down 2^-e keep every product w_i u_i^T, but float64 Gram entries of the raw
    # weights would overflow or vanish; both constructions rescale by exact powers of two first
    U, W, M, S = planted_orthogonal(32, 128, seed=1)
    U2, W2 = np.ldexp(U, e), np.ldexp(W, -e)
    res = search.find_index_set(U2, W2, M)
    assert res.status == "found" and "Gram" in res.method and search.verify_index_set(U2, W2, M, res.S)
    U, W, M, S = planted_dyadic(3, 48)
    U2, W2 = np.ldexp(U, e // 2), np.ldexp(W, -(e // 2))
    res = search.find_index_set(U2, W2, M)
    assert res.status == "found" and "lattice" in res.method and search.verify_index_set(U2, W2, M, res.S)
