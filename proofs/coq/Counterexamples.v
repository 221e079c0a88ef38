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
From SkipAbsorption Require Import Linalg SkipReduction Homogeneous Gated Depth SignFlip Activations
  Instances.
Import ListNotations.
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

(** The sigmoid is differentiable at 0. *)
Lemma sigmoid_derivable : derivable_pt sigmoid 0.
Proof.
  unfold sigmoid. apply derivable_pt_inv.
  - pose proof (exp_pos (- 0)). lra.
  - apply derivable_pt_plus; [apply derivable_pt_const|].
    apply (derivable_pt_comp (fun z => - z) exp).
    + apply derivable_pt_opp, derivable_pt_id.
    + apply derivable_pt_exp.
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
