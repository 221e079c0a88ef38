"""Numeric oracle and tools for deciding when an MLP block absorbs its skip connection."""

__version__ = "0.1.0"
