"""Render the audit document: a terminal table, and self-contained Markdown or HTML reports.

The reports show, per claim, the statement, every hypothesis with its meaning
(proofs/hypotheses.toml), what the Coq proofs cover and their axioms, the statements as Coq
prints them (proofs/pinned/coq-statements.txt, when present), the Lean mirror, the oracle's
instances and time, and the boundary counterexamples with their weights; figures come from
oracle/report/figures.py and are embedded as SVG data URIs.
"""

from __future__ import annotations

import datetime
import functools
import html
import importlib.metadata
import json
import os
import platform
import re
import subprocess
import tomllib
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Optional

import oracle.claims as claim_modules
from oracle.formal import consistency, coqsource, leancheck, pinned as pinned_files
from oracle.core import activations
from oracle.claims import boundary
from oracle.algebra.exact import ball_abs_upper
from oracle.report import figures
from oracle.core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]  # the checkout: oracle/<layer>/<module>.py
GLOSSARY = ROOT / "proofs" / "hypotheses.toml"
PINNED = ROOT / pinned_files.COQ_FILE
LEAN_PINNED = ROOT / pinned_files.LEAN_FILE
# the paper whose claims the audit checks
PAPER = ("Mijoski and Karbevski, “Can an MLP Absorb Its Own Skip Connection?”, arXiv 2604.23705",
         "https://arxiv.org/abs/2604.23705")


def _oracle_cell(o: dict[str, Any]) -> str:
    if o["status"] == "pass":
        exact = o.get("exact_instances", 0)
        return f"pass {o['instances']}/{o['instances']} ({exact} exact)"
    return o["status"].upper() if o["status"] != "FAILED" else "FAILED"


def _coq_cell(c: dict[str, Any]) -> str:
    # A checked proof shows what is formal (full, sufficiency, ...), never a bare "checked".
    if c["status"] == "checked":
        return c.get("scope") or "scope?"
    return {"skipped": "skipped (no coqc)", "absent": "absent", "FAILED": "FAILED"}.get(c["status"], c["status"])


def _lean_cell(c: dict[str, Any]) -> str:
    if c["status"] == "written":
        return (c.get("scope") or "scope?") + "*"
    return {"absent": "absent", "FAILED": "FAILED"}.get(c["status"], c["status"])


def _boundary_cell(cs: list[dict[str, Any]]) -> str:
    if not cs:
        return "-"
    ok = sum(c["verified"] for c in cs)
    return f"{ok}/{len(cs)} verified"


def rows(doc: dict[str, Any]) -> list[list[str]]:
    """One row of short cells per claim."""
    return [[c["id"], c["paper_ref"], c["informal_status"], _coq_cell(c["coq"]), _lean_cell(c["lean"]),
             _oracle_cell(c["oracle"]), _boundary_cell(c["boundary"])] for c in doc["claims"]]


HEADER = ["claim", "paper", "informal", "Coq", "Lean", "oracle", "counterexamples"]


def verdict_line(doc: dict[str, Any]) -> str:
    """The audit's last line: 'audit PASSED in 12.3s' or 'audit FAILED in 12.3s'."""
    return f"audit {'PASSED' if doc['ok'] else 'FAILED'} in {doc['seconds']}s"


def measure_axiom_lines(doc: dict[str, Any]) -> list[str]:
    """One line per claim whose Print Assumptions goes beyond the axioms of the reals (the
    measure library's axioms, which the proof check allows only for the claims that use it)."""
    out = []
    for c in doc["claims"]:
        extra = [a for a in c["coq"].get("axioms") or [] if a not in consistency.ALLOWED_AXIOMS]
        if extra:
            out.append(f"  {c['id']:<24} " + ", ".join(".".join(a.split(".")[-2:]) for a in extra))
    if out:
        out.insert(0, "Coq axioms beyond the reals, per claim (mathcomp-analysis's, allowed only for the "
                      "claims whose declarations use proofs/coq/NullSets.v):")
    return out


def terminal_table(doc: dict[str, Any], verdict: bool = True) -> str:
    """The audit as a fixed-width table with a short legend, and the verdict line last (unless
    ``verdict`` is False: `absorb audit` prints it itself, after everything else)."""
    table = [HEADER] + rows(doc)
    widths = [max(len(r[i]) for r in table) for i in range(len(HEADER))]
    fmt = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    lines = [fmt(HEADER), "  ".join("-" * w for w in widths)] + [fmt(r) for r in table[1:]]
    cex = doc["counterexamples"]
    lines.append("")
    lines.append(f"boundary counterexamples: {sum(c['verified'] for c in cex)}/{len(cex)} verified "
                 f"({sum(c['exact'] for c in cex)} exact)")
    for c in cex:
        lines.append(f"  {'ok ' if c['verified'] else 'BAD'} {c['name']:<28} drops {c['dropped']:<18} "
                     f"-> {', '.join(c['claims'])}")
    acts = doc["activations"]
    lines.append(f"activations: {sum(a['all_verified'] for a in acts)}/{len(acts)} catalog entries "
                 "with every declared property re-derived")
    lines.append(f"Coq: {doc['coq']['status']} ({doc['coq']['detail']})")
    lines += measure_axiom_lines(doc)
    lines.append("Coq/Lean columns: the formal scope ('full' = the formal statement is the whole claim, "
                 "else the part that is formal); Coq statements pinned in proofs/pinned/")
    lines.append("* Lean: written, not compiled in this environment (no Lean toolchain here); "
                 "names, binders, escape hatches and pinned statements are checked")
    lines.append(f"oracle: {doc['instances_per_claim']} hypothesis-generated instances per claim"
                 f"{' (--quick)' if doc['quick'] else ''}, seed {doc.get('seed', 0)} "
                 f"(the same seed draws the same instances); 'exact' = exact rationals or arb enclosures")
    lines.append("sampled ranges (proofs/claims.toml 'samples', each reached by the instances drawn):")
    for c in doc["claims"]:
        cov = c["oracle"].get("coverage") or {}
        top = c["oracle"].get("top_up") or 0
        lines.append(f"  {c['id']:<24} {cov.get('summary', '-')}"
                     + (f"  (+{top} instances to reach them)" if top else ""))
    if doc.get("selected_claims"):
        lines.append(f"audited claims: {', '.join(doc['selected_claims'])} (--claim)")
    if doc["problems"]:
        lines.append("")
        lines.append(f"PROBLEMS ({len(doc['problems'])}):")
        lines += [f"  - {p}" for p in doc["problems"]]
    if verdict:
        lines.append("")
        lines.append(verdict_line(doc))
    return "\n".join(lines)


# ============================================================ run information (the report's header)

def _cmd(args: list[str], cwd: Path = ROOT) -> Optional[str]:
    try:
        r = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout.strip() if r.returncode == 0 else None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def run_info(root: Path = ROOT) -> dict[str, Any]:
    """Version, commit, date, machine, Python, library and Coq versions of this run."""
    try:
        version = importlib.metadata.version("skip-absorption")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown (package not installed)"
    commit = _cmd(["git", "rev-parse", "HEAD"], root)
    dirty = _cmd(["git", "status", "--porcelain", "--untracked-files=no"], root)
    libs = {}
    for name in ("numpy", "python-flint", "mpmath", "sympy", "hypothesis", "matplotlib"):
        try:
            libs[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            libs[name] = "not installed"
    coq = _cmd(["coqc", "--version"], root)
    return {
        "version": version,
        "commit": commit or "unknown (not a git checkout)",
        "uncommitted_changes": bool(dirty),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.node()}: {platform.system()} {platform.release()} {platform.machine()}, "
                   f"{os.cpu_count()} CPUs ({_cpu_model()})",
        "python": platform.python_version(),
        "libraries": libs,
        "coq_version": coq.splitlines()[0] if coq else "coqc not installed",
    }


# ============================================================ registry-side facts for the report

def load_glossary(path: Optional[Path] = None) -> dict[str, str]:
    """The meaning of each hypothesis tag (proofs/hypotheses.toml); {} when the file is missing."""
    try:
        with open(path or GLOSSARY, "rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, str)}


def hypothesis_tags(registry: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Every hypothesis tag the registry and the boundary counterexamples use -> where it is used."""
    used: dict[str, list[str]] = {}
    for c in registry:
        for key in ("hypotheses", "formal_hypotheses", "coq_hypotheses", "lean_hypotheses"):
            for tag in c.get(key) or []:
                used.setdefault(tag, []).append(f"claim {c['id']} ({key})")
        for key in ("formal_not_needed", "coq_extra_hypotheses", "lean_extra_hypotheses",
                    "coq_counterexamples", "coq_counterexamples_absent"):
            for tag in (c.get(key) or {}):
                used.setdefault(tag, []).append(f"claim {c['id']} ({key})")
    for fn in claim_modules.load().counterexamples:
        used.setdefault(fn.counterexample_info.dropped, []).append(f"counterexample {fn.__name__}")
    return used


def glossary_gaps(registry: list[dict[str, Any]], glossary: dict[str, str]) -> list[str]:
    """One message per tag that has no meaning in proofs/hypotheses.toml, naming where it is used."""
    return [f"hypothesis tag {tag!r} has no meaning in proofs/hypotheses.toml "
            f"(used by {', '.join(where)}); add a line: {tag} = \"<one sentence>\""
            for tag, where in sorted(hypothesis_tags(registry).items())
            if not str(glossary.get(tag, "")).strip()]


def parse_pinned(text: str) -> dict[str, str]:
    """name -> the text the report shows: the pinned statement and the definitions it uses.

    The file is read by oracle.formal.pinned.parse (the format's one parser); blocks without a
    name or without a statement are left out."""
    out: dict[str, str] = {}
    for name, blk in pinned_files.parse(text).items():
        if not name or not blk.statement.strip():
            continue
        out[name] = "\n".join([blk.statement] + [f"--- uses {u}\n{body}" for u, body in blk.uses.items()])
    return out


@dataclass
class Pinned:
    """One pinned declaration as the report shows it: the statement, and the names of the
    definitions it uses (their bodies are shown once, in the report's definitions section)."""

    statement: str
    uses: dict[str, str]


def parse_pinned_parts(text: str) -> dict[str, Pinned]:
    """name -> its statement and the definitions it uses, kept apart (see parse_pinned)."""
    return {name: Pinned(blk.statement, dict(blk.uses)) for name, blk in pinned_files.parse(text).items()
            if name and blk.statement.strip()}


def load_pinned_parts(path: Optional[Path] = None) -> Optional[dict[str, Pinned]]:
    """The pinned statements of a file (default: the Coq one) with their definitions apart, or None
    when the file does not exist or cannot be read."""
    try:
        return parse_pinned_parts(Path(path or PINNED).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


def load_pinned(path: Optional[Path] = None) -> Optional[dict[str, str]]:
    """The pinned Coq statements (or Lean ones, given LEAN_PINNED), or None when the file
    does not exist or cannot be read."""
    try:
        return parse_pinned(Path(path or PINNED).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


def coq_source(name: str, root: Path = ROOT) -> Optional[str]:
    """The statement of a Coq declaration as written in its source file (up to 'Proof.'),
    for declarations that are not pinned."""
    parts = name.split(".")
    if len(parts) < 3:
        return None
    path = root / "proofs" / "coq" / f"{parts[1]}.v"
    if not path.exists():
        return None
    sf = coqsource.read_file(path, ".".join(parts[:2]))
    if name not in sf.spans:
        return None
    first, last = sf.spans[name]
    lines = coqsource.strip_comments_and_strings(path.read_text()).splitlines()[first - 1:last]
    text = "\n".join(lines)
    return text.split("Proof.")[0].rstrip() if "Proof." in text else text.rstrip()


def lean_source(name: str, root: Path = ROOT) -> Optional[str]:
    """The normalised signature of a Lean declaration, for declarations that are not pinned."""
    decl = leancheck.read_sources(root / "lean", set()).decls.get(name)
    return leancheck.pretty_signature(decl.signature) if decl else None


def scope_label(c: dict[str, Any]) -> tuple[str, str]:
    """A short label of what the Coq proofs cover ('full', 'sufficiency', ...) and the longer note."""
    if c["coq"]["status"] == "absent":
        return "", ""
    reg = c.get("registry", {})
    raw = c["coq"].get("scope_label") or reg.get("formal_scope") or c["coq"].get("scope")
    note = reg.get("formal_scope_note", "") or c["coq"].get("scope_note", "")
    if not raw or raw == "the whole claim":
        return "full", note
    raw = str(raw)
    if len(raw) <= 24 and "\n" not in raw:
        return raw, note
    # An older registry keeps a sentence here: a sentence is not a label.
    return "partial", raw + (f" {note}" if note else "")


def _rel(target: Path, base: Optional[Path]) -> str:
    """A link from the report's folder to a project file (works wherever the report is written)."""
    if base is None:
        return target.as_uri()
    return Path(os.path.relpath(target, base)).as_posix()


def coq_file(name: str, root: Path = ROOT) -> Optional[Path]:
    """proofs/coq/<File>.v of SkipAbsorption.<File>.<decl>, when it exists."""
    parts = name.split(".")
    p = root / "proofs" / "coq" / f"{parts[1]}.v" if len(parts) >= 3 else None
    return p if p is not None and p.exists() else None


def lean_file(name: str, root: Path = ROOT) -> Optional[Path]:
    """The Lean file that declares the last component of a name."""
    decl = name.rsplit(".", 1)[-1]
    pat = re.compile(rf"(?m)^\s*(?:@\[[^\]]*\]\s*)?(?:private\s+)?(?:theorem|lemma|def|noncomputable def|abbrev"
                     rf"|structure|inductive|class)\s+{re.escape(decl)}\b")
    for p, text in _lean_texts(root):
        if pat.search(text):
            return p
    return None


@functools.lru_cache(maxsize=4)
def _lean_texts(root: Path) -> tuple[tuple[Path, str], ...]:
    """Every Lean source file of the checkout with its text (read once per report)."""
    return tuple((p, p.read_text(encoding="utf-8", errors="replace"))
                 for p in sorted((root / "lean").rglob("*.lean")) if ".lake" not in p.parts)


def oracle_file(ref: str, root: Path = ROOT) -> Optional[Path]:
    """The source file of 'package.module:function'."""
    mod = ref.partition(":")[0]
    for p in (root / (mod.replace(".", "/") + ".py"), root / mod.replace(".", "/") / "__init__.py"):
        if p.exists():
            return p
    return None


def formal_role(tag: str, c: dict[str, Any], scope: str) -> str:
    """How a hypothesis appears in the formal statements."""
    reg = c.get("registry", {})
    if tag in consistency.STRUCTURAL_TAGS:
        return "built into the formal definitions (no binder needed)"
    base_tags = reg.get("formal_hypotheses", reg.get("hypotheses", []))
    parts = []
    if c["coq"].get("names") and tag in reg.get("coq_hypotheses", base_tags):
        parts.append("named binder of the Coq statement")
    if c["lean"].get("names") and tag in reg.get("lean_hypotheses", base_tags):
        parts.append("of the Lean statement")
    not_needed = reg.get("formal_not_needed") or {}
    if isinstance(not_needed, dict) and tag in not_needed:
        parts.append(f"not needed by the formal statement: {not_needed[tag]}")
    if parts:
        return "; ".join(parts).replace("Coq statement; of the Lean", "Coq and the Lean")
    if not c["coq"].get("names") and not c["lean"].get("names"):
        return "no formal statement"
    why = [reg[f] for f in ("formal_hypotheses_reason", "coq_hypotheses_reason", "lean_hypotheses_reason")
           if isinstance(reg.get(f), str) and re.search(rf"(?<![\w]){re.escape(tag)}(?![\w])", reg[f])]
    return "not a binder of the formal statement" + (f": {why[0]}" if why else "") + \
        (f" (its scope: {scope})" if scope and scope != "full" else "")


# ============================================================ counterexamples: weights and violation

def _block_pairs(data: dict[str, Any]) -> list[tuple[str, dict[str, Any], dict[str, Any], Any]]:
    """(label, residual spec, residual-free spec, skip) pairs whose equality the counterexample shows."""
    if isinstance(data.get("residual"), dict) and isinstance(data.get("plain"), dict):
        return [("", data["residual"], data["plain"], None)]
    if "M" in data:  # one set of weights used with the skip M and without it, per activation
        return [(k, v, v, data["M"]) for k, v in data.items() if isinstance(v, dict) and "activation" in v]
    return []


def counterexample_violation(data: Optional[dict[str, Any]]) -> dict[str, Any]:
    """Evaluate F(x) - B'(x) at the stored points: exactly where possible, else arb enclosures."""
    if not data or not data.get("points"):
        return {"computed": False, "text": "no stored points to evaluate"}
    pairs = _block_pairs(data)
    if not pairs:
        return {"computed": False, "text": "no residual/residual-free pair in the data"}
    pts = [[Fraction(v) for v in p] for p in data["points"]]
    results = []
    try:
        for label, res, plain, M in pairs:
            exact = all(activations.get(s["activation"]).exact is not None for s in (res, plain)) \
                and not isinstance(plain.get("W_down"), str)
            F = boundary.block_fn(res, exact, M)
            P = boundary.block_fn(plain, exact)
            if exact:
                worst = max(abs(Fraction(a) - Fraction(b)) for p in pts for a, b in zip(F(p), P(p)))
                results.append({"label": label, "exact": True, "max_abs": str(worst), "zero": worst == 0})
            else:
                worst = max(ball_abs_upper(a - b) for p in pts for a, b in zip(F(p), P(p)))
                results.append({"label": label, "exact": False, "max_abs": f"{float(worst):.3g}",
                                "zero": False})
    except Exception as e:  # the report shows what it could not compute instead of failing
        return {"computed": False, "text": f"not computed ({type(e).__name__}: {e})"}
    texts = []
    for r in results:
        who = f"{r['label']}: " if r["label"] else ""
        if r["exact"]:
            texts.append(f"{who}max |F(x) − B'(x)| = {r['max_abs']} (exact rationals)"
                         + ("" if r["zero"] else " — NOT zero"))
        else:
            texts.append(f"{who}max |F(x) − B'(x)| ≤ {r['max_abs']} (arb ball enclosures; the identity "
                         "itself is proved by hand)")
    return {"computed": True, "points": len(pts), "pairs": results,
            "text": f"over the {len(pts)} stored points: " + "; ".join(texts)}


def _fmt_matrix(v: Any) -> str:
    if isinstance(v, list) and v and isinstance(v[0], list):
        return "[" + ", ".join("[" + ", ".join(str(x) for x in row) + "]" for row in v) + "]"
    if isinstance(v, list):
        return "[" + ", ".join(str(x) for x in v) + "]"
    return str(v)


def block_lines(spec: dict[str, Any]) -> list[str]:
    """One line per array of a block spec: 'W_up = [[1, 0], [0, 1]]'."""
    order = ["W_gate", "b_gate", "W_up", "b_up", "W_down", "b_down", "M"]
    return [f"{k} = {_fmt_matrix(spec[k])}" for k in order if k in spec]


def _extra_facts(data: dict[str, Any]) -> list[str]:
    """The remaining short facts of a counterexample's data (index sets, ranks, ...)."""
    out = []
    for k, v in data.items():
        if k in ("points", "kind", "residual", "plain", "M") or (isinstance(v, dict) and "activation" in v):
            continue
        text = json.dumps(v, default=str)
        if len(text) <= 240:
            out.append(f"{k} = {text}")
    return out


# ============================================================ the report's content

@dataclass
class ReportContext:
    """What the Markdown and HTML renderers share: figures, glossary, pinned statements, links."""

    doc: dict[str, Any]
    base: Optional[Path]
    general: list[Any]
    per_claim: dict[str, Any]
    notes: list[str]
    glossary: dict[str, str]
    pinned: Optional[dict[str, Pinned]]
    lean_pinned: Optional[dict[str, Pinned]] = None
    scans: list[dict[str, Any]] = field(default_factory=list)

    def link(self, path: Optional[Path]) -> Optional[tuple[str, str]]:
        """(href, text) of a project file, or None."""
        if path is None:
            return None
        try:
            text = path.relative_to(ROOT).as_posix()
        except ValueError:
            text = str(path)
        return _rel(path, self.base), text


def build_context(doc: dict[str, Any], report_path: Optional[str] = None,
                  scans: Optional[list[dict[str, Any]]] = None) -> ReportContext:
    """Compute the figures and gather what the report shows besides the audit document
    (``scans``: the user's scan documents, as check_scan returns them)."""
    general = [figures.ray_figure(), figures.c2_figure(), figures.relaxation_figure(),
               figures.time_figure(doc)]
    notes = []
    depth, note = figures.depth_fit_figure()
    if depth is not None:
        general.append(depth)
    if note:
        notes.append(note)
    sweep, note = figures.analytic_sweep_figure()
    if sweep is not None:
        general.append(sweep)
    if note:
        notes.append(note)
    per_claim = {c["id"]: figures.instance_figure(c) for c in doc["claims"]}
    base = Path(report_path).resolve().parent if report_path else None
    return ReportContext(doc, base, general, per_claim, notes, load_glossary(), load_pinned_parts(PINNED),
                         load_pinned_parts(LEAN_PINNED), list(scans or []))


def precision_summary(doc: dict[str, Any]) -> str:
    """The arithmetic the oracle checks used, in one line (each claim's own is in the table)."""
    seen = [c["oracle"].get("precision") or "" for c in doc["claims"]]
    bits = sorted({int(b) for p in seen for b in re.findall(r"(\d+) bits", p)})
    kinds = []
    if any("exact" in p for p in seen):
        kinds.append("exact rationals and integers")
    if bits:
        kinds.append("arb ball enclosures at " + ", ".join(map(str, bits)) + " bits")
    if any("float" in p for p in seen):
        kinds.append("float64 (labelled as evidence)")
    return (" and ".join(kinds) or "-") + "; each claim's precision is in its row of the table"


def header_rows(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, value) rows of the report's header."""
    r = doc.get("run") or {}
    commit = r.get("commit", "unknown") + (" (with uncommitted changes)" if r.get("uncommitted_changes") else "")
    libs = ", ".join(f"{k} {v}" for k, v in (r.get("libraries") or {}).items())
    n = doc["instances_per_claim"]
    return [
        ("Verdict", f"{'PASSED' if doc['ok'] else 'FAILED'} in {doc['seconds']} s"
                    + (f" ({len(doc['problems'])} problems)" if doc["problems"] else "")),
        ("Project", f"skip-absorption {r.get('version', 'unknown')}"),
        ("Commit", commit),
        ("Date (UTC)", r.get("date", "unknown")),
        ("Machine", r.get("machine", "unknown")),
        ("Python and libraries", f"Python {r.get('python', '?')}; {libs}"),
        ("Coq", f"{r.get('coq_version', 'unknown')}: {doc['coq']['status']} ({doc['coq']['detail']})"),
        ("Lean", "written, not compiled in this environment (no Lean toolchain here); names, binders "
                 "and sorry-freedom are checked"),
        ("Oracle precision", precision_summary(doc)),
        ("Instances per claim", f"{n} hypothesis-generated instances per claim"
                                f"{' (--quick)' if doc['quick'] else ''}, each certificate re-checked "
                                "from its JSON alone"),
    ]


def table_rows(doc: dict[str, Any]) -> list[dict[str, str]]:
    """One row per claim with each face's real status."""
    out = []
    for c in doc["claims"]:
        label, _ = scope_label(c)
        coq = c["coq"]
        if coq["status"] == "checked":
            coq_cell = f"checked: {label}"
        elif coq["status"] == "absent":
            coq_cell = "absent"
        else:
            coq_cell = _coq_cell(coq)
        axioms = sorted({a.rsplit(".", 1)[-1] for a in coq.get("axioms") or []})
        lean = {"written": "written, not compiled here", "absent": "absent"}.get(
            c["lean"]["status"], c["lean"]["status"])
        o = c["oracle"]
        if "instances" in o:
            oracle = (f"{o['status']} {o['instances']}/{o['instances']}, {o['exact_instances']} exact; "
                      f"{o['precision']}")
        else:
            oracle = f"{o['status']}: {o.get('detail', '')}"
        out.append({"claim": c["id"], "paper": c["paper_ref"], "informal": c["informal_status"],
                    "Coq": coq_cell,
                    "Print Assumptions": ", ".join(axioms) if axioms else
                    ("closed" if coq["status"] == "checked" else "-"),
                    "Lean": lean, "oracle": oracle,
                    "instance sizes": figures.size_summary(o.get("sizes") or []) or "-",
                    "sampled ranges": (o.get("coverage") or {}).get("summary", "-"),
                    "counterexamples": _boundary_cell(c["boundary"])})
    return out


TABLE_HEAD = ["claim", "paper", "informal", "Coq", "Print Assumptions", "Lean", "oracle",
              "instance sizes", "sampled ranges", "counterexamples"]


def coverage_lines(o: dict[str, Any]) -> list[str]:
    """The declared sample ranges of one claim against what its instances drew, in words."""
    cov = o.get("coverage")
    if not cov or not cov.get("declared"):
        return ["sampled ranges: none declared"]
    dr = cov["drawn"]
    fmt = lambda counts: ", ".join(f"{k}: {v}" for k, v in sorted(counts.items(), key=lambda kv: str(kv[0])))  # noqa: E731
    flags = ", ".join(f"{k} {dr.get(k, 0)}" for k in ("degenerate", "biased", "planted", "near_miss"))
    out = [f"declared: {cov['summary']}",
           f"drawn ({o.get('instances', 0)} instances"
           + (f" + {o['top_up']} drawn to reach the declared ranges" if o.get("top_up") else "")
           + f", seed {o.get('seed', 0)}): d {{{fmt(dr.get('d', {}))}}}; m vs d {{{fmt(dr.get('m', {}))}}}; "
             f"M {{{fmt(dr.get('M', {}))}}}; {flags}"]
    out += [f"excluded ({axis}): {why}" for axis, why in (cov.get("reasons") or {}).items()]
    out += [f"PROBLEM: {p}" for p in cov.get("problems") or []]
    att = ((o.get("sample") or {}).get("data") or {}).get("break_attempt")
    if att:
        out.append(f"tried to break it (first instance): {att['method']}; best relative residual "
                   f"{att['best_relative_residual']:.3g} (float64), near hit: {'yes' if att['near_hit'] else 'no'}, "
                   f"best fit refuted exactly: {'yes' if att['best_refuted_exactly'] else 'NO'}")
    return out


def _declaration(name: str, pinned: Optional[dict[str, Pinned]], file_of: Any, source_of: Any,
                 ctx: ReportContext) -> dict[str, Any]:
    """A registered declaration as a section shows it: the pinned statement and the names of the
    definitions it uses (shown once, in the definitions section), else its source text."""
    entry = (pinned or {}).get(name)
    return {"name": name, "file": ctx.link(file_of(name)), "printed": entry.statement if entry else None,
            "uses": list(entry.uses) if entry else [], "source": None if entry else source_of(name)}


def definitions(facts: list[tuple[dict[str, Any], dict[str, Any]]], pinned: Optional[dict[str, Pinned]],
                system: str, ctx: ReportContext) -> list[dict[str, Any]]:
    """Every definition the shown statements of one system ('coq' or 'lean') use, once, in order of
    first use: its name, printed body, file and the claims whose statements use it."""
    keys = ("coq", "coq_instances", "coq_counterexamples") if system == "coq" else ("lean",)
    out: dict[str, dict[str, Any]] = {}
    for c, f in facts:
        for key in keys:
            for decl in f[key]:
                entry = (pinned or {}).get(decl["name"])
                for name in decl["uses"]:
                    d = out.setdefault(name, {"name": name, "anchor": def_anchor(system, name),
                                              "body": entry.uses[name] if entry else "",
                                              "file": ctx.link(coq_file(name) if system == "coq" else lean_file(name)),
                                              "used_by": []})
                    if c["id"] not in d["used_by"]:
                        d["used_by"].append(c["id"])
    return list(out.values())


def def_anchor(system: str, name: str) -> str:
    """The id of a definition in the report (letters, digits, '.', '_' and '-' only)."""
    return f"def-{system}-" + re.sub(r"[^A-Za-z0-9._-]", "_", name)


def short_name(name: str) -> str:
    """A Coq name as the printed statements write it (without the library prefix)."""
    return name.removeprefix("SkipAbsorption.")


def registry_notes(doc: dict[str, Any]) -> tuple[dict[str, list[str]], list[str]]:
    """The registry's reasons for weakened or absent checks: per claim id, and those of no claim."""
    ids = {c["id"] for c in doc["claims"]}
    per: dict[str, list[str]] = {}
    other = []
    for note in doc.get("notes") or []:
        head, _, rest = note.partition(": ")
        if head in ids:
            per.setdefault(head, []).append(rest)
        else:
            other.append(note)
    return per, other


# ============================================================ the user's scans

def check_scan(doc: Any, path: str) -> dict[str, Any]:
    """A document of `absorb scan --json` that the report can show, or InputError naming what is
    missing; returns {"path", "doc"}."""
    if not isinstance(doc, dict) or not isinstance(doc.get("blocks"), list):
        raise InputError(f"--scan {path}: not a document of absorb scan --json (no 'blocks' list)")
    for key in ("checkpoint", "format"):
        if not isinstance(doc.get(key), str):
            raise InputError(f"--scan {path}: not a document of absorb scan --json (no '{key}')")
    for i, b in enumerate(doc["blocks"]):
        if not isinstance(b, dict) or not isinstance(b.get("verdict"), str):
            raise InputError(f"--scan {path}: block {i} has no verdict")
    return {"path": str(path), "doc": doc}


SCAN_HEAD = ["block", "family", "d", "m", "activation", "biases", "verdict", "claim", "reason"]


def scan_rows(doc: dict[str, Any]) -> list[dict[str, str]]:
    """One row of text cells per block of a scan document, as the document states it."""
    out = []
    for b in doc["blocks"]:
        verdict = b.get("verdict", "?") + ("" if b.get("verdict") == "error" else
                                            " (exact)" if b.get("exact") else " (not exact)")
        out.append({"block": str(b.get("block") or "<root>"), "family": str(b.get("family", "-")),
                    "d": "-" if b.get("d") is None else str(b["d"]),
                    "m": "-" if b.get("m") is None else str(b["m"]),
                    "activation": str(b.get("activation", "-"))
                    + (f" ({b['activation_source']})" if b.get("activation_source") else ""),
                    "biases": ", ".join(b.get("biases_nonzero") or []) or "none",
                    "verdict": verdict, "claim": str(b.get("claim") or "-"), "reason": str(b.get("reason", ""))})
    return out


def scan_summary(entry: dict[str, Any]) -> str:
    """One sentence on a scan document: checkpoint, format, counts of blocks and verdicts."""
    doc = entry["doc"]
    counts: dict[str, int] = {}
    for b in doc["blocks"]:
        counts[b["verdict"]] = counts.get(b["verdict"], 0) + 1
    verdicts = ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) or "no verdicts"
    return (f"{doc['checkpoint']} ({doc['format']}, {doc.get('tensors', '?')} tensors): "
            f"{len(doc['blocks'])} MLP blocks; {verdicts}. Shown as the document {entry['path']} states "
            "it: the audit does not decide these blocks again (absorb scan does, on the checkpoint).")


# ============================================================ table of contents

def toc(doc: dict[str, Any], ctx: ReportContext, coq_defs: list[Any], lean_defs: list[Any]) -> list[tuple[int, str, str]]:
    """(level, anchor, title) of every part of the report, in order."""
    out = []
    if doc["problems"]:
        out.append((1, "problems", f"Problems ({len(doc['problems'])})"))
    out += [(1, "claims", "Claims table"), (1, "figures", "Figures"),
            (1, "counterexamples", "Boundary counterexamples")]
    if ctx.scans:
        out.append((1, "scans", "Your scans"))
        out += [(2, f"scan-{i}", ent["doc"]["checkpoint"]) for i, ent in enumerate(ctx.scans, 1)]
    out.append((1, "claim-sections", "Claims, one section each"))
    out += [(2, f"claim-{c['id']}", f"{c['id']}: {c['title']} ({c['paper_ref']})") for c in doc["claims"]]
    if coq_defs:
        out.append((1, "coq-definitions", f"Coq definitions ({len(coq_defs)}, each printed once)"))
    if lean_defs:
        out.append((1, "lean-definitions", f"Lean definitions ({len(lean_defs)}, each printed once)"))
    return out


def claim_facts(c: dict[str, Any], ctx: ReportContext) -> dict[str, Any]:
    """Everything one claim's section shows, as plain data."""
    reg = c.get("registry", {})
    label, note = scope_label(c)
    hyps = [{"tag": t, "meaning": ctx.glossary.get(t, "(no meaning recorded in proofs/hypotheses.toml)"),
             "formal": formal_role(t, c, label)} for t in c.get("hypotheses", [])]
    coq = [_declaration(name, ctx.pinned, coq_file, coq_source, ctx) for name in c["coq"].get("names", [])]
    lean = [_declaration(n, ctx.lean_pinned, lean_file, lean_source, ctx) for n in c["lean"].get("names", [])]
    instances = [_declaration(inst, ctx.pinned, coq_file, coq_source, ctx)
                 for inst in consistency.registry_names(reg.get("coq_instance"))]
    counter_lemmas = [{"tag": tag, **_declaration(lemma, ctx.pinned, coq_file, coq_source, ctx)}
                      for tag, lemma in (reg.get("coq_counterexamples") or {}).items()]
    axioms = sorted({a.rsplit(".", 1)[-1] for a in c["coq"].get("axioms") or []})
    informal = ROOT / "proofs" / c["informal"] if c.get("informal") else None
    cexs = []
    for cx in c["boundary"]:
        data = cx.get("data") or {}
        blocks = [(k, v) for k, v in data.items() if isinstance(v, dict) and "activation" in v]
        cexs.append({**cx, "dropped_meaning": ctx.glossary.get(cx["dropped"], "(no meaning recorded)"),
                     "blocks": [(k, v["activation"], block_lines(v)) for k, v in blocks],
                     "skip": _fmt_matrix(data["M"]) if "M" in data else None,
                     "facts": _extra_facts(data), "violation": counterexample_violation(data)})
    return {"scope": label, "scope_note": note, "hypotheses": hyps, "coq": coq, "lean": lean,
            "lean_scope": c["lean"].get("scope", ""), "lean_scope_note": c["lean"].get("scope_note", ""),
            "coq_instances": instances, "coq_counterexamples": counter_lemmas, "axioms": axioms,
            "axioms_attributed": bool(c["coq"].get("axioms_attributed")),
            "informal": ctx.link(informal if informal and informal.exists() else None),
            "oracle_file": ctx.link(oracle_file(c["oracle"]["ref"])) if c["oracle"].get("ref") else None,
            "counterexamples": cexs}


# ============================================================ Markdown

def _md_link(link: Optional[tuple[str, str]], missing: str = "missing") -> str:
    return f"[`{link[1]}`]({link[0]})" if link else missing


def _md_figure(fig: Any, n: int) -> list[str]:
    return [f"![{fig.title}]({fig.data_uri()})", "", f"*Figure {n}. {fig.title}.* {fig.caption}", ""]


def _md_cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def markdown(doc: dict[str, Any], ctx: Optional[ReportContext] = None) -> str:
    """A self-contained Markdown report (figures as SVG data URIs)."""
    ctx = ctx or build_context(doc)
    facts = [(c, claim_facts(c, ctx)) for c in doc["claims"]]
    coq_defs = definitions(facts, ctx.pinned, "coq", ctx)
    lean_defs = definitions(facts, ctx.lean_pinned, "lean", ctx)
    notes, other_notes = registry_notes(doc)
    anchor = lambda a: f'<a id="{a}"></a>'  # noqa: E731
    out = ["# Skip-absorption audit", "",
           f"The claims of [{PAPER[0]}]({PAPER[1]}) and of this project's extensions, each with its informal "
           "proof, formal proofs, oracle check and boundary counterexamples.", ""]
    out += ["| | |", "|---|---|"] + [f"| {k} | {_md_cell(v)} |" for k, v in header_rows(doc)] + [""]
    out += ["## Contents", ""]
    out += [("  " if level == 2 else "") + f"- [{_md_cell(title)}](#{a})" for level, a, title in toc(doc, ctx, coq_defs, lean_defs)]
    out.append("")
    if doc["problems"]:
        out += [anchor("problems"), "## Problems", ""] + [f"- {p}" for p in doc["problems"]] + [""]
    out += [anchor("claims"), "## Claims", "",
            "| " + " | ".join(TABLE_HEAD) + " |", "|" + "---|" * len(TABLE_HEAD)]
    out += ["| " + " | ".join(f"[{r['claim']}](#claim-{r['claim']})" if h == "claim" else _md_cell(r[h])
                              for h in TABLE_HEAD) + " |" for r in table_rows(doc)]
    out += ["", "Coq `checked: full` means the registered Coq statement is the whole claim; any other "
            "label names the part that is formal (the claim's section says which). Lean: written, not "
            "compiled in this environment.", ""]
    if other_notes:
        out += ["Reasons given in proofs/claims.toml:", ""] + [f"- {_md_cell(n)}" for n in other_notes] + [""]
    n = 0
    out += [anchor("figures"), "## Figures", ""]
    for fig in ctx.general:
        n += 1
        out += _md_figure(fig, n)
    out += [f"*{note}*" for note in ctx.notes] + ([""] if ctx.notes else [])
    out += [anchor("counterexamples"), "## Boundary counterexamples", "",
            "| counterexample | drops | claims | verified | method |", "|---|---|---|---|---|"]
    for cx in doc["counterexamples"]:
        out.append(f"| `{cx['name']}` | `{cx['dropped']}` | {', '.join(cx['claims'])} | "
                   f"{'yes' if cx['verified'] else 'NO'}{' (exact)' if cx['exact'] else ''} | "
                   f"{_md_cell(cx['method'])} |")
    out.append("")
    if ctx.scans:
        out += [anchor("scans"), "## Your scans", ""]
        for i, ent in enumerate(ctx.scans, 1):
            out += [anchor(f"scan-{i}"), f"### Scan of {ent['doc']['checkpoint']}", "", _md_cell(scan_summary(ent)), "",
                    "| " + " | ".join(SCAN_HEAD) + " |", "|" + "---|" * len(SCAN_HEAD)]
            out += ["| " + " | ".join(_md_cell(r[h]) for h in SCAN_HEAD) + " |" for r in scan_rows(ent["doc"])]
            out.append("")
    out += [anchor("claim-sections"), "## Claims, one section each", ""]

    def uses_line(decl: dict[str, Any], system: str) -> list[str]:
        if not decl["uses"]:
            return []
        return ["  Uses (printed once under the definitions): " + ", ".join(
            f"[`{short_name(u)}`](#{def_anchor(system, u)})" for u in decl["uses"]), ""]

    def statement(decl: dict[str, Any], head: str, lang: str, system: str) -> list[str]:
        lines = [head, ""]
        if decl["printed"]:
            lines += ["  ```" + lang] + ["  " + ln for ln in decl["printed"].splitlines()] + ["  ```", ""]
            lines += uses_line(decl, system)
        else:
            lines += ["  Printed statement: not pinned. Source text:", "", "  ```" + lang]
            lines += ["  " + ln for ln in (decl["source"] or "(not found)").splitlines()] + ["  ```", ""]
        return lines

    for c, f in facts:
        out += [anchor(f"claim-{c['id']}"), f"### {c['id']}: {c['title']} ({c['paper_ref']})", "",
                f"**Statement.** {c['statement']}", "",
                f"Informal proof: {_md_link(f['informal'])}. Oracle: `{c['oracle'].get('ref', '-')}` in "
                f"{_md_link(f['oracle_file'])}.", "", "**Hypotheses.**", "",
                "| tag | meaning | in the formal statement |", "|---|---|---|"]
        out += [f"| `{h['tag']}` | {_md_cell(h['meaning'])} | {_md_cell(h['formal'])} |" for h in f["hypotheses"]]
        out.append("")
        coq = c["coq"]
        if coq["status"] == "absent":
            out += [f"**Coq:** absent. {coq['detail']}", ""]
        else:
            out += [f"**Coq:** {coq['status']}, scope **{f['scope']}**."
                    + (f" {f['scope_note']}" if f["scope_note"] else "")
                    + (f" {coq['detail']}" if coq["status"] != "checked" else ""), ""]
            if coq["status"] == "checked":
                out += [f"Print Assumptions{'' if f['axioms_attributed'] else ' (all registered declarations together)'}: "
                        + (", ".join(f["axioms"]) or "closed under the global context") + ".", ""]
            for d in f["coq"]:
                out += statement(d, f"- `{d['name']}` in {_md_link(d['file'])}. As Coq prints it "
                                    "(proofs/pinned/coq-statements.txt):", "coq", "coq")
            for ci in f["coq_instances"]:
                out += statement(ci, f"- Instance lemma `{ci['name']}` in {_md_link(ci['file'])}:", "coq", "coq")
            for ce in f["coq_counterexamples"]:
                out += statement(ce, f"- Without `{ce['tag']}`: `{ce['name']}` in {_md_link(ce['file'])}:",
                                 "coq", "coq")
        lean = c["lean"]
        if lean["status"] == "absent":
            out += [f"**Lean:** absent. {lean['detail']}", ""]
        else:
            out += [f"**Lean:** {lean['status']}, scope **{f['lean_scope']}**: {lean['detail']}.", ""]
            for d in f["lean"]:
                out += statement(d, f"- `{d['name']}` in {_md_link(d['file'])}", "lean", "lean")
        o = c["oracle"]
        if "instances" in o:
            out += [f"**Oracle:** {o['status']}, {o['instances']} instances ({o['exact_instances']} exact), "
                    f"precision {o['precision']}, {o['seconds']:.2f} s"
                    + (f"; failure: {o['failure']}" if o.get("failure") else "") + ".", ""]
        else:
            out += [f"**Oracle:** {o['status']}: {o.get('detail', '')}", ""]
        out += ["**Sampled ranges:**", ""] + [f"- {_md_cell(x)}" for x in coverage_lines(o)] + [""]
        if notes.get(c["id"]):
            out += ["**Reasons given in proofs/claims.toml** for checks that are weakened or absent:", ""]
            out += [f"- {_md_cell(x)}" for x in notes[c["id"]]] + [""]
        fig = ctx.per_claim.get(c["id"])
        if fig is not None:
            n += 1
            out += _md_figure(fig, n)
        if f["counterexamples"]:
            out += ["**Boundary counterexamples.**", ""]
        for cx in f["counterexamples"]:
            out += [f"- `{cx['name']}` drops `{cx['dropped']}` ({cx['dropped_meaning']}): "
                    f"{'verified' if cx['verified'] else 'NOT verified'}, {cx['method']}. {cx['description']}."]
            for key, act, lines in cx["blocks"]:
                out.append(f"  - {key} ({act}): " + "; ".join(f"`{ln}`" for ln in lines))
            if cx["skip"] and not any(k == "residual" for k, _, _ in cx["blocks"]):
                out.append(f"  - skip M = `{cx['skip']}`")
            out += [f"  - {fact}" for fact in cx["facts"]]
            out.append(f"  - computed violation: the residual block equals the residual-free block "
                       f"{cx['violation']['text']}")
        out.append("")
    for system, defs, lang, title in (("coq", coq_defs, "coq", "Coq definitions"),
                                      ("lean", lean_defs, "lean", "Lean definitions")):
        if not defs:
            continue
        out += [anchor(f"{system}-definitions"), f"## {title}", "",
                "Every definition that a pinned statement above uses, printed once "
                f"(proofs/pinned/{system}-statements.txt prints it under each statement).", ""]
        for d in defs:
            out += [anchor(d["anchor"]), f"- `{short_name(d['name'])}` in {_md_link(d['file'])}; used by "
                    + ", ".join(f"[{cid}](#claim-{cid})" for cid in d["used_by"]), "", "  ```" + lang]
            out += ["  " + ln for ln in d["body"].splitlines()] + ["  ```", ""]
    return "\n".join(out) + "\n"


# ============================================================ HTML

CSS = """
body{font-family:sans-serif;max-width:78em;margin:1em auto;padding:0 1em;color:#222;line-height:1.4}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .45em;
vertical-align:top;font-size:.92em}th{background:#f0f0f0;text-align:left}
.hdr td:first-child{font-weight:bold;white-space:nowrap}
.ok{background:#dff3df}.bad{background:#f8d0d0}.part{background:#fff4cc}.abs{background:#eee}
figure{margin:1em 0;border:1px solid #ddd;padding:.5em}figure img{max-width:100%;height:auto;display:block}
figcaption{font-size:.9em;color:#333;margin-top:.4em}pre{background:#f6f6f6;padding:.5em;overflow-x:auto;
font-size:.85em;white-space:pre-wrap}code{font-size:.92em}section{border-top:2px solid #ccc;margin-top:1.5em}
.statement{font-size:1.05em;background:#f7f9ff;padding:.5em;border-left:3px solid #79c}
nav#toc{background:#fafafa;border:1px solid #ddd;padding:.3em 1em;margin:1em 0}nav#toc ol{margin:.2em 0}
nav#toc ol ol{columns:2;font-size:.92em}.uses{font-size:.9em;color:#333}.def{margin:.6em 0}
.paper{font-size:1.05em}
"""


def _cls(text: str) -> str:
    t = text.split(":")[0].split()[0] if text.strip() else ""
    if text.startswith("checked: full") or t in ("pass", "ok"):
        return "ok"
    if text.startswith("checked") or text.startswith("written"):
        return "part"
    if t in ("FAILED", "missing", "BAD") or "NOT" in text:
        return "bad"
    if t in ("absent", "-", "skipped"):
        return "abs"
    if re.match(r"^(\d+)/\1 verified", text):
        return "ok"
    return ""


def _a(link: Optional[tuple[str, str]], missing: str = "missing") -> str:
    esc = html.escape
    return f"<a href='{esc(link[0])}'><code>{esc(link[1])}</code></a>" if link else esc(missing)


def _prover_head(prover: str, entry: dict[str, Any], scope: str, note: str, tail: str) -> str:
    """The heading of a claim's Coq or Lean part: absent with the reason, or its status and scope,
    the scope note and ``tail``."""
    esc = html.escape
    if entry["status"] == "absent":
        return f"<h3>{prover}: absent</h3><p>{esc(entry['detail'])}</p>"
    return (f"<h3>{prover}: {esc(entry['status'])}, scope <i>{esc(scope)}</i></h3>"
            + (f"<p>{esc(note)}</p>" if note else "") + tail)


def _html_figure(fig: Any, n: int) -> str:
    esc = html.escape
    return (f"<figure id='fig-{esc(fig.key)}'><img src='{fig.data_uri()}' alt='{esc(fig.title)}'>"
            f"<figcaption><b>Figure {n}. {esc(fig.title)}.</b> {esc(fig.caption)}</figcaption></figure>")


def _html_toc(items: list[tuple[int, str, str]]) -> str:
    esc = html.escape
    out, inner = ["<nav id='toc'><h2>Contents</h2><ol>"], False
    for level, anchor, title in items:
        if level == 2 and not inner:
            out.append("<ol>")
            inner = True
        elif level == 1 and inner:
            out.append("</ol></li>")
            inner = False
        elif level == 1 and len(out) > 1:
            out.append("</li>")
        out.append(f"<li><a href='#{esc(anchor)}'>{esc(title)}</a>" + ("</li>" if level == 2 else ""))
    out.append("</ol></li>" if inner else "</li>")
    out.append("</ol></nav>")
    return "".join(out)


def _html_statement(decl: dict[str, Any], head: str, system: str) -> str:
    """A declaration's statement (printed, or its source when not pinned) with links to its definitions."""
    esc = html.escape
    if not decl["printed"]:
        return (f"<p>{head}</p><p>Printed statement: <b>not pinned</b>. Source text:</p>"
                f"<pre>{esc(decl['source'] or '(not found)')}</pre>")
    uses = ""
    if decl["uses"]:
        uses = ("<p class='uses'>Uses (printed once, under the definitions): " + ", ".join(
            f"<a href='#{esc(def_anchor(system, u))}'><code>{esc(short_name(u))}</code></a>"
            for u in decl["uses"]) + ".</p>")
    return f"<p>{head}</p><pre>{esc(decl['printed'])}</pre>{uses}"


def html_report(doc: dict[str, Any], ctx: Optional[ReportContext] = None) -> str:
    """A self-contained HTML page: header, contents, claims table, figures, one section per claim,
    the definitions the statements use (each once)."""
    ctx = ctx or build_context(doc)
    esc = html.escape
    facts = [(c, claim_facts(c, ctx)) for c in doc["claims"]]
    coq_defs = definitions(facts, ctx.pinned, "coq", ctx)
    lean_defs = definitions(facts, ctx.lean_pinned, "lean", ctx)
    notes, other_notes = registry_notes(doc)
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
             f"<title>Skip-absorption audit: {'passed' if doc['ok'] else 'FAILED'}</title>"
             f"<style>{CSS}</style></head><body>",
             f"<h1>Skip-absorption audit: {'passed' if doc['ok'] else 'FAILED'}</h1>",
             f"<p class='paper'>The claims of <a href='{esc(PAPER[1])}'>{esc(PAPER[0])}</a> and of this "
             "project's extensions, each with its informal proof, formal proofs, oracle check and boundary "
             "counterexamples.</p>",
             "<table class='hdr'>" + "".join(
                 f"<tr><td>{esc(k)}</td><td>{esc(v)}</td></tr>" for k, v in header_rows(doc)) + "</table>",
             _html_toc(toc(doc, ctx, coq_defs, lean_defs))]
    if doc["problems"]:
        parts.append("<h2 id='problems'>Problems</h2><ul>"
                     + "".join(f"<li>{esc(p)}</li>" for p in doc["problems"]) + "</ul>")
    head = "".join(f"<th>{esc(h)}</th>" for h in TABLE_HEAD)
    body = []
    for r in table_rows(doc):
        cells = [f"<td><a href='#claim-{esc(r['claim'])}'>{esc(r['claim'])}</a></td>"]
        cells += [f"<td class='{_cls(r[h])}'>{esc(r[h])}</td>" for h in TABLE_HEAD[1:]]
        body.append("<tr>" + "".join(cells) + "</tr>")
    parts.append(f"<h2>Claims</h2><table id='claims'><tr>{head}</tr>{''.join(body)}</table>"
                 "<p>Coq <i>checked: full</i> means the registered Coq statement is the whole claim; any "
                 "other label names the part that is formal (each claim's section says which). Print "
                 "Assumptions lists the axioms the registered theorems rest on. Lean: written, not compiled "
                 "in this environment. Instance sizes: the range of (d, m) of the generated instances.</p>")
    if other_notes:
        parts.append("<p>Reasons given in proofs/claims.toml:</p><ul>"
                     + "".join(f"<li>{esc(x)}</li>" for x in other_notes) + "</ul>")
    n = 0
    parts.append("<h2 id='figures'>Figures</h2>")
    for fig in ctx.general:
        n += 1
        parts.append(_html_figure(fig, n))
    parts += [f"<p><i>{esc(note)}</i></p>" for note in ctx.notes]
    parts.append("<h2 id='counterexamples'>Boundary counterexamples</h2><table><tr><th>counterexample</th>"
                 "<th>drops</th><th>claims</th><th>verified</th><th>method</th></tr>" + "".join(
                     f"<tr><td><code>{esc(cx['name'])}</code></td><td><code>{esc(cx['dropped'])}</code></td>"
                     f"<td>{esc(', '.join(cx['claims']))}</td>"
                     f"<td class='{'ok' if cx['verified'] else 'bad'}'>"
                     f"{'yes' if cx['verified'] else 'NO'}{' (exact)' if cx['exact'] else ''}</td>"
                     f"<td>{esc(cx['method'])}</td></tr>" for cx in doc["counterexamples"]) + "</table>")
    if ctx.scans:
        parts.append("<h2 id='scans'>Your scans</h2>")
        for i, ent in enumerate(ctx.scans, 1):
            rows_ = "".join("<tr>" + "".join(f"<td class='{_cls(r[h]) if h == 'verdict' else ''}'>{esc(r[h])}</td>"
                                             for h in SCAN_HEAD) + "</tr>" for r in scan_rows(ent["doc"]))
            parts.append(f"<h3 id='scan-{i}'>Scan of <code>{esc(ent['doc']['checkpoint'])}</code></h3>"
                         f"<p>{esc(scan_summary(ent))}</p><table class='scan'><tr>"
                         + "".join(f"<th>{esc(h)}</th>" for h in SCAN_HEAD) + f"</tr>{rows_}</table>")
    parts.append("<h2 id='claim-sections'>Claims, one section each</h2>")
    for c, f in facts:
        s = [f"<section id='claim-{esc(c['id'])}'><h2>{esc(c['id'])}: {esc(c['title'])} "
             f"({esc(c['paper_ref'])})</h2><p class='statement'>{esc(c['statement'])}</p>",
             f"<p>Informal proof: {_a(f['informal'])}. Oracle: <code>{esc(c['oracle'].get('ref', '-'))}</code> "
             f"in {_a(f['oracle_file'])}.</p>",
             "<h3>Hypotheses</h3><table><tr><th>tag</th><th>meaning</th><th>in the formal statement</th></tr>"
             + "".join(f"<tr><td><code>{esc(h['tag'])}</code></td><td>{esc(h['meaning'])}</td>"
                       f"<td>{esc(h['formal'])}</td></tr>" for h in f["hypotheses"]) + "</table>"]
        coq = c["coq"]
        s.append(_prover_head("Coq", coq, f["scope"], f["scope_note"],
                              f"<p class='bad'>{esc(coq['detail'])}</p>" if coq["status"] != "checked" else ""))
        if coq["status"] != "absent":
            if coq["status"] == "checked":
                s.append(f"<p>Print Assumptions"
                         f"{'' if f['axioms_attributed'] else ' (all registered declarations together)'}: "
                         f"{esc(', '.join(f['axioms']) or 'closed under the global context')}.</p>")
            for d in f["coq"]:
                s.append(_html_statement(d, f"<code>{esc(d['name'])}</code> in {_a(d['file'])}. As Coq prints it:",
                                         "coq"))
            for ci in f["coq_instances"]:
                s.append(_html_statement(ci, f"Instance lemma <code>{esc(ci['name'])}</code> in {_a(ci['file'])}:",
                                         "coq"))
            for ce in f["coq_counterexamples"]:
                s.append(_html_statement(ce, f"Without <code>{esc(ce['tag'])}</code>: <code>{esc(ce['name'])}</code> "
                                             f"in {_a(ce['file'])}:", "coq"))
        lean = c["lean"]
        s.append(_prover_head("Lean", lean, f["lean_scope"], f["lean_scope_note"], f"<p>{esc(lean['detail'])}.</p>"))
        if lean["status"] != "absent":
            for d in f["lean"]:
                s.append(_html_statement(d, f"<code>{esc(d['name'])}</code> in {_a(d['file'])}:", "lean"))
        o = c["oracle"]
        if "instances" in o:
            s.append(f"<h3>Oracle: {esc(o['status'])}</h3><p>{o['instances']} generated instances "
                     f"({o['exact_instances']} exact), precision {esc(o['precision'])}, {o['seconds']:.2f} s"
                     + (f"; failure: {esc(o['failure'])}" if o.get("failure") else "") + ".</p>")
        else:
            s.append(f"<h3>Oracle: {esc(o['status'])}</h3><p>{esc(o.get('detail', ''))}</p>")
        s.append("<h4>Sampled ranges</h4><ul>" + "".join(f"<li>{esc(x)}</li>" for x in coverage_lines(o)) + "</ul>")
        if notes.get(c["id"]):
            s.append("<h4>Reasons given in proofs/claims.toml for checks that are weakened or absent</h4><ul>"
                     + "".join(f"<li>{esc(x)}</li>" for x in notes[c["id"]]) + "</ul>")
        fig = ctx.per_claim.get(c["id"])
        if fig is not None:
            n += 1
            s.append(_html_figure(fig, n))
        if f["counterexamples"]:
            s.append("<h3>Boundary counterexamples</h3>")
        for cx in f["counterexamples"]:
            items = [f"<li>{esc(key)} ({esc(act)}): <code>{esc('; '.join(lines))}</code></li>"
                     for key, act, lines in cx["blocks"]]
            if cx["skip"] and not any(k == "residual" for k, _, _ in cx["blocks"]):
                items.append(f"<li>skip M = <code>{esc(cx['skip'])}</code></li>")
            items += [f"<li><code>{esc(fact)}</code></li>" for fact in cx["facts"]]
            items.append(f"<li>computed violation: the residual block equals the residual-free block "
                         f"{esc(cx['violation']['text'])}</li>")
            s.append(f"<p><code>{esc(cx['name'])}</code> drops <code>{esc(cx['dropped'])}</code> "
                     f"({esc(cx['dropped_meaning'])}): <b>{'verified' if cx['verified'] else 'NOT verified'}"
                     f"</b>, {esc(cx['method'])}. {esc(cx['description'])}.</p><ul>{''.join(items)}</ul>")
        s.append("</section>")
        parts.append("".join(s))
    for system, defs, title in (("coq", coq_defs, "Coq definitions"), ("lean", lean_defs, "Lean definitions")):
        if not defs:
            continue
        parts.append(f"<section id='{system}-definitions'><h2>{title}</h2><p>Every definition that a pinned "
                     f"statement above uses, printed once (proofs/pinned/{system}-statements.txt prints it "
                     "under each statement that uses it).</p>")
        for d in defs:
            used = ", ".join(f"<a href='#claim-{esc(cid)}'>{esc(cid)}</a>" for cid in d["used_by"])
            parts.append(f"<div class='def' id='{esc(d['anchor'])}'><p><code>{esc(short_name(d['name']))}</code> "
                         f"in {_a(d['file'])}; used by {used}.</p><pre>{esc(d['body'])}</pre></div>")
        parts.append("</section>")
    parts.append("</body></html>")
    return "".join(parts)


def write_report(doc: dict[str, Any], path: str, scans: Optional[list[dict[str, Any]]] = None) -> None:
    """Write one self-contained Markdown (.md) or HTML (.html) report, chosen by the file's suffix;
    ``scans`` are the user's scan documents (check_scan), shown in their own section."""
    p = Path(path)
    if p.suffix not in (".md", ".html", ".htm"):
        raise InputError(f"--report must end in .md or .html, got {path!r}")
    figures.require_matplotlib()
    ctx = build_context(doc, path, scans)
    text = markdown(doc, ctx) if p.suffix == ".md" else html_report(doc, ctx)
    try:
        p.write_text(text, encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot write {path}: {e.strerror or e}") from None
