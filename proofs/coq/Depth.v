(** * Cor. 7 and its extension: a stack of residual blocks is not a stack of
    residual-free blocks when every block is flat at 0.

    The input/output dimension [d] is the same for all blocks (hidden widths
    are arbitrary, they live inside the block maps).  A residual stack is a
    list of pairs [(M_l, B_l)], applied head first:
    [x -> M_1 x + B_1 x -> M_2 (.) + B_2 (.) -> ...]; a plain stack is a list
    of maps [f_1, f_2, ...] applied head first. *)

From Coq Require Import Reals Lra Lia List.
From SkipAbsorption Require Import Linalg Gated.
Import ListNotations.
Open Scope R_scope.

Fixpoint res_comp (d : nat) (res : list (mat * (vec -> vec))) (x : vec) : vec :=
  match res with
  | [] => x
  | (M, B) :: rest => res_comp d rest (fun i => mv d M x i + B x i)
  end.

(** Residual stack with identity skips [x -> x + B x]. *)
Fixpoint res_comp_id (res : list (vec -> vec)) (x : vec) : vec :=
  match res with
  | [] => x
  | B :: rest => res_comp_id rest (fun i => x i + B x i)
  end.

Fixpoint plain_comp (ps : list (vec -> vec)) (x : vec) : vec :=
  match ps with
  | [] => x
  | f :: rest => plain_comp rest (f x)
  end.

(** The product [M_L ... M_1] of the skip matrices. *)
Fixpoint skip_product (d : nat) (res : list (mat * (vec -> vec))) : mat :=
  match res with
  | [] => ident
  | (M, _) :: rest => matmul d (skip_product d rest) M
  end.

(** [F] is the linear map [P] plus a map flat at 0. *)
Definition lin_flat (d : nat) (P : mat) (F : vec -> vec) : Prop :=
  flat d (fun x i => F x i - mv d P x i).

(** ** Auxiliary estimates *)

Lemma flat_zero : forall d, flat d (fun _ _ => 0).
Proof.
  intros d. apply flat_intro. intros eps Heps. exists 1. split; [lra|].
  intros x _. rewrite norm1_zero_vec. pose proof (norm1_nonneg d x). nra.
Qed.

Lemma norm1_mv : forall d (P : mat) x,
  norm1 d (mv d P x) <= absmat d d P * norm1 d x.
Proof.
  intros. unfold norm1 at 1, absmat. rewrite <- sum_scal_r. apply sum_le.
  intros i Hi. unfold mv. eapply Rle_trans; [apply sum_abs|].
  rewrite <- sum_scal_r. apply sum_le. intros j Hj. rewrite Rabs_mult.
  apply Rmult_le_compat_l; [apply Rabs_pos|]. apply coord_le_norm1. assumption.
Qed.

(** Locally linearly bounded maps. *)
Definition lin_bounded (d : nat) (F : vec -> vec) : Prop :=
  exists C delta, 0 <= C /\ 0 < delta /\
    forall x, norm1 d x < delta -> norm1 d (F x) <= C * norm1 d x.

Lemma flat_lin_bounded : forall d F, flat d F -> lin_bounded d F.
Proof.
  intros d F [_ H]. destruct (H 1 ltac:(lra)) as (delta & Hd & Hx).
  exists 1, delta. repeat split; [lra|assumption|exact Hx].
Qed.

Lemma lin_flat_bounded : forall d P F, lin_flat d P F -> lin_bounded d F.
Proof.
  intros d P F [_ H]. destruct (H 1 ltac:(lra)) as (delta & Hd & Hx).
  exists (absmat d d P + 1), delta. pose proof (absmat_nonneg d d P).
  repeat split; [lra|assumption|]. intros x Hxd. specialize (Hx x Hxd).
  rewrite (norm1_ext d (F x) (fun i => (F x i - mv d P x i) + mv d P x i))
    by (intros; ring).
  eapply Rle_trans; [apply norm1_triang|].
  pose proof (norm1_mv d P x). lra.
Qed.

(** The step [eps -> eps / (C + 1)] of the estimates below. *)
Lemma scaled_eps : forall eps C, 0 < eps -> 0 <= C ->
  0 < eps / (C + 1) /\ eps / (C + 1) * C <= eps.
Proof.
  intros eps C He HC. split; [apply Rdiv_lt_0_compat; lra|].
  unfold Rdiv. apply Rmult_le_reg_r with (C + 1); [lra|].
  replace (eps * / (C + 1) * C * (C + 1)) with (eps * C) by (field; lra). nra.
Qed.

Lemma below_scaled : forall n C D, 0 <= C -> 0 <= n -> n < D / (C + 1) -> C * n < D.
Proof.
  intros n C D HC Hn H. apply Rle_lt_trans with ((C + 1) * n); [nra|].
  apply Rmult_lt_reg_r with (/ (C + 1)); [apply Rinv_0_lt_compat; lra|].
  replace ((C + 1) * n * / (C + 1)) with n by (field; lra). exact H.
Qed.

(** [a <= (eps / (C + 1)) b] and [b <= C n] give [a <= eps n]. *)
Lemma scaled_chain : forall eps C a b n, 0 < eps -> 0 <= C -> 0 <= n ->
  a <= eps / (C + 1) * b -> b <= C * n -> a <= eps * n.
Proof.
  intros eps C a b n He HC Hn Ha Hb. destruct (scaled_eps eps C He HC) as [H0 Hq].
  apply Rle_trans with (eps / (C + 1) * (C * n)); [|nra].
  eapply Rle_trans; [exact Ha|]. apply Rmult_le_compat_l; lra.
Qed.

(** A flat map after a locally linearly bounded map is flat. *)
Lemma flat_comp : forall d B F,
  flat d B -> lin_bounded d F -> flat d (fun x => B (F x)).
Proof.
  intros d B F [_ HB] (C & d0 & HC & Hd0 & HF). apply flat_intro. intros eps Heps.
  destruct (scaled_eps eps C Heps HC) as [He _].
  destruct (HB (eps / (C + 1)) He) as (dB & HdB & HBx).
  exists (Rmin d0 (dB / (C + 1))). split.
  { apply Rmin_pos; [assumption|apply Rdiv_lt_0_compat; lra]. }
  intros x Hx. pose proof (norm1_nonneg d x) as Hn.
  assert (Hx0 : norm1 d x < d0) by (eapply Rlt_le_trans; [exact Hx|apply Rmin_l]).
  assert (Hx1 : norm1 d x < dB / (C + 1)) by (eapply Rlt_le_trans; [exact Hx|apply Rmin_r]).
  specialize (HF x Hx0).
  assert (HFx : norm1 d (F x) < dB) by (eapply Rle_lt_trans; [exact HF|apply below_scaled; assumption]).
  exact (scaled_chain eps C _ _ _ Heps HC Hn (HBx (F x) HFx) HF).
Qed.

(** A fixed linear map after a flat map is flat. *)
Lemma flat_mv_comp : forall d (M : mat) E,
  flat d E -> flat d (fun x => mv d M (E x)).
Proof.
  intros d M E [_ HE]. apply flat_intro. intros eps Heps.
  set (K := absmat d d M). assert (HK : 0 <= K) by apply absmat_nonneg.
  destruct (scaled_eps eps K Heps HK) as [He Hq].
  destruct (HE (eps / (K + 1)) He) as (delta & Hd & Hx).
  exists delta. split; [assumption|]. intros x Hxd. specialize (Hx x Hxd).
  pose proof (norm1_mv d M (E x)) as Hm. fold K in Hm.
  pose proof (norm1_nonneg d x). nra.
Qed.

(** ** Residual stacks are (product of skips) + flat *)

Lemma lin_flat_step : forall d P M F B,
  lin_flat d P F -> flat d B ->
  lin_flat d (matmul d M P) (fun x i => mv d M (F x) i + B (F x) i).
Proof.
  intros d P M F B HF HB. unfold lin_flat.
  apply (flat_ext d (fun x i => mv d M (fun k => F x k - mv d P x k) i + B (F x) i)).
  - intros x i Hi. rewrite mv_minus, mv_matmul. ring.
  - apply flat_plus.
    + apply flat_mv_comp. exact HF.
    + apply flat_comp; [exact HB|]. eapply lin_flat_bounded. exact HF.
Qed.

Lemma lin_flat_step_id : forall d P F B,
  lin_flat d P F -> flat d B ->
  lin_flat d P (fun x i => F x i + B (F x) i).
Proof.
  intros d P F B HF HB. unfold lin_flat.
  apply (flat_ext d (fun x i => (F x i - mv d P x i) + B (F x) i)).
  - intros x i Hi. ring.
  - apply flat_plus; [exact HF|].
    apply flat_comp; [exact HB|]. eapply lin_flat_bounded. exact HF.
Qed.

Lemma lin_flat_ext : forall d P P' F,
  (forall i j, (i < d)%nat -> (j < d)%nat -> P i j = P' i j) ->
  lin_flat d P F -> lin_flat d P' F.
Proof.
  intros d P P' F HP H. unfold lin_flat. revert H. apply flat_ext.
  intros x i Hi. f_equal. apply mv_row_ext. intros. apply HP; assumption.
Qed.

Lemma lin_flat_id : forall d, lin_flat d ident (fun x => x).
Proof.
  intros d. unfold lin_flat. apply (flat_ext d (fun _ _ => 0)); [|apply flat_zero].
  intros x i Hi. rewrite mv_ident by assumption. ring.
Qed.

Lemma res_comp_lin_flat_gen : forall d res P F,
  Forall (fun p => flat d (snd p)) res -> lin_flat d P F ->
  lin_flat d (matmul d (skip_product d res) P) (fun x => res_comp d res (F x)).
Proof.
  intros d res. induction res as [|[M B] rest IH]; intros P F Hres HF; simpl.
  - apply (lin_flat_ext d P); [|exact HF].
    intros. symmetry. apply matmul_ident_l. assumption.
  - inversion Hres as [|p l HB Hrest]; subst. simpl in HB.
    apply (lin_flat_ext d (matmul d (skip_product d rest) (matmul d M P))).
    + intros. apply matmul_assoc.
    + apply (IH (matmul d M P) (fun x i => mv d M (F x) i + B (F x) i) Hrest).
      apply lin_flat_step; assumption.
Qed.

Lemma res_comp_lin_flat : forall d res,
  Forall (fun p => flat d (snd p)) res ->
  lin_flat d (skip_product d res) (res_comp d res).
Proof.
  intros d res Hres.
  apply (lin_flat_ext d (matmul d (skip_product d res) ident)).
  - intros. apply matmul_ident_r. assumption.
  - apply (res_comp_lin_flat_gen d res ident (fun x => x) Hres (lin_flat_id d)).
Qed.

Lemma res_comp_id_lin_flat_gen : forall d res F,
  Forall (flat d) res -> lin_flat d ident F ->
  lin_flat d ident (fun x => res_comp_id res (F x)).
Proof.
  intros d res. induction res as [|B rest IH]; intros F Hres HF; simpl; [exact HF|].
  inversion Hres as [|p l HB Hrest]; subst.
  apply (IH (fun x i => F x i + B (F x) i) Hrest).
  apply lin_flat_step_id; assumption.
Qed.

Lemma res_comp_id_lin_flat : forall d res,
  Forall (flat d) res -> lin_flat d ident (res_comp_id res).
Proof. intros d res H. exact (res_comp_id_lin_flat_gen d res (fun x => x) H (lin_flat_id d)). Qed.

(** ** Plain stacks of flat maps are flat *)

Lemma plain_comp_flat_gen : forall d ps F,
  Forall (flat d) ps -> flat d F -> flat d (fun x => plain_comp ps (F x)).
Proof.
  intros d ps. induction ps as [|f rest IH]; intros F Hps HF; simpl; [exact HF|].
  inversion Hps as [|p l Hf Hrest]; subst.
  apply (IH (fun x => f (F x)) Hrest).
  apply flat_comp; [exact Hf|]. apply flat_lin_bounded. exact HF.
Qed.

Lemma plain_comp_flat : forall d ps,
  Forall (flat d) ps -> ps <> [] -> flat d (plain_comp ps).
Proof.
  intros d [|f rest] Hps Hne; [contradiction|]. simpl.
  inversion Hps as [|p l Hf Hrest]; subst.
  exact (plain_comp_flat_gen d rest f Hrest Hf).
Qed.

(** A map that is a nonzero linear map plus a flat map is not flat. *)
Lemma lin_flat_not_flat : forall d P F G,
  lin_flat d P F -> flat d G -> nonzero_mat d P ->
  ~ (forall x i, (i < d)%nat -> F x i = G x i).
Proof.
  intros d P F G HF HG HP Heq.
  apply (flat_skip_impossible d P (fun x i => F x i - mv d P x i) G HF HG HP).
  intros x i Hi. rewrite <- Heq by assumption. ring.
Qed.

(** ** Main theorems *)

(** Extension: general skips with nonzero product, plain stacks of any
    (nonzero) length. *)
Theorem depth_any :
  forall (d : nat) (res : list (mat * (vec -> vec))) (plains : list (vec -> vec))
         (res_blocks_flat : Forall (fun p => flat d (snd p)) res)
         (plain_blocks_flat : Forall (flat d) plains)
         (plain_nonempty : plains <> [])
         (skip_product_nonzero : nonzero_mat d (skip_product d res)),
  ~ (forall x i, (i < d)%nat -> res_comp d res x i = plain_comp plains x i).
Proof.
  intros d res plains res_blocks_flat plain_blocks_flat plain_nonempty skip_product_nonzero.
  apply (lin_flat_not_flat d (skip_product d res)).
  - apply res_comp_lin_flat. exact res_blocks_flat.
  - apply plain_comp_flat; assumption.
  - exact skip_product_nonzero.
Qed.

(** Cor. 7: identity skips, [d > 0]. *)
Theorem depth_impossible :
  forall (d : nat) (res : list (vec -> vec)) (plains : list (vec -> vec))
         (res_blocks_flat : Forall (flat d) res)
         (plain_blocks_flat : Forall (flat d) plains)
         (plain_nonempty : plains <> [])
         (d_pos : (0 < d)%nat),
  ~ (forall x i, (i < d)%nat -> res_comp_id res x i = plain_comp plains x i).
Proof.
  intros d res plains res_blocks_flat plain_blocks_flat plain_nonempty d_pos.
  apply (lin_flat_not_flat d ident).
  - apply res_comp_id_lin_flat. exact res_blocks_flat.
  - apply plain_comp_flat; assumption.
  - exists 0%nat, 0%nat. repeat split; try assumption.
    unfold ident, kron. destruct (Nat.eq_dec 0 0); [lra|congruence].
Qed.

(** ** The concrete blocks are flat *)

(** A scalar activation that is positively homogeneous of degree [k > 1]
    satisfies [|sigma z| <= eps |z|] near 0. *)
Lemma homogeneous_activation_small : forall k sigma,
  1 < k ->
  (forall t z, 0 < t -> sigma (t * z) = Rpower t k * sigma z) ->
  forall eps, 0 < eps -> exists delta, 0 < delta /\
    forall z, Rabs z < delta -> Rabs (sigma z) <= eps * Rabs z.
Proof.
  intros k sigma Hk Hs eps Heps.
  assert (H0 : sigma 0 = 0).
  { pose proof (Hs 2 0 ltac:(lra)) as H2. rewrite Rmult_0_r in H2.
    assert (Hgt : Rpower 2 0 < Rpower 2 k) by (apply Rpower_lt; lra).
    rewrite Rpower_O in Hgt by lra.
    apply (Rmult_eq_reg_l (Rpower 2 k - 1)); [|lra]. lra. }
  set (C := Rabs (sigma 1) + Rabs (sigma (-1))).
  assert (HC : 0 <= C) by (unfold C; pose proof (Rabs_pos (sigma 1));
                           pose proof (Rabs_pos (sigma (-1))); lra).
  set (e := eps / (C + 1)). assert (He : 0 < e) by (apply Rdiv_lt_0_compat; lra).
  exists (Rpower e (/ (k - 1))). split; [apply exp_pos|].
  intros z Hz. destruct (Req_dec z 0) as [->|Hne].
  { rewrite H0, Rabs_R0. lra. }
  assert (Hza : 0 < Rabs z) by (apply Rabs_pos_lt; assumption).
  (* sigma z = |z|^k sigma(+-1) *)
  assert (Hsz : Rabs (sigma z) <= Rpower (Rabs z) k * C).
  { destruct (Rle_dec 0 z) as [Hpos|Hneg].
    - replace z with (Rabs z * 1) at 1 by (rewrite Rabs_right by lra; ring).
      rewrite Hs by assumption. rewrite Rabs_mult, (Rabs_right (Rpower _ _))
        by (left; apply exp_pos).
      apply Rmult_le_compat_l; [left; apply exp_pos|].
      unfold C. pose proof (Rabs_pos (sigma (-1))). lra.
    - replace z with (Rabs z * -1) at 1 by (rewrite Rabs_left by lra; ring).
      rewrite Hs by assumption. rewrite Rabs_mult, (Rabs_right (Rpower _ _))
        by (left; apply exp_pos).
      apply Rmult_le_compat_l; [left; apply exp_pos|].
      unfold C. pose proof (Rabs_pos (sigma 1)). lra. }
  assert (Hsplit : Rpower (Rabs z) k = Rabs z * Rpower (Rabs z) (k - 1)).
  { rewrite <- (Rpower_1 (Rabs z)) at 2 by assumption. rewrite <- Rpower_plus.
    f_equal. ring. }
  assert (Hsmall : Rpower (Rabs z) (k - 1) < e).
  { replace e with (Rpower (Rpower e (/ (k - 1))) (k - 1)).
    - unfold Rpower at 1 3. apply exp_increasing.
      apply Rmult_lt_compat_l; [lra|]. apply ln_increasing; assumption.
    - rewrite Rpower_mult. rewrite Rinv_l by lra. apply Rpower_1. assumption. }
  assert (Hq : e * C <= eps) by (exact (proj2 (scaled_eps eps C Heps HC))).
  pose proof (exp_pos ((k - 1) * ln (Rabs z))) as Hp. fold (Rpower (Rabs z) (k - 1)) in Hp.
  rewrite Hsplit in Hsz.
  assert (H1 : Rpower (Rabs z) (k - 1) * C <= eps)
    by (apply Rle_trans with (e * C); [apply Rmult_le_compat_r; lra|exact Hq]).
  assert (H2 : Rabs z * (Rpower (Rabs z) (k - 1) * C) <= Rabs z * eps)
    by (apply Rmult_le_compat_l; lra).
  lra.
Qed.

(** An ungated block whose activation is positively homogeneous of degree
    [k > 1] (relu2) is flat at 0. *)
Lemma ungated_block_flat : forall d m k sigma (Wd Wu : mat),
  1 < k ->
  (forall t z, 0 < t -> sigma (t * z) = Rpower t k * sigma z) ->
  flat d (block d m sigma Wd Wu).
Proof.
  intros d m k sigma Wd Wu Hk Hs. unfold block. apply readout_flat.
  intros eps Heps. set (K := absmat m d Wu). assert (HK : 0 <= K) by apply absmat_nonneg.
  destruct (scaled_eps eps K Heps HK) as [He _].
  destruct (homogeneous_activation_small k sigma Hk Hs (eps / (K + 1)) He) as (ds & Hds & Hsb).
  exists (ds / (K + 1)). split; [apply Rdiv_lt_0_compat; lra|].
  intros x l Hx Hl. pose proof (norm1_nonneg d x) as Hn.
  pose proof (mv_bound m d Wu x l Hl) as Hb. fold K in Hb.
  assert (Ha : Rabs (mv d Wu x l) < ds) by (eapply Rle_lt_trans; [exact Hb|apply below_scaled; assumption]).
  exact (scaled_chain eps K _ _ _ Heps HK Hn (Hsb _ Ha) Hb).
Qed.

(** A gated block whose gate vanishes at 0 and is continuous there (swiglu,
    geglu, reglu, bilinear) is flat at 0. *)
Lemma gated_block_flat : forall d m g (Wd Wg Wu : mat),
  g 0 = 0 -> continuity_pt g 0 -> flat d (gblock d m g Wd Wg Wu).
Proof. exact gblock_flat. Qed.
