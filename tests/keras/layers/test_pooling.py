"""Pooling layers vs real tf.keras (layer_test: values, dtype policies, configs)."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.keras.testing_utils import layer_test
from torchflow._src.testing import real_tf

L = tf.keras.layers

_SHAPES = {1: (2, 6, 3), 2: (2, 6, 5, 3), 3: (1, 4, 4, 5, 2)}


@pytest.mark.parametrize("name,rank", [(f"{k}Pooling{r}D", r) for k in ("Max", "Average")
                                       for r in (1, 2, 3)])
@pytest.mark.parametrize("kwargs", [{}, {"pool_size": 3, "strides": 2, "padding": "same"}])
def test_pooling_contract(name, rank, kwargs):
    layer_test(getattr(L, name), kwargs, input_shape=_SHAPES[rank])


@pytest.mark.parametrize("name,rank", [(f"Global{k}Pooling{r}D", r) for k in ("Max", "Average")
                                       for r in (1, 2, 3)])
@pytest.mark.parametrize("kwargs", [{}, {"keepdims": True}])
def test_global_pooling_contract(name, rank, kwargs):
    layer_test(getattr(L, name), kwargs, input_shape=_SHAPES[rank])


def test_channels_first_pooling_matches_numpy():
    x = np.random.default_rng(0).normal(size=(2, 3, 4, 6)).astype(np.float32)
    y = L.MaxPooling2D(data_format="channels_first")(x).numpy()
    ref = x.reshape(2, 3, 2, 2, 3, 2).max(axis=(3, 5))
    np.testing.assert_allclose(y, ref)
    g = L.GlobalAveragePooling2D(data_format="channels_first")(x).numpy()
    np.testing.assert_allclose(g, x.mean(axis=(2, 3)), rtol=1e-6)


def test_global_average_pooling_1d_mask_vs_tf_keras():
    tf_ref = real_tf()
    x = np.random.default_rng(1).normal(size=(3, 4, 2)).astype(np.float32)
    mask = np.array([[1, 1, 0, 0], [1, 1, 1, 1], [0, 1, 0, 1]], bool)
    ours = L.GlobalAveragePooling1D()(x, mask=tf.constant(mask)).numpy()
    theirs = tf_ref.keras.layers.GlobalAveragePooling1D()(x, mask=mask).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_aliases_and_config_keys():
    tf_ref = real_tf()
    assert L.MaxPool2D is L.MaxPooling2D and L.AvgPool1D is L.AveragePooling1D
    assert L.GlobalAvgPool2D is L.GlobalAveragePooling2D
    for name in ("MaxPooling2D", "AveragePooling1D", "GlobalAveragePooling2D",
                 "GlobalMaxPooling1D"):
        ours, theirs = getattr(L, name)().get_config(), getattr(tf_ref.keras.layers,
                                                                 name)().get_config()
        ours.pop("name")
        theirs.pop("name")
        assert ours == theirs, name
