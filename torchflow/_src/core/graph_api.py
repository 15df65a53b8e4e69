"""``tf.Graph``: a graph of TF operations, and the default graph.

In TF 2 a ``tf.Graph`` is what ``tf.function`` traces into (a ``FuncGraph`` is one)
and what ``tf.import_graph_def`` imports a ``GraphDef`` into, to be inspected
(``get_operations``, ``get_tensor_by_name``) or written back (``as_graph_def``).
Here it holds ``op_graph.Operation`` s; their outputs are ``GraphTensor`` s, the
symbolic tensors of a graph (a name, an op, a dtype and a static shape; no value).

Ops other than ``import_graph_def`` run eagerly inside ``Graph.as_default()``: this
module builds no TF 1 style graph of them (see docs/function.md).
"""

from __future__ import annotations

import contextlib
import threading

from torchflow._src.core.proto import tf_graph_pb2, tf_versions_pb2
from torchflow._src.core.tensor_shape import TensorShape
from torchflow._src.util.api import public

__all__ = ["Graph", "GraphTensor", "get_default_graph", "graph_def_of", "user_default_graph"]

_STACK = threading.local()


class GraphTensor:
    """An output of an operation in a ``tf.Graph`` (TF's symbolic ``tf.Tensor``).

    Attributes:
      op: The ``tf.Operation`` that produces it.
      value_index: Its index among the op's outputs.
      name: ``"<op name>:<value_index>"``.
      dtype: Its ``tf.DType`` (None where the graph does not say).
      shape: Its static ``TensorShape`` (unknown where the graph does not say).
      graph: The op's graph.
    """

    def __init__(self, op, value_index: int, dtype, shape: TensorShape):
        self.op = op
        self.value_index = value_index
        self.dtype = dtype
        self.shape = shape

    @property
    def name(self) -> str:
        return f"{self.op.name}:{self.value_index}"

    @property
    def graph(self):
        return self.op.graph

    def get_shape(self) -> TensorShape:
        return self.shape

    def consumers(self) -> list:
        """The operations that read this tensor."""
        g = self.op.graph
        return [op for op in g.get_operations() if self.name in op._inputs or (
            self.value_index == 0 and self.op.name in op._inputs)]

    def __eq__(self, other):
        return isinstance(other, GraphTensor) and other.op is self.op and \
            other.value_index == self.value_index

    def __hash__(self):
        return hash((id(self.op), self.value_index))

    def _describe(self) -> str:
        shape = "<unknown>" if self.shape.rank is None else str(self.shape)
        dtype = self.dtype.name if self.dtype is not None else "unknown"
        return f"shape={shape} dtype={dtype}"

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' {self._describe()}>"

    def __str__(self) -> str:
        return f'Tensor("{self.name}", {self._describe().replace(" dtype", ", dtype")})'


@public("torchflow")
class Graph:
    """A TensorFlow computation, as a graph of operations.

    ``tf.Graph()`` makes an empty graph; ``with g.as_default():`` makes it the
    graph ``tf.import_graph_def`` imports into. ``ConcreteFunction.graph`` (a
    ``FuncGraph``) is a ``tf.Graph`` too.

    Attributes:
      building_function: Whether the graph is a function's (False here).
      finalized: Whether ``finalize`` was called (the graph is then read-only).
      version: Grows by one with every operation added.
    """

    building_function = False

    def __init__(self):
        self._init_graph()

    def _init_graph(self) -> None:
        self._ops: dict = {}
        self._order: list = []
        self._name_counts: dict = {}
        self._finalized = False

    # --- building ---------------------------------------------------------------
    def _check_not_finalized(self) -> None:
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    def _add_op(self, op) -> None:
        self._check_not_finalized()
        self._ops[op.name] = op
        self._order.append(op)
        self._name_counts.setdefault(op.name.lower(), 1)

    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """``name``, or ``name_1``, ``name_2``... where it was used before (TF's rule
        for the scope names ``import_graph_def`` makes)."""
        key = name.lower()
        i = self._name_counts.get(key, 0)
        if mark_as_used:
            self._name_counts[key] = i + 1
        if i > 0:
            base = key
            while key in self._name_counts:
                key = f"{base}_{i}"
                i += 1
            if mark_as_used:
                self._name_counts[key] = 1
            name = f"{name}_{i - 1}"
        return name

    def finalize(self) -> None:
        """Makes the graph read-only: adding operations raises ``RuntimeError``."""
        self._finalized = True

    @property
    def finalized(self) -> bool:
        return self._finalized

    @property
    def version(self) -> int:
        return len(self._order)

    @contextlib.contextmanager
    def as_default(self):
        """Makes this graph the default graph (what ``tf.import_graph_def`` imports
        into) inside the ``with`` block, on this thread; yields the graph."""
        stack = _stack()
        stack.append(self)
        try:
            yield self
        finally:
            stack.pop()

    # --- reading ----------------------------------------------------------------
    def get_operations(self) -> list:
        """The graph's operations in the order they were added."""
        return list(self._order)

    def get_operation_by_name(self, name: str):
        """The operation called ``name``.

        Raises:
          TypeError: If ``name`` is not a string.
          ValueError: If ``name`` names a tensor (``"op:0"``).
          KeyError: If there is no such operation.
        """
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not "
                            f"{type(name).__name__}.")
        if ":" in name:
            raise ValueError(f"Name '{name}' appears to refer to a Tensor, not a Operation.")
        op = self._ops.get(name)
        if op is None:
            raise KeyError(f"The name '{name}' refers to an Operation not in the graph.")
        return op

    def get_tensor_by_name(self, name: str) -> GraphTensor:
        """The tensor ``"<op name>:<output index>"``.

        Raises:
          TypeError: If ``name`` is not a string.
          ValueError: If ``name`` is not of that form.
          KeyError: If the op does not exist or has no such output.
        """
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not "
                            f"{type(name).__name__}.")
        op_name, sep, index = name.rpartition(":")
        if not sep or not index.isdigit():
            what = "refers to an Operation" if name in self._ops else \
                "looks like an (invalid) Operation name"
            raise ValueError(f"The name '{name}' {what}, not a Tensor. Tensor names must be "
                             f"of the form \"<op_name>:<output_index>\".")
        op = self._ops.get(op_name)
        if op is None:
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist. The "
                           f"operation, '{op_name}', does not exist in the graph.")
        k = int(index)
        if k >= op._num_outputs:
            raise KeyError(f"The name '{name}' refers to a Tensor which does not exist. The "
                           f"operation, '{op_name}', exists but only has {op._num_outputs} "
                           f"outputs.")
        return op.outputs[k]

    def as_graph_element(self, obj):
        """The ``Operation`` or ``GraphTensor`` that ``obj`` (a name, or one of them) is.

        Raises:
          TypeError / ValueError / KeyError: As ``get_tensor_by_name`` and
            ``get_operation_by_name``.
        """
        if isinstance(obj, str):
            return self.get_tensor_by_name(obj) if ":" in obj else \
                self.get_operation_by_name(obj)
        if getattr(obj, "graph", None) is self:
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a Tensor or Operation.")

    def as_graph_def(self, add_shapes: bool = False):
        """The graph as a ``tensorflow.GraphDef`` proto.

        Args:
          add_shapes: Accepted for TF's signature (shapes are not added).
        """
        del add_shapes
        return graph_def_of(self._order)

    def __repr__(self) -> str:
        return f"<tf.Graph object at {id(self):#x}>"


def graph_def_of(ops: list):
    """A ``tensorflow.GraphDef`` of ``ops``' nodes (their ``node_def`` s), in order."""
    gd = tf_graph_pb2.GraphDef()
    for op in ops:
        gd.node.append(op.node_def)
    gd.versions.CopyFrom(tf_versions_pb2.VersionDef(producer=561, min_consumer=12))
    return gd


def _stack() -> list:
    s = getattr(_STACK, "graphs", None)
    if s is None:
        s = _STACK.graphs = []
    return s


_GLOBAL = Graph()


def user_default_graph():
    """The graph a ``with g.as_default()`` block made the default on this thread,
    or None."""
    s = _stack()
    return s[-1] if s else None


def get_default_graph() -> Graph:
    """The default graph: the innermost ``as_default`` graph, else a global one."""
    return user_default_graph() or _GLOBAL
