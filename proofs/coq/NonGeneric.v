(** * [non-generic] without measure theory: the index condition
    [W_down[:,S] W_up[S,:] = -M] is thin.

    Fix [M <> 0] with an entry [M_ab <> 0].  Scaling [W_down] by [t] scales
    [W_down[:,S] W_up[S,:]] by [t], so for each [S] at most one [t]
    (namely [-M_ab / (W_down[:,S] W_up[S,:])_ab]) can satisfy the condition.
    There are [2^m] sets [S] (restricted to [0 .. m-1]), hence at most [2^m]
    exceptional scalings, and every [W_down] has arbitrarily close [W'_down]
    (a scaling [(1 + delta) W_down]) for which no [S] satisfies the condition:
    the set of weights satisfying it for some [S] has empty interior.
    (The Lebesgue-null statement of the paper is not proved here.) *)

From Coq Require Import Reals Lra Lia List.
From SkipAbsorption Require Import Linalg.
Import ListNotations.
Open Scope R_scope.

(** ** All subsets of [0 .. m-1], as boolean functions *)

Fixpoint subsets (m : nat) : list (nat -> bool) :=
  match m with
  | O => [fun _ => false]
  | S m' => flat_map (fun T => [fun l => if (l =? m')%nat then false else T l;
                                fun l => if (l =? m')%nat then true else T l])
                     (subsets m')
  end.

(* Own length lemmas: the standard library renamed [app_length] and
   [map_length] after 8.16, so we use neither name. *)
Lemma len_app : forall (A : Type) (l1 l2 : list A), length (l1 ++ l2) = (length l1 + length l2)%nat.
Proof. intros A l1 l2. induction l1 as [|x l1 IH]; simpl; [reflexivity|rewrite IH; reflexivity]. Qed.

Lemma len_map : forall (A B : Type) (f : A -> B) (l : list A), length (map f l) = length l.
Proof. intros A B f l. induction l as [|x l IH]; simpl; [reflexivity|rewrite IH; reflexivity]. Qed.

Lemma subsets_length : forall m, length (subsets m) = (2 ^ m)%nat.
Proof.
  induction m as [|m IH]; [reflexivity|]. simpl.
  assert (Hfm : forall (l : list (nat -> bool)) (f : (nat -> bool) -> list (nat -> bool)),
             (forall T, length (f T) = 2%nat) -> length (flat_map f l) = (2 * length l)%nat).
  { induction l as [|T l IHl]; intros f Hf; [reflexivity|]. simpl flat_map.
    rewrite len_app, Hf, IHl by exact Hf. simpl. lia. }
  rewrite Hfm by reflexivity. rewrite IH. lia.
Qed.

(** Every [S] agrees on [0 .. m-1] with a member of [subsets m]. *)
Lemma subsets_complete : forall m (S : nat -> bool),
  exists T, In T (subsets m) /\ forall l, (l < m)%nat -> S l = T l.
Proof.
  induction m as [|m IH]; intros S.
  - exists (fun _ => false). split; [left; reflexivity|intros; lia].
  - destruct (IH S) as (T & HT & HST).
    exists (fun l => if (l =? m)%nat then S m else T l). split.
    + simpl. apply in_flat_map. exists T. split; [exact HT|].
      destruct (S m); simpl; [right; left|left]; reflexivity.
    + intros l Hl. destruct (l =? m)%nat eqn:E.
      * apply Nat.eqb_eq in E. subst. reflexivity.
      * apply Nat.eqb_neq in E. apply HST. lia.
Qed.

(** ** At most [2^m] exceptional scalings *)

(** [non-generic], finite form: for [M <> 0] and any [W_up], [W_down], there
    is a list of at most [2^m] reals such that for every [t] outside it, no
    index set [S] satisfies [sum_{l in S} t w_l u_l^T = -M]. *)
Theorem non_generic_scaling :
  forall (d m : nat) (M Wd Wu : mat)
         (M_nonzero : nonzero_mat d M),
  exists bad : list R, (length bad <= 2 ^ m)%nat /\
    forall (t : R) (S : nat -> bool), ~ In t bad ->
      ~ (forall i j, (i < d)%nat -> (j < d)%nat ->
           sum m (fun l => if S l then t * Wd i l * Wu l j else 0) = - M i j).
Proof.
  intros d m M Wd Wu (a & b & Ha & Hb & Hab).
  set (P := fun (T : nat -> bool) => sum m (fun l => if T l then Wd a l * Wu l b else 0)).
  exists (map (fun T => - M a b / P T) (subsets m)). split.
  { rewrite len_map, subsets_length. lia. }
  intros t S Hbad Hcond. apply Hbad.
  destruct (subsets_complete m S) as (T & HT & HST).
  specialize (Hcond a b Ha Hb).
  (* the condition at (a, b) reads [t * P T = - M_ab] *)
  assert (Ht : t * P T = - M a b).
  { rewrite <- Hcond. unfold P. rewrite <- sum_scal_l. apply sum_ext.
    intros l Hl. rewrite (HST l Hl). destruct (T l); ring. }
  assert (HP : P T <> 0) by (intros H0; rewrite H0 in Ht; lra).
  apply in_map_iff. exists T. split; [|exact HT].
  field_simplify_eq; [lra|exact HP].
Qed.

(** ** Empty interior *)

(** For every finite list of reals and every [eta > 0] some [delta] in
    [(0, eta]] has [1 + delta] outside the list. *)
Lemma avoid_finite : forall (bad : list R) (eta : R), 0 < eta ->
  exists delta, 0 < delta <= eta /\ ~ In (1 + delta) bad.
Proof.
  induction bad as [|b bad IH]; intros eta Heta.
  - exists eta. split; [lra|]. intros [].
  - destruct (IH eta Heta) as (delta & Hd & Hnin).
    destruct (Req_dec (1 + delta) b) as [Heq|Hne].
    + (* [b] is [1 + delta]: retry below [delta], which also avoids [b] *)
      destruct (IH (delta / 2) ltac:(lra)) as (delta' & Hd' & Hnin').
      exists delta'. split; [lra|]. intros [H|H]; [lra|exact (Hnin' H)].
    + exists delta. split; [exact Hd|]. intros [H|H]; [exact (Hne (eq_sym H))|exact (Hnin H)].
Qed.

(** The scaling step of both density arguments (here and in
    GenericWeights.v): some [(1 + delta) W_down] with [1 + delta] outside a
    given finite list lies within [eps] of [W_down], entry by entry. *)
Lemma scaling_avoids : forall d m (Wd : mat) (bad : list R) (eps : R), 0 < eps ->
  exists delta, ~ In (1 + delta) bad /\
    forall i l, (i < d)%nat -> (l < m)%nat -> Rabs ((1 + delta) * Wd i l - Wd i l) < eps.
Proof.
  intros d m Wd bad eps Heps.
  set (A := absmat d m Wd). assert (HA : 0 <= A) by apply absmat_nonneg.
  destruct (avoid_finite bad (eps / (A + 1)) ltac:(apply Rdiv_lt_0_compat; lra))
    as (delta & Hd & Hnin).
  exists delta. split; [exact Hnin|].
  intros i l Hi Hl.
  replace ((1 + delta) * Wd i l - Wd i l) with (delta * Wd i l) by ring.
  rewrite Rabs_mult, (Rabs_right delta) by lra.
  pose proof (entry_le_absmat d m Wd i l Hi Hl) as Hent. fold A in Hent.
  apply Rle_lt_trans with (eps / (A + 1) * A).
  + apply Rmult_le_compat; [lra|apply Rabs_pos|lra|exact Hent].
  + unfold Rdiv. apply Rmult_lt_reg_r with (A + 1); [lra|].
    replace (eps * / (A + 1) * A * (A + 1)) with (eps * A) by (field; lra). nra.
Qed.

(** [non-generic], empty interior: for [M <> 0], every [W_down] has, within
    any [eps > 0] entrywise, a [W'_down] for which no index set [S]
    satisfies [W'_down[:,S] W_up[S,:] = -M].  So the weights satisfying the
    condition for some [S] contain no open set. *)
Theorem non_generic_dense :
  forall (d m : nat) (M Wd Wu : mat) (eps : R)
         (M_nonzero : nonzero_mat d M)
         (eps_pos : 0 < eps),
  exists Wd' : mat,
    (forall i l, (i < d)%nat -> (l < m)%nat -> Rabs (Wd' i l - Wd i l) < eps) /\
    forall S : nat -> bool,
      ~ (forall i j, (i < d)%nat -> (j < d)%nat ->
           sum m (fun l => if S l then Wd' i l * Wu l j else 0) = - M i j).
Proof.
  intros d m M Wd Wu eps M_nonzero eps_pos.
  destruct (non_generic_scaling d m M Wd Wu M_nonzero) as (bad & _ & Hbad).
  destruct (scaling_avoids d m Wd bad eps eps_pos) as (delta & Hnin & Hc).
  exists (fun i l => (1 + delta) * Wd i l). split; [exact Hc|].
  intros S. exact (Hbad (1 + delta) S Hnin).
Qed.

(** ** Instance *)

(** [W_up = I], [W_down = -I] in [d = m = 2], [M = I], stated with the
    standard library only: [cond t s0 s1] is the condition
    [t W_down[:,S] W_up[S,:] = -I] entry by entry, for [S] given by
    [s0 = (0 in S)] and [s1 = (1 in S)].  It holds at [t = 1] with [S = {0, 1}]
    (so this block absorbs its skip at width 2), yet outside a list of at most
    [2^2] reals [t] no [S] satisfies it. *)
Lemma non_generic_instance :
  let cond := fun (t : R) (s0 s1 : bool) =>
    (if s0 then t * -1 * 1 else 0) + (if s1 then t * 0 * 0 else 0) = -1 /\
    (if s0 then t * -1 * 0 else 0) + (if s1 then t * 0 * 1 else 0) = 0 /\
    (if s0 then t * 0 * 1 else 0) + (if s1 then t * -1 * 0 else 0) = 0 /\
    (if s0 then t * 0 * 0 else 0) + (if s1 then t * -1 * 1 else 0) = -1 in
  cond 1 true true /\
  exists bad : list R, (length bad <= 4)%nat /\
    forall t : R, ~ In t bad -> forall s0 s1 : bool, ~ cond t s0 s1.
Proof.
  intros cond. split; [unfold cond; repeat split; ring|].
  destruct (non_generic_scaling 2 2 ident (fun i l => - ident i l) ident) as (bad & Hlen & Hbad).
  { exists 0%nat, 0%nat. repeat split; try lia. unfold ident, kron. simpl. lra. }
  exists bad. split; [simpl in Hlen; exact Hlen|].
  intros t Hnin s0 s1 Hc.
  apply (Hbad t (fun l => match l with O => s0 | _ => s1 end) Hnin).
  unfold cond in Hc. destruct Hc as (H00 & H01 & H10 & H11).
  intros i j Hi Hj.
  destruct i as [|[|i]]; [| |lia]; destruct j as [|[|j]]; try lia;
    unfold ident, kron; simpl; destruct s0, s1; lra.
Qed.
