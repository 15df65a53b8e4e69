"""Whole programs with ``tf.lookup`` tables, run under real TensorFlow (2.21) and
torchflow and compared: a vocabulary-file preprocessing pipeline feeding a Keras
model that is trained; that model (a ``StaticVocabularyTable`` inside a layer) and a
``tf.Module`` of tables saved by each side and served by the other.

A saved table is a ``SavedResource`` with its ``_create_resource``/``_initialize``
functions and its vocabulary file in ``assets/``: the original file is deleted before
the other side loads, so the served model reads the exported copy.
"""

import os
import shutil

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core.proto import tf_saved_model_pb2
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

VOCAB = ["the", "cat", "sat", "on", "mat", "dog"]
LINES = ["the cat sat", "the dog sat on the mat", "a cat", "dog dog ran", "on mat"]
LABELS = [1.0, 0.0, 1.0, 0.0, 1.0]
QUERY = [["the", "cat", ""], ["zebra", "mat", "dog"]]


@pytest.fixture()
def vocab_file(tmp_path):
    path = tmp_path / "vocab" / "words.txt"
    path.parent.mkdir()
    path.write_text("\n".join(VOCAB) + "\n")
    return str(path)


def _model(m, vocab):
    """A Functional model: a layer holding a StaticVocabularyTable, then Embedding,
    pooling and Dense (weights set from fixed arrays, the same on both sides)."""

    class VocabLayer(m.keras.layers.Layer):
        def __init__(self, path, **kwargs):
            super().__init__(**kwargs)
            self.path = path
            self.table = m.lookup.StaticVocabularyTable(m.lookup.TextFileInitializer(
                path, m.string, m.lookup.TextFileIndex.WHOLE_LINE, m.int64,
                m.lookup.TextFileIndex.LINE_NUMBER), num_oov_buckets=3)

        def call(self, x):
            return self.table.lookup(x)

        def get_config(self):
            return dict(super().get_config(), path=self.path)

    inp = m.keras.Input(shape=(None,), dtype=m.string)
    emb = m.keras.layers.Embedding(len(VOCAB) + 3, 4)
    dense = m.keras.layers.Dense(1, activation="sigmoid")
    out = dense(m.keras.layers.GlobalAveragePooling1D()(emb(VocabLayer(vocab)(inp))))
    model = m.keras.Model(inp, out)
    rng = np.random.default_rng(0)
    emb.set_weights([rng.normal(size=(len(VOCAB) + 3, 4)).astype(np.float32)])
    dense.set_weights([rng.normal(size=(4, 1)).astype(np.float32), np.zeros(1, np.float32)])
    return model, VocabLayer


def _pipeline(m, vocab):
    """TF's text-preprocessing pattern: lines -> words -> ids (a vocabulary table in
    ``map``) -> padded batches."""
    table = m.lookup.StaticVocabularyTable(m.lookup.TextFileInitializer(
        vocab, m.string, m.lookup.TextFileIndex.WHOLE_LINE, m.int64,
        m.lookup.TextFileIndex.LINE_NUMBER), num_oov_buckets=3)
    ds = m.data.Dataset.from_tensor_slices((LINES, LABELS))
    ds = ds.map(lambda s, y: (table.lookup(m.strings.split(s)), y))
    return ds.padded_batch(2, padded_shapes=([None], []), padding_values=(
        m.constant(0, m.int64), 0.0))


def test_vocabulary_pipeline_and_training_match_tf(vocab_file):
    rtf = real_tf()
    ours = [(x.numpy().tolist(), y.numpy().tolist()) for x, y in _pipeline(tf, vocab_file)]
    theirs = [(x.numpy().tolist(), y.numpy().tolist()) for x, y in _pipeline(rtf, vocab_file)]
    assert ours == theirs

    def train(m):
        model, _ = _model(m, vocab_file)
        words = m.data.Dataset.from_tensor_slices((LINES, LABELS)).map(
            lambda s, y: (m.strings.split(s), y)).padded_batch(
            2, padded_shapes=([None], []), padding_values=("", 0.0))
        model.compile(optimizer=m.keras.optimizers.SGD(0.5), loss="binary_crossentropy")
        hist = model.fit(words, epochs=3, verbose=0, shuffle=False)
        return hist.history["loss"], model.predict(m.constant(QUERY), verbose=0)

    (loss, pred), (rloss, rpred) = train(tf), train(rtf)
    np.testing.assert_allclose(loss, rloss, rtol=1e-5)
    np.testing.assert_allclose(pred, rpred, rtol=1e-5)


def _moved_away(path):
    """Deletes the vocabulary file (the loaded model must read its asset copy)."""
    os.remove(path)


def test_keras_model_saved_by_torchflow_serves_in_tf(vocab_file, tmp_path):
    rtf = real_tf()
    model, _ = _model(tf, vocab_file)
    expected = np.asarray(model(tf.constant(QUERY)))
    path = str(tmp_path / "tf_model")
    model.save(path)
    sm = tf_saved_model_pb2.SavedModel()
    with open(f"{path}/saved_model.pb", "rb") as f:
        sm.ParseFromString(f.read())
    kinds = [n.WhichOneof("kind") for n in sm.meta_graphs[0].object_graph_def.nodes]
    assert "resource" in kinds and "asset" in kinds
    assert os.listdir(f"{path}/assets") == ["words.txt"]
    # tf-keras revives the layer from its config (its table reads the config's path)
    # and matches the saved table to it: the vocabulary table tracks its initializer,
    # not an inner table, as TF's does
    _, their_layer = _model(rtf, vocab_file)
    revived = rtf.keras.models.load_model(path, custom_objects={"VocabLayer": their_layer})
    np.testing.assert_allclose(revived.predict(rtf.constant(QUERY), verbose=0), expected,
                               rtol=1e-6)
    _moved_away(vocab_file)

    theirs = rtf.saved_model.load(path)
    served = theirs.signatures["serving_default"](rtf.constant(QUERY))
    np.testing.assert_allclose(next(iter(served.values())).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(theirs(rtf.constant(QUERY)).numpy(), expected, rtol=1e-6)
    v1 = rtf.compat.v1  # the MetaGraph's own init op creates and fills the table
    with v1.Graph().as_default(), v1.Session() as sess:
        mg = v1.saved_model.loader.load(sess, ["serve"], path)
        sd = mg.signature_def["serving_default"]
        out = sess.run({k: v.name for k, v in sd.outputs.items()},
                       {next(iter(sd.inputs.values())).name: QUERY})
    np.testing.assert_allclose(next(iter(out.values())), expected, rtol=1e-6)
    again = tf.saved_model.load(path)
    np.testing.assert_allclose(np.asarray(again(tf.constant(QUERY))), expected, rtol=1e-6)


def test_keras_model_saved_by_tf_serves_in_torchflow(vocab_file, tmp_path):
    rtf = real_tf()
    model, _ = _model(rtf, vocab_file)
    expected = model(rtf.constant(QUERY)).numpy()
    path = str(tmp_path / "tf_model")
    rtf.saved_model.save(model, path)
    _moved_away(vocab_file)
    loaded = tf.saved_model.load(path)
    served = loaded.signatures["serving_default"](tf.constant(QUERY))
    np.testing.assert_allclose(np.asarray(next(iter(served.values()))), expected, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(loaded(tf.constant(QUERY))), expected, rtol=1e-6)


def _module(m, vocab):
    class Tables(m.Module):
        def __init__(self):
            super().__init__()
            self.prices = m.lookup.StaticHashTable(m.lookup.KeyValueTensorInitializer(
                m.constant([3, 5, 8], m.int64), m.constant([0.5, 1.25, 4.0])), -1.0)
            self.names = m.lookup.StaticHashTable(m.lookup.TextFileInitializer(
                vocab, m.int64, m.lookup.TextFileIndex.LINE_NUMBER, m.string,
                m.lookup.TextFileIndex.WHOLE_LINE), "?")
            self.scale = m.Variable(2.0)

        @m.function(input_signature=[m.TensorSpec([None], m.int64)])
        def price(self, ids):
            return {"price": self.prices.lookup(ids) * self.scale,
                    "size": self.prices.size()}

        @m.function(input_signature=[m.TensorSpec([None], m.int64)])
        def name(self, ids):
            return self.names.lookup(ids)

    return Tables()


@pytest.mark.parametrize("writer", ["torchflow", "tf"])
def test_module_of_tables_both_ways(vocab_file, tmp_path, writer):
    rtf = real_tf()
    ids = [8, 1, 3, 5]
    saver, reader = (tf, rtf) if writer == "torchflow" else (rtf, tf)
    obj = _module(saver, vocab_file)
    expected_price = obj.price(saver.constant(ids, saver.int64))["price"].numpy()
    expected_names = obj.name(saver.constant([0, 5, 9], saver.int64)).numpy()
    path = str(tmp_path / "module")
    saver.saved_model.save(obj, path, signatures={"price": obj.price, "name": obj.name})
    _moved_away(vocab_file)
    loaded = reader.saved_model.load(path)
    got = loaded.price(reader.constant(ids, reader.int64))
    np.testing.assert_allclose(np.asarray(got["price"]), expected_price)
    assert int(got["size"]) == 3
    names = np.asarray(loaded.name(reader.constant([0, 5, 9], reader.int64)))
    assert names.tolist() == expected_names.tolist() == [b"the", b"dog", b"?"]
    served = loaded.signatures["price"](ids=reader.constant(ids, reader.int64))
    np.testing.assert_allclose(np.asarray(served["price"]), expected_price)
    shutil.rmtree(path)


def _dense_module(m):
    class Counts(m.Module):
        def __init__(self):
            super().__init__()
            self.counts = m.lookup.experimental.DenseHashTable(
                m.string, m.int64, -1, empty_key="", deleted_key="$")

        @m.function(input_signature=[m.TensorSpec([None], m.string)])
        def get(self, words):
            return self.counts.lookup(words)

    obj = Counts()
    obj.counts.insert(m.constant(["x", "yy", "zzz"]), m.constant([1, 2, 3], m.int64))
    obj.counts.erase(m.constant(["yy"]))
    return obj


@pytest.mark.parametrize("writer", ["torchflow", "tf"])
def test_dense_table_contents_survive_a_saved_model(tmp_path, writer):
    """A DenseHashTable keeps its contents in ``variables/`` (TF's ``table``
    saveable, with the save and restore functions in the object graph)."""
    rtf = real_tf()
    saver, reader = (tf, rtf) if writer == "torchflow" else (rtf, tf)
    path = str(tmp_path / "dense")
    saver.saved_model.save(_dense_module(saver), path)
    loaded = reader.saved_model.load(path)
    got = loaded.get(reader.constant(["x", "yy", "zzz", "q"]))
    assert np.asarray(got).tolist() == [1, -1, 3, -1]


def test_load_text_tutorial_style_pipeline(tmp_path):
    """The TF 2.4 "Load text" tutorial's pattern: text files read by TextLineDataset,
    labeled, words counted into a vocabulary, ids 2.. from a KeyValueTensorInitializer
    of a Python range (0 is padding; the one OOV bucket is the vocabulary size plus
    the hash modulo 1, as TF computes it), looked up in ``map``, padded, and a small
    model trained on them."""
    rtf = real_tf()
    texts = {"a.txt": ["The cat sat", "a cat ran", "THE MAT"],
             "b.txt": ["dogs bark", "the dog sat on a mat", "Zebra"]}
    for name, lines in texts.items():
        (tmp_path / name).write_text("\n".join(lines) + "\n")

    def run(m):
        parts = [m.data.TextLineDataset(str(tmp_path / n)).map(
            lambda s, k=k: (s, m.constant(k, m.int64))) for k, n in enumerate(sorted(texts))]
        ds = parts[0].concatenate(parts[1])
        counts: dict = {}
        for line, _ in ds:
            for w in m.strings.split(m.strings.lower(line)).numpy().tolist():
                counts[w] = counts.get(w, 0) + 1
        vocab = sorted(counts, key=lambda w: (-counts[w], w))[:6]
        init = m.lookup.KeyValueTensorInitializer(
            vocab, range(2, len(vocab) + 2), key_dtype=m.string, value_dtype=m.int64)
        table = m.lookup.StaticVocabularyTable(init, 1)

        def encode(text, label):
            return table.lookup(m.strings.split(m.strings.lower(text))), label

        data = ds.map(encode).padded_batch(2, padded_shapes=([None], []))
        ids = [x.numpy().tolist() for x, _ in data]
        model = m.keras.Sequential([m.keras.layers.Embedding(len(vocab) + 3, 3),
                                    m.keras.layers.GlobalAveragePooling1D(),
                                    m.keras.layers.Dense(1)])
        model.build((None, None))
        rng = np.random.default_rng(1)
        model.set_weights([rng.normal(size=w.shape).astype(np.float32)
                           for w in model.get_weights()])
        model.compile(optimizer=m.keras.optimizers.SGD(0.1),
                      loss=m.keras.losses.BinaryCrossentropy(from_logits=True))
        loss = model.fit(data, epochs=2, verbose=0, shuffle=False).history["loss"]
        return ids, loss

    (ids, loss), (rids, rloss) = run(tf), run(rtf)
    assert ids == rids
    np.testing.assert_allclose(loss, rloss, rtol=1e-5)


def test_untracked_table_is_refused_as_tf_refuses_it(tmp_path):
    rtf = real_tf()

    def save(m):
        table = m.lookup.StaticHashTable(m.lookup.KeyValueTensorInitializer(
            ["a"], m.constant([1], m.int64)), -1)

        class M(m.Module):
            @m.function(input_signature=[m.TensorSpec([None], m.string)])
            def f(self, x):
                return table.lookup(x)

        m.saved_model.save(M(), str(tmp_path / m.__name__))

    for m in (tf, rtf):
        with pytest.raises(AssertionError, match="Tried to export a function which "
                           "references an .untracked. resource(.|\n)*StaticHashTable"):
            save(m)
