import SkipAbsorption.BiasedFlip

/-!
# The gate flip for bias-free gated blocks (claim `glu-flip`)

Mirror of `SignFlip.glu_flip` and `Activations.sigmoid_glu_flip` in `proofs/coq/`.
For a gate with `g z + g (-z) = 1` (the sigmoid), negating the gate rows in `S` and the output
columns in `S` changes unit `l ∈ S` from `w_l g(a_l ⬝ x) (u_l ⬝ x)` to
`-w_l (1 - g(a_l ⬝ x)) (u_l ⬝ x)`, i.e. it removes `w_l (u_l ⬝ x)`; summed over `S` that is
`W_down[:,S] W_up[S,:] x`, which is `-M x` under the index condition.

Written, not compiled in this environment (no Lean toolchain); every name used is declared
in `lean/` or listed in `lean/external-names.txt`.
-/

namespace SkipAbsorption

/-- For a gate with `g z + g (-z) = 1` and `W_down[:,S] W_up[S,:] = -M`, the gated block with
the gate rows and the output columns in `S` negated equals `x ↦ M x + B x`. -/
theorem glu_flip {d m : ℕ} {g : ℝ → ℝ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wg Wu : Fin m → Fin d → ℝ) (S : Fin m → Bool)
    (gate_flip_symmetry : ∀ z : ℝ, g z + g (-z) = 1)
    (index_condition : index_condition_holds S M Wd Wu) :
    ∀ (x : Fin d → ℝ) (i : Fin d),
      skip M x i + gated g Wg Wu Wd x i = gated g (flip_rows S Wg) Wu (flip_cols S Wd) x i := by
  intro x i
  have hunit : ∀ l ∈ (Finset.univ : Finset (Fin m)),
      flip_cols S Wd i l * (g (dot (flip_rows S Wg l) x) * dot (Wu l) x)
        = Wd i l * (g (dot (Wg l) x) * dot (Wu l) x)
          - (if S l then Wd i l * dot (Wu l) x else 0) := by
    intro l _
    by_cases hl : S l = true
    · have hpre : dot (flip_rows S Wg l) x = -dot (Wg l) x := dot_flip_rows_pos S Wg l x hl
      have hc : flip_cols S Wd i l = -Wd i l := by rw [flip_cols, if_pos hl]
      rw [hpre, hc, if_pos hl]
      have hsym := gate_flip_symmetry (dot (Wg l) x)
      linear_combination (-(Wd i l) * dot (Wu l) x) * hsym
    · have hpre : dot (flip_rows S Wg l) x = dot (Wg l) x := dot_flip_rows_neg S Wg l x hl
      have hc : flip_cols S Wd i l = Wd i l := by rw [flip_cols, if_neg hl]
      rw [hpre, hc, if_neg hl]
      ring
  have hsel := selected_term M Wd Wu S index_condition x i
  have lhs : gated g Wg Wu Wd x i = ∑ l, Wd i l * (g (dot (Wg l) x) * dot (Wu l) x) := rfl
  have rhs : gated g (flip_rows S Wg) Wu (flip_cols S Wd) x i
      = ∑ l, flip_cols S Wd i l * (g (dot (flip_rows S Wg l) x) * dot (Wu l) x) := rfl
  rw [lhs, rhs, Finset.sum_congr rfl hunit, Finset.sum_sub_distrib, hsel]
  ring

/-- The sigmoid gate (glu): `sigmoid z + sigmoid (-z) = 1`, so `glu_flip` applies. -/
theorem sigmoid_glu_flip {d m : ℕ} (M : Fin d → Fin d → ℝ)
    (Wd : Fin d → Fin m → ℝ) (Wg Wu : Fin m → Fin d → ℝ) (S : Fin m → Bool)
    (index_condition : index_condition_holds S M Wd Wu) :
    ∀ (x : Fin d → ℝ) (i : Fin d),
      skip M x i + gated sigmoid Wg Wu Wd x i
        = gated sigmoid (flip_rows S Wg) Wu (flip_cols S Wd) x i :=
  glu_flip M Wd Wg Wu S sigmoid_sym index_condition

end SkipAbsorption
