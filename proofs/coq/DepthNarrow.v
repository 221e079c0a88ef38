(** * [depth-narrow]: residual relu stacks with invertible pieces against
    narrow plain stacks.

    A bias-free relu block is [x -> W relu(U x)]; on the inputs where exactly
    the units of [S] are active, [x + B x] is the linear map
    [I + W_S U_S] ([piece]).  Since [relu z] is [z] or [0], for every [x] the
    residual block is [x -> (I + W_(S x) U_(S x)) x] with [S x] the active set
    at [x], so a residual stack maps [x] by a product of pieces.  If every
    piece is invertible ([trivial_kernel]: for a square matrix this is
    invertibility), [F x = 0] only at [x = 0] (part (a)).  A plain stack whose
    first layer has at most [d] units vanishes at some [x <> 0] (its first
    pre-activations are all [<= 0] there), so it is not [F]. *)

From Coq Require Import Reals Lra Lia List Classical.
From SkipAbsorption Require Import Linalg Depth SignFlip Width Rank DepthStack Activations.
Import ListNotations.
Open Scope R_scope.

(** The linear piece [I + W_S U_S] of the block [(Wd, Wu)] of width [m] for
    the active set [S]. *)
Definition piece (d m : nat) (S : nat -> bool) (Wd Wu : mat) : mat :=
  fun i j => ident i j + sum m (fun l => if S l then Wd i l * Wu l j else 0).

(** The [d x d] matrix [A] has a trivial kernel (for a square matrix: it is
    invertible). *)
Definition trivial_kernel (d : nat) (A : mat) : Prop :=
  forall y : vec, (forall i, (i < d)%nat -> mv d A y i = 0) -> forall j, (j < d)%nat -> y j = 0.

(** The units active at [x]: those with [u_l . x > 0]. *)
Definition active (d : nat) (Wu : mat) (x : vec) : nat -> bool :=
  fun l => if Rle_dec (mv d Wu x l) 0 then false else true.

Lemma relu_active : forall d Wu x l,
  relu (mv d Wu x l) = if active d Wu x l then mv d Wu x l else 0.
Proof.
  intros. unfold relu, active, Rmax. destruct (Rle_dec (mv d Wu x l) 0); reflexivity.
Qed.

Lemma mv_mat_plus : forall n (A B : mat) x i,
  mv n (fun i j => A i j + B i j) x i = mv n A x i + mv n B x i.
Proof. intros. unfold mv. rewrite <- sum_plus. apply sum_ext. intros. ring. Qed.

(** (E1): [x + B x] is the piece of the active set at [x], applied to [x]. *)
Lemma residual_is_piece : forall d m Wd Wu x i, (i < d)%nat ->
  x i + block d m relu Wd Wu x i = mv d (piece d m (active d Wu x) Wd Wu) x i.
Proof.
  intros d m Wd Wu x i Hi. unfold piece. rewrite mv_mat_plus, mv_ident by exact Hi.
  f_equal. unfold block, readout.
  rewrite (sum_ext m _ (fun l => if active d Wu x l then Wd i l * 1 * mv d Wu x l else 0))
    by (intros l _; rewrite relu_active; destruct (active d Wu x l); ring).
  rewrite (selected_sum d m (active d Wu x) Wd Wu (fun _ => 1) x i).
  apply mv_row_ext. intros j _. apply sum_ext. intros l _. destruct (active d Wu x l); ring.
Qed.

(** Every piece of the layer [L] is invertible. *)
Definition layer_pieces_invertible (d : nat) (L : layer) : Prop :=
  forall S : nat -> bool, trivial_kernel d (piece d (width L) S (Wdown L) (Wup L)).

(** [depth-narrow] (a), first half: with invertible pieces, [F x = 0] forces
    [x = 0]. *)
Theorem residual_stack_nonvanishing :
  forall (d : nat) (layers : list layer)
         (pieces_invertible : Forall (layer_pieces_invertible d) layers),
  forall x, (forall i, (i < d)%nat -> res_comp_id (map (layer_block d relu) layers) x i = 0) ->
  forall j, (j < d)%nat -> x j = 0.
Proof.
  intros d layers H. induction H as [|L layers HL _ IH]; intros x Hx j Hj.
  - exact (Hx j Hj).
  - simpl in Hx. pose proof (IH _ Hx) as Hy.
    apply (HL (active d (Wup L) x) x); [|exact Hj].
    intros i Hi. rewrite <- residual_is_piece by exact Hi. exact (Hy i Hi).
Qed.

(** Every bias-free relu stack maps [0] to [0]. *)
Lemma plain_stack_zero : forall d (plains : list layer) x,
  (forall j, (j < d)%nat -> x j = 0) ->
  forall i, (i < d)%nat -> plain_comp (map (layer_block d relu) plains) x i = 0.
Proof.
  intros d plains. induction plains as [|P plains IH]; intros x Hx i Hi; simpl.
  - exact (Hx i Hi).
  - apply IH; [|exact Hi]. intros j Hj. unfold layer_block, block, readout.
    apply sum_zero. intros l Hl.
    unfold mv. rewrite (sum_zero d (fun j' => Wup P l j' * x j')) by (intros j' Hj'; rewrite Hx by exact Hj'; ring).
    unfold relu, Rmax. destruct (Rle_dec 0 0); [ring|lra].
Qed.

(** A matrix [V] with [m' <= d] rows ([d >= 1]) has a nonzero [x] with
    [V x <= 0] entrywise: a kernel vector, or else [V] is square and
    invertible and [x = V^-1 (-1, ..., -1)]. *)
Lemma narrow_matrix_nonpositive : forall d m' (V : mat),
  (0 < d)%nat -> (m' <= d)%nat ->
  exists x : vec, (exists j, (j < d)%nat /\ x j <> 0) /\
    forall l, (l < m')%nat -> mv d V x l <= 0.
Proof.
  intros d m' V Hd Hm.
  destruct (classic (exists x : vec, (exists j, (j < d)%nat /\ x j <> 0) /\
                       forall l, (l < m')%nat -> mv d V x l = 0)) as [(x & Hx & H0)|Hno].
  - exists x. split; [exact Hx|]. intros l Hl. rewrite (H0 l Hl). lra.
  - (* the columns of [V] are independent in [R^m'] *)
    assert (Hind : indep m' d (fun j l => V l j)).
    { intros c Hc k Hk. destruct (Req_dec (c k) 0) as [Hz|Hz]; [exact Hz|]. exfalso. apply Hno.
      exists c. split; [exists k; split; assumption|].
      intros l Hl. unfold mv. rewrite <- (Hc l Hl). apply sum_ext. intros; ring. }
    destruct (basis_completion m' d (fun j l => V l j) Hind) as (Hdm & Lv & Hspan).
    assert (Heq : m' = d) by lia. subst m'.
    destruct (Hspan (fun _ => -1)) as (c & Hc).
    exists c. split.
    + destruct (classic (exists j, (j < d)%nat /\ c j <> 0)) as [Hex|Hnot]; [exact Hex|].
      exfalso. specialize (Hc 0%nat Hd).
      rewrite (sum_zero d) in Hc; [lra|].
      intros k Hk. destruct (Req_dec (c k) 0) as [Hz|Hz].
      * rewrite Hz. ring.
      * exfalso. apply Hnot. exists k. split; assumption.
    + intros l Hl. unfold mv. replace (sum d (fun j => V l j * c j)) with (-1); [lra|].
      rewrite <- (Hc l Hl). apply sum_ext. intros k Hk. unfold append.
      replace (k <? d)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hk). ring.
Qed.

(** [depth-narrow] (a): a residual relu stack with invertible pieces ([d >= 1])
    equals no plain relu stack, of any depth, whose first width is [<= d]. *)
Theorem depth_narrow_first_width :
  forall (d : nat) (layers plains : list layer)
         (d_pos : (0 < d)%nat)
         (pieces_invertible : Forall (layer_pieces_invertible d) layers)
         (narrow_width : exists (P1 : layer) (rest : list layer),
            plains = P1 :: rest /\ (width P1 <= d)%nat),
  ~ (forall x i, (i < d)%nat ->
       res_comp_id (map (layer_block d relu) layers) x i =
       plain_comp (map (layer_block d relu) plains) x i).
Proof.
  intros d layers plains d_pos pieces_invertible (P1 & rest & -> & Hw) Heq.
  destruct (narrow_matrix_nonpositive d (width P1) (Wup P1) d_pos Hw) as (x & (j & Hj & Hxj) & Hneg).
  apply Hxj. apply (residual_stack_nonvanishing d layers pieces_invertible x); [|exact Hj].
  intros i Hi. rewrite (Heq x i Hi). simpl.
  apply plain_stack_zero; [|exact Hi].
  intros j' Hj'. unfold layer_block, block, readout. apply sum_zero. intros l Hl.
  unfold relu, Rmax. destruct (Rle_dec (mv d (Wup P1) x l) 0) as [_|Hn]; [ring|].
  exfalso. apply Hn. exact (Hneg l Hl).
Qed.

(** ** Instance *)

(** Instance of [depth_narrow_first_width], stated with the standard library
    only: [d = 1], the residual block [x -> x + relu x] (pieces [1] and [2])
    equals no plain relu stack of widths [(1, 2)], whatever its weights. *)
Lemma depth_narrow_instance : forall a b c0 c1 e0 e1 : R,
  ~ (forall x : R,
       x + Rmax x 0 =
       e0 * Rmax (c0 * (b * Rmax (a * x) 0)) 0 + e1 * Rmax (c1 * (b * Rmax (a * x) 0)) 0).
Proof.
  intros a b c0 c1 e0 e1 H.
  set (L := mk_layer 1 ident ident).
  set (P1 := mk_layer 1 (fun _ _ => b) (fun _ _ => a)).
  set (P2 := mk_layer 2 (fun _ l => match l with 0%nat => e0 | _ => e1 end)
                        (fun l _ => match l with 0%nat => c0 | _ => c1 end)).
  assert (HL : layer_pieces_invertible 1 L).
  { intros S y Hy j Hj. assert (j = 0%nat) by lia. subst j.
    specialize (Hy 0%nat ltac:(lia)). unfold mv, piece, L, ident, kron in Hy. simpl in Hy.
    destruct (S 0%nat); simpl in Hy; lra. }
  apply (depth_narrow_first_width 1 [L] [P1; P2] ltac:(lia) (Forall_cons _ HL (Forall_nil _))).
  - exists P1, [P2]. split; [reflexivity|simpl; lia].
  - intros x i Hi. assert (i = 0%nat) by lia. subst i.
    specialize (H (x 0%nat)).
    unfold L, P1, P2, res_comp_id, plain_comp, layer_block, block, readout, mv, ident, kron, relu.
    simpl. tidy. rewrite H. reflexivity.
Qed.
