"""The relu limit of an activation (hypothesis sigma_limit_relu of relu-limit): |s - relu| <= 1/2 on
the whole line, enclosed with arb balls on a subdivision of [0, 64] (s - relu is even by the odd-part
identity; beyond 64 the tail bounds of proofs/informal/relu-limit.md apply), and
|s(t z + c)/t - relu(z)| <= (|c| + 1/2)/t enclosed at sample (z, c, t).

Shared by the oracle check of relu-limit (oracle/claims/relu_limit.py) and the decision for a block
with no index set (oracle/decide/relu.py), so both rest on the same enclosure.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any

from oracle.core import activations, arith
from oracle.core.rational import arb, to_arb
from oracle.algebra.exact import BALL_PREC

Q = Fraction
R_BOUND = activations.RELU_GAP_BOUND  # sup |s - relu| for the activations the claim names
LIMIT_T = (16, 256, 65536)
LIMIT_Z = (Q(-2), Q(-1, 2), Q(0), Q(1, 3), Q(3))
LIMIT_C = (Q(-3), Q(0), Q(5, 2))


@functools.lru_cache(maxsize=None)
def limit_enclosure(act: str, pieces_per_unit: int = 32, top: int = 64) -> dict[str, Any]:
    """Rigorous enclosure of |s - relu| on [0, top] by arb subdivision (s - relu is even), plus ball
    checks of |s(tz + c)/t - relu(z)| <= (|c| + 1/2)/t at sample points."""
    a = activations.get(act)
    f = a.ball
    # s - relu on y >= 0, enclosed in balls of width 1/pieces_per_unit (the catalog's enclosure)
    worst, ok = activations.relu_gap_enclosure(a, top=top, pieces_per_unit=pieces_per_unit, lower=0)
    with arith.precision("ball", BALL_PREC):
        samples = []
        for t in LIMIT_T:
            for z in LIMIT_Z:
                for c in LIMIT_C:
                    tb = arb(t)
                    val = abs(f(tb * to_arb(z) + to_arb(c)) / tb - to_arb(z).max(arb(0)))
                    bound = (abs(c) + R_BOUND) / t
                    good = bool(val.upper() <= to_arb(bound))
                    ok = ok and good
                    samples.append({"t": t, "z": str(z), "c": str(c), "upper": float(val.upper()),
                                    "bound": str(bound), "ok": good})
    return {"activation": act, "sup_bound": str(R_BOUND), "interval": f"[0, {top}]",
            "pieces": pieces_per_unit * top, "enclosed_max": worst, "samples": samples, "holds": ok}
