"""Recurrent Keras models saved by torchflow run in real TF (issues 15 and 13).

Each model is built with the same code in real tf.keras (2.21, ``TF_USE_LEGACY_KERAS``)
and torchflow, with the same weights; torchflow's ``model.save(dir)`` is loaded by
real TF's ``tf.saved_model.load`` and its ``serving_default`` must give tf.keras'
predictions (the reference), at batch sizes and sequence lengths the trace never
saw; the same directory loads back in torchflow to the same values. The graph of
the model's call (``ConcreteFunction.graph.as_graph_def()``) is imported into a
real ``tf.Graph`` and run there too. LSTM/GRU are written as TF's Keras writes them:
a ``While`` loop over TensorLists, so an unknown time length works.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

RTOL, ATOL = 1e-5, 1e-6


def _stacked(lib):
    L = lib.keras.layers
    inp = lib.keras.Input((6, 4), name="seq")
    h = L.LSTM(3, return_sequences=True)(inp)
    h = L.GRU(3)(h)
    return lib.keras.Model(inp, L.Dense(2)(h))


def _states(lib):
    L = lib.keras.layers
    inp = lib.keras.Input((5, 3), name="seq")
    seq, h, c = L.LSTM(4, return_sequences=True, return_state=True)(inp)
    g, gh = L.GRU(2, return_state=True, go_backwards=True)(seq)
    return lib.keras.Model(inp, [seq, h, c, g, gh])


def _unknown_time(lib):
    L = lib.keras.layers
    inp = lib.keras.Input((None, 4), name="seq")
    h = L.GRU(3, return_sequences=True, go_backwards=True)(inp)
    return lib.keras.Model(inp, L.LSTM(2)(h))


def _time_major(lib):
    L = lib.keras.layers
    inp = lib.keras.Input((3, 4), name="seq")  # read as [time, batch=3, features]
    return lib.keras.Model(inp, L.LSTM(2, time_major=True, return_sequences=True)(inp))


def _masked(lib):
    L = lib.keras.layers
    inp = lib.keras.Input((6, 4), name="seq")
    h = L.Masking(0.0)(inp)
    h = L.LSTM(3, return_sequences=True)(h)
    return lib.keras.Model(inp, L.GRU(2)(h))


def _embedded(lib):
    L = lib.keras.layers
    ids = lib.keras.Input((None,), dtype="int32", name="ids")
    h = L.Embedding(7, 4, mask_zero=True)(ids)
    return lib.keras.Model(ids, L.GRU(3, return_sequences=True)(h))


def _embedded_lstm_last(lib):
    # A masked LSTM's last output and its states are three results of one kernel call
    # (the graph once read the cell state c for the output).
    L = lib.keras.layers
    ids = lib.keras.Input((None,), dtype="int32", name="ids")
    h = L.Embedding(7, 4, mask_zero=True)(ids)
    out, h_state, c_state = L.LSTM(3, return_state=True)(h)
    return lib.keras.Model(ids, [L.Dense(2)(out), h_state, c_state])


def _simple(lib):
    L = lib.keras.layers
    inp = lib.keras.Input((5, 4), name="seq")
    return lib.keras.Model(inp, L.SimpleRNN(3)(L.SimpleRNN(3, return_sequences=True)(inp)))


def _cells_unknown_time(lib):
    L = lib.keras.layers
    inp = lib.keras.Input((None, 4), name="seq")
    h = L.SimpleRNN(3, return_sequences=True)(inp)
    return lib.keras.Model(inp, L.GRU(2, reset_after=False, go_backwards=True)(h))


def _cells_masked(lib):
    L = lib.keras.layers
    inp = lib.keras.Input((6, 4), name="seq")
    h = L.Masking(0.0)(inp)
    h = L.LSTM(3, activation="relu", return_sequences=True)(h)  # not the fused kernel
    return lib.keras.Model(inp, L.SimpleRNN(2)(h))


def _stacked_cells(lib):
    L = lib.keras.layers
    inp = lib.keras.Input((None, 4), name="seq")
    out = L.RNN([L.LSTMCell(3), L.GRUCell(2)], return_state=True)(inp)
    return lib.keras.Model(inp, out)


def _bidirectional(lib):
    L = lib.keras.layers
    inp = lib.keras.Input((6, 4), name="seq")
    h = L.Bidirectional(L.LSTM(3, return_sequences=True))(L.Masking(0.0)(inp))
    return lib.keras.Model(inp, L.Bidirectional(L.GRU(2), merge_mode="sum")(h))


def _bidirectional_unknown_time(lib):
    L = lib.keras.layers
    inp = lib.keras.Input((None, 4), name="seq")
    return lib.keras.Model(inp, L.Bidirectional(L.SimpleRNN(3))(inp))


def _dropout(lib):
    L = lib.keras.layers
    inp = lib.keras.Input((5, 4), name="seq")
    h = L.LSTM(3, dropout=0.3, recurrent_dropout=0.3, return_sequences=True)(inp)  # a cell
    return lib.keras.Model(inp, L.GRU(2, dropout=0.3)(h))  # fused, dropout on its inputs


def _conv_lstm(lib):
    L = lib.keras.layers
    inp = lib.keras.Input((None, 5, 5, 2), name="frames")
    return lib.keras.Model(inp, L.ConvLSTM2D(2, 3, padding="same", return_sequences=True)(inp))


RNG = np.random.RandomState(5)


def _seq(*shape):
    return RNG.uniform(-1, 1, size=shape).astype(np.float32)


def _padded():
    x = _seq(4, 6, 4)
    x[0, 4:] = 0.0  # right-padded
    x[1, :2] = 0.0  # left-padded
    x[2, 1:5] = 0.0  # a gap
    return x


CASES = {
    # name: (builder, inputs at two sizes the trace never saw)
    "stacked": (_stacked, [_seq(3, 6, 4), _seq(5, 6, 4)]),
    "states": (_states, [_seq(3, 5, 3)]),
    "unknown_time": (_unknown_time, [_seq(3, 7, 4), _seq(2, 3, 4)]),
    "time_major": (_time_major, [_seq(5, 3, 4), _seq(2, 3, 4)]),
    "masked": (_masked, [_padded()]),
    "embedded": (_embedded, [np.array([[1, 2, 3, 0, 0], [4, 0, 5, 6, 1], [0, 0, 2, 3, 4]],
                                      np.int32)]),
    "embedded_lstm_last": (_embedded_lstm_last, [np.array(
        [[1, 2, 3, 0, 0], [4, 0, 5, 6, 1], [0, 0, 2, 3, 4]], np.int32)]),
    "simple": (_simple, [_seq(3, 5, 4)]),
    "cells_unknown_time": (_cells_unknown_time, [_seq(3, 7, 4), _seq(2, 2, 4)]),
    "cells_masked": (_cells_masked, [_padded()]),
    "stacked_cells": (_stacked_cells, [_seq(2, 5, 4)]),
    "bidirectional": (_bidirectional, [_padded()]),
    "bidirectional_unknown_time": (_bidirectional_unknown_time, [_seq(2, 5, 4), _seq(3, 2, 4)]),
    "conv_lstm": (_conv_lstm, [_seq(2, 3, 5, 5, 2), _seq(3, 4, 5, 5, 2)]),
    "dropout": (_dropout, [_seq(3, 5, 4)]),
}


def _pair(name):
    rtf = real_tf()
    build = CASES[name][0]
    theirs, ours = build(rtf), build(tf)
    rng = np.random.RandomState(3)
    weights = [rng.uniform(-0.8, 0.8, size=w.shape).astype(np.float32)
               for w in theirs.get_weights()]
    theirs.set_weights(weights)
    ours.set_weights(weights)
    return rtf, theirs, ours


def _outputs(out):
    if isinstance(out, dict):
        return [np.asarray(out[k]) for k in sorted(out)]
    if isinstance(out, (list, tuple)):
        return [np.asarray(o) for o in out]
    return [np.asarray(out)]


def _expected(theirs, x):
    flat = real_tf().nest.flatten(theirs(x, training=False))
    by_name = dict(zip(theirs.output_names, [o.numpy() for o in flat]))
    return [by_name[k] for k in sorted(by_name)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_saved_rnn_model_serves_in_real_tf_and_torchflow(tmp_path, name):
    rtf, theirs, ours = _pair(name)
    path = str(tmp_path / name)
    ours.save(path)
    loaded = rtf.saved_model.load(path)
    assert "serving_default" in loaded.signatures
    serve = loaded.signatures["serving_default"]
    again = tf.saved_model.load(path).signatures["serving_default"]
    for x in CASES[name][1]:
        want = _expected(theirs, x)
        for g, w in zip(_expected(ours, x), want):  # torchflow's own call
            np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)
        got = _outputs({k: v.numpy() for k, v in serve(rtf.constant(x)).items()})
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)
        mine = _outputs({k: v.numpy() for k, v in again(tf.constant(x)).items()})
        for g, w in zip(mine, want):
            np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("name", ["stacked", "unknown_time", "masked", "cells_unknown_time"])
def test_recurrent_layers_are_while_loops(name):
    _, _, ours = _pair(name)
    spec = [tf.TensorSpec([None] + list(ours.inputs[0].shape[1:]), ours.inputs[0].dtype)]
    fn = tf.function(lambda x: ours(x, training=False), input_signature=spec)
    gd = fn.get_concrete_function().graph.as_graph_def()
    ops = [n.op for n in gd.node]
    # The fused kernels' bodies take the weights as inputs (StatelessWhile); a Python
    # cell's body reads its variables (While, as TF's for a stateful body).
    assert ops.count("StatelessWhile") + ops.count("While") == 2
    # The steps are in the loop body, not unrolled (the Dense after them is one MatMul).
    assert ops.count("MatMul") == (1 if name == "stacked" else 0)
    bodies = [f for f in gd.library.function if "while_body" in f.signature.name]
    assert len(bodies) == 2
    assert all(any(n.op == "TensorListSetItem" for n in f.node_def) for f in bodies)


@pytest.mark.parametrize("name", ["stacked", "unknown_time", "masked", "cells_masked"])
def test_call_graph_def_runs_in_a_real_tf_graph(name):
    rtf, theirs, ours = _pair(name)
    spec = [tf.TensorSpec([None] + list(ours.inputs[0].shape[1:]), ours.inputs[0].dtype)]
    fn = tf.function(lambda x: ours(x, training=False), input_signature=spec)
    graph = fn.get_concrete_function().graph
    gd_bytes = graph.as_graph_def().SerializeToString()
    x = CASES[name][1][0]
    want = _expected(theirs, x)
    g = rtf.Graph()
    with g.as_default():
        feeds = {graph.inputs[0]: rtf.constant(x)}
        variables = []
        for v, ep in graph.captures:
            if isinstance(v, tf.Variable):
                rv = rtf.Variable(v.numpy())
                variables.append(rv)
                feeds[ep] = rv.handle
        outs = rtf.graph_util.import_graph_def(
            rtf.compat.v1.GraphDef.FromString(gd_bytes), input_map=feeds,
            return_elements=list(graph.outputs), name="")
        init = rtf.compat.v1.variables_initializer(variables)
    with rtf.compat.v1.Session(graph=g) as sess:
        sess.run(init)
        got = sess.run(outs)
    np.testing.assert_allclose(got[0], want[0], rtol=RTOL, atol=ATOL)


class _SizedCell(tf.keras.layers.Layer):
    """A custom cell whose step bakes the traced batch size into a constant."""

    state_size = 3

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", shape=[input_shape[-1], 3])
        self.built = True

    def call(self, x, states):
        h = tf.matmul(x, self.kernel) + tf.ones([x.shape[0], 3]) * states[0]
        return h, [h]


def test_a_step_that_reads_the_batch_size_is_refused(tmp_path):
    """The step's body is traced at two batch sizes; a body that differs (it holds a
    size the trace saw) is not written: no serving signature, never a wrong graph."""
    rtf = real_tf()
    inp = tf.keras.Input((5, 4))
    model = tf.keras.Model(inp, tf.keras.layers.RNN(_SizedCell())(inp))
    fn = tf.function(lambda x: model(x, training=False),
                     input_signature=[tf.TensorSpec([None, 5, 4], tf.float32)])
    root = tf.Module()
    root.model = model
    with pytest.raises(tf.errors.UnimplementedError, match="Cannot save"):
        tf.saved_model.save(root, str(tmp_path / "f"), signatures=fn)
    path = str(tmp_path / "m")
    model.save(path)  # the weights are written; the call is not
    assert "serving_default" not in rtf.saved_model.load(path).signatures


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is the result compared
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("layer", ["LSTM", "GRU", "SimpleRNN"])
def test_initial_state_of_another_batch_is_tf_value_error(layer):
    """States whose batch is not the input's: TF's ValueError (torch's fused CPU kernel
    would read past the state's memory and abort the process)."""
    rtf = real_tf()
    x = _seq(3, 6, 4)
    h = _seq(1, 3)

    def run(lib):
        lay = getattr(lib.keras.layers, layer)(3)
        n = 2 if layer == "LSTM" else 1
        return lay(lib.constant(x), initial_state=[lib.constant(h)] * n)

    theirs, ours = _error(lambda: run(rtf)), _error(lambda: run(tf))
    assert ours is not None and theirs is not None
    assert ours[0] == theirs[0] == "ValueError"
    assert "Tensor's shape (3, 3) is not compatible with supplied shape (1, 3)." in theirs[1]
    assert ours[1] == "Tensor's shape (3, 3) is not compatible with supplied shape (1, 3)."


def test_stateful_rnn_needs_a_known_batch():
    rtf = real_tf()

    def build(lib):
        inp = lib.keras.Input((6, 4))
        return lib.keras.Model(inp, lib.keras.layers.LSTM(3, stateful=True)(inp))

    theirs, ours = _error(lambda: build(rtf)), _error(lambda: build(tf))
    assert ours == theirs
    assert ours[0] == "ValueError" and "stateful" in ours[1]


def test_traced_masked_lstm_reads_each_calls_mask():
    """The masked fused kernels are host calls of a traced function: each replay takes
    its own mask's path (packed when right-padded, step by step otherwise)."""
    rtf, theirs, ours = _pair("masked")
    fn = tf.function(lambda x: ours(x, training=False))
    right = _seq(4, 6, 4)
    right[:, 4:] = 0.0
    for x in (right, _padded(), right):
        np.testing.assert_allclose(fn(tf.constant(x)).numpy(), _expected(theirs, x)[0],
                                   rtol=RTOL, atol=ATOL)


def test_a_training_graph_with_recurrent_dropout_draws_its_masks():
    """Under training=True the dropout masks are random values of each call, drawn
    before the loop (TF's step at time zero) and read by its body: never the trace's
    masks as constants (tests/keras/saving/test_rnn_dropout_savedmodel.py runs them)."""
    _, _, ours = _pair("dropout")
    fn = tf.function(lambda x: ours(x, training=True),
                     input_signature=[tf.TensorSpec([None, 5, 4], tf.float32)])
    g = fn.get_concrete_function().graph
    assert g.exportable
    gd = g.as_graph_def()
    assert sum(n.op == "RandomUniform" for n in gd.node) == 3  # LSTM input, state; GRU
    assert not any(n.op == "RandomUniform" for f in gd.library.function for n in f.node_def)
