(** * Sufficiency of the sign-flip condition (Thms. 8 and 10), the glu gate,
    and absorption with [d] extra hidden units. *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg.
Open Scope R_scope.

(** Negate the rows of [W] whose index is selected by [S]. *)
Definition flip_rows (S : nat -> bool) (W : mat) : mat :=
  fun l j => if S l then - W l j else W l j.

(** Negate the columns of [W] whose index is selected by [S]. *)
Definition flip_cols (S : nat -> bool) (W : mat) : mat :=
  fun i l => if S l then - W i l else W i l.

(** [W_down[:,S] W_up[S,:]] as a [d x d] matrix. *)
Definition selected_product (m : nat) (S : nat -> bool) (Wd Wu : mat) : mat :=
  fun i j => sum m (fun l => if S l then Wd i l * Wu l j else 0).

Lemma mv_flip_rows : forall d S (W : mat) (x : vec) l,
  mv d (flip_rows S W) x l = if S l then - mv d W x l else mv d W x l.
Proof.
  intros. unfold mv, flip_rows. destruct (S l).
  - rewrite <- sum_opp. apply sum_ext. intros. ring.
  - reflexivity.
Qed.

Lemma selected_sum : forall d m (S : nat -> bool) (Wd Wu : mat) (c : nat -> R) (x : vec) (i : nat),
  sum m (fun l => if S l then Wd i l * c l * mv d Wu x l else 0) =
  mv d (fun i j => sum m (fun l => if S l then Wd i l * c l * Wu l j else 0)) x i.
Proof.
  intros. unfold mv.
  transitivity (sum m (fun l => sum d (fun j => if S l then Wd i l * c l * Wu l j * x j else 0))).
  - apply sum_ext. intros l _. destruct (S l).
    + rewrite <- sum_scal_l. apply sum_ext. intros. ring.
    + symmetry. apply sum_zero. reflexivity.
  - rewrite sum_swap. apply sum_ext. intros j _. rewrite <- sum_scal_r.
    apply sum_ext. intros l _. destruct (S l); ring.
Qed.

(** If [W_down[:,S] W_up[S,:] = -M], the linear term [- W_down[:,S] W_up[S,:] x]
    equals [M x]. *)
Lemma selected_term : forall d m (S : nat -> bool) (M Wd Wu : mat) (x : vec) (i : nat),
  (forall i j, (i < d)%nat -> (j < d)%nat ->
     sum m (fun l => if S l then Wd i l * Wu l j else 0) = - M i j) ->
  (i < d)%nat ->
  sum m (fun l => if S l then Wd i l * mv d Wu x l else 0) = - mv d M x i.
Proof.
  intros d m S M Wd Wu x i Hcond Hi.
  rewrite (sum_ext m _ (fun l => if S l then Wd i l * 1 * mv d Wu x l else 0))
    by (intros l _; destruct (S l); ring).
  rewrite (selected_sum d m S Wd Wu (fun _ => 1)).
  unfold mv. rewrite <- sum_opp. apply sum_ext. intros j Hj.
  replace (- (M i j * x j)) with (- M i j * x j) by ring.
  rewrite <- Hcond by assumption.
  f_equal. apply sum_ext. intros l _. destruct (S l); ring.
Qed.

(** Sign flip: with [sigma z - sigma (-z) = z] and
    [W_down[:,S] W_up[S,:] = -M], negating the rows of [W_up] in [S] gives a
    residual-free block of the same activation and width equal to
    [x -> M x + B x]. *)
Theorem sign_flip_absorbs :
  forall (d m : nat) (sigma : R -> R) (M Wd Wu : mat) (S : nat -> bool)
         (sigma_odd_part : forall z, sigma z - sigma (-z) = z)
         (index_condition : forall i j, (i < d)%nat -> (j < d)%nat ->
            sum m (fun l => if S l then Wd i l * Wu l j else 0) = - M i j),
  forall x i, (i < d)%nat ->
    mv d M x i + block d m sigma Wd Wu x i = block d m sigma Wd (flip_rows S Wu) x i.
Proof.
  intros d m sigma M Wd Wu S sigma_odd_part index_condition x i Hi.
  unfold block, readout.
  rewrite (sum_ext m (fun l => Wd i l * sigma (mv d (flip_rows S Wu) x l))
             (fun l => Wd i l * sigma (mv d Wu x l)
                       - (if S l then Wd i l * mv d Wu x l else 0))).
  - rewrite sum_minus. rewrite (selected_term d m S M Wd Wu x i index_condition Hi). ring.
  - intros l _. rewrite mv_flip_rows. destruct (S l).
    + pose proof (sigma_odd_part (mv d Wu x l)). replace (sigma (- mv d Wu x l))
        with (sigma (mv d Wu x l) - mv d Wu x l) by lra. ring.
    + ring.
Qed.

(** Gate flip: for a gate with [g z + g (-z) = 1] (sigmoid), negating the
    gate rows in [S] and the matching output columns turns the block into
    [x -> B x - W_down[:,S] W_up[S,:] x], so it absorbs [M x] under the index
    condition. *)
Theorem glu_flip :
  forall (d m : nat) (g : R -> R) (M Wd Wg Wu : mat) (S : nat -> bool)
         (gate_flip_symmetry : forall z, g z + g (-z) = 1)
         (index_condition : forall i j, (i < d)%nat -> (j < d)%nat ->
            sum m (fun l => if S l then Wd i l * Wu l j else 0) = - M i j),
  forall x i, (i < d)%nat ->
    mv d M x i + gblock d m g Wd Wg Wu x i =
    gblock d m g (flip_cols S Wd) (flip_rows S Wg) Wu x i.
Proof.
  intros d m g M Wd Wg Wu S gate_flip_symmetry index_condition x i Hi.
  unfold gblock, readout.
  rewrite (sum_ext m (fun l => flip_cols S Wd i l *
                               (g (mv d (flip_rows S Wg) x l) * mv d Wu x l))
             (fun l => Wd i l * (g (mv d Wg x l) * mv d Wu x l)
                       - (if S l then Wd i l * mv d Wu x l else 0))).
  - rewrite sum_minus. rewrite (selected_term d m S M Wd Wu x i index_condition Hi). ring.
  - intros l _. rewrite mv_flip_rows. unfold flip_cols. destruct (S l).
    + pose proof (gate_flip_symmetry (mv d Wg x l)).
      replace (g (- mv d Wg x l)) with (1 - g (mv d Wg x l)) by lra. ring.
    + ring.
Qed.

(** The gate flip as an identity, for every index set [S] (no condition on
    [S]): negating the gate rows in [S] and the matching output columns turns
    [B] into [x -> B x - W_down[:,S] W_up[S,:] x]. *)
Lemma glu_flip_identity :
  forall (d m : nat) (g : R -> R) (Wd Wg Wu : mat) (S : nat -> bool)
         (gate_flip_symmetry : forall z, g z + g (-z) = 1),
  forall x i,
    gblock d m g (flip_cols S Wd) (flip_rows S Wg) Wu x i =
    gblock d m g Wd Wg Wu x i - mv d (selected_product m S Wd Wu) x i.
Proof.
  intros d m g Wd Wg Wu S gate_flip_symmetry x i.
  unfold gblock, readout.
  rewrite (sum_ext m (fun l => flip_cols S Wd i l *
                               (g (mv d (flip_rows S Wg) x l) * mv d Wu x l))
             (fun l => Wd i l * (g (mv d Wg x l) * mv d Wu x l)
                       - (if S l then Wd i l * 1 * mv d Wu x l else 0))).
  - rewrite sum_minus, selected_sum. unfold selected_product. f_equal.
    apply mv_row_ext. intros j _. apply sum_ext. intros l _. destruct (S l); ring.
  - intros l _. rewrite mv_flip_rows. unfold flip_cols. destruct (S l).
    + pose proof (gate_flip_symmetry (mv d Wg x l)).
      replace (g (- mv d Wg x l)) with (1 - g (mv d Wg x l)) by lra. ring.
    + ring.
Qed.

(** The width [m + d] block: units [l < m] keep their row of [W_up] and get
    the output column [w_l - sum_{k : i_k = l} b_k]; the extra unit [m + k]
    has row [- u_{i_k}] and output column [b_k]. *)
Definition ext_down (m d : nat) (idx : nat -> nat) (b : nat -> vec) (Wd : mat) : mat :=
  fun i l => if (l <? m)%nat
             then Wd i l - sum d (fun k => kron (idx k) l * b k i)
             else b (l - m)%nat i.

Definition ext_up (m : nat) (idx : nat -> nat) (Wu : mat) : mat :=
  fun l j => if (l <? m)%nat then Wu l j else - Wu (idx (l - m)%nat) j.

(** [n] extra units [(-u_{idx k}, b_k)], with the output columns of the units
    [idx k] corrected by [- b_k]: the block loses [sum_k b_k (u_{idx k} . x)]. *)
Lemma extra_units_linear : forall d m n sigma (Wd Wu : mat) (idx : nat -> nat) (b : nat -> vec) x i,
  (forall k, (k < n)%nat -> (idx k < m)%nat) ->
  (forall z, sigma z - sigma (-z) = z) ->
  block d (m + n) sigma (ext_down m n idx b Wd) (ext_up m idx Wu) x i =
  block d m sigma Wd Wu x i - sum n (fun k => b k i * mv d Wu x (idx k)).
Proof.
  intros d m n sigma Wd Wu idx b x i Hidx Hodd.
  unfold block, readout. rewrite sum_split.
  rewrite (sum_ext m (fun l => ext_down m n idx b Wd i l * sigma (mv d (ext_up m idx Wu) x l))
             (fun l => Wd i l * sigma (mv d Wu x l)
                       - sum n (fun k => kron (idx k) l * (b k i * sigma (mv d Wu x l))))).
  2:{ intros l Hl. unfold ext_down.
      assert (Hb : (l <? m)%nat = true) by (apply Nat.ltb_lt; assumption).
      rewrite Hb.
      replace (mv d (ext_up m idx Wu) x l) with (mv d Wu x l).
      - rewrite Rmult_minus_distr_r, <- sum_scal_r. f_equal.
        apply sum_ext. intros. ring.
      - unfold mv, ext_up. rewrite Hb. reflexivity. }
  rewrite sum_minus, sum_swap.
  rewrite (sum_ext n (fun k => sum m (fun l => kron (idx k) l * (b k i * sigma (mv d Wu x l))))
             (fun k => b k i * sigma (mv d Wu x (idx k))))
    by (intros k Hk; apply (sum_kron_l m (fun l => b k i * sigma (mv d Wu x l)));
        apply Hidx; assumption).
  rewrite (sum_ext n (fun k => ext_down m n idx b Wd i (m + k)%nat *
                               sigma (mv d (ext_up m idx Wu) x (m + k)%nat))
             (fun k => b k i * sigma (mv d Wu x (idx k)) - b k i * mv d Wu x (idx k))).
  2:{ intros k Hk. unfold ext_down.
      assert (Hb : (m + k <? m)%nat = false) by (apply Nat.ltb_ge; lia).
      replace (m + k - m)%nat with k by lia. rewrite Hb.
      replace (mv d (ext_up m idx Wu) x (m + k)%nat) with (- mv d Wu x (idx k)).
      - pose proof (Hodd (mv d Wu x (idx k))).
        replace (sigma (- mv d Wu x (idx k))) with
          (sigma (mv d Wu x (idx k)) - mv d Wu x (idx k)) by lra. ring.
      - unfold mv, ext_up. rewrite Hb. replace (m + k - m)%nat with k by lia.
        rewrite <- sum_opp. apply sum_ext. intros. ring. }
  rewrite sum_minus. ring.
Qed.

(** The linear term of those units when [sum_k b_k u_{idx k}^T = -M]: it is [-M x]. *)
Lemma extra_units_linear_term : forall d (M Wu : mat) (idx : nat -> nat) (b : nat -> vec) x i,
  (i < d)%nat ->
  (forall i j, (i < d)%nat -> (j < d)%nat -> sum d (fun k => b k i * Wu (idx k) j) = - M i j) ->
  sum d (fun k => b k i * mv d Wu x (idx k)) = - mv d M x i.
Proof.
  intros d M Wu idx b x i Hi Hsol. unfold mv.
  transitivity (sum d (fun j => sum d (fun k => b k i * Wu (idx k) j) * x j)).
  - rewrite (sum_ext d _ (fun k => sum d (fun j => b k i * Wu (idx k) j * x j)))
      by (intros; rewrite <- sum_scal_l; apply sum_ext; intros; ring).
    rewrite sum_swap. apply sum_ext. intros. rewrite <- sum_scal_r. reflexivity.
  - rewrite (sum_ext d _ (fun j => - (M i j * x j))) by (intros; rewrite Hsol by assumption; ring).
    apply sum_opp.
Qed.

(** With [d] extra units, [x + B x] is always a residual-free block, as soon
    as some rows [u_{i_1} .. u_{i_d}] of [W_up] and vectors [b_1 .. b_d]
    satisfy [sum_k b_k u_{i_k}^T = -I] (possible iff [rank W_up = d]). *)
Theorem extra_units_absorb :
  forall (d m : nat) (sigma : R -> R) (Wd Wu : mat) (idx : nat -> nat) (b : nat -> vec)
         (idx_in_range : forall k, (k < d)%nat -> (idx k < m)%nat)
         (sigma_odd_part : forall z, sigma z - sigma (-z) = z)
         (rows_span : forall i j, (i < d)%nat -> (j < d)%nat ->
            sum d (fun k => b k i * Wu (idx k) j) = - ident i j),
  forall x i, (i < d)%nat ->
    x i + block d m sigma Wd Wu x i =
    block d (m + d) sigma (ext_down m d idx b Wd) (ext_up m idx Wu) x i.
Proof.
  intros d m sigma Wd Wu idx b idx_in_range sigma_odd_part rows_span x i Hi.
  rewrite (extra_units_linear d m d sigma Wd Wu idx b x i idx_in_range sigma_odd_part).
  rewrite (extra_units_linear_term d ident Wu idx b x i Hi rows_span), mv_ident by exact Hi. ring.
Qed.
