"""Python operators on tf.Tensor: differential tests against real TF (values, dtypes,
error types), reflected operands, ==/!= semantics and hashing."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf
from tests.ops._math_helpers import compare, rand

OPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
    "|": operator.or_, "^": operator.xor, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
}


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return "err", type(e).__name__


def _check(ours, theirs):
    assert ours[0] == theirs[0], f"torchflow {ours} vs TF {theirs}"
    if ours[0] == "err":
        assert ours[1] == theirs[1]
    else:
        compare(ours[1], theirs[1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("sym", list(OPS))
def test_binary_operators_match_tf(sym):
    rtf = real_tf()
    op = OPS[sym]
    for dt in ["float32", "float64", "int8", "int32", "int64", "uint8", "bool", "complex64"]:
        x = rand((2, 3), dt, seed=30, low=1, high=4)
        y = rand((3,), dt, seed=31, low=1, high=4)
        if dt.startswith("uint") or dt.startswith("int"):
            y = np.maximum(y, 1).astype(dt)
        ours = _outcome(lambda: op(tf.constant(x), tf.constant(y)))
        theirs = _outcome(lambda: op(rtf.constant(x), rtf.constant(y)))
        _check(ours, theirs)


@pytest.mark.parametrize("sym", ["+", "-", "*", "/", "//", "%", "**", "<", "==", "&"])
def test_python_scalars_on_either_side(sym):
    rtf = real_tf()
    op = OPS[sym]
    for dt, scalars in [("float32", [2, 2.5]), ("int32", [3]), ("int64", [2]),
                        ("bool", [True])]:
        x = rand((4,), dt, seed=32, low=1, high=4)
        for s in scalars:
            _check(_outcome(lambda: op(tf.constant(x), s)),
                   _outcome(lambda: op(rtf.constant(x), s)))
            _check(_outcome(lambda: op(s, tf.constant(x))),
                   _outcome(lambda: op(s, rtf.constant(x))))


def test_float_scalar_into_int_tensor_is_type_error():
    # TF 2.4 raises TypeError here (newer TF raises InvalidArgumentError).
    with pytest.raises(TypeError):
        tf.constant([1, 2]) + 1.5
    with pytest.raises(TypeError):
        1.5 * tf.constant([1, 2])


@pytest.mark.parametrize("fn", [operator.neg, operator.abs, operator.invert])
def test_unary_operators_match_tf(fn):
    rtf = real_tf()
    for dt in ["float32", "int8", "int32", "uint8", "bool", "complex64"]:
        x = rand((5,), dt, seed=33)
        _check(_outcome(lambda: fn(tf.constant(x))), _outcome(lambda: fn(rtf.constant(x))))


def test_matmul_operator():
    rtf = real_tf()
    a = rand((2, 3), "float32", seed=34)
    b = rand((3, 4), "float32", seed=35)
    _check(_outcome(lambda: tf.constant(a) @ tf.constant(b)),
           _outcome(lambda: rtf.constant(a) @ rtf.constant(b)))
    _check(_outcome(lambda: tf.constant(a) @ tf.constant(a)),
           _outcome(lambda: rtf.constant(a) @ rtf.constant(a)))


def test_equality_semantics():
    t = tf.constant([1, 2, 3])
    assert (t == None) is False  # noqa: E711 - the operator is what is tested
    assert (t != None) is True  # noqa: E711
    r = t == tf.constant([1, 2])
    assert r.shape == [] and not bool(r)
    assert bool(t != tf.constant([1, 2]))
    assert (t == [1, 0, 3]).numpy().tolist() == [True, False, True]
    with pytest.raises(TypeError):
        t == "a"  # noqa: B015
    with pytest.raises(tf.errors.InvalidArgumentError):
        t == tf.constant([1.0, 2.0, 3.0])  # noqa: B015
    with pytest.raises(TypeError):
        hash(t)
    assert t.ref() in {t.ref()}


def test_numpy_array_on_the_left_uses_tensor_operator():
    f = tf.constant([1.0, 2.0])
    r = np.array([1.0, 2.0]) + f
    assert isinstance(r, tf.Tensor) and r.dtype == tf.float32
    assert (np.array([1, 2]) * f).numpy().tolist() == [1.0, 4.0]


def test_reflected_operator_of_foreign_object_is_tried():
    class Foreign:
        def __radd__(self, other):
            return "radd"

    assert tf.constant([1.0]) + Foreign() == "radd"


def test_unary_plus_is_not_defined():
    with pytest.raises(TypeError):
        +tf.constant([1])  # noqa: B018
