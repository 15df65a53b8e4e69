"""A ``tf.function`` scheduled with ``ClusterCoordinator.schedule`` runs on its worker
as a recording: the worker traces it once per signature and replays it after, so its
Python runs once per worker while its ops (ps reads and writes, ``tf.print``,
``next(iterator)``, the optimizer's update on the ps tasks) run on every call. Checked
with side-effect counters on an in-process cluster (2 workers + 2 ps, as TF's
tutorial builds it), and against real TF's ParameterServerStrategy on the same
program."""

import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core import rpc
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.multiprocess


class _Traces:
    """Counts runs of a function's Python body. The function travels to its worker
    pickled (a copy of anything it closes over), so the count is kept in a file."""

    def __init__(self, path):
        self.path = str(path)

    def note(self, what="t"):
        with open(self.path, "a") as f:
            f.write(f"{what}\n")

    def __len__(self):
        return len(self.lines())

    def lines(self):
        return open(self.path).read().split() if os.path.exists(self.path) else []


@pytest.fixture(scope="module")
def strategy():
    rpc.ensure_cluster_token()
    ports = [rpc.pick_unused_port() for _ in range(4)]
    spec = tf.train.ClusterSpec({"worker": [f"localhost:{p}" for p in ports[:2]],
                                 "ps": [f"localhost:{p}" for p in ports[2:]]})
    servers = [tf.distribute.Server(spec, job_name=job, task_index=i, protocol="grpc")
               for job, i in (("worker", 0), ("worker", 1), ("ps", 0), ("ps", 1))]
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec, rpc_layer="grpc")
    s = tf.distribute.experimental.ParameterServerStrategy(resolver)
    yield s
    for server in servers:
        server._stop()


@pytest.fixture
def coordinator(strategy):
    coord = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
    yield coord
    coord._stop()


def test_python_runs_once_per_worker_and_ops_every_step(coordinator, capfd, tmp_path):
    strategy = coordinator.strategy
    with strategy.scope():
        counter = tf.Variable(0, dtype=tf.int64, name="counter")
        w = tf.Variable(10.0, name="w")
    traced = _Traces(tmp_path / 'traces')

    @tf.function
    def step():
        traced.note()  # Python: at trace time only
        counter.assign_add(1)
        with tf.GradientTape() as tape:
            loss = 2.0 * w
        w.assign_sub(0.5 * tape.gradient(loss, w))
        tf.print("traced-step", counter)
        return counter.read_value()

    n = 40
    rvs = [coordinator.schedule(step) for _ in range(n)]
    coordinator.join()
    assert 1 <= len(traced) <= 2  # once per worker that ran it, not once per step
    assert int(counter.numpy()) == n
    assert float(w.numpy()) == 10.0 - n  # each replay read w and wrote it back
    assert sorted(int(rv.fetch()) for rv in rvs) == list(range(1, n + 1))  # no stale result
    printed = capfd.readouterr()
    assert (printed.out + printed.err).count("traced-step") == n


def test_replays_read_writes_made_by_the_coordinator(coordinator, tmp_path):
    with coordinator.strategy.scope():
        v = tf.Variable(1.0, name="v")
    traced = _Traces(tmp_path / 'traces')

    @tf.function
    def read():
        traced.note()
        return v * 2.0

    assert float(coordinator.schedule(read).fetch()) == 2.0
    for value in (5.0, -3.0):
        v.assign(value)
        outs = [coordinator.schedule(read) for _ in range(4)]  # both workers, replaying
        coordinator.join()
        assert [float(rv.fetch()) for rv in outs] == [2.0 * value] * 4
    assert len(traced) <= 2


def test_iterator_reads_advance_on_every_replay(coordinator, tmp_path):
    def dataset_fn():
        return tf.data.Dataset.range(1000).map(lambda x: x * 3)

    iterator = iter(coordinator.create_per_worker_dataset(dataset_fn))
    traced = _Traces(tmp_path / 'traces')

    @tf.function
    def take(it):
        traced.note()
        return next(it) + 1

    rvs = [coordinator.schedule(take, args=(iterator,)) for _ in range(24)]
    coordinator.join()
    values = [int(rv.fetch()) for rv in rvs]
    assert len(traced) <= 2
    # Each worker reads its own copy of the dataset from the start: every element
    # at most twice, in order, never the trace-time element again.
    assert all(values.count(x) <= 2 for x in values)
    assert set(values) <= {3 * k + 1 for k in range(24)}
    assert len(set(values)) >= 12


def test_a_new_signature_traces_again_on_the_worker(coordinator, tmp_path):
    with coordinator.strategy.scope():
        total = tf.Variable(0.0, name="total")
    traced = _Traces(tmp_path / 'traces')

    @tf.function
    def add(x):
        traced.note(str(x.shape[0]))
        total.assign_add(tf.reduce_sum(x))

    for _ in range(6):
        coordinator.schedule(add, args=(tf.ones([2]),))
    coordinator.join()
    for _ in range(6):
        coordinator.schedule(add, args=(tf.ones([3]),))
    coordinator.join()
    assert float(total.numpy()) == 6 * 2 + 6 * 3
    assert 2 <= len(traced) <= 4 and set(traced.lines()) == {'2', '3'}


def test_keras_step_replays_the_optimizer_update_on_the_ps(coordinator, tmp_path):
    strategy = coordinator.strategy
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 3)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32)
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, use_bias=False, input_shape=(3,),
                                                           kernel_initializer="zeros")])
        optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)
        _ = optimizer.iterations
    traced = _Traces(tmp_path / 'traces')

    @tf.function
    def step(xb, yb):
        traced.note()

        def replica_fn(xb, yb):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(xb) - yb))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        return strategy.run(replica_fn, args=(xb, yb))

    n = 30
    for _ in range(n):
        coordinator.schedule(step, args=(tf.constant(x), tf.constant(y)))
    coordinator.join()
    # The first call on a worker makes the optimizer's hyperparameter variables there,
    # so it traces twice, as TF does after a trace that created variables.
    first = len(traced)
    assert first <= 4
    for _ in range(n):
        coordinator.schedule(step, args=(tf.constant(x), tf.constant(y)))
    coordinator.join()
    assert len(traced) == first  # later steps replay
    assert int(optimizer.iterations.numpy()) == 2 * n  # every replay counted once
    np.testing.assert_allclose(model.weights[0].numpy().ravel(), [1.0, -2.0, 0.5], atol=1e-3)


# --- the same program under real TF ---------------------------------------------------

PROGRAM = r'''
import importlib, json, os, sys
import numpy as np
import portpicker
os.environ["GRPC_FAIL_FAST"] = "use_caller"
tf = importlib.import_module(os.environ["TF_MODULE"])
ports = [portpicker.pick_unused_port() for _ in range(4)]
spec = tf.train.ClusterSpec({"worker": ["localhost:%d" % p for p in ports[:2]],
                             "ps": ["localhost:%d" % p for p in ports[2:]]})
config = None
if hasattr(tf, "compat"):
    config = tf.compat.v1.ConfigProto()
    config.inter_op_parallelism_threads = 3
for job, i in (("worker", 0), ("worker", 1), ("ps", 0), ("ps", 1)):
    tf.distribute.Server(spec, job_name=job, task_index=i, protocol="grpc",
                         config=config if job == "worker" else None)
resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec, rpc_layer="grpc")
strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
with strategy.scope():
    counter = tf.Variable(0, dtype=tf.int64, name="counter")
    w = tf.Variable(10.0, name="w")
coord = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
traced = []

def dataset_fn():
    return tf.data.Dataset.range(1000).map(lambda x: x * 3)

it = iter(coord.create_per_worker_dataset(dataset_fn))

@tf.function
def step(iterator):
    traced.append(1)
    counter.assign_add(1)
    with tf.GradientTape() as tape:
        loss = 2.0 * w
    w.assign_sub(0.5 * tape.gradient(loss, w))
    return next(iterator) + tf.cast(0 * counter, tf.int64)

rvs = [coord.schedule(step, args=(it,)) for _ in range(30)]
coord.join()
vals = [int(r.fetch()) for r in rvs]
out = {"counter": int(counter.numpy()), "w": float(w.numpy()),
       "python_ran_less_than_steps": len(traced) < 30,
       "values_in_range": all(x % 3 == 0 and 0 <= x < 90 for x in vals),
       "each_value_at_most_twice": all(vals.count(x) <= 2 for x in vals),
       "fetch_type": type(rvs[0].fetch()).__name__}
print("RESULT " + json.dumps(out), flush=True)
os._exit(0)
'''


def _run(module: str, tmp_path) -> dict:
    script = tmp_path / f"traced_{module}.py"
    script.write_text(PROGRAM)
    env = dict(os.environ, TF_MODULE=module, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3",
               CUDA_VISIBLE_DEVICES="", OMP_NUM_THREADS="1")
    proc = subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines = []
    try:
        for line in proc.stdout:  # up to the result line, then the process is ended
            lines.append(line)
            if line.startswith("RESULT "):
                return json.loads(line[len("RESULT "):])
        raise AssertionError(f"{module} printed no result:\n" + "".join(lines[-40:]))
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stdout.close()


@pytest.mark.compat
def test_traced_scheduled_function_matches_tf(tmp_path):
    real_tf()  # skips when TensorFlow is not installed
    pytest.importorskip("portpicker")
    theirs = _run("tensorflow", tmp_path)
    ours = _run("torchflow", tmp_path)
    assert theirs["python_ran_less_than_steps"]  # TF traces once (on its coordinator)
    assert ours == theirs
