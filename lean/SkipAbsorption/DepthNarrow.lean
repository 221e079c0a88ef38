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

/-! ## Part (a): a plain stack whose first width is at most `d` -/

/-- The plain (residual-free) relu stack `P_N ∘ … ∘ P_1`, first layer of the list first. -/
noncomputable def plain_stack {d : ℕ} : List (Layer d) → (Fin d → ℝ) → (Fin d → ℝ)
  | [], x => x
  | P :: Ps, x => plain_stack Ps (ungated relu P.Wu P.Wd x)

/-- A bias-free plain relu stack maps `0` to `0`. -/
theorem plain_stack_zero {d : ℕ} (plains : List (Layer d)) :
    ∀ x : Fin d → ℝ, (∀ j, x j = 0) → ∀ i, plain_stack plains x i = 0 := by
  induction plains with
  | nil =>
    intro x hx i
    exact hx i
  | cons P Ps ih =>
    intro x hx i
    apply ih (ungated relu P.Wu P.Wd x) ?_ i
    intro k
    show ∑ l, P.Wd k l * relu (∑ t, P.Wu l t * x t) = 0
    apply Finset.sum_eq_zero
    intro l _
    have h0 : ∑ t, P.Wu l t * x t = 0 :=
      Finset.sum_eq_zero (fun t _ => by rw [hx t, mul_zero])
    have hr : relu (∑ t, P.Wu l t * x t) = 0 := by
      rw [h0]
      exact max_eq_left (le_refl (0 : ℝ))
    rw [hr, mul_zero]

/-- The rows of `V` (`m` of them, `m ≤ d`) padded with zero rows to a `d × d` matrix. -/
noncomputable def pad_rows {d m : ℕ} (V : Fin m → Fin d → ℝ) : Matrix (Fin d) (Fin d) ℝ :=
  fun i j => if h : i.val < m then V ⟨i.val, h⟩ j else 0

theorem pad_rows_mulVec {d m : ℕ} (V : Fin m → Fin d → ℝ) (hm : m ≤ d) (l : Fin m)
    (x : Fin d → ℝ) :
    Matrix.mulVec (pad_rows V) x ⟨l.val, lt_of_lt_of_le l.isLt hm⟩ = dot (V l) x := by
  have hrow : ∀ j, pad_rows V ⟨l.val, lt_of_lt_of_le l.isLt hm⟩ j = V l j := by
    intro j
    show (if h : l.val < m then V ⟨l.val, h⟩ j else 0) = V l j
    first
      | exact (dif_pos l.isLt).trans rfl
      | simp [l.isLt]
  show ∑ j, pad_rows V ⟨l.val, lt_of_lt_of_le l.isLt hm⟩ j * x j = ∑ j, V l j * x j
  exact Finset.sum_congr rfl (fun j _ => by rw [hrow j])

/-- A matrix `V` with `m ≤ d` rows (`d ≥ 1`) has a nonzero `x` with `V x ≤ 0` entrywise: a
kernel vector of the padded square matrix if its determinant is `0`, else the solution of
`pad_rows V x = (-1, …, -1)`. -/
theorem narrow_matrix_nonpositive {d m : ℕ} (V : Fin m → Fin d → ℝ) (d_pos : 0 < d)
    (hm : m ≤ d) : ∃ x : Fin d → ℝ, (∃ j, x j ≠ 0) ∧ ∀ l, dot (V l) x ≤ 0 := by
  by_cases hdet : Matrix.det (pad_rows V) = 0
  · obtain ⟨v, hv, hker⟩ := Matrix.exists_mulVec_eq_zero_iff.mpr hdet
    refine ⟨v, ?_, ?_⟩
    · by_contra hall
      push_neg at hall
      exact hv (funext hall)
    · intro l
      have h0 := congrFun hker ⟨l.val, lt_of_lt_of_le l.isLt hm⟩
      rw [pad_rows_mulVec V hm l v] at h0
      exact le_of_eq h0
  · have hunit : IsUnit (Matrix.det (pad_rows V)) := isUnit_iff_ne_zero.mpr hdet
    have hsol : Matrix.mulVec (pad_rows V)
        (Matrix.mulVec (pad_rows V)⁻¹ (fun _ => (-1 : ℝ))) = fun _ => (-1 : ℝ) := by
      rw [Matrix.mulVec_mulVec, Matrix.mul_nonsing_inv _ hunit, Matrix.one_mulVec]
    refine ⟨Matrix.mulVec (pad_rows V)⁻¹ (fun _ => (-1 : ℝ)), ?_, ?_⟩
    · by_contra hall
      push_neg at hall
      have h1 := congrFun hsol ⟨0, d_pos⟩
      have h2 : Matrix.mulVec (pad_rows V) (Matrix.mulVec (pad_rows V)⁻¹ (fun _ => (-1 : ℝ)))
          ⟨0, d_pos⟩ = ∑ j, pad_rows V ⟨0, d_pos⟩ j
            * Matrix.mulVec (pad_rows V)⁻¹ (fun _ => (-1 : ℝ)) j := rfl
      have h4 : ∑ j, pad_rows V ⟨0, d_pos⟩ j
          * Matrix.mulVec (pad_rows V)⁻¹ (fun _ => (-1 : ℝ)) j = 0 :=
        Finset.sum_eq_zero (fun j _ => by rw [hall j, mul_zero])
      rw [h2, h4] at h1
      have h3 : (0 : ℝ) = -1 := h1
      norm_num at h3
    · intro l
      have h1 := congrFun hsol ⟨l.val, lt_of_lt_of_le l.isLt hm⟩
      rw [pad_rows_mulVec V hm l] at h1
      have h2 : dot (V l) (Matrix.mulVec (pad_rows V)⁻¹ (fun _ => (-1 : ℝ))) = -1 := h1
      rw [h2]
      norm_num

/-- `depth-narrow` (a): a residual relu stack with invertible pieces (`d ≥ 1`) equals no plain
relu stack, of any depth, whose first width is at most `d`. -/
theorem depth_narrow_first_width {d : ℕ} (layers plains : List (Layer d))
    (d_pos : 0 < d)
    (pieces_invertible : ∀ L ∈ layers, layer_pieces_invertible L)
    (narrow_width : ∃ (P1 : Layer d) (rest : List (Layer d)), plains = P1 :: rest ∧ P1.m ≤ d) :
    ¬ (∀ (x : Fin d → ℝ) (i : Fin d), res_stack layers x i = plain_stack plains x i) := by
  intro heq
  obtain ⟨P1, rest, hpl, hw⟩ := narrow_width
  obtain ⟨x, ⟨j, hxj⟩, hneg⟩ := narrow_matrix_nonpositive P1.Wu d_pos hw
  apply hxj
  apply residual_stack_nonvanishing layers pieces_invertible x ?_ j
  intro i
  rw [heq x i, hpl]
  apply plain_stack_zero rest (ungated relu P1.Wu P1.Wd x) ?_ i
  intro k
  show ∑ l, P1.Wd k l * relu (∑ t, P1.Wu l t * x t) = 0
  apply Finset.sum_eq_zero
  intro l _
  have hr : relu (∑ t, P1.Wu l t * x t) = 0 := max_eq_right (hneg l)
  rw [hr, mul_zero]

end SkipAbsorption
