"""Programs in the style of TF's text and image tutorials, using tf.keras.preprocessing,
tf.keras.applications and tf.keras.backend, run under real TF and torchflow and compared."""

from __future__ import annotations

import os

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

_REVIEWS = ["A great movie, loved it!", "Terrible. Awful acting.", "great acting, great plot",
            "I loved the plot", "awful, awful movie", "the movie was fine"]
_LABELS = [1, 0, 1, 1, 0, 1]


def text_program(m):
    """Tokenizer -> pad_sequences -> Embedding/GlobalAveragePooling model, weights set
    from a fixed seed; returns what the program would print."""
    tok = m.keras.preprocessing.text.Tokenizer(num_words=12, oov_token="<oov>")
    tok.fit_on_texts(_REVIEWS)
    seqs = tok.texts_to_sequences(_REVIEWS)
    x = m.keras.preprocessing.sequence.pad_sequences(seqs, maxlen=6, padding="post",
                                                     truncating="post")
    y = m.keras.utils.to_categorical(_LABELS, 2)
    inputs = m.keras.layers.Input(shape=(6,))
    h = m.keras.layers.Embedding(12, 4)(inputs)
    h = m.keras.layers.GlobalAveragePooling1D()(h)
    outputs = m.keras.layers.Dense(2, activation="softmax")(h)
    model = m.keras.Model(inputs, outputs)
    rng = np.random.RandomState(0)
    m.keras.backend.batch_set_value([(w, rng.uniform(-0.5, 0.5, w.shape).astype("float32"))
                                     for w in model.weights])
    model.compile(m.keras.optimizers.SGD(0.5), "categorical_crossentropy")
    hist = model.fit(x, y, batch_size=6, epochs=3, shuffle=False, verbose=0)
    return {"word_index": tok.word_index, "x": x.tolist(),
            "matrix": tok.texts_to_matrix(_REVIEWS[:2], mode="tfidf").round(6).tolist(),
            "loss": np.round(hist.history["loss"], 5).tolist(),
            "pred": np.round(model.predict(x), 5).tolist(),
            "kernel": np.round(m.keras.backend.get_value(model.weights[-2]), 5).tolist()}


def image_program(m, workdir):
    """Images written to class folders, read by image_dataset_from_directory, fed to a
    small MobileNetV2 (weights from a seed) after its preprocess_input; prints shapes,
    class names and predictions."""
    root = os.path.join(workdir, m.__name__)
    rng = np.random.RandomState(1)
    for c in ("cat", "dog"):
        os.makedirs(os.path.join(root, c), exist_ok=True)
        for i in range(3):
            m.keras.preprocessing.image.save_img(os.path.join(root, c, f"{i}.png"),
                                                 rng.randint(0, 256, (40, 36, 3)))
    m.keras.backend.clear_session()
    ds = m.keras.preprocessing.image_dataset_from_directory(
        root, image_size=(32, 32), batch_size=4, shuffle=False, label_mode="categorical")
    base = m.keras.applications.MobileNetV2(input_shape=(32, 32, 3), alpha=0.35,
                                            include_top=False, weights=None, pooling="avg")
    wrng = np.random.RandomState(2)
    base.set_weights([wrng.uniform(0.5, 1.0, w.shape).astype("float32") if "variance" in w.name
                      else wrng.normal(0, 0.1, w.shape).astype("float32")
                      for w in base.weights])
    preds, labels = [], []
    for images, y in ds:
        x = m.keras.applications.mobilenet_v2.preprocess_input(images)
        preds.append(base(x, training=False).numpy())
        labels.append(y.numpy())
    return {"class_names": ds.class_names, "params": base.count_params(),
            "labels": np.concatenate(labels).tolist(),
            "pred": np.concatenate(preds)}


def test_text_program_matches_tf():
    ours, theirs = text_program(tf), text_program(real_tf())
    for key in ("word_index", "x", "matrix"):
        assert ours[key] == theirs[key], key
    np.testing.assert_allclose(ours["loss"], theirs["loss"], atol=1e-4)
    np.testing.assert_allclose(ours["pred"], theirs["pred"], atol=1e-4)
    np.testing.assert_allclose(ours["kernel"], theirs["kernel"], atol=1e-4)


def test_image_program_matches_tf(tmp_path):
    ours, theirs = image_program(tf, str(tmp_path)), image_program(real_tf(), str(tmp_path))
    assert ours["class_names"] == theirs["class_names"] == ["cat", "dog"]
    assert ours["params"] == theirs["params"]
    assert ours["labels"] == theirs["labels"]
    np.testing.assert_allclose(ours["pred"], theirs["pred"], rtol=1e-3, atol=1e-3)
