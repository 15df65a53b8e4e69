"""The transport's RPC events (core/rpc.py) in a profile: the call on the caller's
thread, the served call on the server's, their sizes, in-process and over gRPC, at
host_tracer_level 2 (torch's ranges) and 1 (ranges kept in Python)."""

from __future__ import annotations

import os

import pytest
from xprof_helpers import events, host_plane, load_space, xplane_files

import torchflow as tf
from torchflow._src.core import rpc
from torchflow._src.profiler import session as session_lib

TOKEN = "rpc-events-token"


@pytest.fixture(autouse=True)
def _no_session_left():
    if session_lib._current is not None:
        session_lib.end(session_lib._current, collect=False)
    session_lib._logdir = None
    yield
    if session_lib._current is not None:
        session_lib.end(session_lib._current, collect=False)
    session_lib._logdir = None


@pytest.fixture(params=["inprocess", "grpc"])
def servers(request, monkeypatch):
    if request.param == "grpc":
        monkeypatch.setenv(rpc.LOCAL_ENV, "0")
    else:
        monkeypatch.delenv(rpc.LOCAL_ENV, raising=False)
    out = []
    for _ in range(2):
        srv = rpc.Server("127.0.0.1:0", token=TOKEN)
        srv.add_method("Twice", lambda req, ctx: bytes(req) * 2)
        out.append(srv.start())
    yield out
    for srv in out:
        srv.stop()


def _rpc_events(logdir):
    (path,) = xplane_files(logdir)
    return [(line, name, stats) for line, name, _, _, stats in
            events(host_plane(load_space(path))) if name.startswith("rpc")]


@pytest.mark.parametrize("level", [2, 1])
def test_calls_and_served_calls_are_events_with_their_sizes(servers, tmp_path, level):
    a, b = (rpc.Channel(s.address, token=TOKEN) for s in servers)
    a.call("Twice", b"warm")  # before the capture: not in it
    tf.profiler.experimental.start(
        str(tmp_path), tf.profiler.experimental.ProfilerOptions(host_tracer_level=level))
    assert a.call("Twice", b"x" * 10) == b"x" * 20
    assert rpc.call_all([(a, "Twice", b"ab"), (b, "Twice", b"cde")]) == [b"abab", b"cdecde"]
    tf.profiler.experimental.stop()
    evs = _rpc_events(tmp_path)
    calls = [(line, s) for line, name, s in evs if name == "rpc::Twice"]
    served = sorted((s["bytes_received"], s["bytes_sent"]) for _, name, s in evs
                    if name == "rpc_served::Twice")
    assert served == [(2, 4), (3, 6), (10, 20)]
    peers = sorted((s["peer"], s["bytes_sent"], s["bytes_received"]) for _, s in calls
                   if "peer" in s)
    a_addr, b_addr = (srv.address for srv in servers)
    expected = [(a_addr, 10, 20)]
    if os.environ.get(rpc.LOCAL_ENV) == "0":  # over gRPC the fan-out's calls are Channel.call's
        expected = sorted([*expected, (a_addr, 2, 4), (b_addr, 3, 6)])
    assert peers == expected
    fan_out = [s for _, s in calls if "calls" in s]
    assert fan_out == [{"calls": 2, "bytes_sent": 5, "bytes_received": 10}]
    caller_lines = {line for line, _ in calls}
    served_lines = {line for line, name, _ in evs if name.startswith("rpc_served::")}
    assert caller_lines and not caller_lines & served_lines  # served on other threads
