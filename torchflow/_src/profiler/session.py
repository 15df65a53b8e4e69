"""``tf.profiler.experimental.start/stop/Profile/ProfilerOptions``: one profiling session.

At most one session runs per process (a local one, or one a profiler server started for
a remote ``client.trace``), as in TF. ``stop(save=True)`` writes TF's layout:
``logdir/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<host>.xplane.pb``.
"""

from __future__ import annotations

import collections
import datetime
import gc
import os
import socket
import threading
import time

from torchflow._src.core import errors
from torchflow._src.core import profiler_backend as backend
from torchflow._src.profiler import xspace as xspace_lib
from torchflow._src.util.api import public

_lock = threading.Lock()
_current: Session | None = None  # read without the lock by Trace (a plain attribute read)


@public("torchflow.profiler.experimental")
class ProfilerOptions(collections.namedtuple(
        "ProfilerOptions",
        ["host_tracer_level", "python_tracer_level", "device_tracer_level", "delay_ms"])):
    """Options for finer control over the profiler.

    Args:
      host_tracer_level: CPU tracing level. 1: only user ``Trace`` ranges (critical
        info); 2: also every op (info, the default); 3: verbose. 0 turns host tracing off.
      python_tracer_level: 1 traces Python function calls too (off by default: it is
        costly).
      device_tracer_level: 1 traces GPU kernels and copies when a GPU is present (the
        default); 0 turns it off.
      delay_ms: Requests the trace to begin this many milliseconds after ``start``
        (for ``client.trace``, after the request); ``None`` starts at once.

    >>> import torchflow as tf
    >>> tf.profiler.experimental.ProfilerOptions(host_tracer_level=3).host_tracer_level
    3
    """

    def __new__(cls, host_tracer_level=2, python_tracer_level=0, device_tracer_level=1,
                delay_ms=None):
        return super().__new__(cls, host_tracer_level, python_tracer_level,
                               device_tracer_level, delay_ms)


class Session:
    """A running capture and what the XSpace needs to know about it."""

    def __init__(self, options: ProfilerOptions | None, start_ns: int = 0):
        options = options if options is not None else ProfilerOptions()
        if not isinstance(options, ProfilerOptions):
            raise TypeError("options must be a tf.profiler.experimental.ProfilerOptions; "
                            f"Received: options={options!r}")
        self.options = options
        self.host_level = int(options.host_tracer_level or 0)
        self.user_names: set = set()
        self.marked = threading.local()
        delay_ns = int((options.delay_ms or 0) * 1_000_000)
        # TF's levels: 1 keeps the ranges only (Trace, tf.function, tf.data, ...), so
        # torch's ops are not recorded at all; 2 (the default) and 3 add every op.
        self.capture = backend.Capture(
            host_ops=self.host_level >= 2, python=bool(options.python_tracer_level),
            device=bool(options.device_tracer_level))
        self.capture.start()  # the first capture of a process takes ~1 s to set up
        # A remote capture asks for a common start time; events before it are dropped.
        self.start_ns = max(time.time_ns() + delay_ns, int(start_ns))
        self.stop_ns = self.start_ns

    def finish(self, hostname: str | None = None):
        """Stops the capture and returns its XSpace."""
        # The export makes a few objects per captured event; the garbage collector's
        # passes over the whole heap meanwhile (one per ~700 new objects, a full one now
        # and then) can cost more than the export itself, and find nothing to free.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._export(hostname)
        finally:
            if collecting:
                gc.enable()

    def _export(self, hostname: str | None):
        events = self.capture.stop()
        self.user_names |= backend.range_names()  # the library's own stages, by TF's names
        self.stop_ns = max(time.time_ns(), self.start_ns)
        if self.host_level <= 0:
            events = [e for e in events if e.device >= 0]
        elif self.host_level == 1 and self.options.python_tracer_level:
            # torch's host capture ran for the Python tracer: drop its ops, keep ranges
            events = [e for e in events if e.device >= 0 or e.name in self.user_names
                      or "#" in e.name or e.kind != backend.KIND_OP]
        return xspace_lib.build_xspace(  # line names from the threads' markers in events
            events, self.start_ns, self.stop_ns, hostname=hostname, user_names=self.user_names)


def begin(options: ProfilerOptions | None, start_ns: int = 0) -> Session:
    """Starts the process's one session (for ``start`` and the profiler server)."""
    global _current
    with _lock:
        if _current is not None:
            raise errors.AlreadyExistsError(None, None, "Another profiler is running.")
        _current = Session(options, start_ns)
        return _current


def warm_up() -> None:
    """Runs one empty capture, so the next starts at once (a profiler server does this).

    torch's profiler sets itself up on its first capture in a process (about a second);
    a remote capture that asked every task for one start time would lose that second.
    """
    with _lock:
        if _current is None:
            capture = backend.Capture(host_ops=True, python=False, device=True)
            capture.start()
            capture.stop()


def end(session: Session, hostname: str | None = None, collect: bool = True):
    """Ends ``session`` (if it is still the current one) and returns its XSpace.

    With ``collect=False`` the events are dropped unread (``stop(save=False)``: torch's
    capture still ends, but nothing is converted) and None is returned.
    """
    global _current
    with _lock:
        if _current is session:
            _current = None
    if not collect:
        session.capture.discard()
        return None
    return session.finish(hostname)


def run_dir(logdir: str) -> str:
    """``logdir/plugins/profile/<run>`` with TF's run name (the local time, to the second)."""
    run = datetime.datetime.now().strftime("%Y_%m_%d_%H_%M_%S")
    return os.path.join(os.fspath(logdir), "plugins", "profile", run)


_logdir: str | None = None


@public("torchflow.profiler.experimental")
def start(logdir, options=None):
    """Start profiling TensorFlow performance.

    Captures torch's CPU ops (and GPU kernels on a GPU) on every thread, plus the
    ranges of ``tf.profiler.experimental.Trace``, until ``stop()``.

    Args:
      logdir: Profiling results log directory.
      options: An optional ``tf.profiler.experimental.ProfilerOptions``.

    Raises:
      AlreadyExistsError: If a profiling session is already running.

    >>> import torchflow as tf, tempfile
    >>> tf.profiler.experimental.start(tempfile.mkdtemp())
    >>> tf.profiler.experimental.stop()
    """
    global _logdir
    begin(options)
    _logdir = os.fspath(logdir)


@public("torchflow.profiler.experimental")
def stop(save=True):
    """Stops the current profiling session.

    The profiler session will be stopped and profile results can be saved.

    Args:
      save: An optional variable to save the results to TensorBoard. Default True.

    Raises:
      UnavailableError: If there is no active profiling session.
    """
    global _logdir
    session, logdir = _current, _logdir
    if session is None or logdir is None:
        raise errors.UnavailableError(
            None, None, "Cannot export profiling results. No profiler is running.")
    _logdir = None
    hostname = socket.gethostname()
    space = end(session, hostname, collect=bool(save))
    if save:
        xspace_lib.write_xspace(space, run_dir(logdir), hostname)


@public("torchflow.profiler.experimental")
class Profile:
    """Context-manager profile API.

    Profiling will start when entering the scope, and stop and save the results to the
    logdir when exiting the scope. Open TensorBoard (or XProf) profile tab to view
    results.

    Args:
      logdir: profile data will save to this directory.
      options: An optional ``tf.profiler.experimental.ProfilerOptions``.

    >>> import torchflow as tf, tempfile
    >>> with tf.profiler.experimental.Profile(tempfile.mkdtemp()):
    ...   _ = tf.constant(1.) + 1.
    """

    def __init__(self, logdir, options=None):
        self._logdir = logdir
        self._options = options

    def __enter__(self):
        start(self._logdir, self._options)

    def __exit__(self, typ, value, tb):
        stop()
