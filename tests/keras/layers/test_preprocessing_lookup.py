"""StringLookup, IntegerLookup, CategoryEncoding, Hashing and Discretization
against real tf.keras on the same data and vocabularies (TF 2.21 names differ from
2.4's: ``mask_token=''`` / ``mask_token=0`` give 2.4's default layout there)."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

P = tf.keras.layers.experimental.preprocessing
WORDS = np.array([["a", "b", "c"], ["d", "b", "a"], ["zz", "a", "q"], ["", "c", "é"]])
VOCAB = ["a", "b", "c", "d", "é"]
INTS = np.array([[12, 1138, 42], [42, 1000, 36], [0, 7, 12]])
IVOCAB = [12, 36, 1138, 42]


def _ref():
    return real_tf().keras.layers


@pytest.mark.parametrize("kwargs", [{}, {"num_oov_indices": 3}, {"num_oov_indices": 2},
                                    {"mask_token": None}])
def test_string_lookup_matches_tf(kwargs):
    ref_kwargs = {"mask_token": ""}
    ref_kwargs.update(kwargs)
    ours = P.StringLookup(vocabulary=VOCAB, **kwargs)
    ref = _ref().StringLookup(vocabulary=VOCAB, **ref_kwargs)
    data = WORDS if kwargs.get("mask_token", "") is not None else WORDS[:3]
    got = ours(data)
    assert got.dtype == tf.int64
    np.testing.assert_array_equal(got.numpy(), ref(data).numpy())
    assert ours.get_vocabulary() == [str(v) for v in ref.get_vocabulary()]
    assert ours.vocab_size() == ref.vocabulary_size()


def test_string_lookup_layout_and_invert():
    layer = P.StringLookup(vocabulary=VOCAB)
    assert layer.get_vocabulary()[:3] == ["", "[UNK]", "a"]
    np.testing.assert_array_equal(layer(np.array(["", "zz", "a", "é"])).numpy(), [0, 1, 2, 6])
    inv = P.StringLookup(vocabulary=VOCAB, invert=True)
    ref = _ref().StringLookup(vocabulary=VOCAB, mask_token="", invert=True)
    idx = np.array([[0, 1, 2, 5, 9]])
    np.testing.assert_array_equal(inv(idx).numpy(), ref(idx).numpy())


def test_string_lookup_adapt_orders_by_frequency_like_tf():
    data = np.array(["x", "y", "y", "z", "z", "z", "w", "w", "a", "a", "b", "b", ""])
    for kwargs in ({}, {"max_tokens": 4}):
        ours, ref = P.StringLookup(**kwargs), _ref().StringLookup(mask_token="", **kwargs)
        ours.adapt(data)
        ref.adapt(data)
        assert ours.get_vocabulary() == [str(v) for v in ref.get_vocabulary()]
    ds = tf.data.Dataset.from_tensor_slices(data).batch(4)
    from_ds = P.StringLookup()
    from_ds.adapt(ds)
    assert from_ds.get_vocabulary()[2:4] == ["z", "y"]


def test_string_lookup_vocabulary_file_and_errors(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("a\nb\nc\n")
    layer = P.StringLookup(vocabulary=str(path))
    np.testing.assert_array_equal(layer(np.array(["c", "x"])).numpy(), [4, 1])
    with pytest.raises(ValueError):
        P.StringLookup(vocabulary=["a", "a"])
    with pytest.raises(ValueError):
        P.StringLookup(vocabulary=["a", "", "b"])
    with pytest.raises(ValueError):
        P.StringLookup(max_tokens=3, vocabulary=["a", "b"])
    with pytest.raises(ValueError):
        _ref().StringLookup(max_tokens=3, mask_token="", vocabulary=["a", "b"])


def test_string_lookup_in_dataset_map_and_functional_model():
    layer = P.StringLookup(vocabulary=VOCAB)
    ds = tf.data.Dataset.from_tensor_slices(WORDS).map(layer)
    got = np.stack([e.numpy() for e in ds])
    np.testing.assert_array_equal(got, _ref().StringLookup(vocabulary=VOCAB,
                                                           mask_token="")(WORDS).numpy())
    inp = tf.keras.Input(shape=(1,), dtype=tf.string)
    out = P.StringLookup(vocabulary=VOCAB)(inp)
    assert out.dtype == tf.int64 and out.shape.as_list() == [None, 1]
    model = tf.keras.Model(inp, out)
    np.testing.assert_array_equal(model(tf.constant([["a"], ["d"], ["u"]])).numpy().ravel(),
                                  [2, 5, 1])
    clone = tf.keras.Model.from_config(model.get_config())
    np.testing.assert_array_equal(clone(tf.constant([["d"]])).numpy(), [[5]])


@pytest.mark.parametrize("kwargs", [{}, {"num_oov_indices": 4}, {"mask_value": None}])
def test_integer_lookup_matches_tf(kwargs):
    ref_kwargs = {"mask_token": None if "mask_value" in kwargs else 0,
                  "num_oov_indices": kwargs.get("num_oov_indices", 1)}
    ours = P.IntegerLookup(vocabulary=IVOCAB, **kwargs)
    ref = _ref().IntegerLookup(vocabulary=IVOCAB, **ref_kwargs)
    data = np.concatenate([INTS.ravel(), np.arange(5, 15), [10 ** 7]])
    if "mask_value" in kwargs:
        data = data[data != 0]
    np.testing.assert_array_equal(ours(data).numpy(), ref(data).numpy())
    assert ours.get_vocabulary() == [int(v) for v in ref.get_vocabulary()]


def test_integer_lookup_adapt_invert_and_config():
    layer = P.IntegerLookup()
    layer.adapt(np.array([5, 5, 5, 3, 3, 9, 0, -1]))
    assert layer.get_vocabulary() == [0, -1, 5, 3, 9]
    inv = P.IntegerLookup(vocabulary=[5, 3, 9], invert=True)
    np.testing.assert_array_equal(inv(np.array([0, 1, 2, 4, 7])).numpy(), [0, -1, 5, 9, -1])
    cfg = layer.get_config()
    assert cfg["max_values"] is None and cfg["mask_value"] == 0 and cfg["oov_value"] == -1
    clone = P.IntegerLookup.from_config(cfg)
    np.testing.assert_array_equal(clone(np.array([9, 3, 77])).numpy(), [4, 3, 1])


@pytest.mark.parametrize("mode,ref_mode", [("binary", "multi_hot"), ("count", "count")])
def test_category_encoding_matches_tf(mode, ref_mode):
    data = np.array([[1, 2, 3, 1], [0, 3, 1, 0]])
    got = P.CategoryEncoding(5, mode)(data)
    assert got.dtype == tf.float32
    np.testing.assert_array_equal(got.numpy(), _ref().CategoryEncoding(5, ref_mode)(data).numpy())
    np.testing.assert_array_equal(P.CategoryEncoding(4, mode)(np.array([3, 1])).numpy(),
                                  _ref().CategoryEncoding(4, ref_mode)(np.array([[3], [1]])))
    with pytest.raises(tf.errors.InvalidArgumentError):
        P.CategoryEncoding(3, mode)(data)


def test_category_encoding_adapt_and_tfidf():
    data = np.array([[1, 2, 3, 1], [0, 3, 1, 0]])
    layer = P.CategoryEncoding(output_mode="tf-idf")
    layer.adapt(data)
    assert layer.max_tokens == 4
    df = np.array([1, 2, 1, 2])
    counts = np.array([[0, 2, 1, 1], [2, 1, 0, 1]])
    np.testing.assert_allclose(layer(data).numpy(), counts * np.log(1 + 2 / (1 + df)),
                               rtol=1e-6)
    assert P.CategoryEncoding.from_config(layer.get_config()).output_mode == "tf-idf"


@pytest.mark.parametrize("kwargs", [{"num_bins": 3}, {"num_bins": 7, "mask_value": ""},
                                    {"num_bins": 5, "salt": 133},
                                    {"num_bins": 5, "salt": [1, 2]}])
def test_hashing_strings_match_tf(kwargs):
    data = np.array([["A"], ["B"], ["C"], [""], ["a much longer string, over 64 bytes so farmhash"
                                                 " runs its long-input path"]])
    got = P.Hashing(**kwargs)(data)
    assert got.dtype == tf.int64
    np.testing.assert_array_equal(got.numpy(), _ref().Hashing(**kwargs)(data).numpy())


def test_hashing_integers_match_tf_and_config():
    data = np.array([[1, 2, 3], [0, 99, -4]])
    for kwargs in ({"num_bins": 5}, {"num_bins": 5, "mask_value": 0}):
        np.testing.assert_array_equal(P.Hashing(**kwargs)(data).numpy(),
                                      _ref().Hashing(**kwargs)(data).numpy())
    layer = P.Hashing(4, salt=7)
    assert P.Hashing.from_config(layer.get_config()).salt == [7, 7]
    with pytest.raises(ValueError):
        P.Hashing(0)


def test_discretization_matches_tf():
    x = np.array([[-1.5, 1.0, 3.4, 0.5], [0.0, 3.0, 1.3, 0.0]])
    got = P.Discretization(bins=[0.0, 1.0, 2.0])(x)
    assert got.dtype == tf.int64
    np.testing.assert_array_equal(
        got.numpy(), _ref().Discretization(bin_boundaries=[0.0, 1.0, 2.0])(x).numpy())
    assert P.Discretization.from_config(P.Discretization([1.0]).get_config()).bins == [1.0]


def test_hashing_and_lookup_in_functional_model_with_string_input():
    inp = tf.keras.Input(shape=(1,), dtype=tf.string)
    h = P.Hashing(num_bins=8)(inp)
    enc = P.CategoryEncoding(8)(h)
    model = tf.keras.Model(inp, enc)
    data = np.array([["cat"], ["dog"], ["cat"]])
    bins = _ref().Hashing(num_bins=8)(data).numpy().ravel()
    np.testing.assert_array_equal(model.predict(data), np.eye(8, dtype="float32")[bins])


def test_category_crossing_by_hand():
    a = np.array([["a", "b"], ["c", "d"]])
    b = np.array([[1], [2]])
    got = P.CategoryCrossing()([a, b]).numpy()
    np.testing.assert_array_equal(got, np.array([[b"a_X_1", b"b_X_1"], [b"c_X_2", b"d_X_2"]],
                                                object))
    got = P.CategoryCrossing(depth=2, separator="-")([a[:, :1], b]).numpy()
    np.testing.assert_array_equal(got, np.array([[b"a", b"1", b"a-1"], [b"c", b"2", b"c-2"]],
                                                object))
    cfg = P.CategoryCrossing(depth=(1, 2)).get_config()
    assert P.CategoryCrossing.from_config(cfg).depth == (1, 2)
