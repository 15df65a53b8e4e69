"""Sampling mode: server.start in worker processes, client.trace from here.

Workers are child processes on 127.0.0.1 (free ports, bounded waits, killed by PID).
Oracles: the files themselves (one per worker in one run directory, one common window,
step markers with ops inside), XProf's converter over all of them, and real
TensorFlow's client and server talking to ours.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time

import pytest
from xprof_helpers import host_plane, load_space, steps_with_ops, xplane_files, xprof_tool

import torchflow as tf
from torchflow._src.core import rpc
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.multiprocess
WORKER = os.path.join(os.path.dirname(__file__), "profiler_worker.py")
client = tf.profiler.experimental.client


def _spawn(module, port):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    return subprocess.Popen([sys.executable, WORKER, module, str(port), "90"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=env)


def _wait_ready(procs, timeout=90.0):
    deadline = time.time() + timeout
    for proc in procs:
        # readline blocks; the worker prints READY or exits (EOF) within its own limit
        line = proc.stdout.readline()
        assert line.strip() == "READY", f"worker {proc.pid} did not start"
        assert time.time() < deadline


@pytest.fixture(scope="module")
def workers():
    ports = [rpc.pick_unused_port() for _ in range(2)]
    procs = [_spawn("torchflow", p) for p in ports]
    try:
        _wait_ready(procs)
        yield ports
    finally:
        for proc in procs:
            proc.kill()
            proc.wait(10)


def test_two_workers_one_run_one_window(workers, tmp_path):
    addrs = ",".join(f"grpc://127.0.0.1:{p}" for p in workers)
    client.trace(addrs, str(tmp_path), 1000)  # TF 2.4's documented call, local addresses
    files = xplane_files(tmp_path)
    assert [os.path.basename(f) for f in files] == sorted(
        f"127.0.0.1_{p}.xplane.pb" for p in workers)
    assert len({os.path.dirname(f) for f in files}) == 1
    windows = []
    for f in files:
        plane = host_plane(load_space(f))
        main = next(line for line in plane.lines if line.name == "MainThread")
        windows.append((main.timestamp_ns, main.duration_ps // 1000))
        counts = steps_with_ops(plane, "aten.mm:Mm")
        assert len(counts) >= 20 and set(counts.values()) == {1}
    # the same requested start; each covers about the requested second
    assert windows[0][0] == windows[1][0]
    assert all(0.95e9 <= d <= 3e9 for _, d in windows)
    pod = xprof_tool(files, "pod_viewer")["podStatsSequence"]["podStatsMap"]
    assert pod and len(pod[0]["podStatsPerCore"]) == 2  # both workers in one step view


def test_dead_address_raises_unavailable_after_the_attempts(tmp_path, caplog):
    dead = rpc.pick_unused_port()
    start = time.time()
    with caplog.at_level(logging.WARNING, logger="torchflow"):
        with pytest.raises(tf.errors.UnavailableError, match="No trace event was collected"):
            client.trace(f"grpc://127.0.0.1:{dead}", str(tmp_path), 500,
                         num_tracing_attempts=2)
    assert time.time() - start < 30
    assert "after 2 attempt(s)" in caplog.text
    assert xplane_files(tmp_path) == []


def test_a_dead_task_does_not_lose_the_others(workers, tmp_path, caplog):
    dead = rpc.pick_unused_port()
    with caplog.at_level(logging.WARNING, logger="torchflow"):
        client.trace(f"grpc://127.0.0.1:{workers[0]},grpc://127.0.0.1:{dead}",
                     str(tmp_path), 300, num_tracing_attempts=1)
    assert [os.path.basename(f) for f in xplane_files(tmp_path)] == [
        f"127.0.0.1_{workers[0]}.xplane.pb"]
    assert f"127.0.0.1:{dead}" in caplog.text


def test_worker_list_and_bad_arguments(workers, tmp_path):
    client.trace(f"grpc://127.0.0.1:{workers[1]}", str(tmp_path), 300,
                 worker_list="127.0.0.1")  # a bare host takes service_addr's port
    assert [os.path.basename(f) for f in xplane_files(tmp_path)] == [
        f"127.0.0.1_{workers[1]}.xplane.pb"]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="duration_ms must be greater than zero"):
        client.trace(f"grpc://127.0.0.1:{workers[0]}", str(tmp_path), 0)


def test_monitor(workers):
    text = client.monitor(f"grpc://127.0.0.1:{workers[0]}", 100, level=2)
    assert "CPU utilization" in text and "Profiling session active: no" in text


def test_interoperates_with_real_tensorflow(workers, tmp_path):
    rtf = real_tf()
    # TF's client captures a torchflow worker ...
    rtf.profiler.experimental.client.trace(f"grpc://127.0.0.1:{workers[0]}",
                                           str(tmp_path / "tf_client"), 500)
    (f,) = xplane_files(tmp_path / "tf_client")
    assert steps_with_ops(host_plane(load_space(f)), "aten.mm:Mm")
    # ... and torchflow's client captures a TensorFlow worker.
    port = rpc.pick_unused_port()
    proc = _spawn("tensorflow", port)
    try:
        _wait_ready([proc])
        client.trace(f"grpc://127.0.0.1:{port}", str(tmp_path / "ours"), 500)
    finally:
        proc.kill()
        proc.wait(10)
    (f,) = xplane_files(tmp_path / "ours")
    names = {p.name for p in load_space(f).planes}
    assert "/host:CPU" in names
    steps = [row for row in xprof_tool([f], "overview_page") if row.get("cols")
             and row["cols"][0]["id"] == "stepnum"]
    assert steps and steps[0]["rows"]  # TF's own step markers, read back by XProf
