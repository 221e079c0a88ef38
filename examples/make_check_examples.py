"""Write the example inputs of absorb check's relu-complete / relu-limit / stack paths (run from the
repository root).

  relu_degenerate.npz        d = 2, m = 4 relu block with two parallel rows (u and 2u) and a zero
                             column of W_down: no index set, yet absorbable at m = 4 (relu-complete:
                             m* = 4, the replacing block is built from the kink classes)
  gelu_biased.npz            d = 3, m = 6 gelu block with biases and W_down[:,S] W_up[S,:] = -I for
                             S = {0, 1, 2}: absorbable (relu-limit; b_down corrected by W_S b_S)
  relu_stack_absorbable.npz  d = 2, two relu blocks of width 3, each with an index set: the stack is
                             a plain stack of the same widths (the flips, block by block)
"""

from pathlib import Path

import numpy as np

from oracle.core import io as bio
from oracle.core.blocks import Block, Stack
from oracle.core.stackfiles import write_stack

OUT = Path(__file__).resolve().parent


def main() -> None:
    """Create the three examples (dyadic weights, so every file holds exact values)."""
    bio.write_block(Block("relu", W_up=np.array([[2.0, -1.0], [4.0, -2.0], [1.0, -1.0], [0.0, 2.0]]),
                          W_down=np.array([[0.75, 0.75, 1.0, 0.0], [0.75, 0.0, 0.5, 0.0]])),
                    OUT / "relu_degenerate.npz")
    U = np.vstack([np.eye(3), [[1.0, -2.0, 0.5], [0.0, 1.0, 1.0], [-1.0, 0.25, 2.0]]])
    W = np.hstack([-np.eye(3), [[0.5, -1.0, 0.25], [1.0, 0.0, -0.5], [-0.25, 0.75, 1.0]]])
    bio.write_block(Block("gelu", W_up=U, W_down=W, b_up=np.array([0.5, -1.0, 0.25, 1.5, -0.75, 0.0]),
                          b_down=np.array([0.125, -0.5, 1.0])), OUT / "gelu_biased.npz")
    blocks = []
    for r in ([[1.0, 1.0]], [[0.5, -1.0]]):
        blocks.append(Block("relu", W_up=np.vstack([np.eye(2), r]),
                            W_down=np.hstack([-np.eye(2), [[0.25], [-0.5]]])))
    write_stack(Stack(blocks), OUT / "relu_stack_absorbable.npz")


if __name__ == "__main__":
    main()
