(** * Concrete activations and gates, their properties, and the corollaries
    of the main theorems for them. *)

From Coq Require Import Reals Lra Lia List.
From SkipAbsorption Require Import Linalg SkipReduction Homogeneous Gated Depth SignFlip.
(** relu, sigmoid, silu, the exact gelu and gelu_tanh, with their proved
    properties, live in [RealActivations] (real analysis with Coquelicot). *)
From SkipAbsorption Require Export RealActivations.
Open Scope R_scope.

(** ** Definitions *)

(** relu2: [max(z,0)^2]. *)
Definition relu2 (z : R) : R := relu z * relu z.

(** The reglu gate is relu; the bilinear gate is the identity. *)
Definition reglu_gate (z : R) : R := relu z.
Definition bilinear_gate (z : R) : R := z.

(** The swiglu gate is silu; the geglu gate is gelu (or gelu_tanh). *)
Definition swiglu_gate (z : R) : R := silu z.

(** ** Homogeneity *)

Lemma Rpower_two : forall t, 0 < t -> Rpower t 2 = t * t.
Proof.
  intros t Ht. replace 2 with (INR 2) by (simpl; ring).
  rewrite Rpower_pow by assumption. simpl. ring.
Qed.

Lemma Rpower_2_minus_1 : forall t, 0 < t -> Rpower t (2 - 1) = t.
Proof. intros t Ht. replace (2 - 1) with 1 by ring. apply Rpower_1. assumption. Qed.

Lemma relu2_homogeneous : forall t z, 0 < t -> relu2 (t * z) = Rpower t 2 * relu2 z.
Proof.
  intros t z Ht. unfold relu2. rewrite relu_pos_scale, Rpower_two by assumption. ring.
Qed.

Lemma reglu_gate_homogeneous :
  forall t z, 0 < t -> reglu_gate (t * z) = Rpower t (2 - 1) * reglu_gate z.
Proof.
  intros t z Ht. unfold reglu_gate. rewrite Rpower_2_minus_1 by assumption.
  apply relu_pos_scale. assumption.
Qed.

Lemma bilinear_gate_homogeneous :
  forall t z, 0 < t -> bilinear_gate (t * z) = Rpower t (2 - 1) * bilinear_gate z.
Proof. intros t z Ht. unfold bilinear_gate. rewrite Rpower_2_minus_1 by assumption. ring. Qed.

Lemma relu2_block_homogeneous : forall d m Wd Wu,
  pos_homogeneous d 2 (block d m relu2 Wd Wu).
Proof. intros. apply block_homogeneous. exact relu2_homogeneous. Qed.

Lemma reglu_block_homogeneous : forall d m Wd Wg Wu,
  pos_homogeneous d 2 (gblock d m reglu_gate Wd Wg Wu).
Proof. intros. apply gblock_homogeneous. exact reglu_gate_homogeneous. Qed.

Lemma bilinear_block_homogeneous : forall d m Wd Wg Wu,
  pos_homogeneous d 2 (gblock d m bilinear_gate Wd Wg Wu).
Proof. intros. apply gblock_homogeneous. exact bilinear_gate_homogeneous. Qed.

(** ** Gates vanishing at 0 and continuous there *)

Lemma swiglu_gate_zero : swiglu_gate 0 = 0.
Proof. unfold swiglu_gate, silu. ring. Qed.

(** The sigmoid is differentiable at 0. *)
Lemma sigmoid_derivable : derivable_pt sigmoid 0.
Proof.
  unfold sigmoid. apply derivable_pt_inv.
  - pose proof (exp_pos (- 0)). lra.
  - apply derivable_pt_plus; [apply derivable_pt_const|].
    apply (derivable_pt_comp (fun z => - z) exp).
    + apply derivable_pt_opp, derivable_pt_id.
    + apply derivable_pt_exp.
Qed.

(** silu is differentiable at 0 (the hypothesis of Prop. 6 for swiglu). *)
Lemma swiglu_gate_derivable : derivable_pt swiglu_gate 0.
Proof.
  unfold swiglu_gate, silu. apply derivable_pt_mult; [apply derivable_pt_id|exact sigmoid_derivable].
Qed.

Lemma swiglu_gate_continuous_at_0 : continuity_pt swiglu_gate 0.
Proof. exact silu_continuous_at_0. Qed.

Lemma reglu_gate_zero : reglu_gate 0 = 0.
Proof. unfold reglu_gate, relu, Rmax. destruct (Rle_dec 0 0); reflexivity. Qed.

(** ** Corollaries *)

(** relu2 blocks (degree 2) absorb no nonzero skip, at any width. *)
Corollary relu2_not_absorbable :
  forall (d m m' : nat) (M Wd Wu Wd' Wu' : mat),
  nonzero_mat d M ->
  ~ (forall x i, (i < d)%nat ->
       mv d M x i + block d m relu2 Wd Wu x i = block d m' relu2 Wd' Wu' x i).
Proof.
  intros d m m' M Wd Wu Wd' Wu' HM.
  apply (homogeneous_any_width d m m' 2 relu2 relu2 M Wd Wu Wd' Wu');
    try lra; try assumption; exact relu2_homogeneous.
Qed.

(** reglu blocks (gate of degree 1, block of degree 2), any width. *)
Corollary reglu_not_absorbable :
  forall (d m m' : nat) (M Wd Wg Wu Wd' Wg' Wu' : mat),
  nonzero_mat d M ->
  ~ (forall x i, (i < d)%nat ->
       mv d M x i + gblock d m reglu_gate Wd Wg Wu x i =
       gblock d m' reglu_gate Wd' Wg' Wu' x i).
Proof.
  intros d m m' M Wd Wg Wu Wd' Wg' Wu' HM.
  apply (homogeneous_any_width_gated d m m' 2 reglu_gate reglu_gate M Wd Wg Wu Wd' Wg' Wu');
    try lra; try assumption; exact reglu_gate_homogeneous.
Qed.

(** bilinear blocks, any width. *)
Corollary bilinear_not_absorbable :
  forall (d m m' : nat) (M Wd Wg Wu Wd' Wg' Wu' : mat),
  nonzero_mat d M ->
  ~ (forall x i, (i < d)%nat ->
       mv d M x i + gblock d m bilinear_gate Wd Wg Wu x i =
       gblock d m' bilinear_gate Wd' Wg' Wu' x i).
Proof.
  intros d m m' M Wd Wg Wu Wd' Wg' Wu' HM.
  apply (homogeneous_any_width_gated d m m' 2 bilinear_gate bilinear_gate M
           Wd Wg Wu Wd' Wg' Wu');
    try lra; try assumption; exact bilinear_gate_homogeneous.
Qed.

(** swiglu blocks, any width. *)
Corollary swiglu_not_absorbable :
  forall (d m m' : nat) (M Wd Wg Wu Wd' Wg' Wu' : mat),
  nonzero_mat d M ->
  ~ (forall x i, (i < d)%nat ->
       mv d M x i + gblock d m swiglu_gate Wd Wg Wu x i =
       gblock d m' swiglu_gate Wd' Wg' Wu' x i).
Proof.
  intros d m m' M Wd Wg Wu Wd' Wg' Wu' HM.
  apply gated_continuity; try assumption;
    first [exact swiglu_gate_zero | exact swiglu_gate_continuous_at_0].
Qed.

(** geglu blocks (exact gelu gate), any width. *)
Corollary geglu_not_absorbable :
  forall (d m m' : nat) (M Wd Wg Wu Wd' Wg' Wu' : mat),
  nonzero_mat d M ->
  ~ (forall x i, (i < d)%nat ->
       mv d M x i + gblock d m gelu Wd Wg Wu x i =
       gblock d m' gelu Wd' Wg' Wu' x i).
Proof.
  intros d m m' M Wd Wg Wu Wd' Wg' Wu' HM.
  apply gated_continuity; try assumption;
    first [exact gelu_zero | exact gelu_continuous_at_0].
Qed.

(** geglu blocks with the tanh-approximated gelu gate, any width. *)
Corollary geglu_tanh_not_absorbable :
  forall (d m m' : nat) (M Wd Wg Wu Wd' Wg' Wu' : mat),
  nonzero_mat d M ->
  ~ (forall x i, (i < d)%nat ->
       mv d M x i + gblock d m gelu_tanh Wd Wg Wu x i =
       gblock d m' gelu_tanh Wd' Wg' Wu' x i).
Proof.
  intros d m m' M Wd Wg Wu Wd' Wg' Wu' HM.
  apply gated_continuity; try assumption;
    first [exact gelu_tanh_zero | exact gelu_tanh_continuous_at_0].
Qed.

(** relu blocks: the sign-flip construction. *)
Corollary relu_sign_flip :
  forall (d m : nat) (M Wd Wu : mat) (S : nat -> bool),
  (forall i j, (i < d)%nat -> (j < d)%nat ->
     sum m (fun l => if S l then Wd i l * Wu l j else 0) = - M i j) ->
  forall x i, (i < d)%nat ->
    mv d M x i + block d m relu Wd Wu x i = block d m relu Wd (flip_rows S Wu) x i.
Proof. intros. apply sign_flip_absorbs; [exact relu_odd_part|assumption|assumption]. Qed.

(** gelu blocks: the sign flip. *)
Corollary gelu_sign_flip :
  forall (d m : nat) (M Wd Wu : mat) (S : nat -> bool),
  (forall i j, (i < d)%nat -> (j < d)%nat ->
     sum m (fun l => if S l then Wd i l * Wu l j else 0) = - M i j) ->
  forall x i, (i < d)%nat ->
    mv d M x i + block d m gelu Wd Wu x i = block d m gelu Wd (flip_rows S Wu) x i.
Proof. intros. apply sign_flip_absorbs; [exact gelu_odd_part|assumption|assumption]. Qed.

(** gelu_tanh blocks: the sign flip. *)
Corollary gelu_tanh_sign_flip :
  forall (d m : nat) (M Wd Wu : mat) (S : nat -> bool),
  (forall i j, (i < d)%nat -> (j < d)%nat ->
     sum m (fun l => if S l then Wd i l * Wu l j else 0) = - M i j) ->
  forall x i, (i < d)%nat ->
    mv d M x i + block d m gelu_tanh Wd Wu x i = block d m gelu_tanh Wd (flip_rows S Wu) x i.
Proof. intros. apply sign_flip_absorbs; [exact gelu_tanh_odd_part|assumption|assumption]. Qed.

(** silu blocks: the sign flip. *)
Corollary silu_sign_flip :
  forall (d m : nat) (M Wd Wu : mat) (S : nat -> bool),
  (forall i j, (i < d)%nat -> (j < d)%nat ->
     sum m (fun l => if S l then Wd i l * Wu l j else 0) = - M i j) ->
  forall x i, (i < d)%nat ->
    mv d M x i + block d m silu Wd Wu x i = block d m silu Wd (flip_rows S Wu) x i.
Proof. intros. apply sign_flip_absorbs; [exact silu_odd_part|assumption|assumption]. Qed.

(** glu (sigmoid gate): the gate flip. *)
Corollary sigmoid_glu_flip :
  forall (d m : nat) (M Wd Wg Wu : mat) (S : nat -> bool),
  (forall i j, (i < d)%nat -> (j < d)%nat ->
     sum m (fun l => if S l then Wd i l * Wu l j else 0) = - M i j) ->
  forall x i, (i < d)%nat ->
    mv d M x i + gblock d m sigmoid Wd Wg Wu x i =
    gblock d m sigmoid (flip_cols S Wd) (flip_rows S Wg) Wu x i.
Proof. intros. apply glu_flip; [exact sigmoid_flip|assumption|assumption]. Qed.

(** The concrete blocks are flat at 0, so [depth_any] and [depth_impossible]
    apply to stacks of them. *)
Corollary relu2_block_flat : forall d m Wd Wu, flat d (block d m relu2 Wd Wu).
Proof. intros. apply (ungated_block_flat d m 2); [lra|exact relu2_homogeneous]. Qed.

Corollary swiglu_block_flat : forall d m Wd Wg Wu, flat d (gblock d m swiglu_gate Wd Wg Wu).
Proof.
  intros. apply gated_block_flat; [exact swiglu_gate_zero|exact swiglu_gate_continuous_at_0].
Qed.

Corollary geglu_block_flat : forall d m Wd Wg Wu, flat d (gblock d m gelu Wd Wg Wu).
Proof. intros. apply gated_block_flat; [exact gelu_zero|exact gelu_continuous_at_0]. Qed.

Corollary geglu_tanh_block_flat : forall d m Wd Wg Wu,
  flat d (gblock d m gelu_tanh Wd Wg Wu).
Proof. intros. apply gated_block_flat; [exact gelu_tanh_zero|exact gelu_tanh_continuous_at_0]. Qed.

Lemma relu_continuous_at_0 : continuity_pt reglu_gate 0.
Proof.
  unfold continuity_pt, continue_in, limit1_in, limit_in.
  intros eps Heps. exists eps. split; [assumption|].
  intros z [_ Hz]. simpl in *. unfold R_dist in *. rewrite Rminus_0_r in Hz.
  rewrite reglu_gate_zero, Rminus_0_r. unfold reglu_gate, relu, Rmax.
  destruct (Rle_dec z 0).
  - rewrite Rabs_R0. lra.
  - exact Hz.
Qed.

Corollary reglu_block_flat : forall d m Wd Wg Wu, flat d (gblock d m reglu_gate Wd Wg Wu).
Proof. intros. apply gated_block_flat; [exact reglu_gate_zero|exact relu_continuous_at_0]. Qed.

(** Cor. 7 for concrete stacks: a residual stack of relu2 blocks (identity
    skips, any hidden widths) is no nonempty stack of residual-free swiglu
    blocks (any number, any hidden widths). *)
Corollary relu2_stack_not_swiglu_stack :
  forall (d : nat) (ws : list (nat * mat * mat)) (ps : list (nat * mat * mat * mat)),
  (0 < d)%nat -> ps <> nil ->
  ~ (forall x i, (i < d)%nat ->
       res_comp_id (map (fun w => match w with (m, Wd, Wu) => block d m relu2 Wd Wu end) ws) x i =
       plain_comp (map (fun p => match p with (m, Wd, Wg, Wu) =>
                                   gblock d m swiglu_gate Wd Wg Wu end) ps) x i).
Proof.
  intros d ws ps Hd Hps. apply depth_impossible.
  - apply Forall_forall. intros f Hf. apply in_map_iff in Hf.
    destruct Hf as ([[m Wd] Wu] & <- & _). apply relu2_block_flat.
  - apply Forall_forall. intros f Hf. apply in_map_iff in Hf.
    destruct Hf as ([[[m Wd] Wg] Wu] & <- & _). apply swiglu_block_flat.
  - intro H. apply map_eq_nil in H. contradiction.
  - exact Hd.
Qed.
