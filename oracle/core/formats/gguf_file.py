"""GGUF files (llama.cpp's format): a bounded, validated header walk, memory-mapped tensors, and
dequantization with the ``gguf`` package's own routines, one tensor (or one expert) at a time.

The header is walked here rather than by ``gguf.GGUFReader`` because the reader builds one numpy
view per element of every metadata array (a 262144-token vocabulary takes it about 20 s) and
trusts the declared array lengths, and because it refuses the whole file when one tensor has a
quantization type it does not know.  This walk checks every length against the bytes that remain
before it moves on, never materialises a metadata array it does not need, and records a tensor of
an unknown type as unreadable so that only the blocks using it fail.  The tensor types, their
block sizes and the dequantizers are the ``gguf`` package's (``gguf.constants``, ``gguf.quants``).
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import numpy as np
from gguf import constants, quants

from oracle.core.errors import InputError
from oracle.core.formats.table import TensorTable

MAGIC = b"GGUF"
MAX_DIMS = 4  # GGML_MAX_DIMS
MAX_NESTING = 4  # arrays of arrays deeper than this are refused
DEFAULT_ALIGNMENT = 32
KEEP_ARRAY_ITEMS = 64  # metadata arrays up to this length are kept (longer ones are only skipped)

# GGUF metadata value types (gguf.constants.GGUFValueType) -> struct format of a scalar
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q",
            12: "<d"}
_STRING, _ARRAY = 8, 9


@dataclass(frozen=True)
class GGUFTensor:
    """One tensor's validated header entry (shape in numpy order: the last axis is ggml's ne0)."""

    name: str
    type_id: int
    type_name: str  # e.g. "Q4_K", "F32"; "unknown(99)" when the type is not known
    shape: tuple[int, ...]
    offset: int  # absolute byte offset in the file
    nbytes: int  # -1 when the type is unknown
    error: Optional[str] = None


class _Cursor:
    """Reads little-endian values from a buffer, each read checked against the end."""

    def __init__(self, buf: Any, size: int, path: Path) -> None:
        self.buf, self.size, self.pos, self.path = buf, size, 0, path

    def need(self, n: int, what: str) -> None:
        if n < 0 or self.pos + n > self.size:
            raise InputError(f"{self.path}: truncated GGUF header: {what} needs {n} bytes at offset "
                             f"{self.pos}, the file has {self.size}")

    def scalar(self, fmt: str, what: str) -> Any:
        n = struct.calcsize(fmt)
        self.need(n, what)
        (v,) = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += n
        return v

    def string(self, what: str, limit: int = 1 << 20) -> str:
        n = self.scalar("<Q", what + " length")
        if n > limit:
            raise InputError(f"{self.path}: GGUF {what} declares {n} bytes (more than {limit})")
        self.need(n, what)
        raw = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"{self.path}: GGUF {what} is not UTF-8") from None

    def skip_string(self, what: str) -> None:
        n = self.scalar("<Q", what + " length")
        self.need(n, what)
        self.pos += n

    def value(self, vtype: int, what: str, keep: bool, depth: int = 0) -> Any:
        if vtype in _SCALARS:
            return self.scalar(_SCALARS[vtype], what)
        if vtype == _STRING:
            if keep:
                return self.string(what, limit=1 << 24)
            self.skip_string(what)
            return None
        if vtype == _ARRAY:
            if depth >= MAX_NESTING:
                raise InputError(f"{self.path}: GGUF {what}: arrays nested deeper than {MAX_NESTING}")
            itype = self.scalar("<I", what + " item type")
            count = self.scalar("<Q", what + " length")
            if itype in _SCALARS:
                width = struct.calcsize(_SCALARS[itype])
                self.need(count * width, f"{what} ({count} items)")
                if keep and count <= KEEP_ARRAY_ITEMS:
                    return [self.value(itype, what, True, depth + 1) for _ in range(count)]
                self.pos += count * width
                return None
            if itype not in (_STRING, _ARRAY):
                raise InputError(f"{self.path}: GGUF {what}: unknown array item type {itype}")
            # every string or array item takes at least 8 bytes: a lying count stops here
            self.need(count * 8, f"{what} ({count} items)")
            keep_items = keep and count <= KEEP_ARRAY_ITEMS
            if itype == _STRING and not keep_items:
                # a vocabulary: skip its strings in a tight loop, each length checked
                pos, size, buf, unpack = self.pos, self.size, self.buf, struct.unpack_from
                for _ in range(count):
                    if pos + 8 > size:
                        break
                    pos += 8 + unpack("<Q", buf, pos)[0]
                    if pos > size:
                        break
                else:
                    self.pos = pos
                    return None
                self.pos = min(pos, size)
                self.need(8, f"{what} (an item past the end of the file)")
            out = []
            for _ in range(count):
                v = self.value(itype, what, keep_items, depth + 1)
                if keep_items:
                    out.append(v)
            return out if keep_items else None
        raise InputError(f"{self.path}: GGUF {what}: unknown value type {vtype}")


class GGUFFile(TensorTable):
    """A GGUF file with a validated header; tensors are memory-mapped and dequantized on demand.

    Checked before any tensor is read: the magic and version (2 or 3, little-endian); every
    string, array and count against the bytes that remain; unique keys and tensor names; at most
    four dimensions, each positive, rows a multiple of the type's block size; offsets aligned,
    inside the data section and not overlapping.
    """

    format = "gguf"

    def __init__(self, path: str | os.PathLike) -> None:
        p = Path(path)
        self.path = p
        self.files = [p]
        try:
            size = p.stat().st_size
            if size < 24:
                raise InputError(f"{p}: truncated GGUF file ({size} bytes)")
            self._map = np.memmap(p, dtype=np.uint8, mode="r")
        except InputError:
            raise
        except (OSError, ValueError) as e:
            raise InputError(f"{p}: cannot read: {' '.join(str(e).split())[:200]}") from None
        cur = _Cursor(self._map, size, p)
        if bytes(self._map[:4]) != MAGIC:
            raise InputError(f"{p}: not a GGUF file (bad magic)")
        cur.pos = 4
        version = cur.scalar("<I", "version")
        if version not in (2, 3):
            if version & 0xFFFF == 0:
                raise InputError(f"{p}: a big-endian GGUF file; only little-endian files are read")
            raise InputError(f"{p}: GGUF version {version} is not supported (2 and 3 are)")
        n_tensors = cur.scalar("<Q", "tensor count")
        n_kv = cur.scalar("<Q", "metadata count")
        # a metadata entry takes at least 12 bytes, a tensor entry at least 24
        if n_kv * 12 + n_tensors * 24 > size:
            raise InputError(f"{p}: GGUF header declares {n_kv} metadata entries and {n_tensors} tensors, "
                             f"more than a file of {size} bytes can hold")
        self.metadata: dict[str, Any] = {}
        self.metadata_types: dict[str, int] = {}
        for i in range(n_kv):
            key = cur.string(f"metadata key #{i}", limit=65536)
            if key in self.metadata_types:
                raise InputError(f"{p}: GGUF metadata key {key!r} appears twice")
            vtype = cur.scalar("<I", f"type of {key!r}")
            keep = not key.startswith("tokenizer.")
            self.metadata[key] = cur.value(vtype, f"metadata {key!r}", keep)
            self.metadata_types[key] = vtype
        align = self.metadata.get("general.alignment", DEFAULT_ALIGNMENT)
        if (not isinstance(align, int) or isinstance(align, bool) or align <= 0 or align & (align - 1)
                or self.metadata_types.get("general.alignment", 4) != 4):
            raise InputError(f"{p}: general.alignment = {align!r} is not a power of two (uint32)")
        self.alignment = align
        infos = []
        names: set[str] = set()
        for i in range(n_tensors):
            name = cur.string(f"tensor name #{i}", limit=65536)
            if name in names:
                raise InputError(f"{p}: GGUF tensor {name!r} appears twice")
            names.add(name)
            nd = cur.scalar("<I", f"dimension count of {name!r}")
            if not 1 <= nd <= MAX_DIMS:
                raise InputError(f"{p}: GGUF tensor {name!r} has {nd} dimensions (1 to {MAX_DIMS} allowed)")
            dims = [cur.scalar("<Q", f"dimensions of {name!r}") for _ in range(nd)]
            tid = cur.scalar("<I", f"type of {name!r}")
            off = cur.scalar("<Q", f"offset of {name!r}")
            infos.append((name, dims, tid, off))
        data_start = -(-cur.pos // align) * align
        if data_start > size:
            raise InputError(f"{p}: truncated GGUF file: the data section would start at {data_start}, "
                             f"the file has {size} bytes")
        self.data_start = data_start
        self.tensors: dict[str, GGUFTensor] = {}
        spans = []
        for name, dims, tid, off in infos:
            where = f"{p}: GGUF tensor {name!r}"
            if any(d <= 0 for d in dims):
                raise InputError(f"{where}: dimensions {dims} must be positive")
            n_el = 1
            for d in dims:
                n_el *= d
            if n_el > 1 << 48:
                raise InputError(f"{where}: dimensions {dims} declare {n_el} elements")
            shape = tuple(reversed(dims))
            try:
                qtype = constants.GGMLQuantizationType(tid)
                block, type_size = constants.GGML_QUANT_SIZES[qtype]
            except (ValueError, KeyError):
                # only the blocks that use this tensor fail; its extent is unknown, so no overlap check
                self.tensors[name] = GGUFTensor(name, tid, f"unknown({tid})", shape, data_start + off, -1,
                                                f"{where}: unknown quantization type {tid}")
                continue
            if dims[0] % block:
                raise InputError(f"{where}: rows of {dims[0]} are not a multiple of the "
                                 f"{qtype.name} block size {block}")
            nbytes = n_el // block * type_size
            if off % align:
                raise InputError(f"{where}: offset {off} is not a multiple of the alignment {align}")
            if off + nbytes > size - data_start:
                raise InputError(f"{where}: data [{off}, {off + nbytes}) lies outside the data section "
                                 f"(0..{size - data_start}): truncated file or lying offset")
            self.tensors[name] = GGUFTensor(name, tid, qtype.name, shape, data_start + off, nbytes)
            spans.append((off, off + nbytes, name))
        spans.sort()
        for (a0, a1, an), (b0, b1, bn) in zip(spans, spans[1:]):
            if b0 < a1:
                raise InputError(f"{p}: GGUF tensors {an!r} and {bn!r} overlap in the data section")

    # --------------------------------------------------------------- the checkpoint interface

    @property
    def architecture(self) -> Optional[str]:
        """``general.architecture`` from the metadata, or None."""
        a = self.metadata.get("general.architecture")
        return a if isinstance(a, str) else None

    def dtype(self, name: str) -> str:
        """The stored type (``F32``, ``F16``, ``Q4_K``, ...)."""
        return self.tensors[name].type_name

    def config(self) -> dict[str, Any]:
        """No config.json is read for a GGUF file: its metadata says the architecture."""
        return {}

    def _raw(self, t: GGUFTensor, index: Optional[int]) -> tuple[np.ndarray, Any]:
        if t.error:
            raise InputError(t.error)
        qtype = constants.GGMLQuantizationType(t.type_id)
        block, type_size = constants.GGML_QUANT_SIZES[qtype]
        row_bytes = t.shape[-1] // block * type_size
        raw = self._map[t.offset:t.offset + t.nbytes]
        raw = raw.reshape(t.shape[:-1] + (row_bytes,))
        if index is not None:
            if len(t.shape) != 3 or not 0 <= index < t.shape[0]:
                raise InputError(f"{self.path}: GGUF tensor {t.name!r} of shape {t.shape} has no expert {index}")
            raw = raw[index]
        return raw, qtype

    def tensor(self, name: str, index: Optional[int] = None) -> np.ndarray:
        """One tensor (or, with ``index``, one expert of a stacked 3-d tensor): stored floats as
        they are (F64, F32; F16 and BF16 widened exactly to float32), quantized types dequantized
        by ``gguf.quants.dequantize`` to float32.  These values are the weights every verdict is
        about; ``Block`` widens them exactly to float64 and refuses NaN and Inf."""
        t = self.tensors[name]
        raw, qtype = self._raw(t, index)
        Q = constants.GGMLQuantizationType
        try:
            if qtype == Q.F64:
                out = raw.view("<f8")
            elif qtype == Q.F32:
                out = raw.view("<f4")
            elif qtype in (Q.I8, Q.I16, Q.I32, Q.I64):
                raise InputError(f"{self.path}: GGUF tensor {name!r} holds integers ({qtype.name}), not weights")
            else:
                out = quants.dequantize(np.ascontiguousarray(raw), qtype)
        except InputError:
            raise
        except NotImplementedError:
            raise InputError(f"{self.path}: GGUF tensor {name!r}: the gguf package cannot dequantize "
                             f"{qtype.name}") from None
        except (ValueError, TypeError, AssertionError) as e:
            raise InputError(f"{self.path}: GGUF tensor {name!r} unreadable: "
                             f"{' '.join(str(e).split())[:200]}") from None
        want = t.shape[1:] if index is not None else t.shape
        if out.shape != want or out.dtype.kind != "f" or out.dtype.itemsize > 8:
            raise InputError(f"{self.path}: GGUF tensor {name!r} dequantized to {out.dtype} {out.shape}, "
                             f"expected {want}")
        return out


def is_gguf(path: str | os.PathLike) -> bool:
    """True when the file starts with the GGUF magic."""
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == MAGIC
    except OSError:
        return False
