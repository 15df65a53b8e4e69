"""The same MirroredStrategy programs under real TensorFlow and torchflow, on logical
CPU devices, values compared. Each program runs in its own process (logical devices
must be configured before either runtime starts)."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytestmark = pytest.mark.compat

_PRELUDE = """
import json, os, sys
import numpy as np
if sys.argv[1] == "tf":
    import tensorflow as tf
else:
    import torchflow as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 4)
# TF's collectives fail (InternalError) for a strategy over a subset of the logical
# devices, so every section uses all four.
STRATEGIES = {4: tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(4)])}
results = {}
"""

_SECTION = """
def section_{name}(strategy):
    out = {{}}
    def local(v):
        return [np.asarray(t).tolist() for t in strategy.experimental_local_results(v)]
{body}
    return out
results[{name!r}] = section_{name}(STRATEGIES[{n}])
"""

_SECTIONS: dict = {}


def _section(name, n, body):
    _SECTIONS[name] = (n, body)
    return body



def _run(which: str) -> dict:
    if which == "tf":
        pytest.importorskip("tensorflow")
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3",
               TF_ENABLE_ONEDNN_OPTS="0", CUDA_VISIBLE_DEVICES="")
    code = _PRELUDE
    for name, (n, body) in _SECTIONS.items():
        code += _SECTION.format(name=name, n=n,
                                body=textwrap.indent(textwrap.dedent(body), "    "))
    code += "\nprint('RESULT ' + json.dumps(results))\n"
    proc = subprocess.run([sys.executable, "-c", code, which], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


@pytest.fixture(scope="module")
def outputs():
    """Every section's results, from one torchflow and one TF process."""
    return _run("torchflow"), _run("tf")


def _compare(a, b, path="out"):
    if isinstance(a, dict):
        assert sorted(a) == sorted(b), path
        for k in a:
            _compare(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, list) and a and isinstance(a[0], (list, dict)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _compare(x, y, f"{path}[{i}]")
    else:
        np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                                   rtol=2e-5, atol=2e-6, err_msg=path)


_section("custom_loop", 4, """
    rng = np.random.RandomState(0)
    X = rng.randn(24, 3).astype("float32"); Y = rng.randn(24, 1).astype("float32")
    GB = 8
    with strategy.scope():
        w = tf.Variable(rng.randn(3, 1).astype("float32"))
        b = tf.Variable(np.zeros(1, "float32"))
        opt = tf.keras.optimizers.Adam(0.1)
        loss_metric = tf.keras.metrics.Mean()
    dist = strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices((X, Y)).batch(GB))

    def step(x, y):
        with tf.GradientTape() as tape:
            per = tf.reduce_sum(tf.square(tf.matmul(x, w) + b - y), axis=1)
            loss = tf.nn.compute_average_loss(per, global_batch_size=GB)
        g = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(g, [w, b]))
        loss_metric.update_state(per)
        ctx = tf.distribute.get_replica_context()
        return loss, ctx.all_reduce("SUM", loss), ctx.all_gather(per, axis=0)

    @tf.function
    def dstep(x, y):
        loss, summed, gathered = strategy.run(step, args=(x, y))
        return strategy.reduce("SUM", loss, axis=None), summed, gathered

    out["losses"], out["summed"], out["gathered"] = [], [], []
    for epoch in range(2):
        for x, y in dist:
            loss, summed, gathered = dstep(x, y)
            out["losses"].append(float(loss))
            out["summed"].append(local(summed))
            out["gathered"].append(local(gathered))
    out["w"] = w.numpy().tolist(); out["b"] = b.numpy().tolist()
    out["iterations"] = int(opt.iterations.numpy())
    out["metric"] = float(loss_metric.result())
    """)


_section("split", 4, """
    out["split"] = [local(x) for x in
                    strategy.experimental_distribute_dataset(
                        tf.data.Dataset.range(11).batch(6))]
    out["split_map"] = [local(x) for x in strategy.experimental_distribute_dataset(
        tf.data.Dataset.range(13).batch(8).map(lambda v: v * 2))]
    pr = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant([[1.0, 2.0]]) * tf.cast(ctx.replica_id_in_sync_group + 1,
                                                          tf.float32))
    out["sum"] = strategy.reduce("SUM", pr, axis=None).numpy().tolist()
    out["mean"] = strategy.reduce("MEAN", pr, axis=None).numpy().tolist()
    out["mean_axis1"] = strategy.reduce("MEAN", pr, axis=1).numpy().tolist()
    out["gather"] = strategy.gather(pr, axis=0).numpy().tolist()
    with strategy.scope():
        s = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.SUM)
        m = tf.Variable(0.0, aggregation=tf.VariableAggregation.MEAN)

    def fn():
        rid = tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)
        s.assign_add(rid + 1.0)
        m.assign_add(rid)

    strategy.run(fn)
    out["sync_on_read"] = float(s.read_value())
    out["sync_components"] = local(s)
    out["mirrored_mean"] = local(m)
    """)


_section("keras", 4, """
    rng = np.random.RandomState(1)
    X = rng.randn(50, 5).astype("float32"); Y = rng.randint(0, 4, 50).astype("int64")
    with strategy.scope():
        model = tf.keras.Sequential([
            tf.keras.layers.Dense(6, activation="tanh", input_shape=(5,)),
            tf.keras.layers.Dense(4),
        ])
        model.set_weights([rng.randn(*w.shape).astype("float32") * 0.5
                           for w in model.get_weights()])
        model.compile(tf.keras.optimizers.SGD(0.1, momentum=0.9),
                      tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
    # 50 rows in batches of 7: replicas get 2, 2, 2 and 1 rows, the last batch 1, 0, 0, 0.
    h = model.fit(X, Y, batch_size=7, epochs=2, verbose=0, shuffle=False)
    out["history"] = {k: list(v) for k, v in h.history.items()}
    out["weights"] = [w.tolist() for w in model.get_weights()]
    out["evaluate"] = model.evaluate(X, Y, batch_size=9, verbose=0)
    out["predict"] = model.predict(X[:11], batch_size=4, verbose=0).tolist()
    # BatchNormalization: per-replica batch statistics, moving statistics averaged.
    with strategy.scope():
        bn = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(5,)),
                                  tf.keras.layers.BatchNormalization(),
                                  tf.keras.layers.Dense(1)])
        bn.set_weights([rng.rand(*w.shape).astype("float32") for w in bn.get_weights()])
        bn.compile(tf.keras.optimizers.SGD(0.05), "mse")
    h = bn.fit(X[:32], Y[:32, None].astype("float32"), batch_size=8, epochs=2, verbose=0,
               shuffle=False)
    out["bn_history"] = list(h.history["loss"])
    out["bn_weights"] = [w.tolist() for w in bn.get_weights()]
    out["bn_predict"] = bn.predict(X[:5], verbose=0).tolist()
    """)


@pytest.mark.parametrize("name", ["custom_loop", "split", "keras"])
def test_same_program_same_values(outputs, name):
    mine, ref = outputs
    _compare(mine[name], ref[name], name)
