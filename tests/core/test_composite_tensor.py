"""tf.TypeSpec, CompositeTensor, tf.type_spec_from_value and nest's expand_composites."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core.composite_tensor import CompositeTensor


class _PairSpec(tf.TypeSpec):
    """A toy composite: two tensors of one dtype, with a shape each."""

    __slots__ = ("_a", "_b")

    def __init__(self, a, b):
        self._a, self._b = a, b

    value_type = property(lambda self: _Pair)
    _component_specs = property(lambda self: (self._a, self._b))

    def _serialize(self):
        return (self._a, self._b)

    def _to_components(self, value):
        return (value.a, value.b)

    def _from_components(self, components):
        return _Pair(*components)


class _Pair(CompositeTensor):
    def __init__(self, a, b):
        self.a, self.b = a, b

    @property
    def _type_spec(self):
        return _PairSpec(tf.TensorSpec.from_tensor(self.a), tf.TensorSpec.from_tensor(self.b))


def test_tensorspec_is_a_typespec():
    s = tf.TensorSpec([None, 2], tf.int32)
    assert isinstance(s, tf.TypeSpec)
    assert s.value_type is tf.Tensor
    assert s == tf.TensorSpec([None, 2], tf.int32) and hash(s) == hash(tf.TensorSpec([None, 2],
                                                                                      tf.int32))
    assert s._batch(3) == tf.TensorSpec([3, None, 2], tf.int32)
    assert s._unbatch() == tf.TensorSpec([2], tf.int32)


def test_type_spec_from_value_against_tf():
    from torchflow._src.testing import real_tf
    rtf = real_tf()
    for v in ([1, 2], 3.0, np.zeros((2, 3), np.float32), [[b"a"]]):
        want = rtf.type_spec_from_value(v)
        got = tf.type_spec_from_value(v)
        assert repr(got) == repr(want)
    # TF 2.4's message (2.21 says "of unsupported type <class 'object'>.").
    with pytest.raises(TypeError, match="Could not build a TypeSpec for .* with type object"):
        tf.type_spec_from_value(object())


def test_serialization_based_eq_hash_repr_compat():
    a = _PairSpec(tf.TensorSpec([2], tf.int32), tf.TensorSpec([None], tf.float32))
    b = _PairSpec(tf.TensorSpec([2], tf.int32), tf.TensorSpec([None], tf.float32))
    c = _PairSpec(tf.TensorSpec([3], tf.int32), tf.TensorSpec([4], tf.float32))
    assert a == b and hash(a) == hash(b) and a != c
    assert repr(a).startswith("_PairSpec(TensorSpec(shape=(2,)")
    assert not a.is_compatible_with(c)
    assert a.is_compatible_with(_PairSpec(tf.TensorSpec([2], tf.int32),
                                          tf.TensorSpec([7], tf.float32)))
    m = a.most_specific_compatible_type(c)
    assert m == _PairSpec(tf.TensorSpec([None], tf.int32), tf.TensorSpec([None], tf.float32))
    with pytest.raises(ValueError, match="No TypeSpec is compatible with both"):
        a.most_specific_compatible_type(tf.TensorSpec([2], tf.int32))
    v = _Pair(tf.constant([1, 2]), tf.constant([1.0]))
    assert a.is_compatible_with(v) and tf.type_spec_from_value(v) == v._type_spec
    assert not a.is_compatible_with(tf.constant([1, 2]))


def test_nest_expand_composites():
    v = _Pair(tf.constant([1, 2]), tf.constant([1.0]))
    s = {"x": v, "y": tf.constant(3)}
    assert len(tf.nest.flatten(s)) == 2
    flat = tf.nest.flatten(s, expand_composites=True)
    assert [f.numpy().tolist() for f in flat] == [[1, 2], [1.0], 3]
    back = tf.nest.pack_sequence_as(s, [f * 2 for f in flat], expand_composites=True)
    assert isinstance(back["x"], _Pair) and back["x"].a.numpy().tolist() == [2, 4]
    doubled = tf.nest.map_structure(lambda t: t + t, s, expand_composites=True)
    assert doubled["x"].b.numpy().tolist() == [2.0]
