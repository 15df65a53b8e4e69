"""MultiWorkerMirroredStrategy between real worker processes on 127.0.0.1.

References: NumPy (the same SGD on the same global batches, from the chief's
initial values) and the data each worker must read under each auto-shard policy.
"""

import numpy as np
import pytest

pytestmark = pytest.mark.multiprocess

LOOP = """
import json, os, sys
import numpy as np
import torchflow as tf
strategy = tf.distribute.MultiWorkerMirroredStrategy(
    communication_options=tf.distribute.experimental.CommunicationOptions(
        bytes_per_pack=int(sys.argv[1]), timeout_seconds=60,
        implementation=sys.argv[2]))
r = strategy.cluster_resolver
packs = []
from torchflow._src.core import collective
orig = collective._packs
collective._packs = lambda idx, ts, b: packs.append(b) or orig(idx, ts, b)
GB = 8
x = (np.arange(40 * 3).reshape(40, 3) % 7 / 7).astype(np.float32)
y = (x @ np.array([1., 2., 3.], np.float32) + 0.5).astype(np.float32)
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(GB)
tf.random.set_seed(r.task_id + 1)  # different on each worker: the chief's must win
with strategy.scope():
    w = tf.Variable(tf.random.normal([3, 1]))
    b = tf.Variable(0.)
init = w.numpy().tolist() + [[float(b.numpy())]]
dist = strategy.experimental_distribute_dataset(ds)
def step(xb, yb):
    with tf.GradientTape() as tape:
        pred = tf.matmul(xb, w)[:, 0] + b
        loss = tf.reduce_sum((pred - yb) ** 2) / GB
    grads = tape.gradient(loss, [w, b])
    grads = tf.distribute.get_replica_context().all_reduce("SUM", grads)
    w.assign_sub(0.1 * grads[0]); b.assign_sub(0.1 * grads[1])
    return loss, xb
losses, seen = [], []
for xb, yb in dist:
    per, xs = strategy.run(step, args=(xb, yb))
    losses.append(float(strategy.reduce("SUM", per, axis=None)))
    seen.append(xs.numpy().tolist())
ctx_sum = strategy.run(lambda: tf.distribute.get_replica_context().all_reduce(
    "SUM", tf.constant(float(r.task_id + 1))))
mean = strategy.reduce("MEAN", tf.constant(float(r.task_id)), axis=None)
gathered = strategy.gather(tf.constant([float(r.task_id)] * (r.task_id + 1)), axis=0)
print("RESULT " + json.dumps({
    "init": init, "w": w.numpy().tolist(), "b": float(b.numpy()), "losses": losses,
    "seen": seen, "nrep": strategy.num_replicas_in_sync, "sum": float(ctx_sum),
    "mean": float(mean), "gathered": gathered.numpy().tolist(), "packs": sorted(set(packs)),
    "task": [r.task_type, r.task_id], "chief": strategy.extended.should_checkpoint}))
"""


def _numpy_sgd(init, steps=5, gb=8, lr=0.1):
    x = (np.arange(40 * 3).reshape(40, 3) % 7 / 7).astype(np.float32)
    y = (x @ np.array([1., 2., 3.], np.float32) + 0.5).astype(np.float32)
    w = np.array(init[:3], np.float64)
    b = float(init[3][0])
    losses = []
    for s in range(steps):
        xb, yb = x[s * gb:(s + 1) * gb], y[s * gb:(s + 1) * gb]
        err = (xb @ w)[:, 0] + b - yb
        losses.append(float((err ** 2).sum() / gb))
        w = w - lr * (2 / gb) * (xb.T @ err)[:, None]
        b = b - lr * (2 / gb) * err.sum()
    return w, b, losses


def test_custom_loop_matches_single_process_sgd(run_cluster):
    # Gradients in packs of at most 4 bytes over the RING (Gloo) implementation; the
    # default options are what the Keras tests below run with.
    pack, impl = 4, "RING"
    outs = run_cluster(LOOP, 2, timeout=90, args=(pack, impl))
    for o in outs:
        assert o["rc"] == 0, o["err"][-3000:]
    r0, r1 = outs[0]["result"], outs[1]["result"]
    # Every worker starts from the chief's values and stays bit-identical.
    assert r0["init"] == r1["init"]
    assert (r0["w"], r0["b"]) == (r1["w"], r1["b"])
    assert r0["task"] == ["worker", 0] and r1["task"] == ["worker", 1]
    assert r0["chief"] is True and r1["chief"] is False
    w, b, losses = _numpy_sgd(r0["init"])
    np.testing.assert_allclose(np.array(r0["w"]), w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r0["b"], b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r0["losses"], losses, rtol=1e-5)
    assert r0["losses"] == r1["losses"]
    # DATA sharding of each global batch of 8: worker 0 rows 0-3, worker 1 rows 4-7.
    x = (np.arange(40 * 3).reshape(40, 3) % 7 / 7).astype(np.float32)
    for k, r in enumerate((r0, r1)):
        for s, xs in enumerate(r["seen"]):
            np.testing.assert_array_equal(np.array(xs, np.float32),
                                          x[s * 8 + 4 * k:s * 8 + 4 * k + 4])
        assert r["nrep"] == 2 and r["sum"] == 3.0 and r["mean"] == 0.5
        assert r["gathered"] == [0.0, 1.0, 1.0]
        assert pack in r["packs"]  # the gradients went in packs of bytes_per_pack


SHARD = """
import json, os, sys
import numpy as np
import torchflow as tf
strategy = tf.distribute.MultiWorkerMirroredStrategy()
P = tf.data.experimental.AutoShardPolicy
me = strategy.cluster_resolver.task_id
out = []
for policy, nfiles in json.loads(sys.argv[1]):
    if nfiles:
        names = []
        for i in range(nfiles):
            names.append(f"part{i}.txt.{me}")
            with open(names[-1], "w") as f:
                f.write("".join(f"{10 * i + k}\\n" for k in range(4)))
        ds = tf.data.TextLineDataset(names).map(tf.strings.to_number).batch(4)
    else:
        ds = tf.data.Dataset.range(16).batch(4)
    opts = tf.data.Options()
    opts.experimental_distribute.auto_shard_policy = getattr(P, policy)
    ds = ds.with_options(opts)
    try:
        dist = strategy.experimental_distribute_dataset(ds)
        out.append({"seen": [x.numpy().tolist() for x in dist]})
    except (tf.errors.OpError, ValueError) as e:
        out.append({"error": type(e).__name__, "msg": str(e)})
def dataset_fn(ctx):
    d = tf.data.Dataset.range(8).shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
    return d.batch(ctx.get_per_replica_batch_size(4))
fn_ds = strategy.distribute_datasets_from_function(dataset_fn)
out.append({"seen": [strategy.experimental_local_results(x)[0].numpy().tolist()
                     for x in fn_ds]})
print("RESULT " + json.dumps(out))
"""

SHARD_CASES = [
    # 16 elements in global batches of 4: each worker keeps its 2 of each batch.
    ("DATA", 0, [[[0, 1], [4, 5], [8, 9], [12, 13]], [[2, 3], [6, 7], [10, 11], [14, 15]]]),
    ("AUTO", 0, [[[0, 1], [4, 5], [8, 9], [12, 13]], [[2, 3], [6, 7], [10, 11], [14, 15]]]),
    ("OFF", 0, [[[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11], [12, 13], [14, 15]]] * 2),
    # Two files of 4 lines: each worker reads one file, 2 elements a step.
    ("FILE", 2, [[[0, 1], [2, 3]], [[10, 11], [12, 13]]]),
    ("AUTO", 2, [[[0, 1], [2, 3]], [[10, 11], [12, 13]]]),
    # One file, two workers: an error at once on every worker (TF hangs here).
    ("FILE", 1, "InvalidArgumentError"),
    ("AUTO", 1, "InvalidArgumentError"),
    ("FILE", 0, "NotFoundError"),
]


def test_auto_shard_policies(run_cluster):
    import json

    cases = json.dumps([[p, n] for p, n, _ in SHARD_CASES])
    outs = run_cluster(SHARD, 2, timeout=90, args=(cases,))
    for k, o in enumerate(outs):
        assert o["result"] is not None, o["err"][-3000:]
        # distribute_datasets_from_function: the InputContext shards by worker and
        # gives the per-replica batch size (4 / 2 replicas).
        assert o["result"][-1]["seen"] == [[[0, 2], [4, 6]], [[1, 3], [5, 7]]][k]
        for (policy, nfiles, want), r in zip(SHARD_CASES, o["result"]):
            if isinstance(want, str):
                assert r.get("error") == want, (policy, nfiles, r)
                if want == "InvalidArgumentError":
                    assert "1 file(s) but 2 workers" in r["msg"]
            else:
                assert r.get("seen") == want[k], (policy, nfiles, r)


FIT = """
import json, os, sys
import numpy as np
import torchflow as tf
strategy = tf.distribute.MultiWorkerMirroredStrategy()
tf.random.set_seed(0)
x = (np.arange(48 * 3).reshape(48, 3) % 7 / 7).astype(np.float32)
y = (x @ np.array([1., 2., 3.], np.float32) + 0.5).astype(np.float32)[:, None]
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
hist = model.fit(ds, epochs=2, verbose=1)
ev = model.evaluate(ds, verbose=0)
print("RESULT " + json.dumps({"w": [w.tolist() for w in model.get_weights()],
                              "hist": hist.history, "ev": ev,
                              "nrep": strategy.num_replicas_in_sync}))
"""


def test_keras_fit_two_workers_equals_one_process(run_cluster):
    from cluster_helpers import tf_config

    # Tasks 0 and 1 form the cluster; task 2 trains alone on the same global batches.
    outs = run_cluster(FIT, 3, timeout=120, env_fn=lambda i, ports: {
        "TF_CONFIG": tf_config(2, i, ports) if i < 2 else ""})
    for o in outs:
        assert o["rc"] == 0, o["err"][-3000:]
    w0, w1, ref = (o["result"] for o in outs)
    assert (w0["nrep"], w1["nrep"], ref["nrep"]) == (2, 2, 1)
    assert w0["w"] == w1["w"]  # bit-identical across workers
    for a, b in zip(w0["w"], ref["w"]):
        np.testing.assert_allclose(np.array(a), np.array(b), rtol=1e-5, atol=1e-6)
    for k in ("loss", "mae"):  # metrics aggregated across the workers
        np.testing.assert_allclose(w0["hist"][k], ref["hist"][k], rtol=1e-5)
        assert w0["hist"][k] == w1["hist"][k]
    np.testing.assert_allclose(w0["ev"], ref["ev"], rtol=1e-5)
    # verbose=1 prints the progress bar on every worker, the non-chief too, as TF 2.4's
    # Keras does (no chief check in its ProgbarLogger) and real TF 2.21's MWMS does here
    # (checked with 2 TF_CONFIG processes): each shows the same, aggregated, logs.
    for o in outs[:2]:
        assert "Epoch 1/2" in o["out"] and "Epoch 2/2" in o["out"], o["out"][-2000:]
        last = o["out"].split("Epoch 2/2")[1]
        assert "6/6 [" in last and f"loss: {w0['hist']['loss'][1]:.4f}" in last, last
