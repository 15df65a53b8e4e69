"""Array ops stay differentiable: gradients through tf.GradientTape equal real TF's."""

import pytest

import torchflow as tf
from torchflow._src.testing import assert_close, rand, real_tf

X = rand((4, 6), "float32", seed=21)

# Each row: the same function written once, applied with either framework's module.
CASES = [
    ("gather", lambda m, x: m.gather(x, [0, 0, 3], axis=0)),
    ("gather_axis1", lambda m, x: m.gather(x, [[5, 1], [1, 1]], axis=1)),
    ("gather_batch", lambda m, x: m.gather(x, [[1, 1], [0, 5], [2, 2], [3, 4]], batch_dims=1)),
    ("gather_nd", lambda m, x: m.gather_nd(x, [[0, 1], [3, 5], [0, 1]])),
    ("concat", lambda m, x: m.concat([x, x[:, :2] * 2.0], 1)),
    ("stack_unstack", lambda m, x: m.stack(m.unstack(x, axis=1)[::2], axis=0)),
    ("split", lambda m, x: m.split(x, [2, -1, 1], axis=1)[1]),
    ("pad_reflect", lambda m, x: m.pad(x, [[1, 2], [3, 1]], "REFLECT")),
    ("pad_symmetric", lambda m, x: m.pad(x, [[2, 2], [0, 1]], "SYMMETRIC")),
    ("pad_constant", lambda m, x: m.pad(x, [[1, 0], [0, 2]], constant_values=3.0)),
    ("tile", lambda m, x: m.tile(x, [2, 3])),
    ("getitem", lambda m, x: x[::-2, 1:5:2]),
    ("getitem_newaxis", lambda m, x: x[None, ..., -1]),
    ("strided_slice", lambda m, x: m.strided_slice(x, [3, 0], [0, 6], [-1, 2])),
    ("slice", lambda m, x: m.slice(x, [1, 2], [2, -1])),
    ("transpose_reshape", lambda m, x: m.reshape(m.transpose(x), [3, 8])),
    ("reverse_roll", lambda m, x: m.roll(m.reverse(x, [1]), 2, 1)),
    ("repeat", lambda m, x: m.repeat(x, [1, 0, 2, 1], axis=0)),
    ("broadcast_to", lambda m, x: m.broadcast_to(x[:1], [3, 6])),
    ("where", lambda m, x: m.where(x > 0.0, x * 2.0, -x)),
    ("boolean_mask", lambda m, x: m.boolean_mask(x, [True, False, True, True])),
    ("clip_by_value", lambda m, x: m.clip_by_value(x, -1.0, 1.5)),
    ("clip_by_norm", lambda m, x: m.clip_by_norm(x, 2.0, axes=[1])),
    ("clip_by_global_norm", lambda m, x: m.clip_by_global_norm([x, x[:2]], 3.0)[0][1]),
    ("tensor_scatter_update", lambda m, x: m.tensor_scatter_nd_update(x, [[1], [2]],
                                                                        x[:2] * 3.0)),
    ("tensor_scatter_add", lambda m, x: m.tensor_scatter_nd_add(x, [[1, 1], [1, 1]],
                                                                  x[0, :2])),
    ("scatter_nd", lambda m, x: m.scatter_nd([[2], [0], [2]], x[:3], [5, 6])),
    ("einsum", lambda m, x: m.einsum("ij,kj->ik", x, x)),
    ("tensordot", lambda m, x: m.tensordot(x, x, [[0], [0]])),
    ("cast", lambda m, x: m.cast(x, "float64")),
    ("dynamic_stitch", lambda m, x: m.dynamic_stitch([[1, 0], [2]], [x[:2], x[2:3]])),
    ("linspace", lambda m, x: m.linspace(x[0], x[1], 4, axis=1)),
    ("expand_squeeze", lambda m, x: m.squeeze(m.expand_dims(x, 1), [1])),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_gradient_matches_tf(name, fn):
    rtf = real_tf()

    def grad(m, tape_cls):
        x = m.constant(X)
        with tape_cls() as g:
            g.watch(x)
            y = fn(m, x)
            w = m.constant(rand(tuple(y.shape), y.dtype.name, seed=5))
            loss = m.reduce_sum(y * w)
        return g.gradient(loss, x)

    ours = grad(tf, tf.GradientTape)
    theirs = grad(rtf, rtf.GradientTape)
    assert ours is not None
    assert (type(ours).__name__ == "IndexedSlices") == (type(theirs).__name__ == "IndexedSlices")
    ours = tf.convert_to_tensor(ours)
    theirs = rtf.convert_to_tensor(theirs)
    assert_close(ours, theirs.numpy(), rtol=1e-5, atol=1e-5)
