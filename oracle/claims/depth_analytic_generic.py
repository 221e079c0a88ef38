"""Claim depth-analytic-generic: for gelu, gelu_tanh and silu, d >= 2, depth L >= 2 and ANY widths,
almost every bias-free residual stack is no bias-free plain stack of the same widths (plain stacks
with biases are not covered); no certificate is assumed.

The proof (proofs/informal/depth-analytic-generic.md) is depth-analytic's measure argument with its
rank hypothesis replaced by a proof that a full-rank point exists for every width tuple when d >= 2
(Step R1: at weights (U_l, eps W_l) the column-rescaled Jacobian tends to that of ONE block of width
m_1 + ... + m_L; Step R2: for pairwise non-parallel rows that block's 2 d m derivative functions are
linearly independent).  The oracle cannot check a statement about all widths; it checks what the
proof predicts on drawn instances, in arb ball arithmetic, with depth-analytic's certificate code
(oracle/algebra/stacks/analytic.py):

  * the stack: d in 2..4, L in {2, 3}, widths 1..8 (the sweep stops at 6 and at d = 4; widths below
    d occur), drawn rational weights with pairwise non-parallel rows in each layer and nonzero
    entries, and a minor of the Jacobian whose determinant ball excludes 0 (rank N);
  * the one-block limit of the proof (Step R2), when N <= LIMIT_MAX_PARAMS: a block of width
    m = m_1 + ... + m_L with pairwise non-parallel rows (checked exactly) and nonzero columns whose
    Jacobian has rank N = 2 d m, certified the same way.

Every certificate re-checks from its JSON alone (depth-analytic's recheck for the stack; for the
limit block the depth-1 re-check plus the exact non-parallel test).  A ball that contains 0 proves
nothing: such an instance fails the check (the proof predicts rank N, so a failure is a finding to
look at, not a disproof).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional, Sequence

from hypothesis import strategies as st

from oracle.algebra.exact import identity, line_key, safe_recheck
from oracle.algebra.stacks import analytic as an
from oracle.claims import coverage
from oracle.claims.base import Certificate, oracle_check
from oracle.claims.depth_analytic import rank_forgeries_accepted

CLAIM = "depth-analytic-generic"
MAX_D = 4
MAX_WIDTH = 8
MAX_PARAMS = 128         # N of a drawn stack; wider draws are shrunk (largest width first)
LIMIT_MAX_PARAMS = 96    # the one-block limit is certified only up to this N ("where cheap")
LIMIT_REQUIRED_PARAMS = 48  # ... and a certificate without it is refused up to this N, whatever the above says

Layer = an.Layer


# ================================================================ drawing

def non_parallel(rows: Sequence[Sequence[Fraction]]) -> bool:
    """Every row nonzero and no two rows parallel (exact: the lines through them differ)."""
    keys = [line_key(r) for r in rows]
    return None not in keys and len(set(keys)) == len(keys)


def random_layers(d: int, widths: Sequence[int], rng: random.Random) -> list[Layer]:
    """depth-analytic's rational weights (U entries in [-3/2, 3/2], W in [-1, 1], eighths, all
    nonzero), redrawn until the rows of each layer are pairwise non-parallel."""
    out = []
    for m in widths:
        while True:
            (U, W), = an.random_layers(d, [m], rng)
            if non_parallel(U):
                break
        out.append((U, W))
    return out


def limit_block(d: int, m: int, rng: random.Random) -> Layer:
    """One block of width m whose m rows are pairwise non-parallel across the whole block (the
    hypothesis of Step R2) and whose entries are nonzero eighths."""
    nz = lambda n: [k for k in range(-n, n + 1) if k]  # noqa: E731
    while True:
        U = [[Fraction(rng.choice(nz(12)), 8) for _ in range(d)] for _ in range(m)]
        if non_parallel(U):
            break
    W = [[Fraction(rng.choice(nz(8)), 8) for _ in range(m)] for _ in range(d)]
    return U, W


def shrink(d: int, widths: list[int], max_params: int = MAX_PARAMS) -> list[int]:
    """Lower the largest width by one until N = 2 d sum m_l <= max_params (deterministic)."""
    w = list(widths)
    while an.param_count(d, w) > max_params and max(w) > 1:
        i = w.index(max(w))
        w[i] -= 1
    return w


@dataclass
class GenericInstance:
    """A drawn activation, dimension and width tuple, and the seed of the rational weights."""

    activation: str
    d: int
    widths: list[int]
    seed: int

    def size(self) -> dict[str, Any]:
        """d, the widest layer and the depth, for the report's instance-size figure."""
        return {"d": self.d, "m": max(self.widths), "depth": len(self.widths)}


@st.composite
def generic_instances(draw: st.DrawFn) -> GenericInstance:
    """activation, d in 2..MAX_D, L in {2, 3}, widths in 1..MAX_WIDTH (shrunk to N <= MAX_PARAMS)."""
    act = draw(st.sampled_from(an.ACTIVATIONS))
    d = draw(st.integers(2, MAX_D))
    widths = [draw(st.integers(1, MAX_WIDTH)) for _ in range(draw(st.integers(2, 3)))]
    seed = draw(st.integers(0, 10 ** 6))
    return GenericInstance(act, d, shrink(d, widths), seed)


# ================================================================ certificates

def stack_certificate(activation: str, d: int, widths: Sequence[int], seed: int,
                      attempts: int = 3) -> dict[str, Any]:
    """depth-analytic's rank certificate at random rational weights (non-parallel rows per layer)."""
    return an.make_certificate(activation, d, widths, seed, attempts, draw_layers=random_layers, tag="generic/")


def limit_certificate(activation: str, d: int, m: int, seed: int) -> dict[str, Any]:
    """A rank certificate for one block of width m with pairwise non-parallel rows (Step R2), at
    points of which no two are opposite: for one block, row(x) - row(-x) is linear in x, so d + 1
    opposite pairs make rows dependent and the float row choice may keep them (a spurious
    failure, not a counterexample; proofs/informal/depth-analytic-d1.md, Section 2.4)."""
    rng = random.Random(f"generic-limit/{activation}/{d}/{m}/{seed}")
    U, W = limit_block(d, m, rng)
    pts = an.random_points(d, an.point_count(d, [m]), rng, no_opposite=True)
    cert = an.certify(activation, [(U, W)], pts)
    cert["seed"] = [seed, 0]
    return cert


def recheck_limit(cert: dict[str, Any], m: int, d: int) -> bool:
    """A depth-1 certificate of width m in dimension d whose rows are pairwise non-parallel and
    whose output columns are nonzero, with a recomputed determinant ball that excludes 0."""
    act, layers, _, _ = an.certificate_parts(cert, min_depth=1)
    if len(layers) != 1 or act not in an.ACTIVATIONS:
        return False
    U, W = layers[0]
    if len(U) != m or len(W) != d or not non_parallel(U):
        return False
    if any(all(W[a][i] == 0 for a in range(d)) for i in range(m)):
        return False
    return an.rank_full(cert)


def generic_certificate(inst: GenericInstance) -> Certificate:
    """Certify rank N for the drawn stack, and (when cheap) for the one-block limit of the proof."""
    act, d, widths = inst.activation, inst.d, list(inst.widths)
    cert = stack_certificate(act, d, widths, inst.seed)
    m = sum(widths)
    limit: Optional[dict[str, Any]] = None
    if an.param_count(d, [m]) <= LIMIT_MAX_PARAMS:
        limit = limit_certificate(act, d, m, inst.seed)
    ok = bool(cert["certified"]) and d >= 2 and len(widths) >= 2 and \
        (limit is None or bool(limit["certified"])) and limit_present_where_required(d, widths, limit)
    beyond = d > 4 or max(widths) > 6
    if ok:
        reason = (f"{act}, d = {d}, widths {widths}{' (outside the depth-analytic sweep)' if beyond else ''}: "
                  f"an N x N minor (N = {cert['N']}) of the Jacobian has determinant {cert['det']} (arb, "
                  f"{cert['precision']} bits), rank N > D_plain = {cert['D_plain']}, as the proof predicts"
                  + (f"; the one-block limit of width {m} (non-parallel rows) has rank {limit['N']}, "
                     f"determinant {limit['det']}" if limit else
                     f"; one-block limit not checked (N = {an.param_count(d, [m])} > {LIMIT_MAX_PARAMS})"))
    else:
        which = "the stack" if not cert["certified"] else "the one-block limit"
        failed = cert if not cert["certified"] else (limit or {})
        reason = (f"no certificate for {which} ({act}, d = {d}, widths {widths}): the proof predicts "
                  "rank N there, so this needs a look (higher precision, or an error)"
                  + (f"; {failed['reason']}" if failed.get("reason") else ""))
    _, layers, _, _ = an.certificate_parts(cert)
    subs = [coverage.Subject(U, W, identity(len(W)), False) for U, W in layers]
    drawn = coverage.features(coverage.Subjects(subs))
    return Certificate(CLAIM, ok, True, "arb balls (python-flint), determinant enclosures exclude 0",
                       {"stack": cert, "limit": limit, "beyond_sweep": beyond, "drawn": drawn}, reason)


@safe_recheck
def recheck_generic(cert: dict[str, Any]) -> bool:
    """Re-verify a depth-analytic-generic oracle certificate from its data alone: d >= 2, depth >= 2,
    the stack's rank certificate, and the limit block's (when present) for width sum m_l."""
    if cert.get("claim") != CLAIM or not cert.get("holds"):
        return False
    data = cert["data"]
    st_cert = data["stack"]
    d, widths = st_cert["d"], st_cert["widths"]
    if not isinstance(d, int) or d < 2 or len(widths) < 2 or not an.recheck(st_cert):
        return False
    limit = data["limit"]
    if not limit_present_where_required(d, widths, limit):
        return False
    if limit is None:
        return an.param_count(d, [sum(widths)]) > LIMIT_MAX_PARAMS
    return limit.get("d") == d and recheck_limit(limit, sum(widths), d)


def limit_present_where_required(d: int, widths: Sequence[int], limit: Optional[dict[str, Any]]) -> bool:
    """The one-block limit is an object of the proof like the stack itself: where it is small
    (N = 2 d (m_1 + ... + m_L) <= LIMIT_REQUIRED_PARAMS) it must be there, of width sum m_l."""
    N = 2 * d * sum(widths)
    if N > LIMIT_REQUIRED_PARAMS:
        return True
    return limit is not None and limit.get("d") == d and limit.get("widths") == [sum(widths)]


def generic_corners() -> list[GenericInstance]:
    """Corner instances checked on every run before the drawn ones: the smallest stacks (widths 1),
    depth 3, widths below d, each activation, and a limit block near LIMIT_REQUIRED_PARAMS."""
    return [GenericInstance("gelu", 2, [1, 1], 1), GenericInstance("silu", 2, [1, 2, 1], 2),
            GenericInstance("gelu_tanh", 3, [1, 1, 2], 3), GenericInstance("gelu", 4, [3, 3], 4)]


@oracle_check(CLAIM, generic_instances(), recheck_generic,
              "arb balls at 128-512 bits (python-flint): determinant enclosures that exclude 0",
              examples=generic_corners)
def check(inst: Any) -> Certificate:
    """Certify full Jacobian rank N for a drawn gelu-family stack with d >= 2 (any widths up to 8),
    and for the one-block limit of the all-widths proof."""
    if not isinstance(inst, GenericInstance):  # pragma: no branch the strategy and the corners are GenericInstances
        raise TypeError("expected a GenericInstance")
    cert = generic_certificate(inst)
    accepted = (rank_forgeries_accepted(cert.as_dict(), "stack", recheck_generic)
                + [n for n, edit in LIMIT_FORGERIES if cert.data["limit"] is not None
                   and recheck_generic(_forged_limit(cert.as_dict(), edit))]) if cert.holds else []
    cert.data["forgeries_refused"] = not accepted
    return cert if not accepted else Certificate(
        CLAIM, False, True, cert.method, cert.data, "the re-check accepts forged certificates: " + ", ".join(accepted))


def _zero_output_column(c: dict[str, Any]) -> None:
    """The limit block's output column of unit 0 set to 0 (theta holds W_up row-major, then W_down)."""
    c = c["limit"]
    d, m = c["d"], c["widths"][0]
    for a in range(d):
        c["theta"][m * d + a * m] = 0


def _parallel_rows(c: dict[str, Any]) -> None:
    """The limit block's second W_up row made equal to its first."""
    c = c["limit"]
    d = c["d"]
    c["theta"][d:2 * d] = c["theta"][0:d]


# Edits of the one-block limit that recheck_generic must refuse: dropped, of another width, of
# another dimension, two layers, parallel rows, a zero output column.
LIMIT_FORGERIES: list[tuple[str, Any]] = [
    ("dropped limit", lambda c: c.update(limit=None)),
    ("limit of another width", lambda c: c["limit"].update(widths=[c["limit"]["widths"][0] + 1])),
    ("limit of another dimension", lambda c: c["limit"].update(d=c["limit"]["d"] + 1)),
    ("limit with two layers", lambda c: c["limit"].update(widths=[1, c["limit"]["widths"][0] - 1])),
    ("limit with parallel rows", _parallel_rows),
    ("limit with a zero output column", _zero_output_column),
]


def _forged_limit(cert: dict[str, Any], edit: Any) -> dict[str, Any]:
    bad = json.loads(json.dumps(cert))
    edit(bad["data"])
    return bad
