"""Sampling mode on a real parameter-server job (1 ps + 2 workers, each a process, and
this process as the coordinator): every task runs ``server.start``, and one
``client.trace`` captures all four while the coordinator schedules training steps.

Oracles: one ``.xplane.pb`` per task over one window, XProf's converter reading each;
the transport's RPC events on both sides (the workers' ``rpc::VarRead`` /
``rpc::VarUpdate`` calls answered by the ps's ``rpc_served::`` events, the coordinator's
``rpc::FnRun`` calls served on the workers, with sizes that agree); the workers' steps
(one per ``FnRun``) holding input, compute and communication in the view page's split.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from xprof_helpers import events, host_plane, load_space, xplane_files, xprof_step_names, xprof_tool

import torchflow as tf
from torchflow._src.core import rpc
from torchflow._src.profiler import view

pytestmark = pytest.mark.multiprocess
HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TOKEN = "ps-profile-test-token-0123456789"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def job(monkeypatch):
    monkeypatch.setenv(rpc.TOKEN_ENV, TOKEN)
    env = dict(os.environ, OMP_NUM_THREADS="1", CUDA_VISIBLE_DEVICES="",
               PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("TF_CONFIG", None)
    zygote = subprocess.Popen([sys.executable, str(HERE / "ps_profiled_tasks.py")], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    pids = []
    try:
        assert zygote.stdout.readline().strip() == "ready"
        ports = [rpc.pick_unused_port() for _ in range(7)]
        spec = {"worker": [f"127.0.0.1:{p}" for p in ports[:2]],
                "ps": [f"127.0.0.1:{ports[2]}"]}
        tasks = [("worker", 0, ports[3]), ("worker", 1, ports[4]), ("ps", 0, ports[5])]
        for job_name, index, prof_port in tasks:
            zygote.stdin.write(json.dumps({"cluster": spec, "job": job_name, "index": index,
                                           "profiler_port": prof_port}) + "\n")
            zygote.stdin.flush()
            pid = int(zygote.stdout.readline())
            assert pid > 0, f"{job_name} {index} did not start"
            pids.append(pid)
        yield spec, {f"{j}{i}": p for j, i, p in tasks}, ports[6]
    finally:
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        zygote.kill()
        zygote.wait(10)


def _rpc_events(evs, prefix):
    """method -> the stats of its events named ``prefix + method`` that ended in the
    window (a call still running at the stop has no response size)."""
    out = {}
    for _, name, _, _, stats in evs:
        if name.startswith(prefix) and {"bytes_sent", "bytes_received"} <= set(stats):
            out.setdefault(name[len(prefix):], []).append(stats)
    return out


def test_parameter_server_job_profiled_on_every_task(job, tmp_path):
    spec, prof_ports, coord_port = job
    tf.profiler.experimental.server.start(coord_port)  # the coordinator serves it too
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec(spec), rpc_layer="grpc")
    strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
    coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(256, 8)).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    with strategy.scope():
        w = tf.Variable(np.zeros((8, 1), np.float32), name="w")

    def dataset_fn():
        return tf.data.Dataset.from_tensor_slices((x, y)).batch(32).repeat()

    iterator = iter(coordinator.create_per_worker_dataset(dataset_fn))

    @tf.function
    def train_step(it):
        xb, yb = next(it)
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(xb, w) - yb))
        w.assign_sub(0.05 * tape.gradient(loss, w))
        return loss

    coordinator.schedule(train_step, args=(iterator,))
    coordinator.join()  # registered and traced on a worker before the capture
    addresses = [f"grpc://127.0.0.1:{p}" for p in (*prof_ports.values(), coord_port)]
    done = threading.Event()
    failure = []

    def capture():
        try:
            tf.profiler.experimental.client.trace(",".join(addresses), str(tmp_path), 1500)
        except BaseException as e:  # noqa: BLE001 - reported by the test
            failure.append(e)
        finally:
            done.set()

    tracer = threading.Thread(target=capture, daemon=True)
    tracer.start()
    end = time.monotonic() + 120
    while not done.is_set() and time.monotonic() < end:
        for _ in range(4):
            coordinator.schedule(train_step, args=(iterator,))
        coordinator.join()
    tracer.join(10)
    coordinator._stop()
    assert not failure, failure
    assert done.is_set()

    files = {os.path.basename(f)[:-len(".xplane.pb")]: f for f in xplane_files(tmp_path)}
    label = {f"127.0.0.1_{p}": task for task, p in prof_ports.items()}
    label[f"127.0.0.1_{coord_port}"] = "coordinator"
    assert sorted(files) == sorted(label)
    planes = {label[k]: host_plane(load_space(f)) for k, f in files.items()}
    starts = {min(line.timestamp_ns for line in p.lines) for p in planes.values()}
    assert len(starts) == 1  # one window on every task
    for f in files.values():  # XProf's converter reads every task's file
        assert xprof_tool([f], "trace_viewer")["traceEvents"]
    evs = {task: events(plane) for task, plane in planes.items()}

    # coordinator -> workers: FnRun calls, served on the workers with the same sizes
    calls = _rpc_events(evs["coordinator"], "rpc::")
    served = {t: _rpc_events(evs[t], "rpc_served::") for t in ("worker0", "worker1")}
    assert len(calls["FnRun"]) >= 4
    sizes = {(s["bytes_sent"], s["bytes_received"]) for s in calls["FnRun"]}
    for t in served:
        assert served[t]["FnRun"], t
        assert {(s["bytes_received"], s["bytes_sent"]) for s in served[t]["FnRun"]} & sizes
    # workers -> ps: variable reads and updates, served on the ps
    ps_served = _rpc_events(evs["ps0"], "rpc_served::")
    for method in ("VarRead", "VarUpdate"):
        made = [s for t in served for s in _rpc_events(evs[t], "rpc::").get(method, [])]
        assert made and ps_served.get(method), method
        assert {s["bytes_sent"] for s in made} & {s["bytes_received"] for s in ps_served[method]}
        assert {s["peer"] for s in made} == {spec["ps"][0]}

    # each worker's steps split into input, compute and communication, by XProf too
    for t in ("worker0", "worker1"):
        path = files[next(k for k, v in label.items() if v == t)]
        names = xprof_step_names([path])
        assert len(names) >= 2 and all(n.startswith("train_step ") for n in names), names
    (run,) = view.analyze(tmp_path).values()
    for t in ("worker0", "worker1"):
        key = next(k for k, v in label.items() if v == t)
        steps = run["workers"][key]["steps"]
        assert len(steps) >= 2, t
        for cat in ("input", "compute", "communication"):
            assert sum(s[cat + "_us"] for s in steps.values()) > 0, (t, cat)
        for s in steps.values():
            assert s["name"] == "train_step"
            parts = sum(s[c + "_us"] for c in view.CATEGORIES)
            assert parts == pytest.approx(s["total_us"], rel=1e-6, abs=1e-3)
    page = tmp_path / "view.html"
    assert view.main(["view", str(tmp_path), "--out", str(page)]) == 0
    text = page.read_text()
    assert all(k in text for k in label) and "communication_us" in text
