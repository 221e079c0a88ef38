(** * [depth-narrow], two blocks, for almost every weight

    The claim's consequence: for [L = 2], [d >= 2] and [min(m_1, m_2) <= d],
    the residual relu stacks [F = (I + B_2) o (I + B_1)] of widths
    [(m_1, m_2)] that equal some plain relu stack of the same widths form a
    Lebesgue-null set of weights (weights read as in
    [GenericWeightsNull.stack_of]).  If [m_1 <= d], part (a) applies; if
    [m_2 < d], part (b); if [m_2 = d], part (c)
    ([DepthNarrowC.depth_narrow_two_blocks] with [m'_1 = m_1]).  Off a null
    set all their hypotheses hold: every piece is invertible
    ([GenericWeightsNull.generic_stack_pieces_null]), both blocks are
    nondegenerate ([GenericWeightsNull.generic_stack_nondegenerate_null],
    [d >= 2]), and [kinks_transversal] holds: if [(I + W_1 D U_1)^T u2_j] is
    parallel to [u1_i], the minor of their coordinates [0] and [1] vanishes;
    that minor is a polynomial in the weights, equal to [1] at [W_1 = 0],
    [u1_i = e_1], [u2_j = e_0] ([NullSets.poly_zero_set_null]). *)

From Coq Require Import Reals Lra Lia List Classical.
From SkipAbsorption Require Import Linalg Depth DepthStack RealActivations DepthNarrow Necessity
  GenericWeights NullSets NonGenericNull GenericWeightsNull DepthNarrowC DepthD1.
Import ListNotations.
Open Scope R_scope.

(** The two layers of a stack of widths [(m_1, m_2)] read from [w]. *)
Definition first_layer_of (d m1 : nat) (w : nat -> R) : layer :=
  mk_layer m1 (down_of d m1 (shifted 0 w)) (up_of d m1 (shifted 0 w)).
Definition second_layer_of (d m1 m2 : nat) (w : nat -> R) : layer :=
  mk_layer m2 (down_of d m2 (shifted (d * m1 + m1 * d) w)) (up_of d m2 (shifted (d * m1 + m1 * d) w)).

Lemma stack_of_two : forall d m1 m2 w,
  stack_of d [m1; m2] 0 w = [first_layer_of d m1 w; second_layer_of d m1 m2 w].
Proof. reflexivity. Qed.

(** Entry [k] of [(I + W_1 D U_1)^T u2_j], as a polynomial expression. *)
Definition tcol_expr (d m1 m2 : nat) (D : nat -> bool) (j k : nat) : poly_expr :=
  psum d (fun i' => PMul (poly_shift (d * m1 + m1 * d) (up_var d m2 j i'))
                         (PAdd (PConst (ident i' k))
                               (psum m1 (fun l => if D l then PMul (down_var m1 i' l) (up_var d m1 l k)
                                                  else PConst 0)))).

Lemma tcol_eval : forall d m1 m2 D j k w, (j < m2)%nat -> (k < d)%nat ->
  poly_eval (tcol_expr d m1 m2 D j k) w =
  transpose_mv d (piece d m1 D (Wdown (first_layer_of d m1 w)) (Wup (first_layer_of d m1 w)))
    (Wup (second_layer_of d m1 m2 w) j) k.
Proof.
  intros d m1 m2 D j k w Hj Hk. unfold tcol_expr, transpose_mv, piece. simpl.
  rewrite poly_eval_psum. apply sum_ext. intros i' Hi'. simpl.
  f_equal; [rewrite up_of_in by assumption; reflexivity|].
  rewrite poly_eval_psum. f_equal. apply sum_ext. intros l Hl. destruct (D l); [|reflexivity].
  simpl. rewrite down_of_in, up_of_in by assumption. reflexivity.
Qed.

(** The minor of [(I + W_1 D U_1)^T u2_j] and [u1_i] in coordinates [0, 1]. *)
Definition trans_minor_expr (d m1 m2 : nat) (D : nat -> bool) (i j : nat) : poly_expr :=
  PSub (PMul (tcol_expr d m1 m2 D j 0) (up_var d m1 i 1))
       (PMul (tcol_expr d m1 m2 D j 1) (up_var d m1 i 0)).

(** The weights of the witness: [W_1 = 0], every row of [U_1] is [e_1],
    [W_2 = 0], every row of [U_2] is [e_0]. *)
Definition witness_layers (m1 m2 : nat) : list layer :=
  [mk_layer m1 (fun _ _ => 0) (fun _ k => if Nat.eqb k 1 then 1 else 0);
   mk_layer m2 (fun _ _ => 0) (fun _ k => if Nat.eqb k 0 then 1 else 0)].

Lemma trans_minor_witness : forall d m1 m2 D i j, (2 <= d)%nat -> (i < m1)%nat -> (j < m2)%nat ->
  poly_eval (trans_minor_expr d m1 m2 D i j) (stack_point d (witness_layers m1 m2)) = 1.
Proof.
  intros d m1 m2 D i j Hd Hi Hj.
  destruct (stack_point_read d (witness_layers m1 m2)) as (Hread & _).
  remember (stack_point d (witness_layers m1 m2)) as y eqn:Hy. clear Hy.
  simpl in Hread. inversion Hread as [|L1 L1' l1 l1' H1 Hrest]. subst.
  inversion Hrest as [|L2 L2' l2 l2' H2 _]. subst.
  destruct H1 as (_ & Hd1 & Hu1). destruct H2 as (_ & _ & Hu2). simpl in Hd1, Hu1, Hu2.
  unfold trans_minor_expr. cbn [poly_eval]. rewrite !tcol_eval by lia.
  rewrite !up_var_eval by lia.
  assert (Hcol : forall k, (k < d)%nat ->
            transpose_mv d (piece d m1 D (Wdown (first_layer_of d m1 y)) (Wup (first_layer_of d m1 y)))
              (Wup (second_layer_of d m1 m2 y) j) k = if Nat.eqb k 0 then 1 else 0).
  { intros k Hk. unfold transpose_mv, piece.
    rewrite (sum_ext d _ (fun i' => kron k i' * (if Nat.eqb k 0 then 1 else 0))).
    - rewrite (sum_kron_l d (fun _ => if Nat.eqb k 0 then 1 else 0) k Hk). reflexivity.
    - intros i' Hi'. unfold second_layer_of, first_layer_of. simpl.
      rewrite (sum_zero m1); [|intros l Hl; destruct (D l); [rewrite (Hd1 i' l Hi' Hl); ring|reflexivity]].
      rewrite (Hu2 j i' Hj Hi'). unfold ident, kron.
      destruct (Nat.eq_dec k i') as [<-|E].
      + destruct (Nat.eq_dec k k) as [_|E']; [ring|contradiction].
      + destruct (Nat.eq_dec i' k) as [E'|_]; [exfalso; lia|]. ring. }
  rewrite !Hcol by lia. unfold first_layer_of. simpl.
  assert (A1 : up_of d m1 y i 1%nat = 1) by exact (Hu1 i 1%nat Hi ltac:(lia)).
  assert (A0 : up_of d m1 y i 0%nat = 0) by exact (Hu1 i 0%nat Hi ltac:(lia)).
  rewrite A1, A0. ring.
Qed.

(** The stacks of widths [(m_1, m_2)] that fail [kinks_transversal] form a
    null set ([d >= 2]). *)
Lemma transversal_null : forall d m1 m2, (2 <= d)%nat ->
  null_set (stack_dim d [m1; m2])
    (fun w => ~ kinks_transversal_cond d (first_layer_of d m1 w) (second_layer_of d m1 m2 w)).
Proof.
  intros d m1 m2 Hd.
  set (idx := flat_map (fun i => flat_map (fun j => map (fun D => (i, j, D)) (all_subsets m1))
                                          (seq 0 m2)) (seq 0 m1)).
  apply null_set_subset with (A := fun w => exists t, In t idx /\
     poly_eval (trans_minor_expr d m1 m2 (snd t) (fst (fst t)) (snd (fst t))) w = 0).
  - intros w Hw. apply NNPP. intros Hnot. apply Hw. intros i j D Hi Hj HDi (c & Hc). apply Hnot.
    simpl in Hi, Hj.
    destruct (all_subsets_complete m1 D) as (D' & HD' & Hag).
    exists (i, j, D'). split.
    + unfold idx. apply in_flat_map. exists i. split; [apply in_seq; lia|].
      apply in_flat_map. exists j. split; [apply in_seq; lia|].
      apply (in_map (fun D => (i, j, D))). exact HD'.
    + simpl.
      assert (Ek : forall k, (k < d)%nat ->
                poly_eval (tcol_expr d m1 m2 D' j k) w = c * up_of d m1 w i k).
      { intros k Hk. rewrite tcol_eval by assumption.
        transitivity (c * Wup (first_layer_of d m1 w) i k); [|reflexivity].
        rewrite <- (Hc k Hk). unfold transpose_mv. apply sum_ext. intros i' _. f_equal.
        apply piece_ext. exact Hag. }
      unfold trans_minor_expr. cbn [poly_eval].
      rewrite (Ek 0%nat ltac:(lia)), (Ek 1%nat ltac:(lia)). rewrite !up_of_in by lia. ring.
  - apply null_set_list_union. intros ((i, j), D) Ht. apply poly_zero_set_null.
    exists (stack_point d (witness_layers m1 m2)). split.
    + intros k Hk. exact (proj2 (stack_point_read d (witness_layers m1 m2)) k Hk).
    + unfold idx in Ht. apply in_flat_map in Ht. destruct Ht as (i0 & Hi0 & Ht).
      apply in_flat_map in Ht. destruct Ht as (j0 & Hj0 & Ht).
      apply in_map_iff in Ht. destruct Ht as (D0 & E & _). injection E as <- <- <-.
      apply in_seq in Hi0. apply in_seq in Hj0. cbn [fst snd].
      rewrite trans_minor_witness by lia. lra.
Qed.

(** [depth-narrow], the two-block consequence, measure form: for [d >= 2]
    and [min(m_1, m_2) <= d], the bias-free relu residual stacks
    [F = (I + B_2) o (I + B_1)] of widths [(m_1, m_2)] that equal some plain
    relu stack of the same widths [(m_1, m_2)] form a null set of weights. *)
Theorem depth_narrow_two_blocks_null :
  forall (d m1 m2 : nat)
         (d_ge_2 : (2 <= d)%nat)
         (narrow_width : (m1 <= d)%nat \/ (m2 <= d)%nat),
  null_stack d [m1; m2] (fun layers =>
    exists P1 P2 : layer, width P1 = m1 /\ width P2 = m2 /\
      forall x i, (i < d)%nat ->
        res_comp_id (map (layer_block d relu) layers) x i =
        plain_comp (map (layer_block d relu) [P1; P2]) x i).
Proof.
  intros d m1 m2 Hd Hnarrow. unfold null_stack.
  apply null_set_subset with (A := fun w =>
    ~ Forall (layer_pieces_invertible d) (stack_of d [m1; m2] 0 w) \/
    ~ Forall (fun L => nondegenerate_weights d (width L) (Wdown L) (Wup L)) (stack_of d [m1; m2] 0 w) \/
    ~ kinks_transversal_cond d (first_layer_of d m1 w) (second_layer_of d m1 m2 w)).
  - intros w (P1 & P2 & Hw1 & Hw2 & Heq).
    destruct (classic (Forall (layer_pieces_invertible d) (stack_of d [m1; m2] 0 w))) as [Hp|Hp];
      [|left; exact Hp].
    right.
    destruct (classic (Forall (fun L => nondegenerate_weights d (width L) (Wdown L) (Wup L))
                              (stack_of d [m1; m2] 0 w))) as [Hn|Hn]; [|left; exact Hn].
    right. intros Htr. rewrite stack_of_two in Hp, Hn, Heq.
    destruct Hnarrow as [H1|H2].
    + assert (HP1 : (width P1 <= d)%nat) by lia.
      exact (depth_narrow_first_width d _ [P1; P2] ltac:(lia) Hp
               (ex_intro _ P1 (ex_intro _ [P2] (conj eq_refl HP1))) Heq).
    + destruct (Nat.eq_dec m2 d) as [E|Hne].
      * assert (Hd2 : (0 < d)%nat) by lia.
        assert (HW : (width P1 <= width (first_layer_of d m1 w))%nat /\ width P2 = d)
          by (unfold first_layer_of; simpl; lia).
        exact (depth_narrow_two_blocks d (first_layer_of d m1 w) (second_layer_of d m1 m2 w) P1 P2
                 Hd2 Hp (conj (Forall_inv Hn) (Forall_inv (Forall_inv_tail Hn))) Htr
                 HW Heq).
      * apply (depth_narrow_some_width d _ [P1; P2] Hp); [|exact Heq].
        apply Exists_cons_tl, Exists_cons_hd. lia.
  - apply null_set_union; [exact (generic_stack_pieces_null d [m1; m2])|].
    apply null_set_union; [exact (generic_stack_nondegenerate_null d [m1; m2] Hd)|].
    exact (transversal_null d m1 m2 Hd).
Qed.

(** In [d = 1] the consequence holds for [m_1 = 1] (part (a)): *)
Corollary depth_narrow_first_width_null :
  forall (d m1 m2 : nat)
         (d_pos : (0 < d)%nat)
         (narrow_width : (m1 <= d)%nat),
  null_stack d [m1; m2] (fun layers =>
    exists P1 P2 : layer, width P1 = m1 /\ width P2 = m2 /\
      forall x i, (i < d)%nat ->
        res_comp_id (map (layer_block d relu) layers) x i =
        plain_comp (map (layer_block d relu) [P1; P2]) x i).
Proof.
  intros d m1 m2 Hd Hm. unfold null_stack.
  apply null_set_subset with
    (A := fun w => ~ Forall (layer_pieces_invertible d) (stack_of d [m1; m2] 0 w)).
  - intros w (P1 & P2 & Hw1 & Hw2 & Heq) Hp.
    assert (HP1 : (width P1 <= d)%nat) by lia.
    exact (depth_narrow_first_width d _ [P1; P2] Hd Hp
             (ex_intro _ P1 (ex_intro _ [P2] (conj eq_refl HP1))) Heq).
  - exact (generic_stack_pieces_null d [m1; m2]).
Qed.

(** ** [d = 1], widths [(2, 1)]: an open set of weights gives plain stacks

    Around [U_1 = (1, -1)^T], [W_1 = (1, 3)], [U_2 = W_2 = 1] (the box
    below: [p, a, w, u] in [[9/10, 11/10]], [q] in [[29/10, 31/10]], [-b] in
    [[-11/10, -9/10]]), block 1 maps [R] into [[0, oo)], block 2 is
    multiplication by [1 + w u] there, and
    [F x = relu (F(1) relu x + F(-1) relu (-x))], a plain stack of widths
    [(2, 1)].  A set that contains a box is not null. *)
Definition d1_lo (i : nat) : R :=
  match i with 0 => 9/10 | 1 => 29/10 | 2 => 9/10 | 3 => -11/10 | 4 => 9/10 | _ => 9/10 end.
Definition d1_hi (i : nat) : R :=
  match i with 0 => 11/10 | 1 => 31/10 | 2 => 11/10 | 3 => -9/10 | 4 => 11/10 | _ => 11/10 end.

(** The plain stack of widths [(2, 1)] equal to [F] at the weights [w]. *)
Definition d1_plain (w : nat -> R) : list layer :=
  [mk_layer 2 (fun _ l => if Nat.eqb l 0 then (1 + w 4%nat * w 5%nat) * (1 + w 0%nat * w 2%nat)
                          else (1 + w 4%nat * w 5%nat) * (- (w 1%nat * w 3%nat) - 1))
              (fun l _ => if Nat.eqb l 0 then 1 else -1);
   mk_layer 1 (fun _ _ => 1) (fun _ _ => 1)].

Lemma d1_fold_plain : forall w : nat -> R,
  (forall i, (i < 6)%nat -> d1_lo i <= w i <= d1_hi i) ->
  forall x i, (i < 1)%nat ->
    res_comp_id (map (layer_block 1 relu) (stack_of 1 [2%nat; 1%nat] 0 w)) x i =
    plain_comp (map (layer_block 1 relu) (d1_plain w)) x i.
Proof.
  intros w Hw x i Hi. assert (i = 0%nat) as -> by lia.
  pose proof (Hw 0%nat ltac:(lia)) as H0. pose proof (Hw 1%nat ltac:(lia)) as H1.
  pose proof (Hw 2%nat ltac:(lia)) as H2. pose proof (Hw 3%nat ltac:(lia)) as H3.
  pose proof (Hw 4%nat ltac:(lia)) as H4. pose proof (Hw 5%nat ltac:(lia)) as H5.
  unfold d1_lo, d1_hi in H0, H1, H2, H3, H4, H5.
  simpl. unfold layer_block, block, readout, mv, down_of, up_of, shifted. simpl.
  set (X := x 0%nat).
  assert (Hpa : 0 < w 0%nat * w 2%nat) by nra.
  assert (Hqb : w 1%nat * w 3%nat < -2) by nra.
  assert (Hwu : 0 < w 4%nat * w 5%nat) by nra.
  destruct (Rle_dec 0 X) as [HX|HX].
  - rewrite (relu_nonneg_id (0 + w 2%nat * X)) by nra.
    rewrite (relu_nonpos (0 + w 3%nat * X)) by nra.
    rewrite (relu_nonneg_id (0 + 1 * X)) by lra.
    rewrite (relu_nonpos (0 + -1 * X)) by lra.
    assert (HG : 0 <= X + (0 + w 0%nat * (0 + w 2%nat * X) + w 1%nat * 0)) by nra.
    rewrite (relu_nonneg_id (0 + w 5%nat * (X + (0 + w 0%nat * (0 + w 2%nat * X) + w 1%nat * 0))))
      by nra.
    rewrite relu_nonneg_id by nra. ring.
  - rewrite (relu_nonpos (0 + w 2%nat * X)) by nra.
    rewrite (relu_nonneg_id (0 + w 3%nat * X)) by nra.
    rewrite (relu_nonpos (0 + 1 * X)) by lra.
    rewrite (relu_nonneg_id (0 + -1 * X)) by lra.
    assert (HG : 0 <= X + (0 + w 0%nat * 0 + w 1%nat * (0 + w 3%nat * X))) by nra.
    rewrite (relu_nonneg_id (0 + w 5%nat * (X + (0 + w 0%nat * 0 + w 1%nat * (0 + w 3%nat * X)))))
      by nra.
    rewrite relu_nonneg_id by nra. ring.
Qed.

(** [depth-narrow], remark for [d = 1]: for widths [(2, 1)] the residual
    stacks that equal a plain relu stack of widths [(2, 1)] do not form a
    null set (they contain a box of weights), so the two-block consequence
    needs [d >= 2] (or [m_1 = 1]). *)
Theorem depth_narrow_d1_not_null :
  ~ null_stack 1 [2%nat; 1%nat] (fun layers =>
      exists P1 P2 : layer, width P1 = 2%nat /\ width P2 = 1%nat /\
        forall x i, (i < 1)%nat ->
          res_comp_id (map (layer_block 1 relu) layers) x i =
          plain_comp (map (layer_block 1 relu) [P1; P2]) x i).
Proof.
  unfold null_stack. apply (null_set_contains_no_box _ d1_lo d1_hi).
  - intros i Hi. simpl in Hi.
    destruct i as [|[|[|[|[|[|i]]]]]]; unfold d1_lo, d1_hi; lra || lia.
  - intros w Hw. exists (nth 0 (d1_plain w) (mk_layer 0 (fun _ _ => 0) (fun _ _ => 0))),
                        (nth 1 (d1_plain w) (mk_layer 0 (fun _ _ => 0) (fun _ _ => 0))).
    split; [reflexivity|]. split; [reflexivity|].
    apply d1_fold_plain. intros i Hi. apply Hw. simpl. exact Hi.
Qed.
