"""relu-gelu-iff, relu half: the Coq necessity proof (proofs/coq/Necessity.v) is registered,
states what the claim needs, and the build rejects broken copies.

Broken copies live in temporary directories (oracle.consistency.copy_sources); the real
sources are never touched.  Each compiling test builds the whole development once (~15 s).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from oracle import consistency as C

CLAIM = "relu-gelu-iff"
NEC = "SkipAbsorption.Necessity"
REGISTERED = [f"{NEC}.relu_iff", f"{NEC}.relu_necessity", f"{NEC}.relu_necessity_structure"]
INSTANCES = [f"{NEC}.relu_not_absorbable_instance", f"{NEC}.relu_absorbable_instance",
             f"{NEC}.relu_absorbable_instance_explicit"]


def claim(root: Path = C.ROOT) -> dict:
    return next(c for c in C.load_registry(root) if c["id"] == CLAIM)


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_necessity_theorems_are_registered():
    c = claim()
    assert c["coq"][:3] == REGISTERED  # relu_iff is the main statement
    assert "SkipAbsorption.SignFlip.sign_flip_absorbs" in c["coq"]
    assert "SkipAbsorption.Activations.relu_sign_flip" in c["coq"]
    assert c["coq_instance"] == f"{NEC}.relu_not_absorbable_instance"
    assert c["formal_hypotheses"] == ["nondegenerate"]
    assert set(c["formal_not_needed"]) == {"d_ge_2", "M_invertible"}
    assert all(len(r) > 40 for r in c["formal_not_needed"].values())
    assert c["formal_scope"].startswith("relu: full")
    # gelu necessity comes from the limit theorem (Limit.gelu_iff, branch analysis)
    assert "Limit.gelu_iff" in c["formal_scope"]
    assert "SkipAbsorption.Limit.gelu_iff" in c["coq"]


def test_relu_necessity_statement_has_the_expected_binders():
    stmt = C.coq_statement(C.ROOT, f"{NEC}.relu_necessity")
    assert stmt is not None
    assert C.binder_names(stmt) >= {"d", "m", "M", "Wd", "Wu", "Wd'", "Wu'", "nondegenerate", "absorbed"}
    flat = squash(stmt)
    assert "(nondegenerate : nondegenerate_block d m Wd Wu)" in flat
    assert ("(absorbed : forall x i, (i < d)%nat -> mv d M x i + block d m relu Wd Wu x i "
            "= block d m relu Wd' Wu' x i)") in flat
    assert flat.endswith("exists S : nat -> bool, index_condition_holds d m S M Wd Wu. Proof")
    # No hypothesis on d or M sneaked in.
    assert "d >=" not in flat and "invertible" not in flat and "(2 <=" not in flat


def test_interface_definitions_are_the_agreed_ones():
    src = squash(C.strip_coq_comments((C.ROOT / "proofs/coq/Necessity.v").read_text()))
    for d in (
        "Definition rows_nonzero (d m : nat) (Wu : mat) : Prop := forall l, (l < m)%nat -> "
        "exists j, (j < d)%nat /\\ Wu l j <> 0.",
        "Definition rows_noncollinear (d m : nat) (Wu : mat) : Prop := forall l l', (l < m)%nat -> "
        "(l' < m)%nat -> l <> l' -> ~ (exists c, forall j, (j < d)%nat -> Wu l' j = c * Wu l j).",
        "Definition cols_nonzero (d m : nat) (Wd : mat) : Prop := forall l, (l < m)%nat -> "
        "exists i, (i < d)%nat /\\ Wd i l <> 0.",
        "Definition nondegenerate_block (d m : nat) (Wd Wu : mat) : Prop := rows_nonzero d m Wu /\\ "
        "rows_noncollinear d m Wu /\\ cols_nonzero d m Wd.",
        "Definition index_condition_holds (d m : nat) (S : nat -> bool) (M Wd Wu : mat) : Prop := "
        "forall i j, (i < d)%nat -> (j < d)%nat -> sum m (fun l => if S l then Wd i l * Wu l j else 0) "
        "= - M i j.",
    ):
        assert d in src, d


def test_relu_iff_is_an_iff_over_the_same_block():
    flat = squash(C.coq_statement(C.ROOT, f"{NEC}.relu_iff") or "")
    assert "(nondegenerate : nondegenerate_block d m Wd Wu)" in flat
    assert ("(exists Wd' Wu' : mat, forall x i, (i < d)%nat -> mv d M x i + block d m relu Wd Wu x i "
            "= block d m relu Wd' Wu' x i) <-> (exists S : nat -> bool, index_condition_holds d m S M Wd Wu)"
            ) in flat


def test_instance_states_the_hand_checkable_fact():
    flat = squash(C.coq_statement(C.ROOT, f"{NEC}.relu_not_absorbable_instance") or "")
    assert ("~ (exists Wd' Wu' : mat, forall (x : vec) i, (i < 2)%nat -> "
            "x i + relu (x i) = block 2 2 relu Wd' Wu' x i)") in flat


def test_lean_mirror_is_registered_and_states_the_same_theorem():
    c = claim()
    assert c["lean"][:3] == ["SkipAbsorption.relu_iff", "SkipAbsorption.relu_necessity",
                             "SkipAbsorption.relu_necessity_structure"]
    assert "lean_absent" not in c
    root_module = (C.ROOT / "lean" / "SkipAbsorption.lean").read_text()
    assert "import SkipAbsorption.Necessity" in root_module
    stmt = squash(C.lean_statement(C.ROOT, "SkipAbsorption.relu_necessity") or "")
    assert "(nondegenerate : nondegenerate_block Wd Wu)" in stmt
    assert ("(absorbed : ∀ (x : Fin d → ℝ) (i : Fin d), skip M x i + ungated relu Wu Wd x i "
            "= ungated relu Wu' Wd' x i)") in stmt
    assert stmt.endswith("∃ S : Fin m → Bool, index_condition_holds S M Wd Wu :=")
    iff = squash(C.lean_statement(C.ROOT, "SkipAbsorption.relu_iff") or "")
    assert "(nondegenerate : nondegenerate_block Wd Wu)" in iff and "↔" in iff
    src = C.strip_lean_comments((C.ROOT / "lean/SkipAbsorption/Necessity.lean").read_text())
    assert not C.LEAN_FORBIDDEN.search(src)


def test_renamed_binder_of_relu_iff_is_caught(tmp_path):
    copy = C.copy_sources(tmp_path)
    f = copy / "proofs" / "coq" / "Necessity.v"
    text = f.read_text()
    i = text.index("Theorem relu_iff")
    f.write_text(text[:i] + text[i:].replace("(nondegenerate :", "(nondeg :", 1))
    assert (f"{CLAIM}: hypothesis tag 'nondegenerate' is not a named binder of Coq {NEC}.relu_iff"
            in [str(x) for x in C.static_findings(copy)])


def test_renamed_binder_of_lean_relu_iff_is_caught(tmp_path):
    copy = C.copy_sources(tmp_path)
    f = copy / "lean" / "SkipAbsorption" / "Necessity.lean"
    text = f.read_text()
    i = text.index("theorem relu_iff")
    f.write_text(text[:i] + text[i:].replace("(nondegenerate :", "(nondeg :", 1))
    assert (f"{CLAIM}: hypothesis tag 'nondegenerate' is not a named binder of Lean "
            "SkipAbsorption.relu_iff" in [str(x) for x in C.static_findings(copy)])


def _build(root: Path) -> C.CoqBuild:
    return C.coq_build(root, theorems=REGISTERED + INSTANCES)


def test_real_build_has_only_the_reals_axioms():
    build = _build(C.ROOT)
    if not C.coq_available():
        assert build.status == "skipped"
        return
    assert build.status == "compiled", build.detail
    for name in REGISTERED + INSTANCES:
        axioms = build.assumptions[name]
        assert all(a.startswith(C.ALLOWED_AXIOM_PREFIXES) for a in axioms), (name, axioms)


def test_dropped_hypothesis_breaks_the_build(tmp_path):
    """Without `nondegenerate`, relu_necessity is false (collinear rows, boundary-cases.md) and
    its proof no longer goes through."""
    copy = C.copy_sources(tmp_path)
    f = copy / "proofs" / "coq" / "Necessity.v"
    text = f.read_text()
    i = text.index("Theorem relu_necessity :")
    head, tail = text[:i], text[i:]
    dropped = tail.replace("(nondegenerate : nondegenerate_block d m Wd Wu)\n", "", 1)
    assert dropped != tail
    f.write_text(head + dropped)
    build = _build(copy)
    if not C.coq_available():
        assert build.status == "skipped"
        return
    assert build.status == "failed"
    assert "Necessity.v" in build.detail


def test_vacuous_nondegeneracy_cannot_prove_the_instances(tmp_path):
    """The vacuity attack: define nondegenerate_block as False and prove the structure theorem
    by contradiction.  relu_necessity and relu_iff then still compile (vacuously), but the
    instance lemmas cannot, because they must exhibit nondegenerate blocks."""
    copy = C.copy_sources(tmp_path)
    f = copy / "proofs" / "coq" / "Necessity.v"
    text = f.read_text()
    old = "rows_nonzero d m Wu /\\ rows_noncollinear d m Wu /\\ cols_nonzero d m Wd."
    assert old in text
    text = text.replace(old, "False.", 1)
    start = text.index("  intros d m M Wd Wu Wd' Wu' [Hnz [Hnc Hcol]] absorbed.")
    end = text.index("Qed.", start)
    text = text[:start] + "  intros; contradiction.\n" + text[end:]
    f.write_text(text)
    first_instance = text[:text.index("Lemma ident_nondegenerate")].count("\n") + 1
    build = _build(copy)
    if not C.coq_available():
        assert build.status == "skipped"
        return
    assert build.status == "failed"
    m = re.search(r'File "\./Necessity\.v", line (\d+)', build.detail)
    assert m, build.detail
    assert int(m.group(1)) >= first_instance, build.detail
