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

(** A sum over [m n] indices as a double sum over the pairs [(p, q)], index [p n + q]. *)
Lemma sum_pairs : forall m n f, sum (m * n) f = sum m (fun p => sum n (fun q => f (p * n + q)%nat)).
Proof.
  induction m as [|m IH]; intros n f; [reflexivity|].
  rewrite Nat.mul_succ_l, sum_split, IH. reflexivity.
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

Lemma sum_const : forall n c, sum n (fun _ => c) = INR n * c.
Proof.
  induction n as [|n IH]; intros c; [simpl; ring|].
  change (sum (S n) (fun _ => c)) with (sum n (fun _ => c) + c). rewrite IH, S_INR. ring.
Qed.

(** A nonzero finite sum has a nonzero term. *)
Lemma sum_nonzero_term : forall n f, sum n f <> 0 -> exists k, (k < n)%nat /\ f k <> 0.
Proof.
  induction n as [|n IH]; intros f H; simpl in H; [lra|].
  destruct (Req_EM_T (f n) 0) as [E|E].
  - destruct (IH f) as [k [Hk Hfk]]; [lra|]. exists k. split; [lia|assumption].
  - exists n. split; [lia|assumption].
Qed.

(** A sum whose terms vanish from index 2 on. *)
Lemma sum_two : forall m f, (2 <= m)%nat -> (forall l, (2 <= l)%nat -> f l = 0) ->
  sum m f = f 0%nat + f 1%nat.
Proof.
  induction m as [|m IH]; intros f Hm Hf; [lia|].
  destruct (Nat.eq_dec m 1) as [->|Hne]; [simpl; ring|].
  simpl. rewrite (IH f); [|lia|exact Hf]. rewrite (Hf m) by lia. ring.
Qed.

(** The first two terms taken out of a sum. *)
Lemma sum_peel2 : forall m f, (2 <= m)%nat ->
  sum m f = f 0%nat + f 1%nat + sum m (fun l => if Nat.ltb l 2 then 0 else f l).
Proof.
  induction m as [|m IH]; intros f Hm; [lia|].
  destruct (Nat.eq_dec m 1) as [->|Hne]; [simpl; ring|].
  change (sum (S m) f) with (sum m f + f m).
  change (sum (S m) (fun l => if Nat.ltb l 2 then 0 else f l))
    with (sum m (fun l => if Nat.ltb l 2 then 0 else f l) + (if Nat.ltb m 2 then 0 else f m)).
  rewrite (IH f) by lia. replace (Nat.ltb m 2) with false by (symmetry; apply Nat.ltb_ge; lia). ring.
Qed.

(** Short sums written out. *)
Lemma sum3 : forall f, sum 3 f = f 0%nat + f 1%nat + f 2%nat.
Proof. intros f. simpl. ring. Qed.

Lemma sum6 : forall f, sum 6 f =
  f 0%nat + f 1%nat + f 2%nat + f 3%nat + f 4%nat + f 5%nat.
Proof. intros f. simpl. ring. Qed.

Lemma sum7 : forall f, sum 7 f =
  f 0%nat + f 1%nat + f 2%nat + f 3%nat + f 4%nat + f 5%nat + f 6%nat.
Proof. intros f. simpl. ring. Qed.

(** [skip p] enumerates the indices other than [p], in order; [unskip p] undoes it. *)
Definition skip (p k : nat) : nat := if (k <? p)%nat then k else S k.
Definition unskip (p k : nat) : nat := if (k <? p)%nat then k else pred k.

Lemma sum_skip : forall n p f, (p < S n)%nat ->
  sum (S n) f = f p + sum n (fun k => f (skip p k)).
Proof.
  induction n as [|n IH]; intros p f Hp.
  - assert (p = 0%nat) by lia. subst. simpl. ring.
  - destruct (Nat.eq_dec p (S n)) as [->|Hne].
    + change (sum (S (S n)) f) with (sum (S n) f + f (S n)).
      rewrite (sum_ext (S n) (fun k => f (skip (S n) k)) f); [ring|].
      intros k Hk. unfold skip. replace (k <? S n)%nat with true; [reflexivity|].
      symmetry. apply Nat.ltb_lt. exact Hk.
    + change (sum (S (S n)) f) with (sum (S n) f + f (S n)).
      rewrite (IH p f) by lia. simpl.
      unfold skip at 3. replace (n <? p)%nat with false; [ring|].
      symmetry. apply Nat.ltb_ge. lia.
Qed.

Lemma unskip_skip : forall p k, unskip p (skip p k) = k.
Proof.
  intros p k. unfold skip, unskip. destruct (k <? p)%nat eqn:E.
  - rewrite E. reflexivity.
  - apply Nat.ltb_ge in E. replace (S k <? p)%nat with false; [reflexivity|].
    symmetry. apply Nat.ltb_ge. lia.
Qed.

Lemma skip_ne : forall p k, skip p k <> p.
Proof. intros p k. unfold skip. destruct (k <? p)%nat eqn:E; apply Nat.ltb_lt in E || apply Nat.ltb_ge in E; lia. Qed.

Lemma skip_lt : forall p k n, (k < n)%nat -> (skip p k < S n)%nat.
Proof. intros p k n H. unfold skip. destruct (k <? p)%nat; lia. Qed.

(** ** Choices and maps over [0 .. n-1] *)

(** Choice over a finite range of indices, proved without axioms. *)
Lemma finite_choice : forall (A : Type) (a0 : A) (P : nat -> A -> Prop) (n : nat),
  (forall l, (l < n)%nat -> exists a, P l a) ->
  exists f : nat -> A, forall l, (l < n)%nat -> P l (f l).
Proof.
  intros A a0 P n. induction n as [|n IH]; intros H.
  - exists (fun _ => a0). intros; lia.
  - destruct IH as [f Hf]; [intros; apply H; lia|].
    destruct (H n ltac:(lia)) as [a Ha].
    exists (fun l => if Nat.eq_dec l n then a else f l).
    intros l Hl. destruct (Nat.eq_dec l n) as [->|Hne]; [assumption|apply Hf; lia].
Qed.

(** An injective map of [0..n-1] into itself is onto [0..n-1]. *)
Lemma injective_onto : forall n (f : nat -> nat),
  (forall l, (l < n)%nat -> (f l < n)%nat) ->
  (forall l l', (l < n)%nat -> (l' < n)%nat -> f l = f l' -> l = l') ->
  forall k, (k < n)%nat -> exists l, (l < n)%nat /\ f l = k.
Proof.
  induction n as [|n IH]; intros f Hrange Hinj k Hk; [lia|].
  (* g sends the preimage of n (if any) to f n, and agrees with f elsewhere *)
  set (g := fun l => if Nat.eq_dec (f l) n then f n else f l).
  assert (Hfn : forall l, (l < n)%nat -> f l <> f n).
  { intros l Hl E. apply Hinj in E; lia. }
  assert (Hfn_range : (f n < S n)%nat) by (apply Hrange; lia).
  assert (Hg_range : forall l, (l < n)%nat -> (g l < n)%nat).
  { intros l Hl. unfold g. destruct (Nat.eq_dec (f l) n) as [E|E].
    - pose proof (Hfn l Hl). lia.
    - assert (f l < S n)%nat by (apply Hrange; lia). lia. }
  assert (Hg_inj : forall l l', (l < n)%nat -> (l' < n)%nat -> g l = g l' -> l = l').
  { intros l l' Hl Hl' E. unfold g in E.
    destruct (Nat.eq_dec (f l) n) as [E1|E1], (Nat.eq_dec (f l') n) as [E2|E2].
    - apply Hinj; [lia|lia|congruence].
    - exfalso. apply (Hfn l' Hl'). congruence.
    - exfalso. apply (Hfn l Hl). congruence.
    - apply Hinj; [lia|lia|assumption]. }
  destruct (Nat.eq_dec k (f n)) as [->|Hkn]; [exists n; split; [lia|reflexivity]|].
  destruct (Nat.eq_dec k n) as [->|Hkn'].
  - destruct (IH g Hg_range Hg_inj (f n)) as [l [Hl Hgl]]; [lia|].
    exists l. split; [lia|]. unfold g in Hgl.
    destruct (Nat.eq_dec (f l) n) as [E|E]; [assumption|].
    exfalso. apply (Hfn l Hl). assumption.
  - destruct (IH g Hg_range Hg_inj k) as [l [Hl Hgl]]; [lia|].
    exists l. split; [lia|]. unfold g in Hgl.
    destruct (Nat.eq_dec (f l) n) as [E|E]; [congruence|assumption].
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

Lemma kron_sym : forall i j, kron i j = kron j i.
Proof.
  intros i j. unfold kron.
  destruct (Nat.eq_dec i j), (Nat.eq_dec j i); try reflexivity; lia.
Qed.

(** A sum in which exactly one index [r0 < m] is selected. *)
Lemma sum_select_one : forall m (p : nat -> bool) (f : nat -> R) r0,
  (r0 < m)%nat -> p r0 = true -> (forall r, (r < m)%nat -> p r = true -> r = r0) ->
  sum m (fun r => if p r then f r else 0) = f r0.
Proof.
  intros m p f r0 Hr0 Hp Hu.
  rewrite (sum_ext m _ (fun r => f r * kron r0 r)) by
    (intros r Hr; unfold kron; destruct (Nat.eq_dec r0 r) as [<-|Hne];
     [rewrite Hp; ring|destruct (p r) eqn:E; [exfalso; apply Hne; symmetry; apply Hu; assumption|ring]]).
  apply sum_kron_r. exact Hr0.
Qed.

(** Re-indexing a sum through a bijection of [0..n-1], with Kronecker deltas. *)
Lemma sum_reindex : forall n (p : nat -> nat) (h : nat -> R),
  (forall l, (l < n)%nat -> (p l < n)%nat) ->
  (forall l l', (l < n)%nat -> (l' < n)%nat -> p l = p l' -> l = l') ->
  (forall k, (k < n)%nat -> exists l, (l < n)%nat /\ p l = k) ->
  sum n h = sum n (fun l => h (p l)).
Proof.
  intros n p h Hrange Hinj Hsurj.
  transitivity (sum n (fun k => sum n (fun l => kron (p l) k * h k))).
  - apply sum_ext. intros k Hk. rewrite sum_scal_r.
    destruct (Hsurj k Hk) as [l0 [Hl0 <-]].
    rewrite (sum_ext n (fun l => kron (p l) (p l0)) (fun l => kron l0 l * 1)).
    + rewrite (sum_kron_l n (fun _ => 1) l0 Hl0). ring.
    + intros l Hl. unfold kron.
      destruct (Nat.eq_dec (p l) (p l0)) as [E|E], (Nat.eq_dec l0 l) as [E'|E']; try ring.
      * exfalso. apply E'. symmetry. apply Hinj; assumption.
      * exfalso. apply E. congruence.
  - rewrite sum_swap. apply sum_ext. intros l Hl.
    apply (sum_kron_l n h (p l)). apply Hrange. assumption.
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

(** Two products in a row, with inner dimensions [d] then [k]. *)
Lemma mv_mv : forall d k (A B : mat) (h : vec) i,
  mv d A (mv k B h) i = mv k (fun l j => sum d (fun t => A l t * B t j)) h i.
Proof.
  intros. unfold mv.
  rewrite (sum_ext d _ (fun t => sum k (fun j => A i t * B t j * h j)))
    by (intros; rewrite <- sum_scal_l; apply sum_ext; intros; ring).
  rewrite sum_swap. apply sum_ext. intros j _. rewrite <- sum_scal_r. reflexivity.
Qed.

Lemma mv_matmul : forall n A B x i,
  mv n (matmul n A B) x i = mv n A (mv n B x) i.
Proof. intros. rewrite mv_mv. reflexivity. Qed.

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
Proof. intros. exact (eq_sym (mv_mv d m A Wd h i)). Qed.

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

Lemma matmul_ident_r : forall n A i j, (j < n)%nat -> matmul n A ident i j = A i j.
Proof.
  intros. unfold matmul, ident.
  rewrite (sum_ext n _ (fun k => A i k * kron j k)) by (intros; rewrite kron_sym; reflexivity).
  apply (sum_kron_r n (fun k => A i k)). assumption.
Qed.

Lemma mv_axpy : forall n (A : mat) (x y : vec) s i,
  mv n A (fun j => x j + s * y j) i = mv n A x i + s * mv n A y i.
Proof. intros. unfold mv. rewrite <- sum_scal_l, <- sum_plus. apply sum_ext. intros. ring. Qed.

Lemma mv_opp : forall n (A : mat) (x : vec) i, mv n A (fun j => - x j) i = - mv n A x i.
Proof. intros. unfold mv. rewrite <- sum_opp. apply sum_ext. intros. ring. Qed.

(** A product with a combination of vectors is the combination of the products. *)
Lemma mv_lin : forall d n (A : mat) (a : nat -> R) (y : nat -> vec) i,
  mv d A (fun j => sum n (fun k => a k * y k j)) i = sum n (fun k => a k * mv d A (y k) i).
Proof.
  intros d n A a y i. unfold mv.
  rewrite (sum_ext d _ (fun j => sum n (fun k => a k * (A i j * y k j))))
    by (intros j _; rewrite <- sum_scal_l; apply sum_ext; intros; ring).
  rewrite sum_swap. apply sum_ext. intros k _. apply sum_scal_l.
Qed.

Lemma mv_mat_plus : forall n (A B : mat) x i,
  mv n (fun i j => A i j + B i j) x i = mv n A x i + mv n B x i.
Proof. intros. unfold mv. rewrite <- sum_plus. apply sum_ext. intros. ring. Qed.

Lemma mv_mat_minus : forall n (A B : mat) x i,
  mv n (fun i j => A i j - B i j) x i = mv n A x i - mv n B x i.
Proof. intros. unfold mv. rewrite <- sum_minus. apply sum_ext. intros. ring. Qed.

(** ** Dot products *)

Definition dot (d : nat) (a b : vec) : R := sum d (fun j => a j * b j).

Lemma dot_ext : forall d a x y, (forall j, (j < d)%nat -> x j = y j) -> dot d a x = dot d a y.
Proof. intros. unfold dot. apply sum_ext. intros j Hj. rewrite H by exact Hj. reflexivity. Qed.

Lemma dot_ext_l : forall d a a' b, (forall j, (j < d)%nat -> a j = a' j) -> dot d a b = dot d a' b.
Proof. intros. unfold dot. apply sum_ext. intros j Hj. rewrite H by exact Hj. reflexivity. Qed.

Lemma dot_comm : forall d a b, dot d a b = dot d b a.
Proof. intros. unfold dot. apply sum_ext. intros. ring. Qed.

Lemma dot_axpy : forall d a b c s,
  dot d a (fun j => b j + s * c j) = dot d a b + s * dot d a c.
Proof. intros. unfold dot. rewrite <- sum_scal_l, <- sum_plus. apply sum_ext. intros. ring. Qed.

Lemma dot_axmy : forall d a b c s,
  dot d a (fun j => b j - s * c j) = dot d a b - s * dot d a c.
Proof. intros. unfold dot. rewrite <- sum_scal_l, <- sum_minus. apply sum_ext. intros. ring. Qed.

Lemma dot_axpy_l : forall d a b c s,
  dot d (fun j => a j + s * b j) c = dot d a c + s * dot d b c.
Proof. intros. unfold dot. rewrite <- sum_scal_l, <- sum_plus. apply sum_ext. intros. ring. Qed.

Lemma dot_plus_l : forall d a b x, dot d (fun j => a j + b j) x = dot d a x + dot d b x.
Proof. intros. unfold dot. rewrite <- sum_plus. apply sum_ext. intros. ring. Qed.

Lemma dot_scal_r : forall d (a b : vec) s, dot d a (fun j => s * b j) = s * dot d a b.
Proof. intros. unfold dot. rewrite <- sum_scal_l. apply sum_ext. intros. ring. Qed.

Lemma dot_self_nonneg : forall d a, 0 <= dot d a a.
Proof. intros. apply sum_nonneg. intros. apply Rle_0_sqr. Qed.

Lemma dot_self_zero : forall d a, dot d a a = 0 -> forall j, (j < d)%nat -> a j = 0.
Proof.
  intros d a H j Hj.
  assert (a j * a j <= dot d a a).
  { apply (term_le_sum d (fun j => a j * a j)); [intros; apply Rle_0_sqr|assumption]. }
  pose proof (Rle_0_sqr (a j)). unfold Rsqr in *. nra.
Qed.

Lemma dot_self_pos : forall d a, (exists j, (j < d)%nat /\ a j <> 0) -> 0 < dot d a a.
Proof.
  intros d a [j [Hj Haj]].
  assert (a j * a j <= dot d a a).
  { apply (term_le_sum d (fun j => a j * a j)); [intros; apply Rle_0_sqr|assumption]. }
  assert (0 < a j * a j) by (apply Rsqr_pos_lt; assumption). lra.
Qed.

Lemma dot_comb : forall d (a b c x : vec),
  dot d (fun j => - a j - b j + c j) x = - dot d a x - dot d b x + dot d c x.
Proof.
  intros. unfold dot. rewrite <- sum_opp, <- sum_minus, <- sum_plus. apply sum_ext. intros. ring.
Qed.

(** [A^T c] *)
Definition transpose_mv (d : nat) (A : mat) (c : vec) : vec := fun j => sum d (fun i => c i * A i j).

Lemma dot_transpose : forall d A c x, dot d (transpose_mv d A c) x = dot d c (mv d A x).
Proof.
  intros. unfold dot, transpose_mv, mv.
  rewrite (sum_ext d (fun j => sum d (fun i => c i * A i j) * x j)
             (fun j => sum d (fun i => c i * A i j * x j))) by (intros; rewrite <- sum_scal_r; reflexivity).
  rewrite sum_swap. apply sum_ext. intros i _. rewrite <- sum_scal_l. apply sum_ext. intros; ring.
Qed.

(** Row [k] of [V] applied to [x]: [(V x)_k = V_k . x]. *)
Lemma mv_dot : forall d (V : mat) x k, mv d V x k = dot d (V k) x.
Proof. reflexivity. Qed.

(** A row that is a multiple [c u] of [u] gives [c (u . x)]. *)
Lemma mv_collinear_row : forall d (V : mat) (u x : vec) k c,
  (forall j, (j < d)%nat -> V k j = c * u j) -> mv d V x k = c * dot d u x.
Proof.
  intros. unfold mv, dot. rewrite <- sum_scal_l. apply sum_ext. intros j Hj.
  rewrite H by assumption. ring.
Qed.

(** [sum_j (sum_r f_r j) x_j = sum_r (sum_j f_r j x_j)]. *)
Lemma dot_sum : forall d n (f : nat -> nat -> R) (x : vec),
  sum d (fun j => sum n (fun r => f r j) * x j) = sum n (fun r => sum d (fun j => f r j * x j)).
Proof.
  intros. rewrite (sum_ext d _ (fun j => sum n (fun r => f r j * x j)))
    by (intros; rewrite sum_scal_r; reflexivity).
  apply sum_swap.
Qed.

(** The same for the combination [sum_r c_r V_r]. *)
Lemma sum_outer_apply : forall d n (c : nat -> R) (V : nat -> vec) (x : vec),
  sum d (fun j => sum n (fun r => c r * V r j) * x j) =
  sum n (fun r => c r * sum d (fun j => V r j * x j)).
Proof.
  intros. rewrite (dot_sum d n (fun r j => c r * V r j)). apply sum_ext. intros.
  rewrite <- sum_scal_l. apply sum_ext. intros. ring.
Qed.

(** A vector of dimension 1 or 2 built from its coordinates. *)
Definition v1 (a : R) : vec := fun _ => a.
Definition v2 (a b : R) : vec := fun j => match j with O => a | _ => b end.

(** ** Tactics for the instance lemmas (statements written with the standard
    library only, proved through the main theorems) *)

(** Clean up [0 + a], [1 * a], ... that [simpl] leaves after expanding finite sums. *)
Ltac tidy := repeat progress rewrite ?Ropp_0, ?Rplus_0_l, ?Rplus_0_r, ?Rmult_0_l, ?Rmult_0_r,
  ?Rmult_1_l, ?Rmult_1_r.

(** Make the arguments of [Rmax _ 0] and [exp _] in hypothesis [H] syntactically
    equal to the ones of the goal when they are equal as polynomials.  An argument of [H]
    that already stands in the goal is left alone, so the pairs that [ring] refutes are not
    tried again after each rewrite. *)
Ltac align H :=
  repeat match type of H with
  | context [Rmax ?a ?z] =>
      lazymatch goal with |- context [Rmax a z] => fail | _ => idtac end;
      match goal with
      | |- context [Rmax ?b z] =>
          let e := fresh in assert (e : a = b) by ring; rewrite e in H; clear e
      end
  | context [exp ?a] =>
      lazymatch goal with |- context [exp a] => fail | _ => idtac end;
      match goal with
      | |- context [exp ?b] =>
          let e := fresh in assert (e : a = b) by ring; rewrite e in H; clear e
      end
  end.

(** A covector against a read-out: [a . (W h) = sum_l (a . w_l) h_l]. *)
Lemma dot_readout : forall d m (a : vec) (W : mat) (h : nat -> R),
  dot d a (readout m W h) = sum m (fun l => sum d (fun i => a i * W i l) * h l).
Proof.
  intros. unfold dot, readout.
  rewrite (sum_ext d _ (fun i => sum m (fun l => a i * W i l * h l)))
    by (intros; rewrite <- sum_scal_l; apply sum_ext; intros; ring).
  rewrite sum_swap. apply sum_ext. intros l _. rewrite sum_scal_r. reflexivity.
Qed.

(** A covector against the combination [a c2 - b c1]. *)
Lemma dot_lin2 : forall d (a b : R) (c1 c2 v : vec),
  dot d (fun k => a * c2 k - b * c1 k) v = a * dot d c2 v - b * dot d c1 v.
Proof.
  intros. unfold dot. rewrite <- !sum_scal_l, <- sum_minus. apply sum_ext. intros; ring.
Qed.
