"""tf.sets against real TensorFlow: each case runs the same function with ``tf`` =
real TF and ``tf`` = torchflow and compares indices, values, dense shapes and dtypes,
or (for bad input) the error type and message. TF 2.21's Python-level dtype messages
were reworded after 2.4; those cases check TF 2.4's wording (sets_impl.py of 2.4)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf

A = [[1, 2, 2, 3], [4, 5, 6, 6]]
B = [[2, 3, 7, 7], [4, 4, 9, 1]]
SB = ([[0, 0], [0, 3], [1, 1]], [5, 1, 8], [2, 5])
S1 = ([[0, 0], [2, 1]], [3, 4], [3, 2])
S2 = ([[1, 0]], [9], [3, 5])
X3 = [[[1, 1], [2, 3]], [[5, 5], [0, 0]]]
STR_A = [[b"b", b"a", b""], [b"c", b"c", b"x"]]
STR_B = [[b"a"], [b"y"]]


def _st(tf, ind, vals, shape, dtype=None):
    return tf.sparse.SparseTensor(ind, tf.constant(vals, dtype), shape)


def _ops(tf):
    return {"intersection": tf.sets.intersection, "union": tf.sets.union,
            "difference": tf.sets.difference,
            "b_minus_a": lambda a, b, **kw: tf.sets.difference(a, b, aminusb=False, **kw)}


def _pairs(tf):
    c = tf.constant
    return {
        "dense": (c(A), c(B)),
        "dense_int64": (c(A, tf.int64), c(B, tf.int64)),
        "dense_uint8": (c(A, tf.uint8), c(B, tf.uint8)),
        "dense_int16": (c(A, tf.int16), c(B, tf.int16)),
        "dense_neg": (c([[3, -1, -7]], tf.int64), c([[2, -1, 0]], tf.int64)),
        "dense_sparse": (c(A), _st(tf, *SB)),
        "sparse_dense": (_st(tf, *SB), c(A)),
        "sparse_sparse": (_st(tf, *S1), _st(tf, *S2)),
        "string": (c(STR_A), c(STR_B)),
        "string_sparse": (c(STR_A), _st(tf, [[0, 0], [1, 2]], [b"zz", b"c"], [2, 3])),
        "rank3": (c(X3), c([[[1], [3]], [[0], [5]]])),
        "lists": (A, B),
        "empty_result": (c([[1]]), c([[2]])),
        "rank1": (c([1, 2]), c([1])),
        "float": (c([[1.0, 2.0]]), c([[1.0]])),
        "dtype_mismatch": (c(A), c([[1]], tf.int64)),
        "group_mismatch": (c(A), c([[1, 2]])),
        "rank_mismatch": (c(A), c([[[1]]])),
        "sparse_group_mismatch": (_st(tf, *S1), _st(tf, [[1, 0]], [9], [4, 5])),
        "sparse_unsorted": (c([[1, 2], [3, 4]]), _st(tf, [[1, 0], [0, 0]], [1, 2], [2, 2])),
        "sparse_oob": (c([[1, 2], [3, 4]]), _st(tf, [[0, 5]], [1], [2, 2])),
        "sparse_repeated": (c([[1, 2], [3, 4]]), _st(tf, [[0, 1], [0, 1]], [1, 2], [2, 2])),
    }


def _canon(x):
    if hasattr(x, "dense_shape"):
        return ("sparse", x.indices.numpy().tolist(), x.values.numpy().tolist(),
                x.values.dtype.name, x.dense_shape.numpy().tolist(), x.indices.dtype.name)
    return ("dense", x.numpy().tolist(), x.dtype.name, x.shape.as_list())


def _run(fn):
    try:
        return "ok", _canon(fn())
    except Exception as e:  # noqa: BLE001 - both sides' errors are compared
        msg = re.sub(r"\{\{function_node [^}]*\}\}\s*", "", str(e))
        msg = re.sub(r" name: \S*$", "", msg)
        return "err", type(e).__name__, msg


def _tf24_message(got, want):
    """TF 2.4's wording of the Python-level dtype errors (TF 2.21 lists the dtypes)."""
    m = re.match(r"'a' has invalid dtype `(.*)` not in supported dtypes", want)
    if m:
        return f"'a' invalid dtype {m.group(1)}."
    m = re.match(r"Invalid dtype `(.*)` not in supported dtypes", want)
    if m:
        return f"Invalid dtype {m.group(1)}."
    return want


def _check(fn):
    want = _run(lambda: fn(real_tf()))
    got = _run(lambda: fn(torchflow))
    if want[0] == "err":
        want = (want[0], want[1], _tf24_message(got, want[2]))
    assert got == want


@pytest.mark.compat
@pytest.mark.parametrize("validate", [True, False])
@pytest.mark.parametrize("op", ["intersection", "union", "difference", "b_minus_a"])
@pytest.mark.parametrize("pair", sorted(_pairs(torchflow)))
def test_set_operation_matches_tf(pair, op, validate):
    if not validate and pair in ("sparse_unsorted", "sparse_repeated"):
        pytest.skip("TF leaves the result of unchecked unsorted indices unspecified")
    _check(lambda tf: _ops(tf)[op](*_pairs(tf)[pair], validate_indices=validate))


SIZE_CASES = {
    "dense_rows": lambda tf: tf.sparse.from_dense(tf.constant(A)),
    "strings": lambda tf: tf.sparse.from_dense(tf.constant(STR_A)),
    "rank3": lambda tf: _st(tf, [[0, 0, 0], [0, 0, 1], [1, 1, 0]], [1, 1, 2], [2, 2, 2]),
    "empty": lambda tf: tf.sparse.SparseTensor(tf.zeros([0, 3], tf.int64),
                                               tf.zeros([0], tf.int32), [2, 3, 4]),
    "uint8": lambda tf: _st(tf, [[0, 0], [0, 1]], [1, 1], [1, 2], tf.uint8),
    "int8": lambda tf: _st(tf, [[0, 0], [0, 1]], [1, 2], [1, 2], tf.int8),
    "uint16": lambda tf: _st(tf, [[0, 0], [0, 1]], [1, 2], [1, 2], tf.uint16),
    "uint32": lambda tf: _st(tf, [[0, 0]], [1], [1, 1], tf.uint32),
    "float": lambda tf: _st(tf, [[0, 0]], [1.0], [1, 1]),
    "unsorted": lambda tf: _st(tf, [[1, 0], [0, 0]], [1, 2], [2, 2]),
    "oob": lambda tf: _st(tf, [[0, 5]], [1], [2, 2]),
    "rank1": lambda tf: _st(tf, [[0]], [1], [3]),
    "dense": lambda tf: tf.constant(A),
}


@pytest.mark.compat
@pytest.mark.parametrize("validate", [True, False])
@pytest.mark.parametrize("case", sorted(SIZE_CASES))
def test_set_size_matches_tf(case, validate):
    if not validate and case == "oob":
        pytest.skip("TF reads out of bounds when unchecked")
    _check(lambda tf: tf.sets.size(SIZE_CASES[case](tf), validate_indices=validate))


def test_union_is_row_major_and_sorted_against_numpy():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 6, size=(3, 4, 5))
    b = rng.integers(0, 6, size=(3, 4, 2))
    r = torchflow.sets.union(a, b)
    dense = torchflow.sparse.to_dense(r, default_value=-1).numpy()
    width = max(len(np.union1d(a[i, j], b[i, j])) for i in range(3) for j in range(4))
    assert dense.shape == (3, 4, width)
    for i in range(3):
        for j in range(4):
            u = np.union1d(a[i, j], b[i, j])
            np.testing.assert_array_equal(dense[i, j, :len(u)], u)
            assert (dense[i, j, len(u):] == -1).all()
    np.testing.assert_array_equal(torchflow.sets.size(r).numpy(),
                                  [[len(np.union1d(a[i, j], b[i, j])) for j in range(4)]
                                   for i in range(3)])
