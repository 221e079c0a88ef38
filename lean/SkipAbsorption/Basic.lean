import Mathlib

/-!
# Blocks with and without a skip connection

Vectors are functions `Fin d → ℝ` and matrices are functions of two indices, so every
product below is an explicit finite sum (`Finset.univ`); no matrix library is needed.

* `skip M x`               : the linear skip branch, `(M x)_i = ∑_l M i l * x l`.
* `ungated σ Wu Wd x`      : `x ↦ W_down σ(W_up x)` with `σ` applied entrywise.
* `gated g Wg Wu Wd x`     : `x ↦ W_down (g(W_gate x) ⊙ W_up x)`.

The lemmas here are the scaling identities used by the impossibility proofs: the value of a
block on a scaled input `t • x`, written `fun l => t * x l`.
-/

namespace SkipAbsorption

/-- The skip branch `x ↦ M x`, written as a finite sum. -/
def skip {d : ℕ} (M : Fin d → Fin d → ℝ) (x : Fin d → ℝ) : Fin d → ℝ :=
  fun i => ∑ l, M i l * x l

/-- The residual-free ungated block `x ↦ W_down σ(W_up x)` of hidden width `m`. -/
def ungated {d m : ℕ} (σ : ℝ → ℝ) (Wu : Fin m → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ)
    (x : Fin d → ℝ) : Fin d → ℝ :=
  fun i => ∑ j, Wd i j * σ (∑ l, Wu j l * x l)

/-- The residual-free gated block `x ↦ W_down (g(W_gate x) ⊙ W_up x)` of hidden width `m`. -/
def gated {d m : ℕ} (g : ℝ → ℝ) (Wg Wu : Fin m → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ)
    (x : Fin d → ℝ) : Fin d → ℝ :=
  fun i => ∑ j, Wd i j * (g (∑ l, Wg j l * x l) * ∑ l, Wu j l * x l)

/-- Pulling a scalar out of a dot product. -/
theorem sum_mul_scale {n : ℕ} (a x : Fin n → ℝ) (t : ℝ) :
    ∑ l, a l * (t * x l) = t * ∑ l, a l * x l := by
  rw [Finset.mul_sum]
  apply Finset.sum_congr rfl
  intro l _
  ring

/-- The skip branch is linear: scaling the input scales the output. -/
theorem skip_scale {d : ℕ} (M : Fin d → Fin d → ℝ) (x : Fin d → ℝ) (t : ℝ) (i : Fin d) :
    skip M (fun l => t * x l) i = t * skip M x i := by
  show ∑ l, M i l * (t * x l) = t * ∑ l, M i l * x l
  exact sum_mul_scale (M i) x t

/-- If the activation is positively homogeneous of degree `k`, so is the ungated block. -/
theorem ungated_scale {d m : ℕ} {k : ℝ} {σ : ℝ → ℝ}
    (Wu : Fin m → Fin d → ℝ) (Wd : Fin d → Fin m → ℝ)
    (hσ : ∀ t z : ℝ, 0 < t → σ (t * z) = t ^ k * σ z) {t : ℝ} (ht : 0 < t)
    (x : Fin d → ℝ) (i : Fin d) :
    ungated σ Wu Wd (fun l => t * x l) i = t ^ k * ungated σ Wu Wd x i := by
  show ∑ j, Wd i j * σ (∑ l, Wu j l * (t * x l))
      = t ^ k * ∑ j, Wd i j * σ (∑ l, Wu j l * x l)
  rw [Finset.mul_sum]
  apply Finset.sum_congr rfl
  intro j _
  rw [sum_mul_scale (Wu j) x t, hσ t _ ht]
  exact mul_left_comm _ _ _

/-- A gated block on the ray `t • v`: one factor `t` comes out of the value branch, the
gate still sees the scaled pre-activation. -/
theorem gated_ray {d m : ℕ} (g : ℝ → ℝ) (Wg Wu : Fin m → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (t : ℝ) (v : Fin d → ℝ) (i : Fin d) :
    gated g Wg Wu Wd (fun l => t * v l) i
      = t * ∑ j, Wd i j * (g (t * ∑ l, Wg j l * v l) * ∑ l, Wu j l * v l) := by
  show ∑ j, Wd i j * (g (∑ l, Wg j l * (t * v l)) * ∑ l, Wu j l * (t * v l))
      = t * ∑ j, Wd i j * (g (t * ∑ l, Wg j l * v l) * ∑ l, Wu j l * v l)
  rw [Finset.mul_sum]
  apply Finset.sum_congr rfl
  intro j _
  rw [sum_mul_scale (Wg j) v t, sum_mul_scale (Wu j) v t]
  ring

/-- A nonzero matrix moves some vector: some coordinate of `M v` is nonzero
(take `v` a standard basis vector). -/
theorem exists_skip_ne_zero {d : ℕ} (M : Fin d → Fin d → ℝ) (hM : M ≠ 0) :
    ∃ v : Fin d → ℝ, ∃ i : Fin d, skip M v i ≠ 0 := by
  by_contra hcon
  apply hM
  funext i j
  have h1 : skip M (fun l => if j = l then 1 else 0) i = 0 := by
    by_contra hne
    exact hcon ⟨_, i, hne⟩
  have h2 : skip M (fun l => if j = l then 1 else 0) i = M i j := by
    show ∑ l, M i l * (if j = l then 1 else 0) = M i j
    first
      | (rw [Finset.sum_mul_boole, if_pos (Finset.mem_univ j)]; done)
      | simp
  show M i j = 0
  exact h2.symm.trans h1

/-- The scalar core of the degree argument: if `s + b = b'` and `2 s + c b = c b'` with
`c ≠ 2`, then `s = 0`. -/
theorem linear_part_zero {c s b b' : ℝ} (h1 : s + b = b') (h2 : 2 * s + c * b = c * b')
    (hc : c ≠ 2) : s = 0 := by
  have h3 : (2 - c) * s = 0 := by linear_combination h2 - c * h1
  have h4 : (2 - c) ≠ 0 := fun h => hc (by linarith)
  rcases mul_eq_zero.mp h3 with h5 | h5
  · exact absurd h5 h4
  · exact h5

end SkipAbsorption
