"""Convolution layers: layer_test contract vs real tf.keras (same weights, every
dtype policy), channels_first vs channels_last, gradients and config keys."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.keras.testing_utils import layer_test
from torchflow._src.testing import real_tf

L = tf.keras.layers


@pytest.mark.parametrize("cls,kwargs,shape", [
    (L.Conv1D, {"filters": 4, "kernel_size": 3, "padding": "causal", "dilation_rate": 2},
     (2, 7, 3)),
    (L.Conv1D, {"filters": 4, "kernel_size": 2, "strides": 2, "padding": "same"}, (2, 7, 3)),
    (L.Conv2D, {"filters": 4, "kernel_size": 3}, (2, 6, 6, 3)),
    (L.Conv2D, {"filters": 4, "kernel_size": 3, "strides": 2, "padding": "same",
                "activation": "relu"}, (2, 7, 7, 3)),
    (L.Conv2D, {"filters": 4, "kernel_size": (2, 3), "dilation_rate": 2, "groups": 2,
                "use_bias": False}, (2, 7, 7, 4)),
    (L.Conv3D, {"filters": 2, "kernel_size": 2, "padding": "same"}, (1, 4, 4, 4, 3)),
    (L.Conv2DTranspose, {"filters": 2, "kernel_size": 3, "strides": 2}, (2, 4, 4, 3)),
    (L.Conv2DTranspose, {"filters": 2, "kernel_size": 3, "strides": 2, "padding": "same",
                         "output_padding": 1}, (2, 4, 4, 3)),
    (L.Conv3DTranspose, {"filters": 2, "kernel_size": 2, "strides": 2}, (1, 3, 3, 3, 2)),
    (L.SeparableConv1D, {"filters": 4, "kernel_size": 3, "depth_multiplier": 2,
                         "strides": 2}, (2, 9, 3)),
    (L.SeparableConv2D, {"filters": 4, "kernel_size": 3, "depth_multiplier": 2,
                         "padding": "same"}, (2, 6, 6, 3)),
    (L.DepthwiseConv2D, {"kernel_size": 3, "depth_multiplier": 2}, (2, 6, 6, 3)),
])
def test_conv_layer_contract(cls, kwargs, shape):
    layer_test(cls, kwargs, input_shape=shape)


@pytest.mark.parametrize("cls,kwargs,shape", [
    (L.Conv2D, {"filters": 4, "kernel_size": 3, "strides": 2, "padding": "same"},
     (2, 3, 7, 7)),
    (L.Conv1D, {"filters": 4, "kernel_size": 3, "padding": "causal"}, (2, 3, 7)),
    (L.Conv2DTranspose, {"filters": 2, "kernel_size": 3, "strides": 2}, (2, 3, 4, 4)),
    (L.DepthwiseConv2D, {"kernel_size": 3}, (2, 3, 5, 5)),
    (L.SeparableConv2D, {"filters": 2, "kernel_size": 3}, (2, 3, 5, 5)),
])
def test_channels_first_equals_channels_last_on_transposed_data(cls, kwargs, shape):
    x = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    perm = [0] + list(range(2, len(shape))) + [1]
    inv = [0, len(shape) - 1] + list(range(1, len(shape) - 1))
    first = cls(data_format="channels_first", **kwargs)
    y1 = first(x).numpy()
    last = cls(**kwargs)
    last(np.transpose(x, perm))
    last.set_weights(first.get_weights())
    np.testing.assert_allclose(y1, np.transpose(last(np.transpose(x, perm)).numpy(), inv),
                               rtol=1e-5, atol=1e-5)


def test_conv2d_gradients_match_tf_keras():
    tf_ref = real_tf()
    x = np.random.default_rng(1).normal(size=(2, 5, 5, 3)).astype(np.float32)
    ours = L.Conv2D(4, 3, padding="same", activation="relu")
    theirs = tf_ref.keras.layers.Conv2D(4, 3, padding="same", activation="relu")
    ours(x)
    theirs(x)
    theirs.set_weights(ours.get_weights())
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(ours(x) ** 2)
    g = tape.gradient(loss, ours.trainable_weights)
    with tf_ref.GradientTape() as tape:
        tloss = tf_ref.reduce_sum(theirs(x) ** 2)
    tg = tape.gradient(tloss, theirs.trainable_weights)
    for a, b in zip(g, tg):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name,args", [
    ("Conv2D", (2, 3)), ("Conv2DTranspose", (2, 3)), ("SeparableConv2D", (2, 3)),
    ("DepthwiseConv2D", (3,)), ("Conv1D", (2, 3)),
])
def test_config_keys_match_tf_keras(name, args):
    tf_ref = real_tf()
    ours = getattr(L, name)(*args).get_config()
    theirs = getattr(tf_ref.keras.layers, name)(*args).get_config()
    assert set(ours) == set(theirs)
    for k in ("strides", "padding", "data_format", "dilation_rate", "kernel_size"):
        if k in theirs:
            assert ours[k] == theirs[k], k


def test_aliases_and_errors():
    assert L.Convolution2D is L.Conv2D and L.Convolution3DTranspose is L.Conv3DTranspose
    with pytest.raises(ValueError):
        L.Conv2D(4, 3, padding="causal")
    with pytest.raises(ValueError):
        L.Conv2D(3, 3, groups=2)
    with pytest.raises(ValueError):
        L.Conv2D(4, 3)(np.ones((1, 5, 5), np.float32))
