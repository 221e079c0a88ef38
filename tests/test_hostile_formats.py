"""Hostile GGUF, ONNX and PyTorch files for `absorb scan`: truncated files, lying headers (offsets,
shapes, unknown quantization types), pickles with payloads, ONNX graphs with cycles or external
data outside the model's directory.  Each is one line on stderr and exit code 2, no traceback; when
only one block is bad, the others are still decided.  Claims exercised: gated-impossible and
relu-complete (the blocks that are still decided)."""

from __future__ import annotations

import io
import os
import pickle
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

from formatfiles import D, M, ints, onnx_mlp, write_gguf
from oracle.cli import main
from oracle.core.formats.torch_file import write_state_dict


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error(code: int, err: str, fragment: str) -> str:
    """Exit 2, exactly one error line (progress lines may precede it), no traceback."""
    assert code == 2, err
    errors = [ln for ln in err.strip().splitlines() if ": error:" in ln]
    assert len(errors) == 1 and "Traceback" not in err, err
    assert fragment in errors[0], errors[0]
    return errors[0]


def _llama(tmp_path: Path, name: str = "m.gguf", **extra) -> Path:
    rng = np.random.default_rng(0)
    t = {f"blk.{i}.ffn_{r}.weight": ints(rng, *((32, M) if r == "down" else (M, 32)))
         for i in range(2) for r in ("gate", "up", "down")}
    t.update(extra)
    return write_gguf(tmp_path / name, "llama", t)


# ---------------------------------------------------------------------- GGUF

def test_gguf_truncated(tmp_path, capsys):
    p = _llama(tmp_path)
    raw = p.read_bytes()
    mid = raw.index(b"blk.1.ffn_down.weight") + 5  # inside the last tensor's header entry
    for cut, frag in ((len(raw) - 100, "outside the data section"), (mid, "truncated GGUF header"),
                      (60, "more than a file of 60 bytes"), (10, "truncated GGUF file")):
        q = tmp_path / f"cut{cut}.gguf"
        q.write_bytes(raw[:cut])
        one_error(*run(capsys, "scan", str(q))[::2], frag)


def _tensor_info_offset(raw: bytes, name: str) -> int:
    """Byte offset just after a tensor's name in the header (where its n_dims field starts)."""
    key = struct.pack("<Q", len(name)) + name.encode()
    return raw.index(key) + len(key)


def test_gguf_lying_offset_shape_and_unknown_type(tmp_path, capsys):
    p = _llama(tmp_path)
    raw = bytearray(p.read_bytes())
    at = _tensor_info_offset(raw, "blk.1.ffn_up.weight")
    nd = struct.unpack_from("<I", raw, at)[0]
    dims_at, type_at = at + 4, at + 4 + 8 * nd
    off_at = type_at + 4

    lie = bytearray(raw)
    struct.pack_into("<Q", lie, off_at, 10 ** 12)  # offset far beyond the file
    (tmp_path / "off.gguf").write_bytes(lie)
    one_error(*run(capsys, "scan", str(tmp_path / "off.gguf"))[::2], "outside the data section")

    lie = bytearray(raw)
    struct.pack_into("<Q", lie, dims_at + 8, 10 ** 6)  # a shape far larger than the data
    (tmp_path / "shape.gguf").write_bytes(lie)
    one_error(*run(capsys, "scan", str(tmp_path / "shape.gguf"))[::2], "outside the data section")

    lie = bytearray(raw)
    struct.pack_into("<I", lie, type_at, 99)  # no such quantization type
    (tmp_path / "type.gguf").write_bytes(lie)
    code, out, err = run(capsys, "scan", str(tmp_path / "type.gguf"))
    one_error(code, err, "unknown quantization type 99")
    # the other block is still decided
    assert "blk.0" in out and "not_absorbable" in out


def test_gguf_lying_metadata_array_length(tmp_path, capsys):
    p = _llama(tmp_path)
    raw = bytearray(p.read_bytes())
    # general.architecture is the first metadata entry; make the key count claim 10^9 entries
    struct.pack_into("<Q", raw, 16, 10 ** 9)
    (tmp_path / "kv.gguf").write_bytes(raw)
    one_error(*run(capsys, "scan", str(tmp_path / "kv.gguf"))[::2], "more than a file")
    # an array of 2^40 uint32 items in a small file stops before looping over them
    from gguf import GGUFWriter
    w = GGUFWriter(str(tmp_path / "arr.gguf"), "llama")
    w.add_array("x.list", [1, 2, 3])
    w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()
    raw = bytearray((tmp_path / "arr.gguf").read_bytes())
    at = raw.index(b"x.list") + len(b"x.list") + 4 + 4  # value type, item type
    struct.pack_into("<Q", raw, at, 2 ** 40)
    (tmp_path / "arr.gguf").write_bytes(raw)
    one_error(*run(capsys, "scan", str(tmp_path / "arr.gguf"))[::2], "truncated GGUF header")


def test_gguf_nan_in_one_block(tmp_path, capsys):
    bad = np.full((M, 32), np.nan, np.float32)
    p = _llama(tmp_path, **{"blk.1.ffn_up.weight": bad})
    code, out, err = run(capsys, "scan", str(p))
    one_error(code, err, "contains nan")
    assert "blk.0" in out and "not_absorbable" in out


# ---------------------------------------------------------------------- ONNX

def _onnx(tmp_path: Path, name: str = "m.onnx") -> Path:
    rng = np.random.default_rng(1)
    return onnx_mlp(tmp_path / name, [{"up": ints(rng, M, D), "down": ints(rng, D, M), "act": "relu"}
                                      for _ in range(2)], names=False)


def test_onnx_cycle_is_refused(tmp_path, capsys):
    import onnx

    p = _onnx(tmp_path)
    m = onnx.load(str(p))
    # feed the last node's output back into the first node: a cycle
    first = m.graph.node[0]
    first.input[0] = m.graph.node[-1].output[0]
    onnx.save(m, str(tmp_path / "cyc.onnx"))
    one_error(*run(capsys, "scan", str(tmp_path / "cyc.onnx"))[::2], "cycle")


def test_onnx_external_data_outside_the_directory_is_refused(tmp_path, capsys):
    import onnx
    from onnx import TensorProto

    sub = tmp_path / "model"
    sub.mkdir()
    p = _onnx(sub)
    m = onnx.load(str(p))
    secret = tmp_path / "outside.bin"
    secret.write_bytes(b"\0" * 4096)
    t = next(t for t in m.graph.initializer if t.name == "onnx::MatMul_100")
    nbytes = len(t.raw_data)
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "../outside.bin"), ("offset", "0"), ("length", str(nbytes))):
        e = t.external_data.add()
        e.key, e.value = k, v
    onnx.save(m, str(sub / "ext.onnx"))
    code, out, err = run(capsys, "scan", str(sub / "ext.onnx"))
    one_error(code, err, "leaves the model's directory")
    assert "mlp.1" in out and ("absorbable" in out)  # the other block is still decided
    # the same bytes inside the directory are read
    (sub / "w.bin").write_bytes(np.asarray(ints(np.random.default_rng(1), M, D).T, np.float32).tobytes())
    for e in t.external_data:
        if e.key == "location":
            e.value = "w.bin"
    onnx.save(m, str(sub / "ext_ok.onnx"))
    code, out, err = run(capsys, "scan", str(sub / "ext_ok.onnx"))
    assert code == 0, err
    # a symlink inside the directory that points out of it is refused as well
    (sub / "link.bin").symlink_to(secret)
    for e in t.external_data:
        if e.key == "location":
            e.value = "link.bin"
    onnx.save(m, str(sub / "ext_link.onnx"))
    one_error(*run(capsys, "scan", str(sub / "ext_link.onnx"))[::2], "leaves the model's directory")
    # an absolute path too
    for e in t.external_data:
        if e.key == "location":
            e.value = str(secret)
    onnx.save(m, str(sub / "ext_abs.onnx"))
    one_error(*run(capsys, "scan", str(sub / "ext_abs.onnx"))[::2], "leaves the model's directory")


def test_onnx_lying_shape_and_garbage(tmp_path, capsys):
    import onnx

    p = _onnx(tmp_path)
    m = onnx.load(str(p))
    t = next(t for t in m.graph.initializer if t.name == "onnx::MatMul_101")
    t.dims[0] = 1000  # declares far more than raw_data holds
    onnx.save(m, str(tmp_path / "lie.onnx"))
    code, out, err = run(capsys, "scan", str(tmp_path / "lie.onnx"))
    one_error(code, err, "needs")
    (tmp_path / "g.onnx").write_bytes(b"\xff\xfe garbage" * 10)
    one_error(*run(capsys, "scan", str(tmp_path / "g.onnx"))[::2], "not a readable ONNX model")


# ---------------------------------------------------------------------- PyTorch

def _sd(rng) -> dict:
    return {"encoder.layer.0.intermediate.dense.weight": ints(rng, M, D),
            "encoder.layer.0.output.dense.weight": ints(rng, D, M),
            "encoder.layer.1.intermediate.dense.weight": ints(rng, M, D),
            "encoder.layer.1.output.dense.weight": ints(rng, D, M)}


class _System:
    def __reduce__(self):
        return (os.system, ("touch PWNED",))


class _Eval:
    def __reduce__(self):
        return (eval, ("__import__('os').system('touch PWNED')",))


class Custom:  # a model class: never constructed by the reader
    pass


@pytest.mark.parametrize("payload,fragment", [
    (pickle.dumps(_System(), protocol=2), ".system'"),
    (pickle.dumps({"w": _Eval()}, protocol=2), "eval'"),
    (pickle.dumps(Custom(), protocol=2), "Custom'"),
    (b"\x80\x02cos\nsystem\nX\x0b\x00\x00\x00touch PWNED\x85R.", "'os.system'"),
], ids=["os.system", "eval", "custom-class", "hand-written"])
@pytest.mark.parametrize("container", ["zip", "legacy", "bare"])
def test_pickle_payloads_are_refused_and_never_run(tmp_path, capsys, monkeypatch, payload, fragment, container):
    monkeypatch.chdir(tmp_path)
    p = tmp_path / "pytorch_model.bin"
    if container == "bare":
        p.write_bytes(payload)
        fragment = "not a PyTorch state dict"
    else:
        write_state_dict(p, _sd(np.random.default_rng(2)), legacy=container == "legacy", pickle_bytes=payload)
    one_error(*run(capsys, "scan", str(p))[::2], fragment)
    assert not (tmp_path / "PWNED").exists()


def test_pytorch_truncated_and_lying_storages(tmp_path, capsys):
    rng = np.random.default_rng(3)
    p = tmp_path / "a.bin"
    write_state_dict(p, _sd(rng))
    # a storage member shorter than the pickle says: only the blocks using it fail
    q = tmp_path / "b.bin"
    with zipfile.ZipFile(p) as src, zipfile.ZipFile(q, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "archive/data/2":
                data = data[:8]
            dst.writestr(info.filename, data)
    code, out, err = run(capsys, "scan", str(q))
    one_error(code, err, "its archive member holds 8")
    assert "encoder.layer.0" in out and "encoder.layer.1" in out
    # a legacy stream cut short
    write_state_dict(tmp_path / "c.bin", _sd(rng), legacy=True)
    raw = (tmp_path / "c.bin").read_bytes()
    (tmp_path / "c.bin").write_bytes(raw[:-20])
    one_error(*run(capsys, "scan", str(tmp_path / "c.bin"))[::2], "truncated legacy file")
    # a tensor reaching past its storage (the pickle lies about the shape)
    from oracle.core.formats import torch_file
    data, _ = torch_file._pickle_state_dict({"encoder.layer.0.intermediate.dense.weight": ints(rng, M, D)}, False)
    lie = data.replace(struct.pack("<i", M), struct.pack("<i", 10 * M), 1)
    write_state_dict(tmp_path / "d.bin", {"encoder.layer.0.intermediate.dense.weight": ints(rng, M, D)},
                     pickle_bytes=lie)
    one_error(*run(capsys, "scan", str(tmp_path / "d.bin"))[::2], "reaches element")
