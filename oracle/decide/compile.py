"""Compile a model's MLP skips away: ``absorb scan CHECKPOINT --emit OUT`` (ONNX in, ONNX out).

For every MLP block x -> x + B(x) of a post-LN model (BERT family: the block reads x and the skip
adds the same x, then LayerNorm), the plan here picks a residual-free block P with P(x) = x + B(x)
for every x, exactly (in real arithmetic):

* ``minimal``: when ``min_width.statement`` settles the minimal width m* (relu-complete,
  gelu-complete), its construction of width m* (``plain_block``; width 1 with a zero unit when
  m* = 0, since a graph needs a unit);
* ``upper_plan``: when gelu-complete only bounds m* (too many classes for the exact enumeration),
  the construction of its upper-bound plan if it is narrower than m + 2d, checked equal to the
  block on the exact canonical forms (``gelu_width.forms_equal``), not claimed minimal;
* ``identity_pair``: otherwise, the block's own m units and, for each coordinate, the pair
  s(x_i) - s(-x_i) = x_i that every activation with odd part z/2 has (gelu, gelu_tanh, silu, relu;
  the catalog's ``odd_part_identity``, re-derived by ``absorb activations``):
  W_up' = [W_up; I; -I], b_up' = [b_up; 0; 0], W_down' = [W_down, I, -I], b_down' = b_down, width
  m + 2d.  It is exactly equal, and not claimed minimal.

The weights go out in the model's float type (float32): the record of each block says whether
that rounding is exact and bounds the largest entry error against the exact block.  A construction
whose bound exceeds FLOAT32_ERROR_MAX of the block's largest weight is passed over for the next one
(the record's ``passed_over`` says why); the identity pair stores the block's own float32 weights
and +-1, exactly.  Weights in external data files are read into the model from its own folder
first, so the file written refers to no other file.  The graph
rewrite is oracle/core/formats/onnx_emit.py.  ``verify`` runs the original and the compiled model
with onnxruntime and measures the largest relative difference of their float outputs (a float32
measurement, never called exact).

Refused (InputError, exit 2, one line): another format than ONNX (BERT-family safetensors
checkpoints are compiled by oracle/decide/compile_safetensors.py, with the same plan_block),
a quantized graph, weights in another float type than float32, a block the scan found with a guess
or without a catalog activation, an activation subgraph identified by sampling that uses operators
outside the closed-form exports or deviates by more than COMPILE_MATCH_TOL (the exactness above is
for the catalog function, and sampling alone cannot show a subgraph is it everywhere), a gated
block, a block whose skip does not add the block's own input (pre-norm models: h + B(norm(h))),
and a block with a value used outside it (``onnx_emit.layout_problem``: the rewrite widens the
values inside a block and removes B(x)).  One refused block refuses the whole model.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from oracle.algebra import gelu_width
from oracle.core import activations, families
from oracle.core.blocks import Block
from oracle.core.errors import InputError
from oracle.core.formats import onnx_emit, open_checkpoint
from oracle.decide.min_width import applies, plain_block, statement

__all__ = ["COMPILE_FORMAT", "SENTENCES", "TOLERANCE", "check_compilable", "compile_checkpoint", "float32_arrays",
           "load_tokenizer", "plan_block", "token_inputs", "verify"]

COMPILE_FORMAT = "absorb-compile-1"
TOLERANCE = 1e-4  # the largest relative difference expected of float32 runs of two equal models

# operators of quantized ONNX graphs: a model holding any of them is not compiled
_QUANT_OPS = {"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "MatMulInteger", "QLinearMatMul",
              "ConvInteger", "QLinearConv", "QGemm", "MatMulIntegerToFloat", "DynamicQuantizeMatMul",
              "QAttention", "MatMulNBits", "MatMulBnb4"}
_NORM_OPS = {"LayerNormalization", "SimplifiedLayerNormalization", "RMSNormalization",
             "SkipLayerNormalization", "SkipSimplifiedLayerNormalization"}

# sentences for the end-to-end check of a text model (tokenized with the tokenizer given)
SENTENCES = ("The quick brown fox jumps over the lazy dog.",
             "A residual connection adds the input of a block to its output.",
             "Paris is the capital of France.",
             "Can a wider network without skips compute the same function?")


# a construction whose float32 error bound exceeds this fraction of the block's largest weight is not
# written; the next construction is tried (upper_plan, then identity_pair, which stores the block's own
# float32 weights and +-1, exactly).  float32 keeps 2^-24 of an entry; 2^-16 leaves room for weights
# up to 256 times the block's, and a badly conditioned construction (entries near 1e15 that cancel)
# lands far above it
FLOAT32_ERROR_MAX = 2.0 ** -16


def plan_block(block: Block) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The replacing block of x + B(x) (float64 arrays in our orientation) and its record: which
    construction, the widths, and how the exactness is known.  The constructions are tried in
    order (minimal, upper_plan, identity_pair); one whose float32 storage would be poor against the
    block's weights (FLOAT32_ERROR_MAX) is passed over, and the record says why (``passed_over``)."""
    st = statement(block, "allowed") if applies(block) else None
    passed: list[dict[str, Any]] = []
    for make in (_minimal_plan, _upper_plan):
        got = make(block, st)
        if got is None:
            continue
        why = _poorly_stored(block, *got)
        if why is None:
            if passed:
                got[1]["passed_over"] = passed
            return got
        passed.append({"construction": got[1]["construction"], "width_after": got[1]["width_after"], "why": why})
    arrays, rec = _identity_pair(block, st)
    if passed:
        rec["passed_over"] = passed
        if st is not None and st.get("value") is not None:
            rec["minimal_width"], rec["claim"] = int(st["value"]), st["claim"]
        rec["why"] = ("; ".join(f"the {p['construction']} construction (width {p['width_after']}) is not written: "
                                f"{p['why']}" for p in passed)
                      + "; instead the block's units plus s(x_i) - s(-x_i) = x_i for each coordinate (activation "
                        "property odd_part_identity), width m + 2d, exactly equal, not claimed minimal")
    return arrays, rec


def _poorly_stored(block: Block, arrays: dict[str, np.ndarray], rec: dict[str, Any]) -> Optional[str]:
    """Why the construction's float32 storage is too poor to write (FLOAT32_ERROR_MAX), or None."""
    try:
        _, rounding = float32_arrays(arrays, rec["float64_rounding"])
    except InputError as e:  # an entry beyond float32's range
        return str(e).replace("; not compiled", "")
    worst = max(rounding["max_entry_error"].values(), default=0.0)
    ref = max((float(np.max(np.abs(a))) for a in (block.W_up, block.W_down, block.b_up, block.b_down)
               if a is not None and np.size(a)), default=0.0)
    if worst <= FLOAT32_ERROR_MAX * ref or (ref == 0.0 and worst == 0.0):
        return None
    return (f"its float32 error bound {worst:.3g} exceeds 2^-16 of the block's largest weight "
            f"({ref:.3g}); the construction is badly conditioned in float32")


def _minimal_plan(block: Block, st: Optional[dict[str, Any]]) -> Optional[tuple[dict[str, np.ndarray], dict[str, Any]]]:
    """The construction of width m* where the statement settles m*."""
    if st is None or st.get("value") is None or st.get("construction") is None:
        return None
    d, m = block.d, block.m
    plain, prec = plain_block(block, st, max(1, int(st["value"])))
    arrays = {"W_up": plain.W_up, "b_up": plain.b_up if plain.b_up is not None else np.zeros(plain.m),
              "W_down": plain.W_down, "b_down": plain.b_down if plain.b_down is not None else np.zeros(d)}
    rec = {"width_before": m, "construction": "minimal", "minimal_width": int(st["value"]), "claim": st["claim"],
           "width_after": plain.m,
           "why": f"{st['claim']} settles m* = {st['value']}; its construction"
                  + (" (padded with one zero unit: m* = 0)" if st["value"] == 0 else ""),
           "float64_rounding": prec["max_entry_error"], "check": prec["check"]}
    return arrays, rec


def _identity_pair(block: Block, st: Optional[dict[str, Any]]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The block's own units plus s(x_i) - s(-x_i) = x_i for each coordinate (width m + 2d)."""
    d, m = block.d, block.m
    if block.gated or not block.act.odd_part_identity:
        raise InputError(f"activation {block.activation}: neither a minimal-width claim nor the pair "
                         "s(z) - s(-z) = z applies; not compiled")
    eye = np.eye(d)
    arrays = {"W_up": np.vstack([block.W_up, eye, -eye]),
              "b_up": np.concatenate([block.b_up if block.b_up is not None else np.zeros(m), np.zeros(2 * d)]),
              "W_down": np.hstack([block.W_down, eye, -eye]),
              "b_down": block.b_down.copy() if block.b_down is not None else np.zeros(d)}
    why = (st.get("reason") or "no construction is stated") if st is not None else \
        "no minimal-width claim covers this activation"
    rec = {"width_before": m, "construction": "identity_pair", "minimal_width": None, "claim": None,
           "width_after": m + 2 * d,
           "why": f"m* not settled here ({why}); the block's units plus s(x_i) - s(-x_i) = x_i for each "
                  "coordinate (activation property odd_part_identity), width m + 2d, exactly equal, not "
                  "claimed minimal",
           "float64_rounding": {}, "check": "x + B(x) = B(x) + sum_i e_i (s(x_i) - s(-x_i)) for every x"}
    return arrays, rec


def _upper_plan(block: Block, st: Optional[dict[str, Any]]) -> Optional[tuple[dict[str, np.ndarray], dict[str, Any]]]:
    """gelu-complete's construction for the statement's upper-bound plan (s, T), when m* is only
    bounded (too many classes for the exact enumeration) and that plan is narrower than m + 2d; the
    construction is checked equal to the block on the exact canonical forms before it is used."""
    d, m = block.d, block.m
    if st is None or st.get("claim") != gelu_width.CLAIM or st.get("value") is not None or not st.get("exists") \
            or st.get("s") is None or st.get("T") is None or st.get("upper") is None or st["upper"] >= m + 2 * d:
        return None
    form = gelu_width.gelu_form(block)
    con = gelu_width.construct(form, st["s"], st["T"])
    if con.width != st["upper"] or not gelu_width.forms_equal(con.form(d), form):
        return None  # not the stated plan, or not equal: the identity pair is used instead
    plain, prec = plain_block(block, {**st, "construction": con.as_json()}, max(1, con.width))
    arrays = {"W_up": plain.W_up, "b_up": plain.b_up if plain.b_up is not None else np.zeros(plain.m),
              "W_down": plain.W_down, "b_down": plain.b_down if plain.b_down is not None else np.zeros(d)}
    rec = {"width_before": m, "construction": "upper_plan", "minimal_width": None, "claim": st["claim"],
           "width_after": plain.m, "bounds": [st["lower"], st["upper"]],
           "why": f"{st['claim']} bounds {st['lower']} <= m* <= {st['upper']} ({st['method']}); the construction of "
                  "the upper-bound plan, equal to the block (exact canonical forms), not claimed minimal",
           "float64_rounding": prec["max_entry_error"], "check": "exact canonical forms of the construction and "
                                                                 "the block are equal (gelu_width.forms_equal)"}
    return arrays, rec


def float32_arrays(arrays: dict[str, np.ndarray], f64_err: dict[str, float]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays in float32 and, per array, a bound on |stored entry - exact entry|: the float32
    rounding of the float64 value (computed exactly in rationals) plus the float64 rounding bound."""
    out, err = {}, {}
    for k, a in arrays.items():
        a32 = a.astype(np.float32)
        if not np.all(np.isfinite(a32)):
            raise InputError(f"{k}: an entry overflows float32; not compiled")
        # x - fl32(x) is a float64 exactly (the dropped bits fit in 53), so this max is the exact error
        e = float(np.max(np.abs(a32.astype(np.float64) - a))) if a.size else 0.0
        bound = e + float(f64_err.get(k, 0.0))
        if bound and f64_err.get(k):
            bound = float(np.nextafter(bound, np.inf))  # the sum rounded upwards
        err[k] = bound
        out[k] = a32
    return out, {"exact_in_float32": not any(err.values()), "max_entry_error": err}


def _refusal(ck: Any, spec: dict[str, Any], act: str) -> Optional[str]:
    """Why this block cannot be compiled, or None."""
    g = ck.model.graph
    if spec.get("error"):
        return spec["error"]
    if spec["discovery"]["guessed"]:
        return "the scan found this block with a guess (" + "; ".join(spec["discovery"]["guessed"]) + ")"
    # the float type first: a float16 export's constants also miss the activation's identification,
    # and the type is the reason such a block is not compiled
    for role in list(spec["tensors"].values()) + list(spec["biases"].values()):
        t = ck.dtype(role)
        if t != "float32":
            return f"tensor {role!r} is {t}; only float32 models are compiled"
    if act is None or act not in activations.CATALOG:
        return f"activation {act!r} is not a catalog activation recognised with certainty"
    if "gate" in spec["tensors"]:
        return "gated block: compiling gated blocks is not implemented"
    if spec.get("skip_in_graph"):
        site = onnx_emit.find_site(g, spec["tensors"], spec["biases"])
        return onnx_emit.layout_problem(g, site) if site.skip is not None else None
    if not spec.get("skip_in_graph"):
        site = onnx_emit.find_site(g, spec["tensors"], spec["biases"])
        x = site.x
        for n in g.node:
            if n.op_type == "Add" and site.end in n.input and len(n.input) == 2:
                h = [v for v in n.input if v != site.end][0]
                p = next((q for q in g.node if x in q.output), None)
                if p is not None and p.op_type in _NORM_OPS | {"Mul", "Div"} and _reads(g, x, h):
                    return ("pre-norm block: the skip adds h while the block reads norm(h) (node "
                            f"{p.name or p.op_type}), so x + B(x) is not this model's map; the scan decides "
                            "the block as a map of its own input, and nothing is compiled")
        return "the block's output is not added to the block's own input by an Add node (no x + B(x) skip)"
    return None


# elementwise operators of the closed-form exports of the catalog's activations (erf and tanh gelu,
# silu); a subgraph with any other operator (Min, Max, Clip, Where, ...) can agree with a catalog
# function on every sampled point and differ elsewhere, so it is not compiled
_CLOSED_FORM_OPS = {"Div", "Mul", "Add", "Sub", "Neg", "Erf", "Tanh", "Pow", "Sigmoid", "Sqrt"}
COMPILE_MATCH_TOL = 5e-7  # a faithful float32 export deviates about 1e-7 from its catalog function
def _identification_refusal(spec: dict[str, Any], src: str) -> Optional[str]:
    """Why the activation's identification is too weak to compile on, or None.  A single ONNX
    operator (Relu, Gelu, ...) is the catalog function by definition; a subgraph was identified by
    evaluation at sample points (the reader's ``activation_identified``), which is evidence, so it
    must be built only of closed-form arithmetic operators and match to COMPILE_MATCH_TOL."""
    ident = spec.get("activation_identified") or {}
    if ident.get("by") == "operator":
        return None
    if ident.get("by") != "sampling" or ident.get("max_relative_deviation") is None:
        return f"the activation was not recognised in a form that can be compiled ({src})"
    other = sorted(set(ident["operators"]) - _CLOSED_FORM_OPS)
    if other:
        return (f"the activation subgraph uses {', '.join(other)}, outside the closed-form operators of the "
                "catalog's exports; its identification by sampling does not show it equals the catalog "
                "function everywhere, so it is not compiled")
    dev = float(ident["max_relative_deviation"])
    if dev > COMPILE_MATCH_TOL:
        return (f"the activation subgraph deviates by {dev:.1e} from the catalog function at the sample points "
                f"(more than the {COMPILE_MATCH_TOL:g} a faithful float32 export shows); not compiled")
    return None


def _reads(g: Any, x: str, h: str, depth: int = 40) -> bool:
    """Whether value x is computed from value h (a short walk back through producers)."""
    prod = {o: n for n in g.node for o in n.output}
    todo, seen = [x], set()
    while todo and len(seen) < depth * 8:
        v = todo.pop()
        if v == h:
            return True
        if v in seen or v not in prod:
            continue
        seen.add(v)
        todo.extend(i for i in prod[v].input if i)
    return False


def _norm_after(g: Any, skip_out_name: str) -> Optional[str]:
    """The normalisation node reading the skip's output (post-LN), if any."""
    for n in g.node:
        if skip_out_name in n.input and n.op_type in _NORM_OPS:
            return n.name or n.op_type
    return None


def _compilable(path: str) -> tuple[Any, list[tuple[dict[str, Any], str]]]:
    """The opened checkpoint and its blocks with their activations, or InputError with the reason
    the model cannot be compiled (checked from the graph alone: no block is loaded)."""
    ck = open_checkpoint(path)
    if ck.format != "onnx":
        raise InputError(f"--emit writes ONNX models and BERT-family safetensors checkpoints; {ck.format} out is "
                         "not implemented")
    g = ck.model.graph
    quant = sorted({n.op_type for n in g.node if n.op_type in _QUANT_OPS})
    if quant:
        raise InputError(f"quantized ONNX graph ({', '.join(quant)}): its weights are integers the graph "
                         "dequantizes, and a float block would not be this model; not compiled")
    ext = ck.external_bytes()
    if ext and ck.model.ByteSize() + ext >= 2 ** 31:
        raise InputError(f"the model with its external data ({ck.model.ByteSize() + ext} bytes) exceeds protobuf's "
                         "2 GB limit for one file, and --emit writes one self-contained file; not compiled")
    specs, _ = families.discover(ck)
    if not specs:
        raise InputError("no MLP block found; nothing to compile")
    if getattr(ck, "virtual", None):
        raise InputError("the graph computes weights from initializers (a quantized export); not compiled")
    out = []
    for spec in specs:
        act, src = families.spec_activation(ck, spec)
        why = _refusal(ck, spec, act) or _identification_refusal(spec, src)
        if why:
            raise InputError(f"block {spec['prefix'] or '<root>'}: {why}")
        out.append((spec, act))
    return ck, out


def check_compilable(path: str) -> int:
    """Refuse (InputError, one line) a model that --emit cannot compile, before any other work;
    returns the number of blocks it would compile."""
    return len(_compilable(path)[1])


def compile_checkpoint(path: str, out: Path, progress: Callable[[str], None] = lambda s: None
                       ) -> dict[str, Any]:
    """Write ``out``: the ONNX model at ``path`` with every MLP skip compiled away; returns the
    document (per block: widths, construction, float32 rounding; sizes; seconds)."""
    t0 = time.perf_counter()
    ck, specs = _compilable(path)
    # external data files are read into the model (from its own folder): the file written refers to
    # no other file, and nothing below depends on the working directory
    ck.inline_external_data()
    g = ck.model.graph
    entries, replacements = [], []
    for k, (spec, act) in enumerate(specs, 1):
        progress(f"compile [{k}/{len(specs)}] {spec['prefix']}")
        block = families.load_block(ck, spec, act)
        arrays, rec = plan_block(block)
        arrays32, rounding = float32_arrays(arrays, rec.pop("float64_rounding"))
        site = onnx_emit.find_site(g, spec["tensors"], spec["biases"])
        skip = g.node[site.skip]
        rec.update({"block": spec["prefix"], "activation": act, "d": block.d,
                    "float32": rounding, "skip_add_removed": skip.name or skip.output[0],
                    "norm_after_skip": _norm_after(g, skip.output[0])})
        entries.append(rec)
        replacements.append({"block": spec["prefix"], "tensors": spec["tensors"], "biases": spec["biases"],
                             **arrays32})
        del block, arrays
    # the reader's own ModelProto is changed (it is not used again): one copy of the weights in memory
    new = onnx_emit.rewrite(ck.model, replacements, copy=False)
    size = onnx_emit.save(new, out)
    before = Path(path).stat().st_size
    return {"compile_format": COMPILE_FORMAT, "checkpoint": str(path), "output": str(out),
            "blocks": entries,
            "size_bytes": {"before": before, "after": size, "ratio": round(size / before, 4)},
            "skip_adds_removed": len(entries),
            "note": "each block's replacing block equals x + B(x) exactly in real arithmetic; the file stores "
                    "it in float32 (float32.max_entry_error bounds |stored - exact| per array)",
            "seconds": round(time.perf_counter() - t0, 3)}


# ---------------------------------------------------------------------- end to end

def _inputs(sess: Any, tokenizer: Optional[str], rng: np.random.Generator) -> tuple[dict[str, np.ndarray], str]:
    """Inputs for both models: tokenized sentences for text models (input_ids, attention_mask,
    token_type_ids), random normal values for float inputs; and what they are."""
    ins = sess.get_inputs()
    names = [i.name for i in ins]
    feed: dict[str, np.ndarray] = {}
    what = "random normal float inputs (seed 0)"
    if "input_ids" in names:
        ids, mask, what = token_inputs(tokenizer, rng)
        feed["input_ids"] = ids
        for nm in names:
            if nm == "attention_mask":
                feed[nm] = mask
            elif nm == "token_type_ids":
                feed[nm] = np.zeros_like(ids)
    for i in ins:
        if i.name in feed:
            continue
        if "float" not in i.type:
            raise InputError(f"input {i.name!r} of type {i.type}: no test values are made for it")
        shape = [s if isinstance(s, int) and s > 0 else (3 if k == 0 else 5) for k, s in enumerate(i.shape)]
        dt = np.float64 if "double" in i.type else np.float32
        feed[i.name] = rng.standard_normal(shape).astype(dt)
    return feed, what


def token_inputs(tokenizer: Optional[str], rng: np.random.Generator, pad_id: int = 0
                 ) -> tuple[np.ndarray, np.ndarray, str]:
    """Token ids and attention mask for a text model's end-to-end check, and what they are: the
    SENTENCES tokenized with the tokenizer file (padded with ``pad_id``, mask 0 there), or random
    token ids in [1000, 2000) without one."""
    if tokenizer:
        p = Path(tokenizer)
        tok = load_tokenizer(p)
        enc = [tok.encode(s) for s in SENTENCES]
        L = max(len(e.ids) for e in enc)
        ids = np.full((len(enc), L), pad_id, dtype=np.int64)
        mask = np.zeros((len(enc), L), dtype=np.int64)
        for r, e in enumerate(enc):
            ids[r, :len(e.ids)] = e.ids
            # the tokenizer's own mask: a tokenizer.json may pad to a fixed length
            mask[r, :len(e.ids)] = e.attention_mask
        kind = "a Hugging Face tokenizer file" if p.suffix == ".json" else "a WordPiece vocabulary"
        what = (f"{len(SENTENCES)} sentences (oracle/decide/compile.py SENTENCES) tokenized with the --tokenizer "
                f"file ({kind}), "
                f"{int(mask.sum())} real tokens, padded to {L} (attention_mask 0 on padding)")
        return ids, mask, what
    ids = rng.integers(1000, 2000, size=(2, 12), dtype=np.int64)
    return ids, np.ones_like(ids), "random token ids in [1000, 2000) (no --tokenizer given), 2 x 12"


def load_tokenizer(p: Path) -> Any:
    """A tokenizer from a Hugging Face tokenizer file (JSON) or a WordPiece vocab.txt, with the
    ``tokenizers`` package; a missing package or an unreadable file is an InputError."""
    try:
        import tokenizers  # optional: only the end-to-end check of a text model needs it
    except ImportError:
        raise InputError("--tokenizer needs the tokenizers package (pip install tokenizers)") from None
    try:
        if p.suffix == ".json":
            return tokenizers.Tokenizer.from_file(str(p))
        return tokenizers.BertWordPieceTokenizer(str(p), lowercase=True)
    except Exception as e:  # the Rust library raises its own exception types
        raise InputError(f"--tokenizer {p}: not readable as a tokenizer: {' '.join(str(e).split())[:150]}") from None


def verify(original: str, compiled: str, tokenizer: Optional[str] = None) -> dict[str, Any]:
    """Run both models with onnxruntime on the same inputs; per float output, the largest
    relative difference max|a - b| / max|a| (a float32 measurement)."""
    try:
        import onnxruntime as ort  # optional: installed with the test extra (pyproject.toml)
    except ImportError:
        return {"verified": False, "reason": "onnxruntime is not installed (pip install onnxruntime)"}
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    a = ort.InferenceSession(original, so, providers=["CPUExecutionProvider"])
    b = ort.InferenceSession(compiled, so, providers=["CPUExecutionProvider"])
    feed, what = _inputs(a, tokenizer, np.random.default_rng(0))
    names = [o.name for o in a.get_outputs()]
    if names != [o.name for o in b.get_outputs()]:
        return {"verified": False, "reason": "the compiled model's outputs differ in names from the original's"}
    ra, rb = a.run(names, feed), b.run(names, feed)
    outs = []
    for n, x, y in zip(names, ra, rb):
        x, y = np.asarray(x), np.asarray(y)
        if x.dtype.kind != "f":
            outs.append({"output": n, "shape": list(x.shape), "equal": bool(np.array_equal(x, y))})
            continue
        scale = float(np.max(np.abs(x))) if x.size else 0.0
        diff = float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64)))) if x.size else 0.0
        outs.append({"output": n, "shape": list(x.shape), "max_abs_difference": diff,
                     "relative_difference": diff / scale if scale else diff})
    rel = max((o["relative_difference"] for o in outs if "relative_difference" in o), default=None)
    same = all(o.get("equal", True) for o in outs)
    return {"verified": True, "inputs": what, "outputs": outs, "max_relative_difference": rel,
            "within_tolerance": same and (rel is None or rel <= TOLERANCE), "tolerance": TOLERANCE,
            "measurement": "float32 onnxruntime runs (CPUExecutionProvider); relative difference = "
                           "max|original - compiled| / max|original| per output; a measurement, not exact",
            "onnxruntime": ort.__version__}
