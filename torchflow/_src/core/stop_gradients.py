"""``tf.gradients(..., stop_gradients=)``: gradients with some tensors held constant.

TF treats each tensor of ``stop_gradients`` as a constant with respect to all ``xs``:
nothing flows back through it, as if it had been wrapped in ``tf.stop_gradient`` when it
was made, while the gradient *at* it (when it is one of ``xs``) is still computed (the
partial derivative). The autograd graph here is already built when ``tf.gradients`` is
called, so the cut is made at backward time: a hook on each stop tensor keeps the
gradient that reaches it and sends zeros on. Which ``xs`` are connected to ``ys`` in
the cut graph (None for the others, as TF answers) is found by walking the graph's
nodes without passing the stop tensors.

The whole computation is one host node of a traced function (``graph_trace.host_op``):
hooks are not torch calls a recording could replay, so a replay runs it again on that
call's tensors.
"""

from __future__ import annotations

import torch

from torchflow._src.core import graph_trace
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.tensor import wrap


def _edge(t: torch.Tensor):
    return None if t.grad_fn is None else (id(t.grad_fn), t.output_nr)


def _connected(ys: list, stops: list) -> "tuple[set, set]":
    """(edges, leaves) reached from ``ys`` backwards without passing a stop tensor:
    ``(id(grad_fn), output_nr)`` of non-leaf tensors, ``id`` of leaf tensors."""
    stop_edges = {_edge(s) for s in stops if s.grad_fn is not None}
    edges: set = set()
    leaves: set = set()
    keep: dict = {}  # the nodes walked, alive while their ids are compared
    stack = []
    for y in ys:
        e = _edge(y)
        if e is None:
            leaves.add(id(y))
            continue
        edges.add(e)
        if e not in stop_edges:
            stack.append(y.grad_fn)
    while stack:
        node = stack.pop()
        if id(node) in keep:
            continue
        keep[id(node)] = node
        for fn, nr in node.next_functions:
            if fn is None:
                continue
            var = getattr(fn, "variable", None)  # AccumulateGrad: a leaf tensor
            if var is not None:
                leaves.add(id(var))
                continue
            e = (id(fn), nr)
            keep.setdefault(("fn", id(fn)), fn)
            edges.add(e)
            if e not in stop_edges:
                stack.append(fn)
    return edges, leaves


def _reached(t: torch.Tensor, edges: set, leaves: set) -> bool:
    e = _edge(t)
    return id(t) in leaves if e is None else e in edges


def _torch(x) -> torch.Tensor:
    leaf = getattr(x, "_leaf", None)  # a tf.Variable's storage
    return leaf if leaf is not None else to_tensor(x)._t


@graph_trace.host_op(dry=graph_trace.RUN)
def stopped_gradients(ys: list, xs: list, grad_ys, stops: list, zeros: bool) -> list:
    """The gradients of ``sum(ys)`` (weighted by ``grad_ys``, ones when None) at each of
    ``xs`` (Tensors or Variables) with ``stops`` held constant: a Tensor per ``x``,
    None (zeros when ``zeros``) where it is not connected in the cut graph."""
    ys_t = [_torch(y) for y in ys]
    xs_t = [_torch(x) for x in xs]
    stops_t = [_torch(s) for s in stops]
    if grad_ys is None:
        gys = [torch.ones_like(y) for y in ys_t]
    else:
        gys = [to_tensor(g)._t.to(y.dtype).expand(y.shape) for g, y in zip(grad_ys, ys_t)]
    seen: dict = {}
    handles = []

    def hook_for(key):
        def hook(g):
            seen[key] = g
            return torch.zeros_like(g)
        return hook

    stop_ids = set()
    for s in stops_t:
        if s.requires_grad and id(s) not in stop_ids:
            stop_ids.add(id(s))
            handles.append(s.register_hook(hook_for(id(s))))
    wanted: list = []
    got: list = []
    try:
        edges, leaves = _connected(ys_t, [s for s in stops_t if s.requires_grad])
        pairs = [(y, g) for y, g in zip(ys_t, gys) if y.requires_grad]
        wanted = [i for i, x in enumerate(xs_t)
                  if x.requires_grad and _reached(x, edges, leaves)]
        if pairs and wanted:
            got = list(torch.autograd.grad([y for y, _ in pairs], [xs_t[i] for i in wanted],
                                           [g for _, g in pairs], retain_graph=True,
                                           create_graph=True, allow_unused=True))
    finally:
        for h in handles:
            h.remove()
    res: list = [None] * len(xs_t)
    for i, g in zip(wanted, got):
        res[i] = seen.get(id(xs_t[i])) if id(xs_t[i]) in stop_ids else g
    return [wrap(g, x.dtype) if g is not None else
            (wrap(torch.zeros_like(t), x.dtype) if zeros else None)
            for x, t, g in zip(xs, xs_t, res)]
