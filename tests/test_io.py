"""Block files: round trips, and every kind of bad input ending in exit 2 with one stderr line."""

from __future__ import annotations

import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from oracle.core import io as bio
from oracle.core.blocks import Block
from oracle.core.errors import InputError

ROOT = Path(__file__).resolve().parents[1]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "oracle.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def _good_arrays() -> dict:
    return {"W_up": np.array([[1.0, 0.5], [-0.25, 2.0], [3.0, 1.0]]),
            "W_down": np.array([[0.5, -1.0, 0.125], [2.0, 0.0, -0.75]])}


def _npz(path: Path, **arrays) -> Path:
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)
    return path


@pytest.mark.parametrize("ext", ["npz", "safetensors"])
def test_round_trip_keeps_every_array_and_metadata(tmp_path: Path, ext: str) -> None:
    a = _good_arrays()
    b = Block("glu", W_up=a["W_up"], W_down=a["W_down"], W_gate=a["W_up"][::-1].copy(),
              b_up=np.array([0.5, 0.0, -1.0]), b_down=np.array([1.0, 2.0]),
              M=np.array([[2.0, 1.0], [0.0, 1.0]]))
    p = tmp_path / f"blk.{ext}"
    assert bio.write_block(b, p) == ext
    back = bio.read_block(p)
    assert back.activation == "glu" and back.kind == "residual"
    for name in ("W_up", "W_down", "W_gate", "b_up", "b_down", "M"):
        assert np.array_equal(getattr(back, name), getattr(b, name)), name
    assert back.b_gate is None
    assert bio.detect_format(p) == ext


def test_float32_weights_widen_exactly(tmp_path: Path) -> None:
    a = {k: v.astype(np.float32) for k, v in _good_arrays().items()}
    a["W_up"][0, 0] = np.float32(0.1)  # not a short dyadic: must survive exactly
    p = _npz(tmp_path / "f32.npz", **a, activation=np.array("relu"))
    b = bio.read_block(p)
    assert b.W_up[0, 0] == float(np.float32(0.1))
    assert b.kind == "residual"  # default when 'kind' is absent


def _expect_input_error(path: Path, fragment: str) -> None:
    with pytest.raises(InputError) as ei:
        bio.read_block(path)
    msg = str(ei.value)
    assert "\n" not in msg
    assert fragment.lower() in msg.lower(), msg


def test_bad_inputs_raise_one_line_input_errors(tmp_path: Path) -> None:
    a = _good_arrays()
    _expect_input_error(tmp_path / "missing.npz", "no such file")
    (tmp_path / "text.npz").write_text("hello, not an archive")
    _expect_input_error(tmp_path / "text.npz", "neither")
    np.save(tmp_path / "single.npy", a["W_up"])
    _expect_input_error(tmp_path / "single.npy", "single .npy")
    with open(tmp_path / "p.pkl", "wb") as fh:
        pickle.dump(a, fh)
    _expect_input_error(tmp_path / "p.pkl", "pickle")
    obj = np.empty(2, dtype=object)
    obj[:] = [1, "x"]
    _expect_input_error(_npz(tmp_path / "obj.npz", **a, b_down=obj, activation=np.array("relu")),
                        "b_down")
    bad = dict(a)
    bad["W_up"] = a["W_up"].copy()
    bad["W_up"][1, 1] = np.nan
    _expect_input_error(_npz(tmp_path / "nan.npz", **bad, activation=np.array("relu")), "nan")
    bad["W_up"][1, 1] = np.inf
    _expect_input_error(_npz(tmp_path / "inf.npz", **bad, activation=np.array("relu")), "inf")
    _expect_input_error(_npz(tmp_path / "shape.npz", W_up=a["W_up"], W_down=a["W_down"].T,
                             activation=np.array("relu")), "shape")
    _expect_input_error(_npz(tmp_path / "act.npz", **a, activation=np.array("tanh")),
                        "unknown activation")
    _expect_input_error(_npz(tmp_path / "noact.npz", **a), "activation")
    _expect_input_error(_npz(tmp_path / "extra.npz", **a, W_extra=a["W_up"],
                             activation=np.array("relu")), "unknown array")
    _expect_input_error(_npz(tmp_path / "meta.npz", **a, activation=np.array(["relu"])),
                        "0-d string")
    _expect_input_error(_npz(tmp_path / "kind.npz", **a, activation=np.array("relu"),
                             kind=np.array("weird")), "kind")
    _expect_input_error(_npz(tmp_path / "str.npz", W_up=np.array([["a"]]), W_down=a["W_down"],
                             activation=np.array("relu")), "dtype")
    # a truncated zip: the archive header is there, the members are not
    good = _npz(tmp_path / "good.npz", **a, activation=np.array("relu"))
    (tmp_path / "trunc.npz").write_bytes(good.read_bytes()[:200])
    with pytest.raises(InputError):
        bio.read_block(tmp_path / "trunc.npz")
    # a pickle hidden inside a zip under an .npy name
    with zipfile.ZipFile(tmp_path / "zpk.npz", "w") as z:
        z.writestr("W_up.npy", pickle.dumps(a["W_up"]))
    with pytest.raises(InputError):
        bio.read_block(tmp_path / "zpk.npz")


def test_safetensors_bad_inputs(tmp_path: Path) -> None:
    a = {k: v.astype(np.float32) for k, v in _good_arrays().items()}
    p = tmp_path / "x.safetensors"
    save_file(a, str(p), metadata={"activation": "relu", "colour": "blue"})
    _expect_input_error(p, "unknown metadata")
    save_file({**a, "junk": a["W_up"]}, str(p), metadata={"activation": "relu"})
    _expect_input_error(p, "unknown tensor")
    save_file(a, str(p), metadata={"activation": "relu", "format": "pt"})
    assert bio.read_block(p).activation == "relu"
    raw = p.read_bytes()
    p.write_bytes(raw[:8] + b"{" + b"x" * 40)
    _expect_input_error(p, "safetensors")


BAD_CASES = ["missing", "text", "pickle", "object", "nan", "shape", "activation"]


def _make_bad(tmp_path: Path, case: str) -> Path:
    a = _good_arrays()
    if case == "missing":
        return tmp_path / "nothing_here.npz"
    if case == "text":
        p = tmp_path / "t.npz"
        p.write_text("not a block")
        return p
    if case == "pickle":
        p = tmp_path / "p.npz"
        p.write_bytes(pickle.dumps(a))
        return p
    if case == "object":
        obj = np.empty((2, 3), dtype=object)
        obj[:] = 1.0
        return _npz(tmp_path / "o.npz", W_up=a["W_up"], W_down=obj, activation=np.array("relu"))
    if case == "nan":
        w = a["W_down"].copy()
        w[0, 0] = np.nan
        return _npz(tmp_path / "n.npz", W_up=a["W_up"], W_down=w, activation=np.array("relu"))
    if case == "shape":
        return _npz(tmp_path / "s.npz", W_up=a["W_up"], W_down=a["W_up"], activation=np.array("relu"))
    return _npz(tmp_path / "a.npz", **a, activation=np.array("softplus"))


@pytest.mark.parametrize("case", BAD_CASES)
def test_cli_bad_input_exit_2_one_line(tmp_path: Path, case: str, capsys) -> None:
    from oracle.cli import main

    bad = _make_bad(tmp_path, case)
    good = _npz(tmp_path / "good.npz", **_good_arrays(), activation=np.array("relu"),
                kind=np.array("plain"))
    for argv in (["check", str(bad), "--json"], ["witness", str(bad), str(good)]):
        assert main(argv) == 2, (case, argv)
        out, err = capsys.readouterr()
        assert out == ""
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert "Traceback" not in err and lines[0].startswith("absorb ")


@pytest.mark.parametrize("case", ["pickle", "object"])
def test_cli_bad_input_in_a_real_process(tmp_path: Path, case: str) -> None:
    r = _cli("check", str(_make_bad(tmp_path, case)))
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_checkpoint_lists_lazily_and_reads_bf16(tmp_path: Path) -> None:
    p = tmp_path / "ck.safetensors"
    vals = np.array([1.5, -2.0, 0.09375, 2.0 ** 100], dtype=np.float32)  # bf16-exact values
    bf16 = (vals.view(np.uint32) >> 16).astype(np.uint16)
    # write a BF16 tensor by hand: the safetensors numpy API has no bfloat16 dtype
    import json
    import struct
    header = {"t": {"dtype": "BF16", "shape": [2, 2], "data_offsets": [0, 8]},
              "u": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}}
    h = json.dumps(header).encode()
    p.write_bytes(struct.pack("<Q", len(h)) + h + bf16.tobytes() + np.array([7.0], np.float32).tobytes())
    ck = bio.Checkpoint(p)
    assert ck.names() == ["t", "u"]
    assert ck.shape("t") == (2, 2) and ck.dtype("t") == "bfloat16"
    assert np.array_equal(ck.tensor("t"), vals.astype(np.float64).reshape(2, 2))
    assert ck.tensor("u").tolist() == [7.0]
