"""UpSampling, ZeroPadding and Cropping layers vs real tf.keras (layer_test)."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.keras.testing_utils import layer_test
from torchflow._src.testing import real_tf

L = tf.keras.layers


@pytest.mark.parametrize("cls,kwargs,shape", [
    (L.UpSampling1D, {"size": 3}, (2, 4, 3)),
    (L.UpSampling2D, {"size": (2, 3)}, (2, 4, 3, 2)),
    (L.UpSampling2D, {"size": (2, 3), "interpolation": "bilinear"}, (2, 4, 3, 2)),
    (L.UpSampling3D, {"size": 2}, (1, 2, 3, 2, 2)),
    (L.ZeroPadding1D, {"padding": (1, 2)}, (2, 4, 3)),
    (L.ZeroPadding2D, {"padding": ((1, 2), (0, 1))}, (2, 4, 3, 2)),
    (L.ZeroPadding2D, {"padding": 2}, (2, 4, 3, 2)),
    (L.ZeroPadding3D, {"padding": (1, 0, 2)}, (1, 2, 3, 2, 2)),
    (L.Cropping1D, {"cropping": (1, 2)}, (2, 6, 3)),
    (L.Cropping2D, {"cropping": ((1, 2), (0, 1))}, (2, 5, 4, 2)),
    (L.Cropping3D, {"cropping": 1}, (1, 4, 3, 3, 2)),
])
def test_reshaping_layer_contract(cls, kwargs, shape):
    layer_test(cls, kwargs, input_shape=shape)


@pytest.mark.parametrize("name,kwargs", [
    ("UpSampling2D", {"size": (2, 2), "interpolation": "bilinear"}),
    ("ZeroPadding2D", {"padding": ((1, 0), (2, 1))}),
    ("Cropping2D", {"cropping": ((1, 0), (0, 1))}),
])
def test_channels_first_vs_tf_keras(name, kwargs):
    tf_ref = real_tf()
    x = np.random.default_rng(0).normal(size=(2, 3, 4, 5)).astype(np.float32)
    ours = getattr(L, name)(data_format="channels_first", **kwargs)(x).numpy()
    # tf.keras computes channels_first on the CPU through NHWC as well
    theirs = getattr(tf_ref.keras.layers, name)(**kwargs)(np.transpose(x, (0, 2, 3, 1)))
    np.testing.assert_allclose(ours, np.transpose(theirs.numpy(), (0, 3, 1, 2)), rtol=1e-5,
                               atol=1e-6)


def test_config_matches_tf_keras():
    tf_ref = real_tf()
    for name in ("ZeroPadding2D", "Cropping2D", "UpSampling2D", "ZeroPadding1D",
                 "Cropping3D", "UpSampling1D"):
        ours = getattr(L, name)().get_config()
        theirs = getattr(tf_ref.keras.layers, name)().get_config()
        ours.pop("name")
        theirs.pop("name")
        assert ours == {k: (tuple(tuple(p) for p in v) if isinstance(v, tuple) and v and
                            isinstance(v[0], tuple) else v) for k, v in theirs.items()}, name
