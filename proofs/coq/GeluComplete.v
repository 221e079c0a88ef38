(** * [gelu-complete], the construction (proofs/informal/gelu-complete.md).

    For an activation [s] with [s z - s (-z) = z] write [s z = z / 2 + epart s z]; [epart s] is
    even.  The construction of the informal proof builds a block of width
    [|script-H| + |T| + 2 rank(N_s P_T)] from three kinds of pieces of the canonical form

      [F(x) = c + sum_{H not in T} (a_H e(h_H x) + sg_H a_H / 2 h_H x)
                + sum_{H in T} (a_H e(h_H x) + beta_H h_H x)
                + sum_{q < k} v_q (l_q . x)]

    (one unit per class outside [T], two per class in [T], two per outer product, the constant in
    [b_down]).  [gelu_construction] proves that every function of this shape is a block of
    activation [s] of exactly that width with biases, and a bias-free one when every [b_H] and [c]
    vanish.  What is not formal: that [F = M x + B(x)] has this shape for the optimal [(s, T)]
    (the canonical form and the linear algebra of Lemma 3, shared with relu-complete), and the
    lower bound, which rests on the independence Lemma E of the informal proof (Gaussian and cubic
    tails, silu's poles).

    [gelu_family_even] instantiates the even part for the real gelu, gelu_tanh and silu of
    RealActivations.v. *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg RealActivations Limit Rank ReluComplete.
Open Scope R_scope.

Definition epart (s : R -> R) (z : R) : R := s z - z / 2.

Lemma epart_even : forall s, (forall z, s z - s (- z) = z) -> forall z, epart s (- z) = epart s z.
Proof. intros s Hs z. unfold epart. pose proof (Hs z). lra. Qed.

(** The even parts of the three activations of the claim. *)
Lemma gelu_family_even : forall z,
  epart gelu (- z) = epart gelu z /\ epart gelu_tanh (- z) = epart gelu_tanh z
  /\ epart silu (- z) = epart silu z.
Proof.
  intros z. repeat split; apply epart_even;
    [apply gelu_odd_part|apply gelu_tanh_odd_part|apply silu_odd_part].
Qed.

(** The affine argument [h(x) = u . x + b]. *)
Definition hv (d : nat) (u : vec) (b : R) (x : vec) : R := sum d (fun j => u j * x j) + b.

Section Family.
  Variable s : R -> R.
  Hypothesis Hs : forall z, s z - s (- z) = z.

  (** [f] is a block of activation [s] and width [n] with biases; bias-free when [bf = true]. *)
  Definition gfun (d n : nat) (bf : bool) (f : vec -> vec) : Prop :=
    exists (Wd Wu : mat) (bu bd : vec),
      (bf = true -> (forall l, bu l = 0) /\ (forall o, bd o = 0)) /\
      forall x o, (o < d)%nat -> f x o = bblock d n s Wd Wu bu bd x o.

  Lemma gfun_ext : forall d n bf (f g : vec -> vec),
    (forall x o, (o < d)%nat -> f x o = g x o) -> gfun d n bf g -> gfun d n bf f.
  Proof.
    intros d n bf f g Hfg (Wd & Wu & bu & bd & Hb & Hg).
    exists Wd, Wu, bu, bd. split; [exact Hb|]. intros x o Ho. rewrite Hfg by exact Ho. apply Hg, Ho.
  Qed.

  Lemma gfun_plus : forall d n1 n2 bf f g,
    gfun d n1 bf f -> gfun d n2 bf g -> gfun d (n1 + n2) bf (fun x o => f x o + g x o).
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
  Lemma gfun_const : forall d bf (c : vec),
    (bf = true -> forall o, (o < d)%nat -> c o = 0) -> gfun d 0 bf (fun _ => c).
  Proof.
    intros d bf c Hc. exists (fun _ _ => 0), (fun _ _ => 0), (fun _ => 0),
      (fun o => if (o <? d)%nat then c o else 0).
    split.
    - intros Hbf. split; [reflexivity|]. intros o. destruct (o <? d)%nat eqn:E; [|reflexivity].
      apply Hc; [exact Hbf|apply Nat.ltb_lt; exact E].
    - intros x o Ho. unfold bblock. simpl. replace (o <? d)%nat with true
        by (symmetry; apply Nat.ltb_lt; exact Ho). ring.
  Qed.

  Lemma gfun_zero : forall d bf, gfun d 0 bf (fun _ _ => 0).
  Proof. intros. apply (gfun_const d bf (fun _ => 0)). reflexivity. Qed.

  (** Units with output 0 pad a block to any larger width. *)
  Lemma gfun_pad : forall d n n' bf f, (n <= n')%nat -> gfun d n bf f -> gfun d n' bf f.
  Proof.
    intros d n n' bf f Hn Hf.
    assert (Hz : gfun d (n' - n) bf (fun _ _ => 0)).
    { exists (fun _ _ => 0), (fun _ _ => 0), (fun _ => 0), (fun _ => 0).
      split; [intros; split; reflexivity|].
      intros x o _. unfold bblock. rewrite sum_zero by (intros; ring). ring. }
    replace n' with (n + (n' - n))%nat by lia.
    apply (gfun_ext d _ bf f (fun x o => f x o + 0)); [intros; ring|].
    apply gfun_plus; assumption.
  Qed.

  (** One unit [sg (u, b)] with output [a] (sg = +-1): [a e(h) + sg a / 2 h]. *)
  Lemma gfun_class1 : forall d bf (u : vec) (b sg : R) (a : vec),
    (sg = 1 \/ sg = -1) -> (bf = true -> b = 0) ->
    gfun d 1 bf (fun x o => a o * epart s (hv d u b x) + sg * a o / 2 * hv d u b x).
  Proof.
    intros d bf u b sg a Hsg Hb.
    exists (fun o _ => a o), (fun _ j => sg * u j), (fun _ => sg * b), (fun _ => 0).
    split.
    - intros Hbf. rewrite (Hb Hbf). split; [intros; ring|reflexivity].
    - intros x o _. unfold bblock, mv, hv. simpl.
      rewrite (sum_ext d (fun j => sg * u j * x j) (fun j => sg * (u j * x j))) by (intros; ring).
      rewrite sum_scal_l. set (z := sum d (fun j => u j * x j)).
      replace (sg * z + sg * b) with (sg * (z + b)) by ring.
      destruct Hsg as [-> | ->].
      + replace (1 * (z + b)) with (z + b) by ring. unfold epart. field.
      + replace (-1 * (z + b)) with (- (z + b)) by ring.
        rewrite <- (epart_even s Hs (z + b)). unfold epart. field.
  Qed.

  (** Two units [(u, b)] and [(-u, -b)] with outputs [a/2 + be] and [a/2 - be]:
      [a e(h) + be h] for every [a] and [be]. *)
  Lemma gfun_class2 : forall d bf (u : vec) (b : R) (a be : vec),
    (bf = true -> b = 0) ->
    gfun d 2 bf (fun x o => a o * epart s (hv d u b x) + be o * hv d u b x).
  Proof.
    intros d bf u b a be Hb.
    exists (fun o l => match l with O => a o / 2 + be o | _ => a o / 2 - be o end),
      (fun l j => match l with O => u j | _ => - u j end),
      (fun l => match l with O => b | _ => - b end), (fun _ => 0).
    split.
    - intros Hbf. rewrite (Hb Hbf). split; [intros [|l]; simpl; ring|reflexivity].
    - intros x o _. unfold bblock, mv, hv. simpl.
      rewrite (sum_ext d (fun j => - u j * x j) (fun j => -1 * (u j * x j))) by (intros; ring).
      rewrite sum_scal_l. set (z := sum d (fun j => u j * x j)).
      replace (-1 * z + - b) with (- (z + b)) by ring.
      assert (Hn : s (- (z + b)) = s (z + b) - (z + b)) by (pose proof (Hs (z + b)); lra).
      rewrite Hn. unfold epart. field.
  Qed.

  (** [x -> a (l . x)] at width 2, bias-free: [s z - s (-z) = z]. *)
  Lemma gfun_outer : forall d bf (a l : vec),
    gfun d 2 bf (fun x o => a o * sum d (fun j => l j * x j)).
  Proof.
    intros d bf a l.
    apply (gfun_ext d 2 bf _ (fun x o => (fun _ => 0) o * epart s (hv d l 0 x) + a o * hv d l 0 x)).
    - intros. unfold hv. ring.
    - apply gfun_class2. reflexivity.
  Qed.

  Lemma gfun_sum : forall d bf m (w : nat -> nat) (f : nat -> vec -> vec),
    (forall r, (r < m)%nat -> gfun d (w r) bf (f r)) ->
    gfun d (nsum m w) bf (fun x o => sum m (fun r => f r x o)).
  Proof.
    intros d bf. induction m as [|m IH]; intros w f Hf; simpl.
    - apply (gfun_ext d 0 bf _ (fun _ _ => 0)); [reflexivity|apply gfun_zero].
    - apply gfun_plus; [apply IH; intros; apply Hf; lia|apply Hf; lia].
  Qed.

  Lemma gfun_sum_const : forall d bf m c (f : nat -> vec -> vec),
    (forall r, (r < m)%nat -> gfun d c bf (f r)) ->
    gfun d (m * c) bf (fun x o => sum m (fun r => f r x o)).
  Proof.
    intros d bf m c f Hf. rewrite <- nsum_const. apply gfun_sum. exact Hf.
  Qed.

  (** The construction: [n1] classes with one unit ([H] not in [T]), [n2] classes with two
      ([H] in [T]), [k] outer products and a constant make a block of width [n1 + 2 n2 + 2 k],
      bias-free when the classes and the constant are. *)
  Theorem gelu_construction : forall d bf (n1 n2 k : nat)
      (u1 : nat -> vec) (b1 sg : nat -> R) (a1 : nat -> vec)
      (u2 : nat -> vec) (b2 : nat -> R) (a2 be2 : nat -> vec)
      (v l : nat -> vec) (c : vec),
    (forall r, (r < n1)%nat -> sg r = 1 \/ sg r = -1) ->
    (bf = true -> (forall r, (r < n1)%nat -> b1 r = 0) /\ (forall r, (r < n2)%nat -> b2 r = 0)
                  /\ (forall o, (o < d)%nat -> c o = 0)) ->
    gfun d (n1 + 2 * n2 + 2 * k) bf (fun x o =>
      c o
      + sum n1 (fun r => a1 r o * epart s (hv d (u1 r) (b1 r) x) + sg r * a1 r o / 2 * hv d (u1 r) (b1 r) x)
      + sum n2 (fun r => a2 r o * epart s (hv d (u2 r) (b2 r) x) + be2 r o * hv d (u2 r) (b2 r) x)
      + sum k (fun q => v q o * sum d (fun j => l q j * x j))).
  Proof.
    intros d bf n1 n2 k u1 b1 sg a1 u2 b2 a2 be2 v l c Hsg Hbf.
    replace (n1 + 2 * n2 + 2 * k)%nat with (0 + (n1 * 1 + n2 * 2) + k * 2)%nat by lia.
    apply (gfun_ext d _ bf _ (fun x o => (c o + (sum n1 (fun r => a1 r o * epart s (hv d (u1 r) (b1 r) x)
             + sg r * a1 r o / 2 * hv d (u1 r) (b1 r) x)
             + sum n2 (fun r => a2 r o * epart s (hv d (u2 r) (b2 r) x) + be2 r o * hv d (u2 r) (b2 r) x)))
             + sum k (fun q => v q o * sum d (fun j => l q j * x j)))); [intros; ring|].
    apply gfun_plus; [apply gfun_plus|].
    - apply gfun_const. intros Hb. apply (Hbf Hb).
    - apply gfun_plus.
      + apply gfun_sum_const. intros r Hr. apply gfun_class1; [apply Hsg, Hr|].
        intros Hb. apply (Hbf Hb), Hr.
      + apply gfun_sum_const. intros r Hr. apply gfun_class2. intros Hb. apply (Hbf Hb), Hr.
    - apply gfun_sum_const. intros q _. apply gfun_outer.
  Qed.

  (** One unit of any block splits into its even part and half its argument:
      [w s(sg h) = w e(h) + sg w / 2 h], the canonical form (1) unit by unit. *)
  Lemma unit_canonical : forall w h sg, (sg = 1 \/ sg = -1) ->
    w * s (sg * h) = w * epart s h + sg * w / 2 * h.
  Proof.
    intros w h sg [-> | ->].
    - replace (1 * h) with h by ring. unfold epart. field.
    - replace (-1 * h) with (- h) by ring. rewrite <- (epart_even s Hs h) at 1.
      unfold epart. field.
  Qed.
End Family.

(** The main statement with the odd-part identity as a named binder. *)
Theorem gelu_complete_construction : forall (s : R -> R) (sigma_odd_part : forall z, s z - s (- z) = z)
    d bf (n1 n2 k : nat)
    (u1 : nat -> vec) (b1 sg : nat -> R) (a1 : nat -> vec)
    (u2 : nat -> vec) (b2 : nat -> R) (a2 be2 : nat -> vec)
    (v l : nat -> vec) (c : vec),
  (forall r, (r < n1)%nat -> sg r = 1 \/ sg r = -1) ->
  (bf = true -> (forall r, (r < n1)%nat -> b1 r = 0) /\ (forall r, (r < n2)%nat -> b2 r = 0)
                /\ (forall o, (o < d)%nat -> c o = 0)) ->
  gfun s d (n1 + 2 * n2 + 2 * k) bf (fun x o =>
    c o
    + sum n1 (fun r => a1 r o * epart s (hv d (u1 r) (b1 r) x) + sg r * a1 r o / 2 * hv d (u1 r) (b1 r) x)
    + sum n2 (fun r => a2 r o * epart s (hv d (u2 r) (b2 r) x) + be2 r o * hv d (u2 r) (b2 r) x)
    + sum k (fun q => v q o * sum d (fun j => l q j * x j))).
Proof. intros s sigma_odd_part. exact (gelu_construction s sigma_odd_part). Qed.

(** The issue's first hand case through the construction: [x + s(x) + s(-x)] is one bias-free
    unit ([2 s(x)]) for every [s] with the odd-part identity (one class, [a = 2], [sg = +1]). *)
Lemma gelu_complete_instance : forall s : R -> R, (forall z, s z - s (- z) = z) ->
  exists w u : R, forall x : R, x + s x + s (- x) = w * s (u * x).
Proof.
  intros s Hs.
  destruct (gelu_complete_construction s Hs 1 true 1 0 0 (fun _ _ => 1) (fun _ => 0) (fun _ => 1)
              (fun _ _ => 2) (fun _ _ => 0) (fun _ => 0) (fun _ _ => 0) (fun _ _ => 0)
              (fun _ _ => 0) (fun _ _ => 0) (fun _ => 0)) as (Wd & Wu & bu & bd & Hb & Hf).
  - intros r Hr. left. reflexivity.
  - intros _. repeat split; intros; reflexivity.
  - destruct (Hb eq_refl) as [Hbu Hbd]. exists (Wd 0%nat 0%nat), (Wu 0%nat 0%nat). intros x.
    pose proof (Hf (fun _ => x) 0%nat ltac:(lia)) as H. unfold bblock, mv, hv, epart in H. simpl in H.
    rewrite Hbu, Hbd in H. pose proof (Hs x) as Hx.
    replace (Wu 0%nat 0%nat * x) with (0 + Wu 0%nat 0%nat * x + 0) by ring.
    replace (0 + 1 * x + 0) with x in H by ring.
    set (t := Wd 0%nat 0%nat * s (0 + Wu 0%nat 0%nat * x + 0)) in *. lra.
Qed.
