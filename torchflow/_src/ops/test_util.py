"""``tf.test``: ``TestCase`` with TF's assertion helpers, ``main``, device queries and
``compute_gradient``.

``TestCase`` is a ``unittest.TestCase``; its array assertions compare NumPy values
(tensors, variables, nested lists/tuples/dicts of them), with TF's default
tolerances and failure messages in TF's manner.
"""

from __future__ import annotations

import contextlib
import random
import re
import sys
import tempfile
import unittest

import numpy as np
import torch

from torchflow._src.core import context, dtypes
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.errors import InvalidArgumentError, OpError
from torchflow._src.core.tape import GradientTape
from torchflow._src.ops.random_ops import set_seed
from torchflow._src.util import nest
from torchflow._src.util.api import public

_DEFAULT_GRAPH_SEED = 87654321  # TF's random_seed.DEFAULT_GRAPH_SEED


def _np(value):
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    return np.asarray(value)


def _is_structure(a) -> bool:
    return isinstance(a, (dict, list, tuple)) and not (
        isinstance(a, (list, tuple)) and all(isinstance(v, (int, float, complex, bool, np.number))
                                             for v in a))


class _EagerSession:
    """What ``cached_session()`` yields in eager mode: ``run`` evaluates tensors."""

    def __init__(self, case):
        self._case = case

    def run(self, fetches, feed_dict=None):
        return self._case.evaluate(fetches)


@public("torchflow.test")
class TestCase(unittest.TestCase):
    """Base class for tests of TF programs (``tf.test.TestCase``).

    Adds TF's assertions (``assertAllClose``, ``assertAllEqual``,
    ``assertAllInRange``, ``assertRaisesOpError``, ...), ``evaluate`` (tensors to
    NumPy), ``cached_session``/``session`` (eager: ``run`` evaluates) and
    ``get_temp_dir``. ``setUp`` seeds Python's, NumPy's and TF's global random
    generators with TF's default graph seed.

    >>> import torchflow as tf
    >>> class T(tf.test.TestCase):
    ...     def test_add(self):
    ...         self.assertAllClose(tf.constant([1.0]) + 1.0, [2.0])
    >>> import unittest
    >>> unittest.TextTestRunner(stream=open(__import__("os").devnull, "w")).run(
    ...     unittest.defaultTestLoader.loadTestsFromTestCase(T)).wasSuccessful()
    True

    Args:
      methodName: str, default ``"runTest"``: the test method this instance runs
        (as in ``unittest.TestCase``).
    """

    def __init__(self, methodName="runTest"):
        super().__init__(methodName)
        self._tempdir = None

    def setUp(self):
        """Seeds Python's, NumPy's and TF's global random generators before each test.

        The seed is TF's default graph seed (87654321), as TF's ``TestCase`` uses; call
        ``super().setUp()`` from an override.
        """
        random.seed(_DEFAULT_GRAPH_SEED)
        np.random.seed(_DEFAULT_GRAPH_SEED)
        set_seed(_DEFAULT_GRAPH_SEED)
        super().setUp()

    # --- sessions and values ---------------------------------------------------
    def evaluate(self, tensors):
        """Returns the NumPy values of a (nested structure of) tensors.

        Args:
          tensors: A Tensor, Variable, RaggedTensor/SparseTensor or a nested structure of
            them (other values pass through).

        Returns:
          The same structure with NumPy values.
        """
        return nest.map_structure(lambda t: t.numpy() if hasattr(t, "numpy") else t, tensors)

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """Eager mode: yields an object whose ``run`` evaluates tensors.

        Args:
          graph: Accepted for TF 1 compatibility; ignored.
          config: Accepted for TF 1 compatibility; ignored.
          use_gpu: Accepted for TF 1 compatibility; ignored.
          force_gpu: Accepted for TF 1 compatibility; ignored.

        Yields:
          An object whose ``run(fetches)`` returns ``evaluate(fetches)``.
        """
        yield _EagerSession(self)

    session = cached_session
    test_session = cached_session

    def get_temp_dir(self) -> str:
        """A temporary directory, the same for every call in one test.

        Returns:
          A str path; the directory is created on first use.
        """
        if self._tempdir is None:
            self._tempdir = tempfile.mkdtemp(prefix=f"{self._testMethodName}_")
        return self._tempdir

    # --- closeness ---------------------------------------------------------------
    def _close(self, a, b, rtol, atol, msg, path):
        if _is_structure(a) or _is_structure(b):
            if isinstance(a, dict) and isinstance(b, dict):
                self.assertEqual(set(a), set(b), f"mismatched keys at {path}")
                for k in a:
                    self._close(a[k], b[k], rtol, atol, msg, f"{path}[{k!r}]")
                return
            if len(a) != len(b):
                self.fail(f"Mismatched length: a{path} has {len(a)} items, but b{path} has "
                          f"{len(b)} items. {msg or ''}")
            for i, (x, y) in enumerate(zip(a, b)):
                self._close(x, y, rtol, atol, msg, f"{path}[{i}]")
            return
        a, b = _np(a), _np(b)
        self.assertEqual(a.shape, b.shape, f"Shape mismatch: expected {a.shape}, got {b.shape} "
                                           f"with contents {b}. {msg or ''}")
        if a.dtype.kind in "OSU" or b.dtype.kind in "OSU":
            np.testing.assert_array_equal(a, b, err_msg=msg or "")
            return
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol,
                                   err_msg=f"Mismatched value: a{path} is different from "
                                           f"b{path}. {msg or ''}", equal_nan=True)

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        """Asserts ``|a - b| <= atol + rtol * |b|`` elementwise, for arrays or nested
        lists, tuples and dicts of them (NaNs compare equal).

        Args:
          a: The actual value: a Tensor, NumPy array, number, or a nested list/tuple/dict.
          b: The expected value, of the same structure.
          rtol: float, default 1e-6: the relative tolerance.
          atol: float, default 1e-6: the absolute tolerance.
          msg: None or a str added to the failure message.

        Raises:
          AssertionError: the values (or the structures, or shapes) differ.
        """
        self._close(a, b, rtol, atol, msg, "")

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6,
                                      float_atol=1e-6, half_rtol=1e-3, half_atol=1e-3,
                                      bfloat16_rtol=1e-2, bfloat16_atol=1e-2, msg=None):
        """``assertAllClose`` with the tolerance raised to the least precise dtype's.

        Args:
          a: The actual value: a Tensor, NumPy array, number, or a nested list/tuple/dict.
          b: The expected value, of the same structure.
          rtol: float, default 1e-6: the tolerance for float64 and other dtypes.
          atol: float, default 1e-6.
          float_rtol: float, default 1e-6: used when either side is float32.
          float_atol: float, default 1e-6.
          half_rtol: float, default 1e-3: used when either side is float16.
          half_atol: float, default 1e-3.
          bfloat16_rtol: float, default 1e-2: used when either side is bfloat16.
          bfloat16_atol: float, default 1e-2.
          msg: None or a str added to the failure message.

        Raises:
          AssertionError: the values differ beyond the tolerance.
        """
        kinds = {np.dtype(d).name for d in (_np(a).dtype, _np(b).dtype)}
        if "float32" in kinds or "complex64" in kinds:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if "float16" in kinds:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        if "bfloat16" in kinds:
            rtol, atol = max(rtol, bfloat16_rtol), max(atol, bfloat16_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        """Asserts that ``a`` and ``b`` are not all close.

        Args:
          a: The actual value: a Tensor, NumPy array, number, or a nested list/tuple/dict.
          b: The expected value, of the same structure.
          rtol: float, default 1e-6.
          atol: float, default 1e-6.
          msg: None or a str added to the failure message.

        Raises:
          AssertionError: ``assertAllClose`` would pass.
        """
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)
        except AssertionError:
            return
        raise AssertionError(msg or "The two values are close at all elements")

    def assertArrayNear(self, farray1, farray2, err, msg=None):
        """Asserts two float lists have equal length and elements within ``err``.

        Args:
          farray1: A list of floats.
          farray2: A list of floats.
          err: float, the largest allowed difference.
          msg: None or a str added to the failure message.
        """
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNear(self, f1, f2, err, msg=None):
        """Asserts ``|f1 - f2| <= err``.

        Args:
          f1: A float.
          f2: A float.
          err: float, the largest allowed difference.
          msg: None or a str added to the failure message.
        """
        self.assertTrue(f1 == f2 or abs(f1 - f2) <= err,
                        f"{f1:f} != {f2:f} +/- {err:f}{' (' + msg + ')' if msg else ''}")

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None):
        """Asserts two arrays have all elements within ``err``.

        Args:
          ndarray1: A NumPy array (or Tensor).
          ndarray2: A NumPy array (or Tensor) of the same shape.
          err: float, the largest allowed difference.
          msg: None or a str added to the failure message.
        """
        self.assertTrue(np.linalg.norm(_np(ndarray1) - _np(ndarray2)) <= err, msg=msg)

    # --- equality and order ------------------------------------------------------
    def assertAllEqual(self, a, b, msg=None):
        """Asserts ``a`` and ``b`` have the same shape and equal elements.

        Args:
          a: The actual value: a Tensor, NumPy array, number, or a nested list/tuple/dict.
          b: The expected value, of the same structure.
          msg: None or a str added to the failure message.

        Raises:
          AssertionError: the shapes or some elements differ.
        """
        a, b = _np(a), _np(b)
        self.assertEqual(a.shape, b.shape, f"Shape mismatch: expected {a.shape}, got {b.shape} "
                                           f"with contents {b}. {msg or ''}")
        np.testing.assert_array_equal(a, b, err_msg=msg or "")

    def assertNotAllEqual(self, a, b, msg=None):
        """Asserts that ``a`` and ``b`` differ somewhere.

        Args:
          a: The actual value: a Tensor, NumPy array, number, or a nested list/tuple/dict.
          b: The expected value, of the same structure.
          msg: None or a str added to the failure message.
        """
        try:
            self.assertAllEqual(a, b, msg=msg)
        except AssertionError:
            return
        raise AssertionError(msg or "The two values are equal at all elements")

    def _compare_all(self, a, target, op, what):
        a = _np(a)
        if not np.all(op(a, target)):
            raise AssertionError(f"{a} is not {what} {target}")

    def assertAllGreater(self, a, comparison_target):
        """Asserts every element of ``a`` is greater than ``comparison_target``.

        Args:
          a: A Tensor, array or number.
          comparison_target: A number.
        """
        self._compare_all(a, comparison_target, np.greater, "greater than")

    def assertAllLess(self, a, comparison_target):
        """Asserts every element of ``a`` is less than ``comparison_target``.

        Args:
          a: A Tensor, array or number.
          comparison_target: A number.
        """
        self._compare_all(a, comparison_target, np.less, "less than")

    def assertAllGreaterEqual(self, a, comparison_target):
        """Asserts every element of ``a`` is at least ``comparison_target``.

        Args:
          a: A Tensor, array or number.
          comparison_target: A number.
        """
        self._compare_all(a, comparison_target, np.greater_equal, "greater than or equal to")

    def assertAllLessEqual(self, a, comparison_target):
        """Asserts every element of ``a`` is at most ``comparison_target``.

        Args:
          a: A Tensor, array or number.
          comparison_target: A number.
        """
        self._compare_all(a, comparison_target, np.less_equal, "less than or equal to")

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False,
                         open_upper_bound=False):
        """Asserts every element of ``target`` lies in the range (closed by default).

        Args:
          target: A Tensor or array of numbers.
          lower_bound: The lower bound.
          upper_bound: The upper bound.
          open_lower_bound: bool, default False: exclude ``lower_bound``.
          open_upper_bound: bool, default False: exclude ``upper_bound``.
        """
        t = _np(target)
        if t.dtype.kind not in "iufb":
            raise AssertionError(f"The value of {t} does not have an ordered numeric type, "
                                 f"instead it has type: {t.dtype}")
        low = t > lower_bound if open_lower_bound else t >= lower_bound
        high = t < upper_bound if open_upper_bound else t <= upper_bound
        bad = np.where(~(low & high))
        if bad[0].size:
            lo = "(" if open_lower_bound else "["
            hi = ")" if open_upper_bound else "]"
            raise AssertionError(f"{len(bad[0])} of the {t.size} element(s) are outside the "
                                 f"range {lo}{lower_bound}, {upper_bound}{hi}. Subscript(s) "
                                 f"and value(s) of the offending elements:\n"
                                 + "\n".join(f"{tuple(int(i) for i in idx)}: {t[idx]}"
                                             for idx in zip(*bad)))

    def assertAllInSet(self, target, expected_set):
        """Asserts every element of ``target`` is in ``expected_set``.

        Args:
          target: A Tensor or array.
          expected_set: A set, list or array of allowed values.
        """
        t = _np(target)
        allowed = set(np.asarray(list(expected_set)).ravel().tolist())
        diff = set(t.ravel().tolist()) - allowed
        if diff:
            raise AssertionError(f"{len(diff)} unique element(s) are not in the set "
                                 f"{expected_set}: {sorted(diff)}")

    def assertDTypeEqual(self, target, expected_dtype):
        """Asserts the elements of ``target`` have dtype ``expected_dtype``.

        Args:
          target: A Tensor or array (or a nested structure of them).
          expected_dtype: A ``tf.DType`` or NumPy dtype.
        """
        want = dtypes.as_dtype(expected_dtype).as_numpy_dtype
        for t in nest.flatten(target):
            self.assertEqual(_np(t).dtype, np.dtype(want))

    def assertShapeEqual(self, np_array, tf_tensor, msg=None):
        """Asserts a NumPy array and a tensor have the same shape.

        Args:
          np_array: A NumPy array.
          tf_tensor: A Tensor.
          msg: None or a str added to the failure message.
        """
        self.assertEqual(list(np.shape(np_array)), tf_tensor.shape.as_list(), msg=msg)

    def assertDeviceEqual(self, device1, device2, msg=None):
        """Asserts two device strings name the same device.

        Args:
          device1: A device string (None counts as ``""``).
          device2: A device string (None counts as ``""``).
          msg: None or a str added to the failure message.
        """
        self.assertEqual(str(device1 or ""), str(device2 or ""),
                         f"Devices {device1} and {device2} are not equal. {msg or ''}")

    def assertStartsWith(self, actual, expected_start, msg=None):
        """Asserts ``actual`` starts with ``expected_start``.

        Args:
          actual: A str.
          expected_start: A str.
          msg: None or a str added to the failure message.
        """
        if not actual.startswith(expected_start):
            self.fail(f"{actual!r} does not start with {expected_start!r}"
                      + (f" : {msg!r}" if msg else ""))

    # --- errors ------------------------------------------------------------------
    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):
        """A context manager: the body must raise ``exception_type`` whose message
        matches the regex (``re.search``) or satisfies the predicate.

        Args:
          exception_type: The exception class expected.
          expected_err_re_or_predicate: A regex str, or a callable taking the exception
            and returning True when it is the expected one.

        Returns:
          A context manager.
        """
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate  # pyright: ignore[reportAssignmentType] - a user predicate may return any truthy value
        else:
            def predicate(e):
                text = e.message if isinstance(e, OpError) else str(e)
                return re.search(expected_err_re_or_predicate, text) is not None
        try:
            yield
        except exception_type as e:
            if not predicate(e):
                raise AssertionError(f"Exception of type {type(e)}: {e}") from e
        else:
            self.fail(exception_type.__name__ + " not raised")

    def assertRaisesOpError(self, expected_err_re_or_predicate):
        """``assertRaisesWithPredicateMatch(tf.errors.OpError, ...)``.

        Args:
          expected_err_re_or_predicate: A regex str, or a callable taking the exception.

        Returns:
          A context manager.
        """
        return self.assertRaisesWithPredicateMatch(OpError, expected_err_re_or_predicate)

    def assertRaisesIncompatibleShapesError(self, exception_type=InvalidArgumentError):
        """The body must raise ``exception_type`` about incompatible shapes.

        Args:
          exception_type: The exception class expected, default
            ``tf.errors.InvalidArgumentError``.

        Returns:
          A context manager.
        """
        return self.assertRaisesWithPredicateMatch(
            exception_type, r"Incompatible shapes|Dimensions must be equal|"
                            r"required broadcastable shapes")


@public("torchflow.test")
class Benchmark:
    """Base class for benchmarks (``tf.test.Benchmark``): ``report_benchmark``
    prints one result; ``run_op_benchmark`` times a callable."""

    def report_benchmark(self, iters=None, cpu_time=None, wall_time=None, throughput=None,
                         extras=None, name=None, metrics=None):
        """Prints one benchmark entry."""
        print(f"entry {{ name: {name or type(self).__name__!r} iters: {iters} "
              f"wall_time: {wall_time} cpu_time: {cpu_time} throughput: {throughput} "
              f"extras: {extras} metrics: {metrics} }}")

    def evaluate(self, tensors):
        return nest.map_structure(lambda t: t.numpy() if hasattr(t, "numpy") else t, tensors)


@public("torchflow.test")
def main(argv=None):
    """Runs the tests of the calling module (``unittest.main``).

    Args:
      argv: None (default: ``sys.argv``) or the command-line arguments.

    Returns:
      What ``unittest.main`` returns (it normally exits the process).
    """
    return unittest.main(module="__main__", argv=argv if argv is not None else sys.argv)


@public("torchflow.test")
def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None) -> bool:
    """True if a GPU is available (deprecated in TF: use
    ``tf.config.list_physical_devices('GPU')``).

    Args:
      cuda_only: Only CUDA GPUs count (torchflow's GPUs are CUDA's).
      min_cuda_compute_capability: A ``(major, minor)`` pair the GPU must reach.
    """
    gpus = context._visible_gpus()  # honours DEVICE=cpu / set_visible_devices
    if not gpus:
        return False
    if min_cuda_compute_capability is None:
        return True
    want = tuple(min_cuda_compute_capability)
    return any(torch.cuda.get_device_capability(i) >= want for i in gpus)


@public("torchflow.test")
def gpu_device_name() -> str:
    """The name of the first GPU (``/device:GPU:0``), or ``""`` without one.

    Returns:
      A str.
    """
    return "/device:GPU:0" if context._visible_gpus() else ""


@public("torchflow.test")
def is_built_with_cuda() -> bool:
    """True when the torch build under torchflow has CUDA.

    Returns:
      A Python bool.
    """
    return torch.version.cuda is not None


@public("torchflow.test")
def is_built_with_rocm() -> bool:
    """True when the torch build under torchflow has ROCm.

    Returns:
      A Python bool.
    """
    return getattr(torch.version, "hip", None) is not None


@public("torchflow.test")
def is_built_with_gpu_support() -> bool:
    """True when built with CUDA or ROCm.

    Returns:
      A Python bool.
    """
    return is_built_with_cuda() or is_built_with_rocm()


@public("torchflow.test")
def is_built_with_xla() -> bool:
    """False: torchflow compiles with torch.compile, not XLA.

    Returns:
      False.
    """
    return False


@public("torchflow.test")
def benchmark_config():
    """TF returns a session ``ConfigProto`` for benchmarks; eager torchflow has none.

    Raises:
      NotImplementedError: Always (sessions are TF 1 graph-mode objects).
    """
    raise NotImplementedError("tf.test.benchmark_config returns a tf.compat.v1.ConfigProto "
                              "for graph-mode sessions, which torchflow does not have.")


@public("torchflow.test")
def create_local_cluster(num_workers, num_ps, protocol="grpc", worker_config=None,
                         ps_config=None):
    """TF 1 in-process gRPC servers; not provided by torchflow.

    Args:
      num_workers: int, the number of worker servers TF would start.
      num_ps: int, the number of parameter servers.
      protocol: str, default ``"grpc"``.
      worker_config: The workers' session config (TF 1).
      ps_config: The parameter servers' session config (TF 1).

    Raises:
      NotImplementedError: Always; start a cluster with ``torchflow launch``.
    """
    raise NotImplementedError("tf.test.create_local_cluster is not supported; start a local "
                              "cluster with `torchflow launch --workers N --ps M script.py`.")


@public("torchflow.test")
def assert_equal_graph_def(expected, actual):
    """Asserts two ``GraphDef`` protos are equal (ignoring node order).

    Args:
      expected: A ``GraphDef`` proto.
      actual: A ``GraphDef`` proto.

    Returns:
      None.

    Raises:
      TypeError: If either is not a GraphDef.
      AssertionError: If they differ.
    """
    for g, what in ((expected, "expected"), (actual, "actual")):
        if type(g).__name__ != "GraphDef":
            raise TypeError(f"{what} is not a GraphDef: {type(g).__name__}")
    a = sorted(n.SerializeToString(deterministic=True) for n in expected.node)
    b = sorted(n.SerializeToString(deterministic=True) for n in actual.node)
    if a != b:
        raise AssertionError("GraphDefs differ")


@public("torchflow.test")
def compute_gradient(f, x, delta=None):
    """The theoretical and numerical Jacobians of ``f`` at ``x``.

    Args:
      f: A function of the tensors in ``x`` returning one tensor.
      x: A list or tuple of values convertible to tensors (the arguments of ``f``).
      delta: The central-difference step (default ``1/1024``).

    Returns:
      ``(theoretical, numerical)``: two tuples with one 2-D NumPy array per
      argument, of shape ``[y_size, x_size]``.

    Raises:
      ValueError: If ``x`` is not a list or tuple.
    """
    if not isinstance(x, (list, tuple)):
        raise ValueError(f"`x` must be a list or tuple of values convertible to a Tensor "
                         f"(arguments to `f`), not a {type(x)}")
    delta = 1.0 / 1024 if delta is None else delta
    xs = [convert_to_tensor(v) for v in x]
    theoretical, numerical = [], []
    for i, xi in enumerate(xs):
        base = np.array(xi.numpy(), copy=True)
        dtype = xi.dtype

        def at(value, i=i, dtype=dtype):
            args = list(xs)
            args[i] = convert_to_tensor(value, dtype=dtype)
            return args

        with GradientTape(persistent=True) as tape:
            tape.watch(xs[i])
            y = convert_to_tensor(f(*xs))
        y_size = int(np.prod(y.shape.as_list()))  # pyright: ignore[reportCallIssue, reportArgumentType] - an eager result's shape is fully defined
        jac_t = np.zeros((y_size, base.size), dtype=base.dtype)
        for j in range(y_size):
            onehot = np.zeros(y_size, dtype=y.dtype.as_numpy_dtype)
            onehot[j] = 1
            g = tape.gradient(y, xs[i], output_gradients=convert_to_tensor(
                onehot.reshape(y.shape.as_list())))
            if g is not None:
                jac_t[j, :] = np.asarray(convert_to_tensor(g).numpy()).ravel()
        del tape
        jac_n = np.zeros((y_size, base.size), dtype=base.dtype)
        for k in range(base.size):
            up, down = base.copy().ravel(), base.copy().ravel()
            up[k] += delta
            down[k] -= delta
            yu = np.asarray(convert_to_tensor(f(*at(up.reshape(base.shape)))).numpy())
            yd = np.asarray(convert_to_tensor(f(*at(down.reshape(base.shape)))).numpy())
            jac_n[:, k] = ((yu - yd) / (2 * delta)).ravel()
        theoretical.append(jac_t)
        numerical.append(jac_n)
    return tuple(theoretical), tuple(numerical)


