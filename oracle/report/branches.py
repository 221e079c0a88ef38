"""Branch coverage of a claim's check and decision code by the instances the audit draws
(`absorb audit --coverage`; coverage.py, the optional extra ``coverage``).

While one claim's oracle check runs, coverage.py records branches (arcs) in ``oracle/claims``,
``oracle/algebra`` and ``oracle/decide`` (the shared runner ``oracle/claims/base.py``,
``coverage.py`` and ``__init__.py`` aside: every claim runs them).  The code of the claim is every
function that the check entered, with the functions nested in it; its branches are those
coverage.py finds in them.  A branch that no instance can take is marked in the source with
``# pragma: no branch`` followed by a one-line reason; coverage.py then stops counting it as
missed, and this report lists every such mark of the claim's code with its reason (a mark
without a reason is listed as such).
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar

T = TypeVar("T")

PACKAGE = Path(__file__).resolve().parents[1]
ROOTS = tuple(PACKAGE / d for d in ("claims", "algebra", "decide"))
SHARED = tuple(PACKAGE / "claims" / f for f in ("base.py", "coverage.py", "__init__.py"))
PRAGMA = re.compile(r"#\s*pragma:\s*no branch\b[\s:;,.-]*(.*)$")
SHOWN_MISSES = 8  # missed branches printed per claim in the table (all are in --json)


def available() -> Optional[str]:
    """None when coverage.py can be imported, else the one-line reason."""
    try:
        import coverage  # noqa: F401
    except ImportError:
        return "--coverage needs coverage.py: pip install -c constraints.txt -e '.[coverage]'"
    return None


def _rel(path: str) -> str:
    p = Path(path).resolve()
    try:
        return p.relative_to(PACKAGE.parent).as_posix()
    except ValueError:
        return p.as_posix()


def measure(fn: Callable[[], T], roots: tuple[Path, ...] = ROOTS,
            leave_out: tuple[Path, ...] = SHARED) -> tuple[T, dict[str, Any]]:
    """Run ``fn()`` under coverage.py in branch mode; its result and the branch report of the
    functions it entered in the Python files under ``roots`` (files in ``leave_out`` aside)."""
    import coverage

    cov = coverage.Coverage(branch=True, data_file=None, include=[str(r / "*") if r.is_dir() else str(r)
                                                                     for r in roots],
                            omit=[str(p) for p in leave_out])
    cov.start()
    try:
        result = fn()
    finally:
        cov.stop()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "branch-report"
        try:
            cov.json_report(outfile=str(out))
        except coverage.exceptions.NoDataError:
            return result, summarize({})
        files = json.loads(out.read_text())["files"]
    return result, summarize({str(Path(k).resolve()) if Path(k).is_absolute() else
                              str((Path.cwd() / k).resolve()): v for k, v in files.items()})


def summarize(files: dict[str, Any]) -> dict[str, Any]:
    """Reached and missed branches of the entered functions (nested ones counted with them)."""
    total = reached = 0
    missed: list[str] = []
    marked: list[dict[str, Any]] = []
    per_file: dict[str, dict[str, int]] = {}
    for path in sorted(files):
        funcs = files[path].get("functions", {})
        entered = {name for name, f in funcs.items() if name and f["executed_lines"]}
        src = Path(path).read_text().splitlines() if Path(path).is_file() else []
        rel = _rel(path)
        for name, f in sorted(funcs.items(), key=lambda kv: kv[1]["start_line"]):
            parts = name.split(".")
            if not name or not any(".".join(parts[:k]) in entered for k in range(1, len(parts) + 1)):
                continue  # neither this function nor one it is nested in was entered
            s = f["summary"]
            n, miss = s["num_branches"], len(f["missing_branches"])
            total += n
            reached += n - miss
            pf = per_file.setdefault(rel, {"branches": 0, "reached": 0})
            pf["branches"] += n
            pf["reached"] += n - miss
            missed += [f"{rel}:{a}->{b if b > 0 else 'exit'} ({name})" for a, b in f["missing_branches"]]
            lines = set(f["executed_lines"]) | set(f["missing_lines"])
            for ln in sorted(lines):
                m = PRAGMA.search(src[ln - 1]) if 0 < ln <= len(src) else None
                if m:
                    marked.append({"where": f"{rel}:{ln} ({name})",
                                   "reason": m.group(1).strip() or None})
    return {"branches": total, "reached": reached,
            "percent": round(100 * reached / total, 1) if total else None,
            "missed": missed, "marked_unreachable": marked, "files": per_file}


def table(doc: dict[str, Any]) -> str:
    """The per-claim branch table that `absorb audit --coverage` prints after the audit's table."""
    per = doc.get("branch_coverage") or {}
    rows = [(c["id"], per[c["id"]]) for c in doc["claims"] if c["id"] in per]
    lines = ["branch coverage of each claim's check and decision code by the drawn instances "
             "(coverage.py, branch mode; functions the check entered):",
             f"  {'claim':<24} {'reached':>9} {'branches':>9} {'percent':>8}  marked unreachable"]
    for cid, b in rows:
        pct = "-" if b["percent"] is None else f"{b['percent']:.1f}%"
        lines.append(f"  {cid:<24} {b['reached']:>9} {b['branches']:>9} {pct:>8}  "
                     f"{len(b['marked_unreachable'])}")
    for cid, b in rows:
        if b["missed"]:
            lines.append(f"  {cid}: {len(b['missed'])} missed branches: "
                         + "; ".join(b["missed"][:SHOWN_MISSES])
                         + (f"; ... ({len(b['missed']) - SHOWN_MISSES} more in --json)"
                            if len(b["missed"]) > SHOWN_MISSES else ""))
        for m in b["marked_unreachable"]:
            lines.append(f"  {cid}: marked unreachable at {m['where']}: "
                         + (m["reason"] or "NO REASON GIVEN (add one after the pragma)"))
    return "\n".join(lines)
