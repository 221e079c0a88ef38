"""Shared test settings: hypothesis profiles for the normal run and CI."""

import os

from hypothesis import HealthCheck, settings

# "default": the normal run (>= 100 examples per property where a test asks for it).
settings.register_profile("default", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")


import pytest  # noqa: E402


@pytest.fixture
def coq_required() -> None:
    """Tests of the Coq layer fail, never skip, when coqc is missing: a proof check that
    silently does not run would pass for the wrong reason (make test installs Coq as root)."""
    from oracle.formal import consistency

    if not consistency.coq_available():
        pytest.fail("coqc is not installed, so the Coq proofs cannot be checked: run 'make coq-tools' "
                    "as root (apt-get install -y coq libcoq-coquelicot); make test does this")
