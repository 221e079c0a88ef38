"""Referee round 4, piece A: an ONNX model with external data (ext.onnx + ext.onnx.data), and a
model whose pre-activation value is a graph output.  scan --emit is run from the worktree and from
the model's own folder (external data), and for the second model once.
Usage: .venv/bin/python referee/ref4/emit_external.py"""
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from emit_attack import ROOT, build, layer  # noqa: E402

rng = np.random.default_rng(1)
with tempfile.TemporaryDirectory() as t:
    d = Path(t)
    build(d / "ext.onnx", [layer(rng, 3, 5)], 3, external=True)
    build(d / "hid.onnx", [layer(rng, 3, 5)], 3, extra_outputs=("h",))
    for k, cwd in enumerate((str(ROOT), str(d))):
        r = subprocess.run([sys.executable, "-m", "oracle.cli", "scan", str(d / "ext.onnx"), "--emit", str(d / f"ext_c{k}.onnx")],
                           cwd=cwd, capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        print("external data, cwd", "worktree" if k == 0 else "model folder", "-> exit", r.returncode, "|",
              r.stderr.strip().splitlines()[-1][:200])
    r = subprocess.run([sys.executable, "-m", "oracle.cli", "scan", str(d / "hid.onnx"), "--emit", str(d / "hid_c.onnx")],
                       capture_output=True, text=True, cwd=ROOT)
    print("pre-activation is a graph output -> exit", r.returncode, "|", r.stderr.strip().splitlines()[-1][:200],
          "| compiled file left:", (d / "hid_c.onnx").exists())

# the compiled model written to another folder than the model's, run from the model's folder
with tempfile.TemporaryDirectory() as t:
    d = Path(t)
    (d / "out").mkdir()
    build(d / "ext.onnx", [layer(rng, 3, 5)], 3, external=True)
    r = subprocess.run([sys.executable, "-m", "oracle.cli", "scan", "ext.onnx", "--emit", "out/c.onnx"],
                       cwd=str(d), capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    print("external data, output in another folder -> exit", r.returncode, "|", r.stderr.strip().splitlines()[-1][:200])
    import onnx
    if (d / "out" / "c.onnx").exists():
        m = onnx.load(str(d / "out" / "c.onnx"), load_external_data=False)
        ext = [x.name for x in m.graph.initializer if x.data_location == onnx.TensorProto.EXTERNAL]
        print("  initializers of the compiled file still stored externally:", ext)
