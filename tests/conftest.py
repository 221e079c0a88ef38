"""Shared test settings: hypothesis profiles for the normal run and CI."""

import os

from hypothesis import HealthCheck, settings

# "default": the normal run (>= 100 examples per property where a test asks for it).
settings.register_profile("default", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")
