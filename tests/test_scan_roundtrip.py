"""Round trip of scan documents through the command line, drawn like the check documents of
tests/test_recheck_roundtrip.py: blocks drawn with the project's strategies
(oracle/core/strategies.py) are written as the MLP layers of a small safetensors checkpoint with
the tensor names of a known family (BERT, GPT-2 with its transposed Conv1D storage, Llama), and
config.json names the activation.  `absorb scan --json` on that checkpoint, then
`absorb recheck SCAN.json CHECKPOINT`, both run as subprocesses of the installed `absorb`, must
give `holds`; the document must describe the layers that were written (width, hidden width,
activation, nonzero biases); and a document whose first verdict was changed is refused with that
field named.

Drawn per checkpoint: one layout and activation, a model width d in 1..3, one or two layers, each
a plain block (with or without biases), a degenerate block (zero row, collinear rows, zero
column) or a block satisfying the index condition.  The weights are small dyadic numbers or small
integers, stored as float32 without rounding (checked).  The default run draws FAST_CHECKPOINTS;
the slow test draws SCAN_CHECKPOINTS (6), ABSORB_ROUNDTRIP_BLOCKS=n raises that to n.  Each
checkpoint costs two or three subprocesses of about 1 s of CPU each.
Claims exercised: whichever claims the scanned blocks' verdicts name (relu-limit and relu-complete
for the ungated layers, the gated claims for the Llama layers)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from safetensors.numpy import save_file

from oracle.core import strategies as S
from oracle.core.blocks import Block

ABSORB = str(Path(sys.executable).with_name("absorb"))

_N = int(os.environ.get("ABSORB_ROUNDTRIP_BLOCKS", "0"))
SCAN_CHECKPOINTS = _N or 6
FAST_CHECKPOINTS = 2

# (layout, Hugging Face activation name in config.json, the catalog activation it means)
LAYOUTS = [
    ("bert", "gelu", "gelu"), ("bert", "relu", "relu"), ("bert", "silu", "silu"),
    ("bert", "gelu_new", "gelu_tanh"), ("gpt2", "gelu_new", "gelu_tanh"), ("gpt2", "relu", "relu"),
    ("llama", "silu", "swiglu"), ("llama", "gelu", "geglu"), ("llama", "gelu_pytorch_tanh", "geglu_tanh"),
    ("llama", "relu", "reglu"), ("llama", "sigmoid", "glu"),
]
CONFIG_KEY = {"bert": "hidden_act", "gpt2": "activation_function", "llama": "hidden_act"}


def absorb(*argv: object) -> subprocess.CompletedProcess:
    return subprocess.run([ABSORB, *map(str, argv)], capture_output=True, text=True, timeout=600)


def _f32(a: np.ndarray) -> np.ndarray:
    out = np.ascontiguousarray(a, dtype=np.float32)
    if not np.array_equal(out.astype(np.float64), a):
        raise ValueError("a drawn weight is not exact in float32")
    return out


def layer_tensors(layout: str, i: int, b: Block) -> dict[str, np.ndarray]:
    """The tensors of layer i holding block b, named as the layout's models name them."""
    def put(t: dict, name: str, w: np.ndarray, bias: Optional[np.ndarray]) -> None:
        t[name + ".weight"] = _f32(w)
        if bias is not None:
            t[name + ".bias"] = _f32(bias)

    t: dict[str, np.ndarray] = {}
    if layout == "bert":
        put(t, f"bert.encoder.layer.{i}.intermediate.dense", b.W_up, b.b_up)
        put(t, f"bert.encoder.layer.{i}.output.dense", b.W_down, b.b_down)
    elif layout == "gpt2":  # Conv1D: stored as (in, out)
        put(t, f"h.{i}.mlp.c_fc", b.W_up.T, b.b_up)
        put(t, f"h.{i}.mlp.c_proj", b.W_down.T, b.b_down)
    else:
        put(t, f"model.layers.{i}.mlp.gate_proj", b.W_gate, b.b_gate)
        put(t, f"model.layers.{i}.mlp.up_proj", b.W_up, b.b_up)
        put(t, f"model.layers.{i}.mlp.down_proj", b.W_down, b.b_down)
    return t


def prefix(layout: str, i: int) -> str:
    return {"bert": f"bert.encoder.layer.{i}", "gpt2": f"h.{i}", "llama": f"model.layers.{i}"}[layout]


def layer_block(act: str, d: int) -> st.SearchStrategy[Block]:
    """One layer: plain (biased or not), degenerate (biased or not) or satisfying the index condition."""
    return st.one_of(
        st.booleans().flatmap(lambda bias: S.blocks(act, d=d, max_m=4, bias=bias)),
        st.booleans().flatmap(lambda bias: S.degenerate_blocks(act, d=d, max_m=4, bias=bias).map(lambda bd: bd[0])),
        S.condition_blocks(act, d=d, others=1, require_nondegenerate=False).map(lambda c: c.block),
    )


@st.composite
def checkpoints(draw: st.DrawFn) -> tuple[str, str, str, list[Block]]:
    layout, hf_name, act = draw(st.sampled_from(LAYOUTS))
    d = draw(st.integers(1, 3))
    layers = draw(st.lists(layer_block(act, d), min_size=1, max_size=2))
    return layout, hf_name, act, layers


def write_checkpoint(folder: Path, layout: str, hf_name: str, layers: list[Block]) -> Path:
    tensors: dict[str, np.ndarray] = {}
    for i, b in enumerate(layers):
        tensors.update(layer_tensors(layout, i, b))
    p = folder / "model.safetensors"
    save_file(tensors, str(p))
    (folder / "config.json").write_text(json.dumps({CONFIG_KEY[layout]: hf_name}))
    return p


def _nonzero_biases(b: Block) -> set[str]:
    return {n for n in ("b_up", "b_down", "b_gate") if getattr(b, n, None) is not None and np.any(getattr(b, n) != 0)}


def scan_roundtrip(folder: Path, layout: str, hf_name: str, act: str, layers: list[Block]) -> tuple[Path, dict]:
    """scan --json on the written checkpoint, then recheck of that document: must hold."""
    ck = write_checkpoint(folder, layout, hf_name, layers)
    r = absorb("scan", "--json", ck)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    # the document describes the layers that were written
    by = {b["block"]: b for b in doc["blocks"]}
    assert sorted(by) == sorted(prefix(layout, i) for i in range(len(layers))), list(by)
    for i, b in enumerate(layers):
        e = by[prefix(layout, i)]
        assert (e["d"], e["m"], e["activation"]) == (b.d, b.m, act), (e["d"], e["m"], e["activation"])
        assert set(e["biases_nonzero"]) == _nonzero_biases(b), (e["biases_nonzero"], _nonzero_biases(b))
    doc_file = folder / "scan.json"
    doc_file.write_text(r.stdout)
    rc = absorb("recheck", doc_file, ck)
    verdicts = [e["verdict"] for e in doc["blocks"]]
    assert rc.returncode == 0 and rc.stdout.startswith("holds:"), (layout, act, verdicts, rc.stdout, rc.stderr)
    return ck, doc


def forged_verdict_refused(folder: Path, ck: Path, doc: dict) -> None:
    """The first block's verdict changed to another value: refused, with the field named."""
    stated = doc["blocks"][0]["verdict"]
    other = next(v for v in ("absorbable", "not_absorbable", "undecided") if v != stated)
    forged = json.loads(json.dumps(doc))
    forged["blocks"][0]["verdict"] = other
    f = folder / "forged.json"
    f.write_text(json.dumps(forged))
    rc = absorb("recheck", f, ck)
    assert rc.returncode == 1 and rc.stdout.startswith("does not hold: blocks[0].verdict"), (
        stated, other, rc.stdout, rc.stderr)


def _run(n: int, forge: bool) -> None:
    # no shrinking: each example costs subprocesses, and shrinking one failure took over 5 minutes;
    # the failing checkpoint is printed as drawn
    @settings(max_examples=n, database=None, deadline=None,
              phases=[Phase.explicit, Phase.reuse, Phase.generate],
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(ck=checkpoints())
    def run(ck: tuple[str, str, str, list[Block]]) -> None:
        layout, hf_name, act, layers = ck
        with tempfile.TemporaryDirectory() as tmp:
            path, doc = scan_roundtrip(Path(tmp), layout, hf_name, act, layers)
            if forge:
                forged_verdict_refused(Path(tmp), path, doc)
    run()


def test_scan_round_trip_fast():
    _run(FAST_CHECKPOINTS, forge=True)


@pytest.mark.slow
def test_scan_documents_recheck_through_the_cli():
    _run(SCAN_CHECKPOINTS, forge=False)


def test_near_zero_distance_round_trips(tmp_path):
    """The checkpoint the slow property run drew: one gelu layer, d = 1, m = 2, whose relaxed distance
    is 0 up to rounding (the scan used to state the relaxation's sqrt(objective), 1.49e-08, where the
    re-check recomputed 2.2e-16 at the stated z, and refused the scan's own document)."""
    b = Block("gelu", W_up=np.array([[0.0], [0.875]]), W_down=np.array([[0.0, -1.875]]))
    scan_roundtrip(tmp_path, "bert", "gelu", "gelu", [b])
