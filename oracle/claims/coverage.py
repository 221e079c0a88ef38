"""What a claim's generated instances actually reach, against what the registry declares.

Each claim's registry entry declares, in its ``samples`` table, the ranges its oracle draws:

    samples = { d = "1..3", m = "below,at,above", M = "identity,invertible,singular",
                degenerate = true, biased = true, planted = true, near_miss = true }

* ``d``: an inclusive range of input dimensions ("1..3", or "2" for one value);
* ``m``: which hidden widths relative to d occur: ``below`` (m < d), ``at`` (m = d), ``above``;
* ``M``: which skip matrices occur: ``identity``, ``invertible`` (invertible, not I),
  ``singular`` (zero included);
* ``degenerate``: some block with a zero row, a zero column or two collinear rows;
* ``biased``: some block with a nonzero bias;
* ``planted``: some instance on which the claim's condition (an index set, m* <= m, ...) holds;
* ``near_miss``: some instance with one entry moved by 2^-30 off an instance where it holds.

Three optional axes, for claims whose checks record them in ``cert.data["drawn"]`` (stacks):

* ``depth``: an inclusive range of stack depths, each of which must be drawn ("2..4");
* ``width``: an inclusive range of layer widths; both ends must be drawn and none outside it;
* ``activation``: the activations drawn, each of which must occur ("gelu,gelu_tanh,silu").

``true`` means at least one drawn instance has the feature, ``false`` that none has it. The
oracle run measures every instance (``features``), and ``judge`` fails a claim when a declared
value is never drawn, when a value outside the declaration is drawn, or when the statement's
hypotheses reach a value the declaration excludes without a reason in ``samples_reason``.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any, Callable, Iterable, Optional, Sequence

from oracle.core import linalg
from oracle.core.blocks import Block, Stack
from oracle.core.rational import qmat

AXES = ("d", "m", "M", "degenerate", "biased", "planted", "near_miss")
WIDTHS = ("below", "at", "above")
SKIPS = ("identity", "invertible", "singular")
FLAGS = ("degenerate", "biased", "planted", "near_miss")
OPTIONAL = ("depth", "width", "activation")   # declared only by claims whose checks record them
NEAR_MISS_STEP = Fraction(1, 2 ** 30)


# ---------------------------------------------------------------- the declared ranges

def parse_d(text: Any) -> Optional[tuple[int, int]]:
    """'1..3' -> (1, 3), '2' -> (2, 2); None when malformed."""
    if isinstance(text, int) and not isinstance(text, bool):
        return (text, text) if text >= 1 else None
    if not isinstance(text, str):
        return None
    lo, sep, hi = text.partition("..")
    try:
        a, b = int(lo), int(hi) if sep else int(lo)
    except ValueError:
        return None
    return (a, b) if 1 <= a <= b else None


def _words(text: Any, allowed: Sequence[str]) -> Optional[list[str]]:
    if not isinstance(text, str):
        return None
    words = [w.strip() for w in text.split(",") if w.strip()]
    if not words or any(w not in allowed for w in words) or len(set(words)) != len(words):
        return None
    return words


def samples_findings(samples: Any, reasons: Any = None) -> list[str]:
    """Why a ``samples`` (and ``samples_reason``) table is malformed; empty when it is well formed."""
    if not isinstance(samples, dict):
        return ["samples must be a table {d = ..., m = ..., M = ..., degenerate = ..., ...}"]
    out = []
    for k in sorted(set(samples) - set(AXES) - set(OPTIONAL)):
        out.append(f"samples has unknown key {k!r} (known: {', '.join(AXES + OPTIONAL)})")
    for k in ("depth", "width"):
        if k in samples and parse_d(samples[k]) is None:
            out.append(f"samples.{k} must be 'a..b' with 1 <= a <= b, got {samples[k]!r}")
    if "activation" in samples and (not isinstance(samples["activation"], str)
                                    or _words(samples["activation"], samples["activation"].split(",")) is None):
        out.append(f"samples.activation must list activation names, got {samples['activation']!r}")
    for k in AXES:
        if k not in samples:
            out.append(f"samples lacks {k!r}")
    if "d" in samples and parse_d(samples["d"]) is None:
        out.append(f"samples.d must be 'a..b' with 1 <= a <= b, got {samples['d']!r}")
    if "m" in samples and _words(samples["m"], WIDTHS) is None:
        out.append(f"samples.m must list some of {', '.join(WIDTHS)}, got {samples['m']!r}")
    if "M" in samples and _words(samples["M"], SKIPS) is None:
        out.append(f"samples.M must list some of {', '.join(SKIPS)}, got {samples['M']!r}")
    for k in FLAGS:
        if k in samples and not isinstance(samples[k], bool):
            out.append(f"samples.{k} must be true or false, got {samples[k]!r}")
    if reasons is not None:
        if not isinstance(reasons, dict):
            out.append("samples_reason must be a table {axis = \"reason\"}")
        else:
            for k, v in reasons.items():
                if k not in AXES and k not in OPTIONAL:
                    out.append(f"samples_reason has unknown key {k!r}")
                elif not isinstance(v, str) or not v.strip():
                    out.append(f"samples_reason.{k} must be a non-empty reason")
    return out


def declared(samples: dict[str, Any]) -> dict[str, Any]:
    """The declared ranges as sets: d -> set of ints, m and M -> sets of words, flags -> bool."""
    lo, hi = parse_d(samples["d"])
    out = {"d": set(range(lo, hi + 1)), "m": set(_words(samples["m"], WIDTHS)),
           "M": set(_words(samples["M"], SKIPS)), **{k: bool(samples[k]) for k in FLAGS}}
    for k in ("depth", "width"):
        if k in samples:
            a, b = parse_d(samples[k])
            out[k] = set(range(a, b + 1)) if k == "depth" else {a, b}
    if "activation" in samples:
        out["activation"] = {w.strip() for w in samples["activation"].split(",") if w.strip()}
    return out


def statement_reach(tags: Iterable[str]) -> dict[str, Any]:
    """What the claim's hypotheses allow, read from its tags (the statement's whole range).

    d: from 1, or 2 with d_ge_2 (exactly 2 with d_eq_2); widths: all three, not below d with
    rows_span (rank W_up = d needs m >= d); M: every kind, not singular with M_invertible;
    degenerate blocks unless nondegenerate; biases unless bias_free; planted instances and near
    misses wherever the statement has an index condition (an iff whose exactness matters).
    """
    t = set(tags)
    d_min = 2 if ("d_ge_2" in t or "d_eq_2" in t) else 1
    return {"d_min": d_min, "d_exact": 2 if "d_eq_2" in t else None,
            "m": {"at", "above"} if "rows_span" in t else set(WIDTHS),
            "M": {"identity", "invertible"} if "M_invertible" in t else set(SKIPS),
            "degenerate": "nondegenerate" not in t, "biased": "bias_free" not in t,
            "planted": "index_condition" in t, "near_miss": "index_condition" in t}


def unjustified_exclusions(tags: Iterable[str], samples: dict[str, Any],
                           reasons: Optional[dict[str, str]] = None) -> list[str]:
    """Ranges the statement reaches that the declared samples exclude with no reason given."""
    reach, dec, reasons = statement_reach(tags), declared(samples), reasons or {}
    out = []
    if min(dec["d"]) > reach["d_min"] and "d" not in reasons:
        out.append(f"d: the statement allows d = {reach['d_min']}, the oracle starts at d = {min(dec['d'])}")
    if reach["d_exact"] is not None and reach["d_exact"] not in dec["d"]:
        out.append(f"d: the statement is about d = {reach['d_exact']}, which the oracle never draws")
    for axis in ("m", "M"):
        missing = sorted(reach[axis] - dec[axis])
        if missing and axis not in reasons:
            out.append(f"{axis}: the statement allows {', '.join(missing)}, excluded from the samples")
    for axis in FLAGS:
        if reach[axis] and not dec[axis] and axis not in reasons:
            out.append(f"{axis}: the statement reaches it, the samples exclude it")
    return out


# ---------------------------------------------------------------- what one instance is

def _line_key(row: Sequence[Fraction]) -> Optional[tuple]:
    """The line through a nonzero row (sign and scale removed); None for a zero row."""
    nz = next((v for v in row if v != 0), None)
    if nz is None:
        return None
    return tuple(v / nz for v in row)


def _degenerate(U: list[list[Fraction]], W: list[list[Fraction]]) -> bool:
    keys = [_line_key(r) for r in U]
    zero_col = any(all(W[a][i] == 0 for a in range(len(W))) for i in range(len(U)))
    return None in keys or len(set(keys)) < len(keys) or zero_col


def _skip_kind(M: Optional[list[list[Fraction]]]) -> Optional[str]:
    if M is None:
        return None
    d = len(M)
    if all(M[i][j] == (1 if i == j else 0) for i in range(d) for j in range(d)):
        return "identity"
    return "invertible" if d and linalg.rank(M) == d else "singular"


@dataclasses.dataclass
class Subject:
    """One block of an instance, in exact rationals."""

    U: list[list[Fraction]]
    W: list[list[Fraction]]
    M: Optional[list[list[Fraction]]]
    biased: bool


class Shaped:
    """For an instance class with a skip matrix M (d x d) and a matrix of unit rows, whose field
    name is ROWS: d, the width m, and the size the report plots."""

    ROWS = "W_up"

    @property
    def d(self) -> int:
        """Dimension."""
        return len(self.M)  # type: ignore[attr-defined]

    @property
    def m(self) -> int:
        """Width."""
        return len(getattr(self, self.ROWS))

    def size(self) -> dict[str, Any]:
        """d and m of the drawn block, for the report's instance-size figure."""
        return {"d": self.d, "m": self.m}


class Drawn:
    """For an instance class with a field ``kind`` naming how it was drawn: planted and near
    misses are read by features()."""

    @property
    def planted(self) -> bool:
        """Drawn with a planted solution."""
        return self.kind == "planted"  # type: ignore[attr-defined]

    @property
    def near_miss(self) -> bool:
        """Drawn as a near miss (moved off a planted solution)."""
        return self.kind == "near_miss"  # type: ignore[attr-defined]


@dataclasses.dataclass
class Subjects:
    """Subjects already in hand, seen as one instance (``features(Subjects([...]))``)."""

    items: list[Subject]

    def subjects(self) -> list[Subject]:
        """The subjects themselves."""
        return self.items


def _from_block(b: Any) -> Subject:
    biases = [getattr(b, k, None) for k in ("b_up", "b_gate", "b_down")]
    biased = any(x is not None and any(float(v) != 0 for v in x) for x in biases)
    M = qmat(b.skip()) if getattr(b, "kind", "plain") == "residual" else None
    return Subject(qmat(b.W_up), qmat(b.W_down), M, biased)


def search_instance(instance: Any, look: Callable[[Any], Any], _depth: int = 0) -> Any:
    """What ``look`` finds in a generated instance: look(instance) itself unless it is None, else
    the first nonempty answer found in its parts (the fields of a dataclass, the first 8 items
    of a tuple or list: points and weights lists are long and hold no blocks), at most three
    levels down; None when there is none."""
    found = look(instance)
    if found is not None:
        return found
    if _depth >= 3:
        return None
    if dataclasses.is_dataclass(instance) and not isinstance(instance, type):
        parts: Any = [getattr(instance, f.name) for f in dataclasses.fields(instance)]
    elif isinstance(instance, (tuple, list)):
        parts = instance[:8]
    else:
        return None
    for part in parts:
        found = search_instance(part, look, _depth + 1)
        if found:
            return found
    return None


def _own_subjects(x: Any) -> Optional[list[Subject]]:
    own = getattr(x, "subjects", None)
    if callable(own):
        return own()
    if isinstance(x, Block):
        return [_from_block(x)]
    if isinstance(x, Stack):
        return [_from_block(b) for b in x.blocks]
    return None


def subjects(instance: Any) -> list[Subject]:
    """The blocks an instance is about: its first block, stack, relu instance or layer list."""
    return search_instance(instance, _own_subjects) or []


def _attr(instance: Any, name: str) -> Any:
    """An attribute of the instance, or of the first part of a (instance, points) tuple."""
    if hasattr(instance, name):
        return getattr(instance, name)
    if isinstance(instance, tuple) and instance and hasattr(instance[0], name):
        return getattr(instance[0], name)
    return None


def features(instance: Any, drawn: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """The coverage features of one instance; ``drawn`` (a check's own record) overrides them.

    A check records in ``cert.data["drawn"]`` what only it knows (e.g. ``planted`` when m* <= m).
    An instance may say ``planted`` and ``near_miss`` itself (attributes of those names); an
    instance carrying a nonempty index set ``S`` counts as planted.
    """
    subs = subjects(instance)
    out: dict[str, Any] = {"d": None, "m": [], "M": None, "degenerate": False, "biased": False,
                           "planted": False, "near_miss": False}
    if subs:
        d = len(subs[0].W)
        out["d"] = d
        out["m"] = sorted({("below" if len(s.U) < d else "at" if len(s.U) == d else "above") for s in subs},
                          key=WIDTHS.index)
        kinds = [k for k in (_skip_kind(s.M) for s in subs) if k is not None]
        # a stack's skips: the most general one drawn in it
        out["M"] = max(kinds, key=SKIPS.index) if kinds else None
        out["degenerate"] = any(_degenerate(s.U, s.W) for s in subs)
        out["biased"] = any(s.biased for s in subs)
    out["planted"] = bool(_attr(instance, "planted")) or bool(_attr(instance, "S"))
    out["near_miss"] = bool(_attr(instance, "near_miss"))
    if drawn:
        out.update({k: v for k, v in drawn.items() if k in AXES or k in OPTIONAL})
    if out["near_miss"]:
        out["planted"] = False  # a near miss is, by construction, not an instance where it holds
    return out


# ---------------------------------------------------------------- judging a run

def tally(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """What a list of per-instance features reached, per axis (counts)."""
    out: dict[str, Any] = {"d": {}, "m": {}, "M": {}, **{k: 0 for k in FLAGS}}
    for r in rows:
        if r.get("d") is not None:
            out["d"][r["d"]] = out["d"].get(r["d"], 0) + 1
        for w in r.get("m", []):
            out["m"][w] = out["m"].get(w, 0) + 1
        if r.get("M") is not None:
            out["M"][r["M"]] = out["M"].get(r["M"], 0) + 1
        for k in FLAGS:
            out[k] += bool(r.get(k))
        for k in OPTIONAL:   # tallied only when a check records them (other claims' tallies unchanged)
            vals = r.get(k)
            for v in (vals if isinstance(vals, list) else [] if vals is None else [vals]):
                out.setdefault(k, {})
                out[k][v] = out[k].get(v, 0) + 1
    return out


def _only_in(have: dict[str, Any], lacks: dict[str, Any]) -> list[str]:
    """The values of d, m, M and the flags that ``have`` holds and ``lacks`` does not."""
    out = [f"d = {v}" for v in sorted(have["d"]) if v not in lacks["d"]]
    out += [f"m {v} d" for v in WIDTHS if v in have["m"] and v not in lacks["m"]]
    out += [f"M {v}" for v in SKIPS if v in have["M"] and v not in lacks["M"]]
    out += [k for k in FLAGS if have[k] and not lacks[k]]
    for k in OPTIONAL:   # declared values are sets, tallied ones dicts of counts
        if k not in have:
            continue
        num = (lambda v: v) if k == "activation" else int
        keys, other = {num(v) for v in have[k]}, {num(v) for v in lacks.get(k, ())}
        if not other:                                # declared, never recorded: all of it missing;
            out += [f"{k} {v}" for v in sorted(keys, key=str)] if isinstance(have[k], set) else []
            continue                                 # recorded, not declared: nothing to hold it to
        if k == "width" and not isinstance(have[k], set):
            lo, hi = min(other), max(other)          # drawn widths outside the declared ends
            out += [f"{k} {v}" for v in sorted(keys) if not lo <= v <= hi]
        else:                                        # declared values (width: both ends) never drawn
            out += [f"{k} {v}" for v in sorted(keys, key=str) if v not in other]
    return out


def missing(samples: dict[str, Any], reached: dict[str, Any]) -> list[str]:
    """Declared values never drawn (empty when the run reached every declared range)."""
    return _only_in(declared(samples), reached)


def outside(samples: dict[str, Any], reached: dict[str, Any]) -> list[str]:
    """Drawn values the declaration does not list (the registry would understate the samples)."""
    return _only_in(reached, declared(samples))


def describe(samples: dict[str, Any]) -> str:
    """One short line for the table: 'd 1..3; m <,=,>; M I,inv,sing; deg bias planted near'."""
    short = {"below": "<", "at": "=", "above": ">", "identity": "I", "invertible": "inv", "singular": "sing"}
    dec = declared(samples)
    lo, hi = min(dec["d"]), max(dec["d"])
    parts = [f"d {lo}" if lo == hi else f"d {lo}..{hi}",
             "m " + "".join(short[w] for w in WIDTHS if w in dec["m"]),
             "M " + ",".join(short[w] for w in SKIPS if w in dec["M"])]
    flags = {"degenerate": "deg", "biased": "bias", "planted": "planted", "near_miss": "near"}
    parts += [flags[k] for k in FLAGS if dec[k]]
    for k in ("depth", "width"):
        if k in samples:
            parts.append(f"{k} {samples[k]}")
    if "activation" in samples:
        parts.append("act " + ",".join(sorted(dec["activation"])))
    return "; ".join(parts)
