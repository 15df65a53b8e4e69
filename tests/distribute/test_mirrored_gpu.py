"""MirroredStrategy on CUDA devices (skipped without one): default devices, variable
placement, Keras fit equal to single-device training, mixed precision, TF32."""

import numpy as np
import pytest

import torchflow as tf

pytestmark = pytest.mark.gpu


def _model():
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(16, activation="relu", input_shape=(8,)),
        tf.keras.layers.Dense(4),
    ])
    model.compile(tf.keras.optimizers.SGD(0.05, momentum=0.9),
                  tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def test_default_devices_are_the_gpus_and_variables_live_there():
    gpus = tf.config.list_logical_devices("GPU")
    strategy = tf.distribute.MirroredStrategy()
    assert strategy.num_replicas_in_sync == len(gpus)
    assert all("GPU" in d for d in strategy.extended.worker_devices)
    with strategy.scope():
        v = tf.Variable([1.0, 2.0])
    assert "GPU:0" in v.device
    out = strategy.run(lambda: v * 2.0)
    for t in strategy.experimental_local_results(out):
        assert "GPU" in t.device
        np.testing.assert_allclose(t.numpy(), [2.0, 4.0])
    assert tf.config.experimental.tensor_float_32_execution_enabled()


def test_fit_on_gpu_equals_single_device():
    rng = np.random.RandomState(0)
    x = rng.randn(64, 8).astype("float32")
    y = rng.randint(0, 4, 64).astype("int64")
    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        dist = _model()
    single = _model()
    single.set_weights(dist.get_weights())
    kw = dict(batch_size=16, epochs=2, verbose=0, shuffle=False)
    h1 = dist.fit(x, y, **kw)
    h2 = single.fit(x, y, **kw)
    for a, b in zip(dist.get_weights(), single.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h1.history["loss"], h2.history["loss"], rtol=1e-4)


def test_mixed_precision_under_the_strategy():
    rng = np.random.RandomState(1)
    x = rng.randn(64, 8).astype("float32")
    y = rng.randint(0, 4, 64).astype("int64")
    tf.keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([
                tf.keras.layers.Dense(16, activation="relu", input_shape=(8,)),
                tf.keras.layers.Dense(4, dtype="float32"),
            ])
            model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(
                from_logits=True))
        assert type(model.optimizer).__name__ == "LossScaleOptimizer"
        h = model.fit(x, y, batch_size=16, epochs=3, verbose=0)
        assert all(np.isfinite(h.history["loss"]))
        assert h.history["loss"][-1] < h.history["loss"][0]
        assert all(w.dtype == np.float32 for w in model.get_weights())
        assert model.layers[0](x[:2]).dtype == tf.float16
    finally:
        tf.keras.mixed_precision.set_global_policy("float32")
