"""Merge layers and their functional forms vs real tf.keras: values, every dtype
policy, Functional models, masks and errors."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

L = tf.keras.layers
_RNG = np.random.default_rng(0)
A = _RNG.normal(size=(2, 3, 4)).astype(np.float32)
B = _RNG.normal(size=(2, 3, 4)).astype(np.float32)
C = _RNG.normal(size=(2, 3, 4)).astype(np.float32)

CASES = [
    ("Add", {}, 3), ("Subtract", {}, 2), ("Multiply", {}, 3), ("Average", {}, 3),
    ("Maximum", {}, 3), ("Minimum", {}, 3), ("Concatenate", {"axis": 1}, 3),
    ("Concatenate", {}, 2), ("Dot", {"axes": 2}, 2), ("Dot", {"axes": (1, 1), "normalize": True}, 2),
]


@pytest.mark.parametrize("name,kwargs,n", CASES)
def test_merge_values_vs_tf_keras(name, kwargs, n):
    tf_ref = real_tf()
    xs = [A, B, C][:n]
    ours = getattr(L, name)(**kwargs)
    theirs = getattr(tf_ref.keras.layers, name)(**kwargs)
    np.testing.assert_allclose(ours(xs).numpy(), theirs(xs).numpy(), rtol=1e-5, atol=1e-5)
    config = ours.get_config()
    assert type(ours).from_config(config).get_config() == config
    assert set(config) == set(theirs.get_config())


@pytest.mark.parametrize("name,kwargs,n", CASES)
@pytest.mark.parametrize("policy", ["mixed_float16", "mixed_bfloat16", "float64"])
def test_merge_dtype_policies(name, kwargs, n, policy):
    xs = [A, B, C][:n]
    ref = getattr(L, name)(**kwargs)(xs).numpy()
    out = getattr(L, name)(dtype=policy, **kwargs)(xs)
    want = tf.keras.mixed_precision.Policy(policy).compute_dtype
    assert out.dtype.name == want
    # half precision rounds inputs and outputs; float64 only widens the float32 result
    tol = 1e-6 if policy == "float64" else 5e-2
    np.testing.assert_allclose(out.numpy().astype(np.float64), ref, rtol=tol, atol=tol)


def test_functional_forms_in_a_model():
    tf_ref = real_tf()
    a, b = tf.keras.Input((3, 4)), tf.keras.Input((3, 4))
    outs = [L.add([a, b]), L.subtract([a, b]), L.multiply([a, b]), L.average([a, b]),
            L.maximum([a, b]), L.minimum([a, b]), L.concatenate([a, b], axis=1),
            L.dot([a, b], axes=2)]
    m = tf.keras.Model([a, b], outs)
    assert outs[6].shape.as_list() == [None, 6, 4] and outs[7].shape.as_list() == [None, 3, 3]
    tl = tf_ref.keras.layers
    refs = [tl.add([A, B]), tl.subtract([A, B]), tl.multiply([A, B]), tl.average([A, B]),
            tl.maximum([A, B]), tl.minimum([A, B]), tl.concatenate([A, B], axis=1),
            tl.dot([A, B], axes=2)]
    for got, ref in zip(m([A, B]), refs):
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)


def test_dot_2d_and_broadcast_ranks():
    tf_ref = real_tf()
    a2, b2 = A[:, 0], B[:, 0]
    np.testing.assert_allclose(L.Dot(axes=1)([a2, b2]).numpy(),
                               tf_ref.keras.layers.Dot(axes=1)([a2, b2]).numpy(), rtol=1e-5)
    np.testing.assert_allclose(L.Add()([A, A[:, 0, :1]]).numpy(),
                               tf_ref.keras.layers.Add()([A, A[:, 0, :1]]).numpy())


def test_masks_are_merged():
    m1 = np.array([[True, False, True]])
    m2 = np.array([[True, True, False]])
    x = tf.constant(A[:1])
    y = tf.constant(B[:1])
    x._keras_mask = tf.constant(m1)
    y._keras_mask = tf.constant(m2)
    out = L.Add()([x, y])
    np.testing.assert_array_equal(out._keras_mask.numpy(), m1 & m2)
    cat = L.Concatenate(axis=1)([x, y])
    np.testing.assert_array_equal(cat._keras_mask.numpy(), np.concatenate([m1, m2], 1))


def test_errors():
    with pytest.raises(ValueError):
        L.Subtract()([A, B, C])
    with pytest.raises(ValueError):
        L.Add()([A])
    with pytest.raises(ValueError):
        L.Concatenate(axis=1)([A, np.ones((2, 5, 5), np.float32)])
