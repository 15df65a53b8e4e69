"""tf.keras.layers.experimental.SyncBatchNormalization: one replica equals
BatchNormalization (torchflow's and real tf-keras'); under a 2-replica MirroredStrategy
the outputs, moving statistics and gradients equal BatchNormalization over the global
batch, computed with NumPy; config, the fused error, saving."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

SBN = tf.keras.layers.experimental.SyncBatchNormalization
RNG = np.random.default_rng(0)
X = RNG.normal(loc=1.0, scale=2.0, size=(8, 3)).astype(np.float32)
G = np.array([1.5, 0.5, 2.0], np.float32)
B = np.array([0.1, -0.2, 0.3], np.float32)


def _numpy_bn(x, axes, eps=1e-3):
    mean = x.astype(np.float64).mean(axes, keepdims=True)
    var = x.astype(np.float64).var(axes, keepdims=True)
    return mean, var, (x - mean) / np.sqrt(var + eps)


@pytest.mark.parametrize("shape,axis", [((8, 3), -1), ((4, 5, 3), -1), ((2, 3, 4, 5), 1)])
def test_one_replica_equals_batch_normalization(shape, axis):
    ref = real_tf()
    x = RNG.normal(size=shape).astype(np.float32)
    kw = dict(axis=axis, momentum=0.8, gamma_initializer="glorot_uniform",
              beta_initializer="glorot_uniform")
    # fused=False: the fused kernel moves the moving variance by the unbiased batch
    # variance, the unfused path (and SyncBatchNormalization, in TF too) by the biased one.
    ours, bn = SBN(**kw), tf.keras.layers.BatchNormalization(fused=False, **kw)
    theirs = ref.keras.layers.experimental.SyncBatchNormalization(**kw)
    ours(x)
    bn(x)
    theirs(x)
    bn.set_weights(ours.get_weights())
    theirs.set_weights(ours.get_weights())
    for training in (True, False, True):
        y = ours(x, training=training).numpy()
        np.testing.assert_allclose(y, bn(x, training=training).numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(y, theirs(x, training=training).numpy(), rtol=1e-4,
                                   atol=1e-5)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _strategy():
    return tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def _per_replica(strategy, x):
    half = x.shape[0] // 2
    return strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant(x[ctx.replica_id_in_sync_group * half:
                                  (ctx.replica_id_in_sync_group + 1) * half]))


def test_two_replicas_use_the_global_batch_statistics():
    strategy = _strategy()
    with strategy.scope():
        layer = SBN(momentum=0.5, gamma_initializer=tf.keras.initializers.Constant(G),
                    beta_initializer=tf.keras.initializers.Constant(B))
        layer.build((None, 3))
    out = strategy.run(lambda xb: layer(xb, training=True), args=(_per_replica(strategy, X),))
    y = np.concatenate([t.numpy() for t in strategy.experimental_local_results(out)])
    mean, var, norm = _numpy_bn(X, 0)
    np.testing.assert_allclose(y, norm * G + B, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(layer.moving_mean.numpy(), 0.5 * mean[0], rtol=1e-5)
    np.testing.assert_allclose(layer.moving_variance.numpy(), 0.5 + 0.5 * var[0], rtol=1e-5)
    # A plain BatchNormalization under the same strategy sees only its own half.
    with strategy.scope():
        plain = tf.keras.layers.BatchNormalization()
        plain.build((None, 3))
    out = strategy.run(lambda xb: plain(xb, training=True), args=(_per_replica(strategy, X),))
    y0 = strategy.experimental_local_results(out)[0].numpy()
    assert np.abs(y0 - _numpy_bn(X, 0)[2][:4]).max() > 1e-2


def test_two_replica_gradients_equal_global_batch_normalization():
    strategy = _strategy()
    w = RNG.normal(size=X.shape).astype(np.float32)
    with strategy.scope():
        layer = SBN(gamma_initializer=tf.keras.initializers.Constant(G),
                    beta_initializer=tf.keras.initializers.Constant(B))
        layer.build((None, 3))
    weights = _per_replica(strategy, w)

    def step(xb, wb):
        with tf.GradientTape() as tape:
            tape.watch(xb)
            loss = tf.reduce_sum(layer(xb, training=True) ** 2 * wb)
        return tape.gradient(loss, [xb, layer.gamma, layer.beta])

    out = strategy.run(step, args=(_per_replica(strategy, X), weights))
    dx = np.concatenate([t.numpy() for t in strategy.experimental_local_results(out[0])])
    dg = sum(t.numpy() for t in strategy.experimental_local_results(out[1]))
    db = sum(t.numpy() for t in strategy.experimental_local_results(out[2]))
    glob = tf.keras.layers.BatchNormalization(
        gamma_initializer=tf.keras.initializers.Constant(G),
        beta_initializer=tf.keras.initializers.Constant(B))
    xt = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        loss = tf.reduce_sum(glob(xt, training=True) ** 2 * w)
    ex, eg, eb = tape.gradient(loss, [xt, glob.gamma, glob.beta])
    np.testing.assert_allclose(dx, ex.numpy(), rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(dg, eg.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(db, eb.numpy(), rtol=1e-4, atol=1e-4)


def test_fused_true_is_refused_and_config_round_trips(tmp_path):
    with pytest.raises(ValueError, match="`fused` argument cannot be True for "
                                         "SyncBatchNormalization."):
        SBN(fused=True)
    cfg = SBN(axis=1, momentum=0.9, epsilon=1e-4).get_config()
    assert "fused" not in cfg
    assert sorted(cfg) == sorted(real_tf().keras.layers.experimental.SyncBatchNormalization(
        axis=1).get_config())
    back = tf.keras.layers.deserialize({"class_name": "SyncBatchNormalization", "config": cfg})
    assert type(back) is SBN and back.get_config() == cfg
    model = tf.keras.Sequential([tf.keras.layers.InputLayer((3,)), SBN(), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(X, X[:, :1], epochs=1, verbose=0)
    model.save(str(tmp_path / "m.h5"))
    back = tf.keras.models.load_model(str(tmp_path / "m.h5"))
    assert type(back.layers[0]) is SBN
    np.testing.assert_allclose(back.predict(X), model.predict(X), rtol=1e-6)


def test_fit_under_two_replicas_equals_batch_normalization_on_one():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(32, 4)).astype(np.float32)
    y = rng.normal(size=(32, 1)).astype(np.float32)

    def build(norm):
        return tf.keras.Sequential([tf.keras.layers.InputLayer((4,)),
                                    tf.keras.layers.Dense(5), norm,
                                    tf.keras.layers.Dense(1)])
    single = build(tf.keras.layers.BatchNormalization(fused=False, momentum=0.5))
    strategy = _strategy()
    with strategy.scope():
        synced = build(SBN(momentum=0.5))
        synced.compile(tf.keras.optimizers.SGD(0.1), "mse")
    synced.set_weights(single.get_weights())
    single.compile(tf.keras.optimizers.SGD(0.1), "mse")
    h1 = single.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0).history["loss"]
    h2 = synced.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0).history["loss"]
    np.testing.assert_allclose(h2, h1, rtol=1e-4)
    for a, b in zip(synced.get_weights(), single.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
