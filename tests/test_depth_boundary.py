"""Boundary instances of the depth claims (depth-narrow, depth-d2, depth-dimension, depth-width):
each drops one hypothesis and the conclusion really fails, verified exactly."""

import copy
import json

import pytest

from oracle.claims import boundary
from oracle.claims import depth_boundary as db
from oracle.algebra.stacks import layers as sl
from oracle.claims import load
from oracle.formal.consistency import load_registry

EXPECTED = {
    "narrow_singular_piece": ("pieces_invertible", "depth-narrow"),
    "narrow_d1_fold": ("nondegenerate", "depth-narrow"),
    "d2_folded_dead_unit": ("homeomorphic_blocks", "depth-d2"),
    "dimension_d1": ("rank_certified", "depth-dimension"),
    "width_rank_deficient": ("rows_span", "depth-width"),
}


@pytest.mark.parametrize("fn", db.DEPTH_BOUNDARY, ids=lambda f: f.__name__)
def test_registered_verified_and_rechecked(fn):
    assert fn in load().counterexamples
    dropped, claim = EXPECTED[fn.__name__]
    info = fn.counterexample_info
    assert info.dropped == dropped and info.claims == (claim,)
    tags = {c["id"]: c["hypotheses"] for c in load_registry()}
    assert dropped in tags[claim]
    cert = fn()
    assert cert.holds and cert.exact
    assert db.recheck_depth_counterexample(json.loads(json.dumps(cert.as_dict())))


def test_fold_has_fewer_kinks_and_one_index_set():
    cert = db.d2_folded_dead_unit()
    assert cert.data["kink_rays"] == 4 < cert.data["expected_if_generic"] == 10
    assert cert.data["index_sets"] == [[[0, 1]], []]


def test_d1_fold_is_4_abs_x():
    res, plain = db.d1_fold_stacks()
    for t in range(-5, 6):
        x = [db.Q(t, 3)]
        assert sl.eval_stack(res, x, True) == sl.eval_stack(plain, x, False) == [4 * abs(x[0])]


@pytest.mark.parametrize("fn", [db.narrow_singular_piece, db.narrow_d1_fold, db.d2_folded_dead_unit,
                                db.dimension_d1], ids=lambda f: f.__name__)
def test_tampered_plain_stack_is_rejected(fn):
    good = json.loads(json.dumps(fn().as_dict()))
    bad = copy.deepcopy(good)
    bad["data"]["plain"][-1]["W_down"][0][0] = "99"
    assert not db.recheck_depth_counterexample(bad)


def test_tampered_width_instance_is_rejected():
    good = json.loads(json.dumps(db.width_rank_deficient().as_dict()))
    bad = copy.deepcopy(good)
    bad["data"]["W_up"][2] = ["0", "0", "1"]       # rank 3: the width bound max(m + d, 2d) holds again
    assert not db.recheck_depth_counterexample(bad)
    assert not db.recheck_depth_counterexample({"data": {"kind": "unknown"}})
