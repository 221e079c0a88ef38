"""absorption-width: the m + d construction, and the exact minimal relu width m + C."""

import copy
from fractions import Fraction

import numpy as np
from hypothesis import given, settings

from oracle.core.blocks import Block, nondegeneracy
from oracle.claims import absorption_width as aw
from oracle.claims.base import run_check
from oracle.core.rational import qvec
from oracle.algebra.exact import identity

Q = Fraction
PTS = [[Q(a), Q(b)] for a in (-3, -1, 0, 1, 2) for b in (-2, 0, 1)] + [[Q(1, 3), Q(-5, 7)]]


@settings(max_examples=100, deadline=None)
@given(inst=aw.STRATEGY)
def test_certificate_holds_and_rechecks(inst):
    cert = aw.check(inst)
    assert cert.holds and cert.exact
    d, rk = inst.block.d, cert.data["rank_W_up"]
    con = cert.data["construction"]
    lb = cert.data.get("lower_bound")
    if rk == d:
        assert con["width"] == inst.block.m + inst.block.d and con["sum_b_u_equals_minus_M"]
        # degenerate blocks (drawn too: the construction needs only rank W_up = d) get no lower bound
        assert (lb is not None) == (nondegeneracy(inst.block.W_up, inst.block.W_down).ok and inst.block.m <= aw.MAX_LOWER_M)
    else:
        # rank W_up < d (m < d included): no m + d construction, the exact width still applies
        assert con is None and lb is not None
    if lb is not None:
        assert lb["relu_complete_m_star"] == inst.block.m + lb["C"]
        assert lb["C"] <= 2 * d - rk
        if lb["all_invertible"]:
            assert lb["C"] == 2 * d - rk
            assert (lb["C"] == inst.block.d and lb["minimal_width_is_m_plus_d"]) == (rk == d)
    assert aw.recheck(cert.as_dict())


def test_rank_deficient_certificate_without_its_lower_bound_is_refused():
    """A rank W_up < d certificate carries no m + d construction; without the exact-width table it
    proves nothing and the re-check refuses it."""
    U = [[1, 0, 0], [0, 1, 0]]
    W = [[1, 0], [0, 1], [1, 1]]
    inst = aw.WidthInstance(Block("relu", W_up=np.array(U, float), W_down=np.array(W, float)),
                            [[Fraction(1), Fraction(2), Fraction(-1)], [Fraction(-3), Fraction(1), Fraction(2)]])
    cert = aw.check(inst)
    assert cert.holds and cert.data["construction"] is None and cert.data["rank_W_up"] == 2
    assert cert.data["lower_bound"]["C"] <= 2 * 3 - 2
    doc = cert.as_dict()
    assert aw.recheck(doc)
    del doc["data"]["lower_bound"]
    assert not aw.recheck(doc)


def test_run_check_passes():
    res = run_check(aw.check, 20)
    assert res.passed and res.instances == 20


def test_identity_block_needs_exactly_m_plus_d():
    U, W = identity(2), identity(2)
    lb = aw.lower_bound_table(U, W)
    assert lb["all_invertible"] and lb["C"] == 2
    assert sorted(lb["dets"].values()) == ["1", "2", "2", "4"]


def test_referee_general_M_example_has_width_1():
    # issue 18: d = m = 1, u = w = 1, M = -1: -x + relu(x) = -relu(-x) is one unit (S = {1},
    # M + W_S U_S = 0). The M = I formula would give C = 1, width 2.
    U, W, M = [[Q(1)]], [[Q(1)]], [[Q(-1)]]
    lb = aw.lower_bound_table(U, W, M)
    assert lb["C"] == 0 and lb["dets"] == {"": "-1", "0": "0"} and not lb["all_invertible"]
    assert aw.lower_bound_table(U, W)["C"] == 1  # M = I: x + relu(x) needs two units
    up, down = aw.build_block(U, W, lb["argmin_S"], lb["argmin_T"], M=M)
    assert up == [[Q(-1)]] and down == [[Q(1)]]
    pts = [[Q(k, 2)] for k in range(-6, 7)]
    assert aw.verify_equal(U, W, up, down, pts, acts=("relu",), M=M)[0]
    assert not aw.verify_equal(U, W, up, down, pts, acts=("relu",))[0]  # it is not x + relu(x)
    b = Block("relu", W_up=np.array([[1.0]]), W_down=np.array([[1.0]]), M=np.array([[-1.0]]))
    cert = aw.check(aw.WidthInstance(b, [[Q(1)], [Q(-2)]]))
    assert cert.holds and cert.data["lower_bound"]["min_width"] == 1
    assert cert.data["construction"]["width"] == 2 and aw.recheck(cert.as_dict())
    # M = -2: both M + W_S U_S (-2, -1) invertible, so C = 2d - r = 1, width 2
    assert aw.lower_bound_table(U, W, [[Q(-2)]])["C"] == 1


def test_generated_instances_reach_general_M_and_d_1():
    from hypothesis import HealthCheck, find

    def skip(i):
        return [[Q(float(v)) for v in r] for r in i.block.skip().tolist()]

    inst = find(aw.STRATEGY, lambda i: i.block.d == 1 and skip(i) != [[Q(1)]],
                settings=settings(max_examples=500, suppress_health_check=list(HealthCheck)))
    assert aw.check(inst).holds
    inst = find(aw.STRATEGY, lambda i: skip(i) != identity(i.block.d) and i.block.m <= aw.MAX_LOWER_M
                and nondegeneracy(i.block.W_up, i.block.W_down).ok and aw.lower_bound_table(
        [[Q(v) for v in r] for r in i.block.W_up.tolist()],
        [[Q(v) for v in r] for r in i.block.W_down.tolist()], skip(i))["C"] == 0,
        settings=settings(max_examples=500, suppress_health_check=list(HealthCheck)))
    assert aw.check(inst).data["lower_bound"]["min_width"] == inst.block.m


def test_singular_case_goes_below_m_plus_d():
    # absorption-width.md, Examples: W_down = diag(-1, 1) absorbs at width 3 = m + d - 1.
    U, W = identity(2), [[Q(-1), Q(0)], [Q(0), Q(1)]]
    lb = aw.lower_bound_table(U, W)
    assert not lb["all_invertible"] and lb["C"] == 1
    up, down = aw.build_block(U, W, lb["argmin_S"], lb["argmin_T"])
    assert len(up) == 3
    ok, _ = aw.verify_equal(U, W, up, down, PTS, acts=("relu",))
    assert ok


def test_non_dyadic_weights_are_flagged():
    b = Block("relu", W_up=np.array([[1.0, 2.0], [3.0, 1.0]]), W_down=np.array([[1.0, 0.5], [-1.0, 2.0]]))
    cert = aw.check(aw.WidthInstance(b, [[Q(1), Q(-1)], [Q(2), Q(5)]]))
    assert cert.holds
    con = cert.data["construction"]
    assert con["dyadic"] is False and "float64 cannot hold" in con["float64_note"]
    assert con["b"] == [["1/5", "-3/5"], ["-2/5", "1/5"]]  # -U_I^{-1}, det U_I = -5


def test_dyadic_rows_preferred():
    b = Block("relu", W_up=np.array([[1.0, 2.0], [3.0, 1.0], [1.0, 0.0], [0.0, 1.0]]),
              W_down=np.ones((2, 4)))
    cert = aw.check(aw.WidthInstance(b, [[Q(1), Q(-1)]]))
    # rows 0, 1 have det -5 (non-dyadic inverse); rows 0, 2 have det -2 and are taken instead
    assert cert.data["construction"]["dyadic"] is True and cert.data["construction"]["rows"] == [0, 2]


def _cert():
    b = Block("relu", W_up=np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
              W_down=np.array([[1.0, 0.5, -1.0], [2.0, 1.0, 0.25]]))
    return aw.check(aw.WidthInstance(b, PTS)).as_dict()


def test_tampered_certificates_rejected():
    d = _cert()
    assert d["holds"] and aw.recheck(d)
    bad = copy.deepcopy(d)
    bad["data"]["construction"]["b"][0][0] = "2"
    assert not aw.recheck(bad)
    bad = copy.deepcopy(d)
    bad["data"]["construction"]["W_down"][0][-1] = "7"
    assert not aw.recheck(bad)
    bad = copy.deepcopy(d)
    bad["data"]["lower_bound"]["C"] = 1
    assert not aw.recheck(bad)


def test_near_miss_weight_fails():
    d = _cert()["data"]
    U, W = aw.qmat(d["W_up"]), aw.qmat(d["W_down"])
    up, down = aw.qmat(d["construction"]["W_up"]), aw.qmat(d["construction"]["W_down"])
    down[0][-1] += Q(1, 2 ** 30)
    ok, rows = aw.verify_equal(U, W, up, down, [qvec(p) for p in (["1", "1"], ["-1", "2"])])
    assert not ok


def _corner(purpose=None, near=None, planted=None):
    for c in aw.width_corners():
        if (purpose is None or c.purpose == purpose) and (near is None or c.near_miss == near) \
                and (planted is None or c.planted == planted):
            return c
    raise LookupError("no such corner")


def test_instance_contract_refuses_mislabelled_instances():
    """Planted bugs in the instance generator: a near miss moved by 1 (not 2^-30), a near miss
    moved off the wrong index set, a planted label on an ordinary block, both labels at once."""
    near = _corner(near=True)
    U, W = [[Q(v) for v in r] for r in near.block.W_up.tolist()], [[Q(v) for v in r] for r in near.block.W_down.tolist()]
    M = [[Q(v) for v in r] for r in near.block.skip().tolist()]
    assert aw.planted_contract(U, W, M, False, True)
    for step in (Q(1), Q(2 ** 30)):
        moved = [row[:] for row in M]
        moved[0][1] += step - Q(1, 2 ** 30)
        assert not aw.planted_contract(U, W, moved, False, True)
    wrong = [[-(W[a][1] * U[0][b]) for b in range(2)] for a in range(2)]  # -w_1 u_0^T: no S gives it
    wrong[0][1] += Q(1, 2 ** 30)
    assert not aw.planted_contract(U, W, wrong, False, True)
    assert not aw.planted_contract(U, W, M, True, False)
    assert not aw.planted_contract(U, W, M, True, True)
    b = Block("relu", W_up=near.block.W_up, W_down=near.block.W_down, M=near.block.skip() + 1.0)
    cert = aw.check(aw.WidthInstance(b, near.points, near_miss=True))
    assert not cert.holds and cert.data["instance_contract"] is False
    planted = _corner(planted=True)
    assert aw.check(planted).data["instance_contract"] is True


def test_negative_controls_catch_a_referee_that_sees_only_the_axis(monkeypatch):
    """A planted bug in the referee (it compares the two functions only on the x_1-axis, as a
    slip in pl_check's line parametrisation would): F is still found equal to its own width m + C
    block, but the control plus e_1 relu(x_2), which is 0 on that axis, is not told apart."""
    import oracle.algebra.pl_check as pl

    def axis_only(F, G):
        pts = [[Q(t), Q(0)] for t in range(-3, 4)] if F.d == 2 else [[Q(t)] for t in range(-3, 4)]
        return all(F(p) == G(p) for p in pts)

    inst = _corner(purpose="odd_C")
    assert aw.check(inst).holds
    monkeypatch.setattr(aw, "pl_equal", axis_only)
    assert axis_only(pl.ExactRelu([[Q(1), Q(0)]], [[Q(1)], [Q(0)]], d=2),
                     pl.ExactRelu([[Q(1), Q(0)], [Q(0), Q(1)]], [[Q(1), Q(1)], [Q(0), Q(0)]], d=2))
    cert = aw.check(inst)
    assert not cert.holds and cert.data["lower_bound"]["control_told_apart"] is False


def test_odd_C_corner_needs_a_nonempty_T(monkeypatch):
    """The C = 1 corner's purpose holds, and a width search that never removes a kink with T (a
    planted bug in relu-complete's m*: only T = {}) is caught on it."""
    from oracle.algebra import relu_width
    inst = _corner(purpose="odd_C")
    cert = aw.check(inst)
    assert cert.holds and cert.data["purpose_met"] and cert.data["lower_bound"]["C"] == 1
    assert not aw._purpose_met("odd_C", {"C": 2, "argmin_T": []})
    assert not aw._purpose_met("unknown", cert.data["lower_bound"])
    monkeypatch.setattr(relu_width, "independent_subsets", lambda vectors, d, limit: [()])
    assert not aw.check(inst).holds


def test_recheck_holds_the_referee_record_to_d():
    """The re-check calls the referee exactly for d <= 2 and requires its recorded verdict: a d = 1
    certificate without it, or a d = 3 certificate with one, is refused."""
    line = next(c for c in aw.width_corners() if c.block.d == 1)
    doc = aw.check(line).as_dict()
    assert aw.recheck(doc) and doc["data"]["lower_bound"]["min_block_equal_by_referee"] is True
    del doc["data"]["lower_bound"]["min_block_equal_by_referee"]
    assert not aw.recheck(doc)
    doc3 = aw.check(_corner(planted=True)).as_dict()
    assert aw.recheck(doc3) and "min_block_equal_by_referee" not in doc3["data"]["lower_bound"]
    doc3["data"]["lower_bound"]["min_block_equal_by_referee"] = True
    assert not aw.recheck(doc3)


def test_needs_T2_corner_catches_a_search_without_pairs(monkeypatch):
    """The d = 3 corner's C = 2 is reached only with |T| = 2; relu-complete's m* computed with
    class sets of size <= 1 (a planted bug in relu_width.independent_subsets) is caught on it."""
    from oracle.algebra import relu_width
    inst = _corner(purpose="needs_T2")
    cert = aw.check(inst)
    lb = cert.data["lower_bound"]
    assert cert.holds and cert.data["purpose_met"] and lb["C"] == 2 and len(lb["argmin_T"]) == 2
    real = relu_width.independent_subsets
    monkeypatch.setattr(relu_width, "independent_subsets",
                        lambda vectors, d, limit: [T for T in real(vectors, d, limit) if len(T) <= 1])
    assert not aw.check(inst).holds


def test_dyadic_corner_catches_a_dyadic_test_that_never_holds(monkeypatch):
    """The corner whose first two rows have the inverse diag(1/3, 1): its construction must be
    dyadic on other rows. A planted bug in is_dyadic (always False) is caught there."""
    inst = _corner(purpose="dyadic_rows")
    cert = aw.check(inst)
    assert cert.holds and cert.data["construction"]["rows"] == [1, 2] and cert.data["purpose_met"]
    monkeypatch.setattr(aw, "is_dyadic", lambda v: False)
    bad = aw.check(inst)
    assert not bad.holds and bad.data["purpose_met"] is False


def test_recheck_refuses_a_wrong_min_width_record():
    doc = aw.check(_corner(purpose="odd_C")).as_dict()
    assert aw.recheck(doc) and doc["data"]["lower_bound"]["min_width"] == 3
    doc["data"]["lower_bound"]["min_width"] = 2
    assert not aw.recheck(doc)
