"""The generated graph code's fast paths (graph_exec_fast): MatMul, AddV2, Mul, BiasAdd,
Sigmoid and Tanh with a float ``T`` run torch directly, and must give what the raw
ops give (NumPy's values, gradients) and, on inputs the fast path does not take,
the raw op's result or TF's error (checked against real TF's raw ops).
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from tests.train.test_saved_model_run import _attr, _fdef
from torchflow._src.core.proto import tf_function_pb2, tf_types_pb2
from torchflow._src.ops.graph_exec import FunctionLibrary
from torchflow._src.testing import real_tf

DT_FLOAT, DT_DOUBLE, DT_INT32 = tf_types_pb2.DT_FLOAT, tf_types_pb2.DT_DOUBLE, tf_types_pb2.DT_INT32
RNG = np.random.default_rng(3)


def _cell_library(dt=DT_FLOAT, transpose_b=False):
    """``tanh(sigmoid(x @ w + x @ w) * bias_add(x @ w, b))`` with ``T`` = ``dt``."""
    lib = tf_function_pb2.FunctionDefLibrary()
    t = {"T": _attr(type=dt)}
    _fdef(lib, "cell", [("x", dt), ("w", dt), ("b", dt)], [("y", dt), ("mm", dt)], [
        {"name": "mm", "op": "MatMul", "input": ["x", "w"],
         "attr": {**t, "transpose_b": _attr(b=transpose_b)}},
        {"name": "add", "op": "AddV2", "input": ["mm:product:0", "mm:product:0"], "attr": t},
        {"name": "sig", "op": "Sigmoid", "input": ["add:z:0"], "attr": t},
        {"name": "bias", "op": "BiasAdd", "input": ["mm:product:0", "b"], "attr": t},
        {"name": "mul", "op": "Mul", "input": ["sig:y:0", "bias:output:0"], "attr": t},
        {"name": "tanh", "op": "Tanh", "input": ["mul:z:0"], "attr": t},
    ], {"y": "tanh:y:0", "mm": "mm:product:0"})
    return FunctionLibrary(lib)


def _want(x, w, b):
    mm = x @ w
    return np.tanh(1 / (1 + np.exp(-2 * mm)) * (mm + b)), mm


@pytest.mark.parametrize("dt,np_dt,tol", [(DT_FLOAT, np.float32, 1e-5),
                                          (DT_DOUBLE, np.float64, 1e-12)])
def test_fast_paths_give_the_raw_ops_values(dt, np_dt, tol):
    lib = _cell_library(dt)
    x, w, b = (RNG.standard_normal(s).astype(np_dt) for s in ((5, 4), (4, 3), (3,)))
    y, mm = lib.call("cell", [tf.constant(x), tf.constant(w), tf.constant(b)])
    assert "_x" in lib._plan("cell").source  # the fast paths are what ran
    assert y.dtype == tf.as_dtype(np_dt) and mm.dtype == tf.as_dtype(np_dt)
    want_y, want_mm = _want(x, w, b)
    np.testing.assert_allclose(y.numpy(), want_y, rtol=tol, atol=tol)
    np.testing.assert_allclose(mm.numpy(), want_mm, rtol=tol, atol=tol)


def test_transpose_b_and_gradients_through_fast_paths():
    lib = _cell_library(transpose_b=True)
    x, w, b = (RNG.standard_normal(s).astype(np.float32) for s in ((2, 4), (3, 4), (3,)))
    wv = tf.Variable(w)
    with tf.GradientTape() as tape:
        y, _ = lib.call("cell", [tf.constant(x), wv.read_value(), tf.constant(b)])
        loss = tf.reduce_sum(y)
    g = tape.gradient(loss, wv)
    np.testing.assert_allclose(y.numpy(), _want(x, w.T, b)[0], rtol=1e-5, atol=1e-5)
    eps = 1e-3  # central differences of the NumPy cell in float64
    num = np.zeros_like(w, np.float64)
    for idx in np.ndindex(w.shape):
        hi, lo = w.astype(np.float64), w.astype(np.float64)
        hi[idx] += eps
        lo[idx] -= eps
        num[idx] = (_want(x, hi.T, b)[0].sum() - _want(x, lo.T, b)[0].sum()) / (2 * eps)
    np.testing.assert_allclose(g.numpy(), num, rtol=1e-3, atol=1e-3)


def test_other_dtypes_and_variables_take_the_raw_ops():
    lib = _cell_library()
    x, w, b = (RNG.standard_normal(s).astype(np.float32) for s in ((2, 4), (4, 3), (3,)))
    y, _ = lib.call("cell", [tf.constant(x), tf.Variable(w), tf.constant(b)])
    np.testing.assert_allclose(y.numpy(), _want(x, w, b)[0], rtol=1e-5, atol=1e-5)
    # T says float, the inputs are float64: the raw ops compute in float64
    y64, _ = lib.call("cell", [tf.constant(x.astype(np.float64)),
                               tf.constant(w.astype(np.float64)), tf.constant(b.astype(np.float64))])
    assert y64.dtype == tf.float64


def _error(fn):
    with pytest.raises(tf.errors.OpError) as e:
        fn()
    return type(e.value).__name__


@pytest.mark.parametrize("shapes", [((4,), (4, 3), (3,)),  # MatMul of a vector
                                    ((2, 5), (4, 3), (3,)),  # inner dimensions differ
                                    ((2, 4), (4, 3), (2,)),  # bias of the wrong size
                                    ((2, 4), (4, 3), (3, 1))])  # bias not a vector
def test_bad_shapes_raise_the_raw_ops_tf_error(shapes):
    x, w, b = (np.ones(s, np.float32) for s in shapes)
    lib = _cell_library()
    got = _error(lambda: lib.call("cell", [tf.constant(x), tf.constant(w), tf.constant(b)]))

    def reference(raw):
        mm = raw.MatMul(a=x, b=w)
        raw.BiasAdd(value=mm, bias=b)

    ttf = real_tf()
    with pytest.raises(ttf.errors.OpError) as e:
        reference(ttf.raw_ops)
    assert got == type(e.value).__name__ == "InvalidArgumentError"
    # and what torchflow's own raw ops say, word for word
    with pytest.raises(tf.errors.InvalidArgumentError) as ours:
        reference(tf.raw_ops)
    with pytest.raises(tf.errors.InvalidArgumentError) as fast:
        lib.call("cell", [tf.constant(x), tf.constant(w), tf.constant(b)])
    assert str(fast.value) == str(ours.value)


def test_adds_that_do_not_broadcast_raise_tf_error():
    lib = tf_function_pb2.FunctionDefLibrary()
    t = {"T": _attr(type=DT_FLOAT)}
    _fdef(lib, "add", [("x", DT_FLOAT), ("y", DT_FLOAT)], [("z", DT_FLOAT)], [
        {"name": "a", "op": "AddV2", "input": ["x", "y"], "attr": t},
        {"name": "m", "op": "Mul", "input": ["a:z:0", "y"], "attr": t},
    ], {"z": "m:z:0"})
    run = FunctionLibrary(lib)
    x, y = np.ones((2, 3), np.float32), np.ones((4,), np.float32)
    with pytest.raises(real_tf().errors.InvalidArgumentError):
        real_tf().raw_ops.AddV2(x=x, y=y)
    with pytest.raises(tf.errors.InvalidArgumentError) as ours:
        tf.raw_ops.AddV2(x=x, y=y)
    with pytest.raises(tf.errors.InvalidArgumentError) as fast:
        run.call("add", [tf.constant(x), tf.constant(y)])
    assert str(fast.value) == str(ours.value)
    z = run.call("add", [tf.constant(np.full((2, 3), 2.0, np.float32)),
                         tf.constant(np.full((3,), 3.0, np.float32))])[0]
    np.testing.assert_array_equal(z.numpy(), np.full((2, 3), 15.0, np.float32))


def test_integer_adds_and_products_wrap_around_as_tf():
    lib = tf_function_pb2.FunctionDefLibrary()
    t = {"T": _attr(type=DT_INT32)}
    _fdef(lib, "f", [("x", DT_INT32), ("y", DT_INT32)], [("z", DT_INT32)], [
        {"name": "a", "op": "AddV2", "input": ["x", "y"], "attr": t},
        {"name": "m", "op": "Mul", "input": ["a:z:0", "y"], "attr": t},
    ], {"z": "m:z:0"})
    assert "_x" in FunctionLibrary(lib)._plan("f").source
    x = np.array([2 ** 31 - 1, 5, -7], np.int32)
    y = np.array([1, 3, 2 ** 30], np.int32)
    ttf = real_tf()
    want = ttf.raw_ops.Mul(x=ttf.raw_ops.AddV2(x=x, y=y), y=y).numpy()
    got = FunctionLibrary(lib).call("f", [tf.constant(x), tf.constant(y)])[0]
    assert got.dtype == tf.int32
    np.testing.assert_array_equal(got.numpy(), want)


def _split_library(num_split):
    lib = tf_function_pb2.FunctionDefLibrary()
    _fdef(lib, "f", [("axis", DT_INT32), ("x", DT_FLOAT)], [("a", DT_FLOAT), ("b", DT_FLOAT)], [
        {"name": "sp", "op": "Split", "input": ["axis", "x"],
         "attr": {"num_split": _attr(i=num_split), "T": _attr(type=DT_FLOAT)}},
    ], {"a": "sp:output:0", "b": f"sp:output:{num_split - 1}"})
    return FunctionLibrary(lib)


@pytest.mark.parametrize("axis", [1, -1, 0])
def test_split_gives_numpy_parts(axis):
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    lib = _split_library(2)
    a, b = lib.call("f", [tf.constant(axis), tf.constant(x)])
    assert "_x" in lib._plan("f").source
    want = np.split(x, 2, axis=axis)
    np.testing.assert_array_equal(a.numpy(), want[0])
    np.testing.assert_array_equal(b.numpy(), want[1])


@pytest.mark.parametrize("axis,num_split", [(1, 4), (2, 2), (-3, 2)])
def test_split_that_does_not_fit_raises_the_raw_ops_tf_error(axis, num_split):
    x = np.ones((4, 6), np.float32)
    with pytest.raises(real_tf().errors.InvalidArgumentError):
        real_tf().raw_ops.Split(axis=axis, value=x, num_split=num_split)
    with pytest.raises(tf.errors.InvalidArgumentError) as ours:
        tf.raw_ops.Split(axis=axis, value=x, num_split=num_split)
    with pytest.raises(tf.errors.InvalidArgumentError) as fast:
        _split_library(num_split).call("f", [tf.constant(axis), tf.constant(x)])
    assert str(fast.value) == str(ours.value)
