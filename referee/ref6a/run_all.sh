#!/bin/sh
# Run every planted bug through the audit's oracle face + boundary instances (N instances, seed 0).
# usage: sh referee/ref6a/run_all.sh N OUT.jsonl [BUG ...]
N=$1; OUT=$2; shift 2
BUGS=${*:-$(.venv/bin/python referee/ref6a/plant.py list | awk '{print $1}')}
: > "$OUT"
for b in none $BUGS; do
  nice .venv/bin/python referee/ref6a/plant.py fast "$b" "$N" >> "$OUT" 2>>"$OUT.err" || echo "{\"bug\": \"$b\", \"crashed\": true}" >> "$OUT"
done
