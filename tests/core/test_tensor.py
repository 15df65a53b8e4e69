"""tf.Tensor's Python protocol (repr, conversions, len/iter, ref) against real TF."""

import copy
import pickle

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

VALUES = [
    (1.5, None), ([1, 2], None), ([[1.0, 2.0], [3.0, 4.0]], None), ("ab", None),
    (["a", "b"], None), (True, None), ([7], None), (2, "int64"), ([], "float32"),
    (1 + 2j, None), ([[1, 2, 3]] * 3, "uint8"), (0.25, "float16"), ([1.0, -2.0], "float64"),
    (np.arange(12).reshape(2, 3, 2), "int16"),
]
ids = [f"{v!r}-{d}" for v, d in VALUES]


def _make(mod, value, dtype):
    return mod.constant(value, dtype=dtype)


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the exception type is compared
        return ("raises", type(e).__name__)


PROTOCOL = {
    "repr": repr,
    "str": str,
    "shape": lambda t: t.shape.as_list(),
    "dtype": lambda t: t.dtype.name,
    "ndim": lambda t: t.ndim,
    "len": len,
    "iter": lambda t: [repr(x) for x in t],
    "bool": bool,
    # size-1 arrays: TF 2.4 (NumPy 1.x) converts them, see test_size_one_tensors_convert_like_tf24
    "float": lambda t: float(t) if t.dtype.name != "complex128" and t.shape.rank == 0 else None,
    "device": lambda t: t.device,
    "numpy_dtype": lambda t: t.numpy().dtype,
    "numpy": lambda t: t.numpy().tolist(),
    "array": lambda t: np.asarray(t).tolist(),
    "array_f64": lambda t: (np.asarray(t, dtype=np.float64).tolist()
                            if t.dtype.name not in ("string", "complex128") else None),
    "hash": hash,
    "name": lambda t: t.name,
}


@pytest.mark.parametrize("what", list(PROTOCOL))
@pytest.mark.parametrize("value,dtype", VALUES, ids=ids)
def test_protocol_matches_tf(value, dtype, what):
    rtf = real_tf()
    fn = PROTOCOL[what]
    ours = _outcome(lambda: fn(_make(tf, value, dtype)))
    theirs = _outcome(lambda: fn(_make(rtf, value, dtype)))
    assert ours == theirs


def test_scalar_repr_is_tf24s():
    # TF 2.4 with NumPy 1.x printed float32 scalars in shortest form; TF 2.21 on
    # NumPy 2 prints numpy=0.10000000149011612.
    assert repr(tf.constant(0.1)) == "<tf.Tensor: shape=(), dtype=float32, numpy=0.1>"
    assert type(tf.constant(0.1).numpy()) is np.float32
    assert tf.constant("ab").numpy().decode() == "ab"


@pytest.mark.parametrize("value,dtype", [(2, "int32"), (1, "int64"), (-1, "int32")])
def test_integer_scalars_index_and_int(value, dtype):
    t = tf.constant(value, dtype=dtype)
    assert [10, 20, 30][t] == [10, 20, 30][value]
    assert int(t) == value and t.__index__() == value
    assert range(5)[tf.constant(1)] == 1


def test_non_integer_index_raises_type_error():
    with pytest.raises(TypeError):
        [1, 2][tf.constant(1.0)]
    with pytest.raises(TypeError):
        [1, 2][tf.constant([1])]


def test_size_one_tensors_convert_like_tf24():
    # TF 2.4 (NumPy < 1.25) converts size-1 arrays to Python scalars.
    assert int(tf.constant([7])) == 7 and float(tf.constant([[2.5]])) == 2.5
    with pytest.raises(TypeError):
        int(tf.constant([1, 2]))


def test_ref_is_hashable_and_derefs():
    a = tf.constant([1, 2])
    b = tf.constant([1, 2])
    d = {a.ref(): "a", b.ref(): "b"}
    assert d[a.ref()] == "a" and d[b.ref()] == "b"
    assert a.ref() == a.ref() and a.ref() != b.ref()
    assert a.ref().deref() is a
    assert a.experimental_ref().deref() is a


def test_tensor_cannot_be_constructed_directly():
    with pytest.raises(TypeError):
        tf.Tensor()


def test_copy_pickle_and_immutability():
    a = tf.constant([[1.0, 2.0]])
    assert copy.copy(a) is a
    b = copy.deepcopy(a)
    assert b is not a and np.array_equal(b.numpy(), a.numpy())
    c = pickle.loads(pickle.dumps(a))
    assert c.dtype == tf.float32 and c.numpy().tolist() == [[1.0, 2.0]]
    s = pickle.loads(pickle.dumps(tf.constant(["x"])))
    assert s.dtype == tf.string and s.numpy().tolist() == [b"x"]


def test_eager_only_attributes_raise_attribute_error():
    t = tf.constant(1)
    for attr in ("name", "op", "graph"):
        with pytest.raises(AttributeError):
            getattr(t, attr)


def test_set_shape_and_get_shape():
    t = tf.constant([[1, 2, 3]])
    t.set_shape([1, None])
    assert t.get_shape() == [1, 3]
    with pytest.raises(ValueError):
        t.set_shape([2, 3])


def test_is_tensor():
    rtf = real_tf()
    for v in (1, [1], np.zeros(2)):
        assert tf.is_tensor(v) == rtf.is_tensor(v) is False
    assert tf.is_tensor(tf.constant(1))
