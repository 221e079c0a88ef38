"""pytest plugin: plant the bug named in $PLANT (referee/ref6a/plant.py) before the tests run.
Run: PLANT=BUG PYTHONPATH=referee/ref6a nice .venv/bin/python -m pytest -q -p no:xdist -p plant_plugin \
     tests/test_claim_depth_analytic_d1.py"""
import os

import plant


def pytest_configure(config):
    name = os.environ.get("PLANT")
    if name:
        plant.plant(name)
