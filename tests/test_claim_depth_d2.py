"""Tests for claim depth-d2: d = 2, two homeomorphic blocks, kink-ray counting."""

import copy
import json
from fractions import Fraction as Q

from oracle.claims.base import run_check
from oracle.claims import depth_stacks as ds
from oracle.algebra.stacks import layers as sl
from oracle.algebra.stacks import planar as sp

# A near-identity pair of nondegenerate blocks (|W| |U| < 1), widths (3, 2).
LAYERS = [([[Q(1), Q(0)], [Q(0), Q(1)], [Q(1), Q(2)]], [[Q(1, 8), Q(-1, 16), Q(1, 32)], [Q(1, 16), Q(1, 8), Q(-1, 32)]]),
          ([[Q(2), Q(-1)], [Q(1), Q(3)]], [[Q(1, 16), Q(-1, 32)], [Q(1, 32), Q(1, 16)]])]


def _json(cert):
    return json.loads(json.dumps(cert.as_dict()))


def test_run_check_passes_exactly():
    res = run_check(ds.check_d2, 20)
    assert res.claim == "depth-d2" and res.passed and res.instances == 20 and res.exact_instances == 20


def test_kink_rays_of_F_are_counted_exactly():
    cond = sp.d2_conditions(LAYERS)
    assert cond["applies"] and cond["kink_rays"] == cond["expected_kink_rays"] == 10
    assert cond["index_sets"] == [[], []]
    # Each layer-2 ray rho satisfies u2_j . G(rho) = 0 exactly, and G(rho) points along +-J u2_j.
    G = lambda x: sl.apply_layer(LAYERS[0], x, True)  # noqa: E731
    rays = [[Q(v) for v in r] for r in cond["layer2_rays"]]
    targets = [s for u in LAYERS[1][0] for s in (sp.rot90(u), [-v for v in sp.rot90(u)])]
    assert all(sp.same_ray(G(r), s) for r, s in zip(rays, targets))
    # The kink rays found by the generic ray machinery are the layer-1 and layer-2 rays.
    kinks = sp.kink_rays(LAYERS, True)
    l1 = [[Q(v) for v in r] for r in cond["layer1_rays"]]
    assert len(kinks) == 10 and all(any(sp.same_ray(k, r) for k in kinks) for r in l1 + rays)


def test_refutes_a_candidate_plain_stack():
    cand = [([[Q(1), Q(0)], [Q(0), Q(1)], [Q(1), Q(1)]], [[Q(1), Q(0), Q(1)], [Q(0), Q(1), Q(-1)]]),
            ([[Q(1), Q(1)], [Q(-1), Q(1)]], [[Q(1), Q(0)], [Q(0), Q(1)]])]
    cert = ds.check_d2(ds.StackInstance(LAYERS, [3, 2], cand, 5))
    assert cert.holds and cert.exact and not cert.data["plain_same_widths"]
    x = [Q(v) for v in cert.data["difference"]["x"]]
    assert sl.eval_stack(LAYERS, x, True) != sl.eval_stack(cand, x, False)
    assert ds.recheck_d2(_json(cert))


def test_winding_certificate():
    I2 = [[Q(1), Q(0)], [Q(0), Q(1)]]
    # x + 3 relu(x) coordinatewise: pieces diag(1 or 4), a homeomorphism with degree 1.
    h = sp.homeomorphism_2d(I2, [[Q(3), Q(0)], [Q(0), Q(3)]])
    assert h["ok"] and h["degree"] == 1 and h["orientation"] == 1
    # x - 2 relu(x) = -|x| coordinatewise: a fold (orientation changes).
    fold = sp.homeomorphism_2d(I2, [[Q(-2), Q(0)], [Q(0), Q(-2)]])
    assert not fold["ok"]
    # x - relu(x) = -relu(-x): a zero piece.
    flat = sp.homeomorphism_2d(I2, [[Q(-1), Q(0)], [Q(0), Q(-1)]])
    assert not flat["ok"]
    # Orientation-reversing homeomorphism: x - 2 x (all units always active would be linear);
    # here x -> x - 3 relu(x_1) e1 - 3 relu(-x_1) e1 = (-2 x_1, x_2): pieces diag(-2, 1).
    rev = sp.homeomorphism_2d([[Q(1), Q(0)], [Q(-1), Q(0)]], [[Q(-3), Q(3)], [Q(0), Q(0)]])
    assert rev["ok"] and rev["orientation"] == -1


def test_h3_failure_when_a_layer2_line_is_a_layer1_line():
    # m_1 = 1: on the line u1^perp the first block is the identity, so u2 = u1 sends it onto a
    # kink line of block 2 and the kink rays coincide.
    L = [([[Q(1), Q(2)]], [[Q(1, 8)], [Q(1, 16)]]), ([[Q(1), Q(2)], [Q(0), Q(1)]], [[Q(1, 16), Q(0)], [Q(0), Q(1, 16)]])]
    cond = sp.d2_conditions(L)
    assert cond["h3_layer1_images_off_layer2_lines"] is False and not cond["applies"]
    assert not ds.check_d2(ds.StackInstance(L, [1, 2])).holds


def test_tampered_certificates_are_rejected():
    good = _json(ds.check_d2(ds.StackInstance(LAYERS, [3, 2], None)))
    assert good["holds"] and ds.recheck_d2(good)
    for path, value in ((("conditions", "kink_rays"), 9), (("conditions", "h4_no_antipodal_layer2_rays"), False),
                        (("conditions", "layer2_rays"), []), (("plain_same_widths",), True)):
        bad = copy.deepcopy(good)
        node = bad["data"]
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
        assert not ds.recheck_d2(bad), path
    w = copy.deepcopy(good)
    w["data"]["residual"][1]["W_up"][0] = ["1", "0"]
    assert not ds.recheck_d2(w)
    assert not ds.recheck_d2({**good, "claim": "depth-narrow"})
