"""A text-like tf.data pipeline of varying-length sequences, padded and fed to Keras,
run under real TensorFlow and torchflow: the ``element_spec``s are the traced ones
(unknown lengths stay unknown, so ``padded_batch`` and ``bucket_by_sequence_length``
pad each batch to its longest sequence), and a model with ``Masking`` (and one with
``Embedding(mask_zero=True)``) fits to the same losses from the same weights."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

_TEXT = ["the cat sat on the mat", "a dog", "one two three", "hello", "it rains today again",
         "we go", "so it is", "x y z w v u", "tiny", "four word long line"]
_LABELS = np.array([1, 0, 1, 0, 1, 0, 1, 1, 0, 1], np.float32)


def _tokens(m):
    """Each sentence as word lengths (a token id per word, 1..7), of varying length."""
    def to_ids(s, y):
        words = m.strings.split(s)
        ids = m.minimum(m.strings.length(words), 7)
        return ids, y
    return m.data.Dataset.from_tensor_slices((_TEXT, _LABELS)).map(to_ids)


def _features(m):
    """Float features per step from ids and their position (tf.range of the length)."""
    def feats(ids, y):
        pos = m.cast(m.range(m.shape(ids)[0]), m.float32)
        x = m.stack([m.cast(ids, m.float32) / 7.0, (pos + 1.0) / 10.0], axis=-1)
        return x, y
    return _tokens(m).map(feats)


def _set_weights(model, seed):
    rng = np.random.default_rng(seed)
    model.set_weights([rng.uniform(-0.4, 0.4, w.shape).astype(np.float32)
                       for w in model.get_weights()])


def masking_program(m):
    ds = _features(m)
    specs = [str(ds.element_spec)]
    batched = ds.padded_batch(3)
    specs.append(str(batched.element_spec))
    shapes = [tuple(x.shape) for x, _ in batched]
    model = m.keras.Sequential([
        m.keras.layers.Masking(mask_value=0.0, input_shape=(None, 2)),
        m.keras.layers.SimpleRNN(4),
        m.keras.layers.Dense(1, activation="sigmoid"),
    ])
    _set_weights(model, 0)
    model.compile(optimizer=m.keras.optimizers.SGD(0.5), loss="binary_crossentropy")
    hist = model.fit(batched, epochs=3, verbose=0)
    preds = model.predict(batched, verbose=0)
    return specs, shapes, hist.history["loss"], preds


def embedding_program(m):
    ds = _tokens(m)
    buckets = ds.apply(m.data.experimental.bucket_by_sequence_length(
        lambda ids, y: m.shape(ids)[0], [3, 5], [4, 3, 2]))
    specs = [str(ds.element_spec), str(buckets.element_spec)]
    shapes = [tuple(x.shape) for x, _ in buckets]
    model = m.keras.Sequential([
        m.keras.layers.Embedding(8, 3, mask_zero=True),
        m.keras.layers.GlobalAveragePooling1D(),
        m.keras.layers.Dense(1, activation="sigmoid"),
    ])
    model.build((None, None))
    _set_weights(model, 1)
    model.compile(optimizer=m.keras.optimizers.SGD(0.5), loss="binary_crossentropy")
    hist = model.fit(buckets, epochs=3, verbose=0)
    return specs, shapes, hist.history["loss"]


def test_padded_varying_length_pipeline_fits_as_in_tf():
    ours = masking_program(tf)
    theirs = masking_program(real_tf())
    assert ours[0] == theirs[0]
    assert ours[0][1] == ("(TensorSpec(shape=(None, None, 2), dtype=tf.float32, name=None), "
                          "TensorSpec(shape=(None,), dtype=tf.float32, name=None))")
    assert ours[1] == theirs[1]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-4, atol=1e-6)


def test_bucketed_embedding_pipeline_fits_as_in_tf():
    ours = embedding_program(tf)
    theirs = embedding_program(real_tf())
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-4, atol=1e-6)
