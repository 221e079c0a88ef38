"""The relu part of proofs/informal/open-problem.md, item 2 of 'what remains': an open set of folded
d = 2 stacks where the dimension count of depth-dimension is provably silent (two dead units)."""

from fractions import Fraction as Q

from oracle.algebra.stacks import layers as sl
from oracle.algebra.stacks import planar as sp
from oracle.algebra.stacks import rank as srank
from oracle.algebra.stacks import near_identity as sni
from oracle.algebra.stacks.narrow import narrow_conditions

U1 = [[Q(1), Q(1, 10)], [Q(-1), Q(1, 10)], [Q(1, 10), Q(1)], [Q(1, 10), Q(-1)]]
W1 = [[Q(1), Q(3), Q(0), Q(0)], [Q(0), Q(0), Q(1), Q(3)]]
U2 = [[Q(1), Q(-2, 3)], [Q(-1, 2), Q(1)], [Q(-1), Q(-1)], [Q(-2), Q(-1, 2)]]
W2 = [[Q(1, 5), Q(-1, 7), Q(1, 3), Q(1, 6)], [Q(1, 9), Q(1, 4), Q(-1, 2), Q(1, 8)]]
LAYERS = [(U1, W1), (U2, W2)]


def test_two_units_are_dead_on_the_whole_image():
    # x + B_1(x) is linear on each sector between consecutive candidate rays (angles < pi), so its
    # image is the union of the cones spanned by the images of consecutive rays: a strict sign at
    # the images of all rays is a strict sign on the whole image (and survives small perturbations).
    rays = sp.candidate_rays(LAYERS[:1], True)
    images = [sl.apply_layer(LAYERS[0], r, True) for r in rays]
    for j in (2, 3):
        assert all(sum(a * b for a, b in zip(U2[j], y)) < 0 for y in images)
    assert any(sum(a * b for a, b in zip(U2[0], y)) > 0 for y in images)   # unit 0 is alive


def test_rank_stays_at_or_below_d_plain():
    rc = srank.rank_certificate(LAYERS, seed=3)
    # N = 32 weights, m = 8 rescalings, 2 dead units each freeing 2d - 1 = 3 more directions: 18
    assert rc["N_minus_m"] == 24 and rc["rank"] == 18 and rc["D_plain"] == 20 and not rc["certified"]


def test_no_other_claim_decides_it():
    assert not narrow_conditions(LAYERS, [4, 4])["applies"]
    assert not sni.near_identity_conditions(LAYERS)["applies"]       # d = 2 and the first block is not near I
    assert not sp.homeo_certificate(U1, W1)["ok"]                   # the first block folds the plane
    assert not sp.d2_conditions(LAYERS)["applies"]
