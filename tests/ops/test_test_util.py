"""tf.test (TestCase assertions, device queries, compute_gradient) and tf.version,
against real TF: each assertion must pass and fail on the same inputs as TF's."""

import unittest

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

# (assertion name, args built from a module, TF's verdict is computed)
CASES = [
    ("assertAllClose", lambda m: (m.constant([1.0, 2.0]), [1.0, 2.0 + 1e-7])),
    ("assertAllClose", lambda m: (m.constant([1.0, 2.0]), [1.0, 2.1])),
    ("assertAllClose", lambda m: ({"a": m.constant(1.0), "b": [m.constant(2.0)]},
                                  {"a": 1.0, "b": [2.0]})),
    ("assertAllClose", lambda m: ([1.0, 2.0], [1.0])),
    ("assertAllClose", lambda m: (m.constant([np.nan]), [np.nan])),
    ("assertAllClose", lambda m: (m.constant([[1.0]]), [1.0])),
    ("assertNotAllClose", lambda m: (m.constant([1.0]), [1.5])),
    ("assertNotAllClose", lambda m: (m.constant([1.0]), [1.0])),
    ("assertAllEqual", lambda m: (m.constant([1, 2]), [1, 2])),
    ("assertAllEqual", lambda m: (m.constant([1, 2]), [1, 3])),
    ("assertAllEqual", lambda m: (m.constant([[1, 2]]), [1, 2])),
    ("assertAllEqual", lambda m: (m.constant(["a", "b"]), [b"a", b"b"])),
    ("assertNotAllEqual", lambda m: (m.constant([1, 2]), [1, 3])),
    ("assertAllGreater", lambda m: (m.constant([2, 3]), 1)),
    ("assertAllGreater", lambda m: (m.constant([2, 3]), 2)),
    ("assertAllLess", lambda m: (m.constant([2.0, 3.0]), 3.5)),
    ("assertAllGreaterEqual", lambda m: (m.constant([2, 3]), 2)),
    ("assertAllLessEqual", lambda m: (m.constant([2, 3]), 2)),
    ("assertAllInRange", lambda m: (m.constant([0.0, 1.0]), 0.0, 1.0)),
    ("assertAllInRange", lambda m: (m.constant([0.0, 1.0]), 0.0, 1.0, True)),
    ("assertAllInRange", lambda m: (m.constant([0.0, 1.0]), 0.0, 1.0, False, True)),
    ("assertAllInRange", lambda m: (m.constant(["a"]), 0.0, 1.0)),
    ("assertAllInSet", lambda m: (m.constant([1, 2, 1]), [1, 2])),
    ("assertAllInSet", lambda m: (m.constant([1, 2, 3]), [1, 2])),
    ("assertDTypeEqual", lambda m: (m.constant([1.0]), m.float32)),
    ("assertDTypeEqual", lambda m: (m.constant([1.0]), np.float64)),
    ("assertNear", lambda m: (1.0, 1.05, 0.1)),
    ("assertNear", lambda m: (1.0, 1.5, 0.1)),
    ("assertArrayNear", lambda m: ([1.0, 2.0], [1.01, 2.0], 0.1)),
    ("assertShapeEqual", lambda m: (np.zeros((2, 3)), m.zeros((2, 3)))),
    ("assertShapeEqual", lambda m: (np.zeros((2, 3)), m.zeros((3, 2)))),
    ("assertAllCloseAccordingToType", lambda m: (m.constant([1.0], m.float16), [1.0005])),
    ("assertAllCloseAccordingToType", lambda m: (m.constant([1.0], m.float64), [1.0005])),
]


def _verdict(mod, name, build):
    class T(mod.test.TestCase):
        def test(self):
            getattr(self, name)(*build(mod))

    result = unittest.TestResult()
    T("test").run(result)
    assert not result.errors, result.errors
    return not result.failures


@pytest.mark.parametrize("case", range(len(CASES)))
def test_assertions_agree_with_tf(case):
    name, build = CASES[case]
    assert _verdict(tf, name, build) == _verdict(real_tf(), name, build)


@pytest.mark.parametrize("body,regex,passes", [
    (lambda m: m.reshape(m.range(6), [4]), "Input to reshape", True),
    (lambda m: m.reshape(m.range(6), [4]), "no such text", False),
    (lambda m: m.constant(1.0), "anything", False),
])
def test_assert_raises_op_error_agrees_with_tf(body, regex, passes):
    for mod in (real_tf(), tf):
        class T(mod.test.TestCase):
            def test(self, mod=mod):
                with self.assertRaisesOpError(regex):
                    body(mod)

        result = unittest.TestResult()
        T("test").run(result)
        assert (not result.failures and not result.errors) == passes


def test_testcase_helpers():
    class T(tf.test.TestCase):
        def test(self):
            self.assertAllEqual(self.evaluate([tf.constant(1), {"a": tf.constant([2])}])[1]["a"],
                                [2])
            with self.cached_session() as sess:
                self.assertAllClose(sess.run(tf.constant(2.0)), 2.0)
            d = self.get_temp_dir()
            self.assertEqual(d, self.get_temp_dir())
            self.assertTrue(issubclass(tf.test.TestCase, unittest.TestCase))
            # setUp seeds NumPy with TF's default graph seed, as TF's TestCase does.
            np.random.seed(87654321)

    result = unittest.TestResult()
    T("test").run(result)
    assert result.wasSuccessful(), result.failures + result.errors


def test_device_queries_match_tf_on_this_machine():
    rtf = real_tf()
    has_gpu = bool(tf.config.list_physical_devices("GPU"))
    assert tf.test.is_gpu_available() == has_gpu
    assert tf.test.gpu_device_name() == ("/device:GPU:0" if has_gpu else "")
    if not rtf.config.list_physical_devices("GPU") and not has_gpu:
        assert tf.test.gpu_device_name() == rtf.test.gpu_device_name() == ""
    assert tf.test.is_built_with_xla() is False
    assert isinstance(tf.test.is_built_with_cuda(), bool)


@pytest.mark.parametrize("fn,x", [
    (lambda m: lambda a: a * a, [[1.0, 2.0, 3.0]]),
    (lambda m: lambda a, b: m.matmul(a, b), [[[1.0, 2.0]], [[3.0], [4.0]]]),
    (lambda m: lambda a: m.reduce_sum(m.sin(a)), [[[0.5, 1.0], [1.5, 2.0]]]),
])
def test_compute_gradient_matches_tf(fn, x):
    rtf = real_tf()
    ours = tf.test.compute_gradient(fn(tf), [np.array(v, np.float64) for v in x])
    theirs = rtf.test.compute_gradient(fn(rtf), [np.array(v, np.float64) for v in x])
    for o, t in zip(ours, theirs):
        assert len(o) == len(t)
        for a, b in zip(o, t):
            assert a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)
    with pytest.raises(ValueError, match="must be a list or tuple"):
        tf.test.compute_gradient(fn(tf), np.ones(3))


def test_version_is_tf_2_4():
    # torchflow implements TF 2.4's model and says so (TF programs gate on it).
    assert tf.__version__ == tf.version.VERSION == "2.4.0"
    assert tf.version.GIT_VERSION.startswith("v2.4.0")
    rtf = real_tf()
    for name in ("VERSION", "GIT_VERSION", "COMPILER_VERSION", "GRAPH_DEF_VERSION",
                 "GRAPH_DEF_VERSION_MIN_CONSUMER", "GRAPH_DEF_VERSION_MIN_PRODUCER"):
        assert type(getattr(tf.version, name)) is type(getattr(rtf.version, name))
