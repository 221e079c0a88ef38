"""Model checkpoints in the formats people ship, behind one interface for ``absorb scan``.

Each reader validates its container before anything large is read and exposes the same methods
as ``oracle.core.io.Checkpoint`` (safetensors): ``names``, ``__contains__``, ``shape``, ``dtype``,
``float64_bytes``, ``tensor`` (float64, exact widening of the stored numbers, or the dequantized
weights for GGUF), ``config`` and the attributes ``path``, ``files`` and ``format``.

* ``gguf_file.GGUFFile``      llama.cpp's GGUF (tensors memory-mapped; ``gguf.quants`` dequantizes);
* ``onnx_file.ONNXModel``     ONNX (blocks found from the graph; external data only from the model's directory);
* ``torch_file.TorchCheckpoint``  ``torch.save`` state dicts, zip or legacy (restricted unpickling, no torch).
"""

from __future__ import annotations

import os
import struct
import zipfile
from pathlib import Path
from typing import Any

from oracle.core.errors import InputError
from oracle.core.formats.gguf_file import MAGIC as GGUF_MAGIC
from oracle.core.formats.gguf_file import GGUFFile
from oracle.core.formats.torch_file import TorchCheckpoint, is_legacy_torch, is_torch_zip
from oracle.core.io import Checkpoint, read_head

__all__ = ["KNOWN", "detect", "open_checkpoint", "gguf_file", "onnx_const", "onnx_emit", "onnx_file", "table", "torch_file"]

KNOWN = ".safetensors (file or directory of shards), .gguf, .onnx, PyTorch state dicts (.bin, .pt, .pth)"


def detect(path: str | os.PathLike) -> str:
    """The checkpoint format of a file from its first bytes (the extension decides only for ONNX,
    which has no magic number): 'safetensors', 'gguf', 'onnx' or 'pytorch'."""
    p = Path(path)
    head = read_head(p, 16)
    if not head:
        raise InputError(f"{p}: empty file (0 bytes); not a checkpoint")
    if head[:4] == GGUF_MAGIC:
        return "gguf"
    if head[:4] == b"PK\x03\x04":
        if is_torch_zip(p):
            return "pytorch"
        if not _readable_zip(p):
            raise InputError(f"{p}: a truncated or damaged zip archive (its central directory cannot be read)")
        raise InputError(f"{p}: a zip archive that is not a torch.save file (an .npz block file is read "
                         f"by absorb check); checkpoints: {KNOWN}")
    if is_legacy_torch(head):
        return "pytorch"
    if len(head) >= 9:
        (n,) = struct.unpack("<Q", head[:8])
        if head[8:9] == b"{" and 2 <= n < 100_000_000:
            return "safetensors"
    if p.suffix.lower() == ".onnx":
        return "onnx"
    if head[:1] == b"\x80":
        raise InputError(f"{p}: not a PyTorch state dict (neither torch's zip layout nor its legacy stream); "
                         "other pickles are never loaded")
    raise InputError(f"{p}: not a checkpoint format read here; known: {KNOWN}")


def _readable_zip(p: Path) -> bool:
    try:
        with zipfile.ZipFile(p) as zf:
            zf.namelist()
        return True
    except (OSError, zipfile.BadZipFile, ValueError, EOFError):
        return False


def open_checkpoint(path: str | os.PathLike) -> Any:
    """Open a checkpoint file or directory with the reader its format needs."""
    p = Path(path)
    if p.is_dir():
        if any(p.glob("*.safetensors")):
            return Checkpoint(p)
        for pattern in ("*.gguf", "*.onnx", "pytorch_model.bin", "*.pt", "*.pth", "*.bin"):
            found = sorted(p.glob(pattern))
            if len(found) == 1:
                return open_checkpoint(found[0])
            if len(found) > 1:
                raise InputError(f"{p}: the directory holds several {pattern} files; name one of them")
        raise InputError(f"{p}: the directory holds no checkpoint ({KNOWN})")
    fmt = detect(p)
    if fmt == "safetensors":
        return Checkpoint(p)
    if fmt == "gguf":
        return GGUFFile(p)
    if fmt == "onnx":
        # lazy: importing onnx (protobuf) takes about a second; only ONNX files need it
        from oracle.core.formats.onnx_file import ONNXModel
        return ONNXModel(p)
    return TorchCheckpoint(p)
