"""ONNX models: the MLP blocks are found by following the graph, not by tensor names.

``onnx.load(..., load_external_data=False)`` parses the protobuf; nothing outside the file is
read then.  The graph is sorted topologically first (a graph with a cycle, or a value used but
never produced, is refused).  A block is

    x -> MatMul/Gemm(W1) (+ Add b1) -> activation -> MatMul/Gemm(W2) (+ Add b2)

or, gated, ``act(x W_gate (+ b)) * (x W_up (+ b))`` into the second product, where the W are
initializers (or Constant nodes).  The activation is a subgraph of elementwise operators with one
variable input and scalar constants: a single operator (Relu, Gelu, Sigmoid, ...) names it, a
decomposition (Erf-based gelu, tanh-based gelu, x * Sigmoid(x), ...) is identified by evaluating
the subgraph in float64 at many points and comparing it with the catalog's activations; the report
says which.  ``MatMul`` weights are stored [in, out] and are transposed to our [out, in]; ``Gemm``
with ``transB = 1`` stores [out, in] already.  External data files are read only from inside the
model's own directory, resolved against the model file (never the working directory);
``inline_external_data`` reads them all into the model (for scan --emit, which writes one file).
"""

from __future__ import annotations

import math
import os
from collections import defaultdict, deque
from pathlib import Path
from typing import Any, Optional

import numpy as np
import onnx
from onnx import numpy_helper

from oracle.core.errors import InputError
from oracle.core.formats import onnx_const
from oracle.core.io import read_config

# elementwise operators allowed inside an activation subgraph (no comparisons, no data-dependent
# selection: the subgraph is then a fixed formula in one variable)
_UNARY = {"Relu", "Sigmoid", "Tanh", "Erf", "Exp", "Neg", "Sqrt", "Abs", "Gelu", "FastGelu",
          "QuickGelu", "Identity", "Softplus", "HardSigmoid", "HardSwish", "Elu", "LeakyRelu",
          "Mish", "Cast"}
_BINARY = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"}
_MS_DOMAIN = "com.microsoft"

# how a single operator names an activation (ungated); Gelu's 'approximate' attribute refines it
_SINGLE = {"Relu": "relu", "Gelu": "gelu", "FastGelu": "gelu_tanh", "QuickGelu": "quick_gelu"}
# gate function -> gated catalog name
_GATED = {"silu": "swiglu", "gelu": "geglu", "gelu_tanh": "geglu_tanh", "relu": "reglu", "sigmoid": "glu"}

_FLOAT_TYPES = {1: ("float32", "<f4", 4), 10: ("float16", "<f2", 2), 11: ("float64", "<f8", 8),
                16: ("bfloat16", "<u2", 2)}
# integer element types an initializer may hold (quantized weights, zero points, shape constants)
_INT_TYPES = {2: ("uint8", "u1", 1), 3: ("int8", "i1", 1), 4: ("uint16", "<u2", 2), 5: ("int16", "<i2", 2),
              6: ("int32", "<i4", 4), 7: ("int64", "<i8", 8)}
_ALL_TYPES = {**_FLOAT_TYPES, **_INT_TYPES}


def _attr(node: Any, name: str, default: Any = None) -> Any:
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def _reference(name: str, z: np.ndarray) -> np.ndarray:
    """Catalog activations in float64 (for identifying a decomposed subgraph)."""
    from math import erf
    verf = np.vectorize(erf)
    if name == "relu":
        return np.maximum(z, 0.0)
    if name == "gelu":
        return 0.5 * z * (1.0 + verf(z / math.sqrt(2.0)))
    if name == "gelu_tanh":
        return 0.5 * z * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (z + 0.044715 * z ** 3)))
    if name == "silu":
        return z / (1.0 + np.exp(-z))
    if name == "quick_gelu":
        return z / (1.0 + np.exp(-1.702 * z))
    if name == "sigmoid":
        return 1.0 / (1.0 + np.exp(-z))
    raise KeyError(name)


# operators whose output depends on nothing but their attributes, yet differs between runs
_NONDETERMINISTIC = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
                     "Bernoulli"}
_ACT_Q = ("the graph multiplies activations that it rounds to integers at run time ({how}) by integer "
          "weights, so the layer computes W round(x / s) s: not a linear map of its input, and not the "
          "block x -> x + B(x) the analysis is about; refused")
# linear operators that compute on quantized activations -> the reason they are refused
_QUANTIZED_LINEAR = {
    "MatMulInteger": _ACT_Q.format(how="DynamicQuantizeLinear or QuantizeLinear, then MatMulInteger"),
    "QLinearMatMul": _ACT_Q.format(how="QuantizeLinear, then QLinearMatMul"),
    "ConvInteger": _ACT_Q.format(how="ConvInteger"),
    "QLinearConv": _ACT_Q.format(how="QLinearConv"),
    "com.microsoft.QGemm": _ACT_Q.format(how="com.microsoft.QGemm"),
    "com.microsoft.MatMulIntegerToFloat": _ACT_Q.format(how="com.microsoft.MatMulIntegerToFloat"),
    "com.microsoft.DynamicQuantizeMatMul": _ACT_Q.format(how="com.microsoft.DynamicQuantizeMatMul"),
    "com.microsoft.QAttention": _ACT_Q.format(how="com.microsoft.QAttention"),
    "com.microsoft.MatMulNBits": ("com.microsoft.MatMulNBits packs 2-8-bit weights in blocks, and onnxruntime may "
                                  "quantize the activations too (accuracy_level); this operator is not read; refused"),
    "com.microsoft.MatMulBnb4": "com.microsoft.MatMulBnb4 (4-bit weights) is not read; refused",
}
_QDQ_ACTIVATION = ("the input of this layer is rounded by QuantizeLinear -> DequantizeLinear (static "
                   "quantization of activations), so the block is not x -> x + B(x) with real arithmetic "
                   "between its layers; refused")

_IDENTIFIABLE = ("relu", "gelu", "gelu_tanh", "silu", "quick_gelu", "sigmoid")
SAMPLE_POINTS = np.concatenate([np.linspace(-8.0, 8.0, 1601), [-1e-3, 1e-3, 30.0, -30.0]])
MATCH_TOL = 2e-6  # float32 constants in the subgraph: a faithful export deviates ~1e-7


class ONNXModel:
    """An ONNX model whose initializers are read on demand and whose MLP blocks come from its graph."""

    format = "onnx"

    def __init__(self, path: str | os.PathLike) -> None:
        p = Path(path)
        self.path = p
        self.files = [p]
        self.base = p.resolve().parent
        try:
            size = p.stat().st_size
        except FileNotFoundError:
            raise InputError(f"{p}: no such file") from None
        except OSError as e:
            raise InputError(f"{p}: cannot read: {' '.join(str(e).split())[:200]}") from None
        if size == 0:
            raise InputError(f"{p}: empty file (0 bytes); not an ONNX model")
        try:
            self.model = onnx.load(str(p), load_external_data=False)
        except FileNotFoundError:
            raise InputError(f"{p}: no such file") from None
        except Exception as e:  # protobuf's DecodeError and friends
            raise InputError(f"{p}: not a readable ONNX model: {' '.join(str(e).split())[:200] or type(e).__name__}") from None
        self._check_complete()
        g = self.model.graph
        self.initializer_names = sorted(t.name for t in g.initializer)
        self.inits: dict[str, Any] = {}
        for t in g.initializer:
            if t.name in self.inits:
                raise InputError(f"{p}: ONNX initializer {t.name!r} appears twice")
            self.inits[t.name] = t
        self.nodes = list(g.node)
        self.producer: dict[str, int] = {}
        for i, n in enumerate(self.nodes):
            for o in n.output:
                if not o:
                    continue
                if o in self.producer or o in self.inits:
                    raise InputError(f"{p}: ONNX value {o!r} is produced twice")
                self.producer[o] = i
            if n.op_type == "Constant" and n.domain in ("", "ai.onnx") and len(n.output) == 1:
                t = _attr(n, "value")
                if t is not None and hasattr(t, "dims"):
                    self.inits.setdefault(n.output[0], t)
        self.consumers: dict[str, list[int]] = defaultdict(list)
        for i, n in enumerate(self.nodes):
            for v in n.input:
                if v:
                    self.consumers[v].append(i)
        self.order = self._toposort({v.name for v in g.input})
        self.position = {i: k for k, i in enumerate(self.order)}
        known = set(self.producer) | set(self.inits) | {v.name for v in g.input}
        for v in g.output:
            if v.name not in known:
                raise InputError(f"{p}: ONNX graph output {v.name!r} is produced by no node: a truncated or "
                                 "damaged model")
        self.constant = self._constant_values()
        self._arrays: dict[str, np.ndarray] = {}
        # weights computed in the graph from initializers (quantized exports): value name -> subgraph
        self.virtual: dict[str, Any] = {}
        self.virtual_errors: dict[str, str] = {}
        self.rounding: dict[str, dict[str, list[int]]] = {}

    def _check_complete(self) -> None:
        """Refuse a parse that is not a whole model: protobuf reads a file cut at a field boundary
        (or a file of other bytes) without complaint, so the parts every exported model has are
        required here: an IR version, an opset and a graph with nodes and outputs."""
        m, p = self.model, self.path
        if not m.HasField("graph") or not m.graph.node:
            raise InputError(f"{p}: not an ONNX model: it has no graph nodes (a truncated, empty or "
                             "damaged file)")
        if m.ir_version <= 0 or not m.opset_import:
            raise InputError(f"{p}: not a complete ONNX model: the IR version or the opset is missing "
                             "(a truncated or damaged file)")
        if not m.graph.output:
            raise InputError(f"{p}: not a complete ONNX model: the graph has no outputs (a truncated or "
                             "damaged file)")

    # ------------------------------------------------------------------ structure

    def _toposort(self, graph_inputs: set[str]) -> list[int]:
        """Node indices in dependency order; a cycle or an undefined value is refused."""
        known = set(graph_inputs) | set(self.inits)
        indeg = []
        for i, n in enumerate(self.nodes):
            k = 0
            for v in n.input:
                if not v or v in known and v not in self.producer:
                    continue
                if v not in self.producer:
                    raise InputError(f"{self.path}: ONNX node {n.name or n.op_type!r} uses value {v!r}, "
                                     "which no node, input or initializer defines")
                k += 1
            indeg.append(k)
        ready = deque(i for i, k in enumerate(indeg) if k == 0)
        order = []
        while ready:
            i = ready.popleft()
            order.append(i)
            for o in self.nodes[i].output:
                for j in self.consumers.get(o, ()):
                    # a node may use the same value twice: count each use
                    indeg[j] -= 1
                    if indeg[j] == 0:
                        ready.append(j)
        if len(order) != len(self.nodes):
            stuck = [self.nodes[i].name or self.nodes[i].op_type for i in range(len(self.nodes))
                     if indeg[i] > 0][:3]
            raise InputError(f"{self.path}: the ONNX graph has a cycle (through {', '.join(map(repr, stuck))}); "
                             "a model graph must be acyclic")
        return order

    def _const(self, v: str) -> Optional[np.ndarray]:
        """A small constant (initializer or Constant node) as float64, else None."""
        t = self.inits.get(v)
        if t is None or t.data_type not in _FLOAT_TYPES and t.data_type not in (6, 7):
            return None
        n = 1
        for d in t.dims:
            n *= d
        if n > 16:
            return None
        try:
            return self._array(v)
        except InputError:
            return None

    def _scalar(self, v: str) -> Optional[float]:
        a = self._const(v)
        if a is None or a.size != 1:
            return None
        return float(a.reshape(()))

    def _is_elementwise(self, n: Any) -> bool:
        if n.domain not in ("", "ai.onnx", _MS_DOMAIN):
            return False
        if n.op_type in _UNARY and len([v for v in n.input if v]) == 1:
            return True
        if n.op_type in _BINARY and len(n.input) == 2:
            # at most one variable operand; a constant operand must be a scalar
            consts = [v for v in n.input if v in self.inits]
            return all(self._scalar(v) is not None for v in consts)
        return False

    def _elementwise_region(self, out: str) -> tuple[Optional[str], list[int]]:
        """Walk back from ``out`` through elementwise nodes: (the one variable leaf, the nodes), or
        (None, []) when the region has no single variable leaf."""
        seen: set[int] = set()
        leaves: set[str] = set()
        stack = [out]
        while stack:
            v = stack.pop()
            if v in self.inits:
                continue
            i = self.producer.get(v)
            if i is None or not self._is_elementwise(self.nodes[i]) or self._is_bias_add(v):
                leaves.add(v)
                continue
            if i in seen:
                continue
            seen.add(i)
            stack.extend(x for x in self.nodes[i].input if x)
            if len(seen) > 64:
                return None, []
        if len(leaves) != 1:
            return None, []
        return next(iter(leaves)), sorted(seen, key=self.position.__getitem__)

    def _is_bias_add(self, v: str) -> bool:
        """Whether v is a linear layer's output plus its bias (an Add of a 1-d constant with as many
        entries as the layer has outputs).  With one output unit the bias has shape [1] and would
        pass for a scalar constant of the activation: the activation would then read gelu(z + c)
        instead of gelu at the layer's biased output."""
        i = self.producer.get(v)
        if i is None or self.nodes[i].op_type != "Add" or self.nodes[i].domain not in ("", "ai.onnx"):
            return False
        lin = self._linear(v)
        if lin is None or lin["b"] is None or lin["W"] in self.virtual_errors or lin["b"] in self.virtual_errors:
            return False
        shape = self.shape(lin["W"])
        outs = shape[1] if lin["transpose"] else shape[0]
        return int(np.prod(self.shape(lin["b"]), dtype=np.int64)) == outs

    def _evaluate(self, nodes: list[int], leaf: str, out: str, z: np.ndarray) -> np.ndarray:
        """Evaluate an elementwise region in float64 at the points z."""
        from math import erf
        verf = np.vectorize(erf, otypes=[float])
        env = {leaf: z}

        def get(v: str) -> np.ndarray:
            if v in env:
                return env[v]
            c = self._scalar(v)
            if c is None:
                raise InputError(f"{self.path}: ONNX value {v!r} is not a scalar constant")
            return np.float64(c)

        with np.errstate(all="ignore"):
            for i in nodes:
                n = self.nodes[i]
                a = [get(v) for v in n.input if v]
                op = n.op_type
                if op == "Relu":
                    r = np.maximum(a[0], 0.0)
                elif op == "Sigmoid":
                    r = 1.0 / (1.0 + np.exp(-a[0]))
                elif op == "Tanh":
                    r = np.tanh(a[0])
                elif op == "Erf":
                    r = verf(a[0])
                elif op == "Exp":
                    r = np.exp(a[0])
                elif op == "Neg":
                    r = -a[0]
                elif op == "Sqrt":
                    r = np.sqrt(a[0])
                elif op == "Abs":
                    r = np.abs(a[0])
                elif op in ("Identity", "Cast"):
                    r = a[0]
                elif op == "Gelu":
                    r = _reference("gelu_tanh" if _attr(n, "approximate", b"none") in (b"tanh", "tanh")
                                   else "gelu", a[0])
                elif op == "FastGelu":
                    r = _reference("gelu_tanh", a[0])
                elif op == "QuickGelu":
                    alpha = float(_attr(n, "alpha", 1.702))
                    r = a[0] / (1.0 + np.exp(-alpha * a[0]))
                elif op == "Softplus":
                    r = np.log1p(np.exp(a[0]))
                elif op == "HardSigmoid":
                    r = np.clip(float(_attr(n, "alpha", 0.2)) * a[0] + float(_attr(n, "beta", 0.5)), 0, 1)
                elif op == "HardSwish":
                    r = a[0] * np.clip(a[0] / 6 + 0.5, 0, 1)
                elif op == "Elu":
                    al = float(_attr(n, "alpha", 1.0))
                    r = np.where(a[0] > 0, a[0], al * (np.exp(a[0]) - 1))
                elif op == "LeakyRelu":
                    r = np.where(a[0] > 0, a[0], float(_attr(n, "alpha", 0.01)) * a[0])
                elif op == "Mish":
                    r = a[0] * np.tanh(np.log1p(np.exp(a[0])))
                elif op == "Add":
                    r = a[0] + a[1]
                elif op == "Sub":
                    r = a[0] - a[1]
                elif op == "Mul":
                    r = a[0] * a[1]
                elif op == "Div":
                    r = a[0] / a[1]
                elif op == "Pow":
                    r = np.power(a[0], a[1])
                elif op == "Max":
                    r = np.maximum(a[0], a[1])
                elif op == "Min":
                    r = np.minimum(a[0], a[1])
                else:  # pragma: no cover - _is_elementwise admits only the operators above
                    raise InputError(f"{self.path}: operator {op} cannot be evaluated")
                env[n.output[0]] = np.broadcast_to(r, z.shape).astype(np.float64)
        return env[out]

    def _identify(self, nodes: list[int], leaf: str, out: str) -> tuple[Optional[str], str]:
        """The catalog function an elementwise region computes, and how it was recognised (in words;
        self.identified keeps the same as fields: by operator, or by sampling with the operators
        and the deviation, for readers that must judge how strong the identification is)."""
        ops = [self.nodes[i].op_type for i in nodes]
        self.identified = {"by": "operator", "operators": ops}
        if len(nodes) == 1 and ops[0] in _SINGLE:
            n = self.nodes[nodes[0]]
            name = _SINGLE[ops[0]]
            if ops[0] == "Gelu" and _attr(n, "approximate", b"none") in (b"tanh", "tanh"):
                name = "gelu_tanh"
            if ops[0] == "QuickGelu" and abs(float(_attr(n, "alpha", 1.702)) - 1.702) > 1e-6:
                return None, f"QuickGelu with alpha {_attr(n, 'alpha')}"
            return name, f"ONNX operator {ops[0]}"
        if len(nodes) == 1 and ops[0] == "Sigmoid":
            return "sigmoid", "ONNX operator Sigmoid"
        self.identified = {"by": "sampling", "operators": ops, "points": int(SAMPLE_POINTS.size),
                           "max_relative_deviation": None}
        vals = self._evaluate(nodes, leaf, out, SAMPLE_POINTS)
        if not np.all(np.isfinite(vals)):
            return None, f"subgraph {'/'.join(ops)} is not finite on [-8, 8]"
        best, err = None, math.inf
        for name in _IDENTIFIABLE:
            e = float(np.max(np.abs(vals - _reference(name, SAMPLE_POINTS)) / (1.0 + np.abs(SAMPLE_POINTS))))
            if e < err:
                best, err = name, e
        desc = "/".join(ops)
        self.identified["max_relative_deviation"] = err
        if err <= MATCH_TOL:
            return best, (f"ONNX subgraph {desc}, identified as {best} by float64 evaluation at "
                          f"{SAMPLE_POINTS.size} points (max relative deviation {err:.1e})")
        return None, f"ONNX subgraph {desc} matches no catalog activation (nearest {best}, deviation {err:.1e})"

    def _linear(self, v: str) -> Optional[dict[str, Any]]:
        """If value v is ``x @ W (+ b)`` (MatMul/Gemm with a constant weight: an initializer, or a
        value the graph computes from initializers, as quantized exports do): its parts."""
        bias = None
        i = self.producer.get(v)
        if i is None:
            return None
        n = self.nodes[i]
        if n.op_type == "Add" and n.domain in ("", "ai.onnx"):
            ins = list(n.input)
            vec = [k for k in ins if self._const_vector(k)]
            other = [k for k in ins if k not in vec]
            if len(vec) != 1 or len(other) != 1:
                return None
            bias, v = vec[0], other[0]
            i = self.producer.get(v)
            if i is None:
                return None
            n = self.nodes[i]
        if n.domain not in ("", "ai.onnx"):
            return None
        if n.op_type == "MatMul" and len(n.input) == 2:
            x, w = n.input
            w, transposed = self._weight_source(w)
            if w is None or not self._is_matrix(w):
                return None
            # MatMul computes x @ W with W [in, out]; a Transpose node in between gives [out, in]
            return {"x": x, "W": w, "transpose": not transposed, "b": bias, "node": n, "index": i}
        if n.op_type == "Gemm" and len(n.input) >= 2:
            if (_attr(n, "transA", 0) != 0 or float(_attr(n, "alpha", 1.0)) != 1.0
                    or float(_attr(n, "beta", 1.0)) != 1.0):
                return None
            x, w = n.input[0], n.input[1]
            w, transposed = self._weight_source(w)
            if w is None or not self._is_matrix(w):
                return None
            trans_b = bool(_attr(n, "transB", 0)) != transposed
            c = n.input[2] if len(n.input) > 2 and n.input[2] else None
            if c is not None and bias is not None:
                return None
            if c is not None and not self._const_vector(c):
                return None
            return {"x": x, "W": w, "transpose": not trans_b, "b": c or bias, "node": n, "index": i}
        return None

    def _is_matrix(self, w: str) -> bool:
        """A 2-d weight (one whose subgraph cannot be read counts: the block is refused with the reason)."""
        return w in self.virtual_errors or len(self.shape(w)) == 2

    def _const_vector(self, v: str) -> bool:
        """A readable 1-d constant (a bias): an initializer or a value computed from initializers."""
        if v in self.inits:
            return len(self.inits[v].dims) == 1
        return self._computed(v) and v not in self.virtual_errors and len(self.shape(v)) == 1

    def _computed(self, v: str) -> bool:
        """Whether v is computed from initializers only; its subgraph is then recorded (read, or with
        the reason it cannot be read)."""
        if v in self.virtual or v in self.virtual_errors:
            return True
        if v not in self.constant or v in self.inits:
            return False
        try:
            self.virtual[v] = onnx_const.build(self, v)
        except onnx_const.Unreadable as e:
            self.virtual_errors[v] = str(e)
        return True

    def _weight_source(self, w: str) -> tuple[Optional[str], bool]:
        """A constant weight: an initializer, possibly behind a 2-d Transpose node (name, transposed),
        or a value the graph computes from initializers (name, False)."""
        if w in self.inits:
            return w, False
        i = self.producer.get(w)
        if i is not None:
            n = self.nodes[i]
            if n.op_type == "Transpose" and n.input and n.input[0] in self.inits:
                perm = list(_attr(n, "perm", [1, 0]) or [1, 0])
                if perm == [1, 0]:
                    return n.input[0], True
        if self._computed(w):
            return w, False
        return None, False

    def _constant_values(self) -> set[str]:
        """Values computed from initializers and Constant nodes alone (no graph input upstream)."""
        const = set(self.inits)
        for i in self.order:
            n = self.nodes[i]
            ins = [v for v in n.input if v]
            if ins and all(v in const for v in ins) and n.op_type not in _NONDETERMINISTIC:
                const.update(o for o in n.output if o)
        return const

    def refused_layers(self) -> list[dict[str, Any]]:
        """Linear layers this reader refuses, with the reason: operators that compute on quantized
        activations (the layer is then not a linear map of its input) and MatMul/Gemm nodes whose
        input the graph rounds through QuantizeLinear -> DequantizeLinear."""
        out = []
        for i in self.order:
            n = self.nodes[i]
            op = n.op_type if n.domain in ("", "ai.onnx") else f"{n.domain}.{n.op_type}"
            weight = next((v for v in n.input[1:] if v in self.inits and len(self.inits[v].dims) >= 2), None)
            if op in _QUANTIZED_LINEAR and weight is not None:
                out.append({"node": n.name or n.output[0], "op": op, "weight": weight,
                            "shape": list(self.shape(weight)), "reason": _QUANTIZED_LINEAR[op]})
            elif op in ("MatMul", "Gemm") and len(n.input) >= 2 and n.input[1] in self.constant:
                src = self.producer.get(n.input[0])
                if src is not None and self.nodes[src].op_type == "DequantizeLinear" \
                        and n.input[0] not in self.constant:
                    q = self.producer.get(self.nodes[src].input[0])
                    if q is not None and self.nodes[q].op_type in ("QuantizeLinear", "DynamicQuantizeLinear"):
                        w = n.input[1]
                        out.append({"node": n.name or n.output[0], "op": op, "weight": w,
                                    "shape": list(self.shape(w)) if w not in self.virtual_errors else None,
                                    "reason": _QDQ_ACTIVATION})
        return out

    def linear_layers(self) -> list[dict[str, Any]]:
        """Every MatMul/Gemm node with a constant weight: node name, weight value, shape (or the
        reason its weight cannot be read)."""
        out = []
        for i in self.order:
            n = self.nodes[i]
            if n.op_type not in ("MatMul", "Gemm") or n.domain not in ("", "ai.onnx") or len(n.input) < 2:
                continue
            w, _ = self._weight_source(n.input[1])
            if w is None:
                continue
            e: dict[str, Any] = {"node": n.name or n.output[0], "weight": w}
            if w in self.virtual_errors:
                e["error"] = self.virtual_errors[w]
            else:
                e["shape"] = list(self.shape(w))
            out.append(e)
        return out

    def blocks(self) -> list[dict[str, Any]]:
        """Every MLP block of the graph, in graph order, as a scan spec."""
        out = []
        for i in self.order:
            n = self.nodes[i]
            if n.op_type not in ("MatMul", "Gemm") or n.domain not in ("", "ai.onnx"):
                continue
            down = self._linear_at(i)
            if down is None:
                continue
            a = n.input[0]
            spec = self._ungated(a, down) or self._gated(a, down)
            if spec is not None:
                out.append(spec)
        for k, s in enumerate(out):
            s.setdefault("prefix", f"mlp.{k}")
        return out

    def _linear_at(self, i: int) -> Optional[dict[str, Any]]:
        """The linear map computed at node i and the bias Add after it, if any."""
        n = self.nodes[i]
        outv = n.output[0]
        cons = self.consumers.get(outv, [])
        if len(cons) == 1:
            m = self.nodes[cons[0]]
            if m.op_type == "Add":
                lin = self._linear(m.output[0])
                if lin is not None and lin["index"] == i:
                    return lin
        lin = self._linear(outv)
        return lin if lin is not None and lin["index"] == i else None

    def _ungated(self, a: str, down: dict[str, Any]) -> Optional[dict[str, Any]]:
        leaf, nodes = self._elementwise_region(a)
        if leaf is None or not nodes:
            return None
        up = self._linear(leaf)
        if up is None:
            return None
        act, src = self._identify(nodes, leaf, a)
        if act == "sigmoid":
            act, src = None, src + " (a sigmoid alone is not an MLP activation of the catalog)"
        return self._spec({"up": up, "down": down}, act, src, nodes)

    def _gated(self, a: str, down: dict[str, Any]) -> Optional[dict[str, Any]]:
        i = self.producer.get(a)
        if i is None or self.nodes[i].op_type != "Mul" or len(self.nodes[i].input) != 2:
            return None
        p, q = self.nodes[i].input
        for gate_out, up_v in ((p, q), (q, p)):
            up = self._linear(up_v)
            leaf, nodes = self._elementwise_region(gate_out)
            if up is None or leaf is None or not nodes:
                continue
            gate = self._linear(leaf)
            if gate is None or gate["x"] != up["x"]:
                continue
            f, src = self._identify(nodes, leaf, gate_out)
            act = _GATED.get(f) if f else None
            if f and act is None:
                src += f" ({f} is not a gate of the catalog)"
            return self._spec({"gate": gate, "up": up, "down": down}, act, src + " (gate)", nodes + [i])
        return None

    def _spec(self, parts: dict[str, dict[str, Any]], act: Optional[str], src: str,
              act_nodes: list[int]) -> Optional[dict[str, Any]]:
        if any(parts[r]["x"] != parts["up"]["x"] for r in parts if r != "down"):
            return None
        spec: dict[str, Any] = {
            "family": "onnx",
            "tensors": {r: parts[r]["W"] for r in parts},
            "biases": {"b_" + r: parts[r]["b"] for r in parts if parts[r]["b"]},
            "views": {r: ("T",) for r in parts if parts[r]["transpose"]},
            "activation": act, "activation_source": src,
            "activation_identified": dict(getattr(self, "identified", {})),
            "nodes": [parts[r]["node"].name for r in ("gate", "up", "down") if r in parts],
        }
        x = parts["up"]["x"]
        end = self.nodes[parts["down"]["index"]].output[0]
        if parts["down"]["b"] and parts["down"]["node"].op_type == "MatMul":
            end = self.nodes[self.consumers[end][0]].output[0]  # the bias Add after the MatMul
        spec["skip_in_graph"] = any(set(self.nodes[j].input) == {x, end} and self.nodes[j].op_type == "Add"
                                    for j in self.consumers.get(end, []))
        bad = [w for w in list(spec["tensors"].values()) + list(spec["biases"].values()) if w in self.virtual_errors]
        if bad:
            spec["error"] = (f"the graph computes weight {bad[0]!r} from initializers with "
                             f"{self.virtual_errors[bad[0]]}; refused")
        # the Hugging Face names, where the exporter kept them on the biases or the node names
        spec["hf_names"] = [v for v in list(spec["tensors"].values()) + list(spec["biases"].values())] + \
            [_node_path(parts[r]["node"].name) for r in parts]
        return spec

    # ------------------------------------------------------------------ the checkpoint interface

    def names(self) -> list[str]:
        """The graph's initializer names (sorted; Constant nodes are not counted, though blocks may
        use their values)."""
        return self.initializer_names

    def __contains__(self, name: str) -> bool:
        return name in self.inits or name in self.virtual

    def shape(self, name: str) -> tuple[int, ...]:
        """The declared shape of an initializer, or the shape the graph gives a computed weight."""
        if name in self.virtual:
            return tuple(self.virtual[name].shape)
        if name in self.virtual_errors:
            raise InputError(f"{self.path}: ONNX value {name!r}: {self.virtual_errors[name]}")
        return tuple(int(d) for d in self.inits[name].dims)

    def dtype(self, name: str) -> str:
        """The stored element type (float32, float16, bfloat16, float64, int8, ...); for a weight the
        graph computes, e.g. 'int8*scale' (integer storage) or its float type."""
        if name in self.virtual:
            e = self.virtual[name]
            ints = e.int_leaves()
            return f"{'/'.join(ints)}*scale" if ints else f"{e.dtype.name}(computed)"
        t = self.inits[name].data_type
        return _ALL_TYPES[t][0] if t in _ALL_TYPES else f"onnx type {t}"

    def float64_bytes(self, names: list[str]) -> int:
        """Bytes the named initializers (or computed weights) take as float64."""
        total = 0
        for n in names:
            total += 8 * int(np.prod(self.shape(n), dtype=np.int64))
        return total

    def config(self) -> dict[str, Any]:
        """config.json beside the model, or {}."""
        return read_config(self.path.parent)

    def tensor(self, name: str) -> np.ndarray:
        """An initializer as float64 (float16/bfloat16/float32 widened exactly), or a weight the graph
        computes from initializers, evaluated in the graph's own types (onnx_const), checked finite."""
        if name in self.virtual_errors:
            raise InputError(f"{self.path}: ONNX value {name!r}: {self.virtual_errors[name]}")
        if name in self.virtual:
            notes: dict[str, list[int]] = {}
            a = self.virtual[name].evaluate(self, notes).astype(np.float64)
            self.rounding[name] = notes
        else:
            a = self._array(name)
        if not np.all(np.isfinite(a)):
            raise InputError(f"{self.path}: ONNX {'value' if name in self.virtual else 'initializer'} {name!r} "
                             "contains NaN or Inf")
        return a

    def arithmetic(self, name: str) -> Optional[dict[str, Any]]:
        """How the graph computes a weight that it does not store (None for a stored one): the
        expression, and how many entries its float operations rounded (after ``tensor(name)``)."""
        if name not in self.virtual:
            return None
        e = self.virtual[name]
        out: dict[str, Any] = {"value": name, "expression": e.describe(), "element_type": e.dtype.name}
        for op, (r, n) in sorted(self.rounding.get(name, {}).items()):
            out.setdefault("rounded", {})[op] = {"rounded_entries": r, "entries": n}
        return out

    def type_name(self, t: int) -> str:
        """An ONNX element type number as its name (INT4, FLOAT8E4M3FN, ...)."""
        return _type_name(t)

    def _array(self, name: str) -> np.ndarray:
        if name in self._arrays:
            return self._arrays[name]
        if name in self.virtual:
            out = self.virtual[name].evaluate(self).astype(np.float64)
        else:
            out = self.raw(name).astype(np.float64)
        if out.size <= 16:
            self._arrays[name] = out
        return out

    def raw(self, name: str) -> np.ndarray:
        """An initializer in its stored element type (bfloat16 widened exactly to float32)."""
        t = self.inits[name]
        where = f"{self.path}: ONNX initializer {name!r}"
        if any(d < 0 for d in t.dims):
            raise InputError(f"{where}: negative dimension in {list(t.dims)}")
        n = 1
        for d in t.dims:
            n *= int(d)
        if t.data_type not in _ALL_TYPES:
            raise InputError(f"{where}: element type {_type_name(t.data_type)} is not read (float and "
                             "8/16/32/64-bit integer types are)")
        _, fmt, size = _ALL_TYPES[t.data_type]
        if t.HasField("segment"):
            raise InputError(f"{where}: segmented tensors are not read")
        if t.data_location == onnx.TensorProto.EXTERNAL:
            raw = self._external(t, n * size, where)
            arr = np.frombuffer(raw, dtype=fmt)
        elif t.HasField("raw_data"):
            if len(t.raw_data) != n * size:
                raise InputError(f"{where}: shape {list(t.dims)} needs {n * size} bytes, the tensor holds "
                                 f"{len(t.raw_data)}")
            arr = np.frombuffer(t.raw_data, dtype=fmt)
        else:
            try:
                arr = numpy_helper.to_array(t)
            except Exception as e:
                raise InputError(f"{where}: unreadable: {' '.join(str(e).split())[:200]}") from None
            if arr.size != n:
                raise InputError(f"{where}: shape {list(t.dims)} needs {n} values, the tensor holds {arr.size}")
            if t.data_type == 16:
                arr = np.asarray(arr).view("<u2") if arr.dtype.itemsize == 2 else arr
            else:
                arr = np.asarray(arr, dtype=fmt)
        if t.data_type == 16 and arr.dtype == np.dtype("<u2"):
            arr = (arr.astype(np.uint32) << 16).view(np.float32)
        return arr.reshape(tuple(int(d) for d in t.dims))

    def external_bytes(self) -> int:
        """Bytes the initializers stored in external data files take (0 when the model is one file)."""
        total = 0
        for t in self.model.graph.initializer:
            if t.data_location == onnx.TensorProto.EXTERNAL and t.data_type in _ALL_TYPES:
                total += int(np.prod([int(d) for d in t.dims], dtype=np.int64)) * _ALL_TYPES[t.data_type][2]
        return total

    def inline_external_data(self) -> int:
        """Read every initializer stored in an external data file into the model itself (from the
        model's own directory, whatever the working directory; the same checks as ``tensor``), so
        that the ModelProto no longer refers to any file; returns the number of tensors read."""
        n = 0
        for t in self.model.graph.initializer:
            if t.data_location != onnx.TensorProto.EXTERNAL:
                continue
            where = f"{self.path}: ONNX initializer {t.name!r}"
            if t.data_type not in _ALL_TYPES:
                raise InputError(f"{where}: element type {_type_name(t.data_type)} is not read (float and "
                                 "8/16/32/64-bit integer types are)")
            count = int(np.prod([int(d) for d in t.dims], dtype=np.int64))
            raw = self._external(t, count * _ALL_TYPES[t.data_type][2], where)
            del t.external_data[:]
            t.data_location = onnx.TensorProto.DEFAULT
            t.raw_data = raw
            n += 1
        return n

    def _external(self, t: Any, nbytes: int, where: str) -> bytes:
        """The bytes of an external-data tensor, from a file inside the model's own directory."""
        info = {e.key: e.value for e in t.external_data}
        loc = info.get("location", "")
        if not loc:
            raise InputError(f"{where}: external data without a location")
        target = (self.base / loc).resolve()
        if os.path.isabs(loc) or not target.is_relative_to(self.base):
            raise InputError(f"{where}: external data location {loc!r} leaves the model's directory "
                             f"{self.base}; refused")
        try:
            off = int(info.get("offset", "0"))
            length = int(info["length"]) if "length" in info else None
        except ValueError:
            raise InputError(f"{where}: external data offset/length are not integers") from None
        if not target.is_file():
            raise InputError(f"{where}: external data file {loc!r} does not exist beside the model")
        size = target.stat().st_size
        if length is None:
            length = nbytes
        if off < 0 or length != nbytes or off + length > size:
            raise InputError(f"{where}: external data [{off}, {off + length}) of {loc!r} does not hold the "
                             f"{nbytes} bytes of shape {list(t.dims)} (the file has {size})")
        with open(target, "rb") as fh:
            fh.seek(off)
            raw = fh.read(length)
        if len(raw) != length:  # pragma: no cover - the size was checked
            raise InputError(f"{where}: external data file {loc!r} is truncated")
        return raw


def _type_name(t: int) -> str:
    try:
        return onnx.TensorProto.DataType.Name(t)
    except ValueError:
        return f"type {t}"


def _node_path(name: str) -> str:
    """'/model/encoder/layer.0/intermediate/dense/MatMul' -> 'model.encoder.layer.0.intermediate.dense.weight'."""
    parts = [s for s in name.strip("/").split("/") if s]
    if len(parts) < 2:
        return ""
    return ".".join(parts[:-1]) + ".weight"


def is_onnx(path: str | os.PathLike) -> bool:
    """An .onnx file (ONNX has no magic number: the extension decides, parsing confirms)."""
    return Path(path).suffix.lower() == ".onnx"
