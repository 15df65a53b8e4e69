"""torchflow's public API against TensorFlow 2.4's.

* ``tests/api/golden/<namespace>.txt`` list TF 2.4's public names (extracted from the
  TF 2.4.0 wheel by ``tools/tf24_api.py``).
* ``CLAIMED`` per namespace = every golden name torchflow has (found at test time)
  + ``PROMISED``, the names the foundation issue (#2) promises. A promised name
  that is missing fails; every claimed class/function must carry a public
  ``__module__`` (``torchflow.<ns>``, never ``torchflow._src...``). DTypes,
  constants and modules are exempt.
* ``test_coverage_report`` prints ``implemented / total`` per namespace (``-rA`` or
  ``-s`` shows it); ``python tools/api_coverage.py --write`` writes
  ``docs/api_coverage.md``, and ``make test`` ends with a short summary.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path

import numpy as np
import pytest

_TOOL = Path(__file__).resolve().parents[2] / "tools" / "api_coverage.py"
_spec = importlib.util.spec_from_file_location("_api_coverage", _TOOL)
api_coverage = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = api_coverage  # dataclasses look their module up
_spec.loader.exec_module(api_coverage)

GOLDEN = api_coverage.load_golden()

_UNARY = ("abs exp log log1p expm1 sqrt rsqrt square sin cos tan asin acos atan sinh cosh "
          "tanh asinh acosh atanh sigmoid negative sign floor ceil round rint reciprocal "
          "erf lgamma is_nan is_finite is_inf logical_not").split()
_BINARY = ("add subtract multiply divide truediv floordiv floormod mod pow maximum minimum "
           "squared_difference equal not_equal less less_equal greater greater_equal "
           "logical_and logical_or logical_xor atan2 xdivy xlogy divide_no_nan").split()
_DTYPES = ("DType as_dtype bfloat16 float16 half float32 float64 double complex64 complex128 "
           "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 string").split()
_ARRAY = ("reshape transpose concat stack unstack split squeeze expand_dims tile pad gather "
          "gather_nd scatter_nd tensor_scatter_nd_update tensor_scatter_nd_add where "
          "boolean_mask slice strided_slice reverse one_hot sort argsort unique shape size rank "
          "broadcast_to meshgrid clip_by_value clip_by_norm clip_by_global_norm einsum matmul "
          "tensordot sequence_mask repeat roll searchsorted").split()
_ERRORS = ("OpError CancelledError UnknownError InvalidArgumentError DeadlineExceededError "
           "NotFoundError AlreadyExistsError PermissionDeniedError UnauthenticatedError "
           "ResourceExhaustedError FailedPreconditionError AbortedError OutOfRangeError "
           "UnimplementedError InternalError UnavailableError DataLossError "
           "OK CANCELLED UNKNOWN INVALID_ARGUMENT DEADLINE_EXCEEDED NOT_FOUND ALREADY_EXISTS "
           "PERMISSION_DENIED UNAUTHENTICATED RESOURCE_EXHAUSTED FAILED_PRECONDITION ABORTED "
           "OUT_OF_RANGE UNIMPLEMENTED INTERNAL UNAVAILABLE DATA_LOSS").split()

# Names issue #2 ("Foundation") promises, per namespace. Missing ones fail.
PROMISED: dict[str, list[str]] = {
    "tensorflow": _DTYPES + _ARRAY + [
        "Tensor", "TensorShape", "TensorSpec", "constant", "convert_to_tensor", "zeros",
        "ones", "fill", "eye", "range", "linspace", "zeros_like", "ones_like", "identity",
        "cast", "bitcast", "newaxis", "executing_eagerly", "is_tensor", "print", "device",
        "add", "subtract", "multiply", "divide", "add_n", "argmax", "argmin", "cumsum",
        "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
        "reduce_all", "reduce_logsumexp", "equal", "not_equal", "less", "less_equal",
        "greater", "greater_equal", "abs", "exp", "sqrt", "square", "maximum", "minimum",
        "pow", "truediv", "negative", "sigmoid", "tanh", "logical_and", "logical_or",
        "logical_not",
    ],
    "tensorflow.math": _UNARY + _BINARY + [
        "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
        "reduce_all", "reduce_logsumexp", "reduce_std", "reduce_variance", "argmax", "argmin",
        "cumsum", "cumprod", "segment_sum", "segment_mean", "segment_max", "segment_min",
        "segment_prod", "unsorted_segment_sum", "unsorted_segment_mean", "unsorted_segment_max",
        "unsorted_segment_min", "unsorted_segment_prod", "top_k", "bincount", "l2_normalize",
        "add_n",
    ],
    "tensorflow.nn": [
        "relu", "relu6", "elu", "selu", "gelu", "leaky_relu", "sigmoid", "tanh", "softmax",
        "log_softmax", "softplus", "swish", "conv1d", "conv2d", "conv3d", "conv2d_transpose",
        "depthwise_conv2d", "separable_conv2d", "max_pool", "avg_pool", "max_pool1d",
        "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "dropout",
        "batch_normalization", "moments", "bias_add", "softmax_cross_entropy_with_logits",
        "sparse_softmax_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits",
        "weighted_cross_entropy_with_logits", "l2_loss", "embedding_lookup",
        "compute_average_loss", "scale_regularization_loss",
    ],
    "tensorflow.linalg": [
        "matmul", "inv", "det", "slogdet", "cholesky", "qr", "svd", "eigh", "solve", "lstsq",
        "norm", "diag", "diag_part", "trace", "band_part", "matrix_transpose",
    ],
    "tensorflow.random": [
        "normal", "uniform", "truncated_normal", "categorical", "shuffle", "set_seed",
        "stateless_normal", "stateless_uniform", "stateless_truncated_normal",
        "stateless_categorical", "Generator",
    ],
    "tensorflow.strings": [
        "length", "lower", "upper", "join", "split", "to_number", "as_string", "format",
        "regex_full_match", "regex_replace", "substr", "strip",
    ],
    "tensorflow.dtypes": _DTYPES,
    "tensorflow.errors": _ERRORS,
    "tensorflow.config": [
        "list_physical_devices", "list_logical_devices", "set_visible_devices",
        "get_visible_devices", "set_soft_device_placement", "get_soft_device_placement",
        "run_functions_eagerly", "functions_run_eagerly",
    ],
    "tensorflow.config.experimental": [
        "set_memory_growth", "get_memory_growth", "enable_tensor_float_32_execution",
        "tensor_float_32_execution_enabled",
    ],
    "tensorflow.config.threading": [
        "get_intra_op_parallelism_threads", "set_intra_op_parallelism_threads",
        "get_inter_op_parallelism_threads", "set_inter_op_parallelism_threads",
    ],
    "tensorflow.debugging": [
        "assert_equal", "assert_less", "assert_shapes", "assert_rank", "assert_type",
        "check_numerics",
    ],
    "tensorflow.nest": [
        "flatten", "pack_sequence_as", "map_structure", "assert_same_structure", "is_nested",
    ],
    "tensorflow.raw_ops": [
        "AddV2", "Sub", "Mul", "RealDiv", "MatMul", "BatchMatMulV2", "Sum", "Mean", "Prod",
        "Max", "Min", "Relu", "Softmax", "Reshape", "Transpose", "ConcatV2", "Cast",
    ],
    "tensorflow.quantization": ["quantize_and_dequantize", "quantize_and_dequantize_v2"],
}


def claimed(ns: api_coverage.Namespace) -> list[str]:
    """Golden names torchflow has, plus the promised ones."""
    return sorted(set(ns.implemented) | set(PROMISED.get(ns.tf_name, ())))


def module_problem(obj) -> str | None:
    """Why ``obj`` does not carry a public ``__module__`` (None when it does or is exempt)."""
    from torchflow._src.core.dtypes import DType

    if obj is None or isinstance(obj, (DType, bool, int, float, str, bytes, tuple, frozenset)):
        return None  # dtypes and constants
    if inspect.ismodule(obj):
        return None
    if not (inspect.isclass(obj) or callable(obj)):
        return None  # other constants (e.g. AUTOTUNE sentinels)
    if inspect.isclass(obj) and issubclass(obj, np.generic):
        # NumPy scalar types: tf.experimental.numpy.float32 *is* numpy.float32 in TF too.
        return None
    if inspect.isclass(obj) and any(c.__module__.startswith("google.protobuf")
                                    for c in type(obj).__mro__ + obj.__mro__[1:]):
        # Protocol-buffer messages (tf.train.Example ...) are named by their .proto
        # file, in TF too (tensorflow.core.example.example_pb2); protobuf owns them.
        return None
    mod = getattr(obj, "__module__", None)
    if not isinstance(mod, str):
        return f"has no __module__ ({type(obj).__name__})"
    if not mod.startswith("torchflow") or mod.startswith("torchflow._src"):
        return f"__module__ is {mod!r}; mark it @public('torchflow.<ns>')"
    return None


@pytest.fixture(scope="module")
def rows():
    return {r.tf_name: r for r in api_coverage.coverage(GOLDEN)}


def test_golden_files_are_tf24_names():
    assert len(GOLDEN) >= 100
    for ns in ("tensorflow", "tensorflow.math", "tensorflow.nn", "tensorflow.raw_ops",
               "tensorflow.keras.layers", "tensorflow.experimental.numpy", "tensorflow.data"):
        assert ns in GOLDEN
    for ns, names in GOLDEN.items():
        assert names == sorted(set(names)), f"{ns}: not sorted/unique"
    # Spot checks against TF 2.4 (not later versions): tf.function's jit_compile is 2.5+,
    # but tf.nn.gelu and tf.experimental.numpy are 2.4.
    assert "gelu" in GOLDEN["tensorflow.nn"]
    assert "AddV2" in GOLDEN["tensorflow.raw_ops"]
    assert "LossScaleOptimizer" in GOLDEN["tensorflow.keras.mixed_precision"]
    assert "approx_max_k" not in GOLDEN["tensorflow.math"]  # TF 2.9+
    assert len(GOLDEN["tensorflow.raw_ops"]) > 1000


def test_promised_names_are_tf24_public_names():
    for ns, names in PROMISED.items():
        assert ns in GOLDEN, ns
        unknown = sorted(set(names) - set(GOLDEN[ns]))
        assert not unknown, f"{ns}: not TF 2.4 public names: {unknown}"


@pytest.mark.parametrize("ns", sorted(PROMISED))
def test_promised_names_exist(rows, ns):
    r = rows[ns]
    assert r.error is None, f"{r.tflow_module} fails to import: {r.error}"
    missing = sorted(set(PROMISED[ns]) - set(r.implemented))
    assert not missing, (f"{r.tflow_module}: {len(missing)} of {len(PROMISED[ns])} promised "
                         f"names missing: {missing}")


def test_public_modules_import(rows):
    broken = {ns: r.error for ns, r in rows.items() if r.error}
    assert not broken, broken


def test_claimed_names_carry_public_module(rows):
    problems = []
    for r in rows.values():
        mod = api_coverage.import_public(r.tflow_module) if r.error is None else None
        if mod is None:
            continue
        for name in claimed(r):
            if hasattr(mod, name):
                why = module_problem(getattr(mod, name))
                if why:
                    problems.append(f"{r.tflow_module}.{name}: {why}")
    assert not problems, "\n".join(problems)


def test_module_check_catches_private_modules():
    from torchflow._src.core import dtypes

    def f():
        pass

    f.__module__ = "torchflow._src.ops.math_ops"
    assert "mark it @public" in module_problem(f)
    f.__module__ = "numpy"
    assert module_problem(f) is not None
    f.__module__ = "torchflow.math"
    assert module_problem(f) is None
    assert module_problem(dtypes.float32) is None
    assert module_problem(None) is None


def test_module_check_exempts_only_real_protobuf_messages():
    from google.protobuf import descriptor_pb2

    assert module_problem(descriptor_pb2.FileDescriptorProto) is None

    class NotAProto:
        pass

    NotAProto.__module__ = "torchflow._src.core.proto.example_pb2"
    assert module_problem(NotAProto) is not None


def test_module_check_exempts_numpy_scalar_types_only():
    assert module_problem(np.float32) is None  # as tf.experimental.numpy.float32 in TF
    assert module_problem(np.asarray) is not None


def test_coverage_report(rows, capsys):
    rs = list(rows.values())
    done, total = api_coverage.totals(rs)
    assert total == sum(len(v) for v in GOLDEN.values())
    assert 0 < done <= total
    assert {"constant", "add"} <= set(rows["tensorflow"].implemented)
    with capsys.disabled():
        print("\nTF 2.4 API coverage (implemented / TF 2.4 names)\n"
              + api_coverage.table(rs, only_started=True))
