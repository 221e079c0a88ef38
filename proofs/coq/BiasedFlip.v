(** * Biased flips: blocks with biases whose own activation cannot absorb a
    skip without biases (relu2, the gates) absorb it at the same width when a
    set of flipped units removes exactly [-M x + const].

    A flip changes one unit by a polynomial of degree at most 2:
    - relu2 ([s z + s (-z) = z^2]): negating the row, the bias and the output
      column of unit [l] changes the block by [- w_l (u_l . x + b_l)^2];
    - a gate with [g z - g (-z) = z] (relu, silu, gelu, gelu_tanh): negating
      the gate row and the gate bias of unit [l] changes it by
      [- w_l (g_l . x + c_l) (u_l . x + e_l)];
    - a gate with [g z + g (-z) = 1] (sigmoid): negating the gate row, the gate
      bias and the output column changes it by [- w_l (u_l . x + e_l)].
    So if the removed polynomials of a set [S] add up to [-M x + c] for every
    [x], the flipped block with [c] added to the output bias equals
    [x -> M x + B x], with the same width.  The activations are the defined
    ones of RealActivations.v; their flip identities are proved here. *)

From Coq Require Import Reals Lra Lia.
Set Warnings "-ambiguous-paths".
From SkipAbsorption Require Import Linalg SignFlip RealActivations Activations Limit.
Open Scope R_scope.

(** Gated block with biases:
    [x -> W_down (g(W_gate x + c) .* (W_up x + e)) + b_down]. *)
Definition gbblock (d m : nat) (g : R -> R) (Wd Wg Wu : mat) (cg eu bd : vec) (x : vec) : vec :=
  fun i => sum m (fun l => Wd i l * (g (mv d Wg x l + cg l) * (mv d Wu x l + eu l))) + bd i.

(** The output bias plus a constant vector. *)
Definition add_bias (bd c : vec) : vec := fun i => bd i + c i.

(** ** (i) Activations with [s z + s (-z) = z^2] (relu2) *)

Theorem biased_square_flip :
  forall (d m : nat) (sigma : R -> R) (M Wd Wu : mat) (bu bd c : vec) (S : nat -> bool)
         (sigma_square_flip : forall z, sigma z + sigma (- z) = z * z)
         (flip_condition : forall x i, (i < d)%nat ->
            sum m (fun l => if S l then Wd i l * ((mv d Wu x l + bu l) * (mv d Wu x l + bu l)) else 0)
            = - mv d M x i + c i),
  forall x i, (i < d)%nat ->
    mv d M x i + bblock d m sigma Wd Wu bu bd x i =
    bblock d m sigma (flip_cols S Wd) (flip_rows S Wu) (flip_vec S bu) (add_bias bd c) x i.
Proof.
  intros d m sigma M Wd Wu bu bd c S sigma_square_flip flip_condition x i Hi.
  unfold bblock, add_bias.
  rewrite (sum_ext m (fun l => flip_cols S Wd i l * sigma (mv d (flip_rows S Wu) x l + flip_vec S bu l))
             (fun l => Wd i l * sigma (mv d Wu x l + bu l)
                       - (if S l then Wd i l * ((mv d Wu x l + bu l) * (mv d Wu x l + bu l)) else 0))).
  - rewrite sum_minus, (flip_condition x i Hi). ring.
  - intros l _. rewrite mv_flip_rows. unfold flip_cols, flip_vec. destruct (S l).
    + pose proof (sigma_square_flip (mv d Wu x l + bu l)) as Hq.
      replace (- mv d Wu x l + - bu l) with (- (mv d Wu x l + bu l)) by ring.
      replace (sigma (- (mv d Wu x l + bu l)))
        with ((mv d Wu x l + bu l) * (mv d Wu x l + bu l) - sigma (mv d Wu x l + bu l)) by lra.
      ring.
    + ring.
Qed.

Lemma relu2_square_flip : forall z, relu2 z + relu2 (- z) = z * z.
Proof. intros z. unfold relu2, relu, Rmax. destruct (Rle_dec z 0), (Rle_dec (- z) 0); nra. Qed.

Corollary relu2_biased_flip :
  forall (d m : nat) (M Wd Wu : mat) (bu bd c : vec) (S : nat -> bool)
         (flip_condition : forall x i, (i < d)%nat ->
            sum m (fun l => if S l then Wd i l * ((mv d Wu x l + bu l) * (mv d Wu x l + bu l)) else 0)
            = - mv d M x i + c i),
  forall x i, (i < d)%nat ->
    mv d M x i + bblock d m relu2 Wd Wu bu bd x i =
    bblock d m relu2 (flip_cols S Wd) (flip_rows S Wu) (flip_vec S bu) (add_bias bd c) x i.
Proof. intros. apply biased_square_flip; [exact relu2_square_flip|assumption|assumption]. Qed.

(** ** (ii) Gates with [g z - g (-z) = z] (reglu, swiglu, geglu, geglu_tanh) *)

Theorem biased_gate_flip :
  forall (d m : nat) (g : R -> R) (M Wd Wg Wu : mat) (cg eu bd c : vec) (S : nat -> bool)
         (gate_odd_part : forall z, g z - g (- z) = z)
         (flip_condition : forall x i, (i < d)%nat ->
            sum m (fun l => if S l then Wd i l * ((mv d Wg x l + cg l) * (mv d Wu x l + eu l)) else 0)
            = - mv d M x i + c i),
  forall x i, (i < d)%nat ->
    mv d M x i + gbblock d m g Wd Wg Wu cg eu bd x i =
    gbblock d m g Wd (flip_rows S Wg) Wu (flip_vec S cg) eu (add_bias bd c) x i.
Proof.
  intros d m g M Wd Wg Wu cg eu bd c S gate_odd_part flip_condition x i Hi.
  unfold gbblock, add_bias.
  rewrite (sum_ext m (fun l => Wd i l * (g (mv d (flip_rows S Wg) x l + flip_vec S cg l) *
                                         (mv d Wu x l + eu l)))
             (fun l => Wd i l * (g (mv d Wg x l + cg l) * (mv d Wu x l + eu l))
                       - (if S l then Wd i l * ((mv d Wg x l + cg l) * (mv d Wu x l + eu l)) else 0))).
  - rewrite sum_minus, (flip_condition x i Hi). ring.
  - intros l _. rewrite mv_flip_rows. unfold flip_vec. destruct (S l).
    + pose proof (gate_odd_part (mv d Wg x l + cg l)) as Hg.
      replace (- mv d Wg x l + - cg l) with (- (mv d Wg x l + cg l)) by ring.
      replace (g (- (mv d Wg x l + cg l))) with (g (mv d Wg x l + cg l) - (mv d Wg x l + cg l)) by lra.
      ring.
    + ring.
Qed.

Corollary reglu_biased_flip :
  forall (d m : nat) (M Wd Wg Wu : mat) (cg eu bd c : vec) (S : nat -> bool)
         (flip_condition : forall x i, (i < d)%nat ->
            sum m (fun l => if S l then Wd i l * ((mv d Wg x l + cg l) * (mv d Wu x l + eu l)) else 0)
            = - mv d M x i + c i),
  forall x i, (i < d)%nat ->
    mv d M x i + gbblock d m reglu_gate Wd Wg Wu cg eu bd x i =
    gbblock d m reglu_gate Wd (flip_rows S Wg) Wu (flip_vec S cg) eu (add_bias bd c) x i.
Proof. intros. apply biased_gate_flip; [exact relu_odd_part|assumption|assumption]. Qed.

Corollary swiglu_biased_flip :
  forall (d m : nat) (M Wd Wg Wu : mat) (cg eu bd c : vec) (S : nat -> bool)
         (flip_condition : forall x i, (i < d)%nat ->
            sum m (fun l => if S l then Wd i l * ((mv d Wg x l + cg l) * (mv d Wu x l + eu l)) else 0)
            = - mv d M x i + c i),
  forall x i, (i < d)%nat ->
    mv d M x i + gbblock d m swiglu_gate Wd Wg Wu cg eu bd x i =
    gbblock d m swiglu_gate Wd (flip_rows S Wg) Wu (flip_vec S cg) eu (add_bias bd c) x i.
Proof. intros. apply biased_gate_flip; [exact silu_odd_part|assumption|assumption]. Qed.

Corollary geglu_biased_flip :
  forall (d m : nat) (M Wd Wg Wu : mat) (cg eu bd c : vec) (S : nat -> bool)
         (flip_condition : forall x i, (i < d)%nat ->
            sum m (fun l => if S l then Wd i l * ((mv d Wg x l + cg l) * (mv d Wu x l + eu l)) else 0)
            = - mv d M x i + c i),
  forall x i, (i < d)%nat ->
    mv d M x i + gbblock d m gelu Wd Wg Wu cg eu bd x i =
    gbblock d m gelu Wd (flip_rows S Wg) Wu (flip_vec S cg) eu (add_bias bd c) x i.
Proof. intros. apply biased_gate_flip; [exact gelu_odd_part|assumption|assumption]. Qed.

Corollary geglu_tanh_biased_flip :
  forall (d m : nat) (M Wd Wg Wu : mat) (cg eu bd c : vec) (S : nat -> bool)
         (flip_condition : forall x i, (i < d)%nat ->
            sum m (fun l => if S l then Wd i l * ((mv d Wg x l + cg l) * (mv d Wu x l + eu l)) else 0)
            = - mv d M x i + c i),
  forall x i, (i < d)%nat ->
    mv d M x i + gbblock d m gelu_tanh Wd Wg Wu cg eu bd x i =
    gbblock d m gelu_tanh Wd (flip_rows S Wg) Wu (flip_vec S cg) eu (add_bias bd c) x i.
Proof. intros. apply biased_gate_flip; [exact gelu_tanh_odd_part|assumption|assumption]. Qed.

(** ** (iii) Gates with [g z + g (-z) = 1] (glu, sigmoid gate) *)

(** Negating the gate rows, gate biases and output columns in [S] removes
    [W_S (U_S x + e_S)]; with [W_S U_S = -M] the constant [W_S e_S] goes into
    the output bias ([shifted_bias]). *)
Theorem biased_glu_flip :
  forall (d m : nat) (g : R -> R) (M Wd Wg Wu : mat) (cg eu bd : vec) (S : nat -> bool)
         (gate_flip_symmetry : forall z, g z + g (- z) = 1)
         (index_condition : forall i j, (i < d)%nat -> (j < d)%nat ->
            sum m (fun l => if S l then Wd i l * Wu l j else 0) = - M i j),
  forall x i, (i < d)%nat ->
    mv d M x i + gbblock d m g Wd Wg Wu cg eu bd x i =
    gbblock d m g (flip_cols S Wd) (flip_rows S Wg) Wu (flip_vec S cg) eu
            (shifted_bias m S Wd eu bd) x i.
Proof.
  intros d m g M Wd Wg Wu cg eu bd S gate_flip_symmetry index_condition x i Hi.
  unfold gbblock, shifted_bias.
  rewrite (sum_ext m (fun l => flip_cols S Wd i l * (g (mv d (flip_rows S Wg) x l + flip_vec S cg l) *
                                                    (mv d Wu x l + eu l)))
             (fun l => (Wd i l * (g (mv d Wg x l + cg l) * (mv d Wu x l + eu l))
                        - (if S l then Wd i l * mv d Wu x l else 0))
                       - (if S l then Wd i l * eu l else 0))).
  - rewrite !sum_minus. rewrite (selected_term d m S M Wd Wu x i index_condition Hi). ring.
  - intros l _. rewrite mv_flip_rows. unfold flip_cols, flip_vec. destruct (S l).
    + pose proof (gate_flip_symmetry (mv d Wg x l + cg l)) as Hg.
      replace (- mv d Wg x l + - cg l) with (- (mv d Wg x l + cg l)) by ring.
      replace (g (- (mv d Wg x l + cg l))) with (1 - g (mv d Wg x l + cg l)) by lra.
      ring.
    + ring.
Qed.

Corollary glu_biased_flip :
  forall (d m : nat) (M Wd Wg Wu : mat) (cg eu bd : vec) (S : nat -> bool)
         (index_condition : forall i j, (i < d)%nat -> (j < d)%nat ->
            sum m (fun l => if S l then Wd i l * Wu l j else 0) = - M i j),
  forall x i, (i < d)%nat ->
    mv d M x i + gbblock d m sigmoid Wd Wg Wu cg eu bd x i =
    gbblock d m sigmoid (flip_cols S Wd) (flip_rows S Wg) Wu (flip_vec S cg) eu
            (shifted_bias m S Wd eu bd) x i.
Proof. intros. apply biased_glu_flip; [exact sigmoid_flip|assumption|assumption]. Qed.

(** The glu flip in the form of the other two: if the removed polynomials
    [w_l (u_l . x + e_l)], [l] in [S], add up to [-M x + c] for every [x],
    the flipped block with [c] added to the output bias is [x -> M x + B x]. *)
Theorem biased_glu_flip_poly :
  forall (d m : nat) (g : R -> R) (M Wd Wg Wu : mat) (cg eu bd c : vec) (S : nat -> bool)
         (gate_flip_symmetry : forall z, g z + g (- z) = 1)
         (flip_condition : forall x i, (i < d)%nat ->
            sum m (fun l => if S l then Wd i l * (mv d Wu x l + eu l) else 0) = - mv d M x i + c i),
  forall x i, (i < d)%nat ->
    mv d M x i + gbblock d m g Wd Wg Wu cg eu bd x i =
    gbblock d m g (flip_cols S Wd) (flip_rows S Wg) Wu (flip_vec S cg) eu (add_bias bd c) x i.
Proof.
  intros d m g M Wd Wg Wu cg eu bd c S gate_flip_symmetry flip_condition x i Hi.
  unfold gbblock, add_bias.
  rewrite (sum_ext m (fun l => flip_cols S Wd i l * (g (mv d (flip_rows S Wg) x l + flip_vec S cg l) *
                                                    (mv d Wu x l + eu l)))
             (fun l => Wd i l * (g (mv d Wg x l + cg l) * (mv d Wu x l + eu l))
                       - (if S l then Wd i l * (mv d Wu x l + eu l) else 0))).
  - rewrite sum_minus, (flip_condition x i Hi). ring.
  - intros l _. rewrite mv_flip_rows. unfold flip_cols, flip_vec. destruct (S l).
    + pose proof (gate_flip_symmetry (mv d Wg x l + cg l)) as Hg.
      replace (- mv d Wg x l + - cg l) with (- (mv d Wg x l + cg l)) by ring.
      replace (g (- (mv d Wg x l + cg l))) with (1 - g (mv d Wg x l + cg l)) by lra.
      ring.
    + ring.
Qed.

Corollary glu_biased_flip_poly :
  forall (d m : nat) (M Wd Wg Wu : mat) (cg eu bd c : vec) (S : nat -> bool)
         (flip_condition : forall x i, (i < d)%nat ->
            sum m (fun l => if S l then Wd i l * (mv d Wu x l + eu l) else 0) = - mv d M x i + c i),
  forall x i, (i < d)%nat ->
    mv d M x i + gbblock d m sigmoid Wd Wg Wu cg eu bd x i =
    gbblock d m sigmoid (flip_cols S Wd) (flip_rows S Wg) Wu (flip_vec S cg) eu (add_bias bd c) x i.
Proof. intros. apply biased_glu_flip_poly; [exact sigmoid_flip|assumption|assumption]. Qed.

(** The instance lemmas (stated with the standard library only) are in Instances.v. *)

(** ** Bias-free blocks vanish at [x = 0]

    A bias-free ungated block is [W_down s(W_up 0)] = [W_down s(0)] at [x = 0],
    which is 0 when [s 0 = 0] (relu2).  A bias-free gated block is
    [W_down (g(W_gate 0) .* (W_up 0))] there, and [W_up 0 = 0], so it is 0
    for every gate [g], whatever [g 0] is (the sigmoid has [g 0 = 1/2]).  Hence
    when [M x + B x] is not 0 at [x = 0] (in some coordinate [i]), no bias-free
    block of any width [m'] equals it.  [B] may carry biases. *)

Lemma mv_at_zero : forall d A l, mv d A (fun _ => 0) l = 0.
Proof. intros. unfold mv. apply sum_zero. intros. ring. Qed.

Lemma block_vanishes_at_zero : forall d m (s : R -> R) Wd Wu i,
  s 0 = 0 -> block d m s Wd Wu (fun _ => 0) i = 0.
Proof.
  intros d m s Wd Wu i Hs. unfold block, readout. apply sum_zero. intros l _.
  rewrite mv_at_zero, Hs. ring.
Qed.

Lemma gblock_vanishes_at_zero : forall d m (g : R -> R) Wd Wg Wu i,
  gblock d m g Wd Wg Wu (fun _ => 0) i = 0.
Proof.
  intros. unfold gblock, readout. apply sum_zero. intros l _. rewrite (mv_at_zero d Wu l). ring.
Qed.

(** The general form for an ungated activation with [s 0 = 0]. *)
Theorem bias_free_value_at_zero : forall d m m' (s : R -> R) M Wd Wu bu bd i,
  s 0 = 0 -> (i < d)%nat ->
  mv d M (fun _ => 0) i + bblock d m s Wd Wu bu bd (fun _ => 0) i <> 0 ->
  ~ (exists Wd' Wu' : mat, forall x j, (j < d)%nat ->
       mv d M x j + bblock d m s Wd Wu bu bd x j = block d m' s Wd' Wu' x j).
Proof.
  intros d m m' s M Wd Wu bu bd i Hs Hi H0 (Wd' & Wu' & H).
  apply H0. rewrite (H _ i Hi). apply block_vanishes_at_zero. exact Hs.
Qed.

Corollary relu2_bias_free_value_at_zero : forall d m m' M Wd Wu bu bd i,
  (i < d)%nat ->
  mv d M (fun _ => 0) i + bblock d m relu2 Wd Wu bu bd (fun _ => 0) i <> 0 ->
  ~ (exists Wd' Wu' : mat, forall x j, (j < d)%nat ->
       mv d M x j + bblock d m relu2 Wd Wu bu bd x j = block d m' relu2 Wd' Wu' x j).
Proof.
  intros d m m' M Wd Wu bu bd i. apply bias_free_value_at_zero.
  unfold relu2, relu. rewrite Rmax_left by lra. ring.
Qed.

(** Gated blocks: the gate [g] of [B] and the gate [g'] of the bias-free
    block are arbitrary functions. *)
Theorem gated_bias_free_value_at_zero : forall d m m' (g g' : R -> R) M Wd Wg Wu cg eu bd i,
  (i < d)%nat ->
  mv d M (fun _ => 0) i + gbblock d m g Wd Wg Wu cg eu bd (fun _ => 0) i <> 0 ->
  ~ (exists Wd' Wg' Wu' : mat, forall x j, (j < d)%nat ->
       mv d M x j + gbblock d m g Wd Wg Wu cg eu bd x j = gblock d m' g' Wd' Wg' Wu' x j).
Proof.
  intros d m m' g g' M Wd Wg Wu cg eu bd i Hi H0 (Wd' & Wg' & Wu' & H).
  apply H0. rewrite (H _ i Hi). apply gblock_vanishes_at_zero.
Qed.

(** The catalog's gates, each with the same gate in the bias-free block. *)
Corollary reglu_bias_free_value_at_zero : forall d m m',
  forall M Wd Wg Wu cg eu bd i, (i < d)%nat ->
  mv d M (fun _ => 0) i + gbblock d m reglu_gate Wd Wg Wu cg eu bd (fun _ => 0) i <> 0 ->
  ~ (exists Wd' Wg' Wu' : mat, forall x j, (j < d)%nat ->
       mv d M x j + gbblock d m reglu_gate Wd Wg Wu cg eu bd x j = gblock d m' reglu_gate Wd' Wg' Wu' x j).
Proof. intros d m m'. exact (gated_bias_free_value_at_zero d m m' reglu_gate reglu_gate). Qed.

Corollary swiglu_bias_free_value_at_zero : forall d m m',
  forall M Wd Wg Wu cg eu bd i, (i < d)%nat ->
  mv d M (fun _ => 0) i + gbblock d m swiglu_gate Wd Wg Wu cg eu bd (fun _ => 0) i <> 0 ->
  ~ (exists Wd' Wg' Wu' : mat, forall x j, (j < d)%nat ->
       mv d M x j + gbblock d m swiglu_gate Wd Wg Wu cg eu bd x j = gblock d m' swiglu_gate Wd' Wg' Wu' x j).
Proof. intros d m m'. exact (gated_bias_free_value_at_zero d m m' swiglu_gate swiglu_gate). Qed.

Corollary geglu_bias_free_value_at_zero : forall d m m',
  forall M Wd Wg Wu cg eu bd i, (i < d)%nat ->
  mv d M (fun _ => 0) i + gbblock d m gelu Wd Wg Wu cg eu bd (fun _ => 0) i <> 0 ->
  ~ (exists Wd' Wg' Wu' : mat, forall x j, (j < d)%nat ->
       mv d M x j + gbblock d m gelu Wd Wg Wu cg eu bd x j = gblock d m' gelu Wd' Wg' Wu' x j).
Proof. intros d m m'. exact (gated_bias_free_value_at_zero d m m' gelu gelu). Qed.

Corollary geglu_tanh_bias_free_value_at_zero : forall d m m',
  forall M Wd Wg Wu cg eu bd i, (i < d)%nat ->
  mv d M (fun _ => 0) i + gbblock d m gelu_tanh Wd Wg Wu cg eu bd (fun _ => 0) i <> 0 ->
  ~ (exists Wd' Wg' Wu' : mat, forall x j, (j < d)%nat ->
       mv d M x j + gbblock d m gelu_tanh Wd Wg Wu cg eu bd x j = gblock d m' gelu_tanh Wd' Wg' Wu' x j).
Proof. intros d m m'. exact (gated_bias_free_value_at_zero d m m' gelu_tanh gelu_tanh). Qed.

Corollary glu_bias_free_value_at_zero : forall d m m',
  forall M Wd Wg Wu cg eu bd i, (i < d)%nat ->
  mv d M (fun _ => 0) i + gbblock d m sigmoid Wd Wg Wu cg eu bd (fun _ => 0) i <> 0 ->
  ~ (exists Wd' Wg' Wu' : mat, forall x j, (j < d)%nat ->
       mv d M x j + gbblock d m sigmoid Wd Wg Wu cg eu bd x j = gblock d m' sigmoid Wd' Wg' Wu' x j).
Proof. intros d m m'. exact (gated_bias_free_value_at_zero d m m' sigmoid sigmoid). Qed.
