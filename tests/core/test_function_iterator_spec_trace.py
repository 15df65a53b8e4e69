"""A ``tf.function`` given an iterator traces once per iterator type spec, as TF 2.4.

TF passes a ``tf.data`` iterator and a ``tf.distribute`` ``DistributedIterator``
(a composite whose ``DistributedIteratorSpec`` is the trace key) by reference: a
fresh iterator of the same dataset each epoch reuses the trace, and the replayed
function reads the iterator of that call. The program runs under real TF and
torchflow, each in a fresh process (two logical CPUs must be set before the
runtime starts), and must print the same values and trace counts.

Single-replica strategies only: with several local replicas torchflow's
``strategy.run`` inside a ``tf.function`` runs the body again on every call (a
separate limitation, whatever the arguments are).
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

PROGRAM = r'''
import json, sys
if sys.argv[1] == "tensorflow":
    import tensorflow as tf
else:
    import torchflow as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
out = {}
ds = tf.data.Dataset.range(8).batch(4)

def epochs(name, strategy, make_iter, n_steps=2):
    traces = []
    @tf.function
    def step(it):
        traces.append(1)
        r = strategy.run(lambda b: tf.reduce_sum(b) * 10 + tf.size(b, tf.int64), args=(next(it),))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, r, axis=None)
    vals = []
    for _ in range(3):
        it = make_iter()
        vals.append([int(step(it)) for _ in range(n_steps)])
    out[name] = {"values": vals, "traces": len(traces)}

s1 = tf.distribute.MirroredStrategy(["/cpu:0"])
dd1 = s1.experimental_distribute_dataset(ds)
epochs("mirrored_1", s1, lambda: iter(dd1))
dfn = s1.distribute_datasets_from_function(
    lambda ctx: tf.data.Dataset.range(8).batch(ctx.get_per_replica_batch_size(4)))
epochs("from_function", s1, lambda: iter(dfn))
mw = tf.distribute.MultiWorkerMirroredStrategy()
ddm = mw.experimental_distribute_dataset(ds)
epochs("multi_worker", mw, lambda: iter(ddm))

traces = []
@tf.function
def plain(it):
    traces.append(1)
    return tf.reduce_sum(next(it))
out["plain"] = {"values": [[int(plain(it)) for _ in range(2)] for it in
                           (iter(ds) for _ in range(3))], "traces": len(traces)}

# A custom training loop without Keras: linear regression, SGD, 3 epochs.
x = tf.reshape(tf.range(16, dtype=tf.float32), (8, 2)) / 10.0
y = tf.reduce_sum(x * tf.constant([1.5, -2.0]), axis=1, keepdims=True) + 0.5
train = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
with s1.scope():
    w = tf.Variable(tf.zeros((2, 1)))
    b = tf.Variable(tf.zeros((1,)))
dtrain = s1.experimental_distribute_dataset(train)
traces = []
@tf.function
def train_step(it):
    traces.append(1)
    def replica(batch):
        xb, yb = batch
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(tf.matmul(xb, w) + b - yb)) / 4.0
        gw, gb = tape.gradient(loss, [w, b])
        ctx = tf.distribute.get_replica_context()
        gw, gb = ctx.all_reduce(tf.distribute.ReduceOp.SUM, [gw, gb])
        w.assign_sub(0.1 * gw)
        b.assign_sub(0.1 * gb)
        return loss
    return s1.reduce(tf.distribute.ReduceOp.SUM, s1.run(replica, args=(next(it),)), axis=None)
losses = []
for _ in range(3):
    it = iter(dtrain)
    losses.append([float(train_step(it)) for _ in range(2)])
out["train"] = {"losses": losses, "traces": len(traces)}
print(json.dumps(out))
'''


def _run(lib):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    r = subprocess.run([sys.executable, "-c", PROGRAM, lib], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def results():
    return _run("torchflow")


def _numpy_losses():
    x = np.arange(16, dtype=np.float32).reshape(8, 2) / 10.0
    y = (x * np.array([1.5, -2.0], np.float32)).sum(1, keepdims=True) + 0.5
    w, b = np.zeros((2, 1), np.float32), np.zeros((1,), np.float32)
    losses = []
    for _ in range(3):
        epoch = []
        for i in (0, 4):
            xb, yb = x[i:i + 4], y[i:i + 4]
            r = xb @ w + b - yb
            epoch.append(float((r ** 2).sum() / 4.0))
            w = w - 0.1 * (xb.T @ (2 * r) / 4.0)
            b = b - 0.1 * (2 * r).sum(0) / 4.0
        losses.append(epoch)
    return losses


@pytest.mark.parametrize("case", ["mirrored_1", "from_function",
                                  "multi_worker", "plain"])
def test_one_trace_and_fresh_iterator_values(results, case):
    r = results[case]
    assert r["traces"] == 1
    # Each epoch reads its own iterator from the start: sums 0+1+2+3, 4+5+6+7.
    want = [6, 22] if case == "plain" else [6 * 10 + 4, 22 * 10 + 4]
    assert r["values"] == [want] * 3


def test_custom_training_loop_fresh_iterator_each_epoch(results):
    r = results["train"]
    assert r["traces"] == 1
    np.testing.assert_allclose(r["losses"], _numpy_losses(), rtol=1e-5)


def test_same_as_tensorflow(results):
    pytest.importorskip("tensorflow")
    ref = _run("tensorflow")
    assert results["train"]["traces"] == ref["train"]["traces"] == 1
    np.testing.assert_allclose(results["train"]["losses"], ref["train"]["losses"], rtol=1e-5)
    for case in ("mirrored_1", "from_function", "multi_worker", "plain"):
        assert results[case] == ref[case], case
