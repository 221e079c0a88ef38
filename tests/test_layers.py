"""The layout of oracle/ (docs/architecture.md): layered subpackages, no import cycle, imports at
module top, and no arrow from the decisions to the claims.  The layers and forbidden contracts are
import-linter's, configured in pyproject.toml; the attacks below plant an upward import, a
decide -> claims import, a cycle and a stray function-level import in copies of the package and
require each check to refuse them."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
LAYERS = ["oracle.core", "oracle.algebra", "oracle.claims", "oracle.decide | oracle.formal",
          "oracle.report", "oracle.commands", "oracle.cli"]
MAX_LAZY = 15  # function-level imports of project modules, each with a reason


def _lint(root: Path) -> subprocess.CompletedProcess:
    """import-linter's layers contract on the package found under root (its pyproject.toml)."""
    code = ("import sys; from importlinter.cli import lint_imports; "
            "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, no_logo=True))")
    return subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}, timeout=300)


_CYCLES = r"""
import json, sys
import grimp

graph = grimp.build_graph("oracle", cache_dir=None)
index, low, stack, on, out = {}, {}, [], set(), []
sys.setrecursionlimit(10_000)


def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on.add(v)
    for w in sorted(graph.find_modules_directly_imported_by(v)):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            out.append(sorted(comp))


for v in sorted(graph.modules):
    if v not in index:
        visit(v)
print(json.dumps(out))
"""


def _cycles(root: Path) -> list[set[str]]:
    """The import cycles of the package under root: strongly connected components of more than
    one module (Tarjan's algorithm on grimp's graph of every import, lazy ones included).  Run in
    a subprocess so that this test process keeps its own imported modules."""
    res = subprocess.run([sys.executable, "-c", _CYCLES], cwd=root, capture_output=True, text=True,
                         env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}, timeout=300)
    assert res.returncode == 0, res.stderr
    return [set(c) for c in json.loads(res.stdout)]


def _lazy_imports(root: Path) -> list[tuple[str, int, str, bool]]:
    """Function-level imports of project modules: (file, line, module, has a reason comment)."""
    found = []
    for p in sorted((root / "oracle").rglob("*.py")):
        src = p.read_text()
        lines = src.splitlines()
        tree = ast.parse(src)
        top = set(map(id, tree.body))
        for node in ast.walk(tree):
            if id(node) in top or not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            mods = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            if isinstance(node, ast.ImportFrom) and node.level:
                mods = ["oracle.<relative>"]
            for mod in mods:
                if mod == "oracle" or mod.startswith("oracle."):
                    here = lines[node.lineno - 1]
                    above = lines[node.lineno - 2] if node.lineno > 1 else ""
                    reason = "# lazy:" in here or above.strip().startswith("# lazy:")
                    found.append((str(p.relative_to(root)), node.lineno, mod, reason))
    return found


def _copy(tmp_path: Path) -> Path:
    dst = tmp_path / "repo"
    shutil.copytree(ROOT / "oracle", dst / "oracle", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", dst / "pyproject.toml")
    return dst


def test_layers_contract_is_kept():
    res = _lint(ROOT)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "2 kept, 0 broken" in res.stdout


def test_decide_may_not_import_claims():
    """Beside the layers, a forbidden contract: oracle.decide takes what it shares with the claims
    from oracle.algebra, never from oracle.claims (the layers alone would allow that arrow)."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    forbidden = [c for c in contracts if c["type"] == "forbidden"]
    assert [(c["source_modules"], c["forbidden_modules"]) for c in forbidden] == [(["oracle.decide"],
                                                                                   ["oracle.claims"])]
    assert "allow_indirect_imports" not in forbidden[0]      # indirect arrows are forbidden too


def test_contract_names_every_subpackage():
    """Every subpackage of oracle/ sits in a layer: a new room cannot escape the contract."""
    import tomllib

    layers = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]["layers"]
    named = {n.strip() for layer in layers for n in layer.split("|")}
    subpackages = {f"oracle.{p.name}" for p in (ROOT / "oracle").iterdir()
                   if p.is_dir() and (p / "__init__.py").exists()}
    flat = {f"oracle.{p.stem}" for p in (ROOT / "oracle").glob("*.py") if p.stem != "__init__"}
    assert subpackages | flat <= named, sorted((subpackages | flat) - named)
    assert list(reversed(layers)) == LAYERS


def test_at_most_two_flat_modules_and_four_subpackages():
    flat = sorted(p.name for p in (ROOT / "oracle").glob("*.py") if p.name not in ("__init__.py", "cli.py"))
    subpackages = [p for p in (ROOT / "oracle").iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    assert len(flat) <= 2, flat
    assert len(subpackages) >= 4


def test_no_import_cycle():
    assert _cycles(ROOT) == []


def test_few_function_level_imports_each_with_a_reason():
    lazy = _lazy_imports(ROOT)
    assert len(lazy) <= MAX_LAZY, lazy
    assert [x for x in lazy if not x[3]] == [], "a function-level import needs a '# lazy: <reason>' comment"


def test_no_relative_imports_of_other_layers():
    """Imports name their layer (``from oracle.core import blocks``), so a reader sees the arrow."""
    assert [x for x in _lazy_imports(ROOT) if x[2] == "oracle.<relative>"] == []


# ---------------------------------------------------------------- attacks on the checks

def test_an_upward_import_breaks_the_contract(tmp_path):
    repo = _copy(tmp_path)
    f = repo / "oracle" / "core" / "blocks.py"
    f.write_text(f.read_text() + "\nfrom oracle.commands import output  # planted upward import\n")
    res = _lint(repo)
    assert res.returncode != 0
    assert "BROKEN" in res.stdout and "oracle.core.blocks -> oracle.commands.output" in res.stdout


def test_a_lazy_upward_import_breaks_the_contract(tmp_path):
    """An import hidden inside a function is still an arrow."""
    repo = _copy(tmp_path)
    f = repo / "oracle" / "algebra" / "canonical.py"
    f.write_text(f.read_text() + "\n\ndef _planted():\n    from oracle.decide import block\n    return block\n")
    res = _lint(repo)
    assert res.returncode != 0 and "oracle.algebra.canonical -> oracle.decide.block" in res.stdout


def test_a_decide_to_claims_import_breaks_the_forbidden_contract(tmp_path):
    """An arrow the layers allow (decide is above claims) but the forbidden contract refuses, even
    inside a function."""
    repo = _copy(tmp_path)
    f = repo / "oracle" / "decide" / "stacks.py"
    f.write_text(f.read_text() + "\n\ndef _planted():\n    from oracle.claims import depth_stacks\n"
                 "    return depth_stacks\n")
    res = _lint(repo)
    assert res.returncode != 0
    assert "1 kept, 1 broken" in res.stdout and "oracle.decide.stacks -> oracle.claims.depth_stacks" in res.stdout


def test_a_cycle_inside_a_layer_is_found(tmp_path):
    repo = _copy(tmp_path)
    f = repo / "oracle" / "core" / "errors.py"
    f.write_text(f.read_text() + "\n\ndef _planted():\n    from oracle.core import blocks\n    return blocks\n")
    cycles = _cycles(repo)
    assert any({"oracle.core.errors", "oracle.core.blocks"} <= c for c in cycles), cycles


def test_a_stray_lazy_import_is_counted_and_needs_a_reason(tmp_path):
    repo = _copy(tmp_path)
    f = repo / "oracle" / "claims" / "gated.py"
    f.write_text(f.read_text() + "\n\ndef _planted():\n    from oracle.core import arith\n    return arith\n")
    lazy = _lazy_imports(repo)
    assert ("oracle/claims/gated.py", len(f.read_text().splitlines()) - 1, "oracle.core", False) in lazy


def test_docs_name_every_subpackage():
    """docs/architecture.md and the README's layout section name every subpackage of oracle/."""
    names = sorted(p.name for p in (ROOT / "oracle").iterdir() if p.is_dir() and (p / "__init__.py").exists())
    arch = (ROOT / "docs/architecture.md").read_text()
    readme = (ROOT / "README.md").read_text()
    layout = readme[readme.index("## Layout"):]
    layout = layout[:layout.index("\n## ", 3)]
    for name in names:
        assert f"oracle/{name}/" in arch, f"docs/architecture.md does not name oracle/{name}/"
        assert f"  {name}/" in layout, f"the README's layout section does not name {name}/"
