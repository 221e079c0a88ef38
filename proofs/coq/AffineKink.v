(** * Independence of [|u . x + b|] for distinct affine hyperplanes (Lemma 1 of relu-complete)

    The biased, affine generalisation of the kink and point lemmas of
    [Necessity.v] (proofs/informal/relu-complete.md, Lemma 1).
    - [affine_kink]: if [sum_k c_k |V_k . x + e_k|] is an affine function of
      [x], the second difference at [x0] in direction [u] shows that the terms
      vanishing at [x0] balance: [sum_{k : V_k.x0 + e_k = 0} c_k |V_k . u| = 0].
    - [avoid_affine] (in Necessity.v, where the linear case follows from
      it): on the hyperplane [{u . x + b = 0}] ([u <> 0]) there is a point at
      which [V_k . x + e_k <> 0] for every [k] whose pair [(V_k, e_k)] is not
      a multiple of [(u, b)].
    - [class_sum_zero]: hence, for every hyperplane in normal form [(g, beta)]
      (leading entry of [g] equal to 1), the coefficients of the rows lying on
      it, weighted by [|lam_k|] where [(V_k, e_k) = lam_k (g, beta)], sum to 0.
    - [affine_independence]: Lemma 1 as stated informally, for pairwise
      distinct hyperplanes in normal form.
    - [blocks_equal_hsum], [blocks_equal_linear], [blocks_equal_const]: two
      biased relu blocks with a skip, [M x + B x = B' x] for every [x], have
      the same class sums [alpha] on every hyperplane, the same linear part
      [M + W_down W_up / 2 = W'_down W'_up / 2] and the same constant. *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg SignFlip RealActivations Limit Necessity ReluClasses.
Open Scope R_scope.

(** ** The affine kink lemma *)

Lemma affine_kink : forall d n (c : nat -> R) (V : mat) (e : vec) (A : vec) (a : R),
  (forall x, sum n (fun k => c k * Rabs (mv d V x k + e k)) = dot d A x + a) ->
  forall x0 u : vec,
  sum n (fun k => if Req_EM_T (mv d V x0 k + e k) 0 then c k * Rabs (mv d V u k) else 0) = 0.
Proof.
  intros d n c V e A a H x0 u.
  destruct (pos_below n (fun k => step_bound (mv d V x0 k + e k) (mv d V u k))) as [t [Ht Hle]].
  { intros. apply step_bound_pos. }
  pose proof (H (fun j => x0 j + t * u j)) as Hp.
  pose proof (H (fun j => x0 j + - t * u j)) as Hm.
  pose proof (H x0) as H0.
  rewrite dot_axpy in Hp, Hm.
  set (f := fun x k => c k * Rabs (mv d V x k + e k)) in *.
  assert (Hsum : sum n (fun k => f (fun j => x0 j + t * u j) k + f (fun j => x0 j + - t * u j) k
                                 - 2 * f x0 k) = 0).
  { rewrite sum_minus, sum_plus, sum_scal_l. unfold f. rewrite Hp, Hm, H0. ring. }
  rewrite (sum_ext n _ (fun k => 2 * t *
             (if Req_EM_T (mv d V x0 k + e k) 0 then c k * Rabs (mv d V u k) else 0))) in Hsum.
  - rewrite sum_scal_l in Hsum. apply Rmult_integral in Hsum.
    destruct Hsum as [Hz|Hz]; [lra|exact Hz].
  - intros k Hk. unfold f. rewrite !mv_axpy.
    pose proof (second_difference _ _ (c k) t Ht (Hle k Hk)) as E.
    replace (mv d V x0 k + t * mv d V u k + e k) with (mv d V x0 k + e k + t * mv d V u k) by ring.
    replace (mv d V x0 k + - t * mv d V u k + e k)
      with (mv d V x0 k + e k + - t * mv d V u k) by ring.
    exact E.
Qed.

(** ** Reals, leading entries and normal forms *)

Lemma lead_ext : forall d u v, (forall j, (j < d)%nat -> u j = v j) -> lead d u = lead d v.
Proof.
  induction d as [|d IH]; intros u v H; simpl; [reflexivity|].
  rewrite (IH u v) by (intros; apply H; lia). rewrite (H d) by lia. reflexivity.
Qed.

Lemma lead_scale : forall d c u, lead d (fun j => c * u j) = c * lead d u.
Proof.
  induction d as [|d IH]; intros c u; simpl; [ring|].
  rewrite IH.
  destruct (Req_EM_T (c * lead d u) 0) as [E|E], (Req_EM_T (lead d u) 0) as [E'|E'].
  - reflexivity.
  - apply Rmult_integral in E. destruct E as [->|]; [ring|contradiction].
  - rewrite E' in E. lra.
  - reflexivity.
Qed.

Lemma lead_of_zero : forall d u, (forall j, (j < d)%nat -> u j = 0) -> lead d u = 0.
Proof.
  induction d as [|d IH]; intros u H; simpl; [reflexivity|].
  rewrite IH by (intros; apply H; lia). destruct (Req_EM_T 0 0); [apply H; lia|lra].
Qed.

Lemma lead_zero : forall d u, lead d u = 0 -> forall j, (j < d)%nat -> u j = 0.
Proof.
  induction d as [|d IH]; intros u H j Hj; simpl in H; [lia|].
  destruct (Req_EM_T (lead d u) 0) as [E|E]; [|contradiction].
  destruct (Nat.eq_dec j d) as [->|]; [assumption|apply IH; [assumption|lia]].
Qed.

Lemma lead_nonzero_pos : forall d u, lead d u <> 0 -> 0 < dot d u u.
Proof.
  intros d u H. apply dot_self_pos.
  induction d as [|d IH]; simpl in H; [lra|].
  destruct (Req_EM_T (lead d u) 0) as [E|E].
  - exists d. split; [lia|assumption].
  - destruct (IH E) as [j [Hj Hu]]. exists j. split; [lia|assumption].
Qed.

Lemma lead_nrow : forall d Wu i, lead d (Wu i) <> 0 -> lead d (nrow d Wu i) = 1.
Proof.
  intros d Wu i H. unfold nrow.
  rewrite (lead_ext d _ (fun j => / lead d (Wu i) * Wu i j)) by (intros; unfold Rdiv; ring).
  rewrite lead_scale. field. assumption.
Qed.

(** [v . x + e] on the hyperplane of a unit: [lead(v) (nrow . x + nbias)]. *)
Lemma affine_nrow : forall d (Wu : mat) (bu : vec) x i, lead d (Wu i) <> 0 ->
  mv d Wu x i + bu i = lead d (Wu i) * (dot d (nrow d Wu i) x + nbias d Wu bu i).
Proof.
  intros d Wu bu x i H. unfold nrow, nbias, dot, mv.
  rewrite Rmult_plus_distr_l, <- sum_scal_l. f_equal.
  - apply sum_ext. intros. field. assumption.
  - field. assumption.
Qed.

(** ** Rows on a hyperplane given in normal form *)

(** [(v, e)] lies on the hyperplane [{g . x + beta = 0}]: [v <> 0] and its
    normal form is [(g, beta)].  The multiplier is then [lead d v]. *)
Definition hclass (d : nat) (g : vec) (beta : R) (v : vec) (e : R) : bool :=
  negb (req_b (lead d v) 0) && vec_eqb d g (fun j => v j / lead d v) && req_b beta (e / lead d v).

Lemma hclass_true : forall d g beta v e, hclass d g beta v e = true <->
  lead d v <> 0 /\ (forall j, (j < d)%nat -> g j = v j / lead d v) /\ beta = e / lead d v.
Proof.
  intros. unfold hclass. rewrite !Bool.andb_true_iff, Bool.negb_true_iff, req_b_false,
    vec_eqb_true, req_b_true. tauto.
Qed.

Lemma hclass_row : forall d g beta v e, hclass d g beta v e = true ->
  (forall j, (j < d)%nat -> v j = lead d v * g j) /\ e = lead d v * beta.
Proof.
  intros d g beta v e H. apply hclass_true in H. destruct H as [H0 [Hg Hb]]. split.
  - intros j Hj. rewrite Hg by assumption. field. assumption.
  - rewrite Hb. field. assumption.
Qed.

Lemma hclass_of : forall d g beta v e c, lead d g = 1 -> c <> 0 ->
  (forall j, (j < d)%nat -> v j = c * g j) -> e = c * beta ->
  hclass d g beta v e = true /\ lead d v = c.
Proof.
  intros d g beta v e c Hg Hc Hv He.
  assert (Hl : lead d v = c).
  { rewrite (lead_ext d v (fun j => c * g j) Hv), lead_scale, Hg. ring. }
  split; [|exact Hl]. apply hclass_true. rewrite Hl. split; [assumption|split].
  - intros j Hj. rewrite Hv by assumption. field. assumption.
  - rewrite He. field. assumption.
Qed.

Lemma hclass_lead0 : forall d g beta v e, lead d v = 0 -> hclass d g beta v e = false.
Proof.
  intros d g beta v e H. unfold hclass. rewrite H.
  replace (req_b 0 0) with true by (symmetry; apply req_b_true; reflexivity). reflexivity.
Qed.

(** [same_kink] of [ReluClasses.v] is [hclass] at the normal form of its first unit. *)
Lemma same_kink_hclass : forall d Wu bu r k, lead d (Wu r) <> 0 ->
  same_kink d Wu bu r k = hclass d (nrow d Wu r) (nbias d Wu bu r) (Wu k) (bu k).
Proof.
  intros d Wu bu r k H. apply req_b_false in H. unfold same_kink, hclass. rewrite H. reflexivity.
Qed.

Lemma same_kink_lead0 : forall d Wu bu r k, lead d (Wu r) = 0 -> same_kink d Wu bu r k = false.
Proof.
  intros d Wu bu r k H. unfold same_kink. rewrite H.
  replace (req_b 0 0) with true by (symmetry; apply req_b_true; reflexivity). reflexivity.
Qed.

(** ** The class sums vanish *)

(** The rows on the hyperplane [(g, beta)], weighted by [|lam_k| c_k]. *)
Definition class_sum (d n : nat) (c : nat -> R) (V : mat) (e : vec) (g : vec) (beta : R) : R :=
  sum n (fun k => if hclass d g beta (V k) (e k) then Rabs (lead d (V k)) * c k else 0).

Theorem class_sum_zero : forall d n (c : nat -> R) (V : mat) (e : vec) (A : vec) (a : R),
  (forall x, sum n (fun k => c k * Rabs (mv d V x k + e k)) = dot d A x + a) ->
  forall g beta, lead d g = 1 -> class_sum d n c V e g beta = 0.
Proof.
  intros d n c V e A a H g beta Hg.
  assert (Hgg : 0 < dot d g g) by (apply lead_nonzero_pos; lra).
  destruct (avoid_affine d g beta Hgg n V e) as [x0 [Hx0 Hoff]].
  pose proof (affine_kink d n c V e A a H x0 g) as K.
  rewrite (sum_ext n _ (fun k => dot d g g *
             (if hclass d g beta (V k) (e k) then Rabs (lead d (V k)) * c k else 0))) in K.
  - rewrite sum_scal_l in K. apply Rmult_integral in K. unfold class_sum.
    destruct K as [K|K]; [lra|exact K].
  - intros k Hk. destruct (Req_EM_T (mv d V x0 k + e k) 0) as [E|E].
    + destruct (Hoff k Hk E) as [cc [Hv He]].
      rewrite (mv_collinear_row d V g g k cc Hv).
      destruct (Req_EM_T cc 0) as [->|Hc].
      * rewrite hclass_lead0.
        -- rewrite Rmult_0_l, Rabs_R0. ring.
        -- apply lead_of_zero. intros j Hj. rewrite Hv by assumption. ring.
      * destruct (hclass_of d g beta (V k) (e k) cc Hg Hc Hv He) as [-> ->].
        rewrite Rabs_mult, (Rabs_pos_eq (dot d g g)) by lra. ring.
    + destruct (hclass d g beta (V k) (e k)) eqn:Hk'; [|ring].
      exfalso. apply E. destruct (hclass_row d g beta (V k) (e k) Hk') as [Hv He].
      rewrite (mv_collinear_row d V g x0 k (lead d (V k)) Hv), He, dot_comm.
      replace (lead d (V k) * dot d x0 g + lead d (V k) * beta)
        with (lead d (V k) * (dot d g x0 + beta)) by (rewrite dot_comm; ring).
      rewrite Hx0. ring.
Qed.

(** ** Grouping equal terms by classes *)

(** If the weights of every class of an equivalence [E] sum to zero and [phi]
    is constant on classes, then [sum_k w_k phi_k = 0].  (Split each term
    evenly over the members of its class, swap the sums.) *)
Lemma class_cancel : forall n (E : nat -> nat -> bool) (w phi : nat -> R),
  (forall k, (k < n)%nat -> w k <> 0 -> E k k = true) ->
  (forall i k, (i < n)%nat -> (k < n)%nat -> E i k = true -> E k i = true) ->
  (forall i j k, (i < n)%nat -> (j < n)%nat -> (k < n)%nat ->
     E i j = true -> E j k = true -> E i k = true) ->
  (forall i k, (i < n)%nat -> (k < n)%nat -> E i k = true -> phi i = phi k) ->
  (forall r, (r < n)%nat -> sum n (fun k => if E r k then w k else 0) = 0) ->
  sum n (fun k => w k * phi k) = 0.
Proof.
  intros n E w phi Hrefl Hsym Htrans Hphi Hcls.
  set (cnt := fun k => sum n (fun r => if E r k then 1 else 0)).
  transitivity (sum n (fun k => sum n (fun r => if E r k then w k * phi k / cnt k else 0))).
  - apply sum_ext. intros k Hk. destruct (Req_EM_T (w k) 0) as [Hw|Hw].
    + rewrite Hw, Rmult_0_l. symmetry. apply sum_zero. intros r _. destruct (E r k); unfold Rdiv; ring.
    + assert (Hc : 1 <= cnt k).
      { unfold cnt. pose proof (Hrefl k Hk Hw) as Ekk.
        replace 1 with (if E k k then 1 else 0) at 1 by (rewrite Ekk; reflexivity).
        apply (term_le_sum n (fun r => if E r k then 1 else 0)); [|assumption].
        intros. destruct (E i k); lra. }
      rewrite (sum_ext n _ (fun r => w k * phi k / cnt k * (if E r k then 1 else 0)))
        by (intros r _; destruct (E r k); ring).
      rewrite sum_scal_l. fold (cnt k). field. lra.
  - rewrite sum_swap. apply sum_zero. intros r Hr.
    rewrite (sum_ext n _ (fun k => phi r / cnt r * (if E r k then w k else 0))).
    + rewrite sum_scal_l, Hcls by assumption. ring.
    + intros k Hk. destruct (E r k) eqn:Erk; [|ring].
      rewrite (Hphi r k Hr Hk Erk).
      replace (cnt r) with (cnt k); [unfold Rdiv; ring|].
      unfold cnt. apply sum_ext. intros q Hq.
      destruct (E q k) eqn:Eqk, (E q r) eqn:Eqr; try reflexivity.
      * exfalso. pose proof (Htrans q k r Hq Hk Hr Eqk (Hsym r k Hr Hk Erk)). congruence.
      * exfalso. pose proof (Htrans q r k Hq Hr Hk Eqr Erk). congruence.
Qed.

(** ** Two biased relu blocks that agree everywhere *)

(** [relu z = z/2 + |z|/2]. *)
Lemma relu_half : forall z, relu z = z / 2 + Rabs z / 2.
Proof. intros z. unfold relu, Rmax, Rabs. destruct (Rle_dec z 0), (Rcase_abs z); lra. Qed.

(** The form of a biased relu block: a linear part [W_down W_up / 2], a
    constant and the terms [w_l / 2 |u_l . x + c_l|]. *)
Lemma bblock_relu_form : forall d m (Wd Wu : mat) (bu bd : vec) x i,
  bblock d m relu Wd Wu bu bd x i =
  dot d (fun j => sum m (fun l => Wd i l * Wu l j) / 2) x
  + (sum m (fun l => Wd i l * bu l) / 2 + bd i)
  + sum m (fun l => Wd i l / 2 * Rabs (mv d Wu x l + bu l)).
Proof.
  intros. unfold bblock.
  rewrite (sum_ext m _ (fun l => Wd i l * mv d Wu x l / 2 + Wd i l * bu l / 2
                                 + Wd i l / 2 * Rabs (mv d Wu x l + bu l)))
    by (intros; rewrite relu_half; field).
  rewrite !sum_plus.
  assert (E : dot d (fun j => sum m (fun l => Wd i l * Wu l j) / 2) x =
              sum m (fun l => Wd i l * mv d Wu x l / 2)).
  { unfold dot, mv.
    transitivity (sum d (fun j => sum m (fun l => Wd i l * (Wu l j * x j) / 2))).
    - apply sum_ext. intros j _. unfold Rdiv. rewrite <- !sum_scal_r. apply sum_ext. intros. ring.
    - rewrite sum_swap. apply sum_ext. intros l _. unfold Rdiv.
      rewrite <- sum_scal_l, <- sum_scal_r. apply sum_ext. intros. ring. }
  rewrite E. unfold Rdiv. rewrite <- (sum_scal_r m (/ 2) (fun l => Wd i l * bu l)). ring.
Qed.

(** The rows of [B] followed by the rows of [B']. *)
Definition vstack (m : nat) (e e' : vec) : vec :=
  fun k => if (k <? m)%nat then e k else e' (k - m)%nat.
Definition fam_coef (m : nat) (Wd Wd' : mat) (i : nat) : nat -> R :=
  fun k => if (k <? m)%nat then Wd i k / 2 else - (Wd' i (k - m)%nat / 2).

(** Sums over the stacked family split into the two blocks. *)
Lemma sum_fam : forall m m' (Wu Wu' : mat) (bu bu' : vec) (Wd Wd' : mat) i
                       (F : nat -> vec -> R -> R -> R),
  sum (m + m') (fun k => F k (stack m Wu Wu' k) (vstack m bu bu' k) (fam_coef m Wd Wd' i k)) =
  sum m (fun k => F k (Wu k) (bu k) (Wd i k / 2))
  + sum m' (fun k => F (m + k)%nat (Wu' k) (bu' k) (- (Wd' i k / 2))).
Proof.
  intros. rewrite sum_split. f_equal.
  - apply sum_ext. intros k Hk. unfold stack, vstack, fam_coef.
    rewrite (proj2 (Nat.ltb_lt k m) Hk). reflexivity.
  - apply sum_ext. intros k _. unfold stack, vstack, fam_coef.
    replace ((m + k <? m)%nat) with false by (symmetry; apply Nat.ltb_ge; lia).
    replace (m + k - m)%nat with k by lia. reflexivity.
Qed.

(** The even parts of [M x + B x = B' x] differ by an affine map. *)
Lemma blocks_even_affine : forall d m m' (M Wd Wu Wd' Wu' : mat) (bu bd bu' bd' : vec),
  (forall x i, (i < d)%nat ->
     mv d M x i + bblock d m relu Wd Wu bu bd x i = bblock d m' relu Wd' Wu' bu' bd' x i) ->
  forall i, (i < d)%nat -> forall x,
  sum (m + m') (fun k => fam_coef m Wd Wd' i k *
                         Rabs (mv d (stack m Wu Wu') x k + vstack m bu bu' k)) =
  dot d (fun j => - M i j - sum m (fun l => Wd i l * Wu l j) / 2
                  + sum m' (fun l => Wd' i l * Wu' l j) / 2) x
  + (sum m' (fun l => Wd' i l * bu' l) / 2 + bd' i - (sum m (fun l => Wd i l * bu l) / 2 + bd i)).
Proof.
  intros d m m' M Wd Wu Wd' Wu' bu bd bu' bd' H i Hi x.
  pose proof (H x i Hi) as Hx. rewrite !bblock_relu_form, mv_dot in Hx.
  pose proof (sum_fam m m' Wu Wu' bu bu' Wd Wd' i (fun k v e c => c * Rabs (dot d v x + e))) as SF.
  cbv beta in SF. etransitivity; [exact SF|]. rewrite dot_comb.
  rewrite (sum_ext m' _ (fun k => - (Wd' i k / 2 * Rabs (mv d Wu' x k + bu' k)))) by
    (intros; rewrite mv_dot; ring).
  rewrite sum_opp.
  rewrite (sum_ext m (fun k => Wd i k / 2 * Rabs (dot d (Wu k) x + bu k))
             (fun k => Wd i k / 2 * Rabs (mv d Wu x k + bu k))) by reflexivity.
  lra.
Qed.

(** The class sum [alpha_G] of a block on the hyperplane [G = (g, beta)]. *)
Definition hsum (d m : nat) (Wd Wu : mat) (bu : vec) (g : vec) (beta : R) (o : nat) : R :=
  sum m (fun k => if hclass d g beta (Wu k) (bu k) then Rabs (lead d (Wu k)) * Wd o k / 2 else 0).

(** [alpha] of [ReluClasses.v] is [hsum] at the normal form of its unit. *)
Lemma alpha_hsum : forall d m Wd Wu bu r o, lead d (Wu r) <> 0 ->
  alpha d m Wd Wu bu r o = hsum d m Wd Wu bu (nrow d Wu r) (nbias d Wu bu r) o.
Proof.
  intros. unfold alpha, hsum. apply sum_ext. intros. rewrite same_kink_hclass by assumption.
  reflexivity.
Qed.

(** Lemma 1, consequence: two blocks with [M x + B x = B' x] have the same
    class sums on every hyperplane. *)
Theorem blocks_equal_hsum : forall d m m' (M Wd Wu Wd' Wu' : mat) (bu bd bu' bd' : vec),
  (forall x i, (i < d)%nat ->
     mv d M x i + bblock d m relu Wd Wu bu bd x i = bblock d m' relu Wd' Wu' bu' bd' x i) ->
  forall g beta, lead d g = 1 -> forall o, (o < d)%nat ->
  hsum d m Wd Wu bu g beta o = hsum d m' Wd' Wu' bu' g beta o.
Proof.
  intros d m m' M Wd Wu Wd' Wu' bu bd bu' bd' H g beta Hg o Ho.
  pose proof (class_sum_zero d (m + m') (fam_coef m Wd Wd' o) (stack m Wu Wu') (vstack m bu bu')
                _ _ (blocks_even_affine d m m' M Wd Wu Wd' Wu' bu bd bu' bd' H o Ho) g beta Hg) as K.
  unfold class_sum in K.
  pose proof (sum_fam m m' Wu Wu' bu bu' Wd Wd' o (fun k v e c =>
             if hclass d g beta v e then Rabs (lead d v) * c else 0)) as SF.
  cbv beta in SF. rewrite SF in K.
  rewrite (sum_ext m' _ (fun k => - (if hclass d g beta (Wu' k) (bu' k)
                                     then Rabs (lead d (Wu' k)) * Wd' o k / 2 else 0))) in K
    by (intros; destruct (hclass _ _ _ _ _); field).
  rewrite sum_opp in K. unfold hsum.
  rewrite (sum_ext m _ (fun k => if hclass d g beta (Wu k) (bu k)
                                 then Rabs (lead d (Wu k)) * (Wd o k / 2) else 0))
    by (intros; destruct (hclass _ _ _ _ _); field).
  lra.
Qed.

(** If [sum_k c_k |V_k . x + e_k|] is affine, it is the constant contributed
    by the zero rows. *)
Lemma even_collapse : forall d n (c : nat -> R) (V : mat) (e : vec) (A : vec) (a : R),
  (forall x, sum n (fun k => c k * Rabs (mv d V x k + e k)) = dot d A x + a) ->
  forall x, sum n (fun k => c k * Rabs (mv d V x k + e k)) =
            sum n (fun k => if req_b (lead d (V k)) 0 then c k * Rabs (e k) else 0).
Proof.
  intros d n c V e A a H x.
  set (w := fun k => if req_b (lead d (V k)) 0 then 0 else Rabs (lead d (V k)) * c k).
  set (phi := fun k => Rabs (dot d (nrow d V k) x + nbias d V e k)).
  rewrite (sum_ext n _ (fun k => w k * phi k
             + (if req_b (lead d (V k)) 0 then c k * Rabs (e k) else 0))).
  - rewrite sum_plus.
    rewrite (class_cancel n (same_kink d V e) w phi); [ring| | | | |].
    + intros k Hk Hw. apply same_kink_true. unfold w in Hw.
      destruct (req_b (lead d (V k)) 0) eqn:E; [lra|]. apply req_b_false in E.
      split; [assumption|split; [assumption|split; [reflexivity|reflexivity]]].
    + intros i k _ _ Hik. apply same_kink_true in Hik. apply same_kink_true.
      destruct Hik as (H1 & H2 & H3 & H4). split; [assumption|split; [assumption|split]].
      * intros j Hj. symmetry. apply H3. assumption.
      * symmetry. assumption.
    + intros i j k _ _ _ Hij Hjk. apply same_kink_true in Hij, Hjk. apply same_kink_true.
      destruct Hij as (H1 & H2 & H3 & H4), Hjk as (H5 & H6 & H7 & H8).
      split; [assumption|split; [assumption|split]].
      * intros j' Hj'. rewrite H3 by assumption. apply H7. assumption.
      * congruence.
    + intros i k _ _ Hik. apply same_kink_true in Hik. destruct Hik as (H1 & H2 & H3 & H4).
      unfold phi. rewrite H4. f_equal. f_equal. unfold dot. apply sum_ext. intros j Hj.
      rewrite H3 by assumption. reflexivity.
    + intros r Hr. destruct (Req_EM_T (lead d (V r)) 0) as [E|E].
      * apply sum_zero. intros k _. rewrite same_kink_lead0 by assumption. reflexivity.
      * transitivity (class_sum d n c V e (nrow d V r) (nbias d V e r));
          [|exact (class_sum_zero d n c V e A a H (nrow d V r) (nbias d V e r) (lead_nrow d V r E))].
        unfold class_sum. apply sum_ext. intros k Hk.
        rewrite <- same_kink_hclass by assumption.
        destruct (same_kink d V e r k) eqn:Erk; [|reflexivity].
        apply same_kink_true in Erk. destruct Erk as (_ & H2 & _). unfold w.
        apply req_b_false in H2. rewrite H2. reflexivity.
  - intros k Hk. unfold w, phi. destruct (req_b (lead d (V k)) 0) eqn:E.
    + apply req_b_true in E.
      assert (Hm : mv d V x k = 0).
      { unfold mv. apply sum_zero. intros j Hj. rewrite (lead_zero d (V k) E j Hj). ring. }
      rewrite Hm, Rplus_0_l. ring.
    + apply req_b_false in E. rewrite affine_nrow by assumption. rewrite Rabs_mult. ring.
Qed.

(** Lemma 1, consequence: two blocks with [M x + B x = B' x] have the same
    linear part, [M + W_down W_up / 2 = W'_down W'_up / 2] ... *)
Theorem blocks_equal_linear : forall d m m' (M Wd Wu Wd' Wu' : mat) (bu bd bu' bd' : vec),
  (forall x i, (i < d)%nat ->
     mv d M x i + bblock d m relu Wd Wu bu bd x i = bblock d m' relu Wd' Wu' bu' bd' x i) ->
  forall i j, (i < d)%nat -> (j < d)%nat ->
  M i j + sum m (fun l => Wd i l * Wu l j) / 2 = sum m' (fun l => Wd' i l * Wu' l j) / 2.
Proof.
  intros d m m' M Wd Wu Wd' Wu' bu bd bu' bd' H i j Hi Hj.
  pose proof (blocks_even_affine d m m' M Wd Wu Wd' Wu' bu bd bu' bd' H i Hi) as Haff.
  pose proof (even_collapse d _ _ _ _ _ _ Haff) as Hc.
  pose proof (Haff (unit_vec j)) as H1. pose proof (Haff (fun _ => 0)) as H0.
  rewrite Hc in H1, H0.
  assert (Hz : forall A : vec, dot d A (fun _ => 0) = 0).
  { intros. unfold dot. apply sum_zero. intros. ring. }
  assert (Hu : forall A : vec, dot d A (unit_vec j) = A j).
  { intros. unfold dot, unit_vec. apply sum_kron_r. assumption. }
  rewrite Hz in H0. rewrite Hu in H1. lra.
Qed.

(** ... and the same constant, counting [w_l relu(c_l)] for the units with
    a zero row ([relu c = c/2 + |c|/2]). *)
Definition zero_row_const (d m : nat) (Wd Wu : mat) (bu : vec) (i : nat) : R :=
  sum m (fun l => if req_b (lead d (Wu l)) 0 then Wd i l / 2 * Rabs (bu l) else 0).

Theorem blocks_equal_const : forall d m m' (M Wd Wu Wd' Wu' : mat) (bu bd bu' bd' : vec),
  (forall x i, (i < d)%nat ->
     mv d M x i + bblock d m relu Wd Wu bu bd x i = bblock d m' relu Wd' Wu' bu' bd' x i) ->
  forall i, (i < d)%nat ->
  sum m (fun l => Wd i l * bu l) / 2 + zero_row_const d m Wd Wu bu i + bd i =
  sum m' (fun l => Wd' i l * bu' l) / 2 + zero_row_const d m' Wd' Wu' bu' i + bd' i.
Proof.
  intros d m m' M Wd Wu Wd' Wu' bu bd bu' bd' H i Hi.
  pose proof (blocks_even_affine d m m' M Wd Wu Wd' Wu' bu bd bu' bd' H i Hi) as Haff.
  pose proof (even_collapse d _ _ _ _ _ _ Haff (fun _ => 0)) as Hc.
  rewrite Haff in Hc.
  replace (dot d _ (fun _ => 0)) with 0 in Hc by (symmetry; unfold dot; apply sum_zero; intros; ring).
  pose proof (sum_fam m m' Wu Wu' bu bu' Wd Wd' i (fun k v e c =>
             if req_b (lead d v) 0 then c * Rabs e else 0)) as SF.
  cbv beta in SF. rewrite SF in Hc.
  rewrite (sum_ext m' (fun k => if req_b (lead d (Wu' k)) 0 then - (Wd' i k / 2) * Rabs (bu' k) else 0)
             (fun k => - (if req_b (lead d (Wu' k)) 0 then Wd' i k / 2 * Rabs (bu' k) else 0)))
    in Hc by (intros; destruct (req_b _ _); ring).
  rewrite sum_opp in Hc. unfold zero_row_const. lra.
Qed.

(** ** Lemma 1 as stated in the informal proof *)

(** Pairwise distinct affine hyperplanes [{g_q . x + beta_q = 0}] in normal
    form (leading entry of [g_q] equal to 1): if [sum_q a_q |g_q . x + beta_q|]
    is an affine function of [x], every [a_q] is zero.  (A vector-valued
    identity is this, coordinate by coordinate.) *)
Theorem affine_independence : forall d n (G : mat) (beta : vec) (a : nat -> R) (A : vec) (a0 : R),
  (forall q, (q < n)%nat -> lead d (G q) = 1) ->
  (forall p q, (p < n)%nat -> (q < n)%nat -> p <> q ->
     ~ ((forall j, (j < d)%nat -> G p j = G q j) /\ beta p = beta q)) ->
  (forall x, sum n (fun q => a q * Rabs (dot d (G q) x + beta q)) = dot d A x + a0) ->
  forall p, (p < n)%nat -> a p = 0.
Proof.
  intros d n G beta a A a0 Hl Hd H p Hp.
  pose proof (class_sum_zero d n a G beta A a0 H (G p) (beta p) (Hl p Hp)) as K.
  unfold class_sum in K.
  rewrite (sum_ext n _ (fun q => kron p q * (Rabs (lead d (G q)) * a q))) in K.
  - rewrite (sum_kron_l n (fun q => Rabs (lead d (G q)) * a q) p Hp), (Hl p Hp), Rabs_R1 in K. lra.
  - intros q Hq. unfold kron. destruct (Nat.eq_dec p q) as [<-|Hne].
    + destruct (hclass_of d (G p) (beta p) (G p) (beta p) 1 (Hl p Hp) ltac:(lra)) as [-> _];
        [intros; ring|ring|ring].
    + destruct (hclass d (G p) (beta p) (G q) (beta q)) eqn:E; [|ring]. exfalso.
      apply (Hd p q Hp Hq Hne). apply hclass_true in E. destruct E as (_ & Hg & Hb).
      rewrite (Hl q Hq) in Hg, Hb. split.
      * intros j Hj. rewrite Hg by assumption. field.
      * rewrite Hb. field.
Qed.
