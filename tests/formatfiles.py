"""Small model files in GGUF, ONNX and PyTorch formats, written with each format's own writer
(gguf.GGUFWriter, onnx.helper, and torch's zip/pickle layout built by hand), for the tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import numpy as np

D, M = 4, 6


def ints(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Small dyadic weights (exact in every float format used here)."""
    return (rng.integers(-8, 9, shape) / 8).astype(np.float32)


def absorbable_pair(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(W_up m x d, W_down d x m) with W_down[:, S] W_up[S, :] = -I for S = the first d units."""
    U = np.vstack([np.eye(D), ints(rng, M - D, D)]).astype(np.float32)
    W = np.hstack([-np.eye(D), ints(rng, D, M - D)]).astype(np.float32)
    return U, W


# ---------------------------------------------------------------------- GGUF

def write_gguf(path: Path, arch: str, tensors: dict[str, Any], meta: Optional[dict[str, Any]] = None) -> Path:
    """tensors: name -> float array (stored as F32/F16 by its dtype) or (array, quant type name)."""
    from gguf import GGMLQuantizationType, GGUFWriter
    from gguf.quants import quantize

    w = GGUFWriter(str(path), arch)
    for k, v in (meta or {}).items():
        if isinstance(v, str):
            w.add_string(k, v)
        else:
            w.add_uint32(k, v)
    for name, v in tensors.items():
        if isinstance(v, tuple):
            arr, qname = v
            qt = GGMLQuantizationType[qname]
            q = quantize(np.asarray(arr, np.float32), qt)
            w.add_tensor(name, q, raw_shape=q.shape, raw_dtype=qt)
        else:
            w.add_tensor(name, np.asarray(v))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


# ---------------------------------------------------------------------- ONNX

def onnx_mlp(path: Path, blocks: list[dict[str, Any]], opset: int = 17, names: bool = True) -> Path:
    """A graph x -> [x + MLP_k(x)] for each block spec: {'up', 'down', optional 'gate', 'b_up',
    'b_down', 'act': 'erf_gelu' | 'tanh_gelu' | 'relu' | 'gelu_op' | 'silu' | 'gemm_relu' | ...}.
    Weights are stored [in, out] (MatMul), or [out, in] for Gemm with transB = 1."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits = [], []
    cur = "x"

    def init(name: str, arr: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def const(name: str, v: float) -> str:
        return init(name, np.array(v, np.float32))

    for k, b in enumerate(blocks):
        p = f"encoder.layer.{k}." if names else f"b{k}_"
        w_up = f"{p}intermediate.dense.weight" if names else f"onnx::MatMul_{100 + 2 * k}"
        w_dn = f"{p}output.dense.weight" if names else f"onnx::MatMul_{101 + 2 * k}"
        act = b["act"]

        def linear(inp: str, W: np.ndarray, wname: str, bias: Optional[np.ndarray], bname: str, out: str) -> str:
            if act.startswith("gemm"):
                args = [inp, init(wname, W)] + ([init(bname, bias)] if bias is not None else [])
                nodes.append(helper.make_node("Gemm", args, [out], transB=1, name=f"/{out}/Gemm"))
                return out
            nodes.append(helper.make_node("MatMul", [inp, init(wname, W.T.copy())], [out + "_mm"],
                                          name=f"/{out}/MatMul"))
            if bias is None:
                return out + "_mm"
            nodes.append(helper.make_node("Add", [init(bname, bias), out + "_mm"], [out]))
            return out

        h = linear(cur, b["up"], w_up, b.get("b_up"), f"{p}intermediate.dense.bias", f"h{k}")
        if "gate" in b:
            g = linear(cur, b["gate"], f"{p}gate.weight", None, "", f"g{k}")
            nodes.append(helper.make_node("Sigmoid", [g], [f"sg{k}"]))
            nodes.append(helper.make_node("Mul", [g, f"sg{k}"], [f"ag{k}"]))
            nodes.append(helper.make_node("Mul", [f"ag{k}", h], [f"a{k}"]))
        elif act in ("relu", "gemm_relu"):
            nodes.append(helper.make_node("Relu", [h], [f"a{k}"]))
        elif act == "gelu_op":
            nodes.append(helper.make_node("Gelu", [h], [f"a{k}"]))
        elif act == "silu":
            nodes.append(helper.make_node("Sigmoid", [h], [f"s{k}"]))
            nodes.append(helper.make_node("Mul", [h, f"s{k}"], [f"a{k}"]))
        elif act == "erf_gelu":
            nodes += [helper.make_node("Div", [h, const(f"sqrt2_{k}", np.sqrt(2.0))], [f"e0{k}"]),
                      helper.make_node("Erf", [f"e0{k}"], [f"e1{k}"]),
                      helper.make_node("Add", [f"e1{k}", const(f"one_{k}", 1.0)], [f"e2{k}"]),
                      helper.make_node("Mul", [h, f"e2{k}"], [f"e3{k}"]),
                      helper.make_node("Mul", [f"e3{k}", const(f"half_{k}", 0.5)], [f"a{k}"])]
        elif act == "tanh_gelu":
            nodes += [helper.make_node("Pow", [h, const(f"three_{k}", 3.0)], [f"t0{k}"]),
                      helper.make_node("Mul", [f"t0{k}", const(f"c_{k}", 0.044715)], [f"t1{k}"]),
                      helper.make_node("Add", [h, f"t1{k}"], [f"t2{k}"]),
                      helper.make_node("Mul", [f"t2{k}", const(f"s_{k}", np.sqrt(2 / np.pi))], [f"t3{k}"]),
                      helper.make_node("Tanh", [f"t3{k}"], [f"t4{k}"]),
                      helper.make_node("Add", [f"t4{k}", const(f"one_{k}", 1.0)], [f"t5{k}"]),
                      helper.make_node("Mul", [const(f"half_{k}", 0.5), h], [f"t6{k}"]),
                      helper.make_node("Mul", [f"t6{k}", f"t5{k}"], [f"a{k}"])]
        elif act == "tanh_only":  # not an MLP activation of the catalog
            nodes.append(helper.make_node("Tanh", [h], [f"a{k}"]))
        else:
            raise ValueError(act)
        o = linear(f"a{k}", b["down"], w_dn, b.get("b_down"), f"{p}output.dense.bias", f"o{k}")
        nodes.append(helper.make_node("Add", [o, cur], [f"y{k}"]))  # the skip connection
        cur = f"y{k}"
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", D])],
                              [helper.make_tensor_value_info(cur, TensorProto.FLOAT, ["n", D])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", max(opset, 20) if any(
        b["act"] == "gelu_op" for b in blocks) else opset)])
    onnx.save(model, str(path))
    return path


def quantized_weight(nodes: list, inits: list, name: str, W: np.ndarray, scheme: str,
                     rng: np.random.Generator) -> tuple[str, np.ndarray]:
    """Weight W [in, out] stored quantized and computed in the graph as exporters do:
    'cast_mul': Mul(Cast(int8 q, to=float), float32 scale) with one scale per tensor;
    'dql': DequantizeLinear(uint8 q, per-column float32 scale, uint8 zero point, axis=1);
    'dql_blocked': DequantizeLinear with block_size 3 along the rows (blocked quantization, opset 21).
    Returns the graph value holding the weight and the int array q (the scale is random)."""
    from onnx import TensorProto, helper, numpy_helper

    if scheme == "float":
        inits.append(numpy_helper.from_array(W.astype(np.float32), name))
        return name, W
    if scheme == "cast_mul":
        s = np.float32(np.abs(W).max() / 127 or 1.0) * np.float32(1 + rng.random() / 7)
        q = np.clip(np.round(W / s), -127, 127).astype(np.int8)
        inits += [numpy_helper.from_array(q, name + "_quantized"), numpy_helper.from_array(np.array(s, np.float32), name + "_scale")]
        nodes += [helper.make_node("Cast", [name + "_quantized"], [name + "_cast"], to=TensorProto.FLOAT),
                  helper.make_node("Mul", [name + "_cast", name + "_scale"], [name], name=name + "/Mul")]
        return name, q
    s = (np.abs(W).max(axis=0) / 100 + 1e-3).astype(np.float32) * np.float32(1.0 + rng.random() / 7)
    zp = rng.integers(120, 136, W.shape[1]).astype(np.uint8)
    q = np.clip(np.round(W / s) + zp, 0, 255).astype(np.uint8)
    inits += [numpy_helper.from_array(q, name + "_quantized"), numpy_helper.from_array(s, name + "_scale"),
              numpy_helper.from_array(zp, name + "_zero_point")]
    kw = {"axis": 1}
    if scheme == "dql_blocked":
        kw = {"axis": 0, "block_size": 3}  # blocks of 3 rows, the last one shorter
        nb = -(-W.shape[0] // 3)
        s2 = (np.repeat(s[None, :], nb, axis=0) * (1 + np.arange(nb) / 8)[:, None]).astype(np.float32)
        z2 = np.repeat(zp[None, :], nb, axis=0)
        inits[-2:] = [numpy_helper.from_array(s2, name + "_scale"), numpy_helper.from_array(z2, name + "_zero_point")]
    nodes.append(helper.make_node("DequantizeLinear", [name + "_quantized", name + "_scale", name + "_zero_point"],
                                  [name], name=name + "/DequantizeLinear", **kw))
    return name, q


def onnx_quantized_encoder(path: Path, layers: int, d: int, m: int, scheme: str, seed: int = 0,
                           attention: bool = True, mlp: bool = True) -> Path:
    """A MiniLM-like int8 encoder: per layer an attention-like pair of d x d MatMuls (x + (x Wv) Wo)
    and an MLP x + gelu(x W1 + b1) W2 + b2 (erf form, as the Hugging Face export writes it), every
    weight computed in the graph from quantized initializers (``quantized_weight``)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    nodes: list = []
    inits: list = []
    cur = "x"

    def c(name: str, v: float) -> str:
        inits.append(numpy_helper.from_array(np.array(v, np.float32), name))
        return name

    def mm(inp: str, W: np.ndarray, wname: str, out: str, b: Optional[np.ndarray] = None) -> str:
        w, _ = quantized_weight(nodes, inits, wname, W, scheme, rng)
        nodes.append(helper.make_node("MatMul", [inp, w], [out + "_mm"], name=f"{out}/MatMul"))
        if b is None:
            return out + "_mm"
        inits.append(numpy_helper.from_array(b.astype(np.float32), out + ".bias"))
        nodes.append(helper.make_node("Add", [out + ".bias", out + "_mm"], [out], name=f"{out}/Add"))
        return out

    for k in range(layers):
        p = f"/encoder/layer.{k}"
        if attention:
            v = mm(cur, rng.normal(size=(d, d)).astype(np.float32) / 4, f"{p}/attention/self/value/weight",
                   f"{p}/attention/self/value")
            o = mm(v, rng.normal(size=(d, d)).astype(np.float32) / 4, f"{p}/attention/output/dense/weight",
                   f"{p}/attention/output/dense")
            nodes.append(helper.make_node("Add", [o, cur], [f"{p}/att_out"]))
            cur = f"{p}/att_out"
        if not mlp:
            continue
        h = mm(cur, rng.normal(size=(d, m)).astype(np.float32) / 4, f"{p}/intermediate/dense/weight",
               f"{p}/intermediate/dense", rng.normal(size=m) / 8)
        nodes += [helper.make_node("Div", [h, c(f"{p}/sqrt2", np.sqrt(2.0))], [f"{p}/e0"]),
                  helper.make_node("Erf", [f"{p}/e0"], [f"{p}/e1"]),
                  helper.make_node("Add", [f"{p}/e1", c(f"{p}/one", 1.0)], [f"{p}/e2"]),
                  helper.make_node("Mul", [h, f"{p}/e2"], [f"{p}/e3"]),
                  helper.make_node("Mul", [f"{p}/e3", c(f"{p}/half", 0.5)], [f"{p}/gelu"])]
        o = mm(f"{p}/gelu", rng.normal(size=(m, d)).astype(np.float32) / 4, f"{p}/output/dense/weight",
               f"{p}/output/dense", rng.normal(size=d) / 8)
        nodes.append(helper.make_node("Add", [o, cur], [f"{p}/out"]))
        cur = f"{p}/out"
    graph = helper.make_graph(nodes, "encoder", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", d])],
                              [helper.make_tensor_value_info(cur, TensorProto.FLOAT, ["n", d])], inits)
    opset = 21 if scheme == "dql_blocked" else 17
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), str(path))
    return path
