"""AutoGraph source conversion (``_src/core/autograph_convert.py``, runtime in
``_src/ops/autograph_ops.py``): converted functions give real TF's values and printed
text; Python control flow stays Python; unconvertible functions come back unchanged.

Each user function below is written once against the module-level name ``tf``; the
real-TF copy is the same code object with ``tf`` bound to TensorFlow, so both
libraries run the same source.
"""

import importlib.util
import re
import sys
import traceback
import types

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core import autograph_convert
from torchflow._src.ops import autograph_ops
from torchflow._src.testing import real_tf


def _twin(f, module):
    """``f`` with the global ``tf`` bound to ``module``."""
    g = dict(f.__globals__)
    g["tf"] = module
    return types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)


def _tf_function(f):
    rtf = real_tf()
    return rtf.function(_twin(f, rtf))


def _ours(f):
    """``tf.function`` over the converted function (what the lead's hook will do)."""
    return tf.function(autograph_convert.convert(f), autograph=True)


_NOISE = re.compile(r"^(W0000|I0000|E0000|WARNING: All log messages).*\n?", re.M)


def _clean(text: str) -> str:
    return _NOISE.sub("", text)


def _np(x):
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


# ---- the TF guide's examples -------------------------------------------------------


def tanh_loop(x):
    while tf.reduce_sum(x) > 1:
        tf.print(x)
        x = tf.tanh(x)
    return x


def fizzbuzz(n):
    for i in tf.range(1, n + 1):
        print("Tracing for loop")
        if i % 15 == 0:
            print("Tracing fizzbuzz branch")
            tf.print("fizzbuzz")
        elif i % 3 == 0:
            print("Tracing fizz branch")
            tf.print("fizz")
        elif i % 5 == 0:
            print("Tracing buzz branch")
            tf.print("buzz")
        else:
            print("Tracing default branch")
            tf.print(i)


def test_guide_while_tanh_prints_and_returns_as_tf(capfd):
    x = np.array([5.0, 4.0], np.float32)
    expected = _tf_function(tanh_loop)(real_tf().constant(x))
    want = _clean(capfd.readouterr().err)
    got = _ours(tanh_loop)(tf.constant(x))
    have = _clean(capfd.readouterr().err)
    np.testing.assert_allclose(_np(got), _np(expected), rtol=1e-6)
    # One printed row per iteration; torch's and TF's float32 tanh differ in the last
    # digits, so the rows are compared as numbers.
    rows = [np.array(r.strip("[]").split(), np.float64) for r in want.splitlines()]
    ours = [np.array(r.strip("[]").split(), np.float64) for r in have.splitlines()]
    assert len(rows) == 6 and len(ours) == 6
    for a, b in zip(ours, rows):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_guide_fizzbuzz_tf_print_matches_tf(capfd):
    rtf = real_tf()
    _tf_function(fizzbuzz)(rtf.constant(15))
    want = _clean(capfd.readouterr().err)
    _ours(fizzbuzz)(tf.constant(15))
    have = _clean(capfd.readouterr().err)
    assert "fizzbuzz" in want
    assert have == want


def test_fizzbuzz_converted_eagerly_matches_python_semantics(capfd):
    autograph_convert.convert(fizzbuzz)(tf.constant(5))
    err = capfd.readouterr().err
    assert err.split() == ["1", "2", "fizz", "4", "buzz"]


def test_fizzbuzz_python_prints_once_per_trace_as_tf(capfd):
    rtf = real_tf()
    _tf_function(fizzbuzz)(rtf.constant(5))
    want = sorted(capfd.readouterr().out.splitlines())
    _ours(fizzbuzz)(tf.constant(5))
    have = sorted(capfd.readouterr().out.splitlines())
    assert have == want


def prints_in_both_branches(x):
    if x > 0:
        print("trace: true branch")
        x = x + 1
    else:
        print("trace: false branch")
        x = x - 1
    return x


# tf.cond traces both branches inside a tf.function once the lead's graph_control
# (issue 13) is in the tree; before that it runs only the branch the value picks.
_COND_TRACES_BOTH = importlib.util.find_spec("torchflow._src.core.graph_control") is not None


@pytest.mark.xfail(not _COND_TRACES_BOTH, strict=True,
                   reason="tf.cond inside a trace runs one branch without graph_control")
def test_python_print_in_both_tensor_branches_once_per_trace_as_tf(capfd):
    rtf = real_tf()
    f_tf = _tf_function(prints_in_both_branches)
    tf_vals = [int(f_tf(rtf.constant(v))) for v in (2, -2, 5)]
    want = capfd.readouterr().out
    f = _ours(prints_in_both_branches)
    vals = [int(f(tf.constant(v))) for v in (2, -2, 5)]
    have = capfd.readouterr().out
    assert vals == tf_vals == [3, -3, 6]
    assert sorted(want.splitlines()) == ["trace: false branch", "trace: true branch"]
    assert sorted(have.splitlines()) == sorted(want.splitlines())


# ---- break / continue / return ------------------------------------------------------


def while_break_continue(n):
    i = tf.constant(0)
    total = tf.constant(0)
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        if total > 20:
            break
        total += i
    return i, total


def for_break_continue(n):
    total = tf.constant(0)
    count = tf.constant(0)
    for i in tf.range(n):
        if i % 2 == 0:
            continue
        count += 1
        if count > 3:
            break
        total += i * i
    return total, count


def return_in_if(x):
    if tf.reduce_sum(x) > 0:
        y = x * 2.0
        return y
    elif tf.reduce_sum(x) < -10:
        return x - 1.0
    else:
        return x + 100.0
    tf.print("unreachable")


def return_in_one_branch(x, fast):
    if fast:
        return x * 2.0
    y = x + 1.0
    if tf.reduce_sum(y) > 0:
        return y
    return -y


def python_loop_with_break(values):
    out = []
    for v in values:
        if v < 0:
            continue
        if v > 10:
            break
        out.append(v * 2)
    else:
        out.append("else")  # a loop with else: stays Python
    k = 0
    while True:
        k += 1
        if k >= 4:
            break
    return out, k


@pytest.mark.parametrize("n", [0, 1, 7, 30])
def test_while_break_continue_as_tf(n):
    expected = _tf_function(while_break_continue)(real_tf().constant(n))
    got = _ours(while_break_continue)(tf.constant(n))
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(_np(a), _np(b))
    eager = autograph_convert.convert(while_break_continue)(tf.constant(n))
    for a, b in zip(eager, expected):
        np.testing.assert_array_equal(_np(a), _np(b))


@pytest.mark.parametrize("n", [0, 3, 6, 20])
def test_for_range_break_continue_as_tf(n):
    expected = _tf_function(for_break_continue)(real_tf().constant(n))
    got = _ours(for_break_continue)(tf.constant(n))
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(_np(a), _np(b))


@pytest.mark.parametrize("vals", [[1.0, 2.0], [-1.0, 0.5], [-20.0, 3.0], [-3.0, 1.0]])
def test_return_inside_tensor_if_as_tf(vals):
    x = np.array(vals, np.float32)
    expected = _tf_function(return_in_if)(real_tf().constant(x))
    got = _ours(return_in_if)(tf.constant(x))
    np.testing.assert_allclose(_np(got), _np(expected))


@pytest.mark.parametrize("fast", [True, False])
def test_return_in_one_branch_of_python_if_as_tf(fast):
    x = np.array([1.0, -5.0], np.float32)
    expected = _tf_function(return_in_one_branch)(real_tf().constant(x), fast)
    got = _ours(return_in_one_branch)(tf.constant(x), fast)
    np.testing.assert_allclose(_np(got), _np(expected))


def return_then_more(x):
    if x > 0:
        return x
    x = x + 1
    return x * 3


def return_in_else_then_more(x):
    if x > 0:
        x = x + 1
    else:
        return x
    x = x * 2
    return x


@pytest.mark.parametrize("v", [2, -2])
@pytest.mark.parametrize("fn", [return_then_more, return_in_else_then_more])
def test_return_in_one_branch_then_more_statements_as_tf(fn, v):
    expected = _tf_function(fn)(real_tf().constant(v))
    got = _ours(fn)(tf.constant(v))
    np.testing.assert_array_equal(_np(got), _np(expected))


def return_in_one_branch_only(x):
    if x > 0:
        return x


def test_return_in_one_branch_of_tensor_if_raises_as_tf():
    with pytest.raises(ValueError, match="the else branch must also have a return"):
        _tf_function(return_in_one_branch_only)(real_tf().constant(1))
    with pytest.raises(ValueError, match="the else branch must also have a return"):
        autograph_convert.convert(return_in_one_branch_only)(tf.constant(1))
    f = autograph_convert.convert(return_in_one_branch_only)
    assert f(3) == 3 and f(-3) is None  # a Python condition stays Python


@pytest.mark.parametrize("vals", [[1, 2, 3], [-1, 5, 11, 2], [3, -4, 20]])
def test_python_control_flow_unchanged(vals):
    assert autograph_convert.convert(python_loop_with_break)(vals) == python_loop_with_break(vals)
    src = tf.autograph.to_code(python_loop_with_break)
    assert "ag__.while_stmt" in src and "for v in values" in src  # the for-else stays


def python_cond_side_effects(flag, log):
    if flag:
        log.append("true")
        print("python branch true")
        r = 1
    else:
        log.append("false")
        r = 2
    return r


def test_python_condition_runs_one_branch_per_call(capsys):
    f = autograph_convert.convert(python_cond_side_effects)
    log = []
    assert f(True, log) == 1 and f(False, log) == 2 and f(True, log) == 1
    assert log == ["true", "false", "true"]
    assert capsys.readouterr().out == "python branch true\n" * 2


def dataset_loop(ds):
    total = tf.constant(0, tf.int64)
    for x in ds:
        if x > 5:
            break
        total += x
    return total


def test_for_over_dataset_as_tf():
    rtf = real_tf()
    expected = _tf_function(dataset_loop)(rtf.data.Dataset.range(10))
    got = autograph_convert.convert(dataset_loop)(tf.data.Dataset.range(10))
    np.testing.assert_array_equal(_np(got), _np(expected))


def one_branch_local(x):
    if x > 0:
        y = x * 3
        x = y + 1
    return x


@pytest.mark.parametrize("v", [2, -2])
def test_variable_bound_in_one_branch_only_is_branch_local(v):
    expected = _tf_function(one_branch_local)(real_tf().constant(v))
    got = _ours(one_branch_local)(tf.constant(v))
    np.testing.assert_array_equal(_np(got), _np(expected))


def jumps_partly_unsupported(values):
    out = []
    for v in values:
        if v == 0:
            continue  # could be a flag ...
        try:
            if v > 5:
                break  # ... but a break inside try keeps the whole loop Python
        finally:
            out.append(-v)
        out.append(v)
    return out


def test_loop_with_an_unsupported_jump_stays_python():
    f = autograph_convert.convert(jumps_partly_unsupported)
    for vals in ([1, 0, 2], [3, 0, 9, 4], [0, 0]):
        assert f(vals) == jumps_partly_unsupported(vals)
    src = tf.autograph.to_code(jumps_partly_unsupported)
    assert "for_stmt" not in src and "continue\n" in src


def test_logical_operators_in_tensor_conditions():
    def f(x, n):
        i = tf.constant(0)
        while i < n and not tf.reduce_all(x > 100):
            x = x * 2
            i += 1
        if x[0] > 50 or i > 3:
            x = -x
        return x, i

    x = np.array([3, 40], np.int32)
    expected = _tf_function(f)(real_tf().constant(x), real_tf().constant(10))
    got = autograph_convert.convert(f)(tf.constant(x), tf.constant(10))
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(_np(a), _np(b))


# ---- what is left alone ------------------------------------------------------------


def test_unconvertible_functions_come_back_unchanged():
    ns = {}
    exec("def made(x):\n    if x:\n        return 1\n    return 2\n", ns)
    made = ns["made"]
    assert autograph_convert.convert(made) is made
    lam = lambda x: x  # noqa: E731 - a lambda is what is tested
    assert autograph_convert.convert(lam) is lam
    assert autograph_convert.convert(len) is len
    assert autograph_convert.convert(tf.nn.relu) is tf.nn.relu  # library code

    @tf.autograph.experimental.do_not_convert
    def marked(x):
        if x > 0:
            return x
        return -x

    assert autograph_convert.convert(marked) is marked
    assert tf.autograph.to_graph(marked) is marked


def test_nested_functions_and_comprehensions_are_not_converted():
    def f(x):
        def inner(v):
            if v > 0:
                return v
            return -v

        ys = [inner(v) for v in range(-2, 2) if v != 0]
        if x > 0:
            x = x + sum(ys)
        return x

    src = tf.autograph.to_code(f)
    assert src.count("ag__.if_stmt") == 1
    assert "def inner(v):\n        if v > 0:\n            return v" in src
    assert int(autograph_convert.convert(f)(tf.constant(1))) == 1 + 4
    assert int(autograph_convert.convert(f)(tf.constant(-1))) == -1


def test_closures_and_methods_keep_their_bindings():
    scale = [3]

    def f(x):
        if x > 0:
            x = x * scale[0]
        return x

    g = autograph_convert.convert(f)
    scale[0] = 5  # late binding, as in the original
    assert int(g(tf.constant(2))) == 10

    class M:
        k = 7

        def call(self, x):
            while x < self.k:
                x += 2
            return x

    m = M()
    bound = autograph_convert.convert(m.call)
    assert bound.__self__ is m
    assert int(bound(tf.constant(0))) == 8


def test_to_graph_and_to_code():
    g = tf.autograph.to_graph(tanh_loop)
    assert g is not tanh_loop and g.__name__ == "tanh_loop"
    src = tf.autograph.to_code(tanh_loop)
    assert src.startswith("def tanh_loop(x):") and "ag__.while_stmt(" in src
    assert autograph_convert.convert(g) is g  # not converted twice
    with pytest.raises(ValueError):
        tf.autograph.to_graph(3)


def raises_in_branch(x):
    if x > 0:
        x = x + 1
        raise ValueError("boom")  # the line the traceback must name
    return x


def test_errors_point_at_the_users_line():
    f = autograph_convert.convert(raises_in_branch)
    with pytest.raises(ValueError, match="boom") as info:
        f(tf.constant(1))
    frames = traceback.extract_tb(info.value.__traceback__)
    last = frames[-1]
    assert last.filename == __file__
    assert "the line the traceback must name" in last.line
    assert last.lineno == raises_in_branch.__code__.co_firstlineno + 3


def maybe_unbound(flag, n):
    if flag:
        y = 1
    for i in range(n):
        z = i
    return y + z


def test_variable_left_unbound_raises_unboundlocalerror_as_python():
    f = autograph_convert.convert(maybe_unbound)
    assert f(True, 3) == maybe_unbound(True, 3) == 3
    for args in ((False, 3), (True, 0)):
        with pytest.raises(UnboundLocalError):
            maybe_unbound(*args)
        with pytest.raises(UnboundLocalError, match="local variable '[yz]' referenced"):
            f(*args)
    assert repr(autograph_ops.Undefined("y")) == "y"


def test_scalar_tensor_iteration_raises_valueerror_as_tf():
    def f(x):
        for v in x:
            x = v
        return x

    with pytest.raises(ValueError, match="len requires a non-scalar tensor"):
        autograph_convert.convert(f)(tf.constant(3))
    with pytest.raises(ValueError, match="len requires a non-scalar tensor"):
        _tf_function(f)(real_tf().constant(3))


def test_tf_print_to_stdout_inside_converted_branch(capfd):
    def f(x):
        if x > 0:
            tf.print("pos", x, output_stream=sys.stdout)
        else:
            tf.print("neg", x, output_stream=sys.stdout)
        return x

    g = _ours(f)
    g(tf.constant(1))
    g(tf.constant(-1))
    g(tf.constant(2))
    assert capfd.readouterr().out.splitlines() == ["pos 1", "neg -1", "pos 2"]


class _Base:
    def f(self, x):
        return x + 1


class _Child(_Base):
    def __init__(self):
        self.__p = 10

    def f(self, x):
        if x > 0:
            x = super().f(x)  # zero-argument super() needs the method's own frame
        return x

    def g(self, x):
        if x > 0:
            x = x + self.__p  # a class-private (mangled) name
        return x


def test_super_and_class_private_names_keep_python_semantics():
    c = _Child()
    f = autograph_convert.convert(c.f)
    assert int(f(tf.constant(1))) == 2 and int(f(tf.constant(-1))) == -1
    assert "super().f(x)" in tf.autograph.to_code(c.f)
    g = autograph_convert.convert(c.g)
    assert g.__func__ is _Child.g  # not converted: mangled names need the class body
    assert int(g(tf.constant(1))) == 11


@tf.function
def decorated_raises(x):
    while x < 3:
        x += 1
        if x == 2:
            raise ValueError("decorated boom")  # the user's line
    return x


def test_decorated_function_converts_and_keeps_line_numbers():
    f = autograph_convert.convert(decorated_raises.python_function)
    assert "@tf.function" not in tf.autograph.to_code(decorated_raises.python_function)
    assert int(f(tf.constant(5))) == 5
    with pytest.raises(ValueError, match="decorated boom") as info:
        f(tf.constant(0))
    last = traceback.extract_tb(info.value.__traceback__)[-1]
    assert last.filename == __file__ and "the user's line" in last.line


def dataset_training_loop(ds, w):
    step = tf.constant(0)
    for x in ds:
        step += 1
        loss = tf.reduce_sum(tf.square(x * w - 1.0))
        if loss > 4.0:
            w.assign_sub(0.1 * w)
        elif step % 2 == 0:
            continue
        else:
            w.assign_add(tf.constant(0.05))
        if step >= 5:
            break
    return step, w.read_value()


def test_dataset_loop_with_tensor_ifs_and_jumps_as_tf():
    rtf = real_tf()
    data = np.arange(12, dtype=np.float32).reshape(6, 2) / 4.0
    w_tf = rtf.Variable(1.5)
    expected = _tf_function(dataset_training_loop)(
        rtf.data.Dataset.from_tensor_slices(data), w_tf)
    w = tf.Variable(1.5)
    # Called directly: tf.function over a `for x in dataset` body currently fails in
    # graph_trace (IteratorSpec has no _to_components), converted or not.
    got = autograph_convert.convert(dataset_training_loop)(
        tf.data.Dataset.from_tensor_slices(data), w)
    np.testing.assert_array_equal(_np(got[0]), _np(expected[0]))
    np.testing.assert_allclose(_np(got[1]), _np(expected[1]), rtol=1e-6)
    np.testing.assert_allclose(w.numpy(), w_tf.numpy(), rtol=1e-6)
