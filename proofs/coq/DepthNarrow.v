(** * [depth-narrow]: residual relu stacks with invertible pieces against
    narrow plain stacks.

    A bias-free relu block is [x -> W relu(U x)]; on the inputs where exactly
    the units of [S] are active, [x + B x] is the linear map
    [I + W_S U_S] ([piece]).  Since [relu z] is [z] or [0], for every [x] the
    residual block is [x -> (I + W_(S x) U_(S x)) x] with [S x] the active set
    at [x], so a residual stack maps [x] by a product of pieces.  If every
    piece is invertible ([trivial_kernel]: for a square matrix this is
    invertibility), [F x = 0] only at [x = 0] (part (a)).  A plain stack whose
    first layer has at most [d] units vanishes at some [x <> 0] (its first
    pre-activations are all [<= 0] there), so it is not [F]. *)

From Coq Require Import Reals Lra Lia List Classical.
From SkipAbsorption Require Import Linalg Depth SignFlip Width Rank DepthStack RealActivations.
Import ListNotations.
Open Scope R_scope.

(** The linear piece [I + W_S U_S] of the block [(Wd, Wu)] of width [m] for
    the active set [S]. *)
Definition piece (d m : nat) (S : nat -> bool) (Wd Wu : mat) : mat :=
  fun i j => ident i j + sum m (fun l => if S l then Wd i l * Wu l j else 0).

(** The [d x d] matrix [A] has a trivial kernel (for a square matrix: it is
    invertible). *)
Definition trivial_kernel (d : nat) (A : mat) : Prop :=
  forall y : vec, (forall i, (i < d)%nat -> mv d A y i = 0) -> forall j, (j < d)%nat -> y j = 0.

(** The units active at [x]: those with [u_l . x > 0]. *)
Definition active (d : nat) (Wu : mat) (x : vec) : nat -> bool :=
  fun l => if Rle_dec (mv d Wu x l) 0 then false else true.

Lemma relu_active : forall d Wu x l,
  relu (mv d Wu x l) = if active d Wu x l then mv d Wu x l else 0.
Proof.
  intros. unfold relu, active, Rmax. destruct (Rle_dec (mv d Wu x l) 0); reflexivity.
Qed.

(** (E1): [x + B x] is the piece of the active set at [x], applied to [x]. *)
Lemma residual_is_piece : forall d m Wd Wu x i, (i < d)%nat ->
  x i + block d m relu Wd Wu x i = mv d (piece d m (active d Wu x) Wd Wu) x i.
Proof.
  intros d m Wd Wu x i Hi. unfold piece. rewrite mv_mat_plus, mv_ident by exact Hi.
  f_equal. unfold block, readout.
  rewrite (sum_ext m _ (fun l => if active d Wu x l then Wd i l * 1 * mv d Wu x l else 0))
    by (intros l _; rewrite relu_active; destruct (active d Wu x l); ring).
  rewrite (selected_sum d m (active d Wu x) Wd Wu (fun _ => 1) x i).
  apply mv_row_ext. intros j _. apply sum_ext. intros l _. destruct (active d Wu x l); ring.
Qed.

(** Every piece of the layer [L] is invertible. *)
Definition layer_pieces_invertible (d : nat) (L : layer) : Prop :=
  forall S : nat -> bool, trivial_kernel d (piece d (width L) S (Wdown L) (Wup L)).

(** [depth-narrow] (a), first half: with invertible pieces, [F x = 0] forces
    [x = 0]. *)
Theorem residual_stack_nonvanishing :
  forall (d : nat) (layers : list layer)
         (pieces_invertible : Forall (layer_pieces_invertible d) layers),
  forall x, (forall i, (i < d)%nat -> res_comp_id (map (layer_block d relu) layers) x i = 0) ->
  forall j, (j < d)%nat -> x j = 0.
Proof.
  intros d layers H. induction H as [|L layers HL _ IH]; intros x Hx j Hj.
  - exact (Hx j Hj).
  - simpl in Hx. pose proof (IH _ Hx) as Hy.
    apply (HL (active d (Wup L) x) x); [|exact Hj].
    intros i Hi. rewrite <- residual_is_piece by exact Hi. exact (Hy i Hi).
Qed.

(** Every bias-free relu stack maps [0] to [0]. *)
Lemma plain_stack_zero : forall d (plains : list layer) x,
  (forall j, (j < d)%nat -> x j = 0) ->
  forall i, (i < d)%nat -> plain_comp (map (layer_block d relu) plains) x i = 0.
Proof.
  intros d plains. induction plains as [|P plains IH]; intros x Hx i Hi; simpl.
  - exact (Hx i Hi).
  - apply IH; [|exact Hi]. intros j Hj. unfold layer_block, block, readout.
    apply sum_zero. intros l Hl.
    unfold mv. rewrite (sum_zero d (fun j' => Wup P l j' * x j')) by (intros j' Hj'; rewrite Hx by exact Hj'; ring).
    unfold relu, Rmax. destruct (Rle_dec 0 0); [ring|lra].
Qed.

(** A matrix [V] with [m' <= d] rows ([d >= 1]) has a nonzero [x] with
    [V x <= 0] entrywise: a kernel vector, or else [V] is square and
    invertible and [x = V^-1 (-1, ..., -1)]. *)
Lemma narrow_matrix_nonpositive : forall d m' (V : mat),
  (0 < d)%nat -> (m' <= d)%nat ->
  exists x : vec, (exists j, (j < d)%nat /\ x j <> 0) /\
    forall l, (l < m')%nat -> mv d V x l <= 0.
Proof.
  intros d m' V Hd Hm.
  destruct (classic (exists x : vec, (exists j, (j < d)%nat /\ x j <> 0) /\
                       forall l, (l < m')%nat -> mv d V x l = 0)) as [(x & Hx & H0)|Hno].
  - exists x. split; [exact Hx|]. intros l Hl. rewrite (H0 l Hl). lra.
  - (* the columns of [V] are independent in [R^m'] *)
    assert (Hind : indep m' d (fun j l => V l j)).
    { intros c Hc k Hk. destruct (Req_dec (c k) 0) as [Hz|Hz]; [exact Hz|]. exfalso. apply Hno.
      exists c. split; [exists k; split; assumption|].
      intros l Hl. unfold mv. rewrite <- (Hc l Hl). apply sum_ext. intros; ring. }
    destruct (basis_completion m' d (fun j l => V l j) Hind) as (Hdm & Lv & Hspan).
    assert (Heq : m' = d) by lia. subst m'.
    destruct (Hspan (fun _ => -1)) as (c & Hc).
    exists c. split.
    + destruct (classic (exists j, (j < d)%nat /\ c j <> 0)) as [Hex|Hnot]; [exact Hex|].
      exfalso. specialize (Hc 0%nat Hd).
      rewrite (sum_zero d) in Hc; [lra|].
      intros k Hk. destruct (Req_dec (c k) 0) as [Hz|Hz].
      * rewrite Hz. ring.
      * exfalso. apply Hnot. exists k. split; assumption.
    + intros l Hl. unfold mv. replace (sum d (fun j => V l j * c j)) with (-1); [lra|].
      rewrite <- (Hc l Hl). apply sum_ext. intros k Hk. unfold append.
      replace (k <? d)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hk). ring.
Qed.

(** [depth-narrow] (a): a residual relu stack with invertible pieces ([d >= 1])
    equals no plain relu stack, of any depth, whose first width is [<= d]. *)
Theorem depth_narrow_first_width :
  forall (d : nat) (layers plains : list layer)
         (d_pos : (0 < d)%nat)
         (pieces_invertible : Forall (layer_pieces_invertible d) layers)
         (narrow_width : exists (P1 : layer) (rest : list layer),
            plains = P1 :: rest /\ (width P1 <= d)%nat),
  ~ (forall x i, (i < d)%nat ->
       res_comp_id (map (layer_block d relu) layers) x i =
       plain_comp (map (layer_block d relu) plains) x i).
Proof.
  intros d layers plains d_pos pieces_invertible (P1 & rest & -> & Hw) Heq.
  destruct (narrow_matrix_nonpositive d (width P1) (Wup P1) d_pos Hw) as (x & (j & Hj & Hxj) & Hneg).
  apply Hxj. apply (residual_stack_nonvanishing d layers pieces_invertible x); [|exact Hj].
  intros i Hi. rewrite (Heq x i Hi). simpl.
  apply plain_stack_zero; [|exact Hi].
  intros j' Hj'. unfold layer_block, block, readout. apply sum_zero. intros l Hl.
  unfold relu, Rmax. destruct (Rle_dec (mv d (Wup P1) x l) 0) as [_|Hn]; [ring|].
  exfalso. apply Hn. exact (Hneg l Hl).
Qed.

(** ** Part (b): a plain stack with a layer narrower than [d]

    The argument: a plain stack with a layer of width [k < d] takes its values,
    for each pattern of active units after that layer, in the range of a
    [d x k] matrix, so finitely many nonzero covectors [a] cover all its
    values ([a . P(x) = 0] for one of them).  Pulled back through the invertible
    pieces of [F], finitely many nonzero covectors [c] would cover every [x]
    ([c . x = 0] for one of them), but [R^d] is no finite union of hyperplanes. *)

Definition nonzero_vec (d : nat) (c : vec) : Prop := exists j, (j < d)%nat /\ c j <> 0.

(** A matrix with trivial kernel is onto (its [d] columns are independent, so
    they span [R^d] by [basis_completion]). *)
Lemma trivial_kernel_onto : forall d A, trivial_kernel d A ->
  forall y : vec, exists x : vec, forall i, (i < d)%nat -> mv d A x i = y i.
Proof.
  intros d A HA y.
  assert (Hind : indep d d (fun j i => A i j)).
  { intros c Hc k Hk. apply (HA c); [|exact Hk]. intros i Hi. unfold mv. rewrite <- (Hc i Hi).
    apply sum_ext. intros; ring. }
  destruct (basis_completion d d _ Hind) as (_ & Lv & Hspan).
  destruct (Hspan y) as (c & Hc). exists c. intros i Hi. rewrite <- (Hc i Hi). unfold mv.
  apply sum_ext. intros k Hk. unfold append.
  replace (k <? d)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hk). ring.
Qed.

(** [A^T c <> 0] for [c <> 0] and [A] invertible. *)
Lemma transpose_nonzero : forall d A c, trivial_kernel d A -> nonzero_vec d c ->
  nonzero_vec d (transpose_mv d A c).
Proof.
  intros d A c HA (j & Hj & Hc).
  destruct (classic (nonzero_vec d (transpose_mv d A c))) as [H|H]; [exact H|]. exfalso.
  destruct (trivial_kernel_onto d A HA c) as (x & Hx).
  assert (H0 : dot d (transpose_mv d A c) x = 0).
  { unfold dot. apply sum_zero. intros k Hk.
    destruct (Req_dec (transpose_mv d A c k) 0) as [Hz|Hz]; [rewrite Hz; ring|].
    exfalso. apply H. exists k. split; assumption. }
  rewrite dot_transpose, (dot_ext d c _ c Hx) in H0.
  apply Hc. exact (dot_self_zero d c H0 j Hj).
Qed.

(** ** Finitely many hyperplanes never cover [R^d] *)

Lemma small_step : forall d (H : list vec) (x y : vec),
  (forall c, In c H -> dot d c x <> 0) ->
  exists t, 0 < t /\ forall c, In c H -> t * (1 + Rabs (dot d c y)) < Rabs (dot d c x).
Proof.
  intros d H x y. induction H as [|c0 H IH]; intros Hx.
  - exists 1. split; [lra|]. intros c [].
  - destruct IH as (t1 & Ht1 & H1); [intros c Hc; apply Hx; right; exact Hc|].
    assert (Hpos : 0 < Rabs (dot d c0 x)) by (apply Rabs_pos_lt; apply Hx; left; reflexivity).
    assert (Hq : 0 < 1 + Rabs (dot d c0 y)) by (pose proof (Rabs_pos (dot d c0 y)); lra).
    set (t0 := Rabs (dot d c0 x) / (2 * (1 + Rabs (dot d c0 y)))).
    assert (Ht0 : 0 < t0) by (unfold t0; apply Rdiv_lt_0_compat; lra).
    exists (Rmin t1 t0). split; [apply Rmin_glb_lt; assumption|].
    intros c [E|Hc].
    + subst c. apply (Rle_lt_trans _ (t0 * (1 + Rabs (dot d c0 y)))).
      * apply Rmult_le_compat_r; [lra|apply Rmin_r].
      * unfold t0.
        replace (Rabs (dot d c0 x) / (2 * (1 + Rabs (dot d c0 y))) * (1 + Rabs (dot d c0 y)))
          with (Rabs (dot d c0 x) / 2) by (field; lra).
        lra.
    + apply (Rle_lt_trans _ (t1 * (1 + Rabs (dot d c y)))).
      * apply Rmult_le_compat_r; [pose proof (Rabs_pos (dot d c y)); lra|apply Rmin_l].
      * apply H1. exact Hc.
Qed.

Theorem hyperplanes_do_not_cover : forall d (H : list vec),
  (forall c, In c H -> nonzero_vec d c) ->
  exists x : vec, forall c, In c H -> dot d c x <> 0.
Proof.
  intros d H. induction H as [|c0 H IH]; intros Hnz.
  - exists (fun _ => 0). intros c [].
  - destruct IH as (x & Hx); [intros c Hc; apply Hnz; right; exact Hc|].
    destruct (Req_dec (dot d c0 x) 0) as [H0|H0].
    + destruct (Hnz c0 (or_introl eq_refl)) as (j & Hj & Hcj).
      destruct (small_step d H x (unit_vec j) Hx) as (t & Ht & Hsmall).
      exists (fun k => x k + t * unit_vec j k). intros c [E|Hc].
      * subst c. rewrite dot_axpy, H0.
        unfold dot. rewrite (sum_ext d _ (fun k => c0 k * kron j k)) by (intros; reflexivity).
        rewrite (sum_ext d (fun k => c0 k * kron j k) (fun k => kron j k * c0 k)) by (intros; ring).
        rewrite sum_kron_l by exact Hj.
        intros E. apply Hcj. apply (Rmult_eq_reg_l t); [lra|lra].
      * rewrite dot_axpy. pose proof (Hsmall c Hc) as Hs.
        intros E.
        assert (Hab : Rabs (dot d c x) = Rabs (t * dot d c (unit_vec j)))
          by (rewrite <- (Rabs_Ropp (t * _)); f_equal; lra).
        rewrite Rabs_mult, (Rabs_right t) in Hab by lra.
        pose proof (Rabs_pos (dot d c (unit_vec j))). nra.
    + exists x. intros c [E|Hc]; [subst c; exact H0|exact (Hx c Hc)].
Qed.

(** ** All active sets of a layer, as a finite list *)

Fixpoint all_subsets (m : nat) : list (nat -> bool) :=
  match m with
  | O => [fun _ => false]
  | S m' => flat_map (fun S => [S; fun l => if Nat.eqb l m' then true else S l]) (all_subsets m')
  end.

Lemma all_subsets_false : forall m S', In S' (all_subsets m) -> forall l, (m <= l)%nat -> S' l = false.
Proof.
  induction m as [|m IH]; intros S' Hin l Hl; simpl in Hin.
  - destruct Hin as [<-|[]]. reflexivity.
  - apply in_flat_map in Hin. destruct Hin as (S0 & H0 & [<-|[<-|[]]]).
    + apply (IH S0 H0). lia.
    + destruct (Nat.eqb l m) eqn:E; [apply Nat.eqb_eq in E; lia|]. apply (IH S0 H0). lia.
Qed.

Lemma all_subsets_complete : forall m (S : nat -> bool),
  exists S', In S' (all_subsets m) /\ forall l, (l < m)%nat -> S' l = S l.
Proof.
  induction m as [|m IH]; intros S.
  - exists (fun _ => false). split; [left; reflexivity|intros; lia].
  - destruct (IH S) as (S'' & Hin & Hag). simpl.
    destruct (S m) eqn:Em.
    + exists (fun l => if Nat.eqb l m then true else S'' l). split.
      * apply in_flat_map. exists S''. split; [exact Hin|right; left; reflexivity].
      * intros l Hl. destruct (Nat.eqb l m) eqn:E.
        -- apply Nat.eqb_eq in E. subst l. symmetry. exact Em.
        -- apply Nat.eqb_neq in E. apply Hag. lia.
    + exists S''. split.
      * apply in_flat_map. exists S''. split; [exact Hin|left; reflexivity].
      * intros l Hl. destruct (Nat.eq_dec l m) as [->|E]; [|apply Hag; lia].
        rewrite Em. exact (all_subsets_false m S'' Hin m (le_n m)).
Qed.

Lemma piece_ext : forall d m S S' Wd Wu, (forall l, (l < m)%nat -> S' l = S l) ->
  forall i j, piece d m S' Wd Wu i j = piece d m S Wd Wu i j.
Proof.
  intros. unfold piece. f_equal. apply sum_ext. intros l Hl. rewrite H by exact Hl. reflexivity.
Qed.

(** ** Pulling covectors back through the residual stack *)

Lemma residual_pullback : forall d (layers : list layer),
  Forall (layer_pieces_invertible d) layers ->
  forall H : list vec, (forall c, In c H -> nonzero_vec d c) ->
  exists H' : list vec, (forall c, In c H' -> nonzero_vec d c) /\
    forall x, (exists a, In a H /\ dot d a (res_comp_id (map (layer_block d relu) layers) x) = 0) ->
              exists c, In c H' /\ dot d c x = 0.
Proof.
  intros d layers Hinv. induction Hinv as [|L layers HL _ IH]; intros H Hnz.
  - exists H. split; [exact Hnz|]. intros x Hx. exact Hx.
  - destruct (IH H Hnz) as (H1 & Hnz1 & Hpull).
    exists (flat_map (fun S => map (transpose_mv d (piece d (width L) S (Wdown L) (Wup L))) H1)
                     (all_subsets (width L))).
    split.
    + intros c Hc. apply in_flat_map in Hc. destruct Hc as (S & _ & Hc).
      apply in_map_iff in Hc. destruct Hc as (c1 & <- & Hc1).
      apply transpose_nonzero; [apply HL|apply Hnz1; exact Hc1].
    + intros x Hx. simpl in Hx. destruct (Hpull _ Hx) as (c1 & Hc1 & Hdot).
      destruct (all_subsets_complete (width L) (active d (Wup L) x)) as (S & HS & Hag).
      exists (transpose_mv d (piece d (width L) S (Wdown L) (Wup L)) c1). split.
      * apply in_flat_map. exists S. split; [exact HS|]. apply in_map. exact Hc1.
      * rewrite dot_transpose. rewrite <- Hdot. apply dot_ext. intros j Hj.
        unfold layer_block. rewrite residual_is_piece by exact Hj.
        apply mv_row_ext. intros k _. apply piece_ext. exact Hag.
Qed.

(** ** Covectors for the values of a plain stack with a narrow layer *)

(** One covector per member of a list, collected in one list. *)
Lemma list_union : forall (l : list (nat -> bool)) (Nz : vec -> Prop)
                          (Q : (nat -> bool) -> list vec -> Prop),
  (forall S, In S l -> exists cs, (forall c, In c cs -> Nz c) /\ Q S cs) ->
  exists css, (forall c, In c css -> Nz c) /\ forall S, In S l -> exists cs, Q S cs /\ incl cs css.
Proof.
  induction l as [|S0 l IH]; intros Nz Q H.
  - exists []. split; [intros c []|intros S []].
  - destruct (H S0 (or_introl eq_refl)) as (cs0 & Hnz0 & HQ0).
    destruct (IH Nz Q) as (css & Hnz & HQ); [intros S HS; apply H; right; exact HS|].
    exists (cs0 ++ css). split.
    + intros c Hc. apply in_app_or in Hc. destruct Hc; [apply Hnz0|apply Hnz]; assumption.
    + intros S [<-|HS].
      * exists cs0. split; [exact HQ0|]. apply incl_appl, incl_refl.
      * destruct (HQ S HS) as (cs & HQS & Hincl). exists cs. split; [exact HQS|].
        apply incl_appr. exact Hincl.
Qed.

(** [d] vectors in [R^k] with [k < d] are dependent: some [a <> 0] has
    [a^T G = 0] for a [d x k] matrix [G]. *)
Lemma left_kernel_of_narrow : forall d k (G : mat), (k < d)%nat ->
  exists a : vec, nonzero_vec d a /\ forall l, (l < k)%nat -> sum d (fun i => a i * G i l) = 0.
Proof.
  intros d k G Hk.
  destruct (classic (indep k d (fun i l => G i l))) as [Hind|Hnot].
  - pose proof (indep_le_dim k d _ Hind). lia.
  - apply not_all_ex_not in Hnot. destruct Hnot as (a & Ha).
    apply imply_to_and in Ha. destruct Ha as (Hker & Hnz).
    exists a. split; [|exact Hker].
    apply not_all_ex_not in Hnz. destruct Hnz as (j & Hj).
    apply imply_to_and in Hj. destruct Hj as (Hj & Haj). exists j. split; assumption.
Qed.

Lemma plain_image_covectors : forall d (post : list layer) k (G : mat), (k < d)%nat ->
  exists H : list vec, (forall c, In c H -> nonzero_vec d c) /\
    forall h : vec, exists a, In a H /\
      dot d a (plain_comp (map (layer_block d relu) post) (mv k G h)) = 0.
Proof.
  intros d post. induction post as [|Q post IH]; intros k G Hk.
  - destruct (left_kernel_of_narrow d k G Hk) as (a & Hnz & Hker).
    exists [a]. split; [intros c [<-|[]]; exact Hnz|].
    intros h. exists a. split; [left; reflexivity|]. simpl.
    unfold dot, mv.
    rewrite (sum_ext d _ (fun i => sum k (fun l => a i * G i l * h l)))
      by (intros; rewrite <- sum_scal_l; apply sum_ext; intros; ring).
    rewrite sum_swap. apply sum_zero. intros l Hl. rewrite sum_scal_r, (Hker l Hl). ring.
  - (* the matrix of the first layer of [post] for the active set [S], times [G] *)
    set (GS := fun (S : nat -> bool) (i j : nat) =>
                 sum (width Q) (fun l => if S l then Wdown Q i l * 1 *
                                           sum d (fun t => Wup Q l t * G t j) else 0)).
    destruct (list_union (all_subsets (width Q)) (nonzero_vec d)
                (fun S H => forall h : vec, exists a, In a H /\
                   dot d a (plain_comp (map (layer_block d relu) post) (mv k (GS S) h)) = 0))
      as (H & Hnz & HQ).
    { intros S _. destruct (IH k (GS S) Hk) as (H & Hnz & Hh). exists H. split; assumption. }
    exists H. split; [exact Hnz|]. intros h.
    destruct (all_subsets_complete (width Q) (active d (Wup Q) (mv k G h))) as (S & HS & Hag).
    destruct (HQ S HS) as (cs & Hcs & Hincl). destruct (Hcs h) as (a & Ha & Hdot).
    exists a. split; [apply Hincl; exact Ha|]. rewrite <- Hdot. simpl.
    apply dot_ext. apply plain_stack_local.
    intros i Hi. unfold layer_block, block, readout.
    rewrite (sum_ext (width Q) _ (fun l => if S l then Wdown Q i l * 1 *
                                             mv k (fun l' j => sum d (fun t => Wup Q l' t * G t j)) h l
                                           else 0)).
    2:{ intros l Hl. rewrite relu_active. rewrite (Hag l Hl). destruct (active d (Wup Q) (mv k G h) l).
        - rewrite mv_mv. ring.
        - ring. }
    rewrite (selected_sum k (width Q) S (Wdown Q) (fun l' j => sum d (fun t => Wup Q l' t * G t j))
               (fun _ => 1) h i).
    reflexivity.
Qed.

Lemma plain_comp_app : forall (l1 l2 : list (vec -> vec)) x,
  plain_comp (l1 ++ l2) x = plain_comp l2 (plain_comp l1 x).
Proof. induction l1 as [|f l1 IH]; intros l2 x; simpl; [reflexivity|apply IH]. Qed.

(** [depth-narrow] (b): a residual relu stack with invertible pieces equals no
    plain relu stack, of any depth, one of whose widths is [< d]. *)
Theorem depth_narrow_some_width :
  forall (d : nat) (layers plains : list layer)
         (pieces_invertible : Forall (layer_pieces_invertible d) layers)
         (narrow_width : Exists (fun P => (width P < d)%nat) plains),
  ~ (forall x i, (i < d)%nat ->
       res_comp_id (map (layer_block d relu) layers) x i =
       plain_comp (map (layer_block d relu) plains) x i).
Proof.
  intros d layers plains pieces_invertible narrow_width Heq.
  apply Exists_exists in narrow_width. destruct narrow_width as (Pn & Hin & Hk).
  apply in_split in Hin. destruct Hin as (pre & post & ->).
  destruct (plain_image_covectors d post (width Pn) (Wdown Pn) Hk) as (H & Hnz & Hcov).
  destruct (residual_pullback d layers pieces_invertible H Hnz) as (H' & Hnz' & Hpull).
  destruct (hyperplanes_do_not_cover d H' Hnz') as (x & Hx).
  assert (Hval : exists a, In a H /\ dot d a (res_comp_id (map (layer_block d relu) layers) x) = 0).
  { destruct (Hcov (fun l => relu (mv d (Wup Pn) (plain_comp (map (layer_block d relu) pre) x) l)))
      as (a & Ha & Hdot).
    exists a. split; [exact Ha|]. rewrite <- Hdot. apply dot_ext. intros j Hj.
    rewrite (Heq x j Hj). rewrite map_app, plain_comp_app. simpl. reflexivity. }
  destruct (Hpull x Hval) as (c & Hc & Hcx). exact (Hx c Hc Hcx).
Qed.

(** [depth-narrow] (a) and (b) together: invertible pieces ([d >= 1]) and a
    plain relu stack of any depth whose first width is [<= d] or one of whose
    widths is [< d]: the two are different maps. *)
Theorem depth_narrow :
  forall (d : nat) (layers plains : list layer)
         (d_pos : (0 < d)%nat)
         (pieces_invertible : Forall (layer_pieces_invertible d) layers)
         (narrow_width : (exists (P1 : layer) (rest : list layer),
                            plains = P1 :: rest /\ (width P1 <= d)%nat) \/
                         Exists (fun P => (width P < d)%nat) plains),
  ~ (forall x i, (i < d)%nat ->
       res_comp_id (map (layer_block d relu) layers) x i =
       plain_comp (map (layer_block d relu) plains) x i).
Proof.
  intros d layers plains d_pos pieces_invertible [Ha|Hb].
  - exact (depth_narrow_first_width d layers plains d_pos pieces_invertible Ha).
  - exact (depth_narrow_some_width d layers plains pieces_invertible Hb).
Qed.

(** The two-block case of the claim's consequence, for the widths handled by
    (a) and (b): with invertible pieces, [F = (I + B_2) o (I + B_1)] is no
    plain relu stack of the same widths [(m_1, m_2)] when [m_1 <= d] or
    [m_2 < d].  (The case [m_2 = d < m_1] is part (c),
    [DepthNarrowC.depth_narrow_two_blocks]; "almost every weight" is
    [DepthNarrowNull.depth_narrow_null] and
    [DepthNarrowCNull.depth_narrow_two_blocks_null].) *)
Corollary depth_narrow_two_blocks_same_widths :
  forall (d : nat) (L1 L2 P1 P2 : layer)
         (d_pos : (0 < d)%nat)
         (pieces_invertible : Forall (layer_pieces_invertible d) [L1; L2])
         (same_widths : width P1 = width L1 /\ width P2 = width L2)
         (narrow_width : (width L1 <= d)%nat \/ (width L2 < d)%nat),
  ~ (forall x i, (i < d)%nat ->
       res_comp_id (map (layer_block d relu) [L1; L2]) x i =
       plain_comp (map (layer_block d relu) [P1; P2]) x i).
Proof.
  intros d L1 L2 P1 P2 d_pos pieces_invertible [E1 E2] [H1|H2].
  - apply (depth_narrow_first_width d [L1; L2] [P1; P2] d_pos pieces_invertible).
    exists P1, [P2]. split; [reflexivity|lia].
  - apply (depth_narrow_some_width d [L1; L2] [P1; P2] pieces_invertible).
    apply Exists_cons_tl, Exists_cons_hd. lia.
Qed.
