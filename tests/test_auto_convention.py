"""--replacing-biases auto reads only biases that can change the function (issue 29, referee F6).

The referee's blocks: relu2 (d = 1, m = 4, W_up = 1, W_down = 0, M = 1) and reglu (d = m = 1,
W_up = W_gate = 1, W_down = 0, M = 1), each with b_up[0] = 0 and with b_up[0] = 2^-1074.  The unit
carrying the bias has a zero output column, so both files are the function F(x) = x.  Under the
default `auto` the tiny bias used to choose the biased question and flip the headline verdict
(not_absorbable by homogeneous-impossible -> absorbable by relu2-biased / gated-biased).

Claims exercised: homogeneous-impossible (the bias-free reading), relu2-biased and gated-biased (the
other reading, reported in other_convention).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "issue29"
TINY = 2.0 ** -1074


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "oracle.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


def _reglu(path: Path, tiny: bool) -> Path:
    np.savez(path, W_up=np.array([[1.0]]), W_gate=np.array([[1.0]]), W_down=np.array([[0.0]]),
             b_up=np.array([TINY if tiny else 0.0]), M=np.array([[1.0]]), activation=np.array("reglu"),
             kind=np.array("residual"))
    return path


def _files(tmp_path: Path, act: str) -> list[Path]:
    if act == "relu2":
        return [FIXTURES / "relu2_dead_zero_bias.npz", FIXTURES / "relu2_dead_tiny_bias.npz"]
    return [_reglu(tmp_path / "reglu_zero.npz", False), _reglu(tmp_path / "reglu_tiny.npz", True)]


@pytest.mark.parametrize("act,other_claim", [("relu2", "relu2-biased"), ("reglu", "gated-biased")])
def test_a_dead_units_bias_does_not_flip_the_default_verdict(tmp_path, act, other_claim):
    out = []
    for k, f in enumerate(_files(tmp_path, act)):
        b_up = np.load(f)["b_up"]
        assert b_up[0] == (TINY if k else 0.0)
        r = _cli("check", str(f), "--json")  # the default: --replacing-biases auto
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        c = doc["certificate"]
        out.append((doc["verdict"], doc["claim"], doc["exact"], doc["replacing_biases"]))
        assert c["other_convention"]["verdict"] == "absorbable"
        assert c["other_convention"]["claim"] == other_claim
        if k:  # the drop is reported
            assert c["auto_convention"]["dead_units_with_biases_ignored"] == [0]
            assert c["auto_convention"]["biases_read"] == []
        else:
            assert "auto_convention" not in c
        p = tmp_path / f"{act}{k}.json"
        p.write_text(r.stdout)
        rr = _cli("recheck", str(p), str(f))
        assert rr.returncode == 0 and rr.stdout.startswith("holds"), rr.stdout + rr.stderr
    assert out[0] == out[1] == ("not_absorbable", "homogeneous-impossible", True, "none")


def _gated_dead_biases(path: Path, act: str, column: float) -> Path:
    """d = m = 2, M = I: unit 0 (no biases) computes something; unit 1 carries b_up = 3 and
    b_gate = -2, and its output column is (column, 0): zero, or the near miss 2^-1074."""
    np.savez(path, W_up=np.eye(2), W_gate=np.array([[1.0, 1.0], [1.0, -1.0]]),
             W_down=np.array([[1.0, column], [0.5, 0.0]]), b_up=np.array([0.0, 3.0]), b_gate=np.array([0.0, -2.0]),
             M=np.eye(2), activation=np.array(act), kind=np.array("residual"))
    return path


@pytest.mark.parametrize("act", ["swiglu", "geglu", "reglu", "glu"])
def test_gated_biases_on_units_with_zero_output_columns_do_not_choose_the_question(tmp_path, act):
    """A gated block whose only nonzero biases (b_up and b_gate) sit on a unit whose W_down column is
    zero: auto asks the bias-free question and says why (auto_convention names the unit); the near
    miss, whose column is 2^-1074, is a block with biases: auto keeps the biased question.  Both
    documents re-check, and a forged auto_convention is refused with the field named."""
    for column, conv in ((0.0, "none"), (TINY, "allowed")):
        f = _gated_dead_biases(tmp_path / f"{act}_{conv}.npz", act, column)
        r = _cli("check", str(f), "--json")
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        c = doc["certificate"]
        assert doc["replacing_biases"] == c["replacing_biases"] == conv, (column, doc["replacing_biases"])
        if conv == "none":
            assert c["auto_convention"] == {"biases_read": [], "dead_units_with_biases_ignored": [1],
                                            "dead_units_with_biases_ignored_count": 1, "convention": "none"}
        else:
            assert "auto_convention" not in c
        p = tmp_path / f"{act}_{conv}.json"
        p.write_text(r.stdout)
        rr = _cli("recheck", str(p), str(f))
        assert rr.returncode == 0 and rr.stdout.startswith("holds"), rr.stdout + rr.stderr
        if conv == "none":
            for key, value in (("dead_units_with_biases_ignored", []), ("biases_read", ["b_up", "b_gate"]),
                               ("convention", "allowed")):
                bad = json.loads(r.stdout)
                bad["certificate"]["auto_convention"][key] = value
                p.write_text(json.dumps(bad))
                rr = _cli("recheck", str(p), str(f))
                assert rr.returncode == 1, (key, rr.stdout)
                assert rr.stdout.startswith(f"does not hold: certificate.auto_convention.{key}"), (key, rr.stdout)


# ------------------------------------------------------------------ units whose columns cancel (referee round 4, B3)

def _cancelling(path: Path, act: str, tiny: float, scale: float = 1.0) -> Path:
    """d = 1, M = 1: unit 0 is a bias-free unit with a zero output column (as in the blocks above);
    units 1 and 2 are one unit twice (equal rows and biases b_up = tiny; for a gate, equal gate rows
    too), or for relu / relu2 unit 2 is unit 1 scaled by ``scale`` > 0, with output columns that
    cancel once merged (+1 and -1 / scale^p).  B is then the same function as unit 0 alone."""
    deg = {"relu": 1, "relu2": 2}.get(act, 0)
    s = scale if deg else 1.0
    kw = dict(W_up=np.array([[1.0], [1.0], [s]]), W_down=np.array([[0.0, 1.0, -1.0 / s ** deg]]),
              b_up=np.array([0.0, tiny, tiny * s]), M=np.array([[1.0]]))
    if act in ("reglu", "swiglu"):
        kw["W_gate"] = np.array([[1.0], [1.0], [1.0]])
    np.savez(path, activation=np.array(act), kind=np.array("residual"), **kw)
    return path


@pytest.mark.parametrize("act,scale", [("reglu", 1.0), ("swiglu", 1.0), ("gelu", 1.0), ("relu", 1.0), ("relu", 4.0),
                                       ("relu2", 1.0), ("relu2", 2.0)])
def test_units_whose_output_columns_cancel_do_not_choose_the_question(tmp_path, act, scale):
    """The referee's reglu block (two identical units, b_up = 2^-1074, columns +1 and -1) and the same
    for swiglu, gelu, relu and relu2 (relu, relu2 also with the second unit a positive rescaling of
    the first): B is the function of the bias-free block without them, so auto asks the bias-free
    question, names the cancelling units, and the default verdict is the bias-free block's.  The
    document re-checks; a forged auto_convention (the group dropped, the question flipped) does not."""
    base = _cancelling(tmp_path / f"{act}_plain.npz", act, 0.0, scale)
    f = _cancelling(tmp_path / f"{act}_tiny.npz", act, TINY, scale)
    docs = []
    for g in (base, f):
        r = _cli("check", str(g), "--json")
        assert r.returncode == 0, r.stderr
        docs.append(json.loads(r.stdout))
    plain, doc = docs
    assert doc["replacing_biases"] == plain["replacing_biases"] == "none", (doc["replacing_biases"], act)
    # the same answer (relu2's biased procedure may decide it under its own claim, relu2-biased)
    assert (doc["verdict"], doc["exact"]) == (plain["verdict"], plain["exact"]), (doc["claim"], plain["claim"])
    ac = doc["certificate"]["auto_convention"]
    assert ac["biases_read"] == [] and ac["cancelling_groups"] == [[1, 2]] and ac["convention"] == "none"
    p = tmp_path / "d.json"
    p.write_text(json.dumps(doc))
    rr = _cli("recheck", str(p), str(f))
    assert rr.returncode == 0 and rr.stdout.startswith("holds"), rr.stdout + rr.stderr
    for key, value in (("cancelling_groups", []), ("convention", "allowed"), ("biases_read", ["b_up"])):
        bad = json.loads(json.dumps(doc))
        bad["certificate"]["auto_convention"][key] = value
        p.write_text(json.dumps(bad))
        rr = _cli("recheck", str(p), str(f))
        assert rr.returncode == 1 and rr.stdout.startswith(f"does not hold: certificate.auto_convention.{key}"), \
            (key, rr.stdout)
    # the near miss: the columns do not cancel (+1 and -1 + 2^-52): a block with biases, auto asks 'allowed'
    near = _cancelling(tmp_path / f"{act}_near.npz", act, TINY, scale)
    arrays = dict(np.load(near))
    arrays["W_down"] = arrays["W_down"].copy()
    arrays["W_down"][0, 2] += 2.0 ** -52
    np.savez(near, **arrays)
    r = _cli("check", str(near), "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["replacing_biases"] == "allowed", r.stdout
