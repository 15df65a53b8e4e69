"""Whole programs run under real TF and torchflow and compared: an image input
pipeline (decode, resize with antialias, crops, flips, colour ops, standardization
in tf.data) and a CTC text recogniser's decoding step (a Keras softmax model's
predictions decoded greedily and by beam search, as the Keras OCR example does)."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def image_pipeline(m):
    """PNG bytes -> decode -> float -> antialiased resize -> central crop -> pad ->
    flip -> hue/saturation/contrast -> standardization, batched; plus what a
    program checks on bad input."""
    rng = np.random.default_rng(0)
    pngs = [m.io.encode_png(rng.integers(0, 256, (20 + 3 * i, 24, 3), dtype=np.uint8))
            for i in range(4)]

    def prep(raw):
        img = m.image.convert_image_dtype(m.io.decode_png(raw, channels=3), m.float32)
        img = m.image.resize(img, [16, 16], method="bicubic", antialias=True)
        img = m.image.central_crop(img, 0.75)
        img = m.image.pad_to_bounding_box(img, 1, 2, 14, 15)
        img = m.image.flip_left_right(img)
        img = m.image.adjust_hue(img, 0.1)
        img = m.image.adjust_saturation(img, 1.5)
        img = m.image.adjust_contrast(img, 0.8)
        return m.image.per_image_standardization(img)

    ds = m.data.Dataset.from_tensor_slices(m.stack(pngs)).map(prep).batch(2)
    batches = [b.numpy() for b in ds]
    errors = []
    for bad in (lambda: m.image.rgb_to_hsv(batches[0][..., :2]),
                lambda: m.image.resize(batches[0], [-1, 4]),
                lambda: m.image.crop_to_bounding_box(batches[0], 0, 0, 20, 4)):
        try:
            bad()
            errors.append(None)
        except Exception as e:  # noqa: BLE001 - the error kind is what is compared
            errors.append(type(e).__name__)
    return batches, errors


def test_image_pipeline_program():
    want_b, want_e = image_pipeline(real_tf())
    got_b, got_e = image_pipeline(tf)
    assert got_e == want_e == ["FailedPreconditionError", "InvalidArgumentError", "ValueError"]
    assert len(got_b) == len(want_b)
    for g, w in zip(got_b, want_b):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, atol=2e-4)


def ctc_recogniser(m, greedy, beam_width=8, top_paths=2):
    """A frame classifier (Dense + softmax over 6 labels and the blank) with fixed
    weights; its predictions decoded with keras.backend.ctc_decode."""
    rng = np.random.default_rng(3)
    frames = rng.normal(size=(4, 12, 5)).astype(np.float32)
    kernel = (rng.normal(size=(5, 7)) * 1.5).astype(np.float32)
    bias = rng.normal(size=(7,)).astype(np.float32)
    inputs = m.keras.Input(shape=(12, 5))
    probs = m.keras.layers.Dense(7, activation="softmax")(inputs)
    model = m.keras.Model(inputs, probs)
    model.set_weights([kernel, bias])
    y = model.predict(frames, verbose=0)
    lengths = np.array([12, 9, 5, 1])
    decoded, log_prob = m.keras.backend.ctc_decode(y, lengths, greedy=greedy,
                                                   beam_width=beam_width, top_paths=top_paths)
    texts = [["".join("abcdef"[c] for c in row if c >= 0) for row in d.numpy()]
             for d in decoded]
    return texts, log_prob.numpy()


@pytest.mark.parametrize("greedy", [True, False])
def test_ctc_recogniser_program(greedy):
    want_t, want_p = ctc_recogniser(real_tf(), greedy)
    got_t, got_p = ctc_recogniser(tf, greedy)
    assert got_t == want_t
    np.testing.assert_allclose(got_p, want_p, rtol=1e-4, atol=1e-4)
