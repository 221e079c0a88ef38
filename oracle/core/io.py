"""Block files (.npz, .safetensors) and lazily opened model checkpoints.

Block files hold arrays ``W_up``, ``W_down`` and optionally
``W_gate``, ``b_up``, ``b_gate``, ``b_down``, ``M``; metadata ``activation`` and
``kind``, stored as 0-d string arrays in an .npz archive or in the metadata map
of a .safetensors file.  Pickles are never loaded: .npz archives are opened
with ``allow_pickle=False``, so an object array is refused before any of its
bytes are unpickled.  Every problem with a file becomes an ``InputError`` with a
one-line message, which the command line turns into exit status 2.
"""

from __future__ import annotations

import ctypes
import json
import os
import struct
import zipfile
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Sequence

import numpy as np

from oracle.core.blocks import Block
from oracle.core.errors import InputError

ARRAY_KEYS = ("W_up", "W_down", "W_gate", "b_up", "b_gate", "b_down", "M")
META_KEYS = ("activation", "kind", "rounded", "rounding_error")
# Metadata that tools such as torch add to every safetensors file; harmless.
_IGNORED_SAFETENSORS_META = ("format",)
FORMATS = ("npz", "safetensors")


def _one_line(e: BaseException) -> str:
    """An exception message squeezed onto one line (the CLI prints exactly one line)."""
    msg = " ".join(str(e).split())
    return msg[:300] if msg else type(e).__name__


def read_head(p: Path, n: int, directory: str = "") -> bytes:
    """The first n bytes of a file, or InputError in one line: no such file, a directory (``p: is
    a directory`` followed by ``directory``, when that is given), or the system's reason."""
    try:
        with open(p, "rb") as fh:
            return fh.read(n)
    except IsADirectoryError:
        if not directory:
            raise InputError(f"{p}: is a directory") from None
        raise InputError(f"{p}: is a directory, {directory}") from None
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except OSError as e:
        raise InputError(f"{p}: cannot read: {_one_line(e)}") from None


def detect_format(path: str | os.PathLike) -> str:
    """'npz' or 'safetensors' from the file's leading bytes (the extension is only a hint)."""
    p = Path(path)
    head = read_head(p, 9, directory="not a block file")
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


# ------------------------------------------------------------------ limits

_UNITS = {"": 1, "K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30, "T": 2 ** 40}
DEFAULT_MAX_MEMORY = 8 * 2 ** 30  # bytes of working memory one command may plan for
WORK_FACTOR = 4  # deciding a block holds the float64 arrays and about three times as much besides
DEFAULT_MAX_INFLATION = 16  # in-memory bytes per byte of file, beyond the fixed allowance
INFLATION_ALLOWANCE = 256 * 2 ** 20  # small files may always expand to this much
MAX_HEADER_BYTES = 100_000_000  # a safetensors JSON header longer than this is refused
MAX_META_CHARS = 4096  # a metadata string longer than this is refused


def _positive(var: str, text: str, num: str, kind: str) -> float:
    """float(num), read from the setting var=text, which must be a positive number (InputError
    saying that text is not ``kind`` otherwise)."""
    try:
        val = float(num)
    except ValueError:
        raise InputError(f"{var}={text!r} is not {kind}") from None
    if not val > 0:
        raise InputError(f"{var}={text!r} must be positive")
    return val


def _parse_bytes(text: str, var: str) -> int:
    t = text.strip().upper().rstrip("B").rstrip("I")
    unit = t[-1:] if t[-1:] in _UNITS and t[-1:] != "" else ""
    num = t[:-1] if unit else t
    return int(_positive(var, text, num, "a size (examples: 8G, 512M, 1000000)") * _UNITS[unit])


def max_memory() -> int:
    """The working-memory limit in bytes: ABSORB_MAX_MEMORY (e.g. 16G) or 8 GiB."""
    raw = os.environ.get("ABSORB_MAX_MEMORY")
    return DEFAULT_MAX_MEMORY if not raw else _parse_bytes(raw, "ABSORB_MAX_MEMORY")


def max_inflation() -> float:
    """Largest ratio of in-memory array bytes to file bytes (beyond 256 MiB): ABSORB_MAX_INFLATION or 16."""
    raw = os.environ.get("ABSORB_MAX_INFLATION")
    if not raw:
        return float(DEFAULT_MAX_INFLATION)
    return _positive("ABSORB_MAX_INFLATION", raw, raw, "a number")


_MALLOC_TUNED = False


def reuse_freed_memory() -> None:
    """Let glibc keep freed heap memory for reuse instead of returning it to the system at once.

    A scan frees a block's arrays and allocates arrays of the same sizes for the next block; by
    default glibc unmaps each freed array of more than a few MiB and the next block pays the page
    faults again (about as much system time as the dequantization itself on a GGUF model).  Arrays
    up to 128 MiB then come from the heap and up to min(1 GiB, ABSORB_MAX_MEMORY) of free heap is
    kept; the peak memory does not change.  Elsewhere than glibc this does nothing."""
    global _MALLOC_TUNED
    if _MALLOC_TUNED:
        return
    _MALLOC_TUNED = True
    try:
        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3  # glibc's mallopt parameter numbers
        libc.mallopt(m_trim_threshold, int(min(2 ** 30, max_memory())))
        libc.mallopt(m_mmap_threshold, 128 * 2 ** 20)
    except (OSError, AttributeError, ValueError, InputError):
        pass


def human_bytes(n: float) -> str:
    """A byte count for messages (binary units)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover


def check_budget(path: Path, float64_bytes: int, file_bytes: Optional[int]) -> None:
    """Refuse, before loading, arrays that would not fit the memory limits (see README: input limits)."""
    need = WORK_FACTOR * float64_bytes
    limit = max_memory()
    if need > limit:
        raise InputError(
            f"{path}: the arrays take {human_bytes(float64_bytes)} as float64 and deciding them needs "
            f"about {human_bytes(need)}, above the memory limit {human_bytes(limit)} "
            f"(set ABSORB_MAX_MEMORY, e.g. ABSORB_MAX_MEMORY={max(1, -(-need // 2 ** 30))}G, to raise it)")
    if file_bytes is not None:
        ratio = max_inflation()
        if float64_bytes > ratio * file_bytes + INFLATION_ALLOWANCE:
            raise InputError(
                f"{path}: the arrays declare {human_bytes(float64_bytes)} as float64 but the file has "
                f"{human_bytes(file_bytes)}: more than {ratio:g} times the file plus "
                f"{human_bytes(INFLATION_ALLOWANCE)} (a compressed archive that inflates this much is "
                f"refused; set ABSORB_MAX_INFLATION to raise the factor)")


def _declared_bytes(shape: tuple[int, ...], itemsize: int) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n * itemsize


# ------------------------------------------------------------------ block files

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
                         f"allowed: {', '.join(ARRAY_KEYS + META_KEYS)}")
    for need in ("W_up", "W_down"):
        if need not in arrays:
            raise InputError(f"{path}: required array {need!r} is missing")
    if "activation" not in meta:
        raise InputError(f"{path}: metadata 'activation' is missing")
    kind = meta.get("kind", "residual")
    for name, arr in arrays.items():
        if arr.dtype.kind not in "biuf":
            raise InputError(f"{path}: array {name!r} has non-numeric dtype {arr.dtype}")
    try:
        return Block(meta["activation"], kind=kind, **arrays)
    except InputError as e:
        raise InputError(f"{path}: {e}") from None


def _npy_header(fh: Any, key: str, path: Path) -> tuple[tuple[int, ...], np.dtype, int]:
    """Shape, dtype and header length of one .npy member, read without loading its data."""
    fmt = np.lib.format
    version = fmt.read_magic(fh)
    if version == (1, 0):
        shape, _fortran, dtype = fmt.read_array_header_1_0(fh)
    elif version == (2, 0):
        shape, _fortran, dtype = fmt.read_array_header_2_0(fh)
    else:
        raise InputError(f"{path}: array {key!r} uses .npy format version {version}; 1.0 and 2.0 are read")
    if any(not isinstance(s, int) or s < 0 for s in shape):
        raise InputError(f"{path}: array {key!r} declares an invalid shape {shape}")
    return tuple(shape), dtype, fh.tell()


def _npz_arrays(path: Path, array_key: Callable[[str], None], meta_keys: Sequence[str]
                ) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The arrays and metadata strings of an .npz archive, read member by member with every
    header checked (names, dtypes, declared sizes, the memory budget) before any data is loaded.
    ``array_key(key)`` raises InputError for a member name that is neither metadata nor allowed."""
    try:
        zf = zipfile.ZipFile(path)
    except (OSError, EOFError, zipfile.BadZipFile, ValueError) as e:
        raise InputError(f"{path}: not a readable .npz archive: {_one_line(e)}") from None
    with zf:
        members: dict[str, zipfile.ZipInfo] = {}
        for info in zf.infolist():
            name = info.filename
            if not name.endswith(".npy") or info.is_dir():
                raise InputError(f"{path}: archive member {name!r} is not a .npy array "
                                 "(an .npz block file holds NAME.npy members only)")
            key = name[:-4]
            if key in members:
                raise InputError(f"{path}: archive member {name!r} appears twice")
            if key not in meta_keys:
                array_key(key)
            members[key] = info
        # pass 1: headers only (shapes, dtypes, sizes); nothing large is allocated
        headers: dict[str, tuple[tuple[int, ...], np.dtype]] = {}
        total = 0
        for key, info in members.items():
            try:
                with zf.open(info) as fh:
                    shape, dtype, hlen = _npy_header(fh, key, path)
            except InputError:
                raise
            except Exception as e:  # bad magic, malformed header dict, truncated member, CRC ...
                raise InputError(f"{path}: array {key!r} unreadable: {_one_line(e)}") from None
            if dtype.hasobject:
                raise InputError(f"{path}: array {key!r} has an object dtype, which would need "
                                 "unpickling; pickles are never loaded")
            if dtype.fields is not None or dtype.subdtype is not None:
                raise InputError(f"{path}: array {key!r} has a structured dtype {dtype}")
            nbytes = _declared_bytes(shape, dtype.itemsize)
            if info.file_size - hlen != nbytes:
                raise InputError(f"{path}: array {key!r} declares shape {shape} of {dtype} "
                                 f"({nbytes} bytes) but its member holds {info.file_size - hlen} bytes")
            if key in meta_keys:
                if shape != () or dtype.kind not in "US" or dtype.itemsize > 4 * MAX_META_CHARS:
                    raise InputError(f"{path}: metadata {key!r} must be a short 0-d string array, "
                                     f"got dtype {dtype} and shape {shape}")
            else:
                total += _declared_bytes(shape, max(8, dtype.itemsize))
            headers[key] = (shape, dtype)
        check_budget(path, total, path.stat().st_size)
        # pass 2: the data, each array exactly as large as its checked header says
        arrays: dict[str, np.ndarray] = {}
        meta: dict[str, str] = {}
        for key, info in members.items():
            try:
                with zf.open(info) as fh:
                    arr = np.lib.format.read_array(fh, allow_pickle=False)
            except Exception as e:
                raise InputError(f"{path}: array {key!r} unreadable: {_one_line(e)}") from None
            if arr.shape != headers[key][0]:  # pragma: no cover - read_array follows the header
                raise InputError(f"{path}: array {key!r} changed shape while reading")
            if key in meta_keys:
                meta[key] = _meta_string(key, arr, path)
            else:
                arrays[key] = arr
    return arrays, meta


def _block_array_key(path: Path) -> Callable[[str], None]:
    def check(key: str) -> None:
        if key not in ARRAY_KEYS:
            raise InputError(f"{path}: unknown array {key!r}; allowed: "
                             f"{', '.join(ARRAY_KEYS + META_KEYS)}")
    return check


# ------------------------------------------------------------------ safetensors

# safetensors dtype -> (numpy dtype of the stored bytes, bytes per element)
_ST_DTYPES: dict[str, tuple[str, int]] = {
    "F64": ("<f8", 8), "F32": ("<f4", 4), "F16": ("<f2", 2), "BF16": ("<u2", 2),
    "I64": ("<i8", 8), "I32": ("<i4", 4), "I16": ("<i2", 2), "I8": ("i1", 1),
    "U64": ("<u8", 8), "U32": ("<u4", 4), "U16": ("<u2", 2), "U8": ("u1", 1), "BOOL": ("?", 1)}
_ST_NAMES = {"F64": "float64", "F32": "float32", "F16": "float16", "BF16": "bfloat16",
             "I64": "int64", "I32": "int32", "I16": "int16", "I8": "int8", "U64": "uint64",
             "U32": "uint32", "U16": "uint16", "U8": "uint8", "BOOL": "bool"}


def no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A json object_pairs_hook that refuses a key given twice (ValueError) instead of keeping
    the last one silently."""
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


class SafetensorsFile:
    """One .safetensors file with a fully validated header; tensors are read on demand, exactly.

    Checked before any tensor is read: the header length is within the file and
    below 100 MB; the header is a JSON object without duplicate keys; every tensor
    has a known dtype, a shape of non-negative integers and data offsets inside the
    data section whose length matches the shape; tensors do not overlap; metadata
    is a map of strings.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        p = Path(path)
        self.path = p
        try:
            size = p.stat().st_size
            with open(p, "rb") as fh:
                raw = fh.read(8)
                if len(raw) != 8:
                    raise InputError(f"{p}: truncated .safetensors header")
                (n,) = struct.unpack("<Q", raw)
                if n > min(MAX_HEADER_BYTES, size - 8):
                    raise InputError(f"{p}: .safetensors header length {n} exceeds the file "
                                     f"({size} bytes) or the limit of {MAX_HEADER_BYTES} bytes")
                text = fh.read(n)
            header = json.loads(text, object_pairs_hook=no_duplicate_keys)
        except InputError:
            raise
        except (OSError, ValueError, RecursionError) as e:
            raise InputError(f"{p}: unreadable .safetensors header: {_one_line(e)}") from None
        if not isinstance(header, dict):
            raise InputError(f"{p}: .safetensors header is not a JSON object")
        self.data_start = 8 + n
        data_len = size - self.data_start
        meta = header.pop("__metadata__", None) or {}
        if not isinstance(meta, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in meta.items()):
            raise InputError(f"{p}: .safetensors metadata must map strings to strings")
        self.metadata: dict[str, str] = meta
        self.info: dict[str, tuple[str, tuple[int, ...], int, int]] = {}
        spans = []
        for name, info in header.items():
            where = f"{p}: tensor {name!r}"
            if not isinstance(info, dict):
                raise InputError(f"{where}: header entry is not an object")
            dt = info.get("dtype")
            if dt not in _ST_DTYPES:
                raise InputError(f"{where}: dtype {dt!r} is not supported "
                                 f"(known: {', '.join(_ST_DTYPES)})")
            shape = info.get("shape")
            if (not isinstance(shape, list)
                    or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape)):
                raise InputError(f"{where}: shape {shape!r} is not a list of non-negative integers")
            offs = info.get("data_offsets")
            if (not isinstance(offs, list) or len(offs) != 2
                    or not all(isinstance(o, int) and not isinstance(o, bool) for o in offs)
                    or not 0 <= offs[0] <= offs[1] <= data_len):
                raise InputError(f"{where}: data offsets {offs!r} lie outside the data section "
                                 f"(0..{data_len})")
            need = _declared_bytes(tuple(shape), _ST_DTYPES[dt][1])
            if offs[1] - offs[0] != need:
                raise InputError(f"{where}: shape {shape} of {dt} needs {need} bytes, "
                                 f"the offsets give {offs[1] - offs[0]}")
            self.info[name] = (dt, tuple(shape), offs[0], offs[1])
            spans.append((offs[0], offs[1], name))
        spans.sort()
        for (a0, a1, an), (b0, b1, bn) in zip(spans, spans[1:]):
            if b0 < a1:
                raise InputError(f"{p}: tensors {an!r} and {bn!r} overlap in the data section")

    def names(self) -> list[str]:
        """Tensor names (sorted)."""
        return sorted(self.info)

    def shape(self, name: str) -> tuple[int, ...]:
        """The declared (and validated) shape."""
        return self.info[name][1]

    def dtype(self, name: str) -> str:
        """The stored dtype, in numpy spelling (bfloat16 for BF16)."""
        return _ST_NAMES[self.info[name][0]]

    def float64_bytes(self, name: str) -> int:
        """Bytes of the tensor once widened to float64."""
        return _declared_bytes(self.info[name][1], 8)

    def raw(self, name: str) -> np.ndarray:
        """The tensor in its stored numeric type (bfloat16 widened exactly to float32)."""
        dt, shape, start, end = self.info[name]
        count = (end - start) // _ST_DTYPES[dt][1]
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.data_start + start)
                arr = np.fromfile(fh, dtype=_ST_DTYPES[dt][0], count=count)
        except (OSError, ValueError) as e:
            raise InputError(f"{self.path}: tensor {name!r} unreadable: {_one_line(e)}") from None
        if arr.size != count:
            raise InputError(f"{self.path}: tensor {name!r} is truncated")
        if dt == "BF16":
            # the 16 bits of a bfloat16 are the top half of a float32: widening is exact
            arr = (arr.astype(np.uint32) << 16).view(np.float32)
        return arr.reshape(shape)


def _safetensors_arrays(path: Path, array_key: Callable[[str], None], meta_keys: Sequence[str]
                        ) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The tensors and metadata of a .safetensors file, its header validated and the memory
    budget checked before any tensor is read; ``array_key`` refuses unknown tensor names."""
    f = SafetensorsFile(path)
    for key in f.names():
        array_key(key)
    raw_meta = f.metadata
    unknown = sorted(set(raw_meta) - set(meta_keys) - set(_IGNORED_SAFETENSORS_META))
    if unknown:
        raise InputError(f"{path}: unknown metadata key(s) {', '.join(unknown)}; "
                         f"allowed: {', '.join(meta_keys)}")
    check_budget(path, sum(f.float64_bytes(k) for k in f.names()), path.stat().st_size)
    arrays = {key: f.raw(key) for key in f.names()}
    return arrays, {k: raw_meta[k] for k in meta_keys if k in raw_meta}


def read_arrays(path: str | os.PathLike, array_key: Callable[[str], None], meta_keys: Sequence[str]
                ) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Validated arrays and metadata of an .npz or .safetensors file (for other file kinds built
    on the same container checks, e.g. stack files); ``array_key`` refuses unknown names."""
    p = Path(path)
    fmt = detect_format(p)
    return (_npz_arrays if fmt == "npz" else _safetensors_arrays)(p, array_key, meta_keys)


def peek(path: str | os.PathLike, meta_key: str) -> tuple[list[str], Optional[str]]:
    """The array names of a file and one metadata string, read from the headers only."""
    p = Path(path)
    if detect_format(p) == "safetensors":
        f = SafetensorsFile(p)
        return f.names(), f.metadata.get(meta_key)
    try:
        with zipfile.ZipFile(p) as zf:
            names = [i.filename[:-4] for i in zf.infolist() if i.filename.endswith(".npy")]
            value = None
            info = next((i for i in zf.infolist() if i.filename == meta_key + ".npy"), None)
            if info is not None and info.file_size <= 4 * MAX_META_CHARS + 256:
                with zf.open(info) as fh:
                    arr = np.lib.format.read_array(fh, allow_pickle=False)
                if arr.ndim == 0 and arr.dtype.kind in "US":
                    value = _meta_string(meta_key, arr, p)
    except InputError:
        raise
    except Exception as e:
        raise InputError(f"{p}: not a readable .npz archive: {_one_line(e)}") from None
    return names, value


def read_block(path: str | os.PathLike) -> Block:
    """Read and validate a block file; any defect raises InputError with a one-line message."""
    return read_labelled_block(path)[0]


def read_labelled_block(path: str | os.PathLike) -> tuple[Block, dict[str, str]]:
    """A block file's block and its rounding labels: the metadata ``rounded`` (the arrays that hold
    a float64 rounding of exact values) and ``rounding_error`` (the stated bound), when present."""
    p = Path(path)
    if detect_format(p) == "npz":
        arrays, meta = _npz_arrays(p, _block_array_key(p), META_KEYS)
    else:
        def check(key: str) -> None:
            if key not in ARRAY_KEYS:
                raise InputError(f"{p}: unknown tensor {key!r}; allowed: {', '.join(ARRAY_KEYS)}")
        arrays, meta = _safetensors_arrays(p, check, META_KEYS)
    return _build(arrays, meta, p), {k: meta[k] for k in ("rounded", "rounding_error") if meta.get(k)}


def rounding_labels(lab_r: dict[str, str], lab_p: dict[str, str]) -> dict[str, dict[str, str]]:
    """The rounding labels (read_labelled_block) of a residual and a plain block file, by role;
    empty when neither carries one.  absorb witness states them, absorb recheck compares them."""
    return {role: lab for role, lab in (("residual", lab_r), ("plain", lab_p)) if lab}


def format_for_output(out: str | os.PathLike, default: str) -> str:
    """The format to write: from the output's extension, else the given default."""
    suffix = Path(out).suffix.lower()
    if suffix == ".npz":
        return "npz"
    if suffix == ".safetensors":
        return "safetensors"
    return default


def write_block(block: Block, path: str | os.PathLike, fmt: Optional[str] = None,
                rounded: Optional[str] = None, rounding_error: Optional[str] = None) -> str:
    """Write a block file in 'npz' or 'safetensors' (default: from the extension); returns the format.

    ``rounded`` names arrays that hold a float64 rounding of exact values (metadata
    ``rounded``), so a reader knows the file is not the exact block; ``rounding_error`` states
    the bound on those entries' errors (metadata ``rounding_error``).
    """
    p = Path(path)
    fmt = fmt or format_for_output(p, "npz")
    if fmt not in FORMATS:
        raise InputError(f"unknown block-file format {fmt!r}; known: {', '.join(FORMATS)}")
    data = block.to_dict()
    arrays = {k: np.ascontiguousarray(np.asarray(v, dtype=np.float64))
              for k, v in data.items() if k in ARRAY_KEYS}
    meta = {k: str(data[k]) for k in META_KEYS if k in data}
    if rounded:
        meta["rounded"] = rounded
    if rounding_error:
        meta["rounding_error"] = rounding_error
    write_arrays(p, fmt, arrays, meta)
    return fmt


def write_arrays(path: Path, fmt: str, arrays: dict[str, np.ndarray], meta: dict[str, str]) -> None:
    """Write float arrays and metadata strings as .npz (0-d string arrays) or .safetensors."""
    try:
        if fmt == "npz":
            # np.savez appends ".npz" to names without it; write through a handle to keep the name
            with open(path, "wb") as fh:
                np.savez(fh, **arrays, **{k: np.array(v) for k, v in meta.items()})
        else:
            from safetensors.numpy import save_file

            save_file(arrays, str(path), metadata=meta)
    except OSError as e:
        raise InputError(f"{path}: cannot write: {_one_line(e)}") from None


# ------------------------------------------------------------------ checkpoints

def read_config(directory: Path) -> dict[str, Any]:
    """config.json in a directory (Hugging Face layout), or {} when absent, too large or unreadable."""
    cfg = Path(directory) / "config.json"
    try:
        if not cfg.is_file() or cfg.stat().st_size > 10_000_000:
            return {}
        doc = json.loads(cfg.read_text())
        return doc if isinstance(doc, dict) else {}
    except (OSError, ValueError, RecursionError):
        return {}


class Checkpoint:
    """A .safetensors checkpoint (a file, or a directory of shards) whose tensors are read on demand."""

    format = "safetensors"

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
        self._where: dict[str, SafetensorsFile] = {}
        for f in files:
            st = SafetensorsFile(f)
            for name in st.names():
                if name in self._where:
                    raise InputError(f"{f}: tensor {name!r} is also in {self._where[name].path}")
                self._where[name] = st

    def names(self) -> list[str]:
        """All tensor names (sorted)."""
        return sorted(self._where)

    def __contains__(self, name: str) -> bool:
        return name in self._where

    def shape(self, name: str) -> tuple[int, ...]:
        """Shape of a tensor, from the (validated) header only."""
        return self._where[name].shape(name)

    def dtype(self, name: str) -> str:
        """The stored dtype (safetensors spelling mapped to numpy names)."""
        return self._where[name].dtype(name)

    def float64_bytes(self, names: list[str]) -> int:
        """Bytes the named tensors take once widened to float64."""
        return sum(self._where[n].float64_bytes(n) for n in names)

    def config(self) -> dict[str, Any]:
        """config.json next to the checkpoint (Hugging Face layout), or {} when absent or unreadable."""
        return read_config(self.path if self.path.is_dir() else self.path.parent)

    def tensor(self, name: str) -> np.ndarray:
        """Load one tensor as float64 (bfloat16 widened exactly), checking that it is finite."""
        f = self._where[name]
        out = f.raw(name).astype(np.float64)
        if not np.all(np.isfinite(out)):
            raise InputError(f"{f.path}: tensor {name!r} contains NaN or Inf")
        return out

    def iter_names(self) -> Iterator[str]:
        """Tensor names in sorted order."""
        yield from self.names()
