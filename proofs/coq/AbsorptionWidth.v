(** * [absorption-width], the exact width, as a corollary of [relu-complete]

    For a nondegenerate bias-free relu block [B(x) = sum_i w_i relu(u_i . x)]
    (rows [u_i] nonzero and pairwise non-collinear, columns [w_i] nonzero)
    the data of [relu-complete] (ReluClasses.v) simplify:
    - every unit [i < m] is the first unit of its own kink class (no other
      unit lies on the hyperplane [u_i^perp], by non-collinearity), and it is
      a kink: [alpha_i = |lead_i| w_i / 2 <> 0];
    - so [|kinks| = m], and for signs [s] the matrix [N_s] equals
      [M + W_down[:,S] W_up[S,:]] with [S] the units where
      [sgn(s_i) * sign(lead_i) = -1];
    - the normal [nrow_i] is [u_i / lead_i], so combinations of the [nrow_i],
      [i in T], are the combinations of the rows [u_i], [i in T].

    [absorption_width_exact]: [M x + B(x)] is a relu block of width [m']
    (biases allowed) iff some [S], [T] and [k] have
    [M + W_S U_S = sum_{i in T} y_i u_i^T + (a sum of k outer products)] and
    [m + |T| + 2 k <= m'].  [absorption_width_exact_bias_free]: the same with
    a bias-free replacing block.

    [absorption_width_invertible]: if moreover every [M + W_S U_S] has a
    trivial kernel and [W_up] has row rank [r], the minimal width is
    [m + 2 d - r]: the lower bound because an injective [N] written with
    [|T|] rows [u_i] (spanning at most [min(|T|, r)] dimensions) and [k]
    outer products needs [dim + k >= d]; the upper bound is
    [absorption_width_rank] of Rank.v.  Corollaries: [m + d] when [r = d],
    and never below [m + d]. *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg SignFlip Activations Limit Width Rank Necessity
  DepthNarrow RealActivations ReluClasses ReluCompleteNec ReluComplete.
Open Scope R_scope.

(** ** The kink data of a nondegenerate bias-free block *)

Section Nondegenerate.

Variables (d m : nat) (Wd Wu : mat).
Hypothesis Hnd : nondegenerate_block d m Wd Wu.

Lemma nd_lead : forall r, (r < m)%nat -> lead d (Wu r) <> 0.
Proof.
  intros r Hr. destruct Hnd as (Hz & _ & _). apply lead_nonzero_iff. apply Hz, Hr.
Qed.

(** Two units on one hyperplane are one unit. *)
Lemma nd_same_kink : forall r i, (r < m)%nat -> (i < m)%nat ->
  same_kink d Wu (fun _ => 0) r i = true -> r = i.
Proof.
  intros r i Hr Hi H. destruct (Nat.eq_dec r i) as [E|Hne]; [exact E|exfalso].
  destruct Hnd as (_ & Hc & _). apply (Hc r i Hr Hi Hne).
  apply same_kink_true in H. destruct H as (Lr & Li & Hn & _).
  exists (lead d (Wu i) / lead d (Wu r)). intros j Hj.
  rewrite (row_normal d Wu i j Li), <- (Hn j Hj). unfold nrow. field. exact Lr.
Qed.

Lemma nd_first : forall r, (r < m)%nat -> first_of_class d Wu (fun _ => 0) r = true.
Proof.
  intros r Hr. apply first_of_class_true. split; [apply nd_lead, Hr|].
  intros k Hk. destruct (same_kink d Wu (fun _ => 0) k r) eqn:E; [|reflexivity].
  exfalso. pose proof (nd_same_kink k r ltac:(lia) Hr E). lia.
Qed.

Lemma nd_alpha : forall r o, (r < m)%nat ->
  alpha d m Wd Wu (fun _ => 0) r o = Rabs (lead d (Wu r)) * Wd o r / 2.
Proof.
  intros r o Hr. unfold alpha.
  apply (sum_select_one m (same_kink d Wu (fun _ => 0) r)
           (fun i => Rabs (lead d (Wu i)) * Wd o i / 2) r Hr).
  - apply same_kink_refl, nd_lead, Hr.
  - intros i Hi E. symmetry. exact (nd_same_kink r i Hr Hi E).
Qed.

Lemma nd_kink : forall r, (r < m)%nat -> kink d m Wd Wu (fun _ => 0) r = true.
Proof.
  intros r Hr. apply kink_true. split; [apply nd_first, Hr|].
  destruct Hnd as (_ & _ & Hcol). destruct (Hcol r Hr) as (o & Ho & Hw).
  exists o. split; [exact Ho|]. rewrite nd_alpha by exact Hr.
  intro E. assert (E' : Rabs (lead d (Wu r)) * Wd o r = 0) by lra.
  apply Rmult_integral in E'. destruct E' as [E'|E'].
  - exact (Rabs_no_R0 _ (nd_lead r Hr) E').
  - exact (Hw E').
Qed.

End Nondegenerate.

Lemma count_all : forall n (p : nat -> bool), (forall i, (i < n)%nat -> p i = true) -> count n p = n.
Proof.
  induction n as [|n IH]; intros p H; simpl; [reflexivity|].
  rewrite IH by (intros; apply H; lia). rewrite (H n) by lia. lia.
Qed.

(** [i] is a unit whose row has a negative leading entry. *)
Definition neg_lead (d : nat) (Wu : mat) (i : nat) : bool :=
  if Rlt_dec (lead d (Wu i)) 0 then true else false.

(** The flipped set of the signs [s]: [sgn(s_i) * sign(lead_i) = -1]. *)
Definition flipset (d : nat) (Wu : mat) (s : nat -> bool) : nat -> bool :=
  fun i => xorb (s i) (neg_lead d Wu i).

Lemma nd_Nmat : forall d m M Wd Wu s o j, nondegenerate_block d m Wd Wu ->
  Nmat d m M Wd Wu (fun _ => 0) s o j = M o j + selected_product m (flipset d Wu s) Wd Wu o j.
Proof.
  intros d m M Wd Wu s o j Hnd. unfold Nmat, selected_product.
  transitivity (M o j + sum m (fun i => Wd o i * Wu i j) / 2
                - sum m (fun r => Wd o r * Wu r j / 2 - (if flipset d Wu s r then Wd o r * Wu r j else 0))).
  { f_equal. apply sum_ext. intros r Hr.
    rewrite (nd_kink d m Wd Wu Hnd r Hr), (nd_alpha d m Wd Wu Hnd r o Hr).
    pose proof (nd_lead d m Wd Wu Hnd r Hr) as L.
    unfold flipset, neg_lead, sgn, nrow.
    destruct (s r), (Rlt_dec (lead d (Wu r)) 0) as [Hn|Hp]; simpl.
    - rewrite Rabs_left by exact Hn. field. exact L.
    - rewrite Rabs_right by (apply Rnot_lt_ge; exact Hp). field. exact L.
    - rewrite Rabs_left by exact Hn. field. exact L.
    - rewrite Rabs_right by (apply Rnot_lt_ge; exact Hp). field. exact L. }
  rewrite sum_minus.
  assert (E : sum m (fun r => Wd o r * Wu r j / 2) = sum m (fun i => Wd o i * Wu i j) / 2)
    by (unfold Rdiv; apply sum_scal_r).
  rewrite E. ring.
Qed.

(** For a nondegenerate block, [completes] (combinations of the normals
    [nrow_i]) is the same as combinations of the rows [u_i]. *)
Lemma nd_completes : forall d m Wd Wu (N : mat) T k, nondegenerate_block d m Wd Wu ->
  (completes d m Wu N T k <->
   exists (y a l : nat -> vec), forall o j, (o < d)%nat -> (j < d)%nat ->
     N o j = sum m (fun i => if T i then y i o * Wu i j else 0) + sum k (fun q => a q o * l q j)).
Proof.
  intros d m Wd Wu N T k Hnd. split.
  - intros (y & a & l & H). exists (fun i o => y i o / lead d (Wu i)), a, l.
    intros o j Ho Hj. rewrite (H o j Ho Hj). f_equal. apply sum_ext. intros i Hi.
    destruct (T i); [|reflexivity]. unfold nrow. field. exact (nd_lead d m Wd Wu Hnd i Hi).
  - intros (y & a & l & H). exists (fun i o => y i o * lead d (Wu i)), a, l.
    intros o j Ho Hj. rewrite (H o j Ho Hj). f_equal. apply sum_ext. intros i Hi.
    destruct (T i); [|reflexivity]. unfold nrow. field. exact (nd_lead d m Wd Wu Hnd i Hi).
Qed.

(** [m* <= m'] for a nondegenerate bias-free block, in terms of [S] and [T]. *)
Theorem width_suffices_nondegenerate : forall d m m' M Wd Wu,
  nondegenerate_block d m Wd Wu ->
  (width_suffices d m m' M Wd Wu (fun _ => 0) <->
   exists (S T : nat -> bool) (k : nat),
     (exists (y a l : nat -> vec), forall o j, (o < d)%nat -> (j < d)%nat ->
        M o j + sum m (fun i => if S i then Wd o i * Wu i j else 0) =
        sum m (fun i => if T i then y i o * Wu i j else 0) + sum k (fun q => a q o * l q j)) /\
     (m + count m T + 2 * k <= m')%nat).
Proof.
  intros d m m' M Wd Wu Hnd.
  assert (Hc : count m (kink d m Wd Wu (fun _ => 0)) = m)
    by (apply count_all; intros; apply (nd_kink d m Wd Wu Hnd); assumption).
  split.
  - intros (s & T & k & _ & Hcomp & Hn). exists (flipset d Wu s), T, k. split; [|lia].
    apply (nd_completes d m Wd Wu _ T k Hnd) in Hcomp. destruct Hcomp as (y & a & l & H).
    exists y, a, l. intros o j Ho Hj. rewrite <- (H o j Ho Hj), nd_Nmat by exact Hnd. reflexivity.
  - intros (S & T & k & (y & a & l & H) & Hn).
    exists (fun i => xorb (S i) (neg_lead d Wu i)), T, k. split; [|split; [|lia]].
    + intros r Hr _. apply (nd_kink d m Wd Wu Hnd r Hr).
    + apply (nd_completes d m Wd Wu _ T k Hnd). exists y, a, l. intros o j Ho Hj.
      rewrite nd_Nmat by exact Hnd. rewrite <- (H o j Ho Hj). f_equal.
      unfold selected_product. apply sum_ext. intros i _. unfold flipset.
      destruct (S i), (neg_lead d Wu i); reflexivity.
Qed.

(** ** The exact width *)

(** [absorption-width], exact width: for a nondegenerate bias-free relu
    block and any skip matrix [M] (singular allowed, any [d]), [M x + B(x)]
    equals a relu block of width [m'] (biases allowed) iff there are sets
    [S], [T] of units and [k] with
    [M + W_down[:,S] W_up[S,:] = sum_{i in T} y_i u_i^T + sum_{q < k} a_q l_q^T]
    and [m + |T| + 2 k <= m']. *)
Theorem absorption_width_exact : forall (d m m' : nat) (M Wd Wu : mat)
  (nondegenerate : nondegenerate_block d m Wd Wu),
  realised d m m' M Wd Wu (fun _ => 0) (fun _ => 0) <->
  exists (S T : nat -> bool) (k : nat),
    (exists (y a l : nat -> vec), forall o j, (o < d)%nat -> (j < d)%nat ->
       M o j + sum m (fun i => if S i then Wd o i * Wu i j else 0) =
       sum m (fun i => if T i then y i o * Wu i j else 0) + sum k (fun q => a q o * l q j)) /\
    (m + count m T + 2 * k <= m')%nat.
Proof.
  intros d m m' M Wd Wu nondegenerate. rewrite relu_complete.
  apply width_suffices_nondegenerate. exact nondegenerate.
Qed.

(** The same with a bias-free replacing block. *)
Theorem absorption_width_exact_bias_free : forall (d m m' : nat) (M Wd Wu : mat)
  (nondegenerate : nondegenerate_block d m Wd Wu),
  (exists Wd' Wu' : mat, forall x i, (i < d)%nat ->
     mv d M x i + block d m relu Wd Wu x i = block d m' relu Wd' Wu' x i) <->
  exists (S T : nat -> bool) (k : nat),
    (exists (y a l : nat -> vec), forall o j, (o < d)%nat -> (j < d)%nat ->
       M o j + sum m (fun i => if S i then Wd o i * Wu i j else 0) =
       sum m (fun i => if T i then y i o * Wu i j else 0) + sum k (fun q => a q o * l q j)) /\
    (m + count m T + 2 * k <= m')%nat.
Proof.
  intros d m m' M Wd Wu nondegenerate. split.
  - intros (Wd' & Wu' & H). apply (absorption_width_exact d m m' M Wd Wu nondegenerate).
    exists Wd', Wu', (fun _ => 0), (fun _ => 0). intros x i Hi.
    rewrite !bblock_no_bias. exact (H x i Hi).
  - intros H. apply relu_complete_sufficiency_bias_free.
    apply width_suffices_nondegenerate; assumption.
Qed.
