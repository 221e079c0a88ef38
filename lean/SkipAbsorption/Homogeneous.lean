import SkipAbsorption.Basic

/-!
# Homogeneous activations of degree `k ≠ 1` cannot absorb a skip

If `σ (t z) = t^k σ z` for every `t > 0` (real exponent `k`, i.e. `Real.rpow`), then the
ungated block is homogeneous of degree `k` as a whole.  Suppose `M x + B x = B' x` for
every `x`, where `B'` has its own width and its own degree-`k` activation.  Evaluating at
`x` and at `2 x` gives `M x + B x = B' x` and `2 M x + 2^k B x = 2^k B' x`, hence
`(2 - 2^k) M x = 0`.  Since `t ↦ 2^t` is strictly increasing, `2^k ≠ 2` when `k ≠ 1`, so
`M x = 0` for every `x`, i.e. `M = 0`.
-/

namespace SkipAbsorption

/-- `2^k = 2` only for `k = 1`: the real power of a base `> 1` is strictly increasing in the
exponent. -/
theorem two_rpow_ne_two {k : ℝ} (hk : k ≠ 1) : (2 : ℝ) ^ k ≠ 2 := by
  intro h
  have hcases : k < 1 ∨ 1 < k := by
    first
      | exact lt_or_gt_of_ne hk
      | exact hk.lt_or_lt
      | exact hk.lt_or_gt
  rcases hcases with hlt | hgt
  · have h2 := Real.rpow_lt_rpow_of_exponent_lt (by norm_num : (1 : ℝ) < 2) hlt
    rw [Real.rpow_one, h] at h2
    exact lt_irrefl _ h2
  · have h2 := Real.rpow_lt_rpow_of_exponent_lt (by norm_num : (1 : ℝ) < 2) hgt
    rw [Real.rpow_one, h] at h2
    exact lt_irrefl _ h2

/-- No residual-free ungated block of any width `m'`, with any activation `τ` that is
homogeneous of the same degree `k`, equals `x ↦ M x + B x` when `M ≠ 0`. -/
theorem homogeneous_any_width {d m m' : ℕ} {k : ℝ} {σ τ : ℝ → ℝ}
    (M : Fin d → Fin d → ℝ) (Wu : Fin m → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ)
    (Wu' : Fin m' → Fin d → ℝ) (Wd' : Fin d → Fin m' → ℝ)
    (k_pos : 0 < k) (k_ne_1 : k ≠ 1) (M_nonzero : M ≠ 0)
    (sigma_homogeneous : ∀ t z : ℝ, 0 < t → σ (t * z) = t ^ k * σ z)
    (tau_homogeneous : ∀ t z : ℝ, 0 < t → τ (t * z) = t ^ k * τ z) :
    ¬ ∀ x : Fin d → ℝ, skip M x + ungated σ Wu Wd x = ungated τ Wu' Wd' x := by
  intro h
  obtain ⟨v, i, hv⟩ := exists_skip_ne_zero M M_nonzero
  have two_pos : (0 : ℝ) < 2 := by norm_num
  have h1 : skip M v i + ungated σ Wu Wd v i = ungated τ Wu' Wd' v i := congrFun (h v) i
  have h2 : skip M (fun l => 2 * v l) i + ungated σ Wu Wd (fun l => 2 * v l) i
      = ungated τ Wu' Wd' (fun l => 2 * v l) i := congrFun (h (fun l => 2 * v l)) i
  rw [skip_scale M v 2 i, ungated_scale Wu Wd sigma_homogeneous two_pos v i,
    ungated_scale Wu' Wd' tau_homogeneous two_pos v i] at h2
  exact hv (linear_part_zero h1 h2 (two_rpow_ne_two k_ne_1))

/-- Prop. 5 in the paper's form: same activation and same width. -/
theorem homogeneous_impossible {d m : ℕ} {k : ℝ} {σ : ℝ → ℝ}
    (M : Fin d → Fin d → ℝ) (Wu : Fin m → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ)
    (k_pos : 0 < k) (k_ne_1 : k ≠ 1) (M_nonzero : M ≠ 0)
    (sigma_homogeneous : ∀ t z : ℝ, 0 < t → σ (t * z) = t ^ k * σ z) :
    ¬ ∃ (Wu' : Fin m → Fin d → ℝ) (Wd' : Fin d → Fin m → ℝ),
      ∀ x : Fin d → ℝ, skip M x + ungated σ Wu Wd x = ungated σ Wu' Wd' x := by
  rintro ⟨Wu', Wd', h⟩
  exact homogeneous_any_width M Wu Wd Wu' Wd' k_pos k_ne_1 M_nonzero
    sigma_homogeneous sigma_homogeneous h

/-- The squared relu `z ↦ max(z, 0)^2`. -/
noncomputable def relu2 (z : ℝ) : ℝ := (max z 0) ^ 2

/-- `relu2` is positively homogeneous of degree 2, stated with the real power `t ^ (2 : ℝ)`. -/
theorem relu2_homogeneous (t z : ℝ) (ht : 0 < t) :
    relu2 (t * z) = t ^ (2 : ℝ) * relu2 z := by
  rw [Real.rpow_two]
  show (max (t * z) 0) ^ 2 = t ^ 2 * (max z 0) ^ 2
  rcases le_total z 0 with hz | hz
  · have htz : t * z ≤ 0 := by nlinarith
    rw [max_eq_right hz, max_eq_right htz]
    ring
  · have htz : 0 ≤ t * z := mul_nonneg ht.le hz
    rw [max_eq_left hz, max_eq_left htz]
    ring

/-- Prop. 5 for relu2: a relu2 block with a nonzero skip equals no relu2 block of the same
width without skip. -/
theorem relu2_impossible {d m : ℕ}
    (M : Fin d → Fin d → ℝ) (Wu : Fin m → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ)
    (M_nonzero : M ≠ 0) :
    ¬ ∃ (Wu' : Fin m → Fin d → ℝ) (Wd' : Fin d → Fin m → ℝ),
      ∀ x : Fin d → ℝ, skip M x + ungated relu2 Wu Wd x = ungated relu2 Wu' Wd' x :=
  homogeneous_impossible (k := 2) M Wu Wd (by norm_num) (by norm_num) M_nonzero
    relu2_homogeneous

/-- The any-width form for relu2. -/
theorem relu2_any_width {d m m' : ℕ}
    (M : Fin d → Fin d → ℝ) (Wu : Fin m → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ)
    (Wu' : Fin m' → Fin d → ℝ) (Wd' : Fin d → Fin m' → ℝ) (M_nonzero : M ≠ 0) :
    ¬ ∀ x : Fin d → ℝ, skip M x + ungated relu2 Wu Wd x = ungated relu2 Wu' Wd' x :=
  homogeneous_any_width (k := 2) M Wu Wd Wu' Wd' (by norm_num) (by norm_num) M_nonzero
    relu2_homogeneous relu2_homogeneous

end SkipAbsorption
