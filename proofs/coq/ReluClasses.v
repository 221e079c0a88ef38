(** * Kink classes of a relu block with biases: the data of [relu-complete]

    A unit [i] of the block [B(x) = sum_i w_i relu(u_i . x + c_i) + b] with
    [u_i <> 0] has the affine kink hyperplane [{u_i . x + c_i = 0}].  We name
    a hyperplane by its normal form: divide [(u_i, c_i)] by the leading
    (first nonzero) entry of [u_i], so that the leading entry of the normal
    [u_H] is 1.  Two units lie on the same hyperplane iff their normal forms
    agree, and then [(u_i, c_i) = lam_i (u_H, b_H)] with [lam_i] the leading
    entry of [u_i].

    With [relu z = z/2 + |z|/2] the block reads
    [(M + L) x + k + sum_H alpha_H |u_H . x + b_H|] where
    [L = W_down W_up / 2] and the even coefficient of a class is
    [alpha_H = sum_{i in H} |lam_i| w_i / 2].  A class is a kink of [F] when
    [alpha_H <> 0]; we count each class once, at its first unit.

    [m*] is [|kinks| + min over signs s and sets T of kinks of
    (|T| + 2 rank (N_s P_T))], with [N_s = M + L - sum_H s_H alpha_H u_H^T]
    and [P_T] the orthogonal projector onto [span{u_H : H in T}]-perp.  We
    state [rank (N_s P_T) <= k] in the equivalent form (informal Lemma 3 of
    proofs/informal/relu-complete.md): [N_s = sum_{H in T} y_H u_H^T + R]
    for some vectors [y_H] and a matrix [R] that is a sum of [k] outer
    products.  "A sum of k outer products" is the usual definition of
    "rank at most k". *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg SignFlip Activations Limit.
Open Scope R_scope.

(** Boolean test of a real equality (decidable with the axioms of the reals). *)
Definition req_b (a b : R) : bool := if Req_EM_T a b then true else false.

(** The leading entry of [u] among [u 0 .. u (d-1)]: its first nonzero entry,
    or [0] when these entries are all zero. *)
Fixpoint lead (d : nat) (u : vec) : R :=
  match d with
  | O => 0
  | S k => if Req_EM_T (lead k u) 0 then u k else lead k u
  end.

(** The normal form [(u_H, b_H)] of the kink hyperplane of unit [i]. *)
Definition nrow (d : nat) (Wu : mat) (i : nat) : vec := fun j => Wu i j / lead d (Wu i).
Definition nbias (d : nat) (Wu : mat) (bu : vec) (i : nat) : R := bu i / lead d (Wu i).

(** [vec_eqb d a b]: [a j = b j] for every [j < d]. *)
Fixpoint vec_eqb (d : nat) (a b : vec) : bool :=
  match d with
  | O => true
  | S k => vec_eqb k a b && req_b (a k) (b k)
  end.

(** Units [i] and [j] have nonzero rows and the same kink hyperplane. *)
Definition same_kink (d : nat) (Wu : mat) (bu : vec) (i j : nat) : bool :=
  negb (req_b (lead d (Wu i)) 0) && negb (req_b (lead d (Wu j)) 0) &&
  vec_eqb d (nrow d Wu i) (nrow d Wu j) && req_b (nbias d Wu bu i) (nbias d Wu bu j).

(** The even coefficient [alpha_H] (a vector of [R^d], entry [o]) of the
    class of unit [r]: [sum_{i on the hyperplane of r} |lam_i| w_i / 2]. *)
Definition alpha (d m : nat) (Wd Wu : mat) (bu : vec) (r : nat) : vec :=
  fun o => sum m (fun i => if same_kink d Wu bu r i then Rabs (lead d (Wu i)) * Wd o i / 2 else 0).

(** [r] is the first unit of its class: its row is nonzero and no earlier
    unit lies on its hyperplane. *)
Fixpoint none_before (r : nat) (p : nat -> bool) : bool :=
  match r with
  | O => true
  | S k => none_before k p && negb (p k)
  end.
Definition first_of_class (d : nat) (Wu : mat) (bu : vec) (r : nat) : bool :=
  negb (req_b (lead d (Wu r)) 0) && none_before r (fun j => same_kink d Wu bu j r).

(** [r] names a kink of [F]: the first unit of a class with [alpha_H <> 0]. *)
Definition kink (d m : nat) (Wd Wu : mat) (bu : vec) (r : nat) : bool :=
  first_of_class d Wu bu r && negb (vec_eqb d (alpha d m Wd Wu bu r) (fun _ => 0)).

(** The number of [i < n] with [p i = true]. *)
Fixpoint count (n : nat) (p : nat -> bool) : nat :=
  match n with
  | O => O
  | S k => (count k p + (if p k then 1 else 0))%nat
  end.

(** [N_s = M + W_down W_up / 2 - sum_{kinks H} s_H alpha_H u_H^T], with
    [s_H = -1] where [s] is [true] and [+1] elsewhere. *)
Definition sgn (s : nat -> bool) (r : nat) : R := if s r then -1 else 1.
Definition Nmat (d m : nat) (M Wd Wu : mat) (bu : vec) (s : nat -> bool) : mat :=
  fun o j => M o j + sum m (fun i => Wd o i * Wu i j) / 2
             - sum m (fun r => if kink d m Wd Wu bu r
                               then sgn s r * alpha d m Wd Wu bu r o * nrow d Wu r j else 0).

(** [rank (N P_T) <= k], in the form of Lemma 3: [N] is a combination
    [sum_{H in T} y_H u_H^T] of the normals of [T] plus a sum of [k] outer
    products [a_q l_q^T]. *)
Definition completes (d m : nat) (Wu : mat) (N : mat) (T : nat -> bool) (k : nat) : Prop :=
  exists (y a l : nat -> vec),
    forall o j, (o < d)%nat -> (j < d)%nat ->
      N o j = sum m (fun r => if T r then y r o * nrow d Wu r j else 0)
              + sum k (fun q => a q o * l q j).

(** The width bound [m* <= m']: some signs [s], some set [T] of kinks and
    some [k >= rank (N_s P_T)] have [|kinks| + |T| + 2 k <= m']. *)
Definition width_suffices (d m m' : nat) (M Wd Wu : mat) (bu : vec) : Prop :=
  exists (s T : nat -> bool) (k : nat),
    (forall r, (r < m)%nat -> T r = true -> kink d m Wd Wu bu r = true) /\
    completes d m Wu (Nmat d m M Wd Wu bu s) T k /\
    (count m (kink d m Wd Wu bu) + count m T + 2 * k <= m')%nat.

(** [F = M x + B(x)] equals a relu block of width [m'] (biases allowed). *)
Definition realised (d m m' : nat) (M Wd Wu : mat) (bu bd : vec) : Prop :=
  exists (Wd' Wu' : mat) (bu' bd' : vec),
    forall x i, (i < d)%nat ->
      mv d M x i + bblock d m relu Wd Wu bu bd x i = bblock d m' relu Wd' Wu' bu' bd' x i.

(** The theorem to prove (proofs/informal/relu-complete.md):
    [Theorem relu_complete : forall d m m' M Wd Wu bu bd,
       realised d m m' M Wd Wu bu bd <-> width_suffices d m m' M Wd Wu bu.]
    [bd] does not enter [width_suffices]: the constant of [F] is matched by
    [b'_down]. *)
