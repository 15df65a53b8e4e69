"""``for x in dataset`` in a traced ``tf.function``: one recorded loop, as TF's AutoGraph
makes it one graph loop (the body's Python runs once, at tracing).

Each call starts a fresh iterator over the dataset (a host node), or takes the
iterator the loop is over (``for batch in iterator``: whichever iterator the call
passes, as TF's loop reads the iterator's resource), and the loop runs
while the next element exists: the loop variables are a "has a value" flag, the
element's tensors (stand-ins of the element spec's dtypes once the dataset is
exhausted, which the body never sees) and the loop's own state. Datasets whose
elements are not all dense numeric tensors, and dry traces, keep the Python loop.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

import torch

from torchflow._src.core import dtypes, function, graph_trace
from torchflow._src.core.tensor import wrap
from torchflow._src.core.tensor_spec import TensorSpec
from torchflow._src.ops import comparison_ops
from torchflow._src.util import nest


def is_dataset(x: Any) -> bool:
    """Whether ``x`` is a ``tf.data.Dataset`` (the data layer sits above this one)."""
    return hasattr(x, "element_spec") and hasattr(x, "_make_iter")


def is_iterator(x: Any) -> bool:
    """Whether ``x`` is a ``tf.data`` iterator (``iter(dataset)``)."""
    return hasattr(x, "element_spec") and hasattr(x, "__next__") and \
        getattr(x, "_type_spec", None) is not None


def is_source(x: Any) -> bool:
    """Whether ``for ... in x`` can be a recorded loop: a dataset or an iterator."""
    return is_dataset(x) or is_iterator(x)


def recordable(dataset) -> bool:
    """Whether a loop over ``dataset`` can be one recorded loop in the active trace."""
    r = graph_trace.active()
    if r is None or r.dry or graph_trace.made_in_trace(getattr(dataset, "_born", 1 << 62)):
        return False  # (a dataset the trace made may depend on its inputs: not recorded)
    leaves = nest.flatten(dataset.element_spec, expand_composites=False)
    return bool(leaves) and all(type(s) is TensorSpec and s.dtype != dtypes.string
                                for s in leaves)


@graph_trace.host_op
def _start(cell, dataset) -> None:
    cell.it = iter(dataset)


@graph_trace.host_op
def _take(cell, iterator) -> None:
    cell.it = iterator


def _end(cell, specs: list) -> tuple:
    """No next element: the flag False and stand-ins of the element's dtypes."""
    stand_ins = [function._placeholder(s, 0) for s in specs]
    return (wrap(torch.tensor(False), dtypes.bool), *stand_ins)


@graph_trace.host_op(dry=_end)
def _next(cell, specs: list) -> tuple:
    try:
        element = next(cell.it)
    except StopIteration:
        cell.it = None
        return _end(cell, specs)
    return (wrap(torch.tensor(True), dtypes.bool), *nest.flatten(element))


def loop(dataset, extra_test: Callable | None, body: Callable, state: list,
         tensor_loop: Callable) -> list:
    """The loop's final state; ``tensor_loop`` is autograph_ops' ``tf.while_loop``
    over (prefix loop variables, defined state)."""
    structure = dataset.element_spec
    specs = nest.flatten(structure)
    n = len(specs)
    cell = threading.local()
    if is_iterator(dataset):
        _take(cell, dataset)
    else:
        _start(cell, dataset)
    first = _next(cell, specs)

    def test(has, *rest):
        if extra_test is None:
            return has
        return comparison_ops.logical_and(has, extra_test(*rest[n:]))

    def step(has, *rest):
        element = nest.pack_sequence_as(structure, list(rest[:n]))
        new = body(element, *rest[n:])
        return (*_next(cell, specs), *new)

    return tensor_loop(test, step, state, prefix=tuple(first))
