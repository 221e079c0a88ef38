"""Reading the Coq sources without a compiler: comments, sentences, the commands
that assume things, and the declarations with their module paths.

Used by the static half of the proof check (it runs even where coqc is absent)
and to list the project's definitions, whose bodies go into the pinned file.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

# Declaration keywords that introduce a name (after attributes and locality words).
DEF_KEYWORDS = frozenset({
    "Definition", "Fixpoint", "CoFixpoint", "Inductive", "CoInductive", "Variant", "Record",
    "Structure", "Class", "Let", "Instance", "Function", "Canonical", "Coercion", "Example",
})
THM_KEYWORDS = frozenset({"Theorem", "Lemma", "Corollary", "Proposition", "Fact", "Remark", "Property"})
# Commands that add an assumption when used outside a section (inside a section they are
# discharged by `End` and become ordinary binders of the section's theorems).
SECTION_ASSUMPTIONS = frozenset({"Variable", "Variables", "Hypothesis", "Hypotheses", "Context"})
# Commands that always add an axiom, or that leave a proof unfinished.
ALWAYS_FORBIDDEN_COMMANDS = frozenset({
    "Axiom", "Axioms", "Parameter", "Parameters", "Conjecture", "Admitted", "Primitive", "Register",
    "Load",
})
PREFIX_WORDS = frozenset({"Local", "Global", "Export", "Polymorphic", "Monomorphic", "Program",
                          "Private", "Cumulative", "NonCumulative", "Import", "#"})
# Words and phrases refused anywhere outside comments and strings, with the reason.
FORBIDDEN_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bGuard\s+Checking\b"), "switches the termination (guard) check"),
    (re.compile(r"\bPositivity\s+Checking\b"), "switches the positivity check"),
    (re.compile(r"\bUniverse\s+Checking\b"), "switches universe checking"),
    (re.compile(r"\bbypass_check\b"), "bypasses a kernel check"),
    (re.compile(r"\b(?:admit|give_up|Admitted|Admit)\b"), "leaves a proof unfinished"),
    (re.compile(r"\bType\s*In\s*Type\b|type-in-type|impredicative-set", re.I), "weakens the logic"),
]


@dataclass(frozen=True)
class Sentence:
    """One Coq sentence (command or tactic) with its position."""

    text: str
    line: int


@dataclass
class SourceFile:
    """What the static reader found in one .v file."""

    module: str  # SkipAbsorption.<File>
    path: Path
    sentences: list[Sentence]
    declarations: dict[str, tuple[str, int]] = field(default_factory=dict)  # full name -> (keyword, line)
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)  # full name -> (first, last line)
    owners: dict[str, str] = field(default_factory=dict)  # constructor/field full name -> inductive full name
    problems: list[tuple[int, str]] = field(default_factory=list)  # (line, reason)


def blank_comments_and_strings(src: str, opener: str, closer: str, line_comment: str = "",
                               backslash_escapes: bool = False) -> str:
    """Blank out nested block comments (opener ... closer), line comments (line_comment to the end
    of the line, when given) and string literals, keeping every newline in place.  Inside a
    string a doubled quote is an escaped quote (Coq), or with backslash_escapes any character
    after a backslash is escaped (Lean)."""
    out: list[str] = []
    depth, i, n = 0, 0, len(src)
    in_string = False
    while i < n:
        c = src[i]
        if in_string:
            if backslash_escapes and c == "\\" and i + 1 < n:
                out.append("  ")
                i += 2
                continue
            if c == '"':
                if not backslash_escapes and src.startswith('""', i):  # an escaped quote inside a string
                    out.append("  ")
                    i += 2
                    continue
                in_string = False
            out.append("\n" if c == "\n" else " ")
            i += 1
        elif src.startswith(opener, i):
            depth += 1
            out.append(" " * len(opener))
            i += len(opener)
        elif depth and src.startswith(closer, i):
            depth -= 1
            out.append(" " * len(closer))
            i += len(closer)
        elif depth:
            out.append("\n" if c == "\n" else " ")
            i += 1
        elif line_comment and src.startswith(line_comment, i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == '"':
            in_string = True
            out.append(" ")
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_comments_and_strings(src: str) -> str:
    """Coq source with its (nested) comments and string literals blanked, newlines in place."""
    return blank_comments_and_strings(src, "(*", "*)")


def sentences(src: str) -> list[Sentence]:
    """Split comment-free source into sentences: a '.' followed by whitespace or the end."""
    out, start = [], 0
    for m in re.finditer(r"\.(?=\s|$)", src):
        text = src[start:m.start()]
        if text.strip():
            lead = len(text) - len(text.lstrip())
            out.append(Sentence(text.strip(), src.count("\n", 0, start + lead) + 1))
        start = m.end()
    tail = src[start:]
    if tail.strip():
        out.append(Sentence(tail.strip(), src.count("\n", 0, start) + 1))
    return out


def _command_words(text: str) -> list[str]:
    """The words of a sentence after bullets, braces, attributes and locality prefixes."""
    t = re.sub(r"^[\s\-+*{}]*", "", text)
    t = re.sub(r"#\[[^\]]*\]", " ", t)
    words = t.split()
    while words and words[0] in PREFIX_WORDS:
        words = words[1:]
    return words


def read_file(path: Path, module: str) -> SourceFile:
    """Sentences, declarations (with module paths) and assumption problems of one file."""
    t = _parse(path.read_text(), module)
    return SourceFile(module, path, list(t.sentences), dict(t.declarations), dict(t.spans), dict(t.owners),
                      list(t.problems))


@functools.lru_cache(maxsize=256)
def _parse(text: str, module: str) -> SourceFile:
    """read_file's work on the text alone, remembered by text: one proof check reads every file
    several times, and copies of the tree differ from it in one file at most."""
    clean = strip_comments_and_strings(text)
    sf = SourceFile(module, Path(), sentences(clean))
    for pat, why in FORBIDDEN_PATTERNS:  # on the whole text: a phrase may be split across lines
        for m in pat.finditer(clean):
            sf.problems.append((clean.count("\n", 0, m.start()) + 1, f"'{' '.join(m.group(0).split())}' {why}"))
    stack: list[tuple[str, str]] = []  # ("section" | "module", name)
    open_decl: str | None = None  # a theorem whose proof has not ended yet
    for s in sf.sentences:
        end_line = s.line + s.text.count("\n")
        words = _command_words(s.text)
        if not words:
            continue
        head = words[0]
        if open_decl is not None:
            first, _ = sf.spans[open_decl]
            sf.spans[open_decl] = (first, end_line)
            if head in ("Qed", "Defined", "Admitted", "Abort", "Save"):
                open_decl = None
        path_prefix = ".".join([module] + [name for kind, name in stack if kind == "module"])
        if head in ("Section",) and len(words) > 1:
            stack.append(("section", words[1]))
        elif head in ("Module",) and len(words) > 1:
            rest = [w for w in words[1:] if w not in ("Import", "Export", "Type")]
            if rest and ":=" not in s.text:
                stack.append(("module", rest[0]))
        elif head == "End" and len(words) > 1:
            if stack and stack[-1][1] == words[1]:
                stack.pop()
            else:
                sf.problems.append((s.line, f"'End {words[1]}' does not close the innermost section/module"))
        elif head in SECTION_ASSUMPTIONS:
            if not stack or stack[-1][0] != "section":
                sf.problems.append((s.line, f"'{head}' outside a section adds an axiom"))
        elif head == "Declare" and len(words) > 1 and words[1] == "ML":
            sf.problems.append((s.line, "'Declare ML Module' loads a plugin, which can change the logic"))
        elif head in ALWAYS_FORBIDDEN_COMMANDS:
            what = " ".join(words[:2]).split(":")[0].strip()
            sf.problems.append((s.line, f"'{what}' adds an assumption or loads code"))
        elif head in DEF_KEYWORDS | THM_KEYWORDS and len(words) > 1:
            name = re.match(r"[A-Za-z_][\w']*", words[1])
            if name:
                full = f"{path_prefix}.{name.group(0)}"
                sf.declarations.setdefault(full, (head, s.line))
                sf.spans.setdefault(full, (s.line, end_line))
                if ":=" not in s.text:
                    open_decl = full
                if head in ("Inductive", "CoInductive", "Variant", "Record", "Structure", "Class"):
                    for sub in _constructors_and_fields(s.text):
                        sf.owners[f"{path_prefix}.{sub}"] = full
                    for extra in re.findall(r"\bwith\s+([A-Za-z_][\w']*)", s.text):
                        sf.declarations.setdefault(f"{path_prefix}.{extra}", (head, s.line))
    for kind, name in stack:
        sf.problems.append((len(clean.splitlines()), f"{kind} {name} is never closed"))
    return sf


def _constructors_and_fields(text: str) -> Iterator[str]:
    """Constructor names (after ':=' or '|') and record field names (inside braces)."""
    body = text.split(":=", 1)[1] if ":=" in text else ""
    for m in re.finditer(r"(?:^|\|)\s*([A-Za-z_][\w']*)", body):
        yield m.group(1)
    for m in re.finditer(r"[{;]\s*([A-Za-z_][\w']*)\s*:", body):
        yield m.group(1)
    m = re.match(r"\s*([A-Za-z_][\w']*)\s*\{", body)
    if m:  # Record r := Build_r { ... }: the constructor name
        yield m.group(1)


def project_files(coqdir: Path) -> list[str]:
    """The .v files listed in _CoqProject, in order."""
    proj = coqdir / "_CoqProject"
    if not proj.exists():
        return []
    return [ln.strip() for ln in proj.read_text().splitlines()
            if ln.strip().endswith(".v") and not ln.strip().startswith("#")]


def read_project(coqdir: Path, logical: str = "SkipAbsorption") -> list[SourceFile]:
    """Every file of _CoqProject that exists, read statically."""
    out = []
    for name in project_files(coqdir):
        p = coqdir / name
        if p.exists():
            out.append(read_file(p, f"{logical}.{Path(name).stem}"))
    return out
