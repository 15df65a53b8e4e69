"""The same 2-worker Keras program under real TF's MultiWorkerMirroredStrategy and
torchflow's (TF_CONFIG on 127.0.0.1, CPU): weights, losses and metrics agree."""

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
x = rng.standard_normal((64, 3)).astype(np.float32)
y = (x @ np.array([1., -2., 3.], np.float32) + 0.5).astype(np.float32)[:, None]
init = [rng.standard_normal((3, 4)).astype(np.float32) * 0.5, np.zeros(4, np.float32),
        rng.standard_normal((4, 1)).astype(np.float32) * 0.5, np.zeros(1, np.float32)]
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                 tf.keras.layers.Dense(1)])
    model.set_weights(init)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05, momentum=0.9), loss="mse",
                  metrics=["mae"])
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
hist = model.fit(ds, epochs=3, verbose=0)
ev = model.evaluate(ds, verbose=0)
print("RESULT " + json.dumps({"w": [w.tolist() for w in model.get_weights()],
                              "hist": {k: [float(v) for v in vs]
                                       for k, vs in hist.history.items()},
                              "ev": [float(v) for v in ev],
                              "nrep": strategy.num_replicas_in_sync}), flush=True)
"""


def test_two_worker_fit_matches_real_tf(run_cluster):
    pytest.importorskip("tensorflow")

    def env(i, ports):
        pair = ports[:2] if i < 2 else ports[2:]
        return {"TF_MODULE": "torchflow" if i < 2 else "tensorflow",
                "TF_CONFIG": json.dumps({"cluster": {"worker": [f"127.0.0.1:{p}"
                                                                for p in pair]},
                                         "task": {"type": "worker", "index": i % 2}})}

    outs = run_cluster(PROGRAM, 4, timeout=180, env_fn=env)
    for o in outs:
        assert o["rc"] == 0, o["err"][-3000:]
    ours, theirs = outs[0]["result"], outs[2]["result"]
    assert ours["nrep"] == theirs["nrep"] == 2
    assert ours["w"] == outs[1]["result"]["w"]
    for a, b in zip(ours["w"], theirs["w"]):
        np.testing.assert_allclose(np.array(a), np.array(b), rtol=1e-4, atol=1e-5)
    for k in ("loss", "mae"):
        np.testing.assert_allclose(ours["hist"][k], theirs["hist"][k], rtol=1e-4)
    np.testing.assert_allclose(ours["ev"], theirs["ev"], rtol=1e-4)
