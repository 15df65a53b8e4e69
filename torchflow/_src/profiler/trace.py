"""``tf.profiler.experimental.Trace``: a named range in the profile (TF's TraceMe)."""

from __future__ import annotations

import functools
import threading

from torchflow._src.core import profiler_backend as backend
from torchflow._src.profiler import session as session_lib
from torchflow._src.profiler import xspace as xspace_lib
from torchflow._src.util.api import public


@public("torchflow.profiler.experimental")
class Trace:
    """Context manager that generates a trace event in the profiler.

    A trace event will start when entering the context, and stop and save the result
    to the profiler when exiting the context. Open TensorBoard (or XProf) Profile tab
    and choose trace viewer to view the trace event in the timeline. Trace events are
    created only when the profiler is enabled; otherwise the context costs a flag read.

    Keyword arguments become the event's metadata (XStats). ``step_num`` with
    ``_r=1`` marks a training step, which XProf's overview page and step-time views
    group the ops inside it by::

      for step in range(num_steps):
        with tf.profiler.experimental.Trace("train", step_num=step, _r=1):
          train_fn()

    A ``Trace`` can also decorate a function: each call is one event.

    Args:
      name: The event name displayed in the trace viewer.
      **kwargs: Keyword arguments added to the trace event (``step_num``, ``_r``, ...).

    >>> import torchflow as tf
    >>> with tf.profiler.experimental.Trace("my_range", step_num=1, _r=1):
    ...   _ = tf.constant(2.) * 3.
    """

    __slots__ = ("_name", "_kwargs", "_range")

    def __init__(self, name, **kwargs):
        self._name = name
        self._kwargs = kwargs
        self._range = None

    def __enter__(self):
        session = session_lib._current
        if session is not None and session.host_level > 0:
            encoded = xspace_lib.encode_name(str(self._name), self._kwargs)
            session.user_names.add(encoded)
            if getattr(session.marked, "done", False) is not True:
                session.marked.done = True
                mark = xspace_lib.thread_mark(threading.current_thread().name)
                with backend.annotation(mark):
                    pass
            self._range = backend.annotation(encoded)
            self._range.__enter__()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if self._range is not None:
            self._range.__exit__(exc_type, exc_val, exc_tb)
            self._range = None

    def __call__(self, func):
        """Decorator use: every call of ``func`` runs inside a fresh ``Trace``."""
        name, kwargs = self._name, self._kwargs

        @functools.wraps(func)
        def traced(*args, **kw):
            with Trace(name, **kwargs):
                return func(*args, **kw)

        return traced
