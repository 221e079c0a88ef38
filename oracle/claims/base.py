"""What every claim module shares: certificates, registered checks, and the runner.

A claim module registers

  * oracle checks -- ``@oracle_check(claim, strategy, recheck, precision)`` on a
    function ``instance -> Certificate``; the registry's ``oracle`` field names one.
    ``recheck(cert_dict) -> bool`` must re-verify the certificate from its JSON
    form alone (weights and witnesses are stored in the certificate as exact
    strings or float lists), without trusting the function that produced it.
  * boundary counterexamples -- ``@counterexample(claims, dropped)`` on a function
    ``() -> Certificate`` whose ``holds`` means: the conclusion of the claim
    really fails on this explicit instance once the hypothesis is dropped.
"""

from __future__ import annotations

import dataclasses
import importlib
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from oracle.algebra.exact import q_parse, q_str  # noqa: F401  (the claims use them through base)
from oracle.core.blocks import Block, Stack


@dataclass
class Certificate:
    """The outcome of one check, with the data that lets anyone re-check it."""

    claim: str
    holds: bool
    exact: bool  # rests on exact rationals, rigorous balls, or a proved theorem
    method: str  # e.g. "exact rationals", "arb balls at 128 bits", "float64 (not exact)"
    data: dict[str, Any] = field(default_factory=dict)
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"claim": self.claim, "holds": self.holds, "exact": self.exact,
                "method": self.method, "reason": self.reason, "data": self.data}


@dataclass
class CheckInfo:
    """Metadata attached to a registered oracle check."""

    claim: str
    strategy: st.SearchStrategy
    recheck: Callable[[dict[str, Any]], bool]
    precision: str


@dataclass
class CounterexampleInfo:
    """Metadata attached to a registered boundary counterexample."""

    claims: tuple[str, ...]
    dropped: str  # the hypothesis tag that this instance drops
    description: str


def oracle_check(claim: str, strategy: st.SearchStrategy,
                 recheck: Callable[[dict[str, Any]], bool], precision: str) -> Callable:
    """Register a function instance -> Certificate as the oracle check of a claim."""
    def wrap(fn: Callable[[Any], Certificate]) -> Callable[[Any], Certificate]:
        fn.check_info = CheckInfo(claim, strategy, recheck, precision)  # type: ignore[attr-defined]
        return fn
    return wrap


COUNTEREXAMPLES: list[Callable[[], Certificate]] = []


def counterexample(claims: tuple[str, ...], dropped: str, description: str) -> Callable:
    """Register a function () -> Certificate exhibiting a boundary case of some claims."""
    def wrap(fn: Callable[[], Certificate]) -> Callable[[], Certificate]:
        fn.counterexample_info = CounterexampleInfo(tuple(claims), dropped, description)  # type: ignore[attr-defined]
        COUNTEREXAMPLES.append(fn)
        return fn
    return wrap


def resolve(ref: str) -> Callable:
    """Import 'package.module:function' and return the function."""
    mod, _, name = ref.partition(":")
    return getattr(importlib.import_module(mod), name)


@dataclass
class RunResult:
    """What running one oracle check on generated instances gave."""

    claim: str
    instances: int
    passed: bool
    exact_instances: int
    precision: str
    seconds: float
    failure: Optional[str] = None
    sample: Optional[dict[str, Any]] = None  # one certificate, for the report
    # One entry per generated instance: {"d", "m", ("depth"), "seconds"}; d and m are None
    # when the instance holds no block (the report then shows times only).
    sizes: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return dict(self.__dict__)


def run_check(fn: Callable[[Any], Certificate], n: int, seed: int = 0) -> RunResult:
    """Run a registered check on n hypothesis-generated instances; every certificate is re-checked."""
    info: CheckInfo = fn.check_info  # type: ignore[attr-defined]
    certs: list[Certificate] = []
    sizes: list[dict[str, Any]] = []
    start = time.perf_counter()

    @settings(max_examples=n, database=None, deadline=None, derandomize=True,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(info.strategy)
    def body(instance: Any) -> None:
        t = time.perf_counter()
        cert = fn(instance)
        certs.append(cert)
        ok = cert.holds and info.recheck(cert.as_dict())
        sizes.append({**(instance_size(instance) or {"d": None, "m": None}),
                      "seconds": round(time.perf_counter() - t, 6)})
        assert cert.holds, f"check failed: {cert.reason}"
        assert ok, "certificate did not re-check from its own data"

    failure = None
    try:
        body()
    except Exception as e:  # the runner reports any failure instead of crashing the audit
        failure = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    return RunResult(
        claim=info.claim, instances=len(certs), passed=failure is None and bool(certs),
        exact_instances=sum(c.exact for c in certs), precision=info.precision,
        seconds=time.perf_counter() - start, failure=failure,
        sample=certs[0].as_dict() if certs else None, sizes=sizes)


def instance_size(instance: Any, _depth: int = 0) -> Optional[dict[str, Any]]:
    """d and m of the first block (or stack) inside a generated instance, or None if there is none.

    Instances are dataclasses, tuples or blocks; a stack reports its d, its widest block's m
    and its number of blocks. A class may define ``size() -> dict`` to say it itself.
    """

    own = getattr(instance, "size", None)
    if callable(own) and not isinstance(instance, (Block, Stack)):
        return own()
    if isinstance(instance, Block):
        return {"d": instance.d, "m": instance.m}
    if isinstance(instance, Stack):
        return {"d": instance.blocks[0].d, "m": max(b.m for b in instance.blocks),
                "depth": len(instance.blocks)}
    if _depth >= 3:
        return None
    if dataclasses.is_dataclass(instance) and not isinstance(instance, type):
        parts: Any = [getattr(instance, f.name) for f in dataclasses.fields(instance)]
    elif isinstance(instance, (tuple, list)):
        parts = instance[:8]  # points and weights lists are long and hold no blocks
    else:
        return None
    for part in parts:
        found = instance_size(part, _depth + 1)
        if found is not None:
            return found
    return None
