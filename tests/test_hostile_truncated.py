"""0-byte and truncated checkpoints of every format read by `absorb scan` (safetensors, GGUF,
ONNX, PyTorch zip and legacy state dicts): each is refused with one line on stderr and exit 2,
never a traceback and never a scan that reports fewer blocks with exit 0.  The files are written
by each format's own writer (safetensors.numpy.save_file, gguf.GGUFWriter, onnx.helper, the
project's torch layout writer) and cut at many byte offsets.  Claims exercised: none (the blocks
are never reached); the whole file is the unit under test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from formatfiles import D, M, ints, onnx_mlp, write_gguf
from oracle.cli import main
from oracle.core.formats.torch_file import write_state_dict


def _hf(rng) -> dict[str, np.ndarray]:
    return {f"encoder.layer.{i}.{r}.dense.weight": ints(rng, *((M, D) if r == "intermediate" else (D, M)))
            for i in range(2) for r in ("intermediate", "output")}


def _write(fmt: str, d: Path) -> Path:
    rng = np.random.default_rng(7)
    if fmt == "safetensors":
        from safetensors.numpy import save_file

        p = d / "model.safetensors"
        save_file(_hf(rng), str(p))
    elif fmt == "gguf":
        t = {f"blk.{i}.ffn_{r}.weight": ints(rng, *((D, M) if r == "down" else (M, D)))
             for i in range(2) for r in ("up", "down")}
        p = write_gguf(d / "m.gguf", "bert", t)
    elif fmt == "onnx":
        p = onnx_mlp(d / "m.onnx", [{"up": ints(rng, M, D), "down": ints(rng, D, M), "act": "relu"}
                                    for _ in range(2)])
    else:
        p = d / "pytorch_model.bin"
        write_state_dict(p, _hf(rng), legacy=fmt == "pytorch-legacy")
    return p


FORMATS = ["safetensors", "gguf", "onnx", "pytorch-zip", "pytorch-legacy"]


def _scan(capsys, p: Path) -> tuple[int, str, str]:
    code = main(["scan", str(p)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fmt", FORMATS)
def test_whole_file_scans(tmp_path, capsys, fmt):
    """The uncut file is read: 2 blocks, exit 0 (so that every cut below is a real difference)."""
    code, out, err = _scan(capsys, _write(fmt, tmp_path))
    assert code == 0, err
    assert "2 MLP blocks" in out, out


@pytest.mark.parametrize("fmt", FORMATS)
def test_zero_bytes_exit_2(tmp_path, capsys, fmt):
    p = _write(fmt, tmp_path)
    p.write_bytes(b"")
    code, out, err = _scan(capsys, p)
    assert code == 2 and "Traceback" not in err, (code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "empty file (0 bytes)" in lines[0], err


@pytest.mark.parametrize("fmt", FORMATS)
def test_truncated_exit_2(tmp_path, capsys, fmt):
    """Cut at 40 offsets spread over the file, and 1, 2, 3 bytes short of the end."""
    p = _write(fmt, tmp_path)
    raw = p.read_bytes()
    cuts = sorted({int(c) for c in np.linspace(1, len(raw) - 1, 40)} | {len(raw) - k for k in (1, 2, 3)})
    for cut in cuts:
        p.write_bytes(raw[:cut])
        code, out, err = _scan(capsys, p)
        errors = [ln for ln in err.strip().splitlines() if ": error:" in ln]
        assert code == 2 and len(errors) == 1 and "Traceback" not in err, (fmt, cut, len(raw), code, out, err)
