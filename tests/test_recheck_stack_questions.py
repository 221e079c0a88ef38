"""An undecided stack document answers the question it was asked (--replacing-biases).

`absorb check STACK --replacing-biases allowed|none` can leave a stack undecided that the default
question decides (depth-narrow and depth-near-identity speak of bias-free plain stacks only). Such a
document carries no claim, so `absorb recheck DOC STACK` re-runs the decision; it must re-run the
question that produced the document, not only the default one (referee ref6d, F4: these true
documents were refused). A document changed after the run is still refused.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ABSORB = [sys.executable, "-m", "oracle.cli"]
STACKS = ["relu_stack_narrow", "relu_stack_near_identity"]


def absorb(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*ABSORB, *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


@pytest.mark.parametrize("name", STACKS)
@pytest.mark.parametrize("question", ["allowed", "none"])
def test_undecided_answer_to_a_question_holds(tmp_path: Path, name: str, question: str) -> None:
    stack = ROOT / "examples" / f"{name}.npz"
    r = absorb("check", str(stack), "--json", "--replacing-biases", question)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["verdict"] == "undecided" and doc["claim"] is None
    assert doc["other_convention"]["verdict"] != "undecided"  # the default question is decided
    p = tmp_path / "d.json"
    p.write_text(json.dumps(doc))
    ok = absorb("recheck", str(p), str(stack))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert f"--replacing-biases {question}" in ok.stdout

    other = "depth-width" if doc["other_convention"]["claim"] != "depth-width" else "depth-d2"
    forged = dict(doc, other_convention=dict(doc["other_convention"], claim=other))
    p.write_text(json.dumps(forged))
    bad = absorb("recheck", str(p), str(stack))
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "other_convention" in bad.stdout + bad.stderr
