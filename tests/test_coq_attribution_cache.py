"""The claim-by-claim Print Assumptions cache of the proof check (oracle/formal/coqcheck.py,
_bundle_key / _attribute): a cached answer may only be read while nothing it depends on has
changed.  The key must move when a file in the Require closure of the claim's declarations
changes, when _CoqProject or the Required module list changes, when the bundle's names change;
it must stay when only a file outside that closure changes (that is what saves the work).
And a cached answer is used in place of asking Coq: a planted cache entry shows up in the
report, and a changed closure file makes the check ask Coq again.
Claims exercised: the proof check's axiom attribution for every claim (homogeneous-impossible's
and generic-weights' declarations as the examples)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oracle.formal import coqcheck
from oracle.formal import consistency as C

pytestmark = pytest.mark.usefixtures("coq_required")

HOM = ["SkipAbsorption.Homogeneous.homogeneous_impossible"]
GEN = ["SkipAbsorption.GenericWeightsNull.generic_weights_null"]


@pytest.fixture()
def coqdir(tmp_path: Path) -> Path:
    return C.copy_sources(tmp_path, with_build=False) / "proofs" / "coq"


def _touch(p: Path) -> None:
    p.write_text(p.read_text() + "\n(* changed *)\n")


def test_closure_follows_the_requires(coqdir: Path) -> None:
    files = coqcheck._closure_files(coqdir, HOM)
    assert files is not None and {"Homogeneous.v", "Linalg.v", "SkipReduction.v"} <= set(files)
    assert "NullSets.v" not in files  # homogeneous-impossible does not use the measure library
    gen = coqcheck._closure_files(coqdir, GEN)
    assert gen is not None and "NullSets.v" in gen
    assert coqcheck._closure_files(coqdir, ["SkipAbsorption.NoSuchFile.x"]) is None


def test_key_moves_with_what_the_answer_depends_on(coqdir: Path) -> None:
    mods = ["SkipAbsorption.Homogeneous"]
    key = coqcheck._bundle_key(coqdir, mods, "homogeneous-impossible", HOM)
    assert key is not None
    outside = next(f for f in sorted(p.name for p in coqdir.glob("*.v"))
                   if f not in coqcheck._closure_files(coqdir, HOM))
    _touch(coqdir / outside)
    assert coqcheck._bundle_key(coqdir, mods, "homogeneous-impossible", HOM) == key  # outside the closure
    assert coqcheck._bundle_key(coqdir, mods + ["SkipAbsorption.Gated"], "homogeneous-impossible", HOM) != key
    assert coqcheck._bundle_key(coqdir, mods, "other-label", HOM) != key
    assert coqcheck._bundle_key(coqdir, mods, "homogeneous-impossible", HOM + GEN) != key
    (coqdir / "_CoqProject").write_text((coqdir / "_CoqProject").read_text() + "\n")
    key2 = coqcheck._bundle_key(coqdir, mods, "homogeneous-impossible", HOM)
    assert key2 != key
    _touch(coqdir / "Linalg.v")  # imported by Homogeneous.v
    assert coqcheck._bundle_key(coqdir, mods, "homogeneous-impossible", HOM) != key2


def test_a_cached_answer_replaces_the_question_and_a_change_asks_again(coqdir, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    asked: list[str] = []
    monkeypatch.setattr(coqcheck, "_coqc", lambda d, script: asked.append(script) or
                        type("R", (), {"returncode": 1, "stdout": "", "stderr": ""})())
    mods = ["SkipAbsorption.Homogeneous"]
    key = coqcheck._bundle_key(coqdir, mods, "homogeneous-impossible", HOM)
    store = coqcheck.cache_dir() / "attribution"
    store.mkdir(parents=True)
    (store / f"{key}.json").write_text(json.dumps({"axioms": ["planted.axiom"], "bad": []}))
    report = coqcheck.CoqReport("compiled")
    coqcheck._attribute(coqdir, mods, {"homogeneous-impossible": HOM}, report, use_cache=True)
    assert report.axioms == {"homogeneous-impossible": ["planted.axiom"]} and asked == []
    report = coqcheck.CoqReport("compiled")
    coqcheck._attribute(coqdir, mods, {"homogeneous-impossible": HOM}, report, use_cache=False)
    assert len(asked) == 1 and "homogeneous-impossible" not in report.axioms  # asked Coq (which failed here)
    _touch(coqdir / "Homogeneous.v")
    report = coqcheck.CoqReport("compiled")
    coqcheck._attribute(coqdir, mods, {"homogeneous-impossible": HOM}, report, use_cache=True)
    assert len(asked) == 2 and "Print Assumptions" in asked[-1] and "homogeneous-impossible" not in report.axioms
