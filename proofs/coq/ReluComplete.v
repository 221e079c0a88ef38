(** * [relu-complete], the sufficiency half: [m* <= m'] gives a relu block
    of width [m'] equal to [F(x) = M x + B(x)].

    The construction of proofs/informal/relu-complete.md ("Construction"):
    with [(s, T, k)] as in [width_suffices] and the decomposition
    [N_s = sum_{H in T} y_H u_H^T + sum_{q < k} a_q l_q^T] of [completes],
    the canonical form (1) ([canonical_form_kinks] in ReluClasses.v) reads

      [F(x) = k' + sum_{kinks H} (alpha_H |h_H(x)| + beta_H h_H(x))
              + sum_{q < k} a_q (l_q . x)]

    with [beta_H = s_H alpha_H + y_H] ([y_H = 0] off [T]) and a constant
    [k'].  A kink off [T] is one unit ([beta_H = s_H alpha_H]), a kink in [T]
    two units (any [beta_H]), each [a_q l_q^T] two units
    ([relu z - relu (-z) = z]), the constant is [b'_down]; zero units pad
    to [m'].

    We build the block through a predicate [rfun d n bf f]: [f] is a relu
    block of width [n] with biases, and bias-free when [bf = true].  The
    flag gives the bias-free remark with the same proof. *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg SignFlip RealActivations Limit Rank ReluClasses.
Open Scope R_scope.

(** ** Relu blocks with biases as functions *)

Definition rfun (d n : nat) (bf : bool) (f : vec -> vec) : Prop :=
  exists (Wd Wu : mat) (bu bd : vec),
    (bf = true -> (forall l, bu l = 0) /\ (forall o, bd o = 0)) /\
    forall x o, (o < d)%nat -> f x o = bblock d n relu Wd Wu bu bd x o.

Lemma rfun_ext : forall d n bf (f g : vec -> vec),
  (forall x o, (o < d)%nat -> f x o = g x o) -> rfun d n bf g -> rfun d n bf f.
Proof.
  intros d n bf f g Hfg (Wd & Wu & bu & bd & Hb & Hg).
  exists Wd, Wu, bu, bd. split; [exact Hb|]. intros x o Ho. rewrite Hfg by exact Ho. apply Hg, Ho.
Qed.

(** Biased blocks side by side (the biased [block_concat]). *)
Definition concat_vec (m1 : nat) (b1 b2 : vec) : vec :=
  fun l => if (l <? m1)%nat then b1 l else b2 (l - m1)%nat.

Lemma bblock_concat : forall d m1 m2 s Wd1 Wu1 bu1 bd1 Wd2 Wu2 bu2 bd2 x o,
  bblock d (m1 + m2) s (concat_down m1 Wd1 Wd2) (concat_up m1 Wu1 Wu2) (concat_vec m1 bu1 bu2)
    (fun o => bd1 o + bd2 o) x o =
  bblock d m1 s Wd1 Wu1 bu1 bd1 x o + bblock d m2 s Wd2 Wu2 bu2 bd2 x o.
Proof.
  intros. unfold bblock. rewrite sum_split.
  rewrite (sum_ext m1 _ (fun l => Wd1 o l * s (mv d Wu1 x l + bu1 l))).
  2:{ intros l Hl. unfold concat_down, concat_up, concat_vec, mv.
      replace (l <? m1)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hl). reflexivity. }
  rewrite (sum_ext m2 _ (fun l => Wd2 o l * s (mv d Wu2 x l + bu2 l))).
  2:{ intros l Hl. unfold concat_down, concat_up, concat_vec, mv.
      replace (m1 + l <? m1)%nat with false by (symmetry; apply Nat.ltb_ge; lia).
      replace (m1 + l - m1)%nat with l by lia. reflexivity. }
  ring.
Qed.

Lemma rfun_plus : forall d n1 n2 bf f g,
  rfun d n1 bf f -> rfun d n2 bf g -> rfun d (n1 + n2) bf (fun x o => f x o + g x o).
Proof.
  intros d n1 n2 bf f g (Wd1 & Wu1 & bu1 & bd1 & Hb1 & H1) (Wd2 & Wu2 & bu2 & bd2 & Hb2 & H2).
  exists (concat_down n1 Wd1 Wd2), (concat_up n1 Wu1 Wu2), (concat_vec n1 bu1 bu2),
    (fun o => bd1 o + bd2 o).
  split.
  - intros Hbf. destruct (Hb1 Hbf) as [Hu1 Hd1]. destruct (Hb2 Hbf) as [Hu2 Hd2]. split.
    + intros l. unfold concat_vec. destruct (l <? n1)%nat; [apply Hu1|apply Hu2].
    + intros o. rewrite Hd1, Hd2. ring.
  - intros x o Ho. rewrite bblock_concat, <- H1, <- H2 by exact Ho. reflexivity.
Qed.

(** A constant at width 0 (the down-bias); bias-free only when it is 0. *)
Lemma rfun_const : forall d bf (c : vec),
  (bf = true -> forall o, (o < d)%nat -> c o = 0) -> rfun d 0 bf (fun _ => c).
Proof.
  intros d bf c Hc. exists (fun _ _ => 0), (fun _ _ => 0), (fun _ => 0),
    (fun o => if (o <? d)%nat then c o else 0).
  split.
  - intros Hbf. split; [reflexivity|]. intros o. destruct (o <? d)%nat eqn:E; [|reflexivity].
    apply Hc; [exact Hbf|apply Nat.ltb_lt; exact E].
  - intros x o Ho. unfold bblock. simpl. replace (o <? d)%nat with true
      by (symmetry; apply Nat.ltb_lt; exact Ho). ring.
Qed.

Lemma rfun_zero : forall d bf, rfun d 0 bf (fun _ _ => 0).
Proof. intros. apply (rfun_const d bf (fun _ => 0)). reflexivity. Qed.

(** Zero units pad a block to any larger width. *)
Lemma rfun_pad : forall d n n' bf f, (n <= n')%nat -> rfun d n bf f -> rfun d n' bf f.
Proof.
  intros d n n' bf f Hn Hf.
  assert (Hz : rfun d (n' - n) bf (fun _ _ => 0)).
  { exists (fun _ _ => 0), (fun _ _ => 0), (fun _ => 0), (fun _ => 0).
    split; [intros; split; reflexivity|].
    intros x o _. unfold bblock. rewrite sum_zero by (intros; ring). ring. }
  replace n' with (n + (n' - n))%nat by lia.
  apply (rfun_ext d _ bf f (fun x o => f x o + 0)); [intros; ring|].
  apply rfun_plus; assumption.
Qed.

(** [a |h(x)| + beta h(x)] for an affine [h(x) = u . x + b], any [a], [beta]:
    two units [(u, b)] and [(-u, -b)] with outputs [a + beta] and [a - beta]. *)
Lemma rfun_abs2 : forall d bf (u : vec) (b : R) (a be : vec),
  (bf = true -> b = 0) ->
  rfun d 2 bf (fun x o => a o * Rabs (sum d (fun j => u j * x j) + b)
                          + be o * (sum d (fun j => u j * x j) + b)).
Proof.
  intros d bf u b a be Hb.
  exists (fun o l => match l with O => a o + be o | _ => a o - be o end),
    (fun l j => match l with O => u j | _ => - u j end),
    (fun l => match l with O => b | _ => - b end), (fun _ => 0).
  split.
  - intros Hbf. rewrite (Hb Hbf). split; [intros [|l]; simpl; ring|reflexivity].
  - intros x o _. unfold bblock, mv. simpl.
    rewrite (sum_ext d (fun j => - u j * x j) (fun j => -1 * (u j * x j))) by (intros; ring).
    rewrite sum_scal_l. set (z := sum d (fun j => u j * x j)).
    replace (-1 * z + - b) with (- (z + b)) by ring.
    rewrite !relu_half_abs, Rabs_Ropp. field.
Qed.

(** At width 1 the odd share is fixed up to a sign: one unit [sg (u, b)]
    with output [2 a] gives [a |h| + sg a h]. *)
Lemma rfun_abs1 : forall d bf (u : vec) (b sg : R) (a : vec),
  (sg = 1 \/ sg = -1) -> (bf = true -> b = 0) ->
  rfun d 1 bf (fun x o => a o * Rabs (sum d (fun j => u j * x j) + b)
                          + sg * a o * (sum d (fun j => u j * x j) + b)).
Proof.
  intros d bf u b sg a Hsg Hb.
  exists (fun o _ => 2 * a o), (fun _ j => sg * u j), (fun _ => sg * b), (fun _ => 0).
  split.
  - intros Hbf. rewrite (Hb Hbf). split; [intros; ring|reflexivity].
  - intros x o _. unfold bblock, mv. simpl.
    rewrite (sum_ext d (fun j => sg * u j * x j) (fun j => sg * (u j * x j))) by (intros; ring).
    rewrite sum_scal_l. set (z := sum d (fun j => u j * x j)).
    replace (sg * z + sg * b) with (sg * (z + b)) by ring.
    rewrite relu_half_abs, Rabs_mult.
    assert (Ha : Rabs sg = 1) by (destruct Hsg as [-> | ->]; unfold Rabs; destruct (Rcase_abs _); lra).
    rewrite Ha. field.
Qed.

(** [x -> a (l . x)] at width 2 ([relu z - relu (-z) = z]); bias-free. *)
Lemma rfun_outer : forall d bf (a l : vec),
  rfun d 2 bf (fun x o => a o * sum d (fun j => l j * x j)).
Proof.
  intros d bf a l.
  apply (rfun_ext d 2 bf _ (fun x o => (fun _ => 0) o * Rabs (sum d (fun j => l j * x j) + 0)
                                       + a o * (sum d (fun j => l j * x j) + 0))).
  - intros. ring.
  - apply rfun_abs2. reflexivity.
Qed.

(** Sums of [m] pieces: the widths add. *)
Fixpoint nsum (m : nat) (w : nat -> nat) : nat :=
  match m with
  | O => O
  | S k => (nsum k w + w k)%nat
  end.

Lemma rfun_sum : forall d bf m (w : nat -> nat) (f : nat -> vec -> vec),
  (forall r, (r < m)%nat -> rfun d (w r) bf (f r)) ->
  rfun d (nsum m w) bf (fun x o => sum m (fun r => f r x o)).
Proof.
  intros d bf. induction m as [|m IH]; intros w f Hf; simpl.
  - apply (rfun_ext d 0 bf _ (fun _ _ => 0)); [reflexivity|apply rfun_zero].
  - apply rfun_plus; [apply IH; intros; apply Hf; lia|apply Hf; lia].
Qed.

Lemma nsum_const : forall m c, nsum m (fun _ => c) = (m * c)%nat.
Proof. induction m as [|m IH]; intros c; simpl; [reflexivity|rewrite IH; lia]. Qed.

Lemma nsum_two_counts : forall m (p q : nat -> bool),
  nsum m (fun r => ((if p r then 1 else 0) + (if q r then 1 else 0))%nat) = (count m p + count m q)%nat.
Proof. induction m as [|m IH]; intros p q; simpl; [reflexivity|rewrite IH; lia]. Qed.

(** [x -> A x] with [A = sum_{q<k} a_q l_q^T] at width [2 k]. *)
Lemma rfun_outer_sum : forall d bf k (a l : nat -> vec),
  rfun d (2 * k) bf (fun x o => sum k (fun q => a q o * sum d (fun j => l q j * x j))).
Proof.
  intros d bf k a l. replace (2 * k)%nat with (nsum k (fun _ => 2%nat)) by (rewrite nsum_const; lia).
  apply (rfun_sum d bf k (fun _ => 2%nat) (fun q x o => a q o * sum d (fun j => l q j * x j))).
  intros q _. apply rfun_outer.
Qed.

(** ** The construction *)

Section Construction.
  Variables (d m : nat) (M Wd Wu : mat) (bu bd : vec) (s T : nat -> bool) (y : nat -> vec).

  (** [beta_H = s_H alpha_H + y_H] on a kink ([y_H] only on [T]). *)
  Definition beta_coef (r : nat) : vec :=
    fun o => (if kink d m Wd Wu bu r then sgn s r * alpha d m Wd Wu bu r o else 0)
             + (if T r then y r o else 0).

  (** The piece of class [r]: [alpha_H |h_H| + beta_H h_H] (zero off the kinks). *)
  Definition class_piece (r : nat) (x : vec) : vec :=
    fun o => (if kink d m Wd Wu bu r then alpha d m Wd Wu bu r o * Rabs (hval d Wu bu r x) else 0)
             + beta_coef r o * hval d Wu bu r x.

  (** The constant [k' = k - sum_H beta_H b_H]. *)
  Definition const_part : vec :=
    fun o => kconst d m Wd Wu bu bd o - sum m (fun r => beta_coef r o * nbias d Wu bu r).
End Construction.

Lemma sgn_pm : forall s r, sgn s r = 1 \/ sgn s r = -1.
Proof. intros. unfold sgn. destruct (s r); [right|left]; reflexivity. Qed.

(** [F] as the sum of the class pieces, the outer products and a constant. *)
Lemma construction_identity : forall d m M Wd Wu bu bd s T k (y a l : nat -> vec),
  (forall r, (r < m)%nat -> T r = true -> kink d m Wd Wu bu r = true) ->
  (forall o j, (o < d)%nat -> (j < d)%nat ->
     Nmat d m M Wd Wu bu s o j = sum m (fun r => if T r then y r o * nrow d Wu r j else 0)
                                 + sum k (fun q => a q o * l q j)) ->
  forall x o, (o < d)%nat ->
  mv d M x o + bblock d m relu Wd Wu bu bd x o =
  const_part d m Wd Wu bu bd s T y o
  + sum m (fun r => class_piece d m Wd Wu bu s T y r x o)
  + sum k (fun q => a q o * sum d (fun j => l q j * x j)).
Proof.
  intros d m M Wd Wu bu bd s T k y a l HT HN x o Ho.
  rewrite canonical_form_kinks by exact Ho.
  (* the linear part: [M + L = sum_H beta_H u_H^T + sum_q a_q l_q^T] *)
  assert (Hlin : forall j, (j < d)%nat ->
    M o j + sum m (fun i => Wd o i * Wu i j) / 2 =
    sum m (fun r => beta_coef d m Wd Wu bu s T y r o * nrow d Wu r j) + sum k (fun q => a q o * l q j)).
  { intros j Hj. pose proof (HN o j Ho Hj) as E. unfold Nmat in E.
    rewrite (sum_ext m (fun r => beta_coef d m Wd Wu bu s T y r o * nrow d Wu r j)
      (fun r => (if kink d m Wd Wu bu r then sgn s r * alpha d m Wd Wu bu r o * nrow d Wu r j else 0)
                + (if T r then y r o * nrow d Wu r j else 0)))
      by (intros r _; unfold beta_coef; destruct (kink d m Wd Wu bu r), (T r); ring).
    rewrite sum_plus. lra. }
  assert (Hx : mv d M x o + sum d (fun j => sum m (fun i => Wd o i * Wu i j) / 2 * x j) =
    sum m (fun r => beta_coef d m Wd Wu bu s T y r o * sum d (fun j => nrow d Wu r j * x j))
    + sum k (fun q => a q o * sum d (fun j => l q j * x j))).
  { unfold mv. rewrite <- sum_plus.
    rewrite (sum_ext d _ (fun j => sum m (fun r => beta_coef d m Wd Wu bu s T y r o * nrow d Wu r j) * x j
                                   + sum k (fun q => a q o * l q j) * x j))
      by (intros j Hj; rewrite <- Rmult_plus_distr_r, (Hlin j Hj); ring).
    rewrite sum_plus, !sum_outer_apply. reflexivity. }
  assert (Hp : sum m (fun r => class_piece d m Wd Wu bu s T y r x o) =
    sum m (fun r => if kink d m Wd Wu bu r
                    then alpha d m Wd Wu bu r o *
                         Rabs (sum d (fun j => nrow d Wu r j * x j) + nbias d Wu bu r) else 0)
    + sum m (fun r => beta_coef d m Wd Wu bu s T y r o * sum d (fun j => nrow d Wu r j * x j))
    + sum m (fun r => beta_coef d m Wd Wu bu s T y r o * nbias d Wu bu r)).
  { rewrite <- !sum_plus. apply sum_ext. intros r _. unfold class_piece, hval.
    destruct (kink d m Wd Wu bu r); ring. }
  unfold const_part. rewrite Hp. lra.
Qed.

(** [F] (as a function of [x]) is a relu block of width [m'] when
    [m* <= m']; bias-free when [F] is ([bf = true]). *)
Theorem sufficiency_rfun : forall bf d m m' M Wd Wu bu bd,
  (bf = true -> (forall l, bu l = 0) /\ (forall o, bd o = 0)) ->
  width_suffices d m m' M Wd Wu bu ->
  rfun d m' bf (fun x o => mv d M x o + bblock d m relu Wd Wu bu bd x o).
Proof.
  intros bf d m m' M Wd Wu bu bd Hbf (s & T & k & HT & (y & a & l & HN) & Hw).
  assert (Hnb : bf = true -> forall r, nbias d Wu bu r = 0)
    by (intros E r; unfold nbias; rewrite (proj1 (Hbf E) r); unfold Rdiv; ring).
  apply (rfun_pad d _ m' bf _ Hw).
  apply (rfun_ext d _ bf _ _ (construction_identity d m M Wd Wu bu bd s T k y a l HT HN)).
  apply (rfun_ext d _ bf _ (fun x o => (sum m (fun r => class_piece d m Wd Wu bu s T y r x o)
    + sum k (fun q => a q o * sum d (fun j => l q j * x j))) + const_part d m Wd Wu bu bd s T y o));
    [intros; ring|].
  rewrite <- (Nat.add_0_r (_ + _ + _)).
  apply rfun_plus; [apply rfun_plus|].
  - rewrite <- nsum_two_counts. apply rfun_sum. intros r Hr.
    destruct (kink d m Wd Wu bu r) eqn:Ek; destruct (T r) eqn:ET.
    + (* a kink in [T]: two units *)
      apply (rfun_ext d 2 bf _ (fun x o => alpha d m Wd Wu bu r o *
               Rabs (sum d (fun j => nrow d Wu r j * x j) + nbias d Wu bu r)
             + beta_coef d m Wd Wu bu s T y r o * (sum d (fun j => nrow d Wu r j * x j) + nbias d Wu bu r))).
      { intros x o _. unfold class_piece, hval. rewrite Ek. reflexivity. }
      apply rfun_abs2. intros E. apply Hnb, E.
    + (* a kink off [T]: one unit *)
      apply (rfun_ext d 1 bf _ (fun x o => alpha d m Wd Wu bu r o *
               Rabs (sum d (fun j => nrow d Wu r j * x j) + nbias d Wu bu r)
             + sgn s r * alpha d m Wd Wu bu r o * (sum d (fun j => nrow d Wu r j * x j) + nbias d Wu bu r))).
      { intros x o _. unfold class_piece, beta_coef, hval. rewrite Ek, ET. ring. }
      apply rfun_abs1; [apply sgn_pm|]. intros E. apply Hnb, E.
    + rewrite (HT r Hr ET) in Ek. discriminate.
    + (* not a kink: nothing *)
      apply (rfun_ext d 0 bf _ (fun _ _ => 0)); [|apply rfun_zero].
      intros x o _. unfold class_piece, beta_coef. rewrite Ek, ET. ring.
  - apply rfun_outer_sum.
  - apply rfun_const. intros E o _. unfold const_part, kconst, beta_coef.
    destruct (Hbf E) as [Hu Hd]. rewrite Hd.
    rewrite sum_zero by (intros i _; rewrite Hu; unfold relu, Rmax;
                         destruct (Rle_dec 0 0), (req_b (lead d (Wu i)) 0); lra).
    rewrite sum_zero by (intros r _; rewrite (Hnb E r); ring). ring.
Qed.

(** The sufficiency half of [relu-complete]: if [m* <= m'], then
    [x -> M x + B(x)] is a relu block of width [m'] (with biases). *)
Theorem relu_complete_sufficiency : forall d m m' M Wd Wu bu bd,
  width_suffices d m m' M Wd Wu bu -> realised d m m' M Wd Wu bu bd.
Proof.
  intros d m m' M Wd Wu bu bd Hw.
  destruct (sufficiency_rfun false d m m' M Wd Wu bu bd ltac:(discriminate) Hw)
    as (Wd' & Wu' & bu' & bd' & _ & H).
  exists Wd', Wu', bu', bd'. intros x i Hi. apply H, Hi.
Qed.

(** The bias-free remark: for a bias-free [B], the block built is bias-free. *)
Theorem relu_complete_sufficiency_bias_free : forall d m m' M Wd Wu,
  width_suffices d m m' M Wd Wu (fun _ => 0) ->
  exists Wd' Wu' : mat, forall x i, (i < d)%nat ->
    mv d M x i + block d m relu Wd Wu x i = block d m' relu Wd' Wu' x i.
Proof.
  intros d m m' M Wd Wu Hw.
  destruct (sufficiency_rfun true d m m' M Wd Wu (fun _ => 0) (fun _ => 0)
              ltac:(intros; split; reflexivity) Hw) as (Wd' & Wu' & bu' & bd' & Hb & H).
  destruct (Hb eq_refl) as [Hu Hd].
  exists Wd', Wu'. intros x i Hi. rewrite <- !bblock_no_bias, H by exact Hi.
  unfold bblock. rewrite Hd. f_equal. apply sum_ext. intros l _. rewrite Hu. reflexivity.
Qed.

(** ** Small facts used by the instance lemmas (ReluCompleteIff.v) *)

Lemma lead_1 : forall u, lead 1 u = u 0%nat.
Proof. intros u. simpl. destruct (Req_EM_T 0 0); [reflexivity|congruence]. Qed.

Lemma lead_2_nz : forall u, u 0%nat <> 0 -> lead 2 u = u 0%nat.
Proof.
  intros u H. change (lead 2 u) with (if Req_EM_T (lead 1 u) 0 then u 1%nat else lead 1 u).
  rewrite lead_1. destruct (Req_EM_T (u 0%nat) 0); [contradiction|reflexivity].
Qed.

Lemma lead_2_z : forall u, u 0%nat = 0 -> lead 2 u = u 1%nat.
Proof.
  intros u H. change (lead 2 u) with (if Req_EM_T (lead 1 u) 0 then u 1%nat else lead 1 u).
  rewrite lead_1. destruct (Req_EM_T (u 0%nat) 0); [reflexivity|contradiction].
Qed.

Lemma kink_not_first : forall d m Wd Wu bu r,
  first_of_class d Wu bu r = false -> kink d m Wd Wu bu r = false.
Proof. intros d m Wd Wu bu r H. unfold kink. rewrite H. reflexivity. Qed.
