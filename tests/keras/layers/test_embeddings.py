"""Embedding: the layer_test contract vs real tf.keras, masks, dtypes, errors."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.keras.testing_utils import layer_test
from torchflow._src.testing import real_tf

L = tf.keras.layers


@pytest.mark.parametrize("kwargs,shape", [
    ({"input_dim": 5, "output_dim": 3}, (2, 4)),
    ({"input_dim": 5, "output_dim": 2, "mask_zero": True, "input_length": 4,
      "embeddings_regularizer": "l2"}, (2, 4)),
    ({"input_dim": 5, "output_dim": 2}, (2, 3, 2)),
])
def test_embedding_contract(kwargs, shape):
    layer_test(L.Embedding, kwargs, input_shape=shape, input_dtype="int32")


def test_embedding_values_mask_and_config_match_tf():
    tfr = real_tf()
    ids = np.array([[1, 2, 0], [4, 0, 0]], np.int64)
    e = L.Embedding(5, 3, mask_zero=True)
    y = e(ids)
    np.testing.assert_array_equal(y.numpy(), e.get_weights()[0][ids])
    np.testing.assert_array_equal(y._keras_mask.numpy(), ids != 0)
    r = tfr.keras.layers.Embedding(5, 3, mask_zero=True)
    r(ids)
    assert r.compute_mask(ids).numpy().tolist() == e.compute_mask(ids).numpy().tolist()
    cfg, tcfg = e.get_config(), r.get_config()
    for k in ("input_dim", "output_dim", "mask_zero", "input_length"):
        assert cfg[k] == tcfg[k]
    assert cfg["embeddings_initializer"]["config"] == {"minval": -0.05, "maxval": 0.05,
                                                      "seed": None}
    assert tuple(cfg["batch_input_shape"]) == tuple(tcfg["batch_input_shape"])


def test_embedding_float_ids_are_cast_and_output_is_compute_dtype():
    e = L.Embedding(4, 2, dtype="mixed_float16")
    y = e(np.array([[1.0, 3.0]], np.float32))
    assert y.dtype == tf.float16 and e.embeddings.dtype == tf.float32
    np.testing.assert_allclose(y.numpy(), e.get_weights()[0][[[1, 3]]].astype(np.float16))


def test_embedding_invalid_dims():
    with pytest.raises(ValueError):
        L.Embedding(0, 3)
    with pytest.raises(ValueError):
        real_tf().keras.layers.Embedding(0, 3)
