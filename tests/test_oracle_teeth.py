"""Every cross-check and corner instance added to the claims' oracle checks can fail: each test
plants, in this process, the bug that check is there to catch (a monkeypatched function of the
decision or construction code) and asserts that the claim's quick-audit oracle run -- the same
run `absorb audit --quick --claim ID` makes (20 instances from seed 0, corner instances first,
coverage judged) -- FAILS.  A last test asserts that the unpatched runs pass.

Claims attacked: depth-d1, relu2-biased, gated-biased, relu-complete, absorption-width,
generic-weights, depth-analytic-generic, depth-near-identity.
"""

from fractions import Fraction

import pytest

from oracle.algebra import flips
from oracle.algebra.stacks import d1 as d1mod
from oracle.claims import depth_d1, gated_biased
from oracle.commands import audit
from oracle.formal import consistency

Q = Fraction


def _quick(claim_id: str) -> dict:
    """The oracle face of the quick audit of one claim (instances, seed and coverage as `--quick`)."""
    entry = next(c for c in consistency.load_registry() if c["id"] == claim_id)
    return audit.oracle_face(entry, audit.QUICK_INSTANCES, audit.DEFAULT_SEED, progress=lambda *a, **k: None)


def _fails(claim_id: str, corner: bool = False) -> str:
    """The failure of the planted bug's quick run; with corner=True it must be a corner instance
    (phase "example") that fails, i.e. the corner list is what catches the bug."""
    out = _quick(claim_id)
    assert out["status"] == "FAILED", f"{claim_id}: the planted bug survived the quick audit"
    if corner:
        assert out["failing"]["phase"] == "example", out["failing"]
    return out.get("failure") or ""


def _patch(monkeypatch, name: str, fn, *modules) -> None:
    for mod in modules:
        monkeypatch.setattr(mod, name, fn)


# ---------------------------------------------------------------- depth-d1

def test_d1_class_table_catches_a_late_width_one_missed(monkeypatch):
    # only the second width is looked at: (2, 2, 1) becomes "all"; the brute force never enumerates
    # that tuple (too many weights), the class table over every tuple does
    def wrong(widths):
        if widths[0] == 1:
            return "axes"
        return "closed_quadrants" if any(w == 1 for w in widths[1:2]) else "all"
    _patch(monkeypatch, "d1_class", wrong, d1mod, depth_d1)
    assert "enumeration of sign pairs" in _fails("depth-d1")


def test_d1_corner_pair_on_negative_axis_catches_wrong_sign_of_later_layers(monkeypatch):
    def wrong(widths, a, b):
        # d1_plain_stack with the sign of the later layers decided by `or` instead of `and`
        a, b = Q(a), Q(b)
        if not d1mod.in_class(d1mod.d1_class(widths), a, b):
            return None
        if widths[0] == 1:
            first = [(Q(1), a)] if b == 0 else [(Q(-1), b)]
        else:
            first = [(Q(1), a), (Q(-1), b)]
        s = Q(1) if (a >= 0 or b >= 0) else Q(-1)
        out = [d1mod._layer(widths[0], first)]
        for m in widths[1:]:
            out.append(d1mod._layer(m, [(s, s)] if m == 1 else [(Q(1), Q(1)), (Q(-1), Q(-1))]))
        return out
    _patch(monkeypatch, "d1_plain_stack", wrong, d1mod)
    _fails("depth-d1", corner=True)


def test_d1_zero_skip_stack_catches_a_wrong_biased_negative_verdict(monkeypatch):
    def wrong(blocks, widths):
        F = d1mod.pl_stack(blocks, residual=True)
        out = {"plain_widths": list(widths), "knots": [str(k) for k in F.knots],
               "slopes": [str(s) for s in d1mod.pl_slopes(F)], "verdict": "undecided"}
        if widths[0] == 1 and F.left != 0:   # only the left end looked at
            out.update(verdict="not_absorbable", reason="first width 1")
        return out
    _patch(monkeypatch, "decide_d1_biased", wrong, d1mod, depth_d1)
    assert "all skips are 0" in _fails("depth-d1")


def test_d1_direct_evaluation_catches_a_pl_map_without_b_down(monkeypatch):
    real = d1mod.pl_stack

    def wrong(blocks, residual):
        return real([{k: v for k, v in b.items() if k != "b_down"} for b in blocks], residual)
    _patch(monkeypatch, "pl_stack", wrong, d1mod, depth_d1)
    assert "direct evaluation" in _fails("depth-d1")


def test_d1_sign_pairs_catch_a_wrong_negative_verdict_for_wide_plain_widths(monkeypatch):
    real = d1mod.decide_d1

    def wrong(layers, skips, plain_widths=None):
        out = real(layers, skips, plain_widths)
        if out["absorbable"] and sum(out["plain_widths"]) > 3:   # beyond the brute force
            out = {k: v for k, v in out.items() if k not in ("plain", "identity_at_pm1")}
            out["absorbable"] = False
        return out
    _patch(monkeypatch, "decide_d1", wrong, d1mod, depth_d1)
    assert "enumerated sign pairs" in _fails("depth-d1")


# ---------------------------------------------------------------- relu2-biased

def test_relu2_many_classes_corner_catches_a_wrong_d1_closed_form(monkeypatch):
    import inspect
    src = inspect.getsource(flips.relu2_d1_plan)
    old = "b2 = (p1 * l0 - a0 * q1) / det"
    assert src.count(old) == 1
    ns: dict = {}
    exec(src.replace(old, "b2 = (p1 * l0 + a0 * q1) / det"), vars(flips), ns)
    _patch(monkeypatch, "relu2_d1_plan", ns["relu2_d1_plan"], flips)
    _fails("relu2-biased", corner=True)


def test_relu2_one_class_corner_catches_a_square_without_flipping_the_class(monkeypatch):
    real = flips.relu2_d1_plan

    def wrong(cl, r):
        plan = real(cl, r)
        if plan is not None and plan.E and plan.squares:
            plan.E = []
        return plan
    _patch(monkeypatch, "relu2_d1_plan", wrong, flips)
    _fails("relu2-biased", corner=True)


# ---------------------------------------------------------------- gated-biased

def test_gated_planted_corners_catch_glu_outputs_not_negated(monkeypatch):
    def wrong(gate, G, c, W, bd, S, c_S):
        G2 = [[-v for v in r] if i in S else list(r) for i, r in enumerate(G)]
        c2 = [-v if i in S else v for i, v in enumerate(c)]
        return G2, c2, [list(r) for r in W], [x + y for x, y in zip(bd, c_S)]
    _patch(monkeypatch, "flipped", wrong, gated_biased)
    _fails("gated-biased", corner=True)


def test_gated_zero_value_corner_catches_nondegeneracy_blind_to_value_maps(monkeypatch):
    real = flips.flip_nondegeneracy

    def wrong(fd, activation):
        out = real(fd, activation)
        # a unit whose only defect is a zero value map is no longer reported
        value_zero = [i for i in out["zero_units"] if any(v != 0 for v in fd.col(i))]
        left = [i for i in out["zero_units"] if i not in value_zero]
        return {**out, "zero_units": left,
                "nondegenerate": not out["zero_rows"] and not left and not out["repeated_classes"]}
    _patch(monkeypatch, "flip_nondegeneracy", wrong, flips)
    assert "check failed" in _fails("gated-biased", corner=True)


def test_gated_scaled_class_corners_catch_glu_classes_as_lines(monkeypatch):
    real = flips.class_key

    def wrong(fd, i, activation):
        return real(fd, i, "reglu" if activation == "glu" else activation)
    _patch(monkeypatch, "class_key", wrong, flips)
    _fails("gated-biased", corner=True)


# ---------------------------------------------------------------- the unpatched runs pass

@pytest.mark.parametrize("claim_id,corners", [("depth-d1", 13), ("relu2-biased", 3), ("gated-biased", 14),
                                              ("relu-complete", 5), ("absorption-width", 7),
                                              ("depth-near-identity", 6), ("depth-analytic-generic", 4),
                                              ("generic-weights", 4)])
def test_unpatched_quick_runs_pass_with_their_corner_instances(claim_id, corners):
    out = _quick(claim_id)
    assert out["status"] == "pass", out.get("failure")
    assert out["examples"] == corners and out["instances"] == audit.QUICK_INSTANCES
    assert len(out["sizes"]) == out["instances"] + out["top_up"]


# ---------------------------------------------------------------- relu-complete

def test_relu_complete_independent_m_star_catches_class_sets_cut_to_one(monkeypatch):
    from oracle.algebra import relu_width
    from oracle.claims import relu_complete
    real = relu_width.independent_subsets
    monkeypatch.setattr(relu_width, "independent_subsets", lambda v, d, limit: real(v, d, 1))
    corner = relu_complete.relu_corners()[2]          # its optimum needs |T| = 2
    ev = relu_complete._evaluate(corner)
    assert ev["m_star_independent"] == 5 and ev["m_star"] == 6 and not ev["m_star_independent_agrees"]
    _fails("relu-complete")


def test_relu_complete_zero_row_corners_catch_a_wrong_constant_unit(monkeypatch):
    from oracle.claims import relu_complete
    real = relu_complete.relu_form_exact

    def wrong(W_up, W_down, M=None, b_up=None, b_down=None):
        # the constant relu(c) w of a zero row taken at c / 2 (the unit's bias halved)
        if b_up is not None:
            b_up = [c / 2 if all(v == 0 for v in r) else c for r, c in zip(W_up, b_up)]
        return real(W_up, W_down, M, b_up, b_down)
    monkeypatch.setattr(relu_complete, "relu_form_exact", wrong)
    _fails("relu-complete", corner=True)


# ---------------------------------------------------------------- absorption-width

def test_absorption_width_overlapping_pairs_catch_a_wrong_sign_on_s_and_t(monkeypatch):
    import inspect
    from oracle.claims import absorption_width as aw
    src = inspect.getsource(aw.build_block)
    old = "z = [yv - (wv if i in S else 0) for yv, wv in zip(y[i], w)]"
    assert src.count(old) == 1
    ns: dict = {}
    exec(src.replace(old, "z = [yv + (wv if i in S else 0) for yv, wv in zip(y[i], w)]"), vars(aw), ns)
    monkeypatch.setattr(aw, "build_block", ns["build_block"])
    _fails("absorption-width")


def test_absorption_width_dyadic_corner_catches_a_construction_that_ignores_dyadic_rows(monkeypatch):
    import inspect
    from oracle.claims import absorption_width as aw
    src = inspect.getsource(aw.spec_construction)
    old = "            first = (rows, inv)\n            break\n"
    assert src.count(old) == 1
    ns: dict = {}
    exec(src.replace(old, "            break\n"), vars(aw), ns)
    monkeypatch.setattr(aw, "spec_construction", ns["spec_construction"])
    _fails("absorption-width", corner=True)


# ---------------------------------------------------------------- depth-near-identity

def test_near_identity_norm_corner_catches_a_too_generous_norm_test(monkeypatch):
    from oracle.algebra.stacks import near_identity as ni
    real = ni.spectral_sq_bound
    monkeypatch.setattr(ni, "spectral_sq_bound", lambda a: real(a) / 2)
    assert "hypothesis norm" in _fails("depth-near-identity", corner=True)


def test_near_identity_g2_corner_catches_g2_skipped_for_two_units(monkeypatch):
    from oracle.algebra.stacks import near_identity as ni
    real = ni.g2_failure
    monkeypatch.setattr(ni, "g2_failure", lambda layers, n: None if len(n) < 3 else real(layers, n))
    assert "hypothesis G2" in _fails("depth-near-identity", corner=True)


def test_near_identity_bend_corner_catches_a_weak_count_condition(monkeypatch):
    from oracle.algebra.stacks import near_identity as ni
    monkeypatch.setattr(ni, "count_condition", lambda ks: all(s >= t + 1 for t, s in enumerate(sorted(ks))))
    assert "hypothesis bend_count" in _fails("depth-near-identity", corner=True)


# ---------------------------------------------------------------- depth-analytic-generic

def test_analytic_generic_required_limit_catches_a_limit_never_built(monkeypatch):
    from oracle.claims import depth_analytic_generic as ag
    monkeypatch.setattr(ag, "LIMIT_MAX_PARAMS", 0)
    _fails("depth-analytic-generic", corner=True)
    entry = ag.generic_certificate(ag.generic_corners()[0])
    assert not entry.holds and entry.data["limit"] is None


# ---------------------------------------------------------------- generic-weights

@pytest.mark.parametrize("how", ["under", "not_squarefree"])
def test_generic_weights_recomputed_root_counts_catch_a_wrong_sturm_count(monkeypatch, how):
    from oracle.algebra import generic_polys as gp
    real = gp.real_root_count
    if how == "under":
        monkeypatch.setattr(gp, "real_root_count", lambda p: max(0, real(p) - 1))
    else:   # roots counted with multiplicity (a count of roots, not of distinct roots)
        monkeypatch.setattr(gp, "real_root_count",
                            lambda p: real(p) + (p.degree() - (p / p.gcd(p.derivative())).degree()))
    assert "root" in _fails("generic-weights")


def test_near_identity_g1_corner_catches_g1_blind_to_pairs_of_rows(monkeypatch):
    import inspect
    from oracle.algebra.stacks import near_identity as ni
    src = inspect.getsource(ni.g1_failure)
    assert src.count("for k in (1, 2) for I in") == 1
    ns: dict = {}
    exec(src.replace("for k in (1, 2) for I in", "for k in (1,) for I in"), vars(ni), ns)
    monkeypatch.setattr(ni, "g1_failure", ns["g1_failure"])
    assert "hypothesis G1" in _fails("depth-near-identity", corner=True)


def test_near_identity_flip_count_catches_a_missing_sign_flip_stack(monkeypatch):
    from oracle.claims import depth_near_identity as dni
    real = dni.flip_candidates
    monkeypatch.setattr(dni, "flip_candidates", lambda layers: [c for c in real(layers) if c[0]])
    assert "sign-flip stacks refuted" in _fails("depth-near-identity")


# ---------------------------------------------------------------- the re-checks recompute the new checks

def test_d1_recheck_recomputes_the_cross_checks():
    import copy
    for inst in depth_d1.d1_corners():
        cert = depth_d1.check_d1(inst).as_dict()
        assert cert["holds"] and depth_d1.recheck_d1_all(cert)
        forged = copy.deepcopy(cert)
        forged["data"]["cross_checks"]["skips_all_zero"] = not forged["data"]["cross_checks"]["skips_all_zero"]
        assert not depth_d1.recheck_d1_all(forged)


def test_absorption_width_recheck_refuses_a_missed_dyadic_choice():
    import copy
    from oracle.claims import absorption_width as aw
    from oracle.core.rational import smat
    inst = aw.width_corners()[4]
    cert = aw.check(inst).as_dict()
    assert cert["holds"] and cert["data"]["construction"]["dyadic"] and aw.recheck(cert)
    forged = copy.deepcopy(cert)
    U = [[Fraction(v) for v in r] for r in forged["data"]["W_up"]]
    con = forged["data"]["construction"]
    # the construction on rows 0, 1 (inverse diag(1/3, 1)): correct, but not the dyadic choice
    inv = aw.exact_inverse([U[0], U[1]])
    M = [[Fraction(v) for v in r] for r in forged["data"]["M"]]
    Bm = [[-v for v in r] for r in aw.matmul(M, inv)]
    b = [[Bm[a][k] for a in range(2)] for k in range(2)]
    Wd = [[Fraction(v) for v in r] for r in forged["data"]["W_down"]]
    cols = [[Wd[a][i] for a in range(2)] for i in range(3)]
    for k, i in enumerate([0, 1]):
        cols[i] = [x - y for x, y in zip(cols[i], b[k])]
    con.update({"rows": [0, 1], "b": smat(b), "W_up": smat([list(r) for r in U] + [[-v for v in U[0]], [-v for v in U[1]]]),
                "W_down": smat(aw.transpose(cols + b))})
    # everything else about the forged construction is right: only the dyadic choice is missed
    up, down = aw.qmat(con["W_up"]), aw.qmat(con["W_down"])
    assert aw.matmul(aw.transpose(b), [U[0], U[1]]) == [[-v for v in r] for r in M]
    pts = [aw.qvec(r["x"]) for r in cert["data"]["construction"]["points"]["relu"]]
    assert aw.verify_equal(U, Wd, up, down, pts, acts=("relu",), M=M)[0] and not aw._all_dyadic(up, down)
    assert not aw.recheck(forged)


# ---------------------------------------------------------------- issue 28, second round: the classes of
# survivors of `make mutation` for depth-near-identity and gated-biased (docs/mutation.md), one
# planted mutant per class

def test_near_identity_index_set_corner_catches_a_wrong_subset_enumeration(monkeypatch):
    # the mutant exact.py `mask >> i & 1` -> `mask >> i * 1`: wrong subsets tried, an index set found
    # several times; only a block that has an index set shows it, compared with an own enumeration
    from oracle.algebra import exact
    from oracle.algebra.stacks import near_identity as ni

    def wrong(W_up, W_down, M):
        m, d = len(W_up), len(M)
        found = []
        for mask in range(1 << m):
            S = tuple(i for i in range(m) if mask >> i * 1)
            acc = [[M[a][b] + sum((W_down[a][i] * W_up[i][b] for i in S), Q(0)) for b in range(d)] for a in range(d)]
            if all(v == 0 for row in acc for v in row):
                found.append(S)
        return found
    I3 = [[Q(int(a == b)) for b in range(3)] for a in range(3)]
    minus = [[-v for v in r] for r in I3]
    assert wrong(I3, minus, I3) != exact.all_index_sets_exact(I3, minus, I3) == [(0, 1, 2)]
    monkeypatch.setattr(ni, "all_index_sets_exact", wrong)
    assert "index sets" in _fails("depth-near-identity", corner=True)


def test_near_identity_applies_corner_catches_a_too_strict_hypothesis_test(monkeypatch):
    # the mutant layers.py `W[a][i] != 0` -> `< 0`: a column of positive output weights counts as
    # zero; the drawn instances are only those the hypothesis test accepts, the fixed corner is not
    from oracle.algebra.stacks import near_identity as ni
    from oracle.algebra.stacks.layers import line_key

    def wrong(U, W):
        keys = [line_key(r) for r in U]
        if any(k is None for k in keys) or len(set(keys)) != len(keys):
            return False
        return all(any(W[a][i] < 0 for a in range(len(W))) for i in range(len(U)))
    monkeypatch.setattr(ni, "nondegenerate", wrong)
    _fails("depth-near-identity", corner=True)


def test_near_identity_norm_records_catch_a_wrong_bound_on_drawn_instances(monkeypatch):
    # the mutant layers.py `n1 * ninf` -> `n1 % ninf`: compared with an own bound on every instance
    from oracle.algebra.stacks import near_identity as ni

    def wrong(a):
        frob = sum((v * v for r in a for v in r), Q(0))
        n1 = max(sum((abs(r[j]) for r in a), Q(0)) for j in range(len(a[0])))
        ninf = max(sum((abs(v) for v in r), Q(0)) for r in a)
        return min(frob, n1 % ninf)
    monkeypatch.setattr(ni, "spectral_sq_bound", wrong)
    assert "norm" in _fails("depth-near-identity")


def test_near_identity_independent_bend_counts_catch_a_search_that_skips_sign_patterns(monkeypatch):
    # the mutant near_identity.py `range(1 << len(others))` -> `range(1 | len(others))`: fewer sets D
    # searched, fewer bend edges; the drawn instances that still pass bend_count show it
    import inspect
    from oracle.algebra.stacks import near_identity as ni
    src = inspect.getsource(ni.bend_edges)
    assert src.count("range(1 << len(others))") == 1
    ns: dict = {}
    exec(src.replace("range(1 << len(others))", "range(1 | len(others))"), vars(ni), ns)
    monkeypatch.setattr(ni, "bend_edges", ns["bend_edges"])
    assert "bend-edge counts" in _fails("depth-near-identity")


def test_near_identity_flip_stacks_checked_entry_by_entry(monkeypatch):
    # the mutant `[-v for v in u]` -> `[+v for v in u]` in _flip: 2^(m1+m2) pairs (S1, S2), all the
    # same unflipped stack
    from oracle.claims import depth_near_identity as dni
    monkeypatch.setattr(dni, "_flip", lambda U, S: [list(u) for u in U])
    assert "is not that sign flip" in _fails("depth-near-identity")


@pytest.mark.parametrize("lenient", ["check_difference", "recheck_conditions"])
def test_near_identity_forged_certificates_refused_by_the_recheck(monkeypatch, lenient):
    # the mutants layers.py `svec(fx) == wit["F"]` -> `is not` and `... or all(index_sets)` -> `and`:
    # a re-check that accepts too much; the corner forges its own certificate and must see it refused
    from oracle.claims import depth_near_identity as dni
    from oracle.algebra.stacks.layers import eval_stack
    from oracle.core.rational import qvec
    if lenient == "check_difference":
        def wrong(res, plain, wit):
            x = qvec(wit["x"])
            return eval_stack(res, x, True) != eval_stack(plain, x, False)
        monkeypatch.setattr(dni, "check_difference", wrong)
    else:
        monkeypatch.setattr(dni, "recheck_conditions", lambda layers, cond: bool(cond.get("applies")))
    assert "accepts forged certificates" in _fails("depth-near-identity", corner=True)


def test_gated_residual_of_single_units_catches_a_lenient_quadratic_test(monkeypatch):
    # the mutant flips.py `v == 0` -> `v <= 0` in flip_residual: a set whose quadratic part is <= 0
    # passes; the residuals of single units are compared with an own computation
    real = flips.flip_residual

    def wrong(fd, S):
        qz, lo, const = real(fd, S)
        if not qz and S:
            facs = [flips.unit_factors(fd, i) for i in sorted(set(S))]
            d = fd.d
            quad = [sum((fd.W[o][i] * (p[a] * q[b] + q[a] * p[b]) for i, (p, q, _s, _t) in zip(sorted(set(S)), facs)),
                        flips.fmpq(0)) for o in range(d) for a in range(d) for b in range(a, d)]
            qz = all(v <= 0 for v in quad)
        return qz, lo, const
    monkeypatch.setattr(flips, "flip_residual", wrong)
    assert "check failed" in _fails("gated-biased")


def test_gated_exact_values_recomputed_catch_an_evaluator_without_b_down(monkeypatch):
    # the mutant exact.py `if b_down is not None` -> `is None`: both sides lose b_down and still agree
    from oracle.algebra import exact
    real = exact.eval_plain_q

    def wrong(act, W_up, W_down, x, M=None, b_up=None, b_down=None, W_gate=None, b_gate=None):
        return real(act, W_up, W_down, x, M=M, b_up=b_up, b_down=None, W_gate=W_gate, b_gate=b_gate)
    monkeypatch.setattr(gated_biased, "eval_plain_q", wrong)
    assert "check failed" in _fails("gated-biased", corner=True)


def test_gated_test_functionals_recomputed_catch_a_wrong_sequence(monkeypatch):
    # the mutant flips.py `int(x >> 60) - 8` -> `- 9`: the solve stays sound, its functionals are
    # not those its docstring states
    real = flips.func_vectors
    monkeypatch.setattr(flips, "func_vectors", lambda d, j: tuple([v - 1 for v in vec] for vec in real(d, j)))
    assert "check failed" in _fails("gated-biased", corner=True)


def test_gated_positive_verdicts_brute_forced_catch_a_wrong_subset_enumeration(monkeypatch):
    # the mutant gated_biased.py `mask >> i & 1` -> `mask - i & 1` in indep_has_flip_set, which only
    # negative verdicts ran: now every found flip set is brute-forced too
    import inspect
    src = inspect.getsource(gated_biased.indep_has_flip_set)
    assert src.count("if mask >> i & 1]") == 1
    ns: dict = {}
    exec(src.replace("if mask >> i & 1]", "if mask - i & 1]"), vars(gated_biased), ns)
    monkeypatch.setattr(gated_biased, "indep_has_flip_set", ns["indep_has_flip_set"])
    assert "check failed" in _fails("gated-biased", corner=True)


def test_gated_opposite_class_corner_catches_classes_without_sign(monkeypatch):
    # the mutant flips.py `s = 1 if v > 0 else -1` -> `else 1` in _sign_key: (a, c) and -(a, c) no
    # longer one class; the corner with such a pair is compared with the separately written test
    monkeypatch.setattr(flips, "_sign_key", lambda vec: tuple(vec) if any(v != 0 for v in vec) else None)
    assert "check failed" in _fails("gated-biased", corner=True)


def _counterexamples_verified(claim_id: str) -> dict:
    """name -> verified, for the boundary counterexamples the quick audit runs for one claim."""
    known = [c["id"] for c in consistency.load_registry()]
    cexs, problem = audit._counterexamples({claim_id}, known)
    assert not problem, problem
    return {cx["name"]: cx["verified"] for cx in cexs}


@pytest.mark.parametrize("step", ["into_K", "into_K_le", "one_sign", "generators"])
def test_near_identity_folded_controls_catch_a_proof_step_that_cannot_fail(monkeypatch, step):
    # the mutants of folded_identity (`V1 == neg` -> `V1 is not neg`; `<= 0` -> `<= 1` in one_sign;
    # the generators -e_k replaced by (-1, -1, -1)) keep the boundary instance verified; the control
    # pairs, each failing one step, are what refuses them
    from oracle.claims import depth_near_identity as dni
    from oracle.algebra.exact import dot
    from oracle.algebra.stacks.layers import apply_layer, canonical_form
    assert _counterexamples_verified("depth-near-identity") == {"near_identity_folded": True}

    def wrong(res, plain):
        d = 3
        (U1, W1), (U2, W2) = res
        (V1, X1), (V2, X2) = plain
        neg = [[-v for v in r] for r in dni.identity(d)]
        gens = [list(r) for r in neg] if step != "generators" else [[Q(-1)] * 3 for _ in range(3)]
        bound = Q(1) if step == "one_sign" else Q(0)
        one = lambda U: all(all(dot(u, g) >= 0 for g in gens) or all(dot(u, g) <= bound for g in gens) for u in U)  # noqa: E731
        into_K = (V1 is not neg if step == "into_K" else V1 == neg) and (X1 <= neg if step == "into_K_le" else X1 == neg)
        same = canonical_form(U1, W1, dni.identity(d)) == canonical_form(V1, X1)
        agree = all(apply_layer((U2, W2), g, True) == apply_layer((V2, X2), g, False) for g in gens)
        return {"same_first_layer": same, "plain_first_layer_is_minus_relu_minus": into_K,
                "second_layers_linear_on_orthant": one(U2) and one(V2), "agree_on_generators": agree,
                "ok": same and into_K and one(U2) and one(V2) and agree}
    monkeypatch.setattr(dni, "folded_identity", wrong)
    assert _counterexamples_verified("depth-near-identity") == {"near_identity_folded": False}


def test_near_identity_candidate_required_catches_a_candidate_branch_never_taken(monkeypatch):
    # the mutant `if inst.candidate is not None` -> `is None`: every drawn instance carries a candidate,
    # so the refutation was skipped on all of them; the oracle check now requires it refuted
    import dataclasses
    from oracle.claims import depth_near_identity as dni
    real = dni.near_identity_certificate
    monkeypatch.setattr(dni, "near_identity_certificate", lambda inst: real(dataclasses.replace(inst, candidate=None)))
    assert "no candidate of the widths refuted" in _fails("depth-near-identity")


def test_gated_ball_values_recomputed_catch_a_ball_evaluator_without_b_down(monkeypatch):
    # a mutant of exact.eval_ball that loses b_down on both sides of the flip comparison keeps them
    # equal; the balls are now held to a 60-digit evaluation written apart
    from oracle.algebra import exact
    real = exact.eval_ball

    def wrong(act, W_up, W_down, x, M=None, W_gate=None, b_up=None, b_gate=None, b_down=None, prec=exact.BALL_PREC):
        return real(act, W_up, W_down, x, M=M, W_gate=W_gate, b_up=b_up, b_gate=b_gate, b_down=None, prec=prec)
    monkeypatch.setattr(gated_biased, "eval_ball", wrong)
    assert "check failed" in _fails("gated-biased", corner=True)


def test_gated_ball_comparison_control_catches_a_comparison_that_cannot_fail(monkeypatch):
    monkeypatch.setattr(gated_biased, "balls_agree", lambda lhs, rhs, tol=0.0: (True, 0.0))
    assert "check failed" in _fails("gated-biased", corner=True)


def test_near_identity_folded_other_hypotheses_recomputed(monkeypatch):
    # what the folded instance records about the hypotheses it does not isolate was re-derived by the
    # same code in its re-check; a wrong bend-edge count there is now refused by the separate tests
    from oracle.claims import depth_near_identity as dni
    real = dni.other_hypotheses
    monkeypatch.setattr(dni, "other_hypotheses", lambda layers, seed=0: {**real(layers, seed), "k": [1, 0, 0]})
    assert _counterexamples_verified("depth-near-identity") == {"near_identity_folded": False}


def test_near_identity_count_condition_recomputed_on_drawn_instances(monkeypatch):
    # a count condition that is too generous (k_(t) >= t) shows on the drawn instances as well as on
    # the bend_count corner: compared with a test of every subset N
    from oracle.algebra.stacks import near_identity as ni
    from oracle.claims import depth_near_identity as dni
    monkeypatch.setattr(ni, "count_condition", lambda ks: all(s >= t + 1 for t, s in enumerate(sorted(ks))))
    corners = [c for c in dni.near_identity_corners() if getattr(c, "expect", "") != "bend_count"]
    monkeypatch.setattr(dni.check_near_identity.check_info, "examples", lambda: corners)
    assert "every subset N says otherwise" in _fails("depth-near-identity")


@pytest.mark.parametrize("claim_id", ["gated-biased", "depth-near-identity"])
def test_coverage_subjects_checked_against_the_instance(monkeypatch, claim_id):
    # the mutant `any(v != 0 for v in self.c)` -> `v == 0` in the instance's subjects(): the coverage
    # measurement saw other blocks than the ones checked; the check now compares them
    from oracle.claims import coverage
    from oracle.claims import depth_near_identity as dni
    if claim_id == "gated-biased":
        cls = gated_biased.BiasedGatedInstance
        monkeypatch.setattr(cls, "subjects", lambda self: [coverage.Subject(self.G, self.W, self.M, not any(self.c))])
    else:
        cls = dni.NearIdentityInstance
        monkeypatch.setattr(cls, "subjects", lambda self: [coverage.Subject(U, W, dni.identity(len(W)), False)
                                                           for U, W in self.layers[:1]])
    _fails(claim_id, corner=True)


def test_gated_part_d_map_recomputed_catches_a_wrong_constant(monkeypatch):
    # the mutant affine.py `k[o] += w[o] * fd.b[i]` -> `w[o] - fd.b[i]`: c of F = N x + c is wrong where
    # the outcome does not show it; the map is now compared with the separate computation of N and c
    from oracle.algebra import affine
    real = affine.gated_affine

    def wrong(block):
        ga = real(block)
        if ga is not None:
            ga = {**ga, "c_exact": [v + 1 for v in ga["c_exact"]], "c_ball": [v + 1 for v in ga["c_ball"]]}
        return ga
    monkeypatch.setattr(affine, "gated_affine", wrong)
    assert "check failed" in _fails("gated-biased")


def test_gated_part_d_rank_bracket_catches_a_lower_bound_given_up(monkeypatch):
    # the mutant affine.py `d <= MAX_BALL_RANK_D` -> `d > ...`: rank_lower 0, every inexact case undecided
    from oracle.algebra import affine
    real = affine.gated_affine
    monkeypatch.setattr(affine, "gated_affine", lambda block: (lambda ga: ga if ga is None or not ga["inexact"]
                                                               else {**ga, "rank_lower": 0})(real(block)))
    assert "check failed" in _fails("gated-biased", corner=True)


def test_gated_irrational_affine_corners_catch_a_wrong_c_zero(monkeypatch):
    # the mutant `abs(v) < 10^-40` -> `abs(v) is 10^-40` in _check_part_d: c = 0 read as nonzero; only
    # an instance with an irrational gate value and F(0) = 0 reaches that line
    import inspect
    src = inspect.getsource(gated_biased._check_part_d)
    assert src.count("abs(v) < mpmath.mpf(10) ** -40 for v in cvec") == 1
    ns: dict = {}
    exec(src.replace("abs(v) < mpmath.mpf(10) ** -40 for v in cvec", "abs(v) is mpmath.mpf(10) ** -40 for v in cvec"),
         vars(gated_biased), ns)
    monkeypatch.setattr(gated_biased, "_check_part_d", ns["_check_part_d"])
    assert "check failed" in _fails("gated-biased", corner=True)


def test_gated_shapes_checked_catch_a_point_of_another_length(monkeypatch):
    # the mutant `[Q(1)] * (d - 1)` -> `(d ** 1)` in a corner's points: a point of length d + 1, cut
    # short by zip everywhere; the instance's shapes are now checked
    real = gated_biased._planted_fixed

    def wrong(gate, d):
        inst = real(gate, d)
        inst.points[1] = inst.points[1] + [Q(1)]
        return inst
    monkeypatch.setattr(gated_biased, "_planted_fixed", wrong)
    assert "check failed" in _fails("gated-biased", corner=True)


def test_near_identity_count_tables_catch_a_count_test_blind_to_the_set(monkeypatch):
    # the mutant `N >> i & 1` -> `N >> i | 1` in indep_bend_count_ok: only instances that fail the
    # count with units of different counts show it; the two count tests are compared on all small k
    import inspect
    from oracle.claims import depth_near_identity as dni
    src = inspect.getsource(dni.indep_bend_count_ok)
    assert src.count("if N >> i & 1)") == 1
    ns: dict = {}
    exec(src.replace("if N >> i & 1)", "if N >> i | 1)"), vars(dni), ns)
    monkeypatch.setattr(dni, "indep_bend_count_ok", ns["indep_bend_count_ok"])
    assert "hypothesis bend_count" in _fails("depth-near-identity", corner=True)


def test_near_identity_folded_mismatch_control_catches_facts_that_cannot_fail(monkeypatch):
    # the mutant `... and` -> `... or` in the chain of the folded facts: they "hold" whatever the
    # plain stack; a plain stack that differs from F must be refused
    import inspect
    from oracle.claims import depth_near_identity as dni
    src = inspect.getsource(dni.folded_facts_hold)
    assert src.count("folded_others_recomputed(res, others, forced) and") == 1
    ns: dict = {}
    exec(src.replace("folded_others_recomputed(res, others, forced) and", "folded_others_recomputed(res, others, forced) or"),
         vars(dni), ns)
    monkeypatch.setattr(dni, "folded_facts_hold", ns["folded_facts_hold"])
    assert _counterexamples_verified("depth-near-identity") == {"near_identity_folded": False}
