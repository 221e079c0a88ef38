"""depth-analytic: the dimension count, the ball-arithmetic rank certificate and its re-check, the
committed sweep, the boundary instances and `absorb check` on gelu-family stacks."""

import copy
import itertools
import json
import random
from fractions import Fraction

import numpy as np
import pytest

import oracle.claims as claim_modules
from oracle.claims import base
from oracle.claims import boundary as bd
from oracle.claims import depth_analytic as da
from oracle.algebra.stacks import analytic as an
from oracle.algebra.stacks import rank as srank
from oracle.algebra.stacks import sweep as sw
from oracle.core.blocks import Block, Stack
from oracle.decide import stacks

Q = Fraction


def _json(x):
    return json.loads(json.dumps(x))


# ---------------------------------------------------------------- the dimension count

@pytest.mark.parametrize("d, widths, gaps", [
    (2, [3, 3], [4]),            # both widths >= d: d^2
    (3, [1, 1], [5]),            # both below d: d^2 - (d - 1)^2 = 2d - 1
    (2, [1, 5], [7]),            # one below d: d^2 + (d - 1)(5 - d)
    (1, [4, 2, 6], [1, 1]),      # d = 1: one per junction
    (4, [6, 6, 6], [16, 16]),
])
def test_junction_gaps(d, widths, gaps):
    assert srank.junction_gaps(d, widths) == gaps
    assert an.plain_dimension(d, widths) == an.param_count(d, widths) - sum(gaps)


def test_gap_is_at_least_one_and_matches_the_rank_variety():
    for d, p, q in itertools.product(range(1, 6), range(1, 8), range(1, 8)):
        r = min(d, p, q)
        assert srank.rank_variety_dim(d, p, q) == r * (p + q - r)
        gap = srank.junction_gaps(d, [q, p])[0]
        assert gap >= 1
        if p >= d and q >= d:
            assert gap == d * d
    assert an.plain_dimension(2, [3]) == an.param_count(2, [3])   # depth 1: no gap


# ---------------------------------------------------------------- the Jacobian formulas

def _eval64(name, layers, x):
    y = np.array([float(v) for v in x])
    for U, W in layers:
        U = np.array(U, dtype=float)
        W = np.array(W, dtype=float)
        y = y + W @ np.array([an.value_and_slope64(name, z)[0] for z in U @ y])
    return y


@pytest.mark.parametrize("name", an.ACTIVATIONS)
def test_jacobian_matches_finite_differences(name):
    """Float evidence that the chain-rule formulas are the derivative (the proof is the formula)."""
    rng = random.Random(4)
    d, widths = 2, [2, 3]
    layers = an.random_layers(d, widths, rng)
    x = an.random_points(d, 1, rng)[0]
    J = an.jacobian_float(name, layers, [x])
    flat = [float(v) for v in an.flatten_layers(layers)]
    h = 1e-6
    for j in range(len(flat)):
        up, dn = list(flat), list(flat)
        up[j] += h
        dn[j] -= h
        fu = _eval64(name, an.unflatten(d, widths, up), x)
        fd = _eval64(name, an.unflatten(d, widths, dn), x)
        assert np.allclose((fu - fd) / (2 * h), J[:, j], atol=1e-7)
    # the ball Jacobian contains the float one up to rounding
    Jb = an.jacobian_ball(name, layers, [x], 128)
    for i in range(d):
        for j in range(len(flat)):
            assert abs(float(Jb[i, j].mid()) - J[i, j]) < 1e-12


@pytest.mark.parametrize("name", an.ACTIVATIONS)
def test_ball_values_agree_with_the_catalog(name):
    from flint import arb
    from oracle.core import activations
    act = activations.get(name)
    for z in (Q(-3, 2), Q(0), Q(5, 8), Q(7, 2)):
        zb = arb(z.numerator) / z.denominator
        assert an.value_and_slope(name, zb)[0].overlaps(act.ball(zb))


# ---------------------------------------------------------------- the independent derivative check

# the two chain-rule bugs a referee planted (both leave a generic matrix of rank N)
CHAIN_RULE_MUTANTS = {
    "suffix_dropped": ("        Sl = suffix[l]\n",
                       "        Sl = [[(one if a == b else zero) for b in range(d)] for a in range(d)]\n"),
    "x_for_y_prev": ("                row.extend(g * yl[c] for c in range(d))",
                     "                row.extend(g * x[c] for c in range(d))"),
}


def _private_module(name, file, src):
    """Execute source text as a module that is not registered anywhere (sys.modules only while
    it runs)."""
    import importlib.util
    import sys
    spec = importlib.util.spec_from_loader(name, loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__file__ = file
    sys.modules[spec.name] = mod
    try:
        exec(compile(src, f"<{name}>", "exec"), mod.__dict__)
    finally:
        sys.modules.pop(spec.name, None)
    return mod


def _mutated_module(name):
    """A private copy of oracle.algebra.stacks.analytic whose chain rule (chain_rule_rows, in
    oracle/algebra/stacks/rank.py) carries one edit (text replacement of a copy of rank.py)."""
    old, new = CHAIN_RULE_MUTANTS[name]
    src = open(srank.__file__).read()
    assert src.count(old) == 1
    bad_rank = _private_module(f"_rank_mutant_{name}", srank.__file__, src.replace(old, new))
    mod = _private_module(f"_da_mutant_{name}", an.__file__, open(an.__file__).read())
    mod.chain_rule_rows = bad_rank.chain_rule_rows
    return mod


@pytest.mark.parametrize("name", an.ACTIVATIONS)
def test_chain_rule_agrees_with_forward_mode_series(name):
    """J v from the chain rule and the series derivative overlap at every point, tightly."""
    cert = an.make_certificate(name, 3, [2, 4, 1], seed=3)
    assert cert["certified"]
    act, layers, pts, rows = an.certificate_parts(cert)
    J = an.jacobian_ball(act, layers, pts, cert["precision"])
    v = an.check_direction(cert["N"])
    assert len(v) == cert["N"] and 0 not in v
    ref = an.jvp_ball(act, layers, pts, v, cert["precision"])
    assert len(ref) == len(pts) * 3
    assert any(abs(float(b.mid())) > 1e-3 for b in ref)          # not a comparison of zeros
    assert an.derivative_mismatch(act, layers, pts, J, cert["precision"]) == ""
    # the series derivative is the derivative: a central difference quotient agrees (float evidence)
    x = [float(t) for t in pts[0]]
    flat = [float(t) for t in an.flatten_layers(layers)]
    h = 1e-6
    up = an.unflatten(3, [2, 4, 1], [t + h * s for t, s in zip(flat, v)])
    dn = an.unflatten(3, [2, 4, 1], [t - h * s for t, s in zip(flat, v)])
    fd = (_eval64(name, up, x) - _eval64(name, dn, x)) / (2 * h)
    assert np.allclose(fd, [float(b.mid()) for b in ref[:3]], atol=1e-6)


def test_a_jacobian_entry_off_by_a_little_is_caught():
    from flint import arb, ctx
    cert = an.make_certificate("silu", 2, [3, 2], seed=0)
    act, layers, pts, rows = an.certificate_parts(cert)
    J = an.jacobian_ball(act, layers, pts, cert["precision"])
    old = ctx.prec
    ctx.prec = cert["precision"]      # at the default 53 bits the change would be rounded away
    try:
        J[3, 5] = J[3, 5] + arb(2) ** -60
    finally:
        ctx.prec = old
    why = an.derivative_mismatch(act, layers, pts, J, cert["precision"])
    assert why.startswith("the chain-rule Jacobian disagrees") and "point 1, output 1" in why


@pytest.mark.parametrize("mutant", sorted(CHAIN_RULE_MUTANTS))
@pytest.mark.parametrize("name", an.ACTIVATIONS)
def test_chain_rule_mutants_are_refused(mutant, name):
    """With a wrong chain rule the minor still has a nonzero determinant; the derivative check
    refuses the certificate, both when it is issued and when it is re-checked."""
    bad = _mutated_module(mutant)
    widths = [2, 3]
    cert = bad.make_certificate(name, 2, widths, seed=1)
    assert not cert["certified"]
    assert cert["reason"].startswith("the chain-rule Jacobian disagrees with the forward-mode derivative")
    # the old behaviour: without the derivative check the wrong matrix is certified rank N ...
    saved = bad.derivative_mismatch
    bad.derivative_mismatch = lambda *a: ""
    try:
        forged = bad.make_certificate(name, 2, widths, seed=1)
    finally:
        bad.derivative_mismatch = saved
    assert forged["certified"]
    # ... and its re-check (the one the audit and `absorb recheck` run) now refuses it
    why = bad.recheck_reason(_json(forged))
    assert why.startswith("the chain-rule Jacobian disagrees"), why
    assert not bad.rank_full(_json(forged))
    # the correct code refuses it too (its determinant is not the one of dF/dtheta), and a correct
    # certificate re-checks under the correct code only
    assert not an.recheck(_json(forged))
    good = an.make_certificate(name, 2, widths, seed=1)
    assert an.recheck(_json(good)) and not bad.recheck(_json(good))


# ---------------------------------------------------------------- certificates

@pytest.mark.parametrize("name", an.ACTIVATIONS)
def test_fresh_certificate_rechecks_from_json(name):
    cert = an.make_certificate(name, 2, [2, 3], seed=1)
    assert cert["certified"] and cert["N"] == 20 and cert["D_plain"] == 16
    assert an.recheck(_json(cert))


def test_tampered_certificates_are_refused():
    cert = _json(an.make_certificate("gelu", 2, [3, 2], seed=2))
    assert an.recheck(cert)
    edits = [
        lambda c: c["theta"].__setitem__(0, c["theta"][0] + 1),          # a weight
        lambda c: c["points"][0].__setitem__(0, c["points"][0][0] + 1),   # a point
        lambda c: c.__setitem__("det", "[1.00000 +/- 1e-10]"),           # the stated determinant
        lambda c: c.__setitem__("rows_omitted", c["rows_omitted"][1:]),   # not N rows any more
        lambda c: c.__setitem__("widths", [2, 3]),                        # other widths
        lambda c: c.__setitem__("D_plain", c["N"]),                       # a wrong count
        lambda c: c.__setitem__("certified", False),
        lambda c: c.__setitem__("precision", 64),                         # not an allowed precision
        lambda c: c.__setitem__("activation", "relu"),                    # not covered
        lambda c: c.__setitem__("theta_den", 0),
        lambda c: c.__setitem__("theta", c["theta"][:-1]),
    ]
    for edit in edits:
        bad = copy.deepcopy(cert)
        edit(bad)
        assert not an.recheck(bad)


def test_depth_one_is_never_a_certificate():
    cert = an.make_certificate("gelu", 2, [3, 3], seed=0)
    one = copy.deepcopy(cert)
    one["widths"] = [6]
    assert not an.recheck(one)


def test_duplicated_points_are_not_certified():
    rng = random.Random(5)
    layers = an.random_layers(2, [2, 2], rng)
    pts = an.random_points(2, 5, rng)
    pts = pts + pts   # 10 points, but only 5 distinct: rank <= 10 < N = 16
    cert = an.certify("silu", layers, pts)
    assert not cert["certified"] and not an.recheck(cert)


@pytest.mark.parametrize("kind", ["equal", "zero"])
def test_symmetric_weights_are_not_certified(kind):
    """Two equal units (they can trade weights) or a dead unit (zero row: its output weights are
    free): the Jacobian loses rank, and no certificate is issued."""
    rng = random.Random(6)
    layers = an.random_layers(2, [3, 2], rng)
    U, W = layers[0]
    if kind == "equal":
        U[1] = list(U[0])
        for a in range(2):
            W[a][1] = W[a][0]
    else:
        U[2] = [Q(0), Q(0)]
    pts = an.random_points(2, an.point_count(2, [3, 2]), rng)
    cert = an.certify("gelu", layers, pts)
    assert not cert["certified"]
    assert not an.recheck(cert)


def test_opposite_rows_keep_full_rank():
    """u_1 = -u_0 is no symmetry (s(-z) = s(z) - z changes the block by a linear map)."""
    rng = random.Random(0)
    layers = an.random_layers(2, [3, 2], rng)
    layers[0][0][1] = [-v for v in layers[0][0][0]]
    cert = an.certify("gelu", layers, an.random_points(2, an.point_count(2, [3, 2]), rng))
    assert cert["certified"] and an.recheck(cert)


# ---------------------------------------------------------------- the committed sweep

def test_sweep_covers_the_grid_and_every_entry_is_certified():
    sweep = sw.load_sweep()
    assert sweep["claim"] == an.CLAIM and sweep["activations"] == list(an.ACTIVATIONS)
    got = {(e["d"], tuple(e["widths"])) for e in sweep["entries"]}
    want = {(d, tuple(w)) for d, w in sw.sweep_widths(4, (2, 3), 6)}
    assert got == want and len(sweep["entries"]) == len(want) == 1008
    for e in sweep["entries"]:
        assert all(e["results"][a]["certified"] for a in an.ACTIVATIONS)


def test_every_stored_determinant_string_excludes_zero():
    """The stored string of each of the 3024 determinants is itself a ball that excludes 0 (the
    recomputed ball lies inside it at the stored precision), with the margin certify asks for."""
    from flint import arb
    sweep = sw.load_sweep()
    for e in sweep["entries"]:
        for a in an.ACTIVATIONS:
            b = arb(e["results"][a]["det"])
            assert not b.contains(0), (e["d"], e["widths"], a)


def test_the_formerly_narrow_entry_and_a_stored_ball_that_contains_zero(monkeypatch):
    """d = 1, widths (5, 5, 5), silu: at 128 bits the recomputed ball excludes 0 but its printed
    string did not; the sweep now stores the 256-bit certificate, and the re-check refuses the old
    128-bit one because its stored ball contains 0 (even though the recomputed one does not)."""
    from flint import arb
    e = sw.find_sweep_entry(1, [5, 5, 5])
    cert = _json(sw.entry_certificate(e, "silu"))
    assert cert["precision"] == 256 and an.recheck_reason(cert) == ""
    old = dict(cert, precision=128, det="[+/- 3.86e-391]")
    _, layers, pts, rows = an.certificate_parts(old)
    det = an.minor_det("silu", layers, pts, rows, 128)
    assert not det.contains(0) and not an.clear_of_zero(det)      # excludes 0, without the margin
    assert arb(old["det"]).contains(0)
    assert "stored determinant ball [+/- 3.86e-391] contains 0" in an.recheck_reason(old)
    # certify itself chooses its rows by a float QR step, and which rows that picks depends on the
    # BLAS build and the CPU; whatever it picks, what it issues must be a certificate of rank N
    fresh = an.certify("silu", layers, pts)
    assert fresh["certified"] and fresh["N"] == cert["N"] == 30 and fresh["D_plain"] == cert["D_plain"] == 28
    assert len(fresh["rows_omitted"]) == len(pts) * 1 - 30
    assert not arb(fresh["det"]).contains(0) and an.recheck_reason(_json(fresh)) == ""
    # with the stored rows (the float step pinned to them), certify moves on from 128 to 256 bits and
    # issues the stored certificate again: the same rows, and a determinant ball that overlaps it
    monkeypatch.setattr(an, "choose_rows", lambda J: list(rows))
    again = an.certify("silu", layers, pts)
    assert again["certified"] and again["precision"] == 256
    assert again["rows_omitted"] == cert["rows_omitted"]
    assert arb(again["det"]).overlaps(arb(cert["det"])) and not arb(again["det"]).contains(0)
    assert an.recheck_reason(_json(again)) == ""


def test_sweep_sample_rechecks_from_json():
    sweep = sw.load_sweep()
    rng = random.Random(11)
    sample = rng.sample(sweep["entries"], 6)
    # the largest entry too
    sample.append(max(sweep["entries"], key=lambda e: an.param_count(e["d"], e["widths"])))
    for e in sample:
        for a in an.ACTIVATIONS:
            assert an.recheck(_json(sw.entry_certificate(e, a)))


def test_oracle_check_runs_and_rechecks():
    res = base.run_check(da.check, 4)
    assert res.passed and res.instances == 4 and res.exact_instances == 4


# ---------------------------------------------------------------- boundary instances

@pytest.mark.parametrize("fn, dropped", [(da.analytic_index_sets, "generic_weight"),
                                         (da.analytic_depth_one, "depth_ge_2")])
def test_boundary_instances(fn, dropped):
    assert fn in claim_modules.load().counterexamples and fn.counterexample_info.dropped == dropped
    cert = fn()
    assert cert.holds
    d = _json(cert.as_dict())
    assert da.recheck_counterexample(d) and bd.recheck_counterexample(d)
    bad = copy.deepcopy(d)
    bad["data"]["plain"][0]["W_up"][2] = [str(-Q(v)) for v in bad["data"]["plain"][0]["W_up"][2]]
    assert not da.recheck_counterexample(bad)   # flipping a unit outside the index set


# ---------------------------------------------------------------- absorb check on a stack

def _gelu_stack(act="gelu"):
    rng = np.random.default_rng(3)
    d = 3
    return Stack([Block(act, W_up=np.round(rng.normal(size=(m, d)) * 8) / 8,
                        W_down=np.round(rng.normal(size=(d, m)) * 8) / 16) for m in (3, 4)])


@pytest.mark.parametrize("act", an.ACTIVATIONS)
def test_decide_stack_cites_the_claim_without_a_verdict(act):
    r = stacks.decide_stack(_gelu_stack(act))
    assert (r["verdict"], r["claim"], r["exact"]) == ("undecided", "depth-analytic", False)
    assert "ALMOST EVERY" in r["reason"] and "not a verdict about this one" in r["reason"]
    assert r["certificate"]["analytic"]["at"] == "the given weights"
    assert stacks.recheck_decision(_json(r))
    bad = _json(r)
    bad["certificate"]["analytic"]["certificate"]["theta"][0] += 1
    assert not stacks.recheck_decision(bad)
    assert "rank certificate (depth-analytic)" in stacks.format_decision(r)


def test_index_set_stack_is_decided_by_the_sign_flip_not_by_the_count():
    """The boundary stack is plain (relu-gelu-iff sufficiency decides it exactly); the rank
    certificate, which also exists there, is never turned into a verdict."""
    layers = da.index_set_stack()
    st = Stack([Block("gelu", W_up=np.array([[float(v) for v in r] for r in U]),
                      W_down=np.array([[float(v) for v in r] for r in W])) for U, W in layers])
    r = stacks.decide_stack(st)
    assert (r["verdict"], r["claim"], r["exact"]) == ("absorbable", "relu-gelu-iff", True)
    assert da.analytic_index_sets().data["rank_certificate"]["certified"]


# ---------------------------------------------------------------- the report's sweep figure

def test_sweep_figure_from_the_committed_file_and_bad_files(tmp_path):
    pytest.importorskip("matplotlib")
    from oracle.report import figures
    fig, note = figures.analytic_sweep_figure()
    assert fig is not None and note == ""
    assert fig.data["entries"] == 1008 and fig.data["certified"] == 1008
    assert "d = 4, L = 3: 216/216" in fig.caption and fig.svg.startswith(b"<?xml")
    missing = tmp_path / "none.json"
    assert figures.analytic_sweep_figure(missing)[0] is None
    bad = tmp_path / "bad.json"
    bad.write_text('{"activations": ["gelu"], "entries": [{"d": 1}]}')
    fig, note = figures.analytic_sweep_figure(bad)
    assert fig is None and "unreadable" in note


def test_absorb_check_on_the_example_gelu_stack(capsys, tmp_path):
    from pathlib import Path
    from oracle.cli import main
    p = Path(__file__).resolve().parent.parent / "examples" / "gelu_stack_generic.npz"
    code = main(["check", str(p), "--emit", str(tmp_path / "x.npz")])
    out, err = capsys.readouterr()
    assert code == 0 and "verdict: undecided (depth-analytic, not exact)" in out
    assert "rank certificate (depth-analytic): full rank N = 54 > D_plain = 45" in out
    assert "nothing emitted" in err and not (tmp_path / "x.npz").exists()
    code = main(["check", str(p), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["claim"] == "depth-analytic" and stacks.recheck_decision(doc)


def test_registry_entry_and_pins():
    import tomllib
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    reg = tomllib.loads((root / "proofs" / "claims.toml").read_text())["claim"]
    c = next(c for c in reg if c["id"] == an.CLAIM)
    assert claim_modules.resolve(c["oracle"]) is da.check
    assert set(c["hypotheses"]) == {"bias_free", "sigma_analytic", "depth_ge_2", "analytic_rank_certified",
                                    "generic_weight"}
    assert c["coq"][0] == "SkipAbsorption.DepthStack.plain_stack_junction_factorisation"
    pinned = (root / "proofs" / "pinned" / "coq-statements.txt").read_text()
    for name in [c["coq"][0], c["coq_instance"]]:
        assert f"=== {name}\n" in pinned
    glossary = tomllib.loads((root / "proofs" / "hypotheses.toml").read_text())
    for tag in c["hypotheses"] + list(c["coq_extra_hypotheses"]):
        assert tag in glossary


def test_large_stack_in_d_ge_2_cites_the_certificate_free_claim():
    """Above the certificate's size limit a d >= 2 gelu-family stack still gets the almost-every
    statement, from depth-analytic-generic (no certificate needed), never a verdict; in d = 1 no
    claim is cited."""
    rng = np.random.default_rng(5)
    m = stacks.MAX_ANALYTIC_PARAMS // (2 * 2 * 2) + 1          # N = 2 d (m + m) > MAX_PARAMS with d = 2
    st = Stack([Block("silu", W_up=np.round(rng.normal(size=(m, 2)) * 8) / 8,
                      W_down=np.round(rng.normal(size=(2, m)) * 8) / 16) for _ in range(2)])
    r = stacks.decide_stack(st)
    assert (r["verdict"], r["claim"], r["exact"]) == ("undecided", "depth-analytic-generic", False)
    assert "no depth-analytic certificate" in r["reason"] and "ALMOST EVERY" in r["reason"]
    assert stacks.recheck_decision(_json(r))
    bad = _json(r)
    bad["certificate"]["d"] = 1
    assert not stacks.recheck_decision(bad)
    small = stacks.decide_stack(_gelu_stack())
    assert "depth-analytic-generic: for d >= 2" in small["reason"] and small["claim"] == "depth-analytic"


def test_mutant_copies_leave_the_audit_registry_alone():
    """A mutated copy of the module must not add its boundary functions to the list the audit runs
    (they once made a later quick audit in the same process fail)."""
    before = claim_modules.load().counterexamples
    _mutated_module("suffix_dropped")
    assert claim_modules.load().counterexamples == before
