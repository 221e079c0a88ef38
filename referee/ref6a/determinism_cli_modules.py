# Referee ref6a: determinism.py after importing what the audit CLI imports (oracle.cli, every claim module).
# Run from the worktree root: nice .venv/bin/python referee/ref6a/determinism_cli_modules.py
import sys
sys.argv = ["x"]
import oracle.cli  # noqa
import oracle.claims as C
C.load()
from oracle.formal import consistency
consistency.static_findings  # noqa
import runpy
runpy.run_path("referee/ref6a/determinism.py", run_name="__main__")
