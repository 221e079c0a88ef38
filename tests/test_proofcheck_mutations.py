"""The attacks of issue 9 on the proof check, each applied to a copy of the repository:
every one must make the check fail with a one-line reason naming the claim.

The copies carry the compiled .vo files of one baseline build with their timestamps, so
`make` recompiles only the mutated file and the files that import it.  All mutations run
once, two at a time in worker processes, in a module fixture; each test then asserts on its
own result.  Registry-only and Lean
mutations need no compiler and are in tests/test_consistency.py as well.

Claims attacked here: homogeneous-impossible, homogeneous-any-width, gated-impossible,
gated-continuity, depth-impossible, depth-any, relu-gelu-iff, depth-narrow, depth-width, depth-d1,
generic-weights, relu-complete (its files ReluClasses.v, ReluComplete.v, ReluCompleteNec.v and
ReluCompleteIff.v).
"""

import multiprocessing
import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Callable

import pytest

from oracle.formal import coqcheck, coqsource
from oracle.formal import consistency as C

pytestmark = pytest.mark.usefixtures("coq_required")

COQ = Path("proofs") / "coq"


def edit(root: Path, rel: str, old: str, new: str) -> None:
    p = root / rel
    text = p.read_text()
    assert old in text, f"{old!r} not in {rel}"
    p.write_text(text.replace(old, new, 1))


def set_proof(root: Path, rel: str, name: str, proof: str) -> None:
    """Replace the proof of theorem `name` (between its 'Proof.' and 'Qed.')."""
    p = root / rel
    text = p.read_text()
    m = re.search(rf"(?:Theorem|Lemma|Corollary) {re.escape(name)} :.*?\nProof\.(.*?)\nQed\.", text, re.S)
    assert m, name
    p.write_text(text[:m.start(1)] + "\n  " + proof + text[m.end(1):])


def registry_edit(root: Path, claim_id: str, old: str, new: str) -> None:
    p = root / "proofs" / "claims.toml"
    text = p.read_text()
    start = text.index(f'id = "{claim_id}"')
    end = text.find("[[claim]]", start)
    end = len(text) if end < 0 else end
    block = text[start:end]
    assert old in block, f"{old!r} not in the {claim_id} table"
    p.write_text(text[:start] + block.replace(old, new, 1) + text[end:])


HOM = str(COQ / "Homogeneous.v")
GATED = str(COQ / "Gated.v")
SIGN = str(COQ / "SignFlip.v")
ACT = str(COQ / "Activations.v")


def vacuous_binder(root: Path) -> None:
    """1a. an extra (vacuous : False) binder on a main theorem."""
    edit(root, HOM, "Theorem homogeneous_impossible :\n  forall (d m : nat) (k : R) (sigma : R -> R) (M Wd Wu : mat)\n",
         "Theorem homogeneous_impossible :\n  forall (d m : nat) (k : R) (sigma : R -> R) (M Wd Wu : mat) "
         "(vacuous : False)\n")
    set_proof(root, HOM, "homogeneous_impossible", "intros d m k sigma M Wd Wu vacuous. destruct vacuous.")


def unnamed_false_premise(root: Path) -> None:
    """1b. an unnamed False -> premise."""
    edit(root, GATED, "(M Wd Wg Wu : mat)\n         (gate_zero_at_0 : g 0 = 0)\n         (gate_differentiable_at_0",
         "(M Wd Wg Wu : mat), False -> forall\n         (gate_zero_at_0 : g 0 = 0)\n         (gate_differentiable_at_0")
    set_proof(root, GATED, "gated_impossible", "intros d m g M Wd Wg Wu H. destruct H.")


def narrowed_scope(root: Path) -> None:
    """2. scope narrowed by an extra binder (d_one : d = 1%nat)."""
    depth = str(COQ / "Depth.v")
    edit(root, depth, "         (d_pos : (0 < d)%nat),\n  ~ (forall x i, (i < d)%nat -> res_comp_id res x i",
         "         (d_pos : (0 < d)%nat) (d_one : d = 1%nat),\n  ~ (forall x i, (i < d)%nat -> res_comp_id res x i")
    edit(root, depth, "intros d res plains res_blocks_flat plain_blocks_flat plain_nonempty d_pos.",
         "intros d res plains res_blocks_flat plain_blocks_flat plain_nonempty d_pos d_one.")


def trivial_conclusion(root: Path) -> None:
    """3. the conclusion made trivial (x + B = x + B, proved by reflexivity)."""
    edit(root, SIGN, "    mv d M x i + block d m sigma Wd Wu x i = block d m sigma Wd (flip_rows S Wu) x i.\nProof.",
         "    mv d M x i + block d m sigma Wd Wu x i = mv d M x i + block d m sigma Wd Wu x i.\nProof.")
    set_proof(root, SIGN, "sign_flip_absorbs", "intros. reflexivity.")


def smuggled_conclusion(root: Path) -> None:
    """4. the conclusion smuggled in under a tag name (M_nonzero : ~ gabsorbable ...)."""
    edit(root, GATED, "         (M_nonzero : nonzero_mat d M),\n  ~ gabsorbable d m g (fun x i => mv d M x i + gblock d m g "
                      "Wd Wg Wu x i).\nProof.\n  intros d m g M Wd Wg Wu gate_zero_at_0",
         "         (M_nonzero : ~ gabsorbable d m g (fun x i => mv d M x i + gblock d m g Wd Wg Wu x i)),\n"
         "  ~ gabsorbable d m g (fun x i => mv d M x i + gblock d m g Wd Wg Wu x i).\nProof.\n"
         "  intros d m g M Wd Wg Wu gate_zero_at_0")
    set_proof(root, GATED, "gated_impossible", "intros; assumption.")


def tag_with_other_type(root: Path) -> None:
    """5. a tag kept with a different type (k_ne_1 : k = 2)."""
    edit(root, HOM, "Theorem homogeneous_impossible :\n  forall (d m : nat) (k : R) (sigma : R -> R) (M Wd Wu : mat)\n"
                    "         (k_pos : 0 < k) (k_ne_1 : k <> 1)",
         "Theorem homogeneous_impossible :\n  forall (d m : nat) (k : R) (sigma : R -> R) (M Wd Wu : mat)\n"
         "         (k_pos : 0 < k) (k_ne_1 : k = 2)")
    edit(root, HOM, "Wd' Wu' k_pos k_ne_1\n           M_nonzero sigma_homogeneous sigma_homogeneous Heq)",
         "Wd' Wu' k_pos ltac:(rewrite k_ne_1; lra)\n           M_nonzero sigma_homogeneous sigma_homogeneous Heq)")


def changed_definition(root: Path) -> None:
    """6. a definition changed under the theorems (relu2 z := relu z * relu z * 0)."""
    edit(root, ACT, "Definition relu2 (z : R) : R := relu z * relu z.", "Definition relu2 (z : R) : R := relu z * relu z * 0.")


def tags_nested_in_vacuous_hypothesis(root: Path) -> None:
    """7. tags that appear only as binders nested inside one vacuous hypothesis."""
    depth = str(COQ / "Depth.v")
    edit(root, depth, "         (res_blocks_flat : Forall (fun p => flat d (snd p)) res)\n"
                      "         (plain_blocks_flat : Forall (flat d) plains)\n"
                      "         (plain_nonempty : plains <> [])\n"
                      "         (skip_product_nonzero : nonzero_mat d (skip_product d res)),",
         "         (vac : (forall (res_blocks_flat : Forall (fun p => flat d (snd p)) res)\n"
         "                        (plain_blocks_flat : Forall (flat d) plains)\n"
         "                        (plain_nonempty : plains <> [])\n"
         "                        (skip_product_nonzero : nonzero_mat d (skip_product d res)), True) -> False),")
    set_proof(root, depth, "depth_any", "intros d res plains vac. exfalso. apply vac. intros. exact I.")


def module_shadow(root: Path) -> None:
    """8. a Module holding the faithful statement before a vacuous top-level theorem of the same name."""
    p = root / HOM
    text = p.read_text()
    start = text.index("Theorem homogeneous_impossible :")
    faithful = text[start:text.index("Qed.", start) + 4]
    vacuous_binder(root)
    text = p.read_text()
    start = text.index("Theorem homogeneous_impossible :")
    p.write_text(text[:start] + "Module Faithful.\n" + faithful + "\nEnd Faithful.\n\n" + text[start:])


def registry_switch_off(root: Path) -> None:
    """9a. coq_hypotheses = [] (no reason)."""
    registry_edit(root, "homogeneous-impossible", 'formal_scope = "full"', 'formal_scope = "full"\ncoq_hypotheses = []')


def registry_repoint_main(root: Path) -> None:
    """9b. the main name repointed to an unrelated lemma."""
    registry_edit(root, "homogeneous-impossible", 'coq = ["SkipAbsorption.Homogeneous.homogeneous_impossible"',
                  'coq = ["SkipAbsorption.Linalg.sum_plus"')


def guard_checking_hole(root: Path) -> None:
    """10. Unset Guard Checking plus Fixpoint loop n : False := loop n 'proves' a main theorem."""
    edit(root, GATED, "(** Prop. 6 in the paper's form",
         "Unset Guard Checking.\nFixpoint loop (n : nat) : False := loop n.\nSet Guard Checking.\n\n"
         "(** Prop. 6 in the paper's form")
    set_proof(root, GATED, "gated_impossible", "intros. destruct (loop 0%nat).")


def top_level_hypothesis(root: Path) -> None:
    """12. a top-level Hypothesis used to prove a main theorem."""
    edit(root, GATED, "(** Prop. 6 in the paper's form", "Hypothesis cheat : False.\n\n(** Prop. 6 in the paper's form")
    set_proof(root, GATED, "gated_impossible", "intros. destruct cheat.")


def instance_of_another_claim(root: Path) -> None:
    """Own: an instance lemma that does not go through the claim's main theorem."""
    registry_edit(root, "gated-continuity", 'coq_instance = "SkipAbsorption.Instances.swiglu_not_reglu_width2"',
                  'coq_instance = "SkipAbsorption.Instances.swiglu_width1_not_absorbable"')


def instance_stated_with_project_definitions(root: Path) -> None:
    """Own: an 'instance' whose statement uses the development's definitions."""
    registry_edit(root, "homogeneous-any-width", 'coq_instance = "SkipAbsorption.Instances.relu3_not_cube_width2"',
                  'coq_instance = "SkipAbsorption.Activations.relu2_not_absorbable"')


def counterexample_for_another_tag(root: Path) -> None:
    """Own: a counterexample lemma registered for a hypothesis it does not drop."""
    registry_edit(root, "homogeneous-impossible",
                  'k_ne_1 = "SkipAbsorption.Counterexamples.homogeneous_impossible_needs_k_ne_1"',
                  'k_ne_1 = "SkipAbsorption.Counterexamples.homogeneous_impossible_needs_M_nonzero"')


def axiom_used_by_a_lemma(root: Path) -> None:
    """Own: a new axiom that a registered counterexample lemma uses (caught by Print Assumptions too)."""
    edit(root, str(COQ / "Counterexamples.v"), "(** ** Tools *)", "(** ** Tools *)\n\nAxiom cheat : False.")
    set_proof(root, str(COQ / "Counterexamples.v"), "homogeneous_impossible_needs_M_nonzero", "destruct cheat.")


def hand_edited_pin(root: Path) -> None:
    """Own: the reviewed pinned file edited by hand to match a (hypothetical) different statement."""
    edit(root, "proofs/pinned/coq-statements.txt", "k_ne_1 : k <> 1\nM_nonzero : Linalg.nonzero_mat d M\n"
         "sigma_homogeneous : forall t z : R, 0 < t -> sigma (t * z) = Rpower t k * sigma z\n"
         "============================\n~\nSkipReduction.absorbable",
         "k_ne_1 : k <> 2\nM_nonzero : Linalg.nonzero_mat d M\n"
         "sigma_homogeneous : forall t z : R, 0 < t -> sigma (t * z) = Rpower t k * sigma z\n"
         "============================\n~\nSkipReduction.absorbable")


NARROW = str(COQ / "DepthNarrow.v")
STACK = str(COQ / "DepthStack.v")
RANK = str(COQ / "Rank.v")


def narrow_assumes_nondegenerate(root: Path) -> None:
    """Issue 19: depth-narrow's main theorem quietly assumes nondegeneracy (a tag of part (c)
    only, which the registry's coq_hypotheses leave out), under the tag's own name."""
    edit(root, NARROW, "         (pieces_invertible : Forall (layer_pieces_invertible d) layers)\n"
                       "         (narrow_width : (exists",
         "         (pieces_invertible : Forall (layer_pieces_invertible d) layers)\n"
         "         (nondegenerate : Forall (fun L => forall l, (l < width L)%nat ->\n"
         "            exists j, (j < d)%nat /\\ Wup L l j <> 0) layers)\n"
         "         (narrow_width : (exists")
    edit(root, NARROW, "intros d layers plains d_pos pieces_invertible [Ha|Hb].",
         "intros d layers plains d_pos pieces_invertible nondegenerate [Ha|Hb].")


def width_assumes_rows_span(root: Path) -> None:
    """Issue 19: depth-width's every-rank theorem quietly assumes rank U_l = d under the tag
    rows_span, which formal_not_needed says it does not need."""
    edit(root, STACK, "         (sigma_odd_part : forall z, sigma z - sigma (-z) = z),\n"
                      "  exists plains : list layer,\n"
                      "    Forall2 (fun L P => exists r, row_rank d (width L) (Wup L) r /\\\n"
                      "                                  width P = (width L + 2 * d - r)%nat) layers plains /\\\n"
                      "    forall x i, (i < d)%nat ->\n"
                      "      res_comp_id (map (layer_block d sigma) layers) x i =\n"
                      "      plain_comp (map (layer_block d sigma) plains) x i.\nProof.\n"
                      "  intros d sigma layers sigma_odd_part.\n"
                      "  exact (stack_widths_any_rank",
         "         (sigma_odd_part : forall z, sigma z - sigma (-z) = z)\n"
         "         (rows_span : Forall (fun L => row_rank d (width L) (Wup L) d) layers),\n"
         "  exists plains : list layer,\n"
         "    Forall2 (fun L P => exists r, row_rank d (width L) (Wup L) r /\\\n"
         "                                  width P = (width L + 2 * d - r)%nat) layers plains /\\\n"
         "    forall x i, (i < d)%nat ->\n"
         "      res_comp_id (map (layer_block d sigma) layers) x i =\n"
         "      plain_comp (map (layer_block d sigma) plains) x i.\nProof.\n"
         "  intros d sigma layers sigma_odd_part rows_span.\n"
         "  exact (stack_widths_any_rank")


def narrowed_pieces_definition(root: Path) -> None:
    """Issue 19: 'invertible piece' narrowed (the kernel condition asked only when d <= 1), so
    the hypothesis would hold for fewer stacks in d >= 2 than the claim says."""
    edit(root, NARROW, "  forall y : vec, (forall i, (i < d)%nat -> mv d A y i = 0) -> forall j, (j < d)%nat -> y j = 0.",
         "  forall y : vec, (forall i, (i < d)%nat -> mv d A y i = 0 \\/ (1 < d)%nat) ->\n"
         "  forall j, (j < d)%nat -> y j = 0.")


def vacuous_rank(root: Path) -> None:
    """Issue 19: linear independence made vacuous, so 'rank' could be any number of rows and
    the width m + 2d - rank any smaller number."""
    edit(root, RANK, "Definition indep (d r : nat) (V : nat -> vec) : Prop :=\n"
                     "  forall c : vec, (forall j, (j < d)%nat -> sum r (fun k => c k * V k j) = 0) ->\n"
                     "  forall k, (k < r)%nat -> c k = 0.",
         "Definition indep (d r : nat) (V : nat -> vec) : Prop := True.")


CLASSES = str(COQ / "ReluClasses.v")
COMPLETE = str(COQ / "ReluComplete.v")


def vacuous_m_star(root: Path) -> None:
    """Issue 19: relu-complete's m* made vacuous (width_suffices always true), so 'm' >= m*'
    would hold at every width and the sufficiency half would claim every width suffices."""
    edit(root, CLASSES, "Definition width_suffices (d m m' : nat) (M Wd Wu : mat) (bu : vec) : Prop :=\n"
                        "  exists (s T : nat -> bool) (k : nat),",
         "Definition width_suffices (d m m' : nat) (M Wd Wu : mat) (bu : vec) : Prop := True.\n"
         "Definition width_suffices_unused (d m m' : nat) (M Wd Wu : mat) (bu : vec) : Prop :=\n"
         "  exists (s T : nat -> bool) (k : nat),")


def narrowed_kink_classes(root: Path) -> None:
    """Issue 19: the kink classes of relu-complete compare the normals only and ignore the
    biases, so units on parallel but distinct hyperplanes would share one |h_H| term."""
    edit(root, CLASSES, "  vec_eqb d (nrow d Wu i) (nrow d Wu j) && req_b (nbias d Wu bu i) (nbias d Wu bu j).",
         "  vec_eqb d (nrow d Wu i) (nrow d Wu j).")


def complete_assumes_nondegenerate(root: Path) -> None:
    """Issue 19: the sufficiency half of relu-complete quietly assumes every row nonzero
    (nondegeneracy), which the claim does not: the degenerate instance no longer follows."""
    edit(root, COMPLETE, "Theorem relu_complete_sufficiency : forall d m m' M Wd Wu bu bd,\n"
                         "  width_suffices d m m' M Wd Wu bu -> realised d m m' M Wd Wu bu bd.\n"
                         "Proof.\n  intros d m m' M Wd Wu bu bd Hw.",
         "Theorem relu_complete_sufficiency : forall d m m' M Wd Wu bu bd\n"
         "  (nondegenerate : forall i, (i < m)%nat -> lead d (Wu i) <> 0),\n"
         "  width_suffices d m m' M Wd Wu bu -> realised d m m' M Wd Wu bu bd.\n"
         "Proof.\n  intros d m m' M Wd Wu bu bd nondegenerate Hw.")


NEC = str(COQ / "ReluCompleteNec.v")


def inflated_m_star(root: Path) -> None:
    """Issue 19: relu-complete's m* raised by one unit ('m' >= m* + 1'), so the necessity half
    would claim a lower bound above the least width; its proof (the unit count) must break."""
    edit(root, CLASSES, "    (count m (kink d m Wd Wu bu) + count m T + 2 * k <= m')%nat.",
         "    (count m (kink d m Wd Wu bu) + count m T + 2 * k + 1 <= m')%nat.")


def necessity_assumes_nondegenerate(root: Path) -> None:
    """Issue 19: the necessity half of relu-complete quietly assumes the units on pairwise
    distinct hyperplanes (no two in one class); the iff and the instance (two units on one
    kink line) no longer follow from it."""
    edit(root, NEC, "Theorem relu_complete_necessity : forall d m m' M Wd Wu bu bd,\n"
                    "  realised d m m' M Wd Wu bu bd -> width_suffices d m m' M Wd Wu bu.\n"
                    "Proof.\n  intros d m m' M Wd Wu bu bd",
         "Theorem relu_complete_necessity : forall d m m' M Wd Wu bu bd\n"
         "  (distinct_kinks : forall i j, (i < m)%nat -> (j < m)%nat -> i <> j ->\n"
         "     same_kink d Wu bu i j = false),\n"
         "  realised d m m' M Wd Wu bu bd -> width_suffices d m m' M Wd Wu bu.\n"
         "Proof.\n  intros d m m' M Wd Wu bu bd distinct_kinks")
QNORM = str(COQ / "QuantitativeNorm.v")


def norm_narrowed_to_norm1(root: Path) -> None:
    """homogeneous-any-width: 'any norm' quietly narrowed to the norm norm1 of Linalg.v."""
    edit(root, QNORM, "Definition is_norm (d : nat) (N : vec -> R) : Prop :=\n",
         "Definition is_norm (d : nat) (N : vec -> R) : Prop := N = norm1 d /\\\n")


def ck_positivity_weakened(root: Path) -> None:
    """homogeneous-any-width: the packaged quantitative theorem says only c >= 0 (so c = 0 would
    do), with the proof adjusted so that everything still compiles."""
    edit(root, QNORM, "  exists c, is_lub (gap_ratios k) c /\\ gap_ratios k c /\\ 0 < c /\\\n    forall (d : nat)",
         "  exists c, is_lub (gap_ratios k) c /\\ gap_ratios k c /\\ 0 <= c /\\\n    forall (d : nat)")
    edit(root, QNORM, "split; [exact Hc|].\n  intros d N rad", "split; [lra|].\n  intros d N rad")
D1 = str(COQ / "DepthD1.v")


def d1_assumes_wide_first_layer(root: Path) -> None:
    """depth-d1's characterisation quietly restricted to plain stacks whose first width is >= 2
    (where the axes case m'_1 = 1 never arises), under a binder that is no tag of the claim."""
    edit(root, D1, "         (widths_positive : ws <> [] /\\ Forall (fun m => (1 <= m)%nat) ws),\n"
                   "  (forall x : vec, res_stack d res x 0%nat =",
         "         (widths_positive : ws <> [] /\\ Forall (fun m => (1 <= m)%nat) ws)\n"
         "         (first_wide : (2 <= hd 0%nat ws)%nat),\n"
         "  (forall x : vec, res_stack d res x 0%nat =")
    edit(root, D1, "  intros d d_eq_1 res ws [Hne Hpos]. pose proof d_eq_1 as E1. subst d.",
         "  intros d d_eq_1 res ws [Hne Hpos] first_wide. pose proof d_eq_1 as E1. subst d.")
    # the corollary and the instance (first widths 2) still go through the narrowed theorem
    edit(root, D1, "  { split; [discriminate|]. constructor; [lia|exact Hpos]. }\n",
         "  { split; [discriminate|]. constructor; [lia|exact Hpos]. }\n  { simpl. exact Hm1. }\n")
    edit(root, str(COQ / "Instances.v"), "  { split; [discriminate|]. repeat constructor. }\n",
         "  { split; [discriminate|]. repeat constructor. }\n  { simpl. lia. }\n")


def d1_vacuous_quadrant_condition(root: Path) -> None:
    """depth-d1's width condition made vacuous in the closed-quadrant case (F(1) F(-1) >= 0
    replaced by True), so that the characterisation would allow every sign pattern there."""
    edit(root, D1, "      ((2 <= m1)%nat /\\ In 1%nat rest /\\ 0 <= a * b) \\/",
         "      ((2 <= m1)%nat /\\ In 1%nat rest /\\ True) \\/")
GENERIC = str(COQ / "GenericWeights.v")


def generic_vacuous_collinearity(root: Path) -> None:
    """generic-weights: 'no two rows collinear' made vacuous (an extra False premise), so any
    weights would count as nondegenerate and the d = 1 boundary case would disappear."""
    edit(root, GENERIC, "  (forall l l', (l < m)%nat -> (l' < m)%nat -> l <> l' ->\n"
                        "     ~ exists c : R, forall j, (j < d)%nat -> Wu l' j = c * Wu l j) /\\",
         "  (forall l l', (l < m)%nat -> (l' < m)%nat -> l <> l' -> False ->\n"
         "     ~ exists c : R, forall j, (j < d)%nat -> Wu l' j = c * Wu l j) /\\")


def generic_assumes_nondegenerate(root: Path) -> None:
    """generic-weights: the empty-interior theorem quietly assumes the given weights are
    nondegenerate already (a premise that is no tag of the claim)."""
    edit(root, GENERIC, "         (d_ge_2_iii : (2 <= d)%nat)\n         (eps_pos : 0 < eps),\n    (exists Wu' : mat,",
         "         (d_ge_2_iii : (2 <= d)%nat)\n         (nondegenerate : nondegenerate_weights d m Wd Wu)\n"
         "         (eps_pos : 0 < eps),\n    (exists Wu' : mat,")
    edit(root, GENERIC, "intros d m M Wd Wu eps M_invertible_ii d_ge_2_iii eps_pos.",
         "intros d m M Wd Wu eps M_invertible_ii d_ge_2_iii nondegenerate eps_pos.")


MUTATIONS: dict[str, Callable[[Path], None]] = {
    "baseline": lambda root: None,
    "vacuous_binder": vacuous_binder,
    "unnamed_false_premise": unnamed_false_premise,
    "narrowed_scope": narrowed_scope,
    "trivial_conclusion": trivial_conclusion,
    "smuggled_conclusion": smuggled_conclusion,
    "tag_with_other_type": tag_with_other_type,
    "changed_definition": changed_definition,
    "tags_nested_in_vacuous_hypothesis": tags_nested_in_vacuous_hypothesis,
    "module_shadow": module_shadow,
    "registry_switch_off": registry_switch_off,
    "registry_repoint_main": registry_repoint_main,
    "guard_checking_hole": guard_checking_hole,
    "top_level_hypothesis": top_level_hypothesis,
    "instance_of_another_claim": instance_of_another_claim,
    "instance_stated_with_project_definitions": instance_stated_with_project_definitions,
    "counterexample_for_another_tag": counterexample_for_another_tag,
    "axiom_used_by_a_lemma": axiom_used_by_a_lemma,
    "hand_edited_pin": hand_edited_pin,
    "narrow_assumes_nondegenerate": narrow_assumes_nondegenerate,
    "width_assumes_rows_span": width_assumes_rows_span,
    "narrowed_pieces_definition": narrowed_pieces_definition,
    "vacuous_rank": vacuous_rank,
    "vacuous_m_star": vacuous_m_star,
    "narrowed_kink_classes": narrowed_kink_classes,
    "complete_assumes_nondegenerate": complete_assumes_nondegenerate,
    "inflated_m_star": inflated_m_star,
    "necessity_assumes_nondegenerate": necessity_assumes_nondegenerate,
    "norm_narrowed_to_norm1": norm_narrowed_to_norm1,
    "ck_positivity_weakened": ck_positivity_weakened,
    "d1_assumes_wide_first_layer": d1_assumes_wide_first_layer,
    "d1_vacuous_quadrant_condition": d1_vacuous_quadrant_condition,
    "generic_vacuous_collinearity": generic_vacuous_collinearity,
    "generic_assumes_nondegenerate": generic_assumes_nondegenerate,
}


def _findings(root: str) -> list[str]:
    """The whole check (compiled) on one copy; runs in a worker process."""
    return C.check_all(Path(root))["findings"]


def _recompiled(root: Path) -> int:
    """How many .v files the build of a mutated copy recompiles: the changed ones and every
    file that imports one of them (directly or not), read from the sources."""
    coq = root / COQ
    stems = [Path(f).stem for f in coqsource.project_files(coq)]
    imports = {}
    for stem in stems:
        text = coqsource.strip_comments_and_strings((coq / f"{stem}.v").read_text())
        imports[stem] = {w for s in coqsource.sentences(text) if s.text.split()[:2] == ["From", "SkipAbsorption"]
                         for w in s.text.split()[3:]}
    dirty = {s for s in stems if (coq / f"{s}.v").read_bytes() != (C.ROOT / COQ / f"{s}.v").read_bytes()}
    for stem in stems:  # _CoqProject lists a file after everything it imports
        if imports[stem] & dirty:
            dirty.add(stem)
    return len(dirty)


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, list[str]]:
    """Run the whole check (compiled) on one mutated copy per attack, two at a time.
    (MUTATIONS_ONLY=a,b restricts the run while developing; the other tests then fail.)

    Every copy carries the .vo files of one shared baseline build, so its build recompiles
    only the mutated files and the files that import them.  The attacks whose build is
    longest start first, and they run in two processes (the Python half of the check holds
    the GIL, so threads would take turns on it)."""
    import os
    only = [m for m in os.environ.get("MUTATIONS_ONLY", "").split(",") if m]
    ok, errors, _, _ = coqcheck.build((C.ROOT / COQ).resolve())
    assert ok, errors
    roots = {}
    for name in only or MUTATIONS:
        roots[name] = C.copy_sources(tmp_path_factory.mktemp(name), with_build=True)
        MUTATIONS[name](roots[name])
    # the unmutated copy first: its claim-by-claim Print Assumptions fill the proof check's cache
    # (oracle/formal/coqcheck.py), which every copy then reads for the claims its change cannot reach
    order = sorted(roots, key=lambda name: (name != "baseline", -_recompiled(roots[name])))
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("fork")) as pool:
        running = {name: pool.submit(_findings, str(roots[name])) for name in order}
        return {name: job.result() for name, job in running.items()}


def has(found: list[str], claim: str, *parts: str) -> bool:
    """Some one-line finding names the claim and contains every part."""
    return any(f.startswith(claim + ": ") and all(p in f for p in parts) for f in found)


def test_unmodified_copy_passes(results):
    assert results["baseline"] == []


def test_1a_vacuous_binder(results):
    r = results["vacuous_binder"]
    assert has(r, "homogeneous-impossible", "Coq SkipAbsorption.Homogeneous.homogeneous_impossible assumes 'vacuous'"), r
    assert has(r, "homogeneous-impossible", "Coq does not compile: Instances.v"), r


def test_1b_unnamed_false_premise(results):
    r = results["unnamed_false_premise"]
    assert has(r, "gated-impossible", "Coq SkipAbsorption.Gated.gated_impossible has an unnamed premise"), r


def test_2_narrowed_scope(results):
    r = results["narrowed_scope"]
    assert has(r, "depth-impossible", "Coq SkipAbsorption.Depth.depth_impossible assumes 'd_one'", "narrows"), r


def test_3_trivial_conclusion(results):
    r = results["trivial_conclusion"]
    # The corollaries and the instance no longer follow from a trivial statement.
    assert has(r, "relu-gelu-iff", "Coq does not compile: Activations.v"), r


def test_4_conclusion_smuggled_under_a_tag(results):
    r = results["smuggled_conclusion"]
    assert has(r, "gated-impossible", "Coq does not compile: Instances.v"), r


def test_5_tag_with_a_different_type(results):
    r = results["tag_with_other_type"]
    assert has(r, "homogeneous-impossible", "Coq statement of SkipAbsorption.Homogeneous.homogeneous_impossible "
               "changed since it was pinned"), r
    # Its k_ne_1 counterexample no longer matches the statement without M_nonzero either.
    assert has(r, "homogeneous-impossible", "counterexample SkipAbsorption.Counterexamples."
               "homogeneous_impossible_needs_M_nonzero does not prove"), r


def test_6_changed_definition(results):
    r = results["changed_definition"]
    # the build stops at the first file that no longer compiles (Quantitative.v or Instances.v,
    # depending on the build order); the claim's instance lemma is then reported unchecked
    assert any(f.startswith("-: Coq does not compile: ") for f in r), r
    assert has(r, "homogeneous-impossible", "Instances.v did not compile", "relu2_width1_not_absorbable"), r


def test_7_tags_nested_inside_a_vacuous_hypothesis(results):
    r = results["tags_nested_in_vacuous_hypothesis"]
    assert has(r, "depth-any", "hypothesis tag 'res_blocks_flat' is not a top-level named binder of Coq "
               "SkipAbsorption.Depth.depth_any"), r
    assert has(r, "depth-any", "assumes 'vac'"), r


def test_8_module_shadow_is_not_read(results):
    r = results["module_shadow"]
    assert has(r, "homogeneous-impossible", "SkipAbsorption.Homogeneous.homogeneous_impossible assumes 'vacuous'"), r


def test_9a_registry_switch_off_without_reason(results):
    r = results["registry_switch_off"]
    assert has(r, "homogeneous-impossible", "'coq_hypotheses' weakens the binder check and needs a reason"), r


def test_9b_registry_main_repointed(results):
    r = results["registry_repoint_main"]
    assert has(r, "homogeneous-impossible", "hypothesis tag 'k_ne_1' is not a top-level named binder of Coq "
               "SkipAbsorption.Linalg.sum_plus"), r
    assert has(r, "homogeneous-impossible", "does not apply the main theorem SkipAbsorption.Linalg.sum_plus"), r


def test_10_guard_checking_hole(results):
    r = results["guard_checking_hole"]
    assert any("proofs/coq/Gated.v" in f and "Guard Checking" in f for f in r), r
    assert has(r, "gated-impossible", "Print Assumptions shows", "loop is assumed to be guarded"), r


def test_12_top_level_hypothesis(results):
    r = results["top_level_hypothesis"]
    assert any("proofs/coq/Gated.v" in f and "'Hypothesis' outside a section adds an axiom" in f for f in r), r
    assert has(r, "gated-impossible", "Print Assumptions shows", "cheat"), r


def test_instance_must_use_its_own_main_theorem(results):
    r = results["instance_of_another_claim"]
    assert has(r, "gated-continuity", "does not apply the main theorem SkipAbsorption.Gated.gated_continuity"), r


def test_instance_must_be_stated_with_the_standard_library_only(results):
    r = results["instance_stated_with_project_definitions"]
    assert has(r, "homogeneous-any-width", "instance SkipAbsorption.Activations.relu2_not_absorbable mentions",
               "Linalg.block"), r


def test_counterexample_must_drop_exactly_its_hypothesis(results):
    r = results["counterexample_for_another_tag"]
    assert has(r, "homogeneous-impossible", "does not prove that SkipAbsorption.Homogeneous.homogeneous_impossible "
               "without 'k_ne_1' is false"), r


def test_axiom_in_a_counterexample_lemma(results):
    r = results["axiom_used_by_a_lemma"]
    assert any("Counterexamples.v" in f and "'Axiom cheat' adds an assumption" in f for f in r), r
    assert has(r, "homogeneous-impossible", "Print Assumptions shows", "axiom Counterexamples.cheat"), r


def test_hand_edited_pin_is_caught(results):
    r = results["hand_edited_pin"]
    assert has(r, "homogeneous-impossible", "Coq statement of SkipAbsorption.Homogeneous.homogeneous_impossible "
               "changed since it was pinned"), r


def test_narrow_quietly_assuming_nondegeneracy_is_refused(results):
    r = results["narrow_assumes_nondegenerate"]
    assert has(r, "depth-narrow", "Coq SkipAbsorption.DepthNarrow.depth_narrow assumes 'nondegenerate'",
               "narrowed tag list"), r
    # Its instance lemmas no longer follow from the narrowed statement.
    assert has(r, "depth-narrow", "Coq does not compile: Instances.v"), r


def test_width_quietly_assuming_rank_d_is_refused(results):
    r = results["width_assumes_rows_span"]
    assert has(r, "depth-width", "Coq SkipAbsorption.DepthStack.depth_width_any_rank assumes 'rows_span'",
               "formal_not_needed"), r


def test_narrowed_invertible_pieces_is_refused(results):
    r = results["narrowed_pieces_definition"]
    assert has(r, "depth-narrow", "did not compile"), r


def test_vacuous_rank_is_refused(results):
    r = results["vacuous_rank"]
    assert has(r, "depth-width", "did not compile"), r


def compile_failure(found: list[str], file: str) -> bool:
    """The build stops in `file` (reported under the claim once one is registered there, else '-')."""
    return any(f"Coq does not compile: {file}:" in f for f in found)


def test_vacuous_m_star_is_refused(results):
    r = results["vacuous_m_star"]
    # With m* vacuous the sufficiency half is false: its proof (and the instances) break.
    assert compile_failure(r, "ReluComplete.v"), r


def test_kink_classes_ignoring_biases_are_refused(results):
    r = results["narrowed_kink_classes"]
    # The canonical form (one |h_H| per affine hyperplane) no longer holds.
    assert compile_failure(r, "ReluClasses.v"), r


def test_relu_complete_quietly_assuming_nondegeneracy_is_refused(results):
    r = results["complete_assumes_nondegenerate"]
    # relu_complete (the iff) and the degenerate instance (a zero row) cannot supply the
    # extra premise: the build stops in ReluCompleteIff.v, reported under relu-complete.
    assert has(r, "relu-complete", "Coq does not compile: ReluCompleteIff.v"), r


def test_inflated_m_star_is_refused(results):
    r = results["inflated_m_star"]
    # The necessity half proves exactly |kinks| + |T| + 2k' <= m'; one more unit does not follow.
    assert compile_failure(r, "ReluCompleteNec.v"), r


def test_relu_complete_necessity_quietly_assuming_distinct_kinks_is_refused(results):
    r = results["necessity_assumes_nondegenerate"]
    # The iff and the instance x + 2 relu(x) + 2 relu(-x) (two units on one kink) use the
    # necessity without the extra premise.
    assert compile_failure(r, "ReluCompleteIff.v"), r
def test_norm_narrowed_to_norm1_is_refused(results):
    r = results["norm_narrowed_to_norm1"]
    assert has(r, "homogeneous-any-width", "did not compile"), r


def test_weakened_ck_positivity_is_refused(results):
    r = results["ck_positivity_weakened"]
    assert has(r, "homogeneous-any-width", "Coq statement of "
               "SkipAbsorption.QuantitativeNorm.homogeneous_any_width_quantitative changed since it was pinned"), r
def test_d1_quietly_assuming_a_wide_first_layer_is_refused(results):
    r = results["d1_assumes_wide_first_layer"]
    assert has(r, "depth-d1", "Coq SkipAbsorption.DepthD1.depth_d1 assumes 'first_wide'",
               "neither a hypothesis tag"), r


def test_d1_vacuous_width_condition_is_refused(results):
    r = results["d1_vacuous_quadrant_condition"]
    assert has(r, "depth-d1", "did not compile"), r
def test_generic_vacuous_collinearity_is_refused(results):
    r = results["generic_vacuous_collinearity"]
    assert has(r, "generic-weights", "did not compile"), r


def test_generic_quietly_assuming_nondegeneracy_is_refused(results):
    # The instance (in the same file) no longer follows from the narrowed statement: its zero
    # weights are degenerate, so the file stops compiling and nothing of the claim is accepted.
    r = results["generic_assumes_nondegenerate"]
    assert has(r, "generic-weights", "Coq does not compile: GenericWeights.v"), r
