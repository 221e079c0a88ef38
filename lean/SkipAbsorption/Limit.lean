import SkipAbsorption.Basic

/-!
# The limit extension (`relu-limit`): blocks with biases

Mirror of `proofs/coq/Limit.v`.

* `biased σ Wu Wd bu bd x = W_down σ(W_up x + b_up) + b_down`.
* `limit_reduction`: if `σ (t z + c) / t → relu z` as `t → ∞` for all `z, c`, an identity
  `M x + B x = B' x` between biased `σ`-blocks (any widths) implies the identity
  `M x + W_down relu(W_up x) = W'_down relu(W'_up x)` between the bias-free relu blocks with the
  same weight matrices: evaluate at `t • x`, divide by `t`, let `t → ∞`; limits are unique.
* `biased_sign_flip`: with `σ z - σ (-z) = z` and `W_down[:,S] W_up[S,:] = -M`, flipping the rows
  of `W_up` and the entries of `b_up` in `S` and adding `W_down[:,S] b_up[S]` to `b_down` turns the
  biased block into `x ↦ M x + B x`.

The Coq development composes `limit_reduction` with its relu necessity theorem
(`Necessity.relu_necessity`). That theorem is not mirrored in Lean, so here the composition
(`limit_necessity_of_relu_necessity`, `limit_iff_of_relu_necessity`) takes relu necessity for
the block as an explicit hypothesis; those two are conditional helpers, not the claim.
-/

namespace SkipAbsorption

open Filter Topology

/-- relu. -/
noncomputable def relu (z : ℝ) : ℝ := max z 0

/-- The biased block `x ↦ W_down σ(W_up x + b_up) + b_down` of hidden width `m`. -/
noncomputable def biased {d m : ℕ} (σ : ℝ → ℝ) (Wu : Fin m → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (bu : Fin m → ℝ) (bd : Fin d → ℝ) (x : Fin d → ℝ) : Fin d → ℝ :=
  fun i => ∑ j, Wd i j * σ (∑ l, Wu j l * x l + bu j) + bd i

/-- On the ray `t • x`, a biased block divided by `t` tends to the bias-free relu block with the
same weights, as `t → ∞`. -/
theorem biased_ray_tendsto {d m : ℕ} {σ : ℝ → ℝ}
    (sigma_limit_relu : ∀ z c : ℝ, Tendsto (fun t : ℝ => σ (t * z + c) / t) atTop (𝓝 (relu z)))
    (Wu : Fin m → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ) (bu : Fin m → ℝ) (bd : Fin d → ℝ)
    (x : Fin d → ℝ) (i : Fin d) :
    Tendsto (fun t : ℝ => biased σ Wu Wd bu bd (fun l => t * x l) i / t) atTop
      (𝓝 (ungated relu Wu Wd x i)) := by
  have key : ∀ j ∈ (Finset.univ : Finset (Fin m)),
      Tendsto (fun t : ℝ => Wd i j * (σ (t * ∑ l, Wu j l * x l + bu j) / t)) atTop
        (𝓝 (Wd i j * relu (∑ l, Wu j l * x l))) := by
    intro j _
    exact (sigma_limit_relu (∑ l, Wu j l * x l) (bu j)).const_mul (Wd i j)
  have hsum := tendsto_finset_sum (Finset.univ : Finset (Fin m)) key
  have hbias : Tendsto (fun t : ℝ => bd i / t) atTop (𝓝 0) :=
    Filter.Tendsto.div_atTop tendsto_const_nhds tendsto_id
  have htot := hsum.add hbias
  rw [add_zero] at htot
  have hfun : ∀ t : ℝ,
      (∑ j, Wd i j * (σ (t * ∑ l, Wu j l * x l + bu j) / t)) + bd i / t
        = biased σ Wu Wd bu bd (fun l => t * x l) i / t := by
    intro t
    show (∑ j, Wd i j * (σ (t * ∑ l, Wu j l * x l + bu j) / t)) + bd i / t
        = (∑ j, Wd i j * σ (∑ l, Wu j l * (t * x l) + bu j) + bd i) / t
    rw [add_div, Finset.sum_div]
    congr 1
    apply Finset.sum_congr rfl
    intro j _
    rw [sum_mul_scale (Wu j) x t, mul_div_assoc]
  exact Tendsto.congr hfun htot

/-- The limit reduction: an identity between biased blocks of an activation with
`σ (t z + c) / t → relu z` gives the identity between the bias-free relu blocks with the same
weight matrices (any widths `m`, `m'`). -/
theorem limit_reduction {d m m' : ℕ} {σ : ℝ → ℝ} (M : Fin d → Fin d → ℝ)
    (Wu : Fin m → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ) (bu : Fin m → ℝ) (bd : Fin d → ℝ)
    (Wu' : Fin m' → Fin d → ℝ) (Wd' : Fin d → Fin m' → ℝ) (bu' : Fin m' → ℝ) (bd' : Fin d → ℝ)
    (sigma_limit_relu : ∀ z c : ℝ, Tendsto (fun t : ℝ => σ (t * z + c) / t) atTop (𝓝 (relu z)))
    (absorbed : ∀ x : Fin d → ℝ, skip M x + biased σ Wu Wd bu bd x = biased σ Wu' Wd' bu' bd' x) :
    ∀ x : Fin d → ℝ, skip M x + ungated relu Wu Wd x = ungated relu Wu' Wd' x := by
  intro x
  funext i
  have T1 := biased_ray_tendsto sigma_limit_relu Wu' Wd' bu' bd' x i
  have hconst : Tendsto (fun _ : ℝ => skip M x i) atTop (𝓝 (skip M x i)) := tendsto_const_nhds
  have h := hconst.add (biased_ray_tendsto sigma_limit_relu Wu Wd bu bd x i)
  have T2 : Tendsto (fun t : ℝ => biased σ Wu' Wd' bu' bd' (fun l => t * x l) i / t) atTop
      (𝓝 (skip M x i + ungated relu Wu Wd x i)) := by
    refine h.congr' ?_
    filter_upwards [eventually_gt_atTop (0 : ℝ)] with t ht
    show skip M x i + biased σ Wu Wd bu bd (fun l => t * x l) i / t
        = biased σ Wu' Wd' bu' bd' (fun l => t * x l) i / t
    have e : skip M (fun l => t * x l) i + biased σ Wu Wd bu bd (fun l => t * x l) i
        = biased σ Wu' Wd' bu' bd' (fun l => t * x l) i :=
      congrFun (absorbed (fun l => t * x l)) i
    rw [← e, skip_scale M x t i, add_div, mul_div_cancel_left₀ (skip M x i) ht.ne']
  show skip M x i + ungated relu Wu Wd x i = ungated relu Wu' Wd' x i
  exact tendsto_nhds_unique T2 T1

/-- Negate the rows of `W_up` selected by `S`. -/
noncomputable def flipRows {d m : ℕ} (S : Finset (Fin m)) (Wu : Fin m → Fin d → ℝ) :
    Fin m → Fin d → ℝ :=
  fun l j => if l ∈ S then -Wu l j else Wu l j

/-- Negate the entries of `b_up` selected by `S`. -/
noncomputable def flipBias {m : ℕ} (S : Finset (Fin m)) (bu : Fin m → ℝ) : Fin m → ℝ :=
  fun l => if l ∈ S then -bu l else bu l

/-- The down-bias after the flip: `b_down + W_down[:,S] b_up[S]`. -/
noncomputable def shiftedBias {d m : ℕ} (S : Finset (Fin m)) (Wd : Fin d → Fin m → ℝ)
    (bu : Fin m → ℝ) (bd : Fin d → ℝ) : Fin d → ℝ :=
  fun i => bd i + ∑ l, (if l ∈ S then Wd i l * bu l else 0)

/-- `W_down[:,S] W_up[S,:] = -M` on the `d × d` range. -/
def IndexCondition {d m : ℕ} (S : Finset (Fin m)) (M : Fin d → Fin d → ℝ)
    (Wu : Fin m → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ) : Prop :=
  ∀ i j : Fin d, ∑ l, (if l ∈ S then Wd i l * Wu l j else 0) = -M i j

/-- Under the index condition, the selected units' linear terms add up to `-M x`. -/
theorem selected_term {d m : ℕ} (M : Fin d → Fin d → ℝ) (Wu : Fin m → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (S : Finset (Fin m)) (h : IndexCondition S M Wu Wd)
    (x : Fin d → ℝ) (i : Fin d) :
    ∑ l, (if l ∈ S then Wd i l * ∑ j, Wu l j * x j else 0) = -skip M x i := by
  have h1 : ∀ l : Fin m, (if l ∈ S then Wd i l * ∑ j, Wu l j * x j else 0)
      = ∑ j, (if l ∈ S then Wd i l * Wu l j else 0) * x j := by
    intro l
    by_cases hl : l ∈ S
    · rw [if_pos hl, Finset.mul_sum]
      apply Finset.sum_congr rfl
      intro j _
      rw [if_pos hl]
      ring
    · rw [if_neg hl]
      symm
      apply Finset.sum_eq_zero
      intro j _
      rw [if_neg hl, zero_mul]
  have h2 : ∑ l, (if l ∈ S then Wd i l * ∑ j, Wu l j * x j else 0)
      = ∑ l, ∑ j, (if l ∈ S then Wd i l * Wu l j else 0) * x j :=
    Finset.sum_congr rfl (fun l _ => h1 l)
  rw [h2, Finset.sum_comm]
  show ∑ j, ∑ l, (if l ∈ S then Wd i l * Wu l j else 0) * x j = -∑ j, M i j * x j
  rw [← Finset.sum_neg_distrib]
  apply Finset.sum_congr rfl
  intro j _
  rw [← Finset.sum_mul, h i j]
  ring

/-- The sign flip with biases: for `σ` with `σ z - σ (-z) = z` and an index set `S` with
`W_down[:,S] W_up[S,:] = -M`, flipping the rows of `W_up` and the entries of `b_up` in `S` and
adding `W_down[:,S] b_up[S]` to `b_down` gives a biased block equal to `x ↦ M x + B x`. -/
theorem biased_sign_flip {d m : ℕ} {σ : ℝ → ℝ} (M : Fin d → Fin d → ℝ)
    (Wu : Fin m → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ) (bu : Fin m → ℝ) (bd : Fin d → ℝ)
    (S : Finset (Fin m))
    (sigma_odd_part : ∀ z : ℝ, σ z - σ (-z) = z)
    (index_condition : IndexCondition S M Wu Wd) :
    ∀ x : Fin d → ℝ, skip M x + biased σ Wu Wd bu bd x
      = biased σ (flipRows S Wu) Wd (flipBias S bu) (shiftedBias S Wd bu bd) x := by
  intro x
  funext i
  have hunit : ∀ l : Fin m,
      Wd i l * σ (∑ j, flipRows S Wu l j * x j + flipBias S bu l)
        = Wd i l * σ (∑ j, Wu l j * x j + bu l)
          - (if l ∈ S then Wd i l * ∑ j, Wu l j * x j else 0)
          - (if l ∈ S then Wd i l * bu l else 0) := by
    intro l
    by_cases hl : l ∈ S
    · have hs : ∑ j, flipRows S Wu l j * x j = -∑ j, Wu l j * x j := by
        rw [← Finset.sum_neg_distrib]
        apply Finset.sum_congr rfl
        intro j _
        show (if l ∈ S then -Wu l j else Wu l j) * x j = -(Wu l j * x j)
        rw [if_pos hl]
        ring
      have hb : flipBias S bu l = -bu l := by
        show (if l ∈ S then -bu l else bu l) = -bu l
        rw [if_pos hl]
      have hpre : ∑ j, flipRows S Wu l j * x j + flipBias S bu l
          = -(∑ j, Wu l j * x j + bu l) := by
        rw [hs, hb]
        ring
      rw [hpre, if_pos hl, if_pos hl]
      have hodd := sigma_odd_part (∑ j, Wu l j * x j + bu l)
      linear_combination (-(Wd i l)) * hodd
    · have hs : ∑ j, flipRows S Wu l j * x j = ∑ j, Wu l j * x j := by
        apply Finset.sum_congr rfl
        intro j _
        show (if l ∈ S then -Wu l j else Wu l j) * x j = Wu l j * x j
        rw [if_neg hl]
      have hb : flipBias S bu l = bu l := by
        show (if l ∈ S then -bu l else bu l) = bu l
        rw [if_neg hl]
      rw [hs, hb, if_neg hl, if_neg hl]
      ring
  have hsum : ∑ l, Wd i l * σ (∑ j, flipRows S Wu l j * x j + flipBias S bu l)
      = ∑ l, (Wd i l * σ (∑ j, Wu l j * x j + bu l)
          - (if l ∈ S then Wd i l * ∑ j, Wu l j * x j else 0)
          - (if l ∈ S then Wd i l * bu l else 0)) :=
    Finset.sum_congr rfl (fun l _ => hunit l)
  have hsel := selected_term M Wu Wd S index_condition x i
  show skip M x i + (∑ l, Wd i l * σ (∑ j, Wu l j * x j + bu l) + bd i)
      = ∑ l, Wd i l * σ (∑ j, flipRows S Wu l j * x j + flipBias S bu l)
        + (bd i + ∑ l, (if l ∈ S then Wd i l * bu l else 0))
  rw [hsum, Finset.sum_sub_distrib, Finset.sum_sub_distrib, hsel]
  ring

/-- Conditional helper (not the registered claim): relu necessity for the block, supplied as the
hypothesis `relu_necessity`, transfers to biased blocks of any `σ` with the limit property. -/
theorem limit_necessity_of_relu_necessity {d m : ℕ} {σ : ℝ → ℝ} (M : Fin d → Fin d → ℝ)
    (Wu : Fin m → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ) (bu : Fin m → ℝ) (bd : Fin d → ℝ)
    (sigma_limit_relu : ∀ z c : ℝ, Tendsto (fun t : ℝ => σ (t * z + c) / t) atTop (𝓝 (relu z)))
    (relu_necessity : ∀ (Wu' : Fin m → Fin d → ℝ) (Wd' : Fin d → Fin m → ℝ),
      (∀ x : Fin d → ℝ, skip M x + ungated relu Wu Wd x = ungated relu Wu' Wd' x) →
      ∃ S : Finset (Fin m), IndexCondition S M Wu Wd)
    (Wu' : Fin m → Fin d → ℝ) (Wd' : Fin d → Fin m → ℝ) (bu' : Fin m → ℝ) (bd' : Fin d → ℝ)
    (absorbed : ∀ x : Fin d → ℝ, skip M x + biased σ Wu Wd bu bd x = biased σ Wu' Wd' bu' bd' x) :
    ∃ S : Finset (Fin m), IndexCondition S M Wu Wd :=
  relu_necessity Wu' Wd'
    (limit_reduction M Wu Wd bu bd Wu' Wd' bu' bd' sigma_limit_relu absorbed)

/-- Conditional helper (not the registered claim): with relu necessity for the block as the
hypothesis `relu_necessity`, a biased block of `σ` absorbs the skip at the same width (any
biases) iff the index condition holds for some `S`. -/
theorem limit_iff_of_relu_necessity {d m : ℕ} {σ : ℝ → ℝ} (M : Fin d → Fin d → ℝ)
    (Wu : Fin m → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ) (bu : Fin m → ℝ) (bd : Fin d → ℝ)
    (sigma_limit_relu : ∀ z c : ℝ, Tendsto (fun t : ℝ => σ (t * z + c) / t) atTop (𝓝 (relu z)))
    (sigma_odd_part : ∀ z : ℝ, σ z - σ (-z) = z)
    (relu_necessity : ∀ (Wu' : Fin m → Fin d → ℝ) (Wd' : Fin d → Fin m → ℝ),
      (∀ x : Fin d → ℝ, skip M x + ungated relu Wu Wd x = ungated relu Wu' Wd' x) →
      ∃ S : Finset (Fin m), IndexCondition S M Wu Wd) :
    (∃ (Wu' : Fin m → Fin d → ℝ) (Wd' : Fin d → Fin m → ℝ) (bu' : Fin m → ℝ) (bd' : Fin d → ℝ),
      ∀ x : Fin d → ℝ, skip M x + biased σ Wu Wd bu bd x = biased σ Wu' Wd' bu' bd' x) ↔
    ∃ S : Finset (Fin m), IndexCondition S M Wu Wd := by
  constructor
  · rintro ⟨Wu', Wd', bu', bd', absorbed⟩
    exact limit_necessity_of_relu_necessity M Wu Wd bu bd sigma_limit_relu relu_necessity
      Wu' Wd' bu' bd' absorbed
  · rintro ⟨S, index_condition⟩
    exact ⟨flipRows S Wu, Wd, flipBias S bu, shiftedBias S Wd bu bd,
      biased_sign_flip M Wu Wd bu bd S sigma_odd_part index_condition⟩

end SkipAbsorption
