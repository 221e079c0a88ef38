"""Keep the registry, the informal proofs, the Coq and Lean sources and the tests in step.

Checks, for a project root (the real one, or a broken copy in a test):
  * every claim has its informal proof file;
  * every Coq / Lean name of the registry is declared in the sources;
  * no source uses sorry / admit / Admitted / Axiom / Parameter (and the like);
  * every hypothesis tag of a claim is a named binder ``(tag : ...)`` in the
    statement of its main Coq and Lean declaration;
  * every claim id is named by at least one test;
  * the Coq development compiles (when coqc is installed; otherwise reported
    as skipped) and ``Print Assumptions`` of every registered theorem lists only
    the standard library's axioms of the reals.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parent.parent

# Axioms the standard library's real numbers rest on (Coq >= 8.12 builds R from
# constructive Cauchy reals plus the first three). The standard library's own ln,
# and so Rpower (real exponents t^k), is proved with excluded middle, so
# Classical_Prop.classic reaches every theorem stated with a real degree k; it is
# listed per theorem in the audit. Anything else in Print Assumptions fails.
ALLOWED_AXIOM_PREFIXES = (
    "ClassicalDedekindReals.sig_forall_dec",
    "ClassicalDedekindReals.sig_not_dec",
    "FunctionalExtensionality.functional_extensionality_dep",
    "Classical_Prop.classic",
)
# Hypotheses carried by the shape of the formal statements rather than by a binder:
# the formal blocks have no bias terms, and B' is given width m where the claim says so.
STRUCTURAL_TAGS = frozenset({"bias_free", "same_width"})
COQ_FORBIDDEN = re.compile(r"\b(Admitted|admit|Axiom|Axioms|Parameter|Parameters|Conjecture|sorry)\b")
LEAN_FORBIDDEN = re.compile(r"\b(sorry|admit|axiom|Axiom|native_decide)\b")
COQ_DECL = r"(?:Theorem|Lemma|Corollary|Proposition|Fact|Remark|Definition|Fixpoint)"
LEAN_DECL = r"(?:theorem|lemma|def|noncomputable def|abbrev)"


@dataclass
class Finding:
    """One failed consistency check."""

    claim: Optional[str]
    what: str

    def __str__(self) -> str:
        return f"{self.claim or '-'}: {self.what}"


@dataclass
class CoqBuild:
    """Result of compiling the Coq development and printing its assumptions."""

    status: str  # "compiled" | "failed" | "skipped"
    detail: str = ""
    assumptions: dict[str, list[str]] = field(default_factory=dict)  # theorem -> axioms


def load_registry(root: Path = ROOT) -> list[dict[str, Any]]:
    """The [[claim]] tables of proofs/claims.toml."""
    with open(root / "proofs" / "claims.toml", "rb") as f:
        return tomllib.load(f)["claim"]


def _names(entry: Any) -> list[str]:
    if entry is None:
        return []
    return [entry] if isinstance(entry, str) else list(entry)


def strip_coq_comments(src: str) -> str:
    """Remove (possibly nested) Coq comments, keeping line structure."""
    out, depth, i = [], 0, 0
    while i < len(src):
        if src.startswith("(*", i):
            depth += 1
            i += 2
        elif src.startswith("*)", i) and depth:
            depth -= 1
            i += 2
        else:
            if depth == 0 or src[i] == "\n":
                out.append(src[i])
            i += 1
    return "".join(out)


def strip_lean_comments(src: str) -> str:
    """Remove Lean block comments (nested) and line comments."""
    out, depth, i = [], 0, 0
    while i < len(src):
        if src.startswith("/-", i):
            depth += 1
            i += 2
        elif src.startswith("-/", i) and depth:
            depth -= 1
            i += 2
        elif depth == 0 and src.startswith("--", i):
            j = src.find("\n", i)
            i = len(src) if j < 0 else j
        else:
            if depth == 0 or src[i] == "\n":
                out.append(src[i])
            i += 1
    return "".join(out)


def coq_statement(root: Path, fqname: str) -> Optional[str]:
    """The text of a Coq declaration from its keyword up to 'Proof.' or ':=' (None if absent)."""
    parts = fqname.split(".")
    if len(parts) != 3 or parts[0] != "SkipAbsorption":
        return None
    path = root / "proofs" / "coq" / f"{parts[1]}.v"
    if not path.exists():
        return None
    src = strip_coq_comments(path.read_text())
    m = re.search(rf"(?m)^\s*{COQ_DECL}\s+{re.escape(parts[2])}\b(.*?)(?:\bProof\b|:=)", src, re.S)
    return m.group(0) if m else None


def lean_statement(root: Path, fqname: str) -> Optional[str]:
    """The text of a Lean declaration `namespace.name` up to ':= by' or ':=' (None if absent)."""
    ns, _, name = fqname.rpartition(".")
    for path in sorted((root / "lean").rglob("*.lean")):
        src = strip_lean_comments(path.read_text())
        if ns and not re.search(rf"(?m)^\s*namespace\s+{re.escape(ns)}\b", src):
            continue
        m = re.search(rf"(?m)^\s*(?:@\[[^\]]*\]\s*)?(?:private\s+)?{LEAN_DECL}\s+{re.escape(name)}\b(.*?):=",
                      src, re.S)
        if m:
            return m.group(0)
    return None


def binder_names(statement: str) -> set[str]:
    """Names bound in (a b : T) / {a : T} / [a : T] groups of a statement."""
    names: set[str] = set()
    for grp in re.finditer(r"[\(\{\[]\s*([A-Za-z_][\w'\s]*?)\s*:(?!=)", statement):
        names.update(grp.group(1).split())
    return names


def scan_forbidden(root: Path) -> list[Finding]:
    """Every sorry/admit/Admitted/Axiom/Parameter in the Coq and Lean sources (comments ignored)."""
    found = []
    for path in sorted((root / "proofs" / "coq").glob("*.v")):
        for n, line in enumerate(strip_coq_comments(path.read_text()).splitlines(), 1):
            if COQ_FORBIDDEN.search(line):
                found.append(Finding(None, f"{path.relative_to(root)}:{n}: forbidden: {line.strip()}"))
    for path in sorted((root / "lean").rglob("*.lean")):
        if ".lake" in path.parts:
            continue
        for n, line in enumerate(strip_lean_comments(path.read_text()).splitlines(), 1):
            if LEAN_FORBIDDEN.search(line):
                found.append(Finding(None, f"{path.relative_to(root)}:{n}: forbidden: {line.strip()}"))
    return found


def static_findings(root: Path = ROOT) -> list[Finding]:
    """All checks that need no compiler: files, names, binders, forbidden words, tests."""
    findings = scan_forbidden(root)
    tests_text = "\n".join(p.read_text() for p in sorted((root / "tests").glob("test_*.py")))
    for c in load_registry(root):
        cid = c["id"]
        informal = root / "proofs" / c.get("informal", f"informal/{cid}.md")
        if not informal.exists() or not informal.read_text().strip():
            findings.append(Finding(cid, f"informal proof {informal.relative_to(root)} missing or empty"))
        tags = c.get("formal_hypotheses", c.get("hypotheses", []))
        for lang, getter, key in (("Coq", coq_statement, "coq"), ("Lean", lean_statement, "lean")):
            names = _names(c.get(key))
            if not names and not c.get(f"{key}_absent"):
                findings.append(Finding(cid, f"no {lang} declaration and no {key}_absent reason"))
            for i, name in enumerate(names):
                stmt = getter(root, name)
                if stmt is None:
                    findings.append(Finding(cid, f"{lang} declaration {name} not found"))
                    continue
                if i == 0:
                    bound = binder_names(stmt)
                    # A language may carry a hypothesis in a type instead (e.g. Fin (n + 1) for a
                    # nonempty stack); the registry then lists that language's tags explicitly.
                    for tag in c.get(f"{key}_hypotheses", tags):
                        if tag in STRUCTURAL_TAGS:
                            continue
                        if tag not in bound:
                            findings.append(Finding(cid, f"hypothesis tag {tag!r} is not a named binder "
                                                         f"of {lang} {name}"))
        if not re.search(rf"(?<![\w-]){re.escape(cid)}(?![\w-])", tests_text):
            findings.append(Finding(cid, "no test names this claim"))
        for tag in c.get("formal_hypotheses", []):
            if tag not in c.get("hypotheses", []):
                findings.append(Finding(cid, f"formal hypothesis {tag!r} is not among the claim's hypotheses"))
    return findings


def coq_available() -> bool:
    """True when coqc is on PATH."""
    return shutil.which("coqc") is not None


def _run(cmd: list[str], cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def parse_assumptions(output: str) -> dict[str, list[str]]:
    """Parse the output of a run of `Print Assumptions` commands separated by '==> name' markers."""
    result: dict[str, list[str]] = {}
    current: Optional[str] = None
    for line in output.splitlines():
        m = re.search(r'"==> ([\w.]+)"', line)
        if m:
            current = m.group(1)
            result[current] = []
            continue
        if current is None:
            continue
        if line.startswith("Closed under the global context") or line.strip().startswith(": string"):
            continue
        # An axiom starts at column 0 as "name : type" or, when the type is long, as "name"
        # alone with the type on indented lines below.
        m = re.match(r"^(\S+)(?:\s+:.*)?$", line)
        if m and line.strip() != "Axioms:":
            result[current].append(m.group(1))
    return result


def coq_build(root: Path = ROOT, theorems: Optional[list[str]] = None) -> CoqBuild:
    """Compile proofs/coq and print the assumptions of the given theorems (all registered by default)."""
    if not coq_available():
        return CoqBuild("skipped", "coqc not installed (apt-get install -y coq)")
    coqdir = root / "proofs" / "coq"
    r = _run(["make", "-C", str(coqdir)], cwd=root)
    if r.returncode != 0:
        tail = (r.stdout + r.stderr).strip().splitlines()[-6:]
        return CoqBuild("failed", " | ".join(tail))
    if theorems is None:
        theorems = [n for c in load_registry(root) for n in _names(c.get("coq"))]
    # Print Assumptions costs about a second per theorem; its answer depends only on the
    # sources, the theorem list and the Coq version, so it is cached under that key.
    key = _assumptions_key(coqdir, theorems)
    cache = coqdir / ".assumptions-cache.json"
    if cache.exists():
        try:
            cached = json.loads(cache.read_text())
            if cached.get("key") == key:
                return _judge(theorems, cached["assumptions"], cached=True)
        except (ValueError, KeyError):
            pass
    script = ["From Coq Require Import String."]
    modules = sorted({".".join(t.split(".")[:2]) for t in theorems})
    script += [f"Require {m}." for m in modules]
    for t in theorems:
        script.append(f'Eval compute in "==> {t}"%string.')
        script.append(f"Print Assumptions {t}.")
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "PrintAssumptions.v"
        f.write_text("\n".join(script) + "\n")
        r = _run(["coqc", "-R", str(coqdir), "SkipAbsorption", str(f)], cwd=Path(tmp))
    if r.returncode != 0:
        return CoqBuild("failed", "Print Assumptions failed: " + (r.stderr or r.stdout).strip()[:400])
    assumptions = parse_assumptions(r.stdout)
    result = _judge(theorems, assumptions)
    if result.status == "compiled":
        cache.write_text(json.dumps({"key": key, "assumptions": assumptions}))
    return result


def _assumptions_key(coqdir: Path, theorems: list[str]) -> str:
    h = hashlib.sha256()
    for p in sorted(coqdir.glob("*.v")):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    h.update("\n".join(theorems).encode())
    h.update(_run(["coqc", "--version"], cwd=coqdir).stdout.encode())
    return h.hexdigest()


def _judge(theorems: list[str], assumptions: dict[str, list[str]], cached: bool = False) -> CoqBuild:
    """Decide a build from its parsed Print Assumptions output."""
    missing = [t for t in theorems if t not in assumptions]
    if missing:
        return CoqBuild("failed", f"no Print Assumptions output for {missing}", assumptions)
    bad = {t: [a for a in ax if not a.startswith(ALLOWED_AXIOM_PREFIXES)] for t, ax in assumptions.items()}
    bad = {t: ax for t, ax in bad.items() if ax}
    if bad:
        return CoqBuild("failed", f"axioms beyond the reals: {bad}", assumptions)
    used = sorted({a.rsplit(".", 1)[-1] for ax in assumptions.values() for a in ax})
    note = "; Print Assumptions cached for these sources" if cached else ""
    return CoqBuild("compiled", f"{len(theorems)} theorems; axioms used: {', '.join(used) or 'none'} "
                    f"(the standard library's reals and its Rpower){note}", assumptions)


def check_all(root: Path = ROOT, compile_coq: bool = True) -> dict[str, Any]:
    """Run every consistency check; the dict says what passed and lists each finding."""
    findings = static_findings(root)
    build = coq_build(root) if compile_coq else CoqBuild("skipped", "not requested")
    if build.status == "failed":
        findings.append(Finding(None, f"Coq: {build.detail}"))
    return {
        "ok": not findings,
        "findings": [str(f) for f in findings],
        "coq": {"status": build.status, "detail": build.detail, "assumptions": build.assumptions},
        "lean": {"status": "written, not compiled in this environment",
                 "detail": "no Lean toolchain is reachable here; names, binders and sorry-freedom are checked"},
    }


def copy_sources(dst: Path, root: Path = ROOT) -> Path:
    """Copy what the consistency check reads (proofs, lean, tests) into dst, for broken-copy tests."""
    for sub in ("proofs", "lean", "tests"):
        shutil.copytree(root / sub, dst / sub, ignore=shutil.ignore_patterns(
            "*.vo", "*.vok", "*.vos", "*.glob", ".*.aux", "Makefile.coq*", ".lake", "__pycache__",
            ".hypothesis", ".nra.cache", ".lia.cache", ".assumptions-cache.json"))
    return dst


if __name__ == "__main__":  # pragma: no cover - convenience for developers
    print(json.dumps(check_all(), indent=2))
    os._exit(0)
