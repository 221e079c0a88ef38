"""PyTorch state dicts (``torch.save`` files: the zip layout and the older "legacy" stream), read
without torch and without ever running a plain unpickler.

The pickle inside is read by an unpickler whose ``find_class`` knows a fixed list of globals and
returns stand-ins of its own for them, much as ``torch.load(weights_only=True)`` does: ordered
dicts, the storage types (``torch.FloatStorage``, ...), and the functions torch uses to rebuild a
tensor or a parameter from a storage.  A tensor becomes a reference (storage key, dtype, offset,
shape, strides) checked against its storage; its bytes are read only when a block needs it.  Any
other global (``os.system``, ``builtins.eval``, a model class) stops the read with a one-line
error, before anything was called.
"""

from __future__ import annotations

import io
import os
import pickle
import struct
import zipfile
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import numpy as np

from oracle.core.errors import InputError
from oracle.core.io import read_config, read_head
from oracle.core.formats.table import TensorTable

MAX_PICKLE_BYTES = 200_000_000  # a state dict's pickle holds names and shapes only
LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
LEGACY_PROTOCOL = 1001

# torch storage class name -> (numpy dtype of the stored bytes (little-endian), itemsize, dtype name)
_STORAGES = {
    "FloatStorage": ("<f4", 4, "float32"), "DoubleStorage": ("<f8", 8, "float64"),
    "HalfStorage": ("<f2", 2, "float16"), "BFloat16Storage": ("<u2", 2, "bfloat16"),
    "LongStorage": ("<i8", 8, "int64"), "IntStorage": ("<i4", 4, "int32"),
    "ShortStorage": ("<i2", 2, "int16"), "CharStorage": ("i1", 1, "int8"),
    "ByteStorage": ("u1", 1, "uint8"), "BoolStorage": ("?", 1, "bool"),
}
_FLOATS = ("float32", "float64", "float16", "bfloat16")


class _StorageType:
    """Stand-in for a torch storage class named in the pickle."""

    __slots__ = ("name", "fmt", "itemsize", "dtype")

    def __init__(self, name: str) -> None:
        self.name = name
        self.fmt, self.itemsize, self.dtype = _STORAGES[name]

    def __reduce__(self) -> Any:  # pragma: no cover - never pickled
        raise TypeError("not picklable")


@dataclass(frozen=True)
class _Storage:
    key: str
    stype: _StorageType
    numel: int
    view_offset: int = 0  # legacy storage views: elements into the root storage


@dataclass(frozen=True)
class TensorRef:
    """A tensor of the state dict: where its elements are, not the elements."""

    storage: _Storage
    offset: int
    shape: tuple[int, ...]
    stride: tuple[int, ...]

    @property
    def dtype(self) -> str:
        return self.storage.stype.dtype


def _ints(v: Any, what: str) -> tuple[int, ...]:
    if not isinstance(v, (tuple, list)) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise InputError(f"a tensor's {what} {v!r} is not a tuple of integers")
    return tuple(v)


def _rebuild_tensor(storage: Any, offset: Any, size: Any, stride: Any, *rest: Any) -> TensorRef:
    """Stand-in for torch._utils._rebuild_tensor(_v2): a reference, checked against its storage."""
    if not isinstance(storage, _Storage):
        raise InputError("a tensor is rebuilt from something that is not a storage")
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise InputError(f"a tensor's storage offset {offset!r} is not a non-negative integer")
    shape, strides = _ints(size, "size"), _ints(stride, "stride")
    if len(shape) != len(strides) or any(s < 0 for s in shape) or any(s < 0 for s in strides):
        raise InputError(f"a tensor's size {shape} and stride {strides} do not fit together")
    n = 1
    for s in shape:
        n *= s
    if n:
        last = offset + sum((s - 1) * st for s, st in zip(shape, strides))
        if last >= storage.numel:
            raise InputError(f"a tensor of size {list(shape)} (stride {list(strides)}, offset {offset}) reaches "
                             f"element {last} of storage {storage.key!r}, which has {storage.numel}")
    return TensorRef(storage, offset + storage.view_offset, shape, strides)


def _rebuild_parameter(data: Any, requires_grad: Any = None, hooks: Any = None, state: Any = None) -> Any:
    """Stand-in for torch._utils._rebuild_parameter(_with_state): the tensor inside."""
    if not isinstance(data, TensorRef):
        raise InputError("a parameter is rebuilt from something that is not a tensor")
    return data


def _rebuild_tensor_v3(storage: Any, offset: Any, size: Any, stride: Any, requires_grad: Any,
                       hooks: Any, dtype: Any = None, metadata: Any = None) -> TensorRef:
    return _rebuild_tensor(storage, offset, size, stride)


def _size(*args: Any) -> tuple:
    """Stand-in for torch.Size."""
    return tuple(*args) if args else ()


_ALLOWED: dict[tuple[str, str], Any] = {
    ("collections", "OrderedDict"): OrderedDict,
    ("torch._utils", "_rebuild_tensor"): _rebuild_tensor,
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor,
    ("torch._utils", "_rebuild_tensor_v3"): _rebuild_tensor_v3,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
    ("torch", "Size"): _size,
}


class _Unpickler(pickle.Unpickler):
    """Knows only the globals in _ALLOWED and the storage types; every other global is refused."""

    def __init__(self, fh: Any, path: Path, storages: dict[str, _Storage], legacy: bool) -> None:
        super().__init__(fh, encoding="utf-8")
        self.path, self.storages, self.legacy = path, storages, legacy

    def find_class(self, module: str, name: str) -> Any:
        if module == "torch" and name in _STORAGES:
            return _StorageType(name)
        fn = _ALLOWED.get((module, name))
        if fn is None:
            raise InputError(f"{self.path}: the pickle asks for the global '{module}.{name}', which a state "
                             "dict of tensors never needs; refused (nothing was run)")
        return fn

    def persistent_load(self, pid: Any) -> Any:
        if not isinstance(pid, tuple) or not pid or pid[0] not in ("storage", b"storage"):
            raise InputError(f"{self.path}: unknown persistent id {str(pid)[:80]!r} in the pickle")
        data = pid[1:]
        if self.legacy:
            if len(data) != 5:
                raise InputError(f"{self.path}: malformed legacy storage id {str(pid)[:80]!r}")
            stype, key, _loc, numel, view = data
        else:
            if len(data) != 4:
                raise InputError(f"{self.path}: malformed storage id {str(pid)[:80]!r}")
            stype, key, _loc, numel = data
            view = None
        if not isinstance(stype, _StorageType):
            raise InputError(f"{self.path}: storage {key!r} has no storage type")
        if isinstance(key, int) and not isinstance(key, bool):
            key = str(key)
        if not isinstance(key, str) or not isinstance(numel, int) or isinstance(numel, bool) or numel < 0:
            raise InputError(f"{self.path}: malformed storage id {str(pid)[:80]!r}")
        old = self.storages.get(key)
        if old is not None and (old.stype.name != stype.name or old.numel != numel):
            raise InputError(f"{self.path}: storage {key!r} is declared twice, differently")
        root = old or _Storage(key, stype, numel)
        self.storages[key] = root
        if view is not None:
            if (not isinstance(view, tuple) or len(view) != 3
                    or not all(isinstance(v, int) for v in view[1:])):
                raise InputError(f"{self.path}: malformed storage view {str(view)[:80]!r}")
            _vkey, voff, vsize = view
            if voff < 0 or vsize < 0 or voff + vsize > numel:
                raise InputError(f"{self.path}: storage view [{voff}, {voff + vsize}) lies outside storage "
                                 f"{key!r} of {numel} elements")
            return _Storage(key, stype, vsize, voff)
        return root


def _load_pickle(fh: Any, path: Path, storages: dict[str, _Storage], legacy: bool) -> Any:
    try:
        return _Unpickler(fh, path, storages, legacy).load()
    except InputError as e:
        msg = str(e)
        raise InputError(msg if msg.startswith(str(path)) else f"{path}: {msg}") from None
    except RecursionError:
        raise InputError(f"{path}: the pickle nests too deeply") from None
    except Exception as e:  # UnpicklingError, EOFError, ValueError, struct errors ...
        raise InputError(f"{path}: unreadable pickle: {type(e).__name__}: "
                         f"{' '.join(str(e).split())[:160]}") from None


def _flatten(obj: Any, prefix: str, out: dict[str, TensorRef], depth: int = 0) -> None:
    """Tensors of nested dicts (a checkpoint may hold {'state_dict': {...}, 'epoch': 3}) by dotted name."""
    if depth > 8:
        return
    if isinstance(obj, TensorRef):
        out[prefix] = obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(k, (str, int)) and not isinstance(k, bool):
                _flatten(v, f"{prefix}.{k}" if prefix else str(k), out, depth + 1)


class TorchCheckpoint(TensorTable):
    """A PyTorch state dict file whose tensors are read on demand (float types widened exactly)."""

    format = "pytorch"

    def __init__(self, path: str | os.PathLike) -> None:
        p = Path(path)
        self.path, self.files = p, [p]
        self.storages: dict[str, _Storage] = {}
        self._zip: Optional[zipfile.ZipFile] = None
        self._members: dict[str, zipfile.ZipInfo] = {}
        self._legacy_data: dict[str, int] = {}
        self._big = False
        self._bad: dict[str, str] = {}
        head = read_head(p, 16)
        size = p.stat().st_size
        if head[:4] == b"PK\x03\x04":
            root = self._open_zip(p)
        elif is_legacy_torch(head):
            root = self._open_legacy(p, size)
        else:
            raise InputError(f"{p}: not a PyTorch state dict (neither torch's zip layout nor its legacy stream)")
        self.tensors: dict[str, TensorRef] = {}
        _flatten(root, "", self.tensors)
        for name, t in self.tensors.items():
            if self._zip is not None and t.storage.key not in self._members:
                self._bad[t.storage.key] = (f"{p}: tensor {name!r} uses storage {t.storage.key!r}, which the "
                                            "archive lacks")

    def _open_zip(self, p: Path) -> Any:
        try:
            zf = zipfile.ZipFile(p)
            infos = zf.infolist()
        except (OSError, EOFError, zipfile.BadZipFile, ValueError) as e:
            raise InputError(f"{p}: not a readable zip archive: {' '.join(str(e).split())[:200]}") from None
        pkl = [i for i in infos if i.filename == "data.pkl" or i.filename.endswith("/data.pkl")]
        if len(pkl) != 1:
            raise InputError(f"{p}: a zip archive without exactly one data.pkl is no torch.save file")
        top = pkl[0].filename[: -len("data.pkl")]
        if any(i.filename == top + "constants.pkl" for i in infos):
            raise InputError(f"{p}: a TorchScript archive (code, not only weights); only state dicts are read")
        if pkl[0].file_size > MAX_PICKLE_BYTES:
            raise InputError(f"{p}: data.pkl declares {pkl[0].file_size} bytes, more than {MAX_PICKLE_BYTES}")
        for i in infos:
            if i.filename.startswith(top + "data/"):
                self._members[i.filename[len(top) + 5:]] = i
            if i.filename == top + "byteorder":
                order = zf.read(i)[:16]
                if order not in (b"little", b"big"):
                    raise InputError(f"{p}: unknown byte order {order!r}")
                self._big = order == b"big"
        try:
            raw = zf.read(pkl[0])
        except Exception as e:
            raise InputError(f"{p}: data.pkl unreadable: {' '.join(str(e).split())[:200]}") from None
        root = _load_pickle(io.BytesIO(raw), p, self.storages, legacy=False)
        for key, st in self.storages.items():
            info = self._members.get(key)
            if info is None:
                continue
            if info.file_size != st.numel * st.stype.itemsize:
                # only the tensors of this storage fail; the scan goes on with the others
                self._bad[key] = (f"{p}: storage {key!r} declares {st.numel} elements of {st.stype.dtype} "
                                  f"({st.numel * st.stype.itemsize} bytes), its archive member holds "
                                  f"{info.file_size}")
        self._zip = zf
        return root

    def _open_legacy(self, p: Path, size: int) -> Any:
        with open(p, "rb") as fh:
            magic = _load_pickle(fh, p, {}, legacy=True)
            proto = _load_pickle(fh, p, {}, legacy=True)
            if magic != LEGACY_MAGIC or proto != LEGACY_PROTOCOL:
                raise InputError(f"{p}: bad magic number or protocol in a legacy torch file")
            _load_pickle(fh, p, {}, legacy=True)  # sys_info: byte order and type sizes
            if fh.tell() > MAX_PICKLE_BYTES:  # pragma: no cover
                raise InputError(f"{p}: legacy header too long")
            root = _load_pickle(fh, p, self.storages, legacy=True)
            keys = _load_pickle(fh, p, {}, legacy=True)
            if not isinstance(keys, list) or not all(isinstance(k, (str, int)) for k in keys):
                raise InputError(f"{p}: the legacy storage key list is malformed")
            pos = fh.tell()
            for k in keys:
                k = str(k)
                st = self.storages.get(k)
                if st is None:
                    raise InputError(f"{p}: the legacy file lists storage {k!r}, which no tensor declared")
                fh.seek(pos)
                raw = fh.read(8)
                if len(raw) != 8:
                    raise InputError(f"{p}: truncated legacy file: storage {k!r} is missing")
                (count,) = struct.unpack("<q", raw)
                if count != st.numel:
                    raise InputError(f"{p}: storage {k!r} declares {st.numel} elements, its data says {count}")
                start = pos + 8
                end = start + count * st.stype.itemsize
                if end > size:
                    raise InputError(f"{p}: truncated legacy file: storage {k!r} needs bytes up to {end}, "
                                     f"the file has {size}")
                self._legacy_data[k] = start
                pos = end
        missing = sorted(set(self.storages) - set(self._legacy_data))
        if missing:
            raise InputError(f"{p}: storage {missing[0]!r} has no data in the legacy file")
        return root

    # ------------------------------------------------------------------ the checkpoint interface

    def dtype(self, name: str) -> str:
        """The stored element type."""
        return self.tensors[name].dtype

    def config(self) -> dict[str, Any]:
        """config.json beside the file, or {}."""
        return read_config(self.path.parent)

    def tensor(self, name: str) -> np.ndarray:
        """One tensor as float64 (float16/bfloat16/float32 widened exactly), checked finite."""
        t = self.tensors[name]
        if t.storage.key in self._bad:
            raise InputError(self._bad[t.storage.key])
        st = t.storage.stype
        if st.dtype not in _FLOATS:
            raise InputError(f"{self.path}: tensor {name!r} holds {st.dtype}, not floating-point weights")
        n = 1
        for s in t.shape:
            n *= s
        if n == 0:
            return np.zeros(t.shape)
        span = t.offset + sum((s - 1) * k for s, k in zip(t.shape, t.stride)) + 1 - t.offset
        fmt = (">" + st.fmt[1:]) if self._big and st.fmt[0] == "<" else st.fmt
        raw = self._read(t.storage.key, t.offset * st.itemsize, span * st.itemsize)
        flat = np.frombuffer(raw, dtype=fmt)
        view = np.lib.stride_tricks.as_strided(flat, shape=t.shape,
                                               strides=tuple(k * st.itemsize for k in t.stride))
        arr = np.array(view)
        if st.dtype == "bfloat16":
            arr = (arr.astype(np.uint32) << 16).view(np.float32)
        out = arr.astype(np.float64)
        if not np.all(np.isfinite(out)):
            raise InputError(f"{self.path}: tensor {name!r} contains NaN or Inf")
        return out

    def _read(self, key: str, start: int, length: int) -> bytes:
        try:
            if self._zip is not None:
                with self._zip.open(self._members[key]) as fh:
                    fh.seek(start)
                    raw = fh.read(length)
            else:
                with open(self.path, "rb") as fh:
                    fh.seek(self._legacy_data[key] + start)
                    raw = fh.read(length)
        except (OSError, zipfile.BadZipFile, ValueError, EOFError) as e:
            raise InputError(f"{self.path}: storage {key!r} unreadable: {' '.join(str(e).split())[:200]}") from None
        if len(raw) != length:
            raise InputError(f"{self.path}: storage {key!r} is truncated")
        return raw


def is_legacy_torch(head: bytes) -> bool:
    """The first bytes of torch's legacy stream: a protocol-2 pickle of the magic number."""
    return (len(head) >= 13 and head[:2] == b"\x80\x02" and head[2] == 0x8A and head[3] == 10
            and int.from_bytes(head[4:14], "little") == LEGACY_MAGIC)


def is_torch_zip(path: str | os.PathLike) -> bool:
    """A zip archive with a data.pkl record (torch.save's layout), judged from its directory only."""
    try:
        with zipfile.ZipFile(path) as zf:
            return any(n == "data.pkl" or n.endswith("/data.pkl") for n in zf.namelist())
    except (OSError, zipfile.BadZipFile, ValueError, EOFError):
        return False


# ---------------------------------------------------------------------- a writer (for tests)

def _pickle_state_dict(tensors: dict[str, np.ndarray], legacy: bool) -> tuple[bytes, list[tuple[str, np.ndarray]]]:
    """A protocol-2 pickle of an OrderedDict of tensors as torch.save writes it, opcode by opcode
    (torch is not needed to write it); returns the pickle and the storages in key order."""
    names = {np.dtype("<f4"): "FloatStorage", np.dtype("<f8"): "DoubleStorage", np.dtype("<f2"): "HalfStorage",
             np.dtype("i1"): "CharStorage", np.dtype("u1"): "ByteStorage", np.dtype("<i4"): "IntStorage",
             np.dtype("<i8"): "LongStorage"}
    out = bytearray(b"\x80\x02")

    def glob(mod: str, name: str) -> None:
        out.extend(b"c" + mod.encode() + b"\n" + name.encode() + b"\n")

    def uni(s: str) -> None:
        b = s.encode()
        out.extend(b"X" + struct.pack("<I", len(b)) + b)

    def integer(v: int) -> None:
        out.extend(b"J" + struct.pack("<i", v))

    def ints(vs: tuple[int, ...]) -> None:
        out.extend(b"(")
        for v in vs:
            integer(v)
        out.extend(b"t")

    storages = []
    glob("collections", "OrderedDict")
    out.extend(b")R")  # OrderedDict()
    out.extend(b"(")  # MARK for SETITEMS
    for k, (name, arr) in enumerate(tensors.items()):
        arr = np.ascontiguousarray(arr)
        key = str(k)
        uni(name)
        glob("torch._utils", "_rebuild_tensor_v2")
        out.extend(b"(")
        out.extend(b"(")  # persistent id tuple
        uni("storage")
        glob("torch", names[arr.dtype.newbyteorder("<")])
        uni(key)
        uni("cpu")
        integer(arr.size)
        if legacy:
            out.extend(b"N")
        out.extend(b"tQ")  # TUPLE, BINPERSID
        integer(0)
        ints(arr.shape)
        strides = []
        acc = 1
        for s in reversed(arr.shape):
            strides.append(acc)
            acc *= s
        ints(tuple(reversed(strides)))
        out.extend(b"\x89")  # False (requires_grad)
        glob("collections", "OrderedDict")
        out.extend(b")R")
        out.extend(b"tR")  # TUPLE, REDUCE
        storages.append((key, arr))
    out.extend(b"u.")  # SETITEMS, STOP
    return bytes(out), storages


def write_state_dict(path: str | os.PathLike, tensors: dict[str, np.ndarray], legacy: bool = False,
                     pickle_bytes: Optional[bytes] = None) -> None:
    """Write float arrays as a torch.save file (zip layout, or the legacy stream); ``pickle_bytes``
    replaces the state dict's pickle (the tests use it to plant payloads)."""
    data, storages = _pickle_state_dict(tensors, legacy)
    if pickle_bytes is not None:
        data = pickle_bytes
    p = Path(path)
    if not legacy:
        with zipfile.ZipFile(p, "w", compression=zipfile.ZIP_STORED) as zf:
            zf.writestr("archive/data.pkl", data)
            zf.writestr("archive/byteorder", "little")
            for key, arr in storages:
                zf.writestr(f"archive/data/{key}", arr.astype(arr.dtype.newbyteorder("<")).tobytes())
            zf.writestr("archive/version", "3\n")
        return
    with open(p, "wb") as fh:
        fh.write(pickle.dumps(LEGACY_MAGIC, protocol=2))
        fh.write(pickle.dumps(LEGACY_PROTOCOL, protocol=2))
        fh.write(pickle.dumps({"protocol_version": LEGACY_PROTOCOL, "little_endian": True,
                               "type_sizes": {"short": 2, "int": 4, "long": 4}}, protocol=2))
        fh.write(data)
        fh.write(pickle.dumps([k for k, _ in storages], protocol=2))
        for _, arr in storages:
            fh.write(struct.pack("<q", arr.size))
            fh.write(arr.astype(arr.dtype.newbyteorder("<")).tobytes())
