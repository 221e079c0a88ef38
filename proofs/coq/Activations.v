(** * Concrete activations and gates, their properties, and the corollaries
    of the main theorems for them. *)

From Coq Require Import Reals Lra Lia List.
From SkipAbsorption Require Import Linalg SkipReduction Homogeneous Gated Depth SignFlip.
Open Scope R_scope.

(** ** Definitions *)

Definition relu (z : R) : R := Rmax z 0.

(** relu2: [max(z,0)^2]. *)
Definition relu2 (z : R) : R := relu z * relu z.

(** The reglu gate is relu; the bilinear gate is the identity. *)
Definition reglu_gate (z : R) : R := relu z.
Definition bilinear_gate (z : R) : R := z.

Definition sigmoid (z : R) : R := / (1 + exp (- z)).

(** silu (= swish with beta 1); also the swiglu gate. *)
Definition silu (z : R) : R := z * sigmoid z.
Definition swiglu_gate (z : R) : R := silu z.

(** GELU-type function [z * Phi z]; the exact GELU takes [Phi] = the standard
    normal CDF, which is not in the standard library: the results below
    assume only [0 <= Phi <= 1] and/or [Phi z + Phi (-z) = 1]. *)
Definition gelu_like (Phi : R -> R) (z : R) : R := z * Phi z.

(** ** Homogeneity *)

Lemma Rpower_two : forall t, 0 < t -> Rpower t 2 = t * t.
Proof.
  intros t Ht. replace 2 with (INR 2) by (simpl; ring).
  rewrite Rpower_pow by assumption. simpl. ring.
Qed.

Lemma Rpower_2_minus_1 : forall t, 0 < t -> Rpower t (2 - 1) = t.
Proof. intros t Ht. replace (2 - 1) with 1 by ring. apply Rpower_1. assumption. Qed.

Lemma relu_pos_scale : forall t z, 0 < t -> relu (t * z) = t * relu z.
Proof.
  intros t z Ht. unfold relu, Rmax.
  destruct (Rle_dec (t * z) 0), (Rle_dec z 0); nra.
Qed.

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

(** ** Odd parts and gate symmetry *)

Lemma relu_odd_part : forall z, relu z - relu (- z) = z.
Proof. intros z. unfold relu, Rmax. destruct (Rle_dec z 0), (Rle_dec (- z) 0); lra. Qed.

Lemma gelu_like_odd_part : forall Phi,
  (forall z, Phi z + Phi (- z) = 1) ->
  forall z, gelu_like Phi z - gelu_like Phi (- z) = z.
Proof.
  intros Phi H z. unfold gelu_like.
  replace (z * Phi z - - z * Phi (- z)) with (z * (Phi z + Phi (- z))) by ring.
  rewrite H. ring.
Qed.

Lemma sigmoid_flip : forall z, sigmoid z + sigmoid (- z) = 1.
Proof.
  intros z. unfold sigmoid. rewrite Ropp_involutive.
  pose proof (exp_pos z). pose proof (exp_pos (- z)).
  assert (Hinv : exp (- z) = / exp z).
  { apply (Rmult_eq_reg_l (exp z)); [|lra].
    rewrite <- exp_plus, Rinv_r by lra. replace (z + - z) with 0 by ring. apply exp_0. }
  rewrite Hinv. field. split; lra.
Qed.

Lemma sigmoid_bounds : forall z, 0 < sigmoid z < 1.
Proof.
  intros z. unfold sigmoid. pose proof (exp_pos (- z)). split.
  - apply Rinv_0_lt_compat. lra.
  - rewrite <- Rinv_1. apply Rinv_lt_contravar; lra.
Qed.

(** silu is [z * sigmoid z], a GELU-type function with a symmetric [Phi]. *)
Lemma silu_is_gelu_like : forall z, silu z = gelu_like sigmoid z.
Proof. reflexivity. Qed.

Lemma silu_odd_part : forall z, silu z - silu (- z) = z.
Proof. exact (gelu_like_odd_part sigmoid sigmoid_flip). Qed.

(** ** Gates vanishing at 0 and continuous there *)

Lemma times_bounded_zero : forall s : R -> R, (fun z => z * s z) 0 = 0.
Proof. intros. simpl. ring. Qed.

Lemma times_bounded_continuous_at_0 : forall s : R -> R,
  (forall z, Rabs (s z) <= 1) -> continuity_pt (fun z => z * s z) 0.
Proof.
  intros s Hs. unfold continuity_pt, continue_in, limit1_in, limit_in.
  intros eps Heps. exists eps. split; [assumption|].
  intros z [_ Hz]. simpl in *. unfold R_dist in *.
  rewrite Rmult_0_l, Rminus_0_r. rewrite Rminus_0_r in Hz.
  rewrite Rabs_mult. pose proof (Hs z). pose proof (Rabs_pos z). nra.
Qed.

Lemma unit_interval_abs : forall r, 0 <= r <= 1 -> Rabs r <= 1.
Proof. intros r Hr. rewrite Rabs_right by lra. lra. Qed.

Lemma swiglu_gate_zero : swiglu_gate 0 = 0.
Proof. unfold swiglu_gate, silu. ring. Qed.

Lemma swiglu_gate_continuous_at_0 : continuity_pt swiglu_gate 0.
Proof.
  apply (times_bounded_continuous_at_0 sigmoid). intros z.
  apply unit_interval_abs. pose proof (sigmoid_bounds z). lra.
Qed.

Lemma geglu_gate_zero : forall Phi, gelu_like Phi 0 = 0.
Proof. intros. unfold gelu_like. ring. Qed.

Lemma geglu_gate_continuous_at_0 : forall Phi,
  (forall z, 0 <= Phi z <= 1) -> continuity_pt (gelu_like Phi) 0.
Proof.
  intros Phi H. apply (times_bounded_continuous_at_0 Phi).
  intros z. apply unit_interval_abs. apply H.
Qed.

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

(** geglu blocks [z * Phi z] for any [Phi] with values in [0,1], any width. *)
Corollary geglu_not_absorbable :
  forall (Phi : R -> R) (d m m' : nat) (M Wd Wg Wu Wd' Wg' Wu' : mat),
  (forall z, 0 <= Phi z <= 1) ->
  nonzero_mat d M ->
  ~ (forall x i, (i < d)%nat ->
       mv d M x i + gblock d m (gelu_like Phi) Wd Wg Wu x i =
       gblock d m' (gelu_like Phi) Wd' Wg' Wu' x i).
Proof.
  intros Phi d m m' M Wd Wg Wu Wd' Wg' Wu' HPhi HM.
  apply gated_continuity; try assumption;
    first [apply geglu_gate_zero | apply geglu_gate_continuous_at_0; exact HPhi].
Qed.

(** relu blocks: the sign-flip construction. *)
Corollary relu_sign_flip :
  forall (d m : nat) (M Wd Wu : mat) (S : nat -> bool),
  (forall i j, (i < d)%nat -> (j < d)%nat ->
     sum m (fun l => if S l then Wd i l * Wu l j else 0) = - M i j) ->
  forall x i, (i < d)%nat ->
    mv d M x i + block d m relu Wd Wu x i = block d m relu Wd (flip_rows S Wu) x i.
Proof. intros. apply sign_flip_absorbs; [exact relu_odd_part|assumption|assumption]. Qed.

(** gelu-type blocks with [Phi z + Phi (-z) = 1] (gelu, silu): the sign flip. *)
Corollary gelu_sign_flip :
  forall (Phi : R -> R) (d m : nat) (M Wd Wu : mat) (S : nat -> bool),
  (forall z, Phi z + Phi (- z) = 1) ->
  (forall i j, (i < d)%nat -> (j < d)%nat ->
     sum m (fun l => if S l then Wd i l * Wu l j else 0) = - M i j) ->
  forall x i, (i < d)%nat ->
    mv d M x i + block d m (gelu_like Phi) Wd Wu x i =
    block d m (gelu_like Phi) Wd (flip_rows S Wu) x i.
Proof.
  intros Phi d m M Wd Wu S HPhi Hcond x i Hi.
  apply sign_flip_absorbs; [apply gelu_like_odd_part; exact HPhi|assumption|assumption].
Qed.

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

Corollary geglu_block_flat : forall Phi d m Wd Wg Wu,
  (forall z, 0 <= Phi z <= 1) -> flat d (gblock d m (gelu_like Phi) Wd Wg Wu).
Proof.
  intros. apply gated_block_flat; [apply geglu_gate_zero|apply geglu_gate_continuous_at_0; assumption].
Qed.

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
