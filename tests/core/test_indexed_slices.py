"""tf.IndexedSlices as a composite tensor and tf.IndexedSlicesSpec, against real TF."""

from __future__ import annotations

import warnings

import pytest

import torchflow
from torchflow._src.core import indexed_slices as ours
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _program(tf):
    s = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
    s2 = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]))
    doubled = tf.nest.map_structure(lambda t: t * 2 if t.dtype == tf.float32 else t, s,
                                    expand_composites=True)
    spec = tf.IndexedSlicesSpec([None, 2], tf.float32, tf.int32, tf.int64, [None])
    return [repr(s._type_spec), repr(s2._type_spec),
            [x.numpy().tolist() for x in tf.nest.flatten(s, expand_composites=True)],
            type(doubled).__name__, doubled.values.numpy().tolist(),
            repr(tf.IndexedSlicesSpec([None, 2], tf.float32)), repr(spec),
            spec.is_compatible_with(s), s._type_spec.is_compatible_with(s),
            tf.convert_to_tensor(s).numpy().tolist()]


def test_indexed_slices_composite_matches_tf():
    assert _program(torchflow) == _program(real_tf())


def _convert_warnings(tf):
    s = tf.IndexedSlices(tf.ones([2, 3]), tf.constant([0, 4]), tf.constant([6, 3]))
    with warnings.catch_warnings(record=True) as eager:
        warnings.simplefilter("always")
        tf.convert_to_tensor(s)

    @tf.function
    def f():
        return tf.convert_to_tensor(s) + 1.0

    with warnings.catch_warnings(record=True) as traced:
        warnings.simplefilter("always")
        f()
    return ([str(w.message) for w in eager if "IndexedSlices" in str(w.message)],
            [str(w.message) for w in traced if "IndexedSlices" in str(w.message)])


def test_densifying_large_indexed_slices_warns_in_functions_only(monkeypatch):
    rtf = real_tf()
    from tensorflow.python.framework import indexed_slices as tf_is  # the reference's

    monkeypatch.setattr(tf_is, "_LARGE_SPARSE_NUM_ELEMENTS", 10)
    monkeypatch.setattr(ours, "_LARGE_SPARSE_NUM_ELEMENTS", 10)
    want = _convert_warnings(rtf)
    got = _convert_warnings(torchflow)
    assert want[0] == [] and len(want[1]) == 1
    assert got == want
