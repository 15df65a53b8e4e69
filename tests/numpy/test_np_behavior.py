"""experimental_enable_numpy_behavior: methods, NumPy indexing, restore; the .at API."""

import numpy as np
import pytest

import torchflow as tf
import torchflow.experimental.numpy as tnp
from torchflow._src.numpy.np_behavior import _disable_numpy_behavior
from torchflow._src.testing import assert_close, rand

X = rand((3, 4), "float32")


def test_off_by_default_and_restored():
    t = tf.constant(X)
    assert not hasattr(t, "T") and not hasattr(t, "astype")
    orig_add, orig_getitem = tf.Tensor.__add__, tf.Tensor.__getitem__
    tnp.experimental_enable_numpy_behavior()
    assert tf.Tensor.__add__ is not orig_add and hasattr(t, "T")
    _disable_numpy_behavior()
    assert tf.Tensor.__add__ is orig_add and tf.Tensor.__getitem__ is orig_getitem
    assert not hasattr(t, "T")


METHODS = [
    ("T", None), ("size", None), ("ndim", None), ("reshape", (4, 3)), ("reshape", ((2, 6),)),
    ("ravel", ()), ("flatten", ()), ("transpose", ()), ("transpose", (1, 0)),
    ("swapaxes", (0, 1)), ("clip", (-1.0, 1.0)), ("sum", ()), ("sum", (0,)), ("mean", (1,)),
    ("max", ()), ("min", (0,)), ("argmax", ()), ("argmin", (1,)), ("cumsum", (1,)),
    ("prod", (0,)), ("std", ()), ("var", ()), ("round", ()), ("diagonal", ()),
    ("trace", ()), ("sort", ()), ("argsort", (0,)), ("repeat", (2,)), ("take", ([0, 2],)),
    ("all", ()), ("any", ()), ("tolist", ()), ("copy", ()),
]


@pytest.mark.parametrize("name,args", METHODS, ids=[f"{m}-{i}" for i, (m, _) in enumerate(METHODS)])
def test_methods_match_numpy(name, args):
    tnp.experimental_enable_numpy_behavior()
    t = tf.constant(X)
    got = getattr(t, name)
    ref = getattr(X, name)
    if name == "sort":
        ref = lambda: np.sort(X)  # noqa: E731 - ndarray.sort works in place
    if args is not None:
        got, ref = got(*args), ref(*args)
    if name == "tolist":
        assert got == ref
        return
    if name in ("argmax", "argmin", "argsort"):
        ref = np.asarray(ref, np.int64)
    assert_close(got, np.asarray(ref), rtol=1e-5)


def test_astype_item_nbytes():
    tnp.experimental_enable_numpy_behavior()
    t = tf.constant(X)
    assert t.astype(np.int32).dtype == tf.int32 and t.astype("float64").dtype == tf.float64
    assert t[1, 2].item() == X[1, 2].item() and t.nbytes == X.nbytes and t.itemsize == 4


INDEX_KEYS = [
    [0, 2], np.array([2, 0, 0]), (slice(None), [1, 3]), ([0, 1], [2, 3]), X > 0,
    (X[:, 0] > 0,), (Ellipsis, None, 1), (1, slice(None, None, -1)), ([[0], [2]], [1, 3]),
    (slice(1, None), np.array([True, False, True, False])),
]


@pytest.mark.parametrize("key", INDEX_KEYS, ids=[str(i) for i in range(len(INDEX_KEYS))])
def test_numpy_indexing(key):
    tnp.experimental_enable_numpy_behavior()
    t = tf.constant(X)
    assert_close(t[key], X[key])
    tkey = tuple(tf.constant(k) if isinstance(k, np.ndarray) else k for k in key) if isinstance(
        key, tuple) else (tf.constant(key) if isinstance(key, np.ndarray) else key)
    assert_close(t[tkey], X[key])


@pytest.mark.parametrize("how,ref", [
    ("set", lambda a, k, v: _np_set(a, k, v)),
    ("add", lambda a, k, v: _np_ufunc_at(np.add, a, k, v)),
    ("multiply", lambda a, k, v: _np_ufunc_at(np.multiply, a, k, v)),
    ("min", lambda a, k, v: _np_ufunc_at(np.minimum, a, k, v)),
    ("max", lambda a, k, v: _np_ufunc_at(np.maximum, a, k, v)),
])
@pytest.mark.parametrize("key", [1, (slice(None), 2), (0, slice(1, 3)), X[:, 0] > 0])
def test_at_updates(how, ref, key):
    v = np.float32(0.5)
    got = getattr(tnp.at(X)[key], how)(v)
    assert_close(got, ref(X, key, v))
    tnp.experimental_enable_numpy_behavior()
    t = tf.constant(X)
    assert_close(getattr(t.at[key], how)(v), ref(X, key, v))
    assert_close(t, X)  # the original is unchanged


def _np_set(a, k, v):
    a = a.copy()
    a[k] = v
    return a


def _np_ufunc_at(fn, a, k, v):
    a = a.copy()
    a[k] = fn(a[k], v)
    return a


def test_at_add_accumulates_repeated_indices_and_put():
    x = np.zeros(4, np.float32)
    idx = np.array([0, 0, 3])
    ref = x.copy()
    np.add.at(ref, idx, 1.0)
    assert_close(tnp.at(x)[idx].add(1.0), ref)
    ref = np.arange(6).reshape(2, 3)
    got = tnp.put(ref, [0, 5], [-1, -2])
    np.put(ref, [0, 5], [-1, -2])
    assert_close(got, ref)
    a = rand((3, 4), "float32")
    i = np.argmax(a, axis=1)[:, None]
    got = tnp.put_along_axis(a, i, 9.0, axis=1)
    np.put_along_axis(a, i, 9.0, axis=1)
    assert_close(got, a)
    assert_close(tnp.index_update(np.zeros(3), 1, 2.0), np.array([0.0, 2.0, 0.0]))
    assert_close(tnp.index_add(np.ones(3), [0, 0], 2.0), np.array([5.0, 1.0, 1.0]))


def test_array_api_names():
    a = rand((2, 3, 4), "float32")
    assert_close(tnp.permute_dims(a, (2, 0, 1)), np.permute_dims(a, (2, 0, 1)))
    assert_close(tnp.matrix_transpose(a), np.matrix_transpose(a))
    assert_close(tnp.concat([a, a], axis=1), np.concat([a, a], axis=1))
    assert_close(tnp.astype(a, np.int32), a.astype(np.int32))
    assert_close(tnp.vecdot(a, a), np.vecdot(a, a), rtol=1e-5)
    assert_close(tnp.bitwise_left_shift(np.arange(4), 2), np.bitwise_left_shift(np.arange(4), 2))
    assert_close(tnp.acos(np.float32(0.5)), np.acos(np.float32(0.5)))
    assert_close(tnp.pow(np.arange(3), 2), np.pow(np.arange(3), 2))
    assert_close(tnp.unique_values(np.array([3, 1, 3])), np.unique_values(np.array([3, 1, 3])))
