"""The torch.profiler adapter under ``tf.profiler``: start and stop a capture, annotate ranges.

The profiler layer (``_src/profiler``) speaks only this module: ``Capture`` runs one
``torch.profiler.profile`` over every thread (``profile_all_threads``) and hands back plain
``RawEvent`` tuples in epoch nanoseconds (kineto's clock is ``time.time_ns``'s), which
the profiler layer turns into TF's XSpace. ``annotation(name)`` is the range a
``tf.profiler.experimental.Trace`` opens: a ``_RecordFunctionFast`` (about 0.6 us while a
capture runs), so user ranges and torch's ops land in one stream, nested on the same
thread line, as XProf needs to find a step's ops inside its step event.
"""

from __future__ import annotations

import contextlib
from typing import NamedTuple

import torch
from torch._C._profiler import _ExperimentalConfig, _RecordFunctionFast
from torch.profiler import ProfilerActivity, profile

__all__ = ["RawEvent", "Capture", "annotation", "host_range", "range_names", "gpu_available"]

KIND_OP = "op"              # a torch (aten) op or a user range on a host thread
KIND_PYTHON = "python"      # a Python function (python tracer)
KIND_RUNTIME = "runtime"    # a CUDA runtime call on the host (cudaLaunchKernel, ...)
KIND_KERNEL = "kernel"      # a kernel, memcpy or memset on a GPU stream


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


def annotation(name: str) -> _RecordFunctionFast:
    """A context manager recording ``name`` as a range in the running capture."""
    return _RecordFunctionFast(name)


_active = 0                   # captures running in this process (0 or 1)
_range_names: set = set()     # names host_range recorded in the running capture
_NULL = contextlib.nullcontext()


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
    return _RecordFunctionFast(name)


def range_names() -> frozenset:
    """The names ``host_range`` recorded since the running (or last) capture began."""
    return frozenset(_range_names)


def _kind(event) -> str | None:
    activity = str(event.activity_type())
    if event.device_type() != torch.autograd.DeviceType.CPU:
        return KIND_KERNEL
    if activity == "python_function":
        return KIND_PYTHON
    if activity in ("cpu_op", "user_annotation"):
        return KIND_OP
    if "runtime" in activity or "driver" in activity:
        return KIND_RUNTIME
    return None  # kineto's own markers (memory, overhead, ...)


class Capture:
    """One torch.profiler capture across all threads.

    Args:
      host_ops: record torch's CPU ops and user ranges.
      python: record Python function calls too (``with_stack``).
      device: record CUDA kernels and copies when a GPU is present.
    """

    def __init__(self, host_ops: bool = True, python: bool = False, device: bool = True):
        activities = [ProfilerActivity.CPU]
        self.device = bool(device and gpu_available())
        if self.device:
            activities.append(ProfilerActivity.CUDA)
        self._profile = profile(
            activities=activities, with_stack=bool(python),
            experimental_config=_ExperimentalConfig(profile_all_threads=True))
        self._started = False

    def start(self) -> None:
        global _active
        self._profile.start()
        self._started = True
        _range_names.clear()
        _active += 1

    def stop(self) -> list[RawEvent]:
        """Stops the capture and returns its events (an empty list if it never started)."""
        global _active
        if not self._started:
            return []
        self._started = False
        _active -= 1
        self._profile.stop()
        results = self._profile.profiler.kineto_results if self._profile.profiler else None
        if results is None:
            return []
        out = []
        for event in results.events():
            kind = _kind(event)
            if kind is None:
                continue
            on_gpu = kind == KIND_KERNEL
            out.append(RawEvent(
                event.name(), int(event.start_ns()), int(event.duration_ns()),
                int(event.device_resource_id() if on_gpu else event.start_thread_id()),
                int(event.device_index()) if on_gpu else -1, kind,
                int(event.correlation_id() or 0)))
        return out
