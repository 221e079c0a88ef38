"""One module per claim of proofs/claims.toml; each registers its oracle checks.

    skip_reduction   -- skip-reduction (Lemma 4)
    homogeneous      -- homogeneous-impossible (Prop. 5), homogeneous-any-width
    gated            -- gated-impossible (Prop. 6), gated-continuity
    depth            -- depth-impossible (Cor. 7), depth-any
    relu_gelu        -- relu-gelu-iff (Thms. 8 and 10)
    non_generic      -- non-generic (Cor. 11)
    absorption_width -- absorption-width
    glu_flip         -- glu-flip
    depth_stacks     -- depth-narrow, depth-d2, depth-dimension, depth-width (the open problem)
    depth_d1         -- depth-d1 (d = 1 stacks, decided by the width pattern and F(1) F(-1))
    depth_near_identity -- depth-near-identity (d >= 3, two near-identity blocks)
    depth_analytic_generic -- depth-analytic-generic (gelu family, d >= 2, any widths; depth_analytic: the certificates)
    relu_limit       -- relu-limit (biases; relu, gelu, gelu_tanh, silu via the relu limit)
    relu_complete    -- relu-complete (exact minimal width of every relu block)
    relu2_biased     -- relu2-biased (biased relu2 blocks: flip sets, class sums)
    gated_biased     -- gated-biased (biased reglu/swiglu/geglu/geglu_tanh/glu blocks: flip sets)
    boundary         -- the boundary counterexamples (each hypothesis is needed)

Shared machinery: base.py (certificates, registration, the runner) and exact.py
(exact-rational matrices, ball evaluation, JSON forms of blocks).
"""

CLAIM_MODULES = ["skip_reduction", "homogeneous", "gated", "depth", "relu_gelu",
                 "non_generic", "absorption_width", "glu_flip", "depth_stacks", "depth_d1",
                 "depth_near_identity", "depth_analytic_generic", "relu_limit", "relu_complete", "relu2_biased", "gated_biased",
                 "boundary"]
