"""Floating-point evidence only (not proof): least-squares fits of plain relu stacks to the folded d = 2
residual stack of proofs/informal/open-problem.md (widths (4, 4), two dead layer-2 units), where the
dimension count of depth-dimension is provably silent.

    python experiments/fold_fit.py [starts]

Widths (4, 4) are the open case; widths (6, 6) = m_l + 2d - rank U_l are a control where an exact
plain stack exists (depth-width), to calibrate what a cold start reaches. Seeds: points 0, starts
100 + s. Prints the relative squared error of each start (scipy least_squares, Levenberg-Marquardt).
"""
import numpy as np
from scipy.optimize import least_squares

U1 = np.array([[1, .1], [-1, .1], [.1, 1], [.1, -1]]); W1 = np.array([[1, 3, 0, 0], [0, 0, 1, 3.]])
U2 = np.array([[1, -2/3], [-.5, 1], [-1, -1], [-2, -.5]]); W2 = np.array([[1/5, -1/7, 1/3, 1/6], [1/9, 1/4, -1/2, 1/8]])
rng = np.random.default_rng(0)
X = rng.standard_normal((2, 1500))
def res_stack(X):
    G = X + W1 @ np.maximum(U1 @ X, 0)
    return G + W2 @ np.maximum(U2 @ G, 0)
Y = res_stack(X)
def plain(p, X, w):
    i = 0; Z = X
    for m in w:
        V = p[i:i + 2 * m].reshape(m, 2); i += 2 * m
        Wd = p[i:i + 2 * m].reshape(2, m); i += 2 * m
        Z = Wd @ np.maximum(V @ Z, 0)
    return Z
import sys
starts = int(sys.argv[1]) if len(sys.argv) > 1 else 8
for w in ((4, 4), (6, 6)):
    best = []
    for s in range(starts):
        p0 = np.random.default_rng(100 + s).standard_normal(4 * sum(w))
        out = least_squares(lambda p: (plain(p, X, w) - Y).ravel(), p0, method="lm", max_nfev=4000)
        rel = np.sum(out.fun ** 2) / np.sum(Y ** 2)
        best.append(rel)
        print(w, s, f"{rel:.3e}", flush=True)
    print(w, "best", f"{min(best):.3e}", flush=True)
