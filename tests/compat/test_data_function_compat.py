"""Every tf.data user function is traced as TF traces it (issue 13).

The same programs run under real TF and torchflow; compared: the text the functions'
Python ``print``s (a trace-time side effect: once per trace, not per element), how
often a ``py_function`` inside runs (every element), ``tf.executing_eagerly()`` inside
(False), the element values, and the error types and messages. Covered: ``flat_map``,
``interleave`` (sequential, parallel, non-deterministic), ``Dataset.reduce``, ``scan``,
``group_by_window`` (key_func, reduce_func, window_size_func), ``group_by_reducer``,
``take_while``, ``window(...).flat_map``, ``bucket_by_sequence_length``,
``choose_from_datasets`` over a mapped choice dataset, ``unique`` after a map, and a
``flat_map`` whose inner dataset has its own ``map``.

Where TF 2.21's text differs from TF 2.4's, the 2.4 text is pinned (each case says so).
One difference from TF is known and not compared: torchflow traces a function at the
first element that reaches it, TF when the transformation is built; the counts and
texts are the same.
"""

from __future__ import annotations

import contextlib
import io
import sys

import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def run_both(program):
    """``program(m, log)`` under torchflow and real TF: (result, printed text) each."""
    out = []
    for m in (tf, real_tf()):
        buf = io.StringIO()
        log: dict = {"py": [], "eager": []}
        with contextlib.redirect_stdout(buf):
            result = program(m, log)
        out.append((result, buf.getvalue(), sorted(log["py"]), log["eager"]))
    return out


def counted(m, log, x, dtype):
    """``x`` (a scalar) through a py_function that logs each call (it runs for every
    element). The shape is set again: a py_function's output shape is unknown to TF,
    which would trace a reduce/scan function a second time with a relaxed state."""
    return m.reshape(m.py_function(lambda v: log["py"].append(int(v)) or v, [x], dtype), [])


def assert_same(ours, theirs):
    assert ours[0] == theirs[0]  # values
    assert ours[1] == theirs[1]  # printed text: one line per trace
    assert ours[2] == theirs[2]  # py_function calls: one per element
    assert ours[3] == theirs[3]  # executing_eagerly() seen inside


def flat_map_program(m, log):
    def f(x):
        print("trace flat_map")
        log["eager"].append(m.executing_eagerly())
        y = counted(m, log, x, m.int64)
        return m.data.Dataset.from_tensors(y).repeat(2)

    ds = m.data.Dataset.range(4).flat_map(f)
    return [[int(v) for v in ds] for _ in range(2)]


def test_flat_map_traced_once():
    ours, theirs = run_both(flat_map_program)
    assert ours[1] == "trace flat_map\n"
    assert ours[2] == sorted(list(range(4)) * 2)
    assert_same(ours, theirs)


@pytest.mark.parametrize("mode", ["sequential", "parallel", "nondeterministic"])
def test_interleave_traced_once(mode):
    def program(m, log):
        def f(x):
            print("trace interleave")
            log["eager"].append(m.executing_eagerly())
            n = counted(m, log, x, m.int64)
            return m.data.Dataset.range(n).map(lambda v: v * 10)

        kw = {} if mode == "sequential" else {
            "num_parallel_calls": 2, "deterministic": mode == "parallel"}
        ds = m.data.Dataset.range(1, 5).interleave(f, cycle_length=2, block_length=2, **kw)
        got = [int(v) for v in ds]
        return sorted(got) if mode == "nondeterministic" else got

    ours, theirs = run_both(program)
    assert ours[1] == "trace interleave\n"
    assert ours[2] == [1, 2, 3, 4]
    assert_same(ours, theirs)


def test_inner_dataset_function_traced_once():
    def program(m, log):
        def inner(v):
            print("trace inner")
            return counted(m, log, v, m.int64) + 1

        def f(x):
            print("trace outer")
            return m.data.Dataset.from_tensors(x).map(inner)

        return [int(v) for v in m.data.Dataset.range(3).flat_map(f)]

    ours, theirs = run_both(program)
    assert ours[1] == "trace outer\ntrace inner\n"
    assert_same(ours, theirs)


@pytest.mark.parametrize("where", ["flat_map", "interleave", "group_by_window"])
def test_inner_function_capturing_the_element_gets_each_elements_value(where):
    # The inner map captures the outer element: the copies of the first trace's
    # dataset cannot hold the new value, so torchflow runs the body per element here
    # (TF traces it once); the values must be TF's.
    def program(m, log):
        ds = m.data.Dataset.range(1, 5)
        if where == "flat_map":
            ds = ds.flat_map(lambda x: m.data.Dataset.range(2).map(lambda y: y + 10 * x))
        elif where == "interleave":
            ds = ds.interleave(lambda x: m.data.Dataset.range(x).map(lambda y: y + 10 * x),
                               cycle_length=2, num_parallel_calls=2)
        else:
            ds = ds.group_by_window(lambda x: x % 2,
                                    lambda k, w: w.batch(2).map(lambda b: b + 100 * k),
                                    window_size=2)
            return [v.numpy().tolist() for v in ds]
        return [int(v) for v in ds]

    ours, theirs = run_both(program)
    assert ours[0] == theirs[0]


def test_reduce_traced_once():
    def program(m, log):
        def r(state, x):
            print("trace reduce")
            log["eager"].append(m.executing_eagerly())
            return state + counted(m, log, x, m.int64)

        return int(m.data.Dataset.range(5).reduce(m.constant(0, m.int64), r))

    ours, theirs = run_both(program)
    assert ours[0] == 10
    assert ours[1] == "trace reduce\n"
    assert_same(ours, theirs)


def test_reduce_tuple_state_and_element():
    def program(m, log):
        ds = m.data.Dataset.range(4).map(lambda x: (x, m.cast(x, m.float32)))
        s = ds.reduce((m.constant(0, m.int64), m.constant(1.0)),
                      lambda st, el: (st[0] + el[0], st[1] * (el[1] + 1.0)))
        return int(s[0]), float(s[1])

    ours, theirs = run_both(program)
    assert ours[0] == theirs[0] == (6, 24.0)


@pytest.mark.parametrize("case", ["scalar", "tuple"])
def test_reduce_state_dtype_error(case):
    def program(m, log):
        def fn(s, x):
            if case == "scalar":
                return m.cast(x, m.float32)
            return s[0] + x, m.cast(s[0], m.int32)

        init = m.constant(0, m.int32) if case == "scalar" else (
            m.constant(0, m.int64), m.constant(0.0))
        try:
            m.data.Dataset.range(3).reduce(init, fn)
        except TypeError as e:
            return str(e)
        return None

    ours, theirs = run_both(program)
    # TF 2.4: "... Expected %s; got %s." (TF 2.21 writes "Expected %s but got %s.").
    expected, got = ("<dtype: 'int32'>", "<dtype: 'float32'>") if case == "scalar" else (
        "(tf.int64, tf.float32)", "(tf.int64, tf.int32)")
    assert ours[0] == ("The element types for the new state must match the initial state. "
                       f"Expected {expected}; got {got}.")
    assert theirs[0] == ours[0].replace("; got", " but got")


def test_scan_traced_once_and_element_passed_whole():
    def program(m, log):
        def step(state, element):
            print("trace scan")
            log["eager"].append(m.executing_eagerly())
            a, b = element  # a tuple element is one argument, as in TF
            return state + counted(m, log, a, m.int64), state * 10 + b

        ds = m.data.Dataset.range(4).map(lambda x: (x, x + 100))
        return [int(v) for v in ds.scan(m.constant(0, m.int64), step)]

    ours, theirs = run_both(program)
    assert ours[1] == "trace scan\n"
    assert ours[2] == [0, 1, 2, 3]
    assert_same(ours, theirs)


def test_scan_experimental_function_spelling():
    def program(m, log):
        ds = m.data.Dataset.range(5).apply(m.data.experimental.scan(
            m.constant(1, m.int64), lambda s, x: (s * 2, s + x)))
        return [int(v) for v in ds]

    ours, theirs = run_both(program)
    assert ours[0] == theirs[0] == [1, 3, 6, 11, 20]


@pytest.mark.parametrize("case", ["not_a_pair", "state_dtype"])
def test_scan_errors(case):
    def program(m, log):
        fn = (lambda s, x: s + x) if case == "not_a_pair" else (
            lambda s, x: (m.cast(s, m.float32), x))
        try:
            # TF raises when the transformation is built; torchflow at its first element.
            list(m.data.Dataset.range(3).scan(m.constant(0, m.int64), fn))
        except TypeError as e:
            return str(e)
        return None

    ours, theirs = run_both(program)
    if case == "not_a_pair":
        # TF 2.4's text (TF 2.21: "Invalid `scan_func`. `scan_func` should return a pair
        # consisting of new state and the output value but its return type is ...").
        assert ours[0] == ("The scan function must return a pair comprising the new state "
                           "and the output value.")
        assert "return a pair" in theirs[0]
    else:
        # TF 2.4's text (TF 2.21 puts "Invalid `scan_func`. " before it and ", got").
        assert ours[0] == ("The element types for the new state must match the initial "
                           "state. Expected <dtype: 'int64'>; got <dtype: 'float32'>.")
        assert theirs[0] == "Invalid `scan_func`. " + ours[0].replace("; got", ", got")


def test_group_by_window_functions_traced_once():
    def program(m, log):
        def key(x):
            print("trace key")
            log["eager"].append(m.executing_eagerly())
            return counted(m, log, x, m.int64) % 2

        def reduce(k, window):
            print("trace reduce_func")
            return window.batch(2)

        def size(k):
            print("trace window_size_func")
            return m.constant(2, m.int64)

        ds = m.data.Dataset.range(7).group_by_window(key, reduce, window_size_func=size)
        return [v.numpy().tolist() for v in ds]

    ours, theirs = run_both(program)
    assert sorted(ours[1].splitlines()) == sorted(theirs[1].splitlines()) == [
        "trace key", "trace reduce_func", "trace window_size_func"]
    assert ours[0] == theirs[0]
    assert ours[2] == theirs[2] == list(range(7))
    assert ours[3] == theirs[3] == [False]


def test_group_by_window_experimental_with_window_size():
    def program(m, log):
        ds = m.data.Dataset.range(10).apply(m.data.experimental.group_by_window(
            lambda x: x % 3, lambda k, w: w.batch(3), window_size=3))
        return [v.numpy().tolist() for v in ds]

    ours, theirs = run_both(program)
    assert ours[0] == theirs[0]


def test_group_by_window_reduce_func_must_return_a_dataset():
    def program(m, log):
        try:
            list(m.data.Dataset.range(4).group_by_window(
                lambda x: x % 2, lambda k, w: k, window_size=2))
        except TypeError as e:
            return str(e)
        return None

    ours, theirs = run_both(program)
    # TF 2.4's text (TF 2.21: "Invalid `reduce_func`. `reduce_func` must return a single
    # `tf.data.Dataset` object but its return type is TensorSpec(...)").
    assert ours[0] == "`reduce_func` must return a `Dataset` object."
    assert "`reduce_func` must return a single `tf.data.Dataset` object" in theirs[0]


def test_flat_map_must_return_a_dataset():
    def program(m, log):
        try:
            list(m.data.Dataset.range(3).flat_map(lambda x: x))
        except (TypeError, AttributeError) as e:
            return type(e).__name__, str(e)
        return None

    ours, theirs = run_both(program)
    # TF 2.4: TypeError("`map_func` must return a `Dataset` object. Got <class
    # '...TensorSpec'>"); TF 2.21 fails while formatting its own message
    # (AttributeError: 'Tensor' object has no attribute '_name').
    assert ours[0] == ("TypeError", "`map_func` must return a `Dataset` object. Got "
                                    f"{type(tf.TensorSpec([], tf.int64))}")
    assert theirs[0] is not None


def test_group_by_reducer_functions_traced_once():
    def program(m, log):
        def key(x):
            print("trace key")
            return x % 3

        def init(k):
            print("trace init")
            return m.constant(0, m.int64)

        def reduce(s, x):
            print("trace reduce")
            return s + counted(m, log, x, m.int64)

        def finalize(s):
            print("trace finalize")
            return s * 10

        reducer = m.data.experimental.Reducer(init, reduce, finalize)
        ds = m.data.Dataset.range(10).apply(m.data.experimental.group_by_reducer(key, reducer))
        return sorted(int(v) for v in ds)

    ours, theirs = run_both(program)
    assert ours[0] == [120, 150, 180]
    assert sorted(ours[1].splitlines()) == sorted(theirs[1].splitlines())
    assert ours[2] == theirs[2] == list(range(10))


def test_take_while_traced_once():
    def program(m, log):
        def pred(x):
            print("trace take_while")
            log["eager"].append(m.executing_eagerly())
            return counted(m, log, x, m.int64) < 3

        return [int(v) for v in m.data.Dataset.range(7).take_while(pred)]

    ours, theirs = run_both(program)
    assert ours[0] == [0, 1, 2]
    assert ours[2] == [0, 1, 2, 3]
    assert_same(ours, theirs)


def test_window_flat_map_traced_once():
    def program(m, log):
        def f(w):
            print("trace window flat_map")
            log["eager"].append(m.executing_eagerly())
            return w.batch(3)

        return [v.numpy().tolist() for v in m.data.Dataset.range(7).window(3, 2).flat_map(f)]

    ours, theirs = run_both(program)
    assert ours[0] == [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6]]
    assert_same(ours, theirs)


def test_window_of_tuples_flat_map_zips_the_windows():
    def program(m, log):
        ds = m.data.Dataset.range(5).map(lambda x: (x, -x)).window(2)
        ds = ds.flat_map(lambda a, b: m.data.Dataset.zip((a.batch(2), b.batch(2))))
        return [(a.numpy().tolist(), b.numpy().tolist()) for a, b in ds]

    ours, theirs = run_both(program)
    assert ours[0] == theirs[0]


def test_bucket_by_sequence_length_length_function_traced_once():
    def program(m, log):
        lengths = [1, 3, 2, 5, 4, 2]
        rows = [[i + 1] * n + [0] * (5 - n) for i, n in enumerate(lengths)]
        ds = m.data.Dataset.from_tensor_slices((m.constant(rows, m.int64),
                                                m.constant(lengths, m.int32)))

        def length(row, n):
            print("trace element_length_func")
            return n

        b = ds.apply(m.data.experimental.bucket_by_sequence_length(length, [3], [2, 2]))
        return [a.numpy().tolist() for a, _ in b]

    ours, theirs = run_both(program)
    assert ours[1] == theirs[1] == "trace element_length_func\n"
    assert ours[0] == theirs[0]


def test_choose_from_datasets_with_a_mapped_choice_dataset():
    def program(m, log):
        def pick(i):
            print("trace choice")
            return counted(m, log, i, m.int64) % 2

        choice = m.data.Dataset.range(6).map(pick)
        sources = [m.data.Dataset.range(0, 100), m.data.Dataset.range(100, 200)]
        return [int(v) for v in m.data.experimental.choose_from_datasets(sources, choice)]

    ours, theirs = run_both(program)
    assert ours[0] == [0, 100, 1, 101, 2, 102]
    assert_same(ours, theirs)


def test_unique_after_a_traced_map():
    def program(m, log):
        def f(x):
            print("trace map")
            return counted(m, log, x, m.int64) % 3

        return [int(v) for v in m.data.Dataset.range(8).map(f).unique()]

    ours, theirs = run_both(program)
    assert ours[0] == [0, 1, 2]
    assert_same(ours, theirs)


def test_outer_python_runs_once_with_an_inner_tf_function_traced_before():
    def program(m, log):
        inner = m.function(lambda v: v * 2)
        inner(m.constant(7, m.int64))  # traced before the flat_map function uses it

        def f(x):
            print("trace outer")
            return m.data.Dataset.from_tensors(x).map(inner)

        return [int(v) for v in m.data.Dataset.range(4).flat_map(f)]

    ours, theirs = run_both(program)
    assert ours[0] == [0, 2, 4, 6]
    assert_same(ours, theirs)


def test_each_elements_dataset_has_its_own_state():
    # The datasets of later elements are copies of the traced one: a cache or a
    # shuffle buffer in one must not leak into another's.
    def program(m, log):
        def f(x):
            print("trace")
            pair = m.data.Dataset.from_tensor_slices(m.stack([x, x + 100]))
            return pair.cache().shuffle(2).repeat(2)

        got = [int(v) for v in m.data.Dataset.range(3).flat_map(f)]
        return sorted(got[:4]), sorted(got[4:8]), sorted(got[8:])

    ours, theirs = run_both(program)
    assert ours[0] == ([0, 0, 100, 100], [1, 1, 101, 101], [2, 2, 102, 102])
    assert_same(ours, theirs)


@pytest.mark.parametrize("where", ["flat_map", "reduce", "scan"])
def test_tf_print_runs_for_every_element(where, capfd):
    def program(m):
        def body(x):
            print("trace", where)
            m.print("element", x, output_stream=sys.stdout)
            return x

        ds = m.data.Dataset.range(3)
        if where == "flat_map":
            got = [int(v) for v in ds.flat_map(lambda x: m.data.Dataset.from_tensors(body(x)))]
        elif where == "reduce":
            got = int(ds.reduce(m.constant(0, m.int64), lambda s, x: s + body(x)))
        else:
            got = [int(v) for v in ds.scan(m.constant(0, m.int64),
                                           lambda s, x: (s + body(x), s))]
        sys.stdout.flush()
        return got

    texts = []
    for m in (tf, real_tf()):
        capfd.readouterr()
        result = program(m)
        texts.append((result, sorted(capfd.readouterr().out.splitlines())))
    assert texts[0] == texts[1]
    assert texts[0][1] == ["element 0", "element 1", "element 2", f"trace {where}"]


@pytest.mark.parametrize("kind", ["ragged", "sparse"])
def test_flat_map_over_composite_elements_traced_once(kind):
    # Issue 16: composite elements go through the traced function as their components.
    def program(m, log):
        if kind == "ragged":
            value = m.ragged.constant([[1, 2], [3]], dtype=m.int64)
        else:
            value = m.sparse.from_dense(m.constant([[1, 0], [0, 2]], m.int64))

        def f(v):
            print("trace", kind)
            log["eager"].append(m.executing_eagerly())
            return m.data.Dataset.from_tensors(v).repeat(2)

        ds = m.data.Dataset.from_tensors(value).repeat(3).flat_map(f)
        out = []
        for v in ds:
            out.append(v.to_list() if kind == "ragged" else m.sparse.to_dense(v).numpy().tolist())
        return out

    ours, theirs = run_both(program)
    assert ours[1] == f"trace {kind}\n"
    assert len(ours[0]) == 6
    assert_same(ours, theirs)
