(** * [depth-narrow] for almost every weight: residual relu stacks that equal
    a plain relu stack with a narrow layer form a Lebesgue-null set.

    By [DepthNarrow.depth_narrow], a residual relu stack whose pieces
    [I + W_l D U_l] are all invertible equals no plain relu stack whose first
    width is [<= d] or one of whose widths is [< d]; by
    [GenericWeightsNull.generic_stack_pieces_null], the stacks (of any fixed
    widths [ms], weights read as in [GenericWeightsNull.stack_of]) with a
    singular piece form a null set. *)

From Coq Require Import Reals List.
From SkipAbsorption Require Import Linalg Depth DepthStack Activations DepthNarrow NullSets
  GenericWeightsNull.
Import ListNotations.
Open Scope R_scope.

(** [depth-narrow], measure form of parts (a) and (b): for [d >= 1] and
    widths [ms], the bias-free relu residual stacks
    [F = (I + B_L) o ... o (I + B_1)] of widths [ms] that equal some plain
    relu stack whose first width is [<= d] or one of whose widths is [< d]
    form a null set of weights. *)
Theorem depth_narrow_null :
  forall (d : nat) (ms : list nat)
         (d_pos : (0 < d)%nat),
  null_stack d ms (fun layers =>
    exists plains : list layer,
      ((exists (P1 : layer) (rest : list layer), plains = P1 :: rest /\ (width P1 <= d)%nat) \/
       Exists (fun P => (width P < d)%nat) plains) /\
      forall x i, (i < d)%nat ->
        res_comp_id (map (layer_block d relu) layers) x i =
        plain_comp (map (layer_block d relu) plains) x i).
Proof.
  intros d ms d_pos. unfold null_stack.
  apply null_set_subset with
    (A := fun w => ~ Forall (layer_pieces_invertible d) (stack_of d ms 0 w)).
  - intros w (plains & Hnarrow & Heq) Hpieces.
    exact (depth_narrow d (stack_of d ms 0 w) plains d_pos Hpieces Hnarrow Heq).
  - exact (generic_stack_pieces_null d ms).
Qed.
