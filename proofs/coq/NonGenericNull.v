(** * [non-generic] in measure form: the weights satisfying the index
    condition [W_down[:,S] W_up[S,:] = -M] for some [S] form a Lebesgue-null
    set of R^{d x m} x R^{m x d}.

    The weights of a block are a point [w] of R^(d m + m d): [W_down] is read
    row by row from the coordinates [0 .. d m - 1] (entry [(i, l)] at
    [i m + l]) and [W_up] row by row from the coordinates
    [d m .. d m + m d - 1] (entry [(l, j)] at [d m + l d + j]); entries outside
    the [d x m] and [m x d] ranges are 0.  Every pair of matrices arises this
    way ([weights_of_read]), and reordering coordinates does not change
    Lebesgue measure, so [null_weights d m P] says that the pairs
    [(W_down, W_up)] with property [P] form a Lebesgue-null set.

    The proof: take an entry [M_ab <> 0].  For each [S] the condition at
    [(a, b)] says that the polynomial
    [sum_{l < m, l in S} w_(a m + l) w_(d m + l d + b) + M_ab] vanishes; it is
    [M_ab <> 0] at [w = 0], so its zero set is null ([NullSets.poly_zero_set_null]);
    there are finitely many [S] up to their part in [0 .. m-1]
    ([NonGeneric.subsets]), and a finite union of null sets is null. *)

From Coq Require Import Reals Lra Lia List.
From SkipAbsorption Require Import Linalg NonGeneric NullSets.
Import ListNotations.
Open Scope R_scope.

(** ** Weights as points of R^(d m + m d) *)

Definition down_of (d m : nat) (w : nat -> R) : mat :=
  fun i l => if andb (i <? d)%nat (l <? m)%nat then w (i * m + l)%nat else 0.

Definition up_of (d m : nat) (w : nat -> R) : mat :=
  fun l j => if andb (l <? m)%nat (j <? d)%nat then w (d * m + l * d + j)%nat else 0.

(** A set of pairs [(W_down, W_up)] of [d x m] and [m x d] matrices is
    null: the points of R^(d m + m d) that read as such a pair form a null set. *)
Definition null_weights (d m : nat) (P : mat -> mat -> Prop) : Prop :=
  null_set (d * m + m * d) (fun w => P (down_of d m w) (up_of d m w)).

(** Not every set of weights is null. *)
Lemma all_weights_not_null : forall d m : nat, ~ null_weights d m (fun _ _ => True).
Proof. intros d m. exact (whole_space_not_null (d * m + m * d)). Qed.

(** The point of R^(d m + m d) of a pair of matrices. *)
Definition weights_of (d m : nat) (Wd Wu : mat) : nat -> R :=
  fun k => if (k <? d * m)%nat then Wd (k / m)%nat (k mod m)%nat
           else if (k <? d * m + m * d)%nat then Wu ((k - d * m) / d)%nat ((k - d * m) mod d)%nat
           else 0.

Lemma down_of_in : forall d m w i l, (i < d)%nat -> (l < m)%nat ->
  down_of d m w i l = w (i * m + l)%nat.
Proof.
  intros d m w i l Hi Hl. unfold down_of.
  apply Nat.ltb_lt in Hi. apply Nat.ltb_lt in Hl. rewrite Hi, Hl. reflexivity.
Qed.

Lemma up_of_in : forall d m w l j, (l < m)%nat -> (j < d)%nat ->
  up_of d m w l j = w (d * m + l * d + j)%nat.
Proof.
  intros d m w l j Hl Hj. unfold up_of.
  apply Nat.ltb_lt in Hl. apply Nat.ltb_lt in Hj. rewrite Hl, Hj. reflexivity.
Qed.

(** Every pair of matrices is read back from its point, and the point has no
    coordinates from [d m + m d] on: the encoding is onto the pairs of
    matrices. *)
Lemma weights_of_read : forall d m Wd Wu,
  (forall i l, (i < d)%nat -> (l < m)%nat -> down_of d m (weights_of d m Wd Wu) i l = Wd i l) /\
  (forall l j, (l < m)%nat -> (j < d)%nat -> up_of d m (weights_of d m Wd Wu) l j = Wu l j) /\
  (forall k, (d * m + m * d <= k)%nat -> weights_of d m Wd Wu k = 0).
Proof.
  intros d m Wd Wu. split; [|split].
  - intros i l Hi Hl. rewrite down_of_in by assumption. unfold weights_of.
    assert (Hk : (i * m + l < d * m)%nat) by nia.
    apply Nat.ltb_lt in Hk. rewrite Hk.
    assert (Hm : m <> 0%nat) by lia.
    rewrite (Nat.div_add_l i m l Hm), (Nat.div_small l m Hl), Nat.add_0_r.
    rewrite Nat.add_comm, Nat.mod_add by exact Hm. rewrite Nat.mod_small by exact Hl.
    reflexivity.
  - intros l j Hl Hj. rewrite up_of_in by assumption. unfold weights_of.
    assert (Hk1 : ~ (d * m + l * d + j < d * m)%nat) by lia.
    rewrite <- Nat.ltb_lt in Hk1. destruct (_ <? _)%nat; [exfalso; apply Hk1; reflexivity|].
    assert (Hk2 : (d * m + l * d + j < d * m + m * d)%nat) by nia.
    apply Nat.ltb_lt in Hk2. rewrite Hk2.
    replace (d * m + l * d + j - d * m)%nat with (j + l * d)%nat by lia.
    assert (Hd : d <> 0%nat) by lia.
    rewrite Nat.mod_add by exact Hd. rewrite Nat.mod_small by exact Hj.
    rewrite Nat.div_add by exact Hd. rewrite Nat.div_small by exact Hj. reflexivity.
  - intros k Hk. unfold weights_of.
    assert (H1 : (k <? d * m)%nat = false) by (apply Nat.ltb_ge; lia).
    assert (H2 : (k <? d * m + m * d)%nat = false) by (apply Nat.ltb_ge; lia).
    rewrite H1, H2. reflexivity.
Qed.

(** ** The index condition's polynomial *)

(** The entry [(a, b)] of [W_down[:,T] W_up[T,:] + M], as a polynomial
    expression in the coordinates of the weights. *)
Definition index_entry_expr (d m a b : nat) (T : nat -> bool) (c : R) : poly_expr :=
  PAdd (psum m (fun l => if T l then PMul (PVar (a * m + l)) (PVar (d * m + l * d + b))
                         else PConst 0))
       (PConst c).

Lemma index_entry_eval : forall d m a b T c w, (a < d)%nat -> (b < d)%nat ->
  poly_eval (index_entry_expr d m a b T c) w =
  sum m (fun l => if T l then down_of d m w a l * up_of d m w l b else 0) + c.
Proof.
  intros d m a b T c w Ha Hb. unfold index_entry_expr. simpl. rewrite poly_eval_psum.
  f_equal. apply sum_ext. intros l Hl.
  rewrite down_of_in, up_of_in by assumption. destruct (T l); reflexivity.
Qed.

(** ** The theorem *)

(** [non-generic], measure form: for every [d x d] matrix [M] with a nonzero
    entry (so [d >= 1]) and every [m], the pairs [(W_down, W_up)] for which
    some index set [S] has [W_down[:,S] W_up[S,:] = -M] form a Lebesgue-null
    subset of R^{d x m} x R^{m x d}. *)
Theorem non_generic_null :
  forall (d m : nat) (M : mat)
         (M_nonzero : nonzero_mat d M),
  null_weights d m (fun Wd Wu =>
    exists S : nat -> bool,
      forall i j, (i < d)%nat -> (j < d)%nat ->
        sum m (fun l => if S l then Wd i l * Wu l j else 0) = - M i j).
Proof.
  intros d m M (a & b & Ha & Hb & Hab). unfold null_weights.
  apply null_set_subset with
    (A := fun w => exists T, In T (subsets m) /\
            poly_eval (index_entry_expr d m a b T (M a b)) w = 0).
  - intros w (S & HS). destruct (subsets_complete m S) as (T & HT & HST).
    exists T. split; [exact HT|].
    rewrite index_entry_eval by assumption.
    assert (E : sum m (fun l => if T l then down_of d m w a l * up_of d m w l b else 0) =
                sum m (fun l => if S l then down_of d m w a l * up_of d m w l b else 0)).
    { apply sum_ext. intros l Hl. rewrite (HST l Hl). reflexivity. }
    rewrite E, (HS a b Ha Hb). ring.
  - apply null_set_list_union. intros T _.
    apply poly_zero_set_null. exists (fun _ => 0). split; [reflexivity|].
    unfold index_entry_expr. simpl. rewrite poly_eval_psum.
    rewrite sum_zero; [lra|]. intros l _. destruct (T l); simpl; ring.
Qed.

(** The same set in the form [{W_down[:,S] W_up[S,:] + M = 0}] for an entry:
    for each fixed [S] and each entry [(a, b)] with [M_ab <> 0], the weights
    where the entry [(a, b)] of [W_down[:,S] W_up[S,:] + M] vanishes form a
    null set. *)
Theorem index_entry_null :
  forall (d m a b : nat) (M : mat) (S : nat -> bool),
    (a < d)%nat -> (b < d)%nat -> M a b <> 0 ->
    null_weights d m (fun Wd Wu =>
      sum m (fun l => if S l then Wd a l * Wu l b else 0) + M a b = 0).
Proof.
  intros d m a b M S Ha Hb Hab. unfold null_weights.
  apply null_set_subset with (A := fun w => poly_eval (index_entry_expr d m a b S (M a b)) w = 0).
  - intros w Hw. rewrite index_entry_eval by assumption. exact Hw.
  - apply poly_zero_set_null. exists (fun _ => 0). split; [reflexivity|].
    unfold index_entry_expr. simpl. rewrite poly_eval_psum.
    rewrite sum_zero; [lra|]. intros l _. destruct (S l); simpl; ring.
Qed.

(** ** A null set misses a point of every box *)

(** A null set leaves out a point of every box with sides of positive
    length ([NullSets.null_set_contains_no_box]). *)
Lemma null_set_misses_box : forall (n : nat) (a b : nat -> R) (A : (nat -> R) -> Prop),
  (forall i, (i < n)%nat -> a i < b i) -> null_set n A ->
  exists x, (forall i, (i < n)%nat -> a i <= x i <= b i) /\ ~ A x.
Proof.
  intros n a b A ab nA.
  destruct (Classical_Prop.classic
              (exists x, (forall i, (i < n)%nat -> a i <= x i <= b i) /\ ~ A x)) as [H|H];
    [exact H|].
  exfalso. apply (null_set_contains_no_box n a b A ab); [|exact nA].
  intros x Hx. apply Classical_Prop.NNPP. intros HA. apply H. exists x. split; assumption.
Qed.

(** [non-generic], instance: [d = m = 1], [M = 1].  Every box of weights
    [(W_down, W_up) = (x, y)] contains weights with [x y <> -1], i.e. where
    no index set gives [W_down[:,S] W_up[S,:] = -M]: through [non_generic_null]
    and [null_set_misses_box]. *)
Lemma non_generic_null_instance : forall a0 b0 a1 b1 : R, a0 < b0 -> a1 < b1 ->
  exists x y : R, a0 <= x <= b0 /\ a1 <= y <= b1 /\ x * y <> -1.
Proof.
  intros a0 b0 a1 b1 H0 H1.
  assert (HM : nonzero_mat 1 ident).
  { exists 0%nat, 0%nat. repeat split; try lia. unfold ident, kron. simpl. lra. }
  pose proof (non_generic_null 1 1 ident HM) as HN. unfold null_weights in HN.
  destruct (null_set_misses_box 2 (fun i => match i with O => a0 | _ => a1 end)
              (fun i => match i with O => b0 | _ => b1 end) _
              ltac:(intros [|[|i]] Hi; simpl; [exact H0|exact H1|lia]) HN) as (w & Hw & Hn).
  exists (w 0%nat), (w 1%nat).
  split; [exact (Hw 0%nat ltac:(lia))|]. split; [exact (Hw 1%nat ltac:(lia))|].
  intros E. apply Hn. exists (fun _ => true). intros i j Hi Hj.
  assert (i = 0%nat) by lia. assert (j = 0%nat) by lia. subst i j.
  unfold down_of, up_of, ident, kron. simpl. lra.
Qed.

(** Without [M_nonzero] the measure form is false: for [M = 0] the empty
    index set gives [W_down[:,S] W_up[S,:] = 0 = -M] at every weight, and the
    whole space is not null. *)
Lemma non_generic_null_needs_M_nonzero :
  ~ (forall (d m : nat) (M : mat),
       null_weights d m (fun Wd Wu =>
         exists S : nat -> bool,
           forall i j, (i < d)%nat -> (j < d)%nat ->
             sum m (fun l => if S l then Wd i l * Wu l j else 0) = - M i j)).
Proof.
  intros H. apply (all_weights_not_null 1 1). unfold null_weights.
  eapply null_set_subset; [|exact (H 1%nat 1%nat (fun _ _ => 0))].
  intros w _. exists (fun _ => false). intros i j _ _. simpl. ring.
Qed.
