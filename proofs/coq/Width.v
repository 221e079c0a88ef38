(** * [absorption-width]: [m + d] units absorb any skip [M] when the rows of
    [W_up] span [R^d].

    "rank W_up = d" is stated as: every vector of [R^d] is a linear
    combination of the rows [u_0 .. u_{m-1}] of [W_up] ([spans d m W_up]).
    From this we extract [d] rows that already span [R^d] (a Gaussian
    elimination on the last coordinate, by induction on [d]), solve
    [sum_k b_k u_{i_k}^T = -M] row by row, and feed the solution to the
    width-[m + d] construction of SignFlip.v, here proved for any [M]. *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg SignFlip RealActivations.
Open Scope R_scope.

(** The first [n] rows [U 0 .. U (n-1)] of [U] span [R^d]. *)
Definition spans (d n : nat) (U : mat) : Prop :=
  forall y : vec, exists c : vec,
    forall j, (j < d)%nat -> sum n (fun k => c k * U k j) = y j.

(** ** Basis extraction *)

(** If the [m] rows of [W] span [R^d], some [d] of them (indices
    [idx 0 .. idx (d-1)], all below [m]) span [R^d].  Induction on [d]: a row
    [p] with a nonzero last entry exists; subtracting multiples of row [p]
    clears the last column, the cleared rows span [R^(d-1)], and row [p]
    together with the [d - 1] rows chosen for them spans [R^d]. *)
Theorem basis_extraction : forall d m (W : mat),
  spans d m W ->
  exists idx : nat -> nat, (forall k, (k < d)%nat -> (idx k < m)%nat) /\
    spans d d (fun k j => W (idx k) j).
Proof.
  induction d as [|d IH]; intros m W HW.
  - exists (fun _ => 0%nat). split; [intros; lia|]. intros y. exists (fun _ => 0). intros; lia.
  - (* a pivot row [p] with [W p d <> 0] *)
    destruct (HW (unit_vec d)) as (c0 & Hc0).
    specialize (Hc0 d ltac:(lia)). unfold unit_vec, kron in Hc0.
    destruct (Nat.eq_dec d d) as [_|]; [|congruence].
    destruct (sum_nonzero_term m (fun l => c0 l * W l d)) as (p & Hp & Hpz); [lra|].
    assert (Hpiv : W p d <> 0) by (intros Hz; apply Hpz; rewrite Hz; ring).
    set (piv := W p d) in *.
    set (W' := fun l j => W l j - W l d / piv * W p j).
    assert (HW'd : forall l, W' l d = 0) by (intros; unfold W'; fold piv; field; exact Hpiv).
    (* the cleared rows span [R^d] *)
    assert (HW' : spans d m W').
    { intros y. destruct (HW (fun j => if (j <? d)%nat then y j else 0)) as (c & Hc).
      exists c. intros j Hj.
      rewrite (sum_ext m _ (fun l => c l * W l j - c l * W l d * (W p j / piv)))
        by (intros; unfold W'; field; exact Hpiv).
      rewrite sum_minus, sum_scal_r, (Hc j ltac:(lia)), (Hc d ltac:(lia)).
      rewrite Nat.ltb_irrefl. apply Nat.ltb_lt in Hj. rewrite Hj. ring. }
    destruct (IH m W' HW') as (idx' & Hidx' & Hspan').
    exists (fun k => if (k <? d)%nat then idx' k else p). split.
    { intros k Hk. destruct (k <? d)%nat eqn:E; [apply Hidx', Nat.ltb_lt, E|exact Hp]. }
    intros y.
    destruct (Hspan' (fun j => y j - y d / piv * W p j)) as (c' & Hc').
    set (beta := sum d (fun k => c' k * (W (idx' k) d / piv))).
    exists (fun k => if (k <? d)%nat then c' k else y d / piv - beta).
    intros j Hj. simpl. rewrite Nat.ltb_irrefl.
    (* the first [d] chosen rows are the rows [idx' k] *)
    rewrite (sum_ext d _ (fun k => c' k * W' (idx' k) j + c' k * (W (idx' k) d / piv) * W p j)).
    2:{ intros k Hk. apply Nat.ltb_lt in Hk. rewrite Hk. unfold W'. ring. }
    rewrite sum_plus, sum_scal_r. fold beta.
    destruct (Nat.eq_dec j d) as [->|Hjd].
    + rewrite (sum_zero d (fun k => c' k * W' (idx' k) d)) by (intros; rewrite HW'd; ring).
      fold piv. field. exact Hpiv.
    + rewrite (Hc' j ltac:(lia)). field. exact Hpiv.
Qed.

(** ** The rank step: [sum_k b_k u_{i_k}^T = -M] for any [M] *)

Theorem rank_step : forall d m (Wu M : mat),
  spans d m Wu ->
  exists (idx : nat -> nat) (b : nat -> vec),
    (forall k, (k < d)%nat -> (idx k < m)%nat) /\
    forall i j, (i < d)%nat -> (j < d)%nat ->
      sum d (fun k => b k i * Wu (idx k) j) = - M i j.
Proof.
  intros d m Wu M Hspan.
  destruct (basis_extraction d m Wu Hspan) as (idx & Hidx & Hbasis).
  (* row [i] of [-M] as a combination of the chosen rows, for each [i < d] *)
  destruct (finite_choice vec (fun _ => 0) (fun i c => forall j, (j < d)%nat ->
              sum d (fun k => c k * Wu (idx k) j) = - M i j) d) as (F & HF).
  { intros i Hi. exact (Hbasis (fun j => - M i j)). }
  exists idx, (fun k i => F i k). split; [exact Hidx|].
  intros i j Hi Hj. exact (HF i Hi j Hj).
Qed.

(** ** The width-[m + d] block for any [M] *)

(** SignFlip.extra_units_absorb for an arbitrary skip [M]: the same block
    [ext_down], [ext_up], with [sum_k b_k u_{i_k}^T = -M]. *)
Theorem extra_units_absorb_M :
  forall (d m : nat) (sigma : R -> R) (M Wd Wu : mat) (idx : nat -> nat) (b : nat -> vec)
         (idx_in_range : forall k, (k < d)%nat -> (idx k < m)%nat)
         (sigma_odd_part : forall z, sigma z - sigma (-z) = z)
         (index_solution : forall i j, (i < d)%nat -> (j < d)%nat ->
            sum d (fun k => b k i * Wu (idx k) j) = - M i j),
  forall x i, (i < d)%nat ->
    mv d M x i + block d m sigma Wd Wu x i =
    block d (m + d) sigma (ext_down m d idx b Wd) (ext_up m idx Wu) x i.
Proof.
  intros d m sigma M Wd Wu idx b idx_in_range sigma_odd_part index_solution x i Hi.
  rewrite (extra_units_linear d m d sigma Wd Wu idx b x i idx_in_range sigma_odd_part).
  rewrite (extra_units_linear_term d M Wu idx b x i Hi index_solution). ring.
Qed.

(** ** Main theorem *)

(** [absorption-width], construction: if [sigma z - sigma (-z) = z] and the
    rows of [W_up] span [R^d] ("rank W_up = d"), then for every skip matrix
    [M] (singular or not) the map [x -> M x + W_down sigma(W_up x)] equals a
    residual-free block of the same activation and width [m + d]. *)
Theorem absorption_width_any_M :
  forall (d m : nat) (sigma : R -> R) (M Wd Wu : mat)
         (sigma_odd_part : forall z, sigma z - sigma (-z) = z)
         (rows_span : forall y : vec, exists c : vec,
            forall j, (j < d)%nat -> sum m (fun l => c l * Wu l j) = y j),
  exists Wd' Wu' : mat, forall x i, (i < d)%nat ->
    mv d M x i + block d m sigma Wd Wu x i = block d (m + d) sigma Wd' Wu' x i.
Proof.
  intros d m sigma M Wd Wu sigma_odd_part rows_span.
  destruct (rank_step d m Wu M rows_span) as (idx & b & Hidx & Hsol).
  exists (ext_down m d idx b Wd), (ext_up m idx Wu).
  exact (extra_units_absorb_M d m sigma M Wd Wu idx b Hidx sigma_odd_part Hsol).
Qed.

(** ** Instances *)

(** Blocks agree when their weights agree on the index ranges that are read. *)
Lemma block_ext : forall d m sigma (Wd Wu Wd' Wu' : mat),
  (forall i l, (i < d)%nat -> (l < m)%nat -> Wd i l = Wd' i l) ->
  (forall l j, (l < m)%nat -> (j < d)%nat -> Wu l j = Wu' l j) ->
  forall x i, (i < d)%nat -> block d m sigma Wd Wu x i = block d m sigma Wd' Wu' x i.
Proof.
  intros d m sigma Wd Wu Wd' Wu' HWd HWu x i Hi. unfold block, readout.
  apply sum_ext. intros l Hl. rewrite HWd by assumption. f_equal. f_equal.
  apply mv_row_ext. intros. apply HWu; assumption.
Qed.

(** The [d = 2], [m = 2] relu block [B(x) = (-relu(x_1), relu(x_2))]
    ([W_up = I], [W_down = diag(-1, 1)]). *)
Definition inst_Wd : mat := fun i l =>
  match i, l with 0%nat, 0%nat => -1 | 1%nat, 1%nat => 1 | _, _ => 0 end.

(** No index set works at width 2: entry (2,2) of [W_down[:,S] W_up[S,:]] is
    0 or 1, never -1. *)
Lemma inst_no_same_width_set : forall S : nat -> bool,
  ~ (forall i j, (i < 2)%nat -> (j < 2)%nat ->
       sum 2 (fun l => if S l then inst_Wd i l * ident l j else 0) = - ident i j).
Proof.
  intros S H. specialize (H 1%nat 1%nat ltac:(lia) ltac:(lia)).
  unfold inst_Wd, ident, kron in H. simpl in H.
  destruct (S 0%nat), (S 1%nat); simpl in H; lra.
Qed.

(** Its explicit width-4 replacement: units [(e_1, 0)], [(e_2, 2 e_2)],
    [(-e_1, -e_1)], [(-e_2, -e_2)], i.e.
    [x + B(x) = (-relu(-x_1), 2 relu(x_2) - relu(-x_2))]. *)
Definition inst_Wd4 : mat := fun i l =>
  match i, l with 0%nat, 2%nat => -1 | 1%nat, 1%nat => 2 | 1%nat, 3%nat => -1 | _, _ => 0 end.
Definition inst_Wu4 : mat := fun l j =>
  match l, j with 0%nat, 0%nat => 1 | 1%nat, 1%nat => 1 | 2%nat, 0%nat => -1 | 3%nat, 1%nat => -1 | _, _ => 0 end.

(** Instance of the main theorem, stated with the standard library only
    (relu z = [Rmax z 0]): with the singular skip [M = [[1, 1], [1, 1]]] and
    the block above ([W_up = I], [W_down = diag(-1, 1)], so
    [M x + B(x) = (x_1 + x_2 - relu x_1, x_1 + x_2 + relu x_2)]), the map
    equals a relu block of width [m + d = 4]: some output weights [w] and rows
    [u] give it, unit by unit. *)
Lemma absorption_width_instance :
  exists w u : nat -> nat -> R, forall x0 x1 : R,
    x0 + x1 - Rmax x0 0 =
      w 0%nat 0%nat * Rmax (u 0%nat 0%nat * x0 + u 0%nat 1%nat * x1) 0
      + w 0%nat 1%nat * Rmax (u 1%nat 0%nat * x0 + u 1%nat 1%nat * x1) 0
      + w 0%nat 2%nat * Rmax (u 2%nat 0%nat * x0 + u 2%nat 1%nat * x1) 0
      + w 0%nat 3%nat * Rmax (u 3%nat 0%nat * x0 + u 3%nat 1%nat * x1) 0 /\
    x0 + x1 + Rmax x1 0 =
      w 1%nat 0%nat * Rmax (u 0%nat 0%nat * x0 + u 0%nat 1%nat * x1) 0
      + w 1%nat 1%nat * Rmax (u 1%nat 0%nat * x0 + u 1%nat 1%nat * x1) 0
      + w 1%nat 2%nat * Rmax (u 2%nat 0%nat * x0 + u 2%nat 1%nat * x1) 0
      + w 1%nat 3%nat * Rmax (u 3%nat 0%nat * x0 + u 3%nat 1%nat * x1) 0.
Proof.
  destruct (absorption_width_any_M 2 2 relu (fun _ _ => 1) inst_Wd ident relu_odd_part)
    as (Wd' & Wu' & H).
  - intros y. exists y. intros j Hj. unfold ident, kron.
    destruct j as [|[|j]]; simpl; [ring|ring|lia].
  - exists Wd', Wu'. intros x0 x1.
    pose proof (H (v2 x0 x1) 0%nat ltac:(lia)) as H0.
    pose proof (H (v2 x0 x1) 1%nat ltac:(lia)) as H1.
    unfold block, readout, mv, inst_Wd, ident, kron, v2, relu in H0, H1. simpl in H0, H1.
    tidy. split.
    + align H0. lra.
    + align H1. lra.
Qed.

(** The same with the weights written out, through the explicit construction
    ([idx k = k], [b_k = -e_k]). *)
Lemma absorption_width_explicit_instance :
  forall x i, (i < 2)%nat ->
    x i + block 2 2 relu inst_Wd ident x i = block 2 4 relu inst_Wd4 inst_Wu4 x i.
Proof.
  intros x i Hi.
  rewrite <- (mv_ident 2 x i Hi).
  rewrite (extra_units_absorb_M 2 2 relu ident inst_Wd ident (fun k => k)
             (fun k i => - kron k i)) by
    (try exact relu_odd_part; intros; try lia;
     unfold ident, kron; destruct i0 as [|[|]], j as [|[|]]; simpl; try lia; ring).
  apply block_ext; [|intros l j Hl Hj|exact Hi].
  - intros i' l Hi' Hl. unfold ext_down, inst_Wd, inst_Wd4, ident, kron.
    destruct i' as [|[|]], l as [|[|[|[|]]]]; simpl; try lia; ring.
  - unfold ext_up, inst_Wu4, ident, kron.
    destruct l as [|[|[|[|]]]], j as [|[|]]; simpl; try lia; ring.
Qed.
