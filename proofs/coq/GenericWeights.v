(** * [generic-weights]: the algebraic half of "for almost every weight".

    Several claims hold for almost every weight (W_down, W_up).  Each failing
    set lies in the zero set of one polynomial in the weights:
    (i)   rank W_up < min(m, d): a maximal minor of W_up;
    (ii)  M + W_down[:,S] W_up[S,:] singular: det (M + W_S U_S);
    (iii) (d >= 2) a zero row, two collinear rows, a zero column: a
          coordinate of the row, a 2 x 2 minor of the two rows, a coordinate
          of the column.
    The zero set of a polynomial that is not identically zero is Lebesgue
    null (proofs/informal/generic-weights.md); that step is measure theory
    and is not formalised here.  What is formal is that none of these
    polynomials is identically zero, phrased without determinants: an
    explicit weight where the property holds.
    (i)   W_up = the m x d matrix with ones on the diagonal has row rank
          min(m, d) ([generic_rank_witness], with [Rank.row_rank]);
    (ii)  at W_down = 0 (any W_up) every M + W_S U_S is M, which has a
          trivial kernel when M does ([generic_pieces_witness]); with M = I
          these are the pieces I + W_S U_S of a residual relu block
          ([DepthNarrow.piece], [generic_pieces_identity]);
    (iii) for d >= 2, the rows u_l = (1, l, 0, ...) and the columns
          w_l = e_1 are nondegenerate ([generic_nondegenerate_witness]).
    For (i), (ii) and (iii) the empty-interior form is also proved without
    measure theory, in the style of NonGeneric.v: every [W_up] has
    arbitrarily close [W'_up] of rank [min(m, d)] ([generic_rank_dense]);
    for invertible [M] every
    [W_down] has arbitrarily close [W'_down] with every piece invertible
    ([generic_pieces_dense]: along [t W_down] each [S] has at most [d]
    singular values of [t]), and for [d >= 2] every weight has arbitrarily
    close nondegenerate weights ([generic_nondegenerate_dense]: along the
    line [W + delta (witness)] each polynomial of (iii) is a nonzero
    polynomial of degree at most 2 in [delta]).
    Both hypotheses are needed: for M = 0 the piece of S = {} is 0 for
    every weight, and in d = 1 two rows are always collinear
    ([generic_weights_needs_M_invertible_ii], [generic_weights_needs_d_ge_2_iii]). *)

From Coq Require Import Reals Lra Lia List Classical.
From SkipAbsorption Require Import Linalg Width Rank DepthStack DepthNarrow NonGeneric.
Import ListNotations.
Open Scope R_scope.

(** ** Definitions *)

(** [M + W_down[:,S] W_up[S,:]] for a block of width [m] and a set [S] of units. *)
Definition skip_piece (m : nat) (M : mat) (S : nat -> bool) (Wd Wu : mat) : mat :=
  fun i j => M i j + sum m (fun l => if S l then Wd i l * Wu l j else 0).

(** Nondegenerate weights: every row [u_l] of [W_up] is nonzero, no row is a
    real multiple of another one, and every column [w_l] of [W_down] is
    nonzero. *)
Definition nondegenerate_weights (d m : nat) (Wd Wu : mat) : Prop :=
  (forall l, (l < m)%nat -> exists j, (j < d)%nat /\ Wu l j <> 0) /\
  (forall l l', (l < m)%nat -> (l' < m)%nat -> l <> l' ->
     ~ exists c : R, forall j, (j < d)%nat -> Wu l' j = c * Wu l j) /\
  (forall l, (l < m)%nat -> exists i, (i < d)%nat /\ Wd i l <> 0).

Lemma ident_trivial_kernel : forall d, trivial_kernel d ident.
Proof.
  intros d y Hy j Hj. rewrite <- (mv_ident d y j Hj). exact (Hy j Hj).
Qed.

(** ** (i) A maximal minor of W_up is not identically zero *)

Lemma generic_rank_witness : forall d m : nat,
  row_rank d m (fun l j => kron l j) (Nat.min m d).
Proof.
  intros d m. pose proof (Nat.le_min_l m d). pose proof (Nat.le_min_r m d).
  exists (fun k => k). split; [intros k Hk; lia|]. split.
  - intros c Hc k Hk. specialize (Hc k ltac:(lia)).
    rewrite (sum_ext _ _ (fun k' => c k' * kron k k')) in Hc
      by (intros k' _; rewrite kron_sym; reflexivity).
    rewrite sum_kron_r in Hc by exact Hk. exact Hc.
  - intros i Hi. destruct (Nat.lt_ge_cases i (Nat.min m d)) as [Hr|Hr].
    + exists (fun k => kron i k). intros j Hj.
      rewrite sum_kron_l by exact Hr. reflexivity.
    + (* then [min m d = d <= i], so row [i] is zero on [0 .. d-1] *)
      assert (Hdi : (d <= i)%nat).
      { destruct (Nat.le_ge_cases m d) as [Hmd|Hmd].
        - rewrite Nat.min_l in Hr by exact Hmd. lia.
        - rewrite Nat.min_r in Hr by exact Hmd. exact Hr. }
      exists (fun _ => 0). intros j Hj.
      rewrite sum_zero by (intros; ring).
      unfold kron. destruct (Nat.eq_dec i j); [lia|reflexivity].
Qed.

(** ** (ii) det (M + W_S U_S) is not identically zero *)

Lemma generic_pieces_witness : forall (d m : nat) (M Wu : mat) (S : nat -> bool),
  trivial_kernel d M -> trivial_kernel d (skip_piece m M S (fun _ _ => 0) Wu).
Proof.
  intros d m M Wu S HM y Hy j Hj. apply (HM y); [|exact Hj].
  intros i Hi. rewrite <- (Hy i Hi). unfold mv, skip_piece. apply sum_ext.
  intros k _. rewrite (sum_zero m) by (intros l _; destruct (S l); ring). ring.
Qed.

(** The pieces [I + W_S U_S] of a residual relu block ([DepthNarrow.piece]). *)
Lemma generic_pieces_identity : forall d m : nat,
  exists Wd Wu : mat, forall S : nat -> bool, trivial_kernel d (piece d m S Wd Wu).
Proof.
  intros d m. exists (fun _ _ => 0), (fun _ _ => 0). intros S.
  exact (generic_pieces_witness d m ident (fun _ _ => 0) S (ident_trivial_kernel d)).
Qed.

(** ** (ii) without measure theory: invertible pieces are dense *)

(** Along the line [t W_down] the piece is [M + t W_S U_S].  For a fixed [S]
    at most [d] values of [t] make it singular: kernel vectors for distinct
    [t] are linearly independent ([kernel_vectors_indep]), and [R^d] holds at
    most [d] independent vectors ([Rank.indep_le_dim]).  So finitely many [t]
    are bad for some [S], and a scaling [(1 + delta) W_down] avoids them. *)

(** [W_down[:,S] W_up[S,:]] *)
Definition sel_prod (m : nat) (S : nat -> bool) (Wd Wu : mat) : mat :=
  fun i j => sum m (fun l => if S l then Wd i l * Wu l j else 0).

(** Kernel vectors of [M + t_k P] for distinct [t_k] are independent
    (for [M] with a trivial kernel). *)
Lemma kernel_vectors_indep : forall d (M P : mat) n (t : nat -> R) (y : nat -> vec),
  trivial_kernel d M ->
  (forall i k, (i < n)%nat -> (k < n)%nat -> t i = t k -> i = k) ->
  (forall k, (k < n)%nat -> exists j, (j < d)%nat /\ y k j <> 0) ->
  (forall k i, (k < n)%nat -> (i < d)%nat -> mv d M (y k) i + t k * mv d P (y k) i = 0) ->
  indep d n y.
Proof.
  intros d M P n t y HM. induction n as [|n IH]; intros Hdist Hnz Hker.
  - intros c _ k Hk. lia.
  - intros c Hc.
    assert (Ht : forall k, (k < S n)%nat -> t k <> 0).
    { intros k Hk E. destruct (Hnz k Hk) as (j & Hj & Hy). apply Hy.
      apply (HM (y k)); [|exact Hj]. intros i Hi. pose proof (Hker k i Hk Hi) as K.
      rewrite E in K. lra. }
    set (c' := fun k => c k / t k).
    assert (Hc' : forall j, (j < d)%nat -> sum (S n) (fun k => c' k * y k j) = 0).
    { apply (HM (fun j => sum (S n) (fun k => c' k * y k j))).
      intros i Hi. rewrite mv_lin.
      rewrite (sum_ext _ _ (fun k => - (c k * mv d P (y k) i))).
      - rewrite sum_opp, <- mv_lin. unfold mv. rewrite sum_zero; [ring|].
        intros j Hj. rewrite (Hc j Hj). ring.
      - intros k Hk. pose proof (Hker k i Hk Hi) as K. pose proof (Ht k Hk).
        unfold c'. replace (mv d M (y k) i) with (- (t k * mv d P (y k) i)) by lra.
        field. assumption. }
    assert (Hlow : forall k, (k < n)%nat -> c k = 0).
    { assert (Hcomb : forall j, (j < d)%nat ->
                sum n (fun k => (c k - t n * c' k) * y k j) = 0).
      { intros j Hj. pose proof (Hc j Hj) as E1. pose proof (Hc' j Hj) as E2. simpl in E1, E2.
        assert (Hn : c n - t n * c' n = 0) by (unfold c'; field; apply Ht; lia).
        rewrite (sum_ext n _ (fun k => c k * y k j - t n * (c' k * y k j))) by (intros; ring).
        rewrite sum_minus, sum_scal_l.
        replace (sum n (fun k => c k * y k j)) with (- (c n * y n j)) by lra.
        replace (sum n (fun k => c' k * y k j)) with (- (c' n * y n j)) by lra.
        transitivity (- ((c n - t n * c' n) * y n j)); [ring|rewrite Hn; ring]. }
      assert (HI := IH ltac:(intros i' k' Hi' Hk' E; apply Hdist; [lia|lia|exact E])
                       ltac:(intros k' Hk'; apply Hnz; lia)
                       ltac:(intros k' i' Hk' Hi'; apply Hker; lia) (fun k => c k - t n * c' k) Hcomb).
      intros k Hk. specialize (HI k Hk). simpl in HI.
      assert (Hne : t k <> t n) by (intros E; pose proof (Hdist k n ltac:(lia) ltac:(lia) E); lia).
      pose proof (Ht k ltac:(lia)) as Htk. unfold c' in HI.
      assert (E : c k * ((t k - t n) / t k) = 0) by (rewrite <- HI; field; exact Htk).
      apply Rmult_integral in E. destruct E as [E|E]; [exact E|].
      exfalso. unfold Rdiv in E. apply Rmult_integral in E. destruct E as [E|E].
      + apply Hne. lra.
      + apply (Rinv_neq_0_compat (t k) Htk). exact E. }
    intros k Hk. destruct (Nat.eq_dec k n) as [->|Hkn]; [|apply Hlow; lia].
    destruct (Hnz n ltac:(lia)) as (j & Hj & Hy).
    pose proof (Hc j Hj) as E. simpl in E.
    rewrite sum_zero in E by (intros k' Hk'; rewrite (Hlow k' Hk'); ring).
    rewrite Rplus_0_l in E. apply Rmult_integral in E. destruct E as [E|E]; [lra|]. exfalso. apply Hy. exact E.
Qed.

(** A matrix without trivial kernel has a nonzero kernel vector. *)
Lemma not_trivial_kernel : forall d A, ~ trivial_kernel d A ->
  exists y : vec, (forall i, (i < d)%nat -> mv d A y i = 0) /\ exists j, (j < d)%nat /\ y j <> 0.
Proof.
  intros d A H. apply NNPP. intros Hn. apply H. intros y Hy j Hj.
  apply NNPP. intros Hyj. apply Hn. exists y. split; [exact Hy|]. exists j. split; assumption.
Qed.

(** For [M] with a trivial kernel, at most [d] reals [t] make [M + t P] singular. *)
Lemma singular_shifts_few : forall d (M P : mat) (L : list R),
  trivial_kernel d M -> NoDup L ->
  (forall t, In t L -> ~ trivial_kernel d (fun i j => M i j + t * P i j)) ->
  (length L <= d)%nat.
Proof.
  intros d M P L HM HL Hbad.
  destruct (finite_choice vec (fun _ => 0)
              (fun k y => (forall i, (i < d)%nat -> mv d (fun i j => M i j + nth k L 0 * P i j) y i = 0) /\
                          exists j, (j < d)%nat /\ y j <> 0) (length L)) as (y & Hy).
  { intros k Hk. apply not_trivial_kernel, Hbad. apply nth_In. exact Hk. }
  apply (indep_le_dim d (length L) y).
  apply (kernel_vectors_indep d M P (length L) (fun k => nth k L 0) y HM).
  - intros i k Hi Hk E. exact (proj1 (NoDup_nth L 0) HL i k Hi Hk E).
  - intros k Hk. exact (proj2 (Hy k Hk)).
  - intros k i Hk Hi. transitivity (mv d (fun i j => M i j + nth k L 0 * P i j) (y k) i);
      [|exact (proj1 (Hy k Hk) i Hi)]. unfold mv.
    rewrite <- sum_scal_l, <- sum_plus. apply sum_ext. intros. ring.
Qed.

(** A property with at most [d] distinct witnesses has them all in one list. *)
Lemma few_in_a_list : forall (Q : R -> Prop) (d : nat),
  (forall L, NoDup L -> (forall t, In t L -> Q t) -> (length L <= d)%nat) ->
  exists L : list R, forall t, Q t -> In t L.
Proof.
  intros Q d Hfew.
  assert (Hgrow : forall n, exists L, NoDup L /\ (forall t, In t L -> Q t) /\
                              ((length L = n) \/ forall t, Q t -> In t L)).
  { induction n as [|n (L & HL & HQ & Hlen)].
    - exists []. split; [constructor|]. split; [intros t []|]. left. reflexivity.
    - destruct Hlen as [Hlen|Hall]; [|exists L; repeat split; auto].
      destruct (classic (exists t, Q t /\ ~ In t L)) as [(t & Ht & Hn)|Hno].
      + exists (t :: L). split; [constructor; assumption|]. split.
        * intros x [<-|Hx]; [exact Ht|exact (HQ x Hx)].
        * left. simpl. rewrite Hlen. reflexivity.
      + exists L. split; [exact HL|]. split; [exact HQ|]. right. intros x Hx.
        apply NNPP. intros Hnx. apply Hno. exists x. split; assumption. }
  destruct (Hgrow (S d)) as (L & HL & HQ & [Hlen|Hall]).
  - pose proof (Hfew L HL HQ). lia.
  - exists L. exact Hall.
Qed.

(** One list of reals holds every [t] that makes some [M + t W_T U_T] singular, [T] in [Ts]. *)
Lemma singular_scalings_listed : forall d m (M Wd Wu : mat) (Ts : list (nat -> bool)),
  trivial_kernel d M ->
  exists L : list R, forall T t, In T Ts ->
    ~ trivial_kernel d (fun i j => M i j + t * sel_prod m T Wd Wu i j) -> In t L.
Proof.
  intros d m M Wd Wu Ts HM. induction Ts as [|T Ts (L & HL)].
  - exists []. intros T t [].
  - destruct (few_in_a_list (fun t => ~ trivial_kernel d (fun i j => M i j + t * sel_prod m T Wd Wu i j)) d)
      as (L1 & HL1).
    { intros L' HN HQ. exact (singular_shifts_few d M (sel_prod m T Wd Wu) L' HM HN HQ). }
    exists (L1 ++ L). intros T' t [<-|HT] Hs; apply in_or_app; [left; exact (HL1 t Hs)|right; exact (HL T' t HT Hs)].
Qed.

(** [generic-weights] (ii), empty interior: for [M] with a trivial kernel,
    every [W_down] has, within any [eps > 0] entrywise, a [W'_down] (a
    scaling [(1 + delta) W_down]) for which every [M + W'_S U_S] has a trivial
    kernel.  So the weights with some singular piece contain no open set. *)
Theorem generic_pieces_dense : forall (d m : nat) (M Wd Wu : mat) (eps : R),
  trivial_kernel d M -> 0 < eps ->
  exists Wd' : mat,
    (forall i l, (i < d)%nat -> (l < m)%nat -> Rabs (Wd' i l - Wd i l) < eps) /\
    forall S : nat -> bool, trivial_kernel d (skip_piece m M S Wd' Wu).
Proof.
  intros d m M Wd Wu eps HM Heps.
  destruct (singular_scalings_listed d m M Wd Wu (subsets m) HM) as (bad & Hbad).
  destruct (scaling_avoids d m Wd bad eps Heps) as (delta & Hnin & Hc).
  exists (fun i l => (1 + delta) * Wd i l). split; [exact Hc|].
  intros S. destruct (subsets_complete m S) as (T & HT & HST).
  apply NNPP. intros Hs. apply Hnin. apply (Hbad T (1 + delta) HT).
  intros Hk. apply Hs. intros y Hy j Hj. apply (Hk y); [|exact Hj].
  intros i Hi. transitivity (mv d (skip_piece m M S (fun i l => (1 + delta) * Wd i l) Wu) y i);
    [|exact (Hy i Hi)]. unfold mv, skip_piece, sel_prod. apply sum_ext.
  intros k _. f_equal. rewrite <- sum_scal_l. f_equal. apply sum_ext. intros l Hl.
  rewrite (HST l Hl). destruct (T l); ring.
Qed.

(** For a stack: within any [eps] of every list of layers there is one (same
    widths, same [W_up], each [W_down] moved by less than [eps]) all of whose
    pieces [I + W_l D U_l] are invertible: the hypothesis [pieces_invertible]
    of depth-narrow fails only on a set with empty interior. *)
Corollary generic_stack_pieces_dense : forall (d : nat) (layers : list layer) (eps : R), 0 < eps ->
  exists layers' : list layer,
    Forall2 (fun L L' => width L' = width L /\ Wup L' = Wup L /\
               forall i l, (i < d)%nat -> (l < width L)%nat -> Rabs (Wdown L' i l - Wdown L i l) < eps)
            layers layers' /\
    Forall (layer_pieces_invertible d) layers'.
Proof.
  intros d layers eps Heps. induction layers as [|L layers (ls & H2 & HF)].
  - exists []. split; constructor.
  - destruct (generic_pieces_dense d (width L) ident (Wdown L) (Wup L) eps (ident_trivial_kernel d) Heps)
      as (Wd' & Hc & Hp).
    exists (mk_layer (width L) Wd' (Wup L) :: ls). split.
    + constructor; [|exact H2]. simpl. split; [reflexivity|]. split; [reflexivity|exact Hc].
    + constructor; [|exact HF]. intros S. exact (Hp S).
Qed.

(** ** (i) without measure theory: maximal rank is dense *)

(** [generic-weights] (i), empty interior: every [W_up] has, within any
    [eps > 0] entrywise, a [W'_up = W_up + delta E] ([E] with ones on the
    diagonal) of row rank [min(m, d)].  Its first [r = min(m, d)] rows are
    independent as soon as [delta I + A] has a trivial kernel, [A] the
    transposed leading [r x r] block of [W_up], i.e. as soon as [1/delta]
    avoids the at most [r] values [t] making [I + t A] singular
    ([singular_shifts_few]). *)
Theorem generic_rank_dense : forall (d m : nat) (Wu : mat) (eps : R), 0 < eps ->
  exists Wu' : mat,
    (forall l j, (l < m)%nat -> (j < d)%nat -> Rabs (Wu' l j - Wu l j) < eps) /\
    row_rank d m Wu' (Nat.min m d).
Proof.
  intros d m Wu eps Heps.
  pose proof (Nat.le_min_l m d) as Hrm. pose proof (Nat.le_min_r m d) as Hrd.
  set (r := Nat.min m d) in *.
  set (P := fun i j : nat => Wu j i).
  destruct (few_in_a_list (fun t => ~ trivial_kernel r (fun i j => ident i j + t * P i j)) r) as (Lt & HLt).
  { intros L HN HQ. exact (singular_shifts_few r ident P L (ident_trivial_kernel r) HN HQ). }
  destruct (avoid_finite (map (fun b => 1 + b) (map Rinv Lt)) (eps / 2) ltac:(lra))
    as (delta & (Hd0 & Hd1) & Hnin).
  assert (Hnin' : ~ In (/ delta) Lt).
  { intros H. apply Hnin. apply in_map_iff. exists delta. split; [reflexivity|].
    apply in_map_iff. exists (/ delta). split; [field; lra|exact H]. }
  set (Wu' := fun l j => Wu l j + delta * kron l j).
  assert (Hind : indep d r (fun k => Wu' k)).
  { intros c Hc.
    assert (Hker : trivial_kernel r (fun i j => ident i j + / delta * P i j)).
    { apply NNPP. intros Hs. exact (Hnin' (HLt (/ delta) Hs)). }
    intros k Hk. apply (Hker c); [|exact Hk].
    intros i Hi. specialize (Hc i ltac:(lia)).
    transitivity (/ delta * sum r (fun k => c k * Wu' k i)); [|rewrite Hc; ring].
    unfold mv, Wu', P, ident. rewrite <- sum_scal_l. apply sum_ext. intros l _.
    rewrite (kron_sym i l). field. lra. }
  exists Wu'. split.
  - intros l j _ _. unfold Wu'.
    replace (Wu l j + delta * kron l j - Wu l j) with (delta * kron l j) by ring.
    rewrite Rabs_mult, (Rabs_right delta) by lra. unfold kron.
    destruct (Nat.eq_dec l j); [rewrite Rabs_R1|rewrite Rabs_R0]; lra.
  - exists (fun k => k). split; [intros k Hk; lia|]. split; [exact Hind|].
    intros i Hi. destruct (Nat.lt_ge_cases i r) as [Hir|Hir].
    + exists (fun k => kron i k). intros j Hj. rewrite sum_kron_l by exact Hir. reflexivity.
    + assert (Er : r = d).
      { unfold r in *. destruct (Nat.le_ge_cases m d) as [Hmd|Hmd].
        - rewrite Nat.min_l in Hir by exact Hmd. lia.
        - rewrite Nat.min_r by exact Hmd. reflexivity. }
      destruct (basis_completion d r (fun k => Wu' k) Hind) as (_ & L & Hsp).
      destruct (Hsp (Wu' i)) as (c & Hcs). exists c. intros j Hj. rewrite <- (Hcs j Hj).
      rewrite Er. apply sum_ext. intros k Hk. unfold append.
      replace (k <? d)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hk). reflexivity.
Qed.

(** ** (iii) For d >= 2 the nondegeneracy polynomials are not identically zero *)

Definition witness_up : mat := fun l j =>
  match j with O => 1 | 1%nat => INR l | _ => 0 end.
Definition witness_down : mat := fun i _ => kron i 0.

Lemma generic_nondegenerate_witness : forall d m : nat, (2 <= d)%nat ->
  nondegenerate_weights d m witness_down witness_up.
Proof.
  intros d m Hd. split; [|split].
  - intros l _. exists 0%nat. split; [lia|]. unfold witness_up. lra.
  - intros l l' _ _ Hne (c & Hc).
    pose proof (Hc 0%nat ltac:(lia)) as H0. pose proof (Hc 1%nat ltac:(lia)) as H1.
    unfold witness_up in H0, H1.
    assert (Hc1 : c = 1) by lra. rewrite Hc1, Rmult_1_l in H1.
    apply Hne. symmetry. apply INR_eq. exact H1.
  - intros l _. exists 0%nat. split; [lia|]. unfold witness_down, kron.
    destruct (Nat.eq_dec 0 0); [lra|lia].
Qed.

(** ** (iii) without measure theory: nondegenerate weights are dense *)

(** The real roots of [a x^2 + b x + c] with [a <> 0] are among the two
    values of the quadratic formula. *)
Lemma quadratic_roots : forall a b c x, a <> 0 -> a * x * x + b * x + c = 0 ->
  x = (- b + sqrt (b * b - 4 * a * c)) / (2 * a) \/ x = (- b - sqrt (b * b - 4 * a * c)) / (2 * a).
Proof.
  intros a b c x Ha Hx.
  assert (He : b * b - 4 * a * c = Rsqr (2 * a * x + b)) by (unfold Rsqr; nra).
  rewrite He, sqrt_Rsqr_abs.
  destruct (Rcase_abs (2 * a * x + b)) as [Hn|Hp].
  - right. rewrite Rabs_left by exact Hn. field. exact Ha.
  - left. rewrite Rabs_right by exact Hp. field. exact Ha.
Qed.

(** The two candidate roots of the minor of rows [l], [k] of
    [Wu + delta witness_up], as a quadratic in [delta]. *)
Definition pair_roots (Wu : mat) (l k : nat) : list R :=
  let a := INR k - INR l in
  let b := Wu l 0%nat * INR k + Wu k 1%nat - Wu l 1%nat - INR l * Wu k 0%nat in
  let c := Wu l 0%nat * Wu k 1%nat - Wu l 1%nat * Wu k 0%nat in
  [(- b + sqrt (b * b - 4 * a * c)) / (2 * a); (- b - sqrt (b * b - 4 * a * c)) / (2 * a)].

(** Every [delta] outside this list makes [(Wd + delta witness_down, Wu + delta witness_up)]
    nondegenerate. *)
Definition degenerate_shifts (m : nat) (Wd Wu : mat) : list R :=
  flat_map (fun l => [- Wu l 0%nat; - Wd 0%nat l] ++ flat_map (fun k => pair_roots Wu l k) (seq 0 m))
           (seq 0 m).

Lemma nondegenerate_off_shifts : forall d m (Wd Wu : mat) delta, (2 <= d)%nat ->
  ~ In delta (degenerate_shifts m Wd Wu) ->
  nondegenerate_weights d m (fun i l => Wd i l + delta * witness_down i l)
                            (fun l j => Wu l j + delta * witness_up l j).
Proof.
  intros d m Wd Wu delta Hd Hnin.
  assert (Hin : forall l x, (l < m)%nat ->
            In x ([- Wu l 0%nat; - Wd 0%nat l] ++ flat_map (fun k => pair_roots Wu l k) (seq 0 m)) ->
            In x (degenerate_shifts m Wd Wu)).
  { intros l x Hl Hx. unfold degenerate_shifts. apply in_flat_map. exists l.
    split; [apply in_seq; lia|exact Hx]. }
  split; [|split].
  - intros l Hl. exists 0%nat. split; [lia|]. unfold witness_up. intros H0.
    apply Hnin, (Hin l); [exact Hl|]. left. lra.
  - intros l k Hl Hk Hne (c & Hc).
    pose proof (Hc 0%nat ltac:(lia)) as H0. pose proof (Hc 1%nat ltac:(lia)) as H1.
    unfold witness_up in H0, H1.
    assert (Ha : INR k - INR l <> 0).
    { intros E. apply Hne. apply INR_eq. lra. }
    assert (Hq : (INR k - INR l) * delta * delta
                 + (Wu l 0%nat * INR k + Wu k 1%nat - Wu l 1%nat - INR l * Wu k 0%nat) * delta
                 + (Wu l 0%nat * Wu k 1%nat - Wu l 1%nat * Wu k 0%nat) = 0).
    { transitivity ((Wu l 0%nat + delta * 1) * (Wu k 1%nat + delta * INR k)
                    - (Wu l 1%nat + delta * INR l) * (Wu k 0%nat + delta * 1)); [ring|].
      rewrite H0, H1. ring. }
    apply Hnin, (Hin l); [exact Hl|]. right. right. apply in_flat_map. exists k.
    split; [apply in_seq; lia|]. unfold pair_roots.
    destruct (quadratic_roots _ _ _ _ Ha Hq) as [E|E]; rewrite <- E; [left|right; left]; reflexivity.
  - intros l Hl. exists 0%nat. split; [lia|]. unfold witness_down, kron.
    destruct (Nat.eq_dec 0 0) as [_|]; [|lia]. intros H0.
    apply Hnin, (Hin l); [exact Hl|]. right. left. lra.
Qed.

Lemma witness_bound : forall m l j, (l < m)%nat ->
  Rabs (witness_up l j) < INR m + 1 /\ forall i, Rabs (witness_down i l) < INR m + 1.
Proof.
  intros m l j Hl. pose proof (lt_INR l m Hl) as Hlm. pose proof (pos_INR l) as Hl0.
  split.
  - unfold witness_up. destruct j as [|[|j]].
    + rewrite Rabs_R1. lra.
    + rewrite Rabs_right by lra. lra.
    + rewrite Rabs_R0. lra.
  - intros i. unfold witness_down, kron. destruct (Nat.eq_dec i 0).
    + rewrite Rabs_R1. lra.
    + rewrite Rabs_R0. lra.
Qed.

(** [generic-weights] (iii), empty interior: for [d >= 2], every weight
    [(W_down, W_up)] has, within any [eps > 0] entrywise, a nondegenerate
    weight, namely [(W_down + delta witness_down, W_up + delta witness_up)]
    for a small [delta] outside the finite list [degenerate_shifts] (along
    this line each polynomial of (iii) is a nonzero polynomial of degree at
    most 2 in [delta]).  So the degenerate weights contain no open set. *)
Theorem generic_nondegenerate_dense : forall (d m : nat) (Wd Wu : mat) (eps : R),
  (2 <= d)%nat -> 0 < eps ->
  exists Wd' Wu' : mat,
    (forall i l, (i < d)%nat -> (l < m)%nat -> Rabs (Wd' i l - Wd i l) < eps) /\
    (forall l j, (l < m)%nat -> (j < d)%nat -> Rabs (Wu' l j - Wu l j) < eps) /\
    nondegenerate_weights d m Wd' Wu'.
Proof.
  intros d m Wd Wu eps Hd Heps.
  pose proof (pos_INR m) as Hm.
  destruct (avoid_finite (map (fun b => 1 + b) (degenerate_shifts m Wd Wu)) (eps / (INR m + 1))
              ltac:(apply Rdiv_lt_0_compat; lra)) as (delta & (Hd0 & Hd1) & Hnin).
  assert (Hnin' : ~ In delta (degenerate_shifts m Wd Wu)).
  { intros H. apply Hnin. apply in_map_iff. exists delta. split; [reflexivity|exact H]. }
  assert (Hsmall : forall w, Rabs w < INR m + 1 -> Rabs (delta * w) < eps).
  { intros w Hw. rewrite Rabs_mult, (Rabs_right delta) by lra.
    apply Rlt_le_trans with (delta * (INR m + 1)).
    - apply Rmult_lt_compat_l; lra.
    - apply Rmult_le_reg_r with (/ (INR m + 1)).
      + apply Rinv_0_lt_compat. lra.
      + replace (delta * (INR m + 1) * / (INR m + 1)) with delta by (field; lra). exact Hd1. }
  exists (fun i l => Wd i l + delta * witness_down i l), (fun l j => Wu l j + delta * witness_up l j).
  split; [|split].
  - intros i l _ Hl. replace (Wd i l + delta * witness_down i l - Wd i l) with (delta * witness_down i l) by ring.
    apply Hsmall. exact (proj2 (witness_bound m l 0 Hl) i).
  - intros l j Hl _. replace (Wu l j + delta * witness_up l j - Wu l j) with (delta * witness_up l j) by ring.
    apply Hsmall. exact (proj1 (witness_bound m l j Hl)).
  - apply nondegenerate_off_shifts; assumption.
Qed.

(** ** The three witnesses together *)

(** [generic-weights], algebraic part: for every [d] and [m], every invertible
    [M] (trivial kernel) and [d >= 2], each of the three properties holds at
    some weight, so none of the polynomials whose zero sets contain the
    failing weights is the zero polynomial. *)
Theorem generic_weights_witnesses :
  forall (d m : nat) (M : mat)
         (M_invertible_ii : trivial_kernel d M)
         (d_ge_2_iii : (2 <= d)%nat),
    (exists Wu : mat, row_rank d m Wu (Nat.min m d)) /\
    (exists Wd Wu : mat, forall S : nat -> bool, trivial_kernel d (skip_piece m M S Wd Wu)) /\
    (exists Wd Wu : mat, nondegenerate_weights d m Wd Wu).
Proof.
  intros d m M M_invertible_ii d_ge_2_iii. split; [|split].
  - exists (fun l j => kron l j). apply generic_rank_witness.
  - exists (fun _ _ => 0), (fun _ _ => 0). intros S.
    apply generic_pieces_witness. exact M_invertible_ii.
  - exists witness_down, witness_up. apply generic_nondegenerate_witness. exact d_ge_2_iii.
Qed.

(** ** Empty interior: the main theorem *)

(** [generic-weights] without measure theory: for every [d], [m], every
    invertible [M] (trivial kernel) and [d >= 2], every weight
    [(W_down, W_up)] and every [eps > 0], within [eps] entrywise there is a
    [W'_up] of row rank [min(m, d)], a [W'_down] with every
    [M + W'_S U_S] invertible, and a nondegenerate weight: none of the three
    failing sets contains an open set. *)
Theorem generic_weights_empty_interior :
  forall (d m : nat) (M Wd Wu : mat) (eps : R)
         (M_invertible_ii : trivial_kernel d M)
         (d_ge_2_iii : (2 <= d)%nat)
         (eps_pos : 0 < eps),
    (exists Wu' : mat,
       (forall l j, (l < m)%nat -> (j < d)%nat -> Rabs (Wu' l j - Wu l j) < eps) /\
       row_rank d m Wu' (Nat.min m d)) /\
    (exists Wd' : mat,
       (forall i l, (i < d)%nat -> (l < m)%nat -> Rabs (Wd' i l - Wd i l) < eps) /\
       forall S : nat -> bool, trivial_kernel d (skip_piece m M S Wd' Wu)) /\
    (exists Wd' Wu' : mat,
       (forall i l, (i < d)%nat -> (l < m)%nat -> Rabs (Wd' i l - Wd i l) < eps) /\
       (forall l j, (l < m)%nat -> (j < d)%nat -> Rabs (Wu' l j - Wu l j) < eps) /\
       nondegenerate_weights d m Wd' Wu').
Proof.
  intros d m M Wd Wu eps M_invertible_ii d_ge_2_iii eps_pos. split; [|split].
  - exact (generic_rank_dense d m Wu eps eps_pos).
  - exact (generic_pieces_dense d m M Wd Wu eps M_invertible_ii eps_pos).
  - exact (generic_nondegenerate_dense d m Wd Wu eps d_ge_2_iii eps_pos).
Qed.

(** ** Instance (standard library only), proved through the main theorem *)

(** In [d = 2]: there are three nondegenerate rows (with nonzero columns),
    obtained through the main theorem near the zero weights (this first part
    states no distance, so on its own it is an existence statement); and with [W_up = I],
    [M = [[2, 1], [1, 1]]] and [W_down] within [1/10] of [-M] (where the piece of
    [S = {0, 1}] is [M - M = 0]), some [W_down] makes all four matrices
    [M + W_S U_S] ([S] given by [s0 = (0 in S)], [s1 = (1 in S)]) invertible:
    [(M + W_S U_S) y = 0] forces [y = 0]. *)
Lemma generic_weights_instance :
  (exists Wd Wu : nat -> nat -> R,
     (forall l, (l < 3)%nat -> exists j, (j < 2)%nat /\ Wu l j <> 0) /\
     (forall l l', (l < 3)%nat -> (l' < 3)%nat -> l <> l' ->
        ~ exists c : R, forall j, (j < 2)%nat -> Wu l' j = c * Wu l j) /\
     (forall l, (l < 3)%nat -> exists i, (i < 2)%nat /\ Wd i l <> 0)) /\
  (exists Wd : nat -> nat -> R,
     Rabs (Wd 0%nat 0%nat + 2) < 1/10 /\ Rabs (Wd 0%nat 1%nat + 1) < 1/10 /\
     Rabs (Wd 1%nat 0%nat + 1) < 1/10 /\ Rabs (Wd 1%nat 1%nat + 1) < 1/10 /\
     forall (s0 s1 : bool) (y0 y1 : R),
     (2 + ((if s0 then Wd 0%nat 0%nat * 1 else 0) + (if s1 then Wd 0%nat 1%nat * 0 else 0))) * y0
     + (1 + ((if s0 then Wd 0%nat 0%nat * 0 else 0) + (if s1 then Wd 0%nat 1%nat * 1 else 0))) * y1 = 0 ->
     (1 + ((if s0 then Wd 1%nat 0%nat * 1 else 0) + (if s1 then Wd 1%nat 1%nat * 0 else 0))) * y0
     + (1 + ((if s0 then Wd 1%nat 0%nat * 0 else 0) + (if s1 then Wd 1%nat 1%nat * 1 else 0))) * y1 = 0 ->
     y0 = 0 /\ y1 = 0).
Proof.
  set (Mex := fun i j : nat => match i, j with O, O => 2 | _, _ => 1 end).
  assert (HM : trivial_kernel 2 Mex).
  { intros y Hy j Hj. pose proof (Hy 0%nat ltac:(lia)) as H0. pose proof (Hy 1%nat ltac:(lia)) as H1.
    unfold mv, Mex in H0, H1. simpl in H0, H1.
    destruct j as [|[|j]]; [lra|lra|lia]. }
  set (I2 := fun l j : nat => match l, j with O, O => 1 | 1%nat, 1%nat => 1 | _, _ => 0 end).
  set (Wd0 := fun i l : nat => - Mex i l).
  split.
  - destruct (generic_weights_empty_interior 2 3 Mex (fun _ _ => 0) (fun _ _ => 0) 1 HM
                ltac:(lia) ltac:(lra)) as (_ & _ & (Wd & Wu & _ & _ & H)).
    exists Wd, Wu. exact H.
  - destruct (generic_weights_empty_interior 2 2 Mex Wd0 I2 (1/10) HM ltac:(lia) ltac:(lra))
      as (_ & (Wd & Hc & H) & _).
    exists Wd.
    pose proof (Hc 0%nat 0%nat ltac:(lia) ltac:(lia)) as C00.
    pose proof (Hc 0%nat 1%nat ltac:(lia) ltac:(lia)) as C01.
    pose proof (Hc 1%nat 0%nat ltac:(lia) ltac:(lia)) as C10.
    pose proof (Hc 1%nat 1%nat ltac:(lia) ltac:(lia)) as C11.
    unfold Wd0, Mex in C00, C01, C10, C11. simpl in C00, C01, C10, C11.
    unfold Rminus in C00, C01, C10, C11. rewrite Ropp_involutive in C00, C01, C10, C11.
    split; [exact C00|]. split; [exact C01|]. split; [exact C10|]. split; [exact C11|].
    intros s0 s1 y0 y1 E0 E1.
    set (S := fun l : nat => match l with O => s0 | _ => s1 end).
    assert (Hmv : forall i, (i < 2)%nat -> mv 2 (skip_piece 2 Mex S Wd I2) (v2 y0 y1) i = 0).
    { intros i Hi. destruct i as [|[|i]]; [| |lia]; unfold mv, skip_piece, Mex, v2, S, I2; simpl.
      - etransitivity; [|exact E0]. ring.
      - etransitivity; [|exact E1]. ring. }
    pose proof (H S (v2 y0 y1) Hmv 0%nat ltac:(lia)) as K0.
    pose proof (H S (v2 y0 y1) Hmv 1%nat ltac:(lia)) as K1.
    unfold v2 in K0, K1. split; [exact K0|exact K1].
Qed.

(** ** Boundary counterexamples: each hypothesis is needed *)

(** Drop [M_invertible_ii]: with [M = 0] (d = 2) the piece of [S = {}] is the
    zero matrix for every weight, so no weight, near or far, makes every
    piece invertible. *)
Lemma generic_weights_needs_M_invertible_ii :
  ~ (forall (d m : nat) (M Wd Wu : mat) (eps : R)
            (d_ge_2_iii : (2 <= d)%nat)
            (eps_pos : 0 < eps),
       (exists Wu' : mat,
          (forall l j, (l < m)%nat -> (j < d)%nat -> Rabs (Wu' l j - Wu l j) < eps) /\
          row_rank d m Wu' (Nat.min m d)) /\
       (exists Wd' : mat,
          (forall i l, (i < d)%nat -> (l < m)%nat -> Rabs (Wd' i l - Wd i l) < eps) /\
          forall S : nat -> bool, trivial_kernel d (skip_piece m M S Wd' Wu)) /\
       (exists Wd' Wu' : mat,
          (forall i l, (i < d)%nat -> (l < m)%nat -> Rabs (Wd' i l - Wd i l) < eps) /\
          (forall l j, (l < m)%nat -> (j < d)%nat -> Rabs (Wu' l j - Wu l j) < eps) /\
          nondegenerate_weights d m Wd' Wu')).
Proof.
  intros H.
  destruct (H 2%nat 1%nat (fun _ _ => 0) (fun _ _ => 0) (fun _ _ => 0) 1 (le_n 2) Rlt_0_1)
    as (_ & (Wd & _ & Hp) & _).
  assert (Hz : forall i, (i < 2)%nat ->
            mv 2 (skip_piece 1 (fun _ _ => 0) (fun _ => false) Wd (fun _ _ => 0)) (fun _ => 1) i = 0).
  { intros i _. unfold mv, skip_piece. simpl. ring. }
  pose proof (Hp (fun _ => false) (fun _ => 1) Hz 0%nat ltac:(lia)). lra.
Qed.

(** Drop [d_ge_2_iii]: in [d = 1] with [m = 2] (and [M = I]) the two rows are
    numbers, and the second is [(u_1 / u_0)] times the first whenever the
    first is nonzero: no weight is nondegenerate. *)
Lemma generic_weights_needs_d_ge_2_iii :
  ~ (forall (d m : nat) (M Wd Wu : mat) (eps : R)
            (M_invertible_ii : trivial_kernel d M)
            (eps_pos : 0 < eps),
       (exists Wu' : mat,
          (forall l j, (l < m)%nat -> (j < d)%nat -> Rabs (Wu' l j - Wu l j) < eps) /\
          row_rank d m Wu' (Nat.min m d)) /\
       (exists Wd' : mat,
          (forall i l, (i < d)%nat -> (l < m)%nat -> Rabs (Wd' i l - Wd i l) < eps) /\
          forall S : nat -> bool, trivial_kernel d (skip_piece m M S Wd' Wu)) /\
       (exists Wd' Wu' : mat,
          (forall i l, (i < d)%nat -> (l < m)%nat -> Rabs (Wd' i l - Wd i l) < eps) /\
          (forall l j, (l < m)%nat -> (j < d)%nat -> Rabs (Wu' l j - Wu l j) < eps) /\
          nondegenerate_weights d m Wd' Wu')).
Proof.
  intros H.
  destruct (H 1%nat 2%nat ident (fun _ _ => 0) (fun _ _ => 0) 1 (ident_trivial_kernel 1) Rlt_0_1)
    as (_ & _ & (Wd & Wu & _ & _ & Hr & Hc & _)).
  destruct (Hr 0%nat ltac:(lia)) as (j & Hj & Hu). assert (j = 0%nat) by lia. subst j.
  apply (Hc 0%nat 1%nat ltac:(lia) ltac:(lia) ltac:(lia)).
  exists (Wu 1%nat 0%nat / Wu 0%nat 0%nat). intros j Hj'. assert (j = 0%nat) by lia. subst j.
  field. exact Hu.
Qed.
