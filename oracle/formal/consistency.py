"""Proof checking that cannot be fooled: the registry, the informal proofs, the Coq
development, the Lean mirror and the tests, held to each other.

A green "Coq: full" means: the statement shown in proofs/pinned/coq-statements.txt is
the statement Coq compiled, resolved by its full path; it assumes nothing beyond the
allowed axioms of the standard library's reals; every hypothesis tag of the claim is
a top-level named binder and no other premise narrows it; the instance lemma applies
it to a concrete case stated with the standard library only; and each boundary
counterexample is proved to satisfy every hypothesis but the dropped one.

Static checks (no compiler): the registry's fields (anything that weakens a check
needs a reason, which is printed), informal proofs, forbidden commands in the Coq and
Lean sources, _CoqProject flags, Lean names and binders, the pinned Lean statements,
tests naming every claim.  Compiled checks (coqc): see oracle/formal/coqcheck.py.

Every finding is one line, ``<claim id>: <reason>`` (``-`` when no claim is concerned).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import oracle.claims as claim_modules
from oracle.core.errors import RegistryError
from oracle.formal import coqcheck, coqsource, leancheck, pinned
from oracle.claims import coverage

ROOT = Path(__file__).resolve().parents[2]  # the checkout: oracle/<layer>/<module>.py
LOGICAL = coqcheck.LOGICAL
ALLOWED_AXIOMS = coqcheck.ALLOWED_AXIOMS
MEASURE_AXIOMS = coqcheck.MEASURE_AXIOMS

# Hypothesis tags built into the shape of the formal formulas rather than carried by a
# binder, with the reason shown in the audit.
STRUCTURAL_TAGS: dict[str, str] = {
    "bias_free": "the formal blocks have no bias terms",
    "same_width": "the formal statement fixes the width of B' in its type",
}
# Every field a [[claim]] may have (documented at the top of proofs/claims.toml).  An
# unknown field is refused: a misspelt name must not silently switch a check off.
KNOWN_FIELDS = frozenset({
    "id", "title", "paper_ref", "statement", "hypotheses", "informal", "oracle",
    "coq", "lean", "coq_absent", "lean_absent", "coq_instance", "lean_instance",
    "formal_scope", "formal_scope_note", "lean_formal_scope", "lean_formal_scope_note",
    "formal_not_needed", "formal_hypotheses", "formal_hypotheses_reason",
    "coq_hypotheses", "coq_hypotheses_reason", "lean_hypotheses", "lean_hypotheses_reason",
    "coq_extra_hypotheses", "lean_extra_hypotheses",
    "coq_counterexamples", "coq_counterexamples_absent",
    "samples", "samples_reason",
})
# Fields that weaken a check, and the field that must give the reason.
WEAKENING = {"formal_hypotheses": "formal_hypotheses_reason", "coq_hypotheses": "coq_hypotheses_reason",
             "lean_hypotheses": "lean_hypotheses_reason"}
SCOPE_MAX = 24
# An instance lemma is stated with the standard library only.  The query imports only
# Coq.Reals.Reals, so every other name prints qualified: a project definition
# (Linalg.block), another library (Coquelicot's Rbar.p_infty, Continuity.is_lim) or a
# standard-library module that Reals does not import.  The qualifiers allowed in an
# instance statement, with the library each stands for:
INSTANCE_QUALIFIERS: dict[str, str] = {
    "List": "Coq.Lists.List (lists: In, length, fold_right, Forall, ...)",
    "Nat": "Coq.Init.Nat (natural-number operations)",
    "Coq": "the standard library by its full path",
}
LEAN_PREDICATES = re.compile(r"[=≠<>≤≥¬∧∨↔∃]|\bFalse\b|\bTrue\b|\bTendsto\b|\bContinuous\w*|"
                             r"\bDifferentiable\w*|\bHasFDerivAt\b|\bHasDerivAt\b")
LEAN_EXTERNAL = Path("lean") / "external-names.txt"


@dataclass
class Finding:
    """One failed check, as one line."""

    claim: Optional[str]
    what: str
    lang: str = ""  # "coq", "lean" or "" (which column of the audit table it concerns)

    def __str__(self) -> str:
        return f"{self.claim or '-'}: {self.what}"


@dataclass
class Notes:
    """Reasons the registry gives for weakened checks; the audit prints them."""

    lines: list[str] = field(default_factory=list)

    def add(self, claim: str, text: str) -> None:
        """Record one printed reason."""
        self.lines.append(f"{claim}: {text}")


# ---------------------------------------------------------------- registry

def load_registry(root: Path = ROOT) -> list[dict[str, Any]]:
    """The [[claim]] tables of proofs/claims.toml."""
    with open(Path(root) / "proofs" / "claims.toml", "rb") as f:
        return tomllib.load(f)["claim"]


def registry_names(entry: Any) -> list[str]:
    """A registry field that holds one declaration name or a list of them, as a list."""
    if entry is None:
        return []
    return [entry] if isinstance(entry, str) else list(entry)


def scope_label(claim: dict[str, Any], lang: str) -> str:
    """The short formal-scope label of a claim for 'coq' or 'lean'."""
    if lang == "lean" and claim.get("lean_formal_scope"):
        return claim["lean_formal_scope"]
    return claim.get("formal_scope", "")


def scope_note(claim: dict[str, Any], lang: str) -> str:
    """The sentence that explains a partial scope."""
    if lang == "lean" and claim.get("lean_formal_scope"):
        return claim.get("lean_formal_scope_note", "")
    return claim.get("formal_scope_note", "")


def formal_tags(claim: dict[str, Any], lang: str) -> list[str]:
    """The hypothesis tags that must be named binders of the main declaration in lang."""
    if f"{lang}_hypotheses" in claim:
        return [t for t in claim[f"{lang}_hypotheses"] if t not in STRUCTURAL_TAGS]
    base = claim.get("formal_hypotheses", claim.get("hypotheses", []))
    skip = claim.get("formal_not_needed", {})
    return [t for t in base if t not in STRUCTURAL_TAGS and t not in skip]


def registry_roles(registry: list[dict[str, Any]], lang: str) -> list[tuple[str, list[str]]]:
    """(declaration, ['<claim> (<role>)', ...]) for every registered declaration, registry order."""
    roles: dict[str, list[str]] = {}
    for c in registry:
        names = registry_names(c.get(lang))
        for i, n in enumerate(names):
            roles.setdefault(n, []).append(f"{c['id']} ({'main' if i == 0 else 'lemma'})")
        for n in registry_names(c.get(f"{lang}_instance")):
            roles.setdefault(n, []).append(f"{c['id']} (instance)")
        if lang == "coq":
            for tag, n in (c.get("coq_counterexamples") or {}).items():
                if isinstance(n, str):
                    roles.setdefault(n, []).append(f"{c['id']} (counterexample without {tag})")
    return list(roles.items())


def _boundary_counterexamples() -> list[tuple[str, tuple[str, ...], str]]:
    """(name, claims, dropped tag) of every registered boundary counterexample (oracle.claims.load:
    those of oracle/claims/boundary.py and those the claims' own modules register).  A claim module
    that does not import raises RegistryError with its reason."""
    return [(fn.__name__, tuple(fn.counterexample_info.claims), fn.counterexample_info.dropped)
            for fn in claim_modules.load().counterexamples]


def registry_findings(registry: list[dict[str, Any]], root: Path, notes: Notes) -> list[Finding]:
    """Everything about the registry itself: fields, reasons, scopes, names, counterexamples."""
    out: list[Finding] = []
    coq_files = {Path(f).stem for f in coqsource.project_files(root / "proofs" / "coq")}
    seen_ids: set[str] = set()
    for c in registry:
        cid = c.get("id", "?")
        if cid in seen_ids:
            out.append(Finding(cid, "claim id registered twice"))
        seen_ids.add(cid)
        for k in sorted(set(c) - KNOWN_FIELDS):
            out.append(Finding(cid, f"unknown registry field '{k}' (known fields are listed at the top of "
                                    "proofs/claims.toml; a misspelt field could switch a check off)"))
        hyps = c.get("hypotheses", [])
        if not isinstance(hyps, list) or not all(isinstance(h, str) for h in hyps):
            out.append(Finding(cid, "hypotheses must be a list of tags"))
            hyps = []
        # The ranges the oracle samples: well formed, and every range the statement reaches is
        # sampled unless a reason says why not (oracle/claims/coverage.py).
        if "samples" not in c:
            out.append(Finding(cid, "no 'samples' table: the ranges the oracle draws must be declared"))
        else:
            bad = coverage.samples_findings(c["samples"], c.get("samples_reason"))
            out += [Finding(cid, b) for b in bad]
            if not bad:
                out += [Finding(cid, "samples exclude a range the statement reaches without a reason "
                                     f"in samples_reason: {u}")
                        for u in coverage.unjustified_exclusions(hyps, c["samples"], c.get("samples_reason"))]
                for axis, why in (c.get("samples_reason") or {}).items():
                    notes.add(cid, f"samples_reason.{axis}: {why}")
        for fld, why in WEAKENING.items():
            if fld in c:
                reason = c.get(why)
                if not isinstance(reason, str) or not reason.strip():
                    out.append(Finding(cid, f"'{fld}' weakens the binder check and needs a reason in '{why}'"))
                else:
                    notes.add(cid, f"{fld} = {c[fld]}: {reason}")
                for t in c[fld]:
                    if t not in hyps:
                        out.append(Finding(cid, f"'{fld}' lists '{t}', which is not a hypothesis of the claim"))
        for fld in ("formal_not_needed", "coq_extra_hypotheses", "lean_extra_hypotheses",
                    "coq_counterexamples_absent"):
            val = c.get(fld, {})
            if not isinstance(val, dict):
                out.append(Finding(cid, f"'{fld}' must be a table {{ name = \"reason\" }}"))
                continue
            for k, reason in val.items():
                if not isinstance(reason, str) or not reason.strip():
                    out.append(Finding(cid, f"'{fld}.{k}' needs a reason"))
                else:
                    notes.add(cid, f"{fld}.{k}: {reason}")
                if fld in ("formal_not_needed", "coq_counterexamples_absent") and k not in hyps:
                    out.append(Finding(cid, f"'{fld}' names '{k}', which is not a hypothesis of the claim"))
        for k in c.get("formal_not_needed", {}):
            if k in STRUCTURAL_TAGS:
                out.append(Finding(cid, f"'{k}' is structural ({STRUCTURAL_TAGS[k]}); it needs no "
                                        "formal_not_needed entry"))
        for lang in ("coq", "lean"):
            names = registry_names(c.get(lang))
            absent = c.get(f"{lang}_absent")
            if names and absent:
                out.append(Finding(cid, f"both '{lang}' and '{lang}_absent' are given"))
            if not names:
                if not isinstance(absent, str) or not absent.strip():
                    out.append(Finding(cid, f"no {lang.capitalize()} declaration and no {lang}_absent reason", lang))
                else:
                    notes.add(cid, f"{lang}_absent: {absent}")
                continue
            label = scope_label(c, lang)
            if not label:
                out.append(Finding(cid, "formal proofs are registered but 'formal_scope' (a short label: "
                                        "full, sufficiency, qualitative, ...) is missing", lang))
            elif len(label) > SCOPE_MAX or label.lower() in ("checked", "yes", "done", "proved"):
                out.append(Finding(cid, f"formal scope '{label}' must be a short label saying what is "
                                        f"formal (full, sufficiency, ...; at most {SCOPE_MAX} characters)", lang))
            elif label != "full" and not scope_note(c, lang).strip():
                out.append(Finding(cid, f"formal scope '{label}' is partial and needs a "
                                        f"{'lean_' if lang == 'lean' and c.get('lean_formal_scope') else ''}"
                                        "formal_scope_note sentence", lang))
            if lang == "coq":
                for n in names + registry_names(c.get("coq_instance")) + list((c.get("coq_counterexamples") or {}).values()):
                    parts = str(n).split(".")
                    if len(parts) < 3 or parts[0] != LOGICAL or parts[1] not in coq_files:
                        out.append(Finding(cid, f"'{n}' is not a full name {LOGICAL}.<File>.<name> of a file "
                                                "listed in proofs/coq/_CoqProject", "coq"))
                if not registry_names(c.get("coq_instance")):
                    out.append(Finding(cid, "formal proof without an instance lemma (coq_instance): a vacuous "
                                            "or narrowed theorem could not be told apart", "coq"))
        cexs = c.get("coq_counterexamples") or {}
        if not isinstance(cexs, dict):
            out.append(Finding(cid, "'coq_counterexamples' must be a table { tag = \"lemma\" }"))
            cexs = {}
        for tag in cexs:
            if tag not in hyps:
                out.append(Finding(cid, f"coq_counterexamples names '{tag}', which is not a hypothesis", "coq"))
    # Boundary counterexamples of formally proved claims must be proved in Coq as well.
    by_id = {c.get("id"): c for c in registry}
    try:
        registered = _boundary_counterexamples()
    except RegistryError as e:  # an error with its reason, never an empty list
        out.append(Finding(None, f"the boundary counterexamples cannot be checked: {e}"))
        registered = []
    for name, claims, dropped in registered:
        for cid in claims:
            c = by_id.get(cid)
            if c is None or not registry_names(c.get("coq")):
                continue
            if dropped in (c.get("formal_not_needed") or {}):
                continue
            if dropped not in STRUCTURAL_TAGS and dropped not in formal_tags(c, "coq"):
                continue
            if dropped in (c.get("coq_counterexamples") or {}):
                continue
            if dropped in (c.get("coq_counterexamples_absent") or {}):
                continue
            out.append(Finding(cid, f"boundary counterexample {name} drops '{dropped}', but no Coq lemma proves "
                                    f"it (coq_counterexamples.{dropped}) and no reason is given "
                                    f"(coq_counterexamples_absent.{dropped})", "coq"))
    return out


# ---------------------------------------------------------------- static checks

def static_findings(root: Path = ROOT, notes: Optional[Notes] = None) -> list[Finding]:
    """All checks that need no compiler."""
    root = Path(root).resolve()
    notes = notes if notes is not None else Notes()
    registry = load_registry(root)
    out = registry_findings(registry, root, notes)
    coqdir = root / "proofs" / "coq"
    out += [Finding(None, p, "coq") for p in coqcheck.project_problems(coqdir)]
    out += [Finding(None, p, "coq") for p in coqcheck.measure_library_outside_interface(coqdir)]
    measure = measure_claims(registry, coqdir)
    if measure:
        registered = {n for c in registry for n in registry_names(c.get("coq"))}
        for n in coqcheck.MEASURE_SANITY:
            if n not in registered:
                out.append(Finding(sorted(measure)[0], f"{n} is not registered (coq) although "
                                   f"{', '.join(sorted(measure))} use the measure library: the sanity "
                                   "lemmas of Lebesgue measure keep 'null' honest and must be compiled, "
                                   "pinned and checked", "coq"))
    sources = coqsource.read_project(coqdir, LOGICAL)
    declared = {n for sf in sources for n in sf.declarations}
    for sf in sources:
        for line, why in sf.problems:
            out.append(Finding(_claim_of_line(registry, sf, line),
                               f"proofs/coq/{sf.path.name}:{line}: {why}", "coq"))
    lean = leancheck.read_sources(root / "lean", leancheck.read_external(root / LEAN_EXTERNAL))
    for where, why in lean.problems:
        out.append(Finding(_claim_of_lean(registry, lean, where), f"{where}: {why}", "lean"))
    for where, name in lean.unknown_names:
        out.append(Finding(_claim_of_lean(registry, lean, where),
                           f"{where}: '{name}' is not bound, not declared in lean/ and not in "
                           f"{LEAN_EXTERNAL} (undefined or unchecked name)", "lean"))
    tests_text = "\n".join(p.read_text() for p in sorted((root / "tests").glob("test_*.py")))
    for c in registry:
        cid = c.get("id", "?")
        informal = root / "proofs" / c.get("informal", f"informal/{cid}.md")
        if not informal.exists() or not informal.read_text().strip():
            out.append(Finding(cid, f"informal proof proofs/{c.get('informal', '')} missing or empty"))
        for n in registry_names(c.get("coq")) + registry_names(c.get("coq_instance")) + \
                [v for v in (c.get("coq_counterexamples") or {}).values() if isinstance(v, str)]:
            if n not in declared:
                out.append(Finding(cid, f"Coq declaration {n} not found in the sources", "coq"))
        for n in registry_names(c.get("lean")) + registry_names(c.get("lean_instance")):
            if n not in lean.decls:
                out.append(Finding(cid, f"Lean declaration {n} not found (namespace path + name)", "lean"))
        lean_names = registry_names(c.get("lean"))
        if lean_names and lean_names[0] in lean.decls:
            out += _lean_binder_findings(c, lean.decls[lean_names[0]])
        if not re.search(rf"(?<![\w-]){re.escape(cid)}(?![\w-])", tests_text):
            out.append(Finding(cid, "no test names this claim"))
    text, _ = lean_pinned_text(root, registry, lean)
    out += _pinned_findings(root / pinned.LEAN_FILE, text, registry, "lean", "Lean")
    return out


def _claim_of_line(registry: list[dict[str, Any]], sf: coqsource.SourceFile, line: int) -> Optional[str]:
    """The claim whose registered declaration (statement or proof) contains this line of a Coq file."""
    best = None
    for name, (first, last) in sf.spans.items():
        if first <= line <= last and (best is None or first > best[1]):
            best = (name, first)
    if best is None:
        return None
    for c in registry:
        regs = registry_names(c.get("coq")) + registry_names(c.get("coq_instance")) + \
            [v for v in (c.get("coq_counterexamples") or {}).values() if isinstance(v, str)]
        if best[0] in regs:
            return c["id"]
    return None


def _claim_of_lean(registry: list[dict[str, Any]], lean: leancheck.LeanSources, where: str) -> Optional[str]:
    path, _, line = where.rpartition(":")
    best = None
    for d in lean.decls.values():
        if str(d.path).endswith(path) and d.line <= int(line or 0) and (best is None or d.line > best.line):
            best = d
    if best is None:
        return None
    for c in registry:
        if best.full in registry_names(c.get("lean")) + registry_names(c.get("lean_instance")):
            return c["id"]
    return None


def _lean_binder_findings(c: dict[str, Any], d: leancheck.LeanDecl) -> list[Finding]:
    """Tags are top-level binders; other premises (by their type's shape) must be declared."""
    out = []
    groups = leancheck.binder_groups(d.signature)
    names = {n for _, ns, _ in groups for n in ns}
    for tag in formal_tags(c, "lean"):
        if tag not in names:
            out.append(Finding(c["id"], f"hypothesis tag '{tag}' is not a top-level binder of Lean {d.full}", lang="lean"))
    allowed = set(c.get("hypotheses", [])) | set(c.get("lean_extra_hypotheses", {}))
    for br, ns, typ in groups:
        if br == "[" or not LEAN_PREDICATES.search(typ):
            continue
        for n in ns:
            if n == "_" or n not in allowed:
                out.append(Finding(c["id"], f"Lean {d.full} assumes ({n} : {typ}), which is neither a hypothesis "
                                            "tag of the claim nor in lean_extra_hypotheses", lang="lean"))
            elif n in (c.get("formal_not_needed") or {}):
                out.append(Finding(c["id"], f"Lean {d.full} assumes '{n}', which formal_not_needed says "
                                            "the formal statement does not need", lang="lean"))
    return out


# ---------------------------------------------------------------- pinned texts

def lean_pinned_text(root: Path, registry: list[dict[str, Any]],
                     lean: Optional[leancheck.LeanSources] = None) -> tuple[str, list[str]]:
    """The Lean pinned file as the sources give it now (and names that could not be read)."""
    if lean is None:
        lean = leancheck.read_sources(root / "lean", leancheck.read_external(root / LEAN_EXTERNAL))
    blocks, missing = [], []
    for name, roles in registry_roles(registry, "lean"):
        d = lean.decls.get(name)
        if d is None:
            missing.append(name)
            continue
        stmt = leancheck.pretty_signature(d.signature)
        if d.variables:
            stmt = "\n".join(f"--- variable {v[len('variable'):].strip()}" for v in d.variables) + "\n" + stmt
        uses = {u: leancheck.pretty_signature(lean.decls[u].text) for u in leancheck.def_closure(d, lean.decls)}
        blocks.append(pinned.Block(name, ", ".join(roles), "", stmt, uses))
    return pinned.render(pinned.LEAN_HEADER, blocks), missing


def coq_pinned_text(registry: list[dict[str, Any]], report: coqcheck.CoqReport,
                    file_modules: set[str], coqdir: Optional[Path] = None) -> tuple[str, list[Finding]]:
    """The Coq pinned file from a query report (and findings for unreadable statements)."""
    import hashlib
    blocks, out = [], []
    owners = {k: v for sf in coqsource.read_project(ROOT / "proofs" / "coq" if coqdir is None else coqdir, LOGICAL)
              for k, v in sf.owners.items()}
    for name, roles in registry_roles(registry, "coq"):
        d = report.decls.get(name)
        claim = roles[0].split(" ", 1)[0]
        if d is None or not d.display:
            continue
        uses, unresolved = coqcheck.def_closure(d.display, report, file_modules, owners)
        for tok in unresolved:
            out.append(Finding(claim, f"Coq {name} mentions {tok}, which the audit cannot resolve to a "
                                      "definition of the development", lang="coq"))
        h = hashlib.sha256(d.printing_all.encode())
        for u in uses:
            h.update(b"\0" + report.defs[u]["all"].encode())
        blocks.append(pinned.Block(name, ", ".join(roles), h.hexdigest(), d.display,
                                   {u: report.defs[u]["print"] for u in uses}))
    return pinned.render(pinned.COQ_HEADER, blocks), out


def _pinned_findings(path: Path, text: str, registry: list[dict[str, Any]], lang: str,
                     label: str) -> list[Finding]:
    """One finding per changed, added or removed block (the diff is printed separately)."""
    old = path.read_text() if path.exists() else ""
    if old == text:
        return []
    if not old:
        return [Finding(None, f"{path.relative_to(path.parents[2])} is missing: review the statements, "
                              "then run `absorb pin`", lang)]
    owner = {n: roles[0].split(" ", 1)[0] for n, roles in registry_roles(registry, lang)}
    out = []
    for name, how in pinned.changed_names(old, text):
        out.append(Finding(owner.get(name), f"{label} statement of {name} {how} since it was pinned in "
                                            f"{path.relative_to(path.parents[2])} (review the diff, then "
                                            "`absorb pin`)", lang))
    if not out:
        out.append(Finding(None, f"{path.relative_to(path.parents[2])} differs from the regenerated text "
                                 "(header or order); run `absorb pin` after review", lang))
    return out


def pinned_diffs(root: Path, coq_text: Optional[str], lean_text: str) -> dict[str, str]:
    """Unified diffs (truncated) of both pinned files against the regenerated texts."""
    out = {}
    for rel, text in ((pinned.COQ_FILE, coq_text), (pinned.LEAN_FILE, lean_text)):
        if text is None:
            continue
        p = root / rel
        old = p.read_text() if p.exists() else ""
        if old != text:
            out[str(rel)] = pinned.diff(old, text, str(rel))
    return out


# ---------------------------------------------------------------- compiled checks

def coq_requests(registry: list[dict[str, Any]]) -> dict[str, Any]:
    """What to ask Coq: registered names, instances, counterexample checks, claim bundles."""
    registered = [n for n, _ in registry_roles(registry, "coq")]
    instances, checks, bundles = [], [], {}
    for c in registry:
        main = registry_names(c.get("coq"))
        if not main:
            continue
        instances += registry_names(c.get("coq_instance"))
        tags = formal_tags(c, "coq")
        for tag, lemma in (c.get("coq_counterexamples") or {}).items():
            if tag in tags and isinstance(lemma, str):
                checks.append((main[0], tag, lemma))
        bundles[c["id"]] = main + registry_names(c.get("coq_instance")) + \
            [v for v in (c.get("coq_counterexamples") or {}).values() if isinstance(v, str)]
    return {"registered": registered, "instances": instances, "cex_checks": checks, "claim_bundles": bundles}


def coq_findings(root: Path, registry: list[dict[str, Any]], report: coqcheck.CoqReport) -> list[Finding]:
    """Findings from the compiled development (resolution, binders, instances, counterexamples, axioms)."""
    out: list[Finding] = []
    coqdir = root / "proofs" / "coq"
    sources = coqsource.read_project(coqdir, LOGICAL)
    by_file = {sf.path.name: sf for sf in sources}
    for e in report.errors:
        sf = by_file.get(e["file"])
        claim = _claim_of_line(registry, sf, e["line"]) if sf else None
        out.append(Finding(claim, f"Coq does not compile: {e['file']}:{e['line']}: {e['message']}", lang="coq"))
    if report.status == "failed" and not report.errors:
        out.append(Finding(None, f"Coq: {report.detail}", lang="coq"))
    fresh = set(report.compiled_modules)
    for c in registry:
        cid = c["id"]
        main = registry_names(c.get("coq"))
        if not main:
            continue
        unchecked: dict[str, list[str]] = {}
        for n, role in [(x, "declaration") for x in main] + [(x, "instance") for x in registry_names(c.get("coq_instance"))] + \
                [(v, "counterexample") for v in (c.get("coq_counterexamples") or {}).values() if isinstance(v, str)]:
            module = ".".join(n.split(".")[:2])
            d = report.decls.get(n)
            if module not in fresh:
                unchecked.setdefault(module.split(".")[-1] + ".v", []).append(n.rsplit(".", 1)[-1])
            elif d is None or d.resolved is None:
                out.append(Finding(cid, f"Coq {role} {n} does not exist (Locate finds no object at that path)", lang="coq"))
            elif d.kind != "Constant" or d.resolved != n:
                out.append(Finding(cid, f"Coq {role} {n} resolves to {d.kind} {d.resolved}, not to a theorem "
                                        "at that path", lang="coq"))
        for f, names in unchecked.items():
            out.append(Finding(cid, f"not checked because {f} did not compile: {', '.join(names)}", lang="coq"))
        d = report.decls.get(main[0])
        if d is not None and d.resolved == main[0] and d.display:
            out += _coq_binder_findings(c, d)
        for inst in registry_names(c.get("coq_instance")):
            di = report.decls.get(inst)
            if di is None or not di.display:
                continue
            toks = instance_outsiders(di.display, _file_modules(coqdir))
            if toks:
                out.append(Finding(cid, f"instance {inst} mentions {', '.join(sorted(toks))}: an instance is "
                                        "stated with the standard library only, so no definition can change it", lang="coq"))
            if main[0] not in di.refs:
                out.append(Finding(cid, f"instance {inst} does not apply the main theorem {main[0]} "
                                        "(its proof, as recorded in the compiler's .glob file, never refers to it)", lang="coq"))
        for tag, lemma in (c.get("coq_counterexamples") or {}).items():
            key = f"{main[0]}|{tag}|{lemma}"
            if tag not in formal_tags(c, "coq"):
                continue
            res = report.cex_checks.get(key)
            if res == "notag":
                out.append(Finding(cid, f"counterexample {lemma}: {main[0]} has no binder '{tag}' to drop", lang="coq"))
            elif res == "bad":
                out.append(Finding(cid, f"counterexample {lemma} does not prove that {main[0]} without "
                                        f"'{tag}' is false", lang="coq"))
            elif res is None and report.status == "compiled":
                out.append(Finding(cid, f"counterexample {lemma} for '{tag}' was not checked", lang="coq"))
    out += _assumption_findings(registry, report, coqdir)
    return out


def instance_outsiders(display: str, file_modules: set[str]) -> list[str]:
    """Qualified names in a printed instance statement that are not from the standard library:
    project definitions and names of other libraries (see INSTANCE_QUALIFIERS)."""
    return sorted(t for t in coqcheck.qualified_tokens(display)
                  if coqcheck.project_token(t, file_modules) or t.split(".", 1)[0] not in INSTANCE_QUALIFIERS)


def _file_modules(coqdir: Path) -> set[str]:
    return {Path(f).stem for f in coqsource.project_files(coqdir)}


def _coq_binder_findings(c: dict[str, Any], d: coqcheck.Decl) -> list[Finding]:
    """Tags are top-level named binders; no other premise; anonymous premises only in the conclusion."""
    out = []
    cid = c["id"]
    names = {b.name for b in d.binders if b.name}
    for tag in formal_tags(c, "coq"):
        if tag not in names:
            out.append(Finding(cid, f"hypothesis tag '{tag}' is not a top-level named binder of Coq {d.name} "
                                    "(binders nested inside another hypothesis do not count)", lang="coq"))
    allowed = set(c.get("hypotheses", [])) | set(c.get("coq_extra_hypotheses", {}))
    not_needed = set(c.get("formal_not_needed") or {})
    # When the registry narrows the tags the formal statement carries (coq_hypotheses or
    # formal_hypotheses, with a reason), the other tags of the claim must not come back as
    # binders: that would assume a hypothesis the scope note says the formal part does without.
    narrowed = "coq_hypotheses" in c or "formal_hypotheses" in c
    narrowed_to = set(formal_tags(c, "coq")) | set(STRUCTURAL_TAGS) if narrowed else set(c.get("hypotheses", []))
    hyps = [b for b in d.binders if b.hypothesis]
    last_named = max([b.pos for b in hyps if b.name], default=0)
    data_after = {b.pos for b in d.binders if not b.hypothesis and b.pos > last_named}
    for b in hyps:
        if b.name:
            if b.name not in allowed:
                out.append(Finding(cid, f"Coq {d.name} assumes '{b.name}', which is neither a hypothesis tag of "
                                        "the claim nor in coq_extra_hypotheses (an extra premise narrows or "
                                        "empties the statement)", lang="coq"))
            elif b.name in not_needed:
                out.append(Finding(cid, f"Coq {d.name} assumes '{b.name}', which formal_not_needed says the "
                                        "formal statement does not need", lang="coq"))
            elif b.name in set(c.get("hypotheses", [])) - narrowed_to and b.name not in c.get("coq_extra_hypotheses", {}):
                out.append(Finding(cid, f"Coq {d.name} assumes '{b.name}', which the registry's narrowed tag list "
                                        "(coq_hypotheses / formal_hypotheses) says the formal statement does "
                                        "not assume", lang="coq"))
        elif not set(b.mentions) & data_after:
            out.append(Finding(cid, f"Coq {d.name} has an unnamed premise (binder {b.pos}; see the pinned "
                                    "statement), which narrows or empties it", lang="coq"))
    return out


def measure_claims(registry: list[dict[str, Any]], coqdir: Path) -> set[str]:
    """The claims that use the measure library: one of their registered declarations (main,
    connecting lemma, instance or counterexample) lives in a file that imports it."""
    mods = coqcheck.measure_modules(coqdir)
    out = set()
    for c in registry:
        names = registry_names(c.get("coq")) + registry_names(c.get("coq_instance")) + \
            [v for v in (c.get("coq_counterexamples") or {}).values() if isinstance(v, str)]
        if any(".".join(n.split(".")[:2]) in mods for n in names):
            out.add(c["id"])
    return out


def allowed_axioms(uses_measure: bool) -> dict[str, str]:
    """The axioms a claim's declarations may rest on (full name -> reason)."""
    return {**ALLOWED_AXIOMS, **(coqcheck.MEASURE_AXIOMS if uses_measure else {})}


def _assumption_findings(registry: list[dict[str, Any]], report: coqcheck.CoqReport,
                         coqdir: Path) -> list[Finding]:
    if report.status != "compiled" and not report.axioms:
        return []
    short = report.allowed_short  # printed name -> full name of a known axiom
    out = []
    labels = [c["id"] for c in registry if registry_names(c.get("coq"))]
    attributed = [lab for lab in labels if lab in report.axioms]
    measure = measure_claims(registry, coqdir)

    def bad_of(label: str, allowed: dict[str, str]) -> list[str]:
        return [f"axiom {a}" for a in report.axioms.get(label, []) if short.get(a) not in allowed] + \
            [f"'{ln}'" for ln in report.bad_assumption_lines.get(label, [])]

    if bad_of("pc_bundle", ALLOWED_AXIOMS):
        hit = False
        for lab in attributed:
            uses = lab in measure
            bad = bad_of(lab, allowed_axioms(uses))
            if bad:
                hit = True
                why = (" (only the allowed axioms of the reals and of the measure library may appear)" if uses else
                       " (only the allowed axioms of the reals may appear; the measure library's axioms only for "
                       f"claims whose declarations use proofs/coq/{coqcheck.MEASURE_INTERFACE})")
                out.append(Finding(lab, "Print Assumptions shows " + "; ".join(bad[:4]) + why, lang="coq"))
        if not attributed:
            out.append(Finding(None, "Print Assumptions shows " + "; ".join(bad_of("pc_bundle", ALLOWED_AXIOMS)[:4]) +
                               " beyond the axioms of the reals, and no claim-by-claim output to judge it",
                               lang="coq"))
        elif not hit and bad_of("pc_bundle", allowed_axioms(True)):
            out.append(Finding(None, "Print Assumptions shows " +
                               "; ".join(bad_of("pc_bundle", allowed_axioms(True))[:4]), lang="coq"))
    elif "pc_bundle" not in report.axioms and report.status == "compiled":
        out.append(Finding(None, "Coq: no Print Assumptions output", lang="coq"))
    return out


# ---------------------------------------------------------------- the whole check

def coq_available() -> bool:
    """True when coqc is on PATH."""
    return coqcheck.coq_available()


def check_all(root: Path = ROOT, compile_coq: bool = True, attribute: bool = False) -> dict[str, Any]:
    """Run every check; the dict says what passed, lists each finding and the pinned diffs."""
    root = Path(root).resolve()
    notes = Notes()
    registry = load_registry(root)
    findings = static_findings(root, notes)
    lean_text, _ = lean_pinned_text(root, registry)
    coq_text: Optional[str] = None
    if compile_coq:
        req = coq_requests(registry)
        report = coqcheck.query(root, req["registered"], req["instances"], req["cex_checks"],
                                req["claim_bundles"], attribute=attribute)
    else:
        report = coqcheck.CoqReport("skipped", "not requested")
    if report.status in ("compiled", "failed") and report.decls:
        findings += coq_findings(root, registry, report)
        if report.status == "compiled":
            coq_text, pin_problems = coq_pinned_text(registry, report, _file_modules(root / "proofs" / "coq"),
                                                     root / "proofs" / "coq")
            findings += pin_problems
            findings += _pinned_findings(root / pinned.COQ_FILE, coq_text, registry, "coq", "Coq")
    elif report.status == "failed":
        findings += coq_findings(root, registry, report)
    diffs = pinned_diffs(root, coq_text, lean_text)
    per_claim = {}
    for c in registry:
        mine = [f for f in findings if f.claim == c["id"]]
        axioms = report.axioms.get(c["id"], report.axioms.get("pc_bundle", []))
        per_claim[c["id"]] = {
            "coq": {"scope": scope_label(c, "coq"), "scope_note": scope_note(c, "coq"),
                    "axioms": [report.allowed_short.get(a, a) for a in axioms],
                    "axioms_attributed": c["id"] in report.axioms,
                    "instance": registry_names(c.get("coq_instance")),
                    "counterexamples": dict(c.get("coq_counterexamples") or {}),
                    "findings": [str(f) for f in mine if f.lang == "coq"]},
            "lean": {"scope": scope_label(c, "lean"), "scope_note": scope_note(c, "lean"),
                     "findings": [str(f) for f in mine if f.lang == "lean"]},
            "findings": [str(f) for f in mine],
        }
    general_coq = [str(f) for f in findings if f.claim is None and f.lang == "coq"]
    return {
        "ok": not findings,
        "findings": [str(f) for f in findings],
        "notes": notes.lines,
        "claims": per_claim,
        "pinned_diffs": diffs,
        "coq": {"status": report.status, "detail": _coq_detail(report), "general_findings": general_coq,
                "axioms": sorted({report.allowed_short.get(a, a) for a in report.axioms.get("pc_bundle", [])}),
                "cached": report.cached},
        "lean": {"status": "written, not compiled in this environment",
                 "detail": "no Lean toolchain is reachable here; names (resolved by namespace, checked "
                           "against lean/external-names.txt), binders, escape hatches and pinned statements "
                           "are checked"},
    }


def _coq_detail(report: coqcheck.CoqReport) -> str:
    if report.status != "compiled":
        return report.detail
    used = sorted({a.rsplit(".", 1)[-1] for a in report.axioms.get("pc_bundle", [])})
    measure = sorted({".".join(a.split(".")[-2:]) for a in report.axioms.get("pc_bundle", [])
                      if report.allowed_short.get(a) in coqcheck.MEASURE_AXIOMS})
    why = "the standard library's reals and its Rpower" + (
        f"; {', '.join(measure)} from the measure library, for the claims that use "
        f"proofs/coq/{coqcheck.MEASURE_INTERFACE} only" if measure else "")
    return (f"{len(report.decls)} registered declarations compiled and resolved; axioms used: "
            f"{', '.join(used) or 'none'} ({why})"
            + ("; results cached for these sources" if report.cached else ""))


# ---------------------------------------------------------------- absorb pin

def regenerate(root: Path = ROOT) -> tuple[Optional[str], str, list[str]]:
    """(Coq text or None, Lean text, problems) regenerated from the sources and the build."""
    root = Path(root).resolve()
    registry = load_registry(root)
    lean_text, missing = lean_pinned_text(root, registry)
    problems = [f"Lean declaration {m} not found" for m in missing]
    if not coq_available():
        return None, lean_text, problems + ["coqc not installed: the Coq pinned file was not regenerated"]
    req = coq_requests(registry)
    report = coqcheck.query(root, req["registered"], req["instances"], req["cex_checks"], req["claim_bundles"])
    if report.status != "compiled":
        return None, lean_text, problems + [f"Coq does not compile: {report.detail}"]
    coq_text, pin_problems = coq_pinned_text(registry, report, _file_modules(root / "proofs" / "coq"),
                                                     root / "proofs" / "coq")
    missing_coq = [n for n, _ in registry_roles(registry, "coq")
                   if n not in report.decls or not report.decls[n].display]
    problems += [str(p) for p in pin_problems] + [f"Coq declaration {n} could not be read" for n in missing_coq]
    return coq_text, lean_text, problems


def pin_main(argv: Optional[list[str]] = None) -> int:
    """`absorb pin [--dry-run]`: show the statement diffs and rewrite the pinned files."""
    ap = argparse.ArgumentParser(prog="absorb pin", description="rewrite proofs/pinned/*-statements.txt "
                                 "from the compiled development after a reviewed change")
    ap.add_argument("--dry-run", action="store_true", help="print the full diff, write nothing")
    args = ap.parse_args(argv)
    return run_pin(args)


def run_pin(args: argparse.Namespace, root: Path = ROOT) -> int:
    """Entry point of `absorb pin`."""
    coq_text, lean_text, problems = regenerate(root)
    for p in problems:
        print(f"absorb pin: {p}", file=sys.stderr)
    if coq_text is None:
        print("absorb pin: nothing written (the Coq statements could not be regenerated)", file=sys.stderr)
        return 1
    changed = False
    for rel, text in ((pinned.COQ_FILE, coq_text), (pinned.LEAN_FILE, lean_text)):
        p = root / rel
        old = p.read_text() if p.exists() else ""
        if old == text:
            print(f"{rel}: unchanged")
            continue
        changed = True
        print(pinned.diff(old, text, str(rel), max_lines=10**9 if args.dry_run else 200))
        if not args.dry_run:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
            print(f"{rel}: rewritten")
    if changed and args.dry_run:
        print("(dry run: nothing written)")
    return 0


# ---------------------------------------------------------------- test support

COPY_IGNORE = shutil.ignore_patterns("Makefile.coq", "Makefile.coq.conf", ".Makefile.coq.d", ".lake",
                                     "__pycache__", ".hypothesis", ".nra.cache", ".lia.cache", ".nia.cache",
                                     ".assumptions-cache.json")


def copy_sources(dst: Path, root: Path = ROOT, with_build: bool = True) -> Path:
    """Copy what the checks read (proofs, lean, tests) into dst, for broken-copy tests.

    With with_build the compiled .vo files come along with their timestamps, so that
    a rebuild only recompiles a file that is then modified and its dependents."""
    ignore = COPY_IGNORE if with_build else shutil.ignore_patterns(
        "*.vo", "*.vok", "*.vos", "*.glob", ".*.aux", "Makefile.coq*", ".Makefile.coq.d", ".lake",
        "__pycache__", ".hypothesis", ".nra.cache", ".lia.cache", ".assumptions-cache.json")
    dst = Path(dst)
    for sub in ("proofs", "lean", "tests"):
        shutil.copytree(Path(root) / sub, dst / sub, ignore=ignore, copy_function=shutil.copy2)
    return dst


if __name__ == "__main__":  # pragma: no cover - convenience for developers
    print(json.dumps(check_all(), indent=2))
    os._exit(0)
