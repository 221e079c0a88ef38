(** * Instance lemmas: each registered main theorem applied to one concrete,
    hand-checkable instance.

    Rules for this file (checked by the audit, see oracle/formal/consistency.py):
    - every lemma statement mentions only the standard library (real
      arithmetic, [Rmax], [Rabs], [exp], lists), never a definition of this
      development, so that a reader can check it by eye and a changed
      definition ([relu2], [block], ...) cannot change what it says;
    - every proof goes through the claim's main theorem, so a vacuous or
      narrowed main theorem no longer proves its instance.

    Notation used in the comments: relu z = max(z, 0) = [Rmax z 0]; silu z =
    z / (1 + e^-z); sigmoid z = 1 / (1 + e^-z). *)

From Coq Require Import Reals Lra Lia List.
From SkipAbsorption Require Import Linalg SkipReduction Homogeneous Gated Depth SignFlip Activations
  Width Rank DepthStack DepthNarrow RealActivations Limit BiasedFlip DepthD1.
Import ListNotations.
Open Scope R_scope.

(** ** Small tools (used in proofs only) *)

Lemma one_nonzero : nonzero_mat 1 ident.
Proof.
  exists 0%nat, 0%nat. repeat split; try lia.
  unfold ident, kron. destruct (Nat.eq_dec 0 0); [lra|congruence].
Qed.

Lemma two_nonzero : nonzero_mat 2 ident.
Proof.
  exists 0%nat, 0%nat. repeat split; try lia.
  unfold ident, kron. destruct (Nat.eq_dec 0 0); [lra|congruence].
Qed.

Lemma Rpower_3 : forall t, 0 < t -> Rpower t 3 = t * t * t.
Proof.
  intros t Ht. replace 3 with (INR 3) by (simpl; ring).
  rewrite Rpower_pow by assumption. simpl. ring.
Qed.

Lemma exp_pos_denominator : forall z, 0 < 1 + exp z.
Proof. intros z. pose proof (exp_pos z). lra. Qed.

(** ** skip-reduction (Lemma 4): M = 2, so M^-1 W_down = w / 2 *)

Lemma absorbable_1_1 : forall sigma (F : vec -> vec),
  (forall x, F x 0%nat = F (v1 (x 0%nat)) 0%nat) ->
  (absorbable 1 1 sigma F <->
   exists w' u' : R, forall x : R, F (v1 x) 0%nat = w' * sigma (u' * x)).
Proof.
  intros sigma F HF. split.
  - intros (Wd' & Wu' & H). exists (Wd' 0%nat 0%nat), (Wu' 0%nat 0%nat). intros x.
    rewrite (H (v1 x) 0%nat) by lia. unfold block, readout, mv, v1. simpl. tidy. reflexivity.
  - intros (w' & u' & H). exists (fun _ _ => w'), (fun _ _ => u'). intros x i Hi.
    assert (i = 0%nat) by lia. subst i. rewrite HF, H.
    unfold block, readout, mv, v1. simpl. tidy. reflexivity.
Qed.

Lemma skip_reduction_instance : forall w u : R,
  (exists w' u' : R, forall x : R, 2 * x + w * Rmax (u * x) 0 = w' * Rmax (u' * x) 0) <->
  (exists w' u' : R, forall x : R, x + w / 2 * Rmax (u * x) 0 = w' * Rmax (u' * x) 0).
Proof.
  intros w u.
  assert (Hinv : inverse_pair 1 (fun _ _ => 2) (fun _ _ => / 2)).
  { intros i j Hi Hj. assert (i = 0%nat) by lia. assert (j = 0%nat) by lia. subst.
    unfold matmul, ident, kron. simpl. split; field. }
  pose proof (skip_reduction 1 1 relu (fun _ _ => 2) (fun _ _ => / 2)
                (fun _ _ => w) (fun _ _ => u) Hinv) as Hred.
  rewrite !absorbable_1_1 in Hred
    by (intros; unfold mv, block, readout, matmul, v1; simpl; reflexivity).
  unfold block, readout, mv, matmul, v1, relu in Hred. simpl in Hred.
  split.
  - intros (w' & u' & H). destruct (proj1 Hred) as (w'' & u'' & H'').
    + exists w', u'. intros x. tidy. rewrite <- H. ring.
    + exists w'', u''. intros x. rewrite <- H''. tidy. unfold Rdiv. ring.
  - intros (w' & u' & H). destruct (proj2 Hred) as (w'' & u'' & H'').
    + exists w', u'. intros x. rewrite <- H. tidy. unfold Rdiv. ring.
    + exists w'', u''. intros x. rewrite <- H''. tidy. ring.
Qed.

(** ** homogeneous-impossible (Prop. 5): x -> x + relu(x)^2 is no relu^2 block of width 1 *)

Lemma relu2_width1_not_absorbable :
  ~ (exists a b : R, forall x : R,
       x + Rmax x 0 * Rmax x 0 = b * (Rmax (a * x) 0 * Rmax (a * x) 0)).
Proof.
  intros (a & b & H).
  apply (homogeneous_impossible 1 1 2 relu2 ident (fun _ _ => 1) (fun _ _ => 1));
    [lra | lra | exact one_nonzero | exact relu2_homogeneous |].
  exists (fun _ _ => b), (fun _ _ => a). intros x i Hi.
  assert (i = 0%nat) by lia. subst i.
  unfold block, readout, mv, ident, kron. simpl. tidy.
  unfold relu2, relu. rewrite <- H. reflexivity.
Qed.

(** ** homogeneous-any-width: degree 3, two different activations, two widths:
    x -> x + relu(x)^3 (width 1) is no block of width 2 of the cube z -> z^3. *)

Lemma relu3_not_cube_width2 :
  ~ (exists a1 a2 b1 b2 : R, forall x : R,
       x + Rmax x 0 * Rmax x 0 * Rmax x 0 =
       b1 * (a1 * x * (a1 * x) * (a1 * x)) + b2 * (a2 * x * (a2 * x) * (a2 * x))).
Proof.
  intros (a1 & a2 & b1 & b2 & H).
  set (relu3 := fun z => Rmax z 0 * Rmax z 0 * Rmax z 0).
  set (cube := fun z => z * z * z).
  apply (homogeneous_any_width 1 1 2 3 relu3 cube ident (fun _ _ => 1) (fun _ _ => 1)
           (fun _ l => match l with O => b1 | _ => b2 end)
           (fun l _ => match l with O => a1 | _ => a2 end));
    [lra | lra | exact one_nonzero | | |].
  - intros t z Ht. unfold relu3. rewrite Rpower_3 by assumption.
    change (Rmax (t * z) 0) with (relu (t * z)).
    rewrite (relu_pos_scale t z Ht). unfold relu. ring.
  - intros t z Ht. unfold cube. rewrite Rpower_3 by assumption. ring.
  - intros x i Hi. assert (i = 0%nat) by lia. subst i.
    unfold block, readout, mv, ident, kron. simpl. tidy.
    unfold relu3, cube. rewrite H. ring.
Qed.

(** ** gated-impossible (Prop. 6): x -> x + silu(x) x (swiglu, width 1, all weights 1)
    is no swiglu block of width 1. *)

Lemma swiglu_width1_not_absorbable :
  ~ (exists a b c : R, forall x : R,
       x + x / (1 + exp (- x)) * x = c * (a * x / (1 + exp (- (a * x))) * (b * x))).
Proof.
  intros (a & b & c & H).
  apply (gated_impossible 1 1 swiglu_gate ident (fun _ _ => 1) (fun _ _ => 1) (fun _ _ => 1));
    [exact swiglu_gate_zero | exact swiglu_gate_derivable | exact one_nonzero |].
  exists (fun _ _ => c), (fun _ _ => a), (fun _ _ => b). intros x i Hi.
  assert (i = 0%nat) by lia. subst i.
  unfold gblock, readout, mv, ident, kron. simpl. tidy.
  unfold swiglu_gate, silu, sigmoid. specialize (H (x 0%nat)). unfold Rdiv in H.
  rewrite H. reflexivity.
Qed.

(** ** gated-continuity: x -> x + silu(x) x (width 1) is no reglu block of width 2
    (another gate, relu, also vanishing and continuous at 0). *)

Lemma swiglu_not_reglu_width2 :
  ~ (exists g1 g2 u1 u2 w1 w2 : R, forall x : R,
       x + x / (1 + exp (- x)) * x =
       w1 * (Rmax (g1 * x) 0 * (u1 * x)) + w2 * (Rmax (g2 * x) 0 * (u2 * x))).
Proof.
  intros (g1 & g2 & u1 & u2 & w1 & w2 & H).
  apply (gated_continuity 1 1 2 swiglu_gate reglu_gate ident
           (fun _ _ => 1) (fun _ _ => 1) (fun _ _ => 1)
           (fun _ l => match l with O => w1 | _ => w2 end)
           (fun l _ => match l with O => g1 | _ => g2 end)
           (fun l _ => match l with O => u1 | _ => u2 end));
    [exact swiglu_gate_zero | exact swiglu_gate_continuous_at_0
    | exact reglu_gate_zero | exact relu_continuous_at_0 | exact one_nonzero |].
  intros x i Hi. assert (i = 0%nat) by lia. subst i.
  unfold gblock, readout, mv, ident, kron. simpl. tidy.
  unfold swiglu_gate, silu, sigmoid, reglu_gate, relu. specialize (H (x 0%nat)).
  unfold Rdiv in H. rewrite H. reflexivity.
Qed.

(** ** depth-impossible (Cor. 7): two residual relu^2 blocks (d = 1, width 1,
    weights 1) compose to a map that is no composition of two swiglu blocks of width 1. *)

Lemma relu2_stack_not_swiglu_stack2 :
  ~ (exists a1 b1 c1 a2 b2 c2 : R, forall x : R,
       let y := x + Rmax x 0 * Rmax x 0 in
       let z := c1 * (a1 * x / (1 + exp (- (a1 * x))) * (b1 * x)) in
       y + Rmax y 0 * Rmax y 0 = c2 * (a2 * z / (1 + exp (- (a2 * z))) * (b2 * z))).
Proof.
  intros (a1 & b1 & c1 & a2 & b2 & c2 & H).
  set (B := block 1 1 relu2 (fun _ _ => 1) (fun _ _ => 1)).
  set (P1 := gblock 1 1 swiglu_gate (fun _ _ => c1) (fun _ _ => a1) (fun _ _ => b1)).
  set (P2 := gblock 1 1 swiglu_gate (fun _ _ => c2) (fun _ _ => a2) (fun _ _ => b2)).
  apply (depth_impossible 1 [B; B] [P1; P2]).
  - repeat constructor; apply relu2_block_flat.
  - repeat constructor; apply swiglu_block_flat.
  - discriminate.
  - lia.
  - intros x i Hi. assert (i = 0%nat) by lia. subst i.
    unfold B, P1, P2, res_comp_id, plain_comp, block, gblock, readout, mv. simpl. tidy.
    unfold relu2, relu, swiglu_gate, silu, sigmoid. specialize (H (x 0%nat)).
    cbv zeta in H. unfold Rdiv in H. rewrite H. reflexivity.
Qed.

(** ** depth-any: general skips M_1 = -1, M_2 = 2 (product -2, nonzero) around
    relu^2 blocks (d = 1, width 1, weights 1); the stack is no composition of any
    nonempty list of swiglu units [f y = c silu(a y) (b y)]. *)

Definition lift1 (f : R -> R) : vec -> vec := fun v _ => f (v 0%nat).

Lemma plain_comp_lift1 : forall fs v,
  plain_comp (map lift1 fs) v 0%nat = fold_left (fun y f => f y) fs (v 0%nat).
Proof.
  induction fs as [|f rest IH]; intros v; simpl; [reflexivity|].
  rewrite IH. reflexivity.
Qed.

Lemma general_skip_stack_not_swiglu_stack :
  forall fs : list (R -> R),
  fs <> [] ->
  Forall (fun f => exists a b c : R,
            forall y : R, f y = c * (a * y / (1 + exp (- (a * y))) * (b * y))) fs ->
  ~ (forall x : R,
       let y := - x + Rmax x 0 * Rmax x 0 in
       2 * y + Rmax y 0 * Rmax y 0 = fold_left (fun y f => f y) fs x).
Proof.
  intros fs Hne Hfs Heq.
  set (B := block 1 1 relu2 (fun _ _ => 1) (fun _ _ => 1)).
  apply (depth_any 1 [((fun _ _ => -1), B); ((fun _ _ => 2), B)] (map lift1 fs)).
  - repeat constructor; apply relu2_block_flat.
  - apply Forall_forall. intros p Hp. apply in_map_iff in Hp.
    destruct Hp as (f & <- & Hf). rewrite Forall_forall in Hfs.
    destruct (Hfs f Hf) as (a & b & c & Hfe).
    apply (flat_ext 1 (gblock 1 1 swiglu_gate (fun _ _ => c) (fun _ _ => a) (fun _ _ => b))).
    + intros x i Hi. unfold lift1, gblock, readout, mv. simpl. tidy.
      rewrite Hfe. unfold swiglu_gate, silu, sigmoid, Rdiv. reflexivity.
    + apply swiglu_block_flat.
  - destruct fs; [contradiction|discriminate].
  - exists 0%nat, 0%nat. repeat split; try lia.
    unfold skip_product, matmul, ident, kron. simpl. lra.
  - intros x i Hi. assert (i = 0%nat) by lia. subst i.
    rewrite plain_comp_lift1. rewrite <- Heq.
    unfold B, res_comp, block, readout, mv. simpl. tidy.
    unfold relu2, relu. replace (-1 * x 0%nat) with (- x 0%nat) by ring. reflexivity.
Qed.

(** ** glu-flip: the sigmoid gate, d = 2, M = I, W_gate = [[1, 2]; [-1, 1]],
    W_up = I, W_down = -I (S = {1, 2}: W_down W_up = -I); flipping the gate rows and
    the output columns gives a residual-free glu block. *)

Definition glu_gate_w : mat := fun l j =>
  match l, j with
  | O, O => 1 | O, _ => 2
  | _, O => -1 | _, _ => 1
  end.

Lemma sigmoid_glu_flip_2x2 : forall x0 x1 : R,
  x0 + (-1 * (/ (1 + exp (- (1 * x0 + 2 * x1))) * x0)
        + 0 * (/ (1 + exp (- (-1 * x0 + 1 * x1))) * x1)) =
    1 * (/ (1 + exp (- (-1 * x0 + -2 * x1))) * x0)
    + 0 * (/ (1 + exp (- (1 * x0 + -1 * x1))) * x1) /\
  x1 + (0 * (/ (1 + exp (- (1 * x0 + 2 * x1))) * x0)
        + -1 * (/ (1 + exp (- (-1 * x0 + 1 * x1))) * x1)) =
    0 * (/ (1 + exp (- (-1 * x0 + -2 * x1))) * x0)
    + 1 * (/ (1 + exp (- (1 * x0 + -1 * x1))) * x1).
Proof.
  intros x0 x1.
  pose proof (glu_flip 2 2 sigmoid ident (fun i l => - ident i l) glu_gate_w ident
                (fun l => (l <? 2)%nat) sigmoid_flip) as H.
  assert (Hc : forall i j, (i < 2)%nat -> (j < 2)%nat ->
            sum 2 (fun l => if (l <? 2)%nat then - ident i l * ident l j else 0)
            = - ident i j).
  { intros i j Hi Hj. unfold ident, kron.
    destruct i as [|[|i]]; [ | | lia]; destruct j as [|[|j]]; try lia; simpl; lra. }
  specialize (H Hc (v2 x0 x1)).
  pose proof (H 0%nat ltac:(lia)) as H0. pose proof (H 1%nat ltac:(lia)) as H1. clear H Hc.
  unfold gblock, readout, mv, flip_rows, flip_cols, glu_gate_w, ident, kron, v2, sigmoid
    in H0, H1.
  simpl in H0, H1. split.
  - align H0. lra.
  - align H1. lra.
Qed.

(** ** depth-width, every rank *)

(** Instance of [depth_width_any_rank] with a rank-deficient layer, stated
    with the standard library only: [d = 1], layer 1 has the zero row
    ([x -> x + relu(0 x)], rank 0, so width [1 + 2 - 0 = 3]) and layer 2 is
    [y -> y + relu y] (rank 1, width [1 + 2 - 1 = 2]). *)
Lemma depth_width_rank_deficient_instance :
  exists a b c e : nat -> R, forall x : R,
    let y := x + Rmax (0 * x) 0 in
    let h := b 0%nat * Rmax (a 0%nat * x) 0 + b 1%nat * Rmax (a 1%nat * x) 0
             + b 2%nat * Rmax (a 2%nat * x) 0 in
    y + Rmax y 0 = e 0%nat * Rmax (c 0%nat * h) 0 + e 1%nat * Rmax (c 1%nat * h) 0.
Proof.
  set (L1 := mk_layer 1 ident (fun _ _ => 0)).
  set (L2 := mk_layer 1 ident ident).
  assert (R1 : row_rank 1 (width L1) (Wup L1) 0).
  { exists (fun _ => 0%nat). split; [intros; lia|]. split; [intros c _ k Hk; lia|].
    intros i Hi. exists (fun _ => 0). intros j Hj. simpl. reflexivity. }
  assert (R2 : row_rank 1 (width L2) (Wup L2) 1).
  { exists (fun _ => 0%nat). split; [intros; simpl; lia|]. split.
    - intros c Hc k Hk. assert (k = 0%nat) by lia. subst k.
      specialize (Hc 0%nat ltac:(lia)). simpl in Hc. unfold ident, kron in Hc. simpl in Hc. lra.
    - intros i Hi. exists (fun _ => 1). intros j Hj. simpl in Hi |- *.
      assert (i = 0%nat) by lia. assert (j = 0%nat) by lia. subst. ring. }
  destruct (depth_width_any_rank 1 relu [L1; L2] relu_odd_part) as (plains & Hw & Heq).
  inversion Hw as [|L1' P1 l1 p1 (r1 & Hr1 & Hw1) Hw1']; subst.
  inversion Hw1' as [|L2' P2 l2 p2 (r2 & Hr2 & Hw2) Hw2']; subst.
  inversion Hw2'; subst.
  rewrite (row_rank_unique _ _ _ _ _ Hr1 R1) in Hw1.
  rewrite (row_rank_unique _ _ _ _ _ Hr2 R2) in Hw2.
  destruct P1 as [w1 Wd1 Wu1], P2 as [w2 Wd2 Wu2]. simpl in Hw1, Hw2. subst w1 w2.
  exists (fun l => Wu1 l 0%nat), (fun l => Wd1 0%nat l), (fun l => Wu2 l 0%nat), (fun l => Wd2 0%nat l).
  intros x y h. specialize (Heq (v1 x) 0%nat ltac:(lia)). unfold y, h.
  unfold L1, L2, res_comp_id, plain_comp, layer_block, block, readout, mv, ident, kron, v1, relu in Heq.
  simpl in Heq. rewrite ?Rmult_1_l, ?Rmult_0_l, ?Rplus_0_l, ?Rplus_0_r in Heq.
  rewrite ?Rmult_0_l. align Heq. lra.
Qed.

(** ** depth-narrow *)

(** Instance of [depth_narrow] (case (a)), stated with the standard library
    only: [d = 1], the residual block [x -> x + relu x] (pieces [1] and [2])
    equals no plain relu stack of widths [(1, 2)], whatever its weights. *)
Lemma depth_narrow_instance : forall a b c0 c1 e0 e1 : R,
  ~ (forall x : R,
       x + Rmax x 0 =
       e0 * Rmax (c0 * (b * Rmax (a * x) 0)) 0 + e1 * Rmax (c1 * (b * Rmax (a * x) 0)) 0).
Proof.
  intros a b c0 c1 e0 e1 H.
  set (L := mk_layer 1 ident ident).
  set (P1 := mk_layer 1 (fun _ _ => b) (fun _ _ => a)).
  set (P2 := mk_layer 2 (fun _ l => match l with 0%nat => e0 | _ => e1 end)
                        (fun l _ => match l with 0%nat => c0 | _ => c1 end)).
  assert (HL : layer_pieces_invertible 1 L).
  { intros S y Hy j Hj. assert (j = 0%nat) by lia. subst j.
    specialize (Hy 0%nat ltac:(lia)). unfold mv, piece, L, ident, kron in Hy. simpl in Hy.
    destruct (S 0%nat); simpl in Hy; lra. }
  apply (depth_narrow 1 [L] [P1; P2] ltac:(lia) (Forall_cons _ HL (Forall_nil _))).
  - left. exists P1, [P2]. split; [reflexivity|simpl; lia].
  - intros x i Hi. assert (i = 0%nat) by lia. subst i.
    specialize (H (x 0%nat)).
    unfold L, P1, P2, res_comp_id, plain_comp, layer_block, block, readout, mv, ident, kron, relu.
    simpl. tidy. rewrite H. reflexivity.
Qed.

(** Instance of [depth_narrow] (case (b): the first plain width 3 is above
    [d = 2], the second is 1), stated with the standard library only: the
    residual block [x -> (x_0 + relu x_0, x_1)] (pieces [I] and [diag(2, 1)])
    equals no plain relu stack of widths [(3, 1)], whatever its weights. *)
Lemma depth_narrow_width_below_d_instance :
  forall (u1 w1 : nat -> nat -> R) (u2 w2 : nat -> R),
  ~ (forall x0 x1 : R,
       let h := fun l => Rmax (u1 l 0%nat * x0 + u1 l 1%nat * x1) 0 in
       let y := fun i => w1 i 0%nat * h 0%nat + w1 i 1%nat * h 1%nat + w1 i 2%nat * h 2%nat in
       let z := Rmax (u2 0%nat * y 0%nat + u2 1%nat * y 1%nat) 0 in
       x0 + Rmax x0 0 = w2 0%nat * z /\ x1 = w2 1%nat * z).
Proof.
  intros u1 w1 u2 w2 H.
  set (e0 := fun (i j : nat) => match i, j with 0%nat, 0%nat => 1 | _, _ => 0 end).
  set (L := mk_layer 1 e0 e0).
  set (P1 := mk_layer 3 w1 u1).
  set (P2 := mk_layer 1 (fun i _ => w2 i) (fun _ j => u2 j)).
  assert (HL : layer_pieces_invertible 2 L).
  { intros S y Hy j Hj.
    pose proof (Hy 0%nat ltac:(lia)) as H0. pose proof (Hy 1%nat ltac:(lia)) as H1.
    unfold mv, piece, L, e0, ident, kron in H0, H1. simpl in H0, H1.
    destruct (S 0%nat); simpl in H0, H1; destruct j as [|[|]]; lra || lia. }
  apply (depth_narrow 2 [L] [P1; P2] ltac:(lia) (Forall_cons _ HL (Forall_nil _))).
  - right. apply Exists_cons_tl, Exists_cons_hd. simpl. lia.
  - intros x i Hi. destruct (H (x 0%nat) (x 1%nat)) as [E0 E1].
    unfold L, P1, P2, e0, res_comp_id, plain_comp, layer_block, block, readout, mv, ident, kron, relu.
    destruct i as [|[|]]; [| |lia]; simpl; tidy.
    + exact E0.
    + exact E1.
Qed.

(** ** absorption-width, the flip + rank construction *)

(** Instance of [Rank.absorption_width_flip_rank], stated with the standard
    library only: the referee's example [d = m = 1], [u = w = 1], [M = -1].
    Flipping the unit leaves [M + W_S U_S = 0] (rank 0, no extra unit), so
    [-x + relu(x)] is a relu block of width 1 (it is [-relu(-x)]). *)
Lemma absorption_width_flip_instance :
  exists w u : R, forall x : R, - x + Rmax x 0 = w * Rmax (u * x) 0.
Proof.
  assert (Hr : row_rank 1 1 (fun i j => (fun _ _ => -1) i j + SignFlip.selected_product 1 (fun _ => true) ident ident i j
                                 - sum 0 (fun k => (fun _ _ => 0) k i * flip_rows (fun _ => true) ident (0%nat) j)) 0).
  { exists (fun _ => 0%nat). split; [intros; lia|]. split; [intros c _ k Hk; lia|].
    intros i Hi. exists (fun _ => 0). intros j Hj. assert (i = 0%nat) by lia. assert (j = 0%nat) by lia. subst.
    unfold SignFlip.selected_product, ident, kron. simpl. ring. }
  destruct (absorption_width_flip_rank 1 1 0 0 relu (fun _ _ => -1) ident ident (fun _ => true)
              (fun _ => 0%nat) (fun _ _ => 0) relu_odd_part ltac:(intros; lia) Hr) as (Wd' & Wu' & H).
  exists (Wd' 0%nat 0%nat), (Wu' 0%nat 0%nat). intros x.
  specialize (H (v1 x) 0%nat ltac:(lia)).
  unfold block, readout, mv, ident, kron, v1, relu in H. simpl in H.
  rewrite ?Rplus_0_l, ?Rmult_1_l in H. align H. lra.
Qed.

(** ** relu2-biased and gated-biased (BiasedFlip.v): sufficiency of a flip set *)

(** relu2 ([relu2 z = max(z,0)^2]), [d = 1]: the pair [(u = 1, b = 1/4, w = -1)],
    [(u = 1, b = -1/4, w = 1)] removes [-(x + 1/4)^2 + (x - 1/4)^2 = -x]; both
    flipped, the block equals [x + B(x)] exactly. *)
Lemma relu2_biased_pair_instance : forall x : R,
  x + (- (Rmax (x + 1 / 4) 0 * Rmax (x + 1 / 4) 0) + Rmax (x - 1 / 4) 0 * Rmax (x - 1 / 4) 0) =
  Rmax (- x - 1 / 4) 0 * Rmax (- x - 1 / 4) 0 - Rmax (- x + 1 / 4) 0 * Rmax (- x + 1 / 4) 0.
Proof.
  intros x.
  set (Wd := fun (_ l : nat) => match l with 0%nat => -1 | _ => 1 end).
  set (Wu := fun (_ _ : nat) => 1).
  set (bu := fun l : nat => match l with 0%nat => 1 / 4 | _ => - (1 / 4) end).
  assert (Hc : forall y i, (i < 1)%nat ->
            sum 2 (fun l => if (fun _ => true) l then Wd i l * ((mv 1 Wu y l + bu l) * (mv 1 Wu y l + bu l))
                            else 0) = - mv 1 ident y i + (fun _ => 0) i).
  { intros y i Hi. assert (i = 0%nat) by lia. subst i.
    unfold Wd, Wu, bu, mv, ident, kron; simpl. field. }
  pose proof (relu2_biased_flip 1 2 ident Wd Wu bu (fun _ => 0) (fun _ => 0) (fun _ => true)
                Hc (v1 x) 0%nat ltac:(lia)) as H.
  unfold bblock, add_bias, flip_cols, flip_rows, flip_vec, Wd, Wu, bu, mv, ident, kron, v1,
    relu2, relu in H.
  simpl in H. align H.
  match type of H with ?a = ?b => transitivity a; [ring|rewrite H; ring] end.
Qed.

(** swiglu ([silu z = z / (1 + e^-z)]), [d = 1]: the units
    [silu(x - 1) * x] and [silu(x) * (-x)] remove [(x - 1) x - x^2 = -x];
    with both gate rows and gate biases flipped the block is [x + B(x)]. *)
Lemma swiglu_biased_instance : forall x : R,
  x + ((x - 1) * / (1 + exp (- (x - 1))) * x + x * / (1 + exp (- x)) * (- x)) =
  (- x + 1) * / (1 + exp (- (- x + 1))) * x + (- x) * / (1 + exp (- (- x))) * (- x).
Proof.
  intros x.
  set (Wg := fun (_ _ : nat) => 1).
  set (cg := fun l : nat => match l with 0%nat => -1 | _ => 0 end).
  set (Wu := fun (l _ : nat) => match l with 0%nat => 1 | _ => -1 end).
  assert (Hc : forall y i, (i < 1)%nat ->
            sum 2 (fun l => if (fun _ => true) l then (fun _ _ => 1) i l *
                              ((mv 1 Wg y l + cg l) * (mv 1 Wu y l + (fun _ => 0) l)) else 0)
            = - mv 1 ident y i + (fun _ => 0) i).
  { intros y i Hi. assert (i = 0%nat) by lia. subst i.
    unfold Wg, Wu, cg, mv, ident, kron; simpl. ring. }
  pose proof (biased_gate_flip 1 2 silu ident (fun _ _ => 1) Wg Wu cg (fun _ => 0) (fun _ => 0)
                (fun _ => 0) (fun _ => true) silu_odd_part Hc (v1 x) 0%nat ltac:(lia)) as H.
  unfold gbblock, add_bias, flip_rows, flip_vec, Wg, Wu, cg, mv, ident, kron, v1,
    silu, sigmoid in H.
  simpl in H. align H.
  match type of H with ?a = ?b => transitivity a; [ring|rewrite H; ring] end.
Qed.

(** glu ([sigmoid z = 1 / (1 + e^-z)]), [d = 1]: the unit
    [sigmoid(x) * (-x + 1)] removes [-x + 1]; with its gate row and output
    weight negated and [1] added to the output bias the block is [x + B(x)]. *)
Lemma glu_biased_instance : forall x : R,
  x + / (1 + exp (- x)) * (- x + 1) = - (/ (1 + exp (- (- x))) * (- x + 1)) + 1.
Proof.
  intros x.
  pose proof (biased_glu_flip_poly 1 1 sigmoid ident (fun _ _ => 1) (fun _ _ => 1) (fun _ _ => -1)
                (fun _ => 0) (fun _ => 1) (fun _ => 0) (fun _ => 1) (fun _ => true) sigmoid_flip) as H.
  assert (Hc : forall y i, (i < 1)%nat ->
            sum 1 (fun l => if (fun _ => true) l then (fun _ _ => 1) i l *
                              (mv 1 (fun _ _ => -1) y l + (fun _ => 1) l) else 0)
            = - mv 1 ident y i + (fun _ => 1) i).
  { intros y i Hi. assert (i = 0%nat) by lia. subst i. unfold mv, ident, kron; simpl. ring. }
  specialize (H Hc (v1 x) 0%nat ltac:(lia)).
  unfold gbblock, add_bias, flip_cols, flip_rows, flip_vec, mv, ident, kron, v1, sigmoid in H.
  simpl in H. align H.
  match type of H with ?a = ?b => transitivity a; [ring|rewrite H; ring] end.
Qed.

(** ** depth-d1 *)

(** Instance of [depth_d1] (necessity, biases allowed in the plain stack),
    stated with the standard library only: the residual block
    [x -> x + relu x] on the line ([F(1) = 2], [F(-1) = -1], so
    [F(1) F(-1) < 0]) equals no plain relu stack of widths [(2, 1)], whatever
    its weights and biases. *)
Lemma depth_d1_instance : forall (u1 w1 c1 : nat -> R) (e1 u2 w2 c2 e2 : R),
  ~ (forall x : R,
       x + 1 * Rmax (1 * x) 0 =
       w2 * Rmax (u2 * (w1 0%nat * Rmax (u1 0%nat * x + c1 0%nat) 0
                        + w1 1%nat * Rmax (u1 1%nat * x + c1 1%nat) 0 + e1) + c2) 0 + e2).
Proof.
  intros u1 w1 c1 e1 u2 w2 c2 e2 H.
  set (res := [((fun _ _ => 1) : mat, mk_layer 1 (fun _ _ => 1) (fun _ _ => 1))]).
  set (B1 := mk_blayer 2 (fun _ l => w1 l) (fun l _ => u1 l) c1 (fun _ => e1)).
  set (B2 := mk_blayer 1 (fun _ _ => w2) (fun _ _ => u2) (fun _ => c2) (fun _ => e2)).
  destruct (depth_d1 1 eq_refl res [2%nat; 1%nat]) as (_ & _ & [Hnec _]).
  { split; [discriminate|]. repeat constructor. }
  assert (Hc : d1_condition [2%nat; 1%nat] (res_stack 1 res (v1 1) 0%nat) (res_stack 1 res (v1 (-1)) 0%nat)).
  { apply Hnec. exists [B1; B2]. split; [reflexivity|].
    intros x i Hi. assert (i = 0%nat) by lia. subst i. specialize (H (x 0%nat)).
    unfold res, B1, B2, res_stack, bplain_stack, res_comp, plain_comp, blayer_block, bblock,
      layer_block, block, readout, mv, relu in *.
    simpl. tidy. rewrite !Rmult_1_l in H. exact H. }
  rewrite !res_stack_1 in Hc. unfold v1, res in Hc. simpl in Hc. unfold lay1 in Hc. simpl in Hc.
  rewrite (relu_nonneg_id (1 * 1)), (relu_nonpos (1 * -1)) in Hc by lra.
  destruct Hc as [[E _]|[[_ [_ E]]|E]]; [discriminate| |].
  - lra.
  - inversion E as [|? ? _ E']; subst. inversion E' as [|? ? E1 _]; subst. lia.
Qed.

(** Instance of [depth_d1] (sufficiency), stated with the standard library
    only: the referee's residual stack of widths [(2, 1)] with identity skips,
    [y = x + relu x + 3 relu (-x)] then [y + relu y] ([F(1) = F(-1) = 4]),
    equals a bias-free plain relu stack of the same widths [(2, 1)]. *)
Lemma depth_d1_referee_instance :
  exists (u1 w1 : nat -> R) (u2 w2 : R), forall x : R,
    let y := 1 * x + (1 * Rmax (1 * x) 0 + 3 * Rmax (-1 * x) 0) in
    1 * y + 1 * Rmax (1 * y) 0 =
    w2 * Rmax (u2 * (w1 0%nat * Rmax (u1 0%nat * x) 0 + w1 1%nat * Rmax (u1 1%nat * x) 0)) 0.
Proof.
  set (L1 := mk_layer 2 (fun _ l => match l with O => 1 | _ => 3 end) (fun l _ => match l with O => 1 | _ => -1 end)).
  set (L2 := mk_layer 1 (fun _ _ => 1) (fun _ _ => 1)).
  set (res := [((fun _ _ => 1) : mat, L1); ((fun _ _ => 1) : mat, L2)]).
  destruct (depth_d1 1 eq_refl res [2%nat; 1%nat]) as (_ & [_ Hsuff] & _).
  { split; [discriminate|]. repeat constructor. }
  assert (H1 : res_stack 1 res (v1 1) 0%nat = 4 /\ res_stack 1 res (v1 (-1)) 0%nat = 4).
  { rewrite !res_stack_1. unfold v1, res, L1, L2. simpl. unfold lay1. simpl.
    unfold relu, Rmax.
    repeat match goal with |- context [Rle_dec ?a ?b] => destruct (Rle_dec a b) end; split; lra. }
  destruct (Hsuff ltac:(destruct H1 as [-> ->]; right; left; split; [lia|split; [simpl; auto|lra]]))
    as (Ps & HPs & E).
  destruct Ps as [|P1 [|P2 [|P3 Ps]]]; try discriminate.
  simpl in HPs. injection HPs as HP1 HP2.
  exists (fun l => Wup P1 l 0%nat), (fun l => Wdown P1 0%nat l), (Wup P2 0%nat 0%nat), (Wdown P2 0%nat 0%nat).
  intros x y. specialize (E (v1 x) 0%nat ltac:(lia)).
  rewrite res_stack_1, plain_stack_1 in E. unfold v1 in E.
  unfold res, L1, L2 in E. simpl in E. unfold lay1 in E. rewrite HP1, HP2 in E. simpl in E.
  unfold relu in E. unfold y. rewrite ?Rplus_0_l in E. rewrite ?Rmult_1_l in E |- *.
  exact E.
Qed.
