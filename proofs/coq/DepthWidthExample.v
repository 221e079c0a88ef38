(** * [depth-width]: without the rank condition, [max(m + d, 2 d)] can be too small

    The example of proofs/informal/depth-width.md (the boundary instance
    [width_rank_deficient] of oracle/claims/depth_boundary.py): [d = m = 3],
    skip matrix [M = I], up-projection with rows [e_1, e_2, e_1 + e_2]
    (rank 2 < 3 = min(m, d)) and down-projection

    [[W_down = [[1, 1/2, 0], [0, 1, 1/3], [1/4, 0, 1]]]]

    so that [x + B(x)] is, coordinatewise,
    - [x_1 + relu(x_1) + 1/2 relu(x_2)],
    - [x_2 + relu(x_2) + 1/3 relu(x_1 + x_2)],
    - [x_3 + 1/4 relu(x_1) + relu(x_1 + x_2)].

    The block is nondegenerate, all eight matrices [I + W_S U_S] have a
    trivial kernel (their determinants are [1, 4/3, 2, 13/6, 2, 8/3, 4, 9/2]),
    and [W_up] has row rank 2.  By [absorption_width_invertible] the minimal
    relu width of [x + B(x)] (biases allowed) is [m + 2 d - 2 = 7], while
    [max(m + d, 2 d) = 6].

    [depth_width_max_too_small]: no relu block of width 6 with biases equals
    [x + B(x)] on all of [R^3].  [depth_width_example_width_7]: a bias-free
    relu block of width 7 does.  Both are stated with the standard library
    only (relu written as [Rmax _ 0]). *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg SignFlip Limit Rank Necessity DepthNarrow
  RealActivations ReluClasses AbsorptionWidth.
Open Scope R_scope.

(** ** The concrete block *)

Definition ex_up : mat := fun l j =>
  match l, j with
  | O, O => 1 | 1%nat, 1%nat => 1 | 2%nat, O => 1 | 2%nat, 1%nat => 1
  | _, _ => 0
  end.

Definition ex_down : mat := fun o l =>
  match o, l with
  | O, O => 1 | O, 1%nat => 1 / 2
  | 1%nat, 1%nat => 1 | 1%nat, 2%nat => 1 / 3
  | 2%nat, O => 1 / 4 | 2%nat, 2%nat => 1
  | _, _ => 0
  end.

Lemma ex_up_x : forall x : vec,
  mv 3 ex_up x 0%nat = x 0%nat /\ mv 3 ex_up x 1%nat = x 1%nat /\
  mv 3 ex_up x 2%nat = x 0%nat + x 1%nat.
Proof. intros x. unfold mv. rewrite !sum3. unfold ex_up. split; [|split]; ring. Qed.

(** The three coordinates of [B(x)]. *)
Lemma ex_block : forall x : vec,
  block 3 3 relu ex_down ex_up x 0%nat = Rmax (x 0%nat) 0 + 1 / 2 * Rmax (x 1%nat) 0 /\
  block 3 3 relu ex_down ex_up x 1%nat = Rmax (x 1%nat) 0 + 1 / 3 * Rmax (x 0%nat + x 1%nat) 0 /\
  block 3 3 relu ex_down ex_up x 2%nat = 1 / 4 * Rmax (x 0%nat) 0 + Rmax (x 0%nat + x 1%nat) 0.
Proof.
  intros x. destruct (ex_up_x x) as (E0 & E1 & E2).
  unfold block, readout. rewrite !sum3. rewrite E0, E1, E2. unfold relu, ex_down.
  split; [|split]; ring.
Qed.

(** ** The hypotheses of [absorption_width_invertible] *)

Lemma ex_block_nondegenerate : nondegenerate_block 3 3 ex_down ex_up.
Proof.
  unfold nondegenerate_block, rows_nonzero, rows_noncollinear, cols_nonzero.
  split; [|split].
  - intros l Hl.
    destruct l as [|[|[|l]]]; [| | |lia].
    + exists 0%nat. split; [lia|]. unfold ex_up. lra.
    + exists 1%nat. split; [lia|]. unfold ex_up. lra.
    + exists 0%nat. split; [lia|]. unfold ex_up. lra.
  - intros l l' Hl Hl' Hne (c & Hc).
    pose proof (Hc 0%nat ltac:(lia)) as C0. pose proof (Hc 1%nat ltac:(lia)) as C1.
    unfold ex_up in C0, C1.
    destruct l as [|[|[|l]]], l' as [|[|[|l']]]; try lia; lra.
  - intros l Hl.
    destruct l as [|[|[|l]]]; [| | |lia].
    + exists 0%nat. split; [lia|]. unfold ex_down. lra.
    + exists 1%nat. split; [lia|]. unfold ex_down. lra.
    + exists 2%nat. split; [lia|]. unfold ex_down. lra.
Qed.

(** [W_up] has row rank 2: the rows [e_1], [e_2] are independent and row
    [i] is [u_i0 e_1 + u_i1 e_2] (the third column of [W_up] is zero). *)
Lemma ex_rank : row_rank 3 3 ex_up 2.
Proof.
  exists (fun k => k). split; [intros; lia|]. split.
  - intros c Hc k Hk.
    pose proof (Hc 0%nat ltac:(lia)) as C0. pose proof (Hc 1%nat ltac:(lia)) as C1.
    simpl in C0, C1. unfold ex_up in C0, C1.
    destruct k as [|[|k]]; [lra|lra|lia].
  - intros i Hi. exists (fun k => ex_up i k). intros j Hj. simpl.
    destruct i as [|[|[|i]]]; [| | |lia]; destruct j as [|[|[|j]]]; try lia;
      unfold ex_up; ring.
Qed.

(** Every [I + W_S U_S] has a trivial kernel. *)
Lemma ex_pieces_invertible : forall (S : nat -> bool) (x : vec),
  (forall o, (o < 3)%nat -> mv 3 ident x o + mv 3 (selected_product 3 S ex_down ex_up) x o = 0) ->
  forall j, (j < 3)%nat -> x j = 0.
Proof.
  intros S x H j Hj.
  pose proof (H 0%nat ltac:(lia)) as H0. pose proof (H 1%nat ltac:(lia)) as H1.
  pose proof (H 2%nat ltac:(lia)) as H2. clear H.
  rewrite !mv_ident in H0, H1, H2 by lia.
  unfold mv, selected_product in H0, H1, H2.
  repeat progress (rewrite ?sum3 in H0, H1, H2; cbv beta in H0, H1, H2).
  unfold ex_down, ex_up in H0, H1, H2.
  destruct j as [|[|[|j]]]; try lia;
    destruct (S 0%nat), (S 1%nat), (S 2%nat); lra.
Qed.

(** ** The minimal width is 7 *)

Lemma ex_width_iff : forall m',
  realised 3 3 m' ident ex_down ex_up (fun _ => 0) (fun _ => 0) <-> (7 <= m')%nat.
Proof.
  intros m'.
  exact (absorption_width_invertible 3 3 m' 2 ident ex_down ex_up
           ex_block_nondegenerate ex_pieces_invertible ex_rank).
Qed.

(** [depth-width], rank condition dropped: for [d = 3] and the block above
    (rows [e_1, e_2, e_1 + e_2] of rank 2), no relu block of width
    [6 = max(m + d, 2 d)], biases allowed, equals [x + B(x)] on [R^3]. *)
Lemma depth_width_max_too_small :
  ~ (exists (w u : nat -> nat -> R) (c b : nat -> R),
       forall x0 x1 x2 : R,
         let h := fun l : nat => Rmax (u l 0%nat * x0 + u l 1%nat * x1 + u l 2%nat * x2 + c l) 0 in
         let out := fun i : nat =>
           w i 0%nat * h 0%nat + w i 1%nat * h 1%nat + w i 2%nat * h 2%nat
           + w i 3%nat * h 3%nat + w i 4%nat * h 4%nat + w i 5%nat * h 5%nat + b i in
         x0 + (Rmax x0 0 + 1 / 2 * Rmax x1 0) = out 0%nat /\
         x1 + (Rmax x1 0 + 1 / 3 * Rmax (x0 + x1) 0) = out 1%nat /\
         x2 + (1 / 4 * Rmax x0 0 + Rmax (x0 + x1) 0) = out 2%nat).
Proof.
  intros (w & u & c & b & H).
  assert (Hr : realised 3 3 6 ident ex_down ex_up (fun _ => 0) (fun _ => 0)).
  { exists w, u, c, b. intros x i Hi.
    destruct (H (x 0%nat) (x 1%nat) (x 2%nat)) as (H0 & H1 & H2).
    rewrite bblock_no_bias, mv_ident by exact Hi.
    destruct (ex_block x) as (B0 & B1 & B2).
    destruct i as [|[|[|i]]]; [rewrite B0| rewrite B1|rewrite B2|lia];
      unfold bblock, relu, mv; rewrite sum6;
      repeat progress (rewrite ?sum3; cbv beta); assumption. }
  apply ex_width_iff in Hr. lia.
Qed.

(** Width 7 suffices, even without biases. *)
Lemma depth_width_example_width_7 :
  exists w u : nat -> nat -> R,
    forall x0 x1 x2 : R,
      let h := fun l : nat => Rmax (u l 0%nat * x0 + u l 1%nat * x1 + u l 2%nat * x2) 0 in
      let out := fun i : nat =>
        w i 0%nat * h 0%nat + w i 1%nat * h 1%nat + w i 2%nat * h 2%nat + w i 3%nat * h 3%nat
        + w i 4%nat * h 4%nat + w i 5%nat * h 5%nat + w i 6%nat * h 6%nat in
      x0 + (Rmax x0 0 + 1 / 2 * Rmax x1 0) = out 0%nat /\
      x1 + (Rmax x1 0 + 1 / 3 * Rmax (x0 + x1) 0) = out 1%nat /\
      x2 + (1 / 4 * Rmax x0 0 + Rmax (x0 + x1) 0) = out 2%nat.
Proof.
  destruct (absorption_width_rank 3 3 2 relu ident ex_down ex_up relu_odd_part ex_rank)
    as (w & u & H).
  exists w, u. intros x0 x1 x2 h out.
  set (x := fun j : nat => match j with O => x0 | 1%nat => x1 | _ => x2 end).
  assert (E : forall i, (i < 3)%nat -> x i + block 3 3 relu ex_down ex_up x i = out i).
  { intros i Hi. rewrite <- (mv_ident 3 x i Hi). rewrite (H x i Hi).
    unfold block, readout, relu, mv. change (3 + 2 * 3 - 2)%nat with 7%nat. rewrite sum7.
    repeat progress (rewrite ?sum3; cbv beta). reflexivity. }
  destruct (ex_block x) as (B0 & B1 & B2).
  pose proof (E 0%nat ltac:(lia)) as E0. pose proof (E 1%nat ltac:(lia)) as E1.
  pose proof (E 2%nat ltac:(lia)) as E2.
 rewrite B0 in E0. rewrite B1 in E1. rewrite B2 in E2.
  exact (conj E0 (conj E1 E2)).
Qed.
