"""Referee round 4, piece A: try to break ``absorb scan CHECKPOINT --emit OUT``.

Each case builds a small ONNX graph with onnx.helper, runs the installed command as a user does
(``python -m oracle.cli scan SRC --emit OUT --json``), and then checks independently:
  * exit 0: the written model runs in onnxruntime and matches the original on random inputs
    (including large-magnitude inputs, which the command's own check does not draw), the widths
    reported equal the units counted in the written graph, and each block's float32 bound holds;
  * exit 2: one line on stderr, no traceback.
Usage: .venv/bin/python referee/ref4/emit_attack.py [CASE ...]   (prints one line per case)
"""
from __future__ import annotations

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


def build(path, layers, d, act="erf_gelu", dtype=np.float32, opset=17, ln=True, skip="x",
          out_extra=None, gemm=False, opset_ln_decomposed=False, external=False, share=False, twice=False,
          extra_outputs=(), bias_after_skip=False):
    nodes, inits = [], []
    tt = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16, np.float64: TensorProto.DOUBLE}[dtype]

    def init(name, arr, dt=None):
        inits.append(numpy_helper.from_array(np.asarray(arr, dtype=dt or dtype), name))
        return name

    cur = "x"
    outs = []
    for k, L in enumerate(layers):
        p = f"l{k}_"
        x = cur
        wname = "w1" if share else p + "w1"
        w2name = "w2" if share else p + "w2"
        if not share or k == 0:
            init(wname, L["up"].T.copy() if not gemm else L["up"].copy())
            init(w2name, L["down"].T.copy() if not gemm else L["down"].copy())
        if gemm:
            nodes.append(helper.make_node("Gemm", [x, wname] + ([init(p + "b1", L["b_up"])] if L.get("b_up") is not None else []),
                                          [p + "h"], transB=1, name=p + "up"))
        else:
            if L.get("b_up") is not None:
                nodes.append(helper.make_node("MatMul", [x, wname], [p + "h_mm"], name=p + "up"))
                nodes.append(helper.make_node("Add", [p + "h_mm", init(p + "b1", L["b_up"])], [p + "h"], name=p + "up_bias"))
            else:
                nodes.append(helper.make_node("MatMul", [x, wname], [p + "h"], name=p + "up"))
        h = p + "h"
        c = lambda nm, v: init(p + nm, np.array(v))
        if act == "erf_gelu":
            nodes += [helper.make_node("Div", [h, c("sqrt2", np.sqrt(2.0))], [p + "e0"]),
                      helper.make_node("Erf", [p + "e0"], [p + "e1"]),
                      helper.make_node("Add", [p + "e1", c("one", 1.0)], [p + "e2"]),
                      helper.make_node("Mul", [h, p + "e2"], [p + "e3"]),
                      helper.make_node("Mul", [p + "e3", c("half", 0.5)], [p + "a"])]
        elif act == "erf_gelu_clip40":  # min(gelu(z), 40): equal to gelu on [-8, 8] and at 30
            nodes += [helper.make_node("Div", [h, c("sqrt2", np.sqrt(2.0))], [p + "e0"]),
                      helper.make_node("Erf", [p + "e0"], [p + "e1"]),
                      helper.make_node("Add", [p + "e1", c("one", 1.0)], [p + "e2"]),
                      helper.make_node("Mul", [h, p + "e2"], [p + "e3"]),
                      helper.make_node("Mul", [p + "e3", c("half", 0.5)], [p + "e4"]),
                      helper.make_node("Min", [p + "e4", c("cap", 40.0)], [p + "a"])]
        elif act == "relu_clip40":
            nodes += [helper.make_node("Relu", [h], [p + "e0"]),
                      helper.make_node("Min", [p + "e0", c("cap", 40.0)], [p + "a"])]
        elif act == "erf_gelu_plus":  # gelu(z) + 1e-6 z: odd part (1/2 + 1e-6) z
            nodes += [helper.make_node("Div", [h, c("sqrt2", np.sqrt(2.0))], [p + "e0"]),
                      helper.make_node("Erf", [p + "e0"], [p + "e1"]),
                      helper.make_node("Add", [p + "e1", c("one", 1.0)], [p + "e2"]),
                      helper.make_node("Mul", [h, p + "e2"], [p + "e3"]),
                      helper.make_node("Mul", [p + "e3", c("half", 0.5)], [p + "e4"]),
                      helper.make_node("Mul", [h, c("eps", 1.5e-6)], [p + "e5"]),
                      helper.make_node("Add", [p + "e4", p + "e5"], [p + "a"])]
        elif act == "tanh_gelu":
            nodes += [helper.make_node("Pow", [h, c("three", 3.0)], [p + "t0"]),
                      helper.make_node("Mul", [p + "t0", c("k", 0.044715)], [p + "t1"]),
                      helper.make_node("Add", [h, p + "t1"], [p + "t2"]),
                      helper.make_node("Mul", [p + "t2", c("sc", np.sqrt(2 / np.pi))], [p + "t3"]),
                      helper.make_node("Tanh", [p + "t3"], [p + "t4"]),
                      helper.make_node("Add", [p + "t4", c("one", 1.0)], [p + "t5"]),
                      helper.make_node("Mul", [h, p + "t5"], [p + "t6"]),
                      helper.make_node("Mul", [p + "t6", c("half", 0.5)], [p + "a"])]
        elif act == "relu":
            nodes.append(helper.make_node("Relu", [h], [p + "a"]))
        elif act == "gelu_op":
            nodes.append(helper.make_node("Gelu", [h], [p + "a"]))
        if twice:  # the activation output is also read by another node (a graph output)
            nodes.append(helper.make_node("ReduceSum", [p + "a"], [p + "side"], keepdims=0))
            outs.append(helper.make_tensor_value_info(p + "side", tt, []))
        if L.get("b_down") is not None and not bias_after_skip:
            if gemm:
                nodes.append(helper.make_node("Gemm", [p + "a", w2name, init(p + "b2", L["b_down"])], [p + "o"], transB=1, name=p + "down"))
            else:
                nodes.append(helper.make_node("MatMul", [p + "a", w2name], [p + "o_mm"], name=p + "down"))
                nodes.append(helper.make_node("Add", [p + "o_mm", init(p + "b2", L["b_down"])], [p + "o"], name=p + "down_bias"))
        else:
            if gemm:
                nodes.append(helper.make_node("Gemm", [p + "a", w2name], [p + "o"], transB=1, name=p + "down"))
            else:
                nodes.append(helper.make_node("MatMul", [p + "a", w2name], [p + "o"], name=p + "down"))
        if "o" in extra_outputs:
            outs.append(helper.make_tensor_value_info(p + "o", tt, ["n", d] if gemm else ["batch", "seq", d]))
        if "h" in extra_outputs:
            outs.append(helper.make_tensor_value_info(p + "h", tt, ["n", L["up"].shape[0]] if gemm else ["batch", "seq", L["up"].shape[0]]))
        nodes.append(helper.make_node("Add", [x, p + "o"], [p + "s"], name=p + "skip"))
        s = p + "s"
        if bias_after_skip and L.get("b_down") is not None:
            nodes.append(helper.make_node("Add", [s, init(p + "b2", L["b_down"])], [p + "s2"], name=p + "b_after"))
            s = p + "s2"
        if ln:
            nodes.append(helper.make_node("LayerNormalization", [s, init(p + "g", np.linspace(.5, 1.5, d)),
                                                                  init(p + "bb", np.linspace(-.2, .2, d))],
                                          [p + "out"], axis=-1, epsilon=1e-5, name=p + "LayerNorm"))
            cur = p + "out"
        else:
            cur = s
    nodes.append(helper.make_node("Identity", [cur], ["y"]))
    shape = ["n", d] if gemm else ["batch", "seq", d]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", tt, shape)],
                          [helper.make_tensor_value_info("y", tt, shape)] + outs, inits)
    ops = [helper.make_opsetid("", opset)]
    if act == "gelu_op" and opset < 20:
        ops = [helper.make_opsetid("", 20)]
    m = helper.make_model(g, opset_imports=ops)
    m.ir_version = 8 if opset < 20 else 9
    onnx.checker.check_model(m)
    if external:
        onnx.save_model(m, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                        location=path.name + ".data", size_threshold=0)
    else:
        onnx.save_model(m, str(path))
    return path


def run_case(name, layers, d, tmp, **kw):
    src = build(tmp / f"{name}.onnx", layers, d, **kw)
    out = tmp / f"{name}_c.onnx"
    r = subprocess.run([sys.executable, "-m", "oracle.cli", "scan", str(src), "--emit", str(out), "--json"],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    err = r.stderr.strip().splitlines()
    errl = [l for l in err if "error" in l.lower() or "Traceback" in l]
    res = {"case": name, "exit": r.returncode}
    if "Traceback" in r.stderr:
        res["problem"] = "TRACEBACK: " + err[-1]
        return res
    if r.returncode == 2:
        res["refused"] = errl[-1] if errl else err[-1]
        return res
    if not out.exists():
        res["problem"] = "no output written; stderr: " + (err[-1] if err else "")
        return res
    doc = json.loads(r.stdout) if r.stdout.strip() else {}
    comp = doc.get("compiled", {})
    res["blocks"] = [(b["construction"], b["width_before"], b["width_after"], b.get("minimal_width")) for b in comp.get("blocks", [])]
    res["e2e_reported"] = comp.get("end_to_end", {}).get("max_relative_difference")
    model = onnx.load(str(out))
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    probs = []
    for k, b in enumerate(comp.get("blocks", [])):
        Wd = inits.get(f"absorb_compiled.{k}.W_down")
        if Wd is None:
            probs.append(f"block {k}: no W_down initializer")
            continue
        units = Wd.shape[0] if not kw.get("gemm") else Wd.shape[1]
        if units != b["width_after"]:
            probs.append(f"block {k}: width_after {b['width_after']} but {units} units stored")
    # independent end-to-end check, normal and large inputs
    so = ort.SessionOptions(); so.intra_op_num_threads = 1
    A = ort.InferenceSession(str(src), so, providers=["CPUExecutionProvider"])
    B = ort.InferenceSession(str(out), so, providers=["CPUExecutionProvider"])
    dt = kw.get("dtype", np.float32)
    rng = np.random.default_rng(5)
    worst = {}
    for scale in (1.0, 100.0):
        shape = (6, d) if kw.get("gemm") else (2, 3, d)
        x = (scale * rng.standard_normal(shape)).astype(dt)
        names = [o.name for o in A.get_outputs()]
        try:
            ra, rb = A.run(names, {"x": x}), B.run(names, {"x": x})
        except Exception as e:
            probs.append(f"onnxruntime fails on the compiled model: {str(e)[:120]}")
            break
        for nm, a, bb in zip(names, ra, rb):
            if a.shape != bb.shape:
                probs.append(f"output {nm}: shape {a.shape} -> {bb.shape}")
                continue
            rel = float(np.max(np.abs(a.astype(float) - bb.astype(float))) / max(1e-30, np.max(np.abs(a))))
            worst[(scale, nm)] = rel
            if rel > 1e-4:
                probs.append(f"output {nm} at input scale {scale}: relative difference {rel:.3g}")
    res["e2e_mine"] = {f"{s}:{n}": f"{v:.1e}" for (s, n), v in worst.items()}
    if probs:
        res["problem"] = "; ".join(probs)
    return res


def ints(rng, *shape, lo=-3, hi=4):
    return rng.integers(lo, hi, size=shape).astype(np.float64)


def layer(rng, d, m, bias=True):
    return {"up": ints(rng, m, d), "b_up": ints(rng, m) if bias else None, "down": ints(rng, d, m),
            "b_down": ints(rng, d) if bias else None}


def cases():
    rng = np.random.default_rng(31)
    C = {}
    C["gelu_d4_m6"] = ([layer(rng, 4, 6)], 4, {})
    C["gelu_d1_m3"] = ([layer(rng, 1, 3)], 1, {})
    C["gelu_nobias"] = ([layer(rng, 3, 5, bias=False)], 3, {})
    L = layer(rng, 3, 4); L["up"][1] = 0; L["up"][2] = -L["up"][0]; L["b_up"][2] = -L["b_up"][0]; L["up"][3] = L["up"][0]; L["b_up"][3] = L["b_up"][0]
    C["gelu_zero_opp_rep"] = ([L], 3, {})
    # x + gelu(x) + gelu(-x) = 2 gelu(x): m* = 1
    C["gelu_planted_m1"] = ([{"up": np.array([[1.], [-1.]]), "b_up": None, "down": np.array([[1., 1.]]), "b_down": None}], 1, {})
    C["tanh_gelu"] = ([layer(rng, 3, 5)], 3, {"act": "tanh_gelu"})
    C["gelu_op_opset20"] = ([layer(rng, 3, 5)], 3, {"act": "gelu_op", "opset": 20})
    C["relu_d3_m5"] = ([layer(rng, 3, 5)], 3, {"act": "relu"})
    C["relu_two_layers"] = ([layer(rng, 3, 5), layer(rng, 3, 4)], 3, {"act": "relu"})
    C["gelu_two_layers_noLN"] = ([layer(rng, 3, 5), layer(rng, 3, 4)], 3, {"ln": False})
    C["gemm"] = ([layer(rng, 3, 5)], 3, {"gemm": True})
    C["shared_weights"] = ([layer(rng, 3, 5)] * 2, 3, {"share": True})
    C["output_consumed_twice"] = ([layer(rng, 3, 5)], 3, {"extra_outputs": ("o",)})
    C["hidden_is_graph_output"] = ([layer(rng, 3, 5)], 3, {"extra_outputs": ("h",)})
    C["activation_read_twice"] = ([layer(rng, 3, 5)], 3, {"twice": True})
    C["external_data"] = ([layer(rng, 3, 5)], 3, {"external": True})
    C["float16"] = ([layer(rng, 3, 5)], 3, {"dtype": np.float16})
    C["float64"] = ([layer(rng, 3, 5)], 3, {"dtype": np.float64})
    C["opset13_noLN"] = ([layer(rng, 3, 5)], 3, {"opset": 13, "ln": False})
    C["bias_after_skip"] = ([layer(rng, 3, 5)], 3, {"bias_after_skip": True})
    C["gelu_clip40"] = ([layer(rng, 3, 5)], 3, {"act": "erf_gelu_clip40"})
    C["relu_clip40"] = ([layer(rng, 3, 5)], 3, {"act": "relu_clip40"})
    C["gelu_plus_1.5e-6_z"] = ([layer(rng, 3, 5)], 3, {"act": "erf_gelu_plus"})
    Lw = layer(rng, 2, 3); Lw["up"] = Lw["up"] * 0.1; Lw["down"] = Lw["down"] / 3.0
    C["nondyadic_weights"] = ([Lw], 2, {})
    return C


if __name__ == "__main__":
    want = sys.argv[1:]
    with tempfile.TemporaryDirectory() as t:
        for name, (layers, d, kw) in cases().items():
            if want and name not in want:
                continue
            try:
                print(json.dumps(run_case(name, layers, d, Path(t), **kw)), flush=True)
            except Exception as e:
                print(json.dumps({"case": name, "harness_error": repr(e)[:200]}), flush=True)
