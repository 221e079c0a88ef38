import SkipAbsorption.Necessity

/-!
# Residual relu stacks with invertible pieces (claim `depth-narrow`, parts (a) and (b))

Mirror of `proofs/coq/DepthNarrow.v` (written, not compiled in this environment).

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

/-! ## Part (b): a plain stack with a layer narrower than `d`

A plain stack with a layer of width `k < d` takes its values, for each pattern of active units
after that layer, in the range of a `d × k` matrix, so finitely many nonzero covectors `a`
cover all its values (`a ⬝ P x = 0` for one of them).  Pulled back through the invertible
pieces of `F`, finitely many nonzero covectors `c` would cover every `x` (`c ⬝ x = 0` for one
of them), but `ℝ^d` is no finite union of hyperplanes. -/

/-- Finitely many hyperplanes `c ⬝ x = 0` (`c ≠ 0`) never cover `ℝ^d`. -/
theorem hyperplanes_do_not_cover {d : ℕ} (H : List (Fin d → ℝ))
    (hnz : ∀ c ∈ H, ∃ j, c j ≠ 0) : ∃ x : Fin d → ℝ, ∀ c ∈ H, dot c x ≠ 0 := by
  induction H with
  | nil => exact ⟨fun _ => 0, fun c hc => by cases hc⟩
  | cons c0 H ih =>
    obtain ⟨x, hx⟩ := ih (fun c hc => hnz c (List.mem_cons.mpr (Or.inr hc)))
    by_cases h0 : dot c0 x = 0
    · obtain ⟨j, hj⟩ := hnz c0 (List.mem_cons.mpr (Or.inl rfl))
      obtain ⟨t, ht, hsmall⟩ := exists_small_step H (fun c => dot c x)
        (fun c => dot c (fun l => if j = l then (1 : ℝ) else 0))
      refine ⟨fun l => x l + t * (if j = l then (1 : ℝ) else 0), ?_⟩
      intro c hc
      rw [dot_add_smul c x (fun l => if j = l then (1 : ℝ) else 0) t, dot_unit]
      rcases List.mem_cons.mp hc with h | h
      · rw [h, h0, zero_add]
        exact mul_ne_zero (ne_of_gt ht) hj
      · have hs := hsmall c h (hx c h)
        rw [dot_unit] at hs
        intro hsum
        have habs : |dot c x| = t * |c j| := by
          have he : dot c x = -(t * c j) := by linarith
          rw [he, abs_neg, abs_mul, abs_of_pos ht]
        linarith
    · refine ⟨x, fun c hc => ?_⟩
      rcases List.mem_cons.mp hc with h | h
      · rw [h]
        exact h0
      · exact hx c h

/-- `A^T c`. -/
noncomputable def transpose_mv {d : ℕ} (A : Fin d → Fin d → ℝ) (c : Fin d → ℝ) (j : Fin d) : ℝ :=
  ∑ i, c i * A i j

theorem dot_transpose {d : ℕ} (A : Fin d → Fin d → ℝ) (c x : Fin d → ℝ) :
    dot (transpose_mv A c) x = dot c (fun i => ∑ j, A i j * x j) := by
  show ∑ j, (∑ i, c i * A i j) * x j = ∑ i, c i * ∑ j, A i j * x j
  have e1 : ∀ j ∈ (Finset.univ : Finset (Fin d)),
      (∑ i, c i * A i j) * x j = ∑ i, c i * A i j * x j := by
    intro j _
    rw [Finset.sum_mul]
  have e2 : ∀ i ∈ (Finset.univ : Finset (Fin d)),
      c i * ∑ j, A i j * x j = ∑ j, c i * A i j * x j := by
    intro i _
    rw [Finset.mul_sum]
    exact Finset.sum_congr rfl (fun j _ => by ring)
  rw [Finset.sum_congr rfl e1, Finset.sum_comm, Finset.sum_congr rfl e2]

/-- A square matrix with trivial kernel has a nonzero determinant. -/
theorem trivial_kernel_det {d : ℕ} (A : Fin d → Fin d → ℝ) (hA : trivial_kernel A) :
    Matrix.det (A : Matrix (Fin d) (Fin d) ℝ) ≠ 0 := by
  intro hdet
  obtain ⟨v, hv, hker⟩ := Matrix.exists_mulVec_eq_zero_iff.mpr hdet
  apply hv
  funext j
  exact hA v (fun i => congrFun hker i) j

/-- `A^T c ≠ 0` for `c ≠ 0` and `A` with trivial kernel. -/
theorem transpose_nonzero {d : ℕ} (A : Fin d → Fin d → ℝ) (hA : trivial_kernel A)
    (c : Fin d → ℝ) (hc : ∃ j, c j ≠ 0) : ∃ j, transpose_mv A c j ≠ 0 := by
  by_contra hall
  push_neg at hall
  apply trivial_kernel_det A hA
  apply Matrix.exists_vecMul_eq_zero_iff.mp
  refine ⟨c, ?_, ?_⟩
  · intro h0
    obtain ⟨j, hj⟩ := hc
    exact hj (congrFun h0 j)
  · funext j
    exact hall j

/-- Covectors for `F = res_stack layers` pulled back to covectors for `x`. -/
theorem residual_pullback {d : ℕ} (layers : List (Layer d))
    (pieces_invertible : ∀ L ∈ layers, layer_pieces_invertible L) :
    ∀ H : List (Fin d → ℝ), (∀ c ∈ H, ∃ j, c j ≠ 0) →
      ∃ H' : List (Fin d → ℝ), (∀ c ∈ H', ∃ j, c j ≠ 0) ∧
        ∀ x : Fin d → ℝ, (∃ a ∈ H, dot a (res_stack layers x) = 0) →
          ∃ c ∈ H', dot c x = 0 := by
  induction layers with
  | nil =>
    intro H hH
    exact ⟨H, hH, fun x hx => hx⟩
  | cons L Ls ih =>
    intro H hH
    have hrest : ∀ L' ∈ Ls, layer_pieces_invertible L' :=
      fun L' hL' => pieces_invertible L' (List.mem_cons.mpr (Or.inr hL'))
    have hL : layer_pieces_invertible L := pieces_invertible L (List.mem_cons.mpr (Or.inl rfl))
    obtain ⟨H1, hH1, hpull⟩ := ih hrest H hH
    refine ⟨(Finset.univ : Finset (Fin L.m → Bool)).toList.flatMap
        (fun S => H1.map (transpose_mv (piece S L.Wd L.Wu))), ?_, ?_⟩
    · intro c hc
      obtain ⟨S, _, hcS⟩ := List.mem_flatMap.mp hc
      obtain ⟨c1, hc1, rfl⟩ := List.mem_map.mp hcS
      exact transpose_nonzero _ (hL S) c1 (hH1 c1 hc1)
    · intro x hx
      obtain ⟨c1, hc1, hdot⟩ := hpull (fun i => x i + ungated relu L.Wu L.Wd x i) hx
      refine ⟨transpose_mv (piece (active L.Wu x) L.Wd L.Wu) c1, ?_, ?_⟩
      · apply List.mem_flatMap.mpr
        refine ⟨active L.Wu x, Finset.mem_toList.mpr (Finset.mem_univ _), ?_⟩
        exact List.mem_map.mpr ⟨c1, hc1, rfl⟩
      · rw [dot_transpose]
        have hfun : (fun i => ∑ j, piece (active L.Wu x) L.Wd L.Wu i j * x j)
            = (fun i => x i + ungated relu L.Wu L.Wd x i) := by
          funext i
          exact (residual_is_piece L.Wd L.Wu x i).symm
        rw [hfun]
        exact hdot

/-- `d` vectors in `ℝ^k`, `k < d`, are dependent: some `a ≠ 0` has `a^T G = 0`. -/
theorem left_kernel_of_narrow {d k : ℕ} (G : Fin d → Fin k → ℝ) (hk : k < d) :
    ∃ a : Fin d → ℝ, (∃ j, a j ≠ 0) ∧ ∀ l, ∑ i, a i * G i l = 0 := by
  have hdet : Matrix.det (pad_rows (fun l i => G i l)) = 0 := by
    apply Matrix.det_eq_zero_of_row_eq_zero (⟨k, hk⟩ : Fin d)
    intro j
    show (if h : k < k then G j ⟨k, h⟩ else 0) = 0
    exact dif_neg (lt_irrefl k)
  obtain ⟨v, hv, hker⟩ := Matrix.exists_mulVec_eq_zero_iff.mpr hdet
  refine ⟨v, ?_, ?_⟩
  · by_contra hall
    push_neg at hall
    exact hv (funext hall)
  · intro l
    have h0 := congrFun hker ⟨l.val, lt_of_lt_of_le l.isLt (le_of_lt hk)⟩
    rw [pad_rows_mulVec (fun l i => G i l) (le_of_lt hk) l v] at h0
    calc ∑ i, v i * G i l = ∑ i, G i l * v i :=
          Finset.sum_congr rfl (fun i _ => mul_comm _ _)
      _ = 0 := h0

/-- The matrix `W_down[:,S] U_S G` of the layer `Q` for the active set `S`. -/
noncomputable def layer_matrix {d k : ℕ} (Q : Layer d) (S : Fin Q.m → Bool)
    (G : Fin d → Fin k → ℝ) (i : Fin d) (j : Fin k) : ℝ :=
  ∑ l, (if S l then Q.Wd i l * ∑ t, Q.Wu l t * G t j else 0)

/-- On `y = G h`, the layer `Q` is the matrix of its active set at `y`, times `h`. -/
theorem layer_on_range {d k : ℕ} (Q : Layer d) (G : Fin d → Fin k → ℝ) (h : Fin k → ℝ)
    (y : Fin d → ℝ) (hy : ∀ t, y t = ∑ j, G t j * h j) (i : Fin d) :
    ungated relu Q.Wu Q.Wd y i = ∑ j, layer_matrix Q (active Q.Wu y) G i j * h j := by
  have hdot : ∀ l, dot (Q.Wu l) y = ∑ j, (∑ t, Q.Wu l t * G t j) * h j := by
    intro l
    have e1 : ∀ t ∈ (Finset.univ : Finset (Fin d)),
        Q.Wu l t * y t = ∑ j, Q.Wu l t * G t j * h j := by
      intro t _
      rw [hy t, Finset.mul_sum]
      exact Finset.sum_congr rfl (fun j _ => by ring)
    have e2 : ∀ j ∈ (Finset.univ : Finset (Fin k)),
        (∑ t, Q.Wu l t * G t j) * h j = ∑ t, Q.Wu l t * G t j * h j := by
      intro j _
      rw [Finset.sum_mul]
    show ∑ t, Q.Wu l t * y t = _
    rw [Finset.sum_congr rfl e1, Finset.sum_comm, Finset.sum_congr rfl e2]
  have e3 : ∀ l ∈ (Finset.univ : Finset (Fin Q.m)), Q.Wd i l * relu (dot (Q.Wu l) y)
      = ∑ j, (if active Q.Wu y l then Q.Wd i l * ∑ t, Q.Wu l t * G t j else 0) * h j := by
    intro l _
    rw [relu_active]
    by_cases hl : active Q.Wu y l = true
    · rw [if_pos hl, hdot l, Finset.mul_sum]
      exact Finset.sum_congr rfl (fun j _ => by rw [if_pos hl]; ring)
    · rw [if_neg hl, mul_zero]
      symm
      exact Finset.sum_eq_zero (fun j _ => by rw [if_neg hl, zero_mul])
  have e4 : ∀ j ∈ (Finset.univ : Finset (Fin k)), layer_matrix Q (active Q.Wu y) G i j * h j
      = ∑ l, (if active Q.Wu y l then Q.Wd i l * ∑ t, Q.Wu l t * G t j else 0) * h j := by
    intro j _
    show (∑ l, (if active Q.Wu y l then Q.Wd i l * ∑ t, Q.Wu l t * G t j else 0)) * h j = _
    rw [Finset.sum_mul]
  have lhs : ungated relu Q.Wu Q.Wd y i = ∑ l, Q.Wd i l * relu (dot (Q.Wu l) y) := rfl
  rw [lhs, Finset.sum_congr rfl e3, Finset.sum_comm, Finset.sum_congr rfl e4]

/-- The values of `post ∘ (h ↦ G h)`, `G` a `d × k` matrix with `k < d`, are covered by
finitely many nonzero covectors. -/
theorem plain_image_covectors {d k : ℕ} (post : List (Layer d)) (hk : k < d) :
    ∀ G : Fin d → Fin k → ℝ, ∃ H : List (Fin d → ℝ), (∀ c ∈ H, ∃ j, c j ≠ 0) ∧
      ∀ h : Fin k → ℝ, ∃ a ∈ H, dot a (plain_stack post (fun i => ∑ j, G i j * h j)) = 0 := by
  induction post with
  | nil =>
    intro G
    obtain ⟨a, ha, hker⟩ := left_kernel_of_narrow G hk
    refine ⟨[a], fun c hc => ?_, fun h => ⟨a, List.mem_singleton.mpr rfl, ?_⟩⟩
    · rw [List.mem_singleton.mp hc]
      exact ha
    · show ∑ i, a i * ∑ j, G i j * h j = 0
      have e1 : ∀ i ∈ (Finset.univ : Finset (Fin d)),
          a i * ∑ j, G i j * h j = ∑ j, a i * G i j * h j := by
        intro i _
        rw [Finset.mul_sum]
        exact Finset.sum_congr rfl (fun j _ => by ring)
      rw [Finset.sum_congr rfl e1, Finset.sum_comm]
      exact Finset.sum_eq_zero (fun j _ => by rw [← Finset.sum_mul, hker j, zero_mul])
  | cons Q post ih =>
    intro G
    choose HS hnzS hcovS using fun S : Fin Q.m → Bool => ih (layer_matrix Q S G)
    refine ⟨(Finset.univ : Finset (Fin Q.m → Bool)).toList.flatMap HS, ?_, ?_⟩
    · intro c hc
      obtain ⟨S, _, hcS⟩ := List.mem_flatMap.mp hc
      exact hnzS S c hcS
    · intro h
      obtain ⟨a, ha, hdot⟩ := hcovS (active Q.Wu (fun i => ∑ j, G i j * h j)) h
      refine ⟨a, List.mem_flatMap.mpr ⟨_, Finset.mem_toList.mpr (Finset.mem_univ _), ha⟩, ?_⟩
      have hlayer : ungated relu Q.Wu Q.Wd (fun i => ∑ j, G i j * h j)
          = fun i => ∑ j, layer_matrix Q (active Q.Wu (fun i => ∑ j, G i j * h j)) G i j * h j :=
        funext (fun i => layer_on_range Q G h _ (fun t => rfl) i)
      show dot a (plain_stack post (ungated relu Q.Wu Q.Wd (fun i => ∑ j, G i j * h j))) = 0
      rw [hlayer]
      exact hdot

theorem plain_stack_append {d : ℕ} (l1 l2 : List (Layer d)) :
    ∀ x : Fin d → ℝ, plain_stack (l1 ++ l2) x = plain_stack l2 (plain_stack l1 x) := by
  induction l1 with
  | nil =>
    intro x
    rfl
  | cons P l1 ih =>
    intro x
    exact ih (ungated relu P.Wu P.Wd x)

/-- `depth-narrow` (b): a residual relu stack with invertible pieces equals no plain relu
stack, of any depth, one of whose widths is `< d`. -/
theorem depth_narrow_some_width {d : ℕ} (layers plains : List (Layer d))
    (pieces_invertible : ∀ L ∈ layers, layer_pieces_invertible L)
    (narrow_width : ∃ P ∈ plains, P.m < d) :
    ¬ (∀ (x : Fin d → ℝ) (i : Fin d), res_stack layers x i = plain_stack plains x i) := by
  intro heq
  obtain ⟨Pn, hin, hk⟩ := narrow_width
  obtain ⟨pre, post, hsplit⟩ := List.append_of_mem hin
  obtain ⟨H, hnz, hcov⟩ := plain_image_covectors post hk Pn.Wd
  obtain ⟨H', hnz', hpull⟩ := residual_pullback layers pieces_invertible H hnz
  obtain ⟨x, hx⟩ := hyperplanes_do_not_cover H' hnz'
  have hval : ∃ a ∈ H, dot a (res_stack layers x) = 0 := by
    obtain ⟨a, ha, hdot⟩ := hcov (fun l => relu (dot (Pn.Wu l) (plain_stack pre x)))
    refine ⟨a, ha, ?_⟩
    have hF : res_stack layers x
        = plain_stack post (fun i => ∑ j, Pn.Wd i j * relu (dot (Pn.Wu j) (plain_stack pre x))) := by
      funext i
      rw [heq x i, hsplit, plain_stack_append]
      try rfl
    rw [hF]
    exact hdot
  obtain ⟨c, hc, hcx⟩ := hpull x hval
  exact hx c hc hcx

/-- `depth-narrow` (a) and (b): invertible pieces (`d ≥ 1`) and a plain relu stack of any depth
whose first width is at most `d` or one of whose widths is `< d`: the two maps differ. -/
theorem depth_narrow {d : ℕ} (layers plains : List (Layer d))
    (d_pos : 0 < d)
    (pieces_invertible : ∀ L ∈ layers, layer_pieces_invertible L)
    (narrow_width : (∃ (P1 : Layer d) (rest : List (Layer d)), plains = P1 :: rest ∧ P1.m ≤ d) ∨
      ∃ P ∈ plains, P.m < d) :
    ¬ (∀ (x : Fin d → ℝ) (i : Fin d), res_stack layers x i = plain_stack plains x i) := by
  rcases narrow_width with ha | hb
  · exact depth_narrow_first_width layers plains d_pos pieces_invertible ha
  · exact depth_narrow_some_width layers plains pieces_invertible hb

/-- The two-block case for the widths handled by (a) and (b): with invertible pieces,
`(I + B_2) ∘ (I + B_1)` is no plain relu stack of the same widths `(m_1, m_2)` when `m_1 ≤ d`
or `m_2 < d`. -/
theorem depth_narrow_two_blocks_same_widths {d : ℕ} (L1 L2 P1 P2 : Layer d) (d_pos : 0 < d)
    (pieces_invertible : ∀ L ∈ [L1, L2], layer_pieces_invertible L)
    (same_widths : P1.m = L1.m ∧ P2.m = L2.m)
    (narrow_width : L1.m ≤ d ∨ L2.m < d) :
    ¬ (∀ (x : Fin d → ℝ) (i : Fin d), res_stack [L1, L2] x i = plain_stack [P1, P2] x i) := by
  obtain ⟨e1, e2⟩ := same_widths
  rcases narrow_width with h1 | h2
  · apply depth_narrow_first_width [L1, L2] [P1, P2] d_pos pieces_invertible
    refine ⟨P1, [P2], rfl, ?_⟩
    rw [e1]
    exact h1
  · apply depth_narrow_some_width [L1, L2] [P1, P2] pieces_invertible
    refine ⟨P2, List.mem_cons.mpr (Or.inr (List.mem_cons.mpr (Or.inl rfl))), ?_⟩
    rw [e2]
    exact h2

end SkipAbsorption
