"""The bias-free question decided by F(0) != 0 (referee round 4, B3: a missed decision).

relu, d = m = 1, u = 1, b_up = 1/2, W_down = -1, b_down = 0, M = 1 under --replacing-biases none
was undecided, though F(0) = -1/2 != 0 and every bias-free relu block vanishes at 0.  relu-complete's
statement (proofs/claims.toml, proofs/informal/relu-complete.md) now says so, and check decides
the block not_absorbable, exact, with a certificate of kind value_at_zero (a coordinate of F(0) and
its exact value) that absorb recheck evaluates again from the block file.

Claims exercised: relu-complete (its bias-free sentence).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from oracle.core.blocks import Block
from oracle.decide import decide
from oracle.decide.document import Refused, check_block_document
from forgery import put

ROOT = Path(__file__).resolve().parents[1]


def _cli(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "oracle.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


def test_the_referees_block_is_not_absorbable_without_biases(tmp_path):
    f = tmp_path / "r.npz"
    np.savez(f, W_up=np.array([[1.0]]), W_down=np.array([[-1.0]]), b_up=np.array([0.5]), M=np.array([[1.0]]),
             activation=np.array("relu"), kind=np.array("residual"))
    r = _cli("check", f, "--replacing-biases", "none", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["verdict"], doc["claim"], doc["exact"]) == ("not_absorbable", "relu-complete", True)
    c = doc["certificate"]
    assert c["kind"] == "value_at_zero" and c["coordinate"] == 0 and c["F_at_0"] == "-1/2"
    assert doc["biases_none"]["verdict"] == "not_absorbable"
    assert c["other_convention"]["verdict"] == "absorbable"  # with biases: relu-complete's construction
    p = tmp_path / "d.json"
    p.write_text(r.stdout)
    ok = _cli("recheck", p, f)
    assert ok.returncode == 0 and ok.stdout.startswith("holds: the 'value_at_zero' certificate"), ok.stdout
    for path, value, field in ((("certificate", "F_at_0"), "-1/4", "certificate"),
                               (("certificate", "coordinate"), 1, "certificate"),
                               (("verdict",), "absorbable", "verdict"),
                               (("claim",), "gelu-complete", "claim"),
                               (("certificate", "replacing_biases"), "allowed", "certificate")):
        p.write_text(json.dumps(put(doc, path, value)))
        bad = _cli("recheck", p, f)
        assert bad.returncode == 1 and bad.stdout.startswith(f"does not hold: {field}"), (path, bad.stdout)


@pytest.mark.parametrize("d,m,seed", [(1, 1, 0), (2, 3, 1), (3, 2, 2), (4, 5, 3)])
def test_any_relu_block_with_f0_nonzero(d, m, seed):
    """Any d, m: biases drawn so that F(0) != 0, decided under none; the certificate re-checks, and
    on the block with F(0) = 0 (b_down chosen to cancel) it is refused."""
    rng = np.random.default_rng(seed)
    # the first d units are an index set (W_S U_S = -I = -M): absorbable with biases (a sign flip
    # that moves the biases), so only the bias-free question is open without F(0)
    U = np.vstack([np.eye(d), rng.integers(-3, 4, (m, d)).astype(float)])
    W = np.hstack([-np.eye(d), rng.integers(-3, 4, (d, m)).astype(float)])
    c = np.abs(rng.integers(1, 4, m + d)).astype(float) / 2
    m = m + d
    b = Block("relu", W_up=U, W_down=W, b_up=c, M=np.eye(d))
    F0 = W @ np.maximum(c, 0)
    if not np.any(F0 != 0):
        b = Block("relu", W_up=U, W_down=W, b_up=c, b_down=np.ones(d), M=np.eye(d))
    v = decide(b, replacing_biases="none")
    assert v.verdict == "not_absorbable" and v.exact and v.certificate["kind"] == "value_at_zero", v.reason
    doc = json.loads(json.dumps(v.as_dict()))
    check_block_document(b, doc)
    a = v.certificate["coordinate"]
    bd = (b.b_down.copy() if b.b_down is not None else np.zeros(d))
    bd[:] -= (b.W_down @ np.maximum(c, 0) + bd)  # F(0) = 0 now (small integers and halves: exact)
    zero = Block("relu", W_up=U, W_down=W, b_up=c, b_down=bd, M=np.eye(d))
    assert not np.any(zero.W_down @ np.maximum(c, 0) + zero.b_down != 0), a
    with pytest.raises(Refused):
        check_block_document(zero, doc)
    assert decide(zero, replacing_biases="none").certificate["kind"] != "value_at_zero"
