"""tnp interop (NumPy, torch, DLPack) and tnp under GradientTape, tf.function, Dataset.map."""

import numpy as np
import pytest
import torch

import torchflow as tf
import torchflow.experimental.numpy as tnp
from torchflow._src.ops.numpy_ops import shares_memory
from torchflow._src.testing import assert_close, rand


def test_numpy_functions_accept_tensors():
    t = tnp.asarray(rand((3, 4), "float32"))
    assert_close(np.sum(t, axis=0), t.numpy().sum(axis=0))
    assert isinstance(np.asarray(t), np.ndarray) and np.asarray(t).dtype == np.float32
    assert_close(np.add(t, 1.0), t.numpy() + 1.0)


def test_tnp_accepts_arrays_lists_scalars_and_variables():
    v = tf.Variable([1.0, 2.0], dtype=tf.float32)
    assert_close(tnp.add(v, 1.0), np.array([2.0, 3.0], np.float32))
    assert_close(tnp.add([1, 2], np.int8(3)), np.add([1, 2], np.int8(3)))
    assert_close(tnp.asarray([tf.constant(1.0), 2.0]), np.array([1.0, 2.0]))


def test_zero_copy_numpy_exchange_on_cpu():
    a = np.arange(6, dtype=np.float32)
    t = tnp.asarray(a)  # shares memory (NumPy asarray semantics)
    assert shares_memory(t, a)
    assert not shares_memory(tnp.array(a), a)  # array copies by default
    assert not shares_memory(tnp.asarray(a.astype(np.float64), np.float32), a)
    back = t.numpy()
    assert np.shares_memory(back, a)


def test_dlpack_round_trips_share_memory():
    x = tf.constant([1.0, 2.0, 3.0])
    y = tf.experimental.dlpack.from_dlpack(tf.experimental.dlpack.to_dlpack(x))
    assert shares_memory(x, y)
    tt = torch.from_dlpack(tf.experimental.dlpack.to_dlpack(x))
    assert tt.data_ptr() == x._t.data_ptr()
    a = np.from_dlpack(x)
    assert_close(a, np.array([1.0, 2.0, 3.0], np.float32))
    assert shares_memory(x, a)
    src = torch.arange(4, dtype=torch.int32)
    z = tf.experimental.dlpack.from_dlpack(src)
    src[0] = 99
    assert z.numpy()[0] == 99 and z.dtype == tf.int32
    n = np.arange(3.0)
    assert_close(tf.experimental.dlpack.from_dlpack(n), n)


def test_dlpack_rejects_used_capsule():
    cap = tf.experimental.dlpack.to_dlpack(tf.constant([1.0]))
    tf.experimental.dlpack.from_dlpack(cap)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.experimental.dlpack.from_dlpack(cap)


def _f(x):
    return tnp.sum(tnp.sin(x) * tnp.exp(x) + tnp.mean(tnp.matmul(x, tnp.transpose(x))))


def test_gradient_tape_matches_analytic():
    xv = rand((3, 3), "float64", seed=2)
    x = tf.constant(xv)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = _f(x)
    g = tape.gradient(y, x).numpy()
    # y = sum(sin(x) e^x) + 9 * mean(x x^T) = ... + sum_k (sum_i x_ik)^2
    ref = np.exp(xv) * (np.sin(xv) + np.cos(xv)) + 2 * xv.sum(axis=0)[None, :]
    assert_close(g, ref, rtol=1e-8)


def test_gradient_through_at_and_where():
    x = tf.constant([1.0, -2.0, 3.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sum(tnp.at(x)[1].set(0.0) * 2.0 + tnp.where(x > 0, x, 0.0) ** 2)
    assert_close(tape.gradient(y, x), np.array([2.0 + 2.0, 0.0, 2.0 + 6.0]))


@pytest.mark.parametrize("jit", [False, True])
def test_inside_tf_function(jit):
    f = tf.function(lambda x: tnp.tanh(x) * 2 + tnp.cumsum(x, axis=0), jit_compile=jit)
    xv = rand((4, 3), "float32")
    assert_close(f(tf.constant(xv)), np.tanh(xv) * 2 + np.cumsum(xv, 0), rtol=1e-5)


def test_in_dataset_map():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(6, dtype=np.float32).reshape(3, 2))
    ds = ds.map(lambda x: tnp.concatenate([x, tnp.square(x)]))
    got = np.stack([e.numpy() for e in ds])
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    assert_close(got, np.concatenate([x, x * x], axis=1))


def test_random():
    tnp.random.seed(1)
    a = tnp.random.randn(2, 3)
    tnp.random.seed(1)
    b = tnp.random.randn(2, 3)
    assert_close(a, b) and a.dtype == tf.float64
    u = tnp.random.uniform(2.0, 3.0, size=(1000,))
    assert 2.0 <= float(tnp.min(u)) and float(tnp.max(u)) < 3.0
    r = tnp.random.randint(0, 5, size=(500,))
    assert r.dtype == tf.int64 and set(np.unique(r.numpy())) == set(range(5))
    assert tnp.random.rand(3).shape == (3,) and tnp.random.random((2, 2)).shape == (2, 2)
    assert abs(float(tnp.mean(tnp.random.standard_normal((4000,))))) < 0.1
    assert tnp.random.poisson(3.0, (10,)).dtype == tf.int64
    with pytest.raises(ValueError):
        tnp.random.randint(5, 5)


def test_gradient_to_variables_through_tnp():
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = tnp.sum(tnp.square(v) * 2.0) + tnp.sum(tnp.take(v, [0, 0, 2]))
    assert_close(tape.gradient(y, v), np.array([4.0 + 2.0, 8.0, 12.0 + 1.0], np.float32))
