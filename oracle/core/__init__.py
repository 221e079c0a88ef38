"""Layer 1, the core objects: activations, blocks and stacks, arithmetic backends, exact linear
algebra (python-flint), ball evaluation, hypothesis strategies, errors, and the readers of block,
stack and checkpoint files.  Imports nothing else of the package."""

__all__ = ["activations", "arith", "blocks", "errors", "families", "fastball", "formats", "io", "jsontypes", "linalg",
           "progress", "rational", "stackfiles", "strategies"]
