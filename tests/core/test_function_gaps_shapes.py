"""Output shapes of signatures with unknown (None) dimensions (issue 13): TF's shape
inference keeps a dimension unknown where it depends on an unknown input dimension
and static where it does not. ``structured_outputs``, ``output_shapes``, the printed
signature and the SavedModel signatures torchflow writes are compared with real TF's,
for traces made by ``get_concrete_function`` (stand-in sizes) and by calls."""

from __future__ import annotations

import os

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core.proto import tf_saved_model_pb2
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _bodies(m):
    return {
        "scale": ([m.TensorSpec([None], m.float32)], lambda x: x * 2),
        "keepdims": ([m.TensorSpec([None, 1], m.float32)],
                     lambda x: (m.reduce_sum(x, 0, keepdims=True), m.reduce_mean(x))),
        "slices": ([m.TensorSpec([None, 1], m.float32)],
                   lambda x: {"b": x[:3], "c": m.concat([x, x], 0), "d": m.reshape(x, [-1]),
                              "e": m.ones([1, 4]) + x}),
        "matmul": ([m.TensorSpec([None, 3], m.float32), m.TensorSpec([3, None], m.float32)],
                   lambda a, b: (m.matmul(a, b), m.transpose(a), m.zeros([2, 5]))),
        "shape_ops": ([m.TensorSpec([None, 4], m.float32)],
                      lambda x: (m.zeros(m.shape(x)), m.reshape(x, [-1, 2]), m.shape(x))),
        "boolean_mask": ([m.TensorSpec([5], m.float32)], lambda x: m.boolean_mask(x, x > 0)),
        "known_batch": ([m.TensorSpec([2, None], m.float32)],
                        lambda x: (m.reduce_sum(x, 1), x[:, :1] * 3.0)),
    }


def _dims(s):
    shape = getattr(s, "shape", s)  # a tensor's, or output_shapes' TensorShape
    return shape.as_list() if shape.rank is not None else None


def _shapes(outputs):
    return [_dims(s) for s in tf.nest.flatten(outputs)]


def _real_shapes(outputs):
    return [_dims(s) for s in real_tf().nest.flatten(outputs)]


@pytest.mark.parametrize("case", sorted(_bodies(tf)))
def test_structured_outputs_are_tf_s_static_shapes(case):
    rtf = real_tf()
    sig, body = _bodies(tf)[case]
    rsig, rbody = _bodies(rtf)[case]
    ours = tf.function(body, input_signature=sig).get_concrete_function()
    theirs = rtf.function(rbody, input_signature=rsig).get_concrete_function()
    assert _shapes(ours.structured_outputs) == _real_shapes(theirs.structured_outputs)
    assert _shapes(ours.output_shapes) == _real_shapes(theirs.output_shapes)
    assert [d.name for d in tf.nest.flatten(ours.output_dtypes)] == \
        [d.name for d in rtf.nest.flatten(theirs.output_dtypes)]


def test_a_call_at_a_real_size_shows_the_unknown_dimensions():
    # The first trace is a call with 5 rows, not get_concrete_function's stand-ins.
    rtf = real_tf()
    runs = []

    def body(m):
        def f(x):
            runs.append(1)
            return m.reduce_sum(x, 1, keepdims=True), m.reduce_sum(x, 0)
        return f

    x = np.ones((5, 5), np.float32)
    ours = tf.function(body(tf), input_signature=[tf.TensorSpec([None, 5])])
    theirs = rtf.function(body(rtf), input_signature=[rtf.TensorSpec([None, 5])])
    np.testing.assert_allclose(ours(x)[0].numpy(), theirs(x)[0].numpy())
    n = len(runs)
    c = ours.get_concrete_function()
    assert len(runs) == n  # no trace again for the concrete function
    assert _shapes(c.structured_outputs) == \
        _real_shapes(theirs.get_concrete_function().structured_outputs) == [[None, 1], [5]]
    assert "float32 Tensor, shape=(None, 1)" in c.pretty_printed_signature()


def test_output_shapes_replay_has_no_effects():
    # The replay that measures shapes runs no tf.print, no variable write and draws
    # no random numbers: the program's numbers and prints are TF's.
    v = tf.Variable(0.0)
    printed = []

    @tf.function(input_signature=[tf.TensorSpec([None])])
    def f(x):
        v.assign_add(1.0)
        tf.py_function(lambda t: printed.append(t.shape[0]) or t, [x], tf.float32)
        return x + tf.random.uniform(tf.shape(x), seed=3)

    tf.random.set_seed(1)
    a = f(tf.ones([4])).numpy()
    assert v.numpy() == 1.0 and printed == [4]
    assert _shapes(f.get_concrete_function().structured_outputs) == [[None]]
    tf.random.set_seed(1)
    g = tf.function(lambda x: x + tf.random.uniform(tf.shape(x), seed=3),
                    input_signature=[tf.TensorSpec([None])])
    np.testing.assert_array_equal(a, g(tf.ones([4])).numpy())


def _save(m, path):
    class Mod(m.Module):
        @m.function(input_signature=[m.TensorSpec([None, 2], m.float32)])
        def serve(self, x):
            return {"scaled": x * 2.0, "total": m.reduce_sum(x, 0, keepdims=True),
                    "row": m.reduce_sum(x, 1, keepdims=True)}

    mod = Mod()
    m.saved_model.save(mod, path, signatures={"serving_default": mod.serve})


def _signature_shapes(path):
    sm = tf_saved_model_pb2.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    sig = sm.meta_graphs[0].signature_def["serving_default"]
    return {k: [d.size for d in v.tensor_shape.dim] for k, v in sig.outputs.items()}


def test_saved_model_signature_outputs_are_tf_s(tmp_path):
    rtf = real_tf()
    _save(tf, str(tmp_path / "ours"))
    _save(rtf, str(tmp_path / "theirs"))
    ours = _signature_shapes(str(tmp_path / "ours"))
    assert ours == _signature_shapes(str(tmp_path / "theirs"))
    assert ours == {"scaled": [-1, 2], "total": [1, 2], "row": [-1, 1]}
    loaded = rtf.saved_model.load(str(tmp_path / "ours"))
    spec = loaded.signatures["serving_default"].structured_outputs
    assert spec["total"].shape.as_list() == [1, 2]
    assert spec["row"].shape.as_list() == [None, 1]


def _relaxed_program(m):
    runs = []

    def body(x, y):
        runs.append(1)
        return x * 2, m.reduce_sum(y, 0, keepdims=True)

    f = m.function(body, experimental_relax_shapes=True)
    for n in (2, 3, 5):
        f(m.ones([n]), m.ones([n + 1, 3]))
    c = f.get_concrete_function(m.ones([5]), m.ones([7, 3]))
    args, kwargs = c.structured_input_signature
    return [_dims(s) for s in args], kwargs, c.output_shapes, f.experimental_get_tracing_count()


def test_relaxed_shapes_show_the_generalised_signature():
    ours, theirs = _relaxed_program(tf), _relaxed_program(real_tf())
    assert ours[:2] == theirs[:2] == ([[None], [None, 3]], {})
    assert _shapes(ours[2]) == _real_shapes(theirs[2]) == [[None], [1, 3]]
    assert ours[3] == theirs[3] == 2
