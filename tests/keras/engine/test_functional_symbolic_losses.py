"""``model.add_loss`` / ``model.add_metric`` of symbolic tensors on a Functional
model (the "training and evaluation" guide's pattern), against real tf.keras 2.21:
the loss joins the total and the metric is reported, on every call."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

RNG = np.random.RandomState(0)
X = RNG.rand(64, 12).astype("float32")
Y = (np.arange(64) % 10).astype("uint8")
W = [RNG.normal(size=(12, 16)).astype("float32") * 0.2, np.zeros(16, "float32"),
     RNG.normal(size=(16, 10)).astype("float32") * 0.2, np.zeros(10, "float32")]


def _program(mod):
    k = mod.keras
    inputs = k.Input(shape=(12,), name="digits")
    x1 = k.layers.Dense(16, activation="relu", name="dense_1")(inputs)
    outputs = k.layers.Dense(10, name="predictions")(x1)
    model = k.Model(inputs=inputs, outputs=outputs)
    model.add_loss(mod.reduce_sum(x1) * 0.01)
    model.add_metric(mod.math.reduce_std(x1), name="std_of_activation", aggregation="mean")
    model.set_weights(W)
    model.compile(optimizer=k.optimizers.SGD(0.01),
                  loss=k.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(X, Y, batch_size=16, epochs=2, shuffle=False, verbose=0).history
    evaluated = model.evaluate(X, Y, batch_size=16, verbose=0, return_dict=True)
    return history, evaluated, model.get_weights()


def test_symbolic_add_loss_and_add_metric_match_tf_keras():
    ours, theirs = _program(tf), _program(real_tf())
    assert ours[0].keys() == theirs[0].keys() == {"loss", "std_of_activation"}
    for key in theirs[0]:
        np.testing.assert_allclose(ours[0][key], theirs[0][key], rtol=1e-4, err_msg=key)
    assert ours[1].keys() == theirs[1].keys()
    for key in theirs[1]:
        np.testing.assert_allclose(ours[1][key], theirs[1][key], rtol=1e-4, err_msg=key)
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_symbolic_loss_is_in_model_losses_after_a_call():
    inputs = tf.keras.Input(shape=(3,))
    out = tf.keras.layers.Dense(2, kernel_initializer="ones")(inputs)
    model = tf.keras.Model(inputs, out)
    model.add_loss(tf.reduce_sum(out))
    model(np.ones((1, 3), "float32"))
    np.testing.assert_allclose([float(l.numpy()) for l in model.losses], [6.0])


def test_symbolic_metric_needs_a_name():
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
    with pytest.raises(ValueError, match="Please provide a name for your metric"):
        model.add_metric(tf.reduce_sum(inputs))


def test_backend_function_of_a_symbolic_tensor_as_a_metric_as_tf():
    # The Keras training guide: model.add_metric(keras.backend.std(x1), ...) on a
    # KerasTensor; TF 2.4 dispatches tf.keras.backend's tensor functions like ops.
    rtf = real_tf()
    hist = []
    for m in (rtf, tf):
        inputs = m.keras.Input(shape=(8,))
        x1 = m.keras.layers.Dense(4, activation="relu", kernel_initializer="ones")(inputs)
        outputs = m.keras.layers.Dense(3, kernel_initializer="ones")(x1)
        model = m.keras.Model(inputs, outputs)
        model.add_metric(m.keras.backend.std(x1), name="std_of_activation",
                         aggregation="mean")
        model.add_metric(m.keras.backend.mean(m.keras.backend.square(x1)), name="ms",
                         aggregation="mean")
        model.compile("sgd", m.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        x = np.arange(64, dtype=np.float32).reshape(8, 8) / 64.0
        h = model.fit(x, np.zeros((8,), np.int64), verbose=0, batch_size=4, shuffle=False)
        hist.append(h.history)
    assert sorted(hist[1]) == sorted(hist[0])
    for k in hist[0]:
        np.testing.assert_allclose(hist[1][k], hist[0][k], rtol=1e-5, err_msg=k)
