"""Segment reductions: a NumPy loop reference and differential tests against real TF."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from tests.ops._math_helpers import compare, rand
from torchflow._src.testing import assert_close, real_tf

SORTED = ["segment_sum", "segment_prod", "segment_max", "segment_min", "segment_mean"]
UNSORTED = ["unsorted_segment_sum", "unsorted_segment_prod", "unsorted_segment_max",
            "unsorted_segment_min", "unsorted_segment_mean", "unsorted_segment_sqrt_n"]
_NP = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "mean": np.mean}


def _np_segment(kind, data, ids, num, empty):
    out = np.full((num,) + data.shape[1:], empty, dtype=np.float64)
    for s in range(num):
        rows = data[ids == s]
        if len(rows):
            out[s] = _NP[kind](rows.astype(np.float64), axis=0)
    return out


@pytest.mark.parametrize("name", SORTED)
def test_sorted_segments_match_numpy(name):
    kind = name.split("_")[-1]
    data = rand((6, 3), "float64", seed=20)
    ids = np.array([0, 0, 2, 2, 2, 5], np.int32)
    out = getattr(tf.math, name)(tf.constant(data), tf.constant(ids))
    empty = 1.0 if kind == "prod" else 0.0
    assert_close(out, _np_segment(kind, data, ids, 6, empty))


@pytest.mark.parametrize("name", UNSORTED[:4])
def test_unsorted_segments_match_numpy(name):
    kind = name.split("_")[-1]
    data = rand((7, 2), "float64", seed=21)
    ids = np.array([3, 0, -1, 3, 1, 0, 3], np.int64)
    out = getattr(tf.math, name)(tf.constant(data), tf.constant(ids), 5)
    lo, hi = np.finfo(np.float64).min, np.finfo(np.float64).max
    empty = {"sum": 0.0, "prod": 1.0, "max": lo, "min": hi}[kind]
    assert_close(out, _np_segment(kind, data, ids, 5, empty))


def _both(name, data, ids, *extra, dtype):
    rtf = real_tf()
    res = []
    for lib in (tf, rtf):
        try:
            args = [lib.constant(data.astype(dtype)), lib.constant(ids)] + list(extra)
            res.append(("ok", getattr(lib.math, name)(*args)))
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            res.append(("err", type(e).__name__))
    (k1, v1), (k2, v2) = res
    assert k1 == k2, f"{name} {dtype}: torchflow {res[0]} vs TF {res[1]}"
    if k1 == "err":
        assert v1 == v2
    else:
        compare(v1, v2, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", SORTED + UNSORTED)
def test_differential_vs_tf(name):
    data = rand((6, 2), "float32", seed=22, low=-3, high=3)
    for dtype in ["float32", "float64", "int32", "int64", "uint8", "complex64"]:
        if name in SORTED:
            _both(name, data, np.array([0, 0, 1, 3, 3, 3], np.int32), dtype=dtype)
            _both(name, data, np.array([1, 0, 1, 3, 3, 3], np.int32), dtype=dtype)  # unsorted
        else:
            _both(name, data, np.array([2, 0, -1, 2, 3, 0], np.int64), 5, dtype=dtype)
            _both(name, data, np.array([2, 0, 7, 2, 3, 0], np.int32), 5, dtype=dtype)  # range
            _both(name, data.reshape(2, 3, 2), np.array([[0, 1, 1], [2, 0, -1]], np.int32), 3,
                  dtype=dtype)


def test_segment_mean_integer_division_and_empty():
    out = tf.math.segment_mean(tf.constant([1, 2, 7]), tf.constant([1, 1, 3]))
    assert out.dtype == tf.int32
    assert out.numpy().tolist() == [0, 1, 0, 7]
    out = tf.math.unsorted_segment_mean(tf.constant([1, 2]), tf.constant([1, 1]), 3)
    assert out.dtype == tf.float64
    assert_close(out, np.array([0.0, 1.5, 0.0]))


def test_segment_sum_empty_ids():
    out = tf.math.segment_sum(tf.zeros([0, 3]), tf.constant(np.zeros(0, np.int32)))
    assert out.shape == [0, 3]
