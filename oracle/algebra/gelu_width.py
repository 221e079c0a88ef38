"""The exact minimal width of a gelu / gelu_tanh / silu block equal to x -> M x + B(x) (claim
gelu-complete, proofs/informal/gelu-complete.md).

Write s(z) = z/2 + e(z) with e even.  Units are grouped by their exact row and bias up to one
common sign, +-(u_H, b_H) (first nonzero entry of u_H positive); with gamma_H = sum_{i in H} w_i,

    M x + B(x) = (M + L) x + k + sum_H gamma_H e(u_H . x + b_H),   L = W_down W_up / 2,
    k = b_down + sum_{u_i != 0} c_i w_i / 2 + sum_{u_i = 0} s(c_i) w_i.

The e-terms of distinct classes are independent modulo affine maps (Lemma E of the informal
proof), and the minimal width is relu-complete's formula with these classes and with the
coefficient gamma_H / 2 in place of relu's alpha_H:

    m* = |script-H| + min_{s, T} (|T| + 2 rank(N_s P_T)),   N_s = M + L - sum_H s_H (gamma_H / 2) u_H^T.

So this module builds a ``ReluForm`` whose classes carry alpha = gamma / 2 and reuses the
enumeration and the construction of oracle/algebra/relu_width.py unchanged: one unit
s_H (u_H, b_H) with output 2 alpha = gamma_H per class outside T, two units with outputs
alpha +- beta per class in T, pairs +-(l, 0) for the rank factorisation, b_down for the constant.

Constants s(c) of units with u_i = 0 and c_i != 0 are not rational: the form keeps them symbolically
(``GeluForm.sym``: |c| -> coefficient vector of s(|c|), using s(-c) = s(c) - c), and so does the
constructed block's b_down.  Everything else is exact (Fractions / python-flint).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional, Sequence

import numpy as np

from oracle.algebra.canonical import ReluClass, ReluForm
from oracle.algebra.relu_width import Construction, WidthResult, build_construction, minimal_width
from oracle.core import activations
from oracle.core.blocks import Block
from oracle.core.rational import fmpq_mat, qmat, qvec, to_fmpq_mat, to_fractions

CLAIM = "gelu-complete"
FAMILY = activations.LEMMA_T  # the scope of Lemma E: gelu, gelu_tanh, silu


@dataclass
class GeluForm(ReluForm):
    """The canonical form of a gelu-family block; classes carry alpha = gamma / 2 (see module doc).

    ``const`` is the rational part of the constant k, ``sym`` its part sum_c v_c s(c) (c > 0)."""

    sym: dict[Fraction, list[Fraction]] = field(default_factory=dict)

    def gamma(self, c: ReluClass) -> list[Fraction]:
        """The coefficient of e(u_H . x + b_H): 2 alpha."""
        return [2 * v for v in c.alpha]

    def key(self) -> tuple:
        """Exact data that decides equality of functions (Lemma E): active classes with their
        e-coefficients, M + L, and the constant (rational and symbolic parts)."""
        cls = sorted((tuple(c.u) + (c.b,), tuple(self.gamma(c))) for c in self.active)
        lin = tuple(tuple(r) for r in to_fractions(self.linear()))
        sym = tuple(sorted((k, tuple(v)) for k, v in self.sym.items() if any(x != 0 for x in v)))
        return (tuple(cls), lin, tuple(self.const), sym)

    def bias_free_representable(self) -> Optional[bool]:
        """(b) of the theorem: F(0) = 0 and every active class has b_H = 0 (F(0) = k then).
        None when the active classes are unbiased but k has s(c) terms of zero rows: whether
        rational + sum_c v_c s(c) vanishes is then a question about the numbers s(c), which this
        exact form does not settle (``f0_terms`` gives them for a ball evaluation)."""
        if any(c.b != 0 for c in self.active):
            return False
        if self.sym:
            return None
        return all(v == 0 for v in self.const)

    def f0_terms(self) -> tuple[list[Fraction], dict[Fraction, list[Fraction]]]:
        """F(0) when the active classes are unbiased: const + sum_c sym[c] s(c)."""
        return list(self.const), {k: list(v) for k, v in self.sym.items()}

    def as_json(self) -> dict[str, Any]:
        """Exact strings; 'gamma' is the e-coefficient of each class."""
        out = super().as_json()
        for cj, c in zip(out["classes"], self.classes):
            cj["gamma"] = [str(v) for v in self.gamma(c)]
            cj["eps"] = cj.pop("lambda")
            cj.pop("alpha")
        out["const_s_terms"] = {str(k): [str(x) for x in v] for k, v in sorted(self.sym.items())}
        return out


def gelu_form_exact(W_up: Sequence[Sequence[Fraction]], W_down: Sequence[Sequence[Fraction]],
                    M: Optional[Sequence[Sequence[Fraction]]] = None,
                    b_up: Optional[Sequence[Fraction]] = None,
                    b_down: Optional[Sequence[Fraction]] = None,
                    b_down_sym: Optional[dict[Fraction, list[Fraction]]] = None, d: Optional[int] = None) -> GeluForm:
    """Canonical form from exact rational weights; M None means no skip (a plain block).
    ``b_down_sym`` adds sum_c v_c s(c) to b_down (for constructed blocks)."""
    m = len(W_up)
    d = len(W_down) if d is None else d
    U = [[Fraction(v) for v in r] for r in W_up]
    W = [[Fraction(v) for v in r] for r in W_down] if m else [[] for _ in range(d)]
    c = [Fraction(v) for v in b_up] if b_up is not None else [Fraction(0)] * m
    bd = [Fraction(v) for v in b_down] if b_down is not None else [Fraction(0)] * d
    keyed: dict[tuple[Fraction, ...], list[int]] = {}
    eps: dict[int, int] = {}
    zero_units = []
    for i in range(m):
        f = next((k for k, v in enumerate(U[i]) if v != 0), None)
        if f is None:
            zero_units.append(i)
            continue
        eps[i] = 1 if U[i][f] > 0 else -1
        keyed.setdefault(tuple(eps[i] * v for v in U[i] + [c[i]]), []).append(i)
    classes = []
    for key, units in keyed.items():
        alpha = [sum((W[a][i] for i in units), Fraction(0)) / 2 for a in range(d)]
        beta = [sum((eps[i] * W[a][i] for i in units), Fraction(0)) / 2 for a in range(d)]
        classes.append(ReluClass(list(key[:d]), key[d], units, [Fraction(eps[i]) for i in units], alpha, beta))
    Lq = to_fmpq_mat(W, m) * to_fmpq_mat(U, d) / 2 if m else fmpq_mat(d, d)
    Mq = to_fmpq_mat(M, d) if M is not None else fmpq_mat(d, d)
    const = list(bd)
    sym: dict[Fraction, list[Fraction]] = {}
    for k, v in (b_down_sym or {}).items():
        acc = sym.setdefault(Fraction(k), [Fraction(0)] * d)
        for a in range(d):
            acc[a] += Fraction(v[a])
    for i in range(m):
        if i in eps:
            for a in range(d):
                const[a] += c[i] * W[a][i] / 2
        elif c[i] != 0:  # w s(c) with s(-|c|) = s(|c|) - |c|
            acc = sym.setdefault(abs(c[i]), [Fraction(0)] * d)
            for a in range(d):
                acc[a] += W[a][i]
                if c[i] < 0:
                    const[a] -= W[a][i] * abs(c[i])
    sym = {k: v for k, v in sym.items() if any(x != 0 for x in v)}
    biased = any(v != 0 for v in c) or any(v != 0 for v in bd) or bool(b_down_sym)
    return GeluForm(d, m, classes, zero_units, Mq, Lq, const, biased, sym)


def gelu_form(block: Block) -> GeluForm:
    """The exact form of a gelu / gelu_tanh / silu ``Block`` (with its skip when residual)."""
    if block.activation not in FAMILY or block.gated:
        raise ValueError(f"gelu_form needs one of {', '.join(FAMILY)}, got {block.activation}")
    S = block.skip()
    return gelu_form_exact(qmat(np.atleast_2d(block.W_up)), qmat(np.atleast_2d(block.W_down)),
                           None if S is None else qmat(np.atleast_2d(S)),
                           None if block.b_up is None else qvec(block.b_up),
                           None if block.b_down is None else qvec(block.b_down), d=block.d)


@dataclass
class GeluConstruction:
    """The width-m* block of the construction; b_down = b_down (rational) + sum_c sym[c] s(c)."""

    con: Construction
    sym: dict[Fraction, list[Fraction]]

    @property
    def width(self) -> int:
        """Number of units."""
        return self.con.width

    def as_json(self) -> dict[str, Any]:
        """Exact strings."""
        return {**self.con.as_json(), "b_down_s_terms": {str(k): [str(x) for x in v]
                                                         for k, v in sorted(self.sym.items())}}

    def form(self, d: int) -> GeluForm:
        """The canonical form of the constructed plain block."""
        c = self.con
        return gelu_form_exact(c.W_up, c.W_down if c.W_up else [[] for _ in range(d)], None, c.b_up,
                               c.b_down, self.sym, d=d)


def width(form: GeluForm) -> WidthResult:
    """m* (exact when the number of active classes is within relu_width's enumeration limit)."""
    return minimal_width(form)


def construct(form: GeluForm, s: Sequence[int], T: Sequence[int]) -> GeluConstruction:
    """The block of the proof's construction for (s, T): relu_width's construction with alpha =
    gamma / 2 (see the module docstring), its b_down carrying the symbolic constants of the form."""
    con = build_construction(form, s, T)
    return GeluConstruction(con, {k: list(v) for k, v in form.sym.items()})


def forms_equal(a: GeluForm, b: GeluForm) -> bool:
    """Equality of the two functions, by Lemma E: same active classes and coefficients, same affine part."""
    return a.d == b.d and a.key() == b.key()


def minimal_width_result(block: Block) -> dict[str, Any]:
    """m* of a residual gelu-family block with the construction, verified exactly; for check."""
    form = gelu_form(block)
    wr = width(form)
    out: dict[str, Any] = {"claim": CLAIM, "active_classes": len(form.active), "exact": wr.exact,
                           "lower": wr.lower, "upper": wr.upper, "value": wr.lower if wr.exact else None,
                           "s": wr.s, "T": wr.T, "cost": wr.cost, "method": wr.method,
                           "bias_free_representable": form.bias_free_representable()}
    con = construct(form, wr.s, wr.T)
    if con.width != wr.upper or not forms_equal(con.form(block.d), form):
        raise RuntimeError("gelu-complete construction differs from the block")  # pragma: no cover
    out["construction"] = con.as_json()
    return out
