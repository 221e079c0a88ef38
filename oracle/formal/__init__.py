"""Layer 4 (beside the decisions), the formal layer's checks: building and reading the Coq
development, the static scans of Coq and Lean sources, the pinned statements, and the registry's
consistency with all of them.  Imports claims and core."""

__all__ = ["consistency", "coqcheck", "coqsource", "leancheck", "pinned"]
