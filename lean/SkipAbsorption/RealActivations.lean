import SkipAbsorption.Limit

/-!
# Activations with `σ (t z + c) / t → relu z` (part of `proofs/coq/RealActivations.v`)

The hypothesis `sigma_limit_relu` of `limit_reduction` holds for relu, gelu and silu:

* `gate_limit_relu`: if `σ y = y g(y)` with `g → 1` at `+∞` and `g → 0` at `-∞`, then
  `σ (t z + c) / t = (z + c/t) g(t z + c) → relu z` (for `t > 0`; the three cases `z > 0`,
  `z < 0`, `z = 0`).
* relu is `y` times the unit step; silu is `y` times the sigmoid; gelu is `y` times `Φ`, here the
  distribution function of the standard Gaussian measure `gaussianReal 0 1` (Mathlib's
  `ProbabilityTheory.cdf`, whose limits at `±∞` Mathlib proves). The Coq development instead
  defines `Φ` by the integral `1/2 + (2π)^(-1/2) ∫_0^z e^(-t²/2) dt` and proves those limits
  from the value of the Gaussian integral. The gelu_tanh case and the odd part of gelu are only in
  Coq; here relu and silu get the full biased iff, gelu the necessity.
-/

namespace SkipAbsorption

open Filter Topology

/-- An affine map with positive slope tends to `+∞`. -/
theorem affine_tendsto_atTop {z : ℝ} (c : ℝ) (hz : 0 < z) :
    Tendsto (fun t : ℝ => t * z + c) atTop atTop := by
  have h1 : Tendsto (fun t : ℝ => t * z) atTop atTop := tendsto_id.atTop_mul_const hz
  exact h1.atTop_add (tendsto_const_nhds : Tendsto (fun _ : ℝ => c) atTop (𝓝 c))

/-- An affine map with negative slope tends to `-∞`. -/
theorem affine_tendsto_atBot {z : ℝ} (c : ℝ) (hz : z < 0) :
    Tendsto (fun t : ℝ => t * z + c) atTop atBot := by
  have h1 : Tendsto (fun t : ℝ => t * -z) atTop atTop := tendsto_id.atTop_mul_const (neg_pos.mpr hz)
  have h2 : Tendsto (fun t : ℝ => -(t * -z)) atTop atBot := tendsto_neg_atTop_atBot.comp h1
  have h3 : Tendsto (fun t : ℝ => -(t * -z) + c) atTop atBot :=
    h2.atBot_add (tendsto_const_nhds : Tendsto (fun _ : ℝ => c) atTop (𝓝 c))
  have e : ∀ t : ℝ, -(t * -z) + c = t * z + c := fun t => by ring
  exact Tendsto.congr e h3

/-- The generic limit: an activation `y ↦ y g(y)` whose gate tends to 1 at `+∞` and to 0 at
`-∞` satisfies `σ (t z + c) / t → relu z` as `t → ∞`. -/
theorem gate_limit_relu {g : ℝ → ℝ} (hp : Tendsto g atTop (𝓝 1)) (hm : Tendsto g atBot (𝓝 0))
    (z c : ℝ) :
    Tendsto (fun t : ℝ => (t * z + c) * g (t * z + c) / t) atTop (𝓝 (relu z)) := by
  have hshift : Tendsto (fun t : ℝ => z + c / t) atTop (𝓝 z) := by
    have h := (tendsto_const_nhds : Tendsto (fun _ : ℝ => z) atTop (𝓝 z)).add
      (Filter.Tendsto.div_atTop (tendsto_const_nhds : Tendsto (fun _ : ℝ => c) atTop (𝓝 c))
        tendsto_id)
    rw [add_zero] at h
    exact h
  have hev : (fun t : ℝ => (z + c / t) * g (t * z + c)) =ᶠ[atTop]
      (fun t : ℝ => (t * z + c) * g (t * z + c) / t) := by
    filter_upwards [eventually_gt_atTop (0 : ℝ)] with t ht
    show (z + c / t) * g (t * z + c) = (t * z + c) * g (t * z + c) / t
    have hc : c / t * t = c := div_mul_cancel₀ c ht.ne'
    rw [eq_div_iff ht.ne']
    linear_combination g (t * z + c) * hc
  refine Tendsto.congr' hev ?_
  rcases lt_trichotomy z 0 with hz | hz | hz
  · have hg : Tendsto (fun t : ℝ => g (t * z + c)) atTop (𝓝 0) :=
      hm.comp (affine_tendsto_atBot c hz)
    have h := hshift.mul hg
    rw [mul_zero] at h
    have hr : relu z = 0 := max_eq_right hz.le
    rw [hr]
    exact h
  · subst hz
    have h0 : Tendsto (fun t : ℝ => c / t * g c) atTop (𝓝 (0 * g c)) :=
      (Filter.Tendsto.div_atTop (tendsto_const_nhds : Tendsto (fun _ : ℝ => c) atTop (𝓝 c))
        tendsto_id).mul_const (g c)
    rw [zero_mul] at h0
    have e : ∀ t : ℝ, c / t * g c = (0 + c / t) * g (t * 0 + c) := fun t => by
      rw [mul_zero, zero_add, zero_add]
    have hr : relu 0 = 0 := max_eq_left le_rfl
    rw [hr]
    exact Tendsto.congr e h0
  · have hg : Tendsto (fun t : ℝ => g (t * z + c)) atTop (𝓝 1) :=
      hp.comp (affine_tendsto_atTop c hz)
    have h := hshift.mul hg
    rw [mul_one] at h
    have hr : relu z = z := max_eq_left hz.le
    rw [hr]
    exact h

/-- The unit step `[y > 0]`. -/
noncomputable def unitStep (y : ℝ) : ℝ := if 0 < y then 1 else 0

theorem relu_eq_mul_step (y : ℝ) : relu y = y * unitStep y := by
  unfold relu unitStep
  by_cases hy : 0 < y
  · rw [if_pos hy, mul_one, max_eq_left hy.le]
  · rw [if_neg hy, mul_zero, max_eq_right (not_lt.mp hy)]

theorem unitStep_tendsto_atTop : Tendsto unitStep atTop (𝓝 1) := by
  refine (tendsto_const_nhds : Tendsto (fun _ : ℝ => (1 : ℝ)) atTop (𝓝 1)).congr' ?_
  filter_upwards [eventually_gt_atTop (0 : ℝ)] with y hy
  show (1 : ℝ) = unitStep y
  unfold unitStep
  rw [if_pos hy]

theorem unitStep_tendsto_atBot : Tendsto unitStep atBot (𝓝 0) := by
  refine (tendsto_const_nhds : Tendsto (fun _ : ℝ => (0 : ℝ)) atBot (𝓝 0)).congr' ?_
  filter_upwards [eventually_lt_atBot (0 : ℝ)] with y hy
  show (0 : ℝ) = unitStep y
  unfold unitStep
  rw [if_neg (not_lt.mpr hy.le)]

/-- relu satisfies the limit property. -/
theorem relu_limit_relu (z c : ℝ) :
    Tendsto (fun t : ℝ => relu (t * z + c) / t) atTop (𝓝 (relu z)) := by
  have h := gate_limit_relu unitStep_tendsto_atTop unitStep_tendsto_atBot z c
  have e : ∀ t : ℝ, (t * z + c) * unitStep (t * z + c) / t = relu (t * z + c) / t :=
    fun t => by rw [relu_eq_mul_step]
  exact Tendsto.congr e h

/-- The sigmoid `1 / (1 + e^(-z))`. -/
noncomputable def sigmoid (z : ℝ) : ℝ := 1 / (1 + Real.exp (-z))

/-- silu `z ↦ z sigmoid(z)`. -/
noncomputable def silu (z : ℝ) : ℝ := z * sigmoid z

theorem sigmoid_tendsto_atTop : Tendsto sigmoid atTop (𝓝 1) := by
  have h1 : Tendsto (fun z : ℝ => Real.exp (-z)) atTop (𝓝 0) :=
    Real.tendsto_exp_atBot.comp tendsto_neg_atTop_atBot
  have h2 : Tendsto (fun z : ℝ => 1 + Real.exp (-z)) atTop (𝓝 (1 + 0)) :=
    (tendsto_const_nhds : Tendsto (fun _ : ℝ => (1 : ℝ)) atTop (𝓝 1)).add h1
  have h3 := (tendsto_const_nhds : Tendsto (fun _ : ℝ => (1 : ℝ)) atTop (𝓝 1)).div h2
    (by norm_num)
  rw [add_zero, div_one] at h3
  exact h3

theorem sigmoid_tendsto_atBot : Tendsto sigmoid atBot (𝓝 0) := by
  have h1 : Tendsto (fun z : ℝ => Real.exp (-z)) atBot atTop :=
    Real.tendsto_exp_atTop.comp tendsto_neg_atBot_atTop
  have h2 : Tendsto (fun z : ℝ => Real.exp (-z) + 1) atBot atTop :=
    h1.atTop_add (tendsto_const_nhds : Tendsto (fun _ : ℝ => (1 : ℝ)) atBot (𝓝 1))
  have h3 : Tendsto (fun z : ℝ => 1 / (Real.exp (-z) + 1)) atBot (𝓝 0) :=
    Filter.Tendsto.div_atTop (tendsto_const_nhds : Tendsto (fun _ : ℝ => (1 : ℝ)) atBot (𝓝 1)) h2
  have e : ∀ z : ℝ, 1 / (Real.exp (-z) + 1) = sigmoid z := fun z => by
    unfold sigmoid
    rw [add_comm]
  exact Tendsto.congr e h3

/-- silu satisfies the limit property. -/
theorem silu_limit_relu (z c : ℝ) :
    Tendsto (fun t : ℝ => silu (t * z + c) / t) atTop (𝓝 (relu z)) :=
  gate_limit_relu sigmoid_tendsto_atTop sigmoid_tendsto_atBot z c

/-- `Φ`: the distribution function of the standard Gaussian measure. -/
noncomputable def Phi (z : ℝ) : ℝ :=
  ProbabilityTheory.cdf (ProbabilityTheory.gaussianReal 0 1) z

/-- The exact gelu `z ↦ z Φ(z)`. -/
noncomputable def gelu (z : ℝ) : ℝ := z * Phi z

/-- gelu satisfies the limit property. -/
theorem gelu_limit_relu (z c : ℝ) :
    Tendsto (fun t : ℝ => gelu (t * z + c) / t) atTop (𝓝 (relu z)) := by
  have hp : Tendsto Phi atTop (𝓝 1) :=
    ProbabilityTheory.tendsto_cdf_atTop (μ := ProbabilityTheory.gaussianReal 0 1)
  have hm : Tendsto Phi atBot (𝓝 0) :=
    ProbabilityTheory.tendsto_cdf_atBot (μ := ProbabilityTheory.gaussianReal 0 1)
  exact gate_limit_relu hp hm z c

/-- `sigmoid z + sigmoid (-z) = 1`. -/
theorem sigmoid_sym (z : ℝ) : sigmoid z + sigmoid (-z) = 1 := by
  have hab : Real.exp (-z) * Real.exp z = 1 := by
    rw [← Real.exp_add]
    simp
  have ha : 0 < 1 + Real.exp (-z) := by linarith [Real.exp_pos (-z)]
  have hb : 0 < 1 + Real.exp z := by linarith [Real.exp_pos z]
  unfold sigmoid
  rw [neg_neg, div_add_div _ _ ha.ne' hb.ne', div_eq_iff (mul_pos ha hb).ne']
  linear_combination (-1 : ℝ) * hab

/-- The odd part of silu: `silu z - silu (-z) = z`. -/
theorem silu_odd (z : ℝ) : silu z - silu (-z) = z := by
  have h := sigmoid_sym z
  unfold silu
  linear_combination z * h

/-- Claim `relu-limit` for relu blocks with biases (no hypothesis on the activation left). -/
theorem relu_biased_iff {d m : ℕ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wu : Fin m → Fin d → ℝ) (bu : Fin m → ℝ) (bd : Fin d → ℝ)
    (nondegenerate : nondegenerate_block Wd Wu) :
    (∃ (Wd' : Fin d → Fin m → ℝ) (Wu' : Fin m → Fin d → ℝ) (bu' : Fin m → ℝ) (bd' : Fin d → ℝ),
      ∀ (x : Fin d → ℝ) (i : Fin d),
        skip M x i + biased relu Wu Wd bu bd x i = biased relu Wu' Wd' bu' bd' x i) ↔
    ∃ S : Fin m → Bool, index_condition_holds S M Wd Wu :=
  relu_limit_iff M Wd Wu bu bd relu_limit_relu relu_odd nondegenerate

/-- Claim `relu-limit` for silu blocks with biases. -/
theorem silu_limit_iff {d m : ℕ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wu : Fin m → Fin d → ℝ) (bu : Fin m → ℝ) (bd : Fin d → ℝ)
    (nondegenerate : nondegenerate_block Wd Wu) :
    (∃ (Wd' : Fin d → Fin m → ℝ) (Wu' : Fin m → Fin d → ℝ) (bu' : Fin m → ℝ) (bd' : Fin d → ℝ),
      ∀ (x : Fin d → ℝ) (i : Fin d),
        skip M x i + biased silu Wu Wd bu bd x i = biased silu Wu' Wd' bu' bd' x i) ↔
    ∃ S : Fin m → Bool, index_condition_holds S M Wd Wu :=
  relu_limit_iff M Wd Wu bu bd silu_limit_relu silu_odd nondegenerate

/-- Necessity for gelu blocks with biases (the odd part of gelu, hence sufficiency, is proved in
Coq only). -/
theorem gelu_limit_necessity {d m : ℕ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wu : Fin m → Fin d → ℝ) (bu : Fin m → ℝ) (bd : Fin d → ℝ)
    (Wd' : Fin d → Fin m → ℝ) (Wu' : Fin m → Fin d → ℝ) (bu' : Fin m → ℝ) (bd' : Fin d → ℝ)
    (nondegenerate : nondegenerate_block Wd Wu)
    (absorbed : ∀ (x : Fin d → ℝ) (i : Fin d),
      skip M x i + biased gelu Wu Wd bu bd x i = biased gelu Wu' Wd' bu' bd' x i) :
    ∃ S : Fin m → Bool, index_condition_holds S M Wd Wu :=
  relu_limit_necessity M Wd Wu bu bd Wd' Wu' bu' bd' gelu_limit_relu nondegenerate absorbed

end SkipAbsorption
