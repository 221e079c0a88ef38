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

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Optional, Sequence

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
    for j in range(max_j + 1):
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


def _hypotheses(F: Block, P: Block, jac: bool) -> dict[str, Any]:
    gF, gP = _gate_facts(F.activation), _gate_facts(P.activation)
    M = skip_matrix(F) if F.kind == "residual" else None
    h = {
        "residual_is_residual": F.kind == "residual", "candidate_is_plain": P.kind == "plain",
        "bias_free": not F.has_bias and not P.has_bias,
        "gated": gF["gated"] and gP["gated"],
        "gate_zero_at_0": gF["gate_zero_at_0"] and gP["gate_zero_at_0"],
        "M_nonzero": M is not None and not is_zero_matrix(M),
    }
    if jac:
        h["gate_differentiable_at_0"] = gF["gate_differentiable_at_0"] and \
            gP["gate_differentiable_at_0"]
        h["same_gate_and_width"] = F.activation == P.activation and F.m == P.m
    else:
        h["gate_continuous_at_0"] = gF["gate_continuous_at_0"] and gP["gate_continuous_at_0"]
    return h


def choose_direction(M: list[list[Fraction]], given: Optional[list[Fraction]]
                     ) -> Optional[list[Fraction]]:
    """The given direction if M v != 0, else the basis vector of M's largest nonzero column."""
    if given is not None and any(matvec_q(M, given)):
        return given
    d = len(M)
    cols = [max(abs(M[i][j]) for i in range(d)) for j in range(d)]
    best = max(range(d), key=lambda j: cols[j])
    if cols[best] == 0:
        return None
    return [Fraction(int(i == best)) for i in range(d)]


@arith.precision("ball", BALL_PREC)  # every ball of the certificate at BALL_PREC bits
def _certify(data: dict[str, Any], jac: bool) -> Certificate:
    claim = CLAIM_JAC if jac else CLAIM_CONT
    F, P = block_from_json(data["residual"]), block_from_json(data["plain"])
    hyp = _hypotheses(F, P, jac)
    out: dict[str, Any] = {"residual": data["residual"], "plain": data["plain"],
                           "hypotheses": hyp, "direction": data.get("direction")}
    method = f"exact rationals + arb balls at {BALL_PREC} bits"
    failed = [k for k, v in hyp.items() if v is False]
    if failed:
        return Certificate(claim, False, True, method, out, "hypothesis fails: " + ", ".join(failed))
    M = skip_matrix(F)
    ok = True
    if jac:
        JB, JP = jacobian_at_0(F.without_skip()), jacobian_at_0(P)
        JF = [[m + b for m, b in zip(r1, r2)] for r1, r2 in zip(M, JB)]
        out["jacobian"] = {"g0_residual": q_str(F.act.value_at_0),
                           "g0_candidate": q_str(P.act.value_at_0),
                           "J_B": smat(JB), "J_candidate": smat(JP), "J_F": smat(JF),
                           "J_B_is_zero": is_zero_matrix(JB), "J_candidate_is_zero": is_zero_matrix(JP),
                           "J_F_equals_M": JF == M, "jacobians_differ": JF != JP}
        ok = is_zero_matrix(JB) and is_zero_matrix(JP) and JF == M and JF != JP
    out["ray"], found = ray_certificate(F, P, M, data.get("direction"), backend_for([F, P]))
    ok = ok and found
    return Certificate(claim, ok, ok, method, out, DIFFER if ok else NO_WITNESS)


def _recheck(cert: dict[str, Any], jac: bool) -> bool:
    F, P = stored_pair(cert, CLAIM_JAC if jac else CLAIM_CONT, block_from_json,
                       lambda F, P: _hypotheses(F, P, jac))
    data = cert["data"]
    M = skip_matrix(F)
    if jac:
        JB, JP = jacobian_at_0(F.without_skip()), jacobian_at_0(P)
        j = data["jacobian"]
        if not (is_zero_matrix(JB) and is_zero_matrix(JP) and j["J_F"] == smat(M)
                and M != JP and j["J_B"] == smat(JB) and j["J_candidate"] == smat(JP)):
            return False
    return recheck_ray(F, P, M, data["ray"], backend_for([F, P]) == "exact")


recheck_jacobian = recheck_variant(_recheck, True, "recheck_jacobian",
                                   "Re-verify a gated-impossible certificate from its JSON alone.")
recheck_continuity = recheck_variant(_recheck, False, "recheck_continuity",
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


# ================================================================ registered checks

@oracle_check(CLAIM_JAC, jacobian_instances(), recheck_jacobian,
              f"exact Jacobians + arb balls at {BALL_PREC} bits")
def check_jacobian(instance: Any) -> Certificate:
    """Certify F != B' for a smooth gate (g(0) = 0): Jacobians M and 0 at the origin, plus a witness."""
    return _certify(pair_data(instance, block_to_json), True)


@oracle_check(CLAIM_CONT, continuity_instances(), recheck_continuity,
              f"arb balls at {BALL_PREC} bits")
def check_continuity(instance: Any) -> Certificate:
    """Certify F != B' for any-width candidates with a gate vanishing and continuous at 0."""
    return _certify(pair_data(instance, block_to_json), False)
