"""Loaded SavedModels run their graphs as generated code (issue 15, graph_exec_codegen).

Real TF (2.21, the reference) writes ``tf.Module``s whose functions hold ``While`` and
``If`` ops, variable updates inside loops, ``maximum_iterations``, shape invariants
and an assertion that fails inside a loop; torchflow loads each and must give TF's
values, its side effects on variables and its error types. Hand-built FunctionDefs
check what the generated code is: the plan of a loop body is made once, constants
and identities are folded, stateful nodes run in their control-edge order.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core.proto import (
    tf_attr_value_pb2,
    tf_function_pb2,
    tf_tensor_pb2,
    tf_types_pb2,
)
from torchflow._src.ops.graph_exec import FunctionLibrary
from torchflow._src.ops.graph_exec_ops import HANDLERS
from torchflow._src.testing import real_tf

X = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
W = (np.random.default_rng(1).standard_normal((4, 4)) * 0.5).astype(np.float32)


def _modules(ttf):
    spec = ttf.TensorSpec([None, 4], ttf.float32)

    class Loops(ttf.Module):
        def __init__(self):
            super().__init__()
            self.w = ttf.Variable(W)
            self.total = ttf.Variable(0.0)
            self.steps = ttf.Variable(0)

        @ttf.function(input_signature=[spec, ttf.TensorSpec([], ttf.int32)])
        def capped(self, x, n):
            # maximum_iterations stops before the condition does; parallel_iterations
            # only tunes TF's scheduling
            def body(i, x):
                return i + 1, ttf.tanh(ttf.matmul(x, self.w))

            return ttf.while_loop(lambda i, x: i < n, body, (0, x), maximum_iterations=5,
                                  parallel_iterations=3)

        @ttf.function(input_signature=[spec])
        def grow(self, x):
            # a loop variable whose shape changes, allowed by its shape invariant
            def body(i, acc):
                return i + 1, ttf.concat([acc, acc[:1] * 2.0], axis=0)

            return ttf.while_loop(lambda i, acc: i < 3, body, (0, x),
                                  shape_invariants=(ttf.TensorShape([]),
                                                    ttf.TensorShape([None, 4])))[1]

        @ttf.function(input_signature=[spec])
        def accumulate(self, x):
            # variable updates inside the body, read back in the next iteration
            def body(i):
                self.total.assign_add(ttf.reduce_sum(x) + self.total * 0.5)
                self.steps.assign_add(1)
                return (i + 1,)

            ttf.while_loop(lambda i: i < 4, body, (0,))
            return self.total.read_value(), self.steps.read_value()

        @ttf.function(input_signature=[spec])
        def nested(self, x):
            def outer(i, x):
                def inner(j, y):
                    y = ttf.cond(ttf.reduce_sum(y) > 0.0, lambda: y * 0.5, lambda: y - 1.0)
                    return j + 1, y

                return i + 1, ttf.while_loop(lambda j, y: j < i, inner, (0, x))[1]

            return ttf.while_loop(lambda i, x: i < 4, outer, (0, x))[1]

        @ttf.function(input_signature=[spec])
        def checked(self, x):
            def body(i, x):
                ttf.debugging.assert_less(i, 2, message="too many steps")
                return i + 1, x + 1.0

            return ttf.while_loop(lambda i, x: i < 5, body, (0, x))[1]

    return Loops()


def _poly(ttf):
    class Poly(ttf.Module):
        @ttf.function
        def f(self, x, scale=2):
            return x * scale + ttf.cast(ttf.size(x), x.dtype)

    m = Poly()
    m.f(ttf.constant([1.0, 2.0]))
    m.f(ttf.constant([[1, 2], [3, 4]]))
    m.f(ttf.constant([1.0, 2.0]), 3)
    return m


@pytest.fixture(scope="module")
def poly(tmp_path_factory):
    ttf = real_tf()
    path = str(tmp_path_factory.mktemp("run") / "poly")
    ttf.saved_model.save(_poly(ttf), path)
    return path


def test_repeated_calls_pick_the_concrete_function_of_their_dtypes_and_shapes(poly):
    loaded = tf.saved_model.load(poly)
    a = np.array([1.5, -2.0], np.float32)  # the traced shapes: (2,) and (2, 2)
    b = np.array([[1, 2], [3, 4]], np.int32)
    for _ in range(3):  # the first call of each kind matches, later ones reuse it
        np.testing.assert_allclose(loaded.f(tf.constant(a)).numpy(), a * 2 + 2)
        got = loaded.f(tf.constant(b))
        assert got.dtype == tf.int32
        np.testing.assert_array_equal(got.numpy(), b * 2 + 4)
        np.testing.assert_allclose(loaded.f(tf.constant(a), 3).numpy(), a * 3 + 2)
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded.f(tf.constant(b), 3)
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded.f(tf.constant(a[None]))


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    ttf = real_tf()
    path = str(tmp_path_factory.mktemp("run") / "loops")
    m = _modules(ttf)
    want = {
        "capped_9": [t.numpy() for t in m.capped(X, ttf.constant(9))],
        "capped_2": [t.numpy() for t in m.capped(X, ttf.constant(2))],
        "grow": m.grow(X).numpy(),
        "nested": m.nested(X).numpy(),
    }
    ttf.saved_model.save(m, path)
    m2 = _modules(ttf)
    want["accumulate"] = [t.numpy() for t in m2.accumulate(X)]
    want["accumulate_twice"] = [t.numpy() for t in m2.accumulate(X)]
    with pytest.raises(ttf.errors.InvalidArgumentError, match="too many steps"):
        m2.checked(X)
    return path, want


def test_maximum_iterations_and_parallel_iterations(saved):
    path, want = saved
    loaded = tf.saved_model.load(path)
    for n in (9, 2):
        i, y = loaded.capped(tf.constant(X), tf.constant(n))
        assert int(i.numpy()) == want[f"capped_{n}"][0]
        np.testing.assert_allclose(y.numpy(), want[f"capped_{n}"][1], rtol=1e-5, atol=1e-6)


def test_shape_invariants_let_a_loop_variable_grow(saved):
    path, want = saved
    got = tf.saved_model.load(path).grow(tf.constant(X)).numpy()
    assert got.shape == want["grow"].shape == (6, 4)
    np.testing.assert_allclose(got, want["grow"], rtol=1e-6)


def test_variable_updates_in_a_loop_run_in_order(saved):
    path, want = saved
    loaded = tf.saved_model.load(path)
    for key in ("accumulate", "accumulate_twice"):
        total, steps = loaded.accumulate(tf.constant(X))
        np.testing.assert_allclose(total.numpy(), want[key][0], rtol=1e-5)
        assert int(steps.numpy()) == int(want[key][1])
    np.testing.assert_allclose(loaded.total.numpy(), want["accumulate_twice"][0], rtol=1e-5)


def test_nested_loops_and_conditionals(saved):
    path, want = saved
    got = tf.saved_model.load(path).nested(tf.constant(X)).numpy()
    np.testing.assert_allclose(got, want["nested"], rtol=1e-5, atol=1e-6)


def test_an_op_failing_inside_a_loop_raises_its_tf_error(saved):
    path, _ = saved
    loaded = tf.saved_model.load(path)
    with pytest.raises(tf.errors.InvalidArgumentError, match="too many steps"):
        loaded.checked(tf.constant(X))

DT_FLOAT, DT_INT32, DT_BOOL = tf_types_pb2.DT_FLOAT, tf_types_pb2.DT_INT32, tf_types_pb2.DT_BOOL
DT_RESOURCE = tf_types_pb2.DT_RESOURCE


def _fdef(lib, name, inputs, outputs, nodes, ret):
    """A FunctionDef in TF's wire form (``node:arg:i`` inputs, ``^control`` edges)."""
    f = lib.function.add()
    f.signature.name = name
    for n, t in inputs:
        f.signature.input_arg.add(name=n, type=t)
    for n, t in outputs:
        f.signature.output_arg.add(name=n, type=t)
    for nd in nodes:
        node = f.node_def.add(name=nd["name"], op=nd["op"], input=nd.get("input", []))
        for k, v in nd.get("attr", {}).items():
            node.attr[k].CopyFrom(v)
    for k, v in ret.items():
        f.ret[k] = v


def _attr(**kw):
    av = tf_attr_value_pb2.AttrValue(**{k: v for k, v in kw.items() if k != "func"})
    if "func" in kw:
        av.func.name = kw["func"]
    return av


def _const(name, value, dtype=DT_FLOAT):
    arr = np.asarray(value, np.float32 if dtype == DT_FLOAT else np.int32)
    tp = tf_tensor_pb2.TensorProto(dtype=dtype, tensor_content=arr.tobytes())
    for d in arr.shape:
        tp.tensor_shape.dim.add(size=d)
    return {"name": name, "op": "Const", "attr": {"value": _attr(tensor=tp),
                                                  "dtype": _attr(type=dtype)}}


def _loop_library():
    lib = tf_function_pb2.FunctionDefLibrary()
    _fdef(lib, "cond", [("i", DT_INT32), ("v", DT_RESOURCE)], [("keep", DT_BOOL)], [
        _const("limit", 4, DT_INT32),
        {"name": "less", "op": "Less", "input": ["i", "limit:output:0"]},
    ], {"keep": "less:z:0"})
    # body: v <- v * 2 + i (read, then assign after the read through a control edge)
    _fdef(lib, "body", [("i", DT_INT32), ("v", DT_RESOURCE)],
          [("i_next", DT_INT32), ("v_out", DT_RESOURCE)], [
              _const("one", 1, DT_INT32),
              {"name": "read", "op": "ReadVariableOp", "input": ["v"]},
              {"name": "dbl", "op": "AddV2", "input": ["read:value:0", "read:value:0"]},
              {"name": "fi", "op": "Cast", "input": ["i"],
               "attr": {"SrcT": _attr(type=DT_INT32), "DstT": _attr(type=DT_FLOAT)}},
              {"name": "new", "op": "AddV2", "input": ["dbl:z:0", "fi:y:0"]},
              {"name": "assign", "op": "AssignVariableOp", "input": ["v", "new:z:0"]},
              {"name": "inc", "op": "AddV2", "input": ["i", "one:output:0", "^assign"]},
              {"name": "out", "op": "Identity", "input": ["inc:z:0"]},
          ], {"i_next": "out:output:0", "v_out": "v"})
    _fdef(lib, "loop", [("v", DT_RESOURCE)], [("n", DT_INT32), ("after", DT_FLOAT)], [
        _const("zero", 0, DT_INT32),
        {"name": "w", "op": "While", "input": ["zero:output:0", "v"],
         "attr": {"cond": _attr(func="cond"), "body": _attr(func="body")}},
        {"name": "read", "op": "ReadVariableOp", "input": ["v", "^w"]},
    ], {"n": "w:output:0", "after": "read:value:0"})
    _fdef(lib, "order", [("v", DT_RESOURCE)], [("before", DT_FLOAT), ("after", DT_FLOAT)], [
        _const("five", 5.0),
        {"name": "r0", "op": "ReadVariableOp", "input": ["v"]},
        {"name": "set", "op": "AssignVariableOp", "input": ["v", "five:output:0", "^r0"]},
        {"name": "r1", "op": "ReadVariableOp", "input": ["v", "^set"]},
    ], {"before": "r0:value:0", "after": "r1:value:0"})
    _fdef(lib, "split", [("x", DT_FLOAT)], [("second", DT_FLOAT)], [
        _const("axis", 0, DT_INT32),
        {"name": "sp", "op": "Split", "input": ["axis:output:0", "x"],
         "attr": {"num_split": _attr(i=2)}},
    ], {"second": "sp:output:1"})
    _fdef(lib, "bad_const", [("x", DT_FLOAT)], [("y", DT_FLOAT)], [
        _const("c", 1.0),
    ], {"y": "c:output:1"})
    _fdef(lib, "bad_split", [("x", DT_FLOAT)], [("y", DT_FLOAT)], [
        _const("axis", 0, DT_INT32),
        {"name": "sp", "op": "Split", "input": ["axis:output:0", "x"],
         "attr": {"num_split": _attr(i=2)}},
    ], {"y": "sp:output:5"})
    return FunctionLibrary(lib)


def test_a_loop_plans_its_body_once_and_keeps_state_order():
    lib = _loop_library()
    v = tf.Variable(1.0)
    planned = []
    plan = lib._plan

    def counting(name):
        planned.append(name)
        return plan(name)

    lib._plan = counting
    n, after = lib.call("loop", [v])
    lib.call("loop", [v])
    assert int(n.numpy()) == 4
    want = 1.0
    for i in range(4):
        want = want * 2 + i
    assert float(after.numpy()) == want
    assert float(v.numpy()) == (want * 2 ** 4 + sum(i * 2 ** (3 - i) for i in range(4)))
    # the top-level call twice, cond and body once each: not once per iteration
    assert sorted(planned) == ["body", "cond", "loop", "loop"]


def test_control_edges_order_reads_and_assigns():
    v = tf.Variable(2.0)
    before, after = _loop_library().call("order", [v])
    assert float(before.numpy()) == 2.0 and float(after.numpy()) == 5.0


def test_constants_and_identities_are_folded():
    lib = _loop_library()
    lib.call("loop", [tf.Variable(1.0)])
    plan = lib._plan("body")
    # a statement per computing node: read, add, cast, add, inc (assigned) and the
    # assign (no value); the Const is a bound name, the Identity the add's own value
    lines = [ln.strip() for ln in plan.source.splitlines()[1:]]
    calls = [ln for ln in lines if not ln.startswith(("if isinstance", "del ", "return"))]
    assert len(calls) == 6, plan.source
    bound = list(plan.fn.__globals__.values())
    assert not [v for v in bound if v is HANDLERS["Const"] or v is HANDLERS["Identity"]]


def test_list_outputs_by_index_and_bad_indices():
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    lib = _loop_library()
    (second,) = lib.call("split", [tf.constant(x)])
    np.testing.assert_array_equal(second.numpy(), x[2:])
    for name in ("bad_const", "bad_split"):
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="names an output its source does not have"):
            lib.call(name, [tf.constant(x)])


def _list_library():
    lib = tf_function_pb2.FunctionDefLibrary()
    elem = {"element_dtype": _attr(type=DT_FLOAT), "shape_type": _attr(type=DT_INT32)}
    _fdef(lib, "lists", [("x", DT_FLOAT), ("i", DT_INT32)], [("stacked", DT_FLOAT)], [
        _const("shape", [2], DT_INT32), _const("n", 3, DT_INT32), _const("one", 1, DT_INT32),
        {"name": "res", "op": "TensorListReserve", "input": ["shape:output:0", "n:output:0"],
         "attr": elem},
        {"name": "set", "op": "TensorListSetItem", "input": ["res:handle:0", "i", "x"],
         "attr": {"element_dtype": _attr(type=DT_FLOAT)}},
        {"name": "set2", "op": "TensorListSetItem", "input": ["set:output_handle:0",
                                                              "one:output:0", "x"],
         "attr": {"element_dtype": _attr(type=DT_FLOAT)}},
        {"name": "get", "op": "TensorListGetItem", "input": ["set:output_handle:0", "i",
                                                             "shape:output:0"],
         "attr": {"element_dtype": _attr(type=DT_FLOAT)}},
        {"name": "st", "op": "TensorListStack", "input": ["set:output_handle:0",
                                                          "shape:output:0"],
         "attr": {"element_dtype": _attr(type=DT_FLOAT), "num_elements": _attr(i=-1)}},
        {"name": "get2", "op": "TensorListGetItem", "input": ["set2:output_handle:0",
                                                              "one:output:0", "shape:output:0"],
         "attr": {"element_dtype": _attr(type=DT_FLOAT)}},
        {"name": "sum", "op": "AddV2", "input": ["st:tensor:0", "get:item:0"]},
        {"name": "sum2", "op": "AddV2", "input": ["sum:z:0", "get2:item:0"]},
    ], {"stacked": "sum2:z:0"})
    return FunctionLibrary(lib)


def test_tensor_lists_keep_value_semantics_and_check_indices():
    lib = _list_library()
    x = np.array([1.5, -2.0], np.float32)
    (got,) = lib.call("lists", [tf.constant(x), tf.constant(2)])
    # the list the stack reads was set at index 2 only: set2 made a new list
    want = np.zeros((3, 2), np.float32)
    want[2] = x
    np.testing.assert_array_equal(got.numpy(), want + x + x)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Trying to access element 5 in a list with 3 elements"):
        lib.call("lists", [tf.constant(x), tf.constant(5)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be a scalar"):
        lib.call("lists", [tf.constant(x), tf.constant([0, 1])])
