"""Forged evidence is refused, with the field named: a check document whose stated facts are false
(violated conditions, nondegeneracy, index sets, c_S, m*, distances, widths, bounds of a linear
functional, the block summary), and an audit document whose bound fields (hashes of the proof
sources and pinned statements, seed, instance counts, per-claim Coq and Lean status) were changed.
Each forgery exits 1 with one line naming the field.
Claims exercised: relu-limit, relu-complete, relu2-biased, gated-biased, gated-impossible,
relu-gelu-iff (block documents); every registered claim (the audit document)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from oracle.cli import main
from oracle.core import io as bio
from oracle.core.blocks import Block
from oracle.decide import decide
from oracle.decide.document import Refused, check_block_document
from forgery import put

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def check_doc(capsys, f: Path, *extra: str) -> dict:
    code, out, err = run(capsys, "check", "--json", *extra, f)
    assert code == 0, err
    return json.loads(out)


def refused(capsys, tmp_path: Path, doc: dict, *files) -> str:
    p = tmp_path / "forged.json"
    p.write_text(json.dumps(doc))
    code, out, err = run(capsys, "recheck", p, *files)
    assert code == 1 and out.startswith("does not hold:") and len(out.strip().splitlines()) == 1, (code, out, err)
    return out


# relu2_degenerate's only bias sits on a unit with a zero output column, so the default auto asks
# the bias-free question (docs/check.md); its relu2-biased fields are forged under the biased one
READING = {"relu2_degenerate": ("--replacing-biases", "allowed")}

# (example, path of the forged field, forged value, the field the refusal must name)
FORGERIES = [
    ("gelu_random", ("certificate", "search", "violated"), ["trace"], "certificate.search.violated"),
    ("gelu_random", ("certificate", "search", "violated"), [], "certificate.search.violated"),
    ("gelu_random", ("certificate", "search", "checks", "diagonal", "holds"), True, "certificate.search.checks"),
    ("gelu_random", ("certificate", "search", "possible"), True, "certificate.search.possible"),
    ("gelu_random", ("certificate", "nondegenerate", "zero_rows"), [0], "certificate.nondegenerate.zero_rows"),
    ("gelu_random", ("certificate", "hypotheses", "nondegenerate", "nondegenerate"), False,
     "certificate.hypotheses.nondegenerate.nondegenerate"),
    ("gelu_random", ("certificate", "distance", "residual_fro"), 0.25, "certificate.distance.residual_fro"),
    ("gelu_random", ("certificate", "distance", "nearest_S"), [0], "certificate.distance.nearest_S"),
    ("gelu_random", ("certificate", "absorption_width", "at_most"), 2, "certificate.absorption_width.at_most"),
    ("gelu_random", ("certificate", "block", "biases"), ["b_up"], "certificate.block.biases"),
    ("gelu_random", ("certificate", "also_applies"), [], "certificate.also_applies"),
    ("gelu_biased", ("certificate", "S"), [0], "certificate.S"),
    ("relu_absorbable", ("certificate", "m_star"), 1, "certificate.m_star"),
    ("relu_absorbable", ("certificate", "active_classes"), 1, "certificate.active_classes"),
    ("relu2_biased_absorbable", ("certificate", "c_S"), ["1", "0"], "certificate.c_S"),
    ("relu2_biased_absorbable", ("certificate", "S"), [0, 1, 2], "certificate.S"),
    ("relu2_biased_absorbable", ("certificate", "size"), 3, "certificate.size"),
    ("relu2_biased_absorbable", ("certificate", "nondegeneracy", "nondegenerate"), False,
     "certificate.nondegeneracy.nondegenerate"),
    ("swiglu_biased_generic", ("certificate", "nondegeneracy", "repeated_classes"), [[0, 1]],
     "certificate.nondegeneracy.repeated_classes"),
    ("swiglu_random", ("certificate", "M_nonzero_entry"), [0, 0, 2.0], "certificate.M_nonzero_entry"),
    ("swiglu_random", ("verdict",), "absorbable", "verdict"),
    ("gelu_random", ("exact",), "yes", "exact"),
    ("gelu_random", ("certificate", "kind"), "trace", "certificate.kind"),
    # the construction's stated width, and the stated compressed 0/1 solve of a flip-set search
    ("relu_absorbable", ("certificate", "construction", "width"), 99, "certificate.construction.width"),
    ("swiglu_biased_generic", ("certificate", "search", "rank"), 4, "certificate.search.rank"),
    ("swiglu_biased_generic", ("certificate", "search", "free_variables"), 1, "certificate.search.free_variables"),
    ("swiglu_biased_generic", ("certificate", "search", "candidates_rejected"), 3,
     "certificate.search.candidates_rejected"),
    ("relu2_biased_absorbable", ("certificate", "search", "rank"), 4, "certificate.search.rank"),
    ("relu2_degenerate", ("certificate", "search", "augmented_rank"), 2, "certificate.search.augmented_rank"),
]


@pytest.mark.parametrize("name,path,value,field", FORGERIES, ids=[f"{f[0]}:{f[3]}={f[2]}" for f in FORGERIES])
def test_forged_check_evidence_is_refused_with_the_field(tmp_path, capsys, name, path, value, field):
    f = EX / f"{name}.npz"
    doc = check_doc(capsys, f, *READING.get(name, ()))
    p = tmp_path / "true.json"
    p.write_text(json.dumps(doc))
    code, out, _ = run(capsys, "recheck", p, f)
    assert code == 0 and out.startswith("holds:"), out   # the true document holds
    out = refused(capsys, tmp_path, put(doc, path, value), f)
    assert f"does not hold: {field}" in out, out


def test_forged_bounds_of_a_linear_functional_are_refused():
    """A linear certificate (the relaxation's Y) may state only bounds that Y proves."""
    rng = np.random.default_rng(3)
    for _ in range(10):
        U = rng.integers(-4, 5, (40, 4)) / 4.0
        W = rng.integers(-4, 5, (4, 40)) / 4.0
        b = Block("gelu", W_up=U, W_down=W, M=3 * np.eye(4))
        v = decide(b)
        s = v.certificate.get("search", {})
        if s.get("kind") == "linear" and v.verdict == "not_absorbable":
            break
    else:
        pytest.fail("no linear certificate among the drawn blocks")
    doc = json.loads(json.dumps(v.as_dict()))
    check_block_document(b, doc)
    for key in ("lower_bound", "distance_lower_bound"):
        bad = put(doc, ("certificate", "search", key), 2 * doc["certificate"]["search"][key] + 1)
        with pytest.raises(Refused) as e:
            check_block_document(b, bad)
        assert e.value.field == f"certificate.search.{key}"


def test_a_document_for_other_weights_names_the_block(tmp_path, capsys):
    doc = check_doc(capsys, EX / "gelu_random.npz")
    b = bio.read_block(EX / "gelu_random.npz")
    b.W_up = b.W_up.copy()
    b.W_up[0, 0] += 0.5
    f = tmp_path / "moved.npz"
    bio.write_block(b, f)
    out = refused(capsys, tmp_path, doc, f)
    assert "does not hold: certificate." in out, out


# ---------------------------------------------------------------- audit documents

AUDIT_CLAIMS = ["skip-reduction", "depth-d2"]  # Lean absent for the first, Coq and Lean absent for the second


@pytest.fixture(scope="module")
def small_audit(tmp_path_factory) -> dict:
    """A narrowed real audit document (two claims, 3 instances, seed 5; the Coq build is cached)."""
    from oracle.commands import audit

    tmp = tmp_path_factory.mktemp("audit")
    doc = audit.audit(quick=True, claims=AUDIT_CLAIMS, instances=3, seed=5, failures_dir=str(tmp / "f"))
    from oracle.commands.output import json_safe
    return json.loads(json.dumps(json_safe(doc), default=str))


def _claim(doc: dict, cid: str) -> int:
    return next(i for i, c in enumerate(doc["claims"]) if c["id"] == cid)


AUDIT_FORGERIES = [
    # (what is forged, a function doc -> forged doc, the field the refusal names)
    ("coq status raised from absent", lambda d, i, j: put(d, ("claims", j, "coq", "status"), "checked"),
     "claims[{j}].coq.status"),
    ("lean status raised from absent", lambda d, i, j: put(d, ("claims", i, "lean", "status"), "written"),
     "claims[{i}].lean.status"),
    ("coq status lowered to absent", lambda d, i, j: put(d, ("claims", i, "coq", "status"), "absent"),
     "claims[{i}].coq.status"),
    ("instances per claim inflated", lambda d, i, j: put(d, ("instances_per_claim",), 100), "instances_per_claim"),
    ("one claim's instance count inflated", lambda d, i, j: put(d, ("claims", i, "oracle", "instances"), 100),
     "claims[{i}].oracle.instances"),
    ("seed changed", lambda d, i, j: put(d, ("seed",), 6), "claims[0].oracle.seed"),
    ("a source hash changed", lambda d, i, j: put(d, ("sources", "files", "proofs/claims.toml"), "0" * 64),
     "sources.files.proofs/claims.toml"),
    ("a source file added", lambda d, i, j: put(d, ("sources", "files", "proofs/coq/Extra.v"), "0" * 64),
     "sources.files.proofs/coq/Extra.v"),
    ("sources dropped", lambda d, i, j: {k: v for k, v in d.items() if k != "sources"}, "sources"),
    ("registry entry changed", lambda d, i, j: put(d, ("claims", i, "registry", "coq"), []),
     "claims[{i}].registry.coq"),
    ("ok with problems", lambda d, i, j: put(d, ("problems",), ["x: made up"]), "ok"),
    ("sample certificate made not to hold", lambda d, i, j: put(d, ("claims", i, "oracle", "sample", "holds"), False),
     "claims[{i}].oracle.sample.holds"),
]


@pytest.mark.parametrize("what,forge,field", AUDIT_FORGERIES, ids=[f[0] for f in AUDIT_FORGERIES])
def test_forged_audit_fields_are_refused_with_the_field(tmp_path, capsys, small_audit, what, forge, field):
    i, j = _claim(small_audit, "skip-reduction"), _claim(small_audit, "depth-d2")
    out = refused(capsys, tmp_path, forge(copy.deepcopy(small_audit), i, j))
    assert f"does not hold: {field.format(i=i, j=j)}" in out, out


def test_audit_document_holds_and_a_consistent_forgery_is_caught_by_the_re_run(tmp_path, capsys, small_audit):
    """The true document holds (every field re-run from the seed); seed changed everywhere at once
    passes the cheap bindings and is refused by the re-run, naming the field."""
    p = tmp_path / "audit.json"
    p.write_text(json.dumps(small_audit))
    code, out, _ = run(capsys, "recheck", p)
    assert code == 0 and out.startswith("holds:") and "re-run" in out, out
    bad = put(small_audit, ("seed",), 6)
    for c in bad["claims"]:
        c["oracle"]["seed"] = 6
    out = refused(capsys, tmp_path, bad)
    assert "does not hold: document.claims[" in out, out  # the first field the other seed changes
    bad = put(small_audit, ("made_up",), 1)
    out = refused(capsys, tmp_path, bad)
    assert "does not hold: made_up" in out, out


def _paths(x, prefix=()):
    yield prefix
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(x, list) and x:
        yield from _paths(x[0], prefix + (0,))


@pytest.mark.parametrize("name", ["gelu_random", "gelu_biased", "relu_absorbable", "relu2_biased_absorbable",
                                  "swiglu_biased_generic", "swiglu_random"])
def test_lying_files_of_any_shape_are_refused_never_a_traceback(name):
    """Every field of a true document replaced by a value of another type: the re-check refuses
    (Refused, naming a field) or, for the free-text fields it does not read, still holds; it
    never raises anything else."""
    b = bio.read_block(EX / f"{name}.npz")
    doc = json.loads(json.dumps(decide(b).as_dict()))
    check_block_document(b, doc)
    refusals = 0
    for path in _paths(doc):
        if not path:
            continue
        for value in ("x", None, [1, "2"], -1):
            bad = put(doc, path, value)
            if bad == doc:
                continue
            try:
                check_block_document(b, bad)
            except Refused as e:
                assert e.field and e.why
                refusals += 1
    assert refusals > 0


# ---------------------------------------------------------------- sizes bounded before any arithmetic

SIZE_FORGERIES = [
    # a decimal exponent that exact arithmetic would expand into millions of digits
    ("relu_absorbable", ("certificate", "construction", "W_up", 0, 0), "1e30000000",
     "certificate.construction.W_up[0][0]"),
    ("relu2_biased_absorbable", ("certificate", "c_S", 0), "-1e999999999", "certificate.c_S[0]"),
    # an integer no count or index reaches
    ("relu2_biased_absorbable", ("certificate", "size"), 10 ** 30, "certificate.size"),
    ("relu2_biased_absorbable", ("certificate", "spot_check", "points"), 10 ** 40, "certificate.spot_check.points"),
]


@pytest.mark.parametrize("name,path,value,field", SIZE_FORGERIES, ids=[f"{f[0]}:{f[3]}" for f in SIZE_FORGERIES])
def test_a_huge_forged_value_is_refused_at_once_with_the_field(tmp_path, capsys, name, path, value, field):
    """Before the bound, "1e3000000" in one field cost 1.5 s of exact arithmetic (ten times the
    exponent, far more); now it is refused before any arithmetic, naming the field."""
    import time

    f = EX / f"{name}.npz"
    doc = check_doc(capsys, f)
    t0 = time.perf_counter()
    out = refused(capsys, tmp_path, put(doc, path, value), f)
    assert time.perf_counter() - t0 < 5.0
    assert f"does not hold: {field}:" in out and ("exponent" in out or "beyond 2^63" in out), out


# ---------------------------------------------------------------- search methods, spot checks, prose

PROSE_FORGERIES = [
    # search.method: the evidence's kind admits one method text (oracle/algebra/search/driver.py)
    ("gelu_random", ("certificate", "search", "method"), "meet-in-the-middle (exhaustive)",
     "certificate.search.method"),
    ("gelu_random", ("certificate", "search", "method"), "necessary condition: trace", "certificate.search.method"),
    ("gelu_biased", ("certificate", "search", "method"), "relaxation rounding", "certificate.search.method"),
    ("gelu_random", ("certificate", "search", "status"), "found", "certificate.search.status"),
    ("gelu_biased", ("certificate", "search", "S"), [0], "certificate.search.S"),
    # the compressed 0/1 solve's method follows from its re-derived outcome
    ("relu2_biased_absorbable", ("certificate", "search", "method"), "compressed system inconsistent over the rationals",
     "certificate.search.method"),
    ("swiglu_biased_generic", ("certificate", "search", "method"), "compressed 0/1 solve, verified exactly",
     "certificate.search.method"),
    # spot_check: re-measured at the same points, compared as the document labels them
    ("relu2_biased_absorbable", ("certificate", "spot_check", "points"), 8, "certificate.spot_check.points"),
    ("relu2_biased_absorbable", ("certificate", "spot_check", "backend"), "ball", "certificate.spot_check.backend"),
    ("relu2_biased_absorbable", ("certificate", "spot_check", "max_difference"), 0.0,
     "certificate.spot_check.max_difference"),
    ("swiglu_biased_absorbable", ("certificate", "spot_check", "max_ball_radius"), 1e-300,
     "certificate.spot_check.max_ball_radius"),
    # the reason: the verdict token it names must be the document's (claim ids are not compared)
    ("gelu_biased", ("reason",), "verdict not_absorbable by relu-limit (B)", "reason"),
    ("gelu_random", ("reason",), "x" * 20_001, "reason"),
    # the emitted block's check note: the spot check it describes must be the stated one
    ("relu2_biased_absorbable", ("certificate", "emitted_block", "check"),
     "flip condition verified exactly; spot check of the emitted block at 900 points (exact)",
     "certificate.emitted_block.check"),
]


@pytest.mark.parametrize("name,path,value,field", PROSE_FORGERIES, ids=[f"{f[0]}:{f[3]}" for f in PROSE_FORGERIES])
def test_forged_method_spot_check_and_prose_are_refused(tmp_path, capsys, name, path, value, field):
    f = EX / f"{name}.npz"
    doc = check_doc(capsys, f)
    out = refused(capsys, tmp_path, put(doc, path, value), f)
    assert f"does not hold: {field}" in out, out


def test_a_ball_spot_check_is_compared_within_its_tolerance():
    """The gated example's spot check is measured with arb balls: its float radius is re-measured and
    compared within document.MEASURE_REL_TOL."""
    doc = decide(bio.read_block(EX / "swiglu_biased_absorbable.npz")).as_dict()
    assert doc["certificate"]["spot_check"]["backend"] == "ball"
    r = doc["certificate"]["spot_check"]["max_ball_radius"]
    assert isinstance(r, float)
    b = bio.read_block(EX / "swiglu_biased_absorbable.npz")
    doc = json.loads(json.dumps(doc))
    # within the stated relative tolerance the float measurement holds; beyond it, refused
    check_block_document(b, put(doc, ("certificate", "spot_check", "max_ball_radius"), r * (1 + 1e-12)))
    with pytest.raises(Refused) as e:
        check_block_document(b, put(doc, ("certificate", "spot_check", "max_ball_radius"), r * (1 + 1e-6)))
    assert e.value.field == "certificate.spot_check.max_ball_radius" and "tolerance" in e.value.why


def test_holds_names_the_prose_it_did_not_verify(tmp_path, capsys):
    """A rewritten reason that names no claim and no verdict token cannot be refused; the holds line
    then says plainly that the reason (and the emitted block's note) are prose, not verified."""
    f = EX / "relu2_biased_absorbable.npz"
    doc = check_doc(capsys, f)
    p = tmp_path / "doc.json"
    p.write_text(json.dumps(put(doc, ("reason",), "any words at all")))
    code, out, _ = run(capsys, "recheck", p, f)
    assert code == 0 and out.startswith("holds:"), out
    tail = out.split("not verified:", 1)[1]
    assert "reason (prose" in tail and "certificate.emitted_block.check (prose" in tail, out
    # the compressed 0/1 solve's method text is pinned since trust round four (a forged one is refused
    # in PROSE_FORGERIES), and the absorption width of a flip certificate is recomputed since issue
    # 29's F8 (tests/test_recheck_stated_work.py forges it): neither is in the list any more
    assert "certificate.search.method" not in tail and "certificate.absorption_width" not in tail, out
    # a pinned method and a re-measured spot check are not in the list
    f = EX / "gelu_random.npz"
    doc = check_doc(capsys, f)
    p.write_text(json.dumps(doc))
    code, out, _ = run(capsys, "recheck", p, f)
    assert code == 0 and "not verified: reason (prose" in out and "search.method" not in out, out


def test_holds_names_a_timing_as_not_verified(tmp_path, capsys):
    """How long a decision took is stated but is no fact about the block: the holds line says so."""
    f = EX / "relu_absorbable.npz"
    doc = check_doc(capsys, f)
    assert "seconds" in doc["certificate"]
    p = tmp_path / "doc.json"
    p.write_text(json.dumps(doc))
    code, out, _ = run(capsys, "recheck", p, f)
    assert code == 0 and out.startswith("holds:"), out
    assert "certificate.seconds (how long the decision took" in out.split("not verified:", 1)[1], out


def test_a_reason_citing_other_claims_is_prose_and_said_to_be_unverified(tmp_path, capsys):
    """Claim ids in a reason are not compared (true reasons cite the claims of the steps they use),
    so a rewritten reason that names another claim holds only with the reason listed as not verified."""
    f = EX / "gelu_random.npz"
    doc = check_doc(capsys, f)
    p = tmp_path / "doc.json"
    p.write_text(json.dumps(put(doc, ("reason",), "index set S found; by relu-gelu-iff (A) the block is absorbable")))
    code, out, _ = run(capsys, "recheck", p, f)
    assert code == 0 and "not verified: reason (prose" in out, out
