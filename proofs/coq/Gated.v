(** * Prop. 6 and its extension: gated blocks whose gate vanishes at 0 and is
    continuous there are [o(|x|)] at the origin, a nonzero linear map is not,
    so no such block (of any width) equals [x -> M x + B x]. *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg SkipReduction.
Open Scope R_scope.

(** [F] is flat at 0: [F 0 = 0] and [|F x| = o(|x|)], with the norm
    [norm1 d] (sum of absolute values of the [d] coordinates). *)
Definition flat (d : nat) (F : vec -> vec) : Prop :=
  (forall i, (i < d)%nat -> F (fun _ => 0) i = 0) /\
  (forall eps, 0 < eps -> exists delta, 0 < delta /\
     forall x, norm1 d x < delta -> norm1 d (F x) <= eps * norm1 d x).

Lemma norm1_zero_vec : forall d, norm1 d (fun _ => 0) = 0.
Proof. intros. unfold norm1. apply sum_zero. intros. apply Rabs_R0. Qed.

(** The value at 0 follows from the estimate. *)
Lemma flat_intro : forall d F,
  (forall eps, 0 < eps -> exists delta, 0 < delta /\
     forall x, norm1 d x < delta -> norm1 d (F x) <= eps * norm1 d x) ->
  flat d F.
Proof.
  intros d F H. split; [|exact H].
  intros i Hi. destruct (H 1 ltac:(lra)) as (delta & Hdelta & Hb).
  specialize (Hb (fun _ => 0)). rewrite norm1_zero_vec in Hb.
  specialize (Hb Hdelta).
  pose proof (coord_le_norm1 d (F (fun _ => 0)) i Hi).
  pose proof (Rabs_pos (F (fun _ => 0) i)).
  destruct (Req_dec (F (fun _ => 0) i) 0) as [|Hne]; [assumption|].
  pose proof (Rabs_pos_lt _ Hne). lra.
Qed.

Lemma flat_ext : forall d F G,
  (forall x i, (i < d)%nat -> F x i = G x i) -> flat d F -> flat d G.
Proof.
  intros d F G Heq [H0 Hb]. split.
  - intros i Hi. rewrite <- Heq by assumption. apply H0. assumption.
  - intros eps Heps. destruct (Hb eps Heps) as (delta & Hd & Hx).
    exists delta. split; [assumption|]. intros x Hxd.
    rewrite <- (norm1_ext d (F x)) by (intros; apply Heq; assumption).
    apply Hx. assumption.
Qed.

(** Two flat maps combined coordinate-wise by [h] with [|h a b| <= |a| + |b|]
    (a sum, a difference) give a flat map. *)
Lemma flat_combine : forall d (h : R -> R -> R) F G,
  (forall a b, Rabs (h a b) <= Rabs a + Rabs b) ->
  flat d F -> flat d G -> flat d (fun x i => h (F x i) (G x i)).
Proof.
  intros d h F G Hh [_ HF] [_ HG]. apply flat_intro. intros eps Heps.
  destruct (HF (eps / 2) ltac:(lra)) as (d1 & Hd1 & H1).
  destruct (HG (eps / 2) ltac:(lra)) as (d2 & Hd2 & H2).
  exists (Rmin d1 d2). split; [apply Rmin_pos; assumption|].
  intros x Hx.
  assert (norm1 d x < d1) by (eapply Rlt_le_trans; [exact Hx|apply Rmin_l]).
  assert (norm1 d x < d2) by (eapply Rlt_le_trans; [exact Hx|apply Rmin_r]).
  assert (Hs : norm1 d (fun i => h (F x i) (G x i)) <= norm1 d (F x) + norm1 d (G x)).
  { unfold norm1. rewrite <- sum_plus. apply sum_le. intros. apply Hh. }
  specialize (H1 x ltac:(assumption)). specialize (H2 x ltac:(assumption)). lra.
Qed.

Lemma flat_plus : forall d F G,
  flat d F -> flat d G -> flat d (fun x i => F x i + G x i).
Proof. intros d F G. apply (flat_combine d Rplus). apply Rabs_triang. Qed.

Lemma flat_minus : forall d F G,
  flat d F -> flat d G -> flat d (fun x i => F x i - G x i).
Proof.
  intros d F G. apply (flat_combine d Rminus). intros a b.
  unfold Rminus. eapply Rle_trans; [apply Rabs_triang|]. rewrite Rabs_Ropp. lra.
Qed.

(** A flat linear map is zero. *)
Lemma flat_linear_zero : forall d (P : mat),
  flat d (mv d P) -> forall i j, (i < d)%nat -> (j < d)%nat -> P i j = 0.
Proof.
  intros d P [_ Hb] i j Hi Hj.
  destruct (Req_dec (P i j) 0) as [|Hne]; [assumption|exfalso].
  set (c := Rabs (P i j)).
  assert (Hc : 0 < c) by (apply Rabs_pos_lt; assumption).
  destruct (Hb (c / 2) ltac:(lra)) as (delta & Hd & Hx).
  specialize (Hx (scale (delta / 2) (unit_vec j))).
  rewrite norm1_scale_unit in Hx by assumption.
  rewrite Rabs_right in Hx by lra.
  specialize (Hx ltac:(lra)).
  pose proof (coord_le_norm1 d (mv d P (scale (delta / 2) (unit_vec j))) i Hi) as Hi'.
  rewrite mv_scale, mv_unit, Rabs_mult, Rabs_right in Hi' by (assumption || lra).
  fold c in Hi'. nra.
Qed.

(** The core argument: if [B] and [B'] are flat and [M x + B x = B' x] for
    all [x], then [M] is zero. *)
Theorem flat_skip_impossible : forall d (M : mat) (B B' : vec -> vec),
  flat d B -> flat d B' -> nonzero_mat d M ->
  ~ (forall x i, (i < d)%nat -> mv d M x i + B x i = B' x i).
Proof.
  intros d M B B' HB HB' (i & j & Hi & Hj & Hne) Heq. apply Hne.
  apply (flat_linear_zero d M); [|assumption|assumption].
  apply (flat_ext d (fun x i => B' x i - B x i)).
  - intros x k Hk. rewrite <- Heq by assumption. ring.
  - apply flat_minus; assumption.
Qed.

(** Read-out of hidden values that are [o(|x|)] is flat. *)
Lemma readout_flat : forall d m (Wd : mat) (h : vec -> nat -> R),
  (forall eps, 0 < eps -> exists delta, 0 < delta /\
     forall x l, norm1 d x < delta -> (l < m)%nat -> Rabs (h x l) <= eps * norm1 d x) ->
  flat d (fun x => readout m Wd (h x)).
Proof.
  intros d m Wd h Hh. apply flat_intro. intros eps Heps.
  set (K := absmat d m Wd). assert (HK : 0 <= K) by apply absmat_nonneg.
  destruct (Hh (eps / (K + 1))) as (delta & Hd & Hx).
  { apply Rdiv_lt_0_compat; lra. }
  exists delta. split; [assumption|]. intros x Hxd.
  unfold norm1 at 1, readout.
  apply Rle_trans with
    (sum d (fun i => sum m (fun l => Rabs (Wd i l) * (eps / (K + 1) * norm1 d x)))).
  - apply sum_le. intros i Hi. eapply Rle_trans; [apply sum_abs|].
    apply sum_le. intros l Hl. rewrite Rabs_mult.
    apply Rmult_le_compat_l; [apply Rabs_pos|]. apply Hx; assumption.
  - rewrite (sum_ext d _ (fun i => sum m (fun l => Rabs (Wd i l)) * (eps / (K + 1) * norm1 d x)))
      by (intros; apply sum_scal_r).
    rewrite sum_scal_r. fold (absmat d m Wd). fold K.
    pose proof (norm1_nonneg d x).
    assert (Hq : K * (eps / (K + 1)) <= eps).
    { unfold Rdiv. apply Rmult_le_reg_r with (K + 1); [lra|].
      rewrite Rmult_assoc, Rmult_assoc, Rinv_l by lra. nra. }
    nra.
Qed.

(** epsilon-delta form of continuity at 0 of a gate vanishing at 0. *)
Lemma continuity_pt_0_bound : forall g,
  continuity_pt g 0 -> g 0 = 0 ->
  forall eps, 0 < eps -> exists delta, 0 < delta /\
    forall z, Rabs z < delta -> Rabs (g z) <= eps.
Proof.
  intros g Hc H0 eps Heps.
  unfold continuity_pt, continue_in, limit1_in, limit_in in Hc.
  destruct (Hc eps Heps) as (alp & Halp & Hx).
  exists alp. split; [assumption|]. intros z Hz.
  destruct (Req_dec z 0) as [->|Hne].
  - rewrite H0, Rabs_R0. lra.
  - left. specialize (Hx z). simpl in Hx. unfold R_dist in Hx.
    rewrite H0, !Rminus_0_r in Hx. apply Hx. split.
    + split; [exact I|]. intro E. apply Hne. symmetry. exact E.
    + assumption.
Qed.

(** A gated block whose gate vanishes at 0 and is continuous there is flat. *)
Lemma gblock_flat : forall d m g (Wd Wg Wu : mat),
  g 0 = 0 -> continuity_pt g 0 -> flat d (gblock d m g Wd Wg Wu).
Proof.
  intros d m g Wd Wg Wu H0 Hc. unfold gblock. apply readout_flat.
  intros eps Heps.
  set (Ku := absmat m d Wu). set (Kg := absmat m d Wg).
  assert (HKu : 0 <= Ku) by apply absmat_nonneg.
  assert (HKg : 0 <= Kg) by apply absmat_nonneg.
  destruct (continuity_pt_0_bound g Hc H0 (eps / (Ku + 1))) as (dg & Hdg & Hgb).
  { apply Rdiv_lt_0_compat; lra. }
  exists (dg / (Kg + 1)). split; [apply Rdiv_lt_0_compat; lra|].
  intros x l Hx Hl. pose proof (norm1_nonneg d x) as Hn.
  assert (Ha : Rabs (mv d Wg x l) < dg).
  { eapply Rle_lt_trans; [apply mv_bound; exact Hl|]. fold Kg.
    apply Rle_lt_trans with ((Kg + 1) * norm1 d x); [nra|].
    apply Rmult_lt_reg_r with (/ (Kg + 1)); [apply Rinv_0_lt_compat; lra|].
    replace ((Kg + 1) * norm1 d x * / (Kg + 1)) with (norm1 d x) by (field; lra).
    exact Hx. }
  pose proof (Hgb _ Ha) as Hg.
  pose proof (mv_bound m d Wu x l Hl) as Hb. fold Ku in Hb.
  rewrite Rabs_mult.
  pose proof (Rabs_pos (g (mv d Wg x l))). pose proof (Rabs_pos (mv d Wu x l)).
  apply Rle_trans with (eps / (Ku + 1) * (Ku * norm1 d x)).
  - apply Rmult_le_compat; assumption.
  - assert (Hq : eps / (Ku + 1) * Ku <= eps).
    { unfold Rdiv. apply Rmult_le_reg_r with (Ku + 1); [lra|].
      replace (eps * / (Ku + 1) * Ku * (Ku + 1)) with (eps * Ku) by (field; lra). nra. }
    nra.
Qed.

(** Extension: continuity of the gates at 0 suffices, and [B'] may have any
    width and its own gate. *)
Theorem gated_continuity :
  forall (d m m' : nat) (g g' : R -> R) (M Wd Wg Wu Wd' Wg' Wu' : mat)
         (gate_zero_at_0 : g 0 = 0)
         (gate_continuous_at_0 : continuity_pt g 0)
         (gate'_zero_at_0 : g' 0 = 0)
         (gate'_continuous_at_0 : continuity_pt g' 0)
         (M_nonzero : nonzero_mat d M),
  ~ (forall x i, (i < d)%nat ->
       mv d M x i + gblock d m g Wd Wg Wu x i = gblock d m' g' Wd' Wg' Wu' x i).
Proof.
  intros d m m' g g' M Wd Wg Wu Wd' Wg' Wu' gate_zero_at_0 gate_continuous_at_0
    gate'_zero_at_0 gate'_continuous_at_0 M_nonzero.
  apply flat_skip_impossible; [apply gblock_flat; assumption
                              |apply gblock_flat; assumption|exact M_nonzero].
Qed.

(** Prop. 6 in the paper's form: same gate, same width, gate differentiable
    at 0 (differentiability is only used through continuity). *)
Theorem gated_impossible :
  forall (d m : nat) (g : R -> R) (M Wd Wg Wu : mat)
         (gate_zero_at_0 : g 0 = 0)
         (gate_differentiable_at_0 : derivable_pt g 0)
         (M_nonzero : nonzero_mat d M),
  ~ gabsorbable d m g (fun x i => mv d M x i + gblock d m g Wd Wg Wu x i).
Proof.
  intros d m g M Wd Wg Wu gate_zero_at_0 gate_differentiable_at_0 M_nonzero
    (Wd' & Wg' & Wu' & Heq).
  pose proof (derivable_continuous_pt g 0 gate_differentiable_at_0) as Hc.
  exact (gated_continuity d m m g g M Wd Wg Wu Wd' Wg' Wu' gate_zero_at_0 Hc
           gate_zero_at_0 Hc M_nonzero Heq).
Qed.
