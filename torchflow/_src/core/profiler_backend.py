"""The torch.profiler adapter under ``tf.profiler``: start and stop a capture, annotate ranges.

The profiler layer (``_src/profiler``) speaks only this module: ``Capture`` runs one
torch (kineto) profiler over every thread (``profile_all_threads``) and hands back plain
``RawEvent`` tuples in epoch nanoseconds (kineto's clock is ``time.time_ns``'s), which
the profiler layer turns into TF's XSpace. ``annotation(name)`` is the range a
``tf.profiler.experimental.Trace`` opens: a ``_RecordFunctionFast`` (about 0.6 us while a
capture runs), so user ranges and torch's ops land in one stream, nested on the same
thread line, as XProf needs to find a step's ops inside its step event.

What a capture costs is set by what it records (TF's ``host_tracer_level``): with
``host_ops`` every aten op is one event (about 0.4 us while the step runs and 2-4 us more
when ``stop`` collects it); without, torch records only the library's own ranges
(``Trace``, ``host_range``, ``function_call``) and the ops cost nothing.

Hooks for layers below the profiler (one global read when no capture runs):

* ``host_range(name)``: a named stage (tf.data's ``Iterator::...``, checkpoint writes).
* ``function_call(name, tracing_count)``: one ``tf.function`` call, recorded as TF's
  ``trace.Trace(function_name)`` with ``tf_function_call=traced-nonXla|notTraced-nonXla``
  and ``tracing_count`` (known only once the call returns).
* ``collective(op_type, ...)``: one collective, as TF's kernel event
  ``CollectiveReduceV2:CollectiveReduceV2`` with its stats.
* ``late_range(name, **stats)``: a range whose stats grow until it ends (``add``): an
  RPC's response size, known only once it returns.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from typing import Callable, NamedTuple

import torch
from torch._C._profiler import _ExperimentalConfig, _RecordFunctionFast

__all__ = ["RawEvent", "Capture", "active", "annotation", "host_range", "function_call",
           "collective", "late_range", "range_names", "gpu_available"]

KIND_OP = "op"              # a torch (aten) op or a user range on a host thread
KIND_PYTHON = "python"      # a Python function (python tracer)
KIND_RUNTIME = "runtime"    # a CUDA runtime call on the host (cudaLaunchKernel, ...)
KIND_KERNEL = "kernel"      # a kernel, memcpy or memset on a GPU stream

# kineto's activity names -> our kinds (one string compare per event instead of three calls)
_KINDS = {"cpu_op": KIND_OP, "user_annotation": KIND_OP, "python_function": KIND_PYTHON,
          "cuda_runtime": KIND_RUNTIME, "cuda_driver": KIND_RUNTIME,
          "privateuse1_runtime": KIND_RUNTIME, "privateuse1_driver": KIND_RUNTIME,
          "kernel": KIND_KERNEL, "gpu_memcpy": KIND_KERNEL, "gpu_memset": KIND_KERNEL,
          "concurrent_kernel": KIND_KERNEL, "gpu_user_annotation": KIND_KERNEL}


class RawEvent(NamedTuple):
    """One captured event: epoch start and duration in ns, where it ran, what it was."""

    name: str
    start_ns: int
    duration_ns: int
    thread: int          # torch's host thread id, or the stream id of a GPU event
    device: int          # -1 on the host, else the GPU index
    kind: str
    correlation: int     # links a kernel to its host launch (0 when none)


def gpu_available() -> bool:
    """Whether torch sees a CUDA device (device tracing is possible)."""
    return bool(torch.cuda.is_available())


class _PyRange:
    """A range kept in Python (captures without torch's host ops): name, epoch ns, thread."""

    __slots__ = ("_name", "_start")

    def __init__(self, name: str):
        self._name = name

    def __enter__(self):
        self._start = time.time_ns()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _py_events.append((self._name, self._start, time.time_ns(), threading.get_native_id()))


def annotation(name: str):
    """A context manager recording ``name`` as a range in the running capture."""
    return _RecordFunctionFast(name) if _torch_ranges else _PyRange(name)


_active = 0                   # captures running in this process (0 or 1)
_torch_ranges = True          # ranges go to torch's capture (else to _py_events)
_py_events: list = []         # (name, start_ns, end_ns, native thread id) of _PyRange
_range_names: set = set()     # names host_range recorded in the running capture
_NULL = contextlib.nullcontext()


def active() -> bool:
    """Whether a capture is running (for hooks that build their event names only then)."""
    return _active > 0


def host_range(name: str):
    """A named host event (TF's TraceMe) for the library's own stages, cheap when idle.

    For layers below the profiler (tf.data's ``Iterator::GetNext``, collectives,
    checkpoint writes): with no capture running it returns a shared no-op context
    (one global read); during one it records ``name`` (TraceMe-encoded metadata
    ``name#key=value#`` allowed) under exactly that name in the XSpace, where XProf
    looks for TF's names.
    """
    if not _active:
        return _NULL
    _range_names.add(name)
    return _RecordFunctionFast(name) if _torch_ranges else _PyRange(name)


# TF's CollectiveParams type: what the ``collective`` stat of a collective's event says
COLLECTIVE_KINDS = {"CollectiveReduceV2": 0, "CollectiveBcastSendV2": 1,
                    "CollectiveBcastRecvV2": 1, "CollectiveGatherV2": 2}


def collective(op_type: str, nbytes: int, group_size: int, group_key: int,
               instance_key: int):
    """The event of one collective, as TF's kernel records it (cheap when idle).

    Named ``op_type:op_type`` (TF's ``name:type`` of the op, which XProf's op statistics
    parse) with TF's stats ``instance_key``, ``group_key`` and ``collective`` (0
    reduce, 1 broadcast, 2 gather), plus ``group_size`` (TF puts it on the event of
    the group's resolution) and ``bytes``, the size of this task's input.
    """
    if not _active:
        return _NULL
    name = (f"{op_type}:{op_type}#instance_key={instance_key},group_key={group_key},"
            f"collective={COLLECTIVE_KINDS.get(op_type, 0)},group_size={group_size},"
            f"bytes={nbytes}#")
    return _RecordFunctionFast(name) if _torch_ranges else _PyRange(name)


_LATE_KEY = "_tf_late_id"
_late_ids = itertools.count(1)
_late: dict = {}              # late id -> its _LateRange (stats read at stop)


class _LateRange:
    __slots__ = ("_name", "stats", "_id", "_range")

    def __init__(self, name: str, stats: dict):
        self._name = name
        self.stats = stats

    def add(self, key: str, value) -> None:
        """Adds (or replaces) a stat of the event before it ends."""
        self.stats[key] = value

    def __enter__(self):
        self._id = next(_late_ids)
        _late[self._id] = self
        self._range = annotation(f"{self._name}#{_LATE_KEY}={self._id}#")
        self._range.__enter__()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self._range.__exit__(exc_type, exc_val, exc_tb)


class _NullLate:
    __slots__ = ()

    def add(self, key, value) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return None


_NULL_LATE = _NullLate()


def late_range(name: str, **stats):
    """A host event whose stats may be added until it ends, cheap when idle.

    ``with late_range("rpc::VarRead", bytes_sent=n) as ev: ...; ev.add("bytes_received",
    m)``: idle, a shared no-op (one global read; ``add`` does nothing); during a capture,
    an event named ``name`` with the stats it had when it ended (TF's TraceMe stats,
    ``name#k=v,...#``).
    """
    if not _active:
        return _NULL_LATE
    return _LateRange(name, stats)


_FC_KEY = "_tf_function_call_id"
_call_ids = itertools.count(1)
_call_stats: dict = {}        # call id -> (mode, tracing_count), filled as calls return


class _FunctionCall:
    __slots__ = ("_name", "_count", "_before", "_id", "_range")

    def __init__(self, name: str, count: Callable[[], int] | None):
        self._name = name
        self._count = count

    def __enter__(self):
        self._before = self._count() if self._count is not None else None
        self._id = next(_call_ids)
        self._range = annotation(f"{self._name}#{_FC_KEY}={self._id}#")
        self._range.__enter__()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self._range.__exit__(exc_type, exc_val, exc_tb)
        if self._count is None:
            _call_stats[self._id] = ("eager", None)
            return
        count = self._count()
        mode = "notTraced" if count == self._before else "traced"
        _call_stats[self._id] = (mode + "-nonXla", count)


def function_call(name: str, tracing_count: Callable[[], int] | None):
    """The event of one ``tf.function`` call, as TF's ``Function.__call__`` records it.

    ``with profiler_backend.function_call(self.__name__, self.experimental_get_tracing_count):``
    around the call: idle, a shared no-op context (one global read, ``tracing_count``
    never called); during a capture, an event named ``name`` with TF's stats
    ``tf_function_call`` (``"traced-nonXla"`` when the call traced, else
    ``"notTraced-nonXla"``) and ``tracing_count`` (the count after the call).
    ``tracing_count=None`` is a call under ``tf.config.run_functions_eagerly(True)``:
    TF's ``tf_function_call="eager"`` alone.
    """
    if not _active:
        return _NULL
    return _FunctionCall(name, tracing_count)


def _resolve(name: str) -> str:
    # "f#_tf_function_call_id=7#" -> "f#tf_function_call=traced-nonXla,tracing_count=1#"
    # "rpc::VarRead#_tf_late_id=3#" -> "rpc::VarRead#bytes_sent=10,bytes_received=99#"
    head, _, rest = name.partition("#" + _LATE_KEY + "=")
    if rest:
        late = _late.get(int(rest[:-1]) if rest[:-1].isdigit() else -1)
        if late is None or not late.stats:
            return head
        return head + "#" + ",".join(f"{k}={v}" for k, v in late.stats.items()) + "#"
    head, _, rest = name.partition("#" + _FC_KEY + "=")
    stats = _call_stats.get(int(rest[:-1]) if rest[:-1].isdigit() else -1)
    if stats is None:  # still running when the capture stopped
        return head
    if stats[1] is None:
        return f"{head}#tf_function_call={stats[0]}#"
    return f"{head}#tf_function_call={stats[0]},tracing_count={stats[1]}#"


def range_names() -> frozenset:
    """The names ``host_range`` recorded since the running (or last) capture began."""
    return frozenset(_range_names)


class Capture:
    """One capture across all threads.

    Args:
      host_ops: record torch's CPU ops. Without them (and without ``python``) no torch
        profiler runs on the host: the library's and the user's ranges are kept in
        Python (about 0.5 us each) and torch's ops cost nothing.
      python: record Python function calls too (``with_stack``).
      device: record CUDA kernels and copies when a GPU is present.
    """

    def __init__(self, host_ops: bool = True, python: bool = False, device: bool = True):
        self.device = bool(device and gpu_available())
        self._torch_host = bool(host_ops or python)
        activities = set()
        if self._torch_host:
            activities.add(torch.autograd.ProfilerActivity.CPU)
        if self.device:
            activities.add(torch.autograd.ProfilerActivity.CUDA)
        self._profile = None
        if activities:
            self._profile = torch.autograd.profiler.profile(
                use_kineto=True, with_stack=bool(python),
                experimental_config=_ExperimentalConfig(profile_all_threads=True))
            self._profile.kineto_activities = activities
        self._started = False

    def start(self) -> None:
        global _active, _torch_ranges
        if self._profile is not None:
            self._profile._prepare_trace()
            self._profile._start_trace()
        self._started = True
        _range_names.clear()
        _call_stats.clear()
        _late.clear()
        _py_events.clear()
        _torch_ranges = self._torch_host
        _active += 1

    def _disable(self):
        global _active
        self._started = False
        _active -= 1
        if self._profile is None:
            return None
        if self.device:
            torch.cuda.synchronize()
        return torch.autograd._disable_profiler()

    def discard(self) -> None:
        """Stops the capture without collecting its events (``stop(save=False)``)."""
        if self._started:
            self._disable()
            _py_events.clear()

    def stop(self) -> list[RawEvent]:
        """Stops the capture and returns its events (an empty list if it never started)."""
        if not self._started:
            return []
        return self.convert(self._disable())

    def convert(self, results) -> list[RawEvent]:
        """The ``RawEvent``s of a stopped capture's kineto results (and Python ranges)."""
        out = []
        append = out.append
        new = tuple.__new__  # a RawEvent without NamedTuple's Python-level __new__
        fc_mark = "#_tf_"  # _FC_KEY's and _LATE_KEY's events, resolved now
        for name, start, end, tid in _py_events:
            if fc_mark in name:
                name = _resolve(name)
            append(new(RawEvent, (name, start, end - start, tid, -1, KIND_OP, 0)))
        _py_events.clear()
        kinds = _KINDS
        for event in results.events() if results is not None else ():
            kind = kinds.get(event.activity_type())
            if kind is None:
                continue  # kineto's own markers (memory, overhead, ...)
            name = event.name()
            if kind is KIND_OP:
                if fc_mark in name:
                    name = _resolve(name)
                append(new(RawEvent, (name, event.start_ns(), event.duration_ns(),
                                      event.start_thread_id(), -1, kind, 0)))
            elif kind is KIND_KERNEL:
                append(new(RawEvent, (name, event.start_ns(), event.duration_ns(),
                                      event.device_resource_id(), event.device_index(), kind,
                                      event.correlation_id())))
            else:
                append(new(RawEvent, (name, event.start_ns(), event.duration_ns(),
                                      event.start_thread_id(), -1, kind,
                                      event.correlation_id() if kind is KIND_RUNTIME else 0)))
        return out
