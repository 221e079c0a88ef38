(** * [depth-dead-block]: completeness of the Farkas certificates.

    [fm_alternative] is the theorem of alternatives for a finite system of linear
    inequalities [A x <= b] in [R^d]: either it has a solution, or multipliers
    [y >= 0] with [sum_i y_i a_i = 0] and [y . b < 0] exist.  The proof is
    Fourier-Motzkin elimination of the last coordinate, by induction on [d]: the
    rows whose last entry is zero stay, every pair of a row with a positive and a
    row with a negative last entry gives their positive combination without it (the
    pair [(p, q)] is the row [n + p n + q] of the new system), a solution of the
    new system extends to one of the old (the last coordinate between the largest
    lower and the smallest upper bound), and multipliers of the new system give
    multipliers of the old.

    [farkas_complete]: if [g . x + h <= 0] on a nonempty polyhedron, multipliers
    [lam >= 0] with [sum_i lam_i a_i = g] and [lam . b + h <= 0] exist (from the
    alternative for the homogenised system in [R^(d+1)]).  With [fm_alternative] for
    an empty polyhedron, [dead_on_image_iff_certificates]: block 2 is dead on the
    image of block 1 iff there is a certificate for every activation pattern of
    block 1 and unit of block 2.  [caratheodory] (a nonnegative combination of vectors
    of [R^D] equals one with at most [D] nonzero coefficients: along a dependence of
    the vectors in the support, lower the coefficients until one vanishes) applied to
    the rows [(a_l, b_l)] in [R^(d+1)] gives [dead_on_image_iff_small_certificates]:
    certificates with at most [d + 1] nonzero multipliers exist iff the hypothesis
    holds.  Every multiplier is built from the data by field operations, so the
    proofs are written for any subfield [K] of [R] that holds the data
    ([fm_alternative_in], [farkas_complete_in], [caratheodory_in]; the dependence of
    [support_dependent_in] is found by eliminating coordinates); with [K] the
    rationals, [dead_on_image_iff_rational_certificates]: for rational weights the
    hypothesis holds iff every pattern and unit have a certificate with rational
    multipliers, at most [d + 1] of them nonzero. *)

From Coq Require Import Reals Lra Lia List Classical Bool QArith Qreals.
From SkipAbsorption Require Import Linalg RealActivations Limit DepthD1 DepthDeadBlock.
Import ListNotations.
Open Scope R_scope.

(** ** Subfields of [R]

    The multipliers are built from the data by field operations only, so they lie in
    every subfield [K] that holds the data: [K = fun _ => True] gives the real
    statements, [K = rational] (the images of the rationals, [Q2R]) the rational ones. *)
Definition subfield (K : R -> Prop) : Prop :=
  K 0 /\ K 1 /\ (forall x y, K x -> K y -> K (x + y)) /\ (forall x y, K x -> K y -> K (x * y)) /\
  (forall x, K x -> K (- x)) /\ (forall x, K x -> x <> 0 -> K (/ x)).

Section Subfield.
Variable K : R -> Prop.
Hypothesis HK : subfield K.

Lemma K0 : K 0. Proof. apply HK. Qed.
Lemma K1 : K 1. Proof. apply HK. Qed.
Lemma Kplus : forall x y, K x -> K y -> K (x + y). Proof. apply HK. Qed.
Lemma Kmult : forall x y, K x -> K y -> K (x * y). Proof. apply HK. Qed.
Lemma Kopp : forall x, K x -> K (- x). Proof. apply HK. Qed.
Lemma Kinv : forall x, K x -> x <> 0 -> K (/ x). Proof. apply HK. Qed.
Lemma Kminus : forall x y, K x -> K y -> K (x - y).
Proof. intros. unfold Rminus. apply Kplus; [|apply Kopp]; assumption. Qed.
Lemma Kdiv : forall x y, K x -> K y -> y <> 0 -> K (x / y).
Proof. intros. unfold Rdiv. apply Kmult; [|apply Kinv]; assumption. Qed.
Lemma Ksum : forall n f, (forall i, (i < n)%nat -> K (f i)) -> K (sum n f).
Proof.
  induction n as [|n IH]; intros f Hf; simpl; [exact K0|].
  apply Kplus; [apply IH; intros; apply Hf; lia|apply Hf; lia].
Qed.
Lemma Kkron : forall i j, K (kron i j).
Proof. intros. unfold kron. destruct (Nat.eq_dec i j); [exact K1|exact K0]. Qed.

End Subfield.

Lemma subfield_all : subfield (fun _ => True).
Proof. repeat split. Qed.

(** The rational numbers inside [R]. *)
Definition rational (x : R) : Prop := exists q : Q, x = Q2R q.

Lemma subfield_rational : subfield rational.
Proof.
  repeat split.
  - exists 0%Q. unfold Q2R. simpl. field.
  - exists 1%Q. unfold Q2R. simpl. field.
  - intros x y (p & ->) (q & ->). exists (p + q)%Q. symmetry. apply Q2R_plus.
  - intros x y (p & ->) (q & ->). exists (p * q)%Q. symmetry. apply Q2R_mult.
  - intros x (p & ->). exists (- p)%Q. symmetry. apply Q2R_opp.
  - intros x (p & ->) Hne. exists (/ p)%Q. symmetry. apply Q2R_inv.
    intros E. apply Hne. rewrite (Qeq_eqR p 0 E). unfold Q2R. simpl. field.
Qed.

(** ** Indices of pairs *)

Lemma pair_index_bound : forall n p q, (p < n)%nat -> (q < n)%nat -> (p * n + q < n * n)%nat.
Proof. intros. nia. Qed.

Lemma pair_div : forall n p q, (q < n)%nat -> ((p * n + q) / n)%nat = p.
Proof.
  intros n p q Hq. rewrite Nat.div_add_l by lia. rewrite Nat.div_small by exact Hq. lia.
Qed.

Lemma pair_mod : forall n p q, (q < n)%nat -> ((p * n + q) mod n)%nat = q.
Proof.
  intros n p q Hq. rewrite Nat.add_comm, Nat.mod_add by lia. apply Nat.mod_small. exact Hq.
Qed.

(** ** One elimination step *)

Definition posb (A : mat) (d p : nat) : bool := if Rlt_dec 0 (A p d) then true else false.
Definition negvb (A : mat) (d q : nat) : bool := if Rlt_dec (A q d) 0 then true else false.
Definition zerb (A : mat) (d i : nat) : bool := if Req_EM_T (A i d) 0 then true else false.
Definition validb (A : mat) (d p q : nat) : bool := andb (posb A d p) (negvb A d q).

(** The combinations of a column [c] (a column [A . j] of [A], or [b]) that the new
    system uses: [c_i] for a row with zero last entry, [(-a_qd) c_p + a_pd c_q] for a
    pair. *)
Definition fm_comb (n d : nat) (A : mat) (c : vec) : vec :=
  fun i' => if (i' <? n)%nat then (if zerb A d i' then c i' else 0)
            else let p := ((i' - n) / n)%nat in let q := ((i' - n) mod n)%nat in
                 if validb A d p q then (- A q d) * c p + A p d * c q else 0.

Definition fm_rows (n d : nat) (A : mat) : mat := fun i' j => fm_comb n d A (fun i => A i j) i'.

Lemma fm_comb_low : forall n d A c i, (i < n)%nat ->
  fm_comb n d A c i = if zerb A d i then c i else 0.
Proof. intros. unfold fm_comb. rewrite ltb_true by exact H. reflexivity. Qed.

Lemma fm_comb_pair : forall n d A c p q, (q < n)%nat ->
  fm_comb n d A c (n + (p * n + q))%nat =
  if validb A d p q then (- A q d) * c p + A p d * c q else 0.
Proof.
  intros. unfold fm_comb. rewrite ltb_false by lia.
  replace (n + (p * n + q) - n)%nat with (p * n + q)%nat by lia.
  rewrite pair_div, pair_mod by exact H. reflexivity.
Qed.

Lemma fm_comb_mv : forall n d A (x : vec) i',
  mv d (fm_rows n d A) x i' = fm_comb n d A (fun i => mv d A x i) i'.
Proof.
  intros. unfold fm_rows, fm_comb, mv.
  destruct (i' <? n)%nat.
  - destruct (zerb A d i'); [reflexivity|]. apply sum_zero. intros; ring.
  - destruct (validb A d ((i' - n) / n) ((i' - n) mod n)).
    + rewrite <- !sum_scal_l, <- sum_plus. apply sum_ext. intros; ring.
    + apply sum_zero. intros; ring.
Qed.

Lemma fm_comb_last : forall n d A i', fm_comb n d A (fun i => A i d) i' = 0.
Proof.
  intros. unfold fm_comb. destruct (i' <? n)%nat.
  - unfold zerb. destruct (Req_EM_T (A i' d) 0); [assumption|reflexivity].
  - destruct (validb A d _ _); [ring|reflexivity].
Qed.

(** Multipliers of the old system from those of the new one. *)
Definition fm_dual (n d : nat) (A : mat) (y' : vec) : vec :=
  fun i => (if zerb A d i then y' i else 0) +
           sum n (fun q => if validb A d i q then y' (n + (i * n + q))%nat * (- A q d) else 0) +
           sum n (fun p => if validb A d p i then y' (n + (p * n + i))%nat * A p d else 0).

Lemma fm_dual_comb : forall n d A y' (c : vec),
  sum n (fun i => fm_dual n d A y' i * c i) = sum (n + n * n) (fun i' => y' i' * fm_comb n d A c i').
Proof.
  intros. rewrite sum_split, sum_pairs.
  unfold fm_dual.
  rewrite (sum_ext n _ (fun i => (if zerb A d i then y' i else 0) * c i +
             sum n (fun q => if validb A d i q then y' (n + (i * n + q))%nat * (- A q d) * c i else 0) +
             sum n (fun p => if validb A d p i then y' (n + (p * n + i))%nat * A p d * c i else 0))).
  2:{ intros i _. rewrite !Rmult_plus_distr_r, <- !sum_scal_r. f_equal; [f_equal|]; apply sum_ext;
      intros; destruct (validb _ _ _ _); ring. }
  rewrite !sum_plus. rewrite (sum_swap n n (fun i p => if validb A d p i then y' (n + (p * n + i))%nat * A p d * c i else 0)).
  rewrite Rplus_assoc. f_equal.
  - apply sum_ext. intros i Hi. rewrite fm_comb_low by exact Hi. destruct (zerb A d i); ring.
  - rewrite <- sum_plus. apply sum_ext. intros p Hp. rewrite <- sum_plus. apply sum_ext. intros q Hq.
    rewrite fm_comb_pair by exact Hq. destruct (validb A d p q); ring.
Qed.

Lemma fm_dual_nonneg : forall n d A y',
  (forall i', (i' < n + n * n)%nat -> 0 <= y' i') -> forall i, (i < n)%nat -> 0 <= fm_dual n d A y' i.
Proof.
  intros n d A y' Hy i Hi. unfold fm_dual.
  assert (H1 : 0 <= (if zerb A d i then y' i else 0)) by (destruct (zerb A d i); [apply Hy; lia|lra]).
  assert (H2 : 0 <= sum n (fun q => if validb A d i q then y' (n + (i * n + q))%nat * (- A q d) else 0)).
  { apply sum_nonneg. intros q Hq. unfold validb, posb, negvb.
    destruct (Rlt_dec 0 (A i d)), (Rlt_dec (A q d) 0); simpl; try lra.
    apply Rmult_le_pos; [apply Hy; pose proof (pair_index_bound n i q Hi Hq); lia|lra]. }
  assert (H3 : 0 <= sum n (fun p => if validb A d p i then y' (n + (p * n + i))%nat * A p d else 0)).
  { apply sum_nonneg. intros p Hp. unfold validb, posb, negvb.
    destruct (Rlt_dec 0 (A p d)), (Rlt_dec (A i d) 0); simpl; try lra.
    apply Rmult_le_pos; [apply Hy; pose proof (pair_index_bound n p i Hp Hi); lia|lra]. }
  lra.
Qed.

(** A number between finitely many lower and upper bounds, each lower bound below
    each upper bound. *)
Lemma choose_between : forall n (P N : nat -> bool) (up low : nat -> R),
  (forall p q, (p < n)%nat -> (q < n)%nat -> P p = true -> N q = true -> low q <= up p) ->
  exists t, (forall p, (p < n)%nat -> P p = true -> t <= up p) /\
            (forall q, (q < n)%nat -> N q = true -> low q <= t).
Proof.
  induction n as [|n IH]; intros P N up low H.
  - exists 0. split; intros; lia.
  - destruct (IH P N up low) as (t & Hup & Hlow).
    { intros p q Hp Hq. apply H; lia. }
    set (t1 := if P n then Rmin t (up n) else t).
    assert (Ht1u : forall p, (p < S n)%nat -> P p = true -> t1 <= up p).
    { intros p Hp HP. unfold t1. destruct (Nat.eq_dec p n) as [->|Hne].
      - rewrite HP. apply Rmin_r.
      - destruct (P n); [apply (Rle_trans _ t); [apply Rmin_l|]|]; apply Hup; [lia|exact HP|lia|exact HP]. }
    assert (Ht1l : forall q, (q < n)%nat -> N q = true -> low q <= t1).
    { intros q Hq HN. unfold t1. destruct (P n) eqn:EP.
      - apply Rmin_glb; [apply Hlow; assumption|apply H; [lia|lia|exact EP|exact HN]].
      - apply Hlow; assumption. }
    exists (if N n then Rmax t1 (low n) else t1). split.
    + intros p Hp HP. destruct (N n) eqn:EN; [|apply Ht1u; assumption].
      apply Rmax_lub; [apply Ht1u; assumption|apply H; [exact Hp|lia|exact HP|exact EN]].
    + intros q Hq HN. destruct (Nat.eq_dec q n) as [->|Hne].
      * rewrite HN. apply Rmax_r.
      * destruct (N n); [apply (Rle_trans _ t1); [apply Ht1l; [lia|exact HN]|apply Rmax_l]|].
        apply Ht1l; [lia|exact HN].
Qed.

Lemma div_between : forall a c u v, 0 < a -> c < 0 -> 0 <= (- c) * u + a * v -> v / c <= u / a.
Proof.
  intros a c u v Ha Hc H.
  assert (E : u / a - v / c = ((- c) * u + a * v) / (a * (- c))) by (field; lra).
  assert (0 <= ((- c) * u + a * v) / (a * (- c))).
  { unfold Rdiv. apply Rmult_le_pos; [exact H|]. left. apply Rinv_0_lt_compat. nra. }
  lra.
Qed.

(** ** The theorem of alternatives *)

Lemma K_fm_comb : forall K, subfield K -> forall n d A c i',
  (forall i j, K (A i j)) -> (forall i, K (c i)) -> K (fm_comb n d A c i').
Proof.
  intros K HK n d A c i' HA Hc. unfold fm_comb.
  destruct (i' <? n)%nat; [destruct (zerb A d i'); [apply Hc|apply (K0 K HK)]|].
  destruct (validb A d _ _); [|apply (K0 K HK)].
  apply (Kplus K HK); apply (Kmult K HK); try apply (Kopp K HK); auto.
Qed.

Lemma K_fm_dual : forall K, subfield K -> forall n d A y' i,
  (forall i j, K (A i j)) -> (forall i, K (y' i)) -> K (fm_dual n d A y' i).
Proof.
  intros K HK n d A y' i HA Hy. unfold fm_dual.
  apply (Kplus K HK); [apply (Kplus K HK)|].
  - destruct (zerb A d i); [apply Hy|apply (K0 K HK)].
  - apply (Ksum K HK). intros q _. destruct (validb A d i q); [|apply (K0 K HK)].
    apply (Kmult K HK); [apply Hy|apply (Kopp K HK); apply HA].
  - apply (Ksum K HK). intros p _. destruct (validb A d p i); [|apply (K0 K HK)].
    apply (Kmult K HK); [apply Hy|apply HA].
Qed.

(** The alternative with multipliers in every subfield [K] that holds [A] and [b]. *)
Theorem fm_alternative_in : forall K, subfield K -> forall d n (A : mat) (b : vec),
  (forall i j, K (A i j)) -> (forall i, K (b i)) ->
  (exists x : vec, forall i, (i < n)%nat -> mv d A x i <= b i) \/
  (exists y : vec, (forall i, K (y i)) /\ (forall i, (i < n)%nat -> 0 <= y i) /\
     (forall j, (j < d)%nat -> sum n (fun i => y i * A i j) = 0) /\ sum n (fun i => y i * b i) < 0).
Proof.
  intros K HK. induction d as [|d IH]; intros n A b HA HKb.
  - destruct (classic (forall i, (i < n)%nat -> 0 <= b i)) as [Hb|Hb].
    + left. exists (fun _ => 0). intros i Hi. unfold mv. simpl. apply Hb. exact Hi.
    + right. apply not_all_ex_not in Hb. destruct Hb as (i0 & Hi0).
      apply imply_to_and in Hi0. destruct Hi0 as (Hi0 & Hb0).
      exists (fun i => kron i0 i). split; [intros i; apply (Kkron K HK)|].
      split; [intros i _; unfold kron; destruct (Nat.eq_dec i0 i); lra|].
      split; [intros; lia|].
      rewrite sum_kron_l by exact Hi0. lra.
  - destruct (IH (n + n * n)%nat (fm_rows n d A) (fm_comb n d A b)
                 ltac:(intros i j; apply (K_fm_comb K HK); [exact HA|intros; apply HA])
                 ltac:(intros i; apply (K_fm_comb K HK); [exact HA|exact HKb]))
      as [(x' & Hx')|(y' & HKy & Hy' & Hc & Hv)].
    + left.
      set (s := fun i => mv d A x' i).
      assert (Hs : forall i', (i' < n + n * n)%nat -> fm_comb n d A s i' <= fm_comb n d A b i').
      { intros i' Hi'. unfold s. rewrite <- fm_comb_mv. apply Hx'. exact Hi'. }
      destruct (choose_between n (posb A d) (negvb A d) (fun p => (b p - s p) / A p d)
                  (fun q => (b q - s q) / A q d)) as (t & Htu & Htl).
      { intros p q Hp Hq HP HN.
        pose proof (Hs (n + (p * n + q))%nat ltac:(pose proof (pair_index_bound n p q Hp Hq); lia)) as Hpq.
        rewrite !fm_comb_pair in Hpq by exact Hq.
        assert (Hv : validb A d p q = true) by (unfold validb; rewrite HP, HN; reflexivity).
        rewrite Hv in Hpq.
        unfold posb in HP. unfold negvb in HN.
        destruct (Rlt_dec 0 (A p d)) as [Hap|]; [|discriminate].
        destruct (Rlt_dec (A q d) 0) as [Haq|]; [|discriminate].
        apply div_between; [exact Hap|exact Haq|nra]. }
      exists (fun j => if Nat.eqb j d then t else x' j). intros i Hi.
      assert (Emv : mv (S d) A (fun j => if Nat.eqb j d then t else x' j) i = s i + A i d * t).
      { unfold mv, s. simpl. rewrite Nat.eqb_refl. f_equal. apply sum_ext. intros j Hj.
        replace (Nat.eqb j d) with false by (symmetry; apply Nat.eqb_neq; lia). reflexivity. }
      rewrite Emv.
      destruct (Req_EM_T (A i d) 0) as [Hz|Hz].
      * pose proof (Hs i ltac:(lia)) as Hi'. rewrite !fm_comb_low in Hi' by exact Hi.
        unfold zerb in Hi'. destruct (Req_EM_T (A i d) 0); [|contradiction]. rewrite Hz. lra.
      * destruct (Rlt_dec 0 (A i d)) as [Hp|Hnp].
        -- pose proof (Htu i Hi ltac:(unfold posb; destruct (Rlt_dec 0 (A i d)); [reflexivity|contradiction])) as Ht.
           apply (Rmult_le_compat_l (A i d)) in Ht; [|lra].
           replace (A i d * ((b i - s i) / A i d)) with (b i - s i) in Ht by (field; lra). lra.
        -- assert (Hn : A i d < 0) by lra.
           pose proof (Htl i Hi ltac:(unfold negvb; destruct (Rlt_dec (A i d) 0); [reflexivity|contradiction])) as Ht.
           apply (Rmult_le_compat_neg_l (A i d)) in Ht; [|lra].
           replace (A i d * ((b i - s i) / A i d)) with (b i - s i) in Ht by (field; lra). lra.
    + right. exists (fm_dual n d A y'). split; [intros i; apply (K_fm_dual K HK); assumption|].
      split; [apply fm_dual_nonneg; exact Hy'|]. split.
      * intros j Hj. rewrite fm_dual_comb. destruct (Nat.eq_dec j d) as [->|Hne].
        -- apply sum_zero. intros i' _. rewrite fm_comb_last. ring.
        -- exact (Hc j ltac:(lia)).
      * rewrite fm_dual_comb. exact Hv.
Qed.

Theorem fm_alternative : forall d n (A : mat) (b : vec),
  (exists x : vec, forall i, (i < n)%nat -> mv d A x i <= b i) \/
  (exists y : vec, (forall i, (i < n)%nat -> 0 <= y i) /\
     (forall j, (j < d)%nat -> sum n (fun i => y i * A i j) = 0) /\ sum n (fun i => y i * b i) < 0).
Proof.
  intros d n A b.
  destruct (fm_alternative_in (fun _ => True) subfield_all d n A b (fun _ _ => I) (fun _ => I))
    as [Hx|(y & _ & Hy)]; [left; exact Hx|right; exists y; exact Hy].
Qed.

(** ** Multipliers for a bound on a nonempty polyhedron *)

(** The homogenised system in [R^(d+1)], unknowns [(x, s)]: [a_i . x - b_i s <= 0]
    ([i < n]), [-s <= 0] (row [n]) and [-g . x - h s <= -1] (row [n + 1]). *)
Definition hom_rows (d n : nat) (A : mat) (b g : vec) (h : R) : mat :=
  fun i j => if (i <? n)%nat then (if (j <? d)%nat then A i j else - b i)
             else if Nat.eqb i n then (if (j <? d)%nat then 0 else -1)
             else (if (j <? d)%nat then - g j else - h).
Definition hom_rhs (n : nat) : vec := fun i => if Nat.eqb i (S n) then -1 else 0.

Lemma mv_succ : forall d (M : mat) z i, mv (S d) M z i = mv d M z i + M i d * z d.
Proof. intros. reflexivity. Qed.

Lemma hom_mv_low : forall d n A b g h z i, (i < n)%nat ->
  mv (S d) (hom_rows d n A b g h) z i = mv d A z i - b i * z d.
Proof.
  intros. rewrite mv_succ. unfold hom_rows at 2. rewrite ltb_true by exact H.
  rewrite Nat.ltb_irrefl.
  rewrite (mv_row_ext d (hom_rows d n A b g h) A z i) by (intros j Hj; unfold hom_rows; rewrite ltb_true by exact H;
                                  rewrite ltb_true by exact Hj; reflexivity).
  ring.
Qed.

Lemma hom_mv_n : forall d n A b g h z, mv (S d) (hom_rows d n A b g h) z n = - z d.
Proof.
  intros. rewrite mv_succ. unfold hom_rows at 2. rewrite Nat.ltb_irrefl, Nat.eqb_refl, Nat.ltb_irrefl.
  rewrite (mv_row_ext d (hom_rows d n A b g h) (fun _ _ => 0) z n) by (intros j Hj; unfold hom_rows; rewrite Nat.ltb_irrefl, Nat.eqb_refl;
                                               rewrite ltb_true by exact Hj; reflexivity).
  unfold mv. rewrite sum_zero by (intros; ring). ring.
Qed.

Lemma hom_mv_top : forall d n A b g h z,
  mv (S d) (hom_rows d n A b g h) z (S n) = - dot d g z - h * z d.
Proof.
  intros. rewrite mv_succ. unfold hom_rows at 2.
  rewrite ltb_false by lia. replace (Nat.eqb (S n) n) with false by (symmetry; apply Nat.eqb_neq; lia).
  rewrite Nat.ltb_irrefl.
  rewrite (mv_row_ext d (hom_rows d n A b g h) (fun _ j => - g j) z (S n)).
  2:{ intros j Hj. unfold hom_rows. rewrite ltb_false by lia.
      replace (Nat.eqb (S n) n) with false by (symmetry; apply Nat.eqb_neq; lia).
      rewrite ltb_true by exact Hj. reflexivity. }
  unfold mv, dot. rewrite (sum_ext d (fun j => - g j * z j) (fun j => - (g j * z j))) by (intros; ring).
  rewrite sum_opp. ring.
Qed.

Theorem farkas_complete_in : forall K, subfield K -> forall d n (A : mat) (b g : vec) (h : R),
  (forall i j, K (A i j)) -> (forall i, K (b i)) -> (forall j, K (g j)) -> K h ->
  (exists x0, forall i, (i < n)%nat -> mv d A x0 i <= b i) ->
  (forall x, (forall i, (i < n)%nat -> mv d A x i <= b i) -> dot d g x + h <= 0) ->
  exists lam : vec, (forall i, K (lam i)) /\ (forall i, (i < n)%nat -> 0 <= lam i) /\
    (forall j, (j < d)%nat -> sum n (fun i => lam i * A i j) = g j) /\
    sum n (fun i => lam i * b i) + h <= 0.
Proof.
  intros K HK d n A b g h HA HKb Hg Hh (x0 & Hx0) Hbound.
  destruct (fm_alternative_in K HK (S d) (S (S n)) (hom_rows d n A b g h) (hom_rhs n))
    as [(z & Hz)|(y & HKy & Hy & Hc & Hv)].
  { intros i j. unfold hom_rows.
    destruct (i <? n)%nat; [destruct (j <? d)%nat; [apply HA|apply (Kopp K HK); apply HKb]|].
    destruct (Nat.eqb i n); [destruct (j <? d)%nat; [apply (K0 K HK)|apply (Kopp K HK); apply (K1 K HK)]|].
    destruct (j <? d)%nat; apply (Kopp K HK); [apply Hg|exact Hh]. }
  { intros i. unfold hom_rhs. destruct (Nat.eqb i (S n)); [apply (Kopp K HK); apply (K1 K HK)|apply (K0 K HK)]. }
  - exfalso.
    assert (Hlow : forall i, (i < n)%nat -> mv d A z i - b i * z d <= 0).
    { intros i Hi. rewrite <- (hom_mv_low d n A b g h z i Hi). pose proof (Hz i ltac:(lia)) as H.
      unfold hom_rhs in H. replace (Nat.eqb i (S n)) with false in H by (symmetry; apply Nat.eqb_neq; lia).
      exact H. }
    assert (Hs : 0 <= z d).
    { pose proof (Hz n ltac:(lia)) as H. rewrite hom_mv_n in H. unfold hom_rhs in H.
      replace (Nat.eqb n (S n)) with false in H by (symmetry; apply Nat.eqb_neq; lia). lra. }
    assert (Htop : 1 <= dot d g z + h * z d).
    { pose proof (Hz (S n) ltac:(lia)) as H. rewrite hom_mv_top in H. unfold hom_rhs in H.
      rewrite Nat.eqb_refl in H. lra. }
    destruct (Rle_lt_or_eq_dec 0 (z d) Hs) as [Hpos|Hzero].
    + (* [z / s] lies in the polyhedron and violates the bound *)
      pose proof (Hbound (fun j => z j / z d)) as Hb.
      assert (Hin : forall i, (i < n)%nat -> mv d A (fun j => z j / z d) i <= b i).
      { intros i Hi. replace (mv d A (fun j => z j / z d) i) with (mv d A z i / z d).
        - pose proof (Hlow i Hi). apply (Rmult_le_reg_r (z d)); [exact Hpos|].
          replace (mv d A z i / z d * z d) with (mv d A z i) by (field; lra). lra.
        - unfold mv, Rdiv. rewrite <- sum_scal_r. apply sum_ext. intros; ring. }
      specialize (Hb Hin).
      replace (dot d g (fun j => z j / z d)) with (dot d g z / z d) in Hb
        by (unfold dot, Rdiv; rewrite <- sum_scal_r; apply sum_ext; intros; ring).
      assert (0 < (dot d g z + h * z d) / z d) by (apply Rdiv_lt_0_compat; lra).
      replace ((dot d g z + h * z d) / z d) with (dot d g z / z d + h) in H by (field; lra). lra.
    + (* a recession direction along which [g . x] grows *)
      rewrite <- Hzero in Hlow, Htop.
      set (t := Rabs (dot d g x0 + h) + 1).
      assert (Ht : 0 <= t) by (unfold t; pose proof (Rabs_pos (dot d g x0 + h)); lra).
      pose proof (Hbound (fun j => x0 j + t * z j)) as Hb.
      assert (Hin : forall i, (i < n)%nat -> mv d A (fun j => x0 j + t * z j) i <= b i).
      { intros i Hi. rewrite mv_axpy. pose proof (Hlow i Hi). pose proof (Hx0 i Hi).
        assert (t * mv d A z i <= 0) by nra. lra. }
      specialize (Hb Hin). rewrite dot_axpy in Hb.
      pose proof (Rle_abs (- (dot d g x0 + h))). rewrite Rabs_Ropp in H.
      assert (t <= t * dot d g z) by (rewrite <- (Rmult_1_r t) at 1; apply Rmult_le_compat_l; lra).
      unfold t in *. lra.
  - (* multipliers: divide by the one of the row [n + 1] *)
    assert (Hsum : forall f : nat -> R, sum (S (S n)) f = sum n f + f n + f (S n)) by reflexivity.
    set (yt := y (S n)).
    assert (Hyt : 0 < yt).
    { rewrite Hsum in Hv. unfold hom_rhs in Hv. rewrite Nat.eqb_refl in Hv.
      replace (Nat.eqb n (S n)) with false in Hv by (symmetry; apply Nat.eqb_neq; lia).
      rewrite (sum_zero n) in Hv.
      - fold yt in Hv. lra.
      - intros i Hi. replace (Nat.eqb i (S n)) with false by (symmetry; apply Nat.eqb_neq; lia). ring. }
    exists (fun i => y i / yt). split; [intros i; apply (Kdiv K HK); [apply HKy|apply HKy|lra]|]. split; [|split].
    + intros i Hi. unfold Rdiv. apply Rmult_le_pos; [apply Hy; lia|left; apply Rinv_0_lt_compat; exact Hyt].
    + intros j Hj. pose proof (Hc j ltac:(lia)) as H. rewrite Hsum in H.
      unfold hom_rows in H at 2 3. rewrite Nat.ltb_irrefl, Nat.eqb_refl in H.
      rewrite (ltb_false (S n) n) in H by lia.
      replace (Nat.eqb (S n) n) with false in H by (symmetry; apply Nat.eqb_neq; lia).
      rewrite (ltb_true j d Hj) in H.
      rewrite (sum_ext n (fun i => y i * hom_rows d n A b g h i j) (fun i => y i * A i j)) in H.
      2:{ intros i Hi. unfold hom_rows. rewrite ltb_true by exact Hi. rewrite ltb_true by exact Hj. reflexivity. }
      unfold Rdiv. rewrite (sum_ext n (fun i => y i * / yt * A i j) (fun i => / yt * (y i * A i j))) by (intros; ring).
      rewrite sum_scal_l. fold yt in H.
      replace (sum n (fun i => y i * A i j)) with (yt * g j) by lra. field. lra.
    + pose proof (Hc d ltac:(lia)) as H. rewrite Hsum in H.
      unfold hom_rows in H at 2 3. rewrite Nat.ltb_irrefl, Nat.eqb_refl in H.
      rewrite (ltb_false (S n) n) in H by lia.
      replace (Nat.eqb (S n) n) with false in H by (symmetry; apply Nat.eqb_neq; lia).
      rewrite Nat.ltb_irrefl in H.
      rewrite (sum_ext n (fun i => y i * hom_rows d n A b g h i d) (fun i => - (y i * b i))) in H.
      2:{ intros i Hi. unfold hom_rows. rewrite ltb_true by exact Hi. rewrite Nat.ltb_irrefl. ring. }
      rewrite sum_opp in H. fold yt in H.
      unfold Rdiv. rewrite (sum_ext n (fun i => y i * / yt * b i) (fun i => / yt * (y i * b i))) by (intros; ring).
      rewrite sum_scal_l.
      assert (Hyn : 0 <= y n) by (apply Hy; lia).
      replace (sum n (fun i => y i * b i)) with (- y n - yt * h) by lra.
      replace (/ yt * (- y n - yt * h) + h) with (- (y n / yt)) by (field; lra).
      assert (0 <= y n / yt) by (unfold Rdiv; apply Rmult_le_pos; [lra|left; apply Rinv_0_lt_compat; lra]). lra.
Qed.

Theorem farkas_complete : forall d n (A : mat) (b g : vec) (h : R),
  (exists x0, forall i, (i < n)%nat -> mv d A x0 i <= b i) ->
  (forall x, (forall i, (i < n)%nat -> mv d A x i <= b i) -> dot d g x + h <= 0) ->
  exists lam : vec, (forall i, (i < n)%nat -> 0 <= lam i) /\
    (forall j, (j < d)%nat -> sum n (fun i => lam i * A i j) = g j) /\
    sum n (fun i => lam i * b i) + h <= 0.
Proof.
  intros d n A b g h Hne Hbound.
  destruct (farkas_complete_in (fun _ => True) subfield_all d n A b g h (fun _ _ => I) (fun _ => I)
              (fun _ => I) I Hne Hbound) as (lam & _ & Hlam). exists lam. exact Hlam.
Qed.

(** ** The certificates of [dead_on_image] exist whenever it holds *)

Lemma region_polyhedron : forall d B1 S x,
  (forall l, (l < bwidth B1)%nat -> mv d (region_rows B1 S) x l <= region_rhs B1 S l) ->
  in_region d B1 S x.
Proof.
  intros d B1 S x H l Hl. specialize (H l Hl). rewrite region_rows_mv in H.
  unfold region_rhs in H. destruct (S l); lra.
Qed.

(** Unit [j] of block 2 on the closed region of [S] is [cert_g . x + cert_h]. *)
Lemma unit_on_region : forall d M1 B1 B2 S j x, in_region d B1 S x ->
  mv d (bWup B2) (rblock d M1 B1 x) j + bup B2 j = dot d (cert_g d M1 B1 B2 S j) x + cert_h d B1 B2 S j.
Proof.
  intros d M1 B1 B2 S j x Hreg. unfold cert_g, cert_h. rewrite dot_transpose, mv_dot.
  rewrite (dot_ext d (bWup B2 j) (rblock d M1 B1 x)
             (fun i => mv d (piece_lin d M1 B1 S) x i + piece_const B1 S i))
    by (intros i Hi; apply block1_piece_on; exact Hreg).
  unfold dot.
  rewrite (sum_ext d (fun i => bWup B2 j i * (mv d (piece_lin d M1 B1 S) x i + piece_const B1 S i))
             (fun i => bWup B2 j i * mv d (piece_lin d M1 B1 S) x i + bWup B2 j i * piece_const B1 S i))
    by (intros; ring).
  rewrite sum_plus. ring.
Qed.

Theorem certificates_of_dead_on_image : forall (d : nat) (M1 : mat) (B1 B2 : blayer),
  dead_on d M1 B1 B2 ->
  forall (S : nat -> bool) j, (j < bwidth B2)%nat -> bound_cert d M1 B1 B2 S j \/ empty_cert d B1 S.
Proof.
  intros d M1 B1 B2 Hdead S j Hj.
  destruct (fm_alternative d (bwidth B1) (region_rows B1 S) (region_rhs B1 S))
    as [Hne|(y & Hy & Hc & Hv)].
  - left. apply (farkas_complete d (bwidth B1) (region_rows B1 S) (region_rhs B1 S)); [exact Hne|].
    intros x Hx. rewrite <- (unit_on_region d M1 B1 B2 S j x (region_polyhedron d B1 S x Hx)).
    apply Hdead. exact Hj.
  - right. exists y. split; [exact Hy|]. split; [exact Hc|exact Hv].
Qed.

(** The hypothesis [dead_on_image] holds iff every activation pattern of block 1 and
    every unit of block 2 have a certificate. *)
Theorem dead_on_image_iff_certificates : forall (d : nat) (M1 : mat) (B1 B2 : blayer),
  dead_on d M1 B1 B2 <->
  (forall (S : nat -> bool) j, (j < bwidth B2)%nat -> bound_cert d M1 B1 B2 S j \/ empty_cert d B1 S).
Proof.
  intros d M1 B1 B2. split.
  - apply certificates_of_dead_on_image.
  - apply dead_on_image_of_certificates.
Qed.

(** ** At most [d + 1] nonzero multipliers (Caratheodory) *)

(** The number of indices [i < n] with [P i]. *)
Fixpoint cnt (n : nat) (P : nat -> bool) : nat :=
  match n with O => O | S k => (cnt k P + (if P k then 1 else 0))%nat end.

(** The support of a vector. *)
Definition nzb (f : vec) (i : nat) : bool := if Req_EM_T (f i) 0 then false else true.

Lemma cnt_zero : forall n P, (forall i, (i < n)%nat -> P i = false) -> cnt n P = O.
Proof.
  induction n as [|n IH]; intros P H; [reflexivity|]. simpl. rewrite IH by (intros; apply H; lia).
  rewrite H by lia. reflexivity.
Qed.

Lemma cnt_remove : forall n P a,
  cnt n P = (cnt n (fun i => andb (P i) (negb (Nat.eqb i a))) + (if (a <? n)%nat && P a then 1 else 0))%nat.
Proof.
  induction n as [|n IH]; intros P a; [reflexivity|]. simpl. rewrite (IH P a).
  destruct (Nat.eq_dec n a) as [->|Hne].
  - rewrite Nat.eqb_refl, Nat.ltb_irrefl. replace (a <? S a)%nat with true by (symmetry; apply Nat.ltb_lt; lia).
    destruct (P a); simpl; lia.
  - replace (Nat.eqb n a) with false by (symmetry; apply Nat.eqb_neq; exact Hne).
    replace (a <? S n)%nat with (a <? n)%nat.
    + destruct (P n); simpl; lia.
    + destruct (a <? n)%nat eqn:E; symmetry.
      * apply Nat.ltb_lt. apply Nat.ltb_lt in E. lia.
      * apply Nat.ltb_ge. apply Nat.ltb_ge in E. lia.
Qed.

Lemma cnt_lt : forall n (P P' : nat -> bool) i0,
  (forall i, (i < n)%nat -> P' i = true -> P i = true) ->
  (i0 < n)%nat -> P i0 = true -> P' i0 = false -> (cnt n P' < cnt n P)%nat.
Proof.
  assert (Hle : forall n (P P' : nat -> bool), (forall i, (i < n)%nat -> P' i = true -> P i = true) ->
                  (cnt n P' <= cnt n P)%nat).
  { induction n as [|n IH]; intros P P' H; simpl; [lia|].
    pose proof (IH P P' ltac:(intros; apply H; [lia|assumption])).
    destruct (P' n) eqn:E'; [rewrite (H n ltac:(lia) E')|destruct (P n)]; lia. }
  induction n as [|n IH]; intros P P' i0 H Hi0 HP HP'; [lia|]. simpl.
  destruct (Nat.eq_dec i0 n) as [->|Hne].
  - rewrite HP, HP'. pose proof (Hle n P P' ltac:(intros; apply H; [lia|assumption])). lia.
  - pose proof (IH P P' i0 ltac:(intros; apply H; [lia|assumption]) ltac:(lia) HP HP').
    destruct (P' n) eqn:E'; [rewrite (H n ltac:(lia) E')|destruct (P n)]; lia.
Qed.

(** More than [D] vectors of [R^D] (those with [P]) are dependent, with coefficients in
    every subfield that holds the vectors (elimination of the last coordinate). *)
Lemma support_dependent_in : forall K, subfield K -> forall D n (V : nat -> vec) (P : nat -> bool),
  (forall i j, K (V i j)) -> (D < cnt n P)%nat ->
  exists mu : vec, (forall i, K (mu i)) /\ (forall i, (i < n)%nat -> P i = false -> mu i = 0) /\
    (exists i, (i < n)%nat /\ mu i <> 0) /\
    (forall j, (j < D)%nat -> sum n (fun i => mu i * V i j) = 0).
Proof.
  intros K HK. induction D as [|D IH]; intros n V P HV Hcnt.
  - assert (Hex : exists i0, (i0 < n)%nat /\ P i0 = true).
    { apply NNPP. intros Hno. rewrite cnt_zero in Hcnt; [lia|]. intros i Hi.
      destruct (P i) eqn:E; [|reflexivity]. exfalso. apply Hno. exists i. split; assumption. }
    destruct Hex as (i0 & Hi0 & HP0).
    exists (fun i => kron i0 i). split; [intros; apply (Kkron K HK)|]. split; [|split].
    + intros i Hi HPi. unfold kron. destruct (Nat.eq_dec i0 i) as [->|]; [congruence|reflexivity].
    + exists i0. split; [exact Hi0|]. unfold kron. destruct (Nat.eq_dec i0 i0); [lra|congruence].
    + intros; lia.
  - destruct (classic (exists p, (p < n)%nat /\ P p = true /\ V p D <> 0)) as [(p & Hp & HPp & HVp)|Hno].
    + set (W := fun i j => V i j - V i D / V p D * V p j).
      set (P' := fun i => andb (P i) (negb (Nat.eqb i p))).
      assert (Hcnt' : (D < cnt n P')%nat).
      { pose proof (cnt_remove n P p) as E. rewrite (ltb_true p n Hp), HPp in E. simpl in E. unfold P'. lia. }
      destruct (IH n W P' ltac:(intros i j; unfold W; apply (Kminus K HK); [apply HV|apply (Kmult K HK); [apply (Kdiv K HK); [apply HV|apply HV|exact HVp]|apply HV]]) Hcnt')
        as (mu' & HKmu & Hsupp & (i1 & Hi1 & Hmu1) & Hdep).
      assert (Hmup : mu' p = 0).
      { apply Hsupp; [exact Hp|]. unfold P'. rewrite Nat.eqb_refl. destruct (P p); reflexivity. }
      set (t := - (sum n (fun i => mu' i * V i D)) / V p D).
      exists (fun i => mu' i + t * kron p i). split; [|split; [|split]].
      * intros i. apply (Kplus K HK); [apply HKmu|apply (Kmult K HK); [|apply (Kkron K HK)]].
        unfold t. apply (Kdiv K HK); [|apply HV|exact HVp].
        apply (Kopp K HK). apply (Ksum K HK). intros. apply (Kmult K HK); [apply HKmu|apply HV].
      * intros i Hi HPi. assert (p <> i) by (intros ->; congruence).
        rewrite (Hsupp i Hi) by (unfold P'; rewrite HPi; reflexivity).
        unfold kron. destruct (Nat.eq_dec p i); [contradiction|ring].
      * exists i1. split; [exact Hi1|].
        assert (Hp1 : p <> i1) by (intros ->; apply Hmu1; exact Hmup).
        unfold kron. destruct (Nat.eq_dec p i1); [contradiction|]. rewrite Rmult_0_r, Rplus_0_r. exact Hmu1.
      * intros j Hj.
        rewrite (sum_ext n _ (fun i => mu' i * V i j + t * (kron p i * V i j))) by (intros; ring).
        rewrite sum_plus, sum_scal_l, (sum_kron_l n (fun i => V i j) p Hp).
        destruct (Nat.eq_dec j D) as [->|Hne].
        -- unfold t. field. exact HVp.
        -- pose proof (Hdep j ltac:(lia)) as E. unfold W in E.
           rewrite (sum_ext n _ (fun i => mu' i * V i j - V p j / V p D * (mu' i * V i D))) in E
             by (intros; field; assumption).
           rewrite sum_minus, sum_scal_l in E. unfold t.
           replace (sum n (fun i => mu' i * V i j)) with (V p j / V p D * sum n (fun i => mu' i * V i D)) by lra.
           field. exact HVp.
    + destruct (IH n V P HV ltac:(lia)) as (mu & HKmu & Hsupp & Hnz & Hdep).
      exists mu. split; [exact HKmu|]. split; [exact Hsupp|]. split; [exact Hnz|].
      intros j Hj. destruct (Nat.eq_dec j D) as [->|Hne]; [|apply Hdep; lia].
      apply sum_zero. intros i Hi. destruct (P i) eqn:E.
      * destruct (Req_EM_T (V i D) 0) as [Hz|Hz]; [rewrite Hz; ring|].
        exfalso. apply Hno. exists i. split; [exact Hi|]. split; assumption.
      * rewrite (Hsupp i Hi E). ring.
Qed.

(** The least ratio [lam_i / nu_i] over the indices with [nu_i > 0]. *)
Lemma min_ratio : forall n (lam nu : vec), (exists i, (i < n)%nat /\ 0 < nu i) ->
  exists i0, (i0 < n)%nat /\ 0 < nu i0 /\
    forall i, (i < n)%nat -> 0 < nu i -> lam i0 / nu i0 <= lam i / nu i.
Proof.
  induction n as [|n IH]; intros lam nu (i & Hi & Hnu); [lia|].
  destruct (classic (exists i, (i < n)%nat /\ 0 < nu i)) as [Hex|Hno].
  - destruct (IH lam nu Hex) as (i0 & Hi0 & Hnu0 & Hmin).
    destruct (Rlt_dec 0 (nu n)) as [Hn|Hn].
    + destruct (Rle_dec (lam i0 / nu i0) (lam n / nu n)) as [Hle|Hgt].
      * exists i0. split; [lia|]. split; [exact Hnu0|]. intros k Hk Hk'.
        destruct (Nat.eq_dec k n) as [->|]; [exact Hle|apply Hmin; [lia|exact Hk']].
      * exists n. split; [lia|]. split; [exact Hn|]. intros k Hk Hk'.
        destruct (Nat.eq_dec k n) as [->|]; [lra|].
        pose proof (Hmin k ltac:(lia) Hk'). lra.
    + exists i0. split; [lia|]. split; [exact Hnu0|]. intros k Hk Hk'.
      destruct (Nat.eq_dec k n) as [->|]; [lra|apply Hmin; [lia|exact Hk']].
  - assert (i = n). { destruct (Nat.eq_dec i n); [assumption|]. exfalso. apply Hno. exists i. split; [lia|exact Hnu]. }
    subst i. exists n. split; [lia|]. split; [exact Hnu|]. intros k Hk Hk'.
    destruct (Nat.eq_dec k n) as [->|]; [lra|]. exfalso. apply Hno. exists k. split; [lia|exact Hk'].
Qed.

(** One step: a nonnegative combination with more than [D] nonzero coefficients has one
    with fewer and the same value. *)
Lemma caratheodory_step_in : forall K, subfield K -> forall D n (V : nat -> vec) (lam : vec),
  (forall i j, K (V i j)) -> (forall i, K (lam i)) ->
  (forall i, (i < n)%nat -> 0 <= lam i) -> (D < cnt n (nzb lam))%nat ->
  exists lam' : vec, (forall i, K (lam' i)) /\ (forall i, (i < n)%nat -> 0 <= lam' i) /\
    (forall j, (j < D)%nat -> sum n (fun i => lam' i * V i j) = sum n (fun i => lam i * V i j)) /\
    (cnt n (nzb lam') < cnt n (nzb lam))%nat.
Proof.
  intros K HK D n V lam HV HKlam Hlam Hcnt.
  destruct (support_dependent_in K HK D n V (nzb lam) HV Hcnt) as (mu & HKmu & Hsupp & (i1 & Hi1 & Hmu1) & Hdep).
  (* a dependence with a positive entry *)
  assert (Hnu : exists nu : vec, (forall i, K (nu i)) /\ (forall i, (i < n)%nat -> nzb lam i = false -> nu i = 0) /\
                  (exists i, (i < n)%nat /\ 0 < nu i) /\
                  (forall j, (j < D)%nat -> sum n (fun i => nu i * V i j) = 0)).
  { destruct (classic (exists i, (i < n)%nat /\ 0 < mu i)) as [Hpos|Hnopos].
    - exists mu. split; [exact HKmu|]. split; [exact Hsupp|]. split; [exact Hpos|exact Hdep].
    - exists (fun i => - mu i). split; [intros i; apply (Kopp K HK); apply HKmu|]. split; [|split].
      + intros i Hi H. rewrite (Hsupp i Hi H). ring.
      + exists i1. split; [exact Hi1|].
        destruct (Rlt_dec 0 (mu i1)) as [Hp|Hp]; [exfalso; apply Hnopos; exists i1; split; assumption|].
        lra.
      + intros j Hj. rewrite (sum_ext n _ (fun i => - (mu i * V i j))) by (intros; ring).
        rewrite sum_opp, Hdep by exact Hj. ring. }
  destruct Hnu as (nu & HKnu & Hnsupp & Hnpos & Hndep).
  destruct (min_ratio n lam nu Hnpos) as (i0 & Hi0 & Hnu0 & Hmin).
  set (theta := lam i0 / nu i0).
  assert (Htheta : 0 <= theta).
  { unfold theta, Rdiv. apply Rmult_le_pos; [apply Hlam; exact Hi0|left; apply Rinv_0_lt_compat; exact Hnu0]. }
  exists (fun i => lam i - theta * nu i).
  split; [intros i; apply (Kminus K HK); [apply HKlam|apply (Kmult K HK); [apply (Kdiv K HK); [apply HKlam|apply HKnu|lra]|apply HKnu]]|].
  split; [|split].
  - intros i Hi. destruct (Rlt_dec 0 (nu i)) as [Hp|Hp].
    + pose proof (Hmin i Hi Hp) as Hm. fold theta in Hm.
      apply (Rmult_le_compat_r (nu i)) in Hm; [|lra].
      replace (lam i / nu i * nu i) with (lam i) in Hm by (field; lra). lra.
    + pose proof (Hlam i Hi). nra.
  - intros j Hj.
    rewrite (sum_ext n _ (fun i => lam i * V i j - theta * (nu i * V i j))) by (intros; ring).
    rewrite sum_minus, sum_scal_l, Hndep by exact Hj. ring.
  - apply (cnt_lt n (nzb lam) _ i0).
    + intros i Hi H. destruct (nzb lam i) eqn:E; [reflexivity|].
      pose proof (Hnsupp i Hi E) as Hn0. unfold nzb in E, H.
      destruct (Req_EM_T (lam i) 0) as [Hz|]; [|discriminate].
      destruct (Req_EM_T (lam i - theta * nu i) 0) as [|Hne]; [discriminate|].
      exfalso. apply Hne. rewrite Hz, Hn0. ring.
    + exact Hi0.
    + destruct (nzb lam i0) eqn:E; [reflexivity|]. rewrite (Hnsupp i0 Hi0 E) in Hnu0. lra.
    + unfold nzb. destruct (Req_EM_T (lam i0 - theta * nu i0) 0) as [|Hne]; [reflexivity|].
      exfalso. apply Hne. unfold theta. field. lra.
Qed.

(** Caratheodory: a nonnegative combination of vectors of [R^D] equals one with at most
    [D] nonzero coefficients. *)
Theorem caratheodory_in : forall K, subfield K -> forall D n (V : nat -> vec) (lam : vec),
  (forall i j, K (V i j)) -> (forall i, K (lam i)) ->
  (forall i, (i < n)%nat -> 0 <= lam i) ->
  exists lam' : vec, (forall i, K (lam' i)) /\ (forall i, (i < n)%nat -> 0 <= lam' i) /\
    (forall j, (j < D)%nat -> sum n (fun i => lam' i * V i j) = sum n (fun i => lam i * V i j)) /\
    (cnt n (nzb lam') <= D)%nat.
Proof.
  intros K HK D n V lam0 HV HKlam0 Hlam0.
  assert (Hgen : forall N lam, (cnt n (nzb lam) <= N)%nat -> (forall i, K (lam i)) -> (forall i, (i < n)%nat -> 0 <= lam i) ->
            exists lam' : vec, (forall i, K (lam' i)) /\ (forall i, (i < n)%nat -> 0 <= lam' i) /\
              (forall j, (j < D)%nat -> sum n (fun i => lam' i * V i j) = sum n (fun i => lam i * V i j)) /\
              (cnt n (nzb lam') <= D)%nat).
  { induction N as [|N IH]; intros lam HN HKlam Hlam.
    - exists lam. split; [exact HKlam|]. split; [exact Hlam|]. split; [reflexivity|lia].
    - destruct (Nat.le_gt_cases (cnt n (nzb lam)) D) as [Hsmall|Hbig].
      + exists lam. split; [exact HKlam|]. split; [exact Hlam|]. split; [reflexivity|exact Hsmall].
      + destruct (caratheodory_step_in K HK D n V lam HV HKlam Hlam Hbig) as (lam1 & HK1 & Hl1 & Hs1 & Hc1).
        destruct (IH lam1 ltac:(lia) HK1 Hl1) as (lam2 & HK2 & Hl2 & Hs2 & Hc2).
        exists lam2. split; [exact HK2|]. split; [exact Hl2|]. split; [|exact Hc2].
        intros j Hj. rewrite Hs2 by exact Hj. apply Hs1. exact Hj. }
  exact (Hgen _ lam0 (le_n _) HKlam0 Hlam0).
Qed.

Theorem caratheodory : forall D n (V : nat -> vec) (lam : vec),
  (forall i, (i < n)%nat -> 0 <= lam i) ->
  exists lam' : vec, (forall i, (i < n)%nat -> 0 <= lam' i) /\
    (forall j, (j < D)%nat -> sum n (fun i => lam' i * V i j) = sum n (fun i => lam i * V i j)) /\
    (cnt n (nzb lam') <= D)%nat.
Proof.
  intros D n V lam Hlam.
  destruct (caratheodory_in (fun _ => True) subfield_all D n V lam (fun _ _ => I) (fun _ => I) Hlam)
    as (lam' & _ & H). exists lam'. exact H.
Qed.

(** ** Certificates with at most [d + 1] nonzero multipliers *)

Definition small_bound_cert (d : nat) (M1 : mat) (B1 B2 : blayer) (S : nat -> bool) (j : nat) : Prop :=
  exists lam : vec, (forall l, (l < bwidth B1)%nat -> 0 <= lam l) /\
    (forall k, (k < d)%nat -> sum (bwidth B1) (fun l => lam l * region_rows B1 S l k) = cert_g d M1 B1 B2 S j k) /\
    sum (bwidth B1) (fun l => lam l * region_rhs B1 S l) + cert_h d B1 B2 S j <= 0 /\
    (cnt (bwidth B1) (nzb lam) <= d + 1)%nat.
Definition small_empty_cert (d : nat) (B1 : blayer) (S : nat -> bool) : Prop :=
  exists y : vec, (forall l, (l < bwidth B1)%nat -> 0 <= y l) /\
    (forall k, (k < d)%nat -> sum (bwidth B1) (fun l => y l * region_rows B1 S l k) = 0) /\
    sum (bwidth B1) (fun l => y l * region_rhs B1 S l) < 0 /\
    (cnt (bwidth B1) (nzb y) <= d + 1)%nat.

(** The rows [(a_l, b_l)] of the region in [R^(d+1)]. *)
Definition region_ext (d : nat) (B1 : blayer) (S : nat -> bool) : nat -> vec :=
  fun l k => if (k <? d)%nat then region_rows B1 S l k else region_rhs B1 S l.

Lemma shrink_multipliers : forall K, subfield K -> forall d B1 S (lam : vec),
  (forall l k, K (region_ext d B1 S l k)) -> (forall l, K (lam l)) ->
  (forall l, (l < bwidth B1)%nat -> 0 <= lam l) ->
  exists lam' : vec, (forall l, K (lam' l)) /\ (forall l, (l < bwidth B1)%nat -> 0 <= lam' l) /\
    (forall k, (k < d)%nat -> sum (bwidth B1) (fun l => lam' l * region_rows B1 S l k) =
                              sum (bwidth B1) (fun l => lam l * region_rows B1 S l k)) /\
    sum (bwidth B1) (fun l => lam' l * region_rhs B1 S l) = sum (bwidth B1) (fun l => lam l * region_rhs B1 S l) /\
    (cnt (bwidth B1) (nzb lam') <= d + 1)%nat.
Proof.
  intros K HK d B1 S lam Hext HKlam Hlam.
  destruct (caratheodory_in K HK (d + 1)%nat (bwidth B1) (region_ext d B1 S) lam Hext HKlam Hlam)
    as (lam' & HK' & Hl & Hs & Hc).
  exists lam'. split; [exact HK'|]. split; [exact Hl|]. split; [|split; [|exact Hc]].
  - intros k Hk. pose proof (Hs k ltac:(lia)) as E. unfold region_ext in E.
    rewrite (sum_ext _ (fun l => lam' l * (if (k <? d)%nat then region_rows B1 S l k else region_rhs B1 S l))
               (fun l => lam' l * region_rows B1 S l k)) in E by (intros; rewrite ltb_true by exact Hk; reflexivity).
    rewrite (sum_ext _ (fun l => lam l * (if (k <? d)%nat then region_rows B1 S l k else region_rhs B1 S l))
               (fun l => lam l * region_rows B1 S l k)) in E by (intros; rewrite ltb_true by exact Hk; reflexivity).
    exact E.
  - pose proof (Hs d ltac:(lia)) as E. unfold region_ext in E.
    rewrite (sum_ext _ (fun l => lam' l * (if (d <? d)%nat then region_rows B1 S l d else region_rhs B1 S l))
               (fun l => lam' l * region_rhs B1 S l)) in E by (intros; rewrite Nat.ltb_irrefl; reflexivity).
    rewrite (sum_ext _ (fun l => lam l * (if (d <? d)%nat then region_rows B1 S l d else region_rhs B1 S l))
               (fun l => lam l * region_rhs B1 S l)) in E by (intros; rewrite Nat.ltb_irrefl; reflexivity).
    exact E.
Qed.

(** [dead_on_image] holds iff every activation pattern of block 1 and unit of block 2
    have a certificate with at most [d + 1] nonzero multipliers (so a search over the
    supports of size [<= d + 1] decides it). *)
Theorem dead_on_image_iff_small_certificates : forall (d : nat) (M1 : mat) (B1 B2 : blayer),
  dead_on d M1 B1 B2 <->
  (forall (S : nat -> bool) j, (j < bwidth B2)%nat ->
     small_bound_cert d M1 B1 B2 S j \/ small_empty_cert d B1 S).
Proof.
  intros d M1 B1 B2. split.
  - intros Hdead S j Hj.
    destruct (certificates_of_dead_on_image d M1 B1 B2 Hdead S j Hj) as [(lam & Hl & Hc & Hv)|(y & Hy & Hc & Hv)].
    + left. destruct (shrink_multipliers (fun _ => True) subfield_all d B1 S lam (fun _ _ => I) (fun _ => I) Hl)
        as (lam' & _ & Hl' & Hc' & Hb' & Hn').
      exists lam'. split; [exact Hl'|]. split; [|split; [rewrite Hb'; exact Hv|exact Hn']].
      intros k Hk. rewrite Hc' by exact Hk. apply Hc. exact Hk.
    + right. destruct (shrink_multipliers (fun _ => True) subfield_all d B1 S y (fun _ _ => I) (fun _ => I) Hy)
        as (y' & _ & Hy' & Hc' & Hb' & Hn').
      exists y'. split; [exact Hy'|]. split; [|split; [rewrite Hb'; exact Hv|exact Hn']].
      intros k Hk. rewrite Hc' by exact Hk. apply Hc. exact Hk.
  - intros Hcert. apply dead_on_image_of_certificates. intros S j Hj.
    destruct (Hcert S j Hj) as [(lam & Hl & Hc & Hv & _)|(y & Hy & Hc & Hv & _)].
    + left. exists lam. split; [exact Hl|]. split; [exact Hc|exact Hv].
    + right. exists y. split; [exact Hy|]. split; [exact Hc|exact Hv].
Qed.

(** ** Rational weights: rational certificates *)

(** Every entry the certificates use is rational. *)
Definition rational_weights (M1 : mat) (B1 B2 : blayer) : Prop :=
  (forall i j, rational (M1 i j)) /\ (forall i l, rational (bWdown B1 i l)) /\
  (forall l j, rational (bWup B1 l j)) /\ (forall l, rational (bup B1 l)) /\
  (forall i, rational (bdown B1 i)) /\ (forall l j, rational (bWup B2 l j)) /\ (forall l, rational (bup B2 l)).

Definition rational_bound_cert (d : nat) (M1 : mat) (B1 B2 : blayer) (S : nat -> bool) (j : nat) : Prop :=
  exists lam : vec, (forall l, rational (lam l)) /\ (forall l, (l < bwidth B1)%nat -> 0 <= lam l) /\
    (forall k, (k < d)%nat -> sum (bwidth B1) (fun l => lam l * region_rows B1 S l k) = cert_g d M1 B1 B2 S j k) /\
    sum (bwidth B1) (fun l => lam l * region_rhs B1 S l) + cert_h d B1 B2 S j <= 0 /\
    (cnt (bwidth B1) (nzb lam) <= d + 1)%nat.
Definition rational_empty_cert (d : nat) (B1 : blayer) (S : nat -> bool) : Prop :=
  exists y : vec, (forall l, rational (y l)) /\ (forall l, (l < bwidth B1)%nat -> 0 <= y l) /\
    (forall k, (k < d)%nat -> sum (bwidth B1) (fun l => y l * region_rows B1 S l k) = 0) /\
    sum (bwidth B1) (fun l => y l * region_rhs B1 S l) < 0 /\
    (cnt (bwidth B1) (nzb y) <= d + 1)%nat.

Lemma rational_data : forall d M1 B1 B2 S j, rational_weights M1 B1 B2 ->
  (forall l k, rational (region_rows B1 S l k)) /\ (forall l, rational (region_rhs B1 S l)) /\
  (forall k, rational (cert_g d M1 B1 B2 S j k)) /\ rational (cert_h d B1 B2 S j).
Proof.
  intros d M1 B1 B2 S j (HM & HWd & HWu & Hbu & Hbd & HU2 & Hc2).
  pose proof subfield_rational as HK.
  assert (Hpl : forall i k, rational (piece_lin d M1 B1 S i k)).
  { intros i k. unfold piece_lin. apply (Kplus _ HK); [apply HM|]. apply (Ksum _ HK). intros l _.
    apply (Kmult _ HK); [apply HWd|]. destruct (S l); [apply HWu|apply (K0 _ HK)]. }
  assert (Hpc : forall i, rational (piece_const B1 S i)).
  { intros i. unfold piece_const. apply (Kplus _ HK); [|apply Hbd]. apply (Ksum _ HK). intros l _.
    apply (Kmult _ HK); [apply HWd|]. destruct (S l); [apply Hbu|apply (K0 _ HK)]. }
  split; [|split; [|split]].
  - intros l k. unfold region_rows. destruct (S l); [apply (Kopp _ HK)|]; apply HWu.
  - intros l. unfold region_rhs. destruct (S l); [|apply (Kopp _ HK)]; apply Hbu.
  - intros k. unfold cert_g, transpose_mv. apply (Ksum _ HK). intros i _.
    apply (Kmult _ HK); [apply HU2|apply Hpl].
  - unfold cert_h, dot. apply (Kplus _ HK); [|apply Hc2]. apply (Ksum _ HK). intros i _.
    apply (Kmult _ HK); [apply HU2|apply Hpc].
Qed.

(** With rational weights, [dead_on_image] holds iff every activation pattern of block 1
    and unit of block 2 have a certificate with rational multipliers, at most [d + 1] of
    them nonzero: the hypothesis is decided exactly by a finite search in rationals. *)
Theorem dead_on_image_iff_rational_certificates : forall (d : nat) (M1 : mat) (B1 B2 : blayer),
  rational_weights M1 B1 B2 ->
  (dead_on d M1 B1 B2 <->
   forall (S : nat -> bool) j, (j < bwidth B2)%nat ->
     rational_bound_cert d M1 B1 B2 S j \/ rational_empty_cert d B1 S).
Proof.
  intros d M1 B1 B2 Hrat. pose proof subfield_rational as HK. split.
  - intros Hdead S j Hj.
    destruct (rational_data d M1 B1 B2 S j Hrat) as (Hrows & Hrhs & Hg & Hh).
    assert (Hext : forall l k, rational (region_ext d B1 S l k)).
    { intros l k. unfold region_ext. destruct (k <? d)%nat; [apply Hrows|apply Hrhs]. }
    destruct (fm_alternative_in rational HK d (bwidth B1) (region_rows B1 S) (region_rhs B1 S) Hrows Hrhs)
      as [Hne|(y & Hry & Hy & Hc & Hv)].
    + left.
      destruct (farkas_complete_in rational HK d (bwidth B1) (region_rows B1 S) (region_rhs B1 S)
                  (cert_g d M1 B1 B2 S j) (cert_h d B1 B2 S j) Hrows Hrhs Hg Hh Hne)
        as (lam & Hrl & Hl & Hc & Hv).
      { intros x Hx. rewrite <- (unit_on_region d M1 B1 B2 S j x (region_polyhedron d B1 S x Hx)).
        apply Hdead. exact Hj. }
      destruct (shrink_multipliers rational HK d B1 S lam Hext Hrl Hl) as (lam' & Hrl' & Hl' & Hc' & Hb' & Hn').
      exists lam'. split; [exact Hrl'|]. split; [exact Hl'|]. split; [|split; [rewrite Hb'; exact Hv|exact Hn']].
      intros k Hk. rewrite Hc' by exact Hk. apply Hc. exact Hk.
    + right.
      destruct (shrink_multipliers rational HK d B1 S y Hext Hry Hy) as (y' & Hry' & Hy' & Hc' & Hb' & Hn').
      exists y'. split; [exact Hry'|]. split; [exact Hy'|]. split; [|split; [rewrite Hb'; exact Hv|exact Hn']].
      intros k Hk. rewrite Hc' by exact Hk. apply Hc. exact Hk.
  - intros Hcert. apply dead_on_image_of_certificates. intros S j Hj.
    destruct (Hcert S j Hj) as [(lam & _ & Hl & Hc & Hv & _)|(y & _ & Hy & Hc & Hv & _)].
    + left. exists lam. split; [exact Hl|]. split; [exact Hc|exact Hv].
    + right. exists y. split; [exact Hy|]. split; [exact Hc|exact Hv].
Qed.
