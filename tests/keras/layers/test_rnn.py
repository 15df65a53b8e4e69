"""Recurrent layers vs real tf.keras with the same weights: the layer_test contract,
masking, states, go_backwards, stateful, Bidirectional, fused vs step loop, gradients."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.keras.testing_utils import layer_test
from torchflow._src.testing import real_tf

L = tf.keras.layers


def _x(shape=(2, 4, 3), seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def _pair(name, *args, **kwargs):
    """The same layer in torchflow and tf.keras, tf.keras given torchflow's weights."""
    ours = getattr(L, name)(*args, **kwargs)
    ref = getattr(real_tf().keras.layers, name)(*args, **kwargs)
    return ours, ref


def _sync(ours, ref, x, **kw):
    y = ours(x, **kw)
    ref(x, **kw)
    ref.set_weights(ours.get_weights())
    return y, ref(x, **kw)


def _close(a, b, tol=1e-5):
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            _close(u, v, tol)
        return
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("cls,kwargs", [
    (L.SimpleRNN, {"units": 3}),
    (L.SimpleRNN, {"units": 3, "return_sequences": True, "activation": "relu"}),
    (L.LSTM, {"units": 3}),
    (L.LSTM, {"units": 3, "return_sequences": True, "go_backwards": True,
              "unit_forget_bias": False, "bias_initializer": "ones"}),
    (L.LSTM, {"units": 2, "recurrent_activation": "hard_sigmoid", "use_bias": False}),
    (L.GRU, {"units": 3}),
    (L.GRU, {"units": 3, "reset_after": False, "return_sequences": True}),
    (L.GRU, {"units": 3, "time_major": True, "return_sequences": True}),
])
def test_rnn_contract(cls, kwargs):
    layer_test(cls, kwargs, input_shape=(2, 4, 3))


def test_rnn_with_custom_cell_and_stacked_cells():
    tfr = real_tf()
    for cells, tcells in [
        (L.LSTMCell(3), tfr.keras.layers.LSTMCell(3)),
        ([L.GRUCell(3), L.SimpleRNNCell(2)],
         [tfr.keras.layers.GRUCell(3), tfr.keras.layers.SimpleRNNCell(2)]),
    ]:
        ours = L.RNN(cells, return_sequences=True, return_state=True)
        ref = tfr.keras.layers.RNN(tcells, return_sequences=True, return_state=True)
        y, ty = _sync(ours, ref, _x())
        _close(y, ty)
        again = L.RNN.from_config(ours.get_config())
        assert again.get_config()["cell"]["class_name"] == ours.get_config()["cell"][
            "class_name"]

    class MinimalCell(tf.keras.layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.state_size = units

        def build(self, input_shape):
            self.kernel = self.add_weight("kernel", shape=(input_shape[-1], self.units))
            self.built = True

        def call(self, inputs, states):
            out = tf.matmul(inputs, self.kernel) + states[0]
            return out, [out]

    x = _x()
    rnn = L.RNN(MinimalCell(2))
    y = rnn(x)
    k = rnn.get_weights()[0]
    h = np.zeros((2, 2), np.float32)
    for t in range(4):
        h = x[:, t] @ k + h
    np.testing.assert_allclose(y.numpy(), h, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["SimpleRNN", "LSTM", "GRU"])
def test_return_state_go_backwards_initial_state(name):
    ours, ref = _pair(name, 3, return_state=True, return_sequences=True, go_backwards=True)
    x = _x()
    y, ty = _sync(ours, ref, x)
    _close(y, ty)
    init = [np.full((2, 3), 0.5, np.float32)] * (2 if name == "LSTM" else 1)
    tinit = [real_tf().constant(s) for s in init]
    _close(ours(x, initial_state=init), ref(x, initial_state=tinit))


@pytest.mark.parametrize("name", ["SimpleRNN", "LSTM", "GRU"])
def test_masking_from_embedding_matches_tf(name):
    tfr = real_tf()
    ids = np.array([[1, 2, 0, 0], [3, 4, 2, 0], [0, 1, 0, 2]], np.int32)  # not right-padded

    inp = tf.keras.Input((4,), dtype="int32")
    e = L.Embedding(5, 3, mask_zero=True)(inp)
    seq = getattr(L, name)(3, return_sequences=True)(e)
    last = getattr(L, name)(2, go_backwards=True)(seq)
    m = tf.keras.Model(inp, [seq, last])
    # tf.keras eagerly (building its Functional model costs ~10 s of graph tracing)
    R = tfr.keras.layers
    layers = [R.Embedding(5, 3, mask_zero=True), getattr(R, name)(3, return_sequences=True),
              getattr(R, name)(2, go_backwards=True)]
    emb = layers[0](ids)
    mask = layers[0].compute_mask(ids)
    layers[2](layers[1](emb, mask=mask), mask=mask)
    weights = m.get_weights()
    for lay in layers:
        n = len(lay.weights)
        lay.set_weights(weights[:n])
        weights = weights[n:]
    emb = layers[0](ids)
    tseq = layers[1](emb, mask=mask)
    tlast = layers[2](tseq, mask=mask)
    _close(m(ids), [tseq, tlast])


def test_fused_path_equals_step_loop_and_tf():
    x = _x((3, 6, 4))
    for name in ("LSTM", "GRU"):
        ours, ref = _pair(name, 5, return_sequences=True, return_state=True)
        fused, ty = _sync(ours, ref, x)
        ours._use_fused = False
        loop = ours(x)
        _close(fused, loop)
        _close(fused, ty)


def test_stateful_carries_state_across_calls_and_resets():
    x1, x2 = _x((2, 3, 3), 1), _x((2, 3, 3), 2)
    for name in ("LSTM", "GRU", "SimpleRNN"):
        ours, ref = _pair(name, 3, stateful=True)
        _sync(ours, ref, x1)
        ours.reset_states()
        ref.reset_states()
        _close(ours(x1), ref(x1))
        _close(ours(x2), ref(x2))  # continues from x1's final states
        ours.reset_states()
        ref.reset_states()
        _close(ours(x2), ref(x2))
        assert len(ours.weights) == 3 and len(ours.states) == (2 if name == "LSTM" else 1)
    with pytest.raises(AttributeError):
        L.LSTM(2).reset_states()


def test_stateful_states_unchanged_by_functional_construction():
    layer = L.LSTM(2, stateful=True)
    layer(_x((2, 3, 3)))
    before = [s.numpy().copy() for s in layer.states]
    inp = tf.keras.Input(shape=(3, 3), batch_size=2)
    layer(inp)
    for b, s in zip(before, layer.states):
        np.testing.assert_array_equal(b, s.numpy())


@pytest.mark.parametrize("merge_mode", ["concat", "sum", "mul", "ave", None])
def test_bidirectional_merge_modes(merge_mode):
    tfr = real_tf()
    for seqs in (False, True):
        ours = L.Bidirectional(L.LSTM(3, return_sequences=seqs), merge_mode=merge_mode)
        ref = tfr.keras.layers.Bidirectional(tfr.keras.layers.LSTM(3, return_sequences=seqs),
                                             merge_mode=merge_mode)
        y, ty = _sync(ours, ref, _x())
        _close(y, ty)


def test_bidirectional_states_backward_layer_mask_and_config():
    tfr = real_tf()
    ours = L.Bidirectional(L.GRU(3, return_state=True, return_sequences=True),
                           backward_layer=L.SimpleRNN(3, go_backwards=True, return_state=True,
                                                      return_sequences=True))
    ref = tfr.keras.layers.Bidirectional(
        tfr.keras.layers.GRU(3, return_state=True, return_sequences=True),
        backward_layer=tfr.keras.layers.SimpleRNN(3, go_backwards=True, return_state=True,
                                                  return_sequences=True))
    y, ty = _sync(ours, ref, _x())
    _close(y, ty)
    assert [w.shape for w in ours.weights] == [tuple(w.shape) for w in ref.weights]
    again = L.Bidirectional.from_config(ours.get_config())
    assert again.get_config() == ours.get_config()
    mask = np.array([[1, 1, 1, 0], [1, 1, 0, 0]], bool)
    b = L.Bidirectional(L.LSTM(2, return_sequences=True))
    tb = tfr.keras.layers.Bidirectional(tfr.keras.layers.LSTM(2, return_sequences=True))
    y, ty = _sync(b, tb, _x(), mask=mask)
    _close(y, ty)  # masked steps give zeros (zero_output_for_mask)
    with pytest.raises(ValueError):
        L.Bidirectional(L.LSTM(2), merge_mode="max")


def test_time_distributed_matches_tf():
    ours, ref = _pair("TimeDistributed", L.Dense(2)) if False else (None, None)
    ours = L.TimeDistributed(L.Dense(2, activation="tanh"))
    ref = real_tf().keras.layers.TimeDistributed(real_tf().keras.layers.Dense(2,
                                                                             activation="tanh"))
    y, ty = _sync(ours, ref, _x((2, 4, 3, 5)))
    _close(y, ty)
    assert y.shape.as_list() == [2, 4, 3, 2]
    again = L.TimeDistributed.from_config(ours.get_config())
    assert again.get_config()["layer"]["class_name"] == "Dense"


@pytest.mark.parametrize("policy", ["mixed_float16", "mixed_bfloat16", "float64"])
def test_wrappers_and_cells_under_global_policy(policy):
    tf.keras.mixed_precision.set_global_policy(policy)
    try:
        pol = tf.keras.mixed_precision.Policy(policy)
        x = _x()
        for layer in (L.Bidirectional(L.LSTM(3)), L.TimeDistributed(L.Dense(2)),
                      L.RNN([L.LSTMCell(2), L.GRUCell(2)]), L.GRU(2, stateful=True)):
            y = layer(x)
            assert y.dtype.name == pol.compute_dtype
            assert all(w.dtype.name == pol.variable_dtype for w in layer.weights)
    finally:
        tf.keras.mixed_precision.set_global_policy("float32")


@pytest.mark.parametrize("fused", [True, False])
def test_lstm_loss_gradient_matches_tf(fused):
    tfr = real_tf()
    x = _x((2, 5, 3))
    ours, ref = _pair("LSTM", 4, return_sequences=True)
    _sync(ours, ref, x)
    ours._use_fused = fused
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(ours(x) ** 2)
    g = tape.gradient(loss, ours.trainable_weights)
    with tfr.GradientTape() as ttape:
        tloss = tfr.reduce_sum(ref(x) ** 2)
    tg = ttape.gradient(tloss, ref.trainable_weights)
    for a, b in zip(g, tg):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5)


def test_dropout_in_training_changes_output_not_in_inference():
    x = _x()
    for layer in (L.LSTM(3, dropout=0.5, recurrent_dropout=0.5), L.GRU(3, dropout=0.5)):
        a = layer(x).numpy()
        np.testing.assert_array_equal(a, layer(x, training=False).numpy())
        assert not np.allclose(a, layer(x, training=True).numpy())


def test_invalid_arguments_raise_like_tf():
    with pytest.raises(ValueError):
        L.RNN(object())
    with pytest.raises(ValueError):
        real_tf().keras.layers.RNN(object())
    with pytest.raises(ValueError):
        L.LSTM(0)


def test_weight_names_and_h5_weights_move_both_ways(tmp_path):
    tfr = real_tf()

    def build(K):
        inp = K.Input((4, 3))
        y = K.layers.Bidirectional(K.layers.LSTM(2, return_sequences=True, name="lstm"),
                                   name="bi")(inp)
        return K.Model(inp, K.layers.GRU(2, name="gru")(y))

    m, r = build(tf.keras), build(tfr.keras)
    assert [w.name for w in m.weights] == [w.name for w in r.weights]
    x = _x()
    m.save_weights(str(tmp_path / "a.h5"))
    r.load_weights(str(tmp_path / "a.h5"))
    _close(m(x), r(x))
    r2 = build(tfr.keras)
    r2.save_weights(str(tmp_path / "b.h5"))
    m.load_weights(str(tmp_path / "b.h5"))
    _close(m(x), r2(x))


@pytest.mark.parametrize("kwargs", [
    {"filters": 2, "kernel_size": 3},
    {"filters": 2, "kernel_size": (3, 2), "padding": "same", "strides": 2,
     "return_sequences": True, "recurrent_activation": "sigmoid"},
])
def test_conv_lstm2d_contract(kwargs):
    layer_test(L.ConvLSTM2D, kwargs, input_shape=(2, 3, 5, 5, 2))


def test_conv_lstm2d_states_backwards_and_mask_match_tf():
    ours, ref = _pair("ConvLSTM2D", 2, 2, return_state=True, go_backwards=True,
                      return_sequences=True)
    x = _x((2, 3, 4, 4, 1))
    y, ty = _sync(ours, ref, x)
    _close(y, ty)
    mask = np.array([[1, 0, 1], [1, 1, 0]], bool)
    _close(ours(x, mask=mask), ref(x, mask=mask))
    with pytest.raises(ValueError):
        L.ConvLSTM2D(2, 2)(_x((2, 3, 4)))


def test_abstract_rnn_cell_subclass_matches_numpy():
    class Acc(L.AbstractRNNCell):
        @property
        def state_size(self):
            return 3

        @property
        def output_size(self):
            return 3

        def call(self, inputs, states):
            out = inputs + states[0]
            return out, [out]

    x = _x((2, 4, 3))
    np.testing.assert_allclose(L.RNN(Acc())(x).numpy(), x.sum(1), rtol=1e-5, atol=1e-6)
    with pytest.raises(NotImplementedError):
        L.AbstractRNNCell().state_size  # noqa: B018 (the attribute access is the test)


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_right_padded_mask_takes_fused_path_and_matches_loop_and_tf(name, monkeypatch):
    from torchflow._src.ops import rnn_ops

    x = _x((3, 5, 2))
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 0, 0, 0, 0]], bool)
    calls = []
    fn = getattr(rnn_ops, name.lower() + "_masked")
    monkeypatch.setattr(rnn_ops, name.lower() + "_masked",
                        lambda *a, **k: calls.append(1) or fn(*a, **k))
    for kw in ({"return_sequences": True, "return_state": True}, {}):
        ours, ref = _pair(name, 3, **kw)
        fused, ty = _sync(ours, ref, x, mask=mask)
        _close(fused, ty)
        ours._use_fused = False
        _close(ours(x, mask=mask), fused)
    assert len(calls) == 2
    # zero outputs at padded steps inside Bidirectional (and time_major input)
    b = L.Bidirectional(getattr(L, name)(2, return_sequences=True))
    tb = real_tf().keras.layers.Bidirectional(
        getattr(real_tf().keras.layers, name)(2, return_sequences=True))
    y, ty = _sync(b, tb, x, mask=mask)
    _close(y, ty)
    tm = getattr(L, name)(3, time_major=True, return_sequences=True)
    a = tm(np.transpose(x, (1, 0, 2)), mask=mask.T)
    tm._use_fused = False
    _close(a, tm(np.transpose(x, (1, 0, 2)), mask=mask.T))
