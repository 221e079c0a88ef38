"""Canonical forms (oracle/algebra/canonical.py): exact grouping, exact product tests, and equality of blocks
as functions decided from the forms (relu-complete Lemma 1; relu-limit Lemma T)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle.core import strategies as S
from oracle.core.blocks import Block
from oracle.algebra.canonical import (
    compare_blocks, exact_ratio, group_rows, odd_form, products_equal, relu_form,
    relu_function_equal, scaled_equal
)


def _fr(a):
    return [Fraction(float(v)) for v in np.ravel(a)]


def test_products_equal_matches_fractions_on_extreme_values() -> None:
    rng = np.random.default_rng(3)
    n = 4000
    a = rng.standard_normal(n) * 2.0 ** rng.integers(-700, 700, n)
    b = rng.standard_normal(n) * 2.0 ** rng.integers(-700, 700, n)
    a[::17] = 0.0
    b[::23] = 5e-324 * 7  # subnormal
    k = rng.integers(-3, 4, n)
    c, e = a * 2.0 ** k, b / 2.0 ** k
    e[::2] = np.nextafter(e[::2], np.inf)
    got = products_equal(a, b, c, e)
    want = [x * y == z * w for x, y, z, w in zip(_fr(a), _fr(b), _fr(c), _fr(e))]
    assert got.tolist() == want
    assert 0 < sum(want) < n  # both outcomes occur
    q, ok = exact_ratio(np.array([3.0, 1.0, 6.0]), np.array([1.5, 3.0, 4.0]))
    assert ok.tolist() == [True, False, True] and q[0] == 2.0 and q[2] == 1.5
    assert scaled_equal(np.array([1 / 3]), np.array([3.0]), np.array([1.0])).tolist() == [False]


def test_float_key_collision_is_settled_exactly() -> None:
    # rows (1, x) and (3, y) with fl(y / 3) == x but y != 3 x exactly: not the same hyperplane
    x, y = next((x, y) for x in (k / 1000 for k in range(1, 1000)) for y in (3 * x,)
                if y / 3 == x and Fraction(y) != 3 * Fraction(x))
    rows = np.array([[1.0, x, 0.0], [3.0, y, 0.0], [2.0, 2 * x, 0.0], [-4.0, -4 * x, 0.0]])
    g = group_rows(rows, "scale")
    assert g.class_of[0] == g.class_of[2] == g.class_of[3] != g.class_of[1]
    assert g.n_classes == 2
    gs = group_rows(rows, "sign")
    assert gs.n_classes == 4  # scale matters for the odd family


@st.composite
def _relu_pair(draw):
    """A relu block and a copy whose units are permuted, rescaled by powers of two, sign-flipped
    (with the exact compensation in M) or duplicated; `equal` says whether it is the same function."""
    b = draw(S.blocks("relu", max_d=3, max_m=5, bias=draw(st.booleans()), skip="none"))
    m, d = b.m, b.d
    perm = draw(st.permutations(range(m)))
    scale = np.array([2.0 ** draw(st.integers(-2, 2)) for _ in range(m)])
    U = b.W_up[perm] * scale[:, None]
    W = b.W_down[:, perm] / scale[None, :]
    bu = None if b.b_up is None else b.b_up[perm] * scale
    P = Block("relu", W_up=U, W_down=W, b_up=bu, b_down=b.b_down, kind="plain")
    mode = draw(st.sampled_from(["same", "perturb", "flip"]))
    if mode == "perturb":
        k = draw(st.integers(0, d - 1))
        Wp = W.copy()
        Wp[k, 0] += 0.25
        return b, Block("relu", W_up=U, W_down=Wp, b_up=bu, b_down=b.b_down, kind="plain"), None
    if mode == "flip":
        # flip unit 0 of P: relu(-z) = relu(z) - z, so with b_down += w_0 c_0 the flipped block
        # is P(x) - w_0 u_0 . x, i.e. the residual block with M = -w_0 u_0^T
        U2 = U.copy()
        U2[0] = -U2[0]
        bu2 = None if bu is None else bu.copy()
        bd = np.zeros(d) if b.b_down is None else b.b_down.copy()
        if bu2 is not None:
            bu2[0] = -bu2[0]
            bd = bd + W[:, 0] * bu[0]  # exact for these small dyadic weights
        R = Block("relu", W_up=b.W_up, W_down=b.W_down, b_up=b.b_up, b_down=b.b_down,
                  M=-np.outer(W[:, 0], U[0]))
        return R, Block("relu", W_up=U2, W_down=W, b_up=bu2, b_down=bd, kind="plain"), True
    return b, P, True


@settings(max_examples=60, deadline=None)
@given(_relu_pair())
def test_relu_comparison_agrees_with_exact_forms_and_points(pair) -> None:
    """relu-complete Lemma 1 in action: equal canonical forms <=> equal functions."""
    R, P, expected = pair
    c = compare_blocks(R, P)
    same, _ = relu_function_equal(relu_form(R), relu_form(P))
    assert c.exact and c.equal == same
    if expected is not None:
        assert c.equal is expected
    rng = np.random.default_rng(0)
    pts = [[Fraction(int(v), 4) for v in rng.integers(-12, 13, R.d)] for _ in range(12)]
    if c.equal:
        assert all(R.evaluate(x, "exact") == P.evaluate(x, "exact") for x in pts)


@pytest.mark.parametrize("act", ["gelu", "gelu_tanh", "silu"])
def test_odd_family_comparison(act: str) -> None:
    """Classes +-(u, c): a flipped unit is compensated by its affine map; scale is not free."""
    U = np.array([[1.0, 2.0], [0.5, -1.0], [0.0, 0.0]])
    W = np.array([[1.0, -2.0, 3.0], [0.5, 1.0, -1.0]])
    bu = np.array([1.0, -0.5, -2.0])  # the third unit is a constant w s(-2)
    R = Block(act, W_up=U, W_down=W, b_up=bu, M=np.zeros((2, 2)))
    # flip unit 0 and correct b_down and M: s(-h) = s(h) - h
    U2, bu2 = U.copy(), bu.copy()
    U2[0], bu2[0] = -U2[0], -bu2[0]
    P = Block(act, W_up=U2, W_down=W, b_up=bu2, b_down=W[:, 0] * bu[0], M=np.outer(W[:, 0], U[0]))
    assert compare_blocks(R, P).equal is True
    form = odd_form(P)
    assert [c.eps for c in form.classes if 0 in c.units] == [[-1]]
    # rescaling a unit by 2 changes the function for these activations
    U3, W3 = U.copy(), W.copy()
    U3[1] *= 2.0
    W3[:, 1] /= 2.0
    Q = Block(act, W_up=U3, W_down=W3, b_up=bu * np.array([1.0, 2.0, 1.0]), M=np.zeros((2, 2)))
    c = compare_blocks(R, Q)
    assert c.equal is False and c.exact
    # zero-row constants s(-2) and s(2) - 2 agree exactly
    Z = Block(act, W_up=U, W_down=W, b_up=np.array([1.0, -0.5, 2.0]),
              b_down=-2.0 * W[:, 2], M=np.zeros((2, 2)))
    assert compare_blocks(R, Z).equal is True
    # a different constant coefficient is settled by balls
    Z2 = Block(act, W_up=U, W_down=W * np.array([1.0, 1.0, 2.0]), b_up=bu, M=np.zeros((2, 2)))
    c2 = compare_blocks(R, Z2)
    assert c2.equal is False and "balls" in c2.detail["affine_check"]


def test_relu_form_boundary_cases() -> None:
    """Zero rows, opposite orientations in one class, alpha = 0 classes, biases on one side."""
    U = np.array([[1.0, 1.0], [-2.0, -2.0], [0.0, 0.0], [1.0, -1.0]])
    W = np.array([[2.0, 1.0, 4.0, 0.0], [0.0, 0.0, 1.0, 0.0]])
    bu = np.array([1.0, -2.0, 3.0, 0.0])
    f = relu_form(Block("relu", W_up=U, W_down=W, b_up=bu))
    cls = {tuple(c.units): c for c in f.classes}
    c01 = cls[(0, 1)]
    assert c01.u == [1, 1] and c01.b == 1 and c01.lam == [1, -2]
    assert c01.alpha == [Fraction(2), Fraction(0)]  # (|1| 2 + |-2| 1) / 2 = 2
    assert not cls[(3,)].active  # zero output column: alpha = 0
    assert f.zero_units == [2]
    assert f.const == [Fraction(1 * 2 + (-2) * 1, 2) + 3 * 4, Fraction(3)]
    assert [c.units for c in f.active] == [[0, 1]]
