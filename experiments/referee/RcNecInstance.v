(** Referee (helper refrc): a necessity instance of relu-complete on a degenerate block,
    proved through [relu_complete_necessity] (the registered instances of ReluComplete.v
    only go through the sufficiency half).  [d = 1]: [F(t) = t + 2 relu(t) + 2 relu(-t)]
    ([= t + 2|t|]: two units with opposite rows on one kink) is no relu unit with
    biases, [a relu(b t + c) + e].  In the Coq data: one kink class with [alpha = 2], so
    [m* <= 1] would need [T] empty, [k = 0] and [N_s = 1 - 2 s = 0], impossible.
    Not part of the development: compile with
    [coqc -R proofs/coq SkipAbsorption experiments/referee/RcNecInstance.v]. *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg Limit RealActivations ReluClasses ReluCompleteNec ReluComplete.
Open Scope R_scope.

Lemma rc_necessity_opposite_rows :
  ~ (exists a b c e : R, forall t : R,
       t + (2 * Rmax t 0 + 2 * Rmax (- t) 0) = a * Rmax (b * t + c) 0 + e).
Proof.
  intros (a & b & c & e & H).
  set (M := fun _ _ : nat => 1).
  set (Wd := fun _ _ : nat => 2).
  set (Wu := fun l _ : nat => match l with O => 1 | _ => -1 end).
  set (bu := fun _ : nat => 0).
  assert (Hr : realised 1 2 1 M Wd Wu bu (fun _ => 0)).
  { exists (fun _ _ => a), (fun _ _ => b), (fun _ => c), (fun _ => e).
    intros x i Hi. assert (i = 0%nat) by lia. subst i.
    unfold bblock, mv, relu, M, Wd, Wu, bu. cbn [sum]. specialize (H (x 0%nat)).
    replace (0 + 1 * x 0%nat + 0) with (x 0%nat) by ring.
    replace (0 + 1 * x 0%nat) with (x 0%nat) by ring.
    replace (0 + b * x 0%nat + c) with (b * x 0%nat + c) by ring.
    replace (0 + -1 * x 0%nat + 0) with (- x 0%nat) by ring.
    lra. }
  destruct (relu_complete_necessity 1 2 1 M Wd Wu bu (fun _ => 0) Hr) as (s & T & k & HT & (y & al & l & HN) & Hc).
  assert (L0 : lead 1 (Wu 0%nat) = 1) by (rewrite lead_1; reflexivity).
  assert (L1 : lead 1 (Wu 1%nat) = -1) by (rewrite lead_1; reflexivity).
  assert (S00 : same_kink 1 Wu bu 0 0 = true) by (apply same_kink_refl; rewrite L0; lra).
  assert (S01 : same_kink 1 Wu bu 0 1 = true).
  { apply same_kink_true. rewrite L0, L1. repeat split; try lra.
    - intros q Hq. unfold nrow. rewrite L0, L1. destruct q as [|q]; [|lia]. unfold Wu. field.
    - unfold nbias. rewrite L0, L1. unfold bu. field. }
  assert (F0 : first_of_class 1 Wu bu 0 = true)
    by (apply first_of_class_true; split; [rewrite L0; lra|intros; lia]).
  assert (F1 : first_of_class 1 Wu bu 1 = false).
  { destruct (first_of_class 1 Wu bu 1) eqn:E; [|reflexivity].
    apply first_of_class_true in E. rewrite (proj2 E 0%nat ltac:(lia)) in S01. discriminate. }
  assert (A0 : alpha 1 2 Wd Wu bu 0 0%nat = 2).
  { unfold alpha. cbn [sum]. rewrite S00, S01, L0, L1, Rabs_R1.
    replace (Rabs (-1)) with 1 by (unfold Rabs; destruct (Rcase_abs (-1)); lra).
    unfold Wd. field. }
  assert (K0 : kink 1 2 Wd Wu bu 0 = true)
    by (apply kink_true; split; [exact F0|exists 0%nat; split; [lia|rewrite A0; lra]]).
  assert (K1 : kink 1 2 Wd Wu bu 1 = false) by (apply kink_not_first; exact F1).
  (* the count forces T empty on the units and k = 0 *)
  cbn [count] in Hc. rewrite K0, K1 in Hc.
  destruct (T 0%nat) eqn:T0; [simpl in Hc; lia|].
  destruct (T 1%nat) eqn:T1; [simpl in Hc; lia|].
  assert (k = 0%nat) by (simpl in Hc; lia). subst k.
  specialize (HN 0%nat 0%nat ltac:(lia) ltac:(lia)).
  unfold Nmat in HN. cbn [sum] in HN. rewrite K0, K1, T0, T1, A0 in HN.
  unfold nrow in HN. rewrite L0 in HN. unfold M, Wd, Wu, sgn in HN.
  destruct (s 0%nat); lra.
Qed.

Print Assumptions rc_necessity_opposite_rows.
