"""Referee round 4, piece A: weight orientations: Gemm with transB = 0 ([in, out]) and MatMul
reading its weight through a Transpose node (stored [out, in]); the output must match end to end.
Usage: .venv/bin/python referee/ref4/emit_orient.py"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

ROOT = Path(__file__).resolve().parents[2]
rng = np.random.default_rng(9)
d, m = 3, 5
U = rng.integers(-2, 3, (m, d)).astype(np.float32); c = rng.integers(-2, 3, m).astype(np.float32)
W = rng.integers(-2, 3, (d, m)).astype(np.float32); e = rng.integers(-2, 3, d).astype(np.float32)
act = lambda i, o: [helper.make_node("Gelu", [i], [o])]


def model(kind):
    I, N = [], []
    if kind == "gemm_transB0":
        I += [numpy_helper.from_array(U.T.copy(), "w1"), numpy_helper.from_array(c, "b1"),
              numpy_helper.from_array(W.T.copy(), "w2"), numpy_helper.from_array(e, "b2")]
        N += [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"]), *act("h", "a"),
              helper.make_node("Gemm", ["a", "w2", "b2"], ["o"])]
        shape = ["n", d]
    else:
        I += [numpy_helper.from_array(U, "w1"), numpy_helper.from_array(c, "b1"),
              numpy_helper.from_array(W, "w2"), numpy_helper.from_array(e, "b2")]
        N += [helper.make_node("Transpose", ["w1"], ["w1t"], perm=[1, 0]),
              helper.make_node("MatMul", ["x", "w1t"], ["h0"]), helper.make_node("Add", ["b1", "h0"], ["h"]), *act("h", "a"),
              helper.make_node("Transpose", ["w2"], ["w2t"], perm=[1, 0]),
              helper.make_node("MatMul", ["a", "w2t"], ["o0"]), helper.make_node("Add", ["b2", "o0"], ["o"])]
        shape = ["b", "s", d]
    N.append(helper.make_node("Add", ["o", "x"], ["y"]))
    g = helper.make_graph(N, kind, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], I)
    mdl = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
    mdl.ir_version = 9
    return mdl, shape


with tempfile.TemporaryDirectory() as t:
    for kind in ("gemm_transB0", "matmul_via_transpose"):
        mdl, shape = model(kind)
        p, q = Path(t) / f"{kind}.onnx", Path(t) / f"{kind}_c.onnx"
        onnx.save_model(mdl, str(p))
        r = subprocess.run([sys.executable, "-m", "oracle.cli", "scan", str(p), "--emit", str(q), "--json"],
                           capture_output=True, text=True, cwd=ROOT)
        if r.returncode != 0:
            print(kind, "exit", r.returncode, r.stderr.strip().splitlines()[-1][:200]); continue
        b = json.loads(r.stdout)["compiled"]["blocks"][0]
        x = (rng.standard_normal((4, d) if shape[0] == "n" else (2, 3, d)) * 10).astype(np.float32)
        ya = ort.InferenceSession(str(p)).run(None, {"x": x})[0]
        yb = ort.InferenceSession(str(q)).run(None, {"x": x})[0]
        print(kind, "exit 0", b["construction"], b["width_before"], "->", b["width_after"],
              "relative difference %.1e" % (np.max(np.abs(ya - yb)) / np.max(np.abs(ya))),
              "Transpose nodes left:", sum(n.op_type == "Transpose" for n in onnx.load(str(q)).graph.node))
