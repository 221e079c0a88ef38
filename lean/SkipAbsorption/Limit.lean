import SkipAbsorption.Necessity

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
* `relu_limit_necessity`: composing the reduction with `relu_necessity` (Necessity.lean), a
  biased block nondegenerate in the bias-free sense that absorbs the skip at the same width (any
  biases) satisfies the index condition; `relu_limit_iff`: with the odd part, both directions.
-/

namespace SkipAbsorption

open Filter Topology

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
    (absorbed : ∀ (x : Fin d → ℝ) (i : Fin d),
      skip M x i + biased σ Wu Wd bu bd x i = biased σ Wu' Wd' bu' bd' x i) :
    ∀ (x : Fin d → ℝ) (i : Fin d), skip M x i + ungated relu Wu Wd x i = ungated relu Wu' Wd' x i := by
  intro x i
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
      absorbed (fun l => t * x l) i
    rw [← e, skip_scale M x t i, add_div, mul_div_cancel_left₀ (skip M x i) ht.ne']
  exact tendsto_nhds_unique T2 T1

/-- Negate the entries of `b_up` selected by `S`. -/
noncomputable def flip_bias {m : ℕ} (S : Fin m → Bool) (bu : Fin m → ℝ) (l : Fin m) : ℝ :=
  if S l then -bu l else bu l

/-- The down-bias after the flip: `b_down + W_down[:,S] b_up[S]`. -/
noncomputable def shifted_bias {d m : ℕ} (S : Fin m → Bool) (Wd : Fin d → Fin m → ℝ)
    (bu : Fin m → ℝ) (bd : Fin d → ℝ) (i : Fin d) : ℝ :=
  bd i + ∑ l, (if S l then Wd i l * bu l else 0)

/-- The sign flip with biases: for `σ` with `σ z - σ (-z) = z` and an index set `S` with
`W_down[:,S] W_up[S,:] = -M`, flipping the rows of `W_up` and the entries of `b_up` in `S` and
adding `W_down[:,S] b_up[S]` to `b_down` gives a biased block equal to `x ↦ M x + B x`. -/
theorem biased_sign_flip {d m : ℕ} {σ : ℝ → ℝ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wu : Fin m → Fin d → ℝ) (bu : Fin m → ℝ) (bd : Fin d → ℝ)
    (S : Fin m → Bool)
    (sigma_odd_part : ∀ z : ℝ, σ z - σ (-z) = z)
    (index_condition : index_condition_holds S M Wd Wu) :
    ∀ (x : Fin d → ℝ) (i : Fin d), skip M x i + biased σ Wu Wd bu bd x i
      = biased σ (flip_rows S Wu) Wd (flip_bias S bu) (shifted_bias S Wd bu bd) x i := by
  intro x i
  have hunit : ∀ l ∈ (Finset.univ : Finset (Fin m)),
      Wd i l * σ (dot (flip_rows S Wu l) x + flip_bias S bu l)
        = Wd i l * σ (dot (Wu l) x + bu l)
          - (if S l then Wd i l * dot (Wu l) x else 0)
          - (if S l then Wd i l * bu l else 0) := by
    intro l _
    by_cases hl : S l = true
    · have hf : dot (flip_rows S Wu l) x = -dot (Wu l) x := by
        simp only [dot]
        rw [← Finset.sum_neg_distrib]
        exact Finset.sum_congr rfl (fun j _ => by rw [flip_rows, if_pos hl]; ring)
      have hb : flip_bias S bu l = -bu l := by
        rw [flip_bias, if_pos hl]
      have hpre : dot (flip_rows S Wu l) x + flip_bias S bu l = -(dot (Wu l) x + bu l) := by
        rw [hf, hb]
        ring
      rw [hpre, if_pos hl, if_pos hl]
      have hodd := sigma_odd_part (dot (Wu l) x + bu l)
      linear_combination (-(Wd i l)) * hodd
    · have hf : dot (flip_rows S Wu l) x = dot (Wu l) x := by
        simp only [dot]
        exact Finset.sum_congr rfl (fun j _ => by rw [flip_rows, if_neg hl])
      have hb : flip_bias S bu l = bu l := by
        rw [flip_bias, if_neg hl]
      rw [hf, hb, if_neg hl, if_neg hl]
      ring
  have hsel := selected_term M Wd Wu S index_condition x i
  have lhs : biased σ Wu Wd bu bd x i = ∑ l, Wd i l * σ (dot (Wu l) x + bu l) + bd i := rfl
  have rhs : biased σ (flip_rows S Wu) Wd (flip_bias S bu) (shifted_bias S Wd bu bd) x i
      = ∑ l, Wd i l * σ (dot (flip_rows S Wu l) x + flip_bias S bu l)
        + (bd i + ∑ l, (if S l then Wd i l * bu l else 0)) := rfl
  rw [lhs, rhs, Finset.sum_congr rfl hunit, Finset.sum_sub_distrib, Finset.sum_sub_distrib, hsel]
  ring

/-- Necessity with biases (claim `relu-limit`): a biased block of an activation with the limit
property, nondegenerate in the bias-free sense, that absorbs the skip `M` at the same width (any
biases on both sides) satisfies the index condition. `limit_reduction` composed with
`relu_necessity`. -/
theorem relu_limit_necessity {d m : ℕ} {σ : ℝ → ℝ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wu : Fin m → Fin d → ℝ) (bu : Fin m → ℝ) (bd : Fin d → ℝ)
    (Wd' : Fin d → Fin m → ℝ) (Wu' : Fin m → Fin d → ℝ) (bu' : Fin m → ℝ) (bd' : Fin d → ℝ)
    (sigma_limit_relu : ∀ z c : ℝ, Tendsto (fun t : ℝ => σ (t * z + c) / t) atTop (𝓝 (relu z)))
    (nondegenerate : nondegenerate_block Wd Wu)
    (absorbed : ∀ (x : Fin d → ℝ) (i : Fin d),
      skip M x i + biased σ Wu Wd bu bd x i = biased σ Wu' Wd' bu' bd' x i) :
    ∃ S : Fin m → Bool, index_condition_holds S M Wd Wu :=
  relu_necessity M Wd Wu Wd' Wu' nondegenerate
    (limit_reduction M Wu Wd bu bd Wu' Wd' bu' bd' sigma_limit_relu absorbed)

/-- The limit theorem (claim `relu-limit`): for `σ` with the limit property and the odd part
`σ z - σ (-z) = z`, a biased block nondegenerate in the bias-free sense absorbs the skip `M` at
the same width (any biases) iff `W_down[:,S] W_up[S,:] = -M` for some `S`. -/
theorem relu_limit_iff {d m : ℕ} {σ : ℝ → ℝ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wu : Fin m → Fin d → ℝ) (bu : Fin m → ℝ) (bd : Fin d → ℝ)
    (sigma_limit_relu : ∀ z c : ℝ, Tendsto (fun t : ℝ => σ (t * z + c) / t) atTop (𝓝 (relu z)))
    (sigma_odd_part : ∀ z : ℝ, σ z - σ (-z) = z)
    (nondegenerate : nondegenerate_block Wd Wu) :
    (∃ (Wd' : Fin d → Fin m → ℝ) (Wu' : Fin m → Fin d → ℝ) (bu' : Fin m → ℝ) (bd' : Fin d → ℝ),
      ∀ (x : Fin d → ℝ) (i : Fin d),
        skip M x i + biased σ Wu Wd bu bd x i = biased σ Wu' Wd' bu' bd' x i) ↔
    ∃ S : Fin m → Bool, index_condition_holds S M Wd Wu := by
  constructor
  · rintro ⟨Wd', Wu', bu', bd', absorbed⟩
    exact relu_limit_necessity M Wd Wu bu bd Wd' Wu' bu' bd' sigma_limit_relu nondegenerate
      absorbed
  · rintro ⟨S, index_condition⟩
    exact ⟨Wd, flip_rows S Wu, flip_bias S bu, shifted_bias S Wd bu bd,
      biased_sign_flip M Wd Wu bu bd S sigma_odd_part index_condition⟩

end SkipAbsorption
