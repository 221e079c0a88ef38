"""Numeric oracle and tools for deciding when an MLP block absorbs its skip connection."""

__version__ = "0.1.0"

# the layers (docs/architecture.md), bottom to top
__all__ = ["__version__", "core", "algebra", "claims", "decide", "formal", "report", "commands", "cli"]
