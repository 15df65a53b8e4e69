"""Dropout in training mode, saved by torchflow and run by real TF (2.21) and torchflow.

TF 2.4's ``tf.nn.dropout`` graph is ``Mul(x, 1/(1-rate))``, ``Shape``,
``RandomUniform`` (``seed``/``seed2`` from ``get_seed``), ``GreaterEqual`` and
``Cast`` + ``Mul`` of the keep mask (TF 2.21 writes ``SelectV2`` for the last two;
2.4 wins). Random outputs are checked statistically: the kept fraction within 5
standard deviations of ``1 - rate``, every kept value scaled by ``1 / (1 - rate)``,
the noise shape's broadcasting.
"""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _check_dropout(y, x, rate, draws=None):
    """``draws``: the number of independent mask values (the noise shape's size)."""
    y, x = np.asarray(y), np.asarray(x)
    kept = y != 0
    n = draws or kept.size
    assert abs(kept.mean() - (1 - rate)) < 5 * np.sqrt(rate * (1 - rate) / n), kept.mean()
    np.testing.assert_allclose(y[kept], x[kept] / (1 - rate), rtol=1e-6)


class _Module(tf.Module):
    def __init__(self):
        super().__init__()
        self.rows = tf.keras.layers.Dropout(0.25, noise_shape=(None, 1))
        self.channels = tf.keras.layers.SpatialDropout2D(0.5, data_format="channels_first")

    @tf.function(input_signature=[tf.TensorSpec([None, 200])])
    def nn(self, x):
        return tf.nn.dropout(x, 0.3)

    @tf.function(input_signature=[tf.TensorSpec([None, 200]), tf.TensorSpec([])])
    def tensor_rate(self, x, rate):
        return tf.nn.dropout(x, rate)

    @tf.function(input_signature=[tf.TensorSpec([None, 200])])
    def seeded(self, x):
        return tf.nn.dropout(x, 0.3, seed=5)

    @tf.function(input_signature=[tf.TensorSpec([None, 200])])
    def row_dropout(self, x):
        return self.rows(x, training=True)

    @tf.function(input_signature=[tf.TensorSpec([None, 3, 4, 5])])
    def channel_dropout(self, x):
        return self.channels(x, training=True)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    # The op seeds TF writes depend on the global seed: none here, as in a fresh
    # program (an earlier test in this worker may have set one).
    tf.random.set_seed(None)
    path = str(tmp_path_factory.mktemp("dropout") / "m")
    module = _Module()
    tf.saved_model.save(module, path)
    return module, path


@pytest.mark.parametrize("lib", ["tf", "torchflow"])
def test_dropout_functions_run_in_training_mode_after_loading(saved, lib):
    module, path = saved
    m = real_tf() if lib == "tf" else tf
    loaded = m.saved_model.load(path)
    x = np.random.RandomState(0).uniform(1, 2, size=(300, 200)).astype(np.float32)
    _check_dropout(loaded.nn(m.constant(x)), x, 0.3)
    _check_dropout(loaded.seeded(m.constant(x)), x, 0.3)
    _check_dropout(loaded.tensor_rate(m.constant(x), m.constant(0.6)), x, 0.6)
    rows = np.asarray(loaded.row_dropout(m.constant(x)))
    _check_dropout(rows, x, 0.25, draws=300)
    assert set(np.unique((rows != 0).sum(axis=1))) <= {0, 200}  # whole rows dropped
    xc = np.random.RandomState(1).uniform(1, 2, size=(400, 3, 4, 5)).astype(np.float32)
    ch = np.asarray(loaded.channel_dropout(m.constant(xc)))
    _check_dropout(ch, xc, 0.5, draws=1200)
    assert set(np.unique((ch != 0).reshape(400, 3, 20).sum(axis=2))) <= {0, 20}


def test_dropout_graph_is_tf_2_4s(saved):
    tf.random.set_seed(None)  # the op seeds below are those of a program with no global seed
    module, _ = saved
    ops = [op.type for op in module.nn.get_concrete_function().graph.get_operations()]
    assert [o for o in ops if o not in ("Placeholder", "Const", "Identity")] == \
        ["Mul", "Shape", "RandomUniform", "GreaterEqual", "Cast", "Mul"]
    rtf = real_tf()
    rtf.random.set_seed(None)  # real TF's global seed too (another test may have set it)

    @rtf.function(input_signature=[rtf.TensorSpec([None, 200])])
    def seeded(x):
        return rtf.nn.dropout(x, 0.3, seed=5)

    def seeds(graph):
        return [(op.get_attr("seed"), op.get_attr("seed2")) for op in graph.get_operations()
                if op.type == "RandomUniform"]

    assert seeds(module.seeded.get_concrete_function().graph) == \
        seeds(seeded.get_concrete_function().graph) == [(87654321, 5)]
    assert seeds(module.nn.get_concrete_function().graph) == [(0, 0)]


def test_keras_model_saves_its_call_in_training_mode_too(tmp_path):
    rtf = real_tf()
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(300, kernel_initializer="ones", input_shape=(4,)),
        tf.keras.layers.Dropout(0.4)])
    path = str(tmp_path / "m")
    model.save(path)
    x = np.random.RandomState(2).uniform(0, 1, size=(100, 4)).astype(np.float32)
    dense = x.sum(axis=1, keepdims=True) * np.ones((1, 300), np.float32)
    expected = np.asarray(model.predict(x, verbose=0))
    np.testing.assert_allclose(expected, dense, rtol=1e-5)
    loaded = rtf.saved_model.load(path)
    np.testing.assert_allclose(loaded(x, training=False).numpy(), expected, rtol=1e-5)
    np.testing.assert_allclose(loaded(x).numpy(), expected, rtol=1e-5)
    _check_dropout(loaded(x, training=True).numpy(), dense, 0.4)
    _check_dropout(rtf.keras.models.load_model(path)(x, training=True).numpy(), dense, 0.4)
    ours = tf.saved_model.load(path)
    _check_dropout(ours(x, training=True), dense, 0.4)
    np.testing.assert_allclose(np.asarray(ours(x)), expected, rtol=1e-5)
