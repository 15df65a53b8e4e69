"""TF's quantized dtypes (qint8, quint8, qint16, quint16, qint32) and
QUANTIZED_DTYPES against real tf.dtypes."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

NAMES = ["qint8", "quint8", "qint16", "quint16", "qint32"]


@pytest.mark.parametrize("name", NAMES)
def test_quantized_dtype_matches_tf(name):
    t = real_tf()
    d, w = getattr(tf.dtypes, name), getattr(t.dtypes, name)
    assert getattr(tf, name) is d
    assert d.name == w.name and d.as_datatype_enum == w.as_datatype_enum
    assert repr(d) == repr(w) and str(d) == str(w)
    for prop in ("is_quantized", "is_integer", "is_floating", "is_unsigned", "is_complex",
                 "is_bool", "is_numpy_compatible", "size"):
        assert getattr(d, prop) == getattr(w, prop), prop
    assert np.dtype(d.as_numpy_dtype) == np.dtype(w.as_numpy_dtype)
    for prop in ("min", "max"):
        with pytest.raises(TypeError):
            getattr(w, prop)
        with pytest.raises(TypeError):
            getattr(d, prop)
    assert tf.as_dtype(name) is d
    assert tf.as_dtype(w.as_datatype_enum) is d
    assert tf.as_dtype(w.as_numpy_dtype) is d
    assert d in tf.dtypes.QUANTIZED_DTYPES and d != tf.int8


def test_quantized_set_matches_tf_without_refs():
    t = real_tf()
    # TF's set also holds the *_ref dtypes (TF 1 reference types) torchflow lacks.
    want = {d.name for d in t.dtypes.QUANTIZED_DTYPES if not d.name.endswith("_ref")}
    assert {d.name for d in tf.dtypes.QUANTIZED_DTYPES} == want
    assert tf.QUANTIZED_DTYPES is tf.dtypes.QUANTIZED_DTYPES
    assert not tf.int8.is_quantized and not tf.float32.is_quantized
