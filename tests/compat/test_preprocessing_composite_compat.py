"""Keras Hashing / StringLookup / IntegerLookup / CategoryEncoding with ragged and
sparse inputs (issues 15, 16): eagerly against tf.keras, saved (their lowerings)
and served by real TF and torchflow, and in fit.

TF 2.4 and the installed tf.keras 2.21 differ in two ways, pinned to 2.4 here:
the lookups' default ``mask_token``/``mask_value`` (2.4: ``""``/0 at index 0; 2.21:
none), so the compared layers pass ``mask_token=None``; and CategoryEncoding's
arguments (2.4: ``max_tokens``, ``output_mode="binary"``; 2.21: ``num_tokens``,
``"multi_hot"``), mapped below.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

WORDS = [["a", "b"], [], ["c", "a", "zz"]]
IDS = [[1, 2], [], [3, 1, 7]]


def _pre(lib):
    return lib.keras.layers.experimental.preprocessing


def _layers(lib):
    p, ours = _pre(lib), lib is tf
    enc = (lambda mode: p.CategoryEncoding(max_tokens=8, output_mode=mode)) if ours else (
        lambda mode: p.CategoryEncoding(num_tokens=8, output_mode={"binary": "multi_hot"}.get(
            mode, mode)))
    return {
        "hashing": (lambda: p.Hashing(5), "s"),
        "hashing_salt": (lambda: p.Hashing(5, salt=[7, 9]), "s"),
        "hashing_mask": (lambda: p.Hashing(5, mask_value="a"), "s"),
        "hashing_int": (lambda: p.Hashing(4), "i"),
        "string_lookup": (lambda: p.StringLookup(vocabulary=["a", "b", "c"], mask_token=None),
                          "s"),
        "string_lookup_2oov": (lambda: p.StringLookup(vocabulary=["a", "b"], mask_token=None,
                                                      num_oov_indices=2), "s"),
        "integer_lookup": (lambda: p.IntegerLookup(vocabulary=[1, 2, 3], mask_token=None)
                           if not ours else p.IntegerLookup(vocabulary=[1, 2, 3],
                                                            mask_value=None), "i"),
        "string_invert": (lambda: p.StringLookup(vocabulary=["a", "b", "c"], mask_token=None,
                                                 invert=True), "i"),
        "count": (lambda: enc("count"), "i"),
        "binary": (lambda: enc("binary"), "i"),
    }


def _ragged(lib, kind):
    return lib.ragged.constant(WORDS) if kind == "s" else lib.ragged.constant(
        IDS, dtype=lib.int64)


def _sparse(lib, kind):
    values = ["a", "b", "zz"] if kind == "s" else lib.constant([1, 2, 7], lib.int64)
    return lib.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], values, [3, 2])


def _desc(y):
    if hasattr(y, "to_list"):
        return "ragged", y.to_list()
    if hasattr(y, "dense_shape"):
        return "sparse", y.indices.numpy().tolist(), y.values.numpy().tolist(), \
            y.dense_shape.numpy().tolist()
    return "dense", y.dtype.name, y.numpy().tolist()


@pytest.mark.parametrize("make", [_ragged, _sparse], ids=["ragged", "sparse"])
@pytest.mark.parametrize("name", sorted(_layers(tf)))
def test_eager_as_tf_keras(name, make):
    rtf = real_tf()
    layer, kind = _layers(tf)[name]
    rlayer, _ = _layers(rtf)[name]
    assert _desc(layer()(make(tf, kind))) == _desc(rlayer()(make(rtf, kind)))


def test_lookup_defaults_are_tf24s_on_ragged():
    """TF 2.4's StringLookup: mask "" at 0, OOV at 1, the vocabulary from 2; ragged
    in, ragged out; invert maps back (OOV to "[UNK]")."""
    p = _pre(tf)
    rt = tf.ragged.constant(WORDS)
    ids = p.StringLookup(vocabulary=["a", "b", "c"])(rt)
    assert ids.to_list() == [[2, 3], [], [4, 2, 1]]
    back = p.StringLookup(vocabulary=["a", "b", "c"], invert=True)(ids)
    assert back.to_list() == [[b"a", b"b"], [], [b"c", b"a", b"[UNK]"]]
    ints = p.IntegerLookup(vocabulary=[1, 2, 3])(tf.ragged.constant(IDS, dtype=tf.int64))
    assert ints.to_list() == [[2, 3], [], [4, 2, 1]]


@pytest.mark.parametrize("name", sorted(_layers(tf)))
def test_saved_layer_serves_in_tf_and_torchflow(name, tmp_path):
    """Saved with a fixed-shape signature (no shape check could catch a constant of the
    trace's values): real TF and torchflow serve the layer's values on new inputs."""
    rtf = real_tf()
    make, kind = _layers(tf)[name]
    layer = make()
    m = tf.Module()
    m.layer = layer
    dt = tf.string if kind == "s" else tf.int64
    m.f = tf.function(lambda x: m.layer(x), input_signature=[tf.TensorSpec([3, 2], dt)])
    rows = [["c", "zz"], ["a", "a"], ["b", ""]] if kind == "s" else [[3, 0], [1, 1], [2, 7]]
    want = _desc(layer(tf.constant(rows, dtype=dt)))
    rwant = _desc(_layers(rtf)[name][0]()(rtf.constant(rows, dtype=rtf.as_dtype(dt.name))))
    assert want == rwant
    tf.saved_model.save(m, str(tmp_path))
    got = rtf.saved_model.load(str(tmp_path)).f(rtf.constant(rows, dtype=rtf.as_dtype(dt.name)))
    assert _desc(got) == want
    assert _desc(tf.saved_model.load(str(tmp_path)).f(tf.constant(rows, dtype=dt))) == want


def _text_model(lib):
    p, L = _pre(lib), lib.keras.layers
    inp = L.Input(shape=[None], dtype=lib.string, ragged=True)
    ids = p.StringLookup(vocabulary=["a", "b", "c", "d"], mask_token=None)(inp)
    h = L.Embedding(6, 3)(ids)
    h = L.Lambda(lambda t: lib.reduce_mean(t, axis=1))(h)
    return lib.keras.Model(inp, L.Dense(1)(h))


def test_ragged_lookup_model_fits_and_saves_as_tf_keras(tmp_path):
    rtf = real_tf()
    ours, ref = _text_model(tf), _text_model(rtf)
    ours.set_weights(ref.get_weights())
    rows = [["a", "b"], ["c"], ["d", "zz", "a"], ["b", "b"]]
    y = np.array([[1.0], [0.0], [1.0], [0.0]], np.float32)
    for m in (ours, ref):
        m.compile(optimizer="sgd", loss="mse")
    h = ours.fit(tf.ragged.constant(rows), y, epochs=3, batch_size=2, verbose=0, shuffle=False)
    rh = ref.fit(rtf.ragged.constant(rows), y, epochs=3, batch_size=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(h.history["loss"], rh.history["loss"], rtol=1e-5)
    want = ref(rtf.ragged.constant(rows)).numpy()
    np.testing.assert_allclose(ours(tf.ragged.constant(rows)).numpy(), want, rtol=1e-5,
                               atol=1e-6)
    ours.save(str(tmp_path))
    served = rtf.saved_model.load(str(tmp_path))(rtf.ragged.constant(rows)).numpy()
    np.testing.assert_allclose(served, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,spec", [
    ("count", "ragged"), ("binary", "sparse"), ("hashing", "sparse"), ("string_lookup", "ragged"),
    ("integer_lookup", "sparse")])
def test_saved_layer_of_composite_input_serves_in_tf(name, spec, tmp_path):
    rtf = real_tf()
    make, kind = _layers(tf)[name]
    layer = make()
    dt = tf.string if kind == "s" else tf.int64
    sig = tf.RaggedTensorSpec([None, None], dt) if spec == "ragged" else \
        tf.SparseTensorSpec([None, 2], dt)
    m = tf.Module()
    m.layer = layer
    m.f = tf.function(lambda x: m.layer(x), input_signature=[sig])
    build = _ragged if spec == "ragged" else _sparse
    want = _desc(layer(build(tf, kind)))
    tf.saved_model.save(m, str(tmp_path))
    assert _desc(rtf.saved_model.load(str(tmp_path)).f(build(rtf, kind))) == want
    assert _desc(tf.saved_model.load(str(tmp_path)).f(build(tf, kind))) == want


def test_discretization_and_crossing_in_saved_graphs(tmp_path):
    """Discretization is TF's Bucketize (ragged and sparse values too); CategoryCrossing
    has no lowering yet and is refused at save, never a constant of the trace."""
    rtf = real_tf()
    p = _pre(tf)
    disc = p.Discretization(bins=[0.0, 1.0, 2.5])
    x = [[-1.0, 0.5], [1.0, 3.0], [2.5, 0.0]]
    want = rtf.keras.layers.Discretization(bin_boundaries=[0.0, 1.0, 2.5])(rtf.constant(x))
    assert disc(tf.constant(x)).numpy().tolist() == want.numpy().tolist()
    rt = disc(tf.ragged.constant([[-1.0, 0.5], [], [3.0]]))
    assert rt.to_list() == [[0, 1], [], [3]]
    m = tf.Module()
    m.layer = disc
    m.f = tf.function(lambda t: m.layer(t), input_signature=[tf.TensorSpec([3, 2], tf.float32)])
    tf.saved_model.save(m, str(tmp_path / "disc"))
    got = rtf.saved_model.load(str(tmp_path / "disc")).f(rtf.constant(x))
    assert got.numpy().tolist() == want.numpy().tolist()
    cross = tf.Module()
    cross.layer = p.CategoryCrossing()
    cross.f = tf.function(lambda a, b: cross.layer([a, b]),
                          input_signature=[tf.TensorSpec([2, 1], tf.string)] * 2)
    with pytest.raises(tf.errors.UnimplementedError):
        tf.saved_model.save(cross, str(tmp_path / "cross"))


@pytest.mark.parametrize("kwargs", [
    {}, {"output_sequence_length": 4}, {"output_mode": "count"}, {"output_mode": "binary"},
    {"output_mode": "tf-idf"}, {"standardize": None, "output_mode": "count", "max_tokens": 9},
    {"ngrams": 2}, {"split": None}], ids=lambda k: "-".join(f"{a}={b}" for a, b in k.items()))
def test_text_vectorization_saved_serves_its_values_or_is_refused(kwargs, tmp_path):
    """TextVectorization in a fixed-shape signature: the default pipeline is written as
    TF ops (n-grams too) and served by real TF to the eager values; the rest (custom or
    no split) is refused, never a constant of the trace."""
    rtf = real_tf()
    tv = _pre(tf).TextVectorization(**kwargs)
    if kwargs.get("output_mode") == "tf-idf":
        tv.set_vocabulary(["a", "b", "c"], df_data=[0.5, 1.0, 2.0], oov_df_value=0.25)
    else:
        tv.set_vocabulary(["a", "b", "c"] if "ngrams" not in kwargs else ["a", "a b", "c"])
    x = ["a b zz", "c C a, b b!"] if kwargs.get("split", 1) is not None else ["a", "c"]
    m = tf.Module()
    m.layer = tv
    m.f = tf.function(lambda t: m.layer(t), input_signature=[tf.TensorSpec([2], tf.string)])
    want = tv(tf.constant(x)).numpy()
    try:
        tf.saved_model.save(m, str(tmp_path))
    except tf.errors.UnimplementedError:
        assert "split" in kwargs
        return
    assert "split" not in kwargs
    np.testing.assert_allclose(rtf.saved_model.load(str(tmp_path)).f(rtf.constant(x)).numpy(),
                               want)
    np.testing.assert_allclose(tf.saved_model.load(str(tmp_path)).f(tf.constant(x)).numpy(), want)
