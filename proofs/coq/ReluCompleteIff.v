(** * relu-complete, both directions

    [relu_complete]: for every relu block [B] (biases allowed, degenerate
    allowed, any [d]) and every [M], a relu block of width [m'] (biases
    allowed) equals [x -> M x + B x] iff [m* <= m'] ([width_suffices] of
    ReluClasses.v).  Necessity: ReluCompleteNec.v; sufficiency:
    ReluComplete.v.

    [relu_complete_bias_free]: for a bias-free [B], biases in [B'] never
    save a unit: a biased block of width [m'] equals [M x + B x] iff a
    bias-free one does, iff [m* <= m']. *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg SignFlip Activations Limit ReluClasses
  ReluCompleteNec ReluComplete.
Open Scope R_scope.

Theorem relu_complete : forall d m m' M Wd Wu bu bd,
  realised d m m' M Wd Wu bu bd <-> width_suffices d m m' M Wd Wu bu.
Proof.
  intros. split; [apply relu_complete_necessity|apply relu_complete_sufficiency].
Qed.

Theorem relu_complete_bias_free : forall d m m' M Wd Wu,
  ((exists (Wd' Wu' : mat) (bu' bd' : vec), forall x i, (i < d)%nat ->
      mv d M x i + block d m relu Wd Wu x i = bblock d m' relu Wd' Wu' bu' bd' x i) <->
   width_suffices d m m' M Wd Wu (fun _ => 0)) /\
  ((exists Wd' Wu' : mat, forall x i, (i < d)%nat ->
      mv d M x i + block d m relu Wd Wu x i = block d m' relu Wd' Wu' x i) <->
   width_suffices d m m' M Wd Wu (fun _ => 0)).
Proof.
  intros d m m' M Wd Wu.
  assert (Nec : (exists (Wd' Wu' : mat) (bu' bd' : vec), forall x i, (i < d)%nat ->
      mv d M x i + block d m relu Wd Wu x i = bblock d m' relu Wd' Wu' bu' bd' x i) ->
      width_suffices d m m' M Wd Wu (fun _ => 0)).
  { intros (Wd' & Wu' & bu' & bd' & H). apply (relu_complete_necessity d m m' M Wd Wu _ (fun _ => 0)).
    exists Wd', Wu', bu', bd'. intros x i Hi. rewrite bblock_no_bias. apply H, Hi. }
  split; split.
  - exact Nec.
  - intros Hw. destruct (relu_complete_sufficiency_bias_free d m m' M Wd Wu Hw) as (Wd' & Wu' & H).
    exists Wd', Wu', (fun _ => 0), (fun _ => 0). intros x i Hi. rewrite bblock_no_bias. apply H, Hi.
  - intros (Wd' & Wu' & H). apply Nec. exists Wd', Wu', (fun _ => 0), (fun _ => 0).
    intros x i Hi. rewrite bblock_no_bias. apply H, Hi.
  - exact (relu_complete_sufficiency_bias_free d m m' M Wd Wu).
Qed.

(** ** An instance of the necessity, through [relu_complete]

    [d = 1], [M = 1], [B(x) = 2 relu(x) + 2 relu(-x)]: [F(x) = x + 2|x|] has
    one kink ([alpha = 2]) and [L = 0], so [N_s = 1 - 2 s] is never zero and
    [m* = 2]: no relu unit with biases, [w relu(u x + c) + b], equals [F]. *)
Lemma relu_complete_necessity_instance :
  ~ (exists w u c b : R, forall x : R,
       x + (2 * Rmax x 0 + 2 * Rmax (- x) 0) = w * Rmax (u * x + c) 0 + b).
Proof.
  intros (w & u & c & b & H).
  set (M := fun _ _ : nat => 1).
  set (Wd := fun _ _ : nat => 2).
  set (Wu := fun l _ : nat => match l with O => 1 | _ => -1 end).
  set (bu := fun _ : nat => 0).
  set (bd := fun _ : nat => 0).
  assert (Hr : realised 1 2 1 M Wd Wu bu bd).
  { exists (fun _ _ => w), (fun _ _ => u), (fun _ => c), (fun _ => b).
    intros x i Hi. pose proof (H (x 0%nat)) as H0.
    unfold bblock, mv, relu, M, Wd, Wu, bu, bd. cbn [sum]. simpl.
    align H0. lra. }
  destruct (proj1 (relu_complete 1 2 1 M Wd Wu bu bd) Hr) as (s & T & k & HT & Hc & Hcount).
  assert (L0 : lead 1 (Wu 0%nat) = 1) by (rewrite lead_1; reflexivity).
  assert (L1 : lead 1 (Wu 1%nat) = -1) by (rewrite lead_1; reflexivity).
  assert (S00 : same_kink 1 Wu bu 0 0 = true) by (apply same_kink_refl; rewrite L0; lra).
  assert (S01 : same_kink 1 Wu bu 0 1 = true).
  { apply same_kink_true. rewrite L0, L1. repeat split; try lra.
    - intros j Hj. unfold nrow. rewrite L0, L1. destruct j as [|j]; [|lia]. unfold Wu. field.
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
  cbn [count] in Hcount. rewrite K0, K1 in Hcount.
  destruct (T 0%nat) eqn:T0; [simpl in Hcount; lia|].
  destruct (T 1%nat) eqn:T1; [simpl in Hcount; lia|].
  assert (k = 0%nat) by (simpl in Hcount; lia). subst k.
  destruct Hc as (y & a & l & Hc). specialize (Hc 0%nat 0%nat ltac:(lia) ltac:(lia)).
  unfold Nmat in Hc. cbn [sum] in Hc. rewrite K0, K1, T0, T1, A0 in Hc.
  unfold nrow in Hc. rewrite L0 in Hc. unfold sgn, M, Wd, Wu in Hc.
  destruct (s 0%nat); lra.
Qed.
