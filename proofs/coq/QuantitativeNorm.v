(** * [homogeneous-any-width], quantitative: the constant [c_k], any norm,
    the operator norm of [M], and the sharp example for [k = 2].

    Quantitative.v proves the gap for every single [s] in (0, 1) in the norm
    [norm1].  This file completes the statement of the registry:

    - for every [k > 0], [k <> 1], the function
      [f_k(s) = |s - s^k| / (1 + s^k)] attains its maximum [c_k > 0] on
      (0, 1) ([ck_max_exists], [ck_lub_exists]); the proof bounds [f_k] by
      [f_k(1/2)] near 0 and near 1 (explicit thresholds, from the
      monotonicity of [s -> s^k]) and applies the extreme-value theorem
      [continuity_ab_maj] on the compact interval in between;
    - the whole argument works for an arbitrary norm [N] on [R^d], given by
      its axioms ([is_norm]); [norm1] is one ([norm1_is_norm]);
    - if [|e(x)| <= E] on the ball of radius [R] then [E >= c_k R |Mv|/|v|]
      for every [v <> 0] ([homogeneous_gap_ck]), and the least upper bound
      [||M||] of [|Mv|/|v|] exists and [E >= c_k ||M|| R]
      ([homogeneous_gap_opnorm]);
    - for [k = 2], [d = 1], [M = 1], [B = 0] and the width-2 relu2 block
      [B'(x) = (a/R)(relu(x)^2 - relu(-x)^2)], [a = (1 + sqrt 2)/2], the
      supremum of [|x - B'(x)|] over [|x| <= R] is exactly
      [((sqrt 2 - 1)/2) R] ([relu2_gap_sharp], [relu2_gap_sharp_lub]). *)

From Coq Require Import Reals Lra Lia Rtopology.
From SkipAbsorption Require Import Linalg Homogeneous Activations Quantitative.
Open Scope R_scope.

(** ** The constant [c_k] *)

(** [f_k(s) = |s - s^k| / (1 + s^k)], the constant of the argument at [s]. *)
Definition gap_ratio (k s : R) : R := Rabs (s - Rpower s k) / (1 + Rpower s k).

(** The values of [f_k] on (0, 1); [c_k] is their least upper bound. *)
Definition gap_ratios (k : R) (y : R) : Prop :=
  exists s, 0 < s < 1 /\ y = gap_ratio k s.

Lemma gap_ratio_nonneg : forall k s, 0 <= gap_ratio k s.
Proof.
  intros. unfold gap_ratio. apply Rmult_le_pos; [apply Rabs_pos|].
  left. apply Rinv_0_lt_compat. pose proof (exp_pos (k * ln s)). unfold Rpower. lra.
Qed.

(** [f_k(s) <= |s - s^k|], the denominator being at least 1. *)
Lemma gap_ratio_le_num : forall k s, gap_ratio k s <= Rabs (s - Rpower s k).
Proof.
  intros k s. unfold gap_ratio. pose proof (exp_pos (k * ln s)) as Hp. fold (Rpower s k) in Hp.
  pose proof (Rabs_pos (s - Rpower s k)).
  apply Rmult_le_reg_r with (1 + Rpower s k); [lra|].
  unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra. nra.
Qed.

Lemma Rpower_cont : forall k c, 0 < c -> continuity_pt (fun s => Rpower s k) c.
Proof.
  intros k c Hc. apply derivable_continuous_pt.
  exists (k * Rpower c (k - 1)). apply derivable_pt_lim_power. exact Hc.
Qed.

Lemma gap_ratio_cont : forall k c, 0 < c -> continuity_pt (gap_ratio k) c.
Proof.
  intros k c Hc. unfold gap_ratio.
  apply (continuity_pt_div (fun s => Rabs (s - Rpower s k)) (fun s => 1 + Rpower s k)).
  - apply (continuity_pt_comp (fun s => s - Rpower s k) Rabs).
    + apply (continuity_pt_minus (fun s => s) (fun s => Rpower s k)).
      * apply derivable_continuous_pt. apply derivable_pt_id.
      * apply Rpower_cont. exact Hc.
    + apply Rcontinuity_abs.
  - apply (continuity_pt_plus (fun _ => 1) (fun s => Rpower s k)).
    + apply continuity_pt_const. intros x y. reflexivity.
    + apply Rpower_cont. exact Hc.
  - pose proof (exp_pos (k * ln c)). unfold Rpower. lra.
Qed.

(** [(exp (t / k))^k = exp t]: the explicit thresholds below. *)
Lemma Rpower_exp_div : forall k t, 0 < k -> Rpower (exp (t / k)) k = exp t.
Proof.
  intros k t Hk. unfold Rpower. rewrite ln_exp. f_equal. field. lra.
Qed.

Lemma Rpower_lt_1 : forall k s, 0 < k -> 0 < s < 1 -> Rpower s k < 1.
Proof.
  intros k s Hk Hs. rewrite <- (Rpower_1 1) by lra.
  replace (Rpower 1 1) with (Rpower 1 k).
  - apply Rlt_Rpower_l; lra.
  - unfold Rpower. rewrite ln_1. rewrite !Rmult_0_r. reflexivity.
Qed.

(** [f_k(1/2) > 0] exactly when [k <> 1]. *)
Lemma gap_ratio_half_pos : forall k, k <> 1 -> 0 < gap_ratio k (/ 2).
Proof.
  intros k Hk. unfold gap_ratio. apply Rdiv_lt_0_compat.
  - apply Rabs_pos_lt. pose proof (Rpower_half_ne_half k Hk). lra.
  - pose proof (exp_pos (k * ln (/ 2))). unfold Rpower. lra.
Qed.

(** On (0, 1), [f_k(s) < 1]. *)
Lemma gap_ratio_lt_1 : forall k s, 0 < k -> 0 < s < 1 -> gap_ratio k s < 1.
Proof.
  intros k s Hk Hs. eapply Rle_lt_trans; [apply gap_ratio_le_num|].
  pose proof (Rpower_lt_1 k s Hk Hs). pose proof (exp_pos (k * ln s)) as Hp.
  fold (Rpower s k) in Hp. apply Rabs_def1; lra.
Qed.

(** Near 0: for [0 < s <= a] the ratio is at most [c]. *)
Lemma gap_ratio_small_near_0 : forall k c, 0 < k -> 0 < c ->
  exists a, 0 < a <= / 2 /\ forall s, 0 < s <= a -> gap_ratio k s <= c.
Proof.
  intros k c Hk Hc.
  set (a0 := exp (ln (c / 2) / k)).
  assert (Ha0 : 0 < a0) by apply exp_pos.
  assert (Ha0k : Rpower a0 k = c / 2) by (unfold a0; rewrite Rpower_exp_div, exp_ln by lra; reflexivity).
  exists (Rmin (/ 2) (Rmin (c / 2) a0)). split.
  - split; [|apply Rmin_l]. apply Rmin_glb_lt; [lra|]. apply Rmin_glb_lt; lra.
  - intros s [Hs0 Hs].
    assert (Hsc : s <= c / 2) by (eapply Rle_trans; [exact Hs|]; eapply Rle_trans; [apply Rmin_r|apply Rmin_l]).
    assert (Hsa : s <= a0) by (eapply Rle_trans; [exact Hs|]; eapply Rle_trans; [apply Rmin_r|apply Rmin_r]).
    assert (Hp : Rpower s k <= c / 2) by (rewrite <- Ha0k; apply Rle_Rpower_l; lra).
    pose proof (exp_pos (k * ln s)) as Hp0. fold (Rpower s k) in Hp0.
    eapply Rle_trans; [apply gap_ratio_le_num|]. apply Rabs_le. lra.
Qed.

(** Near 1: for [b <= s < 1] the ratio is at most [c] (when [c < 2]). *)
Lemma gap_ratio_small_near_1 : forall k c, 0 < k -> 0 < c < 2 ->
  exists b, / 2 <= b < 1 /\ forall s, b <= s < 1 -> gap_ratio k s <= c.
Proof.
  intros k c Hk Hc.
  set (b0 := exp (ln (1 - c / 2) / k)).
  assert (Hb0 : 0 < b0) by apply exp_pos.
  assert (Hb0k : Rpower b0 k = 1 - c / 2) by (unfold b0; rewrite Rpower_exp_div, exp_ln by lra; reflexivity).
  assert (Hb01 : b0 < 1).
  { assert (Hl : ln (1 - c / 2) < 0) by (rewrite <- ln_1; apply ln_increasing; lra).
    assert (Hq : ln (1 - c / 2) / k < 0).
    { apply Ropp_lt_cancel. rewrite Ropp_0.
      replace (- (ln (1 - c / 2) / k)) with (- ln (1 - c / 2) / k) by (field; lra).
      apply Rdiv_lt_0_compat; lra. }
    pose proof (exp_increasing _ _ Hq) as He. rewrite exp_0 in He. exact He. }
  exists (Rmax (/ 2) (Rmax (1 - c / 2) b0)). split.
  - split; [apply Rmax_l|]. apply Rmax_lub_lt; [lra|]. apply Rmax_lub_lt; lra.
  - intros s [Hs Hs1].
    assert (Hsc : 1 - c / 2 <= s) by (eapply Rle_trans; [|exact Hs]; eapply Rle_trans; [apply Rmax_l|apply Rmax_r]).
    assert (Hsb : b0 <= s) by (eapply Rle_trans; [|exact Hs]; eapply Rle_trans; [apply Rmax_r|apply Rmax_r]).
    assert (Hp : 1 - c / 2 <= Rpower s k) by (rewrite <- Hb0k; apply Rle_Rpower_l; lra).
    assert (Hp1 : Rpower s k < 1) by (apply Rpower_lt_1; lra).
    eapply Rle_trans; [apply gap_ratio_le_num|]. apply Rabs_le. lra.
Qed.

(** For every [k > 0], [k <> 1], the maximum [c_k] of [f_k] over (0, 1)
    exists, is attained at some [s0], and is positive. *)
Theorem ck_max_exists : forall (k : R) (k_pos : 0 < k) (k_ne_1 : k <> 1),
  exists s0, 0 < s0 < 1 /\ 0 < gap_ratio k s0 /\
    forall s, 0 < s < 1 -> gap_ratio k s <= gap_ratio k s0.
Proof.
  intros k Hk Hk1.
  set (c0 := gap_ratio k (/ 2)).
  assert (Hc0 : 0 < c0) by (apply gap_ratio_half_pos; exact Hk1).
  assert (Hc1 : c0 < 1) by (apply gap_ratio_lt_1; lra).
  destruct (gap_ratio_small_near_0 k c0 Hk Hc0) as (a & Ha & Hnear0).
  destruct (gap_ratio_small_near_1 k c0 Hk ltac:(lra)) as (b & Hb & Hnear1).
  destruct (continuity_ab_maj (gap_ratio k) a b ltac:(lra)
              (fun c Hc => gap_ratio_cont k c ltac:(lra))) as (s0 & Hmax & Hs0).
  assert (Hhalf : c0 <= gap_ratio k s0) by (apply Hmax; lra).
  exists s0. split; [lra|]. split; [lra|].
  intros s Hs.
  destruct (Rle_dec s a) as [Hsa|Hsa]; [pose proof (Hnear0 s ltac:(lra)); lra|].
  destruct (Rle_dec b s) as [Hbs|Hbs]; [pose proof (Hnear1 s ltac:(lra)); lra|].
  apply Hmax. lra.
Qed.

(** The same as a least upper bound that belongs to the set: [c_k] is the
    maximum of [gap_ratios k], and it is positive. *)
Corollary ck_lub_exists : forall (k : R) (k_pos : 0 < k) (k_ne_1 : k <> 1),
  exists c, is_lub (gap_ratios k) c /\ gap_ratios k c /\ 0 < c.
Proof.
  intros k Hk Hk1. destruct (ck_max_exists k Hk Hk1) as (s0 & Hs0 & Hpos & Hmax).
  exists (gap_ratio k s0). split; [split|split].
  - intros y (s & Hs & ->). apply Hmax. exact Hs.
  - intros b Hb. apply Hb. exists s0. split; [exact Hs0|reflexivity].
  - exists s0. split; [exact Hs0|reflexivity].
  - exact Hpos.
Qed.

(** For [k = 2] the maximum is [(sqrt 2 - 1) / 2] (from Quantitative.v). *)
Lemma c2_lub : is_lub (gap_ratios 2) ((sqrt 2 - 1) / 2).
Proof.
  destruct sqrt2_bounds as [[H1 H2] _]. split.
  - intros y (s & Hs & ->). apply c2_is_max. exact Hs.
  - intros b Hb. rewrite <- c2_value. apply Hb. exists (sqrt 2 - 1). split; [lra|reflexivity].
Qed.

(** ** An arbitrary norm on [R^d] *)

(** [N] is a norm on the first [d] coordinates: it only reads those
    coordinates, satisfies the triangle inequality, is absolutely
    homogeneous, and vanishes only at 0. *)
Definition is_norm (d : nat) (N : vec -> R) : Prop :=
  (forall x y, (forall j, (j < d)%nat -> x j = y j) -> N x = N y) /\
  (forall x y, N (fun j => x j + y j) <= N x + N y) /\
  (forall t x, N (fun j => t * x j) = Rabs t * N x) /\
  (forall x, N x = 0 -> forall j, (j < d)%nat -> x j = 0).

Lemma Rabs_m1 : Rabs (-1) = 1.
Proof. rewrite Rabs_left; lra. Qed.

Section Norm.
Variables (d : nat) (N : vec -> R).
Hypothesis HN : is_norm d N.

Lemma N_ext : forall x y, (forall j, (j < d)%nat -> x j = y j) -> N x = N y.
Proof. destruct HN as (H & _). exact H. Qed.

Lemma N_triang : forall x y, N (fun j => x j + y j) <= N x + N y.
Proof. destruct HN as (_ & H & _). exact H. Qed.

Lemma N_scal : forall t x, N (fun j => t * x j) = Rabs t * N x.
Proof. destruct HN as (_ & _ & H & _). exact H. Qed.

Lemma N_scale : forall t x, N (scale t x) = Rabs t * N x.
Proof. intros. unfold scale. apply N_scal. Qed.

Lemma N_zero : N (fun _ => 0) = 0.
Proof.
  rewrite (N_ext (fun _ => 0) (fun j => 0 * (fun _ => 0) j)) by (intros; simpl; ring).
  rewrite N_scal, Rabs_R0. ring.
Qed.

Lemma N_nonneg : forall x, 0 <= N x.
Proof.
  intros x. pose proof (N_triang x (fun j => -1 * x j)) as H.
  rewrite N_scal in H.
  rewrite (N_ext (fun j => x j + -1 * x j) (fun _ => 0)) in H by (intros; ring).
  rewrite N_zero in H. rewrite Rabs_m1 in H. lra.
Qed.

Lemma N_minus : forall x y, N (fun j => x j - y j) <= N x + N y.
Proof.
  intros x y.
  rewrite (N_ext (fun j => x j - y j) (fun j => x j + (fun i => -1 * y i) j)) by (intros; ring).
  eapply Rle_trans; [apply N_triang|]. rewrite N_scal, Rabs_m1. lra.
Qed.

Lemma N_mv_scale : forall M t x, N (mv d M (scale t x)) = Rabs t * N (mv d M x).
Proof.
  intros. rewrite (N_ext (mv d M (scale t x)) (fun i => t * mv d M x i)).
  - apply N_scal.
  - intros. apply mv_scale.
Qed.

Lemma N_unit_pos : (0 < d)%nat -> 0 < N (unit_vec 0).
Proof.
  intros Hd. destruct (N_nonneg (unit_vec 0)) as [H|H]; [exact H|].
  destruct HN as (_ & _ & _ & Hdef).
  pose proof (Hdef (unit_vec 0) (eq_sym H) 0%nat Hd) as H0.
  unfold unit_vec, kron in H0. simpl in H0. lra.
Qed.

End Norm.

(** [norm1] is a norm. *)
Lemma norm1_is_norm : forall d, is_norm d (norm1 d).
Proof.
  intros d. split; [|split; [|split]].
  - apply norm1_ext.
  - apply norm1_triang.
  - apply norm1_scal.
  - intros x H j Hj. destruct (Req_dec (x j) 0) as [E|E]; [exact E|].
    pose proof (Rabs_pos_lt (x j) E). pose proof (coord_le_norm1 d x j Hj). lra.
Qed.

(** ** The gap in an arbitrary norm *)

(** One of [s v], [v] has error at least [f_k(s) |M v|] in the norm [N]. *)
Theorem homogeneous_gap_norm :
  forall (d : nat) (N : vec -> R) (k s : R) (M : mat) (B B' : vec -> vec) (v : vec)
         (N_norm : is_norm d N)
         (sigma_homogeneous : pos_homogeneous d k B)
         (tau_homogeneous : pos_homogeneous d k B')
         (s_range : 0 < s < 1),
  exists x, N x <= N v /\ gap_ratio k s * N (mv d M v) <= N (gap_err d M B B' x).
Proof.
  intros d N k s M B B' v N_norm sigma_homogeneous tau_homogeneous s_range. unfold gap_ratio.
  apply (homogeneous_gap_in d N); try assumption.
  - apply (N_ext d N N_norm).
  - apply (N_minus d N N_norm).
  - apply (N_scal d N N_norm).
  - apply (N_nonneg d N N_norm).
Qed.

(** If the error is at most [E] on the ball of radius [rad], then
    [E >= f_k(s) rad |M v| / |v|] for every [s] in (0, 1) and [v <> 0]. *)
Lemma gap_bound_s :
  forall d N k s rad E M B B' v,
  is_norm d N -> pos_homogeneous d k B -> pos_homogeneous d k B' ->
  0 < s < 1 -> 0 < rad -> 0 < N v ->
  (forall x, N x <= rad -> N (gap_err d M B B' x) <= E) ->
  gap_ratio k s * rad * N (mv d M v) / N v <= E.
Proof.
  intros d N k s rad E M B B' v HN HB HB' Hs HR Hv HE.
  set (t := rad / N v). assert (Ht : 0 < t) by (apply Rdiv_lt_0_compat; assumption).
  destruct (homogeneous_gap_norm d N k s M B B' (scale t v) HN HB HB' Hs) as (x & Hx & Hgap).
  rewrite (N_scale d N HN), (Rabs_right t) in Hx by lra.
  rewrite (N_mv_scale d N HN), (Rabs_right t) in Hgap by lra.
  assert (Hxr : N x <= rad) by (replace rad with (t * N v) by (unfold t; field; lra); exact Hx).
  eapply Rle_trans; [|apply (HE x Hxr)]. eapply Rle_trans; [|exact Hgap].
  right. unfold t. field. lra.
Qed.

(** [homogeneous-any-width] (b), with the constant [c_k] itself: if [c] is
    the least upper bound of [f_k] on (0, 1) (it exists and is positive for
    [k > 0], [k <> 1]: [ck_lub_exists]) and the error is at most [E] on the
    ball of radius [rad] of any norm [N], then [E >= c rad |M v| / |v|] for
    every [v <> 0]. *)
Theorem homogeneous_gap_ck :
  forall (d : nat) (N : vec -> R) (k c rad E : R) (M : mat) (B B' : vec -> vec) (v : vec)
         (N_norm : is_norm d N)
         (sigma_homogeneous : pos_homogeneous d k B)
         (tau_homogeneous : pos_homogeneous d k B')
         (c_lub : is_lub (gap_ratios k) c)
         (rad_pos : 0 < rad) (v_nonzero : 0 < N v)
         (E_bound : forall x, N x <= rad -> N (gap_err d M B B' x) <= E),
  c * rad * N (mv d M v) / N v <= E.
Proof.
  intros d N k c rad E M B B' v HN HB HB' [Hub Hleast] HR Hv HE.
  assert (HE0 : 0 <= E).
  { eapply Rle_trans; [apply (N_nonneg d N HN (gap_err d M B B' (fun _ => 0)))|].
    apply HE. rewrite (N_zero d N HN). lra. }
  pose proof (N_nonneg d N HN (mv d M v)) as HMv.
  destruct HMv as [HMv|HMv].
  - (* E v / (rad |M v|) bounds every f_k(s), hence bounds c *)
    set (q := rad * N (mv d M v) / N v).
    assert (Hq : 0 < q) by (unfold q; apply Rdiv_lt_0_compat; [apply Rmult_lt_0_compat|]; assumption).
    assert (Hc : c <= E / q).
    { apply Hleast. intros y (s & Hs & ->).
      pose proof (gap_bound_s d N k s rad E M B B' v HN HB HB' Hs HR Hv HE) as H.
      apply Rmult_le_reg_r with q; [exact Hq|].
      unfold Rdiv at 1. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra.
      replace (gap_ratio k s * q) with (gap_ratio k s * rad * N (mv d M v) / N v)
        by (unfold q; field; lra). exact H. }
    replace (c * rad * N (mv d M v) / N v) with (c * q) by (unfold q; field; lra).
    apply Rmult_le_reg_r with (/ q); [apply Rinv_0_lt_compat; exact Hq|].
    rewrite Rmult_assoc, Rinv_r, Rmult_1_r by lra. exact Hc.
  - rewrite <- HMv. unfold Rdiv. rewrite Rmult_0_r, Rmult_0_l. exact HE0.
Qed.

(** ** The operator norm *)

(** The ratios [|M v| / |v|] over [v <> 0]; [||M||] is their least upper
    bound. *)
Definition op_ratios (d : nat) (N : vec -> R) (M : mat) (y : R) : Prop :=
  exists v, 0 < N v /\ y = N (mv d M v) / N v.

(** [homogeneous-any-width] (b), operator-norm form, any norm: for
    [k > 0], [k <> 1] and [d >= 1], if the error of [B'] for
    [x -> M x + B x] is at most [E] on the ball of radius [rad], then the
    least upper bound [||M||] of [|M v| / |v|] exists, and
    [E >= c_k ||M|| rad] where [c_k > 0] is the maximum of [f_k] on (0, 1). *)
Theorem homogeneous_gap_opnorm :
  forall (d : nat) (N : vec -> R) (k rad E : R) (M : mat) (B B' : vec -> vec)
         (N_norm : is_norm d N) (d_pos : (0 < d)%nat)
         (k_pos : 0 < k) (k_ne_1 : k <> 1)
         (sigma_homogeneous : pos_homogeneous d k B)
         (tau_homogeneous : pos_homogeneous d k B')
         (rad_pos : 0 < rad)
         (E_bound : forall x, N x <= rad -> N (gap_err d M B B' x) <= E),
  exists c opM, is_lub (gap_ratios k) c /\ gap_ratios k c /\ 0 < c /\
    is_lub (op_ratios d N M) opM /\ c * opM * rad <= E.
Proof.
  intros d N k rad E M B B' HN Hd Hk Hk1 HB HB' HR HE.
  destruct (ck_lub_exists k Hk Hk1) as (c & Hlub & Hin & Hc).
  assert (Hall : forall y, op_ratios d N M y -> y <= E / (c * rad)).
  { intros y (v & Hv & ->).
    pose proof (homogeneous_gap_ck d N k c rad E M B B' v HN HB HB' Hlub HR Hv HE) as H.
    apply Rmult_le_reg_l with (c * rad); [apply Rmult_lt_0_compat; assumption|].
    replace (c * rad * (E / (c * rad))) with E by (field; lra).
    replace (c * rad * (N (mv d M v) / N v)) with (c * rad * N (mv d M v) / N v)
      by (field; lra). exact H. }
  destruct (completeness (op_ratios d N M)) as (opM & HopM).
  { exists (E / (c * rad)). intros y Hy. apply Hall. exact Hy. }
  { exists (N (mv d M (unit_vec 0)) / N (unit_vec 0)). exists (unit_vec 0).
    split; [apply (N_unit_pos d N HN Hd)|reflexivity]. }
  exists c, opM. split; [exact Hlub|]. split; [exact Hin|]. split; [exact Hc|].
  split; [exact HopM|].
  assert (Hle : opM <= E / (c * rad)) by (apply HopM; intros y Hy; apply Hall; exact Hy).
  apply Rmult_le_reg_r with (/ (c * rad)).
  { apply Rinv_0_lt_compat, Rmult_lt_0_compat; assumption. }
  replace (c * opM * rad * / (c * rad)) with opM by (field; lra). exact Hle.
Qed.

(** The operator norm of [M] for [norm1] always exists ([d >= 1]): the set
    of ratios is nonempty and bounded by [d * sum |M_ij|]. *)
Lemma opnorm_norm1_exists : forall d M, (0 < d)%nat ->
  exists opM, is_lub (op_ratios d (norm1 d) M) opM.
Proof.
  intros d M Hd. destruct (completeness (op_ratios d (norm1 d) M)) as (opM & H).
  - exists (INR d * absmat d d M). intros y (v & Hv & ->).
    apply Rmult_le_reg_r with (norm1 d v); [exact Hv|].
    unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra.
    unfold norm1 at 1. eapply Rle_trans.
    + apply (sum_le d _ (fun _ => absmat d d M * norm1 d v)). intros l Hl. apply mv_bound. exact Hl.
    + right. rewrite sum_const. ring.
  - exists (norm1 d (mv d M (unit_vec 0)) / norm1 d (unit_vec 0)). exists (unit_vec 0).
    split; [apply (N_unit_pos d (norm1 d) (norm1_is_norm d) Hd)|reflexivity].
  - exists opM. exact H.
Qed.

(** ** Sharpness for [k = 2], [d = 1], [M = 1] *)

(** [a = (1 + sqrt 2) / 2], so that [4 a^2 - 4 a - 1 = 0] and
    [a - 1 = (sqrt 2 - 1) / 2]. *)
Definition sharp_a : R := (1 + sqrt 2) / 2.

(** The width-2 relu2 block [x -> (a/R) relu(x)^2 - (a/R) relu(-x)^2]:
    up-projection rows [1] and [-1], down-projection [(a/R, -a/R)]. *)
Definition sharp_Wu : mat := fun l _ => match l with O => 1 | _ => -1 end.
Definition sharp_Wd (rad : R) : mat :=
  fun _ l => match l with O => sharp_a / rad | _ => - (sharp_a / rad) end.

(** [B = 0] as a relu2 block: down-projection 0. *)
Definition zero_mat : mat := fun _ _ => 0.

(** The scalar bound behind the example: for [0 <= t <= R],
    [|t - a t^2 / R| <= (a - 1) R], with equality at [t = R]. *)
Lemma sharp_scalar : forall rad t, 0 < rad -> 0 <= t <= rad ->
  Rabs (t - sharp_a / rad * (t * t)) <= (sqrt 2 - 1) / 2 * rad.
Proof.
  intros rad t HR Ht. destruct sqrt2_bounds as [[H1 H2] Hsq].
  assert (Ha : sharp_a - 1 = (sqrt 2 - 1) / 2) by (unfold sharp_a; field).
  assert (Ha2 : 4 * sharp_a * sharp_a - 4 * sharp_a - 1 = 0) by (unfold sharp_a; nra).
  assert (Hapos : 1 < sharp_a) by (unfold sharp_a; lra).
  rewrite <- Ha.
  replace (t - sharp_a / rad * (t * t)) with ((t * rad - sharp_a * (t * t)) / rad) by (field; lra).
  unfold Rdiv. rewrite Rabs_mult, (Rabs_right (/ rad)) by (left; apply Rinv_0_lt_compat; lra).
  apply Rmult_le_reg_r with rad; [exact HR|].
  rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra.
  apply Rabs_le. split.
  - (* a t^2 - R t - (a - 1) R^2 = (t - R)(a t + (a - 1) R) <= 0 *)
    assert (0 <= (rad - t) * (sharp_a * t + (sharp_a - 1) * rad)) by (apply Rmult_le_pos; nra).
    nra.
  - (* a t^2 - R t + (a - 1) R^2 = a (t - R / (2 a))^2 >= 0 *)
    assert (0 <= sharp_a * ((t - rad / (2 * sharp_a)) * (t - rad / (2 * sharp_a))))
      by (apply Rmult_le_pos; [lra|apply Rle_0_sqr]).
    assert (Hexp : sharp_a * ((t - rad / (2 * sharp_a)) * (t - rad / (2 * sharp_a))) =
              sharp_a * (t * t) - t * rad + (rad * rad) / (4 * sharp_a)) by (field; lra).
    assert (Hq : (rad * rad) / (4 * sharp_a) = (sharp_a - 1) * rad * rad).
    { field_simplify_eq; [|lra]. nra. }
    nra.
Qed.

Lemma sharp_err : forall rad x, 0 < rad ->
  gap_err 1 ident (block 1 1 relu2 zero_mat zero_mat) (block 1 2 relu2 (sharp_Wd rad) sharp_Wu) x 0%nat
  = x 0%nat - (sharp_a / rad * (relu (x 0%nat) * relu (x 0%nat))
               - sharp_a / rad * (relu (- x 0%nat) * relu (- x 0%nat))).
Proof.
  intros rad x HR. unfold gap_err. rewrite mv_ident by lia.
  unfold block, readout, mv, relu2, zero_mat, sharp_Wd, sharp_Wu. simpl.
  replace (0 + -1 * x 0%nat) with (- x 0%nat) by ring.
  replace (0 + 1 * x 0%nat) with (x 0%nat) by ring.
  replace (0 + 0 * x 0%nat) with 0 by ring. ring.
Qed.

Lemma norm1_dim1 : forall y : vec, norm1 1 y = Rabs (y 0%nat).
Proof. intros. unfold norm1. simpl. ring. Qed.

(** [homogeneous-any-width] (c): for [k = 2], [d = 1], [M = 1], [B = 0]
    (a relu2 block with zero down-projection) and the width-2 relu2 block
    [B'(x) = (a/R)(relu(x)^2 - relu(-x)^2)], [a = (1 + sqrt 2)/2], every
    [|x| <= R] has [|x + B(x) - B'(x)| <= ((sqrt 2 - 1)/2) R], and [x = R]
    attains it: the constant [c_2 = (sqrt 2 - 1)/2] of the lower bound is
    sharp. *)
Theorem relu2_gap_sharp : forall (rad : R) (rad_pos : 0 < rad),
  (forall x, norm1 1 x <= rad ->
     norm1 1 (gap_err 1 ident (block 1 1 relu2 zero_mat zero_mat)
                (block 1 2 relu2 (sharp_Wd rad) sharp_Wu) x) <= (sqrt 2 - 1) / 2 * rad) /\
  (exists x, norm1 1 x <= rad /\
     norm1 1 (gap_err 1 ident (block 1 1 relu2 zero_mat zero_mat)
                (block 1 2 relu2 (sharp_Wd rad) sharp_Wu) x) = (sqrt 2 - 1) / 2 * rad).
Proof.
  intros rad HR. split.
  - intros x Hx. rewrite norm1_dim1 in Hx |- *. rewrite sharp_err by exact HR.
    unfold relu, Rmax. set (t := x 0%nat) in *.
    destruct (Rle_dec t 0) as [Ht|Ht]; destruct (Rle_dec (- t) 0) as [Ht'|Ht'].
    + assert (t = 0) by lra. subst t. rewrite H. rewrite Rabs_right; [|lra]. 
      destruct sqrt2_bounds as [[H1 H2] _]. nra.
    + (* t < 0: the error is -(|t| - a |t|^2 / R) *)
      rewrite Rabs_left1 in Hx by lra.
      pose proof (sharp_scalar rad (- t) HR ltac:(lra)) as H.
      replace (t - (sharp_a / rad * (0 * 0) - sharp_a / rad * (- t * - t)))
        with (- (- t - sharp_a / rad * (- t * - t))) by ring.
      rewrite Rabs_Ropp. exact H.
    + rewrite Rabs_right in Hx by lra.
      pose proof (sharp_scalar rad t HR ltac:(lra)) as H.
      replace (t - (sharp_a / rad * (t * t) - sharp_a / rad * (0 * 0)))
        with (t - sharp_a / rad * (t * t)) by ring. exact H.
    + lra.
  - exists (fun _ => rad). rewrite !norm1_dim1. split; [rewrite Rabs_right by lra; lra|].
    rewrite sharp_err by exact HR. unfold relu, Rmax.
    destruct (Rle_dec rad 0) as [H|_]; [lra|].
    destruct (Rle_dec (- rad) 0) as [_|H]; [|lra].
    destruct sqrt2_bounds as [[H1 H2] _].
    replace (rad - (sharp_a / rad * (rad * rad) - sharp_a / rad * (0 * 0)))
      with (- ((sqrt 2 - 1) / 2 * rad)) by (unfold sharp_a; field; lra).
    rewrite Rabs_Ropp. apply Rabs_right. nra.
Qed.

(** The same as a supremum, together with the lower bound: for this pair of
    blocks the least upper bound of [|x + B(x) - B'(x)|] over [|x| <= R] is
    exactly [c_2 * ||M|| * R], with [c_2 = (sqrt 2 - 1)/2] the least upper
    bound of [f_2] and [||M|| = 1]. *)
Corollary relu2_gap_sharp_lub : forall (rad : R) (rad_pos : 0 < rad),
  is_lub (gap_ratios 2) ((sqrt 2 - 1) / 2) /\
  is_lub (op_ratios 1 (norm1 1) ident) 1 /\
  is_lub (fun y => exists x, norm1 1 x <= rad /\
            y = norm1 1 (gap_err 1 ident (block 1 1 relu2 zero_mat zero_mat)
                           (block 1 2 relu2 (sharp_Wd rad) sharp_Wu) x))
         ((sqrt 2 - 1) / 2 * 1 * rad).
Proof.
  intros rad HR. destruct (relu2_gap_sharp rad HR) as [Hle (x0 & Hx0 & Heq)].
  split; [exact c2_lub|]. split.
  - split.
    + intros y (v & Hv & ->). right.
      rewrite (norm1_ext 1 (mv 1 ident v) v) by (intros j Hj; apply mv_ident; exact Hj).
      field. lra.
    + intros b Hb. apply Hb. exists (unit_vec 0).
      split; [apply (N_unit_pos 1 (norm1 1) (norm1_is_norm 1)); lia|].
      rewrite (norm1_ext 1 (mv 1 ident (unit_vec 0)) (unit_vec 0))
        by (intros j Hj; apply mv_ident; exact Hj).
      field. apply Rgt_not_eq, (N_unit_pos 1 (norm1 1) (norm1_is_norm 1)). lia.
  - rewrite Rmult_1_r. split.
    + intros y (x & Hx & ->). apply Hle. exact Hx.
    + intros b Hb. rewrite <- Heq. apply Hb. exists x0. split; [exact Hx0|reflexivity].
Qed.

(** ** Degree 1/2: [c_{1/2} = 3 - 2 sqrt 2] *)

(** With [r = sqrt s], [f_{1/2}(s) = r (1 - r) / (1 + r)]; it is largest at
    [r = sqrt 2 - 1], i.e. [s = (sqrt 2 - 1)^2 = 3 - 2 sqrt 2], because
    [(3 - 2 sqrt 2)(1 + r) - r (1 - r) = (r - (sqrt 2 - 1))^2]. *)
Lemma c_half_value :
  gap_ratio (/ 2) ((sqrt 2 - 1) * (sqrt 2 - 1)) = 3 - 2 * sqrt 2.
Proof.
  destruct sqrt2_bounds as [[H1 H2] Hsq]. unfold gap_ratio.
  rewrite Rpower_sqrt by nra. rewrite sqrt_square by lra.
  rewrite Rabs_left1 by nra.
  field_simplify_eq; [nra|lra].
Qed.

Lemma c_half_is_max : forall s, 0 < s < 1 -> gap_ratio (/ 2) s <= 3 - 2 * sqrt 2.
Proof.
  intros s [Hs0 Hs1]. destruct sqrt2_bounds as [[H1 H2] Hsq]. unfold gap_ratio.
  rewrite Rpower_sqrt by lra.
  assert (Hr0 : 0 < sqrt s) by (apply sqrt_lt_R0; lra).
  assert (Hr1 : sqrt s < 1) by (rewrite <- sqrt_1; apply sqrt_lt_1; lra).
  assert (Hrr : sqrt s * sqrt s = s) by (apply sqrt_sqrt; lra).
  set (r := sqrt s) in *. rewrite <- Hrr.
  rewrite Rabs_left1 by nra.
  assert (Hsquare : 0 <= (r - (sqrt 2 - 1)) * (r - (sqrt 2 - 1))) by apply Rle_0_sqr.
  apply Rmult_le_reg_r with (1 + r); [lra|].
  unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra.
  nra.
Qed.

Lemma c_half_lub : is_lub (gap_ratios (/ 2)) (3 - 2 * sqrt 2).
Proof.
  destruct sqrt2_bounds as [[H1 H2] _]. split.
  - intros y (s & Hs & ->). apply c_half_is_max. exact Hs.
  - intros b Hb. rewrite <- c_half_value. apply Hb.
    exists ((sqrt 2 - 1) * (sqrt 2 - 1)). split; [nra|reflexivity].
Qed.

(** Degree 3: [c_3 = 1/3] (values from Quantitative.v). *)
Lemma c3_lub : is_lub (gap_ratios 3) (/ 3).
Proof.
  split.
  - intros y (s & Hs & ->). apply c3_is_max. exact Hs.
  - intros b Hb. rewrite <- c3_value. apply Hb. exists (/ 2). split; [lra|reflexivity].
Qed.

(** ** The quantitative statement in one piece *)

(** [homogeneous-any-width], quantitative part, as registered: for [k > 0],
    [k <> 1] the maximum [c_k] of [|s - s^k| / (1 + s^k)] over (0, 1)
    exists and is positive, and for every norm [N] on [R^d], every [M], all
    [B], [B'] positively homogeneous of degree [k] (ungated or gated blocks of
    any widths), every radius [rad > 0] and every [v <> 0]: if
    [|M x + B x - B' x| <= E] whenever [|x| <= rad], then
    [E >= c_k rad |M v| / |v|]. *)
Theorem homogeneous_any_width_quantitative :
  forall (k : R) (k_pos : 0 < k) (k_ne_1 : k <> 1),
  exists c, is_lub (gap_ratios k) c /\ gap_ratios k c /\ 0 < c /\
    forall (d : nat) (N : vec -> R) (rad E : R) (M : mat) (B B' : vec -> vec) (v : vec)
           (N_norm : is_norm d N)
           (sigma_homogeneous : pos_homogeneous d k B)
           (tau_homogeneous : pos_homogeneous d k B')
           (rad_pos : 0 < rad) (v_nonzero : 0 < N v)
           (E_bound : forall x, N x <= rad -> N (gap_err d M B B' x) <= E),
    c * rad * N (mv d M v) / N v <= E.
Proof.
  intros k Hk Hk1. destruct (ck_lub_exists k Hk Hk1) as (c & Hlub & Hin & Hc).
  exists c. split; [exact Hlub|]. split; [exact Hin|]. split; [exact Hc|].
  intros d N rad E M B B' v HN HB HB' HR Hv HE.
  exact (homogeneous_gap_ck d N k c rad E M B B' v HN HB HB' Hlub HR Hv HE).
Qed.
