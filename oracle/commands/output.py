"""What every command prints the same way: strict JSON documents and one-line messages."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np


def one_line(msg: str) -> str:
    """A message folded to one line of at most 500 characters (errors are one line, never a traceback)."""
    return " ".join(msg.split())[:500]


def json_safe(o: Any) -> Any:
    """Replace non-finite floats (not JSON) by null, recursively; numpy values become Python ones."""
    if isinstance(o, dict):
        return {str(k): json_safe(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [json_safe(v) for v in o]
    if isinstance(o, np.ndarray):
        return json_safe(o.tolist())
    if isinstance(o, (np.bool_,)):
        return bool(o)
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (float, np.floating)):
        f = float(o)
        return f if math.isfinite(f) else None
    return o


def emit_json(doc: Any) -> None:
    """Print one strict JSON document on stdout (numpy values converted; NaN and +-Infinity become null)."""
    print(json.dumps(json_safe(doc), indent=2, default=str, allow_nan=False))
