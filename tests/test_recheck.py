"""`absorb recheck CERT.json [FILE]`: documents of check, witness and audit re-verify from
themselves (and the weights), and a tampered document of every kind is refused with exit 1.
Claims exercised: relu-complete, relu-limit, gated-impossible, homogeneous-impossible (block
verdicts), relu-gelu-iff (stack verdicts, the audit sample), skip-reduction (audit sample)."""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path

import numpy as np
import pytest

import oracle.claims as claim_modules
from oracle.claims import base
from oracle.cli import main
from oracle.core import io as bio
from oracle.core.blocks import Block

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def document(capsys, tmp_path: Path, name: str, *argv: str) -> tuple[Path, dict]:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    doc = json.loads(out)
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return p, doc


def write(tmp_path: Path, name: str, doc: dict) -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return p


def _relu2(tmp_path: Path) -> Path:
    b = Block("relu2", W_up=np.array([[1.0, 0.5], [0.0, 1.0]]), W_down=np.array([[1.0, 0.0], [0.5, 1.0]]))
    p = tmp_path / "relu2.npz"
    bio.write_block(b, p)
    return p


BLOCKS = {"relu_absorbable": ("relu-complete", "absorbable"), "gelu_biased": ("relu-limit", "absorbable"),
          "gelu_random": ("relu-limit", "not_absorbable"), "swiglu_random": ("gated-impossible", "not_absorbable"),
          "relu_degenerate": ("relu-complete", "absorbable")}


@pytest.mark.parametrize("name", sorted(BLOCKS) + ["relu2"])
def test_block_documents_hold_and_tampering_is_refused(tmp_path, capsys, name):
    f = _relu2(tmp_path) if name == "relu2" else EX / f"{name}.npz"
    cert, doc = document(capsys, tmp_path, "c.json", "check", f)
    if name in BLOCKS:
        assert (doc["claim"], doc["verdict"]) == BLOCKS[name]
    code, out, _ = run(capsys, "recheck", cert, f)
    assert code == 0 and out.startswith("holds:"), out

    flipped = {"absorbable": "not_absorbable", "not_absorbable": "absorbable", "undecided": "absorbable"}
    bad = dict(doc, verdict=flipped[doc["verdict"]])
    code, out, _ = run(capsys, "recheck", write(tmp_path, "v.json", bad), f)
    assert code == 1 and "does not hold" in out and "supports" in out, out

    bad = dict(doc, claim="relu-gelu-iff" if doc["claim"] != "relu-gelu-iff" else "relu-limit")
    code, out, _ = run(capsys, "recheck", write(tmp_path, "c2.json", bad), f)
    assert code == 1 and "claim" in out, out

    # the same document against other weights
    other = EX / ("swiglu_random.npz" if name != "swiglu_random" else "gelu_random.npz")
    code, out, _ = run(capsys, "recheck", cert, other)
    assert code == 1, out


def test_tampered_certificate_contents_are_refused(tmp_path, capsys):
    f = EX / "gelu_biased.npz"
    _, doc = document(capsys, tmp_path, "c.json", "check", f)
    assert doc["certificate"]["kind"] == "relu_limit" and "S" in doc["certificate"]
    bad = copy.deepcopy(doc)
    S = bad["certificate"]["S"]
    bad["certificate"]["S"] = S[:-1] if len(S) > 1 else [S[0] + 1]
    code, out, _ = run(capsys, "recheck", write(tmp_path, "s.json", bad), f)
    assert code == 1 and "does not re-verify" in out, out
    f = EX / "swiglu_random.npz"
    _, doc = document(capsys, tmp_path, "g.json", "check", f)
    bad = copy.deepcopy(doc)
    i, j, v = bad["certificate"]["M_nonzero_entry"]
    bad["certificate"]["M_nonzero_entry"] = [i, (j + 1) % 3, v]  # an entry of I that is 0
    code, out, _ = run(capsys, "recheck", write(tmp_path, "g2.json", bad), f)
    assert code == 1, out


def test_stack_documents(tmp_path, capsys):
    f = EX / "relu_stack_absorbable.npz"
    cert, doc = document(capsys, tmp_path, "st.json", "check", f)
    assert doc["input"] == "stack"
    code, out, _ = run(capsys, "recheck", cert)
    assert code == 0, out
    bad = copy.deepcopy(doc)
    bad["certificate"]["chosen_sets"][0] = [0]
    code, out, _ = run(capsys, "recheck", write(tmp_path, "st2.json", bad))
    assert code == 1 and "does not re-verify" in out, out


def test_witness_documents(tmp_path, capsys):
    R = EX / "relu_absorbable.npz"
    plain = tmp_path / "plain.npz"
    assert main(["check", str(R), "--emit", str(plain)]) == 0
    capsys.readouterr()
    cert, doc = document(capsys, tmp_path, "w.json", "witness", R, plain)
    assert doc["verdict"] == "agree"
    assert run(capsys, "recheck", cert)[0] == 0  # the paths the document names
    assert run(capsys, "recheck", cert, R, plain)[0] == 0
    # a 'differ' document for two blocks that are the same function
    bad = dict(doc, verdict="differ", point=["1", "0"])
    code, out, _ = run(capsys, "recheck", write(tmp_path, "w2.json", bad), R, plain)
    assert code == 1, out
    other = EX / "relu_degenerate.npz"
    cert, doc = document(capsys, tmp_path, "w3.json", "witness", R, other)
    assert doc["verdict"] == "differ" and run(capsys, "recheck", cert)[0] == 0
    bad = dict(doc, verdict="agree")
    assert run(capsys, "recheck", write(tmp_path, "w4.json", bad))[0] == 1


def _audit_doc() -> dict:
    """The claims part of an audit document, built with the audit's own runner (no Coq needed)."""
    reg = {c["id"]: c for c in tomllib.loads((ROOT / "proofs" / "claims.toml").read_text())["claim"]}
    claims = []
    for cid in ("skip-reduction", "relu-gelu-iff", "gated-impossible"):
        res = base.run_check(claim_modules.resolve(reg[cid]["oracle"]), 3)
        claims.append({"id": cid, "oracle": {"status": "pass", "ref": reg[cid]["oracle"], **res.as_dict()},
                       "registry": {"oracle": reg[cid]["oracle"]}})
    return json.loads(json.dumps({"ok": True, "claims": claims, "counterexamples": []}))


def test_audit_documents(tmp_path, capsys):
    doc = _audit_doc()
    code, out, _ = run(capsys, "recheck", write(tmp_path, "a.json", doc))
    assert code == 0 and "3 claim certificates" in out, out
    bad = copy.deepcopy(doc)
    bad["claims"][0]["oracle"]["sample"]["data"]["reduction"]["M_inverse"] = [["2"] * len(row) for row in
                                                                              bad["claims"][0]["oracle"]["sample"]["data"]["reduction"]["M_inverse"]]
    code, out, _ = run(capsys, "recheck", write(tmp_path, "a1.json", bad))
    assert code == 1 and "skip-reduction" in out, out
    bad = copy.deepcopy(doc)
    s = bad["claims"][1]["oracle"]["sample"]
    if s["data"].get("kind") == "sufficiency":
        s["data"]["W_down"][0][0] = "7"
        code, out, _ = run(capsys, "recheck", write(tmp_path, "a2.json", bad))
        assert code == 1 and "relu-gelu-iff" in out, out
    bad = copy.deepcopy(doc)
    bad["claims"][2]["oracle"]["sample"]["holds"] = False
    assert run(capsys, "recheck", write(tmp_path, "a3.json", bad))[0] == 1
    bad = copy.deepcopy(doc)
    bad["claims"][2]["id"] = "relu-limit"  # a certificate presented as another claim's
    assert run(capsys, "recheck", write(tmp_path, "a4.json", bad))[0] == 1
    bad = copy.deepcopy(doc)
    bad["claims"][0]["registry"]["oracle"] = "os:system"  # never imported
    code, out, _ = run(capsys, "recheck", write(tmp_path, "a5.json", bad))
    assert code == 1 and "registered checks" in out, out


def test_bad_input_exits_2(tmp_path, capsys):
    (tmp_path / "x.json").write_text("{not json")
    code, _, err = run(capsys, "recheck", tmp_path / "x.json")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "not a JSON document" in err
    (tmp_path / "n.json").write_text('{"verdict": "absorbable", "certificate": {"kind": "index_set"}, "x": NaN}')
    assert run(capsys, "recheck", tmp_path / "n.json", EX / "relu_absorbable.npz")[0] == 2
    (tmp_path / "b.json").write_text(json.dumps({"verdict": "absorbable", "claim": None, "certificate": {}}))
    code, _, err = run(capsys, "recheck", tmp_path / "b.json")
    assert code == 2 and "needs its block file" in err
    assert run(capsys, "recheck", tmp_path / "absent.json")[0] == 2


def test_version_and_a_help_line_for_every_option(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and "skip-absorption" in capsys.readouterr().out
    from oracle.cli import _parser
    p = _parser()
    subs = next(a for a in p._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, sp in [("absorb", p)] + list(subs.choices.items()):
        for act in sp._actions:
            if act.dest == "help":
                continue
            assert act.help and act.help.strip(), f"{name}: option {act.option_strings or act.dest} has no help line"


def test_the_property_test_example_runs():
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "pytest", "-o", "addopts=", "-q", "-p", "no:cacheprovider",
                        str(EX / "property_test_example.py")], cwd=ROOT, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "4 passed" in r.stdout


# ---------------------------------------------------------------- the depth-analytic sweep

SWEEP = ROOT / "proofs" / "certificates" / "depth-analytic-sweep.json"


def _small_sweep() -> dict:
    """A complete sweep document of its own: the committed entries with d = 1, L = 2, widths <= 2
    (4 width tuples), cheap enough to recompute in full for every attack."""
    full = json.loads(SWEEP.read_text())
    entries = [e for e in full["entries"] if e["d"] == 1 and len(e["widths"]) == 2 and max(e["widths"]) <= 2]
    return dict(full, max_d=1, depths=[2], max_width=2, entries=copy.deepcopy(entries))


def test_small_sweep_holds_with_json_and_progress(tmp_path, capsys):
    doc = _small_sweep()
    assert len(doc["entries"]) == 4
    code, out, err = run(capsys, "recheck", write(tmp_path, "s.json", doc), "--json")
    res = json.loads(out)
    assert code == 0 and res["holds"] and res["kind"] == "sweep", out
    assert (res["entries"], res["recomputed"], res["determinants"]) == (4, 4, 12)
    assert 0 < res["worst_ratio"] < 1 and "4/4 entries recomputed" in err
    code, out, _ = run(capsys, "recheck", write(tmp_path, "s.json", doc))
    assert code == 0 and out.startswith("holds: 4 width tuples cover the claimed range"), out


def _entry(doc: dict, widths: list) -> dict:
    return next(e for e in doc["entries"] if e["widths"] == widths)


def _widened(det: str) -> str:
    from flint import arb
    b = arb(det)
    return f"[{float(b.mid()):.6g} +/- {2 * abs(float(b.mid())):.3g}]"


SWEEP_ATTACKS = {
    "weight": (lambda d: _entry(d, [2, 1])["theta"].__setitem__(0, _entry(d, [2, 1])["theta"][0] + 1),
               "does not overlap the stored"),
    "point": (lambda d: _entry(d, [1, 2])["points"][0].__setitem__(0, _entry(d, [1, 2])["points"][0][0] + 1),
              "does not overlap the stored"),
    "det_ball_contains_0": (lambda d: _entry(d, [2, 2])["results"]["silu"].__setitem__(
        "det", _widened(_entry(d, [2, 2])["results"]["silu"]["det"])), "contains 0"),
    "missing_tuple": (lambda d: d["entries"].remove(_entry(d, [2, 2])),
                      "the claimed range includes d = 1, widths (2, 2), which has no entry"),
    "duplicated_entry": (lambda d: d["entries"].append(copy.deepcopy(d["entries"][1])), "are both d = 1"),
    "minor_not_NxN": (lambda d: _entry(d, [1, 1])["results"]["gelu"].__setitem__(
        "rows_omitted", _entry(d, [1, 1])["results"]["gelu"]["rows_omitted"][1:]), "not N x N"),
    "outside_range": (lambda d: d["entries"].append(dict(copy.deepcopy(d["entries"][0]), d=2)),
                      "outside the claimed range"),
    "not_certified": (lambda d: d["entries"][0]["results"]["gelu_tanh"].__setitem__("certified", False),
                      "not certified for gelu_tanh"),
}


@pytest.mark.parametrize("attack", sorted(SWEEP_ATTACKS))
def test_sweep_attacks_are_refused_with_a_reason(tmp_path, capsys, attack):
    doc = _small_sweep()
    edit, why = SWEEP_ATTACKS[attack]
    edit(doc)
    code, out, _ = run(capsys, "recheck", write(tmp_path, "bad.json", doc))
    assert code == 1 and out.startswith("does not hold: ") and why in out, out
    assert len(out.strip().splitlines()) == 1


def test_committed_sweep_deterministic_subset(capsys):
    """The test suite recomputes every 10th entry of the committed sweep (the coverage of the
    claimed range is checked in full); `absorb recheck proofs/certificates/depth-analytic-sweep.json`
    recomputes all 1008 (about a minute, docs/README)."""
    code, out, _ = run(capsys, "recheck", SWEEP, "--every", "10", "--json")
    res = json.loads(out)
    assert code == 0 and res["holds"], out
    assert (res["entries"], res["recomputed"], res["determinants"]) == (1008, 101, 303)
    assert "every 10th entry (101 of 1008)" in res["reason"]


def test_sweep_options_and_bad_sweep_input(tmp_path, capsys):
    code, _, err = run(capsys, "recheck", SWEEP, "--every", "0")
    assert code == 2 and "--every must be a positive integer" in err
    f = EX / "relu_absorbable.npz"
    cert, _ = document(capsys, tmp_path, "c.json", "check", f)
    code, _, err = run(capsys, "recheck", cert, f, "--every", "2")
    assert code == 2 and "sweep document only" in err
    code, _, err = run(capsys, "recheck", write(tmp_path, "v.json", dict(_small_sweep(), format="depth-analytic-sweep/9")))
    assert code == 2 and "not the supported" in err
    code, out, _ = run(capsys, "recheck", write(tmp_path, "r.json", dict(_small_sweep(), max_width=10 ** 6)))
    assert code == 1 and "claimed range is malformed" in out, out
