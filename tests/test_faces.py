"""The public faces of oracle/ (issue 26, items 4 and 5), read from the source with ``ast``:

* python-flint is imported only by ``oracle/core/rational.py``, which re-exports its types with
  every exact conversion, so "how a number becomes exact" has one home;
* no module uses another module's private name: neither ``from oracle.x import _name`` nor
  ``m._name`` on an imported oracle module (a name used across modules is public);
* the conversions are imported from ``oracle.core.rational`` itself, not through a re-export;
* sets of activations are the catalog's families: no activation name is tested, and no family
  written out, outside ``oracle/core/activations.py`` (and the format readers' name tables);
* every package of ``oracle/`` declares ``__all__``, and every name it lists exists.

Each check lists the offending files and lines, and each is attacked below with a planted
offence in a copy of the package, so that none of them passes by finding nothing to look at.
Run ``python tests/test_faces.py`` to print the offences of the working tree.
"""

from __future__ import annotations

import ast
import importlib
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# packages whose __all__ names functions (a library interface) rather than their modules; the
# claims package lists its modules in CLAIM_MODULES
API_PACKAGES = ("oracle.decide", "oracle.algebra.search", "oracle.claims")


def _sources(root: Path) -> list[tuple[Path, str, ast.Module]]:
    """Every module of the package under root: (path, dotted name, syntax tree)."""
    out = []
    for p in sorted((root / "oracle").rglob("*.py")):
        rel = p.relative_to(root).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        out.append((p, ".".join(parts), ast.parse(p.read_text(), filename=str(p))))
    return out


def _is_module(root: Path, dotted: str) -> bool:
    """True when the dotted name is a module or package of the tree under root."""
    base = root.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _absolute(node: ast.ImportFrom, here: str, is_package: bool) -> str:
    """The absolute module name of a (possibly relative) ``from ... import``."""
    if not node.level:
        return node.module or ""
    parts = here.split(".") if is_package else here.split(".")[:-1]
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


FLINT_HOME = "oracle.core.rational"


def flint_imports(root: Path = ROOT) -> list[str]:
    """Every import of python-flint (at any depth of a module) but in oracle/core/rational.py."""
    found = []
    for path, dotted, tree in _sources(root):
        if dotted == FLINT_HOME:
            continue
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            if any(n == "flint" or n.startswith("flint.") for n in names):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def _module_bindings(root: Path, tree: ast.Module, here: str, is_package: bool) -> dict[str, str]:
    """Names of the module bound to oracle modules by its imports (at any depth): name -> module."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "oracle" or a.name.startswith("oracle."):
                    if a.asname:
                        bound[a.asname] = a.name
                    else:
                        bound[a.name.split(".")[0]] = "oracle"
        elif isinstance(node, ast.ImportFrom):
            mod = _absolute(node, here, is_package)
            if mod == "oracle" or mod.startswith("oracle."):
                for a in node.names:
                    if a.name != "*" and _is_module(root, f"{mod}.{a.name}"):
                        bound[a.asname or a.name] = f"{mod}.{a.name}"
    return bound


def _chain(node: ast.Attribute) -> tuple[str, list[str]] | None:
    """``a.b.c`` as ('a', ['b', 'c']); None when the base is not a plain name."""
    attrs = []
    cur: ast.AST = node
    while isinstance(cur, ast.Attribute):
        attrs.append(cur.attr)
        cur = cur.value
    if not isinstance(cur, ast.Name):
        return None
    return cur.id, attrs[::-1]


def private_uses(root: Path = ROOT) -> list[str]:
    """Every use of another oracle module's private name: 'file:line: module._name'."""
    found = []
    for path, here, tree in _sources(root):
        is_package = path.name == "__init__.py"
        where = str(path.relative_to(root))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                mod = _absolute(node, here, is_package)
                if (mod == "oracle" or mod.startswith("oracle.")) and mod != here:
                    for a in node.names:
                        if _is_private(a.name):
                            found.append(f"{where}:{node.lineno}: from {mod} import {a.name}")
        bound = _module_bindings(root, tree, here, is_package)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
                continue
            chain = _chain(node)
            if chain is None or chain[0] not in bound:
                continue
            mod = bound[chain[0]]
            for attr in chain[1]:
                if _is_module(root, f"{mod}.{attr}"):
                    mod = f"{mod}.{attr}"
                    continue
                if _is_private(attr) and mod != here:
                    found.append(f"{where}:{node.lineno}: {mod}.{attr}")
                break
    return sorted(set(found))


def packages(root: Path = ROOT) -> list[str]:
    """Every package of oracle/ (a directory with __init__.py), the top-level one included."""
    return sorted(".".join(p.parent.relative_to(root).parts) for p in (root / "oracle").rglob("__init__.py"))


def _declared_all(path: Path) -> list[str] | None:
    """The literal ``__all__`` list of a module, or None when it declares none."""
    for node in ast.parse(path.read_text()).body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value is not None:
            value = ast.literal_eval(node.value)
            return list(value)
    return None


def packages_without_all(root: Path = ROOT) -> list[str]:
    """The packages of oracle/ whose __init__.py declares no ``__all__``."""
    return [p for p in packages(root)
            if _declared_all(root.joinpath(*p.split("."), "__init__.py")) is None]


# The catalog and the readers of file formats (which map a format's names to catalog names) may
# spell activation names; everywhere else a set of activations is one of the catalog's families.
NAME_HOMES = ("oracle/core/activations.py", "oracle/core/families.py", "oracle/core/formats/")


def _catalog_names() -> frozenset:
    from oracle.core import activations
    return frozenset(activations.CATALOG)


def activation_name_tests(root: Path = ROOT, names: frozenset = frozenset()) -> list[str]:
    """Hard-coded sets of activations outside the catalog: 'file:line: what'.

    * a comparison (==, !=, in, not in) with an activation name, or with a tuple, list or set
      holding one -- except ``== "relu"``: relu is the activation of relu-complete itself, so a
      test for it names that claim's subject, not a family;
    * a tuple, list or set literal of two or more activation names (a family written out)."""
    single = names - {"relu"}
    found = []
    for path, _, tree in _sources(root):
        rel = str(path.relative_to(root))
        if rel.startswith(NAME_HOMES):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                for operand in [node.left, *node.comparators]:
                    if isinstance(operand, ast.Constant) and operand.value in single:
                        found.append(f"{rel}:{node.lineno}: compares with {operand.value!r}")
                    elif isinstance(operand, (ast.Tuple, ast.List, ast.Set)):
                        hit = [e.value for e in operand.elts if isinstance(e, ast.Constant) and e.value in names]
                        if hit:
                            found.append(f"{rel}:{node.lineno}: tests membership in {hit}")
            elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                hit = [e.value for e in node.elts if isinstance(e, ast.Constant) and e.value in names]
                if len(hit) >= 2:
                    found.append(f"{rel}:{node.lineno}: a family written out: {hit}")
    return sorted(set(found))


# ---------------------------------------------------------------- the rules on the tree

def test_flint_is_imported_only_by_core_rational():
    found = flint_imports()
    assert found == [], ("python-flint imported outside oracle/core/rational.py (take the types and "
                         "converters from oracle.core.rational):\n  " + "\n  ".join(found))


def test_no_module_uses_another_modules_private_name():
    found = private_uses()
    assert found == [], ("private names used across modules (make them public or move them where "
                         "they belong):\n  " + "\n  ".join(found))


def test_activation_families_come_from_the_catalog():
    """Sets of activations are the catalog's families (oracle/core/activations.py), so that one new
    catalog entry joins every family whose properties it declares."""
    found = activation_name_tests(ROOT, _catalog_names())
    assert found == [], ("activation names tested outside the catalog (use a family of "
                         "oracle/core/activations.py):\n  " + "\n  ".join(found))


def test_every_package_declares_all():
    missing = packages_without_all()
    assert missing == [], "packages without __all__ in their __init__.py:\n  " + "\n  ".join(missing)


def test_every_name_in_all_exists():
    """A name listed in a package's ``__all__`` is bound in the package or is one of its modules
    (no stale entries), and every module of the package is listed."""
    stale = []
    for pkg in packages():
        base = ROOT.joinpath(*pkg.split("."))
        declared = _declared_all(base / "__init__.py") or []
        mod = importlib.import_module(pkg)
        stale += [f"{pkg}.{n}" for n in declared if not (hasattr(mod, n) or _is_module(ROOT, f"{pkg}.{n}"))]
        if len(set(declared)) != len(declared):
            stale.append(f"{pkg}: __all__ repeats a name")
        if pkg not in API_PACKAGES:
            modules = {p.stem for p in base.glob("*.py") if p.stem != "__init__"} | {
                p.parent.name for p in base.glob("*/__init__.py")}
            stale += [f"{pkg}: module {n} not in __all__" for n in sorted(modules - set(declared))]
    assert stale == [], "names in __all__ that the package does not bind:\n  " + "\n  ".join(stale)


def conversion_imports(root: Path = ROOT, rational_names: frozenset = frozenset()) -> list[str]:
    """Imports of oracle.core.rational's names from any other module (a re-export): 'file:line: ...'."""
    found = []
    dirs = [root / "oracle", root / "tests"]
    for p in sorted(q for d in dirs if d.is_dir() for q in d.rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text())):
            if (isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("oracle.")
                    and node.module != "oracle.core.rational"):
                bad = sorted(a.name for a in node.names if a.name in rational_names)
                if bad:
                    found.append(f"{p.relative_to(root)}:{node.lineno}: from {node.module} import {', '.join(bad)}")
    return found


def _rational_names() -> frozenset:
    from oracle.core import rational
    return frozenset(rational.__all__)


def test_conversions_come_from_core():
    """The exact conversions and the flint types are imported from oracle.core.rational itself,
    never through a module that re-exports them."""
    found = conversion_imports(ROOT, _rational_names())
    assert found == [], ("conversions imported through another module (import them from "
                         "oracle.core.rational):\n  " + "\n  ".join(found))


def test_the_package_list_covers_the_subpackages():
    """The scan sees the layers' subpackages (a wrong root would find nothing and pass)."""
    found = set(packages())
    for name in ("oracle", "oracle.core", "oracle.algebra", "oracle.algebra.search", "oracle.claims",
                 "oracle.decide", "oracle.formal", "oracle.report", "oracle.commands"):
        assert name in found, name
    assert len(_sources(ROOT)) > 60


# ---------------------------------------------------------------- the checks see planted offences

def _copy(tmp_path: Path) -> Path:
    dst = tmp_path / "repo"
    shutil.copytree(ROOT / "oracle", dst / "oracle", ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + "\n" + text + "\n")


def test_a_planted_flint_import_is_found(tmp_path):
    root = _copy(tmp_path)
    before = set(flint_imports(root))
    _append(root / "oracle" / "decide" / "witness.py", "def _planted():\n    import flint.flint_base\n")
    _append(root / "oracle" / "claims" / "gated.py", "from flint import fmpq as _planted_fmpq")
    _append(root / "oracle" / "core" / "blocks.py", "from flint import fmpq as _planted_in_core")
    _append(root / "oracle" / "core" / "rational.py", "from flint import fmpz as _allowed_here")
    new = set(flint_imports(root)) - before
    assert len(new) == 3, new
    assert {n.split(":")[0] for n in new} == {"oracle/decide/witness.py", "oracle/claims/gated.py",
                                              "oracle/core/blocks.py"}


def test_planted_private_uses_are_found(tmp_path):
    root = _copy(tmp_path)
    before = set(private_uses(root))
    _append(root / "oracle" / "decide" / "witness.py",
            "from oracle.core.activations import _planted_a\n"
            "from oracle.core import activations as acts_planted\n"
            "import oracle.core.rational\n"
            "import oracle.core.blocks as blocks_planted\n"
            "def f():\n"
            "    return (acts_planted._planted_b, oracle.core.rational._planted_c,\n"
            "            blocks_planted._planted_d, acts_planted.__name__, acts_planted.CATALOG)")
    _append(root / "oracle" / "algebra" / "search" / "gram.py", "from .modular import _planted_e")
    new = {n.split(": ", 1)[1] for n in set(private_uses(root)) - before}
    assert new == {"from oracle.core.activations import _planted_a",
                   "oracle.core.activations._planted_b", "oracle.core.rational._planted_c",
                   "oracle.core.blocks._planted_d",
                   "from oracle.algebra.search.modular import _planted_e"}, new


def test_a_re_exported_conversion_is_found(tmp_path):
    root = _copy(tmp_path)
    (root / "tests").mkdir()
    (root / "tests" / "test_planted.py").write_text("from oracle.algebra.exact import qmat\n"
                                                    "from oracle.core.rational import qvec\n")
    found = conversion_imports(root, _rational_names())
    assert "tests/test_planted.py:1: from oracle.algebra.exact import qmat" in found
    assert not any(f.startswith("tests/test_planted.py:2") for f in found)


def test_planted_activation_name_tests_are_found(tmp_path):
    root = _copy(tmp_path)
    before = set(activation_name_tests(root, _catalog_names()))
    _append(root / "oracle" / "decide" / "witness.py",
            'def _planted(a):\n'
            '    x = a == "glu" or a in ("swiglu",) or a == "relu"\n'
            '    return x, ["gelu", "silu"], {"reglu": 1}')
    _append(root / "oracle" / "core" / "formats" / "table.py", 'PLANTED = ("gelu", "silu")')
    new = {f.split(": ", 1)[1] for f in set(activation_name_tests(root, _catalog_names())) - before}
    assert new == {"compares with 'glu'", "tests membership in ['swiglu']",
                   "a family written out: ['gelu', 'silu']"}, new


def test_a_package_without_all_is_found(tmp_path):
    root = _copy(tmp_path)
    (root / "oracle" / "report" / "__init__.py").write_text('"""No __all__ here."""\n')
    assert "oracle.report" in packages_without_all(root)


if __name__ == "__main__":
    for title, items in (("flint outside oracle/core/rational.py", flint_imports()),
                         ("private names across modules", private_uses()),
                         ("packages without __all__", packages_without_all()),
                         ("conversions imported through another module",
                          conversion_imports(ROOT, _rational_names())),
                         ("activation names tested outside the catalog",
                          activation_name_tests(ROOT, _catalog_names()))):
        print(f"{title}: {len(items)}")
        for item in items:
            print(f"  {item}")
    sys.exit(0)
