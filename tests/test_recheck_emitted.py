"""The emitted-block fields of a check document are re-checked (issue 29, trust round four).

A certificate that emits a replacing block states what the emitted file is: ``emitted_block``
(``exact``: whether the construction is exactly representable in float64; ``rounded``: the arrays
the file holds rounded; ``max_entry_error``: how far, per array) and ``emitted_block_exact``.
``absorb recheck`` rebuilds that record from the certificate's own data (the class plan of
relu2-biased (C)/(D), the affine construction of gated-biased (D), the padded flip, the flip set or
index set, the relu-complete construction) and refuses a document whose record differs, naming the
field.  Before this, every such forgery on relu2-biased (C) (and on the other kinds) held.

Claims exercised: relu2-biased ((A), (C), (D)), gated-biased ((A), (D), padding), relu-limit,
relu-complete, glu-flip.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from oracle.core import io as bio
from oracle.core.blocks import Block
from oracle.decide import decide
from oracle.decide.document import Refused, check_block_document
from forgery import put as _put

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples"
TINY = 2.0 ** -60  # b_down + W_S b_S = 1 + 2^-60 is not a float64: the emitted file rounds it


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "oracle.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


def _forgeries(cert: dict) -> list[tuple[tuple, object, str]]:
    """(path, forged value, field the refusal must name): the boolean flipped (in both places), the
    rounded arrays and the entry errors changed."""
    rec = cert["emitted_block"]
    out = [(("certificate", "emitted_block", "exact"), not rec["exact"], "certificate.emitted_block.exact"),
           (("certificate", "emitted_block_exact"), not cert["emitted_block_exact"],
            "certificate.emitted_block_exact")]
    if rec["rounded"]:
        out.append((("certificate", "emitted_block", "rounded"), [], "certificate.emitted_block.rounded"))
        k = rec["rounded"][0]
        out.append((("certificate", "emitted_block", "max_entry_error", k), rec["max_entry_error"][k] / 4,
                    f"certificate.emitted_block.max_entry_error.{k}"))
        # a consistent lie: exact, nothing rounded, no error
        out.append((("certificate", "emitted_block"), {**rec, "exact": True, "rounded": [], "max_entry_error": {}},
                    "certificate.emitted_block.exact"))
    else:
        out.append((("certificate", "emitted_block", "rounded"), ["W_up"], "certificate.emitted_block.rounded"))
        out.append((("certificate", "emitted_block", "max_entry_error"), {"W_up": 1e-3},
                    "certificate.emitted_block.max_entry_error"))
        # a consistent lie: not exact, W_up rounded
        out.append((("certificate", "emitted_block"), {**rec, "exact": False, "rounded": ["W_up"],
                                                       "max_entry_error": {"W_up": 1e-3}},
                    "certificate.emitted_block.exact"))
    return out


def test_relu2_part_c_emitted_block_forgeries_are_refused_by_the_cli(tmp_path):
    """relu2-biased (C) (examples/relu2_degenerate.npz, the biased question): each forged field is
    refused by `absorb recheck` with exit 1 and a reason naming the field; the true document holds."""
    f = EX / "relu2_degenerate.npz"
    r = _cli("check", f, "--json", "--replacing-biases", "allowed")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    c = doc["certificate"]
    assert (doc["verdict"], c["kind"], c["part"]) == ("absorbable", "biased_flip", "C")
    p = tmp_path / "true.json"
    p.write_text(r.stdout)
    rr = _cli("recheck", p, f)
    assert rr.returncode == 0 and rr.stdout.startswith("holds"), rr.stdout + rr.stderr
    for path, value, field in _forgeries(c):
        q = tmp_path / "forged.json"
        q.write_text(json.dumps(_put(doc, path, value)))
        rr = _cli("recheck", q, f)
        assert rr.returncode == 1, (path, rr.stdout, rr.stderr)
        assert rr.stdout.startswith(f"does not hold: {field}"), (path, rr.stdout)


def _zero_gates(gate: str, sign: float = 1.0) -> Block:
    return Block(gate, W_gate=np.zeros((2, 2)), b_gate=np.ones(2), W_up=np.eye(2), W_down=sign * np.eye(2))


def _pairs_d2_m8() -> Block:
    U, W = np.zeros((8, 2)), np.zeros((2, 8))
    U[0] = U[1] = [1, 2]
    W[:, 0], W[:, 1] = [1, -1], [-1, 1]
    U[2] = U[3] = [0, 1]
    W[:, 2], W[:, 3] = [2, 1], [-2, -1]
    return Block("relu2", W_up=U, W_down=W)


def _bounds_pairs() -> Block:
    """12 kink hyperplanes (36 units, three per hyperplane), d = 6: beyond the enumeration limit, the
    construction with pairs +-e_j (h + 2d <= m) is emitted (as in tests/test_check_paths.py)."""
    rng = np.random.default_rng(5)
    base = rng.integers(-4, 5, (12, 6)).astype(float)
    base[base[:, 0] == 0, 0] = 1.0
    return Block("relu", W_up=np.vstack([base, 2 * base, base / 2]), W_down=rng.integers(-4, 5, (6, 36)) / 8.0)


# (name, block, question, expected kind, expected part, whether the emitted file is rounded)
CASES = [
    ("relu2 (A)", lambda: bio.read_block(EX / "relu2_biased_absorbable.npz"), "auto", "biased_flip", "A", False),
    ("swiglu (A)", lambda: bio.read_block(EX / "swiglu_biased_absorbable.npz"), "auto", "biased_flip", "A", False),
    ("relu2 (D1)", _pairs_d2_m8, "allowed", "biased_flip", "D", False),
    ("relu2 (D2)", lambda: Block("relu2", W_up=np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]]),
                                 W_down=np.array([[0.0, 1.0, -1.0], [1.0, 3.0, -3.0]]), b_up=np.array([0.0, 0.5, 0.5]),
                                 M=np.array([[0.0, 0.0], [2.0, 0.0]])), "allowed", "biased_flip", "D", None),
    ("reglu (D)", lambda: _zero_gates("reglu"), "allowed", "biased_flip", "D", None),
    ("swiglu (D), rounded gate values", lambda: _zero_gates("swiglu"), "allowed", "biased_flip", "D", True),
    ("glu (D) without biases", lambda: _zero_gates("glu"), "none", "biased_flip", "D", None),
    ("reglu padded", lambda: Block("reglu", W_up=np.array([[1.0], [1.0], [0.0]]), W_down=np.array([[1.0, 0.0, 0.0]]),
                                   W_gate=np.array([[1.0], [2.0], [1.0]]), b_gate=np.array([0.5, 0.0, 0.0])),
     "allowed", "biased_flip", "A+padding", None),
    ("gelu relu-limit", lambda: bio.read_block(EX / "gelu_biased.npz"), "auto", "relu_limit", None, False),
    ("gelu relu-limit, rounded b_down", lambda: Block("gelu", W_up=np.array([[1.0]]), W_down=np.array([[-1.0]]),
                                                      b_up=np.array([TINY]), b_down=np.array([1.0])),
     "auto", "relu_limit", None, True),
    ("relu relu-complete", lambda: bio.read_block(EX / "relu_absorbable.npz"), "auto", "relu_complete", None, None),
    ("relu unit flip, rounded b_down", lambda: Block("relu", W_up=np.array([[1.0]]), W_down=np.array([[-1.0]]),
                                                     b_up=np.array([TINY]), b_down=np.array([1.0])),
     "auto", "relu_complete", None, None),
    ("relu-complete bounds, pairs", _bounds_pairs, "auto", "relu_complete_bounds", None, False),
    ("glu index set", lambda: Block("glu", W_up=np.eye(2), W_down=-np.eye(2), W_gate=np.eye(2)), "auto",
     "index_set", None, False),
]


@pytest.mark.parametrize("name,make,conv,kind,part,rounded", CASES, ids=[c[0] for c in CASES])
def test_emitted_block_forgeries_are_refused_for_every_kind(name, make, conv, kind, part, rounded):
    b = make()
    doc = json.loads(json.dumps(decide(b, replacing_biases=conv).as_dict()))
    c = doc["certificate"]
    assert (doc["verdict"], c["kind"], c.get("part")) == ("absorbable", kind, part), (doc["verdict"], doc["reason"])
    if rounded is not None:
        assert c["emitted_block"]["exact"] is (not rounded), c["emitted_block"]
    held = check_block_document(b, doc)
    assert "certificate.emitted_block (" not in held, held  # rebuilt, not merely named
    for path, value, field in _forgeries(c):
        with pytest.raises(Refused) as e:
            check_block_document(b, _put(doc, path, value))
        assert e.value.field.startswith(field), (path, str(e.value))


def test_an_emitted_block_on_a_verdict_that_emits_none_is_refused():
    """A not_absorbable document that states an emitted block is refused."""
    b = bio.read_block(EX / "gelu_random.npz")
    doc = json.loads(json.dumps(decide(b).as_dict()))
    assert doc["verdict"] == "not_absorbable"
    rec = {"exact": True, "rounded": [], "max_entry_error": {}}
    with pytest.raises(Refused) as e:
        check_block_document(b, _put(doc, ("certificate", "emitted_block"), rec))
    assert e.value.field == "certificate.emitted_block"
