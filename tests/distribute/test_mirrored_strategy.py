"""MirroredStrategy on two logical CPUs: distributed variables, input, optimizers and
Keras, each against single-device training or an analytic value."""

import numpy as np
import pytest

import torchflow as tf


def _local(strategy, value):
    return [t.numpy() for t in strategy.experimental_local_results(value)]


# --- variables ----------------------------------------------------------------------


def test_variables_in_scope_are_mirrored(strategy2):
    with strategy2.scope():
        v = tf.Variable([1.0, 2.0])
    assert isinstance(v, tf.Variable)
    assert isinstance(v, tf.distribute.DistributedValues)
    assert strategy2.extended.variable_created_in_scope(v)
    assert type(v).__name__ == "MirroredVariable"
    comps = strategy2.experimental_local_results(v)
    assert len(comps) == 2
    reads = strategy2.run(lambda: v * 1.0)
    for r in _local(strategy2, reads):
        np.testing.assert_array_equal(r, [1.0, 2.0])


@pytest.mark.parametrize("aggregation, expected", [
    (tf.VariableAggregation.SUM, 0.0 + 1.0 + 2.0),
    (tf.VariableAggregation.MEAN, 0.0 + 1.5),
    (tf.VariableAggregation.ONLY_FIRST_REPLICA, 0.0 + 1.0),
])
def test_mirrored_variable_replica_writes_aggregate(strategy2, aggregation, expected):
    with strategy2.scope():
        v = tf.Variable(0.0, aggregation=aggregation)

    def fn():
        rid = tf.distribute.get_replica_context().replica_id_in_sync_group
        v.assign_add(tf.cast(rid, tf.float32) + 1.0)

    strategy2.run(fn)
    for c in strategy2.experimental_local_results(v):
        assert float(c.numpy()) == expected


def test_mirrored_variable_without_aggregation_writes_locally(strategy2):
    """TF 2.4: a replica-context write with aggregation NONE updates the replica's
    own copy, unsynchronized: every replica adding 1 leaves each copy 1 higher."""
    with strategy2.scope():
        v = tf.Variable(0.0)
    strategy2.run(lambda: v.assign(5.0))
    assert float(v.numpy()) == 5.0
    out = strategy2.run(lambda: v.assign_add(1.0).read_value())
    assert [float(x) for x in _local(strategy2, out)] == [6.0, 6.0]
    assert [float(c.numpy()) for c in strategy2.experimental_local_results(v)] == [6.0, 6.0]


def test_sync_on_read_variable(strategy2):
    with strategy2.scope():
        s = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.SUM)
        m = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.MEAN)
    assert type(s).__name__ == "SyncOnReadVariable"
    assert not s.trainable

    def fn():
        rid = tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)
        s.assign_add(rid + 1.0)
        m.assign_add(rid + 1.0)
        return s.read_value()  # a replica reads its own copy

    local = strategy2.run(fn)
    assert [float(x) for x in _local(strategy2, local)] == [1.0, 2.0]
    assert float(s.numpy()) == 3.0 and float(s.read_value()) == 3.0
    assert float(m.numpy()) == 1.5
    s.assign(10.0)  # cross-replica assign of a SUM variable divides among replicas
    assert [float(x.numpy()) for x in strategy2.experimental_local_results(s)] == [5.0, 5.0]
    assert float(s.numpy()) == 10.0
    with pytest.raises(ValueError, match="does not support `assign_add` in cross-replica"):
        s.assign_add(1.0)
    m.assign_add(1.0)
    assert float(m.numpy()) == 2.5


def test_variable_created_inside_run_is_shared(strategy2):
    layer = tf.keras.layers.Dense(2, kernel_initializer="ones")
    with strategy2.scope():
        out = strategy2.run(lambda: layer(tf.ones([1, 3])))
    assert len(layer.weights) == 2
    assert all(type(w).__name__ == "MirroredVariable" for w in layer.weights)
    for r in _local(strategy2, out):
        np.testing.assert_array_equal(r, [[3.0, 3.0]])


# --- input ----------------------------------------------------------------------------


def test_distributed_dataset_splits_global_batches(strategy2):
    ds = tf.data.Dataset.range(10).batch(4)
    dist = strategy2.experimental_distribute_dataset(ds)
    assert repr(dist.element_spec) == (
        "PerReplicaSpec(TensorSpec(shape=(None,), dtype=tf.int64, name=None), "
        "TensorSpec(shape=(None,), dtype=tf.int64, name=None))")
    got = [[t.tolist() for t in _local(strategy2, x)] for x in dist]
    # ceil(4 / 2) elements per replica, the short last batch fills replica 0 first.
    assert got == [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8, 9], []]]
    it = iter(dist)
    opt = it.get_next_as_optional()
    assert bool(opt.has_value())
    assert [t.tolist() for t in _local(strategy2, opt.get_value())] == [[0, 1], [2, 3]]
    it.get_next()
    it.get_next()
    assert not bool(it.get_next_as_optional().has_value())
    with pytest.raises(tf.errors.OutOfRangeError):
        it.get_next()


def test_distribute_datasets_from_function(strategy2):
    contexts = []

    def dataset_fn(ctx):
        contexts.append(ctx)
        return tf.data.Dataset.range(8).batch(ctx.get_per_replica_batch_size(4))

    dist = strategy2.distribute_datasets_from_function(dataset_fn)
    got = [[t.tolist() for t in _local(strategy2, x)] for x in dist]
    assert got == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]
    assert [(c.num_input_pipelines, c.input_pipeline_id, c.num_replicas_in_sync)
            for c in contexts] == [(1, 0, 2)]


def test_unbatched_dataset_is_refused(strategy2):
    dist = strategy2.experimental_distribute_dataset(tf.data.Dataset.range(3))
    with pytest.raises(ValueError, match="needs a batched dataset"):
        next(iter(dist))


def test_per_replica_input_mode_refused_for_distribute_dataset(strategy2):
    opts = tf.distribute.InputOptions(
        experimental_replication_mode=tf.distribute.InputReplicationMode.PER_REPLICA)
    with pytest.raises(NotImplementedError, match="PER_REPLICA"):
        strategy2.experimental_distribute_dataset(tf.data.Dataset.range(4).batch(2), opts)


# --- all-reduce / optimizers ------------------------------------------------------------


def test_all_reduce_and_all_gather(strategy2):
    def fn():
        ctx = tf.distribute.get_replica_context()
        x = tf.fill([2], tf.cast(ctx.replica_id_in_sync_group, tf.float32) + 1.0)
        return (ctx.all_reduce(tf.distribute.ReduceOp.SUM, x),
                ctx.all_reduce("MEAN", {"a": x}),
                ctx.all_gather(x, axis=0))

    s, m, g = strategy2.run(fn)
    for r in _local(strategy2, s):
        np.testing.assert_array_equal(r, [3.0, 3.0])
    for r in _local(strategy2, m["a"]):
        np.testing.assert_array_equal(r, [1.5, 1.5])
    for r in _local(strategy2, g):
        np.testing.assert_array_equal(r, [1.0, 1.0, 2.0, 2.0])


def _linear_problem():
    rng = np.random.RandomState(3)
    return rng.randn(8, 3).astype("float32"), rng.randn(8, 1).astype("float32"), \
        rng.randn(3, 1).astype("float32")


def _custom_loop(strategy, opt_fn, steps=3, **apply_kwargs):
    x, y, w0 = _linear_problem()
    with strategy.scope():
        w = tf.Variable(w0)
        opt = opt_fn()
    dist = strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(8))
    it = iter(dist)

    def step(xb, yb):
        with tf.GradientTape() as tape:
            per = tf.reduce_sum(tf.square(tf.matmul(xb, w) - yb), axis=1)
            loss = tf.nn.compute_average_loss(per, global_batch_size=8)
        g = tape.gradient(loss, w)
        opt.apply_gradients([(g, w)], **apply_kwargs)
        return loss

    for _ in range(steps):
        strategy.run(step, args=next(it))
    return w.numpy(), opt


def test_gradients_are_all_reduced_like_one_device(strategy2):
    w2, opt = _custom_loop(strategy2, lambda: tf.keras.optimizers.Adam(0.05))
    w1, _ = _custom_loop(tf.distribute.OneDeviceStrategy("/cpu:0"),
                         lambda: tf.keras.optimizers.Adam(0.05))
    np.testing.assert_allclose(w2, w1, rtol=1e-5, atol=1e-6)
    assert int(opt.iterations.numpy()) == 3


def test_custom_gradient_aggregator_and_transformers_on_two_replicas(strategy2):
    x, y, w0 = _linear_problem()
    calls = []

    def aggregator(grads_and_vars):
        ctx = tf.distribute.get_replica_context()
        calls.append(("aggregate", ctx.replica_id_in_sync_group_py))
        return [(ctx.all_reduce("MEAN", g), v) for g, v in grads_and_vars]

    def transformer(grads_and_vars):
        calls.append(("transform", tf.distribute.get_replica_context().replica_id_in_sync_group_py))
        return [(g * 10.0, v) for g, v in grads_and_vars]

    _custom_loop(strategy2, lambda: tf.keras.optimizers.SGD(
        0.1, gradient_aggregator=aggregator, gradient_transformers=[transformer]), steps=1)
    # Each replica aggregates, then transforms (TF 2.4's order); the replicas take
    # turns, meeting in the aggregator's all-reduce.
    assert calls == [("aggregate", 0), ("aggregate", 1), ("transform", 0), ("transform", 1)]
    w_after, _ = _custom_loop(strategy2, lambda: tf.keras.optimizers.SGD(
        0.1, gradient_aggregator=aggregator, gradient_transformers=[transformer]), steps=1)
    # NumPy: each replica's gradient of its half (loss / 8), averaged, times 10.
    r = x @ w0 - y
    g_halves = [2 * x[i:i + 4].T @ r[i:i + 4] / 8 for i in (0, 4)]
    expected = w0 - 0.1 * 10 * (g_halves[0] + g_halves[1]) / 2
    np.testing.assert_allclose(w_after, expected, rtol=1e-5, atol=1e-6)


def test_experimental_aggregate_gradients_false_skips_the_all_reduce(strategy2):
    x, y, w0 = _linear_problem()
    with strategy2.scope():
        w = tf.Variable(w0)
        opt = tf.keras.optimizers.SGD(0.1)

    def step(xb, yb):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(tf.matmul(xb, w) - yb)) / 8
        g = tape.gradient(loss, w)
        g = tf.distribute.get_replica_context().all_reduce("SUM", g)  # by hand
        opt.apply_gradients([(g, w)], experimental_aggregate_gradients=False)

    xs = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
    for xb, yb in strategy2.experimental_distribute_dataset(xs):
        strategy2.run(step, args=(xb, yb))
    expected = w0 - 0.1 * 2 * x.T @ (x @ w0 - y) / 8
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_metrics_aggregate_across_replicas(strategy2):
    with strategy2.scope():
        metric = tf.keras.metrics.Mean()

    def fn(v):
        metric.update_state(v)
        return metric.result()  # in a replica: the cross-replica value (merge_call)

    pr = strategy2.experimental_distribute_values_from_function(
        lambda ctx: tf.constant([1.0, 2.0]) if ctx.replica_id_in_sync_group == 0
        else tf.constant([6.0]))
    out = strategy2.run(fn, args=(pr,))
    assert [float(r) for r in _local(strategy2, out)] == [3.0, 3.0]
    assert float(metric.result()) == 3.0
    metric.reset_states()
    assert float(metric.result()) == 0.0


# --- Keras ---------------------------------------------------------------------------------


def _keras_model(seed=0):
    tf.random.set_seed(seed)
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(8, activation="relu", input_shape=(4,)),
        tf.keras.layers.Dense(3),
    ])
    model.compile(tf.keras.optimizers.Adam(0.01),
                  tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def test_keras_fit_equals_single_device_training(strategy2):
    rng = np.random.RandomState(0)
    x = rng.randn(48, 4).astype("float32")
    y = rng.randint(0, 3, 48).astype("int64")
    with strategy2.scope():
        dist_model = _keras_model()
    assert dist_model.distribute_strategy is strategy2
    single = _keras_model()
    single.set_weights(dist_model.get_weights())
    kw = dict(batch_size=12, epochs=3, verbose=0, shuffle=False)
    h_dist = dist_model.fit(x, y, validation_data=(x[:12], y[:12]), **kw)
    h_single = single.fit(x, y, validation_data=(x[:12], y[:12]), **kw)
    for a, b in zip(dist_model.get_weights(), single.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for key in ("loss", "accuracy", "val_loss", "val_accuracy"):
        np.testing.assert_allclose(h_dist.history[key], h_single.history[key], rtol=1e-5)
    np.testing.assert_allclose(dist_model.evaluate(x, y, batch_size=16, verbose=0),
                               single.evaluate(x, y, batch_size=16, verbose=0), rtol=1e-5)
    np.testing.assert_allclose(dist_model.predict(x, batch_size=10),
                               single.predict(x, batch_size=10), rtol=1e-5, atol=1e-6)
    assert int(dist_model.optimizer.iterations.numpy()) == 12


def test_extended_update_of_a_sync_on_read_variable_updates_each_copy(strategy2):
    with strategy2.scope():
        s = tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.SUM)
        strategy2.extended.update(s, lambda var, x: var.assign_add(x), args=(2.0,))
    assert [float(c.numpy()) for c in strategy2.experimental_local_results(s)] == [3.0, 3.0]
    assert float(s.numpy()) == 6.0


def test_replica_threads_are_reused_and_end_with_the_strategy():
    import gc
    import threading

    from distribute_testing import logical_cpus

    s = tf.distribute.MirroredStrategy(logical_cpus(2))
    with s.scope():
        holder = [tf.Variable(1.0)]
    seen = set()
    for _ in range(3):
        s.run(lambda: seen.add(threading.get_ident()) or holder[0] * 2.0)
    workers = list(s.extended._worker_pool.workers)
    assert len(seen) == 2 and {w.ident for w in workers} == seen  # one per replica, reused
    del s
    holder.clear()
    gc.collect()
    for w in workers:
        w.join(timeout=5)
    assert not any(w.is_alive() for w in workers)


def test_loss_scale_optimizer_updates_its_scale_once_per_step(strategy2):
    with strategy2.scope():
        v = tf.Variable([1.0, 2.0])
        opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1),
                                                          dynamic_growth_steps=2)

    def step(bad):
        with tf.GradientTape() as tape:
            loss = opt.get_scaled_loss(tf.reduce_sum(v * v) * bad)
        grads = opt.get_unscaled_gradients(tape.gradient(loss, [v]))
        opt.apply_gradients(zip(grads, [v]))

    scale0 = float(opt.loss_scale)
    strategy2.run(step, args=(tf.constant(1.0),))
    assert int(opt.dynamic_counter) == 1 and float(opt.loss_scale) == scale0
    strategy2.run(step, args=(tf.constant(1.0),))  # the second good step doubles it
    assert int(opt.dynamic_counter) == 0 and float(opt.loss_scale) == 2 * scale0
    strategy2.run(step, args=(tf.constant(float("inf")),))  # halved once, step skipped
    assert float(opt.loss_scale) == scale0
    assert int(opt.iterations.numpy()) == 3


def test_keras_fit_takes_a_distributed_dataset(strategy2):
    rng = np.random.RandomState(2)
    x = rng.randn(24, 4).astype("float32")
    y = rng.randint(0, 3, 24).astype("int64")
    with strategy2.scope():
        a = _keras_model()
        b = _keras_model()
    b.set_weights(a.get_weights())
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
    h1 = a.fit(strategy2.experimental_distribute_dataset(ds), epochs=2, verbose=0)
    h2 = b.fit(ds, epochs=2, verbose=0)
    np.testing.assert_allclose(h1.history["loss"], h2.history["loss"], rtol=1e-6)
    for u, w in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_allclose(u, w, rtol=1e-6)
