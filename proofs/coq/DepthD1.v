(** * [depth-d1]: relu stacks on the line ([d = 1]).

    The stacks are those of Depth.v and DepthStack.v at [d = 1]: a residual
    stack is a list of pairs [(M_l, layer_l)] run by [res_comp] (any scalar
    skip [M_l], read at entry [(0, 0)]), a plain stack a list of layers run by
    [plain_comp]; a biased plain stack uses the biased block [bblock] of
    Limit.v.  On the line every such map is read off at the coordinate [0].

    The proofs go through scalar functions [R -> R]: one bias-free layer is
    [y -> sum_l w_l relu(v_l y)], which is positively homogeneous, so every
    bias-free stack is [F y = F(1) relu y + F(-1) relu(-y)] (part (a)).  The
    plain stacks of widths [(m'_1, ..., m'_N)] realise exactly the pairs
    [(F(1), F(-1))] allowed by [d1_condition] (parts (b), (c)); biases in the
    plain stack do not help, because a biased plain stack with first width 1 is
    constant on a half-line and one with some width 1 is not injective (it is
    continuous and affine near both ends, so the width-1 layer folds it).
    Part (d): near a residual stack with [F(1), F(-1) > 0] every residual stack
    of the same widths is a plain stack of those widths. *)

From Coq Require Import Reals Lra Lia List.
From SkipAbsorption Require Import Linalg Depth DepthStack RealActivations Limit.
Import List ListNotations.
Open Scope R_scope.

(** ** The stacks *)

(** A residual stack with scalar skips: [x -> M_l x + B_l x], layer by layer. *)
Definition res_stack (d : nat) (res : list (mat * layer)) : vec -> vec :=
  res_comp d (map (fun p => (fst p, layer_block d relu (snd p))) res).

(** A bias-free plain stack. *)
Definition plain_stack (d : nat) (Ps : list layer) : vec -> vec :=
  plain_comp (map (layer_block d relu) Ps).

(** A layer with biases: [x -> W_down relu(W_up x + b_up) + b_down]. *)
Record blayer := mk_blayer { bwidth : nat; bWdown : mat; bWup : mat; bup : vec; bdown : vec }.

Definition blayer_block (d : nat) (sigma : R -> R) (B : blayer) : vec -> vec :=
  bblock d (bwidth B) sigma (bWdown B) (bWup B) (bup B) (bdown B).

(** A plain stack with biases. *)
Definition bplain_stack (d : nat) (Bs : list blayer) : vec -> vec :=
  plain_comp (map (blayer_block d relu) Bs).

(** The pattern of widths [(m'_1, ..., m'_N)] against the pair
    [(a, b) = (F(1), F(-1))]: [a b = 0] when [m'_1 = 1]; [a b >= 0] when
    [m'_1 >= 2] and a later width is 1; anything when every width is [>= 2]. *)
Definition d1_condition (ws : list nat) (a b : R) : Prop :=
  match ws with
  | [] => False
  | m1 :: rest =>
      (m1 = 1%nat /\ a * b = 0) \/
      ((2 <= m1)%nat /\ In 1%nat rest /\ 0 <= a * b) \/
      Forall (fun m => (2 <= m)%nat) ws
  end.

(** ** Scalar functions of the stacks *)

Definition lay1 (L : layer) (y : R) : R :=
  sum (width L) (fun l => Wdown L 0%nat l * relu (Wup L l 0%nat * y)).

Definition blay1 (B : blayer) (y : R) : R :=
  sum (bwidth B) (fun l => bWdown B 0%nat l * relu (bWup B l 0%nat * y + bup B l)) + bdown B 0%nat.

Fixpoint rstack1 (res : list (mat * layer)) (y : R) : R :=
  match res with
  | [] => y
  | p :: rest => rstack1 rest (fst p 0%nat 0%nat * y + lay1 (snd p) y)
  end.

Fixpoint pstack1 (Ps : list layer) (y : R) : R :=
  match Ps with
  | [] => y
  | L :: rest => pstack1 rest (lay1 L y)
  end.

Fixpoint bstack1 (Bs : list blayer) (y : R) : R :=
  match Bs with
  | [] => y
  | B :: rest => bstack1 rest (blay1 B y)
  end.

Lemma mv1 : forall A x i, mv 1 A x i = A i 0%nat * x 0%nat.
Proof. intros. unfold mv. simpl. ring. Qed.

Lemma layer_block_1 : forall L x, layer_block 1 relu L x 0%nat = lay1 L (x 0%nat).
Proof.
  intros. unfold layer_block, block, readout, lay1. apply sum_ext. intros l _. rewrite mv1. reflexivity.
Qed.

Lemma blayer_block_1 : forall B x, blayer_block 1 relu B x 0%nat = blay1 B (x 0%nat).
Proof.
  intros. unfold blayer_block, bblock, blay1. f_equal. apply sum_ext. intros l _. rewrite mv1. reflexivity.
Qed.

Lemma res_stack_1 : forall res x, res_stack 1 res x 0%nat = rstack1 res (x 0%nat).
Proof.
  unfold res_stack. induction res as [|[M L] res IH]; intros x; simpl; [reflexivity|].
  rewrite IH. rewrite mv1, layer_block_1. reflexivity.
Qed.

Lemma plain_stack_1 : forall Ps x, plain_stack 1 Ps x 0%nat = pstack1 Ps (x 0%nat).
Proof.
  unfold plain_stack. induction Ps as [|L Ps IH]; intros x; simpl; [reflexivity|].
  rewrite IH, layer_block_1. reflexivity.
Qed.

Lemma bplain_stack_1 : forall Bs x, bplain_stack 1 Bs x 0%nat = bstack1 Bs (x 0%nat).
Proof.
  unfold bplain_stack. induction Bs as [|B Bs IH]; intros x; simpl; [reflexivity|].
  rewrite IH, blayer_block_1. reflexivity.
Qed.

(** In [d = 1] an equality at coordinate [0] is an equality of vectors on [i < 1]. *)
Lemma coord0 : forall (F G : vec -> vec),
  (forall x, F x 0%nat = G x 0%nat) -> forall x i, (i < 1)%nat -> F x i = G x i.
Proof. intros F G H x i Hi. assert (i = 0%nat) by lia. subst i. apply H. Qed.

(** The value of a stack at [x] depends only on [x 0]. *)
Lemma v1_0 : forall x : vec, v1 (x 0%nat) 0%nat = x 0%nat.
Proof. reflexivity. Qed.

(** ** (a) Positive homogeneity *)

Definition pos_hom1 (f : R -> R) : Prop := forall t y, 0 < t -> f (t * y) = t * f y.

Lemma lay1_hom : forall L, pos_hom1 (lay1 L).
Proof.
  intros L t y Ht. unfold lay1. rewrite <- sum_scal_l. apply sum_ext. intros l _.
  replace (Wup L l 0%nat * (t * y)) with (t * (Wup L l 0%nat * y)) by ring.
  rewrite relu_pos_scale by exact Ht. ring.
Qed.

Lemma rstack1_hom : forall res, pos_hom1 (rstack1 res).
Proof.
  induction res as [|[M L] res IH]; intros t y Ht; simpl; [reflexivity|].
  rewrite (lay1_hom L t y Ht).
  replace (M 0%nat 0%nat * (t * y) + t * lay1 L y) with (t * (M 0%nat 0%nat * y + lay1 L y)) by ring.
  apply IH. exact Ht.
Qed.

Lemma pstack1_hom : forall Ps, pos_hom1 (pstack1 Ps).
Proof.
  induction Ps as [|L Ps IH]; intros t y Ht; simpl; [reflexivity|].
  rewrite (lay1_hom L t y Ht). apply IH. exact Ht.
Qed.

Lemma relu_nonpos : forall z, z <= 0 -> relu z = 0.
Proof. intros z Hz. unfold relu, Rmax. destruct (Rle_dec z 0); [reflexivity|lra]. Qed.

Lemma relu_nonneg_id : forall z, 0 <= z -> relu z = z.
Proof. intros z Hz. unfold relu, Rmax. destruct (Rle_dec z 0); lra. Qed.

Lemma relu_ge0 : forall z, 0 <= relu z.
Proof. intros z. unfold relu, Rmax. destruct (Rle_dec z 0); lra. Qed.

(** Lemma 1 of the informal proof: a positively homogeneous map of the line is
    [f 1 relu y + f (-1) relu (-y)]. *)
Lemma hom_pair : forall f, pos_hom1 f -> forall y, f y = f 1 * relu y + f (-1) * relu (- y).
Proof.
  intros f Hf y. destruct (Rtotal_order y 0) as [Hneg|[H0|Hpos]].
  - pose proof (Hf (- y) (-1) ltac:(lra)) as E. replace (- y * -1) with y in E by ring.
    rewrite E, relu_nonpos, relu_nonneg_id by lra. ring.
  - subst y. pose proof (Hf 2 0 ltac:(lra)) as E. replace (2 * 0) with 0 in E by ring.
    rewrite Ropp_0, relu_nonpos by lra. lra.
  - pose proof (Hf y 1 Hpos) as E. rewrite Rmult_1_r in E.
    rewrite E, relu_nonneg_id, (relu_nonpos (- y)) by lra. ring.
Qed.

(** [depth-d1] (a): every bias-free residual relu stack on the line, with any
    scalar skips, depth and widths, is [F x = F(1) relu x + F(-1) relu(-x)]. *)
Theorem depth_d1_homogeneous :
  forall (d : nat) (d_eq_1 : d = 1%nat) (res : list (mat * layer)) (x : vec),
  res_stack d res x 0%nat =
  res_stack d res (v1 1) 0%nat * relu (x 0%nat) + res_stack d res (v1 (-1)) 0%nat * relu (- x 0%nat).
Proof.
  intros d d_eq_1 res x. subst d. rewrite !res_stack_1. unfold v1. apply hom_pair, rstack1_hom.
Qed.

(** The same for plain stacks. *)
Theorem depth_d1_plain_homogeneous :
  forall (d : nat) (d_eq_1 : d = 1%nat) (Ps : list layer) (x : vec),
  plain_stack d Ps x 0%nat =
  plain_stack d Ps (v1 1) 0%nat * relu (x 0%nat) + plain_stack d Ps (v1 (-1)) 0%nat * relu (- x 0%nat).
Proof.
  intros d d_eq_1 Ps x. subst d. rewrite !plain_stack_1. unfold v1. apply hom_pair, pstack1_hom.
Qed.

(** A plain stack is the residual stack with zero skips (any [d]), so every
    statement about residual stacks with scalar skips covers plain stacks. *)
Lemma plain_stack_is_res_stack : forall (d : nat) (Ps : list layer) x i, (i < d)%nat ->
  plain_stack d Ps x i = res_stack d (map (fun L => ((fun _ _ => 0) : mat, L)) Ps) x i.
Proof.
  intros d Ps x i Hi. unfold res_stack, plain_stack. symmetry.
  apply (res_stack_skips_eq_plain_stack d); [|intros; reflexivity|exact Hi].
  induction Ps as [|L Ps IH]; simpl; constructor; [|exact IH].
  split; [apply block_local|]. split; [apply block_local|].
  intros y j Hj. simpl. unfold mv. rewrite sum_zero by (intros; simpl; ring). ring.
Qed.

(** ** (b) The explicit plain stacks *)

(** The units [(v0, w0)] and [(v1', w1)], then padding units [(1, 0)] up to
    width [m] (they contribute nothing). *)
Definition two_units (v0 w0 v1' w1 : R) (m : nat) : layer :=
  mk_layer m (fun _ l => match l with O => w0 | S O => w1 | _ => 0 end)
             (fun l _ => match l with O => v0 | S O => v1' | _ => 1 end).

Definition one_unit (v w : R) : layer := mk_layer 1 (fun _ _ => w) (fun _ _ => v).

(** First layer: pair [(a, b)] from the identity. *)
Definition first_layer (a b : R) (m : nat) : layer :=
  match m with
  | S O => if Req_EM_T b 0 then one_unit 1 a else one_unit (-1) b
  | _ => two_units 1 a (-1) b m
  end.

(** Later layers: the identity on the current values. *)
Definition id_layer (s : R) (m : nat) : layer :=
  match m with
  | S O => one_unit s s
  | _ => two_units 1 1 (-1) (-1) m
  end.

(** The common sign of [a] and [b] (used only when [a b >= 0]). *)
Definition sign_of (a b : R) : R := if Rle_dec 0 a then if Rle_dec 0 b then 1 else -1 else -1.

(** The plain stack of widths [ws] with pair [(a, b)]. *)
Definition d1_construction (ws : list nat) (a b : R) : list layer :=
  match ws with
  | [] => []
  | m1 :: rest => first_layer a b m1 :: map (id_layer (sign_of a b)) rest
  end.

Lemma lay1_two_units : forall v0 w0 v1' w1 m y, (2 <= m)%nat ->
  lay1 (two_units v0 w0 v1' w1 m) y = w0 * relu (v0 * y) + w1 * relu (v1' * y).
Proof.
  intros. unfold lay1, two_units. simpl. rewrite sum_two; [reflexivity|lia|]. intros [|[|l]] Hl; [lia|lia|ring].
Qed.

Lemma lay1_one_unit : forall v w y, lay1 (one_unit v w) y = w * relu (v * y).
Proof. intros. unfold lay1, one_unit. simpl. ring. Qed.

Lemma first_layer_width : forall a b m, width (first_layer a b m) = m.
Proof.
  intros a b [|[|m]]; simpl; try reflexivity. destruct (Req_EM_T b 0); reflexivity.
Qed.

Lemma id_layer_width : forall s m, width (id_layer s m) = m.
Proof. intros s [|[|m]]; reflexivity. Qed.

Lemma d1_construction_widths : forall ws a b, map width (d1_construction ws a b) = ws.
Proof.
  intros [|m1 rest] a b; simpl; [reflexivity|]. rewrite first_layer_width. f_equal.
  induction rest as [|m rest IH]; simpl; [reflexivity|]. rewrite id_layer_width, IH. reflexivity.
Qed.

Lemma first_layer_value : forall a b m y, (1 <= m)%nat -> (m = 1%nat -> a * b = 0) ->
  lay1 (first_layer a b m) y = a * relu y + b * relu (- y).
Proof.
  intros a b [|[|m]] y Hm Hab; [lia| |].
  - simpl. specialize (Hab eq_refl). destruct (Req_EM_T b 0) as [->|Hb].
    + rewrite lay1_one_unit. rewrite Rmult_1_l. ring.
    + assert (a = 0) by (apply (Rmult_eq_reg_r b); [lra|exact Hb]). subst a.
      rewrite lay1_one_unit. replace (-1 * y) with (- y) by ring. ring.
  - unfold first_layer. rewrite lay1_two_units by lia.
    replace (1 * y) with y by ring. replace (-1 * y) with (- y) by ring. ring.
Qed.

Lemma id_layers_value : forall s rest y, (s = 1 \/ s = -1) ->
  Forall (fun m => (1 <= m)%nat) rest -> (In 1%nat rest -> 0 <= s * y) ->
  pstack1 (map (id_layer s) rest) y = y.
Proof.
  intros s rest y Hs Hpos. induction Hpos as [|m rest Hm _ IH]; intros Hin; simpl; [reflexivity|].
  assert (Hy : lay1 (id_layer s m) y = y).
  { destruct m as [|[|m]]; [lia| |].
    - simpl. rewrite lay1_one_unit. rewrite relu_nonneg_id by (apply Hin; left; reflexivity).
      destruct Hs as [->| ->]; ring.
    - unfold id_layer. rewrite lay1_two_units by lia.
      replace (1 * y) with y by ring. replace (-1 * y) with (- y) by ring.
      pose proof (relu_odd_part y). lra. }
  rewrite Hy. apply IH. intros H. apply Hin. right. exact H.
Qed.

Lemma sign_of_pm : forall a b, sign_of a b = 1 \/ sign_of a b = -1.
Proof. intros. unfold sign_of. destruct (Rle_dec 0 a), (Rle_dec 0 b); auto. Qed.

Lemma sign_of_sign : forall a b y, 0 <= a * b ->
  0 <= sign_of a b * (a * relu y + b * relu (- y)).
Proof.
  intros a b y Hab. pose proof (relu_ge0 y). pose proof (relu_ge0 (- y)).
  unfold sign_of. destruct (Rle_dec 0 a) as [Ha|Ha], (Rle_dec 0 b) as [Hb|Hb].
  - nra.
  - assert (a = 0) by nra. subst a. nra.
  - assert (b <= 0) by nra. nra.
  - nra.
Qed.

(** The construction has widths [ws] and the pair [(a, b)] whenever
    [d1_condition ws a b] holds (widths [>= 1]). *)
Lemma d1_construction_value : forall ws a b,
  Forall (fun m => (1 <= m)%nat) ws -> d1_condition ws a b ->
  forall y, pstack1 (d1_construction ws a b) y = a * relu y + b * relu (- y).
Proof.
  intros [|m1 rest] a b Hpos Hc y; [destruct Hc|]. inversion Hpos as [|m1' rest' Hm1 Hrest]; subst.
  simpl. rewrite first_layer_value; [|exact Hm1|].
  - apply id_layers_value; [apply sign_of_pm|exact Hrest|].
    intros Hin. apply sign_of_sign.
    destruct Hc as [[_ E]|[[_ [_ E]]|Hall]]; [lra|exact E|].
    exfalso. inversion Hall as [|? ? _ Hall']; subst.
    rewrite Forall_forall in Hall'. specialize (Hall' 1%nat Hin). lia.
  - intros ->. destruct Hc as [[_ E]|[[H2 _]|Hall]]; [exact E|lia|].
    inversion Hall; subst. lia.
Qed.

(** [depth-d1] (b), the explicit plain stack: for widths [ws] (each [>= 1])
    and a pair [(a, b)] satisfying [d1_condition], [d1_construction ws a b] is
    a bias-free plain stack of widths [ws] equal to
    [x -> a relu x + b relu (-x)]. *)
Theorem d1_construction_correct :
  forall (ws : list nat) (a b : R),
  Forall (fun m => (1 <= m)%nat) ws -> d1_condition ws a b ->
  map width (d1_construction ws a b) = ws /\
  forall x : vec, plain_stack 1 (d1_construction ws a b) x 0%nat = a * relu (x 0%nat) + b * relu (- x 0%nat).
Proof.
  intros ws a b Hpos Hc. split; [apply d1_construction_widths|].
  intros x. rewrite plain_stack_1. apply d1_construction_value; assumption.
Qed.

(** ** (c) Biased plain stacks *)

(** *** Constant on a half-line when the first width is 1 *)

Definition const_half_line (g : R -> R) : Prop :=
  exists t : R, (forall x y, t <= x -> t <= y -> g x = g y) \/ (forall x y, x <= t -> y <= t -> g x = g y).

Lemma width1_blay1 : forall B y, bwidth B = 1%nat ->
  blay1 B y = bWdown B 0%nat 0%nat * relu (bWup B 0%nat 0%nat * y + bup B 0%nat) + bdown B 0%nat.
Proof. intros B y H. unfold blay1. rewrite H. simpl. ring. Qed.

Lemma first_width1_const : forall B Bs, bwidth B = 1%nat -> const_half_line (bstack1 (B :: Bs)).
Proof.
  intros B Bs H. simpl.
  set (v := bWup B 0%nat 0%nat). set (c := bup B 0%nat).
  assert (Hz : forall x y, v * x + c <= 0 -> v * y + c <= 0 ->
                 bstack1 Bs (blay1 B x) = bstack1 Bs (blay1 B y)).
  { intros x y Hx Hy. rewrite !width1_blay1 by exact H. fold v c.
    rewrite (relu_nonpos (v * x + c)), (relu_nonpos (v * y + c)) by assumption. reflexivity. }
  destruct (Rtotal_order v 0) as [Hv|[Hv|Hv]].
  - exists (- c / v). left. intros x y Hx Hy. apply Hz.
    + assert (v * x <= v * (- c / v)) by (apply Rmult_le_compat_neg_l; lra).
      replace (v * (- c / v)) with (- c) in H0 by (field; lra). lra.
    + assert (v * y <= v * (- c / v)) by (apply Rmult_le_compat_neg_l; lra).
      replace (v * (- c / v)) with (- c) in H0 by (field; lra). lra.
  - exists 0. left. intros x y _ _. rewrite !width1_blay1 by exact H. fold v c. rewrite Hv.
    rewrite !Rmult_0_l. reflexivity.
  - exists (- c / v). right. intros x y Hx Hy. apply Hz.
    + assert (v * x <= v * (- c / v)) by (apply Rmult_le_compat_l; lra).
      replace (v * (- c / v)) with (- c) in H0 by (field; lra). lra.
    + assert (v * y <= v * (- c / v)) by (apply Rmult_le_compat_l; lra).
      replace (v * (- c / v)) with (- c) in H0 by (field; lra). lra.
Qed.

(** *** Affine near each end, and continuous *)

(** [g] is affine on some half-line [[T, oo)]. *)
Definition ev_affine (g : R -> R) : Prop :=
  exists T s c : R, forall x, T <= x -> g x = s * x + c.

Lemma ev_affine_ext : forall f g, (forall x, f x = g x) -> ev_affine f -> ev_affine g.
Proof. intros f g E (T & s & c & H). exists T, s, c. intros x Hx. rewrite <- E. apply H, Hx. Qed.

Lemma ev_affine_const : forall c, ev_affine (fun _ => c).
Proof. intros c. exists 0, 0, c. intros. ring. Qed.

Lemma ev_affine_lin : forall g a b, ev_affine g -> ev_affine (fun x => a * g x + b).
Proof.
  intros g a b (T & s & c & H). exists T, (a * s), (a * c + b). intros x Hx. rewrite H by exact Hx. ring.
Qed.

Lemma ev_affine_plus : forall f g, ev_affine f -> ev_affine g -> ev_affine (fun x => f x + g x).
Proof.
  intros f g (T1 & s1 & c1 & H1) (T2 & s2 & c2 & H2). exists (Rmax T1 T2), (s1 + s2), (c1 + c2).
  intros x Hx. pose proof (Rmax_l T1 T2). pose proof (Rmax_r T1 T2).
  rewrite H1, H2 by lra. ring.
Qed.

Lemma ev_affine_relu : forall g, ev_affine g -> ev_affine (fun x => relu (g x)).
Proof.
  intros g (T & s & c & H). destruct (Rtotal_order s 0) as [Hs|[Hs|Hs]].
  - exists (Rmax T (- c / s)), 0, 0. intros x Hx. pose proof (Rmax_l T (- c / s)). pose proof (Rmax_r T (- c / s)).
    rewrite H by lra. rewrite Rmult_0_l, Rplus_0_r. apply relu_nonpos.
    assert (s * x <= s * (- c / s)) by (apply Rmult_le_compat_neg_l; lra).
    replace (s * (- c / s)) with (- c) in H2 by (field; lra). lra.
  - exists T, 0, (relu c). intros x Hx. rewrite H by exact Hx. rewrite Hs, Rmult_0_l, !Rplus_0_l. reflexivity.
  - exists (Rmax T (- c / s)), s, c. intros x Hx. pose proof (Rmax_l T (- c / s)). pose proof (Rmax_r T (- c / s)).
    rewrite H by lra. apply relu_nonneg_id.
    assert (s * (- c / s) <= s * x) by (apply Rmult_le_compat_l; lra).
    replace (s * (- c / s)) with (- c) in H2 by (field; lra). lra.
Qed.

(** A property of functions [R -> R] kept by the operations a width-1 relu
    layer is built from: equality everywhere, constants, [a g + b], sums and
    [relu] after [g]. *)
Definition layer_closed (P : (R -> R) -> Prop) : Prop :=
  (forall f g, (forall x, f x = g x) -> P f -> P g) /\ (forall c, P (fun _ => c)) /\
  (forall g a b, P g -> P (fun x => a * g x + b)) /\
  (forall f g, P f -> P g -> P (fun x => f x + g x)) /\
  (forall g, P g -> P (fun x => relu (g x))).

Lemma closed_sum : forall P, layer_closed P -> forall m (F : nat -> R -> R), (forall l, P (F l)) ->
  P (fun x => sum m (fun l => F l x)).
Proof.
  intros P (_ & Pc & _ & Pp & _). induction m as [|m IH]; intros F HF; simpl.
  - apply Pc.
  - apply (Pp (fun x => sum m (fun l => F l x)) (F m)); [apply IH, HF|apply HF].
Qed.

Lemma closed_blay1 : forall P, layer_closed P -> forall B g, P g -> P (fun x => blay1 B (g x)).
Proof.
  intros P HP B g Hg. pose proof HP as (Pe & Pc & Pl & Pp & Pr). unfold blay1.
  apply (Pp _ (fun _ => bdown B 0%nat)); [|apply Pc].
  apply (closed_sum P HP (bwidth B) (fun l x => bWdown B 0%nat l * relu (bWup B l 0%nat * g x + bup B l))).
  intros l.
  apply (Pe (fun x => bWdown B 0%nat l * relu (bWup B l 0%nat * g x + bup B l) + 0));
    [intros; ring|].
  apply (Pl (fun x => relu (bWup B l 0%nat * g x + bup B l))).
  apply (Pr (fun x => bWup B l 0%nat * g x + bup B l)). apply Pl, Hg.
Qed.

Lemma closed_bstack1 : forall P, layer_closed P -> forall Bs g, P g -> P (fun x => bstack1 Bs (g x)).
Proof.
  intros P HP. induction Bs as [|B Bs IH]; intros g Hg; simpl; [exact Hg|].
  apply (IH (fun x => blay1 B (g x))). apply (closed_blay1 P HP), Hg.
Qed.

Lemma ev_affine_closed : layer_closed ev_affine.
Proof. exact (conj ev_affine_ext (conj ev_affine_const (conj ev_affine_lin (conj ev_affine_plus ev_affine_relu)))). Qed.

Lemma cont_ext : forall f g : R -> R, (forall x, f x = g x) -> continuity f -> continuity g.
Proof.
  intros f g E Hf x. unfold continuity_pt, continue_in, limit1_in, limit_in in *.
  intros eps Heps. destruct (Hf x eps Heps) as (a & Ha & H). exists a. split; [exact Ha|].
  intros y Hy. rewrite <- (E y), <- (E x). apply H. exact Hy.
Qed.

Lemma cont_const : forall c, continuity (fun _ => c).
Proof. intros c x. apply continuity_pt_const. intros ? ?. reflexivity. Qed.

Lemma cont_lin : forall g a b, continuity g -> continuity (fun x => a * g x + b).
Proof.
  intros g a b Hg x.
  exact (continuity_pt_plus (fun x => a * g x) (fun _ => b) x (continuity_pt_scal g a x (Hg x))
           (cont_const b x)).
Qed.

Lemma cont_plus : forall f g, continuity f -> continuity g -> continuity (fun x => f x + g x).
Proof. intros f g Hf Hg x. exact (continuity_pt_plus f g x (Hf x) (Hg x)). Qed.

Lemma relu_lipschitz : forall a b, Rabs (relu a - relu b) <= Rabs (a - b).
Proof.
  intros a b. unfold relu, Rmax.
  destruct (Rle_dec a 0), (Rle_dec b 0); unfold Rabs;
    repeat match goal with |- context [Rcase_abs ?z] => destruct (Rcase_abs z) end; lra.
Qed.

Lemma cont_relu : forall g, continuity g -> continuity (fun x => relu (g x)).
Proof.
  intros g Hg x.
  apply (continuity_pt_comp g relu x (Hg x)).
  intros eps Heps. exists eps. split; [exact Heps|]. intros y [_ Hy]. simpl in *. unfold R_dist in *.
  eapply Rle_lt_trans; [apply relu_lipschitz|exact Hy].
Qed.

Lemma cont_closed : layer_closed continuity.
Proof. exact (conj cont_ext (conj cont_const (conj cont_lin (conj cont_plus cont_relu)))). Qed.

(** *** Two points that a width-1 layer cannot tell apart *)

(** Two points [x1 <> x2] where [phi] is [<= 0] at both or takes the same value. *)
Definition folds (phi : R -> R) : Prop :=
  exists x1 x2, x1 <> x2 /\ ((phi x1 <= 0 /\ phi x2 <= 0) \/ phi x1 = phi x2).

Lemma end_folds : forall (g : R -> R) T s c, (forall x, T <= x -> g x = s * x + c) -> s <= 0 -> folds g.
Proof.
  intros g T s c H Hs. destruct (Req_dec s 0) as [->|Hs0].
  - exists T, (T + 1). split; [lra|]. right. rewrite !H by lra. ring.
  - set (q := Rmax T (- c / s)). pose proof (Rmax_l T (- c / s)). pose proof (Rmax_r T (- c / s)).
    assert (Hq : s * (- c / s) = - c) by (field; lra).
    exists q, (q + 1). split; [lra|]. left. fold q in H0, H1.
    rewrite !H by lra. split; nra.
Qed.

Lemma folds_reflect : forall phi, folds (fun x => phi (- x)) -> folds phi.
Proof.
  intros phi (x1 & x2 & Hne & H). exists (- x1), (- x2). split; [lra|exact H].
Qed.

Lemma continuous_ends_fold : forall phi, continuity phi -> ev_affine phi -> ev_affine (fun x => phi (- x)) ->
  folds phi.
Proof.
  intros phi Hc (T & s & c & HR) (T' & s' & c' & HL).
  destruct (Rle_dec s 0) as [Hs|Hs]; [exact (end_folds phi T s c HR Hs)|].
  destruct (Rle_dec s' 0) as [Hs'|Hs']; [apply folds_reflect; exact (end_folds _ T' s' c' HL Hs')|].
  (* affine with positive slopes at both ends: phi -> +oo on both sides *)
  set (p := phi 0).
  set (xR := Rmax (Rmax T 1) ((p + 1 - c) / s)).
  set (xL := Rmax (Rmax T' 1) ((p + 1 - c') / s')).
  assert (HxR : 1 <= xR /\ T <= xR /\ (p + 1 - c) / s <= xR).
  { unfold xR. pose proof (Rmax_l (Rmax T 1) ((p + 1 - c) / s)). pose proof (Rmax_r (Rmax T 1) ((p + 1 - c) / s)).
    pose proof (Rmax_l T 1). pose proof (Rmax_r T 1). lra. }
  assert (HxL : 1 <= xL /\ T' <= xL /\ (p + 1 - c') / s' <= xL).
  { unfold xL. pose proof (Rmax_l (Rmax T' 1) ((p + 1 - c') / s')). pose proof (Rmax_r (Rmax T' 1) ((p + 1 - c') / s')).
    pose proof (Rmax_l T' 1). pose proof (Rmax_r T' 1). lra. }
  assert (HR1 : p + 1 <= phi xR).
  { rewrite HR by lra. assert (s * ((p + 1 - c) / s) <= s * xR) by (apply Rmult_le_compat_l; lra).
    replace (s * ((p + 1 - c) / s)) with (p + 1 - c) in H by (field; lra). lra. }
  assert (HL1 : p + 1 <= phi (- xL)).
  { rewrite HL by lra. assert (s' * ((p + 1 - c') / s') <= s' * xL) by (apply Rmult_le_compat_l; lra).
    replace (s' * ((p + 1 - c') / s')) with (p + 1 - c') in H by (field; lra). lra. }
  destruct (IVT (fun x => 1 * phi x + - (p + / 2)) 0 xR (cont_lin phi 1 _ Hc))
    as (z2 & Hz2 & E2); [lra|unfold p; lra|lra|].
  destruct (IVT (fun x => -1 * phi x + (p + / 2)) (- xL) 0 (cont_lin phi (-1) _ Hc))
    as (z1 & Hz1 & E1); [lra|lra|unfold p; lra|].
  exists z1, z2. split.
  - intros ->. assert (z2 = 0) by lra. subst z2. unfold p in E2. lra.
  - right. lra.
Qed.

(** A width-1 layer after a biased plain stack [pre]: two different inputs
    with the same value. *)
Lemma width1_layer_folds : forall pre B, bwidth B = 1%nat ->
  exists x1 x2, x1 <> x2 /\ blay1 B (bstack1 pre x1) = blay1 B (bstack1 pre x2).
Proof.
  intros pre B HB.
  set (phi := fun x => bWup B 0%nat 0%nat * bstack1 pre x + bup B 0%nat).
  assert (Hf : folds phi).
  { apply continuous_ends_fold.
    - apply (cont_lin (fun x => bstack1 pre x)). apply (closed_bstack1 continuity cont_closed pre (fun x => x)).
      intros x. apply derivable_continuous_pt, derivable_pt_id.
    - apply (ev_affine_lin (fun x => bstack1 pre x)). apply (closed_bstack1 ev_affine ev_affine_closed pre (fun x => x)).
      exists 0, 1, 0. intros. ring.
    - apply (ev_affine_lin (fun x => bstack1 pre (- x))). apply (closed_bstack1 ev_affine ev_affine_closed pre (fun x => - x)).
      exists 0, (-1), 0. intros. ring. }
  destruct Hf as (x1 & x2 & Hne & H). exists x1, x2. split; [exact Hne|].
  rewrite !width1_blay1 by exact HB. unfold phi in H. destruct H as [[H1 H2]|H].
  - rewrite !relu_nonpos by assumption. reflexivity.
  - rewrite H. reflexivity.
Qed.

Lemma bstack1_app : forall l1 l2 y, bstack1 (l1 ++ l2) y = bstack1 l2 (bstack1 l1 y).
Proof. induction l1 as [|B l1 IH]; intros l2 y; simpl; [reflexivity|apply IH]. Qed.

Lemma some_width1_not_injective : forall Bs, Exists (fun B => bwidth B = 1%nat) Bs ->
  exists x1 x2, x1 <> x2 /\ bstack1 Bs x1 = bstack1 Bs x2.
Proof.
  intros Bs HE. apply Exists_exists in HE. destruct HE as (B & Hin & HB).
  apply in_split in Hin. destruct Hin as (pre & post & ->).
  destruct (width1_layer_folds pre B HB) as (x1 & x2 & Hne & E).
  exists x1, x2. split; [exact Hne|]. rewrite !bstack1_app. simpl. rewrite E. reflexivity.
Qed.

(** [depth-d1], biased plain stacks (any weights and biases, [d = 1]): a
    plain relu stack whose first width is 1 is constant on a half-line, and
    one with some width 1 is not injective. *)
Theorem d1_biased_plain_stacks :
  forall (d : nat) (d_eq_1 : d = 1%nat) (Bs : list blayer),
  ((exists (B1 : blayer) (rest : list blayer), Bs = B1 :: rest /\ bwidth B1 = 1%nat) ->
   exists t : R,
     (forall x y : R, t <= x -> t <= y -> bplain_stack d Bs (v1 x) 0%nat = bplain_stack d Bs (v1 y) 0%nat) \/
     (forall x y : R, x <= t -> y <= t -> bplain_stack d Bs (v1 x) 0%nat = bplain_stack d Bs (v1 y) 0%nat)) /\
  (Exists (fun B => bwidth B = 1%nat) Bs ->
   exists x y : R, x <> y /\ bplain_stack d Bs (v1 x) 0%nat = bplain_stack d Bs (v1 y) 0%nat).
Proof.
  intros d d_eq_1 Bs. subst d. split.
  - intros (B1 & rest & -> & H1). destruct (first_width1_const B1 rest H1) as (t & Ht).
    exists t. destruct Ht as [Ht|Ht]; [left|right]; intros x y Hx Hy;
      rewrite !bplain_stack_1; unfold v1; apply Ht; assumption.
  - intros HE. destruct (some_width1_not_injective Bs HE) as (x1 & x2 & Hne & E).
    exists x1, x2. split; [exact Hne|]. rewrite !bplain_stack_1. unfold v1. exact E.
Qed.

(** ** Necessity, and the characterisation *)

Lemma const_half_ext : forall f g, (forall y, f y = g y) -> const_half_line g -> const_half_line f.
Proof.
  intros f g E (t & [H|H]); exists t; [left|right]; intros x y Hx Hy; rewrite !E; apply H; assumption.
Qed.

(** A positively homogeneous map constant on a half-line vanishes at [1] or at [-1]. *)
Lemma const_half_hom : forall f, pos_hom1 f -> const_half_line f -> f 1 * f (-1) = 0.
Proof.
  intros f Hf (t & [H|H]).
  - set (x := Rmax t 1). assert (Hx : 1 <= x /\ t <= x) by (split; [apply Rmax_r|apply Rmax_l]).
    pose proof (Hf x 1 ltac:(lra)) as E1. pose proof (Hf (x + 1) 1 ltac:(lra)) as E2.
    rewrite Rmult_1_r in E1, E2. pose proof (H x (x + 1) ltac:(lra) ltac:(lra)) as E.
    assert (f 1 = 0) by nra. rewrite H0. ring.
  - set (x := Rmin t (-1)). assert (Hx : x <= -1 /\ x <= t) by (split; [apply Rmin_r|apply Rmin_l]).
    pose proof (Hf (- x) (-1) ltac:(lra)) as E1. pose proof (Hf (- x + 1) (-1) ltac:(lra)) as E2.
    replace (- x * -1) with x in E1 by ring. replace ((- x + 1) * -1) with (x - 1) in E2 by ring.
    pose proof (H x (x - 1) ltac:(lra) ltac:(lra)) as E.
    assert (f (-1) = 0) by nra. rewrite H0. ring.
Qed.

(** With [a b < 0], [y -> a relu y + b relu (-y)] is injective. *)
Lemma pair_injective : forall a b x y, a * b < 0 ->
  a * relu x + b * relu (- x) = a * relu y + b * relu (- y) -> x = y.
Proof.
  intros a b x y Hab E.
  assert (Hs : (0 < a /\ b < 0) \/ (a < 0 /\ 0 < b)).
  { destruct (Rtotal_order a 0) as [Ha|[Ha|Ha]]; [right|subst a; lra|left]; split; nra. }
  unfold relu, Rmax in E.
  destruct (Rle_dec x 0), (Rle_dec (- x) 0), (Rle_dec y 0), (Rle_dec (- y) 0);
    apply Rle_antisym; destruct Hs as [[Ha Hb]|[Ha Hb]]; nra.
Qed.

Definition to_blayer (L : layer) : blayer :=
  mk_blayer (width L) (Wdown L) (Wup L) (fun _ => 0) (fun _ => 0).

Lemma to_blayer_stack : forall Ps y, bstack1 (map to_blayer Ps) y = pstack1 Ps y.
Proof.
  induction Ps as [|L Ps IH]; intros y; simpl; [reflexivity|]. rewrite <- IH. f_equal.
  unfold blay1, lay1, to_blayer. simpl. rewrite Rplus_0_r. apply sum_ext. intros l _. rewrite Rplus_0_r.
  reflexivity.
Qed.

Lemma to_blayer_widths : forall Ps, map bwidth (map to_blayer Ps) = map width Ps.
Proof. intros Ps. rewrite map_map. reflexivity. Qed.

(** (c): a biased plain stack equal to a bias-free residual stack forces
    [d1_condition] on its widths. *)
Lemma d1_necessity : forall res Bs,
  map bwidth Bs <> [] -> Forall (fun m => (1 <= m)%nat) (map bwidth Bs) ->
  (forall y, rstack1 res y = bstack1 Bs y) ->
  d1_condition (map bwidth Bs) (rstack1 res 1) (rstack1 res (-1)).
Proof.
  intros res Bs Hne Hpos E. destruct Bs as [|B1 rest]; [contradiction|]. simpl.
  inversion Hpos as [|m1 ms Hm1 Hrest]; subst.
  destruct (Nat.eq_dec (bwidth B1) 1) as [H1|H1].
  - left. split; [exact H1|]. apply const_half_hom; [apply rstack1_hom|].
    apply (const_half_ext _ _ E). apply first_width1_const. exact H1.
  - right. destruct (in_dec Nat.eq_dec 1%nat (map bwidth rest)) as [Hin|Hnin].
    + left. split; [lia|]. split; [exact Hin|].
      destruct (Rle_dec 0 (rstack1 res 1 * rstack1 res (-1))) as [Hle|Hlt]; [exact Hle|exfalso].
      apply in_map_iff in Hin. destruct Hin as (B & HB & HinB).
      assert (HE : Exists (fun B => bwidth B = 1%nat) (B1 :: rest)).
      { apply Exists_cons_tl. apply Exists_exists. exists B. split; assumption. }
      destruct (some_width1_not_injective _ HE) as (x1 & x2 & Hx & Ex).
      apply Hx. apply (pair_injective (rstack1 res 1) (rstack1 res (-1))); [lra|].
      rewrite <- !(hom_pair _ (rstack1_hom res)). rewrite !E. exact Ex.
    + right. constructor; [lia|]. rewrite Forall_forall in Hrest |- *. intros m Hm.
      specialize (Hrest m Hm). destruct (Nat.eq_dec m 1) as [->|Hm1']; [contradiction|lia].
Qed.

(** [depth-d1], the characterisation.  On the line ([d = 1]), let [F] be a
    bias-free residual relu stack with any scalar skips, depth and widths
    (plain stacks included: [plain_stack_is_res_stack]), and let
    [ws = (m'_1, ..., m'_N)] be widths [>= 1], [N >= 1].  Then
    [F x = F(1) relu x + F(-1) relu(-x)], and [F] equals a plain relu stack of
    widths [ws] iff [d1_condition ws F(1) F(-1)], both for bias-free plain
    stacks and for plain stacks with biases. *)
Theorem depth_d1 :
  forall (d : nat) (d_eq_1 : d = 1%nat) (res : list (mat * layer)) (ws : list nat)
         (widths_positive : ws <> [] /\ Forall (fun m => (1 <= m)%nat) ws),
  (forall x : vec, res_stack d res x 0%nat =
     res_stack d res (v1 1) 0%nat * relu (x 0%nat) + res_stack d res (v1 (-1)) 0%nat * relu (- x 0%nat)) /\
  ((exists Ps : list layer, map width Ps = ws /\
      forall x i, (i < d)%nat -> res_stack d res x i = plain_stack d Ps x i) <->
   d1_condition ws (res_stack d res (v1 1) 0%nat) (res_stack d res (v1 (-1)) 0%nat)) /\
  ((exists Bs : list blayer, map bwidth Bs = ws /\
      forall x i, (i < d)%nat -> res_stack d res x i = bplain_stack d Bs x i) <->
   d1_condition ws (res_stack d res (v1 1) 0%nat) (res_stack d res (v1 (-1)) 0%nat)).
Proof.
  intros d d_eq_1 res ws [Hne Hpos]. pose proof d_eq_1 as E1. subst d.
  rewrite !res_stack_1. unfold v1.
  assert (HF : forall y, rstack1 res y = rstack1 res 1 * relu y + rstack1 res (-1) * relu (- y))
    by (apply hom_pair, rstack1_hom).
  (* sufficiency: the explicit stack *)
  assert (Hsuff : d1_condition ws (rstack1 res 1) (rstack1 res (-1)) ->
                  map width (d1_construction ws (rstack1 res 1) (rstack1 res (-1))) = ws /\
                  forall y, rstack1 res y = pstack1 (d1_construction ws (rstack1 res 1) (rstack1 res (-1))) y).
  { intros Hc. split; [apply d1_construction_widths|]. intros y.
    rewrite (d1_construction_value ws _ _ Hpos Hc). apply HF. }
  (* necessity, biased plain stacks *)
  assert (Hnec : forall Bs, map bwidth Bs = ws -> (forall y, rstack1 res y = bstack1 Bs y) ->
                   d1_condition ws (rstack1 res 1) (rstack1 res (-1))).
  { intros Bs HBs E. subst ws. apply d1_necessity; assumption. }
  split; [|split].
  - intros x. rewrite res_stack_1. apply HF.
  - split.
    + intros (Ps & HPs & E). apply (Hnec (map to_blayer Ps)); [rewrite to_blayer_widths; exact HPs|].
      intros y. rewrite to_blayer_stack. specialize (E (v1 y) 0%nat ltac:(lia)).
      rewrite res_stack_1, plain_stack_1 in E. exact E.
    + intros Hc. destruct (Hsuff Hc) as (Hw & E).
      exists (d1_construction ws (rstack1 res 1) (rstack1 res (-1))). split; [exact Hw|].
      apply coord0. intros x. rewrite res_stack_1, plain_stack_1. apply E.
  - split.
    + intros (Bs & HBs & E). apply (Hnec Bs HBs). intros y.
      specialize (E (v1 y) 0%nat ltac:(lia)). rewrite res_stack_1, bplain_stack_1 in E. exact E.
    + intros Hc. destruct (Hsuff Hc) as (Hw & E).
      exists (map to_blayer (d1_construction ws (rstack1 res 1) (rstack1 res (-1)))).
      split; [rewrite to_blayer_widths; exact Hw|].
      apply coord0. intros x. rewrite res_stack_1, bplain_stack_1, to_blayer_stack. apply E.
Qed.

(** ** (d) An open set of residual stacks that are plain stacks ([m_1 >= 2]) *)

(** [res] is a residual stack of the same widths as [res0] whose weights
    (on the line: the skip [M 0 0] and the entries [W_up l 0], [W_down 0 l]
    of every unit) are all within [delta] of those of [res0]. *)
Definition near (delta : R) (res res0 : list (mat * layer)) : Prop :=
  Forall2 (fun p p0 =>
    width (snd p) = width (snd p0) /\
    Rabs (fst p 0%nat 0%nat - fst p0 0%nat 0%nat) < delta /\
    forall l, (l < width (snd p0))%nat ->
      Rabs (Wup (snd p) l 0%nat - Wup (snd p0) l 0%nat) < delta /\
      Rabs (Wdown (snd p) 0%nat l - Wdown (snd p0) 0%nat l) < delta) res res0.

(** The centre: identity skips; the first block has the units
    [(v, w) = (1, 1), (-1, 3)] (and zero units), so [F(1) = F(-1) = 2] after
    it; every later block is zero. *)
Definition open_first (m : nat) : layer :=
  mk_layer m (fun _ l => match l with O => 1 | S O => 3 | _ => 0 end)
             (fun l _ => match l with O => 1 | S O => -1 | _ => 0 end).

Definition open_later (m : nat) : layer := mk_layer m (fun _ _ => 0) (fun _ _ => 0).

Definition open_center (m1 : nat) (rest : list nat) : list (mat * layer) :=
  ((fun _ _ => 1) : mat, open_first m1) :: map (fun m => ((fun _ _ => 1) : mat, open_later m)) rest.

Definition open_radius (ms : list nat) : R := / (4 * (1 + INR (list_sum ms))).

Lemma small_sum : forall m f B, (forall l, (l < m)%nat -> Rabs (f l) <= B) -> Rabs (sum m f) <= INR m * B.
Proof. intros m f B H. eapply Rle_trans; [apply sum_abs|]. rewrite <- sum_const. apply sum_le. exact H. Qed.

Lemma abs_lower : forall x B, Rabs x <= B -> - B <= x.
Proof. intros x B H. unfold Rabs in H. destruct (Rcase_abs x); lra. Qed.

Lemma small_term : forall w v y delta, Rabs w < delta -> Rabs v < delta ->
  Rabs (w * relu (v * y)) <= delta * delta * Rabs y.
Proof.
  intros w v y delta Hw Hv. rewrite Rabs_mult.
  assert (Hr : Rabs (relu (v * y)) <= Rabs v * Rabs y).
  { pose proof (relu_lipschitz (v * y) 0) as H. rewrite (relu_nonpos 0), Rminus_0_r, Rminus_0_r in H by lra.
    rewrite <- Rabs_mult. exact H. }
  pose proof (Rabs_pos w). pose proof (Rabs_pos v). pose proof (Rabs_pos y).
  apply Rle_trans with (Rabs w * (Rabs v * Rabs y)); [apply Rmult_le_compat_l; [lra|exact Hr]|].
  apply Rle_trans with (delta * (Rabs v * Rabs y)); [apply Rmult_le_compat_r; [nra|lra]|].
  rewrite Rmult_assoc. apply Rmult_le_compat_l; [lra|]. apply Rmult_le_compat_r; lra.
Qed.

(** A later block near [(1, zero layer)] keeps a positive value positive. *)
Lemma later_block_pos : forall (M : mat) L delta y,
  Rabs (M 0%nat 0%nat - 1) < delta ->
  (forall l, (l < width L)%nat -> Rabs (Wup L l 0%nat - 0) < delta /\ Rabs (Wdown L 0%nat l - 0) < delta) ->
  delta <= / 4 -> INR (width L) * delta <= / 4 -> 0 < y ->
  0 < M 0%nat 0%nat * y + lay1 L y.
Proof.
  intros M L delta y HM HL Hd Hw Hy.
  assert (Hb : Rabs (lay1 L y) <= INR (width L) * (delta * delta * Rabs y)).
  { apply small_sum. intros l Hl. destruct (HL l Hl) as [Hu Hd'].
    rewrite Rminus_0_r in Hu, Hd'. apply small_term; assumption. }
  apply abs_lower in Hb. rewrite Rabs_right in Hb by lra.
  apply Rabs_def2 in HM. pose proof (pos_INR (width L)).
  assert (0 <= delta) by lra.
  assert (INR (width L) * (delta * delta * y) <= / 4 * delta * y).
  { replace (INR (width L) * (delta * delta * y)) with ((INR (width L) * delta) * (delta * y)) by ring.
    replace (/ 4 * delta * y) with (/ 4 * (delta * y)) by ring.
    apply Rmult_le_compat_r; [nra|exact Hw]. }
  nra.
Qed.

Lemma later_blocks_pos : forall delta rest res y,
  near delta res (map (fun m => ((fun _ _ => 1) : mat, open_later m)) rest) ->
  delta <= / 4 -> (forall m, In m rest -> INR m * delta <= / 4) -> 0 < y -> 0 < rstack1 res y.
Proof.
  intros delta rest. induction rest as [|m rest IH]; intros res y Hn Hd Hw Hy; simpl in Hn.
  - inversion Hn; subst. simpl. exact Hy.
  - inversion Hn as [|p p0 res' l0 (Hwid & HM & HL) Hn']; subst. destruct p as [M L]. simpl in *.
    apply (IH res'); [exact Hn'|exact Hd|intros m' Hm'; apply Hw; right; exact Hm'|].
    apply (later_block_pos M L delta); [exact HM| |exact Hd| |exact Hy].
    + intros l Hl. rewrite Hwid in Hl. exact (HL l Hl).
    + rewrite Hwid. apply Hw. left. reflexivity.
Qed.

(** The first block near the centre's first block: both values positive. *)
Lemma first_block_pos : forall (M : mat) L m delta,
  (2 <= m)%nat -> width L = m ->
  Rabs (M 0%nat 0%nat - 1) < delta ->
  (forall l, (l < m)%nat ->
     Rabs (Wup L l 0%nat - Wup (open_first m) l 0%nat) < delta /\
     Rabs (Wdown L 0%nat l - Wdown (open_first m) 0%nat l) < delta) ->
  delta <= / 4 -> INR m * delta <= / 4 ->
  0 < M 0%nat 0%nat * 1 + lay1 L 1 /\ 0 < M 0%nat 0%nat * (-1) + lay1 L (-1).
Proof.
  intros M L m delta Hm HwL HM HL Hd Hw.
  assert (Hd0 : 0 <= delta) by (pose proof (Rabs_pos (M 0%nat 0%nat - 1)); lra).
  destruct (HL 0%nat ltac:(lia)) as [Hv0 Hw0]. destruct (HL 1%nat ltac:(lia)) as [Hv1 Hw1].
  simpl in Hv0, Hw0, Hv1, Hw1.
  apply Rabs_def2 in HM. apply Rabs_def2 in Hv0. apply Rabs_def2 in Hw0.
  apply Rabs_def2 in Hv1. apply Rabs_def2 in Hw1.
  set (v0 := Wup L 0%nat 0%nat) in *. set (v1' := Wup L 1%nat 0%nat) in *.
  set (w0 := Wdown L 0%nat 0%nat) in *. set (w1 := Wdown L 0%nat 1%nat) in *.
  (* the zero units contribute at most [m delta^2 |y|] *)
  assert (Htail : forall y, Rabs (sum m (fun l => if Nat.ltb l 2 then 0 else
                    Wdown L 0%nat l * relu (Wup L l 0%nat * y))) <= INR m * (delta * delta * Rabs y)).
  { intros y. apply small_sum. intros l Hl. destruct (Nat.ltb l 2) eqn:E.
    - rewrite Rabs_R0. pose proof (Rabs_pos y). apply Rmult_le_pos; [nra|lra].
    - apply Nat.ltb_ge in E. destruct (HL l Hl) as [Hu Hd'].
      destruct l as [|[|l]]; [lia|lia|]. simpl in Hu, Hd'. rewrite Rminus_0_r in Hu, Hd'.
      apply small_term; assumption. }
  assert (Hsplit : forall y, lay1 L y = w0 * relu (v0 * y) + w1 * relu (v1' * y) +
            sum m (fun l => if Nat.ltb l 2 then 0 else Wdown L 0%nat l * relu (Wup L l 0%nat * y))).
  { intros y. unfold lay1. rewrite HwL. apply sum_peel2. exact Hm. }
  assert (Hsmall : INR m * (delta * delta * 1) <= / 16).
  { replace (INR m * (delta * delta * 1)) with ((INR m * delta) * delta) by ring.
    pose proof (pos_INR m).
    apply Rle_trans with (/ 4 * delta); [apply Rmult_le_compat_r; [exact Hd0|exact Hw]|lra]. }
  pose proof (Htail 1) as T1. pose proof (Htail (-1)) as T2.
  rewrite Rabs_R1 in T1. replace (Rabs (-1)) with 1 in T2 by (rewrite Rabs_left by lra; ring).
  apply abs_lower in T1. apply abs_lower in T2.
  rewrite !Hsplit. split.
  - rewrite !Rmult_1_r. rewrite (relu_nonneg_id v0) by lra. rewrite (relu_nonpos v1') by lra. nra.
  - replace (v0 * -1) with (- v0) by ring. replace (v1' * -1) with (- v1') by ring.
    rewrite (relu_nonpos (- v0)) by lra. rewrite (relu_nonneg_id (- v1')) by lra. nra.
Qed.

Lemma In_le_list_sum : forall m ms, In m ms -> (m <= list_sum ms)%nat.
Proof.
  intros m ms. induction ms as [|k ms IH]; intros H; [destruct H|]. simpl.
  destruct H as [->|H]; [lia|]. specialize (IH H). lia.
Qed.

Lemma open_radius_pos : forall ms, 0 < open_radius ms.
Proof. intros ms. unfold open_radius. pose proof (pos_INR (list_sum ms)). apply Rinv_0_lt_compat. lra. Qed.

Lemma open_radius_small : forall ms m, In m ms -> INR m * open_radius ms <= / 4.
Proof.
  intros ms m H. unfold open_radius. pose proof (le_INR _ _ (In_le_list_sum m ms H)) as Hle.
  pose proof (pos_INR m). set (K := INR (list_sum ms)) in *.
  apply (Rmult_le_reg_r (4 * (1 + K))); [lra|].
  rewrite Rmult_assoc, Rinv_l by lra. lra.
Qed.

Lemma open_radius_le : forall ms, open_radius ms <= / 4.
Proof.
  intros ms. unfold open_radius. pose proof (pos_INR (list_sum ms)).
  apply Rinv_le_contravar; lra.
Qed.

(** [depth-d1] (d): for widths [(m_1, m_2, ..., m_L)] with [m_1 >= 2] (all
    [>= 1]) there are a residual stack [res0] of these widths with identity
    skips and a radius [delta > 0] such that every residual stack of these
    widths whose weights are within [delta] of those of [res0] has
    [F(1) > 0] and [F(-1) > 0] and equals a bias-free plain stack of the same
    widths: the plain stacks of the same widths contain an open set of
    residual stacks. *)
Theorem d1_open_set :
  forall (d : nat) (d_eq_1 : d = 1%nat) (m1 : nat) (rest : list nat)
         (first_width_ge_2 : (2 <= m1)%nat)
         (widths_positive : Forall (fun m => (1 <= m)%nat) rest),
  exists (res0 : list (mat * layer)) (delta : R),
    0 < delta /\ map (fun p => width (snd p)) res0 = m1 :: rest /\
    Forall (fun p => fst p 0%nat 0%nat = 1) res0 /\
    forall res : list (mat * layer), near delta res res0 ->
      0 < res_stack d res (v1 1) 0%nat /\ 0 < res_stack d res (v1 (-1)) 0%nat /\
      exists Ps : list layer, map width Ps = m1 :: rest /\
        forall x i, (i < d)%nat -> res_stack d res x i = plain_stack d Ps x i.
Proof.
  intros d d_eq_1 m1 rest Hm1 Hpos. subst d.
  set (delta := open_radius (m1 :: rest)).
  exists (open_center m1 rest), delta.
  split; [apply open_radius_pos|]. split.
  { unfold open_center. simpl. f_equal. rewrite map_map. simpl. apply map_id. }
  split.
  { unfold open_center. constructor; [reflexivity|]. apply Forall_forall. intros p Hp.
    apply in_map_iff in Hp. destruct Hp as (m & <- & _). reflexivity. }
  intros res Hn.
  assert (Hd : delta <= / 4) by apply open_radius_le.
  assert (Hw : forall m, In m (m1 :: rest) -> INR m * delta <= / 4) by (intros; apply open_radius_small; assumption).
  unfold open_center in Hn. inversion Hn as [|p p0 res' l0 (Hwid & HM & HL) Hn']; subst.
  destruct p as [M L]. simpl in Hwid, HM, HL.
  destruct (first_block_pos M L m1 delta Hm1 Hwid HM HL Hd (Hw m1 (or_introl eq_refl))) as [H1 H2].
  assert (P1 : 0 < rstack1 ((M, L) :: res') 1).
  { simpl. apply (later_blocks_pos delta rest); [exact Hn'|exact Hd| |exact H1].
    intros m Hm. apply Hw. right. exact Hm. }
  assert (P2 : 0 < rstack1 ((M, L) :: res') (-1)).
  { simpl. apply (later_blocks_pos delta rest); [exact Hn'|exact Hd| |exact H2].
    intros m Hm. apply Hw. right. exact Hm. }
  assert (Hc : d1_condition (m1 :: rest) (res_stack 1 ((M, L) :: res') (v1 1) 0%nat)
                            (res_stack 1 ((M, L) :: res') (v1 (-1)) 0%nat)).
  { rewrite !res_stack_1. unfold v1. simpl d1_condition. right.
    destruct (in_dec Nat.eq_dec 1%nat rest) as [Hin|Hnin].
    - left. split; [exact Hm1|]. split; [exact Hin|]. apply Rlt_le, Rmult_lt_0_compat; assumption.
    - right. constructor; [exact Hm1|]. rewrite Forall_forall in Hpos |- *. intros m Hm.
      specialize (Hpos m Hm). destruct (Nat.eq_dec m 1) as [->|]; [contradiction|lia]. }
  split; [rewrite res_stack_1; exact P1|]. split; [rewrite res_stack_1; exact P2|].
  destruct (depth_d1 1 eq_refl ((M, L) :: res') (m1 :: rest)) as (_ & [_ Hsuff] & _).
  { split; [discriminate|]. constructor; [lia|exact Hpos]. }
  exact (Hsuff Hc).
Qed.
