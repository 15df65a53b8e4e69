"""tf.function: tracing counts and signature errors compared with real TensorFlow."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, real_tf


def _calls(lib):
    c = lib.constant
    return [(c(1.0),), (c(2.0),), (c([1.0, 2.0]),), (c([1.0, 2.0, 3.0]),),
            (c([1.0, 2.0, 3.0, 4.0]),), (c([[1.0]]),), (c(1),), (1,), (1,), (2,), (1.0,),
            (c(1.0), 2), (c(1.0), 2), (c(1.0), 1), ([1, 2],), ([1, 2],), ([1, 3],),
            ({"a": c(1.0)},), ({"a": c(2.0)},), (np.ones([2], np.float32),),
            (np.zeros([2], np.float32),)]


def _count(lib, calls, **kwargs):
    @lib.function(**kwargs)
    def f(x, y=1):
        return x

    for args in calls:
        f(*args)
    return f.experimental_get_tracing_count()


@pytest.mark.parametrize("kwargs", [{}, {"reduce_retracing": True},
                                    {"experimental_relax_shapes": True}])
def test_tracing_counts_match_tf(kwargs):
    rtf = real_tf()
    assert _count(tf, _calls(tf), **kwargs) == _count(rtf, _calls(rtf), **kwargs)


def test_variables_key_by_shape_and_dtype_like_tf():
    rtf = real_tf()
    counts = []
    for lib in (tf, rtf):
        @lib.function
        def h(a):
            return a + 1

        h(lib.Variable(1.0))
        h(lib.Variable(2.0))
        h(lib.Variable(3))
        h(lib.Variable([1.0]))
        counts.append(h.experimental_get_tracing_count())
    assert counts[0] == counts[1]


def test_input_signature_enforced_with_tf_errors():
    rtf = real_tf()
    for lib in (tf, rtf):
        f = lib.function(lambda x: x * 2.0, input_signature=[lib.TensorSpec([None], lib.float32)])
        assert_close(f(lib.constant([1.0, 2.0])), np.array([2.0, 4.0], np.float32))
        f(lib.constant([1.0, 2.0, 3.0]))
        f([1.0, 2.0])  # Python values are converted
        assert f.experimental_get_tracing_count() == 1
        for bad in (lib.constant(1.0), lib.constant([1, 2])):
            with pytest.raises(TypeError, match="Can not cast"):
                f(bad)
    # TF 2.4 raised ValueError here: both clauses catch ours.
    with pytest.raises(ValueError):
        tf.function(lambda x: x, input_signature=[tf.TensorSpec([2])])(tf.constant([1.0]))
    with pytest.raises(TypeError, match="input_signature must be"):
        tf.function(lambda x: x, input_signature=tf.TensorSpec([2]))


def test_get_concrete_function():
    rtf = real_tf()
    for lib in (tf, rtf):
        @lib.function
        def g(x):
            return x + 1.0

        cf = g.get_concrete_function(lib.TensorSpec([None], lib.float32))
        assert g.experimental_get_tracing_count() == 1
        assert_close(cf(lib.constant([1.0, 2.0])), np.array([2.0, 3.0], np.float32))
        g(lib.constant([5.0]))  # compatible with the traced [None] signature
        assert g.experimental_get_tracing_count() == 1
        args, kwargs = cf.structured_input_signature
        assert args[0].shape.as_list() == [None] and kwargs == {}
        with pytest.raises(lib.errors.InvalidArgumentError):
            cf(lib.constant([1, 2]))


def test_outputs_become_tensors_like_tf():
    out = tf.function(lambda: (1, None, "a"))()
    assert isinstance(out[0], tf.Tensor) and out[0].dtype == tf.int32
    assert out[1] is None and out[2].dtype == tf.string


def test_methods_trace_per_instance():
    rtf = real_tf()
    counts = []
    for lib in (tf, rtf):
        class A:
            @lib.function
            def m(self, x):
                return x

        a, b = A(), A()
        a.m(lib.constant(1.0))
        b.m(lib.constant(1.0))
        a.m(lib.constant(2.0))
        a.m(lib.constant([2.0]))
        counts.append((a.m.experimental_get_tracing_count(),
                       b.m.experimental_get_tracing_count(),
                       A.m.experimental_get_tracing_count()))
    assert counts[0] == counts[1]


def test_executing_eagerly_false_inside_and_variable_creation_rule():
    seen = []

    @tf.function
    def k():
        seen.append(tf.executing_eagerly())
        return tf.Variable(1.0)

    # As in TF: the trace that created a variable is followed at once by a second
    # trace, which creates another, so the first call fails.
    with pytest.raises(ValueError, match="singleton tf.Variables"):
        k()
    assert seen == [False, False]
    assert tf.executing_eagerly()
    rtf = real_tf()
    rseen = []

    @rtf.function
    def rk():
        rseen.append(1)
        return rtf.Variable(1.0)

    with pytest.raises(ValueError, match="singleton tf.Variables"):
        rk()
    assert len(rseen) == len(seen)


def test_run_functions_eagerly_does_not_trace():
    rtf = real_tf()
    from torchflow._src.core import context

    context.GLOBAL.run_functions_eagerly = True  # what tf.config.run_functions_eagerly sets
    rtf.config.run_functions_eagerly(True)
    try:
        for lib in (tf, rtf):
            f = lib.function(lambda x: x)
            f(lib.constant(1.0))
            assert f.experimental_get_tracing_count() == 0
    finally:
        context.GLOBAL.run_functions_eagerly = False
        rtf.config.run_functions_eagerly(False)


def test_nesting_and_gradients_through_function():
    @tf.function
    def inner(x):
        return x * x

    @tf.function
    def outer(x):
        return inner(x) + 1.0

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = outer(x)
    assert float(y) == 10.0 and float(tape.gradient(y, x)) == 6.0


def test_train_step_in_function():
    w = tf.Variable([[0.5], [-0.5]])

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.matmul(x, w) ** 2.0)
        w.assign_sub(0.1 * tape.gradient(loss, w))
        return loss

    x = tf.constant([[1.0, 2.0]])
    losses = [float(step(x)) for _ in range(5)]
    assert losses[-1] < losses[0] and step.experimental_get_tracing_count() == 1


def test_jit_compile_matches_eager_or_falls_back():
    @tf.function(jit_compile=True)
    def f(x, y):
        return tf.tanh(x) * y + 1.0

    x, y = tf.constant([0.5, -1.0]), tf.constant([2.0, 3.0])
    expected = np.tanh([0.5, -1.0]) * np.array([2.0, 3.0]) + 1.0
    assert_close(f(x, y), expected.astype(np.float32), rtol=1e-5, atol=1e-6)
    assert_close(f(x, y), expected.astype(np.float32), rtol=1e-5, atol=1e-6)
    assert f.experimental_get_tracing_count() == 1


def test_init_scope_and_inside_function():
    rtf = real_tf()
    for lib in (tf, rtf):
        seen = []

        @lib.function
        def f():
            with lib.init_scope():
                seen.append((lib.executing_eagerly(), lib.inside_function()))
            seen.append((lib.executing_eagerly(), lib.inside_function()))
            return 0

        f()
        assert seen == [(True, True), (False, True)]
        assert not lib.inside_function()


def test_control_dependencies_and_gradients_in_eager():
    rtf = real_tf()
    for lib in (tf, rtf):
        with lib.control_dependencies([lib.constant(1)]):
            x = lib.constant(2) + 1
        assert int(x) == 3
        with pytest.raises(RuntimeError, match="GradientTape"):
            lib.gradients(lib.constant(1.0), lib.constant(1.0))
    assert tf.AggregationMethod.DEFAULT == rtf.AggregationMethod.DEFAULT


def test_py_function_and_numpy_function_match_tf():
    rtf = real_tf()
    for lib in (tf, rtf):
        x = lib.constant([1.0, 2.0])
        with lib.GradientTape() as tape:
            tape.watch(x)
            y = lib.py_function(lambda a: a * a, [x], lib.float32)
        assert_close(tape.gradient(y, x), np.array([2.0, 4.0], np.float32))
        a, b = lib.numpy_function(lambda v: (v * 2, v.astype(np.int32)), [x],
                                  [lib.float32, lib.int32])
        assert_close(a, np.array([2.0, 4.0], np.float32))
        assert b.dtype == lib.int32


def test_autograph_api_is_accepted():
    f = tf.autograph.experimental.do_not_convert(lambda x: x + 1)
    assert f(1) == 2 and tf.autograph.to_graph(f) is f
    assert tf.autodiff.GradientTape is tf.GradientTape


def test_replay_inside_a_trace_keeps_custom_gradients():
    # A traced function replayed while another traces: its custom autograd calls
    # (rsqrt's gradient) are recorded by the outer trace too, so replays of the
    # outer function train as four eager steps do.
    def run(m, traced):
        v = m.Variable([1.0, 2.0])

        def inner(x):
            with m.GradientTape() as t:
                y = m.reduce_sum(m.math.rsqrt(v * x) + v)
            v.assign_sub(0.1 * t.gradient(y, v))

        def outer(x):
            inner(x)
            inner(x)

        if traced:
            inner, outer = m.function(inner), m.function(outer)
        x = m.constant([4.0, 3.0])
        inner(x)
        outer(x)
        outer(x)
        return v.numpy()

    np.testing.assert_allclose(run(tf, True), run(tf, False), rtol=1e-6)
    np.testing.assert_allclose(run(tf, True), run(real_tf(), True), rtol=1e-5)
