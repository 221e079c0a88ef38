"""The committed sweep of depth-analytic's rank certificates (proofs/certificates/depth-analytic-sweep.json):
one entry per width tuple of a claimed range, with shared rational weights and points and per
activation the rows, precision and determinant ball.  Reading it, building entries, and the
re-check of a whole sweep document (the claimed range covered exactly once, every certificate
recomputed from its rational data: oracle/algebra/stacks/analytic.py).
"""

from __future__ import annotations

import functools
import itertools
import json
import random
from pathlib import Path
from typing import Any, Optional, Sequence

from oracle.algebra.stacks.analytic import (ACTIVATIONS, CLAIM, certify, det_ratio, junction_gaps,
                                            param_count, plain_dimension, point_count, random_layers,
                                            random_points, recheck_det)

SWEEP_PATH = Path(__file__).resolve().parents[3] / "proofs" / "certificates" / "depth-analytic-sweep.json"
SWEEP_FORMAT = "depth-analytic-sweep/1"
MAX_SWEEP_TUPLES = 200_000        # a claimed range larger than this is refused (memory and time)


@functools.lru_cache(maxsize=1)
def load_sweep(path: Optional[str] = None) -> dict[str, Any]:
    """The committed sweep (proofs/certificates/depth-analytic-sweep.json)."""
    return json.loads(Path(path or SWEEP_PATH).read_text())


def find_sweep_entry(d: int, widths: Sequence[int]) -> Optional[dict[str, Any]]:
    """The committed sweep's entry for d and these widths (None when there is none or no sweep)."""
    try:
        sweep = load_sweep()
    except (OSError, ValueError):
        return None
    for e in sweep["entries"]:
        if e["d"] == d and e["widths"] == list(widths):
            return e
    return None


def sweep_widths(max_d: int = 4, depths: Sequence[int] = (2, 3), max_width: int = 6) -> list[tuple[int, list[int]]]:
    """Every (d, widths) of the sweep."""
    out = []
    for d in range(1, max_d + 1):
        for L in depths:
            for w in itertools.product(range(1, max_width + 1), repeat=L):
                out.append((d, list(w)))
    return out


def compact_entry(certs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One sweep entry: the shared weights and points, and per activation rows and precision."""
    first = next(iter(certs.values()))
    keys = ("d", "widths", "theta_den", "theta", "points_den", "points")
    entry = {k: first[k] for k in keys}
    entry["results"] = {a: {"certified": c["certified"], "precision": c["precision"],
                            "rows_omitted": c["rows_omitted"], "det": c["det"]} for a, c in certs.items()}
    return entry


def entry_certificate(entry: dict[str, Any], activation: str) -> dict[str, Any]:
    """The standalone certificate of one activation in a sweep entry."""
    r = entry["results"][activation]
    d, widths = entry["d"], entry["widths"]
    return {"claim": CLAIM, "activation": activation, "d": d, "widths": widths,
            "N": param_count(d, widths), "D_plain": plain_dimension(d, widths),
            "gaps": junction_gaps(d, widths), "theta_den": entry["theta_den"], "theta": entry["theta"],
            "points_den": entry["points_den"], "points": entry["points"],
            "rows_omitted": r["rows_omitted"], "precision": r["precision"], "det": r["det"],
            "certified": r["certified"]}


def sweep_entry(d: int, widths: Sequence[int], seed: int = 0) -> dict[str, Any]:
    """Certify one width tuple for the three activations at shared weights and points."""
    for k in range(3):
        rng = random.Random(f"sweep/{d}/{list(widths)}/{seed}/{k}")
        layers = random_layers(d, widths, rng)
        pts = random_points(d, point_count(d, widths), rng)
        certs = {a: certify(a, layers, pts) for a in ACTIVATIONS}
        if all(c["certified"] for c in certs.values()):
            break
    entry = compact_entry(certs)
    entry["seed"] = [seed, k]
    return entry


def _sweep_range(doc: dict[str, Any]) -> list[tuple[int, tuple[int, ...]]]:
    """The (d, widths) a sweep document claims to cover (ValueError when the claim is malformed)."""
    max_d, max_width, depths = doc.get("max_d"), doc.get("max_width"), doc.get("depths")
    if not isinstance(max_d, int) or isinstance(max_d, bool) or not 1 <= max_d <= 64:
        raise ValueError(f"max_d = {max_d!r} is not an integer in 1..64")
    if not isinstance(max_width, int) or isinstance(max_width, bool) or not 1 <= max_width <= 64:
        raise ValueError(f"max_width = {max_width!r} is not an integer in 1..64")
    if not isinstance(depths, list) or not depths or any(
            not isinstance(L, int) or isinstance(L, bool) or not 2 <= L <= 8 for L in depths) \
            or len(set(depths)) != len(depths):
        raise ValueError(f"depths = {depths!r} is not a list of distinct integers in 2..8")
    if max_d * sum(max_width ** L for L in depths) > MAX_SWEEP_TUPLES:
        raise ValueError(f"the claimed range has more than {MAX_SWEEP_TUPLES} width tuples")
    return [(d, tuple(w)) for d, w in sweep_widths(max_d, depths, max_width)]


def recheck_sweep(doc: Any, every: int = 1, progress: Optional[Any] = None) -> dict[str, Any]:
    """Re-check a sweep document: the claimed range (max_d, depths, max_width) is covered exactly
    once, by entries of that range only, every activation's result says certified, and the
    certificate of every every-th entry (every entry when every = 1) is recomputed from its stored
    rational weights and points (recheck_reason: N, the N x N minor, the determinant balls).

    progress(done, total, entry) is called after each recomputed entry.  Returns a dictionary with
    holds, reason (one line), entries, recomputed, determinants and the largest radius / |mid| of
    the recomputed determinants."""
    out: dict[str, Any] = {"holds": False, "reason": "", "entries": 0, "recomputed": 0, "determinants": 0,
                           "every": every, "worst_ratio": None, "worst_entry": None}

    def fail(why: str) -> dict[str, Any]:
        out["reason"] = why
        return out

    if not isinstance(every, int) or every < 1:
        raise ValueError("every must be a positive integer")
    if not isinstance(doc, dict) or doc.get("format") != SWEEP_FORMAT:
        return fail(f"not a {SWEEP_FORMAT} document")
    if doc.get("claim") != CLAIM:
        return fail(f"the sweep is for claim {doc.get('claim')!r}, not {CLAIM!r}")
    acts = doc.get("activations")
    if not isinstance(acts, list) or not acts or len(set(map(str, acts))) != len(acts) or \
            any(a not in ACTIVATIONS for a in acts):
        return fail(f"activations = {acts!r} is not a list of distinct activations of {list(ACTIVATIONS)}")
    try:
        claimed = _sweep_range(doc)
    except ValueError as e:
        return fail(f"the claimed range is malformed: {e}")
    entries = doc.get("entries")
    if not isinstance(entries, list):
        return fail("entries is not a list")
    out["entries"] = len(entries)
    want = set(claimed)
    seen: dict[tuple[int, tuple[int, ...]], int] = {}
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or not isinstance(e.get("widths"), list) or \
                not isinstance(e.get("d"), int) or any(not isinstance(m, int) for m in e["widths"]):
            return fail(f"entry {i} has no integer d and widths")
        key = (e["d"], tuple(e["widths"]))
        label = f"d = {key[0]}, widths {key[1]}"
        if key not in want:
            return fail(f"entry {i} ({label}) is outside the claimed range (max_d = {doc['max_d']}, "
                        f"depths {doc['depths']}, max_width = {doc['max_width']})")
        if key in seen:
            return fail(f"entries {seen[key]} and {i} are both {label}")
        seen[key] = i
        res = e.get("results")
        if not isinstance(res, dict) or set(res) != set(acts):
            return fail(f"entry {i} ({label}) has results for {sorted(res) if isinstance(res, dict) else res!r}, "
                        f"the sweep lists {acts}")
        bad = [a for a in acts if not isinstance(res[a], dict) or res[a].get("certified") is not True]
        if bad:
            return fail(f"entry {i} ({label}) is not certified for {', '.join(bad)}")
    missing = [k for k in claimed if k not in seen]
    if missing:
        d, w = missing[0]
        return fail(f"the claimed range includes d = {d}, widths {w}, which has no entry "
                    f"({len(missing)} width tuples missing)")
    todo = list(range(0, len(entries), every))
    worst = -1.0
    for n, i in enumerate(todo):
        e = entries[i]
        for a in acts:
            cert = entry_certificate(e, a)
            why, det = recheck_det(cert)
            if why:
                return fail(f"entry {i} (d = {e['d']}, widths {tuple(e['widths'])}, {a}): {why}")
            ratio = det_ratio(det)
            out["determinants"] += 1
            if ratio > worst:
                worst, out["worst_entry"] = ratio, f"entry {i} (d = {e['d']}, widths {tuple(e['widths'])}, {a})"
        out["recomputed"] += 1
        if progress is not None:
            progress(n + 1, len(todo), e)
    out["worst_ratio"] = worst
    out["holds"] = True
    part = "every entry" if every == 1 else f"every {every}th entry ({len(todo)} of {len(entries)})"
    out["reason"] = (f"{len(entries)} width tuples cover the claimed range (d <= {doc['max_d']}, L in "
                     f"{doc['depths']}, widths <= {doc['max_width']}) once each; {part} recomputed from its "
                     f"rational weights and points: {out['determinants']} determinant balls exclude 0")
    return out
