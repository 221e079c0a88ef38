"""relu-gelu-iff, relu half: the Coq necessity proof (proofs/coq/Necessity.v) is registered,
states what the claim needs, and the proof check rejects broken copies.

Statements are read from proofs/pinned/coq-statements.txt, which the proof check
regenerates from the compiled development and compares on every run (so the text here is
what Coq compiled, not what a regex found in the sources).  Broken copies live in
temporary directories (oracle.formal.consistency.copy_sources, with the compiled files, so only
the mutated file and its dependents are rebuilt); the real sources are never touched.

Ported from the old API (coq_statement/coq_build): the dropped-hypothesis attack (delete
`nondegenerate` from relu_necessity and watch the build fail) is now checked mechanically
and more strongly by the counterexample lemma Counterexamples.relu_iff_needs_nondegenerate
(the main theorem without that binder is proved false), so it is not repeated here.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from oracle.formal import coqcheck, coqsource, leancheck, pinned
from oracle.formal import consistency as C

CLAIM = "relu-gelu-iff"
NEC = "SkipAbsorption.Necessity"
REGISTERED = [f"{NEC}.relu_iff", f"{NEC}.relu_necessity", f"{NEC}.relu_necessity_structure"]

needs_coq = pytest.mark.usefixtures("coq_required")


def claim(root: Path = C.ROOT) -> dict:
    return next(c for c in C.load_registry(root) if c["id"] == CLAIM)


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def coq_pinned(name: str) -> str:
    blocks = pinned.load(C.ROOT / pinned.COQ_FILE)
    assert name in blocks, name
    return blocks[name].statement


def test_necessity_theorems_are_registered():
    c = claim()
    assert c["coq"][:3] == REGISTERED  # relu_iff is the main statement
    assert "SkipAbsorption.SignFlip.sign_flip_absorbs" in c["coq"]
    assert "SkipAbsorption.Activations.relu_sign_flip" in c["coq"]
    assert "SkipAbsorption.Limit.gelu_iff" in c["coq"]
    assert c["coq_instance"] == f"{NEC}.relu_not_absorbable_instance"
    assert c["formal_hypotheses"] == ["nondegenerate"] and len(c["formal_hypotheses_reason"]) > 40
    assert set(c["formal_not_needed"]) == {"d_ge_2", "M_invertible"}
    assert all(len(r) > 40 for r in c["formal_not_needed"].values())
    # relu_iff (relu) and gelu_iff (the exact gelu) together are the whole claim
    assert c["formal_scope"] == "full"
    assert "Necessity.relu_iff" in c["formal_scope_note"] and "Limit.gelu_iff" in c["formal_scope_note"]
    assert c["coq_counterexamples"]["nondegenerate"] == "SkipAbsorption.Counterexamples.relu_iff_needs_nondegenerate"


def test_relu_necessity_statement_has_the_expected_binders():
    stmt = coq_pinned(f"{NEC}.relu_necessity")
    assert pinned.binder_names(stmt) == ["d", "m", "M", "Wd", "Wu", "Wd'", "Wu'", "nondegenerate", "absorbed"]
    flat = squash(stmt)
    assert "nondegenerate : Necessity.nondegenerate_block d m Wd Wu" in flat
    assert ("absorbed : forall (x : Linalg.vec) (i : nat), (i < d)%nat -> Linalg.mv d M x i + "
            "Linalg.block d m RealActivations.relu Wd Wu x i = Linalg.block d m RealActivations.relu Wd' Wu' x i"
            ) in flat
    assert pinned.conclusion(stmt) == "exists S : nat -> bool, Necessity.index_condition_holds d m S M Wd Wu"
    # No hypothesis on d or M sneaked in.
    assert "d >=" not in flat and "invertible" not in flat and "(2 <=" not in flat


def test_interface_definitions_are_the_agreed_ones():
    src = squash(coqsource.strip_comments_and_strings((C.ROOT / "proofs/coq/Necessity.v").read_text()))
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
    # ... and the pinned file carries their bodies, so a changed definition changes the pin
    uses = pinned.load(C.ROOT / pinned.COQ_FILE)[f"{NEC}.relu_iff"].uses
    assert {f"{NEC}.nondegenerate_block", f"{NEC}.index_condition_holds", f"{NEC}.rows_noncollinear"} <= set(uses)


def test_relu_iff_is_an_iff_over_the_same_block():
    stmt = coq_pinned(f"{NEC}.relu_iff")
    assert pinned.binder_names(stmt) == ["d", "m", "M", "Wd", "Wu", "nondegenerate"]
    assert pinned.conclusion(stmt) == (
        "(exists Wd' Wu' : Linalg.mat, forall (x : Linalg.vec) (i : nat), (i < d)%nat -> Linalg.mv d M x i + "
        "Linalg.block d m RealActivations.relu Wd Wu x i = Linalg.block d m RealActivations.relu Wd' Wu' x i) "
        "<-> (exists S : nat -> bool, Necessity.index_condition_holds d m S M Wd Wu)")


def test_instance_states_the_hand_checkable_fact():
    """x -> x + relu(x) coordinate-wise in R^2 is no relu block of width 2, written with Rmax
    and explicit sums only (no definition of the development)."""
    blk = pinned.load(C.ROOT / pinned.COQ_FILE)[f"{NEC}.relu_not_absorbable_instance"]
    assert blk.uses == {}
    assert pinned.conclusion(blk.statement) == (
        "~ (exists w00 w01 w10 w11 u00 u01 u10 u11 : R, forall x0 x1 : R, "
        "x0 + Rmax x0 0 = w00 * Rmax (u00 * x0 + u01 * x1) 0 + w01 * Rmax (u10 * x0 + u11 * x1) 0 /\\ "
        "x1 + Rmax x1 0 = w10 * Rmax (u00 * x0 + u01 * x1) 0 + w11 * Rmax (u10 * x0 + u11 * x1) 0)")
    # and its proof goes through the main theorem (the .glob of Necessity.v)
    src = coqsource.strip_comments_and_strings((C.ROOT / "proofs/coq/Necessity.v").read_text())
    body = src[src.index("Corollary relu_not_absorbable_instance"):]
    assert "relu_iff" in body[:body.index("Qed.")]


def test_lean_mirror_is_registered_and_states_the_same_theorem():
    c = claim()
    assert c["lean"][:3] == ["SkipAbsorption.relu_iff", "SkipAbsorption.relu_necessity",
                             "SkipAbsorption.relu_necessity_structure"]
    assert "lean_absent" not in c and c["lean_formal_scope"] == "relu half"
    root_module = (C.ROOT / "lean" / "SkipAbsorption.lean").read_text()
    assert "import SkipAbsorption.Necessity" in root_module
    lean = pinned.load(C.ROOT / pinned.LEAN_FILE)
    stmt = squash(lean["SkipAbsorption.relu_necessity"].statement)
    assert "(nondegenerate : nondegenerate_block Wd Wu)" in stmt
    assert ("(absorbed : ∀ (x : Fin d → ℝ) (i : Fin d), skip M x i + ungated relu Wu Wd x i "
            "= ungated relu Wu' Wd' x i)") in stmt
    assert stmt.endswith(": ∃ S : Fin m → Bool, index_condition_holds S M Wd Wu")
    iff = squash(lean["SkipAbsorption.relu_iff"].statement)
    assert "(nondegenerate : nondegenerate_block Wd Wu)" in iff and "↔" in iff
    src = leancheck.strip_comments((C.ROOT / "lean/SkipAbsorption/Necessity.lean").read_text())
    assert not any(pat.search(src) for pat, _ in leancheck.FORBIDDEN)


def test_renamed_binder_of_lean_relu_iff_is_caught(tmp_path):
    copy = C.copy_sources(tmp_path, with_build=False)
    f = copy / "lean" / "SkipAbsorption" / "Necessity.lean"
    text = f.read_text()
    i = text.index("theorem relu_iff")
    f.write_text(text[:i] + text[i:].replace("(nondegenerate :", "(nondeg :", 1))
    found = [str(x) for x in C.static_findings(copy)]
    assert (f"{CLAIM}: hypothesis tag 'nondegenerate' is not a top-level binder of Lean "
            "SkipAbsorption.relu_iff") in found


# ---------------------------------------------------------------- compiled attacks

def renamed_binder(root: Path) -> None:
    """The binder of relu_iff renamed (the proof still compiles: intros names its own)."""
    f = root / "proofs" / "coq" / "Necessity.v"
    text = f.read_text()
    i = text.index("Theorem relu_iff")
    f.write_text(text[:i] + text[i:].replace("(nondegenerate :", "(nondeg :", 1))


def vacuous_nondegeneracy(root: Path) -> None:
    """The vacuity attack: nondegenerate_block := False, the structure theorem proved by
    contradiction.  relu_necessity and relu_iff still compile (vacuously); the instance,
    which must exhibit a nondegenerate block, cannot."""
    f = root / "proofs" / "coq" / "Necessity.v"
    text = f.read_text()
    old = "rows_nonzero d m Wu /\\ rows_noncollinear d m Wu /\\ cols_nonzero d m Wd."
    assert old in text
    text = text.replace(old, "False.", 1)
    start = text.index("  intros d m M Wd Wu Wd' Wu' [Hnz [Hnc Hcol]] absorbed.")
    end = text.index("Qed.", start)
    f.write_text(text[:start] + "  intros; contradiction.\n" + text[end:])


ATTACKS = {"renamed_binder": renamed_binder, "vacuous_nondegeneracy": vacuous_nondegeneracy}


@pytest.fixture(scope="module")
def attacked(tmp_path_factory) -> dict[str, tuple[list[str], Path]]:
    """The whole proof check (compiled) on one mutated copy per attack, two at a time:
    attack -> (findings, root of the copy)."""
    ok, errors, _, _ = coqcheck.build((C.ROOT / "proofs" / "coq").resolve())
    assert ok, errors

    # made before the threads start: two threads creating pytest's base directory at once fail
    dirs = {name: tmp_path_factory.mktemp(name) for name in ATTACKS}

    def one(name: str) -> tuple[str, tuple[list[str], Path]]:
        root = C.copy_sources(dirs[name], with_build=True)
        ATTACKS[name](root)
        return name, (C.check_all(root)["findings"], root)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, ATTACKS))


@needs_coq
def test_real_development_checks_with_only_the_reals_axioms():
    r = C.check_all(C.ROOT)
    assert r["coq"]["status"] == "compiled", r["coq"]["detail"]
    assert r["claims"][CLAIM]["findings"] == []
    assert set(r["claims"][CLAIM]["coq"]["axioms"]) <= set(C.ALLOWED_AXIOMS)


@needs_coq
@pytest.mark.slow   # the attacked fixture recompiles two mutated copies
def test_renamed_binder_of_relu_iff_is_caught(attacked):
    found, _ = attacked["renamed_binder"]
    assert (f"{CLAIM}: hypothesis tag 'nondegenerate' is not a top-level named binder of Coq {NEC}.relu_iff "
            "(binders nested inside another hypothesis do not count)") in found, found
    # the counterexample lemma cannot drop a binder that is no longer there
    assert any(f.startswith(f"{CLAIM}: counterexample SkipAbsorption.Counterexamples.relu_iff_needs_nondegenerate")
               and ("has no binder 'nondegenerate'" in f or "without 'nondegenerate' is false" in f)
               for f in found), found
    # the changed statement is not the pinned one
    assert f"{CLAIM}: Coq statement of {NEC}.relu_iff changed since it was pinned in " \
           "proofs/pinned/coq-statements.txt (review the diff, then `absorb pin`)" in found


@needs_coq
@pytest.mark.slow
def test_vacuous_nondegeneracy_cannot_prove_the_instance(attacked):
    found, root = attacked["vacuous_nondegeneracy"]
    src = (root / "proofs" / "coq" / "Necessity.v").read_text()
    after_iff = src[:src.index("Lemma ident_nondegenerate")].count("\n") + 1
    lines = [int(m.group(1)) for f in found for m in [re.search(r"Coq does not compile: Necessity\.v:(\d+)", f)] if m]
    # the build fails in Necessity.v, and only after relu_necessity and relu_iff (which compile vacuously)
    assert lines and min(lines) >= after_iff, found
