"""depth-analytic-d1: the drawn d = 1 instances (widths up to 16, depth 2..4), the proof's limit block
and eps stack, the near misses of Proposition D1', the re-check (bound to the drawn instance, the
stored determinants, the activation's definition), planted lies in the rank routine and in the
re-check, the boundary instances, and the registry entry."""

import copy
import json
import random
from fractions import Fraction

import pytest

from oracle.algebra.stacks import analytic as an
from oracle.claims import base, load
from oracle.claims import boundary as bd
from oracle.claims import depth_analytic_d1 as g
from oracle.claims import depth_boundary
from oracle.core.rational import arb
from oracle.formal import consistency as C

Q = Fraction


def _json(x):
    return json.loads(json.dumps(x))


def test_distinct_moduli_is_exact():
    assert g.distinct_moduli([[Q(1)], [Q(-3, 4)], [Q(1, 2)]])
    assert not g.distinct_moduli([[Q(3, 4)], [Q(-3, 4)]])      # opposite
    assert not g.distinct_moduli([[Q(3, 4)], [Q(3, 4)]])       # equal
    assert not g.distinct_moduli([[Q(0)], [Q(1)]])             # a zero row
    assert not g.distinct_moduli([[Q(1), Q(2)]])               # not d = 1


def test_drawing_meets_the_proof_hypotheses():
    rng = random.Random(3)
    for U, W in g.random_layers([12, 1, 7], rng):
        assert g.distinct_moduli(U) and all(v != 0 for v in W[0])
    U, W = g.lemma_block(20, rng)
    assert len(U) == 20 and g.distinct_moduli(U) and all(v != 0 for v in W[0])
    assert {v[0] > 0 for v in U} == {True, False}             # signs mixed
    pts = g.distinct_abs_points(42, rng)
    assert len({abs(x[0]) for x in pts}) == 42 and all(x[0] != 0 for x in pts)
    layers = g.split((U, W), [7, 8, 5], g.EPS)
    assert [len(u) for u, _ in layers] == [7, 8, 5]
    assert [r for u, _ in layers for r in u] == U
    assert [v for _, w in layers for v in w[0]] == [g.EPS * v for v in W[0]]
    assert g.shrink([12, 12, 12]) == [8, 8, 8] and sum(g.shrink([16, 16])) == g.MAX_SUM


@pytest.mark.parametrize("act, widths", [("gelu", [12, 8]), ("silu", [16, 3]), ("gelu_tanh", [1, 9, 7]),
                                         ("silu", [6, 6, 6, 6])])
def test_check_certifies_beyond_the_sweep_and_rechecks(act, widths):
    cert = g.check(g.D1Instance(act, widths, 5, 16))
    assert cert.holds and cert.exact, cert.reason
    doc = _json(cert.as_dict())
    assert g.recheck_d1(doc)
    data = doc["data"]
    assert data["instance"] == {"activation": act, "widths": widths, "seed": 5, "delta": 16}
    assert data["stack"]["widths"] == widths and data["stack"]["activation"] == act
    assert data["limit"]["widths"] == [sum(widths)] and data["eps_stack"]["widths"] == widths
    assert data["stack"]["d"] == 1 and data["stack"]["N"] == 2 * sum(widths)
    near = data["near"]["facts"]
    assert sorted(near["dependent"]) == sorted(g.DEPENDENT) and sorted(near["moved"]) == sorted(g.MOVED)
    assert all(f["relation_contains_0"] and not f["certified"] for f in near["dependent"].values())
    assert all(c["certified"] for c in near["moved"].values())


def test_width_one_block_has_only_the_unit_near_misses():
    rng = random.Random("width-one")
    facts = g.near_miss_facts("gelu", g.lemma_block(1, rng), 4, g.distinct_abs_points(4, rng))
    assert sorted(facts["dependent"]) == ["zero_output", "zero_row"] and facts["moved"] == {}
    assert g.near_miss_ok(facts)


def test_depth_one_is_not_an_instance_of_the_claim():
    """L >= 2 is the statement's hypothesis: depth 1 is never drawn, and a certificate of a depth-1
    stack (a true fact, Theorem D1's L = 1) is refused by the claim's re-check."""
    cert = g.d1_certificate(g.D1Instance("gelu", [3], 2, 4))
    assert cert.holds                                # rank N holds at depth 1 too
    assert not g.recheck_d1(_json(cert.as_dict()))
    from hypothesis import given, settings
    depths = set()

    @settings(max_examples=60, database=None, deadline=None)
    @given(g.d1_instances())
    def body(inst):
        depths.add(len(inst.widths))
        assert g.MIN_DEPTH <= len(inst.widths) <= g.MAX_DEPTH and sum(inst.widths) <= g.MAX_SUM
        assert max(inst.widths) <= g.MAX_WIDTH
    body()
    assert depths <= {2, 3, 4} and 1 not in depths


def test_near_misses_behave_as_the_proposition_says():
    """Opposite and equal pairs: the exact dependency in balls, no certificate at any precision;
    moved apart by 2^-16: certified; a zero row or zero output: a vanishing column."""
    rng = random.Random("near")
    base_blk = g.lemma_block(4, rng)
    pts = g.distinct_abs_points(10, rng)
    for act in an.ACTIVATIONS:
        for kind in g.DEPENDENT:
            blk = g.degenerate_block(kind, base_blk)
            assert all(b.contains(0) for b in g.dependency_balls(kind, act, blk, pts)), (act, kind)
            rows = an.choose_rows(an.jacobian_float(act, [blk], pts))
            for p in (128, 512):
                assert an.minor_det(act, [blk], pts, rows, p).contains(0)
            assert not an.certify(act, [blk], pts)["certified"]
        for kind in g.MOVED:
            moved = g.moved_block(kind, base_blk, 16)
            assert g.distinct_moduli(moved[0])
            assert an.certify(act, [moved], pts, g.PROOF_PRECISIONS)["certified"], (act, kind)
    # the relation has teeth: on the moved (non-opposite) block the same combination excludes 0
    moved = g.moved_block("opposite", base_blk, 4)
    assert not all(b.contains(0) for b in g.dependency_balls("opposite", "gelu", moved, pts))


def _good():
    return _json(g.check(g.D1Instance("gelu", [3, 4], 1, 8)).as_dict())


def test_recheck_refuses_tampering():
    good = _good()
    assert g.recheck_d1(good)
    cases = []
    bad = copy.deepcopy(good)                       # a changed weight of the drawn stack
    bad["data"]["stack"]["theta"][0] += 1
    cases.append(bad)
    bad = copy.deepcopy(good)                       # a d = 2 certificate is outside the claim
    bad["data"]["stack"] = _json(an.make_certificate("gelu", 2, [3, 4], 0))
    cases.append(bad)
    bad = copy.deepcopy(good)                       # the limit block of the wrong width
    bad["data"]["limit"] = _json(an.certify("gelu", [g.lemma_block(6, random.Random(0))],
                                             g.distinct_abs_points(14, random.Random(0))))
    cases.append(bad)
    bad = copy.deepcopy(good)                       # an eps stack that is not the limit block split
    bad["data"]["eps"] = "1/8"
    cases.append(bad)
    bad = copy.deepcopy(good)                       # a dependent near miss said to certify
    bad["data"]["near"]["facts"]["dependent"]["opposite"]["certified"] = True
    cases.append(bad)
    bad = copy.deepcopy(good)                       # a near miss left out
    del bad["data"]["near"]["facts"]["dependent"]["equal"]
    cases.append(bad)
    bad = copy.deepcopy(good)                       # the opposite block replaced by a moved one
    moved = g.moved_block("opposite", ([[Q(v) for v in r] for r in good["data"]["near"]["W_up"]],
                                       [[Q(v) for v in r] for r in good["data"]["near"]["W_down"]]), 4)
    bad["data"]["near"]["facts"]["dependent"]["opposite"]["W_up"] = [[str(v) for v in r] for r in moved[0]]
    cases.append(bad)
    bad = copy.deepcopy(good)                       # another claim's certificate
    bad["claim"] = "depth-analytic-generic"
    cases.append(bad)
    bad = copy.deepcopy(good)                       # a precision beyond what the re-check accepts
    bad["data"]["limit"]["precision"] = 4096
    cases.append(bad)
    bad = copy.deepcopy(good)                       # no instance recorded
    del bad["data"]["instance"]
    cases.append(bad)
    for i, b in enumerate(cases):
        assert not g.recheck_d1(b), i


def test_limit_block_with_an_opposite_pair_is_refused():
    """A limit block with u_2 = -u_1 is outside Proposition D1' (and its determinant contains 0)."""
    good = _good()
    bad = copy.deepcopy(good)
    lim = bad["data"]["limit"]
    lim["theta"][1] = -lim["theta"][0]              # u_2 = -u_1 (theta: U row-major, then W)
    assert not g.recheck_d1(bad)


def test_planted_lie_full_rank_everywhere_fails_the_check(monkeypatch):
    """A rank routine that always reports a nonzero determinant would certify the opposite and equal
    pairs, which Proposition D1' says are dependent: the check must fail, and the run too."""
    real = an.jacobian_and_minor_det

    def lying(name, layers, points, rows, prec):
        J, _ = real(name, layers, points, rows, prec)
        return J, arb(1)

    monkeypatch.setattr(an, "jacobian_and_minor_det", lying)
    cert = g.check(g.D1Instance("silu", [2, 3], 4, 8))
    assert not cert.holds and "near misses" in cert.reason
    res = base.run_check(g.check, 2)
    assert not res.passed


def test_planted_lie_rank_deficient_everywhere_fails_the_check(monkeypatch):
    """A rank routine whose determinant ball always contains 0: nothing certifies, the check fails
    and a good certificate no longer re-checks."""
    good = _good()
    real = an.jacobian_and_minor_det

    def lying(name, layers, points, rows, prec):
        J, _ = real(name, layers, points, rows, prec)
        return J, arb(0)

    monkeypatch.setattr(an, "jacobian_and_minor_det", lying)
    cert = g.check(g.D1Instance("gelu", [3, 4], 1, 8))
    assert not cert.holds and "stack" in cert.reason
    assert not g.recheck_d1(good)


def test_planted_bug_a_dropped_jacobian_column_fails(monkeypatch):
    good = _good()
    real = an.jacobian_point

    def dropped(name, layers, x, ball):
        rows = real(name, layers, x, ball)
        for r in rows:
            r[-1] = r[-1] * 0
        return rows

    monkeypatch.setattr(an, "jacobian_point", dropped)
    assert not g.check(g.D1Instance("gelu", [3, 4], 1, 8)).holds
    assert not g.recheck_d1(good)


def test_oracle_check_runs_and_rechecks():
    res = base.run_check(g.check, 4)
    assert res.passed and res.instances == 4 and res.exact_instances == 4


@pytest.mark.parametrize("fn, dropped", [(g.analytic_d1_index_sets, "generic_weight"),
                                         (g.analytic_d1_relu, "sigma_analytic")])
def test_boundary_instances_hold_and_recheck(fn, dropped):
    assert fn in load().counterexamples
    assert fn.counterexample_info.claims == (g.CLAIM,) and fn.counterexample_info.dropped == dropped
    cert = fn()
    assert cert.holds and cert.claim == g.CLAIM
    doc = _json(cert.as_dict())
    if dropped == "sigma_analytic":
        assert depth_boundary.recheck_depth_counterexample(doc)
        assert doc["data"]["kind"] == "dimension_d1"
    else:
        assert bd.recheck_counterexample(doc)
        assert doc["data"]["rank_certificate"]["d"] == 1 and doc["data"]["rank_certificate"]["certified"]
        bad = copy.deepcopy(doc)                    # the plain stack changed: the values no longer agree
        bad["data"]["plain"][0]["W_down"][0][1] = "1/2"
        assert not bd.recheck_counterexample(bad)


def test_registry_entry():
    reg = {c["id"]: c for c in C.load_registry()}
    c = reg[g.CLAIM]
    assert c["oracle"] == "oracle.claims.depth_analytic_d1:check"
    assert c["informal"] == "informal/depth-analytic-d1.md"
    assert {"d_eq_1", "sigma_analytic", "depth_ge_2", "generic_weight", "bias_free"} == set(c["hypotheses"])
    assert "analytic_rank_certified" not in c["hypotheses"]
    assert c["coq"] == reg["depth-analytic"]["coq"] == reg["depth-analytic-generic"]["coq"]
    assert c["samples"]["d"] == "1"
    # generic_weight and sigma_analytic have a boundary instance in d = 1; d_eq_1 and depth_ge_2 are
    # limits of the proof, not hypotheses shown necessary (at depth 1 the conclusion still holds),
    # with a stated reason; bias_free has neither (nothing requires it)
    dropped = {fn.counterexample_info.dropped for fn in load().counterexamples
               if g.CLAIM in fn.counterexample_info.claims}
    assert dropped == {"generic_weight", "sigma_analytic"}
    assert set(c["coq_counterexamples_absent"]) == {"d_eq_1", "depth_ge_2"}
    assert "gelu-complete" in c["coq_counterexamples_absent"]["depth_ge_2"]
    # the drawn range is stated: depth, widths, summed width, and what 'degenerate' means in d = 1
    assert c["samples"]["degenerate"] is False and "equal modulus" in c["samples_reason"]["degenerate"]
    assert "L = 2..4" in c["samples_reason"]["depth"] and "<= 24" in c["samples_reason"]["width"]
    assert (c["samples"]["depth"], c["samples"]["width"]) == ("2..4", "1..16")
    assert set(c["samples"]["activation"].split(",")) == set(an.ACTIVATIONS)
    assert (g.MIN_DEPTH, g.MAX_DEPTH, g.MAX_WIDTH, g.MAX_SUM) == (2, 4, 16, 24)


def _quick() -> dict:
    from oracle.commands import audit
    entry = next(c for c in C.load_registry() if c["id"] == g.CLAIM)
    return audit.oracle_face(entry, audit.QUICK_INSTANCES, audit.DEFAULT_SEED, progress=lambda *a, **k: None)


def test_quick_audit_passes_with_its_corner_instances():
    from oracle.commands import audit
    out = _quick()
    assert out["status"] == "pass", out.get("failure")
    assert out["examples"] == len(g.d1_corners()) == 4 and out["instances"] == audit.QUICK_INSTANCES
    depths = {s["depth"] for s in out["sizes"]}
    assert {2, 3} <= depths and depths <= {2, 3, 4}, depths
    assert max(s["m"] for s in out["sizes"]) > 12 or any(max(c.widths) > 12 for c in g.d1_corners())
    assert {len(c.widths) for c in g.d1_corners()} == {2, 3, 4}


def test_planted_bug_an_opposite_pair_left_distinct_fails_on_a_corner(monkeypatch):
    """If the 'opposite' near miss were built without making the pair opposite, the relation of
    Proposition D1' would not vanish and the block would certify: a corner instance must catch it."""
    real = g.degenerate_block

    def wrong(kind, base_blk):
        return ([list(r) for r in base_blk[0]], [list(base_blk[1][0])]) if kind == "opposite" else real(kind, base_blk)

    monkeypatch.setattr(g, "degenerate_block", wrong)
    out = _quick()
    assert out["status"] == "FAILED" and out["failing"]["phase"] == "example", out.get("failing")


# ---------------------------------------------------------------- the certificate speaks of the drawn instance

def test_recheck_redraws_from_the_recorded_instance():
    """A certificate of another stack than the recorded instance's (first layer only, shrunk
    widths, another activation, another seed) is refused, though each is a true rank fact."""
    good = _good()
    inst = good["data"]["instance"]
    for other in (g.D1Instance("gelu", [3, 1], 1, 8), g.D1Instance("silu", [3, 4], 1, 8),
                  g.D1Instance("gelu", [3, 4], 2, 8)):
        doc = _json(g.d1_certificate(other).as_dict())
        assert g.recheck_d1(doc)
        doc["data"]["instance"] = inst              # said to be the drawn instance (gelu, [3, 4], 1)
        assert not g.recheck_d1(doc), other
    bad = copy.deepcopy(good)                       # a depth-1 instance record
    bad["data"]["instance"]["widths"] = [7]
    assert not g.recheck_d1(bad)
    bad = copy.deepcopy(good)                       # widths beyond the drawn range
    bad["data"]["instance"]["widths"] = [30, 4]
    assert not g.recheck_d1(bad)


@pytest.mark.parametrize("edit", ["first_layer", "shrunk", "always_gelu"])
def test_planted_check_of_another_stack_fails_the_run(monkeypatch, edit):
    """The check certifying another stack than the drawn one (only the first layer, widths shrunk
    to sum 4, gelu whatever was drawn) must fail the run (referee ref6a F1)."""
    real = g.d1_certificate

    def planted(inst):
        ws = list(inst.widths)
        other = {"first_layer": g.D1Instance(inst.activation, ws[:1], inst.seed, inst.delta),
                 "shrunk": g.D1Instance(inst.activation, g.shrink(ws, 4), inst.seed, inst.delta),
                 "always_gelu": g.D1Instance("gelu", ws, inst.seed, inst.delta)}[edit]
        cert = real(other)
        cert.data["instance"] = {"activation": inst.activation, "widths": ws, "seed": inst.seed,
                                 "delta": inst.delta}   # the lie keeps the drawn instance's record
        return cert

    monkeypatch.setattr(g, "d1_certificate", planted)
    corners = g.d1_corners()
    monkeypatch.setattr(g, "d1_corners", lambda: [c for c in corners if c.activation != "gelu"])
    res = base.run_check(g.check, 2)
    assert not res.passed


def test_check_refuses_a_certificate_recording_another_instance(monkeypatch):
    real = g.d1_certificate
    monkeypatch.setattr(g, "d1_certificate",
                        lambda inst: real(g.D1Instance("gelu", list(inst.widths)[:1] + [1], inst.seed, inst.delta)))
    cert = g.check(g.D1Instance("silu", [3, 4], 1, 8))
    assert not cert.holds and "records the instance" in cert.reason


# ---------------------------------------------------------------- stored determinants (F5) and lying re-checks (F6)

def _forgeries(good):
    """Certificates changed in what they state but not in what the recomputation proves: each must
    be refused.  Returns (name, document, part) triples; part names the rank certificate edited."""
    out = []
    parts = {"stack": lambda d: d["data"]["stack"],
             "limit": lambda d: d["data"]["limit"], "eps stack": lambda d: d["data"]["eps_stack"],
             "moved opposite": lambda d: d["data"]["near"]["facts"]["moved"]["opposite"]}
    for name, get in parts.items():
        for det in ("0", "[1 +/- 0.1]", "[+/- 1e10]"):
            bad = copy.deepcopy(good)
            get(bad)["det"] = det
            out.append((f"{name} det {det}", bad, get))
    for key, val in (("N", 999), ("D_plain", -5)):
        bad = copy.deepcopy(good)
        bad["data"]["limit"][key] = val
        out.append((f"limit {key}", bad, parts["limit"]))
    bad = copy.deepcopy(good)                       # rows_omitted naming another minor
    lim = bad["data"]["limit"]
    nrows = len(lim["points"])
    keep = [i for i in range(nrows) if i not in lim["rows_omitted"]]
    lim["rows_omitted"] = sorted(set(lim["rows_omitted"][1:]) | {keep[0]})
    out.append(("limit rows_omitted", bad, parts["limit"]))
    bad = copy.deepcopy(good)                       # a dependent block said to be certified
    blk = g.degenerate_block("opposite", ([[Q(v) for v in r] for r in good["data"]["near"]["W_up"]],
                                          [[Q(v) for v in r] for r in good["data"]["near"]["W_down"]]))
    pts = [[Q(v) for v in x] for x in good["data"]["near"]["points"]]
    forged = _json(an.certify("gelu", [blk], pts, g.PROOF_PRECISIONS[:1]))
    forged["certified"], forged["det"] = True, "[1.0 +/- 0.1]"
    bad["data"]["near"]["facts"]["moved"]["opposite"] = forged
    out.append(("dependent block certified", bad, parts["moved opposite"]))
    return out


def _accepted(good, recheck):
    return [name for name, bad, _ in _forgeries(good) if recheck(bad)]


def _accepted_by_rank_full(good):
    out = []
    for name, bad, get in _forgeries(good):
        try:
            if an.rank_full(get(bad)):
                out.append(name)
        except (KeyError, TypeError, ValueError):
            pass
    return out


def test_forged_determinants_and_counts_are_refused():
    good = _good()
    assert g.recheck_d1(good) and an.rank_full(good["data"]["limit"])
    assert _accepted(good, g.recheck_d1) == []
    assert _accepted_by_rank_full(good) == []


def test_moved_pair_of_another_activation_is_refused():
    """A silu moved-pair certificate inside a gelu certificate (true for silu, not the claim's
    activation of this instance)."""
    good = _good()
    bad = copy.deepcopy(good)
    mc = bad["data"]["near"]["facts"]["moved"]["opposite"]
    _, (blk,), pts, _ = an.certificate_parts(mc, min_depth=1)
    silu = _json(an.certify("silu", [blk], pts, g.PROOF_PRECISIONS))
    assert silu["certified"] and an.rank_full(silu)
    bad["data"]["near"]["facts"]["moved"]["opposite"] = silu
    assert not g.recheck_d1(bad)


@pytest.mark.parametrize("lie", ["always_true", "trusts_flag"])
def test_a_lying_rank_full_is_seen(monkeypatch, lie):
    """The forgery tests have teeth: with analytic.rank_full made to say yes without recomputing
    (always, or whenever the stored flag says certified) some forgery is accepted."""
    good = _good()
    monkeypatch.setattr(an, "rank_full", {"always_true": lambda cert: True,
                                          "trusts_flag": lambda cert: cert.get("certified") is True}[lie])
    assert _accepted_by_rank_full(good) != []


def test_a_lying_recheck_is_seen(monkeypatch):
    """recheck_d1 made to trust the certificate (returns holds): the forgeries are accepted."""
    good = _good()
    assert _accepted(good, lambda doc: bool(doc.get("holds"))) != []


# ---------------------------------------------------------------- the activation's definition (F7)

def test_activation_matches_its_definition():
    for act in an.ACTIVATIONS:
        assert g.activation_matches(act)
    # the reference tells the three apart
    z = arb(1) / 3
    vals = [g.reference_value(act, z) for act in an.ACTIVATIONS]
    assert not vals[0].overlaps(vals[1]) and not vals[0].overlaps(vals[2]) and not vals[1].overlaps(vals[2])


def _swap(make, target):
    real = an._slopes

    def patched(name):
        s = real(name)
        return make(s) if name == target else s
    return patched


def _even_part(s):
    from oracle.core import activations as A
    return A.Slopes(lambda z: tuple(v - c for v, c in zip(s.ball(z), (z / 2, arb(1) / 2))),
                    lambda z: tuple(v - c for v, c in zip(s.f64(z), (z / 2, 0.5))),
                    lambda z: s.series(z) - z * arb(0.5))


def _plus_half_z(s):
    from oracle.core import activations as A
    return A.Slopes(lambda z: tuple(v + c for v, c in zip(s.ball(z), (z / 2, arb(1) / 2))),
                    lambda z: tuple(v + c for v, c in zip(s.f64(z), (z / 2, 0.5))),
                    lambda z: s.series(z) + z * arb(0.5))


def _other(_s):
    from oracle.core import activations as A
    return A.CATALOG["gelu"].slopes


@pytest.mark.parametrize("make", [_even_part, _plus_half_z, _other], ids=["even_part", "plus_half_z", "is_gelu"])
def test_another_function_in_place_of_silu_fails(monkeypatch, make):
    """silu's slopes replaced by its even part, by silu + z/2 or by gelu: the rank and near-miss
    facts still hold (a linear odd part suffices), the definition check does not (referee F7)."""
    good = _json(g.check(g.D1Instance("silu", [2, 3], 1, 8)).as_dict())
    monkeypatch.setattr(an, "_slopes", _swap(make, "silu"))
    assert not g.activation_matches("silu") and g.activation_matches("gelu")
    cert = g.check(g.D1Instance("silu", [2, 3], 1, 8))
    assert not cert.holds and "activation" in cert.reason
    assert not g.recheck_d1(good)


# ---------------------------------------------------------------- what 'degenerate' means in d = 1 (F3)

def test_degenerate_in_d1_means_zero_equal_or_opposite_rows():
    rng = random.Random(5)
    layers = g.random_layers([5, 6], rng)
    assert not g.d1_degenerate(layers)
    base_blk = g.lemma_block(4, rng)
    for kind in g.DEPENDENT:
        assert g.d1_degenerate([layers[0], g.degenerate_block(kind, base_blk)]), kind
    cert = g.check(g.D1Instance("gelu", [5, 6], 3, 4))
    assert cert.data["drawn"]["degenerate"] is False


# ---------------------------------------------------------------- depth, width and activation held to the registry (F2)

def test_coverage_holds_depth_width_and_activation_to_the_registry():
    c = next(x for x in C.load_registry() if x["id"] == g.CLAIM)
    samples = c["samples"]
    from oracle.claims import coverage as cov
    assert cov.samples_findings(samples, c["samples_reason"]) == []
    assert "depth 2..4" in cov.describe(samples) and "width 1..16" in cov.describe(samples)

    def row(depth, widths, act):
        return {"d": 1, "m": ["at", "above"], "M": "identity", "depth": depth, "width": widths, "activation": act}

    full = [row(2, [1, 16], "gelu"), row(3, [2, 3, 4], "silu"), row(4, [1, 1, 1, 1], "gelu_tanh")]
    assert cov.missing(samples, cov.tally(full)) == [] and cov.outside(samples, cov.tally(full)) == []
    only_two = [row(2, [1, 16], a) for a in an.ACTIVATIONS]
    assert cov.missing(samples, cov.tally(only_two)) == ["depth 3", "depth 4"]
    assert cov.outside(samples, cov.tally(full + [row(1, [20], "gelu")])) == ["depth 1", "width 20"]
    assert cov.missing(samples, cov.tally([row(2, [1, 12], "gelu"), row(3, [1, 1, 1], "gelu"),
                                           row(4, [1, 1, 1, 1], "gelu")])) == \
        ["width 16", "activation gelu_tanh", "activation silu"]
    # a check that records nothing misses every declared value
    assert "depth 2" in cov.missing(samples, cov.tally([{"d": 1, "m": ["at"], "M": "identity"}]))
    cert = g.check(g.D1Instance("silu", [5, 6], 3, 4))
    assert (cert.data["drawn"]["depth"], cert.data["drawn"]["width"], cert.data["drawn"]["activation"]) == \
        (2, [5, 6], "silu")
