"""`absorb recheck` verifies the fields that state what a decision did or derived (issue 29, referee
round four, finding F8): the verdict's exactness (true -> false was accepted), the index-set search's
exactness and its count of nonzero units, the unit-level search's status, relu2-biased (C)'s class
counts and plan (re-derived from the weights), a flip certificate's outcome and activation property,
the compressed solve's status and functional count, the absorption width of a flip certificate, and
gated-impossible's bias_free / gate_differentiable_at_0.  Each forged field is refused, named.

Claims exercised: relu2-biased, homogeneous-impossible, gated-impossible, gated-biased, relu-limit,
relu-complete."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from oracle.cli import main
from forgery import put

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples"
DATA = Path(__file__).resolve().parent / "data" / "referee29"
ALLOWED, NONE = ("--replacing-biases", "allowed"), ("--replacing-biases", "none")


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(path: Path, act: str, **arrs) -> Path:
    np.savez(path, activation=np.array(act), kind=np.array("residual"),
             **{k: np.array(v, dtype=float) for k, v in arrs.items()})
    return path


def block_file(tmp_path: Path, name: str) -> Path:
    if name == "relu2":  # the referee's relu2_biasfree_d1_M-1: relu2-biased (C) with biases, homogeneous without
        return write(tmp_path / "relu2.npz", "relu2", W_up=[[-2.0], [1.0], [-2.0]], W_down=[[-0.5, 0.0, 0.0]],
                     M=[[-1.0]])
    if name == "swiglu":  # W_down = 0, M = 1: gated-impossible without biases
        return write(tmp_path / "swiglu.npz", "swiglu", W_up=[[1.0]], W_down=[[0.0]], M=[[1.0]], W_gate=[[1.0]])
    if name == "gelu_exhaustive":  # the necessary conditions hold, no index set: meet-in-the-middle "none"
        return write(tmp_path / "gelu.npz", "gelu", W_up=[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, -1.0]],
                     W_down=[[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 1.0, -1.0]], M=[[-1.0, 0.5], [0.5, -3.0]])
    if name in ("d1_relu_37_sha", "relu_d2_38_sha"):
        return DATA / f"{name}.npz"
    return EX / f"{name}.npz"


C = ("certificate",)
# (block, check flags, forged path, forged value, the field the refusal names)
FORGERIES = [
    # exact true -> false, one per kind of certificate
    ("relu2", ALLOWED, ("exact",), False, "exact"),                       # biased_flip (C)
    ("relu2", NONE, ("exact",), False, "exact"),                          # homogeneous
    ("swiglu", NONE, ("exact",), False, "exact"),                         # gated_zero
    ("relu_absorbable", (), ("exact",), False, "exact"),                  # relu_complete
    ("gelu_biased", (), ("exact",), False, "exact"),                      # relu_limit, found
    ("gelu_random", (), ("exact",), False, "exact"),                      # relu_limit, none
    ("relu2_biased_absorbable", (), ("exact",), False, "exact"),          # biased_flip (A)
    ("swiglu_biased_generic", (), ("exact",), False, "exact"),            # biased_flip, no flip set
    # the search's exactness and its count of nonzero units
    ("gelu_exhaustive", (), C + ("search", "exact"), False, "certificate.search.exact"),
    ("gelu_exhaustive", (), C + ("search", "nonzero_units"), 3, "certificate.search.nonzero_units"),
    ("gelu_biased", (), C + ("search", "exact"), False, "certificate.search.exact"),
    # relu_d2_38_sha: the exact integer search is inconclusive (37 vectors, no divisibility
    # obstruction) and the unit-level search found an S (S_units carried)
    ("relu_d2_38_sha", ALLOWED, C + ("search", "exact"), True, "certificate.search.exact"),
    # the unit-level search denies the found S the certificate carries
    ("relu_d2_38_sha", ALLOWED, C + ("unit_search", "status"), "none", "certificate.unit_search.status"),
    # relu2-biased (C): class counts and plan, outcome, activation property, compressed solve, width
    ("relu2", ALLOWED, C + ("classes", "classes"), 2, "certificate.classes.classes"),
    ("relu2", ALLOWED, C + ("classes", "active_classes"), 2, "certificate.classes.active_classes"),
    ("relu2", ALLOWED, C + ("classes", "spare_units"), 1, "certificate.classes.spare_units"),
    ("relu2", ALLOWED, C + ("classes", "T_systems"), 3, "certificate.classes.T_systems"),
    ("relu2", ALLOWED, C + ("plan", "E"), [], "certificate.plan.E"),
    ("relu2", ALLOWED, C + ("plan", "squares"), 2, "certificate.plan.squares"),
    ("relu2", ALLOWED, C + ("plan", "squares"), 0, "certificate.plan.squares"),
    ("relu2", ALLOWED, C + ("outcome",), "not_absorbable", "certificate.outcome"),
    ("relu2", ALLOWED, C + ("activation_property", "verified"), False, "certificate.activation_property.verified"),
    ("relu2", ALLOWED, C + ("search", "status"), "found", "certificate.search.status"),
    ("relu2", ALLOWED, C + ("search", "functionals"), 12, "certificate.search.functionals"),
    ("relu2", ALLOWED, C + ("absorption_width", "at_most"), 2, "certificate.absorption_width.at_most"),
    ("relu2_biased_absorbable", (), C + ("outcome",), "not_absorbable", "certificate.outcome"),
    ("swiglu_biased_generic", (), C + ("search", "status"), "found", "certificate.search.status"),
    ("swiglu_biased_generic", (), C + ("absorption_width", "note"), "more than m = 9",
     "certificate.absorption_width.note"),
    # gated-impossible / homogeneous-impossible: the stated hypotheses
    ("swiglu", NONE, C + ("bias_free",), False, "certificate.bias_free"),
    ("swiglu", NONE, C + ("gate_differentiable_at_0",), False, "certificate.gate_differentiable_at_0"),
    ("swiglu", NONE, C + ("gate_value_at_0",), "1", "certificate.gate_value_at_0"),
    ("relu2", NONE, C + ("bias_free",), False, "certificate.bias_free"),
    ("relu2", NONE, C + ("scaling_points", "x"), "e_1", "certificate.scaling_points.x"),
]


@pytest.mark.parametrize("name, flags, path, value, field", FORGERIES)
def test_forged_work_fields_are_refused(capsys, tmp_path, name, flags, path, value, field):
    f = block_file(tmp_path, name)
    code, out, err = run(capsys, "check", "--json", *flags, f)
    assert code == 0, err
    doc = json.loads(out)
    p = tmp_path / "doc.json"
    p.write_text(json.dumps(doc))
    code, out, _ = run(capsys, "recheck", p, f)
    assert code == 0 and out.startswith("holds:"), out  # the true document holds
    bad = put(doc, path, value)
    assert bad != doc
    p.write_text(json.dumps(bad))
    code, out, _ = run(capsys, "recheck", p, f)
    assert code == 1 and out.startswith(f"does not hold: {field}"), out


def test_flip_certificate_width_is_recomputed_not_named(capsys, tmp_path):
    """The absorption width of a flip certificate is recomputed, no longer listed as not verified."""
    f = block_file(tmp_path, "relu2")
    code, out, _ = run(capsys, "check", "--json", *ALLOWED, f)
    p = tmp_path / "doc.json"
    p.write_text(out)
    code, out, _ = run(capsys, "recheck", p, f)
    assert code == 0 and "absorption_width" not in out, out


def test_no_index_set_search_without_a_status_is_a_none_outcome():
    """A no_index_set certificate's exhaustive search states no status (its kind says no S was
    found): its exact = true holds, and a forged exact = false is refused.  The block is the glu
    block with zero rows that the witness round trip drew."""
    import numpy as np
    from oracle.core.blocks import Block
    from oracle.decide import decide
    from oracle.decide.document import recheck_block_document
    b = Block("glu", W_up=np.array([[0.0, 0.0, 0.0], [0.0, -1.125, 0.0], [4.0, 0.0, 0.0], [0.0, 0.0, 0.0],
                                   [0.0, 0.0, -2.125]]),
              W_down=np.array([[0.0, 0.0, -0.5, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 3.375]]),
              W_gate=np.array([[0.0, 0.0, 0.0], [-1.125, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0],
                               [0.0, 0.0, 0.0]]), kind="residual")
    doc = json.loads(json.dumps(decide(b).as_dict()))
    assert doc["certificate"]["kind"] == "no_index_set" and "status" not in doc["certificate"]["search"]
    ok, why = recheck_block_document(b, doc)
    assert ok, why
    ok, why = recheck_block_document(b, put(doc, C + ("search", "exact"), False))
    assert not ok and why.startswith("certificate.search.exact")
