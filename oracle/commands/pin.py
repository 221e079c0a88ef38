"""`absorb pin`: after reviewing a statement change, rewrite the pinned statement files
(proofs/pinned/coq-statements.txt and lean-statements.txt) from the compiled development."""

from __future__ import annotations

import argparse

from oracle.formal import consistency


def run(args: argparse.Namespace) -> int:
    """Entry point of `absorb pin`: print the diff, then write (unless --dry-run)."""
    return consistency.run_pin(args)
