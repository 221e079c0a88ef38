(** * [depth-narrow] (c): pieces of the two-block argument.

    Part (c) of [proofs/informal/depth-narrow.md] concerns
    [F = (I + B_2) o (I + B_1)] against a plain stack of widths [(m'_1, d)]
    with [m'_1 <= m_1].  This file proves the last step of that argument
    (Step 6): once every unit of the second block has one fixed activity on
    the whole image of [G = I + B_1], [F] is the invertible piece
    [A = I + W_2 D_2 U_2] applied to [G]; if [F] were then a single plain relu
    block of width [<= m_1], the block [x -> A x + A B_1 x] would absorb the
    skip [A], and [Necessity.relu_necessity] (relu-gelu-iff (B)) would give a
    set [S] with [A (I + W_1,S U_1,S) = 0], i.e. a zero piece of block 1. *)

From Coq Require Import Reals Lra Lia List Classical.
From SkipAbsorption Require Import Linalg Depth SignFlip DepthStack RealActivations DepthNarrow
  Necessity.
Import ListNotations.
Open Scope R_scope.

(** The first residual block [G = I + B_1]. *)
Definition res_one (d : nat) (L : layer) (x : vec) : vec :=
  fun i => x i + layer_block d relu L x i.

(** A plain block of width [k <= m], padded with zero units to width [m]. *)
Definition pad_down (k : nat) (Wd : mat) : mat :=
  fun i l => if (l <? k)%nat then Wd i l else 0.

Lemma block_pad : forall d k m (Wd Wu : mat) x i, (k <= m)%nat ->
  block d k relu Wd Wu x i = block d m relu (pad_down k Wd) Wu x i.
Proof.
  intros d k m Wd Wu x i Hk. unfold block, readout.
  replace m with (k + (m - k))%nat by lia. rewrite sum_split.
  rewrite (sum_zero (m - k)); [|intros l _; unfold pad_down;
    replace ((k + l <? k)%nat) with false by (symmetry; apply Nat.ltb_ge; lia); ring].
  rewrite Rplus_0_r. apply sum_ext. intros l Hl. unfold pad_down.
  replace ((l <? k)%nat) with true by (symmetry; apply Nat.ltb_lt; exact Hl). reflexivity.
Qed.

(** [A W] for a [d x d] matrix [A]. *)
Definition left_mul (d : nat) (A W : mat) : mat := fun i l => sum d (fun k => A i k * W k l).

Lemma mv_block_left : forall d m (A Wd Wu : mat) x i,
  mv d A (block d m relu Wd Wu x) i = block d m relu (left_mul d A Wd) Wu x i.
Proof.
  intros. unfold block, readout, left_mul, mv.
  rewrite (sum_ext d _ (fun k => sum m (fun l => A i k * (Wd k l * relu (sum d (fun j => Wu l j * x j))))))
    by (intros; symmetry; apply sum_scal_l).
  rewrite sum_swap. apply sum_ext. intros l _. rewrite <- sum_scal_r. apply sum_ext. intros; ring.
Qed.

(** A nondegenerate block stays nondegenerate after an invertible [A] on
    its output side. *)
Lemma nondegenerate_left_mul : forall d m A Wd Wu,
  trivial_kernel d A -> nondegenerate_block d m Wd Wu ->
  nondegenerate_block d m (left_mul d A Wd) Wu.
Proof.
  intros d m A Wd Wu HA (Hnz & Hnc & Hcol). split; [exact Hnz|split; [exact Hnc|]].
  intros l Hl. destruct (Hcol l Hl) as (i & Hi & Hw).
  destruct (classic (exists i', (i' < d)%nat /\ left_mul d A Wd i' l <> 0)) as [H|H]; [exact H|].
  exfalso. apply Hw. apply (HA (fun k => Wd k l)); [|exact Hi].
  intros i' Hi'. destruct (Req_dec (mv d A (fun k => Wd k l) i') 0) as [E|E]; [exact E|].
  exfalso. apply H. exists i'. split; [exact Hi'|]. exact E.
Qed.

(** With a fixed activity [D2] of the units of block 2 on the image of [G],
    [F] is the piece of [D2] applied to [G]. *)
Lemma second_block_fixed : forall d (L2 : layer) (D2 : nat -> bool) (y : vec),
  (forall l, (l < width L2)%nat ->
     relu (mv d (Wup L2) y l) = if D2 l then mv d (Wup L2) y l else 0) ->
  forall i, (i < d)%nat ->
  y i + layer_block d relu L2 y i = mv d (piece d (width L2) D2 (Wdown L2) (Wup L2)) y i.
Proof.
  intros d L2 D2 y Hfix i Hi. unfold piece. rewrite mv_mat_plus, mv_ident by exact Hi.
  f_equal. unfold layer_block, block, readout.
  rewrite (sum_ext (width L2) _ (fun l => if D2 l then Wdown L2 i l * 1 * mv d (Wup L2) y l else 0))
    by (intros l Hl; rewrite (Hfix l Hl); destruct (D2 l); ring).
  rewrite (selected_sum d (width L2) D2 (Wdown L2) (Wup L2) (fun _ => 1) y i).
  apply mv_row_ext. intros j _. apply sum_ext. intros l _. destruct (D2 l); ring.
Qed.

(** Step 6 of part (c).  [L1] nondegenerate, all pieces of [L1] and [L2]
    invertible, every unit of [L2] with one fixed activity [D2] on the image
    of [G]: then [F] is no plain relu block [Q] of width [<= m_1]. *)
Theorem fixed_second_block_not_plain :
  forall (d : nat) (L1 L2 Q : layer) (D2 : nat -> bool)
         (d_pos : (0 < d)%nat)
         (pieces1 : layer_pieces_invertible d L1)
         (pieces2 : layer_pieces_invertible d L2)
         (nondegenerate1 : nondegenerate_block d (width L1) (Wdown L1) (Wup L1))
         (fixed : forall x l, (l < width L2)%nat ->
            relu (mv d (Wup L2) (res_one d L1 x) l) =
            if D2 l then mv d (Wup L2) (res_one d L1 x) l else 0)
         (narrow : (width Q <= width L1)%nat),
  ~ (forall x i, (i < d)%nat ->
       res_comp_id (map (layer_block d relu) [L1; L2]) x i = layer_block d relu Q x i).
Proof.
  intros d L1 L2 Q D2 d_pos pieces1 pieces2 nondeg1 fixed narrow Heq.
  set (A := piece d (width L2) D2 (Wdown L2) (Wup L2)).
  assert (HA : trivial_kernel d A) by apply pieces2.
  assert (Habs : forall x i, (i < d)%nat ->
            mv d A x i + block d (width L1) relu (left_mul d A (Wdown L1)) (Wup L1) x i =
            block d (width L1) relu (pad_down (width Q) (Wdown Q)) (Wup Q) x i).
  { intros x i Hi. rewrite <- block_pad by exact narrow.
    rewrite <- mv_block_left, <- mv_plus.
    transitivity (layer_block d relu Q x i); [|reflexivity].
    rewrite <- (Heq x i Hi). simpl.
    change (fun i0 => x i0 + layer_block d relu L1 x i0) with (res_one d L1 x).
    change (x i + layer_block d relu L1 x i) with (res_one d L1 x i).
    rewrite (second_block_fixed d L2 D2 (res_one d L1 x) (fixed x)) by exact Hi.
    reflexivity. }
  destruct (relu_necessity d (width L1) A (left_mul d A (Wdown L1)) (Wup L1) _ _
              (nondegenerate_left_mul d _ A _ _ HA nondeg1) Habs) as (S & HS).
  (* every column of the piece [I + W_1,S U_1,S] lies in the kernel of [A] *)
  set (P := piece d (width L1) S (Wdown L1) (Wup L1)).
  assert (Hcol : forall j, (j < d)%nat -> forall k, (k < d)%nat -> P k j = 0).
  { intros j Hj. apply (HA (fun k => P k j)). intros i Hi.
    unfold P, piece, mv.
    rewrite (sum_ext d _ (fun k => A i k * ident k j +
                sum (width L1) (fun l => if S l then A i k * Wdown L1 k l * Wup L1 l j else 0)))
      by (intros k _; rewrite Rmult_plus_distr_l, <- sum_scal_l; f_equal; apply sum_ext;
          intros l _; destruct (S l); ring).
    rewrite sum_plus, sum_swap.
    rewrite (sum_ext d (fun k => A i k * ident k j) (fun k => ident j k * A i k))
      by (intros; unfold ident; rewrite kron_sym; ring).
    unfold ident. rewrite sum_kron_l by exact Hj.
    rewrite (sum_ext (width L1) _ (fun l => if S l then sum d (fun k => A i k * Wdown L1 k l) * Wup L1 l j else 0))
      by (intros l _; destruct (S l); [rewrite <- sum_scal_r; apply sum_ext; intros; ring|
                                        apply sum_zero; intros; reflexivity]).
    pose proof (HS i j Hi Hj) as E. unfold left_mul in E.
    lra. }
  assert (H0 := pieces1 S (unit_vec 0)).
  assert (Hz : forall i, (i < d)%nat -> mv d P (unit_vec 0) i = 0)
    by (intros i Hi; rewrite mv_unit by exact d_pos; apply Hcol; assumption).
  specialize (H0 Hz 0%nat d_pos). unfold unit_vec, kron in H0.
  destruct (Nat.eq_dec 0 0); [lra|contradiction].
Qed.
