"""Fields a check document may hold, and the file check --emit wrote (referee round 4, B2).

Before: a field the re-check did not know (at the top level, in the certificate, in the other
question's answer, in the search or the construction) passed ``absorb recheck`` and the holds line
did not name it; and ``plain_block`` / ``min_width_block``, the file ``check --emit`` wrote, was
never looked at (overwriting it with a zero block kept the document holding).  Now an unknown
field is refused with its dotted path (exit 1), and the emitted file is bound to the document by
its SHA-256: a present file must have that hash and hold the block the document states; an absent
one is named in the holds line as not verified.

Claims exercised: relu-limit (gelu sign flips), gelu-complete (the minimal-width block),
relu-complete (a rounded b_down), homogeneous-impossible and relu2-biased (other_convention).
"""

from __future__ import annotations

import hashlib
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


def _cli(*args: object, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "oracle.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


def _save(path: Path, act: str, **arrays: np.ndarray) -> Path:
    np.savez(path, activation=np.array(act), kind=np.array(arrays.pop("kind", "residual")), **arrays)
    return path


def _gelu_pair(tmp: Path) -> Path:
    """x + gelu(x) - gelu(2x): absorbable (relu-limit), m* = 2 (gelu-complete)."""
    return _save(tmp / "b.npz", "gelu", W_up=np.array([[1.0], [2.0]]), W_down=np.array([[1.0, -1.0]]),
                 M=np.array([[1.0]]))


def _relu2_dead(tmp: Path) -> Path:
    """relu2 with a dead unit: homogeneous-impossible, with relu2-biased's answer in other_convention."""
    return _save(tmp / "r2.npz", "relu2", W_up=np.ones((4, 1)), W_down=np.zeros((1, 4)), M=np.array([[1.0]]))


FORGED = [  # (path of the new key, key, value): top level and nested
    ((), "verified_by", "an external prover"),
    ((), "note", "the emitted block was checked by hand"),
    ((), "plain_block_ok", True),
    (("certificate",), "proof", "Coq"),
    (("certificate",), "exhaustive", True),
]


def _add(doc: dict, where: tuple, key: str, value: object) -> dict:
    node = doc
    for k in where:
        node = node[k]
    return put(doc, where + (key,), value)


@pytest.mark.parametrize("where,key,value", FORGED)
def test_an_unknown_field_is_refused_with_its_name(tmp_path, where, key, value):
    f = _gelu_pair(tmp_path)
    r = _cli("check", f, "--replacing-biases", "allowed", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert "search" in doc["certificate"]
    p = tmp_path / "d.json"
    p.write_text(r.stdout)
    ok = _cli("recheck", p, f)
    assert ok.returncode == 0 and ok.stdout.startswith("holds"), ok.stdout
    p.write_text(json.dumps(_add(doc, where, key, value)))
    rr = _cli("recheck", p, f)
    assert rr.returncode == 1, rr.stdout
    name = ".".join(where + (key,))
    assert rr.stdout.startswith(f"does not hold: {name}: is not a field"), rr.stdout
    assert len(rr.stdout.strip().splitlines()) == 1


@pytest.mark.parametrize("key", ["complete", "exact_proof"])
def test_an_unknown_field_of_the_search_is_named_as_not_verified(tmp_path, key):
    """certificate.search is the report of one of several searches: a field the re-check does not
    compare holds, but the holds line names it (never covered silently)."""
    f = _gelu_pair(tmp_path)
    r = _cli("check", f, "--replacing-biases", "allowed", "--json")
    doc = json.loads(r.stdout)
    p = tmp_path / "d.json"
    p.write_text(json.dumps(_add(doc, ("certificate", "search"), key, True)))
    rr = _cli("recheck", p, f)
    assert rr.returncode == 0, rr.stdout
    assert f"not verified: " in rr.stdout and f"certificate.search.{key} " in rr.stdout.split("not verified:")[1]


def test_unknown_fields_in_the_other_answer_and_the_construction_are_refused(tmp_path):
    """Deeper levels whose layout is fixed: certificate.other_convention (an answer) and its
    certificate, and relu-complete's construction."""
    b = Block("relu2", W_up=np.ones((4, 1)), W_down=np.zeros((1, 4)), M=np.array([[1.0]]))
    doc = json.loads(json.dumps(decide(b).as_dict()))
    assert doc["certificate"]["other_convention"]["verdict"] == "absorbable"
    check_block_document(b, doc)
    for where in (("certificate", "other_convention"), ("certificate", "other_convention", "certificate")):
        with pytest.raises(Refused) as e:
            check_block_document(b, _add(doc, where, "trusted", True))
        assert e.value.field == ".".join(where + ("trusted",)), e.value
    r = Block("relu", W_up=np.array([[1.0], [2.0], [3.0]]), W_down=np.array([[1.0, 1.0, -2.0]]), M=np.array([[1.0]]))
    rd = json.loads(json.dumps(decide(r).as_dict()))
    assert rd["certificate"]["kind"] == "relu_complete" and isinstance(rd["certificate"].get("construction"), dict)
    check_block_document(r, rd)
    with pytest.raises(Refused) as e:
        check_block_document(r, _add(rd, ("certificate", "construction"), "verified", True))
    assert e.value.field == "certificate.construction.verified"


def test_a_field_of_another_kind_is_refused(tmp_path):
    """A known name in the wrong place: S (an index set) on a homogeneous-impossible certificate."""
    b = Block("relu2", W_up=np.ones((4, 1)), W_down=np.zeros((1, 4)), M=np.array([[1.0]]))
    doc = json.loads(json.dumps(decide(b).as_dict()))
    assert doc["certificate"]["kind"] == "homogeneous"
    with pytest.raises(Refused) as e:
        check_block_document(b, put(doc, ("certificate", "S"), [0, 1]))
    assert e.value.field == "certificate.S"


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.mark.parametrize("mode", ["plain", "min_width"])
def test_the_emitted_file_is_bound_to_the_document(tmp_path, mode):
    """check --emit P [--min-width] --json records P's SHA-256; recheck verifies the hash and the
    contents; a zero block written over P is refused (also with the hash forged to match it);
    without P the holds line names it as not verified."""
    f = _gelu_pair(tmp_path)
    out = tmp_path / "p.npz"
    extra = ["--min-width"] if mode == "min_width" else []
    r = _cli("check", f, "--emit", out, *extra, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    key = "min_width_block" if mode == "min_width" else "plain_block"
    assert doc[key] == str(out) and doc[f"{key}_sha256"] == _sha(out)
    d = tmp_path / "d.json"
    d.write_text(r.stdout)
    ok = _cli("recheck", d, f)
    assert ok.returncode == 0 and ok.stdout.startswith("holds") and key not in ok.stdout, ok.stdout
    # the witness round trip of the emitted file still agrees
    w = _cli("witness", f, out, "--json")
    assert w.returncode == 0 and json.loads(w.stdout)["verdict"] == "agree", w.stdout
    _save(out, "gelu", kind="plain", W_up=np.zeros((2, 1)), W_down=np.zeros((1, 2)))  # m* = m = 2
    bad = _cli("recheck", d, f)
    assert bad.returncode == 1, bad.stdout
    assert bad.stdout.startswith(f"does not hold: {key}_sha256: states"), bad.stdout
    assert "not the file absorb check wrote" in bad.stdout
    d.write_text(json.dumps(put(doc, (f"{key}_sha256",), _sha(out))))
    bad = _cli("recheck", d, f)
    assert bad.returncode == 1 and bad.stdout.startswith(f"does not hold: {key}: the file"), bad.stdout
    assert "not the block the document states" in bad.stdout
    out.unlink()
    d.write_text(r.stdout)
    gone = _cli("recheck", d, f)
    assert gone.returncode == 0, gone.stdout
    assert f"{key} (the file {out} is not present here" in gone.stdout


def test_a_rounded_emitted_file_is_compared_bit_for_bit(tmp_path):
    """relu sign flip whose b_down + W_S b_S = 1 + 2^-60 is rounded in the file: the file's labels
    and its arrays must be those rebuilt from the certificate."""
    f = _save(tmp_path / "r.npz", "relu", W_up=np.array([[1.0]]), W_down=np.array([[-1.0]]),
              b_up=np.array([2.0 ** -60]), b_down=np.array([1.0]), M=np.array([[1.0]]))
    out = tmp_path / "q.npz"
    r = _cli("check", f, "--emit", out, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["certificate"]["emitted_block"]["rounded"] == ["b_down"]
    d = tmp_path / "d.json"
    d.write_text(r.stdout)
    assert _cli("recheck", d, f).returncode == 0
    # the same file without its rounding label, hash updated: refused (labels), exit 1
    arrays = dict(np.load(out))
    arrays = {k: v for k, v in arrays.items() if k not in ("rounded", "rounding_error")}
    np.savez(out, **arrays)
    d.write_text(json.dumps(put(doc, ("plain_block_sha256",), _sha(out))))
    bad = _cli("recheck", d, f)
    assert bad.returncode == 1 and bad.stdout.startswith("does not hold: plain_block: the file"), bad.stdout
    # labelled, but b_down changed by one ulp: refused (arrays)
    arrays["b_down"] = np.nextafter(arrays["b_down"], 2.0)
    np.savez(out, rounded=np.array("b_down"), **arrays)
    d.write_text(json.dumps(put(doc, ("plain_block_sha256",), _sha(out))))
    bad = _cli("recheck", d, f)
    assert bad.returncode == 1 and "b_down differs" in bad.stdout, bad.stdout


def test_a_plain_block_on_a_verdict_that_emits_none_is_refused(tmp_path):
    b = Block("relu2", W_up=np.ones((4, 1)), W_down=np.zeros((1, 4)), M=np.array([[1.0]]))
    doc = json.loads(json.dumps(decide(b).as_dict()))
    assert doc["verdict"] == "not_absorbable"
    with pytest.raises(Refused) as e:
        check_block_document(b, put(doc, ("plain_block",), "p.npz"))
    assert e.value.field == "plain_block"
