"""``tf.profiler.experimental.server.start``: TF's profiler gRPC service in this process.

A ``Profile`` call (from ``client.trace`` here or in TF, or XProf's "capture profile")
runs a profiling session for ``duration_ms`` (from ``opts.start_timestamp_ns`` when the
caller set one, so several tasks cover one window) and returns the XSpace in the reply,
as ``tool_data`` named ``xplane.pb``: the caller writes the files, so no filesystem is
shared with the workers. ``Terminate`` ends a running capture early; ``Monitor`` answers
a one-line utilization summary.
"""

from __future__ import annotations

import socket
import threading
import time

from torchflow._src.core import errors, profiler_rpc
from torchflow._src.core.proto import profiler_service_pb2 as pb
from torchflow._src.profiler import session as session_lib
from torchflow._src.util.api import public

_MAX_WAIT_S = 120.0  # the longest a request may ask us to wait for its start time
_servers: list = []  # live until the process ends, as TF's
_terminate = threading.Event()


def _options_from(request) -> session_lib.ProfilerOptions:
    if not request.HasField("opts") or request.opts.version == 0:
        return session_lib.ProfilerOptions()
    o = request.opts
    return session_lib.ProfilerOptions(host_tracer_level=o.host_tracer_level,
                                       python_tracer_level=o.python_tracer_level,
                                       device_tracer_level=o.device_tracer_level)


def _profile(request):
    duration_ms = request.duration_ms or request.opts.duration_ms
    if duration_ms <= 0:
        raise errors.InvalidArgumentError(None, None, "duration_ms must be greater than zero.")
    start_ns = request.opts.start_timestamp_ns
    wait_s = (start_ns - time.time_ns()) / 1e9 if start_ns else 0.0
    if wait_s > _MAX_WAIT_S:
        raise errors.InvalidArgumentError(
            None, None, f"start_timestamp_ns is {wait_s:.0f} s ahead; at most "
            f"{_MAX_WAIT_S:.0f} s is accepted.")
    _terminate.clear()
    # AlreadyExistsError if a session runs; begun before the start time, so that the
    # capture is running when the common window opens.
    session = session_lib.begin(_options_from(request), start_ns)
    try:
        _terminate.wait(max(0.0, (session.start_ns - time.time_ns()) / 1e9)
                        + duration_ms / 1000.0)
    finally:
        space = session_lib.end(session, socket.gethostname())
    empty = not any(line.events for plane in space.planes for line in plane.lines)
    return pb.ProfileResponse(
        tool_data=[pb.ProfileToolData(name="xplane.pb", data=space.SerializeToString())],
        empty_trace=empty)


def _terminate_call(request):
    _terminate.set()
    return pb.TerminateResponse()


def _monitor(request):
    duration_s = max(request.duration_ms, 1) / 1000.0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    time.sleep(duration_s)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    text = f"CPU utilization (this process): {100.0 * cpu / wall:.1f}%"
    if request.monitoring_level >= 2:
        text += "\nProfiling session active: " + ("yes" if session_lib._current else "no")
    if request.timestamp:
        text = time.strftime("%H:%M:%S ") + text
    return pb.MonitorResponse(data=text)


@public("torchflow.profiler.experimental.server")
def start(port):
    """Start a profiler grpc server that listens to given port.

    The profiler server will exit when the process finishes. The service is defined in
    TF's ``profiler_service.proto``, so TF's ``client.trace``, TensorBoard's and XProf's
    capture tools can profile this process.

    Args:
      port: port profiler server listens to.

    Raises:
      UnavailableError: If the port cannot be bound.

    Example usage: ::

      tf.profiler.experimental.server.start(6009)
      # do your training here.
    """
    handlers = {"Profile": _profile, "Terminate": _terminate_call, "Monitor": _monitor}
    try:
        server = profiler_rpc.Server(f"[::]:{int(port)}", handlers)
    except errors.UnavailableError:
        server = profiler_rpc.Server(f"0.0.0.0:{int(port)}", handlers)  # no IPv6 here
    _servers.append(server)
    # torch's profiler sets itself up on its first capture (about a second): done here, so
    # that a capture asked to start at a given time starts then.
    session_lib.warm_up()
