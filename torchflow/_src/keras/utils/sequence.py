"""``tf.keras.utils.Sequence`` and the enqueuers that read batches ahead of training.

``fit``/``evaluate``/``predict`` take a ``Sequence`` as they take a generator; with
``workers > 1`` an ``OrderedEnqueuer`` reads batches on worker threads, keeping
their order.

Differences from TensorFlow 2.4: ``use_multiprocessing=True`` is accepted and the
workers are threads all the same (batches hold torch tensors, which do not need
to cross a process boundary); a ``Sequence`` that is CPU-bound in Python code sees
less speed-up than from TF's worker processes.
"""

from __future__ import annotations

import queue
import random
import threading
from concurrent.futures import ThreadPoolExecutor

from torchflow._src.util.api import public

_PUB = "torchflow.keras.utils"


@public(_PUB)
class Sequence:
    """Base class for a dataset of batches indexed by position, for ``Model.fit``.

    Subclass it and implement ``__getitem__`` (the batch at an index, as
    ``(x, y)``, ``(x, y, sample_weight)`` or ``x``) and ``__len__`` (the number of
    batches); override ``on_epoch_end`` to change the data between epochs (e.g.
    to shuffle it). Each batch is read once per epoch, so a ``Sequence`` is the
    safe input when ``fit`` reads batches on several worker threads.

    >>> import numpy as np
    >>> import torchflow as tf
    >>> class Batches(tf.keras.utils.Sequence):
    ...     def __len__(self):
    ...         return 3
    ...     def __getitem__(self, i):
    ...         return np.full((2, 1), i, np.float32), np.zeros((2, 1), np.float32)
    >>> len(list(Batches()))
    3
    """

    def __getitem__(self, index):
        """The batch at position ``index`` (0 to ``len(self) - 1``).

        Raises:
          NotImplementedError: Unless a subclass implements it.
        """
        raise NotImplementedError

    def __len__(self):
        """The number of batches in the Sequence.

        Raises:
          NotImplementedError: Unless a subclass implements it.
        """
        raise NotImplementedError

    def on_epoch_end(self):
        """Called by ``fit`` (and ``evaluate``/``predict``) at the end of every epoch;
        does nothing unless overridden."""

    def __iter__(self):
        """Yields the batches in order, ``self[0]`` to ``self[len(self) - 1]``."""
        for i in range(len(self)):
            yield self[i]


@public(_PUB)
class SequenceEnqueuer:
    """Base class of the enqueuers: reads a ``Sequence`` (or generator) ahead of its
    consumer on worker threads, into a queue of at most ``max_queue_size`` batches.

    Usage: ``start(workers, max_queue_size)``, then iterate ``get()``, then ``stop()``.

    Args:
      sequence: The ``Sequence`` (or, for ``GeneratorEnqueuer``, the generator).
      use_multiprocessing: Accepted; the workers are threads (see the module's
        differences from TF 2.4).
    """

    def __init__(self, sequence, use_multiprocessing=False):
        self.sequence = sequence
        self.use_multiprocessing = use_multiprocessing
        self.workers = 0
        self.queue = None
        self.stop_signal = None
        self.run_thread = None

    def is_running(self):
        """Whether the workers have been started and not stopped."""
        return self.stop_signal is not None and not self.stop_signal.is_set()

    def start(self, workers=1, max_queue_size=10):
        """Starts ``workers`` threads reading ahead, at most ``max_queue_size`` batches."""
        self.workers = max(1, int(workers))
        self.queue = queue.Queue(max(1, int(max_queue_size)))
        self.stop_signal = threading.Event()
        self.run_thread = threading.Thread(target=self._run, daemon=True)
        self.run_thread.start()

    def _put(self, item) -> bool:
        while not self.stop_signal.is_set():
            try:
                self.queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def stop(self, timeout=None):
        """Stops the workers and waits for them (at most ``timeout`` seconds)."""
        if self.stop_signal is None:
            return
        self.stop_signal.set()
        if self.queue is not None:
            with self.queue.mutex:
                self.queue.queue.clear()
                self.queue.not_full.notify_all()
        if self.run_thread is not None:
            self.run_thread.join(timeout)
        self.run_thread = None

    def _run(self):
        raise NotImplementedError

    def get(self):
        """Yields the batches as the workers produce them; ends when they are done.

        Raises:
          Exception: Whatever a worker raised reading a batch.
        """
        while True:
            kind, value = self.queue.get()
            if kind == "done":
                return
            if kind == "error":
                self.stop()
                raise value
            yield value


@public(_PUB)
class OrderedEnqueuer(SequenceEnqueuer):
    """Reads a ``Sequence`` on worker threads, one epoch per ``start``, yielding the
    batches in index order (or in a shuffled order with ``shuffle=True``).

    Args:
      sequence: A ``tf.keras.utils.Sequence``.
      use_multiprocessing: Accepted; the workers are threads.
      shuffle: Read the batches in a random order.
    """

    def __init__(self, sequence, use_multiprocessing=False, shuffle=False):
        super().__init__(sequence, use_multiprocessing)
        self.shuffle = shuffle

    def _run(self):
        order = list(range(len(self.sequence)))
        if self.shuffle:
            random.shuffle(order)
        with ThreadPoolExecutor(self.workers) as pool:
            pending = []
            try:
                for i in order:
                    if self.stop_signal.is_set():
                        return
                    pending.append(pool.submit(self.sequence.__getitem__, i))
                    # Keep at most `queue size` batches in flight beyond the queue.
                    if len(pending) >= self.queue.maxsize:
                        if not self._put(("batch", pending.pop(0).result())):
                            return
                for fut in pending:
                    if not self._put(("batch", fut.result())):
                        return
            except Exception as e:  # noqa: BLE001 - re-raised in the consumer by get()
                self._put(("error", e))
                return
        self._put(("done", None))


@public(_PUB)
class GeneratorEnqueuer(SequenceEnqueuer):
    """Reads a Python generator ahead of its consumer on worker threads (one at a
    time holds the generator, so each item is produced once, in order).

    Args:
      generator: The generator (or iterator) to read.
      use_multiprocessing: Accepted; the workers are threads.
      random_seed: Accepted for TF's signature (threads share one generator).
    """

    def __init__(self, generator, use_multiprocessing=False, random_seed=None):
        super().__init__(generator, use_multiprocessing)
        self.random_seed = random_seed

    def _run(self):
        try:
            for item in self.sequence:
                if not self._put(("batch", item)):
                    return
        except Exception as e:  # noqa: BLE001 - re-raised in the consumer by get()
            self._put(("error", e))
            return
        self._put(("done", None))
