"""The Coq files Quantitative.v, QuantitativeNorm.v, Width.v, NonGeneric.v and DepthStack.v:
registered, bound to the claims' hypothesis tags, compiled, and resting only on the reals' axioms.

Claims: homogeneous-any-width (quantitative gap), absorption-width (m + d units for any M with the
rank step), non-generic (finite-exception and empty-interior forms), depth-dimension (GL(d)
invariance of plain stacks) and depth-width (per-layer absorption).

Statements are read from proofs/pinned/coq-statements.txt, which the proof check regenerates
from the compiled development and compares on every run.  The renamed-binder attacks run,
compiled, on one copy of the sources (the old static binder grep no longer exists: binders
are read from the kernel term).
"""

from pathlib import Path

import pytest

from oracle.formal import coqcheck, pinned
from oracle.formal import consistency as C

NEW_COQ = {
    "homogeneous-any-width": ["SkipAbsorption.Quantitative.homogeneous_any_width_gap",
                              "SkipAbsorption.Quantitative.homogeneous_gap_radius",
                              "SkipAbsorption.Quantitative.homogeneous_gap_deg2",
                              "SkipAbsorption.Quantitative.c2_value",
                              "SkipAbsorption.Quantitative.c2_is_max",
                              "SkipAbsorption.Quantitative.relu2_gap_instance",
                              "SkipAbsorption.QuantitativeNorm.homogeneous_any_width_quantitative",
                              "SkipAbsorption.QuantitativeNorm.ck_max_exists",
                              "SkipAbsorption.QuantitativeNorm.homogeneous_gap_opnorm",
                              "SkipAbsorption.QuantitativeNorm.c2_lub",
                              "SkipAbsorption.QuantitativeNorm.c3_lub",
                              "SkipAbsorption.QuantitativeNorm.c_half_lub",
                              "SkipAbsorption.QuantitativeNorm.relu2_gap_sharp",
                              "SkipAbsorption.QuantitativeNorm.relu2_gap_sharp_lub"],
    "absorption-width": ["SkipAbsorption.Width.absorption_width_any_M",
                         "SkipAbsorption.Width.rank_step",
                         "SkipAbsorption.Width.basis_extraction",
                         "SkipAbsorption.Width.extra_units_absorb_M"],
    "non-generic": ["SkipAbsorption.NonGeneric.non_generic_scaling",
                    "SkipAbsorption.NonGeneric.non_generic_dense"],
    "depth-dimension": ["SkipAbsorption.DepthStack.plain_stack_gauge_invariance",
                        "SkipAbsorption.DepthStack.plain_pair_gauge_invariance"],
    "depth-width": ["SkipAbsorption.DepthStack.depth_width_any_rank",
                    "SkipAbsorption.DepthStack.depth_width_any_rank_skips",
                    "SkipAbsorption.DepthStack.depth_width_rank_maximal",
                    "SkipAbsorption.DepthStack.depth_width_rows_span",
                    "SkipAbsorption.Rank.absorption_width_rank",
                    "SkipAbsorption.Rank.basis_completion",
                    "SkipAbsorption.Rank.row_rank_exists",
                    "SkipAbsorption.Rank.row_rank_unique",
                    "SkipAbsorption.DepthStack.depth_width",
                    "SkipAbsorption.DepthStack.depth_width_skips"],
}
INSTANCES = {
    "homogeneous-any-width": "SkipAbsorption.Instances.relu3_not_cube_width2",
    "absorption-width": "SkipAbsorption.Width.absorption_width_instance",
    "non-generic": "SkipAbsorption.NonGenericNull.non_generic_null_instance",
    "depth-dimension": "SkipAbsorption.DepthStack.gl_invariance_instance",
    "depth-width": "SkipAbsorption.Instances.depth_width_rank_deficient_instance",
}
BINDERS = {
    "SkipAbsorption.DepthStack.depth_width": {"sigma_odd_part", "rows_span"},
    "SkipAbsorption.DepthStack.depth_width_any_rank": {"sigma_odd_part"},
    "SkipAbsorption.DepthStack.depth_width_rows_span": {"sigma_odd_part", "rows_span"},
    "SkipAbsorption.DepthStack.depth_width_rank_maximal": {"sigma_odd_part", "rank_maximal"},
    "SkipAbsorption.Rank.absorption_width_rank": {"sigma_odd_part", "rank_Wup"},
    "SkipAbsorption.DepthStack.depth_width_skips": {"sigma_odd_part", "rows_span"},
    "SkipAbsorption.DepthStack.plain_stack_gauge_invariance": {"gauge_length", "gauge_invertible"},
    "SkipAbsorption.DepthStack.plain_pair_gauge_invariance": {"gauge_invertible"},
    "SkipAbsorption.Width.absorption_width_any_M": {"sigma_odd_part", "rows_span"},
    "SkipAbsorption.NonGeneric.non_generic_scaling": {"M_nonzero"},
    "SkipAbsorption.NonGeneric.non_generic_dense": {"M_nonzero", "eps_pos"},
    "SkipAbsorption.Quantitative.homogeneous_any_width_gap":
        {"k_ne_1", "M_nonzero", "sigma_homogeneous", "tau_homogeneous"},
    "SkipAbsorption.QuantitativeNorm.homogeneous_any_width_quantitative": {"k_pos", "k_ne_1"},
    "SkipAbsorption.QuantitativeNorm.ck_max_exists": {"k_pos", "k_ne_1"},
    "SkipAbsorption.QuantitativeNorm.homogeneous_gap_opnorm":
        {"k_pos", "k_ne_1", "sigma_homogeneous", "tau_homogeneous", "N_norm", "d_pos"},
}

needs_coq = pytest.mark.usefixtures("coq_required")


def _claim(cid: str, root: Path = C.ROOT) -> dict:
    return next(c for c in C.load_registry(root) if c["id"] == cid)


def _pinned(name: str) -> str:
    blocks = pinned.load(C.ROOT / pinned.COQ_FILE)
    assert name in blocks, name
    return blocks[name].statement


@pytest.mark.parametrize("cid", sorted(NEW_COQ))
def test_new_theorems_are_registered_and_pinned(cid):
    claim = _claim(cid)
    names = C.registry_names(claim["coq"])
    for name in NEW_COQ[cid]:
        assert name in names, (cid, name)
        assert _pinned(name), name
    assert INSTANCES[cid] in C.registry_names(claim["coq_instance"])
    # the instance is stated with the standard library only: no definition of the development is used
    assert pinned.load(C.ROOT / pinned.COQ_FILE)[INSTANCES[cid]].uses == {}
    assert claim["formal_scope"] and claim["formal_scope_note"] and "coq_absent" not in claim


@pytest.mark.parametrize("name", sorted(BINDERS))
def test_theorems_bind_their_tags(name):
    assert BINDERS[name] <= set(pinned.binder_names(_pinned(name))), name


def test_absorption_width_main_is_the_any_M_theorem_with_its_tags():
    claim = _claim("absorption-width")
    main = C.registry_names(claim["coq"])[0]
    assert main == "SkipAbsorption.Width.absorption_width_any_M"
    # any M: the skip matrix is a variable, not the identity
    assert ("Linalg.mv d M x i + Linalg.block d m sigma Wd Wu x i = Linalg.block d (m + d) sigma Wd' Wu' x i"
            in pinned.conclusion(_pinned(main)))
    # its instance uses a singular skip matrix, written out
    inst = pinned.conclusion(_pinned(INSTANCES["absorption-width"]))
    assert inst.startswith("exists w u : nat -> nat -> R, forall x0 x1 : R, x0 + x1 - Rmax x0 0 =")


def test_non_generic_tags_are_split_between_binders_and_reasons():
    claim = _claim("non-generic")
    assert "formal_hypotheses" not in claim
    assert set(claim["formal_not_needed"]) | {"M_nonzero"} == set(claim["hypotheses"])
    assert C.formal_tags(claim, "coq") == ["M_nonzero"]
    # the statement counts the exceptional scalings: at most 2^m
    assert "(@length R bad <= 2 ^ m)%nat" in pinned.conclusion(_pinned(NEW_COQ["non-generic"][0]))


def test_quantitative_statements_carry_the_constants():
    """homogeneous-any-width: the degree-2 theorem states (sqrt 2 - 1)/2, the general one c > 0,
    and the quantitative lemma states the constant for every relu2 block of any width."""
    deg2 = pinned.conclusion(_pinned("SkipAbsorption.Quantitative.homogeneous_gap_deg2"))
    assert "(sqrt 2 - 1) / 2 * rad * Linalg.norm1 d (Linalg.mv d M v) / Linalg.norm1 d v" in deg2
    gen = pinned.conclusion(_pinned("SkipAbsorption.Quantitative.homogeneous_any_width_gap"))
    assert gen.startswith("exists c : R, 0 < c /\\")
    quant = pinned.load(C.ROOT / pinned.COQ_FILE)["SkipAbsorption.Quantitative.relu2_gap_instance"]
    assert quant.uses == {}
    assert "(sqrt 2 - 1) / 2 <= Rabs (x + Rmax x 0 * Rmax x 0 -" in pinned.conclusion(quant.statement)
    assert _claim("homogeneous-any-width")["formal_scope"] == "full"


def test_quantitative_norm_statements_are_the_registered_parts():
    """homogeneous-any-width in full: c_k is a maximum (attained, positive) for every k > 0,
    k != 1; the bound uses c_k itself in an abstract norm; the operator norm is asserted to
    exist; the sharp example states both the bound and its attainment."""
    q = "SkipAbsorption.QuantitativeNorm."
    main = pinned.conclusion(_pinned(q + "homogeneous_any_width_quantitative"))
    assert main.startswith("exists c : R, is_lub (QuantitativeNorm.gap_ratios k) c /\\ "
                           "QuantitativeNorm.gap_ratios k c /\\ 0 < c /\\")
    assert "QuantitativeNorm.is_norm d N ->" in main
    assert main.endswith("c * rad * N (Linalg.mv d M v) / N v <= E)")
    blocks = pinned.load(C.ROOT / pinned.COQ_FILE)
    # the ratio is |s - s^k| / (1 + s^k) and a norm has the four axioms, read from the pinned bodies
    uses = blocks[q + "homogeneous_any_width_quantitative"].uses
    ratio = uses["SkipAbsorption.QuantitativeNorm.gap_ratio"]
    assert "Rabs (s - Rpower s k) / (1 + Rpower s k)" in ratio
    norm = uses["SkipAbsorption.QuantitativeNorm.is_norm"]
    assert "N (fun j : nat => x j + y j) <= N x + N y" in norm
    assert "N (fun j : nat => t * x j) = Rabs t * N x" in norm
    assert "N x = 0 -> forall j : nat, (j < d)%nat -> x j = 0" in norm
    ck = pinned.conclusion(_pinned(q + "ck_max_exists"))
    assert ck.startswith("exists s0 : R, 0 < s0 < 1 /\\ 0 < QuantitativeNorm.gap_ratio k s0 /\\")
    op = pinned.conclusion(_pinned(q + "homogeneous_gap_opnorm"))
    assert "is_lub (QuantitativeNorm.op_ratios d N M) opM /\\ c * opM * rad <= E" in op
    assert pinned.conclusion(_pinned(q + "c_half_lub")) == \
        "is_lub (QuantitativeNorm.gap_ratios (/ 2)) (3 - 2 * sqrt 2)"
    assert pinned.conclusion(_pinned(q + "c3_lub")) == "is_lub (QuantitativeNorm.gap_ratios 3) (/ 3)"
    sharp = pinned.conclusion(_pinned(q + "relu2_gap_sharp"))
    assert sharp.count("(Linalg.block 1 2 Activations.relu2 (QuantitativeNorm.sharp_Wd rad) "
                       "QuantitativeNorm.sharp_Wu)") == 2
    assert "<= (sqrt 2 - 1) / 2 * rad) /\\ (exists x : Linalg.vec" in sharp
    assert sharp.endswith("= (sqrt 2 - 1) / 2 * rad)")
    assert "(1 + sqrt 2) / 2" in blocks[q + "relu2_gap_sharp"].uses["SkipAbsorption.QuantitativeNorm.sharp_a"]


def test_depth_claims_register_their_scope_and_extra_premises():
    dim = _claim("depth-dimension")
    assert dim["formal_scope"] == "GL(d) invariance"
    assert set(dim["coq_extra_hypotheses"]) == {"gauge_length", "gauge_invertible"}
    assert "rank_certified" in dim["formal_not_needed"]
    width = _claim("depth-width")
    assert width["formal_scope"] == "full"
    # every rank: the main theorem has no rank premise; the two rank conditions are corollaries
    assert set(width["formal_not_needed"]) == {"rows_span", "rank_maximal"}
    main = _pinned("SkipAbsorption.DepthStack.depth_width_any_rank")
    assert pinned.binder_names(main) == ["d", "sigma", "layers", "sigma_odd_part"]
    assert ("Rank.row_rank d (DepthStack.width L) (DepthStack.Wup L) r /\\ "
            "DepthStack.width P = (DepthStack.width L + 2 * d - r)%nat" in pinned.conclusion(main))
    narrow = _claim("depth-narrow")
    assert narrow["formal_scope"] == "full"
    assert "SkipAbsorption.DepthNarrowC.depth_narrow_two_blocks" in narrow["coq"]
    assert narrow["coq_hypotheses"] == ["pieces_invertible", "narrow_width"]
    assert set(narrow["coq_extra_hypotheses"]) == {"d_pos"}


# ---------------------------------------------------------------- compiled

@needs_coq
def test_new_theorems_compile_with_only_the_reals_axioms():
    """The development builds, every registered declaration of these claims resolves, their
    binders, instances and counterexamples check, and Print Assumptions (per claim) lists
    only the standard library's axioms of the reals."""
    r = C.check_all(C.ROOT, attribute=True)
    assert r["coq"]["status"] == "compiled", r["coq"]["detail"]
    measure = C.measure_claims(C.load_registry(), C.ROOT / "proofs" / "coq")
    for cid in NEW_COQ:
        assert r["claims"][cid]["findings"] == [], cid
        axioms = r["claims"][cid]["coq"]["axioms"]
        assert r["claims"][cid]["coq"]["axioms_attributed"], cid
        # the reals' axioms; the measure library's only for the claims that use NullSets.v
        assert set(axioms) <= set(C.allowed_axioms(cid in measure)), (cid, axioms)
        assert axioms, cid  # they are about the reals, so not closed terms


def _rename(root: Path, rel: str, old: str, new: str) -> None:
    p = root / "proofs" / "coq" / rel
    text = p.read_text()
    assert old in text, old
    p.write_text(text.replace(old, new, 1))


@needs_coq
@pytest.mark.slow   # recompiles a mutated copy of the development
def test_renamed_tags_are_caught(tmp_path):
    """rows_span of absorption_width_any_M and M_nonzero of non_generic_null renamed (the
    proofs still compile, since intros names its own): each claim is refused with the missing
    tag, and the counterexample lemma of rows_span no longer finds its binder."""
    ok, errors, _, _ = coqcheck.build((C.ROOT / "proofs" / "coq").resolve())
    assert ok, errors
    root = C.copy_sources(tmp_path, with_build=True)
    _rename(root, "Width.v", "(rows_span : forall y : vec", "(span_hyp : forall y : vec")
    # non-generic's main theorem is the measure form (NonGenericNull.v) since issue 30
    _rename(root, "NonGenericNull.v", "(M_nonzero : nonzero_mat d M),\n  null_weights d m",
            "(M_ok : nonzero_mat d M),\n  null_weights d m")
    found = C.check_all(root)["findings"]
    assert ("absorption-width: hypothesis tag 'rows_span' is not a top-level named binder of Coq "
            "SkipAbsorption.Width.absorption_width_any_M (binders nested inside another hypothesis do not count)"
            ) in found, found
    assert ("non-generic: hypothesis tag 'M_nonzero' is not a top-level named binder of Coq "
            "SkipAbsorption.NonGenericNull.non_generic_null (binders nested inside another hypothesis do not count)"
            ) in found, found
    assert any(f.startswith("absorption-width: counterexample "
                            "SkipAbsorption.Counterexamples.absorption_width_needs_rows_span") for f in found), found
