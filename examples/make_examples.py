"""Write the small example block files used in the README (run from the repository root)."""

from pathlib import Path

import numpy as np

from oracle.core.blocks import Block
from oracle.core.io import write_block

OUT = Path(__file__).resolve().parent


def main() -> None:
    """Create three residual blocks: one absorbable, one not, one outside the theorems."""
    # relu, d = 2, m = 3. Units 0 and 1 satisfy W_down[:, S] W_up[S, :] = -I with S = {0, 1};
    # unit 2 is an ordinary extra unit.
    W_up = np.array([[1.0, 1.0], [0.0, 1.0], [2.0, -1.0]])
    W_down = np.array([[-1.0, 1.0, 0.5], [0.0, -1.0, 0.25]])
    write_block(Block("relu", W_up=W_up, W_down=W_down), OUT / "relu_absorbable.npz")

    # gelu, d = 4, m = 16, random weights: no index set exists.
    rng = np.random.default_rng(7)
    write_block(Block("gelu", W_up=np.round(rng.normal(size=(16, 4)) * 64) / 64,
                      W_down=np.round(rng.normal(size=(4, 16)) * 64) / 64), OUT / "gelu_random.npz")

    # swiglu, d = 3, m = 8: not absorbable by the gated theorem.
    write_block(Block("swiglu", W_up=np.round(rng.normal(size=(8, 3)) * 16) / 16,
                      W_gate=np.round(rng.normal(size=(8, 3)) * 16) / 16,
                      W_down=np.round(rng.normal(size=(3, 8)) * 16) / 16), OUT / "swiglu_random.npz")


if __name__ == "__main__":
    main()
