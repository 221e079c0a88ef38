"""`absorb recheck` verifies the bias-convention fields of a check document (issue 29, referee round
four, findings F1 and F3): the question decided (``replacing_biases``, top level and in the
certificate), each question's answer (``biases_allowed``, ``biases_none``), the other question's
answer with its certificate (``certificate.other_convention``, verified like the main one), and a
stack document's ``replacing_biases``.  A forged field is refused with the field named; check's own
documents hold, including the undecided one whose reason quotes the other question's answer.

The blocks are the referee's (/work/wt-ref29/referee/blocks, rebuilt here from their weights).
Claims exercised: relu2-biased, homogeneous-impossible, gated-biased, gated-impossible, depth-narrow.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from oracle.cli import main
from forgery import put

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(path: Path, act: str, **arrs) -> Path:
    np.savez(path, activation=np.array(act), kind=np.array("residual"),
             **{k: np.array(v, dtype=float) for k, v in arrs.items()})
    return path


BLOCKS = {
    # relu2, d = 1, bias-free, M = -1: absorbable with biases (relu2-biased (C)), not without (homogeneous)
    "relu2": dict(act="relu2", W_up=[[-2.0], [1.0], [-2.0]], W_down=[[-0.5, 0.0, 0.0]], b_up=[0.0, 0.0, 0.0],
                  b_down=[0.0], M=[[-1.0]]),
    # reglu, d = m = 1, W_down = 0, M = 1: absorbable with biases (gated-biased), not without
    "reglu": dict(act="reglu", W_up=[[1.0]], W_down=[[0.0]], b_up=[0.0], M=[[1.0]], W_gate=[[1.0]]),
    # swiglu, d = 2, m = 3, bias-free, M = I, two units with zero outputs and one live unit: with
    # biases undecided (neither the zero-unit padding nor gated-biased (D) applies), without not
    # absorbable (gated-impossible).  (The d = m = 1 block with W_down = 0 used before is affine,
    # F = x, and gated-biased (D) now decides it.)
    "swiglu": dict(act="swiglu", W_up=[[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], W_down=[[0.0, 0.0, 1.0], [0.0, 0.0, 0.5]],
                   M=[[1.0, 0.0], [0.0, 1.0]], W_gate=[[1.0, -1.0], [2.0, 1.0], [1.0, 1.0]], b_gate=[0.0, 0.0, 0.0]),
}


def doc_of(capsys, tmp_path: Path, name: str, *flags) -> tuple[dict, Path]:
    spec = dict(BLOCKS[name])
    f = write(tmp_path / f"{name}.npz", spec.pop("act"), **spec)
    code, out, err = run(capsys, "check", "--json", *flags, f)
    assert code == 0, err
    return json.loads(out), f


def recheck(capsys, tmp_path: Path, doc: dict, *files) -> tuple[int, str]:
    p = tmp_path / "doc.json"
    p.write_text(json.dumps(doc))
    code, out, err = run(capsys, "recheck", p, *files)
    assert len(out.strip().splitlines()) == 1, (out, err)
    return code, out


@pytest.mark.parametrize("name, flags", [("relu2", ()), ("relu2", ("--replacing-biases", "none")),
                                         ("reglu", ()), ("reglu", ("--replacing-biases", "allowed")),
                                         ("swiglu", ()), ("swiglu", ("--replacing-biases", "allowed"))])
def test_check_documents_hold(capsys, tmp_path, name, flags):
    doc, f = doc_of(capsys, tmp_path, name, *flags)
    code, out = recheck(capsys, tmp_path, doc, f)
    assert code == 0 and out.startswith("holds:"), out


def test_swiglu_undecided_document_holds_and_its_quoted_answer_is_checked(capsys, tmp_path):
    """F3: check's own convention_not_decided document; its reason quotes the other question's
    answer (not_absorbable), which is compared with biases_none, not with this verdict."""
    doc, f = doc_of(capsys, tmp_path, "swiglu", "--replacing-biases", "allowed")
    assert doc["verdict"] == "undecided" and doc["certificate"]["kind"] == "convention_not_decided"
    assert "without biases the answer is not_absorbable" in doc["reason"]
    code, out = recheck(capsys, tmp_path, doc, f)
    assert code == 0 and out.startswith("holds:"), out
    # the quoted answer is still checked: changed to a different one, it is refused
    bad = dict(doc, reason=doc["reason"].replace("answer is not_absorbable", "answer is absorbable"))
    code, out = recheck(capsys, tmp_path, bad, f)
    assert code == 1 and out.startswith("does not hold: reason:"), out
    # a not_absorbable token outside that clause is still this verdict's
    bad = dict(doc, reason=doc["reason"] + "; so the block is not_absorbable")
    code, out = recheck(capsys, tmp_path, bad, f)
    assert code == 1 and out.startswith("does not hold: reason:"), out


ALLOWED, NONE = ("--replacing-biases", "allowed"), ("--replacing-biases", "none")
RB, CRB = ("replacing_biases",), ("certificate", "replacing_biases")
OC = ("certificate", "other_convention")

# (block, check flags, [(forged path, forged value)], field the refusal names)
FORGERIES = [
    # the referee's relu2 forgery: the question changed to 'none' (both places, or one)
    ("relu2", ALLOWED, [(RB, "none"), (CRB, "none")], "certificate.replacing_biases"),
    ("relu2", ALLOWED, [(RB, "none")], "replacing_biases"),
    ("relu2", ALLOWED, [(CRB, "none")], "replacing_biases"),
    ("relu2", ALLOWED, [(RB, "both"), (CRB, "both")], "certificate.replacing_biases"),
    ("relu2", ALLOWED, [(("biases_allowed", "verdict"), "not_absorbable")], "biases_allowed.verdict"),
    ("relu2", ALLOWED, [(("biases_allowed", "exact"), False)], "biases_allowed.exact"),
    ("relu2", ALLOWED, [(("biases_allowed",), None)], "biases_allowed"),
    ("relu2", ALLOWED, [(("biases_none", "verdict"), "absorbable")], "biases_none.verdict"),
    ("relu2", ALLOWED, [(("biases_none", "claim"), "relu2-biased")], "biases_none.claim"),
    ("relu2", ALLOWED, [(("biases_none",), None)], "biases_none"),
    ("relu2", ALLOWED, [(OC + ("verdict",), "absorbable")], "certificate.other_convention.verdict"),
    ("relu2", ALLOWED, [(OC + ("claim",), "relu2-biased")], "certificate.other_convention.claim"),
    ("relu2", ALLOWED, [(OC + ("replacing_biases",), "allowed")], "certificate.other_convention.replacing_biases"),
    ("relu2", ALLOWED, [(OC + ("certificate", "block", "m"), 4)], "certificate.other_convention.certificate.block.m"),
    ("relu2", ALLOWED, [(OC + ("certificate", "M_nonzero_entry"), [0, 0, 2.0])],
     "certificate.other_convention.certificate"),
    # the bias-free question decided (check's default for this block), the other one's certificate forged
    ("relu2", NONE, [(OC + ("verdict",), "not_absorbable")], "certificate.other_convention.verdict"),
    ("relu2", NONE, [(OC + ("certificate", "outcome"), "not_absorbable")], "certificate.other_convention"),
    ("relu2", NONE, [(OC + ("certificate", "classes", "status"), "none")], "certificate.other_convention"),
    ("relu2", NONE, [(("biases_allowed", "verdict"), "not_absorbable")], "biases_allowed.verdict"),
    ("relu2", NONE, [(("biases_none",), None)], "biases_none"),
    ("relu2", NONE, [(RB, "allowed"), (CRB, "allowed")], "certificate.replacing_biases"),
    # the referee's reglu forgery: with biases allowed, 'not_absorbable'
    ("reglu", ALLOWED, [(("verdict",), "not_absorbable")], "verdict"),
    ("reglu", ALLOWED, [(RB, "none"), (CRB, "none")], "biases_none"),  # the padded block is not rebuilt
    ("reglu", NONE, [(RB, "allowed"), (CRB, "allowed")], "certificate.replacing_biases"),
    ("reglu", NONE, [(("biases_allowed", "verdict"), "not_absorbable")], "biases_allowed.verdict"),
    ("swiglu", ALLOWED, [(("biases_none", "verdict"), "absorbable")], "biases_none.verdict"),
    ("swiglu", ALLOWED, [(("biases_allowed",), {"verdict": "absorbable", "claim": "gated-biased", "exact": True})],
     "biases_allowed"),
    ("swiglu", ALLOWED, [(OC + ("verdict",), "absorbable")], "certificate.other_convention.verdict"),
    ("swiglu", ALLOWED, [(RB, "none"), (CRB, "none")], "biases_none"),
]


@pytest.mark.parametrize("name, flags, edits, field", FORGERIES)
def test_forged_convention_fields_are_refused(capsys, tmp_path, name, flags, edits, field):
    doc, f = doc_of(capsys, tmp_path, name, *flags)
    code, out = recheck(capsys, tmp_path, doc, f)
    assert code == 0, out  # the true document holds
    bad = doc
    for path, value in edits:
        bad = put(bad, path, value)
    assert bad != doc
    code, out = recheck(capsys, tmp_path, bad, f)
    assert code == 1 and out.startswith(f"does not hold: {field}"), out


def test_other_convention_removed_is_refused(capsys, tmp_path):
    doc, f = doc_of(capsys, tmp_path, "relu2", *ALLOWED)
    bad = copy.deepcopy(doc)
    del bad["certificate"]["other_convention"]
    code, out = recheck(capsys, tmp_path, bad, f)
    assert code == 1 and out.startswith("does not hold: biases_none"), out


@pytest.mark.parametrize("value", ["none", "both", "allowed"])
def test_stack_convention_forgery_is_refused(capsys, tmp_path, value):
    """The referee's stack case: examples/relu_stack_narrow.npz (depth-narrow, 'unstated')."""
    code, out, err = run(capsys, "check", "--json", ROOT / "examples" / "relu_stack_narrow.npz")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["replacing_biases"] == "unstated"
    code, out = recheck(capsys, tmp_path, doc)
    assert code == 0, out
    code, out = recheck(capsys, tmp_path, dict(doc, replacing_biases=value))
    assert code == 1 and out.startswith("does not hold: replacing_biases"), out


@pytest.mark.parametrize("act", ["silu", "relu2"])
def test_one_block_stack_states_its_block_convention(capsys, tmp_path, act):
    """A one-block stack document states its block certificate's question, decided or not (the
    roundtrip test drew an undecided silu block with W_up = W_down = 0); a changed one is refused."""
    from oracle.core.blocks import Block, Stack
    from oracle.core.stackfiles import write_stack
    f = tmp_path / "stack.npz"
    write_stack(Stack([Block(act, W_up=np.zeros((1, 1)), W_down=np.zeros((1, 1)))]), f)
    code, out, err = run(capsys, "check", "--json", f)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["replacing_biases"] == doc["certificate"]["block_certificate"]["replacing_biases"]
    code, out = recheck(capsys, tmp_path, doc)
    assert code == 0 and out.startswith("holds:"), out
    other = {"none": "allowed", "allowed": "none"}[doc["replacing_biases"]]
    code, out = recheck(capsys, tmp_path, dict(doc, replacing_biases=other))
    assert code == 1 and out.startswith("does not hold: replacing_biases"), out


@pytest.mark.parametrize("act", ["gelu", "silu", "gelu_tanh"])
def test_a_bias_free_not_absorbable_does_not_answer_the_biased_question(capsys, tmp_path, act):
    """Referee round 4: with biases in the block, `--replacing-biases none` gives not_absorbable
    (gelu-complete (b): no bias-free block has F(0) != 0) while the question with
    biases is absorbable.  A document with the other certificate dropped and biases_allowed set to the
    main answer held as if verified; a not_absorbable answer to the bias-free question says nothing
    about blocks with biases, so that field was named as not verified, and since referee ref6d F1
    (check attaches the other answer's certificate whenever one decides it) it is refused."""
    f = write(tmp_path / "b.npz", act, W_up=[[1.0]], W_down=[[-1.0]], b_up=[0.5])
    code, out, err = run(capsys, "check", f, "--json", "--replacing-biases", "none")
    doc = json.loads(out)
    assert doc["verdict"] == "not_absorbable" and doc["biases_allowed"]["verdict"] == "absorbable", doc
    forged = put(doc, ("biases_allowed",), {k: doc[k] for k in ("verdict", "claim", "exact")})
    del forged["certificate"]["other_convention"]
    cert = tmp_path / "forged.json"
    cert.write_text(json.dumps(forged))
    code, out, err = run(capsys, "recheck", cert, f)
    assert code == 1 and out.startswith("does not hold: biases_allowed: "), out + err
    assert "'allowed' without a certificate (certificate.other_convention)" in out, out


@pytest.mark.parametrize("act,kw", [
    ("relu2", dict(W_up=[[1.0], [2.0]], W_down=[[1.0, 1.0]])),
    ("swiglu", dict(W_up=[[1.0, 0.0], [0.0, 1.0]], W_gate=[[1.0, 0.0], [0.0, 1.0]], W_down=[[1.0, 0.0], [0.0, 1.0]],
                    M=[[1.0, 0.0], [0.0, 1.0]])),
])
def test_an_equal_answer_to_the_other_question_comes_with_its_certificate(capsys, tmp_path, act, kw):
    """Referee round 4 (B3, other_same): homogeneous-impossible / gated-impossible answer only the
    bias-free question; the answer with biases (relu2-biased / gated-biased: not absorbable either)
    used to be stated without a certificate and named as not verified.  check now attaches it in
    other_convention, recheck verifies it, and a forged one is refused."""
    f = write(tmp_path / "b.npz", act, **kw)
    code, out, err = run(capsys, "check", f, "--json")
    doc = json.loads(out)
    oc = doc["certificate"]["other_convention"]
    assert doc["certificate"]["kind"] in ("homogeneous", "gated_zero") and doc["replacing_biases"] == "none"
    assert oc["verdict"] == doc["verdict"] == "not_absorbable" and oc["certificate"]["kind"] == "biased_flip"
    code, out = recheck(capsys, tmp_path, doc, f)
    assert code == 0 and "stated without a certificate" not in out, out
    for path, value in ((OC + ("verdict",), "absorbable"), (OC + ("certificate", "search", "status"), "found")):
        code, out = recheck(capsys, tmp_path, put(doc, path, value), f)
        assert code == 1 and out.startswith("does not hold: certificate.other_convention"), out
