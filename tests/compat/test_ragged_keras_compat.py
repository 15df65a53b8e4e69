"""Keras with ragged inputs: tf.keras.Input(ragged=True) through Functional models, and a
text pipeline (strings -> tf.strings.split -> StringLookup -> Embedding -> mean pooling
-> Dense -> fit) run under real TF (tf-keras) and torchflow, compared step for step."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

TEXTS = ["the cat sat", "a dog ran fast", "the bird", "cats and dogs", "a fast bird flew", "sat"]
LABELS = np.array([1, 0, 1, 0, 0, 1], np.float32)
VOCAB = ["the", "cat", "sat", "a", "dog", "ran", "fast", "bird"]


def _text_model(t):
    P = t.keras.layers.experimental.preprocessing
    inp = t.keras.Input(shape=(None,), dtype=t.string, ragged=True)
    # TF 2.4's StringLookup defaults (mask "" at 0, one OOV index), spelled out
    # because tf-keras 2.21's default has no mask token.
    ids = P.StringLookup(vocabulary=VOCAB, mask_token="", num_oov_indices=1)(inp)
    emb = t.keras.layers.Embedding(len(VOCAB) + 2, 4)
    pooled = t.keras.layers.Lambda(lambda x: t.reduce_mean(x, axis=1))(emb(ids))
    dense = t.keras.layers.Dense(1, activation="sigmoid")
    model = t.keras.Model(inp, dense(pooled))
    rng = np.random.RandomState(0)
    emb.set_weights([rng.uniform(-0.5, 0.5, (len(VOCAB) + 2, 4)).astype(np.float32)])
    dense.set_weights([rng.uniform(-0.5, 0.5, (4, 1)).astype(np.float32),
                       np.zeros(1, np.float32)])
    model.compile(t.keras.optimizers.SGD(0.5), "binary_crossentropy")
    return model, (inp, ids, emb, pooled)


def _run_dataset(t):
    model, _ = _text_model(t)
    ds = t.data.Dataset.from_tensor_slices((TEXTS, LABELS)).batch(3).map(
        lambda x, y: (t.strings.split(x), y))
    hist = model.fit(ds, epochs=4, verbose=0).history["loss"]
    pred = model.predict(t.ragged.constant([["the", "cat"], ["dog"], []])).ravel()
    return hist, pred


def test_text_pipeline_fit_matches_tf_keras():
    ours, theirs = _run_dataset(tf), _run_dataset(real_tf())
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6)
    assert ours[0][-1] < ours[0][0]


def test_fit_on_ragged_arrays_matches_tf_keras():
    def run(t):
        model, _ = _text_model(t)
        x = t.strings.split(TEXTS)
        return model.fit(x, LABELS, batch_size=3, epochs=3, shuffle=False,
                         verbose=0).history["loss"]

    np.testing.assert_allclose(run(tf), run(real_tf()), rtol=1e-5, atol=1e-6)


def test_keras_tensor_type_specs_match_tf_keras():
    def specs(t):
        _, (inp, ids, emb, pooled) = _text_model(t)
        x2 = t.keras.Input(shape=(None, None), ragged=True)
        x3 = t.keras.Input(shape=(None, 4), ragged=True)
        return [repr(s) for s in (inp.type_spec, ids.type_spec, x2.type_spec, x3.type_spec,
                                  pooled.type_spec)]

    assert specs(tf) == specs(real_tf())
    x = tf.keras.Input(shape=(None,), ragged=True)
    assert x.ragged and not tf.keras.Input(shape=(3,)).ragged
    assert tf.keras.Model(x, x).layers[0].get_config()["ragged"] is True


def test_lstm_on_ragged_input_matches_tf_keras():
    # The ragged tensor guide's question classifier: Input(ragged=True) -> Embedding ->
    # LSTM (padded, masked by the row lengths) -> Dense, same weights in both.
    def run(t):
        words = t.strings.split(["What makes you think she is a witch?", "A newt?",
                                 "She turned me into a newt."])
        ids = t.strings.to_hash_bucket_fast(words, 50)
        model = t.keras.Sequential([t.keras.layers.Input(shape=[None], dtype=t.int64,
                                                         ragged=True),
                                    t.keras.layers.Embedding(50, 4),
                                    t.keras.layers.LSTM(3, use_bias=False),
                                    t.keras.layers.Dense(1)])
        rng = np.random.RandomState(1)
        model.set_weights([rng.uniform(-0.3, 0.3, w.shape).astype(np.float32)
                           for w in model.get_weights()])
        return model.predict(ids).ravel()

    np.testing.assert_allclose(run(tf), run(real_tf()), rtol=1e-5, atol=1e-6)
