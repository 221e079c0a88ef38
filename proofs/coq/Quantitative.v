(** * The quantitative form of [homogeneous-any-width].

    If [B] and [B'] are positively homogeneous of the same degree [k] (any
    widths, any activations of that degree), the error
    [e x = M x + B x - B' x] satisfies, for [0 < s < 1],

      [e (s v) - s^k e v = (s - s^k) M v],

    because the homogeneous parts cancel.  So [e (s v)] or [e v] is at least
    [|s - s^k| / (1 + s^k) * |M v|] in norm, with both points in the ball of
    radius [|v|].  All norms here are [norm1] of Linalg.v (sum of absolute
    values of the [d] coordinates); the argument only uses the triangle
    inequality and [|t x| = |t| |x|], so it holds for every norm.

    For [k = 2] the best choice is [s = sqrt 2 - 1], which gives the constant
    [c_2 = (sqrt 2 - 1) / 2]; we prove that this is the maximum of
    [(s - s^2) / (1 + s^2)] over [0 < s < 1]. *)

From Coq Require Import Reals Lra Lia List.
From SkipAbsorption Require Import Linalg Homogeneous Activations.
Open Scope R_scope.

(** The pointwise error of the candidate [B'] for [x -> M x + B x]. *)
Definition gap_err (d : nat) (M : mat) (B B' : vec -> vec) (x : vec) : vec :=
  fun i => mv d M x i + B x i - B' x i.

(** ** Elementary facts about [norm1] *)

Lemma norm1_scal : forall d c x, norm1 d (fun i => c * x i) = Rabs c * norm1 d x.
Proof.
  intros. unfold norm1. rewrite <- sum_scal_l. apply sum_ext. intros. apply Rabs_mult.
Qed.

Lemma norm1_scale : forall d t x, norm1 d (scale t x) = Rabs t * norm1 d x.
Proof. intros. unfold scale. apply norm1_scal. Qed.

Lemma norm1_mv_scale : forall d M t x,
  norm1 d (mv d M (scale t x)) = Rabs t * norm1 d (mv d M x).
Proof.
  intros. rewrite (norm1_ext d (mv d M (scale t x)) (fun i => t * mv d M x i)).
  - apply norm1_scal.
  - intros. apply mv_scale.
Qed.

(** ** The identity [e (s v) - s^k e v = (s - s^k) M v] *)

Lemma gap_identity :
  forall d k s (M : mat) (B B' : vec -> vec) v i,
  pos_homogeneous d k B -> pos_homogeneous d k B' -> 0 < s -> (i < d)%nat ->
  gap_err d M B B' (scale s v) i - Rpower s k * gap_err d M B B' v i =
  (s - Rpower s k) * mv d M v i.
Proof.
  intros d k s M B B' v i HB HB' Hs Hi. unfold gap_err.
  rewrite mv_scale, (HB s v i Hs Hi), (HB' s v i Hs Hi). ring.
Qed.

(** ** The gap for an arbitrary degree [k] and an arbitrary [s] in (0, 1) *)

(** The argument for any [N] that only reads the [d] coordinates, is
    nonnegative, satisfies [N (x - y) <= N x + N y] and [N (t x) = |t| N x]
    (so for every norm: [norm1] here, any norm in QuantitativeNorm.v). *)
Lemma homogeneous_gap_in :
  forall (d : nat) (N : vec -> R) (k s : R) (M : mat) (B B' : vec -> vec) (v : vec),
  (forall x y, (forall j, (j < d)%nat -> x j = y j) -> N x = N y) ->
  (forall x y, N (fun j => x j - y j) <= N x + N y) ->
  (forall t x, N (fun j => t * x j) = Rabs t * N x) ->
  (forall x, 0 <= N x) ->
  pos_homogeneous d k B -> pos_homogeneous d k B' -> 0 < s < 1 ->
  exists x, N x <= N v /\
    Rabs (s - Rpower s k) / (1 + Rpower s k) * N (mv d M v) <= N (gap_err d M B B' x).
Proof.
  intros d N k s M B B' v Hext Hminus Hscal Hnonneg HB HB' [Hs0 Hs1].
  set (p := Rpower s k). assert (Hp : 0 < p) by apply exp_pos.
  set (a := N (gap_err d M B B' (scale s v))).
  set (b := N (gap_err d M B B' v)).
  (* |s - s^k| |M v| <= a + p b *)
  assert (Hkey : Rabs (s - p) * N (mv d M v) <= a + p * b).
  { rewrite <- Hscal.
    rewrite (Hext (fun i => (s - p) * mv d M v i)
               (fun i => gap_err d M B B' (scale s v) i - p * gap_err d M B B' v i)).
    - eapply Rle_trans; [apply Hminus|].
      rewrite Hscal, (Rabs_right p) by lra. unfold a, b. lra.
    - intros i Hi. unfold p. symmetry. apply gap_identity; assumption. }
  assert (Hden : 0 < 1 + p) by lra.
  assert (Hq : forall c, a + p * b <= (1 + p) * c ->
             Rabs (s - p) / (1 + p) * N (mv d M v) <= c).
  { intros c Hc. unfold Rdiv.
    apply Rmult_le_reg_l with (1 + p); [exact Hden|].
    replace ((1 + p) * (Rabs (s - p) * / (1 + p) * N (mv d M v)))
      with (Rabs (s - p) * N (mv d M v)) by (field; lra).
    lra. }
  pose proof (Hnonneg v) as Hv.
  destruct (Rle_dec b a) as [Hab|Hab].
  - exists (scale s v). split.
    + unfold scale. rewrite Hscal, Rabs_right by lra. nra.
    + apply Hq. fold a. nra.
  - exists v. split; [lra|]. apply Hq. fold b. nra.
Qed.

(** One of the two points [s v] and [v] (both of norm at most [|v|]) has an
    error of norm at least [|s - s^k| / (1 + s^k) * |M v|].  No hypothesis
    on [k] is needed; [k <> 1] is what makes the constant positive. *)
Theorem homogeneous_gap :
  forall (d : nat) (k s : R) (M : mat) (B B' : vec -> vec) (v : vec)
         (sigma_homogeneous : pos_homogeneous d k B)
         (tau_homogeneous : pos_homogeneous d k B')
         (s_range : 0 < s < 1),
  exists x, norm1 d x <= norm1 d v /\
    Rabs (s - Rpower s k) / (1 + Rpower s k) * norm1 d (mv d M v)
      <= norm1 d (gap_err d M B B' x).
Proof.
  intros d k s M B B' v sigma_homogeneous tau_homogeneous s_range.
  apply (homogeneous_gap_in d (norm1 d)); try assumption.
  - apply norm1_ext.
  - apply norm1_minus.
  - apply norm1_scal.
  - apply norm1_nonneg.
Qed.

(** Rescaled to a ball of radius [rad]: some [|x| <= rad] has error at least
    [|s - s^k| / (1 + s^k) * rad * |M v| / |v|]. *)
Theorem homogeneous_gap_radius :
  forall (d : nat) (k s rad : R) (M : mat) (B B' : vec -> vec) (v : vec)
         (sigma_homogeneous : pos_homogeneous d k B)
         (tau_homogeneous : pos_homogeneous d k B')
         (s_range : 0 < s < 1) (rad_pos : 0 < rad) (v_nonzero : 0 < norm1 d v),
  exists x, norm1 d x <= rad /\
    Rabs (s - Rpower s k) / (1 + Rpower s k) * rad * norm1 d (mv d M v) / norm1 d v
      <= norm1 d (gap_err d M B B' x).
Proof.
  intros d k s rad M B B' v HB HB' Hs HR Hv.
  set (t := rad / norm1 d v). assert (Ht : 0 < t) by (apply Rdiv_lt_0_compat; assumption).
  destruct (homogeneous_gap d k s M B B' (scale t v) HB HB' Hs) as (x & Hx & Hgap).
  exists x. split.
  - rewrite norm1_scale, (Rabs_right t) in Hx by lra.
    replace rad with (t * norm1 d v); [exact Hx|]. unfold t. field. lra.
  - rewrite norm1_mv_scale, (Rabs_right t) in Hgap by lra.
    assert (Hp : 0 < Rpower s k) by apply exp_pos.
    eapply Rle_trans; [|exact Hgap]. right. unfold t. field. lra.
Qed.

(** ** Any degree [k <> 1]: a gap linear in the radius, for blocks of any widths *)

Lemma Rpower_half_ne_half : forall k, k <> 1 -> Rpower (/ 2) k <> / 2.
Proof.
  intros k Hk Heq. apply (Rpower_2_ne_2 k Hk).
  assert (Hinv : Rpower (/ 2) k = / Rpower 2 k).
  { unfold Rpower. rewrite ln_Rinv by lra. rewrite <- exp_Ropp. f_equal. ring. }
  rewrite Hinv in Heq.
  assert (Hp : 0 < Rpower 2 k) by apply exp_pos.
  rewrite <- (Rinv_inv (Rpower 2 k)), Heq. apply Rinv_inv.
Qed.

(** [homogeneous-any-width], quantitative, any degree: for [k <> 1] and
    [M <> 0] there is a constant [c > 0] (depending on [k] and [M] only) such
    that in every ball of radius [rad] some [x] has
    [|M x + B x - B' x| >= c rad], whatever the widths [m], [m'] and the
    activations [sigma], [tau] of degree [k].  (The proof takes [s = 1/2]
    and a column [j] of [M] with a nonzero entry: [c = f(1/2) |M_ij|].) *)
Theorem homogeneous_any_width_gap :
  forall (d m m' : nat) (k : R) (sigma tau : R -> R) (M Wd Wu Wd' Wu' : mat)
         (k_ne_1 : k <> 1)
         (M_nonzero : nonzero_mat d M)
         (sigma_homogeneous : forall t z, 0 < t -> sigma (t * z) = Rpower t k * sigma z)
         (tau_homogeneous : forall t z, 0 < t -> tau (t * z) = Rpower t k * tau z),
  exists c, 0 < c /\ forall rad, 0 < rad -> exists x, norm1 d x <= rad /\
    c * rad <= norm1 d (fun i => mv d M x i + block d m sigma Wd Wu x i
                                  - block d m' tau Wd' Wu' x i).
Proof.
  intros d m m' k sigma tau M Wd Wu Wd' Wu' k_ne_1 (i0 & j0 & Hi0 & Hj0 & HM)
    sigma_homogeneous tau_homogeneous.
  set (f := Rabs (/ 2 - Rpower (/ 2) k) / (1 + Rpower (/ 2) k)).
  assert (Hf : 0 < f).
  { unfold f. apply Rdiv_lt_0_compat.
    - apply Rabs_pos_lt. pose proof (Rpower_half_ne_half k k_ne_1). lra.
    - pose proof (exp_pos (k * ln (/ 2))). unfold Rpower. lra. }
  exists (f * Rabs (M i0 j0)). split.
  { apply Rmult_lt_0_compat; [exact Hf|]. apply Rabs_pos_lt. exact HM. }
  intros rad HR.
  assert (Hn : norm1 d (unit_vec j0) = 1).
  { rewrite (norm1_ext d (unit_vec j0) (scale 1 (unit_vec j0))) by (intros; unfold scale; ring).
    rewrite norm1_scale_unit by assumption. apply Rabs_R1. }
  destruct (homogeneous_gap_radius d k (/ 2) rad M (block d m sigma Wd Wu)
              (block d m' tau Wd' Wu') (unit_vec j0)
              (block_homogeneous d m k sigma Wd Wu sigma_homogeneous)
              (block_homogeneous d m' k tau Wd' Wu' tau_homogeneous)
              ltac:(lra) HR ltac:(lra)) as (x & Hx & Hgap).
  exists x. split; [exact Hx|].
  eapply Rle_trans; [|exact Hgap]. fold f.
  rewrite Hn.
  assert (Hc : Rabs (M i0 j0) <= norm1 d (mv d M (unit_vec j0))).
  { rewrite <- (mv_unit d M i0 j0 Hj0). apply coord_le_norm1. exact Hi0. }
  replace (f * rad * norm1 d (mv d M (unit_vec j0)) / 1)
    with (f * rad * norm1 d (mv d M (unit_vec j0))) by field.
  replace (f * Rabs (M i0 j0) * rad) with (f * rad * Rabs (M i0 j0)) by ring.
  apply Rmult_le_compat_l; [|exact Hc].
  apply Rmult_le_pos; lra.
Qed.

(** ** Degree 2: the constant [(sqrt 2 - 1) / 2] *)

Lemma sqrt2_bounds : 1 < sqrt 2 < 2 /\ sqrt 2 * sqrt 2 = 2.
Proof.
  assert (H2 : sqrt 2 * sqrt 2 = 2) by (apply sqrt_sqrt; lra).
  assert (H0 : 0 <= sqrt 2) by apply sqrt_pos.
  repeat split; nra.
Qed.

(** The value [f(s) = |s - s^2| / (1 + s^2)] at [s = sqrt 2 - 1]. *)
Lemma c2_value :
  Rabs ((sqrt 2 - 1) - Rpower (sqrt 2 - 1) 2) / (1 + Rpower (sqrt 2 - 1) 2)
  = (sqrt 2 - 1) / 2.
Proof.
  destruct sqrt2_bounds as [[H1 H2] Hsq].
  rewrite Rpower_two by lra.
  rewrite Rabs_right by nra.
  field_simplify_eq; [nra|nra].
Qed.

(** No [s] in (0, 1) does better: [f(s) <= (sqrt 2 - 1) / 2], because
    [(sqrt 2 - 1)(1 + s^2) - 2 (s - s^2) = (sqrt 2 + 1)(s - (sqrt 2 - 1))^2]. *)
Lemma c2_is_max : forall s, 0 < s < 1 ->
  Rabs (s - Rpower s 2) / (1 + Rpower s 2) <= (sqrt 2 - 1) / 2.
Proof.
  intros s [Hs0 Hs1]. destruct sqrt2_bounds as [[H1 H2] Hsq].
  assert (Hpos : 0 <= s * (1 - s)) by (apply Rmult_le_pos; lra).
  rewrite Rpower_two by lra. rewrite Rabs_right by lra.
  assert (Hsquare : 0 <= (sqrt 2 + 1) * ((s - (sqrt 2 - 1)) * (s - (sqrt 2 - 1))))
    by (apply Rmult_le_pos; [lra|apply Rle_0_sqr]).
  apply Rmult_le_reg_r with (1 + s * s); [nra|].
  unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by nra.
  nra.
Qed.

(** Degree 3 for comparison: [s = 1/2] gives [1/3], and no [s] does better,
    since [(1 + s^3) - 3 (s - s^3) = (s + 1)(2 s - 1)^2]. *)
Lemma Rpower_three : forall t, 0 < t -> Rpower t 3 = t * t * t.
Proof.
  intros t Ht. replace 3 with (INR 3) by (simpl; ring).
  rewrite Rpower_pow by assumption. simpl. ring.
Qed.

Lemma c3_value : Rabs (/ 2 - Rpower (/ 2) 3) / (1 + Rpower (/ 2) 3) = / 3.
Proof.
  rewrite Rpower_three by lra. rewrite Rabs_right by lra. field.
Qed.

Lemma c3_is_max : forall s, 0 < s < 1 ->
  Rabs (s - Rpower s 3) / (1 + Rpower s 3) <= / 3.
Proof.
  intros s [Hs0 Hs1]. rewrite Rpower_three by lra.
  assert (Hpos : 0 <= s * (1 - s * s)) by (apply Rmult_le_pos; nra).
  assert (Hcube : 0 <= s * s * s) by (apply Rmult_le_pos; nra).
  rewrite Rabs_right by lra.
  assert (Hsq : 0 <= (s + 1) * ((2 * s - 1) * (2 * s - 1)))
    by (apply Rmult_le_pos; [lra|apply Rle_0_sqr]).
  apply Rmult_le_reg_r with (1 + s * s * s); [lra|].
  unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra.
  nra.
Qed.

(** [homogeneous-any-width], quantitative, degree 2, with the optimal
    constant of the argument: for [B], [B'] positively homogeneous of degree 2
    (any widths), every [v <> 0] and every [rad > 0], some [x] with [|x| <= rad]
    has [|M x + B x - B' x| >= ((sqrt 2 - 1) / 2) rad |M v| / |v|]. *)
Theorem homogeneous_gap_deg2 :
  forall (d : nat) (rad : R) (M : mat) (B B' : vec -> vec) (v : vec)
         (sigma_homogeneous : pos_homogeneous d 2 B)
         (tau_homogeneous : pos_homogeneous d 2 B')
         (rad_pos : 0 < rad) (v_nonzero : 0 < norm1 d v),
  exists x, norm1 d x <= rad /\
    (sqrt 2 - 1) / 2 * rad * norm1 d (mv d M v) / norm1 d v
      <= norm1 d (fun i => mv d M x i + B x i - B' x i).
Proof.
  intros d rad M B B' v HB HB' HR Hv.
  destruct sqrt2_bounds as [[H1 H2] Hsq].
  destruct (homogeneous_gap_radius d 2 (sqrt 2 - 1) rad M B B' v HB HB'
              ltac:(lra) HR Hv) as (x & Hx & Hgap).
  exists x. split; [exact Hx|]. rewrite c2_value in Hgap. exact Hgap.
Qed.

(** ** Instance: [x + relu(x)^2] against every relu2 block, [d = 1] *)

(** The relu2 block with units [(w_l, u_l)] (the list [units]) in dimension
    1: [x -> sum_l w_l relu(u_l x)^2], any width. *)
Lemma relu2_units_homogeneous : forall (units : list (R * R)),
  pos_homogeneous 1 2 (fun x _ => fold_right (fun p acc =>
    fst p * (Rmax (snd p * x 0%nat) 0 * Rmax (snd p * x 0%nat) 0) + acc) 0 units).
Proof.
  intros units t x i Ht _. induction units as [|p units IH]; simpl; [ring|].
  rewrite IH. unfold scale.
  replace (snd p * (t * x 0%nat)) with (t * (snd p * x 0%nat)) by ring.
  pose proof (relu2_homogeneous t (snd p * x 0%nat) Ht) as Hh. unfold relu2, relu in Hh.
  rewrite Hh. ring.
Qed.

(** For every relu2 block [B'] of any width (its units listed in [units];
    relu z = [Rmax z 0], so the statement uses the standard library only),
    some [x] with [|x| <= 1] has [|x + relu(x)^2 - B'(x)| >= (sqrt 2 - 1) / 2]
    (about 0.2071): the degree-2 gap with its optimal constant. *)
Lemma relu2_gap_instance :
  forall units : list (R * R),
  exists x : R, Rabs x <= 1 /\
    (sqrt 2 - 1) / 2 <= Rabs (x + Rmax x 0 * Rmax x 0 -
      fold_right (fun p acc => fst p * (Rmax (snd p * x) 0 * Rmax (snd p * x) 0) + acc) 0 units).
Proof.
  intros units.
  assert (Hn1 : forall y : vec, norm1 1 y = Rabs (y 0%nat)) by (intros; unfold norm1; simpl; ring).
  assert (Hv : norm1 1 (unit_vec 0) = 1).
  { rewrite Hn1. unfold unit_vec, kron. simpl. apply Rabs_R1. }
  assert (HMv : norm1 1 (mv 1 ident (unit_vec 0)) = 1).
  { rewrite Hn1, mv_ident by lia. unfold unit_vec, kron. simpl. apply Rabs_R1. }
  assert (HB : pos_homogeneous 1 2 (fun x _ => Rmax (x 0%nat) 0 * Rmax (x 0%nat) 0)).
  { intros t x i Ht _. unfold scale. pose proof (relu2_homogeneous t (x 0%nat) Ht) as Hh.
    unfold relu2, relu in Hh. exact Hh. }
  destruct (homogeneous_gap_deg2 1 1 ident _ _ (unit_vec 0) HB (relu2_units_homogeneous units)
              ltac:(lra) ltac:(lra)) as (x & Hx & Hgap).
  exists (x 0%nat). rewrite Hv, HMv in Hgap. rewrite Hn1 in Hx, Hgap. split; [exact Hx|].
  replace ((sqrt 2 - 1) / 2 * 1 * 1 / 1) with ((sqrt 2 - 1) / 2) in Hgap by field.
  rewrite mv_ident in Hgap by lia. exact Hgap.
Qed.
