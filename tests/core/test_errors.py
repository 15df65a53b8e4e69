"""tf.errors: classes, codes and OpError behaviour against real TensorFlow."""

import pickle

import pytest

import torchflow as tf
from torchflow._src.core import errors
from torchflow._src.testing import real_tf

CLASSES = ["CancelledError", "UnknownError", "InvalidArgumentError", "DeadlineExceededError",
           "NotFoundError", "AlreadyExistsError", "PermissionDeniedError",
           "ResourceExhaustedError", "FailedPreconditionError", "AbortedError",
           "OutOfRangeError", "UnimplementedError", "InternalError", "UnavailableError",
           "DataLossError", "UnauthenticatedError"]
CODES = ["OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
         "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
         "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
         "UNAUTHENTICATED"]


@pytest.mark.parametrize("code", CODES)
def test_codes_match_tf(code):
    assert getattr(tf.errors, code) == getattr(real_tf().errors, code)


@pytest.mark.parametrize("name", CLASSES)
def test_class_matches_tf(name):
    rtf = real_tf()
    ours, theirs = getattr(tf.errors, name), getattr(rtf.errors, name)
    assert issubclass(ours, tf.errors.OpError) and issubclass(ours, Exception)
    e, r = ours(None, None, "boom"), theirs(None, None, "boom")
    assert (e.message, e.error_code, e.op, e.node_def) == (r.message, r.error_code, r.op, r.node_def)
    assert str(e) == str(r)
    assert tf.errors.exception_type_from_error_code(e.error_code) is ours
    assert tf.errors.error_code_from_exception_type(ours) == e.error_code
    assert ours.__module__ == "torchflow.errors"
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is ours and back.message == "boom"


def test_op_error_base():
    e = tf.errors.OpError(None, None, "m", tf.errors.ABORTED)
    assert e.error_code == tf.errors.ABORTED and str(e) == "m"
    with pytest.raises(tf.errors.OpError):
        raise tf.errors.NotFoundError(None, None, "missing")


def test_translate_turns_torch_errors_into_tf_errors():
    e = errors.translate("MatMul", RuntimeError("mat1 and mat2 shapes cannot be multiplied"))
    assert isinstance(e, tf.errors.InvalidArgumentError) and e.message.endswith("[Op:MatMul]")
    assert isinstance(errors.translate("X", RuntimeError("CUDA out of memory")),
                      tf.errors.ResourceExhaustedError)
    assert isinstance(errors.translate("X", NotImplementedError("no")), tf.errors.UnimplementedError)
    same = tf.errors.NotFoundError(None, None, "x")
    assert errors.translate("X", same) is same


def test_an_op_failure_raises_invalid_argument_like_tf():
    rtf = real_tf()
    with pytest.raises(rtf.errors.InvalidArgumentError):
        rtf.add(rtf.constant([1, 2]), rtf.constant([1, 2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.add(tf.constant([1, 2]), tf.constant([1, 2, 3]))


def test_operator_not_allowed_in_graph_error_is_a_type_error_like_tf():
    rtf = real_tf()
    assert issubclass(rtf.errors.OperatorNotAllowedInGraphError, TypeError)
    assert issubclass(tf.errors.OperatorNotAllowedInGraphError, TypeError)
