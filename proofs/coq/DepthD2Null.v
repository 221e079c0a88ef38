(** * [depth-d2], consequence (ii), in measure form: for [d = 2] and two
    residual layers the polynomial side conditions fail only on a null set.

    The weights of a stack of two layers of widths [m1], [m2] are the points
    of R^(stack_dim 2 [m1; m2]) read by [GenericWeightsNull.stack_of]: layer 1
    ([W_1] row by row, then [U_1] row by row) from coordinate 0 on, layer 2
    from coordinate [2 m1 + m1 2] on.  The conditions covered here:
    - nondegeneracy of each block ([GenericWeights.nondegenerate_weights]:
      nonzero rows of [U_l], pairwise non-collinear rows, nonzero columns of
      [W_l]);
    - (H3): [u2_j^T (I + W_1 D U_1) J u1_i <> 0] for every unit [i] of layer 1,
      every unit [j] of layer 2 and every 0/1 diagonal [D] with [D_ii = 0]
      ([J] the rotation by pi/2, [rotJ]; [u1_i], [u2_j] the rows of [U_1],
      [U_2]; [I + W_1 D U_1] is [DepthNarrow.piece]);
    - the index condition: every [I + W_{l,S} U_{l,S}] is invertible
      ([DepthNarrow.layer_pieces_invertible], a trivial kernel, which for a
      square matrix is [det <> 0]), for both layers.
    Each (H3) expression is a polynomial in the coordinates
    ([h3_expr], read back by [h3_expr_eval]); at the point [W_1 = 0],
    [u1_i = (1, 0)], [u2_j = (0, 1)] it is [1] ([h3_witness_value]), so
    [NullSets.poly_zero_set_null] makes its zero set null.  Nondegeneracy and
    the index condition come from GenericWeightsNull.v
    ([nondegenerate_null_at], [pieces_null_at]) at the offsets of the two
    layers.
    - (H4): [det[adj(I + W_1 D U_1) J u2_j, adj(I + W_1 D^c U_1) J u2_j'] <> 0]
      for all units [j], [j'] of layer 2 and every [D] ([h4_value]; the signs
      of [s = +-J u2_j], [s' = +-J u2_j'] only change the sign, [h4_signs]).
      For [j <> j'] the witness is [W_1 = 0], [u2_l = (1, l)] (value
      [j' - j]); for [j = j'] (the antipodal pair [s' = -s]) it is [W_1] with
      the single entry [(W_1)_00 = 1], [u1_l = (0, 1)], [u2_j = (1, 0)]
      (value [-1] or [1]), which needs a unit in layer 1: with [m1 = 0] the
      (H4) polynomial of [j = j'] is identically zero
      ([depth_d2_h4_needs_layer1_unit]).
    [depth_d2_side_conditions_null] covers nondegeneracy, (H3) and the index
    condition for all widths; [depth_d2_side_conditions_h4_null] adds (H4)
    for [m1 >= 1].  Not covered: that the geometric conditions of depth-d2
    follow from these polynomial ones (the sector argument of
    proofs/informal/depth-d2.md). *)

From Coq Require Import Reals Lra Lia List Classical.
From SkipAbsorption Require Import Linalg DepthStack DepthNarrow NonGeneric GenericWeights NullSets
  NonGenericNull GenericWeightsNull.
Import ListNotations.
Open Scope R_scope.

(** The rotation by pi/2 of R^2: [J (x, y) = (-y, x)]. *)
Definition rotJ : mat := fun a b =>
  match a, b with
  | O, S O => -1
  | S O, O => 1
  | _, _ => 0
  end.

(** [u2^T A J u1] for a 2 x 2 matrix [A]. *)
Definition h3_form (A : mat) (u1 u2 : vec) : R := dot 2 u2 (mv 2 A (mv 2 rotJ u1)).

(** The (H3) quantity [u2_j^T (I + W_1 D U_1) J u1_i]. *)
Definition h3_value (m1 : nat) (D : nat -> bool) (i j : nat) (W1 U1 U2 : mat) : R :=
  h3_form (piece 2 m1 D W1 U1) (U1 i) (U2 j).

(** (H3) for two layers: the quantity is nonzero for every [i], [j] and
    every [D] that does not contain [i]. *)
Definition h3_holds (L1 L2 : layer) : Prop :=
  forall (i j : nat) (D : nat -> bool), (i < width L1)%nat -> (j < width L2)%nat -> D i = false ->
    h3_value (width L1) D i j (Wdown L1) (Wup L1) (Wup L2) <> 0.

(** The side conditions of depth-d2 covered here, for two layers of [R^2]. *)
Definition d2_side_conditions (L1 L2 : layer) : Prop :=
  nondegenerate_weights 2 (width L1) (Wdown L1) (Wup L1) /\
  nondegenerate_weights 2 (width L2) (Wdown L2) (Wup L2) /\
  h3_holds L1 L2 /\
  layer_pieces_invertible 2 L1 /\
  layer_pieces_invertible 2 L2.

(** [h3_form] reads only the entries in range. *)
Lemma h3_form_ext : forall (A A' : mat) (u1 u1' u2 u2' : vec),
  (forall a b, (a < 2)%nat -> (b < 2)%nat -> A a b = A' a b) ->
  (forall c, (c < 2)%nat -> u1 c = u1' c) ->
  (forall c, (c < 2)%nat -> u2 c = u2' c) ->
  h3_form A u1 u2 = h3_form A' u1' u2'.
Proof.
  intros A A' u1 u1' u2 u2' HA H1 H2. unfold h3_form, dot, mv.
  apply sum_ext. intros a Ha. rewrite (H2 a Ha). f_equal.
  apply sum_ext. intros b Hb. rewrite (HA a b Ha Hb). f_equal.
  apply sum_ext. intros c Hc. rewrite (H1 c Hc). reflexivity.
Qed.

(** [placed o y] reads [y] from coordinate [o] on. *)
Lemma eval_placed_at : forall o (y : nat -> R) k, placed o y (o + k) = y k.
Proof.
  intros o y k. unfold placed.
  replace (o <=? o + k)%nat with true by (symmetry; apply Nat.leb_le; lia). f_equal. lia.
Qed.

(** The offset of layer 2 in the point of a stack of widths [m1], [m2]. *)
Definition off2 (m1 : nat) : nat := (0 + (2 * m1 + m1 * 2))%nat.

(** [J u1_i] as polynomial expressions (coordinate [b]). *)
Definition rot_expr (m1 i b : nat) : poly_expr :=
  match b with
  | O => POpp (up_var 2 m1 i 1)
  | _ => up_var 2 m1 i 0
  end.

(** The (H3) quantity as a polynomial expression in the coordinates. *)
Definition h3_expr (m1 m2 : nat) (D : nat -> bool) (i j : nat) : poly_expr :=
  psum 2 (fun a => PMul (poly_shift (off2 m1) (up_var 2 m2 j a))
    (psum 2 (fun b => PMul (piece_expr 2 m1 ident D a b) (rot_expr m1 i b)))).

Lemma h3_expr_eval : forall m1 m2 D i j w, (i < m1)%nat -> (j < m2)%nat ->
  poly_eval (h3_expr m1 m2 D i j) w =
  h3_value m1 D i j (down_of 2 m1 w) (up_of 2 m1 w) (up_of 2 m2 (shifted (off2 m1) w)).
Proof.
  intros m1 m2 D i j w Hi Hj. unfold h3_expr, h3_value, h3_form, dot.
  rewrite poly_eval_psum. apply sum_ext. intros a Ha. cbn [poly_eval].
  rewrite poly_eval_shift, up_var_eval by lia. f_equal.
  rewrite poly_eval_psum. unfold mv. apply sum_ext. intros b Hb. cbn [poly_eval].
  rewrite piece_expr_eval by lia. f_equal.
  destruct b as [|[|b]]; [| |lia]; unfold rot_expr; cbn [poly_eval];
    rewrite up_var_eval by lia; unfold rotJ; simpl; ring.
Qed.

(** At [W_1 = 0], [u1_i = (1, 0)], [u2_j = (0, 1)] the (H3) quantity is 1. *)
Lemma h3_witness_value : forall m1 D,
  h3_form (piece 2 m1 D (fun _ _ => 0) (fun _ c => kron c 0)) (fun c => kron c 0) (fun c => kron c 1) = 1.
Proof.
  intros m1 D.
  rewrite (h3_form_ext _ ident _ (fun c => kron c 0) _ (fun c => kron c 1)).
  - unfold h3_form, dot, mv, ident, kron, rotJ. simpl. ring.
  - intros a b _ _. unfold piece. rewrite sum_zero; [ring|]. intros l _. destruct (D l); ring.
  - reflexivity.
  - reflexivity.
Qed.

(** A block's matrices read from two points that agree on its coordinates
    agree in range. *)
Lemma read_agree : forall m (w w' : nat -> R),
  (forall k, (k < 2 * m + m * 2)%nat -> w k = w' k) ->
  (forall i l, (i < 2)%nat -> (l < m)%nat -> down_of 2 m w i l = down_of 2 m w' i l) /\
  (forall l c, (l < m)%nat -> (c < 2)%nat -> up_of 2 m w l c = up_of 2 m w' l c).
Proof.
  intros m w w' H. split.
  - intros i l Hi Hl. rewrite !down_of_in by assumption. apply H. nia.
  - intros l c Hl Hc. rewrite !up_of_in by assumption. apply H. nia.
Qed.

(** A point of R^N that reads as given matrices [W_1], [U_1] (layer 1) and
    [U_2] (layer 2; [W_2 = 0]) in range and vanishes from [N] on. *)
Lemma two_layer_point : forall m1 m2 N (W1 U1 U2 : mat), (off2 m1 + (2 * m2 + m2 * 2) <= N)%nat ->
  exists y : nat -> R, (forall k, le N k -> y k = 0) /\
    (forall i l, (i < 2)%nat -> (l < m1)%nat -> down_of 2 m1 y i l = W1 i l) /\
    (forall l c, (l < m1)%nat -> (c < 2)%nat -> up_of 2 m1 y l c = U1 l c) /\
    (forall l c, (l < m2)%nat -> (c < 2)%nat -> up_of 2 m2 (shifted (off2 m1) y) l c = U2 l c).
Proof.
  intros m1 m2 N W1 U1 U2 HN. set (Wz := fun _ _ : nat => 0).
  set (y := fun k => weights_of 2 m1 W1 U1 k + placed (off2 m1) (weights_of 2 m2 Wz U2) k).
  destruct (weights_of_read 2 m1 W1 U1) as (R1d & R1u & R1o).
  destruct (weights_of_read 2 m2 Wz U2) as (R2d & R2u & R2o).
  assert (Ylow : forall k, (k < 2 * m1 + m1 * 2)%nat -> y k = weights_of 2 m1 W1 U1 k).
  { intros k Hk. unfold y, placed.
    replace (off2 m1 <=? k)%nat with false by (symmetry; apply Nat.leb_gt; unfold off2; lia). ring. }
  assert (Yhigh : forall k, (k < 2 * m2 + m2 * 2)%nat ->
            shifted (off2 m1) y k = weights_of 2 m2 Wz U2 k).
  { intros k Hk. unfold shifted, y. rewrite R1o by (unfold off2; lia).
    rewrite eval_placed_at. ring. }
  destruct (read_agree m1 _ _ Ylow) as (A1d & A1u).
  destruct (read_agree m2 _ _ Yhigh) as (_ & A2u).
  exists y. split; [|split; [|split]].
  - intros k Hk. unfold y. rewrite R1o by (unfold off2 in HN; lia).
    rewrite (placed_out (off2 m1) 2 m2 Wz U2 N HN k Hk). ring.
  - intros i l Hi Hl. rewrite A1d, R1d by assumption. reflexivity.
  - intros l c Hl Hc. rewrite A1u, R1u by assumption. reflexivity.
  - intros l c Hl Hc. rewrite A2u, R2u by assumption. reflexivity.
Qed.

(** (H3) fails only on a null set of R^N, for the layers read at offsets 0
    and [off2 m1], when they fit below [N]. *)
Lemma h3_null : forall m1 m2 N, (off2 m1 + (2 * m2 + m2 * 2) <= N)%nat ->
  null_set N (fun w => exists (i j : nat) (D : nat -> bool), (i < m1)%nat /\ (j < m2)%nat /\
    h3_value m1 D i j (down_of 2 m1 w) (up_of 2 m1 w) (up_of 2 m2 (shifted (off2 m1) w)) = 0).
Proof.
  intros m1 m2 N HN.
  apply null_set_subset with (A := fun w => exists p : nat * nat,
    In p (list_prod (seq 0 m1) (seq 0 m2)) /\ exists T, In T (subsets m1) /\
    poly_eval (h3_expr m1 m2 T (fst p) (snd p)) w = 0).
  - intros w (i & j & D & Hi & Hj & E). exists (i, j). cbn [fst snd].
    split; [apply in_prod; apply in_seq; lia|].
    destruct (subsets_complete m1 D) as (T & HT & HDT). exists T. split; [exact HT|].
    rewrite h3_expr_eval by assumption. rewrite <- E. unfold h3_value.
    apply h3_form_ext; [|reflexivity|reflexivity].
    intros a b _ _. unfold piece. f_equal. apply sum_ext. intros l Hl. rewrite (HDT l Hl). reflexivity.
  - apply null_set_list_union. intros (i, j) Hp. cbn [fst snd].
    apply in_prod_iff in Hp. destruct Hp as (Hi & Hj). apply in_seq in Hi. apply in_seq in Hj.
    apply null_set_list_union. intros T _. apply poly_zero_set_null.
    set (Wz := fun _ _ : nat => 0).
    set (U1w := fun (_ c : nat) => kron c 0). set (U2w := fun (_ c : nat) => kron c 1).
    destruct (two_layer_point m1 m2 N Wz U1w U2w HN) as (y & Hy & Yd & Yu & Y2).
    exists y. split; [exact Hy|].
    rewrite h3_expr_eval by lia. unfold h3_value.
    pose proof (h3_witness_value m1 T) as V.
    change (h3_form (piece 2 m1 T Wz U1w) (fun c => kron c 0) (fun c => kron c 1) = 1) in V.
    rewrite (h3_form_ext _ (piece 2 m1 T Wz U1w) _ (fun c => kron c 0) _ (fun c => kron c 1)).
    + rewrite V. lra.
    + intros a b Ha Hb. unfold piece. f_equal. apply sum_ext. intros l Hl.
      destruct (T l); [rewrite Yd, Yu by lia|]; reflexivity.
    + intros c Hc. rewrite Yu by lia. reflexivity.
    + intros c Hc. rewrite Y2 by lia. reflexivity.
Qed.

(** [depth-d2], consequence (ii), measure form, for the conditions listed at
    the top of this file: for [d = 2] and any widths [m1], [m2], the stacks of
    two residual layers of [R^2] for which nondegeneracy of a block, (H3) or
    the index condition of a layer fails form a null set of
    R^(stack_dim 2 [m1; m2]). *)
Theorem depth_d2_side_conditions_null : forall m1 m2 : nat,
  null_stack 2 [m1; m2] (fun layers =>
    exists L1 L2 : layer, layers = [L1; L2] /\ ~ d2_side_conditions L1 L2).
Proof.
  intros m1 m2. unfold null_stack. cbn [stack_of stack_dim].
  set (N := (2 * m1 + m1 * 2 + (2 * m2 + m2 * 2 + 0))%nat).
  assert (HN1 : (0 + (2 * m1 + m1 * 2) <= N)%nat) by (unfold N; lia).
  assert (HN2 : (off2 m1 + (2 * m2 + m2 * 2) <= N)%nat) by (unfold N, off2; lia).
  apply null_set_subset with (A := fun w =>
    ~ nondegenerate_weights 2 m1 (down_of 2 m1 (shifted 0 w)) (up_of 2 m1 (shifted 0 w)) \/
    ~ nondegenerate_weights 2 m2 (down_of 2 m2 (shifted (off2 m1) w))
                                 (up_of 2 m2 (shifted (off2 m1) w)) \/
    (exists (i j : nat) (D : nat -> bool), (i < m1)%nat /\ (j < m2)%nat /\
       h3_value m1 D i j (down_of 2 m1 w) (up_of 2 m1 w) (up_of 2 m2 (shifted (off2 m1) w)) = 0) \/
    (exists S : nat -> bool,
       ~ trivial_kernel 2 (skip_piece m1 ident S (down_of 2 m1 (shifted 0 w)) (up_of 2 m1 (shifted 0 w)))) \/
    (exists S : nat -> bool,
       ~ trivial_kernel 2 (skip_piece m2 ident S (down_of 2 m2 (shifted (off2 m1) w))
                                                 (up_of 2 m2 (shifted (off2 m1) w))))).
  - intros w (L1 & L2 & E & Hn). injection E as E1 E2. subst L1 L2.
    destruct (classic (nondegenerate_weights 2 m1 (down_of 2 m1 (shifted 0 w)) (up_of 2 m1 (shifted 0 w))))
      as [N1|N1]; [|left; exact N1].
    destruct (classic (nondegenerate_weights 2 m2 (down_of 2 m2 (shifted (off2 m1) w))
                                                  (up_of 2 m2 (shifted (off2 m1) w))))
      as [N2|N2]; [|right; left; exact N2].
    destruct (classic (exists (i j : nat) (D : nat -> bool), (i < m1)%nat /\ (j < m2)%nat /\
       h3_value m1 D i j (down_of 2 m1 w) (up_of 2 m1 w) (up_of 2 m2 (shifted (off2 m1) w)) = 0))
      as [H3|H3]; [right; right; left; exact H3|].
    destruct (classic (exists S : nat -> bool,
       ~ trivial_kernel 2 (skip_piece m1 ident S (down_of 2 m1 (shifted 0 w)) (up_of 2 m1 (shifted 0 w)))))
      as [P1|P1]; [right; right; right; left; exact P1|].
    right; right; right; right. apply NNPP. intros P2. apply Hn.
    split; [exact N1|]. split; [exact N2|]. split; [|split].
    + intros i j D Hi Hj _ E. apply H3. exists i, j, D. split; [exact Hi|]. split; [exact Hj|].
      exact E.
    + intros S. apply NNPP. intros HS. apply P1. exists S. exact HS.
    + intros S. apply NNPP. intros HS. apply P2. exists S. exact HS.
  - apply null_set_union; [exact (nondegenerate_null_at N 0 2 m1 (le_n 2) HN1)|].
    apply null_set_union; [exact (nondegenerate_null_at N (off2 m1) 2 m2 (le_n 2) HN2)|].
    apply null_set_union; [exact (h3_null m1 m2 N HN2)|].
    apply null_set_union; [exact (pieces_null_at N 0 2 m1 ident (ident_trivial_kernel 2))|].
    exact (pieces_null_at N (off2 m1) 2 m2 ident (ident_trivial_kernel 2)).
Qed.

(** ** (H4) *)

(** The adjugate of a 2 x 2 matrix: [adj [[a, b], [c, d]] = [[d, -b], [-c, a]]]. *)
Definition adj2 (A : mat) : mat := fun a b =>
  match a, b with
  | O, O => A 1%nat 1%nat
  | O, S O => - A 0%nat 1%nat
  | S O, O => - A 1%nat 0%nat
  | S O, S O => A 0%nat 0%nat
  | _, _ => 0
  end.

(** The determinant of the 2 x 2 matrix with columns [v] and [v']. *)
Definition det2 (v v' : vec) : R := v 0%nat * v' 1%nat - v 1%nat * v' 0%nat.

(** The (H4) quantity [det[adj(I + W_1 D U_1) J u2_j, adj(I + W_1 D^c U_1) J u2_j']]. *)
Definition h4_form (A B : mat) (v v' : vec) : R :=
  det2 (mv 2 (adj2 A) (mv 2 rotJ v)) (mv 2 (adj2 B) (mv 2 rotJ v')).

Definition h4_value (m1 : nat) (D : nat -> bool) (j j' : nat) (W1 U1 U2 : mat) : R :=
  h4_form (piece 2 m1 D W1 U1) (piece 2 m1 (fun l => negb (D l)) W1 U1) (U2 j) (U2 j').

(** (H4) for two layers: the quantity is nonzero for every [D] and all [j],
    [j'] (the case [j = j'] is the antipodal pair [s' = -s]). *)
Definition h4_holds (L1 L2 : layer) : Prop :=
  forall (j j' : nat) (D : nat -> bool), (j < width L2)%nat -> (j' < width L2)%nat ->
    h4_value (width L1) D j j' (Wdown L1) (Wup L1) (Wup L2) <> 0.

(** With signs [s = e J u2_j], [s' = e' J u2_j'] the determinant is
    [e e'] times [h4_value]: (H4) for [J u2_j] covers all four sign choices. *)
Lemma h4_signs : forall m1 D j j' W1 U1 U2 (e e' : R),
  det2 (mv 2 (adj2 (piece 2 m1 D W1 U1)) (fun c => e * mv 2 rotJ (U2 j) c))
       (mv 2 (adj2 (piece 2 m1 (fun l => negb (D l)) W1 U1)) (fun c => e' * mv 2 rotJ (U2 j') c)) =
  e * e' * h4_value m1 D j j' W1 U1 U2.
Proof.
  intros. unfold h4_value, h4_form, det2, mv. cbn [sum]. ring.
Qed.

Lemma piece_eval2 : forall m T i j w, (i < 2)%nat -> (j < 2)%nat ->
  poly_eval (piece_expr 2 m ident T i j) w = piece 2 m T (down_of 2 m w) (up_of 2 m w) i j.
Proof. intros. rewrite piece_expr_eval by assumption. reflexivity. Qed.

Lemma u2_eval : forall m1 m2 j c w, (j < m2)%nat -> (c < 2)%nat ->
  poly_eval (poly_shift (off2 m1) (up_var 2 m2 j c)) w = up_of 2 m2 (shifted (off2 m1) w) j c.
Proof. intros. rewrite poly_eval_shift, up_var_eval by assumption. reflexivity. Qed.

Definition adj2_expr (E : nat -> nat -> poly_expr) (a b : nat) : poly_expr :=
  match a, b with
  | O, O => E 1%nat 1%nat
  | O, S O => POpp (E 0%nat 1%nat)
  | S O, O => POpp (E 1%nat 0%nat)
  | S O, S O => E 0%nat 0%nat
  | _, _ => PConst 0
  end.

Definition mv2_expr (E : nat -> nat -> poly_expr) (v : nat -> poly_expr) (a : nat) : poly_expr :=
  PAdd (PMul (E a 0%nat) (v 0%nat)) (PMul (E a 1%nat) (v 1%nat)).

Definition rot_v_expr (v : nat -> poly_expr) (b : nat) : poly_expr :=
  match b with O => POpp (v 1%nat) | _ => v 0%nat end.

Definition det2_expr (v v' : nat -> poly_expr) : poly_expr :=
  PSub (PMul (v 0%nat) (v' 1%nat)) (PMul (v 1%nat) (v' 0%nat)).

(** The (H4) quantity as a polynomial expression in the coordinates. *)
Definition h4_expr (m1 m2 : nat) (D : nat -> bool) (j j' : nat) : poly_expr :=
  det2_expr
    (mv2_expr (adj2_expr (piece_expr 2 m1 ident D))
              (rot_v_expr (fun c => poly_shift (off2 m1) (up_var 2 m2 j c))))
    (mv2_expr (adj2_expr (piece_expr 2 m1 ident (fun l => negb (D l))))
              (rot_v_expr (fun c => poly_shift (off2 m1) (up_var 2 m2 j' c)))).

Lemma h4_expr_eval : forall m1 m2 D j j' w, (j < m2)%nat -> (j' < m2)%nat ->
  poly_eval (h4_expr m1 m2 D j j') w =
  h4_value m1 D j j' (down_of 2 m1 w) (up_of 2 m1 w) (up_of 2 m2 (shifted (off2 m1) w)).
Proof.
  intros m1 m2 D j j' w Hj Hj'.
  unfold h4_expr, det2_expr, mv2_expr, adj2_expr, rot_v_expr. cbn [poly_eval].
  rewrite !piece_eval2 by lia. rewrite !(u2_eval m1 m2) by lia.
  unfold h4_value, h4_form, det2, mv, adj2, rotJ. cbn [sum]. ring.
Qed.

(** [h4_form] reads only the entries in range. *)
Lemma h4_form_ext : forall (A A' B B' : mat) (v u v' u' : vec),
  (forall a b, (a < 2)%nat -> (b < 2)%nat -> A a b = A' a b) ->
  (forall a b, (a < 2)%nat -> (b < 2)%nat -> B a b = B' a b) ->
  (forall c, (c < 2)%nat -> v c = u c) ->
  (forall c, (c < 2)%nat -> v' c = u' c) ->
  h4_form A B v v' = h4_form A' B' u u'.
Proof.
  intros A A' B B' v u v' u' HA HB Hv Hv'.
  unfold h4_form, det2, mv, adj2, rotJ. cbn [sum].
  rewrite !HA, !HB, !Hv, !Hv' by lia. reflexivity.
Qed.

(** Witness for [j <> j']: at [W_1 = 0], [u2_l = (1, l)] the quantity is [j' - j]. *)
Lemma h4_witness_distinct : forall m1 D (j j' : nat),
  h4_form (piece 2 m1 D (fun _ _ => 0) (fun _ _ => 0))
          (piece 2 m1 (fun l => negb (D l)) (fun _ _ => 0) (fun _ _ => 0))
          (fun c => match c with O => 1 | _ => INR j end)
          (fun c => match c with O => 1 | _ => INR j' end) = INR j' - INR j.
Proof.
  intros m1 D j j'.
  rewrite (h4_form_ext _ ident _ ident _ (fun c => match c with O => 1 | _ => INR j end)
                       _ (fun c => match c with O => 1 | _ => INR j' end)).
  - unfold h4_form, det2, mv, adj2, rotJ, ident, kron. simpl. ring.
  - intros a b _ _. unfold piece. rewrite sum_zero; [ring|]. intros l _. destruct (D l); ring.
  - intros a b _ _. unfold piece. rewrite sum_zero; [ring|]. intros l _. destruct (D l); simpl; ring.
  - reflexivity.
  - reflexivity.
Qed.

(** Witness for [j = j'] ([m1 >= 1]): [W_1] with the single nonzero entry
    [(W_1)_00 = 1], [u1_l = (0, 1)], [u2_j = (1, 0)]: the quantity is [-1] or
    [1] as unit 0 is in [D] or not. *)
Lemma h4_witness_same : forall m1 D, (1 <= m1)%nat ->
  h4_form (piece 2 m1 D (fun a l => kron a 0 * kron l 0) (fun _ c => kron c 1))
          (piece 2 m1 (fun l => negb (D l)) (fun a l => kron a 0 * kron l 0) (fun _ c => kron c 1))
          (fun c => kron c 0) (fun c => kron c 0) = if D 0%nat then -1 else 1.
Proof.
  intros m1 D Hm.
  assert (P : forall T : nat -> bool, forall a b,
    piece 2 m1 T (fun a l => kron a 0 * kron l 0) (fun _ c => kron c 1) a b =
    ident a b + (if T 0%nat then kron a 0 * kron b 1 else 0)).
  { intros T a b. unfold piece. f_equal.
    rewrite (sum_ext m1 _ (fun l => kron 0 l * (if T 0%nat then kron a 0 * kron b 1 else 0))).
    - apply sum_kron_l. lia.
    - intros l _. destruct (Nat.eq_dec l 0) as [->|Hl].
      + replace (kron 0 0) with 1 by (unfold kron; destruct (Nat.eq_dec 0 0); [reflexivity|lia]).
        destruct (T 0%nat); ring.
      + replace (kron l 0) with 0 by (unfold kron; destruct (Nat.eq_dec l 0); [lia|reflexivity]).
        replace (kron 0 l) with 0 by (unfold kron; destruct (Nat.eq_dec 0 l); [lia|reflexivity]).
        destruct (T l); ring. }
  rewrite (h4_form_ext _ (fun a b => ident a b + (if D 0%nat then kron a 0 * kron b 1 else 0))
                       _ (fun a b => ident a b + (if negb (D 0%nat) then kron a 0 * kron b 1 else 0))
                       _ (fun c => kron c 0) _ (fun c => kron c 0)).
  - unfold h4_form, det2, mv, adj2, rotJ, ident, kron. destruct (D 0%nat); simpl; ring.
  - intros a b _ _. apply P.
  - intros a b _ _. apply (P (fun l => negb (D l))).
  - reflexivity.
  - reflexivity.
Qed.

(** (H4) fails only on a null set of R^N ([m1 >= 1]), for the layers read at
    offsets 0 and [off2 m1], when they fit below [N]. *)
Lemma h4_null : forall m1 m2 N, (1 <= m1)%nat -> (off2 m1 + (2 * m2 + m2 * 2) <= N)%nat ->
  null_set N (fun w => exists (j j' : nat) (D : nat -> bool), (j < m2)%nat /\ (j' < m2)%nat /\
    h4_value m1 D j j' (down_of 2 m1 w) (up_of 2 m1 w) (up_of 2 m2 (shifted (off2 m1) w)) = 0).
Proof.
  intros m1 m2 N Hm HN.
  apply null_set_subset with (A := fun w => exists p : nat * nat,
    In p (list_prod (seq 0 m2) (seq 0 m2)) /\ exists T, In T (subsets m1) /\
    poly_eval (h4_expr m1 m2 T (fst p) (snd p)) w = 0).
  - intros w (j & j' & D & Hj & Hj' & E). exists (j, j'). cbn [fst snd].
    split; [apply in_prod; apply in_seq; lia|].
    destruct (subsets_complete m1 D) as (T & HT & HDT). exists T. split; [exact HT|].
    rewrite h4_expr_eval by assumption. rewrite <- E. unfold h4_value.
    apply h4_form_ext; [| |reflexivity|reflexivity].
    + intros a b _ _. unfold piece. f_equal. apply sum_ext. intros l Hl. rewrite (HDT l Hl). reflexivity.
    + intros a b _ _. unfold piece. f_equal. apply sum_ext. intros l Hl. rewrite (HDT l Hl). reflexivity.
  - apply null_set_list_union. intros (j, j') Hp. cbn [fst snd].
    apply in_prod_iff in Hp. destruct Hp as (Hj & Hj'). apply in_seq in Hj. apply in_seq in Hj'.
    apply null_set_list_union. intros T _. apply poly_zero_set_null.
    destruct (Nat.eq_dec j j') as [<-|Hne].
    + set (W1w := fun a l : nat => kron a 0 * kron l 0). set (U1w := fun _ c : nat => kron c 1).
      destruct (two_layer_point m1 m2 N W1w U1w (fun _ c => kron c 0) HN) as (y & Hy & Yd & Yu & Y2).
      exists y. split; [exact Hy|]. rewrite h4_expr_eval by lia. unfold h4_value.
      pose proof (h4_witness_same m1 T Hm) as V.
      change (h4_form (piece 2 m1 T W1w U1w) (piece 2 m1 (fun l => negb (T l)) W1w U1w)
                (fun c => kron c 0) (fun c => kron c 0) = if T 0%nat then -1 else 1) in V.
      rewrite (h4_form_ext _ (piece 2 m1 T W1w U1w) _ (piece 2 m1 (fun l => negb (T l)) W1w U1w)
                           _ (fun c => kron c 0) _ (fun c => kron c 0)).
      * rewrite V. destruct (T 0%nat); lra.
      * intros a b Ha Hb. unfold piece. f_equal. apply sum_ext. intros l Hl.
        destruct (T l); [rewrite Yd, Yu by lia|]; reflexivity.
      * intros a b Ha Hb. unfold piece. f_equal. apply sum_ext. intros l Hl.
        destruct (negb (T l)); [rewrite Yd, Yu by lia|]; reflexivity.
      * intros c Hc. rewrite Y2 by lia. reflexivity.
      * intros c Hc. rewrite Y2 by lia. reflexivity.
    + set (U2w := fun l c : nat => match c with O => 1 | _ => INR l end).
      destruct (two_layer_point m1 m2 N (fun _ _ => 0) (fun _ _ => 0) U2w HN) as (y & Hy & Yd & Yu & Y2).
      exists y. split; [exact Hy|]. rewrite h4_expr_eval by lia. unfold h4_value.
      pose proof (h4_witness_distinct m1 T j j') as V.
      rewrite (h4_form_ext _ (piece 2 m1 T (fun _ _ => 0) (fun _ _ => 0))
                           _ (piece 2 m1 (fun l => negb (T l)) (fun _ _ => 0) (fun _ _ => 0))
                           _ (fun c => match c with O => 1 | _ => INR j end)
                           _ (fun c => match c with O => 1 | _ => INR j' end)).
      * rewrite V. intros E. apply Hne. apply INR_eq. lra.
      * intros a b Ha Hb. unfold piece. f_equal. apply sum_ext. intros l Hl.
        destruct (T l); [rewrite Yd, Yu by lia|]; reflexivity.
      * intros a b Ha Hb. unfold piece. f_equal. apply sum_ext. intros l Hl.
        destruct (negb (T l)); [rewrite Yd, Yu by lia|]; reflexivity.
      * intros c Hc. rewrite Y2 by lia. reflexivity.
      * intros c Hc. rewrite Y2 by lia. reflexivity.
Qed.

(** [depth-d2], consequence (ii), measure form, with (H4): for [d = 2],
    widths [m1 >= 1] and [m2], the stacks of two residual layers of [R^2] for
    which nondegeneracy of a block, (H3), (H4) or the index condition of a
    layer fails form a null set of R^(stack_dim 2 [m1; m2]). *)
Theorem depth_d2_side_conditions_h4_null : forall m1 m2 : nat, (1 <= m1)%nat ->
  null_stack 2 [m1; m2] (fun layers =>
    exists L1 L2 : layer, layers = [L1; L2] /\ ~ (d2_side_conditions L1 L2 /\ h4_holds L1 L2)).
Proof.
  intros m1 m2 Hm. pose proof (depth_d2_side_conditions_null m1 m2) as H0.
  unfold null_stack in *. cbn [stack_of stack_dim] in *.
  apply null_set_subset with (A := fun w =>
    (exists L1 L2 : layer,
       [mk_layer m1 (down_of 2 m1 (shifted 0 w)) (up_of 2 m1 (shifted 0 w));
        mk_layer m2 (down_of 2 m2 (shifted (0 + (2 * m1 + m1 * 2)) w))
                    (up_of 2 m2 (shifted (0 + (2 * m1 + m1 * 2)) w))] = [L1; L2] /\
       ~ d2_side_conditions L1 L2) \/
    (exists (j j' : nat) (D : nat -> bool), (j < m2)%nat /\ (j' < m2)%nat /\
       h4_value m1 D j j' (down_of 2 m1 w) (up_of 2 m1 w) (up_of 2 m2 (shifted (off2 m1) w)) = 0)).
  - intros w (L1 & L2 & E & Hn).
    destruct (classic (d2_side_conditions L1 L2)) as [Hs|Hs]; [|left; exists L1, L2; split; assumption].
    right. injection E as E1 E2. subst L1 L2.
    apply NNPP. intros H4. apply Hn. split; [exact Hs|].
    intros j j' D Hj Hj' E. apply H4. exists j, j', D. split; [exact Hj|]. split; [exact Hj'|]. exact E.
  - apply null_set_union; [exact H0|].
    apply h4_null; [exact Hm|]. unfold off2. lia.
Qed.

(** Without [m1 >= 1] the statement with (H4) is false: with no unit in
    layer 1, [G = I] and the rays [J u2_j] and [-J u2_j] are antipodal at
    every weight ([h4_value] of [j = j'] is [det[s, s] = 0]), so the failing
    set is all of R^(stack_dim 2 [0; m2]), which is not null ([m2 >= 1]). *)
Lemma depth_d2_h4_needs_layer1_unit : forall m2 : nat, (1 <= m2)%nat ->
  ~ null_stack 2 [0%nat; m2] (fun layers =>
      exists L1 L2 : layer, layers = [L1; L2] /\ ~ (d2_side_conditions L1 L2 /\ h4_holds L1 L2)).
Proof.
  intros m2 Hm2 H. apply (all_stacks_not_null 2 [0%nat; m2]).
  eapply null_set_subset; [|exact H]. intros w _. cbn [stack_of].
  eexists; eexists; split; [reflexivity|]. intros (_ & H4).
  apply (H4 0%nat 0%nat (fun _ => true)); [simpl; lia|simpl; lia|].
  unfold h4_value, h4_form, piece, det2, mv, adj2, rotJ, ident, kron. simpl. ring.
Qed.
