"""The statement-consistency check passes on the real sources and fails on broken copies.

Every broken copy lives in a temporary directory; the real sources are never touched.
"""

import re
from pathlib import Path

import pytest

from oracle import consistency as C


@pytest.fixture()
def copy(tmp_path: Path) -> Path:
    return C.copy_sources(tmp_path)


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count))


def findings(root: Path) -> list[str]:
    return [str(f) for f in C.static_findings(root)]


def test_real_sources_are_consistent():
    assert findings(C.ROOT) == []


def test_copy_is_consistent_before_breaking(copy):
    assert findings(copy) == []


def test_every_claim_names_formal_declarations_or_a_reason():
    for c in C.load_registry():
        for key in ("coq", "lean"):
            assert c.get(key) or c.get(f"{key}_absent"), (c["id"], key)


def _first_decl(root: Path, key: str) -> tuple[str, str]:
    claim = next(c for c in C.load_registry(root) if c["id"] == "homogeneous-any-width")
    return claim["id"], C._names(claim[key])[0]


def test_sorry_in_lean_is_caught(copy):
    f = next((copy / "lean").rglob("Homogeneous.lean"))
    text = f.read_text()
    # Replace the first proof body after ':= by' with sorry.
    f.write_text(re.sub(r":= by\n", ":= by\n  sorry\n", text, count=1))
    assert any("forbidden" in x and "sorry" in x for x in findings(copy))


def test_admitted_in_coq_is_caught(copy):
    f = copy / "proofs" / "coq" / "Homogeneous.v"
    edit(f, "Qed.", "Admitted.")
    assert any("forbidden" in x and "Admitted" in x for x in findings(copy))


def test_sorry_inside_a_comment_is_not_a_finding(copy):
    f = copy / "proofs" / "coq" / "Homogeneous.v"
    f.write_text(f.read_text() + "\n(* a remark that mentions Admitted and Axiom *)\n")
    assert findings(copy) == []


def test_extra_axiom_is_caught(copy):
    f = copy / "proofs" / "coq" / "Gated.v"
    f.write_text(f.read_text() + "\nAxiom everything_absorbs : forall P : Prop, P.\n")
    assert any("Axiom everything_absorbs" in x for x in findings(copy))


def test_lean_axiom_is_caught(copy):
    f = next((copy / "lean").rglob("Gated.lean"))
    f.write_text(f.read_text() + "\naxiom cheat : False\n")
    assert any("axiom cheat" in x for x in findings(copy))


def test_missing_coq_declaration_is_caught(copy):
    cid, name = _first_decl(copy, "coq")
    short = name.rsplit(".", 1)[1]
    f = copy / "proofs" / "coq" / "Homogeneous.v"
    edit(f, f"Theorem {short}", f"Theorem {short}_renamed")
    assert f"{cid}: Coq declaration {name} not found" in findings(copy)


def test_missing_lean_declaration_is_caught(copy):
    cid, name = _first_decl(copy, "lean")
    short = name.rsplit(".", 1)[1]
    f = next((copy / "lean").rglob("Homogeneous.lean"))
    edit(f, f"theorem {short} ", f"theorem {short}_renamed ")
    assert f"{cid}: Lean declaration {name} not found" in findings(copy)


def test_dropped_hypothesis_is_caught_in_coq(copy):
    f = copy / "proofs" / "coq" / "Homogeneous.v"
    # Rename the binder: the statement no longer carries a hypothesis named k_ne_1.
    text = f.read_text()
    f.write_text(text.replace("(k_ne_1 :", "(k_not_one :"))
    assert any("'k_ne_1' is not a named binder of Coq" in x for x in findings(copy))


def test_dropped_hypothesis_is_caught_in_lean(copy):
    f = next((copy / "lean").rglob("Gated.lean"))
    f.write_text(f.read_text().replace("(gate_zero_at_0 :", "(g_vanishes :"))
    assert any("'gate_zero_at_0' is not a named binder of Lean" in x for x in findings(copy))


def test_missing_informal_proof_is_caught(copy):
    (copy / "proofs" / "informal" / "glu-flip.md").unlink()
    assert any(x.startswith("glu-flip: informal proof") for x in findings(copy))


def test_claim_without_a_test_is_caught(copy):
    for t in (copy / "tests").glob("test_*.py"):
        t.write_text(t.read_text().replace("non-generic", "nongeneric"))
    assert "non-generic: no test names this claim" in findings(copy)


def test_binder_names_reads_grouped_binders():
    stmt = "Theorem t : forall (a b : R) {c : nat} (k_ne_1 : k <> 1), a = b."
    assert {"a", "b", "c", "k_ne_1"} <= C.binder_names(stmt)
    assert "x" not in C.binder_names("theorem t (h : x := 1) : True")


def test_parse_assumptions():
    out = ('     = "==> A.t"%string\n     : string\nClosed under the global context\n'
           '     = "==> A.u"%string\n     : string\nAxioms:\nClassical_Prop.classic : forall P : Prop, P \\/ ~ P\n'
           'ClassicalDedekindReals.sig_not_dec : forall P : Prop, {~ ~ P} + {~ P}\n'
           'ClassicalDedekindReals.sig_forall_dec\n  : forall P : nat -> Prop,\n'
           '    (forall n : nat, {P n} + {~ P n}) -> {n : nat | ~ P n} + {forall n : nat, P n}\n')
    assert C.parse_assumptions(out) == {
        "A.t": [], "A.u": ["Classical_Prop.classic", "ClassicalDedekindReals.sig_not_dec",
                           "ClassicalDedekindReals.sig_forall_dec"]}


def test_coq_build_flags_an_axiom_used_by_a_theorem(copy):
    """With coqc: a theorem that uses a new axiom compiles but fails Print Assumptions.
    Without coqc: the build is reported as skipped, never as passed."""
    f = copy / "proofs" / "coq" / "SkipReduction.v"
    f.write_text(f.read_text() + "\nAxiom cheat : False.\nTheorem uses_cheat : 1 = 2.\n"
                 "Proof. destruct cheat. Qed.\n")
    build = C.coq_build(copy, theorems=["SkipAbsorption.SkipReduction.uses_cheat",
                                        "SkipAbsorption.SkipReduction.skip_reduction"])
    if not C.coq_available():
        assert build.status == "skipped"
        return
    assert build.status == "failed"
    # Coq prints the shortest unambiguous name; a proof by `destruct cheat` may also pull in
    # the reals' axioms through the file's imports, which are allowed.
    axioms = build.assumptions["SkipAbsorption.SkipReduction.uses_cheat"]
    assert "SkipReduction.cheat" in axioms
    assert [a for a in axioms if not a.startswith(C.ALLOWED_AXIOM_PREFIXES)] == ["SkipReduction.cheat"]
    assert "cheat" in build.detail
