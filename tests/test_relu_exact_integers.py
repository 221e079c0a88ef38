"""relu blocks decided in Python integers where float64 gives up (issue 29, referee F7).

Claim exercised: relu-complete (m* = h + min cost over (s, T); cost 0 is N_s = 0, cost 1 is
N_s K_H = 0 for one class H).  The index-set questions behind both are asked in integers without a
bit limit (oracle/algebra/search/exact_int.py: a divisibility obstruction, then an exact meet in the
middle), so a block whose scaled integers need more than 53 bits is no longer left undecided.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from oracle.algebra.search import exact_int
from oracle.core import io as bio
from oracle.decide import relu as relu_decide

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "issue29"


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "oracle.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


def _check_and_recheck(tmp_path: Path, name: str) -> dict:
    f = FIXTURES / f"{name}.npz"
    r = _cli("check", str(f), "--json", "--replacing-biases", "allowed")
    assert r.returncode == 0, r.stderr
    doc_path = tmp_path / f"{name}.json"
    doc_path.write_text(r.stdout)
    rr = _cli("recheck", str(doc_path), str(f))
    assert rr.returncode == 0 and rr.stdout.startswith("holds"), rr.stdout + rr.stderr
    return json.loads(r.stdout)


def test_cost_one_beyond_53_bits_is_decided(tmp_path):
    """cost_one_53bit.npz: relu d = 2, m = 21, 20 classes; class 5's cost-one problem needs integers
    of more than 53 bits.  It used to be undecided (21 <= m* <= 22); the referee's exact m* is 22."""
    doc = _check_and_recheck(tmp_path, "cost_one_53bit")
    assert (doc["verdict"], doc["claim"], doc["exact"]) == ("not_absorbable", "relu-complete", True)
    c = doc["certificate"]
    assert (c["lower"], c["upper"]) == (22, 22)
    kinds = [x.get("kind") for x in c["cost_one"]["certificates"]]
    assert "exact_integer" in kinds


def test_d1_relu_37_kinks_is_decided(tmp_path):
    """d1_relu_37_sha.npz: d = 1, 37 kinks (beyond the float64 meet in the middle), M = integer + 1/4
    while every 2 alpha_H is an integer: no N_s = 0, so m* = 38 > 37 (it used to be undecided)."""
    doc = _check_and_recheck(tmp_path, "d1_relu_37_sha")
    assert (doc["verdict"], doc["claim"], doc["exact"]) == ("not_absorbable", "relu-complete", True)
    c = doc["certificate"]
    assert c["lower"] == 38 and c["search"]["kind"] == "exact_integer" and c["search"]["status"] == "none"


def test_exact_integer_certificates_are_refused_when_tampered():
    b = bio.read_block(FIXTURES / "cost_one_53bit.npz")
    r = relu_decide.decide_relu(b)
    cert = json.loads(json.dumps(r["certificate"], default=str))
    assert relu_decide.recheck_relu(b, cert)
    j = next(k for k, x in enumerate(cert["cost_one"]["certificates"]) if x.get("kind") == "exact_integer")
    bad = json.loads(json.dumps(cert))
    inner = bad["cost_one"]["certificates"][j]["certificate"]
    if inner["kind"] == "gcd":
        inner["gcd"] = str(int(inner["gcd"]) * 2 + 1)
    else:
        inner["vectors"] = int(inner["vectors"]) + 1
    assert not relu_decide.recheck_relu(b, bad)
    bad = json.loads(json.dumps(cert))
    bad["cost_one"]["certificates"][j] = {"class": j, "kind": "integrality"}
    assert not relu_decide.recheck_relu(b, bad)


@pytest.mark.parametrize("n", [1, 5, 12])
def test_meet_in_the_middle_against_brute_force(n):
    import itertools
    import random
    rnd = random.Random(n)
    for _ in range(20):
        vecs = [[rnd.randint(-5, 5) * 2 ** 70 + rnd.randint(-3, 3) for _ in range(2)] for _ in range(n)]
        target = [rnd.randint(-8, 8) * 2 ** 70 + rnd.randint(-6, 6) for _ in range(2)]
        brute = any(all(sum(vecs[i][c] for i in S) == target[c] for c in range(2))
                    for k in range(n + 1) for S in itertools.combinations(range(n), k))
        r = exact_int.exact_subset_search(vecs, target)
        assert (r["status"] == "found") == brute
        if brute:
            assert exact_int.check_found(vecs, target, r["S"])
        else:
            assert exact_int.check_none(vecs, target, r["certificate"])


def test_gcd_obstruction():
    vecs = [[6], [10], [-14]]
    assert exact_int.exact_subset_search(vecs, [3]) == {
        "status": "none", "certificate": {"kind": "gcd", "coordinate": 0, "gcd": "2"}}
    assert not exact_int.check_gcd_obstruction(vecs, [4], {"kind": "gcd", "coordinate": 0, "gcd": "2"})
    assert not exact_int.check_gcd_obstruction(vecs, [3], {"kind": "gcd", "coordinate": 0, "gcd": "1"})
    assert exact_int.exact_subset_search([[0], [0]], [1])["status"] == "none"
    assert exact_int.exact_subset_search(vecs, [2])["status"] == "found"


def test_reachable_sums_against_meet_in_the_middle():
    import random
    rnd = random.Random(7)
    for n in (3, 10, 16):
        for _ in range(30):
            vals = [rnd.randint(-40, 40) * 6 for _ in range(n)]
            y = rnd.randint(-200, 200) * 6
            r = exact_int.dp_search(vals, y)
            m = exact_int.meet_in_the_middle([[v] for v in vals], [y])
            assert (r["status"] == "found") == (m is not None)
            if m is not None:
                assert sum(vals[i] for i in r["S"]) == y and len(set(r["S"])) == len(r["S"])
            else:
                assert exact_int.check_none([[v] for v in vals], [y], r["certificate"])
    assert exact_int.dp_search([2 ** 40, 1], 3) is None  # range beyond MAX_DP_BITS


def test_one_coordinate_beyond_meet_in_the_middle():
    """60 vectors (beyond MAX_MITM) in one coordinate: decided by the reachable-sums programme."""
    vals = [[3 * (i + 1)] for i in range(60)]
    r = exact_int.exact_subset_search(vals, [3 * 100])
    assert r["status"] == "found" and exact_int.check_found(vals, [300], r["S"])
    r = exact_int.exact_subset_search(vals, [3 * 10 ** 6])  # beyond the total 3 * 1830
    assert r["status"] == "none" and r["certificate"]["kind"] == "reachable_sums"
    assert exact_int.check_none(vals, [3 * 10 ** 6], r["certificate"])
    assert not exact_int.check_none(vals, [300], {"kind": "reachable_sums", "vectors": 60})


def _d1_block(path: Path, M: float) -> Path:
    """d = 1 relu, 50 kinks (x + b_i, b_i = -1..-50), outputs 1000 (25 units) and 1001 (25 units)."""
    import numpy as np
    n = 50
    np.savez(path, W_up=np.ones((n, 1)), W_down=np.array([[1000.0] * 25 + [1001.0] * 25]),
             b_up=-np.arange(1, n + 1, dtype=float), M=np.array([[M]]), activation=np.array("relu"),
             kind=np.array("residual"))
    return path


def test_d1_relu_beyond_meet_in_the_middle_by_reachable_sums(tmp_path):
    """50 kinks: cost zero asks for S with sum_{i in S} w_i = -M.  For M = -10500 the real
    relaxation has solutions (10500 lies between 0 and the total), gcd(1000, 1001) = 1, and no
    1000 a + 1001 b with a, b <= 25 equals 10500 (b = 10500 - 1000 a would need b = 500 mod 1000):
    m* = 51 > 50.  The float64 search is inconclusive; the reachable-sums programme decides."""
    f = _d1_block(tmp_path / "d1_50.npz", -10500.0)
    r = _cli("check", str(f), "--json", "--replacing-biases", "allowed")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    c = doc["certificate"]
    assert (doc["verdict"], doc["claim"], doc["exact"]) == ("not_absorbable", "relu-complete", True)
    assert (c["lower"], c["upper"]) == (51, 51)
    assert c["search"]["kind"] == "exact_integer" and c["search"]["certificate"]["kind"] == "reachable_sums"
    p = tmp_path / "d1_50.json"
    p.write_text(r.stdout)
    rr = _cli("recheck", str(p), str(f))
    assert rr.returncode == 0 and rr.stdout.startswith("holds"), rr.stdout + rr.stderr
    # the same certificate for a block where such an S exists (a = 10, b = 3) is refused
    g = _d1_block(tmp_path / "d1_50_planted.npz", -(1000.0 * 10 + 1001.0 * 3))
    rr = _cli("recheck", str(p), str(g))
    assert rr.returncode != 0
    doc2 = json.loads(_cli("check", str(g), "--json", "--replacing-biases", "allowed").stdout)
    assert doc2["verdict"] == "absorbable" and doc2["certificate"]["m_star"] == 50
