"""Rewrite an ONNX graph so that MLP blocks with a skip, x + B(x), become residual-free blocks.

For each block the caller gives the replacing block's weights (W_up m'xd, b_up m', W_down dxm',
b_down d, already in the model's float type).  The graph is changed in place of the old block:

    x -> up (MatMul/Gemm, + Add b_up) -> activation subgraph -> down (+ Add b_down) -> Add(x, .) -> ...

becomes ``x -> up' (+ b_up') -> the same activation subgraph -> down' (+ b_down') -> ...``: the up
and down nodes read new initializers (in the orientation each node expects), the activation
nodes are kept (they are elementwise, so they work at any width), and the skip's Add node is
removed: the node that computed the block's output now writes the value the Add wrote, so every
consumer (LayerNorm in a post-LN model, or a graph output) reads the residual-free block.
Initializers and Transpose nodes that nothing reads any more are dropped, and shape annotations of
the widened values are removed (they would state the old width).  Everything goes through the onnx
library's own helpers (``onnx.helper``, ``numpy_helper``) and the result passes
``onnx.checker.check_model``.

What is and is not rewritten is decided by the caller (oracle/decide/compile.py); this module
refuses (InputError) a graph whose block it cannot find again as the pattern above.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import numpy as np
import onnx
from onnx import helper, numpy_helper

from oracle.core.errors import InputError

__all__ = ["BlockSite", "find_site", "layout_problem", "rewrite", "save", "skip_of"]

_STD = ("", "ai.onnx")


class BlockSite:
    """Where one block sits in a graph: node indices and value names of its parts."""

    def __init__(self, x: str, up: int, up_bias: Optional[int], down: int, down_bias: Optional[int],
                 end: str, skip: Optional[int]) -> None:
        self.x, self.up, self.up_bias, self.down, self.down_bias = x, up, up_bias, down, down_bias
        self.end, self.skip = end, skip


def _consumers(graph: Any) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, n in enumerate(graph.node):
        for v in n.input:
            if v:
                out.setdefault(v, []).append(i)
    return out


def _uses_weight(graph: Any, node: Any, weight: str) -> bool:
    """Whether a MatMul/Gemm node reads ``weight`` (directly, or through a Transpose node)."""
    if len(node.input) < 2:
        return False
    w = node.input[1]
    if w == weight:
        return True
    for n in graph.node:
        if n.op_type == "Transpose" and list(n.output) == [w] and n.input and n.input[0] == weight:
            return True
    return False


def _bias_add(graph: Any, cons: dict[str, list[int]], value: str, bias: Optional[str]) -> Optional[int]:
    """The Add node that adds initializer ``bias`` to ``value`` (None when there is no bias)."""
    if bias is None:
        return None
    for j in cons.get(value, []):
        n = graph.node[j]
        if n.op_type == "Add" and n.domain in _STD and set(n.input) == {value, bias}:
            return j
    return None


def find_site(graph: Any, tensors: dict[str, str], biases: dict[str, str]) -> BlockSite:
    """Locate a block (its weight and bias names as the scan reports them) in the graph."""
    cons = _consumers(graph)
    ups = [i for i, n in enumerate(graph.node) if n.op_type in ("MatMul", "Gemm") and n.domain in _STD
           and _uses_weight(graph, n, tensors["up"])]
    downs = [i for i, n in enumerate(graph.node) if n.op_type in ("MatMul", "Gemm") and n.domain in _STD
             and _uses_weight(graph, n, tensors["down"])]
    if len(ups) != 1 or len(downs) != 1:
        raise InputError(f"weights {tensors['up']!r}/{tensors['down']!r} are read by {len(ups)}/{len(downs)} "
                         "linear nodes (shared weights); not compiled")
    up, down = ups[0], downs[0]
    un, dn = graph.node[up], graph.node[down]
    # a bias is Gemm's C input, or an Add node right after the linear node (MatMul, or Gemm without C)
    ub = None if biases.get("b_up") in un.input else _bias_add(graph, cons, un.output[0], biases.get("b_up"))
    db = None if biases.get("b_down") in dn.input else _bias_add(graph, cons, dn.output[0], biases.get("b_down"))
    for role, node, add in (("b_up", un, ub), ("b_down", dn, db)):
        if biases.get(role) and biases[role] not in node.input and add is None:
            raise InputError(f"the bias {biases[role]!r} is not added right after its linear node; not compiled")
    end = graph.node[db].output[0] if db is not None else dn.output[0]
    return BlockSite(un.input[0], up, ub, down, db, end, skip_of(graph, un.input[0], end))


def skip_of(graph: Any, x: str, end: str) -> Optional[int]:
    """The Add node computing x + end (the skip of the block), or None."""
    for j, n in enumerate(graph.node):
        if n.op_type == "Add" and n.domain in _STD and len(n.input) == 2 and set(n.input) == {x, end} \
                and x != end:
            return j
    return None


def _stored(node: Any, W: np.ndarray) -> np.ndarray:
    """A weight of our [out, in] orientation as the node reads it: MatMul x @ W takes [in, out],
    Gemm takes [out, in] when transB = 1."""
    if node.op_type == "Gemm":
        tb = next((helper.get_attribute_value(a) for a in node.attribute if a.name == "transB"), 0)
        return np.ascontiguousarray(W if tb else W.T)
    return np.ascontiguousarray(W.T)


def _set_bias(graph: Any, node_i: int, add_i: Optional[int], name: str, value: np.ndarray,
              new_nodes: list[tuple[int, Any]]) -> None:
    """Point the block's bias at a new initializer (Add node or Gemm's C), or add an Add node when
    the new bias is nonzero and the old block had none."""
    node = graph.node[node_i]
    graph.initializer.append(numpy_helper.from_array(value, name))
    if add_i is not None:
        add = graph.node[add_i]
        other = [v for v in add.input if v != node.output[0]][0]
        add.input[list(add.input).index(other)] = name
        return
    if node.op_type == "Gemm":
        if len(node.input) > 2 and node.input[2]:
            node.input[2] = name
            return
        if np.any(value != 0):
            while len(node.input) < 3:
                node.input.append("")
            node.input[2] = name
        return
    if np.any(value != 0):
        out = node.output[0]
        mid = name + "_pre"
        node.output[0] = mid
        new_nodes.append((node_i, helper.make_node("Add", [mid, name], [out], name=name + "_add")))


def _between(graph: Any, cons: dict[str, list[int]], start: str, stop: int) -> set[str]:
    """The values on the paths from ``start`` up to (not including the output of) node ``stop``."""
    seen, todo = {start}, [start]
    while todo:
        v = todo.pop()
        for j in cons.get(v, []):
            if j == stop:
                continue
            for o in graph.node[j].output:
                if o and o not in seen:
                    seen.add(o)
                    todo.append(o)
    return seen


def _block_nodes(graph: Any, site: BlockSite) -> set[int]:
    """The nodes of the block: the up node (and its bias Add), every node on a path from the up
    node's output to the down node's input, the down node (and its bias Add)."""
    cons = _consumers(graph)
    prod = {o: i for i, n in enumerate(graph.node) for o in n.output if o}
    fwd: set[int] = set()
    todo = [site.up]
    while todo:  # forward from the up node, never past the down node
        i = todo.pop()
        if i in fwd:
            continue
        fwd.add(i)
        if i != site.down:
            todo.extend(j for o in graph.node[i].output if o for j in cons.get(o, []))
    back: set[int] = set()
    todo = [prod[v] for v in graph.node[site.down].input[:1] if v in prod]
    while todo:  # back from the down node's input, never past the up node
        i = todo.pop()
        if i in back:
            continue
        back.add(i)
        if i != site.up:
            todo.extend(prod[v] for v in graph.node[i].input if v in prod)
    nodes = (fwd & back) | {site.up, site.down}
    return nodes | {i for i in (site.up_bias, site.down_bias) if i is not None}


def layout_problem(graph: Any, site: BlockSite) -> Optional[str]:
    """Why the block cannot be rewritten in place, or None.  The rewrite widens every value inside
    the block (m -> m' units) and removes the skip, so each value computed inside the block must be
    read only by the block's own nodes and be no graph output, and the block's output must be read
    by the skip's Add alone and be no graph output."""
    nodes = _block_nodes(graph, site)
    cons = _consumers(graph)
    outputs = {v.name for v in graph.output}

    def name(j: int) -> str:
        n = graph.node[j]
        return f"{n.name or n.output[0]!r} ({n.op_type})"

    for i in sorted(nodes):
        for v in graph.node[i].output:
            if not v or v == site.end:
                continue
            if v in outputs:
                return (f"the value {v!r} inside the block is also a graph output; compiling changes its width "
                        "(m units become m'), so that output would change; not compiled")
            other = [j for j in cons.get(v, []) if j not in nodes]
            if other:
                return (f"the value {v!r} inside the block is also read by node {name(other[0])} outside the "
                        "block; compiling widens it (m units become m'), so that reader would change; not compiled")
    if site.end in outputs:
        return (f"the block's output {site.end!r} (B(x) before the skip's Add) is also a graph output; the "
                "compiled block computes x + B(x) in one value and B(x) alone no longer exists; not compiled")
    other = [j for j in cons.get(site.end, []) if j != site.skip]
    if other:
        return (f"the block's output {site.end!r} (B(x) before the skip's Add) is also read by node "
                f"{name(other[0])}; the compiled block computes x + B(x) in one value and B(x) alone no "
                "longer exists; not compiled")
    return None


def rewrite(model: Any, blocks: list[dict[str, Any]], copy: bool = True) -> Any:
    """``model`` with each block replaced: entries have ``tensors``, ``biases`` (the scan's names)
    and the new arrays ``W_up``, ``b_up``, ``W_down``, ``b_down`` in our orientation and the model's
    float type.  Returns the new ModelProto, checked with onnx.checker; ``copy=False`` changes the
    given model itself (no second copy of the weights in memory)."""
    if copy:
        out = onnx.ModelProto()
        out.CopyFrom(model)
    else:
        out = model
    g = out.graph
    new_nodes: list[tuple[int, Any]] = []
    drop: set[int] = set()
    widened: set[str] = set()
    for k, b in enumerate(blocks):
        site = find_site(g, b["tensors"], b["biases"])
        if site.skip is None:
            raise InputError(f"block {b.get('block', k)}: no Add node adds the block's input to its output; "
                             "not compiled")
        why = layout_problem(g, site)
        if why:
            raise InputError(f"block {b.get('block', k)}: {why}")
        cons = _consumers(g)
        tag = f"absorb_compiled.{k}"
        widened |= _between(g, cons, g.node[site.up].output[0], site.down)
        for role, node_i in (("W_up", site.up), ("W_down", site.down)):
            node = g.node[node_i]
            g.initializer.append(numpy_helper.from_array(_stored(node, b[role]), f"{tag}.{role}"))
            node.input[1] = f"{tag}.{role}"
        _set_bias(g, site.up, site.up_bias, f"{tag}.b_up", b["b_up"], new_nodes)
        _set_bias(g, site.down, site.down_bias, f"{tag}.b_down", b["b_down"], new_nodes)
        # the skip goes: whatever computed the block's output now writes the Add's output value
        skip_out = g.node[site.skip].output[0]
        producer = site.down_bias if site.down_bias is not None else site.down
        pn = g.node[producer]
        renamed = [nn for _, nn in new_nodes if list(nn.output) == [site.end]]
        (renamed[0] if renamed else pn).output[0] = skip_out
        drop.add(site.skip)
    keep = [n for i, n in enumerate(g.node) if i not in drop]
    # an added bias Add goes right after its linear node (the graph stays topologically sorted)
    extra: dict[int, list[Any]] = {}
    for i, nn in new_nodes:
        extra.setdefault(i, []).append(nn)
    ordered = []
    for i, n in enumerate(g.node):
        if i in drop:
            continue
        ordered.append(n)
        ordered.extend(extra.get(i, []))
    del keep
    del g.node[:]
    g.node.extend(ordered)
    _prune(g)
    kept_vi = [v for v in g.value_info if v.name not in widened]
    del g.value_info[:]
    g.value_info.extend(kept_vi)
    try:
        onnx.checker.check_model(out)
    except onnx.checker.ValidationError as e:
        raise InputError(f"the rewritten graph fails onnx.checker: {' '.join(str(e).split())[:200]}") from None
    return out


def _prune(g: Any) -> None:
    """Drop Transpose nodes whose output nothing reads and initializers that nothing reads."""
    outputs = {v.name for v in g.output}
    while True:
        used = {v for n in g.node for v in n.input if v} | outputs
        dead = [n for n in g.node if n.op_type == "Transpose" and all(o not in used for o in n.output)]
        if not dead:
            break
        keep = [n for n in g.node if n not in dead]
        del g.node[:]
        g.node.extend(keep)
    used = {v for n in g.node for v in n.input if v} | outputs
    inits = [t for t in g.initializer if t.name in used]
    gone = {t.name for t in g.initializer} - {t.name for t in inits}
    del g.initializer[:]
    g.initializer.extend(inits)
    # old exports also list initializers among the graph inputs: a dropped one goes there too
    ins = [v for v in g.input if v.name not in gone]
    del g.input[:]
    g.input.extend(ins)


def save(model: Any, path: Path) -> int:
    """Write the model as one file (no external data; the models compiled here fit in 2 GB) and
    return its size in bytes."""
    if model.ByteSize() >= 2 ** 31:
        raise InputError("the compiled model exceeds protobuf's 2 GB limit; external data is not written here")
    ext = [t.name for t in model.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
    if ext:  # the caller reads external data in first (ONNXModel.inline_external_data)
        raise InputError(f"initializer {ext[0]!r} still refers to an external data file; not written")
    onnx.save_model(model, str(path))
    return path.stat().st_size
