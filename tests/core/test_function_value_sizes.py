"""tf.function bodies whose tensors have sizes that depend on values (``tf.where``,
``tf.sparse.from_dense``, ``tf.boolean_mask``, ``tf.unique``) trace once, as in TF:
the recording reads those sizes on every replay instead of keeping the first call's,
and TF's run-time index checks still raise on later calls.

Each case runs the same inputs (with different nonzero counts, none included) through
a ``tf.function`` under real TensorFlow and under torchflow and compares the results;
the body's Python runs once under torchflow."""

import numpy as np
import pytest

import torchflow as tf

tf_ref = pytest.importorskip("tensorflow")

W = np.random.default_rng(1).normal(size=(5, 3)).astype(np.float32)


def _inputs():
    rng = np.random.default_rng(0)
    out = []
    for p in (0.5, 0.2, 0.8, 1.0, 0.5):
        d = rng.integers(1, 4, size=(4, 5)).astype(np.float32)
        d[rng.random((4, 5)) < p] = 0
        out.append(d)
    return out


CASES = {
    "to_dense": lambda t, x: t.sparse.to_dense(t.sparse.from_dense(x)),
    "sparse_dense_matmul": lambda t, x: t.sparse.sparse_dense_matmul(t.sparse.from_dense(x), W),
    "add_sparse": lambda t, x: t.sparse.to_dense(
        t.sparse.add(t.sparse.from_dense(x), t.sparse.from_dense(x * 2))),
    "add_dense": lambda t, x: t.sparse.add(t.sparse.from_dense(x), x),
    "reorder": lambda t, x: t.sparse.reorder(t.sparse.transpose(t.sparse.from_dense(x))).values,
    "reshape": lambda t, x: t.sparse.to_dense(t.sparse.reshape(t.sparse.from_dense(x), [5, 4])),
    "slice": lambda t, x: t.sparse.to_dense(t.sparse.slice(t.sparse.from_dense(x), [1, 1], [2, 3])),
    "concat_axis1": lambda t, x: t.sparse.to_dense(
        t.sparse.concat(1, [t.sparse.from_dense(x), t.sparse.from_dense(x)])),
    "retain": lambda t, x: t.sparse.retain(t.sparse.from_dense(x),
                                           t.sparse.from_dense(x).values > 1).values,
    "fill_empty_rows": lambda t, x: t.sparse.to_dense(
        t.sparse.fill_empty_rows(t.sparse.from_dense(x), -1.0)[0]),
    "reduce_max": lambda t, x: t.sparse.reduce_max(t.sparse.from_dense(x), axis=0),
    "softmax": lambda t, x: t.sparse.to_dense(t.sparse.softmax(t.sparse.from_dense(x))),
    "transpose": lambda t, x: t.sparse.to_dense(t.sparse.transpose(t.sparse.from_dense(x))),
    "maximum": lambda t, x: t.sparse.to_dense(
        t.sparse.maximum(t.sparse.from_dense(x), t.sparse.from_dense(3 - x))),
    "sparse_times_dense": lambda t, x: (t.sparse.from_dense(x) * x).values,
    "to_indicator": lambda t, x: t.cast(t.sparse.to_indicator(t.sparse.SparseTensor(
        t.where(x != 0), t.cast(t.gather_nd(x, t.where(x != 0)), t.int64), [4, 5]), 4), t.int32),
    "gather_nd_of_where": lambda t, x: t.gather_nd(x, t.where(x > 1)),
    "boolean_mask": lambda t, x: t.reduce_sum(t.boolean_mask(x, x > 1)),
    "unique_count": lambda t, x: t.size(t.unique(t.reshape(x, [-1]))[0]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_traces_once_and_matches_tf(name):
    fn = CASES[name]
    runs = []

    def body(x):
        runs.append(1)
        return fn(tf, x)

    f = tf.function(body)
    ref = tf_ref.function(lambda x: fn(tf_ref, x))
    for x in _inputs():
        got = f(tf.constant(x)).numpy()
        want = ref(tf_ref.constant(x)).numpy()
        assert got.shape == want.shape, (name, got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=name)
    assert len(runs) == 1, f"{name}: the Python body ran {len(runs)} times"


def test_gather_nd_index_check_runs_on_every_call():
    """TF checks indices when the graph runs: a later call with a bad index raises
    InvalidArgumentError, never a value read at another position."""
    f = tf.function(lambda x, i: tf.gather_nd(x, i))
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert f(x, tf.constant([[1, 2], [0, 0]])).numpy().tolist() == [5.0, 0.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not index into param"):
        f(x, tf.constant([[1, -1], [0, 0]]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not index into param"):
        f(x, tf.constant([[0, 3], [0, 0]]))
    assert f(x, tf.constant([[0, 1], [1, 0]])).numpy().tolist() == [1.0, 3.0]


def test_sparse_index_checks_run_on_every_call():
    to_dense = tf.function(lambda i, v: tf.sparse.to_dense(tf.sparse.SparseTensor(i, v, [2, 2])))
    fill = tf.function(lambda i, v: tf.sparse.fill_empty_rows(
        tf.sparse.SparseTensor(i, v, [2, 2]), 0.0)[1])
    v = tf.constant([1.0, 2.0])
    assert to_dense(tf.constant([[0, 0], [1, 1]], tf.int64), v).numpy().tolist() == \
        [[1.0, 0.0], [0.0, 2.0]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of bounds"):
        to_dense(tf.constant([[0, 0], [2, 1]], tf.int64), v)
    with pytest.raises(tf.errors.InvalidArgumentError, match="is out of order|repeated"):
        to_dense(tf.constant([[1, 1], [0, 0]], tf.int64), v)
    assert fill(tf.constant([[0, 0], [0, 1]], tf.int64), v).numpy().tolist() == [False, True]
    with pytest.raises(tf.errors.InvalidArgumentError, match="is invalid"):
        fill(tf.constant([[0, 0], [5, 1]], tf.int64), v)


def test_sparse_ops_on_an_iterators_final_partial_batch():
    """A batch's size is the iterator's to choose: the final, smaller batch gets its own
    dense shape (it was the first batch's), with the body traced once."""
    x = np.arange(10, dtype=np.float32).reshape(5, 2) % 3
    runs = []

    def body(t, it):
        b = next(it)
        sp = t.sparse.from_dense(b)
        return t.sparse.to_dense(t.sparse.concat(1, [sp, sp])), sp.dense_shape

    @tf.function
    def step(it):
        runs.append(1)
        return body(tf, it)

    ref_step = tf_ref.function(lambda it: body(tf_ref, it))
    it = iter(tf.data.Dataset.from_tensor_slices(x).batch(2))
    ref_it = iter(tf_ref.data.Dataset.from_tensor_slices(x).batch(2))
    for _ in range(3):
        got, want = step(it), ref_step(ref_it)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
    assert len(runs) == 1
