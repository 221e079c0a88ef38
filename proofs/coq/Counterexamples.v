(** * The boundary counterexamples: drop one hypothesis of a main theorem and
    its conclusion fails.

    When the dropped hypothesis is a named binder of the main theorem, the lemma
    here states exactly "the main theorem without that binder is false"; the
    audit checks this mechanically (it removes the binder from the compiled
    statement and asks Coq whether the lemma proves the negation of what is
    left).  When the dropped hypothesis is structural (bias terms, which the
    formal blocks do not have), the lemma states the instance in standard-library
    terms: every other hypothesis holds and the residual block equals a biased
    residual-free block.  The instances are those of oracle/claims/boundary.py
    and proofs/informal/boundary-cases.md, except where noted. *)

From Coq Require Import Reals Lra Lia List.
(* Coquelicot for the limit hypothesis of relu-limit (see RealActivations.v for the warning). *)
Set Warnings "-ambiguous-paths".
From Coquelicot Require Import Coquelicot.
From SkipAbsorption Require Import Linalg SkipReduction Homogeneous Gated Depth SignFlip Activations
  Instances Necessity Width DepthStack Limit DepthNarrow.
(* Coquelicot's own [Forall] (over its expressions) must not hide the lists' one. *)
Import List ListNotations.
Open Scope R_scope.

(** ** Tools *)

Lemma relu_homogeneous_1 : forall t z, 0 < t -> relu (t * z) = Rpower t 1 * relu z.
Proof. intros t z Ht. rewrite Rpower_1 by assumption. apply relu_pos_scale. assumption. Qed.

(** [-I] and [I] on the [2 x 2] range. *)
Definition neg_ident : mat := fun i j => - ident i j.

(** x + (-I) relu(I x) = (-I) relu(-I x) coordinatewise (relu(z) - relu(-z) = z). *)
Lemma relu_flip_2 : forall x i, (i < 2)%nat ->
  mv 2 ident x i + block 2 2 relu neg_ident ident x i = block 2 2 relu neg_ident neg_ident x i.
Proof.
  intros x i Hi. pose proof (relu_odd_part (x 0%nat)). pose proof (relu_odd_part (x 1%nat)).
  destruct i as [|[|i]]; [ | | lia];
    unfold block, readout, mv, neg_ident, ident, kron; simpl; tidy;
    replace (- (1) * x 0%nat) with (- x 0%nat) by ring;
    replace (- (1) * x 1%nat) with (- x 1%nat) by ring; lra.
Qed.

(** ** Drop [k_ne_1] (relu_degree_one): relu is homogeneous of degree 1, and
    x + B(x) with W_up = I, W_down = -I (d = m = 2, M = I) is the relu block with
    W_up = -I, W_down = -I. *)

Lemma homogeneous_impossible_needs_k_ne_1 :
  ~ (forall (d m : nat) (k : R) (sigma : R -> R) (M Wd Wu : mat)
            (k_pos : 0 < k)
            (M_nonzero : nonzero_mat d M)
            (sigma_homogeneous : forall t z, 0 < t -> sigma (t * z) = Rpower t k * sigma z),
       ~ absorbable d m sigma (fun x i => mv d M x i + block d m sigma Wd Wu x i)).
Proof.
  intros H. apply (H 2%nat 2%nat 1 relu ident neg_ident ident); [lra | exact two_nonzero
    | exact relu_homogeneous_1 |].
  exists neg_ident, neg_ident. exact relu_flip_2.
Qed.

Lemma homogeneous_any_width_needs_k_ne_1 :
  ~ (forall (d m m' : nat) (k : R) (sigma tau : R -> R) (M Wd Wu Wd' Wu' : mat)
            (k_pos : 0 < k)
            (M_nonzero : nonzero_mat d M)
            (sigma_homogeneous : forall t z, 0 < t -> sigma (t * z) = Rpower t k * sigma z)
            (tau_homogeneous : forall t z, 0 < t -> tau (t * z) = Rpower t k * tau z),
       ~ (forall x i, (i < d)%nat ->
            mv d M x i + block d m sigma Wd Wu x i = block d m' tau Wd' Wu' x i)).
Proof.
  intros H. apply (H 2%nat 2%nat 2%nat 1 relu relu ident neg_ident ident neg_ident neg_ident);
    [lra | exact two_nonzero | exact relu_homogeneous_1 | exact relu_homogeneous_1 |].
  exact relu_flip_2.
Qed.

(** ** Drop [M_nonzero] (zero_skip): with M = 0, B' = B absorbs (relu^2 and swiglu). *)

Lemma homogeneous_impossible_needs_M_nonzero :
  ~ (forall (d m : nat) (k : R) (sigma : R -> R) (M Wd Wu : mat)
            (k_pos : 0 < k) (k_ne_1 : k <> 1)
            (sigma_homogeneous : forall t z, 0 < t -> sigma (t * z) = Rpower t k * sigma z),
       ~ absorbable d m sigma (fun x i => mv d M x i + block d m sigma Wd Wu x i)).
Proof.
  intros H. apply (H 1%nat 1%nat 2 relu2 (fun _ _ => 0) (fun _ _ => 1) (fun _ _ => 1));
    [lra | lra | exact relu2_homogeneous |].
  exists (fun _ _ => 1), (fun _ _ => 1). intros x i Hi.
  unfold mv. simpl. ring.
Qed.

Lemma gated_impossible_needs_M_nonzero :
  ~ (forall (d m : nat) (g : R -> R) (M Wd Wg Wu : mat)
            (gate_zero_at_0 : g 0 = 0)
            (gate_differentiable_at_0 : derivable_pt g 0),
       ~ gabsorbable d m g (fun x i => mv d M x i + gblock d m g Wd Wg Wu x i)).
Proof.
  intros H. apply (H 1%nat 1%nat swiglu_gate (fun _ _ => 0) (fun _ _ => 1) (fun _ _ => 1) (fun _ _ => 1));
    [exact swiglu_gate_zero | exact swiglu_gate_derivable |].
  exists (fun _ _ => 1), (fun _ _ => 1), (fun _ _ => 1). intros x i Hi.
  unfold mv. simpl. ring.
Qed.

(** ** Drop [bias_free] (biased_relu2, structural: the formal blocks have no
    biases).  relu^2 is homogeneous of degree 2 > 0, 2 <> 1, M = 1 <> 0, and
    x + B(x) for a relu^2 block B of width 4 with W_down = 0 (any W_up) equals the
    biased relu^2 block of width 4 with W_up = (1, -1, 1, -1), b_up = (1, -1, -1, 1),
    W_down = (1/4, 1/4, -1/4, -1/4). *)

Lemma homogeneous_impossible_needs_bias_free :
  (forall t z, 0 < t -> Rmax (t * z) 0 * Rmax (t * z) 0 = Rpower t 2 * (Rmax z 0 * Rmax z 0)) /\
  0 < 2 /\ 2 <> 1 /\ 1 <> 0 /\
  forall u1 u2 u3 u4 x : R,
    1 * x + (0 * (Rmax (u1 * x) 0 * Rmax (u1 * x) 0) + 0 * (Rmax (u2 * x) 0 * Rmax (u2 * x) 0)
             + 0 * (Rmax (u3 * x) 0 * Rmax (u3 * x) 0) + 0 * (Rmax (u4 * x) 0 * Rmax (u4 * x) 0)) =
    / 4 * (Rmax (1 * x + 1) 0 * Rmax (1 * x + 1) 0)
    + / 4 * (Rmax (-1 * x + -1) 0 * Rmax (-1 * x + -1) 0)
    + - / 4 * (Rmax (1 * x + -1) 0 * Rmax (1 * x + -1) 0)
    + - / 4 * (Rmax (-1 * x + 1) 0 * Rmax (-1 * x + 1) 0).
Proof.
  split; [|split; [lra|split; [lra|split; [lra|]]]].
  - exact relu2_homogeneous.
  - intros u1 u2 u3 u4 x.
    (* relu(z)^2 + relu(-z)^2 = z^2, for z = x + 1 and z = x - 1 *)
    assert (Hsq : forall z, Rmax z 0 * Rmax z 0 + Rmax (- z) 0 * Rmax (- z) 0 = z * z).
    { intros z. unfold Rmax. destruct (Rle_dec z 0), (Rle_dec (- z) 0); nra. }
    pose proof (Hsq (x + 1)) as Ha. pose proof (Hsq (x - 1)) as Hb.
    replace (- (x + 1)) with (-1 * x + -1) in Ha by ring.
    replace (x + 1) with (1 * x + 1) in Ha by ring.
    replace (- (x - 1)) with (-1 * x + 1) in Hb by ring.
    replace (x - 1) with (1 * x + -1) in Hb by ring.
    nra.
Qed.

(** ** Drop [gate_zero_at_0] in Prop. 6 (glu_gate_half): the sigmoid gate
    (sigmoid(0) = 1/2) is differentiable at 0, M = I <> 0, and x + B(x) with
    W_gate = [[1, 2]; [-1, 1]], W_up = I, W_down = -I (d = m = 2) equals the glu
    block with the gate rows and the output columns negated. *)

Lemma gated_impossible_needs_gate_zero_at_0 :
  ~ (forall (d m : nat) (g : R -> R) (M Wd Wg Wu : mat)
            (gate_differentiable_at_0 : derivable_pt g 0)
            (M_nonzero : nonzero_mat d M),
       ~ gabsorbable d m g (fun x i => mv d M x i + gblock d m g Wd Wg Wu x i)).
Proof.
  intros H. apply (H 2%nat 2%nat sigmoid ident neg_ident glu_gate_w ident);
    [exact sigmoid_derivable | exact two_nonzero |].
  exists (flip_cols (fun l => (l <? 2)%nat) neg_ident),
         (flip_rows (fun l => (l <? 2)%nat) glu_gate_w), ident.
  intros x i Hi. apply glu_flip; [exact sigmoid_flip| |exact Hi].
  intros i' j Hi' Hj. unfold neg_ident, ident, kron.
  destruct i' as [|[|i']]; [ | | lia]; destruct j as [|[|j]]; try lia; simpl; lra.
Qed.

(** ** Drop [gate_zero_at_0] in the continuity extension.  The glu instance above
    does not contradict [gated_continuity], whose conclusion only excludes blocks
    B' whose own gate also vanishes at 0 (the glu block's gate does not).  The
    instance here keeps that: gate g = 1 (continuous, g(0) = 1), M = 1, W_up = 1,
    W_down = -1, so x + B(x) = 0, which is the gated block with gate g' = 0
    (vanishing and continuous at 0). *)

Lemma gated_continuity_needs_gate_zero_at_0 :
  ~ (forall (d m m' : nat) (g g' : R -> R) (M Wd Wg Wu Wd' Wg' Wu' : mat)
            (gate_continuous_at_0 : continuity_pt g 0)
            (gate'_zero_at_0 : g' 0 = 0)
            (gate'_continuous_at_0 : continuity_pt g' 0)
            (M_nonzero : nonzero_mat d M),
       ~ (forall x i, (i < d)%nat ->
            mv d M x i + gblock d m g Wd Wg Wu x i = gblock d m' g' Wd' Wg' Wu' x i)).
Proof.
  intros H. apply (H 1%nat 1%nat 1%nat (fun _ => 1) (fun _ => 0) ident (fun _ _ => -1) (fun _ _ => 1)
                     (fun _ _ => 1) (fun _ _ => 1) (fun _ _ => 1) (fun _ _ => 1));
    [apply continuity_pt_const; intros a b; reflexivity | reflexivity
    | apply continuity_pt_const; intros a b; reflexivity | exact one_nonzero |].
  intros x i Hi. assert (i = 0%nat) by lia. subst i.
  unfold gblock, readout, mv, ident, kron. simpl. ring.
Qed.

(** ** Drop [bias_free] in Prop. 6 (biased_swiglu, structural): silu(0) = 0, silu
    is differentiable (so continuous) at 0, M = I <> 0, and x + B(x) for a swiglu
    block B with W_down = 0 (any W_gate, W_up) equals the biased swiglu block with
    zero gate rows, gate bias 1, W_up = I and W_down = (1 + e^-1) I: each unit
    computes silu(1) x_k = x_k / (1 + e^-1). *)

Lemma gated_impossible_needs_bias_free :
  0 / (1 + exp (- 0)) = 0 /\
  (exists l : R, derivable_pt_lim (fun z => z / (1 + exp (- z))) 0 l) /\
  continuity_pt (fun z => z / (1 + exp (- z))) 0 /\
  1 <> 0 /\
  forall g00 g01 g10 g11 u00 u01 u10 u11 x0 x1 : R,
    x0 + (0 * ((g00 * x0 + g01 * x1) / (1 + exp (- (g00 * x0 + g01 * x1))) * (u00 * x0 + u01 * x1))
          + 0 * ((g10 * x0 + g11 * x1) / (1 + exp (- (g10 * x0 + g11 * x1))) * (u10 * x0 + u11 * x1)))
    = (1 + exp (-1)) * ((0 * x0 + 0 * x1 + 1) / (1 + exp (- (0 * x0 + 0 * x1 + 1)))
                        * (1 * x0 + 0 * x1))
      + 0 * ((0 * x0 + 0 * x1 + 1) / (1 + exp (- (0 * x0 + 0 * x1 + 1))) * (0 * x0 + 1 * x1)) /\
    x1 + (0 * ((g00 * x0 + g01 * x1) / (1 + exp (- (g00 * x0 + g01 * x1))) * (u00 * x0 + u01 * x1))
          + 0 * ((g10 * x0 + g11 * x1) / (1 + exp (- (g10 * x0 + g11 * x1))) * (u10 * x0 + u11 * x1)))
    = 0 * ((0 * x0 + 0 * x1 + 1) / (1 + exp (- (0 * x0 + 0 * x1 + 1))) * (1 * x0 + 0 * x1))
      + (1 + exp (-1)) * ((0 * x0 + 0 * x1 + 1) / (1 + exp (- (0 * x0 + 0 * x1 + 1)))
                          * (0 * x0 + 1 * x1)).
Proof.
  assert (Hd : derivable_pt (fun z => z / (1 + exp (- z))) 0).
  { exact swiglu_gate_derivable. }
  split; [unfold Rdiv; ring|]. split; [destruct Hd as (l & Hl); exists l; exact Hl|].
  split; [exact (derivable_continuous_pt _ _ Hd)|]. split; [lra|].
  intros g00 g01 g10 g11 u00 u01 u10 u11 x0 x1.
  replace (0 * x0 + 0 * x1 + 1) with 1 by ring.
  replace (- (1)) with (-1) by ring. pose proof (exp_pos (-1)). unfold Rdiv.
  rewrite !Rmult_0_l, !Rplus_0_r, !Rplus_0_l.
  split; field; lra.
Qed.

(** ** Drop [M_invertible] (singular_skip): M = (1/2) 1 1^T (d = 2), W_up = (1, 1),
    W_down = (-1/2, -1/2)^T, width 1, relu.  x -> Mx + B(x) is a relu block of
    width 1 (the sign flip, S = {1}), but with the identity skip (any "inverse",
    here I) x -> x + B(x) is not: at x = (1, -1) and at -x the hidden unit is 0 and
    the map is +-(1, -1), while a single relu unit vanishes at x or at -x. *)

Lemma skip_reduction_needs_M_invertible :
  ~ (forall (d m : nat) (sigma : R -> R) (M Minv Wd Wu : mat),
       absorbable d m sigma (fun x i => mv d M x i + block d m sigma Wd Wu x i) <->
       absorbable d m sigma (fun x i => x i + block d m sigma (matmul d Minv Wd) Wu x i)).
Proof.
  intros H.
  set (M := fun _ _ : nat => / 2). set (Wu := fun _ _ : nat => 1). set (Wd := fun _ _ : nat => - / 2).
  destruct (proj1 (H 2%nat 1%nat relu M ident Wd Wu)) as (Wd' & Wu' & Heq).
  - exists Wd, (flip_rows (fun _ => true) Wu). intros x i Hi.
    apply (sign_flip_absorbs 2 1 relu M Wd Wu (fun _ => true) relu_odd_part); [|exact Hi].
    intros i' j _ _. unfold Wd, Wu, M. simpl. field.
  - pose proof (Heq (v2 1 (-1)) 0%nat ltac:(lia)) as Ha.
    pose proof (Heq (v2 (-1) 1) 0%nat ltac:(lia)) as Hb.
    unfold block, readout, mv, matmul, ident, kron, Wd, Wu, v2, relu in Ha, Hb. simpl in Ha, Hb.
    set (w := Wd' 0%nat 0%nat) in Ha, Hb.
    replace (0 + 1 * 1 + 1 * -1) with 0 in Ha by ring.
    replace (0 + 1 * -1 + 1 * 1) with 0 in Hb by ring.
    replace (0 + Wu' 0%nat 0%nat * -1 + Wu' 0%nat 1%nat * 1)
      with (- (0 + Wu' 0%nat 0%nat * 1 + Wu' 0%nat 1%nat * -1)) in Hb by ring.
    set (s := 0 + Wu' 0%nat 0%nat * 1 + Wu' 0%nat 1%nat * -1) in Ha, Hb.
    assert (E : Rmax 0 0 = 0) by (unfold Rmax; destruct (Rle_dec 0 0); reflexivity).
    rewrite E in Ha, Hb.
    assert (Hs : Rmax s 0 = 0 \/ Rmax (- s) 0 = 0)
      by (unfold Rmax; destruct (Rle_dec s 0), (Rle_dec (- s) 0); [left|left|right|lra]; reflexivity).
    destruct Hs as [Hs|Hs]; rewrite Hs in *; lra.
Qed.

(** ** Drop [res_blocks_flat] (depth).  Python's relu_stack_not_flat uses relu
    blocks on both sides, so it also breaks [plain_blocks_flat]; here only the
    residual block is not flat: d = 1, B = the relu block of width 2 with
    W_up = (1, -1)^T, W_down = (-1, 1), i.e. B(x) = -relu(x) + relu(-x) = -x, so
    x + B(x) = 0, which is the (flat) relu^2 block with zero weights. *)

Definition minus_x_block : vec -> vec :=
  block 1 2 relu (fun _ l => match l with O => -1 | _ => 1 end)
                 (fun l _ => match l with O => 1 | _ => -1 end).
Definition zero_relu2_block : vec -> vec := block 1 1 relu2 (fun _ _ => 0) (fun _ _ => 0).

Lemma minus_x_block_value : forall x, minus_x_block x 0%nat = - x 0%nat.
Proof.
  intros x. unfold minus_x_block, block, readout, mv. simpl. tidy.
  pose proof (relu_odd_part (x 0%nat)). replace (-1 * x 0%nat) with (- x 0%nat) by ring. lra.
Qed.

Lemma depth_impossible_needs_res_blocks_flat :
  ~ (forall (d : nat) (res plains : list (vec -> vec))
            (plain_blocks_flat : Forall (flat d) plains)
            (plain_nonempty : plains <> [])
            (d_pos : (0 < d)%nat),
       ~ (forall x i, (i < d)%nat -> res_comp_id res x i = plain_comp plains x i)).
Proof.
  intros H. apply (H 1%nat [minus_x_block] [zero_relu2_block]);
    [repeat constructor; apply relu2_block_flat | discriminate | lia |].
  intros x i Hi. assert (i = 0%nat) by lia. subst i. simpl.
  rewrite minus_x_block_value. unfold zero_relu2_block, block, readout. simpl. ring.
Qed.

Lemma depth_any_needs_res_blocks_flat :
  ~ (forall (d : nat) (res : list (mat * (vec -> vec))) (plains : list (vec -> vec))
            (plain_blocks_flat : Forall (flat d) plains)
            (plain_nonempty : plains <> [])
            (skip_product_nonzero : nonzero_mat d (skip_product d res)),
       ~ (forall x i, (i < d)%nat -> res_comp d res x i = plain_comp plains x i)).
Proof.
  intros H. apply (H 1%nat [(ident, minus_x_block)] [zero_relu2_block]);
    [repeat constructor; apply relu2_block_flat | discriminate | |].
  - exists 0%nat, 0%nat. repeat split; try lia.
    unfold skip_product, matmul, ident, kron. simpl. lra.
  - intros x i Hi. assert (i = 0%nat) by lia. subst i. simpl.
    rewrite minus_x_block_value. unfold zero_relu2_block, block, readout, mv, ident, kron.
    simpl. ring.
Qed.

(** ** relu-gelu-iff and relu-limit: drop [nondegenerate] (collinear_rows).
    [d = 1], [M = 1], rows [u = (1, -1)] (collinear), output weights [(2, 2)]:
    [x + 2 relu x + 2 relu(-x) = 3 relu x + relu(-x)], a relu block of the
    same width, yet the subset sums of [w_l u_l] are 0, 2, -2, 0, never -1. *)

Definition collinear_up : mat := fun l _ => match l with O => 1 | _ => -1 end.
Definition collinear_down : mat := fun _ _ => 2.
Definition collinear_down' : mat := fun _ l => match l with O => 3 | _ => 1 end.

Lemma collinear_absorbed : forall x i, (i < 1)%nat ->
  mv 1 ident x i + block 1 2 relu collinear_down collinear_up x i =
  block 1 2 relu collinear_down' collinear_up x i.
Proof.
  intros x i Hi. assert (i = 0%nat) by lia. subst i.
  pose proof (relu_odd_part (x 0%nat)).
  unfold block, readout, mv, ident, kron, collinear_down, collinear_down', collinear_up. simpl. tidy.
  replace (-1 * x 0%nat) with (- x 0%nat) by ring. lra.
Qed.

Lemma collinear_no_index_set : forall S : nat -> bool,
  ~ index_condition_holds 1 2 S ident collinear_down collinear_up.
Proof.
  intros S HS. specialize (HS 0%nat 0%nat ltac:(lia) ltac:(lia)).
  unfold collinear_down, collinear_up, ident, kron in HS. simpl in HS.
  destruct (S 0%nat), (S 1%nat); lra.
Qed.

Lemma relu_iff_needs_nondegenerate :
  ~ (forall (d m : nat) (M Wd Wu : mat),
       (exists Wd' Wu' : mat, forall x i, (i < d)%nat ->
          mv d M x i + block d m relu Wd Wu x i = block d m relu Wd' Wu' x i) <->
       (exists S : nat -> bool, index_condition_holds d m S M Wd Wu)).
Proof.
  intros H. destruct (proj1 (H 1%nat 2%nat ident collinear_down collinear_up)) as [S HS].
  - exists collinear_down', collinear_up. exact collinear_absorbed.
  - exact (collinear_no_index_set S HS).
Qed.

Lemma relu_limit_iff_needs_nondegenerate :
  ~ (forall (d m : nat) (sigma : R -> R) (M Wd Wu : mat) (bu bd : vec)
         (sigma_limit_relu : forall z c,
            is_lim (fun t => sigma (t * z + c) / t) p_infty (relu z))
         (sigma_odd_part : forall z, sigma z - sigma (- z) = z),
       (exists (Wd' Wu' : mat) (bu' bd' : vec), forall x i, (i < d)%nat ->
          mv d M x i + bblock d m sigma Wd Wu bu bd x i = bblock d m sigma Wd' Wu' bu' bd' x i) <->
       (exists S : nat -> bool, index_condition_holds d m S M Wd Wu)).
Proof.
  intros H.
  destruct (proj1 (H 1%nat 2%nat relu ident collinear_down collinear_up (fun _ => 0) (fun _ => 0)
                     relu_limit_relu relu_odd_part)) as [S HS].
  - exists collinear_down', collinear_up, (fun _ => 0), (fun _ => 0). intros x i Hi.
    rewrite !bblock_no_bias. exact (collinear_absorbed x i Hi).
  - exact (collinear_no_index_set S HS).
Qed.

(** ** relu-gelu-iff: drop [same_width] (width_m_plus_d, structural: the
    formal statement fixes the width of [B']).  [W_up = W_down = I], [M = I]
    ([d = m = 2]): the (0, 0) entry of [W_S U_S] is 0 or 1, so no index set
    gives [-I]; yet [x + relu(x) = 2 relu(x) - relu(-x)] coordinatewise, a relu
    block of width [m + d = 4] (rows (1,0), (0,1), (-1,0), (0,-1), output
    columns (2,0), (0,2), (-1,0), (0,-1)); through SignFlip.extra_units_absorb. *)

Lemma relu_gelu_iff_needs_same_width :
  (forall s0 s1 : bool, (if s0 then 1 * 1 else 0) + (if s1 then 0 * 0 else 0) <> -1) /\
  forall x0 x1 : R,
  x0 + (1 * Rmax (1 * x0 + 0 * x1) 0 + 0 * Rmax (0 * x0 + 1 * x1) 0) =
    2 * Rmax (1 * x0 + 0 * x1) 0 + 0 * Rmax (0 * x0 + 1 * x1) 0
    + -1 * Rmax (-1 * x0 + 0 * x1) 0 + 0 * Rmax (0 * x0 + -1 * x1) 0 /\
  x1 + (0 * Rmax (1 * x0 + 0 * x1) 0 + 1 * Rmax (0 * x0 + 1 * x1) 0) =
    0 * Rmax (1 * x0 + 0 * x1) 0 + 2 * Rmax (0 * x0 + 1 * x1) 0
    + 0 * Rmax (-1 * x0 + 0 * x1) 0 + -1 * Rmax (0 * x0 + -1 * x1) 0.
Proof.
  split; [intros s0 s1; destruct s0, s1; lra|].
  intros x0 x1.
  pose proof (extra_units_absorb 2 2 relu ident ident (fun k => k)
                (fun k i => - ident k i)) as H.
  assert (Hr : forall k, (k < 2)%nat -> (k < 2)%nat) by (intros; assumption).
  assert (Hs : forall i j, (i < 2)%nat -> (j < 2)%nat ->
            sum 2 (fun k => - ident k i * ident k j) = - ident i j).
  { intros i j Hi Hj. unfold ident, kron.
    destruct i as [|[|i]]; [ | | lia]; destruct j as [|[|j]]; try lia; simpl; lra. }
  specialize (H Hr relu_odd_part Hs (v2 x0 x1)).
  pose proof (H 0%nat ltac:(lia)) as H0. pose proof (H 1%nat ltac:(lia)) as H1. clear H Hs Hr.
  unfold block, readout, mv, ext_down, ext_up, ident, kron, v2, relu in H0, H1.
  simpl in H0, H1. split.
  - align H0. lra.
  - align H1. lra.
Qed.

(** ** absorption-width and depth-width: drop [rows_span].  [d = 1] and a
    block of width [m = 0] (no rows, so they span nothing): [x + B(x) = x],
    but [m + d = 1] relu unit [w relu(u x)] vanishes at [x = 1] or at
    [x = -1].  (The oracle's instance width_rank_deficient is a rank-2 block in
    [d = 3] whose exact minimal width 7 exceeds [max(m + d, 2d) = 6]; this one
    is smaller and needs no lower-bound argument.) *)

Lemma identity_not_one_relu_unit : forall w u : R, ~ (forall x, x = w * Rmax (u * x) 0).
Proof.
  intros w u H. pose proof (H 1) as H1. pose proof (H (-1)) as H2.
  unfold Rmax in H1, H2. destruct (Rle_dec (u * 1) 0), (Rle_dec (u * -1) 0); nra.
Qed.

Lemma absorption_width_needs_rows_span :
  ~ (forall (d m : nat) (sigma : R -> R) (M Wd Wu : mat)
         (sigma_odd_part : forall z, sigma z - sigma (-z) = z),
       exists Wd' Wu' : mat, forall x i, (i < d)%nat ->
         mv d M x i + block d m sigma Wd Wu x i = block d (m + d) sigma Wd' Wu' x i).
Proof.
  intros H. destruct (H 1%nat 0%nat relu ident ident ident relu_odd_part) as (Wd' & Wu' & E).
  apply (identity_not_one_relu_unit (Wd' 0%nat 0%nat) (Wu' 0%nat 0%nat)). intros r.
  specialize (E (v1 r) 0%nat ltac:(lia)).
  unfold block, readout, mv, ident, kron, v1, relu in E. simpl in E.
  rewrite ?Rplus_0_l, ?Rplus_0_r, ?Rmult_1_l in E. lra.
Qed.

Lemma depth_width_needs_rows_span :
  ~ (forall (d : nat) (sigma : R -> R) (layers : list layer)
         (sigma_odd_part : forall z, sigma z - sigma (-z) = z),
       exists plains : list layer,
         map width plains = map (fun L => (width L + d)%nat) layers /\
         forall x i, (i < d)%nat ->
           res_comp_id (map (layer_block d sigma) layers) x i =
           plain_comp (map (layer_block d sigma) plains) x i).
Proof.
  intros H. destruct (H 1%nat relu [mk_layer 0 ident ident] relu_odd_part) as (plains & Hw & E).
  destruct plains as [|[w1 Wd1 Wu1] [|]]; simpl in Hw; try discriminate.
  injection Hw as Hw1. subst w1.
  apply (identity_not_one_relu_unit (Wd1 0%nat 0%nat) (Wu1 0%nat 0%nat)). intros r.
  specialize (E (v1 r) 0%nat ltac:(lia)).
  unfold res_comp_id, plain_comp, layer_block, block, readout, mv, v1, relu in E. simpl in E.
  rewrite ?Rplus_0_l, ?Rplus_0_r, ?Rmult_1_l in E. lra.
Qed.

(** ** relu-limit: drop [sigma_limit_relu] (linear_activation).  [s z = z / 2]
    has [s z - s (-z) = z] but [s (t z) / t -> z / 2]: with [W_up = W_down = 1]
    ([d = m = 1], nondegenerate), [x + B(x) = 3 x / 2 = 3 s(x)] is an
    [s]-block of width 1, while no index set gives [-1]. *)

Lemma relu_limit_iff_needs_sigma_limit_relu :
  ~ (forall (d m : nat) (sigma : R -> R) (M Wd Wu : mat) (bu bd : vec)
         (sigma_odd_part : forall z, sigma z - sigma (- z) = z)
         (nondegenerate : nondegenerate_block d m Wd Wu),
       (exists (Wd' Wu' : mat) (bu' bd' : vec), forall x i, (i < d)%nat ->
          mv d M x i + bblock d m sigma Wd Wu bu bd x i = bblock d m sigma Wd' Wu' bu' bd' x i) <->
       (exists S : nat -> bool, index_condition_holds d m S M Wd Wu)).
Proof.
  intros H.
  destruct (proj1 (H 1%nat 1%nat (fun z => z / 2) ident ident ident (fun _ => 0) (fun _ => 0)
                     ltac:(intros z; cbv beta; field) (ident_nondegenerate 1))) as [S HS].
  - exists (fun _ _ => 3), ident, (fun _ => 0), (fun _ => 0). intros x i Hi.
    assert (i = 0%nat) by lia. subst i.
    unfold bblock, mv, ident, kron. simpl. field.
  - specialize (HS 0%nat 0%nat ltac:(lia) ltac:(lia)).
    unfold ident, kron in HS. simpl in HS. destruct (S 0%nat); lra.
Qed.

(** ** relu-limit: drop [sigma_odd_part] (the oracle's instance uses elu; this
    one another activation with the same defect).  [s z = z] for [z >= 1] and
    [0] below: [s z = z g(z)] with a gate [g] that tends to 1 at [+oo] and to
    0 at [-oo], so [s (t z + c) / t -> relu z], but [s(1/2) - s(-1/2) = 0].
    With [M = 1], [W_down = -1], [W_up = 1] ([d = m = 1], no biases) the
    index set [{0}] gives [-M], yet [x - s(x)] ([x] below 1, [0] from 1 on) is
    no biased [s]-block [w s(u x + b) + c] of width 1. *)

Definition jump_gate (z : R) : R := if Rle_dec 1 z then 1 else 0.
Definition jump_relu (z : R) : R := z * jump_gate z.

Lemma jump_relu_limit_relu : forall z c,
  is_lim (fun t => jump_relu (t * z + c) / t) p_infty (relu z).
Proof.
  unfold jump_relu. apply gate_limit_relu.
  - apply (is_lim_ext_loc (fun _ => 1)); [|apply is_lim_const].
    exists 1. intros z Hz. unfold jump_gate. destruct (Rle_dec 1 z); [reflexivity|lra].
  - apply (is_lim_ext_loc (fun _ => 0)); [|apply is_lim_const].
    exists 1. intros z Hz. unfold jump_gate. destruct (Rle_dec 1 z); [lra|reflexivity].
Qed.

Lemma jump_relu_low : forall y, y < 1 -> jump_relu y = 0.
Proof. intros y Hy. unfold jump_relu, jump_gate. destruct (Rle_dec 1 y); [lra|ring]. Qed.

Lemma jump_relu_high : forall y, 1 <= y -> jump_relu y = y.
Proof. intros y Hy. unfold jump_relu, jump_gate. destruct (Rle_dec 1 y); [ring|lra]. Qed.

(** [x - s(x)] is no single biased unit [w s(u x + b) + c]. *)
Lemma jump_residual_not_one_unit : forall w u b c : R,
  ~ (forall r, r - jump_relu r = w * jump_relu (u * r + b) + c).
Proof.
  intros w u b c F.
  assert (Fl : forall r, r < 1 -> r = w * jump_relu (u * r + b) + c).
  { intros r Hr. rewrite <- F, jump_relu_low by exact Hr. ring. }
  assert (Fh : forall r, 1 <= r -> 0 = w * jump_relu (u * r + b) + c).
  { intros r Hr. rewrite <- F, jump_relu_high by exact Hr. ring. }
  pose proof (Rle_abs b) as Hb. pose proof (Rabs_pos b) as Hb0.
  assert (Hb1 : - b <= Rabs b) by (rewrite <- Rabs_Ropp; apply Rle_abs).
  destruct (Rtotal_order u 0) as [Hu|[Hu|Hu]].
  - (* u < 0: far right the unit is off, far left it is linear *)
    set (q := (Rabs b + 1) / (- u)).
    assert (Hq : - u * q = Rabs b + 1) by (unfold q; field; lra).
    assert (Hq0 : 0 < q) by (unfold q; apply Rdiv_lt_0_compat; lra).
    (* right: u r + b < 1 for r = q + 1 *)
    pose proof (Fh (q + 1) ltac:(lra)) as E1.
    rewrite (jump_relu_low (u * (q + 1) + b)) in E1 by nra.
    (* left: u r + b >= 1 for r = -q - 1 and r = -q - 2 *)
    pose proof (Fl (- q - 1) ltac:(lra)) as E2. pose proof (Fl (- q - 2) ltac:(lra)) as E3.
    rewrite (jump_relu_high (u * (- q - 1) + b)) in E2 by nra.
    rewrite (jump_relu_high (u * (- q - 2) + b)) in E3 by nra.
    assert (Hwu : w * u = 1) by nra.
    assert (Hb' : b = 0) by nra.
    subst b.
    (* r = 1 / (2 u) < 0 has u r = 1/2 < 1: the unit is off, so r = c = 0 *)
    pose proof (Fl (/ (2 * u)) ltac:(assert (/ (2 * u) < 0) by (apply Rinv_lt_0_compat; lra); lra))
      as E4.
    replace (u * / (2 * u) + 0) with (/ 2) in E4 by (field; lra).
    rewrite jump_relu_low in E4 by lra.
    assert (/ (2 * u) < 0) by (apply Rinv_lt_0_compat; lra). lra.
  - (* u = 0: the unit is constant *)
    subst u. pose proof (Fl (-1) ltac:(lra)) as E1. pose proof (Fl (-2) ltac:(lra)) as E2.
    replace (0 * -1 + b) with b in E1 by ring. replace (0 * -2 + b) with b in E2 by ring. lra.
  - (* u > 0: far left the unit is off, so the map would be constant there *)
    set (q := (Rabs b + 1) / u).
    assert (Hq : u * q = Rabs b + 1) by (unfold q; field; lra).
    assert (Hq0 : 0 < q) by (unfold q; apply Rdiv_lt_0_compat; lra).
    pose proof (Fl (- q - 1) ltac:(lra)) as E1. pose proof (Fl (- q - 2) ltac:(lra)) as E2.
    rewrite (jump_relu_low (u * (- q - 1) + b)) in E1 by nra.
    rewrite (jump_relu_low (u * (- q - 2) + b)) in E2 by nra.
    lra.
Qed.

Lemma relu_limit_iff_needs_sigma_odd_part :
  ~ (forall (d m : nat) (sigma : R -> R) (M Wd Wu : mat) (bu bd : vec)
         (sigma_limit_relu : forall z c,
            is_lim (fun t => sigma (t * z + c) / t) p_infty (relu z))
         (nondegenerate : nondegenerate_block d m Wd Wu),
       (exists (Wd' Wu' : mat) (bu' bd' : vec), forall x i, (i < d)%nat ->
          mv d M x i + bblock d m sigma Wd Wu bu bd x i = bblock d m sigma Wd' Wu' bu' bd' x i) <->
       (exists S : nat -> bool, index_condition_holds d m S M Wd Wu)).
Proof.
  intros H.
  assert (Hnd : nondegenerate_block 1 1 (fun _ _ => -1) ident).
  { split; [|split].
    - intros l Hl. exists 0%nat. split; [lia|]. assert (l = 0%nat) by lia. subst.
      unfold ident, kron. simpl. lra.
    - intros l l' Hl Hl' Hne. lia.
    - intros l Hl. exists 0%nat. split; [lia|lra]. }
  destruct (proj2 (H 1%nat 1%nat jump_relu ident (fun _ _ => -1) ident (fun _ => 0) (fun _ => 0)
                     jump_relu_limit_relu Hnd)) as (Wd' & Wu' & bu' & bd' & E).
  - exists (fun _ => true). intros i j Hi Hj.
    assert (i = 0%nat) by lia. assert (j = 0%nat) by lia. subst.
    unfold ident, kron. simpl. lra.
  - apply (jump_residual_not_one_unit (Wd' 0%nat 0%nat) (Wu' 0%nat 0%nat) (bu' 0%nat) (bd' 0%nat)).
    intros r. specialize (E (v1 r) 0%nat ltac:(lia)).
    unfold bblock, mv, ident, kron, v1 in E. simpl in E.
    rewrite !Rplus_0_l, !Rplus_0_r, !Rmult_1_l in E. lra.
Qed.

(** ** depth-narrow: drop [pieces_invertible] (narrow_singular_piece, one
    block).  [d = 2], [W_up = I], [W_down = -I]: the piece with both units
    active is [0], and [x + B(x) = -relu(-x)] is the plain block
    [(-I) relu(-I x)] of width [2 <= d]. *)

Lemma depth_narrow_needs_pieces_invertible :
  ~ (forall (d : nat) (layers plains : list layer)
         (d_pos : (0 < d)%nat)
         (narrow_width : (exists (P1 : layer) (rest : list layer),
                            plains = P1 :: rest /\ (width P1 <= d)%nat) \/
                         Exists (fun P => (width P < d)%nat) plains),
       ~ (forall x i, (i < d)%nat ->
            res_comp_id (map (layer_block d relu) layers) x i =
            plain_comp (map (layer_block d relu) plains) x i)).
Proof.
  intros H.
  apply (H 2%nat [mk_layer 2 neg_ident ident] [mk_layer 2 neg_ident neg_ident] ltac:(lia)).
  - left. exists (mk_layer 2 neg_ident neg_ident), []. split; [reflexivity|simpl; lia].
  - intros x i Hi. simpl. unfold layer_block. simpl.
    rewrite <- (relu_flip_2 x i Hi). rewrite mv_ident by exact Hi. reflexivity.
Qed.

(** ** depth-d1: drop [bias_free] (d1_biased, structural: the formal stacks of
    the claim are bias-free).  [d = 1], residual stack of widths [(1, 1)] with
    identity skips: [x -> x + relu(-x - 1)], then [y -> y + 0 relu(y)].  It
    equals the biased plain stack of widths [(1, 1)]
    [x -> relu(relu(x + 1)) - 1], although [F(1) F(-1) = -1 <> 0], which for
    first width 1 the bias-free characterisation ([d1_condition]) forbids. *)

Lemma depth_d1_needs_bias_free :
  let F := fun x : R => let y := 1 * x + 1 * Rmax (-1 * x + -1) 0 in 1 * y + 0 * Rmax (1 * y) 0 in
  F 1 * F (-1) <> 0 /\
  forall x : R, F x = 1 * Rmax (1 * (1 * Rmax (1 * x + 1) 0 + 0) + 0) 0 + -1.
Proof.
  intros F. unfold F. cbv zeta.
  (* resolve each [Rmax a 0] whose argument has no [Rmax] left, innermost first *)
  assert (Hmax : forall a, (a <= 0 -> Rmax a 0 = 0) /\ (0 <= a -> Rmax a 0 = a)).
  { intros a. split; intros Ha; [apply Rmax_right|apply Rmax_left]; lra. }
  split; [|intros x];
  repeat match goal with
  | |- context [Rmax ?a 0] =>
      lazymatch a with context [Rmax _ _] => fail | _ =>
        let H := fresh in destruct (Rle_dec a 0) as [H|H];
        [rewrite (proj1 (Hmax a)) by lra|rewrite (proj2 (Hmax a)) by lra] end
  end; lra.
Qed.

(** ** absorption-width and depth-width: drop [bias_free] (biased_residual_block,
    structural: the formal blocks of both claims, [block] and [layer_block], have
    no bias terms).  [d = m = 1], [M = 1], one relu unit with [u = 1],
    [b_up = 1], [w = 1]: [F(x) = x + relu(x + 1)] (issue 29).  relu has the odd
    part, the row [1] spans [R], the unit is nondegenerate ([u], [w] nonzero),
    and [F] is the biased relu block [2 relu(x + 1) - relu(-x - 1) - 1] of width
    [2 = m + d = m + C]; but [F(0) = 1], while a bias-free relu block vanishes
    at [0]: no bias-free relu block of width [2] equals [F], nor one of any
    width [n + 1] (a sum of [n + 1] bias-free units, [sum_f_R0]), nor any
    bias-free relu plain stack of any depth and widths (a list of [layer]s of
    DepthStack.v: each layer maps the zero vector to the zero vector,
    [relu_plain_stack_zero_at_0]).  The value [C = 1] of the lower-bound
    table is not stated here: the oracle computes it exactly
    (oracle/claims/boundary.py). *)

Lemma relu_plain_stack_zero_at_0 : forall d (Ls : list layer) (x : vec),
  (forall j, x j = 0) ->
  forall i, plain_comp (map (layer_block d (fun z => Rmax z 0)) Ls) x i = 0.
Proof.
  intros d Ls. induction Ls as [|L rest IH]; intros x Hx i; simpl.
  - apply Hx.
  - apply IH. intros j. unfold layer_block, block, readout.
    apply sum_zero. intros l _.
    assert (Hmv : mv d (Wup L) x l = 0).
    { unfold mv. apply sum_zero. intros k _. rewrite Hx. ring. }
    rewrite Hmv, Rmax_left by lra. ring.
Qed.

Lemma absorption_width_needs_bias_free :
  (forall z : R, Rmax z 0 - Rmax (- z) 0 = z) /\
  (forall y : R, exists c : R, c * 1 = y) /\
  1 <> 0 /\ 1 <> 0 /\
  (forall x : R, 1 * x + 1 * Rmax (1 * x + 1) 0 =
                 2 * Rmax (1 * x + 1) 0 + -1 * Rmax (-1 * x + -1) 0 + -1) /\
  (forall u1 u2 w1 w2 : R, exists x : R,
     1 * x + 1 * Rmax (1 * x + 1) 0 <> w1 * Rmax (u1 * x) 0 + w2 * Rmax (u2 * x) 0) /\
  (forall (n : nat) (u w : nat -> R),
     1 * 0 + 1 * Rmax (1 * 0 + 1) 0 <> sum_f_R0 (fun i => w i * Rmax (u i * 0) 0) n) /\
  (forall Ls : list layer,
     ~ (forall x : vec, plain_comp (map (layer_block 1 (fun z => Rmax z 0)) Ls) x 0%nat =
                        1 * x 0%nat + 1 * Rmax (1 * x 0%nat + 1) 0)).
Proof.
  assert (Hmax : forall a, (a <= 0 -> Rmax a 0 = 0) /\ (0 <= a -> Rmax a 0 = a)).
  { intros a. split; intros Ha; [apply Rmax_right|apply Rmax_left]; lra. }
  assert (H00 : Rmax 0 0 = 0) by (apply (proj1 (Hmax 0)); lra).
  assert (H10 : Rmax (1 * 0 + 1) 0 = 1) by (rewrite (proj2 (Hmax _)); lra).
  split; [|split; [|split; [lra|split; [lra|split; [|split; [|split]]]]]].
  - intros z. destruct (Rle_dec z 0) as [H|H].
    + rewrite (proj1 (Hmax z)) by lra. rewrite (proj2 (Hmax (- z))) by lra. ring.
    + rewrite (proj2 (Hmax z)) by lra. rewrite (proj1 (Hmax (- z))) by lra. ring.
  - intros y. exists y. ring.
  - intros x. destruct (Rle_dec (1 * x + 1) 0) as [H|H].
    + rewrite (proj1 (Hmax (1 * x + 1))) by lra. rewrite (proj2 (Hmax (-1 * x + -1))) by lra. ring.
    + rewrite (proj2 (Hmax (1 * x + 1))) by lra. rewrite (proj1 (Hmax (-1 * x + -1))) by lra. ring.
  - intros u1 u2 w1 w2. exists 0. rewrite H10, !Rmult_0_r, H00. lra.
  - intros n u w. rewrite H10.
    assert (Hz : sum_f_R0 (fun i => w i * Rmax (u i * 0) 0) n = 0).
    { induction n as [|n IH]; simpl; rewrite ?IH, Rmult_0_r, H00; ring. }
    rewrite Hz. lra.
  - intros Ls Heq. specialize (Heq (fun _ => 0)).
    rewrite (relu_plain_stack_zero_at_0 1 Ls (fun _ => 0) (fun _ => eq_refl)) in Heq.
    rewrite H10 in Heq. lra.
Qed.
