"""Pure ``float16``/``bfloat16`` policies (layer_test covers float32, mixed_float16,
mixed_bfloat16 and float64): outputs in the policy dtype, finite, and close to the
float32 layer with the same weights, in training and inference mode."""

import numpy as np
import pytest

import torchflow as tf

L = tf.keras.layers
_R = np.random.default_rng(0)
X3 = _R.normal(size=(2, 6, 3)).astype(np.float32)
X4 = _R.normal(size=(2, 6, 6, 3)).astype(np.float32)
X5 = _R.normal(size=(1, 4, 4, 4, 2)).astype(np.float32)

CASES = [
    (L.Dense, {"units": 2}, X3), (L.Conv1D, {"filters": 2, "kernel_size": 3,
                                            "padding": "causal"}, X3),
    (L.Conv2D, {"filters": 2, "kernel_size": 3}, X4),
    (L.Conv3D, {"filters": 2, "kernel_size": 2}, X5),
    (L.Conv2DTranspose, {"filters": 2, "kernel_size": 3, "strides": 2}, X4),
    (L.Conv3DTranspose, {"filters": 2, "kernel_size": 2}, X5),
    (L.SeparableConv1D, {"filters": 2, "kernel_size": 3}, X3),
    (L.SeparableConv2D, {"filters": 2, "kernel_size": 3}, X4),
    (L.DepthwiseConv2D, {"kernel_size": 3}, X4),
    (L.MaxPooling3D, {}, X5), (L.AveragePooling3D, {}, X5), (L.AveragePooling2D, {}, X4),
    (L.GlobalAveragePooling2D, {}, X4),
    (L.BatchNormalization, {}, X4), (L.BatchNormalization, {}, X3),
    (L.LayerNormalization, {}, X3), (L.UpSampling2D, {"interpolation": "bilinear"}, X4),
    (L.PReLU, {}, X3), (L.Softmax, {}, X3), (L.ELU, {"alpha": 0.5}, X3),
    (L.ReLU, {"max_value": 1.0, "threshold": 0.1, "negative_slope": 0.1}, X3),
]


@pytest.mark.parametrize("policy", ["float16", "bfloat16"])
@pytest.mark.parametrize("cls,kwargs,x", CASES, ids=lambda v: getattr(v, "__name__", None))
def test_pure_half_policy(policy, cls, kwargs, x):
    ref = cls(**kwargs)
    layer = cls(dtype=policy, **kwargs)
    y = layer(x)
    ref(x)
    if ref.weights:
        layer.set_weights(ref.get_weights())
    for training in (False, True):
        y = layer(x, training=training)
        want = ref(x, training=training).numpy()
        assert y.dtype.name == policy
        got = y.numpy().astype(np.float32)
        tol = 5e-2 if policy == "float16" else 1.5e-1
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
