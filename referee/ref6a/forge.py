"""Referee ref6a: forged depth-analytic-d1 certificates against the claim's registered re-check
(oracle.claims.depth_analytic_d1.recheck_d1).  Each forgery edits one field of an honest
certificate (JSON round trip); the table says whether recheck_d1 accepts it and whether the
forgery changes what the certificate proves (harmful) or only what it says (a wrong label).

Run: nice .venv/bin/python referee/ref6a/forge.py
"""

from __future__ import annotations

import copy
import json
import random
import sys
import time
from fractions import Fraction

from oracle.algebra.stacks import analytic as an
from oracle.claims import depth_analytic_d1 as g

Q = Fraction


def js(x):
    return json.loads(json.dumps(x))


def honest(act, widths, seed, delta):
    cert = g.check(g.D1Instance(act, widths, seed, delta))
    if not cert.holds:
        raise SystemExit(f"honest instance failed: {cert.reason}")
    return js(cert.as_dict())


def find_limit_above_128():
    """An honest instance whose limit block needed more than 128 bits (to try a lowered precision)."""
    for seed in range(60):
        doc = honest("gelu_tanh", [6, 7], seed, 8)
        if doc["data"]["limit"]["precision"] > 128:
            return doc
    return None


def main() -> int:
    t0 = time.perf_counter()
    rows = []

    def trial(name, doc, harmful, note):
        ok = g.recheck_d1(doc)
        rows.append((name, "ACCEPTED" if ok else "refused", harmful, note))

    base = honest("silu", [3, 4], 5, 8)       # depth 2: the drawn stack goes through analytic.recheck
    one = honest("gelu", [6], 2, 4)           # depth 1: the drawn stack goes through rank_full
    trial("honest (depth 2)", base, "-", "control")
    trial("honest (depth 1)", one, "-", "control")

    for part in ("limit", "eps_stack"):
        d = copy.deepcopy(base)
        d["data"][part]["det"] = "[1.00000 +/- 0.100000]"
        trial(f"{part}: stored det replaced by [1 +/- 0.1]", d, "no (label only)",
              "rank_full recomputes but never compares with the stored ball")
        d = copy.deepcopy(base)
        d["data"][part]["det"] = "0"
        trial(f"{part}: stored det replaced by 0", d, "no (label only)",
              "a stored ball containing 0 is accepted")
        d = copy.deepcopy(base)
        d["data"][part]["det"] = "[+/- 1.00000e+10]"
        trial(f"{part}: stored det replaced by [+/- 1e10]", d, "no (label only)", "")
    d = copy.deepcopy(base)
    d["data"]["near"]["facts"]["moved"]["opposite"]["det"] = "0"
    trial("moved opposite pair: stored det replaced by 0", d, "no (label only)", "")
    d = copy.deepcopy(one)
    d["data"]["stack"]["det"] = "0"
    trial("depth-1 drawn stack: stored det replaced by 0", d, "no (label only)", "depth 1 goes through rank_full")
    d = copy.deepcopy(base)
    d["data"]["stack"]["det"] = "[1.00000 +/- 0.100000]"
    trial("depth-2 drawn stack: stored det replaced by [1 +/- 0.1]", d, "no", "analytic.recheck compares (control)")

    # the stated N / D_plain / gaps of the limit (rank_full ignores them)
    d = copy.deepcopy(base)
    d["data"]["limit"]["N"] = 999
    d["data"]["limit"]["D_plain"] = -5
    trial("limit: N = 999, D_plain = -5 stated", d, "no (label only)", "rank_full derives N from the widths")

    # the precision: lowered below what is needed, raised, out of range
    hi = find_limit_above_128()
    if hi is not None:
        p = hi["data"]["limit"]["precision"]
        d = copy.deepcopy(hi)
        d["data"]["limit"]["precision"] = 128
        trial(f"limit: precision {p} -> 128 (the determinant needs {p})", d, "yes if accepted", "recomputed at 128")
        d = copy.deepcopy(hi)
        d["data"]["limit"]["precision"] = 2048
        trial(f"limit: precision {p} -> 2048", d, "no (more bits, still a proof)", "")
    else:
        rows.append(("limit: precision lowered", "not tried", "-", "no honest instance needed > 128 bits"))
    for bad in (4096, 100, "512"):
        d = copy.deepcopy(base)
        d["data"]["limit"]["precision"] = bad
        trial(f"limit: precision {bad!r}", d, "-", "out of PROOF_PRECISIONS / not an int")
    d = copy.deepcopy(base)
    d["data"]["stack"]["precision"] = 1024
    trial("depth-2 drawn stack: precision 1024", d, "-", "analytic.recheck accepts 128/256/512 only")

    # the rows of the minor
    d = copy.deepcopy(base)
    om = d["data"]["limit"]["rows_omitted"]
    nrows = len(d["data"]["limit"]["points"])
    d["data"]["limit"]["rows_omitted"] = [i for i in range(nrows) if i not in om][:len(om)]
    trial("limit: rows_omitted swapped for other rows", d, "no if the new minor is nonsingular",
          "stored det then describes another minor")

    # the certified flag, the point rule
    d = copy.deepcopy(base)
    d["data"]["limit"]["certified"] = "yes"
    trial("limit: certified = 'yes'", d, "-", "")
    d = copy.deepcopy(base)
    pts = d["data"]["limit"]["points"]
    pts[1] = [-pts[0][0]]
    d["data"]["eps_stack"]["points"] = copy.deepcopy(pts)
    trial("limit + eps stack: x_1 := -x_0 (an opposite pair of points)", d, "no if still nonsingular",
          "point rule of the docstring not re-checked for limit/eps stack (only near points)")

    # the drawn stack replaced by another stack of the same widths (not bound to the instance)
    d = copy.deepcopy(base)
    rng = random.Random(99)
    other = g.random_layers([3, 4], rng)
    d["data"]["stack"] = js(an.certify("silu", other, g.distinct_abs_points(16, rng)))
    trial("drawn stack replaced by another stack of widths (3, 4)", d, "no (any stack is evidence)",
          "the certificate does not carry the instance's seed")
    # a stack drawn with widths beyond MAX_SUM (sum 24) with its own limit and eps stack
    big = honest("gelu", [12, 12], 1, 8) if False else None

    # near-miss labels
    d = copy.deepcopy(base)
    for f in d["data"]["near"]["facts"]["dependent"].values():
        f["relation_contains_0"] = False
        f["largest_radius"] = 1e300
    trial("near misses: relation_contains_0 = False, largest_radius = 1e300", d, "no (label only)",
          "recomputed, labels ignored")
    d = copy.deepcopy(base)
    d["reason"] = "anything"
    d["data"]["drawn"] = {"d": [7], "m": ["below"]}
    trial("reason text and coverage features edited", d, "label only",
          "the coverage features are not bound to the certificate")

    # activation of the whole certificate changed consistently
    d = copy.deepcopy(base)
    for part in ("stack", "limit", "eps_stack"):
        d["data"][part]["activation"] = "gelu"
    trial("activation silu -> gelu in stack, limit, eps stack (not in moved pairs)", d, "-",
          "the determinants are recomputed for gelu")

    d = copy.deepcopy(one)
    for kind in ("opposite", "equal"):
        mc = d["data"]["near"]["facts"]["moved"][kind]
        mc.update(js(an.certify("silu", an.certificate_parts(mc, min_depth=1)[1],
                                an.certificate_parts(mc, min_depth=1)[2], g.PROOF_PRECISIONS)))
    trial("gelu certificate whose moved near misses are silu certificates (same blocks, points)", d,
          "the near-miss evidence is for another activation", "_d1_rank does not compare the activation")

    w = max(len(r[0]) for r in rows)
    for r in rows:
        print(f"{r[0]:<{w}}  {r[1]:<9}  harmful: {r[2]:<32}  {r[3]}")
    print(f"({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
