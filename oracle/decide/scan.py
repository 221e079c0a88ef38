"""The scan of a checkpoint, and its re-check.

``scan`` finds every MLP block of a checkpoint (oracle.core.families), loads each one within the
memory budget and decides it with ``decide``; the document it returns is what ``absorb scan
--json`` prints.  ``recheck_scan`` re-verifies such a document against the checkpoint:

* the inventory: the checkpoint's tensor list (names, shapes, stored types) hashes to the stated
  ``inventory_sha256``, and discovery run again gives the same blocks (names, shapes, views,
  activation and where it came from, the rule and the guesses) and the same skipped layers;
* every block: its weights, loaded again, hash to ``weights_sha256``; its stated certificate
  re-verifies from those weights with ``recheck_certificate`` (the block re-check of this
  package), and every stated field (verdict, claim, exactness, reason, the whole certificate)
  is the one the decision procedure gives for those weights;
* every bias-free distance: the certified lower bound is re-derived from its certificate Y by
  ``check_linear_certificate``, and the float64 distance is recomputed at the stated point z.

The first field that differs is named in the refusal (``blocks[3].certificate.search.violated``).
Not compared: the run's own fields (the path given, ``files``, ``seconds``, and ``compiled``, the
file ``--emit`` wrote and its end-to-end measurement) and the numbers that
time a computation inside certificates (keys ``time``, ``seconds``, ``time_check``,
``time_total``; a number there is accepted whatever it is, since it says nothing about the block).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from oracle.algebra import search
from oracle.core import activations, families
from oracle.core.blocks import Block
from oracle.core.errors import InputError
from oracle.core.formats import open_checkpoint
from oracle.core.io import reuse_freed_memory
from oracle.core.jsontypes import jsonable
from oracle.decide.block import decide, recheck_certificate
from oracle.decide.compile_safetensors import CONFIG_KEY, has_no_mlp_skip

__all__ = ["SCAN_FORMAT", "bias_free_distance", "distance_at", "recheck_scan", "scan"]


def bias_free_distance(block: Block) -> dict[str, Any]:
    """How far the bias-free weights are from the index condition (relaxation; float64 measurement),
    with the linear certificate Y of the lower bound and the relaxation's point z, so that a
    re-check recomputes both numbers from the document and the weights."""
    rel = search.relaxation_certificate(block.W_up, block.W_down, np.eye(block.d), max_iter=150,
                                        refine=True)
    z = np.asarray(rel["z"], dtype=np.float64)
    out = {"relaxed_distance_float64": distance_at(block, z),
           "note": "float64 measurement of ||W_down diag(z) W_up + I||_F at the relaxation's final point z in "
                   "[0,1]^m (an upper bound on the relaxed minimum, not a rigorous bound)",
           "certified_lower_bound_for_index_sets": rel["distance_lower_bound"] if rel["certified"] else None,
           "norm_of_I": math.sqrt(block.d), "iterations": rel["iterations"]}
    if rel["certified"]:
        out["certificate_Y"] = search.encode_matrix(rel["Y"])
    out["z"] = search.encode_matrix(z)
    return out


def distance_at(block: Block, z: np.ndarray) -> float:
    """||W_down diag(z) W_up + I||_F in float64, computed directly (not from the relaxation's
    objective, whose expanded square loses everything below sqrt(eps) near 0): the number a scan
    states and the one its re-check recomputes."""
    A = block.W_down @ (z[:, None] * block.W_up) + np.eye(block.d)
    return math.sqrt(float(np.sum(A * A)))


def _distance_tolerance(block: Block) -> float:
    """How far two float64 evaluations of distance_at may differ on machines that round products
    and sums in another order: a few ulps of the size of the terms."""
    scale = math.sqrt(block.d) + float(np.linalg.norm(block.W_down)) * float(np.linalg.norm(block.W_up))
    return 64 * np.finfo(np.float64).eps * scale


SCAN_FORMAT = "absorb-scan-2"  # the document's layout; absorb recheck reads this layout only


def scan(path: str, progress: Callable[[str], None] = lambda s: None,
         distances: bool = True) -> dict[str, Any]:
    """Scan a checkpoint: one entry per MLP block with shapes, activation, biases and verdict, and
    every linear layer that is in no block, with the reason it was skipped."""
    reuse_freed_memory()
    ck = open_checkpoint(path)
    if getattr(ck, "format", None) == "safetensors" and has_no_mlp_skip(ck.config()):
        raise InputError(f"config.json says {CONFIG_KEY}.mlp_skip = false: this checkpoint was compiled by absorb "
                         "scan --emit and its MLP blocks have no skip, so there is no x + B(x) to decide; its "
                         "intermediate_sizes are under the same key")
    specs, skipped = families.discover(ck)
    out_blocks = []
    t0 = time.perf_counter()
    for k, spec in enumerate(specs, 1):
        act, act_src = families.spec_activation(ck, spec)
        progress(f"[{k}/{len(specs)}] {spec['prefix'] or '<root>'} ({spec['family']}, {act}) "
                 f"{time.perf_counter() - t0:.1f}s")
        entry = families.spec_entry(ck, spec, act, act_src)
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
    doc: dict[str, Any] = {
        "scan_format": SCAN_FORMAT, "checkpoint": str(path), "format": ck.format,
        "files": [str(f) for f in ck.files], "tensors": len(ck.names()),
        "inventory_sha256": families.inventory_digest(ck),
        "blocks": out_blocks, "skipped": skipped,
        "summary": {"mlp_blocks": len(out_blocks), "verdicts": counts,
                    "skipped_linear_layers": len(skipped),
                    "refused_linear_layers": sum(1 for e in skipped if e.get("refused")),
                    "guessed_blocks": sum(1 for e in out_blocks if e["discovery"]["guessed"])},
        "note": "each block is taken as x -> x + MLP(x) with M = I; layer norms, attention "
                "and the order of normalisation (pre-/post-LN) are outside the analysis",
        "seconds": round(time.perf_counter() - t0, 2)}
    shared = families.shared_layers(ck, len(out_blocks))
    if shared:
        doc["shared_layers"] = shared
    return doc


def _scan_one(ck: Any, spec: dict[str, Any], act: str, entry: dict[str, Any],
              distances: bool) -> None:
    """Load, decide and measure one block, filling its report entry (ck: any reader that
    oracle.core.formats.open_checkpoint returns; they share one interface)."""
    entry["dtype"] = families.block_dtype(ck, spec)
    block = families.load_block(ck, spec, act)
    entry.update(families.weights_note(ck, spec))
    entry.update({"d": block.d, "m": block.m, "weights_sha256": families.weights_digest(block),
                  "biases_present": sorted(spec["biases"]),
                  "biases_nonzero": families.nonzero_biases(block)})
    entry.update(_judge(block, entry))
    if distances and not block.gated and block.act.odd_part_identity:
        entry["bias_free_distance"] = bias_free_distance(
            Block(block.activation, W_up=block.W_up, W_down=block.W_down))


def _unsupported(ck: Any, spec: dict[str, Any], act: str, src: str) -> dict[str, Any]:
    """An entry for a block whose activation is not in the catalog (shapes from the header only)."""
    d, m = families.block_dims(ck, spec)
    return {"d": d, "m": m, "dtype": families.block_dtype(ck, spec),
            "biases_present": sorted(spec["biases"]), "biases_nonzero": [],
            "verdict": "undecided", "claim": None, "exact": False,
            "reason": f"activation {act!r} ({src}) is not in the catalog (absorb activations lists it); "
                      "no claim applies", "certificate": {"kind": "unsupported_activation"}}


def _judge(block: Block, entry: dict[str, Any]) -> dict[str, Any]:
    """The verdict of absorb check's decision procedure (oracle.decide.decide) for the real block,
    biases included: relu blocks by relu-complete, gelu-family blocks by relu-limit.  The whole
    certificate goes into the document (absorb recheck re-verifies it from the checkpoint)."""
    v = decide(block)
    return {"verdict": v.verdict, "claim": v.claim, "exact": v.exact, "reason": v.reason,
            "certificate": v.certificate}




# ---------------------------------------------------------------------- re-check

# fields of a scan document that depend on the run, not on the checkpoint: not compared
# "compiled" is what --emit wrote (a file of the run, measured end to end by the run): the re-check
# of a scan document does not cover it
_RUN_FIELDS = ("checkpoint", "files", "seconds", "compiled")
_DISTANCE_RTOL = 1e-9  # the float64 distance recomputed at z (a measurement, not a bound)
# keys of a certificate that time a computation (they differ between runs): not compared
_TIMING_KEYS = ("time", "seconds", "time_check", "time_total")


class _Refused(Exception):
    """A field of the document that the checkpoint does not confirm (the message names it)."""


def _first_difference(stated: Any, actual: Any, where: str) -> Optional[str]:
    """The path of the first place where a document value differs from the recomputed one."""
    if isinstance(actual, dict):
        if not isinstance(stated, dict):
            return where
        actual = {k: v for k, v in actual.items() if k not in _TIMING_KEYS}
        stated = {k: v for k, v in stated.items()
                  if k not in _TIMING_KEYS or not isinstance(v, (int, float)) or isinstance(v, bool)}
        for k in actual:
            if k not in stated:
                return f"{where}.{k} (missing)"
        for k in stated:
            if k not in actual:
                return f"{where}.{k} (not in the checkpoint's scan)"
        for k in actual:
            diff = _first_difference(stated[k], actual[k], f"{where}.{k}")
            if diff:
                return diff
        return None
    if isinstance(actual, (list, tuple)):
        if not isinstance(stated, (list, tuple)) or len(stated) != len(actual):
            return f"{where} (length)" if isinstance(stated, (list, tuple)) else where
        for k, (s, a) in enumerate(zip(stated, actual)):
            diff = _first_difference(s, a, f"{where}[{k}]")
            if diff:
                return diff
        return None
    if type(stated) is not type(actual) and not (isinstance(stated, (int, float)) and isinstance(actual, (int, float))
                                                 and not isinstance(stated, bool) and not isinstance(actual, bool)):
        return where
    return None if stated == actual else where


def _check_distance(block: Block, stated: dict[str, Any], where: str) -> None:
    """Re-derive a bias-free distance's numbers from its own certificate Y and point z."""
    bf = Block(block.activation, W_up=block.W_up, W_down=block.W_down)
    eye = np.eye(block.d)
    try:
        z = search.decode_matrix(stated["z"])
        Y = search.decode_matrix(stated["certificate_Y"]) if "certificate_Y" in stated else None
    except (KeyError, TypeError, ValueError) as e:
        raise _Refused(f"{where}: malformed ({type(e).__name__})") from None
    if z.shape != (block.m,) or not np.all((z >= 0) & (z <= 1)):
        raise _Refused(f"{where}.z: not a point of [0,1]^m for m = {block.m}")
    value = distance_at(bf, z)
    said = stated.get("relaxed_distance_float64")
    if not isinstance(said, float) or not math.isclose(value, said, rel_tol=_DISTANCE_RTOL,
                                                       abs_tol=_distance_tolerance(bf)):
        raise _Refused(f"{where}.relaxed_distance_float64: {said!r}, recomputed at z: {value!r}")
    bound = stated.get("certified_lower_bound_for_index_sets")
    if Y is None:
        if bound is not None:
            raise _Refused(f"{where}.certified_lower_bound_for_index_sets: stated without a certificate_Y")
        return
    chk = search.check_linear_certificate(bf.W_up, bf.W_down, eye, Y)
    if not chk["certified"] or bound is None or bound > chk["distance_lower_bound"]:
        raise _Refused(f"{where}.certified_lower_bound_for_index_sets: {bound!r}; its certificate Y "
                       f"{'gives ' + repr(chk['distance_lower_bound']) if chk['certified'] else 'certifies nothing'}")


def _check_certificates(path: str, doc: dict[str, Any]) -> int:
    """Every decided block's stated certificate re-verifies from the checkpoint's weights
    (recheck_certificate), and its distance numbers from their own certificate; returns how many."""
    ck = open_checkpoint(path)
    specs, _ = families.discover(ck)
    n = 0
    for k, (spec, e) in enumerate(zip(specs, doc["blocks"])):
        if e.get("verdict") == "error" or not isinstance(e.get("certificate"), dict) \
                or e["certificate"].get("kind") == "unsupported_activation":
            continue
        block = families.load_block(ck, spec, e["activation"])
        if not recheck_certificate(block, e["certificate"]):
            raise _Refused(f"blocks[{k}].certificate: the {e['certificate'].get('kind')!r} certificate does "
                           "not re-verify from the checkpoint's weights")
        if "bias_free_distance" in e:
            _check_distance(block, e["bias_free_distance"], f"blocks[{k}].bias_free_distance")
        n += 1
        del block
    return n


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"


def recheck_scan(doc: dict[str, Any], files: list[str]) -> tuple[bool, str]:
    """(holds, reason) for an ``absorb scan --json`` document and its checkpoint (the FILE given,
    else the path the document names).  A field the checkpoint does not confirm is named."""
    if doc.get("scan_format") != SCAN_FORMAT:
        return False, f"scan_format: {doc.get('scan_format')!r}, this version reads {SCAN_FORMAT!r}"
    if len(files) > 1:
        raise InputError("a scan document needs one checkpoint: absorb recheck SCAN.json CHECKPOINT")
    path = files[0] if files else doc.get("checkpoint")
    if not isinstance(path, str) or not path:
        raise InputError("a scan document needs its checkpoint: absorb recheck SCAN.json CHECKPOINT")
    if not Path(path).exists():
        raise InputError(f"{path}: no such file or directory")
    if not isinstance(doc.get("blocks"), list) or not all(isinstance(e, dict) for e in doc["blocks"]):
        return False, "blocks: not a list of block entries"
    # the scan again, in the form its document has once printed (strict JSON, numpy values as Python's)
    actual = json.loads(json.dumps(jsonable(scan(path), finite=True), default=str, allow_nan=False))
    stated = {k: v for k, v in doc.items() if k not in _RUN_FIELDS}
    mine = {k: v for k, v in actual.items() if k not in _RUN_FIELDS}
    # the inventory first: a document about another checkpoint is refused as such
    for key in ("format", "tensors", "inventory_sha256"):
        if stated.get(key) != mine.get(key):
            return False, (f"{key}: the document says {stated.get(key)!r}, the checkpoint gives {mine.get(key)!r} "
                           "(the document is about another checkpoint, or was altered)")
    if len(stated["blocks"]) != len(mine["blocks"]):
        return False, (f"blocks: the document lists {len(stated['blocks'])} MLP blocks, discovery finds "
                       f"{len(mine['blocks'])} in the checkpoint")
    # the blocks' weights before their verdicts: a verdict about other weights is refused as such
    for k, (s, a) in enumerate(zip(stated["blocks"], mine["blocks"])):
        for key in ("block", "tensors", "shapes", "weights_sha256"):
            if s.get(key) != a.get(key):
                return False, f"blocks[{k}].{key}: the document says {s.get(key)!r}, the checkpoint gives {a.get(key)!r}"
    diff = _first_difference(stated, mine, "")
    if diff:
        return False, f"{diff.lstrip('.')}: not what the checkpoint gives (the field was altered, or the scan differs)"
    try:
        n = _check_certificates(path, doc)
    except _Refused as e:
        return False, str(e)
    verdicts = ", ".join(f"{v} {c}" for v, c in sorted(mine["summary"]["verdicts"].items()))
    found = f"{_count(len(mine['blocks']), 'MLP block')} and {_count(len(mine['skipped']), 'skipped layer')}"
    return True, (f"the scan of {path} re-verifies: inventory (sha256 of {mine['tensors']} tensors' names, shapes "
                  f"and types), {found} as discovery finds them, weights hashes, {n} certificates re-verified "
                  "from the weights "
                  f"({verdicts or 'no verdicts'})"
                  + ("; not verified: compiled (the model --emit wrote and its float32 end-to-end measurement "
                     "belong to that run; re-run absorb scan --emit to measure again)" if "compiled" in doc else ""))
