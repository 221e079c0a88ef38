import SkipAbsorption.Necessity

/-!
# Relu stacks on the line (claim `depth-d1`, parts (a) and (b))

Mirror of part of `proofs/coq/DepthD1.v`, written for maps `ℝ → ℝ`, so `d = 1` is built into the
types (the Coq statements carry `d_eq_1 : d = 1` and read coordinate `0`).

* A bias-free relu layer on the line is the list of its units `(v, w)`; it computes
  `y ↦ ∑ w * relu (v * y)` (`lay1`), and its width is the length of the list.
* `rstack1`: a residual stack with scalar skips, `y ↦ M_l * y + layer_l y`, first pair first;
  `pstack1`: a plain stack; `pstack1_eq_rstack1`: a plain stack is the residual stack with zero
  skips.
* `hom_pair`: a positively homogeneous map of the line is `f 1 * relu y + f (-1) * relu (-y)`.
* Part (a): `depth_d1_homogeneous` (residual stacks), `depth_d1_plain_homogeneous` (plain).
* Part (b): `d1_construction_correct`: for widths `ws` (all `≥ 1`) and `d1_condition ws a b`, the
  explicit plain stack `d1_construction ws a b` has widths `ws` and computes
  `a * relu y + b * relu (-y)`.

Parts (c) (necessity, biases allowed) and (d) (the open set) are in Coq only.
-/

namespace SkipAbsorption

/-- One bias-free relu layer on the line, given by its units `(v, w)`. -/
noncomputable def lay1 : List (ℝ × ℝ) → ℝ → ℝ
  | [], _ => 0
  | u :: us, y => u.2 * relu (u.1 * y) + lay1 us y

/-- A residual stack with scalar skips: each pair `(M, layer)` maps `y` to `M * y + layer y`. -/
noncomputable def rstack1 : List (ℝ × List (ℝ × ℝ)) → ℝ → ℝ
  | [], y => y
  | p :: rest, y => rstack1 rest (p.1 * y + lay1 p.2 y)

/-- A bias-free plain relu stack on the line. -/
noncomputable def pstack1 : List (List (ℝ × ℝ)) → ℝ → ℝ
  | [], y => y
  | L :: rest, y => pstack1 rest (lay1 L y)

/-- The width pattern against the pair `(a, b) = (F 1, F (-1))`. -/
def d1_condition : List ℕ → ℝ → ℝ → Prop
  | [], _, _ => False
  | m1 :: rest, a, b =>
      (m1 = 1 ∧ a * b = 0) ∨ (2 ≤ m1 ∧ 1 ∈ rest ∧ 0 ≤ a * b) ∨ (∀ m ∈ m1 :: rest, 2 ≤ m)

theorem relu_pos_scale (t z : ℝ) (ht : 0 < t) : relu (t * z) = t * relu z := by
  unfold relu
  rcases le_total z 0 with hz | hz
  · have htz : t * z ≤ 0 := by nlinarith
    rw [max_eq_right hz, max_eq_right htz, mul_zero]
  · have htz : 0 ≤ t * z := by nlinarith
    rw [max_eq_left hz, max_eq_left htz]

theorem lay1_hom (L : List (ℝ × ℝ)) (t y : ℝ) (ht : 0 < t) : lay1 L (t * y) = t * lay1 L y := by
  induction L with
  | nil =>
    show (0 : ℝ) = t * 0
    ring
  | cons u us ih =>
    show u.2 * relu (u.1 * (t * y)) + lay1 us (t * y) = t * (u.2 * relu (u.1 * y) + lay1 us y)
    have e : u.1 * (t * y) = t * (u.1 * y) := by ring
    rw [ih, e, relu_pos_scale t (u.1 * y) ht]
    ring

theorem rstack1_hom (res : List (ℝ × List (ℝ × ℝ))) :
    ∀ t y : ℝ, 0 < t → rstack1 res (t * y) = t * rstack1 res y := by
  induction res with
  | nil =>
    intro t y _
    rfl
  | cons p rest ih =>
    intro t y ht
    show rstack1 rest (p.1 * (t * y) + lay1 p.2 (t * y)) = t * rstack1 rest (p.1 * y + lay1 p.2 y)
    have e : p.1 * (t * y) + t * lay1 p.2 y = t * (p.1 * y + lay1 p.2 y) := by ring
    rw [lay1_hom p.2 t y ht, e]
    exact ih t (p.1 * y + lay1 p.2 y) ht

theorem pstack1_hom (Ps : List (List (ℝ × ℝ))) :
    ∀ t y : ℝ, 0 < t → pstack1 Ps (t * y) = t * pstack1 Ps y := by
  induction Ps with
  | nil =>
    intro t y _
    rfl
  | cons L rest ih =>
    intro t y ht
    show pstack1 rest (lay1 L (t * y)) = t * pstack1 rest (lay1 L y)
    rw [lay1_hom L t y ht]
    exact ih t (lay1 L y) ht

/-- Lemma 1: a positively homogeneous map of the line is determined by `f 1` and `f (-1)`. -/
theorem hom_pair (f : ℝ → ℝ) (hf : ∀ t y : ℝ, 0 < t → f (t * y) = t * f y) (y : ℝ) :
    f y = f 1 * relu y + f (-1) * relu (-y) := by
  rcases lt_trichotomy y 0 with h | h | h
  · have e := hf (-y) (-1) (by linarith)
    have e' : -y * -1 = y := by ring
    rw [e'] at e
    have r1 : relu y = 0 := by
      unfold relu
      exact max_eq_right (le_of_lt h)
    have r2 : relu (-y) = -y := by
      unfold relu
      exact max_eq_left (by linarith)
    rw [r1, r2, e]
    ring
  · subst h
    have e := hf 2 0 (by norm_num)
    have e' : (2 : ℝ) * 0 = 0 := by ring
    rw [e'] at e
    have r1 : relu 0 = 0 := by
      unfold relu
      exact max_eq_right le_rfl
    have r2 : relu (-0) = 0 := by
      unfold relu
      exact max_eq_right (by norm_num)
    rw [r1, r2]
    linarith
  · have e := hf y 1 h
    rw [mul_one] at e
    have r1 : relu y = y := by
      unfold relu
      exact max_eq_left (le_of_lt h)
    have r2 : relu (-y) = 0 := by
      unfold relu
      exact max_eq_right (by linarith)
    rw [r1, r2, e]
    ring

/-- `depth-d1` (a): every bias-free residual relu stack on the line, with any scalar skips,
depth and widths, is `F x = F 1 * relu x + F (-1) * relu (-x)`. -/
theorem depth_d1_homogeneous (res : List (ℝ × List (ℝ × ℝ))) (x : ℝ) :
    rstack1 res x = rstack1 res 1 * relu x + rstack1 res (-1) * relu (-x) :=
  hom_pair (rstack1 res) (rstack1_hom res) x

/-- The same for plain stacks. -/
theorem depth_d1_plain_homogeneous (Ps : List (List (ℝ × ℝ))) (x : ℝ) :
    pstack1 Ps x = pstack1 Ps 1 * relu x + pstack1 Ps (-1) * relu (-x) :=
  hom_pair (pstack1 Ps) (pstack1_hom Ps) x

/-- A plain stack is the residual stack with zero skips. -/
theorem pstack1_eq_rstack1 (Ps : List (List (ℝ × ℝ))) :
    ∀ y : ℝ, pstack1 Ps y = rstack1 (Ps.map (fun K => ((0 : ℝ), K))) y := by
  induction Ps with
  | nil =>
    intro y
    rfl
  | cons L rest ih =>
    intro y
    show pstack1 rest (lay1 L y) = rstack1 (rest.map (fun K => ((0 : ℝ), K))) (0 * y + lay1 L y)
    have e : (0 : ℝ) * y + lay1 L y = lay1 L y := by ring
    rw [e]
    exact ih (lay1 L y)

/-! ## Part (b): the explicit plain stacks -/

/-- `n` padding units `(1, 0)`. -/
noncomputable def pad : ℕ → List (ℝ × ℝ)
  | 0 => []
  | n + 1 => (1, 0) :: pad n

/-- Two units `(v0, w0)`, `(v1, w1)`, padded to width `m`. -/
noncomputable def units2 (v0 w0 v1 w1 : ℝ) (m : ℕ) : List (ℝ × ℝ) := (v0, w0) :: (v1, w1) :: pad (m - 2)

/-- The first layer: pair `(a, b)` from the identity. -/
noncomputable def first_layer (a b : ℝ) (m : ℕ) : List (ℝ × ℝ) :=
  if m = 1 then (if b = 0 then [(1, a)] else [(-1, b)]) else units2 1 a (-1) b m

/-- A later layer: the identity on the current values (`s` their common sign at width 1). -/
noncomputable def id_layer (s : ℝ) (m : ℕ) : List (ℝ × ℝ) :=
  if m = 1 then [(s, s)] else units2 1 1 (-1) (-1) m

/-- The common sign of `a` and `b` (used only when `a * b ≥ 0`). -/
noncomputable def sign_of (a b : ℝ) : ℝ := if 0 ≤ a ∧ 0 ≤ b then 1 else -1

/-- The plain stack of widths `ws` with pair `(a, b)`. -/
noncomputable def d1_construction : List ℕ → ℝ → ℝ → List (List (ℝ × ℝ))
  | [], _, _ => []
  | m1 :: rest, a, b => first_layer a b m1 :: rest.map (id_layer (sign_of a b))

theorem lay1_pad (n : ℕ) (y : ℝ) : lay1 (pad n) y = 0 := by
  induction n with
  | zero => rfl
  | succ n ih =>
    show 0 * relu (1 * y) + lay1 (pad n) y = 0
    rw [ih]
    ring

theorem pad_length (n : ℕ) : (pad n).length = n := by
  induction n with
  | zero => rfl
  | succ n ih =>
    show (pad n).length + 1 = n + 1
    rw [ih]

theorem units2_value (v0 w0 v1 w1 : ℝ) (m : ℕ) (y : ℝ) :
    lay1 (units2 v0 w0 v1 w1 m) y = w0 * relu (v0 * y) + w1 * relu (v1 * y) := by
  show w0 * relu (v0 * y) + (w1 * relu (v1 * y) + lay1 (pad (m - 2)) y)
    = w0 * relu (v0 * y) + w1 * relu (v1 * y)
  rw [lay1_pad]
  ring

theorem units2_length (v0 w0 v1 w1 : ℝ) (m : ℕ) (hm : 2 ≤ m) :
    (units2 v0 w0 v1 w1 m).length = m := by
  show (pad (m - 2)).length + 1 + 1 = m
  rw [pad_length]
  omega

theorem first_layer_length (a b : ℝ) (m : ℕ) (hm : 1 ≤ m) : (first_layer a b m).length = m := by
  unfold first_layer
  split_ifs with h1 h2
  · subst h1
    rfl
  · subst h1
    rfl
  · exact units2_length 1 a (-1) b m (by omega)

theorem id_layer_length (s : ℝ) (m : ℕ) (hm : 1 ≤ m) : (id_layer s m).length = m := by
  unfold id_layer
  split_ifs with h1
  · subst h1
    rfl
  · exact units2_length 1 1 (-1) (-1) m (by omega)

theorem first_layer_value (a b y : ℝ) (m : ℕ) (hab : m = 1 → a * b = 0) :
    lay1 (first_layer a b m) y = a * relu y + b * relu (-y) := by
  have e1 : (1 : ℝ) * y = y := by ring
  have e2 : (-1 : ℝ) * y = -y := by ring
  unfold first_layer
  split_ifs with h1 h2
  · show a * relu (1 * y) + 0 = a * relu y + b * relu (-y)
    rw [h2, e1]
    ring
  · have ha : a = 0 := by
      rcases mul_eq_zero.mp (hab h1) with h | h
      · exact h
      · exact absurd h h2
    show b * relu (-1 * y) + 0 = a * relu y + b * relu (-y)
    rw [ha, e2]
    ring
  · rw [units2_value, e1, e2]

theorem id_layer_value (s y : ℝ) (m : ℕ) (hs : s = 1 ∨ s = -1) (hy : m = 1 → 0 ≤ s * y) :
    lay1 (id_layer s m) y = y := by
  have e1 : (1 : ℝ) * y = y := by ring
  have e2 : (-1 : ℝ) * y = -y := by ring
  unfold id_layer
  split_ifs with h1
  · show s * relu (s * y) + 0 = y
    have r : relu (s * y) = s * y := by
      unfold relu
      exact max_eq_left (hy h1)
    rw [r]
    rcases hs with hs | hs
    · rw [hs]
      ring
    · rw [hs]
      ring
  · rw [units2_value, e1, e2]
    have h := relu_odd y
    linarith

theorem id_layers_length (s : ℝ) (rest : List ℕ) :
    (∀ m ∈ rest, 1 ≤ m) → (rest.map (id_layer s)).map List.length = rest := by
  induction rest with
  | nil =>
    intro _
    rfl
  | cons m rest ih =>
    intro hpos
    show (id_layer s m).length :: (rest.map (id_layer s)).map List.length = m :: rest
    rw [id_layer_length s m (hpos m (List.mem_cons.mpr (Or.inl rfl))),
      ih (fun m' hm' => hpos m' (List.mem_cons.mpr (Or.inr hm')))]

theorem id_layers_value (s y : ℝ) (hs : s = 1 ∨ s = -1) (rest : List ℕ) :
    (1 ∈ rest → 0 ≤ s * y) → pstack1 (rest.map (id_layer s)) y = y := by
  induction rest with
  | nil =>
    intro _
    rfl
  | cons m rest ih =>
    intro hy
    show pstack1 (rest.map (id_layer s)) (lay1 (id_layer s m) y) = y
    rw [id_layer_value s y m hs (fun h => hy (List.mem_cons.mpr (Or.inl h.symm)))]
    exact ih (fun h => hy (List.mem_cons.mpr (Or.inr h)))

theorem sign_of_pm (a b : ℝ) : sign_of a b = 1 ∨ sign_of a b = -1 := by
  unfold sign_of
  split_ifs
  · exact Or.inl rfl
  · exact Or.inr rfl

theorem sign_of_sign (a b y : ℝ) (hab : 0 ≤ a * b) :
    0 ≤ sign_of a b * (a * relu y + b * relu (-y)) := by
  have r1 : 0 ≤ relu y := le_max_right y 0
  have r2 : 0 ≤ relu (-y) := le_max_right (-y) 0
  unfold sign_of
  split_ifs with h
  · have ha := h.1
    have hb := h.2
    nlinarith
  · have ha : a ≤ 0 := by
      by_contra hc
      have ha' : 0 < a := not_le.mp hc
      have hb : ¬ 0 ≤ b := fun hb => h ⟨le_of_lt ha', hb⟩
      have hb' : b < 0 := not_le.mp hb
      nlinarith
    have hb : b ≤ 0 := by
      by_contra hc
      have hb' : 0 < b := not_le.mp hc
      have ha2 : ¬ 0 ≤ a := fun ha2 => h ⟨ha2, le_of_lt hb'⟩
      have ha' : a < 0 := not_le.mp ha2
      nlinarith
    nlinarith

/-- `depth-d1` (b): for widths `ws`, each `≥ 1`, and a pair `(a, b)` with `d1_condition ws a b`,
the explicit bias-free plain stack has widths `ws` and computes `a * relu y + b * relu (-y)`. -/
theorem d1_construction_correct (ws : List ℕ) (a b : ℝ) (widths_positive : ∀ m ∈ ws, 1 ≤ m)
    (hc : d1_condition ws a b) :
    (d1_construction ws a b).map List.length = ws ∧
      ∀ y : ℝ, pstack1 (d1_construction ws a b) y = a * relu y + b * relu (-y) := by
  cases ws with
  | nil => exact False.elim hc
  | cons m1 rest =>
    have hc' : (m1 = 1 ∧ a * b = 0) ∨ (2 ≤ m1 ∧ 1 ∈ rest ∧ 0 ≤ a * b) ∨
        (∀ m ∈ m1 :: rest, 2 ≤ m) := hc
    have hm1 : 1 ≤ m1 := widths_positive m1 (List.mem_cons.mpr (Or.inl rfl))
    have hrest : ∀ m ∈ rest, 1 ≤ m := fun m hm => widths_positive m (List.mem_cons.mpr (Or.inr hm))
    have hfirst : m1 = 1 → a * b = 0 := by
      intro h
      rcases hc' with hc' | hc' | hc'
      · exact hc'.2
      · have h2 := hc'.1
        omega
      · have h2 := hc' m1 (List.mem_cons.mpr (Or.inl rfl))
        omega
    have hlater : 1 ∈ rest → 0 ≤ a * b := by
      intro hin
      rcases hc' with hc' | hc' | hc'
      · linarith [hc'.2]
      · exact hc'.2.2
      · have h2 := hc' 1 (List.mem_cons.mpr (Or.inr hin))
        omega
    constructor
    · show (first_layer a b m1).length :: (rest.map (id_layer (sign_of a b))).map List.length
        = m1 :: rest
      rw [first_layer_length a b m1 hm1, id_layers_length (sign_of a b) rest hrest]
    · intro y
      show pstack1 (rest.map (id_layer (sign_of a b))) (lay1 (first_layer a b m1) y)
        = a * relu y + b * relu (-y)
      rw [first_layer_value a b y m1 hfirst]
      exact id_layers_value (sign_of a b) (a * relu y + b * relu (-y)) (sign_of_pm a b) rest
        (fun hin => sign_of_sign a b y (hlater hin))

end SkipAbsorption
