"""The index-set question in Python integers, for problems whose numbers do not fit in float64.

The question: integer vectors t_1, ..., t_n (each of the same length D) and a target y; is there a
set S with sum_{i in S} t_i = y?  (The relu condition sum_{i in S} a_i b_i^T = -C, scaled to
integers, is this with t_i = vec(a_i b_i^T) and y = -vec(C).)  Nothing here is rounded: Python
integers have no size limit, so the answers hold whatever the bit length of the data.

Two exact arguments, tried in this order:

* a divisibility obstruction: if g = gcd_i t_i[c] does not divide y[c] for some coordinate c, no
  sum of the t_i[c] equals y[c] (every such sum is a multiple of g); g = 0 means every t_i[c] is 0,
  and then y[c] must be 0.  The certificate (c, g) is re-checked from the data in O(n);
* meet in the middle: every sum over the first half of the indices is stored, and for every sum
  over the second half the missing part is looked up.  Exact and complete, with about 2^(n/2)
  sums on each side, so it runs only for n <= MAX_MITM.

* for one coordinate (D = 1, e.g. a d = 1 relu block's cost zero), a dynamic programme over the
  reachable sums after dividing by the gcd: a bit set of every reachable value, one shift per
  vector, so the cost is n times the range of sums (pseudo-polynomial); it runs while that range
  is at most MAX_DP_BITS bits, whatever n.

Otherwise (more than MAX_MITM vectors, no obstruction, and D > 1 or a range beyond MAX_DP_BITS)
the answer is "unknown": subset sum is NP-complete, so no method polynomial in the bit length is
known for the general case.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

MAX_MITM = 36  # 2^18 stored sums at most on one side (tens of megabytes)
MAX_DP_BITS = 1 << 24  # range of reachable sums (in units of the gcd) for the one-coordinate programme


def gcd_obstruction(vectors: Sequence[Sequence[int]], target: Sequence[int]) -> Optional[dict[str, Any]]:
    """A coordinate c whose gcd g does not divide target[c] (None when there is none)."""
    for c, y in enumerate(target):
        g = 0
        for t in vectors:
            g = math.gcd(g, int(t[c]))
        if (g == 0 and int(y) != 0) or (g != 0 and int(y) % g != 0):
            # the gcd as a decimal string: it can exceed any JSON integer range
            return {"kind": "gcd", "coordinate": c, "gcd": str(g)}
    return None


def check_gcd_obstruction(vectors: Sequence[Sequence[int]], target: Sequence[int], cert: dict[str, Any]) -> bool:
    """Re-verify a gcd certificate: g is the gcd of the coordinate and does not divide the target."""
    c, g = int(cert["coordinate"]), int(str(cert["gcd"]))
    if not 0 <= c < len(target):
        return False
    gg = 0
    for t in vectors:
        gg = math.gcd(gg, int(t[c]))
    if gg != g:
        return False
    y = int(target[c])
    return (g == 0 and y != 0) or (g != 0 and y % g != 0)


def _sums(vectors: Sequence[tuple[int, ...]], offset: int, D: int) -> dict[tuple[int, ...], int]:
    """Every subset sum of ``vectors`` with one bit mask (over indices offset + i) per distinct sum."""
    out: dict[tuple[int, ...], int] = {tuple([0] * D): 0}
    for i, t in enumerate(vectors):
        bit = 1 << (offset + i)
        new = {}
        for s, mask in out.items():
            v = tuple(a + b for a, b in zip(s, t))
            if v not in out and v not in new:
                new[v] = mask | bit
        out.update(new)
    return out


def meet_in_the_middle(vectors: Sequence[Sequence[int]], target: Sequence[int]) -> Optional[list[int]]:
    """An index set S with sum_{i in S} vectors[i] = target, or None when none exists (exact)."""
    vs = [tuple(int(a) for a in t) for t in vectors]
    y = tuple(int(a) for a in target)
    n, D = len(vs), len(y)
    if n > MAX_MITM:
        raise ValueError(f"meet in the middle is limited to {MAX_MITM} vectors, got {n}")
    half = n // 2
    left = _sums(vs[:half], 0, D)
    right = _sums(vs[half:], half, D)
    for s, mask in right.items():
        need = tuple(a - b for a, b in zip(y, s))
        if need in left:
            full = left[need] | mask
            return [i for i in range(n) if full >> i & 1]
    return None


def _dp_data(values: Sequence[int], y: int) -> Optional[tuple[list[int], int, int]]:
    """Values and target divided by their gcd, and the bit offset of the sum 0; None when the range
    of sums exceeds MAX_DP_BITS (the caller has excluded the gcd obstruction)."""
    g = 0
    for v in values:
        g = math.gcd(g, int(v))
    if g == 0:
        return None
    vs = [int(v) // g for v in values]
    neg = -sum(v for v in vs if v < 0)
    pos = sum(v for v in vs if v > 0)
    if neg + pos + 1 > MAX_DP_BITS:
        return None
    return vs, int(y) // g, neg


def _reachable(vs: Sequence[int], neg: int, hi: int) -> int:
    """Bit j set iff j - neg is a subset sum of vs (bits above hi dropped: none is reachable)."""
    R = 1 << neg
    mask = (1 << (hi + 1)) - 1
    for v in vs:
        R |= ((R << v) & mask) if v >= 0 else (R >> -v)
    return R


def dp_search(values: Sequence[int], y: int) -> Optional[dict[str, Any]]:
    """The one-coordinate question by the reachable-sums programme: {'status': 'found', 'S': ...} or
    {'status': 'none', ...}; None when the range is too large.  A found S is traced back by asking,
    vector by vector from the last, whether the rest can still reach the remaining target."""
    obs = gcd_obstruction([[v] for v in values], [y])
    if obs is not None:
        return {"status": "none", "certificate": obs}
    if all(int(v) == 0 for v in values):  # then y = 0 (no obstruction): the empty set
        return {"status": "found", "S": []}
    data = _dp_data(values, y)
    if data is None:
        return None
    vs, t, neg = data
    hi = neg + sum(v for v in vs if v > 0)
    if not 0 <= t + neg <= hi or not _reachable(vs, neg, hi) >> (t + neg) & 1:
        return {"status": "none", "certificate": {"kind": "reachable_sums", "vectors": len(vs)}}
    S: list[int] = []
    rest = t
    for i in range(len(vs) - 1, -1, -1):
        before = vs[:i]
        if 0 <= rest + neg <= hi and _reachable(before, neg, hi) >> (rest + neg) & 1:
            continue  # reachable without vector i
        S.append(i)
        rest -= vs[i]
    if rest != 0:  # pragma: no cover - the trace follows reachable sums only
        raise RuntimeError("reachable-sums trace did not end at 0")
    return {"status": "found", "S": sorted(S)}


def exact_subset_search(vectors: Sequence[Sequence[int]], target: Sequence[int]) -> dict[str, Any]:
    """{'status': 'found', 'S': [...]}, {'status': 'none', 'certificate': {...}} or {'status': 'unknown'}.

    The found S is checked by summing in integers before it is returned."""
    obs = gcd_obstruction(vectors, target)
    if obs is not None:
        return {"status": "none", "certificate": obs}
    n = len(vectors)
    if n > MAX_MITM and len(target) == 1:
        r = dp_search([t[0] for t in vectors], target[0])
        if r is not None:
            if r["status"] == "found" and not check_found(vectors, target, r["S"]):  # pragma: no cover
                raise RuntimeError("the reachable-sums programme returned a wrong set")
            return r
    if n > MAX_MITM:
        return {"status": "unknown", "reason": f"{n} vectors and no divisibility obstruction "
                                               f"(meet in the middle runs up to {MAX_MITM})"}
    S = meet_in_the_middle(vectors, target)
    if S is None:
        return {"status": "none", "certificate": {"kind": "exact_exhaustive", "vectors": n}}
    if not check_found(vectors, target, S):  # pragma: no cover - the masks are built from the sums
        raise RuntimeError("meet in the middle returned a set whose sum differs from the target")
    return {"status": "found", "S": S}


def check_found(vectors: Sequence[Sequence[int]], target: Sequence[int], S: Sequence[int]) -> bool:
    """sum_{i in S} vectors[i] == target, in integers (S without repetitions, indices in range)."""
    idx = [int(i) for i in S]
    if len(set(idx)) != len(idx) or any(not 0 <= i < len(vectors) for i in idx):
        return False
    return all(sum((int(vectors[i][c]) for i in idx), 0) == int(y) for c, y in enumerate(target))


def check_none(vectors: Sequence[Sequence[int]], target: Sequence[int], cert: dict[str, Any]) -> bool:
    """Re-verify a 'none' certificate of exact_subset_search from the data."""
    kind = cert.get("kind")
    if kind == "gcd":
        return check_gcd_obstruction(vectors, target, cert)
    if kind == "reachable_sums":
        if len(target) != 1 or int(cert.get("vectors", -1)) != len(vectors):
            return False
        r = dp_search([t[0] for t in vectors], target[0])
        return r is not None and r["status"] == "none"
    if kind == "exact_exhaustive":
        return (int(cert.get("vectors", -1)) == len(vectors) and len(vectors) <= MAX_MITM
                and meet_in_the_middle(vectors, target) is None)
    return False
