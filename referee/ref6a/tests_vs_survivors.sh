#!/bin/sh
# For each bug named, plant it and run the claim's test file; print the failing tests.
for b in "$@"; do
  out=$(PLANT=$b PYTHONPATH=referee/ref6a nice .venv/bin/python -m pytest -q -p no:xdist -p plant_plugin \
        tests/test_claim_depth_analytic_d1.py 2>&1 | grep -E "^FAILED|^ERROR" | sed 's/ - .*//' | tr '\n' ' ')
  echo "$b: ${out:-all passed}"
done
