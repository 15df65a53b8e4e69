"""MirroredStrategy over two local replicas (logical CPUs) inside ``tf.function``:
a custom loop and Keras ``fit``/``evaluate``/``predict`` with custom steps run their
Python at traces only, as often as real TF 2.4 does, while the replicas' ops,
``tf.print`` and all-reduces run on every call; values agree with TF's.

The replicas run in threads that take turns; while a function traces, each
replica's thread records into the caller's recording (``graph_trace.borrowed``),
and the ``PerReplica`` batches are a composite of their components (TF's
``PerReplicaSpec``), so a new batch does not mean a new trace. Before, such a
function ran its Python on every call (15 step traces where TF has 2). Each
framework runs in a fresh process: logical devices are set before the runtime
starts.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.compat

PROGRAM = r'''
import importlib, json, sys
import numpy as np
tf = importlib.import_module(sys.argv[1])
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
traces = {"step": 0, "replica": 0}
with strategy.scope():
    w = tf.Variable(np.full((3, 1), 0.1, np.float32))
    opt = tf.keras.optimizers.SGD(0.05, momentum=0.9)
rng = np.random.default_rng(0)
x = rng.standard_normal((40, 3)).astype(np.float32)
y = (x @ np.array([1., -2., 3.], np.float32))[:, None]
ds = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(8))

@tf.function
def step(xb, yb):
    traces["step"] += 1
    def fn(xb, yb):
        traces["replica"] += 1
        with tf.GradientTape() as t:
            loss = tf.reduce_mean((tf.matmul(xb, w) - yb) ** 2)
        g = t.gradient(loss, [w])
        opt.apply_gradients(zip(g, [w]))
        ctx = tf.distribute.get_replica_context()
        tf.print("rp", ctx.replica_id_in_sync_group)
        return loss, ctx.all_reduce("SUM", loss)
    l, s = strategy.run(fn, args=(xb, yb))
    return strategy.reduce("MEAN", l, axis=None), strategy.experimental_local_results(s)[1]

out = []
for e in range(3):
    for xb, yb in ds:
        a, b = step(xb, yb)
        out.append([float(a), float(b)])
n = {"train": 0, "test": 0, "predict": 0}
class M(tf.keras.Model):
    def train_step(self, data):
        n["train"] += 1
        return super().train_step(data)
    def test_step(self, data):
        n["test"] += 1
        return super().test_step(data)
    def predict_step(self, data):
        n["predict"] += 1
        return super().predict_step(data)
rng = np.random.default_rng(0)
x = rng.standard_normal((64, 3)).astype(np.float32)
y = (x @ np.array([1., -2., 3.], np.float32))[:, None]
with strategy.scope():
    inp = tf.keras.Input((3,))
    h = tf.keras.layers.Dense(4, activation="relu", kernel_initializer="glorot_uniform")(inp)
    model = M(inp, tf.keras.layers.Dense(1)(h))
    model.set_weights([np.full((3, 4), 0.3, np.float32), np.zeros(4, np.float32), np.full((4, 1), 0.2, np.float32), np.zeros(1, np.float32)])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
hist = model.fit(ds, epochs=3, verbose=0, validation_data=ds)
ev = model.evaluate(ds, verbose=0)
pr = model.predict(x, batch_size=16)
print("RESULT " + json.dumps({"traces": traces, "out": out, "w_loop": w.numpy().tolist(), "n": n, "hist": {k: [float(v) for v in vs] for k, vs in hist.history.items()}, "ev": [float(v) for v in ev], "pr": pr[:5].ravel().tolist(), "prshape": list(pr.shape), "w": [w.tolist() for w in model.get_weights()]}))
'''


def _run(module: str):
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3",
               CUDA_VISIBLE_DEVICES="")
    p = subprocess.run([sys.executable, "-c", PROGRAM, module], capture_output=True,
                       text=True, env=env, timeout=240)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    assert p.returncode == 0 and lines, p.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT "):]), p.stderr


def test_local_replicas_trace_once_as_real_tf():
    pytest.importorskip("tensorflow")
    ours, our_err = _run("torchflow")
    theirs, their_err = _run("tensorflow")
    # Python at traces only: the custom step twice (the first trace made the
    # momentum slots, so TF 2.4 traces again), each replica once per trace; Keras'
    # steps as often as TF's.
    assert ours["traces"] == theirs["traces"] == {"step": 2, "replica": 4}
    assert ours["n"] == theirs["n"], (ours["n"], theirs["n"])
    # tf.print in each replica on every one of the 15 steps.
    assert our_err.count("rp 0") == our_err.count("rp 1") == 15
    assert their_err.count("rp 0") == 15
    np.testing.assert_allclose(ours["out"], theirs["out"], rtol=1e-5, atol=1e-6)
    # the all-reduce of the two replicas' losses is twice their mean
    np.testing.assert_allclose(np.array(ours["out"])[:, 1], 2 * np.array(ours["out"])[:, 0],
                               rtol=1e-6)
    np.testing.assert_allclose(ours["w_loop"], theirs["w_loop"], rtol=1e-5, atol=1e-6)
    for k in theirs["hist"]:
        np.testing.assert_allclose(ours["hist"][k], theirs["hist"][k], rtol=1e-5)
    np.testing.assert_allclose(ours["ev"], theirs["ev"], rtol=1e-5)
    assert ours["prshape"] == theirs["prshape"] == [64, 1]
    np.testing.assert_allclose(ours["pr"], theirs["pr"], rtol=1e-4, atol=1e-6)
    for a, b in zip(ours["w"], theirs["w"]):
        np.testing.assert_allclose(np.array(a), np.array(b), rtol=1e-4, atol=1e-6)
