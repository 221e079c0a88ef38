"""The one registry of the claim modules (oracle/claims/__init__.py): CLAIM_MODULES lists exactly the
modules that register oracle checks or boundary counterexamples, it covers every ``oracle`` field of
proofs/claims.toml, ``load()`` is the one loader (audit, consistency, report, recheck), the decorators
only attach metadata, and nothing leaks between loads: loading twice or executing a mutated copy of
a claim module changes nothing.  A claim module that does not import is an error with its reason.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
import sys
import tomllib
from pathlib import Path

import pytest

import oracle.claims as claim_modules
from oracle.claims import base
from oracle.commands import audit
from oracle.core.errors import RegistryError
from oracle.formal import consistency
from oracle.report import document

ROOT = Path(__file__).resolve().parents[1]
CLAIMS_DIR = ROOT / "oracle" / "claims"


def _registering_modules() -> set[str]:
    """Every module of oracle/claims that defines a function marked by @oracle_check or @counterexample."""
    out = set()
    for info in pkgutil.iter_modules([str(CLAIMS_DIR)]):
        mod = importlib.import_module(f"oracle.claims.{info.name}")
        if claim_modules.defined_here(mod, "check_info") or claim_modules.defined_here(mod, "counterexample_info"):
            out.add(info.name)
    return out


def test_the_list_is_exactly_the_registering_modules():
    assert len(set(claim_modules.CLAIM_MODULES)) == len(claim_modules.CLAIM_MODULES)
    assert set(claim_modules.CLAIM_MODULES) == _registering_modules()


def test_the_list_covers_every_oracle_field_of_the_registry():
    reg = tomllib.loads((ROOT / "proofs" / "claims.toml").read_text())["claim"]
    loaded = claim_modules.load()
    for c in reg:
        ref = c["oracle"]
        mod, _, fn = ref.partition(":")
        assert mod.startswith("oracle.claims.") and mod.split(".")[-1] in claim_modules.CLAIM_MODULES, ref
        assert ref in loaded.checks, ref
        assert loaded.checks[ref].check_info.claim == c["id"]
        assert claim_modules.resolve(ref) is getattr(importlib.import_module(mod), fn)
    # and every registered check belongs to some claim of the registry
    assert set(loaded.checks) == {c["oracle"] for c in reg}


def test_every_counterexample_names_registered_claims_and_is_collected_once():
    ids = {c["id"] for c in consistency.load_registry()}
    cexs = claim_modules.load().counterexamples
    names = [fn.__name__ for fn in cexs]
    assert len(names) == len(set(names))
    for fn in cexs:
        assert set(fn.counterexample_info.claims) <= ids, fn.__name__
    # boundary.py's own and the claim modules' (depth, relu-limit, generic-weights, ...) are all there
    assert {"relu_degree_one", "narrow_singular_piece", "analytic_index_sets", "d1_biased",
            "near_identity_folded", "zero_skip_pieces", "linear_activation"} <= set(names)


def test_decorators_attach_metadata_only():
    assert not hasattr(base, "COUNTEREXAMPLES") and not hasattr(base, "resolve")
    before = claim_modules.load()

    @base.counterexample(claims=("skip-reduction",), dropped="M_invertible", description="planted")
    def planted():
        return None
    assert planted.counterexample_info.dropped == "M_invertible"
    after = claim_modules.load()
    assert planted not in after.counterexamples
    assert after.counterexamples == before.counterexamples and after.checks == before.checks


def test_loading_twice_gives_the_same_fresh_lists():
    a, b = claim_modules.load(), claim_modules.load()
    assert a.counterexamples == b.counterexamples and a.checks == b.checks
    a.checks.clear()   # a caller mutating what it got does not change the next load
    assert claim_modules.load().checks == b.checks and b.checks


def _exec_copy(module_name: str, edit=None):
    """Execute a (possibly edited) copy of a claim module under another name, as a test would."""
    src = (CLAIMS_DIR / f"{module_name}.py").read_text()
    if edit is not None:
        old, new = edit
        assert src.count(old) == 1
        src = src.replace(old, new)
    spec = importlib.util.spec_from_loader(f"_copy_of_{module_name}", loader=None)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    try:
        exec(compile(src, f"<copy of {module_name}>", "exec"), mod.__dict__)
    finally:
        sys.modules.pop(spec.name, None)
    return mod


@pytest.mark.parametrize("module_name", ["boundary", "depth_d1"])
def test_a_mutated_copy_does_not_leak_into_the_registry(module_name):
    before = claim_modules.load()
    copy = _exec_copy(module_name, ("from __future__ import annotations\n",
                                    "from __future__ import annotations\nMUTATED = True\n"))
    assert copy.MUTATED and claim_modules.defined_here(copy, "counterexample_info")
    after = claim_modules.load()
    assert after.counterexamples == before.counterexamples and after.checks == before.checks
    assert not any(fn.__module__ == copy.__name__ for fn in after.counterexamples)


def test_a_module_that_does_not_import_is_an_error_with_its_reason(monkeypatch):
    monkeypatch.setattr(claim_modules, "CLAIM_MODULES", claim_modules.CLAIM_MODULES + ("not_there",))
    with pytest.raises(RegistryError, match=r"claim module oracle\.claims\.not_there does not import: "
                                            r"ModuleNotFoundError"):
        claim_modules.load()
    # the audit reports it (never an empty list without a word) ...
    ids = [c["id"] for c in consistency.load_registry()]
    cexs, problem = audit._counterexamples(set(ids), ids)
    assert cexs == [] and "oracle.claims.not_there does not import" in problem
    face = audit.oracle_face(consistency.load_registry()[0], 2, 0)
    assert face["status"] == "missing" and "oracle.claims.not_there does not import" in face["detail"]
    # ... the consistency check turns it into a finding ...
    findings = consistency.registry_findings(consistency.load_registry(), ROOT, consistency.Notes())
    assert any("boundary counterexamples cannot be checked" in str(f) and "not_there" in str(f)
               for f in findings)
    # ... and the report does not hide it either
    with pytest.raises(RegistryError):
        document.hypothesis_tags(consistency.load_registry())


def test_resolve_refuses_what_no_listed_module_registers():
    with pytest.raises(RegistryError, match="not one of CLAIM_MODULES"):
        claim_modules.resolve("oracle.claims.not_there:check")
    with pytest.raises(RegistryError, match="not one of CLAIM_MODULES"):
        claim_modules.resolve("oracle.decide.block:decide")
    with pytest.raises(RegistryError, match="no function of that name registered"):
        claim_modules.resolve("oracle.claims.depth_stacks:layers_of")


def test_no_module_level_import_after_code_in_the_claims():
    """Claim modules import at their top: no import placed after a definition to register
    something by side effect (the registry lists the modules instead)."""
    late = []
    for p in sorted(CLAIMS_DIR.glob("*.py")):
        seen_code = False
        for node in ast.parse(p.read_text()).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                seen_code = True
            elif isinstance(node, (ast.Import, ast.ImportFrom)) and seen_code:
                late.append(f"{p.name}:{node.lineno}")
    assert late == []
