"""Python operators on tf.Tensor: differential tests against real TF (values, dtypes,
error types), reflected operands, ==/!= semantics and hashing."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import torchflow as tf
from tests.ops._math_helpers import compare, make, rand, to_np
from torchflow._src.testing import real_tf

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
        +tf.constant([1])


SCALAR_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
              "**": operator.pow}


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("sym", list(SCALAR_OPS))
def test_python_float_scalar_is_rounded_to_the_tensor_dtype_first(sym, dt):
    # TF converts the Python number to the tensor's dtype before the op; the fast
    # operator paths (cached 0-d operands) must give TF's bits, on either side. (With
    # the number kept in float32 the half-precision results differ in the last bit.)
    rtf = real_tf()
    op = SCALAR_OPS[sym]
    x = rand((64,), "float32", seed=33, low=0.5, high=3.0)
    for s in [0.1, 0.9, 1e-7, 3, 2.5, float("inf")]:
        for ours, theirs in [(op(make(tf, x, dt), s), op(make(rtf, x, dt), s)),
                             (op(s, make(tf, x, dt)), op(s, make(rtf, x, dt)))]:
            assert ours.dtype.name == dt
            if sym == "**":  # libm vs Eigen pow: within an ulp or two of the same operands
                rtol = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 3e-7, "float64": 1e-15}
                np.testing.assert_allclose(to_np(ours), to_np(theirs), rtol=rtol[dt])
            else:
                np.testing.assert_array_equal(to_np(ours), to_np(theirs))


def test_signed_zero_scalars_keep_their_sign():
    x = tf.constant([1.0, -2.0])
    np.testing.assert_array_equal(np.signbit((x * -0.0).numpy()), [True, False])
    np.testing.assert_array_equal(np.signbit((-0.0 * x).numpy()), [True, False])
    np.testing.assert_array_equal(np.signbit((x * 0.0).numpy()), [False, True])
    np.testing.assert_array_equal((1.0 / (0.0 * x)).numpy(), [np.inf, -np.inf])


def test_variables_on_either_side_of_an_operator():
    rtf = real_tf()
    a = rand((3, 2), "float32", seed=34, low=0.5, high=2.0)
    b = rand((3, 2), "float32", seed=35, low=0.5, high=2.0)
    for sym, op in SCALAR_OPS.items():
        ours = [op(tf.constant(a), tf.Variable(b)), op(tf.Variable(a), tf.constant(b)),
                op(tf.Variable(a), tf.Variable(b)), op(0.9, tf.Variable(b)),
                op(tf.Variable(a), 0.9)]
        theirs = [op(rtf.constant(a), rtf.Variable(b)), op(rtf.Variable(a), rtf.constant(b)),
                  op(rtf.Variable(a), rtf.Variable(b)), op(0.9, rtf.Variable(b)),
                  op(rtf.Variable(a), 0.9)]
        for o, t in zip(ours, theirs):
            np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-6, err_msg=sym)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.constant([1.0]) + tf.Variable([1.0], dtype=tf.float64)


def test_scalar_operators_differentiate_like_tf():
    rtf = real_tf()
    x0 = rand((5,), "float32", seed=36, low=0.5, high=2.0)
    results = []
    for lib in (tf, rtf):
        v = lib.Variable(x0)
        with lib.GradientTape() as tape:
            y = lib.reduce_sum(0.9 ** v + 2.0 / v - (1.0 - v) * 3.0 + 0.5 * v * v + (-v))
        results.append(tape.gradient(y, v).numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_precision_pow_with_integer_exponent_rounds_once_as_tf(dt):
    rtf = real_tf()
    x = rand((64,), "float32", seed=37, low=0.5, high=3.0)
    for e in [2, 3, -1, -2]:
        np.testing.assert_array_equal(to_np(tf.pow(make(tf, x, dt), e)),
                                      to_np(rtf.pow(make(rtf, x, dt), e)))


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_precision_math_ops_round_python_scalars_first(dt):
    rtf = real_tf()
    x = rand((64,), "float32", seed=38, low=0.5, high=3.0)
    for name in ["multiply", "add", "subtract", "truediv", "maximum", "squared_difference"]:
        for s in [0.1, 1e-3, 2.7]:
            ours = getattr(tf.math, name)(make(tf, x, dt), s)
            theirs = getattr(rtf.math, name)(make(rtf, x, dt), s)
            np.testing.assert_array_equal(to_np(ours), to_np(theirs), err_msg=name)


def test_scalar_operands_first_seen_under_torch_inference_mode_still_differentiate():
    import torch

    with torch.inference_mode():
        tf.constant([1.0, 2.0]) * 0.123456
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v * 0.123456)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [0.123456] * 2, rtol=1e-6)
