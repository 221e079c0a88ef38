"""Compile a BERT-family safetensors checkpoint's MLP skips away: ``absorb scan MODEL.safetensors
--emit OUT.safetensors`` (safetensors in, safetensors out, with its config.json).

The checkpoints compiled are post-LN encoders of model_type bert or roberta (config.json beside the
file, or a Hugging Face directory): each layer's MLP block x + B(x) is read from
``intermediate.dense`` (up) and ``output.dense`` (down) and replaced by the residual-free block
that oracle/decide/compile.py plans for it (``plan_block``: the minimal construction where a claim
settles m*, gelu-complete's upper-bound plan, or the identity pair; the same float32 guard), stored
in float32 under the same tensor names at the new width.  Every other tensor is copied unchanged.
The file is written with safetensors' own writer (``safetensors.numpy.save_file``), as one file
(the shards of a directory are merged), its metadata extended with ``absorb_mlp_skip = false``.

The config.json written beside OUT is the input's with these changes, stated under the key
``absorb`` (CONFIG_KEY):

* ``mlp_skip: false`` -- the layer computes LN(W_down s(W_up a + b_up) + b_down), without adding a;
* ``intermediate_sizes`` -- the width of each layer's MLP block, in layer order;
* ``original_model_type``, ``original_intermediate_size`` and the compile format.

``model_type`` becomes COMPILED_MODEL_TYPE and ``architectures`` becomes [COMPILED_ARCHITECTURE]
(the input's list is kept as ``absorb.original_architectures``): no standard loader (transformers) has a BERT without
the MLP skip, and one that took this file for a BERT would add the skip back and compute another
function (silently, where a layer kept its width).  The file is for loaders that read the
``absorb`` key; the end-to-end check here is one (oracle/decide/bert_numpy.py).

Refused (InputError, one line, before any work): a directory whose .safetensors files are not
exactly those its model.safetensors.index.json names (or several files and no index); another family
than the BERT names; pre-norm
layouts (Llama, GPT-2, ViT's ``layernorm_before``, ...: the skip adds h while the block reads
norm(h)); a model_type other than bert/roberta; no config.json or one without
num_attention_heads, or whose num_attention_heads is not a positive integer dividing the hidden size,
or whose layer_norm_eps is not a positive number; a config.json whose num_hidden_layers,
hidden_size, intermediate_size or max_position_embeddings disagrees with the tensors; a layer with
tensors but no MLP block; a float tensor in another type than float32 (named by its type); a block
found with a guess or whose activation the forward does not compute; a tensor the encoder needs
that is missing.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
from safetensors import safe_open
from safetensors.numpy import save_file

from oracle.core import families
from oracle.core.errors import InputError
from oracle.core.formats import open_checkpoint
from oracle.decide import bert_numpy
from oracle.decide import compile as onnx_compile
from oracle.decide.compile import COMPILE_FORMAT, TOLERANCE, float32_arrays, token_inputs

__all__ = ["COMPILED_ARCHITECTURE", "COMPILED_MODEL_TYPE", "CONFIG_KEY", "check_compilable", "check_written",
           "compile_checkpoint",
           "config_target",
           "has_no_mlp_skip", "verify"]

CONFIG_KEY = "absorb"
COMPILED_MODEL_TYPE = "absorb_bert_without_mlp_skip"
COMPILED_ARCHITECTURE = "AbsorbBertWithoutMlpSkip"  # no standard loader has a class of this name
LOADER_NOTE = ("standard loaders (transformers) have no BERT without its MLP skip: this file is for loaders that "
               "read config.json's 'absorb' key (mlp_skip false, intermediate_sizes); model_type is changed so "
               "that it is not taken for a BERT, which would add the skip back")
# each role of a planned block and the name of its tensor under ``encoder.layer.N.``
_ROLES = (("W_up", "intermediate.dense.weight"), ("b_up", "intermediate.dense.bias"),
          ("W_down", "output.dense.weight"), ("b_down", "output.dense.bias"))
# families of the name table whose blocks read a normalised input while the skip adds the raw one
_PRE_NORM = {"gpt2", "llama", "gemma", "qwen_moe", "mixtral", "t5", "t5_gated", "gpt_neox", "fc", "phi3", "opt"}
_PRE_NORM_REASON = ("pre-norm block: the skip adds h while the block reads norm(h), so x + B(x) is not this "
                    "model's map; the scan decides the block as a map of its own input, and nothing is compiled")


def has_no_mlp_skip(cfg: dict[str, Any]) -> bool:
    """Whether a config.json says its MLP blocks have no skip (written by this module)."""
    a = cfg.get(CONFIG_KEY)
    return isinstance(a, dict) and a.get("mlp_skip") is False


def config_target(out: Path) -> Path:
    """The config.json written beside OUT."""
    return out.parent / "config.json"


def _base(prefix: str) -> str:
    """The prefix before ``encoder.layer.N`` ('' or e.g. 'bert.')."""
    i = prefix.rfind("encoder.layer.")
    return prefix[:i] if i >= 0 else ""


def _compilable(path: str) -> tuple[Any, list[tuple[dict[str, Any], str]], dict[str, Any]]:
    """The checkpoint, its blocks with their activations, and the encoder's layout; InputError with
    the reason when it cannot be compiled (headers and config.json only: no tensor is loaded)."""
    ck = open_checkpoint(path)
    if ck.format != "safetensors":
        raise InputError(f"not a safetensors checkpoint ({ck.format})")
    _files_are_the_model(Path(path), ck)
    specs, _ = families.discover(ck)
    if not specs:
        raise InputError("no MLP block found; nothing to compile")
    for spec in specs:
        where = f"block {spec['prefix'] or '<root>'}"
        if spec.get("error"):
            raise InputError(f"{where}: {spec['error']}")
        if spec["family"] in _PRE_NORM:
            raise InputError(f"{where} ({spec['family']}-style names): {_PRE_NORM_REASON}")
        if spec["family"] != "bert":
            raise InputError(f"{where} ({spec['family']}-style names): safetensors --emit compiles BERT-family "
                             "(bert, roberta) post-LN checkpoints only")
        if spec["discovery"]["guessed"]:
            raise InputError(f"{where}: the scan found this block with a guess ("
                             + "; ".join(spec["discovery"]["guessed"]) + ")")
    names = set(ck.names())
    if any("layernorm_before" in n for n in names):
        raise InputError(f"block {specs[0]['prefix']}: {_PRE_NORM_REASON} (tensors named layernorm_before: "
                         "a ViT-style layer)")
    cfg = ck.config()
    if not cfg:
        raise InputError("no config.json beside the checkpoint: the model type, the number of attention heads, "
                         "the activation and LayerNorm's epsilon come from it; not compiled")
    if has_no_mlp_skip(cfg):
        raise InputError(f"config.json says {CONFIG_KEY}.mlp_skip = false: this checkpoint's MLP blocks already "
                         "have no skip; nothing to compile")
    mt = cfg.get("model_type")
    if mt not in bert_numpy.MODEL_TYPES:
        raise InputError(f"config.json model_type {mt!r}: safetensors --emit compiles model_type "
                         f"{' and '.join(bert_numpy.MODEL_TYPES)} only (the post-LN encoder its end-to-end "
                         "check runs)")
    if cfg.get("position_embedding_type", "absolute") != "absolute" or cfg.get("is_decoder") \
            or cfg.get("add_cross_attention"):
        raise InputError("config.json asks for relative positions, a decoder or cross-attention: the end-to-end "
                         "check runs the absolute-position encoder only; not compiled")
    heads = cfg.get("num_attention_heads")
    if not _is_int(heads) or heads < 1:
        raise InputError(f"config.json num_attention_heads is {heads!r}, not a positive integer; not compiled")
    eps = cfg.get("layer_norm_eps", 1e-12)
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 < eps < float("inf"):
        raise InputError(f"config.json layer_norm_eps is {eps!r}, not a positive number; not compiled")
    for n in ck.names():
        t = ck.dtype(n)
        if "float" in t and t != "float32":
            raise InputError(f"tensor {n!r} is {t}; only float32 checkpoints are compiled")
    bases = {_base(s["prefix"]) for s in specs}
    want = [f"{b}encoder.layer.{i}" for b in bases for i in range(len(specs))]
    if len(bases) != 1 or [s["prefix"] for s in specs] != want:
        raise InputError("the MLP blocks are not the layers encoder.layer.0 .. N-1 of one encoder; not compiled")
    base = bases.pop()
    _layers_have_mlps(base, len(specs), names)
    layout = bert_numpy.encoder_names(base, len(specs), names)
    _config_agrees(ck, cfg, layout)
    out = []
    for spec in specs:
        act, src = families.spec_activation(ck, spec)
        if act not in bert_numpy.ACTIVATIONS or families.GUESS in src:
            raise InputError(f"block {spec['prefix']}: activation {act!r} ({src}) is not one the end-to-end check "
                             f"computes ({', '.join(bert_numpy.ACTIVATIONS)}); not compiled")
        out.append((spec, act))
    if len({a for _, a in out}) != 1:
        raise InputError("the layers have different activations; not compiled")
    return ck, out, {"base": base, "model_type": mt, "layout": layout}


INDEX = "model.safetensors.index.json"


def _files_are_the_model(path: Path, ck: Any) -> None:
    """A directory's .safetensors files are the model's: with INDEX, exactly the files its
    weight_map names, holding exactly its tensors; without it, one file.  Another file (an
    adapter, a second model) would otherwise be merged into OUT."""
    if not path.is_dir():
        return
    here = {f.name for f in ck.files}
    index = path / INDEX
    if not index.is_file():
        if len(here) > 1:
            raise InputError(f"{path} holds {len(here)} .safetensors files ({', '.join(sorted(here))}) and no "
                             f"{INDEX} saying which belong to the model; not compiled (name the file)")
        return
    try:
        wmap = json.loads(index.read_text()).get("weight_map")
    except (ValueError, OSError, AttributeError) as e:
        raise InputError(f"{index}: not readable as a safetensors index ({type(e).__name__}); not compiled") from None
    if not isinstance(wmap, dict) or not all(isinstance(v, str) for v in wmap.values()):
        raise InputError(f"{index}: no weight_map of tensor names to files; not compiled")
    named = set(wmap.values())
    extra, missing = sorted(here - named), sorted(named - here)
    if extra:
        raise InputError(f"{path / extra[0]} is not named in {INDEX} (an adapter or another model?): it would be "
                         "merged into the compiled file; not compiled")
    if missing:
        raise InputError(f"{INDEX} names {missing[0]}, which is not in {path}; not compiled")
    if set(wmap) != set(ck.names()):
        odd = sorted(set(wmap) ^ set(ck.names()))[0]
        raise InputError(f"{INDEX} and the files disagree on tensor {odd!r}; not compiled")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _layers_have_mlps(base: str, n: int, names: set[str]) -> None:
    """Every layer ``encoder.layer.K`` that has tensors is one of the n whose MLP block was found:
    a layer without MLP tensors would be kept in the file but never run by the end-to-end check."""
    head = f"{base}encoder.layer."
    present = {int(k) for k in (nm[len(head):].split(".", 1)[0] for nm in names if nm.startswith(head))
               if k.isdigit()}
    extra = sorted(present - set(range(n)))
    if extra:
        raise InputError(f"layer {head}{extra[0]} has tensors but no MLP block (intermediate.dense, output.dense); "
                         f"the MLP blocks found are layers 0 .. {n - 1}; not compiled")


def _config_agrees(ck: Any, cfg: dict[str, Any], layout: dict[str, Any]) -> None:
    """config.json's sizes, where it states them, equal the tensors' (it is copied beside OUT, and a
    loader would read them); the heads divide the hidden size."""
    d = int(ck.shape(layout["word"])[1])
    checks = [("num_hidden_layers", len(layout["layers"]), "the layers in the file"),
              ("hidden_size", d, "the embeddings' width"),
              ("max_position_embeddings", int(ck.shape(layout["position"])[0]), "the rows of the position table")]
    widths = {int(ck.shape(lay["up"][0])[0]) for lay in layout["layers"]}
    if len(widths) == 1:
        checks.append(("intermediate_size", widths.pop(), "the MLP blocks' width"))
    elif "intermediate_size" in cfg:
        raise InputError(f"config.json intermediate_size {cfg['intermediate_size']!r}, but the MLP blocks have "
                         f"different widths {sorted(widths)}; not compiled")
    for key, want, what in checks:
        if key in cfg and (not _is_int(cfg[key]) or cfg[key] != want):
            raise InputError(f"config.json {key} {cfg[key]!r} disagrees with the tensors ({what}: {want}); "
                             "not compiled")
    if d % cfg["num_attention_heads"]:
        raise InputError(f"config.json num_attention_heads {cfg['num_attention_heads']} does not divide the hidden "
                         f"size {d}; not compiled")


def check_compilable(path: str) -> int:
    """Refuse (InputError) a checkpoint that cannot be compiled, before any other work; returns
    the number of blocks it would compile."""
    return len(_compilable(path)[1])


def _read_all(ck: Any) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Every tensor as stored (safetensors' own reader) and the first file's metadata."""
    tensors: dict[str, np.ndarray] = {}
    meta: dict[str, str] = {}
    for k, f in enumerate(ck.files):
        with safe_open(str(f), framework="np") as fh:
            if k == 0:
                meta = dict(fh.metadata() or {})
            for n in fh.keys():
                tensors[n] = fh.get_tensor(n)
    return tensors, meta


def compile_checkpoint(path: str, out: Path, config_out: Path,
                       progress: Callable[[str], None] = lambda s: None) -> dict[str, Any]:
    """Write ``out`` (safetensors) and ``config_out`` (its config.json): the checkpoint at ``path``
    with every MLP skip compiled away; returns the document (per block: widths, construction,
    float32 rounding; sizes; seconds)."""
    t0 = time.perf_counter()
    ck, specs, info = _compilable(path)
    tensors, meta = _read_all(ck)
    entries, widths, exact = [], [], []
    for k, (spec, act) in enumerate(specs, 1):
        progress(f"compile [{k}/{len(specs)}] {spec['prefix']}")
        block = families.load_block(ck, spec, act)
        # compile.plan_block looked up at each call, not bound when this module was first imported
        arrays, rec = onnx_compile.plan_block(block)
        arrays32, rounding = float32_arrays(arrays, rec.pop("float64_rounding"))
        p = spec["prefix"] + "."
        for role, name in _ROLES:
            tensors[p + name] = np.ascontiguousarray(arrays32[role])
        rec.update({"block": spec["prefix"], "activation": act, "d": block.d, "float32": rounding,
                    "skip_removed": f"{p}output: LN(a + B(a)) becomes LN(P(a)) (config.json "
                                    f"{CONFIG_KEY}.mlp_skip = false)"})
        entries.append(rec)
        widths.append(int(rec["width_after"]))
        exact.append((p, arrays, rounding["max_entry_error"]))
        del block
    cfg = dict(ck.config())
    cfg[CONFIG_KEY] = {"compile_format": COMPILE_FORMAT, "mlp_skip": False, "intermediate_sizes": widths,
                       "original_model_type": info["model_type"],
                       "original_intermediate_size": cfg.get("intermediate_size"),
                       "note": LOADER_NOTE + "; each layer computes LN(W_down s(W_up a + b_up) + b_down) with "
                               "W_up of intermediate_sizes[i] rows, where the original computed "
                               "LN(a + W_down s(W_up a + b_up) + b_down)"}
    cfg["model_type"] = COMPILED_MODEL_TYPE
    # a loader that picks its class from architectures (BertModel) would add the skip back
    if "architectures" in cfg:
        cfg[CONFIG_KEY]["original_architectures"] = cfg["architectures"]
    cfg["architectures"] = [COMPILED_ARCHITECTURE]
    save_file(tensors, str(out), metadata={**meta, "absorb_mlp_skip": "false"})
    config_out.write_text(json.dumps(cfg, indent=2) + "\n")
    del tensors
    written = check_written(out, exact)
    before = sum(f.stat().st_size for f in ck.files)
    size = out.stat().st_size
    return {"compile_format": COMPILE_FORMAT, "format": "safetensors", "checkpoint": str(path), "output": str(out),
            "config": str(config_out), "blocks": entries, "intermediate_sizes": widths,
            "size_bytes": {"before": before, "after": size, "ratio": round(size / before, 4)},
            "skips_removed": len(entries), "loaders": LOADER_NOTE, "written_check": written,
            "note": "each block's replacing block equals x + B(x) exactly in real arithmetic; the file stores "
                    "it in float32 (float32.max_entry_error bounds |stored - exact| per array)",
            "seconds": round(time.perf_counter() - t0, 3)}


def check_written(out: Path, exact: list[tuple[str, dict[str, np.ndarray], dict[str, float]]]) -> dict[str, Any]:
    """Read the written file back (safetensors' own reader) and compare each replaced block's four
    arrays, entry by entry, with the float64 construction plan_block returned: every stored entry
    must lie within the float32 bound the block table states for that array (float32.max_entry_error).
    ``exact`` holds, per block, its tensor prefix, the float64 arrays and those bounds.  The
    comparison is exact: a float32 entry converted to float64 and its difference with a float64
    value are the same computation float32_arrays made to obtain the bound."""
    failures: list[str] = []
    checked = 0
    with safe_open(str(out), framework="np") as fh:
        for p, arrays, bound in exact:
            for role, name in _ROLES:
                got = fh.get_tensor(p + name)
                want = arrays[role]
                checked += 1
                if got.dtype != np.float32 or got.shape != want.shape:
                    failures.append(f"{p}{name}: written {got.dtype} {list(got.shape)}, constructed float32 "
                                    f"{list(want.shape)}")
                    continue
                err = float(np.max(np.abs(got.astype(np.float64) - want))) if want.size else 0.0
                if not err <= bound.get(role, 0.0):  # also false for a NaN
                    failures.append(f"{p}{name}: written entries differ from the construction by up to {err:.3g}, "
                                    f"above the stated float32 bound {bound.get(role, 0.0):.3g}")
    return {"passed": not failures, "arrays_checked": checked, "blocks_checked": len(exact), "failures": failures,
            "what": "the written file read back; each replaced block's W_up, b_up, W_down, b_down compared entry by "
                    "entry with the float64 construction, within the float32 bound stated per array"}


# ---------------------------------------------------------------------- end to end

def _model(path: str, config: Optional[Path] = None) -> dict[str, Any]:
    """A checkpoint for the forward: its tensor getter, config, layout, whether its MLP blocks have
    the skip (config.json's ``absorb`` key), the base model type and the activation."""
    ck = open_checkpoint(path)
    cfg = json.loads(config.read_text()) if config is not None else ck.config()
    skip = not has_no_mlp_skip(cfg)
    specs = families.find_blocks(ck)
    if not specs:
        raise InputError(f"{path}: no MLP block found for the end-to-end check")
    if skip:
        mt, n = cfg.get("model_type"), len(specs)
    else:
        mt, n = cfg[CONFIG_KEY].get("original_model_type"), len(cfg[CONFIG_KEY]["intermediate_sizes"])
    layout = bert_numpy.encoder_names(_base(specs[0]["prefix"]), n, set(ck.names()))
    if not skip:
        for i, w in enumerate(cfg[CONFIG_KEY]["intermediate_sizes"]):
            got = ck.shape(layout["layers"][i]["up"][0])[0]
            if got != w:
                raise InputError(f"layer {i}: config.json says intermediate size {w}, the file has {got}")
    return {"get": ck.tensor, "cfg": cfg, "layout": layout, "skip": skip, "model_type": mt,
            "activation": families.spec_activation(ck, specs[0])[0],
            "vocab": int(ck.shape(layout["word"])[0])}


EVERY_ID_LIMIT = 4096  # up to this vocabulary size (and without --tokenizer) every token id is fed
_SEQ, _BATCH = 12, 64
COVERS = ("the end-to-end check is a float measurement on the inputs listed (fed: distinct token ids, padded "
          "sequences), not a proof for every input; the exact part is the per-block construction, equal to "
          "x + B(x) in exact arithmetic and compared with the written file within the stated float32 bounds")


def _inputs(a: dict[str, Any], tokenizer: Optional[str], pad: int, mt: str) -> tuple[np.ndarray, np.ndarray, str]:
    """The token ids and attention mask of the end-to-end check, and what they are.  With
    --tokenizer: its sentences.  Otherwise, for a vocabulary of at most EVERY_ID_LIMIT ids: every id
    once, in a random order, cut into sequences of _SEQ (fewer when the position table is short), the
    last one padded (or, when the ids fill the rows exactly, one more padded sequence), so that the
    attention mask is exercised.  For a larger vocabulary: compile.token_inputs' random ids and one
    padded sequence made from their first row."""
    rng = np.random.default_rng(0)
    vocab = a["vocab"]
    if tokenizer:
        return token_inputs(tokenizer, rng, pad_id=pad)
    if vocab > EVERY_ID_LIMIT:
        ids, mask, what = token_inputs(None, rng, pad_id=pad)
        half = ids.shape[1] // 2
        row = np.concatenate([ids[0, :half], np.full(ids.shape[1] - half, pad, dtype=np.int64)])
        ids = np.vstack([ids, row[None]])
        mask = np.vstack([mask, (np.arange(ids.shape[1]) < half).astype(np.int64)[None]])
        return ids, mask, what + f", and their first row's first {half} ids padded to {ids.shape[1]}"
    rows = int(a["get"](a["layout"]["position"]).shape[0])
    seq = max(2, min(_SEQ, rows - (pad + 1 if mt == "roberta" else 0)))
    perm = rng.permutation(vocab).astype(np.int64)
    n = -(-vocab // seq) + (1 if vocab % seq == 0 else 0)
    ids = np.full((n, seq), pad, dtype=np.int64)
    mask = np.zeros((n, seq), dtype=np.int64)
    flat = ids.reshape(-1)
    flat[:vocab] = perm
    mask.reshape(-1)[:vocab] = 1
    if vocab % seq == 0:  # the extra row: half of it real ids, the rest padding
        ids[-1, :seq // 2], mask[-1, :seq // 2] = perm[:seq // 2], 1
    return ids, mask, (f"every token id of the vocabulary ({vocab}) once, in random order, {n} sequences of {seq} "
                       "(the last padded, attention_mask 0 on padding; no --tokenizer given)")


def verify(original: str, compiled: str, tokenizer: Optional[str] = None, config: Optional[Path] = None
           ) -> dict[str, Any]:
    """Run the numpy encoder (oracle/decide/bert_numpy.py) on the original checkpoint (with its MLP
    skips) and on the compiled one (as ``config``, its config.json, says: without them) on the same
    inputs, in float32 and in float64; per output the largest absolute and relative difference
    max|a - b| / max|a|.  ``within_tolerance`` needs both runs within TOLERANCE."""
    a, b = _model(original), _model(compiled, config)
    if not a["skip"] or b["skip"] or a["model_type"] != b["model_type"]:
        return {"verified": False, "reason": "the compiled checkpoint's config.json does not say its MLP blocks "
                                             f"have no skip ({CONFIG_KEY}.mlp_skip = false) for the same model type"}
    mt, act = a["model_type"], a["activation"]
    pad = int(a["cfg"].get("pad_token_id") or (1 if mt == "roberta" else 0))
    ids, mask, what = _inputs(a, tokenizer, pad, mt)
    fed = {"distinct_ids": int(np.unique(ids[mask > 0]).size), "vocabulary": a["vocab"],
           "every_id": bool(np.unique(ids[mask > 0]).size == a["vocab"]), "sequences": int(ids.shape[0]),
           "padded_sequences": int(np.sum(np.any(mask == 0, axis=1)))}

    def run(m: dict[str, Any], dt: str, skip: bool) -> dict[str, np.ndarray]:
        parts = [bert_numpy.forward(m["get"], m["cfg"], m["layout"], mt, act, ids[i:i + _BATCH], mask[i:i + _BATCH],
                                    dt, mlp_skip=skip) for i in range(0, ids.shape[0], _BATCH)]
        return {n: np.concatenate([q[n] for q in parts]) for n in parts[0]}

    runs: dict[str, Any] = {}
    for dt in ("float32", "float64"):
        ra, rb = run(a, dt, True), run(b, dt, False)
        outs = []
        for n, x in ra.items():
            y = rb[n]
            scale = float(np.max(np.abs(x)))
            diff = float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64))))
            outs.append({"output": n, "shape": list(x.shape), "max_abs_difference": diff,
                         "relative_difference": diff / scale if scale else diff})
        runs[dt] = {"outputs": outs, "max_relative_difference": max(o["relative_difference"] for o in outs)}
    rel = runs["float32"]["max_relative_difference"]
    ok = all(r["max_relative_difference"] <= TOLERANCE for r in runs.values())
    return {"verified": True, "inputs": what, "fed": fed, "covers": COVERS, "outputs": runs["float32"]["outputs"],
            "max_relative_difference": rel,
            "float64": runs["float64"], "within_tolerance": ok, "tolerance": TOLERANCE,
            "measurement": "float32 and float64 numpy forward passes of the encoder (oracle/decide/bert_numpy.py): "
                           "the original with its MLP skips, the compiled checkpoint without them, as its "
                           "config.json says; relative difference = max|original - compiled| / max|original| per "
                           "output (outputs and max_relative_difference: the float32 run; float64: the float64 "
                           "run); a measurement, not exact",
            "runtime": f"numpy {np.__version__}"}
