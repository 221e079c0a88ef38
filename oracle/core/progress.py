"""Stage messages of long computations: a ``Progress`` callback takes one message.

The decisions and the canonical comparison take ``progress=quiet`` by default; ``absorb check``
passes ``stderr_progress()`` for large blocks, which prints each stage with the elapsed time.
"""

from __future__ import annotations

import sys
import time
from typing import Callable

__all__ = ["Progress", "quiet", "stderr_progress"]

Progress = Callable[[str], None]


def quiet(_: str) -> None:
    """The progress callback that reports nothing."""
    return None


def stderr_progress(prefix: str = "absorb check") -> Progress:
    """A progress callback printing timed stage messages on stderr."""
    t0 = time.perf_counter()

    def say(msg: str) -> None:
        print(f"{prefix}: [{time.perf_counter() - t0:6.1f}s] {msg}", file=sys.stderr, flush=True)
    return say
