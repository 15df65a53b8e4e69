"""The fused optimizer updates of ``training_ops``: values (NumPy's Adam as TF
writes it) and torch's grad mode around them (switched off only inside)."""

import numpy as np

import torchflow as tf


def _adam_numpy(w, g, steps, lr=0.1, b1=0.9, b2=0.999, eps=1e-7):
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, steps + 1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        w = w - lr_t * m / (np.sqrt(v) + eps)
    return w


def test_adam_update_inside_a_recording_tape_keeps_the_tape_recording():
    w0 = np.array([1.0, -2.0, 3.0], np.float32)
    g = np.array([0.5, -1.0, 2.0], np.float32)
    var = tf.Variable(w0)
    opt = tf.keras.optimizers.Adam(0.1)
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        before = x * x
        opt.apply_gradients([(tf.constant(g), var)])
        opt.apply_gradients([(tf.constant(g), var)])
        after = before * x  # recorded after the updates: grad mode came back on
    assert float(tape.gradient(after, x)) == 12.0  # d(x^3)/dx at 2
    np.testing.assert_allclose(var.numpy(), _adam_numpy(w0, g, 2), rtol=1e-6)


def test_adam_update_outside_tapes_and_in_a_function():
    w0 = np.array([[0.1, 0.2], [0.3, 0.4]], np.float32)
    g = np.full((2, 2), 0.25, np.float32)
    var = tf.Variable(w0)
    opt = tf.keras.optimizers.Adam(0.1)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(var * tf.constant(g))
        opt.apply_gradients(zip(tape.gradient(loss, [var]), [var]))

    opt.apply_gradients([(tf.constant(g), var)])  # eager, no tape
    for _ in range(3):
        step()  # traced, then replayed
    np.testing.assert_allclose(var.numpy(), _adam_numpy(w0, g, 4), rtol=1e-6, atol=1e-7)
    assert int(opt.iterations.numpy()) == 4
