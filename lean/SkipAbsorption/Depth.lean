import SkipAbsorption.Basic

/-!
# Depth: stacks of residual blocks are not stacks of residual-free blocks

A block `f : (Fin d → ℝ) → (Fin d → ℝ)` is *flat at 0* when `f 0 = 0` and `f` has Fréchet
derivative `0` at `0`, i.e. `f x = o(‖x‖)`.  (Homogeneous blocks of degree `k > 1` and gated
blocks whose gate vanishes at 0 are of this kind; that link is argued informally and is not
formalised here.)

By the chain rule a composition of maps fixing 0 has, at 0, the composition of the
derivatives.  A residual stack `x ↦ M_l x + B_l x` with flat `B_l` therefore has derivative
`M_L ∘ ⋯ ∘ M_1` at 0, while any nonempty stack of flat blocks has derivative 0.  Uniqueness
of the derivative separates them whenever the product of the skips is nonzero.
The dimension `d` is fixed throughout; the number and widths of the residual-free blocks are
arbitrary because each block only enters through its flatness.
-/

namespace SkipAbsorption

variable {d : ℕ}

/-- `compose f n = f (n-1) ∘ ⋯ ∘ f 0`: the first `n` blocks, `f 0` applied first. -/
def compose (f : ℕ → (Fin d → ℝ) → (Fin d → ℝ)) : ℕ → (Fin d → ℝ) → (Fin d → ℝ)
  | 0 => id
  | n + 1 => f n ∘ compose f n

/-- The matching product of linear maps, `A (n-1) ∘ ⋯ ∘ A 0`. -/
def composeL (A : ℕ → (Fin d → ℝ) →L[ℝ] (Fin d → ℝ)) : ℕ → (Fin d → ℝ) →L[ℝ] (Fin d → ℝ)
  | 0 => ContinuousLinearMap.id ℝ (Fin d → ℝ)
  | n + 1 => (A n).comp (composeL A n)

/-- Chain rule along a stack: if every block fixes 0 and has derivative `A l` there, the
first `n` blocks fix 0 and have derivative `composeL A n` there. -/
theorem compose_hasFDerivAt (f : ℕ → (Fin d → ℝ) → (Fin d → ℝ))
    (A : ℕ → (Fin d → ℝ) →L[ℝ] (Fin d → ℝ))
    (hf : ∀ l, f l 0 = 0 ∧ HasFDerivAt (f l) (A l) 0) :
    ∀ n, compose f n 0 = 0 ∧ HasFDerivAt (compose f n) (composeL A n) 0 := by
  intro n
  induction n with
  | zero =>
    refine ⟨?_, ?_⟩
    · show (id (0 : Fin d → ℝ)) = 0
      rfl
    · show HasFDerivAt id (ContinuousLinearMap.id ℝ (Fin d → ℝ)) (0 : Fin d → ℝ)
      exact hasFDerivAt_id 0
  | succ n ih =>
    obtain ⟨h0, hd⟩ := ih
    obtain ⟨g0, gd⟩ := hf n
    refine ⟨?_, ?_⟩
    · show f n (compose f n 0) = 0
      rw [h0]
      exact g0
    · have gd' : HasFDerivAt (f n) (A n) (compose f n 0) := by
        rw [h0]
        exact gd
      show HasFDerivAt (f n ∘ compose f n) ((A n).comp (composeL A n)) 0
      exact HasFDerivAt.comp (x := (0 : Fin d → ℝ)) gd' hd

/-- A skip branch `S` (fixing 0, derivative `A` at 0) plus a flat block has derivative `A`
at 0 and fixes 0. -/
theorem residual_hasFDerivAt (S B : (Fin d → ℝ) → (Fin d → ℝ))
    (A : (Fin d → ℝ) →L[ℝ] (Fin d → ℝ))
    (hS : S 0 = 0 ∧ HasFDerivAt S A 0)
    (hB : B 0 = 0 ∧ HasFDerivAt B (0 : (Fin d → ℝ) →L[ℝ] (Fin d → ℝ)) 0) :
    (fun x => S x + B x) 0 = 0 ∧ HasFDerivAt (fun x => S x + B x) A 0 := by
  refine ⟨?_, ?_⟩
  · show S 0 + B 0 = 0
    rw [hS.1, hB.1, add_zero]
  · have h := hS.2.add hB.2
    rw [add_zero] at h
    exact h

/-- Any nonempty stack of flat blocks has derivative 0 at 0. -/
theorem composeL_zero_succ (n : ℕ) :
    composeL (fun _ => (0 : (Fin d → ℝ) →L[ℝ] (Fin d → ℝ))) (n + 1) = 0 :=
  ContinuousLinearMap.zero_comp _

/-- The common core of both depth statements: a stack of skip branches `S l` (derivatives
`A l` at 0) plus flat blocks `B l` differs from every nonempty stack of flat blocks `P l`,
as soon as the product of the `A l` is nonzero. -/
theorem stack_ne (L n : ℕ) (S B P : ℕ → (Fin d → ℝ) → (Fin d → ℝ))
    (A : ℕ → (Fin d → ℝ) →L[ℝ] (Fin d → ℝ))
    (hS : ∀ l, S l 0 = 0 ∧ HasFDerivAt (S l) (A l) 0)
    (hB : ∀ l, B l 0 = 0 ∧ HasFDerivAt (B l) (0 : (Fin d → ℝ) →L[ℝ] (Fin d → ℝ)) 0)
    (hP : ∀ l, P l 0 = 0 ∧ HasFDerivAt (P l) (0 : (Fin d → ℝ) →L[ℝ] (Fin d → ℝ)) 0)
    (hA : composeL A L ≠ 0) :
    compose (fun l x => S l x + B l x) L ≠ compose P (n + 1) := by
  intro h
  have hres := (compose_hasFDerivAt (fun l x => S l x + B l x) A
    (fun l => residual_hasFDerivAt (S l) (B l) (A l) (hS l) (hB l)) L).2
  have hplain := (compose_hasFDerivAt P (fun _ => 0) hP (n + 1)).2
  rw [← h] at hplain
  have e := hres.unique hplain
  exact hA (e.trans (composeL_zero_succ n))

/-- Depth, general form: residual blocks `x ↦ M_l x + B_l x` with flat `B_l` and
`M_{L-1} ∘ ⋯ ∘ M_0 ≠ 0`; the stack equals no composition of `n + 1` flat residual-free
blocks, for any `n` (any widths: the blocks enter only through flatness). -/
theorem depth_any (L n : ℕ) (M : ℕ → (Fin d → ℝ) →L[ℝ] (Fin d → ℝ))
    (B P : ℕ → (Fin d → ℝ) → (Fin d → ℝ))
    (res_blocks_flat :
      ∀ l, B l 0 = 0 ∧ HasFDerivAt (B l) (0 : (Fin d → ℝ) →L[ℝ] (Fin d → ℝ)) 0)
    (plain_blocks_flat :
      ∀ l, P l 0 = 0 ∧ HasFDerivAt (P l) (0 : (Fin d → ℝ) →L[ℝ] (Fin d → ℝ)) 0)
    (skip_product_nonzero : composeL M L ≠ 0) :
    compose (fun l x => M l x + B l x) L ≠ compose P (n + 1) :=
  stack_ne L n (fun l => M l) B P M
    (fun l => ⟨map_zero (M l), (M l).hasFDerivAt⟩)
    res_blocks_flat plain_blocks_flat skip_product_nonzero

/-- With identity skips the product of the skips is the identity. -/
theorem composeL_id (n : ℕ) :
    composeL (fun _ => ContinuousLinearMap.id ℝ (Fin d → ℝ)) n
      = ContinuousLinearMap.id ℝ (Fin d → ℝ) := by
  induction n with
  | zero => rfl
  | succ n ih =>
    show (ContinuousLinearMap.id ℝ (Fin d → ℝ)).comp
        (composeL (fun _ => ContinuousLinearMap.id ℝ (Fin d → ℝ)) n) = _
    rw [ih, ContinuousLinearMap.id_comp]

/-- The identity of `Fin d → ℝ` is not the zero map when `d > 0`. -/
theorem id_ne_zero_of_pos (d_pos : 0 < d) :
    ContinuousLinearMap.id ℝ (Fin d → ℝ) ≠ 0 := by
  intro h0
  have h1 : (ContinuousLinearMap.id ℝ (Fin d → ℝ)) (fun _ => (1 : ℝ))
      = (0 : (Fin d → ℝ) →L[ℝ] (Fin d → ℝ)) (fun _ => (1 : ℝ)) := by
    rw [h0]
  have h2 : (1 : ℝ) = 0 := by
    first
      | (rw [ContinuousLinearMap.id_apply, ContinuousLinearMap.zero_apply] at h1
         exact congrFun h1 ⟨0, d_pos⟩)
      | exact congrFun h1 ⟨0, d_pos⟩
      | simpa using congrFun h1 ⟨0, d_pos⟩
  exact one_ne_zero h2

/-- Cor. 7 with identity skips: `L + 1` residual blocks `x ↦ x + B_l x` with flat `B_l`
compose to a map that is no composition of `L + 1` flat residual-free blocks (`d > 0`). -/
theorem depth_impossible (L : ℕ) (B P : ℕ → (Fin d → ℝ) → (Fin d → ℝ))
    (res_blocks_flat :
      ∀ l, B l 0 = 0 ∧ HasFDerivAt (B l) (0 : (Fin d → ℝ) →L[ℝ] (Fin d → ℝ)) 0)
    (plain_blocks_flat :
      ∀ l, P l 0 = 0 ∧ HasFDerivAt (P l) (0 : (Fin d → ℝ) →L[ℝ] (Fin d → ℝ)) 0)
    (d_pos : 0 < d) :
    compose (fun l x => x + B l x) (L + 1) ≠ compose P (L + 1) := by
  have hne : composeL (fun _ => ContinuousLinearMap.id ℝ (Fin d → ℝ)) (L + 1) ≠ 0 := by
    rw [composeL_id]
    exact id_ne_zero_of_pos d_pos
  have hS : ∀ l : ℕ, (fun (_ : ℕ) (x : Fin d → ℝ) => x) l 0 = 0 ∧
      HasFDerivAt ((fun (_ : ℕ) (x : Fin d → ℝ) => x) l)
        ((fun _ => ContinuousLinearMap.id ℝ (Fin d → ℝ)) l) 0 :=
    fun _ => ⟨rfl, by
      first
        | exact hasFDerivAt_id (𝕜 := ℝ) (0 : Fin d → ℝ)
        | exact hasFDerivAt_id' (𝕜 := ℝ) (0 : Fin d → ℝ)⟩
  exact stack_ne (L + 1) L (fun _ x => x) B P
    (fun _ => ContinuousLinearMap.id ℝ (Fin d → ℝ)) hS res_blocks_flat plain_blocks_flat hne

end SkipAbsorption
