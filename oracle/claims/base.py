"""What every claim module shares: certificates, registered checks, and the runner.

A claim module registers

  * oracle checks -- ``@oracle_check(claim, strategy, recheck, precision, examples=...)`` on a
    function ``instance -> Certificate``; the registry's ``oracle`` field names one.
    ``examples`` (optional) is a function ``() -> list of instances``: corner instances that the
    runner checks first on every run, before the strategy draws anything (like hypothesis'
    ``@example``), for branches the strategy reaches rarely or never.
    ``recheck(cert_dict) -> bool`` must re-verify the certificate from its JSON
    form alone (weights and witnesses are stored in the certificate as exact
    strings or float lists), without trusting the function that produced it.
  * boundary counterexamples -- ``@counterexample(claims, dropped)`` on a function
    ``() -> Certificate`` whose ``holds`` means: the conclusion of the claim
    really fails on this explicit instance once the hypothesis is dropped.

Both decorators only attach their metadata to the function; ``oracle.claims.load()`` (in
oracle/claims/__init__.py, which lists the claim modules) collects them.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hyp_seed
from hypothesis import strategies as st
from hypothesis.internal.conjecture import providers as _providers

from oracle.core.blocks import Block, Stack
from oracle.core.errors import CheckFailed
from oracle.claims import coverage


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
    examples: Optional[Callable[[], list[Any]]] = None  # corner instances, always checked first


@dataclass
class CounterexampleInfo:
    """Metadata attached to a registered boundary counterexample."""

    claims: tuple[str, ...]
    dropped: str  # the hypothesis tag that this instance drops
    description: str


def oracle_check(claim: str, strategy: st.SearchStrategy,
                 recheck: Callable[[dict[str, Any]], bool], precision: str,
                 examples: Optional[Callable[[], list[Any]]] = None) -> Callable:
    """Mark a function instance -> Certificate as the oracle check of a claim (metadata only)."""
    def wrap(fn: Callable[[Any], Certificate]) -> Callable[[Any], Certificate]:
        fn.check_info = CheckInfo(claim, strategy, recheck, precision, examples)  # type: ignore[attr-defined]
        return fn
    return wrap


def counterexample(claims: tuple[str, ...], dropped: str, description: str) -> Callable:
    """Mark a function () -> Certificate as a boundary case of some claims (metadata only)."""
    def wrap(fn: Callable[[], Certificate]) -> Callable[[], Certificate]:
        fn.counterexample_info = CounterexampleInfo(tuple(claims), dropped, description)  # type: ignore[attr-defined]
        return fn
    return wrap


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
    sample: Optional[dict[str, Any]] = None  # one certificate (the first drawn one), for the report
    # One entry per generated instance: {"d", "m", ("depth"), "seconds"}; d and m are None
    # when the instance holds no block (the report then shows times only).
    sizes: list[dict[str, Any]] = field(default_factory=list)
    seed: int = 0
    requested: int = 0  # the number of instances asked for
    top_up: int = 0  # further instances drawn (and checked) until the declared ranges were reached
    examples: int = 0  # corner instances checked before the drawn ones (CheckInfo.examples)
    drawn: dict[str, Any] = field(default_factory=dict)  # coverage.tally of every checked instance
    failing: Optional[dict[str, Any]] = None  # {"index", "phase", "reason"} of the failing instance
    failing_instance: Any = None  # the instance object itself (not JSON; the audit writes it to a file)
    failing_certificate: Optional[dict[str, Any]] = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (the failing instance object is left out; its file is named instead)."""
        return {k: v for k, v in self.__dict__.items() if k != "failing_instance"}


class _Enough(Exception):
    """Raised inside a top-up run once every declared range has been drawn."""


TOP_UP_MAX = 200  # at most this many further instances are drawn to reach the declared ranges
COVERAGE_MIN = 20  # runs of fewer instances are not held to the declared ranges (nor topped up)


@contextmanager
def seed_only_draws() -> Any:
    """Draw from the seed alone: no constants read from the project's own source.

    Since 6.131, hypothesis sometimes replaces a drawn number by a constant it collects from the
    source of every imported module outside site-packages and the standard library. For this
    package that means: from whichever oracle modules happen to be imported when an instance is
    drawn, and only when the package is installed in editable mode. The same seed then gave other
    instances in another process (a document's re-run of the audit drew 18 degenerate instances where
    the audit had drawn 19). Inside this context the pool of such constants is empty, so the instances
    depend on the seed and the hypothesis version only; hypothesis' own built-in constants stay.
    Without the hook (older hypothesis) there is nothing to turn off.
    """
    get = getattr(_providers, "_get_local_constants", None)
    if get is None:
        yield
        return
    cache = getattr(_providers, "CONSTANTS_CACHE", None)
    empty = _providers.Constants()
    _providers._get_local_constants = lambda: empty
    if cache is not None:
        cache.cache.clear()  # pools computed earlier may hold local constants
    try:
        yield
    finally:
        _providers._get_local_constants = get
        if cache is not None:
            cache.cache.clear()


def run_check(fn: Callable[[Any], Certificate], n: int, seed: int = 0,
              samples: Optional[dict[str, Any]] = None,
              progress: Optional[Callable[[str], None]] = None) -> RunResult:
    """Run a registered check on n hypothesis-generated instances; every certificate is re-checked.

    The instances are those hypothesis draws from ``seed`` (the same seed gives the same
    instances, and the first k of a run of n are the instances of a run of k). With ``samples``
    (the registry's declared ranges) every instance's coverage features are measured, and when
    the n instances miss a declared range (and n >= COVERAGE_MIN), further instances are drawn
    from seed + 1, checked the same way, until every range is reached or TOP_UP_MAX more were drawn.
    A check registered with ``examples`` first runs on each of its corner instances (phase
    "example"); they are checked, re-checked and their coverage features tallied like drawn ones,
    and counted apart (``examples``; ``sizes`` lists the drawn instances only).
    """
    info: CheckInfo = fn.check_info  # type: ignore[attr-defined]
    certs: list[Certificate] = []
    sizes: list[dict[str, Any]] = []
    feats: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    start = time.perf_counter()
    step = max(1, n // 10)

    def one(instance: Any, phase: str) -> None:
        current.update(instance=instance, phase=phase, index=len(certs), cert=None)
        t = time.perf_counter()
        cert = fn(instance)
        current["cert"] = cert
        ok = cert.holds and info.recheck(cert.as_dict())
        certs.append(cert)
        if phase != "example":  # sizes describe the drawn instances (instances + top_up of them)
            sizes.append({**(instance_size(instance) or {"d": None, "m": None}),
                          "seconds": round(time.perf_counter() - t, 6)})
        feats.append(coverage.features(instance, cert.data.get("drawn") if isinstance(cert.data, dict) else None))
        if progress and phase == "main" and (len(certs) % step == 0) and n >= 20:
            progress(f"{info.claim}: {len(certs)}/{n} instances")
        if not cert.holds:
            raise CheckFailed(f"check failed: {cert.reason}")
        if not ok:
            raise CheckFailed("certificate did not re-check from its own data")

    def run(count: int, s: int, phase: str) -> None:
        @hyp_seed(s)
        @settings(max_examples=count, database=None, deadline=None, derandomize=False,
                  phases=[Phase.generate], suppress_health_check=list(HealthCheck))
        @given(info.strategy)
        def body(instance: Any) -> None:
            one(instance, phase)
            if phase == "top-up" and not coverage.missing(samples, coverage.tally(feats)):
                raise _Enough()
        with seed_only_draws():
            body()

    failure = None
    top_up = 0
    corners = list(info.examples()) if info.examples is not None else []
    try:
        for instance in corners:
            one(instance, "example")
        run(n, seed, "main")
        if samples is not None and n >= COVERAGE_MIN and coverage.missing(samples, coverage.tally(feats)):
            before = len(certs)
            try:
                run(TOP_UP_MAX, seed + 1, "top-up")
            except _Enough:
                pass
            top_up = len(certs) - before
    except Exception as e:  # the runner reports any failure instead of crashing the audit
        failure = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        if current.get("phase") == "top-up":
            top_up = current["index"] + 1 - n - len(corners)
    failing = None
    if failure is not None and current:
        failing = {"index": current["index"], "phase": current["phase"], "reason": failure}
        cert = current.get("cert")
    k = len(corners)
    main = max(0, min(len(certs) - k, n))
    return RunResult(
        claim=info.claim, instances=main, passed=failure is None and bool(certs),
        exact_instances=sum(c.exact for c in certs[k:k + n]), precision=info.precision,
        seconds=time.perf_counter() - start, failure=failure,
        sample=(certs[k] if len(certs) > k else certs[0]).as_dict() if certs else None, sizes=sizes, seed=seed, requested=n,
        top_up=top_up, examples=min(k, len(certs)), drawn=coverage.tally(feats), failing=failing,
        failing_instance=current.get("instance") if failing else None,
        failing_certificate=(cert.as_dict() if failing and cert is not None else None))


def _own_size(x: Any) -> Optional[dict[str, Any]]:
    own = getattr(x, "size", None)
    if callable(own) and not isinstance(x, (Block, Stack)):
        return own()
    if isinstance(x, Block):
        return {"d": x.d, "m": x.m}
    if isinstance(x, Stack):
        return {"d": x.blocks[0].d, "m": max(b.m for b in x.blocks), "depth": len(x.blocks)}
    return None


def instance_size(instance: Any) -> Optional[dict[str, Any]]:
    """d and m of the first block (or stack) inside a generated instance, or None if there is none.

    Instances are dataclasses, tuples or blocks (coverage.search_instance looks inside); a stack
    reports its d, its widest block's m and its number of blocks. A class may define
    ``size() -> dict`` to say it itself.
    """
    return coverage.search_instance(instance, _own_size)
