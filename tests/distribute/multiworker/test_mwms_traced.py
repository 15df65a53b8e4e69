"""Traced steps under MultiWorkerMirroredStrategy, against real TF's: a
``tf.function`` whose replicas all-reduce and all-gather, and Keras ``fit`` /
``evaluate`` with a custom ``train_step`` / ``test_step``, run their Python at
traces only (as many times as TF's), while the collectives and ``tf.print`` run
on every step; losses, weights and gathered values agree with TF's.

Before the collectives were host nodes of the recording, such a function ran its
Python on every call (8 step traces where TF has 3), and Keras ran distributed
steps without a ``tf.function`` at all (12 ``train_step`` runs where TF has 2).
"""

import json

import numpy as np
import pytest

pytestmark = [pytest.mark.multiprocess, pytest.mark.compat]

PROGRAM = """
import importlib, json, os, sys
import numpy as np
tf = importlib.import_module(os.environ["TF_MODULE"])
strategy = tf.distribute.MultiWorkerMirroredStrategy()
rng = np.random.default_rng(0)
x = rng.standard_normal((60, 3)).astype(np.float32)
y = (x @ np.array([1., -2., 3.], np.float32) + 0.5).astype(np.float32)[:, None]
traces = {"step": 0, "replica": 0, "train_step": 0, "test_step": 0}
with strategy.scope():
    w = tf.Variable(np.full((3, 1), 0.1, np.float32))
    b = tf.Variable(np.zeros(1, np.float32))
opt = tf.keras.optimizers.SGD(0.05)
opt.iterations  # made now, so that no trace creates variables

@tf.function
def step(xb, yb):
    traces["step"] += 1
    def replica_fn(xb, yb):
        traces["replica"] += 1
        ctx = tf.distribute.get_replica_context()
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((tf.matmul(xb, w) + b - yb) ** 2)
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b]))
        rows = ctx.all_reduce("SUM", tf.cast(tf.shape(xb)[0], tf.float32))
        seen = ctx.all_gather(xb[:, :1], axis=0)
        tf.print("step-print", rows)
        return loss, rows, seen
    loss, rows, seen = strategy.run(replica_fn, args=(xb, yb))
    local = strategy.experimental_local_results
    return strategy.reduce("SUM", loss, axis=None), local(rows)[0], local(seen)[0]

ds = strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensor_slices((x, y)).batch(16))
losses, rows, seen = [], [], []
for epoch in range(2):
    for xb, yb in ds:
        t, r, s = step(xb, yb)
        losses.append(float(t))
        rows.append(float(r))
        seen.append(s.numpy().ravel().tolist())

class M(tf.keras.Model):
    def train_step(self, data):
        traces["train_step"] += 1
        return super().train_step(data)
    def test_step(self, data):
        traces["test_step"] += 1
        return super().test_step(data)

with strategy.scope():
    inp = tf.keras.Input((3,))
    model = M(inp, tf.keras.layers.Dense(1, kernel_initializer="ones")(inp))
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
full = tf.data.Dataset.from_tensor_slices((x[:48], y[:48])).batch(16)
hist = model.fit(full, epochs=3, verbose=0, validation_data=full)
ev = model.evaluate(full, verbose=0)
print("RESULT " + json.dumps({
    "traces": traces, "losses": losses, "rows": rows, "seen": seen,
    "w": w.numpy().tolist(), "b": b.numpy().tolist(),
    "fit": {k: [float(v) for v in vs] for k, vs in hist.history.items()},
    "ev": [float(v) for v in ev], "kernel": model.get_weights()[0].tolist()}), flush=True)
"""


def test_traced_steps_match_real_tf(run_cluster):
    pytest.importorskip("tensorflow")

    def env(i, ports):
        pair = ports[:2] if i < 2 else ports[2:]
        return {"TF_MODULE": "torchflow" if i < 2 else "tensorflow",
                "TF_USE_LEGACY_KERAS": "1",
                "TF_CONFIG": json.dumps({"cluster": {"worker": [f"127.0.0.1:{p}"
                                                                for p in pair]},
                                         "task": {"type": "worker", "index": i % 2}})}

    outs = run_cluster(PROGRAM, 4, timeout=240, env_fn=env)
    for o in outs:
        assert o["rc"] == 0, o["err"][-3000:]
    ours, theirs = outs[0]["result"], outs[2]["result"]
    assert outs[1]["result"] == ours  # the workers stay identical
    # Python at traces only, as often as TF: the step traces for the full and the
    # final partial batch; Keras' steps once.
    assert ours["traces"] == theirs["traces"], (ours["traces"], theirs["traces"])
    assert ours["traces"]["replica"] <= 3 and ours["traces"]["train_step"] <= 2
    # tf.print ran on every one of the 8 steps, on each worker.
    for o in outs:
        assert o["err"].count("step-print") == 8
    assert ours["rows"] == theirs["rows"] == [16.0, 16.0, 16.0, 12.0] * 2
    assert ours["seen"] == theirs["seen"]  # the inputs of both workers, gathered
    np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=1e-5)
    for k in ("w", "b", "kernel", "ev"):
        np.testing.assert_allclose(np.array(ours[k]), np.array(theirs[k]), rtol=1e-5,
                                   atol=1e-6)
    assert ours["fit"].keys() == theirs["fit"].keys()
    for k in ours["fit"]:
        np.testing.assert_allclose(ours["fit"][k], theirs["fit"][k], rtol=1e-5)
