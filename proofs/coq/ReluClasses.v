(** * Kink classes of a relu block with biases: the data of [relu-complete]

    A unit [i] of the block [B(x) = sum_i w_i relu(u_i . x + c_i) + b] with
    [u_i <> 0] has the affine kink hyperplane [{u_i . x + c_i = 0}].  We name
    a hyperplane by its normal form: divide [(u_i, c_i)] by the leading
    (first nonzero) entry of [u_i], so that the leading entry of the normal
    [u_H] is 1.  Two units lie on the same hyperplane iff their normal forms
    agree, and then [(u_i, c_i) = lam_i (u_H, b_H)] with [lam_i] the leading
    entry of [u_i].

    With [relu z = z/2 + |z|/2] the block reads
    [(M + L) x + k + sum_H alpha_H |u_H . x + b_H|] where
    [L = W_down W_up / 2] and the even coefficient of a class is
    [alpha_H = sum_{i in H} |lam_i| w_i / 2].  A class is a kink of [F] when
    [alpha_H <> 0]; we count each class once, at its first unit.

    [m*] is [|kinks| + min over signs s and sets T of kinks of
    (|T| + 2 rank (N_s P_T))], with [N_s = M + L - sum_H s_H alpha_H u_H^T]
    and [P_T] the orthogonal projector onto [span{u_H : H in T}]-perp.  We
    state [rank (N_s P_T) <= k] in the equivalent form (informal Lemma 3 of
    proofs/informal/relu-complete.md): [N_s = sum_{H in T} y_H u_H^T + R]
    for some vectors [y_H] and a matrix [R] that is a sum of [k] outer
    products.  "A sum of k outer products" is the usual definition of
    "rank at most k". *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg SignFlip RealActivations Limit.
Open Scope R_scope.

(** Boolean test of a real equality (decidable with the axioms of the reals). *)
Definition req_b (a b : R) : bool := if Req_EM_T a b then true else false.

(** The leading entry of [u] among [u 0 .. u (d-1)]: its first nonzero entry,
    or [0] when these entries are all zero. *)
Fixpoint lead (d : nat) (u : vec) : R :=
  match d with
  | O => 0
  | S k => if Req_EM_T (lead k u) 0 then u k else lead k u
  end.

(** The normal form [(u_H, b_H)] of the kink hyperplane of unit [i]. *)
Definition nrow (d : nat) (Wu : mat) (i : nat) : vec := fun j => Wu i j / lead d (Wu i).
Definition nbias (d : nat) (Wu : mat) (bu : vec) (i : nat) : R := bu i / lead d (Wu i).

(** [vec_eqb d a b]: [a j = b j] for every [j < d]. *)
Fixpoint vec_eqb (d : nat) (a b : vec) : bool :=
  match d with
  | O => true
  | S k => vec_eqb k a b && req_b (a k) (b k)
  end.

(** Units [i] and [j] have nonzero rows and the same kink hyperplane. *)
Definition same_kink (d : nat) (Wu : mat) (bu : vec) (i j : nat) : bool :=
  negb (req_b (lead d (Wu i)) 0) && negb (req_b (lead d (Wu j)) 0) &&
  vec_eqb d (nrow d Wu i) (nrow d Wu j) && req_b (nbias d Wu bu i) (nbias d Wu bu j).

(** The even coefficient [alpha_H] (a vector of [R^d], entry [o]) of the
    class of unit [r]: [sum_{i on the hyperplane of r} |lam_i| w_i / 2]. *)
Definition alpha (d m : nat) (Wd Wu : mat) (bu : vec) (r : nat) : vec :=
  fun o => sum m (fun i => if same_kink d Wu bu r i then Rabs (lead d (Wu i)) * Wd o i / 2 else 0).

(** [r] is the first unit of its class: its row is nonzero and no earlier
    unit lies on its hyperplane. *)
Fixpoint none_before (r : nat) (p : nat -> bool) : bool :=
  match r with
  | O => true
  | S k => none_before k p && negb (p k)
  end.
Definition first_of_class (d : nat) (Wu : mat) (bu : vec) (r : nat) : bool :=
  negb (req_b (lead d (Wu r)) 0) && none_before r (fun j => same_kink d Wu bu j r).

(** [r] names a kink of [F]: the first unit of a class with [alpha_H <> 0]. *)
Definition kink (d m : nat) (Wd Wu : mat) (bu : vec) (r : nat) : bool :=
  first_of_class d Wu bu r && negb (vec_eqb d (alpha d m Wd Wu bu r) (fun _ => 0)).

(** The number of [i < n] with [p i = true]. *)
Fixpoint count (n : nat) (p : nat -> bool) : nat :=
  match n with
  | O => O
  | S k => (count k p + (if p k then 1 else 0))%nat
  end.

(** [N_s = M + W_down W_up / 2 - sum_{kinks H} s_H alpha_H u_H^T], with
    [s_H = -1] where [s] is [true] and [+1] elsewhere. *)
Definition sgn (s : nat -> bool) (r : nat) : R := if s r then -1 else 1.
Definition Nmat (d m : nat) (M Wd Wu : mat) (bu : vec) (s : nat -> bool) : mat :=
  fun o j => M o j + sum m (fun i => Wd o i * Wu i j) / 2
             - sum m (fun r => if kink d m Wd Wu bu r
                               then sgn s r * alpha d m Wd Wu bu r o * nrow d Wu r j else 0).

(** [rank (N P_T) <= k], in the form of Lemma 3: [N] is a combination
    [sum_{H in T} y_H u_H^T] of the normals of [T] plus a sum of [k] outer
    products [a_q l_q^T]. *)
Definition completes (d m : nat) (Wu : mat) (N : mat) (T : nat -> bool) (k : nat) : Prop :=
  exists (y a l : nat -> vec),
    forall o j, (o < d)%nat -> (j < d)%nat ->
      N o j = sum m (fun r => if T r then y r o * nrow d Wu r j else 0)
              + sum k (fun q => a q o * l q j).

(** The width bound [m* <= m']: some signs [s], some set [T] of kinks and
    some [k >= rank (N_s P_T)] have [|kinks| + |T| + 2 k <= m']. *)
Definition width_suffices (d m m' : nat) (M Wd Wu : mat) (bu : vec) : Prop :=
  exists (s T : nat -> bool) (k : nat),
    (forall r, (r < m)%nat -> T r = true -> kink d m Wd Wu bu r = true) /\
    completes d m Wu (Nmat d m M Wd Wu bu s) T k /\
    (count m (kink d m Wd Wu bu) + count m T + 2 * k <= m')%nat.

(** [F = M x + B(x)] equals a relu block of width [m'] (biases allowed). *)
Definition realised (d m m' : nat) (M Wd Wu : mat) (bu bd : vec) : Prop :=
  exists (Wd' Wu' : mat) (bu' bd' : vec),
    forall x i, (i < d)%nat ->
      mv d M x i + bblock d m relu Wd Wu bu bd x i = bblock d m' relu Wd' Wu' bu' bd' x i.

(** The theorem to prove (proofs/informal/relu-complete.md):
    [Theorem relu_complete : forall d m m' M Wd Wu bu bd,
       realised d m m' M Wd Wu bu bd <-> width_suffices d m m' M Wd Wu bu.]
    [bd] does not enter [width_suffices]: the constant of [F] is matched by
    [b'_down]. *)

(** * Basic facts (helper rcsuf) *)

Lemma req_b_true : forall a b, req_b a b = true <-> a = b.
Proof. intros a b. unfold req_b. destruct (Req_EM_T a b); split; congruence. Qed.

Lemma req_b_false : forall a b, req_b a b = false <-> a <> b.
Proof. intros a b. unfold req_b. destruct (Req_EM_T a b); split; congruence. Qed.

Lemma lead_nonzero_iff : forall d u, lead d u <> 0 <-> exists j, (j < d)%nat /\ u j <> 0.
Proof.
  induction d as [|d IH]; intros u; simpl.
  - split; [intros H; exfalso; apply H; reflexivity|intros (j & Hj & _); lia].
  - destruct (Req_EM_T (lead d u) 0) as [H0|H0].
    + split.
      * intros H. exists d. split; [lia|exact H].
      * intros (j & Hj & Hu). destruct (Nat.eq_dec j d) as [->|Hne]; [exact Hu|].
        exfalso. apply (proj2 (IH u)); [exists j; split; [lia|exact Hu]|exact H0].
    + split; [|intros _; exact H0].
      intros _. destruct (proj1 (IH u) H0) as (j & Hj & Hu). exists j. split; [lia|exact Hu].
Qed.

Lemma lead_zero_row : forall d u, lead d u = 0 -> forall j, (j < d)%nat -> u j = 0.
Proof.
  intros d u H j Hj. destruct (Req_EM_T (u j) 0) as [E|E]; [exact E|].
  exfalso. apply (proj2 (lead_nonzero_iff d u)); [exists j; split; assumption|exact H].
Qed.

(** [(u_i, c_i) = lam_i (u_H, b_H)] with [lam_i = lead d (Wu i)]. *)
Lemma row_normal : forall d Wu i j, lead d (Wu i) <> 0 ->
  Wu i j = lead d (Wu i) * nrow d Wu i j.
Proof. intros. unfold nrow. field. assumption. Qed.

Lemma bias_normal : forall d Wu (bu : vec) i, lead d (Wu i) <> 0 ->
  bu i = lead d (Wu i) * nbias d Wu bu i.
Proof. intros. unfold nbias. field. assumption. Qed.

Lemma vec_eqb_true : forall d a b, vec_eqb d a b = true <-> forall j, (j < d)%nat -> a j = b j.
Proof.
  induction d as [|d IH]; intros a b; simpl.
  - split; [intros; lia|reflexivity].
  - rewrite Bool.andb_true_iff, IH, req_b_true. split.
    + intros [H1 H2] j Hj. destruct (Nat.eq_dec j d) as [->|]; [exact H2|apply H1; lia].
    + intros H. split; [intros; apply H; lia|apply H; lia].
Qed.

Lemma vec_eqb_false : forall d a b, vec_eqb d a b = false <-> exists j, (j < d)%nat /\ a j <> b j.
Proof.
  induction d as [|d IH]; intros a b; simpl.
  - split; [discriminate|intros (j & Hj & _); lia].
  - rewrite Bool.andb_false_iff, IH, req_b_false. split.
    + intros [(j & Hj & H)|H]; [exists j; split; [lia|exact H]|exists d; split; [lia|exact H]].
    + intros (j & Hj & H). destruct (Nat.eq_dec j d) as [->|]; [right; exact H|].
      left. exists j. split; [lia|exact H].
Qed.

Lemma same_kink_true : forall d Wu bu i j,
  same_kink d Wu bu i j = true <->
  lead d (Wu i) <> 0 /\ lead d (Wu j) <> 0 /\
  (forall k, (k < d)%nat -> nrow d Wu i k = nrow d Wu j k) /\ nbias d Wu bu i = nbias d Wu bu j.
Proof.
  intros. unfold same_kink.
  rewrite !Bool.andb_true_iff, !Bool.negb_true_iff, !req_b_false, vec_eqb_true, req_b_true.
  tauto.
Qed.

Lemma same_kink_refl : forall d Wu bu i, lead d (Wu i) <> 0 -> same_kink d Wu bu i i = true.
Proof. intros. apply same_kink_true. repeat split; auto. Qed.

Lemma same_kink_sym : forall d Wu bu i j,
  same_kink d Wu bu i j = true -> same_kink d Wu bu j i = true.
Proof.
  intros d Wu bu i j H. apply same_kink_true in H. apply same_kink_true.
  destruct H as (H1 & H2 & H3 & H4). repeat split; auto.
  intros k Hk. symmetry. apply H3. exact Hk.
Qed.

Lemma same_kink_trans : forall d Wu bu i j k,
  same_kink d Wu bu i j = true -> same_kink d Wu bu j k = true -> same_kink d Wu bu i k = true.
Proof.
  intros d Wu bu i j k H H'. apply same_kink_true in H. apply same_kink_true in H'.
  apply same_kink_true. destruct H as (H1 & H2 & H3 & H4). destruct H' as (H1' & H2' & H3' & H4').
  repeat split; auto; [|congruence].
  intros q Hq. rewrite (H3 q Hq). apply H3'. exact Hq.
Qed.

Lemma same_kink_lead : forall d Wu bu i j,
  same_kink d Wu bu i j = true -> lead d (Wu i) <> 0 /\ lead d (Wu j) <> 0.
Proof. intros d Wu bu i j H. apply same_kink_true in H. tauto. Qed.

Lemma same_kink_zero_l : forall d Wu bu i j, lead d (Wu i) = 0 -> same_kink d Wu bu i j = false.
Proof.
  intros d Wu bu i j H. destruct (same_kink d Wu bu i j) eqn:E; [|reflexivity].
  exfalso. apply (proj1 (same_kink_lead d Wu bu i j E)). exact H.
Qed.

Lemma same_kink_zero_r : forall d Wu bu i j, lead d (Wu j) = 0 -> same_kink d Wu bu i j = false.
Proof.
  intros d Wu bu i j H. destruct (same_kink d Wu bu i j) eqn:E; [|reflexivity].
  exfalso. apply (proj2 (same_kink_lead d Wu bu i j E)). exact H.
Qed.

Lemma none_before_true : forall r p, none_before r p = true <-> forall k, (k < r)%nat -> p k = false.
Proof.
  induction r as [|r IH]; intros p; simpl.
  - split; [intros; lia|reflexivity].
  - rewrite Bool.andb_true_iff, IH, Bool.negb_true_iff. split.
    + intros [H1 H2] k Hk. destruct (Nat.eq_dec k r) as [->|]; [exact H2|apply H1; lia].
    + intros H. split; [intros; apply H; lia|apply H; lia].
Qed.

Lemma first_of_class_true : forall d Wu bu r,
  first_of_class d Wu bu r = true <->
  lead d (Wu r) <> 0 /\ forall k, (k < r)%nat -> same_kink d Wu bu k r = false.
Proof.
  intros. unfold first_of_class.
  rewrite Bool.andb_true_iff, Bool.negb_true_iff, req_b_false, none_before_true. tauto.
Qed.

Lemma kink_true : forall d m Wd Wu bu r,
  kink d m Wd Wu bu r = true <->
  first_of_class d Wu bu r = true /\ exists o, (o < d)%nat /\ alpha d m Wd Wu bu r o <> 0.
Proof.
  intros. unfold kink. rewrite Bool.andb_true_iff, Bool.negb_true_iff, vec_eqb_false. tauto.
Qed.

Lemma kink_first : forall d m Wd Wu bu r,
  kink d m Wd Wu bu r = true -> first_of_class d Wu bu r = true.
Proof. intros d m Wd Wu bu r H. apply kink_true in H. tauto. Qed.

(** A first unit of a class that is not a kink has [alpha_H = 0]. *)
Lemma first_not_kink_alpha : forall d m Wd Wu bu r o,
  first_of_class d Wu bu r = true -> kink d m Wd Wu bu r = false -> (o < d)%nat ->
  alpha d m Wd Wu bu r o = 0.
Proof.
  intros d m Wd Wu bu r o Hf Hk Ho. unfold kink in Hk. rewrite Hf in Hk. simpl in Hk.
  apply Bool.negb_false_iff in Hk. apply (proj1 (vec_eqb_true _ _ _) Hk). exact Ho.
Qed.

(** Each unit with a nonzero row lies in the class of exactly one first unit. *)
Lemma class_rep_exists : forall d Wu bu i, lead d (Wu i) <> 0 ->
  exists r, (r <= i)%nat /\ first_of_class d Wu bu r = true /\ same_kink d Wu bu r i = true.
Proof.
  intros d Wu bu i Hi.
  assert (Hgen : forall n, (forall r, (r < n)%nat -> same_kink d Wu bu r i = false) \/
    exists r, (r < n)%nat /\ same_kink d Wu bu r i = true /\
      forall k, (k < r)%nat -> same_kink d Wu bu k i = false).
  { induction n as [|n IH]; [left; intros; lia|].
    destruct IH as [Hn|(r & Hr & H1 & H2)].
    - destruct (same_kink d Wu bu n i) eqn:E.
      + right. exists n. split; [lia|]. split; [exact E|exact Hn].
      + left. intros r Hr. destruct (Nat.eq_dec r n) as [->|]; [exact E|apply Hn; lia].
    - right. exists r. split; [lia|]. split; assumption. }
  destruct (Hgen (S i)) as [Hn|(r & Hr & H1 & H2)].
  - exfalso. specialize (Hn i ltac:(lia)). rewrite (same_kink_refl d Wu bu i Hi) in Hn. discriminate.
  - exists r. split; [lia|]. split; [|exact H1].
    apply first_of_class_true. split; [exact (proj1 (same_kink_lead _ _ _ _ _ H1))|].
    intros k Hk. destruct (same_kink d Wu bu k r) eqn:E; [|reflexivity].
    pose proof (H2 k Hk) as H3. rewrite (same_kink_trans d Wu bu k r i E H1) in H3. discriminate.
Qed.

Lemma class_rep_unique : forall d Wu bu i r1 r2,
  first_of_class d Wu bu r1 = true -> same_kink d Wu bu r1 i = true ->
  first_of_class d Wu bu r2 = true -> same_kink d Wu bu r2 i = true -> r1 = r2.
Proof.
  intros d Wu bu i r1 r2 F1 S1 F2 S2.
  apply first_of_class_true in F1. apply first_of_class_true in F2.
  assert (E12 : same_kink d Wu bu r1 r2 = true)
    by (apply (same_kink_trans _ _ _ _ i); [exact S1|apply same_kink_sym; exact S2]).
  destruct (lt_eq_lt_dec r1 r2) as [[Hlt|Heq]|Hgt]; [|exact Heq|].
  - rewrite (proj2 F2 r1 Hlt) in E12. discriminate.
  - apply same_kink_sym in E12. rewrite (proj2 F1 r2 Hgt) in E12. discriminate.
Qed.

(** The affine function [h_H(x) = u_H . x + b_H] of the class of unit [r]. *)
Definition hval (d : nat) (Wu : mat) (bu : vec) (r : nat) (x : vec) : R :=
  sum d (fun j => nrow d Wu r j * x j) + nbias d Wu bu r.

Lemma same_kink_hval : forall d Wu bu r i x,
  same_kink d Wu bu r i = true -> hval d Wu bu r x = hval d Wu bu i x.
Proof.
  intros d Wu bu r i x H. apply same_kink_true in H. destruct H as (_ & _ & H3 & H4).
  unfold hval. rewrite H4. f_equal. apply sum_ext. intros j Hj. rewrite H3 by exact Hj. reflexivity.
Qed.

(** [u_i . x + c_i = lam_i h_H(x)]. *)
Lemma unit_preact : forall d Wu bu i x, lead d (Wu i) <> 0 ->
  mv d Wu x i + bu i = lead d (Wu i) * hval d Wu bu i x.
Proof.
  intros d Wu bu i x H. unfold mv, hval. rewrite Rmult_plus_distr_l, <- sum_scal_l.
  rewrite (bias_normal d Wu bu i H) at 1. f_equal.
  apply sum_ext. intros j _. rewrite (row_normal d Wu i j H) at 1. ring.
Qed.

(** ** Counting *)

Lemma count_le : forall n p, (count n p <= n)%nat.
Proof. induction n as [|n IH]; intros p; simpl; [lia|]. specialize (IH p). destruct (p n); lia. Qed.

Lemma count_ext : forall n p q, (forall i, (i < n)%nat -> p i = q i) -> count n p = count n q.
Proof.
  induction n as [|n IH]; intros p q H; simpl; [reflexivity|].
  rewrite (IH p q) by (intros; apply H; lia). rewrite (H n) by lia. reflexivity.
Qed.

Lemma count_sum : forall n p, INR (count n p) = sum n (fun i => if p i then 1 else 0).
Proof.
  induction n as [|n IH]; intros p; simpl; [reflexivity|].
  rewrite plus_INR, IH. destruct (p n); simpl; ring.
Qed.

(** * The canonical form (1) of proofs/informal/relu-complete.md *)

Lemma relu_half_abs : forall z, relu z = z / 2 + Rabs z / 2.
Proof. intros z. unfold relu, Rmax, Rabs. destruct (Rle_dec z 0), (Rcase_abs z); lra. Qed.

(** The constant [k = b + sum_{u_i <> 0} c_i w_i / 2 + sum_{u_i = 0} relu(c_i) w_i]. *)
Definition kconst (d m : nat) (Wd Wu : mat) (bu bd : vec) : vec :=
  fun o => bd o + sum m (fun i => if req_b (lead d (Wu i)) 0 then Wd o i * relu (bu i)
                                  else Wd o i * bu i / 2).

(** Regrouping a sum over units with nonzero rows by classes. *)
Lemma regroup_classes : forall d m Wu bu (c H : nat -> R),
  (forall r i, same_kink d Wu bu r i = true -> H r = H i) ->
  sum m (fun r => if first_of_class d Wu bu r
                  then sum m (fun i => if same_kink d Wu bu r i then c i else 0) * H r else 0) =
  sum m (fun i => if req_b (lead d (Wu i)) 0 then 0 else c i * H i).
Proof.
  intros d m Wu bu c H HH.
  transitivity (sum m (fun r => sum m (fun i =>
    if andb (first_of_class d Wu bu r) (same_kink d Wu bu r i) then c i * H i else 0))).
  { apply sum_ext. intros r _. destruct (first_of_class d Wu bu r); simpl.
    - rewrite <- sum_scal_r. apply sum_ext. intros i _.
      destruct (same_kink d Wu bu r i) eqn:E; [rewrite (HH r i E); reflexivity|ring].
    - symmetry. apply sum_zero. reflexivity. }
  rewrite sum_swap. apply sum_ext. intros i Hi.
  destruct (req_b (lead d (Wu i)) 0) eqn:Ez.
  - apply sum_zero. intros r _. apply req_b_true in Ez.
    rewrite (same_kink_zero_r d Wu bu r i Ez), Bool.andb_false_r. reflexivity.
  - apply req_b_false in Ez. destruct (class_rep_exists d Wu bu i Ez) as (r0 & Hr0 & F0 & S0).
    apply (sum_select_one m _ (fun _ => c i * H i) r0); [lia|rewrite F0, S0; reflexivity|].
    intros r _ Hr. apply Bool.andb_true_iff in Hr. destruct Hr as [F S].
    apply (class_rep_unique d Wu bu i); assumption.
Qed.

(** Canonical form (1): [B(x) = L x + k + sum_H alpha_H |h_H(x)|], one term
    per class, at its first unit. *)
Theorem canonical_form : forall d m Wd Wu bu bd x o,
  bblock d m relu Wd Wu bu bd x o =
  sum d (fun j => (sum m (fun i => Wd o i * Wu i j) / 2) * x j) + kconst d m Wd Wu bu bd o
  + sum m (fun r => if first_of_class d Wu bu r
                    then alpha d m Wd Wu bu r o *
                         Rabs (sum d (fun j => nrow d Wu r j * x j) + nbias d Wu bu r)
                    else 0).
Proof.
  intros d m Wd Wu bu bd x o. unfold bblock, kconst, alpha.
  pose proof (regroup_classes d m Wu bu (fun i => Rabs (lead d (Wu i)) * Wd o i / 2)
             (fun r => Rabs (hval d Wu bu r x))) as HR.
  unfold hval in HR. rewrite HR by (intros r i E; pose proof (same_kink_hval d Wu bu r i x E) as Eh;
    unfold hval in Eh; rewrite Eh; reflexivity). clear HR.
  transitivity (sum m (fun i => Wd o i * mv d Wu x i / 2)
    + (bd o + sum m (fun i => if req_b (lead d (Wu i)) 0 then Wd o i * relu (bu i) else Wd o i * bu i / 2))
    + sum m (fun i => if req_b (lead d (Wu i)) 0 then 0
                      else Rabs (lead d (Wu i)) * Wd o i / 2 *
                           Rabs (sum d (fun j => nrow d Wu i j * x j) + nbias d Wu bu i))).
  - match goal with |- ?S + bd o = ?A + (bd o + ?K) + ?C =>
      enough (E : S = A + K + C) by (rewrite E; ring) end.
    rewrite <- !sum_plus. apply sum_ext. intros i _.
    destruct (req_b (lead d (Wu i)) 0) eqn:Ez.
    + apply req_b_true in Ez.
      assert (Hmv : mv d Wu x i = 0)
        by (unfold mv; apply sum_zero; intros j Hj; rewrite (lead_zero_row d (Wu i) Ez j Hj); ring).
      rewrite Hmv, Rplus_0_l. field.
    + apply req_b_false in Ez. rewrite relu_half_abs. pose proof (unit_preact d Wu bu i x Ez) as Eu.
      unfold hval in Eu. rewrite Eu, Rabs_mult. rewrite <- Eu. field.
  - match goal with |- ?A + _ + _ = ?A' + _ + _ => enough (E : A = A') by (rewrite E; reflexivity) end.
    unfold mv. rewrite (sum_ext m _ (fun i => sum d (fun j => Wd o i * Wu i j / 2 * x j)))
      by (intros i _; unfold Rdiv; rewrite Rmult_assoc, (Rmult_comm (sum _ _)), <- Rmult_assoc,
          <- sum_scal_l; apply sum_ext; intros; ring).
    rewrite sum_swap. apply sum_ext. intros j _. unfold Rdiv. rewrite <- !sum_scal_r. reflexivity.
Qed.

(** The same with only the kinks ([alpha_H <> 0]): the other classes add 0. *)
Theorem canonical_form_kinks : forall d m Wd Wu bu bd x o, (o < d)%nat ->
  bblock d m relu Wd Wu bu bd x o =
  sum d (fun j => (sum m (fun i => Wd o i * Wu i j) / 2) * x j) + kconst d m Wd Wu bu bd o
  + sum m (fun r => if kink d m Wd Wu bu r
                    then alpha d m Wd Wu bu r o *
                         Rabs (sum d (fun j => nrow d Wu r j * x j) + nbias d Wu bu r)
                    else 0).
Proof.
  intros d m Wd Wu bu bd x o Ho. rewrite canonical_form. f_equal.
  apply sum_ext. intros r _. destruct (kink d m Wd Wu bu r) eqn:Ek.
  - rewrite (kink_first d m Wd Wu bu r Ek). reflexivity.
  - destruct (first_of_class d Wu bu r) eqn:Ef; [|reflexivity].
    rewrite (first_not_kink_alpha d m Wd Wu bu r o Ef Ek Ho). ring.
Qed.
