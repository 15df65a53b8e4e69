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

import numpy as np

from torchflow._src.core import profiler_backend as backend
from torchflow._src.core.proto import xplane_pb2
from torchflow._src.profiler import xline_encode

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


class _Columns:
    """A capture's events as columns, sorted by line, then start, then longest first.

    Each distinct ``(name, kind)`` gets a code once (a few hundred per capture), so the
    per-event work is NumPy's; the thread-name markers are found among the codes.
    """

    def __init__(self, events: list, start_ns: int):
        names, starts, durations, threads, devices, kinds, correlations = zip(*events)
        keys = list(zip(names, kinds))
        code_of = {key: i for i, key in enumerate(dict.fromkeys(keys))}
        self.keys = list(code_of)
        codes = np.array(list(map(code_of.__getitem__, keys)), np.int64)
        start = np.array(starts, np.int64)
        duration = np.array(durations, np.int64)
        # torch's thread ids may not fit an int64: lines sort by a code in their order
        thread_code = {t: i for i, t in enumerate(sorted(set(threads)))}
        self.thread_of = list(thread_code)
        thread = np.array(list(map(thread_code.__getitem__, threads)), np.int64)
        device = np.array(devices, np.int64)
        marks = [c for c, (name, _) in enumerate(self.keys) if name.startswith(_THREAD_MARK)]
        is_mark = np.isin(codes, marks)
        self.thread_names = {threads[i]: names[i][len(_THREAD_MARK) + len("name="):-1]
                             for i in np.nonzero(is_mark)[0].tolist()}
        sel = np.nonzero((start >= start_ns) & ~is_mark)[0]
        # Parents before children: earlier start first, and at one start the longer event.
        order = sel[np.lexsort((-duration[sel], start[sel], thread[sel], device[sel]))]
        self.codes = codes[order]
        self.start, self.duration = start[order], duration[order]
        self.correlation = np.array(correlations, np.int64)[order]
        line_keys = np.stack([device[order], thread[order]], axis=1)
        cut = np.nonzero(np.any(line_keys[1:] != line_keys[:-1], axis=1))[0] + 1
        los, his = [0, *cut.tolist()], [*cut.tolist(), len(order)]
        self.lines = [(int(line_keys[lo, 0]), self.thread_of[int(line_keys[lo, 1])], lo, hi)
                      for lo, hi in zip(los, his) if hi > lo]

    def fill(self, plane: _PlaneMetas, line, lo: int, hi: int, start_ns: int) -> None:
        """Appends rows ``lo:hi`` to ``line``, encoded in bulk (metadata made in order of
        first use, as an event-by-event loop makes it)."""
        codes = self.codes[lo:hi]
        uniq, first = np.unique(codes, return_index=True)
        for code in uniq[np.argsort(first, kind="stable")].tolist():
            plane.position(code, self.keys[code])
        corr = self.correlation[lo:hi]
        has_corr = bool(corr.any())
        line.MergeFromString(xline_encode.encode_events(
            plane.lookup(len(self.keys))[codes], np.array(plane.meta_ids, np.int64),
            plane.blobs, (self.start[lo:hi] - start_ns) * 1000, self.duration[lo:hi] * 1000,
            corr if has_corr else None,
            plane.builder.stat_id("correlation_id") if has_corr else 0))


class _PlaneMetas:
    """One plane's event metadata by code: its id and its encoded stats."""

    def __init__(self, builder: _PlaneBuilder, meta_of):
        self.builder = builder
        self._meta_of = meta_of  # (name, kind) -> (metadata id, typed stats)
        self._positions: dict[int, int] = {}
        self.meta_ids: list[int] = []
        self.blobs: list[bytes] = []

    def position(self, code: int, key) -> int:
        pos = self._positions.get(code)
        if pos is None:
            mid, stats = self._meta_of(*key)
            pos = self._positions[code] = len(self.meta_ids)
            self.meta_ids.append(mid)
            self.blobs.append(b"".join(xline_encode.stat_bytes(*stat) for stat in stats))
        return pos

    def lookup(self, n_codes: int) -> np.ndarray:
        table = np.zeros(n_codes, np.int64)
        if self._positions:
            table[list(self._positions)] = list(self._positions.values())
        return table


def build_xspace(events: Iterable[backend.RawEvent], start_ns: int, stop_ns: int,
                 hostname: str | None = None, user_names: set | frozenset = frozenset(),
                 thread_names: dict | None = None):
    """Builds the XSpace of one capture.

    Args:
      events: the capture's ``RawEvent``s.
      start_ns, stop_ns: the capture window (epoch ns); lines start at ``start_ns``.
      hostname: the host name recorded in the space (default: this machine's).
      user_names: the encoded names of user ranges (``Trace``) opened in the capture.
      thread_names: torch thread id -> Python thread name, for line names (default:
        from the markers among ``events``, as ``thread_names_from`` finds them).
    Returns:
      An ``XSpace`` message.
    """
    hostname = hostname or socket.gethostname()
    space = xplane_pb2.XSpace(hostnames=[hostname])
    host = _PlaneBuilder(space.planes.add(id=0, name=HOST_PLANE))
    events = events if isinstance(events, list) else list(events)
    if not events:
        return space

    def host_meta(name, kind):
        if "#" in name or name in user_names or kind == backend.KIND_PYTHON:
            name, pairs = decode_name(name)
            return host.event_id(name), [host.typed_stat(k, v) for k, v in pairs]
        if kind == backend.KIND_RUNTIME:
            return host.event_id(name), []
        return host.event_id(tf_op_name(name), name), []

    window_ps = max(0, stop_ns - start_ns) * 1000
    columns = _Columns(events, start_ns)
    if thread_names is None:
        thread_names = columns.thread_names
    host_metas = _PlaneMetas(host, host_meta)
    devices: dict = {}
    for device, thread, lo, hi in columns.lines:
        if device < 0:
            line = host.plane.lines.add(id=thread, display_id=thread,
                                        name=thread_names.get(thread, f"thread {thread}"),
                                        timestamp_ns=start_ns, duration_ps=window_ps)
            columns.fill(host_metas, line, lo, hi, start_ns)
            continue
        metas = devices.get(device)
        if metas is None:
            plane = _PlaneBuilder(space.planes.add(id=device + 1, name=f"/device:GPU:{device}"))
            metas = devices[device] = _PlaneMetas(
                plane, lambda name, kind, plane=plane: (plane.event_id(name), []))
        line = metas.builder.plane.lines.add(id=thread, display_id=thread,
                                             name=f"Stream #{thread}", timestamp_ns=start_ns,
                                             duration_ps=window_ps)
        columns.fill(metas, line, lo, hi, start_ns)
    return space


_THREAD_MARK = "__torchflow_thread#"


def thread_mark(name: str) -> str:
    """The name of the marker a thread records once per capture to name its line."""
    return _THREAD_MARK + "name=" + name.replace(",", " ").replace("#", " ") + "#"


def thread_names_from(events: Iterable[backend.RawEvent]) -> dict:
    """torch thread id -> Python thread name, from the markers in a capture."""
    names = {}
    mark = _THREAD_MARK
    for raw in events:
        if raw[0].startswith(mark):  # raw.name (an index is cheaper than the property)
            names[raw[3]] = raw[0][len(mark) + len("name="):-1]
    return names


def write_xspace(space, run_dir: str, hostname: str | None = None) -> str:
    """Writes ``run_dir/<host>.xplane.pb`` (making ``run_dir``) and returns its path."""
    os.makedirs(run_dir, exist_ok=True)
    host = (hostname or socket.gethostname()).replace(":", "_").replace("/", "_")
    path = os.path.join(run_dir, host + ".xplane.pb")
    with open(path, "wb") as f:
        f.write(space.SerializeToString())
    return path
