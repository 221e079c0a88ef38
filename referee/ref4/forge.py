"""Referee round 4, piece B: forged ``check --json`` documents that might still hold.

For each block (true_docs.py's hand-made blocks and strategy draws) and each question
(--replacing-biases auto/allowed/none), the true document (oracle.decide.decide(...).as_dict(), the
object ``absorb check --json`` prints; with the emitted-block fields) is changed in structured ways,
several fields at once and consistently, and re-checked with
oracle.decide.document.check_block_document (the path ``absorb recheck`` uses):
  drop:K           every key (at every depth) deleted, one at a time
  exact_emitted    emitted_block claims exact (rounded [], max_entry_error {}, emitted_block_exact true)
  swap_conv        the question relabelled: replacing_biases and certificate.replacing_biases flipped,
                   biases_allowed <-> biases_none swapped, auto_convention dropped
  mw_shift         minimal_width value +-1 in the certificate statement and at top level (lower/upper too)
  other_same       certificate.other_convention dropped and the other answer set to the main one
  verdict_flip     verdict (and biases_<conv>.verdict) changed to each other verdict
A forged document that holds is printed with the holds line (its 'not verified' list), to be judged:
a change to a field the holds line names as not verified is disclosed; any other is a gap.
Usage: .venv/bin/python referee/ref4/forge.py [N]
"""
from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from true_docs import draws, hand, planted  # noqa: E402

from oracle.decide import decide  # noqa: E402
from oracle.decide.document import Refused, check_block_document  # noqa: E402


def paths(x, p=()):
    if isinstance(x, dict):
        for k, v in x.items():
            yield p + (k,)
            yield from paths(v, p + (k,))


def get(d, p):
    for k in p:
        d = d[k]
    return d


def forgeries(doc):
    for p in paths(doc):
        f = copy.deepcopy(doc)
        del get(f, p[:-1])[p[-1]]
        yield "drop:" + ".".join(map(str, p)), f
    c = doc["certificate"]
    if isinstance(c.get("emitted_block"), dict):
        f = copy.deepcopy(doc)
        e = f["certificate"]["emitted_block"]
        if not (e.get("exact") is True and not e.get("rounded")):
            e["exact"] = True; e["rounded"] = []; e["max_entry_error"] = {}
            if "emitted_block_exact" in f["certificate"]:
                f["certificate"]["emitted_block_exact"] = True
            yield "exact_emitted", f
    if c.get("replacing_biases") in ("allowed", "none"):
        f = copy.deepcopy(doc)
        o = {"allowed": "none", "none": "allowed"}[c["replacing_biases"]]
        f["certificate"]["replacing_biases"] = o
        f["certificate"].pop("auto_convention", None)
        if "replacing_biases" in f:
            f["replacing_biases"] = o
        a, n = f.get("biases_allowed"), f.get("biases_none")
        f["biases_allowed"], f["biases_none"] = n, a
        oc = f["certificate"].pop("other_convention", None)
        yield "swap_conv", f
        if oc is not None:  # the other question's certificate promoted to the main one
            g = copy.deepcopy(oc)
            g["biases_allowed"], g["biases_none"] = doc.get("biases_allowed"), doc.get("biases_none")
            g["replacing_biases"] = oc.get("replacing_biases")
            main = {k: doc[k] for k in ("verdict", "claim", "exact", "reason") if k in doc}
            g["certificate"] = dict(g["certificate"], other_convention={**main, "certificate": {
                k: v for k, v in c.items() if k not in ("other_convention", "auto_convention")},
                "replacing_biases": c["replacing_biases"]})
            yield "promote_other", g
    mw = c.get("minimal_width")
    if isinstance(mw, dict) and isinstance(mw.get("value"), int):
        for dv in (1, -1):
            f = copy.deepcopy(doc)
            s = f["certificate"]["minimal_width"]
            for k in ("value", "lower", "upper"):
                if isinstance(s.get(k), int):
                    s[k] += dv
            if "minimal_width" in f:
                f["minimal_width"] += dv
            yield f"mw_shift{dv:+d}", f
    if c.get("other_convention") is not None:
        f = copy.deepcopy(doc)
        oc = f["certificate"].pop("other_convention")
        o = oc.get("replacing_biases")
        f[f"biases_{o}"] = {k: doc[k] for k in ("verdict", "claim", "exact")}
        yield "other_same", f
    for v in ("absorbable", "not_absorbable", "undecided"):
        if v != doc.get("verdict"):
            f = copy.deepcopy(doc)
            f["verdict"] = v
            conv = c.get("replacing_biases")
            if isinstance(f.get(f"biases_{conv}"), dict):
                f[f"biases_{conv}"]["verdict"] = v
            yield f"verdict_flip:{v}", f


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    blocks = hand() + planted(n // 2) + (draws(n) if n else [])
    held = tried = refused_true = 0
    seen = {}
    for i, b in enumerate(blocks):
        for conv in ("auto", "allowed", "none"):
            try:
                doc = json.loads(json.dumps(decide(b, replacing_biases=conv).as_dict()))
            except Exception as e:  # noqa: BLE001
                print(f"block {i} {conv}: check raised {type(e).__name__}: {e}")
                continue
            try:
                check_block_document(b, doc)
            except Refused as e:
                refused_true += 1
                print(f"TRUE DOCUMENT REFUSED block {i} {conv}: {e}")
                continue
            for name, f in forgeries(doc):
                tried += 1
                try:
                    why = check_block_document(b, f)
                except Refused:
                    continue
                except Exception as e:  # noqa: BLE001
                    print(f"CRASH block {i} {conv} {name}: {type(e).__name__}: {e}")
                    continue
                held += 1
                key = (name.split(":")[0] if not name.startswith("drop") else name, doc["certificate"].get("kind"))
                if key not in seen:
                    seen[key] = (i, conv, b.activation, doc.get("verdict"), why[-300:])
    for (name, kind), (i, conv, act, verdict, why) in sorted(seen.items(), key=str):
        print(f"HOLDS {name} [{kind}] e.g. block {i} ({act}, {conv}, {verdict}): ...{why}")
    print(f"forgeries tried {tried}, held {held}, distinct (forgery, kind) {len(seen)}, true documents refused {refused_true}")


if __name__ == "__main__":
    main()
