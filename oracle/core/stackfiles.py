"""Stack files: reading, validating and writing a stack of blocks.

Format (.npz, or .safetensors with the same names):

  arrays    ``W_up.<l>`` (m_l x d) and ``W_down.<l>`` (d x m_l) for every block l = 0 .. L-1,
            block 0 applied first; optionally ``W_gate.<l>``, ``b_up.<l>``, ``b_gate.<l>``,
            ``b_down.<l>`` and ``M.<l>`` (d x d skip of a residual block; absent = identity).
            Indices are decimal without leading zeros.
  metadata  ``kind``: ``residual_stack`` (x -> M_l x + B_l(x) per block) or ``plain_stack``;
            ``layers``: L as a decimal string (must match the indices present);
            ``activation``: a catalog name, shared by every block.
            In .npz files metadata are 0-d string arrays; in .safetensors the metadata map.

``read_stack(path)`` validates everything (unknown names, missing or extra indices, shapes,
NaN/Inf, pickles) and raises ``InputError`` with a one-line message.  The decision for a stack
is oracle/decide/stacks.py.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Optional

import numpy as np

from oracle.core import activations
from oracle.core.blocks import Block, Stack
from oracle.core.errors import InputError
from oracle.core.io import peek, read_arrays, write_arrays

STACK_KINDS = ("residual_stack", "plain_stack")
STACK_ARRAYS = ("W_up", "W_down", "W_gate", "b_up", "b_gate", "b_down", "M")
STACK_META = ("kind", "layers", "activation")
MAX_LAYERS = 4096
_KEY = re.compile(r"^([A-Za-z_]+)\.(0|[1-9][0-9]*)$")


# ================================================================ reading and writing

def _split_key(name: str, path: Path) -> tuple[str, int]:
    m = _KEY.match(name)
    if not m or m.group(1) not in STACK_ARRAYS:
        raise InputError(f"{path}: unknown array {name!r}; stack arrays are "
                         f"{', '.join(a + '.<l>' for a in STACK_ARRAYS)}")
    return m.group(1), int(m.group(2))


def _build_stack(arrays: dict[str, np.ndarray], meta: dict[str, str], path: Path) -> Stack:
    for k in ("kind", "layers", "activation"):
        if k not in meta:
            raise InputError(f"{path}: metadata {k!r} is missing (a stack file needs kind, layers, activation)")
    kind = meta["kind"]
    if kind not in STACK_KINDS:
        raise InputError(f"{path}: kind must be one of {', '.join(STACK_KINDS)}, got {kind!r}")
    if not re.fullmatch(r"[1-9][0-9]{0,5}", meta["layers"]):
        raise InputError(f"{path}: layers must be a positive decimal integer, got {meta['layers']!r}")
    L = int(meta["layers"])
    if L > MAX_LAYERS:
        raise InputError(f"{path}: layers = {L} exceeds the limit {MAX_LAYERS}")
    activations.get(meta["activation"])  # unknown activation -> InputError
    per: list[dict[str, np.ndarray]] = [{} for _ in range(L)]
    for name, arr in arrays.items():
        base, idx = _split_key(name, path)
        if idx >= L:
            raise InputError(f"{path}: array {name!r} has index {idx} but layers = {L}")
        if arr.dtype.kind not in "biuf":
            raise InputError(f"{path}: array {name!r} has non-numeric dtype {arr.dtype}")
        per[idx][base] = arr
    blocks = []
    for idx, rec in enumerate(per):
        for need in ("W_up", "W_down"):
            if need not in rec:
                raise InputError(f"{path}: block {idx} has no {need}.{idx}")
        try:
            blocks.append(Block(meta["activation"], kind="residual" if kind == "residual_stack" else "plain",
                                **rec))
        except InputError as e:
            raise InputError(f"{path}: block {idx}: {e}") from None
    try:
        return Stack(blocks)
    except InputError as e:
        raise InputError(f"{path}: {e}") from None


def read_stack(path: str | os.PathLike) -> Stack:
    """Read and validate a stack file; every defect raises InputError with a one-line message."""
    p = Path(path)
    # the container checks (member names and sizes, pickles, lying headers, the memory budget)
    # are io's; the stack-specific names and shapes are checked by _split_key and _build_stack
    arrays, meta = read_arrays(p, lambda key: _split_key(key, p), STACK_META)
    if len(arrays) > 8 * MAX_LAYERS:
        raise InputError(f"{p}: too many arrays ({len(arrays)})")
    return _build_stack(arrays, meta, p)


def stack_kind(stack: Stack) -> str:
    """'residual_stack' or 'plain_stack' (all blocks of a stack file share one kind)."""
    kinds = {b.kind for b in stack.blocks}
    if len(kinds) != 1:
        raise InputError("a stack mixes residual and plain blocks")
    return "residual_stack" if kinds == {"residual"} else "plain_stack"


def write_stack(stack: Stack, path: str | os.PathLike, fmt: Optional[str] = None) -> str:
    """Write a stack file ('npz' or 'safetensors', default from the extension); returns the format."""
    p = Path(path)
    fmt = fmt or ("safetensors" if p.suffix.lower() == ".safetensors" else "npz")
    if fmt not in ("npz", "safetensors"):
        raise InputError(f"unknown stack-file format {fmt!r}")
    acts = {b.activation for b in stack.blocks}
    if len(acts) != 1:
        raise InputError("a stack file holds one activation for all blocks")
    arrays: dict[str, np.ndarray] = {}
    for l, b in enumerate(stack.blocks):
        for name in STACK_ARRAYS:
            v = getattr(b, name)
            if v is not None:
                arrays[f"{name}.{l}"] = np.ascontiguousarray(np.asarray(v, dtype=np.float64))
    meta = {"kind": stack_kind(stack), "layers": str(len(stack.blocks)), "activation": acts.pop()}
    write_arrays(p, fmt, arrays, meta)
    return fmt


def is_stack_file(path: str | os.PathLike) -> bool:
    """True when the file's metadata says kind = residual_stack / plain_stack (or it names arrays
    like W_up.0): then `absorb check` should read it with read_stack instead of read_block."""
    names, kind = peek(path, "kind")
    return kind in STACK_KINDS or any(_KEY.match(k) for k in names)
