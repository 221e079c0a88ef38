(** * Necessity of the sign-flip condition for relu blocks (Thm. 8, relu half)

    If a nondegenerate bias-free relu block [B] satisfies
    [M x + B x = B' x] for every [x], where [B'] is any bias-free relu
    block of the same width, then [W_down[:,S] W_up[S,:] = -M] for some
    index set [S].  No assumption on [d] (any [d >= 0]) or on [M].
    Moreover [B'] is [B] with the rows in [S] sign-flipped and every unit
    positively rescaled, up to a permutation of the units.

    Outline.
    - [relu z = z/2 + |z|/2]: comparing the identity at [x] and [-x]
      separates a linear identity (the odd parts) from the identity
      [sum_l Wd_il |u_l.x| = sum_k Wd'_ik |u'_k.x|] (the even parts).
    - Kink lemma: if [sum_k c_k |v_k.x| = 0] for all [x], then for every
      [x0] and [u] the second difference of this function at [x0] in
      direction [u] shows [sum_{k : v_k.x0 = 0} c_k |v_k.u| = 0].
    - Point lemma: for a nonzero [u] and finitely many [v_k] there is
      [x0] orthogonal to [u] with [v_k.x0 <> 0] unless [v_k] is a multiple
      of [u] (a real vector space is not a finite union of proper
      subspaces; explicit construction by induction).
    - Counting: every line of [B] carries a unit of [B']; the map from
      lines to such units is injective on [0..m-1], hence onto; then the
      kink identity reads [w_l = |lam_l| w'_(p l)] and the odd parts give
      the index condition. *)

From Coq Require Import Reals Lra Lia List.
From SkipAbsorption Require Import Linalg SignFlip RealActivations.
Import ListNotations.
Open Scope R_scope.

(** ** The hypotheses of the theorem *)

(** Every row [u_l] of [W_up] is nonzero. *)
Definition rows_nonzero (d m : nat) (Wu : mat) : Prop :=
  forall l, (l < m)%nat -> exists j, (j < d)%nat /\ Wu l j <> 0.

(** No row of [W_up] is a multiple of another one. *)
Definition rows_noncollinear (d m : nat) (Wu : mat) : Prop :=
  forall l l', (l < m)%nat -> (l' < m)%nat -> l <> l' ->
    ~ (exists c, forall j, (j < d)%nat -> Wu l' j = c * Wu l j).

(** Every column [w_l] of [W_down] is nonzero. *)
Definition cols_nonzero (d m : nat) (Wd : mat) : Prop :=
  forall l, (l < m)%nat -> exists i, (i < d)%nat /\ Wd i l <> 0.

Definition nondegenerate_block (d m : nat) (Wd Wu : mat) : Prop :=
  rows_nonzero d m Wu /\ rows_noncollinear d m Wu /\ cols_nonzero d m Wd.

(** [W_down[:,S] W_up[S,:] = -M] on the [d x d] range. *)
Definition index_condition_holds (d m : nat) (S : nat -> bool) (M Wd Wu : mat) : Prop :=
  forall i j, (i < d)%nat -> (j < d)%nat ->
    sum m (fun l => if S l then Wd i l * Wu l j else 0) = - M i j.

(** ** Small positive numbers *)

(** Finitely many positive numbers have a positive lower bound. *)
Lemma pos_below : forall n (r : nat -> R),
  (forall k, (k < n)%nat -> 0 < r k) -> exists t, 0 < t /\ forall k, (k < n)%nat -> t <= r k.
Proof.
  induction n as [|n IH]; intros r Hr.
  - exists 1. split; [lra|intros; lia].
  - destruct (IH r) as [t [Ht Hk]]; [intros; apply Hr; lia|].
    exists (Rmin t (r n)). split.
    + apply Rmin_glb_lt; [assumption|apply Hr; lia].
    + intros k Hk'. destruct (Nat.eq_dec k n) as [->|Hne].
      * apply Rmin_r.
      * eapply Rle_trans; [apply Rmin_l|apply Hk; lia].
Qed.

(** A step size [t <= step_bound a b] keeps [a + t b] on the side of [a]. *)
Definition step_bound (a b : R) : R :=
  if Req_EM_T a 0 then 1 else Rabs a / (Rabs b + 1).

Lemma step_bound_pos : forall a b, 0 < step_bound a b.
Proof.
  intros. unfold step_bound. destruct (Req_EM_T a 0); [lra|].
  apply Rdiv_lt_0_compat; [apply Rabs_pos_lt; assumption|].
  pose proof (Rabs_pos b). lra.
Qed.

Lemma step_bound_small : forall a b t,
  0 < t -> t <= step_bound a b -> a <> 0 -> Rabs (t * b) < Rabs a.
Proof.
  intros a b t Ht Hle Ha. unfold step_bound in Hle.
  destruct (Req_EM_T a 0) as [E|_]; [contradiction|].
  pose proof (Rabs_pos b) as Hb.
  assert (Hq : t * (Rabs b + 1) <= Rabs a).
  { replace (Rabs a) with (Rabs a / (Rabs b + 1) * (Rabs b + 1)) by (field; lra).
    apply Rmult_le_compat_r; lra. }
  rewrite Rabs_mult, (Rabs_pos_eq t) by lra. lra.
Qed.

Lemma abs_pair : forall a e, Rabs e < Rabs a -> Rabs (a + e) + Rabs (a - e) = 2 * Rabs a.
Proof.
  intros a e H. unfold Rabs in *.
  repeat match goal with
         | |- context [Rcase_abs ?x] => destruct (Rcase_abs x)
         | _ : context [Rcase_abs ?x] |- _ => destruct (Rcase_abs x)
         end; lra.
Qed.

(** Second difference of [c |a + t b|] at [t = 0]: it is [2 t c |b|] when
    [a = 0] and vanishes for small [t] otherwise. *)
Lemma second_difference : forall a b c t,
  0 < t -> t <= step_bound a b ->
  c * Rabs (a + t * b) + c * Rabs (a + - t * b) - 2 * (c * Rabs a) =
  2 * t * (if Req_EM_T a 0 then c * Rabs b else 0).
Proof.
  intros a b c t Ht Hle. destruct (Req_EM_T a 0) as [E|E].
  - subst a. rewrite !Rplus_0_l, Rabs_R0, !Rabs_mult, Rabs_Ropp, (Rabs_pos_eq t) by lra. ring.
  - replace (a + - t * b) with (a - t * b) by ring.
    rewrite <- Rmult_plus_distr_l, abs_pair by (apply step_bound_small; assumption). ring.
Qed.

(** ** The kink lemma *)

(** If [sum_k (c_k |V_k . x| - c'_k |V'_k . x|) = 0] for every [x], then at
    every point [x0] and in every direction [u] the coefficients of the
    terms that vanish at [x0] balance:
    [sum_{k : V_k.x0 = 0} c_k |V_k.u| = sum_{k : V'_k.x0 = 0} c'_k |V'_k.u|]. *)
Lemma kink_balance : forall d n (c c' : nat -> R) (V V' : mat),
  (forall x, sum n (fun k => c k * Rabs (mv d V x k) - c' k * Rabs (mv d V' x k)) = 0) ->
  forall x0 u : vec,
  sum n (fun k => (if Req_EM_T (mv d V x0 k) 0 then c k * Rabs (mv d V u k) else 0)
                - (if Req_EM_T (mv d V' x0 k) 0 then c' k * Rabs (mv d V' u k) else 0)) = 0.
Proof.
  intros d n c c' V V' H x0 u.
  destruct (pos_below n (fun k => Rmin (step_bound (mv d V x0 k) (mv d V u k))
                                       (step_bound (mv d V' x0 k) (mv d V' u k))))
    as [t [Ht Hle]].
  { intros. apply Rmin_glb_lt; apply step_bound_pos. }
  pose proof (H (fun j => x0 j + t * u j)) as Hp.
  pose proof (H (fun j => x0 j + - t * u j)) as Hm.
  pose proof (H x0) as H0.
  set (f := fun x k => c k * Rabs (mv d V x k) - c' k * Rabs (mv d V' x k)) in *.
  assert (Hsum : sum n (fun k => f (fun j => x0 j + t * u j) k + f (fun j => x0 j + - t * u j) k
                                 - 2 * f x0 k) = 0).
  { rewrite sum_minus, sum_plus, sum_scal_l. unfold f. rewrite Hp, Hm, H0. ring. }
  rewrite (sum_ext n _ (fun k => 2 * t *
             ((if Req_EM_T (mv d V x0 k) 0 then c k * Rabs (mv d V u k) else 0)
              - (if Req_EM_T (mv d V' x0 k) 0 then c' k * Rabs (mv d V' u k) else 0))))
    in Hsum.
  - rewrite sum_scal_l in Hsum. apply Rmult_integral in Hsum.
    destruct Hsum as [Hz|Hz]; [lra|exact Hz].
  - intros k Hk. unfold f. rewrite !mv_axpy.
    pose proof (Hle k Hk) as Hk'.
    assert (H1 : t <= step_bound (mv d V x0 k) (mv d V u k))
      by (eapply Rle_trans; [exact Hk'|apply Rmin_l]).
    assert (H2 : t <= step_bound (mv d V' x0 k) (mv d V' u k))
      by (eapply Rle_trans; [exact Hk'|apply Rmin_r]).
    pose proof (second_difference _ _ (c k) t Ht H1) as E1.
    pose proof (second_difference _ _ (c' k) t Ht H2) as E2.
    lra.
Qed.

(** ** A point off finitely many hyperplanes, inside [u]-perp *)

(** The affine form (used in AffineKink.v), on the hyperplane [u . x + b = 0]:
    start at [-(b / u.u) u]; if the new row [v] vanishes at the current point
    and is not a multiple of [u], move by a small step [s] along
    [y = v - (v.u / u.u) u], which is orthogonal to [u] and has
    [v . y = y . y > 0]; if [v] is a multiple [al u], vanishing on the
    hyperplane forces [e = al b]. *)
Lemma avoid_affine : forall d (u : vec) (b : R), 0 < dot d u u -> forall n (V : mat) (e : vec),
  exists x0, dot d u x0 + b = 0 /\
    forall k, (k < n)%nat -> mv d V x0 k + e k = 0 ->
      exists c, (forall j, (j < d)%nat -> V k j = c * u j) /\ e k = c * b.
Proof.
  intros d u b Hu n V e. induction n as [|n IH].
  - exists (fun j => - (b / dot d u u) * u j). split; [|intros; lia].
    rewrite dot_scal_r. field. lra.
  - destruct IH as [x [Hux Hx]].
    set (al := dot d (V n) u / dot d u u).
    set (y := fun j => V n j + - al * u j).
    assert (Huy : dot d u y = 0).
    { unfold y. rewrite dot_axpy, (dot_comm d u (V n)). unfold al. field. lra. }
    assert (Hvy : mv d V y n = dot d y y).
    { rewrite mv_dot. unfold y at 2. rewrite dot_axpy_l, Huy. ring. }
    destruct (Req_EM_T (mv d V x n + e n) 0) as [Hxn|Hxn].
    2:{ exists x. split; [assumption|]. intros k Hk Hk0.
        destruct (Nat.eq_dec k n) as [->|Hne]; [contradiction|apply Hx; [lia|assumption]]. }
    destruct (Req_EM_T (dot d y y) 0) as [Hyy|Hyy].
    { (* the new row is a multiple of u *)
      assert (Hrow : forall j, (j < d)%nat -> V n j = al * u j).
      { intros j Hj. pose proof (dot_self_zero d y Hyy j Hj) as E. unfold y in E. lra. }
      exists x. split; [assumption|]. intros k Hk Hk0.
      destruct (Nat.eq_dec k n) as [->|Hne].
      - exists al. split; [exact Hrow|].
        rewrite (mv_collinear_row d V u x n al Hrow) in Hxn. nra.
      - apply Hx; [lia|assumption]. }
    assert (Hyy' : 0 < dot d y y) by (pose proof (dot_self_nonneg d y); lra).
    destruct (pos_below n (fun k => step_bound (mv d V x k + e k) (mv d V y k))) as [s [Hs Hsk]].
    { intros. apply step_bound_pos. }
    exists (fun j => x j + s * y j). split.
    + rewrite dot_axpy, Huy. lra.
    + intros k Hk Hk0. rewrite mv_axpy in Hk0.
      destruct (Nat.eq_dec k n) as [->|Hne].
      * rewrite Hvy in Hk0. exfalso. nra.
      * destruct (Req_EM_T (mv d V x k + e k) 0) as [Hxk|Hxk]; [apply Hx; [lia|assumption]|].
        exfalso. pose proof (step_bound_small _ _ s Hs (Hsk k ltac:(lia)) Hxk) as Hlt.
        replace (mv d V x k + e k) with (- (s * mv d V y k)) in Hlt by lra.
        rewrite Rabs_Ropp in Hlt. lra.
Qed.

(** For a nonzero [u] and any rows [V_0 .. V_(n-1)] there is [x0] with
    [u . x0 = 0] and [V_k . x0 <> 0] for every [V_k] that is not a multiple
    of [u] ([avoid_affine] with [b = 0] and [e = 0]). *)
Lemma avoid_hyperplanes : forall d (u : vec), 0 < dot d u u -> forall n (V : mat),
  exists x0, dot d u x0 = 0 /\
    forall k, (k < n)%nat -> mv d V x0 k = 0 ->
      exists c, forall j, (j < d)%nat -> V k j = c * u j.
Proof.
  intros d u Hu n V. destruct (avoid_affine d u 0 Hu n V (fun _ => 0)) as [x0 [Hx0 Hoff]].
  exists x0. split; [lra|]. intros k Hk Hk0.
  destruct (Hoff k Hk ltac:(lra)) as [c [Hc _]]. exists c. exact Hc.
Qed.

(** Two families of rows stacked into one: rows [0..m-1] of [A], then [B]. *)
Definition stack (m : nat) (A B : mat) : mat :=
  fun k => if (k <? m)%nat then A k else B (k - m)%nat.

Lemma mv_stack_l : forall d m A B x k, (k < m)%nat -> mv d (stack m A B) x k = mv d A x k.
Proof.
  intros. unfold mv, stack. apply Nat.ltb_lt in H. rewrite H. reflexivity.
Qed.

Lemma mv_stack_r : forall d m A B x k, mv d (stack m A B) x (m + k)%nat = mv d B x k.
Proof.
  intros. unfold mv, stack.
  replace ((m + k <? m)%nat) with false by (symmetry; apply Nat.ltb_ge; lia).
  replace (m + k - m)%nat with k by lia. reflexivity.
Qed.

Lemma stack_l : forall m A B k j, (k < m)%nat -> stack m A B k j = A k j.
Proof. intros. unfold stack. apply Nat.ltb_lt in H. rewrite H. reflexivity. Qed.

Lemma stack_r : forall m A B k j, stack m A B (m + k)%nat j = B k j.
Proof.
  intros. unfold stack.
  replace ((m + k <? m)%nat) with false by (symmetry; apply Nat.ltb_ge; lia).
  replace (m + k - m)%nat with k by lia. reflexivity.
Qed.

(** For the line of [u_l]: a point on the kink hyperplane of unit [l] and on
    no other kink hyperplane of [B], on which a row of [W'_up] vanishes only
    when it is a multiple of [u_l]. *)
Lemma line_point : forall d m (Wu Wu' : mat) l,
  rows_nonzero d m Wu -> rows_noncollinear d m Wu -> (l < m)%nat ->
  exists x0, mv d Wu x0 l = 0 /\
    (forall k, (k < m)%nat -> mv d Wu x0 k = 0 -> k = l) /\
    (forall k, (k < m)%nat -> mv d Wu' x0 k = 0 ->
       exists c, forall j, (j < d)%nat -> Wu' k j = c * Wu l j).
Proof.
  intros d m Wu Wu' l Hnz Hnc Hl.
  assert (Hu : 0 < dot d (Wu l) (Wu l)) by (apply dot_self_pos, Hnz; assumption).
  destruct (avoid_hyperplanes d (Wu l) Hu (m + m) (stack m Wu Wu')) as [x0 [Hux Hx]].
  exists x0. split; [|split].
  - exact Hux.
  - intros k Hk Hk0. destruct (Nat.eq_dec k l) as [E|Hne]; [exact E|exfalso].
    destruct (Hx k ltac:(lia)) as [c Hc]; [rewrite mv_stack_l; assumption|].
    apply (Hnc l k Hl Hk (not_eq_sym Hne)). exists c. intros j Hj.
    rewrite <- (stack_l m Wu Wu' k j Hk). apply Hc. assumption.
  - intros k Hk Hk0. destruct (Hx (m + k)%nat ltac:(lia)) as [c Hc];
      [rewrite mv_stack_r; assumption|].
    exists c. intros j Hj. rewrite <- (stack_r m Wu Wu' k j). apply Hc. assumption.
Qed.

(** The kink identity along the line of [u_l], in output coordinate [i]:
    [w_il |u_l|^2] equals the sum over the units [k] of [B'] whose row vanishes
    at [x0] of [w'_ik |u'_k . u_l|]. *)
Lemma kink_equation : forall d m (Wd Wu Wd' Wu' : mat) l x0 i,
  (l < m)%nat ->
  (forall x, sum m (fun k => Wd i k * Rabs (mv d Wu x k) - Wd' i k * Rabs (mv d Wu' x k)) = 0) ->
  mv d Wu x0 l = 0 -> (forall k, (k < m)%nat -> mv d Wu x0 k = 0 -> k = l) ->
  Wd i l * dot d (Wu l) (Wu l) =
    sum m (fun k => if Req_EM_T (mv d Wu' x0 k) 0 then Wd' i k * Rabs (mv d Wu' (Wu l) k) else 0).
Proof.
  intros d m Wd Wu Wd' Wu' l x0 i Hl Heven Hl0 Honly.
  pose proof (kink_balance d m (Wd i) (Wd' i) Wu Wu' Heven x0 (Wu l)) as K.
  rewrite sum_minus in K.
  rewrite (sum_ext m (fun k => if Req_EM_T (mv d Wu x0 k) 0 then Wd i k * Rabs (mv d Wu (Wu l) k) else 0)
             (fun k => kron l k * (Wd i l * dot d (Wu l) (Wu l)))) in K.
  - rewrite (sum_kron_l m (fun _ => Wd i l * dot d (Wu l) (Wu l)) l Hl) in K. lra.
  - intros k Hk. unfold kron. destruct (Nat.eq_dec l k) as [<-|Hne].
    + destruct (Req_EM_T (mv d Wu x0 l) 0) as [_|E]; [|contradiction].
      rewrite mv_dot, Rabs_pos_eq by apply dot_self_nonneg. ring.
    + destruct (Req_EM_T (mv d Wu x0 k) 0) as [E|_]; [|ring].
      exfalso. apply Hne. symmetry. apply Honly; assumption.
Qed.

(** ** Finite choice and injective self-maps of [0..n-1] *)

(** ** The odd and even parts of the identity *)

Lemma relu_even_part : forall z, relu z + relu (- z) = Rabs z.
Proof.
  intros z. unfold relu, Rmax, Rabs.
  destruct (Rle_dec z 0), (Rle_dec (- z) 0), (Rcase_abs z); lra.
Qed.

Lemma block_relu_neg : forall d m (Wd Wu : mat) x i,
  block d m relu Wd Wu (fun j => - x j) i = sum m (fun l => Wd i l * relu (- mv d Wu x l)).
Proof.
  intros. unfold block, readout. apply sum_ext. intros. rewrite mv_opp. reflexivity.
Qed.

(** The absorption equation at [x] and at [-x], with the blocks written out. *)
Lemma absorbed_pm : forall d m (M Wd Wu Wd' Wu' : mat),
  (forall x i, (i < d)%nat ->
     mv d M x i + block d m relu Wd Wu x i = block d m relu Wd' Wu' x i) ->
  forall x i, (i < d)%nat ->
    mv d M x i + sum m (fun l => Wd i l * relu (mv d Wu x l)) =
      sum m (fun l => Wd' i l * relu (mv d Wu' x l)) /\
    - mv d M x i + sum m (fun l => Wd i l * relu (- mv d Wu x l)) =
      sum m (fun l => Wd' i l * relu (- mv d Wu' x l)).
Proof.
  intros d m M Wd Wu Wd' Wu' Habs x i Hi. split; [exact (Habs x i Hi)|].
  pose proof (Habs (fun j => - x j) i Hi) as Hm.
  rewrite !block_relu_neg, mv_opp in Hm. exact Hm.
Qed.

(** Odd and even parts of one sum of relu units. *)
Lemma relu_sum_parts : forall d m (W V : mat) x i,
  sum m (fun l => W i l * relu (mv d V x l)) - sum m (fun l => W i l * relu (- mv d V x l)) =
    sum m (fun l => W i l * mv d V x l) /\
  sum m (fun l => W i l * relu (mv d V x l)) + sum m (fun l => W i l * relu (- mv d V x l)) =
    sum m (fun l => W i l * Rabs (mv d V x l)).
Proof.
  intros. rewrite <- sum_minus, <- sum_plus. split; apply sum_ext; intros l _.
  - pose proof (relu_odd_part (mv d V x l)). nra.
  - rewrite <- relu_even_part. ring.
Qed.

(** Odd parts: [2 M x + W_down W_up x = W'_down W'_up x]. *)
Lemma odd_identity : forall d m (M Wd Wu Wd' Wu' : mat),
  (forall x i, (i < d)%nat ->
     mv d M x i + block d m relu Wd Wu x i = block d m relu Wd' Wu' x i) ->
  forall x i, (i < d)%nat ->
    2 * mv d M x i + sum m (fun l => Wd i l * mv d Wu x l) =
    sum m (fun l => Wd' i l * mv d Wu' x l).
Proof.
  intros d m M Wd Wu Wd' Wu' Habs x i Hi.
  destruct (absorbed_pm d m M Wd Wu Wd' Wu' Habs x i Hi) as [Hp Hm].
  rewrite <- (proj1 (relu_sum_parts d m Wd Wu x i)), <- (proj1 (relu_sum_parts d m Wd' Wu' x i)). lra.
Qed.

(** Even parts: [sum_l w_il |u_l . x| = sum_k w'_ik |u'_k . x|]. *)
Lemma even_identity : forall d m (M Wd Wu Wd' Wu' : mat),
  (forall x i, (i < d)%nat ->
     mv d M x i + block d m relu Wd Wu x i = block d m relu Wd' Wu' x i) ->
  forall i, (i < d)%nat -> forall x,
    sum m (fun k => Wd i k * Rabs (mv d Wu x k) - Wd' i k * Rabs (mv d Wu' x k)) = 0.
Proof.
  intros d m M Wd Wu Wd' Wu' Habs i Hi x.
  destruct (absorbed_pm d m M Wd Wu Wd' Wu' Habs x i Hi) as [Hp Hm].
  rewrite sum_minus, <- (proj2 (relu_sum_parts d m Wd Wu x i)), <- (proj2 (relu_sum_parts d m Wd' Wu' x i)).
  lra.
Qed.

(** ** The structure theorem and relu necessity *)

(** Under the hypotheses of Thm. 8 (relu), [B'] is [B] up to a permutation
    [p] of the units, with row [l] of [W_up] multiplied by [lam_l <> 0] and
    column [l] of [W_down] divided by [|lam_l|]; the units with [lam_l < 0]
    form an index set [S] with [W_down[:,S] W_up[S,:] = -M]. *)
Theorem relu_necessity_structure :
  forall (d m : nat) (M Wd Wu Wd' Wu' : mat)
         (nondegenerate : nondegenerate_block d m Wd Wu)
         (absorbed : forall x i, (i < d)%nat ->
            mv d M x i + block d m relu Wd Wu x i = block d m relu Wd' Wu' x i),
  exists (p : nat -> nat) (lam : nat -> R),
    (forall l, (l < m)%nat -> (p l < m)%nat) /\
    (forall l l', (l < m)%nat -> (l' < m)%nat -> p l = p l' -> l = l') /\
    (forall k, (k < m)%nat -> exists l, (l < m)%nat /\ p l = k) /\
    (forall l, (l < m)%nat -> lam l <> 0) /\
    (forall l j, (l < m)%nat -> (j < d)%nat -> Wu' (p l) j = lam l * Wu l j) /\
    (forall i l, (i < d)%nat -> (l < m)%nat -> Wd' i (p l) = Wd i l / Rabs (lam l)) /\
    exists S : nat -> bool,
      (forall l, (l < m)%nat -> (S l = true <-> lam l < 0)) /\
      index_condition_holds d m S M Wd Wu.
Proof.
  intros d m M Wd Wu Wd' Wu' [Hnz [Hnc Hcol]] absorbed.
  pose proof (even_identity d m M Wd Wu Wd' Wu' absorbed) as Heven.
  pose proof (odd_identity d m M Wd Wu Wd' Wu' absorbed) as Hodd.
  (* Step 1: every line of B carries a unit of B'. *)
  assert (Hcarry : forall l, (l < m)%nat -> exists pr : nat * R,
            (fst pr < m)%nat /\ snd pr <> 0 /\
            forall j, (j < d)%nat -> Wu' (fst pr) j = snd pr * Wu l j).
  { intros l Hl.
    destruct (line_point d m Wu Wu' l Hnz Hnc Hl) as [x0 [Hl0 [Honly Hcoll]]].
    destruct (Hcol l Hl) as [i [Hi Hw]].
    pose proof (kink_equation d m Wd Wu Wd' Wu' l x0 i Hl (Heven i Hi) Hl0 Honly) as K.
    assert (Hu : 0 < dot d (Wu l) (Wu l)) by (apply dot_self_pos, Hnz; assumption).
    assert (Hne : Wd i l * dot d (Wu l) (Wu l) <> 0)
      by (apply Rmult_integral_contrapositive; split; lra).
    rewrite K in Hne. apply sum_nonzero_term in Hne. destruct Hne as [k [Hk Hterm]].
    destruct (Req_EM_T (mv d Wu' x0 k) 0) as [E|E]; [|contradiction].
    destruct (Hcoll k Hk E) as [c Hc].
    exists (k, c). simpl. split; [assumption|split; [|assumption]].
    intro Hc0. apply Hterm. rewrite (mv_collinear_row d Wu' (Wu l) (Wu l) k c Hc), Hc0.
    rewrite Rmult_0_l, Rabs_R0. ring. }
  destruct (finite_choice (nat * R) (0%nat, 0) _ m Hcarry) as [pf Hpf].
  set (p := fun l => fst (pf l)). set (lam := fun l => snd (pf l)).
  assert (Hrange : forall l, (l < m)%nat -> (p l < m)%nat) by (intros; apply Hpf; assumption).
  assert (Hlam : forall l, (l < m)%nat -> lam l <> 0) by (intros; apply Hpf; assumption).
  assert (Hrow : forall l j, (l < m)%nat -> (j < d)%nat -> Wu' (p l) j = lam l * Wu l j)
    by (intros; apply Hpf; assumption).
  (* Step 2: two lines of B never share a unit of B'. *)
  assert (Hsame : forall l l' c, (l < m)%nat -> (l' < m)%nat ->
            (forall j, (j < d)%nat -> Wu' (p l') j = c * Wu l j) -> l' = l).
  { intros l l' c Hl Hl' Hc. destruct (Nat.eq_dec l' l) as [E|Hne]; [exact E|exfalso].
    apply (Hnc l l' Hl Hl' (not_eq_sym Hne)). exists (c / lam l').
    intros j Hj. pose proof (Hlam l' Hl') as Hl0.
    assert (E : lam l' * Wu l' j = c * Wu l j)
      by (rewrite <- Hrow by assumption; apply Hc; assumption).
    apply (Rmult_eq_reg_l (lam l')); [|assumption]. rewrite E. field. assumption. }
  assert (Hinj : forall l l', (l < m)%nat -> (l' < m)%nat -> p l = p l' -> l = l').
  { intros l l' Hl Hl' E. symmetry. apply (Hsame l l' (lam l) Hl Hl').
    intros j Hj. rewrite <- E. apply Hrow; assumption. }
  pose proof (injective_onto m p Hrange Hinj) as Hsurj.
  (* Step 3: the kink identity gives w_l = |lam_l| w'_(p l). *)
  assert (Hcol' : forall i l, (i < d)%nat -> (l < m)%nat -> Wd i l = Rabs (lam l) * Wd' i (p l)).
  { intros i l Hi Hl.
    destruct (line_point d m Wu Wu' l Hnz Hnc Hl) as [x0 [Hl0 [Honly Hcoll]]].
    pose proof (kink_equation d m Wd Wu Wd' Wu' l x0 i Hl (Heven i Hi) Hl0 Honly) as K.
    assert (Hu : 0 < dot d (Wu l) (Wu l)) by (apply dot_self_pos, Hnz; assumption).
    rewrite (sum_ext m _ (fun k => kron (p l) k * (Wd' i (p l) * (Rabs (lam l) * dot d (Wu l) (Wu l)))))
      in K.
    - rewrite (sum_kron_l m (fun _ => Wd' i (p l) * (Rabs (lam l) * dot d (Wu l) (Wu l))) (p l))
        in K by (apply Hrange; assumption).
      apply (Rmult_eq_reg_r (dot d (Wu l) (Wu l))); [|lra]. rewrite K. ring.
    - intros k Hk. destruct (Hsurj k Hk) as [l'' [Hl'' <-]]. unfold kron.
      destruct (Req_EM_T (mv d Wu' x0 (p l'')) 0) as [E|E].
      + destruct (Hcoll (p l'') (Hrange l'' Hl'') E) as [c Hc].
        assert (l'' = l) as -> by (apply (Hsame l l'' c Hl Hl'' Hc)).
        destruct (Nat.eq_dec (p l) (p l)) as [_|]; [|contradiction].
        rewrite (mv_collinear_row d Wu' (Wu l) (Wu l) (p l) (lam l)) by (intros; apply Hrow; assumption).
        rewrite Rabs_mult, (Rabs_pos_eq (dot d (Wu l) (Wu l))) by lra. ring.
      + destruct (Nat.eq_dec (p l) (p l'')) as [E'|_]; [|ring].
        exfalso. apply E. rewrite <- E'.
        rewrite (mv_collinear_row d Wu' (Wu l) x0 (p l) (lam l)) by (intros; apply Hrow; assumption).
        rewrite <- mv_dot, Hl0. ring. }
  (* Step 4: the odd parts give the index condition for S = {l : lam_l < 0}. *)
  set (S := fun l => if Rlt_dec (lam l) 0 then true else false).
  exists p, lam. split; [exact Hrange|]. split; [exact Hinj|]. split; [exact Hsurj|].
  split; [exact Hlam|]. split; [exact Hrow|]. split.
  { intros i l Hi Hl. rewrite (Hcol' i l Hi Hl). field.
    apply Rabs_no_R0. apply Hlam. assumption. }
  exists S. split.
  { intros l Hl. unfold S. destruct (Rlt_dec (lam l) 0); split; intro; congruence || lra. }
  intros i j Hi Hj.
  pose proof (Hodd (unit_vec j) i Hi) as H.
  rewrite mv_unit in H by assumption.
  rewrite (sum_ext m (fun l => Wd i l * mv d Wu (unit_vec j) l) (fun l => Wd i l * Wu l j)) in H
    by (intros; rewrite mv_unit by assumption; reflexivity).
  rewrite (sum_ext m (fun l => Wd' i l * mv d Wu' (unit_vec j) l) (fun l => Wd' i l * Wu' l j)) in H
    by (intros; rewrite mv_unit by assumption; reflexivity).
  rewrite (sum_reindex m p (fun k => Wd' i k * Wu' k j) Hrange Hinj Hsurj) in H.
  rewrite (sum_ext m (fun l => Wd' i (p l) * Wu' (p l) j)
             (fun l => Wd i l * Wu l j - 2 * (if S l then Wd i l * Wu l j else 0))) in H.
  - rewrite sum_minus, sum_scal_l in H. lra.
  - intros l Hl. rewrite Hrow by assumption.
    pose proof (Hcol' i l Hi Hl) as Hw. unfold S.
    destruct (Rlt_dec (lam l) 0) as [Hneg|Hpos].
    + rewrite Rabs_left in Hw by assumption. rewrite Hw. ring.
    + rewrite Rabs_pos_eq in Hw by lra. rewrite Hw. ring.
Qed.

(** Necessity (Thm. 8, relu): a nondegenerate relu block that absorbs the
    skip [M] at the same width satisfies the index condition for some [S].
    Any [d], any [M]. *)
Theorem relu_necessity :
  forall (d m : nat) (M Wd Wu Wd' Wu' : mat)
         (nondegenerate : nondegenerate_block d m Wd Wu)
         (absorbed : forall x i, (i < d)%nat ->
            mv d M x i + block d m relu Wd Wu x i = block d m relu Wd' Wu' x i),
  exists S : nat -> bool, index_condition_holds d m S M Wd Wu.
Proof.
  intros d m M Wd Wu Wd' Wu' nondegenerate absorbed.
  destruct (relu_necessity_structure d m M Wd Wu Wd' Wu' nondegenerate absorbed)
    as (p & lam & _ & _ & _ & _ & _ & _ & S & _ & HS).
  exists S. exact HS.
Qed.

(** Thm. 8 for relu, both directions: a nondegenerate relu block absorbs the
    skip [M] at the same width iff [W_down[:,S] W_up[S,:] = -M] for some [S]. *)
Theorem relu_iff :
  forall (d m : nat) (M Wd Wu : mat)
         (nondegenerate : nondegenerate_block d m Wd Wu),
  (exists Wd' Wu' : mat, forall x i, (i < d)%nat ->
     mv d M x i + block d m relu Wd Wu x i = block d m relu Wd' Wu' x i) <->
  (exists S : nat -> bool, index_condition_holds d m S M Wd Wu).
Proof.
  intros d m M Wd Wu nondegenerate. split.
  - intros [Wd' [Wu' absorbed]].
    exact (relu_necessity d m M Wd Wu Wd' Wu' nondegenerate absorbed).
  - intros [S index_condition]. exists Wd, (flip_rows S Wu).
    exact (sign_flip_absorbs d m relu M Wd Wu S relu_odd_part index_condition).
Qed.

(** ** Instances *)

(** The identity matrix is nondegenerate as a [d x d] block. *)
Lemma ident_nondegenerate : forall d, nondegenerate_block d d ident ident.
Proof.
  intros d. unfold nondegenerate_block, ident. split; [|split].
  - intros l Hl. exists l. split; [assumption|]. unfold kron.
    destruct (Nat.eq_dec l l); [lra|contradiction].
  - intros l l' Hl Hl' Hne [c Hc]. specialize (Hc l' Hl'). unfold kron in Hc.
    destruct (Nat.eq_dec l' l'), (Nat.eq_dec l l'); try contradiction. lra.
  - intros l Hl. exists l. split; [assumption|]. unfold kron.
    destruct (Nat.eq_dec l l); [lra|contradiction].
Qed.

Lemma block_ident : forall d sigma x i, (i < d)%nat ->
  block d d sigma ident ident x i = sigma (x i).
Proof.
  intros. unfold block, readout.
  rewrite (sum_ext d _ (fun l => kron i l * sigma (x l))).
  - apply (sum_kron_l d (fun l => sigma (x l))). assumption.
  - intros l Hl. unfold ident. rewrite mv_ident by assumption. reflexivity.
Qed.

(** In dimension 2, [x -> x + relu(x)] (coordinate-wise; [W_up = W_down = I],
    [M = I]) equals no relu block of width 2, whatever its weights; relu is
    written [Rmax z 0] and the block as its two explicit sums, so the
    statement uses the standard library only.  Through [relu_iff]: the index
    condition would need [sum_{l in S} I_0l I_l0 = -1], but that sum is 0 or 1. *)
Corollary relu_not_absorbable_instance :
  ~ (exists w00 w01 w10 w11 u00 u01 u10 u11 : R, forall x0 x1 : R,
       x0 + Rmax x0 0 = w00 * Rmax (u00 * x0 + u01 * x1) 0 + w01 * Rmax (u10 * x0 + u11 * x1) 0 /\
       x1 + Rmax x1 0 = w10 * Rmax (u00 * x0 + u01 * x1) 0 + w11 * Rmax (u10 * x0 + u11 * x1) 0).
Proof.
  intros (w00 & w01 & w10 & w11 & u00 & u01 & u10 & u11 & H).
  destruct (proj1 (relu_iff 2 2 ident ident ident (ident_nondegenerate 2))) as [S HS].
  - exists (fun i l => match i, l with O, O => w00 | O, _ => w01 | _, O => w10 | _, _ => w11 end),
           (fun l j => match l, j with O, O => u00 | O, _ => u01 | _, O => u10 | _, _ => u11 end).
    intros x i Hi. rewrite mv_ident, block_ident by assumption.
    destruct (H (x 0%nat) (x 1%nat)) as [H0 H1].
    unfold block, readout, mv. simpl. rewrite !Rplus_0_l.
    destruct i as [|[|i]]; [| |lia]; unfold relu.
    + rewrite H0. reflexivity.
    + rewrite H1. reflexivity.
  - specialize (HS 0%nat 0%nat ltac:(lia) ltac:(lia)).
    simpl in HS. unfold ident, kron in HS. simpl in HS.
    destruct (S 0%nat), (S 1%nat); lra.
Qed.

(** A matrix written as a list of its rows. *)
Definition mat_of (rows : list (list R)) : mat := fun i j => nth j (nth i rows nil) 0.

(** A positive instance, [d = 2], [m = 3], [M = I]:
    rows of [W_up]: u_0 = (1, 2), u_1 = (1, 1), u_2 = (1, -1);
    columns of [W_down]: w_0 = (2, 1), w_1 = (-1/2, -1/2), w_2 = (-1/2, 1/2).
    For [S = {1, 2}]: w_1 u_1^T + w_2 u_2^T = [[-1, 0], [0, -1]] = -I. *)
Definition Wu_ex : mat := mat_of [[1; 2]; [1; 1]; [1; -1]].
Definition Wd_ex : mat := mat_of [[2; -1/2; -1/2]; [1; -1/2; 1/2]].
(** [W_up] with rows 1 and 2 negated. *)
Definition Wu_ex_flipped : mat := mat_of [[1; 2]; [-1; -1]; [-1; 1]].
Definition S_ex (l : nat) : bool := match l with 1%nat | 2%nat => true | _ => false end.

Lemma ex_nondegenerate : nondegenerate_block 2 3 Wd_ex Wu_ex.
Proof.
  split; [|split].
  - intros l Hl. exists 0%nat. split; [lia|].
    destruct l as [|[|[|l]]]; try lia; unfold Wu_ex, mat_of; simpl; lra.
  - intros l l' Hl Hl' Hne [c Hc].
    pose proof (Hc 0%nat ltac:(lia)) as H0. pose proof (Hc 1%nat ltac:(lia)) as H1.
    unfold Wu_ex, mat_of in H0, H1.
    destruct l as [|[|[|l]]], l' as [|[|[|l']]]; try lia; simpl in H0, H1; lra.
  - intros l Hl. exists 0%nat. split; [lia|].
    destruct l as [|[|[|l]]]; try lia; unfold Wd_ex, mat_of; simpl; lra.
Qed.

Lemma ex_index_condition : index_condition_holds 2 3 S_ex ident Wd_ex Wu_ex.
Proof.
  intros i j Hi Hj. unfold Wd_ex, Wu_ex, mat_of, ident, kron.
  destruct i as [|[|i]], j as [|[|j]]; try lia; simpl;
    repeat destruct (Nat.eq_dec _ _); try congruence; lra.
Qed.

(** The instance through the iff: the block absorbs [x -> x] at width 3. *)
Corollary relu_absorbable_instance :
  exists Wd' Wu' : mat, forall (x : vec) i, (i < 2)%nat ->
    x i + block 2 3 relu Wd_ex Wu_ex x i = block 2 3 relu Wd' Wu' x i.
Proof.
  destruct (proj2 (relu_iff 2 3 ident Wd_ex Wu_ex ex_nondegenerate)
                  (ex_intro _ S_ex ex_index_condition)) as [Wd' [Wu' H]].
  exists Wd', Wu'. intros x i Hi. rewrite <- H by assumption. rewrite mv_ident by assumption.
  reflexivity.
Qed.

(** The same instance with the flipped block written out:
    [x + B x = W_down relu(W_up' x)] with rows 1 and 2 of [W_up] negated. *)
Corollary relu_absorbable_instance_explicit :
  forall (x : vec) i, (i < 2)%nat ->
    x i + block 2 3 relu Wd_ex Wu_ex x i = block 2 3 relu Wd_ex Wu_ex_flipped x i.
Proof.
  intros x i Hi.
  rewrite <- (mv_ident 2 x i Hi).
  rewrite (sign_flip_absorbs 2 3 relu ident Wd_ex Wu_ex S_ex relu_odd_part ex_index_condition x i Hi).
  unfold block, readout. apply sum_ext. intros l Hl. f_equal. f_equal.
  apply mv_row_ext. intros j Hj. unfold flip_rows, Wu_ex_flipped, Wu_ex, mat_of.
  destruct l as [|[|[|l]]], j as [|[|j]]; try lia; simpl; ring.
Qed.
