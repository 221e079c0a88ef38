"""absorption-width in Coq (proofs/coq/AbsorptionWidth.v): the exact width of a nondegenerate
bias-free relu block for any M, the invertible case m + 2d - rank W_up, and its corollaries.

The statements are read from proofs/pinned/coq-statements.txt, which `absorb audit` regenerates
from the compiled development and compares on every run; these tests pin down what the
statements say (any M, disjoint S and T, the count m + |T| + 2k, the rank bound), so that a
weaker statement that still compiles is caught here too.
"""

from oracle.formal import pinned
from oracle.formal import consistency as C

PREFIX = "SkipAbsorption.AbsorptionWidth."
NAMES = ["absorption_width_exact", "absorption_width_exact_bias_free", "absorption_width_invertible",
         "absorption_width_invertible_bias_free", "absorption_width_invertible_full_rank",
         "absorption_width_never_below"]
INSTANCE = PREFIX + "absorption_width_instance_m2"


def _claim() -> dict:
    return next(c for c in C.load_registry() if c["id"] == "absorption-width")


def _block(name: str) -> pinned.Block:
    blocks = pinned.load(C.ROOT / pinned.COQ_FILE)
    assert name in blocks, name
    return blocks[name]


def test_registered_and_pinned():
    claim = _claim()
    names = C.registry_names(claim["coq"])
    assert names[0] == "SkipAbsorption.Width.absorption_width_any_M"
    for n in NAMES:
        assert PREFIX + n in names, n
        assert _block(PREFIX + n).statement
    assert INSTANCE in C.registry_names(claim["coq_instance"])
    # the instance is stated with the standard library only
    assert _block(INSTANCE).uses == {}
    assert "coq_absent" not in claim


def test_scope_is_full_and_the_measure_remark_is_another_claim():
    claim = _claim()
    assert C.scope_label(claim, "coq") == "full"
    # the projector form of C is formal, and the almost-every-weight sentence cites generic-weights in
    # the statement and is a measure theorem in Coq (WidthNull.absorption_width_null, issue 30)
    note = C.scope_note(claim, "coq")
    assert "absorption_width_exact_proj" in note and "WidthNull.absorption_width_null" in note
    assert "GenericWeightsNull.generic_weights_null" in note
    assert "almost every weight: claim generic-weights.)" in claim["statement"]
    stmt = _block(PREFIX.replace("AbsorptionWidth.", "AbsorptionWidthProj.") + "absorption_width_exact_proj").statement
    assert "rank_on_perp_rows" in stmt and "nondegenerate" in pinned.binder_names(stmt)


def test_exact_width_is_for_any_M_with_disjoint_sets():
    stmt = _block(PREFIX + "absorption_width_exact").statement
    assert "nondegenerate" in pinned.binder_names(stmt)
    concl = pinned.conclusion(stmt)
    # the biased realisation of relu-complete, with a bias-free B
    assert concl.startswith("ReluClasses.realised d m m' M Wd Wu (fun _ : nat => 0) (fun _ : nat => 0) <->")
    # M itself, not the identity: M + W_S U_S = sum_T y_i u_i^T + k outer products
    assert ("M o j + Linalg.sum m (fun i : nat => if S i then Wd o i * Wu i j else 0) = "
            "Linalg.sum m (fun i : nat => if T i then y i o * Wu i j else 0) + "
            "Linalg.sum k (fun q : nat => a q o * l q j)") in concl
    assert "(forall i : nat, (i < m)%nat -> S i = true -> T i = false)" in concl
    assert concl.endswith("(m + ReluClasses.count m T + 2 * k <= m')%nat)")
    bf = pinned.conclusion(_block(PREFIX + "absorption_width_exact_bias_free").statement)
    assert ("Linalg.mv d M x i + Linalg.block d m RealActivations.relu Wd Wu x i = "
            "Linalg.block d m' RealActivations.relu Wd' Wu' x i") in bf
    assert bf.endswith("(m + ReluClasses.count m T + 2 * k <= m')%nat)")


def test_invertible_case_and_corollaries():
    stmt = _block(PREFIX + "absorption_width_invertible").statement
    assert {"nondegenerate", "pieces_invertible", "rank_Wup"} <= set(pinned.binder_names(stmt))
    # every S: M + W_S U_S has a trivial kernel
    assert "pieces_invertible : forall (S : nat -> bool) (x : Linalg.vec)," in stmt
    assert "Linalg.mv d M x o + Linalg.mv d (SignFlip.selected_product m S Wd Wu) x o" in stmt
    assert "rank_Wup : Rank.row_rank d m Wu r" in stmt
    assert pinned.conclusion(stmt).endswith("<-> (m + 2 * d - r <= m')%nat")
    assert pinned.conclusion(_block(PREFIX + "absorption_width_invertible_bias_free").statement).endswith(
        "<-> (m + 2 * d - r <= m')%nat")
    full = _block(PREFIX + "absorption_width_invertible_full_rank").statement
    assert "rank_Wup : Rank.row_rank d m Wu d" in full
    assert pinned.conclusion(full).endswith("<-> (m + d <= m')%nat")
    below = _block(PREFIX + "absorption_width_never_below").statement
    assert "rank_Wup" not in pinned.binder_names(below)
    assert pinned.conclusion(below) == "(m + d <= m')%nat"


def test_lower_bound_hypotheses_are_shown_needed():
    names = C.registry_names(_claim()["coq"])
    for n in ("absorption_width_never_below_needs_pieces_invertible",
              "absorption_width_never_below_needs_nondegenerate"):
        assert PREFIX + n in names, n
        concl = pinned.conclusion(_block(PREFIX + n).statement)
        # the negation of the never-below statement with one hypothesis removed
        assert concl.startswith("~ (forall (d m m' : nat) (M Wd Wu : Linalg.mat),"), n
        assert concl.endswith("-> (m + d <= m')%nat)"), n
    assert "nondegenerate_block" in pinned.conclusion(
        _block(PREFIX + "absorption_width_never_below_needs_pieces_invertible").statement)
    assert "selected_product" in pinned.conclusion(
        _block(PREFIX + "absorption_width_never_below_needs_nondegenerate").statement)


def test_instance_says_width_two_and_not_one():
    concl = pinned.conclusion(_block(INSTANCE).statement)
    assert concl.startswith("(exists a1 a2 b1 b2 : R, forall t : R, -2 * t + Rmax t 0 =")
    assert "~ (exists a b c e : R, forall t : R, -2 * t + Rmax t 0 = a * Rmax (b * t + c) 0 + e)" in concl


def test_no_escape_hatches_in_the_file():
    text = (C.ROOT / "proofs" / "coq" / "AbsorptionWidth.v").read_text()
    for bad in ("Admitted", "admit", "Axiom ", "Parameter ", "Conjecture"):
        assert bad not in text, bad
    assert "AbsorptionWidth.v" in (C.ROOT / "proofs" / "coq" / "_CoqProject").read_text().split()
