"""``tf.profiler.experimental.client.trace/monitor``: capture profiles from profiler servers.

``trace`` sends one ``Profile`` request to every named task at once, all asking for the
same start time (``now`` plus a short lead, or ``options.delay_ms``), so the files cover
one wall-clock window; it writes each task's XSpace on this machine, as
``logdir/plugins/profile/<run>/<host>_<port>.xplane.pb`` (one run directory for the
whole capture). A task that fails is retried up to ``num_tracing_attempts`` times, then
reported in a warning; the others' profiles are kept. If no task answers with a trace,
``UnavailableError``.
"""

from __future__ import annotations

import logging
import os
import threading
import time

from torchflow._src.core import errors, profiler_rpc
from torchflow._src.core.proto import profiler_options_pb2 as opts_pb
from torchflow._src.core.proto import profiler_service_pb2 as pb
from torchflow._src.profiler import session as session_lib
from torchflow._src.util.api import public

_log = logging.getLogger("torchflow")
_LEAD_MS = 2000         # every task receives its request and sets its capture up (the first
                        # capture in a process takes ~1.5 s) before the common start
_REPLY_SLACK_S = 60.0   # beyond the capture: time to collect and ship the XSpace
_RETRYABLE = (errors.UnavailableError, errors.AlreadyExistsError, errors.DeadlineExceededError)
_NO_TRACE = ("No trace event was collected because there were no responses from clients "
             "or the responses did not have trace data.")


def _addresses(service_addr: str, worker_list: str) -> list[str]:
    addrs = [profiler_rpc.strip_grpc_prefix(a) for a in str(service_addr).split(",")
             if a.strip()]
    if not addrs:
        raise errors.InvalidArgumentError(None, None, "service_addr must not be empty.")
    if worker_list:
        # TF's TPU form: the workers of the service at service_addr, on its port.
        port = addrs[0].rpartition(":")[2]
        addrs = [w if ":" in w else f"{w}:{port}"
                 for w in (profiler_rpc.strip_grpc_prefix(x) for x in worker_list.split(","))
                 if w]
    return addrs


def _host_label(address: str) -> str:
    return address.replace("[", "").replace("]", "").replace(":", "_").replace("/", "_")


def _request(address, duration_ms, options, start_ns, run, repository):
    o = options if options is not None else session_lib.ProfilerOptions()
    return pb.ProfileRequest(
        duration_ms=int(duration_ms), tools=["xplane.pb"], repository_root=repository,
        session_id=run, host_name=_host_label(address),
        opts=opts_pb.ProfileOptions(
            version=1, host_tracer_level=int(o.host_tracer_level or 0),
            python_tracer_level=int(o.python_tracer_level or 0),
            device_tracer_level=int(o.device_tracer_level or 0),
            start_timestamp_ns=start_ns, duration_ms=int(duration_ms)))


def _capture_one(address, request, attempts, timeout_s, run_dir, results):
    error = None
    for attempt in range(max(1, int(attempts))):
        try:
            reply = profiler_rpc.call(address, "Profile", request, timeout=timeout_s)
        except _RETRYABLE as e:
            error = e
            time.sleep(min(0.2 * (attempt + 1), 1.0))
            continue
        except errors.OpError as e:
            results[address] = e
            return
        if reply.empty_trace:
            error = errors.UnavailableError(None, None, f"{address}: empty trace")
            continue
        # No tool data and a trace: TF's own server saved it under repository_root.
        os.makedirs(run_dir, exist_ok=True)
        for tool in reply.tool_data:
            name = os.path.basename(tool.name) or "xplane.pb"
            with open(os.path.join(run_dir, f"{request.host_name}.{name}"), "wb") as f:
                f.write(tool.data)
        results[address] = None
        return
    results[address] = error


@public("torchflow.profiler.experimental.client")
def trace(service_addr, logdir, duration_ms, worker_list="", num_tracing_attempts=3,
          options=None):
    """Sends gRPC requests to one or more profiler servers to perform on-demand profiling.

    Each server (``tf.profiler.experimental.server.start`` in that task) profiles itself
    for ``duration_ms``, all over the same window, and sends its profile back; the files
    are written here, one ``<host>_<port>.xplane.pb`` per task in one run directory of
    ``logdir/plugins/profile/``.

    Args:
      service_addr: A comma delimited string of gRPC addresses of the workers to
        profile, e.g. ``'grpc://localhost:6009'`` or
        ``'grpc://10.0.0.2:8466,grpc://10.0.0.3:8466'``.
      logdir: Path to save profile data to, typically a TensorBoard log directory.
      duration_ms: Duration of tracing or monitoring in milliseconds. Must be greater
        than zero.
      worker_list: An optional comma separated list of workers (``host`` or
        ``host:port``; a bare host takes the port of ``service_addr``) to profile
        instead of ``service_addr`` (TF's TPU form).
      num_tracing_attempts: Optional. Automatically retry N times when no trace event
        is collected (default 3).
      options: ``tf.profiler.experimental.ProfilerOptions`` for the servers' sessions
        (``delay_ms`` delays the common start).

    Raises:
      InvalidArgumentError: For when arguments fail validation checks.
      UnavailableError: If no trace event was collected.
    """
    if duration_ms <= 0:
        raise errors.InvalidArgumentError(None, None, "duration_ms must be greater than zero.")
    if options is not None and not isinstance(options, session_lib.ProfilerOptions):
        raise TypeError("options must be a tf.profiler.experimental.ProfilerOptions; "
                        f"Received: options={options!r}")
    addresses = _addresses(service_addr, worker_list)
    run_dir = session_lib.run_dir(logdir)
    run = os.path.basename(run_dir)
    delay_ms = (options.delay_ms if options is not None else None) or 0
    lead_ms = max(int(delay_ms), _LEAD_MS if len(addresses) > 1 else 0)
    start_ns = time.time_ns() + lead_ms * 1_000_000 if lead_ms else 0
    timeout_s = (lead_ms + duration_ms) / 1000.0 + _REPLY_SLACK_S
    results: dict = {}
    threads = [threading.Thread(
        target=_capture_one, name=f"profiler_client_{a}", daemon=True,
        args=(a, _request(a, duration_ms, options, start_ns, run, os.path.dirname(run_dir)),
              num_tracing_attempts, timeout_s, run_dir, results)) for a in addresses]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    failed = {a: e for a, e in results.items() if e is not None}
    for address, error in failed.items():
        _log.warning("No trace event was collected from %s after %d attempt(s): %s",
                     address, num_tracing_attempts, getattr(error, "message", error))
    if len(failed) == len(addresses):
        raise errors.UnavailableError(None, None, _NO_TRACE)


@public("torchflow.profiler.experimental.client")
def monitor(service_addr, duration_ms, level=1):
    """Sends grpc requests to profiler server to perform on-demand monitoring.

    The monitoring result is a light weight performance summary of your model
    execution. This method will block the caller thread until it receives the
    monitoring result.

    Args:
      service_addr: gRPC address of profiler service e.g. ``grpc://10.0.0.2:8466``.
      duration_ms: Duration of monitoring in ms.
      level: Choose a monitoring level between 1 and 2 to monitor your job. Level 2
        is more verbose than level 1 and shows more metrics.

    Returns:
      A string of monitoring output.

    Raises:
      UnavailableError: If the server does not answer.
    """
    request = pb.MonitorRequest(duration_ms=int(duration_ms), monitoring_level=int(level),
                                timestamp=True)
    reply = profiler_rpc.call(service_addr, "Monitor", request,
                              timeout=duration_ms / 1000.0 + _REPLY_SLACK_S)
    return reply.data
