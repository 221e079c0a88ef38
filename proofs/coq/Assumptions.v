(** Prints the axioms every registered theorem depends on.  The expected
    output lists only the standard library's axiomatisation of the reals
    (and nothing from this development); the files that use Coquelicot
    (RealActivations, Limit) add no axiom of their own. *)

From SkipAbsorption Require Import Linalg SkipReduction Homogeneous Gated Depth SignFlip RealActivations Activations.
From SkipAbsorption Require Import Quantitative Width NonGeneric DepthStack Necessity Limit.

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
Locate SkipAbsorption.Quantitative.homogeneous_any_width_gap.
Print Assumptions SkipAbsorption.Quantitative.homogeneous_any_width_gap.
Locate SkipAbsorption.Quantitative.homogeneous_gap_radius.
Print Assumptions SkipAbsorption.Quantitative.homogeneous_gap_radius.
Locate SkipAbsorption.Quantitative.homogeneous_gap_deg2.
Print Assumptions SkipAbsorption.Quantitative.homogeneous_gap_deg2.
Locate SkipAbsorption.Quantitative.c2_value.
Print Assumptions SkipAbsorption.Quantitative.c2_value.
Locate SkipAbsorption.Quantitative.c2_is_max.
Print Assumptions SkipAbsorption.Quantitative.c2_is_max.
Locate SkipAbsorption.Quantitative.relu2_gap_instance.
Print Assumptions SkipAbsorption.Quantitative.relu2_gap_instance.
Locate SkipAbsorption.Width.absorption_width_any_M.
Print Assumptions SkipAbsorption.Width.absorption_width_any_M.
Locate SkipAbsorption.Width.rank_step.
Print Assumptions SkipAbsorption.Width.rank_step.
Locate SkipAbsorption.Width.basis_extraction.
Print Assumptions SkipAbsorption.Width.basis_extraction.
Locate SkipAbsorption.Width.extra_units_absorb_M.
Print Assumptions SkipAbsorption.Width.extra_units_absorb_M.
Locate SkipAbsorption.Width.absorption_width_instance.
Print Assumptions SkipAbsorption.Width.absorption_width_instance.
Locate SkipAbsorption.NonGeneric.non_generic_scaling.
Print Assumptions SkipAbsorption.NonGeneric.non_generic_scaling.
Locate SkipAbsorption.NonGeneric.non_generic_dense.
Print Assumptions SkipAbsorption.NonGeneric.non_generic_dense.
Locate SkipAbsorption.NonGeneric.non_generic_instance.
Print Assumptions SkipAbsorption.NonGeneric.non_generic_instance.
Locate SkipAbsorption.Necessity.relu_iff.
Print Assumptions SkipAbsorption.Necessity.relu_iff.
Locate SkipAbsorption.Necessity.relu_necessity.
Print Assumptions SkipAbsorption.Necessity.relu_necessity.
Locate SkipAbsorption.Necessity.relu_necessity_structure.
Print Assumptions SkipAbsorption.Necessity.relu_necessity_structure.
Locate SkipAbsorption.Necessity.relu_not_absorbable_instance.
Print Assumptions SkipAbsorption.Necessity.relu_not_absorbable_instance.
Locate SkipAbsorption.Activations.geglu_tanh_not_absorbable.
Print Assumptions SkipAbsorption.Activations.geglu_tanh_not_absorbable.
Locate SkipAbsorption.Activations.gelu_tanh_sign_flip.
Print Assumptions SkipAbsorption.Activations.gelu_tanh_sign_flip.
Locate SkipAbsorption.Activations.geglu_tanh_block_flat.
Print Assumptions SkipAbsorption.Activations.geglu_tanh_block_flat.
Locate SkipAbsorption.RealActivations.gaussian_integral_half_line.
Print Assumptions SkipAbsorption.RealActivations.gaussian_integral_half_line.
Locate SkipAbsorption.RealActivations.Phi_sym.
Print Assumptions SkipAbsorption.RealActivations.Phi_sym.
Locate SkipAbsorption.RealActivations.Phi_bounds.
Print Assumptions SkipAbsorption.RealActivations.Phi_bounds.
Locate SkipAbsorption.RealActivations.Phi_mono.
Print Assumptions SkipAbsorption.RealActivations.Phi_mono.
Locate SkipAbsorption.RealActivations.Phi_lim_p_infty.
Print Assumptions SkipAbsorption.RealActivations.Phi_lim_p_infty.
Locate SkipAbsorption.RealActivations.Phi_lim_m_infty.
Print Assumptions SkipAbsorption.RealActivations.Phi_lim_m_infty.
Locate SkipAbsorption.RealActivations.gelu_odd_part.
Print Assumptions SkipAbsorption.RealActivations.gelu_odd_part.
Locate SkipAbsorption.RealActivations.gelu_tanh_odd_part.
Print Assumptions SkipAbsorption.RealActivations.gelu_tanh_odd_part.
Locate SkipAbsorption.RealActivations.silu_odd_part.
Print Assumptions SkipAbsorption.RealActivations.silu_odd_part.
Locate SkipAbsorption.RealActivations.relu_odd_part.
Print Assumptions SkipAbsorption.RealActivations.relu_odd_part.
Locate SkipAbsorption.RealActivations.gelu_limit_relu.
Print Assumptions SkipAbsorption.RealActivations.gelu_limit_relu.
Locate SkipAbsorption.RealActivations.gelu_tanh_limit_relu.
Print Assumptions SkipAbsorption.RealActivations.gelu_tanh_limit_relu.
Locate SkipAbsorption.RealActivations.silu_limit_relu.
Print Assumptions SkipAbsorption.RealActivations.silu_limit_relu.
Locate SkipAbsorption.RealActivations.relu_limit_relu.
Print Assumptions SkipAbsorption.RealActivations.relu_limit_relu.
Locate SkipAbsorption.Limit.limit_reduction.
Print Assumptions SkipAbsorption.Limit.limit_reduction.
Locate SkipAbsorption.Limit.biased_sign_flip.
Print Assumptions SkipAbsorption.Limit.biased_sign_flip.
Locate SkipAbsorption.Limit.relu_limit_necessity.
Print Assumptions SkipAbsorption.Limit.relu_limit_necessity.
Locate SkipAbsorption.Limit.relu_limit_iff.
Print Assumptions SkipAbsorption.Limit.relu_limit_iff.
Locate SkipAbsorption.Limit.relu_biased_iff.
Print Assumptions SkipAbsorption.Limit.relu_biased_iff.
Locate SkipAbsorption.Limit.gelu_limit_iff.
Print Assumptions SkipAbsorption.Limit.gelu_limit_iff.
Locate SkipAbsorption.Limit.gelu_tanh_limit_iff.
Print Assumptions SkipAbsorption.Limit.gelu_tanh_limit_iff.
Locate SkipAbsorption.Limit.silu_limit_iff.
Print Assumptions SkipAbsorption.Limit.silu_limit_iff.
Locate SkipAbsorption.Limit.gelu_iff.
Print Assumptions SkipAbsorption.Limit.gelu_iff.
Locate SkipAbsorption.Limit.gelu_biased_not_absorbable_instance.
Print Assumptions SkipAbsorption.Limit.gelu_biased_not_absorbable_instance.
