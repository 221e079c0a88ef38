"""Claims gated-impossible (Prop. 6) and gated-continuity.

A bias-free gated block B(x) = W_down (g(W_gate x) * (W_up x)) with g(0) = 0 is flat at the
origin: B(0) = 0 and |B(x)|/|x| -> 0 (each unit is g(a.x) (u.x) and g(a.x) -> 0). Hence
F(x) = M x + B(x) has F(t v)/t -> M v while every such plain block B' has B'(t v)/t -> 0, so
F != B' as soon as M v != 0.

check_jacobian (gated-impossible, same gate and width): the Jacobian of a gated block at 0 is
W_down diag(g(0)) W_up (the term with g'(0) is multiplied by W_up 0 = 0), which is the zero
matrix exactly because g(0) = 0 (catalog value, re-derived by sympy); F's Jacobian is M.

check_continuity (gated-continuity, any width, any candidate gate vanishing at 0 and continuous
there): no derivative is used. Both checks also give a rigorous pointwise witness: along
x = t v, t = 2^-j, the first j at which the arb enclosure of F(x) - B'(x) excludes 0, and a t at
which the enclosure of the difference quotient (F(t v) - B'(t v))/t lies within a stated
rational distance of M v (less than half of max |(M v)_i|).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Optional, Sequence

import numpy as np
from hypothesis import strategies as st

from oracle.core import activations, arith
from oracle.core.blocks import Block
from oracle.core.rational import q_parse, q_str, qmat, qvec, smat, svec, to_arb
from oracle.core.strategies import optional_vector, residual_and_candidate
from oracle.claims.base import Certificate, oracle_check
from oracle.algebra.exact import (
    has_nonzero_skip, ball_abs_upper, ball_str, block_from_json, block_to_json, is_zero_matrix, matmul,
    matvec_q, property_is_proved, recheck_variant, skip_matrix
)

CLAIM_JAC = "gated-impossible"
CLAIM_CONT = "gated-continuity"
BALL_PREC = 256
MAX_J = 200
QUOTIENT_FLOOR = Fraction(1, 2 ** 64)  # a ball error bound is never stated below this times the target
DIFFER = "F and B' differ at a rigorously enclosed point; (F - B')(tv)/t is enclosed near Mv"
NO_WITNESS = "no rigorous witness found"



@dataclass
class GatedInstance:
    """A residual gated block F, a candidate plain gated block B', optionally a direction v."""

    residual: Block
    plain: Block
    direction: Optional[list[Fraction]] = None


# ================================================================ ray witness (shared with depth)

Evaluator = Callable[[list[Fraction]], list[Any]]


def _diff_at(f: Evaluator, p: Evaluator, x: list[Fraction], backend: str) -> list[Any]:
    if backend == "exact":
        return [Fraction(a) - Fraction(b) for a, b in zip(f(x), p(x))]
    return [a - b for a, b in zip(f(x), p(x))]


def _nonzero(v: Any, backend: str) -> bool:
    return v != 0 if backend == "exact" else not v.contains(0)


def _quotient_error(D: list[Any], t: Fraction, Pv: list[Fraction], backend: str
                    ) -> tuple[Fraction, list[str]]:
    """An exact rational upper bound of max_i |D_i/t - (Pv)_i|, and the quotient for display.

    In balls the bound is never taken below 2^-64 of the target max |Pv| / 2 (QUOTIENT_FLOOR):
    where F(tv) = tv exactly and a coordinate of Pv is 0, the error is that coordinate of the
    plain stack alone, which can be as small as e^-1000000 (a gate at a large negative argument),
    and its exact endpoint would have too many digits to store."""
    if backend == "exact":
        qt = [d / t for d in D]
        return max(abs(a - b) for a, b in zip(qt, Pv)), svec(qt)
    qt = [d / to_arb(t) for d in D]
    floor = max(abs(b) for b in Pv) / 2 * QUOTIENT_FLOOR
    return max(ball_abs_upper(a - to_arb(b), floor) for a, b in zip(qt, Pv)), [ball_str(a) for a in qt]


def _show(D: list[Any], backend: str) -> list[str]:
    return svec(D) if backend == "exact" else [ball_str(v) for v in D]


def ray_witness(f: Evaluator, p: Evaluator, v: list[Fraction], Pv: list[Fraction],
                backend: str, max_j: int = MAX_J) -> dict[str, Any]:
    """Search t = 2^-j: the first t with f(tv) != p(tv) rigorously, and a t where the quotient is near Pv."""
    target = max(abs(a) for a in Pv) / 2
    out: dict[str, Any] = {"v": svec(v), "Pv": svec(Pv), "backend": backend,
                           "witness": None, "quotient": None}
    for j in range(max_j + 1):  # pragma: no branch the quotient error is O(t) (flat B, small dyadic weights) and M v != 0: the loop breaks long before j = 200
        t = Fraction(1, 2**j)
        x = [t * a for a in v]
        D = _diff_at(f, p, x, backend)
        if out["witness"] is None and any(_nonzero(a, backend) for a in D):
            out["witness"] = {"j": j, "x": svec(x), "difference": _show(D, backend)}
        err, qt = _quotient_error(D, t, Pv, backend)
        if err < target:
            out["quotient"] = {"j": j, "quotient": qt, "error_bound": q_str(err),
                               "half_max_Pv": q_str(target)}
            break
    return out


def evaluator(obj: Any, backend: str) -> Evaluator:
    """x -> obj(x) for a block or a stack: in exact rationals, or in arb balls at BALL_PREC."""
    if backend == "exact":
        return lambda x: obj.evaluate(x, "exact")
    return lambda x: obj.evaluate(x, "ball", BALL_PREC)


def backend_for(blocks: Sequence[Block]) -> str:
    """'exact' when every block has an exact form (piecewise polynomial), else 'ball'."""
    return "exact" if all(b.act.exact is not None for b in blocks) else "ball"


def ray_certificate(F: Any, P: Any, M: list[list[Fraction]], direction: Optional[list[str]],
                    backend: str) -> tuple[dict[str, Any], bool]:
    """The ray record of F (residual) against P (plain), blocks or stacks, along the stored
    direction when M v != 0 there (else a basis vector: choose_direction), and whether it holds
    both a point where they differ and a quotient near M v."""
    given = qvec(direction) if direction is not None else None
    v = choose_direction(M, given)
    ray = ray_witness(evaluator(F, backend), evaluator(P, backend), v, matvec_q(M, v), backend)
    return ray, ray["witness"] is not None and ray["quotient"] is not None


def recheck_ray(F: Any, P: Any, M: list[list[Fraction]], ray: dict[str, Any], exact_ok: bool) -> bool:
    """Re-verify a stored ray record: Pv = M v, a backend the blocks allow ('ball', or 'exact'
    when exact_ok), and the stored points (verify_ray_witness)."""
    if qvec(ray["Pv"]) != matvec_q(M, qvec(ray["v"])):
        return False
    backend = ray["backend"]
    if not (backend == "ball" or (backend == "exact" and exact_ok)):
        return False
    with arith.precision("ball", BALL_PREC):
        return verify_ray_witness(evaluator(F, backend), evaluator(P, backend), ray)


def pair_data(instance: Any, to_json: Callable[[Any], Any]) -> dict[str, Any]:
    """The JSON form of an instance (residual, plain, direction): a residual and a plain block
    (or stack) and the direction it may carry; a tuple of two or three is read the same way."""
    if isinstance(instance, tuple):
        residual, plain, direction = (*instance, None)[:3]
    else:
        residual, plain, direction = instance.residual, instance.plain, instance.direction
    return {"residual": to_json(residual), "plain": to_json(plain),
            "direction": svec(direction) if direction is not None else None}


def stored_pair(cert: dict[str, Any], claim: str, from_json: Callable[[Any], Any],
                hypotheses: Callable[[Any, Any], dict[str, Any]]) -> tuple[Any, Any]:
    """The residual and the plain object of a stored certificate of ``claim`` that says it holds,
    when the hypotheses recomputed from them are the stored ones and none fails; ValueError
    otherwise (the re-checks, under safe_recheck, then answer False)."""
    if cert.get("claim") != claim or not cert.get("holds"):
        raise ValueError(f"not a holding certificate of {claim}")
    data = cert["data"]
    F, P = from_json(data["residual"]), from_json(data["plain"])
    hyp = hypotheses(F, P)
    if hyp != data["hypotheses"] or any(v is False for v in hyp.values()):
        raise ValueError("the recomputed hypotheses are not the stored ones, or one fails")
    return F, P


def verify_ray_witness(f: Evaluator, p: Evaluator, w: dict[str, Any]) -> bool:
    """Re-verify a ray_witness record directly at its stored points (not by repeating the search)."""
    backend = w["backend"]
    v, Pv = qvec(w["v"]), qvec(w["Pv"])
    if not any(Pv) or w["witness"] is None or w["quotient"] is None:
        return False
    wit = w["witness"]
    t = Fraction(1, 2 ** int(wit["j"]))
    x = qvec(wit["x"])
    if x != [t * a for a in v]:
        return False
    D = _diff_at(f, p, x, backend)
    # The stored values must be what the weights give (a tampered weight changes them).
    if not any(_nonzero(a, backend) for a in D) or _show(D, backend) != wit["difference"]:
        return False
    qu = w["quotient"]
    t = Fraction(1, 2 ** int(qu["j"]))
    D = _diff_at(f, p, [t * a for a in v], backend)
    err, shown = _quotient_error(D, t, Pv, backend)
    bound, half = q_parse(qu["error_bound"]), q_parse(qu["half_max_Pv"])
    return half == max(abs(a) for a in Pv) / 2 and err <= bound < half and shown == qu["quotient"]


def _bump(values: list[str], i: int = 0) -> None:
    values[i] = q_str(q_parse(values[i]) + 1)


def _edit_hypotheses(c: dict[str, Any]) -> None:
    c["data"]["hypotheses"]["forged"] = True


def _edit_backend(c: dict[str, Any]) -> None:
    r = c["data"]["ray"]
    r["backend"] = "exact" if r["backend"] == "ball" else "forged"


def _edit_difference(c: dict[str, Any]) -> None:
    w = c["data"]["ray"]["witness"]
    w["difference"] = w["difference"][1:] + w["difference"][:1] if len(set(w["difference"])) > 1 \
        else [x + "0" for x in w["difference"]]


# Edits of a holding certificate that a re-check must refuse: each breaks one stored fact
# (the claim, the recomputed hypotheses, P v = M v, the backend, the witness point and its
# value, the quotient's error bound).  The quotient's step is not among them: where B' is F's own B,
# (F - B')(tv)/t = M v at every t, so another step holds the same quotient.
RAY_FORGERIES: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
    ("claim", lambda c: c.update(claim="forged")),
    ("hypotheses", _edit_hypotheses),
    ("Pv", lambda c: _bump(c["data"]["ray"]["Pv"])),
    ("backend", _edit_backend),
    ("dropped witness", lambda c: c["data"]["ray"].update(witness=None)),
    ("witness point", lambda c: _bump(c["data"]["ray"]["witness"]["x"])),
    ("witness difference", _edit_difference),
    ("error bound", lambda c: c["data"]["ray"]["quotient"].update(
        error_bound=c["data"]["ray"]["quotient"]["half_max_Pv"])),
]


def forged_accepted(cert: dict[str, Any], recheck: Callable[[dict[str, Any]], bool],
                    extra: Sequence[tuple[str, Callable[[dict[str, Any]], None]]] = (),
                    base: Sequence[tuple[str, Callable[[dict[str, Any]], None]]] = RAY_FORGERIES) -> list[str]:
    """The names of the forgeries of a holding certificate (``base``, by default RAY_FORGERIES,
    and ``extra``) that ``recheck`` accepts; empty when it refuses every one."""
    def forged(edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        bad = json.loads(json.dumps(cert))
        edit(bad)
        return bad
    return [name for name, edit in [*base, *extra] if recheck(forged(edit))]


def refuse_forgeries(cert: Certificate, recheck: Callable[[dict[str, Any]], bool],
                     extra: Sequence[tuple[str, Callable[[dict[str, Any]], None]]] = (),
                     base: Sequence[tuple[str, Callable[[dict[str, Any]], None]]] = RAY_FORGERIES) -> Certificate:
    """``cert`` itself when it does not hold or when ``recheck`` refuses every forgery of it (the
    record ``forgeries_refused`` says which); otherwise a failing certificate naming the forgeries
    the re-check let through."""
    accepted = forged_accepted(cert.as_dict(), recheck, extra, base) if cert.holds else []
    cert.data["forgeries_refused"] = not accepted
    return cert if not accepted else Certificate(
        cert.claim, False, True, cert.method, cert.data, "the re-check accepts forged certificates: " + ", ".join(accepted))


def failing_hypothesis_result(cert: Certificate, claim: str, expect: str, indep: bool) -> Certificate:
    """The outcome on a corner built to fail exactly the hypothesis ``expect``: it holds when the
    claim's check did not apply, found ``expect`` and nothing else failing, and the separately written
    test ``indep`` confirms that hypothesis fails."""
    failed = [k for k, v in cert.data["hypotheses"].items() if v is False]
    holds = not cert.holds and failed == [expect] and indep
    data = {**cert.data, "kind": "failing_hypothesis", "expect": expect, "failed": failed,
            "independently_fails": indep}
    return Certificate(claim, holds, True, cert.method, data,
                       f"the claim does not apply: {expect} fails (re-decided apart)" if holds else
                       f"failing-hypothesis corner {expect}: the check found {failed}, "
                       f"the independent test {indep}")


# ================================================================ hypotheses and Jacobians

def _gate_facts(name: str) -> dict[str, bool]:
    a = activations.get(name)
    return {
        "gated": a.gated,
        "gate_zero_at_0": a.gated and a.value_at_0 == 0 and property_is_proved(name, "value_at_0"),
        "gate_continuous_at_0": a.continuous_at_0 and property_is_proved(name, "continuous_at_0"),
        "gate_differentiable_at_0": a.differentiable_at_0
        and property_is_proved(name, "differentiable_at_0"),
    }


def jacobian_at_0(b: Block) -> list[list[Fraction]]:
    """Exact Jacobian at 0 of a bias-free gated block: W_down diag(g(0)) W_up.

    The product rule also gives W_down diag(g'(0) (W_up 0)) W_gate, which is 0 because the
    value factor W_up x vanishes at x = 0 (g'(0) only has to exist).
    """
    g0 = b.act.value_at_0
    W, U = qmat(b.W_down), qmat(b.W_up)
    return matmul([[w * g0 for w in row] for row in W], U)


def _hypotheses_common(F: Block, P: Block) -> dict[str, Any]:
    gF, gP = _gate_facts(F.activation), _gate_facts(P.activation)
    M = skip_matrix(F) if F.kind == "residual" else None
    return {
        "residual_is_residual": F.kind == "residual", "candidate_is_plain": P.kind == "plain",
        "bias_free": not F.has_bias and not P.has_bias,
        "gated": gF["gated"] and gP["gated"],
        "gate_zero_at_0": gF["gate_zero_at_0"] and gP["gate_zero_at_0"],
        "M_nonzero": M is not None and not is_zero_matrix(M),
    }


def hypotheses_jacobian(F: Block, P: Block) -> dict[str, Any]:
    """gated-impossible's hypotheses: the common ones, a gate differentiable at 0, same gate and width."""
    h = _hypotheses_common(F, P)
    h["gate_differentiable_at_0"] = _gate_facts(F.activation)["gate_differentiable_at_0"] and \
        _gate_facts(P.activation)["gate_differentiable_at_0"]
    h["same_gate_and_width"] = F.activation == P.activation and F.m == P.m
    return h


def hypotheses_continuity(F: Block, P: Block) -> dict[str, Any]:
    """gated-continuity's hypotheses: the common ones and gates continuous at 0."""
    h = _hypotheses_common(F, P)
    h["gate_continuous_at_0"] = _gate_facts(F.activation)["gate_continuous_at_0"] and \
        _gate_facts(P.activation)["gate_continuous_at_0"]
    return h


def choose_direction(M: list[list[Fraction]], given: Optional[list[Fraction]]
                     ) -> Optional[list[Fraction]]:
    """The given direction if M v != 0, else the basis vector of M's largest nonzero column."""
    if given is not None and any(matvec_q(M, given)):
        return given
    d = len(M)
    cols = [max(abs(M[i][j]) for i in range(d)) for j in range(d)]
    best = max(range(d), key=lambda j: cols[j])
    if cols[best] == 0:  # pragma: no branch every caller decides M != 0 first (M_nonzero, skip_product_nonzero) and returns before the ray when it fails
        return None
    return [Fraction(int(i == best)) for i in range(d)]


def _jacobian_record(F: Block, P: Block, M: list[list[Fraction]], out: dict[str, Any]) -> bool:
    """gated-impossible's Jacobians at 0 into out["jacobian"]; whether J_B = J_B' = 0, J_F = M != J_B'."""
    JB, JP = jacobian_at_0(F.without_skip()), jacobian_at_0(P)
    JF = [[m + b for m, b in zip(r1, r2)] for r1, r2 in zip(M, JB)]
    out["jacobian"] = {"g0_residual": q_str(F.act.value_at_0),
                       "g0_candidate": q_str(P.act.value_at_0),
                       "J_B": smat(JB), "J_candidate": smat(JP), "J_F": smat(JF),
                       "J_B_is_zero": is_zero_matrix(JB), "J_candidate_is_zero": is_zero_matrix(JP),
                       "J_F_equals_M": JF == M, "jacobians_differ": JF != JP}
    return is_zero_matrix(JB) and is_zero_matrix(JP) and JF == M and JF != JP


def _no_record(F: Block, P: Block, M: list[list[Fraction]], out: dict[str, Any]) -> bool:
    return True  # gated-continuity uses no derivative: the ray record alone certifies


def _jacobian_recheck(F: Block, P: Block, M: list[list[Fraction]], data: dict[str, Any]) -> bool:
    JB, JP = jacobian_at_0(F.without_skip()), jacobian_at_0(P)
    j = data["jacobian"]
    return (is_zero_matrix(JB) and is_zero_matrix(JP) and j["J_F"] == smat(M)
            and M != JP and j["J_B"] == smat(JB) and j["J_candidate"] == smat(JP))


def _no_recheck(F: Block, P: Block, M: list[list[Fraction]], data: dict[str, Any]) -> bool:
    return True


# claim -> (its hypotheses, its record beyond the ray, the re-check of that record)
VARIANTS: dict[str, tuple[Callable[..., dict[str, Any]], Callable[..., bool], Callable[..., bool]]] = {
    CLAIM_JAC: (hypotheses_jacobian, _jacobian_record, _jacobian_recheck),
    CLAIM_CONT: (hypotheses_continuity, _no_record, _no_recheck),
}


@arith.precision("ball", BALL_PREC)  # every ball of the certificate at BALL_PREC bits
def _certify(data: dict[str, Any], claim: str) -> Certificate:
    hypotheses, record, _ = VARIANTS[claim]
    F, P = block_from_json(data["residual"]), block_from_json(data["plain"])
    hyp = hypotheses(F, P)
    out: dict[str, Any] = {"residual": data["residual"], "plain": data["plain"],
                           "hypotheses": hyp, "direction": data.get("direction")}
    method = f"exact rationals + arb balls at {BALL_PREC} bits"
    failed = [k for k, v in hyp.items() if v is False]
    if failed:
        return Certificate(claim, False, True, method, out, "hypothesis fails: " + ", ".join(failed))
    M = skip_matrix(F)
    ok = record(F, P, M, out)
    out["ray"], found = ray_certificate(F, P, M, data.get("direction"), backend_for([F, P]))
    ok = ok and found
    return Certificate(claim, ok, ok, method, out, DIFFER if ok else NO_WITNESS)


def _recheck(cert: dict[str, Any], claim: str) -> bool:
    hypotheses, _, rerecord = VARIANTS[claim]
    F, P = stored_pair(cert, claim, block_from_json, hypotheses)
    data = cert["data"]
    M = skip_matrix(F)
    return rerecord(F, P, M, data) and recheck_ray(F, P, M, data["ray"], backend_for([F, P]) == "exact")


recheck_jacobian = recheck_variant(_recheck, CLAIM_JAC, "recheck_jacobian",
                                   "Re-verify a gated-impossible certificate from its JSON alone.")
recheck_continuity = recheck_variant(_recheck, CLAIM_CONT, "recheck_continuity",
                                     "Re-verify a gated-continuity certificate from its JSON alone.")


# ================================================================ strategies

def directions(d: int) -> st.SearchStrategy:
    """None (the check chooses) or a direction of small rationals n/k, |n| <= 4, k <= 2."""
    return optional_vector(d, 4, 2)


@st.composite
def jacobian_instances(draw: st.DrawFn) -> GatedInstance:
    """A residual smooth-gated block with nonzero M and a plain block of the same gate and width."""
    F, P = draw(residual_and_candidate(activations.SMOOTH_ZERO_GATES, has_nonzero_skip))
    return GatedInstance(F, P, draw(directions(F.d)))


@st.composite
def continuity_instances(draw: st.DrawFn) -> GatedInstance:
    """A residual smooth-gated block with nonzero M and a plain block of any zero-at-0 gate and width."""
    F, P = draw(residual_and_candidate(activations.SMOOTH_ZERO_GATES, has_nonzero_skip,
                                       candidate_kinds=activations.ZERO_GATES, max_candidate_m=6))
    return GatedInstance(F, P, draw(directions(F.d)))


# ================================================================ corner instances
# Always checked before the drawn ones (examples=...): blocks with exact forms (the exact backend:
# bilinear for gated-impossible, reglu for gated-continuity; both are in the claims' statements), an
# instance given as a tuple, and one instance per hypothesis that fails it alone.  On the latter
# the check must say that the claim does not apply, and code written apart from the hypothesis
# tests (INDEPENDENT_FAILS) must confirm that this hypothesis fails, so that a hypothesis test
# that says "holds" too often shows here instead of hiding behind true conclusions.

@dataclass
class FailingHypothesisInstance(GatedInstance):
    """A pair on which exactly the hypothesis ``expect`` fails."""

    expect: str = ""


def gate_at_0(name: str) -> Any:
    """g(0) in an arb ball, from the block map x -> g(x_1) x_2 at x = (0, 1) (no catalog value)."""
    one = Block(name, kind="plain", W_up=np.array([[0.0, 1.0]]), W_down=np.array([[1.0], [0.0]]),
                W_gate=np.array([[1.0, 0.0]]))
    return one.evaluate([Fraction(0), Fraction(1)], "ball", BALL_PREC)[0]


INDEPENDENT_FAILS: dict[str, Callable[[Block, Block], bool]] = {
    "M_nonzero": lambda F, P: F.M is None or not np.any(np.asarray(F.M) != 0),
    "gate_zero_at_0": lambda F, P: any(not gate_at_0(b.activation).contains(0) for b in (F, P)),
    "same_gate_and_width": lambda F, P: F.activation != P.activation or F.W_down.shape[1] != P.W_down.shape[1],
}


def corner_block(act: str, rows: list[list[list[float]]], M: Optional[list[list[float]]]) -> Block:
    up, gate, down = (np.array(r, dtype=np.float64) for r in rows)
    if M is None:
        return Block(act, kind="plain", W_up=up, W_gate=gate, W_down=down)
    return Block(act, W_up=up, W_gate=gate, W_down=down, M=np.array(M, dtype=np.float64))


# (W_up, W_gate, W_down) of width 2 and 1 in d = 2
_W2 = [[[1, -1], [0.5, 2]], [[2, 1], [-1, 0.5]], [[1, 0], [-0.5, 1]]]
_W2b = [[[-1, 0.5], [1, 1]], [[0.5, -2], [1, 1]], [[2, 1], [0, -1]]]
_W1 = [[[1, 2]], [[-1, 1]], [[1], [-0.5]]]
_I2, _R1, _Z2 = [[1, 0], [0, 1]], [[1, 2], [0.5, 1]], [[0, 0], [0, 0]]


def jacobian_corners() -> list[Any]:
    """gated-impossible's corners: bilinear (exact backend), a tuple whose direction M maps to 0 (the
    check then takes a basis vector), and M = 0 / g(0) != 0 /
    another width, each failing alone."""
    return [GatedInstance(corner_block("bilinear", _W2, _I2), corner_block("bilinear", _W2b, None), None),
            (corner_block("swiglu", _W2, _R1), corner_block("swiglu", _W2b, None), [Fraction(2), Fraction(-1)]),
            FailingHypothesisInstance(corner_block("swiglu", _W2, _Z2), corner_block("swiglu", _W2b, None), None, "M_nonzero"),
            FailingHypothesisInstance(corner_block("glu", _W2, _I2), corner_block("glu", _W2b, None), None, "gate_zero_at_0"),
            FailingHypothesisInstance(corner_block("geglu", _W2, _I2), corner_block("geglu", _W1, None), None,
                                      "same_gate_and_width")]


def continuity_corners() -> list[Any]:
    """gated-continuity's corners: reglu (exact backend), a tuple with a direction, and M = 0 /
    g(0) != 0, each failing alone."""
    return [GatedInstance(corner_block("reglu", _W2, _R1), corner_block("reglu", _W1, None), [Fraction(0), Fraction(1)]),
            (corner_block("geglu", _W2, _I2), corner_block("swiglu", _W1, None), [Fraction(1), Fraction(-1)]),
            FailingHypothesisInstance(corner_block("geglu", _W2, _Z2), corner_block("reglu", _W2b, None), None, "M_nonzero"),
            FailingHypothesisInstance(corner_block("glu", _W2, _R1), corner_block("glu", _W1, None), None, "gate_zero_at_0")]


def _checked(instance: Any, claim: str, recheck: Callable[[dict[str, Any]], bool]) -> Certificate:
    """The claim's certificate of a drawn or corner instance; a holding one also has every
    forgery of RAY_FORGERIES (and of its Jacobians) refused by ``recheck``; on a failing-hypothesis
    corner: that the claim does not apply, the one failing hypothesis confirmed independently."""
    cert = _certify(pair_data(instance, block_to_json), claim)
    if isinstance(instance, FailingHypothesisInstance):
        indep = INDEPENDENT_FAILS[instance.expect](instance.residual, instance.plain)
        return failing_hypothesis_result(cert, claim, instance.expect, indep)
    extra = [("J_F", lambda c: _bump(c["data"]["jacobian"]["J_F"][0]))] if claim == CLAIM_JAC else []
    return refuse_forgeries(cert, recheck, extra)


def _recheck_any(cert: dict[str, Any], claim: str) -> bool:
    data = cert.get("data") or {}
    if data.get("kind") != "failing_hypothesis":
        return _recheck(cert, claim)
    F, P = block_from_json(data["residual"]), block_from_json(data["plain"])
    hyp = VARIANTS[claim][0](F, P)
    failed = [k for k, v in hyp.items() if v is False]
    return (cert.get("claim") == claim and cert.get("holds") is True and hyp == data["hypotheses"]
            and failed == [data["expect"]] == data["failed"] and INDEPENDENT_FAILS[data["expect"]](F, P))


recheck_jacobian_any = recheck_variant(_recheck_any, CLAIM_JAC, "recheck_jacobian_any",
                                       "recheck_jacobian, or for a failing-hypothesis corner: recomputed.")
recheck_continuity_any = recheck_variant(_recheck_any, CLAIM_CONT, "recheck_continuity_any",
                                         "recheck_continuity, or for a failing-hypothesis corner: recomputed.")


# ================================================================ registered checks

@oracle_check(CLAIM_JAC, jacobian_instances(), recheck_jacobian_any,
              f"exact Jacobians + arb balls at {BALL_PREC} bits", examples=jacobian_corners)
def check_jacobian(instance: Any) -> Certificate:
    """Certify F != B' for a smooth gate (g(0) = 0): Jacobians M and 0 at the origin, plus a witness
    (on a failing-hypothesis corner: that the claim does not apply)."""
    return _checked(instance, CLAIM_JAC, recheck_jacobian)


@oracle_check(CLAIM_CONT, continuity_instances(), recheck_continuity_any,
              f"arb balls at {BALL_PREC} bits", examples=continuity_corners)
def check_continuity(instance: Any) -> Certificate:
    """Certify F != B' for any-width candidates with a gate vanishing and continuous at 0 (on a
    failing-hypothesis corner: that the claim does not apply)."""
    return _checked(instance, CLAIM_CONT, recheck_continuity)
