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
  Necessity DepthD1.
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

(** ** Scalar facts: one unit near a point, and its second difference *)

Lemma relu_near : forall a e, a <> 0 -> Rabs e < Rabs a ->
  relu (a + e) = if Rle_dec a 0 then 0 else a + e.
Proof.
  intros a e Ha He. unfold relu, Rmax.
  destruct (Rle_dec a 0), (Rle_dec (a + e) 0); unfold Rabs in He;
    repeat match goal with _ : context [Rcase_abs ?z] |- _ => destruct (Rcase_abs z) end; lra.
Qed.

Lemma small_mult : forall a b s t, a <> 0 -> 0 < t -> t <= step_bound a b -> Rabs s <= t ->
  Rabs (s * b) < Rabs a.
Proof.
  intros a b s t Ha Ht Hle Hs. destruct (Req_dec s 0) as [->|Hs0].
  - rewrite Rmult_0_l, Rabs_R0. apply Rabs_pos_lt. exact Ha.
  - pose proof (step_bound_small a b (Rabs s) (Rabs_pos_lt s Hs0) ltac:(lra) Ha) as K.
    rewrite Rabs_mult, Rabs_Rabsolu in K. rewrite Rabs_mult. exact K.
Qed.

Lemma relu_second : forall a b t, 0 < t -> t <= step_bound a b ->
  relu (a + t * b) + relu (a + - t * b) - 2 * relu (a + 0 * b) =
  t * (if Req_EM_T a 0 then Rabs b else 0).
Proof.
  intros a b t Ht Hle.
  assert (E : forall z, relu z = z / 2 + Rabs z / 2).
  { intros z. unfold relu, Rmax, Rabs. destruct (Rle_dec z 0), (Rcase_abs z); lra. }
  replace (a + 0 * b) with a by ring.
  rewrite !E. pose proof (second_difference a b (1/2) t Ht Hle) as K.
  destruct (Req_EM_T a 0); lra.
Qed.

(** ** Continuity along a line *)

Definition vcont (v : R -> vec) : Prop := forall j, continuity (fun s => v s j).

Lemma cont_sum : forall n (f : nat -> R -> R), (forall k, continuity (f k)) ->
  continuity (fun s => sum n (fun k => f k s)).
Proof.
  induction n as [|n IH]; intros f Hf; simpl.
  - apply cont_const.
  - apply cont_plus; [apply IH; exact Hf|apply Hf].
Qed.

Lemma cont_scal : forall c g, continuity g -> continuity (fun s => c * g s).
Proof.
  intros c g Hg. apply (cont_ext (fun s => c * g s + 0)); [intros; ring|]. apply cont_lin. exact Hg.
Qed.

Lemma vcont_line : forall x y : vec, vcont (fun s j => x j + s * y j).
Proof.
  intros x y j. apply (cont_ext (fun s => y j * s + x j)); [intros; ring|].
  apply cont_lin. intros s0. apply derivable_continuous_pt. apply derivable_pt_id.
Qed.

Lemma vcont_mv : forall n A v, vcont v -> vcont (fun s => mv n A (v s)).
Proof.
  intros n A v Hv i. unfold mv. apply cont_sum. intros j. apply cont_scal. apply Hv.
Qed.

Lemma vcont_block : forall d m Wd Wu v, vcont v -> vcont (fun s => block d m relu Wd Wu (v s)).
Proof.
  intros d m Wd Wu v Hv i. unfold block, readout. apply cont_sum. intros l. apply cont_scal.
  apply cont_relu. apply (vcont_mv d Wu v Hv l).
Qed.

Lemma vcont_res_one : forall d L v, vcont v -> vcont (fun s => res_one d L (v s)).
Proof.
  intros d L v Hv i. unfold res_one. apply cont_plus; [apply Hv|]. apply (vcont_block d _ _ _ v Hv i).
Qed.

(** ** Finitely many bad values *)

Lemma avoid_reals : forall (l : list R) del, 0 < del ->
  exists s, 0 < s < del /\ forall r, In r l -> s <> r.
Proof.
  induction l as [|r0 l IH]; intros del Hd.
  - exists (del / 2). split; [lra|intros r []].
  - destruct (Rlt_dec 0 r0) as [H0|H0]; [destruct (Rlt_dec r0 del) as [H1|H1]|].
    + destruct (IH r0 H0) as (s & Hs & Hl). exists s. split; [lra|].
      intros r [<-|Hr]; [lra|auto].
    + destruct (IH del Hd) as (s & Hs & Hl). exists s. split; [lra|].
      intros r [<-|Hr]; [lra|auto].
    + destruct (IH del Hd) as (s & Hs & Hl). exists s. split; [lra|].
      intros r [<-|Hr]; [lra|auto].
Qed.

(** A continuous [f] with [f 0 > 0] stays positive at some [s] that avoids
    the zeros of finitely many nonconstant affine functions [a + s b]. *)
Lemma generic_step : forall (f : R -> R) (ab : list (R * R)),
  continuity f -> 0 < f 0 -> (forall p, In p ab -> snd p <> 0) ->
  exists s, 0 < f s /\ forall p, In p ab -> fst p + s * snd p <> 0.
Proof.
  intros f ab Hf Hpos Hnz.
  destruct (Hf 0 (f 0) Hpos) as (del & Hdel & Hnear).
  destruct (avoid_reals (map (fun p => - fst p / snd p) ab) del Hdel) as (s & Hs & Hav).
  exists s. split.
  - assert (K : R_dist (f s) (f 0) < f 0).
    { apply Hnear. split; [split; [exact I|lra]|]. simpl. unfold R_dist.
      rewrite Rminus_0_r, Rabs_pos_eq; lra. }
    unfold R_dist in K. apply Rabs_def2 in K. lra.
  - intros p Hp E. pose proof (Hnz p Hp) as Hn. apply (Hav (- fst p / snd p)).
    + apply (in_map (fun p => - fst p / snd p)). exact Hp.
    + unfold Rdiv. apply (Rmult_eq_reg_r (snd p)); [|exact Hn].
      rewrite Rmult_assoc, Rinv_l by exact Hn. lra.
Qed.

(** ** Step 1: the last plain layer of a plain stack equal to [F] is linear

    If a unit [k] of the second plain layer (width [d]) were off at [x0]
    ([z_k(x0) < 0]), then wherever [z_k <= 0] the values of the plain stack
    avoid column [k] of [W'_2], so one nonzero covector [a] kills them; pulled
    back through the pieces of [F], finitely many hyperplanes would contain
    every such [x].  By continuity [z_k < 0] on a segment from [x0], whose
    points avoid those hyperplanes except at finitely many places. *)


Lemma layer_block_ext : forall d sigma L x y i, (forall j, (j < d)%nat -> x j = y j) ->
  layer_block d sigma L x i = layer_block d sigma L y i.
Proof.
  intros. unfold layer_block, block, readout. apply sum_ext. intros l _.
  f_equal. f_equal. apply mv_ext. exact H.
Qed.

Lemma last_plain_layer_active :
  forall d (L1 L2 P1 P2 : layer), (0 < d)%nat ->
  Forall (layer_pieces_invertible d) [L1; L2] -> width P2 = d ->
  (forall x i, (i < d)%nat -> res_comp_id (map (layer_block d relu) [L1; L2]) x i =
                             plain_comp (map (layer_block d relu) [P1; P2]) x i) ->
  forall x k, (k < d)%nat -> 0 <= mv d (Wup P2) (layer_block d relu P1 x) k.
Proof.
  intros d L1 L2 P1 P2 Hd Hinv Hw Heq x0 k Hk.
  destruct (Rle_dec 0 (mv d (Wup P2) (layer_block d relu P1 x0) k)) as [H|Hneg]; [exact H|exfalso].
  destruct d as [|d']; [lia|].
  destruct (left_kernel_of_narrow (S d') d' (fun i l => Wdown P2 i (skip k l)) ltac:(lia))
    as (a & Ha & Hker).
  assert (Hzero : forall x, mv (S d') (Wup P2) (layer_block (S d') relu P1 x) k <= 0 ->
            exists a', In a' [a] /\
              dot (S d') a' (res_comp_id (map (layer_block (S d') relu) [L1; L2]) x) = 0).
  { intros x Hx. exists a. split; [left; reflexivity|].
    rewrite (dot_ext _ a _ (plain_comp (map (layer_block (S d') relu) [P1; P2]) x))
      by (intros; apply Heq; assumption).
    simpl. unfold layer_block at 1, block. rewrite dot_readout, Hw.
    rewrite (sum_skip d' k) by lia.
    rewrite (relu_nonpos _ Hx).
    assert (Ht : forall f : nat -> R, (forall l, (l < d')%nat -> f l = 0) -> sum d' f = 0)
      by (intros; apply sum_zero; assumption).
    rewrite Ht; [ring|]. intros l Hl. rewrite (Hker l Hl). ring. }
  destruct (residual_pullback (S d') [L1; L2] Hinv [a]) as (H' & Hnz' & Hpull).
  { intros c [<-|[]]. exact Ha. }
  destruct (hyperplanes_do_not_cover (S d') H' Hnz') as (y & Hy).
  destruct (generic_step
              (fun s => - mv (S d') (Wup P2) (layer_block (S d') relu P1 (fun j => x0 j + s * y j)) k)
              (map (fun c => (dot (S d') c x0, dot (S d') c y)) H')) as (s & Hs & Hav).
  - apply (cont_ext (fun s => -1 * mv (S d') (Wup P2)
                                  (layer_block (S d') relu P1 (fun j => x0 j + s * y j)) k));
      [intros; ring|].
    apply cont_scal. exact (vcont_mv _ _ _ (vcont_block _ _ _ _ _ (vcont_line x0 y)) k).
  - rewrite (mv_ext _ _ _ (layer_block (S d') relu P1 x0)); [lra|].
    intros j _. apply layer_block_ext. intros; ring.
  - intros p Hp. apply in_map_iff in Hp. destruct Hp as (c & <- & Hc). simpl. exact (Hy c Hc).
  - destruct (Hpull (fun j => x0 j + s * y j)) as (c & Hc & Hcx).
    + apply Hzero. lra.
    + apply (Hav (dot (S d') c x0, dot (S d') c y)).
      * apply (in_map (fun c => (dot (S d') c x0, dot (S d') c y))). exact Hc.
      * simpl. rewrite <- dot_axpy. exact Hcx.
Qed.

(** The plain stack of widths [(m'_1, d)] is then one plain block of width
    [m'_1]: [x -> W'_2 V_2 W'_1 relu(V_1 x)]. *)
Definition merged (d : nat) (P1 P2 : layer) : layer :=
  mk_layer (width P1) (left_mul d (Wdown P2) (left_mul d (Wup P2) (Wdown P1))) (Wup P1).

Lemma plain_two_is_one :
  forall d (L1 L2 P1 P2 : layer), (0 < d)%nat ->
  Forall (layer_pieces_invertible d) [L1; L2] -> width P2 = d ->
  (forall x i, (i < d)%nat -> res_comp_id (map (layer_block d relu) [L1; L2]) x i =
                             plain_comp (map (layer_block d relu) [P1; P2]) x i) ->
  forall x i, (i < d)%nat -> res_comp_id (map (layer_block d relu) [L1; L2]) x i =
                            layer_block d relu (merged d P1 P2) x i.
Proof.
  intros d L1 L2 P1 P2 Hd Hinv Hw Heq x i Hi.
  rewrite (Heq x i Hi). simpl. unfold layer_block at 1, block, readout. rewrite Hw.
  rewrite (sum_ext d _ (fun l => Wdown P2 i l * mv d (Wup P2) (layer_block d relu P1 x) l)).
  2:{ intros l Hl. rewrite relu_nonneg_id; [reflexivity|].
      exact (last_plain_layer_active d L1 L2 P1 P2 Hd Hinv Hw Heq x l Hl). }
  change (sum d (fun l => Wdown P2 i l * mv d (Wup P2) (layer_block d relu P1 x) l))
    with (mv d (Wdown P2) (mv d (Wup P2) (layer_block d relu P1 x)) i).
  rewrite (mv_ext d (Wdown P2) _ (block d (width P1) relu (left_mul d (Wup P2) (Wdown P1)) (Wup P1) x))
    by (intros; unfold layer_block; apply mv_block_left).
  rewrite mv_block_left. reflexivity.
Qed.

(** ** Steps 2 and 3: every layer-1 hyperplane is a kink of [F], hence of [Q]

    The hypothesis [kinks_transversal] of the claim: no
    [(I + W_1 D U_1)^T u2_j] is parallel to a row [u1_i] with [i] not in [D]. *)
Definition kinks_transversal_cond (d : nat) (L1 L2 : layer) : Prop :=
  forall i j (D : nat -> bool), (i < width L1)%nat -> (j < width L2)%nat -> D i = false ->
    ~ (exists c, forall k, (k < d)%nat ->
         transpose_mv d (piece d (width L1) D (Wdown L1) (Wup L1)) (Wup L2 j) k = c * Wup L1 i k).

Lemma res_one_split : forall d (L : layer) (D : nat -> bool) (x : vec) (r : nat -> R) k,
  (k < d)%nat ->
  (forall l, (l < width L)%nat ->
     relu (mv d (Wup L) x l) = (if D l then mv d (Wup L) x l else 0) + r l) ->
  res_one d L x k =
    mv d (piece d (width L) D (Wdown L) (Wup L)) x k + sum (width L) (fun l => Wdown L k l * r l).
Proof.
  intros d L D x r k Hk Hr. unfold res_one, piece. rewrite mv_mat_plus, mv_ident by exact Hk.
  unfold layer_block, block, readout.
  rewrite (sum_ext (width L) _ (fun l => (if D l then Wdown L k l * 1 * mv d (Wup L) x l else 0) +
                                        Wdown L k l * r l))
    by (intros l Hl; rewrite (Hr l Hl); destruct (D l); ring).
  rewrite sum_plus, (selected_sum d (width L) D (Wdown L) (Wup L) (fun _ => 1) x k).
  assert (E : mv d (fun i j => sum (width L) (fun l => if D l then Wdown L i l * 1 * Wup L l j else 0)) x k =
              mv d (fun i j => sum (width L) (fun l => if D l then Wdown L i l * Wup L l j else 0)) x k)
    by (apply mv_row_ext; intros j _; apply sum_ext; intros l _; destruct (D l); ring).
  rewrite E. ring.
Qed.

Lemma avoid_list : forall d (u : vec), 0 < dot d u u -> forall H : list vec,
  exists x0, dot d u x0 = 0 /\
    forall c, In c H -> dot d c x0 = 0 -> exists a, forall j, (j < d)%nat -> c j = a * u j.
Proof.
  intros d u Hu H.
  destruct (avoid_hyperplanes d u Hu (length H) (fun r => nth r H (fun _ => 0))) as (x0 & H0 & Hx).
  exists x0. split; [exact H0|]. intros c Hc Hcx.
  destruct (In_nth H c (fun _ => 0) Hc) as (r & Hr & E).
  destruct (Hx r Hr) as (a & Ha).
  - rewrite mv_dot, E. exact Hcx.
  - exists a. intros j Hj. rewrite <- E. exact (Ha j Hj).
Qed.

Lemma relu_le_abs : forall z, relu z <= Rabs z.
Proof. intros z. unfold relu, Rmax, Rabs. destruct (Rle_dec z 0), (Rcase_abs z); lra. Qed.

Lemma nonzero_image : forall d A (w : vec), trivial_kernel d A -> (exists i, (i < d)%nat /\ w i <> 0) ->
  exists k, (k < d)%nat /\ mv d A w k <> 0.
Proof.
  intros d A w HA (i & Hi & Hw).
  destruct (classic (exists k, (k < d)%nat /\ mv d A w k <> 0)) as [H|H]; [exact H|].
  exfalso. apply Hw. apply (HA w); [|exact Hi].
  intros k Hk. destruct (Req_dec (mv d A w k) 0) as [E|E]; [exact E|].
  exfalso. apply H. exists k. split; assumption.
Qed.

(** The rows [(I + W_1 D U_1)^T u2_j] for every active set [D] of layer 1. *)
Definition trows (d : nat) (L1 L2 : layer) : list vec :=
  flat_map (fun D => map (fun j => transpose_mv d (piece d (width L1) D (Wdown L1) (Wup L1)) (Wup L2 j))
                         (seq 0 (width L2)))
           (all_subsets (width L1)).

Lemma trows_in : forall d L1 L2 D j, In D (all_subsets (width L1)) -> (j < width L2)%nat ->
  In (transpose_mv d (piece d (width L1) D (Wdown L1) (Wup L1)) (Wup L2 j)) (trows d L1 L2).
Proof.
  intros. unfold trows. apply in_flat_map. exists D. split; [assumption|].
  apply (in_map (fun j => transpose_mv d (piece d (width L1) D (Wdown L1) (Wup L1)) (Wup L2 j))).
  apply in_seq. lia.
Qed.

Lemma rows_in : forall (V : mat) n r, (r < n)%nat -> In (V r) (map V (seq 0 n)).
Proof. intros. apply in_map. apply in_seq. lia. Qed.

(** [F (x0 + s u)] near a point [x0] on the hyperplane of unit [i] alone. *)
Lemma kink_row :
  forall d (L1 L2 Q : layer),
  layer_pieces_invertible d L2 ->
  rows_nonzero d (width L1) (Wup L1) -> rows_noncollinear d (width L1) (Wup L1) ->
  cols_nonzero d (width L1) (Wdown L1) ->
  kinks_transversal_cond d L1 L2 ->
  (forall x i, (i < d)%nat -> res_comp_id (map (layer_block d relu) [L1; L2]) x i =
                             layer_block d relu Q x i) ->
  forall i, (i < width L1)%nat ->
  exists r c, (r < width Q)%nat /\ c <> 0 /\ forall j, (j < d)%nat -> Wup Q r j = c * Wup L1 i j.
Proof.
  intros d L1 L2 Q Hinv2 Hnz1 Hnc1 Hcol1 Htr Heq i Hi.
  set (u := Wup L1 i).
  assert (Hu : 0 < dot d u u) by (apply dot_self_pos, Hnz1; exact Hi).
  destruct (avoid_list d u Hu (map (Wup L1) (seq 0 (width L1)) ++ map (Wup Q) (seq 0 (width Q)) ++
                              trows d L1 L2)) as (x0 & Hux0 & Hav).
  (* the other layer-1 units are off their hyperplanes at x0 *)
  assert (Hoth : forall l, (l < width L1)%nat -> l <> i -> mv d (Wup L1) x0 l <> 0).
  { intros l Hl Hne E. rewrite mv_dot in E.
    destruct (Hav (Wup L1 l)) as (c & Hc); [apply in_or_app; left; apply rows_in; exact Hl|exact E|].
    apply (Hnc1 i l Hi Hl (not_eq_sym Hne)). exists c. exact Hc. }
  assert (Hi0 : mv d (Wup L1) x0 i = 0) by (rewrite mv_dot; exact Hux0).
  destruct (all_subsets_complete (width L1) (active d (Wup L1) x0)) as (D & HD & HDag).
  assert (HDi : D i = false).
  { rewrite (HDag i Hi). unfold active. destruct (Rle_dec _ 0) as [_|Hn]; [reflexivity|lra]. }
  set (P := piece d (width L1) D (Wdown L1) (Wup L1)).
  set (a := fun j => transpose_mv d P (Wup L2 j)).
  assert (Ha0 : forall j, (j < width L2)%nat -> dot d (a j) x0 <> 0).
  { intros j Hj E. destruct (Hav (a j)) as (c & Hc); [|exact E|].
    - apply in_or_app; right; apply in_or_app; right. apply trows_in; assumption.
    - exact (Htr i j D Hi Hj HDi (ex_intro _ c Hc)). }
  set (n := mv d (Wup L1) u i).
  assert (Hn : n = dot d u u) by (unfold n; rewrite mv_dot; reflexivity).
  set (w := fun k => Wdown L1 k i).
  set (gam := fun j => dot d (Wup L2 j) w).
  set (bet := fun j => dot d (a j) u).
  destruct (pos_below (width L1) (fun l => step_bound (mv d (Wup L1) x0 l) (mv d (Wup L1) u l)))
    as (t1 & Ht1 & Hb1); [intros; apply step_bound_pos|].
  destruct (pos_below (width L2) (fun j => step_bound (dot d (a j) x0) (Rabs (bet j) + Rabs (gam j) * n)))
    as (t2 & Ht2 & Hb2); [intros; apply step_bound_pos|].
  destruct (pos_below (width Q) (fun r => step_bound (mv d (Wup Q) x0 r) (mv d (Wup Q) u r)))
    as (t3 & Ht3 & Hb3); [intros; apply step_bound_pos|].
  set (t := Rmin t1 (Rmin t2 t3)).
  assert (Ht : 0 < t) by (unfold t; repeat apply Rmin_glb_lt; assumption).
  assert (Htt1 : t <= t1) by (unfold t; apply Rmin_l).
  assert (Htt2 : t <= t2) by (unfold t; eapply Rle_trans; [apply Rmin_r|apply Rmin_l]).
  assert (Htt3 : t <= t3) by (unfold t; eapply Rle_trans; [apply Rmin_r|apply Rmin_r]).
  (* layer 1 along x0 + s u *)
  assert (HG : forall s, Rabs s <= t -> forall k, (k < d)%nat ->
            res_one d L1 (fun j => x0 j + s * u j) k =
            mv d P (fun j => x0 j + s * u j) k + relu (s * n) * w k).
  { intros s Hs k Hk.
    rewrite (res_one_split d L1 D _ (fun l => kron i l * relu (s * n)) k Hk).
    - f_equal. rewrite (sum_ext _ _ (fun l => kron i l * (Wdown L1 k l * relu (s * n))))
        by (intros; ring).
      rewrite sum_kron_l by exact Hi. unfold w. ring.
    - intros l Hl. rewrite mv_axpy. unfold kron. destruct (Nat.eq_dec i l) as [<-|Hne].
      + rewrite Hi0, HDi. fold n. rewrite Rplus_0_l. ring.
      + rewrite (HDag l Hl). unfold active.
        rewrite (relu_near _ _ (Hoth l Hl (not_eq_sym Hne))).
        * destruct (Rle_dec (mv d (Wup L1) x0 l) 0); ring.
        * apply (small_mult _ _ s t (Hoth l Hl (not_eq_sym Hne)) Ht);
            [eapply Rle_trans; [exact Htt1|apply Hb1; exact Hl]|exact Hs]. }
  (* layer 2 keeps its activity E along x0 + s u *)
  set (E := fun j => if Rle_dec (dot d (a j) x0) 0 then false else true).
  assert (Hphi : forall s, Rabs s <= t -> forall j,
            mv d (Wup L2) (res_one d L1 (fun j => x0 j + s * u j)) j =
            dot d (a j) x0 + (s * bet j + gam j * relu (s * n))).
  { intros s Hs j. rewrite mv_dot.
    rewrite (dot_ext d _ _ (fun k => mv d P (fun j => x0 j + s * u j) k + relu (s * n) * w k))
      by (intros k Hk; apply HG; assumption).
    rewrite dot_axpy. unfold bet, gam, a. rewrite !dot_transpose.
    rewrite (dot_ext d (Wup L2 j) (mv d P (fun j => x0 j + s * u j))
               (fun k => mv d P x0 k + s * mv d P u k)) by (intros; apply mv_axpy).
    rewrite dot_axpy. ring. }
  assert (Hnpos : 0 < n) by (rewrite Hn; exact Hu).
  assert (Hrelu2 : forall s, Rabs s <= t -> forall l, (l < width L2)%nat ->
            relu (mv d (Wup L2) (res_one d L1 (fun j => x0 j + s * u j)) l) =
            if E l then mv d (Wup L2) (res_one d L1 (fun j => x0 j + s * u j)) l else 0).
  { intros s Hs l Hl. rewrite (Hphi s Hs l). unfold E.
    rewrite (relu_near _ _ (Ha0 l Hl)); [destruct (Rle_dec (dot d (a l) x0) 0); reflexivity|].
    pose proof (small_mult (dot d (a l) x0) (Rabs (bet l) + Rabs (gam l) * n) s t (Ha0 l Hl) Ht
                  (Rle_trans _ _ _ Htt2 (Hb2 l Hl)) Hs) as K.
    eapply Rle_lt_trans; [|exact K].
    pose proof (Rabs_pos (bet l)). pose proof (Rabs_pos (gam l)). pose proof (Rabs_pos s).
    assert (Hr0 : 0 <= relu (s * n)) by apply relu_ge0.
    assert (Hr1 : relu (s * n) <= Rabs s * n)
      by (eapply Rle_trans; [apply relu_le_abs|]; rewrite Rabs_mult, (Rabs_pos_eq n) by lra; lra).
    rewrite Rabs_mult, (Rabs_pos_eq (Rabs (bet l) + Rabs (gam l) * n)) by nra.
    eapply Rle_trans; [apply Rabs_triang|]. rewrite !Rabs_mult, (Rabs_pos_eq (relu (s * n))) by exact Hr0.
    nra. }
  assert (HF : forall s, Rabs s <= t -> forall k, (k < d)%nat ->
            res_comp_id (map (layer_block d relu) [L1; L2]) (fun j => x0 j + s * u j) k =
            mv d (piece d (width L2) E (Wdown L2) (Wup L2)) (mv d P x0) k +
            s * mv d (piece d (width L2) E (Wdown L2) (Wup L2)) (mv d P u) k +
            relu (s * n) * mv d (piece d (width L2) E (Wdown L2) (Wup L2)) w k).
  { intros s Hs k Hk. simpl.
    change (fun i0 => x0 i0 + s * u i0 + layer_block d relu L1 (fun j => x0 j + s * u j) i0)
      with (res_one d L1 (fun j => x0 j + s * u j)).
    change (x0 k + s * u k + layer_block d relu L1 (fun j => x0 j + s * u j) k)
      with (res_one d L1 (fun j => x0 j + s * u j) k).
    rewrite (second_block_fixed d L2 E _ (Hrelu2 s Hs) k Hk).
    rewrite (mv_ext d _ _ (fun k => mv d P (fun j => x0 j + s * u j) k + relu (s * n) * w k))
      by (intros; apply HG; assumption).
    rewrite mv_axpy.
    rewrite (mv_ext d _ _ (fun k => mv d P x0 k + s * mv d P u k)) by (intros; apply mv_axpy).
    rewrite mv_axpy. ring. }
  (* the second difference at x0 along u *)
  destruct (nonzero_image d (piece d (width L2) E (Wdown L2) (Wup L2)) w (Hinv2 E) (Hcol1 i Hi))
    as (k & Hk & Hwk).
  pose proof (Heq (fun j => x0 j + t * u j) k Hk) as Ep.
  pose proof (Heq (fun j => x0 j + - t * u j) k Hk) as Em.
  pose proof (Heq (fun j => x0 j + 0 * u j) k Hk) as E0.
  rewrite HF in Ep, Em, E0 by (try exact Hk; rewrite ?Rabs_R0, ?Rabs_Ropp, ?Rabs_pos_eq; lra).
  unfold layer_block, block, readout in Ep, Em, E0.
  assert (Hsd : sum (width Q) (fun r => Wdown Q k r * relu (mv d (Wup Q) (fun j => x0 j + t * u j) r)) +
                sum (width Q) (fun r => Wdown Q k r * relu (mv d (Wup Q) (fun j => x0 j + - t * u j) r)) -
                2 * sum (width Q) (fun r => Wdown Q k r * relu (mv d (Wup Q) (fun j => x0 j + 0 * u j) r)) =
                t * sum (width Q) (fun r => Wdown Q k r *
                  (if Req_EM_T (mv d (Wup Q) x0 r) 0 then Rabs (mv d (Wup Q) u r) else 0))).
  { rewrite <- !sum_scal_l, <- sum_plus, <- sum_minus.
    apply sum_ext. intros r Hr. rewrite !mv_axpy.
    pose proof (relu_second (mv d (Wup Q) x0 r) (mv d (Wup Q) u r) t Ht
                  (Rle_trans _ _ _ Htt3 (Hb3 r Hr))) as K.
    transitivity (Wdown Q k r * (relu (mv d (Wup Q) x0 r + t * mv d (Wup Q) u r) +
                                 relu (mv d (Wup Q) x0 r + - t * mv d (Wup Q) u r) -
                                 2 * relu (mv d (Wup Q) x0 r + 0 * mv d (Wup Q) u r))); [ring|].
    rewrite K. ring. }
  rewrite <- Ep, <- Em, <- E0 in Hsd.
  replace (relu (t * n)) with (t * n) in Hsd by (rewrite relu_nonneg_id; [reflexivity|nra]).
  replace (relu (- t * n)) with 0 in Hsd by (rewrite relu_nonpos; [reflexivity|nra]).
  replace (relu (0 * n)) with 0 in Hsd by (rewrite relu_nonpos; [reflexivity|lra]).
  assert (Hsum : sum (width Q) (fun r => Wdown Q k r *
                  (if Req_EM_T (mv d (Wup Q) x0 r) 0 then Rabs (mv d (Wup Q) u r) else 0)) <> 0).
  { intros Z. rewrite Z in Hsd. apply Hwk.
    apply (Rmult_eq_reg_l (t * n)); [|nra]. lra. }
  apply sum_nonzero_term in Hsum. destruct Hsum as (r & Hr & Hterm).
  destruct (Req_EM_T (mv d (Wup Q) x0 r) 0) as [Z|Z]; [|exfalso; apply Hterm; ring].
  destruct (Hav (Wup Q r)) as (c & Hc).
  - apply in_or_app; right; apply in_or_app; left. apply rows_in. exact Hr.
  - rewrite <- mv_dot. exact Z.
  - exists r, c. split; [exact Hr|]. split; [|exact Hc].
    intros Hc0. apply Hterm. rewrite (mv_collinear_row d (Wup Q) u u r c Hc), Hc0.
    rewrite Rmult_0_l, Rabs_R0. ring.
Qed.

(** Counting: the [m'_1 <= m_1] units of [Q] cover the [m_1] pairwise
    non-collinear rows [u1_i], so each unit of [Q] lies on some [H_i]. *)
Lemma rows_of_Q : forall d (L1 Q : layer), (width Q <= width L1)%nat ->
  rows_noncollinear d (width L1) (Wup L1) ->
  (forall i, (i < width L1)%nat -> exists r c, (r < width Q)%nat /\ c <> 0 /\
     forall j, (j < d)%nat -> Wup Q r j = c * Wup L1 i j) ->
  forall r, (r < width Q)%nat -> exists i c, (i < width L1)%nat /\ c <> 0 /\
     forall j, (j < d)%nat -> Wup Q r j = c * Wup L1 i j.
Proof.
  intros d L1 Q Hw Hnc H r Hr.
  destruct (finite_choice (nat * R) (0%nat, 0)
              (fun i pr => (fst pr < width Q)%nat /\ snd pr <> 0 /\
                 forall j, (j < d)%nat -> Wup Q (fst pr) j = snd pr * Wup L1 i j) (width L1))
    as (f & Hf).
  { intros i Hi. destruct (H i Hi) as (r' & c & H1 & H2 & H3). exists (r', c). simpl. auto. }
  assert (Hinj : forall i i', (i < width L1)%nat -> (i' < width L1)%nat ->
            fst (f i) = fst (f i') -> i = i').
  { intros i i' Hi Hi' E. destruct (Nat.eq_dec i i') as [|Hne]; [assumption|exfalso].
    destruct (Hf i Hi) as (_ & Hc & Hrow). destruct (Hf i' Hi') as (_ & Hc' & Hrow').
    apply (Hnc i i' Hi Hi' Hne). exists (snd (f i) / snd (f i')). intros j Hj.
    pose proof (Hrow j Hj) as H1. pose proof (Hrow' j Hj) as H2. rewrite E in H1.
    assert (K : snd (f i') * Wup L1 i' j = snd (f i) * Wup L1 i j) by lra.
    apply (Rmult_eq_reg_l (snd (f i'))); [|exact Hc']. rewrite K. field. exact Hc'. }
  destruct (injective_onto (width L1) (fun i => fst (f i))
              (fun i Hi => Nat.lt_le_trans _ _ _ (proj1 (Hf i Hi)) Hw) Hinj r ltac:(lia))
    as (i & Hi & E).
  destruct (Hf i Hi) as (_ & Hc & Hrow). exists i, (snd (f i)). split; [exact Hi|]. split; [exact Hc|].
  intros j Hj. rewrite <- E. exact (Hrow j Hj).
Qed.

(** ** Steps 4 and 5: each unit of block 2 has one sign on the image of [G] *)


Lemma res_one_ext : forall d L x y, (forall j, (j < d)%nat -> x j = y j) ->
  forall k, (k < d)%nat -> res_one d L x k = res_one d L y k.
Proof.
  intros d L x y H k Hk. unfold res_one. rewrite (H k Hk). f_equal. apply layer_block_ext. exact H.
Qed.

Lemma transpose_minus : forall d A (a b : vec) c k,
  transpose_mv d A (fun i => a i - c * b i) k = transpose_mv d A a k - c * transpose_mv d A b k.
Proof.
  intros. unfold transpose_mv. rewrite <- sum_scal_l, <- sum_minus. apply sum_ext. intros; ring.
Qed.

Lemma res_one_piece : forall d L (D : nat -> bool) x, (forall l, (l < width L)%nat -> D l = active d (Wup L) x l) ->
  forall k, (k < d)%nat -> res_one d L x k = mv d (piece d (width L) D (Wdown L) (Wup L)) x k.
Proof.
  intros d L D x HD k Hk. unfold res_one, layer_block. rewrite residual_is_piece by exact Hk.
  apply mv_row_ext. intros j _. apply piece_ext. intros l Hl. symmetry. apply HD. exact Hl.
Qed.

Section Signs.

Variables (d : nat) (L1 L2 Q : layer).
Hypotheses (Hinv1 : layer_pieces_invertible d L1) (Hinv2 : layer_pieces_invertible d L2)
  (Hnz1 : rows_nonzero d (width L1) (Wup L1))
  (Hnz2 : rows_nonzero d (width L2) (Wup L2)) (Hnc2 : rows_noncollinear d (width L2) (Wup L2))
  (Hcol2 : cols_nonzero d (width L2) (Wdown L2))
  (Htr : kinks_transversal_cond d L1 L2)
  (HQ : forall r, (r < width Q)%nat -> exists i c, (i < width L1)%nat /\ c <> 0 /\
          forall j, (j < d)%nat -> Wup Q r j = c * Wup L1 i j)
  (Heq : forall x i, (i < d)%nat -> res_comp_id (map (layer_block d relu) [L1; L2]) x i =
                                   layer_block d relu Q x i).

Let phi (j : nat) (x : vec) : R := mv d (Wup L2) (res_one d L1 x) j.
Let Arow (D : nat -> bool) (j : nat) : vec :=
  transpose_mv d (piece d (width L1) D (Wdown L1) (Wup L1)) (Wup L2 j).

Lemma Arow_nonzero : forall D j, (j < width L2)%nat -> nonzero_vec d (Arow D j).
Proof.
  intros D j Hj. apply transpose_nonzero; [apply Hinv1|]. exact (Hnz2 j Hj).
Qed.

Lemma phi_piece : forall D x j, (forall l, (l < width L1)%nat -> D l = active d (Wup L1) x l) ->
  phi j x = dot d (Arow D j) x.
Proof.
  intros D x j HD. unfold phi, Arow. rewrite mv_dot, dot_transpose. apply dot_ext.
  intros k Hk. apply res_one_piece; assumption.
Qed.

Lemma phi_cont : forall j (x y : vec), continuity (fun s => phi j (fun k => x k + s * y k)).
Proof.
  intros j x y. unfold phi. exact (vcont_mv d _ _ (vcont_res_one d L1 _ (vcont_line x y)) j).
Qed.

Lemma phi_ext : forall j x y, (forall k, (k < d)%nat -> x k = y k) -> phi j x = phi j y.
Proof.
  intros j x y H. unfold phi. apply mv_ext. intros k Hk. apply res_one_ext; assumption.
Qed.

(** The pairs of covectors whose common zero set (codimension 2) a generic
    segment avoids. *)
Definition sign_pairs (j : nat) : list (vec * vec) :=
  flat_map (fun D =>
      map (fun i => (Wup L1 i, Arow D j)) (filter (fun i => negb (D i)) (seq 0 (width L1))) ++
      map (fun j' => (Arow D j, Arow D j')) (filter (fun j' => negb (Nat.eqb j' j)) (seq 0 (width L2))))
    (all_subsets (width L1)).

Definition sign_firsts (j : nat) : list vec :=
  map (Wup L1) (seq 0 (width L1)) ++ map (fun D => Arow D j) (all_subsets (width L1)).

Lemma sign_pairs_ok : forall j, (j < width L2)%nat -> forall pr, In pr (sign_pairs j) ->
  In (fst pr) (sign_firsts j) /\ ~ (exists c, forall k, (k < d)%nat -> snd pr k = c * fst pr k).
Proof.
  intros j Hj pr Hpr. unfold sign_pairs in Hpr. apply in_flat_map in Hpr.
  destruct Hpr as (D & HD & Hpr). apply in_app_or in Hpr. destruct Hpr as [Hpr|Hpr].
  - apply in_map_iff in Hpr. destruct Hpr as (i & <- & Hi). apply filter_In in Hi.
    destruct Hi as (Hi & HDi). apply in_seq in Hi. simpl. split.
    + apply in_or_app. left. apply rows_in. lia.
    + apply (Htr i j D ltac:(lia) Hj). destruct (D i); [discriminate|reflexivity].
  - apply in_map_iff in Hpr. destruct Hpr as (j' & <- & Hj'). apply filter_In in Hj'.
    destruct Hj' as (Hj' & Hne). apply in_seq in Hj'. simpl. split.
    + apply in_or_app. right. apply (in_map (fun D => Arow D j)). exact HD.
    + intros (c & Hc). destruct (Nat.eqb j' j) eqn:E; [discriminate|]. apply Nat.eqb_neq in E.
      apply (Hnc2 j j' Hj ltac:(lia) (not_eq_sym E)). exists c.
      destruct (classic (nonzero_vec d (fun i => Wup L2 j' i - c * Wup L2 j i))) as [Hz|Hz].
      * exfalso. destruct (transpose_nonzero d _ _ (Hinv1 D) Hz) as (k & Hk & Hne').
        apply Hne'. rewrite transpose_minus. unfold Arow in Hc. rewrite (Hc k Hk). ring.
      * intros k Hk. destruct (Req_dec (Wup L2 j' k - c * Wup L2 j k) 0) as [Z|Z]; [lra|].
        exfalso. apply Hz. exists k. split; assumption.
Qed.

Lemma sign_pairs_in1 : forall j D i, In D (all_subsets (width L1)) -> (i < width L1)%nat ->
  D i = false -> In (Wup L1 i, Arow D j) (sign_pairs j).
Proof.
  intros j D i HD Hi HDi. unfold sign_pairs. apply in_flat_map. exists D. split; [exact HD|].
  apply in_or_app. left. apply (in_map (fun i => (Wup L1 i, Arow D j))). apply filter_In.
  split; [apply in_seq; lia|]. rewrite HDi. reflexivity.
Qed.

Lemma sign_pairs_in2 : forall j D j', In D (all_subsets (width L1)) -> (j' < width L2)%nat ->
  j' <> j -> In (Arow D j, Arow D j') (sign_pairs j).
Proof.
  intros j D j' HD Hj' Hne. unfold sign_pairs. apply in_flat_map. exists D. split; [exact HD|].
  apply in_or_app. right. apply (in_map (fun j' => (Arow D j, Arow D j'))). apply filter_In.
  split; [apply in_seq; lia|]. apply Nat.eqb_neq in Hne. rewrite Hne. reflexivity.
Qed.

Lemma sign_firsts_nonzero : forall j, (j < width L2)%nat -> forall c, In c (sign_firsts j) -> nonzero_vec d c.
Proof.
  intros j Hj c Hc. unfold sign_firsts in Hc. apply in_app_or in Hc. destruct Hc as [Hc|Hc].
  - apply in_map_iff in Hc. destruct Hc as (i & <- & Hi). apply in_seq in Hi. apply Hnz1. lia.
  - apply in_map_iff in Hc. destruct Hc as (D & <- & _). apply Arow_nonzero. exact Hj.
Qed.

(** Steps 4 and 5.  If [phi_j] took both signs, a generic segment from a
    point where it is positive to one where it is negative (its ends moved
    so that the segment misses every codimension-2 set of [sign_pairs])
    has a zero [z] of [phi_j]; [z] lies on no layer-1 hyperplane (else
    [z] would lie on [H_i] and on the zero set of [(I + W_1 D U_1)^T u2_j],
    a pair of [sign_pairs] by [kinks_transversal]) and on no other layer-2
    zero set, while [Q] (whose units lie on layer-1 hyperplanes) is linear
    near [z] and [F] has the kink [w2_j |a.v|] there. *)
Lemma sign_constant : forall j, (j < width L2)%nat ->
  (forall x, 0 <= phi j x) \/ (forall x, phi j x <= 0).
Proof.
  intros j Hj.
  destruct (classic (forall x, 0 <= phi j x)) as [H|Hn1]; [left; exact H|].
  destruct (classic (forall x, phi j x <= 0)) as [H|Hn2]; [right; exact H|exfalso].
  apply not_all_ex_not in Hn1. destruct Hn1 as (xn & Hxn). apply Rnot_le_lt in Hxn.
  apply not_all_ex_not in Hn2. destruct Hn2 as (xp & Hxp). apply Rnot_le_lt in Hxp.
  (* (i) the start p, near xp, off the first covectors of the pairs *)
  destruct (hyperplanes_do_not_cover d (sign_firsts j) (sign_firsts_nonzero j Hj)) as (y1 & Hy1).
  destruct (generic_step (fun s => phi j (fun k => xp k + s * y1 k))
              (map (fun c => (dot d c xp, dot d c y1)) (sign_firsts j))) as (s1 & Hs1 & Hav1).
  { apply phi_cont. }
  { rewrite (phi_ext j _ xp); [lra|]. intros; ring. }
  { intros pr Hpr. apply in_map_iff in Hpr. destruct Hpr as (c & <- & Hc). exact (Hy1 c Hc). }
  set (p := fun k => xp k + s1 * y1 k).
  assert (Hpp : 0 < phi j p) by exact Hs1.
  assert (Hp : forall c, In c (sign_firsts j) -> dot d c p <> 0).
  { intros c Hc. unfold p. rewrite dot_axpy.
    exact (Hav1 (dot d c xp, dot d c y1) (in_map (fun c => (dot d c xp, dot d c y1)) _ _ Hc)). }
  (* (ii) the end q, near xn, such that the segment misses every pair *)
  set (nrm := fun pr : vec * vec => fun k => dot d (fst pr) p * snd pr k - dot d (snd pr) p * fst pr k).
  assert (Hnrm : forall c, In c (map nrm (sign_pairs j)) -> nonzero_vec d c).
  { intros c Hc. apply in_map_iff in Hc. destruct Hc as (pr & <- & Hpr).
    destruct (sign_pairs_ok j Hj pr Hpr) as (Hf & Hnm).
    pose proof (Hp _ Hf) as Hfp.
    destruct (classic (nonzero_vec d (nrm pr))) as [Hz|Hz]; [exact Hz|exfalso].
    apply Hnm. exists (dot d (snd pr) p / dot d (fst pr) p). intros k Hk.
    destruct (Req_dec (nrm pr k) 0) as [Z|Z].
    - unfold nrm in Z. apply (Rmult_eq_reg_l (dot d (fst pr) p)); [|exact Hfp].
      replace (dot d (fst pr) p * (dot d (snd pr) p / dot d (fst pr) p * fst pr k))
        with (dot d (snd pr) p * fst pr k) by (field; exact Hfp).
      lra.
    - exfalso. apply Hz. exists k. split; assumption. }
  destruct (hyperplanes_do_not_cover d _ Hnrm) as (y2 & Hy2).
  destruct (generic_step (fun s => - phi j (fun k => xn k + s * y2 k))
              (map (fun c => (dot d c (fun k => xn k - p k), dot d c y2)) (map nrm (sign_pairs j))))
    as (s2 & Hs2 & Hav2).
  { apply (cont_ext (fun s => -1 * phi j (fun k => xn k + s * y2 k))); [intros; ring|].
    apply cont_scal. apply phi_cont. }
  { rewrite (phi_ext j _ xn); [lra|]. intros; ring. }
  { intros pr Hpr. apply in_map_iff in Hpr. destruct Hpr as (c & <- & Hc). exact (Hy2 c Hc). }
  set (q := fun k => xn k + s2 * y2 k).
  assert (Hqq : phi j q < 0) by (unfold q; lra).
  set (v := fun k => q k - p k).
  assert (Hv : forall pr, In pr (sign_pairs j) -> dot d (nrm pr) v <> 0).
  { intros pr Hpr.
    rewrite (dot_ext d _ v (fun k => (xn k - p k) + s2 * y2 k)) by (intros; unfold v, q; ring).
    rewrite dot_axpy.
    apply (Hav2 (dot d (nrm pr) (fun k => xn k - p k), dot d (nrm pr) y2)).
    apply (in_map (fun c => (dot d c (fun k => xn k - p k), dot d c y2))).
    apply in_map. exact Hpr. }
  (* (iii) a zero z of phi_j on the segment *)
  destruct (IVT (fun tau => - phi j (fun k => p k + tau * v k)) 0 1) as (tau & Htau & Hz).
  { apply (cont_ext (fun s => -1 * phi j (fun k => p k + s * v k))); [intros; ring|].
    apply cont_scal. apply phi_cont. }
  { lra. }
  { rewrite (phi_ext j _ p); [lra|]. intros; ring. }
  { rewrite (phi_ext j _ q); [lra|]. intros; unfold v; ring. }
  set (z := fun k => p k + tau * v k).
  assert (Hphz : phi j z = 0) by (unfold z; lra).
  (* (iv) z is in an open cell of layer 1, on the zero set of unit j of block 2 only *)
  assert (Hpair : forall pr, In pr (sign_pairs j) ->
            dot d (fst pr) z = 0 -> dot d (snd pr) z = 0 -> False).
  { intros pr Hpr E1 E2. apply (Hv pr Hpr). unfold nrm. rewrite dot_lin2.
    unfold z in E1, E2. rewrite dot_axpy in E1, E2.
    replace (dot d (fst pr) p) with (- tau * dot d (fst pr) v) by lra.
    replace (dot d (snd pr) p) with (- tau * dot d (snd pr) v) by lra. ring. }
  destruct (all_subsets_complete (width L1) (active d (Wup L1) z)) as (D & HD & HDag).
  assert (HA : dot d (Arow D j) z = 0) by (rewrite <- (phi_piece D z j HDag); exact Hphz).
  assert (Hu1 : forall i, (i < width L1)%nat -> mv d (Wup L1) z i <> 0).
  { intros i Hi E.
    assert (HDi : D i = false)
      by (rewrite (HDag i Hi); unfold active; destruct (Rle_dec _ 0) as [_|Hn]; [reflexivity|lra]).
    rewrite mv_dot in E. exact (Hpair _ (sign_pairs_in1 j D i HD Hi HDi) E HA). }
  assert (Hu2 : forall j', (j' < width L2)%nat -> j' <> j -> dot d (Arow D j') z <> 0).
  { intros j' Hj' Hne E. exact (Hpair _ (sign_pairs_in2 j D j' HD Hj' Hne) HA E). }
  assert (HAv : dot d (Arow D j) v <> 0).
  { intros E. apply (Hp (Arow D j)).
    - apply in_or_app. right. apply (in_map (fun D => Arow D j)). exact HD.
    - unfold z in HA. rewrite dot_axpy, E in HA. lra. }
  assert (HQz : forall r, (r < width Q)%nat -> mv d (Wup Q) z r <> 0).
  { intros r Hr. destruct (HQ r Hr) as (i & c & Hi & Hc & Hrow).
    rewrite (mv_collinear_row d (Wup Q) (Wup L1 i) z r c Hrow).
    apply Rmult_integral_contrapositive. split; [exact Hc|]. rewrite <- mv_dot. exact (Hu1 i Hi). }
  (* (v) the second difference of F and of Q at z along v *)
  destruct (pos_below (width L1) (fun l => step_bound (mv d (Wup L1) z l) (mv d (Wup L1) v l)))
    as (t1 & Ht1 & Hb1); [intros; apply step_bound_pos|].
  destruct (pos_below (width L2) (fun j' => step_bound (dot d (Arow D j') z) (dot d (Arow D j') v)))
    as (t2 & Ht2 & Hb2); [intros; apply step_bound_pos|].
  destruct (pos_below (width Q) (fun r => step_bound (mv d (Wup Q) z r) (mv d (Wup Q) v r)))
    as (t3 & Ht3 & Hb3); [intros; apply step_bound_pos|].
  set (t := Rmin t1 (Rmin t2 t3)).
  assert (Ht : 0 < t) by (unfold t; repeat apply Rmin_glb_lt; assumption).
  assert (Htt1 : t <= t1) by (unfold t; apply Rmin_l).
  assert (Htt2 : t <= t2) by (unfold t; eapply Rle_trans; [apply Rmin_r|apply Rmin_l]).
  assert (Htt3 : t <= t3) by (unfold t; eapply Rle_trans; [apply Rmin_r|apply Rmin_r]).
  assert (HG : forall s, Rabs s <= t -> forall k, (k < d)%nat ->
            res_one d L1 (fun k0 => z k0 + s * v k0) k =
            mv d (piece d (width L1) D (Wdown L1) (Wup L1)) (fun k0 => z k0 + s * v k0) k).
  { intros s Hs k Hk. rewrite (res_one_split d L1 D _ (fun _ => 0) k Hk).
    - rewrite sum_zero; [ring|intros; ring].
    - intros l Hl. rewrite mv_axpy, (HDag l Hl). unfold active.
      rewrite (relu_near _ _ (Hu1 l Hl)).
      + destruct (Rle_dec (mv d (Wup L1) z l) 0); ring.
      + apply (small_mult _ _ s t (Hu1 l Hl) Ht);
          [eapply Rle_trans; [exact Htt1|apply Hb1; exact Hl]|exact Hs]. }
  assert (HF : forall s, Rabs s <= t -> forall k, (k < d)%nat ->
            res_comp_id (map (layer_block d relu) [L1; L2]) (fun k0 => z k0 + s * v k0) k =
            mv d (piece d (width L1) D (Wdown L1) (Wup L1)) z k +
            s * mv d (piece d (width L1) D (Wdown L1) (Wup L1)) v k +
            sum (width L2) (fun j' => Wdown L2 k j' *
                   relu (dot d (Arow D j') z + s * dot d (Arow D j') v))).
  { intros s Hs k Hk. simpl.
    change (fun i0 => z i0 + s * v i0 + layer_block d relu L1 (fun k0 => z k0 + s * v k0) i0)
      with (res_one d L1 (fun k0 => z k0 + s * v k0)).
    change (z k + s * v k + layer_block d relu L1 (fun k0 => z k0 + s * v k0) k)
      with (res_one d L1 (fun k0 => z k0 + s * v k0) k).
    rewrite (HG s Hs k Hk), mv_axpy. f_equal.
    unfold layer_block, block, readout. apply sum_ext. intros j' Hj'. f_equal. f_equal.
    rewrite mv_dot.
    rewrite (dot_ext d _ _ (mv d (piece d (width L1) D (Wdown L1) (Wup L1)) (fun k0 => z k0 + s * v k0)))
      by (intros; apply HG; assumption).
    unfold Arow. rewrite !dot_transpose.
    rewrite (dot_ext d (Wup L2 j') _ (fun k0 => mv d (piece d (width L1) D (Wdown L1) (Wup L1)) z k0 +
               s * mv d (piece d (width L1) D (Wdown L1) (Wup L1)) v k0)) by (intros; apply mv_axpy).
    apply dot_axpy. }
  destruct (Hcol2 j Hj) as (k & Hk & Hwk).
  pose proof (Heq (fun k0 => z k0 + t * v k0) k Hk) as Ep.
  pose proof (Heq (fun k0 => z k0 + - t * v k0) k Hk) as Em.
  pose proof (Heq (fun k0 => z k0 + 0 * v k0) k Hk) as E0.
  rewrite HF in Ep, Em, E0 by (try exact Hk; rewrite ?Rabs_R0, ?Rabs_Ropp, ?Rabs_pos_eq; lra).
  unfold layer_block, block, readout in Ep, Em, E0.
  assert (HsQ : sum (width Q) (fun r => Wdown Q k r * relu (mv d (Wup Q) (fun k0 => z k0 + t * v k0) r)) +
                sum (width Q) (fun r => Wdown Q k r * relu (mv d (Wup Q) (fun k0 => z k0 + - t * v k0) r)) -
                2 * sum (width Q) (fun r => Wdown Q k r * relu (mv d (Wup Q) (fun k0 => z k0 + 0 * v k0) r))
                = 0).
  { rewrite <- !sum_scal_l, <- sum_plus, <- sum_minus. apply sum_zero. intros r Hr. rewrite !mv_axpy.
    pose proof (relu_second (mv d (Wup Q) z r) (mv d (Wup Q) v r) t Ht
                  (Rle_trans _ _ _ Htt3 (Hb3 r Hr))) as K.
    destruct (Req_EM_T (mv d (Wup Q) z r) 0) as [Z|_]; [exfalso; exact (HQz r Hr Z)|].
    transitivity (Wdown Q k r * (relu (mv d (Wup Q) z r + t * mv d (Wup Q) v r) +
                                 relu (mv d (Wup Q) z r + - t * mv d (Wup Q) v r) -
                                 2 * relu (mv d (Wup Q) z r + 0 * mv d (Wup Q) v r))); [ring|].
    rewrite K. ring. }
  assert (HsF : sum (width L2) (fun j' => Wdown L2 k j' * relu (dot d (Arow D j') z + t * dot d (Arow D j') v)) +
                sum (width L2) (fun j' => Wdown L2 k j' * relu (dot d (Arow D j') z + - t * dot d (Arow D j') v)) -
                2 * sum (width L2) (fun j' => Wdown L2 k j' * relu (dot d (Arow D j') z + 0 * dot d (Arow D j') v))
                = t * (Wdown L2 k j * Rabs (dot d (Arow D j) v))).
  { rewrite <- !sum_scal_l, <- sum_plus, <- sum_minus.
    rewrite (sum_ext (width L2) _ (fun j' => kron j j' * (t * (Wdown L2 k j * Rabs (dot d (Arow D j) v))))).
    - rewrite (sum_kron_l (width L2) (fun _ => t * (Wdown L2 k j * Rabs (dot d (Arow D j) v))) j Hj).
      reflexivity.
    - intros j' Hj'.
      pose proof (relu_second (dot d (Arow D j') z) (dot d (Arow D j') v) t Ht
                    (Rle_trans _ _ _ Htt2 (Hb2 j' Hj'))) as K.
      transitivity (Wdown L2 k j' * (relu (dot d (Arow D j') z + t * dot d (Arow D j') v) +
                                     relu (dot d (Arow D j') z + - t * dot d (Arow D j') v) -
                                     2 * relu (dot d (Arow D j') z + 0 * dot d (Arow D j') v))); [ring|].
      rewrite K. unfold kron. destruct (Nat.eq_dec j j') as [<-|Hne].
      + destruct (Req_EM_T (dot d (Arow D j) z) 0) as [_|Z]; [ring|exfalso; exact (Z HA)].
      + destruct (Req_EM_T (dot d (Arow D j') z) 0) as [Z|_]; [|ring].
        exfalso. exact (Hu2 j' Hj' (not_eq_sym Hne) Z). }
  assert (Hzero : t * (Wdown L2 k j * Rabs (dot d (Arow D j) v)) = 0) by lra.
  apply Rmult_integral in Hzero. destruct Hzero as [Z|Z]; [lra|].
  apply Rmult_integral in Z. destruct Z as [Z|Z]; [exact (Hwk Z)|].
  apply HAv. destruct (Req_dec (dot d (Arow D j) v) 0) as [E|E]; [exact E|].
  pose proof (Rabs_pos_lt _ E). lra.
Qed.

(** Steps 4 and 5, as used in Step 6: one fixed activity [D2] of the units of
    block 2 on the whole image of [G]. *)
Lemma fixed_activity : exists D2 : nat -> bool, forall x l, (l < width L2)%nat ->
  relu (mv d (Wup L2) (res_one d L1 x) l) = if D2 l then mv d (Wup L2) (res_one d L1 x) l else 0.
Proof.
  destruct (finite_choice bool false
              (fun l b => forall x, relu (mv d (Wup L2) (res_one d L1 x) l) =
                                    if b then mv d (Wup L2) (res_one d L1 x) l else 0) (width L2))
    as (f & Hf).
  - intros l Hl. destruct (sign_constant l Hl) as [H|H].
    + exists true. intros x. apply relu_nonneg_id. exact (H x).
    + exists false. intros x. apply relu_nonpos. exact (H x).
  - exists f. intros x l Hl. exact (Hf l Hl x).
Qed.

End Signs.

(** ** [depth-narrow] (c) *)

(** [depth-narrow] (c): [L = 2], every piece of both blocks invertible, both
    blocks nondegenerate (rows of [U_l] nonzero and pairwise non-collinear,
    columns of [W_l] nonzero), and no [(I + W_1 D U_1)^T u2_j] parallel to a
    row [u1_i] with [i] not in [D]: then [F = (I + B_2) o (I + B_1)] equals
    no plain relu stack of widths [(m'_1, d)] with [m'_1 <= m_1]. *)
Theorem depth_narrow_two_blocks :
  forall (d : nat) (L1 L2 P1 P2 : layer)
         (d_pos : (0 < d)%nat)
         (pieces_invertible : Forall (layer_pieces_invertible d) [L1; L2])
         (nondegenerate : nondegenerate_block d (width L1) (Wdown L1) (Wup L1) /\
                          nondegenerate_block d (width L2) (Wdown L2) (Wup L2))
         (kinks_transversal : kinks_transversal_cond d L1 L2)
         (narrow_width : (width P1 <= width L1)%nat /\ width P2 = d),
  ~ (forall x i, (i < d)%nat ->
       res_comp_id (map (layer_block d relu) [L1; L2]) x i =
       plain_comp (map (layer_block d relu) [P1; P2]) x i).
Proof.
  intros d L1 L2 P1 P2 d_pos Hinv [[Hnz1 [Hnc1 Hcol1]] [Hnz2 [Hnc2 Hcol2]]] Htr [Hw1 Hw2] Heq.
  pose proof (Forall_inv Hinv) as Hinv1. pose proof (Forall_inv (Forall_inv_tail Hinv)) as Hinv2.
  (* Step 1 *)
  pose proof (plain_two_is_one d L1 L2 P1 P2 d_pos Hinv Hw2 Heq) as HQ.
  set (Q := merged d P1 P2) in HQ.
  assert (HwQ : (width Q <= width L1)%nat) by exact Hw1.
  (* Steps 2 and 3 *)
  pose proof (rows_of_Q d L1 Q HwQ Hnc1 (kink_row d L1 L2 Q Hinv2 Hnz1 Hnc1 Hcol1 Htr HQ)) as Hrows.
  (* Steps 4 and 5 *)
  destruct (fixed_activity d L1 L2 Q Hinv1 Hnz1 Hnz2 Hnc2 Hcol2 Htr Hrows HQ) as (D2 & HD2).
  (* Step 6 *)
  exact (fixed_second_block_not_plain d L1 L2 Q D2 d_pos Hinv1 Hinv2 (conj Hnz1 (conj Hnc1 Hcol1))
           HD2 HwQ HQ).
Qed.
