import SkipAbsorption.Limit
import SkipAbsorption.Homogeneous
import SkipAbsorption.RealActivations

/-!
# Biased flips (claims `relu2-biased`, `gated-biased`, sufficiency)

Mirror of `proofs/coq/BiasedFlip.v`.  A flip changes one unit by a polynomial of degree at
most 2; when the removed polynomials of a set `S` of units add up to `-M x + c` for every `x`,
the flipped block with `c` added to the output bias equals `x ↦ M x + B x`, same width.

* `biased_square_flip`: `σ z + σ (-z) = z * z` (relu2); flip row, bias and output column.
* `biased_gate_flip`: gates with `g z - g (-z) = z` (relu, silu); flip gate row and gate bias.
* `biased_glu_flip`: gates with `g z + g (-z) = 1` (sigmoid); flip gate row, gate bias and output
  column, with `W_down[:,S] W_up[S,:] = -M`; the constant `W_down[:,S] e[S]` goes into `b_down`.
-/

namespace SkipAbsorption

/-- Negate the output columns of `W_down` selected by `S`. -/
noncomputable def flip_cols {d m : ℕ} (S : Fin m → Bool) (W : Fin d → Fin m → ℝ)
    (i : Fin d) (l : Fin m) : ℝ :=
  if S l then -W i l else W i l

/-- The output bias plus a constant vector. -/
noncomputable def add_bias {d : ℕ} (bd c : Fin d → ℝ) (i : Fin d) : ℝ := bd i + c i

/-- The gated block with biases `x ↦ W_down (g(W_gate x + c) ⊙ (W_up x + e)) + b_down`. -/
noncomputable def gated_biased {d m : ℕ} (g : ℝ → ℝ) (Wg Wu : Fin m → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (cg eu : Fin m → ℝ) (bd : Fin d → ℝ) (x : Fin d → ℝ) : Fin d → ℝ :=
  fun i => ∑ l, Wd i l * (g (dot (Wg l) x + cg l) * (dot (Wu l) x + eu l)) + bd i

/-- A flipped row: `dot (flip_rows S W l) x` is `-dot (W l) x` on `S`, `dot (W l) x` off it. -/
theorem dot_flip_rows_pos {d m : ℕ} (S : Fin m → Bool) (W : Fin m → Fin d → ℝ) (l : Fin m)
    (x : Fin d → ℝ) (hl : S l = true) : dot (flip_rows S W l) x = -dot (W l) x := by
  simp only [dot]
  rw [← Finset.sum_neg_distrib]
  exact Finset.sum_congr rfl (fun j _ => by rw [flip_rows, if_pos hl]; ring)

theorem dot_flip_rows_neg {d m : ℕ} (S : Fin m → Bool) (W : Fin m → Fin d → ℝ) (l : Fin m)
    (x : Fin d → ℝ) (hl : ¬ S l = true) : dot (flip_rows S W l) x = dot (W l) x := by
  simp only [dot]
  exact Finset.sum_congr rfl (fun j _ => by rw [flip_rows, if_neg hl])

/-- (i) Activations with `σ z + σ (-z) = z * z`. -/
theorem biased_square_flip {d m : ℕ} {σ : ℝ → ℝ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wu : Fin m → Fin d → ℝ) (bu : Fin m → ℝ) (bd c : Fin d → ℝ)
    (S : Fin m → Bool)
    (sigma_square_flip : ∀ z : ℝ, σ z + σ (-z) = z * z)
    (flip_condition : ∀ (x : Fin d → ℝ) (i : Fin d),
      ∑ l, (if S l then Wd i l * ((dot (Wu l) x + bu l) * (dot (Wu l) x + bu l)) else 0)
        = -skip M x i + c i) :
    ∀ (x : Fin d → ℝ) (i : Fin d), skip M x i + biased σ Wu Wd bu bd x i
      = biased σ (flip_rows S Wu) (flip_cols S Wd) (flip_bias S bu) (add_bias bd c) x i := by
  intro x i
  have hunit : ∀ l ∈ (Finset.univ : Finset (Fin m)),
      flip_cols S Wd i l * σ (dot (flip_rows S Wu l) x + flip_bias S bu l)
        = Wd i l * σ (dot (Wu l) x + bu l)
          - (if S l then Wd i l * ((dot (Wu l) x + bu l) * (dot (Wu l) x + bu l)) else 0) := by
    intro l _
    by_cases hl : S l = true
    · have hpre : dot (flip_rows S Wu l) x + flip_bias S bu l = -(dot (Wu l) x + bu l) := by
        rw [dot_flip_rows_pos S Wu l x hl, flip_bias, if_pos hl]
        ring
      have hc : flip_cols S Wd i l = -Wd i l := by rw [flip_cols, if_pos hl]
      rw [hpre, hc, if_pos hl]
      have hq := sigma_square_flip (dot (Wu l) x + bu l)
      linear_combination (-(Wd i l)) * hq
    · have hpre : dot (flip_rows S Wu l) x + flip_bias S bu l = dot (Wu l) x + bu l := by
        rw [dot_flip_rows_neg S Wu l x hl, flip_bias, if_neg hl]
      have hc : flip_cols S Wd i l = Wd i l := by rw [flip_cols, if_neg hl]
      rw [hpre, hc, if_neg hl]
      ring
  have lhs : biased σ Wu Wd bu bd x i = ∑ l, Wd i l * σ (dot (Wu l) x + bu l) + bd i := rfl
  have rhs : biased σ (flip_rows S Wu) (flip_cols S Wd) (flip_bias S bu) (add_bias bd c) x i
      = ∑ l, flip_cols S Wd i l * σ (dot (flip_rows S Wu l) x + flip_bias S bu l)
        + (bd i + c i) := rfl
  rw [lhs, rhs, Finset.sum_congr rfl hunit, Finset.sum_sub_distrib, flip_condition x i]
  ring

/-- (ii) Gates with `g z - g (-z) = z`. -/
theorem biased_gate_flip {d m : ℕ} {g : ℝ → ℝ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wg Wu : Fin m → Fin d → ℝ) (cg eu : Fin m → ℝ) (bd c : Fin d → ℝ)
    (S : Fin m → Bool)
    (gate_odd_part : ∀ z : ℝ, g z - g (-z) = z)
    (flip_condition : ∀ (x : Fin d → ℝ) (i : Fin d),
      ∑ l, (if S l then Wd i l * ((dot (Wg l) x + cg l) * (dot (Wu l) x + eu l)) else 0)
        = -skip M x i + c i) :
    ∀ (x : Fin d → ℝ) (i : Fin d), skip M x i + gated_biased g Wg Wu Wd cg eu bd x i
      = gated_biased g (flip_rows S Wg) Wu Wd (flip_bias S cg) eu (add_bias bd c) x i := by
  intro x i
  have hunit : ∀ l ∈ (Finset.univ : Finset (Fin m)),
      Wd i l * (g (dot (flip_rows S Wg l) x + flip_bias S cg l) * (dot (Wu l) x + eu l))
        = Wd i l * (g (dot (Wg l) x + cg l) * (dot (Wu l) x + eu l))
          - (if S l then Wd i l * ((dot (Wg l) x + cg l) * (dot (Wu l) x + eu l)) else 0) := by
    intro l _
    by_cases hl : S l = true
    · have hpre : dot (flip_rows S Wg l) x + flip_bias S cg l = -(dot (Wg l) x + cg l) := by
        rw [dot_flip_rows_pos S Wg l x hl, flip_bias, if_pos hl]
        ring
      rw [hpre, if_pos hl]
      have hodd := gate_odd_part (dot (Wg l) x + cg l)
      linear_combination (-(Wd i l) * (dot (Wu l) x + eu l)) * hodd
    · have hpre : dot (flip_rows S Wg l) x + flip_bias S cg l = dot (Wg l) x + cg l := by
        rw [dot_flip_rows_neg S Wg l x hl, flip_bias, if_neg hl]
      rw [hpre, if_neg hl]
      ring
  have lhs : gated_biased g Wg Wu Wd cg eu bd x i
      = ∑ l, Wd i l * (g (dot (Wg l) x + cg l) * (dot (Wu l) x + eu l)) + bd i := rfl
  have rhs : gated_biased g (flip_rows S Wg) Wu Wd (flip_bias S cg) eu (add_bias bd c) x i
      = ∑ l, Wd i l * (g (dot (flip_rows S Wg l) x + flip_bias S cg l) * (dot (Wu l) x + eu l))
        + (bd i + c i) := rfl
  rw [lhs, rhs, Finset.sum_congr rfl hunit, Finset.sum_sub_distrib, flip_condition x i]
  ring

/-- (iii) Gates with `g z + g (-z) = 1`. -/
theorem biased_glu_flip {d m : ℕ} {g : ℝ → ℝ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wg Wu : Fin m → Fin d → ℝ) (cg eu : Fin m → ℝ) (bd : Fin d → ℝ)
    (S : Fin m → Bool)
    (gate_flip_symmetry : ∀ z : ℝ, g z + g (-z) = 1)
    (index_condition : index_condition_holds S M Wd Wu) :
    ∀ (x : Fin d → ℝ) (i : Fin d), skip M x i + gated_biased g Wg Wu Wd cg eu bd x i
      = gated_biased g (flip_rows S Wg) Wu (flip_cols S Wd) (flip_bias S cg) eu
          (shifted_bias S Wd eu bd) x i := by
  intro x i
  have hunit : ∀ l ∈ (Finset.univ : Finset (Fin m)),
      flip_cols S Wd i l * (g (dot (flip_rows S Wg l) x + flip_bias S cg l) * (dot (Wu l) x + eu l))
        = Wd i l * (g (dot (Wg l) x + cg l) * (dot (Wu l) x + eu l))
          - (if S l then Wd i l * dot (Wu l) x else 0)
          - (if S l then Wd i l * eu l else 0) := by
    intro l _
    by_cases hl : S l = true
    · have hpre : dot (flip_rows S Wg l) x + flip_bias S cg l = -(dot (Wg l) x + cg l) := by
        rw [dot_flip_rows_pos S Wg l x hl, flip_bias, if_pos hl]
        ring
      have hc : flip_cols S Wd i l = -Wd i l := by rw [flip_cols, if_pos hl]
      rw [hpre, hc, if_pos hl, if_pos hl]
      have hsym := gate_flip_symmetry (dot (Wg l) x + cg l)
      linear_combination (-(Wd i l) * (dot (Wu l) x + eu l)) * hsym
    · have hpre : dot (flip_rows S Wg l) x + flip_bias S cg l = dot (Wg l) x + cg l := by
        rw [dot_flip_rows_neg S Wg l x hl, flip_bias, if_neg hl]
      have hc : flip_cols S Wd i l = Wd i l := by rw [flip_cols, if_neg hl]
      rw [hpre, hc, if_neg hl, if_neg hl]
      ring
  have hsel := selected_term M Wd Wu S index_condition x i
  have lhs : gated_biased g Wg Wu Wd cg eu bd x i
      = ∑ l, Wd i l * (g (dot (Wg l) x + cg l) * (dot (Wu l) x + eu l)) + bd i := rfl
  have rhs : gated_biased g (flip_rows S Wg) Wu (flip_cols S Wd) (flip_bias S cg) eu
        (shifted_bias S Wd eu bd) x i
      = ∑ l, flip_cols S Wd i l * (g (dot (flip_rows S Wg l) x + flip_bias S cg l)
          * (dot (Wu l) x + eu l))
        + (bd i + ∑ l, (if S l then Wd i l * eu l else 0)) := rfl
  rw [lhs, rhs, Finset.sum_congr rfl hunit, Finset.sum_sub_distrib, Finset.sum_sub_distrib, hsel]
  ring

/-- (iii), in the form of (i) and (ii): the removed polynomials `w_l (u_l ⬝ x + e_l)` over `S`
add up to `-M x + c`; the constant goes into the output bias. -/
theorem biased_glu_flip_poly {d m : ℕ} {g : ℝ → ℝ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wg Wu : Fin m → Fin d → ℝ) (cg eu : Fin m → ℝ) (bd c : Fin d → ℝ)
    (S : Fin m → Bool)
    (gate_flip_symmetry : ∀ z : ℝ, g z + g (-z) = 1)
    (flip_condition : ∀ (x : Fin d → ℝ) (i : Fin d),
      ∑ l, (if S l then Wd i l * (dot (Wu l) x + eu l) else 0) = -skip M x i + c i) :
    ∀ (x : Fin d → ℝ) (i : Fin d), skip M x i + gated_biased g Wg Wu Wd cg eu bd x i
      = gated_biased g (flip_rows S Wg) Wu (flip_cols S Wd) (flip_bias S cg) eu
          (add_bias bd c) x i := by
  intro x i
  have hunit : ∀ l ∈ (Finset.univ : Finset (Fin m)),
      flip_cols S Wd i l * (g (dot (flip_rows S Wg l) x + flip_bias S cg l) * (dot (Wu l) x + eu l))
        = Wd i l * (g (dot (Wg l) x + cg l) * (dot (Wu l) x + eu l))
          - (if S l then Wd i l * (dot (Wu l) x + eu l) else 0) := by
    intro l _
    by_cases hl : S l = true
    · have hpre : dot (flip_rows S Wg l) x + flip_bias S cg l = -(dot (Wg l) x + cg l) := by
        rw [dot_flip_rows_pos S Wg l x hl, flip_bias, if_pos hl]
        ring
      have hc : flip_cols S Wd i l = -Wd i l := by rw [flip_cols, if_pos hl]
      rw [hpre, hc, if_pos hl]
      have hsym := gate_flip_symmetry (dot (Wg l) x + cg l)
      linear_combination (-(Wd i l) * (dot (Wu l) x + eu l)) * hsym
    · have hpre : dot (flip_rows S Wg l) x + flip_bias S cg l = dot (Wg l) x + cg l := by
        rw [dot_flip_rows_neg S Wg l x hl, flip_bias, if_neg hl]
      have hc : flip_cols S Wd i l = Wd i l := by rw [flip_cols, if_neg hl]
      rw [hpre, hc, if_neg hl]
      ring
  have lhs : gated_biased g Wg Wu Wd cg eu bd x i
      = ∑ l, Wd i l * (g (dot (Wg l) x + cg l) * (dot (Wu l) x + eu l)) + bd i := rfl
  have rhs : gated_biased g (flip_rows S Wg) Wu (flip_cols S Wd) (flip_bias S cg) eu
        (add_bias bd c) x i
      = ∑ l, flip_cols S Wd i l * (g (dot (flip_rows S Wg l) x + flip_bias S cg l)
          * (dot (Wu l) x + eu l))
        + (bd i + c i) := rfl
  rw [lhs, rhs, Finset.sum_congr rfl hunit, Finset.sum_sub_distrib, flip_condition x i]
  ring

/-! ## The concrete activations -/

theorem relu2_square_flip (z : ℝ) : relu2 z + relu2 (-z) = z * z := by
  unfold relu2
  rcases le_total 0 z with h | h
  · rw [max_eq_left h, max_eq_right (by linarith : -z ≤ 0)]
    ring
  · rw [max_eq_right h, max_eq_left (by linarith : (0 : ℝ) ≤ -z)]
    ring

/-- relu2 blocks with biases. -/
theorem relu2_biased_flip {d m : ℕ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wu : Fin m → Fin d → ℝ) (bu : Fin m → ℝ) (bd c : Fin d → ℝ)
    (S : Fin m → Bool)
    (flip_condition : ∀ (x : Fin d → ℝ) (i : Fin d),
      ∑ l, (if S l then Wd i l * ((dot (Wu l) x + bu l) * (dot (Wu l) x + bu l)) else 0)
        = -skip M x i + c i) :
    ∀ (x : Fin d → ℝ) (i : Fin d), skip M x i + biased relu2 Wu Wd bu bd x i
      = biased relu2 (flip_rows S Wu) (flip_cols S Wd) (flip_bias S bu) (add_bias bd c) x i :=
  biased_square_flip M Wd Wu bu bd c S relu2_square_flip flip_condition

/-- reglu (gate relu) with biases. -/
theorem reglu_biased_flip {d m : ℕ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wg Wu : Fin m → Fin d → ℝ) (cg eu : Fin m → ℝ) (bd c : Fin d → ℝ)
    (S : Fin m → Bool)
    (flip_condition : ∀ (x : Fin d → ℝ) (i : Fin d),
      ∑ l, (if S l then Wd i l * ((dot (Wg l) x + cg l) * (dot (Wu l) x + eu l)) else 0)
        = -skip M x i + c i) :
    ∀ (x : Fin d → ℝ) (i : Fin d), skip M x i + gated_biased relu Wg Wu Wd cg eu bd x i
      = gated_biased relu (flip_rows S Wg) Wu Wd (flip_bias S cg) eu (add_bias bd c) x i :=
  biased_gate_flip M Wd Wg Wu cg eu bd c S relu_odd flip_condition

/-- swiglu (gate silu) with biases. -/
theorem swiglu_biased_flip {d m : ℕ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wg Wu : Fin m → Fin d → ℝ) (cg eu : Fin m → ℝ) (bd c : Fin d → ℝ)
    (S : Fin m → Bool)
    (flip_condition : ∀ (x : Fin d → ℝ) (i : Fin d),
      ∑ l, (if S l then Wd i l * ((dot (Wg l) x + cg l) * (dot (Wu l) x + eu l)) else 0)
        = -skip M x i + c i) :
    ∀ (x : Fin d → ℝ) (i : Fin d), skip M x i + gated_biased silu Wg Wu Wd cg eu bd x i
      = gated_biased silu (flip_rows S Wg) Wu Wd (flip_bias S cg) eu (add_bias bd c) x i :=
  biased_gate_flip M Wd Wg Wu cg eu bd c S silu_odd flip_condition

/-- glu (gate sigmoid) with biases. -/
theorem glu_biased_flip {d m : ℕ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wg Wu : Fin m → Fin d → ℝ) (cg eu : Fin m → ℝ) (bd : Fin d → ℝ)
    (S : Fin m → Bool)
    (index_condition : index_condition_holds S M Wd Wu) :
    ∀ (x : Fin d → ℝ) (i : Fin d), skip M x i + gated_biased sigmoid Wg Wu Wd cg eu bd x i
      = gated_biased sigmoid (flip_rows S Wg) Wu (flip_cols S Wd) (flip_bias S cg) eu
          (shifted_bias S Wd eu bd) x i :=
  biased_glu_flip M Wd Wg Wu cg eu bd S sigmoid_sym index_condition

/-- glu (gate sigmoid) with biases, polynomial form. -/
theorem glu_biased_flip_poly {d m : ℕ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wg Wu : Fin m → Fin d → ℝ) (cg eu : Fin m → ℝ) (bd c : Fin d → ℝ)
    (S : Fin m → Bool)
    (flip_condition : ∀ (x : Fin d → ℝ) (i : Fin d),
      ∑ l, (if S l then Wd i l * (dot (Wu l) x + eu l) else 0) = -skip M x i + c i) :
    ∀ (x : Fin d → ℝ) (i : Fin d), skip M x i + gated_biased sigmoid Wg Wu Wd cg eu bd x i
      = gated_biased sigmoid (flip_rows S Wg) Wu (flip_cols S Wd) (flip_bias S cg) eu
          (add_bias bd c) x i :=
  biased_glu_flip_poly M Wd Wg Wu cg eu bd c S sigmoid_sym flip_condition

end SkipAbsorption
