"""The Coq development of the real activations (RealActivations.v, Coquelicot) and of the
limit extension (Limit.v): claims relu-limit, relu-gelu-iff (gelu half) and gated-impossible
(geglu with the real gelu).

Every compile runs in a temporary copy of the sources, so the real tree and its
Print Assumptions cache are never touched.
"""

import re
from pathlib import Path

import pytest

from oracle import consistency as C

# The standard library's axioms of the reals: Coquelicot adds none to these theorems.
REAL_AXIOMS = {
    "ClassicalDedekindReals.sig_forall_dec",
    "ClassicalDedekindReals.sig_not_dec",
    "FunctionalExtensionality.functional_extensionality_dep",
    "Classical_Prop.classic",
}

# Print Assumptions costs about a second per theorem, so the list is short: the generic
# limit theorem and its necessity half (limit_reduction and biased_sign_flip are inside them),
# the concrete corollaries, the instance, the Gaussian integral and the bias-free gelu theorem.
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

needs_coq = pytest.mark.skipif(not C.coq_available(), reason="coqc not installed")


@pytest.fixture()
def copy(tmp_path: Path) -> Path:
    return C.copy_sources(tmp_path)


def _definition(module: str, name: str) -> str:
    """The text of a Coq Definition from its keyword to its final period."""
    src = C.strip_coq_comments((C.ROOT / "proofs" / "coq" / f"{module}.v").read_text())
    m = re.search(rf"(?m)^Definition {re.escape(name)}\b.*?\.\s*$", src, re.S)
    assert m, name
    return m.group(0)


def _statement(name: str) -> str:
    stmt = C.coq_statement(C.ROOT, name)
    assert stmt is not None, name
    return stmt


def test_relu_limit_theorem_carries_its_hypothesis_tags():
    """relu-limit: the generic theorem binds sigma_limit_relu, sigma_odd_part and nondegenerate;
    the necessity direction needs no odd part."""
    assert {"sigma_limit_relu", "sigma_odd_part", "nondegenerate"} <= C.binder_names(
        _statement("SkipAbsorption.Limit.relu_limit_iff"))
    nec = C.binder_names(_statement("SkipAbsorption.Limit.relu_limit_necessity"))
    assert {"sigma_limit_relu", "nondegenerate", "absorbed"} <= nec
    assert "sigma_odd_part" not in nec


def test_concrete_corollaries_assume_nothing_about_the_activation():
    """relu-limit / relu-gelu-iff: the corollaries for gelu, gelu_tanh, silu and relu have no
    hypothesis on the activation; gelu itself is z * Phi z with Phi an integral."""
    for act, name in (("gelu", "gelu_limit_iff"), ("gelu_tanh", "gelu_tanh_limit_iff"),
                      ("silu", "silu_limit_iff"), ("relu", "relu_biased_iff")):
        stmt = _statement(f"SkipAbsorption.Limit.{name}")
        assert f"bblock d m {act} Wd Wu bu bd x i" in stmt
        assert "sigma" not in stmt and "Phi" not in stmt
    phi = _definition("RealActivations", "Phi")
    assert "RInt (fun t => exp (- t ^ 2 / 2)) 0 z" in phi and "sqrt (2 * PI)" in phi
    assert "z * Phi z" in _definition("RealActivations", "gelu")
    geglu = _statement("SkipAbsorption.Activations.geglu_not_absorbable")
    assert "gblock d m gelu" in geglu and "Phi" not in geglu


def test_registry_names_the_gelu_theorems():
    """relu-gelu-iff registers the full gelu theorem; gated-impossible the gelu_tanh gate too."""
    reg = {c["id"]: C._names(c.get("coq")) for c in C.load_registry()}
    assert "SkipAbsorption.Limit.gelu_iff" in reg["relu-gelu-iff"]
    assert "SkipAbsorption.Activations.gelu_tanh_sign_flip" in reg["relu-gelu-iff"]
    assert "SkipAbsorption.Activations.geglu_tanh_not_absorbable" in reg["gated-impossible"]


@needs_coq
def test_limit_and_activation_theorems_compile_with_only_the_reals_axioms(copy):
    """relu-limit, relu-gelu-iff: the whole development compiles and Print Assumptions of each
    theorem lists only the standard library's axioms of the reals."""
    build = C.coq_build(copy, theorems=THEOREMS)
    assert build.status == "compiled", build.detail
    for name in THEOREMS:
        assert name in build.assumptions, name
        assert set(build.assumptions[name]) <= REAL_AXIOMS, (name, build.assumptions[name])
    # The Gaussian integral and the limit theorem really use the reals (not closed terms).
    assert build.assumptions["SkipAbsorption.RealActivations.gaussian_integral_half_line"]
    assert build.assumptions["SkipAbsorption.Limit.relu_limit_iff"]


@needs_coq
def test_a_fake_phi_does_not_compile(copy):
    """A lying definition is refused: with Phi replaced by the constant 1/2 (a gate in [0, 1]
    with the right symmetry, but no limits at infinity) the development no longer builds."""
    f = copy / "proofs" / "coq" / "RealActivations.v"
    text = f.read_text()
    old = "  1 / 2 + 1 / sqrt (2 * PI) * RInt (fun t => exp (- t ^ 2 / 2)) 0 z."
    assert old in text
    f.write_text(text.replace(old, "  1 / 2."))
    build = C.coq_build(copy, theorems=["SkipAbsorption.Limit.gelu_limit_iff"])
    assert build.status == "failed"
    assert "RealActivations" in build.detail
