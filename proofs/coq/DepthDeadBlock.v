(** * [depth-dead-block]: a second relu block that never fires on the image of the first.

    The stacks are those of DepthD1.v with skips and biases: a residual block is
    [G(x) = M x + W_down relu(W_up x + b_up) + b_down] ([rblock], the biased block
    [blayer_block] of DepthD1.v plus the skip), a residual stack is run by [res_comp]
    of Depth.v ([bres_stack]), a plain stack with biases is [bplain_stack] of
    DepthD1.v; [relu] is the one of RealActivations.v ([Rmax z 0]).

    What is proved here:
    - (a) [dead_block_affine]: if [U_2 G_1(x) + c_2 <= 0] for every [x], the stack
      [G_2 o G_1] is [M_2 G_1 + e_2];
    - (b) [dead_block_plain]: if moreover [G_1] equals a plain biased block [P_1]
      and the row rank [r] of [U_2] has [2d - r <= m_2], the plain stack
      [(P_1, dead_second_layer ...)] of widths [(m_1, m_2)] equals [G_2 o G_1];
    - (c) [dead_block_no_narrow_plain]: if the closed region of an activation pattern
      [D] of block 1 contains a ball and [M_2 (M_1 + W_1 D U_1)] is invertible,
      [G_2 o G_1] is no biased plain relu stack with a width [< d];
    - the certificate's soundness: [farkas_sound] and [farkas_empty] (Farkas
      multipliers bound an affine function on a polyhedron, or prove it empty), and
      [dead_on_image_of_certificates]: one certificate per activation pattern of
      block 1 and unit of block 2 proves the hypothesis of (a).
    The completeness of the certificates (they exist whenever the hypothesis holds,
    with at most [d + 1] nonzero entries, rational for rational weights) is in
    DepthDeadBlockFarkas.v. *)

From Coq Require Import Reals Lra Lia List.
From SkipAbsorption Require Import Linalg Depth DepthStack RealActivations Limit DepthD1 Width Rank DepthNarrow.
Import ListNotations.
Open Scope R_scope.

(** ** The residual blocks and stacks with skips and biases *)

(** [x -> M x + W_down relu(W_up x + b_up) + b_down]. *)
Definition rblock (d : nat) (M : mat) (B : blayer) (x : vec) : vec :=
  fun i => mv d M x i + blayer_block d relu B x i.

(** A residual relu stack with skips and biases, run head first by [res_comp]. *)
Definition bres_stack (d : nat) (res : list (mat * blayer)) : vec -> vec :=
  res_comp d (map (fun p => (fst p, blayer_block d relu (snd p))) res).

Lemma bres_stack_two : forall d M1 B1 M2 B2 x i,
  bres_stack d [(M1, B1); (M2, B2)] x i = rblock d M2 B2 (rblock d M1 B1 x) i.
Proof. intros. reflexivity. Qed.

(** ** (a) A dead second block: the stack is [M_2 G_1 + e_2] *)

(** The second block of width [m_2 = bwidth B2] never fires on the image of the first. *)
Definition dead_on (d : nat) (M1 : mat) (B1 B2 : blayer) : Prop :=
  forall x l, (l < bwidth B2)%nat -> mv d (bWup B2) (rblock d M1 B1 x) l + bup B2 l <= 0.

Theorem dead_block_affine :
  forall (d : nat) (res : list (mat * blayer)) (M1 M2 : mat) (B1 B2 : blayer)
         (two_blocks : res = [(M1, B1); (M2, B2)])
         (dead_on_image : forall x l, (l < bwidth B2)%nat ->
                            mv d (bWup B2) (rblock d M1 B1 x) l + bup B2 l <= 0),
  forall x i, bres_stack d res x i = mv d M2 (rblock d M1 B1 x) i + bdown B2 i.
Proof.
  intros d res M1 M2 B1 B2 two_blocks dead_on_image x i. subst res.
  rewrite bres_stack_two. unfold rblock at 1, blayer_block, bblock.
  rewrite (sum_zero (bwidth B2)); [ring|].
  intros l Hl. rewrite relu_nonpos; [ring|]. apply dead_on_image. exact Hl.
Qed.

(** ** The certificate of [dead_on_image]: soundness *)

(** Farkas multipliers [lam >= 0] with [sum_i lam_i a_i = g] and [lam . b + h <= 0]
    prove [g . x + h <= 0] on the polyhedron [{x : a_i . x <= b_i, i < n}] (the rows
    [a_i] of [A]). *)
Theorem farkas_sound :
  forall (d n : nat) (A : mat) (b g : vec) (h : R) (lam : vec),
    (forall i, (i < n)%nat -> 0 <= lam i) ->
    (forall j, (j < d)%nat -> sum n (fun i => lam i * A i j) = g j) ->
    sum n (fun i => lam i * b i) + h <= 0 ->
    forall x, (forall i, (i < n)%nat -> mv d A x i <= b i) -> dot d g x + h <= 0.
Proof.
  intros d n A b g h lam Hlam Hcomb Hval x Hx.
  assert (E : dot d g x = sum n (fun i => lam i * mv d A x i)).
  { unfold dot. rewrite (sum_ext d (fun j => g j * x j)
                           (fun j => sum n (fun i => lam i * A i j) * x j))
      by (intros j Hj; rewrite Hcomb by exact Hj; reflexivity).
    rewrite (sum_outer_apply d n lam A x). reflexivity. }
  assert (sum n (fun i => lam i * mv d A x i) <= sum n (fun i => lam i * b i)).
  { apply sum_le. intros i Hi. apply Rmult_le_compat_l; [apply Hlam|apply Hx]; exact Hi. }
  lra.
Qed.

(** Multipliers [y >= 0] with [sum_i y_i a_i = 0] and [y . b < 0] prove the
    polyhedron empty. *)
Theorem farkas_empty :
  forall (d n : nat) (A : mat) (b y : vec),
    (forall i, (i < n)%nat -> 0 <= y i) ->
    (forall j, (j < d)%nat -> sum n (fun i => y i * A i j) = 0) ->
    sum n (fun i => y i * b i) < 0 ->
    forall x, ~ (forall i, (i < n)%nat -> mv d A x i <= b i).
Proof.
  intros d n A b y Hy Hcomb Hval x Hx.
  pose proof (farkas_sound d n A b (fun _ => 0) (- sum n (fun i => y i * b i)) y Hy
                ltac:(intros j Hj; apply Hcomb; exact Hj) ltac:(lra) x Hx) as H.
  unfold dot in H. rewrite (sum_zero d (fun j => 0 * x j)) in H by (intros; ring). lra.
Qed.

(** The region of the activation pattern [S] of block 1 as a polyhedron
    [{x : a_l . x <= b_l, l < m_1}]: [-u_l . x <= c_l] for an active unit, [u_l . x <= -c_l]
    for an inactive one. *)
Definition region_rows (B1 : blayer) (S : nat -> bool) : mat :=
  fun l j => if S l then - bWup B1 l j else bWup B1 l j.
Definition region_rhs (B1 : blayer) (S : nat -> bool) : vec :=
  fun l => if S l then bup B1 l else - bup B1 l.

(** On that region [G_1(x) = A_S x + a_S]. *)
Definition piece_lin (d : nat) (M1 : mat) (B1 : blayer) (S : nat -> bool) : mat :=
  fun i j => M1 i j + sum (bwidth B1) (fun l => bWdown B1 i l * (if S l then bWup B1 l j else 0)).
Definition piece_const (B1 : blayer) (S : nat -> bool) : vec :=
  fun i => sum (bwidth B1) (fun l => bWdown B1 i l * (if S l then bup B1 l else 0)) + bdown B1 i.

(** Unit [j] of block 2 on that region: [g . x + h] with [g = A_S^T u_(2,j)] and
    [h = u_(2,j) . a_S + c_(2,j)]. *)
Definition cert_g (d : nat) (M1 : mat) (B1 B2 : blayer) (S : nat -> bool) (j : nat) : vec :=
  transpose_mv d (piece_lin d M1 B1 S) (bWup B2 j).
Definition cert_h (d : nat) (B1 B2 : blayer) (S : nat -> bool) (j : nat) : R :=
  dot d (bWup B2 j) (piece_const B1 S) + bup B2 j.

(** The two kinds of certificate for the pattern [S] and the unit [j]. *)
Definition bound_cert (d : nat) (M1 : mat) (B1 B2 : blayer) (S : nat -> bool) (j : nat) : Prop :=
  exists lam : vec, (forall l, (l < bwidth B1)%nat -> 0 <= lam l) /\
    (forall k, (k < d)%nat -> sum (bwidth B1) (fun l => lam l * region_rows B1 S l k) = cert_g d M1 B1 B2 S j k) /\
    sum (bwidth B1) (fun l => lam l * region_rhs B1 S l) + cert_h d B1 B2 S j <= 0.
Definition empty_cert (d : nat) (B1 : blayer) (S : nat -> bool) : Prop :=
  exists y : vec, (forall l, (l < bwidth B1)%nat -> 0 <= y l) /\
    (forall k, (k < d)%nat -> sum (bwidth B1) (fun l => y l * region_rows B1 S l k) = 0) /\
    sum (bwidth B1) (fun l => y l * region_rhs B1 S l) < 0.

(** The activation pattern of [x]: the units with a nonnegative pre-activation. *)
Definition pattern_of (d : nat) (B1 : blayer) (x : vec) : nat -> bool :=
  fun l => if Rle_dec 0 (mv d (bWup B1) x l + bup B1 l) then true else false.

Lemma mv_opp_rows : forall d (A : mat) x l, mv d (fun l j => - A l j) x l = - mv d A x l.
Proof. intros. unfold mv. rewrite <- sum_opp. apply sum_ext. intros. ring. Qed.

Lemma region_rows_mv : forall d B1 S x l,
  mv d (region_rows B1 S) x l = if S l then - mv d (bWup B1) x l else mv d (bWup B1) x l.
Proof.
  intros. unfold region_rows, mv. destruct (S l).
  - rewrite <- sum_opp. apply sum_ext. intros. ring.
  - reflexivity.
Qed.

Lemma in_own_region : forall d B1 x l, (l < bwidth B1)%nat ->
  mv d (region_rows B1 (pattern_of d B1 x)) x l <= region_rhs B1 (pattern_of d B1 x) l.
Proof.
  intros d B1 x l Hl. rewrite region_rows_mv. unfold region_rhs, pattern_of.
  destruct (Rle_dec 0 (mv d (bWup B1) x l + bup B1 l)); lra.
Qed.

(** The closed region of the activation pattern [S] of block 1. *)
Definition in_region (d : nat) (B1 : blayer) (S : nat -> bool) (x : vec) : Prop :=
  forall l, (l < bwidth B1)%nat ->
    if S l then 0 <= mv d (bWup B1) x l + bup B1 l else mv d (bWup B1) x l + bup B1 l <= 0.

(** On the closed region of [S], block 1 is the affine piece [A_S x + a_S]. *)
Lemma block1_piece_on : forall d M1 B1 S x i, in_region d B1 S x ->
  rblock d M1 B1 x i = mv d (piece_lin d M1 B1 S) x i + piece_const B1 S i.
Proof.
  intros d M1 B1 S x i Hreg.
  unfold rblock, blayer_block, bblock, piece_lin, piece_const.
  rewrite mv_mat_plus.
  replace (mv d (fun i0 j => sum (bwidth B1) (fun l => bWdown B1 i0 l * (if S l then bWup B1 l j else 0))) x i)
    with (sum (bwidth B1) (fun l => sum d (fun j => bWdown B1 i l * (if S l then bWup B1 l j else 0) * x j)))
    by (unfold mv; symmetry; apply (dot_sum d (bwidth B1) (fun l j => bWdown B1 i l * (if S l then bWup B1 l j else 0)) x)).
  assert (E : forall l, (l < bwidth B1)%nat ->
            bWdown B1 i l * relu (mv d (bWup B1) x l + bup B1 l) =
            sum d (fun j => bWdown B1 i l * (if S l then bWup B1 l j else 0) * x j) +
            bWdown B1 i l * (if S l then bup B1 l else 0)).
  { intros l Hl. specialize (Hreg l Hl). destruct (S l).
    - rewrite relu_nonneg_id by exact Hreg. unfold mv.
      rewrite (sum_ext d (fun j => bWdown B1 i l * bWup B1 l j * x j) (fun j => bWdown B1 i l * (bWup B1 l j * x j))) by (intros; ring).
      rewrite sum_scal_l. ring.
    - rewrite relu_nonpos by exact Hreg. rewrite (sum_zero d) by (intros; ring). ring. }
  rewrite (sum_ext (bwidth B1) _ _ E), sum_plus. ring.
Qed.

(** On the region of its own pattern, block 1 is the affine piece [A_S x + a_S]. *)
Lemma block1_piece : forall d M1 B1 x i,
  rblock d M1 B1 x i =
  mv d (piece_lin d M1 B1 (pattern_of d B1 x)) x i + piece_const B1 (pattern_of d B1 x) i.
Proof.
  intros d M1 B1 x i. apply block1_piece_on. intros l Hl. unfold pattern_of.
  destruct (Rle_dec 0 (mv d (bWup B1) x l + bup B1 l)); lra.
Qed.

(** One certificate per activation pattern of block 1 and unit of block 2 proves that
    block 2 is dead on the image of block 1. *)
Theorem dead_on_image_of_certificates :
  forall (d : nat) (M1 : mat) (B1 B2 : blayer),
    (forall (S : nat -> bool) j, (j < bwidth B2)%nat ->
       bound_cert d M1 B1 B2 S j \/ empty_cert d B1 S) ->
    dead_on d M1 B1 B2.
Proof.
  intros d M1 B1 B2 Hcert x j Hj. set (S := pattern_of d B1 x).
  assert (Hreg : forall l, (l < bwidth B1)%nat -> mv d (region_rows B1 S) x l <= region_rhs B1 S l)
    by (intros l Hl; apply in_own_region; exact Hl).
  assert (E : mv d (bWup B2) (rblock d M1 B1 x) j + bup B2 j =
              dot d (cert_g d M1 B1 B2 S j) x + cert_h d B1 B2 S j).
  { unfold cert_g, cert_h. rewrite dot_transpose, mv_dot.
    rewrite (dot_ext d (bWup B2 j) (rblock d M1 B1 x)
               (fun i => mv d (piece_lin d M1 B1 S) x i + piece_const B1 S i))
      by (intros i Hi; apply block1_piece).
    unfold dot.
    rewrite (sum_ext d (fun i => bWup B2 j i * (mv d (piece_lin d M1 B1 S) x i + piece_const B1 S i))
               (fun i => bWup B2 j i * mv d (piece_lin d M1 B1 S) x i + bWup B2 j i * piece_const B1 S i))
      by (intros; ring).
    rewrite sum_plus. ring. }
  rewrite E. destruct (Hcert S j Hj) as [(lam & Hl & Hc & Hv)|(y & Hy & Hc & Hv)].
  - exact (farkas_sound d (bwidth B1) (region_rows B1 S) (region_rhs B1 S) _ _ lam Hl Hc Hv x Hreg).
  - exfalso. exact (farkas_empty d (bwidth B1) (region_rows B1 S) (region_rhs B1 S) y Hy Hc Hv x Hreg).
Qed.

(** ** [dead_on_image] is needed: the boundary instance [dead_block_fires]

    The fold [G_1(x) = x - relu(x)] on [R^2] (image: the closed negative quadrant)
    followed by the block [y -> y + (relu(y_1 + 1), 0)]: its unit fires at [G_1(0) = 0],
    so [F(0) = (1, 0)] while [M_2 G_1(0) + e_2 = 0]. *)
Definition fold_layer : blayer :=
  mk_blayer 2 (fun i l => - ident i l) ident (fun _ => 0) (fun _ => 0).
Definition firing_layer : blayer :=
  mk_blayer 1 (fun i _ => if Nat.eqb i 0 then 1 else 0) (fun _ j => if Nat.eqb j 0 then 1 else 0)
    (fun _ => 1) (fun _ => 0).

Lemma dead_block_affine_needs_dead_on_image :
  ~ (forall (d : nat) (res : list (mat * blayer)) (M1 M2 : mat) (B1 B2 : blayer),
       res = [(M1, B1); (M2, B2)] ->
       forall x i, bres_stack d res x i = mv d M2 (rblock d M1 B1 x) i + bdown B2 i).
Proof.
  intros H.
  pose proof (H 2%nat _ ident ident fold_layer firing_layer eq_refl (fun _ => 0) 0%nat) as E.
  rewrite bres_stack_two in E.
  unfold rblock, blayer_block, bblock, fold_layer, firing_layer, mv, ident, kron, relu in E.
  simpl in E. unfold Rmax in E.
  repeat match type of E with context [Rle_dec ?a ?b] => destruct (Rle_dec a b) end; lra.
Qed.

(** ** Instance of (a), stated with the standard library only

    [d = 1]: the first block [x -> x - relu(x)] takes values [y <= 0]; the second
    block [y -> 2 y + 3 relu(y - 1) + 4] never fires on them, so the stack is
    [2 y + 4]. *)
Lemma dead_block_affine_instance : forall x : R,
  let y := x - Rmax x 0 in
  2 * y + 3 * Rmax (y - 1) 0 + 4 = 2 * y + 4.
Proof.
  intros x y.
  set (B1 := mk_blayer 1 (fun _ _ => -1) (fun _ _ => 1) (fun _ => 0) (fun _ => 0)).
  set (B2 := mk_blayer 1 (fun _ _ => 3) (fun _ _ => 1) (fun _ => -1) (fun _ => 4)).
  assert (HG : forall z, rblock 1 (fun _ _ => 1) B1 (v1 z) 0%nat = z - Rmax z 0).
  { intros z. unfold rblock, blayer_block, bblock, B1, mv, v1, relu. simpl. tidy. ring. }
  assert (Hdead : forall z l, (l < bwidth B2)%nat ->
            mv 1 (bWup B2) (rblock 1 (fun _ _ => 1) B1 z) l + bup B2 l <= 0).
  { intros z l Hl. unfold B2, bWup, bup, mv. simpl. tidy.
    unfold rblock, blayer_block, bblock, B1, mv, relu. simpl. tidy.
    pose proof (Rmax_l (z 0%nat) 0). lra. }
  pose proof (dead_block_affine 1 _ (fun _ _ => 1) (fun _ _ => 2) B1 B2 eq_refl Hdead (v1 x) 0%nat) as E.
  rewrite bres_stack_two in E. unfold rblock at 1 in E.
  unfold blayer_block at 1, bblock in E. unfold B2 at 1 2 3 4 in E.
  unfold mv, relu in E. simpl in E. tidy. rewrite !HG in E.
  replace (0 + 1 * (x - Rmax x 0) + -1) with (y - 1) in E by (unfold y; ring).
  fold y in E. lra.
Qed.

(** ** (b) The explicit plain second layer

    Data: [r] rows [u_(idx k)] of [U_2] ([k < r]), vectors [Lv 0 .. Lv (n-1)]
    ([n = d - r]) with which they span [R^d], and coefficients [G] with
    [sum_k G_ik Fam_k = (M_2)_i] for the family [Fam = (u_(idx 0), ..., Lv 0, ...)]
    (the rows of [A^-1] of the informal proof, up to signs).  Units [0 .. r-1]:
    [relu(-u_(idx k) . y - c_(2,idx k))] with down column [-G_(., k)]; units
    [r .. r+n-1] and [r+n .. r+2n-1]: [relu(Lv_q . y)] and [relu(-Lv_q . y)] with down
    columns [G_(., r+q)] and [-G_(., r+q)]; the other units have zero rows, biases and
    down columns; the down bias is [e_2 - sum_k G_(., k) c_(2,idx k)]. *)
Definition dl_up (r n : nat) (idx : nat -> nat) (U : mat) (Lv : nat -> vec) : mat :=
  fun l j => if (l <? r)%nat then - U (idx l) j
             else if (l <? r + n)%nat then Lv (l - r)%nat j
             else if (l <? r + n + n)%nat then - Lv (l - r - n)%nat j else 0.
Definition dl_bup (r : nat) (idx : nat -> nat) (c : vec) : vec :=
  fun l => if (l <? r)%nat then - c (idx l) else 0.
Definition dl_down (r n : nat) (G : mat) : mat :=
  fun i l => if (l <? r)%nat then - G i l
             else if (l <? r + n)%nat then G i l
             else if (l <? r + n + n)%nat then - G i (l - n)%nat else 0.
Definition dl_bdown (r : nat) (idx : nat -> nat) (c : vec) (G : mat) (e : vec) : vec :=
  fun i => e i - sum r (fun k => G i k * c (idx k)).

Definition dead_second_layer (d r : nat) (idx : nat -> nat) (Lv : nat -> vec) (G : mat) (B2 : blayer) : blayer :=
  mk_blayer (bwidth B2) (dl_down r (d - r) G) (dl_up r (d - r) idx (bWup B2) Lv)
    (dl_bup r idx (bup B2)) (dl_bdown r idx (bup B2) G (bdown B2)).

Lemma ltb_true : forall a b, (a < b)%nat -> (a <? b)%nat = true.
Proof. intros. apply Nat.ltb_lt. exact H. Qed.
Lemma ltb_false : forall a b, (b <= a)%nat -> (a <? b)%nat = false.
Proof. intros. apply Nat.ltb_ge. exact H. Qed.

(** On every [y] where the chosen units of [U_2] do not fire, the layer is
    [y -> M_2 y + e_2]. *)
Lemma dead_second_layer_affine :
  forall (d m2 r : nat) (idx : nat -> nat) (Lv : nat -> vec) (G M2 U : mat) (c e y : vec) i,
    (r <= d)%nat -> (r + 2 * (d - r) <= m2)%nat -> (i < d)%nat ->
    (forall j, (j < d)%nat -> sum d (fun k => G i k * append r (fun k => U (idx k)) Lv k j) = M2 i j) ->
    (forall k, (k < r)%nat -> mv d U y (idx k) + c (idx k) <= 0) ->
    bblock d m2 relu (dl_down r (d - r) G) (dl_up r (d - r) idx U Lv) (dl_bup r idx c)
      (dl_bdown r idx c G e) y i = mv d M2 y i + e i.
Proof.
  intros d m2 r idx Lv G M2 U c e y i Hrd Hm Hi HG Hdead.
  set (n := (d - r)%nat). set (p := (m2 - (r + n + n))%nat).
  unfold bblock, dl_bdown.
  replace m2 with (r + (n + (n + p)))%nat by (unfold p, n; lia).
  rewrite sum_split, sum_split, sum_split.
  (* units 0 .. r-1: flipped dead rows *)
  rewrite (sum_ext r _ (fun k => G i k * (mv d U y (idx k) + c (idx k)))).
  2:{ intros k Hk. unfold dl_down, dl_up, dl_bup. rewrite !ltb_true by exact Hk.
      replace (mv d (fun l j => if (l <? r)%nat then - U (idx l) j
                               else if (l <? r + n)%nat then Lv (l - r)%nat j
                               else if (l <? r + n + n)%nat then - Lv (l - r - n)%nat j else 0) y k)
        with (- mv d U y (idx k)).
      2:{ unfold mv. rewrite <- sum_opp. apply sum_ext. intros j Hj. rewrite ltb_true by exact Hk. ring. }
      rewrite relu_nonneg_id by (specialize (Hdead k Hk); lra). ring. }
  (* units r .. r+n-1 *)
  rewrite (sum_ext n (fun q => dl_down r n G i (r + q)%nat *
      relu (mv d (dl_up r n idx U Lv) y (r + q)%nat + dl_bup r idx c (r + q)%nat))
    (fun q => G i (r + q)%nat * relu (mv d (fun q' j => Lv q' j) y q))).
  2:{ intros q Hq. unfold dl_down, dl_up, dl_bup.
      rewrite ltb_false by lia. rewrite ltb_true by lia. rewrite Rplus_0_r. f_equal. f_equal.
      unfold mv. apply sum_ext. intros j Hj. rewrite ltb_false by lia. rewrite ltb_true by lia.
      f_equal. f_equal. lia. }
  (* units r+n .. r+2n-1 *)
  rewrite (sum_ext n (fun q => dl_down r n G i (r + (n + q))%nat *
      relu (mv d (dl_up r n idx U Lv) y (r + (n + q))%nat + dl_bup r idx c (r + (n + q))%nat))
    (fun q => - G i (r + q)%nat * relu (- mv d (fun q' j => Lv q' j) y q))).
  2:{ intros q Hq. unfold dl_down, dl_up, dl_bup.
      rewrite !ltb_false by lia. rewrite ltb_true by lia. rewrite Rplus_0_r.
      replace (r + (n + q) - n)%nat with (r + q)%nat by lia. f_equal. f_equal.
      unfold mv. rewrite <- sum_opp. apply sum_ext. intros j Hj.
      rewrite !ltb_false by lia. rewrite ltb_true by lia.
      replace (r + (n + q) - r - n)%nat with q by lia. ring. }
  (* the padding units *)
  rewrite (sum_zero p).
  2:{ intros q Hq. unfold dl_down. rewrite !ltb_false by lia. ring. }
  (* the linear part: [(M_2 y)_i = sum_k G_ik (Fam_k . y)] *)
  set (Fam := append r (fun k => U (idx k)) Lv).
  assert (HM : mv d M2 y i = sum d (fun k => G i k * mv d (fun k' j => Fam k' j) y k)).
  { unfold mv.
    rewrite (sum_ext d (fun j => M2 i j * y j) (fun j => sum d (fun k => G i k * Fam k j * y j)))
      by (intros j Hj; rewrite <- (HG j Hj), <- sum_scal_r; reflexivity).
    rewrite sum_swap. apply sum_ext. intros k Hk. rewrite <- sum_scal_l. apply sum_ext. intros; ring. }
  rewrite HM.
  replace d with (r + n)%nat at 1 by (unfold n; lia).
  rewrite sum_split.
  rewrite (sum_ext r (fun k => G i k * mv d (fun k' j => Fam k' j) y k)
             (fun k => G i k * mv d U y (idx k))).
  2:{ intros k Hk. unfold Fam, append, mv. rewrite ltb_true by exact Hk. reflexivity. }
  rewrite (sum_ext n (fun q => G i (r + q)%nat * mv d (fun k' j => Fam k' j) y (r + q)%nat)
             (fun q => G i (r + q)%nat * mv d (fun q' j => Lv q' j) y q)).
  2:{ intros q Hq. unfold Fam, append, mv. rewrite ltb_false by lia.
      replace (r + q - r)%nat with q by lia. reflexivity. }
  assert (Hpairs : sum n (fun q => G i (r + q)%nat * relu (mv d (fun q' j => Lv q' j) y q)) +
                   sum n (fun q => - G i (r + q)%nat * relu (- mv d (fun q' j => Lv q' j) y q)) =
                   sum n (fun q => G i (r + q)%nat * mv d (fun q' j => Lv q' j) y q)).
  { rewrite <- sum_plus. apply sum_ext. intros q Hq.
    pose proof (relu_odd_part (mv d (fun q' j => Lv q' j) y q)).
    replace (relu (- mv d (fun q' j => Lv q' j) y q))
      with (relu (mv d (fun q' j => Lv q' j) y q) - mv d (fun q' j => Lv q' j) y q) by lra.
    ring. }
  rewrite (sum_ext r (fun k => G i k * (mv d U y (idx k) + c (idx k)))
             (fun k => G i k * mv d U y (idx k) + G i k * c (idx k))) by (intros; ring).
  rewrite sum_plus. lra.
Qed.

Lemma bplain_stack_two : forall d P1 P2 x i,
  bplain_stack d [P1; P2] x i = blayer_block d relu P2 (blayer_block d relu P1 x) i.
Proof. intros. reflexivity. Qed.

(** (b) with the data of the construction given: the plain stack [(P_1, P_2)], [P_2]
    the explicit layer above, equals [G_2 o G_1]. *)
Theorem dead_block_plain_explicit :
  forall (d : nat) (res : list (mat * blayer)) (M1 M2 : mat) (B1 B2 P1 : blayer)
         (r : nat) (idx : nat -> nat) (Lv : nat -> vec) (G : mat)
         (two_blocks : res = [(M1, B1); (M2, B2)])
         (dead_on_image : forall x l, (l < bwidth B2)%nat ->
                            mv d (bWup B2) (rblock d M1 B1 x) l + bup B2 l <= 0)
         (first_plain : forall x i, (i < d)%nat -> blayer_block d relu P1 x i = rblock d M1 B1 x i)
         (r_le_d : (r <= d)%nat)
         (width_2 : (r + 2 * (d - r) <= bwidth B2)%nat)
         (idx_rows : forall k, (k < r)%nat -> (idx k < bwidth B2)%nat)
         (G_coefficients : forall i j, (i < d)%nat -> (j < d)%nat ->
            sum d (fun k => G i k * append r (fun k => bWup B2 (idx k)) Lv k j) = M2 i j),
  forall x i, (i < d)%nat ->
    bplain_stack d [P1; dead_second_layer d r idx Lv G B2] x i = bres_stack d res x i.
Proof.
  intros d res M1 M2 B1 B2 P1 r idx Lv G two_blocks dead_on_image first_plain r_le_d width_2
    idx_rows G_coefficients x i Hi.
  rewrite (dead_block_affine d res M1 M2 B1 B2 two_blocks dead_on_image x i).
  rewrite bplain_stack_two. unfold blayer_block at 1, dead_second_layer. simpl.
  rewrite (dead_second_layer_affine d (bwidth B2) r idx Lv G M2 (bWup B2) (bup B2) (bdown B2)
             (blayer_block d relu P1 x) i r_le_d width_2 Hi (fun j Hj => G_coefficients i j Hi Hj)).
  - f_equal. apply mv_ext. intros j Hj. apply first_plain. exact Hj.
  - intros k Hk. rewrite (mv_ext d (bWup B2) (blayer_block d relu P1 x) (rblock d M1 B1 x))
      by (intros j Hj; apply first_plain; exact Hj).
    apply dead_on_image. apply idx_rows. exact Hk.
Qed.

(** (b): if [G_1] equals a plain biased block [P_1] on [R^d] and [2d - rank U_2 <= m_2],
    some plain layer [P_2] of width [m_2] (the explicit [dead_second_layer], built from
    [r] independent rows of [U_2], a completion to a spanning family and the
    coefficients of [M_2] in it) makes the plain stack [(P_1, P_2)] equal to [G_2 o G_1]. *)
Theorem dead_block_plain :
  forall (d : nat) (res : list (mat * blayer)) (M1 M2 : mat) (B1 B2 P1 : blayer) (r : nat)
         (two_blocks : res = [(M1, B1); (M2, B2)])
         (dead_on_image : forall x l, (l < bwidth B2)%nat ->
                            mv d (bWup B2) (rblock d M1 B1 x) l + bup B2 l <= 0)
         (first_plain : forall x i, (i < d)%nat -> blayer_block d relu P1 x i = rblock d M1 B1 x i)
         (rank_U2 : row_rank d (bwidth B2) (bWup B2) r)
         (width_2 : (2 * d - r <= bwidth B2)%nat),
  exists (idx : nat -> nat) (Lv : nat -> vec) (G : mat),
    bwidth (dead_second_layer d r idx Lv G B2) = bwidth B2 /\
    forall x i, (i < d)%nat ->
      bplain_stack d [P1; dead_second_layer d r idx Lv G B2] x i = bres_stack d res x i.
Proof.
  intros d res M1 M2 B1 B2 P1 r two_blocks dead_on_image first_plain rank_U2 width_2.
  destruct rank_U2 as (idx & Hidx & Hind & _).
  destruct (basis_completion d r (fun k => bWup B2 (idx k)) Hind) as (Hrd & Lv & Hspan).
  destruct (finite_choice vec (fun _ => 0) (fun i g => forall j, (j < d)%nat ->
              sum d (fun k => g k * append r (fun k => bWup B2 (idx k)) Lv k j) = M2 i j) d) as (G & HG).
  { intros i Hi. exact (Hspan (fun j => M2 i j)). }
  exists idx, Lv, (fun i k => G i k). split; [reflexivity|].
  apply (dead_block_plain_explicit d res M1 M2 B1 B2 P1 r idx Lv (fun i k => G i k) two_blocks
           dead_on_image first_plain Hrd ltac:(lia) Hidx).
  intros i j Hi Hj. exact (HG i Hi j Hj).
Qed.

(** ** (c) No plain stack with a narrow layer

    On an open part of the region of a pattern [D] of block 1, [F = M_2 G_1 + e_2] is
    affine with the invertible linear part [N = M_2 (M_1 + W_1 D U_1)].  The values of a
    biased plain stack after a layer of width [k < d] lie in [e + range W], and each
    later layer is affine on the inputs of one activation pattern, so for every value
    [v] of the stack one of finitely many pairs [(a, beta)], [a <> 0], has
    [a . v = beta].  Pulled back through [N] these are finitely many affine hyperplanes,
    which miss some point of every ball. *)

(** A point of [(0, delta)] outside a finite list of reals. *)
Lemma point_off_list : forall (L : list R) (delta : R), 0 < delta ->
  exists t, 0 < t < delta /\ forall l, In l L -> t <> l.
Proof.
  induction L as [|l0 L IH]; intros delta Hd.
  - exists (delta / 2). split; [lra|]. intros l [].
  - destruct (Rlt_dec 0 l0) as [Hl0|Hl0].
    + destruct (IH (Rmin delta l0) ltac:(apply Rmin_glb_lt; lra)) as (t & Ht & Hav).
      pose proof (Rmin_l delta l0). pose proof (Rmin_r delta l0).
      exists t. split; [lra|]. intros l [<-|Hl]; [lra|apply Hav; exact Hl].
    + destruct (IH delta Hd) as (t & Ht & Hav).
      exists t. split; [lra|]. intros l [<-|Hl]; [lra|apply Hav; exact Hl].
Qed.

Lemma norm1_scale_nonneg : forall d t (v : vec), 0 <= t -> norm1 d (fun j => t * v j) = t * norm1 d v.
Proof.
  intros d t v Ht. unfold norm1. rewrite <- sum_scal_l. apply sum_ext. intros j _.
  rewrite Rabs_mult, (Rabs_right t) by lra. reflexivity.
Qed.

(** Finitely many affine hyperplanes [{x : a . x = beta}], [a <> 0], miss some point of
    every ball. *)
Theorem affine_hyperplanes_miss_ball : forall d (H : list (vec * R)) (x0 : vec) (eps : R),
  0 < eps -> (forall p, In p H -> nonzero_vec d (fst p)) ->
  exists x, norm1 d (fun j => x j - x0 j) < eps /\ forall p, In p H -> dot d (fst p) x <> snd p.
Proof.
  intros d H x0 eps Heps Hnz.
  destruct (hyperplanes_do_not_cover d (map fst H)) as (v & Hv).
  { intros c Hc. apply in_map_iff in Hc. destruct Hc as (p & <- & Hp). apply Hnz. exact Hp. }
  pose proof (norm1_nonneg d v) as Hn.
  destruct (point_off_list (map (fun p => (snd p - dot d (fst p) x0) / dot d (fst p) v) H)
              (eps / (norm1 d v + 1)) ltac:(apply Rdiv_lt_0_compat; lra)) as (t & Ht & Hav).
  exists (fun j => x0 j + t * v j). split.
  - rewrite (norm1_ext d _ (fun j => t * v j)) by (intros; ring).
    rewrite norm1_scale_nonneg by lra.
    assert (t * (norm1 d v + 1) < eps / (norm1 d v + 1) * (norm1 d v + 1))
      by (apply Rmult_lt_compat_r; lra).
    replace (eps / (norm1 d v + 1) * (norm1 d v + 1)) with eps in H0 by (field; lra). nra.
  - intros p Hp E. rewrite dot_axpy in E.
    assert (Hcv : dot d (fst p) v <> 0) by (apply Hv; apply in_map; exact Hp).
    apply (Hav ((snd p - dot d (fst p) x0) / dot d (fst p) v)).
    + apply (in_map (fun p => (snd p - dot d (fst p) x0) / dot d (fst p) v)). exact Hp.
    + rewrite <- E. field. exact Hcv.
Qed.

(** A biased plain stack reads only the coordinates [0 .. d-1] of its input. *)
Lemma bplain_local : forall d (Ps : list blayer) (x y : vec),
  (forall j, (j < d)%nat -> x j = y j) ->
  forall i, (i < d)%nat -> plain_comp (map (blayer_block d relu) Ps) x i = plain_comp (map (blayer_block d relu) Ps) y i.
Proof.
  intros d Ps. induction Ps as [|Q Ps IH]; intros x y Hxy i Hi; simpl; [apply Hxy; exact Hi|].
  apply IH; [|exact Hi]. intros j _. unfold blayer_block, bblock. f_equal. apply sum_ext.
  intros l _. f_equal. f_equal. f_equal. apply mv_ext. exact Hxy.
Qed.

(** One biased layer on the inputs [G h + e] of one activation pattern [S]: [GS h + eS]. *)
Definition pat_lin (d k : nat) (Q : blayer) (G : mat) (S : nat -> bool) : mat :=
  fun i j => sum (bwidth Q) (fun l => if S l then bWdown Q i l * sum d (fun t => bWup Q l t * G t j) else 0).
Definition pat_const (d : nat) (Q : blayer) (e : vec) (S : nat -> bool) : vec :=
  fun i => sum (bwidth Q) (fun l => if S l then bWdown Q i l * (mv d (bWup Q) e l + bup Q l) else 0) + bdown Q i.

Lemma layer_on_pattern : forall d k (Q : blayer) (G : mat) (e h : vec) (S : nat -> bool) i,
  (forall l, (l < bwidth Q)%nat ->
     if S l then 0 <= mv d (bWup Q) (fun t => mv k G h t + e t) l + bup Q l
     else mv d (bWup Q) (fun t => mv k G h t + e t) l + bup Q l <= 0) ->
  blayer_block d relu Q (fun t => mv k G h t + e t) i = mv k (pat_lin d k Q G S) h i + pat_const d Q e S i.
Proof.
  intros d k Q G e h S i HS. unfold blayer_block, bblock, pat_lin, pat_const.
  replace (mv k (fun i0 j => sum (bwidth Q) (fun l => if S l then bWdown Q i0 l * sum d (fun t => bWup Q l t * G t j) else 0)) h i)
    with (sum (bwidth Q) (fun l => sum k (fun j => (if S l then bWdown Q i l * sum d (fun t => bWup Q l t * G t j) else 0) * h j)))
    by (unfold mv; symmetry; apply (dot_sum k (bwidth Q) (fun l j => if S l then bWdown Q i l * sum d (fun t => bWup Q l t * G t j) else 0) h)).
  assert (E : forall l, (l < bwidth Q)%nat ->
            bWdown Q i l * relu (mv d (bWup Q) (fun t => mv k G h t + e t) l + bup Q l) =
            sum k (fun j => (if S l then bWdown Q i l * sum d (fun t => bWup Q l t * G t j) else 0) * h j) +
            (if S l then bWdown Q i l * (mv d (bWup Q) e l + bup Q l) else 0)).
  { intros l Hl. specialize (HS l Hl). destruct (S l).
    - rewrite relu_nonneg_id by exact HS. rewrite mv_plus, mv_mv.
      unfold mv at 1.
      rewrite (sum_ext k (fun j => bWdown Q i l * sum d (fun t => bWup Q l t * G t j) * h j)
                 (fun j => bWdown Q i l * (sum d (fun t => bWup Q l t * G t j) * h j))) by (intros; ring).
      rewrite sum_scal_l. ring.
    - rewrite relu_nonpos by exact HS. rewrite (sum_zero k) by (intros; ring). ring. }
  rewrite (sum_ext (bwidth Q) _ _ E), sum_plus. ring.
Qed.

(** Finite lists of items with a property, one per member of a list, collected. *)
Lemma list_union_gen : forall (A : Type) (l : list (nat -> bool)) (Nz : A -> Prop)
                              (Q : (nat -> bool) -> list A -> Prop),
  (forall S, In S l -> exists cs, (forall c, In c cs -> Nz c) /\ Q S cs) ->
  exists css, (forall c, In c css -> Nz c) /\ forall S, In S l -> exists cs, Q S cs /\ incl cs css.
Proof.
  intros A. induction l as [|S0 l IH]; intros Nz Q H.
  - exists []. split; [intros c []|intros S []].
  - destruct (H S0 (or_introl eq_refl)) as (cs0 & Hnz0 & HQ0).
    destruct (IH Nz Q) as (css & Hnz & HQ); [intros S HS; apply H; right; exact HS|].
    exists (cs0 ++ css). split.
    + intros c Hc. apply in_app_or in Hc. destruct Hc; [apply Hnz0|apply Hnz]; assumption.
    + intros S [<-|HS].
      * exists cs0. split; [exact HQ0|]. apply incl_appl, incl_refl.
      * destruct (HQ S HS) as (cs & HQS & Hincl). exists cs. split; [exact HQS|].
        apply incl_appr. exact Hincl.
Qed.

(** The values of the biased plain layers [post] on the affine set [{G h + e}] of
    dimension [<= k < d]: each lies on one of finitely many affine hyperplanes. *)
Lemma bplain_image_covectors : forall d (post : list blayer) k (G : mat) (e : vec), (k < d)%nat ->
  exists H : list (vec * R), (forall p, In p H -> nonzero_vec d (fst p)) /\
    forall h : vec, exists p, In p H /\
      dot d (fst p) (plain_comp (map (blayer_block d relu) post) (fun t => mv k G h t + e t)) = snd p.
Proof.
  intros d post. induction post as [|Q post IH]; intros k G e Hk.
  - destruct (left_kernel_of_narrow d k G Hk) as (a & Hnz & Hker).
    exists [(a, dot d a e)]. split; [intros p [<-|[]]; exact Hnz|].
    intros h. exists (a, dot d a e). split; [left; reflexivity|]. simpl.
    unfold dot. rewrite (sum_ext d (fun j => a j * (mv k G h j + e j))
                           (fun j => a j * mv k G h j + a j * e j)) by (intros; ring).
    rewrite sum_plus. unfold mv.
    rewrite (sum_ext d _ (fun i => sum k (fun l => a i * G i l * h l)))
      by (intros; rewrite <- sum_scal_l; apply sum_ext; intros; ring).
    rewrite sum_swap. rewrite (sum_zero k). 1: ring.
    intros l Hl. rewrite sum_scal_r, (Hker l Hl). ring.
  - destruct (list_union_gen (vec * R) (all_subsets (bwidth Q)) (fun p => nonzero_vec d (fst p))
                (fun S H => forall h : vec, exists p, In p H /\
                   dot d (fst p) (plain_comp (map (blayer_block d relu) post)
                                    (fun t => mv k (pat_lin d k Q G S) h t + pat_const d Q e S t)) = snd p))
      as (H & Hnz & HQ).
    { intros S _. destruct (IH k (pat_lin d k Q G S) (pat_const d Q e S) Hk) as (H & Hnz & Hh).
      exists H. split; assumption. }
    exists H. split; [exact Hnz|]. intros h.
    set (S0 := fun l => if Rle_dec 0 (mv d (bWup Q) (fun t => mv k G h t + e t) l + bup Q l)
                        then true else false).
    destruct (all_subsets_complete (bwidth Q) S0) as (S & HS & Hag).
    destruct (HQ S HS) as (cs & Hcs & Hincl). destruct (Hcs h) as (p & Hp & Hdot).
    exists p. split; [apply Hincl; exact Hp|]. rewrite <- Hdot. simpl.
    apply dot_ext. apply bplain_local. intros i Hi.
    apply layer_on_pattern. intros l Hl. rewrite (Hag l Hl). unfold S0.
    destruct (Rle_dec 0 (mv d (bWup Q) (fun t => mv k G h t + e t) l + bup Q l)); lra.
Qed.

(** (c): if the closed region of some activation pattern [D] of block 1 contains a ball
    ([region_open]) and [M_2 (M_1 + W_1 D U_1)] is invertible, [G_2 o G_1] equals no
    biased plain relu stack, of any depth, one of whose widths is [< d]. *)
Theorem dead_block_no_narrow_plain :
  forall (d : nat) (res : list (mat * blayer)) (M1 M2 : mat) (B1 B2 : blayer)
         (D : nat -> bool) (plains : list blayer)
         (two_blocks : res = [(M1, B1); (M2, B2)])
         (dead_on_image : forall x l, (l < bwidth B2)%nat ->
                            mv d (bWup B2) (rblock d M1 B1 x) l + bup B2 l <= 0)
         (region_open : exists (x0 : vec) (eps : R), 0 < eps /\
                          forall x, norm1 d (fun j => x j - x0 j) < eps -> in_region d B1 D x)
         (piece_invertible : trivial_kernel d (matmul d M2 (piece_lin d M1 B1 D)))
         (narrow_width : Exists (fun P => (bwidth P < d)%nat) plains),
  ~ (forall x i, (i < d)%nat -> bres_stack d res x i = bplain_stack d plains x i).
Proof.
  intros d res M1 M2 B1 B2 D plains two_blocks dead_on_image (x0 & eps & Heps & Hball)
    piece_invertible narrow_width Heq.
  apply Exists_exists in narrow_width. destruct narrow_width as (Pn & Hin & Hk).
  apply in_split in Hin. destruct Hin as (pre & post & ->).
  destruct (bplain_image_covectors d post (bwidth Pn) (bWdown Pn) (bdown Pn) Hk) as (H & Hnz & Hcov).
  set (N := matmul d M2 (piece_lin d M1 B1 D)).
  set (n0 := fun i => mv d M2 (piece_const B1 D) i + bdown B2 i).
  destruct (affine_hyperplanes_miss_ball d
              (map (fun p => (transpose_mv d N (fst p), snd p - dot d (fst p) n0)) H) x0 eps Heps)
    as (x & Hx & Hmiss).
  { intros q Hq. apply in_map_iff in Hq. destruct Hq as (p & <- & Hp). simpl.
    apply transpose_nonzero; [exact piece_invertible|apply Hnz; exact Hp]. }
  set (z := plain_comp (map (blayer_block d relu) pre) x).
  destruct (Hcov (fun l => relu (mv d (bWup Pn) z l + bup Pn l))) as (p & Hp & Hdot).
  apply (Hmiss (transpose_mv d N (fst p), snd p - dot d (fst p) n0)).
  { apply (in_map (fun p0 => (transpose_mv d N (fst p0), snd p0 - dot d (fst p0) n0))). exact Hp. }
  simpl. rewrite dot_transpose.
  assert (HF : forall i, (i < d)%nat -> mv d N x i + n0 i =
                 plain_comp (map (blayer_block d relu) post)
                   (fun t => mv (bwidth Pn) (bWdown Pn) (fun l => relu (mv d (bWup Pn) z l + bup Pn l)) t
                             + bdown Pn t) i).
  { intros i Hi. unfold N, n0. rewrite mv_matmul.
    rewrite <- Rplus_assoc, <- mv_plus.
    rewrite (mv_ext d M2 _ (rblock d M1 B1 x)).
    2:{ intros j Hj. symmetry. apply block1_piece_on. apply Hball. exact Hx. }
    rewrite <- (dead_block_affine d res M1 M2 B1 B2 two_blocks dead_on_image x i).
    rewrite (Heq x i Hi). unfold bplain_stack. rewrite map_app, plain_comp_app. simpl.
    reflexivity. }
  rewrite (dot_ext d (fst p) (mv d N x) (fun i => (mv d N x i + n0 i) - n0 i)) by (intros; ring).
  unfold dot at 1. rewrite (sum_ext d (fun j => fst p j * (mv d N x j + n0 j - n0 j))
                              (fun j => fst p j * (mv d N x j + n0 j) - fst p j * n0 j)) by (intros; ring).
  rewrite sum_minus. fold (dot d (fst p) (fun j => mv d N x j + n0 j)). fold (dot d (fst p) n0).
  rewrite (dot_ext d (fst p) _ _ HF). rewrite Hdot. reflexivity.
Qed.
