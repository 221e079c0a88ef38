"""Attacks on the proof check through the measure files (issue 30): each applied to a copy of the
repository, each must make the check fail with a one-line reason naming a claim.

Claims attacked: non-generic and generic-weights (Coq "full" in measure form through
proofs/coq/NullSets.v, the one file that loads mathcomp-analysis), and the trust rules of the
measure library: its axioms are allowed only for the claims that use it, only NullSets.v may load
it, and its sanity lemmas must stay registered.

The compiled attacks run as in tests/test_proofcheck_mutations.py: every copy carries the .vo
files of one baseline build, so its build recompiles only the mutated file and the files that
import it; the copies are checked two at a time in worker processes, in a module fixture.  The
static attacks (no compiler) are separate tests below.
"""

import multiprocessing
import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Callable

import pytest

from oracle.formal import coqcheck
from oracle.formal import consistency as C

COQ = Path("proofs") / "coq"
NULLSETS = str(COQ / "NullSets.v")
NONGEN = str(COQ / "NonGenericNull.v")
GENNULL = str(COQ / "GenericWeightsNull.v")
ABSNULL = str(COQ / "AbsorbableNull.v")


def edit(root: Path, rel: str, old: str, new: str) -> None:
    p = root / rel
    text = p.read_text()
    assert old in text, f"{old!r} not in {rel}"
    p.write_text(text.replace(old, new, 1))


def registry_edit(root: Path, claim_id: str, old: str, new: str) -> None:
    p = root / "proofs" / "claims.toml"
    text = p.read_text()
    start = text.index(f'id = "{claim_id}"')
    end = text.find("[[claim]]", start)
    end = len(text) if end < 0 else end
    block = text[start:end]
    assert old in block, f"{old!r} not in the {claim_id} table"
    p.write_text(text[:start] + block.replace(old, new, 1) + text[end:])


# ---------------------------------------------------------------- the compiled attacks

def null_means_anything(root: Path) -> None:
    """'null' redefined as something every set satisfies (True)."""
    edit(root, NULLSETS, "Definition null_set (n : nat) (A : (nat -> R) -> Prop) : Prop :=\n"
                         "  negligible (ns_vol n) (fun x : ns_space n => A (ns_coords n x)).",
         "Definition null_set (n : nat) (A : (nat -> R) -> Prop) : Prop := True.")


def null_means_anything_sanity_dropped(root: Path) -> None:
    """The same, with the sanity lemmas that refute it deleted from the source and the registry,
    and the interface's proofs about null sets replaced by 'exact I', so that NullSets.v compiles."""
    null_means_anything(root)
    p = root / NULLSETS
    text = p.read_text()
    for name in ("has_volume_zero_null", "null_set_empty", "null_set_subset", "null_set_union",
                 "null_set_list_union", "null_set_ext", "poly_zero_set_null", "singular_set_null"):
        m = re.search(rf"(?:Theorem|Lemma|Corollary) {name} :.*?\nProof\.(.*?)Qed\.", text, re.S)
        assert m, name
        text = text[:m.start(1)] + " intros; exact I. " + text[m.end(1):]
    for name in ("null_set_contains_no_box", "whole_space_not_null"):
        m = re.search(rf"\n(?:Theorem|Corollary|Lemma) {name} :.*?\nQed\.\n", text, re.S)
        assert m, name
        text = text[:m.start()] + "\n" + text[m.end():]
    p.write_text(text)
    reg = root / "proofs" / "claims.toml"
    t = reg.read_text()
    for name in ("null_set_contains_no_box", "whole_space_not_null"):
        t = t.replace(f', "SkipAbsorption.NullSets.{name}"', "")
    reg.write_text(t)


def zero_measure(root: Path) -> None:
    """Lebesgue measure on R^(k+1) replaced by the zero measure: every set would be null."""
    edit(root, NULLSETS, "  | S k => [the measure _ _ of product_measure1 (ns_vol k) ns_line_sigma_finite]",
         "  | S k => [the measure _ _ of @mzero _ (ns_space k.+1) RR]")


def zero_polynomial_passes(root: Path) -> None:
    """The zero-set lemma's hypothesis weakened so that the zero polynomial passes (a point where
    the expression equals itself instead of a point where it is nonzero)."""
    edit(root, NULLSETS, "  (exists y : nat -> R, (forall i, le n i -> y i = 0) /\\ poly_eval e y <> 0) ->\n"
                         "  null_set n (fun x => poly_eval e x = 0).",
         "  (exists y : nat -> R, (forall i, le n i -> y i = 0) /\\ poly_eval e y = poly_eval e y) ->\n"
         "  null_set n (fun x => poly_eval e x = 0).")


def restricted_to_d1(root: Path) -> None:
    """non-generic's measure theorem quietly restricted to d = 1 by an extra binder; the instance
    (d = 1) is repaired so that its file still compiles (AbsorbableNull.v, for d >= 2, cannot be)."""
    edit(root, NONGEN, "         (M_nonzero : nonzero_mat d M),\n  null_weights d m (fun Wd Wu =>",
         "         (M_nonzero : nonzero_mat d M) (d_one : d = 1%nat),\n  null_weights d m (fun Wd Wu =>")
    edit(root, NONGEN, "  intros d m M (a & b & Ha & Hb & Hab). unfold null_weights.\n  apply null_set_subset with\n"
                       "    (A := fun w => exists T, In T (subsets m) /\\",
         "  intros d m M (a & b & Ha & Hb & Hab) d_one. unfold null_weights.\n  apply null_set_subset with\n"
         "    (A := fun w => exists T, In T (subsets m) /\\")
    edit(root, NONGEN, "pose proof (non_generic_null 1 1 ident HM) as HN.",
         "pose proof (non_generic_null 1 1 ident HM eq_refl) as HN.")


def restricted_to_box(root: Path) -> None:
    """generic-weights' measure theorem quietly restricted to the weights in the unit box (the
    failing set intersected with [0, 1]^N), with its proof adjusted so that it compiles."""
    edit(root, GENNULL, "    null_weights d m (fun Wd Wu =>\n      ~ (row_rank d m Wu (Nat.min m d) /\\",
         "    null_weights d m (fun Wd Wu => (forall i l, 0 <= Wd i l <= 1) /\\\n"
         "      ~ (row_rank d m Wu (Nat.min m d) /\\")
    edit(root, GENNULL, "  - intros w Hw.\n    destruct (classic (row_rank d m (up_of d m w) (Nat.min m d))) as [H1|H1]; [|left; exact H1].",
         "  - intros w (_ & Hw).\n    destruct (classic (row_rank d m (up_of d m w) (Nat.min m d))) as [H1|H1]; [|left; exact H1].")


MUTATIONS: dict[str, Callable[[Path], None]] = {
    "baseline": lambda root: None,
    "null_means_anything": null_means_anything,
    "null_means_anything_sanity_dropped": null_means_anything_sanity_dropped,
    "zero_measure": zero_measure,
    "zero_polynomial_passes": zero_polynomial_passes,
    "restricted_to_d1": restricted_to_d1,
    "restricted_to_box": restricted_to_box,
}


def _findings(root: str) -> list[str]:
    """The whole check (compiled) on one copy; runs in a worker process."""
    return C.check_all(Path(root))["findings"]


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, list[str]]:
    ok, errors, _, _ = coqcheck.build((C.ROOT / COQ).resolve())
    assert ok, errors
    roots = {}
    for name, mutate in MUTATIONS.items():
        roots[name] = C.copy_sources(tmp_path_factory.mktemp(name), with_build=True)
        mutate(roots[name])
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("fork")) as pool:
        running = {name: pool.submit(_findings, str(roots[name])) for name in roots}
        return {name: job.result() for name, job in running.items()}


def compiled(test):
    """A test on the compiled attacks: minutes of Coq (marked slow), skipped without coqc."""
    return pytest.mark.slow(pytest.mark.usefixtures("coq_required")(test))


def has(found: list[str], claim: str, *parts: str) -> bool:
    """Some one-line finding names the claim and contains every part."""
    return any(f.startswith(claim + ": ") and all(p in f for p in parts) for f in found)


def not_compiled(found: list[str], claim: str, file: str) -> bool:
    """The claim is refused because a file it rests on did not compile."""
    return has(found, claim, f"Coq does not compile: {file}") or has(found, claim, f"{file} did not compile")


@compiled
def test_unmodified_copy_passes(results):
    assert results["baseline"] == []


@compiled
def test_null_redefined_as_true_is_refused(results):
    # whole_space_not_null and null_set_contains_no_box cannot be proved for 'True'
    r = results["null_means_anything"]
    assert not_compiled(r, "non-generic", "NullSets.v"), r
    assert not_compiled(r, "generic-weights", "NullSets.v"), r


@compiled
def test_null_redefined_with_its_sanity_lemmas_removed_is_refused(results):
    r = results["null_means_anything_sanity_dropped"]
    for name in ("null_set_contains_no_box", "whole_space_not_null"):
        assert any(f"SkipAbsorption.NullSets.{name} is not registered" in f for f in r), (name, r)
    # NullSets.v compiles, but the files that state what a null set is not (all_weights_not_null)
    # and the instances in standard-library terms (a box of weights has a good point) do not
    assert not any("Coq does not compile: NullSets.v" in f for f in r), r
    assert not_compiled(r, "non-generic", "NonGenericNull.v"), r
    assert not_compiled(r, "generic-weights", "GenericWeightsNull.v"), r


@compiled
def test_zero_measure_is_refused(results):
    # box_volume (the unit cube has measure 1) no longer holds
    r = results["zero_measure"]
    assert not_compiled(r, "non-generic", "NullSets.v"), r


@compiled
def test_zero_polynomial_passing_the_hypothesis_is_refused(results):
    # the weakened zero-set lemma is false (the zero polynomial vanishes everywhere), so no
    # proof of it compiles without an axiom
    r = results["zero_polynomial_passes"]
    assert not_compiled(r, "non-generic", "NullSets.v"), r


@compiled
def test_measure_statement_restricted_to_d1_is_refused(results):
    r = results["restricted_to_d1"]
    assert has(r, "non-generic", "Coq SkipAbsorption.NonGenericNull.non_generic_null assumes 'd_one'",
               "neither a hypothesis tag"), r


@compiled
def test_measure_statement_restricted_to_a_box_is_refused(results):
    r = results["restricted_to_box"]
    refused = has(r, "generic-weights", "Coq statement of SkipAbsorption.GenericWeightsNull.generic_weights_null "
                                        "changed since it was pinned") or \
        not_compiled(r, "generic-weights", "GenericWeightsNull.v")
    assert refused, r


# ---------------------------------------------------------------- static (no compiler)

def test_measure_axioms_are_named_with_reasons():
    assert set(coqcheck.MEASURE_AXIOMS) == {
        "mathcomp.classical.boolp.propositional_extensionality",
        "mathcomp.classical.boolp.functional_extensionality_dep",
        "mathcomp.classical.boolp.constructive_indefinite_description",
        "Coq.Logic.Epsilon.epsilon_statement"}
    assert all(why.strip() for why in coqcheck.MEASURE_AXIOMS.values())
    # the axioms of the reals stay what they were; the measure ones are not among them
    assert not set(coqcheck.MEASURE_AXIOMS) & set(C.ALLOWED_AXIOMS)
    assert set(C.allowed_axioms(False)) == set(C.ALLOWED_AXIOMS)
    assert set(C.allowed_axioms(True)) == set(C.ALLOWED_AXIOMS) | set(coqcheck.MEASURE_AXIOMS)


def test_measure_claims_are_the_ones_using_nullsets():
    coqdir = C.ROOT / COQ
    mods = coqcheck.measure_modules(coqdir)
    assert {"SkipAbsorption.NullSets", "SkipAbsorption.NonGenericNull", "SkipAbsorption.GenericWeightsNull",
            "SkipAbsorption.AbsorbableNull", "SkipAbsorption.DepthNarrowNull", "SkipAbsorption.WidthNull",
            "SkipAbsorption.DepthNarrowCNull", "SkipAbsorption.DepthD2Null"} == mods
    measure = C.measure_claims(C.load_registry(), coqdir)
    assert measure == {"non-generic", "generic-weights", "absorption-width", "depth-width", "depth-narrow"}


def test_mathcomp_outside_the_interface_file_is_refused(tmp_path):
    copy = C.copy_sources(tmp_path, with_build=False)
    assert [str(f) for f in C.static_findings(copy)] == []
    edit(copy, str(COQ / "GenericWeights.v"), "From Coq Require Import",
         "From mathcomp Require Import boolp.\nFrom Coq Require Import")
    found = [str(f) for f in C.static_findings(copy)]
    assert any("proofs/coq/GenericWeights.v:" in f and "loads mathcomp directly" in f for f in found), found


def test_unregistered_sanity_lemma_is_refused(tmp_path):
    copy = C.copy_sources(tmp_path, with_build=False)
    registry_edit(copy, "non-generic", ', "SkipAbsorption.NullSets.unit_cube_volume"', "")
    found = [str(f) for f in C.static_findings(copy)]
    assert any("SkipAbsorption.NullSets.unit_cube_volume is not registered" in f for f in found), found


def test_measure_axiom_outside_a_measure_claim_is_refused():
    """A measure axiom in the Print Assumptions of a claim that does not use NullSets.v is
    refused, claim by claim; the same axiom in a measure claim passes."""
    reg = C.load_registry()
    rep = coqcheck.CoqReport("compiled")
    real = "Coq.Reals.ClassicalDedekindReals.sig_forall_dec"
    prop = "mathcomp.classical.boolp.propositional_extensionality"
    rep.allowed_short = {"ClassicalDedekindReals.sig_forall_dec": real, "boolp.propositional_extensionality": prop}
    rep.axioms = {"pc_bundle": ["ClassicalDedekindReals.sig_forall_dec", "boolp.propositional_extensionality"],
                  "non-generic": ["ClassicalDedekindReals.sig_forall_dec", "boolp.propositional_extensionality"],
                  "skip-reduction": ["ClassicalDedekindReals.sig_forall_dec", "boolp.propositional_extensionality"]}
    found = [str(f) for f in C._assumption_findings(reg, rep, C.ROOT / COQ)]
    assert any(f.startswith("skip-reduction: Print Assumptions shows axiom boolp.propositional_extensionality")
               for f in found), found
    assert not any(f.startswith("non-generic:") for f in found), found
    # without a claim-by-claim answer the bundle's measure axiom cannot be judged: refused
    rep.axioms = {"pc_bundle": rep.axioms["pc_bundle"]}
    found = [str(f) for f in C._assumption_findings(reg, rep, C.ROOT / COQ)]
    assert any("no claim-by-claim output" in f for f in found), found
