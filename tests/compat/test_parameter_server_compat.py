"""The same parameter-server program under real TF's ParameterServerStrategy (TF 2.21
on CPU, an in-process cluster of 2 workers + 2 ps as TF's tutorial builds it) and under
torchflow's, compared: placement, sharding, names, schedule/fetch/join results and
types, per-worker datasets, exact counts, and the error semantics."""

import json
import os
import signal
import subprocess
import sys

import pytest

from torchflow._src.testing import real_tf

pytestmark = [pytest.mark.compat, pytest.mark.multiprocess]

PROGRAM = r'''
import importlib, json, os, sys
import numpy as np
import portpicker
os.environ["GRPC_FAIL_FAST"] = "use_caller"
tf = importlib.import_module(os.environ.get("TF_MODULE", "tensorflow"))
out = {}
ports = [portpicker.pick_unused_port() for _ in range(4)]
spec = tf.train.ClusterSpec({"worker": ["localhost:%d" % p for p in ports[:2]],
                             "ps": ["localhost:%d" % p for p in ports[2:]]})
# As TF's tutorial does: in-process workers need inter-op threads (this machine has 2
# cores). torchflow has no tf.compat.v1.ConfigProto yet and needs no config.
config = None
if hasattr(tf, "compat"):
    config = tf.compat.v1.ConfigProto()
    config.inter_op_parallelism_threads = 3
for job, i in (("worker", 0), ("worker", 1), ("ps", 0), ("ps", 1)):
    tf.distribute.Server(spec, job_name=job, task_index=i, protocol="grpc",
                         config=config if job == "worker" else None)
resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec, rpc_layer="grpc")
strategy = tf.distribute.experimental.ParameterServerStrategy(
    resolver, variable_partitioner=tf.distribute.experimental.partitioners.FixedShardsPartitioner(2))
with strategy.scope():
    emb = tf.Variable(np.arange(18, dtype=np.float32).reshape(9, 2), name="emb")
    v = tf.Variable(1.5, name="v")
    counter = tf.Variable(0, dtype=tf.int64, name="counter")
    w = tf.Variable(0.0, name="w")
out["shard_devices"] = [s.device for s in emb.variables]
out["shard_shapes"] = [list(s.shape) for s in emb.variables]
out["shard_names"] = [s.name for s in emb.variables]
out["devices"] = [v.device, counter.device, w.device]
out["names"] = [v.name, counter.name]
out["num_replicas_in_sync"] = strategy.num_replicas_in_sync
out["emb_value"] = tf.convert_to_tensor(emb).numpy().tolist()
coord = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)

@tf.function
def bump():
    counter.assign_add(1)
    return tf.constant(2, tf.int32)

rvs = [coord.schedule(bump) for _ in range(40)]
coord.join()
out["counter"] = int(counter.numpy())
f = rvs[0].fetch()
out["fetch"] = [type(f).__name__, str(f.dtype), int(f)]
# (A variable in fetch's structure: TF 2.4 reads it as NumPy, TF 2.21 returns it as a
# variable; not compared.)
fetched = coord.fetch({"a": rvs[1], "b": [rvs[2]]})
out["coord_fetch"] = [type(fetched["a"]).__name__, type(fetched["b"][0]).__name__]
out["done"] = coord.done()

def dataset_fn():
    return tf.data.Dataset.range(1000)

it = iter(coord.create_per_worker_dataset(dataset_fn))

@tf.function
def take(iterator):
    return next(iterator)

taken = [coord.schedule(take, args=(it,)) for _ in range(20)]
coord.join()
vals = sorted(int(r.fetch()) for r in taken)
out["taken_max_repeat"] = max(vals.count(x) for x in vals) <= 2
out["taken_range"] = all(0 <= x < 20 for x in vals)

@tf.function
def sgd_step():
    with tf.GradientTape() as tape:
        loss = 1.0 * w
    w.assign_sub(tape.gradient(loss, w))

for _ in range(30):
    coord.schedule(sgd_step)
coord.join()
out["w"] = float(w.numpy())

@tf.function
def bad():
    tf.debugging.assert_equal(counter, tf.constant(-1, tf.int64), message="one is not two")
    return tf.constant(0)

@tf.function
def slow():
    return tf.constant(1)

bad_rv = coord.schedule(bad)
try:
    coord.join()
    out["join_error"] = None
except Exception as e:
    out["join_error"] = type(e).__name__
    out["join_error_has_message"] = "one is not two" in str(e)
try:
    bad_rv.fetch()
except Exception as e:
    out["bad_fetch_error"] = type(e).__name__
coord.join()
out["second_join"] = "ok"
out["after_error"] = int(coord.schedule(slow).fetch())
print("RESULT " + json.dumps(out))
sys.stdout.flush()
os._exit(0)
'''


def _run(module: str, tmp_path) -> dict:
    script = tmp_path / f"prog_{module}.py"
    script.write_text(PROGRAM)
    env = dict(os.environ, TF_MODULE=module, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3",
               CUDA_VISIBLE_DEVICES="", OMP_NUM_THREADS="1")
    proc = subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines = []
    try:
        # TF's in-process servers can keep the process from exiting: read up to the
        # result line, then end the process by its PID.
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("RESULT "):
                return json.loads(line[len("RESULT "):])
        raise AssertionError(f"{module} printed no result:\n" + "".join(lines[-40:]))
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stdout.close()


def test_parameter_server_program_matches_tf(tmp_path):
    real_tf()  # skips when TensorFlow is not installed
    pytest.importorskip("portpicker")
    theirs = _run("tensorflow", tmp_path)
    ours = _run("torchflow", tmp_path)
    assert ours == theirs
