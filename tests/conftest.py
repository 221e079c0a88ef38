"""Shared test settings: hypothesis profiles, the `slow` marker's scheduling, and what makes the
suite safe to run on two pytest-xdist workers (`make test` runs `-n 2`).

Parallel runs share one thing: the compiled Coq development in proofs/coq of this checkout.  Every
build of it (oracle/formal/coqcheck.build: coq_makefile rewrites Makefile.coq, then make) is
serialised across processes by a file lock, and under xdist the development is built once before
the workers start, so that a test copying the compiled files never copies a half-built tree.
Everything else a test writes goes to its own tmp_path.
"""

import contextlib
import fcntl
import hashlib
import os
import tempfile
import threading
from pathlib import Path

from hypothesis import HealthCheck, settings

# "default": the normal run (>= 100 examples per property where a test asks for it).
settings.register_profile("default", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")


import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

# The order in which files are handed to the xdist workers: these first, longest first; each
# holds a module fixture that runs for minutes, and started late it would leave the other worker
# idle at the end of the run.  All other files follow in their usual order.
FIRST_UNDER_XDIST = ["test_proofcheck_mutations.py", "test_oracle_mutations.py", "test_necessity_coq.py",
                     "test_coq_algebra.py", "test_real_activations_coq.py", "test_audit_steer.py",
                     "test_cli_audit.py", "test_report.py"]
# Files that share a session fixture go to one worker together (the fixture then runs once).
SAME_WORKER = {"test_cli_audit.py": "quick-audit-doc", "test_report.py": "quick-audit-doc"}
# Marked slow here rather than in the file (the file is maintained by another branch right now):
# its module fixture compiles one mutated copy of the Coq development per attack.
SLOW_MODULES = {"test_proofcheck_mutations.py"}


@pytest.hookimpl(tryfirst=True)   # before -m selects
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
    if hasattr(config, "workerinput"):   # an xdist worker: the controller schedules in this order
        rank = {name: i for i, name in enumerate(FIRST_UNDER_XDIST)}
        items.sort(key=lambda it: rank.get(it.path.name, len(rank)))   # stable: files keep their order


@pytest.hookimpl(optionalhook=True)   # a hook of pytest-xdist, called with -n
def pytest_xdist_make_scheduler(config, log):
    """Whole files (or the SAME_WORKER groups of files) are the units the workers get, in the
    collection order above: a module or session fixture then runs once, not once per worker."""
    from xdist.scheduler import LoadScopeScheduling

    class FileScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            name = nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
            return SAME_WORKER.get(name, name)

    config.option.loadscopereorder = False   # keep FIRST_UNDER_XDIST's order (not by test count)
    return FileScheduling(config, log)


# ---------------------------------------------------------------- one Coq build at a time

_held = threading.local()


def _lock_path(coqdir: Path) -> Path:
    key = hashlib.sha256(str(Path(coqdir).resolve()).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"skip-absorption-coq-build-{key}.lock"


@contextlib.contextmanager
def coq_build_lock(coqdir: Path = ROOT / "proofs" / "coq"):
    """Hold the cross-process lock of one Coq build directory (re-entrant within a thread)."""
    path = _lock_path(coqdir)
    held = getattr(_held, "paths", None)
    if held is None:
        held = _held.paths = set()
    if path in held:
        yield
        return
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        held.add(path)
        try:
            yield
        finally:
            held.discard(path)
            fcntl.flock(fh, fcntl.LOCK_UN)


@pytest.fixture(scope="session", autouse=True)
def _serialised_coq_builds():
    """Every in-process build of a Coq directory holds that directory's lock."""
    from oracle.formal import coqcheck

    real = coqcheck.build

    def locked_build(coqdir, *args, **kwargs):
        with coq_build_lock(coqdir):
            return real(coqdir, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(coqcheck, "build", locked_build)
        yield


@pytest.fixture
def root_coq_build_locked():
    """For a test whose subprocess builds proofs/coq of this checkout (the in-process builds of
    other workers wait meanwhile)."""
    with coq_build_lock():
        yield


def pytest_sessionstart(session):
    """Under xdist, build the development once before the workers start (a no-op when it is
    up to date); a failed build is left for the Coq tests to report."""
    config = session.config
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    from oracle.formal import coqcheck

    if coqcheck.coq_available():
        with coq_build_lock():
            coqcheck.build((ROOT / "proofs" / "coq").resolve())


@pytest.fixture(scope="session", autouse=True)
def _quick_instances():
    """ABSORB_TEST_INSTANCES=n (make test-fast sets 5) runs the tests' quick audits with n generated
    instances per claim instead of audit.QUICK_INSTANCES (20; below 20 the audit does not judge
    the declared sample ranges).  Unset, as in make test, nothing changes."""
    n = os.environ.get("ABSORB_TEST_INSTANCES")
    if not n:
        yield
        return
    from oracle.commands import audit

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(audit, "QUICK_INSTANCES", int(n))
        yield


@pytest.fixture(scope="session")
def quick_audit_doc(_quick_instances) -> dict:
    """One real `absorb audit --quick` (in this process) for the tests that read its document
    (test_cli_audit, test_report): the audit takes a while, and these tests only read it."""
    from oracle.commands import audit

    return audit.audit(quick=True)


@pytest.fixture(scope="session")
def quick_audit_reports(quick_audit_doc, tmp_path_factory) -> dict:
    """quick_audit_doc written by `absorb audit --report` as HTML and as Markdown:
    format -> (path, text)."""
    from oracle.report import document

    out = tmp_path_factory.mktemp("report")
    paths = {"html": out / "audit.html", "md": out / "audit.md"}
    for p in paths.values():
        document.write_report(quick_audit_doc, str(p))
    return {k: (p, p.read_text(encoding="utf-8")) for k, p in paths.items()}


@pytest.fixture
def coq_required() -> None:
    """Tests of the Coq layer fail, never skip, when coqc is missing: a proof check that
    silently does not run would pass for the wrong reason (make test installs Coq as root)."""
    from oracle.formal import consistency

    if not consistency.coq_available():
        pytest.fail("coqc is not installed, so the Coq proofs cannot be checked: run 'make coq-tools' "
                    "as root (apt-get install -y coq libcoq-coquelicot); make test does this")
