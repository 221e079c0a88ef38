import Lake
open Lake DSL

/-! Lake configuration of the Lean mirror of the skip-absorption arguments.
Mathlib is pinned to one commit; `lean-toolchain` names the matching Lean release
(see README.md for how the pair was chosen). -/

package «skip_absorption» where

require mathlib from git
  "https://github.com/leanprover-community/mathlib4" @ "d5854a1f22fbbbd6060223bb6c3769764b828701"

@[default_target]
lean_lib SkipAbsorption where
