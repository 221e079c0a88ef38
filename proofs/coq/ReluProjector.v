(** * relu-complete with the projector [P_T] stated literally

    The claim relu-complete counts [rank (N_s P_T)], where [P_T] is the
    orthogonal projector onto [V-perp] and [V = span {u_H : H in T}].
    ReluClasses.v states [rank (N_s P_T) <= k] in the form of informal
    Lemma 3 ([completes]: [N = sum_{H in T} y_H u_H^T + (k outer
    products)]).  Here we state it through [V-perp] itself
    ([rank_on_perp]), prove the two forms equivalent
    ([completes_iff_rank_on_perp]), and restate the main theorem with the
    projector form ([relu_complete_proj]).

    Why [rank_on_perp N T k] is [rank (N P_T) <= k]: [P_T x] lies in
    [V-perp] for every [x], and [P_T] is the identity on [V-perp].  If
    [N x = sum_q a_q (l_q . x)] for every [x] in [V-perp], then
    [N P_T x = sum_q a_q (l_q . P_T x) = sum_q a_q ((P_T l_q) . x)] for
    every [x] ([P_T] is symmetric), so [N P_T] is a sum of [k] outer
    products [a_q (P_T l_q)^T], i.e. has rank at most [k].  Conversely, if
    [N P_T = sum_q a_q l_q^T], then for [x] in [V-perp] we have
    [N x = N P_T x = sum_q a_q (l_q . x)].  Only the values of [N] on
    [V-perp] matter: the image of [N P_T] is [N (V-perp)].

    The direction [rank_on_perp -> completes] needs [(V-perp)-perp = V]
    in finite dimension.  We prove it by Gram-Schmidt: every vector is a
    combination of the [u_H] ([H in T]) plus a vector of [V-perp]
    ([decompose], by induction on the number of vectors). *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg SignFlip RealActivations Limit ReluClasses ReluCompleteNec
  ReluComplete ReluCompleteIff.
Open Scope R_scope.

(** ** The two definitions *)

(** [x] lies in [V-perp]: orthogonal to the normal [u_H] of every [H] in [T]. *)
Definition perp (d m : nat) (Wu : mat) (T : nat -> bool) (x : vec) : Prop :=
  forall r, (r < m)%nat -> T r = true -> sum d (fun j => nrow d Wu r j * x j) = 0.

(** [N] restricted to [V-perp] is a sum of [k] outer products: this is
    [rank (N P_T) <= k] (see the header). *)
Definition rank_on_perp (d m : nat) (Wu : mat) (N : mat) (T : nat -> bool) (k : nat) : Prop :=
  exists (a l : nat -> vec), forall x, perp d m Wu T x -> forall o, (o < d)%nat ->
    mv d N x o = sum k (fun q => a q o * sum d (fun j => l q j * x j)).

(** ** Dot products and combinations of a family of vectors *)

(** [x] is orthogonal to every [u r] with [r < m] and [T r]. *)
Definition gperp (d m : nat) (u : nat -> vec) (T : nat -> bool) (x : vec) : Prop :=
  forall r, (r < m)%nat -> T r = true -> dot d (u r) x = 0.

(** The combination [sum_{r < m, T r} c_r u_r]. *)
Definition comb (m : nat) (T : nat -> bool) (c : nat -> R) (u : nat -> vec) : vec :=
  fun j => sum m (fun r => if T r then c r * u r j else 0).

Lemma comb_dot : forall d m T c u x,
  dot d (comb m T c u) x = sum m (fun r => if T r then c r * dot d (u r) x else 0).
Proof.
  intros. unfold dot, comb. rewrite dot_sum. apply sum_ext. intros r _.
  destruct (T r).
  - rewrite <- sum_scal_l. apply sum_ext. intros. ring.
  - apply sum_zero. intros. ring.
Qed.

Lemma comb_dot_perp : forall d m T c u x, gperp d m u T x -> dot d (comb m T c u) x = 0.
Proof.
  intros d m T c u x H. rewrite comb_dot. apply sum_zero. intros r Hr.
  destruct (T r) eqn:E; [rewrite (H r Hr E); ring|reflexivity].
Qed.

(** ** Gram-Schmidt: each vector of a family is a combination of the [u_r]
    plus a vector orthogonal to all of them (uniformly in the family, so
    that no choice is needed). *)
Lemma decompose : forall d (u : nat -> vec) (T : nat -> bool) m (w : nat -> vec),
  exists (c : nat -> nat -> R) (p : nat -> vec), forall o,
    (forall j, (j < d)%nat -> w o j = comb m T (c o) u j + p o j) /\ gperp d m u T (p o).
Proof.
  intros d u T m. induction m as [|m IH]; intros w.
  - exists (fun _ _ => 0), w. intros o. split.
    + intros j _. unfold comb. simpl. ring.
    + intros r Hr. lia.
  - destruct (IH w) as (c & p & Hcp).
    destruct (IH (fun _ => u m)) as (e0 & q0 & Heq).
    set (e := e0 O). set (q := q0 O).
    destruct (Heq O) as [Hum Hq]. fold e q in Hum, Hq. clear Heq.
    destruct (T m) eqn:ETm.
    2: { exists c, p. intros o. destruct (Hcp o) as [H1 H2]. split.
         - intros j Hj. rewrite H1 by exact Hj. unfold comb. simpl. rewrite ETm. ring.
         - intros r Hr HT. destruct (Nat.eq_dec r m) as [->|Hne]; [congruence|].
           apply H2; [lia|exact HT]. }
    destruct (Req_EM_T (dot d q q) 0) as [Hqq|Hqq].
    + (* [u m] already lies in the span of the earlier vectors *)
      pose proof (dot_self_zero d q Hqq) as Hq0.
      exists (fun o r => if Nat.eq_dec r m then 0 else c o r), p. intros o.
      destruct (Hcp o) as [H1 H2]. split.
      * intros j Hj. rewrite H1 by exact Hj. unfold comb. simpl. rewrite ETm.
        destruct (Nat.eq_dec m m) as [_|]; [|congruence].
        rewrite (sum_ext m (fun r => if T r then (if Nat.eq_dec r m then 0 else c o r) * u r j else 0)
                   (fun r => if T r then c o r * u r j else 0)); [ring|].
        intros r Hr. destruct (Nat.eq_dec r m); [lia|reflexivity].
      * intros r Hr HT. destruct (Nat.eq_dec r m) as [->|Hne]; [|apply H2; [lia|exact HT]].
        rewrite (dot_ext_l d (u m) (fun j => comb m T e u j + q j)) by exact Hum.
        rewrite dot_plus_l, (comb_dot_perp d m T e u (p o) H2).
        unfold dot. rewrite sum_zero; [ring|]. intros j Hj. rewrite (Hq0 j Hj). ring.
    + (* a new direction [q]: remove the [q]-component of [p] *)
      set (t := fun o => dot d (p o) q / dot d q q).
      exists (fun o r => if Nat.eq_dec r m then t o else c o r - t o * e r),
             (fun o j => p o j - t o * q j).
      intros o. destruct (Hcp o) as [H1 H2]. split.
      * intros j Hj. rewrite H1 by exact Hj. unfold comb. simpl. rewrite ETm.
        destruct (Nat.eq_dec m m) as [_|]; [|congruence].
        rewrite (sum_ext m (fun r => if T r then (if Nat.eq_dec r m then t o else c o r - t o * e r) * u r j else 0)
                   (fun r => (if T r then c o r * u r j else 0) - t o * (if T r then e r * u r j else 0))).
        2: { intros r Hr. destruct (Nat.eq_dec r m); [lia|]. destruct (T r); ring. }
        rewrite sum_minus, sum_scal_l. rewrite (Hum j Hj). unfold comb. ring.
      * intros r Hr HT. rewrite dot_axmy.
        destruct (Nat.eq_dec r m) as [->|Hne].
        -- rewrite (dot_ext_l d (u m) (fun j => comb m T e u j + q j) (p o)) by exact Hum.
           rewrite (dot_ext_l d (u m) (fun j => comb m T e u j + q j) q) by exact Hum.
           rewrite !dot_plus_l, (comb_dot_perp d m T e u (p o) H2), (comb_dot_perp d m T e u q Hq).
           unfold t. rewrite (dot_comm d q (p o)). field. exact Hqq.
        -- rewrite (H2 r ltac:(lia) HT), (Hq r ltac:(lia) HT). ring.
Qed.

(** ** The equivalence *)

(** For any family [u] of vectors: [N] is a combination of the [u_r]
    ([r] in [T]) plus [k] outer products iff [N] agrees on the vectors
    orthogonal to those [u_r] with a sum of [k] outer products. *)
Lemma comb_iff_on_gperp : forall d m (u : nat -> vec) (N : mat) T k,
  (exists (y a l : nat -> vec), forall o j, (o < d)%nat -> (j < d)%nat ->
     N o j = comb m T (fun r => y r o) u j + sum k (fun q => a q o * l q j)) <->
  (exists (a l : nat -> vec), forall x, gperp d m u T x -> forall o, (o < d)%nat ->
     mv d N x o = sum k (fun q => a q o * sum d (fun j => l q j * x j))).
Proof.
  intros d m u N T k. split.
  - intros (y & a & l & H). exists a, l. intros x Hx o Ho.
    unfold mv. rewrite (sum_ext d _ (fun j => (comb m T (fun r => y r o) u j
                                             + sum k (fun q => a q o * l q j)) * x j))
      by (intros j Hj; rewrite (H o j Ho Hj); reflexivity).
    rewrite (sum_ext d _ (fun j => comb m T (fun r => y r o) u j * x j
                                   + sum k (fun q => a q o * l q j) * x j)) by (intros; ring).
    rewrite sum_plus. fold (dot d (comb m T (fun r => y r o) u) x).
    rewrite (comb_dot_perp d m T _ _ x Hx), Rplus_0_l.
    rewrite (dot_sum d k (fun q j => a q o * l q j) x). apply sum_ext. intros q _.
    rewrite <- sum_scal_l. apply sum_ext. intros. ring.
  - intros (a & l & H).
    set (g := fun o j => N o j - sum k (fun q => a q o * l q j)).
    (* each row of [g] (o < d) is orthogonal to [V-perp] *)
    assert (Hg : forall o x, (o < d)%nat -> gperp d m u T x -> dot d (g o) x = 0).
    { intros o x Ho Hx. unfold g, dot.
      rewrite (sum_ext d _ (fun j => N o j * x j - sum k (fun q => a q o * l q j) * x j)) by (intros; ring).
      rewrite sum_minus, (dot_sum d k (fun q j => a q o * l q j) x).
      pose proof (H x Hx o Ho) as Ex. unfold mv in Ex. rewrite Ex.
      rewrite (sum_ext k (fun r => sum d (fun j => a r o * l r j * x j))
                         (fun q => a q o * sum d (fun j => l q j * x j)));
        [ring|intros; rewrite <- sum_scal_l; apply sum_ext; intros; ring]. }
    destruct (decompose d u T m g) as (c & p & Hcp).
    exists (fun r o => c o r), a, l. intros o j Ho Hj.
    destruct (Hcp o) as [H1 H2].
    (* the orthogonal part [p o] of the row [g o] is zero *)
    assert (Hpp : dot d (p o) (p o) = 0).
    { pose proof (Hg o (p o) Ho H2) as E.
      rewrite (dot_ext_l d (g o) (fun j => comb m T (c o) u j + p o j)) in E by exact H1.
      rewrite dot_plus_l, (comb_dot_perp d m T (c o) u (p o) H2) in E. lra. }
    pose proof (H1 j Hj) as E. rewrite (dot_self_zero d (p o) Hpp j Hj), Rplus_0_r in E.
    unfold g, comb in E |- *. cbv beta. lra.
Qed.

Theorem completes_iff_rank_on_perp : forall d m Wu N T k,
  completes d m Wu N T k <-> rank_on_perp d m Wu N T k.
Proof. intros d m Wu N T k. exact (comb_iff_on_gperp d m (nrow d Wu) N T k). Qed.

(** ** relu-complete with the projector form *)

(** [m* <= m'] with [rank (N_s P_T) <= k] stated on [V-perp]. *)
Definition width_suffices_proj (d m m' : nat) (M Wd Wu : mat) (bu : vec) : Prop :=
  exists (s T : nat -> bool) (k : nat),
    (forall r, (r < m)%nat -> T r = true -> kink d m Wd Wu bu r = true) /\
    rank_on_perp d m Wu (Nmat d m M Wd Wu bu s) T k /\
    (count m (kink d m Wd Wu bu) + count m T + 2 * k <= m')%nat.

Lemma width_suffices_iff_proj : forall d m m' M Wd Wu bu,
  width_suffices d m m' M Wd Wu bu <-> width_suffices_proj d m m' M Wd Wu bu.
Proof.
  intros. unfold width_suffices, width_suffices_proj. split.
  - intros (s & T & k & H1 & H2 & H3). exists s, T, k.
    split; [exact H1|]. split; [apply completes_iff_rank_on_perp; exact H2|exact H3].
  - intros (s & T & k & H1 & H2 & H3). exists s, T, k.
    split; [exact H1|]. split; [apply completes_iff_rank_on_perp; exact H2|exact H3].
Qed.

Theorem relu_complete_proj : forall d m m' M Wd Wu bu bd,
  realised d m m' M Wd Wu bu bd <-> width_suffices_proj d m m' M Wd Wu bu.
Proof.
  intros. rewrite relu_complete. apply width_suffices_iff_proj.
Qed.
