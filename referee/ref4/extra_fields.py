"""Referee round 4, piece B: fields a document may add (top level or in the certificate) and the
path of the written min-width/plain block: re-checked with check_block_document, they hold and the
holds line does not name them.  Usage: .venv/bin/python referee/ref4/extra_fields.py"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from true_docs import hand  # noqa: E402

from oracle.decide import decide  # noqa: E402
from oracle.decide.document import Refused, check_block_document  # noqa: E402

bad = 0
for b in hand():
    doc = json.loads(json.dumps(decide(b, replacing_biases="allowed").as_dict()))
    for where, key, val in [("top", "min_width_block", "/nonexistent.npz"), ("top", "plain_block", "/nonexistent.npz"),
                            ("top", "minimal_width_note", "exact in float32"), ("cert", "exactness_note", "proved in Coq"),
                            ("cert", "emitted_block_width", 99)]:
        f = json.loads(json.dumps(doc))
        (f if where == "top" else f["certificate"])[key] = val
        try:
            why = check_block_document(b, f)
        except Refused:
            continue
        if key not in why:
            bad += 1
            print(f"holds, {key} not named: {b.activation} {doc['certificate']['kind']} ({where})")
print("silently covered:", bad)
