"""oracle/formal/coqcheck.py asks make once which compiled modules are up to date; its
answer must be the one `make -q` gives for each module on its own."""

import os
import subprocess
from pathlib import Path

import pytest

from oracle.formal import coqcheck, coqsource
from oracle.formal import consistency as C

pytestmark = pytest.mark.usefixtures("coq_required")


def _one_by_one(coqdir: Path, files: list[str]) -> list[str]:
    out = []
    for f in files:
        vo = Path(f).with_suffix(".vo").name
        q = subprocess.run(["make", "-q", "-f", "Makefile.coq", vo, "COQFLAGS=-q"], cwd=coqdir,
                           capture_output=True, env=coqcheck._clean_env())
        if q.returncode == 0 and (coqdir / vo).exists():
            out.append(vo)
    return out


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    """A copy of the compiled development with its own Makefile.coq (nothing recompiled)."""
    ok, errors, _, _ = coqcheck.build((C.ROOT / "proofs" / "coq").resolve())
    assert ok, errors
    coqdir = C.copy_sources(tmp_path_factory.mktemp("build"), with_build=True) / "proofs" / "coq"
    subprocess.run(["coq_makefile", "-f", "_CoqProject", "-o", "Makefile.coq"], cwd=coqdir, check=True,
                   capture_output=True, env=coqcheck._clean_env())
    return coqdir


def _counting(monkeypatch) -> list[list[str]]:
    calls: list[list[str]] = []
    run = coqcheck._run

    def counted(cmd, *args, **kwargs):
        calls.append(cmd)
        return run(cmd, *args, **kwargs)
    monkeypatch.setattr(coqcheck, "_run", counted)
    return calls


def test_up_to_date_agrees_with_make_q_module_by_module(copy, monkeypatch):
    files = coqsource.project_files(copy)
    calls = _counting(monkeypatch)
    assert coqcheck.up_to_date(copy, files) == _one_by_one(copy, files) == [
        Path(f).with_suffix(".vo").name for f in files]
    assert len(calls) == 1 and calls[0][:2] == ["make", "-n"]  # one call answered for all
    # Rank.v edited (a later time stamp): it and every file importing it are out of date
    later = (copy / "Rank.vo").stat().st_mtime + 60
    os.utime(copy / "Rank.v", (later, later))
    fresh = coqcheck.up_to_date(copy, files)
    assert fresh == _one_by_one(copy, files)
    assert "Linalg.vo" in fresh and "Width.vo" in fresh
    assert not {"Rank.vo", "DepthStack.vo", "Instances.vo", "Counterexamples.vo"} & set(fresh)
    # a missing .vo is never up to date, nor are the files after it
    (copy / "SignFlip.vo").unlink()
    fresh = coqcheck.up_to_date(copy, files)
    assert fresh == _one_by_one(copy, files) and "SignFlip.vo" not in fresh and "Width.vo" not in fresh
    assert len(calls) == 3


def test_an_answer_make_cannot_give_in_one_call_is_asked_file_by_file(copy, monkeypatch):
    """A target make has no rule for fails the single call; the fallback still answers for
    every other module."""
    files = coqsource.project_files(copy)
    calls = _counting(monkeypatch)
    fresh = coqcheck.up_to_date(copy, files + ["Nowhere.v"])
    assert fresh == _one_by_one(copy, files) and "Nowhere.vo" not in fresh
    assert len(calls) == 1 + len(files) + 1 and all(c[:2] == ["make", "-q"] for c in calls[1:])
