"""The audit's instances depend on the seed alone, not on which local modules are imported.

hypothesis (6.131 and later) mixes constants read from the source of imported non-site-packages
modules into its draws; oracle.claims.base.seed_only_draws empties that pool while the audit draws.
Each case runs in a fresh interpreter, once as is and once after importing a local module full of
constants, and compares the drawn values.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import hypothesis
from hypothesis.internal.conjecture import providers

ROOT = Path(__file__).resolve().parents[1]

DRAW = textwrap.dedent("""
    import contextlib, importlib, json, sys
    from hypothesis import Phase, given, seed, settings, strategies as st
    from oracle.claims.base import seed_only_draws
    guard, extra = sys.argv[1], sys.argv[2:]
    sys.path.insert(0, extra[0]) if extra else None
    for m in extra[1:]:
        importlib.import_module(m)
    out = []
    @seed(0)
    @settings(max_examples=300, database=None, deadline=None, phases=[Phase.generate])
    @given(st.integers(-10**6, 10**6), st.floats(-1e6, 1e6, allow_nan=False))
    def body(a, b):
        out.append([a, b])
    with (seed_only_draws() if guard == "guarded" else contextlib.nullcontext()):
        body()
    print(json.dumps(out))
""")

# a module outside site-packages (so hypothesis counts it as local) with constants in range
LOCAL = "SPECIAL_INTS = [987653, -876541, 765431]\nSPECIAL_FLOATS = [123456.75, -98765.25]\n"


def _draws(tmp: Path, guard: str, with_local: bool) -> list:
    script = tmp / "draw.py"
    script.write_text(DRAW)
    args = [sys.executable, str(script), guard]
    if with_local:
        (tmp / "localconsts.py").write_text(LOCAL)
        args += [str(tmp), "localconsts"]
    r = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout)


def test_guarded_draws_ignore_local_constants(tmp_path: Path) -> None:
    plain = _draws(tmp_path, "guarded", with_local=False)
    local = _draws(tmp_path, "guarded", with_local=True)
    assert len(plain) == 300
    assert plain == local


def test_unguarded_draws_depend_on_local_constants_exactly_when_hypothesis_has_the_pool(tmp_path: Path) -> None:
    """The hazard the guard removes: with hypothesis' pool of local constants (6.131 and later) the
    unguarded draws change and pick up the module's constants; without the pool they do not."""
    plain = _draws(tmp_path, "unguarded", with_local=False)
    local = _draws(tmp_path, "unguarded", with_local=True)
    flat = {v for pair in local for v in pair}
    picked = flat & {987653, -876541, 765431, 123456.75, -98765.25}
    if hasattr(providers, "_get_local_constants"):
        assert plain != local and picked, f"hypothesis {hypothesis.__version__}"
    else:
        assert plain == local and not picked, f"hypothesis {hypothesis.__version__}"
