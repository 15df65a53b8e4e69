"""Ops that take their sizes at run time in a ``[None, ...]`` signature (issue 13):
random ops shaped by ``tf.shape(x)``, dropout, gathers (Embedding), ``tf.image.resize``
and an unrolled SimpleRNN record once for every batch size, so the body's Python runs
at most twice over six sizes (TF: once), and the outputs are the eager ones (real TF's
numbers for seeded ops: each traced random op is its own Philox stream, advanced by
every call, as a TF graph's kernel is)."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

SIZES = (2, 3, 4, 5, 6, 7)


def _traced(body, spec):
    runs = []

    def f(x):
        runs.append(1)
        return body(x)

    return tf.function(f, input_signature=[spec]), runs


def _rows(n, cols=4):
    return (np.arange(n * cols, dtype=np.float32).reshape(n, cols) + 1) / 10


@pytest.mark.parametrize("op", ["uniform", "normal", "truncated_normal"])
def test_unseeded_random_shaped_by_tf_shape(op):
    draw = getattr(tf.random, op)
    f, runs = _traced(lambda x: draw(tf.shape(x)), tf.TensorSpec([None, 4]))
    outs = [f(_rows(n)).numpy() for n in SIZES]
    assert len(runs) <= 2
    for n, out in zip(SIZES, outs):
        assert out.shape == (n, 4)
    assert not np.array_equal(outs[0], f(_rows(2)).numpy())  # drawn again on each call
    if op == "uniform":
        assert all(((o >= 0) & (o < 1)).all() for o in outs)
    if op == "truncated_normal":
        assert all((np.abs(o) <= 2).all() for o in outs)


def _seeded_program(m):
    m.random.set_seed(5)

    def body(x):
        return (x + m.random.uniform(m.shape(x), seed=1),
                m.random.normal(m.shape(x), seed=2),
                m.random.uniform(m.shape(x), maxval=7, dtype=m.int32, seed=3),
                m.random.truncated_normal(m.shape(x), seed=4))

    f = m.function(body, input_signature=[m.TensorSpec([None, 3])])
    return [[t.numpy() for t in f(np.zeros((n, 3), np.float32))] for n in SIZES + (2, 2)]


def test_seeded_random_ops_give_tf_s_numbers_call_after_call():
    rtf = real_tf()
    ours = _seeded_program(tf)
    theirs = _seeded_program(rtf)
    for a, b in zip(ours, theirs):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)
    # and the body's Python ran at most twice for those eight calls
    tf.random.set_seed(5)
    f, runs = _traced(lambda x: tf.random.uniform(tf.shape(x), seed=1),
                      tf.TensorSpec([None, 3]))
    for n in SIZES:
        f(np.zeros((n, 3), np.float32))
    assert len(runs) <= 2


def test_seeded_op_streams_are_per_function_as_tf_graph_kernels():
    rtf = real_tf()

    def program(m):
        m.random.set_seed(3)
        g = m.function(lambda: m.random.uniform([2], seed=1))
        h = m.function(lambda: m.random.uniform([2], seed=1))
        eager = m.random.uniform([2], seed=1)
        c = g.get_concrete_function()  # a trace without effects: no numbers drawn
        return [g().numpy(), h().numpy(), g().numpy(), eager.numpy(), c().numpy()]

    for a, b in zip(program(tf), program(rtf)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_dropout_layer_and_nn_dropout_record_once():
    layer = tf.keras.layers.Dropout(0.5)
    for body in (lambda x: layer(x, training=True), lambda x: tf.nn.dropout(x, 0.5, seed=7)):
        f, runs = _traced(body, tf.TensorSpec([None, 4]))
        for n in SIZES:
            x = _rows(n)
            out = f(x).numpy()
            assert out.shape == (n, 4)
            kept = out != 0
            np.testing.assert_allclose(out[kept], 2 * x[kept], rtol=1e-6)
        assert len(runs) <= 2


def test_seeded_nn_dropout_matches_eager_with_the_same_stream():
    # Same op seed, global seed reset: the traced op draws the stream eager draws.
    tf.random.set_seed(11)
    eager = [tf.nn.dropout(_rows(n), 0.5, seed=7).numpy() for n in SIZES]
    tf.random.set_seed(11)
    f, runs = _traced(lambda x: tf.nn.dropout(x, 0.5, seed=7), tf.TensorSpec([None, 4]))
    for n, want in zip(SIZES, eager):
        np.testing.assert_array_equal(f(_rows(n)).numpy(), want)
    assert len(runs) <= 2


def test_embedding_and_gather_record_once():
    rtf = real_tf()
    table = np.arange(30, dtype=np.float32).reshape(10, 3)
    ours, theirs = tf.keras.layers.Embedding(10, 3), rtf.keras.layers.Embedding(10, 3)
    ours.build((None, 4))
    theirs.build((None, 4))
    ours.set_weights([table])
    theirs.set_weights([table])
    f, runs = _traced(ours, tf.TensorSpec([None, 4], tf.int32))
    g, gruns = _traced(lambda i: tf.gather(tf.constant(table), i, axis=0),
                       tf.TensorSpec([None, 4], tf.int32))
    for n in SIZES:
        ids = (np.arange(n * 4, dtype=np.int32).reshape(n, 4) * 7) % 10
        want = theirs(ids).numpy()
        np.testing.assert_array_equal(f(ids).numpy(), want)
        np.testing.assert_array_equal(g(ids).numpy(), table[ids])
    assert len(runs) <= 2 and len(gruns) <= 2


def test_resize_and_unrolled_simple_rnn_record_once():
    rtf = real_tf()
    f, runs = _traced(lambda x: tf.image.resize(x, [7, 5]), tf.TensorSpec([None, 4, 3, 1]))
    rnn, rrnn = tf.keras.layers.SimpleRNN(3, unroll=True), rtf.keras.layers.SimpleRNN(
        3, unroll=True)
    seq = np.linspace(-1, 1, 5 * 2, dtype=np.float32).reshape(1, 5, 2)
    rrnn(seq)
    rnn(seq)
    rnn.set_weights(rrnn.get_weights())
    g, gruns = _traced(rnn, tf.TensorSpec([None, 5, 2]))
    for n in SIZES:
        img = np.arange(n * 12, dtype=np.float32).reshape(n, 4, 3, 1)
        np.testing.assert_allclose(f(img).numpy(), rtf.image.resize(img, [7, 5]).numpy(),
                                   rtol=1e-5, atol=1e-5)
        x = np.tile(seq, (n, 1, 1)) * np.arange(1, n + 1, dtype=np.float32)[:, None, None]
        np.testing.assert_allclose(g(x).numpy(), rrnn(x).numpy(), rtol=1e-5, atol=1e-6)
    assert len(runs) <= 2 and len(gruns) <= 2


@pytest.mark.parametrize("make", [lambda: tf.keras.layers.SpatialDropout1D(0.5),
                                  lambda: tf.keras.layers.Dropout(0.5, noise_shape=[None, 1, 3])])
def test_dropout_with_a_noise_shape_records_once(make):
    layer = make()
    f, runs = _traced(lambda x: layer(x, training=True), tf.TensorSpec([None, 4, 3]))
    for n in SIZES:
        out = f(np.ones((n, 4, 3), np.float32)).numpy()
        assert out.shape == (n, 4, 3)
        assert (out == out[:, :1, :]).all()  # one mask value per (row, channel)
        assert set(np.unique(out)) <= {0.0, 2.0}
    assert len(runs) <= 2
