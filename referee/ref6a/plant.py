"""Referee ref6a: plant one bug at a time in the oracle of depth-analytic-d1 and see whether the
audit notices.  Nothing under oracle/ is edited: each bug is a monkeypatch applied in this process
(or a source edit of one function, exec'd in its own module, whose diff is printed).

Usage (from the worktree root):
  .venv/bin/python referee/ref6a/plant.py list
  .venv/bin/python referee/ref6a/plant.py fast BUG [N]      # the audit's oracle face (audit.oracle_face,
                                                            # same registry samples, seed 0, N instances,
                                                            # corners first) + the claim's 3 boundary instances
  .venv/bin/python referee/ref6a/plant.py cli BUG -- audit --quick --claim depth-analytic-d1
                                                            # the real `absorb audit` with the bug planted
"""

from __future__ import annotations

import difflib
import inspect
import json
import random
import sys
import textwrap
import time
from fractions import Fraction

from flint import arb, arb_series

import oracle.algebra.stacks.analytic as an
import oracle.claims.depth_analytic_d1 as d1
from oracle.core import activations as acts

ORIG = {}


def _edit(module, fname: str, old: str, new: str) -> str:
    """Replace text in one function's source and exec it in its module (a scratch copy)."""
    fn = getattr(module, fname)
    src = textwrap.dedent(inspect.getsource(fn))
    if old not in src:
        raise SystemExit(f"edit of {fname}: text not found: {old!r}")
    new_src = src.replace(old, new, 1)
    ns = module.__dict__
    exec(compile(new_src, f"<planted {fname}>", "exec"), ns)
    new_fn = ns[fname]
    # keep the oracle_check metadata if the function carried it
    if hasattr(fn, "check_info"):
        new_fn.check_info = fn.check_info
    return "".join(difflib.unified_diff(src.splitlines(True), new_src.splitlines(True),
                                        f"a/{module.__name__}.{fname}", f"b/{module.__name__}.{fname}"))


# ---------------------------------------------------------------- activation replacements

def _slopes_swap(target: str, make):
    orig = an._slopes

    def patched(name):
        s = orig(name)
        return make(s) if name == target or target == "*" else s
    an._slopes = patched


def _relu(_s):
    def ball(z):
        if z > 0:
            return z, arb(1)
        if z < 0:
            return arb(0), arb(0)
        return arb(0).union(z), arb("0.5 +/- 0.5")

    def f64(z):
        return (max(z, 0.0), 1.0 if z > 0 else 0.0)

    def series(z):
        c0 = z.coeffs()[0]
        return z if c0 > 0 else z * 0
    return acts.Slopes(ball, f64, series)


def _odd_part(_s):
    return acts.Slopes(lambda z: (z / 2, arb(1) / 2), lambda z: (z / 2, 0.5), lambda z: z * arb(0.5))


def _even_part(s):
    def ball(z):
        v, d = s.ball(z)
        return v - z / 2, d - arb(1) / 2

    def f64(z):
        v, d = s.f64(z)
        return v - z / 2, d - 0.5
    return acts.Slopes(ball, f64, lambda z: s.series(z) - z * arb(0.5))


def _plus_half_z(s):
    def ball(z):
        v, d = s.ball(z)
        return v + z / 2, d + arb(1) / 2

    def f64(z):
        v, d = s.f64(z)
        return v + z / 2, d + 0.5
    return acts.Slopes(ball, f64, lambda z: s.series(z) + z * arb(0.5))


def _other_member(name):
    def make(_s):
        return acts.CATALOG[name].slopes
    return make


# ---------------------------------------------------------------- the bugs

def rank_lie_full():
    """the determinant routine says 1 for every minor (rank always full)"""
    orig = an.jacobian_and_minor_det
    an.jacobian_and_minor_det = lambda *a: (orig(*a)[0], arb(1))


def rank_lie_deficient():
    """the determinant routine says [0 +/- 1] for every minor (never full)"""
    orig = an.jacobian_and_minor_det
    an.jacobian_and_minor_det = lambda *a: (orig(*a)[0], arb("0 +/- 1"))


def rank_lie_full_when_unsure():
    """honest determinant, but a ball containing 0 is reported as 1"""
    orig = an.jacobian_and_minor_det

    def f(*a):
        J, det = orig(*a)
        return J, (arb(1) if det.contains(0) else det)
    an.jacobian_and_minor_det = f


def rank_lie_deficient_large_N():
    """honest, except that every minor with N >= 24 is reported as [0 +/- 1]"""
    orig = an.jacobian_and_minor_det

    def f(*a):
        J, det = orig(*a)
        return J, (arb("0 +/- 1") if J.ncols() >= 24 else det)
    an.jacobian_and_minor_det = f


def rank_lie_first_rows():
    """the minor is taken on the first N rows, not on the chosen ones"""
    orig = an.jacobian_and_minor_det

    def f(name, layers, points, rows, prec):
        N = 2 * sum(len(U) for U, _ in layers) * len(layers[0][1])
        return orig(name, layers, points, list(range(N)), prec)
    an.jacobian_and_minor_det = f


def recheck_rank_full_true():
    """analytic.rank_full (the d1 re-check's rank routine) always says True"""
    an.rank_full = lambda cert: True


def recheck_rank_full_trusts_flag():
    """analytic.rank_full trusts the stored 'certified' flag instead of recomputing"""
    an.rank_full = lambda cert: cert.get("certified") is True


def recheck_an_recheck_true():
    """analytic.recheck (used for the drawn stack at depth >= 2) always says True"""
    an.recheck = lambda cert: True


def _rows_patch(fn):
    orig = an.chain_rule_rows

    def f(layers, x, slopes, zero, one):
        rows = orig(layers, x, slopes, zero, one)
        for r in rows:
            fn(r, zero)
        return rows
    an.chain_rule_rows = f


def jac_drop_column():
    """the Jacobian's first column (u_1) is zero"""
    def f(r, zero):
        r[0] = zero
    _rows_patch(f)


def jac_drop_last_column():
    """the Jacobian's last column (the last w) is zero"""
    def f(r, zero):
        r[-1] = zero
    _rows_patch(f)


def jac_dup_column():
    """the Jacobian's second column is a copy of the first"""
    def f(r, zero):
        if len(r) > 1:
            r[1] = r[0]
    _rows_patch(f)


def jac_scaled_column():
    """the Jacobian's first column is doubled (rank unchanged: only the derivative check can see it)"""
    def f(r, zero):
        r[0] = r[0] * 2
    _rows_patch(f)


def points_opposite_main():
    """points of the stack / limit / eps stack (count >= 12): x_1 = -x_0 and x_3 = -x_2"""
    orig = d1.distinct_abs_points

    def f(count, rng):
        pts = orig(count, rng)
        if count >= 12:
            pts[1] = [-pts[0][0]]
            pts[3] = [-pts[2][0]]
        return pts
    d1.distinct_abs_points = f


def points_opposite_all():
    """every point list: x_{2k+1} = -x_{2k} (near-miss points included)"""
    orig = d1.distinct_abs_points

    def f(count, rng):
        pts = orig(count, rng)
        for k in range(1, count, 2):
            pts[k] = [-pts[k - 1][0]]
        return pts
    d1.distinct_abs_points = f


def points_equal_main():
    """points of the stack / limit / eps stack (count >= 12): x_1 = x_0 (a repeated point)"""
    orig = d1.distinct_abs_points

    def f(count, rng):
        pts = orig(count, rng)
        if count >= 12:
            pts[1] = list(pts[0])
        return pts
    d1.distinct_abs_points = f


def _block_patch(fn, min_m):
    orig = d1.lemma_block

    def f(m, rng):
        U, W = orig(m, rng)
        if m >= min_m:
            fn(U, W)
        return U, W
    d1.lemma_block = f


def limit_opposite_pair():
    """the limit block (m >= 5) has u_2 = -u_1 (equal moduli)"""
    _block_patch(lambda U, W: U.__setitem__(1, [-U[0][0]]), 5)


def limit_equal_pair():
    """the limit block (m >= 5) has u_2 = u_1"""
    _block_patch(lambda U, W: U.__setitem__(1, [U[0][0]]), 5)


def limit_opposite_pair_all():
    """every lemma block with m >= 2 (limit and near-miss base) has u_2 = -u_1"""
    _block_patch(lambda U, W: U.__setitem__(1, [-U[0][0]]), 2)


def limit_zero_output():
    """the limit block (m >= 5) has w_1 = 0"""
    _block_patch(lambda U, W: W[0].__setitem__(0, Fraction(0)), 5)


def limit_opposite_across_layers():
    """the limit block's last unit is the opposite of its first (m >= 2): after the split, equal
    moduli in two different layers"""
    _block_patch(lambda U, W: U.__setitem__(len(U) - 1, [-U[0][0]]), 2)


def moduli_test_off():
    """distinct_moduli always True (the exact test of the lemma's hypothesis)"""
    d1.distinct_moduli = lambda U: True


def precision_proof_128():
    """PROOF_PRECISIONS cut to (128,)"""
    d1.PROOF_PRECISIONS = (128,)


def precision_jacobian_64():
    """jacobian_ball computes at 64 bits whatever precision it is asked for"""
    orig = an.jacobian_ball
    an.jacobian_ball = lambda name, layers, points, prec: orig(name, layers, points, 64)


def precision_dependency_8():
    """the near-miss dependency balls are computed at 8 bits"""
    orig = d1.dependency_balls
    d1.dependency_balls = lambda kind, act, block, pts, prec=256: orig(kind, act, block, pts, 8)


def act_relu_all():
    """every covered activation's slopes replaced by relu's"""
    _slopes_swap("*", _relu)


def act_odd_part_all():
    """every covered activation replaced by its odd part z/2"""
    _slopes_swap("*", _odd_part)


def act_even_part_silu():
    """silu replaced by its even part silu(z) - z/2 (ball, float and series forms alike)"""
    _slopes_swap("silu", _even_part)


def act_even_part_gelu():
    """gelu replaced by its even part gelu(z) - z/2"""
    _slopes_swap("gelu", _even_part)


def act_even_part_all():
    """every covered activation replaced by its even part s(z) - z/2"""
    _slopes_swap("*", _even_part)


def act_plus_half_z_silu():
    """silu replaced by silu(z) + z/2 (its odd part becomes z, still linear)"""
    _slopes_swap("silu", _plus_half_z)


def act_silu_is_gelu():
    """silu's slopes replaced by gelu's"""
    _slopes_swap("silu", _other_member("gelu"))


def act_check_always_gelu():
    """the check certifies gelu whatever activation was drawn (source edit of d1_certificate)"""
    return _edit(d1, "d1_certificate", "act, widths = inst.activation, list(inst.widths)",
                 "act, widths = 'gelu', list(inst.widths)")


def cert_eps_other_block():
    """the eps stack is built from another lemma block than the certified limit (source edit)"""
    return _edit(d1, "d1_certificate", "split(block, widths, EPS)",
                 "split(lemma_block(m, random.Random(12345)), widths, EPS)")


def cert_eps_is_one():
    """EPS = 1 (the 'eps stack' is then just the limit's units at full output weight)"""
    d1.EPS = Fraction(1)


def cert_stack_shrunk():
    """the check certifies the instance's widths shrunk to sum <= 4, not the drawn widths (source edit)"""
    return _edit(d1, "d1_certificate", "act, widths = inst.activation, list(inst.widths)",
                 "act, widths = inst.activation, shrink(list(inst.widths), 4)")


def cert_stack_first_layer():
    """the check certifies only the first layer of the drawn widths (depth 1 always; source edit)"""
    return _edit(d1, "d1_certificate", "act, widths = inst.activation, list(inst.widths)",
                 "act, widths = inst.activation, list(inst.widths)[:1]")


def cert_stack_other_seed():
    """the drawn stack comes from another seed than the instance's (source edit)"""
    return _edit(d1, "d1_certificate", 'rng = _rng("stack", inst)',
                 'rng = random.Random(0)')


def near_moved_far():
    """the 'moved' near misses are moved by a factor 2, not 1 + 2^-k"""
    return _edit(d1, "moved_block", "(1 + Q(1, 2 ** j))", "(1 + Q(1, 2 ** (j - k)))")


def near_moved_not_moved():
    """the 'moved' near misses are not moved at all"""
    return _edit(d1, "moved_block", "        U[1] = [sign * U[0][0] * (1 + Q(1, 2 ** j))]\n        if distinct_moduli(U):",
                 "        U[1] = [sign * U[0][0]]\n        if True:")


def near_relation_wrong():
    """the opposite-pair relation with coefficient 2 u / w_1 instead of u / w_1"""
    return _edit(d1, "dependency_balls", "(u / w1) * c", "(2 * u / w1) * c")


def near_ok_ignores_dependent():
    """near_miss_ok looks only at the moved pairs"""
    return _edit(d1, "near_miss_ok", 'all(f["relation_contains_0"] and not f["certified"] for f in dep.values())',
                 "True")


def near_base_other():
    """the near-miss facts are computed on another base block than the one recorded (source edit)"""
    return _edit(d1, "d1_certificate", "near = near_miss_facts(act, base, inst.delta, near_pts)",
                 "near = near_miss_facts(act, lemma_block(k, random.Random(7)), inst.delta, near_pts)")


def gelu_tanh_a_float():
    """gelu_tanh's a = 0.044715 enters the balls as the nearest double, radius 0 (not enclosed)"""
    import oracle.core.activations as A
    A._GELU_TANH_Q = arb(0.044715)  # a point ball at the float, which is not 44715/10^6


BUGS = {f.__name__: f for f in [
    rank_lie_full, rank_lie_deficient, rank_lie_full_when_unsure, rank_lie_deficient_large_N,
    rank_lie_first_rows, recheck_rank_full_true, recheck_rank_full_trusts_flag, recheck_an_recheck_true,
    jac_drop_column, jac_drop_last_column, jac_dup_column, jac_scaled_column,
    points_opposite_main, points_opposite_all, points_equal_main,
    limit_opposite_pair, limit_equal_pair, limit_opposite_pair_all, limit_zero_output,
    limit_opposite_across_layers, moduli_test_off,
    precision_proof_128, precision_jacobian_64, precision_dependency_8,
    act_relu_all, act_odd_part_all, act_even_part_silu, act_even_part_gelu, act_even_part_all,
    act_plus_half_z_silu, act_silu_is_gelu, act_check_always_gelu,
    cert_eps_other_block, cert_eps_is_one, cert_stack_shrunk, cert_stack_first_layer, cert_stack_other_seed,
    near_moved_far, near_moved_not_moved, near_relation_wrong, near_ok_ignores_dependent, near_base_other,
    gelu_tanh_a_float]}


def plant(name: str) -> str:
    diff = BUGS[name]() or ""
    return diff


def fast(name: str, n: int) -> dict:
    from oracle.commands import audit
    from oracle.formal import consistency
    diff = plant(name) if name != "none" else ""
    claim = next(c for c in consistency.load_registry() if c["id"] == d1.CLAIM)
    t = time.perf_counter()
    face = audit.oracle_face(claim, n, 0, lambda s: None)
    known = [c["id"] for c in consistency.load_registry()]
    cexs, problem = audit._counterexamples({d1.CLAIM}, known)
    bad_cx = [c["name"] for c in cexs if not c["verified"]]
    names = [c["name"] for c in cexs]
    caught = face["status"] != "pass" or bool(bad_cx) or bool(problem)
    out = {"bug": name, "doc": (BUGS[name].__doc__ if name != "none" else "no bug"), "n": n,
           "caught": caught, "oracle": face["status"],
           "failure": face.get("failure"), "failing": face.get("failing"),
           "examples": face.get("examples"), "instances": face.get("instances"),
           "counterexamples_run": names, "counterexamples_not_verified": bad_cx, "seconds": round(time.perf_counter() - t, 1),
           "diff": diff}
    return out


def main(argv: list[str]) -> int:
    if not argv or argv[0] == "list":
        for k, f in BUGS.items():
            print(f"{k:32s} {f.__doc__}")
        return 0
    if argv[0] == "fast":
        n = int(argv[2]) if len(argv) > 2 else 20
        res = fast(argv[1], n)
        print(json.dumps(res, default=str))
        return 0
    if argv[0] == "cli":
        name = argv[1]
        rest = argv[argv.index("--") + 1:]
        diff = plant(name)
        print(f"[plant] {name}: {BUGS[name].__doc__}", file=sys.stderr)
        if diff:
            print(diff, file=sys.stderr)
        from oracle.cli import main as absorb
        return absorb(rest)
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
