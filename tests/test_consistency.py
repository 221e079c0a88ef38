"""The proof check's static half (no compiler) on the real sources and on broken copies,
plus the parsers it rests on.  The compiled half and the twelve attacks of issue 9 are in
tests/test_proofcheck_mutations.py.

Every broken copy lives in a temporary directory; the real sources are never touched.
Claims named here: skip-reduction, homogeneous-impossible, homogeneous-any-width,
gated-impossible, gated-continuity, depth-impossible, depth-any, relu-gelu-iff,
non-generic, absorption-width, glu-flip, relu-limit, depth-dimension, depth-width,
depth-analytic-generic, generic-weights.
"""

from pathlib import Path

import pytest

from oracle.formal import coqcheck, coqsource, leancheck, pinned
from oracle.formal import consistency as C


@pytest.fixture()
def copy(tmp_path: Path) -> Path:
    return C.copy_sources(tmp_path, with_build=False)


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count))


def registry_edit(root: Path, claim_id: str, old: str, new: str) -> None:
    """Edit one [[claim]] table of the copy's registry (the text between its id and the next table)."""
    p = root / "proofs" / "claims.toml"
    text = p.read_text()
    start = text.index(f'id = "{claim_id}"')
    end = text.find("[[claim]]", start)
    end = len(text) if end < 0 else end
    block = text[start:end]
    assert old in block, f"{old!r} not in the {claim_id} table"
    p.write_text(text[:start] + block.replace(old, new, 1) + text[end:])


def findings(root: Path) -> list[str]:
    return [str(f) for f in C.static_findings(root)]


def test_real_sources_are_consistent():
    assert findings(C.ROOT) == []


def test_copy_is_consistent_before_breaking(copy):
    assert findings(copy) == []


def test_static_check_runs_from_any_working_directory(monkeypatch, tmp_path):
    monkeypatch.chdir(C.ROOT / "proofs")
    assert findings(Path("..")) == []


@pytest.mark.usefixtures("coq_required")
def test_check_all_runs_from_the_repository_with_a_relative_root(monkeypatch):
    """check_all(Path('.')) used to hand coqc a relative -R path while it ran in a temp folder."""
    monkeypatch.chdir(C.ROOT)
    r = C.check_all(Path("."))
    assert r["ok"], r["findings"]
    assert r["coq"]["status"] == "compiled" and r["pinned_diffs"] == {}


def test_every_formal_claim_has_a_scope_label_and_an_instance():
    for c in C.load_registry():
        for key in ("coq", "lean"):
            assert c.get(key) or c.get(f"{key}_absent"), (c["id"], key)
        if c.get("coq"):
            assert C.scope_label(c, "coq") and len(C.scope_label(c, "coq")) <= C.SCOPE_MAX
            assert c.get("coq_instance"), c["id"]
    reg = {c["id"]: c for c in C.load_registry()}
    # relu-gelu-iff: relu_iff and gelu_iff together are the whole claim in Coq; Lean mirrors the relu half.
    assert C.scope_label(reg["relu-gelu-iff"], "coq") == "full"
    assert C.scope_label(reg["relu-gelu-iff"], "lean") == "relu half"
    # Partial scopes say which part is formal, with the sentence in the note.
    assert C.scope_label(reg["homogeneous-any-width"], "coq") == "full"
    assert C.scope_label(reg["absorption-width"], "coq") == "full"
    assert C.scope_label(reg["depth-width"], "coq") == "full"
    # non-generic and generic-weights are full in measure form (proofs/coq/NullSets.v).
    assert C.scope_label(reg["non-generic"], "coq") == "full"
    assert C.scope_label(reg["generic-weights"], "coq") == "full"
    # depth-narrow is full with part (c) and the measure forms (proofs/coq/DepthNarrowC.v,
    # DepthNarrowCNull.v); its note still says where each part is proved.
    assert C.scope_label(reg["depth-narrow"], "coq") == "full" and C.scope_note(reg["depth-narrow"], "coq")
    for cid, label in (("depth-dimension", "GL(d) invariance"),):
        assert C.scope_label(reg[cid], "coq") == label and C.scope_note(reg[cid], "coq"), cid
    # Lean mirrors the impossibility, the gap, c_k and c_2, c_3, c_1/2; the note names what is Coq only.
    assert C.scope_label(reg["homogeneous-any-width"], "lean") == "gap, c_k, 3 constants"
    assert "homogeneous_gap_ck" in C.scope_note(reg["homogeneous-any-width"], "lean")


# ---------------------------------------------------------------- forbidden constructs (Coq)

@pytest.mark.parametrize("snippet, reason", [
    ("Axiom everything_absorbs : forall P : Prop, P.", "adds an assumption"),
    ("Parameter phi : R.", "adds an assumption"),
    ("Conjecture c : 1 = 2.", "adds an assumption"),
    ("Hypothesis cheat : False.", "outside a section adds an axiom"),
    ("Variable cheat : False.", "outside a section adds an axiom"),
    ("Context (cheat : False).", "outside a section adds an axiom"),
    ("Unset Guard Checking.", "guard"),
    ("Unset Guard\n  Checking.", "guard"),
    ("Local Unset Positivity Checking.", "positivity"),
    ("Unset Universe Checking.", "universe"),
    ("#[bypass_check(guard)] Fixpoint loop (n : nat) : False := loop n.", "bypasses a kernel check"),
    ("Declare ML Module \"evil_plugin\".", "loads a plugin"),
    ("Load Other.", "loads code"),
    ("Lemma l : 1 = 2. Proof. give_up. Admitted.", "unfinished"),
    ("Admit Obligations.", "unfinished"),
    ("Module M. Axiom a : False. End M.", "adds an assumption"),
])
def test_forbidden_coq_commands_are_refused(copy, snippet, reason):
    f = copy / "proofs" / "coq" / "Gated.v"
    f.write_text(f.read_text() + "\n" + snippet + "\n")
    hits = [x for x in findings(copy) if "proofs/coq/Gated.v" in x]
    assert hits and any(reason.lower() in x.lower() for x in hits), findings(copy)


def test_section_variables_are_fine(copy):
    f = copy / "proofs" / "coq" / "Gated.v"
    f.write_text(f.read_text() + "\nSection S.\nVariable n : nat.\nHypothesis Hn : (0 < n)%nat.\n"
                 "Lemma pos : (1 <= n)%nat. Proof. exact Hn. Qed.\nEnd S.\n")
    assert findings(copy) == []


def test_forbidden_words_inside_comments_and_strings_are_not_findings(copy):
    f = copy / "proofs" / "coq" / "Homogeneous.v"
    f.write_text(f.read_text() + "\n(* a remark that mentions Admitted, Axiom and (* nested *) "
                 "Unset Guard Checking *)\nDefinition note := \"Admitted \"\" Axiom\".\n")
    assert findings(copy) == []


def test_admitted_in_a_registered_proof_names_the_claim(copy):
    f = copy / "proofs" / "coq" / "Homogeneous.v"
    text = f.read_text()
    start = text.index("Theorem homogeneous_any_width :")
    qed = text.index("Qed.", start)
    f.write_text(text[:qed] + "Admitted." + text[qed + 4:])
    assert any(x.startswith("homogeneous-any-width: proofs/coq/Homogeneous.v:") and "Admitted" in x
               for x in findings(copy))


@pytest.mark.parametrize("line", ["-arg -type-in-type", "-arg -impredicative-set", "-type-in-type",
                                  "-Q /tmp Evil", "-arg -noinit"])
def test_coqproject_flags_that_weaken_the_logic_are_refused(copy, line):
    p = copy / "proofs" / "coq" / "_CoqProject"
    p.write_text(p.read_text() + line + "\n")
    assert any("_CoqProject" in x and "not an accepted line" in x for x in findings(copy))


def test_makefile_local_hooks_are_refused(copy):
    (copy / "proofs" / "coq" / "Makefile.coq.local").write_text("COQFLAGS += -type-in-type\n")
    assert any("Makefile.coq.local would change the build" in x for x in findings(copy))


def test_unlisted_coq_file_is_reported(copy):
    (copy / "proofs" / "coq" / "Extra.v").write_text("Lemma t : True. Proof. exact I. Qed.\n")
    assert any("Extra.v is not listed in _CoqProject" in x for x in findings(copy))


# ---------------------------------------------------------------- Lean

def test_sorry_and_sorryax_in_lean_are_caught_and_name_the_claim(copy):
    f = copy / "lean" / "SkipAbsorption" / "Gated.lean"
    edit(f, "  rintro ⟨Wg', Wu', Wd', h⟩\n", "  exact sorryAx _\n")
    hits = findings(copy)
    assert any(x.startswith("gated-impossible: lean/SkipAbsorption/Gated.lean:") and "sorryAx" in x
               for x in hits), hits


@pytest.mark.parametrize("snippet, word", [
    ("axiom cheat : False", "axiom"),
    ("unsafe def u : Nat := 0", "unsafe"),
    ("@[implemented_by id] def f (n : Nat) : Nat := n", "implemented_by"),
    ("@[extern \"c_f\"] def g (n : Nat) : Nat := n", "extern"),
    ("theorem t : 2 + 2 = 4 := by native_decide", "native_decide"),
    ("set_option debug.skipKernelTC true", "skipKernelTC"),
    ("opaque hidden : Prop", "opaque"),
    ("macro \"trust\" : tactic => `(tactic| sorry)", "meta-programming"),
])
def test_lean_escape_hatches_are_refused(copy, snippet, word):
    f = copy / "lean" / "SkipAbsorption" / "Gated.lean"
    f.write_text(f.read_text() + "\n" + snippet + "\n")
    assert any("lean/SkipAbsorption/Gated.lean" in x and word.lower() in x.lower() for x in findings(copy))


def test_lean_vacuous_binder_is_caught(copy):
    f = copy / "lean" / "SkipAbsorption" / "Gated.lean"
    edit(f, "    (gate_zero_at_0 : g 0 = 0) (gate_differentiable_at_0 : DifferentiableAt ℝ g 0)",
         "    (vacuous : False) (gate_zero_at_0 : g 0 = 0) (gate_differentiable_at_0 : DifferentiableAt ℝ g 0)")
    hits = findings(copy)
    assert any(x.startswith("gated-impossible: Lean SkipAbsorption.gated_impossible assumes (vacuous : False)")
               for x in hits), hits
    assert any(x.startswith("gated-impossible: Lean statement of SkipAbsorption.gated_impossible changed")
               for x in hits), hits


def test_lean_undefined_identifier_is_caught(copy):
    f = copy / "lean" / "SkipAbsorption" / "Gated.lean"
    edit(f, "  refine ray_contradiction T1 T2 hv", "  refine ray_contradiction_v2 T1 T2 hv")
    hits = findings(copy)
    assert any(x.startswith("gated-continuity: lean/SkipAbsorption/Gated.lean:") and "'ray_contradiction_v2'" in x
               for x in hits), hits


def test_lean_unchecked_mathlib_name_is_caught(copy):
    f = copy / "lean" / "SkipAbsorption" / "Homogeneous.lean"
    edit(f, "Real.rpow_one", "Real.rpow_one_bogus")
    assert any("'Real.rpow_one_bogus'" in x and "external-names" in x for x in findings(copy))


def test_lean_duplicate_declaration_is_refused(copy):
    f = copy / "lean" / "SkipAbsorption" / "Gated.lean"
    edit(f, "end SkipAbsorption", "theorem gated_impossible : True := trivial\n\nend SkipAbsorption")
    assert any("SkipAbsorption.gated_impossible is declared twice" in x for x in findings(copy))


def test_lean_dropped_hypothesis_is_caught(copy):
    f = copy / "lean" / "SkipAbsorption" / "Gated.lean"
    f.write_text(f.read_text().replace("(gate_zero_at_0 :", "(g_vanishes :"))
    assert any("'gate_zero_at_0' is not a top-level binder of Lean" in x for x in findings(copy))


def test_missing_lean_declaration_is_caught(copy):
    f = copy / "lean" / "SkipAbsorption" / "Homogeneous.lean"
    edit(f, "theorem homogeneous_any_width ", "theorem homogeneous_any_width_renamed ")
    assert ("homogeneous-any-width: Lean declaration SkipAbsorption.homogeneous_any_width not found "
            "(namespace path + name)") in findings(copy)


# ---------------------------------------------------------------- registry

@pytest.mark.parametrize("claim, old, new, message", [
    ("depth-any", 'lean_hypotheses_reason = "', 'lean_hypotheses_reasn = "', "unknown registry field 'lean_hypotheses_reasn'"),
    ("homogeneous-impossible", 'formal_scope = "full"', 'formal_scope = "full"\ncoq_hypotheses = []',
     "'coq_hypotheses' weakens the binder check and needs a reason"),
    ("relu-gelu-iff", 'd_ge_2 = "relu_iff and relu_necessity hold for every d', 'd_ge_2 = "", x = "',
     "'formal_not_needed.d_ge_2' needs a reason"),
    ("relu-gelu-iff", 'formal_scope = "full"', 'formal_scope = "checked"', "must be a short label"),
    ("relu-gelu-iff", 'formal_hypotheses_reason = "', 'formal_hypotheses_rsn = "',
     "'formal_hypotheses' weakens the binder check and needs a reason"),
    # (a partial scope needs its note; non-generic and then depth-narrow, the claims this used,
    # are full since NullSets.v and DepthNarrowC.v)
    ("depth-dimension", 'formal_scope_note = "', 'formal_scope_nte = "', "needs a formal_scope_note"),
    ("depth-dimension", 'formal_scope = "GL(d) invariance"',
     'formal_scope = "the GL(d) invariance of plain stacks"', "must be a short label"),
    ("glu-flip", 'coq_instance = "SkipAbsorption.Instances.sigmoid_glu_flip_2x2"\n', '',
     "formal proof without an instance lemma"),
    ("homogeneous-impossible",
     'k_ne_1 = "SkipAbsorption.Counterexamples.homogeneous_impossible_needs_k_ne_1", ', '',
     "boundary counterexample relu_degree_one drops 'k_ne_1', but no Coq lemma proves it"),
    ("depth-dimension", 'gauge_length = "one gauge pair per interface', 'gauge_length = " ", x = "',
     "'coq_extra_hypotheses.gauge_length' needs a reason"),
    ("depth-d2", 'coq_absent = "', 'coq_absnt = "', "no Coq declaration and no coq_absent reason"),
    # the boundary counterexamples of the newer claims (oracle/claims/relu_limit.py, depth_stacks.py)
    ("relu-limit", 'sigma_odd_part = "SkipAbsorption.Counterexamples.relu_limit_iff_needs_sigma_odd_part"', 'x = "y"',
     "boundary counterexample elu_no_odd_part drops 'sigma_odd_part', but no Coq lemma proves it"),
    ("depth-narrow", 'coq_counterexamples = { pieces_invertible = "SkipAbsorption.Counterexamples.depth_narrow_needs_pieces_invertible" }\n',
     '', "boundary counterexample narrow_singular_piece drops 'pieces_invertible', but no Coq lemma proves it"),
    # generic-weights: its boundary cases (oracle/claims/generic_weights.py) need their Coq lemmas
    ("generic-weights", ', d_ge_2_iii = "SkipAbsorption.GenericWeightsNull.generic_weights_null_needs_d_ge_2_iii"', '',
     "boundary counterexample d1_rows_collinear drops 'd_ge_2_iii', but no Coq lemma proves it"),
    ("generic-weights", 'samples_reason = { biased = "', 'samples_reason = { biasd = "',
     "samples_reason has unknown key 'biasd'"),
    ("skip-reduction", 'coq = ["SkipAbsorption.SkipReduction.skip_reduction"',
     'coq = ["SkipReduction.skip_reduction"', "is not a full name SkipAbsorption.<File>.<name>"),
    # depth-analytic-generic: d_ge_2 is what lets the oracle start at d = 2; dropping the tag leaves
    # its reasons naming a non-hypothesis, and the samples excluding d = 1 without a reason
    ("depth-analytic-generic", '"d_ge_2", "depth_ge_2"', '"depth_ge_2"',
     "'formal_not_needed' names 'd_ge_2', which is not a hypothesis of the claim"),
    ("depth-analytic-generic", '"d_ge_2", "depth_ge_2"', '"depth_ge_2"',
     "samples exclude a range the statement reaches without a reason in samples_reason: d: the statement allows d = 1"),
])
def test_registry_edits_that_switch_checks_off_are_refused(copy, claim, old, new, message):
    registry_edit(copy, claim, old, new)
    hits = findings(copy)
    assert any(x.startswith(claim + ":") and message in x for x in hits), hits


def test_a_weakening_field_with_a_reason_is_accepted_and_printed(copy):
    registry_edit(copy, "homogeneous-impossible", 'formal_scope = "full"',
                  'formal_scope = "full"\ncoq_hypotheses = ["k_pos", "k_ne_1", "M_nonzero", "sigma_homogeneous"]\n'
                  'coq_hypotheses_reason = "spelled out for the test"')
    notes = C.Notes()
    assert [str(f) for f in C.static_findings(copy, notes)] == []
    assert any(n.startswith("homogeneous-impossible: coq_hypotheses = ") and "spelled out for the test" in n
               for n in notes.lines)


def test_missing_informal_proof_is_caught(copy):
    (copy / "proofs" / "informal" / "glu-flip.md").unlink()
    assert any(x.startswith("glu-flip: informal proof") for x in findings(copy))


def test_claim_without_a_test_is_caught(copy):
    for t in (copy / "tests").glob("test_*.py"):
        t.write_text(t.read_text().replace("non-generic", "nongeneric"))
    assert "non-generic: no test names this claim" in findings(copy)


def test_missing_coq_declaration_is_caught_statically(copy):
    f = copy / "proofs" / "coq" / "Homogeneous.v"
    edit(f, "Theorem homogeneous_any_width :", "Theorem homogeneous_any_width_renamed :")
    assert ("homogeneous-any-width: Coq declaration SkipAbsorption.Homogeneous.homogeneous_any_width "
            "not found in the sources") in findings(copy)


def test_hand_edited_lean_pin_is_caught(copy):
    p = copy / pinned.LEAN_FILE
    edit(p, "(k_ne_1 : k ≠ 1)", "(k_ne_1 : k ≠ 2)")
    hits = findings(copy)
    assert any("Lean statement of SkipAbsorption.homogeneous_impossible changed since it was pinned" in x
               for x in hits), hits


# ---------------------------------------------------------------- parsers

def test_strict_print_assumptions_parser():
    lines = ["Axioms:", "Classical_Prop.classic : forall P : Prop, P \\/ ~ P",
             "ClassicalDedekindReals.sig_forall_dec", "  : forall P : nat -> Prop,",
             "    (forall n : nat, {P n} + {~ P n}) -> {n : nat | ~ P n} + {forall n : nat, P n}",
             "loop is assumed to be guarded.", "neg is assumed to be positive.",
             "tt2 relies on an unsafe hierarchy.", "Theory:", "Type hierarchy is collapsed (logic is inconsistent)"]
    axioms, bad = coqcheck.parse_assumptions_block(lines)
    assert axioms == ["Classical_Prop.classic", "ClassicalDedekindReals.sig_forall_dec"]
    assert bad == lines[5:]
    assert coqcheck.parse_assumptions_block(["Closed under the global context"]) == ([], [])


def test_coq_sentences_and_sections(tmp_path):
    src = ("Section S. Variable x : nat. End S.\nModule M.\nDefinition d := 1.\nEnd M.\n"
           "Lemma l : True.\nProof. exact I. Qed.\n")
    (tmp_path / "T.v").write_text(src)
    sf = coqsource.read_file(tmp_path / "T.v", "SkipAbsorption.T")
    assert sf.problems == []
    assert set(sf.declarations) == {"SkipAbsorption.T.M.d", "SkipAbsorption.T.l"}
    assert sf.spans["SkipAbsorption.T.l"] == (5, 6)


def test_lean_binder_groups_and_names():
    sig = "theorem t {d : ℕ} (M : Fin d → Fin d → ℝ) (h : (0 : ℝ) < 1) [inst : Foo] : ¬ ∀ x, M x = 0"
    groups = leancheck.binder_groups(sig)
    assert [g[1] for g in groups] == [["d"], ["M"], ["h"], ["inst"]]
    assert leancheck.statement_type(sig) == "¬ ∀ x, M x = 0"
    assert leancheck._known("mul_eq_zero.mp", {"mul_eq_zero"})
    assert not leancheck._known("Real.bogus", {"Real"})


def test_instance_statements_allow_only_standard_library_qualifiers():
    """Names of the development or of another library (Coquelicot) in an instance statement
    are refused; the standard library's List and Nat are not."""
    mods = {"Linalg", "Limit"}
    assert C.instance_outsiders("forall l : list R, @List.In R 0 l -> (List.length l <= 3)%nat", mods) == []
    assert C.instance_outsiders("Continuity.is_lim f Rbar.p_infty 0 /\\ Linalg.block 1 1 g W U x 0 = 0", mods) == \
        ["Continuity.is_lim", "Linalg.block", "Rbar.p_infty"]
    assert C.instance_outsiders("SkipAbsorption.Limit.bblock", mods) == ["SkipAbsorption.Limit.bblock"]


def test_pinned_round_trip():
    b = pinned.Block("A.b", "c (main)", "ff", "x : R\n====\nx = x", {"A.d": "A.d = 1\n : R"})
    text = pinned.render("# h\n", [b])
    back = pinned.parse(text)["A.b"]
    assert (back.roles, back.fingerprint, back.statement, back.uses) == \
        ("c (main)", "ff", "x : R\n====\nx = x", {"A.d": "A.d = 1\n : R"})
    assert pinned.changed_names(text, text.replace("x = x", "x = 0")) == [("A.b", "changed")]


def test_real_pinned_files_parse_and_cover_the_registry():
    registry = C.load_registry()
    for lang, rel in (("coq", pinned.COQ_FILE), ("lean", pinned.LEAN_FILE)):
        blocks = pinned.parse((C.ROOT / rel).read_text())
        assert list(blocks) == [n for n, _ in C.registry_roles(registry, lang)]
        assert all(b.statement for b in blocks.values())
    coq = pinned.parse((C.ROOT / pinned.COQ_FILE).read_text())
    # A changed definition changes the file: relu2's body is pinned with every statement using it.
    assert "SkipAbsorption.Activations.relu2" in coq["SkipAbsorption.Activations.relu2_not_absorbable"].uses
    # Instances are stated with the standard library only.
    for c in registry:
        for inst in C.registry_names(c.get("coq_instance")):
            assert coq[inst].uses == {}, inst
