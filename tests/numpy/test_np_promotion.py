"""tnp dtype promotion against REAL TensorFlow's tf.experimental.numpy, with the
float32 preference off and on (TF needs its numpy behavior on for tnp's methods)."""

import numpy as np
import pytest

import torchflow as tf
import torchflow.experimental.numpy as tnp
from torchflow._src.numpy.np_behavior import _disable_numpy_behavior
from torchflow._src.testing import real_tf

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32",
          "float64", "complex64", "complex128"]
SCALARS = [True, 3, 2.5, 1j]


@pytest.fixture(params=[False, True], ids=["float64", "prefer_float32"])
def both_tnps(request, real_tnp_behavior):
    rtnp = real_tnp_behavior(prefer_float32=request.param)
    tnp.experimental_enable_numpy_behavior(prefer_float32=request.param)
    yield rtnp


def _arr(mod, d):
    return mod.asarray(np.ones((2,), d))


def test_binary_table(both_tnps):
    rtnp = both_tnps
    mismatches = []
    for d1 in DTYPES:
        for d2 in DTYPES + SCALARS:
            b_ours = b_ref = d2
            if isinstance(d2, str):
                b_ours, b_ref = _arr(tnp, d2), _arr(rtnp, d2)
            ref = rtnp.add(_arr(rtnp, d1), b_ref).dtype.name
            got = tnp.add(_arr(tnp, d1), b_ours).dtype.name
            if got != ref:
                mismatches.append((d1, d2, got, ref))
    assert not mismatches


@pytest.mark.parametrize("name", ["sin", "sqrt", "true_divide", "sum", "mean", "prod",
                                  "cumsum", "argmax", "amax", "floor", "square"])
def test_function_result_dtypes(name, real_tnp_behavior):
    # float64 mode only: under prefer_float32 TF 2.21 casts with result_type(float)
    # (float64) where TF 2.4 used default_float_type() (float32); 2.4 wins, see below.
    rtnp = real_tnp_behavior()
    tnp.experimental_enable_numpy_behavior()
    for d in DTYPES:
        if d.startswith("complex") and name in ("amax", "argmax", "floor"):
            continue
        if d == "bool" and name in ("cumsum", "square"):
            continue  # real TF's kernels reject bool here (a TF bug); ours follow NumPy
        args = (lambda m: (_arr(m, d), _arr(m, d))) if name == "true_divide" else (
            lambda m: (_arr(m, d),))
        ref = getattr(rtnp, name)(*args(rtnp)).dtype.name
        got = getattr(tnp, name)(*args(tnp)).dtype.name
        assert got == ref, (d, got, ref)


@pytest.mark.parametrize("value", [1, 1.5, True, 1j, [1, 2], [1.0, 2], [[True]],
                                   np.float64(2), np.arange(3, dtype=np.int16),
                                   np.ones(2, np.float64)])
def test_asarray_dtypes(both_tnps, value):
    assert tnp.asarray(value).dtype.name == both_tnps.asarray(value).dtype.name


def test_prefer_float32_default_float_is_float32_as_in_tf24():
    tnp.experimental_enable_numpy_behavior(prefer_float32=True)
    i = tnp.asarray([1, 2], np.int32)
    assert tnp.zeros(2).dtype == tf.float64  # dtype=float is result_type(float) in TF
    for r in (tnp.sin(i), tnp.mean(i), tnp.asarray(1.5), tnp.true_divide(
            tnp.asarray([True]), True)):
        assert r.dtype == tf.float32
    assert tnp.add(i, 1.5).dtype == tf.float64  # int32 with a float32-like scalar
    assert tnp.asarray(np.ones(2)).dtype == tf.float64  # explicit float64 is kept


def test_creation_defaults(both_tnps):
    rtnp = both_tnps
    for name, args in [("zeros", (3,)), ("ones", (2,)), ("eye", (2,)), ("arange", (3,)),
                       ("arange", (0.0, 2.0)), ("linspace", (0, 1, 3)), ("full", ((2,), 1.5))]:
        assert getattr(tnp, name)(*args).dtype.name == getattr(rtnp, name)(*args).dtype.name


def test_result_type_and_promote_types(both_tnps):
    rtnp = both_tnps
    cases = [(np.int32, np.float32), (np.int8, np.uint8), (np.float16, 1.0), (np.int64, 2.5),
             (np.bool_, 1), (np.complex64, np.float64), (tf.int32, tf.float16)]
    for c in cases:
        rc = tuple(real_tf().as_dtype(x.name) if isinstance(x, tf.DType) else x for x in c)
        assert tnp.result_type(*c) == rtnp.result_type(*rc), c
    assert tnp.promote_types(np.int16, np.uint16) == rtnp.promote_types(np.int16, np.uint16)


def test_operators_promote_only_with_numpy_behavior(real_tnp_behavior):
    x = tf.constant([1, 2], tf.int32)
    with pytest.raises(TypeError):
        x + 1.5
    tnp.experimental_enable_numpy_behavior()
    real_tnp_behavior()
    rtf = real_tf()
    rx = rtf.constant([1, 2], rtf.int32)
    for other in (1.5, 2, np.float32(1)):
        assert (x + other).dtype.name == (rx + other).dtype.name
    assert (x * tf.constant([1.0, 2.0])).dtype.name == (rx * rtf.constant([1.0, 2.0])).dtype.name
    _disable_numpy_behavior()
    with pytest.raises(TypeError):
        x + 1.5


def test_finfo_iinfo_issubdtype():
    assert tnp.finfo(np.float32).eps == np.finfo(np.float32).eps
    assert tnp.finfo(tf.float16).max == np.finfo(np.float16).max
    assert float(tnp.finfo(tf.bfloat16).eps) == 2.0 ** -7
    assert tnp.iinfo(tf.int8).min == -128 and tnp.iinfo(np.uint16).max == 65535
    assert tnp.issubdtype(tnp.float32, tnp.inexact) and not tnp.issubdtype(tnp.int32, np.floating)
    assert tnp.ndarray is tf.Tensor and tnp.newaxis is None and tnp.float_ is np.float64


def test_real_tf_behavior_is_restored_after_each_test():
    rtf = real_tf()
    with pytest.raises((TypeError, rtf.errors.InvalidArgumentError)):
        rtf.constant([1, 2], rtf.int32) + rtf.constant([1.0, 2.0])
    assert not hasattr(rtf.constant([1.0]), "T")
