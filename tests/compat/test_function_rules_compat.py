"""TF's rules for reading tensor values inside functions, run under real TF and under
torchflow and compared: ``.numpy()``, NumPy conversion and the builtin conversions of a
graph tensor in a ``tf.function``, a tf.data function and a Keras step traced by
``fit``; what keeps its value (captured eager tensors, ``tf.init_scope``,
``py_function`` / ``numpy_function`` bodies, ``run_functions_eagerly``, Keras
``run_eagerly=True``); ``tf.gradients(stop_gradients=)``.

TF 2.4 wins over the installed TF 2.21 in two texts: 2.4's graph tensor class is named
``Tensor`` (2.21: ``SymbolicTensor``), and its NumPy-conversion error says "a symbolic
Tensor" and ends without a period (2.21: "a symbolic tf.Tensor", "... supported.").
``_as_tf24`` rewrites real TF's texts to 2.4's before they are compared.

Known differences (not compared): with AutoGraph on TF turns ``float(t)``/``int(t)``
into casts, while torchflow returns the trace's Python value; a constant made inside
the function from Python values keeps its value here (``tf.constant(3.).numpy()``
works), as the recording does not follow it; ``[1, 2][t]`` says "'Tensor' object cannot
be interpreted as an integer" (TF: "list indices must be integers or slices, not
Tensor"); a tf.data function that reads ``.numpy()`` fails at the first element
(TF: when ``map`` is called).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _as_tf24(text: str) -> str:
    text = text.replace("SymbolicTensor", "Tensor").replace("symbolic tf.Tensor",
                                                            "symbolic Tensor")
    return re.sub(r"which is not supported\.$", "which is not supported", text)


def _outcome(fn):
    """What ``fn()`` gives: ("ok", value) or (error type name, TF 2.4 message)."""
    try:
        v = fn()
    except Exception as e:  # noqa: BLE001 - every outcome is compared with real TF
        return (type(e).__name__, _as_tf24(str(e)))
    if hasattr(v, "numpy") and not isinstance(v, np.ndarray):
        return ("tensor", None)  # a symbolic value in TF (AutoGraph's cast)
    return ("ok", np.asarray(v).tolist())


def value_reads(m, autograph):
    """Reads of inputs, of computed tensors and of captured eager tensors."""
    outer = m.constant([5.0, 6.0])
    log = {}

    @m.function(autograph=autograph)
    def f(x, i):
        y = x * 2.0
        log["x.numpy"] = _outcome(lambda: x.numpy())
        log["y.numpy"] = _outcome(lambda: y.numpy())
        log["sum.numpy"] = _outcome(lambda: m.reduce_sum(y).numpy())
        log["np.array(x)"] = _outcome(lambda: np.array(x))
        log["np.asarray(x)"] = _outcome(lambda: np.asarray(x))
        log["np.sum(x)"] = _outcome(lambda: np.sum(x))
        log["np.mean(x)"] = _outcome(lambda: np.mean(x))
        log["x.__array__"] = _outcome(lambda: x.__array__())
        log["outer.numpy"] = _outcome(lambda: outer.numpy())
        log["np.array(outer)"] = _outcome(lambda: np.array(outer))
        log["complex(x[0])"] = _outcome(lambda: complex(x[0]))
        log["executing_eagerly"] = m.executing_eagerly()
        return y + m.cast(i, m.float32)

    out = f(m.constant([1.0, 2.0]), m.constant(3))
    return log, out.numpy().tolist()


@pytest.mark.parametrize("autograph", [True, False])
def test_value_reads_match_tf(autograph):
    ours, theirs = value_reads(tf, autograph), value_reads(real_tf(), autograph)
    assert ours == theirs
    log = ours[0]
    assert log["x.numpy"] == ("AttributeError", "'Tensor' object has no attribute 'numpy'")
    assert log["np.array(x)"][0] == "NotImplementedError"
    assert "Cannot convert a symbolic Tensor (x:0) to a numpy array" in log["np.array(x)"][1]
    assert log["outer.numpy"] == ("ok", [5.0, 6.0])
    assert log["executing_eagerly"] is False


def computed_array_message(m):
    seen = []

    @m.function
    def f(x):
        y = m.exp(x)
        try:
            np.asarray(y)
        except NotImplementedError as e:
            seen.append(_as_tf24(str(e)))
        return y

    f(m.constant([0.0]))
    return seen


def test_numpy_call_on_computed_tensor_message():
    (ours,), (theirs,) = computed_array_message(tf), computed_array_message(real_tf())
    pattern = (r"Cannot convert a symbolic Tensor \(\w+:0\) to a numpy array\. This error "
               r"may indicate that you're trying to pass a Tensor to a NumPy call, which is "
               r"not supported")
    assert re.fullmatch(pattern, theirs), theirs
    assert re.fullmatch(pattern, ours), ours
    assert ours == theirs.replace(re.search(r"\((\w+):0\)", theirs).group(1), "exp")


def builtin_conversions_without_autograph(m):
    log = {}

    @m.function(autograph=False)
    def f(x, i):
        log["float(x)"] = _outcome(lambda: float(x))
        log["int(x)"] = _outcome(lambda: int(x))
        log["int(i)"] = _outcome(lambda: int(i))
        log["range(i)"] = _outcome(lambda: list(range(i)))
        return x

    f(m.constant(1.5), m.constant(2))
    return log


def test_builtin_conversions_without_autograph_match_tf():
    ours = builtin_conversions_without_autograph(tf)
    theirs = builtin_conversions_without_autograph(real_tf())
    assert ours == theirs
    assert ours["float(x)"][0] == "TypeError"
    assert ours["range(i)"] == ("TypeError", "'Tensor' object cannot be interpreted as an "
                                             "integer")


def eager_islands(m):
    """Values that stay readable in a function: init_scope, py_function and
    numpy_function bodies."""
    log = {}

    @m.function
    def f(x):
        with m.init_scope():
            d = m.constant([4.0]) * 2.0
            log["in init_scope"] = _outcome(lambda: d.numpy())
        log["init_scope tensor later"] = _outcome(lambda: d.numpy())

        def body(a):
            log.setdefault("py_function", []).append(a.numpy().tolist())
            return a * 3.0

        def np_body(a):
            log.setdefault("numpy_function", []).append((type(a).__name__, a.tolist()))
            return a + np.float32(1.0)

        y = m.py_function(body, [x], m.float32)
        z = m.numpy_function(np_body, [x], m.float32)
        return y + z + d

    outs = [f(m.constant([1.0])).numpy().tolist(), f(m.constant([2.0])).numpy().tolist()]
    return log, outs


def test_eager_islands_keep_values_as_in_tf():
    ours, theirs = eager_islands(tf), eager_islands(real_tf())
    assert ours == theirs
    assert ours[0]["py_function"] == [[1.0], [2.0]]


def run_functions_eagerly(m):
    log = []

    @m.function
    def f(x):
        log.append(x.numpy().tolist())
        return x + 1.0

    m.config.run_functions_eagerly(True)
    try:
        out = f(m.constant([1.0, 2.0])).numpy().tolist()
    finally:
        m.config.run_functions_eagerly(False)
    return log, out


def test_run_functions_eagerly_keeps_numpy():
    assert run_functions_eagerly(tf) == run_functions_eagerly(real_tf()) == \
        ([[1.0, 2.0]], [2.0, 3.0])


def dataset_map_reads(m):
    ds = m.data.Dataset.from_tensor_slices([1.0, 2.0, 3.0])
    outcomes = []
    try:
        list(ds.map(lambda x: x.numpy() * 2))
        outcomes.append("mapped")
    except AttributeError as e:
        outcomes.append(("AttributeError", _as_tf24(str(e)).splitlines()[-1].strip()))
    doubled = ds.map(lambda x: m.py_function(lambda v: v.numpy() * 2, [x], m.float32))
    outcomes.append([float(v) for v in doubled])
    return outcomes


def test_dataset_map_function_is_a_graph_as_in_tf():
    ours, theirs = dataset_map_reads(tf), dataset_map_reads(real_tf())
    assert ours[1] == theirs[1] == [2.0, 4.0, 6.0]
    assert ours[0][0] == theirs[0][0] == "AttributeError"
    assert "'Tensor' object has no attribute 'numpy'" in ours[0][1]
    assert "'Tensor' object has no attribute 'numpy'" in theirs[0][1]


def keras_step_reads(m, run_eagerly):
    class M(m.keras.Model):
        def train_step(self, data):
            x, y = data
            with m.GradientTape() as tape:
                loss = m.reduce_mean(m.square(self(x) - y))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            return {"loss": loss, "as_numpy": float(loss.numpy())}

    inp = m.keras.Input((2,))
    model = M(inp, m.keras.layers.Dense(1, kernel_initializer="ones")(inp))
    model.compile(optimizer=m.keras.optimizers.SGD(0.1), run_eagerly=run_eagerly)
    x = np.ones((4, 2), np.float32)
    y = np.zeros((4, 1), np.float32)
    try:
        h = model.fit(x, y, epochs=1, batch_size=4, verbose=0)
    except AttributeError as e:
        return ("AttributeError", "'Tensor' object has no attribute 'numpy'" in _as_tf24(str(e)))
    return ("ok", np.round(h.history["loss"], 5).tolist(),
            np.round(h.history["as_numpy"], 5).tolist())


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_keras_train_step_reads_match_tf(run_eagerly):
    ours, theirs = keras_step_reads(tf, run_eagerly), keras_step_reads(real_tf(), run_eagerly)
    assert ours == theirs
    assert ours[0] == ("ok" if run_eagerly else "AttributeError")


def test_eager_reads_unchanged_and_replays_after_refused_read():
    """Eager values read as before; a function that catches the refused read still
    traces once and replays with TF's values."""
    t = tf.constant([1.0, 2.0])
    assert t.numpy().tolist() == [1.0, 2.0] and float(t[0]) == 1.0
    assert np.asarray(t).tolist() == [1.0, 2.0] and int(tf.constant(3)) == 3
    trace = []

    def body(m):
        @m.function
        def f(x):
            try:
                x.numpy()
                trace.append("read")
            except AttributeError:
                trace.append("refused")
            return x * 2.0

        return [f(m.constant([v])).numpy().tolist() for v in (1.0, 2.0, 3.0)], \
            f.experimental_get_tracing_count()

    ours = body(tf)
    ours_trace, trace[:] = list(trace), []
    assert ours == body(real_tf()) == ([[2.0], [4.0], [6.0]], 1)
    assert ours_trace == trace == ["refused"]


def _values(x):
    if isinstance(x, (list, tuple)):
        return [_values(e) for e in x]
    return None if x is None else np.round(np.asarray(x), 5).tolist()


def stop_gradients_doc_example(m):
    """TF's docs example of ``stop_gradients`` (``a`` an argument here: see the test)."""
    @m.function
    def f(a):
        b = 2 * a
        return (m.gradients(a + b, [a, b], stop_gradients=[a, b]),
                m.gradients(a + b, [a, b]))

    return _values(f(m.constant(0.0)))


def test_stop_gradients_docs_example_matches_tf():
    assert stop_gradients_doc_example(tf) == stop_gradients_doc_example(real_tf()) == \
        [[1.0, 1.0], [3.0, 1.0]]


def constants_doc_example(m):
    """The docs example as written: ``a`` a ``tf.constant`` made inside the function
    (a graph's constants are differentiable); called twice (the second replays)."""
    @m.function
    def f():
        a = m.constant(0.)
        b = 2 * a
        return (m.gradients(a + b, [a, b], stop_gradients=[a, b]),
                m.gradients(a + b, [a, b]), m.gradients(b * b, a))

    return [_values(f()), _values(f())]


def test_gradients_of_constants_made_in_the_function_match_tf():
    want = constants_doc_example(real_tf())
    assert constants_doc_example(tf) == want
    assert want[0] == [[1.0, 1.0], [3.0, 1.0], [0.0]]


def stop_gradients_program(m):
    """Stops inside a chain, through a variable, with grad_ys, unconnected_gradients
    and a y that only reaches an x through a stop tensor; replayed on a second call."""
    v = m.Variable([1.0, 2.0])
    side = []

    @m.function
    def f(x):
        side.append("trace")
        h = x * x
        z = m.sin(h) * v
        y = m.reduce_sum(z * h)
        return (m.gradients(y, [x, h, v], stop_gradients=[h]),
                m.gradients(y, [x, v], stop_gradients=z),
                m.gradients(y, [x, h, z], stop_gradients=[z], unconnected_gradients="zero"),
                m.gradients([y, h], [x], grad_ys=[m.constant(2.0), m.constant([1.0, 3.0])],
                            stop_gradients=[h]),
                m.gradients(m.reduce_sum(h), [x], stop_gradients=[h],
                            unconnected_gradients=m.UnconnectedGradients.ZERO))

    outs = [_values(f(m.constant(c))) for c in ([0.5, 1.5], [2.0, -1.0])]
    return outs, side


def test_stop_gradients_match_tf_and_replay():
    ours, theirs = stop_gradients_program(tf), stop_gradients_program(real_tf())
    assert ours == theirs
    (first, second), side = ours
    assert side == ["trace"] and first != second  # the replay computed new gradients
    assert first[0][0] is None and first[1][1] is None  # cut off, as TF answers


def concrete_call_errors(m):
    """Binding errors of a concrete function's call: the error types, and which calls
    bind (by position, by name)."""
    @m.function
    def f(x, y, scale=2):
        return x * y * scale

    c = f.get_concrete_function(m.TensorSpec([None], m.float32),
                                m.TensorSpec([None], m.float32))
    a = m.constant([1.0])
    calls = {"too many": lambda: c(a, a, a, a), "unexpected": lambda: c(a, a, z=a),
             "twice": lambda: c(a, a, x=a), "missing": lambda: c(a), "none": lambda: c(),
             "python value": lambda: c(a, a, 3), "by name": lambda: c(y=a * 3.0, x=a),
             "positional": lambda: c(a, a * 2.0)}
    out = {}
    for k, call in calls.items():
        try:
            out[k] = ("ok", call().numpy().tolist())
        except TypeError as e:
            out[k] = ("TypeError", str(e))
    return out


def test_concrete_function_binding_errors():
    """One binder (function_signature.bind_keywords) serves traced and restored concrete
    functions; the restored path is covered by tests/compat/test_saved_model_load.py.
    Types and results are compared with TF; texts are TF 2.4's (2.21 rewrote them)."""
    ours, theirs = concrete_call_errors(tf), concrete_call_errors(real_tf())
    assert {k: v[0] for k, v in ours.items()} == {k: v[0] for k, v in theirs.items()}
    assert ours["by name"] == theirs["by name"] == ("ok", [6.0])
    assert ours["positional"] == theirs["positional"] == ("ok", [4.0])
    assert ours["too many"][1] == "f(...) takes 2 positional arguments but 4 were given."
    assert ours["unexpected"][1] == "f(...) got unexpected keyword argument 'z'."
    assert ours["twice"][1] == "f(...) got multiple values for argument 'x'."
    assert ours["missing"][1] == "f(...) missing required arguments: y."
    assert ours["none"][1] == "f(...) missing required arguments: x, y."
    assert "constructed with int value 2 in scale" in ours["python value"][1]
