"""Write the example stack files of the depth claims (run from the repository root).

  relu_stack_near_identity.npz  d = 2, widths (3, 3), |W_l| |U_l| < 1: not a plain stack of the
                                same widths (depth-d2, exact)
  relu_stack_narrow.npz         d = 3, widths (4, 3), near identity: not a plain stack of the same
                                widths (depth-narrow part (c), exact)
  relu_stack_generic.npz        d = 2, widths (3, 3), larger weights: undecided, with the
                                depth-dimension rank certificate and the depth-width construction
  gelu_stack_generic.npz        gelu, d = 3, widths (4, 5): undecided, with the depth-analytic rank
                                certificate (almost every gelu stack of these widths is no plain
                                stack of the same widths; nothing about this one)
  relu_stack_d1_referee.npz     d = 1, widths (2, 1), the referee's example of issue 18: F = 4|x| is
                                the plain stack relu o (4 relu(x) + 4 relu(-x)) (depth-d1, exact)
  relu_stack_d3_near_identity.npz  d = 3, widths (4, 4), |W_l| |U_l| < 1: not a plain stack of the
                                same widths (depth-near-identity, exact)
"""

from pathlib import Path

import numpy as np

from oracle.core.blocks import Block, Stack
from oracle.core.stackfiles import write_stack

OUT = Path(__file__).resolve().parent


def _stack(d: int, widths: list[int], scale: float, seed: int, act: str = "relu") -> Stack:
    """Dyadic weights: W_up entries k/8, W_down entries k/256 scaled."""
    rng = np.random.default_rng(seed)
    return Stack([Block(act, W_up=np.round(rng.standard_normal((m, d)) * 8) / 8,
                        W_down=np.round(rng.standard_normal((d, m)) * 256 * scale) / 256) for m in widths])


def main() -> None:
    """Create the example stacks."""
    write_stack(_stack(2, [3, 3], 0.05, 3), OUT / "relu_stack_near_identity.npz")
    write_stack(_stack(3, [4, 3], 0.02, 3), OUT / "relu_stack_narrow.npz")
    write_stack(_stack(2, [3, 3], 1.0, 3), OUT / "relu_stack_generic.npz")
    write_stack(_stack(3, [4, 5], 0.5, 3, "gelu"), OUT / "gelu_stack_generic.npz")
    write_stack(Stack([Block("relu", W_up=np.array([[1.0], [-1.0]]), W_down=np.array([[1.0, 3.0]])),
                       Block("relu", W_up=np.array([[1.0]]), W_down=np.array([[1.0]]))]),
                OUT / "relu_stack_d1_referee.npz")
    U1 = np.array([[8, -2, 7], [2, 4, -4], [2, 5, 7], [6, 8, -6]]) / 8
    W1 = np.array([[5, -1, 3, -4], [-8, -7, 8, 7], [-3, -1, -4, -6]]) / 128
    U2 = np.array([[6, 3, -7], [-5, 1, 7], [8, -5, 2], [-8, -6, -5]]) / 8
    W2 = np.array([[-1, -3, 4, -1], [-3, 7, 2, 3], [4, -3, 7, -8]]) / 128
    write_stack(Stack([Block("relu", W_up=U1, W_down=W1), Block("relu", W_up=U2, W_down=W2)]),
                OUT / "relu_stack_d3_near_identity.npz")


if __name__ == "__main__":
    main()
