"""Sliced assignment (``v[...].assign``) and the ``scatter_*`` methods, against real TF."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

START = np.arange(12, dtype=np.float32).reshape(3, 4)


def _both(fn, start=START):
    """Runs ``fn(module, variable)`` under real TF and torchflow; returns both values."""
    rtf = real_tf()
    out = []
    for mod in (rtf, tf):
        v = mod.Variable(start)
        fn(mod, v)
        out.append(v.numpy())
    return out


SLICES = [
    lambda m, v: v[0, 1].assign(100.0),
    lambda m, v: v[1:, :].assign(m.ones((2, 4))),
    lambda m, v: v[1:, :].assign(5.0),  # broadcast (TF >= 2.7; see assign_slice)
    lambda m, v: v[1:].assign([1.0, 2.0, 3.0, 4.0]),
    lambda m, v: v[0].assign([1, 2, 3, 4]),
    lambda m, v: v[:, ::2].assign(m.zeros((3, 2))),
    lambda m, v: v[::-1, 0].assign([7.0, 8.0, 9.0]),
    lambda m, v: v[..., 1].assign([7.0, 8.0, 9.0]),
    lambda m, v: v[m.newaxis, 0].assign([[7.0, 8.0, 9.0, 1.0]]),
    lambda m, v: v[m.constant(1)].assign([7.0, 8.0, 9.0, 1.0]),
    lambda m, v: v[-1, -2:].assign([-1.0, -2.0]),
    lambda m, v: v[2:1].assign(m.zeros((0, 4))),
    lambda m, v: v[1:3:2, 1::2].assign([[5.0, 6.0]]),
]


@pytest.mark.parametrize("case", range(len(SLICES)))
def test_sliced_assign_matches_tf(case):
    theirs, ours = _both(SLICES[case])
    np.testing.assert_array_equal(ours, theirs)


def test_sliced_assign_returns_variable_and_only_assign():
    v = tf.Variable(START)
    assert v[0].assign([1.0, 2.0, 3.0, 4.0]) is v
    assert hasattr(v[0], "assign")
    # TF's slice has only assign: v[...].assign_add raises AttributeError there too.
    rtf = real_tf()
    for mod in (rtf, tf):
        with pytest.raises(AttributeError):
            mod.Variable(START)[1:].assign_add(mod.ones((2, 4)))
    # The slice is still a tensor with the read value.
    np.testing.assert_array_equal(v[1, 1:3].numpy(), START[1, 1:3])
    assert isinstance(v[0] + 1.0, tf.Tensor)


@pytest.mark.parametrize("fn,err", [
    (lambda m, v: v[1:, :].assign([1.0, 2.0]), "InvalidArgumentError"),
    (lambda m, v: v[5].assign([1.0, 2.0, 3.0, 4.0]), "InvalidArgumentError"),
    (lambda m, v: v[1:].assign(m.ones((2, 4), m.int32)), "ValueError"),
])
def test_sliced_assign_errors_match_tf(fn, err):
    rtf = real_tf()
    msgs = []
    for mod in (rtf, tf):
        with pytest.raises(Exception) as e:
            fn(mod, mod.Variable(START))
        assert type(e.value).__name__ == err
        msgs.append(str(e.value))
    key = msgs[1].split(" [Op:")[0]
    assert key in msgs[0]


def _isl(mod, values, indices):
    return mod.IndexedSlices(mod.constant(values), mod.constant(indices))


SCATTERS = [
    ("scatter_update", [[1.0, 1, 1, 1]], [1]),
    ("scatter_add", [[1.0, 1, 1, 1], [2.0, 2, 2, 2]], [1, 1]),
    ("scatter_sub", [[1.0, 1, 1, 1]], [2]),
    ("scatter_mul", [[2.0, 2, 2, 2], [3.0, 3, 3, 3]], [2, 2]),
    ("scatter_div", [[2.0, 2, 2, 2], [4.0, 4, 4, 4]], [2, 2]),
    ("scatter_min", [[5.0, 5, 50, 50], [3.0, 60, 60, 0]], [2, 2]),
    ("scatter_max", [[20.0, 2, 2, 2], [3.0, 30, 3, 3]], [2, 2]),
    ("scatter_update", [1.0, 1, 1, 1], 1),
    ("scatter_add", 1.0, [1, 0]),
    ("scatter_update", [[[1.0, 2, 3, 4]], [[5.0, 6, 7, 8]]], [[0], [2]]),
    ("batch_scatter_update", [[1.0, 1, 1, 1]], [1]),
]


@pytest.mark.parametrize("case", range(len(SCATTERS)))
def test_scatter_methods_match_tf(case):
    name, values, indices = SCATTERS[case]
    theirs, ours = _both(lambda m, v: getattr(v, name)(_isl(m, values, indices)))
    np.testing.assert_array_equal(ours, theirs)


def test_scatter_on_integer_variable_matches_tf():
    start = np.arange(-6, 6, dtype=np.int32).reshape(4, 3)

    def fn(m, v):
        v.scatter_div(_isl(m, [[2, 2, 2], [-3, 2, 5]], [1, 1]))
        v.scatter_mul(_isl(m, [[2, -2, 2]], [3]))
        v.scatter_nd_add([[0, 0]], [5])
        v[0, 1:].assign([9, 9])

    theirs, ours = _both(fn, start)
    np.testing.assert_array_equal(ours, theirs)


def test_batch_scatter_update_matches_tf():
    theirs, ours = _both(lambda m, v: v.batch_scatter_update(
        _isl(m, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [[0, 1], [2, 3], [1, 0]])))
    np.testing.assert_array_equal(ours, theirs)


ND = [
    ("scatter_nd_update", [[0, 1], [2, 3]], [10.0, 20.0]),
    ("scatter_nd_add", [[0, 1], [0, 1]], [10.0, 20.0]),
    ("scatter_nd_sub", [[1]], [[1.0, 1, 1, 1]]),
    ("scatter_nd_update", [[1]], [[1.0, 1, 1, 1]]),
    ("scatter_nd_max", [[0, 1], [0, 1]], [100.0, 50.0]),
    ("scatter_nd_min", [[0, 1], [2, 2]], [-1.0, 50.0]),
    ("scatter_nd_add", [[[0, 1]], [[1, 1]]], [[1.0], [2.0]]),
]


@pytest.mark.parametrize("case", range(len(ND)))
def test_scatter_nd_methods_match_tf(case):
    name, indices, updates = ND[case]
    theirs, ours = _both(lambda m, v: getattr(v, name)(indices, updates))
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("fn", [
    lambda m, v: v.scatter_update(_isl(m, [[1.0, 1, 1, 1]], [3])),
    lambda m, v: v.scatter_update(_isl(m, [[1.0, 1, 1, 1]], [-1])),
    lambda m, v: v.scatter_nd_update([[1]], [[1.0, 1, 1]]),
    lambda m, v: v.scatter_nd_update([[5, 0]], [1.0]),
    lambda m, v: v.scatter_nd_add([[0, -1]], [1.0]),
])
def test_scatter_errors_match_tf(fn):
    rtf = real_tf()
    msgs = []
    for mod in (rtf, tf):
        with pytest.raises(mod.errors.InvalidArgumentError) as e:
            fn(mod, mod.Variable(START))
        msgs.append(str(e.value))
    assert msgs[1].split(" [Op:")[0] in msgs[0]


def test_scatter_bad_arguments():
    v = tf.Variable(START)
    with pytest.raises(TypeError, match="sparse_delta is not IndexedSlices"):
        v.scatter_update(tf.constant([1.0]))
    # TF 2.21 writes a partial row here without an error; TF's documented contract
    # (updates.shape = indices.shape + params.shape[1:]) is what we check.
    with pytest.raises(tf.errors.InvalidArgumentError, match="Must have updates.shape"):
        v.scatter_update(tf.IndexedSlices(tf.constant([[1.0, 1, 1]]), tf.constant([1])))
    with pytest.raises(TypeError, match="indices"):
        v.scatter_nd_update([[1.0]], [[1.0, 1, 1, 1]])
    np.testing.assert_array_equal(v.numpy(), START)


def test_assignments_under_tape_match_tf():
    rtf = real_tf()
    results = []
    for mod in (rtf, tf):
        v = mod.Variable([1.0, 2.0, 3.0])
        x = mod.constant(3.0)
        with mod.GradientTape(persistent=True) as t:
            t.watch(x)
            y = v * v  # read before the writes: keeps the old value
            v[0].assign(x * 2)
            v.scatter_nd_add([[1]], [x])
            v.assign_add([1.0, 1.0, 1.0])
            z = mod.reduce_sum(v * v)
        gy, gz = t.gradient(y, v), t.gradient(z, [x, v])
        results.append((gy.numpy(), gz[0], gz[1].numpy(), v.numpy()))
    (ty, tx, tz, tv), (oy, ox, oz, ov) = results
    np.testing.assert_allclose(oy, ty)
    assert tx is None and ox is None  # assignment cuts the path from x
    np.testing.assert_allclose(oz, tz)
    np.testing.assert_allclose(ov, tv)


def test_assignments_in_tf_function_match_tf():
    rtf = real_tf()
    results = []
    for mod in (rtf, tf):
        v = mod.Variable([1.0, 2.0, 3.0])

        @mod.function
        def step(a, v=v, mod=mod):
            v[1:].assign(v[1:] + a)
            v.scatter_nd_add([[0]], [a])
            v.scatter_max(mod.IndexedSlices(mod.stack([a * 10.0]), mod.constant([2])))
            return v.read_value()

        step(mod.constant(1.0))
        results.append(step(mod.constant(2.0)).numpy())
    np.testing.assert_allclose(results[1], results[0])


def test_indexed_slices_converts_like_tf():
    rtf = real_tf()
    args = ([[1.0, 2.0], [3.0, 4.0]], [2, 2], [3, 2])
    ours = tf.IndexedSlices(*[tf.constant(a) for a in args])
    theirs = rtf.IndexedSlices(*[rtf.constant(a) for a in args])
    np.testing.assert_array_equal(tf.convert_to_tensor(ours).numpy(),
                                  rtf.convert_to_tensor(theirs).numpy())
    assert ours.shape.as_list() == theirs.shape.as_list() == [3, 2]
    assert ours.dtype == tf.float32
