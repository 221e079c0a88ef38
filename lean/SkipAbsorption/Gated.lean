import SkipAbsorption.Basic

/-!
# Gates that vanish and are continuous at 0 cannot absorb a skip

Along a ray `x = t • v` (`t > 0`) a gated block equals `t` times
`G t = ∑_j W_down i j * g(t a_j) * b_j`, and `G t → 0` as `t → 0` because `g` is continuous
at 0 with `g 0 = 0`.  If `M x + B x = B' x` for all `x`, dividing by `t` gives
`(M v)_i + G t - G' t = 0` for all `t > 0`, which is impossible when `(M v)_i ≠ 0`
because the left side tends to `(M v)_i`.  Nothing here depends on the widths, so `B'` may
have any width and its own gate `g'` (also vanishing and continuous at 0).
-/

namespace SkipAbsorption

open Filter Topology

/-- If `t c + t F₁ t = t F₂ t` for every `t > 0` while `F₁, F₂ → 0` at 0, then `c = 0`
(stated as: `c ≠ 0` is contradictory).  Proved with the ε-δ form of the limit. -/
theorem ray_contradiction {c : ℝ} {F₁ F₂ : ℝ → ℝ}
    (h₁ : Tendsto F₁ (𝓝 0) (𝓝 0)) (h₂ : Tendsto F₂ (𝓝 0) (𝓝 0)) (hc : c ≠ 0)
    (h : ∀ t : ℝ, 0 < t → t * c + t * F₁ t = t * F₂ t) : False := by
  have hF : Tendsto (fun t => F₁ t - F₂ t) (𝓝 0) (𝓝 0) := by
    have h₃ := h₁.sub h₂
    rw [sub_zero] at h₃
    exact h₃
  obtain ⟨δ, hδ, H⟩ := Metric.tendsto_nhds_nhds.mp hF |c| (abs_pos.mpr hc)
  have ht : 0 < δ / 2 := half_pos hδ
  have hd : dist (δ / 2) (0 : ℝ) < δ := by
    rw [Real.dist_eq, sub_zero, abs_of_pos ht]
    exact half_lt_self hδ
  have H2 : dist (F₁ (δ / 2) - F₂ (δ / 2)) 0 < |c| := H hd
  have e := h (δ / 2) ht
  have e2 : δ / 2 * (c + (F₁ (δ / 2) - F₂ (δ / 2))) = 0 := by linear_combination e
  have e3 : c + (F₁ (δ / 2) - F₂ (δ / 2)) = 0 := by
    rcases mul_eq_zero.mp e2 with h0 | h0
    · exact absurd h0 (ne_of_gt ht)
    · exact h0
  have hF2 : F₁ (δ / 2) - F₂ (δ / 2) = -c := by linarith
  have H3 : |F₁ (δ / 2) - F₂ (δ / 2)| < |c| := by
    rw [Real.dist_eq, sub_zero] at H2
    exact H2
  rw [hF2, abs_neg] at H3
  exact lt_irrefl _ H3

/-- Along a ray, the gated block divided by `t` tends to 0 as `t → 0`, provided the gate
vanishes and is continuous at 0. -/
theorem gated_ray_tendsto {d m : ℕ} {g : ℝ → ℝ} (hg0 : g 0 = 0) (hgc : ContinuousAt g 0)
    (Wg Wu : Fin m → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ) (v : Fin d → ℝ) (i : Fin d) :
    Tendsto (fun t : ℝ => ∑ j, Wd i j * (g (t * ∑ l, Wg j l * v l) * ∑ l, Wu j l * v l))
      (𝓝 0) (𝓝 0) := by
  have hg : Tendsto g (𝓝 0) (𝓝 0) := by
    have h := hgc.tendsto
    rw [hg0] at h
    exact h
  have key : ∀ j ∈ (Finset.univ : Finset (Fin m)),
      Tendsto (fun t : ℝ => Wd i j * (g (t * ∑ l, Wg j l * v l) * ∑ l, Wu j l * v l))
        (𝓝 0) (𝓝 0) := by
    intro j _
    have hlin : Tendsto (fun t : ℝ => t * ∑ l, Wg j l * v l) (𝓝 0) (𝓝 0) :=
      (continuous_mul_right (∑ l, Wg j l * v l)).tendsto' 0 0 (by simp)
    have hterm := ((hg.comp hlin).mul_const (∑ l, Wu j l * v l)).const_mul (Wd i j)
    rw [zero_mul, mul_zero] at hterm
    exact hterm
  have hsum := tendsto_finset_sum (Finset.univ : Finset (Fin m)) key
  rw [Finset.sum_const_zero] at hsum
  exact hsum

/-- A skip `M ≠ 0` added to a gated block (gate `g` with `g 0 = 0`, continuous at 0) gives a
map equal to no residual-free gated block, of any width, whose gate `g'` also vanishes and is
continuous at 0. -/
theorem gated_continuity {d m m' : ℕ} {g g' : ℝ → ℝ}
    (M : Fin d → Fin d → ℝ) (Wg Wu : Fin m → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ)
    (Wg' Wu' : Fin m' → Fin d → ℝ) (Wd' : Fin d → Fin m' → ℝ)
    (gate_zero_at_0 : g 0 = 0) (gate_continuous_at_0 : ContinuousAt g 0)
    (gate'_zero_at_0 : g' 0 = 0) (gate'_continuous_at_0 : ContinuousAt g' 0)
    (M_nonzero : M ≠ 0) :
    ¬ ∀ x : Fin d → ℝ, skip M x + gated g Wg Wu Wd x = gated g' Wg' Wu' Wd' x := by
  intro h
  obtain ⟨v, i, hv⟩ := exists_skip_ne_zero M M_nonzero
  have T1 := gated_ray_tendsto gate_zero_at_0 gate_continuous_at_0 Wg Wu Wd v i
  have T2 := gated_ray_tendsto gate'_zero_at_0 gate'_continuous_at_0 Wg' Wu' Wd' v i
  refine ray_contradiction T1 T2 hv (fun t _ => ?_)
  have e : skip M (fun l => t * v l) i + gated g Wg Wu Wd (fun l => t * v l) i
      = gated g' Wg' Wu' Wd' (fun l => t * v l) i := congrFun (h (fun l => t * v l)) i
  rw [skip_scale M v t i, gated_ray g Wg Wu Wd t v i, gated_ray g' Wg' Wu' Wd' t v i] at e
  exact e

/-- Prop. 6 in the paper's form: same gate, same width, gate vanishing and differentiable
at 0 (continuity at 0 is all the proof uses). -/
theorem gated_impossible {d m : ℕ} {g : ℝ → ℝ}
    (M : Fin d → Fin d → ℝ) (Wg Wu : Fin m → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ)
    (gate_zero_at_0 : g 0 = 0) (gate_differentiable_at_0 : DifferentiableAt ℝ g 0)
    (M_nonzero : M ≠ 0) :
    ¬ ∃ (Wg' Wu' : Fin m → Fin d → ℝ) (Wd' : Fin d → Fin m → ℝ),
      ∀ x : Fin d → ℝ, skip M x + gated g Wg Wu Wd x = gated g Wg' Wu' Wd' x := by
  rintro ⟨Wg', Wu', Wd', h⟩
  exact gated_continuity M Wg Wu Wd Wg' Wu' Wd' gate_zero_at_0
    gate_differentiable_at_0.continuousAt gate_zero_at_0
    gate_differentiable_at_0.continuousAt M_nonzero h

end SkipAbsorption
