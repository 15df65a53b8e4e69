"""Ragged ops in SavedModels, both ways with real TF (issues 15, 16): reductions over
axis 0 and of booleans, ragged tensors built inside the function from dense
``TensorSpec`` arguments, ``tf.ragged.range``, ``tf.strings.split``, ``tf.concat``
along axis 0, ``tf.gather`` of rows, ``merge_dims``, ``tf.strings.ngrams``,
``tf.ragged.boolean_mask``.

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


def _concat_gather_merge(lib):
    """concat along axis 0, gather of rows, merge_dims of a ragged-rank-2 tensor."""
    spec = [lib.RaggedTensorSpec([None, None], lib.float32),
            lib.RaggedTensorSpec([None, None], lib.float32), lib.TensorSpec([None], lib.int32),
            lib.RaggedTensorSpec([None, None, None], lib.int32, ragged_rank=2)]

    def f(a, b, idx, r2):
        cat = lib.concat([a, b, a], axis=0)
        g = lib.gather(a, idx)
        return (cat.to_tensor(), cat.row_splits, g.to_tensor(), g.row_splits,
                r2.merge_dims(1, 2).to_tensor(), r2.merge_dims(0, 1).row_splits)

    r2 = lib.ragged.constant([[[1, 2], [3]], [], [[4], [], [5, 6]]], ragged_rank=2)
    return spec, f, (lib.ragged.constant(ROWS), lib.ragged.constant([[7.0], [8.0, 9.0]]),
                     lib.constant([2, 0, 2, 1]), r2)


def _ngrams(lib):
    """tf.strings.ngrams of split words (TF's StringNGrams): widths, padding, short rows."""
    spec = [lib.TensorSpec([None], lib.string)]

    def f(s):
        w = lib.strings.split(s)
        return (lib.strings.ngrams(w, 2).to_tensor(), lib.strings.ngrams(w, (1, 3)).row_splits,
                lib.strings.ngrams(w, 3, separator="_", pad_values="#").to_tensor(),
                lib.strings.ngrams(w, 3, pad_values=("<", ">"), padding_width=1).flat_values,
                lib.strings.ngrams(w, 4, preserve_short_sequences=True).to_tensor())

    return spec, f, (lib.constant(["a b c d", "", "x y", "one"]),)


def _stack(lib):
    """tf.stack / tf.ragged.stack along axis 0: ragged parts, and dense vectors."""
    spec = [lib.RaggedTensorSpec([None, None], lib.float32),
            lib.RaggedTensorSpec([None, None], lib.float32), lib.TensorSpec([None], lib.int32),
            lib.TensorSpec([None], lib.int32)]

    def f(a, b, u, v):
        st = lib.stack([a, b], axis=0)
        dv = lib.ragged.stack([u, v, u])
        return st.to_tensor(), st.row_splits, st.values.row_splits, dv.to_tensor(), \
            dv.row_splits

    return spec, f, (lib.ragged.constant(ROWS), lib.ragged.constant([[7.0], [8.0, 9.0]]),
                     lib.constant([1, 2, 3]), lib.constant([4]))


def _from_nested(lib):
    """Two ragged dimensions built from three dense arguments (nested factories)."""
    spec = [lib.TensorSpec([None], lib.float32), lib.TensorSpec([None], lib.int64),
            lib.TensorSpec([None], lib.int64)]

    def f(values, outer, inner):
        rt = lib.RaggedTensor.from_nested_row_lengths(values, [outer, inner])
        return lib.reduce_sum(rt, axis=2).to_tensor(), rt.merge_dims(1, 2).to_tensor()

    return spec, f, (lib.constant([1.0, 2.0, 3.0, 4.0, 5.0]), lib.constant([2, 0, 1], lib.int64),
                     lib.constant([3, 0, 2], lib.int64))


def _boolean_mask(lib):
    spec = [lib.RaggedTensorSpec([None, None], lib.float32)]

    def f(rt):
        kept = lib.ragged.boolean_mask(rt, rt > 1.5)
        return kept.to_tensor(), kept.row_splits

    return spec, f, (lib.ragged.constant(ROWS),)


CASES = [_boolean_mask, _from_nested, _stack, _ngrams, _reductions_axis0, _reductions_bool, _from_row_lengths, _from_row_splits,
         _from_value_rowids, _ragged_range, _strings_split, _concat_gather_merge]


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


def test_comparison_functions_save(tmp_path):
    """tf.math.less/less_equal/greater/greater_equal (and ragged ``>``) are TF's ops in a
    saved graph: greater's lowering read an ``op`` argument it no longer has (a raw
    KeyError at save) and the other three had none."""
    rtf = real_tf()

    def f(lib):
        return lambda x, rt: (lib.math.greater(x, 1.0), lib.math.less(x, 1.0),
                              lib.math.less_equal(x, 1.0), lib.math.greater_equal(x, 1.0),
                              lib.reduce_any(rt > 1.0, axis=1))

    sig = [tf.TensorSpec([None], tf.float32), tf.RaggedTensorSpec([None, None], tf.float32)]
    tf.saved_model.save(_module(tf, sig, f(tf)), str(tmp_path))
    x, rt = rtf.constant([0.0, 1.0, 2.0]), rtf.ragged.constant(ROWS)
    _same(rtf.saved_model.load(str(tmp_path)).f(x, rt), f(rtf)(x, rt))
