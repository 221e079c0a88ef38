"""Referee mutation harness for the claims depth-analytic-generic and generic-weights.

Each mutant is a copy of a source tree (with its compiled Coq files, so Coq is not rebuilt)
with one textual replacement in one oracle file; the audit of the claim is run on the copy
(`absorb audit --quick --claim ID`, through PYTHONPATH so the copy's `oracle` package is used).
A mutant whose audit still PASSES is a planted bug the audit does not see.

usage: python mutate_new.py SRC_TREE CLAIM MUTANT_NAME...   (names from MUTANTS below; 'all')

Results, 2026-12-01, seed 0, --quick (int3 @ 2e9281d for depth-analytic-generic, generic @ 1614f02 for
generic-weights); findings in /work/notes/referee-new.md:
  audit stays GREEN (the planted bug is not seen): dag_only_gelu, da_jacobian_no_suffix,
    da_jacobian_input_not_y, gw_no_inclusion_i, gw_no_inclusion_ii, gw_no_inclusion_iii, gw_no_plants,
    gw_d1_boundary_skipped
  audit goes RED: dag_only_d2, dag_widths_small, dag_depth1, dag_no_limit, dag_limit_wrong_width,
    dag_limit_parallel_rows, dag_limit_only_one_layer_width, dag_d1_allowed_no_guard,
    gw_wrong_rank_witness, gw_wrong_minor, gw_accept_singular_M, gw_witness_pieces_ones,
    gw_collinear_blind, gw_only_d2, gw_no_singular_M, gw_m_le_d
  hangs (unbounded redraw loop at d = 1, killed after 6 min): dag_d1_allowed
The da_jacobian_no_suffix mutant IS caught by tests/test_claim_depth_analytic.py::
test_jacobian_matches_finite_differences (float evidence), which the audit does not run.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

VENV_PY = "/work/wt-refnew/.venv/bin/python"

DAG = "oracle/claims/depth_analytic_generic.py"
# (after these results the Jacobian of depth-analytic moved to oracle/algebra/stacks/analytic.py and
# then its chain rule to chain_rule_rows in oracle/algebra/stacks/rank.py; generic-weights' polynomials,
# witnesses and constructions to oracle/algebra/generic_polys.py, so the gw_ patterns that name them
# need that file)
GW = "oracle/claims/generic_weights.py"

MUTANTS = {
    # ---- depth-analytic-generic
    "dag_only_d2": (DAG, "d = draw(st.integers(2, MAX_D))", "d = draw(st.integers(2, 2))"),
    "dag_d1_allowed": (DAG, "d = draw(st.integers(2, MAX_D))", "d = draw(st.integers(1, MAX_D))"),
    "dag_d1_allowed_no_guard": [(DAG, "d = draw(st.integers(2, MAX_D))", "d = draw(st.integers(1, MAX_D))"),
                                (DAG, "ok = bool(cert[\"certified\"]) and d >= 2 and", "ok = bool(cert[\"certified\"]) and"),
                                (DAG, "if not isinstance(d, int) or d < 2 or", "if not isinstance(d, int) or"),
                                (DAG, "            if non_parallel(U):\n                break\n        out.append",
                                 "            if d == 1 or non_parallel(U):\n                break\n        out.append"),
                                (DAG, "        if non_parallel(U):\n            break\n    W = [[",
                                 "        if d == 1 or non_parallel(U):\n            break\n    W = [["),
                                (DAG, "    if len(U) != m or len(W) != d or not non_parallel(U):",
                                 "    if len(U) != m or len(W) != d or (d > 1 and not non_parallel(U)):")],
    "dag_depth1": (DAG, "for _ in range(draw(st.integers(2, 3)))]", "for _ in range(draw(st.integers(1, 3)))]"),
    "dag_no_limit": (DAG, "if an.param_count(d, [m]) <= LIMIT_MAX_PARAMS:\n        limit = limit_certificate(act, d, m, inst.seed)",
                     "if False:\n        limit = limit_certificate(act, d, m, inst.seed)"),
    "dag_limit_wrong_width": (DAG, "limit = limit_certificate(act, d, m, inst.seed)",
                              "limit = limit_certificate(act, d, max(widths), inst.seed)"),
    "dag_limit_parallel_rows": (DAG, "        if non_parallel(U):\n            break\n    W = [[",
                                "        U[-1] = [2 * v for v in U[0]] if len(U) > 1 else U[-1]\n        break\n    W = [["),
    "dag_limit_only_one_layer_width": (DAG, "m = sum(widths)\n    limit", "m = widths[0]\n    limit"),
    "dag_only_gelu": (DAG, "act = draw(st.sampled_from(an.ACTIVATIONS))", "act = 'gelu'"),
    "dag_widths_small": (DAG, "widths = [draw(st.integers(1, MAX_WIDTH))", "widths = [draw(st.integers(4, 4))"),
    # a wrong Jacobian formula in the shared certificate code: drop S_l (treat later pieces as I)
    "da_jacobian_no_suffix": ("oracle/algebra/stacks/rank.py", "        suffix[l] = S\n",
                              "        suffix[l] = [[(one if a == b else zero) for b in range(d)] for a in range(d)]\n"),
    "da_jacobian_input_not_y": ("oracle/algebra/stacks/rank.py", "row.extend(g * yl[c] for c in range(d))",
                                "row.extend(g * x[c] for c in range(d))"),
    # ---- generic-weights
    "gw_no_inclusion_iii": (GW, "            if p[\"fails\"] and Fraction(p[\"at_weights\"]) != 0:",
                            "            if False:"),
    "gw_no_inclusion_ii": (GW, "        if singular and v != 0:", "        if False:"),
    "gw_no_inclusion_i": (GW, "    if rk < r and at_w != 0:", "    if False:"),
    "gw_wrong_rank_witness": (GW, "return [[Q(1) if l == j else Q(0) for j in range(d)] for l in range(m)]",
                              "return [[Q(1) for j in range(d)] for l in range(m)]"),
    "gw_wrong_minor": (GW, "return W_up[l][0] * W_up[k][1] - W_up[l][1] * W_up[k][0]",
                       "return W_up[l][0] * W_up[k][0] - W_up[l][0] * W_up[k][0] + W_up[l][0] * W_up[k][1]"),
    "gw_accept_singular_M": (GW, "invertible_M = det(M) != 0", "invertible_M = True"),
    "gw_no_singular_M": (GW, "kind = draw(st.sampled_from([\"identity\", \"invertible\", \"invertible\", \"singular\"]))",
                         "kind = draw(st.sampled_from([\"identity\", \"invertible\"]))"),
    "gw_only_d2": (GW, "d = draw(st.integers(1, 3))", "d = draw(st.integers(2, 2))"),
    "gw_no_plants": (GW, "plant = draw(st.sampled_from([\"none\", \"none\", \"collinear\", \"singular_piece\"]))",
                     "plant = 'none'"),
    "gw_collinear_blind": (GW, "            if keys[l] is not None and keys[l] == keys[k]]",
                           "            if keys[l] is not None and keys[l] == keys[k] and False]"),
    "gw_witness_pieces_ones": (GW, "    return _zeros(d, m)\n", "    return [[Q(1)] * m for _ in range(d)]\n"),
    "gw_d1_boundary_skipped": (GW, "        if m >= 2 and nondegenerate(W_up, W_down):", "        if False:"),
    "gw_m_le_d": (GW, "m = draw(st.integers(1, min(MAX_M, d + 2)))", "m = draw(st.integers(1, d))"),
}


def apply(tree: str, name: str) -> None:
    edits = MUTANTS[name]
    for path, old, new in (edits if isinstance(edits, list) else [edits]):
        f = os.path.join(tree, path)
        src = open(f).read()
        if src.count(old) != 1:
            raise SystemExit(f"{name}: pattern found {src.count(old)} times in {path}")
        open(f, "w").write(src.replace(old, new))


def run(src_tree: str, claim: str, name: str) -> str:
    tmp = tempfile.mkdtemp(prefix=f"refnew-{name}-")
    tree = os.path.join(tmp, "t")
    shutil.copytree(src_tree, tree, ignore=shutil.ignore_patterns(".venv", ".git", ".hypothesis"),
                    symlinks=True)
    try:
        apply(tree, name)
        env = dict(os.environ, PYTHONPATH=tree)
        p = subprocess.run([VENV_PY, "-c", "import sys; from oracle.cli import main; "
                            f"sys.argv=['absorb','audit','--quick','--claim','{claim}']; sys.exit(main())"],
                           cwd=tree, env=env, capture_output=True, text=True, timeout=900)
        out = p.stdout + p.stderr
        verdict = "PASSED" if "audit PASSED" in out else ("FAILED" if "FAIL" in out else f"rc={p.returncode}")
        lines = [l for l in out.splitlines() if "FAIL" in l or "fail" in l or "not reached" in l or "error" in l.lower()]
        return f"{name}: audit {verdict}  | " + " / ".join(lines[:4])[:600]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    src, claim, *names = sys.argv[1:]
    if names == ["all"]:
        pre = ("dag_", "da_") if claim == "depth-analytic-generic" else ("gw_",)
        names = [n for n in MUTANTS if n.startswith(pre)]
    for n in names:
        print(run(src, claim, n), flush=True)
