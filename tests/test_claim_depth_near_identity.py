"""depth-near-identity: two relu blocks near the identity in d >= 3 are no plain stack of the same
widths (every hypothesis decided exactly), and absorb check says so."""

import json
import subprocess
import sys
from fractions import Fraction as Q

import numpy as np

from oracle.claims import depth_near_identity as ni
from oracle.algebra.stacks import near_identity as sni
from oracle.claims.base import run_check
from oracle.algebra.stacks.layers import layers_of
from oracle.core import stackfiles
from oracle.core.blocks import Block, Stack
from oracle.decide import stacks

# d = 3, widths (4, 4): m_1 > d and no width below d, so depth-narrow does not apply; rows with
# entries k/8, output weights k/128, so that |W_l| |U_l| < 1.
U1 = [[1.0, -0.25, 0.875], [0.25, 0.5, -0.5], [0.25, 0.625, 0.875], [0.75, 1.0, -0.75]]
W1 = (np.array([[5, -1, 3, -4], [-8, -7, 8, 7], [-3, -1, -4, -6]]) / 128).tolist()
U2 = [[0.75, 0.375, -0.875], [-0.625, 0.125, 0.875], [1.0, -0.625, 0.25], [-1.0, -0.75, -0.625]]
W2 = (np.array([[-1, -3, 4, -1], [-3, 7, 2, 3], [4, -3, 7, -8]]) / 128).tolist()


def _stack():
    return Stack([Block("relu", W_up=np.array(U1), W_down=np.array(W1)),
                  Block("relu", W_up=np.array(U2), W_down=np.array(W2))])


def test_conditions_of_the_d3_example():
    layers = layers_of(_stack())
    cond = sni.near_identity_conditions(layers)
    assert cond["applies"], cond["reason"]
    assert cond["d"] == 3 and cond["widths"] == [4, 4]
    assert all(x["ok"] for x in cond["norm"]) and cond["nondegenerate"] == [True, True]
    assert cond["G1_failure"] is None and cond["G2_failure"] is None
    assert cond["index_sets"] == [[], []]
    assert cond["k"] == [5, 5, 5, 5] and sni.count_condition(cond["k"])
    for i, recs in enumerate(cond["bend_edges"]):
        assert all(sni.is_bend_point(layers, i, r) for r in recs)
    assert sni.recheck_conditions(layers, json.loads(json.dumps(cond)))


def test_decide_stack_not_absorbable_exact(tmp_path):
    res = stacks.decide_stack(_stack())
    assert (res["verdict"], res["claim"], res["exact"]) == ("not_absorbable", "depth-near-identity", True)
    js = json.loads(json.dumps(res))
    assert stacks.recheck_decision(js)
    bad = json.loads(json.dumps(js))
    bad["certificate"]["conditions"]["bend_edges"][0][0]["q"][0] = "7"
    assert not stacks.recheck_decision(bad)
    bad = json.loads(json.dumps(js))
    bad["certificate"]["conditions"]["k"] = [6, 5, 5, 5]
    assert not stacks.recheck_decision(bad)
    p = tmp_path / "d3_near_identity.npz"
    stackfiles.write_stack(_stack(), p)
    r = subprocess.run([sys.executable, "-m", "oracle.cli", "check", str(p), "--emit", str(tmp_path / "o.npz")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "verdict: not_absorbable (depth-near-identity, exact)" in r.stdout
    assert "bend edges per layer-1 unit [5, 5, 5, 5]" in r.stdout
    assert "nothing emitted" in r.stderr and not (tmp_path / "o.npz").exists()


def test_count_condition_values():
    assert sni.count_condition([2]) and not sni.count_condition([1])
    assert sni.count_condition([2, 3]) and not sni.count_condition([2, 2])
    assert sni.count_condition([4, 4, 2]) and not sni.count_condition([3, 3, 3])


def test_general_position_failures_are_found():
    layers = layers_of(_stack())
    (A, B), (C, D) = layers
    # u2_0 in the span of two layer-1 rows: (G1) fails at D = {} with I = {0, 1}
    C2 = [[a + b for a, b in zip(A[0], A[1])], C[1]]
    cond = sni.near_identity_conditions([(A, B), (C2, D)])
    assert not cond["applies"] and cond["G1_failure"] == {"j": 0, "D": [], "I": [0, 1]}
    # too large a first block: the homeomorphism is not certified
    big = [[v * 40 for v in r] for r in B]
    cond = sni.near_identity_conditions([(A, big), (C, D)])
    assert not cond["applies"] and "norm bound" in cond["reason"]
    # d = 2 is not this claim's
    assert not sni.near_identity_conditions([([[Q(1), Q(0)]], [[Q(1, 8)], [Q(0)]])] * 2)["applies"]


def test_folded_boundary_instance():
    cert = ni.near_identity_folded()
    assert cert.holds and cert.exact
    assert cert.data["index_sets"][1] == [] and cert.data["identity"]["ok"]
    js = json.loads(json.dumps(cert.as_dict()))
    assert ni.recheck_near_identity_counterexample(js)
    js["data"]["plain"][1]["W_down"][0][0] = "2"
    assert not ni.recheck_near_identity_counterexample(js)


def test_folded_instance_does_not_isolate_homeomorphic_blocks():
    """What near_identity_folded shows and does not: it meets nondegeneracy but also fails (G1), (G2)
    and bend_count, decided exactly; (G1) fails at D = {0, 1, 2} because block 1 is its own index set."""
    cert = ni.near_identity_folded()
    o = cert.data["other_hypotheses"]
    assert cert.data["isolates_dropped_hypothesis"] is False
    assert o["nondegenerate"] == [True, True]
    assert o["G1_failure"] == {"j": 0, "D": [], "I": [0]} and o["G2_failure"] is not None
    assert o["k"] == [0, 0, 0] and o["count_ok"] is False
    f = cert.data["G1_forced_by_index_set"]
    assert f["D"] == [0, 1, 2] and f["n_jD"] == ["0", "0", "0"] and f["all_n_jD_zero"]
    js = json.loads(json.dumps(cert.as_dict()))
    js["data"]["other_hypotheses"]["count_ok"] = True      # claiming more than the instance shows
    assert not ni.recheck_near_identity_counterexample(js)


def test_an_index_set_in_block_1_always_breaks_g1():
    """The lemma behind it: W_{1,S} U_{1,S} = -I makes G_S = 0, so (G1) fails at D = S; under
    sheets_generic block 1 never has an index set (checked exactly on random planted blocks)."""
    import random
    from flint import fmpq, fmpq_mat
    from oracle.algebra.exact import all_index_sets_exact, identity
    rng = random.Random(21)
    for _ in range(12):
        while True:
            US = [[Q(rng.randint(-4, 4), 2) for _ in range(3)] for _ in range(3)]
            M = fmpq_mat(3, 3, [fmpq(v.numerator, v.denominator) for r in US for v in r])
            if M.det() != 0:
                break
        inv = M.inv()
        WS = [[-Q(int(inv[a, b].p), int(inv[a, b].q)) for b in range(3)] for a in range(3)]
        extra = [Q(rng.randint(-4, 4), 3) or Q(1) for _ in range(3)]
        U1 = US + [extra]
        W1 = [WS[a] + [Q(rng.randint(1, 4), 8)] for a in range(3)]
        U2 = [[Q(rng.randint(-5, 5), 4) or Q(1, 4) for _ in range(3)] for _ in range(rng.randint(2, 4))]
        W2 = [[Q(1, 16)] * len(U2) for _ in range(3)]
        layers = [(U1, W1), (U2, W2)]
        assert [0, 1, 2] in [list(S) for S in all_index_sets_exact(U1, W1, identity(3))]
        f = sni.index_set_breaks_g1(layers, [0, 1, 2])
        assert f is not None and f["all_n_jD_zero"]
        n, _ = sni.normals(layers)
        assert sni.g1_failure(layers, n) is not None
        assert not sni.near_identity_conditions(layers)["applies"]
    # a set that is no index set gives no such failure
    assert sni.index_set_breaks_g1(layers, [0, 1]) is None


def test_oracle_check_runs_and_rechecks():
    res = run_check(ni.check_near_identity, 6)
    assert res.passed, res.failure
    assert res.instances == 6 and res.exact_instances == 6
    cert = ni.near_identity_certificate(ni.NearIdentityInstance(layers_of(_stack()), None, 5))
    assert cert.holds and len(cert.data["flip_stacks_refuted"]) == 2 ** 8
    js = json.loads(json.dumps(cert.as_dict()))
    assert ni.recheck_near_identity(js)
    js["data"]["flip_stacks_refuted"].pop()
    assert not ni.recheck_near_identity(js)


def test_example_files():
    from pathlib import Path
    ex = Path(__file__).resolve().parent.parent / "examples"
    st = stackfiles.read_stack(ex / "relu_stack_d3_near_identity.npz")
    for a, (U, W) in zip(st.blocks, ((U1, W1), (U2, W2))):
        assert np.array_equal(a.W_up, np.array(U)) and np.array_equal(a.W_down, np.array(W))
    res = stacks.decide_stack(stackfiles.read_stack(ex / "relu_stack_d1_referee.npz"))
    assert (res["verdict"], res["claim"], res["exact"]) == ("absorbable", "depth-d1", True)
    assert res["plain_stack"][0]["W_down"] == [["4", "4"]]
