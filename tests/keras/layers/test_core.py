"""Core and shaping layers: the layer_test contract (values vs real tf.keras with the
same weights, every dtype policy, configs) plus behaviour vs NumPy / tf.keras."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.keras.testing_utils import layer_test
from torchflow._src.testing import real_tf

L = tf.keras.layers


def double(x):
    return x * 2.0


@pytest.mark.parametrize("cls,kwargs,shape", [
    (L.Dense, {"units": 3}, (2, 4)),
    (L.Dense, {"units": 3, "activation": "relu", "kernel_regularizer": "l2",
               "use_bias": False}, (2, 5, 4)),
    (L.Activation, {"activation": "tanh"}, (2, 4)),
    (L.Dropout, {"rate": 0.5}, (2, 4)),
    (L.SpatialDropout1D, {"rate": 0.5}, (2, 3, 4)),
    (L.SpatialDropout2D, {"rate": 0.5}, (2, 3, 3, 4)),
    (L.SpatialDropout3D, {"rate": 0.5}, (1, 2, 2, 2, 3)),
    (L.Flatten, {}, (2, 3, 4)),
    (L.Reshape, {"target_shape": (2, -1)}, (2, 3, 4)),
    (L.Permute, {"dims": (2, 1)}, (2, 3, 4)),
    (L.RepeatVector, {"n": 3}, (2, 4)),
    (L.Masking, {"mask_value": 0.0}, (2, 3, 4)),
    (L.ActivityRegularization, {"l1": 0.1, "l2": 0.01}, (2, 4)),
])
def test_core_layer_contract(cls, kwargs, shape):
    layer_test(cls, kwargs, input_shape=shape)


def test_flatten_channels_first_matches_transposed_channels_last():
    x = np.random.default_rng(0).normal(size=(2, 3, 4, 5)).astype(np.float32)
    got = L.Flatten(data_format="channels_first")(x).numpy()
    np.testing.assert_array_equal(got, np.transpose(x, (0, 2, 3, 1)).reshape(2, -1))
    assert L.Flatten()(np.ones((3,), np.float32)).shape.as_list() == [3, 1]


def test_lambda_named_function_and_lambda_round_trip():
    layer_test(L.Lambda, {"function": double}, input_shape=(2, 4), compare_tf=False)
    lam = L.Lambda(lambda x, k: x + k, arguments={"k": 3.0}, output_shape=(4,))
    again = L.Lambda.from_config(lam.get_config())
    np.testing.assert_allclose(again(np.ones((2, 4), np.float32)).numpy(), 4.0)
    cfg = L.Lambda(double).get_config()
    assert cfg["function"] == "double" and cfg["function_type"] == "function"
    x = tf.keras.Input((4,))
    assert L.Lambda(lambda t: t[:, :2])(x).shape.as_list() == [None, 2]


def test_dropout_training_statistics_and_noise_shape():
    x = np.ones((200, 50), np.float32)
    d = L.Dropout(0.3, seed=1)
    np.testing.assert_array_equal(d(x).numpy(), x)  # inference: identity
    y = d(x, training=True).numpy()
    kept = y != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    y2 = L.Dropout(0.5, noise_shape=(None, 1))(x, training=True).numpy()
    assert all(len(set(row)) == 1 for row in y2)  # whole rows kept or dropped
    s = L.SpatialDropout2D(0.5)(np.ones((4, 3, 3, 8), np.float32), training=True).numpy()
    assert np.all(s.min(axis=(1, 2)) == s.max(axis=(1, 2)))


def test_masking_then_global_average_pooling_matches_tf_keras():
    tf_ref = real_tf()
    x = np.random.default_rng(0).normal(size=(3, 5, 2)).astype(np.float32)
    x[0, 3:] = 0.0
    x[2, :1] = 0.0
    inp = tf.keras.Input((5, 2))
    out = L.GlobalAveragePooling1D()(L.Masking(0.0)(inp))
    m = tf.keras.Model(inp, out)
    tinp = tf_ref.keras.Input((5, 2))
    tout = tf_ref.keras.layers.GlobalAveragePooling1D()(tf_ref.keras.layers.Masking(0.0)(tinp))
    ref = tf_ref.keras.Model(tinp, tout)(x).numpy()
    np.testing.assert_allclose(m(x).numpy(), ref, rtol=1e-5, atol=1e-6)
    mask = L.Masking(0.0)(x)._keras_mask.numpy()
    np.testing.assert_array_equal(mask, np.any(x != 0, axis=-1))


def test_activity_regularization_adds_loss():
    layer = L.ActivityRegularization(l1=0.5)
    x = np.array([[1.0, -2.0], [3.0, 0.0]], np.float32)
    layer(x)
    # tf.keras divides the activity penalty by the batch size
    np.testing.assert_allclose(float(layer.losses[0]), 0.5 * 6 / 2, rtol=1e-6)


def test_dense_config_keys_match_tf_keras():
    tf_ref = real_tf()
    ours = L.Dense(3).get_config()
    theirs = tf_ref.keras.layers.Dense(3).get_config()
    assert set(ours) == set(theirs)


def test_bad_arguments_raise_like_tf_keras():
    with pytest.raises(ValueError):
        L.Permute((1, 3))
    with pytest.raises(ValueError):
        L.Dropout(1.5)


def test_dense_casts_integer_inputs():
    y = L.Dense(2)(np.ones((2, 3), np.int32))
    assert y.dtype == tf.float32


def test_cnn_model_weights_move_from_tf_keras_and_outputs_match():
    tf_ref = real_tf()

    def build(lib):
        ly = lib.keras.layers
        return lib.keras.Sequential([
            ly.Conv2D(4, 3, activation="relu", input_shape=(10, 10, 1)), ly.MaxPooling2D(),
            ly.BatchNormalization(), ly.Conv2D(6, 3, padding="same"), ly.GlobalAveragePooling2D(),
            ly.Dropout(0.5), ly.Dense(3, activation="softmax")])

    ours, theirs = build(tf), build(tf_ref)
    x = np.random.default_rng(5).normal(size=(4, 10, 10, 1)).astype(np.float32)
    for _ in range(2):
        theirs(x, training=True)
    ours.set_weights(theirs.get_weights())
    np.testing.assert_allclose(ours(x).numpy(), theirs(x).numpy(), rtol=1e-4, atol=1e-5)
    assert [w.shape.as_list() for w in ours.weights] == \
        [list(w.shape) for w in theirs.weights]
