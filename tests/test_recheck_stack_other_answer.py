"""A stack document's answer to the other bias question carries its certificate (issue 29).

`absorb check STACK --replacing-biases allowed|none` leaves a stack undecided when the decision it
found answers another question; the answer found is stated in ``other_convention``. It used to be a
verdict, a claim and exactness only; it is now the whole decision (reason, certificate, plain stack
when absorbable), which `absorb recheck` verifies from the document (oracle/decide/stacks.py,
``check_other_answer``). A decided answer to the other question that no certificate answers is
refused with one line naming the field, like the block documents' (tests/test_recheck_other_answer.py):
the certificate removed (with or without the verdict flipped), ``other_convention`` added beside a
decided verdict, or a ``biases_allowed`` answer, which check never writes in a stack document.
Every run through the CLI, as a user would.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from oracle.core.blocks import Block, Stack
from oracle.core.stackfiles import write_stack

ROOT = Path(__file__).resolve().parents[1]
ABSORB = [sys.executable, "-m", "oracle.cli"]
EX = ROOT / "examples"
REF29 = ROOT / "tests" / "data" / "referee29"
FLIP = {"absorbable": "not_absorbable", "not_absorbable": "absorbable"}


def absorb(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*ABSORB, *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


def check(stack: Path, question: str) -> dict:
    r = absorb("check", str(stack), "--json", "--replacing-biases", question)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def recheck(doc: dict, tmp_path: Path, stack: Path) -> subprocess.CompletedProcess:
    p = tmp_path / "doc.json"
    p.write_text(json.dumps(doc))
    cert = doc["certificate"]
    needs_file = doc["claim"] is None and doc["verdict"] == "undecided" and "block_certificate" not in cert
    return absorb("recheck", str(p), *((str(stack),) if needs_file else ()))


def refused(r: subprocess.CompletedProcess, field: str) -> None:
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert len(r.stdout.strip().splitlines()) == 1, out
    assert r.stdout.startswith(f"does not hold: {field}:"), out


def _built(tmp_path: Path, name: str) -> Path:
    """Stacks of the shapes the examples do not have: a d = 1 biased relu stack, a flat relu2 stack,
    a one-block gelu stack with a bias, and a fold then a dead biased block (d = 2)."""
    one = np.array([[1.0]])
    stacks = {
        "d1_biased": Stack([Block("relu", W_up=one, W_down=-one, b_up=np.array([0.5])),
                            Block("relu", W_up=one, W_down=-one)]),
        "relu2_flat": Stack([Block("relu2", W_up=np.array([[1.0, 0.5]]), W_down=np.array([[0.25], [-0.5]])),
                             Block("relu2", W_up=np.array([[0.5, 1.0]]), W_down=np.array([[1.0], [0.5]]))]),
        "one_gelu": Stack([Block("gelu", W_up=one, W_down=-one, b_up=np.array([0.5]))]),
        "dead_biased": Stack([Block("relu", W_up=np.eye(2), W_down=-np.eye(2)),
                              Block("relu", W_up=np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
                                    W_down=np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]),
                                    b_up=np.array([0.0, 0.0, -1.0]), b_down=np.array([1.0, 1.0]))]),
    }
    p = tmp_path / f"{name}.npz"
    write_stack(stacks[name], p)
    return p


# (stack, question) whose document states a decided answer to the other question
OTHER = [(EX / "relu_stack_narrow.npz", "allowed"), (EX / "relu_stack_narrow.npz", "none"),
         (EX / "relu_stack_near_identity.npz", "allowed"), (EX / "relu_stack_d3_near_identity.npz", "none"),
         (REF29 / "d4_dead_biased.npz", "none")]


@pytest.mark.parametrize("stack,question", OTHER, ids=lambda x: getattr(x, "stem", x))
def test_other_answer_carries_a_certificate_and_forgeries_are_refused(tmp_path: Path, stack: Path,
                                                                     question: str) -> None:
    doc = check(stack, question)
    oc = doc["other_convention"]
    assert doc["verdict"] == "undecided" and doc["claim"] is None
    assert oc["verdict"] in FLIP and oc["replacing_biases"] != question
    assert oc["certificate"] == doc["certificate"] and oc["reason"]
    assert ("plain_stack" in oc) == (oc["verdict"] == "absorbable")
    ok = recheck(doc, tmp_path, stack)
    assert ok.returncode == 0 and ok.stdout.startswith("holds:"), ok.stdout + ok.stderr

    # the forgery of referee ref6d F1, for stacks: the certificate removed and the verdict flipped
    forged = json.loads(json.dumps(doc))
    for k in ("certificate", "reason", "plain_stack"):
        forged["other_convention"].pop(k, None)
    forged["other_convention"]["verdict"] = FLIP[oc["verdict"]]
    refused(recheck(forged, tmp_path, stack), "other_convention.certificate")
    # the true verdict without its certificate (the shape check wrote before): refused too
    bare = json.loads(json.dumps(doc))
    for k in ("certificate", "reason", "plain_stack"):
        bare["other_convention"].pop(k, None)
    refused(recheck(bare, tmp_path, stack), "other_convention.certificate")
    # the certificate kept, the verdict flipped: the certificate does not support it
    flipped = json.loads(json.dumps(doc))
    flipped["other_convention"]["verdict"] = FLIP[oc["verdict"]]
    refused(recheck(flipped, tmp_path, stack), "other_convention")
    # the question it answers changed
    asked = json.loads(json.dumps(doc))
    asked["other_convention"]["replacing_biases"] = question
    refused(recheck(asked, tmp_path, stack), "other_convention.replacing_biases")


@pytest.mark.parametrize("stack", [EX / "relu_stack_narrow.npz", EX / "relu_stack_d1_referee.npz",
                                   REF29 / "s4_width1_monotone.npz"], ids=lambda x: x.stem)
def test_an_other_answer_beside_a_decided_verdict_is_refused(tmp_path: Path, stack: Path) -> None:
    doc = check(stack, "auto")
    assert doc["verdict"] in FLIP and "other_convention" not in doc and "biases_allowed" not in doc
    assert recheck(doc, tmp_path, stack).returncode == 0
    wrong = {"verdict": FLIP[doc["verdict"]], "claim": doc["claim"], "exact": True, "replacing_biases": "allowed"}
    refused(recheck(dict(doc, other_convention=wrong), tmp_path, stack), "other_convention")
    refused(recheck(dict(doc, biases_allowed={k: wrong[k] for k in ("verdict", "claim", "exact")}), tmp_path, stack),
            "biases_allowed")


EXAMPLES = sorted(EX.glob("*stack*.npz")) + [REF29 / f"{n}.npz" for n in (
    "d4_dead_biased", "s2_d1_biased_example", "s4_width1_monotone", "s5_cancel_kinks_w1")]


@pytest.mark.parametrize("question", ["auto", "allowed", "none"])
@pytest.mark.parametrize("stack", EXAMPLES, ids=lambda x: x.stem)
def test_every_true_stack_document_holds(tmp_path: Path, stack: Path, question: str) -> None:
    doc = check(stack, question)
    r = recheck(doc, tmp_path, stack)
    assert r.returncode == 0 and r.stdout.startswith("holds:"), r.stdout + r.stderr


@pytest.mark.parametrize("question", ["auto", "allowed", "none"])
@pytest.mark.parametrize("name", ["d1_biased", "relu2_flat", "one_gelu", "dead_biased"])
def test_built_stack_documents_hold(tmp_path: Path, name: str, question: str) -> None:
    stack = _built(tmp_path, name)
    doc = check(stack, question)
    oc = doc.get("other_convention")
    assert oc is None or "certificate" in oc
    r = recheck(doc, tmp_path, stack)
    assert r.returncode == 0 and r.stdout.startswith("holds:"), r.stdout + r.stderr
    if "block_certificate" in doc["certificate"]:
        # a one-block stack: the block re-check's own reason, not verified fields included
        assert "(one block: the " in r.stdout, r.stdout
