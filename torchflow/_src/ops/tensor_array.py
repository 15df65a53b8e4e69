"""``tf.TensorArray``: a list of same-dtype tensors with TF's semantics.

Executing eagerly, writes change the array and return it (as TF's eager arrays);
in a ``tf.function`` each write returns a new array and leaves the one written as
it was (as TF's graph arrays, whose writes make new TensorList values). Elements are
kept as Tensors, so gradients flow from ``stack()`` back to written values.

In a traced ``tf.function`` an array is a host value of the recording
(``graph_trace.host_op``): its construction and each method call are host nodes,
which the replay runs again on that call's arrays (the Python reads of indices and
sizes included), so a function that fills an array in a tensor loop is replayed, not
run as Python on every call.
"""

from __future__ import annotations

import functools
import threading

import numpy as np
import torch

from torchflow._src.core import dtypes, graph_trace
from torchflow._src.core.composite_tensor import TypeSpec
from torchflow._src.core.convert import to_tensor
from torchflow._src.core.errors import InvalidArgumentError, OutOfRangeError
from torchflow._src.core.tensor import Tensor, executing_eagerly, wrap
from torchflow._src.core.tensor_shape import TensorShape, as_shape
from torchflow._src.core.variables import Variable
from torchflow._src.util.api import public


def _int(x) -> int:
    if type(x) is Tensor and type(x._t) is torch.Tensor:
        return int(x._t)
    return int(x.numpy()) if isinstance(x, (Tensor, Variable)) else int(x)


def _int_list(x) -> list:
    if isinstance(x, (Tensor, Variable)):
        return [int(i) for i in np.asarray(x.numpy()).reshape(-1)]
    return [int(i) for i in np.asarray(x).reshape(-1)]


# .on: a method runs as a graph array's (a new array per write); .stand_in: in a trace
# on stand-in values, where an index need not be in range.
_GRAPH = threading.local()


class _flag:
    """Within it, ``_GRAPH.<name>`` is True (restored after)."""

    __slots__ = ("_name", "_prev")

    def __init__(self, name: str):
        self._name = name

    def __enter__(self):
        self._prev = getattr(_GRAPH, self._name, False)
        setattr(_GRAPH, self._name, True)

    def __exit__(self, *exc):
        setattr(_GRAPH, self._name, self._prev)


def _in_graph() -> bool:
    """Whether arrays act as TF's graph arrays now (in a ``tf.function``, or its replay)."""
    return getattr(_GRAPH, "on", False) or not executing_eagerly()


def _graph_node(method=None, *, shaped=False):
    """``method`` as it runs executing eagerly, and in a ``tf.function`` as one pure
    host node of the recording, with graph arrays' semantics also when the replay
    runs it. ``shaped``: the replay knows the element shape the trace's array had
    (TF's static shape: dimensions of the signature's unknown sizes unknown), so an
    array no call of the replay writes still stacks to ``[0, ...]`` as in TF."""
    if method is None:
        return functools.partial(_graph_node, shaped=shaped)

    def in_graph(self, *args, **kwargs):
        shape = kwargs.pop("_trace_shape", None)
        if shape is not None and self._element_shape.rank is None:
            self = self._host_alias()
            self._element_shape = shape
        with _flag("on"):
            return method(self, *args, **kwargs)

    in_graph.__name__ = in_graph.__qualname__ = f"TensorArray.{method.__name__}"
    node = graph_trace.host_op(in_graph, dry=graph_trace.RUN, pure=True)

    @functools.wraps(method)
    def call(self, *args, **kwargs):
        if executing_eagerly():
            return method(self, *args, **kwargs)
        r = graph_trace.active()
        if r is not None:
            if shaped and self._element_shape.rank is not None:
                unknown = r.unknown_sizes
                kwargs["_trace_shape"] = TensorShape(
                    [None if d in unknown else d for d in self._element_shape.as_list()])
            if r.dry:
                # A branch or loop body traced on stand-in values (one the call does
                # not take): indices need not be in range, as in a TF graph.
                with _flag("stand_in"):
                    return node(self, *args, **kwargs)
        return node(self, *args, **kwargs)

    return call


def _init(ta, dtype, size, dynamic_size, infer_shape, element_shape) -> None:
    ta._dtype = dtypes.as_dtype(dtype)
    if size is None and not dynamic_size:
        raise ValueError("Size must be provided if handle is not provided")
    ta._items = [None] * (_int(size) if size is not None else 0)
    ta._dynamic = bool(dynamic_size)
    ta._infer_shape = bool(infer_shape)
    ta._element_shape = as_shape(element_shape) if element_shape is not None \
        else TensorShape(None)
    ta._known = tuple(ta._element_shape.as_list()) \
        if ta._element_shape.is_fully_defined() else None  # (the fast shape check's)
    # A copy a graph lowering traces a loop body with: its size is a stand-in's, so
    # an index past it is no error (graph_lowering_loops).
    ta._stand_in = False


def _new_array(dtype, size, dynamic_size, infer_shape, element_shape) -> "TensorArray":
    """A new array (what the replay of a traced function runs for a construction)."""
    ta = TensorArray.__new__(TensorArray)
    _init(ta, dtype, size, dynamic_size, infer_shape, element_shape)
    return ta


@public("torchflow")
class TensorArray:
    """A dynamically sized array of Tensors of one dtype (``tf.TensorArray``).

    Args:
      dtype: The element dtype.
      size: The initial number of elements.
      dynamic_size: If True, writes past the end grow the array.
      clear_after_read: Accepted (eager arrays keep their values).
      tensor_array_name: Unused.
      handle: Unused.
      flow: Unused.
      infer_shape: If True (default), all elements must have the same shape.
      element_shape: The shape of every element, if known.
      colocate_with_first_write_call: Unused.
      name: Unused.

    >>> import torchflow as tf
    >>> ta = tf.TensorArray(tf.float32, size=2)
    >>> ta = ta.write(0, 1.0).write(1, 2.0)
    >>> ta.stack().numpy()
    array([1., 2.], dtype=float32)
    """

    _host_value = True  # (graph_trace: a value the replay of a traced function makes)
    _dtype: dtypes.DType
    _items: list
    _dynamic: bool
    _infer_shape: bool
    _element_shape: TensorShape
    _known: "tuple | None"
    _stand_in: bool

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        args = (dtype, size, dynamic_size, infer_shape, element_shape)
        self._items: list = []
        graph_trace.new_host_value(self, _new_array, args)
        with graph_trace.paused():
            _init(self, *args)

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic

    @property
    def element_shape(self) -> TensorShape:
        return self._element_shape

    @property
    def handle(self):
        return self

    @property
    def flow(self):
        return None

    @_graph_node
    def size(self, name=None) -> Tensor:
        """The number of elements (for a dynamic array, one past the highest written index).

        Args:
          name: A name for the operation (optional).

        Returns:
          An int32 scalar Tensor.
        """
        return wrap(torch.tensor(len(self._items), dtype=torch.int32), dtypes.int32)

    def identity(self) -> "TensorArray":
        """The array itself (TF returns a copy carrying control dependencies).

        Returns:
          This ``TensorArray``.
        """
        return self

    def close(self, name=None) -> None:
        """Executing eagerly, drops the elements (the array is empty afterwards); in a
        ``tf.function`` does nothing, as TF's graph arrays.

        Args:
          name: A name for the operation (optional).
        """
        if executing_eagerly():
            self._items = []

    def _convert(self, value) -> Tensor:
        if isinstance(value, Variable):
            value = value.value()
        t = value if isinstance(value, Tensor) else to_tensor(value, self._dtype)
        if t._dtype is not self._dtype:
            raise InvalidArgumentError(
                None, None, f"TensorArray dtype is {self._dtype.name} but Op is trying to "
                f"write dtype {t._dtype.name} ")
        return t

    def _check_shape(self, t: Tensor) -> None:
        known = self._known
        if known is not None and tuple(t._t.shape) == known:
            return
        self._merge_shape(t.shape)

    def _merge_shape(self, shape: TensorShape) -> None:
        if self._infer_shape or self._element_shape.rank is not None:
            if not self._element_shape.is_compatible_with(shape):
                raise ValueError(f"Incompatible shape for value ({tuple(shape.as_list())}), "
                                 f"expected ({tuple(self._element_shape.as_list())})")
            if self._infer_shape:
                self._element_shape = self._element_shape.merge_with(shape)
                if self._element_shape.is_fully_defined():
                    self._known = tuple(self._element_shape.as_list())

    @_graph_node
    def write(self, index, value, name=None) -> "TensorArray":
        """Writes ``value`` at ``index``; returns the array.

        Use the returned array afterwards (``ta = ta.write(i, x)``), as in TF.

        Args:
          index: An int (or int32 scalar Tensor), the position.
          value: A Tensor (or a value convertible to one) of the array's dtype.
          name: A name for the operation (optional).

        Returns:
          The array written: this one executing eagerly, a new one in a ``tf.function``.

        Raises:
          OutOfRangeError: If ``index`` is past the end of a fixed-size array.
          InvalidArgumentError: If ``index`` is negative or the dtype differs.
          ValueError: If the shape differs from the element shape.
        """
        i, t = _int(index), self._convert(value)
        if i >= 0:
            self._check_shape(t)  # (a graph array learns its element shape even so)
        out = self._target()
        out._set(i, t)
        return out

    def _target(self) -> "TensorArray":
        """The array a write changes: this one when executing eagerly (TF's eager
        arrays change in place), else a copy (in a ``tf.function`` a write makes a new
        value and the array written stays as it was, as TF's graph arrays do)."""
        return self._host_alias() if _in_graph() else self

    def _standing_in(self) -> bool:
        return self._stand_in or getattr(_GRAPH, "stand_in", False)

    def _host_alias(self) -> "TensorArray":
        """A new array of the same elements (graph_trace: a loop variable's alias)."""
        c = TensorArray.__new__(TensorArray)
        c.__dict__.update(self.__dict__)
        c._items = list(self._items)
        return c

    def _set(self, i: int, t: Tensor) -> None:
        if _in_graph() and not self._standing_in() and (
                i < 0 or i >= len(self._items) and not self._dynamic):
            raise InvalidArgumentError(None, None, f"Trying to modify element {i} in a list "
                                       f"with {len(self._items)} elements.")
        if i < 0:
            raise InvalidArgumentError(None, None, f"Tried to write to index {i} but array "
                                       f"size is: {len(self._items)}")
        if i >= len(self._items):
            if not self._dynamic and not self._standing_in():
                raise OutOfRangeError(None, None, f"Tried to write to index {i} but array is "
                                      f"not resizeable and size is: {len(self._items)} ")
            self._items.extend([None] * (i + 1 - len(self._items)))
        self._check_shape(t)
        self._items[i] = t

    def _zeros(self) -> Tensor:
        shape = self._element_shape
        if not shape.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a "
                             f"Tensor.")
        if self._dtype is dtypes.string:
            return wrap(np.full(shape.as_list(), b"", dtype=object), self._dtype)  # pyright: ignore[reportCallIssue, reportArgumentType] - fully defined, checked above
        return wrap(torch.zeros(shape.as_list(), dtype=self._dtype._torch), self._dtype)  # pyright: ignore[reportCallIssue, reportArgumentType] - fully defined, checked above

    @_graph_node
    def read(self, index, name=None) -> Tensor:
        """The element at ``index`` (zeros of the element shape if never written).

        Args:
          index: An int (or int32 scalar Tensor), the position.
          name: A name for the operation (optional).

        Returns:
          A Tensor of the array's dtype.

        Raises:
          OutOfRangeError: If ``index`` is out of range.
        """
        i = _int(index)
        if self._standing_in() and not 0 <= i < len(self._items):
            written = [t for t in self._items if t is not None]
            return self._zeros() if not written else wrap(torch.zeros_like(written[0]._t),
                                                          self._dtype)
        if (i < 0 or i >= len(self._items)) and _in_graph():
            raise InvalidArgumentError(None, None, f"Trying to access element {i} in a list "
                                       f"with {len(self._items)} elements.")
        if i < 0 or i >= len(self._items):
            raise OutOfRangeError(None, None, f"Tried to read from index {i} but array size "
                                  f"is: {len(self._items)} ")
        t = self._items[i]
        return t if t is not None else self._zeros()

    def _all(self) -> list:
        return [t if t is not None else self._zeros() for t in self._items]

    @_graph_node(shaped=True)
    def stack(self, name=None) -> Tensor:
        """All elements stacked on a new dimension 0.

        Args:
          name: A name for the operation (optional).

        Returns:
          A Tensor of shape ``[size] + element_shape`` (``[0, ...]`` for an empty array).
        """
        items = self._all()
        if not items:
            dims = self._element_shape.as_list() if self._element_shape.rank is not None else []
            shape = [0] + [d or 0 for d in dims]
            if self._dtype is dtypes.string:
                return wrap(np.empty(shape, dtype=object), self._dtype)
            return wrap(torch.zeros(shape, dtype=self._dtype._torch), self._dtype)
        if self._dtype is dtypes.string:
            return wrap(np.stack([t._t for t in items]), self._dtype)
        try:
            return wrap(torch.stack([t._t for t in items]), self._dtype)
        except RuntimeError as e:
            raise InvalidArgumentError(None, None, f"TensorArray has inconsistent shapes: "
                                       f"{e} [Op:TensorListStack]") from None

    @_graph_node(shaped=True)
    def gather(self, indices, name=None) -> Tensor:
        """The elements at ``indices`` stacked on a new dimension 0.

        Args:
          indices: A 1-D list or int32 Tensor of positions.
          name: A name for the operation (optional).

        Returns:
          A Tensor of shape ``[len(indices)] + element_shape``.
        """
        idx = _int_list(indices)
        items = [self.read(i) for i in idx]
        if not items:
            return wrap(torch.zeros([0], dtype=self._dtype._torch), self._dtype)
        if self._dtype is dtypes.string:
            return wrap(np.stack([t._t for t in items]), self._dtype)
        return wrap(torch.stack([t._t for t in items]), self._dtype)

    @_graph_node
    def concat(self, name=None) -> Tensor:
        """All elements concatenated along dimension 0 (they may differ in length there).

        Args:
          name: A name for the operation (optional).

        Returns:
          A Tensor.
        """
        items = self._all()
        if not items:
            return wrap(torch.zeros([0], dtype=self._dtype._torch), self._dtype)
        if self._dtype is dtypes.string:
            return wrap(np.concatenate([t._t for t in items]), self._dtype)
        try:
            return wrap(torch.cat([t._t for t in items]), self._dtype)
        except RuntimeError as e:
            raise InvalidArgumentError(None, None, f"TensorArray concat: {e}") from None

    @_graph_node
    def unstack(self, value, name=None) -> "TensorArray":
        """Writes the slices ``value[i]`` at index ``i``; returns the array.

        Args:
          value: A Tensor whose dimension 0 has one entry per element.
          name: A name for the operation (optional).

        Returns:
          The array written: this one executing eagerly, a new one in a ``tf.function``.

        Raises:
          InvalidArgumentError: ``value`` has more slices than a fixed-size array holds.
        """
        t = self._convert(value)
        n = t._t.shape[0] if t._t.ndim else 0
        if t._t.ndim:
            self._merge_shape(TensorShape(list(t._t.shape[1:])))  # (also with no slices)
        if not self._dynamic and n > len(self._items):
            raise InvalidArgumentError(None, None, f"Tried to write to index {n - 1} but "
                                       f"array is not resizeable and size is: "
                                       f"{len(self._items)}")
        out = self._target()
        for i in range(n):
            out._set(i, wrap(t._t[i], t._dtype))
        return out

    @_graph_node
    def scatter(self, indices, value, name=None) -> "TensorArray":
        """Writes ``value[k]`` at ``indices[k]``; returns the array.

        Args:
          indices: A 1-D list or int32 Tensor of positions.
          value: A Tensor with one slice per index along dimension 0.
          name: A name for the operation (optional).

        Returns:
          The array written: this one executing eagerly, a new one in a ``tf.function``.

        Raises:
          InvalidArgumentError: ``value`` has not one slice per index.
        """
        t = self._convert(value)
        idx = _int_list(indices)
        rows = t._t.shape[0] if t._t.ndim else 0
        if t._t.ndim:
            self._merge_shape(TensorShape(list(t._t.shape[1:])))
        if rows != len(idx):
            raise InvalidArgumentError(None, None, f"Invalid number of rows in input tensor. "
                                       f"Expected: {len(idx)} Actual: {rows}")
        out = self._target()
        for k, i in enumerate(idx):
            out._set(i, wrap(t._t[k], t._dtype))
        return out

    @_graph_node
    def split(self, value, lengths, name=None) -> "TensorArray":
        """Splits ``value`` along dimension 0 into pieces of ``lengths``, one per element.

        Args:
          value: A Tensor.
          lengths: A 1-D list or int Tensor of the pieces' lengths, summing to
            ``value.shape[0]``.
          name: A name for the operation (optional).

        Returns:
          The array written: this one executing eagerly, a new one in a ``tf.function``.

        Raises:
          InvalidArgumentError: the lengths do not sum to ``value.shape[0]``.
        """
        t = self._convert(value)
        lens = _int_list(lengths)
        if sum(lens) != (t._t.shape[0] if t._t.ndim else 0):
            raise InvalidArgumentError(None, None, f"Expected sum of lengths to be equal to "
                                       f"values.shape[0], but sum of lengths is {sum(lens)} "
                                       f"and value's shape is: {list(t._t.shape)} ")
        start = 0
        out = self._target()
        saved = out._infer_shape
        out._infer_shape = False
        try:
            for i, n in enumerate(lens):
                out._set(i, wrap(t._t[start:start + n], t._dtype))
                start += n
        finally:
            out._infer_shape = saved
        return out

    def __repr__(self) -> str:
        return f"<tf.TensorArray dtype={self._dtype.name} size={len(self._items)}>"


@public("torchflow")
class TensorArraySpec(TypeSpec):
    """The type of a ``tf.TensorArray``: element shape, dtype, and how it grows.

    >>> import torchflow as tf
    >>> tf.TensorArraySpec([2], tf.int32)
    TensorArraySpec(TensorShape([2]), tf.int32, False, True)

    Args:
      element_shape: The shape of each element (``None``: unknown).
      dtype: The elements' dtype (default ``tf.float32``).
      dynamic_size: bool, whether writes past the end grow the array.
      infer_shape: bool, whether the element shape is inferred from writes.
    """

    __slots__ = ("_element_shape", "_dtype", "_dynamic_size", "_infer_shape")

    def __init__(self, element_shape=None, dtype=dtypes.float32, dynamic_size=False,
                 infer_shape=True):
        self._element_shape = as_shape(element_shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = bool(infer_shape)

    @property
    def value_type(self):
        """The Python type of the values this spec describes (``tf.TensorArray``)."""
        return TensorArray

    def _serialize(self) -> tuple:
        return (self._element_shape, self._dtype, self._dynamic_size, self._infer_shape)

    def is_compatible_with(self, spec_or_value) -> bool:
        """True if ``spec_or_value`` (a spec or a ``tf.TensorArray``) could have this type.

        Args:
          spec_or_value: A ``TensorArraySpec`` or a ``tf.TensorArray``.

        Returns:
          True when the dtypes and flags are equal and the element shapes compatible.
        """
        if isinstance(spec_or_value, TensorArray):
            spec_or_value = TensorArraySpec.from_value(spec_or_value)
        return super().is_compatible_with(spec_or_value)

    @staticmethod
    def from_value(value) -> "TensorArraySpec":
        """The ``TensorArraySpec`` of the ``tf.TensorArray`` ``value``.

        Args:
          value: A ``tf.TensorArray``.

        Returns:
          Its ``TensorArraySpec`` (the element shape known so far).

        Raises:
          TypeError: If ``value`` is not a ``TensorArray``.
        """
        if not isinstance(value, TensorArray):
            raise TypeError(f"Expected value to be a TensorArray, but got: `{type(value)}`")
        return TensorArraySpec(value.element_shape, value.dtype, value.dynamic_size,
                               value._infer_shape)
