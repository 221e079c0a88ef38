"""The strategies deliver what they promise, checked independently in exact arithmetic."""

from fractions import Fraction
from itertools import combinations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle.core.strategies import (
    condition_blocks, degenerate_blocks, integer_inverse, nondegenerate_blocks, unimodular
)


def q(a):
    return [[Fraction(float(v)) for v in row] for row in np.atleast_2d(a)]


def collinear(u, v):
    # Exact: all 2x2 minors of the pair vanish.
    return all(u[i] * v[j] - u[j] * v[i] == 0 for i in range(len(u)) for j in range(len(u)))


@settings(max_examples=100)
@given(b=nondegenerate_blocks())
def test_nondegenerate_blocks_are_nondegenerate(b):
    up, down = q(b.W_up), q(b.W_down)
    assert all(any(v != 0 for v in row) for row in up)
    assert all(any(down[i][j] != 0 for i in range(b.d)) for j in range(b.m))
    assert not any(collinear(up[i], up[j]) for i, j in combinations(range(b.m), 2))


@settings(max_examples=100)
@given(inst=degenerate_blocks())
def test_degenerate_blocks_have_their_defect(inst):
    b, defect = inst
    up, down = q(b.W_up), q(b.W_down)
    if defect == "zero_row":
        assert any(all(v == 0 for v in row) for row in up)
    elif defect == "collinear_rows":
        assert any(collinear(up[i], up[j]) for i, j in combinations(range(b.m), 2))
    else:
        assert any(all(down[i][j] == 0 for i in range(b.d)) for j in range(b.m))


@settings(max_examples=100)
@given(d=st.integers(1, 5), data=st.data())
def test_unimodular_matrices_have_integer_inverses(d, data):
    a = data.draw(unimodular(d))
    inv = integer_inverse(a)
    assert np.array_equal(a @ inv, np.eye(d, dtype=np.int64))


@settings(max_examples=100)
@given(extra=st.integers(0, 2), skip=st.sampled_from(["identity", "invertible"]),
       act=st.sampled_from(["relu", "gelu", "glu"]), data=st.data())
def test_condition_blocks_satisfy_the_condition_exactly(extra, skip, act, data):
    inst = data.draw(condition_blocks(activation=act, extra=extra, skip=skip))
    b, S = inst.block, inst.S
    assert len(S) == b.d + extra
    up, down = q(b.W_up), q(b.W_down)
    M = q(b.skip())
    for i in range(b.d):
        for j in range(b.d):
            assert sum(down[i][k] * up[k][j] for k in S) == -M[i][j]
    if skip == "invertible":
        assert round(abs(np.linalg.det(b.skip()))) == 1
