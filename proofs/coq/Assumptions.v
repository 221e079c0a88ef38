(** Prints the axioms every registered theorem depends on.  The expected
    output lists only the standard library's axiomatisation of the reals
    (and nothing from this development). *)

From SkipAbsorption Require Import Linalg SkipReduction Homogeneous Gated Depth SignFlip Activations Necessity.

Locate SkipAbsorption.SkipReduction.skip_reduction.
Print Assumptions SkipAbsorption.SkipReduction.skip_reduction.
Locate SkipAbsorption.SkipReduction.skip_reduction_gated.
Print Assumptions SkipAbsorption.SkipReduction.skip_reduction_gated.
Locate SkipAbsorption.Homogeneous.homogeneous_any_width.
Print Assumptions SkipAbsorption.Homogeneous.homogeneous_any_width.
Locate SkipAbsorption.Homogeneous.homogeneous_any_width_gated.
Print Assumptions SkipAbsorption.Homogeneous.homogeneous_any_width_gated.
Locate SkipAbsorption.Homogeneous.homogeneous_impossible.
Print Assumptions SkipAbsorption.Homogeneous.homogeneous_impossible.
Locate SkipAbsorption.Homogeneous.homogeneous_impossible_gated.
Print Assumptions SkipAbsorption.Homogeneous.homogeneous_impossible_gated.
Locate SkipAbsorption.Gated.gated_continuity.
Print Assumptions SkipAbsorption.Gated.gated_continuity.
Locate SkipAbsorption.Gated.gated_impossible.
Print Assumptions SkipAbsorption.Gated.gated_impossible.
Locate SkipAbsorption.Depth.depth_any.
Print Assumptions SkipAbsorption.Depth.depth_any.
Locate SkipAbsorption.Depth.depth_impossible.
Print Assumptions SkipAbsorption.Depth.depth_impossible.
Locate SkipAbsorption.Depth.ungated_block_flat.
Print Assumptions SkipAbsorption.Depth.ungated_block_flat.
Locate SkipAbsorption.Depth.gated_block_flat.
Print Assumptions SkipAbsorption.Depth.gated_block_flat.
Locate SkipAbsorption.SignFlip.sign_flip_absorbs.
Print Assumptions SkipAbsorption.SignFlip.sign_flip_absorbs.
Locate SkipAbsorption.SignFlip.glu_flip.
Print Assumptions SkipAbsorption.SignFlip.glu_flip.
Locate SkipAbsorption.SignFlip.extra_units_absorb.
Print Assumptions SkipAbsorption.SignFlip.extra_units_absorb.
Locate SkipAbsorption.Activations.relu2_not_absorbable.
Print Assumptions SkipAbsorption.Activations.relu2_not_absorbable.
Locate SkipAbsorption.Activations.reglu_not_absorbable.
Print Assumptions SkipAbsorption.Activations.reglu_not_absorbable.
Locate SkipAbsorption.Activations.bilinear_not_absorbable.
Print Assumptions SkipAbsorption.Activations.bilinear_not_absorbable.
Locate SkipAbsorption.Activations.swiglu_not_absorbable.
Print Assumptions SkipAbsorption.Activations.swiglu_not_absorbable.
Locate SkipAbsorption.Activations.geglu_not_absorbable.
Print Assumptions SkipAbsorption.Activations.geglu_not_absorbable.
Locate SkipAbsorption.Activations.relu_sign_flip.
Print Assumptions SkipAbsorption.Activations.relu_sign_flip.
Locate SkipAbsorption.Activations.gelu_sign_flip.
Print Assumptions SkipAbsorption.Activations.gelu_sign_flip.
Locate SkipAbsorption.Activations.silu_sign_flip.
Print Assumptions SkipAbsorption.Activations.silu_sign_flip.
Locate SkipAbsorption.Activations.sigmoid_glu_flip.
Print Assumptions SkipAbsorption.Activations.sigmoid_glu_flip.
Locate SkipAbsorption.Activations.relu2_block_flat.
Print Assumptions SkipAbsorption.Activations.relu2_block_flat.
Locate SkipAbsorption.Activations.reglu_block_flat.
Print Assumptions SkipAbsorption.Activations.reglu_block_flat.
Locate SkipAbsorption.Activations.swiglu_block_flat.
Print Assumptions SkipAbsorption.Activations.swiglu_block_flat.
Locate SkipAbsorption.Activations.geglu_block_flat.
Print Assumptions SkipAbsorption.Activations.geglu_block_flat.
Locate SkipAbsorption.Activations.relu2_stack_not_swiglu_stack.
Print Assumptions SkipAbsorption.Activations.relu2_stack_not_swiglu_stack.
Locate SkipAbsorption.Necessity.relu_iff.
Print Assumptions SkipAbsorption.Necessity.relu_iff.
Locate SkipAbsorption.Necessity.relu_necessity.
Print Assumptions SkipAbsorption.Necessity.relu_necessity.
Locate SkipAbsorption.Necessity.relu_necessity_structure.
Print Assumptions SkipAbsorption.Necessity.relu_necessity_structure.
Locate SkipAbsorption.Necessity.relu_not_absorbable_instance.
Print Assumptions SkipAbsorption.Necessity.relu_not_absorbable_instance.
