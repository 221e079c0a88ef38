"""MLP blocks (ungated and gated, optional biases, optional skip matrix) and stacks of them.

A block computes, for x in R^d,

    ungated:  B(x) = W_down s(W_up x + b_up) + b_down
    gated:    B(x) = W_down (g(W_gate x + b_gate) * (W_up x + b_up)) + b_down

and a residual block adds M x (M = identity when the file gives none). The same
weights evaluate in every backend of ``oracle.core.arith``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Optional, Sequence

import numpy as np

from oracle.core import activations, arith, linalg
from oracle.core.errors import InputError
from oracle.core.rational import dyadic_ints, to_fractions

BLOCK_KINDS = ("residual", "plain")


def _as_matrix(name: str, a: Any, shape: tuple[int, ...]) -> np.ndarray:
    """Validate one weight array: numeric, finite, of the expected shape; returns float64."""
    arr = np.asarray(a)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number)
                                   or arr.dtype == np.bool_):
        raise InputError(f"{name} must be a numeric array, got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise InputError(f"{name} must be real, got complex dtype {arr.dtype}")
    if arr.shape != shape:
        want = "x".join(map(str, shape))
        got = "x".join(map(str, arr.shape)) or "scalar"
        raise InputError(f"{name} has shape {got}, expected {want}")
    with np.errstate(all="ignore"):  # overflow of wide floats is reported below, not warned
        out = arr.astype(np.float64)
    if np.issubdtype(arr.dtype, np.integer) and not np.array_equal(out.astype(arr.dtype), arr):
        raise InputError(f"{name} has integers too large to be represented exactly as float64")
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 8:
        # long double / float128: accepted only when every value is a float64 number,
        # so the verdict is about the stored values and never about a rounding of them
        fin = np.isfinite(arr)
        with np.errstate(all="ignore"):
            lost = fin & (out.astype(arr.dtype) != arr)
        if lost.any():
            idx = tuple(int(i) for i in np.argwhere(lost)[0])
            raise InputError(f"{name} has dtype {arr.dtype} and its entry at {idx} is not a float64 "
                             "number; values wider than float64 are refused, never rounded")
        out[~fin] = arr[~fin].astype(np.float64)
    bad = ~np.isfinite(out)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InputError(f"{name} contains {float(out[idx])} at index {idx}; weights must be finite")
    return out


@dataclass
class Block:
    """One MLP block; ``kind`` is 'residual' (x -> Mx + B(x)) or 'plain' (x -> B(x))."""

    activation: str
    W_up: np.ndarray
    W_down: np.ndarray
    W_gate: Optional[np.ndarray] = None
    b_up: Optional[np.ndarray] = None
    b_gate: Optional[np.ndarray] = None
    b_down: Optional[np.ndarray] = None
    M: Optional[np.ndarray] = None
    kind: str = "residual"
    _checked: bool = field(default=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.validate()

    # -- shape and validity -------------------------------------------------
    def validate(self) -> None:
        """Check activation, shapes and finiteness; raise InputError with a one-line reason."""
        act = activations.get(self.activation)
        if self.kind not in BLOCK_KINDS:
            raise InputError(f"kind must be one of {BLOCK_KINDS}, got {self.kind!r}")
        up = np.asarray(self.W_up)
        if up.ndim != 2 or 0 in up.shape:
            raise InputError(f"W_up must be a non-empty m x d matrix, got shape {up.shape}")
        m, d = up.shape
        self.W_up = _as_matrix("W_up", up, (m, d))
        self.W_down = _as_matrix("W_down", self.W_down, (d, m))
        if act.gated:
            if self.W_gate is None:
                raise InputError(f"activation {self.activation!r} is a gate: W_gate (m x d) is required")
            self.W_gate = _as_matrix("W_gate", self.W_gate, (m, d))
        elif self.W_gate is not None:
            raise InputError(f"activation {self.activation!r} is not a gate, but W_gate was given")
        for name, n in (("b_up", m), ("b_gate", m), ("b_down", d)):
            v = getattr(self, name)
            if v is not None:
                setattr(self, name, _as_matrix(name, v, (n,)))
        if self.b_gate is not None and not act.gated:
            raise InputError("b_gate given for an ungated activation")
        if self.M is not None:
            if self.kind == "plain":
                raise InputError("a plain block has no skip matrix M")
            self.M = _as_matrix("M", self.M, (d, d))

    @property
    def act(self) -> activations.Activation:
        """The catalog entry of this block's activation or gate."""
        return activations.get(self.activation)

    @property
    def d(self) -> int:
        """Input/output dimension."""
        return self.W_up.shape[1]

    @property
    def m(self) -> int:
        """Hidden width."""
        return self.W_up.shape[0]

    @property
    def gated(self) -> bool:
        """True when the block multiplies a gate with the up projection."""
        return self.act.gated

    @property
    def has_bias(self) -> bool:
        """True when any bias is present and nonzero (zero biases are the bias-free case)."""
        return any(b is not None and np.any(b != 0) for b in (self.b_up, self.b_gate, self.b_down))

    def skip(self) -> Optional[np.ndarray]:
        """The skip matrix: M, the identity when a residual block gives none, None for plain."""
        if self.kind == "plain":
            return None
        return np.eye(self.d) if self.M is None else self.M

    def without_skip(self) -> "Block":
        """The residual-free part B of this block."""
        return replace(self, M=None, kind="plain")

    # -- evaluation -------------------------------------------------------------
    def eval_f64(self, X: np.ndarray) -> np.ndarray:
        """Evaluate on a batch X (n x d, or one vector) in float64."""
        X = np.asarray(X, dtype=np.float64)
        one = X.ndim == 1
        X = np.atleast_2d(X)
        pre = X @ self.W_up.T
        if self.b_up is not None:
            pre = pre + self.b_up
        if self.gated:
            gp = X @ self.W_gate.T
            if self.b_gate is not None:
                gp = gp + self.b_gate
            hidden = self.act.f64(gp) * pre
        else:
            hidden = self.act.f64(pre)
        out = hidden @ self.W_down.T
        if self.b_down is not None:
            out = out + self.b_down
        S = self.skip()
        if S is not None:
            out = out + X @ S.T
        return out[0] if one else out

    def evaluate(self, x: Sequence[Any], backend: str = "float64",
                 prec: int = arith.DEFAULT_PREC) -> Any:
        """Evaluate at one point in a backend: 'float64', 'mp', 'ball' (rigorous) or 'exact'."""
        if len(x) != self.d:
            raise InputError(f"point has {len(x)} coordinates, block expects d = {self.d}")
        if backend == "float64":
            return self.eval_f64(np.asarray(x, dtype=np.float64))
        act = self.act
        if backend == "exact" and act.exact is None:
            raise InputError(f"{self.activation} has no exact rational form; use 'ball' or 'mp'")
        fn = {"exact": act.exact, "mp": act.mp, "ball": act.ball}[backend]
        with arith.precision(backend, prec):
            xv = arith.convert_vector(x, backend)
            cv = lambda a: arith.convert_matrix(a, backend)  # noqa: E731
            vec = lambda a: arith.convert_vector(list(a), backend)  # noqa: E731
            pre = arith.matvec(cv(self.W_up), xv, backend)
            if self.b_up is not None:
                pre = [p + b for p, b in zip(pre, vec(self.b_up))]
            if self.gated:
                gp = arith.matvec(cv(self.W_gate), xv, backend)
                if self.b_gate is not None:
                    gp = [p + b for p, b in zip(gp, vec(self.b_gate))]
                hidden = [fn(g) * p for g, p in zip(gp, pre)]
            else:
                hidden = [fn(p) for p in pre]
            out = arith.matvec(cv(self.W_down), hidden, backend)
            if self.b_down is not None:
                out = [o + b for o, b in zip(out, vec(self.b_down))]
            S = self.skip()
            if S is not None:
                out = [o + s for o, s in zip(out, arith.matvec(cv(S), xv, backend))]
            return out

    def to_dict(self) -> dict[str, Any]:
        """The arrays and metadata of the block-file format (described in oracle/core/io.py)."""
        out: dict[str, Any] = {"W_up": self.W_up, "W_down": self.W_down}
        for name in ("W_gate", "b_up", "b_gate", "b_down", "M"):
            v = getattr(self, name)
            if v is not None:
                out[name] = v
        out["activation"] = self.activation
        out["kind"] = self.kind
        return out


@dataclass
class Stack:
    """A composition of blocks, applied first to last: x -> B_L(...B_1(x))."""

    blocks: list[Block]

    def __post_init__(self) -> None:
        if not self.blocks:
            raise InputError("a stack needs at least one block")
        for i, (a, b) in enumerate(zip(self.blocks, self.blocks[1:])):
            if a.d != b.d:
                raise InputError(f"block {i} has d = {a.d} but block {i + 1} has d = {b.d}")

    def eval_f64(self, X: np.ndarray) -> np.ndarray:
        """Evaluate the composition in float64."""
        for b in self.blocks:
            X = b.eval_f64(X)
        return X

    def evaluate(self, x: Sequence[Any], backend: str = "float64",
                 prec: int = arith.DEFAULT_PREC) -> Any:
        """Evaluate the composition at one point in a backend."""
        for b in self.blocks:
            x = b.evaluate(x, backend, prec)
        return x


# ------------------------------------------------------------------ exact structure

def _canonical_direction(row: list[int]) -> Optional[tuple[int, ...]]:
    """The primitive integer vector with positive leading entry spanning the line of row."""
    g = 0
    for v in row:
        g = math.gcd(g, v)
    if g == 0:
        return None
    lead = next(v for v in row if v != 0)
    sign = 1 if lead > 0 else -1
    return tuple(sign * v // g for v in row)


@dataclass
class Nondegeneracy:
    """Exact nondegeneracy report: which rows or columns break the hypothesis."""

    zero_rows: list[int]
    collinear_pairs: list[tuple[int, int]]
    zero_columns: list[int]

    @property
    def ok(self) -> bool:
        """True when the block is nondegenerate."""
        return not (self.zero_rows or self.collinear_pairs or self.zero_columns)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (lists truncated to 20 entries)."""
        return {"nondegenerate": self.ok, "zero_rows": self.zero_rows[:20],
                "collinear_pairs": [list(p) for p in self.collinear_pairs[:20]],
                "zero_columns": self.zero_columns[:20]}


def nondegeneracy(W_up: np.ndarray, W_down: np.ndarray) -> Nondegeneracy:
    """Check exactly: rows of W_up nonzero and pairwise non-collinear, columns of W_down nonzero."""
    up = np.asarray(W_up, dtype=np.float64)
    nz = up != 0
    zero_rows = [int(i) for i in np.flatnonzero(~nz.any(axis=1))]
    live = np.flatnonzero(nz.any(axis=1))
    # Divide each row by its first nonzero entry. If u = c v exactly, both rows have the same
    # zero pattern and every quotient is the same real number, and IEEE division rounds it
    # correctly, so the normalised rows are bitwise equal (after folding -0.0 into 0.0).
    # Equal keys are only candidates (rounding can merge distinct directions); each candidate
    # group is then settled exactly on integer rows.
    first = np.argmax(nz[live], axis=1)
    with np.errstate(all="ignore"):
        normed = up[live] / up[live, first][:, None] + 0.0
    groups: dict[bytes, list[int]] = {}
    for i, row in zip(live, normed):
        groups.setdefault(row.tobytes(), []).append(int(i))
    collinear = []
    for members in groups.values():
        if len(members) < 2:
            continue
        N, _ = dyadic_ints(up[members])
        ints = [[int(N[r, c]) for c in range(N.ncols())] for r in range(N.nrows())]
        seen: dict[tuple[int, ...], int] = {}
        for i, row in zip(members, ints):
            key = _canonical_direction(row)
            if key in seen:
                collinear.append((seen[key], i))
            else:
                seen[key] = i
    collinear.sort()
    zero_cols = [int(j) for j in np.flatnonzero(~np.any(np.asarray(W_down) != 0, axis=0))]
    return Nondegeneracy(zero_rows, collinear, zero_cols)


def rref(a: Sequence[Sequence[Fraction]], ncols: Optional[int] = None
         ) -> tuple[list[list[Fraction]], list[int]]:
    """Exact reduced row echelon form: its nonzero rows and their pivot columns (python-flint)."""
    R, pivots = linalg.rref(a, ncols)
    return to_fractions(R), pivots


def exact_rank(a: Sequence[Sequence[Fraction]]) -> int:
    """Rank of a rational matrix, exactly (python-flint)."""
    return linalg.rank(a) if len(a) else 0


def exact_inverse(a: Sequence[Sequence[Fraction]]) -> Optional[list[list[Fraction]]]:
    """Inverse of a square rational matrix, or None when it is singular (python-flint)."""
    inv = linalg.inverse(a)
    return None if inv is None else to_fractions(inv)
