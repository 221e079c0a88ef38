"""Weights that an ONNX graph computes from its initializers, evaluated the way the graph does.

Quantized exports rarely store float weights.  A weight-only int8 export stores ``q`` (int8) and a
scale ``s`` (float32) and computes the weight in the graph, e.g. ``Mul(Cast(q, to=float32), s)``
or ``DequantizeLinear(q, s, zero_point)``.  The weight the model multiplies by is the value of
that small constant subgraph, and it is *rounded*: the product of an int8 and a float32 needs up
to 31 significant bits and the graph keeps 24.  This module evaluates such a subgraph in the
graph's own element types with numpy, whose float32 ``+ - * /`` are IEEE-754 operations rounded to
nearest, ties to even, which is also what onnxruntime's CPU kernels compute for these operators
(``tests/test_scan_quantized.py`` compares the two bit for bit).  The result is a float32 (or
float16/float64) array: exact dyadic rationals, which the scan widens exactly to float64.  Where
the exact product is representable in float64 (an 8- or 16-bit integer times a float32) the
evaluation also counts how many entries the graph rounded, so the report can say it.

Operators read: ``Identity``, ``Cast`` (to a float type), ``Mul``, ``Add``, ``Sub``, ``Div`` (float
operands of one type, numpy broadcasting = ONNX multidirectional broadcasting), ``Transpose`` and
``DequantizeLinear`` (8/16/32-bit integers, per-tensor, per-axis or blocked scale and zero point;
4-bit and float8 types are refused with the reason).  Anything else in a weight's constant
subgraph makes the weight unreadable, and the scan refuses the layer with the operator named.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from oracle.core.errors import InputError

__all__ = ["CONST_OPS", "ConstExpr", "Leaf", "Unreadable", "build"]

CONST_OPS = ("Identity", "Cast", "Mul", "Add", "Sub", "Div", "Transpose", "DequantizeLinear")
MAX_NODES = 32  # a weight's constant subgraph larger than this is not followed

# ONNX element type number -> numpy dtype (the types a readable weight subgraph may hold)
NP_TYPES = {1: np.dtype(np.float32), 10: np.dtype(np.float16), 11: np.dtype(np.float64),
            2: np.dtype(np.uint8), 3: np.dtype(np.int8), 4: np.dtype(np.uint16), 5: np.dtype(np.int16),
            6: np.dtype(np.int32), 7: np.dtype(np.int64)}
_FLOATS = (np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64))
_QUANT_INTS = (np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int16), np.dtype(np.uint16),
               np.dtype(np.int32))


class Unreadable(Exception):
    """A constant subgraph this module does not evaluate (the message says which operator, and why)."""


@dataclass
class Leaf:
    """An initializer (or Constant node) at the bottom of a weight's subgraph."""

    name: str
    dtype: np.dtype
    shape: tuple[int, ...]
    bf16: bool = False  # stored as bfloat16 (read widened exactly to float32)

    def evaluate(self, model: Any, notes: dict[str, list[int]]) -> np.ndarray:
        """The stored values in their own element type."""
        return model.raw(self.name)

    def describe(self) -> str:
        return f"{self.name} ({'bfloat16' if self.bf16 else self.dtype.name} {list(self.shape)})"

    def int_leaves(self) -> list[str]:
        return [self.dtype.name] if self.dtype.kind in "iu" else []

    def ops(self) -> list[str]:
        return []


@dataclass
class ConstExpr:
    """One operator of a weight's constant subgraph, with its inputs (operators or leaves)."""

    name: str  # the value this node produces
    op: str
    inputs: list[Any]
    dtype: np.dtype
    shape: tuple[int, ...]
    attrs: dict[str, Any] = field(default_factory=dict)

    def evaluate(self, model: Any, notes: Optional[dict[str, list[int]]] = None) -> np.ndarray:
        """The value in the graph's element type, computed as the operator defines it; ``notes``
        collects [rounded, counted] entries per operator kind where the rounding can be counted."""
        notes = {} if notes is None else notes
        a = [x.evaluate(model, notes) if x is not None else None for x in self.inputs]
        with np.errstate(all="ignore"):  # an overflow to inf is refused later by the finiteness check
            if self.op == "Identity":
                out = a[0]
            elif self.op == "Cast":
                out = a[0].astype(self.dtype)
            elif self.op == "Transpose":
                out = np.transpose(a[0], self.attrs["perm"])
            elif self.op in ("Mul", "Add", "Sub", "Div"):
                fn = {"Mul": np.multiply, "Add": np.add, "Sub": np.subtract, "Div": np.divide}[self.op]
                out = fn(a[0], a[1], dtype=self.dtype)
                if self.op == "Mul" and self.dtype == np.float32:
                    # the product of two float32 is exact in float64: count what float32 rounded
                    exact = np.multiply(a[0].astype(np.float64), a[1].astype(np.float64))
                    _count(notes, "Mul", exact, out)
            elif self.op == "DequantizeLinear":
                out = self._dequantize(a)
                q = a[0]
                if self.dtype == np.float32 and q.dtype.itemsize <= 2:
                    # (q - zp) has at most 17 bits, the scale 24: exact in float64
                    zp = self._along_axis(a[2], q.ndim).astype(np.float64) if len(a) > 2 and a[2] is not None else 0.0
                    exact = (q.astype(np.float64) - zp) * self._along_axis(a[1], q.ndim).astype(np.float64)
                    _count(notes, "DequantizeLinear", exact, out)
            else:  # pragma: no cover - build() admits only CONST_OPS
                raise Unreadable(f"operator {self.op}")
        if out.shape != self.shape or out.dtype != self.dtype:  # pragma: no cover - build() inferred both
            raise InputError(f"ONNX value {self.name!r}: evaluated to {out.dtype} {out.shape}, expected "
                             f"{self.dtype} {self.shape}")
        return out

    def _along_axis(self, v: np.ndarray, ndim: int) -> np.ndarray:
        """A per-tensor (one value), per-axis (1-d) or blocked (same rank as the data, one entry per
        block of ``block_size`` along the axis) quantization parameter, shaped to broadcast."""
        bs = self.attrs.get("block_size", 0)
        if bs:
            ax = self.attrs["axis"]
            return np.repeat(v, bs, axis=ax)[tuple(slice(0, n) for n in self.shape)]
        if v.size == 1:
            return v.reshape(())
        shape = [1] * ndim
        shape[self.attrs["axis"]] = v.size
        return v.reshape(shape)

    def _dequantize(self, a: list[Optional[np.ndarray]]) -> np.ndarray:
        # the zero point is an optional third input (absent: 0)
        q, scale, zp = a[0], a[1], (a[2] if len(a) > 2 else None)
        s = self._along_axis(scale, q.ndim)
        diff = q.astype(np.int64)
        if zp is not None:
            diff = diff - self._along_axis(zp, q.ndim).astype(np.int64)
        # onnxruntime: static_cast<float>(int32(q) - int32(zp)) * scale, each step rounded to nearest
        return np.multiply(diff.astype(self.dtype), s.astype(self.dtype), dtype=self.dtype)

    def describe(self) -> str:
        inner = ", ".join(x.describe() for x in self.inputs if x is not None)
        if self.op == "Cast":
            return f"Cast({inner} to {self.dtype.name})"
        if self.op == "Transpose":
            return f"Transpose({inner}, perm={list(self.attrs['perm'])})"
        if self.op == "DequantizeLinear" and self.attrs.get("block_size"):
            return f"DequantizeLinear({inner}, axis={self.attrs['axis']}, block_size={self.attrs['block_size']})"
        if self.op == "DequantizeLinear" and len(self.inputs) > 1 and self.inputs[1] is not None \
                and int(np.prod(self.inputs[1].shape)) > 1:
            return f"DequantizeLinear({inner}, axis={self.attrs['axis']})"
        return f"{self.op}({inner})"

    def int_leaves(self) -> list[str]:
        return sorted({t for x in self.inputs if x is not None for t in x.int_leaves()})

    def ops(self) -> list[str]:
        return sorted({self.op, *(o for x in self.inputs if x is not None for o in x.ops())})


def _count(notes: dict[str, list[int]], key: str, exact: np.ndarray, out: np.ndarray) -> None:
    c = notes.setdefault(key, [0, 0])
    c[0] += int(np.count_nonzero(exact != out.astype(np.float64)))
    c[1] += int(exact.size)


def _attr(node: Any, name: str, default: Any = None) -> Any:
    import onnx

    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def build(model: Any, v: str, budget: Optional[list[int]] = None) -> Any:
    """The constant subgraph that computes value ``v`` from initializers, as a tree of ConstExpr and
    Leaf; raises Unreadable (with the reason) when it uses an operator or a type not read here."""
    budget = [MAX_NODES] if budget is None else budget
    if v in model.inits:
        t = model.inits[v]
        bf16 = t.data_type == 16
        dt = np.dtype(np.float32) if bf16 else NP_TYPES.get(t.data_type)
        if dt is None:
            raise Unreadable(f"initializer {v!r} has element type {model.type_name(t.data_type)}, which is not "
                             "read (float and 8/16/32/64-bit integer types are)")
        return Leaf(v, dt, tuple(int(d) for d in t.dims), bf16)
    i = model.producer.get(v)
    if i is None:
        raise Unreadable(f"value {v!r} is a graph input, not a constant")
    n = model.nodes[i]
    budget[0] -= 1
    if budget[0] < 0:
        raise Unreadable(f"the constant subgraph of {v!r} has more than {MAX_NODES} operators")
    op = n.op_type if n.domain in ("", "ai.onnx") else f"{n.domain}.{n.op_type}"
    if op not in CONST_OPS:
        raise Unreadable(f"operator {op} (node {n.name or v!r}) is not read")
    ins = [build(model, x, budget) if x else None for x in n.input]
    if op == "Identity":
        return ConstExpr(v, op, ins, ins[0].dtype, ins[0].shape)
    if op == "Cast":
        to = int(_attr(n, "to", 0))
        dt = NP_TYPES.get(to)
        if dt not in _FLOATS:
            raise Unreadable(f"Cast to {model.type_name(to)} (node {n.name or v!r}): only casts to a float "
                             "type are read")
        return ConstExpr(v, op, ins, dt, ins[0].shape)
    if op == "Transpose":
        perm = list(_attr(n, "perm", list(range(len(ins[0].shape)))[::-1]))
        if sorted(perm) != list(range(len(ins[0].shape))):
            raise Unreadable(f"Transpose with perm {perm} of a {len(ins[0].shape)}-d value")
        return ConstExpr(v, op, ins, ins[0].dtype, tuple(ins[0].shape[k] for k in perm), {"perm": perm})
    if op in ("Mul", "Add", "Sub", "Div"):
        if len(ins) != 2 or ins[0] is None or ins[1] is None:
            raise Unreadable(f"{op} (node {n.name or v!r}) without two operands")
        if ins[0].dtype != ins[1].dtype or ins[0].dtype not in _FLOATS:
            raise Unreadable(f"{op} of {ins[0].dtype.name} and {ins[1].dtype.name} (node {n.name or v!r}): "
                             "only float operands of one type are read")
        try:
            shape = tuple(np.broadcast_shapes(ins[0].shape, ins[1].shape))
        except ValueError:
            raise Unreadable(f"{op} of shapes {list(ins[0].shape)} and {list(ins[1].shape)} does not "
                             "broadcast") from None
        return ConstExpr(v, op, ins, ins[0].dtype, shape)
    # DequantizeLinear
    block_size = int(_attr(n, "block_size", 0) or 0)
    q, scale = ins[0], ins[1] if len(ins) > 1 else None
    zp = ins[2] if len(ins) > 2 else None
    if scale is None or q.dtype not in _QUANT_INTS or scale.dtype not in _FLOATS:
        raise Unreadable(f"DequantizeLinear of {q.dtype.name} with a "
                         f"{scale.dtype.name if scale is not None else 'missing'} scale (node {n.name or v!r}): "
                         "8/16/32-bit integers with a float scale are read")
    if zp is not None and zp.dtype != q.dtype:
        raise Unreadable(f"DequantizeLinear zero point of type {zp.dtype.name} for {q.dtype.name} data")
    axis = int(_attr(n, "axis", 1))
    nd = len(q.shape)
    if nd and not -nd <= axis < nd:
        raise Unreadable(f"DequantizeLinear axis {axis} of a {nd}-d value")
    axis = axis % nd if nd else 0
    for p in (scale, zp):
        if p is None:
            continue
        size = int(np.prod(p.shape))
        if block_size:
            # blocked quantization (opset 21): the parameter has the data's rank, and along the axis
            # one entry per block of block_size elements (the last block may be shorter)
            want = tuple(-(-q.shape[k] // block_size) if k == axis else q.shape[k] for k in range(nd))
            if block_size < 0 or tuple(p.shape) != want:
                raise Unreadable(f"DequantizeLinear with block_size {block_size}: parameter of shape "
                                 f"{list(p.shape)} for data of shape {list(q.shape)} along axis {axis} "
                                 f"(expected {list(want)})")
        elif size != 1 and (len(p.shape) != 1 or not nd or size != q.shape[axis]):
            raise Unreadable(f"DequantizeLinear parameter of shape {list(p.shape)} for data of shape "
                             f"{list(q.shape)} along axis {axis}")
    attrs = {"axis": axis, **({"block_size": block_size} if block_size else {})}
    return ConstExpr(v, "DequantizeLinear", ins, scale.dtype, q.shape, attrs)
