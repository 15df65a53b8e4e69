"""Keras under ParameterServerStrategy: the custom training loop of TF's
parameter-server tutorial (model, optimizer, metrics under the strategy scope,
ClusterCoordinator.schedule of a tf.function step), on an in-process cluster."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core import rpc


@pytest.fixture(scope="module")
def strategy():
    ports = [rpc.pick_unused_port() for _ in range(4)]
    spec = tf.train.ClusterSpec({"worker": [f"localhost:{p}" for p in ports[:2]],
                                 "ps": [f"localhost:{p}" for p in ports[2:]]})
    servers = [tf.distribute.Server(spec, job_name=job, task_index=i, protocol="grpc")
               for job, i in (("worker", 0), ("worker", 1), ("ps", 0), ("ps", 1))]
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec, rpc_layer="grpc")
    s = tf.distribute.experimental.ParameterServerStrategy(
        resolver, tf.distribute.experimental.partitioners.FixedShardsPartitioner(2))
    coord = tf.distribute.experimental.coordinator.ClusterCoordinator(s)
    yield s
    coord._stop()
    for server in servers:
        server._stop()


def _data():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(512, 4)).astype(np.float32)
    y = (x @ np.array([0.5, -1.0, 2.0, 0.25], np.float32) > 0.1).astype(np.float32)[:, None]
    return x, y


@pytest.mark.parametrize("make_optimizer", [
    lambda: tf.keras.optimizers.RMSprop(learning_rate=0.05),
    lambda: tf.keras.optimizers.Adam(learning_rate=0.05),
    lambda: tf.keras.optimizers.SGD(learning_rate=0.5, momentum=0.9),
], ids=["rmsprop", "adam", "sgd-momentum"])
def test_tutorial_custom_training_loop(strategy, make_optimizer):
    coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
    x, y = _data()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(4,)),
                                     tf.keras.layers.Dense(1, activation="sigmoid")])
        optimizer = make_optimizer()
        # TF 2.4 makes `iterations` under the optimizer's strategy even when read outside
        # its scope; torchflow's optimizer does not remember the strategy yet, so it is
        # made here, under the scope, to be the step count the workers share.
        assert optimizer.iterations.device.startswith("/job:ps")
        accuracy = tf.keras.metrics.Accuracy()
    # Kernels of 4 and 8 rows are sharded over the two ps tasks; biases of 8 rows too.
    devices = {w.device for w in model.weights}
    assert devices == {"/job:ps/replica:0/task:0/device:CPU:0",
                       "/job:ps/replica:0/task:1/device:CPU:0"}
    assert [tuple(w.shape) for w in model.weights[:2]] == [(2, 8), (2, 8)]

    def dataset_fn():
        return tf.data.Dataset.from_tensor_slices((x, y)).shuffle(512, seed=0).batch(64).repeat()

    @tf.function
    def per_worker_dataset_fn():
        return strategy.distribute_datasets_from_function(lambda _: dataset_fn())

    iterator = iter(coordinator.create_per_worker_dataset(per_worker_dataset_fn))

    @tf.function
    def step_fn(iterator):
        def replica_fn(batch):
            features, labels = batch
            with tf.GradientTape() as tape:
                pred = model(features, training=True)
                per_example_loss = tf.keras.losses.BinaryCrossentropy(
                    reduction=tf.keras.losses.Reduction.NONE)(labels, pred)
                loss = tf.nn.compute_average_loss(per_example_loss)
            gradients = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables))
            accuracy.update_state(labels, tf.cast(tf.greater(pred, 0.5), tf.float32))
            return loss

        losses = strategy.run(replica_fn, args=(next(iterator),))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)

    def full_data_loss():
        pred = np.clip(model(x).numpy(), 1e-7, 1 - 1e-7)
        return float(-np.mean(y * np.log(pred) + (1 - y) * np.log(1 - pred)))

    before = full_data_loss()
    first = coordinator.schedule(step_fn, args=(iterator,)).fetch()
    assert np.isfinite(first)
    steps = 1
    for _ in range(3):
        accuracy.reset_states()
        for _ in range(20):
            coordinator.schedule(step_fn, args=(iterator,))
        steps += 20
        coordinator.join()
    assert accuracy.result().numpy() > 0.9
    last = coordinator.schedule(step_fn, args=(iterator,)).fetch()
    steps += 1
    assert np.isfinite(last)
    # The loss over all 512 examples, computed with NumPy from the coordinator's reads
    # of the ps variables: one batch's loss is too noisy under asynchronous updates.
    after = full_data_loss()
    assert after < 0.7 * before, (before, after)
    # Each step counted once, atomically, whatever worker ran it.
    assert int(optimizer.iterations.numpy()) == steps
    # The coordinator's model reads the trained values from the ps tasks.
    pred = model(x).numpy()
    assert np.mean((pred > 0.5) == (y > 0.5)) > 0.9


def test_metric_updates_from_both_workers_are_all_counted(strategy):
    coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
    with strategy.scope():
        mean = tf.keras.metrics.Mean()

    @tf.function
    def record(v):
        mean.update_state(v)

    for v in range(100):
        coordinator.schedule(record, args=(float(v),))
    coordinator.join()
    assert mean.result().numpy() == pytest.approx(49.5)
    assert float(mean.count.numpy()) == 100.0


def test_optimizer_updates_on_the_ps_lose_nothing_under_concurrent_workers(strategy):
    """Gradient 1 for every step: after N steps of SGD(1.0) from two workers at once the
    variable is exactly -N (a read-modify-write on the workers would lose some)."""
    coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
    with strategy.scope():
        w = tf.Variable(0.0, name="w")
        optimizer = tf.keras.optimizers.SGD(1.0)
        assert optimizer.iterations.device.startswith("/job:ps")

    @tf.function
    def step():
        def replica_fn():
            with tf.GradientTape() as tape:
                loss = 1.0 * w
            optimizer.apply_gradients([(tape.gradient(loss, w), w)])
        strategy.run(replica_fn)

    n = 100
    for _ in range(n):
        coordinator.schedule(step)
    coordinator.join()
    assert float(w.numpy()) == -float(n)
    assert int(optimizer.iterations.numpy()) == n


def test_sharded_keras_weights_checkpoint_as_whole_variables(strategy, tmp_path):
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(5,))])
    kernel, bias = model.layers[0].kernel, model.layers[0].bias
    assert [tuple(s.shape) for s in kernel.variables] == [(3, 3), (2, 3)]
    path = tf.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
    shapes = dict(tf.train.list_variables(path))
    assert shapes["model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE"] == [5, 3]
    assert shapes["model/layer_with_weights-0/bias/.ATTRIBUTES/VARIABLE_VALUE"] == [3]
    # Restored into the same model built without any strategy: one variable each.
    plain = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(5,))])
    tf.train.Checkpoint(model=plain).restore(path).assert_existing_objects_matched()
    np.testing.assert_array_equal(plain.layers[0].kernel.numpy(), kernel.numpy())
    np.testing.assert_array_equal(plain.layers[0].bias.numpy(), bias.numpy())
    # ... and back into the sharded one after it changed.
    kernel.assign(np.zeros((5, 3), np.float32))
    tf.train.Checkpoint(model=model).restore(path)
    np.testing.assert_array_equal(kernel.numpy(), plain.layers[0].kernel.numpy())


def test_fit_with_dataset_creator(strategy):
    """model.fit under ParameterServerStrategy as TF (2.5+) runs it: a DatasetCreator,
    steps_per_epoch, callbacks and History on the coordinator."""
    x, y = _data()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(4,)),
                                     tf.keras.layers.Dense(1, activation="sigmoid")])
        model.compile(tf.keras.optimizers.RMSprop(0.05), loss="binary_crossentropy",
                      metrics=["accuracy"])

    def dataset_fn(input_context):
        assert isinstance(input_context, tf.distribute.InputContext)
        return tf.data.Dataset.from_tensor_slices((x, y)).shuffle(512, seed=0).batch(32).repeat()

    seen = []

    class Record(tf.keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            seen.append((epoch, sorted(logs)))

    creator = tf.keras.utils.experimental.DatasetCreator(dataset_fn)
    history = model.fit(creator, epochs=3, steps_per_epoch=25, verbose=0, callbacks=[Record()])
    assert sorted(history.history) == ["accuracy", "loss"]
    assert len(history.history["loss"]) == 3
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert history.history["accuracy"][-1] > 0.9
    assert seen == [(0, ["accuracy", "loss"]), (1, ["accuracy", "loss"]), (2, ["accuracy", "loss"])]
    # The coordinator's model holds the trained weights (read from the ps tasks).
    assert np.mean((model(x).numpy() > 0.5) == (y > 0.5)) > 0.9
    with pytest.raises(ValueError, match="`steps_per_epoch` argument must be provided"):
        model.fit(creator, epochs=1)
    with pytest.raises(NotImplementedError, match="Only `DatasetCreator` input is supported"):
        model.fit(x, y, epochs=1, steps_per_epoch=2)
    with pytest.raises(TypeError, match="must return a Dataset"):
        tf.keras.utils.experimental.DatasetCreator(lambda ctx: 3)(None)


class _Registrar:
    """Stands in for an rpc.Server: TaskService only registers its methods."""

    def add_method(self, name, fn, code=False):
        pass


def test_ps_optimizer_copy_makes_its_own_slots_whatever_ids_it_arrived_with():
    """A worker pickles the optimizer with slot tables keyed by that process's variable
    ids; in the ps's process the same ids can name other variables (seen with one
    process per task: a bias's slot was applied to a kernel). Simulated here: the copy
    arrives holding a wrong-shaped slot under the ps variable's own id."""
    from torchflow._src.distribute import ps_service

    svc = ps_service.TaskService(_Registrar(), "ps", 0)
    w0 = np.arange(6, dtype=np.float32).reshape(2, 3)
    svc._VarCreate(rpc.encode({"key": "k", "value": w0, "name": "w"}), None)
    var = svc._vars["k"].var
    opt = tf.keras.optimizers.RMSprop(0.1)
    opt._slots[var._unique_id] = {"rms": tf.Variable(np.zeros(3, np.float32))}
    opt._created_for.add(var._unique_id)
    blob = rpc.dumps_code(opt)
    g = np.full((2, 3), 0.5, np.float32)
    for step in range(2):
        svc._OptApply(rpc.encode({"opt": "o", "keys": ["k"], "grads": [tf.constant(g)],
                                  "step": step, "blob": blob}), None)
    w, ms = w0.copy(), np.zeros_like(w0)  # RMSprop in NumPy (rho 0.9, no momentum)
    for _ in range(2):
        ms = 0.9 * ms + 0.1 * g * g
        w = w - 0.1 * g / (np.sqrt(ms) + 1e-7)
    np.testing.assert_allclose(var.numpy(), w, rtol=1e-4)


def test_gradient_transformers_run_once_per_step(strategy):
    """The worker's apply_gradients clips and transforms the gradients of all the
    variables; the ps applies them as they come (a second transform on the ps halved
    them twice). SGD(1.0), gradient 1, a transformer halving it: -0.5 per step."""
    coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)

    def halve(grads_and_vars):
        return [(0.5 * g, v) for g, v in grads_and_vars]

    with strategy.scope():
        w = tf.Variable(0.0, name="w_halved")
        optimizer = tf.keras.optimizers.SGD(1.0, gradient_transformers=[halve])
        assert optimizer.iterations.device.startswith("/job:ps")

    @tf.function
    def step():
        def replica_fn():
            with tf.GradientTape() as tape:
                loss = 1.0 * w
            optimizer.apply_gradients([(tape.gradient(loss, w), w)])
        strategy.run(replica_fn)

    for _ in range(3):
        coordinator.schedule(step)
    coordinator.join()
    assert float(w.numpy()) == -1.5
