#!/bin/sh
# The real `absorb audit --claim depth-analytic-d1` (quick, then --instances 100) with one bug planted.
# usage: sh referee/ref6a/run_cli.sh OUTDIR BUG ...
OUT=$1; shift; mkdir -p "$OUT"
for b in "$@"; do
  nice .venv/bin/python referee/ref6a/plant.py cli "$b" -- audit --quick --claim depth-analytic-d1 > "$OUT/$b.quick.txt" 2>&1; echo "exit $?" >> "$OUT/$b.quick.txt"
  nice .venv/bin/python referee/ref6a/plant.py cli "$b" -- audit --instances 100 --claim depth-analytic-d1 > "$OUT/$b.full.txt" 2>&1; echo "exit $?" >> "$OUT/$b.full.txt"
done
