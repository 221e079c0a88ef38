"""Claim depth-analytic-d1: for gelu, gelu_tanh and silu in d = 1, depth L >= 2 and ANY widths,
almost every bias-free residual stack is no bias-free plain stack of the same widths (plain stacks
with biases are not covered); no certificate is assumed.

The proof (proofs/informal/depth-analytic-d1.md) is depth-analytic's measure argument with its rank
hypothesis replaced by Theorem D1: at weights (u_{l,i}, eps w_{l,i}) the column-rescaled Jacobian
tends to that of ONE block x -> x + sum_i w_i s(u_i x) of width m = m_1 + ... + m_L (Step 2.1), and
by Proposition D1' that block's 2 m derivative functions s(u_i x), x s'(u_i x) are linearly
independent iff the u_i are nonzero with pairwise distinct moduli.  The oracle cannot check a
statement about all widths; on each drawn instance (activation, widths 1..MAX_WIDTH in
MIN_DEPTH..MAX_DEPTH = 2..4 layers, summed width shrunk to MAX_SUM; depth 1 is not drawn, it is not an
instance of the claim, and deeper or wider stacks are not drawn for cost) it checks in arb balls, with depth-analytic's certificate
code (oracle/algebra/stacks/analytic.py), what the proof predicts:

  * the stack at drawn rational weights (rows of distinct moduli within each layer, repeats across
    layers allowed) has rank N = 2 m (an N x N minor whose determinant ball excludes 0);
  * the proof's own objects: the one-block limit of width m with pairwise distinct moduli over all
    layers (signs mixed, checked exactly) and nonzero outputs, and the stack at eps = 1/16 built
    from it, both of rank N;
  * the near misses Proposition D1' speaks of, on a block of width <= NEAR_WIDTH: an opposite pair
    (u_2 = -u_1) and an equal pair (u_2 = u_1) make the functions dependent (the exact relation
    s(ux) - s(-ux) - u x (s'(ux) + s'(-ux)) = 0, and two equal columns, are seen in balls, and no
    minor may certify: a certificate there would contradict the proposition), a zero row or a zero
    output makes a column vanish, and the same pairs moved apart by a factor 1 + 2^-k (distinct
    moduli again) must certify rank N.

The certificate records the instance (activation, widths, seed, delta), and the re-check draws the
weights, blocks and points again from it, so a certificate of another stack, activation or depth
is refused; it also compares the activation values the Jacobians use with the activation's own
definition at a few rational points (activation_matches), since the rank and near-miss facts
alone hold for other functions too (e.g. any full-rank s with a linear odd part).

Points have pairwise distinct |x| (proofs/informal/depth-analytic-d1.md, Section 2.4: opposite
points make rows of the evaluation matrix dependent, which the float row choice may keep).
Precision: the drawn stack's certificate is re-checked by depth-analytic's recheck, which accepts
128, 256 and 512 bits only; the proof's objects (the limit block and the eps stack) have smaller
determinants in d = 1 and may need more, so they are tried up to PROOF_PRECISIONS[-1] bits and
re-checked by analytic.rank_full, which recomputes at the stated precision (refused above
PROOF_PRECISIONS[-1]).  A ball that contains 0 proves nothing: a positive object that does not
certify fails the check (a finding to look at, not a disproof).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

from hypothesis import strategies as st

from oracle.algebra.exact import all_index_sets_exact, identity, safe_recheck
from oracle.algebra.stacks import analytic as an
from oracle.claims import coverage, depth_boundary
from oracle.claims import depth_analytic as da
from oracle.claims.base import Certificate, counterexample, oracle_check
from oracle.core.rational import arb, ctx, fmpq, smat, svec, to_arb

CLAIM = "depth-analytic-d1"
MAX_WIDTH = 16          # widths drawn 1..16 (depth-analytic's sweep stops at 6)
MIN_DEPTH = 2           # the statement's L >= 2; depth 1 is not drawn (Theorem D1's L = 1 is no instance)
MAX_DEPTH = 4
MAX_SUM = 24            # m = m_1 + ... + m_L, N = 2 m <= 48; wider draws are shrunk (cost)
NEAR_WIDTH = 4          # width of the near-miss blocks
DELTAS = (4, 8, 16)     # a near miss moves a pair apart by the factor 1 + 2^-k
EPS = Fraction(1, 16)   # the eps of Step 2.1 (not proved small enough; a failure is a finding)
PROOF_PRECISIONS = (128, 256, 512, 1024, 2048)

Q = Fraction
Layer = an.Layer


# ================================================================ exact tests and drawing

def distinct_moduli(U: Sequence[Sequence[Fraction]]) -> bool:
    """d = 1 rows: every u_i nonzero and the |u_i| pairwise distinct (exact)."""
    if any(len(r) != 1 for r in U):
        return False
    mods = [abs(Q(r[0])) for r in U]
    return all(mods) and len(set(mods)) == len(mods)


def distinct_abs_points(count: int, rng: random.Random) -> list[list[Fraction]]:
    """count nonzero points, multiples of 1/16 in [-8, 8], with pairwise distinct |x| (no two
    opposite: Section 2.4 of the note)."""
    if count > 128:
        raise ValueError("too many points for the grid")
    return [[Q(rng.choice((-1, 1)) * k, 16)] for k in rng.sample(range(1, 129), count)]


def random_layers(widths: Sequence[int], rng: random.Random) -> list[Layer]:
    """Rational weights in d = 1: in each layer the rows +-k/8 with distinct k in 1..16 (so
    distinct moduli within the layer, repeats across layers allowed), outputs nonzero eighths in
    [-1, 1]."""
    out = []
    for m in widths:
        U = [[Q(rng.choice((-1, 1)) * k, 8)] for k in rng.sample(range(1, 17), m)]
        W = [[Q(rng.choice([k for k in range(-8, 9) if k]), 8) for _ in range(m)]]
        out.append((U, W))
    return out


def lemma_block(m: int, rng: random.Random) -> Layer:
    """The hypothesis of Proposition D1': m rows +-k_i/8 with distinct k_i in 1..2m+4 (signs mixed),
    outputs nonzero eighths."""
    U = [[Q(rng.choice((-1, 1)) * k, 8)] for k in rng.sample(range(1, 2 * m + 5), m)]
    W = [[Q(rng.choice([k for k in range(-8, 9) if k]), 8) for _ in range(m)]]
    return U, W


def split(block: Layer, widths: Sequence[int], eps: Fraction) -> list[Layer]:
    """Step 2.1's stack: the block's units in consecutive layers of the given widths, outputs
    multiplied by eps."""
    U, W = block
    out, k = [], 0
    for m in widths:
        out.append(([list(r) for r in U[k:k + m]], [[eps * v for v in W[0][k:k + m]]]))
        k += m
    return out


def shrink(widths: Sequence[int], max_sum: int = MAX_SUM) -> list[int]:
    """Lower the largest width by one until the widths sum to at most max_sum (deterministic)."""
    w = list(widths)
    while sum(w) > max_sum and max(w) > 1:
        w[w.index(max(w))] -= 1
    return w


@dataclass
class D1Instance:
    """A drawn activation, width tuple (d = 1), seed and near-miss offset exponent."""

    activation: str
    widths: list[int]
    seed: int
    delta: int

    def size(self) -> dict[str, Any]:
        """d, the widest layer, the summed width and the depth, for the report's instance-size figure."""
        return {"d": 1, "m": max(self.widths), "sum": sum(self.widths), "depth": len(self.widths),
                "activation": self.activation}

    def record(self) -> dict[str, Any]:
        """The instance as the certificate stores it (the re-check redraws everything from it)."""
        return {"activation": self.activation, "widths": list(self.widths), "seed": self.seed,
                "delta": self.delta}


@st.composite
def d1_instances(draw: st.DrawFn) -> D1Instance:
    """activation, L in MIN_DEPTH..MAX_DEPTH, widths in 1..MAX_WIDTH (shrunk to sum <= MAX_SUM), a
    seed, and the near-miss offset 2^-k (k in DELTAS)."""
    act = draw(st.sampled_from(an.ACTIVATIONS))
    widths = [draw(st.integers(1, MAX_WIDTH)) for _ in range(draw(st.integers(MIN_DEPTH, MAX_DEPTH)))]
    return D1Instance(act, shrink(widths), draw(st.integers(0, 10 ** 6)), draw(st.sampled_from(DELTAS)))


# ================================================================ the activation's own definition

ACT_POINTS = (Q(-5, 2), Q(-1), Q(-1, 3), Q(1, 4), Q(3, 2), Q(7, 2))   # rationals where s is compared
GELU_TANH_A = fmpq(44715, 10 ** 6)


def reference_value(act: str, z: arb) -> arb:
    """s(z) in balls from its definition, written here apart from the catalog's slopes that the
    Jacobians use: gelu z/2 (1 + erf(z/sqrt 2)), gelu_tanh z/2 (1 + tanh(sqrt(2/pi) (z + a z^3)))
    with a = 44715/10^6, silu z/(1 + exp(-z))."""
    definition = _REFERENCE.get(act)
    if definition is None:
        raise ValueError(f"no reference definition for {act!r}")
    return definition(z)


def _gelu_reference(z: arb) -> arb:
    return z / 2 * (1 + (z / arb(2).sqrt()).erf())


def _gelu_tanh_reference(z: arb) -> arb:
    c = (arb(2) / arb.pi()).sqrt()
    return z / 2 * (1 + (c * (z + arb(GELU_TANH_A) * z ** 3)).tanh())


def _silu_reference(z: arb) -> arb:
    return z / (1 + (-z).exp())


# the definitions by name, written apart from the catalog on purpose (an independent check of the
# values the Jacobians use); the family itself is the catalog's (an.ACTIVATIONS)
_REFERENCE = {"gelu": _gelu_reference, "gelu_tanh": _gelu_tanh_reference, "silu": _silu_reference}


def activation_matches(act: str, prec: int = 128) -> bool:
    """The values s(z) the Jacobians are built from (an.value_and_slope) overlap the definition's
    balls at the rational points ACT_POINTS: another function (its even part, s + z/2, another
    member of the family) is told apart here, which the rank and near-miss facts cannot do."""
    old = ctx.prec
    ctx.prec = prec
    try:
        for q in ACT_POINTS:
            z = to_arb(q)
            ref = reference_value(act, z)
            val, _ = an.value_and_slope(act, z)
            if not (ref.rad() < 2.0 ** -60 and val.rad() < 2.0 ** -60 and val.overlaps(ref)):
                return False
        return True
    finally:
        ctx.prec = old


def d1_degenerate(layers: Sequence[Layer]) -> bool:
    """What the registry's 'degenerate' means in d = 1: some layer with a zero row, a zero output,
    or two rows of equal modulus (equal or opposite rows).  coverage's own test also counts
    collinear rows, which in d = 1 every layer of width >= 2 has."""
    for U, W in layers:
        mods = [abs(Q(r[0])) for r in U]
        if 0 in mods or len(set(mods)) != len(mods) or any(Q(v) == 0 for v in W[0]):
            return True
    return False


# ================================================================ the near misses of Proposition D1'

def _column(J: Any, j: int) -> list[arb]:
    return [J[i, j] for i in range(J.nrows())]


def dependency_balls(kind: str, act: str, block: Layer, pts: Sequence[Sequence[Fraction]],
                     prec: int = 256) -> list[arb]:
    """Balls that the proposition says are exactly 0, from the block's Jacobian in balls (columns:
    u_1..u_k, then w_1..w_k; column u_i is w_i x s'(u_i x), column w_i is s(u_i x)):
    opposite (u_2 = -u_1): col(w_1) - col(w_2) - (u_1/w_1) col(u_1) - (u_1/w_2) col(u_2);
    equal (u_2 = u_1): col(w_1) - col(w_2); zero_row (u_1 = 0): col(w_1);
    zero_output (w_1 = 0): col(u_1)."""
    U, W = block
    k = len(U)
    J = an.jacobian_ball(act, [block], pts, prec)
    old = ctx.prec
    ctx.prec = prec
    try:
        cu = [_column(J, i) for i in range(k)]
        cw = [_column(J, k + i) for i in range(k)]
        if kind == "opposite":
            u, w1, w2 = to_arb(U[0][0]), to_arb(W[0][0]), to_arb(W[0][1])
            return [a - b - (u / w1) * c - (u / w2) * e for a, b, c, e in zip(cw[0], cw[1], cu[0], cu[1])]
        if kind == "equal":
            return [a - b for a, b in zip(cw[0], cw[1])]
        if kind == "zero_row":
            return cw[0]
        if kind == "zero_output":
            return cu[0]
        raise ValueError(f"unknown near-miss kind {kind!r}")
    finally:
        ctx.prec = old


def degenerate_block(kind: str, base: Layer) -> Layer:
    """The base block with its first pair (or first unit) made to break Proposition D1'."""
    U, W = [list(r) for r in base[0]], [list(base[1][0])]
    if kind == "opposite":
        U[1] = [-U[0][0]]
    elif kind == "equal":
        U[1] = [U[0][0]]
    elif kind == "zero_row":
        U[0] = [Q(0)]
    elif kind == "zero_output":
        W[0][0] = Q(0)
    else:
        raise ValueError(f"unknown near-miss kind {kind!r}")
    return U, W


def moved_block(kind: str, base: Layer, k: int) -> Layer:
    """The opposite or equal pair moved apart: u_2 = -+u_1 (1 + 2^-j) for the least j >= k that
    keeps all moduli distinct (so Proposition D1' predicts full rank)."""
    U, W = [list(r) for r in base[0]], [list(base[1][0])]
    sign = -1 if kind == "opposite" else 1
    j = k
    while True:
        U[1] = [sign * U[0][0] * (1 + Q(1, 2 ** j))]
        if distinct_moduli(U):
            return U, W
        j += 1


DEPENDENT = ("opposite", "equal", "zero_row", "zero_output")
MOVED = ("opposite", "equal")


def near_miss_facts(act: str, base: Layer, k: int, pts: Sequence[Sequence[Fraction]]) -> dict[str, Any]:
    """Every near miss of the base block (width >= 2 for the pairs): for the dependent ones the
    balls that must contain 0 and whether any precision certified a minor (it must not); for the
    moved pairs their certificates (they must certify)."""
    out: dict[str, Any] = {"dependent": {}, "moved": {}}
    kinds = DEPENDENT if len(base[0]) >= 2 else ("zero_row", "zero_output")
    for kind in kinds:
        blk = degenerate_block(kind, base)
        balls = dependency_balls(kind, act, blk, pts)
        cert = an.certify(act, [blk], pts, PROOF_PRECISIONS[:3])
        out["dependent"][kind] = {"W_up": smat(blk[0]), "W_down": smat(blk[1]),
                                  "relation_contains_0": all(b.contains(0) for b in balls),
                                  "largest_radius": max(float(b.rad()) for b in balls),
                                  "certified": bool(cert["certified"])}
    if len(base[0]) >= 2:
        for kind in MOVED:
            out["moved"][kind] = an.certify(act, [moved_block(kind, base, k)], pts, PROOF_PRECISIONS)
    return out


def near_miss_ok(facts: dict[str, Any]) -> bool:
    """What the proposition predicts: every dependency seen in balls and never certified, every
    moved pair certified."""
    dep, mov = facts["dependent"], facts["moved"]
    return bool(dep) and all(f["relation_contains_0"] and not f["certified"] for f in dep.values()) and \
        all(c["certified"] for c in mov.values())


# ================================================================ the certificates

def _rng(tag: str, inst: D1Instance) -> random.Random:
    return random.Random(f"analytic-d1/{tag}/{inst.activation}/{list(inst.widths)}/{inst.seed}")


def d1_certificate(inst: D1Instance) -> Certificate:
    """Certify rank N for the drawn stack, the one-block limit and the eps stack, and the near
    misses' predicted behaviour."""
    act, widths = inst.activation, list(inst.widths)
    m = sum(widths)
    rng = _rng("stack", inst)
    layers = random_layers(widths, rng)
    stack = an.certify(act, layers, distinct_abs_points(2 * m + 2, rng))
    rng = _rng("limit", inst)
    block = lemma_block(m, rng)
    pts = distinct_abs_points(2 * m + 2, rng)
    limit = an.certify(act, [block], pts, PROOF_PRECISIONS)
    eps_stack = an.certify(act, split(block, widths, EPS), pts, PROOF_PRECISIONS)
    rng = _rng("near", inst)
    k = min(m, NEAR_WIDTH)
    base = lemma_block(k, rng)
    near_pts = distinct_abs_points(2 * k + 2, rng)
    near = near_miss_facts(act, base, inst.delta, near_pts)
    parts = {"activation": activation_matches(act),
             "stack": bool(stack["certified"]), "limit": bool(limit["certified"]),
             "eps stack": bool(eps_stack["certified"]), "near misses": near_miss_ok(near)}
    ok = all(parts.values())
    if ok:
        reason = (f"{act}, d = 1, widths {widths}: rank N = {stack['N']} at drawn weights (det {stack['det']}, "
                  f"{stack['precision']} bits), at the one-block limit of width {m} with distinct moduli "
                  f"({limit['precision']} bits) and at the eps = 1/16 stack ({eps_stack['precision']} bits); "
                  f"the near misses of width {k} behave as Proposition D1' says")
    else:
        bad = ", ".join(p for p, v in parts.items() if not v)
        reason = (f"{act}, d = 1, widths {widths}: not as the proof predicts for {bad} (a finding to look at: "
                  "precision, points, or an error; a ball containing 0 proves nothing)")
    subs = [coverage.Subject(U, W, identity(1), False) for U, W in layers]
    drawn = coverage.features(coverage.Subjects(subs))
    drawn["degenerate"] = d1_degenerate(layers)
    drawn.update(depth=len(inst.widths), width=list(inst.widths), activation=inst.activation)
    data = {"instance": inst.record(),
            "stack": stack, "limit": limit, "eps_stack": eps_stack, "eps": str(EPS), "delta": inst.delta,
            "near": {"W_up": smat(base[0]), "W_down": smat(base[1]), "points": [svec(x) for x in near_pts],
                     "facts": near},
            "drawn": drawn}
    return Certificate(CLAIM, ok, True, "arb balls (python-flint), determinant enclosures exclude 0", data, reason)


def _d1_rank(cert: dict[str, Any], widths: Sequence[int], act: str) -> bool:
    """A rank certificate of the given activation and widths in d = 1, re-checked by rank_full at
    a precision of at most PROOF_PRECISIONS[-1] bits."""
    prec = cert.get("precision")
    return cert.get("d") == 1 and cert.get("widths") == list(widths) and cert.get("activation") == act \
        and isinstance(prec, int) and prec in PROOF_PRECISIONS and an.rank_full(cert)


def instance_of(record: Any) -> D1Instance:
    """The stored instance, within the drawn ranges (ValueError otherwise)."""
    if not isinstance(record, dict) or set(record) != {"activation", "widths", "seed", "delta"}:
        raise ValueError("no instance record")
    act, widths, seed, delta = record["activation"], record["widths"], record["seed"], record["delta"]
    if act not in an.ACTIVATIONS or not isinstance(widths, list) or \
            not all(isinstance(w, int) and not isinstance(w, bool) and 1 <= w <= MAX_WIDTH for w in widths):
        raise ValueError("activation or widths outside the drawn range")
    if not MIN_DEPTH <= len(widths) <= MAX_DEPTH or sum(widths) > MAX_SUM:
        raise ValueError("depth or summed width outside the drawn range")
    if not isinstance(seed, int) or isinstance(seed, bool) or delta not in DELTAS:
        raise ValueError("bad seed or delta")
    return D1Instance(act, list(widths), seed, delta)


def redraw(inst: D1Instance) -> dict[str, Any]:
    """Everything d1_certificate draws from the instance (weights, blocks, points), drawn again."""
    m = sum(inst.widths)
    rng = _rng("stack", inst)
    layers = random_layers(inst.widths, rng)
    stack_pts = distinct_abs_points(2 * m + 2, rng)
    rng = _rng("limit", inst)
    block = lemma_block(m, rng)
    pts = distinct_abs_points(2 * m + 2, rng)
    rng = _rng("near", inst)
    k = min(m, NEAR_WIDTH)
    base = lemma_block(k, rng)
    return {"layers": layers, "stack_points": stack_pts, "block": block, "points": pts, "base": base,
            "near_points": distinct_abs_points(2 * k + 2, rng)}


@safe_recheck
def recheck_d1(cert: dict[str, Any]) -> bool:
    """Re-verify a depth-analytic-d1 certificate from its data alone: the recorded instance (within
    the drawn ranges, depth >= 2) from which the weights, blocks and points are drawn again and
    compared with the stored ones; the activation values against its definition; the drawn stack
    (depth-analytic's recheck), the limit block (distinct moduli, nonzero outputs, width sum m_l)
    and the eps stack (the limit's units split by the widths, outputs times eps) by rank_full with
    their stored determinants; and the near misses recomputed from the stored blocks and points,
    each of the instance's activation."""
    if cert.get("claim") != CLAIM or not cert.get("holds"):
        return False
    data = cert["data"]
    inst = instance_of(data["instance"])
    act, widths = inst.activation, inst.widths
    if not activation_matches(act):
        return False
    want = redraw(inst)
    stack, limit, eps_stack = data["stack"], data["limit"], data["eps_stack"]
    if stack.get("activation") != act or stack.get("d") != 1 or stack.get("widths") != widths:
        return False
    if not an.recheck(stack):
        return False
    _, slayers, spts, _ = an.certificate_parts(stack)
    if slayers != want["layers"] or spts != want["stack_points"]:
        return False
    m = sum(widths)
    if not _d1_rank(limit, [m], act) or not _d1_rank(eps_stack, widths, act):
        return False
    _, (block,), pts, _ = an.certificate_parts(limit, min_depth=1)
    if block != want["block"] or pts != want["points"]:
        return False
    if not distinct_moduli(block[0]) or any(v == 0 for v in block[1][0]):
        return False
    _, layers, pts2, _ = an.certificate_parts(eps_stack, min_depth=1)
    if Q(data["eps"]) != EPS or layers != split(block, widths, EPS) or pts2 != pts:
        return False
    near = data["near"]
    base = ([[Q(v) for v in r] for r in near["W_up"]], [[Q(v) for v in r] for r in near["W_down"]])
    if base != want["base"] or len(base[0]) != min(m, NEAR_WIDTH) or not distinct_moduli(base[0]) \
            or any(v == 0 for v in base[1][0]):
        return False
    npts = [[Q(v) for v in x] for x in near["points"]]
    if npts != want["near_points"]:
        return False
    if len({abs(x[0]) for x in npts}) != len(npts) or any(x[0] == 0 for x in npts):
        return False
    if data["delta"] != inst.delta:
        return False
    facts = near["facts"]
    kinds = DEPENDENT if len(base[0]) >= 2 else ("zero_row", "zero_output")
    if sorted(facts["dependent"]) != sorted(kinds):
        return False
    for kind in kinds:
        blk = degenerate_block(kind, base)
        f = facts["dependent"][kind]
        if [[Q(v) for v in r] for r in f["W_up"]] != blk[0] or [[Q(v) for v in r] for r in f["W_down"]] != blk[1]:
            return False
        if f["certified"] is not False or not all(b.contains(0) for b in dependency_balls(kind, act, blk, npts)):
            return False
    moved = facts["moved"]
    if sorted(moved) != (sorted(MOVED) if len(base[0]) >= 2 else []):
        return False
    for kind, mc in moved.items():
        _, (mblk,), mpts, _ = an.certificate_parts(mc, min_depth=1)
        if mpts != npts or mblk != moved_block(kind, base, data["delta"]) or not _d1_rank(mc, [len(base[0])], act):
            return False
    return True


def d1_corners() -> list[D1Instance]:
    """Corner instances checked on every run before the drawn ones: the smallest stack (1, 1), the
    widest layer with the largest summed width at depth 2, depth 3, depth 4 at the largest summed
    width, each activation."""
    return [D1Instance("gelu", [1, 1], 1, 16), D1Instance("silu", [MAX_WIDTH, MAX_SUM - MAX_WIDTH], 2, 8),
            D1Instance("gelu_tanh", [7, 1, 9], 3, 4), D1Instance("gelu", [MAX_SUM // 4] * 4, 4, 4)]


@oracle_check(CLAIM, d1_instances(), recheck_d1,
              "arb balls at 128-2048 bits (python-flint): determinant enclosures that exclude 0",
              examples=d1_corners)
def check(inst: Any) -> Certificate:
    """Certify full Jacobian rank in d = 1 for a drawn gelu-family stack (widths up to 12), for the
    proof's one-block limit and eps stack, and the near misses of Proposition D1'."""
    if not isinstance(inst, D1Instance):  # pragma: no branch the strategy and the corners are D1Instances
        raise TypeError("expected a D1Instance")
    cert = d1_certificate(inst)
    if cert.data.get("instance") != inst.record():   # the certificate speaks of the drawn instance
        return Certificate(CLAIM, False, True, cert.method, cert.data,
                           f"the certificate records the instance {cert.data.get('instance')!r}, "
                           f"not the drawn {inst.record()!r}")
    d = cert.as_dict()
    accepted = [n for n, edit in CHEAP_FORGERIES if cert.holds and recheck_d1(_forged(d, edit))]
    return cert if not accepted else Certificate(
        CLAIM, False, True, cert.method, cert.data, "the re-check accepts forged certificates: " + ", ".join(accepted))


def _instance(c: dict[str, Any]) -> dict[str, Any]:
    return c["data"]["instance"]


# Edits that recheck_d1 refuses before re-computing any rank (so they cost little on every
# instance): another claim, no instance record, an activation outside the family, depth 1, a delta
# not drawn, a stored stack of another dimension.
CHEAP_FORGERIES: list[tuple[str, Any]] = [
    ("claim", lambda c: c.update(claim="forged")),
    ("no instance record", lambda c: c["data"].update(instance=None)),
    ("activation", lambda c: _instance(c).update(activation="relu")),
    ("depth 1", lambda c: _instance(c).update(widths=_instance(c)["widths"][:1])),
    ("delta", lambda c: _instance(c).update(delta=3)),
    ("stack of another dimension", lambda c: c["data"]["stack"].update(d=2)),
]


def _forged(cert: dict[str, Any], edit: Any) -> dict[str, Any]:
    bad = json.loads(json.dumps(cert))
    edit(bad)
    return bad


# ================================================================ boundary instances

def index_set_stack_d1() -> list[Layer]:
    """d = 1, widths (2, 2), moduli 1, 3/4, 1/2, 5/4: in each layer one unit has w u = -1."""
    return [([[Q(1)], [Q(3, 4)]], [[Q(-1), Q(3, 8)]]), ([[Q(1, 2)], [Q(-5, 4)]], [[Q(-2), Q(1, 4)]])]


def _flip_and_compare(layers: list[Layer], kind: str, tag: str) -> tuple[list[Layer], list, list, dict[str, Any]]:
    sets = [all_index_sets_exact(U, W, identity(1)) for U, W in layers]
    plain = da.flipped(layers, [S[0] for S in sets]) if all(sets) else []
    pts = distinct_abs_points(12, random.Random(f"analytic-d1-boundary/{kind}"))
    widths = [len(U) for U, _ in layers]
    rank = an.certify("gelu", layers, distinct_abs_points(2 * sum(widths) + 2, random.Random(tag)))
    return plain, sets, pts, rank


@counterexample(claims=(CLAIM,), dropped="generic_weight",
                description="gelu, d = 1, widths (2, 2): in each layer one unit has w u = -1, and flipping it "
                            "(s(-z) = s(z) - z) gives a bias-free plain stack equal to the residual one; its "
                            "Jacobian still has full rank N = 8 (certified), so the exceptional null set is "
                            "not empty and a certificate decides no given stack")
def analytic_d1_index_sets() -> Certificate:
    """Drop 'almost every': a d = 1 residual gelu stack that IS a plain stack of the same widths."""
    layers = index_set_stack_d1()
    plain, sets, pts, rank = _flip_and_compare(layers, "index-sets", "d1-index-sets")
    agree = bool(plain) and all(an.balls_overlap(an.eval_stack_ball("gelu", layers, x, True),
                                                 an.eval_stack_ball("gelu", plain, x, False)) for x in pts)
    return da.index_sets_certificate(CLAIM, layers, plain, sets, pts, rank, agree)


@counterexample(claims=(CLAIM,), dropped="sigma_analytic",
                description="relu, d = 1, widths (2, 2): the residual stack equals a plain relu stack of widths "
                            "(2, 2) (identity proved on every ray), and depth-d1 proves this for every d = 1 "
                            "relu stack of widths >= 2, so the set is all of weight space, not null; the "
                            "Jacobian rank stays <= 2 < N")
def analytic_d1_relu() -> Certificate:
    """Drop analyticity: relu in d = 1 (depth-boundary's dimension_d1 instance, rechecked by
    depth_boundary.recheck_depth_counterexample)."""
    cx = depth_boundary.dimension_d1()
    return Certificate(CLAIM, cx.holds, cx.exact, cx.method, cx.data, cx.reason)
