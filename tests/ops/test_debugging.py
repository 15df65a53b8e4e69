"""tf.debugging against real TensorFlow: error types and messages, return values."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


def _outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - type and message are compared
        msg = str(e)
        # TF's runtime decorates messages with a function-node prefix and a name suffix.
        if msg.startswith("{{function_node"):
            msg = msg.split("}} ", 1)[1]
        msg = msg.split("\n\t; NodeDef")[0].replace(" [Op:", "[Op:").split("[Op:")[0]
        return type(e).__name__, msg.rstrip()
    if r is None:
        return None
    return ("value", np.asarray(r).tolist() if hasattr(r, "numpy") else r)


CASES = {
    "eq": lambda tf: tf.debugging.assert_equal(tf.constant([1., 2., 3.]), tf.constant([1., 2., 4.])),
    "eq_ok": lambda tf: tf.debugging.assert_equal(tf.constant([1., 2.]), tf.constant([1., 2.])),
    "eq_msg_summarize": lambda tf: tf.debugging.assert_equal(
        tf.constant([1., 2., 3.]), tf.constant([1., 2., 4.]), message="hello", summarize=2),
    "eq_dtype": lambda tf: tf.debugging.assert_equal(tf.constant([1.]), tf.constant([1])),
    "eq_shapes": lambda tf: tf.debugging.assert_equal(tf.constant([1., 2., 3.]), tf.constant([1., 2.])),
    "eq_broadcast": lambda tf: tf.debugging.assert_equal(tf.constant([1., 2., 3.]), 1.),
    "eq_scalar": lambda tf: tf.debugging.assert_equal(tf.constant(1), tf.constant(2)),
    "eq_python": lambda tf: tf.debugging.assert_equal(1, 2),
    "eq_string": lambda tf: tf.debugging.assert_equal(tf.constant(["a"]), tf.constant(["b"])),
    "eq_2d": lambda tf: tf.debugging.assert_equal(tf.zeros([2, 2]), tf.ones([2, 2])),
    "eq_bool": lambda tf: tf.debugging.assert_equal(tf.constant([True]), tf.constant([False])),
    "eq_uint32": lambda tf: tf.debugging.assert_equal(tf.constant([1], tf.uint32),
                                                      tf.constant([2], tf.uint32)),
    "eq_empty": lambda tf: tf.debugging.assert_equal(tf.zeros([0]), tf.zeros([0])),
    "none_equal": lambda tf: tf.debugging.assert_none_equal(tf.constant([1, 2]), tf.constant([1, 3])),
    "less": lambda tf: tf.debugging.assert_less(tf.constant([1., 2.]), tf.constant([1., 3.])),
    "less_mixed": lambda tf: tf.debugging.assert_less(tf.constant([1.]), 2),
    "less_big": lambda tf: tf.debugging.assert_less(tf.range(20), 5),
    "less_equal_ok": lambda tf: tf.debugging.assert_less_equal(tf.constant([1, 2]), 2),
    "greater": lambda tf: tf.debugging.assert_greater(tf.constant([1, 5]), tf.constant([1, 3])),
    "greater_equal": lambda tf: tf.debugging.assert_greater_equal(tf.constant([1]), tf.constant([2])),
    "positive": lambda tf: tf.debugging.assert_positive(tf.constant([1., 0.])),
    "positive_many": lambda tf: tf.debugging.assert_positive(tf.range(-5, 5), summarize=2),
    "negative": lambda tf: tf.debugging.assert_negative(tf.constant([1., 0.]), message="MSG"),
    "non_negative": lambda tf: tf.debugging.assert_non_negative(tf.constant([-1], tf.int8)),
    "non_positive": lambda tf: tf.debugging.assert_non_positive(tf.constant([1., -1.])),
    "non_positive_ok": lambda tf: tf.debugging.assert_non_positive(tf.constant([0., -1.])),
    "near": lambda tf: tf.debugging.assert_near(tf.constant([1., 2., 3.]), tf.constant([1., 2., 4.])),
    "near_ok": lambda tf: tf.debugging.assert_near(tf.constant([1., 2.]), tf.constant([1., 2.])),
    "near_long": lambda tf: tf.debugging.assert_near(tf.range(10.), tf.range(10.) + 1, summarize=2,
                                                     rtol=0.01, atol=0.01, message="M"),
    "near_f64": lambda tf: tf.debugging.assert_near(tf.constant([1.], tf.float64),
                                                    tf.constant([2.], tf.float64)),
    "near_int": lambda tf: tf.debugging.assert_near(tf.constant([1]), tf.constant([1])),
    "rank": lambda tf: tf.debugging.assert_rank(tf.constant([1.]), 2),
    "rank_msg": lambda tf: tf.debugging.assert_rank(tf.constant([1.]), 2, message="MSG"),
    "rank_tensor": lambda tf: tf.debugging.assert_rank(tf.constant([1.]), tf.constant(1)),
    "rank_not_scalar": lambda tf: tf.debugging.assert_rank(tf.constant([1.]), tf.constant([2])),
    "rank_numpy": lambda tf: tf.debugging.assert_rank(np.zeros([2]), 2),
    "rank_at_least": lambda tf: tf.debugging.assert_rank_at_least(tf.constant([1.]), 2),
    "rank_at_least_ok": lambda tf: tf.debugging.assert_rank_at_least(tf.constant([1.]), 0),
    "rank_in": lambda tf: tf.debugging.assert_rank_in(tf.constant([1.]), [0, 2], message="M"),
    "rank_in_ok": lambda tf: tf.debugging.assert_rank_in(tf.constant([1.]), (1, 2)),
    "scalar": lambda tf: tf.debugging.assert_scalar(tf.constant([1.])),
    "scalar_ok": lambda tf: tf.debugging.assert_scalar(tf.constant(1.)),
    "type": lambda tf: tf.debugging.assert_type(tf.constant([1.]), tf.int32),
    "type_msg": lambda tf: tf.debugging.assert_type(tf.constant([1.]), tf.int32, message="MSG"),
    "type_ok": lambda tf: tf.debugging.assert_type(tf.constant([1.]), tf.float32),
    "integer": lambda tf: tf.debugging.assert_integer(tf.constant([1.]), message="M"),
    "integer_ok": lambda tf: tf.debugging.assert_integer(tf.constant([1])),
    "shapes": lambda tf: tf.debugging.assert_shapes(
        [(tf.zeros([3]), ("N",)), (tf.zeros([2, 3]), ("N", "M"))]),
    "shapes_ok": lambda tf: tf.debugging.assert_shapes(
        [(tf.zeros([3]), ("N",)), (tf.zeros([3, 3]), ("N", None))]),
    "shapes_rank": lambda tf: tf.debugging.assert_shapes([(tf.zeros([3]), ("N", "M"))]),
    "shapes_explicit": lambda tf: tf.debugging.assert_shapes([(tf.zeros([3]), (2,))], message="MSG"),
    "shapes_ellipsis": lambda tf: tf.debugging.assert_shapes([(tf.zeros([2, 3, 4]), (..., 5))]),
    "shapes_scalar": lambda tf: tf.debugging.assert_shapes([(tf.zeros([2]), ())]),
    "check_numerics_inf": lambda tf: tf.debugging.check_numerics(tf.constant([1., np.inf]), "m1"),
    "check_numerics_nan": lambda tf: tf.debugging.check_numerics(tf.constant([np.nan]), "m1"),
    "check_numerics_both": lambda tf: tf.debugging.check_numerics(
        tf.constant([1., np.nan, -np.inf]), "m1"),
    "check_numerics_ok": lambda tf: tf.debugging.check_numerics(tf.constant([1., 2.]), "m1"),
    "check_numerics_f16": lambda tf: tf.debugging.check_numerics(tf.constant([np.inf], tf.float16), "m"),
    "check_numerics_int": lambda tf: tf.debugging.check_numerics(tf.constant([1]), "m"),
    "all_finite": lambda tf: tf.debugging.assert_all_finite(tf.constant([1., np.nan]), "bad"),
    "all_finite_ok": lambda tf: tf.debugging.assert_all_finite(tf.constant([1.]), "bad"),
    "Assert_py": lambda tf: tf.debugging.Assert(False, [tf.constant([1., 2., 3.]), "hi"]),
    "Assert_tensor": lambda tf: tf.debugging.Assert(tf.constant(False), [tf.constant([1., 2., 3., 4.])],
                                                    summarize=2),
    "Assert_all": lambda tf: tf.debugging.Assert(False, [tf.range(5)], summarize=-1),
    "Assert_zero": lambda tf: tf.debugging.Assert(False, [tf.constant(5), 7, "s"], summarize=0),
    "Assert_scalars": lambda tf: tf.debugging.Assert(False, [tf.constant(5), 7, "s"]),
    "Assert_ok": lambda tf: tf.debugging.Assert(True, [tf.constant(1)]),
    "Assert_one_true": lambda tf: tf.debugging.Assert(tf.constant([True]), [1]),
    "proper_str": lambda tf: tf.debugging.assert_proper_iterable("abc"),
    "proper_ok": lambda tf: tf.debugging.assert_proper_iterable([1]),
    "proper_int": lambda tf: tf.debugging.assert_proper_iterable(3),
    "same_float_dtype": lambda tf: tf.debugging.assert_same_float_dtype(
        [tf.constant([1.]), tf.constant([1.], tf.float64)]),
    "same_float_dtype_ok": lambda tf: tf.debugging.assert_same_float_dtype(
        [tf.constant([1.]), tf.constant([2.])]).name,
    "is_numeric": lambda tf: [tf.debugging.is_numeric_tensor(v) for v in (
        tf.constant(1.), tf.constant("a"), np.zeros(2), tf.constant(True), tf.constant([1], tf.uint8))],
}


@pytest.mark.parametrize("case", list(CASES))
def test_matches_tf(case):
    rtf = real_tf()
    ours = _outcome(lambda: CASES[case](tf))
    theirs = _outcome(lambda: CASES[case](rtf))
    assert ours == theirs


def test_check_numerics_returns_its_input():
    t = tf.constant([1.0, 2.0])
    assert tf.debugging.check_numerics(t, "m") is t


def test_public_module():
    assert tf.debugging.assert_equal.__module__ == "torchflow.debugging"
    assert tf.debugging.get_log_device_placement() is False
    tf.debugging.set_log_device_placement(True)
    assert tf.debugging.get_log_device_placement() is True
    tf.debugging.enable_check_numerics()
    tf.debugging.disable_check_numerics()
