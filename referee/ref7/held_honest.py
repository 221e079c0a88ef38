"""Referee ref7: the mutants of conventions.py that state a decided answer to the other question
without certificate.other_convention (drop_oc_copy, drop_oc_keep, main_into_oc) and still hold,
listed with the main certificate's kind, part and verdict, to judge whether the main certificate
itself answers that question (the F1 rule).  In-process (oracle.commands.recheck.recheck, the CLI's
function), on the documents conventions.py left in /tmp/ref7c_*.  Usage: held_honest.py DIR..."""
import json, sys
from pathlib import Path
from oracle.commands.recheck import recheck
from collections import Counter
seen = Counter()
for d in sys.argv[1:]:
    for p in sorted(Path(d).glob("*_drop_oc_*.json")) + sorted(Path(d).glob("*_main_into_oc.json")):
        doc = json.loads(p.read_text())
        conv = doc["certificate"].get("replacing_biases")
        o = {"allowed": "none", "none": "allowed"}.get(conv)
        so = doc.get(f"biases_{o}")
        if not isinstance(so, dict) or so.get("verdict") == "undecided":
            continue
        stem = p.name.split(f"_{conv}_")[0]
        f = p.parent / f"{stem}.npz"
        try:
            ok, msg = recheck(doc, [str(f)])
        except Exception as e:  # noqa: BLE001 - a refusal raised as an error counts as refused
            ok, msg = False, repr(e)
        c = doc["certificate"]
        key = (p.name.split(f"_{conv}_")[1][:-5], conv, doc["verdict"], c.get("kind"), c.get("part"), c.get("convention"), so["verdict"], ok)
        seen[key] += 1
for k, v in sorted(seen.items(), key=str):
    print(v, k)
