"""A subclassed Keras model with no config (``get_config`` not implemented), saved
as a SavedModel, loads back as a model revived from its graphs, as in TF (the
guide to modules saves one with ``model.save`` and loads it with ``load_model``)."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

X = np.array([[2.0, 2.0, 2.0], [1.0, -1.0, 0.5]], np.float32)


def make(m):
    class FlexibleDense(m.keras.layers.Layer):
        def __init__(self, out_features, **kwargs):
            super().__init__(**kwargs)
            self.out_features = out_features

        def build(self, input_shape):
            self.w = m.Variable(m.random.normal([input_shape[-1], self.out_features]), name="w")
            self.b = m.Variable(m.ones([self.out_features]), name="b")

        def call(self, inputs):
            return m.nn.relu(m.matmul(inputs, self.w) + self.b)

    class MySequentialModel(m.keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense_1 = FlexibleDense(3)
            self.dense_2 = FlexibleDense(2)

        def call(self, x):
            return self.dense_2(self.dense_1(x))

    model = MySequentialModel(name="the_model")
    model(m.constant(X[:1]))  # the first call: its inputs are what the save traces
    return model


@pytest.mark.parametrize("writer", ["torchflow", "tf"])
def test_subclassed_model_without_config_is_revived_from_its_graph(tmp_path, writer):
    rtf = real_tf()
    m = tf if writer == "torchflow" else rtf
    model = make(m)
    expected = model(m.constant(X)).numpy()  # a batch of 2: the saved graph takes any batch
    model.save(str(tmp_path / "m"))
    revived = tf.keras.models.load_model(str(tmp_path / "m"))
    assert isinstance(revived, tf.keras.Model)
    np.testing.assert_allclose(revived(tf.constant(X)).numpy(), expected, rtol=1e-5)
    assert len(revived.weights) == 4
    if writer == "torchflow":  # and real TF runs torchflow's graph to the same values
        np.testing.assert_allclose(rtf.saved_model.load(str(tmp_path / "m"))(X).numpy(),
                                   expected, rtol=1e-5)
