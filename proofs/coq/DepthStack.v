(** * Deep stacks of blocks: the GL(d) symmetry of residual-free stacks, and
    per-layer absorption of residual stacks.

    A layer is a bias-free ungated block [x -> W_down sigma(W_up x)] of
    hidden width [width]; all layers share the dimension [d] and the
    activation [sigma].  Stacks are lists applied head first, as in Depth.v
    ([plain_comp], [res_comp_id], [res_comp]). *)

From Coq Require Import Reals Lra Lia List.
From SkipAbsorption Require Import Linalg Depth Width Rank RealActivations.
Import ListNotations.
Open Scope R_scope.

Record layer := mk_layer { width : nat; Wdown : mat; Wup : mat }.

Definition layer_block (d : nat) (sigma : R -> R) (L : layer) : vec -> vec :=
  block d (width L) sigma (Wdown L) (Wup L).

(** [F] reads only the coordinates [0 .. d-1] of its input (on the output
    coordinates [0 .. d-1]). *)
Definition local (d : nat) (F : vec -> vec) : Prop :=
  forall x y, (forall j, (j < d)%nat -> x j = y j) ->
  forall i, (i < d)%nat -> F x i = F y i.

(** ** Locality *)

Lemma block_local_all : forall d m sigma Wd Wu x y,
  (forall j, (j < d)%nat -> x j = y j) ->
  forall i, block d m sigma Wd Wu x i = block d m sigma Wd Wu y i.
Proof.
  intros d m sigma Wd Wu x y Hxy i. unfold block, readout. apply sum_ext.
  intros l Hl. f_equal. f_equal. apply mv_ext. exact Hxy.
Qed.

Lemma block_local : forall d m sigma Wd Wu, local d (block d m sigma Wd Wu).
Proof. intros d m sigma Wd Wu x y Hxy i _. apply block_local_all. exact Hxy. Qed.

Lemma plain_stack_local : forall d sigma (Ls : list layer),
  local d (plain_comp (map (layer_block d sigma) Ls)).
Proof.
  intros d sigma Ls. induction Ls as [|L Ls IH]; intros x y Hxy i Hi; simpl.
  - apply Hxy. exact Hi.
  - apply IH; [|exact Hi]. intros j Hj. apply block_local_all. exact Hxy.
Qed.

(** ** (a) GL(d) invariance of residual-free stacks *)

(** Gauge one layer: output side by [A], input side by [Pinv]:
    [W_down -> A W_down], [W_up -> W_up Pinv]. *)
Definition gauge_layer (d : nat) (A Pinv : mat) (L : layer) : layer :=
  mk_layer (width L) (matmul d A (Wdown L)) (matmul d (Wup L) Pinv).

(** Gauge a stack with the pairs [(A_1, A_1inv), ..., (A_L, A_Linv)]:
    layer [l] gets [A_l W_down^l] and [W_up^l A_(l-1)inv], with [Pinv] in the
    role of [A_0inv]. *)
Fixpoint gauge_stack (d : nat) (Pinv : mat) (Ls : list layer) (gs : list (mat * mat))
  : list layer :=
  match Ls, gs with
  | L :: Ls', (A, Ainv) :: gs' => gauge_layer d A Pinv L :: gauge_stack d Ainv Ls' gs'
  | _, _ => []
  end.

(** The output gauge: the last [A] of [gs] ([P] if [gs] is empty). *)
Fixpoint out_gauge (P : mat) (gs : list (mat * mat)) : mat :=
  match gs with
  | [] => P
  | (A, _) :: gs' => out_gauge A gs'
  end.

(** [Ainv] is a left inverse of [A] on [d x d] (for square matrices this is
    the same as a two-sided inverse, i.e. [A] in GL(d)). *)
Definition left_inv (d : nat) (Ainv A : mat) : Prop :=
  forall i j, (i < d)%nat -> (j < d)%nat -> matmul d Ainv A i j = ident i j.

Lemma gauge_layer_fun : forall d sigma A Pinv L x i,
  layer_block d sigma (gauge_layer d A Pinv L) x i =
  mv d A (layer_block d sigma L (mv d Pinv x)) i.
Proof.
  intros. unfold layer_block, gauge_layer, block. simpl.
  rewrite readout_matmul. apply mv_ext. intros k _. unfold readout.
  apply sum_ext. intros l _. rewrite mv_matmul. reflexivity.
Qed.

Lemma mv_left_inv : forall d Pinv P y j,
  left_inv d Pinv P -> (j < d)%nat -> mv d Pinv (mv d P y) j = y j.
Proof.
  intros d Pinv P y j H Hj. rewrite <- mv_matmul.
  rewrite (mv_row_ext d (matmul d Pinv P) ident) by (intros; apply H; assumption).
  apply mv_ident. exact Hj.
Qed.

(** The gauged stack computes the original stack followed by the output
    gauge, when its input is transformed by [P] (with left inverse [Pinv]). *)
Lemma gauge_stack_fun : forall d sigma (Ls : list layer) (gs : list (mat * mat)) Pinv P,
  length gs = length Ls ->
  Forall (fun p => left_inv d (snd p) (fst p)) gs ->
  left_inv d Pinv P ->
  forall y i, (i < d)%nat ->
    plain_comp (map (layer_block d sigma) (gauge_stack d Pinv Ls gs)) (mv d P y) i =
    mv d (out_gauge P gs) (plain_comp (map (layer_block d sigma) Ls) y) i.
Proof.
  intros d sigma Ls. induction Ls as [|L Ls IH]; intros gs Pinv P Hlen Hgs HP y i Hi.
  - destruct gs as [|g gs]; [|discriminate]. reflexivity.
  - destruct gs as [|[A Ainv] gs]; [discriminate|]. simpl in Hlen |- *.
    inversion Hgs as [|p l HA Hgs']; subst. simpl in HA.
    rewrite <- (IH gs Ainv A ltac:(lia) Hgs' HA (layer_block d sigma L y) i Hi).
    apply plain_stack_local; [|exact Hi].
    intros j Hj. rewrite gauge_layer_fun. apply mv_ext. intros k Hk.
    apply block_local_all. intros j' Hj'. apply mv_left_inv; assumption.
Qed.

Lemma out_gauge_last : forall (gs : list (mat * mat)) P,
  out_gauge P (gs ++ [(ident, ident)]) = ident.
Proof. induction gs as [|[A Ainv] gs IH]; intros P; simpl; [reflexivity|apply IH]. Qed.

Lemma length_snoc : forall (A : Type) (l : list A) (a : A), length (l ++ [a]) = S (length l).
Proof. intros A l a. induction l as [|b l IH]; simpl; [reflexivity|rewrite IH; reflexivity]. Qed.

(** GL(d) invariance, stacks of any length [L >= 1]: for the [L - 1]
    interfaces [l = 1 .. L-1] take [A_l] with a left inverse [A_l^-1]
    (for square matrices: [A_l] in GL(d)); replacing [W_down^l] by
    [A_l W_down^l] and [W_up^(l+1)] by [W_up^(l+1) A_l^-1] leaves the
    function of the residual-free stack unchanged.  The last layer keeps its
    [W_down] (gauge pair [(I, I)]) and the first its [W_up] ([Pinv = I]). *)
Theorem plain_stack_gauge_invariance :
  forall (d : nat) (sigma : R -> R) (Ls : list layer) (gs : list (mat * mat))
         (gauge_length : S (length gs) = length Ls)
         (gauge_invertible : Forall (fun p => left_inv d (snd p) (fst p)) gs),
  forall x i, (i < d)%nat ->
    plain_comp (map (layer_block d sigma) (gauge_stack d ident Ls (gs ++ [(ident, ident)]))) x i =
    plain_comp (map (layer_block d sigma) Ls) x i.
Proof.
  intros d sigma Ls gs gauge_length gauge_invertible x i Hi.
  assert (Hid : left_inv d ident ident) by (intros i' j' Hi' Hj'; apply matmul_ident_l; exact Hi').
  assert (Hall : Forall (fun p => left_inv d (snd p) (fst p)) (gs ++ [(ident, ident)])).
  { apply Forall_app. split; [exact gauge_invertible|]. constructor; [exact Hid|constructor]. }
  rewrite (plain_stack_local d sigma _ x (mv d ident x));
    [|intros j Hj; symmetry; apply mv_ident; exact Hj|exact Hi].
  rewrite (gauge_stack_fun d sigma Ls (gs ++ [(ident, ident)]) ident ident); 
    [|rewrite length_snoc; exact gauge_length|exact Hall|exact Hid|exact Hi].
  rewrite out_gauge_last. apply mv_ident. exact Hi.
Qed.

(** The two-layer case written out: [W_down^1 -> A W_down^1],
    [W_up^2 -> W_up^2 A^-1]. *)
Corollary plain_pair_gauge_invariance :
  forall (d m1 m2 : nat) (sigma : R -> R) (Wd1 Wu1 Wd2 Wu2 A Ainv : mat)
         (gauge_invertible : left_inv d Ainv A),
  forall x i, (i < d)%nat ->
    block d m2 sigma Wd2 (matmul d Wu2 Ainv) (block d m1 sigma (matmul d A Wd1) Wu1 x) i =
    block d m2 sigma Wd2 Wu2 (block d m1 sigma Wd1 Wu1 x) i.
Proof.
  intros d m1 m2 sigma Wd1 Wu1 Wd2 Wu2 A Ainv HA x i Hi.
  pose proof (plain_stack_gauge_invariance d sigma
                [mk_layer m1 Wd1 Wu1; mk_layer m2 Wd2 Wu2] [(A, Ainv)]
                eq_refl ltac:(constructor; [exact HA|constructor]) x i Hi) as H.
  simpl in H. unfold layer_block in H. simpl in H. rewrite <- H.
  (* the gauged first layer has [W_up^1 I] and the second [I W_down^2] *)
  rewrite (block_ext d m2 sigma Wd2 (matmul d Wu2 Ainv) (matmul d ident Wd2) (matmul d Wu2 Ainv));
    [| intros i' l Hi' Hl; symmetry; apply matmul_ident_l; exact Hi' | intros; reflexivity | exact Hi].
  apply block_local; [|exact Hi]. intros j Hj.
  apply block_ext; [intros; reflexivity| |exact Hj].
  intros l j' Hl Hj'. symmetry. apply matmul_ident_r. exact Hj'.
Qed.

(** ** (b) Per-layer absorption of residual stacks *)

(** Composition lemma: if each residual block [x -> x + B_l x] equals the
    plain block [P_l] (all of them local), the residual stack equals the
    plain stack. *)
Lemma res_stack_eq_plain_stack :
  forall d (Bs Ps : list (vec -> vec)),
  Forall2 (fun B P => local d B /\ local d P /\
             forall x i, (i < d)%nat -> x i + B x i = P x i) Bs Ps ->
  forall x y, (forall j, (j < d)%nat -> x j = y j) ->
  forall i, (i < d)%nat -> res_comp_id Bs x i = plain_comp Ps y i.
Proof.
  intros d Bs Ps H. induction H as [|B P Bs Ps [HB [HP Heq]] _ IH];
    intros x y Hxy i Hi; simpl.
  - apply Hxy. exact Hi.
  - apply IH; [|exact Hi]. intros j Hj. rewrite (HB x y Hxy j Hj), (Hxy j Hj).
    apply Heq. exact Hj.
Qed.

(** The same with general skip matrices [M_l]: [x -> M_l x + B_l x]. *)
Lemma res_stack_skips_eq_plain_stack :
  forall d (res : list (mat * (vec -> vec))) (Ps : list (vec -> vec)),
  Forall2 (fun p P => local d (snd p) /\ local d P /\
             forall x i, (i < d)%nat -> mv d (fst p) x i + snd p x i = P x i) res Ps ->
  forall x y, (forall j, (j < d)%nat -> x j = y j) ->
  forall i, (i < d)%nat -> res_comp d res x i = plain_comp Ps y i.
Proof.
  intros d res Ps H. induction H as [|[M B] P res Ps [HB [HP Heq]] _ IH];
    intros x y Hxy i Hi; simpl in *.
  - apply Hxy. exact Hi.
  - apply IH; [|exact Hi]. intros j Hj. rewrite (HB x y Hxy j Hj), (mv_ext d M x y j Hxy).
    apply Heq. exact Hj.
Qed.

(** Widths [m_l + d] per layer suffice: if [sigma z - sigma (-z) = z] and
    every [W_up^l] has rank [d] (its rows span [R^d]), the residual stack
    [(I + B_L) o ... o (I + B_1)] equals a residual-free stack whose layer [l]
    has width [m_l + d]. *)
Theorem depth_width :
  forall (d : nat) (sigma : R -> R) (layers : list layer)
         (sigma_odd_part : forall z, sigma z - sigma (-z) = z)
         (rows_span : Forall (fun L => forall y : vec, exists c : vec,
            forall j, (j < d)%nat -> sum (width L) (fun l => c l * Wup L l j) = y j) layers),
  exists plains : list layer,
    map width plains = map (fun L => (width L + d)%nat) layers /\
    forall x i, (i < d)%nat ->
      res_comp_id (map (layer_block d sigma) layers) x i =
      plain_comp (map (layer_block d sigma) plains) x i.
Proof.
  intros d sigma layers sigma_odd_part rows_span.
  assert (Hgen : exists plains : list layer,
    map width plains = map (fun L => (width L + d)%nat) layers /\
    Forall2 (fun B P => local d B /\ local d P /\
               forall x i, (i < d)%nat -> x i + B x i = P x i)
            (map (layer_block d sigma) layers) (map (layer_block d sigma) plains)).
  { induction rows_span as [|L layers HL _ IH].
    - exists []. split; constructor.
    - destruct IH as (plains & Hw & H2).
      destruct (absorption_width_any_M d (width L) sigma ident (Wdown L) (Wup L)
                  sigma_odd_part HL) as (Wd' & Wu' & HL').
      exists (mk_layer (width L + d) Wd' Wu' :: plains). split.
      + simpl. rewrite Hw. reflexivity.
      + simpl. constructor; [|exact H2]. split; [apply block_local|]. split; [apply block_local|].
        intros x i Hi. rewrite <- (mv_ident d x i Hi). apply HL'. exact Hi. }
  destruct Hgen as (plains & Hw & H2). exists plains. split; [exact Hw|].
  intros x i Hi. apply (res_stack_eq_plain_stack d _ _ H2 x x (fun _ _ => eq_refl) i Hi).
Qed.

(** The same for residual stacks with arbitrary skip matrices
    [x -> M_l x + B_l x] (singular [M_l] allowed). *)
Theorem depth_width_skips :
  forall (d : nat) (sigma : R -> R) (layers : list (mat * layer))
         (sigma_odd_part : forall z, sigma z - sigma (-z) = z)
         (rows_span : Forall (fun p => forall y : vec, exists c : vec,
            forall j, (j < d)%nat -> sum (width (snd p)) (fun l => c l * Wup (snd p) l j) = y j)
            layers),
  exists plains : list layer,
    map width plains = map (fun p => (width (snd p) + d)%nat) layers /\
    forall x i, (i < d)%nat ->
      res_comp d (map (fun p => (fst p, layer_block d sigma (snd p))) layers) x i =
      plain_comp (map (layer_block d sigma) plains) x i.
Proof.
  intros d sigma layers sigma_odd_part rows_span.
  assert (Hgen : exists plains : list layer,
    map width plains = map (fun p => (width (snd p) + d)%nat) layers /\
    Forall2 (fun p P => local d (snd p) /\ local d P /\
               forall x i, (i < d)%nat -> mv d (fst p) x i + snd p x i = P x i)
            (map (fun p => (fst p, layer_block d sigma (snd p))) layers)
            (map (layer_block d sigma) plains)).
  { induction rows_span as [|[M L] layers HL _ IH].
    - exists []. split; constructor.
    - destruct IH as (plains & Hw & H2). simpl in HL.
      destruct (absorption_width_any_M d (width L) sigma M (Wdown L) (Wup L)
                  sigma_odd_part HL) as (Wd' & Wu' & HL').
      exists (mk_layer (width L + d) Wd' Wu' :: plains). split.
      + simpl. rewrite Hw. reflexivity.
      + simpl. constructor; [|exact H2]. simpl.
        split; [apply block_local|]. split; [apply block_local|]. exact HL'. }
  destruct Hgen as (plains & Hw & H2). exists plains. split; [exact Hw|].
  intros x i Hi. apply (res_stack_skips_eq_plain_stack d _ _ H2 x x (fun _ _ => eq_refl) i Hi).
Qed.

(** ** Every rank: widths [m_l + 2d - rank U_l] *)

(** The construction behind [depth_width_any_rank] (its corollaries use it
    directly). *)
Lemma stack_widths_any_rank :
  forall (d : nat) (sigma : R -> R) (layers : list layer),
  (forall z, sigma z - sigma (-z) = z) ->
  exists plains : list layer,
    Forall2 (fun L P => exists r, row_rank d (width L) (Wup L) r /\
                                  width P = (width L + 2 * d - r)%nat) layers plains /\
    forall x i, (i < d)%nat ->
      res_comp_id (map (layer_block d sigma) layers) x i =
      plain_comp (map (layer_block d sigma) plains) x i.
Proof.
  intros d sigma layers sigma_odd_part.
  assert (Hgen : exists plains : list layer,
    Forall2 (fun L P => exists r, row_rank d (width L) (Wup L) r /\
                                  width P = (width L + 2 * d - r)%nat) layers plains /\
    Forall2 (fun B P => local d B /\ local d P /\
               forall x i, (i < d)%nat -> x i + B x i = P x i)
            (map (layer_block d sigma) layers) (map (layer_block d sigma) plains)).
  { induction layers as [|L layers IH].
    - exists []. split; constructor.
    - destruct IH as (plains & Hw & H2).
      destruct (row_rank_exists d (width L) (Wup L)) as (r & Hr).
      destruct (absorption_width_rank d (width L) r sigma ident (Wdown L) (Wup L)
                  sigma_odd_part Hr) as (Wd' & Wu' & HL').
      exists (mk_layer (width L + 2 * d - r) Wd' Wu' :: plains). split.
      + constructor; [|exact Hw]. exists r. split; [exact Hr|reflexivity].
      + simpl. constructor; [|exact H2]. split; [apply block_local|]. split; [apply block_local|].
        intros x i Hi. rewrite <- (mv_ident d x i Hi). apply HL'. exact Hi. }
  destruct Hgen as (plains & Hw & H2). exists plains. split; [exact Hw|].
  intros x i Hi. apply (res_stack_eq_plain_stack d _ _ H2 x x (fun _ _ => eq_refl) i Hi).
Qed.

(** [depth-width] (A): for [sigma z - sigma (-z) = z] and any weights, the
    residual stack [(I + B_L) o ... o (I + B_1)] equals a residual-free stack
    whose layer [l] has width [m_l + 2d - r_l], where [r_l] is the rank of
    [U_l = W_up^l] ([row_rank], unique by [Rank.row_rank_unique]). *)
Theorem depth_width_any_rank :
  forall (d : nat) (sigma : R -> R) (layers : list layer)
         (sigma_odd_part : forall z, sigma z - sigma (-z) = z),
  exists plains : list layer,
    Forall2 (fun L P => exists r, row_rank d (width L) (Wup L) r /\
                                  width P = (width L + 2 * d - r)%nat) layers plains /\
    forall x i, (i < d)%nat ->
      res_comp_id (map (layer_block d sigma) layers) x i =
      plain_comp (map (layer_block d sigma) plains) x i.
Proof.
  intros d sigma layers sigma_odd_part.
  exact (stack_widths_any_rank d sigma layers sigma_odd_part).
Qed.

(** The same with skip matrices [x -> M_l x + B_l x] (any [M_l]). *)
Theorem depth_width_any_rank_skips :
  forall (d : nat) (sigma : R -> R) (layers : list (mat * layer))
         (sigma_odd_part : forall z, sigma z - sigma (-z) = z),
  exists plains : list layer,
    Forall2 (fun p P => exists r, row_rank d (width (snd p)) (Wup (snd p)) r /\
                                  width P = (width (snd p) + 2 * d - r)%nat) layers plains /\
    forall x i, (i < d)%nat ->
      res_comp d (map (fun p => (fst p, layer_block d sigma (snd p))) layers) x i =
      plain_comp (map (layer_block d sigma) plains) x i.
Proof.
  intros d sigma layers sigma_odd_part.
  assert (Hgen : exists plains : list layer,
    Forall2 (fun p P => exists r, row_rank d (width (snd p)) (Wup (snd p)) r /\
                                  width P = (width (snd p) + 2 * d - r)%nat) layers plains /\
    Forall2 (fun p P => local d (snd p) /\ local d P /\
               forall x i, (i < d)%nat -> mv d (fst p) x i + snd p x i = P x i)
            (map (fun p => (fst p, layer_block d sigma (snd p))) layers)
            (map (layer_block d sigma) plains)).
  { induction layers as [|[M L] layers IH].
    - exists []. split; constructor.
    - destruct IH as (plains & Hw & H2).
      destruct (row_rank_exists d (width L) (Wup L)) as (r & Hr).
      destruct (absorption_width_rank d (width L) r sigma M (Wdown L) (Wup L)
                  sigma_odd_part Hr) as (Wd' & Wu' & HL').
      exists (mk_layer (width L + 2 * d - r) Wd' Wu' :: plains). split.
      + constructor; [|exact Hw]. exists r. split; [exact Hr|reflexivity].
      + simpl. constructor; [|exact H2]. simpl.
        split; [apply block_local|]. split; [apply block_local|]. exact HL'. }
  destruct Hgen as (plains & Hw & H2). exists plains. split; [exact Hw|].
  intros x i Hi. apply (res_stack_skips_eq_plain_stack d _ _ H2 x x (fun _ _ => eq_refl) i Hi).
Qed.

(** When the rank of every [U_l] is known, [rk L], the widths are
    [m_l + 2d - rk L] for any formula [f] that equals it on each layer: the
    step the two corollaries below share. *)
Lemma stack_widths_given_ranks :
  forall (d : nat) (sigma : R -> R) (layers : list layer) (rk f : layer -> nat),
  (forall z, sigma z - sigma (-z) = z) ->
  Forall (fun L => row_rank d (width L) (Wup L) (rk L) /\ f L = (width L + 2 * d - rk L)%nat) layers ->
  exists plains : list layer,
    map width plains = map f layers /\
    forall x i, (i < d)%nat ->
      res_comp_id (map (layer_block d sigma) layers) x i =
      plain_comp (map (layer_block d sigma) plains) x i.
Proof.
  intros d sigma layers rk f sigma_odd_part Hr.
  destruct (stack_widths_any_rank d sigma layers sigma_odd_part) as (plains & Hw & Heq).
  exists plains. split; [|exact Heq].
  clear Heq. revert plains Hw. induction Hr as [|L layers [HL Hf] _ IH]; intros plains Hw.
  - inversion Hw. reflexivity.
  - inversion Hw as [|L' P layers' plains' (r & Hr & HwP) Hw']; subst. simpl. f_equal.
    + rewrite HwP, Hf. rewrite (row_rank_unique d (width L) (Wup L) r (rk L) Hr HL). reflexivity.
    + apply IH. exact Hw'.
Qed.

(** [depth-width] (B): when every [U_l] has the largest rank its shape allows,
    [rank U_l = min(m_l, d)], the widths are [max(m_l + d, 2d)]. *)
Corollary depth_width_rank_maximal :
  forall (d : nat) (sigma : R -> R) (layers : list layer)
         (sigma_odd_part : forall z, sigma z - sigma (-z) = z)
         (rank_maximal : Forall (fun L => row_rank d (width L) (Wup L) (Nat.min (width L) d)) layers),
  exists plains : list layer,
    map width plains = map (fun L => Nat.max (width L + d) (2 * d)) layers /\
    forall x i, (i < d)%nat ->
      res_comp_id (map (layer_block d sigma) layers) x i =
      plain_comp (map (layer_block d sigma) plains) x i.
Proof.
  intros d sigma layers sigma_odd_part rank_maximal.
  apply (stack_widths_given_ranks d sigma layers (fun L => Nat.min (width L) d)); [exact sigma_odd_part|].
  eapply Forall_impl; [|exact rank_maximal]. intros L HL. split; [exact HL|lia].
Qed.

(** With [rank U_l = d] for every layer ([rows_span] in the row-rank form) the
    widths are [m_l + d]. *)
Corollary depth_width_rows_span :
  forall (d : nat) (sigma : R -> R) (layers : list layer)
         (sigma_odd_part : forall z, sigma z - sigma (-z) = z)
         (rows_span : Forall (fun L => row_rank d (width L) (Wup L) d) layers),
  exists plains : list layer,
    map width plains = map (fun L => (width L + d)%nat) layers /\
    forall x i, (i < d)%nat ->
      res_comp_id (map (layer_block d sigma) layers) x i =
      plain_comp (map (layer_block d sigma) plains) x i.
Proof.
  intros d sigma layers sigma_odd_part rows_span.
  apply (stack_widths_given_ranks d sigma layers (fun _ => d)); [exact sigma_odd_part|].
  eapply Forall_impl; [|exact rows_span]. intros L HL. split; [exact HL|lia].
Qed.

(** ** Instances *)

(** (a) Instance of [plain_stack_gauge_invariance], stated with the standard
    library only (relu z = [Rmax z 0]): [d = 2], two relu layers with
    [W_up = W_down = I], the interface gauged by any [A = [[a, b], [c, e]]]
    with a left inverse [A' = [[a', b'], [c', e']]] ([A' A = I], the four
    equations).  The gauged stack computes [h = A relu(x)] and then
    [relu(A' h)], the same as [relu(relu x)]. *)
Lemma gl_invariance_instance :
  forall a b c e a' b' c' e' : R,
  a' * a + b' * c = 1 -> a' * b + b' * e = 0 -> c' * a + e' * c = 0 -> c' * b + e' * e = 1 ->
  forall x0 x1 : R,
    let h0 := a * Rmax x0 0 + b * Rmax x1 0 in
    let h1 := c * Rmax x0 0 + e * Rmax x1 0 in
    Rmax (a' * h0 + b' * h1) 0 = Rmax (Rmax x0 0) 0 /\
    Rmax (c' * h0 + e' * h1) 0 = Rmax (Rmax x1 0) 0.
Proof.
  intros a b c e a' b' c' e' E00 E01 E10 E11 x0 x1 h0 h1.
  set (A := fun i j : nat => match i, j with O, O => a | O, _ => b | _, O => c | _, _ => e end).
  set (A' := fun i j : nat => match i, j with O, O => a' | O, _ => b' | _, O => c' | _, _ => e' end).
  assert (HA : left_inv 2 A' A).
  { intros i j Hi Hj. unfold matmul, A, A', ident, kron.
    destruct i as [|[|]], j as [|[|]]; simpl; try lia; lra. }
  pose proof (plain_stack_gauge_invariance 2 relu [mk_layer 2 ident ident; mk_layer 2 ident ident]
                [(A, A')] eq_refl ltac:(constructor; [exact HA|constructor])) as H.
  pose proof (H (v2 x0 x1) 0%nat ltac:(lia)) as H0. pose proof (H (v2 x0 x1) 1%nat ltac:(lia)) as H1.
  clear H. unfold h0, h1.
  unfold gauge_stack, gauge_layer, layer_block, plain_comp, block, readout, mv, matmul, A, A',
    ident, kron, v2, relu in H0, H1.
  simpl in H0, H1.
  rewrite ?Rmult_1_l, ?Rmult_0_l, ?Rplus_0_l, ?Rplus_0_r, ?Rmult_1_r, ?Rmult_0_r in H0, H1. split.
  - align H0. lra.
  - align H1. lra.
Qed.

(** (b) Instance of [depth_width], stated with the standard library only:
    [d = 1], the residual stack of two layers [x -> x + relu x] equals a plain
    relu stack of widths [(2, 2)] (layer 1: rows [a l], output weights [b l];
    layer 2: rows [c l], output weights [e l]). *)
Lemma depth_width_instance :
  exists a b c e : nat -> R, forall x : R,
    let y := x + Rmax x 0 in
    let h := b 0%nat * Rmax (a 0%nat * x) 0 + b 1%nat * Rmax (a 1%nat * x) 0 in
    y + Rmax y 0 = e 0%nat * Rmax (c 0%nat * h) 0 + e 1%nat * Rmax (c 1%nat * h) 0.
Proof.
  set (L := mk_layer 1 ident ident).
  assert (HL : forall y : vec, exists c : vec,
            forall j, (j < 1)%nat -> sum (width L) (fun l => c l * Wup L l j) = y j).
  { intros y. exists y. intros j Hj. destruct j; [|lia].
    unfold L, ident, kron. simpl. ring. }
  destruct (depth_width 1 relu [L; L] relu_odd_part
              (Forall_cons _ HL (Forall_cons _ HL (Forall_nil _)))) as (plains & Hw & Heq).
  destruct plains as [|[w1 Wd1 Wu1] [|[w2 Wd2 Wu2] [|]]]; simpl in Hw; try discriminate.
  injection Hw as Hw1 Hw2. subst w1 w2.
  exists (fun l => Wu1 l 0%nat), (fun l => Wd1 0%nat l), (fun l => Wu2 l 0%nat), (fun l => Wd2 0%nat l).
  intros x y h. specialize (Heq (v1 x) 0%nat ltac:(lia)). unfold y, h.
  unfold L, res_comp_id, plain_comp, layer_block, block, readout, mv, ident, kron, v1, relu in Heq.
  simpl in Heq. rewrite ?Rmult_1_l, ?Rmult_0_l, ?Rplus_0_l, ?Rplus_0_r in Heq. align Heq. lra.
Qed.

(** ** (c) The junction factorisation of residual-free stacks *)

(** Two residual-free layers compose through the junction product only:
    the hidden pre-activations of layer 2 are
    [sum_j Wu2_lj (sum_k Wd1_jk h_k) = sum_k (Wu2 Wd1)_lk h_k].  So two pairs of
    layers with the same first [W_up], the same last [W_down] and the same
    [m2 x m1] junction product [W_up^2 W_down^1] (inner dimension [d])
    compute the same function, for every activation.  (The GL(d) gauge of
    part (a) is one way to change the factors without changing the product;
    when a width is below [d] there are more.) *)
Lemma junction_preact : forall d m1 sigma Wd1 Wu1 Wu2 x l,
  mv d Wu2 (block d m1 sigma Wd1 Wu1 x) l =
  sum m1 (fun k => matmul d Wu2 Wd1 l k * sigma (mv d Wu1 x k)).
Proof.
  intros. unfold mv at 1, block, readout, matmul.
  transitivity (sum d (fun j => sum m1 (fun k => Wu2 l j * Wd1 j k * sigma (mv d Wu1 x k)))).
  - apply sum_ext. intros j _. rewrite <- sum_scal_l. apply sum_ext. intros. ring.
  - rewrite sum_swap. apply sum_ext. intros k _. rewrite <- sum_scal_r. reflexivity.
Qed.

Theorem plain_pair_junction_factorisation :
  forall (d m1 m2 : nat) (sigma : R -> R) (Wd1 Wu1 Wd2 Wu2 Wd1' Wu2' : mat)
         (junction_equal : forall l k, (l < m2)%nat -> (k < m1)%nat ->
                             matmul d Wu2 Wd1 l k = matmul d Wu2' Wd1' l k),
  forall x i,
    block d m2 sigma Wd2 Wu2 (block d m1 sigma Wd1 Wu1 x) i =
    block d m2 sigma Wd2 Wu2' (block d m1 sigma Wd1' Wu1 x) i.
Proof.
  intros d m1 m2 sigma Wd1 Wu1 Wd2 Wu2 Wd1' Wu2' HJ x i.
  unfold block at 1 3, readout. apply sum_ext. intros l Hl. f_equal. f_equal.
  rewrite !junction_preact. apply sum_ext. intros k Hk. rewrite (HJ l k Hl Hk). reflexivity.
Qed.

(** The junction factorisation for stacks of any length [L >= 1]:
    [junctions_agree d Ls Ls'] says that the two stacks have the same
    length and widths, the same junction product [W_up^(l+1) W_down^l] at
    every interface and the same last [W_down]. *)
Fixpoint junctions_agree (d : nat) (Ls Ls' : list layer) : Prop :=
  match Ls, Ls' with
  | L :: rest, L' :: rest' =>
      width L = width L' /\
      match rest, rest' with
      | [], [] => forall i l, (i < d)%nat -> (l < width L)%nat -> Wdown L i l = Wdown L' i l
      | L2 :: _, L2' :: _ =>
          width L2 = width L2' /\
          (forall l k, (l < width L2)%nat -> (k < width L)%nat ->
             matmul d (Wup L2) (Wdown L) l k = matmul d (Wup L2') (Wdown L') l k) /\
          junctions_agree d rest rest'
      | _, _ => False
      end
  | _, _ => False
  end.

(** The first layer's pre-activations agree on inputs [y], [y']. *)
Definition preacts_agree (d : nat) (Ls Ls' : list layer) (y y' : vec) : Prop :=
  match Ls, Ls' with
  | L :: _, L' :: _ => forall l, (l < width L)%nat -> mv d (Wup L) y l = mv d (Wup L') y' l
  | _, _ => False
  end.

Lemma plain_comp_cons : forall d sigma (L : layer) (rest : list layer) (y : vec),
  plain_comp (map (layer_block d sigma) (L :: rest)) y =
  plain_comp (map (layer_block d sigma) rest) (layer_block d sigma L y).
Proof. reflexivity. Qed.

Lemma junction_stack_agree : forall d sigma (Ls Ls' : list layer) (y y' : vec),
  junctions_agree d Ls Ls' -> preacts_agree d Ls Ls' y y' ->
  forall i, (i < d)%nat ->
    plain_comp (map (layer_block d sigma) Ls) y i = plain_comp (map (layer_block d sigma) Ls') y' i.
Proof.
  intros d sigma Ls. induction Ls as [|L rest IH]; intros Ls' y y' HJ HP i Hi.
  - destruct Ls'; contradiction.
  - destruct Ls' as [|L' rest']; [contradiction|].
    rewrite !plain_comp_cons.
    simpl in HJ, HP. destruct HJ as [Hw HJ].
    destruct rest as [|L2 rest2]; destruct rest' as [|L2' rest2']; try (simpl in HJ; contradiction).
    + simpl. unfold layer_block, block, readout. rewrite <- Hw. apply sum_ext.
      intros l Hl. rewrite (HJ i l Hi Hl). rewrite (HP l Hl). reflexivity.
    + destruct HJ as [Hw2 [HJ2 HJr]]. apply IH; [exact HJr| |exact Hi].
      simpl. intros l Hl. unfold layer_block. rewrite !junction_preact. rewrite <- Hw.
      apply sum_ext. intros k Hk. rewrite (HJ2 l k Hl Hk). rewrite (HP k Hk). reflexivity.
Qed.

(** A residual-free stack depends on its weights only through the first
    [W_up], the junction products and the last [W_down], for every
    activation and every length. *)
Theorem plain_stack_junction_factorisation :
  forall (d : nat) (sigma : R -> R) (Ls Ls' : list layer)
         (junction_equal : junctions_agree d Ls Ls')
         (first_up_equal : match Ls, Ls' with
                           | L :: _, L' :: _ =>
                               forall l j, (l < width L)%nat -> (j < d)%nat -> Wup L l j = Wup L' l j
                           | _, _ => False
                           end),
  forall x i, (i < d)%nat ->
    plain_comp (map (layer_block d sigma) Ls) x i = plain_comp (map (layer_block d sigma) Ls') x i.
Proof.
  intros d sigma Ls Ls' HJ HU x i Hi. apply junction_stack_agree; [exact HJ| |exact Hi].
  destruct Ls as [|L rest]; destruct Ls' as [|L' rest']; try contradiction.
  simpl. intros l Hl. unfold mv. apply sum_ext. intros j Hj. rewrite (HU l j Hl Hj). reflexivity.
Qed.

(** Instance of [plain_pair_junction_factorisation], stated with the
    standard library only: [d = 1], one unit per layer, relu; the factors
    [(W_down^1, W_up^2) = (2, 3)] and [(6, 1)] have the same product 6, so
    [relu(3 (2 relu x))] and [relu(6 relu x)] agree (here with [W_down^2 = 1],
    [W_up^1 = 1]). *)
Lemma junction_factorisation_instance : forall x : R,
  Rmax (3 * (2 * Rmax x 0)) 0 = Rmax (6 * Rmax x 0) 0.
Proof.
  intros x.
  pose proof (plain_pair_junction_factorisation 1 1 1 relu
                (fun _ _ => 2) (fun _ _ => 1) (fun _ _ => 1) (fun _ _ => 3)
                (fun _ _ => 6) (fun _ _ => 1)) as H.
  assert (HJ : forall l k, (l < 1)%nat -> (k < 1)%nat ->
            matmul 1 (fun _ _ => 3) (fun _ _ => 2) l k = matmul 1 (fun _ _ => 1) (fun _ _ => 6) l k).
  { intros. unfold matmul. simpl. ring. }
  specialize (H HJ (v1 x) 0%nat).
  unfold block, readout, mv, v1, relu in H. simpl in H.
  rewrite ?Rmult_1_l, ?Rmult_0_l, ?Rplus_0_l, ?Rplus_0_r, ?Rmult_1_r in H.
  exact H.
Qed.

(** Instance of [plain_stack_junction_factorisation], stated with the
    standard library only: [d = 1], three relu layers of width 1.  The
    stacks with factors [(W_up, W_down)] = [(1, 2), (3, 5), (7, 1)] and
    [(1, 1), (6, 1), (35, 1)] have the same junction products [3 * 2 = 6 * 1]
    and [7 * 5 = 35 * 1], so they compute the same function. *)
Lemma stack_junction_instance : forall x : R,
  Rmax (7 * (5 * Rmax (3 * (2 * Rmax x 0)) 0)) 0 =
  Rmax (35 * Rmax (6 * Rmax x 0) 0) 0.
Proof.
  intros x.
  set (mk := fun u w : R => mk_layer 1 (fun _ _ => w) (fun _ _ => u)).
  assert (HJ : junctions_agree 1 [mk 1 2; mk 3 5; mk 7 1] [mk 1 1; mk 6 1; mk 35 1]).
  { unfold mk. simpl. unfold matmul. simpl.
    repeat split; intros; lra. }
  assert (HU : forall l j, (l < 1)%nat -> (j < 1)%nat ->
            Wup (mk 1 2) l j = Wup (mk 1 1) l j).
  { intros. unfold mk. reflexivity. }
  pose proof (plain_stack_junction_factorisation 1 relu [mk 1 2; mk 3 5; mk 7 1]
                [mk 1 1; mk 6 1; mk 35 1] HJ HU (v1 x) 0%nat ltac:(lia)) as H.
  unfold mk, plain_comp, map, layer_block, block, readout, mv, v1, relu in H. simpl in H.
  rewrite ?Rmult_1_l, ?Rmult_1_r, ?Rplus_0_l in H.
  exact H.
Qed.
