"""Shared test helpers: NumPy/TF comparison and the real-TensorFlow reference."""

from __future__ import annotations

import os

import numpy as np

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

_tf = None


def real_tf():
    """The real TensorFlow module (imported on first use; skips if absent)."""
    global _tf
    if _tf is None:
        import pytest

        _tf = pytest.importorskip("tensorflow")
    return _tf


def assert_close(actual, expected, rtol=1e-5, atol=1e-6, check_dtype=True):
    """Asserts values (Tensors, arrays, scalars) are close; compares dtypes too."""
    a = np.asarray(actual.numpy() if hasattr(actual, "numpy") else actual)
    e = np.asarray(expected.numpy() if hasattr(expected, "numpy") else expected)
    if check_dtype:
        assert a.dtype == e.dtype, f"dtype {a.dtype} != {e.dtype}"
    assert a.shape == e.shape, f"shape {a.shape} != {e.shape}"
    if a.dtype.kind in "fc" or e.dtype.kind in "fc":
        np.testing.assert_allclose(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64),
                                   e.astype(np.complex128 if e.dtype.kind == "c" else np.float64),
                                   rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(a, e)


def assert_all_close(actual: list, expected: list, rtol=1e-5, atol=1e-6) -> None:
    """``assert_close`` of each pair, after asserting the lists are as long."""
    assert len(actual) == len(expected), f"{len(actual)} values != {len(expected)}"
    for a, e in zip(actual, expected):
        assert_close(a, e, rtol=rtol, atol=atol)


def rand(shape, dtype="float32", seed=0, low=-3, high=3):
    """Reproducible random NumPy data of a dtype name."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype) if dtype != "bfloat16" else np.dtype(np.float32)
    if dt.kind == "f":
        return rng.uniform(low, high, size=shape).astype(dt)
    if dt.kind == "c":
        return (rng.uniform(low, high, size=shape) + 1j * rng.uniform(low, high, size=shape)).astype(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dt.kind == "u":
        return rng.integers(0, max(high, 1) + 1, size=shape).astype(dt)
    return rng.integers(low, high + 1, size=shape).astype(dt)
