"""Referee round 4, piece B: a true document must always hold.

Blocks are drawn from oracle/core/strategies.py (every catalog activation; bias or not; skips
identity/invertible/any/singular; degenerate blocks; planted index sets, relu and gelu; near misses)
plus hand-made degenerate gelu/gated blocks.  Each is written as a block file, and the installed
command is run in-process as a user runs it:
    absorb check FILE --json [--replacing-biases auto|allowed|none] [--emit P [--min-width]]
    absorb recheck DOC FILE
Any recheck that does not say holds (exit 1) is a true document refused; a crash of check or
recheck (an internal error) is listed as well.
Usage: .venv/bin/python referee/ref4/true_docs.py [N] [--quick]
"""
from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings, seed
from hypothesis import strategies as st

from oracle.cli import main as absorb
from oracle.core import activations
from oracle.core import strategies as S
from oracle.core.blocks import Block


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = absorb(list(argv))
        except SystemExit as e:
            rc = e.code
        except Exception as e:  # noqa: BLE001
            return 99, "", f"EXCEPTION {type(e).__name__}: {e}"
    return rc, out.getvalue(), err.getvalue()


def save(b: Block, p: Path) -> None:
    arrs = {"W_up": b.W_up, "W_down": b.W_down, "activation": np.array(b.activation), "kind": np.array(b.kind)}
    for k in ("W_gate", "b_gate", "b_up", "b_down", "M"):
        v = getattr(b, k, None)
        if v is not None:
            arrs[k] = v
    np.savez(p, **arrs)


def draws(n: int) -> list[Block]:
    acts = sorted(activations.CATALOG)
    strat = st.one_of(
        *[S.blocks(activation=a, bias=bb) for a in acts for bb in (False, True)],
        S.blocks(skip="invertible"), S.blocks(skip="singular", bias=True), S.blocks(skip="any"),
        S.degenerate_blocks().map(lambda t: t[0]), S.degenerate_blocks(bias=True).map(lambda t: t[0]),
        S.condition_blocks().map(lambda c: c.block), S.condition_blocks(activation="gelu").map(lambda c: c.block),
        S.condition_blocks(near_miss=True).map(lambda c: c.block))
    out: list[Block] = []

    @seed(404)
    @settings(max_examples=n, database=None, suppress_health_check=list(HealthCheck), deadline=None)
    @given(st.data())
    def draw(data):
        b = data.draw(strat)
        if isinstance(b, Block) and b.kind == "residual":
            out.append(b)

    draw()
    return out


def hand() -> list[Block]:
    o = []
    # x + gelu(x) + gelu(-x): m* = 1 < m = 2; x + gelu(x) - gelu(2x); x + gelu(x) + gelu(2x)
    o.append(Block("gelu", W_up=np.array([[1.], [-1.]]), W_down=np.array([[1., 1.]])))
    o.append(Block("gelu", W_up=np.array([[1.], [2.]]), W_down=np.array([[1., -1.]])))
    o.append(Block("gelu", W_up=np.array([[1.], [2.]]), W_down=np.array([[1., 1.]])))
    o.append(Block("silu", W_up=np.array([[1., 0], [-1., 0], [0, 0]]), W_down=np.array([[1., 1., 3.], [0, 0, 0]]),
                   b_up=np.array([0.5, -0.5, 1.0]), b_down=np.array([0., 1.])))
    # biased swiglu with W_gate = 0, b_gate = 1 (an affine unit)
    o.append(Block("swiglu", W_gate=np.zeros((1, 1)), b_gate=np.ones(1), W_up=np.ones((1, 1)), W_down=-np.ones((1, 1))))
    o.append(Block("reglu", W_gate=np.zeros((2, 2)), b_gate=np.array([1., -1.]), W_up=np.eye(2), W_down=np.eye(2)))
    o.append(Block("geglu", W_gate=np.array([[1., 0], [1., 0]]), W_up=np.array([[0., 1], [0., 1]]),
                   W_down=np.array([[1., -1.], [0, 0]])))
    # relu2 referee counterexample of issue 29
    o.append(Block("relu2", W_up=np.array([[1.], [1.], [1.]]), W_down=np.array([[1., -1., 0.]]), b_up=np.array([0., 0., 1.])))
    # bias 2^-1074 on a unit with zero output (the convention-depends-on-a-zero case)
    o.append(Block("relu2", W_up=np.array([[1.], [1.]]), W_down=np.array([[-1., 0.]]), b_up=np.array([0., 5e-324])))
    o.append(Block("swiglu", W_gate=np.array([[1.], [1.]]), W_up=np.array([[1.], [1.]]), W_down=np.array([[-1., 0.]]),
                   b_up=np.array([0., 5e-324])))
    return o


def planted(n: int) -> list[Block]:
    """gelu-family blocks with planted class structure: rows repeated, opposite (with opposite
    biases), doubled, zero; output columns cancelling in pairs; d = 1..3; biases or not."""
    rng = np.random.default_rng(77)
    out = []
    for k in range(n):
        act = ["gelu", "gelu_tanh", "silu", "relu"][k % 4]
        d = int(rng.integers(1, 4)); base = int(rng.integers(1, 4))
        U0 = rng.integers(-2, 3, size=(base, d)).astype(float)
        U0[np.all(U0 == 0, axis=1), 0] = 1.0
        c0 = rng.integers(-2, 3, size=base) / 2.0
        rows, bs = [], []
        for i in range(base):
            for op in rng.choice(["same", "neg", "dbl", "zero", "none"], size=2):
                rows.append(U0[i]); bs.append(c0[i])
                if op == "same": rows.append(U0[i]); bs.append(c0[i])
                elif op == "neg": rows.append(-U0[i]); bs.append(-c0[i])
                elif op == "dbl": rows.append(2 * U0[i]); bs.append(2 * c0[i])
                elif op == "zero": rows.append(0 * U0[i]); bs.append(c0[i])
        U = np.array(rows); m = U.shape[0]
        W = rng.integers(-2, 3, size=(d, m)).astype(float)
        for j in range(0, m - 1, 2):
            if rng.random() < .4:
                W[:, j + 1] = -W[:, j] if rng.random() < .5 else W[:, j]
        biased = rng.random() < .6
        out.append(Block(act, W_up=U, W_down=W, b_up=np.array(bs) if biased else None,
                         b_down=rng.integers(-2, 3, size=d).astype(float) if biased else None))
    return out


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 40
    quick = "--quick" in sys.argv
    blocks = hand() + planted(n // 2) + (draws(n) if n else [])
    modes = [("auto",), ("allowed",), ("none",)]
    bad = 0
    total = 0
    with tempfile.TemporaryDirectory() as t:
        t = Path(t)
        for i, b in enumerate(blocks):
            f = t / f"b{i}.npz"
            save(b, f)
            for conv in ("auto", "allowed", "none"):
                for extra in ([], ["--emit"], ["--emit", "--min-width"]):
                    if quick and conv == "auto" and extra:
                        continue
                    P = t / f"b{i}_{conv}_{len(extra)}.npz"
                    argv = ["check", str(f), "--json", "--replacing-biases", conv]
                    if extra:
                        argv += ["--emit", str(P)] + extra[1:]
                    rc, out, err = run(*argv)
                    total += 1
                    tag = f"block {i} ({b.activation}, d={b.d}, m={b.m}, biases={b.b_up is not None}) {conv} {' '.join(extra)}"
                    if rc not in (0,) or "internal error" in err or not out.strip():
                        print(f"CHECK rc={rc}: {tag}: {err.strip()[-200:]}", flush=True)
                        bad += 1
                        continue
                    D = t / f"doc{i}.json"
                    D.write_text(out)
                    rc2, out2, err2 = run("recheck", str(D), str(f))
                    if rc2 != 0:
                        bad += 1
                        print(f"REFUSED rc={rc2}: {tag}: verdict {json.loads(out).get('verdict')}: "
                              f"{(out2 + err2).strip()[-300:]}", flush=True)
                        np.savez(Path("/tmp") / f"ref4_refused_{i}_{conv}_{len(extra)}.npz", **dict(np.load(f)))
    print(f"documents: {total}, not holding or crashing: {bad}")


if __name__ == "__main__":
    main()
