"""``absorb scan CHECKPOINT``: find every MLP block of a .safetensors checkpoint and decide it.

Recognised layouts (tensor names; weights of torch ``Linear`` are stored out x in):

* BERT / ViT   ``<p>intermediate.dense`` (m x d) and ``<p>output.dense`` (d x m), gelu;
* GPT-2        ``<p>mlp.c_fc`` and ``<p>mlp.c_proj``: ``Conv1D`` stores in x out, so both are
  transposed; gelu_tanh;
* Llama        ``<p>mlp.gate_proj``, ``<p>mlp.up_proj`` (m x d), ``<p>mlp.down_proj`` (d x m), swiglu;
  Gemma has the same names and a gelu_tanh gate: recognised from ``model_type`` in config.json;
* Qwen-MoE     ``<p>mlp.experts.N.{gate,up,down}_proj`` and ``<p>mlp.shared_expert.*``, swiglu;
* Mixtral      ``<p>block_sparse_moe.experts.N.w1`` (gate), ``w3`` (up), ``w2`` (down), swiglu;
* T5           ``<p>DenseReluDense.wi`` / ``wo``, relu; gated T5 (v1.1, Flan)
  ``DenseReluDense.wi_0`` (gate), ``wi_1`` (up), ``wo``, gelu_tanh gate;
* OPT          ``<p>fc1`` / ``<p>fc2`` (not under ``mlp.``), relu;
* GPT-NeoX     ``<p>mlp.dense_h_to_4h`` / ``<p>mlp.dense_4h_to_h``, gelu;
* ViT / CLIP / Phi  ``<p>mlp.fc1`` / ``<p>mlp.fc2``, gelu (CLIP: quick_gelu from config.json,
  z sigmoid(1.702 z), in the catalog and decided by relu-limit like gelu).

The activation comes from config.json next to the checkpoint when present (the key each family
uses in Hugging Face configs, nested ``text_config`` / ``vision_config`` for CLIP), otherwise the
family default.  An expert of a mixture-of-experts layer is analysed on its own, as
x -> x + E(x): the router mixes experts with input-dependent weights, which is outside the
analysis.

The block analysed is the skip-connected MLP x -> x + B(x) (layer norms and
attention are outside it).  Tensors are loaded one block at a time.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from . import activations, search
from .blocks import Block
from .decide import decide
from .errors import InputError
from .io import Checkpoint


@dataclass(frozen=True)
class Family:
    """One naming scheme: the tensor that identifies a block and where the others are."""

    name: str
    key: re.Pattern  # matches the identifying tensor; group "p" is the block's path prefix
    parts: dict[str, str]  # role -> name suffix after the prefix ("gate", "up", "down")
    bias_parts: dict[str, str]  # bias role -> name suffix
    default: str  # catalog activation without config.json
    gated: bool = False
    transpose: bool = False  # Conv1D storage (in x out)
    expert: bool = False  # one expert of a mixture-of-experts layer


def _fam(name: str, key: str, parts: dict[str, str], default: str, **kw: Any) -> Family:
    bias = {"b_" + r: v[: -len("weight")] + "bias" for r, v in parts.items()}
    return Family(name, re.compile(key), parts, bias, default, gated="gate" in parts, **kw)


FAMILY_LIST = [
    _fam("bert", r"^(?P<p>.*?)intermediate\.dense\.weight$",
         {"up": "intermediate.dense.weight", "down": "output.dense.weight"}, "gelu"),
    _fam("gpt2", r"^(?P<p>.*?)mlp\.c_fc\.weight$", {"up": "mlp.c_fc.weight", "down": "mlp.c_proj.weight"},
         "gelu_tanh", transpose=True),
    _fam("llama", r"^(?P<p>.*?)mlp\.gate_proj\.weight$",
         {"gate": "mlp.gate_proj.weight", "up": "mlp.up_proj.weight", "down": "mlp.down_proj.weight"}, "swiglu"),
    _fam("qwen_moe", r"^(?P<p>.*?mlp\.(?:experts\.\d+|shared_expert)\.)gate_proj\.weight$",
         {"gate": "gate_proj.weight", "up": "up_proj.weight", "down": "down_proj.weight"}, "swiglu", expert=True),
    _fam("mixtral", r"^(?P<p>.*?block_sparse_moe\.experts\.\d+\.)w1\.weight$",
         {"gate": "w1.weight", "up": "w3.weight", "down": "w2.weight"}, "swiglu", expert=True),
    _fam("t5", r"^(?P<p>.*?)DenseReluDense\.wi\.weight$",
         {"up": "DenseReluDense.wi.weight", "down": "DenseReluDense.wo.weight"}, "relu"),
    _fam("t5_gated", r"^(?P<p>.*?)DenseReluDense\.wi_0\.weight$",
         {"gate": "DenseReluDense.wi_0.weight", "up": "DenseReluDense.wi_1.weight",
          "down": "DenseReluDense.wo.weight"}, "geglu_tanh"),
    _fam("opt", r"^(?P<p>(?:.*\.)?)fc1\.weight$", {"up": "fc1.weight", "down": "fc2.weight"}, "relu"),
    _fam("gpt_neox", r"^(?P<p>.*?)mlp\.dense_h_to_4h\.weight$",
         {"up": "mlp.dense_h_to_4h.weight", "down": "mlp.dense_4h_to_h.weight"}, "gelu"),
    _fam("fc", r"^(?P<p>.*?)mlp\.fc1\.weight$", {"up": "mlp.fc1.weight", "down": "mlp.fc2.weight"}, "gelu"),
]
FAMILIES = {f.name: f for f in FAMILY_LIST}
# Gemma reuses the Llama names with a gelu_tanh gate; it is told apart by config.json
FAMILIES["gemma"] = Family("gemma", FAMILIES["llama"].key, FAMILIES["llama"].parts,
                           FAMILIES["llama"].bias_parts, "geglu_tanh", gated=True)

# config.json activation names (Hugging Face spelling) -> catalog names
_UNGATED = {"gelu": "gelu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh",
            "gelu_fast": "gelu_tanh", "relu": "relu", "silu": "silu", "swish": "silu"}
_GATED = {"silu": "swiglu", "swish": "swiglu", "gelu": "geglu", "gelu_new": "geglu_tanh",
          "gelu_pytorch_tanh": "geglu_tanh", "gelu_fast": "geglu_tanh", "relu": "reglu", "sigmoid": "glu"}
_T5_PROJ = {"relu": "relu", "gated-gelu": "gelu_new", "gated-silu": "silu", "gated-relu": "relu",
            "gelu": "gelu", "silu": "silu"}


def _config_activation(cfg: dict[str, Any], fam: Family, prefix: str) -> tuple[Any, str]:
    """The raw Hugging Face activation name for this family, and where it came from."""
    if fam.name in ("t5", "t5_gated"):
        if isinstance(cfg.get("dense_act_fn"), str):
            return cfg["dense_act_fn"], "config.json dense_act_fn"
        ff = cfg.get("feed_forward_proj")
        if isinstance(ff, str):
            return _T5_PROJ.get(ff, ff), f"config.json feed_forward_proj = {ff!r}"
        return None, ""
    if fam.name == "gemma":
        # Hugging Face's Gemma MLP uses hidden_activation and falls back to gelu_pytorch_tanh,
        # ignoring hidden_act
        for c in (cfg, cfg.get("text_config") or {}):
            if isinstance(c.get("hidden_activation"), str):
                return c["hidden_activation"], "config.json hidden_activation"
        return "gelu_pytorch_tanh", "Gemma default (hidden_activation absent)"
    scopes = [cfg]
    if "text_model" in prefix or "text_config" in cfg and "vision_model" not in prefix:
        scopes.insert(0, cfg.get("text_config") or {})
    if "vision_model" in prefix:
        scopes.insert(0, cfg.get("vision_config") or {})
    for c in scopes:
        for key in ("hidden_act", "activation_function", "hidden_activation"):
            if isinstance(c.get(key), str):
                where = "" if c is cfg else ("text_config." if c is cfg.get("text_config") else "vision_config.")
                return c[key], f"config.json {where}{key}"
    if fam.name == "fc" and str(cfg.get("model_type", "")).startswith("clip"):
        return "quick_gelu", "CLIP default (quick_gelu)"
    return None, ""


def _activation(ck: Checkpoint, family: str, prefix: str = "") -> tuple[str, str]:
    """Catalog activation of a block: from config.json when present, else the family default."""
    fam = FAMILIES[family]
    raw, src = _config_activation(ck.config(), fam, prefix)
    if raw is None:
        return fam.default, f"default for {family}-style names (no activation in config.json)"
    table = _GATED if fam.gated else _UNGATED
    return table.get(raw, raw), f"{src} = {raw!r}"


def _is_gemma(ck: Checkpoint) -> bool:
    cfg = ck.config()
    types = [cfg.get("model_type"), (cfg.get("text_config") or {}).get("model_type")]
    return any(isinstance(t, str) and t.startswith("gemma") for t in types)


def find_blocks(ck: Checkpoint) -> list[dict[str, Any]]:
    """The MLP blocks of a checkpoint: family, prefix and the tensor names of each projection."""
    found = []
    gemma = _is_gemma(ck)
    for name in ck.names():
        for fam in FAMILY_LIST:
            mt = fam.key.match(name)
            if not mt:
                continue
            p = mt.group("p")
            if fam.name == "opt" and p.endswith("mlp."):
                continue  # mlp.fc1 belongs to the ViT/CLIP/Phi scheme
            family = "gemma" if fam.name == "llama" and gemma else fam.name
            t = {role: p + suffix for role, suffix in fam.parts.items()}
            missing = [v for v in t.values() if v not in ck]
            spec = {"family": family, "prefix": p.rstrip("."), "tensors": t,
                    "biases": {k: p + v for k, v in fam.bias_parts.items() if p + v in ck},
                    **({"expert": True} if fam.expert else {})}
            if missing:
                # reported for this block only; the scan goes on with the others
                spec["error"] = f"{family}-style block: tensor {missing[0]!r} is missing"
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
    if FAMILIES[fam].transpose:  # Conv1D: x @ W, so the Linear-style matrices are the transposes
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
        act, act_src = _activation(ck, spec["family"], spec["prefix"])
        progress(f"[{k}/{len(specs)}] {spec['prefix'] or '<root>'} ({spec['family']}, {act}) "
                 f"{time.perf_counter() - t0:.1f}s")
        entry: dict[str, Any] = {"block": spec["prefix"], "family": spec["family"],
                                 "tensors": spec["tensors"], "activation": act,
                                 "activation_source": act_src}
        if spec.get("expert"):
            entry["expert_note"] = ("one expert of a mixture-of-experts layer, analysed on its own as "
                                    "x -> x + E(x); the router's input-dependent mixing is outside the analysis")
        try:
            if spec.get("error"):
                raise InputError(spec["error"])
            if act not in activations.CATALOG:
                entry.update(_unsupported(ck, spec, act, act_src))
            else:
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


def _unsupported(ck: Checkpoint, spec: dict[str, Any], act: str, src: str) -> dict[str, Any]:
    """An entry for a block whose activation is not in the catalog (shapes from the header only)."""
    shape = ck.shape(spec["tensors"]["up"])
    m, d = (shape[1], shape[0]) if FAMILIES[spec["family"]].transpose else (shape[0], shape[1])
    return {"d": int(d), "m": int(m), "dtype": ck.dtype(spec["tensors"]["up"]),
            "biases_present": sorted(spec["biases"]), "biases_nonzero": [],
            "verdict": "undecided", "claim": None, "exact": False,
            "reason": f"activation {act!r} ({src}) is not in the catalog (absorb activations lists it); "
                      "no claim applies", "certificate": {"kind": "unsupported_activation"}}


def _judge(block: Block, entry: dict[str, Any]) -> dict[str, Any]:
    """The verdict of absorb check's decision procedure (oracle.decide.decide) for the real block,
    biases included: relu blocks by relu-complete, gelu-family blocks by relu-limit."""
    v = decide(block)
    return {"verdict": v.verdict, "claim": v.claim, "exact": v.exact, "reason": v.reason,
            "certificate": _slim(v.certificate)}


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
    """The note column: exactness, claim and the certificate's method."""
    c = e.get("certificate") or {}
    s = c.get("search") or {}
    how = s.get("method") or c.get("kind") or ""
    if e["verdict"] == "error" or not e.get("claim"):
        return e["reason"][:90]
    return f"{'exact' if e['exact'] else 'not exact'}, {e['claim']} [{how}]"


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
        print("no MLP blocks of a known naming scheme found (" + ", ".join(FAMILIES) + ")")
        return 0
    print(f"{'block':<22} {'family':<8} {'d':>5} {'m':>6} {'activation':<10} {'biases':<14} "
          f"{'verdict':<15} note")
    for e in doc["blocks"]:
        b = ",".join(e["biases_nonzero"]) or "none"
        name = e["block"] if len(e["block"]) <= 22 else ".." + e["block"][-20:]
        dd, mm = ("-" if e["d"] is None else e["d"]), ("-" if e["m"] is None else e["m"])
        print(f"{name:<22} {e['family']:<8} {dd:>5} {mm:>6} {e['activation']:<10} "
              f"{b:<14} {e['verdict']:<15} {_short(e)}")
        dist = e.get("bias_free_distance")
        if dist:
            lb = dist["certified_lower_bound_for_index_sets"]
            print(f"{'':<22}   index condition: relaxed distance from W_S U_S = -I "
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
