(** * Absorbable relu and gelu blocks form a Lebesgue-null set of weights.

    The sentence of the paper's abstract, for bias-free blocks
    [x -> M x + W_down s(W_up x)] with [s] relu or gelu, [d >= 2] and
    [M <> 0]: the weights [(W_down, W_up)] for which some block of the same
    width [m] equals the residual block form a null set of
    R^{d x m} x R^{m x d} ([NonGenericNull.null_weights]).

    An absorbable block is degenerate (null for [d >= 2]:
    [GenericWeightsNull.generic_nondegenerate_null]) or nondegenerate, and then
    some index set [S] has [W_down[:,S] W_up[S,:] = -M] (relu:
    [Necessity.relu_necessity]; gelu: [Limit.gelu_iff]), which is null for
    [M <> 0] ([NonGenericNull.non_generic_null]).  [Necessity.nondegenerate_block]
    and [GenericWeights.nondegenerate_weights] say the same thing. *)

From Coq Require Import Reals Lra Lia List Classical.
From SkipAbsorption Require Import Linalg Activations Necessity Limit GenericWeights
  NullSets NonGenericNull GenericWeightsNull.
Open Scope R_scope.

Lemma nondegenerate_block_weights : forall d m Wd Wu,
  nondegenerate_weights d m Wd Wu -> nondegenerate_block d m Wd Wu.
Proof. intros d m Wd Wu H. exact H. Qed.

(** Weights for which a property [absorbable] forces the index condition at
    nondegenerate weights: the [absorbable] weights form a null set. *)
Lemma absorbable_null_of_necessity : forall (d m : nat) (M : mat)
  (absorbable : mat -> mat -> Prop),
  nonzero_mat d M -> (2 <= d)%nat ->
  (forall Wd Wu, nondegenerate_block d m Wd Wu -> absorbable Wd Wu ->
     exists S : nat -> bool, index_condition_holds d m S M Wd Wu) ->
  null_weights d m absorbable.
Proof.
  intros d m M absorbable HM Hd Hnec. unfold null_weights.
  apply null_set_subset with (A := fun w =>
    ~ nondegenerate_weights d m (down_of d m w) (up_of d m w) \/
    exists S : nat -> bool, forall i j, (i < d)%nat -> (j < d)%nat ->
      sum m (fun l => if S l then down_of d m w i l * up_of d m w l j else 0) = - M i j).
  - intros w Hw. destruct (classic (nondegenerate_weights d m (down_of d m w) (up_of d m w)))
      as [Hnd|Hnd]; [right|left; exact Hnd].
    exact (Hnec _ _ (nondegenerate_block_weights _ _ _ _ Hnd) Hw).
  - apply null_set_union.
    + exact (generic_nondegenerate_null d m Hd).
    + exact (non_generic_null d m M HM).
Qed.

(** [non-generic] with [relu-gelu-iff], relu: for [d >= 2] and [M <> 0], the
    weights of the bias-free relu blocks [x -> M x + W_down relu(W_up x)] that
    some bias-free relu block of the same width equals form a null set. *)
Theorem relu_absorbable_null :
  forall (d m : nat) (M : mat)
         (M_nonzero : nonzero_mat d M)
         (d_ge_2 : (2 <= d)%nat),
  null_weights d m (fun Wd Wu =>
    exists Wd' Wu' : mat, forall x i, (i < d)%nat ->
      mv d M x i + block d m relu Wd Wu x i = block d m relu Wd' Wu' x i).
Proof.
  intros d m M HM Hd. apply (absorbable_null_of_necessity d m M _ HM Hd).
  intros Wd Wu Hnd (Wd' & Wu' & Habs).
  exact (relu_necessity d m M Wd Wu Wd' Wu' Hnd Habs).
Qed.

(** The same for gelu ([Limit.gelu], defined with the Gaussian integral). *)
Theorem gelu_absorbable_null :
  forall (d m : nat) (M : mat)
         (M_nonzero : nonzero_mat d M)
         (d_ge_2 : (2 <= d)%nat),
  null_weights d m (fun Wd Wu =>
    exists Wd' Wu' : mat, forall x i, (i < d)%nat ->
      mv d M x i + block d m gelu Wd Wu x i = block d m gelu Wd' Wu' x i).
Proof.
  intros d m M HM Hd. apply (absorbable_null_of_necessity d m M _ HM Hd).
  intros Wd Wu Hnd Habs. exact (proj1 (gelu_iff d m M Wd Wu Hnd) Habs).
Qed.
