"""What every command prints the same way: strict JSON documents and one-line messages."""

from __future__ import annotations

import json
import math
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Optional, TextIO

from oracle.core import io as bio
from oracle.core.errors import InputError
from oracle.core.jsontypes import jsonable

MAX_DOCUMENT_BYTES = 200_000_000  # the largest document absorb recheck or audit --scan reads

# `check --exit-code` and `witness --exit-code`: one exit code per verdict (by default every verdict
# exits 0).  1 is left out: it is what Python returns when it fails before `absorb` starts.
VERDICT_EXIT = {"absorbable": 0, "agree": 0, "not_absorbable": 3, "differ": 3, "undecided": 4}


def verdict_status(verdict: str, by_verdict: bool) -> int:
    """The exit status of a decided verdict: its own code when asked (--exit-code), else 0."""
    if not by_verdict:
        return 0
    if verdict not in VERDICT_EXIT:
        raise ValueError(f"verdict {verdict!r} has no exit code")  # a new verdict must be added above
    return VERDICT_EXIT[verdict]


def one_line(msg: str) -> str:
    """A message folded to one line of at most 500 characters (errors are one line, never a traceback)."""
    return " ".join(msg.split())[:500]


def json_safe(o: Any) -> Any:
    """Replace non-finite floats (not JSON) by null, recursively; numpy values become Python ones."""
    return jsonable(o, finite=True)


def emit_json(doc: Any) -> None:
    """Print one strict JSON document on stdout (numpy values converted; NaN and +-Infinity become null)."""
    print(json.dumps(json_safe(doc), indent=2, default=str, allow_nan=False))


class Progress:
    """Progress of a long command on stderr.

    Three kinds of message: ``stage`` (a new phase of the work), ``step`` (how far the main loop
    is: done of total, and what runs now) and ``detail`` (per-instance and per-item lines).  With
    ``verbose`` every message is a line, as a log.  Otherwise, on a terminal, one status line is
    redrawn in place (a bar of the steps, the current stage or item and the elapsed time) and
    erased by ``close``; elsewhere (a pipe or a file) the stages are lines and the steps at most one
    line every ``every`` seconds, so a log stays short.  ``important`` is always a line (failures).
    """

    BAR = 24  # characters of the bar

    def __init__(self, name: str, verbose: bool = False, stream: Optional[TextIO] = None,
                 every: float = 30.0, tty: Optional[bool] = None) -> None:
        self.name = name
        self.verbose = verbose
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(tty if tty is not None else getattr(self.stream, "isatty", lambda: False)())
        self.every = every
        self.t0 = time.perf_counter()
        self._last_step_line = -math.inf
        self._done, self._total, self._short, self._detail = 0, 0, "", ""
        self._shown = 0  # characters of the status line on the terminal

    def _elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def _line(self, msg: str) -> None:
        self._erase()
        print(f"[{self.name}] {msg}", file=self.stream, flush=True)
        self._draw()

    def _erase(self) -> None:
        if self.tty and self._shown:
            self.stream.write("\r" + " " * self._shown + "\r")
            self._shown = 0

    def _draw(self) -> None:
        if not self.tty or self.verbose:
            return
        if self._total:
            filled = round(self.BAR * self._done / self._total)
            bar = f"[{'#' * filled}{'.' * (self.BAR - filled)}] {self._done}/{self._total} "
        else:
            bar = ""
        head, tail = f"[{self.name}] {bar}", f"  {self._elapsed():.0f}s"
        middle = self._short + (f": {self._detail}" if self._detail else "")
        width = shutil.get_terminal_size((100, 20)).columns - 1
        room = max(0, width - len(head) - len(tail))
        text = head + (middle if len(middle) <= room else middle[:max(0, room - 3)] + "...") + tail
        self.stream.write("\r" + text + " " * max(0, self._shown - len(text)))
        self.stream.flush()
        self._shown = len(text)

    def stage(self, msg: str) -> None:
        """A new phase of the work: a line, except on a terminal without --verbose (the status line)."""
        self._short, self._detail = msg, ""
        if self.verbose or not self.tty:
            self._line(msg)
        else:
            self._draw()

    def step(self, done: int, total: int, what: str, short: Optional[str] = None) -> None:
        """The main loop reached `done` of `total`; `what` runs now (`short`: its name on the
        status line, which already shows the count)."""
        self._done, self._total, self._short, self._detail = done, total, short or what, ""
        if self.verbose:
            self._line(what)
        elif self.tty:
            self._draw()
        elif self._elapsed() - self._last_step_line >= self.every:
            self._last_step_line = self._elapsed()
            self._line(f"{what} ({self._elapsed():.0f}s)")

    def detail(self, msg: str) -> None:
        """A per-item message: a line with --verbose, the tail of the status line on a terminal."""
        if self.verbose:
            self._line(msg)
        elif self.tty:
            self._detail = msg.strip()
            self._draw()

    def important(self, msg: str) -> None:
        """A message that is always a line (a failure, a result the user must see)."""
        self._line(msg)

    def close(self) -> None:
        """Erase the status line, so that what follows starts on a clean line."""
        self._erase()


def load_document(path: str) -> dict[str, Any]:
    """A JSON document (strict: no NaN/Infinity, no duplicate keys), or InputError."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_DOCUMENT_BYTES:
            raise InputError(f"{p}: larger than {MAX_DOCUMENT_BYTES} bytes")
        text = p.read_text()
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{p}: cannot read: {' '.join(str(e).split())[:200]}") from None

    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    try:
        doc = json.loads(text, object_pairs_hook=bio.no_duplicate_keys, parse_constant=no_constant)
    except (ValueError, RecursionError) as e:
        raise InputError(f"{p}: not a JSON document: {' '.join(str(e).split())[:200]}") from None
    if not isinstance(doc, dict):
        raise InputError(f"{p}: the document is not a JSON object")
    return doc
