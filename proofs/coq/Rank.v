(** * Row rank of a matrix, basis completion, and the width [m + 2d - rank W_up].

    [indep d r V]: the vectors [V 0 .. V (r-1)] of [R^d] are linearly
    independent.  [row_rank d m U r]: some [r] rows of [U] are linearly
    independent and every row of [U] is a linear combination of them (a basis
    of the row space chosen among the rows); every matrix has one
    ([row_rank_exists]) and it is unique ([row_rank_unique]), so it is the
    rank.  The core is [basis_completion]: [r] independent vectors of [R^d]
    have [r <= d] and can be completed by [d - r] vectors to a family that
    spans [R^d] (Gaussian elimination on the last coordinate, by induction
    on [d]).

    With it, [absorption_width_rank]: for [sigma z - sigma (-z) = z], every
    skip matrix [M] and every [W_up] of rank [r], [x -> M x + B x] is a block
    of width [m + 2d - r]: [r] extra units flip [r] independent rows, and
    [d - r] pairs [(l_q, a_q), (-l_q, -a_q)] add the rest of the linear map. *)

From Coq Require Import Reals Lra Lia Classical.
From SkipAbsorption Require Import Linalg SignFlip Width.
Open Scope R_scope.

Definition indep (d r : nat) (V : nat -> vec) : Prop :=
  forall c : vec, (forall j, (j < d)%nat -> sum r (fun k => c k * V k j) = 0) ->
  forall k, (k < r)%nat -> c k = 0.

(** The family [V 0 .. V (r-1), L 0 .. L (n-1)]. *)
Definition append (r : nat) (V L : nat -> vec) : nat -> vec :=
  fun k => if (k <? r)%nat then V k else L (k - r)%nat.

Definition row_rank (d m : nat) (U : mat) (r : nat) : Prop :=
  exists idx : nat -> nat, (forall k, (k < r)%nat -> (idx k < m)%nat) /\
    indep d r (fun k => U (idx k)) /\
    forall i, (i < m)%nat -> exists c : vec,
      forall j, (j < d)%nat -> U i j = sum r (fun k => c k * U (idx k) j).

Lemma sum_append : forall r n (c : vec) (V L : nat -> vec) j,
  sum (r + n) (fun k => c k * append r V L k j) =
  sum r (fun k => c k * V k j) + sum n (fun q => c (r + q)%nat * L q j).
Proof.
  intros. rewrite sum_split. f_equal.
  - apply sum_ext. intros k Hk. unfold append.
    replace (k <? r)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hk). reflexivity.
  - apply sum_ext. intros q Hq. unfold append.
    replace (r + q <? r)%nat with false by (symmetry; apply Nat.ltb_ge; lia).
    replace (r + q - r)%nat with q by lia. reflexivity.
Qed.

(** Either some vector has a nonzero coordinate [j] or none has. *)
Lemma some_nonzero_or_all_zero : forall r (V : nat -> vec) j,
  (exists p, (p < r)%nat /\ V p j <> 0) \/ (forall p, (p < r)%nat -> V p j = 0).
Proof.
  induction r as [|r IH]; intros V j.
  - right. intros; lia.
  - destruct (IH V j) as [(p & Hp & Hv)|Hall].
    + left. exists p. split; [lia|exact Hv].
    + destruct (Req_dec (V r j) 0) as [Hz|Hz].
      * right. intros p Hp. destruct (Nat.eq_dec p r) as [->|]; [exact Hz|apply Hall; lia].
      * left. exists r. split; [lia|exact Hz].
Qed.

(** ** Basis completion *)

Theorem basis_completion : forall d r (V : nat -> vec),
  indep d r V ->
  (r <= d)%nat /\ exists L : nat -> vec, spans d d (append r V L).
Proof.
  induction d as [|d IH]; intros r V HV.
  - split.
    + destruct r as [|r]; [lia|]. exfalso.
      pose proof (HV (fun _ => 1) ltac:(intros; lia) 0%nat ltac:(lia)) as H1.
      simpl in H1. lra.
    + exists (fun _ _ => 0). intros y. exists (fun _ => 0). intros; lia.
  - destruct (some_nonzero_or_all_zero r V d) as [(p & Hp & Hpiv)|Hall].
    + (* pivot [p]: eliminate the last coordinate from the other vectors *)
      destruct r as [|r]; [lia|].
      set (piv := V p d) in *.
      set (V' := fun k j => V (skip p k) j - V (skip p k) d / piv * V p j).
      assert (HV'd : forall k, V' k d = 0) by (intros; unfold V'; cbv beta; fold piv; field; exact Hpiv).
      assert (HV' : indep d r V').
      { intros c Hc.
        set (beta := sum r (fun k => c k * (V (skip p k) d / piv))).
        set (c2 := fun k => if Nat.eq_dec k p then - beta else c (unskip p k)).
        assert (Hall0 : forall j, (j < S d)%nat -> sum (S r) (fun k => c2 k * V k j) = 0).
        { intros j Hj. rewrite (sum_skip r p) by exact Hp.
          unfold c2 at 1. destruct (Nat.eq_dec p p) as [_|]; [|congruence].
          rewrite (sum_ext r (fun k => c2 (skip p k) * V (skip p k) j)
                     (fun k => c k * V' k j + c k * (V (skip p k) d / piv) * V p j)).
          2:{ intros k Hk. unfold c2. destruct (Nat.eq_dec (skip p k) p) as [E|_];
              [exfalso; exact (skip_ne p k E)|]. rewrite unskip_skip. unfold V'. ring. }
          rewrite sum_plus, sum_scal_r. fold beta.
          destruct (Nat.eq_dec j d) as [->|Hjd].
          - rewrite (sum_zero r (fun k => c k * V' k d)) by (intros; rewrite HV'd; ring). ring.
          - rewrite (Hc j ltac:(lia)). ring. }
        intros k Hk. pose proof (HV c2 Hall0 (skip p k) (skip_lt p k r Hk)) as H0.
        unfold c2 in H0. destruct (Nat.eq_dec (skip p k) p) as [E|_];
          [exfalso; exact (skip_ne p k E)|]. rewrite unskip_skip in H0. exact H0. }
      destruct (IH r V' HV') as (Hrd & L' & HL').
      split; [lia|].
      (* the new vectors: those of [L'] with last coordinate 0 *)
      set (L := fun q j => if (j <? d)%nat then L' q j else 0).
      exists L. intros y.
      set (t := y d / piv).
      destruct (HL' (fun j => y j - t * V p j)) as (c' & Hc').
      set (beta := sum r (fun k => c' k * (V (skip p k) d / piv))).
      (* coefficients: [t - beta] on [V p], [c' k] on [V (skip p k)], [c' (r + q)] on [L q] *)
      set (cV := fun k => if Nat.eq_dec k p then t - beta else c' (unskip p k)).
      exists (fun k => if (k <? S r)%nat then cV k else c' (k - S r + r)%nat).
      intros j Hj.
      replace (S d) with (S r + (d - r))%nat by lia.
      rewrite sum_split.
      rewrite (sum_ext (S r) _ (fun k => cV k * V k j)).
      2:{ intros k Hk. unfold append. replace (k <? S r)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hk).
          reflexivity. }
      rewrite (sum_ext (d - r) _ (fun q => c' (r + q)%nat * L q j)).
      2:{ intros q Hq. unfold append.
          replace (S r + q <? S r)%nat with false by (symmetry; apply Nat.ltb_ge; lia).
          replace (S r + q - S r + r)%nat with (r + q)%nat by lia.
          replace (S r + q - S r)%nat with q by lia. reflexivity. }
      rewrite (sum_skip r p) by exact Hp.
      unfold cV at 1. destruct (Nat.eq_dec p p) as [_|]; [|congruence].
      rewrite (sum_ext r (fun k => cV (skip p k) * V (skip p k) j)
                 (fun k => c' k * V' k j + c' k * (V (skip p k) d / piv) * V p j)).
      2:{ intros k Hk. unfold cV. destruct (Nat.eq_dec (skip p k) p) as [E|_];
          [exfalso; exact (skip_ne p k E)|]. rewrite unskip_skip. unfold V'. ring. }
      rewrite sum_plus, sum_scal_r. fold beta.
      (* the spanning identity of [L'] at coordinate [j] (for [j < d]) *)
      assert (Hsplit : forall j', (j' < d)%nat ->
        sum r (fun k => c' k * V' k j') + sum (d - r) (fun q => c' (r + q)%nat * L' q j') =
        y j' - t * V p j').
      { intros j' Hj'. rewrite <- (Hc' j' Hj').
        replace (sum d (fun k => c' k * append r V' L' k j'))
          with (sum (r + (d - r)) (fun k => c' k * append r V' L' k j')) by (f_equal; lia).
        rewrite sum_append. reflexivity. }
      destruct (Nat.eq_dec j d) as [->|Hjd].
      * rewrite (sum_zero r (fun k => c' k * V' k d)) by (intros; rewrite HV'd; ring).
        rewrite (sum_zero (d - r) (fun q => c' (r + q)%nat * L q d))
          by (intros; unfold L; rewrite Nat.ltb_irrefl; ring).
        unfold t. fold piv. field. exact Hpiv.
      * assert (Hj' : (j < d)%nat) by lia.
        rewrite (sum_ext (d - r) (fun q => c' (r + q)%nat * L q j) (fun q => c' (r + q)%nat * L' q j))
          by (intros; unfold L; replace (j <? d)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hj');
              reflexivity).
        pose proof (Hsplit j Hj'). lra.
    + (* every last coordinate is 0: complete in [R^d] and add the last unit vector *)
      assert (HV' : indep d r V).
      { intros c Hc. apply HV. intros j Hj. destruct (Nat.eq_dec j d) as [->|Hjd].
        - apply sum_zero. intros k Hk. rewrite (Hall k Hk). ring.
        - apply Hc. lia. }
      destruct (IH r V HV') as (Hrd & L' & HL'). split; [lia|].
      set (Lnew := fun q => if (q <? d - r)%nat then (fun j => if (j <? d)%nat then L' q j else 0)
                            else unit_vec d).
      assert (Hlow : forall k j, (k < d)%nat -> (j < d)%nat -> append r V Lnew k j = append r V L' k j).
      { intros k j Hk Hj. unfold append, Lnew. destruct (k <? r)%nat eqn:E; [reflexivity|].
        apply Nat.ltb_ge in E.
        replace (k - r <? d - r)%nat with true by (symmetry; apply Nat.ltb_lt; lia).
        replace (j <? d)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hj). reflexivity. }
      assert (Hlast : forall k, (k < d)%nat -> append r V Lnew k d = 0).
      { intros k Hk. unfold append, Lnew. destruct (k <? r)%nat eqn:E.
        - apply Hall. apply Nat.ltb_lt. exact E.
        - apply Nat.ltb_ge in E.
          replace (k - r <? d - r)%nat with true by (symmetry; apply Nat.ltb_lt; lia).
          rewrite Nat.ltb_irrefl. reflexivity. }
      assert (Htop : append r V Lnew d = unit_vec d).
      { unfold append, Lnew.
        replace (d <? r)%nat with false by (symmetry; apply Nat.ltb_ge; exact Hrd).
        rewrite Nat.ltb_irrefl. reflexivity. }
      exists Lnew. intros y. destruct (HL' y) as (c' & Hc').
      exists (fun k => if (k <? d)%nat then c' k else y d).
      intros j Hj. simpl. rewrite Nat.ltb_irrefl. rewrite Htop.
      rewrite (sum_ext d _ (fun k => c' k * append r V Lnew k j))
        by (intros k Hk; replace (k <? d)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hk);
            reflexivity).
      unfold unit_vec, kron. destruct (Nat.eq_dec j d) as [->|Hjd].
      * rewrite (sum_zero d) by (intros k Hk; rewrite Hlast by exact Hk; ring).
        destruct (Nat.eq_dec d d) as [_|]; [ring|congruence].
      * assert (Hj' : (j < d)%nat) by lia.
        destruct (Nat.eq_dec d j) as [E|_]; [lia|].
        rewrite <- (Hc' j Hj'). rewrite Rmult_0_r, Rplus_0_r.
        apply sum_ext. intros k Hk. rewrite Hlow by assumption. reflexivity.
Qed.

Corollary indep_le_dim : forall d r V, indep d r V -> (r <= d)%nat.
Proof. intros d r V H. exact (proj1 (basis_completion d r V H)). Qed.

(** ** The rank exists and is unique *)

Theorem row_rank_exists : forall d m (U : mat), exists r, row_rank d m U r.
Proof.
  intros d m U. induction m as [|m IH].
  - exists 0%nat, (fun _ => 0%nat). split; [intros; lia|]. split.
    + intros c _ k Hk. lia.
    + intros i Hi. lia.
  - destruct IH as (r & idx & Hidx & Hind & Hrows).
    destruct (classic (exists c : vec, forall j, (j < d)%nat ->
                         U m j = sum r (fun k => c k * U (idx k) j))) as [Hin|Hout].
    + exists r, idx. split; [intros k Hk; specialize (Hidx k Hk); lia|]. split; [exact Hind|].
      intros i Hi. destruct (Nat.eq_dec i m) as [->|Hne]; [exact Hin|]. apply Hrows. lia.
    + exists (S r), (fun k => if (k <? r)%nat then idx k else m). split.
      { intros k Hk. destruct (k <? r)%nat eqn:E; [apply Nat.ltb_lt in E; specialize (Hidx k E); lia|lia]. }
      split.
      * intros c Hc.
        assert (Hsplit : forall j, (j < d)%nat ->
                  sum r (fun k => c k * U (idx k) j) + c r * U m j = 0).
        { intros j Hj. rewrite <- (Hc j Hj). simpl. rewrite Nat.ltb_irrefl. f_equal.
          apply sum_ext. intros k Hk.
          replace (k <? r)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hk). reflexivity. }
        assert (Hcr : c r = 0).
        { destruct (Req_dec (c r) 0) as [Hz|Hz]; [exact Hz|]. exfalso. apply Hout.
          exists (fun k => - c k / c r). intros j Hj. pose proof (Hsplit j Hj) as E.
          rewrite (sum_ext r _ (fun k => / c r * (- (c k * U (idx k) j))))
            by (intros; unfold Rdiv; ring).
          rewrite sum_scal_l, sum_opp.
          replace (sum r (fun k => c k * U (idx k) j)) with (- (c r * U m j)) by lra. field. exact Hz. }
        intros k Hk. destruct (Nat.eq_dec k r) as [->|Hne]; [exact Hcr|].
        apply Hind; [|lia]. intros j Hj. pose proof (Hsplit j Hj) as E.
        rewrite Hcr in E. lra.
      * intros i Hi. destruct (Nat.eq_dec i m) as [->|Hne].
        -- exists (fun k => if (k <? r)%nat then 0 else 1). intros j Hj. simpl.
           rewrite Nat.ltb_irrefl.
           rewrite (sum_zero r) by (intros k Hk; replace (k <? r)%nat with true
                                      by (symmetry; apply Nat.ltb_lt; exact Hk); ring).
           ring.
        -- destruct (Hrows i ltac:(lia)) as (c & Hc).
           exists (fun k => if (k <? r)%nat then c k else 0). intros j Hj. simpl.
           rewrite Nat.ltb_irrefl. rewrite (Hc j Hj).
           rewrite Rmult_0_l, Rplus_0_r. apply sum_ext. intros k Hk.
           replace (k <? r)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hk). reflexivity.
Qed.

(** [r] independent vectors in the span of [n] vectors: [r <= n]. *)
Lemma indep_in_span_le : forall d r n (V W : nat -> vec),
  indep d r V ->
  (forall k, (k < r)%nat -> exists a : vec,
     forall j, (j < d)%nat -> V k j = sum n (fun q => a q * W q j)) ->
  (r <= n)%nat.
Proof.
  intros d r n V W HV HW.
  destruct (finite_choice vec (fun _ => 0) (fun k a => forall j, (j < d)%nat -> V k j = sum n (fun q => a q * W q j)) r HW)
    as (A & HA).
  apply (indep_le_dim n r A). intros c Hc k Hk. apply HV; [|exact Hk].
  intros j Hj.
  rewrite (sum_ext r _ (fun k => sum n (fun q => c k * A k q * W q j)))
    by (intros k' Hk'; rewrite (HA k' Hk' j Hj), <- sum_scal_l; apply sum_ext; intros; ring).
  rewrite sum_swap. apply sum_zero. intros q Hq.
  rewrite sum_scal_r, (Hc q Hq). ring.
Qed.

Theorem row_rank_unique : forall d m U r r',
  row_rank d m U r -> row_rank d m U r' -> r = r'.
Proof.
  assert (H : forall d m U r r', row_rank d m U r -> row_rank d m U r' -> (r <= r')%nat).
  { intros d m U r r' (idx & Hidx & Hind & _) (idx' & _ & _ & Hrows').
    apply (indep_in_span_le d r r' (fun k => U (idx k)) (fun q => U (idx' q)) Hind).
    intros k Hk. exact (Hrows' (idx k) (Hidx k Hk)). }
  intros d m U r r' H1 H2. pose proof (H d m U r r' H1 H2). pose proof (H d m U r' r H2 H1). lia.
Qed.

Corollary row_rank_le_dim : forall d m U r, row_rank d m U r -> (r <= d)%nat.
Proof. intros d m U r (idx & _ & Hind & _). exact (indep_le_dim d r _ Hind). Qed.

(** ** Blocks side by side, pairs, and extra flipped units *)

(** Two blocks of widths [m1] and [m2] side by side: one block of width [m1 + m2]. *)
Definition concat_down (m1 : nat) (Wd1 Wd2 : mat) : mat :=
  fun i l => if (l <? m1)%nat then Wd1 i l else Wd2 i (l - m1)%nat.
Definition concat_up (m1 : nat) (Wu1 Wu2 : mat) : mat :=
  fun l j => if (l <? m1)%nat then Wu1 l j else Wu2 (l - m1)%nat j.

Lemma block_concat : forall d m1 m2 sigma Wd1 Wu1 Wd2 Wu2 x i,
  block d (m1 + m2) sigma (concat_down m1 Wd1 Wd2) (concat_up m1 Wu1 Wu2) x i =
  block d m1 sigma Wd1 Wu1 x i + block d m2 sigma Wd2 Wu2 x i.
Proof.
  intros. unfold block, readout. rewrite sum_split. f_equal.
  - apply sum_ext. intros l Hl. unfold concat_down, mv, concat_up.
    replace (l <? m1)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hl). reflexivity.
  - apply sum_ext. intros l Hl. unfold concat_down, mv, concat_up.
    replace (m1 + l <? m1)%nat with false by (symmetry; apply Nat.ltb_ge; lia).
    replace (m1 + l - m1)%nat with l by lia. reflexivity.
Qed.

(** The [2n] units [(l_q, a_q)] and [(-l_q, -a_q)] compute [sum_q a_q (l_q . x)]. *)
Definition pair_down (n : nat) (a : nat -> vec) : mat :=
  concat_down n (fun i q => a q i) (fun i q => - a q i).
Definition pair_up (n : nat) (Lv : nat -> vec) : mat :=
  concat_up n (fun q j => Lv q j) (fun q j => - Lv q j).

Lemma pair_block : forall d n sigma (a Lv : nat -> vec) x i,
  (forall z, sigma z - sigma (-z) = z) ->
  block d (n + n) sigma (pair_down n a) (pair_up n Lv) x i =
  sum n (fun q => a q i * mv d (fun q' j => Lv q' j) x q).
Proof.
  intros d n sigma a Lv x i Hodd. unfold pair_down, pair_up. rewrite block_concat.
  unfold block, readout. rewrite <- sum_plus. apply sum_ext. intros q Hq.
  replace (mv d (fun q' j => - Lv q' j) x q) with (- mv d (fun q' j => Lv q' j) x q)
    by (unfold mv; rewrite <- sum_opp; apply sum_ext; intros; ring).
  pose proof (Hodd (mv d (fun q' j => Lv q' j) x q)). 
  replace (sigma (- mv d (fun q' j => Lv q' j) x q))
    with (sigma (mv d (fun q' j => Lv q' j) x q) - mv d (fun q' j => Lv q' j) x q) by lra.
  ring.
Qed.

(** ** The width [m + 2d - rank W_up], for any skip matrix *)

(** The replacing block: the [m] units of [B] (output columns corrected), [r]
    flipped copies of independent rows, and [d - r] pairs along the vectors
    that complete those rows to a spanning family. *)
Theorem absorption_width_rank :
  forall (d m r : nat) (sigma : R -> R) (M Wd Wu : mat)
         (sigma_odd_part : forall z, sigma z - sigma (-z) = z)
         (rank_Wup : row_rank d m Wu r),
  exists Wd' Wu' : mat, forall x i, (i < d)%nat ->
    mv d M x i + block d m sigma Wd Wu x i = block d (m + 2 * d - r) sigma Wd' Wu' x i.
Proof.
  intros d m r sigma M Wd Wu sigma_odd_part (idx & Hidx & Hind & _).
  destruct (basis_completion d r (fun k => Wu (idx k)) Hind) as (Hrd & Lv & Hspan).
  set (Fam := append r (fun k => Wu (idx k)) Lv).
  destruct (finite_choice vec (fun _ => 0) (fun i g => forall j, (j < d)%nat ->
              sum d (fun k => g k * Fam k j) = M i j) d) as (G & HG).
  { intros i Hi. exact (Hspan (fun j => M i j)). }
  set (b := fun k i => - G i k).
  set (a := fun q i => G i (r + q)%nat).
  exists (concat_down (m + r) (ext_down m r idx b Wd) (pair_down (d - r) a)),
         (concat_up (m + r) (ext_up m idx Wu) (pair_up (d - r) Lv)).
  intros x i Hi.
  replace (m + 2 * d - r)%nat with ((m + r) + ((d - r) + (d - r)))%nat by lia.
  rewrite block_concat, extra_units_linear by assumption.
  rewrite pair_block by assumption.
  (* the linear part: [sum_k G i k (Fam k . x) = (M x)_i] *)
  assert (HM : mv d M x i = sum d (fun k => G i k * mv d (fun k' j => Fam k' j) x k)).
  { unfold mv.
    rewrite (sum_ext d (fun j => M i j * x j) (fun j => sum d (fun k => G i k * Fam k j * x j)))
      by (intros j Hj; rewrite <- (HG i Hi j Hj), <- sum_scal_r; reflexivity).
    rewrite sum_swap. apply sum_ext. intros k Hk. rewrite <- sum_scal_l. apply sum_ext. intros; ring. }
  rewrite HM.
  replace (sum d (fun k => G i k * mv d (fun k' j => Fam k' j) x k))
    with (sum (r + (d - r)) (fun k => G i k * mv d (fun k' j => Fam k' j) x k)) by (f_equal; lia).
  rewrite sum_split.
  rewrite (sum_ext r _ (fun k => - (b k i * mv d Wu x (idx k)))).
  2:{ intros k Hk. unfold b, Fam, append, mv.
      replace (k <? r)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hk). ring. }
  rewrite (sum_ext (d - r) _ (fun q => a q i * mv d (fun q' j => Lv q' j) x q)).
  2:{ intros q Hq. unfold a, Fam, append, mv.
      replace (r + q <? r)%nat with false by (symmetry; apply Nat.ltb_ge; lia).
      replace (r + q - r)%nat with q by lia. reflexivity. }
  rewrite sum_opp. ring.
Qed.

(** ** Flips, extra units on existing hyperplanes, and pairs: width [m + t + 2 rank]

    The upper-bound half of the exact width of [absorption-width] (and of
    [relu-complete] for bias-free blocks): flip the rows in [S], which removes
    [W_S U_S x]; the remaining linear map [N = M + W_S U_S] is written as
    [sum_k y_k u'_(T k)^T + R] with [t] flipped rows [u'_(T k)] of the new block
    (one extra unit each) and a remainder [R] of rank [r] ([2 r] units in pairs).
    Minimising over [Y], [rank R] becomes [rank (N P_T)] with [P_T] the
    projector onto the orthogonal complement of those rows (informal). *)

Lemma flip_block_linear : forall d m sigma (S : nat -> bool) (Wd Wu : mat) x i,
  (forall z, sigma z - sigma (-z) = z) ->
  block d m sigma Wd (flip_rows S Wu) x i =
  block d m sigma Wd Wu x i - mv d (selected_product m S Wd Wu) x i.
Proof.
  intros d m sigma S Wd Wu x i Hodd. unfold block, readout.
  rewrite (sum_ext m (fun l => Wd i l * sigma (mv d (flip_rows S Wu) x l))
             (fun l => Wd i l * sigma (mv d Wu x l) - (if S l then Wd i l * 1 * mv d Wu x l else 0))).
  - rewrite sum_minus, (selected_sum d m S Wd Wu (fun _ => 1) x i). f_equal.
    apply mv_row_ext. intros j _. unfold selected_product. apply sum_ext. intros l _.
    destruct (S l); ring.
  - intros l _. rewrite mv_flip_rows. destruct (S l).
    + pose proof (Hodd (mv d Wu x l)).
      replace (sigma (- mv d Wu x l)) with (sigma (mv d Wu x l) - mv d Wu x l) by lra. ring.
    + ring.
Qed.

(** A [d x d] matrix of row rank [r] is a sum of [r] rank-one terms. *)
Lemma row_rank_factor : forall d (A : mat) r, row_rank d d A r ->
  exists (a : nat -> vec) (Lv : nat -> vec), forall x i, (i < d)%nat ->
    mv d A x i = sum r (fun q => a q i * mv d (fun q' j => Lv q' j) x q).
Proof.
  intros d A r (idx & Hidx & _ & Hrows).
  destruct (finite_choice vec (fun _ => 0) (fun i c => forall j, (j < d)%nat -> A i j = sum r (fun k => c k * A (idx k) j))
              d Hrows) as (C & HC).
  exists (fun q i => C i q), (fun q => A (idx q)). intros x i Hi. unfold mv.
  rewrite (sum_ext d _ (fun j => sum r (fun q => C i q * A (idx q) j * x j)))
    by (intros j Hj; rewrite (HC i Hi j Hj), <- sum_scal_r; reflexivity).
  rewrite sum_swap. apply sum_ext. intros q _. rewrite <- sum_scal_l. apply sum_ext. intros; ring.
Qed.

Theorem absorption_width_flip_rank :
  forall (d m t r : nat) (sigma : R -> R) (M Wd Wu : mat) (S : nat -> bool)
         (T : nat -> nat) (Y : nat -> vec)
         (sigma_odd_part : forall z, sigma z - sigma (-z) = z)
         (T_in_range : forall k, (k < t)%nat -> (T k < m)%nat)
         (remainder_rank : row_rank d d (fun i j => M i j + selected_product m S Wd Wu i j
                                          - sum t (fun k => Y k i * flip_rows S Wu (T k) j)) r),
  exists Wd' Wu' : mat, forall x i, (i < d)%nat ->
    mv d M x i + block d m sigma Wd Wu x i = block d (m + t + 2 * r) sigma Wd' Wu' x i.
Proof.
  intros d m t r sigma M Wd Wu S T Y sigma_odd_part T_in_range remainder_rank.
  destruct (row_rank_factor d _ r remainder_rank) as (a & Lv & HR).
  set (b := fun k i => - Y k i).
  exists (concat_down (m + t) (ext_down m t T b Wd) (pair_down r a)),
         (concat_up (m + t) (ext_up m T (flip_rows S Wu)) (pair_up r Lv)).
  intros x i Hi.
  replace (m + t + 2 * r)%nat with ((m + t) + (r + r))%nat by lia.
  rewrite block_concat, extra_units_linear by assumption.
  rewrite pair_block by assumption.
  rewrite flip_block_linear by assumption.
  rewrite <- (HR x i Hi).
  (* [R x = M x + W_S U_S x - sum_k y_k (u'_(T k) . x)] *)
  rewrite mv_mat_minus, mv_mat_plus.
  assert (HY : mv d (fun i j => sum t (fun k => Y k i * flip_rows S Wu (T k) j)) x i =
               sum t (fun k => Y k i * mv d (flip_rows S Wu) x (T k))).
  { unfold mv.
    rewrite (sum_ext d _ (fun j => sum t (fun k => Y k i * flip_rows S Wu (T k) j * x j)))
      by (intros; rewrite <- sum_scal_r; reflexivity).
    rewrite sum_swap. apply sum_ext. intros k _. rewrite <- sum_scal_l. apply sum_ext. intros; ring. }
  rewrite HY. unfold b.
  rewrite (sum_ext t (fun k => - Y k i * mv d (flip_rows S Wu) x (T k))
             (fun k => - (Y k i * mv d (flip_rows S Wu) x (T k)))) by (intros; ring).
  rewrite sum_opp. ring.
Qed.
