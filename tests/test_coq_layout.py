"""The layout of the Coq development (docs/architecture.md, "Coq layout"): every name is
declared in one file only, and the generic finite-sum and dot-product lemmas live in Linalg.v.

A name declared in two files means different things depending on which file a proof imports
last; these tests read the sources (comments and strings removed) and need no compiler.
"""

from collections import defaultdict
from pathlib import Path

from oracle.formal import coqsource
from oracle.formal import consistency as C

COQ = C.ROOT / "proofs" / "coq"

# Commands that name a tactic (coqsource does not list them: they are no kernel declarations).
TACTIC_KEYWORDS = ("Ltac", "Ltac2")

# Lemmas named sum*/dot* that stay outside Linalg.v, each because it is about a definition of its
# own file (or needs a library Linalg.v does not load).  A new generic one belongs in Linalg.v.
SUM_DOT_OUTSIDE_LINALG = {
    "Limit.sum_lim": "a limit at +oo (Coquelicot, which Linalg.v does not load)",
    "AffineKink.sum_fam": "about AffineKink's family (stack, vstack, fam_coef)",
    "Rank.sum_append": "about Rank.append",
    "ReluCompleteNec.sum_enum": "about ReluClasses.count",
}


def declared_names(coqdir: Path) -> dict[str, set[str]]:
    """name inside its file (module path below SkipAbsorption.<File>) -> the .v files declaring it.

    Counts definitions, theorems, inductive types with their constructors and record fields
    (as oracle/formal/coqsource.py reads them), and Ltac/Ltac2 tactics."""
    out: dict[str, set[str]] = defaultdict(set)
    for path in sorted(coqdir.glob("*.v")):
        module = f"SkipAbsorption.{path.stem}"
        sf = coqsource.read_file(path, module)
        for full in list(sf.declarations) + list(sf.owners):
            out[full[len(module) + 1:]].add(path.name)
        for s in sf.sentences:
            words = coqsource._command_words(s.text)
            if len(words) > 1 and words[0] in TACTIC_KEYWORDS:
                out[f"{words[0]} {words[1]}"].add(path.name)
    return out


def declared_in_two_files(coqdir: Path) -> dict[str, list[str]]:
    return {n: sorted(fs) for n, fs in declared_names(coqdir).items() if len(fs) > 1}


def test_no_name_is_declared_in_two_files():
    names = declared_names(COQ)
    assert len(names) > 500  # the reader sees the development, not an empty folder
    assert declared_in_two_files(COQ) == {}


def test_a_name_declared_twice_is_reported(tmp_path):
    (tmp_path / "A.v").write_text(
        "(* Lemma hidden : True. *)\nDefinition dot (d : nat) : nat := d.\n"
        "Lemma finite_choice : True. Proof. exact I. Qed.\nLtac tidy := idtac.\n"
        "Inductive t := K | L.\n")
    (tmp_path / "B.v").write_text(
        'Lemma hidden : True. Proof. exact I. Qed.\nDefinition s := "Lemma dot".\n'
        "Fixpoint dot (n : nat) : nat := n.\nCorollary finite_choice : True. Proof. exact I. Qed.\n"
        "Ltac tidy := auto.\nRecord r := { L : nat }.\n")
    assert declared_in_two_files(tmp_path) == {
        "dot": ["A.v", "B.v"], "finite_choice": ["A.v", "B.v"], "Ltac tidy": ["A.v", "B.v"],
        "L": ["A.v", "B.v"]}


def test_generic_sum_and_dot_lemmas_live_in_linalg():
    names = declared_names(COQ)
    outside = {f"{Path(f).stem}.{n}" for n, files in names.items()
               if n.split(".")[-1].startswith(("sum", "dot")) for f in files if f != "Linalg.v"}
    assert outside == set(SUM_DOT_OUTSIDE_LINALG)
    for name in ("sum", "sum_const", "sum_nonzero_term", "sum_select_one", "sum_reindex", "finite_choice",
                 "dot", "dot_self_zero", "dot_sum", "transpose_mv", "mv_mv"):
        assert names[name] == {"Linalg.v"}, name


def project_imports(coqdir: Path) -> dict[str, list[str]]:
    """.v file -> the development's modules it Requires (From SkipAbsorption Require ...)."""
    out = {}
    for name in coqsource.project_files(coqdir):
        text = coqsource.strip_comments_and_strings((coqdir / name).read_text())
        mods: list[str] = []
        for s in coqsource.sentences(text):
            words = s.text.split()
            if words[:3] == ["From", "SkipAbsorption", "Require"]:
                mods += [w for w in words[3:] if w not in ("Import", "Export")]
        out[name] = mods
    return out


def test_project_order_is_the_import_order():
    order = [Path(n).stem for n in coqsource.project_files(COQ)]
    assert order[0] == "Linalg" and len(order) == len(set(order)) == len(list(COQ.glob("*.v")))
    imports = project_imports(COQ)
    for name, mods in imports.items():
        here = order.index(Path(name).stem)
        if here and name != "RealActivations.v":  # the activations alone, on Coquelicot
            assert "Linalg" in mods, name
        for mod in mods:
            assert mod in order and order.index(mod) < here, (name, mod)
