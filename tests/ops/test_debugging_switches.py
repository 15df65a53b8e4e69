"""tf.debugging's global switches: enable_check_numerics (first op with Inf/NaN
raises TF's error naming the op), set_log_device_placement (TF's log line),
enable_dump_debug_info (a clear unsupported error with TF's signature)."""

import inspect

import pytest

import torchflow as tf
from torchflow._src.core import tensor as tensor_module
from torchflow._src.testing import real_tf

# (program, TF op name, kinds of bad values)
PROGRAMS = [
    (lambda m: m.math.log(m.constant([1.0, 0.0])), "Log", "-Inf"),
    (lambda m: m.constant([1e38]) * 10.0, "Mul", "+Inf"),
    (lambda m: m.sqrt(m.constant([-1.0, 4.0])), "Sqrt", "NaN"),
    (lambda m: m.matmul([[1e38]], [[1e38]]), "MatMul", "+Inf"),
    (lambda m: m.constant([1.0, 0.0]) / 0.0, "RealDiv", "+Inf and NaN"),
    (lambda m: m.exp(m.constant([1000.0], m.float64)), "Exp", "+Inf"),
]


@pytest.fixture
def check_numerics():
    tf.debugging.enable_check_numerics()
    rtf = real_tf()
    rtf.debugging.enable_check_numerics()
    yield rtf
    tf.debugging.disable_check_numerics()
    rtf.debugging.disable_check_numerics()


@pytest.mark.parametrize("program,op,kinds", PROGRAMS)
def test_check_numerics_raises_like_tf(check_numerics, program, op, kinds):
    rtf = check_numerics
    with pytest.raises(rtf.errors.InvalidArgumentError) as theirs:
        program(rtf)
    with pytest.raises(tf.errors.InvalidArgumentError) as ours:
        program(tf)
    head = f'Detected Infinity or NaN in output 0 of eagerly-executing op "{op}" (# of outputs: 1)'
    assert head in str(theirs.value) and head in str(ours.value)
    tail = f": Tensor had {kinds} values"
    assert tail in str(theirs.value) and tail in str(ours.value)
    # The counts TF reports, line for line.
    for line in str(ours.value).splitlines():
        if line.startswith(("  # of", "  dtype:", "  shape:")):
            assert line in str(theirs.value)


def test_check_numerics_leaves_finite_and_integer_results_alone(check_numerics):
    assert float(tf.reduce_sum(tf.constant([1.0, 2.0]) * 2.0)) == 6.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        tf.constant(1) // 0  # TF's own error, not the numerics check
    # Constants holding NaN are not op results (TF does not check them either).
    assert tf.constant(float("nan")).dtype == tf.float32
    rtf = check_numerics
    assert rtf.constant(float("nan")).dtype == rtf.float32


def test_disable_check_numerics_restores_and_costs_one_test():
    tf.debugging.enable_check_numerics()
    tf.debugging.disable_check_numerics()
    assert tensor_module._result_hook is None  # ops pay one `is not None` test
    r = tf.math.log(tf.constant([0.0]))
    assert float(r[0]) == float("-inf")


def test_log_device_placement_prints_tf_lines(capfd):
    tf.debugging.set_log_device_placement(True)
    try:
        assert tf.debugging.get_log_device_placement()
        tf.matmul([[1.0]], [[2.0]])
        x = tf.constant([1.0, 2.0])
        _ = x + x
        _ = tf.reduce_sum(x)
    finally:
        tf.debugging.set_log_device_placement(False)
    _ = tf.matmul([[1.0]], [[2.0]])
    err = capfd.readouterr().err.splitlines()
    device = tf.constant(1.0).device
    assert err == [f"Executing op MatMul in device {device}",
                   f"Executing op AddV2 in device {device}",
                   f"Executing op Sum in device {device}"]
    assert tensor_module._result_hook is None


def test_enable_dump_debug_info_is_a_clear_unsupported_error(tmp_path):
    rtf = real_tf()
    assert (inspect.signature(tf.debugging.experimental.enable_dump_debug_info)
            == inspect.signature(rtf.debugging.experimental.enable_dump_debug_info))
    with pytest.raises(NotImplementedError, match="enable_check_numerics"):
        tf.debugging.experimental.enable_dump_debug_info(str(tmp_path))
    tf.debugging.experimental.disable_dump_debug_info()
