"""Quantized ONNX graphs in `absorb scan` (issue 27: an int8 MiniLM export reported "0 MLP blocks"
with exit 0).  Weights computed in the graph from int8/uint8 initializers (``Mul(Cast(q), scale)``,
per-axis ``DequantizeLinear`` with a zero point) are read as the graph computes them: the values
the scan analyses are compared bit for bit with what onnxruntime computes for the same graph
values.  Graphs that multiply quantized activations (``DynamicQuantizeLinear`` + ``MatMulInteger``,
written by onnxruntime's own ``quantize_dynamic``; QDQ pairs and QLinear operators written by its
``quantize_static``) and weights computed with an operator the reader does not evaluate are
refused with the reason and exit 2.  Claims exercised: relu-limit (the gelu blocks' verdicts)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from formatfiles import onnx_quantized_encoder
from oracle.cli import main
from oracle.core.formats.onnx_file import ONNXModel


def _scan_json(capsys, p) -> tuple[int, dict, str]:
    code = main(["scan", str(p), "--json"])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def _errors(err: str) -> list[str]:
    """The error lines on stderr (progress lines go there too), none of them a traceback."""
    assert "Traceback" not in err
    return [ln for ln in err.strip().splitlines() if ": error:" in ln]


def _ort_values(path, names: list[str], d: int) -> dict[str, np.ndarray]:
    """The named graph values as onnxruntime computes them (each added as a graph output)."""
    ort = pytest.importorskip("onnxruntime")
    import onnx
    from onnx import helper

    m = onnx.load(str(path))
    for n in names:
        m.graph.output.append(helper.make_empty_tensor_value_info(n))
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    got = sess.run(names, {"x": np.zeros((1, d), np.float32)})
    return dict(zip(names, got))


@pytest.mark.parametrize("scheme,stored", [("cast_mul", "int8*scale"), ("dql", "uint8*scale"),
                                           ("dql_blocked", "uint8*scale")])
def test_int8_encoder_is_read_as_the_graph_computes_it(tmp_path, capsys, scheme, stored):
    p = onnx_quantized_encoder(tmp_path / f"{scheme}.onnx", 6, 8, 16, scheme)
    code, doc, err = _scan_json(capsys, p)
    assert code == 0, err
    assert doc["summary"]["mlp_blocks"] == 6
    assert [b["block"] for b in doc["blocks"]] == [f"encoder.layer.{k}" for k in range(6)]
    for b in doc["blocks"]:
        assert b["dtype"] == stored and b["activation"] == "gelu" and (b["d"], b["m"]) == (8, 16)
        assert b["verdict"] in ("absorbable", "not_absorbable", "undecided")
        assert "as onnxruntime computes them" in b["quantization"]
        ar = {a["value"]: a for a in b["graph_arithmetic"]}
        assert set(ar) == {b["tensors"]["up"], b["tensors"]["down"]}
        op = "Mul" if scheme == "cast_mul" else "DequantizeLinear"
        assert all(op in a["expression"] for a in ar.values())
        counts = [a["rounded"][op] for a in ar.values()]
        assert sum(c["entries"] for c in counts) == 2 * 8 * 16
        assert sum(c["rounded_entries"] for c in counts) > 0  # float32 rounds int8 * scale
    # the 12 attention-like d x d layers are listed, not silently dropped, and not refused
    assert len(doc["skipped"]) == 12 and not any(e.get("refused") for e in doc["skipped"])
    assert all("attention" in e["node"] for e in doc["skipped"])
    # bit for bit what onnxruntime computes for the same graph values
    ck = ONNXModel(p)
    ck.blocks()
    names = sorted(ck.virtual)
    assert len(names) == 6 * 4
    ref = _ort_values(p, names, 8)
    for n in names:
        ours = ck.tensor(n)
        assert ours.dtype == np.float64 and ref[n].dtype == np.float32
        assert np.array_equal(ours, ref[n].astype(np.float64)), n
    if scheme == "cast_mul":
        # the exact product q * s (exact in float64) is not what the graph uses; its float32
        # rounding is, and that is what the scan analyses
        for n in names:
            exact = ck.raw(n + "_quantized").astype(np.float64) * ck.raw(n + "_scale").astype(np.float64)
            assert np.array_equal(exact.astype(np.float32).astype(np.float64), ck.tensor(n)), n
        assert any(not np.array_equal(ck.raw(n + "_quantized").astype(np.float64)
                                      * ck.raw(n + "_scale").astype(np.float64), ck.tensor(n)) for n in names)


def test_text_output_says_how_the_weights_were_computed(tmp_path, capsys):
    p = onnx_quantized_encoder(tmp_path / "q.onnx", 2, 8, 16, "cast_mul")
    code = main(["scan", str(p)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "(onnx, " in out and "2 MLP blocks" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("weights (2 blocks)"))
    assert "int8" in line and "entries rounded" in line
    assert "skipped 4 linear layers in no MLP block (0 refused)" in out


def test_dynamic_quantization_is_refused(tmp_path, capsys):
    """onnxruntime's quantize_dynamic writes DynamicQuantizeLinear + MatMulInteger: refused, exit 2."""
    pytest.importorskip("onnxruntime")
    from onnxruntime.quantization import QuantType, quantize_dynamic

    f = onnx_quantized_encoder(tmp_path / "f.onnx", 2, 8, 16, "float")
    q = tmp_path / "dyn.onnx"
    quantize_dynamic(str(f), str(q), weight_type=QuantType.QInt8)
    code, doc, err = _scan_json(capsys, q)
    assert code == 2
    lines = _errors(err)
    assert len(lines) == 1 and "linear layer(s) refused" in lines[0] and "MatMulInteger" in lines[0], err
    assert doc["summary"]["mlp_blocks"] == 0 and doc["summary"]["refused_linear_layers"] == 8
    assert all(e["refused"] and "MatMulInteger" in e["reason"] for e in doc["skipped"])
    # the float model it came from is read: 2 blocks, exit 0
    code, doc, err = _scan_json(capsys, f)
    assert code == 0 and doc["summary"]["mlp_blocks"] == 2, err


def test_unreadable_weight_subgraph_is_refused(tmp_path, capsys):
    """A weight computed with an operator the reader does not evaluate (here Sqrt) is refused with
    the operator named, and the scan exits 2."""
    import onnx
    from onnx import helper

    p = onnx_quantized_encoder(tmp_path / "q.onnx", 2, 8, 16, "cast_mul")
    m = onnx.load(str(p))
    for n in m.graph.node:
        if n.op_type == "Mul" and n.name.endswith("intermediate/dense/weight/Mul"):
            # weight = Sqrt(Cast(q) * s) * ...: insert a Sqrt on the scale
            s = n.input[1]
            m.graph.node.append(helper.make_node("Sqrt", [s], [s + "_sqrt"], name=s + "/Sqrt"))
            n.input[1] = s + "_sqrt"
    onnx.save(m, str(tmp_path / "sqrt.onnx"))
    code, doc, err = _scan_json(capsys, tmp_path / "sqrt.onnx")
    assert code == 2
    lines = _errors(err)
    assert len(lines) == 1 and "operator Sqrt" in lines[0] and "is not read" in lines[0], err
    assert [b["verdict"] for b in doc["blocks"]] == ["error", "error"]


def test_linear_layers_without_an_mlp_block_exit_3(tmp_path, capsys):
    """Only attention-like layers (no activation between linear layers): exit 3, every layer listed."""
    p = onnx_quantized_encoder(tmp_path / "att.onnx", 2, 8, 16, "cast_mul", mlp=False)
    code = main(["scan", str(tmp_path / "att.onnx")])
    out, err = capsys.readouterr()
    assert code == 3
    assert len(_errors(err)) == 1 and "no MLP block found" in err
    assert "0 MLP blocks" in out and "skipped 4 linear layers" in out


@pytest.mark.parametrize("fmt,fragment", [("QDQ", "QuantizeLinear -> DequantizeLinear"),
                                          ("QOperator", "QLinearMatMul")])
def test_static_quantization_is_refused(tmp_path, capsys, fmt, fragment):
    """onnxruntime's quantize_static rounds the activations between layers (QDQ pairs, or QLinear
    operators): the blocks are not x -> x + B(x) in real arithmetic; refused with exit 2."""
    pytest.importorskip("onnxruntime")
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.it = iter([{"x": np.random.default_rng(i).normal(size=(2, 8)).astype(np.float32)} for i in range(4)])

        def get_next(self):
            return next(self.it, None)

    f = onnx_quantized_encoder(tmp_path / "f.onnx", 2, 8, 16, "float")
    q = tmp_path / f"{fmt}.onnx"
    quantize_static(str(f), str(q), Reader(), quant_format=QuantFormat[fmt], weight_type=QuantType.QInt8,
                    activation_type=QuantType.QUInt8)
    code, doc, err = _scan_json(capsys, q)
    assert code == 2
    lines = _errors(err)
    assert len(lines) == 1 and "linear layer(s) refused" in lines[0] and fragment in lines[0], err
    assert doc["summary"]["refused_linear_layers"] == 8 and doc["summary"]["mlp_blocks"] == 0
