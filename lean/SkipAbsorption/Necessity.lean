import SkipAbsorption.Basic

/-!
# Necessity of the sign-flip condition for relu blocks (Thm. 8, relu half)

Mirror of `proofs/coq/Necessity.v`, with the same steps and the same binder names.

If a nondegenerate bias-free relu block `B` satisfies `M x + B x = B' x` for every `x`, where
`B'` is any bias-free relu block of the same width, then `W_down[:,S] W_up[S,:] = -M` for some
index set `S` (no hypothesis on `d` or on `M`); `B'` is then `B` with the rows in `S` sign-flipped
and every unit positively rescaled, up to a permutation of the units.

* `relu z = z/2 + |z|/2`: the identity at `x` and `-x` splits into a linear identity (odd parts)
  and `∑ l, Wd i l * |u_l ⬝ x| = ∑ k, Wd' i k * |u'_k ⬝ x|` (even parts).
* `kink`: if `∑ k, (c k |V_k ⬝ x| - c' k |V'_k ⬝ x|) = 0` for all `x`, the second difference at any
  point `x0` in any direction `u` gives `∑_{V_k ⬝ x0 = 0} c k |V_k ⬝ u| = ∑_{V'_k ⬝ x0 = 0} c' k |V'_k ⬝ u|`.
* `avoid_hyperplanes`: for `u ≠ 0` and a list of vectors there is `x0 ⊥ u` on which every vector
  of the list that is not a multiple of `u` is nonzero (explicit construction by induction).
* Counting: every line of `B` carries a unit of `B'`; the map `p` so chosen is injective, hence
  bijective (`Finite.injective_iff_surjective`); then `w_l = |lam_l| w'_(p l)`, and the odd parts
  give the index condition for `S = {l | lam_l < 0}`.

Written against Mathlib at the pinned commit; not compiled in this environment (see README.md).
-/

namespace SkipAbsorption

/-- relu, `max z 0`. -/
noncomputable def relu (z : ℝ) : ℝ := max z 0

/-- Every row `u_l` of `W_up` is nonzero. -/
def rows_nonzero {d m : ℕ} (Wu : Fin m → Fin d → ℝ) : Prop :=
  ∀ l, ∃ j, Wu l j ≠ 0

/-- No row of `W_up` is a multiple of another one. -/
def rows_noncollinear {d m : ℕ} (Wu : Fin m → Fin d → ℝ) : Prop :=
  ∀ l l', l ≠ l' → ¬ ∃ c : ℝ, ∀ j, Wu l' j = c * Wu l j

/-- Every column `w_l` of `W_down` is nonzero. -/
def cols_nonzero {d m : ℕ} (Wd : Fin d → Fin m → ℝ) : Prop :=
  ∀ l, ∃ i, Wd i l ≠ 0

def nondegenerate_block {d m : ℕ} (Wd : Fin d → Fin m → ℝ) (Wu : Fin m → Fin d → ℝ) : Prop :=
  rows_nonzero Wu ∧ rows_noncollinear Wu ∧ cols_nonzero Wd

/-- `W_down[:,S] W_up[S,:] = -M`. -/
def index_condition_holds {d m : ℕ} (S : Fin m → Bool) (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wu : Fin m → Fin d → ℝ) : Prop :=
  ∀ i j, ∑ l, (if S l then Wd i l * Wu l j else 0) = -M i j

/-- Negate the rows of `W` selected by `S`. -/
noncomputable def flip_rows {d m : ℕ} (S : Fin m → Bool) (W : Fin m → Fin d → ℝ)
    (l : Fin m) (j : Fin d) : ℝ :=
  if S l then -W l j else W l j

/-! ## Dot products -/

/-- `a ⬝ b` as a finite sum. -/
noncomputable def dot {d : ℕ} (a b : Fin d → ℝ) : ℝ := ∑ j, a j * b j

theorem dot_comm {d : ℕ} (a b : Fin d → ℝ) : dot a b = dot b a := by
  simp only [dot]
  exact Finset.sum_congr rfl (fun j _ => mul_comm _ _)

theorem dot_add_smul {d : ℕ} (a b c : Fin d → ℝ) (s : ℝ) :
    dot a (fun j => b j + s * c j) = dot a b + s * dot a c := by
  simp only [dot]
  rw [Finset.mul_sum, ← Finset.sum_add_distrib]
  exact Finset.sum_congr rfl (fun j _ => by ring)

theorem dot_add_smul_left {d : ℕ} (a b c : Fin d → ℝ) (s : ℝ) :
    dot (fun j => a j + s * b j) c = dot a c + s * dot b c := by
  simp only [dot]
  rw [Finset.mul_sum, ← Finset.sum_add_distrib]
  exact Finset.sum_congr rfl (fun j _ => by ring)

theorem dot_neg {d : ℕ} (a x : Fin d → ℝ) : dot a (fun j => -x j) = -dot a x := by
  simp only [dot]
  rw [← Finset.sum_neg_distrib]
  exact Finset.sum_congr rfl (fun j _ => by ring)

theorem dot_self_nonneg {d : ℕ} (a : Fin d → ℝ) : 0 ≤ dot a a := by
  show 0 ≤ ∑ j, a j * a j
  exact Finset.sum_nonneg (fun j _ => mul_self_nonneg (a j))

theorem dot_self_zero {d : ℕ} (a : Fin d → ℝ) (h : dot a a = 0) (j : Fin d) : a j = 0 := by
  have h1 : a j * a j ≤ dot a a :=
    Finset.single_le_sum (f := fun k => a k * a k) (fun k _ => mul_self_nonneg (a k))
      (Finset.mem_univ j)
  have h2 : a j * a j = 0 := le_antisymm (by linarith) (mul_self_nonneg (a j))
  exact mul_self_eq_zero.mp h2

theorem dot_self_pos {d : ℕ} (a : Fin d → ℝ) (h : ∃ j, a j ≠ 0) : 0 < dot a a := by
  obtain ⟨j, hj⟩ := h
  have h1 : a j * a j ≤ dot a a :=
    Finset.single_le_sum (f := fun k => a k * a k) (fun k _ => mul_self_nonneg (a k))
      (Finset.mem_univ j)
  have h2 : 0 < a j * a j := mul_self_pos.mpr hj
  linarith

/-- A row that is a multiple `c u` of `u` gives `c (u ⬝ x)`. -/
theorem dot_collinear_row {d m : ℕ} (V : Fin m → Fin d → ℝ) (k : Fin m) (c : ℝ)
    (u x : Fin d → ℝ) (hc : ∀ j, V k j = c * u j) : dot (V k) x = c * dot u x := by
  simp only [dot]
  rw [Finset.mul_sum]
  exact Finset.sum_congr rfl (fun j _ => by rw [hc j]; ring)

/-- Dot product with the `j`-th unit vector. -/
theorem dot_unit {d : ℕ} (a : Fin d → ℝ) (j : Fin d) :
    dot a (fun l => if j = l then (1 : ℝ) else 0) = a j := by
  show ∑ l, a l * (if j = l then (1 : ℝ) else 0) = a j
  rw [Fintype.sum_eq_single j]
  · rw [if_pos rfl, mul_one]
  · intro l hl
    rw [if_neg (Ne.symm hl), mul_zero]

/-! ## relu: odd and even parts -/

theorem relu_odd (z : ℝ) : relu z - relu (-z) = z := by
  unfold relu
  rcases le_total 0 z with h | h
  · have h1 : max z 0 = z := max_eq_left h
    have h2 : max (-z) 0 = 0 := max_eq_right (by linarith)
    linarith
  · have h1 : max z 0 = 0 := max_eq_right h
    have h2 : max (-z) 0 = -z := max_eq_left (by linarith)
    linarith

theorem relu_even (z : ℝ) : relu z + relu (-z) = |z| := by
  unfold relu
  rcases le_total 0 z with h | h
  · have h1 : max z 0 = z := max_eq_left h
    have h2 : max (-z) 0 = 0 := max_eq_right (by linarith)
    have h3 : |z| = z := abs_of_nonneg h
    linarith
  · have h1 : max z 0 = 0 := max_eq_right h
    have h2 : max (-z) 0 = -z := max_eq_left (by linarith)
    have h3 : |z| = -z := abs_of_nonpos h
    linarith

/-- Odd parts: `2 M x + W_down W_up x = W'_down W'_up x`. -/
theorem odd_identity {d m : ℕ} (M : Fin d → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ)
    (Wu : Fin m → Fin d → ℝ) (Wd' : Fin d → Fin m → ℝ) (Wu' : Fin m → Fin d → ℝ)
    (absorbed : ∀ (x : Fin d → ℝ) (i : Fin d),
      skip M x i + ungated relu Wu Wd x i = ungated relu Wu' Wd' x i)
    (x : Fin d → ℝ) (i : Fin d) :
    2 * skip M x i + ∑ l, Wd i l * dot (Wu l) x = ∑ l, Wd' i l * dot (Wu' l) x := by
  have hp := absorbed x i
  have hm := absorbed (fun j => -x j) i
  have hs : skip M (fun j => -x j) i = -skip M x i := dot_neg (M i) x
  have split : ∀ (W : Fin d → Fin m → ℝ) (V : Fin m → Fin d → ℝ),
      ungated relu V W x i - ungated relu V W (fun j => -x j) i = ∑ l, W i l * dot (V l) x := by
    intro W V
    show ∑ l, W i l * relu (dot (V l) x) - ∑ l, W i l * relu (dot (V l) (fun j => -x j))
      = ∑ l, W i l * dot (V l) x
    rw [← Finset.sum_sub_distrib]
    exact Finset.sum_congr rfl (fun l _ => by rw [dot_neg (V l) x, ← mul_sub, relu_odd])
  have e1 := split Wd Wu
  have e2 := split Wd' Wu'
  linarith

/-- Even parts: `∑ l, w_il |u_l ⬝ x| = ∑ k, w'_ik |u'_k ⬝ x|`. -/
theorem even_identity {d m : ℕ} (M : Fin d → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ)
    (Wu : Fin m → Fin d → ℝ) (Wd' : Fin d → Fin m → ℝ) (Wu' : Fin m → Fin d → ℝ)
    (absorbed : ∀ (x : Fin d → ℝ) (i : Fin d),
      skip M x i + ungated relu Wu Wd x i = ungated relu Wu' Wd' x i)
    (i : Fin d) (x : Fin d → ℝ) :
    ∑ k, (Wd i k * |dot (Wu k) x| - Wd' i k * |dot (Wu' k) x|) = 0 := by
  have hp := absorbed x i
  have hm := absorbed (fun j => -x j) i
  have hs : skip M (fun j => -x j) i = -skip M x i := dot_neg (M i) x
  have merge : ∀ (W : Fin d → Fin m → ℝ) (V : Fin m → Fin d → ℝ),
      ungated relu V W x i + ungated relu V W (fun j => -x j) i = ∑ l, W i l * |dot (V l) x| := by
    intro W V
    show ∑ l, W i l * relu (dot (V l) x) + ∑ l, W i l * relu (dot (V l) (fun j => -x j))
      = ∑ l, W i l * |dot (V l) x|
    rw [← Finset.sum_add_distrib]
    exact Finset.sum_congr rfl (fun l _ => by rw [dot_neg (V l) x, ← mul_add, relu_even])
  have e1 := merge Wd Wu
  have e2 := merge Wd' Wu'
  rw [Finset.sum_sub_distrib]
  linarith

/-! ## Small steps and the kink lemma -/

/-- A positive step `t` with `t |b w| < |a w|` for every `w` of a list with `a w ≠ 0`. -/
theorem exists_small_step {α : Type*} (L : List α) (a b : α → ℝ) :
    ∃ t : ℝ, 0 < t ∧ ∀ w ∈ L, a w ≠ 0 → t * |b w| < |a w| := by
  induction L with
  | nil => exact ⟨1, one_pos, fun w hw => by cases hw⟩
  | cons v L ih =>
    obtain ⟨t, ht, hL⟩ := ih
    obtain ⟨r, hr, hv⟩ : ∃ r : ℝ, 0 < r ∧ (a v ≠ 0 → r * |b v| < |a v|) := by
      by_cases hav : a v = 0
      · exact ⟨1, one_pos, fun h => absurd hav h⟩
      · have hA : 0 < |a v| := abs_pos.mpr hav
        have hB : 0 < |b v| + 1 := by linarith [abs_nonneg (b v)]
        have hq : (|b v| + 1)⁻¹ * (|b v| + 1) = 1 := inv_mul_cancel₀ (ne_of_gt hB)
        have hqpos : 0 < (|b v| + 1)⁻¹ := inv_pos.mpr hB
        refine ⟨|a v| * (|b v| + 1)⁻¹, mul_pos hA hqpos, fun _ => ?_⟩
        have key : |a v| - |a v| * (|b v| + 1)⁻¹ * |b v| = |a v| * (|b v| + 1)⁻¹ := by
          linear_combination (-|a v|) * hq
        have : 0 < |a v| * (|b v| + 1)⁻¹ := mul_pos hA hqpos
        linarith
    refine ⟨min t r, lt_min ht hr, ?_⟩
    intro w hw haw
    rcases List.mem_cons.mp hw with hwv | hw'
    · subst hwv
      exact lt_of_le_of_lt (mul_le_mul_of_nonneg_right (min_le_right t r) (abs_nonneg _)) (hv haw)
    · exact lt_of_le_of_lt (mul_le_mul_of_nonneg_right (min_le_left t r) (abs_nonneg _))
        (hL w hw' haw)

theorem abs_pair (a e : ℝ) (h : |e| < |a|) : |a + e| + |a - e| = 2 * |a| := by
  rcases abs_cases a with ⟨ha, ha'⟩ | ⟨ha, ha'⟩ <;>
  rcases abs_cases e with ⟨he, he'⟩ | ⟨he, he'⟩ <;>
  rcases abs_cases (a + e) with ⟨h1, h1'⟩ | ⟨h1, h1'⟩ <;>
  rcases abs_cases (a - e) with ⟨h2, h2'⟩ | ⟨h2, h2'⟩ <;>
  linarith

/-- Second difference of `c |a + t b|` at `t = 0`. -/
theorem second_difference (a b c t : ℝ) (ht : 0 < t) (hsmall : a ≠ 0 → t * |b| < |a|) :
    c * |a + t * b| + c * |a + -t * b| - 2 * (c * |a|)
      = 2 * t * (if a = 0 then c * |b| else 0) := by
  by_cases ha : a = 0
  · rw [if_pos ha, ha]
    have h1 : |0 + t * b| = t * |b| := by rw [zero_add, abs_mul, abs_of_pos ht]
    have h2 : |0 + -t * b| = t * |b| := by rw [zero_add, abs_mul, abs_neg, abs_of_pos ht]
    rw [h1, h2, abs_zero]
    ring
  · rw [if_neg ha]
    have hlt : |t * b| < |a| := by rw [abs_mul, abs_of_pos ht]; exact hsmall ha
    have hp := abs_pair a (t * b) hlt
    have e : a + -t * b = a - t * b := by ring
    rw [e]
    linear_combination c * hp

/-- Kink lemma: see the module docstring. -/
theorem kink {d m : ℕ} (c c' : Fin m → ℝ) (V V' : Fin m → Fin d → ℝ)
    (h : ∀ x : Fin d → ℝ, ∑ k, (c k * |dot (V k) x| - c' k * |dot (V' k) x|) = 0)
    (x0 u : Fin d → ℝ) :
    ∑ k, ((if dot (V k) x0 = 0 then c k * |dot (V k) u| else 0)
        - (if dot (V' k) x0 = 0 then c' k * |dot (V' k) u| else 0)) = 0 := by
  obtain ⟨t1, ht1, h1⟩ :=
    exists_small_step (List.finRange m) (fun k => dot (V k) x0) (fun k => dot (V k) u)
  obtain ⟨t2, ht2, h2⟩ :=
    exists_small_step (List.finRange m) (fun k => dot (V' k) x0) (fun k => dot (V' k) u)
  obtain ⟨t, ht, hsm1, hsm2⟩ : ∃ t : ℝ, 0 < t ∧
      (∀ k, dot (V k) x0 ≠ 0 → t * |dot (V k) u| < |dot (V k) x0|) ∧
      (∀ k, dot (V' k) x0 ≠ 0 → t * |dot (V' k) u| < |dot (V' k) x0|) :=
    ⟨min t1 t2, lt_min ht1 ht2,
      fun k hk => lt_of_le_of_lt (mul_le_mul_of_nonneg_right (min_le_left t1 t2) (abs_nonneg _))
        (h1 k (List.mem_finRange k) hk),
      fun k hk => lt_of_le_of_lt (mul_le_mul_of_nonneg_right (min_le_right t1 t2) (abs_nonneg _))
        (h2 k (List.mem_finRange k) hk)⟩
  have hp := h (fun j => x0 j + t * u j)
  have hm := h (fun j => x0 j + -t * u j)
  have h0 := h x0
  have term : ∀ k,
      (c k * |dot (V k) (fun j => x0 j + t * u j)| - c' k * |dot (V' k) (fun j => x0 j + t * u j)|)
      + (c k * |dot (V k) (fun j => x0 j + -t * u j)|
          - c' k * |dot (V' k) (fun j => x0 j + -t * u j)|)
      - 2 * (c k * |dot (V k) x0| - c' k * |dot (V' k) x0|)
      = 2 * t * ((if dot (V k) x0 = 0 then c k * |dot (V k) u| else 0)
          - (if dot (V' k) x0 = 0 then c' k * |dot (V' k) u| else 0)) := by
    intro k
    rw [dot_add_smul (V k) x0 u t, dot_add_smul (V' k) x0 u t,
      dot_add_smul (V k) x0 u (-t), dot_add_smul (V' k) x0 u (-t)]
    have e1 := second_difference (dot (V k) x0) (dot (V k) u) (c k) t ht (hsm1 k)
    have e2 := second_difference (dot (V' k) x0) (dot (V' k) u) (c' k) t ht (hsm2 k)
    linear_combination e1 - e2
  have hsum : ∑ k, 2 * t * ((if dot (V k) x0 = 0 then c k * |dot (V k) u| else 0)
          - (if dot (V' k) x0 = 0 then c' k * |dot (V' k) u| else 0))
      = ∑ k, (c k * |dot (V k) (fun j => x0 j + t * u j)|
                - c' k * |dot (V' k) (fun j => x0 j + t * u j)|)
        + ∑ k, (c k * |dot (V k) (fun j => x0 j + -t * u j)|
                - c' k * |dot (V' k) (fun j => x0 j + -t * u j)|)
        - 2 * ∑ k, (c k * |dot (V k) x0| - c' k * |dot (V' k) x0|) := by
    rw [Finset.mul_sum, ← Finset.sum_add_distrib, ← Finset.sum_sub_distrib]
    exact Finset.sum_congr rfl (fun k _ => (term k).symm)
  rw [hp, hm, h0, ← Finset.mul_sum] at hsum
  have hz : 2 * t * ∑ k, ((if dot (V k) x0 = 0 then c k * |dot (V k) u| else 0)
          - (if dot (V' k) x0 = 0 then c' k * |dot (V' k) u| else 0)) = 0 :=
    hsum.trans (by ring)
  rcases mul_eq_zero.mp hz with h2t | hs
  · exfalso; linarith
  · exact hs

/-! ## A point off finitely many hyperplanes inside `u`-perp -/

/-- The step of the construction: `y = v - (v ⬝ u / u ⬝ u) u` is orthogonal to `u` and has
`v ⬝ y = y ⬝ y`. -/
theorem orth_step {d : ℕ} (u v : Fin d → ℝ) (hu : 0 < dot u u) :
    ∃ (al : ℝ) (y : Fin d → ℝ), (∀ j, y j = v j + -al * u j) ∧ dot u y = 0 ∧
      dot v y = dot y y := by
  have hu0 : dot u u ≠ 0 := ne_of_gt hu
  obtain ⟨al, hal⟩ : ∃ al : ℝ, al * dot u u = dot v u :=
    ⟨dot v u / dot u u, by first | exact div_mul_cancel₀ (dot v u) hu0 | field_simp⟩
  have huy : dot u (fun j => v j + -al * u j) = 0 := by
    rw [dot_add_smul u v u (-al), dot_comm u v]
    linear_combination (-1 : ℝ) * hal
  refine ⟨al, fun j => v j + -al * u j, fun j => rfl, huy, ?_⟩
  rw [dot_add_smul_left v u (fun j => v j + -al * u j) (-al), huy]
  ring

/-- For `u ≠ 0` and a list `L` of vectors there is `x0` with `u ⬝ x0 = 0` on which every vector
of `L` that is not a multiple of `u` is nonzero. -/
theorem avoid_hyperplanes {d : ℕ} (u : Fin d → ℝ) (hu : 0 < dot u u) (L : List (Fin d → ℝ)) :
    ∃ x0 : Fin d → ℝ, dot u x0 = 0 ∧
      ∀ v ∈ L, dot v x0 = 0 → ∃ c : ℝ, ∀ j, v j = c * u j := by
  induction L with
  | nil =>
    refine ⟨fun _ => 0, ?_, fun v hv => by cases hv⟩
    simp only [dot, mul_zero, Finset.sum_const_zero]
  | cons v L ih =>
    obtain ⟨x, hux, hx⟩ := ih
    by_cases hvx : dot v x = 0
    · obtain ⟨al, y, hy, huy, hvy⟩ := orth_step u v hu
      by_cases hyy : dot y y = 0
      · -- `v` is a multiple of `u`: keep `x`
        refine ⟨x, hux, fun w hw hw0 => ?_⟩
        rcases List.mem_cons.mp hw with hwv | hw'
        · subst hwv
          refine ⟨al, fun j => ?_⟩
          have h1 := dot_self_zero y hyy j
          rw [hy j] at h1
          linarith
        · exact hx w hw' hw0
      · have hyy' : 0 < dot y y := lt_of_le_of_ne (dot_self_nonneg y) (Ne.symm hyy)
        obtain ⟨s, hs, hsmall⟩ :=
          exists_small_step L (fun w => dot w x) (fun w => dot w y)
        refine ⟨fun j => x j + s * y j, ?_, fun w hw hw0 => ?_⟩
        · rw [dot_add_smul u x y s, hux, huy]
          ring
        · rw [dot_add_smul w x y s] at hw0
          rcases List.mem_cons.mp hw with hwv | hw'
          · subst hwv
            exfalso
            rw [hvx, hvy] at hw0
            have : 0 < s * dot y y := mul_pos hs hyy'
            linarith
          · by_cases hwx : dot w x = 0
            · exact hx w hw' hwx
            · exfalso
              have hlt : s * |dot w y| < |dot w x| := hsmall w hw' hwx
              have e : dot w x = -(s * dot w y) := by linarith
              rw [e, abs_neg, abs_mul, abs_of_pos hs] at hlt
              exact lt_irrefl _ hlt
    · refine ⟨x, hux, fun w hw hw0 => ?_⟩
      rcases List.mem_cons.mp hw with hwv | hw'
      · subst hwv
        exact absurd hw0 hvx
      · exact hx w hw' hw0

/-- For the line of `u_l`: a point on the kink hyperplane of unit `l` only, on which a row of
`W'_up` vanishes only when it is a multiple of `u_l`. -/
theorem line_point {d m : ℕ} (Wu Wu' : Fin m → Fin d → ℝ) (hnz : rows_nonzero Wu)
    (hnc : rows_noncollinear Wu) (l : Fin m) :
    ∃ x0 : Fin d → ℝ, dot (Wu l) x0 = 0 ∧ (∀ k, dot (Wu k) x0 = 0 → k = l) ∧
      (∀ k, dot (Wu' k) x0 = 0 → ∃ c : ℝ, ∀ j, Wu' k j = c * Wu l j) := by
  have hu : 0 < dot (Wu l) (Wu l) := dot_self_pos (Wu l) (hnz l)
  obtain ⟨x0, hux, hx⟩ :=
    avoid_hyperplanes (Wu l) hu ((List.finRange m).map Wu ++ (List.finRange m).map Wu')
  refine ⟨x0, hux, fun k hk => ?_, fun k hk => ?_⟩
  · by_contra hne
    obtain ⟨c, hc⟩ := hx (Wu k)
      (List.mem_append.mpr (Or.inl (List.mem_map.mpr ⟨k, List.mem_finRange k, rfl⟩))) hk
    exact hnc l k (Ne.symm hne) ⟨c, hc⟩
  · exact hx (Wu' k)
      (List.mem_append.mpr (Or.inr (List.mem_map.mpr ⟨k, List.mem_finRange k, rfl⟩))) hk

/-- The kink identity along the line of `u_l`, in output coordinate `i`. -/
theorem kink_equation {d m : ℕ} (Wd : Fin d → Fin m → ℝ) (Wu : Fin m → Fin d → ℝ)
    (Wd' : Fin d → Fin m → ℝ) (Wu' : Fin m → Fin d → ℝ) (l : Fin m) (x0 : Fin d → ℝ) (i : Fin d)
    (heven : ∀ x, ∑ k, (Wd i k * |dot (Wu k) x| - Wd' i k * |dot (Wu' k) x|) = 0)
    (hl0 : dot (Wu l) x0 = 0) (honly : ∀ k, dot (Wu k) x0 = 0 → k = l) :
    Wd i l * dot (Wu l) (Wu l) =
      ∑ k, (if dot (Wu' k) x0 = 0 then Wd' i k * |dot (Wu' k) (Wu l)| else 0) := by
  have K := kink (Wd i) (Wd' i) Wu Wu' heven x0 (Wu l)
  rw [Finset.sum_sub_distrib] at K
  have hfirst : ∑ k, (if dot (Wu k) x0 = 0 then Wd i k * |dot (Wu k) (Wu l)| else 0)
      = Wd i l * dot (Wu l) (Wu l) := by
    rw [Fintype.sum_eq_single l]
    · rw [if_pos hl0, abs_of_nonneg (dot_self_nonneg (Wu l))]
    · intro k hk
      rw [if_neg (fun h => hk (honly k h))]
  linarith

/-! ## The structure theorem, relu necessity, and the iff -/

theorem relu_necessity_structure {d m : ℕ} (M : Fin d → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ)
    (Wu : Fin m → Fin d → ℝ) (Wd' : Fin d → Fin m → ℝ) (Wu' : Fin m → Fin d → ℝ)
    (nondegenerate : nondegenerate_block Wd Wu)
    (absorbed : ∀ (x : Fin d → ℝ) (i : Fin d),
      skip M x i + ungated relu Wu Wd x i = ungated relu Wu' Wd' x i) :
    ∃ (p : Fin m → Fin m) (lam : Fin m → ℝ), Function.Bijective p ∧ (∀ l, lam l ≠ 0) ∧
      (∀ l j, Wu' (p l) j = lam l * Wu l j) ∧ (∀ i l, Wd' i (p l) = Wd i l / |lam l|) ∧
      ∃ S : Fin m → Bool, (∀ l, S l = true ↔ lam l < 0) ∧ index_condition_holds S M Wd Wu := by
  obtain ⟨hnz, hnc, hcol⟩ := nondegenerate
  have heven := even_identity M Wd Wu Wd' Wu' absorbed
  have hodd := odd_identity M Wd Wu Wd' Wu' absorbed
  -- Step 1: every line of `B` carries a unit of `B'`.
  have hcarry : ∀ l, ∃ k : Fin m, ∃ c : ℝ, c ≠ 0 ∧ ∀ j, Wu' k j = c * Wu l j := by
    intro l
    obtain ⟨x0, hl0, honly, hcoll⟩ := line_point Wu Wu' hnz hnc l
    obtain ⟨i, hi⟩ := hcol l
    have K := kink_equation Wd Wu Wd' Wu' l x0 i (heven i) hl0 honly
    have hu : 0 < dot (Wu l) (Wu l) := dot_self_pos (Wu l) (hnz l)
    have hne : Wd i l * dot (Wu l) (Wu l) ≠ 0 := mul_ne_zero hi (ne_of_gt hu)
    rw [K] at hne
    obtain ⟨k, -, hk⟩ := Finset.exists_ne_zero_of_sum_ne_zero hne
    have hk' : (if dot (Wu' k) x0 = 0 then Wd' i k * |dot (Wu' k) (Wu l)| else 0) ≠ 0 := hk
    by_cases hk0 : dot (Wu' k) x0 = 0
    · obtain ⟨c, hc⟩ := hcoll k hk0
      refine ⟨k, c, fun hc0 => hk' ?_, hc⟩
      rw [if_pos hk0, dot_collinear_row Wu' k c (Wu l) (Wu l) hc, hc0, zero_mul, abs_zero,
        mul_zero]
    · exact (hk' (if_neg hk0)).elim
  choose p lam hlam hrow using hcarry
  -- Step 2: two lines of `B` never share a unit of `B'`, so `p` is a bijection.
  have hsame : ∀ l l' c, (∀ j, Wu' (p l') j = c * Wu l j) → l' = l := by
    intro l l' c hc
    by_contra hne
    apply hnc l l' (Ne.symm hne)
    refine ⟨c * (lam l')⁻¹, fun j => ?_⟩
    have e : lam l' * Wu l' j = c * Wu l j := by rw [← hrow l' j]; exact hc j
    calc Wu l' j = (lam l')⁻¹ * (lam l' * Wu l' j) := by
          rw [← mul_assoc, inv_mul_cancel₀ (hlam l'), one_mul]
      _ = (lam l')⁻¹ * (c * Wu l j) := by rw [e]
      _ = c * (lam l')⁻¹ * Wu l j := by ring
  have hinj : Function.Injective p := by
    intro l l' h
    exact (hsame l l' (lam l) (fun j => by rw [← h]; exact hrow l j)).symm
  have hbij : Function.Bijective p := ⟨hinj, Finite.injective_iff_surjective.mp hinj⟩
  -- Step 3: the kink identity gives `w_l = |lam_l| w'_(p l)`.
  have hcol' : ∀ i l, Wd i l = |lam l| * Wd' i (p l) := by
    intro i l
    obtain ⟨x0, hl0, honly, hcoll⟩ := line_point Wu Wu' hnz hnc l
    have K := kink_equation Wd Wu Wd' Wu' l x0 i (heven i) hl0 honly
    have hu : 0 < dot (Wu l) (Wu l) := dot_self_pos (Wu l) (hnz l)
    have hsum : ∑ k, (if dot (Wu' k) x0 = 0 then Wd' i k * |dot (Wu' k) (Wu l)| else 0)
        = Wd' i (p l) * (|lam l| * dot (Wu l) (Wu l)) := by
      rw [Fintype.sum_eq_single (p l)]
      · have h0 : dot (Wu' (p l)) x0 = 0 := by
          rw [dot_collinear_row Wu' (p l) (lam l) (Wu l) x0 (hrow l), hl0, mul_zero]
        rw [if_pos h0, dot_collinear_row Wu' (p l) (lam l) (Wu l) (Wu l) (hrow l), abs_mul,
          abs_of_nonneg (dot_self_nonneg (Wu l))]
      · intro k hk
        by_cases hk0 : dot (Wu' k) x0 = 0
        · exfalso
          obtain ⟨l'', hl''⟩ := hbij.2 k
          subst hl''
          obtain ⟨c, hc⟩ := hcoll (p l'') hk0
          exact hk (by rw [hsame l l'' c hc])
        · exact if_neg hk0
    have h2 : Wd i l * dot (Wu l) (Wu l) = (|lam l| * Wd' i (p l)) * dot (Wu l) (Wu l) := by
      rw [K, hsum]; ring
    exact mul_right_cancel₀ (ne_of_gt hu) h2
  -- Step 4: the odd parts give the index condition for `S = {l | lam l < 0}`.
  obtain ⟨S, hS⟩ : ∃ S : Fin m → Bool, ∀ l, S l = true ↔ lam l < 0 :=
    ⟨fun l => decide (lam l < 0), fun l => by simp⟩
  refine ⟨p, lam, hbij, hlam, hrow, fun i l => ?_, S, hS, ?_⟩
  · have habs : |lam l| ≠ 0 := abs_ne_zero.mpr (hlam l)
    rw [hcol' i l, mul_comm, mul_div_assoc, div_self habs, mul_one]
  · intro i j
    have h := hodd (fun l => if j = l then (1 : ℝ) else 0) i
    have hM : skip M (fun l => if j = l then (1 : ℝ) else 0) i = M i j := dot_unit (M i) j
    have h1 : ∑ l, Wd i l * dot (Wu l) (fun l => if j = l then (1 : ℝ) else 0)
        = ∑ l, Wd i l * Wu l j :=
      Finset.sum_congr rfl (fun l _ => by rw [dot_unit])
    have h2 : ∑ k, Wd' i k * dot (Wu' k) (fun l => if j = l then (1 : ℝ) else 0)
        = ∑ k, Wd' i k * Wu' k j :=
      Finset.sum_congr rfl (fun k _ => by rw [dot_unit])
    have hre : ∑ k, Wd' i k * Wu' k j = ∑ l, Wd' i (p l) * Wu' (p l) j :=
      (hbij.sum_comp (fun k => Wd' i k * Wu' k j)).symm
    have h3 : ∑ l, Wd' i (p l) * Wu' (p l) j
        = ∑ l, Wd i l * Wu l j - 2 * ∑ l, (if S l then Wd i l * Wu l j else 0) := by
      rw [Finset.mul_sum, ← Finset.sum_sub_distrib]
      refine Finset.sum_congr rfl (fun l _ => ?_)
      rw [hrow l j]
      have hw := hcol' i l
      by_cases hneg : lam l < 0
      · rw [if_pos ((hS l).mpr hneg)]
        rw [abs_of_neg hneg] at hw
        rw [hw]; ring
      · rw [if_neg (fun h' => hneg ((hS l).mp h'))]
        rw [abs_of_nonneg (not_lt.mp hneg)] at hw
        rw [hw]; ring
    rw [hM, h1, h2] at h
    linarith

/-- Necessity (Thm. 8, relu): a nondegenerate relu block that absorbs the skip `M` at the same
width satisfies the index condition for some `S`. Any `d`, any `M`. -/
theorem relu_necessity {d m : ℕ} (M : Fin d → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ)
    (Wu : Fin m → Fin d → ℝ) (Wd' : Fin d → Fin m → ℝ) (Wu' : Fin m → Fin d → ℝ)
    (nondegenerate : nondegenerate_block Wd Wu)
    (absorbed : ∀ (x : Fin d → ℝ) (i : Fin d),
      skip M x i + ungated relu Wu Wd x i = ungated relu Wu' Wd' x i) :
    ∃ S : Fin m → Bool, index_condition_holds S M Wd Wu := by
  obtain ⟨_, _, _, _, _, _, S, _, hS⟩ :=
    relu_necessity_structure M Wd Wu Wd' Wu' nondegenerate absorbed
  exact ⟨S, hS⟩

/-- The linear term of the selected units: `∑_{l ∈ S} w_il (u_l ⬝ x) = -(M x)_i`. -/
theorem selected_term {d m : ℕ} (M : Fin d → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ)
    (Wu : Fin m → Fin d → ℝ) (S : Fin m → Bool)
    (index_condition : index_condition_holds S M Wd Wu) (x : Fin d → ℝ) (i : Fin d) :
    ∑ l, (if S l then Wd i l * dot (Wu l) x else 0) = -skip M x i := by
  have e1 : ∀ l ∈ Finset.univ, (if S l then Wd i l * dot (Wu l) x else 0)
      = ∑ j, (if S l then Wd i l * Wu l j else 0) * x j := by
    intro l _
    by_cases hl : S l = true
    · rw [if_pos hl]
      simp only [dot]
      rw [Finset.mul_sum]
      exact Finset.sum_congr rfl (fun j _ => by rw [if_pos hl]; ring)
    · rw [if_neg hl]
      symm
      exact Finset.sum_eq_zero (fun j _ => by rw [if_neg hl]; ring)
  rw [Finset.sum_congr rfl e1, Finset.sum_comm]
  show _ = -∑ j, M i j * x j
  rw [← Finset.sum_neg_distrib]
  exact Finset.sum_congr rfl (fun j _ => by rw [← Finset.sum_mul, index_condition i j]; ring)

/-- Sufficiency for relu: negating the rows of `W_up` in `S` absorbs the skip. -/
theorem relu_sign_flip {d m : ℕ} (M : Fin d → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ)
    (Wu : Fin m → Fin d → ℝ) (S : Fin m → Bool)
    (index_condition : index_condition_holds S M Wd Wu) :
    ∀ (x : Fin d → ℝ) (i : Fin d),
      skip M x i + ungated relu Wu Wd x i = ungated relu (flip_rows S Wu) Wd x i := by
  intro x i
  have hsel := selected_term M Wd Wu S index_condition x i
  have e : ∀ l ∈ Finset.univ, Wd i l * relu (dot (flip_rows S Wu l) x)
      = Wd i l * relu (dot (Wu l) x) - (if S l then Wd i l * dot (Wu l) x else 0) := by
    intro l _
    by_cases hl : S l = true
    · have hf : dot (flip_rows S Wu l) x = -dot (Wu l) x := by
        simp only [dot]
        rw [← Finset.sum_neg_distrib]
        exact Finset.sum_congr rfl (fun j _ => by rw [flip_rows, if_pos hl]; ring)
      rw [hf, if_pos hl]
      have h1 := relu_odd (dot (Wu l) x)
      linear_combination (-Wd i l) * h1
    · have hf : dot (flip_rows S Wu l) x = dot (Wu l) x := by
        simp only [dot]
        exact Finset.sum_congr rfl (fun j _ => by rw [flip_rows, if_neg hl])
      rw [hf, if_neg hl]
      ring
  have lhs : ungated relu (flip_rows S Wu) Wd x i
      = ∑ l, Wd i l * relu (dot (flip_rows S Wu l) x) := rfl
  have rhs : ungated relu Wu Wd x i = ∑ l, Wd i l * relu (dot (Wu l) x) := rfl
  rw [lhs, rhs, Finset.sum_congr rfl e, Finset.sum_sub_distrib, hsel]
  ring

/-- Thm. 8 for relu, both directions. -/
theorem relu_iff {d m : ℕ} (M : Fin d → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ)
    (Wu : Fin m → Fin d → ℝ) (nondegenerate : nondegenerate_block Wd Wu) :
    (∃ (Wd' : Fin d → Fin m → ℝ) (Wu' : Fin m → Fin d → ℝ), ∀ (x : Fin d → ℝ) (i : Fin d),
      skip M x i + ungated relu Wu Wd x i = ungated relu Wu' Wd' x i) ↔
    ∃ S : Fin m → Bool, index_condition_holds S M Wd Wu := by
  constructor
  · rintro ⟨Wd', Wu', absorbed⟩
    exact relu_necessity M Wd Wu Wd' Wu' nondegenerate absorbed
  · rintro ⟨S, index_condition⟩
    exact ⟨Wd, flip_rows S Wu, relu_sign_flip M Wd Wu S index_condition⟩

/-! ## Instance: `x ↦ x + relu x` in dimension 2 is no relu block of width 2 -/

/-- The 2 x 2 identity matrix. -/
noncomputable def ident2 (i j : Fin 2) : ℝ := if i = j then 1 else 0

theorem dot_ident2 (l : Fin 2) (y : Fin 2 → ℝ) : dot (ident2 l) y = y l := by
  rw [dot_comm]
  exact dot_unit y l

theorem ident2_nondegenerate : nondegenerate_block ident2 ident2 := by
  refine ⟨fun l => ⟨l, ?_⟩, fun l l' hne => ?_, fun l => ⟨l, ?_⟩⟩
  · simp [ident2]
  · rintro ⟨c, hc⟩
    have h := hc l'
    simp [ident2, hne] at h
  · simp [ident2]

theorem ungated_ident2 (σ : ℝ → ℝ) (x : Fin 2 → ℝ) (i : Fin 2) :
    ungated σ ident2 ident2 x i = σ (x i) := by
  show ∑ l, ident2 i l * σ (dot (ident2 l) x) = σ (x i)
  have hr : ∀ l ∈ Finset.univ, ident2 i l * σ (dot (ident2 l) x) = ident2 i l * σ (x l) :=
    fun l _ => by rw [dot_ident2 l x]
  rw [Finset.sum_congr rfl hr]
  exact dot_ident2 i (fun l => σ (x l))

/-- In dimension 2, `x ↦ x + relu x` (coordinate-wise: `W_up = W_down = I`, `M = I`) equals
no relu block of width 2: the index condition would need the `(0, 0)` entry of
`W_down[:,S] W_up[S,:]`, which is 0 or 1, to be `-1`. -/
theorem relu_not_absorbable_instance :
    ¬ ∃ (Wd' : Fin 2 → Fin 2 → ℝ) (Wu' : Fin 2 → Fin 2 → ℝ),
      ∀ (x : Fin 2 → ℝ) (i : Fin 2), x i + relu (x i) = ungated relu Wu' Wd' x i := by
  rintro ⟨Wd', Wu', h⟩
  have absorbed : ∀ (x : Fin 2 → ℝ) (i : Fin 2),
      skip ident2 x i + ungated relu ident2 ident2 x i = ungated relu Wu' Wd' x i := by
    intro x i
    have e1 : skip ident2 x i = x i := dot_ident2 i x
    rw [e1, ungated_ident2]
    exact h x i
  obtain ⟨S, hS⟩ := relu_necessity ident2 ident2 ident2 Wd' Wu' ident2_nondegenerate absorbed
  have h00 := hS 0 0
  have hnonneg : 0 ≤ ∑ l, (if S l then ident2 0 l * ident2 l 0 else 0) :=
    Finset.sum_nonneg (fun l _ => by unfold ident2; split_ifs <;> norm_num)
  have h1 : ident2 0 0 = 1 := by unfold ident2; exact if_pos rfl
  linarith

end SkipAbsorption
