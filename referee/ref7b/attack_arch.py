"""Referee ref7b F10: a relu encoder whose width stays (relu-complete m* = m) compiled through the
CLI; prints what OUT's config.json keeps for loaders (architectures, intermediate_size) next to
the widths.  Run: nice .venv/bin/python referee/ref7b/attack_arch.py"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
import test_scan_emit_safetensors as T  # noqa: E402

tmp = Path(tempfile.mkdtemp(prefix="ref7b_arch_"))
src = T._write(tmp / "in", T._weights(7, relu_pairs=True), T._config(act="relu"))
(tmp / "out").mkdir()
out = tmp / "out" / "c.safetensors"
r = subprocess.run(["nice", sys.executable, "-c", "from oracle.cli import main; raise SystemExit(main())",
                    "scan", str(src), "--emit", str(out)], capture_output=True, text=True, cwd=ROOT)
c = json.loads((out.parent / "config.json").read_text())
print(json.dumps({"rc": r.returncode, "model_type": c["model_type"], "architectures": c.get("architectures"),
                  "intermediate_size": c.get("intermediate_size"), "intermediate_sizes": c["absorb"]["intermediate_sizes"]}))
