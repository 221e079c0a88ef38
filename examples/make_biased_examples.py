"""Write the example inputs of absorb check's biased relu2 / gated paths (run from the repository root).

  swiglu_biased_absorbable.npz  d = 2, m = 5 swiglu block with biases: units k = 0, 1 come in pairs with
                                gates (a_k, c_k) and (a_k, c_k - 1), value row e_k and outputs -e_k, +e_k,
                                whose flips remove -e_k (e_k . x); the fifth unit is arbitrary.  The pairs
                                form a flip set: absorbable (gated-biased (A))
  swiglu_biased_generic.npz     the same block with one output weight moved by 2^-30: no flip set, and the
                                gate classes are distinct: not absorbable (gated-biased (B))
  relu2_biased_absorbable.npz   d = 2, m = 5 relu2 block with pairs (e_k, 1/4, -e_k), (e_k, -1/4, e_k),
                                which remove -e_k (e_k . x) when flipped, and a fifth unit: absorbable
                                (relu2-biased (A))
  relu2_degenerate.npz          d = 1, m = 4: boundary-cases.md 2 with one nonzero bias (W_down = 0): no
                                flip set of the units, yet absorbable through the class sums
                                (relu2-biased (C): x = ((x + 1)^2 - (x - 1)^2)/4) with
                                --replacing-biases allowed; its bias sits on a unit whose output column is
                                zero, so the default auto asks the bias-free question (not absorbable,
                                homogeneous-impossible; docs/check.md)
"""

from pathlib import Path

import numpy as np

from oracle.core import io as bio
from oracle.core.blocks import Block

OUT = Path(__file__).resolve().parent


def _swiglu(nudge: float = 0.0) -> Block:
    G = np.array([[1.0, 0.5], [1.0, 0.5], [-0.5, 1.0], [-0.5, 1.0], [0.25, -1.0]])
    c = np.array([0.5, -0.5, 1.0, 0.0, 0.75])
    U = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [1.0, 1.0]])
    W = np.array([[-1.0 + nudge, 1.0, 0.0, 0.0, 0.5], [0.0, 0.0, -1.0, 1.0, -0.25]])
    return Block("swiglu", W_up=U, W_down=W, W_gate=G, b_gate=c, b_up=np.array([0.0, 0.0, 0.0, 0.0, 1.0]),
                 b_down=np.array([0.125, -0.5]))


def main() -> None:
    """Create the four examples (dyadic weights, so every file holds exact values)."""
    bio.write_block(_swiglu(), OUT / "swiglu_biased_absorbable.npz")
    bio.write_block(_swiglu(2.0 ** -30), OUT / "swiglu_biased_generic.npz")
    U = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [1.0, -2.0]])
    W = np.array([[-1.0, 1.0, 0.0, 0.0, 0.5], [0.0, 0.0, -1.0, 1.0, 1.0]])
    bio.write_block(Block("relu2", W_up=U, W_down=W, b_up=np.array([0.25, -0.25, 0.25, -0.25, 1.0])),
                    OUT / "relu2_biased_absorbable.npz")
    bio.write_block(Block("relu2", W_up=np.array([[1.0], [2.0], [-1.0], [3.0]]), W_down=np.zeros((1, 4)),
                          b_up=np.array([1.0, 0.0, 0.0, 0.0])), OUT / "relu2_degenerate.npz")


if __name__ == "__main__":
    main()
