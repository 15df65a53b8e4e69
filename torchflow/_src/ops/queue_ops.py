"""``tf.queue``: FIFO, padding FIFO, priority and random-shuffle queues of tensor tuples.

A queue is a thread-safe store of elements (tuples of tensors) shared by
producer and consumer threads, as TF's queue kernels are: ``enqueue`` blocks
while the queue is full, ``dequeue`` while it has too few elements, and
``close`` wakes every waiter (pending dequeues that can no longer be served
raise ``OutOfRangeError``; with ``cancel_pending_enqueues`` pending enqueues
raise ``CancelledError``). A batch dequeue takes elements as they arrive, so a
batch larger than the capacity completes while producers keep up. Each queue
operation is a host node of traced functions: it runs on every call of a
``tf.function``, not once at trace time.

Differences from TensorFlow 2.4: ``queue_ref`` is the queue's resource object,
not a resource tensor; ``RandomShuffleQueue`` draws its order from NumPy's
generator (seeded from ``seed`` and the global seed as TF derives op seeds), so
a seeded order is reproducible but not TF's; ``PriorityQueue`` returns elements
of equal priority in the order they were enqueued.
"""

from __future__ import annotations

import heapq
import itertools
import threading

import numpy as np
import torch

from torchflow._src.core import dtypes as _dtypes
from torchflow._src.core import graph_trace
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.errors import CancelledError, InvalidArgumentError, OutOfRangeError
from torchflow._src.core.tensor import Tensor, wrap
from torchflow._src.core.tensor_shape import TensorShape, as_shape
from torchflow._src.ops._dispatch import tf_type_name
from torchflow._src.ops.random_ops import get_seed
from torchflow._src.util.api import public

_ids = itertools.count()


def _shape_str(s: TensorShape) -> str:
    """A shape as TF's kernels print it: ``[2,?]``, ``<unknown>``."""
    if s.rank is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in s.as_list()) + "]"


class _Resource:
    """The state one queue kernel holds: elements, capacity, closed flag, waiters."""

    dtype = _dtypes.resource

    def __init__(self, kind: str, capacity: int, component_dtypes, shapes,
                 min_after_dequeue: int = 0, seed=None):
        self.kind = kind
        self.id = str(next(_ids))
        self.capacity = int(capacity)
        self.dtypes = list(component_dtypes)
        self.shapes = shapes  # list of TensorShape, or None when unconstrained
        self.min_after_dequeue = int(min_after_dequeue)
        self.items: list = []
        self.counter = itertools.count()  # FIFO order among equal priorities
        self.cond = threading.Condition()
        self.closed = False
        self.cancel_epoch = 0
        self.rng = np.random.default_rng(seed)

    def __repr__(self) -> str:
        return f"<{self.kind} resource '{self.id}'>"

    def full(self) -> bool:
        return 0 <= self.capacity <= len(self.items)

    def available(self) -> int:
        if self.kind == "RandomShuffleQueue" and not self.closed:
            return max(0, len(self.items) - self.min_after_dequeue)
        return len(self.items)

    def push(self, element: tuple) -> None:
        if self.kind == "PriorityQueue":
            heapq.heappush(self.items, (int(element[0]._t), next(self.counter), element))
        else:
            self.items.append(element)

    def pop(self) -> tuple:
        if self.kind == "PriorityQueue":
            return heapq.heappop(self.items)[2]
        if self.kind == "RandomShuffleQueue":
            i = int(self.rng.integers(len(self.items)))
            self.items[i], self.items[-1] = self.items[-1], self.items[i]
            return self.items.pop()
        return self.items.pop(0)

    def restore(self, taken: list) -> None:
        if self.kind in ("PriorityQueue", "RandomShuffleQueue"):
            for element in taken:
                self.push(element)
        else:
            self.items[0:0] = taken

    def closed_error(self, op: str, n: int) -> OutOfRangeError:
        return OutOfRangeError(
            None, None, f"{self.kind} '{self.id}' is closed and has insufficient elements "
                        f"(requested {n}, current size {len(self.items)}) [Op:{op}]")


def _row(t: Tensor, i: int) -> Tensor:
    if isinstance(t._t, np.ndarray):
        return wrap(np.asarray(t._t[i:i + 1], dtype=object).reshape(t._t.shape[1:]), t._dtype)
    return wrap(t._t[i], t._dtype)


def _batch(parts: list[Tensor], dtype, shape: TensorShape | None, pad: bool) -> Tensor:
    """The components of ``parts`` stacked along a new axis 0 (zero-padded if ``pad``)."""
    if not parts:
        dims = [0 if d is None else d for d in (shape.as_list() if shape is not None else [])]
        if dtype is _dtypes.string:
            return wrap(np.full([0] + dims, b"", dtype=object), dtype)
        return wrap(torch.zeros([0] + dims, dtype=dtype.torch_dtype), dtype)
    if pad:
        rank = len(parts[0]._t.shape)
        dims = [max(int(p._t.shape[k]) for p in parts) for k in range(rank)]
        if dtype is _dtypes.string:
            out = np.full([len(parts)] + dims, b"", dtype=object)
        else:
            out = torch.zeros([len(parts)] + dims, dtype=dtype.torch_dtype)
        for i, p in enumerate(parts):
            out[(i,) + tuple(slice(0, int(d)) for d in p._t.shape)] = p._t
        return wrap(out, dtype)
    if dtype is _dtypes.string:
        return wrap(np.stack([np.asarray(p._t, dtype=object) for p in parts]), dtype)
    return wrap(torch.stack([p._t for p in parts]), dtype)


def _cannot_dry_run(*args, **kwargs):
    return graph_trace.cannot_dry_run()


@graph_trace.host_op
def _enqueue(res: _Resource, elements: list, op: str) -> None:
    with res.cond:
        if res.closed:
            raise CancelledError(None, None, f"{res.kind} '{res.id}' is closed. [Op:{op}]")
        epoch = res.cancel_epoch
        for element in elements:
            while res.full():
                res.cond.wait()
                if res.cancel_epoch != epoch:
                    raise CancelledError(None, None,
                                         f"Enqueue operation was cancelled [Op:{op}]")
            res.push(element)
            res.cond.notify_all()


@graph_trace.host_op(dry=_cannot_dry_run)
def _dequeue(res: _Resource, n: int, many: bool, allow_small: bool, op: str) -> list:
    """Takes ``n`` elements (fewer from a closed queue if ``allow_small``)."""
    if many:
        if n < 0:
            name = "DequeueUpToOp" if allow_small else "DequeueManyOp"
            raise InvalidArgumentError(None, None,
                                       f"{name} requested {n} < 0 elements [Op:{op}]")
        if res.shapes is None:
            raise InvalidArgumentError(
                None, None, f"{res.kind}'s DequeueMany and DequeueUpTo require the components "
                            f"to have specified shapes. [Op:{op}]")
    taken: list = []
    with res.cond:
        if res.closed and len(res.items) < n and not (allow_small and res.items):
            raise res.closed_error(op, n)  # TF checks a closed queue before taking any
        while True:
            avail = res.available()
            while len(taken) < n and avail > 0:
                taken.append(res.pop())
                avail -= 1
            if taken:
                res.cond.notify_all()
            if len(taken) == n:
                break
            if res.closed:
                if allow_small and res.kind == "PriorityQueue" and taken + res.items:
                    res.items.clear()  # TF's PriorityQueue drops them and reports 1
                    raise res.closed_error(op, 1)
                if allow_small and taken + res.items:
                    while res.items:
                        taken.append(res.pop())
                    break
                # TF reports what the attempt still lacks, then puts its elements back.
                error = res.closed_error(op, n - len(taken))
                res.restore(taken)
                raise error
            res.cond.wait()
    if not many:
        return list(taken[0])
    pad = res.kind == "PaddingFIFOQueue"
    shapes = res.shapes or [None] * len(res.dtypes)
    return [_batch([e[c] for e in taken], d, s, pad)
            for c, (d, s) in enumerate(zip(res.dtypes, shapes))]


@graph_trace.host_op
def _close(res: _Resource, cancel_pending_enqueues: bool) -> None:
    with res.cond:
        if res.closed:
            raise CancelledError(None, None,
                                 f"Queue '{res.id}' is already closed. [Op:QueueCloseV2]")
        res.closed = True
        if cancel_pending_enqueues:
            res.cancel_epoch += 1
        res.cond.notify_all()


@graph_trace.host_op(dry=_cannot_dry_run)
def _size(res: _Resource) -> Tensor:
    with res.cond:
        return wrap(torch.tensor(len(res.items), dtype=torch.int32), _dtypes.int32)


@graph_trace.host_op(dry=_cannot_dry_run)
def _is_closed(res: _Resource) -> Tensor:
    with res.cond:
        return wrap(torch.tensor(res.closed), _dtypes.bool)


def _as_type_list(types) -> list:
    types = list(types) if isinstance(types, (list, tuple)) else [types]
    out = []
    for t in types:
        try:
            out.append(_dtypes.as_dtype(t))
        except TypeError:
            raise TypeError(f"Expected DataType for argument 'component_types' not "
                            f"{t!r}.") from None
    return out


def _as_shape_list(shapes, unknown_dim_allowed: bool = False):
    if unknown_dim_allowed and (not isinstance(shapes, (list, tuple)) or not shapes or any(
            s is None or isinstance(s, int) for s in shapes)):
        raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return None
    if isinstance(shapes, TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError("shapes must be a TensorShape or a list or tuple of TensorShapes.")
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]
    shapes = [as_shape(s) for s in shapes]
    if not unknown_dim_allowed and not all(s.is_fully_defined() for s in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    if any(s.rank is None for s in shapes):
        raise ValueError(f"All shapes must have a defined rank: {shapes}")
    return shapes


def _as_name_list(names, types):
    if names is None:
        return None
    names = list(names) if isinstance(names, (list, tuple)) else [names]
    if len(names) != len(types):
        raise ValueError("List of names must have the same length as the list of dtypes")
    return names


def _check_counts(op: str, types, shapes) -> None:
    if shapes is not None and len(shapes) != len(types):
        raise InvalidArgumentError(
            None, None, f"Different number of component types.  Types: "
                        f"{', '.join(tf_type_name(t) for t in types)}, Shapes: "
                        f"[{', '.join(_shape_str(s) for s in shapes)}] [Op:{op}]")


@public("torchflow.queue")
class QueueBase:
    """Base class of the queues: a store of tensor tuples shared across threads.

    Each element is a tuple of components, each of a fixed dtype and possibly a
    fixed shape. ``enqueue``/``dequeue`` move one element, the ``_many`` forms a
    batch along axis 0. Build queues with `FIFOQueue`, `PaddingFIFOQueue`,
    `PriorityQueue` or `RandomShuffleQueue`.

    Args:
      dtypes: A list of DTypes, one per component.
      shapes: A list of shapes (one per component), or None.
      names: A list of component names, or None. With names, elements are
        enqueued and dequeued as dictionaries.
      queue_ref: The queue resource (the ``queue_ref`` of another queue).

    Raises:
      ValueError: If ``shapes`` or ``names`` differ in length from ``dtypes``.

    >>> import torchflow as tf
    >>> q = tf.queue.FIFOQueue(2, tf.int32, shapes=[[]])
    >>> q2 = tf.queue.QueueBase(q.dtypes, q.shapes, None, q.queue_ref)
    >>> q.enqueue(7)
    >>> int(q2.dequeue())
    7
    """

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = dtypes
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
            self._shapes = [TensorShape(s) for s in shapes]
        else:
            self._shapes = [TensorShape(None) for _ in dtypes]
        if names is not None:
            if len(names) != len(dtypes):
                raise ValueError("Queue names must have the same length as dtypes")
        self._names = names
        self._queue_ref = queue_ref
        self._name = ""  # TF's eager queues are named after the (empty) name scope

    @staticmethod
    def from_list(index, queues):
        """A queue that uses the resource of ``queues[index]``.

        Args:
          index: An integer scalar: which queue.
          queues: A list of QueueBase objects with the same dtypes and names.

        Returns:
          A QueueBase whose shapes are the most specific ones all queues share.

        Raises:
          TypeError: If ``queues`` is not a non-empty list of queues, or their
            dtypes or names differ.
        """
        if not queues or not isinstance(queues, list) or not all(
                isinstance(q, QueueBase) for q in queues):
            raise TypeError("A list of queues expected")
        types = queues[0].dtypes
        if not all(types == q.dtypes for q in queues[1:]):
            raise TypeError("Queues do not have matching component dtypes.")
        names = queues[0].names
        if not all(names == q.names for q in queues[1:]):
            raise TypeError("Queues do not have matching component names.")
        shapes = []
        for per_queue in zip(*[q.shapes for q in queues]):
            s = per_queue[0]
            for other in per_queue[1:]:
                if s.rank is None or other.rank is None or s.rank != other.rank:
                    s = TensorShape(None)
                else:
                    s = TensorShape([a if a is not None and a == b else None
                                     for a, b in zip(s.as_list(), other.as_list())])
            shapes.append(s)
        i = int(convert_to_tensor(index)._t)
        return QueueBase(types, shapes, names, queues[i].queue_ref)

    @property
    def queue_ref(self):
        """The queue's resource (shared by queues built from it)."""
        return self._queue_ref

    @property
    def name(self) -> str:
        """The queue's name: the name scope it was made in (``""`` at top level)."""
        return self._name

    @property
    def dtypes(self) -> list:
        """The list of dtypes, one per component of an element."""
        return self._dtypes

    @property
    def shapes(self) -> list:
        """The list of shapes, one per component of an element."""
        return self._shapes

    @property
    def names(self):
        """The list of component names, or None."""
        return self._names

    def _components(self, vals) -> list[Tensor]:
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError(f"Keys in dictionary to enqueue do not match names of Queue.  "
                                 f"Dictionary: ({sorted(vals.keys())}), Queue: "
                                 f"({sorted(self._names)})")
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        out = []
        for i, (v, d) in enumerate(zip(vals, self._dtypes)):
            try:
                out.append(convert_to_tensor(v, dtype=d))
            except ValueError as e:
                if isinstance(v, Tensor):  # TF names the component of a mismatched tensor
                    raise ValueError(f"component_{i}: {e}") from None
                raise
        return out

    def _check_arity(self, tensors: list, op: str) -> None:
        if len(tensors) != len(self._dtypes):
            have = ", ".join(["resource"] + [tf_type_name(t.dtype) for t in tensors])
            want = ", ".join(["resource"] + [tf_type_name(d) for d in self._dtypes])
            raise InvalidArgumentError(
                None, None, f"Signature mismatch, have: {have}-> expected: {want}-> [Op:{op}]")

    def enqueue(self, vals, name=None):
        """Enqueues one element, blocking while the queue is full.

        Args:
          vals: A tensor, a list or tuple of tensors, or (for a queue with names)
            a dictionary: one value per component.
          name: Unused (eager).

        Raises:
          ValueError: If a component's shape does not fit the queue's.
          CancelledError: If the queue is closed, or closed with
            ``cancel_pending_enqueues=True`` while this call waits.
        """
        tensors = self._components(vals)
        for t, s in zip(tensors, self._shapes):
            t.shape.assert_is_compatible_with(s)
        self._check_arity(tensors, "QueueEnqueueV2")
        _enqueue(self._queue_ref, [tuple(tensors)], "QueueEnqueueV2")

    def enqueue_many(self, vals, name=None):
        """Enqueues the slices along axis 0 of the components as elements.

        Blocks until every element is in (producers and consumers interleave).

        Args:
          vals: A tensor, a list or tuple of tensors, or a dictionary; all of
            the same size in dimension 0.
          name: Unused (eager).

        Raises:
          ValueError: If a component has rank 0, the sizes of dimension 0
            differ, or the element shapes do not fit the queue's.
          CancelledError: If the queue is closed, or closed with
            ``cancel_pending_enqueues=True`` while this call waits.
        """
        tensors = self._components(vals)
        batch = tensors[0].shape.with_rank_at_least(1)[0]
        for t, s in zip(tensors, self._shapes):
            d = t.shape.with_rank_at_least(1)[0]
            if batch is not None and d is not None and batch != d:
                raise ValueError(f"Dimensions {batch} and {d} are not compatible")
            batch = d if batch is None else batch
            TensorShape(t.shape.as_list()[1:]).assert_is_compatible_with(s)
        self._check_arity(tensors, "QueueEnqueueManyV2")
        n = int(tensors[0]._t.shape[0])
        elements = [tuple(_row(t, i) for t in tensors) for i in range(n)]
        _enqueue(self._queue_ref, elements, "QueueEnqueueManyV2")

    def _result(self, tensors: list):
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        if len(tensors) == 1:
            return tensors[0]
        return tensors

    def dequeue(self, name=None):
        """Dequeues one element, blocking while the queue is empty.

        Args:
          name: Unused (eager).

        Returns:
          The element: one Tensor, a list of Tensors, or a dictionary (with names).

        Raises:
          OutOfRangeError: If the queue is closed and empty.
        """
        return self._result(_dequeue(self._queue_ref, 1, False, False, "QueueDequeueV2"))

    def dequeue_many(self, n, name=None):
        """Dequeues ``n`` elements, stacked along a new axis 0.

        Blocks until ``n`` elements have been taken.

        Args:
          n: An int32 scalar: the number of elements.
          name: Unused (eager).

        Returns:
          The batch: components of shape ``[n] + shape``.

        Raises:
          OutOfRangeError: If the queue is closed with fewer than ``n`` elements
            (they stay in the queue).
          InvalidArgumentError: If ``n < 0`` or the queue's shapes are not set.
        """
        return self._result(_dequeue(self._queue_ref, int(convert_to_tensor(n)._t), True,
                                     False, "QueueDequeueManyV2"))

    def dequeue_up_to(self, n, name=None):
        """Dequeues up to ``n`` elements: fewer only once the queue is closed.

        Args:
          n: An int32 scalar: the number of elements.
          name: Unused (eager).

        Returns:
          The batch: components of shape ``[k] + shape``, ``0 < k <= n``.

        Raises:
          OutOfRangeError: If the queue is closed and empty.
          InvalidArgumentError: If ``n < 0`` or the queue's shapes are not set.
        """
        return self._result(_dequeue(self._queue_ref, int(convert_to_tensor(n)._t), True,
                                     True, "QueueDequeueUpToV2"))

    def close(self, cancel_pending_enqueues=False, name=None):
        """Closes the queue: later enqueues fail, dequeues drain what is left.

        Args:
          cancel_pending_enqueues: If True, enqueues waiting for room raise
            ``CancelledError``.
          name: Unused (eager).

        Raises:
          CancelledError: If the queue is already closed.
        """
        _close(self._queue_ref, bool(cancel_pending_enqueues))

    def is_closed(self, name=None) -> Tensor:
        """A bool scalar: whether the queue is closed."""
        return _is_closed(self._queue_ref)

    def size(self, name=None) -> Tensor:
        """An int32 scalar: the number of elements in the queue."""
        return _size(self._queue_ref)


@public("torchflow.queue")
class FIFOQueue(QueueBase):
    """A queue that dequeues elements in first-in first-out order.

    Args:
      capacity: The most elements the queue holds (enqueues block beyond it).
      dtypes: A DType or list of DTypes, one per component.
      shapes: Fully defined shapes, one per component, or None (then
        ``dequeue_many`` is not available).
      names: Component names, or None.
      shared_name: Unused (eager queues are never shared).
      name: Unused (eager).

    Raises:
      ValueError: If a shape is not fully defined or ``names`` has the wrong length.
      InvalidArgumentError: If ``shapes`` has the wrong length.

    >>> import torchflow as tf
    >>> q = tf.queue.FIFOQueue(3, [tf.int32, tf.string], shapes=[[], []])
    >>> q.enqueue_many(([1, 2], ["a", "b"]))
    >>> x, s = q.dequeue()
    >>> int(x), s.numpy()
    (1, b'a')
    """

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None,
                 name="fifo_queue"):
        types = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, types)
        _check_counts("FIFOQueueV2", types, shapes)
        super().__init__(types, shapes, names, _Resource("FIFOQueue", capacity, types, shapes))


@public("torchflow.queue")
class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose batches pad variable-size components with zeros.

    Shapes may have ``None`` dimensions; ``dequeue_many`` pads each component
    to the largest size in the batch (zeros, or ``b""`` for strings).

    Args:
      capacity: The most elements the queue holds.
      dtypes: A DType or list of DTypes, one per component.
      shapes: A list of shapes of known rank, one per component.
      names: Component names, or None.
      shared_name: Unused (eager).
      name: Unused (eager).

    Raises:
      ValueError: If ``shapes`` is not a list of shapes of known rank.

    >>> import torchflow as tf
    >>> q = tf.queue.PaddingFIFOQueue(4, tf.int32, shapes=[[None]])
    >>> q.enqueue(tf.constant([1]))
    >>> q.enqueue(tf.constant([2, 3]))
    >>> q.dequeue_many(2).numpy().tolist()
    [[1, 0], [2, 3]]
    """

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None,
                 name="padding_fifo_queue"):
        types = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, unknown_dim_allowed=True) or []
        names = _as_name_list(names, types)
        if len(types) != len(shapes):
            raise ValueError(f"Shapes must be provided for all components, but received "
                             f"{len(types)} dtypes and {len(shapes)} shapes.")
        super().__init__(types, shapes, names,
                         _Resource("PaddingFIFOQueue", capacity, types, shapes))


@public("torchflow.queue")
class PriorityQueue(QueueBase):
    """A queue that dequeues the element of lowest priority first.

    Every element starts with an extra int64 scalar component, its priority
    (an int64 vector for ``enqueue_many``); dequeues return it too.

    Args:
      capacity: The most elements the queue holds.
      types: The DTypes of the components after the priority.
      shapes: Fully defined shapes of those components (TF's kernel requires them).
      names: Names of all components, the priority's first, or None.
      shared_name: Unused (eager).
      name: Unused (eager).

    Raises:
      ValueError: If a shape is not fully defined or ``names`` has the wrong length.
      InvalidArgumentError: If ``shapes`` is missing or has the wrong length.

    >>> import torchflow as tf
    >>> q = tf.queue.PriorityQueue(3, [tf.string], shapes=[[]])
    >>> q.enqueue_many(([5, 1], ["low", "high"]))
    >>> priority, s = q.dequeue()
    >>> int(priority), s.numpy()
    (1, b'high')
    """

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None,
                 name="priority_queue"):
        types = _as_type_list(types)
        shapes = _as_shape_list(shapes)
        _check_counts("PriorityQueueV2", types, shapes)
        res = _Resource("PriorityQueue", capacity, [_dtypes.int64] + types,
                        None if shapes is None else [TensorShape([])] + shapes)
        if shapes is None:
            raise InvalidArgumentError(
                None, None, f"Shared queue '{res.id}' has component shapes [] but requested "
                            f"component shapes were [[]] [Op:PriorityQueueV2]")
        super().__init__([_dtypes.int64] + types, [TensorShape([])] + shapes, names, res)


@public("torchflow.queue")
class RandomShuffleQueue(QueueBase):
    """A queue that dequeues elements in a random order.

    Dequeues wait until more than ``min_after_dequeue`` elements would remain
    (the mixing guarantee), except once the queue is closed.

    Args:
      capacity: The most elements the queue holds.
      min_after_dequeue: Elements kept in the queue after a dequeue.
      dtypes: A DType or list of DTypes, one per component.
      shapes: Fully defined shapes, one per component, or None.
      names: Component names, or None.
      seed: An op seed (with the global seed, as ``tf.random``).
      shared_name: Unused (eager).
      name: Unused (eager).

    Raises:
      InvalidArgumentError: If ``min_after_dequeue >= capacity``.
      ValueError: If a shape is not fully defined or ``names`` has the wrong length.

    >>> import torchflow as tf
    >>> q = tf.queue.RandomShuffleQueue(10, 0, tf.int32, shapes=[[]], seed=1)
    >>> q.enqueue_many([[1, 2, 3]])
    >>> sorted(q.dequeue_many(3).numpy().tolist())
    [1, 2, 3]
    """

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None,
                 seed=None, shared_name=None, name="random_shuffle_queue"):
        types = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, types)
        _check_counts("RandomShuffleQueueV2", types, shapes)
        if int(capacity) >= 0 and int(min_after_dequeue) >= int(capacity):
            raise InvalidArgumentError(
                None, None, f"min_after_dequeue {int(min_after_dequeue)} must be < capacity "
                            f"{int(capacity)} [Op:RandomShuffleQueueV2]")
        seeds = get_seed(seed)
        rng_seed = None if seeds == (None, None) else list(seeds)
        super().__init__(types, shapes, names,
                         _Resource("RandomShuffleQueue", capacity, types, shapes,
                                   min_after_dequeue, rng_seed))
