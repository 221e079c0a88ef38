(** * [generic-weights] in measure form: each failing set is Lebesgue-null.

    The weights [(W_down, W_up)] of a block are the points of R^(d m + m d)
    as in NonGenericNull.v ([null_weights]).  Each failing set of
    GenericWeights.v lies in a finite union of sets of the two kinds that
    NullSets.v proves null:
    - (i)   [rank W_up < r = min(m, d)]: the transposed leading [r x r] block
            of [W_up] has a nonzero kernel vector; at [W_up = E]
            ([E_lj = [l = j]]) that block is the identity
            ([NullSets.singular_set_null]);
    - (ii)  [M + W_S U_S] singular for some [S] (M invertible): for each of the
            finitely many [S] restricted to [0 .. m-1] a matrix of
            polynomial expressions with a nonzero kernel vector; at
            [W_down = 0] it is [M] ([NullSets.singular_set_null]);
    - (iii) ([d >= 2]) a zero row [u_l], two collinear rows [u_l], [u_l'], a
            zero column [w_l]: the coordinate [(u_l)_0], the minor
            [(u_l)_0 (u_l')_1 - (u_l)_1 (u_l')_0], the coordinate [(w_l)_0]
            vanish; at the weights of [GenericWeights.witness_up] and
            [witness_down] they are [1], [l' - l] and [1]
            ([NullSets.poly_zero_set_null]).
    [generic_weights_null] puts the three together (one null set off which
    all three hold).  Each clause is first proved for a block whose weights
    sit at any offset [o] of a larger R^N ([rank_null_at], [pieces_null_at],
    [nondegenerate_null_at]); so for a stack of blocks, read layer after layer
    from one point ([stack_of]; every stack is read back from its point,
    [stack_point_read]), each clause fails for some layer only on a null set
    ([generic_stack_rank_null], [generic_stack_pieces_null],
    [generic_stack_nondegenerate_null]). *)

From Coq Require Import Reals Lra Lia List Classical.
From SkipAbsorption Require Import Linalg Rank DepthStack DepthNarrow NonGeneric GenericWeights NullSets
  NonGenericNull.
Import ListNotations.
Open Scope R_scope.

(** ** Tools *)

(** A trivial kernel depends only on the [d x d] entries. *)
Lemma trivial_kernel_entries : forall d (A B : mat),
  (forall i j, (i < d)%nat -> (j < d)%nat -> A i j = B i j) ->
  trivial_kernel d A -> trivial_kernel d B.
Proof.
  intros d A B HAB HA y Hy. apply HA. intros i Hi. rewrite <- (Hy i Hi).
  unfold mv. apply sum_ext. intros j Hj. rewrite (HAB i j Hi Hj). reflexivity.
Qed.

(** [weights_of] of a pair of matrices vanishes from [d m + m d] on. *)
Lemma weights_of_out : forall d m Wd Wu i, le (d * m + m * d) i -> weights_of d m Wd Wu i = 0.
Proof. intros d m Wd Wu. exact (proj2 (proj2 (weights_of_read d m Wd Wu))). Qed.

(** Coordinates of [W_up] and [W_down], as polynomial expressions. *)
Definition up_var (d m l j : nat) : poly_expr := PVar (d * m + l * d + j).
Definition down_var (m i l : nat) : poly_expr := PVar (i * m + l).

Lemma up_var_eval : forall d m l j w, (l < m)%nat -> (j < d)%nat ->
  poly_eval (up_var d m l j) w = up_of d m w l j.
Proof. intros. simpl. rewrite up_of_in by assumption. reflexivity. Qed.

Lemma down_var_eval : forall d m i l w, (i < d)%nat -> (l < m)%nat ->
  poly_eval (down_var m i l) w = down_of d m w i l.
Proof. intros. simpl. rewrite down_of_in by assumption. reflexivity. Qed.

(** The coordinates [o, o + 1, ...] of [w], as a point of their own. *)
Definition shifted (o : nat) (w : nat -> R) : nat -> R := fun k => w (o + k)%nat.

(** The point that has [y] in the coordinates [o, o + 1, ...] and 0 before. *)
Definition placed (o : nat) (y : nat -> R) : nat -> R :=
  fun k => if (o <=? k)%nat then y (k - o)%nat else 0.

Lemma eval_shift_placed : forall o e y, poly_eval (poly_shift o e) (placed o y) = poly_eval e y.
Proof.
  intros o e y. rewrite poly_eval_shift. apply poly_eval_ext. intros k. unfold placed.
  replace (o <=? o + k)%nat with true by (symmetry; apply Nat.leb_le; lia).
  f_equal. lia.
Qed.

(** A block's point placed from [o] on vanishes from [N] on when it fits below [N]. *)
Lemma placed_out : forall o d m Wd Wu N, (o + (d * m + m * d) <= N)%nat ->
  forall k, le N k -> placed o (weights_of d m Wd Wu) k = 0.
Proof.
  intros o d m Wd Wu N HN k Hk. unfold placed.
  destruct (o <=? k)%nat; [apply weights_of_out; lia|reflexivity].
Qed.

(** ** (i) rank W_up = min(m, d) off a null set *)

(** If the transposed leading [r x r] block of [W_up] has a trivial kernel
    ([r = min(m, d)]), then [W_up] has row rank [r]. *)
Lemma leading_block_row_rank : forall d m (Wu : mat),
  trivial_kernel (Nat.min m d) (fun i j => Wu j i) -> row_rank d m Wu (Nat.min m d).
Proof.
  intros d m Wu Hker.
  pose proof (Nat.le_min_l m d) as Hrm. pose proof (Nat.le_min_r m d) as Hrd.
  set (r := Nat.min m d) in *.
  assert (Hind : indep d r (fun k => Wu k)).
  { intros c Hc k Hk. apply (Hker c); [|exact Hk].
    intros i Hi. rewrite <- (Hc i ltac:(lia)). unfold mv. apply sum_ext.
    intros l _. ring. }
  exists (fun k => k). split; [intros k Hk; lia|]. split; [exact Hind|].
  intros i Hi. destruct (Nat.lt_ge_cases i r) as [Hir|Hir].
  - exists (fun k => kron i k). intros j Hj. rewrite sum_kron_l by exact Hir. reflexivity.
  - assert (Er : r = d).
    { unfold r in *. destruct (Nat.le_ge_cases m d) as [Hmd|Hmd].
      - rewrite Nat.min_l in Hir by exact Hmd. lia.
      - rewrite Nat.min_r by exact Hmd. reflexivity. }
    destruct (basis_completion d r (fun k => Wu k) Hind) as (_ & L & Hsp).
    destruct (Hsp (Wu i)) as (c & Hcs). exists c. intros j Hj. rewrite <- (Hcs j Hj).
    rewrite Er. apply sum_ext. intros k Hk. unfold append.
    replace (k <? d)%nat with true by (symmetry; apply Nat.ltb_lt; exact Hk). reflexivity.
Qed.

(** (i) for the block whose weights are read from the coordinates from [o]
    on, inside R^N with [N] large enough. *)
Lemma rank_null_at : forall (N o d m : nat), (o + (d * m + m * d) <= N)%nat ->
  null_set N (fun w => ~ row_rank d m (up_of d m (shifted o w)) (Nat.min m d)).
Proof.
  intros N o d m HN. pose proof (Nat.le_min_l m d) as Hrm. pose proof (Nat.le_min_r m d) as Hrd.
  apply null_set_subset with (A := fun w =>
    ~ forall v : nat -> R,
        (forall i, (i < Nat.min m d)%nat ->
           mv (Nat.min m d) (fun i j => poly_eval (poly_shift o (up_var d m j i)) w) v i = 0) ->
        forall j, (j < Nat.min m d)%nat -> v j = 0).
  - intros w Hw Hker. apply Hw. apply leading_block_row_rank.
    apply trivial_kernel_entries
      with (A := fun i j => poly_eval (poly_shift o (up_var d m j i)) w); [|exact Hker].
    intros i j Hi Hj. rewrite poly_eval_shift. apply up_var_eval; lia.
  - apply singular_set_null.
    exists (placed o (weights_of d m (fun _ _ => 0) (fun l j => kron l j))).
    split; [exact (placed_out o d m _ _ N HN)|].
    apply trivial_kernel_entries with (A := ident); [|apply ident_trivial_kernel].
    intros i j Hi Hj. rewrite eval_shift_placed, up_var_eval by lia.
    rewrite (proj1 (proj2 (weights_of_read d m _ _))) by lia.
    unfold ident. apply kron_sym.
Qed.

(** [generic-weights] (i), measure form: for all [d] and [m], the weights
    whose [W_up] has row rank below [min(m, d)] form a null set. *)
Theorem generic_rank_null : forall d m : nat,
  null_weights d m (fun Wd Wu => ~ row_rank d m Wu (Nat.min m d)).
Proof. intros d m. exact (rank_null_at (d * m + m * d) 0 d m (le_n _)). Qed.

(** ** (ii) every M + W_S U_S invertible off a null set *)

(** The entries of [M + W_T U_T] ([GenericWeights.skip_piece]) as polynomial
    expressions in the weights. *)
Definition piece_expr (d m : nat) (M : mat) (T : nat -> bool) (i j : nat) : poly_expr :=
  PAdd (PConst (M i j))
       (psum m (fun l => if T l then PMul (down_var m i l) (up_var d m l j) else PConst 0)).

Lemma piece_expr_eval : forall d m M T i j w, (i < d)%nat -> (j < d)%nat ->
  poly_eval (piece_expr d m M T i j) w = skip_piece m M T (down_of d m w) (up_of d m w) i j.
Proof.
  intros d m M T i j w Hi Hj. unfold piece_expr, skip_piece. simpl. rewrite poly_eval_psum.
  f_equal. apply sum_ext. intros l Hl. destruct (T l); [|reflexivity].
  simpl. rewrite down_of_in, up_of_in by assumption. reflexivity.
Qed.

(** (ii) for the block whose weights are read from the coordinates from [o]
    on, inside R^N for any [N]. *)
Lemma pieces_null_at : forall (N o d m : nat) (M : mat), trivial_kernel d M ->
  null_set N (fun w => exists S : nat -> bool,
    ~ trivial_kernel d (skip_piece m M S (down_of d m (shifted o w)) (up_of d m (shifted o w)))).
Proof.
  intros N o d m M HM.
  apply null_set_subset with (A := fun w => exists T, In T (subsets m) /\
    ~ forall v : nat -> R,
        (forall i, (i < d)%nat ->
           mv d (fun i j => poly_eval (poly_shift o (piece_expr d m M T i j)) w) v i = 0) ->
        forall j, (j < d)%nat -> v j = 0).
  - intros w (S & HS). destruct (subsets_complete m S) as (T & HT & HST).
    exists T. split; [exact HT|]. intros Hker. apply HS.
    apply trivial_kernel_entries
      with (A := fun i j => poly_eval (poly_shift o (piece_expr d m M T i j)) w); [|exact Hker].
    intros i j Hi Hj. rewrite poly_eval_shift, piece_expr_eval by assumption.
    unfold skip_piece. f_equal. apply sum_ext. intros l Hl. rewrite (HST l Hl). reflexivity.
  - apply null_set_list_union. intros T _. apply singular_set_null.
    exists (fun _ => 0). split; [reflexivity|].
    apply trivial_kernel_entries with (A := M); [|exact HM].
    intros i j Hi Hj. rewrite poly_eval_shift. unfold piece_expr. simpl. rewrite poly_eval_psum.
    rewrite sum_zero; [ring|]. intros l _. destruct (T l); simpl; ring.
Qed.

(** [generic-weights] (ii), measure form: for an invertible [M] (trivial
    kernel), the weights for which some [M + W_down[:,S] W_up[S,:]] (any [S],
    the empty set included) is singular form a null set. *)
Theorem generic_pieces_null : forall (d m : nat) (M : mat)
  (M_invertible_ii : trivial_kernel d M),
  null_weights d m (fun Wd Wu => exists S : nat -> bool, ~ trivial_kernel d (skip_piece m M S Wd Wu)).
Proof.
  intros d m M HM. exact (pieces_null_at (d * m + m * d) 0 d m M HM).
Qed.

(** ** (iii) nondegenerate weights off a null set (d >= 2) *)

(** The minor [(u_l)_0 (u_l')_1 - (u_l)_1 (u_l')_0] of two rows of [W_up]. *)
Definition rows_minor_expr (d m l l' : nat) : poly_expr :=
  PSub (PMul (up_var d m l 0) (up_var d m l' 1)) (PMul (up_var d m l 1) (up_var d m l' 0)).

Lemma rows_minor_eval : forall d m l l' w, (2 <= d)%nat -> (l < m)%nat -> (l' < m)%nat ->
  poly_eval (rows_minor_expr d m l l') w =
  up_of d m w l 0%nat * up_of d m w l' 1%nat - up_of d m w l 1%nat * up_of d m w l' 0%nat.
Proof.
  intros d m l l' w Hd Hl Hl'. unfold rows_minor_expr. cbn [poly_eval].
  rewrite !up_var_eval by lia. reflexivity.
Qed.

(** Weights that are not nondegenerate have a zero coordinate [(u_l)_0], a
    zero minor of two distinct rows or a zero coordinate [(w_l)_0]. *)
Lemma degenerate_cases : forall d m (Wd Wu : mat), (2 <= d)%nat ->
  ~ nondegenerate_weights d m Wd Wu ->
  (exists l, In l (seq 0 m) /\ Wu l 0%nat = 0) \/
  (exists p : nat * nat, In p (list_prod (seq 0 m) (seq 0 m)) /\ fst p <> snd p /\
     Wu (fst p) 0%nat * Wu (snd p) 1%nat - Wu (fst p) 1%nat * Wu (snd p) 0%nat = 0) \/
  (exists l, In l (seq 0 m) /\ Wd 0%nat l = 0).
Proof.
  intros d m Wd Wu Hd Hnd.
  destruct (classic (exists l, In l (seq 0 m) /\ Wu l 0%nat = 0)) as [H1|H1]; [left; exact H1|].
  destruct (classic (exists l, In l (seq 0 m) /\ Wd 0%nat l = 0)) as [H3|H3];
    [right; right; exact H3|].
  right; left. apply NNPP. intros H2. apply Hnd. split; [|split].
  - intros l Hl. exists 0%nat. split; [lia|]. intros E. apply H1. exists l.
    split; [apply in_seq; lia|exact E].
  - intros l l' Hl Hl' Hne (c & Hc). apply H2. exists (l, l'). simpl.
    split; [apply in_prod; apply in_seq; lia|]. split; [exact Hne|].
    rewrite (Hc 0%nat ltac:(lia)), (Hc 1%nat ltac:(lia)). ring.
  - intros l Hl. exists 0%nat. split; [lia|]. intros E. apply H3. exists l.
    split; [apply in_seq; lia|exact E].
Qed.

(** (iii) for the block whose weights are read from the coordinates from
    [o] on, inside R^N with [N] large enough. *)
Lemma nondegenerate_null_at : forall (N o d m : nat), (2 <= d)%nat ->
  (o + (d * m + m * d) <= N)%nat ->
  null_set N (fun w => ~ nondegenerate_weights d m (down_of d m (shifted o w)) (up_of d m (shifted o w))).
Proof.
  intros N o d m Hd HN.
  pose proof (proj1 (weights_of_read d m witness_down witness_up)) as Rd.
  pose proof (proj1 (proj2 (weights_of_read d m witness_down witness_up))) as Ru.
  set (y := placed o (weights_of d m witness_down witness_up)).
  assert (Hy : forall k, le N k -> y k = 0) by exact (placed_out o d m _ _ N HN).
  apply null_set_subset with (A := fun w =>
    (exists l, In l (seq 0 m) /\ poly_eval (poly_shift o (up_var d m l 0)) w = 0) \/
    (exists p : nat * nat, In p (list_prod (seq 0 m) (seq 0 m)) /\
       (if Nat.eqb (fst p) (snd p) then False
        else poly_eval (poly_shift o (rows_minor_expr d m (fst p) (snd p))) w = 0)) \/
    (exists l, In l (seq 0 m) /\ poly_eval (poly_shift o (down_var m 0 l)) w = 0)).
  - intros w Hw.
    destruct (degenerate_cases d m _ _ Hd Hw) as [(l & Hl & E)|[((l, l') & Hp & Hne & E)|(l & Hl & E)]].
    + left. exists l. split; [exact Hl|]. apply in_seq in Hl.
      rewrite poly_eval_shift, up_var_eval by lia. exact E.
    + right; left. exists (l, l'). split; [exact Hp|]. cbn [fst snd] in Hne, E |- *.
      apply in_prod_iff in Hp. destruct Hp as (Hl & Hl'). apply in_seq in Hl. apply in_seq in Hl'.
      destruct (Nat.eqb_spec l l') as [Heq|_]; [exact (Hne Heq)|].
      rewrite poly_eval_shift, rows_minor_eval by lia. exact E.
    + right; right. exists l. split; [exact Hl|]. apply in_seq in Hl.
      rewrite poly_eval_shift, (down_var_eval d) by lia. exact E.
  - apply null_set_union; [|apply null_set_union].
    + apply null_set_list_union. intros l Hl. apply in_seq in Hl.
      apply poly_zero_set_null. exists y. split; [exact Hy|]. unfold y.
      rewrite eval_shift_placed, up_var_eval, Ru by lia. unfold witness_up. lra.
    + apply null_set_list_union. intros (l, l') Hp. cbn [fst snd].
      apply in_prod_iff in Hp. destruct Hp as (Hl & Hl'). apply in_seq in Hl. apply in_seq in Hl'.
      destruct (Nat.eqb_spec l l') as [_|Hne].
      * apply null_set_subset with (A := fun _ => False); [tauto|apply null_set_empty].
      * apply poly_zero_set_null. exists y. split; [exact Hy|]. unfold y.
        rewrite eval_shift_placed, rows_minor_eval, !Ru by lia.
        unfold witness_up. intros E. apply Hne. apply INR_eq. lra.
    + apply null_set_list_union. intros l Hl. apply in_seq in Hl.
      apply poly_zero_set_null. exists y. split; [exact Hy|]. unfold y.
      rewrite eval_shift_placed, (down_var_eval d), Rd by lia. unfold witness_down, kron.
      destruct (Nat.eq_dec 0 0); [lra|lia].
Qed.

(** [generic-weights] (iii), measure form: for [d >= 2] the weights that are
    not nondegenerate (a zero row of [W_up], two collinear rows, or a zero
    column of [W_down]) form a null set. *)
Theorem generic_nondegenerate_null : forall (d m : nat)
  (d_ge_2_iii : (2 <= d)%nat),
  null_weights d m (fun Wd Wu => ~ nondegenerate_weights d m Wd Wu).
Proof. intros d m Hd. exact (nondegenerate_null_at (d * m + m * d) 0 d m Hd (le_n _)). Qed.

(** ** The three clauses together *)

(** [generic-weights], measure form: for every [d], [m], every invertible [M]
    (trivial kernel) and [d >= 2], off one null set of weights
    [(W_down, W_up)] all three properties hold: [W_up] has row rank
    [min(m, d)], every [M + W_down[:,S] W_up[S,:]] is invertible, and the
    weights are nondegenerate. *)
Theorem generic_weights_null :
  forall (d m : nat) (M : mat)
         (M_invertible_ii : trivial_kernel d M)
         (d_ge_2_iii : (2 <= d)%nat),
    null_weights d m (fun Wd Wu =>
      ~ (row_rank d m Wu (Nat.min m d) /\
         (forall S : nat -> bool, trivial_kernel d (skip_piece m M S Wd Wu)) /\
         nondegenerate_weights d m Wd Wu)).
Proof.
  intros d m M HM Hd. unfold null_weights.
  apply null_set_subset with (A := fun w =>
    (~ row_rank d m (up_of d m w) (Nat.min m d)) \/
    (exists S : nat -> bool, ~ trivial_kernel d (skip_piece m M S (down_of d m w) (up_of d m w))) \/
    (~ nondegenerate_weights d m (down_of d m w) (up_of d m w))).
  - intros w Hw.
    destruct (classic (row_rank d m (up_of d m w) (Nat.min m d))) as [H1|H1]; [|left; exact H1].
    destruct (classic (nondegenerate_weights d m (down_of d m w) (up_of d m w))) as [H3|H3];
      [|right; right; exact H3].
    right; left. apply NNPP. intros H2. apply Hw. split; [exact H1|]. split; [|exact H3].
    intros S. apply NNPP. intros HS. apply H2. exists S. exact HS.
  - apply null_set_union; [exact (generic_rank_null d m)|].
    apply null_set_union; [exact (generic_pieces_null d m M HM)|].
    exact (generic_nondegenerate_null d m Hd).
Qed.

(** *** Stacks of blocks *)

(** The layers of widths [ms] read from the coordinates of [w] from [o] on:
    layer after layer, each as in [null_weights] ([W_down] row by row, then
    [W_up] row by row), so the layer of width [m] takes [d m + m d]
    coordinates. *)
Fixpoint stack_of (d : nat) (ms : list nat) (o : nat) (w : nat -> R) : list layer :=
  match ms with
  | [] => []
  | m :: ms' => mk_layer m (down_of d m (shifted o w)) (up_of d m (shifted o w))
                :: stack_of d ms' (o + (d * m + m * d)) w
  end.

(** The number of weights of a stack of widths [ms]. *)
Fixpoint stack_dim (d : nat) (ms : list nat) : nat :=
  match ms with
  | [] => O
  | m :: ms' => (d * m + m * d + stack_dim d ms')%nat
  end.

(** A set of stacks of widths [ms] is null: the points of
    R^(stack_dim d ms) that read as such a stack form a null set. *)
Definition null_stack (d : nat) (ms : list nat) (P : list layer -> Prop) : Prop :=
  null_set (stack_dim d ms) (fun w => P (stack_of d ms 0 w)).

(** Not every set of stacks is null. *)
Lemma all_stacks_not_null : forall d ms, ~ null_stack d ms (fun _ => True).
Proof. intros d ms. exact (whole_space_not_null (stack_dim d ms)). Qed.

Lemma stack_of_widths : forall d ms o w, map width (stack_of d ms o w) = ms.
Proof.
  intros d ms. induction ms as [|m ms IH]; intros o w; [reflexivity|].
  simpl. rewrite IH. reflexivity.
Qed.

(** The point of a list of layers: layer after layer, each as [weights_of]. *)
Fixpoint stack_point (d : nat) (layers : list layer) : nat -> R :=
  match layers with
  | [] => fun _ => 0
  | L :: rest => fun k =>
      if (k <? d * width L + width L * d)%nat then weights_of d (width L) (Wdown L) (Wup L) k
      else stack_point d rest (k - (d * width L + width L * d))%nat
  end.

(** Two layers agree as blocks of [R^d]: same width, same entries in range. *)
Definition same_layer (d : nat) (L L' : layer) : Prop :=
  width L' = width L /\
  (forall i l, (i < d)%nat -> (l < width L)%nat -> Wdown L' i l = Wdown L i l) /\
  (forall l j, (l < width L)%nat -> (j < d)%nat -> Wup L' l j = Wup L l j).

Lemma stack_of_agrees : forall d layers o w,
  (forall k, (k < stack_dim d (map width layers))%nat -> w (o + k)%nat = stack_point d layers k) ->
  Forall2 (same_layer d) layers (stack_of d (map width layers) o w).
Proof.
  intros d layers. induction layers as [|L rest IH]; intros o w Hw; [constructor|].
  simpl in Hw |- *. set (m := width L) in *.
  assert (Hfirst : forall k, (k < d * m + m * d)%nat ->
            shifted o w k = weights_of d m (Wdown L) (Wup L) k).
  { intros k Hk. unfold shifted. rewrite Hw by lia.
    apply Nat.ltb_lt in Hk. rewrite Hk. reflexivity. }
  destruct (weights_of_read d m (Wdown L) (Wup L)) as (Rd & Ru & _).
  constructor.
  - split; [reflexivity|]. split; simpl.
    + intros i l Hi Hl. rewrite down_of_in by assumption. rewrite Hfirst by nia.
      rewrite <- (down_of_in d m) by assumption. apply Rd; assumption.
    + intros l j Hl Hj. rewrite up_of_in by assumption. rewrite Hfirst by nia.
      rewrite <- (up_of_in d m) by assumption. apply Ru; assumption.
  - apply IH. intros k Hk.
    replace (o + (d * m + m * d) + k)%nat with (o + (d * m + m * d + k))%nat by lia.
    rewrite Hw by lia.
    assert (E : (d * m + m * d + k <? d * m + m * d)%nat = false) by (apply Nat.ltb_ge; lia).
    rewrite E. f_equal. lia.
Qed.

(** Every list of layers is read back from its point (entries in range), and
    the point has no coordinates from [stack_dim] on: the encoding is onto the
    stacks of the given widths. *)
Lemma stack_point_read : forall d layers,
  Forall2 (same_layer d) layers (stack_of d (map width layers) 0 (stack_point d layers)) /\
  (forall k, (stack_dim d (map width layers) <= k)%nat -> stack_point d layers k = 0).
Proof.
  intros d layers. split.
  - apply stack_of_agrees. intros k _. reflexivity.
  - induction layers as [|L rest IH]; intros k Hk; [reflexivity|].
    simpl in Hk |- *.
    assert (E : (k <? d * width L + width L * d)%nat = false) by (apply Nat.ltb_ge; lia).
    rewrite E. apply IH. lia.
Qed.

(** A property of single blocks that fails only on a null set, wherever in
    R^N the block's weights sit, fails for some layer of a stack only on a
    null set. *)
Lemma stack_null_of_layers : forall (d : nat) (P : layer -> Prop),
  (forall N o m, (o + (d * m + m * d) <= N)%nat ->
     null_set N (fun w => ~ P (mk_layer m (down_of d m (shifted o w)) (up_of d m (shifted o w))))) ->
  forall ms o N, (o + stack_dim d ms <= N)%nat ->
  null_set N (fun w => ~ Forall P (stack_of d ms o w)).
Proof.
  intros d P HP ms. induction ms as [|m ms IH]; intros o N HN.
  - apply null_set_subset with (A := fun _ => False); [|apply null_set_empty].
    intros w H. apply H. constructor.
  - simpl in HN. apply null_set_subset with (A := fun w =>
      ~ P (mk_layer m (down_of d m (shifted o w)) (up_of d m (shifted o w))) \/
      ~ Forall P (stack_of d ms (o + (d * m + m * d)) w)).
    + intros w H. simpl in H.
      destruct (classic (P (mk_layer m (down_of d m (shifted o w)) (up_of d m (shifted o w)))))
        as [H1|H1]; [right|left; exact H1].
      intros Hr. apply H. constructor; assumption.
    + apply null_set_union; [apply HP; lia|apply IH; lia].
Qed.

(** [generic-weights] (i) for stacks, measure form: the stacks of widths [ms]
    in which some [U_l] has row rank below [min(m_l, d)] form a null set
    (the rank condition of depth-width). *)
Theorem generic_stack_rank_null : forall (d : nat) (ms : list nat),
  null_stack d ms (fun layers =>
    ~ Forall (fun L => row_rank d (width L) (Wup L) (Nat.min (width L) d)) layers).
Proof.
  intros d ms. apply (stack_null_of_layers d _ (fun N o m HN => rank_null_at N o d m HN)).
  apply le_n.
Qed.

(** [generic-weights] (ii) for stacks, measure form: for every [d] and widths
    [ms], the stacks of residual blocks of which some piece [I + W_l D U_l]
    ([DepthNarrow.piece], [D] any 0/1 diagonal) is singular form a null set:
    the hypothesis [pieces_invertible] of depth-narrow fails only on a null
    set. *)
Theorem generic_stack_pieces_null : forall (d : nat) (ms : list nat),
  null_stack d ms (fun layers => ~ Forall (layer_pieces_invertible d) layers).
Proof.
  intros d ms. apply stack_null_of_layers; [|apply le_n].
  intros N o m _. apply null_set_subset with (A := fun w => exists S : nat -> bool,
    ~ trivial_kernel d (skip_piece m ident S (down_of d m (shifted o w)) (up_of d m (shifted o w)))).
  - intros w H. apply NNPP. intros H1. apply H. intros S. apply NNPP. intros HS.
    apply H1. exists S. exact HS.
  - exact (pieces_null_at N o d m ident (ident_trivial_kernel d)).
Qed.

(** [generic-weights] (iii) for stacks, measure form: for [d >= 2] the stacks
    with a degenerate block form a null set. *)
Theorem generic_stack_nondegenerate_null : forall (d : nat) (ms : list nat)
  (d_ge_2_iii : (2 <= d)%nat),
  null_stack d ms (fun layers =>
    ~ Forall (fun L => nondegenerate_weights d (width L) (Wdown L) (Wup L)) layers).
Proof.
  intros d ms Hd.
  apply (stack_null_of_layers d _ (fun N o m HN => nondegenerate_null_at N o d m Hd HN)).
  apply le_n.
Qed.

(** ** Instance and boundary cases of the measure form *)

(** [generic-weights], instance: [d = 2], [m = 1], [M = I].  Every box of
    weights [(W_down, W_up) = ((w0, w1), (u0, u1))] contains weights with a
    nonzero column [W_down], a nonzero row [W_up] and [I + W_down W_up]
    invertible ([1 + w0 u0 + w1 u1 <> 0]): through [generic_weights_null]
    and [NonGenericNull.null_set_misses_box]. *)
Lemma generic_weights_null_instance : forall a b : nat -> R,
  (forall i, (i < 4)%nat -> a i < b i) ->
  exists w0 w1 u0 u1 : R,
    a 0%nat <= w0 <= b 0%nat /\ a 1%nat <= w1 <= b 1%nat /\
    a 2%nat <= u0 <= b 2%nat /\ a 3%nat <= u1 <= b 3%nat /\
    (w0 <> 0 \/ w1 <> 0) /\ (u0 <> 0 \/ u1 <> 0) /\ 1 + (w0 * u0 + w1 * u1) <> 0.
Proof.
  intros a b ab.
  pose proof (generic_weights_null 2 1 ident (ident_trivial_kernel 2) (le_n 2)) as HN.
  unfold null_weights in HN.
  destruct (null_set_misses_box 4 a b _ ab HN) as (w & Hw & Hn).
  apply NNPP in Hn. destruct Hn as (_ & Hp & (Hr & _ & Hc)).
  exists (w 0%nat), (w 1%nat), (w 2%nat), (w 3%nat).
  split; [exact (Hw 0%nat ltac:(lia))|]. split; [exact (Hw 1%nat ltac:(lia))|].
  split; [exact (Hw 2%nat ltac:(lia))|]. split; [exact (Hw 3%nat ltac:(lia))|].
  split; [|split].
  - destruct (Hc 0%nat ltac:(lia)) as (i & Hi & Hne).
    destruct i as [|[|i]]; [left|right|lia]; unfold down_of in Hne; simpl in Hne; exact Hne.
  - destruct (Hr 0%nat ltac:(lia)) as (j & Hj & Hne).
    destruct j as [|[|j]]; [left|right|lia]; unfold up_of in Hne; simpl in Hne; exact Hne.
  - intros E.
    assert (K : forall i, (i < 2)%nat ->
              mv 2 (skip_piece 1 ident (fun _ => true) (down_of 2 1 w) (up_of 2 1 w))
                 (fun j => match j with O => w 0%nat | _ => w 1%nat end) i = 0).
    { intros i Hi. unfold mv, skip_piece, ident, kron, down_of, up_of.
      destruct i as [|[|i]]; [| |lia]; simpl.
      - transitivity (w 0%nat * (1 + (w 0%nat * w 2%nat + w 1%nat * w 3%nat))); [ring|].
        rewrite E. ring.
      - transitivity (w 1%nat * (1 + (w 0%nat * w 2%nat + w 1%nat * w 3%nat))); [ring|].
        rewrite E. ring. }
    pose proof (Hp (fun _ => true) _ K 0%nat ltac:(lia)) as Z0.
    pose proof (Hp (fun _ => true) _ K 1%nat ltac:(lia)) as Z1.
    simpl in Z0, Z1. rewrite Z0, Z1 in E. lra.
Qed.

(** Without [M_invertible_ii] the measure form is false: for [d = 2], [m = 1]
    and [M = 0] the piece of [S = {}] is [M] itself, singular at every
    weight, so the failing set is all of R^(d m + m d), which is not null. *)
Lemma generic_weights_null_needs_M_invertible_ii :
  ~ (forall (d m : nat) (M : mat)
            (d_ge_2_iii : (2 <= d)%nat),
       null_weights d m (fun Wd Wu =>
         ~ (row_rank d m Wu (Nat.min m d) /\
            (forall S : nat -> bool, trivial_kernel d (skip_piece m M S Wd Wu)) /\
            nondegenerate_weights d m Wd Wu))).
Proof.
  intros H. apply (all_weights_not_null 2 1). unfold null_weights.
  eapply null_set_subset; [|exact (H 2%nat 1%nat (fun _ _ => 0) (le_n 2))].
  intros w _ (_ & Hp & _).
  assert (Hz : forall i, (i < 2)%nat ->
            mv 2 (skip_piece 1 (fun _ _ => 0) (fun _ => false) (down_of 2 1 w) (up_of 2 1 w))
               (fun _ => 1) i = 0).
  { intros i _. unfold mv, skip_piece. simpl. ring. }
  pose proof (Hp (fun _ => false) (fun _ => 1) Hz 0%nat ltac:(lia)). lra.
Qed.

(** Without [d_ge_2_iii] the measure form is false: for [d = 1], [m = 2] and
    [M = I] two rows of [W_up] in R^1 are always collinear (or one is zero),
    so no weight is nondegenerate and the failing set is not null. *)
Lemma generic_weights_null_needs_d_ge_2_iii :
  ~ (forall (d m : nat) (M : mat)
            (M_invertible_ii : trivial_kernel d M),
       null_weights d m (fun Wd Wu =>
         ~ (row_rank d m Wu (Nat.min m d) /\
            (forall S : nat -> bool, trivial_kernel d (skip_piece m M S Wd Wu)) /\
            nondegenerate_weights d m Wd Wu))).
Proof.
  intros H. apply (all_weights_not_null 1 2). unfold null_weights.
  eapply null_set_subset; [|exact (H 1%nat 2%nat ident (ident_trivial_kernel 1))].
  intros w _ (_ & _ & Hr & Hc & _).
  set (Wu := up_of 1 2 w) in *.
  destruct (Hr 0%nat ltac:(lia)) as (j & Hj & Hu). assert (j = 0%nat) by lia. subst j.
  apply (Hc 0%nat 1%nat ltac:(lia) ltac:(lia) ltac:(lia)).
  exists (Wu 1%nat 0%nat / Wu 0%nat 0%nat). intros j Hj'. assert (j = 0%nat) by lia. subst j.
  field. exact Hu.
Qed.
