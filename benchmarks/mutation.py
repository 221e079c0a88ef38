"""Mutation score of the quick audit, per claim, with cosmic-ray (`make mutation`; not in CI).

For each claim named by ``--claims`` (default: every registered claim):

1. *Scope.*  The code the claim's verdict depends on is measured, not listed by hand: coverage.py
   records the lines of ``oracle/claims``, ``oracle/algebra`` and ``oracle/decide`` that
   ``absorb audit --quick --claim ID`` executes.  The scope is every executed line of the claim's own
   module, plus the executed lines of the other modules there that importing the package does not
   already execute (a separate coverage run of the imports alone), minus the shared runner
   (``oracle/claims/base.py``, ``coverage.py``, ``__init__.py``: every claim runs them, and
   ``tests/test_oracle_mutations.py`` holds mutants of the coverage measurement).
2. *Mutants.*  ``cosmic-ray init`` generates every mutant of the scope's files with all of its
   operators; mutants whose first line is outside the scope are marked skipped.  When more than
   ``--max-mutants`` remain, a uniform sample of that size (seeded by ``--seed``) is kept and the rest
   are marked skipped; docs/mutation.md says so with the numbers.
3. *Test command.*  Per mutant, ``python benchmarks/mutation.py probe ID`` runs the parts of the quick
   audit that execute Python code of the scope: the claim's oracle check on the quick audit's
   instances and seed (with its coverage of the declared ranges) and the boundary counterexamples
   the audit runs for the claim, failing exactly when the audit would report them, so a mutant the
   probe kills fails the audit too.  The audit's other parts (the proof check, the activation
   catalog, the source hashes) are measured once with coverage.py; a survivor of the probe on a line
   they execute beyond imports is run again through ``absorb audit --quick --claim ID`` (every
   survivor with ``--confirm``).  Exit status 0 means the mutant survived.  Each probe has a timeout of ``--timeout-factor`` times the unmutated probe's time
   (plus 30 s); a timed-out mutant counts as killed and is listed as such.
4. *Where.*  Everything runs on a copy of the checkout in ``--workdir`` (cosmic-ray edits the file
   it mutates in place), imported through PYTHONPATH; the checkout itself is never edited.

Results go to ``benchmarks/mutation-results/<claim>.json`` (one file per claim, kept between runs, so
a run restricted with ``--claims`` updates only its claims), and docs/mutation.md is rewritten from
every results file and from ``benchmarks/mutation-judgments.toml``, where each survivor judged
equivalent carries its one-line reason.  ``python benchmarks/mutation.py report`` rewrites
docs/mutation.md alone.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import time
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "mutation-results"
JUDGMENTS = ROOT / "benchmarks" / "mutation-judgments.toml"
DOC = ROOT / "docs" / "mutation.md"
SCOPE_DIRS = ("oracle/claims", "oracle/algebra", "oracle/decide")
SHARED = {"oracle/claims/base.py", "oracle/claims/coverage.py", "oracle/claims/__init__.py"}
COPY_EXCLUDE = {".venv", ".git", ".hypothesis", "audit-failures", "reports", "mutation-work"}


# ---------------------------------------------------------------- the per-mutant test command

def probe(cid: str) -> int:
    """The quick audit's oracle check and boundary counterexamples of one claim; 0 when they pass."""
    from oracle.commands import audit
    from oracle.formal import consistency

    registry = consistency.load_registry()
    claim = audit.select_claims(registry, [cid])[0]
    known = [c["id"] for c in registry]
    oracle = audit.oracle_face(claim, audit.QUICK_INSTANCES, audit.DEFAULT_SEED, progress=lambda _m: None)
    problems = []
    if oracle["status"] != "pass":
        problems.append(f"oracle check {oracle['status']}: {oracle.get('failure') or oracle.get('detail', '')}")
    cexs, cex_problem = audit._counterexamples({cid}, known)
    if cex_problem:
        problems.append(cex_problem)
    tags = {c["id"]: set(c.get("hypotheses", [])) for c in registry}
    for cx in cexs:
        if not cx["verified"]:
            problems.append(f"counterexample {cx['name']} not verified: {cx['detail']}")
        for c in cx["claims"]:
            if c not in tags or cx["dropped"] not in tags[c]:
                problems.append(f"counterexample {cx['name']} drops {cx['dropped']!r}, not a hypothesis of {c}")
    for p in problems:
        print(f"{cid}: {p}"[:2000])
    print(f"{cid}: {'FAILED' if problems else 'passed'} ({len(cexs)} counterexamples)")
    return 1 if problems else 0


# ---------------------------------------------------------------- scope by coverage

def make_copy(workdir: Path) -> Path:
    """A fresh copy of the checkout (without the virtualenv and git data) under workdir/run."""
    run = workdir / "run"
    if run.exists():
        shutil.rmtree(run)
    run.mkdir(parents=True)
    for p in ROOT.iterdir():
        if p.name in COPY_EXCLUDE:
            continue
        (shutil.copytree if p.is_dir() else shutil.copy2)(p, run / p.name)
    return run


def _env(run: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(run)  # before the editable install's finder, so the copy is imported
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _covered(run: Path, data: Path, argv: list[str]) -> dict[str, set[int]]:
    """Lines of the scope directories executed by ``python -m coverage run ... argv`` in the copy."""
    import coverage

    src = ",".join(d.replace("/", ".") for d in SCOPE_DIRS)
    subprocess.run([sys.executable, "-m", "coverage", "run", f"--data-file={data}", f"--source={src}", *argv],
                   cwd=run, env=_env(run), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    cov = coverage.CoverageData(basename=str(data))
    cov.read()
    out = {}
    for f in cov.measured_files():
        rel = Path(f).resolve().relative_to(run.resolve()).as_posix()
        out[rel] = set(cov.lines(f) or [])
    return out


def claim_module(cid: str) -> str:
    """The file of the claim's oracle check (the registry's ``module:function``)."""
    from oracle.formal import consistency

    claim = next(c for c in consistency.load_registry() if c["id"] == cid)
    return "oracle/claims/" + claim["oracle"].split(":")[0].rsplit(".", 1)[-1] + ".py"


def scope(run: Path, cid: str, imports: dict[str, set[int]], work: Path) -> tuple[dict[str, set[int]], dict[str, Any]]:
    """The lines the claim's verdict depends on, measured on the audit and on the probe."""
    t0 = time.perf_counter()
    audit_lines = _covered(run, work / f"{cid}.audit.cov",
                           ["-m", "oracle.cli", "audit", "--quick", "--claim", cid])
    audit_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    probe_lines = _covered(run, work / f"{cid}.probe.cov", [str(run / "benchmarks" / "mutation.py"), "probe", cid])
    probe_seconds = time.perf_counter() - t0
    own = claim_module(cid)
    lines: dict[str, set[int]] = {}
    for f, ls in audit_lines.items():
        if f in SHARED:
            continue
        keep = set(ls) if f == own else set(ls) - imports.get(f, set())
        if keep:
            lines[f] = keep
    not_probed = {f: sorted(ls - probe_lines.get(f, set())) for f, ls in lines.items()
                  if ls - probe_lines.get(f, set())}
    return lines, {"own_module": own, "audit_seconds_with_coverage": round(audit_seconds, 1),
                   "probe_seconds_with_coverage": round(probe_seconds, 1),
                   "lines_in_scope": sum(len(v) for v in lines.values()),
                   "lines_not_run_by_probe": not_probed}


# ---------------------------------------------------------------- cosmic-ray

def file_items(run: Path, rel: str, work: Path, cfg_text: str) -> list[Any]:
    """Every cosmic-ray mutant of one file (``cosmic-ray init`` on that file alone, cached in the
    work folder by the file's content, since generating them takes minutes for a large module)."""
    from cosmic_ray.work_db import WorkDB, use_db

    digest = hashlib.sha256((run / rel).read_bytes()).hexdigest()[:16]
    cache = work / "items" / f"{rel.replace('/', '_')}-{digest}.sqlite"
    if not cache.exists():
        cache.parent.mkdir(parents=True, exist_ok=True)
        cfg = cache.with_suffix(".toml")
        head, _, tail = cfg_text.partition("\ntimeout")
        cfg.write_text(f"[cosmic-ray]\nmodule-path = {json.dumps(str(run / rel))}\ntimeout" + tail)
        tmp = cache.with_suffix(".part")
        if tmp.exists():
            tmp.unlink()
        subprocess.run([str(Path(sys.executable).parent / "cosmic-ray"), "init", str(cfg), str(tmp)],
                       cwd=run, env=_env(run), check=True, stdout=subprocess.DEVNULL)
        tmp.rename(cache)
    with use_db(str(cache), WorkDB.Mode.open) as db:
        return list(db.work_items)


def _first_line(m: Any) -> int:
    return int(m.start_pos[0])


def run_claim(run: Path, cid: str, imports: dict[str, set[int]], work: Path, max_mutants: int,
              seed: int, timeout_factor: float, other_parts: dict[str, set[int]],
              confirm: bool = False) -> dict[str, Any]:
    from cosmic_ray.work_db import WorkDB, use_db

    lines, info = scope(run, cid, imports, work)
    py = sys.executable
    probe_cmd = [py, str(run / "benchmarks" / "mutation.py"), "probe", cid]
    t0 = time.perf_counter()
    base = subprocess.run(probe_cmd, cwd=run, env=_env(run), capture_output=True, text=True)
    base_seconds = time.perf_counter() - t0
    if base.returncode != 0:
        raise SystemExit(f"{cid}: the unmutated probe fails, no score possible:\n{base.stdout}{base.stderr}")
    timeout = timeout_factor * base_seconds + 30
    cfg = work / f"{cid}.toml"
    files = sorted(str(run / f) for f in lines)
    cfg.write_text("[cosmic-ray]\n"
                   f"module-path = {json.dumps(files)}\n"
                   f"timeout = {timeout:.0f}\n"
                   "excluded-modules = []\n"
                   f"test-command = {json.dumps(' '.join(probe_cmd))}\n"
                   "[cosmic-ray.distributor]\nname = \"local\"\n")
    session = work / f"{cid}.sqlite"
    if session.exists():
        session.unlink()
    cr = str(Path(py).parent / "cosmic-ray")
    items = [it for f in sorted(lines) for it in file_items(run, f, work, cfg.read_text())]
    in_scope = [it for it in items
                if _first_line(it.mutations[0]) in lines.get(
                    Path(it.mutations[0].module_path).resolve().relative_to(run.resolve()).as_posix(), set())]
    chosen = in_scope if len(in_scope) <= max_mutants else random.Random(seed).sample(in_scope, max_mutants)
    chosen_set = {it.job_id for it in chosen}
    with use_db(str(session), WorkDB.Mode.create) as db:
        db.add_work_items(chosen)
    t0 = time.perf_counter()
    subprocess.run([cr, "exec", str(cfg), str(session)], cwd=run, env=_env(run), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    exec_seconds = time.perf_counter() - t0
    mutants = []
    with use_db(str(session), WorkDB.Mode.open) as db:
        for it, res in db.completed_work_items:
            if it.job_id not in chosen_set:
                continue
            m = it.mutations[0]
            rel = Path(m.module_path).resolve().relative_to(run.resolve()).as_posix()
            outcome = str(res.test_outcome.value) if res.test_outcome else str(res.worker_outcome.value)
            if res.output == "timeout":
                outcome = "killed (timeout)"
            mutants.append({"file": rel, "line": _first_line(m), "operator": m.operator_name,
                            "occurrence": m.occurrence, "outcome": outcome,
                            "diff": "\n".join(l for l in (res.diff or "").splitlines()
                                              if l[:1] in "+-" and l[:3] not in ("+++", "---")),
                            "output": (res.output or "")[-600:] if outcome.startswith("killed") else ""})
    mutants.sort(key=lambda x: (x["file"], x["line"], x["operator"], x["occurrence"]))
    # A mutant the probe kills fails the audit too (the probe runs a subset of the audit's checks
    # with the same code).  A survivor of the probe can fail the audit only through the audit's
    # other parts (proof check, activation catalog, source hashes); those survivors whose line the
    # other parts execute are run again through the audit itself (all of them with --confirm).
    for m in mutants:
        if m["outcome"] == "survived" and (confirm or m["line"] in other_parts.get(m["file"], set())):
            m["audit"] = confirm_with_audit(run, cid, m, timeout)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--", *SCOPE_DIRS], cwd=ROOT, capture_output=True,
                           text=True)
    return {"claim": cid, "date": datetime.date.today().isoformat(), **info,
            "source": head.stdout.strip() + (" with uncommitted changes" if dirty.stdout.strip() else ""),
            "probe_seconds": round(base_seconds, 1), "timeout_seconds": round(timeout),
            "mutants_generated_in_files": len(items), "mutants_in_scope": len(in_scope),
            "files_in_scope": {f: len(v) for f, v in sorted(lines.items())},
            "mutants_run": len(chosen), "sampled": len(in_scope) > max_mutants, "sample_seed": seed,
            "exec_seconds": round(exec_seconds),
            "other_parts_lines_in_scope": {f: sorted(v & lines.get(f, set())) for f, v in other_parts.items()
                                           if v & lines.get(f, set())},
            "mutants": mutants}


def confirm_with_audit(run: Path, cid: str, m: dict[str, Any], timeout: float) -> str:
    """Apply the mutant again and run ``absorb audit --quick --claim ID`` on it: 'passed' or 'FAILED'."""
    import cosmic_ray.plugins
    from cosmic_ray.mutating import use_mutation

    operator = cosmic_ray.plugins.get_operator(m["operator"])()
    with use_mutation(run / m["file"], operator, m["occurrence"]) as (_old, new):
        if new is None:
            return "not applicable"
        absorb = str(Path(sys.executable).parent / "absorb")
        try:
            done = subprocess.run([absorb, "audit", "--quick", "--claim", cid], cwd=run, env=_env(run),
                                  capture_output=True, text=True, timeout=3 * timeout + 60)
        except subprocess.TimeoutExpired:
            return "FAILED (timeout)"
    return "passed" if done.returncode == 0 else f"FAILED (exit {done.returncode})"


# ---------------------------------------------------------------- docs/mutation.md

def mutant_key(cid: str, m: dict[str, Any]) -> str:
    """A stable name of a mutant for the judgments file: claim, file, line and a hash of its diff."""
    h = hashlib.sha256(m["diff"].encode()).hexdigest()[:10]
    return f"{cid}|{m['file']}:{m['line']}|{m['operator']}|{h}"


def write_doc() -> None:
    judged = tomllib.loads(JUDGMENTS.read_text()).get("equivalent", {}) if JUDGMENTS.exists() else {}
    results = [json.loads(p.read_text()) for p in sorted(RESULTS.glob("*.json"))]
    out = ["# Mutation score of the quick audit",
           "",
           "Written by `make mutation` (`benchmarks/mutation.py`; restrict with `make mutation CLAIMS=\"id1 id2\"`).",
           "Every mutant is generated by cosmic-ray over the code the claim's verdict depends on, measured",
           "with coverage.py on `absorb audit --quick --claim ID` (the claim's module, and the lines of",
           "`oracle/algebra/`, `oracle/decide/` and the other claim modules that the audit runs beyond",
           "importing them; the shared runner `oracle/claims/base.py`, `coverage.py`, `__init__.py` is left",
           "out). Each mutant is tested by the parts of the quick audit that run that code: the claim's oracle",
           "check on the quick audit's 20 instances (seed 0, with the top-up that reaches the declared ranges)",
           "and its boundary counterexamples. A survivor is judged *equivalent* only with an exact reason",
           "(benchmarks/mutation-judgments.toml); every other survivor counts against the score.",
           "",
           "Score = killed / (mutants run - equivalent). Where a claim has more mutants than the run's",
           "budget, a uniform sample was run; the table says how many of how many. A mutant of a strategy",
           "(the code that draws the instances) that survives counts as a survivor: the audit did not notice",
           "that it checked other instances than the ones it declares. Every survivor of the probe was also",
           "judged against the audit's other parts (proof check, activation catalog, source hashes): they are",
           "measured once per run with coverage.py, and a survivor on a line they run beyond imports is run",
           "through `absorb audit --quick --claim ID` itself (each claim's section says which). In a first run",
           "(30 mutants of relu2-biased and of gated-biased) all 27 survivors of the probe were run through",
           "that command, and it passed on all 27.",
           "",
           "Each row is the claim's last measurement: its date and the source it measured (a commit; rows",
           "of claims not in the last run's `--claims` keep their own).",
           "",
           "| claim | date | source | lines in scope | mutants in scope | run (sampled?) | killed | equivalent | survived | score |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    details = []
    tot = {"run": 0, "killed": 0, "equiv": 0, "surv": 0, "denom": 0}
    for r in results:
        cid = r["claim"]
        ms = [m for m in r["mutants"] if m["outcome"] not in ("skipped", "no-test")]
        killed = [m for m in ms if m["outcome"].startswith("killed")
                  or (m["outcome"] == "survived" and m.get("audit", "").startswith("FAILED"))]
        surv = [m for m in ms if m["outcome"] == "survived" and m not in killed]
        other = [m for m in ms if m not in killed and m not in surv]
        equiv = [m for m in surv if mutant_key(cid, m) in judged]
        denom = len(ms) - len(equiv) - len(other)
        score = f"{100 * len(killed) / denom:.0f} % ({len(killed)}/{denom})" if denom else "-"
        for k, v in (("run", len(ms)), ("killed", len(killed)), ("equiv", len(equiv)),
                     ("surv", len(surv) - len(equiv)), ("denom", denom)):
            tot[k] += v
        out.append(f"| {cid} | {r['date']} | {r.get('source', 'c565ae9').split()[0]} | {r['lines_in_scope']} | {r['mutants_in_scope']} | {len(ms)}"
                   f"{' (uniform sample, seed ' + str(r['sample_seed']) + ')' if r['sampled'] else ' (all)'} | "
                   f"{len(killed)} | {len(equiv)} | {len(surv) - len(equiv)} | {score} |")
        details.append(f"\n## {cid}\n")
        details.append(f"Source measured: {r.get('source', 'c565ae9 (the scope directories as on main)')}; "
                       "line numbers are those of that source.\n"
                       f"Probe time {r['probe_seconds']} s unmutated, timeout {r['timeout_seconds']} s; "
                       f"{sum(m['outcome'] == 'killed (timeout)' for m in ms)} killed by the timeout; "
                       f"{len(other)} not run to a verdict (incompetent mutants, left out of the score).")
        if "other_parts_lines_in_scope" in r:
            details.append("Lines of the scope that the audit's other parts run beyond imports: "
                           + (json.dumps(r["other_parts_lines_in_scope"]) if r["other_parts_lines_in_scope"]
                              else "none (so the probe's survivors survive the whole quick audit)") + ".")
        confirmed = [m for m in surv if m.get("audit")]
        if confirmed:
            details.append(f"Survivors also run through `absorb audit --quick --claim {cid}`: {len(confirmed)}, "
                           f"passed on {sum(m['audit'] == 'passed' for m in confirmed)}.")
        if r.get("lines_not_run_by_probe"):
            details.append(f"Lines in scope that the audit runs and the probe does not: "
                           f"{json.dumps(r['lines_not_run_by_probe'])}.")
        late = [m for m in killed if m["outcome"] == "survived"]
        if late:
            details.append(f"{len(late)} mutants passed the probe and failed the whole audit (counted as killed): "
                           + ", ".join(f"`{m['file']}:{m['line']}` {m['operator']}" for m in late) + ".")
        if not surv:
            details.append("\nNo survivor.")
        for m in surv:
            reason = judged.get(mutant_key(cid, m))
            verdict = f"equivalent: {reason}" if reason else "survives"
            if m.get("audit") == "passed":
                verdict += " (`absorb audit --quick --claim " + cid + "` passes on it)"
            details.append(f"\n- `{m['file']}:{m['line']}` {m['operator']} — **{verdict}**\n"
                           f"  (key `{mutant_key(cid, m)}`)\n\n"
                           "  ```diff\n" + "\n".join("  " + l for l in m["diff"].splitlines()) + "\n  ```")
    if tot["denom"]:
        out.append(f"| **all** | | | | | {tot['run']} | {tot['killed']} | {tot['equiv']} | {tot['surv']} | "
                   f"{100 * tot['killed'] / tot['denom']:.0f} % ({tot['killed']}/{tot['denom']}) |")
    DOC.write_text("\n".join(out + details) + "\n")


# ---------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd")
    p = sub.add_parser("probe", help="the per-mutant test command (exit 0: the mutant survived)")
    p.add_argument("claim")
    sub.add_parser("report", help="rewrite docs/mutation.md from the results files")
    r = sub.add_parser("run", help="measure the listed claims and rewrite docs/mutation.md")
    r.add_argument("--claims", nargs="*", default=None, help="claim ids (default: every registered claim)")
    r.add_argument("--max-mutants", type=int, default=40, help="per claim; a uniform sample above it")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--timeout-factor", type=float, default=3.0)
    r.add_argument("--workdir", type=Path, default=ROOT / "mutation-work")
    r.add_argument("--confirm", action="store_true",
                   help="run every survivor of the probe through absorb audit --quick --claim ID too")
    a = ap.parse_args(argv)
    if a.cmd == "probe":
        return probe(a.claim)
    if a.cmd == "report":
        write_doc()
        return 0
    if a.cmd != "run":
        ap.print_help()
        return 2
    from oracle.formal import consistency

    claims = a.claims or [c["id"] for c in consistency.load_registry()]
    a.workdir.mkdir(parents=True, exist_ok=True)
    run = make_copy(a.workdir)
    script = a.workdir / "imports.py"  # what importing the package (as the audit does) executes
    script.write_text("import importlib, pkgutil, oracle.cli, oracle.commands.audit, oracle.claims\n"
                      "oracle.claims.load()\n"
                      "for pkg in ('oracle.claims', 'oracle.algebra', 'oracle.decide'):\n"
                      "    p = importlib.import_module(pkg)\n"
                      "    for m in pkgutil.walk_packages(p.__path__, pkg + '.'):\n"
                      "        importlib.import_module(m.name)\n")
    imports = _covered(run, a.workdir / "imports.cov", [str(script)])
    if not imports:
        raise SystemExit("the coverage run of the imports recorded nothing")
    other = a.workdir / "other_parts.py"  # the audit's parts that the probe leaves out
    other.write_text("from oracle.formal import consistency\nfrom oracle.core import activations\n"
                     "from oracle.commands import audit\nconsistency.check_all(attribute=True)\n"
                     "activations.catalog_report()\naudit.source_hashes()\n")
    other_parts = {f: v - imports.get(f, set())
                   for f, v in _covered(run, a.workdir / "other_parts.cov", [str(other)]).items()}
    RESULTS.mkdir(parents=True, exist_ok=True)
    for cid in claims:
        print(f"[mutation] {cid}: measuring the scope and running the mutants", file=sys.stderr, flush=True)
        res = run_claim(run, cid, imports, a.workdir, a.max_mutants, a.seed, a.timeout_factor,
                        other_parts, a.confirm)
        (RESULTS / f"{cid}.json").write_text(json.dumps(res, indent=1) + "\n")
        print(f"[mutation] {cid}: {sum(m['outcome'].startswith('killed') for m in res['mutants'])} killed of "
              f"{len(res['mutants'])} run", file=sys.stderr, flush=True)
        write_doc()
    return 0


if __name__ == "__main__":
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    sys.exit(main())
