"""Claim depth-d1-biased (issue 29): d = 1 relu stacks with biases decided exactly where part (B)
applies, through decide_stack, the CLI (check --json --emit, recheck) and the oracle check."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
from fractions import Fraction as Q
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from oracle.algebra.stacks import d1 as sd1
from oracle.claims import depth_d1 as cd1
from oracle.core import stackfiles
from oracle.core.blocks import Block, Stack
from oracle.decide import stacks

ABSORB = shutil.which("absorb", path=str(Path(sys.executable).parent)) or "absorb"


def absorb(*argv: object) -> subprocess.CompletedProcess:
    return subprocess.run([ABSORB, *map(str, argv)], capture_output=True, text=True, timeout=600)


def _biased(spec, skips=None):
    """Blocks (v, w, b_up, b_down) of a d = 1 residual stack (skips: scalar M per block)."""
    out = []
    for k, (U, W, bu, bd) in enumerate(spec):
        kw = {} if skips is None else {"M": np.array([[float(skips[k])]])}
        out.append(Block("relu", W_up=np.array([[float(v)] for v in U]), W_down=np.array([[float(w) for w in W]]),
                         b_up=np.array([float(c) for c in bu]), b_down=np.array([float(bd)]), **kw))
    return Stack(out)


def _pl(stack: Stack, residual: bool):
    blocks = []
    for b in stack.blocks:
        rec = {"v": [Q(float(r[0])) for r in b.W_up], "w": [Q(float(w)) for w in b.W_down[0]],
               "b_up": [Q(float(c)) for c in (b.b_up if b.b_up is not None else np.zeros(b.m))],
               "b_down": Q(float(b.b_down[0])) if b.b_down is not None else Q(0)}
        if residual:
            rec["M"] = Q(float(b.M[0][0])) if b.M is not None else Q(1)
        blocks.append(rec)
    return sd1.pl_stack(blocks, residual=residual)


# ---------------------------------------------------------------- (B1) one layer

def _f(knots_slopes):
    """A PL map from its left slope, knots with jumps, value 0 at 0."""
    left, kinks = knots_slopes
    blk = {"v": [Q(1)] * len(kinks), "w": [dj for _, dj in kinks], "b_up": [-t for t, _ in kinks], "M": left}
    return sd1.pl_stack([blk], residual=True)


def test_one_layer_cases():
    # two kinks with jumps 1 and -4, right slope 1 + 1 - 4 = -2: subsets {0, 1, -4, -3}: not G_2 ...
    f = _f((Q(1), [(Q(0), Q(1)), (Q(1, 2), Q(-4))]))
    assert [dj for _, dj in sd1.pl_kinks(f)] == [1, -4] and f.right == -2
    assert sd1.one_layer(f, 2)["in_G"] is False and sd1.one_layer(f, 1)["in_G"] is False
    # ... but G_3 (a spare unit sets the end slopes) and the layer equals f exactly
    g = sd1.one_layer(f, 3)
    assert g["in_G"] is True
    layer = sd1.pl_stack([{"v": [v for v, _, _ in g["units"]], "w": [w for _, _, w in g["units"]],
                           "b_up": [c for _, c, _ in g["units"]], "b_down": g["e"]}], residual=False)
    assert sd1.pl_equal(f, layer)
    # left slope 0: the subset {1} reaches... right slope 1 - 4 = -3 = the subset {-4} + ... no: {1, -4} = -3
    h = _f((Q(0), [(Q(0), Q(1)), (Q(1, 2), Q(-4))]))
    assert sd1.one_layer(h, 2)["in_G"] is True and sd1.one_layer(h, 2)["subset"] == [0, 1]
    # K = 0: a constant is one unit (weight 0), a non-constant affine map needs two
    aff = _f((Q(3), []))
    assert sd1.one_layer(aff, 1)["in_G"] is False and sd1.one_layer(aff, 2)["in_G"] is True
    assert sd1.one_layer(_f((Q(0), [])), 1)["in_G"] is True
    assert sd1.kink_bound([1, 1]) == 3 and sd1.kink_bound([2, 3]) == 11


def test_coinciding_kinks_and_zero_units():
    # two units at the kink 1 whose jumps cancel, one zero unit: F = x, no kink at all
    st = _biased([([1, 2, 1], [1, -0.5, 0], [-1, -2, 4], 0)])
    F = _pl(st, True)
    assert sd1.pl_kinks(F) == [] and F.left == F.right == 1
    dec = sd1.decide_d1_biased(sd1.pl_blocks_from_json(sd1.pl_blocks_json([
        {"v": [Q(1), Q(2), Q(1)], "w": [Q(1), Q(-1, 2), Q(0)], "b_up": [Q(-1), Q(-2), Q(4)], "b_down": Q(0), "M": Q(1)}])),
        [3])
    assert dec["verdict"] == "absorbable" and dec["kinks"] == 0


def test_subset_sum_meets_in_the_middle():
    jumps = [Q(k + 1, 3) for k in range(20)]
    R = sd1.subset_with_sum(jumps, Q(17, 3) + Q(20, 3))
    assert R is not None and sum(jumps[k] for k in R) == Q(37, 3)
    assert sd1.subset_with_sum([Q(2), Q(4), Q(8)], Q(3)) is None


# ---------------------------------------------------------------- decisions (decide_stack)

def test_boundary_instance_is_absorbable_and_rechecks():
    """depth-d1's boundary instance d1_biased: x + relu(-x - 1), then y + 0 relu(y): relu(x + 1) - 1."""
    st = _biased([([-1], [1], [-1], 0), ([1], [0], [0], 0)])
    res = stacks.decide_stack(st)
    assert (res["verdict"], res["claim"], res["exact"]) == ("absorbable", "depth-d1-biased", True)
    assert res["replacing_biases"] == "allowed"
    js = json.loads(json.dumps(res))
    assert stacks.recheck_decision(js)
    forged = json.loads(json.dumps(res))
    forged["plain_stack"][0]["b_up"] = ["2"]
    assert not stacks.recheck_decision(forged)
    forged = json.loads(json.dumps(res))
    forged["certificate"]["d1_biased"]["plain"][1]["b_down"] = ["0"]
    forged["plain_stack"] = forged["certificate"]["d1_biased"]["plain"]
    assert not stacks.recheck_decision(forged)
    forged = json.loads(json.dumps(res))
    forged["claim"] = "depth-d1"
    assert not stacks.recheck_decision(forged)


def test_bounded_image_after_a_width_one_layer():
    # block 1: x - 2 relu(x) + 2 relu(x - 1), slopes 1, -1, 1 (not monotone, image R); block 2 width 1
    st = _biased([([1, 1], [-2, 2], [0, -1], 0), ([1], [0.5], [0], 0)])
    res = stacks.decide_stack(st)
    assert (res["verdict"], res["claim"], res["exact"]) == ("not_absorbable", "depth-d1-biased", True)
    dec = res["certificate"]["d1_biased"]
    assert dec["part"] == "ii'" and "bounded above or below" in res["reason"]
    assert res["replacing_biases"] == "both"
    assert stacks.recheck_decision(json.loads(json.dumps(res)))
    forged = json.loads(json.dumps(res))
    forged["certificate"]["pl_blocks"][1]["w"] = ["-1/2"]   # an x - relu(x)-like stack: other slopes
    assert not stacks.recheck_decision(forged)
    # the same block 1 before a width-2 block: F is in G_2? its jumps -2, 2, right slope 1: {-2, 2} -> 0, no;
    # {2} -> 2, no; {} -> 0; {-2} -> -2: not in G_2; block by block: block 1 has K = 2 = m, block 2 is
    # y + relu(y) + 0 relu(y): K = 1 < 2: in G_2, block 1 is not: undecided, with the reason
    st2 = _biased([([1, 1], [-2, 2], [0, -1], 0), ([1, 1], [0.5, 0], [0, 0], 0)])
    res2 = stacks.decide_stack(st2)
    assert res2["verdict"] == "undecided" and res2["claim"] is None
    assert "does not decide whether it factors through deeper layers" in res2["reason"]


def test_block_by_block():
    # y + relu(y) (slopes 1, 2) then z - 2 relu(z - 1) (slopes 1, -1): F has jumps 1, -4 and right slope
    # -2: not in G_2; each block has one kink and a spare unit, so it is one layer of width 2
    st = _biased([([1, 0], [1, 0], [0, 0], 0), ([1, 0], [-2, 0], [-1, 0], 0)])
    res = stacks.decide_stack(st)
    assert (res["verdict"], res["claim"]) == ("absorbable", "depth-d1-biased")
    assert res["certificate"]["d1_biased"]["part"] == "B5"
    assert stacks.recheck_decision(json.loads(json.dumps(res)))
    P = sd1.pl_stack(sd1.biased_layers_from_json(res["plain_stack"]), residual=False)
    assert sd1.pl_equal(P, _pl(st, True))


def test_kink_count_excludes_narrow_widths():
    # 4 kinks (a zigzag with a flat left end); plain widths (1, 1) reach at most 3
    blocks = [{"v": [Q(1)] * 4, "w": [Q(1), Q(-2), Q(2), Q(-2)], "b_up": [Q(0), Q(-1), Q(-2), Q(-3)], "M": Q(0)}]
    dec = sd1.decide_d1_biased(blocks, [1, 1])
    assert dec["verdict"] == "not_absorbable" and dec["part"] == "kinks" and dec["kink_bound"] == 3
    assert sd1.biased_claim(dec) == "depth-d1-biased" and sd1.recheck_d1_biased(blocks, dec)


def test_part_b_agrees_with_part_a_on_bias_free_stacks():
    """Every bias-free d = 1 stack with weights in {-1, 0, 1, 2} and widths in {1, 2}^2 (skips 1 and -1):
    part (B) decides it and agrees with depth-d1's pair criterion."""
    vals = (Q(-1), Q(0), Q(1), Q(2))
    count = 0
    for widths in ((1, 1), (1, 2), (2, 1)):
        for combo in itertools.islice(itertools.product(vals, repeat=2 * sum(widths)), 0, None, 7):
            it = iter(combo)
            layers = [([[next(it)] for _ in range(m)], [[next(it) for _ in range(m)]]) for m in widths]
            for skip in (Q(1), Q(-1)):
                skips = [skip] * len(widths)
                a = sd1.decide_d1(layers, skips)
                b = sd1.decide_d1_biased(sd1.layers_as_pl_blocks(layers, skips), list(widths))
                assert b["verdict"] != "undecided", (layers, skips)
                assert (b["verdict"] == "absorbable") == a["absorbable"], (layers, skips, a, b)
                count += 1
    assert count > 300


# ---------------------------------------------------------------- the CLI

def test_cli_check_emit_recheck_and_forgery(tmp_path):
    st = _biased([([-1], [1], [-1], 0), ([1], [0], [0], 0)])
    f = tmp_path / "stack.npz"
    stackfiles.write_stack(st, f)
    out = tmp_path / "plain.npz"
    r = absorb("check", f, "--json", "--emit", out)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["verdict"], doc["claim"], doc["exact"], doc["replacing_biases"]) == \
        ("absorbable", "depth-d1-biased", True, "allowed")
    back = stackfiles.read_stack(out)
    assert stackfiles.stack_kind(back) == "plain_stack" and [b.m for b in back.blocks] == [1, 1]
    assert back.blocks[0].b_up is not None and back.blocks[1].b_down is not None
    # the emitted plain stack is F on all of R (exact piecewise-linear comparison of the two files)
    assert sd1.pl_equal(_pl(back, False), _pl(stackfiles.read_stack(f), True))
    cert = tmp_path / "cert.json"
    cert.write_text(r.stdout)
    rc = absorb("recheck", cert)
    assert rc.returncode == 0 and rc.stdout.startswith("holds:"), rc.stdout + rc.stderr
    forged = json.loads(r.stdout)
    forged["plain_stack"][1]["b_up"] = ["1/2"]
    bad = tmp_path / "forged.json"
    bad.write_text(json.dumps(forged))
    rb = absorb("recheck", bad)
    assert rb.returncode != 0 and not rb.stdout.startswith("holds:"), rb.stdout
    text = absorb("check", f)
    assert "verdict: absorbable (depth-d1-biased, exact)" in text.stdout
    assert "with biases allowed" in text.stdout


def test_cli_not_absorbable_and_undecided(tmp_path):
    f = tmp_path / "zigzag.npz"
    stackfiles.write_stack(_biased([([1, 1], [-2, 2], [0, -1], 0), ([1], [0.5], [0], 0)]), f)
    r = absorb("check", f, "--json", "--emit", tmp_path / "none.npz")
    doc = json.loads(r.stdout)
    assert (doc["verdict"], doc["claim"]) == ("not_absorbable", "depth-d1-biased")
    assert not (tmp_path / "none.npz").exists()
    cert = tmp_path / "cert.json"
    cert.write_text(r.stdout)
    assert absorb("recheck", cert).stdout.startswith("holds:")
    g = tmp_path / "open.npz"
    stackfiles.write_stack(_biased([([1, 1], [-2, 2], [0, -1], 0), ([1, 1], [0.5, 0], [0, 0], 0)]), g)
    r2 = absorb("check", g, "--json")
    doc2 = json.loads(r2.stdout)
    assert doc2["verdict"] == "undecided" and doc2["exact"] is False
    cert2 = tmp_path / "cert2.json"
    cert2.write_text(r2.stdout)
    assert absorb("recheck", cert2, g).stdout.startswith("holds:")


# ---------------------------------------------------------------- the oracle check

@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(inst=cd1.d1_biased_instances())
def test_oracle_check_holds_and_rechecks(inst):
    c = cd1.check_d1_biased(inst)
    assert c.holds, c.data
    js = json.loads(json.dumps(c.as_dict()))
    assert cd1.recheck_d1_biased_cert(js)
    if c.data["decision"]["verdict"] == "absorbable":
        bad = json.loads(json.dumps(c.as_dict()))
        bad["data"]["decision"]["plain"][0]["b_down"] = ["12345"]
        assert not cd1.recheck_d1_biased_cert(bad)


def test_oracle_brute_force_part_b2():
    """Every biased plain stack of widths (1, 1) with parameters in {-1, 0, 1}: at most 3 kinks, all constant
    on a half-line and bounded on one side; widths (2,) reach 2 kinks and images unbounded on both sides."""
    b = cd1.biased_brute_force_b((1, 1))
    assert b["stacks"] == 3 ** 8 and b["most_kinks"] <= 3
    assert b["constant_on_a_half_line"] == b["bounded_on_one_side"] == b["stacks"]
    w2 = cd1.biased_brute_force_b((2,))
    assert w2["most_kinks"] == 2 and w2["bounded_on_one_side"] < w2["stacks"]


@pytest.mark.parametrize("kind", ["planted", "near_miss"])
def test_planted_and_near_miss_are_drawn(kind):
    seen = []

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(inst=cd1.d1_biased_instances())
    def run(inst):
        if inst.kind == kind:
            seen.append(cd1.check_d1_biased(inst).data["drawn"])
    run()
    assert seen and any(d["planted"] or d["near_miss"] for d in seen)


def test_cli_witness_on_the_emitted_stack(tmp_path):
    """absorb witness on the residual stack and its emitted plain stack: agree (d = 1, exact), re-checked
    by absorb recheck; a plain stack with one bias changed differs at an exact point."""
    st = _biased([([1, 0], [1, 0], [0, 0], 0), ([1, 0], [-2, 0], [-1, 0], 0.5)])
    f, out = tmp_path / "res.npz", tmp_path / "plain.npz"
    stackfiles.write_stack(st, f)
    r = absorb("check", f, "--json", "--emit", out)
    assert json.loads(r.stdout)["verdict"] == "absorbable", r.stdout + r.stderr
    w = absorb("witness", f, out, "--json")
    assert w.returncode == 0, w.stderr
    doc = json.loads(w.stdout)
    assert (doc["verdict"], doc["exact"], doc["evidence"]["kind"]) == ("agree", True, "pl1")
    wf = tmp_path / "w.json"
    wf.write_text(w.stdout)
    assert absorb("recheck", wf).stdout.startswith("holds:")
    forged = dict(doc, evidence={**doc["evidence"], "end_slopes": ["5", "5"]})
    ff = tmp_path / "wf.json"
    ff.write_text(json.dumps(forged))
    assert not absorb("recheck", ff).stdout.startswith("holds:")
    back = stackfiles.read_stack(out)
    back.blocks[1].b_down = np.array([float(back.blocks[1].b_down[0]) + 0.25])
    wrong = tmp_path / "wrong.npz"
    stackfiles.write_stack(back, wrong)
    w2 = absorb("witness", f, wrong, "--json")
    doc2 = json.loads(w2.stdout)
    assert doc2["verdict"] == "differ" and doc2["R_value"] != doc2["P_value"]
    wf2 = tmp_path / "w2.json"
    wf2.write_text(w2.stdout)
    assert absorb("recheck", wf2).stdout.startswith("holds:")
    doc2["P_value"] = doc2["R_value"]
    wf2.write_text(json.dumps(doc2))
    assert not absorb("recheck", wf2).stdout.startswith("holds:")


def test_cli_text_output_for_both_claims(tmp_path):
    """The text output of absorb check names the claim and one certificate line, for depth-d1's own
    biased parts and for depth-d1-biased."""
    f = tmp_path / "mono.npz"
    stackfiles.write_stack(_biased([([1, -1], [0.5, 0.25], [-1, 0], 0), ([1], [0.25], [0.5], -1)]), f)
    r = absorb("check", f)
    assert r.returncode == 0, r.stderr
    assert "verdict: not_absorbable (depth-d1-biased, exact)" in r.stdout and "part ii" in r.stdout
    g = tmp_path / "zig.npz"
    stackfiles.write_stack(_biased([([1, 1], [-2, 2], [0, -1], 0), ([1], [0.5], [0], 0)]), g)
    r2 = absorb("check", g)
    assert "verdict: not_absorbable (depth-d1-biased, exact)" in r2.stdout and "3 kinks" in r2.stdout and "part ii'" in r2.stdout


def test_block_by_block_on_images():
    """Block 1 (kinks 1/2 and 4, slopes 1, -1, 0) has the image (-oo, 1/2]; block 2 has kinks -2 and 2 on R
    and is no layer of width 2 there, but only the kink -2 lies in the image: it is one layer of width 2
    on (-oo, 1/2], so the stack is a plain stack of widths (2, 2) (part B6)."""
    st = _biased([([0.5, 2], [2, -1], [-2, -1], 0), ([-0.5, -1], [-1.5, -1], [1, -2], -1.5)])
    blocks = sd1.pl_blocks_from_json(sd1.pl_blocks_json([
        {"v": [Q(1, 2), Q(2)], "w": [Q(2), Q(-1)], "b_up": [Q(-2), Q(-1)], "b_down": Q(0), "M": Q(1)},
        {"v": [Q(-1, 2), Q(-1)], "w": [Q(-3, 2), Q(-1)], "b_up": [Q(1), Q(-2)], "b_down": Q(-3, 2), "M": Q(1)}]))
    assert sd1.one_layer(sd1.block_pl(blocks[1]), 2)["in_G"] is False
    assert sd1.image_interval(sd1.block_pl(blocks[0])) == (None, Q(1, 2))
    res = stacks.decide_stack(st)
    assert (res["verdict"], res["claim"], res["exact"]) == ("absorbable", "depth-d1-biased", True)
    assert res["certificate"]["d1_biased"]["part"] == "B6"
    assert stacks.recheck_decision(json.loads(json.dumps(res)))
    assert sd1.pl_equal(sd1.pl_stack(sd1.biased_layers_from_json(res["plain_stack"]), residual=False), _pl(st, True))
    forged = json.loads(json.dumps(res))
    forged["plain_stack"][1]["W_down"][0][0] = "1"
    assert not stacks.recheck_decision(forged)


def test_one_layer_widths_decided_by_b1():
    """Plain widths (m,): F is a plain stack iff it is in G_m, so (B1) decides both ways."""
    blocks = [{"v": [Q(1), Q(1)], "w": [Q(-2), Q(2)], "b_up": [Q(0), Q(-1)], "b_down": Q(0), "M": Q(1)}]
    no = sd1.decide_d1_biased(blocks, [2])
    assert (no["verdict"], no["part"]) == ("not_absorbable", "B1") and sd1.recheck_d1_biased(blocks, no)
    yes = sd1.decide_d1_biased(blocks, [3])
    assert yes["verdict"] == "absorbable" and sd1.recheck_d1_biased(blocks, yes)
