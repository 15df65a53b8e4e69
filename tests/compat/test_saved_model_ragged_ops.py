"""Ragged ops in SavedModels, both ways with real TF (issues 15, 16): reductions over
axis 0 and of booleans, ragged tensors built inside the function from dense
``TensorSpec`` arguments, ``tf.ragged.range``, ``tf.strings.split``.

Each case is a ``tf.Module`` built with the same code under real TF 2.21 and
torchflow. torchflow's SavedModel is loaded by real TF and by torchflow and called
with inputs other than the dry trace's stand-ins; the outputs must equal the
function run eagerly under real TF.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

ROWS = [[1.0, 4.0, 3.0], [], [2.0, -1.0]]
FLAGS = [[True, False], [], [True, True], [False]]


def _values(x):
    if hasattr(x, "to_list"):
        return x.to_list()
    return np.asarray(x).tolist()


def _same(a, b):
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
        return
    np.testing.assert_equal(_values(a), _values(b))


def _module(lib, sig, fn):
    m = lib.Module()
    m.f = lib.function(fn, input_signature=sig)
    return m


def _reductions_axis0(lib):
    spec = [lib.RaggedTensorSpec([None, None], lib.float32)]
    return spec, lambda rt: (lib.reduce_sum(rt, axis=0), lib.reduce_max(rt, axis=0),
                             lib.reduce_min(rt, axis=0), lib.reduce_mean(rt, axis=0),
                             lib.reduce_sum(rt, axis=0, keepdims=True)), \
        (lib.ragged.constant(ROWS),)


def _reductions_bool(lib):
    spec = [lib.RaggedTensorSpec([None, None], lib.bool)]
    return spec, lambda rt: (lib.reduce_all(rt, axis=1), lib.reduce_any(rt, axis=1),
                             lib.reduce_all(rt, axis=0), lib.reduce_any(rt, axis=-1)), \
        (lib.ragged.constant(FLAGS),)


def _from_row_lengths(lib):
    """A ragged tensor built from two dense arguments (the dry trace's zeros are no
    valid partition): its sum over rows, and the ragged result itself as dense."""
    spec = [lib.TensorSpec([None], lib.float32), lib.TensorSpec([None], lib.int64)]

    def f(values, lengths):
        rt = lib.RaggedTensor.from_row_lengths(values, lengths)
        return lib.reduce_sum(rt, axis=1), rt.to_tensor(-1.0), rt.row_splits

    return spec, f, (lib.constant([1.0, 2.0, 3.0, 4.0, 5.0]), lib.constant([2, 0, 3], lib.int64))


def _from_row_splits(lib):
    """The guide's backwards-compatible form (cell 39), written by torchflow."""
    spec = [lib.TensorSpec([None], lib.int32), lib.TensorSpec([None], lib.int64)]

    def f(values, splits):
        return lib.reduce_sum(lib.RaggedTensor.from_row_splits(values, splits) + 1, axis=1)

    return spec, f, (lib.constant([1, 2, 3, 4, 5, 6]), lib.constant([0, 2, 3, 6], lib.int64))


def _from_value_rowids(lib):
    spec = [lib.TensorSpec([None], lib.float32), lib.TensorSpec([None], lib.int32),
            lib.TensorSpec([], lib.int32)]

    def f(values, ids, n):
        a = lib.RaggedTensor.from_value_rowids(values, ids)
        b = lib.RaggedTensor.from_value_rowids(values, ids, nrows=n)
        return a.to_tensor(), lib.reduce_max(b, axis=1), b.row_lengths()

    return spec, f, (lib.constant([1.0, 2.0, 3.0, 4.0]), lib.constant([0, 0, 2, 2]),
                     lib.constant(5))


def _ragged_range(lib):
    spec = [lib.TensorSpec([None], lib.int32), lib.TensorSpec([None], lib.int32)]

    def f(starts, limits):
        a = lib.ragged.range(limits)
        b = lib.ragged.range(starts, limits, 2)
        return a.to_tensor(), b.flat_values, b.row_splits

    return spec, f, (lib.constant([0, 3, 1]), lib.constant([4, 3, 6]))


def _strings_split(lib):
    spec = [lib.TensorSpec([None], lib.string)]

    def f(s):
        words = lib.strings.split(s)
        cols = lib.strings.split(s, sep=",", maxsplit=1)
        return words.to_tensor(), words.row_splits, cols.to_tensor("?")

    return spec, f, (lib.constant(["a b  c", "", "x,y,z w", "  lone "]),)


CASES = [_reductions_axis0, _reductions_bool, _from_row_lengths, _from_row_splits,
         _from_value_rowids, _ragged_range, _strings_split]


@pytest.mark.parametrize("build", CASES, ids=lambda f: f.__name__.strip("_"))
def test_saved_by_torchflow_serves_in_tf_and_torchflow(build, tmp_path):
    rtf = real_tf()
    rsig, rfn, rargs = build(rtf)
    want = rfn(*rargs)  # real TF, eagerly
    sig, fn, args = build(tf)
    _same(fn(*args), want)
    tf.saved_model.save(_module(tf, sig, fn), str(tmp_path))
    _same(rtf.saved_model.load(str(tmp_path)).f(*rargs), want)
    _same(tf.saved_model.load(str(tmp_path)).f(*args), want)


@pytest.mark.parametrize("build", CASES, ids=lambda f: f.__name__.strip("_"))
def test_saved_by_tf_serves_in_torchflow(build, tmp_path):
    rtf = real_tf()
    rsig, rfn, rargs = build(rtf)
    want = rfn(*rargs)
    rtf.saved_model.save(_module(rtf, rsig, rfn), str(tmp_path))
    _, _, args = build(tf)
    _same(tf.saved_model.load(str(tmp_path)).f(*args), want)


def test_factory_of_dense_arguments_traces_calls_and_validates():
    """After the dry trace (get_concrete_function) stood invalid zeros in, calls of the
    function give TF's values, and invalid partitions still raise TF's error."""
    rtf = real_tf()
    for lib in (tf, rtf):
        sig, fn, args = _from_row_lengths(lib)
        f = lib.function(fn, input_signature=sig)
        f.get_concrete_function()
        _same(f(*args), fn(*args))
        with pytest.raises(lib.errors.InvalidArgumentError):
            f(lib.constant([1.0, 2.0]), lib.constant([2, 1], lib.int64))
    sig, fn, args = _from_row_lengths(tf)
    _same(tf.function(fn, input_signature=sig)(*args), _from_row_lengths(rtf)[1](
        *_from_row_lengths(rtf)[2]))
