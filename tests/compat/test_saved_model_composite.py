"""Ragged and sparse arguments and results of tf.functions in graphs and SavedModels,
both ways with real TF (issues 15, 16, 13).

Each module is built with the same code under real TF 2.21 and torchflow. torchflow's
SavedModel is loaded by real TF and called with TF's ragged/sparse values; real TF's
SavedModel is loaded by torchflow and called with torchflow's; the outputs are
compared with the function run eagerly under the other library. The signature protos
torchflow writes are compared with TF's own (``TypeSpecProto`` of the spec class,
its state, the number of flat components), and a function's ``as_graph_def()`` is
imported into a real ``tf.Graph`` and run there.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core.proto import tf_saved_model_pb2
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

ROWS = [[1.0, 4.0, 3.0], [], [2.0, -1.0]]


def _values(x):
    """A value of either library as nested Python lists (ragged) or a NumPy array."""
    if hasattr(x, "to_list"):
        return x.to_list()
    if hasattr(x, "dense_shape"):  # a SparseTensor: its dense value
        return ("sparse", np.asarray(x.indices).tolist(), np.asarray(x.values).tolist(),
                np.asarray(x.dense_shape).tolist())
    return np.asarray(x).tolist()


def _same(a, b):
    va, vb = nest_values(a), nest_values(b)
    np.testing.assert_equal(va, vb)


def nest_values(x):
    if isinstance(x, (tuple, list)):
        return [_values(e) for e in x]
    if isinstance(x, dict):
        return {k: _values(v) for k, v in sorted(x.items())}
    return _values(x)


# --- modules: the same code under both libraries -----------------------------------
def _grow(lib):
    """The guide's CustomModule: x * v on a RaggedTensorSpec concrete function."""

    class CustomModule(lib.Module):
        def __init__(self):
            super().__init__()
            self.v = lib.Variable(100.0)

        @lib.function
        def grow(self, x):
            return x * self.v

    m = CustomModule()
    m.grow.get_concrete_function(lib.RaggedTensorSpec(shape=[None, None], dtype=lib.float32))
    return m, "grow", (lib.ragged.constant(ROWS),)


def _reductions(lib):
    """Ragged in, dense out: TF writes these as segment ops over the row ids."""

    class M(lib.Module):
        @lib.function(input_signature=[lib.RaggedTensorSpec([None, None], lib.float32)])
        def f(self, rt):
            return (lib.reduce_max(rt, axis=-1), lib.reduce_min(rt, axis=1),
                    lib.reduce_sum(rt, axis=1), lib.reduce_mean(rt, axis=1),
                    rt.row_lengths(), rt.to_tensor())

    return M(), "f", (lib.ragged.constant(ROWS),)


def _mixed(lib):
    """A dense argument before a ragged one, and a ragged result."""

    class M(lib.Module):
        @lib.function(input_signature=[lib.TensorSpec([], lib.float32),
                                       lib.RaggedTensorSpec([None, None], lib.float32)])
        def f(self, scale, rt):
            return rt * scale + 1.0, lib.reduce_sum(rt, axis=1) * scale

    return M(), "f", (lib.constant(2.0), lib.ragged.constant(ROWS))


def _rank2(lib):
    """ragged_rank 2: three components in, three out."""

    class M(lib.Module):
        @lib.function(input_signature=[
            lib.RaggedTensorSpec([None, None, None], lib.int32, ragged_rank=2)])
        def f(self, rt):
            return rt * 2 + 1, lib.reduce_sum(rt, axis=2)

    rt = lib.ragged.constant([[[1, 2, 3], [4]], [], [[5], [], [6, 7]]], ragged_rank=2)
    return M(), "f", (rt,)


def _sparse(lib):
    """A SparseTensorSpec argument (indices, values, dense_shape)."""

    class M(lib.Module):
        @lib.function(input_signature=[lib.SparseTensorSpec([None, 3], lib.float32)])
        def f(self, st):
            return lib.sparse.to_dense(st) * 2.0

    st = lib.sparse.SparseTensor(indices=[[0, 1], [2, 0], [2, 2]], values=[1.0, 2.0, 3.0],
                                 dense_shape=[4, 3])
    return M(), "f", (st,)


def _to_sparse(lib):
    """Ragged in, sparse out (RaggedTensorToSparse)."""

    class M(lib.Module):
        @lib.function(input_signature=[lib.RaggedTensorSpec([None, None], lib.float32)])
        def f(self, rt):
            return rt.to_sparse()

    return M(), "f", (lib.ragged.constant(ROWS),)


def _sparse_ops(lib):
    """Sparse in: sparse_dense_matmul and reduce_sum/reduce_max over an axis."""

    class M(lib.Module):
        @lib.function(input_signature=[lib.SparseTensorSpec([None, 3], lib.float32),
                                       lib.TensorSpec([3, 2], lib.float32)])
        def f(self, st, w):
            return (lib.sparse.sparse_dense_matmul(st, w), lib.sparse.reduce_sum(st, axis=1),
                    lib.sparse.reduce_max(st, axis=0))

    st = lib.sparse.SparseTensor(indices=[[0, 1], [2, 0], [2, 2]], values=[1.0, 2.0, 3.0],
                                 dense_shape=[4, 3])
    w = lib.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    return M(), "f", (st, w)


CASES = [_grow, _reductions, _mixed, _rank2, _sparse, _to_sparse, _sparse_ops]


@pytest.mark.parametrize("build", CASES, ids=lambda f: f.__name__.strip("_"))
def test_torchflow_saved_model_runs_in_tf(build, tmp_path):
    rtf = real_tf()
    ours, name, args = build(tf)
    want = getattr(ours, name)(*args)
    tf.saved_model.save(ours, str(tmp_path))
    loaded = rtf.saved_model.load(str(tmp_path))
    _, _, rargs = build(rtf)
    got = getattr(loaded, name)(*rargs)
    _same(got, want)
    # The same directory loads back in torchflow.
    back = tf.saved_model.load(str(tmp_path))
    _same(getattr(back, name)(*args), want)


@pytest.mark.parametrize("build", CASES, ids=lambda f: f.__name__.strip("_"))
def test_tf_saved_model_runs_in_torchflow(build, tmp_path):
    rtf = real_tf()
    ref, name, rargs = build(rtf)
    want = getattr(ref, name)(*rargs)
    rtf.saved_model.save(ref, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    _, _, args = build(tf)
    _same(getattr(loaded, name)(*args), want)


def _concrete_functions(path: str) -> dict:
    sm = tf_saved_model_pb2.SavedModel()
    with open(f"{path}/saved_model.pb", "rb") as f:
        sm.ParseFromString(f.read())
    return dict(sm.meta_graphs[0].object_graph_def.concrete_functions)


@pytest.mark.parametrize("build", [_grow, _rank2, _sparse], ids=["grow", "rank2", "sparse"])
def test_signature_protos_are_tfs(build, tmp_path):
    """canonicalized_input_signature / output_signature as TF writes them."""
    rtf = real_tf()
    tf.saved_model.save(build(tf)[0], str(tmp_path / "ours"))
    rtf.saved_model.save(build(rtf)[0], str(tmp_path / "ref"))
    def own(path):  # the function itself (not the saver's, not a signature wrapper)
        return [c for k, c in sorted(_concrete_functions(path).items())
                if "traced" not in k and "signature_wrapper" not in k]

    ours, ref = own(str(tmp_path / "ours")), own(str(tmp_path / "ref"))
    assert len(ours) == len(ref) == 1
    assert ours[0].canonicalized_input_signature == ref[0].canonicalized_input_signature
    if build is not _sparse:  # TF's SparseToDense result is [None, None] "unknown"; ours
        assert ours[0].output_signature == ref[0].output_signature  # keeps the known 3


@pytest.mark.parametrize("build,keys", [(_reductions, ["rt", "rt_1"]),
                                        (_sparse, ["st", "st_1", "st_2"]),
                                        (_mixed, None), (_rank2, None)],
                         ids=["reductions", "sparse", "mixed", "rank2"])
def test_default_signature_of_composite_inputs(build, keys, tmp_path):
    """The one input_signature function becomes serving_default with its components as
    inputs (TF's names); one with a ragged result does not (TF 2.4's _valid_signature
    refuses non-Tensor outputs; TF 2.21 writes them as variants, so 2.4 is pinned)."""
    rtf = real_tf()
    ours, name, args = build(tf)
    tf.saved_model.save(ours, str(tmp_path))
    loaded = rtf.saved_model.load(str(tmp_path))
    if keys is None:
        assert list(loaded.signatures) == []
        return
    sig = loaded.signatures["serving_default"]
    assert sorted(sig.structured_input_signature[1]) == keys
    _, _, rargs = build(rtf)
    comps = [c for a in rargs for c in rtf.nest.flatten(a, expand_composites=True)]
    out = sig(**dict(zip(keys, comps)))
    want = getattr(ours, name)(*args)
    want = list(want) if isinstance(want, tuple) else [want]
    for k, w in enumerate(want):
        np.testing.assert_allclose(out[f"output_{k}"].numpy(), np.asarray(w))


def test_ragged_concrete_function_graph_is_tf_ops():
    """A RaggedTensorSpec argument is its flat component placeholders (TF's names)."""
    rtf = real_tf()

    @tf.function
    def f(rt):
        return tf.reduce_sum(rt, axis=1) * 2.0, rt + 1.0

    @rtf.function
    def g(rt):
        return rtf.reduce_sum(rt, axis=1) * 2.0, rt + 1.0

    cf = f.get_concrete_function(tf.RaggedTensorSpec([None, None], tf.float32))
    rcf = g.get_concrete_function(rtf.RaggedTensorSpec([None, None], rtf.float32))
    assert repr(cf.structured_input_signature) == \
        "((RaggedTensorSpec(TensorShape([None, None]), tf.float32, 1, tf.int64),), {})"
    placeholders = [(o.name, o.get_attr("dtype").name) for o in cf.graph.get_operations()
                    if o.type == "Placeholder"]
    ref = [(o.name, o.get_attr("dtype").name) for o in rcf.graph.get_operations()
           if o.type == "Placeholder"]
    assert placeholders == ref == [("rt", "float32"), ("rt_1", "int64")]
    assert len(cf.inputs) == 2 and len(cf.outputs) == 3  # sum, and flat_values + splits
    # The GraphDef runs in a real tf.Graph to TF's values.
    gd = cf.graph.as_graph_def()
    x = rtf.ragged.constant(ROWS)
    g2 = rtf.Graph()
    with g2.as_default():
        feeds = {"rt:0": rtf.constant(x.flat_values.numpy()),
                 "rt_1:0": rtf.constant(x.row_splits.numpy())}
        outs = rtf.graph_util.import_graph_def(
            rtf.compat.v1.GraphDef.FromString(gd.SerializeToString()), input_map=feeds,
            return_elements=list(cf.outputs), name="")
    with rtf.compat.v1.Session(graph=g2) as sess:
        got = sess.run(outs)
    want = g(x)
    np.testing.assert_allclose(got[0], want[0].numpy())
    np.testing.assert_allclose(got[1], want[1].flat_values.numpy())
    np.testing.assert_array_equal(got[2], want[1].row_splits.numpy())


def _keras_ragged(lib):
    """Input(ragged=True) -> Embedding -> mean over the ragged axis -> Dense."""
    L = lib.keras.layers
    inp = L.Input(shape=[None], dtype=lib.int64, ragged=True)
    h = L.Embedding(50, 4)(inp)
    h = L.Lambda(lambda t: lib.reduce_mean(t, axis=1))(h)
    return lib.keras.Model(inp, L.Dense(2)(h))


def test_keras_model_with_ragged_input_both_ways(tmp_path):
    rtf = real_tf()
    ours, ref = _keras_ragged(tf), _keras_ragged(rtf)
    ours.set_weights(ref.get_weights())
    rows = [[3, 1, 4], [1], [5, 9, 2, 6]]
    x, rx = tf.ragged.constant(rows, dtype=tf.int64), rtf.ragged.constant(rows, dtype=rtf.int64)
    want = ref(rx).numpy()
    np.testing.assert_allclose(ours(x).numpy(), want, rtol=1e-6, atol=1e-7)
    tf.saved_model.save(ours, str(tmp_path / "ours"))
    loaded = rtf.saved_model.load(str(tmp_path / "ours"))
    np.testing.assert_allclose(loaded(rx).numpy(), want, rtol=1e-6, atol=1e-7)
    # serving_default takes the components, named as TF names them.
    sig = loaded.signatures["serving_default"]
    out = sig(args_0=rx.flat_values, args_0_1=rx.row_splits)
    np.testing.assert_allclose(list(out.values())[0].numpy(), want, rtol=1e-6, atol=1e-7)
    rtf.saved_model.save(ref, str(tmp_path / "ref"))
    back = tf.saved_model.load(str(tmp_path / "ref"))
    np.testing.assert_allclose(back(x).numpy(), want, rtol=1e-6, atol=1e-7)


def _guide_model(lib):
    """guide-ragged_tensor's Keras model (cell 25): a ragged input into an LSTM."""
    L = lib.keras.layers
    return lib.keras.Sequential([
        L.Input(shape=[None], dtype=lib.int64, ragged=True),
        L.Embedding(100, 16),
        L.LSTM(32, use_bias=False),
        L.Dense(32),
        L.Activation(lib.nn.relu),
        L.Dense(1)])


def test_guide_ragged_lstm_model_both_ways(tmp_path):
    """Cell 40: tf.saved_model.save of the Keras model, loaded and called on ragged ids."""
    rtf = real_tf()
    ours, ref = _guide_model(tf), _guide_model(rtf)
    ours.set_weights(ref.get_weights())
    rows = [[3, 1, 4, 1, 5, 9, 2, 6], [5, 3], [5], [8, 9, 7, 9]]
    x, rx = tf.ragged.constant(rows, dtype=tf.int64), rtf.ragged.constant(rows, dtype=rtf.int64)
    want = ref(rx).numpy()
    np.testing.assert_allclose(ours(x).numpy(), want, rtol=1e-5, atol=1e-6)
    tf.saved_model.save(ours, str(tmp_path / "ours"))
    np.testing.assert_allclose(rtf.saved_model.load(str(tmp_path / "ours"))(rx).numpy(), want,
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tf.saved_model.load(str(tmp_path / "ours"))(x).numpy(), want,
                               rtol=1e-5, atol=1e-6)
    rtf.saved_model.save(ref, str(tmp_path / "ref"))
    np.testing.assert_allclose(tf.saved_model.load(str(tmp_path / "ref"))(x).numpy(), want,
                               rtol=1e-5, atol=1e-6)


def _keras_hashing(lib):
    """Strings: Input(ragged=True) -> Hashing -> Embedding -> mean over rows -> Dense."""
    L = lib.keras.layers
    hashing = getattr(L, "Hashing", None) or L.experimental.preprocessing.Hashing
    inp = L.Input(shape=[None], dtype=lib.string, ragged=True)
    h = L.Embedding(20, 3)(hashing(20)(inp))
    h = L.Lambda(lambda t: lib.reduce_mean(t, axis=1))(h)
    return lib.keras.Model(inp, L.Dense(1)(h))


def test_keras_ragged_hashing_model_both_ways(tmp_path):
    rtf = real_tf()
    ours, ref = _keras_hashing(tf), _keras_hashing(rtf)
    ours.set_weights(ref.get_weights())
    rows = [["what", "makes", "you"], ["a", "newt"], ["well"]]
    x, rx = tf.ragged.constant(rows), rtf.ragged.constant(rows)
    want = ref(rx).numpy()
    np.testing.assert_allclose(ours(x).numpy(), want, rtol=1e-6, atol=1e-7)
    tf.saved_model.save(ours, str(tmp_path / "ours"))
    np.testing.assert_allclose(rtf.saved_model.load(str(tmp_path / "ours"))(rx).numpy(), want,
                               rtol=1e-6, atol=1e-7)
    rtf.saved_model.save(ref, str(tmp_path / "ref"))
    np.testing.assert_allclose(tf.saved_model.load(str(tmp_path / "ref"))(x).numpy(), want,
                               rtol=1e-6, atol=1e-7)


def _decomposed(lib):
    """The guide's backwards-compatible form (cell 39): components in, ragged built inside."""

    class M(lib.Module):
        @lib.function(input_signature=[lib.TensorSpec([None], lib.int32),
                                       lib.TensorSpec([None], lib.int64)])
        def f(self, values, splits):
            x = lib.RaggedTensor.from_row_splits(values, splits)
            return lib.reduce_sum(x + 1, axis=1)

    rt = lib.ragged.constant([[1, 2], [3], [4, 5, 6]])
    return M(), "f", (rt.values, rt.row_splits)


def test_tf_graph_building_a_ragged_inside_runs_in_torchflow(tmp_path):
    """TF's graph of from_row_splits (its Assert/If validation ops) runs in torchflow.

    (torchflow cannot write this function's graph yet: the dry trace's stand-in
    values of the two dense arguments are not a valid row partition.)"""
    test_tf_saved_model_runs_in_torchflow(_decomposed, tmp_path)
