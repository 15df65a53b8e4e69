"""tf.keras.experimental.PeepholeLSTMCell: TF 2.4's weight layout, its equations
against NumPy, gradients against finite differences, config and .h5 round trips, and
(without peepholes) the same result as real tf.keras' LSTMCell."""

import numpy as np

import torchflow as tf
from torchflow._src.testing import real_tf


def _sig(x):
    return 1.0 / (1.0 + np.exp(-x))


def _numpy_peephole(x, k, rk, b, pi, pf, po):
    n, t, _ = x.shape
    u = rk.shape[0]
    h = np.zeros((n, u))
    c = np.zeros((n, u))
    for s in range(t):
        z = x[:, s] @ k + h @ rk + b
        zi, zf, zc, zo = np.split(z, 4, axis=1)
        i = _sig(zi + pi * c)
        f = _sig(zf + pf * c)
        c = f * c + i * np.tanh(zc)
        o = _sig(zo + po * c)
        h = o * np.tanh(c)
    return h, c


def _cell_rnn(units=3, **kw):
    return tf.keras.layers.RNN(tf.keras.experimental.PeepholeLSTMCell(units, **kw),
                               return_state=True)


def test_weights_are_tf_24s_layout():
    rnn = _cell_rnn(3)
    rnn(tf.ones([2, 4, 5]))
    names = [w.name.split("/")[-1] for w in rnn.weights]
    assert names == ["kernel:0", "recurrent_kernel:0", "bias:0",
                     "input_gate_peephole_weights:0", "forget_gate_peephole_weights:0",
                     "output_gate_peephole_weights:0"]
    assert [tuple(w.shape) for w in rnn.weights] == [(5, 12), (3, 12), (12,), (3,), (3,), (3,)]
    np.testing.assert_array_equal(rnn.weights[2].numpy()[3:6], np.ones(3))  # unit_forget_bias


def test_output_and_states_match_numpy():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 5, 4)).astype(np.float32)
    rnn = _cell_rnn(3)
    rnn(x)
    ws = [rng.normal(scale=0.5, size=tuple(w.shape)).astype(np.float32) for w in rnn.weights]
    rnn.set_weights(ws)
    out, h, c = rnn(x)
    h_ref, c_ref = _numpy_peephole(x.astype(np.float64), *[w.astype(np.float64) for w in ws])
    np.testing.assert_allclose(out.numpy(), h_ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.numpy(), h_ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.numpy(), c_ref, rtol=1e-5, atol=1e-6)


def test_zero_peepholes_equal_tf_keras_lstm_cell():
    ref = real_tf()
    x = np.random.default_rng(1).normal(size=(3, 4, 2)).astype(np.float32)
    ours = tf.keras.layers.RNN(tf.keras.experimental.PeepholeLSTMCell(4))
    theirs = ref.keras.layers.RNN(ref.keras.layers.LSTMCell(4))
    ours(x)
    theirs(x)
    ws = ours.get_weights()
    theirs.set_weights(ws[:3])
    ours.set_weights(ws[:3] + [np.zeros(4, np.float32)] * 3)
    np.testing.assert_allclose(ours(x).numpy(), theirs(x).numpy(), rtol=1e-5, atol=1e-6)


def test_peephole_gradients_match_finite_differences():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 3, 2))
    rnn = tf.keras.layers.RNN(tf.keras.experimental.PeepholeLSTMCell(2, dtype="float64"),
                               dtype="float64")
    rnn(x)
    ws = [rng.normal(scale=0.5, size=tuple(w.shape)) for w in rnn.weights]
    rnn.set_weights(ws)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(rnn(x) ** 2)
    grads = tape.gradient(loss, rnn.trainable_weights)
    assert len(grads) == 6 and all(g is not None for g in grads)
    eps = 1e-6
    for wi in (3, 4, 5):  # the peephole weights
        fd = np.zeros_like(ws[wi])
        for j in range(ws[wi].size):
            for sign in (1, -1):
                w = [a.copy() for a in ws]
                w[wi].flat[j] += sign * eps
                h, _ = _numpy_peephole(x, *w)
                fd.flat[j] += sign * (h ** 2).sum() / (2 * eps)
        np.testing.assert_allclose(grads[wi].numpy(), fd, rtol=1e-5, atol=1e-8)


def test_config_round_trip_and_h5(tmp_path):
    cell = tf.keras.experimental.PeepholeLSTMCell(3, dropout=0.1, unit_forget_bias=False)
    cfg = cell.get_config()
    assert cfg["units"] == 3 and cfg["unit_forget_bias"] is False and cfg["dropout"] == 0.1
    assert tf.keras.experimental.PeepholeLSTMCell.from_config(cfg).get_config() == cfg
    inp = tf.keras.Input((4, 2))
    model = tf.keras.Model(inp, tf.keras.layers.RNN(
        tf.keras.experimental.PeepholeLSTMCell(3))(inp))
    x = np.random.default_rng(3).normal(size=(2, 4, 2)).astype(np.float32)
    model.set_weights([w + 0.1 for w in model.get_weights()])
    y = model.predict(x)
    model.save(str(tmp_path / "m.h5"))
    back = tf.keras.models.load_model(str(tmp_path / "m.h5"))
    assert type(back.layers[1].cell).__name__ == "PeepholeLSTMCell"
    np.testing.assert_allclose(back.predict(x), y, rtol=1e-6)


def test_fit_trains_peephole_weights():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(32, 5, 2)).astype(np.float32)
    y = x.sum(axis=(1, 2))[:, None]
    model = tf.keras.Sequential([tf.keras.layers.RNN(
        tf.keras.experimental.PeepholeLSTMCell(4), input_shape=(5, 2)),
        tf.keras.layers.Dense(1)])
    model.compile("adam", "mse")
    before = [w.numpy().copy() for w in model.layers[0].weights[3:]]
    hist = model.fit(x, y, epochs=3, verbose=0)
    assert hist.history["loss"][-1] < hist.history["loss"][0]
    assert all(np.abs(w.numpy() - b).max() > 0 for w, b in zip(model.layers[0].weights[3:],
                                                                before))


def test_matches_real_tf_peephole_lstm_cell_step_by_step():
    # TF's compat.v1 LSTMCell(use_peepholes=True) computes TF 2.4's peephole equations
    # with its own layout: kernel = [x; h] rows, gate columns i, j(=c), f, o, and the
    # w_*_diag peepholes; forget_bias=0 leaves the forget gate to the bias.
    ref = real_tf()
    rng = np.random.default_rng(5)
    x = rng.normal(size=(3, 6, 4)).astype(np.float32)
    ours = tf.keras.layers.RNN(tf.keras.experimental.PeepholeLSTMCell(5),
                               return_sequences=True)
    ours(x)
    ws = [rng.normal(scale=0.4, size=tuple(w.shape)).astype(np.float32) for w in ours.weights]
    ours.set_weights(ws)
    k, rk, b, pi, pf, po = ws

    def reorder(m):  # ours i, f, c, o -> TF v1's i, c, f, o
        i, f, c, o = np.split(m, 4, axis=-1)
        return np.concatenate([i, c, f, o], axis=-1)
    cell = ref.compat.v1.nn.rnn_cell.LSTMCell(5, use_peepholes=True, forget_bias=0.0)
    state = ref.compat.v1.nn.rnn_cell.LSTMStateTuple(ref.zeros([3, 5]), ref.zeros([3, 5]))
    cell(ref.constant(x[:, 0]), state)
    by_name = {"kernel": reorder(np.concatenate([k, rk], 0)), "bias": reorder(b),
               "w_i_diag": pi, "w_f_diag": pf, "w_o_diag": po}
    for w in cell.weights:
        w.assign(by_name[w.name.split("/")[-1].split(":")[0]])
    outs = []
    for t in range(x.shape[1]):
        h, state = cell(ref.constant(x[:, t]), state)
        outs.append(h.numpy())
    np.testing.assert_allclose(ours(x).numpy(), np.stack(outs, 1), rtol=1e-5, atol=1e-5)
