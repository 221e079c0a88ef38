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
