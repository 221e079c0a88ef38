"""Helpers of the forgery tests: a copy of a JSON document with one field changed."""

from __future__ import annotations

import copy
from typing import Any


def put(doc: dict, path: tuple, value: Any) -> dict:
    """A deep copy of ``doc`` whose field at ``path`` (keys and list indices, outermost first)
    holds ``value``; the original is left as it was."""
    bad = copy.deepcopy(doc)
    node = bad
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return bad
