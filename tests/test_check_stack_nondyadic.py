"""A biased d = 1 relu stack whose plain stack has non-dyadic biases (4/3): `absorb check` decides it
and writes the document (the plain stack in exact rationals); only `--emit`, which would need a
float64 file, is refused, with the reason and no file left."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

from oracle.core import stackfiles
from oracle.core.blocks import Block, Stack


def _absorb(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "oracle.cli", *args], capture_output=True, text=True, timeout=600)


def _stack(path: Path) -> Path:
    first = Block("relu", W_up=np.array([[0.75], [-1.0]]), W_down=np.array([[-0.09375, 0.0]]),
                  b_up=np.array([1.0, -1.5]), b_down=np.array([-1.0]))
    second = Block("relu", W_up=np.array([[-0.75], [-1.25], [0.5]]), W_down=np.array([[-0.046875, -0.03125, 0.03125]]))
    stackfiles.write_stack(Stack([first, second]), path)
    return path


def test_decided_without_emit_and_rechecked(tmp_path: Path) -> None:
    src = _stack(tmp_path / "s.npz")
    r = _absorb("check", str(src), "--replacing-biases", "allowed", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["verdict"] == "absorbable" and doc["claim"] == "depth-d1-biased"
    biases = [Fraction(q) for rec in doc["plain_stack"] for q in rec.get("b_up", [])]
    assert any(q.denominator & (q.denominator - 1) for q in biases), biases  # not dyadic: no float64 file
    cert = tmp_path / "doc.json"
    cert.write_text(r.stdout)
    back = _absorb("recheck", str(cert))
    assert back.returncode == 0 and back.stdout.startswith("holds"), back.stdout + back.stderr


def test_emit_refused_with_the_reason(tmp_path: Path) -> None:
    src = _stack(tmp_path / "s.npz")
    out = tmp_path / "plain.npz"
    r = _absorb("check", str(src), "--replacing-biases", "allowed", "--emit", str(out))
    assert r.returncode == 2
    assert "non-dyadic" in r.stderr and "without --emit" in r.stderr, r.stderr
    assert not out.exists()
