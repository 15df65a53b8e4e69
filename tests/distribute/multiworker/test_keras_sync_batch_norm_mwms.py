"""tf.keras.layers.experimental.SyncBatchNormalization under a 2-worker
MultiWorkerMirroredStrategy (one process per worker on 127.0.0.1): each worker
normalises its half of the global batch with the statistics of the whole batch,
all-reduced across the processes, and its input gradients include the other worker's
loss; outputs, moving statistics and gradients equal NumPy / BatchNormalization over the
global batch."""

import numpy as np
import pytest

pytestmark = pytest.mark.multiprocess

SCRIPT = """
import json
import numpy as np
import torchflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
me = strategy.cluster_resolver.task_id
rng = np.random.default_rng(0)
x = rng.normal(loc=1.0, scale=2.0, size=(8, 3)).astype(np.float32)
w = rng.normal(size=(8, 3)).astype(np.float32)
with strategy.scope():
    layer = tf.keras.layers.experimental.SyncBatchNormalization(momentum=0.5)
    layer.build((None, 3))

def step(xb, wb):
    with tf.GradientTape() as tape:
        tape.watch(xb)
        y = layer(xb, training=True)
        loss = tf.reduce_sum(y ** 2 * wb)
    return y, tape.gradient(loss, xb)

y, dx = strategy.run(step, args=(tf.constant(x[4 * me:4 * me + 4]),
                                 tf.constant(w[4 * me:4 * me + 4])))
print("RESULT " + json.dumps({
    "y": y.numpy().tolist(), "dx": dx.numpy().tolist(),
    "mean": layer.moving_mean.numpy().tolist(),
    "var": layer.moving_variance.numpy().tolist(),
    "nrep": strategy.num_replicas_in_sync}))
"""


def test_sync_batch_norm_across_two_workers(run_cluster):
    import torchflow as tf

    outs = run_cluster(SCRIPT, 2, timeout=120)
    for o in outs:
        assert o["rc"] == 0, o["err"][-3000:]
    res = [o["result"] for o in outs]
    assert [r["nrep"] for r in res] == [2, 2]
    rng = np.random.default_rng(0)
    x = rng.normal(loc=1.0, scale=2.0, size=(8, 3)).astype(np.float32)
    w = rng.normal(size=(8, 3)).astype(np.float32)
    mean, var = x.astype(np.float64).mean(0), x.astype(np.float64).var(0)
    y = np.concatenate([r["y"] for r in res])
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-5)
    for r in res:
        np.testing.assert_allclose(r["mean"], 0.5 * mean, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(r["var"], 0.5 + 0.5 * var, rtol=1e-5)
    bn = tf.keras.layers.BatchNormalization()
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        loss = tf.reduce_sum(bn(xt, training=True) ** 2 * w)
    np.testing.assert_allclose(np.concatenate([r["dx"] for r in res]),
                               tape.gradient(loss, xt).numpy(), rtol=1e-3, atol=1e-4)
