(** Referee ref6c: instances and corollaries testing the registered Coq statements of
    [depth-dead-block].  Compiled against proofs/coq with [-R proofs/coq SkipAbsorption]. *)
From Coq Require Import Reals Lra Lia List QArith Qreals.
From SkipAbsorption Require Import Linalg Depth DepthStack RealActivations Limit DepthD1 Width Rank DepthNarrow DepthDeadBlock DepthDeadBlockFarkas.
Import ListNotations.
Open Scope R_scope.

(** ** The statements, read literally *)
Check dead_block_affine.
Check dead_block_plain.
Check dead_block_plain_explicit.
Check dead_block_no_narrow_plain.
Check dead_on_image_iff_certificates.
Check dead_on_image_iff_small_certificates.
Check dead_on_image_iff_rational_certificates.
Check dead_block_affine_needs_dead_on_image.
Print dead_on.
Print in_region.
Print bound_cert.
Print empty_cert.
Print rational_bound_cert.
Print rational_weights.
Print trivial_kernel.
Print row_rank.
Print indep.
Print bplain_stack.
Print bres_stack.
Print blayer_block.
Print bblock.
Print relu.

(** ** A concrete instance, d = 1:
    G_1(x) = x - relu(x) (image y <= 0), G_2(y) = 2 y + 3 relu(y - 1) + 4 (dead). *)
Definition M1 : mat := fun _ _ => 1.
Definition B1 : blayer := mk_blayer 1 (fun _ _ => -1) (fun _ _ => 1) (fun _ => 0) (fun _ => 0).
Definition M2 : mat := fun _ _ => 2.
Definition B2 : blayer := mk_blayer 1 (fun _ _ => 3) (fun _ _ => 1) (fun _ => -1) (fun _ => 4).
Definition res : list (mat * blayer) := [(M1, B1); (M2, B2)].

Lemma G1_value : forall x i, rblock 1 M1 B1 x i = x 0%nat - Rmax (x 0%nat) 0.
Proof.
  intros. unfold rblock, blayer_block, bblock, B1, M1, mv, relu. simpl.
  replace (0 + 1 * x 0%nat + 0) with (x 0%nat) by ring. ring.
Qed.

Lemma inst_dead : forall x l, (l < bwidth B2)%nat ->
  mv 1 (bWup B2) (rblock 1 M1 B1 x) l + bup B2 l <= 0.
Proof.
  intros x l Hl. unfold mv. simpl. rewrite G1_value.
  pose proof (Rmax_l (x 0%nat) 0). lra.
Qed.

(** (c) on the instance: the closed region of pattern D = {unit inactive} contains the
    ball around -1 of radius 1/2, the piece M_2 (M_1 + W_1 D U_1) = 2 has trivial kernel,
    and a plain stack with a layer of width 0 < 1: every hypothesis holds together. *)
Definition Dinact : nat -> bool := fun _ => false.
Definition narrow : blayer := mk_blayer 0 (fun _ _ => 0) (fun _ _ => 0) (fun _ => 0) (fun _ => 0).

Lemma inst_region : exists (x0 : vec) (eps : R), 0 < eps /\
  forall x, norm1 1 (fun j => x j - x0 j) < eps -> in_region 1 B1 Dinact x.
Proof.
  exists (fun _ => -1), (1/2). split; [lra|]. intros x Hx l Hl.
  unfold norm1 in Hx. simpl in Hx. unfold Dinact, mv, B1 in *. simpl in *.
  assert (l = 0%nat) by lia. subst l.
  revert Hx. unfold Rabs. destruct (Rcase_abs _); intros; lra.
Qed.

Lemma inst_kernel : trivial_kernel 1 (matmul 1 M2 (piece_lin 1 M1 B1 Dinact)).
Proof.
  intros y Hy j Hj. specialize (Hy 0%nat ltac:(lia)).
  unfold mv, matmul, piece_lin, M2, M1, Dinact in Hy. simpl in Hy.
  assert (j = 0%nat) by lia. subst j. lra.
Qed.

Lemma inst_no_narrow : forall P2 : blayer,
  ~ (forall x i, (i < 1)%nat -> bres_stack 1 res x i = bplain_stack 1 [narrow; P2] x i).
Proof.
  intros P2.
  apply (dead_block_no_narrow_plain 1 res M1 M2 B1 B2 Dinact [narrow; P2] eq_refl inst_dead
           inst_region inst_kernel).
  apply Exists_cons_hd. simpl. lia.
Qed.

(** (b) on the instance: P_1(x) = -relu(-x) equals G_1; rank U_2 = 1, 2*1 - 1 <= 1. *)
Definition P1 : blayer := mk_blayer 1 (fun _ _ => -1) (fun _ _ => -1) (fun _ => 0) (fun _ => 0).

Lemma inst_first_plain : forall x i, (i < 1)%nat -> blayer_block 1 relu P1 x i = rblock 1 M1 B1 x i.
Proof.
  intros x i _. rewrite G1_value. unfold blayer_block, bblock, P1, mv, relu. simpl.
  unfold Rmax. destruct (Rle_dec _ _); destruct (Rle_dec _ _); lra.
Qed.

Lemma inst_rank : row_rank 1 (bwidth B2) (bWup B2) 1.
Proof.
  exists (fun _ => 0%nat). split; [simpl; lia|]. split.
  - intros c Hc k Hk. specialize (Hc 0%nat ltac:(lia)). simpl in Hc.
    assert (k = 0%nat) by lia. subst k. lra.
  - intros i Hi. exists (fun _ => 1). intros j Hj. simpl. ring.
Qed.

Lemma inst_plain : exists P2 : blayer, bwidth P2 = 1%nat /\
  forall x i, (i < 1)%nat -> bplain_stack 1 [P1; P2] x i = bres_stack 1 res x i.
Proof.
  destruct (dead_block_plain 1 res M1 M2 B1 B2 P1 1 eq_refl inst_dead inst_first_plain inst_rank
              ltac:(simpl; lia)) as (idx & Lv & G & Hw & Heq).
  eexists. split; [exact Hw|exact Heq].
Qed.

(** (b)'s "P_2 is M_2 y + e_2 on the image of G_1" follows from dead_block_plain and
    dead_block_affine for every d (P_2 reads only coordinates 0..d-1). *)
Lemma blayer_local : forall d (P : blayer) (x y : vec), (forall j, (j < d)%nat -> x j = y j) ->
  forall i, blayer_block d relu P x i = blayer_block d relu P y i.
Proof.
  intros. unfold blayer_block, bblock. f_equal. apply sum_ext. intros l _.
  f_equal. f_equal. f_equal. apply mv_ext. exact H.
Qed.

Corollary plain_second_affine_on_image :
  forall d M1 M2 B1 B2 P1 r,
    dead_on d M1 B1 B2 ->
    (forall x i, (i < d)%nat -> blayer_block d relu P1 x i = rblock d M1 B1 x i) ->
    row_rank d (bwidth B2) (bWup B2) r -> (2 * d - r <= bwidth B2)%nat ->
  exists P2 : blayer, bwidth P2 = bwidth B2 /\
    (forall x i, (i < d)%nat -> bplain_stack d [P1; P2] x i = bres_stack d [(M1, B1); (M2, B2)] x i) /\
    (forall x i, (i < d)%nat -> blayer_block d relu P2 (rblock d M1 B1 x) i = mv d M2 (rblock d M1 B1 x) i + bdown B2 i).
Proof.
  intros d M1' M2' B1' B2' P1' r Hdead Hfp Hr Hw.
  destruct (dead_block_plain d _ M1' M2' B1' B2' P1' r eq_refl Hdead Hfp Hr Hw) as (idx & Lv & G & Hwd & Heq).
  eexists. split; [exact Hwd|]. split; [exact Heq|].
  intros x i Hi.
  rewrite <- (dead_block_affine d _ M1' M2' B1' B2' eq_refl Hdead x i).
  rewrite <- (Heq x i Hi). rewrite bplain_stack_two.
  apply blayer_local. intros j Hj. symmetry. apply Hfp. exact Hj.
Qed.

(** (c) with the claim's own wording: the (open or half-open) activation region
    {x : pattern of x is D} has nonempty interior.  Both conventions for a zero
    pre-activation give the ball hypothesis of dead_block_no_narrow_plain. *)
Corollary no_narrow_nonempty_interior :
  forall d M1 M2 B1 B2 (D : nat -> bool) plains,
    dead_on d M1 B1 B2 ->
    (exists (x0 : vec) (eps : R), 0 < eps /\
       forall x, norm1 d (fun j => x j - x0 j) < eps ->
         forall l, (l < bwidth B1)%nat -> pattern_of d B1 x l = D l) ->
    trivial_kernel d (matmul d M2 (piece_lin d M1 B1 D)) ->
    Exists (fun P => (bwidth P < d)%nat) plains ->
    ~ (forall x i, (i < d)%nat -> bres_stack d [(M1, B1); (M2, B2)] x i = bplain_stack d plains x i).
Proof.
  intros d M1' M2' B1' B2' D plains Hdead (x0 & eps & He & Hb) Hk Hn.
  apply (dead_block_no_narrow_plain d _ M1' M2' B1' B2' D plains eq_refl Hdead); [|exact Hk|exact Hn].
  exists x0, eps. split; [exact He|]. intros x Hx l Hl. rewrite <- (Hb x Hx l Hl).
  unfold pattern_of. destruct (Rle_dec 0 _); lra.
Qed.

(** Strict convention: active iff the pre-activation is > 0. *)
Corollary no_narrow_nonempty_interior_strict :
  forall d M1 M2 B1 B2 (D : nat -> bool) plains,
    dead_on d M1 B1 B2 ->
    (exists (x0 : vec) (eps : R), 0 < eps /\
       forall x, norm1 d (fun j => x j - x0 j) < eps ->
         forall l, (l < bwidth B1)%nat ->
           (if Rlt_dec 0 (mv d (bWup B1) x l + bup B1 l) then true else false) = D l) ->
    trivial_kernel d (matmul d M2 (piece_lin d M1 B1 D)) ->
    Exists (fun P => (bwidth P < d)%nat) plains ->
    ~ (forall x i, (i < d)%nat -> bres_stack d [(M1, B1); (M2, B2)] x i = bplain_stack d plains x i).
Proof.
  intros d M1' M2' B1' B2' D plains Hdead (x0 & eps & He & Hb) Hk Hn.
  apply (dead_block_no_narrow_plain d _ M1' M2' B1' B2' D plains eq_refl Hdead); [|exact Hk|exact Hn].
  exists x0, eps. split; [exact He|]. intros x Hx l Hl. rewrite <- (Hb x Hx l Hl).
  destruct (Rlt_dec 0 _); lra.
Qed.

(** ** Certificates on the instance *)
Lemma rat_int : forall z : Z, rational (IZR z).
Proof. intros z. exists (z # 1)%Q. unfold Q2R. simpl. field. Qed.

Lemma inst_rational : rational_weights M1 B1 B2.
Proof.
  unfold rational_weights, M1, B1, B2; simpl.
  repeat split; intros;
    first [ apply (rat_int 1) | apply (rat_int (-1)) | apply (rat_int 0) | apply (rat_int 3)
          | exists (-1 # 1)%Q; unfold Q2R; simpl; field ].
Qed.

Lemma inst_rational_certs : forall (S : nat -> bool) j, (j < 1)%nat ->
  rational_bound_cert 1 M1 B1 B2 S j \/ rational_empty_cert 1 B1 S.
Proof. apply (dead_on_image_iff_rational_certificates 1 M1 B1 B2 inst_rational). exact inst_dead. Qed.

(** A firing instance: same block 1, block 2 unit relu(y + 1) fires at G_1(0) = 0.
    The iff then refutes the existence of certificates: the certificate notions are
    not trivially satisfiable. *)
Definition B2f : blayer := mk_blayer 1 (fun _ _ => 3) (fun _ _ => 1) (fun _ => 1) (fun _ => 4).

Lemma firing_not_dead : ~ dead_on 1 M1 B1 B2f.
Proof.
  intros H. specialize (H (fun _ => 0) 0%nat ltac:(simpl; lia)).
  unfold mv in H. simpl in H. rewrite G1_value in H. unfold Rmax in H.
  destruct (Rle_dec _ _); lra.
Qed.

Lemma firing_rational_weights : rational_weights M1 B1 B2f.
Proof.
  unfold rational_weights, M1, B1, B2f; simpl.
  repeat split; intros;
    first [ apply (rat_int 1) | apply (rat_int (-1)) | apply (rat_int 0) | apply (rat_int 3)
          | exists (-1 # 1)%Q; unfold Q2R; simpl; field ].
Qed.

Lemma firing_no_certs :
  ~ (forall (S : nat -> bool) j, (j < 1)%nat -> bound_cert 1 M1 B1 B2f S j \/ empty_cert 1 B1 S).
Proof. intros H. apply firing_not_dead. apply dead_on_image_iff_certificates. exact H. Qed.

Lemma firing_no_rational_certs :
  ~ (forall (S : nat -> bool) j, (j < 1)%nat ->
       rational_bound_cert 1 M1 B1 B2f S j \/ rational_empty_cert 1 B1 S).
Proof.
  intros H. apply firing_not_dead.
  apply (dead_on_image_iff_rational_certificates 1 M1 B1 B2f firing_rational_weights). exact H.
Qed.


(** ** Is [rational_weights] needed for the rational iff?  With U_2 = t (any t > 0) on
    the fold, block 2 is dead, and a rational certificate for the pattern "inactive"
    forces t to be rational.  So the iff without the hypothesis would make every
    positive real rational. *)
Definition B2t (t : R) : blayer := mk_blayer 1 (fun _ _ => 0) (fun _ _ => t) (fun _ => 0) (fun _ => 0).

Lemma t_dead : forall t, 0 < t -> dead_on 1 M1 B1 (B2t t).
Proof.
  intros t Ht x l Hl. unfold mv. simpl. rewrite G1_value.
  pose proof (Rmax_l (x 0%nat) 0). nra.
Qed.

Lemma rational_iff_needs_rational_weights :
  (forall d M1 B1 B2, dead_on d M1 B1 B2 <->
     forall (S : nat -> bool) j, (j < bwidth B2)%nat ->
       rational_bound_cert d M1 B1 B2 S j \/ rational_empty_cert d B1 S) ->
  forall t, 0 < t -> rational t.
Proof.
  intros H t Ht.
  destruct (proj1 (H 1%nat M1 B1 (B2t t)) (t_dead t Ht) Dinact 0%nat ltac:(simpl; lia))
    as [(lam & Hr & Hl & Hc & Hv & _)|(y & Hr & Hy & Hc & Hv & _)].
  - specialize (Hc 0%nat ltac:(lia)).
    unfold region_rows, cert_g, transpose_mv, piece_lin, Dinact, M1, B1, B2t in Hc. simpl in Hc.
    replace t with (lam 0%nat) by lra. apply Hr.
  - specialize (Hc 0%nat ltac:(lia)).
    unfold region_rows, region_rhs, Dinact, B1 in Hc, Hv. simpl in Hc, Hv. lra.
Qed.

(** ** Is [dead_on_image] needed for (b)?  d = 1: the fold, P_1 = -relu(-x), block 2
    y + relu(y + 1) (rank 1, width 1 = 2d - r): every other hypothesis of
    dead_block_plain_explicit holds, the plain stack gives -1 at 0 and F gives 1. *)
Definition B2fire : blayer := mk_blayer 1 (fun _ _ => 1) (fun _ _ => 1) (fun _ => 1) (fun _ => 0).

Lemma dead_block_plain_needs_dead_on_image :
  ~ (forall (d : nat) (res : list (mat * blayer)) (M1 M2 : mat) (B1 B2 P1 : blayer)
         (r : nat) (idx : nat -> nat) (Lv : nat -> vec) (G : mat),
       res = [(M1, B1); (M2, B2)] ->
       (forall x i, (i < d)%nat -> blayer_block d relu P1 x i = rblock d M1 B1 x i) ->
       (r <= d)%nat -> (r + 2 * (d - r) <= bwidth B2)%nat ->
       (forall k, (k < r)%nat -> (idx k < bwidth B2)%nat) ->
       (forall i j, (i < d)%nat -> (j < d)%nat ->
          sum d (fun k => G i k * append r (fun k => bWup B2 (idx k)) Lv k j) = M2 i j) ->
       forall x i, (i < d)%nat ->
         bplain_stack d [P1; dead_second_layer d r idx Lv G B2] x i = bres_stack d res x i).
Proof.
  intros H.
  pose proof (H 1%nat _ M1 (fun _ _ => 1) B1 B2fire P1 1%nat (fun _ => 0%nat) (fun _ _ => 0)
                (fun _ _ => 1) eq_refl inst_first_plain ltac:(lia) ltac:(simpl; lia)
                ltac:(intros; simpl; lia)
                ltac:(intros i j Hi Hj; unfold append; simpl; ring)
                (fun _ => 0) 0%nat ltac:(lia)) as E.
  rewrite bplain_stack_two, bres_stack_two in E.
  unfold dead_second_layer, blayer_block, bblock, rblock, dl_down, dl_up, dl_bup, dl_bdown,
    P1, B1, B2fire, M1, mv, relu in E.
  simpl in E. unfold Rmax in E.
  unfold blayer_block, bblock, mv in E. simpl in E. unfold Rmax in E.
  repeat match type of E with context [Rle_dec ?a ?b] => destruct (Rle_dec a b) end; lra.
Qed.
Print Assumptions rational_iff_needs_rational_weights.
Print Assumptions dead_block_plain_needs_dead_on_image.

(** ** Axioms *)
Print Assumptions dead_block_affine.
Print Assumptions dead_block_plain.
Print Assumptions dead_block_plain_explicit.
Print Assumptions dead_second_layer_affine.
Print Assumptions farkas_sound.
Print Assumptions farkas_empty.
Print Assumptions dead_block_no_narrow_plain.
Print Assumptions bplain_image_covectors.
Print Assumptions affine_hyperplanes_miss_ball.
Print Assumptions block1_piece_on.
Print Assumptions dead_on_image_of_certificates.
Print Assumptions block1_piece.
Print Assumptions dead_on_image_iff_rational_certificates.
Print Assumptions dead_on_image_iff_small_certificates.
Print Assumptions caratheodory.
Print Assumptions dead_on_image_iff_certificates.
Print Assumptions certificates_of_dead_on_image.
Print Assumptions farkas_complete.
Print Assumptions fm_alternative.
Print Assumptions dead_block_affine_instance.
Print Assumptions dead_block_affine_needs_dead_on_image.
Print Assumptions inst_no_narrow.
Print Assumptions inst_plain.
Print Assumptions inst_rational_certs.
