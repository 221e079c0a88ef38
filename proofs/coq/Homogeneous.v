(** * Prop. 5 and its any-width extension: blocks that are positively
    homogeneous of degree [k <> 1] cannot absorb a nonzero linear skip. *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg SkipReduction.
Open Scope R_scope.

(** [F] is positively homogeneous of degree [k] on the coordinates [i < d]. *)
Definition pos_homogeneous (d : nat) (k : R) (F : vec -> vec) : Prop :=
  forall t x i, 0 < t -> (i < d)%nat -> F (scale t x) i = Rpower t k * F x i.

Lemma Rpower_2_ne_2 : forall k, k <> 1 -> Rpower 2 k <> 2.
Proof.
  intros k Hk Heq. apply Hk.
  assert (Hln : 0 < ln 2).
  { rewrite <- ln_1. apply ln_increasing; lra. }
  unfold Rpower in Heq.
  rewrite <- (exp_ln 2) in Heq at 2 by lra.
  apply exp_inv in Heq.
  apply (Rmult_eq_reg_r (ln 2)); [|lra]. lra.
Qed.

(** The abstract argument: if [x -> M x + B x] and [B'] are both homogeneous
    of degree [k <> 1] and agree, then the linear part [M x] vanishes.
    Compare [x] and [2x]: [2 M x + 2^k B x = 2^k (M x + B x)]. *)
Lemma homogeneous_linear_part_vanishes :
  forall d k (M : mat) (B B' : vec -> vec),
  k <> 1 -> pos_homogeneous d k B -> pos_homogeneous d k B' ->
  (forall x i, (i < d)%nat -> mv d M x i + B x i = B' x i) ->
  forall x i, (i < d)%nat -> mv d M x i = 0.
Proof.
  intros d k M B B' Hk HB HB' Heq x i Hi.
  pose proof (Heq (scale 2 x) i Hi) as H2.
  rewrite mv_scale, HB, HB' in H2 by (assumption || lra).
  rewrite <- (Heq x i Hi) in H2.
  assert (Hne : 2 - Rpower 2 k <> 0) by (pose proof (Rpower_2_ne_2 k Hk); lra).
  apply (Rmult_eq_reg_l (2 - Rpower 2 k)); [|exact Hne].
  ring_simplify. lra.
Qed.

(** A linear map that vanishes everywhere has the zero matrix. *)
Lemma linear_vanish_not_nonzero :
  forall d (M : mat),
  (forall x i, (i < d)%nat -> mv d M x i = 0) -> ~ nonzero_mat d M.
Proof.
  intros d M H (i & j & Hi & Hj & Hne). apply Hne.
  rewrite <- (mv_unit d M i j Hj). apply H. assumption.
Qed.

(** An ungated block with a [k]-homogeneous activation is [k]-homogeneous. *)
Lemma block_homogeneous :
  forall d m k sigma Wd Wu,
  (forall t z, 0 < t -> sigma (t * z) = Rpower t k * sigma z) ->
  pos_homogeneous d k (block d m sigma Wd Wu).
Proof.
  intros d m k sigma Wd Wu Hs t x i Ht Hi. unfold block, readout.
  rewrite <- sum_scal_l. apply sum_ext. intros l Hl.
  rewrite mv_scale, Hs by assumption. ring.
Qed.

(** A gated block whose gate is homogeneous of degree [k - 1] is
    [k]-homogeneous (reglu, bilinear: [k = 2]). *)
Lemma gblock_homogeneous :
  forall d m k g Wd Wg Wu,
  (forall t z, 0 < t -> g (t * z) = Rpower t (k - 1) * g z) ->
  pos_homogeneous d k (gblock d m g Wd Wg Wu).
Proof.
  intros d m k g Wd Wg Wu Hg t x i Ht Hi. unfold gblock, readout.
  rewrite <- sum_scal_l. apply sum_ext. intros l Hl.
  rewrite !mv_scale, Hg by assumption.
  replace (Rpower t k) with (Rpower t (k - 1) * t).
  - ring.
  - rewrite <- (Rpower_1 t) at 2 by assumption. rewrite <- Rpower_plus.
    f_equal. ring.
Qed.

(** Any width, ungated: [B] of width [m] and activation [sigma], [B'] of an
    unrelated width [m'] and activation [tau], both of degree [k]. *)
Theorem homogeneous_any_width :
  forall (d m m' : nat) (k : R) (sigma tau : R -> R) (M Wd Wu Wd' Wu' : mat)
         (k_pos : 0 < k) (k_ne_1 : k <> 1)
         (M_nonzero : nonzero_mat d M)
         (sigma_homogeneous : forall t z, 0 < t -> sigma (t * z) = Rpower t k * sigma z)
         (tau_homogeneous : forall t z, 0 < t -> tau (t * z) = Rpower t k * tau z),
  ~ (forall x i, (i < d)%nat ->
       mv d M x i + block d m sigma Wd Wu x i = block d m' tau Wd' Wu' x i).
Proof.
  intros d m m' k sigma tau M Wd Wu Wd' Wu' k_pos k_ne_1 M_nonzero
    sigma_homogeneous tau_homogeneous Heq.
  apply (linear_vanish_not_nonzero d M); [|exact M_nonzero].
  eapply homogeneous_linear_part_vanishes; [exact k_ne_1| | |exact Heq];
    apply block_homogeneous; assumption.
Qed.

(** Any width, gated: gates homogeneous of degree [k - 1]. *)
Theorem homogeneous_any_width_gated :
  forall (d m m' : nat) (k : R) (g g' : R -> R) (M Wd Wg Wu Wd' Wg' Wu' : mat)
         (k_pos : 0 < k) (k_ne_1 : k <> 1)
         (M_nonzero : nonzero_mat d M)
         (gate_homogeneous : forall t z, 0 < t -> g (t * z) = Rpower t (k - 1) * g z)
         (gate'_homogeneous : forall t z, 0 < t -> g' (t * z) = Rpower t (k - 1) * g' z),
  ~ (forall x i, (i < d)%nat ->
       mv d M x i + gblock d m g Wd Wg Wu x i = gblock d m' g' Wd' Wg' Wu' x i).
Proof.
  intros d m m' k g g' M Wd Wg Wu Wd' Wg' Wu' k_pos k_ne_1 M_nonzero
    gate_homogeneous gate'_homogeneous Heq.
  apply (linear_vanish_not_nonzero d M); [|exact M_nonzero].
  eapply homogeneous_linear_part_vanishes; [exact k_ne_1| | |exact Heq];
    apply gblock_homogeneous; assumption.
Qed.

(** Prop. 5 in the paper's form: same activation, same width. *)
Theorem homogeneous_impossible :
  forall (d m : nat) (k : R) (sigma : R -> R) (M Wd Wu : mat)
         (k_pos : 0 < k) (k_ne_1 : k <> 1)
         (M_nonzero : nonzero_mat d M)
         (sigma_homogeneous : forall t z, 0 < t -> sigma (t * z) = Rpower t k * sigma z),
  ~ absorbable d m sigma (fun x i => mv d M x i + block d m sigma Wd Wu x i).
Proof.
  intros d m k sigma M Wd Wu k_pos k_ne_1 M_nonzero sigma_homogeneous (Wd' & Wu' & Heq).
  exact (homogeneous_any_width d m m k sigma sigma M Wd Wu Wd' Wu' k_pos k_ne_1
           M_nonzero sigma_homogeneous sigma_homogeneous Heq).
Qed.

(** Gated paper form: same gate (homogeneous of degree [k - 1]), same width. *)
Theorem homogeneous_impossible_gated :
  forall (d m : nat) (k : R) (g : R -> R) (M Wd Wg Wu : mat)
         (k_pos : 0 < k) (k_ne_1 : k <> 1)
         (M_nonzero : nonzero_mat d M)
         (gate_homogeneous : forall t z, 0 < t -> g (t * z) = Rpower t (k - 1) * g z),
  ~ gabsorbable d m g (fun x i => mv d M x i + gblock d m g Wd Wg Wu x i).
Proof.
  intros d m k g M Wd Wg Wu k_pos k_ne_1 M_nonzero gate_homogeneous (Wd' & Wg' & Wu' & Heq).
  exact (homogeneous_any_width_gated d m m k g g M Wd Wg Wu Wd' Wg' Wu' k_pos k_ne_1
           M_nonzero gate_homogeneous gate_homogeneous Heq).
Qed.
