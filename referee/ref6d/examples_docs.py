"""Referee round 6d: every block file in examples/ (stacks skipped when check refuses them), each
--replacing-biases value, without and with --emit [--min-width]: check then recheck; a true
document must hold.  Usage: .venv/bin/python referee/ref6d/examples_docs.py"""
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "referee" / "ref4"))
from true_docs import run  # noqa: E402

bad = total = 0
with tempfile.TemporaryDirectory() as t:
    t = Path(t)
    for f in sorted((ROOT / "examples").glob("*.npz")):
        for conv in ("auto", "allowed", "none"):
            for extra in ([], ["--emit"], ["--emit", "--min-width"]):
                P = t / f"{f.stem}_{conv}_{len(extra)}.npz"
                argv = ["check", str(f), "--json", "--replacing-biases", conv] + (["--emit", str(P)] + extra[1:] if extra else [])
                rc, out, err = run(*argv)
                if rc != 0 or not out.strip():
                    print(f"check rc={rc} {f.name} {conv} {extra}: {err.strip()[-150:]}")
                    if "stack" not in f.name:
                        bad += 1
                    break
                total += 1
                D = t / "doc.json"; D.write_text(out)
                rc2, o2, e2 = run("recheck", str(D), *([] if "stack" in f.name else [str(f)]))  # a stack document carries its stack
                d = json.loads(out)
                print(f"{'ok ' if rc2 == 0 else 'REFUSED'} {f.name} {conv} {' '.join(extra)}: {d['verdict']} "
                      f"({d['claim']}, {d['certificate'].get('kind')}) {'' if rc2 == 0 else (o2 + e2)[-250:]}", flush=True)
                bad += rc2 != 0
print(f"documents: {total}, refused or crashed: {bad}")
