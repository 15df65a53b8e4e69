"""Feeding ``fit``/``evaluate``/``predict``: arrays, tensors, Datasets, generators, Sequences.

NumPy arrays and tensors are converted once, permuted once per epoch (when
shuffling) and cut into contiguous batches, so a step costs one slice per
input rather than per-element work. Datasets are iterated as they are.
"""

from __future__ import annotations

import logging
import math
import random

import numpy as np

from torchflow._src.core.composite_tensor import CompositeTensor
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor import Tensor
from torchflow._src.data.dataset_ops import DatasetV2
from torchflow._src.keras.utils.sequence import OrderedEnqueuer, Sequence
from torchflow._src.ops import random_ops
from torchflow._src.ops.creation_ops import range as tf_range
from torchflow._src.ops.gather_ops import gather
from torchflow._src.ops.sparse import sparse_data
from torchflow._src.ops.sparse.sparse_tensor import SparseTensor
from torchflow._src.util import nest
from torchflow._src.util.api import public


@public("torchflow.keras.utils")
def unpack_x_y_sample_weight(data):
    """Splits a batch into ``(x, y, sample_weight)``, filling the missing parts with None.

    For custom ``Model.train_step``/``test_step``/``predict_step`` code: the
    batch ``fit`` passes may be ``x`` alone (unlabeled data), ``(x,)``, ``(x, y)``
    or ``(x, y, sample_weight)``; this returns all three in every case.

    >>> import torchflow as tf
    >>> x, y, sw = tf.keras.utils.unpack_x_y_sample_weight((tf.ones([2, 3]), tf.zeros([2])))
    >>> sw is None
    True

    Args:
      data: The batch: a tensor (or nested structure of them, taken as ``x``), or a
        tuple (or list) of one, two or three elements.

    Returns:
      The tuple ``(x, y, sample_weight)``; ``y`` and ``sample_weight`` are None
      where the batch does not have them.

    Raises:
      ValueError: If ``data`` is a tuple of more than three elements.
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                     f"`(x, y, sample_weight)`, found: {data}")


@public("torchflow.keras.utils")
def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """Packs ``x``, ``y`` and ``sample_weight`` into the batch form ``fit`` uses.

    The inverse of ``unpack_x_y_sample_weight``, and the form a custom
    ``train_step`` receives: ``(x, y, sample_weight)``, ``(x, y)`` without sample
    weights, and ``x`` alone without labels (``(x,)`` when ``x`` is itself a tuple,
    list or dict, so that it is not mistaken for ``(x, y)``).

    >>> import torchflow as tf
    >>> data = tf.keras.utils.pack_x_y_sample_weight(tf.ones([2, 3]), tf.zeros([2]))
    >>> len(data)
    2

    Args:
      x: The model's inputs.
      y: The targets, or None.
      sample_weight: Per-sample weights, or None (ignored when ``y`` is None).

    Returns:
      ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``.
    """
    if y is None:
        # A structure of inputs is wrapped so that unpacking cannot read it as (x, y).
        return (x,) if isinstance(x, (tuple, list, dict)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def list_to_tuple(structure):
    """``structure`` with every list turned into a tuple (TF's Keras does so for input
    data, since a list is taken as one stacked array elsewhere)."""
    if isinstance(structure, (list, tuple)):
        return tuple(list_to_tuple(v) for v in structure)
    if isinstance(structure, dict):
        return {k: list_to_tuple(v) for k, v in structure.items()}
    return structure


def standardize_batch(data):
    """A batch from a generator or ``Sequence`` as TF passes it to a step: Nones
    dropped (``(x, y, None)`` -> ``(x, y)``), lists made tuples, arrays made tensors
    (float64 arrays as float32, Keras' floatx)."""
    x, y, sw = unpack_x_y_sample_weight(data)
    data = list_to_tuple(pack_x_y_sample_weight(x, y, sw))
    return nest.map_structure(lambda a: a if a is None or isinstance(a, Tensor) else
                              _to_tensor(np.asarray(a)) if isinstance(a, (np.ndarray, list))
                              or np.isscalar(a) else a, data)


def _is_array(x) -> bool:
    return isinstance(x, (np.ndarray, Tensor, CompositeTensor)) or hasattr(x, "_tf_value") or (
        isinstance(x, (list, tuple)) and x and all(_is_array(v) for v in x)) or (
        isinstance(x, dict) and x and all(_is_array(v) for v in x.values()))


def _sequence_batches(seq, shuffle, workers, use_multiprocessing, max_queue_size, handler):
    """One epoch of a ``Sequence``'s batches, as TF 2.4 reads them: in index order or
    shuffled (Python's ``random``, as TF), on worker threads when ``workers > 1``
    (or ``use_multiprocessing``)."""
    if workers > 1 or (workers > 0 and use_multiprocessing):
        enqueuer = OrderedEnqueuer(seq, use_multiprocessing=use_multiprocessing,
                                   shuffle=shuffle)
        enqueuer.start(workers=workers, max_queue_size=max_queue_size)
        handler._enqueuer = enqueuer
        return map(standardize_batch, enqueuer.get())
    order = list(range(len(seq)))
    if shuffle:
        random.shuffle(order)
    return (standardize_batch(seq[i]) for i in order)


def _is_sequence(x) -> bool:
    if isinstance(x, Sequence):
        return True
    return hasattr(x, "__getitem__") and hasattr(x, "__len__") and hasattr(
        x, "on_epoch_end") and not isinstance(x, (np.ndarray, Tensor, list, tuple, dict))


def _to_tensor(x):
    if isinstance(x, (Tensor, CompositeTensor)):  # a tf.RaggedTensor is sliced as it is
        return x
    if isinstance(x, np.ndarray) and x.dtype == np.float64:
        return convert_to_tensor(x.astype(np.float32))
    return convert_to_tensor(x)


def _rows(a, lo, hi):
    """Rows ``lo..hi-1`` of one input (a tf.SparseTensor by its dense rows)."""
    if a is None:
        return None
    return sparse_data.slice_rows(a, lo, hi) if isinstance(a, SparseTensor) else a[lo:hi]


def _gather_rows(a, perm):
    if a is None:
        return None
    return sparse_data.gather_rows(a, perm) if isinstance(a, SparseTensor) else gather(a, perm)


def _num_rows(structure) -> int:
    sizes = {int(t.shape[0]) for t in nest.flatten(structure) if t is not None}
    if len(sizes) > 1:
        raise ValueError(f"Data cardinality is ambiguous: the inputs have different numbers of "
                         f"samples {sorted(sizes)}. Make sure all arrays contain the same "
                         f"number of samples.")
    return sizes.pop() if sizes else 0


def train_validation_split(arrays, validation_split):
    """Splits arrays: the last ``validation_split`` fraction becomes validation data."""
    flat = [a for a in nest.flatten(arrays) if a is not None]
    n = int(flat[0].shape[0])
    split = int(math.floor(n * (1.0 - validation_split)))
    if split == 0 or split == n:
        raise ValueError(f"Training data contains {n} samples, which is not sufficient to split "
                         f"it into a validation and training set as specified by "
                         f"`validation_split={validation_split}`. Either provide more data, "
                         f"or a different value for the `validation_split` argument.")

    def cut(lo, hi):
        return nest.map_structure(lambda a: _rows(a, lo, hi), arrays)

    return cut(0, split), cut(split, n)


class _ArrayFeed:
    def __init__(self, x, y, sw, batch_size, shuffle):
        self.data = nest.map_structure(lambda a: None if a is None else _to_tensor(a),
                                       list_to_tuple((x, y, sw)))
        # What a step receives (TF's pack_x_y_sample_weight): (x, y, sw), (x, y) or x.
        self._width = 1 if self.data[1] is None else 2 if self.data[2] is None else 3
        self.n = _num_rows(self.data)
        self.batch_size = batch_size or 32
        self.shuffle = shuffle
        self.steps = int(math.ceil(self.n / self.batch_size)) if self.n else 0

    def epoch(self):
        data = self.data
        perm = random_ops.shuffle(tf_range(self.n)) if self.shuffle and self.n > 1 else None
        bs = self.batch_size
        width = self._width
        if all(type(a) is Tensor for a in data[:width]):
            # (x, y, sample_weight) of plain tensors: slice them without nest. Shuffled,
            # each batch gathers its own rows: one gather of the whole permuted array
            # per epoch wrote (and page-faulted in) a copy of all the data, then read
            # it back from memory (~0.1 ms per MNIST-sized step).
            yield from (self._plain_batches(data[:width], bs) if perm is None else
                        self._gathered_batches(data[:width], bs, perm))
            return
        if perm is not None:
            data = nest.map_structure(lambda a: _gather_rows(a, perm), data)
        for i in range(self.steps):
            lo, hi = i * bs, (i + 1) * bs
            x, y, sw = nest.map_structure(lambda a, lo=lo, hi=hi: _rows(a, lo, hi), data)
            yield pack_x_y_sample_weight(x, y, sw)

    def _plain_batches(self, data, bs):
        if len(data) == 1:
            x = data[0]
            for i in range(self.steps):
                yield x[i * bs:(i + 1) * bs]
            return
        for i in range(self.steps):
            lo, hi = i * bs, (i + 1) * bs
            yield tuple(a[lo:hi] for a in data)

    def _gathered_batches(self, data, bs, perm):
        for i in range(self.steps):
            rows = perm[i * bs:(i + 1) * bs]
            yield gather(data[0], rows) if len(data) == 1 else tuple(
                gather(a, rows) for a in data)


class DataHandler:
    """Iterates epochs and steps over any supported input (TF 2.4 semantics).

    Args:
      x, y, sample_weight: The data (see ``Model.fit``).
      batch_size: Batch size for arrays (default 32); must be None for Datasets,
        generators and Sequences.
      steps_per_epoch: Steps per epoch (default: one pass over the data).
      initial_epoch, epochs: The epoch range.
      shuffle: Shuffle arrays each epoch.
      class_weight: ``{class: weight}`` turned into sample weights.
      steps_per_execution: Batches per execution (callbacks see groups of this size).
    """

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps_per_epoch=None,
                 initial_epoch=0, epochs=1, shuffle=False, class_weight=None,
                 steps_per_execution=1, workers=1, use_multiprocessing=False,
                 max_queue_size=10):
        self._initial_epoch = initial_epoch
        self._epochs = epochs
        self._steps_per_execution = max(1, int(steps_per_execution or 1))
        self._class_weight = class_weight
        self._array = None
        self._dataset = None
        self._iterator_factory = None
        self._persistent_iter = None
        self._steps_per_epoch = steps_per_epoch
        if isinstance(x, DatasetV2):
            if y is not None:
                raise ValueError("`y` argument is not supported when using dataset as input.")
            self._dataset = x
            self.inferred_steps = steps_per_epoch if steps_per_epoch is not None else \
                self._dataset_steps(x)
        elif _is_sequence(x):
            if y is not None:
                raise ValueError("`y` argument is not supported when using "
                                 "`keras.utils.Sequence` as input.")
            if sample_weight is not None:
                raise ValueError("`sample_weight` argument is not supported when using "
                                 "`keras.utils.Sequence` as input.")
            self._sequence = x
            # TF reads the first batch once when it takes the Sequence (to learn the
            # structure of its batches); user code counting reads sees the same.
            x[0]
            self._iterator_factory = lambda: _sequence_batches(
                x, shuffle, workers, use_multiprocessing, max_queue_size, self)
            self.inferred_steps = steps_per_epoch if steps_per_epoch is not None else len(x)
        elif hasattr(x, "__next__") or (hasattr(x, "__iter__") and not _is_array(x)
                                        and not isinstance(x, (list, tuple, dict))):
            if y is not None:
                raise ValueError("`y` argument is not supported when using python generator "
                                 "as input.")
            self._generator = x
            self.inferred_steps = steps_per_epoch
        else:
            self._array = _ArrayFeed(x, y, sample_weight, batch_size, shuffle)
            self.inferred_steps = steps_per_epoch if steps_per_epoch is not None else \
                self._array.steps

    @staticmethod
    def _dataset_steps(ds):
        card = int(ds.cardinality().numpy()) if hasattr(ds.cardinality(), "numpy") else \
            int(ds.cardinality())
        if card == -1:
            raise ValueError("When passing an infinitely repeating dataset, you must specify "
                             "the `steps_per_epoch` argument.")
        return None if card < 0 else card

    def _epoch_iterator(self):
        if self._array is not None:
            if self._steps_per_epoch is not None:
                return self._cycle_arrays()
            return self._array.epoch()
        if self._dataset is not None:
            if self._steps_per_epoch is not None:
                if self._persistent_iter is None:
                    self._persistent_iter = iter(self._dataset)
                return self._persistent_iter
            return iter(self._dataset)
        if self._iterator_factory is not None:
            return self._iterator_factory()
        return map(standardize_batch, self._generator)

    def _cycle_arrays(self):
        if self._persistent_iter is None:
            def forever():
                while True:
                    yield from self._array.epoch()

            self._persistent_iter = forever()
        return self._persistent_iter

    def enumerate_epochs(self):
        """Yields ``(epoch, iterator)`` for each epoch."""
        for epoch in range(self._initial_epoch, self._epochs):
            yield epoch, self._epoch_iterator()
            seq = getattr(self, "_sequence", None)
            if seq is not None:
                enqueuer, self._enqueuer = getattr(self, "_enqueuer", None), None
                if enqueuer is not None:
                    enqueuer.stop()
                seq.on_epoch_end()

    def batches(self, iterator):
        """Yields ``(step, batch_list)``: groups of up to ``steps_per_execution`` batches;
        ``step`` is the index of the group's last batch."""
        limit = self.inferred_steps
        step = 0
        group = []
        while limit is None or step < limit:
            try:
                batch = next(iterator)
            except StopIteration:
                if limit is not None and self._steps_per_epoch is not None:
                    logging.getLogger("torchflow").warning(
                        "Your input ran out of data; interrupting training. Make sure that "
                        "your dataset or generator can generate at least `steps_per_epoch * "
                        "epochs` batches.")
                    self._exhausted = True
                break
            group.append(self._apply_class_weight(batch))
            step += 1
            if len(group) == self._steps_per_execution:
                yield step - 1, group
                group = []
        if group:
            yield step - 1, group
        if limit is None:
            self.inferred_steps = step

    def _apply_class_weight(self, batch):
        return apply_class_weight(batch, self._class_weight)


def apply_class_weight(batch, class_weight):
    """``batch`` as ``(x, y, sample_weight)`` with ``class_weight[label]`` folded into
    the sample weights (unchanged when ``class_weight`` is empty)."""
    if not class_weight:
        return batch
    x, y, sw = unpack_x_y_sample_weight(batch)
    y_np = np.asarray(y.numpy() if hasattr(y, "numpy") else y)
    if y_np.ndim > 1 and y_np.shape[-1] > 1:
        cls = y_np.argmax(axis=-1)
    else:
        cls = y_np.reshape(y_np.shape[0], -1)[:, 0].astype(np.int64)
    w = np.array([class_weight.get(int(c), 1.0) for c in cls], np.float32)
    if sw is not None:
        w = w * np.asarray(sw.numpy() if hasattr(sw, "numpy") else sw, np.float32)
    return (x, y, convert_to_tensor(w))
