"""Hostile and unusual input for absorb check / witness / scan (issue 12).

Every input file is built here.  The contract checked: exit status 0 or 2, at most
one line on stderr for an error, never a traceback, stdout JSON that a strict
parser accepts, no exact verdict about numbers other than the stored ones, and
memory bounded by the input (commands that once asked for gigabytes run here in a
subprocess under an address-space limit).  Claims exercised: relu-complete
(decide's relu path: every relu block), relu-gelu-iff (named among the claims also met),
absorption-width (width line).
"""

from __future__ import annotations

import io
import json
import os
import pickle
import resource
import struct
import subprocess
import sys
import zipfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from oracle.core import linalg
from oracle.cli import main

CLAIM = "relu-complete"  # the claim of every relu verdict (oracle/decide/block.py)
MEM_LIMIT = 768 * 2 ** 20  # address space of one command run under a limit


# ---------------------------------------------------------------- file builders

def npz(path: Path, **arrays) -> Path:
    """An .npz written through np.savez (metadata strings become 0-d arrays)."""
    with open(path, "wb") as fh:
        np.savez(fh, **{k: np.array(v) if isinstance(v, str) else v for k, v in arrays.items()})
    return path


def npy_bytes(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=True)
    return buf.getvalue()


def safetensors(path: Path, tensors: dict, meta: dict | None = None, edit=None) -> Path:
    """A .safetensors file written by hand: tensors maps name -> (dtype, shape, raw bytes)."""
    header, data = {}, b""
    for name, (dt, shape, raw) in tensors.items():
        header[name] = {"dtype": dt, "shape": list(shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if meta:
        header["__metadata__"] = meta
    if edit:
        header = edit(header)
    h = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(h)) + h + data)
    return path


def bf16(a: np.ndarray) -> bytes:
    """The bfloat16 bytes of float32 values that bfloat16 holds exactly."""
    return (np.asarray(a, np.float32).view(np.uint32) >> 16).astype("<u2").tobytes()


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, out: str, err: str, fragment: str) -> None:
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert fragment.lower() in lines[0].lower(), lines[0]


def strict_json(text: str):
    def no_constants(name: str):
        raise AssertionError(f"non-JSON constant {name} in output")
    return json.loads(text, parse_constant=no_constants)


def limited(*argv: str, limit: int = MEM_LIMIT, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run `absorb ...` in a subprocess whose address space is capped (a MemoryError becomes exit 2)."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    e = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", "oracle.cli", *argv], capture_output=True, text=True,
                          preexec_fn=cap, env=e, timeout=600)


# ---------------------------------------------------------------- item 1: b_down not a float64

def test_b_down_correction_beyond_float64_is_absorbable_exact_and_emitted_rounded(tmp_path, capsys):
    f = npz(tmp_path / "b.npz", W_up=np.array([[1, 1], [0, 1], [2, -1.0]]),
            W_down=np.array([[-1, 1, .5], [0, -1, .25]]), b_up=np.array([.1, .7, .3]), activation="relu")
    out_file = tmp_path / "plain.npz"
    code, out, err = run_cli(capsys, "check", str(f), "--json", "--emit", str(out_file))
    assert code == 0 and err == ""
    doc = strict_json(out)
    assert doc["verdict"] == "absorbable" and doc["exact"] is True and doc["claim"] == CLAIM
    cert = doc["certificate"]
    assert cert["b_down_rounded"] is True and cert["spot_check"]["agree"] is True
    exact_b = [Fraction(v) for v in cert["b_down_exact"]]
    # the exact correction is W_down[:,S] b_up[S] for S = {0, 1}
    want = [Fraction(-1) * Fraction(.1) + Fraction(1) * Fraction(.7), Fraction(-1) * Fraction(.7)]
    assert sorted(cert["S"]) == [0, 1] and exact_b == want
    with np.load(out_file) as z:
        assert str(z["rounded"]) == "b_down"
        assert str(z["rounding_error"]).startswith("b_down: |entry - exact value| <= ")
        emitted = z["b_down"]
    assert cert["emitted_block"]["exact"] is False and cert["emitted_block"]["rounded"] == ["b_down"]
    err_bound = cert["b_down_max_rounding_error"]
    assert all(abs(Fraction(float(e)) - q) <= Fraction(err_bound) for e, q in zip(emitted, exact_b))
    assert any(Fraction(float(e)) != q for e, q in zip(emitted, exact_b))
    # the file is marked rounded and witness (exactly) finds the rounding difference
    code, out, err = run_cli(capsys, "witness", str(f), str(out_file), "--json")
    assert code == 0 and strict_json(out)["verdict"] == "differ"


def test_emit_onto_the_input_file_is_refused(tmp_path, capsys):
    f = npz(tmp_path / "r.npz", W_up=np.eye(2), W_down=-np.eye(2), activation="relu")
    before = f.read_bytes()
    code, out, err = run_cli(capsys, "check", str(f), "--emit", str(f))
    assert_one_line_error(code, out, err, "input file")
    assert f.read_bytes() == before


# ---------------------------------------------------------------- item 2: npz members

def test_npz_member_without_npy_suffix(tmp_path, capsys):
    p = tmp_path / "raw.npz"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("W_up", npy_bytes(np.eye(2)))
        z.writestr("W_down.npy", npy_bytes(np.eye(2)))
        z.writestr("activation.npy", npy_bytes(np.array("relu")))
    for argv in (["check", str(p)], ["witness", str(p), str(p)]):
        assert_one_line_error(*run_cli(capsys, *argv), "not a .npy array")


def test_npz_duplicate_members_and_lying_headers(tmp_path, capsys):
    p = tmp_path / "dup.npz"
    with pytest.warns(UserWarning), zipfile.ZipFile(p, "w") as z:
        z.writestr("W_up.npy", npy_bytes(np.eye(2)))
        z.writestr("W_up.npy", npy_bytes(2 * np.eye(2)))
    assert_one_line_error(*run_cli(capsys, "check", str(p)), "twice")
    # a header that declares 10^6 x 10^6 float64 over 32 bytes of data
    raw = npy_bytes(np.eye(2))
    lie = raw.replace(b"(2, 2)", b"(1000000, 1000000)")
    p = tmp_path / "lie.npz"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("W_up.npy", lie)
        z.writestr("W_down.npy", raw)
    assert_one_line_error(*run_cli(capsys, "check", str(p)), "declares shape")
    # corrupt member data (bad magic)
    p = tmp_path / "magic.npz"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("W_up.npy", b"garbage" * 10)
    assert_one_line_error(*run_cli(capsys, "check", str(p)), "unreadable")


def test_pickled_arrays_are_never_loaded(tmp_path, capsys):
    obj = np.empty(2, dtype=object)
    obj[:] = [1.0, 2.0]
    p = tmp_path / "obj.npz"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("W_up.npy", npy_bytes(np.eye(2)))
        z.writestr("W_down.npy", npy_bytes(obj))
    assert_one_line_error(*run_cli(capsys, "check", str(p)), "pickles are never loaded")
    q = tmp_path / "plain.pkl"
    q.write_bytes(pickle.dumps({"W_up": np.eye(2)}))
    assert_one_line_error(*run_cli(capsys, "check", str(q)), "pickle")


# ---------------------------------------------------------------- item 4: safetensors and bfloat16

def _llama(d: int = 4, m: int = 8, layers: int = 2) -> dict:
    rng = np.random.default_rng(0)
    t = {}
    for k in range(layers):
        for name, shape in (("gate_proj", (m, d)), ("up_proj", (m, d)), ("down_proj", (d, m))):
            t[f"model.layers.{k}.mlp.{name}.weight"] = ("BF16", shape, bf16(rng.standard_normal(shape)))
    return t


def test_check_reads_bfloat16_exactly(tmp_path, capsys):
    vals = np.array([[1.5, -2.0], [0.09375, 2.0 ** 100]], dtype=np.float32)
    p = safetensors(tmp_path / "b.safetensors", {"W_up": ("BF16", (2, 2), bf16(vals)),
                                                 "W_down": ("BF16", (2, 2), bf16(-np.eye(2)))},
                    meta={"activation": "relu"})
    from oracle.core import io as bio
    b = bio.read_block(p)
    assert np.array_equal(b.W_up, vals.astype(np.float64)) and np.array_equal(b.W_down, -np.eye(2))
    code, out, err = run_cli(capsys, "check", str(p), "--json")
    assert code == 0 and strict_json(out)["verdict"] in ("absorbable", "not_absorbable", "undecided")


@pytest.mark.parametrize("lie, fragment", [
    (lambda h: {**h, "model.layers.0.mlp.up_proj.weight": {**h["model.layers.0.mlp.up_proj.weight"],
                                                           "data_offsets": [0, 10 ** 9]}}, "outside"),
    (lambda h: {**h, "model.layers.0.mlp.up_proj.weight": {**h["model.layers.0.mlp.up_proj.weight"],
                                                           "shape": [8, 5]}}, "needs"),
    (lambda h: {**h, "model.layers.0.mlp.up_proj.weight": {**h["model.layers.0.mlp.up_proj.weight"],
                                                           "dtype": "F8_E4M3"}}, "not supported"),
    (lambda h: {**h, "model.layers.0.mlp.up_proj.weight": {**h["model.layers.0.mlp.up_proj.weight"],
                                                           "shape": [-8, 4]}}, "non-negative"),
    (lambda h: {**h, "model.layers.0.mlp.up_proj.weight": h["model.layers.0.mlp.gate_proj.weight"]},
     "overlap"),
])
def test_scan_refuses_lying_bf16_headers(tmp_path, capsys, lie, fragment):
    p = safetensors(tmp_path / "ck.safetensors", _llama(), edit=lie)
    assert_one_line_error(*run_cli(capsys, "scan", str(p)), fragment)


def test_safetensors_header_length_beyond_the_file(tmp_path, capsys):
    p = tmp_path / "h.safetensors"
    p.write_bytes(struct.pack("<Q", 10 ** 7) + b'{"a": 1}')
    assert_one_line_error(*run_cli(capsys, "check", str(p)), "header length")
    assert_one_line_error(*run_cli(capsys, "scan", str(p)), "header length")


def test_scan_reports_a_bad_block_and_goes_on(tmp_path, capsys):
    t = _llama()
    del t["model.layers.1.mlp.down_proj.weight"]
    p = safetensors(tmp_path / "ck.safetensors", t)
    code, out, err = run_cli(capsys, "scan", str(p), "--json")
    assert code == 2
    doc = strict_json(out)
    verdicts = {b["block"]: b["verdict"] for b in doc["blocks"]}
    assert verdicts["model.layers.0"] == "not_absorbable" and verdicts["model.layers.1"] == "error"
    errs = [ln for ln in err.splitlines() if ": error:" in ln]
    assert len(errs) == 1 and "model.layers.1:" in errs[0] and "model.layers.1.:" not in errs[0]
    assert "Traceback" not in err


# ---------------------------------------------------------------- item 5: wider than float64

@pytest.mark.skipif(np.finfo(np.longdouble).nmant <= 52,
                    reason="long double is float64 here, so no wider value can be stored")
def test_longdouble_that_is_not_a_float64_is_refused(tmp_path, capsys):
    up = np.diag(np.array([1, 1], dtype=np.longdouble))
    up[0, 0] += np.longdouble(2) ** -60  # 1 + 2^-60: not a float64
    f = npz(tmp_path / "wide.npz", W_up=up, W_down=-np.eye(2), activation="relu")
    assert_one_line_error(*run_cli(capsys, "check", str(f)), "wider than float64")


def test_longdouble_holding_float64_numbers_is_read_exactly(tmp_path, capsys):
    # runs on every platform: long doubles that are float64 numbers are decided as such
    g = npz(tmp_path / "ok.npz", W_up=np.eye(2, dtype=np.longdouble), W_down=-np.eye(2), activation="relu")
    code, out, err = run_cli(capsys, "check", str(g), "--json")
    assert code == 0 and strict_json(out)["verdict"] == "absorbable"


@pytest.mark.parametrize("bad", ["complex", "string", "structured", "meta_array"])
def test_wrong_dtypes(tmp_path, capsys, bad):
    arrays = {"W_up": np.eye(2), "W_down": -np.eye(2), "activation": "relu"}
    if bad == "complex":
        arrays["W_up"] = np.eye(2) + 1j
    elif bad == "string":
        arrays["W_down"] = np.array([["a", "b"], ["c", "d"]])
    elif bad == "structured":
        arrays["W_up"] = np.zeros(2, dtype=[("x", "f8"), ("y", "f8")])
    else:
        arrays["activation"] = np.array(["relu", "gelu"])
    f = npz(tmp_path / "w.npz", **arrays)
    code, out, err = run_cli(capsys, "check", str(f))
    assert_one_line_error(code, out, err, "")
    assert "dtype" in err or "string" in err


# ---------------------------------------------------------------- NaN / Inf

@pytest.mark.parametrize("where", ["npz", "bf16", "longdouble"])
def test_nan_and_inf_are_refused(tmp_path, capsys, where):
    if where == "npz":
        up = np.eye(2)
        up[1, 0] = np.inf
        f = npz(tmp_path / "n.npz", W_up=up, W_down=-np.eye(2), activation="relu")
    elif where == "bf16":
        raw = np.array([0x7FC0, 0, 0, 0x3F80], dtype="<u2").tobytes()  # NaN, 0, 0, 1
        f = safetensors(tmp_path / "n.safetensors", {"W_up": ("BF16", (2, 2), raw),
                                                     "W_down": ("BF16", (2, 2), bf16(-np.eye(2)))},
                        meta={"activation": "relu"})
    else:
        up = np.eye(2, dtype=np.longdouble)
        up[0, 1] = np.longdouble(np.finfo(np.float64).max) * 4  # finite long double, infinite float64
        f = npz(tmp_path / "n.npz", W_up=up, W_down=-np.eye(2), activation="relu")
    code, out, err = run_cli(capsys, "check", str(f))
    assert_one_line_error(code, out, err, "")
    assert any(w in err for w in ("nan", "inf", "not a float64"))


# ---------------------------------------------------------------- items 3 and 6: overflow, JSON

def test_overflowing_weights_give_strict_json_and_no_warning(tmp_path, capsys):
    rng = np.random.default_rng(0)
    for name, (m, d, s, ms) in {"big": (40, 3, 1e200, 1.0), "huge": (40, 101, 1e300, 1e-300)}.items():
        f = npz(tmp_path / f"{name}.npz", W_up=rng.standard_normal((m, d)) * s,
                W_down=rng.standard_normal((d, m)) * s, M=np.eye(d) * ms, activation="relu")
        code, out, err = run_cli(capsys, "check", str(f), "--json")
        assert code == 0 and err == "", err
        doc = strict_json(out)
        assert doc["verdict"] in ("not_absorbable", "undecided")
        if doc["verdict"] == "not_absorbable":
            assert doc["exact"] is True
        code, out, err = run_cli(capsys, "check", str(f))
        assert code == 0 and err == ""
        if doc["certificate"]["kind"] != "no_index_set":
            # item 7: a bound that is not positive is never printed as "... > 0"
            assert "> 0" not in out


def test_rescaled_relaxation_certifies_what_it_certifies_unscaled():
    from oracle.algebra import search

    rng = np.random.default_rng(1)
    U, W, M = rng.standard_normal((192, 48)), rng.standard_normal((48, 192)), np.eye(48)
    assert search.find_index_set(U, W, M).status == "none"
    with np.errstate(all="ignore"):
        big = search.find_index_set(U * 2.0 ** 500, W * 2.0 ** 500, M * 2.0 ** 1000)
        assert big.status == "none" and big.exact
        Y = search.decode_matrix(big.certificate["Y"])
        chk = search.check_linear_certificate(U * 2.0 ** 500, W * 2.0 ** 500, M * 2.0 ** 1000, Y)
    assert chk["certified"] and chk["scaled_by_power_of_two"] != 0 and chk["lower_bound"] > 1e300


# ---------------------------------------------------------------- items 8 and 11: linear algebra

def test_triangular_skip_with_determinant_equal_to_the_prime(tmp_path):
    from oracle.decide.block import invertibility

    d = 70
    M = np.triu(np.ones((d, d)))
    M[0, 0] = float(linalg.PRIMES[0])
    assert invertibility(M)["invertible"] is True
    # a non-triangular M whose determinant is divisible by the first prime: the others decide
    P = np.eye(d)[::-1].copy()
    P[0, -1] = float(linalg.PRIMES[0])
    P[1, 0] = 1.0
    assert linalg.rank_mod_p(P, linalg.PRIMES[0]) < d
    assert invertibility(P)["invertible"] is True
    S = np.ones((d, d))
    assert invertibility(S)["invertible"] is False


def test_slow_side_paths_settle_by_flint(tmp_path, capsys):
    rng = np.random.default_rng(3)
    f = npz(tmp_path / "g.npz", W_up=rng.standard_normal((200, 100)), W_down=rng.standard_normal((100, 200)),
            activation="gelu")
    code, out, err = run_cli(capsys, "check", str(f), "--json")
    doc = strict_json(out)
    assert code == 0 and doc["verdict"] == "not_absorbable"
    assert doc["certificate"]["absorption_width"]["rank_W_up"]["rank_is_d"] is True
    M = rng.standard_normal((64, 64))
    g = npz(tmp_path / "m.npz", W_up=rng.standard_normal((128, 64)), W_down=rng.standard_normal((64, 128)),
            M=M, activation="relu")
    code, out, err = run_cli(capsys, "check", str(g), "--json")
    doc = strict_json(out)
    assert code == 0 and doc["certificate"]["hypotheses"]["M_invertible"]["invertible"] is True


def test_width_line_when_m_is_below_d(tmp_path, capsys):
    f = npz(tmp_path / "w.npz", W_up=np.array([[1.0, 2.0, 3.0]]), W_down=np.array([[1.0], [0.5], [2.0]]),
            activation="relu")
    code, out, err = run_cli(capsys, "check", str(f))
    assert code == 0
    # relu-complete: m* = 1 + |T| + 2 rank(N_s P_T) = 1 + 1 + 2 * 2 = 6 = m + 2d - rank W_up
    assert "minimal absorption width 6 -- exact (relu-complete)" in out and "not established" not in out


# ---------------------------------------------------------------- item 12: near misses

def test_one_third_is_reported_within_rounding(tmp_path, capsys):
    f = npz(tmp_path / "t.npz", W_up=3 * np.eye(2), W_down=-(1 / 3) * np.eye(2), activation="relu")
    code, out, err = run_cli(capsys, "check", str(f), "--json")
    doc = strict_json(out)
    assert doc["verdict"] == "not_absorbable" and doc["exact"] is True  # about the stored floats
    dist = doc["certificate"]["distance"]
    assert dist["nearest_S"] == [0, 1] and dist["within_rounding"] is True
    want = abs(Fraction(3) * Fraction(-1 / 3) + 1) * 2 ** 0.5
    assert 0 < dist["residual_fro"] <= dist["rounding_tolerance"]
    assert abs(dist["residual_fro"] - float(want)) <= 1e-30
    code, out, _ = run_cli(capsys, "check", str(f))
    assert "WITHIN ROUNDING" in out
    # a genuinely different block is not within rounding
    g = npz(tmp_path / "u.npz", W_up=3 * np.eye(2), W_down=-0.3 * np.eye(2), activation="relu")
    code, out, _ = run_cli(capsys, "check", str(g), "--json")
    d2 = strict_json(out)["certificate"]["distance"]
    assert d2["within_rounding"] is False and d2["residual_fro"] > 0.1


# ---------------------------------------------------------------- item 9: memory

def test_budget_refusal_names_the_limit(tmp_path):
    f = npz(tmp_path / "b.npz", W_up=np.ones((300, 200)), W_down=np.ones((200, 300)), activation="relu")
    r = limited("check", str(f), env={"ABSORB_MAX_MEMORY": "1M"})
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "ABSORB_MAX_MEMORY" in r.stderr


def test_zip_bomb_is_refused_before_inflating(tmp_path):
    p = tmp_path / "bomb.npz"
    n = 40_000_000  # 320 MB of zeros as float64; the archive is well under 1 MB
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (n // 2, 2)})
    with zipfile.ZipFile(p, "w", compression=zipfile.ZIP_DEFLATED) as z:
        with z.open("W_up.npy", "w", force_zip64=True) as fh:
            fh.write(header.getvalue())
            chunk = bytes(8 * 1_000_000)
            for _ in range(n // 1_000_000):
                fh.write(chunk)
        z.writestr("W_down.npy", npy_bytes(np.zeros((2, n // 2))))
    assert p.stat().st_size < 2_000_000
    r = limited("check", str(p), limit=512 * 2 ** 20)
    assert r.returncode == 2 and "ABSORB_MAX_INFLATION" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


@pytest.mark.parametrize("shape", [(20000, 2), (45000, 2), (1, 60000)])
def test_tiny_files_stay_within_a_memory_limit(tmp_path, shape):
    m, d = shape
    rng = np.random.default_rng(0)
    f = npz(tmp_path / "t.npz", W_up=rng.standard_normal((m, d)), W_down=rng.standard_normal((d, m)),
            activation="relu")
    assert f.stat().st_size < 2_000_000
    r = limited("check", str(f), "--json")
    assert r.returncode == 0, r.stderr
    doc = strict_json(r.stdout)
    assert doc["verdict"] in ("not_absorbable", "undecided")
    if d > m:
        assert doc["verdict"] == "not_absorbable" and doc["certificate"]["search"]["violated"] == ["rank"]


def test_scan_of_a_wide_checkpoint_stays_within_a_memory_limit(tmp_path):
    rng = np.random.default_rng(0)
    m, d = 30000, 2
    p = safetensors(tmp_path / "w.safetensors", {
        "encoder.layer.0.intermediate.dense.weight": ("F32", (m, d), rng.standard_normal((m, d)).astype("<f4").tobytes()),
        "encoder.layer.0.output.dense.weight": ("F32", (d, m), rng.standard_normal((d, m)).astype("<f4").tobytes())})
    r = limited("scan", str(p), "--json")
    assert r.returncode == 0, r.stderr
    doc = strict_json(r.stdout)
    assert doc["blocks"][0]["m"] == m and "Traceback" not in r.stderr
