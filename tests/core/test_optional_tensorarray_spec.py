"""tf.OptionalSpec and tf.TensorArraySpec against real TensorFlow."""

import pytest
import tensorflow as tf_ref

import torchflow as tf


def test_optional_spec_from_value_matches_tf():
    o = tf.experimental.Optional.from_value(tf.constant(3))
    ro = tf_ref.experimental.Optional.from_value(tf_ref.constant(3))
    spec, rspec = tf.OptionalSpec.from_value(o), tf_ref.OptionalSpec.from_value(ro)
    assert repr(spec) == repr(rspec) == \
        "OptionalSpec(TensorSpec(shape=(), dtype=tf.int32, name=None),)"
    assert isinstance(spec, tf.TypeSpec)
    assert spec.value_type is tf.experimental.Optional


def test_optional_spec_equality_and_compatibility():
    a = tf.OptionalSpec(tf.TensorSpec([2], tf.float32))
    b = tf.OptionalSpec(tf.TensorSpec([2], tf.float32))
    c = tf.OptionalSpec(tf.TensorSpec([None], tf.float32))
    d = tf.OptionalSpec(tf.TensorSpec([2], tf.int32))
    ra = tf_ref.OptionalSpec(tf_ref.TensorSpec([2], tf_ref.float32))
    rc = tf_ref.OptionalSpec(tf_ref.TensorSpec([None], tf_ref.float32))
    rd = tf_ref.OptionalSpec(tf_ref.TensorSpec([2], tf_ref.int32))
    assert (a == b) and hash(a) == hash(b)
    assert (a == c) == (ra == rc) is False
    assert c.is_compatible_with(a) == rc.is_compatible_with(ra) is True
    assert a.is_compatible_with(d) == ra.is_compatible_with(rd) is False
    assert a.element_spec == tf.TensorSpec([2], tf.float32)
    empty = tf.experimental.Optional.empty(tf.TensorSpec([2], tf.float32))
    assert tf.OptionalSpec.from_value(empty) == a
    assert c.is_compatible_with(empty)


def test_optional_spec_nested():
    o = tf.experimental.Optional.from_value({"x": tf.constant([1.0]), "y": tf.constant("s")})
    ro = tf_ref.experimental.Optional.from_value(
        {"x": tf_ref.constant([1.0]), "y": tf_ref.constant("s")})
    assert repr(tf.OptionalSpec.from_value(o)) == repr(tf_ref.OptionalSpec.from_value(ro))


def test_optional_and_tensor_array_stay_nest_leaves():
    # Neither is a composite here (no components): nest keeps them whole.
    o = tf.experimental.Optional.from_value(tf.constant(1))
    ta = tf.TensorArray(tf.int32, size=1)
    assert tf.nest.flatten([o, ta], expand_composites=True) == [o, ta]


def test_optional_spec_from_value_rejects_non_optional():
    with pytest.raises(TypeError):
        tf.OptionalSpec.from_value(3)


def test_tensor_array_spec_defaults_and_repr_match_tf():
    assert repr(tf.TensorArraySpec()) == repr(tf_ref.TensorArraySpec()) == \
        "TensorArraySpec(TensorShape(None), tf.float32, False, True)"
    args = ([2, None], tf.int64, True, False)
    rargs = ([2, None], tf_ref.int64, True, False)
    assert repr(tf.TensorArraySpec(*args)) == repr(tf_ref.TensorArraySpec(*rargs))
    assert tf.TensorArraySpec().value_type is tf.TensorArray
    assert isinstance(tf.TensorArraySpec(), tf.TypeSpec)


def test_tensor_array_spec_from_value_matches_tf():
    ta = tf.TensorArray(tf.int32, size=2)
    rta = tf_ref.TensorArray(tf_ref.int32, size=2)
    assert repr(tf.TensorArraySpec.from_value(ta)) == repr(tf_ref.TensorArraySpec.from_value(rta))
    ta = ta.write(0, [1, 2])
    rta = rta.write(0, [1, 2])
    assert repr(tf.TensorArraySpec.from_value(ta)) == repr(tf_ref.TensorArraySpec.from_value(rta))
    dyn = tf.TensorArray(tf.float32, size=0, dynamic_size=True, infer_shape=False)
    rdyn = tf_ref.TensorArray(tf_ref.float32, size=0, dynamic_size=True, infer_shape=False)
    assert repr(tf.TensorArraySpec.from_value(dyn)) == \
        repr(tf_ref.TensorArraySpec.from_value(rdyn))
    with pytest.raises(TypeError, match="Expected value to be a TensorArray"):
        tf.TensorArraySpec.from_value(3)


def test_tensor_array_spec_equality_and_compatibility():
    cases = [(([2], "int32"), ([2], "int32")), (([2], "int32"), ([3], "int32")),
             (([None], "int32"), ([2], "int32")), ((None, "int32"), ([2], "float32"))]
    for (s1, d1), (s2, d2) in cases:
        a, b = tf.TensorArraySpec(s1, d1), tf.TensorArraySpec(s2, d2)
        ra, rb = tf_ref.TensorArraySpec(s1, d1), tf_ref.TensorArraySpec(s2, d2)
        assert (a == b) == (ra == rb)
        assert a.is_compatible_with(b) == ra.is_compatible_with(rb)
    assert hash(tf.TensorArraySpec([2])) == hash(tf.TensorArraySpec([2]))
    assert tf.TensorArraySpec([2]) != tf.TensorArraySpec([2], dynamic_size=True)
    ta = tf.TensorArray(tf.float32, size=1).write(0, [1.0, 2.0])
    assert tf.TensorArraySpec([None]).is_compatible_with(ta)
