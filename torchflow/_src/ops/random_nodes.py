"""Seeded random ops inside a traced ``tf.function``: one Philox stream per node.

In TF a seeded stateful random op (``tf.random.uniform(shape, seed=1)``) of a
function is a kernel of its graph, with its own Philox counter: the first call of the
function draws the stream's first numbers, each later call the next ones, whatever
other functions or eager calls with the same seeds drew (eager calls share one
kernel per op and seeds). Here such an op is a host node of the recording over a
``NodeStream`` that the traces of one concrete function share (``Recorder.node_state``),
so a replay advances it as the kernel does, and its shape may be a run-time size
(``tf.shape(x)``). A trace without effects (``get_concrete_function``) draws without
advancing it.
"""

from __future__ import annotations

from torchflow._src.core import graph_trace
from torchflow._src.ops import philox


class NodeStream:
    """The Philox position of one seeded random op of a traced function."""

    __slots__ = ("seed", "seed2", "skip")

    def __init__(self, seed: int, seed2: int):
        self.seed, self.seed2, self.skip = seed, seed2, 0


def _numel(dims) -> int:
    n = 1
    for d in dims:
        n *= int(d)
    return n


def _key_counter(node: NodeStream, dims, advance: bool):
    kc = philox.stateful_key_counter(node.seed, node.seed2, node.skip)
    if advance:
        node.skip += 256 * _numel(dims)  # as TF's kernels reserve per call
    return kc


def _dry_draw(node, fn, dims, *params):
    with graph_trace.paused():  # (a dry host node's stand-in runs unpaused)
        return fn(_key_counter(node, dims, False), [int(d) for d in dims], *params)


@graph_trace.host_op(dry=_dry_draw)
def _draw(node, fn, dims, *params):
    return fn(_key_counter(node, dims, True), [int(d) for d in dims], *params)


def traced_draw(key: tuple, seed: int, seed2: int, dims, fn, *params):
    """``fn(key_counter, dims, *params)`` (a Tensor) for a seeded op while a function
    traces: a host node over this trace's stream of ``key`` (an op name, dtype and
    seeds)."""
    r = graph_trace.active()
    node = r.node_state(key, lambda: NodeStream(seed, seed2)) if r is not None else \
        NodeStream(seed, seed2)
    return _draw(node, fn, dims, *params)
