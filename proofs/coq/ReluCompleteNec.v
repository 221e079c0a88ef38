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
From SkipAbsorption Require Import Linalg SignFlip RealActivations Limit Necessity ReluClasses
  AffineKink.
Open Scope R_scope.
Open Scope bool_scope.

(** ** Counting *)

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

(** ** Classes of one block: first units, uniqueness *)

Lemma none_before_spec : forall r p, none_before r p = true <-> forall j, (j < r)%nat -> p j = false.
Proof.
  induction r as [|r IH]; intros p; simpl; [split; [intros; lia|reflexivity]|].
  rewrite Bool.andb_true_iff, IH, Bool.negb_true_iff. split.
  - intros [H1 H2] j Hj. destruct (Nat.eq_dec j r) as [->|]; [assumption|apply H1; lia].
  - intros H. split; [intros; apply H; lia|apply H; lia].
Qed.

Lemma sk_refl : forall d Wu bu r, lead d (Wu r) <> 0 -> same_kink d Wu bu r r = true.
Proof. intros. apply same_kink_true. auto. Qed.

Lemma sk_sym : forall d Wu bu r k, same_kink d Wu bu r k = true -> same_kink d Wu bu k r = true.
Proof.
  intros d Wu bu r k H. apply same_kink_true in H. apply same_kink_true.
  destruct H as (H1 & H2 & H3 & H4). split; [assumption|split; [assumption|split]].
  - intros j Hj. symmetry. apply H3. assumption.
  - symmetry. assumption.
Qed.

Lemma sk_trans : forall d Wu bu i j k, same_kink d Wu bu i j = true -> same_kink d Wu bu j k = true ->
  same_kink d Wu bu i k = true.
Proof.
  intros d Wu bu i j k Hij Hjk. apply same_kink_true in Hij, Hjk. apply same_kink_true.
  destruct Hij as (H1 & H2 & H3 & H4), Hjk as (H5 & H6 & H7 & H8).
  split; [assumption|split; [assumption|split]].
  - intros j' Hj'. rewrite H3 by assumption. apply H7. assumption.
  - congruence.
Qed.

Lemma first_lead : forall d Wu bu r, first_of_class d Wu bu r = true -> lead d (Wu r) <> 0.
Proof.
  intros d Wu bu r H. unfold first_of_class in H. apply Bool.andb_true_iff in H.
  destruct H as [H _]. apply Bool.negb_true_iff, req_b_false in H. exact H.
Qed.

(** Every unit with a nonzero row has a first unit of its class. *)
Lemma first_exists : forall d Wu bu l, lead d (Wu l) <> 0 ->
  exists r, (r <= l)%nat /\ first_of_class d Wu bu r = true /\ same_kink d Wu bu r l = true.
Proof.
  intros d Wu bu l. induction l as [l IH] using lt_wf_ind. intros Hl.
  destruct (bool_search l (fun j => same_kink d Wu bu j l)) as [H|[j [Hj Hs]]].
  - exists l. split; [lia|split; [|apply sk_refl; assumption]].
    unfold first_of_class. apply Bool.andb_true_iff. split.
    + apply Bool.negb_true_iff, req_b_false. assumption.
    + apply none_before_spec. exact H.
  - assert (Hj0 : lead d (Wu j) <> 0) by (apply same_kink_true in Hs; tauto).
    destruct (IH j Hj Hj0) as [r [Hr [Hf Hrj]]].
    exists r. split; [lia|split; [assumption|eapply sk_trans; eassumption]].
Qed.

(** Two first units of one class are equal. *)
Lemma first_unique : forall d Wu bu r r', first_of_class d Wu bu r = true ->
  first_of_class d Wu bu r' = true -> same_kink d Wu bu r r' = true -> r = r'.
Proof.
  intros d Wu bu r r' Hr Hr' Hs.
  unfold first_of_class in Hr, Hr'. apply Bool.andb_true_iff in Hr, Hr'.
  destruct Hr as [_ Hr], Hr' as [_ Hr']. rewrite none_before_spec in Hr, Hr'.
  destruct (Nat.lt_total r r') as [Hlt|[E|Hlt]]; [|exact E|].
  - rewrite (Hr' r Hlt) in Hs. discriminate.
  - pose proof (sk_sym d Wu bu r r' Hs) as Hs'. rewrite (Hr r' Hlt) in Hs'. discriminate.
Qed.

(** ** Hyperplanes in normal form *)

Lemma hclass_unique : forall d g beta g' beta' v e,
  hclass d g beta v e = true -> hclass d g' beta' v e = true ->
  (forall j, (j < d)%nat -> g j = g' j) /\ beta = beta'.
Proof.
  intros d g beta g' beta' v e H H'. apply hclass_true in H, H'.
  destruct H as (_ & H1 & H2), H' as (_ & H1' & H2'). split.
  - intros j Hj. rewrite H1, H1' by assumption. reflexivity.
  - congruence.
Qed.

Lemma hclass_ext : forall d g beta g' beta' v e,
  (forall j, (j < d)%nat -> g j = g' j) -> beta = beta' ->
  hclass d g beta v e = hclass d g' beta' v e.
Proof.
  intros d g beta g' beta' v e Hg Hb.
  destruct (hclass d g beta v e) eqn:E1, (hclass d g' beta' v e) eqn:E2; try reflexivity.
  - apply hclass_true in E1. exfalso. rewrite <- Bool.not_true_iff_false in E2. apply E2.
    apply hclass_true. destruct E1 as (H0 & H1 & H2). split; [assumption|split].
    + intros j Hj. rewrite <- Hg by assumption. apply H1. assumption.
    + congruence.
  - apply hclass_true in E2. exfalso. rewrite <- Bool.not_true_iff_false in E1. apply E1.
    apply hclass_true. destruct E2 as (H0 & H1 & H2). split; [assumption|split].
    + intros j Hj. rewrite Hg by assumption. apply H1. assumption.
    + congruence.
Qed.

(** Units of one class lie on the same hyperplanes. *)
Lemma hclass_same_kink : forall d g beta Wu bu q k, same_kink d Wu bu q k = true ->
  hclass d g beta (Wu q) (bu q) = hclass d g beta (Wu k) (bu k).
Proof.
  intros d g beta Wu bu q k H. apply same_kink_true in H. destruct H as (H1 & H2 & H3 & H4).
  unfold nrow, nbias in H3, H4.
  destruct (hclass d g beta (Wu q) (bu q)) eqn:E1, (hclass d g beta (Wu k) (bu k)) eqn:E2;
    try reflexivity; exfalso.
  - rewrite <- Bool.not_true_iff_false in E2. apply E2. apply hclass_true in E1. apply hclass_true.
    destruct E1 as (_ & G1 & G2). split; [assumption|split].
    + intros j Hj. rewrite G1, H3 by assumption. reflexivity.
    + congruence.
  - rewrite <- Bool.not_true_iff_false in E1. apply E1. apply hclass_true in E2. apply hclass_true.
    destruct E2 as (_ & G1 & G2). split; [assumption|split].
    + intros j Hj. rewrite G1, <- H3 by assumption. reflexivity.
    + congruence.
Qed.

(** A unit on the hyperplane of [r] is in the class of [r]. *)
Lemma hclass_nrow_same_kink : forall d Wu bu r k, lead d (Wu r) <> 0 ->
  hclass d (nrow d Wu r) (nbias d Wu bu r) (Wu k) (bu k) = true -> same_kink d Wu bu r k = true.
Proof. intros. rewrite same_kink_hclass by assumption. assumption. Qed.

Lemma hclass_self : forall d Wu bu k, lead d (Wu k) <> 0 ->
  hclass d (nrow d Wu k) (nbias d Wu bu k) (Wu k) (bu k) = true.
Proof.
  intros. apply hclass_true. split; [assumption|split; [intros; reflexivity|reflexivity]].
Qed.

Lemma kink_alpha : forall d m Wd Wu bu r, kink d m Wd Wu bu r = true ->
  exists o, (o < d)%nat /\ alpha d m Wd Wu bu r o <> 0.
Proof.
  intros d m Wd Wu bu r H. unfold kink in H. apply Bool.andb_true_iff in H. destruct H as [_ H].
  apply Bool.negb_true_iff, vec_eqb_false in H. exact H.
Qed.

Lemma nonkink_alpha : forall d m Wd Wu bu r, first_of_class d Wu bu r = true ->
  kink d m Wd Wu bu r = false -> forall o, (o < d)%nat -> alpha d m Wd Wu bu r o = 0.
Proof.
  intros d m Wd Wu bu r Hf Hk o Ho. unfold kink in Hk. rewrite Hf in Hk. simpl in Hk.
  apply Bool.negb_false_iff in Hk. rewrite vec_eqb_true in Hk. apply Hk. assumption.
Qed.

Lemma sk_lead0 : forall d Wu bu q k, lead d (Wu k) = 0 -> same_kink d Wu bu q k = false.
Proof.
  intros. destruct (same_kink d Wu bu q k) eqn:E; [|reflexivity].
  apply same_kink_true in E. tauto.
Qed.

(** ** The necessity proof, for one block [B'] *)

Section Necessity_proof.

Variables (d m m' : nat) (M Wd Wu Wd' Wu' : mat) (bu bd bu' bd' : vec).
Hypothesis absorbed : forall x i, (i < d)%nat ->
  mv d M x i + bblock d m relu Wd Wu bu bd x i = bblock d m' relu Wd' Wu' bu' bd' x i.

(** Unit [k] of [B'] lies on the hyperplane of unit [r] of [B]. *)
Definition mt (r k : nat) : bool := hclass d (nrow d Wu r) (nbias d Wu bu r) (Wu' k) (bu' k).
(** The number of units of [B'] on the hyperplane of [r]. *)
Definition ncnt (r : nat) : nat := count m' (mt r).
(** The kinks carrying two or more units of [B']. *)
Definition Tset (r : nat) : bool := kink d m Wd Wu bu r && (2 <=? ncnt r)%nat.
(** Unit [k] of [B'] lies on a kink hyperplane of [B]. *)
Definition matchedb (k : nat) : bool :=
  negb (count m (fun r => kink d m Wd Wu bu r && mt r k) =? 0)%nat.
(** The first unit [q] of a class of [B'] on no kink hyperplane, with two
    or more units. *)
Definition extra (q : nat) : bool :=
  first_of_class d Wu' bu' q && negb (matchedb q) && (2 <=? count m' (same_kink d Wu' bu' q))%nat.
(** The odd shares [beta'] of [B'] on the hyperplane of [r] of [B], and on
    the class of its own unit [q]. *)
Definition beta (r o : nat) : R := sum m' (fun k => if mt r k then lead d (Wu' k) * Wd' o k / 2 else 0).
Definition gamma (q o : nat) : R :=
  sum m' (fun k => if same_kink d Wu' bu' q k then lead d (Wu' k) * Wd' o k / 2 else 0).
(** The sign of the multiplier of the unit of [B'] on a kink with one unit. *)
Definition sgnb (r : nat) : bool :=
  if Rlt_dec (sum m' (fun k => if mt r k then lead d (Wu' k) else 0)) 0 then true else false.

Lemma kink_hsum : forall r o, first_of_class d Wu bu r = true -> (o < d)%nat ->
  sum m' (fun k => if mt r k then Rabs (lead d (Wu' k)) * Wd' o k / 2 else 0) = alpha d m Wd Wu bu r o.
Proof.
  intros r o Hf Ho. pose proof (first_lead d Wu bu r Hf) as Hl.
  rewrite alpha_hsum by assumption.
  rewrite (blocks_equal_hsum d m m' M Wd Wu Wd' Wu' bu bd bu' bd' absorbed _ _ (lead_nrow d Wu r Hl) o Ho).
  reflexivity.
Qed.

Lemma kink_carries : forall r, kink d m Wd Wu bu r = true -> (1 <= ncnt r)%nat.
Proof.
  intros r Hk. destruct (kink_alpha d m Wd Wu bu r Hk) as [o [Ho Ha]].
  rewrite <- (kink_hsum r o (kink_first d m Wd Wu bu r Hk) Ho) in Ha.
  apply sum_nonzero_term in Ha. destruct Ha as [k [Hk' Ht]].
  destruct (mt r k) eqn:E; [|contradiction]. unfold ncnt. apply (count_true m' (mt r) k); assumption.
Qed.

Lemma mt_unique : forall r r' k, kink d m Wd Wu bu r = true -> kink d m Wd Wu bu r' = true ->
  mt r k = true -> mt r' k = true -> r = r'.
Proof.
  intros r r' k Hr Hr' H H'. apply kink_first in Hr, Hr'.
  destruct (hclass_unique _ _ _ _ _ _ _ H H') as [Hg Hb].
  apply (first_unique d Wu bu r r' Hr Hr'). apply same_kink_true.
  split; [apply (first_lead d Wu bu r Hr)|split; [apply (first_lead d Wu bu r' Hr')|split]];
    assumption.
Qed.

Lemma matchedb_true : forall k, matchedb k = true <->
  exists r, (r < m)%nat /\ kink d m Wd Wu bu r = true /\ mt r k = true.
Proof.
  intros k. unfold matchedb. rewrite Bool.negb_true_iff, Nat.eqb_neq. split.
  - intros H. destruct (count_pos m (fun r => kink d m Wd Wu bu r && mt r k) ltac:(lia)) as [r [Hr Hp]].
    apply Bool.andb_true_iff in Hp. exists r. tauto.
  - intros [r [Hr [H1 H2]]].
    pose proof (count_true m (fun r => kink d m Wd Wu bu r && mt r k) r Hr
                  ltac:(cbv beta; rewrite H1, H2; reflexivity)). lia.
Qed.

Lemma matched_class : forall q k, same_kink d Wu' bu' q k = true -> matchedb q = matchedb k.
Proof.
  intros q k H. unfold matchedb. f_equal. f_equal. apply count_ext. intros r _. unfold mt.
  rewrite (hclass_same_kink d _ _ Wu' bu' q k H). reflexivity.
Qed.

Lemma single_unit : forall r, kink d m Wd Wu bu r = true -> Tset r = false ->
  exists k0, (k0 < m')%nat /\ mt r k0 = true /\ forall k, (k < m')%nat -> mt r k = true -> k = k0.
Proof.
  intros r Hk HT. pose proof (kink_carries r Hk) as H1. unfold Tset in HT. rewrite Hk in HT.
  rewrite Bool.andb_true_l in HT. apply Nat.leb_gt in HT.
  destruct (count_pos m' (mt r) H1) as [k0 [Hk0 Hm]]. exists k0. split; [assumption|split; [assumption|]].
  intros k Hk' Hmk. apply (count_one m' (mt r)); try assumption. unfold ncnt in HT. lia.
Qed.

(** One unit on a kink: [beta'_r = s_r alpha_r]. *)
Lemma beta_single : forall r o, kink d m Wd Wu bu r = true -> Tset r = false -> (o < d)%nat ->
  beta r o = sgn sgnb r * alpha d m Wd Wu bu r o.
Proof.
  intros r o Hk HT Ho. destruct (single_unit r Hk HT) as [k0 [Hk0 [Hm Hu]]].
  rewrite <- (kink_hsum r o (kink_first d m Wd Wu bu r Hk) Ho).
  unfold beta, sgn, sgnb.
  rewrite !(sum_select_one m' (mt r) _ k0 Hk0 Hm Hu).
  destruct (Rlt_dec (lead d (Wu' k0)) 0) as [Hlt|Hge].
  - rewrite Rabs_left by assumption. field.
  - rewrite Rabs_pos_eq by lra. field.
Qed.

(** A hyperplane of a class of [B'] that is not a kink of [B] carries
    [alpha = 0] in [B]. *)
Lemma unmatched_hsum : forall q o, first_of_class d Wu' bu' q = true -> matchedb q = false ->
  (o < d)%nat -> hsum d m Wd Wu bu (nrow d Wu' q) (nbias d Wu' bu' q) o = 0.
Proof.
  intros q o Hf Hm Ho. pose proof (first_lead d Wu' bu' q Hf) as Hlq.
  destruct (bool_search m (fun l => hclass d (nrow d Wu' q) (nbias d Wu' bu' q) (Wu l) (bu l)))
    as [H|[l [Hl Hc]]].
  - unfold hsum. apply sum_zero. intros l Hl. rewrite H by assumption. reflexivity.
  - pose proof Hc as Hc'. apply hclass_true in Hc'. destruct Hc' as (Hll & Hg & Hb).
    destruct (first_exists d Wu bu l Hll) as [r [Hrl [Hfr Hsr]]].
    pose proof Hsr as Hsr'. apply same_kink_true in Hsr'. destruct Hsr' as (Hlr & _ & Hn & Hnb).
    assert (Eg : forall j, (j < d)%nat -> nrow d Wu' q j = nrow d Wu r j).
    { intros j Hj. rewrite Hg, Hn by assumption. reflexivity. }
    assert (Eb : nbias d Wu' bu' q = nbias d Wu bu r) by (rewrite Hb, Hnb; reflexivity).
    unfold hsum. rewrite (sum_ext m _ (fun k => if hclass d (nrow d Wu r) (nbias d Wu bu r) (Wu k) (bu k)
                                           then Rabs (lead d (Wu k)) * Wd o k / 2 else 0))
      by (intros; rewrite (hclass_ext d _ _ _ _ _ _ Eg Eb); reflexivity).
    fold (hsum d m Wd Wu bu (nrow d Wu r) (nbias d Wu bu r) o).
    rewrite <- alpha_hsum by assumption.
    destruct (kink d m Wd Wu bu r) eqn:Ek.
    + exfalso. assert (matchedb q = true); [|congruence].
      apply matchedb_true. exists r. split; [lia|split; [assumption|]].
      unfold mt. rewrite <- (hclass_ext d _ _ _ _ _ _ Eg Eb). apply hclass_self. assumption.
    + apply nonkink_alpha; assumption.
Qed.

(** A class of [B'] with one unit on no kink of [B] has zero odd share. *)
Lemma single_extra_zero : forall q o, (q < m')%nat -> first_of_class d Wu' bu' q = true ->
  matchedb q = false -> (count m' (same_kink d Wu' bu' q) <= 1)%nat -> (o < d)%nat -> gamma q o = 0.
Proof.
  intros q o Hq Hf Hm Hc Ho. pose proof (first_lead d Wu' bu' q Hf) as Hl.
  pose proof (unmatched_hsum q o Hf Hm Ho) as H0.
  rewrite (blocks_equal_hsum d m m' M Wd Wu Wd' Wu' bu bd bu' bd' absorbed _ _ (lead_nrow d Wu' q Hl) o Ho)
    in H0.
  assert (Hu : forall k, (k < m')%nat -> same_kink d Wu' bu' q k = true -> k = q).
  { intros k Hk Hs. apply (count_one m' (same_kink d Wu' bu' q)); try assumption.
    apply sk_refl. assumption. }
  unfold hsum in H0.
  rewrite (sum_ext m' _ (fun k => if same_kink d Wu' bu' q k then Rabs (lead d (Wu' k)) * Wd' o k / 2 else 0))
    in H0 by (intros; rewrite same_kink_hclass by assumption; reflexivity).
  rewrite (sum_select_one m' _ _ q Hq (sk_refl d Wu' bu' q Hl) Hu) in H0.
  unfold gamma. rewrite (sum_select_one m' _ _ q Hq (sk_refl d Wu' bu' q Hl) Hu).
  assert (Ha : Rabs (lead d (Wu' q)) <> 0) by (apply Rabs_no_R0; assumption).
  assert (Hw : Wd' o q = 0) by (apply (Rmult_eq_reg_l (Rabs (lead d (Wu' q)))); [lra|assumption]).
  rewrite Hw. lra.
Qed.

(** The linear part of [B'], grouped: the kink hyperplanes of [B], then
    the classes of [B'] off them. *)
Lemma linear_decomp : forall o j, (j < d)%nat ->
  sum m' (fun k => Wd' o k * Wu' k j) / 2 =
  sum m (fun r => if kink d m Wd Wu bu r then beta r o * nrow d Wu r j else 0) +
  sum m' (fun q => if first_of_class d Wu' bu' q && negb (matchedb q)
                   then gamma q o * nrow d Wu' q j else 0).
Proof.
  intros o j Hj.
  set (X := fun k => if req_b (lead d (Wu' k)) 0 then 0
                     else lead d (Wu' k) * Wd' o k / 2 * nrow d Wu' k j).
  assert (E1 : sum m' (fun k => Wd' o k * Wu' k j) / 2 = sum m' X).
  { unfold Rdiv. rewrite <- sum_scal_r. apply sum_ext. intros k Hk. unfold X.
    destruct (req_b (lead d (Wu' k)) 0) eqn:E.
    - apply req_b_true in E. rewrite (lead_zero d (Wu' k) E j Hj). lra.
    - apply req_b_false in E. unfold nrow. field. assumption. }
  assert (E2 : sum m' X = sum m' (fun k => if matchedb k then X k else 0)
                          + sum m' (fun k => if matchedb k then 0 else X k)).
  { rewrite <- sum_plus. apply sum_ext. intros. destruct (matchedb i); lra. }
  rewrite E1, E2. f_equal.
  - transitivity (sum m (fun r => sum m' (fun k => if kink d m Wd Wu bu r && mt r k then X k else 0))).
    + rewrite sum_swap. apply sum_ext. intros k Hk.
      destruct (matchedb k) eqn:Em.
      * destruct (proj1 (matchedb_true k) Em) as [r0 [Hr0 [Hk0 Hm0]]].
        symmetry. apply (sum_select_one m (fun r => kink d m Wd Wu bu r && mt r k) (fun _ => X k) r0).
        -- assumption.
        -- cbv beta. rewrite Hk0, Hm0. reflexivity.
        -- intros r Hr Hp. apply Bool.andb_true_iff in Hp. destruct Hp as [Hp1 Hp2].
           apply (mt_unique r r0 k); assumption.
      * symmetry. apply sum_zero. intros r Hr.
        destruct (kink d m Wd Wu bu r && mt r k) eqn:E; [|reflexivity]. exfalso.
        apply Bool.andb_true_iff in E.
        assert (matchedb k = true) by (apply matchedb_true; exists r; tauto). congruence.
    + apply sum_ext. intros r Hr. destruct (kink d m Wd Wu bu r) eqn:Ek; cbn [andb].
      * unfold beta. rewrite <- sum_scal_r. apply sum_ext. intros k Hk.
        destruct (mt r k) eqn:Emt; [|lra].
        unfold X. pose proof Emt as Emt'. apply hclass_true in Emt'. destruct Emt' as (Hl & Hg & Hb).
        rewrite (proj2 (req_b_false _ _) Hl). rewrite Hg by assumption. reflexivity.
      * apply sum_zero. intros. reflexivity.
  - transitivity (sum m' (fun q => sum m' (fun k =>
        if first_of_class d Wu' bu' q && same_kink d Wu' bu' q k
        then (if matchedb k then 0 else X k) else 0))).
    + rewrite sum_swap. apply sum_ext. intros k Hk.
      destruct (req_b (lead d (Wu' k)) 0) eqn:El.
      * transitivity 0.
        -- unfold X. rewrite El. destruct (matchedb k); reflexivity.
        -- symmetry. apply sum_zero. intros q Hq. apply req_b_true in El.
           rewrite (sk_lead0 d Wu' bu' q k El), Bool.andb_false_r. reflexivity.
      * apply req_b_false in El. destruct (first_exists d Wu' bu' k El) as [q0 [Hq0 [Hf0 Hs0]]].
        symmetry.
        apply (sum_select_one m' (fun q => first_of_class d Wu' bu' q && same_kink d Wu' bu' q k)
                 (fun _ => if matchedb k then 0 else X k) q0).
        -- lia.
        -- cbv beta. rewrite Hf0, Hs0. reflexivity.
        -- intros q Hq Hp. apply Bool.andb_true_iff in Hp. destruct Hp as [Hf Hs].
           apply (first_unique d Wu' bu' q q0 Hf Hf0).
           apply (sk_trans d Wu' bu' q k q0 Hs (sk_sym d Wu' bu' q0 k Hs0)).
    + apply sum_ext. intros q Hq. destruct (first_of_class d Wu' bu' q) eqn:Ef; cbn [andb].
      * destruct (matchedb q) eqn:Em; cbn [negb].
        -- apply sum_zero. intros k Hk. destruct (same_kink d Wu' bu' q k) eqn:Es; [|reflexivity].
           rewrite <- (matched_class q k Es), Em. reflexivity.
        -- unfold gamma. rewrite <- sum_scal_r. apply sum_ext. intros k Hk.
           destruct (same_kink d Wu' bu' q k) eqn:Es; [|lra].
           rewrite <- (matched_class q k Es), Em. unfold X. pose proof Es as Es'.
           apply same_kink_true in Es'. destruct Es' as (H1 & H2 & H3 & H4).
           rewrite (proj2 (req_b_false _ _) H2), (H3 j Hj). reflexivity.
      * apply sum_zero. intros. reflexivity.
Qed.

(** The linear part: [N_s = sum_{r in T} y_r u_r^T + (a sum of k' outer products)]. *)
Lemma nec_completes : completes d m Wu (Nmat d m M Wd Wu bu sgnb) Tset (count m' extra).
Proof.
  destruct (sum_enum m' extra (fun q o => gamma q o) (fun q j => nrow d Wu' q j)) as [a' [l' Henum]].
  exists (fun r o => beta r o - sgn sgnb r * alpha d m Wd Wu bu r o), a', l'.
  intros o j Ho Hj. rewrite <- Henum. cbv beta. unfold Nmat.
  rewrite (blocks_equal_linear d m m' M Wd Wu Wd' Wu' bu bd bu' bd' absorbed o j Ho Hj).
  rewrite linear_decomp by assumption.
  assert (EA : sum m (fun r => if kink d m Wd Wu bu r then beta r o * nrow d Wu r j else 0)
             - sum m (fun r => if kink d m Wd Wu bu r
                               then sgn sgnb r * alpha d m Wd Wu bu r o * nrow d Wu r j else 0)
             = sum m (fun r => if Tset r
                               then (beta r o - sgn sgnb r * alpha d m Wd Wu bu r o) * nrow d Wu r j
                               else 0)).
  { rewrite <- sum_minus. apply sum_ext. intros r Hr. destruct (kink d m Wd Wu bu r) eqn:Ek.
    - destruct (Tset r) eqn:ET.
      + rewrite Rmult_minus_distr_r. reflexivity.
      + rewrite beta_single by assumption. lra.
    - unfold Tset. rewrite Ek. cbn [andb]. lra. }
  assert (EB : sum m' (fun q => if first_of_class d Wu' bu' q && negb (matchedb q)
                                then gamma q o * nrow d Wu' q j else 0)
             = sum m' (fun q => if extra q then gamma q o * nrow d Wu' q j else 0)).
  { apply sum_ext. intros q Hq. unfold extra.
    destruct (first_of_class d Wu' bu' q && negb (matchedb q)) eqn:E; cbn [andb]; [|reflexivity].
    destruct (2 <=? count m' (same_kink d Wu' bu' q))%nat eqn:E2; [reflexivity|].
    apply Nat.leb_gt in E2. apply Bool.andb_true_iff in E. destruct E as [Hf Hm].
    apply Bool.negb_true_iff in Hm.
    rewrite (single_extra_zero q o Hq Hf Hm ltac:(lia) Ho). lra. }
  lra.
Qed.

(** The count: the units [p1 r] (kinks), [p2 r] ([T]) and two units of each
    extra class are pairwise distinct units of [B']. *)
Lemma nec_count : (count m (kink d m Wd Wu bu) + count m Tset + 2 * count m' extra <= m')%nat.
Proof.
  assert (C1 : forall r, (r < m)%nat -> exists k,
             kink d m Wd Wu bu r = true -> (k < m')%nat /\ mt r k = true).
  { intros r Hr. destruct (kink d m Wd Wu bu r) eqn:Ek.
    - destruct (count_pos m' (mt r) (kink_carries r Ek)) as [k [Hk Hm]]. exists k. auto.
    - exists 0%nat. discriminate. }
  destruct (finite_choice nat 0%nat _ m C1) as [p1 Hp1].
  assert (C2 : forall r, (r < m)%nat -> exists k,
             Tset r = true -> (k < m')%nat /\ mt r k = true /\ k <> p1 r).
  { intros r Hr. destruct (Tset r) eqn:ET.
    - unfold Tset in ET. apply Bool.andb_true_iff in ET. destruct ET as [Ek E2].
      apply Nat.leb_le in E2.
      destruct (count_two m' (mt r) (p1 r) E2) as [k [Hk [Hm Hne]]]. exists k. auto.
    - exists 0%nat. discriminate. }
  destruct (finite_choice nat 0%nat _ m C2) as [p2 Hp2].
  assert (C3 : forall q, (q < m')%nat -> exists k,
             extra q = true -> (k < m')%nat /\ same_kink d Wu' bu' q k = true /\ k <> q).
  { intros q Hq. destruct (extra q) eqn:EE.
    - unfold extra in EE. apply Bool.andb_true_iff in EE. destruct EE as [_ E2].
      apply Nat.leb_le in E2.
      destruct (count_two m' _ q E2) as [k [Hk [Hs Hne]]]. exists k. auto.
    - exists 0%nat. discriminate. }
  destruct (finite_choice nat 0%nat _ m' C3) as [q2 Hq2].
  assert (TK : forall r, Tset r = true -> kink d m Wd Wu bu r = true).
  { intros r H. unfold Tset in H. apply Bool.andb_true_iff in H. tauto. }
  assert (M1 : forall r, (r < m)%nat -> kink d m Wd Wu bu r = true -> matchedb (p1 r) = true).
  { intros r Hr Hk. apply matchedb_true. exists r. split; [assumption|split; [assumption|]].
    apply Hp1; assumption. }
  assert (M2 : forall r, (r < m)%nat -> Tset r = true -> matchedb (p2 r) = true).
  { intros r Hr HT. apply matchedb_true. exists r. split; [assumption|split; [apply TK; assumption|]].
    apply Hp2; assumption. }
  assert (U3 : forall q, extra q = true ->
             matchedb q = false /\ first_of_class d Wu' bu' q = true).
  { intros q H. unfold extra in H. rewrite !Bool.andb_true_iff, Bool.negb_true_iff in H. tauto. }
  assert (U4 : forall q, (q < m')%nat -> extra q = true ->
             matchedb (q2 q) = false /\ first_of_class d Wu' bu' (q2 q) = false).
  { intros q Hq H. destruct (Hq2 q Hq H) as (_ & Hs & Hne). destruct (U3 q H) as [Hm Hf].
    split; [rewrite <- (matched_class q (q2 q) Hs); assumption|].
    destruct (first_of_class d Wu' bu' (q2 q)) eqn:E; [|reflexivity].
    exfalso. apply Hne. symmetry. apply (first_unique d Wu' bu' q (q2 q) Hf E Hs). }
  set (slotp := fun i => if (i <? m)%nat then kink d m Wd Wu bu i
                         else if (i <? m + m)%nat then Tset (i - m)%nat
                         else if (i <? m + m + m')%nat then extra (i - (m + m))%nat
                         else extra (i - (m + m + m'))%nat).
  set (slotf := fun i => if (i <? m)%nat then p1 i
                         else if (i <? m + m)%nat then p2 (i - m)%nat
                         else if (i <? m + m + m')%nat then (i - (m + m))%nat
                         else q2 (i - (m + m + m'))%nat).
  assert (Ecount : count (m + m + m' + m') slotp =
                   (count m (kink d m Wd Wu bu) + count m Tset + count m' extra + count m' extra)%nat).
  { rewrite !count_split.
    assert (A1 : count m slotp = count m (kink d m Wd Wu bu)).
    { apply count_ext. intros i Hi. unfold slotp. destruct (Nat.ltb_spec i m); [reflexivity|lia]. }
    assert (A2 : count m (fun k => slotp (m + k)%nat) = count m Tset).
    { apply count_ext. intros i Hi. unfold slotp.
      destruct (Nat.ltb_spec (m + i) m); [lia|]. destruct (Nat.ltb_spec (m + i) (m + m)); [|lia].
      f_equal. lia. }
    assert (A3 : count m' (fun k => slotp (m + m + k)%nat) = count m' extra).
    { apply count_ext. intros i Hi. unfold slotp.
      destruct (Nat.ltb_spec (m + m + i) m); [lia|].
      destruct (Nat.ltb_spec (m + m + i) (m + m)); [lia|].
      destruct (Nat.ltb_spec (m + m + i) (m + m + m')); [|lia]. f_equal. lia. }
    assert (A4 : count m' (fun k => slotp (m + m + m' + k)%nat) = count m' extra).
    { apply count_ext. intros i Hi. unfold slotp.
      destruct (Nat.ltb_spec (m + m + m' + i) m); [lia|].
      destruct (Nat.ltb_spec (m + m + m' + i) (m + m)); [lia|].
      destruct (Nat.ltb_spec (m + m + m' + i) (m + m + m')); [lia|]. f_equal. lia. }
    lia. }
  assert (Hinj : (count (m + m + m' + m') slotp <= m')%nat).
  { apply (count_inj _ slotp m' slotf).
    - intros i Hi P. unfold slotp, slotf in *. revert P.
      destruct (Nat.ltb_spec i m); [intro P; apply Hp1; assumption|].
      destruct (Nat.ltb_spec i (m + m)); [intro P; apply Hp2; [lia|assumption]|].
      destruct (Nat.ltb_spec i (m + m + m')); [intro P; lia|].
      intro P. apply Hq2; [lia|assumption].
    - intros i i' Hi Hi' P P' E. unfold slotp, slotf in *. revert P P' E.
      destruct (Nat.ltb_spec i m) as [A1|A1]; [|destruct (Nat.ltb_spec i (m + m)) as [A2|A2];
        [|destruct (Nat.ltb_spec i (m + m + m')) as [A3|A3]]];
      (destruct (Nat.ltb_spec i' m) as [B1|B1]; [|destruct (Nat.ltb_spec i' (m + m)) as [B2|B2];
        [|destruct (Nat.ltb_spec i' (m + m + m')) as [B3|B3]]]); intros P P' E.
      (* 1,1 *)
      + destruct (Hp1 i A1 P) as [_ H1]. destruct (Hp1 i' B1 P') as [_ H2]. rewrite <- E in H2.
        apply (mt_unique i i' (p1 i)); assumption.
      (* 1,2 *)
      + exfalso. destruct (Hp1 i A1 P) as [_ H1]. destruct (Hp2 (i' - m)%nat ltac:(lia) P') as (_ & H2 & H3).
        rewrite <- E in H2. pose proof (mt_unique i (i' - m)%nat (p1 i) P (TK _ P') H1 H2) as Er.
        rewrite <- Er in H3. congruence.
      (* 1,3 *)
      + exfalso. pose proof (M1 i A1 P) as H1. rewrite E in H1. destruct (U3 _ P') as [H2 _]. congruence.
      (* 1,4 *)
      + exfalso. pose proof (M1 i A1 P) as H1. rewrite E in H1.
        destruct (U4 (i' - (m + m + m'))%nat ltac:(lia) P') as [H2 _]. congruence.
      (* 2,1 *)
      + exfalso. destruct (Hp1 i' B1 P') as [_ H1]. destruct (Hp2 (i - m)%nat ltac:(lia) P) as (_ & H2 & H3).
        rewrite E in H2. pose proof (mt_unique i' (i - m)%nat (p1 i') P' (TK _ P) H1 H2) as Er.
        rewrite <- Er in H3. congruence.
      (* 2,2 *)
      + destruct (Hp2 (i - m)%nat ltac:(lia) P) as (_ & H1 & _).
        destruct (Hp2 (i' - m)%nat ltac:(lia) P') as (_ & H2 & _). rewrite <- E in H2.
        pose proof (mt_unique _ _ _ (TK _ P) (TK _ P') H1 H2). lia.
      (* 2,3 *)
      + exfalso. pose proof (M2 (i - m)%nat ltac:(lia) P) as H1. rewrite E in H1. destruct (U3 _ P') as [H2 _].
        congruence.
      (* 2,4 *)
      + exfalso. pose proof (M2 (i - m)%nat ltac:(lia) P) as H1. rewrite E in H1.
        destruct (U4 (i' - (m + m + m'))%nat ltac:(lia) P') as [H2 _]. congruence.
      (* 3,1 *)
      + exfalso. pose proof (M1 i' B1 P') as H1. rewrite <- E in H1. destruct (U3 _ P) as [H2 _].
        congruence.
      (* 3,2 *)
      + exfalso. pose proof (M2 (i' - m)%nat ltac:(lia) P') as H1. rewrite <- E in H1. destruct (U3 _ P) as [H2 _].
        congruence.
      (* 3,3 *)
      + lia.
      (* 3,4 *)
      + exfalso. destruct (U3 _ P) as [_ H1]. rewrite E in H1. destruct (U4 (i' - (m + m + m'))%nat ltac:(lia) P') as [_ H2].
        congruence.
      (* 4,1 *)
      + exfalso. pose proof (M1 i' B1 P') as H1. rewrite <- E in H1.
        destruct (U4 (i - (m + m + m'))%nat ltac:(lia) P) as [H2 _]. congruence.
      (* 4,2 *)
      + exfalso. pose proof (M2 (i' - m)%nat ltac:(lia) P') as H1. rewrite <- E in H1.
        destruct (U4 (i - (m + m + m'))%nat ltac:(lia) P) as [H2 _]. congruence.
      (* 4,3 *)
      + exfalso. destruct (U3 _ P') as [_ H1]. rewrite <- E in H1. destruct (U4 (i - (m + m + m'))%nat ltac:(lia) P) as [_ H2].
        congruence.
      (* 4,4 *)
      + destruct (Hq2 (i - (m + m + m'))%nat ltac:(lia) P) as (_ & H1 & _). destruct (Hq2 (i' - (m + m + m'))%nat ltac:(lia) P') as (_ & H2 & _).
        rewrite <- E in H2. destruct (U3 _ P) as [_ F1]. destruct (U3 _ P') as [_ F2].
        pose proof (first_unique d Wu' bu' _ _ F1 F2 (sk_trans d Wu' bu' _ _ _ H1 (sk_sym d Wu' bu' _ _ H2))).
        lia. }
  lia.
Qed.

End Necessity_proof.

(** ** The theorem *)

(** relu-complete, necessity: if a relu block of width [m'] (biases allowed)
    equals [x -> M x + B x], then [m* <= m'].  Any [d], any [M], any relu
    block [B] with biases, degenerate or not. *)
Theorem relu_complete_necessity : forall d m m' M Wd Wu bu bd,
  realised d m m' M Wd Wu bu bd -> width_suffices d m m' M Wd Wu bu.
Proof.
  intros d m m' M Wd Wu bu bd [Wd' [Wu' [bu' [bd' absorbed]]]].
  exists (sgnb d m' Wu Wu' bu bu'), (Tset d m m' Wd Wu Wu' bu bu'),
         (count m' (extra d m m' Wd Wu Wu' bu bu')).
  split; [|split].
  - intros r _ H. unfold Tset in H. apply Bool.andb_true_iff in H. tauto.
  - exact (nec_completes d m m' M Wd Wu Wd' Wu' bu bd bu' bd' absorbed).
  - exact (nec_count d m m' M Wd Wu Wd' Wu' bu bd bu' bd' absorbed).
Qed.
