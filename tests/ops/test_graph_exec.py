"""graph_exec runs FunctionDefs (TF's function-body format) node by node.

FunctionDefs are built here by hand in TF's wire format (names, ``node:arg:i``
references, ``^control`` inputs, the ``ret`` map); results are checked against
NumPy. The raw ops added for SavedModel graphs are checked against real TF.
"""

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

DT_FLOAT, DT_INT32, DT_RESOURCE = tf_types_pb2.DT_FLOAT, tf_types_pb2.DT_INT32, 20


def _fdef(lib, name, inputs, outputs, nodes, ret, control_ret=None):
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
    for k, v in (control_ret or {}).items():
        f.control_ret[k] = v
    return f


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


def _library():
    lib = tf_function_pb2.FunctionDefLibrary()
    _fdef(lib, "dense", [("x", DT_FLOAT), ("w", DT_RESOURCE), ("count", DT_RESOURCE)],
          [("out", DT_FLOAT), ("pre", DT_FLOAT)], [
              {"name": "read", "op": "ReadVariableOp", "input": ["w"]},
              {"name": "mm", "op": "MatMul", "input": ["x", "read:value:0"],
               "attr": {"transpose_b": _attr(b=True)}},
              {"name": "act", "op": "Relu", "input": ["mm:product:0"]},
              _const("one", 1.0),
              {"name": "bump", "op": "AssignAddVariableOp", "input": ["count", "one:output:0"]},
              {"name": "ids", "op": "IdentityN", "input": ["act:activations:0", "mm:product:0",
                                                            "^bump"]},
          ], {"out": "ids:output:0", "pre": "ids:output:1"})
    _fdef(lib, "outer", [("x", DT_FLOAT), ("w", DT_RESOURCE), ("count", DT_RESOURCE)],
          [("y", DT_FLOAT)], [
              {"name": "call", "op": "StatefulPartitionedCall", "input": ["x", "w", "count"],
               "attr": {"f": _attr(func="dense")}},
              _const("two", 2.0),
              {"name": "scaled", "op": "Mul", "input": ["call:output:1", "two:output:0"]},
          ], {"y": "scaled:z:0"})
    _fdef(lib, "cond", [("i", DT_INT32), ("acc", DT_FLOAT)], [("keep", tf_types_pb2.DT_BOOL)], [
        _const("limit", 5, DT_INT32),
        {"name": "less", "op": "Less", "input": ["i", "limit:output:0"]},
    ], {"keep": "less:z:0"})
    _fdef(lib, "body", [("i", DT_INT32), ("acc", DT_FLOAT)],
          [("i_next", DT_INT32), ("acc_next", DT_FLOAT)], [
              _const("one", 1, DT_INT32),
              {"name": "inc", "op": "AddV2", "input": ["i", "one:output:0"]},
              {"name": "dbl", "op": "AddV2", "input": ["acc", "acc"]},
          ], {"i_next": "inc:z:0", "acc_next": "dbl:z:0"})
    _fdef(lib, "loop", [("acc", DT_FLOAT)], [("out", DT_FLOAT)], [
        _const("zero", 0, DT_INT32),
        {"name": "w", "op": "While", "input": ["zero:output:0", "acc"],
         "attr": {"cond": _attr(func="cond"), "body": _attr(func="body")}},
    ], {"out": "w:output:1"})
    _fdef(lib, "bn", [("x", DT_FLOAT)], [("y", DT_FLOAT), ("mean", DT_FLOAT)], [
        _const("scale", [1.0, 2.0]), _const("offset", [0.0, 1.0]),
        _const("empty", np.zeros([0], np.float32)),
        {"name": "fbn", "op": "FusedBatchNormV3",
         "input": ["x", "scale:output:0", "offset:output:0", "empty:output:0",
                   "empty:output:0"],
         "attr": {"epsilon": _attr(f=0.001), "is_training": _attr(b=True)}},
    ], {"y": "fbn:y:0", "mean": "fbn:batch_mean:0"})
    _fdef(lib, "unknown", [("x", DT_FLOAT)], [("y", DT_FLOAT)], [
        {"name": "weird", "op": "NotARealOp", "input": ["x"]},
    ], {"y": "weird:y:0"})
    _fdef(lib, "cyclic", [("x", DT_FLOAT)], [("y", DT_FLOAT)], [
        {"name": "a", "op": "Neg", "input": ["b:y:0"]},
        {"name": "b", "op": "Neg", "input": ["a:y:0"]},
    ], {"y": "a:y:0"})
    return FunctionLibrary(lib)


X = np.array([[1.0, -2.0], [3.0, 0.5]], np.float32)
W = np.array([[0.5, 1.0], [-1.0, 2.0], [1.5, -0.5]], np.float32)


def test_nodes_resources_and_control_inputs():
    lib = _library()
    w, count = tf.Variable(W), tf.Variable(0.0)
    out, pre = lib.call("dense", [tf.constant(X), w, count])
    np.testing.assert_allclose(pre.numpy(), X @ W.T, rtol=1e-6)
    np.testing.assert_allclose(out.numpy(), np.maximum(X @ W.T, 0), rtol=1e-6)
    assert float(count.numpy()) == 1.0  # the control-input assign ran
    (y,) = lib.call("outer", [tf.constant(X), w, count])
    np.testing.assert_allclose(y.numpy(), 2 * (X @ W.T), rtol=1e-6)
    assert float(count.numpy()) == 2.0


def test_gradient_flows_through_the_graph():
    lib = _library()
    w, count = tf.Variable(W), tf.Variable(0.0)
    with tf.GradientTape() as tape:
        (y,) = lib.call("outer", [tf.constant(X), w, count])
        loss = tf.reduce_sum(y)
    grad = tape.gradient(loss, w)
    np.testing.assert_allclose(grad.numpy(), 2 * np.ones((3, 2)) @ X, rtol=1e-6)


def test_while_loop():
    (out,) = _library().call("loop", [tf.constant(1.5)])
    assert float(out.numpy()) == 1.5 * 2 ** 5


def test_multi_output_op_by_argument_name():
    x = np.random.RandomState(0).randn(2, 3, 3, 2).astype(np.float32)
    y, mean = _library().call("bn", [tf.constant(x)])
    m = x.mean(axis=(0, 1, 2))
    v = x.var(axis=(0, 1, 2))
    np.testing.assert_allclose(mean.numpy(), m, rtol=1e-5, atol=1e-6)
    want = (x - m) / np.sqrt(v + 0.001) * [1.0, 2.0] + [0.0, 1.0]
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-4, atol=1e-5)


def test_unknown_op_and_cycle_are_tf_errors():
    lib = _library()
    with pytest.raises(tf.errors.NotFoundError, match="Op type not registered 'NotARealOp'"):
        lib.call("unknown", [tf.constant(1.0)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="cycle"):
        lib.call("cyclic", [tf.constant(1.0)])
    with pytest.raises(tf.errors.NotFoundError, match="not defined"):
        lib.call("missing", [])
    with pytest.raises(tf.errors.InvalidArgumentError, match="takes 3 inputs"):
        lib.call("dense", [tf.constant(X)])


RAW_CASES = [
    ("DepthwiseConv2dNative", lambda r: dict(
        input=r.randn(1, 5, 5, 2).astype("f"), filter=r.randn(3, 3, 2, 2).astype("f"),
        strides=[1, 2, 2, 1], padding="SAME")),
    ("Conv2DBackpropInput", lambda r: dict(
        input_sizes=np.array([1, 6, 6, 2], np.int32), filter=r.randn(3, 3, 2, 3).astype("f"),
        out_backprop=r.randn(1, 3, 3, 3).astype("f"), strides=[1, 2, 2, 1], padding="SAME")),
    ("Conv3D", lambda r: dict(input=r.randn(1, 4, 4, 4, 2).astype("f"),
                              filter=r.randn(2, 2, 2, 2, 3).astype("f"),
                              strides=[1, 1, 1, 1, 1], padding="VALID")),
    ("MaxPool3D", lambda r: dict(input=r.randn(1, 4, 4, 4, 2).astype("f"),
                                 ksize=[1, 2, 2, 2, 1], strides=[1, 2, 2, 2, 1],
                                 padding="VALID")),
    ("ResizeNearestNeighbor", lambda r: dict(images=r.randn(1, 3, 3, 2).astype("f"),
                                             size=np.array([6, 6], np.int32),
                                             half_pixel_centers=True)),
    ("ResizeBilinear", lambda r: dict(images=r.randn(1, 3, 3, 2).astype("f"),
                                      size=np.array([5, 7], np.int32),
                                      half_pixel_centers=True)),
    ("ReverseSequence", lambda r: dict(input=r.randn(2, 4, 3).astype("f"),
                                       seq_lengths=np.array([3, 1], np.int64), seq_dim=1,
                                       batch_dim=0)),
    ("InvertPermutation", lambda r: dict(x=np.array([2, 0, 3, 1], np.int32))),
    ("PadV2", lambda r: dict(input=r.randn(2, 3).astype("f"),
                             paddings=np.array([[1, 0], [0, 2]], np.int32),
                             constant_values=np.float32(7.0))),
    ("Pad", lambda r: dict(input=r.randn(2, 3).astype("f"),
                           paddings=np.array([[1, 0], [0, 2]], np.int32))),
    ("MirrorPad", lambda r: dict(input=r.randn(3, 3).astype("f"),
                                 paddings=np.array([[1, 1], [2, 0]], np.int32),
                                 mode="REFLECT")),
    ("TensorScatterAdd", lambda r: dict(tensor=r.randn(4, 2).astype("f"),
                                        indices=np.array([[1], [3], [1]], np.int32),
                                        updates=r.randn(3, 2).astype("f"))),
    ("TensorScatterMax", lambda r: dict(tensor=r.randn(4).astype("f"),
                                        indices=np.array([[0], [2]], np.int32),
                                        updates=r.randn(2).astype("f"))),
    ("MatrixDiagPartV3", lambda r: dict(input=r.randn(2, 3, 4).astype("f"),
                                        k=np.array([-1, 1], np.int32),
                                        padding_value=np.float32(9.0))),
    ("MatrixDiagV3", lambda r: dict(diagonal=r.randn(2, 3).astype("f"),
                                    k=np.int32(1), num_rows=np.int32(-1),
                                    num_cols=np.int32(-1), padding_value=np.float32(0.0))),
    ("MatrixSetDiagV3", lambda r: dict(input=r.randn(3, 3).astype("f"),
                                       diagonal=r.randn(3).astype("f"), k=np.int32(0))),
    ("SpaceToDepth", lambda r: dict(input=r.randn(1, 4, 4, 2).astype("f"), block_size=2)),
    ("DepthToSpace", lambda r: dict(input=r.randn(1, 2, 2, 8).astype("f"), block_size=2)),
]


@pytest.mark.parametrize("op,make", RAW_CASES, ids=[c[0] for c in RAW_CASES])
def test_saved_model_raw_ops_match_tf(op, make):
    kwargs = make(np.random.RandomState(3))
    want = getattr(real_tf().raw_ops, op)(**kwargs).numpy()
    got = getattr(tf.raw_ops, op)(**kwargs).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_bucketize_and_dense_bincount_handlers_match_tf():
    ttf = real_tf()
    x = np.array([[-5.0, 10000.0, 150.0], [10.0, 5.0, 0.0]], np.float32)
    want = ttf.raw_ops.Bucketize(input=x, boundaries=[0.0, 10.0, 100.0]).numpy()
    (got,) = HANDLERS["Bucketize"](None, {"boundaries": [0.0, 10.0, 100.0]}, [tf.constant(x)])
    np.testing.assert_array_equal(got.numpy(), want)
    assert got.dtype == tf.int32
    ids = np.array([[0, 2, 2, 5], [1, 1, 0, 3]], np.int32)
    for weights, binary in ((np.zeros([0], np.float32), False),
                            (np.arange(8, dtype=np.float32).reshape(2, 4), False),
                            (np.zeros([0], np.float32), True)):
        want = ttf.raw_ops.DenseBincount(input=ids, size=4, weights=weights,
                                         binary_output=binary).numpy()
        (got,) = HANDLERS["DenseBincount"](None, {"binary_output": binary}, [
            tf.constant(ids), tf.constant(4), tf.constant(weights)])
        np.testing.assert_allclose(got.numpy(), want)
        assert got.dtype == tf.float32


def test_closure_lists_called_functions_once():
    lib = _library()
    assert [f.signature.name for f in lib.closure("outer")] == ["outer", "dense"]
    assert sorted(f.signature.name for f in lib.closure("loop")) == ["body", "cond", "loop"]
