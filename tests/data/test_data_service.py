"""tf.data service with a dispatcher and 2 workers in separate processes on 127.0.0.1.

One cluster serves the whole module (processes are slow to start on a loaded
machine); the tests that kill a worker or restart the dispatcher bring the cluster
back to 2 live workers before they end. Every child is started with a bounded wait
for its port and killed by PID in the fixture's ``finally``. Real TF's data service
runs the same pipelines in a subprocess started at the beginning, so it overlaps
the other tests; ``test_same_multisets_as_real_tf`` compares.
"""

from __future__ import annotations

import collections
import json
import os
import selectors
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core import rpc
from torchflow._src.core.proto import tf_graph_pb2
from torchflow._src.data import dataset_graph
from torchflow._src.data.service import _transport, data_service_ops, worker

pytestmark = pytest.mark.multiprocess

svc = tf.data.experimental.service
N = 20

# One process imports torchflow once and forks each server (a real process, killed by
# PID): starts cost one import, on a machine where an import takes seconds.
_ZYGOTE = textwrap.dedent("""
    import json, os, signal, sys, time
    import torchflow as tf
    svc = tf.data.experimental.service
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # forked children are reaped by the kernel

    def consume(cmd):  # one consumer of a shared job; files for READY / GO / the result
        it = iter(svc.from_dataset_id("parallel_epochs", cmd["target"], cmd["dataset_id"],
                                      job_name="shared"))
        got = [int(next(it))]
        open(cmd["out"] + ".ready", "w").close()
        end = time.monotonic() + 60
        while not os.path.exists(cmd["out"] + ".go") and time.monotonic() < end:
            time.sleep(0.01)
        got += [int(x) for x in it]
        with open(cmd["out"] + ".tmp", "w") as f:
            json.dump(got, f)
        os.rename(cmd["out"] + ".tmp", cmd["out"])

    print("ready", flush=True)
    for line in sys.stdin:
        cmd = json.loads(line)
        pid = os.fork()
        if pid == 0:
            try:
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                if cmd["kind"] == "dispatcher":
                    svc.DispatchServer(svc.DispatcherConfig(
                        port=cmd["port"], work_dir=cmd["work_dir"],
                        fault_tolerant_mode=True)).join()
                elif cmd["kind"] == "worker":
                    svc.WorkerServer(svc.WorkerConfig(
                        cmd["dispatcher"], port=cmd["port"],
                        heartbeat_interval_ms=200)).join()
                else:
                    consume(cmd)
            finally:
                os._exit(0)
        print(pid, flush=True)
""")

# The same pipelines under real TF's data service (TF 2.21, in-process dispatcher and
# 2 workers): multisets of elements, as TF defines them.
_REAL_TF = textwrap.dedent("""
    import json
    import tensorflow as tf
    svc = tf.data.experimental.service
    d = svc.DispatchServer()
    ws = [svc.WorkerServer(svc.WorkerConfig(d.target.split("://")[1])) for _ in range(2)]
    def run(ds, mode):
        return sorted(int(x) for x in ds.apply(svc.distribute(mode, d.target)))
    pipe = lambda: tf.data.Dataset.range(%d).map(lambda x: x * x)
    out = {"parallel": run(pipe(), "parallel_epochs"),
           "distributed": run(pipe(), "distributed_epoch")}
    try:
        svc.DispatchServer(port=0)
    except TypeError as e:
        out["old_form"] = str(e)
    print("RESULT", json.dumps(out), flush=True)
""" % N)


def _read_line(proc, prefix: str, timeout: float) -> str:
    """The first stdout line of ``proc`` starting with ``prefix`` (bounded wait)."""
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    end = time.monotonic() + timeout
    try:
        while time.monotonic() < end:
            if not sel.select(timeout=max(0.0, end - time.monotonic())):
                continue
            line = proc.stdout.readline()
            if not line:
                break
            if line.startswith(prefix):
                return line[len(prefix):].strip()
    finally:
        sel.close()
    raise AssertionError(f"child {proc.pid} printed no {prefix!r} line in {timeout} s "
                         f"(exit code {proc.poll()})")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _wait_for(cond, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError(f"{what}: not within {timeout} s")


class Cluster:
    """A dispatcher (fault tolerant, journal in ``work_dir``) and 2 workers, each a process
    forked by the zygote, on fixed free ports of 127.0.0.1."""

    def __init__(self, work_dir):
        self.work_dir = str(work_dir)
        self.env = dict(os.environ, OMP_NUM_THREADS="1", CUDA_VISIBLE_DEVICES="")
        self.zygote = subprocess.Popen([sys.executable, "-c", _ZYGOTE], env=self.env,
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       text=True)
        self.procs = [self.zygote]
        self.pids: dict = {}
        self.port = rpc.pick_unused_port()
        self.target = f"grpc://localhost:{self.port}"
        self.worker_ports = [rpc.pick_unused_port(), rpc.pick_unused_port()]

    def fork(self, name: str, **cmd) -> int:
        if not self.pids:
            assert _read_line(self.zygote, "ready", 120) == ""
        self.zygote.stdin.write(json.dumps(cmd) + "\n")
        self.zygote.stdin.flush()
        pid = self.pids[name] = int(_read_line(self.zygote, "", 30))
        return pid

    def start_dispatcher(self):
        self.fork("dispatcher", kind="dispatcher", port=self.port, work_dir=self.work_dir)

    def start_worker(self, i):
        self.fork(f"worker{i}", kind="worker", dispatcher=f"localhost:{self.port}",
                  port=self.worker_ports[i])

    def num_workers(self) -> int:
        c = _transport.Client(f"localhost:{self.port}")
        try:
            return int(c.call("GetStatus", {}, timeout=5.0)["workers"])
        except tf.errors.OpError:
            return -1
        finally:
            c.close()

    def wait_workers(self, n, timeout=60.0):
        _wait_for(lambda: self.num_workers() == n, timeout, f"{n} workers registered")

    def kill(self, name: str) -> None:
        pid = self.pids[name]
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
        _wait_for(lambda: not _alive(pid), 10, f"{name} gone")

    def close(self):
        for name in list(self.pids):
            self.kill(name)
        for p in self.procs:
            if p.poll() is None:
                os.kill(p.pid, signal.SIGKILL)
            p.wait(10)
            for f in (p.stdin, p.stdout):
                if f:
                    f.close()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    old_token = os.environ.get("TORCHFLOW_CLUSTER_TOKEN")
    os.environ["TORCHFLOW_CLUSTER_TOKEN"] = "test-token-" + os.urandom(8).hex()
    c = Cluster(tmp_path_factory.mktemp("dispatcher"))
    try:
        c.real_tf = subprocess.Popen([sys.executable, "-c", _REAL_TF], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True,
                                     env=dict(c.env, TF_CPP_MIN_LOG_LEVEL="3"))
        c.procs.append(c.real_tf)
        c.start_dispatcher()
        c.start_worker(0)
        c.start_worker(1)
        c.wait_workers(2)
        yield c
    finally:
        c.close()
        if old_token is None:
            os.environ.pop("TORCHFLOW_CLUSTER_TOKEN", None)
        else:
            os.environ["TORCHFLOW_CLUSTER_TOKEN"] = old_token


def _pipe():
    return tf.data.Dataset.range(N).map(lambda x: x * x)


def _ints(ds):
    return collections.Counter(int(x) for x in ds)


def test_parallel_epochs_every_worker_produces_everything(cluster):
    ds = _pipe().apply(svc.distribute("parallel_epochs", cluster.target))
    assert _ints(ds) == collections.Counter({i * i: 2 for i in range(N)})
    # an ordinary dataset: transformations after the service, and a second epoch
    ds2 = ds.map(lambda x: x + 1).batch(7)
    flat = [int(v) for b in ds2 for v in b.numpy()]
    assert collections.Counter(flat) == collections.Counter({i * i + 1: 2 for i in range(N)})


def test_distributed_epoch_each_element_once(cluster):
    ds = tf.data.Dataset.range(300).map(lambda x: x * 3).apply(
        svc.distribute("distributed_epoch", cluster.target))
    assert sorted(int(x) for x in ds) == list(range(0, 900, 3))
    # from_tensor_slices with a nested structure: split by rows, structure kept
    src = tf.data.Dataset.from_tensor_slices(
        (np.arange(10, dtype=np.float32), np.array([b"a%d" % i for i in range(10)])))
    got = sorted((float(a), b.numpy()) for a, b in
                 src.apply(svc.distribute("distributed_epoch", cluster.target)))
    assert got == [(float(i), b"a%d" % i) for i in range(10)]


def test_register_dataset_and_from_dataset_id(cluster):
    ds = tf.data.Dataset.range(8).map(lambda x: (x, tf.cast(x, tf.float32) / 2))
    dataset_id = svc.register_dataset(cluster.target, ds)
    assert dataset_id.dtype == tf.int64 and dataset_id.shape == []
    out = svc.from_dataset_id("distributed_epoch", cluster.target, dataset_id)
    assert out.element_spec == ds.element_spec
    assert sorted((int(a), float(b)) for a, b in out) == [(i, i / 2) for i in range(8)]
    out2 = svc.from_dataset_id("parallel_epochs", cluster.target, dataset_id,
                               element_spec=ds.element_spec)
    assert collections.Counter(int(a) for a, _ in out2) == {i: 2 for i in range(8)}


def test_shared_job_across_two_consumer_processes(cluster, tmp_path):
    ds = tf.data.Dataset.range(200).map(lambda x: x + 1000)
    dataset_id = int(svc.register_dataset(cluster.target, ds))
    out = str(tmp_path / "theirs.json")
    cluster.fork("consumer", kind="consumer", target=cluster.target, dataset_id=dataset_id,
                 out=out)
    _wait_for(lambda: os.path.exists(out + ".ready"), 60, "the other consumer started")
    it = iter(svc.from_dataset_id("parallel_epochs", cluster.target, dataset_id,
                                  job_name="shared"))
    open(out + ".go", "w").close()
    mine = [int(x) for x in it]
    _wait_for(lambda: os.path.exists(out), 60, "the other consumer finished")
    with open(out) as f:
        theirs = json.load(f)
    # one job: the two consumers divide its elements (each produced by both workers)
    assert collections.Counter(mine + theirs) == {i + 1000: 2 for i in range(200)}
    assert mine and len(theirs) > 1


def test_keras_fit_on_service_data(cluster):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
    local = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
    ds = local.apply(svc.distribute("parallel_epochs", cluster.target))
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, kernel_initializer="ones",
                                                       use_bias=False)])
    model.compile(tf.keras.optimizers.SGD(0.0), "mse")
    steps = []
    cb = tf.keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: steps.append(b))
    hist = model.fit(ds, epochs=2, verbose=0, callbacks=[cb])
    # lr 0: the weights stay ones, so every epoch's mean batch loss is the NumPy mse;
    # 4 batches from each of the 2 workers per epoch
    expected = float(np.mean((x.sum(axis=1, keepdims=True) - y) ** 2))
    np.testing.assert_allclose(hist.history["loss"], [expected] * 2, rtol=1e-5)
    assert len(steps) == 16
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    hist = model.fit(ds, epochs=3, verbose=0)
    assert hist.history["loss"][-1] < hist.history["loss"][0] < expected


def test_worker_sigkilled_mid_epoch_then_back(cluster):
    def slow(x):
        time.sleep(0.003)
        return x
    ds = tf.data.Dataset.range(400).map(slow).apply(
        svc.distribute("distributed_epoch", cluster.target, max_outstanding_requests=4))
    it = iter(ds)
    got = [int(next(it)) for _ in range(40)]
    cluster.kill("worker1")
    t0 = time.monotonic()
    got += [int(x) for x in it]  # ends: the dispatcher drops the silent worker
    assert time.monotonic() - t0 < 30
    # at most once: nothing twice, nothing invented; what the killed worker held
    # (its buffer, its last reply, its current range) is all that may be missing
    assert len(got) == len(set(got)) and set(got) <= set(range(400))
    assert len(got) >= 400 - (worker.BUFFER_ELEMENTS + 4 + 400 // 8)
    # the worker comes back on the same address and is used again
    cluster.start_worker(1)
    cluster.wait_workers(2)
    again = _pipe().apply(svc.distribute("parallel_epochs", cluster.target))
    assert _ints(again) == collections.Counter({i * i: 2 for i in range(N)})


def test_dispatcher_restarted_from_its_journal(cluster):
    dataset_id = svc.register_dataset(cluster.target, tf.data.Dataset.range(5))
    def slow(x):
        time.sleep(0.002)
        return x
    it = iter(tf.data.Dataset.range(300).map(slow).apply(
        svc.distribute("distributed_epoch", cluster.target)))
    got = [int(next(it)) for _ in range(20)]
    cluster.kill("dispatcher")
    cluster.start_dispatcher()
    got += [int(x) for x in it]
    # the splits handed out were journaled: none twice, and the workers and the
    # consumer reconnected, so none lost either
    assert sorted(got) == list(range(300))
    cluster.wait_workers(2)
    # a dataset registered before the restart is still there
    out = svc.from_dataset_id("parallel_epochs", cluster.target, dataset_id)
    assert _ints(out) == {i: 2 for i in range(5)}


def test_unauthenticated_requests_refused(cluster):
    data = b"not a dataset"
    bad = _transport.Client(f"localhost:{cluster.port}", token="wrong-token")
    with pytest.raises(tf.errors.UnauthenticatedError):
        bad.call("RegisterDataset", {"data": data, "sig": "", "fp": "x", "spec": {},
                                     "splits": None}, idempotent=False)
    with pytest.raises(tf.errors.UnauthenticatedError):
        bad.call("GetDatasetDef", {"dataset": 1000})
    bad.close()
    worker = _transport.Client(f"localhost:{cluster.worker_ports[0]}", token="wrong-token")
    with pytest.raises(tf.errors.UnauthenticatedError):
        worker.call("GetElement", {"task": 1, "client": 1, "seq": 0})
    worker.close()
    # a dataset definition signed without the token is refused before unpickling
    with pytest.raises(tf.errors.PermissionDeniedError):
        _transport.load_signed(data, "0" * 64)


def _dataset_def(cluster, dataset_id) -> dict:
    c = _transport.Client(f"localhost:{cluster.port}")
    try:
        return c.call("GetDatasetDef", {"dataset": int(dataset_id)}, timeout=10.0)
    finally:
        c.close()


def test_dataset_travels_as_its_graph(cluster, tmp_path):
    # The map function's Python writes this process's pid each time it is traced: sent as
    # a graph, no worker runs it (a pickle would be traced again in each worker).
    marks = tmp_path / "traced"

    def f(x):
        with open(marks, "a") as fh:
            fh.write(f"{os.getpid()}\n")
        return x * 5 + 1

    ds = tf.data.Dataset.range(12).map(f).filter(lambda x: x % 2 == 0).batch(4)
    dataset_id = svc.register_dataset(cluster.target, ds)
    d = _dataset_def(cluster, dataset_id)
    assert d["kind"] == "graph"
    gd = tf_graph_pb2.GraphDef()
    gd.ParseFromString(bytes(d["data"]))
    assert {n.op for n in gd.node} >= {"RangeDataset", "MapDataset", "FilterDataset",
                                       "BatchDatasetV2", "_Retval"}
    for mode, times in (("parallel_epochs", 2), ("distributed_epoch", 1)):
        got = svc.from_dataset_id(mode, cluster.target, dataset_id)
        flat = collections.Counter(int(v) for b in got for v in b.numpy())
        assert flat == {x * 5 + 1: times for x in range(12) if (x * 5 + 1) % 2 == 0}
    assert set(marks.read_text().split()) == {str(os.getpid())}


def test_dataset_without_a_graph_travels_signed_pickle(cluster):
    ds = tf.data.Dataset.range(6).map(lambda x: tf.py_function(lambda y: y * 7, [x], tf.int64))
    dataset_id = svc.register_dataset(cluster.target, ds)
    d = _dataset_def(cluster, dataset_id)
    assert d["kind"] == "pickle"
    got = svc.from_dataset_id("parallel_epochs", cluster.target, dataset_id,
                              element_spec=tf.TensorSpec(None, tf.int64))
    assert _ints(got) == {x * 7: 2 for x in range(6)}
    # a graph signed without the token is refused before it is read
    with pytest.raises(tf.errors.PermissionDeniedError):
        _transport.load_signed(dataset_graph.serialize(tf.data.Dataset.range(3)), "0" * 64,
                               _transport.GRAPH)


def test_consumer_gets_unavailable_not_a_hang(cluster, monkeypatch):
    monkeypatch.setattr(data_service_ops, "CONSUMER_DEADLINE_S", 1.5)
    dead = f"grpc://localhost:{rpc.pick_unused_port()}"
    t0 = time.monotonic()
    with pytest.raises(tf.errors.UnavailableError):
        svc.register_dataset(dead, tf.data.Dataset.range(3))
    assert time.monotonic() - t0 < 10


def test_same_multisets_as_real_tf(cluster):
    out = json.loads(_read_line(cluster.real_tf, "RESULT ", 120))
    ours_p = sorted(int(x) for x in _pipe().apply(svc.distribute("parallel_epochs",
                                                                 cluster.target)))
    ours_d = sorted(int(x) for x in _pipe().apply(svc.distribute("distributed_epoch",
                                                                 cluster.target)))
    assert ours_p == out["parallel"]
    assert ours_d == out["distributed"]
    with pytest.raises(TypeError) as e:
        svc.DispatchServer(port=0)
    assert str(e.value) == out["old_form"]


def test_threads_of_a_dropped_iterator_stop(cluster):
    before = threading.active_count()
    it = iter(_pipe().apply(svc.distribute("parallel_epochs", cluster.target)))
    next(it)
    del it
    end = time.monotonic() + 10
    while threading.active_count() > before and time.monotonic() < end:
        time.sleep(0.1)
    assert threading.active_count() <= before
