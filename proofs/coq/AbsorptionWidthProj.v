(** * [absorption-width], the exact width with the projector [P_T]

    AbsorptionWidth.v ([absorption_width_exact]) states the minimal width
    of a nondegenerate bias-free relu block as [m + C], with [C] the least
    [|T| + 2 k] over disjoint sets [S], [T] of units and [k] such that
    [M + W_S U_S = sum_{i in T} y_i u_i^T + (k outer products)], where
    [u_i] is row [i] of [W_up].  The claim writes
    [C = min_{S, T} |T| + 2 rank ((M + W_S U_S) P_T)], with [P_T] the
    orthogonal projector onto [V-perp], [V = span {u_i : i in T}].

    As in ReluProjector.v, [rank (N P_T) <= k] is stated on [V-perp]
    itself: [N] agrees on [V-perp] with a sum of [k] outer products
    ([rank_on_perp_rows]).  That this is [rank (N P_T) <= k] is the
    argument in the header of ReluProjector.v ([P_T] is symmetric, maps
    every vector into [V-perp] and fixes [V-perp]); nothing there depends
    on which vectors span [V].  Here [V] is spanned by rows of [W_up]
    rather than by the normals [nrow_i]; the equivalence with the
    combination form ([rows_combination_iff_rank_on_perp_rows]) is the
    equivalence [comb_iff_on_gperp] of ReluProjector.v, which holds for any
    family of vectors, applied to the rows of [W_up].

    [absorption_width_exact_proj] and
    [absorption_width_exact_bias_free_proj] restate the exact width
    theorems with [rank_on_perp_rows]. *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg SignFlip Limit Width Rank Necessity DepthNarrow
  RealActivations ReluClasses ReluCompleteNec ReluComplete ReluCompleteIff AbsorptionWidth
  ReluProjector.
Open Scope R_scope.

(** ** The two definitions, for the rows of [W_up] *)

(** [x] lies in [V-perp]: orthogonal to the row [u_r] of [W_up] for
    every unit [r] in [T]. *)
Definition perp_rows (d m : nat) (Wu : mat) (T : nat -> bool) (x : vec) : Prop :=
  forall r, (r < m)%nat -> T r = true -> sum d (fun j => Wu r j * x j) = 0.

(** [N] restricted to [V-perp] is a sum of [k] outer products, i.e.
    [rank (N P_T) <= k]. *)
Definition rank_on_perp_rows (d m : nat) (Wu : mat) (N : mat) (T : nat -> bool) (k : nat) : Prop :=
  exists (a l : nat -> vec), forall x, perp_rows d m Wu T x -> forall o, (o < d)%nat ->
    mv d N x o = sum k (fun q => a q o * sum d (fun j => l q j * x j)).

(** The combination form used by [absorption_width_exact]. *)
Definition rows_combination (d m : nat) (Wu : mat) (N : mat) (T : nat -> bool) (k : nat) : Prop :=
  exists (y a l : nat -> vec), forall o j, (o < d)%nat -> (j < d)%nat ->
    N o j = sum m (fun i => if T i then y i o * Wu i j else 0) + sum k (fun q => a q o * l q j).

Theorem rows_combination_iff_rank_on_perp_rows : forall d m Wu N T k,
  rows_combination d m Wu N T k <-> rank_on_perp_rows d m Wu N T k.
Proof. intros d m Wu N T k. exact (comb_iff_on_gperp d m Wu N T k). Qed.

(** ** The exact width with the projector form *)

(** [absorption-width], exact width, projector form: for a nondegenerate
    bias-free relu block and any skip matrix [M], [M x + B(x)] equals a
    relu block of width [m'] (biases allowed) iff there are disjoint sets
    [S], [T] of units and [k] with [rank ((M + W_S U_S) P_T) <= k] and
    [m + |T| + 2 k <= m']. *)
Theorem absorption_width_exact_proj : forall (d m m' : nat) (M Wd Wu : mat)
  (nondegenerate : nondegenerate_block d m Wd Wu),
  realised d m m' M Wd Wu (fun _ => 0) (fun _ => 0) <->
  exists (S T : nat -> bool) (k : nat),
    (forall i, (i < m)%nat -> S i = true -> T i = false) /\
    rank_on_perp_rows d m Wu (fun o j => M o j + selected_product m S Wd Wu o j) T k /\
    (m + count m T + 2 * k <= m')%nat.
Proof.
  intros d m m' M Wd Wu nondegenerate.
  rewrite (absorption_width_exact d m m' M Wd Wu nondegenerate). split.
  - intros (S & T & k & HST & HD & Hn). exists S, T, k.
    split; [exact HST|split; [|exact Hn]].
    apply rows_combination_iff_rank_on_perp_rows. exact HD.
  - intros (S & T & k & HST & HR & Hn). exists S, T, k.
    split; [exact HST|split; [|exact Hn]].
    apply rows_combination_iff_rank_on_perp_rows in HR. exact HR.
Qed.

(** The same with a bias-free replacing block. *)
Theorem absorption_width_exact_bias_free_proj : forall (d m m' : nat) (M Wd Wu : mat)
  (nondegenerate : nondegenerate_block d m Wd Wu),
  (exists Wd' Wu' : mat, forall x i, (i < d)%nat ->
     mv d M x i + block d m relu Wd Wu x i = block d m' relu Wd' Wu' x i) <->
  exists (S T : nat -> bool) (k : nat),
    (forall i, (i < m)%nat -> S i = true -> T i = false) /\
    rank_on_perp_rows d m Wu (fun o j => M o j + selected_product m S Wd Wu o j) T k /\
    (m + count m T + 2 * k <= m')%nat.
Proof.
  intros d m m' M Wd Wu nondegenerate.
  rewrite (absorption_width_exact_bias_free d m m' M Wd Wu nondegenerate).
  rewrite <- (absorption_width_exact d m m' M Wd Wu nondegenerate).
  apply (absorption_width_exact_proj d m m' M Wd Wu nondegenerate).
Qed.
