(** * The limit extension ([relu-limit]): biased blocks of relu-like
    activations.

    If [s (t z + c) / t -> relu z] as [t -> +oo] for all [z, c] (relu, gelu,
    gelu_tanh, silu), an identity [M x + B x = B' x] between biased
    [s]-blocks, evaluated at [t x] and divided by [t], tends to the same
    identity between the bias-free relu blocks with the same weight
    matrices.  So the relu necessity theorem applies to biased blocks of
    every such activation; with [s z - s (-z) = z] the sign flip (now also
    flipping the up-biases in [S] and moving [W_S b_S] into the
    down-bias) gives the converse. *)

From Coq Require Import Reals Lra Lia.
(* See RealActivations.v: Coquelicot's coercion path on Rbar. *)
Set Warnings "-ambiguous-paths".
From Coquelicot Require Import Coquelicot.
From SkipAbsorption Require Import Linalg SignFlip RealActivations Necessity.
Open Scope R_scope.

(** ** Biased blocks *)

(** [x -> W_down s(W_up x + b_up) + b_down], hidden width [m]:
    [(bblock x)_i = sum_{l<m} Wd_il * s (sum_{j<d} Wu_lj x_j + bu_l) + bd_i]. *)
Definition bblock (d m : nat) (s : R -> R) (Wd Wu : mat) (bu bd : vec) (x : vec) : vec :=
  fun i => sum m (fun l => Wd i l * s (mv d Wu x l + bu l)) + bd i.

(** With zero biases a biased block is the bias-free block. *)
Lemma bblock_no_bias : forall d m s Wd Wu x i,
  bblock d m s Wd Wu (fun _ => 0) (fun _ => 0) x i = block d m s Wd Wu x i.
Proof.
  intros. unfold bblock, block, readout. rewrite Rplus_0_r.
  apply sum_ext. intros. rewrite Rplus_0_r. reflexivity.
Qed.

(** Negate the entries of [b] selected by [S]. *)
Definition flip_vec (S : nat -> bool) (b : vec) : vec :=
  fun l => if S l then - b l else b l.

(** The down-bias after the flip: [b_down + W_down[:,S] b_up[S]]. *)
Definition shifted_bias (m : nat) (S : nat -> bool) (Wd : mat) (bu bd : vec) : vec :=
  fun i => bd i + sum m (fun l => if S l then Wd i l * bu l else 0).

(** ** Limits at [+oo] of finite sums and of the scaled block *)

Lemma sum_lim : forall m (f : nat -> R -> R) (L : nat -> R),
  (forall l, (l < m)%nat -> is_lim (f l) p_infty (L l)) ->
  is_lim (fun t => sum m (fun l => f l t)) p_infty (sum m L).
Proof.
  induction m as [|m IH]; intros f L H; simpl.
  - apply is_lim_const.
  - apply (is_lim_plus' (fun t => sum m (fun l => f l t)) (f m)).
    + apply IH. intros. apply H. lia.
    + apply H. lia.
Qed.

Lemma inv_lim : is_lim (fun t => / t) p_infty 0.
Proof.
  replace (Finite 0) with (Rbar_inv p_infty) by reflexivity.
  apply is_lim_inv; [apply is_lim_id|discriminate].
Qed.

(** [B (t x) / t -> W_down relu (W_up x)]: the biases disappear in the limit. *)
Lemma bblock_scaled_lim : forall d m (s : R -> R) (Wd Wu : mat) (bu bd x : vec) i,
  (forall z c, is_lim (fun t => s (t * z + c) / t) p_infty (relu z)) ->
  is_lim (fun t => bblock d m s Wd Wu bu bd (scale t x) i / t) p_infty
         (block d m relu Wd Wu x i).
Proof.
  intros d m s Wd Wu bu bd x i Hs.
  apply (is_lim_ext (fun t => sum m (fun l => Wd i l * (s (t * mv d Wu x l + bu l) / t))
                              + bd i * / t)).
  { intros t. unfold bblock, Rdiv. rewrite Rmult_plus_distr_r, <- sum_scal_r. f_equal.
    apply sum_ext. intros l _. rewrite mv_scale. ring. }
  replace (block d m relu Wd Wu x i)
    with (sum m (fun l => Wd i l * relu (mv d Wu x l)) + bd i * 0)
    by (rewrite Rmult_0_r, Rplus_0_r; reflexivity).
  apply is_lim_plus'.
  - apply sum_lim. intros l _.
    apply (is_lim_scal_l (fun t => s (t * mv d Wu x l + bu l) / t) (Wd i l) p_infty
             (relu (mv d Wu x l))).
    apply Hs.
  - apply (is_lim_scal_l (fun t => / t) (bd i) p_infty 0). apply inv_lim.
Qed.

(** ** 1. The reduction to bias-free relu blocks *)

Theorem limit_reduction :
  forall (d m m' : nat) (sigma : R -> R) (M Wd Wu Wd' Wu' : mat) (bu bd bu' bd' : vec)
         (sigma_limit_relu : forall z c,
            is_lim (fun t => sigma (t * z + c) / t) p_infty (relu z))
         (absorbed : forall x i, (i < d)%nat ->
            mv d M x i + bblock d m sigma Wd Wu bu bd x i =
            bblock d m' sigma Wd' Wu' bu' bd' x i),
  forall x i, (i < d)%nat ->
    mv d M x i + block d m relu Wd Wu x i = block d m' relu Wd' Wu' x i.
Proof.
  intros d m m' sigma M Wd Wu Wd' Wu' bu bd bu' bd' sigma_limit_relu absorbed x i Hi.
  set (f := fun t => bblock d m' sigma Wd' Wu' bu' bd' (scale t x) i / t).
  assert (H1 : is_lim f p_infty (block d m' relu Wd' Wu' x i))
    by (apply bblock_scaled_lim; exact sigma_limit_relu).
  assert (H2 : is_lim f p_infty (mv d M x i + block d m relu Wd Wu x i)).
  { apply (is_lim_ext_loc
             (fun t => mv d M x i + bblock d m sigma Wd Wu bu bd (scale t x) i / t)).
    - exists 0. intros t Ht. unfold f. rewrite <- absorbed by assumption.
      rewrite mv_scale. field. lra.
    - apply (is_lim_plus' (fun _ => mv d M x i)); [apply is_lim_const|].
      apply bblock_scaled_lim. exact sigma_limit_relu. }
  apply is_lim_unique in H1. apply is_lim_unique in H2.
  rewrite H1 in H2. injection H2. intros E. symmetry. exact E.
Qed.

(** ** 2. The sign flip with biases *)

Theorem biased_sign_flip :
  forall (d m : nat) (sigma : R -> R) (M Wd Wu : mat) (bu bd : vec) (S : nat -> bool)
         (sigma_odd_part : forall z, sigma z - sigma (- z) = z)
         (index_condition : forall i j, (i < d)%nat -> (j < d)%nat ->
            sum m (fun l => if S l then Wd i l * Wu l j else 0) = - M i j),
  forall x i, (i < d)%nat ->
    mv d M x i + bblock d m sigma Wd Wu bu bd x i =
    bblock d m sigma Wd (flip_rows S Wu) (flip_vec S bu) (shifted_bias m S Wd bu bd) x i.
Proof.
  intros d m sigma M Wd Wu bu bd S sigma_odd_part index_condition x i Hi.
  unfold bblock, shifted_bias.
  rewrite (sum_ext m (fun l => Wd i l * sigma (mv d (flip_rows S Wu) x l + flip_vec S bu l))
             (fun l => (Wd i l * sigma (mv d Wu x l + bu l)
                        - (if S l then Wd i l * mv d Wu x l else 0))
                       - (if S l then Wd i l * bu l else 0))).
  - rewrite !sum_minus. rewrite (selected_term d m S M Wd Wu x i index_condition Hi). ring.
  - intros l _. rewrite mv_flip_rows. unfold flip_vec. destruct (S l).
    + pose proof (sigma_odd_part (mv d Wu x l + bu l)) as Hodd.
      replace (- mv d Wu x l + - bu l) with (- (mv d Wu x l + bu l)) by ring.
      replace (sigma (- (mv d Wu x l + bu l)))
        with (sigma (mv d Wu x l + bu l) - (mv d Wu x l + bu l)) by lra.
      ring.
    + ring.
Qed.

(** ** 3. Biased blocks: absorbable iff the index condition holds *)

(** Necessity: composes [limit_reduction] with [Necessity.relu_necessity]. *)
Theorem relu_limit_necessity :
  forall (d m : nat) (sigma : R -> R) (M Wd Wu Wd' Wu' : mat) (bu bd bu' bd' : vec)
         (sigma_limit_relu : forall z c,
            is_lim (fun t => sigma (t * z + c) / t) p_infty (relu z))
         (nondegenerate : nondegenerate_block d m Wd Wu)
         (absorbed : forall x i, (i < d)%nat ->
            mv d M x i + bblock d m sigma Wd Wu bu bd x i =
            bblock d m sigma Wd' Wu' bu' bd' x i),
  exists S : nat -> bool, index_condition_holds d m S M Wd Wu.
Proof.
  intros d m sigma M Wd Wu Wd' Wu' bu bd bu' bd' sigma_limit_relu nondegenerate absorbed.
  apply (relu_necessity d m M Wd Wu Wd' Wu' nondegenerate).
  exact (limit_reduction d m m sigma M Wd Wu Wd' Wu' bu bd bu' bd' sigma_limit_relu absorbed).
Qed.

(** The limit theorem: a biased block of an activation with both
    properties, nondegenerate in the bias-free sense, absorbs the skip [M]
    at the same width (any biases on both sides) iff some [S] has
    [W_down[:,S] W_up[S,:] = -M]. *)
Theorem relu_limit_iff :
  forall (d m : nat) (sigma : R -> R) (M Wd Wu : mat) (bu bd : vec)
         (sigma_limit_relu : forall z c,
            is_lim (fun t => sigma (t * z + c) / t) p_infty (relu z))
         (sigma_odd_part : forall z, sigma z - sigma (- z) = z)
         (nondegenerate : nondegenerate_block d m Wd Wu),
  (exists (Wd' Wu' : mat) (bu' bd' : vec), forall x i, (i < d)%nat ->
     mv d M x i + bblock d m sigma Wd Wu bu bd x i = bblock d m sigma Wd' Wu' bu' bd' x i) <->
  (exists S : nat -> bool, index_condition_holds d m S M Wd Wu).
Proof.
  intros d m sigma M Wd Wu bu bd sigma_limit_relu sigma_odd_part nondegenerate. split.
  - intros (Wd' & Wu' & bu' & bd' & absorbed).
    exact (relu_limit_necessity d m sigma M Wd Wu Wd' Wu' bu bd bu' bd'
             sigma_limit_relu nondegenerate absorbed).
  - intros [S index_condition].
    exists Wd, (flip_rows S Wu), (flip_vec S bu), (shifted_bias m S Wd bu bd).
    exact (biased_sign_flip d m sigma M Wd Wu bu bd S sigma_odd_part index_condition).
Qed.

(** The concrete activations. *)

Corollary relu_biased_iff :
  forall (d m : nat) (M Wd Wu : mat) (bu bd : vec),
  nondegenerate_block d m Wd Wu ->
  (exists (Wd' Wu' : mat) (bu' bd' : vec), forall x i, (i < d)%nat ->
     mv d M x i + bblock d m relu Wd Wu bu bd x i = bblock d m relu Wd' Wu' bu' bd' x i) <->
  (exists S : nat -> bool, index_condition_holds d m S M Wd Wu).
Proof. intros. apply relu_limit_iff; [exact relu_limit_relu|exact relu_odd_part|assumption]. Qed.

Corollary gelu_limit_iff :
  forall (d m : nat) (M Wd Wu : mat) (bu bd : vec),
  nondegenerate_block d m Wd Wu ->
  (exists (Wd' Wu' : mat) (bu' bd' : vec), forall x i, (i < d)%nat ->
     mv d M x i + bblock d m gelu Wd Wu bu bd x i = bblock d m gelu Wd' Wu' bu' bd' x i) <->
  (exists S : nat -> bool, index_condition_holds d m S M Wd Wu).
Proof. intros. apply relu_limit_iff; [exact gelu_limit_relu|exact gelu_odd_part|assumption]. Qed.

Corollary gelu_tanh_limit_iff :
  forall (d m : nat) (M Wd Wu : mat) (bu bd : vec),
  nondegenerate_block d m Wd Wu ->
  (exists (Wd' Wu' : mat) (bu' bd' : vec), forall x i, (i < d)%nat ->
     mv d M x i + bblock d m gelu_tanh Wd Wu bu bd x i =
     bblock d m gelu_tanh Wd' Wu' bu' bd' x i) <->
  (exists S : nat -> bool, index_condition_holds d m S M Wd Wu).
Proof.
  intros. apply relu_limit_iff; [exact gelu_tanh_limit_relu|exact gelu_tanh_odd_part|assumption].
Qed.

Corollary silu_limit_iff :
  forall (d m : nat) (M Wd Wu : mat) (bu bd : vec),
  nondegenerate_block d m Wd Wu ->
  (exists (Wd' Wu' : mat) (bu' bd' : vec), forall x i, (i < d)%nat ->
     mv d M x i + bblock d m silu Wd Wu bu bd x i = bblock d m silu Wd' Wu' bu' bd' x i) <->
  (exists S : nat -> bool, index_condition_holds d m S M Wd Wu).
Proof. intros. apply relu_limit_iff; [exact silu_limit_relu|exact silu_odd_part|assumption]. Qed.

(** The bias-free gelu theorem (Thm. 10, both directions) as the special case
    of zero biases: necessity from the limit theorem, sufficiency from the
    plain sign flip. *)
Corollary gelu_iff :
  forall (d m : nat) (M Wd Wu : mat)
         (nondegenerate : nondegenerate_block d m Wd Wu),
  (exists Wd' Wu' : mat, forall x i, (i < d)%nat ->
     mv d M x i + block d m gelu Wd Wu x i = block d m gelu Wd' Wu' x i) <->
  (exists S : nat -> bool, index_condition_holds d m S M Wd Wu).
Proof.
  intros d m M Wd Wu nondegenerate. split.
  - intros [Wd' [Wu' absorbed]].
    apply (relu_limit_necessity d m gelu M Wd Wu Wd' Wu' (fun _ => 0) (fun _ => 0)
             (fun _ => 0) (fun _ => 0) gelu_limit_relu nondegenerate).
    intros x i Hi. rewrite !bblock_no_bias. apply absorbed. assumption.
  - intros [S index_condition]. exists Wd, (flip_rows S Wu).
    exact (sign_flip_absorbs d m gelu M Wd Wu S gelu_odd_part index_condition).
Qed.

(** ** 4. Instance *)

(** The up-bias [(1, -1)] of the instance. *)
Definition bias_pm (l : nat) : R := if Nat.eqb l 0 then 1 else -1.

Lemma bblock_ident : forall d s (bu bd x : vec) i, (i < d)%nat ->
  bblock d d s ident ident bu bd x i = s (x i + bu i) + bd i.
Proof.
  intros. unfold bblock. f_equal.
  rewrite (sum_ext d _ (fun l => kron i l * s (x l + bu l))).
  - apply (sum_kron_l d (fun l => s (x l + bu l))). assumption.
  - intros l Hl. unfold ident. rewrite mv_ident by assumption. reflexivity.
Qed.

(** In dimension 2, [x -> x + gelu(x + (1, -1))] (coordinate-wise:
    [W_up = W_down = I], [b_up = (1, -1)], [b_down = 0], [M = I]) equals no
    gelu block of width 2, whatever its weights and biases: the index
    condition would need [sum_{l in S} I_0l I_l0 = -1], but that sum is 0
    or 1. *)
Corollary gelu_biased_not_absorbable_instance :
  ~ (exists (Wd' Wu' : mat) (bu' bd' : vec), forall (x : vec) i, (i < 2)%nat ->
       x i + gelu (x i + bias_pm i) = bblock 2 2 gelu Wd' Wu' bu' bd' x i).
Proof.
  intros (Wd' & Wu' & bu' & bd' & H).
  destruct (relu_limit_necessity 2 2 gelu ident ident ident Wd' Wu' bias_pm (fun _ => 0)
              bu' bd' gelu_limit_relu (ident_nondegenerate 2)) as [S HS].
  - intros x i Hi. rewrite mv_ident, bblock_ident by assumption. rewrite Rplus_0_r.
    apply H. assumption.
  - specialize (HS 0%nat 0%nat ltac:(lia) ltac:(lia)).
    simpl in HS. unfold ident, kron in HS. simpl in HS.
    destruct (S 0%nat), (S 1%nat); lra.
Qed.

(** The instance of the main theorem [relu_limit_iff], with relu (which has
    both properties) as the activation, stated with the standard library only
    (relu z = [Rmax z 0], the biased block as its explicit sums): in dimension
    2, [x -> x + relu(x + (1, -1))] equals no biased relu block of width 2,
    whatever its weights and biases.  The index condition would need
    [sum_{l in S} I_0l I_l0 = -1]. *)
Corollary relu_biased_not_absorbable_instance :
  ~ (exists w00 w01 w10 w11 u00 u01 u10 u11 b0 b1 c0 c1 : R, forall x0 x1 : R,
       x0 + Rmax (x0 + 1) 0 =
         w00 * Rmax (u00 * x0 + u01 * x1 + b0) 0 + w01 * Rmax (u10 * x0 + u11 * x1 + b1) 0 + c0 /\
       x1 + Rmax (x1 + -1) 0 =
         w10 * Rmax (u00 * x0 + u01 * x1 + b0) 0 + w11 * Rmax (u10 * x0 + u11 * x1 + b1) 0 + c1).
Proof.
  intros (w00 & w01 & w10 & w11 & u00 & u01 & u10 & u11 & b0 & b1 & c0 & c1 & H).
  destruct (proj1 (relu_limit_iff 2 2 relu ident ident ident bias_pm (fun _ => 0)
                     relu_limit_relu relu_odd_part (ident_nondegenerate 2))) as [S HS].
  - exists (fun i l => match i, l with O, O => w00 | O, _ => w01 | _, O => w10 | _, _ => w11 end),
           (fun l j => match l, j with O, O => u00 | O, _ => u01 | _, O => u10 | _, _ => u11 end),
           (fun l => match l with O => b0 | _ => b1 end),
           (fun i => match i with O => c0 | _ => c1 end).
    intros x i Hi. rewrite mv_ident, bblock_ident by assumption. rewrite Rplus_0_r.
    destruct (H (x 0%nat) (x 1%nat)) as [H0 H1].
    unfold bblock, mv. simpl. rewrite !Rplus_0_l.
    destruct i as [|[|i]]; [| |lia]; unfold bias_pm, relu; simpl.
    + rewrite H0. reflexivity.
    + rewrite H1. reflexivity.
  - specialize (HS 0%nat 0%nat ltac:(lia) ltac:(lia)).
    simpl in HS. unfold ident, kron in HS. simpl in HS.
    destruct (S 0%nat), (S 1%nat); lra.
Qed.
