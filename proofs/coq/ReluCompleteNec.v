(** * relu-complete, the necessity direction (the "Lower bound" of
    proofs/informal/relu-complete.md)

    If [M x + B x = B' x] for a relu block [B'] of width [m'] (biases
    allowed), then [m* <= m'] in the form [width_suffices] of
    [ReluClasses.v].  Outline:
    - by [AffineKink.v] the two blocks have the same class sums on every
      hyperplane and the same linear part [M + L = W'_down W'_up / 2];
    - every kink [r] of [B] carries a unit [p1 r] of [B']; the kinks that
      carry two or more form [T] (a second unit [p2 r]); a kink with one unit
      fixes the odd share [beta'_r = s_r alpha_r] ([s_r] the sign of that
      unit's multiplier);
    - the classes of [B'] on no kink hyperplane with two or more units are
      the "extra" classes ([k'] of them, two units each); the other classes
      of [B'] on no kink hyperplane have one unit and contribute nothing;
    - the linear part then reads [N_s = sum_{r in T} y_r u_r^T + sum over the
      extra classes of rank-one terms], and the units [p1 r], [p2 r], and two
      units of each extra class are pairwise distinct, so
      [|kinks| + |T| + 2 k' <= m']. *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg SignFlip Activations RealActivations Limit Necessity
  ReluClasses AffineKink.
Open Scope R_scope.
Open Scope bool_scope.

(** ** Counting *)

Lemma count_le : forall n p, (count n p <= n)%nat.
Proof. induction n as [|n IH]; intros p; simpl; [lia|]. specialize (IH p). destruct (p n); lia. Qed.

Lemma count_ext : forall n p q, (forall i, (i < n)%nat -> p i = q i) -> count n p = count n q.
Proof.
  induction n as [|n IH]; intros p q H; simpl; [reflexivity|].
  rewrite (IH p q) by (intros; apply H; lia). rewrite (H n) by lia. reflexivity.
Qed.

Lemma count_split : forall a b p, count (a + b) p = (count a p + count b (fun k => p (a + k)%nat))%nat.
Proof.
  intros a b p. induction b as [|b IH]; simpl.
  - rewrite Nat.add_0_r. lia.
  - rewrite Nat.add_succ_r. simpl. rewrite IH. lia.
Qed.

(** A map that is injective on the [i < N] with [p i] and lands in
    [0..m'-1] shows [count N p <= m'] (pigeonhole). *)
Lemma count_inj : forall N (p : nat -> bool) m' (f : nat -> nat),
  (forall i, (i < N)%nat -> p i = true -> (f i < m')%nat) ->
  (forall i i', (i < N)%nat -> (i' < N)%nat -> p i = true -> p i' = true -> f i = f i' -> i = i') ->
  (count N p <= m')%nat.
Proof.
  induction N as [|N IH]; intros p m' f Hr Hi; simpl; [lia|].
  destruct (p N) eqn:EN.
  - assert (HfN : (f N < m')%nat) by (apply Hr; [lia|assumption]).
    set (g := fun i => if (f i <? f N)%nat then f i else (f i - 1)%nat).
    assert (count N p <= m' - 1)%nat; [|lia].
    apply (IH p (m' - 1)%nat g).
    + intros i Hi' Hp. unfold g. pose proof (Hr i ltac:(lia) Hp).
      assert (f i <> f N) by (intro E; pose proof (Hi i N ltac:(lia) ltac:(lia) Hp EN E); lia).
      destruct (Nat.ltb_spec (f i) (f N)); lia.
    + intros i i' H1 H2 P1 P2 E. unfold g in E.
      assert (f i <> f N) by (intro E'; pose proof (Hi i N ltac:(lia) ltac:(lia) P1 EN E'); lia).
      assert (f i' <> f N) by (intro E'; pose proof (Hi i' N ltac:(lia) ltac:(lia) P2 EN E'); lia).
      apply (Hi i i' ltac:(lia) ltac:(lia) P1 P2). revert E.
      destruct (Nat.ltb_spec (f i) (f N)), (Nat.ltb_spec (f i') (f N)); intro E; lia.
  - rewrite Nat.add_0_r. apply (IH p m' f).
    + intros i Hi' Hp. apply Hr; [lia|assumption].
    + intros i i' H1 H2 P1 P2 E. apply Hi; try assumption; lia.
Qed.

Lemma count_pos : forall n p, (1 <= count n p)%nat -> exists k, (k < n)%nat /\ p k = true.
Proof.
  induction n as [|n IH]; intros p H; simpl in H; [lia|].
  destruct (p n) eqn:E; [exists n; split; [lia|assumption]|].
  destruct (IH p ltac:(lia)) as [k [Hk Hp]]. exists k. split; [lia|assumption].
Qed.

Lemma count_true : forall n p k, (k < n)%nat -> p k = true -> (1 <= count n p)%nat.
Proof.
  induction n as [|n IH]; intros p k Hk Hp; simpl; [lia|].
  destruct (Nat.eq_dec k n) as [->|]; [rewrite Hp; lia|]. pose proof (IH p k ltac:(lia) Hp). lia.
Qed.

(** Two or more: a second one besides any given [k0]. *)
Lemma count_two : forall n p k0, (2 <= count n p)%nat ->
  exists k, (k < n)%nat /\ p k = true /\ k <> k0.
Proof.
  induction n as [|n IH]; intros p k0 H; simpl in H; [lia|].
  destruct (p n) eqn:E.
  - destruct (count_pos n p ltac:(lia)) as [k [Hk Hp]].
    destruct (Nat.eq_dec k k0) as [->|Hne].
    + exists n. split; [lia|split; [assumption|lia]].
    + exists k. split; [lia|split; assumption].
  - destruct (IH p k0 ltac:(lia)) as [k [Hk [Hp Hne]]]. exists k. split; [lia|split; assumption].
Qed.

(** At most one: any two are equal. *)
Lemma count_one : forall n p k k', (count n p <= 1)%nat -> (k < n)%nat -> (k' < n)%nat ->
  p k = true -> p k' = true -> k = k'.
Proof.
  induction n as [|n IH]; intros p k k' H Hk Hk' Pk Pk'; simpl in H; [lia|].
  destruct (Nat.eq_dec k n) as [->|Hne], (Nat.eq_dec k' n) as [->|Hne']; try reflexivity.
  - rewrite Pk in H. pose proof (count_true n p k' ltac:(lia) Pk'). lia.
  - rewrite Pk' in H. pose proof (count_true n p k ltac:(lia) Pk). lia.
  - apply (IH p); try assumption; try lia; destruct (p n); lia.
Qed.

(** A sum over the indices with [p] true, of which there is exactly one, [k0]. *)
Lemma sum_single : forall n (p : nat -> bool) (F : nat -> R) k0, (k0 < n)%nat -> p k0 = true ->
  (forall k, (k < n)%nat -> p k = true -> k = k0) ->
  sum n (fun k => if p k then F k else 0) = F k0.
Proof.
  intros n p F k0 Hk0 Hp Hu.
  rewrite (sum_ext n _ (fun k => kron k0 k * F k)).
  - apply sum_kron_l. assumption.
  - intros k Hk. unfold kron. destruct (Nat.eq_dec k0 k) as [<-|Hne]; [rewrite Hp; ring|].
    destruct (p k) eqn:E; [|ring]. exfalso. apply Hne. symmetry. apply Hu; assumption.
Qed.

(** A sum over the indices with [p] true is a sum of [count n p] terms. *)
Lemma sum_enum : forall n (p : nat -> bool) (a l : nat -> vec),
  exists (a' l' : nat -> vec), forall o j,
    sum n (fun q => if p q then a q o * l q j else 0) = sum (count n p) (fun t => a' t o * l' t j).
Proof.
  induction n as [|n IH]; intros p a l.
  - exists a, l. intros. reflexivity.
  - destruct (IH p a l) as [a' [l' H]]. simpl.
    destruct (p n).
    + exists (fun t => if Nat.eqb t (count n p) then a n else a' t),
             (fun t => if Nat.eqb t (count n p) then l n else l' t).
      intros o j. rewrite Nat.add_1_r. simpl. rewrite Nat.eqb_refl, H. f_equal.
      apply sum_ext. intros t Ht. destruct (Nat.eqb t (count n p)) eqn:E; [apply Nat.eqb_eq in E; lia|].
      reflexivity.
    + exists a', l'. intros o j. rewrite Nat.add_0_r, H. ring.
Qed.

(** A finite boolean search. *)
Lemma bool_search : forall n (b : nat -> bool),
  (forall k, (k < n)%nat -> b k = false) \/ (exists k, (k < n)%nat /\ b k = true).
Proof.
  induction n as [|n IH]; intros b; [left; intros; lia|].
  destruct (b n) eqn:E; [right; exists n; split; [lia|assumption]|].
  destruct (IH b) as [H|[k [Hk Hb]]].
  - left. intros k Hk. destruct (Nat.eq_dec k n) as [->|]; [assumption|apply H; lia].
  - right. exists k. split; [lia|assumption].
Qed.
