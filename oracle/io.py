"""Block files (.npz, .safetensors) and lazily opened model checkpoints.

Block files follow DESIGN.md: arrays ``W_up``, ``W_down`` and optionally
``W_gate``, ``b_up``, ``b_gate``, ``b_down``, ``M``; metadata ``activation`` and
``kind``, stored as 0-d string arrays in an .npz archive or in the metadata map
of a .safetensors file.  Pickles are never loaded: .npz archives are opened
with ``allow_pickle=False``, so an object array is refused before any of its
bytes are unpickled.  Every problem with a file becomes an ``InputError`` with a
one-line message, which the command line turns into exit status 2.
"""

from __future__ import annotations

import json
import os
import struct
import zipfile
from pathlib import Path
from typing import Any, Iterator, Optional

import numpy as np

from .blocks import Block
from .errors import InputError

ARRAY_KEYS = ("W_up", "W_down", "W_gate", "b_up", "b_gate", "b_down", "M")
META_KEYS = ("activation", "kind")
# Metadata that tools such as torch add to every safetensors file; harmless.
_IGNORED_SAFETENSORS_META = ("format",)
FORMATS = ("npz", "safetensors")


def _one_line(e: BaseException) -> str:
    """An exception message squeezed onto one line (the CLI prints exactly one line)."""
    msg = " ".join(str(e).split())
    return msg[:300] if msg else type(e).__name__


def detect_format(path: str | os.PathLike) -> str:
    """'npz' or 'safetensors' from the file's leading bytes (the extension is only a hint)."""
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            head = fh.read(9)
    except IsADirectoryError:
        raise InputError(f"{p}: is a directory, not a block file") from None
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except OSError as e:
        raise InputError(f"{p}: cannot read: {_one_line(e)}") from None
    if head[:4] == b"PK\x03\x04" or head[:4] == b"PK\x05\x06":
        return "npz"
    if len(head) >= 9:
        (n,) = struct.unpack("<Q", head[:8])
        if head[8:9] == b"{" and 2 <= n < 100_000_000:
            return "safetensors"
    if head[:6] == b"\x93NUMPY":
        raise InputError(f"{p}: a single .npy array, not an .npz archive of named arrays")
    if head[:1] == b"\x80":
        raise InputError(f"{p}: looks like a pickle; pickles are never loaded")
    raise InputError(f"{p}: neither an .npz archive nor a .safetensors file")


def _meta_string(name: str, arr: np.ndarray, path: Path) -> str:
    """Decode one metadata entry stored as a 0-d string array."""
    if arr.ndim != 0 or arr.dtype.kind not in "US":
        raise InputError(f"{path}: metadata {name!r} must be a 0-d string array, "
                         f"got dtype {arr.dtype} and shape {arr.shape}")
    v = arr.item()
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def _build(arrays: dict[str, np.ndarray], meta: dict[str, str], path: Path) -> Block:
    """Check keys and construct (and thereby validate) the Block."""
    unknown = sorted(set(arrays) - set(ARRAY_KEYS))
    if unknown:
        raise InputError(f"{path}: unknown array(s) {', '.join(unknown)}; "
                         f"allowed: {', '.join(ARRAY_KEYS)}, activation, kind")
    for need in ("W_up", "W_down"):
        if need not in arrays:
            raise InputError(f"{path}: required array {need!r} is missing")
    if "activation" not in meta:
        raise InputError(f"{path}: metadata 'activation' is missing")
    kind = meta.get("kind", "residual")
    for name, arr in arrays.items():
        if arr.dtype.kind not in "biuf":
            raise InputError(f"{path}: array {name!r} has non-numeric dtype {arr.dtype}")
    return Block(meta["activation"], kind=kind, **arrays)


def _read_npz(path: Path) -> Block:
    try:
        npz = np.load(path, allow_pickle=False)
    except ValueError as e:
        raise InputError(f"{path}: cannot load: {_one_line(e)}") from None
    except (OSError, EOFError, zipfile.BadZipFile) as e:
        raise InputError(f"{path}: not a readable .npz archive: {_one_line(e)}") from None
    if not isinstance(npz, np.lib.npyio.NpzFile):
        raise InputError(f"{path}: not an .npz archive of named arrays")
    arrays: dict[str, np.ndarray] = {}
    meta: dict[str, str] = {}
    with npz:
        for key in npz.files:
            try:
                arr = npz[key]
            except ValueError as e:
                # numpy refuses object arrays under allow_pickle=False: exactly what we want
                raise InputError(f"{path}: array {key!r} refused: {_one_line(e)}") from None
            except Exception as e:  # truncated member, bad header, CRC error ...
                raise InputError(f"{path}: array {key!r} unreadable: {_one_line(e)}") from None
            if key in META_KEYS:
                meta[key] = _meta_string(key, arr, path)
            else:
                arrays[key] = arr
    return _build(arrays, meta, path)


def _safe_open(path: Path) -> Any:
    from safetensors import safe_open

    try:
        return safe_open(str(path), framework="numpy")
    except Exception as e:  # SafetensorError is not importable in a stable place
        raise InputError(f"{path}: not a readable .safetensors file: {_one_line(e)}") from None


def _read_safetensors(path: Path) -> Block:
    arrays: dict[str, np.ndarray] = {}
    with _safe_open(path) as f:
        raw_meta = f.metadata() or {}
        for key in f.keys():
            if key not in ARRAY_KEYS:
                raise InputError(f"{path}: unknown tensor {key!r}; allowed: {', '.join(ARRAY_KEYS)}")
            try:
                arrays[key] = np.array(f.get_tensor(key))
            except Exception as e:
                raise InputError(f"{path}: tensor {key!r} unreadable: {_one_line(e)}") from None
    unknown = sorted(set(raw_meta) - set(META_KEYS) - set(_IGNORED_SAFETENSORS_META))
    if unknown:
        raise InputError(f"{path}: unknown metadata key(s) {', '.join(unknown)}; "
                         f"allowed: {', '.join(META_KEYS)}")
    meta = {k: raw_meta[k] for k in META_KEYS if k in raw_meta}
    return _build(arrays, meta, path)


def read_block(path: str | os.PathLike) -> Block:
    """Read and validate a block file; any defect raises InputError with a one-line message."""
    p = Path(path)
    fmt = detect_format(p)
    return _read_npz(p) if fmt == "npz" else _read_safetensors(p)


def format_for_output(out: str | os.PathLike, default: str) -> str:
    """The format to write: from the output's extension, else the given default."""
    suffix = Path(out).suffix.lower()
    if suffix == ".npz":
        return "npz"
    if suffix == ".safetensors":
        return "safetensors"
    return default


def write_block(block: Block, path: str | os.PathLike, fmt: Optional[str] = None) -> str:
    """Write a block file in 'npz' or 'safetensors' (default: from the extension); returns the format."""
    p = Path(path)
    fmt = fmt or format_for_output(p, "npz")
    if fmt not in FORMATS:
        raise InputError(f"unknown block-file format {fmt!r}; known: {', '.join(FORMATS)}")
    data = block.to_dict()
    arrays = {k: np.ascontiguousarray(np.asarray(v, dtype=np.float64))
              for k, v in data.items() if k in ARRAY_KEYS}
    meta = {k: str(data[k]) for k in META_KEYS}
    try:
        if fmt == "npz":
            # np.savez appends ".npz" to names without it; write through a handle to keep the name
            with open(p, "wb") as fh:
                np.savez(fh, **arrays, **{k: np.array(v) for k, v in meta.items()})
        else:
            from safetensors.numpy import save_file

            save_file(arrays, str(p), metadata=meta)
    except OSError as e:
        raise InputError(f"{p}: cannot write: {_one_line(e)}") from None
    return fmt


# ------------------------------------------------------------------ checkpoints

_ST_DTYPES = {"F64": "float64", "F32": "float32", "F16": "float16", "BF16": "bfloat16",
              "I64": "int64", "I32": "int32", "I16": "int16", "I8": "int8", "U8": "uint8",
              "BOOL": "bool"}


class Checkpoint:
    """A .safetensors checkpoint (a file, or a directory of shards) whose tensors are read on demand."""

    def __init__(self, path: str | os.PathLike) -> None:
        p = Path(path)
        if p.is_dir():
            files = sorted(p.glob("*.safetensors"))
            if not files:
                raise InputError(f"{p}: directory holds no .safetensors files")
        elif p.exists():
            if detect_format(p) != "safetensors":
                raise InputError(f"{p}: a checkpoint must be a .safetensors file")
            files = [p]
        else:
            raise InputError(f"{p}: no such file or directory")
        self.path = p
        self.files = files
        self._where: dict[str, Path] = {}
        self._header: dict[str, dict[str, Any]] = {}
        for f in files:
            header = _read_header(f)
            for name, info in header.items():
                if name == "__metadata__":
                    continue
                self._where[name] = f
                self._header[name] = info

    def names(self) -> list[str]:
        """All tensor names (sorted)."""
        return sorted(self._where)

    def __contains__(self, name: str) -> bool:
        return name in self._where

    def shape(self, name: str) -> tuple[int, ...]:
        """Shape of a tensor, from the header only."""
        return tuple(int(s) for s in self._header[name]["shape"])

    def dtype(self, name: str) -> str:
        """The stored dtype (safetensors spelling mapped to numpy names)."""
        raw = str(self._header[name].get("dtype", "?"))
        return _ST_DTYPES.get(raw, raw)

    def config(self) -> dict[str, Any]:
        """config.json next to the checkpoint (Hugging Face layout), or {} when absent or unreadable."""
        base = self.path if self.path.is_dir() else self.path.parent
        cfg = base / "config.json"
        try:
            return json.loads(cfg.read_text()) if cfg.is_file() else {}
        except (OSError, ValueError):
            return {}

    def tensor(self, name: str) -> np.ndarray:
        """Load one tensor as float64 (bfloat16 widened exactly), checking that it is finite."""
        f = self._where[name]
        if self._header[name].get("dtype") == "BF16":
            arr = _read_bf16(f, self._header[name])
        else:
            with _safe_open(f) as h:
                try:
                    arr = np.asarray(h.get_tensor(name))
                except Exception as e:
                    raise InputError(f"{f}: tensor {name!r} unreadable: {_one_line(e)}") from None
        out = arr.astype(np.float64)
        if not np.all(np.isfinite(out)):
            raise InputError(f"{f}: tensor {name!r} contains NaN or Inf")
        return out

    def iter_names(self) -> Iterator[str]:
        """Tensor names in sorted order."""
        yield from self.names()


def _read_header(path: Path) -> dict[str, Any]:
    """The JSON header of a safetensors file (names, dtypes, shapes, offsets) without the data."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(8)
            if len(raw) != 8:
                raise InputError(f"{path}: truncated .safetensors header")
            (n,) = struct.unpack("<Q", raw)
            if n > 100_000_000:
                raise InputError(f"{path}: implausible .safetensors header length {n}")
            text = fh.read(n)
        header = json.loads(text)
    except InputError:
        raise
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: unreadable .safetensors header: {_one_line(e)}") from None
    if not isinstance(header, dict):
        raise InputError(f"{path}: .safetensors header is not a JSON object")
    return header


def _read_bf16(path: Path, info: dict[str, Any]) -> np.ndarray:
    """Read a bfloat16 tensor: its 16 bits are the top half of a float32, so widening is exact."""
    (n,) = struct.unpack("<Q", path.open("rb").read(8))
    start, end = (int(v) for v in info["data_offsets"])
    shape = tuple(int(s) for s in info["shape"])
    raw = np.memmap(path, dtype="<u2", mode="r", offset=8 + n + start,
                    shape=((end - start) // 2,))
    return (raw.astype(np.uint32) << 16).view(np.float32).reshape(shape)
