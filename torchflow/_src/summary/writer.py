"""Summary writers: ``tf.summary.create_file_writer`` and the default-writer stack.

Event files are TFRecord files of ``Event`` protos (``tensorboard.compat.proto``),
written here: TensorBoard reads them as it reads TensorFlow's. The ``tensorboard``
package's own ``EventFileWriter`` is not used: it opens files through
``tensorboard.compat.tf``, which imports TensorFlow where it is installed.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import socket
import struct
import threading
import time

from tensorboard.compat.proto import event_pb2

from torchflow._src.core import context
from torchflow._src.ops.io_ops import masked_crc32c
from torchflow._src.util.api import public

_counter = itertools.count()


class EventFile:
    """Appends ``Event`` records to one ``events.out.tfevents.*`` file.

    Events are queued and written when ``max_queue`` are waiting, when
    ``flush_secs`` have passed since the last write, and on ``flush``/``close``
    (TF's writer does the same from a thread; here the check runs at each event).
    """

    def __init__(self, logdir, max_queue, flush_secs, filename_suffix):
        now = time.time()
        name = (f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}."
                f"{os.getpid()}.{next(_counter)}{filename_suffix}")
        self.path = os.path.join(logdir, name)
        self._f = open(self.path, "wb")
        self._queue: list = []
        self._max = max_queue
        self._secs = flush_secs
        self._last = now
        self._lock = threading.Lock()
        self.add_event(event_pb2.Event(wall_time=now, file_version="brain.Event:2"))
        self.flush()

    def add_event(self, event) -> None:
        data = event.SerializeToString()
        n = struct.pack("<Q", len(data))
        record = (n + struct.pack("<I", masked_crc32c(n)) + data +
                  struct.pack("<I", masked_crc32c(data)))
        with self._lock:
            self._queue.append(record)
            due = len(self._queue) >= self._max or time.time() - self._last >= self._secs
        if due:
            self.flush()

    def flush(self) -> None:
        with self._lock:
            if self._f.closed:
                return
            if self._queue:
                self._f.write(b"".join(self._queue))
                self._queue.clear()
            self._f.flush()
            self._last = time.time()

    def close(self) -> None:
        self.flush()
        with self._lock:
            self._f.close()


@public("torchflow.summary")
class SummaryWriter:
    """Writes summaries to an event file (what ``create_file_writer`` returns).

    Use ``with writer.as_default():`` (or ``writer.set_as_default()``) so that
    ``tf.summary.scalar`` and friends write through it. TensorBoard reads the file.

    Args:
      logdir: str, the directory of the event file (created if missing).
      max_queue: None (10) or an int: how many events are buffered before a write.
      flush_millis: None (120,000) or an int: the longest time between flushes, in ms.
      filename_suffix: None (``".v2"``) or a str appended to the event file's name.
    """

    def __init__(self, logdir, max_queue=None, flush_millis=None, filename_suffix=None):
        self._logdir = os.fspath(logdir)
        os.makedirs(self._logdir, exist_ok=True)
        suffix = filename_suffix if filename_suffix is not None else ".v2"
        self._writer = EventFile(
            self._logdir,
            max_queue=10 if max_queue is None else max(1, int(max_queue)),
            flush_secs=120 if flush_millis is None else max(0.001, flush_millis / 1000.0),
            filename_suffix=suffix)
        self._closed = False

    @property
    def logdir(self) -> str:
        return self._logdir

    def add_event(self, event) -> None:
        if self._closed:
            raise RuntimeError("tf.summary: the SummaryWriter was closed")
        self._writer.add_event(event)

    def set_as_default(self, step=None) -> None:
        """Makes this the default writer for this thread (until replaced)."""
        st = context.thread_state()
        st.summary_writer = self
        if step is not None:
            st.summary_step = step

    @contextlib.contextmanager
    def as_default(self, step=None):
        """A context in which this is the default writer (and ``step`` the default step)."""
        st = context.thread_state()
        old_writer, old_step = st.summary_writer, st.summary_step
        st.summary_writer = self
        if step is not None:
            st.summary_step = step
        try:
            yield self
        finally:
            if not self._closed:
                self.flush()
            st.summary_writer, st.summary_step = old_writer, old_step

    def init(self):
        return None

    def flush(self) -> None:
        """Writes buffered events to disk."""
        if not self._closed:
            self._writer.flush()

    def close(self) -> None:
        """Flushes and closes the event file; later writes raise."""
        if not self._closed:
            self._writer.close()
            self._closed = True


class _NoopWriter(SummaryWriter):
    def __init__(self):
        self._closed = False

    def add_event(self, event) -> None:
        return None

    def flush(self) -> None:
        return None

    def close(self) -> None:
        return None


@public("torchflow.summary")
def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                       name=None) -> SummaryWriter:
    """Creates a summary writer for ``logdir`` (made if missing).

    Args:
      logdir: Directory for the event file.
      max_queue: Events buffered before a flush (default 10).
      flush_millis: Longest time between flushes (default 120000).
      filename_suffix: Suffix of the event file name (default ``.v2``).
      name: Unused.

    Returns:
      A ``SummaryWriter``.
    """
    return SummaryWriter(logdir, max_queue, flush_millis, filename_suffix)


@public("torchflow.summary")
def create_noop_writer() -> SummaryWriter:
    """A writer that writes nothing.

    ``with tf.summary.create_noop_writer().as_default():`` turns summaries off for a
    block, e.g. on the non-chief workers of a cluster.

    Returns:
      A ``SummaryWriter`` whose summaries are dropped.
    """
    return _NoopWriter()


def default_writer():
    return context.thread_state().summary_writer
