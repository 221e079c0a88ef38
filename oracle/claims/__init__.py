"""One module per claim of proofs/claims.toml; each registers its oracle checks.

    boundary         -- the boundary counterexamples of the paper (each hypothesis is needed)
    skip_reduction   -- skip-reduction (Lemma 4)
    homogeneous      -- homogeneous-impossible (Prop. 5), homogeneous-any-width
    gated            -- gated-impossible (Prop. 6), gated-continuity
    depth            -- depth-impossible (Cor. 7), depth-any
    relu_gelu        -- relu-gelu-iff (Thms. 8 and 10)
    non_generic      -- non-generic (Cor. 11)
    absorption_width -- absorption-width
    glu_flip         -- glu-flip
    depth_stacks     -- depth-narrow, depth-d2, depth-dimension, depth-width (the open problem)
    depth_boundary   -- the boundary counterexamples of those four
    depth_d1         -- depth-d1 (d = 1 stacks, decided by the width pattern and F(1) F(-1)), depth-d1-biased
    depth_dead_block -- depth-dead-block (a second block dead on the image of the first)
    depth_near_identity -- depth-near-identity (d >= 3, two near-identity blocks)
    depth_analytic   -- depth-analytic (gelu family: a Jacobian rank certificate per width tuple)
    depth_analytic_generic -- depth-analytic-generic (gelu family, d >= 2, any widths)
    depth_analytic_d1 -- depth-analytic-d1 (gelu family, d = 1, any widths)
    relu_limit       -- relu-limit (biases; relu, gelu, gelu_tanh, silu via the relu limit)
    relu_complete    -- relu-complete (exact minimal width of every relu block)
    relu2_biased     -- relu2-biased (biased relu2 blocks: flip sets, class sums)
    gated_biased     -- gated-biased (biased reglu/swiglu/geglu/geglu_tanh/glu blocks: flip sets)
    generic_weights  -- generic-weights (the hypotheses hold off a null set of weights)

Shared machinery: base.py (certificates, the decorators, the runner) and coverage.py (what the
drawn instances reach).  The algebra the claims share with the decisions lives in oracle/algebra/.

This file is the registry of the registrations: ``CLAIM_MODULES`` lists every module that
registers an oracle check or a boundary counterexample, and ``load()`` is the one loader (the
audit, the consistency check, the report and ``absorb recheck`` call it).  The decorators of
base.py only attach metadata to a function; ``load()`` imports the listed modules and collects
the decorated functions each one defines.  Nothing is kept between calls, so loading twice gives
the same lists, and a module executed under another name (a mutated copy in a test) is not
listed and adds nothing.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

from oracle.core.errors import RegistryError

__all__ = ["CLAIM_MODULES", "Registrations", "defined_here", "import_claim_module", "load", "resolve"]

CLAIM_MODULES = ("boundary", "skip_reduction", "homogeneous", "gated", "depth", "relu_gelu", "non_generic",
                 "absorption_width", "glu_flip", "depth_stacks", "depth_boundary", "depth_d1", "depth_dead_block",
                 "depth_near_identity", "depth_analytic", "depth_analytic_generic", "depth_analytic_d1", "relu_limit", "relu_complete",
                 "gelu_complete", "relu2_biased", "gated_biased", "generic_weights")


@dataclass(frozen=True)
class Registrations:
    """What the claim modules register, in CLAIM_MODULES order (each module's in source order)."""

    checks: dict[str, Callable[[Any], Any]]     # "oracle.claims.<module>:<function>" -> oracle check
    counterexamples: tuple[Callable[[], Any], ...]


def import_claim_module(name: str) -> ModuleType:
    """oracle.claims.<name>, or RegistryError naming the module and why it does not import."""
    full = f"{__name__}.{name}"
    try:
        return importlib.import_module(full)
    except Exception as e:  # any failure of a claim module is reported with its reason
        raise RegistryError(f"claim module {full} does not import: {type(e).__name__}: {e}") from e


def defined_here(module: ModuleType, marker: str) -> list[Callable]:
    """The functions a module itself defines (not imports) that carry the decorator's marker
    attribute ('check_info' or 'counterexample_info'), in source order."""
    return [fn for fn in vars(module).values()
            if callable(fn) and hasattr(fn, marker) and getattr(fn, "__module__", None) == module.__name__]


def load() -> Registrations:
    """Import every claim module of CLAIM_MODULES and collect its registrations (fresh lists on
    every call).  RegistryError when a module does not import."""
    checks: dict[str, Callable[[Any], Any]] = {}
    cexs: list[Callable[[], Any]] = []
    for name in CLAIM_MODULES:
        mod = import_claim_module(name)
        for fn in defined_here(mod, "check_info"):
            checks[f"{mod.__name__}:{fn.__name__}"] = fn
        cexs += defined_here(mod, "counterexample_info")
    return Registrations(checks, tuple(cexs))


def resolve(ref: str) -> Callable[[Any], Any]:
    """The registered oracle check a registry ``oracle`` field ('oracle.claims.<module>:<function>')
    names; RegistryError when no listed module registers it."""
    checks = load().checks
    if ref not in checks:
        mod = ref.partition(":")[0]
        where = ("its module is not one of CLAIM_MODULES (oracle/claims/__init__.py)"
                 if mod.rpartition(".")[2] not in CLAIM_MODULES or not mod.startswith(f"{__name__}.")
                 else "its module defines no function of that name registered with @oracle_check")
        raise RegistryError(f"{ref} is not a registered oracle check: {where}")
    return checks[ref]
