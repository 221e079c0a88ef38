"""Referee ref7, piece 3: the F1 refusal (a decided answer to the other bias question that no
certificate gives) through the CLI (subprocesses).

For every generated block (all activations, d = 1..3, biases or none, planted index sets, dead and
cancelling units, affine gated units, F(0) = 0 by cancellation) and every question (allowed, none,
auto): absorb check --json, then absorb recheck on the TRUE document (must hold).  The truth per
question is what check answers when asked that question directly.  Each document is then mutated:
  drop_oc_copy   other_convention removed, biases_<other> := the main answer
  drop_oc_keep   other_convention removed, biases_<other> kept
  flip_other     biases_<other>.verdict := each other verdict (other_convention kept)
  flip_oc        other_convention.verdict and biases_<other>.verdict := each other verdict
  main_into_oc   other_convention := the main answer and certificate relabelled for the other question
  oc_into_main   the other question's certificate presented as the answer to this question
A mutant LIES when an answer it states for a question differs from check's answer to that question
(a decided answer where check says undecided counts).  Every lying mutant must be refused (exit 1).
Also stacks (no block file) get the true-document recheck.
Run: nice .venv/bin/python referee/ref7/conventions.py [N_BLOCKS [START [nostacks]]]
(N_BLOCKS = 0: the stacks only)"""
import copy
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
A = ["nice", sys.executable, "-m", "oracle.cli"]
T = Path(tempfile.mkdtemp(prefix="ref7c_"))
ACTS = ["relu", "relu2", "reglu", "swiglu", "geglu", "geglu_tanh", "glu", "gelu", "silu", "gelu_tanh", "bilinear"]
GATED = {"reglu", "swiglu", "geglu", "geglu_tanh", "glu", "bilinear"}
VERDICTS = ("absorbable", "not_absorbable", "undecided")
OTHER = {"allowed": "none", "none": "allowed"}


def cli(*args):
    return subprocess.run(A + [str(a) for a in args], capture_output=True, text=True, cwd=ROOT, timeout=900)


def draw(rng, i):
    act = ACTS[i % len(ACTS)]
    d = 1 + (i // len(ACTS)) % 3
    shape = (i + i // len(ACTS)) % 5
    m = int(rng.integers(1, 4)) + (d if shape == 0 else 0)
    U = rng.integers(-2, 3, (m, d)).astype(float)
    W = rng.integers(-2, 3, (d, m)).astype(float)
    kw = dict(W_up=U, W_down=W, M=np.eye(d))
    halves = lambda n: (rng.integers(-2, 3, n) / 2).astype(float)
    if act in GATED:
        kw["W_gate"] = rng.integers(-2, 3, (m, d)).astype(float)
    if shape == 0:  # planted index set: W_S U_S = -M on the first d units
        U[:d] = np.eye(d); W[:, :d] = -np.eye(d)
        if act in GATED:
            kw["W_gate"][:d] = np.eye(d)
            if act == "glu":
                U[:d] = np.eye(d); W[:, :d] = -np.eye(d)
    if shape in (0, 1, 3):
        kw["b_up"] = halves(m)
        if act in GATED:
            kw["b_gate"] = halves(m)
    if shape == 1:
        kw["b_down"] = halves(d)
    if shape == 2 and act in GATED:  # affine units: gate rows 0, gate biases
        kw["W_gate"] = np.zeros((m, d)); kw["b_gate"] = halves(m) + 1; kw["b_up"] = halves(m)
    if shape == 3 and m >= 2:  # a cancelling pair: unit 1 a copy of unit 0 with the opposite output column
        for k in ("W_up", "W_gate"):
            if k in kw:
                kw[k][1] = kw[k][0]
        for k in ("b_up", "b_gate"):
            if k in kw:
                kw[k][1] = kw[k][0]
        W[:, 1] = -W[:, 0]
    if shape == 4:  # bias-free, M random
        kw["M"] = rng.integers(-2, 3, (d, d)).astype(float)
    return f"b{i}_{act}_d{d}_s{shape}", act, kw


def save(name, act, kw):
    f = T / f"{name}.npz"
    np.savez(f, activation=np.array(act), kind=np.array("residual"),
             **{k: np.array(v, dtype=float) for k, v in kw.items()})
    return f


def stated(doc):
    conv = doc["certificate"].get("replacing_biases")
    out = {}
    if conv in OTHER:
        out[conv] = doc["verdict"]
        o = OTHER[conv]
        if isinstance(doc.get(f"biases_{o}"), dict):
            out[o] = doc[f"biases_{o}"].get("verdict")
    return out


def lies(doc, truth):
    return [q for q, v in stated(doc).items() if v != "undecided" and v != truth.get(q)]


def mutants(doc):
    conv = doc["certificate"].get("replacing_biases")
    if conv not in OTHER:
        return
    o = OTHER[conv]
    oc = doc["certificate"].get("other_convention")
    main = {"verdict": doc["verdict"], "claim": doc["claim"], "exact": doc["exact"]}
    g = copy.deepcopy(doc); g["certificate"].pop("other_convention", None); g[f"biases_{o}"] = dict(main)
    yield "drop_oc_copy", g
    if oc is not None:
        g = copy.deepcopy(doc); g["certificate"].pop("other_convention")
        yield "drop_oc_keep", g
    for v in VERDICTS:
        if isinstance(doc.get(f"biases_{o}"), dict) and doc[f"biases_{o}"]["verdict"] != v:
            g = copy.deepcopy(doc); g[f"biases_{o}"]["verdict"] = v
            yield f"flip_other_{v}", g
            if oc is not None:
                g = copy.deepcopy(g); g["certificate"]["other_convention"]["verdict"] = v
                yield f"flip_oc_{v}", g
    g = copy.deepcopy(doc)
    mc = copy.deepcopy(doc["certificate"]); mc.pop("other_convention", None); mc["replacing_biases"] = o
    g["certificate"]["other_convention"] = {"replacing_biases": o, **main, "reason": doc["reason"], "certificate": mc}
    g[f"biases_{o}"] = dict(main)
    yield "main_into_oc", g
    if oc is not None:
        g = copy.deepcopy(doc)
        c2 = copy.deepcopy(oc["certificate"]); c2["replacing_biases"] = conv
        g.update(verdict=oc["verdict"], claim=oc["claim"], exact=oc["exact"], reason=oc["reason"], certificate=c2)
        g[f"biases_{conv}"] = {"verdict": oc["verdict"], "claim": oc["claim"], "exact": oc["exact"]}
        g.pop(f"biases_{o}", None)
        if "replacing_biases" in g:
            g["replacing_biases"] = conv
        yield "oc_into_main", g


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 66
    rng = np.random.default_rng(77)
    c = dict(true_docs=0, true_refused=0, mutants=0, lying=0, lying_held=0, honest_mutants_refused=0, stacks=0)
    bad = []
    nbad = 0
    start = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    for _ in range(start):
        draw(rng, _)
    for i in range(start, n):
        name, act, kw = draw(rng, i)
        f = save(name, act, kw)
        docs, truth = {}, {}
        for q in ("allowed", "none", "auto"):
            r = cli("check", f, "--replacing-biases", q, "--json")
            if r.returncode != 0:
                print(name, q, "check exit", r.returncode, r.stderr.strip()[-160:]); continue
            docs[q] = json.loads(r.stdout)
            if q != "auto":
                truth[q] = docs[q]["verdict"]
        # consistency: the other-question answers check states agree with check asked directly
        for q, doc in docs.items():
            for qq, v in stated(doc).items():
                if qq in truth and v != truth[qq] and "undecided" not in (v, truth[qq]):
                    bad.append(f"{name} {q}: states {qq}={v}, check --replacing-biases {qq} says {truth[qq]}")
        line = f"{name}: truth {truth}"
        for q, doc in docs.items():
            p = T / f"{name}_{q}.json"; p.write_text(json.dumps(doc))
            rr = cli("recheck", p, f)
            c["true_docs"] += 1
            if rr.returncode != 0:
                c["true_refused"] += 1; bad.append(f"TRUE REFUSED {name} {q}: {rr.stdout.strip()[:300]}")
            if q == "auto":
                continue
            for mname, g in mutants(doc):
                lie = lies(g, truth)
                p2 = T / f"{name}_{q}_{mname}.json"; p2.write_text(json.dumps(g))
                rr = cli("recheck", p2, f)
                c["mutants"] += 1
                if lie:
                    c["lying"] += 1
                    if rr.returncode == 0:
                        c["lying_held"] += 1
                        bad.append(f"LIE HELD {name} {q} {mname} (lies about {lie}): {rr.stdout.strip()[:300]}")
                elif rr.returncode != 0:
                    c["honest_mutants_refused"] += 1
        print(line, json.dumps(c), flush=True)
        for b in bad[nbad:]:
            print("   PROBLEM", b, flush=True)
        nbad = len(bad)
    # stacks (relu d = 1 biased, relu2 flat), recheck without a block file
    for j, (act, L, d) in ([] if len(sys.argv) > 3 else enumerate([("relu", 2, 1), ("relu", 3, 1), ("relu2", 2, 2), ("reglu", 2, 1), ("relu", 2, 2)])):
        s = T / f"stack{j}.npz"
        arrs = {}
        for l in range(L):
            m = 2
            arrs[f"W_up.{l}"] = rng.integers(-2, 3, (m, d)).astype(float)
            arrs[f"W_down.{l}"] = rng.integers(-2, 3, (d, m)).astype(float)
            arrs[f"b_up.{l}"] = (rng.integers(-2, 3, m) / 2).astype(float)
            if act in GATED:
                arrs[f"W_gate.{l}"] = rng.integers(-2, 3, (m, d)).astype(float)
        np.savez(s, kind=np.array("residual_stack"), layers=np.array(str(L)), activation=np.array(act), **arrs)
        for q in ("allowed", "none", "auto"):
            r = cli("check", s, "--replacing-biases", q, "--json")
            if r.returncode != 0:
                print("stack", j, q, "exit", r.returncode, r.stderr.strip()[-160:]); continue
            p = T / f"stack{j}_{q}.json"; p.write_text(r.stdout)
            rr = cli("recheck", p)
            if rr.returncode == 2 and "checked against its stack file" in rr.stderr:
                rr = cli("recheck", p, s)  # an undecided stack document is re-run from the stack file
            c["true_docs"] += 1; c["stacks"] += 1
            dd = json.loads(r.stdout)
            print(f"stack{j} {act} L{L} d{d} {q}: {dd['verdict']} ({dd['claim']}) recheck exit {rr.returncode}", flush=True)
            if rr.returncode != 0:
                c["true_refused"] += 1; bad.append(f"TRUE STACK REFUSED {j} {q}: {rr.stdout.strip()[:300]}")
    print(json.dumps(c))
    print("PROBLEMS:", len(bad))
    for b in bad:
        print("  ", b)


if __name__ == "__main__":
    main()
