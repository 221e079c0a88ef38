"""A numpy forward pass of a BERT-family encoder (bert, roberta), for the end-to-end check of
``absorb scan MODEL.safetensors --emit OUT.safetensors`` (oracle/decide/compile_safetensors.py).

No torch: the encoder is written out from its Hugging Face tensor names and config.json.

    embeddings:  LN(word[ids] + position[pos] + token_type[types])
    each layer:  a = LN(x + Wo attn(x) + bo)                      (attention.output.LayerNorm)
                 y = LN(a + W_down s(W_up a + b_up) + b_down)       (output.LayerNorm; the MLP skip)
    pooler:      tanh(W_p y[:, 0] + b_p)                            (when the checkpoint has one)

With ``mlp_skip=False`` the layer's last line is LN(W_down s(W_up a + b_up) + b_down): the MLP
block without its skip, which is what a compiled checkpoint computes.  Attention is multi-head
scaled dot-product with the padding positions masked out (the additive mask of Hugging Face's
BERT: the dtype's most negative number where attention_mask is 0).  Position ids are 0..L-1 for
bert; for roberta they count the real tokens from pad_token_id + 1 (padding positions get
pad_token_id), as Hugging Face's RobertaEmbeddings does from the mask.

The arithmetic runs in the float type asked for (float32 as the stored weights, or float64);
either way it is a floating-point measurement, never called exact.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
from scipy.special import erf

from oracle.core.errors import InputError

__all__ = ["ACTIVATIONS", "MODEL_TYPES", "encoder_names", "forward"]

MODEL_TYPES = ("bert", "roberta")


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + erf(x / np.sqrt(x.dtype.type(2.0))))


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    c = x.dtype.type(math.sqrt(2.0 / math.pi))
    return 0.5 * x * (1.0 + np.tanh(c * (x + x.dtype.type(0.044715) * x * x * x)))


# catalog name -> the function (the catalog activations a BERT config names: hidden_act gelu,
# gelu_new / gelu_pytorch_tanh, relu, silu)
ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "gelu": _gelu,
    "gelu_tanh": _gelu_tanh,
    "relu": lambda x: np.maximum(x, x.dtype.type(0.0)),
    "silu": lambda x: x / (1.0 + np.exp(-x)),
}


def _ln_names(base: str) -> tuple[str, str]:
    return base + ".weight", base + ".bias"


def encoder_names(base: str, n_layers: int, names: set[str]) -> dict[str, Any]:
    """The tensor names the forward reads (``base`` is the prefix before ``embeddings.``, e.g.
    '' or 'bert.'); InputError naming the first one missing.  Old checkpoints converted from
    TensorFlow call LayerNorm's parameters gamma/beta: both spellings are read."""
    def ln(p: str) -> tuple[str, str]:
        w, b = _ln_names(p)
        if w not in names and p + ".gamma" in names:
            return p + ".gamma", p + ".beta"
        return w, b

    e = base + "embeddings."
    tt = e + "token_type_embeddings.weight"
    out: dict[str, Any] = {"word": e + "word_embeddings.weight", "position": e + "position_embeddings.weight",
                           "token_type": tt if tt in names else None, "ln": ln(e + "LayerNorm"), "layers": []}
    need = [out["word"], out["position"], *out["ln"]]
    for i in range(n_layers):
        p = f"{base}encoder.layer.{i}."
        lay = {k: (p + v + ".weight", p + v + ".bias") for k, v in (
            ("q", "attention.self.query"), ("k", "attention.self.key"), ("v", "attention.self.value"),
            ("o", "attention.output.dense"), ("up", "intermediate.dense"), ("down", "output.dense"))}
        lay["ln_attn"] = ln(p + "attention.output.LayerNorm")
        lay["ln_out"] = ln(p + "output.LayerNorm")
        out["layers"].append(lay)
        need += [n for v in lay.values() for n in v]
    pool = (base + "pooler.dense.weight", base + "pooler.dense.bias")
    out["pooler"] = pool if all(n in names for n in pool) else None
    missing = [n for n in need if n not in names]
    if missing:
        raise InputError(f"tensor {missing[0]!r} is missing: the BERT encoder the end-to-end check runs "
                         f"needs it ({len(missing)} missing); not compiled")
    return out


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + x.dtype.type(eps)) * w + b


def _linear(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    return x @ w.T + b  # torch Linear: weight is out x in


def forward(get: Callable[[str], np.ndarray], cfg: dict[str, Any], names: dict[str, Any], model_type: str,
            activation: str, ids: np.ndarray, mask: np.ndarray, dtype: Any, mlp_skip: bool = True
            ) -> dict[str, np.ndarray]:
    """The encoder's outputs ``last_hidden_state`` (B x L x d) and, when the checkpoint has a
    pooler, ``pooler_output`` (B x d), computed in ``dtype`` from the tensors ``get`` returns."""
    dt = np.dtype(dtype)

    def t(n: str) -> np.ndarray:
        return np.asarray(get(n)).astype(dt, copy=False)

    act = ACTIVATIONS[activation]
    eps = float(cfg.get("layer_norm_eps", 1e-12))
    heads = int(cfg["num_attention_heads"])
    B, L = ids.shape
    if model_type == "roberta":
        pad = int(cfg.get("pad_token_id", 1))
        pos = np.cumsum(mask, axis=1) * mask + pad
    else:
        pos = np.broadcast_to(np.arange(L), (B, L))
    word, position = t(names["word"]), t(names["position"])
    if int(pos.max()) >= position.shape[0] or int(ids.max()) >= word.shape[0]:
        raise InputError(f"the test inputs need position {int(pos.max())} and token id {int(ids.max())}; the "
                         f"checkpoint has {position.shape[0]} positions and {word.shape[0]} tokens")
    x = word[ids] + position[pos]
    if names["token_type"]:
        x = x + t(names["token_type"])[0]  # token_type_ids are 0 for one-segment inputs
    x = _layer_norm(x, *(t(n) for n in names["ln"]), eps)
    d = x.shape[-1]
    if d % heads:
        raise InputError(f"hidden size {d} is not a multiple of num_attention_heads {heads}")
    dh = d // heads
    neg = np.where(mask[:, None, None, :] > 0, dt.type(0.0), np.finfo(dt).min).astype(dt)
    scale = dt.type(1.0 / math.sqrt(dh))
    for lay in names["layers"]:
        def split(z: np.ndarray) -> np.ndarray:
            return z.reshape(B, L, heads, dh).transpose(0, 2, 1, 3)

        q, k, v = (split(_linear(x, *(t(n) for n in lay[r]))) for r in ("q", "k", "v"))
        s = (q @ k.transpose(0, 1, 3, 2)) * scale + neg
        s = np.exp(s - s.max(axis=-1, keepdims=True))
        p = s / s.sum(axis=-1, keepdims=True)
        ctx = (p @ v).transpose(0, 2, 1, 3).reshape(B, L, d)
        a = _layer_norm(x + _linear(ctx, *(t(n) for n in lay["o"])), *(t(n) for n in lay["ln_attn"]), eps)
        h = _linear(act(_linear(a, *(t(n) for n in lay["up"]))), *(t(n) for n in lay["down"]))
        x = _layer_norm(a + h if mlp_skip else h, *(t(n) for n in lay["ln_out"]), eps)
    out = {"last_hidden_state": x}
    if names["pooler"]:
        out["pooler_output"] = np.tanh(_linear(x[:, 0], *(t(n) for n in names["pooler"])))
    return out

