"""Layer 2, the block algebra that claims and decisions share: canonical forms, minimal widths,
constructions of replacing blocks, index-set search and its certificates, exact-rational and ball
helpers, and the independent piecewise-linear referee.  Imports only from oracle.core."""

__all__ = ["canonical", "construct", "exact", "flips", "pl_check", "relu_width", "search"]
