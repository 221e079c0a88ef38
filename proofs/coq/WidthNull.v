(** * The "almost every weight" sentences of [absorption-width] and
    [depth-width], as theorems about Lebesgue-null sets of weights.

    - [absorption-width]: for invertible [M] and [d >= 2], off a null set of
      weights [(W_down, W_up)] the minimal width of a relu block equal to
      [x -> M x + W_down relu(W_up x)] is [m + 2d - min(m, d)]
      ([m + d] when [m >= d]): [GenericWeightsNull.generic_weights_null] gives
      the hypotheses of [AbsorptionWidth.absorption_width_invertible] (rank
      [min(m, d)], every [M + W_S U_S] invertible, nondegenerate weights).
    - [depth-width]: for every [s] with [s(z) - s(-z) = z], off a null set of
      stacks of widths [ms] the residual stack equals a plain stack of widths
      [max(m_l + d, 2d)]: [GenericWeightsNull.generic_stack_rank_null] gives the
      hypothesis of [DepthStack.depth_width_rank_maximal]. *)

From Coq Require Import Reals Lra Lia List.
From SkipAbsorption Require Import Linalg SignFlip Depth DepthStack Rank ReluClasses DepthNarrow
  GenericWeights AbsorptionWidth NullSets NonGenericNull GenericWeightsNull.
Import ListNotations.
Open Scope R_scope.

(** [absorption-width] for almost every weight: for an invertible [M]
    (trivial kernel) and [d >= 2], the weights for which the minimal width of
    a relu block equal to [x -> M x + W_down relu(W_up x)] is not
    [m + 2d - min(m, d)] form a null set. *)
Theorem absorption_width_null : forall (d m : nat) (M : mat)
  (M_invertible : trivial_kernel d M)
  (d_ge_2 : (2 <= d)%nat),
  null_weights d m (fun Wd Wu =>
    ~ forall m' : nat,
        realised d m m' M Wd Wu (fun _ => 0) (fun _ => 0) <-> (m + 2 * d - Nat.min m d <= m')%nat).
Proof.
  intros d m M HM Hd. unfold null_weights.
  eapply null_set_subset; [|exact (generic_weights_null d m M HM Hd)].
  intros w Hw (Hr & Hp & Hnd). apply Hw. intros m'.
  apply (absorption_width_invertible d m m' (Nat.min m d) M); [exact Hnd| |exact Hr].
  intros S x Hx. apply (Hp S x). intros o Ho. pose proof (Hx o Ho) as H1.
  rewrite <- mv_mat_plus in H1. exact H1.
Qed.

(** [depth-width] for almost every weight: for every [s] with
    [s(z) - s(-z) = z], the residual stacks of widths [ms] that equal no
    plain stack of widths [max(m_l + d, 2d)] form a null set. *)
Theorem depth_width_null : forall (d : nat) (sigma : R -> R) (ms : list nat)
  (sigma_odd_part : forall z, sigma z - sigma (-z) = z),
  null_stack d ms (fun layers =>
    ~ exists plains : list layer,
        map width plains = map (fun L => Nat.max (width L + d) (2 * d)) layers /\
        forall x i, (i < d)%nat ->
          res_comp_id (map (layer_block d sigma) layers) x i =
          plain_comp (map (layer_block d sigma) plains) x i).
Proof.
  intros d sigma ms Hs. unfold null_stack.
  eapply null_set_subset; [|exact (generic_stack_rank_null d ms)].
  intros w Hw Hr. apply Hw. exact (depth_width_rank_maximal d sigma _ Hs Hr).
Qed.
