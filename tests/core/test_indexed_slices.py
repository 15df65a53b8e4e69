"""tf.IndexedSlices as a composite tensor and tf.IndexedSlicesSpec, against real TF."""

from __future__ import annotations

import pytest

import torchflow
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
