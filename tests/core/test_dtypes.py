"""tf.DType properties and as_dtype against real TensorFlow's DType."""

import numpy as np
import pytest
import torch

import torchflow as tf
from torchflow._src.core import dtypes
from torchflow._src.testing import real_tf

NAMES = ["float16", "float32", "float64", "bfloat16", "complex64", "complex128", "int8",
         "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool", "string",
         "resource", "variant"]
PROPS = ["name", "is_floating", "is_integer", "is_unsigned", "is_complex", "is_bool",
         "is_quantized", "is_numpy_compatible", "size", "as_datatype_enum", "min", "max",
         "limits", "as_numpy_dtype", "real_dtype", "base_dtype"]


def _get(obj, prop):
    try:
        v = getattr(obj, prop)
    except Exception as e:  # noqa: BLE001 - the exception type is what we compare
        return ("raises", type(e).__name__)
    if prop in ("real_dtype", "base_dtype"):
        return v.name
    if prop == "as_numpy_dtype":
        return None if v is None else np.dtype(v)
    return v


# TF raises KeyError from an internal table for these; torchflow answers None /
# ValueError, which is what the properties document.
OWN_ANSWERS = {("resource", "as_numpy_dtype"): None, ("variant", "as_numpy_dtype"): None,
               ("resource", "limits"): ("raises", "ValueError"),
               ("variant", "limits"): ("raises", "ValueError")}


@pytest.mark.parametrize("prop", PROPS)
@pytest.mark.parametrize("name", NAMES)
def test_property_matches_tf(name, prop):
    rtf = real_tf()
    ours = _get(getattr(tf.dtypes, name), prop)
    if (name, prop) in OWN_ANSWERS:
        assert ours == OWN_ANSWERS[(name, prop)]
        return
    theirs = _get(getattr(rtf.dtypes, name), prop)
    assert ours == theirs


@pytest.mark.parametrize("name", NAMES)
def test_str_repr_hash_and_pickle(name):
    import pickle

    rtf = real_tf()
    d = getattr(tf.dtypes, name)
    assert str(d) == str(getattr(rtf.dtypes, name))
    assert repr(d) == repr(getattr(rtf.dtypes, name))
    assert pickle.loads(pickle.dumps(d)) is d
    assert {d: 1}[dtypes.as_dtype(name)] == 1


SPELLINGS = ["float32", "float", "half", "double", "int32", "bool", "string", "complex64",
             np.float32, np.int64, np.bool_, np.complex128, np.uint16, np.dtype("float16"),
             np.dtype("U3"), np.dtype("S2"), float, bool, object, 1, 3, 9,
             "not_a_dtype", 12345, object()]


def _id(v):
    return "object_instance" if type(v) is object else repr(v)  # stable across xdist workers


# Accepted by torchflow although TF raises TypeError (cost nothing, and
# tf.constant infers these Python types the same way).
EXTENSIONS = {int: "int64", complex: "complex128", str: "string", bytes: "string"}


@pytest.mark.parametrize("value", list(EXTENSIONS), ids=_id)
def test_as_dtype_python_type_extensions(value):
    assert tf.as_dtype(value).name == EXTENSIONS[value]


@pytest.mark.parametrize("value", [v for v in SPELLINGS if v not in EXTENSIONS], ids=_id)
def test_as_dtype_matches_tf(value):
    rtf = real_tf()
    try:
        theirs = rtf.as_dtype(value).name
    except (TypeError, ValueError) as e:
        theirs = type(e)
    try:
        ours = tf.as_dtype(value).name
    except (TypeError, ValueError) as e:
        ours = type(e)
    assert ours == theirs


@pytest.mark.parametrize("name", [n for n in NAMES if n not in ("string", "resource", "variant")])
def test_as_dtype_from_torch(name):
    d = getattr(tf, name)
    assert tf.as_dtype(d.torch_dtype) is d
    assert d.torch_dtype.is_floating_point == d.is_floating


def test_equality_with_other_spellings():
    assert tf.float32 == "float32" and tf.float32 == np.float32 and tf.float32 != tf.float64
    assert tf.float32 != "nonsense" and tf.float32 != None  # noqa: E711
    assert tf.int64.is_compatible_with(np.int64) and not tf.int64.is_compatible_with(tf.int32)
    assert tf.float32 == torch.float32


def test_public_names():
    rtf = real_tf()
    for n in NAMES + ["DType", "as_dtype", "half", "double"]:
        assert hasattr(tf.dtypes, n) and hasattr(rtf.dtypes, n)
    assert tf.dtypes.float32 is tf.float32
    assert tf.dtypes.DType.__module__ == "torchflow.dtypes"
