"""Gradients of embeddings are IndexedSlices and the Keras optimizers apply them
sparsely, step for step as tf.keras 2.4 (real TF + tf-keras as the reference)."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

IDS = [np.array([[1, 3], [3, 7]]), np.array([[0, 0], [2, 9]]), np.array([[7, 1], [1, 1]])]
TARGET = np.array([[1.0], [-2.0]], np.float32)

def _opts(k):
    # tf_keras's OptimizerV2 (TF 2.4's optimizers, with their _resource_apply_sparse)
    # lives in optimizers.legacy; torchflow's optimizers are 2.4's.
    return getattr(k.optimizers, "legacy", k.optimizers)


OPTIMIZERS = {
    "sgd": lambda k: _opts(k).SGD(0.1),
    "sgd_momentum": lambda k: _opts(k).SGD(0.1, momentum=0.9),
    "sgd_nesterov": lambda k: _opts(k).SGD(0.05, momentum=0.8, nesterov=True),
    "adam": lambda k: _opts(k).Adam(0.05),
    "adam_amsgrad": lambda k: _opts(k).Adam(0.05, amsgrad=True),
    "adagrad": lambda k: _opts(k).Adagrad(0.2),
    "rmsprop": lambda k: _opts(k).RMSprop(0.01),
    "rmsprop_momentum": lambda k: _opts(k).RMSprop(0.01, momentum=0.5),
    "rmsprop_centered": lambda k: _opts(k).RMSprop(0.01, centered=True),
    "rmsprop_centered_momentum": lambda k: _opts(k).RMSprop(0.01, momentum=0.5,
                                                                centered=True),
    # Clipping keeps the gradient sparse (the norm of the values, duplicates included).
    "sgd_momentum_clipnorm": lambda k: _opts(k).SGD(0.1, momentum=0.9, clipnorm=0.5),
    "adam_clipvalue": lambda k: _opts(k).Adam(0.05, clipvalue=0.1),
    "rmsprop_momentum_global_clipnorm": lambda k: _opts(k).RMSprop(
        0.01, momentum=0.5, global_clipnorm=0.3),
}


def _train(tf, make_opt, lookup):
    rng = np.random.RandomState(0)
    table = tf.Variable(rng.uniform(-1, 1, (10, 4)).astype(np.float32))
    w = tf.Variable(rng.uniform(-1, 1, (4, 1)).astype(np.float32))
    opt = make_opt(tf.keras)
    trace = []
    for ids in IDS:
        with tf.GradientTape() as tape:
            rows = lookup(tf, table, tf.constant(ids))
            loss = tf.reduce_sum((tf.reduce_sum(rows, axis=1) @ w - TARGET) ** 2)
        g_table, g_w = tape.gradient(loss, [table, w])
        trace.append((type(g_table).__name__, g_table.indices.numpy().tolist(),
                      g_table.values.numpy(), g_table.dense_shape.numpy().tolist(),
                      g_table.indices.dtype.name, g_table.dense_shape.dtype.name))
        opt.apply_gradients(zip([g_table, g_w], [table, w]))
        trace.append((table.numpy(), w.numpy()))
    return trace


LOOKUPS = {
    "gather": lambda tf, t, ids: tf.gather(t, ids),
    "embedding_lookup": lambda tf, t, ids: tf.nn.embedding_lookup(t, ids),
}


def _compare(got, want):
    for g, w in zip(got, want):
        assert len(g) == len(w)
        for a, b in zip(g, w):
            if isinstance(b, np.ndarray):
                np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
            else:
                assert a == b


@pytest.mark.parametrize("lookup", sorted(LOOKUPS))
@pytest.mark.parametrize("opt", sorted(OPTIMIZERS))
def test_sparse_optimizer_steps_match_tf_keras(opt, lookup):
    rtf = real_tf()
    want = _train(rtf, OPTIMIZERS[opt], LOOKUPS[lookup])
    got = _train(torchflow, OPTIMIZERS[opt], LOOKUPS[lookup])
    _compare(got, want)


def _train_traced(tf, make_opt, lookup):
    rng = np.random.RandomState(0)
    table = tf.Variable(rng.uniform(-1, 1, (10, 4)).astype(np.float32))
    w = tf.Variable(rng.uniform(-1, 1, (4, 1)).astype(np.float32))
    opt = make_opt(tf.keras)
    python_runs = []

    @tf.function
    def step(ids):
        python_runs.append(1)  # Python: at tracing only
        with tf.GradientTape() as tape:
            rows = lookup(tf, table, ids)
            loss = tf.reduce_sum((tf.reduce_sum(rows, axis=1) @ w - TARGET) ** 2)
        g_table, g_w = tape.gradient(loss, [table, w])
        opt.apply_gradients(zip([g_table, g_w], [table, w]))
        return loss, g_table.indices, g_table.values

    trace = []
    for ids in IDS + IDS:
        loss, idx, vals = step(tf.constant(ids))
        trace.append((float(loss), idx.numpy().tolist(), vals.numpy(), table.numpy(), w.numpy()))
    return trace, len(python_runs)


@pytest.mark.parametrize("lookup", sorted(LOOKUPS))
@pytest.mark.parametrize("opt", ["sgd_momentum", "adam", "rmsprop_centered"])
def test_sparse_steps_in_a_tf_function_match_tf_keras(opt, lookup):
    # The gradient is an IndexedSlices assembled in Python; a traced step replays it
    # (its Python runs only at tracing, as in TF) and applies the same sparse updates.
    want, want_runs = _train_traced(real_tf(), OPTIMIZERS[opt], LOOKUPS[lookup])
    got, got_runs = _train_traced(torchflow, OPTIMIZERS[opt], LOOKUPS[lookup])
    assert got_runs == want_runs
    for g, w in zip(got, want):
        assert g[0] == pytest.approx(w[0], rel=2e-5)
        assert g[1] == w[1]
        for a, b in zip(g[2:], w[2:]):
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("lookup", sorted(LOOKUPS))
def test_out_of_range_id_in_a_replayed_step_is_tf_error(lookup):
    for tf in (real_tf(), torchflow):
        table = tf.Variable(np.ones((5, 2), np.float32))

        @tf.function
        def grad(ids, tf=tf, table=table):
            with tf.GradientTape() as tape:
                y = tf.reduce_sum(LOOKUPS[lookup](tf, table, ids))
            return tape.gradient(y, table).values

        np.testing.assert_array_equal(grad(tf.constant([1, 2])).numpy(), np.ones((2, 2)))
        for bad in ([1, 7], [-1, 2]):
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"is not in \[0, 5\)"):
                grad(tf.constant(bad))


@pytest.mark.parametrize("opt", ["sgd", "sgd_momentum", "adagrad", "rmsprop_momentum"])
def test_only_touched_rows_change(opt):
    table0 = np.arange(40, dtype=np.float32).reshape(10, 4) / 10
    table = torchflow.Variable(table0)
    o = OPTIMIZERS[opt](torchflow.keras)  # (torchflow.keras.optimizers has no legacy)
    for ids in ([1, 3], [1, 1]):  # momentum slots hold rows 1 and 3 after step one
        with torchflow.GradientTape() as tape:
            loss = torchflow.reduce_sum(torchflow.gather(table, ids) ** 2)
        o.apply_gradients([(tape.gradient(loss, table), table)])
    changed = sorted(set(np.nonzero((table.numpy() != table0).any(1))[0].tolist()))
    assert changed == [1, 3]


def test_keras_embedding_fit_matches_tf_keras():
    rtf = real_tf()
    x = np.array([[1, 2, 3], [4, 5, 6], [1, 1, 9], [0, 8, 2]] * 4)
    y = np.arange(16, dtype=np.float32).reshape(16, 1) / 16
    out = []
    for tf in (rtf, torchflow):
        tf.random.set_seed(1)
        model = tf.keras.Sequential([
            tf.keras.layers.Embedding(10, 3, embeddings_initializer=tf.keras.initializers
                                      .Constant(np.linspace(-1, 1, 30).reshape(10, 3))),
            tf.keras.layers.GlobalAveragePooling1D(),
            tf.keras.layers.Dense(1, kernel_initializer="ones")])
        model.compile(_opts(tf.keras).Adam(0.1), "mse")
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x[:4]) - y[:4]) ** 2)
        g = tape.gradient(loss, model.trainable_variables)
        kinds = [type(v).__name__ for v in g]
        h = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
        out.append((kinds, h.history["loss"], [w.numpy() for w in model.weights]))
    assert out[0][0][0] == out[1][0][0] == "IndexedSlices"  # the Embedding's gradient
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-5)
    for a, b in zip(out[1][2], out[0][2]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_convert_to_tensor_densifies_and_sums_duplicates():
    rtf = real_tf()
    res = []
    for tf in (rtf, torchflow):
        s = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
                             tf.constant([2, 0, 2]), tf.constant([4, 2]))
        res.append((tf.convert_to_tensor(s).numpy(), (tf.convert_to_tensor(s) + 1.0).numpy()))
    np.testing.assert_array_equal(res[1][0], res[0][0])
    np.testing.assert_array_equal(res[1][1], res[0][1])


def test_clip_ops_keep_indexed_slices_as_tf():
    rtf = real_tf()
    out = []
    for tf in (rtf, torchflow):
        s = tf.IndexedSlices(tf.constant([[3.0, 4.0], [3.0, 4.0], [-6.0, 0.5]]),
                             tf.constant([1, 1, 0]), tf.constant([3, 2]))
        d = tf.constant([1.0, 2.0])
        res = [tf.clip_by_value(s, -1.0, 2.0), tf.clip_by_norm(s, 2.0),
               *tf.clip_by_global_norm([s, d], 3.0)[0]]
        out.append([(type(r).__name__, tf.convert_to_tensor(r).numpy()) for r in res] +
                   [("norm", tf.linalg.global_norm([s, d]).numpy())])
    for (ka, a), (kb, b) in zip(out[1], out[0]):
        assert ka.replace("EagerTensor", "Tensor") == kb.replace("EagerTensor", "Tensor")
        np.testing.assert_allclose(a, b, rtol=1e-6)
