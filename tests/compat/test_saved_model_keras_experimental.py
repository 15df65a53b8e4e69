"""SavedModels of the TF 2.4 experimental Keras layers written by torchflow run in real
TF: each model's ``serving_default``, loaded by real TF's ``tf.saved_model.load``,
gives torchflow's outputs, and torchflow's ``load_model`` revives the same model."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

RNG = np.random.RandomState(3)
L = tf.keras.layers
E = L.experimental


def _seq(shape, layers):
    return tf.keras.Sequential([L.InputLayer(shape)] + layers)


CASES = {
    "einsum_dense": lambda: _seq((4, 5), [E.EinsumDense("abc,cde->abde", (4, 2, 3),
                                                        bias_axes="de", activation="relu")]),
    "einsum_dense_ellipsis": lambda: _seq((4, 5), [E.EinsumDense("...b,bc->...c", 3,
                                                                 bias_axes="c")]),
    "random_fourier_features": lambda: _seq((5,), [E.RandomFourierFeatures(7)]),
    "sync_batch_norm": lambda: _seq((4, 5), [E.SyncBatchNormalization()]),
    "locally_connected_1": lambda: _seq((6, 5, 2), [L.LocallyConnected2D(3, 2)]),
    "locally_connected_2": lambda: _seq((6, 5, 2), [L.LocallyConnected2D(
        3, 2, implementation=2, padding="same")]),
    "locally_connected_3": lambda: _seq((7, 3), [L.LocallyConnected1D(
        2, 3, strides=2, implementation=3, data_format="channels_first")]),
    "linear_model": lambda: _linear(),
    "peephole_lstm": lambda: _seq((4, 5), [L.RNN(tf.keras.experimental.PeepholeLSTMCell(3))]),
}


def _linear():
    m = tf.keras.experimental.LinearModel(units=2, kernel_initializer="glorot_uniform")
    m(np.zeros((1, 5), np.float32))
    return m


def _input(model):
    shape = (2, 5) if isinstance(model, tf.keras.experimental.LinearModel) else \
        (2,) + tuple(model.input_shape[1:])
    return RNG.randn(*shape).astype(np.float32)


@pytest.mark.parametrize("name", sorted(CASES))
def test_saved_model_runs_in_real_tf(name, tmp_path):
    ref = real_tf()
    model = CASES[name]()
    x = _input(model)
    model.set_weights([w + RNG.uniform(0.1, 0.3, size=w.shape).astype(np.float32)
                       for w in model.get_weights()])
    expected = model(x).numpy()
    path = str(tmp_path / name)
    model.save(path)
    loaded = ref.saved_model.load(path)
    fn = loaded.signatures["serving_default"]
    outs = list(fn(ref.constant(x)).values())
    assert len(outs) == 1
    np.testing.assert_allclose(outs[0].numpy(), expected, rtol=1e-5, atol=1e-5)
    back = tf.keras.models.load_model(path)
    np.testing.assert_allclose(back(x).numpy(), expected, rtol=1e-6, atol=1e-6)
