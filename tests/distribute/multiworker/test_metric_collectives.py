"""Keras metrics under MultiWorkerMirroredStrategy: the cross-worker reads of the
metrics' sync-on-read variables take one collective call, not one per variable.

Counted at ``core.collective.CollectiveGroup._all_reduce`` (every all-reduce between
workers runs it, in traced steps too: their recordings call ``all_reduce`` as a host
node) in each worker, per epoch of a quiet ``fit`` (verbose=0,
metrics read once, at the epoch's end) and per ``evaluate`` step. The values are
checked against a third process training alone on the same global batches, and the
count against what the program needs: one gradient all-reduce per step, plus one
metric read.
"""

import numpy as np
import pytest

pytestmark = pytest.mark.multiprocess

COUNT = """
import json
import numpy as np
import torchflow as tf
from torchflow._src.core import collective

calls = []
orig = collective.CollectiveGroup._all_reduce
def counted(self, ts, *a, **k):
    calls.append(len(ts))
    return orig(self, ts, *a, **k)
collective.CollectiveGroup._all_reduce = counted


class MeanOfMeans(tf.keras.metrics.Metric):
    # A metric whose state is MEAN-aggregated (the Keras default is SUM), read with
    # the SUM ones in the same collective.
    def __init__(self, name="mean_of_means"):
        super().__init__(name=name)
        self.m = self.add_weight("m", aggregation=tf.VariableAggregation.MEAN)

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.m.assign(tf.reduce_mean(y_pred))

    def result(self):
        return self.m + 0.0


strategy = tf.distribute.MultiWorkerMirroredStrategy()
tf.random.set_seed(0)
x = (np.arange(48 * 3).reshape(48, 3) % 7 / 7).astype(np.float32)
y = (x @ np.array([1., 2., 3.], np.float32) + 0.5).astype(np.float32)[:, None]
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse",
                  metrics=["mae", "mse", tf.keras.metrics.RootMeanSquaredError(),
                           MeanOfMeans()])
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
per_epoch = []
class Count(tf.keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        self.start = len(calls)
    def on_epoch_end(self, epoch, logs=None):
        per_epoch.append(len(calls) - self.start)
hist = model.fit(ds, epochs=2, verbose=0, callbacks=[Count()])
start = len(calls)
ev = model.evaluate(ds, verbose=0, return_dict=True)
n_vars = sum(len(m.variables) for m in model.metrics)
print("RESULT " + json.dumps({"per_epoch": per_epoch, "eval_calls": len(calls) - start,
                              "hist": hist.history, "ev": ev, "n_vars": n_vars,
                              "nrep": strategy.num_replicas_in_sync}))
"""


def test_metrics_read_with_one_collective(run_cluster):
    from cluster_helpers import tf_config

    # Tasks 0 and 1 form the cluster; task 2 trains alone on the same global batches.
    outs = run_cluster(COUNT, 3, timeout=180, env_fn=lambda i, ports: {
        "TF_CONFIG": tf_config(2, i, ports) if i < 2 else ""})
    for o in outs:
        assert o["rc"] == 0, o["err"][-3000:]
    w0, w1, ref = (o["result"] for o in outs)
    assert (w0["nrep"], w1["nrep"], ref["nrep"]) == (2, 2, 1)
    steps = 48 // 8
    # The metrics hold 9 state variables (loss, mae, mse, rmse: total+count each;
    # MeanOfMeans: one): before batching, an epoch's end read took 9 all-reduces
    # (15 calls an epoch) and each evaluate step as many (54 calls for 6 steps).
    assert w0["n_vars"] == w1["n_vars"] == 9
    for w in (w0, w1):
        # One gradient all-reduce per step, one for every metric at the epoch's end.
        assert w["per_epoch"] == [steps + 1, steps + 1], (w["per_epoch"], w["eval_calls"])
        # evaluate: one metric read per step (the logs its callbacks receive).
        assert w["eval_calls"] == steps, w["eval_calls"]
    assert ref["per_epoch"] == [0, 0] and ref["eval_calls"] == 0
    # Same values as one process on the same global batches, alike on both workers.
    for k in ("loss", "mae", "mse", "root_mean_squared_error", "mean_of_means"):
        np.testing.assert_allclose(w0["hist"][k], ref["hist"][k], rtol=1e-5)
        assert w0["hist"][k] == w1["hist"][k]
    for k in w0["hist"]:
        np.testing.assert_allclose(w0["ev"][k], ref["ev"][k], rtol=1e-5)
        assert w0["ev"][k] == w1["ev"][k]
