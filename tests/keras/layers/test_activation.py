"""Activation layers vs real tf.keras (layer_test) and edge cases."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.keras.testing_utils import layer_test
from torchflow._src.testing import real_tf

L = tf.keras.layers


@pytest.mark.parametrize("cls,kwargs,shape", [
    (L.ReLU, {}, (2, 4)),
    (L.ReLU, {"max_value": 1.0, "negative_slope": 0.1, "threshold": 0.5}, (2, 4)),
    (L.ReLU, {"max_value": 6.0}, (2, 4)),
    (L.ReLU, {"negative_slope": 0.2}, (2, 4)),
    (L.LeakyReLU, {}, (2, 4)),
    (L.PReLU, {"alpha_initializer": "ones"}, (2, 3, 4)),
    (L.PReLU, {"shared_axes": [1, 2], "alpha_initializer": "random_normal"}, (2, 3, 3, 4)),
    (L.ELU, {"alpha": 0.5}, (2, 4)),
    (L.ELU, {}, (2, 4)),
    (L.ThresholdedReLU, {"theta": 0.5}, (2, 4)),
    (L.Softmax, {}, (2, 4)),
    (L.Softmax, {"axis": 1}, (2, 3, 4)),
])
def test_activation_layer_contract(cls, kwargs, shape):
    layer_test(cls, kwargs, input_shape=shape)


def test_softmax_multi_axis_and_mask_vs_tf_keras():
    tf_ref = real_tf()
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(L.Softmax(axis=[1, 2])(x).numpy(),
                               tf_ref.keras.layers.Softmax(axis=[1, 2])(x).numpy(), rtol=1e-5)
    mask = np.random.default_rng(1).random((2, 3, 4)) > 0.3
    ours = L.Softmax()(x, mask=tf.constant(mask)).numpy()
    theirs = tf_ref.keras.layers.Softmax()(x, mask=mask).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_prelu_weight_shape_and_errors():
    p = L.PReLU(shared_axes=[1, 2])
    p(np.zeros((2, 3, 3, 4), np.float32))
    assert p.alpha.shape.as_list() == [1, 1, 4]
    with pytest.raises(ValueError):
        L.ReLU(max_value=-1.0)
    with pytest.raises(ValueError):
        L.ThresholdedReLU(theta=-1.0)
