"""Tensor.__getitem__, tf.slice and tf.strided_slice against NumPy and real TF."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, rand, real_tf

X = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5).astype(np.float32)

# Keys whose NumPy meaning equals TF's strided-slice meaning.
KEYS = [
    0, 1, -1, -2,
    np.s_[:], np.s_[1:], np.s_[:1], np.s_[-1:], np.s_[::-1], np.s_[::2], np.s_[1::-1],
    np.s_[5:], np.s_[-10:10], np.s_[10:-10:-1], np.s_[1:0], np.s_[::-3],
    (0, 1), (0, 1, 2, 3), (-1, -1, -1, -1),
    (slice(None), 1), (slice(None), slice(None), 2),
    (Ellipsis, 0), (Ellipsis, slice(None, None, -1)), (0, Ellipsis, 1), (Ellipsis,),
    (None,), (None, 0), (0, None, 1), (Ellipsis, None), (slice(None), None, slice(None), -1),
    (slice(1, None), slice(None, 2), slice(None, None, -2), slice(4, 0, -2)),
    (None, None, Ellipsis, None),
]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_getitem_matches_numpy(key):
    assert_close(tf.constant(X)[key], X[key])


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "uint32", "bool", "complex64",
                                   "float16", "float64"])
def test_getitem_dtypes(dtype):
    a = rand((3, 4), dtype)
    t = tf.constant(a)
    for key in [1, np.s_[::-1], (slice(None), 2), (Ellipsis, np.newaxis)]:
        r = t[key]
        assert r.dtype == t.dtype
        assert_close(r, a[key])


def test_getitem_string_tensor():
    a = np.array([[b"a", b"b", b"c"], [b"d", b"e", b"f"]], dtype=object)
    t = tf.constant(a)
    assert t[1, 2].numpy() == b"f"
    assert t[1, 2].dtype == tf.string
    np.testing.assert_array_equal(t[:, ::-1].numpy(), a[:, ::-1])
    np.testing.assert_array_equal(t[None, 0].numpy(), a[None, 0])


def test_list_key_is_a_tuple_and_tensor_indices():
    t = tf.constant(X)
    assert_close(t[[0, 1]], X[0, 1])
    assert_close(t[tf.constant(1)], X[1])
    assert_close(t[tf.constant(1, tf.int64), tf.constant(-1)], X[1, -1])
    assert_close(t[tf.constant(1):tf.constant(2)], X[1:2])
    assert_close(t[np.int64(1)], X[1])
    assert_close(t[np.array(1)], X[1])


def test_newaxis_name():
    assert tf.newaxis is None


def test_boolean_tensor_index_selects():
    # TF 2.5+ behaviour, accepted as a superset of TF 2.4 (which raised TypeError).
    t = tf.constant(X[0, 0])
    m = X[0, 0] > 7
    assert_close(t[tf.constant(m)], X[0, 0][m])


@pytest.mark.parametrize("key,err", [
    (5, "InvalidArgumentError"),
    (-4, "InvalidArgumentError"),
    ((0, 5), "InvalidArgumentError"),
    ((0, 0, 0), "InvalidArgumentError"),
    ((Ellipsis, Ellipsis), "InvalidArgumentError"),
    (np.s_[::0], "InvalidArgumentError"),
    (1.0, "TypeError"),
    ("a", "TypeError"),
    (np.s_[1.0:2], "TypeError"),
    (np.array([0, 1]), "TypeError"),
])
def test_getitem_errors_match_tf(key, err):
    rtf = real_tf()
    x = np.arange(12).reshape(3, 4).astype(np.int32)
    with pytest.raises(Exception) as theirs:
        rtf.constant(x)[key]
    with pytest.raises(Exception) as ours:
        tf.constant(x)[key]
    assert type(theirs.value).__name__ == err
    assert type(ours.value).__name__ == err


def test_getitem_error_messages():
    x = tf.reshape(tf.range(12), [3, 4])
    with pytest.raises(tf.errors.InvalidArgumentError, match="slice index 5 of dimension 0 out "
                                                              "of bounds"):
        x[5]
    with pytest.raises(TypeError, match="scalar tf.int32/tf.int64 tensors are valid indices"):
        x[tf.constant([0, 1])]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Attempting to slice scalar"):
        tf.constant(1)[0]


STRIDED = [
    dict(begin=[1], end=[3], strides=[1]),
    dict(begin=[0, 1], end=[2, 3], strides=[1, 2]),
    dict(begin=[-1, 0], end=[0, 0], strides=[-1, 1], end_mask=2),
    dict(begin=[1, 0], end=[0, 0], strides=[1, 1], shrink_axis_mask=1, end_mask=2),
    dict(begin=[0, 2], end=[0, 0], strides=[1, 1], ellipsis_mask=1, shrink_axis_mask=2),
    dict(begin=[0, 0, 1], end=[0, 0, 3], strides=[1, 1, 1], new_axis_mask=2, begin_mask=1,
         end_mask=1),
    dict(begin=[3, 2], end=[0, 0], strides=[-2, -1], begin_mask=0, end_mask=3),
    dict(begin=[0], end=[0], strides=[1], begin_mask=1, end_mask=1),
]


@pytest.mark.parametrize("kw", STRIDED)
def test_strided_slice_matches_tf(kw):
    rtf = real_tf()
    x = rand((4, 5, 6), "float32", seed=1)
    assert_close(tf.strided_slice(x, **kw), rtf.strided_slice(x, **kw).numpy())


@pytest.mark.parametrize("begin,size", [([0, 0], [2, 3]), ([1, 1], [-1, -1]), ([2, 4], [1, 0]),
                                        ([0, 0], [3, 4])])
def test_slice_matches_numpy(begin, size):
    x = rand((3, 4), "int32")
    ends = [x.shape[i] if s == -1 else begin[i] + s for i, s in enumerate(size)]
    assert_close(tf.slice(x, begin, size), x[begin[0]:ends[0], begin[1]:ends[1]])


@pytest.mark.parametrize("begin,size", [([0, 0], [4, 1]), ([4, 0], [0, 1]), ([1], [1]),
                                        ([0, 2], [1, 3])])
def test_slice_errors_match_tf(begin, size):
    rtf = real_tf()
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(rtf.errors.InvalidArgumentError):
        rtf.slice(x, begin, size)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.slice(x, begin, size)


def test_strided_slice_errors():
    x = tf.zeros([3, 4])
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be non-zero"):
        tf.strided_slice(x, [0], [1], [0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Multiple ellipses"):
        tf.strided_slice(x, [0, 0], [1, 1], ellipsis_mask=3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="slice index 5 of dimension 1"):
        tf.strided_slice(x, [0, 5], [1, 6], shrink_axis_mask=2)


def test_getitem_keeps_gradient_path():
    import torch

    t = tf.constant(X)
    t._t.requires_grad_(True)
    with torch.enable_grad():
        y = t[::-1, 1, None, 2:0:-1]
        y._t.sum().backward()
    g = t._t.grad.numpy()
    expect = np.zeros_like(X)
    expect[::-1, 1, 2:0:-1] = 1
    np.testing.assert_array_equal(g, expect)
    assert isinstance(y._t, torch.Tensor)


def _random_key(rng, shape):
    items, dims = [], list(shape)
    use_ellipsis = rng.random() < 0.3
    ell_at = int(rng.integers(0, len(dims) + 1)) if use_ellipsis else -1
    i = 0
    while i < len(dims):
        if len(items) == ell_at:
            items.append(Ellipsis)
            dims_left = len(dims) - i
            i += int(rng.integers(0, dims_left + 1))
            ell_at = -1
            continue
        n = dims[i]
        r = rng.random()
        if r < 0.15:
            items.append(None)
            continue
        if r < 0.45 and n:
            items.append(int(rng.integers(-n, n)))
        else:
            def b():
                return None if rng.random() < 0.3 else int(rng.integers(-n - 2, n + 3))
            step = [None, 1, 2, 3, -1, -2, -3][int(rng.integers(0, 7))]
            items.append(slice(b(), b(), step))
        i += 1
        if rng.random() < 0.2:
            break
    return tuple(items)


def test_random_keys_match_numpy():
    rng = np.random.default_rng(1234)
    for _ in range(400):
        shape = tuple(int(v) for v in rng.integers(0, 5, size=int(rng.integers(1, 5))))
        a = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
        key = _random_key(rng, shape)
        assert_close(tf.constant(a)[key], a[key])
