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

(** ** [d = 1], widths [(m_1, 1)] with [m_1 >= 2]: an open set of weights
    gives plain stacks

    Around [U_1 = (1, -1, 1, ..., 1)^T], [W_1 = (1, 3, 1, ..., 1)],
    [U_2 = W_2 = 1] (the box below: [p_0, a_0, W_2, U_2] in
    [[9/10, 11/10]], [p_1] in [[29/10, 31/10]], [a_1] in [[-11/10, -9/10]],
    the other [p_l, a_l] in [[1, 2]]), block 1 maps [R] into [[0, oo)]
    ([x > 0]: [(1 + sum_(a_l > 0) p_l a_l) x]; [x < 0]: [(1 + p_1 a_1) x] with
    [1 + p_1 a_1 < 0]), block 2 is multiplication by [1 + W_2 U_2] there, and
    [F x = relu (F(1) relu x + F(-1) relu (-x))], a plain stack of widths
    [(m_1, 1)] (units [2 .. m_1 - 1] of its first layer are zero).  A set
    that contains a box is not null. *)

(** *** Widths [(m_1, 1)] with any [m_1 >= 2]

    The same fold with [m_1 - 2] more units of block 1, each with
    [p_l, a_l] in [[1, 2]] (they add [p_l a_l x] for [x > 0] and nothing for
    [x < 0]).  [d1_kind] sorts the [2 m_1 + 2] coordinates (the [p_l], then
    the [a_l], then [W_2], [U_2]) into the five intervals of the box. *)
Definition d1_kind (m i : nat) : nat :=
  if Nat.eqb i 0 then 0 else if Nat.eqb i 1 then 1 else if Nat.ltb i m then 2
  else if Nat.eqb i m then 3 else if Nat.eqb i (S m) then 4
  else if Nat.ltb i (2 * m) then 2 else 3.
Definition d1_lo_m (m i : nat) : R :=
  match d1_kind m i with 0 => 9/10 | 1 => 29/10 | 2 => 1 | 3 => 9/10 | _ => -11/10 end.
Definition d1_hi_m (m i : nat) : R :=
  match d1_kind m i with 0 => 11/10 | 1 => 31/10 | 2 => 2 | 3 => 11/10 | _ => -9/10 end.

Ltac kind_tac :=
  unfold d1_kind;
  repeat (first [rewrite (proj2 (Nat.eqb_neq _ _)) by lia
                |rewrite (proj2 (Nat.ltb_ge _ _)) by lia
                |rewrite (proj2 (Nat.ltb_lt _ _)) by lia
                |rewrite Nat.eqb_refl]);
  reflexivity.

Lemma kind_0 : forall m, (2 <= m)%nat -> d1_kind m 0 = 0%nat.
Proof. intros. kind_tac. Qed.
Lemma kind_1 : forall m, (2 <= m)%nat -> d1_kind m 1 = 1%nat.
Proof. intros. kind_tac. Qed.
Lemma kind_p : forall m l, (2 <= l)%nat -> (l < m)%nat -> d1_kind m l = 2%nat.
Proof. intros. kind_tac. Qed.
Lemma kind_a0 : forall m, (2 <= m)%nat -> d1_kind m m = 3%nat.
Proof. intros. kind_tac. Qed.
Lemma kind_a1 : forall m, (2 <= m)%nat -> d1_kind m (m + 1) = 4%nat.
Proof. intros. replace (m + 1)%nat with (S m) by lia. kind_tac. Qed.
Lemma kind_a : forall m l, (2 <= l)%nat -> (l < m)%nat -> d1_kind m (m + l) = 2%nat.
Proof. intros. kind_tac. Qed.
Lemma kind_w2 : forall m, (2 <= m)%nat -> d1_kind m (2 * m) = 3%nat.
Proof. intros. kind_tac. Qed.
Lemma kind_u2 : forall m, (2 <= m)%nat -> d1_kind m (2 * m + 1) = 3%nat.
Proof. intros. kind_tac. Qed.

Section D1Fold.

Variables (m : nat) (w : nat -> R).
Hypotheses (Hm : (2 <= m)%nat)
  (Hw : forall i, (i < 2 * m + 2)%nat -> d1_lo_m m i <= w i <= d1_hi_m m i).

Ltac box_at i K :=
  let H := fresh "Hb" in
  pose proof (Hw i ltac:(lia)) as H; unfold d1_lo_m, d1_hi_m in H; rewrite K in H by lia.

Let pp (l : nat) : R := down_of 1 m (shifted 0 w) 0%nat l.
Let aa (l : nat) : R := up_of 1 m (shifted 0 w) l 0%nat.
Let S2 : R := sum m (fun l => if Nat.ltb l 2 then 0 else pp l * aa l).
Let cpos : R := 1 + pp 0%nat * aa 0%nat + S2.
Let cneg : R := - (1 + pp 1%nat * aa 1%nat).
Let k2 : R := 1 + w (2 * m)%nat * w (2 * m + 1)%nat.

Lemma d1_pp : forall l, (l < m)%nat -> pp l = w l.
Proof. intros l Hl. unfold pp. rewrite down_of_in by lia. reflexivity. Qed.

Lemma d1_aa : forall l, (l < m)%nat -> aa l = w (m + l)%nat.
Proof. intros l Hl. unfold aa. rewrite up_of_in by lia. unfold shifted. f_equal. lia. Qed.

Lemma d1_facts : 0 < k2 /\ 0 < cpos /\ 0 < cneg /\
  (forall l, (2 <= l)%nat -> (l < m)%nat -> 0 < pp l /\ 0 < aa l) /\
  0 < aa 0%nat /\ aa 1%nat < 0.
Proof.
  box_at (2 * m)%nat kind_w2. box_at (2 * m + 1)%nat kind_u2.
  box_at 0%nat kind_0. box_at 1%nat kind_1. box_at m kind_a0. box_at (m + 1)%nat kind_a1.
  assert (HS : 0 <= S2).
  { unfold S2. apply sum_nonneg. intros l Hl. destruct (Nat.ltb l 2) eqn:E; [lra|].
    apply Nat.ltb_ge in E. rewrite d1_pp, d1_aa by lia.
    box_at l kind_p. box_at (m + l)%nat kind_a. nra. }
  unfold k2, cpos, cneg. rewrite !d1_pp, !d1_aa by lia.
  replace (m + 0)%nat with m by lia.
  split; [nra|]. split; [nra|]. split; [nra|]. split; [|split; lra].
  intros l Hl1 Hl2. rewrite d1_pp, d1_aa by lia. box_at l kind_p. box_at (m + l)%nat kind_a. lra.
Qed.

Lemma d1_G : forall y, y + lay1 (first_layer_of 1 m w) y = cpos * relu y + cneg * relu (- y).
Proof.
  intros y. destruct d1_facts as (Hk2 & Hcp & Hcn & Hrest & Ha0 & Ha1).
  unfold lay1. change (Wdown (first_layer_of 1 m w) 0%nat) with pp.
  change (fun l => pp l * relu (Wup (first_layer_of 1 m w) l 0%nat * y))
    with (fun l => pp l * relu (aa l * y)).
  rewrite (sum_peel2 m _ Hm). destruct (Rle_dec 0 y) as [Hy|Hy].
  - rewrite (relu_nonneg_id (aa 0%nat * y)) by nra. rewrite (relu_nonpos (aa 1%nat * y)) by nra.
    rewrite (relu_nonneg_id y) by lra. rewrite (relu_nonpos (- y)) by lra.
    rewrite (sum_ext m _ (fun l => (if Nat.ltb l 2 then 0 else pp l * aa l) * y)).
    + rewrite sum_scal_r. unfold cpos, S2. ring.
    + intros l Hl. destruct (Nat.ltb l 2) eqn:E; [ring|]. apply Nat.ltb_ge in E.
      destruct (Hrest l E Hl). rewrite relu_nonneg_id by nra. ring.
  - rewrite (relu_nonpos (aa 0%nat * y)) by nra. rewrite (relu_nonneg_id (aa 1%nat * y)) by nra.
    rewrite (relu_nonpos y) by lra. rewrite (relu_nonneg_id (- y)) by lra.
    rewrite (sum_zero m).
    + unfold cneg. ring.
    + intros l Hl. destruct (Nat.ltb l 2) eqn:E; [reflexivity|]. apply Nat.ltb_ge in E.
      destruct (Hrest l E Hl). rewrite relu_nonpos by nra. ring.
Qed.

Lemma d1_fold_m : exists P1 P2 : layer, width P1 = m /\ width P2 = 1%nat /\
  forall x i, (i < 1)%nat ->
    res_comp_id (map (layer_block 1 relu) (stack_of 1 [m; 1%nat] 0 w)) x i =
    plain_comp (map (layer_block 1 relu) [P1; P2]) x i.
Proof.
  destruct d1_facts as (Hk2 & Hcp & Hcn & _).
  exists (mk_layer m (fun _ l => if Nat.eqb l 0 then k2 * cpos else if Nat.eqb l 1 then k2 * cneg else 0)
                     (fun l _ => if Nat.eqb l 0 then 1 else if Nat.eqb l 1 then -1 else 0)),
         (mk_layer 1 (fun _ _ => 1) (fun _ _ => 1)).
  split; [reflexivity|]. split; [reflexivity|].
  apply coord0. intros x.
  change (stack_of 1 [m; 1%nat] 0 w) with [first_layer_of 1 m w; second_layer_of 1 m 1 w].
  simpl. rewrite !layer_block_1. cbv beta. rewrite d1_G.
  assert (HW2 : Wdown (second_layer_of 1 m 1 w) 0%nat 0%nat = w (2 * m)%nat).
  { unfold second_layer_of. cbn [Wdown]. rewrite down_of_in by lia. unfold shifted. f_equal. lia. }
  assert (HU2 : Wup (second_layer_of 1 m 1 w) 0%nat 0%nat = w (2 * m + 1)%nat).
  { unfold second_layer_of. cbn [Wup]. rewrite up_of_in by lia. unfold shifted. f_equal. lia. }
  assert (HL2 : forall z, lay1 (second_layer_of 1 m 1 w) z = w (2 * m)%nat * relu (w (2 * m + 1)%nat * z)).
  { intros z. unfold lay1. change (width (second_layer_of 1 m 1 w)) with 1%nat. cbn [sum].
    rewrite HW2, HU2. ring. }
  assert (HP2 : forall z, 0 <= z -> lay1 (mk_layer 1 (fun _ _ => 1) (fun _ _ => 1)) z = z).
  { intros z Hz. unfold lay1. cbn [sum width Wdown Wup]. rewrite relu_nonneg_id by lra. ring. }
  assert (HP1 : forall y, lay1 (mk_layer m (fun _ l => if Nat.eqb l 0 then k2 * cpos else if Nat.eqb l 1 then k2 * cneg else 0)
                     (fun l _ => if Nat.eqb l 0 then 1 else if Nat.eqb l 1 then -1 else 0)) y =
                k2 * cpos * relu y + k2 * cneg * relu (- y)).
  { intros y. unfold lay1. cbn [width Wdown Wup]. rewrite (sum_peel2 m _ Hm). cbn [Nat.eqb].
    rewrite (sum_zero m); [|intros l Hl; destruct (Nat.ltb l 2) eqn:E; [reflexivity|];
      apply Nat.ltb_ge in E; destruct l as [|[|l]]; [lia|lia|simpl; ring]].
    replace (1 * y) with y by ring. replace (-1 * y) with (- y) by ring. ring. }
  rewrite HL2, HP1.
  assert (Hg : 0 <= cpos * relu (x 0%nat) + cneg * relu (- x 0%nat)).
  { pose proof (relu_ge0 (x 0%nat)). pose proof (relu_ge0 (- x 0%nat)). nra. }
  rewrite HP2 by (pose proof (relu_ge0 (x 0%nat)); pose proof (relu_ge0 (- x 0%nat)); nra).
  box_at (2 * m + 1)%nat kind_u2.
  rewrite (relu_nonneg_id (w (2 * m + 1)%nat * _)) by nra.
  unfold k2. ring.
Qed.

End D1Fold.

(** [depth-narrow], remark for [d = 1]: for widths [(m_1, 1)] with
    [m_1 >= 2], the residual stacks that equal a plain relu stack of widths
    [(m_1, 1)] do not form a null set (they contain a box of weights): the
    two-block consequence needs [d >= 2] there. *)
Theorem depth_narrow_d1_not_null : forall (m1 : nat) (m1_ge_2 : (2 <= m1)%nat),
  ~ null_stack 1 [m1; 1%nat] (fun layers =>
      exists P1 P2 : layer, width P1 = m1 /\ width P2 = 1%nat /\
        forall x i, (i < 1)%nat ->
          res_comp_id (map (layer_block 1 relu) layers) x i =
          plain_comp (map (layer_block 1 relu) [P1; P2]) x i).
Proof.
  intros m1 Hm. unfold null_stack. apply (null_set_contains_no_box _ (d1_lo_m m1) (d1_hi_m m1)).
  - intros i _. unfold d1_lo_m, d1_hi_m. destruct (d1_kind m1 i) as [|[|[|[|]]]]; lra.
  - intros w Hw. apply (d1_fold_m m1 w Hm). intros i Hi. apply Hw. simpl. lia.
Qed.

(** The remark's "open set": the box [d1_lo_m, d1_hi_m] of weights has sides
    of positive length, and every weight vector in it gives a residual stack
    of widths [(m_1, 1)] equal to a plain relu stack of widths [(m_1, 1)];
    its interior is a nonempty open set of such weights. *)
Theorem depth_narrow_d1_box : forall (m1 : nat) (m1_ge_2 : (2 <= m1)%nat),
  (forall i, (i < 2 * m1 + 2)%nat -> d1_lo_m m1 i < d1_hi_m m1 i) /\
  (forall w, (forall i, (i < 2 * m1 + 2)%nat -> d1_lo_m m1 i <= w i <= d1_hi_m m1 i) ->
    exists P1 P2 : layer, width P1 = m1 /\ width P2 = 1%nat /\
      forall x i, (i < 1)%nat ->
        res_comp_id (map (layer_block 1 relu) (stack_of 1 [m1; 1%nat] 0 w)) x i =
        plain_comp (map (layer_block 1 relu) [P1; P2]) x i).
Proof.
  intros m1 Hm. split.
  - intros i _. unfold d1_lo_m, d1_hi_m. destruct (d1_kind m1 i) as [|[|[|[|]]]]; lra.
  - intros w Hw. exact (d1_fold_m m1 w Hm Hw).
Qed.
