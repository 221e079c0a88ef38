(** * Finite sums, vectors and matrices, and the two MLP block formulas.

    A vector of dimension [n] is a function [nat -> R] of which only the
    entries [0 .. n-1] are meaningful; a matrix is a function
    [nat -> nat -> R] read on the relevant index range.  All sums are
    explicit finite sums [sum n f = f 0 + ... + f (n-1)]. *)

From Coq Require Import Reals Lra Lia.
Open Scope R_scope.

(** ** Finite sums *)

Fixpoint sum (n : nat) (f : nat -> R) : R :=
  match n with
  | O => 0
  | S k => sum k f + f k
  end.

Lemma sum_ext : forall n f g,
  (forall i, (i < n)%nat -> f i = g i) -> sum n f = sum n g.
Proof.
  induction n as [|n IH]; intros f g H; simpl; [reflexivity|].
  rewrite (IH f g) by (intros; apply H; lia).
  rewrite (H n) by lia. reflexivity.
Qed.

Lemma sum_plus : forall n f g,
  sum n (fun i => f i + g i) = sum n f + sum n g.
Proof. induction n as [|n IH]; intros; simpl; [ring|rewrite IH; ring]. Qed.

Lemma sum_minus : forall n f g,
  sum n (fun i => f i - g i) = sum n f - sum n g.
Proof. induction n as [|n IH]; intros; simpl; [ring|rewrite IH; ring]. Qed.

Lemma sum_opp : forall n f, sum n (fun i => - f i) = - sum n f.
Proof. induction n as [|n IH]; intros; simpl; [ring|rewrite IH; ring]. Qed.

Lemma sum_scal_l : forall n c f, sum n (fun i => c * f i) = c * sum n f.
Proof. induction n as [|n IH]; intros; simpl; [ring|rewrite IH; ring]. Qed.

Lemma sum_scal_r : forall n c f, sum n (fun i => f i * c) = sum n f * c.
Proof. induction n as [|n IH]; intros; simpl; [ring|rewrite IH; ring]. Qed.

Lemma sum_zero : forall n f, (forall i, (i < n)%nat -> f i = 0) -> sum n f = 0.
Proof.
  intros n f H. rewrite (sum_ext n f (fun _ => 0)) by exact H.
  clear H. induction n as [|n IH]; simpl; [ring|rewrite IH; ring].
Qed.

Lemma sum_swap : forall n m (f : nat -> nat -> R),
  sum n (fun i => sum m (fun j => f i j)) = sum m (fun j => sum n (fun i => f i j)).
Proof.
  induction n as [|n IH]; intros m f; simpl.
  - symmetry. apply sum_zero. reflexivity.
  - rewrite IH. rewrite <- sum_plus. reflexivity.
Qed.

Lemma sum_split : forall m n f,
  sum (m + n) f = sum m f + sum n (fun k => f (m + k)%nat).
Proof.
  intros m n f. induction n as [|n IH].
  - rewrite Nat.add_0_r. simpl. ring.
  - rewrite Nat.add_succ_r. simpl. rewrite IH. ring.
Qed.

Lemma sum_le : forall n f g,
  (forall i, (i < n)%nat -> f i <= g i) -> sum n f <= sum n g.
Proof.
  induction n as [|n IH]; intros f g H; simpl; [lra|].
  assert (sum n f <= sum n g) by (apply IH; intros; apply H; lia).
  assert (f n <= g n) by (apply H; lia). lra.
Qed.

Lemma sum_nonneg : forall n f,
  (forall i, (i < n)%nat -> 0 <= f i) -> 0 <= sum n f.
Proof.
  intros n f H. replace 0 with (sum n (fun _ => 0)).
  - apply sum_le. exact H.
  - apply sum_zero. reflexivity.
Qed.

Lemma term_le_sum : forall n f i0,
  (forall i, (i < n)%nat -> 0 <= f i) -> (i0 < n)%nat -> f i0 <= sum n f.
Proof.
  induction n as [|n IH]; intros f i0 H Hi0; [lia|]. simpl.
  destruct (Nat.eq_dec i0 n) as [->|Hne].
  - assert (0 <= sum n f) by (apply sum_nonneg; intros; apply H; lia). lra.
  - assert (f i0 <= sum n f) by (apply IH; [intros; apply H; lia|lia]).
    assert (0 <= f n) by (apply H; lia). lra.
Qed.

Lemma sum_abs : forall n f, Rabs (sum n f) <= sum n (fun i => Rabs (f i)).
Proof.
  induction n as [|n IH]; intros f; simpl.
  - rewrite Rabs_R0. lra.
  - eapply Rle_trans; [apply Rabs_triang|].
    specialize (IH f). lra.
Qed.

(** ** Kronecker delta and unit vectors *)

Definition kron (i j : nat) : R := if Nat.eq_dec i j then 1 else 0.

Lemma sum_kron_r : forall n f j0,
  (j0 < n)%nat -> sum n (fun j => f j * kron j0 j) = f j0.
Proof.
  induction n as [|n IH]; intros f j0 Hj0; [lia|]. simpl. unfold kron at 2.
  destruct (Nat.eq_dec j0 n) as [->|Hne].
  - rewrite sum_zero; [ring|].
    intros i Hi. unfold kron. destruct (Nat.eq_dec n i); [lia|ring].
  - rewrite IH by lia. ring.
Qed.

Lemma sum_kron_l : forall n f j0,
  (j0 < n)%nat -> sum n (fun j => kron j0 j * f j) = f j0.
Proof.
  intros n f j0 H. rewrite <- (sum_kron_r n f j0 H).
  apply sum_ext. intros. ring.
Qed.

(** ** Vectors, matrices, products *)

Definition vec := nat -> R.
Definition mat := nat -> nat -> R.

(** Matrix-vector product with inner dimension [n]: [(A x)_i = sum_j A_ij x_j]. *)
Definition mv (n : nat) (A : mat) (x : vec) : vec :=
  fun i => sum n (fun j => A i j * x j).

(** Matrix product with inner dimension [n]. *)
Definition matmul (n : nat) (A B : mat) : mat :=
  fun i j => sum n (fun k => A i k * B k j).

Definition ident : mat := kron.

(** Scalar multiple of a vector. *)
Definition scale (t : R) (x : vec) : vec := fun j => t * x j.

(** The [j]-th unit vector. *)
Definition unit_vec (j : nat) : vec := fun k => kron j k.

Lemma mv_ident : forall n x i, (i < n)%nat -> mv n ident x i = x i.
Proof. intros. unfold mv, ident. apply sum_kron_l. assumption. Qed.

Lemma mv_unit : forall n A i j, (j < n)%nat -> mv n A (unit_vec j) i = A i j.
Proof. intros. unfold mv, unit_vec. apply sum_kron_r. assumption. Qed.

Lemma mv_scale : forall n A t x i, mv n A (scale t x) i = t * mv n A x i.
Proof.
  intros. unfold mv, scale. rewrite <- sum_scal_l. apply sum_ext. intros. ring.
Qed.

Lemma mv_matmul : forall n A B x i,
  mv n (matmul n A B) x i = mv n A (mv n B x) i.
Proof.
  intros. unfold mv, matmul.
  transitivity (sum n (fun j => sum n (fun k => A i k * (B k j * x j)))).
  - apply sum_ext. intros. rewrite <- sum_scal_r. apply sum_ext. intros. ring.
  - rewrite sum_swap. apply sum_ext. intros. rewrite <- sum_scal_l. reflexivity.
Qed.

Lemma mv_ext : forall n A x y i,
  (forall j, (j < n)%nat -> x j = y j) -> mv n A x i = mv n A y i.
Proof. intros. unfold mv. apply sum_ext. intros. rewrite H by assumption. reflexivity. Qed.

(** ** The two MLP blocks, as finite sums *)

(** Read-out of hidden unit values [h] through the down-projection [Wd]
    (hidden width [m]): [(Wd h)_i = sum_l Wd_il h_l]. *)
Definition readout (m : nat) (Wd : mat) (h : nat -> R) : vec :=
  fun i => sum m (fun l => Wd i l * h l).

(** Ungated block [x -> W_down sigma(W_up x)] with input dimension [d] and
    hidden width [m]:
    [(block x)_i = sum_{l<m} Wd_il * sigma (sum_{j<d} Wu_lj x_j)]. *)
Definition block (d m : nat) (sigma : R -> R) (Wd Wu : mat) (x : vec) : vec :=
  readout m Wd (fun l => sigma (mv d Wu x l)).

(** Gated block [x -> W_down (g(W_gate x) .* (W_up x))]:
    [(gblock x)_i = sum_{l<m} Wd_il * (g (sum_j Wg_lj x_j) * sum_j Wu_lj x_j)]. *)
Definition gblock (d m : nat) (g : R -> R) (Wd Wg Wu : mat) (x : vec) : vec :=
  readout m Wd (fun l => g (mv d Wg x l) * mv d Wu x l).

Lemma block_unfold : forall d m sigma Wd Wu x i,
  block d m sigma Wd Wu x i =
  sum m (fun l => Wd i l * sigma (sum d (fun j => Wu l j * x j))).
Proof. reflexivity. Qed.

Lemma gblock_unfold : forall d m g Wd Wg Wu x i,
  gblock d m g Wd Wg Wu x i =
  sum m (fun l => Wd i l * (g (sum d (fun j => Wg l j * x j)) *
                            sum d (fun j => Wu l j * x j))).
Proof. reflexivity. Qed.

(** Left-multiplying the down-projection by a [d x d] matrix [A] is the
    same as applying [A] to the block output. *)
Lemma readout_matmul : forall d m A Wd h i,
  readout m (matmul d A Wd) h i = mv d A (readout m Wd h) i.
Proof.
  intros. unfold readout, mv, matmul.
  transitivity (sum m (fun l => sum d (fun k => A i k * (Wd k l * h l)))).
  - apply sum_ext. intros. rewrite <- sum_scal_r. apply sum_ext. intros. ring.
  - rewrite sum_swap. apply sum_ext. intros. rewrite <- sum_scal_l. reflexivity.
Qed.

(** The read-out in row [i] only uses row [i] of [Wd]. *)
Lemma readout_row_ext : forall m Wd Wd' h i,
  (forall l, (l < m)%nat -> Wd i l = Wd' i l) -> readout m Wd h i = readout m Wd' h i.
Proof. intros. unfold readout. apply sum_ext. intros. rewrite H by assumption. reflexivity. Qed.

(** ** The sum-of-absolute-values norm over [d] coordinates *)

Definition norm1 (d : nat) (x : vec) : R := sum d (fun j => Rabs (x j)).

Lemma norm1_nonneg : forall d x, 0 <= norm1 d x.
Proof. intros. apply sum_nonneg. intros. apply Rabs_pos. Qed.

Lemma norm1_ext : forall d x y,
  (forall j, (j < d)%nat -> x j = y j) -> norm1 d x = norm1 d y.
Proof. intros. unfold norm1. apply sum_ext. intros. rewrite H by assumption. reflexivity. Qed.

Lemma coord_le_norm1 : forall d x j, (j < d)%nat -> Rabs (x j) <= norm1 d x.
Proof.
  intros. unfold norm1. apply (term_le_sum d (fun j => Rabs (x j))); [|assumption].
  intros. apply Rabs_pos.
Qed.

Lemma norm1_triang : forall d x y,
  norm1 d (fun j => x j + y j) <= norm1 d x + norm1 d y.
Proof.
  intros. unfold norm1. rewrite <- sum_plus. apply sum_le. intros. apply Rabs_triang.
Qed.

Lemma norm1_minus : forall d x y,
  norm1 d (fun j => x j - y j) <= norm1 d x + norm1 d y.
Proof.
  intros. unfold norm1. rewrite <- sum_plus. apply sum_le. intros.
  unfold Rminus. eapply Rle_trans; [apply Rabs_triang|]. rewrite Rabs_Ropp. lra.
Qed.

Lemma norm1_scale_unit : forall d t j,
  (j < d)%nat -> norm1 d (scale t (unit_vec j)) = Rabs t.
Proof.
  intros. unfold norm1, scale, unit_vec.
  rewrite (sum_ext d _ (fun k => kron j k * Rabs t)).
  - apply (sum_kron_l d (fun _ => Rabs t)). assumption.
  - intros k _. unfold kron. destruct (Nat.eq_dec j k).
    + rewrite Rmult_1_r. ring.
    + rewrite Rmult_0_r, Rabs_R0. ring.
Qed.

(** Sum of absolute values of all entries of an [m x d] matrix: it bounds
    every entry. *)
Definition absmat (m d : nat) (W : mat) : R :=
  sum m (fun l => sum d (fun j => Rabs (W l j))).

Lemma absmat_nonneg : forall m d W, 0 <= absmat m d W.
Proof.
  intros. apply sum_nonneg. intros. apply sum_nonneg. intros. apply Rabs_pos.
Qed.

Lemma entry_le_absmat : forall m d W l j,
  (l < m)%nat -> (j < d)%nat -> Rabs (W l j) <= absmat m d W.
Proof.
  intros. unfold absmat.
  eapply Rle_trans; [|apply (term_le_sum m (fun l => sum d (fun j => Rabs (W l j))) l)].
  - apply (term_le_sum d (fun j => Rabs (W l j))); [|assumption]. intros. apply Rabs_pos.
  - intros. apply sum_nonneg. intros. apply Rabs_pos.
  - assumption.
Qed.

Lemma mv_bound : forall m d W x l,
  (l < m)%nat -> Rabs (mv d W x l) <= absmat m d W * norm1 d x.
Proof.
  intros. unfold mv. eapply Rle_trans; [apply sum_abs|].
  unfold norm1. rewrite <- sum_scal_l. apply sum_le. intros j Hj.
  rewrite Rabs_mult. apply Rmult_le_compat_r; [apply Rabs_pos|].
  apply entry_le_absmat; assumption.
Qed.

(** Nonzero matrix: some entry in the [d x d] range is nonzero. *)
Definition nonzero_mat (d : nat) (M : mat) : Prop :=
  exists i j, (i < d)%nat /\ (j < d)%nat /\ M i j <> 0.

Lemma mv_plus : forall n A x y i,
  mv n A (fun j => x j + y j) i = mv n A x i + mv n A y i.
Proof. intros. unfold mv. rewrite <- sum_plus. apply sum_ext. intros. ring. Qed.

Lemma mv_minus : forall n A x y i,
  mv n A (fun j => x j - y j) i = mv n A x i - mv n A y i.
Proof. intros. unfold mv. rewrite <- sum_minus. apply sum_ext. intros. ring. Qed.

Lemma mv_row_ext : forall n A B x i,
  (forall j, (j < n)%nat -> A i j = B i j) -> mv n A x i = mv n B x i.
Proof. intros. unfold mv. apply sum_ext. intros. rewrite H by assumption. reflexivity. Qed.

Lemma matmul_assoc : forall n A B C i j,
  matmul n A (matmul n B C) i j = matmul n (matmul n A B) C i j.
Proof.
  intros. change (matmul n A (matmul n B C) i j) with (mv n A (fun k => matmul n B C k j) i).
  change (matmul n (matmul n A B) C i j) with (mv n (matmul n A B) (fun k => C k j) i).
  rewrite mv_matmul. reflexivity.
Qed.

Lemma matmul_ident_l : forall n A i j, (i < n)%nat -> matmul n ident A i j = A i j.
Proof. intros. unfold matmul, ident. apply (sum_kron_l n (fun k => A k j)). assumption. Qed.

(** A vector of dimension 1 or 2 built from its coordinates. *)
Definition v1 (a : R) : vec := fun _ => a.
Definition v2 (a b : R) : vec := fun j => match j with O => a | _ => b end.

(** ** Tactics for the instance lemmas (statements written with the standard
    library only, proved through the main theorems) *)

(** Clean up [0 + a], [1 * a], ... that [simpl] leaves after expanding finite sums. *)
Ltac tidy := repeat progress rewrite ?Ropp_0, ?Rplus_0_l, ?Rplus_0_r, ?Rmult_0_l, ?Rmult_0_r,
  ?Rmult_1_l, ?Rmult_1_r.

(** Make the arguments of [Rmax _ 0] and [exp _] in hypothesis [H] syntactically
    equal to the ones of the goal when they are equal as polynomials. *)
Ltac align H :=
  repeat match goal with
  | H' : context [Rmax ?a ?z] |- context [Rmax ?b ?z] =>
      constr_eq H H'; assert_fails (constr_eq a b);
      let e := fresh in assert (e : a = b) by ring; rewrite e in H; clear e
  | H' : context [exp ?a] |- context [exp ?b] =>
      constr_eq H H'; assert_fails (constr_eq a b);
      let e := fresh in assert (e : a = b) by ring; rewrite e in H; clear e
  end.
