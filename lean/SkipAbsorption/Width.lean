import SkipAbsorption.Necessity

/-!
# `m + d` units absorb any skip (claim `absorption-width`, the upper bound)

Mirror of `SignFlip.extra_units_absorb` and `Width.extra_units_absorb_M` in `proofs/coq/`.
Given `d` rows `u_(idx 0), …, u_(idx (d-1))` of `W_up` and vectors `b_0, …, b_(d-1)` with
`∑_k b_k u_(idx k)^T = -M` (such rows and vectors exist iff the rows of `W_up` span `ℝ^d`), the
block of width `m + d` below equals `x ↦ M x + B x` for every `σ` with `σ z - σ (-z) = z`:

* unit `l < m` keeps the row `u_l` and gets the output column `w_l - ∑_(k : idx k = l) b_k`;
* unit `m + k` gets the row `-u_(idx k)` and the output column `b_k`.

Since `σ (-z) = σ z - z`, the pair `(l, m + k)` with `l = idx k` contributes
`-b_k σ(u_l ⬝ x) + b_k σ(-u_l ⬝ x) = -b_k (u_l ⬝ x)`, and these add up to `M x`.

The rank step (choosing the `d` rows from `rank W_up = d`, `Width.rank_step` and
`Width.basis_extraction` in Coq) is not mirrored: here the rows and the vectors `b_k` are given.

Written, not compiled in this environment (no Lean toolchain); every name used is declared
in `lean/` or listed in `lean/external-names.txt`.
-/

namespace SkipAbsorption

/-- The rows of the width-`m + d` block: `u_l` for `l < m`, `-u_(idx k)` for `l = m + k`. -/
noncomputable def ext_up {d m : ℕ} (idx : Fin d → Fin m) (Wu : Fin m → Fin d → ℝ)
    (l : Fin (m + d)) (j : Fin d) : ℝ :=
  if h : l.val < m then Wu ⟨l.val, h⟩ j
  else -Wu (idx ⟨l.val - m, by have hl := l.isLt; omega⟩) j

/-- The output columns of the width-`m + d` block: `w_l - ∑_(k : idx k = l) b_k` for `l < m`,
`b_k` for `l = m + k` (`b k i` is the `i`-th entry of `b_k`). -/
noncomputable def ext_down {d m : ℕ} (idx : Fin d → Fin m) (b : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (i : Fin d) (l : Fin (m + d)) : ℝ :=
  if h : l.val < m then Wd i ⟨l.val, h⟩ - ∑ k, (if idx k = ⟨l.val, h⟩ then b k i else 0)
  else b ⟨l.val - m, by have hl := l.isLt; omega⟩ i

theorem ext_up_left {d m : ℕ} (idx : Fin d → Fin m) (Wu : Fin m → Fin d → ℝ) (l : Fin m)
    (j : Fin d) : ext_up idx Wu (Fin.castAdd d l) j = Wu l j := by
  have h : (Fin.castAdd d l).val < m := l.isLt
  unfold ext_up
  rw [dif_pos h]
  try rfl

theorem ext_up_right {d m : ℕ} (idx : Fin d → Fin m) (Wu : Fin m → Fin d → ℝ) (k : Fin d)
    (j : Fin d) : ext_up idx Wu (Fin.natAdd m k) j = -Wu (idx k) j := by
  have h : ¬ (Fin.natAdd m k).val < m := by
    show ¬ m + k.val < m
    omega
  unfold ext_up
  rw [dif_neg h]
  have hk : ∀ p : Fin d, p.val = k.val → -Wu (idx p) j = -Wu (idx k) j := by
    intro p hp
    rw [Fin.ext hp]
  apply hk
  show m + k.val - m = k.val
  omega

theorem ext_down_left {d m : ℕ} (idx : Fin d → Fin m) (b : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (i : Fin d) (l : Fin m) :
    ext_down idx b Wd i (Fin.castAdd d l) = Wd i l - ∑ k, (if idx k = l then b k i else 0) := by
  have h : (Fin.castAdd d l).val < m := l.isLt
  unfold ext_down
  rw [dif_pos h]
  try rfl

theorem ext_down_right {d m : ℕ} (idx : Fin d → Fin m) (b : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (i : Fin d) (k : Fin d) :
    ext_down idx b Wd i (Fin.natAdd m k) = b k i := by
  have h : ¬ (Fin.natAdd m k).val < m := by
    show ¬ m + k.val < m
    omega
  unfold ext_down
  rw [dif_neg h]
  have hk : ∀ p : Fin d, p.val = k.val → b p i = b k i := by
    intro p hp
    rw [Fin.ext hp]
  apply hk
  show m + k.val - m = k.val
  omega

/-- Selecting the units `l = idx k`: `∑_l [idx k = l] c f(l) = c f(idx k)`. -/
theorem sum_select {d m : ℕ} (idx : Fin d → Fin m) (k : Fin d) (c : ℝ) (f : Fin m → ℝ) :
    ∑ l, (if idx k = l then c else 0) * f l = c * f (idx k) := by
  rw [Fintype.sum_eq_single (idx k)]
  · rw [if_pos rfl]
  · intro l hl
    rw [if_neg (fun h => hl h.symm), zero_mul]

/-- `absorption-width`, upper bound, for any skip matrix `M`: with `d` rows `u_(idx k)` and
vectors `b_k` solving `∑_k b_k u_(idx k)^T = -M`, the block of width `m + d` built from
`ext_up`, `ext_down` equals `x ↦ M x + B x`. -/
theorem extra_units_absorb_M {d m : ℕ} {σ : ℝ → ℝ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wu : Fin m → Fin d → ℝ) (idx : Fin d → Fin m)
    (b : Fin d → Fin d → ℝ)
    (sigma_odd_part : ∀ z : ℝ, σ z - σ (-z) = z)
    (index_solution : ∀ i j : Fin d, ∑ k, b k i * Wu (idx k) j = -M i j) :
    ∀ (x : Fin d → ℝ) (i : Fin d),
      skip M x i + ungated σ Wu Wd x i
        = ungated σ (ext_up idx Wu) (ext_down idx b Wd) x i := by
  intro x i
  have hup_l : ∀ l : Fin m, dot (ext_up idx Wu (Fin.castAdd d l)) x = dot (Wu l) x := by
    intro l
    simp only [dot]
    exact Finset.sum_congr rfl (fun j _ => by rw [ext_up_left])
  have hup_r : ∀ k : Fin d, dot (ext_up idx Wu (Fin.natAdd m k)) x = -dot (Wu (idx k)) x := by
    intro k
    simp only [dot]
    rw [← Finset.sum_neg_distrib]
    exact Finset.sum_congr rfl (fun j _ => by rw [ext_up_right]; ring)
  -- the first m units
  have e1 : ∀ l ∈ (Finset.univ : Finset (Fin m)),
      ext_down idx b Wd i (Fin.castAdd d l) * σ (dot (ext_up idx Wu (Fin.castAdd d l)) x)
        = Wd i l * σ (dot (Wu l) x)
          - ∑ k, (if idx k = l then b k i else 0) * σ (dot (Wu l) x) := by
    intro l _
    rw [ext_down_left, hup_l l, sub_mul, Finset.sum_mul]
  have h1 : ∑ l : Fin m, ∑ k, (if idx k = l then b k i else 0) * σ (dot (Wu l) x)
      = ∑ k, b k i * σ (dot (Wu (idx k)) x) := by
    rw [Finset.sum_comm]
    exact Finset.sum_congr rfl (fun k _ => sum_select idx k (b k i) (fun l => σ (dot (Wu l) x)))
  -- the d extra units
  have e2 : ∀ k ∈ (Finset.univ : Finset (Fin d)),
      ext_down idx b Wd i (Fin.natAdd m k) * σ (dot (ext_up idx Wu (Fin.natAdd m k)) x)
        = b k i * σ (dot (Wu (idx k)) x) - b k i * dot (Wu (idx k)) x := by
    intro k _
    rw [ext_down_right, hup_r k]
    have hodd := sigma_odd_part (dot (Wu (idx k)) x)
    linear_combination (-(b k i)) * hodd
  -- the linear term is -M x
  have hlin : ∑ k, b k i * dot (Wu (idx k)) x = -skip M x i := by
    have e3 : ∀ k ∈ (Finset.univ : Finset (Fin d)), b k i * dot (Wu (idx k)) x
        = ∑ j, b k i * Wu (idx k) j * x j := by
      intro k _
      simp only [dot]
      rw [Finset.mul_sum]
      exact Finset.sum_congr rfl (fun j _ => by ring)
    rw [Finset.sum_congr rfl e3, Finset.sum_comm]
    show _ = -∑ j, M i j * x j
    rw [← Finset.sum_neg_distrib]
    exact Finset.sum_congr rfl (fun j _ => by rw [← Finset.sum_mul, index_solution i j]; ring)
  have lhs : ungated σ Wu Wd x i = ∑ l, Wd i l * σ (dot (Wu l) x) := rfl
  have rhs : ungated σ (ext_up idx Wu) (ext_down idx b Wd) x i
      = ∑ l, ext_down idx b Wd i l * σ (dot (ext_up idx Wu l) x) := rfl
  rw [lhs, rhs, Fin.sum_univ_add, Finset.sum_congr rfl e1, Finset.sum_sub_distrib, h1,
    Finset.sum_congr rfl e2, Finset.sum_sub_distrib, hlin]
  ring

end SkipAbsorption
