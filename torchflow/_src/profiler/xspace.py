"""Captured events -> TF's XSpace (``<host>.xplane.pb``), in the layout XProf reads.

* Plane ``/host:CPU``: one line per host thread (id = torch's thread id, named after the
  Python thread when a ``Trace`` ran in it), events with shared ``XEventMetadata``.
* User ranges (``Trace``) keep TF's TraceMe encoding ``name#key=value,...#``: the event is
  named ``name`` and each key becomes an ``XStat`` (int64 when the value is an integer,
  double when a float, else a string), so ``Trace("train", step_num=3, _r=1)`` is the step
  marker XProf groups steps by (``step_num`` plus ``_r=1``, with ops nested inside it).
* Torch ops (``aten::mm``) are named in TF's ``name:Type`` form XProf's op statistics
  parse (``aten.mm:Mm``), with the torch name as ``display_name`` for the trace viewer.
* Planes ``/device:GPU:N``: one line per stream, kernels with a ``correlation_id`` stat
  matching their host launch.
"""

from __future__ import annotations

import functools
import os
import re
import socket
from collections.abc import Iterable

from torchflow._src.core import profiler_backend as backend
from torchflow._src.core.proto import xplane_pb2

HOST_PLANE = "/host:CPU"
_INT = re.compile(r"[+-]?\d+\Z")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?\Z")


def encode_name(name: str, kwargs: dict) -> str:
    """TF's TraceMe encoding: ``name#k1=v1,k2=v2#`` (just ``name`` without kwargs)."""
    if not kwargs:
        return name
    return name + "#" + ",".join(f"{k}={v}" for k, v in kwargs.items()) + "#"


def decode_name(encoded: str) -> tuple[str, list[tuple[str, str]]]:
    """Splits a TraceMe-encoded name into its name and ``(key, value)`` metadata."""
    if not encoded.endswith("#"):
        return encoded, []
    head, sep, body = encoded[:-1].partition("#")
    if not sep:
        return encoded, []
    pairs = []
    for item in body.split(","):
        key, eq, value = item.partition("=")
        if eq and key:
            pairs.append((key.strip(), value.strip()))
    return head, pairs


@functools.lru_cache(maxsize=4096)
def tf_op_name(torch_name: str) -> str:
    """``aten::addmm`` -> ``aten.addmm:Addmm``: TF's ``name:Type`` form for op statistics."""
    namespace, _, op = torch_name.rpartition("::")
    base = op.strip("_") or op
    type_name = "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", base))
    if not type_name or not (type_name[0].isalpha() or type_name[0] == "_"):
        type_name = "Op" + type_name
    name = f"{namespace.replace('::', '.')}.{op}" if namespace else op
    return f"{name.replace(':', '.')}:{type_name}"


class _PlaneBuilder:
    """Interns event and stat metadata of one XPlane."""

    def __init__(self, plane):
        self.plane = plane
        self._events: dict[str, int] = {}
        self._stats: dict[str, int] = {}

    def event_id(self, name: str, display_name: str = "") -> int:
        key = name + "\0" + display_name
        mid = self._events.get(key)
        if mid is None:
            mid = len(self._events) + 1
            self._events[key] = mid
            meta = self.plane.event_metadata[mid]
            meta.id = mid
            meta.name = name
            if display_name:
                meta.display_name = display_name
        return mid

    def stat_id(self, name: str) -> int:
        sid = self._stats.get(name)
        if sid is None:
            sid = len(self._stats) + 1
            self._stats[name] = sid
            meta = self.plane.stat_metadata[sid]
            meta.id = sid
            meta.name = name
        return sid

    def add_stat(self, owner, name: str, value) -> None:
        sid, field, typed = self.typed_stat(name, value)
        setattr(owner.stats.add(metadata_id=sid), field, typed)

    def typed_stat(self, name: str, value) -> tuple[int, str, object]:
        """``(stat id, XStat field, value)``: ints as int64, floats as double, else str."""
        sid = self.stat_id(name)
        if isinstance(value, bool):
            return sid, "int64_value", int(value)
        if isinstance(value, int):
            return sid, "int64_value", value
        if isinstance(value, float):
            return sid, "double_value", value
        if _INT.match(str(value)) and -2**63 <= int(value) < 2**63:
            return sid, "int64_value", int(value)
        if _FLOAT.match(str(value)):
            return sid, "double_value", float(value)
        return sid, "str_value", str(value)


def _sorted(events: list) -> list:
    # Parents before children: earlier start first, and at one start the longer event.
    return sorted(events, key=lambda e: (e[1], -e[2]))  # (start_ns, -duration_ns)


def _add_line(builder, line_id, name, start_ns, stop_ns, events, convert) -> None:
    line = builder.plane.lines.add(id=line_id, display_id=line_id, name=name,
                                   timestamp_ns=start_ns,
                                   duration_ps=max(0, stop_ns - start_ns) * 1000)
    for raw in _sorted(events):
        convert(line, raw, start_ns)


def build_xspace(events: Iterable[backend.RawEvent], start_ns: int, stop_ns: int,
                 hostname: str | None = None, user_names: set | frozenset = frozenset(),
                 thread_names: dict | None = None):
    """Builds the XSpace of one capture.

    Args:
      events: the capture's ``RawEvent``s.
      start_ns, stop_ns: the capture window (epoch ns); lines start at ``start_ns``.
      hostname: the host name recorded in the space (default: this machine's).
      user_names: the encoded names of user ranges (``Trace``) opened in the capture.
      thread_names: torch thread id -> Python thread name, for line names.
    Returns:
      An ``XSpace`` message.
    """
    hostname = hostname or socket.gethostname()
    thread_names = thread_names or {}
    space = xplane_pb2.XSpace(hostnames=[hostname])
    host = _PlaneBuilder(space.planes.add(id=0, name=HOST_PLANE))
    by_thread: dict[int, list] = {}
    by_device: dict[int, dict[int, list]] = {}
    for raw in events:
        if raw.start_ns < start_ns or raw.name.startswith(_THREAD_MARK):
            continue
        if raw.device >= 0:
            by_device.setdefault(raw.device, {}).setdefault(raw.thread, []).append(raw)
        else:
            by_thread.setdefault(raw.thread, []).append(raw)

    metas: dict = {}  # (name, kind) -> (metadata id, typed stats): one decode per name

    def host_meta(raw):
        stats = []
        if "#" in raw.name or raw.name in user_names or raw.kind == backend.KIND_PYTHON:
            name, pairs = decode_name(raw.name)
            mid = host.event_id(name)
            stats = [host.typed_stat(key, value) for key, value in pairs]
        elif raw.kind == backend.KIND_RUNTIME:
            mid = host.event_id(raw.name)
        else:
            mid = host.event_id(tf_op_name(raw.name), raw.name)
        return mid, stats

    for tid in sorted(by_thread):
        line = host.plane.lines.add(id=tid, display_id=tid,
                                    name=thread_names.get(tid, f"thread {tid}"),
                                    timestamp_ns=start_ns,
                                    duration_ps=max(0, stop_ns - start_ns) * 1000)
        add = line.events.add
        for raw in _sorted(by_thread[tid]):  # one tight loop: ~10^4 events per second of steps
            name, start, duration, _, _, kind, correlation = raw
            meta = metas.get((name, kind))
            if meta is None:
                meta = metas[(name, kind)] = host_meta(raw)
            mid, stats = meta
            event = add(metadata_id=mid, offset_ps=(start - start_ns) * 1000,
                        duration_ps=duration * 1000)
            for sid, field, value in stats:
                setattr(event.stats.add(metadata_id=sid), field, value)
            if correlation and kind == backend.KIND_RUNTIME:
                host.add_stat(event, "correlation_id", correlation)
    for index in sorted(by_device):
        device = _PlaneBuilder(space.planes.add(id=index + 1, name=f"/device:GPU:{index}"))

        def kernel_event(line, raw, origin, device=device):
            event = line.events.add(metadata_id=device.event_id(raw.name),
                                    offset_ps=(raw.start_ns - origin) * 1000,
                                    duration_ps=raw.duration_ns * 1000)
            if raw.correlation:
                device.add_stat(event, "correlation_id", raw.correlation)

        for stream in sorted(by_device[index]):
            _add_line(device, stream, f"Stream #{stream}", start_ns, stop_ns,
                      by_device[index][stream], kernel_event)
    return space


_THREAD_MARK = "__torchflow_thread#"


def thread_mark(name: str) -> str:
    """The name of the marker a thread records once per capture to name its line."""
    return _THREAD_MARK + "name=" + name.replace(",", " ").replace("#", " ") + "#"


def thread_names_from(events: Iterable[backend.RawEvent]) -> dict:
    """torch thread id -> Python thread name, from the markers in a capture."""
    names = {}
    for raw in events:
        if raw.name.startswith(_THREAD_MARK):
            names[raw.thread] = raw.name[len(_THREAD_MARK) + len("name="):-1]
    return names


def write_xspace(space, run_dir: str, hostname: str | None = None) -> str:
    """Writes ``run_dir/<host>.xplane.pb`` (making ``run_dir``) and returns its path."""
    os.makedirs(run_dir, exist_ok=True)
    host = (hostname or socket.gethostname()).replace(":", "_").replace("/", "_")
    path = os.path.join(run_dir, host + ".xplane.pb")
    with open(path, "wb") as f:
        f.write(space.SerializeToString())
    return path
