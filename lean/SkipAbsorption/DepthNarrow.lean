import SkipAbsorption.Necessity

/-!
# Residual relu stacks with invertible pieces (claim `depth-narrow`, part (a), first half)

Mirror of the first part of `proofs/coq/DepthNarrow.v`.

* `piece S Wd Wu = I + W_S U_S`, the linear map a residual relu block is where exactly the units
  of `S` are active; `active Wu x` is the set of units with `u_l ⬝ x > 0`.
* `residual_is_piece`: `x + B x = (I + W_(S x) U_(S x)) x` with `S x = active Wu x`, since
  `relu z` is `z` or `0`.
* `residual_stack_nonvanishing`: if every piece of every block has a trivial kernel (for a
  square matrix: is invertible), the residual stack vanishes only at `0`.
-/

namespace SkipAbsorption

/-- The piece `I + W_S U_S` of the block `(Wd, Wu)` for the active set `S`. -/
noncomputable def piece {d m : ℕ} (S : Fin m → Bool) (Wd : Fin d → Fin m → ℝ)
    (Wu : Fin m → Fin d → ℝ) (i j : Fin d) : ℝ :=
  (if i = j then 1 else 0) + ∑ l, (if S l then Wd i l * Wu l j else 0)

/-- The square matrix `A` has a trivial kernel. -/
def trivial_kernel {d : ℕ} (A : Fin d → Fin d → ℝ) : Prop :=
  ∀ y : Fin d → ℝ, (∀ i, ∑ j, A i j * y j = 0) → ∀ j, y j = 0

/-- The units active at `x`: those with `u_l ⬝ x > 0`. -/
noncomputable def active {d m : ℕ} (Wu : Fin m → Fin d → ℝ) (x : Fin d → ℝ) (l : Fin m) : Bool :=
  decide (0 < dot (Wu l) x)

theorem relu_active {d m : ℕ} (Wu : Fin m → Fin d → ℝ) (x : Fin d → ℝ) (l : Fin m) :
    relu (dot (Wu l) x) = if active Wu x l then dot (Wu l) x else 0 := by
  by_cases h : 0 < dot (Wu l) x
  · have ha : active Wu x l = true := decide_eq_true h
    rw [if_pos ha]
    unfold relu
    exact max_eq_left (le_of_lt h)
  · have ha : ¬ (active Wu x l = true) := fun hc => h (of_decide_eq_true hc)
    rw [if_neg ha]
    unfold relu
    exact max_eq_right (not_lt.mp h)

/-- `x + B x` is the piece of the active set at `x`, applied to `x`. -/
theorem residual_is_piece {d m : ℕ} (Wd : Fin d → Fin m → ℝ) (Wu : Fin m → Fin d → ℝ)
    (x : Fin d → ℝ) (i : Fin d) :
    x i + ungated relu Wu Wd x i = ∑ j, piece (active Wu x) Wd Wu i j * x j := by
  have h1 : ∀ j ∈ (Finset.univ : Finset (Fin d)), piece (active Wu x) Wd Wu i j * x j
      = (if i = j then 1 else 0) * x j
        + ∑ l, (if active Wu x l then Wd i l * Wu l j else 0) * x j := by
    intro j _
    rw [piece, add_mul, Finset.sum_mul]
  rw [Finset.sum_congr rfl h1, Finset.sum_add_distrib, Finset.sum_boole_mul,
    if_pos (Finset.mem_univ i), Finset.sum_comm]
  have h2 : ∀ l ∈ (Finset.univ : Finset (Fin m)), Wd i l * relu (dot (Wu l) x)
      = ∑ j, (if active Wu x l then Wd i l * Wu l j else 0) * x j := by
    intro l _
    rw [relu_active]
    by_cases hl : active Wu x l = true
    · rw [if_pos hl]
      simp only [dot]
      rw [Finset.mul_sum]
      exact Finset.sum_congr rfl (fun j _ => by rw [if_pos hl]; ring)
    · rw [if_neg hl, mul_zero]
      symm
      exact Finset.sum_eq_zero (fun j _ => by rw [if_neg hl]; ring)
  have h3 : ungated relu Wu Wd x i = ∑ l, Wd i l * relu (dot (Wu l) x) := rfl
  rw [h3, Finset.sum_congr rfl h2]

/-- A relu layer on `ℝ^d`: width `m`, output weights `Wd`, rows `Wu`. -/
structure Layer (d : ℕ) where
  m : ℕ
  Wd : Fin d → Fin m → ℝ
  Wu : Fin m → Fin d → ℝ

/-- The residual stack `(I + B_L) ∘ … ∘ (I + B_1)`, first layer of the list first. -/
noncomputable def res_stack {d : ℕ} : List (Layer d) → (Fin d → ℝ) → (Fin d → ℝ)
  | [], x => x
  | L :: Ls, x => res_stack Ls (fun i => x i + ungated relu L.Wu L.Wd x i)

/-- Every piece of the layer is invertible (has a trivial kernel). -/
def layer_pieces_invertible {d : ℕ} (L : Layer d) : Prop :=
  ∀ S : Fin L.m → Bool, trivial_kernel (piece S L.Wd L.Wu)

/-- With invertible pieces, `F x = 0` forces `x = 0`. -/
theorem residual_stack_nonvanishing {d : ℕ} (layers : List (Layer d))
    (pieces_invertible : ∀ L ∈ layers, layer_pieces_invertible L) :
    ∀ x : Fin d → ℝ, (∀ i, res_stack layers x i = 0) → ∀ j, x j = 0 := by
  induction layers with
  | nil =>
    intro x hx j
    exact hx j
  | cons L Ls ih =>
    intro x hx j
    have hrest : ∀ L' ∈ Ls, layer_pieces_invertible L' :=
      fun L' hL' => pieces_invertible L' (List.mem_cons.mpr (Or.inr hL'))
    have hy := ih hrest (fun i => x i + ungated relu L.Wu L.Wd x i) hx
    have hL : layer_pieces_invertible L := pieces_invertible L (List.mem_cons.mpr (Or.inl rfl))
    apply hL (active L.Wu x) x _ j
    intro i
    rw [← residual_is_piece]
    exact hy i

end SkipAbsorption
