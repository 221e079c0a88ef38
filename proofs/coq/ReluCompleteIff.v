(** * relu-complete, both directions

    [relu_complete]: for every relu block [B] (biases allowed, degenerate
    allowed, any [d]) and every [M], a relu block of width [m'] (biases
    allowed) equals [x -> M x + B x] iff [m* <= m'] ([width_suffices] of
    ReluClasses.v).  Necessity: ReluCompleteNec.v; sufficiency:
    ReluComplete.v.

    [relu_complete_bias_free]: for a bias-free [B], biases in [B'] never
    save a unit: a biased block of width [m'] equals [M x + B x] iff a
    bias-free one does, iff [m* <= m']. *)

From Coq Require Import Reals Lra Lia.
From SkipAbsorption Require Import Linalg SignFlip Activations Limit ReluClasses
  ReluCompleteNec ReluComplete.
Open Scope R_scope.

Theorem relu_complete : forall d m m' M Wd Wu bu bd,
  realised d m m' M Wd Wu bu bd <-> width_suffices d m m' M Wd Wu bu.
Proof.
  intros. split; [apply relu_complete_necessity|apply relu_complete_sufficiency].
Qed.

Theorem relu_complete_bias_free : forall d m m' M Wd Wu,
  ((exists (Wd' Wu' : mat) (bu' bd' : vec), forall x i, (i < d)%nat ->
      mv d M x i + block d m relu Wd Wu x i = bblock d m' relu Wd' Wu' bu' bd' x i) <->
   width_suffices d m m' M Wd Wu (fun _ => 0)) /\
  ((exists Wd' Wu' : mat, forall x i, (i < d)%nat ->
      mv d M x i + block d m relu Wd Wu x i = block d m' relu Wd' Wu' x i) <->
   width_suffices d m m' M Wd Wu (fun _ => 0)).
Proof.
  intros d m m' M Wd Wu.
  assert (Nec : (exists (Wd' Wu' : mat) (bu' bd' : vec), forall x i, (i < d)%nat ->
      mv d M x i + block d m relu Wd Wu x i = bblock d m' relu Wd' Wu' bu' bd' x i) ->
      width_suffices d m m' M Wd Wu (fun _ => 0)).
  { intros (Wd' & Wu' & bu' & bd' & H). apply (relu_complete_necessity d m m' M Wd Wu _ (fun _ => 0)).
    exists Wd', Wu', bu', bd'. intros x i Hi. rewrite bblock_no_bias. apply H, Hi. }
  split; split.
  - exact Nec.
  - intros Hw. destruct (relu_complete_sufficiency_bias_free d m m' M Wd Wu Hw) as (Wd' & Wu' & H).
    exists Wd', Wu', (fun _ => 0), (fun _ => 0). intros x i Hi. rewrite bblock_no_bias. apply H, Hi.
  - intros (Wd' & Wu' & H). apply Nec. exists Wd', Wu', (fun _ => 0), (fun _ => 0).
    intros x i Hi. rewrite bblock_no_bias. apply H, Hi.
  - exact (relu_complete_sufficiency_bias_free d m m' M Wd Wu).
Qed.
