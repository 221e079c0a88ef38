"""Tests for claim depth-dimension: the exact Jacobian rank certificate and the dimension count."""

import copy
import json
from fractions import Fraction as Q

import numpy as np
import pytest

from oracle.claims.base import run_check
from oracle.claims import depth_stacks as ds
from oracle.claims import depth_boundary as db
from oracle.algebra.stacks import rank as srank

LAYERS = [([[Q(1), Q(0)], [Q(0), Q(1)], [Q(1), Q(2)]], [[Q(1, 8), Q(-1, 16), Q(1, 32)], [Q(1, 16), Q(1, 8), Q(-1, 32)]]),
          ([[Q(2), Q(-1)], [Q(1), Q(3)], [Q(-1), Q(1)]], [[Q(1, 16), Q(-1, 32), Q(1, 8)], [Q(1, 32), Q(1, 16), Q(1, 64)]])]


def _json(cert):
    return json.loads(json.dumps(cert.as_dict()))


def test_run_check_passes_exactly():
    res = run_check(ds.check_dimension, 20)
    assert res.claim == "depth-dimension" and res.passed and res.instances == 20 and res.exact_instances == 20


@pytest.mark.parametrize("d,widths,D_plain,gaps", [
    (2, [3, 3], 14, [4]),          # both widths >= d: delta = d^2
    (3, [4, 4], 31, [9]),
    (2, [3], 9, []),               # L = 1: no junction, D_plain = N - m
    (3, [1, 5], 17, [13]),         # one width below d: delta = d^2 + (d - 1)(5 - d) = 13 > d^2
    (3, [1, 2], 8, [7]),           # both below d: delta = d^2 - (d - 1)(d - 2) = 7 < d^2
    (2, [3, 3, 3], 19, [4, 4]),
])
def test_dimension_count(d, widths, D_plain, gaps):
    assert srank.plain_dimension(d, widths) == D_plain
    assert srank.junction_gaps(d, widths) == gaps
    N, m = 2 * d * sum(widths), sum(widths)
    assert N - m - D_plain == sum(gaps)


def test_certificate_for_widths_3_3():
    cert = ds.check_dimension(ds.StackInstance(LAYERS, seed=2))
    rc = cert.data["rank"]
    assert cert.holds and rc["rank"] == rc["N_minus_m"] == 18 and rc["D_plain"] == 14
    # the count excludes plain widths (3, 3) but is silent from (4, 4) on (D_plain = 20 >= 18)
    assert rc["excluded_added_widths"] == [0]
    assert all(p is not None for p in rc["patterns"])
    assert ds.recheck_dimension(_json(cert))


def test_jacobian_matches_finite_differences():
    d, widths = 2, [3, 3]
    flat = np.concatenate([np.concatenate([np.array(U, float).ravel(), np.array(W, float).ravel()]) for U, W in LAYERS])

    def F(th, x):
        k, y = 0, np.array(x, float)
        for m in widths:
            U = th[k:k + m * d].reshape(m, d); k += m * d
            W = th[k:k + d * m].reshape(d, m); k += d * m
            y = y + W @ np.maximum(U @ y, 0)
        return y
    for x in ([Q(3, 2), Q(-5, 7)], [Q(-2), Q(-1, 3)], [Q(4), Q(9, 5)]):
        assert srank.patterns_at(LAYERS, x) is not None
        J = np.array([[float(v) for v in row] for row in srank.jacobian_rows(LAYERS, x)])
        xf = [float(v) for v in x]
        Jn = np.array([(F(flat + 1e-7 * e, xf) - F(flat - 1e-7 * e, xf)) / 2e-7 for e in np.eye(flat.size)]).T
        assert np.max(np.abs(J - Jn)) < 1e-6


def test_d1_has_no_certificate():
    rc = srank.rank_certificate(db.d1_random_layers(), seed=3)
    assert rc["rank"] == 2 and rc["D_plain"] == 3 and not rc["certified"]
    assert not ds.check_dimension(ds.StackInstance(db.d1_random_layers())).holds


def test_tampered_certificates_are_rejected():
    good = _json(ds.check_dimension(ds.StackInstance(LAYERS, seed=2)))
    assert ds.recheck_dimension(good)
    rc = good["data"]["rank"]
    bad = copy.deepcopy(good)
    bad["data"]["rank"]["rank"] = rc["rank"] + 1
    assert not ds.recheck_dimension(bad)
    bad = copy.deepcopy(good)
    bad["data"]["rank"]["D_plain"] = 1
    assert not ds.recheck_dimension(bad)
    bad = copy.deepcopy(good)
    bad["data"]["rank"]["minor_cols"][0] = bad["data"]["rank"]["minor_cols"][1]
    assert not ds.recheck_dimension(bad)
    bad = copy.deepcopy(good)
    bad["data"]["rank"]["points"][0] = ["0", "1"]       # a pre-activation is 0 there (row (1, 0))
    assert not ds.recheck_dimension(bad)
    bad = copy.deepcopy(good)
    bad["data"]["rank"]["patterns"][0][0][0] ^= 1
    assert not ds.recheck_dimension(bad)
    # Zeroing an output column kills the unit: the stated minor is singular for those weights.
    bad = copy.deepcopy(good)
    for r in bad["data"]["residual"][0]["W_down"]:
        r[0] = "0"
    assert not ds.recheck_dimension(bad)
