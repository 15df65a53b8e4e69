"""``tf.function`` programs in the style of TF's guide on functions, run under real TF
and under torchflow and compared: what runs once (Python, at trace) and what runs on
every call (ops, variable updates, ``py_function``), trace counts, values, gradients
through traced functions, Keras training steps, and what a user sees printed.

Known difference, documented in docs/function.md: a signature with unknown
dimensions (``input_signature`` with ``None``) records again, running the Python body
again, for each new concrete shape; its trace count is TF's.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def side_effects(m):
    """Python side effects at trace time only; py_function and variable writes on
    every call; one trace per signature."""
    trace_log, run_log = [], []
    v = m.Variable(0.0)

    @m.function
    def f(x, scale=1):
        trace_log.append(("trace", x.dtype.name, tuple(x.shape), scale))
        m.py_function(lambda t: run_log.append(t.numpy().tolist()), inp=[x], Tout=[])
        v.assign_add(m.reduce_sum(x) * scale)
        return v * 2.0 + m.cast(m.size(x), m.float32)

    outs = []
    for x, s in [([1.0], 1), ([2.0], 1), ([1.0, 2.0], 1), ([3.0], 2), ([4.0], 1), ([5.0], 2)]:
        outs.append(float(f(m.constant(x), s)))
    return trace_log, run_log, outs, float(v.numpy()), f.experimental_get_tracing_count()


def variables_on_first_call(m):
    """The guide's Count module: a variable made on the first call only."""

    class Count(m.Module):
        def __init__(self):
            self.count = None

        @m.function
        def __call__(self):
            if self.count is None:
                self.count = m.Variable(0)
            return self.count.assign_add(1)

    c = Count()
    return [int(c().numpy()) for _ in range(4)]


def custom_training_loop(m):
    """A Keras model trained by a GradientTape step inside tf.function, with a
    metric, Adam and SGD with momentum; the losses and weights after the steps."""
    m.random.set_seed(0)
    rng = np.random.RandomState(0)
    xs = rng.randn(96, 8).astype(np.float32)
    ys = rng.randint(0, 3, 96).astype(np.int64)
    init = [rng.randn(8, 16).astype(np.float32) * 0.3, np.zeros(16, np.float32),
            rng.randn(16, 3).astype(np.float32) * 0.3, np.zeros(3, np.float32)]
    results = []
    for opt in (m.keras.optimizers.Adam(0.01), m.keras.optimizers.SGD(0.1, momentum=0.9)):
        model = m.keras.Sequential([m.keras.layers.Dense(16, activation="relu",
                                                         input_shape=(8,)),
                                    m.keras.layers.Dense(3)])
        model.set_weights(init)
        loss_fn = m.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        acc = m.keras.metrics.SparseCategoricalAccuracy()

        @m.function
        def step(x, y, model=model, opt=opt, loss_fn=loss_fn, acc=acc):
            with m.GradientTape() as tape:
                logits = model(x, training=True)
                loss = loss_fn(y, logits)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            acc.update_state(y, logits)
            return loss

        losses = [float(step(m.constant(xs[i:i + 32]), m.constant(ys[i:i + 32])))
                  for _ in range(3) for i in range(0, 96, 32)]
        results.append((losses, float(acc.result()), [w.copy() for w in model.get_weights()],
                        step.experimental_get_tracing_count()))
    return results


def gradients_through_functions(m):
    """A tape around calls of a traced function (variables and watched inputs), a
    tape inside one, second order, and a nested tf.function."""
    w = m.Variable([[1.0, -2.0], [0.5, 3.0]])

    @m.function
    def inner(x):
        return m.reduce_sum(m.tanh(m.matmul(x, w)))

    @m.function
    def outer(x):
        return inner(x) * 2.0 + m.reduce_sum(x * x)

    out = []
    for vals in ([[1.0, 2.0]], [[0.5, -1.0]]):
        x = m.constant(vals)
        with m.GradientTape() as t:
            t.watch(x)
            y = outer(x)
        gx, gw = t.gradient(y, [x, w])
        out.append((float(y), gx.numpy(), gw.numpy()))

    @m.function
    def second(x):
        with m.GradientTape() as t2:
            t2.watch(x)
            with m.GradientTape() as t1:
                t1.watch(x)
                y = x ** 3
            g = t1.gradient(y, x)
        return g, t2.gradient(g, x)

    for x in (2.0, 3.0):
        g, h = second(m.constant(x))
        out.append((float(g), float(h)))
    return out


def aliasing_and_structures(m):
    """The same tensor passed twice, then two different ones; dict and tuple outputs;
    Python values in the signature."""

    @m.function
    def f(a, b, mode="sum"):
        if mode == "sum":
            return {"s": a + b, "p": (a * b, m.constant(1))}
        return {"s": a - b, "p": (a / b, m.constant(2))}

    x, y = m.constant([1.0, 2.0]), m.constant([3.0, 5.0])
    res = [f(x, x), f(x, y), f(y, x, mode="diff"), f(x, y, "diff")]
    return [(r["s"].numpy(), r["p"][0].numpy(), int(r["p"][1])) for r in res], \
        f.experimental_get_tracing_count()


def keras_fit_custom_train_step(m):
    """Model.fit with a custom train_step: how often its Python runs (at trace
    time), and the losses, as tf.keras gives them."""
    calls = []

    class MyModel(m.keras.Model):
        def train_step(self, data):
            calls.append(len(data))
            x, y = data
            with m.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compiled_loss(y, y_pred)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            self.compiled_metrics.update_state(y, y_pred)
            return {mm.name: mm.result() for mm in self.metrics}

    m.random.set_seed(1)
    rng = np.random.RandomState(1)
    inp = m.keras.Input((4,))
    model = MyModel(inp, m.keras.layers.Dense(1, kernel_initializer="ones")(inp))
    model.compile("sgd", "mse", metrics=["mae"])
    x = rng.randn(64, 4).astype(np.float32)
    y = x.sum(1, keepdims=True) * 0.5
    hist = model.fit(x, y, batch_size=16, epochs=3, verbose=0, shuffle=False)
    return len(calls) > 0, hist.history


@pytest.mark.parametrize("program", [side_effects, variables_on_first_call,
                                     aliasing_and_structures])
def test_same_results_as_tf(program):
    rtf = real_tf()
    assert _norm(program(tf)) == _norm(program(rtf))


def test_custom_training_loop_matches_tf():
    rtf = real_tf()
    ours, theirs = custom_training_loop(tf), custom_training_loop(rtf)
    for (l1, a1, w1, n1), (l2, a2, w2, n2) in zip(ours, theirs):
        np.testing.assert_allclose(l1, l2, rtol=2e-5, atol=2e-6)
        assert abs(a1 - a2) < 1e-6
        for p, q in zip(w1, w2):
            np.testing.assert_allclose(p, q, rtol=2e-4, atol=2e-5)
        assert n1 == n2 == 2  # TF traces twice when the first trace creates variables


def test_gradients_through_functions_match_tf():
    rtf = real_tf()
    for a, b in zip(gradients_through_functions(tf), gradients_through_functions(rtf)):
        for p, q in zip(a, b):
            np.testing.assert_allclose(p, q, rtol=1e-5, atol=1e-6)


def test_keras_fit_custom_train_step_matches_tf():
    rtf = real_tf()
    ran1, h1 = keras_fit_custom_train_step(tf)
    ran2, h2 = keras_fit_custom_train_step(rtf)
    assert ran1 and ran2
    for k in h2:
        np.testing.assert_allclose(h1[k], h2[k], rtol=1e-5, atol=1e-6)


def test_replay_does_not_run_python_again():
    # The body's Python runs once per recording: later calls replay it.
    n = []

    @tf.function
    def f(x):
        n.append(1)
        return tf.nn.relu(x) * 3.0 + 1.0

    for i in range(5):
        np.testing.assert_allclose(f(tf.constant([float(i) - 2.0, 1.0])).numpy(),
                                   np.maximum([float(i) - 2.0, 1.0], 0) * 3.0 + 1.0)
    assert len(n) == 1


def test_random_ops_differ_between_calls():
    @tf.function
    def f():
        return tf.random.uniform([4])

    a, b = f().numpy(), f().numpy()
    assert not np.array_equal(a, b)
    assert f.experimental_get_tracing_count() == 1


def test_data_dependent_python_falls_back_to_eager_with_right_values():
    # Python control flow on a tensor value (TF's AutoGraph converts it): the
    # function runs eagerly, with the values TF gives.
    @tf.function
    def f(x):
        if tf.reduce_sum(x) > 0:
            return x * 2.0
        return -x

    assert f(tf.constant([1.0])).numpy().tolist() == [2.0]
    assert f(tf.constant([-1.0])).numpy().tolist() == [1.0]


def test_run_functions_eagerly_runs_python_every_call():
    n = []

    @tf.function
    def f(x):
        n.append(1)
        return x + 1

    tf.config.run_functions_eagerly(True)
    try:
        f(tf.constant(1.0))
        f(tf.constant(1.0))
    finally:
        tf.config.run_functions_eagerly(False)
    assert len(n) == 2


def test_variable_created_on_every_trace_raises():
    # TF traces twice on the first call and raises there; torchflow's second trace
    # is the next call's, which raises the same error.
    @tf.function
    def f(x):
        v = tf.Variable(1.0)
        v.assign_add(x)
        return v

    with pytest.raises(ValueError, match="singleton tf.Variables"):
        f(1.0)
        f(1.0)


def test_pretty_printed_signatures_in_tf24_format():
    # TF 2.4's format (TF 2.21 prints "Input Parameters:" instead; 2.4 wins).
    @tf.function
    def double(a):
        return a + a

    double(tf.constant(1))
    double(tf.constant(1.5))
    assert double.pretty_printed_concrete_signatures() == (
        "double(a)\n  Args:\n    a: int32 Tensor, shape=()\n  Returns:\n"
        "    int32 Tensor, shape=()\n\n"
        "double(a)\n  Args:\n    a: float32 Tensor, shape=()\n  Returns:\n"
        "    float32 Tensor, shape=()")

    @tf.function
    def pow_(a, b):
        return a ** b

    square = pow_.get_concrete_function(a=tf.TensorSpec([3], tf.float32), b=2)
    assert str(square).startswith("ConcreteFunction pow_(a, b=2)\n  Args:\n"
                                  "    a: float32 Tensor, shape=(3,)")
    assert square(tf.constant([1.0, 2.0, 3.0])).numpy().tolist() == [1.0, 4.0, 9.0]
    with pytest.raises(TypeError):
        square(tf.constant([1.0, 2.0, 3.0]), b=3)


def _norm(x):
    if isinstance(x, dict):
        return {k: _norm(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_norm(e) for e in x)
    if isinstance(x, np.ndarray):
        return x.round(5).tolist()
    if isinstance(x, float):
        return round(x, 5)
    return x


def test_bool_of_a_traced_tensor_without_autograph_raises_as_tf():
    rtf = real_tf()
    for m in (rtf, tf):
        @m.function(autograph=False)
        def f(x):
            if x > 0:
                return x
            return -x

        with pytest.raises(m.errors.OperatorNotAllowedInGraphError):
            f(m.constant(1.0))


def cond_and_while_in_function(m):
    """tf.cond and tf.while_loop on input-dependent tensors in a traced function:
    both branches traced once (their Python runs once each, as in TF), values per
    call as TF gives them."""
    log = []

    @m.function
    def f(x):
        log.append("trace")
        y = m.cond(m.reduce_sum(x) > 0, lambda: (log.append("T"), x * 2.0)[1],
                   lambda: (log.append("F"), -x)[1])
        (z,) = m.while_loop(lambda z: m.reduce_sum(z) > 1, lambda z: (m.tanh(z),), (x,))
        (n,) = m.while_loop(lambda i: i * i < m.cast(m.reduce_max(m.abs(x)), m.int32) * 7,
                            lambda i: (i + 1,), (m.constant(0),), maximum_iterations=50)
        return y, z, n

    outs = []
    for v in ([1.0, 2.0, 3.0], [-0.1, -0.2, 0.05], [5.0, -5.0, 2.0]):
        y, z, n = f(m.constant(v))
        outs.append((y.numpy(), z.numpy(), int(n)))
    return log, outs, f.experimental_get_tracing_count()


def test_cond_and_while_in_function_match_tf():
    rtf = real_tf()
    (log1, outs1, n1), (log2, outs2, n2) = cond_and_while_in_function(tf), \
        cond_and_while_in_function(rtf)
    assert log1 == log2 and n1 == n2
    for a, b in zip(outs1, outs2):
        for p, q in zip(a, b):
            np.testing.assert_allclose(p, q, rtol=1e-5, atol=1e-6)


def symbolic_gradients(m):
    """tf.gradients and tf.hessians inside tf.function (graph-mode gradients)."""
    w = m.Variable([[1.0, 2.0], [3.0, -1.0]])

    @m.function
    def f(x):
        y = m.reduce_sum(m.tanh(m.matmul(x, w)) ** 2)
        gx, gw = m.gradients(y, [x, w])
        (h,) = m.hessians(m.reduce_sum(x ** 3), x)
        (unconnected,) = m.gradients(y, m.constant(1.0))
        return gx, gw, h, unconnected is None

    return [tuple(np.asarray(t) for t in f(m.constant(v)))
            for v in ([[1.0, 0.5]], [[-0.3, 2.0]])]


def test_symbolic_gradients_in_function_match_tf():
    rtf = real_tf()
    for a, b in zip(symbolic_gradients(tf), symbolic_gradients(rtf)):
        for p, q in zip(a, b):
            np.testing.assert_allclose(p, q, rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="eager execution"):
        tf.gradients(tf.constant(1.0), tf.constant(2.0))


def test_gather_replays_and_bad_index_raises_tf_error():
    emb = tf.Variable(np.arange(12, dtype=np.float32).reshape(6, 2))
    n = []

    @tf.function
    def f(i):
        n.append(1)
        return tf.reduce_sum(tf.gather(emb, i) * 2.0)

    assert float(f(tf.constant([0, 5]))) == 2.0 * (0 + 1 + 10 + 11)
    assert float(f(tf.constant([1, 2]))) == 2.0 * (2 + 3 + 4 + 5)
    assert len(n) == 1  # replayed: the bounds check does not read the indices back
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 9"):
        f(tf.constant([1, 9]))


def test_retracing_warning_as_tf(caplog):
    # TF warns when 5 traces fall within the last 10 calls (at most twice per Python
    # function), also for a tf.function made again in a loop.
    import logging

    def g(x):
        return x * 2

    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        for _ in range(4):
            tf.function(g)(tf.constant(1.0))
        assert not [r for r in caplog.records if "retracing" in r.getMessage()]
        for _ in range(6):
            tf.function(g)(tf.constant(1.0))
    msgs = [r.getMessage() for r in caplog.records if "retracing" in r.getMessage()]
    assert len(msgs) == 2 and msgs[0].startswith("5 out of the last 5 calls to <function")


def ragged_programs(m):
    """Composite values through traced functions: a RaggedTensorSpec signature, a
    concrete function called with new values, ragged outputs rebuilt per call."""

    @m.function(input_signature=[m.RaggedTensorSpec(shape=[None, None], dtype=m.int32)])
    def g(rt):
        return rt * 2 + 1, m.reduce_sum(rt, axis=1)

    @m.function
    def h(rt):
        return m.reduce_max(rt, axis=1)

    out = []
    for v in ([[1, 2], [3]], [[4], [5, 6]], [[7, 8, 9], [], [1]]):
        a, b = g(m.ragged.constant(v))
        out.append((a.to_list(), b.numpy().tolist(), h(m.ragged.constant(v)).numpy().tolist()))
    cf = g.get_concrete_function()
    a, _ = cf(m.ragged.constant([[2], [3, 4]]))
    out.append(a.to_list())
    return out, g.experimental_get_tracing_count()


def test_ragged_through_functions_match_tf():
    rtf = real_tf()
    assert _norm(ragged_programs(tf)) == _norm(ragged_programs(rtf))


def test_two_threads_trace_at_once():
    # Each thread records only its own calls: variable writes (host nodes) of one
    # trace are not lost when another thread starts tracing meanwhile.
    import threading

    vs = [tf.Variable(0.0), tf.Variable(0.0)]
    barrier = threading.Barrier(2)

    def make(k):
        @tf.function
        def f(x):
            barrier.wait(timeout=30)
            vs[k].assign_add(x)
            return vs[k] * 1.0
        return f

    fns = [make(0), make(1)]
    results = {}

    def run(k):
        results[k] = [float(fns[k](tf.constant(float(k + 1)))) for _ in range(1)]

    threads = [threading.Thread(target=run, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    barrier.abort()  # later calls replay without waiting
    for _ in range(3):
        fns[0](tf.constant(1.0))
        fns[1](tf.constant(2.0))
    assert results == {0: [1.0], 1: [2.0]}
    assert float(vs[0].numpy()) == 4.0 and float(vs[1].numpy()) == 8.0


def iterator_steps(m):
    """A tf.data iterator passed to a traced step: next() runs on every call (TF's
    distributed-input tutorial's pattern), plainly and under a strategy."""
    it = iter(m.data.Dataset.range(10).batch(2))

    @m.function
    def step(iterator):
        return m.reduce_sum(next(iterator))

    plain = [int(step(it)) for _ in range(4)]
    strategy = m.distribute.OneDeviceStrategy("/cpu:0")
    di = iter(strategy.experimental_distribute_dataset(m.data.Dataset.range(8).batch(4)))

    @m.function
    def train_step(iterator):
        return strategy.run(lambda x: m.reduce_sum(x * 2), args=(next(iterator),))

    dist = [int(strategy.reduce("SUM", train_step(di), axis=None)) for _ in range(2)]
    return plain, dist


def test_iterator_argument_steps_match_tf():
    assert iterator_steps(tf) == iterator_steps(real_tf())


def range_loop_program(m):
    """AutoGraph's ``for i in tf.range(n)`` with a tensor bound, if/elif inside: values
    per call as TF's, and a second call with another bound replays (no Python runs)."""
    log = []

    @m.function
    def f(n):
        log.append("trace")
        total = m.constant(0)
        for i in m.range(1, n + 1):
            if i % 3 == 0:
                total += i * 10
            elif i % 2 == 0:
                total -= i
            else:
                total += 1
        return total

    vals = [int(f(m.constant(k))) for k in (5, 20, 0)]
    return vals, log.count("trace"), f.experimental_get_tracing_count()


def test_autograph_range_loop_matches_tf():
    ours, theirs = range_loop_program(tf), range_loop_program(real_tf())
    assert ours[0] == theirs[0] and ours[2] == theirs[2]
    assert ours[1] == theirs[1] == 1  # traced once; the later calls replay
