"""Stack files and decide_stack: exact verdicts from depth-narrow, depth-d2, depth-impossible and
relu-gelu-iff, 'undecided' with the depth-dimension rank certificate otherwise; hostile input."""

import copy
import json
import pickle
import zipfile

import numpy as np
import pytest

from oracle.core import stackfiles
from oracle.decide import stacks
from oracle.core.blocks import Block, Stack
from oracle.core.errors import InputError

I2 = np.eye(2)


def _near_identity(d, widths, seed=3, scale=0.05):
    rng = np.random.default_rng(seed)
    return Stack([Block("relu", W_up=np.round(rng.standard_normal((m, d)) * 8) / 8,
                        W_down=np.round(rng.standard_normal((d, m)) * 256 * scale) / 256) for m in widths])


def _save_npz(path, arrays, meta):
    with open(path, "wb") as fh:
        np.savez(fh, **arrays, **{k: np.array(v) for k, v in meta.items()})
    return path


def _json(r):
    return json.loads(json.dumps(r))


# ---------------------------------------------------------------- files

@pytest.mark.parametrize("ext", [".npz", ".safetensors"])
def test_round_trip(tmp_path, ext):
    st = _near_identity(2, [3, 2])
    p = tmp_path / f"s{ext}"
    assert stackfiles.write_stack(st, p) == ext[1:]
    back = stackfiles.read_stack(p)
    assert len(back.blocks) == 2 and stackfiles.stack_kind(back) == "residual_stack"
    for a, b in zip(st.blocks, back.blocks):
        assert np.array_equal(a.W_up, b.W_up) and np.array_equal(a.W_down, b.W_down)


def _arrays(st):
    out = {}
    for l, b in enumerate(st.blocks):
        out[f"W_up.{l}"], out[f"W_down.{l}"] = b.W_up, b.W_down
    return out


META = {"kind": "residual_stack", "layers": "2", "activation": "relu"}


@pytest.mark.parametrize("mutate,message", [
    (lambda a, m: m.pop("layers"), "metadata 'layers' is missing"),
    (lambda a, m: m.update(layers="3"), "block 2 has no W_up.2"),
    (lambda a, m: m.update(layers="02"), "layers must be a positive decimal integer"),
    (lambda a, m: m.update(layers="0"), "layers must be a positive decimal integer"),
    (lambda a, m: m.update(kind="residual"), "kind must be one of"),
    (lambda a, m: m.update(activation="tanh"), "tanh"),
    (lambda a, m: a.update({"W_up.01": a["W_up.1"]}), "unknown array 'W_up.01'"),
    (lambda a, m: a.update({"W_in.0": a["W_up.0"]}), "unknown array 'W_in.0'"),
    (lambda a, m: a.update({"W_up.5": a["W_up.0"]}), "has index 5 but layers = 2"),
    (lambda a, m: a.pop("W_down.1"), "block 1 has no W_down.1"),
    (lambda a, m: a.update({"W_down.1": a["W_down.1"] * np.nan}), "block 1: W_down contains nan"),
    (lambda a, m: a.update({"W_up.1": np.ones((2, 3))}), "block 1: W_down has shape"),
    (lambda a, m: a.update({"W_up.1": np.ones((3, 3)), "W_down.1": np.ones((3, 3))}), "d = 2 but block 1 has d = 3"),
    (lambda a, m: a.update({"W_up.1": np.array(["a", "b"])}), "non-numeric dtype"),
])
def test_bad_npz_files(tmp_path, mutate, message):
    a, m = _arrays(_near_identity(2, [3, 2])), dict(META)
    mutate(a, m)
    p = _save_npz(tmp_path / "bad.npz", a, m)
    with pytest.raises(InputError) as e:
        stackfiles.read_stack(p)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_pickled_and_foreign_files_are_refused(tmp_path):
    p = tmp_path / "obj.npz"
    with open(p, "wb") as fh:
        np.savez(fh, **{"W_up.0": np.array([object()], dtype=object)}, kind=np.array("residual_stack"))
    with pytest.raises(InputError, match="pickles are never loaded"):
        stackfiles.read_stack(p)
    q = tmp_path / "x.pkl"
    q.write_bytes(pickle.dumps({"W_up.0": 1}))
    with pytest.raises(InputError, match="pickle"):
        stackfiles.read_stack(q)
    z = tmp_path / "broken.npz"
    z.write_bytes(b"PK\x03\x04garbage")
    with pytest.raises(InputError):
        stackfiles.read_stack(z)
    with pytest.raises(InputError, match="no such file"):
        stackfiles.read_stack(tmp_path / "missing.npz")


def test_safetensors_metadata_is_validated(tmp_path):
    from safetensors.numpy import save_file
    a = {k: np.ascontiguousarray(v) for k, v in _arrays(_near_identity(2, [3, 2])).items()}
    p = tmp_path / "s.safetensors"
    save_file(a, str(p), metadata={**META, "comment": "x"})
    with pytest.raises(InputError, match="unknown metadata key"):
        stackfiles.read_stack(p)
    save_file({**a, "W_extra.0": a["W_up.0"]}, str(p), metadata=META)
    with pytest.raises(InputError, match="unknown array"):
        stackfiles.read_stack(p)


# ---------------------------------------------------------------- decisions

def test_depth_d2_verdict_and_recheck():
    r = stacks.decide_stack(_near_identity(2, [3, 3]))
    assert (r["verdict"], r["claim"], r["exact"]) == ("not_absorbable", "depth-d2", True)
    assert stacks.recheck_decision(_json(r))
    bad = copy.deepcopy(_json(r))
    bad["certificate"]["residual"][0]["W_down"][0][0] = "3"
    assert not stacks.recheck_decision(bad)


@pytest.mark.parametrize("d,widths,part", [(3, [2, 4], "a"), (2, [3, 2], "c"), (3, [4, 3], "c"),
                                           (3, [4, 2, 5], "b")])
def test_depth_narrow_verdicts(d, widths, part):
    r = stacks.decide_stack(_near_identity(d, widths, scale=0.02))
    assert (r["verdict"], r["claim"], r["exact"]) == ("not_absorbable", "depth-narrow", True)
    assert r["certificate"]["conditions"]["part"] == part
    assert stacks.recheck_decision(_json(r))
    lie = _json(r)
    lie["verdict"] = "absorbable"
    assert not stacks.recheck_decision(lie)


def test_undecided_carries_the_rank_certificate():
    r = stacks.decide_stack(_near_identity(2, [3, 3], scale=1.0))
    assert r["verdict"] == "undecided" and not r["exact"] and r["claim"] == "depth-dimension"
    rc = r["certificate"]["rank_certificate"]
    assert rc["rank"] == 18 and rc["D_plain"] == 14 and r["certificate"]["absorbing_widths"] == [5, 5]
    assert "ALMOST EVERY" in r["reason"]
    assert stacks.recheck_decision(_json(r))
    bad = _json(r)
    bad["certificate"]["rank_certificate"]["rank"] = 19
    assert not stacks.recheck_decision(bad)


def test_absorbable_by_index_sets():
    st = Stack([Block("relu", W_up=I2, W_down=-I2),
                Block("relu", W_up=np.array([[1.0, 1], [0, 1], [1, 0]]), W_down=np.array([[0, 0, -1.0], [-1, 0, 1]]))])
    r = stacks.decide_stack(st)
    assert (r["verdict"], r["claim"], r["exact"]) == ("absorbable", "relu-gelu-iff", True)
    plain = r["plain_stack"]
    assert plain[0]["W_up"] == [["-1", "0"], ["0", "-1"]]
    assert stacks.recheck_decision(_json(r))
    bad = _json(r)
    bad["plain_stack"][1]["W_up"][2] = ["1", "0"]
    assert not stacks.recheck_decision(bad)


def test_flat_and_single_block_stacks():
    rng = np.random.default_rng(0)
    st = Stack([Block("relu2", W_up=rng.standard_normal((2, 2)), W_down=rng.standard_normal((2, 2)))] * 2)
    r = stacks.decide_stack(st)
    assert (r["verdict"], r["claim"]) == ("not_absorbable", "depth-impossible") and stacks.recheck_decision(_json(r))
    one = stacks.decide_stack(Stack([Block("relu", W_up=np.array([[1.0, 0], [0, 1], [1, 2]]),
                                           W_down=np.array([[1.0, 2, 1], [0, 1, -1]]))]))
    assert one["verdict"] == "not_absorbable" and one["claim"] == "relu-complete"  # every relu block
    assert stacks.recheck_decision(_json(one))


def test_out_of_scope_stacks_are_undecided():
    b = Block("relu", W_up=np.array([[1.0, 2.0], [3.0, 1.0]]), W_down=np.eye(2), b_up=np.array([1.0, 0.0]))
    assert stacks.decide_stack(Stack([b, b]))["verdict"] == "undecided"
    g = stacks.decide_stack(Stack([Block("gelu", W_up=np.eye(2), W_down=np.eye(2))] * 2))
    assert g["verdict"] == "undecided" and g["certificate"]["absorbing_widths"] == [4, 4]
    glu = Block("glu", W_up=np.eye(2), W_down=np.eye(2), W_gate=np.eye(2))
    assert stacks.decide_stack(Stack([glu, glu]))["verdict"] == "undecided"
    with pytest.raises(InputError, match="residual stack"):
        stacks.decide_stack(Stack([Block("relu", W_up=np.eye(2), W_down=np.eye(2), kind="plain")]))


def test_large_stack_uses_the_rigorous_norm_bound():
    rng = np.random.default_rng(1)
    d, m = 80, 60   # m < d: depth-narrow part (a); m d = 4800 > the exact-procedure limit
    st = Stack([Block("relu", W_up=rng.standard_normal((m, d)) / 100, W_down=rng.standard_normal((d, m)) / 100)
                for _ in range(2)])
    r = stacks.decide_stack(st)
    assert (r["verdict"], r["claim"], r["exact"]) == ("not_absorbable", "depth-narrow", True)
    assert r["certificate"]["part"] == "a" and all(r["certificate"]["norm_ok"])
    wide = Stack([Block("relu", W_up=rng.standard_normal((100, 50)), W_down=rng.standard_normal((50, 100)))] * 2)
    assert stacks.decide_stack(wide)["verdict"] == "undecided"


@pytest.mark.parametrize("name,verdict,claim", [
    ("relu_stack_near_identity", "not_absorbable", "depth-d2"),
    ("relu_stack_narrow", "not_absorbable", "depth-narrow"),
    ("relu_stack_generic", "undecided", "depth-dimension"),
])
def test_example_stack_files(name, verdict, claim):
    from pathlib import Path
    p = Path(__file__).resolve().parent.parent / "examples" / f"{name}.npz"
    r = stacks.decide_stack(stackfiles.read_stack(p))
    assert (r["verdict"], r["claim"]) == (verdict, claim)
    assert stacks.recheck_decision(_json(r))


def test_cli_helpers(tmp_path):
    from pathlib import Path
    ex = Path(__file__).resolve().parent.parent / "examples"
    assert stackfiles.is_stack_file(ex / "relu_stack_generic.npz")
    assert not stackfiles.is_stack_file(ex / "relu_absorbable.npz")   # a block file
    st = Stack([Block("relu", W_up=I2, W_down=-I2)] * 2)
    r = stacks.decide_stack(st)
    plain = stacks.plain_stack_from_result(r, "relu")
    assert [b.kind for b in plain.blocks] == ["plain", "plain"]
    assert np.array_equal(plain.blocks[0].W_up, -I2)
    x = np.array([[1.5, -2.0], [-0.25, 3.0]])
    assert np.array_equal(plain.eval_f64(x), st.eval_f64(x))
    stackfiles.write_stack(plain, tmp_path / "p.safetensors")
    assert stackfiles.is_stack_file(tmp_path / "p.safetensors")
    assert stackfiles.stack_kind(stackfiles.read_stack(tmp_path / "p.safetensors")) == "plain_stack"
    text = stacks.format_decision(stacks.decide_stack(stackfiles.read_stack(ex / "relu_stack_generic.npz")))
    assert "verdict: undecided (depth-dimension, not exact)" in text and "rank 18" in text
    bad = dict(r, plain_stack=[{"W_up": [["1/3", "0"], ["0", "1"]], "W_down": [["1", "0"], ["0", "1"]]}])
    with pytest.raises(InputError, match="non-dyadic"):
        stacks.plain_stack_from_result(bad, "relu")
