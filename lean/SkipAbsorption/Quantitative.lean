import SkipAbsorption.Homogeneous

/-!
# The quantitative gap for blocks homogeneous of degree `k`

Lean mirror of part of `proofs/coq/Quantitative.v` and `proofs/coq/QuantitativeNorm.v`.

The space is an arbitrary real normed space `E` (Mathlib's `NormedAddCommGroup` and
`NormedSpace ℝ`), so the bound holds for every norm, in particular for the sup norm that
Mathlib puts on `Fin d → ℝ` (the corollary `ungated_gap` below).  The linear part `M` is a
map `E → E` that commutes with every real scaling (`M_linear`), which every linear map does;
`B` and `B'` are positively homogeneous of the same degree `k` (real exponent, `Real.rpow`).

With `e x = M x + B x - B' x` and `0 < s < 1` the homogeneous parts cancel in

  `e (s v) - s^k e v = (s - s^k) M v`,

so the triangle inequality gives `|s - s^k| ‖M v‖ ≤ ‖e (s v)‖ + s^k ‖e v‖`, and the larger
of the two errors is at least `|s - s^k| / (1 + s^k) * ‖M v‖`.  Both points lie in the ball
of radius `‖v‖`; rescaling `v` gives the form with an arbitrary radius.

For `k = 2` the choice `s = √2 - 1` gives `(√2 - 1) / 2`, and no `s` in `(0, 1)` does
better because `(√2 - 1)(1 + s^2) - 2 (s - s^2) = (√2 + 1)(s - (√2 - 1))^2`.  The same
kind of identity, `(1 + s^3) - 3 (s - s^3) = (s + 1)(2 s - 1)^2`, gives `c_3 = 1/3`.

For `k = 1/2` (with `u = √s`) the maximum is `3 - 2√2`, from
`(3 - 2√2)(1 + u) - (u - u^2) = (u - (√2 - 1))^2`.

For every `k > 0`, `k ≠ 1` the maximum `c_k` over `(0, 1)` exists and is positive
(`ck_max_exists`, by the extreme-value theorem on `[0, 1]`, where the ratio vanishes at both
ends; Coq's proof instead bounds the ratio near `0` and `1` by hand).

Not mirrored here (Coq only): the bound with `c_k` itself in every norm
(`QuantitativeNorm.homogeneous_gap_ck`, a one-line consequence of `homogeneous_gap_radius`
and `ck_max_exists`), the operator-norm form and the sharp relu2 example.  For `k ≠ 1` a positive constant is still
proved here (`homogeneous_any_width_gap`, with `s = 1/2`).
-/

namespace SkipAbsorption

/-- The pointwise error of the candidate `B'` for `x ↦ M x + B x`. -/
def gapErr {E : Type*} [NormedAddCommGroup E]
    (M B B' : E → E) (x : E) : E :=
  M x + B x - B' x

/-- The homogeneous parts cancel: `e (s v) - s^k e v = (s - s^k) M v`. -/
theorem gap_identity {E : Type*} [NormedAddCommGroup E] [NormedSpace ℝ E] {k s : ℝ}
    (M B B' : E → E)
    (M_linear : ∀ (t : ℝ) (x : E), M (t • x) = t • M x)
    (hB : ∀ (t : ℝ) (x : E), 0 < t → B (t • x) = t ^ k • B x)
    (hB' : ∀ (t : ℝ) (x : E), 0 < t → B' (t • x) = t ^ k • B' x)
    (hs : 0 < s) (v : E) :
    gapErr M B B' (s • v) - s ^ k • gapErr M B B' v = (s - s ^ k) • M v := by
  show M (s • v) + B (s • v) - B' (s • v) - s ^ k • (M v + B v - B' v) = (s - s ^ k) • M v
  rw [M_linear, hB s v hs, hB' s v hs]
  simp only [smul_sub, smul_add, sub_smul]
  abel

/-- One of `s • v` and `v` (both of norm at most `‖v‖`) has an error of norm at least
`|s - s^k| / (1 + s^k) * ‖M v‖`.  No condition on `k` is needed here; `k ≠ 1` is what
makes the factor positive. -/
theorem homogeneous_gap {E : Type*} [NormedAddCommGroup E] [NormedSpace ℝ E] {k s : ℝ}
    (M B B' : E → E) (v : E)
    (M_linear : ∀ (t : ℝ) (x : E), M (t • x) = t • M x)
    (sigma_homogeneous : ∀ (t : ℝ) (x : E), 0 < t → B (t • x) = t ^ k • B x)
    (tau_homogeneous : ∀ (t : ℝ) (x : E), 0 < t → B' (t • x) = t ^ k • B' x)
    (s_pos : 0 < s) (s_lt_1 : s < 1) :
    ∃ x : E, ‖x‖ ≤ ‖v‖ ∧
      |s - s ^ k| / (1 + s ^ k) * ‖M v‖ ≤ ‖gapErr M B B' x‖ := by
  have hp : 0 < s ^ k := Real.rpow_pos_of_pos s_pos k
  have hden : 0 < 1 + s ^ k := by linarith
  have hid := gap_identity M B B' M_linear sigma_homogeneous tau_homogeneous s_pos v
  -- the triangle inequality on the identity
  have hkey : |s - s ^ k| * ‖M v‖
      ≤ ‖gapErr M B B' (s • v)‖ + s ^ k * ‖gapErr M B B' v‖ := by
    have h1 : ‖(s - s ^ k) • M v‖ = |s - s ^ k| * ‖M v‖ := by
      rw [norm_smul, Real.norm_eq_abs]
    have h2 : ‖s ^ k • gapErr M B B' v‖ = s ^ k * ‖gapErr M B B' v‖ := by
      rw [norm_smul, Real.norm_eq_abs, abs_of_pos hp]
    have h3 := norm_sub_le (gapErr M B B' (s • v)) (s ^ k • gapErr M B B' v)
    rw [hid, h1, h2] at h3
    exact h3
  -- dividing by `1 + s^k`
  have hmul : (1 + s ^ k) * (|s - s ^ k| / (1 + s ^ k) * ‖M v‖) = |s - s ^ k| * ‖M v‖ := by
    calc (1 + s ^ k) * (|s - s ^ k| / (1 + s ^ k) * ‖M v‖)
        = ((1 + s ^ k)⁻¹ * (1 + s ^ k)) * (|s - s ^ k| * ‖M v‖) := by ring
      _ = |s - s ^ k| * ‖M v‖ := by rw [inv_mul_cancel₀ hden.ne', one_mul]
  have hq : ∀ c : ℝ,
      ‖gapErr M B B' (s • v)‖ + s ^ k * ‖gapErr M B B' v‖ ≤ (1 + s ^ k) * c →
      |s - s ^ k| / (1 + s ^ k) * ‖M v‖ ≤ c := by
    intro c hc
    by_contra hcon
    push_neg at hcon
    nlinarith [mul_pos hden (sub_pos.mpr hcon)]
  rcases le_total ‖gapErr M B B' v‖ ‖gapErr M B B' (s • v)‖ with hle | hle
  · refine ⟨s • v, ?_, hq _ ?_⟩
    · rw [norm_smul, Real.norm_eq_abs, abs_of_pos s_pos]
      nlinarith [mul_nonneg (sub_nonneg.mpr s_lt_1.le) (norm_nonneg v)]
    · nlinarith [mul_le_mul_of_nonneg_left hle hp.le]
  · refine ⟨v, le_refl _, hq _ ?_⟩
    nlinarith [mul_le_mul_of_nonneg_left hle hp.le]

/-- The gap in a ball of any radius `rad`: some `x` with `‖x‖ ≤ rad` has an error of norm at
least `|s - s^k| / (1 + s^k) * rad * ‖M v‖ / ‖v‖`, for every `v ≠ 0`. -/
theorem homogeneous_gap_radius {E : Type*} [NormedAddCommGroup E] [NormedSpace ℝ E]
    {k s rad : ℝ} (M B B' : E → E) (v : E)
    (M_linear : ∀ (t : ℝ) (x : E), M (t • x) = t • M x)
    (sigma_homogeneous : ∀ (t : ℝ) (x : E), 0 < t → B (t • x) = t ^ k • B x)
    (tau_homogeneous : ∀ (t : ℝ) (x : E), 0 < t → B' (t • x) = t ^ k • B' x)
    (s_pos : 0 < s) (s_lt_1 : s < 1) (rad_pos : 0 < rad) (v_nonzero : v ≠ 0) :
    ∃ x : E, ‖x‖ ≤ rad ∧
      |s - s ^ k| / (1 + s ^ k) * rad * ‖M v‖ / ‖v‖ ≤ ‖gapErr M B B' x‖ := by
  have hv : 0 < ‖v‖ := norm_pos_iff.mpr v_nonzero
  have ht : 0 < rad / ‖v‖ := div_pos rad_pos hv
  obtain ⟨x, hx, hgap⟩ := homogeneous_gap M B B' ((rad / ‖v‖) • v) M_linear
    sigma_homogeneous tau_homogeneous s_pos s_lt_1
  have htv : ‖(rad / ‖v‖) • v‖ = rad := by
    rw [norm_smul, Real.norm_eq_abs, abs_of_pos ht]
    calc rad / ‖v‖ * ‖v‖ = rad * (‖v‖⁻¹ * ‖v‖) := by ring
      _ = rad := by rw [inv_mul_cancel₀ hv.ne', mul_one]
  have hMtv : ‖M ((rad / ‖v‖) • v)‖ = rad / ‖v‖ * ‖M v‖ := by
    rw [M_linear, norm_smul, Real.norm_eq_abs, abs_of_pos ht]
  rw [htv] at hx
  rw [hMtv] at hgap
  refine ⟨x, hx, ?_⟩
  have hre : |s - s ^ k| / (1 + s ^ k) * rad * ‖M v‖ / ‖v‖
      = |s - s ^ k| / (1 + s ^ k) * (rad / ‖v‖ * ‖M v‖) := by ring
  rw [hre]
  exact hgap

/-- `(1/2)^k = 1/2` only for `k = 1`. -/
theorem half_rpow_ne_half {k : ℝ} (hk : k ≠ 1) : (2⁻¹ : ℝ) ^ k ≠ 2⁻¹ := by
  intro h
  rw [Real.inv_rpow (by norm_num : (0 : ℝ) ≤ 2)] at h
  exact two_rpow_ne_two hk (inv_inj.mp h)

/-- For `k ≠ 1` and `M v ≠ 0` there is one constant `c > 0` such that every ball of radius
`rad` contains a point whose error has norm at least `c * rad` (the proof takes `s = 1/2`). -/
theorem homogeneous_any_width_gap {E : Type*} [NormedAddCommGroup E] [NormedSpace ℝ E]
    {k : ℝ} (M B B' : E → E) (v : E)
    (k_ne_1 : k ≠ 1) (M_nonzero : M v ≠ 0)
    (M_linear : ∀ (t : ℝ) (x : E), M (t • x) = t • M x)
    (sigma_homogeneous : ∀ (t : ℝ) (x : E), 0 < t → B (t • x) = t ^ k • B x)
    (tau_homogeneous : ∀ (t : ℝ) (x : E), 0 < t → B' (t • x) = t ^ k • B' x) :
    ∃ c : ℝ, 0 < c ∧ ∀ rad : ℝ, 0 < rad →
      ∃ x : E, ‖x‖ ≤ rad ∧ c * rad ≤ ‖gapErr M B B' x‖ := by
  have hv : v ≠ 0 := by
    intro h0
    apply M_nonzero
    have hz := M_linear 0 v
    rw [zero_smul, zero_smul] at hz
    rw [h0]
    exact hz
  have hvpos : 0 < ‖v‖ := norm_pos_iff.mpr hv
  have hMv : 0 < ‖M v‖ := norm_pos_iff.mpr M_nonzero
  have hp : 0 < (2⁻¹ : ℝ) ^ k := Real.rpow_pos_of_pos (by norm_num) k
  have hnum : 0 < |(2⁻¹ : ℝ) - (2⁻¹ : ℝ) ^ k| :=
    abs_pos.mpr (sub_ne_zero.mpr (fun h => half_rpow_ne_half k_ne_1 h.symm))
  have hf : 0 < |(2⁻¹ : ℝ) - (2⁻¹ : ℝ) ^ k| / (1 + (2⁻¹ : ℝ) ^ k) :=
    div_pos hnum (by linarith)
  refine ⟨|(2⁻¹ : ℝ) - (2⁻¹ : ℝ) ^ k| / (1 + (2⁻¹ : ℝ) ^ k) * ‖M v‖ / ‖v‖,
    div_pos (mul_pos hf hMv) hvpos, ?_⟩
  intro rad hrad
  obtain ⟨x, hx, hgap⟩ := homogeneous_gap_radius (s := 2⁻¹) M B B' v M_linear
    sigma_homogeneous tau_homogeneous (by norm_num) (by norm_num) hrad hv
  refine ⟨x, hx, ?_⟩
  have hre : |(2⁻¹ : ℝ) - (2⁻¹ : ℝ) ^ k| / (1 + (2⁻¹ : ℝ) ^ k) * ‖M v‖ / ‖v‖ * rad
      = |(2⁻¹ : ℝ) - (2⁻¹ : ℝ) ^ k| / (1 + (2⁻¹ : ℝ) ^ k) * rad * ‖M v‖ / ‖v‖ := by ring
  rw [hre]
  exact hgap

/-! ## The maximum `c_k` exists for every `k > 0`, `k ≠ 1` -/

/-- For every `k > 0`, `k ≠ 1`, the ratio `|s - s^k| / (1 + s^k)` attains a positive maximum
over `(0, 1)`, at some `s0`.  On `[0, 1]` the ratio is continuous (`k > 0` is used at
`s = 0`, through the continuity of `s ↦ s^k`), it vanishes at `0` and at `1`, and it is
positive at `1/2`; so the maximum given by the extreme-value theorem on the compact `[0, 1]`
is positive and lies inside. -/
theorem ck_max_exists {k : ℝ} (k_pos : 0 < k) (k_ne_1 : k ≠ 1) :
    ∃ s0 : ℝ, 0 < s0 ∧ s0 < 1 ∧ 0 < |s0 - s0 ^ k| / (1 + s0 ^ k) ∧
      ∀ s : ℝ, 0 < s → s < 1 → |s - s ^ k| / (1 + s ^ k) ≤ |s0 - s0 ^ k| / (1 + s0 ^ k) := by
  have hpow : Continuous (fun s : ℝ => s ^ k) := Real.continuous_rpow_const k_pos.le
  have hnum : Continuous (fun s : ℝ => |s - s ^ k|) := (continuous_id.sub hpow).abs
  have hden : Continuous (fun s : ℝ => 1 + s ^ k) := continuous_const.add hpow
  have hcont : ContinuousOn (fun s : ℝ => |s - s ^ k| / (1 + s ^ k)) (Set.Icc 0 1) :=
    hnum.continuousOn.div hden.continuousOn (fun x hx => by
      have hx0 : 0 ≤ x ^ k := Real.rpow_nonneg hx.1 k
      have hx1 : (0 : ℝ) < 1 + x ^ k := by linarith
      exact hx1.ne')
  obtain ⟨s0, hs0, hmax⟩ :=
    IsCompact.exists_isMaxOn isCompact_Icc (Set.nonempty_Icc.mpr zero_le_one) hcont
  have hle : ∀ s ∈ Set.Icc (0 : ℝ) 1,
      |s - s ^ k| / (1 + s ^ k) ≤ |s0 - s0 ^ k| / (1 + s0 ^ k) :=
    isMaxOn_iff.mp hmax
  -- the value at 1/2 is positive
  have hp : 0 < (2⁻¹ : ℝ) ^ k := Real.rpow_pos_of_pos (by norm_num) k
  have hhalf : 0 < |(2⁻¹ : ℝ) - (2⁻¹ : ℝ) ^ k| / (1 + (2⁻¹ : ℝ) ^ k) :=
    div_pos (abs_pos.mpr (sub_ne_zero.mpr (fun h => half_rpow_ne_half k_ne_1 h.symm)))
      (by linarith)
  have hmem : (2⁻¹ : ℝ) ∈ Set.Icc (0 : ℝ) 1 := ⟨by norm_num, by norm_num⟩
  have hpos : 0 < |s0 - s0 ^ k| / (1 + s0 ^ k) := lt_of_lt_of_le hhalf (hle 2⁻¹ hmem)
  -- the ratio vanishes at 0 and at 1
  have hne0 : s0 ≠ 0 := by
    intro h
    rw [h, Real.zero_rpow k_pos.ne'] at hpos
    norm_num at hpos
  have hne1 : s0 ≠ 1 := by
    intro h
    rw [h, Real.one_rpow] at hpos
    norm_num at hpos
  refine ⟨s0, lt_of_le_of_ne hs0.1 (Ne.symm hne0), lt_of_le_of_ne hs0.2 hne1, hpos, ?_⟩
  intro s hs hs1
  exact hle s ⟨hs.le, hs1.le⟩

/-! ## Degree 2: the constant `(√2 - 1) / 2` -/

/-- `√2 * √2 = 2` and `4/3 < √2 < 2`. -/
theorem sqrt_two_facts :
    Real.sqrt 2 * Real.sqrt 2 = 2 ∧ 4 / 3 < Real.sqrt 2 ∧ Real.sqrt 2 < 2 := by
  have hsq : Real.sqrt 2 * Real.sqrt 2 = 2 := Real.mul_self_sqrt (by norm_num)
  have hnn : 0 ≤ Real.sqrt 2 := Real.sqrt_nonneg 2
  refine ⟨hsq, ?_, ?_⟩
  · nlinarith [mul_nonneg hnn hnn]
  · nlinarith [mul_nonneg hnn hnn]

/-- The value of `|s - s^2| / (1 + s^2)` at `s = √2 - 1`. -/
theorem c2_value :
    |(Real.sqrt 2 - 1) - (Real.sqrt 2 - 1) ^ (2 : ℝ)| / (1 + (Real.sqrt 2 - 1) ^ (2 : ℝ))
      = (Real.sqrt 2 - 1) / 2 := by
  obtain ⟨hsq, hlo, hhi⟩ := sqrt_two_facts
  rw [Real.rpow_two]
  have hnum : (Real.sqrt 2 - 1) - (Real.sqrt 2 - 1) ^ 2 = 3 * Real.sqrt 2 - 4 := by
    linear_combination (-1 : ℝ) * hsq
  have hden : 1 + (Real.sqrt 2 - 1) ^ 2 = 4 - 2 * Real.sqrt 2 := by
    linear_combination hsq
  have hdpos : (0 : ℝ) < 4 - 2 * Real.sqrt 2 := by linarith
  have h34 : (0 : ℝ) < 3 * Real.sqrt 2 - 4 := by linarith
  rw [hnum, hden, abs_of_pos h34, div_eq_iff hdpos.ne']
  linear_combination hsq

/-- No `s` in `(0, 1)` does better than `√2 - 1`:
`(√2 - 1)(1 + s^2) - 2 (s - s^2) = (√2 + 1)(s - (√2 - 1))^2 ≥ 0`. -/
theorem c2_is_max {s : ℝ} (s_pos : 0 < s) (s_lt_1 : s < 1) :
    |s - s ^ (2 : ℝ)| / (1 + s ^ (2 : ℝ)) ≤ (Real.sqrt 2 - 1) / 2 := by
  obtain ⟨hsq, hlo, hhi⟩ := sqrt_two_facts
  rw [Real.rpow_two]
  have hnn : 0 ≤ s - s ^ 2 := by nlinarith [mul_pos s_pos (sub_pos.mpr s_lt_1)]
  rw [abs_of_nonneg hnn]
  have hden : 0 < 1 + s ^ 2 := by positivity
  have hid : (Real.sqrt 2 - 1) * (1 + s ^ 2) - 2 * (s - s ^ 2)
      = (Real.sqrt 2 + 1) * (s - (Real.sqrt 2 - 1)) ^ 2 := by
    linear_combination (2 * s - Real.sqrt 2 + 1) * hsq
  have hsqr : 0 ≤ (Real.sqrt 2 + 1) * (s - (Real.sqrt 2 - 1)) ^ 2 :=
    mul_nonneg (by linarith) (sq_nonneg _)
  have hmul : (1 + s ^ 2) * ((s - s ^ 2) / (1 + s ^ 2)) = s - s ^ 2 := by
    calc (1 + s ^ 2) * ((s - s ^ 2) / (1 + s ^ 2))
        = ((1 + s ^ 2)⁻¹ * (1 + s ^ 2)) * (s - s ^ 2) := by ring
      _ = s - s ^ 2 := by rw [inv_mul_cancel₀ hden.ne', one_mul]
  by_contra hcon
  push_neg at hcon
  nlinarith [mul_pos hden (sub_pos.mpr hcon)]

/-- Degree 2 with the best constant of the argument: for `B`, `B'` homogeneous of degree 2,
every `v ≠ 0` and every `rad > 0`, some `‖x‖ ≤ rad` has error at least
`(√2 - 1) / 2 * rad * ‖M v‖ / ‖v‖`. -/
theorem homogeneous_gap_deg2 {E : Type*} [NormedAddCommGroup E] [NormedSpace ℝ E]
    {rad : ℝ} (M B B' : E → E) (v : E)
    (M_linear : ∀ (t : ℝ) (x : E), M (t • x) = t • M x)
    (sigma_homogeneous : ∀ (t : ℝ) (x : E), 0 < t → B (t • x) = t ^ (2 : ℝ) • B x)
    (tau_homogeneous : ∀ (t : ℝ) (x : E), 0 < t → B' (t • x) = t ^ (2 : ℝ) • B' x)
    (rad_pos : 0 < rad) (v_nonzero : v ≠ 0) :
    ∃ x : E, ‖x‖ ≤ rad ∧
      (Real.sqrt 2 - 1) / 2 * rad * ‖M v‖ / ‖v‖ ≤ ‖gapErr M B B' x‖ := by
  obtain ⟨_, hlo, hhi⟩ := sqrt_two_facts
  obtain ⟨x, hx, hgap⟩ := homogeneous_gap_radius (s := Real.sqrt 2 - 1) M B B' v M_linear
    sigma_homogeneous tau_homogeneous (by linarith) (by linarith) rad_pos v_nonzero
  rw [c2_value] at hgap
  exact ⟨x, hx, hgap⟩

/-! ## Degree 3: the constant `1/3` -/

/-- `s ^ (3 : ℝ)` is the cube. -/
theorem rpow_three (s : ℝ) : s ^ (3 : ℝ) = s ^ 3 := by
  first
    | exact_mod_cast Real.rpow_natCast s 3
    | rw [show (3 : ℝ) = ((3 : ℕ) : ℝ) by norm_num, Real.rpow_natCast]

/-- The value at `s = 1/2` for `k = 3`. -/
theorem c3_value : |(2⁻¹ : ℝ) - (2⁻¹ : ℝ) ^ (3 : ℝ)| / (1 + (2⁻¹ : ℝ) ^ (3 : ℝ)) = 3⁻¹ := by
  rw [rpow_three, abs_of_pos (by norm_num : (0 : ℝ) < 2⁻¹ - 2⁻¹ ^ 3)]
  norm_num

/-- No `s` in `(0, 1)` does better for `k = 3`: `(1 + s^3) - 3 (s - s^3) = (s + 1)(2 s - 1)^2`. -/
theorem c3_is_max {s : ℝ} (s_pos : 0 < s) (s_lt_1 : s < 1) :
    |s - s ^ (3 : ℝ)| / (1 + s ^ (3 : ℝ)) ≤ 3⁻¹ := by
  rw [rpow_three]
  have hs2 : s ^ 2 < 1 := by nlinarith [mul_pos s_pos (sub_pos.mpr s_lt_1)]
  have hnn : 0 ≤ s - s ^ 3 := by nlinarith [mul_pos s_pos (sub_pos.mpr hs2)]
  rw [abs_of_nonneg hnn]
  have hcube : 0 < s ^ 3 := pow_pos s_pos 3
  have hden : 0 < 1 + s ^ 3 := by linarith
  have hid : (1 + s ^ 3) - 3 * (s - s ^ 3) = (s + 1) * (2 * s - 1) ^ 2 := by ring
  have hsqr : 0 ≤ (s + 1) * (2 * s - 1) ^ 2 := mul_nonneg (by linarith) (sq_nonneg _)
  have hmul : (1 + s ^ 3) * ((s - s ^ 3) / (1 + s ^ 3)) = s - s ^ 3 := by
    calc (1 + s ^ 3) * ((s - s ^ 3) / (1 + s ^ 3))
        = ((1 + s ^ 3)⁻¹ * (1 + s ^ 3)) * (s - s ^ 3) := by ring
      _ = s - s ^ 3 := by rw [inv_mul_cancel₀ hden.ne', one_mul]
  by_contra hcon
  push_neg at hcon
  nlinarith [mul_pos hden (sub_pos.mpr hcon)]

/-! ## Degree 1/2: the constant `3 - 2√2` -/

/-- No `s` in `(0, 1)` does better than `3 - 2√2` for `k = 1/2`: with `u = √s`,
`(3 - 2√2)(1 + u) - (u - u^2) = (u - (√2 - 1))^2 ≥ 0`. -/
theorem c_half_is_max {s : ℝ} (s_pos : 0 < s) (s_lt_1 : s < 1) :
    |s - s ^ (1 / 2 : ℝ)| / (1 + s ^ (1 / 2 : ℝ)) ≤ 3 - 2 * Real.sqrt 2 := by
  obtain ⟨hsq, hlo, hhi⟩ := sqrt_two_facts
  rw [← Real.sqrt_eq_rpow]
  have husq : Real.sqrt s * Real.sqrt s = s := Real.mul_self_sqrt s_pos.le
  have hu0 : 0 ≤ Real.sqrt s := Real.sqrt_nonneg s
  have hu1 : Real.sqrt s < 1 := by nlinarith
  have hle : s ≤ Real.sqrt s := by nlinarith [mul_nonneg hu0 (sub_nonneg.mpr hu1.le)]
  have hnp : s - Real.sqrt s ≤ 0 := by linarith
  rw [abs_of_nonpos hnp]
  have hden : 0 < 1 + Real.sqrt s := by linarith
  have hid : (3 - 2 * Real.sqrt 2) * (1 + Real.sqrt s) - (Real.sqrt s - s)
      = (Real.sqrt s - (Real.sqrt 2 - 1)) ^ 2 := by
    linear_combination (-1 : ℝ) * husq - hsq
  have hsqr : 0 ≤ (Real.sqrt s - (Real.sqrt 2 - 1)) ^ 2 := sq_nonneg _
  have hmul : (1 + Real.sqrt s) * (-(s - Real.sqrt s) / (1 + Real.sqrt s))
      = -(s - Real.sqrt s) := by
    calc (1 + Real.sqrt s) * (-(s - Real.sqrt s) / (1 + Real.sqrt s))
        = ((1 + Real.sqrt s)⁻¹ * (1 + Real.sqrt s)) * (-(s - Real.sqrt s)) := by ring
      _ = -(s - Real.sqrt s) := by rw [inv_mul_cancel₀ hden.ne', one_mul]
  by_contra hcon
  push_neg at hcon
  nlinarith [mul_pos hden (sub_pos.mpr hcon)]

/-- The value `3 - 2√2` is reached at `s = 3 - 2√2 = (√2 - 1)^2`, where `√s = √2 - 1`. -/
theorem c_half_value :
    |(3 - 2 * Real.sqrt 2) - (3 - 2 * Real.sqrt 2) ^ (1 / 2 : ℝ)|
        / (1 + (3 - 2 * Real.sqrt 2) ^ (1 / 2 : ℝ))
      = 3 - 2 * Real.sqrt 2 := by
  obtain ⟨hsq, hlo, hhi⟩ := sqrt_two_facts
  have hs0 : (3 - 2 * Real.sqrt 2 : ℝ) = (Real.sqrt 2 - 1) ^ 2 := by
    linear_combination (-1 : ℝ) * hsq
  have hr1 : (0 : ℝ) ≤ Real.sqrt 2 - 1 := by linarith
  have hroot : (3 - 2 * Real.sqrt 2 : ℝ) ^ (1 / 2 : ℝ) = Real.sqrt 2 - 1 := by
    rw [← Real.sqrt_eq_rpow, hs0, Real.sqrt_sq hr1]
  rw [hroot]
  have hneg : (3 - 2 * Real.sqrt 2) - (Real.sqrt 2 - 1) < 0 := by linarith
  have hd : (0 : ℝ) < 1 + (Real.sqrt 2 - 1) := by linarith
  rw [abs_of_neg hneg, div_eq_iff hd.ne']
  linear_combination 2 * hsq

/-! ## The blocks of `Basic.lean` with the sup norm of `Fin d → ℝ` -/

/-- The gap for the ungated blocks of any widths `m`, `m'` and any activations of the same
degree `k`, measured in Mathlib's sup norm on `Fin d → ℝ`. -/
theorem ungated_gap {d m m' : ℕ} {k s : ℝ} {σ τ : ℝ → ℝ}
    (M : Fin d → Fin d → ℝ) (Wu : Fin m → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ)
    (Wu' : Fin m' → Fin d → ℝ) (Wd' : Fin d → Fin m' → ℝ) (v : Fin d → ℝ)
    (sigma_homogeneous : ∀ t z : ℝ, 0 < t → σ (t * z) = t ^ k * σ z)
    (tau_homogeneous : ∀ t z : ℝ, 0 < t → τ (t * z) = t ^ k * τ z)
    (s_pos : 0 < s) (s_lt_1 : s < 1) :
    ∃ x : Fin d → ℝ, ‖x‖ ≤ ‖v‖ ∧
      |s - s ^ k| / (1 + s ^ k) * ‖skip M v‖
        ≤ ‖skip M x + ungated σ Wu Wd x - ungated τ Wu' Wd' x‖ := by
  have hM : ∀ (t : ℝ) (x : Fin d → ℝ), skip M (t • x) = t • skip M x := by
    intro t x
    funext i
    exact skip_scale M x t i
  have hB : ∀ (t : ℝ) (x : Fin d → ℝ), 0 < t →
      ungated σ Wu Wd (t • x) = t ^ k • ungated σ Wu Wd x := by
    intro t x ht
    funext i
    exact ungated_scale Wu Wd sigma_homogeneous ht x i
  have hB' : ∀ (t : ℝ) (x : Fin d → ℝ), 0 < t →
      ungated τ Wu' Wd' (t • x) = t ^ k • ungated τ Wu' Wd' x := by
    intro t x ht
    funext i
    exact ungated_scale Wu' Wd' tau_homogeneous ht x i
  exact homogeneous_gap (skip M) (ungated σ Wu Wd) (ungated τ Wu' Wd') v hM hB hB'
    s_pos s_lt_1

end SkipAbsorption
