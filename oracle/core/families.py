"""Where each model family keeps its MLP blocks: tensor names, storage order, activation.

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

``find_blocks(checkpoint)`` lists the blocks; ``load_block`` reads one of them as a Block
(tensors are loaded one block at a time, within the memory budget).  The scan command is
oracle/commands/scan.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from oracle.core.blocks import Block
from oracle.core.errors import InputError
from oracle.core.io import Checkpoint, check_budget


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


def block_activation(ck: Checkpoint, family: str, prefix: str = "") -> tuple[str, str]:
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


def load_block(ck: Checkpoint, spec: dict[str, Any], activation: str) -> Block:
    t = spec["tensors"]
    fam = spec["family"]
    names = list(t.values()) + list(spec["biases"].values())
    for n in names:
        if len(ck.shape(n)) not in (1, 2):
            raise InputError(f"tensor {n!r} has shape {ck.shape(n)}; a projection is a matrix")
    # refuse before loading what would not fit the memory limit (ABSORB_MAX_MEMORY)
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
