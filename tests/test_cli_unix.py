"""`absorb` as a Unix tool: help texts with exit codes, verdict exit codes, arguments and environment
checked before any work, the audit's verdict as its last line, progress behind --verbose.

Every command runs as a subprocess, as a user or a script runs it.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from oracle import cli
from oracle.commands import audit
from oracle.commands.output import VERDICT_EXIT, Progress, verdict_status
from oracle.core import io as bio
from oracle.core.blocks import Block

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
FAST = 30.0  # seconds: refusing bad input must not wait for any work (an audit takes minutes)


def absorb(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None,
           timeout: int = 900) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **(env or {})}
    full_env.pop("ABSORB_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "oracle.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, cwd=cwd, env=full_env)


# ---------------------------------------------------------------- help texts

EXPECTED_CODES = {
    "audit": {0: "every check passed", 1: "the audit found a problem", 2: "bad arguments"},
    "check": {0: "a verdict was printed", 2: "bad arguments", 3: "not_absorbable", 4: "undecided"},
    "witness": {0: "a verdict was printed", 2: "bad arguments", 3: "differ", 4: "undecided"},
    "activations": {0: "every declared property re-derived", 1: "did not re-derive", 2: "bad arguments"},
    "scan": {0: "every block found was decided", 2: "a block could not be read", 3: "holds no MLP block"},
    "pin": {0: "written", 1: "could not be regenerated", 2: "bad arguments"},
    "recheck": {0: "the document holds", 1: "it does not hold", 2: "bad arguments"},
}


def test_every_command_is_described_in_the_help_test():
    assert set(EXPECTED_CODES) == set(cli.COMMANDS)


@pytest.mark.parametrize("command", sorted(EXPECTED_CODES))
def test_help_says_what_the_command_does_what_it_prints_and_its_exit_codes(command):
    r = absorb(command, "--help")
    assert r.returncode == 0 and r.stderr == ""
    text = r.stdout
    description = text.split("\n\n", 1)[1].split("positional arguments:")[0].split("options:")[0]
    assert len(description.split()) >= 25, f"{command}: no description of what it does"
    assert "Output:" in description, f"{command}: the description does not say what it prints"
    assert "exit codes:" in text
    codes = text[text.index("exit codes:"):]
    for code, meaning in EXPECTED_CODES[command].items():
        assert re.search(rf"(?m)^  {code} +.*{re.escape(meaning)}", codes), (command, code, meaning)
    assert re.search(r"(?m)^  130 +interrupted", codes)


def test_the_top_level_help_points_to_the_commands_help():
    r = absorb("--help")
    assert r.returncode == 0 and "absorb COMMAND --help lists each command's output and exit codes" in r.stdout


# ---------------------------------------------------------------- verdict exit codes

def _undecided_check_block(path: Path) -> Path:
    """A biased bilinear block: no registered claim decides it (undecided)."""
    rng = np.random.default_rng(1)
    b = Block("bilinear", W_up=rng.integers(-3, 4, (3, 2)) / 2, W_down=rng.integers(-3, 4, (2, 3)) / 2,
              W_gate=rng.integers(-3, 4, (3, 2)) / 2, b_up=np.ones(3), b_down=np.ones(2))
    bio.write_block(b, path)
    return path


def _verdict_runs(cases: list[list[str]]) -> dict[str, int]:
    """Run each command with --json --exit-code; require the exit code of the verdict it printed,
    and exit 0 without --exit-code. Returns verdict -> exit code."""
    seen = {}
    for args in cases:
        r = absorb(*args, "--json", "--exit-code")
        assert r.returncode != 2, r.stderr
        verdict = json.loads(r.stdout)["verdict"]
        assert r.returncode == VERDICT_EXIT[verdict], (args, verdict, r.returncode)
        seen[verdict] = r.returncode
        plain = absorb(*args)
        assert plain.returncode == 0, (args, plain.stderr)  # the default is unchanged
        assert plain.stdout.startswith(f"verdict: {verdict}") or plain.stdout.startswith("stack:")
    return seen


def test_check_exit_code_for_each_verdict(tmp_path):
    seen = _verdict_runs([["check", EXAMPLES / "relu_absorbable.npz"],
                          ["check", EXAMPLES / "gelu_random.npz"],
                          ["check", _undecided_check_block(tmp_path / "bilinear_biased.npz")],
                          ["check", EXAMPLES / "relu_stack_absorbable.npz"]])
    assert seen == {"absorbable": 0, "not_absorbable": 3, "undecided": 4}


def test_witness_exit_code_for_each_verdict(tmp_path):
    plain = tmp_path / "plain.npz"
    r = absorb("check", EXAMPLES / "relu_absorbable.npz", "--emit", plain)
    assert r.returncode == 0 and plain.exists(), r.stderr
    rng = np.random.default_rng(3)
    other = tmp_path / "other.npz"
    bio.write_block(Block("relu", W_up=rng.integers(-4, 5, (3, 2)) / 4, W_down=rng.integers(-4, 5, (2, 3)) / 4,
                          kind="plain"), other)
    # x + relu block with W_down = 0 is x, and so is a bilinear block with a constant gate 1 and
    # W_up = W_down = I: the same function, which no exact identity of the witness covers
    ident_r, ident_p = tmp_path / "ident_r.npz", tmp_path / "ident_p.npz"
    bio.write_block(Block("relu", W_up=np.array([[1.0, 2.0], [0.5, -1.0]]), W_down=np.zeros((2, 2))), ident_r)
    bio.write_block(Block("bilinear", W_up=np.eye(2), W_down=np.eye(2), W_gate=np.zeros((2, 2)),
                          b_gate=np.ones(2), kind="plain"), ident_p)
    seen = _verdict_runs([["witness", EXAMPLES / "relu_absorbable.npz", plain],
                          ["witness", EXAMPLES / "relu_absorbable.npz", other],
                          ["witness", ident_r, ident_p]])
    assert seen == {"agree": 0, "differ": 3, "undecided": 4}


def test_verdict_status_refuses_an_unknown_verdict():
    assert verdict_status("anything", False) == 0
    with pytest.raises(ValueError, match="no exit code"):
        verdict_status("maybe", True)
    # codes never collide with bad input (2) or Python's own failure (1)
    assert set(VERDICT_EXIT.values()).isdisjoint({1, 2})


# ---------------------------------------------------------------- bad input fails at once

def _fails_fast(args: list, env: dict[str, str] | None = None, cwd: Path = ROOT) -> str:
    t0 = time.perf_counter()
    r = absorb(*args, env=env, cwd=cwd)
    elapsed = time.perf_counter() - t0
    assert r.returncode == 2, (args, r.returncode, r.stdout[-500:], r.stderr[-500:])
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, (args, r.stderr)
    assert r.stdout == "", (args, r.stdout[:500])
    assert elapsed < FAST, f"{args}: refused only after {elapsed:.1f}s"
    return lines[0]


def test_a_bad_environment_is_refused_once_before_any_work(tmp_path):
    bad = {"ABSORB_MAX_MEMORY": "banana"}
    line = _fails_fast(["audit", "--quick"], bad)
    assert line == "absorb audit: error: ABSORB_MAX_MEMORY='banana' is not a size (examples: 8G, 512M, 1000000)"
    assert _fails_fast(["check", EXAMPLES / "relu_absorbable.npz"], bad).startswith("absorb check: error: ABSORB_MAX_MEMORY")
    # a scan of a checkpoint with several blocks says it once, not once per block
    sys.path.insert(0, str(ROOT / "tests"))
    from test_scan import _ck
    ck = _ck(tmp_path)
    assert "ABSORB_MAX_MEMORY='banana'" in _fails_fast(["scan", ck], bad)
    line = _fails_fast(["witness", EXAMPLES / "relu_absorbable.npz", EXAMPLES / "relu_absorbable.npz"],
                       {"ABSORB_MAX_INFLATION": "-1"})
    assert line == "absorb witness: error: ABSORB_MAX_INFLATION='-1' must be positive"


def test_bad_audit_arguments_are_refused_before_the_audit_runs(tmp_path):
    missing = tmp_path / "no-such-folder" / "r.html"
    line = _fails_fast(["audit", "--quick", "--report", missing])
    assert line == f"absorb audit: error: --report {missing}: the folder {missing.parent} does not exist"
    assert not missing.parent.exists()
    (tmp_path / "folder.html").mkdir()
    assert "is a folder" in _fails_fast(["audit", "--report", tmp_path / "folder.html"])
    assert "--report must end in .md or .html" in _fails_fast(["audit", "--report", tmp_path / "r.pdf"])
    scan = tmp_path / "scan.json"
    scan.write_text(json.dumps({"not": "a scan"}))
    assert "--scan puts a scan document into the report" in _fails_fast(["audit", "--scan", scan])
    line = _fails_fast(["audit", "--report", tmp_path / "r.html", "--scan", scan])
    assert line == f"absorb audit: error: --scan {scan}: not a document of absorb scan --json (no 'blocks' list)"
    assert "--scan" in _fails_fast(["audit", "--report", tmp_path / "r.html", "--scan", tmp_path / "absent.json"])
    assert "unknown claim nope" in _fails_fast(["audit", "--claim", "nope"])
    line = _fails_fast(["audit", "--instances", "many"])
    assert line.startswith("absorb audit: error: argument --instances: invalid int value: 'many'")
    assert not (tmp_path / "r.html").exists()


def test_bad_emit_targets_are_refused_before_deciding(tmp_path):
    src = tmp_path / "in.npz"
    src.write_bytes((EXAMPLES / "relu_absorbable.npz").read_bytes())
    line = _fails_fast(["check", src, "--emit", tmp_path / "missing" / "out.npz"])
    assert line == f"absorb check: error: --emit {tmp_path / 'missing' / 'out.npz'}: the folder " \
                   f"{tmp_path / 'missing'} does not exist"
    assert _fails_fast(["check", src, "--emit", src]).endswith("is the input file; refusing to overwrite it")
    assert _fails_fast(["check", src, "--emit", tmp_path]).endswith("is a folder; give a file name")
    # the same input through another path is still the input
    assert "is the input file" in _fails_fast(["check", src, "--emit", Path(".") / "in.npz"], cwd=tmp_path)
    assert src.read_bytes() == (EXAMPLES / "relu_absorbable.npz").read_bytes()


def test_usage_errors_are_one_line():
    assert _fails_fast(["check"]) == ("absorb check: error: the following arguments are required: file "
                                      "(absorb check --help lists the options)")
    assert "invalid choice: 'frobnicate'" in _fails_fast(["frobnicate"])
    # an argument a command does not take is named by that command
    assert _fails_fast(["pin", "--bogus"]) == ("absorb pin: error: unrecognized arguments: --bogus "
                                                "(absorb pin --help lists the options)")
    assert _fails_fast(["check", "a.npz", "b.npz"]).startswith("absorb check: error: unrecognized arguments: b.npz")


# ---------------------------------------------------------------- the audit's output

def _audit(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    r = absorb("audit", "--claim", "skip-reduction", "--instances", "20", *extra, cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    return r


def test_audit_ends_with_the_verdict_and_keeps_its_reasons_behind_verbose(tmp_path):
    quiet_run = _audit(tmp_path)
    last = quiet_run.stdout.rstrip("\n").splitlines()[-1]
    assert re.fullmatch(r"audit (PASSED|FAILED) in [0-9.]+s", last), last
    assert "reasons given in proofs/claims.toml" not in quiet_run.stdout
    assert re.search(r"reasons for weakened or absent checks: \d+ in proofs/claims.toml "
                     r"\(absorb audit --verbose lists them", quiet_run.stdout)
    # stderr is not a terminal here: a few stage lines, no per-instance lines
    err = quiet_run.stderr.strip().splitlines()
    assert 3 <= len(err) <= 12, err
    assert not any("instances" in ln and "/20" in ln for ln in err), err

    loud = _audit(tmp_path, "--verbose")
    assert loud.stdout.rstrip("\n").splitlines()[-1].startswith(f"audit {last.split()[1]} in ")
    assert "reasons given in proofs/claims.toml for checks that are weakened or absent:" in loud.stdout
    assert "  - skip-reduction: lean_absent: " in loud.stdout
    assert "[audit] skip-reduction: 20/20 instances" in loud.stderr
    assert len(loud.stderr.splitlines()) > len(err)


def test_a_failing_audit_also_ends_with_its_verdict(monkeypatch, capsys, tmp_path):
    doc = {"ok": False, "seconds": 1.5, "claims": [], "counterexamples": [], "activations": [],
           "coq": {"status": "compiled", "detail": "-"}, "instances_per_claim": 1, "quick": True, "seed": 0,
           "problems": ["x: broken"], "notes": ["x: a reason"],
           "pinned_diffs": {"proofs/pinned/coq-statements.txt": "-old\n+new"}}
    monkeypatch.setattr(audit, "audit", lambda **kw: doc)
    assert cli.main(["audit", "--claim", "skip-reduction"]) == 1
    out = capsys.readouterr().out.rstrip("\n").splitlines()
    assert out[-1] == "audit FAILED in 1.5s"
    assert "  - x: broken" in out and "  +new" in out  # problems and diffs come before the verdict


# ---------------------------------------------------------------- the progress display

class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_is_one_line_redrawn_and_erased(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # the status line is cut to the terminal's width
    term = _Terminal()
    p = Progress("audit", stream=term)
    p.stage("starting")
    for i in range(3):
        p.step(i, 3, f"oracle check {i + 1}/3: claim-{i} (many words)", short="oracle checks")
        p.detail(f"claim-{i}: 2/4 instances")
    p.important("claim-2: oracle check FAILED: planted")
    p.close()
    text = term.getvalue()
    assert "\n" in text and text.count("\n") == 1  # only the important message is a line of its own
    assert "[audit] claim-2: oracle check FAILED: planted\n" in text
    assert "[################........] 2/3 oracle checks: claim-2: 2/4 instances" in text
    assert text.endswith("\r")  # erased: whatever follows starts on a clean line
    assert "(many words)" not in text  # the long form is for logs


def test_progress_in_a_log_is_a_few_plain_lines_and_everything_with_verbose():
    log = io.StringIO()
    p = Progress("audit", stream=log, every=3600)
    p.stage("starting")
    for i in range(50):
        p.step(i, 50, f"step {i}")
        p.detail(f"detail {i}")
    p.close()
    assert log.getvalue().splitlines() == ["[audit] starting", "[audit] step 0 (0s)"]
    assert "\r" not in log.getvalue()
    full = io.StringIO()
    v = Progress("audit", verbose=True, stream=full)
    v.step(0, 2, "step 0")
    v.detail("detail 0")
    v.close()
    assert full.getvalue().splitlines() == ["[audit] step 0", "[audit] detail 0"]


# ---------------------------------------------------------------- a user's scan in the report

def test_audit_report_includes_the_users_scan(tmp_path):
    sys.path.insert(0, str(ROOT / "tests"))
    from test_scan import _ck
    ck = _ck(tmp_path)
    scanned = absorb("scan", ck, "--json")
    assert scanned.returncode in (0, 1), scanned.stderr
    doc = json.loads(scanned.stdout)
    assert len(doc["blocks"]) >= 3
    scan = tmp_path / "my-scan.json"
    scan.write_text(scanned.stdout)
    for name in ("r.html", "r.md"):
        out = tmp_path / name
        r = absorb("audit", "--claim", "skip-reduction", "--instances", "5", "--report", out, "--scan", scan,
                   cwd=tmp_path)
        assert r.returncode in (0, 1), r.stderr[-2000:]
        assert r.stdout.rstrip("\n").splitlines()[-1].startswith("audit ")  # the verdict stays last
        text = out.read_text()
        assert "Your scans" in text and str(scan) in text
        assert f"{doc['checkpoint']} ({doc['format']}, " in text
        for b in doc["blocks"]:
            assert str(b.get("block") or "<root>") in text, b.get("block")
        # the scan's verdicts, as the document states them, one per block
        verdicts = [b["verdict"] for b in doc["blocks"]]
        for v in set(verdicts):
            shown = text.count(f">{v} (") if name == "r.html" else text.count(f"| {v} (")
            assert shown == verdicts.count(v), (name, v, shown)
    html_text = (tmp_path / "r.html").read_text()
    assert "href='#scans'" in html_text and "<h2 id='scans'>" in html_text


def test_the_readme_documents_the_exit_codes_of_every_command():
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Exit codes and help"):]
    section = section[:section.index("\n## ")]
    rows = {m.group(1): m.group(0) for m in re.finditer(r"(?m)^\| `absorb (\w+)` \|.*$", section)}
    assert set(rows) == set(EXPECTED_CODES)
    for command, codes in EXPECTED_CODES.items():
        help_text = absorb(command, "--help").stdout
        cells = [c.strip() for c in rows[command].strip("|").split("|")]
        for code, meaning in codes.items():
            assert meaning in rows[command], (command, code)
            if code in (0, 1, 2):
                # the table's column for the code says what --help says for it
                line = re.search(rf"(?m)^  {code} +(.*)$", help_text[help_text.index("exit codes:"):]).group(1)
                assert cells[1 + code] in line or line.startswith(cells[1 + code].split(" or ")[0]), \
                    (command, code, cells[1 + code], line)
    assert "130 when interrupted" in section and "141 when the reader of stdout goes away" in section
