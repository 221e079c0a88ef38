"""Algebra of residual and plain stacks, shared by the depth claims (oracle/claims/depth*.py) and the
decision for stacks (oracle/decide/stacks.py), so the audit and `absorb check` run the same code.

    layers         exact relu layers: evaluation, JSON forms, pieces, canonical forms, flat blocks
    narrow         depth-narrow's hypotheses: invertible pieces, parts (a)-(c), transversality
    planar         d = 2: ray geometry, exact identity of stacks, homeomorphisms, depth-d2's hypotheses
    rank           depth-dimension: the dimension count and the exact Jacobian rank certificate
    d1             d = 1: the pair (F(1), F(-1)), the classes, exact 1-D piecewise-linear maps
    near_identity  depth-near-identity's hypotheses (d >= 3): normals, general position, bend edges
    analytic       gelu family: the ball-arithmetic Jacobian rank certificate and its re-check
    sweep          the committed sweep of those certificates and its re-check
"""

__all__ = ["layers", "narrow", "planar", "rank", "d1", "dead", "near_identity", "analytic", "sweep"]
