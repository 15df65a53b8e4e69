"""tnp reductions and linear algebra against NumPy (values; dtypes by TF 2.4's rules)."""

import numpy as np
import pytest

import torchflow.experimental.numpy as tnp
from torchflow._src.testing import assert_close, rand

AXES = [None, 0, -1, (0, 1)]


def _int_wide(d):
    return np.int64 if np.dtype(d).kind in "bi" else (np.uint64 if np.dtype(d).kind == "u" else d)


@pytest.mark.parametrize("name", ["sum", "prod", "cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool", "uint8"])
def test_int_widening(name, dtype):
    x = rand((2, 3, 2), dtype, seed=1, low=-2, high=2)
    for axis in (AXES if not name.startswith("cum") else [None, 0, -1]):
        got = getattr(tnp, name)(x, axis=axis)
        wide = _int_wide(x.dtype)
        if name.startswith("cum") and x.dtype.kind == "u":
            wide = np.int64  # TF 2.4: np.promote_types(uint8, int)
        ref = getattr(np, name)(x, axis=axis, dtype=wide)
        assert_close(got, ref, rtol=1e-5)


@pytest.mark.parametrize("name", ["mean", "std", "var", "nanmean"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_float_results(name, dtype):
    x = rand((3, 4, 2), dtype, seed=2)
    for axis in AXES:
        for keepdims in (False, True):
            got = getattr(tnp, name)(x, axis=axis, keepdims=keepdims)
            xr = x.astype(np.float64) if x.dtype.kind == "i" else x
            ref = getattr(np, name)(xr, axis=axis, keepdims=keepdims)
            assert_close(got, np.asarray(ref, xr.dtype), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["amax", "amin", "max", "min", "all", "any", "ptp"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_dtype_kept(name, dtype):
    if name == "ptp" and dtype == "bool":
        pytest.skip("NumPy rejects ptp on bool")
    x = rand((3, 4), dtype, seed=3)
    for axis in (None, 0, 1):
        ref = getattr(np, name)(x, axis=axis)
        assert_close(tnp.__dict__[name](x, axis=axis) if name in tnp.__dict__ else None, ref)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg(name):
    x = rand((4, 5), "float32", seed=4)
    for axis in (None, 0, 1):
        assert_close(getattr(tnp, name)(x, axis=axis), getattr(np, name)(x, axis=axis))


def test_nan_reductions_and_counts():
    x = np.array([[1.0, np.nan, 3.0], [np.nan, 2.0, 4.0]])
    for name in ("nansum", "nanprod", "nanmean"):
        for axis in (None, 0, 1):
            assert_close(getattr(tnp, name)(x, axis=axis), getattr(np, name)(x, axis=axis))
    assert_close(tnp.count_nonzero(np.array([[0, 1], [2, 0]]), axis=0),
                 np.count_nonzero(np.array([[0, 1], [2, 0]]), axis=0).astype(np.int64))


def test_average():
    x = rand((3, 4), "float64", seed=5)
    w = np.abs(rand((4,), "float64", seed=6)) + 0.1
    assert_close(tnp.average(x), np.average(x))
    assert_close(tnp.average(x, axis=1, weights=w), np.average(x, axis=1, weights=w))
    avg, s = tnp.average(x, axis=1, weights=w, returned=True)
    ravg, rs = np.average(x, axis=1, weights=w, returned=True)
    assert_close(avg, ravg) and assert_close(s, rs)


LINALG = [
    ("matmul", (3, 4), (4, 5)), ("matmul", (2, 3, 4), (4, 2)), ("matmul", (4,), (4, 3)),
    ("dot", (3, 4), (4, 5)), ("dot", (4,), (4,)), ("dot", (2, 3, 4), (5, 4, 2)),
    ("dot", (), (3,)), ("vdot", (2, 3), (3, 2)), ("inner", (2, 4), (3, 4)),
    ("outer", (3,), (2, 2)), ("kron", (2, 2), (3, 1)), ("cross", (4, 3), (3,)),
    ("cross", (2,), (2,)), ("tensordot", (2, 3, 4), (3, 4, 5)),
]


@pytest.mark.parametrize("name,sa,sb", LINALG)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_linalg(name, sa, sb, dtype):
    a, b = rand(sa, dtype, seed=7), rand(sb, dtype, seed=8)
    assert_close(getattr(tnp, name)(a, b), getattr(np, name)(a, b), rtol=1e-4, atol=1e-4)


def test_trace_einsum_polyval_diff():
    a = rand((3, 4, 2), "float64")
    assert_close(tnp.trace(a), np.trace(a))
    assert_close(tnp.trace(a, offset=1, axis1=1, axis2=2), np.trace(a, 1, 1, 2))
    b = rand((4, 5), "float64", seed=1)
    assert_close(tnp.einsum("ijk,jl->ilk", a, b), np.einsum("ijk,jl->ilk", a, b))
    assert_close(tnp.polyval([1.0, 2.0, 3.0], np.arange(4.0)),
                 np.polyval([1.0, 2.0, 3.0], np.arange(4.0)))
    for n in (1, 2):
        assert_close(tnp.diff(a, n=n, axis=1), np.diff(a, n=n, axis=1))
    assert_close(tnp.diff(np.array([True, False, False])), np.diff(np.array([True, False, False])))


def test_matmul_rejects_scalars():
    with pytest.raises(ValueError):
        tnp.matmul(1.0, np.ones(3))
