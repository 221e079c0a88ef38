"""Referee ref7b: odd files and --emit targets, and interrupted runs (through the CLI).
Run: nice .venv/bin/python referee/ref7b/attack_files.py"""
from __future__ import annotations

import json
import os
import pickle
import signal
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
import test_scan_emit_safetensors as T  # noqa: E402

CMD = ["nice", sys.executable, "-c", "from oracle.cli import main; raise SystemExit(main())"]


def absorb(*a):
    return subprocess.run([*CMD, *a], capture_output=True, text=True, cwd=ROOT)


def report(name, r, out_dir):
    last = (r.stderr.strip().splitlines() or [""])[-1][:300]
    print(json.dumps({"case": name, "rc": r.returncode, "stderr_last": last,
                      "left": sorted(p.name for p in out_dir.iterdir()) if out_dir.exists() else None}), flush=True)


def fresh(name):
    tmp = Path(tempfile.mkdtemp(prefix=f"ref7b_{name}_"))
    src = T._write(tmp / "in", T._weights(7), T._config())
    (tmp / "out").mkdir()
    return tmp, src, tmp / "out" / "c.safetensors"


# empty file
tmp, src, out = fresh("empty")
src.write_bytes(b"")
report("empty_file", absorb("scan", str(src), "--emit", str(out)), out.parent)
# pickle renamed .safetensors
tmp, src, out = fresh("pickle")
src.write_bytes(pickle.dumps({"a": [1, 2, 3]}))
report("pickle_renamed", absorb("scan", str(src), "--emit", str(out)), out.parent)
# truncated safetensors
tmp, src, out = fresh("trunc")
b = src.read_bytes(); src.write_bytes(b[: len(b) // 2])
report("truncated_file", absorb("scan", str(src), "--emit", str(out)), out.parent)
# sharded HF directory (two shards + index)
tmp = Path(tempfile.mkdtemp(prefix="ref7b_shard_"))
t = T._weights(7); d = tmp / "in"; d.mkdir()
names = sorted(t); half = len(names) // 2
save_file({n: t[n] for n in names[:half]}, str(d / "model-00001-of-00002.safetensors"), metadata={"format": "pt"})
save_file({n: t[n] for n in names[half:]}, str(d / "model-00002-of-00002.safetensors"), metadata={"format": "pt"})
(d / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {n: ("model-00001-of-00002.safetensors" if i < half else "model-00002-of-00002.safetensors") for i, n in enumerate(names)}}))
(d / "config.json").write_text(json.dumps(T._config()))
(tmp / "out").mkdir(); out = tmp / "out" / "c.safetensors"
r = absorb("scan", str(d), "--emit", str(out), "--json")
report("sharded_dir", r, out.parent)
if r.returncode == 0:
    from safetensors.numpy import load_file
    comp = load_file(str(out))
    a = T._encode(t, T.IDS, "gelu", True); bb = T._encode(comp, T.IDS, "gelu", False)
    print("  sharded independent max abs diff", float(np.max(np.abs(a - bb))))
# directory with a stray second safetensors file (an adapter) that is not in the index
tmp = Path(tempfile.mkdtemp(prefix="ref7b_stray_"))
d = tmp / "in"; T._write(d, T._weights(7), T._config())
save_file({"adapter.lora_A": np.ones((2, 8), np.float32)}, str(d / "adapter_model.safetensors"))
(tmp / "out").mkdir(); out = tmp / "out" / "c.safetensors"
r = absorb("scan", str(d), "--emit", str(out), "--json")
report("dir_with_stray_adapter_file_merged", r, out.parent)
if r.returncode == 0:
    from safetensors import safe_open
    with safe_open(str(out), "np") as f:
        print("  stray tensor merged into output:", "adapter.lora_A" in f.keys())
# OUT exists
tmp, src, out = fresh("outexists"); out.write_text("x")
report("out_exists", absorb("scan", str(src), "--emit", str(out)), out.parent)
# config.json beside OUT exists
tmp, src, out = fresh("cfgexists"); (out.parent / "config.json").write_text("{}")
report("config_beside_out_exists", absorb("scan", str(src), "--emit", str(out)), out.parent)
# OUT = input
tmp, src, out = fresh("outisinput")
report("out_is_input", absorb("scan", str(src), "--emit", str(src)), src.parent)
# OUT beside input (new name)
tmp, src, out = fresh("besideinput")
report("out_beside_input", absorb("scan", str(src), "--emit", str(src.parent / "c.safetensors")), src.parent)
# OUT is a symlink to nowhere / OUT's folder read-only
tmp, src, out = fresh("dangling"); os.symlink(tmp / "nowhere.safetensors", out)
report("out_dangling_symlink", absorb("scan", str(src), "--emit", str(out)), out.parent)
print("  dangling target now exists:", (tmp / "nowhere.safetensors").exists())
tmp, src, out = fresh("ro"); os.chmod(out.parent, 0o555)
report("out_dir_readonly", absorb("scan", str(src), "--emit", str(out)), out.parent)
os.chmod(out.parent, 0o755)
# wrong suffix
tmp, src, out = fresh("suffix")
report("out_suffix_onnx", absorb("scan", str(src), "--emit", str(out.with_suffix(".onnx"))), out.parent)
# compiled checkpoint fed back in
tmp, src, out = fresh("again")
absorb("scan", str(src), "--emit", str(out))
out2 = tmp / "o2"; out2.mkdir()
report("compiled_fed_back", absorb("scan", str(out), "--emit", str(out2 / "d.safetensors")), out2)
report("compiled_scanned", absorb("scan", str(out)), out2)
# interrupted runs: SIGINT and SIGTERM shortly after start (bigger model so there is time)
for sig in (signal.SIGINT, signal.SIGTERM):
    for delay in (1.0, 1.6, 2.2):
        tmp, src, out = fresh(f"sig{int(sig)}")
        p = subprocess.Popen([*CMD, "scan", str(src), "--emit", str(out)], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        time.sleep(delay); p.send_signal(sig)
        so, se = p.communicate()
        print(json.dumps({"case": f"signal_{sig.name}_after_{delay}s", "rc": p.returncode,
                          "stderr_last": (se.strip().splitlines() or [""])[-1][:200],
                          "left": sorted(x.name for x in out.parent.iterdir())}), flush=True)
