"""absorption-width and depth-width decide their bias_free hypothesis themselves (issue 29, referee F5).

The boundary instance of the registry: d = m = 1, u = 1, b_up = 1, w = 1, M = 1, i.e.
F(x) = x + relu(x + 1) = 2 relu(x + 1) - relu(-x - 1) - 1 with F(0) = 1, so no bias-free block
equals F.  The checks used to read only W_up, W_down and M, drop b_up and report holds = True; they
must report that the hypothesis fails instead.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from oracle.claims import absorption_width as aw
from oracle.claims import depth_stacks as ds
from oracle.core.blocks import Block, Stack


def _boundary(**bias) -> Block:
    return Block("relu", W_up=np.array([[1.0]]), W_down=np.array([[1.0]]), M=np.array([[1.0]]), **bias)


def test_absorption_width_refuses_the_biased_boundary_instance():
    c = aw.check(aw.WidthInstance(_boundary(b_up=np.array([1.0])), [[Fraction(1, 3)]]))
    assert c.holds is False
    assert c.data["hypotheses"] == {"bias_free": False} and c.data["biases"] == ["b_up"]
    assert "hypothesis fails: bias_free" in c.reason
    assert aw.recheck(c.as_dict()) is False
    c = aw.check(aw.WidthInstance(_boundary(b_down=np.array([2.0 ** -1074])), [[Fraction(1, 3)]]))
    assert c.holds is False and c.data["biases"] == ["b_down"]


def test_absorption_width_still_holds_without_the_bias():
    for bias in ({}, {"b_up": np.array([0.0])}):  # a zero bias vector is bias-free
        c = aw.check(aw.WidthInstance(_boundary(**bias), [[Fraction(1, 3)]]))
        assert c.holds is True, c.reason
        assert aw.recheck(c.as_dict()) is True


def test_depth_width_refuses_a_biased_stack():
    blk = Block("relu", W_up=np.array([[1.0]]), W_down=np.array([[1.0]]))
    biased = Block("relu", W_up=np.array([[1.0]]), W_down=np.array([[1.0]]), b_up=np.array([1.0]))
    c = ds.check_width(Stack([blk, biased]))
    assert c.holds is False and "hypothesis fails: bias_free" in c.reason
    assert c.data["biases"] == ["block 1: b_up"]
    c = ds.check_width(Stack([blk, blk]))
    assert c.holds is True, c.reason
