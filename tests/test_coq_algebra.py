"""The Coq files Quantitative.v, Width.v, NonGeneric.v and DepthStack.v: registered, bound to
the claims' hypothesis tags, compiled, and resting only on the reals' axioms.

Claims: homogeneous-any-width (quantitative gap), absorption-width (m + d units for any M with the
rank step), non-generic (finite-exception and empty-interior forms), and the Coq part of the deep
stack work (GL(d) invariance, per-layer absorption).
"""

from pathlib import Path

import pytest

from oracle import consistency as C

NEW_COQ = {
    "homogeneous-any-width": ["SkipAbsorption.Quantitative.homogeneous_any_width_gap",
                              "SkipAbsorption.Quantitative.homogeneous_gap_radius",
                              "SkipAbsorption.Quantitative.homogeneous_gap_deg2",
                              "SkipAbsorption.Quantitative.c2_value",
                              "SkipAbsorption.Quantitative.c2_is_max"],
    "absorption-width": ["SkipAbsorption.Width.absorption_width_any_M",
                         "SkipAbsorption.Width.rank_step",
                         "SkipAbsorption.Width.basis_extraction",
                         "SkipAbsorption.Width.extra_units_absorb_M"],
    "non-generic": ["SkipAbsorption.NonGeneric.non_generic_scaling",
                    "SkipAbsorption.NonGeneric.non_generic_dense"],
}
INSTANCES = {
    "homogeneous-any-width": "SkipAbsorption.Quantitative.relu2_gap_instance",
    "absorption-width": "SkipAbsorption.Width.absorption_width_instance",
    "non-generic": "SkipAbsorption.NonGeneric.non_generic_instance",
}
# Not registered here (the depth claims are registered on another branch); binders they carry.
DEPTH_STACK = {
    "SkipAbsorption.DepthStack.depth_width": {"sigma_odd_part", "rows_span"},
    "SkipAbsorption.DepthStack.depth_width_skips": {"sigma_odd_part", "rows_span"},
    "SkipAbsorption.DepthStack.plain_stack_gauge_invariance": {"gauge_length", "gauge_invertible"},
    "SkipAbsorption.DepthStack.plain_pair_gauge_invariance": {"gauge_invertible"},
}
DEPTH_INSTANCES = ["SkipAbsorption.DepthStack.depth_width_instance",
                   "SkipAbsorption.DepthStack.gl_invariance_instance"]


def _claim(cid: str, root: Path = C.ROOT) -> dict:
    return next(c for c in C.load_registry(root) if c["id"] == cid)


@pytest.mark.parametrize("cid", sorted(NEW_COQ))
def test_new_theorems_are_registered_and_declared(cid):
    claim = _claim(cid)
    names = C._names(claim["coq"])
    for name in NEW_COQ[cid]:
        assert name in names, (cid, name)
        assert C.coq_statement(C.ROOT, name) is not None, name
    assert claim["coq_instance"] == INSTANCES[cid]
    assert C.coq_statement(C.ROOT, INSTANCES[cid]) is not None
    assert "formal_scope" in claim and "coq_absent" not in claim


def test_absorption_width_main_is_the_any_M_theorem_with_its_tags():
    claim = _claim("absorption-width")
    main = C._names(claim["coq"])[0]
    assert main == "SkipAbsorption.Width.absorption_width_any_M"
    stmt = C.coq_statement(C.ROOT, main)
    assert {"sigma_odd_part", "rows_span"} <= C.binder_names(stmt)
    # any M: the skip matrix is a variable, not the identity
    assert "mv d M x i + block d m sigma Wd Wu x i = block d (m + d) sigma Wd' Wu' x i" in stmt


def test_non_generic_tags_are_split_between_binders_and_reasons():
    claim = _claim("non-generic")
    assert claim["formal_hypotheses"] == ["M_nonzero"]
    assert set(claim["formal_not_needed"]) | set(claim["formal_hypotheses"]) == set(claim["hypotheses"])
    for name in NEW_COQ["non-generic"]:
        assert "M_nonzero" in C.binder_names(C.coq_statement(C.ROOT, name))
    # the statement counts the exceptional scalings: at most 2^m
    assert "(length bad <= 2 ^ m)%nat" in C.coq_statement(C.ROOT, NEW_COQ["non-generic"][0])


def test_quantitative_statements_carry_the_constants():
    """homogeneous-any-width: the degree-2 theorem states (sqrt 2 - 1)/2, the general one c > 0."""
    deg2 = C.coq_statement(C.ROOT, "SkipAbsorption.Quantitative.homogeneous_gap_deg2")
    assert "(sqrt 2 - 1) / 2 * rad * norm1 d (mv d M v) / norm1 d v" in deg2
    gen = C.coq_statement(C.ROOT, "SkipAbsorption.Quantitative.homogeneous_any_width_gap")
    assert {"k_ne_1", "M_nonzero", "sigma_homogeneous", "tau_homogeneous"} <= C.binder_names(gen)
    assert "exists c, 0 < c" in gen
    inst = C.coq_statement(C.ROOT, INSTANCES["homogeneous-any-width"])
    assert "(sqrt 2 - 1) / 2 <= Rabs (x 0%nat + relu2 (x 0%nat)" in inst


def test_depth_stack_theorems_bind_their_tags():
    for name, tags in DEPTH_STACK.items():
        stmt = C.coq_statement(C.ROOT, name)
        assert stmt is not None, name
        assert tags <= C.binder_names(stmt), name
    for name in DEPTH_INSTANCES:
        assert C.coq_statement(C.ROOT, name) is not None, name


def test_dropping_rows_span_from_absorption_width_is_caught(tmp_path):
    copy = C.copy_sources(tmp_path)
    f = copy / "proofs" / "coq" / "Width.v"
    text = f.read_text()
    assert "(rows_span : forall y : vec" in text
    f.write_text(text.replace("(rows_span : forall y : vec", "(span_hyp : forall y : vec", 1))
    found = [str(x) for x in C.static_findings(copy)]
    assert ("absorption-width: hypothesis tag 'rows_span' is not a named binder of Coq "
            "SkipAbsorption.Width.absorption_width_any_M") in found


def test_dropping_M_nonzero_from_non_generic_is_caught(tmp_path):
    copy = C.copy_sources(tmp_path)
    f = copy / "proofs" / "coq" / "NonGeneric.v"
    text = f.read_text()
    f.write_text(text.replace("(M_nonzero : nonzero_mat d M),\n  exists bad",
                              "(M_ok : nonzero_mat d M),\n  exists bad", 1))
    found = [str(x) for x in C.static_findings(copy)]
    assert ("non-generic: hypothesis tag 'M_nonzero' is not a named binder of Coq "
            "SkipAbsorption.NonGeneric.non_generic_scaling") in found


def test_new_theorems_compile_with_only_the_reals_axioms():
    """With coqc: the development builds and Print Assumptions of every new theorem and instance
    lists only the standard library's axioms of the reals. Without coqc the test is skipped."""
    if not C.coq_available():
        pytest.skip("coqc not installed")
    # the main statement of each file and every instance (Print Assumptions costs ~1 s each)
    theorems = ["SkipAbsorption.Quantitative.homogeneous_any_width_gap",
                "SkipAbsorption.Quantitative.homogeneous_gap_deg2",
                "SkipAbsorption.Quantitative.c2_is_max",
                NEW_COQ["absorption-width"][0], *NEW_COQ["non-generic"],
                "SkipAbsorption.DepthStack.depth_width",
                "SkipAbsorption.DepthStack.plain_stack_gauge_invariance",
                *INSTANCES.values(), *DEPTH_INSTANCES]
    build = C.coq_build(C.ROOT, theorems=theorems)
    assert build.status == "compiled", build.detail
    for t in theorems:
        axioms = build.assumptions[t]
        assert all(a.startswith(C.ALLOWED_AXIOM_PREFIXES) for a in axioms), (t, axioms)
