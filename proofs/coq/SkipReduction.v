(** * Lemma 4: an invertible skip matrix reduces to the identity skip. *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg.
Open Scope R_scope.

(** [F] (a map [R^d -> R^d], compared on the coordinates [i < d]) equals an
    ungated residual-free block of activation [sigma] and width [m]. *)
Definition absorbable (d m : nat) (sigma : R -> R) (F : vec -> vec) : Prop :=
  exists Wd' Wu' : mat,
    forall x i, (i < d)%nat -> F x i = block d m sigma Wd' Wu' x i.

(** The same for gated residual-free blocks with gate [g] and width [m]. *)
Definition gabsorbable (d m : nat) (g : R -> R) (F : vec -> vec) : Prop :=
  exists Wd' Wg' Wu' : mat,
    forall x i, (i < d)%nat -> F x i = gblock d m g Wd' Wg' Wu' x i.

(** [Minv] is a two-sided inverse of [M] on the [d x d] index range. *)
Definition inverse_pair (d : nat) (M Minv : mat) : Prop :=
  forall i j, (i < d)%nat -> (j < d)%nat ->
    matmul d M Minv i j = ident i j /\ matmul d Minv M i j = ident i j.

(** The core argument, for an arbitrary family [P] of hidden-layer maps:
    multiplying by [Minv] (resp. [M]) moves between the two forms, because
    the residual-free class is closed under left multiplication of the
    down-projection. *)
Lemma reduction_generic :
  forall (d m : nat) (M Minv Wd : mat) (h : vec -> nat -> R)
         (P : (vec -> nat -> R) -> Prop),
  inverse_pair d M Minv ->
  (exists Wd' h', P h' /\ forall x i, (i < d)%nat ->
       mv d M x i + readout m Wd (h x) i = readout m Wd' (h' x) i) <->
  (exists Wd' h', P h' /\ forall x i, (i < d)%nat ->
       x i + readout m (matmul d Minv Wd) (h x) i = readout m Wd' (h' x) i).
Proof.
  intros d m M Minv Wd h P Hinv. split.
  - intros (Wd' & h' & HP & Heq). exists (matmul d Minv Wd'), h'. split; [exact HP|].
    intros x i Hi. rewrite !readout_matmul.
    rewrite (mv_ext d Minv (readout m Wd' (h' x))
               (fun k => mv d M x k + readout m Wd (h x) k))
      by (intros; symmetry; apply Heq; assumption).
    rewrite mv_plus, <- mv_matmul.
    rewrite (mv_row_ext d (matmul d Minv M) ident)
      by (intros; apply Hinv; assumption).
    rewrite mv_ident by assumption. ring.
  - intros (Wd' & h' & HP & Heq). exists (matmul d M Wd'), h'. split; [exact HP|].
    intros x i Hi. rewrite readout_matmul.
    rewrite (mv_ext d M (readout m Wd' (h' x))
               (fun k => x k + readout m (matmul d Minv Wd) (h x) k))
      by (intros; symmetry; apply Heq; assumption).
    rewrite mv_plus, <- readout_matmul. f_equal.
    apply readout_row_ext. intros l Hl. symmetry.
    rewrite matmul_assoc.
    unfold matmul at 1.
    rewrite (sum_ext d _ (fun k => ident i k * Wd k l)).
    + apply (sum_kron_l d (fun k => Wd k l)). assumption.
    + intros k Hk. f_equal. apply Hinv; assumption.
Qed.

(** Lemma 4, ungated form. *)
Theorem skip_reduction :
  forall (d m : nat) (sigma : R -> R) (M Minv Wd Wu : mat)
         (M_invertible : inverse_pair d M Minv),
  absorbable d m sigma (fun x i => mv d M x i + block d m sigma Wd Wu x i) <->
  absorbable d m sigma (fun x i => x i + block d m sigma (matmul d Minv Wd) Wu x i).
Proof.
  intros d m sigma M Minv Wd Wu M_invertible.
  pose (P := fun h' : vec -> nat -> R => exists Wu' : mat, h' = fun x l => sigma (mv d Wu' x l)).
  pose proof (reduction_generic d m M Minv Wd (fun x l => sigma (mv d Wu x l)) P M_invertible)
    as Hgen.
  unfold absorbable, block. split.
  - intros (Wd' & Wu' & Heq).
    destruct (proj1 Hgen) as (Wd'' & h'' & (Wu'' & ->) & Heq'').
    + exists Wd', (fun x l => sigma (mv d Wu' x l)). split; [exists Wu'; reflexivity|exact Heq].
    + exists Wd'', Wu''. exact Heq''.
  - intros (Wd' & Wu' & Heq).
    destruct (proj2 Hgen) as (Wd'' & h'' & (Wu'' & ->) & Heq'').
    + exists Wd', (fun x l => sigma (mv d Wu' x l)). split; [exists Wu'; reflexivity|exact Heq].
    + exists Wd'', Wu''. exact Heq''.
Qed.

(** Lemma 4, gated form. *)
Theorem skip_reduction_gated :
  forall (d m : nat) (g : R -> R) (M Minv Wd Wg Wu : mat)
         (M_invertible : inverse_pair d M Minv),
  gabsorbable d m g (fun x i => mv d M x i + gblock d m g Wd Wg Wu x i) <->
  gabsorbable d m g (fun x i => x i + gblock d m g (matmul d Minv Wd) Wg Wu x i).
Proof.
  intros d m g M Minv Wd Wg Wu M_invertible.
  pose (P := fun h' : vec -> nat -> R =>
               exists Wg' Wu' : mat, h' = fun x l => g (mv d Wg' x l) * mv d Wu' x l).
  pose proof (reduction_generic d m M Minv Wd
                (fun x l => g (mv d Wg x l) * mv d Wu x l) P M_invertible) as Hgen.
  unfold gabsorbable, gblock. split.
  - intros (Wd' & Wg' & Wu' & Heq).
    destruct (proj1 Hgen) as (Wd'' & h'' & (Wg'' & Wu'' & ->) & Heq'').
    + exists Wd', (fun x l => g (mv d Wg' x l) * mv d Wu' x l).
      split; [exists Wg', Wu'; reflexivity|exact Heq].
    + exists Wd'', Wg'', Wu''. exact Heq''.
  - intros (Wd' & Wg' & Wu' & Heq).
    destruct (proj2 Hgen) as (Wd'' & h'' & (Wg'' & Wu'' & ->) & Heq'').
    + exists Wd', (fun x l => g (mv d Wg' x l) * mv d Wu' x l).
      split; [exists Wg', Wu'; reflexivity|exact Heq].
    + exists Wd'', Wg'', Wu''. exact Heq''.
Qed.
