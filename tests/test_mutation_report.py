"""benchmarks/mutation.py (make mutation): the score docs/mutation.md reports is killed over run
minus equivalent, a survivor counts as equivalent only when benchmarks/mutation-judgments.toml
names its exact key, a probe survivor that fails the whole audit counts as killed, and the
per-mutant probe exits 0 on the unmutated code (the mutation run itself is not part of the suite)."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("mutation_driver", ROOT / "benchmarks" / "mutation.py")
mutation = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutation)


def _mutant(line: int, outcome: str, diff: str, audit: str = "") -> dict:
    m = {"file": "oracle/claims/x.py", "line": line, "operator": "core/NumberReplacer", "occurrence": 0,
         "outcome": outcome, "diff": diff, "output": ""}
    if audit:
        m["audit"] = audit
    return m


def _write(tmp_path, monkeypatch, mutants, judged):
    res = tmp_path / "results"
    res.mkdir()
    (res / "x.json").write_text(json.dumps({
        "claim": "x", "date": "2026-01-01", "lines_in_scope": 10, "mutants_in_scope": 50,
        "sampled": True, "sample_seed": 0, "probe_seconds": 1.0, "timeout_seconds": 33,
        "other_parts_lines_in_scope": {}, "mutants": mutants}))
    judgments = tmp_path / "judgments.toml"
    judgments.write_text("[equivalent]\n" + "".join(f'"{k}" = "{v}"\n' for k, v in judged.items()))
    doc = tmp_path / "mutation.md"
    monkeypatch.setattr(mutation, "RESULTS", res)
    monkeypatch.setattr(mutation, "JUDGMENTS", judgments)
    monkeypatch.setattr(mutation, "DOC", doc)
    mutation.write_doc()
    return doc.read_text()


def test_score_counts_equivalents_out_and_late_kills_in(tmp_path, monkeypatch):
    ms = [_mutant(1, "killed", "-a\n+b"), _mutant(2, "killed (timeout)", "-c\n+d"),
          _mutant(3, "survived", "-e\n+f"), _mutant(4, "survived", "-g\n+h"),
          _mutant(5, "survived", "-i\n+j", audit="FAILED (exit 1)")]
    key = mutation.mutant_key("x", ms[3])
    text = _write(tmp_path, monkeypatch, ms, {key: "both sides are the same expression"})
    row = next(l for l in text.splitlines() if l.startswith("| x |"))
    # killed: 1, 2 and 5 (the audit failed on it); equivalent: 4; survived: 3 -> 3 / (5 - 1)
    assert row.endswith("| 3 | 1 | 1 | 75 % (3/4) |"), row
    assert "**equivalent: both sides are the same expression**" in text
    assert "`oracle/claims/x.py:3` core/NumberReplacer — **survives**" in text
    assert "1 mutants passed the probe and failed the whole audit" in text


def test_a_judgment_for_another_diff_does_not_count(tmp_path, monkeypatch):
    ms = [_mutant(1, "killed", "-a\n+b"), _mutant(3, "survived", "-e\n+f")]
    other = mutation.mutant_key("x", _mutant(3, "survived", "-e\n+g"))
    text = _write(tmp_path, monkeypatch, ms, {other: "not this mutant"})
    row = next(l for l in text.splitlines() if l.startswith("| x |"))
    assert row.endswith("| 1 | 0 | 1 | 50 % (1/2) |"), row
    assert "not this mutant" not in text


def test_the_probe_passes_on_the_unmutated_code():
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "mutation.py"), "probe", "depth-d1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "depth-d1: passed (1 counterexamples)"
