"""Round trip of witness documents through the command line: for blocks drawn with the project's
strategies (every family, kind and degeneracy, tests/test_recheck_roundtrip.py's drawn_blocks),
`absorb check --emit` writes the replacing block, `absorb witness --json` compares it with its
source (agree; exactly agree when check calls the emitted block exact) and with a changed block
(differ or undecided), and `absorb recheck` holds on every witness document.  All commands run as
subprocesses.  A file of its own, so that pytest-xdist runs it beside the check round trip.
Claims exercised: relu-complete, relu-limit, relu-gelu-iff, glu-flip, relu2-biased, gated-biased
(the exact agreement evidence of each family)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings

from oracle.core.blocks import Block
from test_recheck_roundtrip import FAMILIES, FAST_WITNESSES, ROUNDTRIP_WITNESSES, drawn_blocks, witness_pair


def _witness_family(act: str, n: int) -> None:
    @settings(max_examples=n, database=None)
    @given(block=drawn_blocks(act))
    def run(block: Block) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            witness_pair(block, Path(tmp))
    run()


@pytest.mark.slow
@pytest.mark.parametrize("act", FAMILIES)
def test_witness_documents_recheck_through_the_cli(act):
    _witness_family(act, ROUNDTRIP_WITNESSES)


@pytest.mark.parametrize("act", FAMILIES)
def test_witness_round_trip_fast(act):
    _witness_family(act, FAST_WITNESSES)
