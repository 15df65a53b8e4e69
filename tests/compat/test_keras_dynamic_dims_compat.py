"""Keras layers over inputs with unknown dims (batch and inner), inside a
``tf.function`` with a ``[None, ...]`` signature, at six sizes: values must equal
tf.keras's, and the Python body may run at most twice here (TF runs it once; a
recording that serves every size is found by comparing two). These layers take
sizes from ``tf.shape`` in a trace, as TF's do for unknown dims; a layer that read
``x.shape[i]`` as an int would record once per size. A SavedModel of the same
function, written by torchflow, serves every size in real TF."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

# (batch, time) per call: both unknown dims change, sizes >= 2.
SIZES = ((4, 3), (5, 6), (2, 4), (7, 2), (3, 5), (6, 7))


def _flatten(k):
    return k.layers.Flatten()


def _reshape(k):
    return k.layers.Reshape((-1, 2))


def _cropping(k):
    return k.layers.Cropping1D((1, 0))


def _cropping_both(k):
    return k.layers.Cropping1D((0, 1))


def _time_distributed(k):
    return k.layers.TimeDistributed(k.layers.Dense(3, activation="tanh"))


def _lstm(k):
    return k.layers.LSTM(3, return_sequences=True)


def _gru(k):
    return k.layers.GRU(3)


LAYERS = {f.__name__[1:]: f for f in
          (_flatten, _reshape, _cropping, _cropping_both, _time_distributed, _lstm, _gru)}


def _model(m, make):
    k = m.keras
    inp = k.Input((None, 4))
    model = k.Model(inp, make(k)(inp))
    rng = np.random.RandomState(1)
    model.set_weights([rng.randn(*w.shape).astype(np.float32) * 0.5
                       for w in model.get_weights()])
    return model


def _inputs():
    rng = np.random.RandomState(2)
    return [rng.randn(b, t, 4).astype(np.float32) for b, t in SIZES]


def _run(m, make):
    model = _model(m, make)
    runs = []

    @m.function(input_signature=[m.TensorSpec([None, None, 4], m.float32)])
    def f(x):
        runs.append(1)
        return model(x, training=False)

    f.model = model  # tracked by the module saved below
    return [f(x).numpy() for x in _inputs()], len(runs), f


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_one_recording_for_all_sizes_and_tf_values(name):
    rtf = real_tf()
    want, tf_runs, _ = _run(rtf, LAYERS[name])
    got, runs, _ = _run(tf, LAYERS[name])
    assert tf_runs == 1
    assert runs <= 2, f"{name} recorded {runs} times over {len(SIZES)} sizes"
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_saved_model_serves_every_size_in_real_tf(tmp_path, name):
    rtf = real_tf()
    want, _, f = _run(tf, LAYERS[name])
    module = tf.Module()
    module.f, module.model = f, f.model
    path = str(tmp_path / name)
    tf.saved_model.save(module, path, signatures=f.get_concrete_function())
    serve = rtf.saved_model.load(path).signatures["serving_default"]
    for x, w in zip(_inputs(), want):
        (out,) = serve(rtf.constant(x)).values()
        np.testing.assert_allclose(out.numpy(), w, rtol=1e-5, atol=1e-6)


def _batch_flatten(m):
    runs = []

    @m.function(input_signature=[m.TensorSpec([None, None, 4], m.float32)])
    def f(x):
        runs.append(1)
        return m.keras.backend.batch_flatten(x)

    return [f(x).numpy() for x in _inputs()], len(runs), f


def test_backend_batch_flatten_one_recording_and_saved_model(tmp_path):
    rtf = real_tf()
    want, tf_runs, _ = _batch_flatten(rtf)
    got, runs, f = _batch_flatten(tf)
    assert tf_runs == 1 and runs <= 2
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)
    module = tf.Module()
    module.f = f
    tf.saved_model.save(module, str(tmp_path), signatures=f.get_concrete_function())
    serve = rtf.saved_model.load(str(tmp_path)).signatures["serving_default"]
    for x, w in zip(_inputs(), want):
        (out,) = serve(rtf.constant(x)).values()
        np.testing.assert_array_equal(out.numpy(), w)


def _mean_metric(m):
    metric = m.keras.metrics.Mean()
    runs = []

    @m.function(input_signature=[m.TensorSpec([None, None, 4], m.float32)])
    def f(x):
        runs.append(1)
        metric.update_state(x)
        return metric.result()

    return [f(x).numpy() for x in _inputs()], len(runs)


def test_mean_metric_counts_at_run_time():
    want, tf_runs = _mean_metric(real_tf())
    got, runs = _mean_metric(tf)
    assert tf_runs == 1 and runs <= 2
    np.testing.assert_allclose(got, want, rtol=1e-6)


def _accuracy_metric(m):
    metric = m.keras.metrics.SparseCategoricalAccuracy()
    runs = []

    @m.function(input_signature=[m.TensorSpec([None, None], m.int32),
                                 m.TensorSpec([None, None, 4], m.float32)])
    def f(y, x):
        runs.append(1)
        metric.update_state(y, x)
        return metric.result()

    rng = np.random.RandomState(4)
    return [f(rng.randint(0, 4, size=x.shape[:2]).astype(np.int32), x).numpy()
            for x in _inputs()], len(runs)


def test_sparse_accuracy_counts_at_run_time():
    want, tf_runs = _accuracy_metric(real_tf())
    got, runs = _accuracy_metric(tf)
    assert tf_runs == 1 and runs <= 2
    np.testing.assert_allclose(got, want, rtol=1e-6)
