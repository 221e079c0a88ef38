"""A decided answer to the other bias question needs a certificate (issue 29, referee ref6d F1).

`absorb check` attaches ``certificate.other_convention`` whenever some certificate decides the
other question.  A document that states a decided ``biases_<other>`` without it, when the main
certificate does not answer that question itself, is a forgery (referee/ref4/other_answer_forgery.py:
delete ``other_convention`` and copy the main verdict): `absorb recheck` refuses it, exit 1, naming
the field.  The true documents of the shapes that used to carry such an answer (part (D) affine
relu2 / gated blocks asked 'none', whose part (D) certificate was computed for blocks with biases)
hold, verified; so does a glu flip whose b_down correction is stated.  Everything runs through the
CLI in subprocesses, as a user runs it.
Claims exercised: relu-complete, relu2-biased, gated-biased, gelu-complete.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def absorb(*argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "oracle.cli", *map(str, argv)], capture_output=True, text=True,
                          cwd=ROOT)


def write(path: Path, act: str, **arrs) -> Path:
    np.savez(path, activation=np.array(act), kind=np.array("residual"),
             **{k: np.array(v, dtype=float) for k, v in arrs.items()})
    return path


def check_doc(f: Path, conv: str) -> dict:
    r = absorb("check", f, "--json", "--replacing-biases", conv)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def recheck(tmp_path: Path, doc: dict, f: Path) -> subprocess.CompletedProcess:
    p = tmp_path / "doc.json"
    p.write_text(json.dumps(doc))
    r = absorb("recheck", p, f)
    assert len(r.stdout.strip().splitlines()) == 1, (r.stdout, r.stderr)
    return r


# referee/ref4/other_answer_forgery.py's blocks: x - s(x + 1/2) and the gated twins (absorbable with
# biases, F(0) != 0 so not without); relu2 there is not absorbable either way, so its relu2 block is
# x -> -2x + relu2(x + 1) - relu2(x) (flip both units: absorbable with biases; F(0) = 1)
FORGERY_BLOCKS = {
    "gelu": dict(W_up=[[1.]], b_up=[.5], W_down=[[-1.]], b_down=[0.]),
    "silu": dict(W_up=[[1.]], b_up=[.5], W_down=[[-1.]], b_down=[0.]),
    "gelu_tanh": dict(W_up=[[1.]], b_up=[.5], W_down=[[-1.]], b_down=[0.]),
    "relu": dict(W_up=[[1.]], b_up=[.5], W_down=[[-1.]], b_down=[0.]),
    "relu2": dict(W_up=[[1.], [1.]], b_up=[1., 0.], W_down=[[1., -1.]], b_down=[0.], M=[[-2.]]),
    "swiglu": dict(W_gate=[[0.]], b_gate=[1.], W_up=[[1.]], b_up=[.5], W_down=[[-1.]], b_down=[0.]),
    "reglu": dict(W_gate=[[0.]], b_gate=[1.], W_up=[[1.]], b_up=[.5], W_down=[[-1.]], b_down=[0.]),
}


@pytest.mark.parametrize("act", sorted(FORGERY_BLOCKS))
def test_an_answer_to_the_other_question_without_its_certificate_is_refused(tmp_path, act):
    f = write(tmp_path / f"{act}.npz", act, **FORGERY_BLOCKS[act])
    doc = check_doc(f, "none")
    assert doc["verdict"] == "not_absorbable" and doc["biases_allowed"]["verdict"] == "absorbable", doc
    assert doc["certificate"]["other_convention"]["verdict"] == "absorbable"
    r = recheck(tmp_path, doc, f)
    assert r.returncode == 0 and r.stdout.startswith("holds:"), r.stdout + r.stderr
    forged = json.loads(json.dumps(doc))
    del forged["certificate"]["other_convention"]
    forged["biases_allowed"] = {k: doc[k] for k in ("verdict", "claim", "exact")}
    r = recheck(tmp_path, forged, f)
    assert r.returncode == 1 and r.stdout.startswith("does not hold: biases_allowed: "), r.stdout + r.stderr
    assert "without a certificate" in r.stdout, r.stdout
    # the true answer copied without its certificate is refused as well (it is not the main one's)
    honest = json.loads(json.dumps(doc))
    del honest["certificate"]["other_convention"]
    r = recheck(tmp_path, honest, f)
    assert r.returncode == 1 and r.stdout.startswith("does not hold: biases_allowed"), r.stdout + r.stderr


# true documents of the shapes found by generating check documents (before: biases_allowed stated
# without a certificate and named as not verified, or a field refused); each with every question
TRUE_BLOCKS = {
    # relu2-biased (D1): units cancel, F affine with N = -I of rank 2 > m/4: not absorbable either way
    "relu2_affine": ("relu2", dict(W_up=[[-1., -1.], [-1., -1.], [0., 1.]], W_down=[[-1., 1., 1.], [-2., 2., 2.]],
                                   b_up=[.5, .5, 0.], b_down=[1., -.5], M=[[-1., 0.], [0., -1.]])),
    # gated-biased (D): one unit with zero output / gate row 0
    "reglu_affine": ("reglu", dict(W_up=[[0., 0., -2.]], W_down=[[0.], [0.], [0.]], W_gate=[[-2., -1., -1.]],
                                   b_up=[1.], b_down=[1., -.5, 0.], M=np.eye(3).tolist())),
    "swiglu_affine": ("swiglu", dict(W_up=[[-1., 2.]], W_down=[[-2.], [1.]], W_gate=[[0., 0.]], b_gate=[0.],
                                     b_up=[0.], b_down=[-.5, 0.], M=[[-1., 0.], [0., -1.]])),
    "geglu_affine": ("geglu", dict(W_up=[[-1., 0.]], W_down=[[-2.], [0.]], W_gate=[[0., 0.]], b_gate=[-2.],
                                   b_up=[-.5], b_down=[0., -1.], M=[[-1., 0.], [0., -1.]])),
    "geglu_zero_out": ("geglu", dict(W_up=[[1., -2.]], W_down=[[0.], [0.]], W_gate=[[-2., 2.]], b_up=[1.],
                                     b_down=[0., 0.], M=np.eye(2).tolist())),
    # glu flip with an up bias: the certificate states b_down_correction (it was refused as unknown)
    "glu_flip": ("glu", dict(W_up=[[1.], [1.], [1.]], W_down=[[1., -1., -2.]], W_gate=[[0.], [0.], [0.]],
                             b_gate=[2., -1., 0.], b_up=[1., 1., 0.], b_down=[.5], M=[[-1.]])),
}


@pytest.mark.parametrize("name", sorted(TRUE_BLOCKS))
def test_true_documents_hold_with_every_other_answer_verified(tmp_path, name):
    act, kw = TRUE_BLOCKS[name]
    f = write(tmp_path / f"{name}.npz", act, **kw)
    for conv in ("auto", "allowed", "none"):
        doc = check_doc(f, conv)
        r = recheck(tmp_path, doc, f)
        assert r.returncode == 0 and r.stdout.startswith("holds:"), (conv, r.stdout + r.stderr)
        assert "stated without a certificate" not in r.stdout, (conv, r.stdout)
        other = {"auto": None, "allowed": "none", "none": "allowed"}[conv] or \
            {"allowed": "none", "none": "allowed"}[doc["replacing_biases"]]
        if (doc.get(f"biases_{other}") or {}).get("verdict") not in (None, "undecided") \
                and "other_convention" not in doc["certificate"]:
            # the main certificate answers the other question itself: removing the answer's
            # certificate is not possible, so flip the stated answer instead; it is refused
            bad = json.loads(json.dumps(doc))
            bad[f"biases_{other}"]["verdict"] = "absorbable" if doc["verdict"] == "not_absorbable" else "not_absorbable"
            r = recheck(tmp_path, bad, f)
            assert r.returncode == 1 and r.stdout.startswith(f"does not hold: biases_{other}"), (conv, r.stdout)
