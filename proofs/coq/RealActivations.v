(** * The real activations: relu, sigmoid, silu, the exact gelu (from the
    Gaussian integral) and its tanh approximation.

    Nothing here is assumed about an abstract function: [Phi] is the
    standard normal distribution function, defined by a Riemann integral
    (Coquelicot's [RInt]), and every property the theorems use -- the
    symmetry [Phi z + Phi (-z) = 1], the bounds [0 <= Phi <= 1], the limits
    at infinity -- is proved from that definition.  The limits at infinity
    rest on the value of the Gaussian integral over [0, +oo), proved with
    the classical auxiliary function
    [E x = (int_0^x e^(-t^2/2) dt)^2 + 2 int_0^1 e^(-x^2 (1+t^2)/2)/(1+t^2) dt],
    whose derivative is 0 and whose value at 0 is [2 atan 1 = PI/2]. *)

From Coq Require Import Reals Lra.
(* Loading Coquelicot declares the coercion path [real; Finite] on Rbar, about
   which Coq warns; the path is Coquelicot's own design and harmless here. *)
Set Warnings "-ambiguous-paths".
From Coquelicot Require Import Coquelicot.
Open Scope R_scope.

(** Coquelicot states its equalities on its own structures (e.g.
    [R_AbsRing]); [req] restates the goal on [R] so that [ring] and [field]
    recognise it. *)
Local Ltac req := match goal with |- @eq _ ?a ?b => change (@eq R a b) end.

(** ** Elementary facts *)

Lemma exp_le_mono : forall a b, a <= b -> exp a <= exp b.
Proof. intros a b [H|H]; [left; apply exp_increasing; exact H|right; rewrite H; reflexivity]. Qed.

(** ** The Gaussian integral *)

(** The Gaussian density without its normalising constant. *)
Definition gauss (t : R) : R := exp (- t ^ 2 / 2).

Lemma gauss_pos : forall t, 0 < gauss t.
Proof. intros. apply exp_pos. Qed.

Lemma gauss_even : forall t, gauss (- t) = gauss t.
Proof. intros. unfold gauss. f_equal. field. Qed.

Lemma gauss_derive : forall t, is_derive gauss t (- t * gauss t).
Proof.
  intros. unfold gauss. auto_derive; [exact I|].
  replace (- (t * (t * 1)) * / 2) with (- t ^ 2 / 2) by (simpl; field). field.
Qed.

Lemma gauss_continuous : forall t, continuous gauss t.
Proof.
  intros. apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)).
  eexists. apply gauss_derive.
Qed.

Lemma gauss_ex_RInt : forall a b, ex_RInt gauss a b.
Proof. intros. apply (ex_RInt_continuous (V := R_CompleteNormedModule)). intros. apply gauss_continuous. Qed.

Definition gauss_int (x : R) : R := RInt gauss 0 x.

Lemma gauss_int_derive : forall x, is_derive gauss_int x (gauss x).
Proof.
  intros x. apply is_derive_RInt with 0.
  - apply filter_forall. intros y. apply (RInt_correct (V := R_CompleteNormedModule)). apply gauss_ex_RInt.
  - apply gauss_continuous.
Qed.

(** The auxiliary parametric integrand [e^(-x^2 (1+t^2)/2) / (1+t^2)] and its
    derivative in [x]. *)
Definition gaux (x t : R) : R := exp (- x ^ 2 * (1 + t ^ 2) / 2) / (1 + t ^ 2).
Definition dgaux (x t : R) : R := - x * exp (- x ^ 2 * (1 + t ^ 2) / 2).

Lemma one_plus_sq_pos : forall t, 0 < 1 + t ^ 2.
Proof. intros. pose proof (pow2_ge_0 t). lra. Qed.

Lemma gaux_derive : forall x t, is_derive (fun u => gaux u t) x (dgaux x t).
Proof.
  intros x t. unfold gaux, dgaux. pose proof (one_plus_sq_pos t).
  auto_derive; [lra|]. req.
  replace (- (x * (x * 1)) * (1 + t * (t * 1)) * / 2) with (- x ^ 2 * (1 + t ^ 2) / 2)
    by (simpl; field).
  simpl. field. lra.
Qed.

Lemma dgaux_continuous : forall x t, continuity_2d_pt dgaux x t.
Proof.
  intros x t. unfold dgaux.
  apply continuity_2d_pt_mult.
  - apply continuity_2d_pt_opp, continuity_2d_pt_id1.
  - apply (continuity_1d_2d_pt_comp exp (fun u v => - u ^ 2 * (1 + v ^ 2) / 2)).
    + apply derivable_continuous_pt, derivable_pt_exp.
    + apply (continuity_2d_pt_ext (fun u v => (- (u * u)) * ((1 + v * v) * / 2))).
      { intros. simpl. field. }
      apply continuity_2d_pt_mult.
      * apply continuity_2d_pt_opp, continuity_2d_pt_mult; apply continuity_2d_pt_id1.
      * apply continuity_2d_pt_mult; [|apply continuity_2d_pt_const].
        apply continuity_2d_pt_plus; [apply continuity_2d_pt_const|].
        apply continuity_2d_pt_mult; apply continuity_2d_pt_id2.
Qed.

Lemma gaux_ex_RInt : forall x a b, ex_RInt (gaux x) a b.
Proof.
  intros. apply (ex_RInt_continuous (V := R_CompleteNormedModule)). intros t _.
  apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)). unfold gaux. pose proof (one_plus_sq_pos t).
  auto_derive. lra.
Qed.

Definition gaux_int (x : R) : R := RInt (gaux x) 0 1.

Lemma gaux_int_derive : forall x,
  is_derive gaux_int x (RInt (fun t => dgaux x t) 0 1).
Proof.
  intros x. unfold gaux_int.
  assert (E : RInt (fun t => dgaux x t) 0 1 = RInt (fun t => Derive (fun u => gaux u t) x) 0 1).
  { apply RInt_ext. intros t _. symmetry. apply is_derive_unique. apply gaux_derive. }
  rewrite E. apply (is_derive_RInt_param gaux 0 1 x).
  - apply filter_forall. intros y t _. eexists. apply gaux_derive.
  - intros t _. apply (continuity_2d_pt_ext dgaux).
    + intros u v. symmetry. apply is_derive_unique. apply gaux_derive.
    + apply dgaux_continuous.
  - apply filter_forall. intros y. apply gaux_ex_RInt.
Qed.

(** The substitution [s = x t]. *)
Lemma dgaux_int : forall x, RInt (fun t => dgaux x t) 0 1 = - gauss x * gauss_int x.
Proof.
  intros x.
  rewrite (RInt_ext _ (fun t => scal (- gauss x) (scal x (gauss (x * t + 0))))).
  2:{ intros t _. unfold dgaux, gauss.
      replace (x * t + 0) with (x * t) by ring.
      replace (- x ^ 2 * (1 + t ^ 2) / 2) with (- x ^ 2 / 2 + - (x * t) ^ 2 / 2) by field.
      rewrite exp_plus. unfold scal; simpl; unfold mult; simpl. ring. }
  rewrite (RInt_scal (V := R_CompleteNormedModule)).
  - rewrite (RInt_comp_lin (V := R_CompleteNormedModule)).
    + unfold gauss_int, scal; simpl; unfold mult; simpl.
      replace (x * 0 + 0) with 0 by ring. replace (x * 1 + 0) with x by ring. reflexivity.
    + apply gauss_ex_RInt.
  - apply (ex_RInt_continuous (V := R_CompleteNormedModule)). intros t _.
    apply (continuous_scal_r x (fun t => gauss (x * t + 0))).
    apply continuous_comp; [|apply gauss_continuous].
    apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)). auto_derive. exact I.
Qed.

(** [E x = G(x)^2 + 2 int_0^1 gaux x]; its derivative vanishes because the
    substitution [s = x t] turns [int_0^1 dgaux x t dt] into [- gauss x * G x]. *)
Definition gauss_energy (x : R) : R := gauss_int x ^ 2 + 2 * gaux_int x.

Lemma gauss_energy_derive : forall x, is_derive gauss_energy x 0.
Proof.
  intros x. unfold gauss_energy.
  evar (l : R). replace 0 with l.
  - apply (is_derive_plus (fun y => gauss_int y ^ 2) (fun y => 2 * gaux_int y)).
    + apply (is_derive_pow gauss_int 2). apply gauss_int_derive.
    + apply is_derive_scal. apply gaux_int_derive.
  - unfold l. rewrite dgaux_int. unfold plus, scal; simpl; unfold mult; simpl. simpl. ring.
Qed.

Lemma gauss_energy_const : forall x, gauss_energy x = gauss_energy 0.
Proof.
  intros x.
  assert (H : is_RInt (fun _ => 0) 0 x (minus (gauss_energy x) (gauss_energy 0))).
  { apply (is_RInt_derive (V := R_CompleteNormedModule) gauss_energy (fun _ => 0)).
    - intros y _. apply gauss_energy_derive.
    - intros y _. apply (continuous_const (U := R_UniformSpace) (V := R_UniformSpace)). }
  apply (is_RInt_unique (V := R_CompleteNormedModule)) in H.
  rewrite (RInt_const (V := R_CompleteNormedModule)) in H.
  unfold minus, plus, opp, scal in H; simpl in H; unfold mult in H; simpl in H. lra.
Qed.

Lemma gaux_int_0 : gaux_int 0 = PI / 4.
Proof.
  unfold gaux_int. rewrite <- atan_1.
  rewrite (RInt_ext _ (fun t => / (1 + t ^ 2))).
  2:{ intros t _. unfold gaux. replace (- 0 ^ 2 * (1 + t ^ 2) / 2) with 0 by (simpl; field).
      req. rewrite exp_0. field. pose proof (one_plus_sq_pos t). lra. }
  apply (is_RInt_unique (V := R_CompleteNormedModule)).
  replace (atan 1) with (minus (atan 1) (atan 0))
    by (rewrite atan_0; unfold minus, plus, opp; simpl; ring).
  apply (is_RInt_derive (V := R_CompleteNormedModule) atan (fun t => / (1 + t ^ 2))).
  - intros t _. apply is_derive_Reals. apply derivable_pt_lim_atan.
  - intros t _. apply (ex_derive_continuous (K := R_AbsRing) (V := R_NormedModule)).
    pose proof (one_plus_sq_pos t). auto_derive. simpl in H. lra.
Qed.

Lemma gauss_int_0 : gauss_int 0 = 0.
Proof. unfold gauss_int. apply (RInt_point (V := R_CompleteNormedModule)). Qed.

(** [gauss_int x ^ 2 + 2 * gaux_int x = PI / 2] for every [x]. *)
Lemma gauss_energy_value : forall x, gauss_int x ^ 2 + 2 * gaux_int x = PI / 2.
Proof.
  intros x. fold (gauss_energy x). rewrite gauss_energy_const.
  unfold gauss_energy. rewrite gauss_int_0, gaux_int_0. field.
Qed.

Lemma gaux_int_bounds : forall x, 0 <= gaux_int x <= gauss x.
Proof.
  intros x. unfold gaux_int. split.
  - apply RInt_ge_0; [lra|apply gaux_ex_RInt|].
    intros t _. unfold gaux. pose proof (one_plus_sq_pos t). pose proof (exp_pos (- x ^ 2 * (1 + t ^ 2) / 2)).
    apply Rlt_le, Rdiv_lt_0_compat; lra.
  - replace (gauss x) with (RInt (fun _ => gauss x) 0 1).
    2:{ rewrite (RInt_const (V := R_CompleteNormedModule)). unfold scal; simpl; unfold mult; simpl. ring. }
    apply RInt_le; [lra|apply gaux_ex_RInt|apply (ex_RInt_const (V := R_CompleteNormedModule))|].
    intros t _. unfold gaux, gauss. pose proof (one_plus_sq_pos t) as Ht.
    replace (- x ^ 2 * (1 + t ^ 2) / 2) with (- x ^ 2 / 2 + - (x * t) ^ 2 / 2) by field.
    rewrite exp_plus.
    pose proof (exp_pos (- x ^ 2 / 2)). pose proof (exp_pos (- (x * t) ^ 2 / 2)).
    assert (exp (- (x * t) ^ 2 / 2) <= 1).
    { rewrite <- exp_0. apply exp_le_mono. pose proof (pow2_ge_0 (x * t)). lra. }
    apply Rle_trans with (exp (- x ^ 2 / 2) * exp (- (x * t) ^ 2 / 2)).
    + unfold Rdiv. rewrite <- (Rmult_1_r (exp (- x ^ 2 / 2) * exp (- (x * t) ^ 2 / 2))) at 2.
      apply Rmult_le_compat_l; [nra|]. rewrite <- Rinv_1. apply Rinv_le_contravar; [lra|].
      pose proof (pow2_ge_0 t). lra.
    + nra.
Qed.

Definition sqrt_pi_2 : R := sqrt (PI / 2).

Lemma sqrt_pi_2_pos : 0 < sqrt_pi_2.
Proof. unfold sqrt_pi_2. apply sqrt_lt_R0. pose proof PI_RGT_0. lra. Qed.

Lemma sqrt_pi_2_sq : sqrt_pi_2 ^ 2 = PI / 2.
Proof. unfold sqrt_pi_2. apply pow2_sqrt. pose proof PI_RGT_0. lra. Qed.

Lemma gauss_int_abs_le : forall x, Rabs (gauss_int x) <= sqrt_pi_2.
Proof.
  intros x. pose proof (gauss_energy_value x). pose proof (gaux_int_bounds x).
  pose proof sqrt_pi_2_pos. pose proof sqrt_pi_2_sq.
  apply Rsqr_incr_0_var; [|lra]. rewrite <- Rsqr_abs. unfold Rsqr. simpl in *. nra.
Qed.

Lemma gauss_int_nonneg : forall x, 0 <= x -> 0 <= gauss_int x.
Proof.
  intros x Hx. apply RInt_ge_0; [assumption|apply gauss_ex_RInt|].
  intros. apply Rlt_le, gauss_pos.
Qed.

(** Distance to the limit. *)
Lemma gauss_int_gap : forall x, 0 <= x ->
  0 <= sqrt_pi_2 - gauss_int x <= 2 * gauss x / sqrt_pi_2.
Proof.
  intros x Hx. pose proof (gauss_energy_value x). pose proof (gaux_int_bounds x).
  pose proof sqrt_pi_2_pos. pose proof sqrt_pi_2_sq. pose proof (gauss_int_nonneg x Hx).
  pose proof (gauss_int_abs_le x). rewrite Rabs_right in H4 by lra.
  split; [lra|].
  apply Rmult_le_reg_r with sqrt_pi_2; [assumption|].
  unfold Rdiv. rewrite Rmult_assoc, Rinv_l by lra. simpl in *. nra.
Qed.

Lemma gauss_le_inv : forall x, 0 < x -> gauss x <= / x.
Proof.
  intros x Hx. unfold gauss.
  replace (- x ^ 2 / 2) with (- (x ^ 2 / 2)) by field. rewrite exp_Ropp.
  apply Rinv_le_contravar; [assumption|].
  pose proof (exp_ineq1_le (x ^ 2 / 2)). simpl in *. nra.
Qed.

Lemma gauss_lim : is_lim gauss p_infty 0.
Proof.
  apply (is_lim_le_le_loc (fun _ => 0) (fun x => / x)).
  - exists 0. intros x Hx. split; [apply Rlt_le, gauss_pos|apply gauss_le_inv; assumption].
  - apply is_lim_const.
  - replace (Finite 0) with (Rbar_inv p_infty) by reflexivity.
    apply is_lim_inv; [apply is_lim_id|discriminate].
Qed.

Lemma gauss_int_lim : is_lim gauss_int p_infty sqrt_pi_2.
Proof.
  apply (is_lim_le_le_loc (fun x => sqrt_pi_2 - 2 / sqrt_pi_2 * gauss x) (fun _ => sqrt_pi_2)).
  - exists 0. intros x Hx. pose proof (gauss_int_gap x ltac:(lra)). 
    unfold Rdiv in *. lra.
  - replace (Finite sqrt_pi_2) with (Finite (sqrt_pi_2 - 2 / sqrt_pi_2 * 0)) by (f_equal; ring).
    apply (is_lim_minus' (fun _ => sqrt_pi_2)); [apply is_lim_const|].
    apply (is_lim_scal_l gauss (2 / sqrt_pi_2) p_infty 0). apply gauss_lim.
  - apply is_lim_const.
Qed.

(** The Gaussian integral over the half line: as [x -> +oo],
    [int_0^x exp (- t^2 / 2) dt -> sqrt (PI / 2)]. *)
Theorem gaussian_integral_half_line :
  is_lim (fun x => RInt (fun t => exp (- t ^ 2 / 2)) 0 x) p_infty (sqrt (PI / 2)).
Proof. exact gauss_int_lim. Qed.

Lemma gauss_int_odd : forall z, gauss_int (- z) = - gauss_int z.
Proof.
  intros z. unfold gauss_int.
  pose proof (RInt_comp_lin (V := R_CompleteNormedModule) gauss (-1) 0 0 z
                (gauss_ex_RInt _ _)) as H.
  replace (-1 * 0 + 0) with 0 in H by ring. replace (-1 * z + 0) with (- z) in H by ring.
  rewrite <- H.
  rewrite (RInt_ext (V := R_CompleteNormedModule) _ (fun y => scal (-1) (gauss y)))
    by (intros t _; f_equal; rewrite <- gauss_even; f_equal; ring).
  rewrite (RInt_scal (V := R_CompleteNormedModule)) by apply gauss_ex_RInt.
  unfold scal; simpl; unfold mult; simpl. ring.
Qed.

Lemma gauss_int_mono : forall a b, a <= b -> gauss_int a <= gauss_int b.
Proof.
  intros a b Hab. unfold gauss_int.
  rewrite <- (RInt_Chasles (V := R_CompleteNormedModule) gauss 0 a b) by apply gauss_ex_RInt.
  unfold plus; simpl.
  assert (0 <= RInt gauss a b).
  { apply RInt_ge_0; [assumption|apply gauss_ex_RInt|]. intros. apply Rlt_le, gauss_pos. }
  lra.
Qed.

(** ** The standard normal distribution function and the exact gelu *)

Definition Phi (z : R) : R :=
  1 / 2 + 1 / sqrt (2 * PI) * RInt (fun t => exp (- t ^ 2 / 2)) 0 z.

Definition gelu (z : R) : R := z * Phi z.

Lemma sqrt_2pi : sqrt (2 * PI) = 2 * sqrt_pi_2.
Proof.
  unfold sqrt_pi_2. pose proof PI_RGT_0.
  replace (2 * PI) with ((2 * 2) * (PI / 2)) by field.
  rewrite sqrt_mult by lra. rewrite sqrt_square by lra. reflexivity.
Qed.

Lemma Phi_alt : forall z, Phi z = 1 / 2 + gauss_int z / (2 * sqrt_pi_2).
Proof.
  intros z. unfold Phi. rewrite sqrt_2pi. fold gauss. fold (gauss_int z).
  pose proof sqrt_pi_2_pos. field. lra.
Qed.

(** [Phi z + Phi (-z) = 1]. *)
Lemma Phi_sym : forall z, Phi z + Phi (- z) = 1.
Proof.
  intros z. rewrite !Phi_alt, gauss_int_odd. pose proof sqrt_pi_2_pos. field. lra.
Qed.

Lemma Phi_bounds : forall z, 0 <= Phi z <= 1.
Proof.
  intros z. rewrite Phi_alt. pose proof sqrt_pi_2_pos as Hp.
  pose proof (gauss_int_abs_le z) as Hb. apply Rabs_le_between in Hb.
  assert (Hg : gauss_int z = 2 * sqrt_pi_2 * (gauss_int z / (2 * sqrt_pi_2))) by (field; lra).
  set (q := gauss_int z / (2 * sqrt_pi_2)) in *.
  split; nra.
Qed.

Lemma Phi_mono : forall a b, a <= b -> Phi a <= Phi b.
Proof.
  intros a b Hab. rewrite !Phi_alt. pose proof sqrt_pi_2_pos.
  pose proof (gauss_int_mono a b Hab). unfold Rdiv.
  apply Rplus_le_compat_l, Rmult_le_compat_r; [|assumption].
  apply Rlt_le, Rinv_0_lt_compat. lra.
Qed.

Lemma Phi_lim_p_infty : is_lim Phi p_infty 1.
Proof.
  apply (is_lim_ext (fun z => 1 / 2 + gauss_int z * / (2 * sqrt_pi_2)));
    [intros; rewrite Phi_alt; reflexivity|].
  replace (Finite 1) with (Finite (1 / 2 + sqrt_pi_2 * / (2 * sqrt_pi_2))).
  2:{ f_equal. pose proof sqrt_pi_2_pos. field. lra. }
  apply (is_lim_plus' (fun _ => 1 / 2)); [apply is_lim_const|].
  apply (is_lim_scal_r gauss_int (/ (2 * sqrt_pi_2)) p_infty sqrt_pi_2).
  apply gauss_int_lim.
Qed.

(** Reflection of a limit at [+oo] to one at [-oo]. *)
Lemma is_lim_reflect : forall (f : R -> R) (l : R),
  is_lim (fun z => f (- z)) p_infty l -> is_lim f m_infty l.
Proof.
  intros f l H. apply is_lim_spec. intros eps.
  apply is_lim_spec in H. destruct (H eps) as [N HN].
  exists (- N). intros z Hz. replace z with (- - z) by ring. apply HN. lra.
Qed.

Lemma Phi_lim_m_infty : is_lim Phi m_infty 0.
Proof.
  apply is_lim_reflect.
  apply (is_lim_ext (fun z => 1 - Phi z)); [intros z; pose proof (Phi_sym z); lra|].
  replace (Finite 0) with (Finite (1 - 1)) by (f_equal; ring).
  apply (is_lim_minus' (fun _ => 1)); [apply is_lim_const|apply Phi_lim_p_infty].
Qed.

(** ** sigmoid and silu *)

Definition sigmoid (z : R) : R := / (1 + exp (- z)).

(** silu (= swish with beta 1); also the swiglu gate. *)
Definition silu (z : R) : R := z * sigmoid z.

Lemma sigmoid_flip : forall z, sigmoid z + sigmoid (- z) = 1.
Proof.
  intros z. unfold sigmoid. rewrite Ropp_involutive.
  pose proof (exp_pos z). pose proof (exp_pos (- z)).
  assert (Hinv : exp (- z) = / exp z).
  { apply (Rmult_eq_reg_l (exp z)); [|lra].
    rewrite <- exp_plus, Rinv_r by lra. replace (z + - z) with 0 by ring. apply exp_0. }
  rewrite Hinv. field. split; lra.
Qed.

Lemma sigmoid_bounds : forall z, 0 < sigmoid z < 1.
Proof.
  intros z. unfold sigmoid. pose proof (exp_pos (- z)). split.
  - apply Rinv_0_lt_compat. lra.
  - rewrite <- Rinv_1. apply Rinv_lt_contravar; lra.
Qed.

Lemma sigmoid_mono : forall a b, a <= b -> sigmoid a <= sigmoid b.
Proof.
  intros a b Hab. unfold sigmoid.
  pose proof (exp_pos (- a)). pose proof (exp_pos (- b)).
  apply Rinv_le_contravar; [lra|]. apply Rplus_le_compat_l, exp_le_mono. lra.
Qed.

Lemma sigmoid_lim_p_infty : is_lim sigmoid p_infty 1.
Proof.
  unfold sigmoid. replace (Finite 1) with (Rbar_inv (Finite (1 + 0)))
    by (simpl; f_equal; field).
  apply is_lim_inv; [|simpl; intro E; injection E; lra].
  apply (is_lim_plus' (fun _ => 1)); [apply is_lim_const|].
  apply (is_lim_comp exp (fun z => - z) p_infty 0 m_infty).
  - apply is_lim_exp_m.
  - apply (is_lim_opp (fun z => z) p_infty p_infty). apply is_lim_id.
  - exists 0. intros. discriminate.
Qed.

Lemma sigmoid_lim_m_infty : is_lim sigmoid m_infty 0.
Proof.
  unfold sigmoid. replace (Finite 0) with (Rbar_inv p_infty) by reflexivity.
  apply is_lim_inv; [|discriminate].
  apply (is_lim_plus (fun _ => 1) (fun z => exp (- z)) m_infty 1 p_infty p_infty);
    [apply is_lim_const| |reflexivity].
  apply (is_lim_comp exp (fun z => - z) m_infty p_infty p_infty).
  - apply is_lim_exp_p.
  - apply (is_lim_opp (fun z => z) m_infty m_infty). apply is_lim_id.
  - exists 0. intros. discriminate.
Qed.

(** ** The tanh approximation of gelu *)

(** [tanh] is the standard library's [sinh / cosh], both defined from [exp]. *)
Definition gelu_tanh (z : R) : R :=
  z / 2 * (1 + tanh (sqrt (2 / PI) * (z + 44715 / 1000000 * z ^ 3))).

(** Its gate [(1 + tanh (...)) / 2], so that [gelu_tanh z = z * gelu_tanh_gate z]. *)
Definition gelu_tanh_gate (z : R) : R :=
  (1 + tanh (sqrt (2 / PI) * (z + 44715 / 1000000 * z ^ 3))) / 2.

Lemma gelu_tanh_gate_eq : forall z, gelu_tanh z = z * gelu_tanh_gate z.
Proof. intros. unfold gelu_tanh, gelu_tanh_gate. field. Qed.

(** [(1 + tanh u) / 2 = sigmoid (2 u)]. *)
Lemma tanh_sigmoid : forall u, (1 + tanh u) / 2 = sigmoid (2 * u).
Proof.
  intros u. unfold tanh, sinh, cosh, sigmoid.
  replace (- (2 * u)) with (- u + - u) by ring. rewrite exp_plus, exp_Ropp.
  pose proof (exp_pos u).
  assert (0 < exp u * exp u) by (apply Rmult_lt_0_compat; lra).
  field. split; lra.
Qed.

Definition gelu_tanh_arg (z : R) : R := 2 * (sqrt (2 / PI) * (z + 44715 / 1000000 * z ^ 3)).

Lemma gelu_tanh_gate_sigmoid : forall z, gelu_tanh_gate z = sigmoid (gelu_tanh_arg z).
Proof. intros. unfold gelu_tanh_gate, gelu_tanh_arg. apply tanh_sigmoid. Qed.

Lemma sqrt_2_pi_pos : 0 < sqrt (2 / PI).
Proof. apply sqrt_lt_R0. pose proof PI_RGT_0. apply Rdiv_lt_0_compat; lra. Qed.

Lemma gelu_tanh_arg_odd : forall z, gelu_tanh_arg (- z) = - gelu_tanh_arg z.
Proof. intros. unfold gelu_tanh_arg. ring. Qed.

(** The argument grows at least linearly: [arg z >= 2 sqrt(2/PI) z] for [z >= 0]. *)
Lemma gelu_tanh_arg_ge : forall z, 0 <= z -> 2 * sqrt (2 / PI) * z <= gelu_tanh_arg z.
Proof.
  intros z Hz. unfold gelu_tanh_arg. pose proof sqrt_2_pi_pos.
  assert (0 <= 44715 / 1000000 * z ^ 3).
  { apply Rmult_le_pos; [lra|]. apply pow_le. assumption. }
  nra.
Qed.

Lemma gelu_tanh_gate_sym : forall z, gelu_tanh_gate z + gelu_tanh_gate (- z) = 1.
Proof.
  intros. rewrite !gelu_tanh_gate_sigmoid, gelu_tanh_arg_odd. apply sigmoid_flip.
Qed.

Lemma gelu_tanh_gate_bounds : forall z, 0 <= gelu_tanh_gate z <= 1.
Proof.
  intros. rewrite gelu_tanh_gate_sigmoid. pose proof (sigmoid_bounds (gelu_tanh_arg z)). lra.
Qed.

(** [t -> a t] tends to [+oo] for [a > 0]. *)
Lemma is_lim_linear_p : forall a, 0 < a -> is_lim (fun t => a * t) p_infty p_infty.
Proof.
  intros a Ha. apply is_lim_spec. intros M. exists (M / a). intros t Ht.
  apply Rmult_lt_reg_r with (/ a); [apply Rinv_0_lt_compat; lra|].
  replace (a * t * / a) with t by (field; lra). exact Ht.
Qed.

Lemma gelu_tanh_gate_lim_p_infty : is_lim gelu_tanh_gate p_infty 1.
Proof.
  pose proof sqrt_2_pi_pos as Hk.
  apply (is_lim_le_le_loc (fun z => sigmoid (2 * sqrt (2 / PI) * z)) (fun _ => 1)).
  - exists 0. intros z Hz. rewrite gelu_tanh_gate_sigmoid. split.
    + apply sigmoid_mono, gelu_tanh_arg_ge. lra.
    + pose proof (sigmoid_bounds (gelu_tanh_arg z)). lra.
  - apply (is_lim_comp sigmoid (fun z => 2 * sqrt (2 / PI) * z) p_infty 1 p_infty).
    + apply sigmoid_lim_p_infty.
    + apply is_lim_linear_p. lra.
    + exists 0. intros. discriminate.
  - apply is_lim_const.
Qed.

Lemma gelu_tanh_gate_lim_m_infty : is_lim gelu_tanh_gate m_infty 0.
Proof.
  apply is_lim_reflect.
  apply (is_lim_ext (fun z => 1 - gelu_tanh_gate z));
    [intros z; pose proof (gelu_tanh_gate_sym z); lra|].
  replace (Finite 0) with (Finite (1 - 1)) by (f_equal; ring).
  apply (is_lim_minus' (fun _ => 1)); [apply is_lim_const|apply gelu_tanh_gate_lim_p_infty].
Qed.

(** ** relu *)

Definition relu (z : R) : R := Rmax z 0.

(** relu commutes with positive scalings. *)
Lemma relu_pos_scale : forall t z, 0 < t -> relu (t * z) = t * relu z.
Proof.
  intros t z Ht. unfold relu, Rmax.
  destruct (Rle_dec (t * z) 0), (Rle_dec z 0); nra.
Qed.

(** relu is [z] times the unit step. *)
Definition unit_step (z : R) : R := if Rle_dec z 0 then 0 else 1.

Lemma relu_step : forall z, relu z = z * unit_step z.
Proof. intros z. unfold relu, unit_step, Rmax. destruct (Rle_dec z 0); ring. Qed.

Lemma unit_step_lim_p_infty : is_lim unit_step p_infty 1.
Proof.
  apply (is_lim_ext_loc (fun _ => 1)); [|apply is_lim_const].
  exists 0. intros z Hz. unfold unit_step. destruct (Rle_dec z 0); [lra|reflexivity].
Qed.

Lemma unit_step_lim_m_infty : is_lim unit_step m_infty 0.
Proof.
  apply (is_lim_ext_loc (fun _ => 0)); [|apply is_lim_const].
  exists 0. intros z Hz. unfold unit_step. destruct (Rle_dec z 0); [reflexivity|lra].
Qed.

(** ** Odd parts: [s z - s (-z) = z] *)

(** The generic step: [z g(z)] with [g z + g (-z) = 1]. *)
Lemma times_gate_odd_part : forall g : R -> R,
  (forall z, g z + g (- z) = 1) -> forall z, z * g z - (- z) * g (- z) = z.
Proof.
  intros g H z. replace (z * g z - - z * g (- z)) with (z * (g z + g (- z))) by ring.
  rewrite H. ring.
Qed.

Lemma relu_odd_part : forall z, relu z - relu (- z) = z.
Proof. intros z. unfold relu, Rmax. destruct (Rle_dec z 0), (Rle_dec (- z) 0); lra. Qed.

Lemma gelu_odd_part : forall z, gelu z - gelu (- z) = z.
Proof. exact (times_gate_odd_part Phi Phi_sym). Qed.

Lemma silu_odd_part : forall z, silu z - silu (- z) = z.
Proof. exact (times_gate_odd_part sigmoid sigmoid_flip). Qed.

Lemma gelu_tanh_odd_part : forall z, gelu_tanh z - gelu_tanh (- z) = z.
Proof.
  intros z. rewrite !gelu_tanh_gate_eq. apply (times_gate_odd_part gelu_tanh_gate gelu_tanh_gate_sym).
Qed.

(** ** Value 0 and continuity at 0 (the gated corollaries) *)

Lemma times_bounded_continuous_at_0 : forall s : R -> R,
  (forall z, Rabs (s z) <= 1) -> continuity_pt (fun z => z * s z) 0.
Proof.
  intros s Hs. unfold continuity_pt, continue_in, limit1_in, limit_in.
  intros eps Heps. exists eps. split; [assumption|].
  intros z [_ Hz]. simpl in *. unfold R_dist in *.
  rewrite Rmult_0_l, Rminus_0_r. rewrite Rminus_0_r in Hz.
  rewrite Rabs_mult. pose proof (Hs z). pose proof (Rabs_pos z). nra.
Qed.

Lemma unit_interval_abs : forall r, 0 <= r <= 1 -> Rabs r <= 1.
Proof. intros r Hr. rewrite Rabs_right by lra. lra. Qed.

Lemma gelu_zero : gelu 0 = 0.
Proof. unfold gelu. ring. Qed.

Lemma gelu_continuous_at_0 : continuity_pt gelu 0.
Proof.
  apply (times_bounded_continuous_at_0 Phi). intros z. apply unit_interval_abs, Phi_bounds.
Qed.

Lemma gelu_tanh_zero : gelu_tanh 0 = 0.
Proof. unfold gelu_tanh. field. Qed.

Lemma gelu_tanh_continuous_at_0 : continuity_pt gelu_tanh 0.
Proof.
  apply (continuity_pt_ext (fun z => z * gelu_tanh_gate z));
    [intros; symmetry; apply gelu_tanh_gate_eq|].
  apply times_bounded_continuous_at_0. intros z. apply unit_interval_abs, gelu_tanh_gate_bounds.
Qed.

Lemma silu_zero : silu 0 = 0.
Proof. unfold silu. ring. Qed.

Lemma silu_continuous_at_0 : continuity_pt silu 0.
Proof.
  apply (times_bounded_continuous_at_0 sigmoid). intros z.
  apply unit_interval_abs. pose proof (sigmoid_bounds z). lra.
Qed.

(** ** The limit property: [s (t z + c) / t -> relu z] as [t -> +oo] *)

Lemma is_lim_affine : forall z c, 0 < z -> is_lim (fun t => t * z + c) p_infty p_infty.
Proof.
  intros z c Hz. apply is_lim_spec. intros M. exists ((M - c) / z). intros t Ht.
  apply Rmult_lt_compat_r with (r := z) in Ht; [|assumption].
  unfold Rdiv in Ht. rewrite Rmult_assoc, Rinv_l in Ht by lra. lra.
Qed.

Lemma is_lim_affine_neg : forall z c, z < 0 -> is_lim (fun t => t * z + c) p_infty m_infty.
Proof.
  intros z c Hz. apply is_lim_spec. intros M. exists ((c - M) / (- z)). intros t Ht.
  apply Rmult_lt_compat_r with (r := - z) in Ht; [|lra].
  unfold Rdiv in Ht. rewrite Rmult_assoc, Rinv_l in Ht by lra. lra.
Qed.

Lemma is_lim_shift_over_t : forall z c, is_lim (fun t => z + c / t) p_infty z.
Proof.
  intros z c. replace (Finite z) with (Finite (z + c * 0)) by (f_equal; ring).
  apply (is_lim_plus' (fun _ => z)); [apply is_lim_const|].
  apply (is_lim_scal_l (fun t => / t) c p_infty 0).
  replace (Finite 0) with (Rbar_inv p_infty) by reflexivity.
  apply is_lim_inv; [apply is_lim_id|discriminate].
Qed.

(** The generic argument: an activation [z g(z)] whose gate tends to 1 at
    [+oo] and to 0 at [-oo] has [s (t z + c) / t -> relu z]. *)
Lemma gate_limit_relu : forall g : R -> R,
  is_lim g p_infty 1 -> is_lim g m_infty 0 ->
  forall z c, is_lim (fun t => (t * z + c) * g (t * z + c) / t) p_infty (relu z).
Proof.
  intros g Hp Hm z c.
  apply (is_lim_ext_loc (fun t => (z + c / t) * g (t * z + c))).
  { exists 0. intros t Ht. field. lra. }
  destruct (Rtotal_order z 0) as [Hz|[Hz|Hz]].
  - replace (relu z) with (z * 0) by (unfold relu, Rmax; destruct (Rle_dec z 0); lra).
    apply (is_lim_mult _ _ p_infty z 0); [apply is_lim_shift_over_t| |exact I].
    apply (is_lim_comp g (fun t => t * z + c) p_infty 0 m_infty);
      [exact Hm|apply is_lim_affine_neg; exact Hz|exists 0; intros; discriminate].
  - subst z. replace (relu 0) with (0 * g c) by (unfold relu, Rmax; destruct (Rle_dec 0 0); lra).
    apply (is_lim_ext (fun t => (0 + c / t) * g c)); [intros t; repeat f_equal; ring|].
    apply (is_lim_scal_r _ (g c) p_infty 0). apply is_lim_shift_over_t.
  - replace (relu z) with (z * 1) by (unfold relu, Rmax; destruct (Rle_dec z 0); lra).
    apply (is_lim_mult _ _ p_infty z 1); [apply is_lim_shift_over_t| |exact I].
    apply (is_lim_comp g (fun t => t * z + c) p_infty 1 p_infty);
      [exact Hp|apply is_lim_affine; exact Hz|exists 0; intros; discriminate].
Qed.

(** The same for an activation [s] written as [z g(z)]. *)
Lemma times_gate_limit_relu : forall s g : R -> R, (forall y, s y = y * g y) ->
  is_lim g p_infty 1 -> is_lim g m_infty 0 ->
  forall z c, is_lim (fun t => s (t * z + c) / t) p_infty (relu z).
Proof.
  intros s g Hs Hp Hm z c. apply (is_lim_ext (fun t => (t * z + c) * g (t * z + c) / t));
    [intros; rewrite Hs; reflexivity|].
  apply gate_limit_relu; assumption.
Qed.

Theorem relu_limit_relu : forall z c,
  is_lim (fun t => relu (t * z + c) / t) p_infty (relu z).
Proof. exact (times_gate_limit_relu relu unit_step relu_step unit_step_lim_p_infty unit_step_lim_m_infty). Qed.

Theorem gelu_limit_relu : forall z c,
  is_lim (fun t => gelu (t * z + c) / t) p_infty (relu z).
Proof. apply gate_limit_relu; [apply Phi_lim_p_infty|apply Phi_lim_m_infty]. Qed.

Theorem silu_limit_relu : forall z c,
  is_lim (fun t => silu (t * z + c) / t) p_infty (relu z).
Proof. apply gate_limit_relu; [apply sigmoid_lim_p_infty|apply sigmoid_lim_m_infty]. Qed.

Theorem gelu_tanh_limit_relu : forall z c,
  is_lim (fun t => gelu_tanh (t * z + c) / t) p_infty (relu z).
Proof.
  exact (times_gate_limit_relu gelu_tanh gelu_tanh_gate gelu_tanh_gate_eq
           gelu_tanh_gate_lim_p_infty gelu_tanh_gate_lim_m_infty).
Qed.
