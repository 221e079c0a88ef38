"""The Lean mirror cannot be compiled here; this reads its sources as carefully as a
static reader can.

* Declarations are resolved by their full name (namespace path + name), and a name
  declared twice is refused instead of taking the first textual match.
* Escape hatches are refused anywhere outside comments and strings: ``sorry``,
  ``sorryAx``, ``axiom``, ``admit``, ``unsafe``, ``implemented_by``, ``@[extern]``,
  ``native_decide``, ``debug.skipKernelTC``, ``opaque`` and meta-programming commands
  that could redefine what a declaration means.
* Every identifier is either bound locally, declared in ``lean/``, a Lean keyword or
  tactic, or listed in ``lean/external-names.txt`` -- the reviewed list of Mathlib and
  core names (each with where it was checked).  An undefined or misspelt name is
  therefore caught even though Lean never runs here.
* Statements are normalised (comments removed, whitespace collapsed, one binder group
  per line) for the pinned file, with the ``variable`` lines in scope and the
  bodies of the project definitions they mention.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from oracle.formal.coqsource import blank_comments_and_strings

FORBIDDEN: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bsorry(?:Ax)?\b"), "leaves a proof unfinished"),
    (re.compile(r"\badmit\b"), "leaves a proof unfinished"),
    (re.compile(r"\baxiom\b"), "adds an axiom"),
    (re.compile(r"\bunsafe\b"), "escapes the kernel"),
    (re.compile(r"\bimplemented_by\b"), "replaces a definition's code"),
    (re.compile(r"\bextern\b"), "replaces a definition's code"),
    (re.compile(r"\bnative_decide\b|\bofReduceBool\b|\btrustCompiler\b"), "trusts the compiler"),
    (re.compile(r"\bskipKernelTC\b|\bdebug\.\w+"), "switches a kernel check"),
    (re.compile(r"\bopaque\b"), "declares an opaque constant (an assumption in disguise)"),
    (re.compile(r"^\s*(?:macro|macro_rules|syntax|elab|elab_rules|notation|infix[lr]?|prefix|postfix|"
                r"initialize|builtin_initialize|run_cmd|run_elab|run_meta)\b", re.M),
     "meta-programming could change what the sources mean"),
    (re.compile(r"#eval\b|#exit\b"), "runs code or stops checking"),
    (re.compile(r"\bpartial\s+def\b"), "declares an opaque partial function"),
]
DECL_RE = re.compile(
    r"^(?P<mods>(?:@\[[^\]]*\]\s*)*(?:(?:private|protected|noncomputable|nonrec)\s+)*)"
    r"(?P<kw>theorem|lemma|def|abbrev|instance|structure|inductive|class|example)\s+(?P<name>[^\s:({\[⦃]+)?",
    re.M)
COMMAND_START = re.compile(
    r"^(?:@\[|private\b|protected\b|noncomputable\b|theorem\b|lemma\b|def\b|abbrev\b|instance\b|"
    r"structure\b|inductive\b|class\b|example\b|namespace\b|end\b|section\b|variable\b|open\b|"
    r"import\b|universe\b|set_option\b|attribute\b|/--|#)", re.M)
KEYWORDS = frozenset("""
theorem lemma def abbrev instance structure inductive class example namespace end section variable
open import universe set_option attribute noncomputable private protected where deriving extends
by fun λ have show from let in at with if then else match do return calc this using only
intro intros rintro obtain rcases cases induction exact exacts apply refine refine' rw rwa rewrite
simp simpa simp_all dsimp norm_num ring ring_nf linarith nlinarith positivity field_simp
linear_combination constructor use exists first try repeat all_goals any_goals unfold change
specialize exfalso contradiction trivial rfl assumption omega decide aesop gcongr push_neg
by_contra by_cases congr ext funext done skip sorry left right split next case symm trans
subst clear revert generalize set filter_upwards convert zero succ Type Prop Sort fun_prop
continuity measurability nlinarith! norm_cast push_cast exact_mod_cast gcongr? infer_instance
mod_cast tauto absurd split_ifs choose
""".split())
# Notation pieces the identifier pattern would otherwise read as names: the superscript f of
# the filter notations `=ᶠ[l]`, `∀ᶠ x in l`, `∃ᶠ x in l`.
NOTATION_PIECES = frozenset({"ᶠ"})


@dataclass
class LeanDecl:
    """One declaration of the Lean sources."""

    full: str
    kind: str
    path: Path
    line: int
    text: str  # from the keyword to the end of the declaration (comments removed)
    signature: str  # up to the top-level ':=' (or the whole text)
    variables: list[str] = field(default_factory=list)  # variable lines in scope


@dataclass
class LeanSources:
    """Everything the static reader found in lean/."""

    decls: dict[str, LeanDecl] = field(default_factory=dict)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (where, reason)
    unknown_names: list[tuple[str, str]] = field(default_factory=list)  # (where, name)


def strip_comments(src: str) -> str:
    """Lean source with its nested block comments, line comments and string literals blanked,
    newlines in place."""
    return blank_comments_and_strings(src, "/-", "-/", line_comment="--", backslash_escapes=True)


def _split_top(sig: str, sep: str) -> Optional[int]:
    """Index of the first `sep` at bracket depth 0, or None."""
    depth = 0
    i = 0
    while i < len(sig):
        c = sig[i]
        if c in "([{⦃⟨":
            depth += 1
        elif c in ")]}⦄⟩":
            depth -= 1
        elif depth == 0 and sig.startswith(sep, i):
            if sep == ":" and sig.startswith(":=", i):
                i += 2
                continue
            return i
        i += 1
    return None


def binder_groups(signature: str) -> list[tuple[str, list[str], str]]:
    """(bracket, names, type) of each top-level binder group before the statement's ':'."""
    head = signature
    colon = _split_top(signature, ":")
    if colon is not None:
        head = signature[:colon]
    groups = []
    depth, start, opener = 0, None, ""
    for i, c in enumerate(head):
        if c in "([{⦃":
            if depth == 0:
                start, opener = i, c
            depth += 1
        elif c in ")]}⦄":
            depth -= 1
            if depth == 0 and start is not None:
                inner = head[start + 1:i]
                k = _split_top(inner, ":")
                names = inner[:k].split() if k is not None else inner.split()
                typ = inner[k + 1:].strip() if k is not None else ""
                groups.append((opener, names, " ".join(typ.split())))
                start = None
    return groups


def statement_type(signature: str) -> str:
    """The part after the top-level ':' (the proposition of a theorem)."""
    k = _split_top(signature, ":")
    return " ".join(signature[k + 1:].split()) if k is not None else ""


def read_sources(lean_dir: Path, external: set[str]) -> LeanSources:
    """Parse every .lean file under lean_dir (without .lake)."""
    out = LeanSources()
    files = sorted(p for p in lean_dir.rglob("*.lean") if ".lake" not in p.parts
                   and p.name != "lakefile.lean")
    texts = {p: strip_comments(p.read_text()) for p in files}
    for p, clean in texts.items():
        rel = p.relative_to(lean_dir.parent)
        for pat, why in FORBIDDEN:
            for m in pat.finditer(clean):
                ln = clean.count("\n", 0, m.start()) + 1
                out.problems.append((f"{rel}:{ln}", f"'{m.group(0).strip()}' {why}"))
        _read_decls(p, rel, clean, out)
    _check_names(texts, lean_dir, out, external)
    return out


def _read_decls(p: Path, rel: Path, clean: str, out: LeanSources) -> None:
    starts = [m.start() for m in COMMAND_START.finditer(clean)] + [len(clean)]
    ns: list[str] = []
    scopes: list[tuple[str, str]] = []  # ("namespace"|"section", name)
    variables: list[tuple[int, str]] = []  # (scope depth, text)
    for a, b in zip(starts, starts[1:]):
        chunk = clean[a:b]
        line = clean.count("\n", 0, a) + 1
        words = chunk.split()
        if not words:
            continue
        if words[0] == "namespace" and len(words) > 1:
            ns += words[1].split(".")
            scopes.append(("namespace", words[1]))
            continue
        if words[0] == "section":
            scopes.append(("section", words[1] if len(words) > 1 else ""))
            continue
        if words[0] == "end":
            name = words[1] if len(words) > 1 and not COMMAND_START.match(words[1]) else ""
            if scopes:
                kind, sname = scopes.pop()
                if kind == "namespace":
                    del ns[len(ns) - len(sname.split(".")):]
                variables = [(d, t) for d, t in variables if d <= len(scopes)]
            else:
                out.problems.append((f"{rel}:{line}", f"'end {name}' closes nothing"))
            continue
        if words[0] == "variable":
            variables.append((len(scopes), " ".join(chunk.split())))
            continue
        m = DECL_RE.match(chunk)
        if not m:
            continue
        kind, name = m.group("kw"), m.group("name")
        if kind == "example" or not name:
            continue
        full = ".".join(ns + [name])
        text = chunk[m.start("kw"):].rstrip()
        k = _split_top(text, ":=")
        sig = text[:k] if k is not None else text.split(" where", 1)[0]
        if full in out.decls:
            out.problems.append((f"{rel}:{line}", f"{full} is declared twice "
                                 f"(also {out.decls[full].path.name}:{out.decls[full].line})"))
            continue
        out.decls[full] = LeanDecl(full, kind, p, line, " ".join(text.split()), " ".join(sig.split()),
                                   [t for _, t in variables])


IDENT = re.compile(r"(?<![\w.'?])([A-Za-z_\u0370-\u03ff\u1d00-\u1dbf\u2100-\u214f][\w'₀-₉!?.]*)")
BINDING = [
    re.compile(r"[\(\{\[⦃]\s*([^:()\[\]{}⦃⦄]+?)\s*:(?!=)"),  # binder groups
    re.compile(r"\b(?:fun|λ)\s+([^=↦]+?)\s*(?:=>|↦)"),
    re.compile(r"[∀∃∑∏]\s*([^,:]+?)\s*[,:]"),
    re.compile(r"\b(?:intro|intros|rintro)\s+([^\n;]+)"),
    re.compile(r"\b(?:obtain|rcases|cases|induction)\b[^\n]*?(?:⟨([^⟩]*)⟩|\bwith\b([^\n]*))"),
    re.compile(r"\b(?:have|let|set|obtain|by_contra!?|by_cases|rename_i)\s+([A-Za-z_\u0370-\u03ff][\w'₀-₉]*)"),
    re.compile(r"\|\s*([^=\n]+?)\s*=>"),
    re.compile(r"⟨([^⟩]*)⟩"),
    re.compile(r"\bchoose!?\s+([^\n]+?)\s+using\b"),  # choose f hf using h: names f and hf
]
# A named argument `(μ := e)` names a parameter of the function applied, not a new identifier.
NAMED_ARGUMENT = re.compile(r"\(\s*([A-Za-z_\u0370-\u03ff][\w'₀-₉]*)\s*:=")


def _check_names(texts: dict[Path, str], lean_dir: Path, out: LeanSources, external: set[str]) -> None:
    locals_: set[str] = set()
    for clean in texts.values():
        for pat in BINDING:
            for m in pat.finditer(clean):
                for g in m.groups():
                    # A type ascription (e : T) looks like a binder group; a dotted or
                    # non-identifier word shows it is not one.
                    if g and not re.search(r"\.|(?<![\w'])\d|[^\w\s'₀-₉,|⟨⟩_\u0370-\u03ff-]", g):
                        locals_.update(re.findall(r"[A-Za-z_\u0370-\u03ff][\w'₀-₉]*", g))
    project: set[str] = set()
    for full in out.decls:
        parts = full.split(".")
        for k in range(len(parts)):
            project.add(".".join(parts[k:]))
    namespaces = {p for full in out.decls for p in full.split(".")[:-1]}
    seen: set[str] = set()
    for p, clean in texts.items():
        rel = p.relative_to(lean_dir.parent)
        named_args = {m.start(1) for m in NAMED_ARGUMENT.finditer(clean)}
        for m in IDENT.finditer(clean):
            tok = m.group(1).rstrip(".")
            first = tok.split(".")[0]
            if m.start(1) in named_args or tok in NOTATION_PIECES:
                continue
            if tok in KEYWORDS or first in KEYWORDS or first in locals_ or tok in project:
                continue
            if first in namespaces or _known(tok, external | project):
                continue
            if tok not in seen:
                seen.add(tok)
                ln = clean.count("\n", 0, m.start()) + 1
                out.unknown_names.append((f"{rel}:{ln}", tok))


def _known(tok: str, names: set[str]) -> bool:
    """Is tok a known name, or a field access (.mp, .symm, ...) on one?  A capitalised
    namespace alone (Real, Finset) never vouches for an unknown name inside it."""
    parts = tok.split(".")
    for k in range(len(parts), 0, -1):
        if k == 1 and len(parts) > 1 and parts[0][:1].isupper():
            return False
        if ".".join(parts[:k]) in names:
            return True
    return False


def read_external(path: Path) -> set[str]:
    """Names of the reviewed external-name list (first word of each non-comment line)."""
    if not path.exists():
        return set()
    return {ln.split()[0] for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("#")}


def mentioned_defs(text: str, decls: dict[str, LeanDecl], namespace: str) -> list[str]:
    """Project definitions named in text (short or full), in first-use order."""
    found: list[tuple[int, str]] = []
    for full, d in decls.items():
        if d.kind not in ("def", "abbrev", "structure", "inductive", "class", "instance"):
            continue
        short = full[len(namespace) + 1:] if full.startswith(namespace + ".") else full
        for cand in {full, short}:
            m = re.search(rf"(?<![\w.']){re.escape(cand)}(?![\w'])", text)
            if m:
                found.append((m.start(), full))
                break
    return [f for _, f in sorted(found)]


def def_closure(decl: LeanDecl, decls: dict[str, LeanDecl]) -> list[str]:
    """Project definitions the statement mentions, transitively through their bodies."""
    ns = decl.full.rsplit(".", 1)[0] if "." in decl.full else ""
    seen: list[str] = []
    todo = [decl.signature]
    while todo:
        t = todo.pop(0)
        for f in mentioned_defs(t, decls, ns):
            if f not in seen and f != decl.full:
                seen.append(f)
                todo.append(decls[f].text)
    return seen


def pretty_signature(sig: str) -> str:
    """One binder group per line, then the statement after ':'."""
    head = sig
    colon = _split_top(sig, ":")
    typ = ""
    if colon is not None:
        head, typ = sig[:colon], sig[colon + 1:]
    parts, depth, cur = [], 0, ""
    for c in head:
        if c in "([{⦃" and depth == 0 and cur.strip():
            parts.append(cur.strip())
            cur = ""
        if c in "([{⦃":
            depth += 1
        elif c in ")]}⦄":
            depth -= 1
        cur += c
    if cur.strip():
        parts.append(cur.strip())
    lines = [parts[0]] + ["    " + x for x in parts[1:]] if parts else []
    if typ.strip():
        lines.append("    : " + " ".join(typ.split()))
    return "\n".join(lines)
