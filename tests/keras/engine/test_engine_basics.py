"""Keras engine behaviour: building, weights, Functional/Sequential/subclassed models,
mixed precision, masking and training propagation. The reference is real tf.keras
(same layers, same weights) or values computed by hand with NumPy."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.keras.testing_utils import layer_test
from torchflow._src.testing import real_tf


class Dense(tf.keras.layers.Layer):
    """A minimal dense layer written against the public API (as users do)."""

    def __init__(self, units, use_bias=True, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.use_bias = use_bias

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", [input_shape[-1], self.units])
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.units], initializer="zeros")

    def call(self, x):
        y = tf.matmul(x, self.kernel)
        return y + self.bias if self.use_bias else y

    def get_config(self):
        return {**super().get_config(), "units": self.units, "use_bias": self.use_bias}


def test_layer_contract_against_tf_keras_dense():
    layer_test(Dense, {"units": 3}, input_shape=(4, 5), expected_output_shape=(None, 3))


def test_functional_model_matches_numpy_and_names():
    x = tf.keras.Input(shape=(4,))
    d1, d2 = Dense(8), Dense(2)
    y = d2(d1(x))
    m = tf.keras.Model(x, y)
    assert m.name == "model" and x._keras_history[0].name == "input_1"
    assert [l.name for l in m.layers] == ["input_1", "dense", "dense_1"]
    assert y.shape.as_list() == [None, 2]
    data = np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)
    k1, b1, k2, b2 = m.get_weights()
    expected = (data @ k1 + b1) @ k2 + b2
    np.testing.assert_allclose(m(data).numpy(), expected, rtol=1e-5, atol=1e-5)
    assert isinstance(x, tf.keras.KerasTensor) and not isinstance(x, tf.Tensor)
    assert tf.is_tensor(x)


def test_functional_nested_io_and_shared_layer():
    a = tf.keras.Input(shape=(3,), name="a")
    b = tf.keras.Input(shape=(3,), name="b")
    shared = Dense(2)
    out = {"sa": shared(a), "sb": shared(b)}
    m = tf.keras.Model({"a": a, "b": b}, out)
    xa, xb = np.ones((2, 3), np.float32), np.full((2, 3), 2.0, np.float32)
    r = m({"a": xa, "b": xb})
    np.testing.assert_allclose(r["sb"].numpy() - shared.bias.numpy(),
                               2 * (r["sa"].numpy() - shared.bias.numpy()), rtol=1e-5)
    assert len(m.weights) == 2


def test_sequential_deferred_and_eager_build():
    m = tf.keras.Sequential([Dense(3, input_shape=(4,)), Dense(1)])
    assert m.built and m.output_shape == (None, 1)
    m2 = tf.keras.Sequential([Dense(3), Dense(1)])
    assert not m2.weights
    m2(np.ones((2, 4), np.float32))
    assert len(m2.weights) == 4 and [l.name for l in m2.layers] == ["dense_2", "dense_3"]
    m2.pop()
    assert len(m2.layers) == 1


def test_subclassed_model_tracks_layers_and_gradients():
    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.blocks = [Dense(3), Dense(1)]

        def call(self, x, training=None):
            for b in self.blocks:
                x = b(x)
            return x

    net = Net()
    x = np.ones((2, 4), np.float32)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(net(x))
    grads = tape.gradient(loss, net.trainable_weights)
    assert len(grads) == 4 and all(g is not None for g in grads)
    # d loss / d b2 = batch size
    np.testing.assert_allclose(grads[3].numpy(), [2.0])


def test_mixed_float16_autocast_and_float32_gradients():
    tf.keras.mixed_precision.set_global_policy("mixed_float16")
    d = Dense(3)
    x = np.ones((2, 4), np.float32)
    y = d(x)
    assert y.dtype == tf.float16 and d.kernel.dtype == tf.float32
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.cast(d(x), tf.float32))
    g = tape.gradient(loss, d.trainable_weights)
    assert g[0].dtype == tf.float32
    d32 = Dense(3, dtype="float32")
    assert d32(x).dtype == tf.float32


def test_training_flag_propagates_to_nested_layers():
    seen = []

    class Probe(tf.keras.layers.Layer):
        def call(self, x, training=None):
            seen.append(training)
            return x

    class Outer(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.p = Probe()

        def call(self, x, training=None):
            return self.p(x)

    o = Outer()
    o(np.ones((1, 2), np.float32), training=True)
    o(np.ones((1, 2), np.float32))
    assert seen == [True, None]

    class Explicit(tf.keras.layers.Layer):  # training=None passed on means "not set"
        def __init__(self):
            super().__init__()
            self.p = Probe()

        def call(self, x, training=None):
            return self.p(x, training=None)

    Explicit()(np.ones((1, 2), np.float32), training=True)
    assert seen[-1] is True


def test_input_spec_errors_like_tf():
    x = tf.keras.Input(shape=(4,))
    m = tf.keras.Model(x, Dense(2)(x))
    with pytest.raises(ValueError):
        m(np.ones((2, 5), np.float32))
    m.input_spec = None
    ref = real_tf()
    tx = ref.keras.Input(shape=(4,))
    tm = ref.keras.Model(tx, ref.keras.layers.Dense(2)(tx))
    with pytest.raises(ValueError):
        tm(np.ones((2, 5), np.float32))


def test_symbolic_tensor_in_gradient_tape_is_a_clear_error():
    x = tf.keras.Input(shape=(2,))
    y = tf.reduce_sum(x)  # a TFOpLambda node, as in TF 2.4
    assert isinstance(y, tf.keras.KerasTensor)
    with tf.GradientTape() as tape:
        with pytest.raises(ValueError):
            tape.watch(x)
    with pytest.raises(TypeError, match="symbolic"):
        tape.gradient(y, x)


def test_functional_config_round_trip_and_summary(capsys):
    x = tf.keras.Input(shape=(4,))
    y = Dense(2)(Dense(3)(x))
    m = tf.keras.Model(x, y)
    cfg = m.get_config()
    m2 = tf.keras.Model.from_config(cfg, custom_objects={"Dense": Dense})
    m2.set_weights(m.get_weights())
    data = np.ones((2, 4), np.float32)
    np.testing.assert_allclose(m2(data).numpy(), m(data).numpy())
    m.summary()
    out = capsys.readouterr().out
    assert "Total params: 23" in out and "Trainable params: 23" in out


def test_checkpoint_restores_lazily_built_layer(tmp_path):
    d = Dense(2)
    d(np.ones((1, 3), np.float32))
    path = tf.train.Checkpoint(layer=d).save(str(tmp_path / "c"))
    fresh = Dense(2)
    status = tf.train.Checkpoint(layer=fresh).restore(path)
    fresh(np.ones((1, 3), np.float32))
    status.assert_consumed()
    for a, b in zip(fresh.get_weights(), d.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_tf_ops_on_keras_tensors_become_tfoplambda_layers():
    x = tf.keras.Input(shape=(4,))
    y = tf.nn.relu(x) * 2.0 + tf.reduce_sum(x, axis=1, keepdims=True)
    z = tf.math.add(tf.math.add(y, 1.0), 0.5)
    m = tf.keras.Model(x, z)
    names = [l.name for l in m.layers]
    assert names[0] == "input_1" and "tf.nn.relu" in names
    assert "tf.math.add" in names and "tf.math.add_1" in names
    d = np.array([[-1.0, 2, 3, -4]], np.float32)
    expected = np.maximum(d, 0) * 2 + d.sum(1, keepdims=True) + 1.5
    np.testing.assert_allclose(m(d).numpy(), expected)
    m2 = tf.keras.Model.from_config(m.get_config())
    np.testing.assert_allclose(m2(d).numpy(), expected)
    # eager calls are unaffected by the dispatch
    assert float(tf.add(tf.constant(1.0), 2.0)) == 3.0
