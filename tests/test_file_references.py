"""User-facing text cites only files that are in the repository.

Scanned: every string literal and docstring of oracle/**/*.py (what `absorb` prints and what
`help()` shows), README.md, docs/*.md and proofs/informal/*.md.  A file-like reference is a word
ending in .md, .py, .v, .toml or .json, with or without folders.  A reference with folders must
exist from the repository's root (a Markdown file may also name a path beside itself, as its links
do); a bare file name must be the name of some file of the repository.  So `SPEC.md`, `DESIGN.md`
and `core/io.py` (for oracle/core/io.py) are refused.

The two design documents the project was started from (the mathematics and the layout of `absorb`)
are not part of the repository either, so naming them at all, even without the `.md` ("SPEC's
recipe", "as DESIGN says"), is refused too: DOCUMENT_NAME below, with no exception.

Allowed without being in the repository: the files a user writes with an example in the same
text (`> out.json`, `--report r.md`, `--emit p.npz`, ...) and the short list ALLOWED below, each
with its reason.
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

REFERENCE = re.compile(r"(?<![\w./*<>-])((?:[\w.-]+/)*[\w-][\w.-]*\.(?:md|py|v|toml|json))(?![\w/])")
# a file an example command in the same text writes: redirected output or an output option
WRITTEN = re.compile(r"(?:>|--report|--emit|--out|--json-out)\s+`?([\w./-]+)")

# a bare mention of a document a user does not have: "SPEC", "SPEC's", "the SPEC sketch", "DESIGN"
DOCUMENT_NAME = re.compile(r"\b(?:SPEC|DESIGN)\b")

ALLOWED = {
    # placeholders in command synopses: the user's own documents
    "CERT.json": "absorb recheck CERT.json: the user's certificate document",
    "FILE.json": "--scan FILE.json: the user's scan document",
    "W.json": "absorb recheck W.json R.npz P.npz: the user's witness document",
    "SWEEP.json": "absorb recheck SWEEP.json: the user's sweep document",
    "SCAN.json": "absorb recheck SCAN.json CHECKPOINT: the user's scan document",
    "AUDIT.json": "absorb recheck AUDIT.json: the user's audit document (oracle/commands/recheck.py)",
    "audit.json": "README.md: absorb recheck audit.json, the document the user's absorb audit --json wrote",
    # files of the user's checkpoint, read beside its weights
    "config.json": "a Hugging Face checkpoint's configuration, next to its weights",
    "tokenizer.json": "a Hugging Face checkpoint's tokenizer, next to its weights (scan --tokenizer FILE)",
    "model.safetensors.index.json": "a sharded Hugging Face checkpoint's index of its weight files, next to them",
    # written at run time into a temporary folder, never part of the repository
    "ProofCheckQuery.v": "the query file oracle/formal/coqcheck.py writes into a temporary folder",
    # an example of a document the user changed by hand (docs/scan-formats.md)
    "bad.json": "docs/scan-formats.md: the sweep document with one weight changed by hand, to show a refusal",
    "forged.json": "docs/scan-formats.md: a scan document with one stated field changed by hand, to show a refusal",
}


def repository_files() -> set[str]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return set(out.split())


def python_texts(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string literal and docstring of a Python file (f-strings: their
    literal parts)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append((node.lineno, node.value))
        elif isinstance(node, ast.JoinedStr):
            out.append((node.lineno, "".join(v.value for v in node.values
                                             if isinstance(v, ast.Constant) and isinstance(v.value, str))))
    return out


def unknown_references(where: Path, text: str, files: set[str], markdown: bool) -> list[str]:
    """The file-like references of ``text`` (found in ``where``) that name no file of the repository."""
    names = {Path(f).name for f in files}
    written = {Path(w).name for w in WRITTEN.findall(text)}
    bad = []
    for ref in REFERENCE.findall(text):
        name = Path(ref).name
        if ref in ALLOWED or name in written:
            continue
        if "/" in ref:
            found = ref.rstrip("/") in files or (ROOT / ref).is_dir()
            if markdown and not found:
                beside = (where.parent / ref).resolve()
                found = beside.is_relative_to(ROOT) and beside.relative_to(ROOT).as_posix() in files
        else:
            found = name in names
        if not found:
            bad.append(ref)
    return bad


def user_facing_texts() -> list[tuple[Path, int, str, bool]]:
    texts = []
    for path in sorted((ROOT / "oracle").rglob("*.py")):
        texts += [(path, line, s, False) for line, s in python_texts(path)]
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
                 *sorted((ROOT / "proofs" / "informal").glob("*.md"))]:
        texts.append((path, 1, path.read_text(), True))
    return texts


def test_user_facing_text_cites_only_files_of_the_repository():
    files = repository_files()
    texts = user_facing_texts()
    assert len(texts) > 1000 and sum(1 for t in texts if t[3]) >= 20  # the scan sees the whole package
    offenders = []
    seen = 0
    for path, line, text, markdown in texts:
        seen += len(REFERENCE.findall(text))
        for ref in unknown_references(path, text, files, markdown):
            at = line + (text[:text.index(ref)].count("\n") if markdown else 0)
            offenders.append(f"{path.relative_to(ROOT)}:{at}: {ref}")
    assert seen > 200, seen  # references are found at all
    assert offenders == [], "\n".join(offenders)


def test_the_reference_check_refuses_missing_files():
    files = repository_files()
    here = ROOT / "oracle" / "decide" / "block.py"
    assert unknown_references(here, "(SPEC.md: a width-4 biased relu2 block equals x for d = 1)",
                              files, False) == ["SPEC.md"]
    assert unknown_references(here, "as in DESIGN.md", files, False) == ["DESIGN.md"]
    # a path inside the package must be written from the repository's root
    assert unknown_references(here, "see core/io.py", files, False) == ["core/io.py"]
    assert unknown_references(here, "see oracle/core/io.py", files, False) == []
    assert unknown_references(here, "proofs/claims.toml and claims.toml", files, False) == []
    # a Markdown file may name a file beside itself; a Python string may not
    doc = ROOT / "proofs" / "informal" / "relu-limit.md"
    assert unknown_references(doc, "see relu-gelu-iff.md and ../claims.toml", files, True) == []
    assert unknown_references(here, "see ../claims.toml", files, False) == ["../claims.toml"]
    # what an example writes may be named afterwards, nothing else
    text = "$ absorb check a.npz --json > cert.json\n$ absorb recheck cert.json\n$ absorb recheck other.json"
    assert unknown_references(doc, text, files, True) == ["other.json"]
    for name, reason in ALLOWED.items():
        assert name not in {Path(f).name for f in files} and len(reason) > 20, name


def test_user_facing_text_names_no_document_outside_the_repository():
    texts = user_facing_texts()
    assert len(texts) > 1000 and sum(1 for t in texts if t[3]) >= 20  # the scan sees the whole package
    offenders = []
    for path, line, text, markdown in texts:
        for hit in DOCUMENT_NAME.finditer(text):
            at = line + (text[:hit.start()].count("\n") if markdown else 0)
            offenders.append(f"{path.relative_to(ROOT)}:{at}: {text[max(0, hit.start() - 30):hit.end() + 30]!r}")
    assert offenders == [], "\n".join(offenders)


def test_the_document_name_check_finds_bare_mentions():
    for text in ["SPEC's statement is correct", "SPEC gives the constant", "where the SPEC sketch leaves",
                 "as DESIGN says", "(SPEC.md: a width-4 block)", "see DESIGN.md", "SPEC, section 3"]:
        assert DOCUMENT_NAME.search(text), text
    # other words that contain the letters are not document names
    for text in ["the SPECIAL case", "a SPECTRAL bound", "DESIGNED for", "ABSORB_SPEC_PATH",
                 "spec", "the design of the package", "specification"]:
        assert DOCUMENT_NAME.search(text) is None, text
