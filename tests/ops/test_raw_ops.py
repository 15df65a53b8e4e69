"""tf.raw_ops against real TensorFlow: values, dtypes, keyword-only calls, complex rejection."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tfl
from torchflow._src.testing import real_tf

_A = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
_I = np.arange(6, dtype=np.int32).reshape(2, 3)
_B3 = np.arange(12, dtype=np.float32).reshape(2, 2, 3) / 7

# (op, kwargs); np arrays are converted to each framework's constants.
_CASES = [
    ("AddV2", dict(x=_A, y=_A)),
    ("Add", dict(x=_I, y=_I)),
    ("Sub", dict(x=_A, y=np.float32(2))),
    ("Mul", dict(x=_I, y=_I)),
    ("RealDiv", dict(x=_A, y=_A + 1)),
    ("FloorDiv", dict(x=_I, y=np.int32(4))),
    ("FloorMod", dict(x=_I - 3, y=np.int32(4))),
    ("Maximum", dict(x=_A, y=np.float32(3))),
    ("Minimum", dict(x=_I, y=np.int32(2))),
    ("Pow", dict(x=_A, y=np.float32(2))),
    ("SquaredDifference", dict(x=_A, y=_A[::-1])),
    ("Equal", dict(x=_I, y=np.int32(2))),
    ("Less", dict(x=_A, y=np.float32(3))),
    ("GreaterEqual", dict(x=_I, y=np.int32(3))),
    ("LogicalAnd", dict(x=np.array([True, False]), y=np.array([True, True]))),
    ("LogicalNot", dict(x=np.array([True, False]))),
    ("Abs", dict(x=-_A)),
    ("Neg", dict(x=_I)),
    ("Exp", dict(x=_A / 6)),
    ("Sqrt", dict(x=_A)),
    ("Square", dict(x=_I)),
    ("Tanh", dict(x=_A - 3)),
    ("Sigmoid", dict(x=_A - 3)),
    ("Sum", dict(input=_I, axis=1)),
    ("Sum", dict(input=_I, axis=[0, 1], keep_dims=True)),
    ("Sum", dict(input=_I, axis=np.array([], np.int32))),
    ("Mean", dict(input=_A, axis=0)),
    ("Mean", dict(input=_I + 1, axis=1)),
    ("Prod", dict(input=_A, axis=-1, keep_dims=True)),
    ("Max", dict(input=_A, axis=1)),
    ("Max", dict(input=_I, axis=[0], keep_dims=True)),
    ("Min", dict(input=_A, axis=0)),
    ("All", dict(input=np.array([[True, False], [True, True]]), axis=1)),
    ("Relu", dict(features=_A - 3)),
    ("Relu6", dict(features=_A * 2 - 3)),
    ("Elu", dict(features=_A - 3)),
    ("Softmax", dict(logits=_A)),
    ("LogSoftmax", dict(logits=_B3)),
    ("BiasAdd", dict(value=_A, bias=np.array([1, 2, 3], np.float32))),
    ("MatMul", dict(a=_A, b=_A, transpose_b=True)),
    ("MatMul", dict(a=_A, b=_A, transpose_a=True)),
    ("BatchMatMulV2", dict(x=_B3, y=_B3, adj_y=True)),
    ("BatchMatMulV2", dict(x=_B3, y=_A.T)),
    ("Reshape", dict(tensor=_I, shape=[3, -1])),
    ("Transpose", dict(x=_B3, perm=[2, 0, 1])),
    ("ConcatV2", dict(values=[_A, _A], axis=1)),
    ("ConcatV2", dict(values=[_I, _I], axis=-2)),
    ("Pack", dict(values=[_I, _I], axis=1)),
    ("ExpandDims", dict(input=_I, axis=-1)),
    ("Squeeze", dict(input=_I.reshape(1, 2, 1, 3), axis=[0])),
    ("Squeeze", dict(input=_I.reshape(1, 2, 1, 3))),
    ("Tile", dict(input=_I, multiples=[2, 1])),
    ("Pad", dict(input=_I, paddings=[[1, 0], [0, 2]])),
    ("Cast", dict(x=_A * 1.6, DstT="int32")),
    ("Cast", dict(x=_I, DstT="float64")),
    ("Identity", dict(input=_A)),
    ("Fill", dict(dims=[2, 2], value=np.float32(3))),
    ("ZerosLike", dict(x=_I)),
    ("Range", dict(start=np.int32(1), limit=np.int32(10), delta=np.int32(3))),
    ("Shape", dict(input=_B3)),
    ("Shape", dict(input=_B3, out_type="int64")),
    ("Size", dict(input=_B3)),
    ("Rank", dict(input=_B3)),
    ("AddN", dict(inputs=[_A, _A, _A])),
    ("ArgMax", dict(input=_A, dimension=1)),
    ("ArgMin", dict(input=_I, dimension=0, output_type="int32")),
    ("StringJoin", dict(inputs=[np.array([b"a", b"b"]), np.array([b"c", b"d"])], separator="-")),
    ("StringLength", dict(input=np.array([b"abc", b""]))),
    ("DivNoNan", dict(x=_A, y=_A * 0)),
    ("TruncateDiv", dict(x=_I - 3, y=np.int32(2))),
    ("TruncateMod", dict(x=_I - 3, y=np.int32(2))),
    ("Atan2", dict(y=_A, x=_A[::-1])),
    ("Log1p", dict(x=_A)),
    ("Round", dict(x=_A / 2)),
    ("IsNan", dict(x=_A)),
    ("Erf", dict(x=_A / 4)),
    ("Softplus", dict(features=_A - 3)),
    ("LeakyRelu", dict(features=_A - 3, alpha=0.1)),
    ("Cumsum", dict(x=_I, axis=1, exclusive=True)),
    ("Cumprod", dict(x=_A, axis=0, reverse=True)),
    ("SelectV2", dict(condition=np.array([True, False, True]), t=_A, e=-_A)),
    ("Where", dict(condition=_I > 2)),
    ("GatherV2", dict(params=_A, indices=np.array([2, 0], np.int32), axis=1)),
    ("GatherNd", dict(params=_A, indices=np.array([[1, 2], [0, 0]], np.int32))),
    ("ScatterNd", dict(indices=np.array([[1], [3]], np.int32), updates=np.float32([5, 6]),
                       shape=np.array([5], np.int32))),
    ("OneHot", dict(indices=np.array([0, 2], np.int32), depth=np.int32(3),
                    on_value=np.float32(1), off_value=np.float32(0))),
    ("Slice", dict(input=_I, begin=[0, 1], size=[2, 2])),
    ("ReverseV2", dict(tensor=_I, axis=[1])),
    ("BroadcastTo", dict(input=np.float32([1, 2, 3]), shape=[2, 3])),
    ("Einsum", dict(inputs=[_A, _A], equation="ij,kj->ik")),
    ("ClipByValue", dict(t=_A, clip_value_min=np.float32(2), clip_value_max=np.float32(4))),
    ("L2Loss", dict(t=_A)),
    ("MatrixDeterminant", dict(input=np.eye(3, dtype=np.float32) * 2)),
    ("SegmentSum", dict(data=_A, segment_ids=np.array([0, 0], np.int32))),
    ("StringLower", dict(input=np.array([b"AbC"]))),
    ("StringToNumber", dict(string_tensor=np.array([b"1.5"]))),
    ("AsString", dict(input=_A, precision=2)),
    ("StaticRegexReplace", dict(input=np.array([b"aab"]), pattern="a", rewrite="x")),
    ("RegexFullMatch", dict(input=np.array([b"aab"]), pattern="a+b")),
    ("Substr", dict(input=np.array([b"hello"]), pos=np.int32([1]), len=np.int32([3]))),
    ("ReduceJoin", dict(inputs=np.array([[b"a", b"b"]]), reduction_indices=1, separator="-")),
    ("StringFormat", dict(inputs=[_I], template="x={}", placeholder="{}")),
    ("StringToHashBucketFast", dict(input=np.array([b"abc", b""]), num_buckets=100)),
    ("StringToHashBucketStrong", dict(input=np.array([b"abc"]), num_buckets=100, key=[1, 2])),
    ("FakeQuantWithMinMaxArgs", dict(inputs=_A - 3, min=-1.0, max=2.0)),
    ("QuantizeAndDequantizeV2", dict(input=_A - 3, input_min=np.float32(-1),
                                     input_max=np.float32(1), range_given=True, num_bits=3)),
    ("QuantizeAndDequantizeV4", dict(input=_A - 3, input_min=np.float32(-1),
                                     input_max=np.float32(2), num_bits=4, narrow_range=True)),
]


def _conv(m, v, key):
    if key in ("DstT", "out_type", "output_type"):
        return getattr(m, v)
    if isinstance(v, np.ndarray) or isinstance(v, np.generic):
        return m.constant(v)
    if isinstance(v, list) and v and isinstance(v[0], np.ndarray):
        return [m.constant(a) for a in v]
    return v


def _run(m, op, kwargs):
    return getattr(m.raw_ops, op)(**{k: _conv(m, v, k) for k, v in kwargs.items()})


@pytest.mark.parametrize("op,kwargs", _CASES, ids=[c[0] for c in _CASES])
def test_like_tf(op, kwargs):
    theirs = _run(real_tf(), op, kwargs)
    ours = _run(tfl, op, kwargs)
    assert ours.dtype.name == theirs.dtype.name
    a, b = ours.numpy(), theirs.numpy()
    assert np.shape(a) == np.shape(b)
    if np.asarray(b).dtype.kind == "f":
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    else:
        assert np.asarray(a).tolist() == np.asarray(b).tolist()


_BAD = [
    ("Max", dict(input=np.array([1 + 2j, 3j]), axis=0)),
    ("Min", dict(input=np.array([1 + 2j, 3j], np.complex64), axis=[0], keep_dims=True)),
    ("MatMul", dict(a=_B3, b=_B3)),
    ("AddV2", dict(x=_I, y=_A)),
    ("Softmax", dict(logits=np.float32(1))),
    ("Reshape", dict(tensor=_I, shape=[4, -1])),
]


@pytest.mark.parametrize("op,kwargs", _BAD, ids=[c[0] for c in _BAD])
def test_errors_like_tf(op, kwargs):
    with pytest.raises(Exception) as theirs:
        _run(real_tf(), op, kwargs)
    with pytest.raises(Exception) as ours:
        _run(tfl, op, kwargs)
    assert type(ours.value).__name__ == type(theirs.value).__name__, str(ours.value)
    if op in ("Max", "Min"):
        assert "complex" in str(ours.value)


@pytest.mark.parametrize("call", [
    lambda m: m.raw_ops.AddV2(m.constant(1.0), m.constant(2.0)),
    lambda m: m.raw_ops.Sum(m.constant([1]), axis=0),
    lambda m: m.raw_ops.AddV2(x=m.constant(1.0), z=m.constant(2.0)),
    lambda m: m.raw_ops.AddV2(x=m.constant(1.0)),
])
def test_keyword_only_type_errors_like_tf(call):
    with pytest.raises(TypeError) as theirs:
        call(real_tf())
    with pytest.raises(TypeError) as ours:
        call(tfl)
    assert str(ours.value).split("(")[0] == str(theirs.value).split("(")[0]


def test_name_keyword_accepted_and_public_module():
    assert float(tfl.raw_ops.AddV2(x=1.0, y=2.0, name="add")) == 3.0
    assert tfl.raw_ops.MatMul.__module__ == "torchflow.raw_ops"
    assert tfl.raw_ops.MatMul.__name__ == "MatMul"


def _draws(m, op, **kw):
    f = getattr(m.raw_ops, op)
    return [np.asarray(f(**kw).numpy()) for _ in range(2)]


@pytest.mark.parametrize("op,kw", [
    ("RandomStandardNormal", dict(shape=[3], dtype="float32", seed=1, seed2=2)),
    ("RandomUniform", dict(shape=[3], dtype="float64", seed=0, seed2=0)),
    ("TruncatedNormal", dict(shape=[3], dtype="float32", seed=4, seed2=0)),
    ("StatelessRandomNormal", dict(shape=[3], seed=[1, 2])),
    ("StatelessRandomUniform", dict(shape=[3], seed=[1, 2], dtype="float64")),
])
def test_random_raw_ops_repeat_like_tf(op, kw):
    """Seeded raw ops are streams (two calls differ), stateless ones repeat; dtypes as TF."""
    res = {}
    for m in (real_tf(), tfl):
        k = {a: (getattr(m, v) if a == "dtype" else v) for a, v in kw.items()}
        a, b = _draws(m, op, **k)
        res[m is tfl] = (a.dtype, a.shape, bool(np.array_equal(a, b)))
    assert res[True] == res[False]


@pytest.mark.parametrize("op,kw", [
    ("RandomStandardNormal", dict(shape=[5], dtype="float32", seed=1, seed2=2)),
    ("RandomUniform", dict(shape=[2, 3], dtype="float64", seed=7, seed2=0)),
    ("TruncatedNormal", dict(shape=[9], dtype="float32", seed=4, seed2=3)),
    ("RandomUniformInt", dict(shape=[6], minval=np.int32(-4), maxval=np.int32(9), seed=2,
                              seed2=5)),
    ("Multinomial", dict(logits=np.log(np.float32([[0.2, 0.3, 0.5]])), num_samples=6, seed=3,
                         seed2=1)),
    ("RandomShuffle", dict(value=np.arange(12, dtype=np.int32), seed=8, seed2=0)),
])
def test_seeded_random_raw_ops_are_tfs(op, kw):
    real_tf().random.set_seed(None)  # clears TF's kernel cache: fresh (seed, seed2) streams
    vals = []
    for m in (real_tf(), tfl):
        k = {a: (getattr(m, v) if a == "dtype" else _conv(m, v, a)) for a, v in kw.items()}
        vals.append(_draws(m, op, **k))
    for ours, theirs in zip(vals[1], vals[0]):
        np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=1e-6)


def test_random_uniform_int_and_multinomial_raw():
    x = tfl.raw_ops.RandomUniformInt(shape=[500], minval=tfl.constant(2), maxval=tfl.constant(5),
                                     seed=3, seed2=1)
    assert x.dtype == tfl.int32 and sorted(set(x.numpy().tolist())) == [2, 3, 4]
    s = tfl.raw_ops.Multinomial(logits=tfl.constant([[0.0, 0.0]]), num_samples=4,
                                output_dtype=tfl.int32)
    assert s.dtype == tfl.int32 and tuple(s.shape) == (1, 4)


def test_raw_op_table_is_the_module_namespace():
    """Every op of the raw-op table is an attribute of ``tf.raw_ops`` (through the engine
    module's ``__getattr__``), listed by ``dir()``, named after itself; unknown names
    raise AttributeError."""
    import torchflow.raw_ops as public_raw
    from torchflow._src.ops import raw_ops as engine_raw

    table = engine_raw._OPS
    assert len(table) > 150
    listed = set(dir(engine_raw))
    for name, fn in table.items():
        assert getattr(engine_raw, name) is fn
        assert getattr(public_raw, name) is fn, name
        assert name in listed and name in dir(public_raw)
        assert fn.__name__ == name and fn.__module__ == "torchflow.raw_ops"
    with pytest.raises(AttributeError, match="NoSuchOp"):
        engine_raw.NoSuchOp  # noqa: B018 - the attribute access is the test
