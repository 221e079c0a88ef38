"""What every command prints the same way: strict JSON documents and one-line messages."""

from __future__ import annotations

import json
from typing import Any

from oracle.core.jsontypes import jsonable


def one_line(msg: str) -> str:
    """A message folded to one line of at most 500 characters (errors are one line, never a traceback)."""
    return " ".join(msg.split())[:500]


def json_safe(o: Any) -> Any:
    """Replace non-finite floats (not JSON) by null, recursively; numpy values become Python ones."""
    return jsonable(o, finite=True)


def emit_json(doc: Any) -> None:
    """Print one strict JSON document on stdout (numpy values converted; NaN and +-Infinity become null)."""
    print(json.dumps(json_safe(doc), indent=2, default=str, allow_nan=False))
