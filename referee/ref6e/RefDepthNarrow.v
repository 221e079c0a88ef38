(* Referee ref6e: scratch checks of the Coq statements of depth-narrow.
   Compiled with: coqc -R proofs/coq SkipAbsorption referee/ref6e/RefDepthNarrow.v *)
From Coq Require Import Reals Lra Lia List.
From SkipAbsorption Require Import Linalg Depth DepthStack RealActivations DepthNarrow Necessity
  GenericWeightsNull NullSets NonGenericNull DepthNarrowNull DepthNarrowC DepthNarrowCNull.
Import ListNotations.
Open Scope R_scope.

(* relu is the real one *)
Print relu.

(* ---------- 1. A concrete instance of part (c): all hypotheses hold together ---------- *)
(* d = 2, m1 = m2 = 1; u1 = e_1, w1 = e_0 / 2, u2 = e_0, w2 = e_0 / 2. *)
Definition sel (a b : nat) (v : R) : mat := fun i j => if andb (Nat.eqb i a) (Nat.eqb j b) then v else 0.
Definition L1 : layer := mk_layer 1 (sel 0 0 (1/2)) (sel 0 1 1).
Definition L2 : layer := mk_layer 1 (sel 0 0 (1/2)) (sel 0 0 1).

Lemma L1_inv : layer_pieces_invertible 2 L1.
Proof.
  intros S y Hy j Hj. pose proof (Hy 0%nat ltac:(lia)) as H0. pose proof (Hy 1%nat ltac:(lia)) as H1.
  unfold mv, piece, L1, sel, ident, kron in H0, H1. simpl in H0, H1.
  destruct (S 0%nat); simpl in H0, H1;
  destruct j as [|[|j]]; try lia; lra.
Qed.

Lemma L2_inv : layer_pieces_invertible 2 L2.
Proof.
  intros S y Hy j Hj. pose proof (Hy 0%nat ltac:(lia)) as H0. pose proof (Hy 1%nat ltac:(lia)) as H1.
  unfold mv, piece, L2, sel, ident, kron in H0, H1. simpl in H0, H1.
  destruct (S 0%nat); simpl in H0, H1;
  destruct j as [|[|j]]; try lia; lra.
Qed.

Lemma L_nondeg : nondegenerate_block 2 (width L1) (Wdown L1) (Wup L1) /\
                 nondegenerate_block 2 (width L2) (Wdown L2) (Wup L2).
Proof.
  unfold nondegenerate_block, rows_nonzero, rows_noncollinear, cols_nonzero; simpl.
  repeat split; intros; try lia.
  - exists 1%nat. split; [lia|]. replace l with 0%nat by lia. unfold sel. simpl. lra.
  - exists 0%nat. split; [lia|]. replace l with 0%nat by lia. unfold sel. simpl. lra.
  - exists 0%nat. split; [lia|]. replace l with 0%nat by lia. unfold sel. simpl. lra.
  - exists 0%nat. split; [lia|]. replace l with 0%nat by lia. unfold sel. simpl. lra.
Qed.

Lemma L_transversal : kinks_transversal_cond 2 L1 L2.
Proof.
  intros i j D Hi Hj HD [c Hc]. simpl in Hi, Hj.
  replace i with 0%nat in * by lia. replace j with 0%nat in * by lia.
  specialize (Hc 0%nat ltac:(lia)).
  unfold transpose_mv, piece, L1, L2, sel, ident, kron in Hc. simpl in Hc. rewrite HD in Hc.
  simpl in Hc. lra.
Qed.

(* Part (c) applied: this residual stack equals no plain stack of widths (m'_1, 2), m'_1 <= 1. *)
Lemma part_c_instance : forall P1 P2 : layer, (width P1 <= 1)%nat -> width P2 = 2%nat ->
  ~ (forall x i, (i < 2)%nat ->
       res_comp_id (map (layer_block 2 relu) [L1; L2]) x i =
       plain_comp (map (layer_block 2 relu) [P1; P2]) x i).
Proof.
  intros P1 P2 H1 H2.
  exact (depth_narrow_two_blocks 2 L1 L2 P1 P2 ltac:(lia)
           (Forall_cons _ L1_inv (Forall_cons _ L2_inv (Forall_nil _)))
           L_nondeg L_transversal (conj H1 H2)).
Qed.

(* ---------- 2. The claim's wording implies the Coq conditions ---------- *)
(* "parallel" read in both directions, D a 0/1 diagonal of size m1 (a list of bools). *)
Definition parallel (d : nat) (v u : vec) : Prop :=
  (exists c, forall k, (k < d)%nat -> v k = c * u k) \/ (exists c, forall k, (k < d)%nat -> u k = c * v k).

Definition claim_transversal (d : nat) (La Lb : layer) : Prop :=
  forall i j (D : nat -> bool), (i < width La)%nat -> (j < width Lb)%nat -> D i = false ->
    ~ parallel d (transpose_mv d (piece d (width La) D (Wdown La) (Wup La)) (Wup Lb j)) (Wup La i).

Lemma claim_transversal_implies : forall d La Lb, claim_transversal d La Lb -> kinks_transversal_cond d La Lb.
Proof. intros d La Lb H i j D Hi Hj HD Hc. apply (H i j D Hi Hj HD). left. exact Hc. Qed.

Definition claim_noncollinear (d m : nat) (Wu : mat) : Prop :=
  forall l l', (l < m)%nat -> (l' < m)%nat -> l <> l' -> ~ parallel d (Wu l') (Wu l).

Lemma claim_noncollinear_implies : forall d m Wu, claim_noncollinear d m Wu -> rows_noncollinear d m Wu.
Proof. intros d m Wu H l l' Hl Hl' Hne Hc. apply (H l l' Hl Hl' Hne). left. exact Hc. Qed.

(* Only the first m1 entries of D matter in the piece: *)
Lemma piece_restrict : forall d m D D' Wd Wu i j,
  (forall l, (l < m)%nat -> D l = D' l) -> piece d m D Wd Wu i j = piece d m D' Wd Wu i j.
Proof. intros. unfold piece. f_equal. apply sum_ext. intros l Hl. rewrite (H l Hl); reflexivity. Qed.

(* ---------- 3. The measure statements, instantiated ---------- *)
Check (depth_narrow_two_blocks_null 2 3 2 ltac:(lia) ltac:(lia)).
Check (depth_narrow_two_blocks_null 3 7 3).
Check (depth_narrow_first_width_null 1 1 5 ltac:(lia) ltac:(lia)).
Check (depth_narrow_d1_not_null 2 ltac:(lia)).
Check (depth_narrow_null 4 [1; 2; 9]%nat).
Print null_stack.
Print stack_dim.
Print null_set.
(* null_set is not trivial: *)
Check all_stacks_not_null.
Check null_set_contains_no_box.
About d1_fold_m.

(* ---------- 4. Assumptions ---------- *)
Print Assumptions depth_narrow.
Print Assumptions depth_narrow_two_blocks.
Print Assumptions depth_narrow_null.
Print Assumptions depth_narrow_two_blocks_null.
Print Assumptions transversal_null.
Print Assumptions depth_narrow_first_width_null.
Print Assumptions depth_narrow_d1_not_null.
Print Assumptions part_c_instance.

(* ---------- 5. Teeth: part (c) without nondegenerate and kinks_transversal is false ---------- *)
(* The d = 1 fold of proofs/informal/depth-narrow.md: U_1 = (1, -1)^T, W_1 = (1, 3),
   U_2 = W_2 = 1; every piece is invertible, and DepthNarrowCNull.d1_fold_m gives a plain
   stack of widths (2, 1) equal to F.  So the two hypotheses carry the theorem. *)
Definition wfold : nat -> R := fun k => match k with
  | O => 1 | S O => 3 | S (S O) => 1 | S (S (S O)) => -1 | S (S (S (S O))) => 1
  | S (S (S (S (S O)))) => 1 | _ => 0 end.

Lemma wfold_box : forall i, (i < 2 * 2 + 2)%nat -> d1_lo_m 2 i <= wfold i <= d1_hi_m 2 i.
Proof.
  intros i Hi. destruct i as [|[|[|[|[|[|i]]]]]]; try lia;
  unfold d1_lo_m, d1_hi_m, d1_kind, wfold; cbn; lra.
Qed.

Lemma wfold_inv : Forall (layer_pieces_invertible 1) (stack_of 1 [2%nat; 1%nat] 0 wfold).
Proof.
  rewrite stack_of_two. constructor; [|constructor; [|constructor]].
  - intros S y Hy j Hj. replace j with 0%nat by lia. specialize (Hy 0%nat ltac:(lia)).
    unfold mv, piece, first_layer_of, ident, kron in Hy. cbn in Hy.
    unfold down_of, up_of, shifted, wfold in Hy. cbn in Hy.
    destruct (S 0%nat), (S 1%nat); cbn in Hy; lra.
  - intros S y Hy j Hj. replace j with 0%nat by lia. specialize (Hy 0%nat ltac:(lia)).
    unfold mv, piece, second_layer_of, ident, kron in Hy. cbn in Hy.
    unfold down_of, up_of, shifted, wfold in Hy. cbn in Hy.
    destruct (S 0%nat); cbn in Hy; lra.
Qed.

Lemma part_c_needs_its_hypotheses :
  ~ (forall (d : nat) (La Lb P1 P2 : layer), (0 < d)%nat ->
       Forall (layer_pieces_invertible d) [La; Lb] ->
       (width P1 <= width La)%nat /\ width P2 = d ->
       ~ (forall x i, (i < d)%nat ->
            res_comp_id (map (layer_block d relu) [La; Lb]) x i =
            plain_comp (map (layer_block d relu) [P1; P2]) x i)).
Proof.
  intros H.
  destruct (d1_fold_m 2 wfold ltac:(lia) wfold_box) as (P1 & P2 & HP1 & HP2 & Heq).
  pose proof wfold_inv as Hinv. rewrite stack_of_two in Hinv, Heq.
  apply (H 1%nat _ _ P1 P2 ltac:(lia) Hinv); [|exact Heq].
  split; [rewrite HP1; cbn; lia|exact HP2].
Qed.
Print Assumptions part_c_needs_its_hypotheses.
