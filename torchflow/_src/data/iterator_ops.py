"""``tf.data.Iterator`` (``iter(dataset)``) and ``tf.experimental.Optional``."""

from __future__ import annotations

import json
import weakref

from torchflow._src.core import dtypes, graph_trace, profiler_backend
from torchflow._src.core.composite_tensor import TypeSpec
from torchflow._src.core.errors import InvalidArgumentError, OutOfRangeError
from torchflow._src.data import _structure
from torchflow._src.data._runtime import IterContext, close_iter
from torchflow._src.ops import data_ops
from torchflow._src.util.api import public


def _shutdown(ctx, it) -> None:
    ctx.close()
    close_iter(it)


@public("torchflow.data")
class Iterator:
    """An iterator over a dataset's elements (what ``iter(dataset)`` returns).

    Python iteration ends with ``StopIteration``; ``get_next()`` raises
    ``tf.errors.OutOfRangeError`` at the end; ``get_next_as_optional()`` returns
    an empty ``tf.experimental.Optional`` there instead. Dropping an iterator
    mid-epoch stops the threads its pipeline started.

    >>> import torchflow as tf
    >>> it = iter(tf.data.Dataset.range(2))
    >>> int(it.get_next()), int(next(it))
    (0, 1)

    Args:
      dataset: The ``tf.data.Dataset`` to iterate; build an iterator with
        ``iter(dataset)`` rather than calling ``Iterator`` (in TF 2.4 it is an
        abstract interface).
    """

    def __init__(self, dataset, _replay=None):
        self._dataset = dataset
        self._consumed = 0
        self._born = graph_trace.serial()
        self._start(_replay)

    def _start(self, replay_seeds):
        self._ctx = IterContext(self._dataset.options(), replay_seeds)
        self._it = self._dataset._make_iter(self._ctx)
        self._finalizer = weakref.finalize(self, _shutdown, self._ctx, self._it)

    @property
    def element_spec(self):
        return self._dataset.element_spec

    @property
    def _type_spec(self):
        return IteratorSpec(self._dataset.element_spec)

    def __iter__(self):
        return self

    def _dry_next(self):
        # A trace without effects (get_concrete_function, .graph) may iterate an
        # iterator it made itself (``for x in dataset``), never a caller's.
        if not graph_trace.made_in_trace(getattr(self, "_born", -1)):
            graph_trace.cannot_dry_run()
        with graph_trace.paused():
            return Iterator.__next__.__wrapped_host__(self)

    @graph_trace.host_op(dry=_dry_next)
    def __next__(self):
        if profiler_backend.active():
            return self._profiled_next()
        v = next(self._it)
        self._consumed += 1
        return v

    def _profiled_next(self):
        # TF 2.4's events for one element: the GetNext kernel, the root iterator (its
        # ModelDataset, "Iterator::Model") and the outermost stage under it, named by
        # TF's dataset type ("Iterator::Model::Prefetch"), where XProf looks for them.
        stage = _stage_name(self._dataset)
        with profiler_backend.annotation(  # a name per element: not kept in host_range's set
                f"IteratorGetNext::DoCompute#iter_num={self._consumed}#"), \
                profiler_backend.host_range("Iterator::Model"), \
                profiler_backend.host_range("Iterator::Model::" + stage):
            v = next(self._it)
        self._consumed += 1
        return v

    next = __next__

    def get_next(self, name=None):
        """The next element; raises ``tf.errors.OutOfRangeError`` at the end."""
        try:
            return self.__next__()
        except StopIteration:
            raise OutOfRangeError(None, None, "End of sequence [Op:IteratorGetNext]") from None

    def get_next_as_optional(self):
        """The next element wrapped in an ``Optional`` (empty at the end)."""
        graph_trace.mark_eager("the body calls get_next_as_optional")
        try:
            return Optional.from_value(self.__next__())
        except StopIteration:
            return Optional.empty(self._dataset.element_spec)

    def _close(self) -> None:
        self._finalizer()

    # --- checkpointing -------------------------------------------------------
    def _save(self) -> dict:
        """The iterator's position: elements consumed and the shuffle seeds drawn."""
        return {"consumed": self._consumed, "seeds": list(self._ctx.seed_log)}

    def _restore(self, state: dict) -> None:
        """Moves to a saved position by replaying the pipeline with the same seeds.

        Restoring is exact for pipelines whose order depends only on their seeds
        (not for ``deterministic=False`` or generators with outside state).
        """
        self._finalizer()
        self._consumed = 0
        self._start(state.get("seeds"))
        for _ in range(int(state["consumed"])):
            try:
                self.__next__()
            except StopIteration:
                break


    # TF's Trackable protocol, for tf.train.Checkpoint(iterator=it).
    def _serialize_to_tensors(self) -> dict:
        """``{"ITERATOR_STATE": string Tensor}``: the position as JSON."""
        return {"ITERATOR_STATE": data_ops.scalar(json.dumps(self._save()).encode(),
                                                  dtypes.string)}

    def _restore_from_tensors(self, restored_tensors: dict) -> None:
        raw = data_ops.to_python(restored_tensors["ITERATOR_STATE"])
        self._restore(json.loads(raw.decode() if isinstance(raw, bytes) else raw))


OwnedIterator = Iterator

# TF's dataset type names where they are not our class name without "Dataset"
_TF_DATASET_TYPES = {"Batch": "BatchV2", "PaddedBatch": "PaddedBatchV2",
                     "ParallelMap": "ParallelMapV2"}


def _stage_name(dataset) -> str:
    """TF's type name of a pipeline's outermost stage (``BatchV2``, ``Prefetch`` ...)."""
    while type(dataset).__name__ == "OptionsDataset" and dataset._inputs():
        dataset = dataset._inputs()[0]
    name = type(dataset).__name__.lstrip("_")
    name = name[:-len("Dataset")] if name.endswith("Dataset") and name != "Dataset" else name
    return _TF_DATASET_TYPES.get(name, name)


@public("torchflow.data")
class IteratorSpec:
    """The type of a ``tf.data.Iterator``: its element spec.

    Args:
      element_spec: The nested ``tf.TensorSpec`` of the iterator's elements.
    """

    def __init__(self, element_spec):
        self._element_spec = element_spec

    @property
    def value_type(self):
        return Iterator

    def is_compatible_with(self, spec_or_value) -> bool:
        other = getattr(spec_or_value, "_element_spec", None)
        if other is None and isinstance(spec_or_value, Iterator):
            other = spec_or_value.element_spec
        if other is None or not _structure.same_structure(self._element_spec, other):
            return False
        return all(a.is_compatible_with(b) for a, b in zip(
            _structure.flatten(self._element_spec), _structure.flatten(other)))

    def __eq__(self, other) -> bool:
        return isinstance(other, IteratorSpec) and self._element_spec == other._element_spec

    def __hash__(self) -> int:
        return hash(repr(self._element_spec))

    def __repr__(self) -> str:
        return f"IteratorSpec({self._element_spec!r},)"


@public("torchflow.experimental")
class Optional:
    """A value that may be absent, of a known structure (``element_spec``).

    ``has_value()`` says whether it holds one (a scalar ``tf.bool``);
    ``get_value()`` returns it. Make one with ``Optional.from_value(value)`` or
    ``Optional.empty(element_spec)``; an iterator's ``get_next_as_optional()``
    returns one, empty at the end of the dataset.

    >>> import torchflow as tf
    >>> o = tf.experimental.Optional.from_value(tf.constant(3))
    >>> bool(o.has_value()), int(o.get_value())
    (True, 3)
    >>> bool(tf.experimental.Optional.empty(tf.TensorSpec([], tf.int32)).has_value())
    False

    Args:
      value: The (nested) value held, or None when empty.
      has_value: bool, whether the optional holds ``value``.
      spec: The ``tf.TypeSpec`` structure of the value (its ``element_spec``).
        TF 2.4's ``Optional`` is abstract; use the two static methods.
    """

    def __init__(self, value, has_value, spec):
        self._value = value
        self._has = has_value
        self._spec = spec

    @staticmethod
    def from_value(value) -> "Optional":
        """An ``Optional`` holding ``value`` (a tensor or nested structure of them)."""
        value = _structure.normalize(value)
        return Optional(value, True, _structure.spec_of(value))

    @staticmethod
    def empty(element_spec) -> "Optional":
        """An empty ``Optional`` of the structure ``element_spec`` (``tf.TypeSpec`` objects)."""
        return Optional(None, False, element_spec)

    @property
    def element_spec(self):
        return self._spec

    def has_value(self, name=None):
        """A scalar ``tf.bool``: True when the optional holds a value."""
        return data_ops.scalar(self._has, dtypes.bool)

    def get_value(self, name=None):
        """The value; raises ``InvalidArgumentError`` when empty."""
        if not self._has:
            raise InvalidArgumentError(None, None, "The optional does not have a value. "
                                       "[Op:OptionalGetValue]")
        return self._value

    def __repr__(self):
        return f"<tf.experimental.Optional has_value={self._has}>"


@public("torchflow")
class OptionalSpec(TypeSpec):
    """The type of a ``tf.experimental.Optional``: the spec of the value it may hold.

    >>> import torchflow as tf
    >>> o = tf.experimental.Optional.from_value(tf.constant(3))
    >>> tf.OptionalSpec.from_value(o)
    OptionalSpec(TensorSpec(shape=(), dtype=tf.int32, name=None),)

    Args:
      element_spec: A (nested) structure of ``tf.TypeSpec`` objects, the type of
        the optional's value.
    """

    __slots__ = ("_element_spec",)

    def __init__(self, element_spec):
        self._element_spec = element_spec

    @property
    def value_type(self):
        """The Python type of the values this spec describes (``Optional``)."""
        return Optional

    @property
    def element_spec(self):
        """The spec of the value an optional of this type may hold."""
        return self._element_spec

    def _serialize(self) -> tuple:
        return (self._element_spec,)

    def is_compatible_with(self, spec_or_value) -> bool:
        """True if ``spec_or_value`` (a spec or an ``Optional``) could have this type.

        Args:
          spec_or_value: An ``OptionalSpec`` or a ``tf.experimental.Optional``.

        Returns:
          True when the element specs have the same structure and are compatible.
        """
        if isinstance(spec_or_value, Optional):
            spec_or_value = OptionalSpec.from_value(spec_or_value)
        return super().is_compatible_with(spec_or_value)

    @staticmethod
    def from_value(value) -> "OptionalSpec":
        """The ``OptionalSpec`` of the ``tf.experimental.Optional`` ``value``.

        Args:
          value: A ``tf.experimental.Optional``.

        Returns:
          Its ``OptionalSpec``.

        Raises:
          TypeError: If ``value`` is not an ``Optional``.
        """
        if not isinstance(value, Optional):
            raise TypeError(f"Expected value to be an Optional, but got: `{type(value)}`")
        return OptionalSpec(value.element_spec)
