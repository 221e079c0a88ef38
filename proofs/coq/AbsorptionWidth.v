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
From SkipAbsorption Require Import Linalg SignFlip Limit Width Rank Necessity DepthNarrow
  RealActivations ReluClasses ReluCompleteNec ReluComplete ReluCompleteIff.
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

(** A flipped unit that is also in [T] may be left unflipped: its term
    [w_i u_i^T] moves into [y_i u_i^T].  So [S] and [T] can be taken disjoint. *)
Lemma disjoint_decomposition : forall d m M Wd Wu (S T : nat -> bool) k,
  (exists (y a l : nat -> vec), forall o j, (o < d)%nat -> (j < d)%nat ->
     M o j + sum m (fun i => if S i then Wd o i * Wu i j else 0) =
     sum m (fun i => if T i then y i o * Wu i j else 0) + sum k (fun q => a q o * l q j)) ->
  exists S' : nat -> bool,
    (forall i, (i < m)%nat -> S' i = true -> T i = false) /\
    (exists (y a l : nat -> vec), forall o j, (o < d)%nat -> (j < d)%nat ->
       M o j + sum m (fun i => if S' i then Wd o i * Wu i j else 0) =
       sum m (fun i => if T i then y i o * Wu i j else 0) + sum k (fun q => a q o * l q j)).
Proof.
  intros d m M Wd Wu S T k (y & a & l & H).
  exists (fun i => S i && negb (T i)). split.
  - intros i _ E. destruct (S i), (T i); simpl in E; congruence.
  - exists (fun i o => y i o - (if S i then Wd o i else 0)), a, l. intros o j Ho Hj.
    assert (E1 : sum m (fun i => if S i && negb (T i) then Wd o i * Wu i j else 0) =
                 sum m (fun i => if S i then Wd o i * Wu i j else 0)
                 - sum m (fun i => if T i then (if S i then Wd o i else 0) * Wu i j else 0))
      by (rewrite <- sum_minus; apply sum_ext; intros i _; destruct (S i), (T i); simpl; ring).
    assert (E2 : sum m (fun i => if T i then (y i o - (if S i then Wd o i else 0)) * Wu i j else 0) =
                 sum m (fun i => if T i then y i o * Wu i j else 0)
                 - sum m (fun i => if T i then (if S i then Wd o i else 0) * Wu i j else 0))
      by (rewrite <- sum_minus; apply sum_ext; intros i _; destruct (S i), (T i); simpl; ring).
    rewrite E1, E2. pose proof (H o j Ho Hj). lra.
Qed.

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
    (forall i, (i < m)%nat -> S i = true -> T i = false) /\
    (exists (y a l : nat -> vec), forall o j, (o < d)%nat -> (j < d)%nat ->
       M o j + sum m (fun i => if S i then Wd o i * Wu i j else 0) =
       sum m (fun i => if T i then y i o * Wu i j else 0) + sum k (fun q => a q o * l q j)) /\
    (m + count m T + 2 * k <= m')%nat.
Proof.
  intros d m m' M Wd Wu nondegenerate. rewrite relu_complete.
  rewrite (width_suffices_nondegenerate d m m' M Wd Wu nondegenerate). split.
  - intros (S & T & k & HD & Hn). destruct (disjoint_decomposition d m M Wd Wu S T k HD) as (S' & HS' & HD').
    exists S', T, k. split; [exact HS'|split; [exact HD'|exact Hn]].
  - intros (S & T & k & _ & HD & Hn). exists S, T, k. split; [exact HD|exact Hn].
Qed.

(** The same with a bias-free replacing block. *)
Theorem absorption_width_exact_bias_free : forall (d m m' : nat) (M Wd Wu : mat)
  (nondegenerate : nondegenerate_block d m Wd Wu),
  (exists Wd' Wu' : mat, forall x i, (i < d)%nat ->
     mv d M x i + block d m relu Wd Wu x i = block d m' relu Wd' Wu' x i) <->
  exists (S T : nat -> bool) (k : nat),
    (forall i, (i < m)%nat -> S i = true -> T i = false) /\
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
    apply (proj1 (relu_complete d m m' M Wd Wu (fun _ => 0) (fun _ => 0))).
    apply (absorption_width_exact d m m' M Wd Wu nondegenerate). exact H.
Qed.

(** ** The invertible case: [m + 2 d - rank W_up] *)

(** An enumeration [e 0 .. e (|T| - 1)] of the units [i < m] in [T]. *)
Lemma enum_set : forall m (T : nat -> bool), exists e : nat -> nat,
  (forall q, (q < count m T)%nat -> (e q < m)%nat /\ T (e q) = true) /\
  (forall i, (i < m)%nat -> T i = true -> exists q, (q < count m T)%nat /\ e q = i).
Proof.
  induction m as [|m IH]; intros T.
  - exists (fun q => q). split; intros; simpl in *; lia.
  - destruct (IH T) as (e & He1 & He2). simpl. destruct (T m) eqn:ETm.
    + exists (fun q => if Nat.eqb q (count m T) then m else e q). split.
      * intros q Hq. destruct (Nat.eqb q (count m T)) eqn:E; [split; [lia|exact ETm]|].
        apply Nat.eqb_neq in E. destruct (He1 q ltac:(lia)) as [H1 H2]. split; [lia|exact H2].
      * intros i Hi HT. destruct (Nat.eq_dec i m) as [->|Hne].
        -- exists (count m T). split; [lia|]. rewrite Nat.eqb_refl. reflexivity.
        -- destruct (He2 i ltac:(lia) HT) as (q & Hq & Eq). exists q. split; [lia|].
           replace (Nat.eqb q (count m T)) with false by (symmetry; apply Nat.eqb_neq; lia).
           exact Eq.
    + exists e. rewrite Nat.add_0_r. split.
      * intros q Hq. destruct (He1 q Hq) as [H1 H2]. split; [lia|exact H2].
      * intros i Hi HT. destruct (Nat.eq_dec i m) as [->|Hne]; [congruence|].
        apply He2; [lia|exact HT].
Qed.

(** The lower bound: a matrix [N] with trivial kernel that is a combination
    of the rows [u_i], [i in T], of [W_up] (row rank [r]) plus [k] outer
    products has [|T| + 2 k >= 2 d - r].  The rows in [T] span a space of
    dimension [t <= min(|T|, r)], and [t + k >= d], since otherwise some
    [x <> 0] is orthogonal to that space and to the [l_q] ([t + k < d]
    equations), which gives [N x = 0]. *)
Lemma kernel_count : forall d m r (N Wu : mat) (T : nat -> bool) k (y a l : nat -> vec),
  trivial_kernel d N -> row_rank d m Wu r ->
  (forall o j, (o < d)%nat -> (j < d)%nat ->
     N o j = sum m (fun i => if T i then y i o * Wu i j else 0) + sum k (fun q => a q o * l q j)) ->
  (2 * d - r <= count m T + 2 * k)%nat.
Proof.
  intros d m r N Wu T k y a l HN Hr HD.
  set (UT := fun i j => if T i then Wu i j else 0).
  destruct (row_rank_exists d m UT) as (t & idx' & Hidx' & Hind' & Hrows').
  assert (H1 : (t <= count m T)%nat).
  { destruct (enum_set m T) as (e & He1 & He2).
    apply (indep_in_span_le d t (count m T) (fun p => UT (idx' p)) (fun q => Wu (e q)) Hind').
    intros p Hp. unfold UT. destruct (T (idx' p)) eqn:ET.
    - destruct (He2 (idx' p) (Hidx' p Hp) ET) as (q & Hq & Eq).
      exists (fun q' => kron q q'). intros j Hj.
      rewrite (sum_ext _ _ (fun q' => Wu (e q') j * kron q q')) by (intros; ring).
      rewrite sum_kron_r by exact Hq. rewrite Eq. reflexivity.
    - exists (fun _ => 0). intros j Hj. symmetry. apply sum_zero. intros; ring. }
  assert (H2 : (t <= r)%nat).
  { destruct Hr as (idx & Hidx & Hind & Hrows).
    apply (indep_in_span_le d t r (fun p => UT (idx' p)) (fun q => Wu (idx q)) Hind').
    intros p Hp. unfold UT. destruct (T (idx' p)).
    - exact (Hrows (idx' p) (Hidx' p Hp)).
    - exists (fun _ => 0). intros j Hj. symmetry. apply sum_zero. intros; ring. }
  assert (H3 : (d <= t + k)%nat).
  { destruct (le_lt_dec d (t + k)) as [Hle|Hlt]; [exact Hle|exfalso].
    set (G := fun j p => if (p <? t)%nat then UT (idx' p) j else l (p - t)%nat j).
    destruct (left_kernel_of_narrow d (t + k) G Hlt) as (x & (j0 & Hj0 & Hx0) & Hx).
    apply Hx0. apply (HN x); [|exact Hj0].
    assert (HT : forall i, (i < m)%nat -> T i = true -> sum d (fun j => x j * Wu i j) = 0).
    { intros i Hi ETi. destruct (Hrows' i Hi) as (c & Hc).
      rewrite (sum_ext d _ (fun j => sum t (fun p => c p * (x j * UT (idx' p) j)))).
      2:{ intros j Hj. replace (Wu i j) with (UT i j) by (unfold UT; rewrite ETi; reflexivity).
          rewrite (Hc j Hj), <- sum_scal_l. apply sum_ext. intros; ring. }
      rewrite sum_swap. apply sum_zero. intros p Hp. rewrite sum_scal_l.
      pose proof (Hx p ltac:(lia)) as E. unfold G in E.
      rewrite (proj2 (Nat.ltb_lt p t) Hp) in E. rewrite E. ring. }
    assert (HL : forall q, (q < k)%nat -> sum d (fun j => x j * l q j) = 0).
    { intros q Hq. pose proof (Hx (t + q)%nat ltac:(lia)) as E. unfold G in E.
      rewrite (proj2 (Nat.ltb_ge (t + q) t) ltac:(lia)) in E.
      replace (t + q - t)%nat with q in E by lia. exact E. }
    intros o Ho. unfold mv.
    transitivity (sum d (fun j => sum m (fun i => if T i then y i o * (x j * Wu i j) else 0)
                                  + sum k (fun q => a q o * (x j * l q j)))).
    { apply sum_ext. intros j Hj. rewrite (HD o j Ho Hj), Rmult_plus_distr_r, <- !sum_scal_r.
      f_equal; apply sum_ext; intros i _; [destruct (T i)|]; ring. }
    rewrite sum_plus, !(sum_swap d).
    rewrite (sum_zero m), (sum_zero k); [ring| |].
    - intros q Hq. rewrite sum_scal_l, (HL q Hq). ring.
    - intros i Hi. destruct (T i) eqn:ETi.
      + rewrite sum_scal_l, (HT i Hi ETi). ring.
      + apply sum_zero. reflexivity. }
  lia.
Qed.

(** A bias-free block of width [n <= m'] gives [realised] at width [m']. *)
Lemma realised_of_block : forall d m m' n M Wd Wu Wd' Wu', (n <= m')%nat ->
  (forall x i, (i < d)%nat -> mv d M x i + block d m relu Wd Wu x i = block d n relu Wd' Wu' x i) ->
  realised d m m' M Wd Wu (fun _ => 0) (fun _ => 0).
Proof.
  intros d m m' n M Wd Wu Wd' Wu' Hle H.
  assert (Hf : rfun d n true (fun x o => mv d M x o + bblock d m relu Wd Wu (fun _ => 0) (fun _ => 0) x o)).
  { exists Wd', Wu', (fun _ => 0), (fun _ => 0). split; [intros; split; reflexivity|].
    intros x o Ho. rewrite !bblock_no_bias. exact (H x o Ho). }
  destruct (rfun_pad d n m' true _ Hle Hf) as (Wd'' & Wu'' & bu'' & bd'' & _ & H'').
  exists Wd'', Wu'', bu'', bd''. intros x i Hi. exact (H'' x i Hi).
Qed.

(** [absorption-width], invertible case: for a nondegenerate bias-free relu
    block whose matrices [M + W_down[:,S] W_up[S,:]] all have a trivial
    kernel ([(M + W_S U_S) x = 0] only for [x = 0]), and [W_up] of row rank
    [r], [M x + B(x)] is a relu block of width [m'] (biases allowed) iff
    [m + 2 d - r <= m']. *)
Theorem absorption_width_invertible : forall (d m m' r : nat) (M Wd Wu : mat)
  (nondegenerate : nondegenerate_block d m Wd Wu)
  (pieces_invertible : forall (S : nat -> bool) (x : vec),
     (forall o, (o < d)%nat -> mv d M x o + mv d (selected_product m S Wd Wu) x o = 0) ->
     forall j, (j < d)%nat -> x j = 0)
  (rank_Wup : row_rank d m Wu r),
  realised d m m' M Wd Wu (fun _ => 0) (fun _ => 0) <-> (m + 2 * d - r <= m')%nat.
Proof.
  intros d m m' r M Wd Wu nondegenerate pieces_invertible rank_Wup. split.
  - intros H. apply (absorption_width_exact d m m' M Wd Wu nondegenerate) in H.
    destruct H as (S & T & k & _ & (y & a & l & HD) & Hn).
    assert (HK : trivial_kernel d (fun o j => M o j + selected_product m S Wd Wu o j)).
    { intros x Hx. apply (pieces_invertible S x). intros o Ho.
      rewrite <- mv_mat_plus. exact (Hx o Ho). }
    pose proof (kernel_count d m r _ Wu T k y a l HK rank_Wup HD) as Hc.
    pose proof (row_rank_le_dim d m Wu r rank_Wup). lia.
  - intros Hle.
    destruct (absorption_width_rank d m r relu M Wd Wu relu_odd_part rank_Wup) as (Wd' & Wu' & H).
    exact (realised_of_block d m m' (m + 2 * d - r) M Wd Wu Wd' Wu' Hle H).
Qed.

(** The same with a bias-free replacing block. *)
Theorem absorption_width_invertible_bias_free : forall (d m m' r : nat) (M Wd Wu : mat)
  (nondegenerate : nondegenerate_block d m Wd Wu)
  (pieces_invertible : forall (S : nat -> bool) (x : vec),
     (forall o, (o < d)%nat -> mv d M x o + mv d (selected_product m S Wd Wu) x o = 0) ->
     forall j, (j < d)%nat -> x j = 0)
  (rank_Wup : row_rank d m Wu r),
  (exists Wd' Wu' : mat, forall x i, (i < d)%nat ->
     mv d M x i + block d m relu Wd Wu x i = block d m' relu Wd' Wu' x i) <->
  (m + 2 * d - r <= m')%nat.
Proof.
  intros d m m' r M Wd Wu nondegenerate pieces_invertible rank_Wup.
  rewrite (absorption_width_exact_bias_free d m m' M Wd Wu nondegenerate).
  rewrite <- (absorption_width_exact d m m' M Wd Wu nondegenerate).
  exact (absorption_width_invertible d m m' r M Wd Wu nondegenerate pieces_invertible rank_Wup).
Qed.

(** ** Corollaries *)

(** With [rank W_up = d] the minimal width is [m + d]. *)
Corollary absorption_width_invertible_full_rank : forall (d m m' : nat) (M Wd Wu : mat)
  (nondegenerate : nondegenerate_block d m Wd Wu)
  (pieces_invertible : forall (S : nat -> bool) (x : vec),
     (forall o, (o < d)%nat -> mv d M x o + mv d (selected_product m S Wd Wu) x o = 0) ->
     forall j, (j < d)%nat -> x j = 0)
  (rank_Wup : row_rank d m Wu d),
  realised d m m' M Wd Wu (fun _ => 0) (fun _ => 0) <-> (m + d <= m')%nat.
Proof.
  intros d m m' M Wd Wu nondegenerate pieces_invertible rank_Wup.
  rewrite (absorption_width_invertible d m m' d M Wd Wu nondegenerate pieces_invertible rank_Wup).
  lia.
Qed.

(** Whatever the rank of [W_up], no width below [m + d] works. *)
Corollary absorption_width_never_below : forall (d m m' : nat) (M Wd Wu : mat)
  (nondegenerate : nondegenerate_block d m Wd Wu)
  (pieces_invertible : forall (S : nat -> bool) (x : vec),
     (forall o, (o < d)%nat -> mv d M x o + mv d (selected_product m S Wd Wu) x o = 0) ->
     forall j, (j < d)%nat -> x j = 0),
  realised d m m' M Wd Wu (fun _ => 0) (fun _ => 0) -> (m + d <= m')%nat.
Proof.
  intros d m m' M Wd Wu nondegenerate pieces_invertible H.
  destruct (row_rank_exists d m Wu) as (r & Hr).
  pose proof (row_rank_le_dim d m Wu r Hr).
  apply (absorption_width_invertible d m m' r M Wd Wu nondegenerate pieces_invertible Hr) in H.
  lia.
Qed.

(** ** Instance (stated with the standard library only)

    [d = m = 1], [u = w = 1], [M = -2]: the pieces [M + W_S U_S] are [-2]
    and [-1], both invertible, and [rank W_up = 1 = d].  So
    [-2 t + relu(t)] is a relu block of width [m + d = 2]
    ([absorption_width_any_M]; e.g. [-relu(t) + 2 relu(-t)]) and of no width
    1, even with biases ([absorption_width_never_below]). *)

Definition one_mat : mat := fun _ _ => 1.
Definition m2_mat : mat := fun _ _ => -2.

Lemma one_nondegenerate : nondegenerate_block 1 1 one_mat one_mat.
Proof.
  unfold nondegenerate_block, rows_nonzero, rows_noncollinear, cols_nonzero, one_mat.
  split; [|split].
  - intros l Hl. exists 0%nat. split; [lia|lra].
  - intros l l' Hl Hl' Hne. lia.
  - intros l Hl. exists 0%nat. split; [lia|lra].
Qed.

Lemma m2_pieces_invertible : forall (S : nat -> bool) (x : vec),
  (forall o, (o < 1)%nat -> mv 1 m2_mat x o + mv 1 (selected_product 1 S one_mat one_mat) x o = 0) ->
  forall j, (j < 1)%nat -> x j = 0.
Proof.
  intros S x H j Hj. assert (j = 0%nat) as -> by lia.
  specialize (H 0%nat ltac:(lia)). unfold mv, selected_product, m2_mat, one_mat in H. simpl in H.
  destruct (S 0%nat); lra.
Qed.

Lemma absorption_width_instance_m2 :
  (exists a1 a2 b1 b2 : R, forall t : R,
     -2 * t + Rmax t 0 = a1 * Rmax (b1 * t) 0 + a2 * Rmax (b2 * t) 0) /\
  ~ (exists a b c e : R, forall t : R, -2 * t + Rmax t 0 = a * Rmax (b * t + c) 0 + e).
Proof.
  split.
  - destruct (absorption_width_any_M 1 1 relu m2_mat one_mat one_mat relu_odd_part)
      as (Wd' & Wu' & H).
    { intros yv. exists (fun _ => yv 0%nat). intros j Hj. assert (j = 0%nat) as -> by lia.
      unfold one_mat. simpl. ring. }
    exists (Wd' 0%nat 0%nat), (Wd' 0%nat 1%nat), (Wu' 0%nat 0%nat), (Wu' 1%nat 0%nat).
    intros t. specialize (H (fun _ => t) 0%nat ltac:(lia)).
    unfold block, readout, mv, relu, m2_mat, one_mat in H. simpl in H.
    rewrite !Rplus_0_l, !Rmult_1_l in H. exact H.
  - intros (a & b & c & e & H).
    assert (Hr : realised 1 1 1 m2_mat one_mat one_mat (fun _ => 0) (fun _ => 0)).
    { exists (fun _ _ => a), (fun _ _ => b), (fun _ => c), (fun _ => e).
      intros x i Hi. assert (i = 0%nat) as -> by lia.
      unfold bblock, mv, relu, m2_mat, one_mat. simpl.
      rewrite !Rplus_0_l, !Rmult_1_l, !Rplus_0_r. rewrite (H (x 0%nat)). ring. }
    pose proof (absorption_width_never_below 1 1 1 m2_mat one_mat one_mat
                  one_nondegenerate m2_pieces_invertible Hr). lia.
Qed.

(** ** The hypotheses of the lower bound cannot be dropped

    Without [pieces_invertible]: [d = m = 1], [u = w = 1], [M = -1]
    (nondegenerate; the piece [M + w u = 0] is singular):
    [-t + relu(t) = relu(-t)] has width [1 < m + d = 2].
    Without [nondegenerate]: [d = 1], [m = 2], [W_down = 0], [u_1 = u_2 = 1]
    (zero columns, collinear rows), [M = 1] (every piece is [1]):
    [t = relu(t) - relu(-t)] has width [2 < m + d = 3]. *)

Lemma absorption_width_never_below_needs_pieces_invertible :
  ~ (forall (d m m' : nat) (M Wd Wu : mat), nondegenerate_block d m Wd Wu ->
       realised d m m' M Wd Wu (fun _ => 0) (fun _ => 0) -> (m + d <= m')%nat).
Proof.
  intros H.
  assert (Hr : realised 1 1 1 (fun _ _ => -1) one_mat one_mat (fun _ => 0) (fun _ => 0)).
  { exists (fun _ _ => 1), (fun _ _ => -1), (fun _ => 0), (fun _ => 0).
    intros x i Hi. assert (i = 0%nat) as -> by lia.
    unfold bblock, mv, relu, one_mat. simpl. unfold Rmax.
    destruct (Rle_dec _ _), (Rle_dec _ _); lra. }
  pose proof (H 1%nat 1%nat 1%nat _ _ _ one_nondegenerate Hr). lia.
Qed.

Lemma absorption_width_never_below_needs_nondegenerate :
  ~ (forall (d m m' : nat) (M Wd Wu : mat),
       (forall (S : nat -> bool) (x : vec),
          (forall o, (o < d)%nat -> mv d M x o + mv d (selected_product m S Wd Wu) x o = 0) ->
          forall j, (j < d)%nat -> x j = 0) ->
       realised d m m' M Wd Wu (fun _ => 0) (fun _ => 0) -> (m + d <= m')%nat).
Proof.
  intros H.
  assert (Hp : forall (S : nat -> bool) (x : vec),
            (forall o, (o < 1)%nat -> mv 1 one_mat x o + mv 1 (selected_product 2 S (fun _ _ => 0) one_mat) x o = 0) ->
            forall j, (j < 1)%nat -> x j = 0).
  { intros S x Hx j Hj. assert (j = 0%nat) as -> by lia.
    specialize (Hx 0%nat ltac:(lia)). unfold mv, selected_product, one_mat in Hx. simpl in Hx.
    destruct (S 0%nat), (S 1%nat); lra. }
  assert (Hr : realised 1 2 2 one_mat (fun _ _ => 0) one_mat (fun _ => 0) (fun _ => 0)).
  { exists (fun _ l => if Nat.eqb l 0 then 1 else -1), (fun l _ => if Nat.eqb l 0 then 1 else -1),
           (fun _ => 0), (fun _ => 0).
    intros x i Hi. assert (i = 0%nat) as -> by lia.
    unfold bblock, mv, relu, one_mat. simpl. unfold Rmax.
    repeat match goal with |- context [Rle_dec ?a ?b] => destruct (Rle_dec a b) end; lra. }
  pose proof (H 1%nat 2%nat 2%nat _ _ _ Hp Hr). lia.
Qed.
