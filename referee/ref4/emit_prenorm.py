"""Referee round 4, piece A: pre-norm layouts (h + B(norm(h))) with the norm as one
LayerNormalization node and as a decomposed RMSNorm (ReduceMean/Sqrt/Div/Mul, as older exports
write it): --emit must refuse with the pre-norm reason, exit 2.
Usage: .venv/bin/python referee/ref4/emit_prenorm.py"""
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = Path(__file__).resolve().parents[2]
rng = np.random.default_rng(2)
d, m = 3, 5
W1, b1 = rng.integers(-2, 3, (d, m)).astype(np.float32), rng.integers(-2, 3, m).astype(np.float32)
W2, b2 = rng.integers(-2, 3, (m, d)).astype(np.float32), rng.integers(-2, 3, d).astype(np.float32)


def graph(decomposed):
    I = [numpy_helper.from_array(a, n) for a, n in ((W1, "w1"), (b1, "b1"), (W2, "w2"), (b2, "b2"),
         (np.ones(d, np.float32), "g"), (np.zeros(d, np.float32), "bb"), (np.array(2.0, np.float32), "two"),
         (np.array(1e-5, np.float32), "eps"), (np.array(np.sqrt(2), np.float32), "sq2"),
         (np.array(1.0, np.float32), "one"), (np.array(0.5, np.float32), "half"))]
    N = []
    if decomposed:
        N += [helper.make_node("Pow", ["h", "two"], ["p"]),
              helper.make_node("ReduceMean", ["p"], ["ms"], axes=[-1], keepdims=1),
              helper.make_node("Add", ["ms", "eps"], ["mse"]), helper.make_node("Sqrt", ["mse"], ["rms"]),
              helper.make_node("Div", ["h", "rms"], ["hn"]), helper.make_node("Mul", ["hn", "g"], ["x"])]
    else:
        N.append(helper.make_node("LayerNormalization", ["h", "g", "bb"], ["x"], axis=-1))
    N += [helper.make_node("MatMul", ["x", "w1"], ["u0"]), helper.make_node("Add", ["u0", "b1"], ["u"]),
          helper.make_node("Div", ["u", "sq2"], ["e0"]), helper.make_node("Erf", ["e0"], ["e1"]),
          helper.make_node("Add", ["e1", "one"], ["e2"]), helper.make_node("Mul", ["u", "e2"], ["e3"]),
          helper.make_node("Mul", ["e3", "half"], ["a"]),
          helper.make_node("MatMul", ["a", "w2"], ["o0"]), helper.make_node("Add", ["o0", "b2"], ["o"]),
          helper.make_node("Add", ["h", "o"], ["y"])]
    g = helper.make_graph(N, "pre", [helper.make_tensor_value_info("h", TensorProto.FLOAT, ["b", "s", d])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", "s", d])], I)
    mdl = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    mdl.ir_version = 8
    return mdl


with tempfile.TemporaryDirectory() as t:
    for dec in (False, True):
        p = Path(t) / f"pre{dec}.onnx"
        onnx.save_model(graph(dec), str(p))
        r = subprocess.run([sys.executable, "-m", "oracle.cli", "scan", str(p), "--emit", str(Path(t) / f"o{dec}.onnx")],
                           capture_output=True, text=True, cwd=ROOT)
        print("decomposed RMSNorm" if dec else "LayerNormalization", "exit", r.returncode, "|",
              r.stderr.strip().splitlines()[-1][:260], "| written:", (Path(t) / f"o{dec}.onnx").exists())
