"""``tf.TensorArray`` in SavedModels (TensorList ops on a variant handle), both ways
with real TF.

The same module is written for real TF and for torchflow: an array filled in
``for i in tf.range(n)`` (``x[i]`` by a tensor index) and stacked, rows written to an
array declared with an element shape (so an empty one stacks to ``[0, 3]``), a
dynamically sized array grown in a data-dependent ``while``, an unstacked input read
inside the loop (an outer array, as an RNN reads its steps), ``split`` / ``concat``
/ ``gather``, ``scatter`` into a fixed array (unset elements read as zeros), an int32
array with ``size()``, and two arrays carried by one loop. Saved by torchflow, it
serves TF's values in real TF and in torchflow on inputs the trace never saw; saved
by real TF, it serves them in torchflow. The expected values are real TF's, run
unsaved.
"""

from __future__ import annotations

import numpy as np
import pytest
from saved_model_helpers import served_both_ways

import torchflow as tf
from torchflow._src.testing import assert_all_close, real_tf

pytestmark = pytest.mark.compat


def _module(m):
    vec, mat = m.TensorSpec([None], m.float32), m.TensorSpec([None, 3], m.float32)
    i32 = m.TensorSpec([], m.int32)

    class M(m.Module):
        @m.function(input_signature=[vec])
        def doubled(self, x):
            ta = m.TensorArray(m.float32, size=m.shape(x)[0])
            for i in m.range(m.shape(x)[0]):
                ta = ta.write(i, x[i] * 2.0)
            return ta.stack()

        @m.function(input_signature=[mat])
        def rows(self, x):
            ta = m.TensorArray(m.float32, size=m.shape(x)[0], element_shape=[3])
            for i in m.range(m.shape(x)[0]):
                ta = ta.write(i, x[i] * m.cast(i + 1, m.float32))
            return ta.stack()

        @m.function(input_signature=[vec])
        def grown(self, x):
            ta = m.TensorArray(m.float32, size=0, dynamic_size=True)
            total = m.constant(0.0)
            k = m.constant(0)
            while total < 20.0:
                total += m.reduce_sum(x) + 1.0
                ta = ta.write(k, total)
                k += 1
            return ta.stack(), ta.size()

        @m.function(input_signature=[mat])
        def cumulative(self, x):
            steps = m.TensorArray(m.float32, size=m.shape(x)[0]).unstack(x)
            out = m.TensorArray(m.float32, size=m.shape(x)[0])
            state = m.zeros([3])
            for i in m.range(m.shape(x)[0]):
                state = m.tanh(state + steps.read(i))
                out = out.write(i, state)
            return out.stack()

        @m.function(input_signature=[vec])
        def pieces(self, x):
            ta = m.TensorArray(m.float32, size=3, infer_shape=False)
            ta = ta.split(x, [1, 2, m.shape(x)[0] - 3])
            return ta.concat(), ta.read(1), ta.size()

        @m.function(input_signature=[mat])
        def picked(self, x):
            ta = m.TensorArray(m.float32, size=m.shape(x)[0]).unstack(x)
            return ta.gather([m.shape(x)[0] - 1, 0])

        @m.function(input_signature=[m.TensorSpec([2, 3], m.float32)])
        def scattered(self, x):
            ta = m.TensorArray(m.float32, size=4, element_shape=[3])
            ta = ta.scatter([3, 1], x)
            return ta.stack()

        @m.function(input_signature=[i32])
        def squares(self, n):
            ta = m.TensorArray(m.int32, size=n)
            evens = m.TensorArray(m.int32, size=0, dynamic_size=True)
            for i in m.range(n):
                ta = ta.write(i, i * i)
                if i % 2 == 0:
                    evens = evens.write(i // 2, i)
            return ta.stack(), ta.size(), evens.stack()

    return M()


def _run(lib, mod):
    """Each function on inputs of several sizes (some the trace never saw, some
    empty): the results as NumPy values."""
    x = np.array([1.0, -2.0, 0.5, 3.0], np.float32)
    rows = np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0
    out = [mod.doubled(x), mod.doubled(x[:1]), mod.doubled(x[:0]),
           mod.rows(rows), mod.rows(rows[:0]),
           mod.grown(x), mod.grown(np.array([30.0], np.float32)),
           mod.cumulative(rows), mod.cumulative(rows[:1]),
           mod.pieces(x), mod.pieces(np.arange(7, dtype=np.float32)),
           mod.picked(rows), mod.picked(rows[:1]),
           mod.scattered(rows[:2]), mod.scattered(rows[2:]),
           mod.squares(lib.constant(5)), mod.squares(lib.constant(1))]
    return [np.asarray(t) for t in lib.nest.flatten(out)]


@pytest.mark.parametrize("saver", ["torchflow", "tf"])
def test_tensor_arrays_saved_serve_tf_values(saver, tmp_path):
    def check(mod):
        ops = [op.type for op in mod.doubled.get_concrete_function().graph.get_operations()]
        assert "TensorListReserve" in ops and "TensorListStack" in ops and "While" in ops

    want, served = served_both_ways(saver, tmp_path, _module, _run, check)
    for got in served:
        assert_all_close(got, want, rtol=1e-6, atol=0)


def test_array_written_in_place_in_a_function_keeps_tf_graph_semantics(tmp_path):
    """``ta.write(i, x)`` without ``ta = ...`` inside a ``tf.function``: TF's graph
    drops the write (in a graph ``write`` returns a new array and leaves the original
    unchanged), so the stack is all zeros; eager TF writes in place. torchflow gives
    real TF's values both ways, and a saved module serves the graph's value."""
    rtf = real_tf()

    def build(m):
        def f(n):
            ta = m.TensorArray(m.int32, size=n)
            for i in m.range(n):
                ta.write(i, i + 1)
            return ta.stack()

        mod = m.Module()
        mod.f = m.function(f, input_signature=[m.TensorSpec([], m.int32)])
        return mod, f

    rmod, rf = build(rtf)
    want_graph = rmod.f(rtf.constant(3)).numpy()
    want_eager = rf(rtf.constant(3)).numpy()
    np.testing.assert_array_equal(want_graph, [0, 0, 0])  # TF's own answer, not ours
    np.testing.assert_array_equal(want_eager, [1, 2, 3])
    mod, f = build(tf)
    np.testing.assert_array_equal(mod.f(tf.constant(3)).numpy(), want_graph)
    np.testing.assert_array_equal(f(tf.constant(3)).numpy(), want_eager)
    try:
        tf.saved_model.save(mod, str(tmp_path))
    except tf.errors.UnimplementedError as e:  # refusing is allowed; a wrong answer is not
        assert "TensorArray" in str(e)
        return
    for lib in (rtf, tf):
        got = lib.saved_model.load(str(tmp_path)).f(lib.constant(4))
        np.testing.assert_array_equal(np.asarray(got), [0, 0, 0, 0])


def test_tensor_index_lowers_to_a_strided_slice():
    """``x[i]`` and ``x[i:j]`` by scalar tensors: one ``StridedSlice`` whose bounds are
    packed from the tensors (TF's ``_slice_helper``), computing NumPy's values."""
    f = tf.function(lambda x, i, j: (x[i], x[i:j], x[1:j, i]),
                    input_signature=[tf.TensorSpec([None, 3], tf.float32),
                                     tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.int32)])
    ops = [op.type for op in f.get_concrete_function().graph.get_operations()]
    assert ops.count("StridedSlice") == 3 and "Unlowered" not in ops
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    got = f(x, tf.constant(2), tf.constant(4))
    want = (x[2], x[2:4], x[1:4, 2])
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w)
