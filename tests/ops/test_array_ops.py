"""reshape, transpose, concat, stack, split, squeeze, tile, pad, reverse, roll, repeat:
NumPy tables over dtypes plus differential checks against real TF."""

import numpy as np
import pytest
import torch

import torchflow as tf
from tests.ops._array_diff import check, check_error
from torchflow._src.testing import assert_close, rand

DTYPES = ["float32", "float64", "float16", "int8", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64", "bool", "complex64"]
STR = np.array([[b"a", b"bb", b"c"], [b"d", b"", b"f"]], dtype=object)


def _np_pad(a, p, mode, cv=0):
    m = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}[mode]
    return np.pad(a, p, m, constant_values=cv) if m == "constant" else np.pad(a, p, m)


# One row per op: (torchflow call, NumPy reference), applied to a [2, 3] array.
TABLE = [
    ("reshape", lambda x: tf.reshape(x, [3, 2]), lambda a: a.reshape(3, 2)),
    ("reshape_-1", lambda x: tf.reshape(x, [-1]), lambda a: a.reshape(-1)),
    ("reshape_t", lambda x: tf.reshape(x, tf.constant([1, 6])), lambda a: a.reshape(1, 6)),
    ("transpose", lambda x: tf.transpose(x), lambda a: a.T),
    ("transpose_perm", lambda x: tf.transpose(tf.reshape(x, [1, 2, 3]), [2, 0, 1]),
     lambda a: a.reshape(1, 2, 3).transpose(2, 0, 1)),
    ("concat0", lambda x: tf.concat([x, x], 0), lambda a: np.concatenate([a, a], 0)),
    ("concat-1", lambda x: tf.concat([x, x[:, :1]], -1),
     lambda a: np.concatenate([a, a[:, :1]], -1)),
    ("stack", lambda x: tf.stack([x, x], 1), lambda a: np.stack([a, a], 1)),
    ("unstack", lambda x: tf.unstack(x, axis=1)[2], lambda a: a[:, 2]),
    ("split", lambda x: tf.split(x, [1, -1], axis=1)[1], lambda a: a[:, 1:]),
    ("split_n", lambda x: tf.split(x, 3, axis=1)[2], lambda a: a[:, 2:]),
    ("squeeze", lambda x: tf.squeeze(tf.reshape(x, [1, 2, 1, 3]), [0]),
     lambda a: a.reshape(2, 1, 3)),
    ("squeeze_all", lambda x: tf.squeeze(tf.reshape(x, [1, 2, 1, 3])), lambda a: a),
    ("expand_dims", lambda x: tf.expand_dims(x, -1), lambda a: a[..., None]),
    ("expand_dims0", lambda x: tf.expand_dims(x, 0), lambda a: a[None]),
    ("tile", lambda x: tf.tile(x, [2, 3]), lambda a: np.tile(a, [2, 3])),
    ("pad", lambda x: tf.pad(x, [[1, 0], [2, 1]]), lambda a: _np_pad(a, [[1, 0], [2, 1]],
                                                                     "CONSTANT")),
    ("pad_reflect", lambda x: tf.pad(x, [[1, 1], [2, 2]], "REFLECT"),
     lambda a: _np_pad(a, [[1, 1], [2, 2]], "REFLECT")),
    ("pad_symmetric", lambda x: tf.pad(x, [[2, 1], [3, 0]], "symmetric"),
     lambda a: _np_pad(a, [[2, 1], [3, 0]], "SYMMETRIC")),
    ("reverse", lambda x: tf.reverse(x, [-1, 0]), lambda a: a[::-1, ::-1]),
    ("roll", lambda x: tf.roll(x, [1, -1], [0, 1]), lambda a: np.roll(a, [1, -1], [0, 1])),
    ("repeat", lambda x: tf.repeat(x, 2, axis=1), lambda a: np.repeat(a, 2, 1)),
    ("repeat_list", lambda x: tf.repeat(x, [1, 0, 2], axis=1), lambda a: np.repeat(a, [1, 0, 2],
                                                                                   1)),
    ("repeat_flat", lambda x: tf.repeat(x, 2), lambda a: np.repeat(a, 2)),
    ("identity", lambda x: tf.identity(x), lambda a: a),
    ("broadcast_to", lambda x: tf.broadcast_to(x, [4, 2, 3]), lambda a: np.broadcast_to(
        a, (4, 2, 3))),
    ("gather", lambda x: tf.gather(x, [2, 0, 2], axis=1), lambda a: a[:, [2, 0, 2]]),
    ("gather_nd", lambda x: tf.gather_nd(x, [[1, 2], [0, 0]]), lambda a: a[[1, 0], [2, 0]]),
    ("boolean_mask", lambda x: tf.boolean_mask(x, [False, True]), lambda a: a[[1]]),
    ("boolean_mask_axis", lambda x: tf.boolean_mask(x, [True, False, True], axis=1),
     lambda a: a[:, [0, 2]]),
    ("where3", lambda x: tf.where([[True], [False]], x, tf.reverse(x, [1])),
     lambda a: np.where([[True], [False]], a, a[:, ::-1])),
    ("slice", lambda x: tf.slice(x, [0, 1], [-1, 2]), lambda a: a[:, 1:3]),
    ("getitem", lambda x: x[::-1, 1:], lambda a: a[::-1, 1:]),
]


@pytest.mark.parametrize("dtype", DTYPES + ["string"])
@pytest.mark.parametrize("name,ours,ref", TABLE, ids=[r[0] for r in TABLE])
def test_array_op_table(name, ours, ref, dtype):
    a = STR if dtype == "string" else rand((2, 3), dtype, seed=7)
    if dtype == "string" and name.startswith("pad"):
        ref_a = _np_pad(a, *_pad_args(name)) if name != "pad" else \
            np.pad(a, [[1, 0], [2, 1]], constant_values=b"")
        out = ours(tf.constant(a))
        np.testing.assert_array_equal(out.numpy(), ref_a)
        return
    out = ours(tf.constant(a))
    expect = np.asarray(ref(a))
    assert out.dtype.name == dtype
    if dtype == "string":
        np.testing.assert_array_equal(out.numpy(), expect)
    else:
        assert_close(out, expect.astype(a.dtype))


def _pad_args(name):
    return {"pad_reflect": ([[1, 1], [2, 2]], "REFLECT"),
            "pad_symmetric": ([[2, 1], [3, 0]], "SYMMETRIC")}[name]


def test_pad_constant_values():
    check("pad", rand((2, 3), "float32"), [[1, 1], [0, 2]], constant_values=2.5)
    check("pad", np.array([1, 2], np.int32), [[2, 0]], constant_values=-1)
    check("pad", np.array([b"x"], dtype=object), [[1, 1]], constant_values="p")
    check("pad", np.array([1], np.uint32), [[1, 0]], constant_values=np.uint32(2**32 - 2))
    out = tf.pad(tf.constant([1 + 1j], tf.complex64), [[1, 0]], constant_values=2j)
    assert out.numpy().tolist() == [2j, 1 + 1j]


def test_transpose_conjugate():
    a = rand((2, 3), "complex64")
    check("transpose", a, conjugate=True)
    check("transpose", rand((2, 3), "float32"), conjugate=True)


@pytest.mark.parametrize("name,args,kw", [
    ("reshape", (np.arange(12), [5]), {}),
    ("reshape", (np.arange(12), [-1, -1]), {}),
    ("reshape", (np.arange(12), [5, -1]), {}),
    ("transpose", (np.zeros((3, 4)), [0]), {}),
    ("transpose", (np.zeros((3, 4)), [0, 0]), {}),
    ("concat", ([np.zeros((3, 4), np.int32), np.zeros((3, 3), np.int32)], 0), {}),
    ("concat", ([tf.constant([1]), [2.5]], 0), {}),
    ("concat", ([[2.5], tf.constant([1])], 0), {}),
    ("concat", ([tf.constant([1]), tf.constant([1.0])], 0), {}),
    ("concat", ([np.zeros((3, 4)), np.zeros((3, 4))], 2), {}),
    ("stack", ([np.zeros((3, 4)), np.zeros((3, 3))],), {}),
    ("stack", ([np.zeros((3, 4)), np.zeros((3, 4))],), dict(axis=3)),
    ("unstack", (np.zeros((3, 4)),), dict(num=2)),
    ("unstack", (np.float32(1),), {}),
    ("split", (np.zeros((3, 4)), 3), dict(axis=1)),
    ("split", (np.zeros((3, 4)), [1, 1]), dict(axis=1)),
    ("split", (np.zeros((3, 4)), [-1, -1]), dict(axis=1)),
    ("squeeze", (np.zeros((3, 4)), [0]), {}),
    ("squeeze", (np.zeros((3, 4)), [5]), {}),
    ("expand_dims", (np.zeros((3, 4)), 5), {}),
    ("tile", (np.zeros((3, 4)), [2]), {}),
    ("pad", (np.zeros((3, 4)), [[3, 3], [0, 0]], "REFLECT"), {}),
    ("pad", (np.zeros((3, 4)), [[4, 0], [0, 0]], "SYMMETRIC"), {}),
    ("pad", (np.zeros((3, 4)), [[1, 1], [0, 0]], "FOO"), {}),
    ("pad", (np.zeros((3, 4)), [[-1, 0], [0, 0]]), {}),
    ("pad", (np.zeros((3, 4)), [[1, 0]]), {}),
    ("pad", (np.zeros((3, 4), np.int32), [[1, 0], [0, 0]]), dict(constant_values=1.5)),
    ("reverse", (np.zeros((3, 4)), [2]), {}),
    ("reverse", (np.zeros((3, 4)), [0, 0]), {}),
])
def test_array_errors_match_tf(name, args, kw):
    check_error(name, *args, **kw)


def test_reshape_error_message():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Input to reshape is a tensor with 12 values, but the requested "
                             "shape has 5"):
        tf.reshape(tf.range(12), [5])


@pytest.mark.parametrize("args,kw", [
    ((rand((3, 4), "float32"), [2, -1, 3]), {}),
    ((rand((3, 0), "float32"), [0, 5]), {}),
    ((np.float32(3), [1, 1]), {}),
])
def test_reshape_matches_tf(args, kw):
    check("reshape", *args, **kw)


def test_concat_and_stack_match_tf():
    a, b = rand((2, 3), "int32"), rand((2, 1), "int32", seed=2)
    check("concat", [a, b], 1)
    check("concat", [a], 0)
    check("stack", [a, a, a], axis=-1)
    check("stack", [1, 2, 3])
    check("unstack", rand((2, 3, 4), "float32"), axis=-2)
    check("split", rand((6, 2), "float32"), [1, 2, -1])
    check("split", rand((6, 2), "float32"), tf.constant([4, 2]))


def test_list_conversion_matches_tf():
    check("concat", [np.zeros((1,), np.int32), np.zeros((1,), np.float32)], 0)
    check("stack", [1, 2.5])
    check("stack", [2.5, 1])
    check("pad", np.array([True]), [[1, 0]])


def test_concat_mixed_python_and_tensor():
    out = tf.concat([tf.constant([1.0]), [2.0, 3.0]], 0)
    assert out.dtype == tf.float32 and out.numpy().tolist() == [1.0, 2.0, 3.0]


def test_reverse_sequence_matches_tf():
    x = np.arange(24).reshape(2, 3, 4).astype(np.int32)
    check("reverse_sequence", x, [2, 4], seq_axis=2, batch_axis=0)
    check("reverse_sequence", x, [1, 3, 0], seq_axis=2, batch_axis=1)
    check("reverse_sequence", x, [3, 1, 2, 0], seq_axis=1, batch_axis=2)


def test_roll_and_repeat_match_tf():
    x = rand((3, 4), "float32")
    check("roll", x, 2, 1)
    check("roll", x, [1, 2], [0, 0])
    check("roll", x, -5, 0)
    check("repeat", x, [1, 2, 0], axis=0)
    check("repeat", x, 3)


def test_ops_are_differentiable():
    a = tf.constant(rand((2, 3), "float32"))
    with torch.enable_grad():
        a._t.requires_grad_(True)
        y = tf.concat([tf.pad(a, [[1, 1], [2, 0]], "REFLECT"), tf.tile(a, [2, 2])[:, :5]], 0)
        y = tf.reduce_sum(y) if hasattr(tf, "reduce_sum") else y
        y._t.sum().backward()
    assert a._t.grad is not None and a._t.grad.shape == (2, 3)


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC"])
def test_pad_with_a_paddings_tensor_matches_numpy(mode):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    p = [[1, 1], [0, 2]]
    np_mode = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}[mode]
    expected = np.pad(x, p, mode=np_mode)
    for paddings in (tf.constant(p), tf.constant(p, tf.int64), np.array(p)):
        np.testing.assert_array_equal(tf.pad(x, paddings, mode=mode).numpy(), expected)
