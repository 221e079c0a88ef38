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

``find_blocks(checkpoint)`` lists the blocks; ``load_block`` reads one of them as a Block
(tensors are loaded one block at a time, within the memory budget; a spec's ``views`` say how a
stored tensor becomes a projection: transposed, a range of rows, or one expert of a stacked
tensor).  The scan command is oracle/commands/scan.py.
"""

from __future__ import annotations

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


def block_activation(ck: Any, family: str, prefix: str = "") -> tuple[str, str]:
    """Catalog activation of a block: from config.json when present, else the family default."""
    fam = FAMILIES[family]
    raw, src = _config_activation(ck.config(), fam, prefix)
    if raw is None:
        return fam.default, f"default for {family}-style names (no activation in config.json)"
    table = _GATED if fam.gated else _UNGATED
    return table.get(raw, raw), f"{src} = {raw!r}"


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
    """The MLP blocks of a checkpoint: family, prefix and the tensor names of each projection.

    GGUF files name blocks ``blk.N`` and say their architecture in the metadata; ONNX blocks come
    from the graph (named by the Hugging Face table where the exporter kept the names); safetensors
    and PyTorch state dicts are matched against the Hugging Face table."""
    fmt = getattr(ck, "format", "safetensors")
    if fmt == "gguf":
        return gguf_blocks(ck)
    if fmt == "onnx":
        return [_name_onnx_block(s) for s in ck.blocks()]
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
            if missing:
                # reported for this block only; the scan goes on with the others
                spec["error"] = f"{family}-style block: tensor {missing[0]!r} is missing"
            elif fam.name == "phi3":
                _split_fused(ck, spec)
            found.append(spec)
    return sorted(found, key=lambda b: _natural(b["prefix"]))


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
