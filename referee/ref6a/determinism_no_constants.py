# Referee ref6a: determinism.py with Hypothesis' local-constant pool emptied
# (hypothesis/internal/conjecture/providers.py, _get_local_constants).
# Run from the worktree root: nice .venv/bin/python referee/ref6a/determinism_no_constants.py
import runpy

import hypothesis.internal.conjecture.providers as P

P._get_local_constants = lambda: P.Constants()
runpy.run_path("referee/ref6a/determinism.py", run_name="__main__")
