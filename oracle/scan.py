"""``absorb scan CHECKPOINT``: find every MLP block of a .safetensors checkpoint and decide it.

Recognised layouts (tensor names; weights of torch ``Linear`` are stored out x in):

* BERT-style   ``<p>intermediate.dense.{weight,bias}`` (m x d) and ``<p>output.dense`` (d x m);
* GPT-2-style  ``<p>mlp.c_fc`` and ``<p>mlp.c_proj``: ``Conv1D`` stores in x out, so both
  are transposed;
* Llama-style  ``<p>mlp.gate_proj``, ``<p>mlp.up_proj`` (m x d) and ``<p>mlp.down_proj`` (d x m).

The block analysed is the skip-connected MLP x -> x + B(x) (layer norms and
attention are outside it).  Tensors are loaded one block at a time.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import time
from typing import Any, Callable

import numpy as np

from . import search
from .blocks import Block
from .decide import Verdict, decide
from .errors import InputError
from .io import Checkpoint

FAMILIES = {
    "bert": (re.compile(r"^(?P<p>.*?)intermediate\.dense\.weight$"), "gelu"),
    "gpt2": (re.compile(r"^(?P<p>.*?)mlp\.c_fc\.weight$"), "gelu_tanh"),
    "llama": (re.compile(r"^(?P<p>.*?)mlp\.gate_proj\.weight$"), "swiglu"),
}

# config.json activation names (Hugging Face spelling) -> catalog names, per family
_UNGATED = {"gelu": "gelu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh",
            "gelu_fast": "gelu_tanh", "relu": "relu", "silu": "silu", "swish": "silu"}
_GATED = {"silu": "swiglu", "swish": "swiglu", "gelu": "geglu", "gelu_new": "geglu_tanh",
          "gelu_pytorch_tanh": "geglu_tanh", "relu": "reglu", "sigmoid": "glu"}


def _activation(ck: Checkpoint, family: str) -> tuple[str, str]:
    cfg = ck.config()
    for key in ("hidden_act", "activation_function", "hidden_activation"):
        raw = cfg.get(key)
        if isinstance(raw, str):
            table = _GATED if family == "llama" else _UNGATED
            return table.get(raw, raw), f"config.json {key} = {raw!r}"
    return FAMILIES[family][1], f"default for {family}-style names (no config.json)"


def find_blocks(ck: Checkpoint) -> list[dict[str, Any]]:
    """The MLP blocks of a checkpoint: family, prefix and the tensor names of each projection."""
    found = []
    for name in ck.names():
        for family, (pat, _) in FAMILIES.items():
            mt = pat.match(name)
            if not mt:
                continue
            p = mt.group("p")
            if family == "bert":
                t = {"up": name, "down": f"{p}output.dense.weight"}
                bias = {"b_up": f"{p}intermediate.dense.bias", "b_down": f"{p}output.dense.bias"}
            elif family == "gpt2":
                t = {"up": name, "down": f"{p}mlp.c_proj.weight"}
                bias = {"b_up": f"{p}mlp.c_fc.bias", "b_down": f"{p}mlp.c_proj.bias"}
            else:
                t = {"gate": name, "up": f"{p}mlp.up_proj.weight", "down": f"{p}mlp.down_proj.weight"}
                bias = {"b_gate": f"{p}mlp.gate_proj.bias", "b_up": f"{p}mlp.up_proj.bias",
                        "b_down": f"{p}mlp.down_proj.bias"}
            spec = {"family": family, "prefix": p.rstrip("."), "tensors": t,
                    "biases": {k: v for k, v in bias.items() if v in ck}}
            missing = [v for v in t.values() if v not in ck]
            if missing:
                # reported for this block only; the scan goes on with the others
                spec["error"] = f"tensor {missing[0]!r} is missing"
            found.append(spec)
    return sorted(found, key=lambda b: _natural(b["prefix"]))


def _natural(s: str) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def _load_block(ck: Checkpoint, spec: dict[str, Any], activation: str) -> Block:
    t = spec["tensors"]
    fam = spec["family"]
    names = list(t.values()) + list(spec["biases"].values())
    for n in names:
        if len(ck.shape(n)) not in (1, 2):
            raise InputError(f"tensor {n!r} has shape {ck.shape(n)}; a projection is a matrix")
    # refuse before loading what would not fit the memory limit (ABSORB_MAX_MEMORY)
    from .io import check_budget
    check_budget(ck.path, ck.float64_bytes(names), None)
    up, down = ck.tensor(t["up"]), ck.tensor(t["down"])
    if fam == "gpt2":  # Conv1D: x @ W, so the Linear-style matrices are the transposes
        up, down = up.T, down.T
    kw: dict[str, Any] = {"W_up": np.ascontiguousarray(up), "W_down": np.ascontiguousarray(down)}
    if "gate" in t:
        kw["W_gate"] = ck.tensor(t["gate"])
    for k, name in spec["biases"].items():
        kw[k] = ck.tensor(name)
    return Block(activation, **kw)


def _distance(block: Block) -> dict[str, Any]:
    """How far the bias-free weights are from the index condition (relaxation; float64 measurement)."""
    rel = search.relaxation_certificate(block.W_up, block.W_down, np.eye(block.d), max_iter=150,
                                        refine=True)
    return {"relaxed_distance_float64": math.sqrt(max(rel["objective"], 0.0)),
            "note": "float64 measurement of min over z in [0,1]^m of ||W_down diag(z) W_up + I||_F "
                    "(the distance of the relaxed problem, not a rigorous bound)",
            "certified_lower_bound_for_index_sets": rel["distance_lower_bound"] if rel["certified"] else None,
            "norm_of_I": math.sqrt(block.d), "iterations": rel["iterations"]}


def scan(path: str, progress: Callable[[str], None] = lambda s: None,
         distances: bool = True) -> dict[str, Any]:
    """Scan a checkpoint: one entry per MLP block with shapes, activation, biases and verdict."""
    ck = Checkpoint(path)
    specs = find_blocks(ck)
    out_blocks = []
    t0 = time.perf_counter()
    for k, spec in enumerate(specs, 1):
        act, act_src = _activation(ck, spec["family"])
        progress(f"[{k}/{len(specs)}] {spec['prefix'] or '<root>'} ({spec['family']}, {act}) "
                 f"{time.perf_counter() - t0:.1f}s")
        entry: dict[str, Any] = {"block": spec["prefix"], "family": spec["family"],
                                 "tensors": spec["tensors"], "activation": act,
                                 "activation_source": act_src}
        try:
            if spec.get("error"):
                raise InputError(spec["error"])
            _scan_one(ck, spec, act, entry, distances)
        except InputError as e:
            # one bad block is reported and the scan goes on; the command exits 2 at the end
            entry.update({"verdict": "error", "claim": None, "exact": False, "error": str(e),
                          "reason": str(e)})
            entry.setdefault("d", None)
            entry.setdefault("m", None)
            entry.setdefault("biases_nonzero", [])
        out_blocks.append(entry)
    counts: dict[str, int] = {}
    for e in out_blocks:
        counts[e["verdict"]] = counts.get(e["verdict"], 0) + 1
    return {"checkpoint": str(path), "files": [str(f) for f in ck.files], "tensors": len(ck.names()),
            "blocks": out_blocks, "summary": {"mlp_blocks": len(out_blocks), "verdicts": counts},
            "note": "each block is taken as x -> x + MLP(x) with M = I; layer norms, attention "
                    "and the order of normalisation (pre-/post-LN) are outside the analysis",
            "seconds": round(time.perf_counter() - t0, 2)}


def _scan_one(ck: Checkpoint, spec: dict[str, Any], act: str, entry: dict[str, Any],
              distances: bool) -> None:
    """Load, decide and measure one block, filling its report entry."""
    block = _load_block(ck, spec, act)
    entry.update({"d": block.d, "m": block.m,
                  "dtype": ck.dtype(spec["tensors"]["up"]),
                  "biases_present": sorted(spec["biases"]),
                  "biases_nonzero": [n for n in ("b_up", "b_gate", "b_down")
                                     if getattr(block, n) is not None and np.any(getattr(block, n) != 0)]})
    entry.update(_judge(block, entry))
    if distances and not block.gated and block.act.odd_part_identity:
        entry["bias_free_distance"] = _distance(
            Block(block.activation, W_up=block.W_up, W_down=block.W_down))


def _judge(block: Block, entry: dict[str, Any]) -> dict[str, Any]:
    """Verdict for the real block, plus what the bias-free part alone gives when biases are present."""
    biased = bool(entry["biases_nonzero"])
    stripped = Block(block.activation, W_up=block.W_up, W_down=block.W_down, W_gate=block.W_gate)
    bf = decide(stripped)
    if not biased:
        v = bf
        extra: dict[str, Any] = {}
    else:
        if bf.certificate.get("kind") == "index_set":
            v = decide(block)  # the sign flip works with biases after a b_down correction
        else:
            v = Verdict("undecided", bf.claim, False,
                        "nonzero biases (" + ", ".join(entry["biases_nonzero"]) + ") put the block "
                        "outside the paper's hypotheses (biased blocks can absorb, SPEC.md)",
                        {"kind": "hypothesis_failed", "nonzero_biases": entry["biases_nonzero"]})
        extra = {"bias_free_part": {"verdict": bf.verdict, "claim": bf.claim, "exact": bf.exact,
                                    "reason": bf.reason, "certificate": _slim(bf.certificate)}}
    return {"verdict": v.verdict, "claim": v.claim, "exact": v.exact, "reason": v.reason,
            "certificate": _slim(v.certificate), **extra}


def _slim(cert: dict[str, Any]) -> dict[str, Any]:
    """Drop bulky payloads (the d x d certificate matrix) from the scan report."""
    out = {}
    for k, v in cert.items():
        if isinstance(v, dict):
            v = {kk: ("<d x d certificate matrix omitted from the scan report>" if kk == "Y" else vv)
                 for kk, vv in v.items()}
        out[k] = v
    return out


def _short(e: dict[str, Any]) -> str:
    if e.get("bias_free_part"):
        bf = e["bias_free_part"]
        s = bf["certificate"].get("search", {})
        how = s.get("method", bf["claim"] or "")
        return f"bias-free part: {bf['verdict']}{' (exact)' if bf['exact'] else ''} [{how}]"
    return e["reason"][:90]


def run(args: argparse.Namespace) -> int:
    """``absorb scan CHECKPOINT [--json]``."""
    from .cli import emit_json

    t0 = time.perf_counter()

    def progress(msg: str) -> None:
        print(f"absorb scan: {msg}", file=sys.stderr, flush=True)

    doc = scan(args.checkpoint, progress=progress)
    progress(f"done in {time.perf_counter() - t0:.1f}s")
    bad = [e for e in doc["blocks"] if e["verdict"] == "error"]
    if args.json:
        emit_json(doc)
        return _scan_status(bad)
    print(f"checkpoint: {doc['checkpoint']} ({doc['tensors']} tensors, {doc['summary']['mlp_blocks']} MLP blocks)")
    if not doc["blocks"]:
        print("no BERT-, GPT-2- or Llama-style MLP blocks found")
        return 0
    print(f"{'block':<22} {'family':<6} {'d':>5} {'m':>6} {'activation':<10} {'biases':<14} "
          f"{'verdict':<15} note")
    for e in doc["blocks"]:
        b = ",".join(e["biases_nonzero"]) or "none"
        dd, mm = ("-" if e["d"] is None else e["d"]), ("-" if e["m"] is None else e["m"])
        print(f"{e['block'][:22]:<22} {e['family']:<6} {dd:>5} {mm:>6} {e['activation']:<10} "
              f"{b:<14} {e['verdict']:<15} {_short(e)}")
        dist = e.get("bias_free_distance")
        if dist:
            lb = dist["certified_lower_bound_for_index_sets"]
            print(f"{'':<22}   bias-free part: relaxed distance from W_S U_S = -I "
                  f"{dist['relaxed_distance_float64']:.4g} (float64 measurement; ||I||_F = "
                  f"{dist['norm_of_I']:.4g})" + (f", certified min_S ||W_S U_S + I||_F >= {lb:.4g}"
                                                  if lb else ""))
    print(f"summary: {doc['summary']['verdicts']}; {doc['note']}")
    return _scan_status(bad)


def _scan_status(bad: list[dict[str, Any]]) -> int:
    """Exit status of a scan: 2 (with one line on stderr) when any block could not be read."""
    if not bad:
        return 0
    first = bad[0]
    print(f"absorb scan: error: {len(bad)} block(s) could not be analysed; first: "
          f"{first['block'] or '<root>'}: {first['error']}", file=sys.stderr)
    return 2
