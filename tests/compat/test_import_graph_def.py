"""``tf.import_graph_def``, ``tf.Graph`` and ``tf.Operation`` against real TF.

The GraphDefs are real TF's: a frozen Keras model and a frozen function (variables
made constants, as TF's freezing tools write them), serialized and parsed back with
torchflow's ``tf.compat.v1.GraphDef``. Inside a ``tf.function`` the imported nodes
run on the ``input_map`` tensors; in a ``tf.Graph().as_default()`` block they are
operations to inspect. Where TF 2.21's Python wrapper words an error differently
from TF 2.4's (the argument checks), torchflow gives 2.4's and the test says so.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

W = np.arange(6, dtype=np.float32).reshape(3, 2) / 4.0


def _frozen_function_bytes(rtf) -> bytes:
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2,
    )

    w = rtf.Variable(W)

    @rtf.function(input_signature=[rtf.TensorSpec([None, 3], rtf.float32, name="x")])
    def f(x):
        h = rtf.nn.relu(rtf.matmul(x, w) - 1.0, name="out")
        top = rtf.math.top_k(h, k=1, name="top")
        return rtf.concat([h, rtf.cast(top.indices, rtf.float32)], axis=1, name="cat")

    frozen = convert_variables_to_constants_v2(f.get_concrete_function())
    return frozen.graph.as_graph_def().SerializeToString()


def _frozen_keras_bytes(rtf) -> tuple[bytes, str, str]:
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2,
    )

    rtf.keras.utils.set_random_seed(3)
    model = rtf.keras.Sequential([
        rtf.keras.Input((4,)),
        rtf.keras.layers.Dense(8, activation="relu"),
        rtf.keras.layers.Dropout(0.5),
        rtf.keras.layers.Dense(3, activation="softmax"),
    ])
    fn = rtf.function(lambda x: model(x, training=False)).get_concrete_function(
        rtf.TensorSpec([None, 4], rtf.float32))
    frozen = convert_variables_to_constants_v2(fn)
    gd = frozen.graph.as_graph_def()
    inp = frozen.inputs[0].name
    out = frozen.outputs[0].name
    return gd.SerializeToString(), inp, out


def _parse(m, data: bytes):
    return m.compat.v1.GraphDef.FromString(data)


def _run_in_function(m, data: bytes, x, inp: str, out: str):
    gd = _parse(m, data)
    traces = []

    @m.function
    def f(x):
        traces.append(1)
        y, = m.import_graph_def(gd, input_map={inp: x}, return_elements=[out], name="frozen")
        return y

    return [f(m.constant(v)).numpy() for v in x], len(traces)


def test_frozen_keras_model_runs_inside_a_function_as_in_tf():
    rtf = real_tf()
    data, inp, out = _frozen_keras_bytes(rtf)
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((n, 4)).astype(np.float32) for n in (5, 5, 2)]
    ref, ref_traces = _run_in_function(rtf, data, xs, inp, out)
    got, traces = _run_in_function(tf, data, xs, inp, out)
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert traces == ref_traces == 2  # batch 5 once (replayed), batch 2 once


def test_frozen_function_with_several_outputs_and_an_op_return():
    rtf = real_tf()
    data = _frozen_function_bytes(rtf)
    x = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 2.0]], np.float32)

    def run(m):
        gd = _parse(m, data)

        @m.function
        def f(x):
            cat, out, op = m.graph_util.import_graph_def(
                gd, input_map={"x": x}, return_elements=["cat:0", "out:0", "top"])
            return cat, out, op.type, op.name

        cat, out, op_type, op_name = f(m.constant(x))
        return cat.numpy(), out.numpy(), op_type, op_name

    ref, got = run(rtf), run(tf)
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-6)
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-6)
    np.testing.assert_allclose(got[1], np.maximum(x @ W - 1.0, 0.0), rtol=1e-6)
    assert got[2:] == ref[2:] == ("TopKV2", "import/top")


def test_graph_as_default_holds_the_imported_operations():
    rtf = real_tf()
    data = _frozen_function_bytes(rtf)

    def inspect(m):
        gd = _parse(m, data)
        g = m.Graph()
        facts = {"fresh": (g.building_function, g.finalized, g.version)}
        with g.as_default() as g2:
            facts["same"] = g2 is g
            x, matmul, out = m.import_graph_def(gd, return_elements=["x:0", "MatMul", "out:0"])
            again, = m.import_graph_def(gd, return_elements=["x:0"])
            m.import_graph_def(gd, name="")
            clash, = m.import_graph_def(gd, return_elements=["out:0"], name="")
        facts["clash"] = (clash.name, [t.name for t in clash.op.inputs])
        facts["returned"] = (repr(x), repr(matmul), out.name, str(x), again.name)
        facts["matmul"] = ([t.name for t in matmul.inputs], [t.name for t in matmul.outputs],
                           matmul.type, matmul.get_attr("transpose_a"), matmul.graph is g)
        facts["dtypes"] = [(t.name, t.dtype.name) for t in (x, out)]
        facts["consumers"] = [o.name for o in out.consumers()]
        facts["ops"] = [(o.name, o.type) for o in g.get_operations()]
        facts["version"] = g.version
        facts["by_name"] = (g.get_tensor_by_name("import/out:0").op.name,
                            g.get_operation_by_name("import_1/x").type,
                            g.as_graph_element("sub:0").name)
        errors = []
        for name in ("nope:0", "nope", "import/x:3", "import/x", "import/x:0"):
            for f in (g.get_tensor_by_name, g.get_operation_by_name):
                try:
                    f(name)
                    errors.append(None)
                except (KeyError, ValueError) as e:
                    errors.append((type(e).__name__, str(e)))
        facts["errors"] = errors
        gd2 = g.as_graph_def()
        facts["graph_def"] = [(n.name, n.op, list(n.input)) for n in gd2.node]
        g.finalize()
        facts["finalized"] = g.finalized
        with pytest.raises(RuntimeError, match="Graph is finalized and cannot be modified"):
            with g.as_default():
                m.import_graph_def(gd)
        return facts

    ref, got = inspect(rtf), inspect(tf)
    assert len(got["ops"]) == 4 * len(_parse(tf, data).node) and len(got["errors"]) == 10
    assert got["fresh"] == ref["fresh"] == (False, False, 0)
    assert got["same"] and ref["same"]
    # Shapes: TF infers them with its shape functions; torchflow's graph keeps what
    # the GraphDef says (a placeholder's, a constant's), so only x's repr matches.
    assert got["returned"][0] == ref["returned"][0]
    assert got["returned"][1:] == ref["returned"][1:]
    for key in ("clash", "matmul", "dtypes", "consumers", "ops", "version", "by_name", "errors",
                "graph_def", "finalized"):
        assert got[key] == ref[key], key


def test_inputs_it_cannot_take_raise_tf_errors():
    rtf = real_tf()
    data = _frozen_function_bytes(rtf)
    x = np.ones((1, 3), np.float32)

    def outcome(m, **kw):
        gd = _parse(m, data)
        args = {"graph_def": gd, **kw}
        for k, v in list(args.items()):
            if callable(v):
                args[k] = v(m)

        @m.function
        def f():
            return m.import_graph_def(**args)

        try:
            f()
        except Exception as e:  # noqa: BLE001 - the outcome is compared
            return type(e).__name__, str(e)
        return None

    cases = {
        "graph_def": {"graph_def": 1},
        "input_map_list": {"input_map": lambda m: [m.constant(x)]},
        "input_map_key": {"input_map": {1: x}},
        "return_elements": {"return_elements": [1]},
    }
    tf24 = {  # TF 2.4's wrapper; TF 2.21 words them "Argument `...` must be ..."
        "graph_def": "graph_def must be a GraphDef proto.",
        "input_map_list": "input_map must be a dictionary mapping strings to Tensor objects.",
        "input_map_key": "All keys for input_map must be strings.",
        "return_elements": "return_elements must be a list of strings.",
    }
    for name, kw in cases.items():
        got, ref = outcome(tf, **kw), outcome(rtf, **kw)
        assert got is not None and ref is not None and got[0] == ref[0] == "TypeError", name
        assert got[1] == tf24[name]
    for kw in ({"return_elements": ["nope:0"]}, {"return_elements": ["nope"]},
               {"return_elements": ["out:5"]}):
        got, ref = outcome(tf, **kw), outcome(rtf, **kw)
        assert got is not None and ref is not None and got[0] == ref[0] == "ValueError"
        assert got[1] in ref[1]
    # A placeholder the outputs need and no input_map entry for it: TF's executor
    # error when the function runs.
    got = outcome(tf, return_elements=["cat:0"])
    ref = outcome(rtf, return_elements=["cat:0"])
    assert got is not None and ref is not None and got[0] == ref[0] == "InvalidArgumentError"
    wanted = "You must feed a value for placeholder tensor 'import/x' with dtype float and " \
             "shape [?,3]"
    assert wanted in got[1] and wanted in ref[1]


def test_eager_import_is_symbolic_and_an_eager_input_map_is_refused():
    rtf = real_tf()
    data = _frozen_function_bytes(rtf)
    for m in (tf, rtf):
        gd = _parse(m, data)
        # Eagerly TF imports into its global graph, without the name scope; names
        # the graph has already get a suffix.
        out, = m.import_graph_def(gd, return_elements=["out:0"], name="eager_probe")
        again, = m.import_graph_def(gd, return_elements=["out:0"])
        assert out.name.startswith("out") and out.dtype == m.float32
        assert again.name != out.name and again.name.startswith("out_")
        assert out.graph is again.graph
        assert out.graph.get_tensor_by_name(out.name) == out
        with pytest.raises(NotImplementedError,
                           match="_as_tf_output not supported when eager execution is enabled"):
            m.import_graph_def(gd, input_map={"x:0": m.ones([1, 3])})


def test_a_torchflow_graph_def_imports_back_and_its_graph_is_a_tf_graph():
    w = tf.constant(W)

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def f(x):
        return tf.nn.softmax(tf.matmul(x, w) * 2.0)

    cf = f.get_concrete_function()
    assert isinstance(cf.graph, tf.Graph) and cf.graph.building_function
    assert all(isinstance(op, tf.Operation) for op in cf.graph.get_operations())
    gd = cf.graph.as_graph_def()
    inp = cf.graph.inputs[0]
    out = cf.graph.outputs[0]

    @tf.function
    def g(x):
        return tf.import_graph_def(gd, input_map={inp: x}, return_elements=[out])[0]

    x = np.array([[1.0, 0.0, -1.0], [2.0, 2.0, 2.0]], np.float32)
    logits = x @ W * 2.0
    expected = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(g(tf.constant(x)).numpy(), expected, rtol=1e-6)
