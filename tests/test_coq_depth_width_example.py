"""The Coq example of depth-width without the rank condition (proofs/coq/DepthWidthExample.v)
is the oracle's boundary instance `width_rank_deficient` (oracle/claims/depth_boundary.py).

The weights are read from the Coq definitions ex_up / ex_down and compared, entry by entry in
exact rationals, with `width_deficient_block()`, so that the two cannot drift apart silently.
"""

import re
from fractions import Fraction

from oracle.claims.depth_boundary import width_deficient_block
from oracle.formal import consistency as C

COQ = C.ROOT / "proofs" / "coq" / "DepthWidthExample.v"
ENTRY = re.compile(r"\|\s*(O|\d+%nat)\s*,\s*(O|\d+%nat)\s*=>\s*(\d+(?:\s*/\s*\d+)?)")


def _index(tok: str) -> int:
    return 0 if tok == "O" else int(tok.removesuffix("%nat"))


def _coq_matrix(name: str) -> list[list[Fraction]]:
    text = COQ.read_text()
    m = re.search(r"Definition " + name + r" : mat := fun \w+ \w+ =>\s*match(.*?)end\.", text, re.S)
    assert m, name
    out = [[Fraction(0)] * 3 for _ in range(3)]
    entries = ENTRY.findall(m.group(1))
    assert entries
    for a, b, v in entries:
        out[_index(a)][_index(b)] = Fraction(v.replace(" ", ""))
    assert "| _, _ => 0" in m.group(1)
    return out


def test_coq_weights_are_the_oracle_instance():
    U, W = width_deficient_block()
    assert _coq_matrix("ex_up") == [[Fraction(x) for x in row] for row in U]
    assert _coq_matrix("ex_down") == [[Fraction(x) for x in row] for row in W]


def test_compiled_and_proved_through_the_exact_width():
    assert "DepthWidthExample.v" in (C.ROOT / "proofs" / "coq" / "_CoqProject").read_text().split()
    text = COQ.read_text()
    for name in ("depth_width_max_too_small", "depth_width_example_width_7"):
        assert f"Lemma {name} :" in text
    assert "absorption_width_invertible 3 3 m' 2 ident ex_down ex_up" in text
    for bad in ("Admitted", "admit", "Axiom", "Parameter"):
        assert bad not in text
