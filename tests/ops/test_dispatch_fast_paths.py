"""The operator fast paths of issue 11: Python ints with integer tensors
(``_dispatch.number_operand``: cached 0-d operands, TF's range check), the comparison
operators on ``_math_common.compare_op``, positive zero from the scalar cache, and
operators inside a traced ``tf.function``, each against real TF (or NumPy where
TF 2.21 and 2.4 differ)."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import torchflow as tf
from tests.ops._math_helpers import outcome, to_np
from torchflow._src.ops import _dispatch
from torchflow._src.testing import real_tf

INTS = ["int8", "int16", "int32", "int64", "uint8"]
ARITH = [operator.add, operator.sub, operator.mul]
COMPARE = [operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne]


def _tensor(lib, values, dt):
    if dt == "bfloat16":
        return lib.cast(lib.constant(np.asarray(values, np.float32)), lib.bfloat16)
    if dt == "string":
        return lib.constant(values)
    return lib.constant(np.asarray(values).astype(dt))


def _same(ours, theirs, what):
    assert ours[0] == theirs[0], f"{what}: torchflow {ours} vs TF {theirs}"
    if ours[0] == "err":
        assert ours[1] == theirs[1], what
        return
    a, b = ours[1], theirs[1]
    if isinstance(b, bool) or isinstance(a, bool):
        assert a is b, what
        return
    assert a.dtype.name == b.dtype.name, what
    np.testing.assert_array_equal(to_np(a), to_np(b), err_msg=what)


@pytest.mark.parametrize("dt", INTS)
def test_python_ints_with_integer_tensors_match_tf(dt):
    # The fast path: the int as a cached 0-d tensor of the dtype, both sides, with the
    # dtype's bounds (which wrap around as in TF) and zero. (-1 with an unsigned
    # tensor is TF 2.4's TypeError; see the next test.)
    rtf = real_tf()
    info = np.iinfo(dt)
    x = [0, 1, 7, int(info.max), int(info.min)]
    for s in sorted({1, 3, 0, -1, int(info.max), int(info.min)} - ({-1} if info.min == 0 else set())):
        for op in ARITH:
            what = f"{dt} {op.__name__} {s}"
            _same(outcome(lambda: op(_tensor(tf, x, dt), s)),
                  outcome(lambda: op(_tensor(rtf, x, dt), s)), what)
            _same(outcome(lambda: op(s, _tensor(tf, x, dt))),
                  outcome(lambda: op(s, _tensor(rtf, x, dt))), "reflected " + what)


@pytest.mark.parametrize("dt", ["int8", "int32", "uint8"])
def test_numbers_an_integer_tensor_cannot_take_raise_typeerror(dt):
    # Out of the dtype's range, a float, a bool: no fast path; TF 2.4's
    # convert_to_tensor raises TypeError for each (TF 2.21 wraps an out-of-range int
    # and raises InvalidArgumentError for a float, so it is not the reference here).
    x = _tensor(tf, [1, 2], dt)
    info = np.iinfo(dt)
    for s in [int(info.max) + 1, int(info.min) - 1, 0.5, 2.0]:
        for op in ARITH + COMPARE[:4]:
            with pytest.raises(TypeError):
                op(x, s)
            with pytest.raises(TypeError):
                op(s, x)
    assert _dispatch.number_operand(int(info.max) + 1, x._t, x.dtype) is None


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32", "float64", "int8", "int32",
                                "int64", "uint8", "bool", "complex64", "string"])
def test_comparison_operators_match_tf(dt):
    rtf = real_tf()
    if dt == "string":
        a, b, numbers = [b"a", b"b", b"c"], [b"b", b"b", b"a"], ["b"]
    elif dt == "bool":
        a, b, numbers = [True, False, True], [True, True, False], [True, 1]
    else:
        a, b, numbers = [1, 2, 3], [2, 2, 1], [2, 0, 2.5, 0.1]
        if not dt.startswith("u"):  # -1 and uint8: TF 2.4's TypeError (tested above)
            numbers.append(-1)
    for op in COMPARE:
        what = f"{dt} {op.__name__}"
        _same(outcome(lambda: op(_tensor(tf, a, dt), _tensor(tf, b, dt))),
              outcome(lambda: op(_tensor(rtf, a, dt), _tensor(rtf, b, dt))), what)
        for s in numbers:
            _same(outcome(lambda: op(_tensor(tf, a, dt), s)),
                  outcome(lambda: op(_tensor(rtf, a, dt), s)), f"{what} {s!r}")
            _same(outcome(lambda: op(s, _tensor(tf, a, dt))),
                  outcome(lambda: op(s, _tensor(rtf, a, dt))), f"{s!r} {what}")


def test_comparison_operator_errors_match_tf():
    rtf = real_tf()
    for op in COMPARE:
        for lib in (tf, rtf):
            x = lib.constant([1.0, 2.0])
            if op in (operator.eq, operator.ne):  # no broadcast: one bool, TF's rule
                assert bool(op(x, lib.constant([1.0, 2.0, 3.0]))) is (op is operator.ne)
                assert op(x, None) is (op is operator.ne)
            else:
                with pytest.raises(lib.errors.InvalidArgumentError,
                                   match=r"Incompatible shapes: \[2\] vs. \[3\]"):
                    op(x, lib.constant([1.0, 2.0, 3.0]))
            with pytest.raises(lib.errors.InvalidArgumentError, match="expected to be a float"):
                op(x, lib.constant([1.0, 2.0], lib.float64))
    for op in COMPARE[:4]:  # ordering a complex or bool tensor: TF's dtype error
        for dt in ["complex64", "bool"]:
            ours = outcome(lambda: op(_tensor(tf, [1, 0], dt), _tensor(tf, [1, 1], dt)))
            theirs = outcome(lambda: op(_tensor(rtf, [1, 0], dt), _tensor(rtf, [1, 1], dt)))
            _same(ours, theirs, f"{dt} {op.__name__}")


def test_numpy_and_variable_operands_of_comparisons_match_tf():
    rtf = real_tf()
    for op in COMPARE:
        for lib in (tf, rtf):
            lib.v = lib.Variable([2.0, 1.0])
        _same(outcome(lambda: op(tf.constant([1.0, 2.0]), tf.v)),
              outcome(lambda: op(rtf.constant([1.0, 2.0]), rtf.v)), op.__name__)
        _same(outcome(lambda: op(tf.constant([1.0, 2.0]), np.array([2.0, 2.0], np.float32))),
              outcome(lambda: op(rtf.constant([1.0, 2.0]), np.array([2.0, 2.0], np.float32))),
              op.__name__ + " numpy")
        r = op(np.array([2.0, 2.0], np.float32), tf.constant([1.0, 2.0]))  # __array_priority__
        theirs = op(np.array([2.0, 2.0], np.float32), rtf.constant([1.0, 2.0]))
        np.testing.assert_array_equal(np.asarray(r), np.asarray(theirs))
    del tf.v, rtf.v


@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
def test_zero_operands_keep_their_sign(dt):
    # +0.0 (and int 0) come from the scalar cache, -0.0 never does: the signs of the
    # results are IEEE's (NumPy). TF 2.21's own scalar cache drops -0.0's sign, so
    # NumPy is the reference.
    x = np.array([3.0, -2.0, 0.0, -0.0], dt)
    t = tf.constant(x)
    for s in [0.0, -0.0, 0]:
        for op in ARITH:
            for ours, ref in [(op(t, s), op(x, np.asarray(s, dt))),
                              (op(s, t), op(np.asarray(s, dt), x))]:
                assert ours.dtype.name == dt
                np.testing.assert_array_equal(ours.numpy(), ref)
                np.testing.assert_array_equal(np.signbit(ours.numpy()), np.signbit(ref),
                                              err_msg=f"{op.__name__} {s!r}")


def test_half_precision_numbers_round_to_the_dtype_first():
    rtf = real_tf()
    for dt in ["float16", "bfloat16"]:
        for s in [0.1, 1e-4, 3.3]:
            for op in ARITH + COMPARE:
                _same(outcome(lambda: op(_tensor(tf, [0.1, 3.3, 7.0], dt), s)),
                      outcome(lambda: op(_tensor(rtf, [0.1, 3.3, 7.0], dt), s)),
                      f"{dt} {op.__name__} {s}")


def test_complex_tensors_with_python_numbers_match_tf():
    rtf = real_tf()
    for s in [2, 0.5, 0, 1j]:
        ops = ARITH + [operator.eq, operator.ne] + ([operator.truediv] if s != 0 else [])
        for op in ops:  # (complex / 0: torch's inf+infj, Eigen's nan+nanj, before too)
            _same(outcome(lambda: op(tf.constant([1 + 1j, 2j]), s)),
                  outcome(lambda: op(rtf.constant([1 + 1j, 2j]), s)), f"{op.__name__} {s}")


def test_comparisons_and_integer_numbers_differentiate_like_tf():
    rtf = real_tf()
    results = []
    for lib in (tf, rtf):
        v = lib.Variable([0.5, -1.0, 2.0])
        with lib.GradientTape() as tape:
            mask = lib.cast(v > 0, lib.float32) + lib.cast(v == 2.0, lib.float32)
            y = lib.reduce_sum(mask * v * 3 - 2 * v + 1)
        results.append((y.numpy(), tape.gradient(y, v).numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_array_equal(results[0][1], results[1][1])


def test_log_device_placement_names_comparison_ops(capfd):
    x = tf.constant([1.0, 2.0])
    tf.debugging.set_log_device_placement(True)
    try:
        _ = x > 0.5
        _ = x == x
        _ = x != 1.0
        _ = 0 < x  # Python asks x.__gt__(0): TF's Greater
        _ = x <= x
        _ = tf.constant([1, 2]) - 1
    finally:
        tf.debugging.set_log_device_placement(False)
    device = x.device
    ops = ["Greater", "Equal", "NotEqual", "Greater", "LessEqual", "Sub"]
    assert capfd.readouterr().err.splitlines() == [
        f"Executing op {op} in device {device}" for op in ops]


def test_operators_inside_a_traced_function_replay_like_tf():
    # The fast paths record their torch calls (the cached 0-d operands are captured
    # constants); replays compute with the new inputs, Python side effects run at
    # trace time only, and a variable update runs on every call, as in TF.
    rtf = real_tf()
    runs = []
    for lib in (tf, rtf):
        traces = []
        counter = lib.Variable(0)

        @lib.function
        def step(x, n, scale):
            traces.append(1)
            counter.assign_add(n - 1 + 2 * n)
            hot = lib.cast(x > 0.5, lib.float32) + lib.cast(x == 1.0, lib.float32)
            return (x * 0.9 - 1) * scale + 0.5 * x + hot, n * 3 - 7, n > 2, 1 - n

        outs = []
        for x, n, scale in [([0.2, 1.0], 1, 2.0), ([3.0, -1.0], 5, 2.0),
                            ([0.7, 0.0], 2, 0.5), ([1.0, 2.0], 3, 0.5)]:
            r = step(lib.constant(x), lib.constant(n), scale)
            outs.append([o.numpy() for o in r])
        runs.append((outs, len(traces), int(counter.numpy())))
    (ours, our_traces, our_count), (theirs, their_traces, their_count) = runs
    assert our_traces == their_traces == 2  # one per Python float `scale`
    assert our_count == their_count
    for a, b in zip(ours, theirs):
        for u, w in zip(a, b):
            np.testing.assert_allclose(u, w, rtol=1e-6)


def test_number_operands_under_jit_compile_match_eager():
    # torch.compile traces the body: number operands stay plain numbers there (the
    # check dynamo folds), and the compiled results equal the eager ones.
    def body(x, i):
        return x * 0.9 - 1 + 0.5 * x, i - 3, x > 0.5, i == 2

    fn = tf.function(body, jit_compile=True)
    for xv, iv in [([0.2, 1.0], [1, 2]), ([3.0, -1.0], [5, 2])]:
        x, i = tf.constant(xv), tf.constant(iv)
        for got, want in zip(fn(x, i), body(x, i)):
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dt", ["int8", "int32", "int64", "uint8", "uint16", "uint32",
                                "float16", "complex64"])
def test_reduce_sum_cast_and_indexing_hot_paths_match_tf(dt):
    # reduce_sum over all axes keeps an integer dtype (int8 wraps around, as TF's
    # kernel does); the cast and x[i] fast paths test dtypes by name.
    rtf = real_tf()
    x = [100, 120, 90] if dt not in ("uint16", "uint32") else [70000 % 2**16, 3, 9]
    for fn in [lambda m, t: m.reduce_sum(t), lambda m, t: m.reduce_sum(t, axis=0),
               lambda m, t: m.cast(t, m.float32), lambda m, t: m.cast(t, "int16"),
               lambda m, t: m.cast(t, m.bool), lambda m, t: t[0], lambda m, t: t[-1],
               lambda m, t: t[1:]]:
        _same(outcome(lambda: fn(tf, _tensor(tf, x, dt))),
              outcome(lambda: fn(rtf, _tensor(rtf, x, dt))), dt)


def test_typesets_are_plain_frozensets_that_keep_tfs_order():
    # A frozenset subclass's `in` goes through a generic slot (~12 ns more per op).
    from torchflow._src.ops import _math_common as mc

    s = mc.TypeSet(mc.FLOAT, "int32", ordered=True, listed=mc.ALL_NUM)
    assert type(s) is frozenset and type(mc.ALL_NUM) is frozenset
    assert mc.type_order(s) == mc.FLOAT + ("int32",)
    assert mc.type_ordered(s) and not mc.type_ordered(mc.ALL_REAL)
    assert mc.type_listed(s) is mc.ALL_NUM and mc.type_listed(mc.ALL_REAL) is None
    assert mc.TypeSet(mc.FLOAT, "int32", ordered=True, listed=mc.ALL_NUM) is s
    assert mc.TypeSet(mc.FLOAT, "int32") is not s  # other flags: another set
    assert mc.type_order(mc.TypeSet(mc.FLOATS, "bool")) == mc.FLOAT + ("bool",)
    assert "half, float, double" in str(mc.bad_type("Op", tf.bool, mc.FLOATS))
