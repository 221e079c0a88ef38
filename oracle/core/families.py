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

Phi-3 fuses gate and up into ``<p>mlp.gate_up_proj`` (2m x d: the gate's m rows, then up's),
split here into two views of the one matrix.

Beyond these Hugging Face names: GGUF files (``oracle.core.formats.gguf_file``) name their blocks
``blk.N.ffn_{gate,up,down}`` and state ``general.architecture``, from which the activation follows
as llama.cpp builds the block (table below: llama/qwen2/mistral ... silu gate, gemma* tanh-gelu
gate, gpt2/bert ... ungated tanh-gelu with biases, phi3's fused ``ffn_up``, MoE experts
``ffn_*_exps`` one block per expert); ONNX blocks come from the graph
(``oracle.core.formats.onnx_file``) and take a family name from this table when the exporter kept
the module path in a tensor or node name; PyTorch state dicts use the table as safetensors do.

Matrices the name table leaves are paired by shape within each layer (``_by_structure``: one
(m, d) with one (d, m) matrix, two (m, d) with one (d, m) for a gated block, a fused (2m, d)
with a (d, m)), with d from config.json or, as a guess, the most common dimension; orientation,
gate and activation come from biases, names and config.json (its activation key, or what its
model_type fixes), and whatever none of them says is recorded in the spec's
``discovery["guessed"]``.  Every matrix in no block is returned with the reason it was skipped
(``refused`` where it is a quantized layer this package does not read).

``discover(checkpoint)`` returns the blocks and the skipped matrices (``find_blocks`` the blocks
only); ``load_block`` reads one block as a Block (tensors are loaded one block at a time, within
the memory budget; a spec's ``views`` say how a stored tensor becomes a projection: transposed, a
range of rows, or one expert of a stacked tensor).  ``spec_entry``, ``inventory_digest`` and
``weights_digest`` give the parts of a scan document that ``absorb recheck`` compares.  The scan
itself is oracle/decide/scan.py; the command that prints it is oracle/commands/scan.py.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from oracle.core.blocks import Block
from oracle.core.errors import InputError
from oracle.core.io import check_budget


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
    # Phi-3: one fused matrix of 2m rows, the gate's rows first, then up's (chunk(2) in HF's Phi3MLP)
    _fam("phi3", r"^(?P<p>.*?)mlp\.gate_up_proj\.weight$",
         {"gate": "mlp.gate_up_proj.weight", "up": "mlp.gate_up_proj.weight", "down": "mlp.down_proj.weight"},
         "swiglu"),
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


# where Hugging Face configs name the MLP activation (DistilBERT and Falcon say "activation")
_ACT_KEYS = ("hidden_act", "activation_function", "hidden_activation", "activation")
# model types whose Hugging Face MLP fixes the activation in code, with no config key for it
MODEL_TYPE_ACTIVATION = {
    "bloom": ("gelu_tanh", "model_type 'bloom': Hugging Face's BloomGelu is the tanh form of gelu"),
    "mpt": ("gelu", "model_type 'mpt': Hugging Face's MptMLP applies nn.GELU(approximate='none')"),
    "falcon": ("gelu", "model_type 'falcon': Hugging Face's FalconMLP applies gelu unless config.activation names another"),
}


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
        for key in _ACT_KEYS:
            if isinstance(c.get(key), str):
                where = "" if c is cfg else ("text_config." if c is cfg.get("text_config") else "vision_config.")
                return c[key], f"config.json {where}{key}"
    if fam.name == "fc" and str(cfg.get("model_type", "")).startswith("clip"):
        return "quick_gelu", "CLIP default (quick_gelu)"
    return None, ""


def _model_type(cfg: dict[str, Any]) -> Optional[str]:
    t = cfg.get("model_type")
    return t if isinstance(t, str) else None


def block_activation(ck: Any, family: str, prefix: str = "") -> tuple[str, str]:
    """Catalog activation of a block: from config.json when present, else the family default."""
    fam = FAMILIES[family]
    cfg = ck.config()
    raw, src = _config_activation(cfg, fam, prefix)
    if raw is None:
        known = MODEL_TYPE_ACTIVATION.get(_model_type(cfg) or "")
        if known and not fam.gated:
            return known[0], f"config.json {known[1]}"
        return fam.default, f"default for {family}-style names ({GUESS} no activation in config.json)"
    table = _GATED if fam.gated else _UNGATED
    return table.get(raw, raw), f"{src} = {raw!r}"


GUESS = "guessed:"  # activation sources that start a clause with this word are guesses


def spec_activation(ck: Any, spec: dict[str, Any]) -> tuple[str, str]:
    """A block's activation and its source: what the file itself says (GGUF metadata, the ONNX
    graph) when the spec carries it, else the family table and config.json."""
    if "activation" in spec:
        return spec["activation"] or "unknown", spec["activation_source"]
    return block_activation(ck, spec["family"], spec["prefix"])


def _is_gemma(ck: Any) -> bool:
    cfg = ck.config()
    types = [cfg.get("model_type"), (cfg.get("text_config") or {}).get("model_type")]
    return any(isinstance(t, str) and t.startswith("gemma") for t in types)


def find_blocks(ck: Any) -> list[dict[str, Any]]:
    """The MLP blocks of a checkpoint: family, prefix and the tensor names of each projection
    (``discover`` also says what it skipped)."""
    return discover(ck)[0]


def discover(ck: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The MLP blocks of a checkpoint, and every linear layer (matrix) that is in none of them,
    with the reason it was skipped (``refused: True`` where the reader refuses to read it).

    GGUF files name blocks ``blk.N`` and say their architecture in the metadata; ONNX blocks come
    from the graph (named by the Hugging Face table where the exporter kept the names); safetensors
    and PyTorch state dicts are matched against the Hugging Face table first, and the matrices it
    leaves are paired by shape within each layer (``_by_structure``).  Each spec carries
    ``discovery``: the rule that found it and what it guessed."""
    fmt = getattr(ck, "format", "safetensors")
    if fmt == "gguf":
        specs = gguf_blocks(ck)
        for sp in specs:
            sp["discovery"] = {"rule": "GGUF tensor names blk.N.ffn_*", "guessed": []}
        return specs, _unused_matrices(ck, specs, lambda n: "not a feed-forward tensor (blk.N.ffn_*)")
    if fmt == "onnx":
        specs = [_name_onnx_block(sp) for sp in ck.blocks()]
        for sp in specs:
            sp["discovery"] = {"rule": "ONNX graph: linear -> elementwise activation -> linear", "guessed": []}
        return specs, _onnx_skipped(ck, specs)
    specs = _by_names(ck)
    more, skipped = _by_structure(ck, specs)
    specs = sorted(specs + more, key=lambda b: _natural(b["prefix"]))
    return specs, skipped


def _by_names(ck: Any) -> list[dict[str, Any]]:
    """Blocks matched against the Hugging Face table (FAMILY_LIST)."""
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
            if fam.transpose:  # Conv1D: x @ W, so the Linear-style matrices are the transposes
                spec["views"] = {"up": ("T",), "down": ("T",)}
            ints = [v for v in t.values() if v in ck and _is_int(ck, v)]
            if missing:
                # reported for this block only; the scan goes on with the others
                spec["error"] = f"{family}-style block: tensor {missing[0]!r} is missing"
            elif ints:
                spec["error"] = (f"tensor {ints[0]!r} is stored as {ck.dtype(ints[0])}: {_INT_WEIGHT}")
            elif fam.name == "phi3":
                _split_fused(ck, spec)
            spec["discovery"] = {"rule": f"Hugging Face names of {fam.name}-style models", "guessed": []}
            found.append(spec)
    return sorted(found, key=lambda b: _natural(b["prefix"]))


# ---------------------------------------------------------------------- pairing by shape

# words of attention projections' names: such matrices are never paired as an MLP
_ATTENTION_WORDS = ("attn", "attention", "q_proj", "k_proj", "v_proj", "o_proj", "query", "key", "value",
                    "qkv", "q_lin", "k_lin", "v_lin", "out_lin")
_EMBEDDING_WORDS = ("embed", "wte", "wpe", "lm_head", "shared.weight")
_GATE_TOKENS = ("gate", "w1")  # name parts (split at . _ /) that mark the gate
_HIDDEN_KEYS = ("hidden_size", "n_embd", "d_model", "dim", "model_dim", "embed_dim")
LAYER_KEYS = ("num_hidden_layers", "n_layer", "num_layers", "n_layers")


def _tokens(name: str) -> list[str]:
    return [t for t in re.split(r"[._/]", name.lower()) if t]


def _has_word(name: str, words: tuple[str, ...]) -> bool:
    low = name.lower()
    return any(w in low for w in words)


def hidden_size(ck: Any, mats: dict[str, tuple[int, int]]) -> tuple[Optional[int], str]:
    """The model width d: from config.json, else the most common dimension of its matrices."""
    cfg = ck.config()
    for c in (cfg, cfg.get("text_config") or {}):
        for k in _HIDDEN_KEYS:
            v = c.get(k)
            if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                return v, f"config.json {k} = {v}"
    count: dict[int, int] = {}
    for shape in mats.values():
        for x in set(shape):
            count[x] = count.get(x, 0) + 1
    if not count:
        return None, "no matrices"
    d = max(sorted(count), key=lambda x: count[x])
    return d, f"the most common dimension of the checkpoint's matrices ({count[d]} of {len(mats)})"


def _bias_of(ck: Any, name: str) -> Optional[str]:
    if not name.endswith("weight"):
        return None
    b = name[: -len("weight")] + "bias"
    return b if b in ck and len(ck.shape(b)) == 1 else None


_INT_WEIGHT = ("a quantized weight (bitsandbytes int8, GPTQ/AWQ packed integers, ...) whose scales and "
               "packing are not read here; refused")


def _is_int(ck: Any, name: str) -> bool:
    """Whether a tensor is stored as integers or booleans (int8, I32, uint8, BOOL, ...)."""
    t = str(ck.dtype(name)).lower()
    return t.startswith(("int", "uint", "bool")) or re.fullmatch(r"[iu]\d+", t) is not None


def _is_float_matrix(ck: Any, name: str) -> bool:
    return len(ck.shape(name)) == 2 and not _is_int(ck, name)


def _by_structure(ck: Any, named: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Blocks among the matrices the name table left: within each layer (names up to their last
    numeric component), a matrix of shape (m, d) and one of shape (d, m), m != d, are an ungated
    block; two of shape (m, d) and one (d, m) a gated one; one (2m, d) and one (d, m) a fused
    gated one.  d is the model width (config.json, else the most common dimension).  Orientation,
    gate and activation are read from biases, names and config.json where they say it, and
    recorded as guesses where they do not."""
    used = {n for sp in named for n in list(sp["tensors"].values()) + list(sp["biases"].values())}
    mats = {n: tuple(ck.shape(n)) for n in ck.names() if n not in used and _is_float_matrix(ck, n)}
    d, d_src = hidden_size(ck, mats)
    skipped: list[dict[str, Any]] = []
    specs: list[dict[str, Any]] = []
    for n in ck.names():
        # integer matrices named as weights are quantized linear layers: listed as refused
        if n not in used and len(ck.shape(n)) == 2 and _is_int(ck, n) and n.endswith("weight"):
            skipped.append({"tensor": n, "shape": list(ck.shape(n)),
                            "reason": f"stored as {ck.dtype(n)}: {_INT_WEIGHT}", "refused": True})

    def skip(n: str, why: str) -> None:
        skipped.append({"tensor": n, "shape": list(mats[n]), "reason": why})

    groups: dict[str, list[str]] = {}
    for n in mats:
        mt = re.match(r"^(.*\.\d+\.)", n)
        groups.setdefault(mt.group(1) if mt else "", []).append(n)
    for layer, names in sorted(groups.items(), key=lambda kv: _natural(kv[0])):
        cand = []
        for n in names:
            shape = mats[n]
            if _has_word(n, _ATTENTION_WORDS):
                skip(n, "attention projection (by its name)")
            elif _has_word(n, _EMBEDDING_WORDS):
                skip(n, "embedding or output head (by its name)")
            elif d is None or d not in shape:
                skip(n, f"neither dimension is the model width d = {d} ({d_src})")
            elif shape == (d, d):
                skip(n, f"square d x d matrix (d = {d}): an attention or pooler projection, never an MLP "
                        "projection (those map d to a width m != d)")
            else:
                cand.append(n)
        ups: dict[int, list[str]] = {}
        downs: dict[int, list[str]] = {}
        for n in cand:
            a, b = mats[n]
            (ups.setdefault(a, []) if b == d else downs.setdefault(b, [])).append(n)
        done: set[str] = set()
        for m in sorted(set(ups) | set(downs)):
            U, D = ups.get(m, []), downs.get(m, [])
            fused = ups.get(2 * m, []) if not U else []
            spec = None
            if len(D) == 1 and len(U) in (1, 2):
                spec = _pair(ck, U, D[0], m, d)
            elif len(D) == 1 and not U and len(fused) == 1 and m * 2 not in downs:
                spec = _pair_fused(ck, fused[0], D[0], m)
            if spec is not None:
                done.update(spec["tensors"].values())
                spec["discovery"]["rule"] += f" (d = {d}: {d_src})"
                if not d_src.startswith("config.json"):
                    spec["discovery"]["guessed"].insert(0, f"model width d = {d}: {d_src}; no hidden size in "
                                                           "config.json")
                specs.append(spec)
        for n in cand:
            if n in done:
                continue
            a, b = mats[n]
            m = a if b == d else b
            if len(ups.get(m, [])) + len(downs.get(m, [])) > 1:
                why = (f"layer {layer or '<top>'} has {len(ups.get(m, []))} matrices of shape ({m}, {d}) and "
                       f"{len(downs.get(m, []))} of shape ({d}, {m}): not an MLP pattern (1 or 2 of the "
                       "first, 1 of the second), not paired")
            else:
                why = f"no partner of shape {(d, m) if b == d else (m, d)} in layer {layer or '<top>'}"
            skip(n, why)
    cfg = ck.config()
    family = _model_type(cfg) or "structure"
    for sp in specs:
        sp["family"] = family
        act, src = structural_activation(cfg, "gate" in sp["tensors"], sp["prefix"])
        sp["activation"], sp["activation_source"] = act, src
        if GUESS in src:
            sp["discovery"]["guessed"].append(f"activation {act}: no activation in config.json")
    return specs, sorted(skipped, key=lambda e: _natural(e["tensor"]))


def _prefix(names: list[str]) -> str:
    common = names[0]
    for n in names[1:]:
        k = 0
        while k < min(len(common), len(n)) and common[k] == n[k]:
            k += 1
        common = common[:k]
    return common[: common.rfind(".") + 1].rstrip(".") if "." in common else ""


def _pair(ck: Any, U: list[str], down: str, m: int, d: int) -> Optional[dict[str, Any]]:
    """An ungated (one U) or gated (two U) block from matrices of shapes (m, d) and (d, m)."""
    guessed: list[str] = []
    views: dict[str, tuple] = {}
    if len(U) == 1:
        up = U[0]
        bu, bd = _bias_of(ck, up), _bias_of(ck, down)
        lu = ck.shape(bu)[0] if bu else None
        ld = ck.shape(bd)[0] if bd else None
        linear = lu in (None, m) and ld in (None, d)
        conv = lu in (None, d) and ld in (None, m)
        if conv and not linear:
            # biases of the output sizes of Conv1D storage (in x out): the (d, m) matrix is the up
            # projection, stored transposed, and the (m, d) one the down projection
            up, down = down, up
            views = {"up": ("T",), "down": ("T",)}
            rule = "by shape; stored in x out (Conv1D), as the biases' lengths say"
        elif linear and not conv:
            rule = "by shape; stored out x in (torch Linear), as the biases' lengths say"
        elif linear and conv and (lu is not None or ld is not None):  # pragma: no cover - needs m == d
            return None
        else:
            rule = "by shape"
            guessed.append("orientation: stored out x in (torch Linear) assumed; no bias tells it from "
                           "Conv1D's in x out")
        t = {"up": up, "down": down}
    else:
        g = [n for n in U if any(tok in _GATE_TOKENS for tok in _tokens(n))]
        if len(g) == 1:
            gate = g[0]
            rule = f"by shape; the gate is the matrix whose name says so ({gate!r})"
        else:
            gate = U[0]
            rule = "by shape"
            guessed.append(f"gate: {gate!r} taken as the gate and {[n for n in U if n != gate][0]!r} as up "
                           "(no name says which; the first in name order)")
        up = next(n for n in U if n != gate)
        t = {"gate": gate, "up": up, "down": down}
        guessed.append("orientation: stored out x in (torch Linear) assumed for a gated block")
    biases = {}
    for role, n in t.items():
        b = _bias_of(ck, n)
        if b is not None:
            biases["b_" + role] = b
    return {"prefix": _prefix(list(t.values())), "tensors": t, "biases": biases, "views": views,
            "discovery": {"rule": rule, "guessed": guessed}}


def _pair_fused(ck: Any, fused: str, down: str, m: int) -> dict[str, Any]:
    """A gated block whose gate and up projections are one (2m, d) matrix."""
    spec = {"prefix": _prefix([fused, down]), "tensors": {"gate": fused, "up": fused, "down": down},
            "biases": {}, "views": {"gate": ("rows", 0, m), "up": ("rows", m, 2 * m)},
            "discovery": {"rule": "by shape: a (2m, d) matrix with a (d, m) one, gate and up fused",
                          "guessed": ["fused gate/up: the first m rows taken as the gate (the order of "
                                      "Hugging Face's Phi-3), the last m as up"]}}
    return spec


def structural_activation(cfg: dict[str, Any], gated: bool, prefix: str) -> tuple[str, str]:
    """The activation of a block found by shape: config.json's activation key, else what its
    model_type fixes, else gelu (ungated) or swiglu (gated), recorded as a guess."""
    scopes = [cfg, cfg.get("text_config") or {}]
    for c in scopes:
        for key in _ACT_KEYS:
            raw = c.get(key)
            if isinstance(raw, str):
                table = _GATED if gated else _UNGATED
                return table.get(raw, raw), f"config.json {key} = {raw!r}"
    known = MODEL_TYPE_ACTIVATION.get(_model_type(cfg) or "")
    if known and not gated:
        return known[0], f"config.json {known[1]}"
    if gated:
        return "swiglu", f"{GUESS} swiglu, the most common gated MLP (no activation in config.json)"
    return "gelu", f"{GUESS} gelu, the most common ungated MLP activation (no activation in config.json)"


def _unused_matrices(ck: Any, specs: list[dict[str, Any]], why: Any) -> list[dict[str, Any]]:
    used = {n for sp in specs for n in list(sp["tensors"].values()) + list(sp["biases"].values())}
    out = []
    for n in ck.names():
        shape = tuple(ck.shape(n))
        if n not in used and len(shape) >= 2:
            out.append({"tensor": n, "shape": list(shape), "reason": why(n)})
    return out


def _onnx_skipped(ck: Any, specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ONNX linear layers (MatMul/Gemm with a constant weight) in no block, and the refused ones."""
    used = {n for sp in specs for n in sp["tensors"].values()}
    out = []
    refused = ck.refused_layers()
    seen = {r["node"] for r in refused}
    for r in refused:
        out.append({"tensor": r["weight"], "node": r["node"], "shape": r["shape"], "reason": r["reason"],
                    "refused": True})
    for lin in ck.linear_layers():
        if lin["weight"] in used or lin["node"] in seen:
            continue
        if "error" in lin:
            out.append({"tensor": lin["weight"], "node": lin["node"], "shape": None,
                        "reason": f"the graph computes this weight with {lin['error']}; refused", "refused": True})
        else:
            out.append({"tensor": lin["weight"], "node": lin["node"], "shape": lin["shape"],
                        "reason": "not in an MLP block: no elementwise activation between this linear "
                                  "layer and another one (an attention or output projection)"})
    return out


def _split_fused(ck: Any, spec: dict[str, Any]) -> None:
    """Views for a fused gate/up matrix of 2m rows: rows [0, m) are the gate, [m, 2m) are up."""
    t = spec["tensors"]
    m = ck.shape(t["down"])[-1]
    if len(ck.shape(t["up"])) != 2 or ck.shape(t["up"])[0] != 2 * m:
        spec["error"] = (f"fused gate/up tensor {t['up']!r} has shape {ck.shape(t['up'])}; "
                         f"expected {2 * m} rows (twice the width of {t['down']!r})")
        return
    spec["views"] = {"gate": ("rows", 0, m), "up": ("rows", m, 2 * m)}
    b = spec["biases"].pop("b_gate", None)
    if b is not None:  # the fused bias is split the same way
        spec["biases"]["b_gate"] = spec["biases"]["b_up"] = b
        spec["views"].update({"b_gate": ("rows", 0, m), "b_up": ("rows", m, 2 * m)})


def _natural(s: str) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


# ---------------------------------------------------------------------- ONNX names

def _name_onnx_block(spec: dict[str, Any]) -> dict[str, Any]:
    """Name an ONNX block by the Hugging Face table when the exporter kept a matching tensor or
    node name (initializers are often anonymous, ``onnx::MatMul_481``, but biases and node paths
    usually keep the module path); otherwise it stays ``mlp.N`` of family ``onnx``."""
    for name in spec.get("hf_names", []):
        cand = name[: -len("bias")] + "weight" if name.endswith(".bias") else name
        for fam in FAMILY_LIST:
            mt = fam.key.match(cand)
            if mt and not (fam.name == "opt" and mt.group("p").endswith("mlp.")):
                spec["family"] = fam.name
                spec["prefix"] = mt.group("p").rstrip(".") or spec["prefix"]
                return spec
    return spec


# ---------------------------------------------------------------------- GGUF

# general.architecture -> the activation of its feed-forward blocks as llama.cpp builds them
# (ggml_gelu is the tanh form of gelu; a gated block multiplies the gate's activation by up)
GGUF_GATED_SILU = ("llama", "mistral", "mistral3", "qwen2", "qwen3", "qwen2moe", "qwen3moe", "qwen2vl",
                   "granite", "granitemoe", "internlm2", "exaone", "olmo", "olmo2", "olmoe", "deepseek",
                   "deepseek2", "minicpm", "minicpm3", "stablelm", "smollm3", "phi3", "phimoe", "command-r",
                   "cohere2", "dbrx", "arctic", "baichuan", "xverse", "orion", "nomic-bert", "llama4")
GGUF_GATED_GELU_TANH = ("gemma", "gemma2", "gemma3", "gemma3n", "gemma-embedding")
GGUF_UNGATED_GELU_TANH = ("gpt2", "starcoder", "starcoder2", "phi2", "bloom", "falcon", "gptneox", "mpt",
                          "codeshell", "bert", "refact")
GGUF_FUSED_GATE_UP = ("phi3",)  # ffn_up holds the gate (first m rows) and up (last m rows)


def gguf_activation(arch: Optional[str], gated: bool) -> tuple[str, str]:
    """The catalog activation of a GGUF block from its architecture, and where it comes from."""
    where = f"GGUF general.architecture = {arch!r}"
    if arch in GGUF_GATED_SILU and gated:
        return "swiglu", f"{where} (llama.cpp: silu gate times up)"
    if arch in GGUF_GATED_GELU_TANH and gated:
        return "geglu_tanh", f"{where} (llama.cpp: tanh-form gelu gate times up)"
    if arch in GGUF_UNGATED_GELU_TANH and not gated:
        return "gelu_tanh", f"{where} (llama.cpp: ungated block with ggml_gelu, the tanh form of gelu)"
    if gated:
        return "swiglu", (f"default for a gated GGUF block (architecture {arch!r} is not in the table; "
                          "silu is llama.cpp's most common gate)")
    return "gelu_tanh", f"default for an ungated GGUF block (architecture {arch!r} is not in the table)"


def gguf_blocks(g: Any) -> list[dict[str, Any]]:
    """The feed-forward blocks of a GGUF file: ``blk.N.ffn_{gate,up,down}``, phi3's fused
    ``ffn_up``, the experts of ``ffn_*_exps`` (one block each) and shared experts ``ffn_*_shexp``."""
    arch = g.architecture
    layers = sorted({int(mt.group(1)) for n in g.names() for mt in [re.match(r"^blk\.(\d+)\.ffn_", n)] if mt})
    specs: list[dict[str, Any]] = []

    def add(prefix: str, t: dict[str, str], views: dict[str, tuple], expert: bool = False) -> dict[str, Any]:
        act, src = gguf_activation(arch, "gate" in t)
        spec: dict[str, Any] = {"family": f"gguf:{arch or 'unknown'}", "prefix": prefix, "tensors": t,
                                "biases": {}, "views": views, "activation": act, "activation_source": src}
        if expert:
            spec["expert"] = True
        for role, name in t.items():
            b = name[: -len("weight")] + "bias"
            if name.endswith(".weight") and b in g and role not in views:
                spec["biases"]["b_" + role] = b
        missing = [v for v in t.values() if v not in g]
        if missing:
            spec["error"] = f"GGUF block {prefix}: tensor {missing[0]!r} is missing"
        specs.append(spec)
        return spec

    for n in layers:
        p = f"blk.{n}."
        up, gate, down = p + "ffn_up.weight", p + "ffn_gate.weight", p + "ffn_down.weight"
        if up in g or down in g:
            if gate in g:
                add(f"blk.{n}", {"gate": gate, "up": up, "down": down}, {})
            elif arch in GGUF_FUSED_GATE_UP and up in g and down in g:
                m = g.shape(down)[-1]
                s = add(f"blk.{n}", {"gate": up, "up": up, "down": down},
                        {"gate": ("rows", 0, m), "up": ("rows", m, 2 * m)})
                if g.shape(up)[0] != 2 * m:
                    s["error"] = f"GGUF block blk.{n}: fused {up!r} has {g.shape(up)[0]} rows, expected {2 * m}"
            else:
                add(f"blk.{n}", {"up": up, "down": down}, {})
        ex = {r: p + f"ffn_{r}_exps.weight" for r in ("gate", "up", "down")}
        if any(v in g for v in ex.values()):
            shapes = [g.shape(v) for v in ex.values() if v in g]
            if any(len(s) != 3 or s[0] != shapes[0][0] for s in shapes):
                add(f"blk.{n}.experts", ex, {})["error"] = (
                    f"GGUF block blk.{n}: expert tensors must be 3-dimensional with one expert count")
            else:
                for e in range(shapes[0][0]):
                    add(f"blk.{n}.expert.{e}", dict(ex), {r: ("expert", e) for r in ex}, expert=True)
        sh = {r: p + f"ffn_{r}_shexp.weight" for r in ("gate", "up", "down")}
        if any(v in g for v in sh.values()):
            add(f"blk.{n}.shared_expert", sh, {}, expert=True)
    return specs


# ---------------------------------------------------------------------- loading

def _view_bytes(ck: Any, name: str, view: Optional[tuple]) -> int:
    if view and view[0] == "expert":
        return ck.float64_bytes([name]) // max(1, ck.shape(name)[0])
    if view and view[0] == "rows":
        return ck.float64_bytes([name]) * (view[2] - view[1]) // max(1, ck.shape(name)[0])
    return ck.float64_bytes([name])


def _roles(spec: dict[str, Any]) -> dict[str, str]:
    return {**spec["tensors"], **spec["biases"]}


def block_float64_bytes(ck: Any, spec: dict[str, Any]) -> int:
    """Bytes the block's arrays take as float64 (what the memory budget is planned from)."""
    views = spec.get("views", {})
    return sum(_view_bytes(ck, n, views.get(r)) for r, n in _roles(spec).items())


def block_dtype(ck: Any, spec: dict[str, Any]) -> str:
    """The stored types of the block's matrices, gate/up/down in that order, deduplicated when equal
    ('float32', or for a quantized GGUF block e.g. 'Q5_0/Q5_0/Q6_K')."""
    kinds = [ck.dtype(spec["tensors"][r]) for r in ("gate", "up", "down") if r in spec["tensors"]]
    return kinds[0] if len(set(kinds)) == 1 else "/".join(kinds)


def load_block(ck: Any, spec: dict[str, Any], activation: str) -> Block:
    """Read one block as a Block: each projection loaded once, in our [out, in] orientation."""
    views = spec.get("views", {})
    for role, n in _roles(spec).items():
        view = views.get(role)
        want = (1, 2) if not view or view[0] != "expert" else (2, 3)
        if len(ck.shape(n)) not in want:
            raise InputError(f"tensor {n!r} has shape {ck.shape(n)}; a projection is a matrix")
    # refuse before loading what would not fit the memory limit (ABSORB_MAX_MEMORY)
    check_budget(ck.path, block_float64_bytes(ck, spec), None)
    cache: dict[tuple, np.ndarray] = {}

    def get(role: str) -> np.ndarray:
        name, view = _roles(spec)[role], views.get(role)
        index = view[1] if view and view[0] == "expert" else None
        if (name, index) not in cache:
            cache[(name, index)] = ck.tensor(name, index) if index is not None else ck.tensor(name)
        a = cache[(name, index)]
        if view and view[0] == "rows":
            a = a[view[1]:view[2]]
        if view and view[0] == "T":
            a = a.T
        return np.ascontiguousarray(a)

    kw: dict[str, Any] = {"W_up": get("up"), "W_down": get("down")}
    if "gate" in spec["tensors"]:
        kw["W_gate"] = get("gate")
    for k in spec["biases"]:
        kw[k] = get(k)
    return Block(activation, **kw)


def block_dims(ck: Any, spec: dict[str, Any]) -> tuple[int, int]:
    """(d, m) of a block from the header shape of its down projection (nothing is read)."""
    shape = tuple(ck.shape(spec["tensors"]["down"]))
    view = spec.get("views", {}).get("down")
    if view and view[0] == "expert":
        shape = shape[1:]
    if view and view[0] == "T":
        shape = shape[::-1]
    if len(shape) != 2:
        raise InputError(f"tensor {spec['tensors']['down']!r} has shape {shape}; a projection is a matrix")
    return int(shape[0]), int(shape[1])


# ---------------------------------------------------------------------- report entries and digests

def spec_entry(ck: Any, spec: dict[str, Any], act: str, act_src: str) -> dict[str, Any]:
    """The part of a scan entry that discovery fixes (names, shapes, activation, how it was found);
    ``absorb recheck`` recomputes it from the checkpoint and compares."""
    entry: dict[str, Any] = {"block": spec["prefix"], "family": spec["family"], "tensors": dict(spec["tensors"]),
                             "activation": act, "activation_source": act_src,
                             "discovery": {"rule": spec["discovery"]["rule"],
                                           "guessed": list(spec["discovery"]["guessed"])}}
    if spec["biases"]:
        entry["bias_tensors"] = dict(spec["biases"])
    if spec.get("views"):
        entry["views"] = {r: list(v) for r, v in spec["views"].items()}
    shapes = {}
    for role, n in {**spec["tensors"], **spec["biases"]}.items():
        try:
            shapes[role] = list(ck.shape(n))
        except (InputError, KeyError):
            shapes[role] = None
    entry["shapes"] = shapes
    if GUESS in act_src and not any(g.startswith("activation") for g in entry["discovery"]["guessed"]):
        entry["discovery"]["guessed"].append(f"activation {act}: {act_src.split(GUESS, 1)[1].strip(' )')}")
    for k in ("skip_in_graph", "nodes"):
        if k in spec:
            entry[k] = spec[k]
    if spec.get("expert"):
        entry["expert_note"] = ("one expert of a mixture-of-experts layer, analysed on its own as "
                                "x -> x + E(x); the router's input-dependent mixing is outside the analysis")
    return entry


def inventory_digest(ck: Any) -> str:
    """SHA-256 of the checkpoint's tensor list: every name with its shape and stored type."""
    h = hashlib.sha256()
    for n in ck.names():
        h.update(json.dumps([n, list(ck.shape(n)), ck.dtype(n)]).encode() + b"\n")
    return h.hexdigest()


def weights_digest(block: Block) -> str:
    """SHA-256 of a block's weights as analysed (float64, little-endian, role by role, with shapes)."""
    h = hashlib.sha256()
    for role in ("W_gate", "W_up", "W_down", "b_gate", "b_up", "b_down"):
        a = getattr(block, role)
        if a is None:
            continue
        arr = np.ascontiguousarray(np.asarray(a, dtype="<f8"))
        h.update(f"{role}{list(arr.shape)}".encode())
        h.update(arr.tobytes())
    return h.hexdigest()


def nonzero_biases(block: Block) -> list[str]:
    """The biases of a block that are present and not all zero."""
    return [n for n in ("b_up", "b_gate", "b_down")
            if getattr(block, n) is not None and np.any(getattr(block, n) != 0)]


# stored types that hold the weights' numbers themselves (widened exactly)
FLOAT_STORAGE = {"float64", "float32", "float16", "bfloat16", "F64", "F32", "F16", "BF16"}


def weights_note(ck: Any, spec: dict[str, Any]) -> dict[str, Any]:
    """How the weights analysed were obtained when the file does not store them as floats: GGUF
    types dequantized by gguf.quants, or ONNX weights computed by the graph (after load_block)."""
    names = list(spec["tensors"].values()) + list(spec["biases"].values())
    out: dict[str, Any] = {}
    if getattr(ck, "format", "") == "onnx":
        ar = [a for a in (ck.arithmetic(n) for n in dict.fromkeys(names)) if a]
        if ar:
            out["graph_arithmetic"] = ar
            ints = sorted({t for n in names if n in ck.virtual for t in ck.virtual[n].int_leaves()})
            out["quantization"] = (
                f"computed by the graph from {'/'.join(ints) or 'stored'} values in its own types "
                f"({', '.join(sorted({a['element_type'] for a in ar}))}), as onnxruntime computes them: each "
                "float operation rounded to nearest, ties to even (graph_arithmetic counts the rounded "
                "entries); the verdict is about these values, widened exactly")
            out["quantized_types"] = [f"{t}*scale" for t in ints] or ["computed"]
        return out
    quantized = sorted({ck.dtype(n) for n in spec["tensors"].values()} - FLOAT_STORAGE)
    if quantized and getattr(ck, "format", "") == "gguf":
        out["quantized_types"] = quantized
        out["quantization"] = (f"{'/'.join(quantized)} weights dequantized by gguf.quants.dequantize "
                               "(float32, widened exactly); the verdict is about the dequantized weights")
    return out


def shared_layers(ck: Any, n_blocks: int) -> Optional[dict[str, Any]]:
    """When config.json counts more layers than the checkpoint stores MLP blocks, and the count is
    a multiple (ALBERT shares one layer among all), how many layers each stored block serves."""
    cfg = ck.config()
    for k in LAYER_KEYS:
        n = cfg.get(k)
        if isinstance(n, int) and not isinstance(n, bool) and n_blocks and n > n_blocks and n % n_blocks == 0:
            return {"layers": n, "stored_blocks": n_blocks, "layers_per_block": n // n_blocks,
                    "source": f"config.json {k} = {n}",
                    "note": f"the checkpoint stores {n_blocks} MLP block(s) for {n} layers: each is applied "
                            f"{n // n_blocks} times (shared layers); each verdict holds for every application"}
    return None
