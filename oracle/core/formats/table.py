"""What the GGUF and PyTorch readers share: a table of tensor records read from the header."""

from __future__ import annotations

import math
from typing import Any


class TensorTable:
    """A checkpoint whose ``tensors`` maps each name to a record with a ``shape`` (numpy order)."""

    tensors: dict[str, Any]

    def names(self) -> list[str]:
        """Tensor names (sorted)."""
        return sorted(self.tensors)

    def __contains__(self, name: str) -> bool:
        return name in self.tensors

    def shape(self, name: str) -> tuple[int, ...]:
        """Shape in numpy order, from the header (no tensor data read)."""
        return self.tensors[name].shape

    def float64_bytes(self, names: list[str]) -> int:
        """Bytes the named tensors take as float64 (dequantized and widened where they are not)."""
        return sum(8 * math.prod(self.tensors[n].shape) for n in names)
