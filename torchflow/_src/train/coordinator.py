"""``tf.train.Coordinator``: a stop flag and exception relay for a group of threads."""

from __future__ import annotations

import contextlib
import sys
import threading
import time

from torchflow._src.core import errors
from torchflow._src.util.api import public


@public("torchflow.train")
class Coordinator:
    """Coordinates the termination of a set of threads.

    Threads poll ``should_stop()``; any thread may ``request_stop(ex)``; ``join``
    waits for the registered threads and re-raises the first exception reported.

    >>> import torchflow as tf
    >>> coord = tf.train.Coordinator()
    >>> coord.request_stop()
    >>> coord.should_stop()
    True

    Args:
      clean_stop_exception_types: Exception types that ``request_stop(ex)`` treats
        as a clean stop (default ``(tf.errors.OutOfRangeError,)``).
    """

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads: set = set()

    def _as_exc_info(self, ex):
        """``ex`` as an ``(type, value, traceback)`` triple, or None for a clean stop."""
        if ex is None:
            return None
        info = ex if isinstance(ex, tuple) else (type(ex), ex, getattr(ex, "__traceback__",
                                                                       None))
        if len(info) != 3 or not isinstance(info[1], BaseException):
            raise ValueError(f"ex must be a tuple or sys.exc_info, got: {ex}")
        if isinstance(info[1], self._clean_stop_exception_types):
            return None
        return info

    def request_stop(self, ex=None) -> None:
        """Asks the threads to stop; ``ex`` (an exception or ``sys.exc_info()``) is
        re-raised by ``join`` unless it is a clean-stop type. After ``join``, a
        reported exception is raised at once."""
        with self._lock:
            info = self._as_exc_info(ex)
            if self._joined and info is not None:
                raise info[1]
            if info is not None and self._exc_info_to_raise is None \
                    and not self._stop_event.is_set():
                self._exc_info_to_raise = info
            self._stop_event.set()

    def clear_stop(self) -> None:
        """Clears the stop flag (and any recorded exception)."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            if self._stop_event.is_set():
                self._stop_event.clear()

    def should_stop(self) -> bool:
        """True once a stop was requested."""
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """A context that turns an exception raised inside it into ``request_stop(ex)``."""
        try:
            yield
        except:  # noqa: E722 - TF's contract: every exception is reported, then swallowed
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None) -> bool:
        """Waits up to ``timeout`` seconds for a stop request; True if one came."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread) -> None:
        """Adds ``thread`` to those ``join`` waits for."""
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for the threads to end once a stop was requested, then re-raises the
        first reported exception.

        Raises:
          RuntimeError: If threads are still alive ``stop_grace_period_secs`` after
            the stop request (and ``ignore_live_threads`` is False).
        """
        with self._lock:
            threads = set(self._registered_threads if threads is None else
                          list(threads) + list(self._registered_threads))
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        deadline = time.time() + stop_grace_period_secs
        stragglers = []
        for t in threads:
            t.join(max(0.0, deadline - time.time()))
            if t.is_alive():
                stragglers.append(t.name)
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                _, ex_instance, tb = self._exc_info_to_raise
                raise ex_instance.with_traceback(tb)
        if stragglers and not ignore_live_threads:
            raise RuntimeError("Coordinator stopped with threads still running: "
                               + " ".join(stragglers))

    @property
    def joined(self) -> bool:
        return self._joined

    def raise_requested_exception(self) -> None:
        """Raises the exception passed to ``request_stop``, if any."""
        with self._lock:
            if self._exc_info_to_raise:
                _, ex_instance, tb = self._exc_info_to_raise
                raise ex_instance.with_traceback(tb)
