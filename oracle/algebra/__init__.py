"""Layer 2, the block algebra that claims and decisions share: canonical forms, minimal widths,
constructions of replacing blocks, index-set search and its certificates, exact-rational and ball
helpers, the independent piecewise-linear referee, the relu limit of an activation, the polynomials
and constructions of generic-weights, and the algebra of stacks.  Imports only from oracle.core."""

__all__ = ["affine", "canonical", "construct", "exact", "flips", "gelu_width", "generic_polys", "limits", "pl_check", "relu_width",
           "search", "stacks"]
