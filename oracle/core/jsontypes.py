"""Nested results (dicts, lists, tuples, numpy values) as the plain types JSON writes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def jsonable(obj: Any, finite: bool = False) -> Any:
    """Convert numpy values, tuples and dict keys inside a nested structure to JSON types; with
    finite, non-finite floats (which strict JSON does not have) become None."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v, finite) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v, finite) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist(), finite) if finite else obj.tolist()
    if isinstance(obj, np.generic):
        obj = obj.item()
    if finite and isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj
