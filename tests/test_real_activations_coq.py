"""The Coq development of the real activations (RealActivations.v, Coquelicot) and of the
limit extension (Limit.v): claims relu-limit, relu-gelu-iff (gelu half) and gated-impossible
(geglu with the real gelu).

Statements are read from proofs/pinned/coq-statements.txt, which the proof check regenerates
from the compiled development and compares on every run.  The fake-Phi attack compiles in a
temporary copy (with the compiled files, so only RealActivations.v and its dependents are
rebuilt); the real tree is never touched.
"""

import re
from pathlib import Path

import pytest

from oracle.formal import coqcheck, coqsource, pinned
from oracle.formal import consistency as C

# The standard library's axioms of the reals: Coquelicot adds none to these theorems.
REAL_AXIOMS = {
    "Coq.Reals.ClassicalDedekindReals.sig_forall_dec",
    "Coq.Reals.ClassicalDedekindReals.sig_not_dec",
    "Coq.Logic.FunctionalExtensionality.functional_extensionality_dep",
    "Coq.Logic.Classical_Prop.classic",
}

THEOREMS = [
    "SkipAbsorption.Limit.relu_limit_iff",
    "SkipAbsorption.Limit.relu_limit_necessity",
    "SkipAbsorption.Limit.gelu_limit_iff",
    "SkipAbsorption.Limit.gelu_tanh_limit_iff",
    "SkipAbsorption.Limit.silu_limit_iff",
    "SkipAbsorption.Limit.gelu_biased_not_absorbable_instance",
    "SkipAbsorption.RealActivations.gaussian_integral_half_line",
    "SkipAbsorption.Limit.gelu_iff",
]

needs_coq = pytest.mark.usefixtures("coq_required")


def _definition(module: str, name: str) -> str:
    """The text of a Coq Definition from its keyword to its final period."""
    src = coqsource.strip_comments_and_strings((C.ROOT / "proofs" / "coq" / f"{module}.v").read_text())
    m = re.search(rf"(?m)^Definition {re.escape(name)}\b.*?\.\s*$", src, re.S)
    assert m, name
    return m.group(0)


def _statement(name: str) -> str:
    blocks = pinned.load(C.ROOT / pinned.COQ_FILE)
    assert name in blocks, name
    return blocks[name].statement


def test_relu_limit_theorem_carries_its_hypothesis_tags():
    """relu-limit: the generic theorem binds sigma_limit_relu, sigma_odd_part and nondegenerate;
    the necessity direction needs no odd part."""
    assert {"sigma_limit_relu", "sigma_odd_part", "nondegenerate"} <= set(pinned.binder_names(
        _statement("SkipAbsorption.Limit.relu_limit_iff")))
    nec = set(pinned.binder_names(_statement("SkipAbsorption.Limit.relu_limit_necessity")))
    assert {"sigma_limit_relu", "nondegenerate", "absorbed"} <= nec
    assert "sigma_odd_part" not in nec


def test_concrete_corollaries_assume_nothing_about_the_activation():
    """relu-limit / relu-gelu-iff: the corollaries for gelu, gelu_tanh, silu and relu have no
    hypothesis on the activation; gelu itself is z * Phi z with Phi an integral."""
    for act, name in (("gelu", "gelu_limit_iff"), ("gelu_tanh", "gelu_tanh_limit_iff"),
                      ("silu", "silu_limit_iff"), ("relu", "relu_biased_iff")):
        stmt = _statement(f"SkipAbsorption.Limit.{name}")
        assert f"Limit.bblock d m RealActivations.{act} Wd Wu bu bd x i" in stmt
        assert "sigma" not in stmt and "Phi" not in stmt
    phi = _definition("RealActivations", "Phi")
    assert "RInt (fun t => exp (- t ^ 2 / 2)) 0 z" in phi and "sqrt (2 * PI)" in phi
    assert "z * Phi z" in _definition("RealActivations", "gelu")
    geglu = pinned.load(C.ROOT / pinned.COQ_FILE)["SkipAbsorption.Activations.geglu_not_absorbable"]
    assert "Linalg.gblock d m RealActivations.gelu" in geglu.statement and "Phi" not in geglu.statement
    # the pinned file carries the body of Phi with every statement about the real gelu
    assert "SkipAbsorption.RealActivations.Phi" in geglu.uses


def test_registry_names_the_gelu_theorems():
    """relu-gelu-iff registers the full gelu theorem; gated-impossible the gelu_tanh gate too;
    relu-limit keeps the gelu instance as a connecting lemma next to its standard-library instance."""
    reg = {c["id"]: c for c in C.load_registry()}
    assert "SkipAbsorption.Limit.gelu_iff" in reg["relu-gelu-iff"]["coq"]
    assert "SkipAbsorption.Activations.gelu_tanh_sign_flip" in reg["relu-gelu-iff"]["coq"]
    assert "SkipAbsorption.Activations.geglu_tanh_not_absorbable" in reg["gated-impossible"]["coq"]
    assert "SkipAbsorption.Limit.gelu_biased_not_absorbable_instance" in reg["relu-limit"]["coq"]
    assert reg["relu-limit"]["coq_instance"] == "SkipAbsorption.Limit.relu_biased_not_absorbable_instance"
    assert set(reg["relu-limit"]["coq_counterexamples"]) == {"nondegenerate", "sigma_limit_relu", "sigma_odd_part"}


@needs_coq
def test_limit_and_activation_theorems_compile_with_only_the_reals_axioms():
    """relu-limit, relu-gelu-iff: the whole development compiles, the registered declarations
    resolve, and Print Assumptions (per claim) lists only the standard library's axioms of the
    reals -- Coquelicot adds no axiom, so ALLOWED_AXIOMS needs no extension for it."""
    r = C.check_all(C.ROOT, attribute=True)
    assert r["coq"]["status"] == "compiled", r["coq"]["detail"]
    assert set(C.ALLOWED_AXIOMS) == REAL_AXIOMS
    for cid in ("relu-limit", "relu-gelu-iff", "gated-impossible"):
        assert r["claims"][cid]["findings"] == [], cid
        assert r["claims"][cid]["coq"]["axioms_attributed"], cid
        axioms = set(r["claims"][cid]["coq"]["axioms"])
        assert axioms <= REAL_AXIOMS, (cid, axioms)
        # these theorems really use the reals (they are not closed terms)
        assert axioms, cid
    registered = {n for c in C.load_registry() for n in C.registry_names(c.get("coq"))}
    assert set(THEOREMS) <= registered


@needs_coq
@pytest.mark.slow   # recompiles a mutated copy of the development
def test_a_fake_phi_does_not_compile(tmp_path: Path):
    """A lying definition is refused: with Phi replaced by the constant 1/2 (a gate in [0, 1]
    with the right symmetry, but no limits at infinity) the development no longer builds, and
    every claim whose declarations sit behind it is reported unchecked."""
    ok, errors, _, _ = coqcheck.build((C.ROOT / "proofs" / "coq").resolve())
    assert ok, errors
    copy = C.copy_sources(tmp_path, with_build=True)
    f = copy / "proofs" / "coq" / "RealActivations.v"
    text = f.read_text()
    old = "  1 / 2 + 1 / sqrt (2 * PI) * RInt (fun t => exp (- t ^ 2 / 2)) 0 z."
    assert old in text
    f.write_text(text.replace(old, "  1 / 2."))
    r = C.check_all(copy)
    assert r["coq"]["status"] == "failed"
    assert any("Coq does not compile: RealActivations.v" in x for x in r["findings"]), r["findings"]
    assert any(x.startswith("relu-limit: not checked because") for x in r["findings"]), r["findings"]
