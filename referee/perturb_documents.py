"""Perturb every leaf field of ``absorb check --json`` documents, one at a time, and list the
perturbations that ``absorb recheck`` still says hold.

The documents are those of the example blocks (examples/*.npz, stacks left out), of hand-made
blocks that reach the other certificate kinds and parts (relu2-biased (C)/(D), gated-biased (D),
padded flips, rounded b_down, index sets), and of blocks drawn from oracle/core/strategies.py.
Each leaf is changed in a way that keeps its type (a boolean flipped, a number changed, a text
extended, a list shortened); the re-check is oracle.decide.document.check_block_document, the one
path ``absorb recheck`` uses for a block document.  A perturbation that still holds is either a
field the holds line names as not verified (prose, timings, not-rebuilt records) or a gap.

Usage: python referee/perturb_documents.py [--hypothesis N] [--out FILE]
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from oracle.core import io as bio
from oracle.core.blocks import Block
from oracle.decide import decide
from oracle.decide.document import Refused, check_block_document

ROOT = Path(__file__).resolve().parents[1]


def hand_made() -> dict[str, tuple[Block, str]]:
    """Blocks reaching certificate kinds the examples do not (name -> (block, replacing_biases))."""
    z = np.zeros
    out: dict[str, tuple[Block, str]] = {}
    # relu2-biased (D1): two cancelling pairs, width 8, biases allowed
    U, W = z((8, 2)), z((2, 8))
    U[0] = U[1] = [1, 2]
    W[:, 0], W[:, 1] = [1, -1], [-1, 1]
    U[2] = U[3] = [0, 1]
    W[:, 2], W[:, 3] = [2, 1], [-2, -1]
    out["relu2_part_d1"] = (Block("relu2", W_up=U, W_down=W), "allowed")
    # relu2-biased (D2): one square on a new hyperplane
    out["relu2_part_d2"] = (Block("relu2", W_up=np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]]),
                                  W_down=np.array([[0.0, 1.0, -1.0], [1.0, 3.0, -3.0]]),
                                  b_up=np.array([0.0, 0.5, 0.5]), M=np.array([[0.0, 0.0], [2.0, 0.0]])), "allowed")
    # relu2-biased (D1) without biases: the zero block
    out["relu2_zero_none"] = (Block("relu2", W_up=np.array([[1.0], [1.0]]), W_down=np.array([[1.0, -1.0]]),
                                    b_up=np.array([1.0, 1.0]), M=np.array([[0.0]])), "none")
    # gated-biased (D): zero gate rows, both conventions
    for gate in ("reglu", "swiglu", "glu"):
        b = Block(gate, W_gate=np.zeros((2, 2)), b_gate=np.ones(2), W_up=np.eye(2), W_down=np.eye(2))
        out[f"{gate}_part_d_allowed"] = (b, "allowed")
        out[f"{gate}_part_d_none"] = (b, "none")
    # gated-biased (A) with padding
    for gate in ("reglu", "swiglu"):
        out[f"{gate}_padded"] = (Block(gate, W_up=np.array([[1.0], [1.0], [0.0]]), W_down=np.array([[1.0, 0.0, 0.0]]),
                                       W_gate=np.array([[1.0], [2.0], [1.0]]), b_gate=np.array([0.5, 0.0, 0.0])),
                                 "allowed")
    # sign flips whose b_down + W_S b_S is not a float64 (rounded emitted block)
    t = 2.0 ** -60
    out["gelu_rounded_b_down"] = (Block("gelu", W_up=np.array([[1.0]]), W_down=np.array([[-1.0]]),
                                        b_up=np.array([t]), b_down=np.array([1.0])), "auto")
    out["relu_rounded_b_down"] = (Block("relu", W_up=np.array([[1.0]]), W_down=np.array([[-1.0]]),
                                        b_up=np.array([t]), b_down=np.array([1.0])), "auto")
    # a bias-free glu block with an index set
    out["glu_index_set"] = (Block("glu", W_up=np.eye(2), W_down=-np.eye(2), W_gate=np.eye(2)), "auto")
    # relu with a unit flip (relu-complete, S of the block's own units)
    out["relu_d2_flip"] = (Block("relu", W_up=np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
                                 W_down=np.array([[-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]]),
                                 b_up=np.array([0.5, 0.25, 1.0])), "auto")
    # relu-complete bounds (beyond the enumeration limit): 12 hyperplanes, pairs +-e_j
    rng = np.random.default_rng(3)
    rng.integers(-8, 9, (40, 6)), rng.integers(-8, 9, (6, 40))  # the draws before it in tests/test_check_paths.py
    base = rng.integers(-4, 5, (12, 6)).astype(float)
    base[base[:, 0] == 0, 0] = 1.0
    out["relu_bounds_pairs"] = (Block("relu", W_up=np.vstack([base, 2 * base, base / 2]),
                                      W_down=rng.integers(-4, 5, (6, 36)) / 8.0), "auto")
    return out


def strategy_blocks(n: int) -> dict[str, tuple[Block, str]]:
    """n blocks drawn from oracle/core/strategies.py's block strategies (fixed seed)."""
    if n <= 0:
        return {}
    from hypothesis import HealthCheck, given, settings, seed
    from hypothesis import strategies as st

    from oracle.core import strategies as S

    out: dict[str, tuple[Block, str]] = {}
    strat = st.one_of(S.blocks(), S.blocks(bias=True), S.degenerate_blocks().map(lambda t: t[0]),
                      S.condition_blocks().map(lambda c: c.block),
                      S.condition_blocks(activation="gelu").map(lambda c: c.block))

    @seed(29)
    @settings(max_examples=n, database=None, suppress_health_check=list(HealthCheck), deadline=None)
    @given(st.data())
    def draw(data: Any) -> None:
        b = data.draw(strat)
        if isinstance(b, Block) and b.kind == "residual":
            out[f"strategy_{len(out)}"] = (b, "auto")

    draw()
    return out


def leaves(x: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    if isinstance(x, dict):
        for k, v in x.items():
            yield from leaves(v, path + (k,))
    elif isinstance(x, list):
        if x and not isinstance(x[0], (dict, list)):
            yield path, x
        for i, v in enumerate(x[:3]):
            if isinstance(v, (dict, list)):
                yield from leaves(v, path + (i,))
    else:
        yield path, x


def perturbed(v: Any) -> list[Any]:
    if isinstance(v, bool):
        return [not v]
    if isinstance(v, int):
        return [v + 1]
    if isinstance(v, float):
        return [v * 2 + 1e-3]
    if isinstance(v, str):
        return [v + "x"]
    if isinstance(v, list):
        return [v[:-1]] if v else [[0]]
    if v is None:
        return [1]
    return []


def put(doc: dict, path: tuple, value: Any) -> dict:
    bad = copy.deepcopy(doc)
    node = bad
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hypothesis", type=int, default=0, help="blocks drawn from oracle/core/strategies.py")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    blocks: dict[str, tuple[Block, str]] = {}
    for f in sorted((ROOT / "examples").glob("*.npz")):
        if "stack" not in f.name:
            blocks[f.stem] = (bio.read_block(f), "auto")
    blocks["relu2_degenerate[allowed]"] = (blocks["relu2_degenerate"][0], "allowed")
    blocks.update(hand_made())
    blocks.update(strategy_blocks(args.hypothesis))
    held: list[dict[str, Any]] = []
    for name, (b, conv) in blocks.items():
        try:
            doc = json.loads(json.dumps(decide(b, replacing_biases=conv).as_dict()))
        except Exception as e:  # noqa: BLE001 - a block the strategies drew that check rejects
            print(f"{name}: check failed ({type(e).__name__}: {e})", file=sys.stderr)
            continue
        c = doc["certificate"]
        try:
            check_block_document(b, doc)
        except Refused as e:
            print(f"{name}: THE TRUE DOCUMENT IS REFUSED: {e}", file=sys.stderr)
            held.append({"block": name, "true_document_refused": str(e)})
            continue
        n = 0
        for path, v in leaves(doc):
            for nv in perturbed(v):
                n += 1
                try:
                    why = check_block_document(b, put(doc, path, nv))
                except Refused:
                    continue
                held.append({"block": name, "kind": c.get("kind"), "part": c.get("part"),
                             "field": ".".join(str(p) for p in path), "value": repr(nv)[:60],
                             "holds": why.split("not verified:")[-1][:200] if "not verified" in why else ""})
        print(f"{name}: {c.get('kind')} {c.get('part') or ''} {doc['verdict']}: {n} perturbations", file=sys.stderr)
    text = json.dumps(held, indent=1)
    if args.out:
        args.out.write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
