import SkipAbsorption.Width
import SkipAbsorption.DepthNarrow

/-!
# Wider plain stacks absorb the skips (claim `depth-width`, the rank-`d` case)

Mirror of `DepthStack.depth_width` in `proofs/coq/` (the case where every `W_up,l` has rank `d`):
each residual block `x ↦ x + B_l x` is, by `extra_units_absorb_M` with `M = I`, a plain block of
width `m_l + d`, so the residual stack `(I + B_L) ∘ … ∘ (I + B_1)` is a plain stack of widths
`m_l + d`, for every `σ` with `σ z - σ (-z) = z`.

As in `Width.lean`, the rank step is not mirrored: each layer comes with `d` of its rows and
vectors `b_k` solving `∑_k b_k u_(idx k)^T = -I` (`rows_solve_identity`; they exist iff the rows
of `W_up,l` span `ℝ^d`).  The widths `m_l + 2d - rank W_up,l` for every rank
(`DepthStack.depth_width_any_rank`, with `Rank.v`) are Coq only.

Written, not compiled in this environment (no Lean toolchain); every name used is declared
in `lean/` or listed in `lean/external-names.txt`.
-/

namespace SkipAbsorption

/-- The identity matrix. -/
noncomputable def ident {d : ℕ} (i j : Fin d) : ℝ := if i = j then 1 else 0

theorem skip_ident {d : ℕ} (x : Fin d → ℝ) (i : Fin d) : skip ident x i = x i := by
  show ∑ l, (if i = l then (1 : ℝ) else 0) * x l = x i
  rw [Fintype.sum_eq_single i]
  · rw [if_pos rfl, one_mul]
  · intro l hl
    rw [if_neg (Ne.symm hl), zero_mul]

/-- The residual stack `(I + B_L) ∘ … ∘ (I + B_1)` with activation `σ`, first layer first. -/
noncomputable def res_stack_of {d : ℕ} (σ : ℝ → ℝ) : List (Layer d) → (Fin d → ℝ) → (Fin d → ℝ)
  | [], x => x
  | L :: Ls, x => res_stack_of σ Ls (fun j => x j + ungated σ L.Wu L.Wd x j)

/-- The plain stack `P_N ∘ … ∘ P_1` with activation `σ`, first layer first. -/
noncomputable def plain_stack_of {d : ℕ} (σ : ℝ → ℝ) :
    List (Layer d) → (Fin d → ℝ) → (Fin d → ℝ)
  | [], x => x
  | P :: Ps, x => plain_stack_of σ Ps (ungated σ P.Wu P.Wd x)

/-- `d` rows `u_(idx k)` of the layer and vectors `b_k` with `∑_k b_k u_(idx k)^T = -I`. -/
def rows_solve_identity {d : ℕ} (L : Layer d) : Prop :=
  ∃ (idx : Fin d → Fin L.m) (b : Fin d → Fin d → ℝ),
    ∀ i j : Fin d, ∑ k, b k i * L.Wu (idx k) j = -ident i j

/-- One residual block is the plain block of width `m + d` of `extra_units_absorb_M` (`M = I`). -/
theorem residual_layer_plain {d : ℕ} {σ : ℝ → ℝ} (L : Layer d) (idx : Fin d → Fin L.m)
    (b : Fin d → Fin d → ℝ)
    (sigma_odd_part : ∀ z : ℝ, σ z - σ (-z) = z)
    (index_solution : ∀ i j : Fin d, ∑ k, b k i * L.Wu (idx k) j = -ident i j) :
    ∀ x : Fin d → ℝ, (fun j => x j + ungated σ L.Wu L.Wd x j)
      = ungated σ (ext_up idx L.Wu) (ext_down idx b L.Wd) x := by
  intro x
  funext j
  have h := extra_units_absorb_M ident L.Wd L.Wu idx b sigma_odd_part index_solution x j
  rw [skip_ident] at h
  exact h

/-- `depth-width`, rank-`d` case: a residual stack whose layers each carry `d` rows solving
`∑_k b_k u_(idx k)^T = -I` equals a plain stack of widths `m_l + d`. -/
theorem depth_width {d : ℕ} {σ : ℝ → ℝ} (layers : List (Layer d))
    (sigma_odd_part : ∀ z : ℝ, σ z - σ (-z) = z)
    (row_solutions : ∀ L ∈ layers, rows_solve_identity L) :
    ∃ plains : List (Layer d),
      plains.map (fun P => P.m) = layers.map (fun L => L.m + d) ∧
      ∀ (x : Fin d → ℝ) (i : Fin d), res_stack_of σ layers x i = plain_stack_of σ plains x i := by
  induction layers with
  | nil => exact ⟨[], rfl, fun x i => rfl⟩
  | cons L Ls ih =>
    have hrest : ∀ L' ∈ Ls, rows_solve_identity L' :=
      fun L' hL' => row_solutions L' (List.mem_cons.mpr (Or.inr hL'))
    obtain ⟨plains, hw, heq⟩ := ih hrest
    obtain ⟨idx, b, hsol⟩ := row_solutions L (List.mem_cons.mpr (Or.inl rfl))
    refine ⟨⟨L.m + d, ext_down idx b L.Wd, ext_up idx L.Wu⟩ :: plains, ?_, ?_⟩
    · show (L.m + d) :: plains.map (fun P => P.m) = (L.m + d) :: Ls.map (fun L => L.m + d)
      rw [hw]
    · intro x i
      have hblock := residual_layer_plain L idx b sigma_odd_part hsol x
      show res_stack_of σ Ls (fun j => x j + ungated σ L.Wu L.Wd x j) i
        = plain_stack_of σ plains (ungated σ (ext_up idx L.Wu) (ext_down idx b L.Wd) x) i
      rw [hblock]
      exact heq _ i

end SkipAbsorption
