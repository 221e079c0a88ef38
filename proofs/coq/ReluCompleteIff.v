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
From SkipAbsorption Require Import Linalg SignFlip RealActivations Limit ReluClasses ReluCompleteNec
  ReluComplete.
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

(** A bias-free relu block is 0 at [x = 0] ([relu 0 = 0]), and so is
    [M x]; hence when [M x + B x] is not 0 at [x = 0] (some coordinate [i]),
    no bias-free relu block, of any width [m'], equals it.  [B] may carry
    biases. *)
Theorem relu_bias_free_value_at_zero : forall d m m' M Wd Wu bu bd i,
  (i < d)%nat ->
  mv d M (fun _ => 0) i + bblock d m relu Wd Wu bu bd (fun _ => 0) i <> 0 ->
  ~ (exists Wd' Wu' : mat, forall x j, (j < d)%nat ->
       mv d M x j + bblock d m relu Wd Wu bu bd x j = block d m' relu Wd' Wu' x j).
Proof.
  intros d m m' M Wd Wu bu bd i Hi H0 (Wd' & Wu' & H).
  apply H0. rewrite (H _ i Hi). unfold block, readout. apply sum_zero. intros l _.
  assert (Z : mv d Wu' (fun _ => 0) l = 0) by (unfold mv; apply sum_zero; intros; ring).
  rewrite Z. unfold relu. rewrite Rmax_left by lra. ring.
Qed.

(** In [d = 1], two nonzero units without biases share the kink [x = 0]. *)
Lemma same_kink_d1_zero_bias : forall Wu, Wu 0%nat 0%nat <> 0 -> Wu 1%nat 0%nat <> 0 ->
  same_kink 1 Wu (fun _ => 0) 0 1 = true.
Proof.
  intros Wu H0 H1. apply same_kink_true. rewrite !lead_1. repeat split; try assumption.
  - intros k Hk. unfold nrow. rewrite !lead_1. destruct k as [|k]; [|lia]. field. split; assumption.
  - unfold nbias. rewrite !lead_1. field. split; assumption.
Qed.

(** Two units with leading entries, the second on the hyperplane of the
    first: unit 0 is the first of its class, unit 1 is not. *)
Lemma first_two_units : forall d Wu bu, lead d (Wu 0%nat) <> 0 -> same_kink d Wu bu 0 1 = true ->
  same_kink d Wu bu 0 0 = true /\ first_of_class d Wu bu 0 = true /\ first_of_class d Wu bu 1 = false.
Proof.
  intros d Wu bu L0 S01. split; [apply same_kink_refl; exact L0|]. split.
  - apply first_of_class_true. split; [exact L0|intros; lia].
  - destruct (first_of_class d Wu bu 1) eqn:E; [|reflexivity].
    apply first_of_class_true in E. rewrite (proj2 E 0%nat ltac:(lia)) in S01. discriminate.
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
  assert (S01 : same_kink 1 Wu bu 0 1 = true)
    by (apply same_kink_d1_zero_bias; unfold Wu; cbv beta iota; lra).
  destruct (first_two_units 1 Wu bu ltac:(rewrite L0; lra) S01) as (S00 & F0 & F1).
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

(** ** Instances of the sufficiency, through [relu_complete] and
    [relu_complete_bias_free] (statements with the standard library only) *)

(** A degenerate block in [d = 2]: the rows [(1, 0)] and [(-1, 0)] lie on
    one kink line [x = 0] with opposite orientations, and a third unit has
    the zero row and bias [1] (a constant).  With [M = diag(1, 0)],
    [F(x, y) = (x + 2 relu(x) + 2 relu(-x), relu(1))] is [(x + 2|x|, 1)]:
    one class with [alpha = (2, 0)], [L = 0], and [T = {the class}] gives
    [m* <= 1 + 1 + 0 = 2].  So [F] is a relu block of width 2 with biases
    ([3 relu(x) + relu(-x)] and the down-bias [(0, 1)]). *)
Lemma relu_complete_degenerate_instance :
  exists w00 w01 w10 w11 u00 u01 u10 u11 c0 c1 b0 b1 : R, forall x y : R,
    x + (2 * Rmax x 0 + 2 * Rmax (- x) 0 + 0 * Rmax (0 * x + 0 * y + 1) 0) =
      w00 * Rmax (u00 * x + u01 * y + c0) 0 + w01 * Rmax (u10 * x + u11 * y + c1) 0 + b0 /\
    0 + (0 * Rmax x 0 + 0 * Rmax (- x) 0 + 1 * Rmax (0 * x + 0 * y + 1) 0) =
      w10 * Rmax (u00 * x + u01 * y + c0) 0 + w11 * Rmax (u10 * x + u11 * y + c1) 0 + b1.
Proof.
  set (M := fun o j : nat => match o, j with O, O => 1 | _, _ => 0 end).
  set (Wd := fun o l : nat => match o, l with O, O => 2 | O, S O => 2 | S O, S (S O) => 1 | _, _ => 0 end).
  set (Wu := fun l j : nat => match l, j with O, O => 1 | S O, O => -1 | _, _ => 0 end).
  set (bu := fun l : nat => match l with S (S O) => 1 | _ => 0 end).
  set (bd := fun _ : nat => 0).
  assert (L0 : lead 2 (Wu 0%nat) = 1) by (rewrite lead_2_nz; unfold Wu; simpl; lra).
  assert (L1 : lead 2 (Wu 1%nat) = -1) by (rewrite lead_2_nz; unfold Wu; simpl; lra).
  assert (L2 : lead 2 (Wu 2%nat) = 0) by (rewrite lead_2_z; unfold Wu; simpl; lra).
  assert (S01 : same_kink 2 Wu bu 0 1 = true).
  { apply same_kink_true. rewrite L0, L1. repeat split; try lra.
    - intros k Hk. unfold nrow. rewrite L0, L1. destruct k as [|[|k]]; [| |lia]; unfold Wu; simpl; field.
    - unfold nbias. rewrite L0, L1. unfold bu. field. }
  assert (S02 : same_kink 2 Wu bu 0 2 = false) by (apply same_kink_zero_r; exact L2).
  destruct (first_two_units 2 Wu bu ltac:(rewrite L0; lra) S01) as (S00 & F0 & F1).
  assert (F2 : first_of_class 2 Wu bu 2 = false).
  { destruct (first_of_class 2 Wu bu 2) eqn:E; [|reflexivity].
    apply first_of_class_true in E. destruct E as [E _]. contradiction. }
  assert (A0 : alpha 2 3 Wd Wu bu 0 0%nat = 2).
  { unfold alpha. cbn [sum]. rewrite S00, S01, S02, L0, L1, Rabs_R1.
    replace (Rabs (-1)) with 1 by (unfold Rabs; destruct (Rcase_abs (-1)); lra).
    unfold Wd. simpl. field. }
  assert (A1 : alpha 2 3 Wd Wu bu 0 1%nat = 0).
  { unfold alpha. cbn [sum]. rewrite S00, S01, S02. unfold Wd. simpl. field. }
  assert (K0 : kink 2 3 Wd Wu bu 0 = true)
    by (apply kink_true; split; [exact F0|exists 0%nat; split; [lia|rewrite A0; lra]]).
  assert (K1 : kink 2 3 Wd Wu bu 1 = false) by (apply kink_not_first; exact F1).
  assert (K2 : kink 2 3 Wd Wu bu 2 = false) by (apply kink_not_first; exact F2).
  assert (Hw : width_suffices 2 3 2 M Wd Wu bu).
  { exists (fun _ => false), (fun r => Nat.eqb r 0), 0%nat. split; [|split].
    - intros r Hr HT. apply Nat.eqb_eq in HT. subst r. exact K0.
    - exists (fun r o => match o with O => -1 | _ => 0 end), (fun _ _ => 0), (fun _ _ => 0).
      intros o j Ho Hj. unfold Nmat. cbn [sum]. rewrite K0, K1, K2. unfold sgn.
      unfold nrow. rewrite L0.
      destruct o as [|[|o]]; [| |lia]; [rewrite A0|rewrite A1];
        destruct j as [|[|j]]; try lia; unfold M, Wd, Wu; simpl; field.
    - cbn [count]. rewrite K0, K1, K2. simpl. lia. }
  destruct (proj2 (relu_complete 2 3 2 M Wd Wu bu bd) Hw) as (Wd' & Wu' & bu' & bd' & H).
  exists (Wd' 0%nat 0%nat), (Wd' 0%nat 1%nat), (Wd' 1%nat 0%nat), (Wd' 1%nat 1%nat),
    (Wu' 0%nat 0%nat), (Wu' 0%nat 1%nat), (Wu' 1%nat 0%nat), (Wu' 1%nat 1%nat),
    (bu' 0%nat), (bu' 1%nat), (bd' 0%nat), (bd' 1%nat).
  intros x y. pose proof (H (v2 x y) 0%nat ltac:(lia)) as H0. pose proof (H (v2 x y) 1%nat ltac:(lia)) as H1.
  unfold bblock, mv, relu, M, Wd, Wu, bu, bd, v2 in H0, H1. cbn [sum] in H0, H1. simpl in H0, H1.
  split.
  - align H0. lra.
  - align H1. lra.
Qed.

(** An [alpha = 0] class, bias-free, [d = 1]: [2 relu(x) - relu(2x) = 0], so
    [F(x) = x + 2 relu(x) - relu(2x)] has no kink, [N = 1] and [m* = 2]
    ([x = relu(x) - relu(-x)]): a bias-free relu block of width 2. *)
Lemma relu_complete_alpha_zero_instance :
  exists w0 w1 u0 u1 : R, forall x : R,
    x + (2 * Rmax x 0 - Rmax (2 * x) 0) = w0 * Rmax (u0 * x) 0 + w1 * Rmax (u1 * x) 0.
Proof.
  set (M := fun _ _ : nat => 1).
  set (Wd := fun _ l : nat => match l with O => 2 | _ => -1 end).
  set (Wu := fun l _ : nat => match l with O => 1 | _ => 2 end).
  set (bu := fun _ : nat => 0).
  assert (L0 : lead 1 (Wu 0%nat) = 1) by (rewrite lead_1; reflexivity).
  assert (L1 : lead 1 (Wu 1%nat) = 2) by (rewrite lead_1; reflexivity).
  assert (S01 : same_kink 1 Wu bu 0 1 = true)
    by (apply same_kink_d1_zero_bias; unfold Wu; cbv beta iota; lra).
  destruct (first_two_units 1 Wu bu ltac:(rewrite L0; lra) S01) as (S00 & F0 & F1).
  assert (A0 : alpha 1 2 Wd Wu bu 0 0%nat = 0).
  { unfold alpha. cbn [sum]. rewrite S00, S01, L0, L1, Rabs_R1, (Rabs_pos_eq 2) by lra.
    unfold Wd. field. }
  assert (K0 : kink 1 2 Wd Wu bu 0 = false).
  { destruct (kink 1 2 Wd Wu bu 0) eqn:E; [|reflexivity]. apply kink_true in E.
    destruct E as (_ & o & Ho & Hne). assert (o = 0%nat) by lia. subst o. contradiction. }
  assert (K1 : kink 1 2 Wd Wu bu 1 = false) by (apply kink_not_first; exact F1).
  assert (Hw : width_suffices 1 2 2 M Wd Wu bu).
  { exists (fun _ => false), (fun _ => false), 1%nat. split; [|split].
    - intros r _ HT. discriminate.
    - exists (fun _ _ => 0), (fun _ _ => 1), (fun _ _ => 1).
      intros o j Ho Hj. unfold Nmat. cbn [sum]. rewrite K0, K1. unfold M, Wd, Wu. field.
    - cbn [count]. rewrite K0, K1. simpl. lia. }
  destruct (proj2 (proj2 (relu_complete_bias_free 1 2 2 M Wd Wu)) Hw) as (Wd' & Wu' & H).
  exists (Wd' 0%nat 0%nat), (Wd' 0%nat 1%nat), (Wu' 0%nat 0%nat), (Wu' 1%nat 0%nat).
  intros x. pose proof (H (v1 x) 0%nat ltac:(lia)) as H0.
  unfold block, readout, mv, relu, M, Wd, Wu, v1 in H0. cbn [sum] in H0. simpl in H0.
  align H0. lra.
Qed.
