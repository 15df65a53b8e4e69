"""Whole tf.data / tf.io / tf.train programs in the style of TF's guides, run under real TF
and torchflow; everything they print and every side effect they make is compared."""

from __future__ import annotations

import collections
import os

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

_LINES = ["the cat sat", "a dog", "the quick brown fox jumps", "hi", "over the lazy dog",
          "a b c d e f", "x"]


def text_pipeline(m, workdir):
    """Tokenize lines with a side-effecting py_function, cache to a file, filter, pad and
    bucket; two epochs; returns what the program would print plus the call counts."""
    calls = collections.Counter()
    vocab = {w: i + 1 for i, w in enumerate(sorted({w for s in _LINES for w in s.split()}))}

    def tokenize(line):
        text = line.numpy().decode()
        calls[text] += 1
        return np.array([vocab[w] for w in text.split()], np.int64)

    def encode(line):
        ids = m.py_function(tokenize, [line], m.int64)
        ids.set_shape([None])
        return ids

    path = os.path.join(workdir, m.__name__, "tokens")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    ds = (m.data.Dataset.from_tensor_slices(_LINES)
          .map(encode, num_parallel_calls=m.data.AUTOTUNE)
          .cache(path)
          .filter(lambda ids: m.size(ids) > 1))
    out = {"spec": ds.element_spec.shape.as_list()}
    for epoch in range(2):
        out[f"padded{epoch}"] = [b.numpy().tolist() for b in ds.padded_batch(2)]
    out["bucketed"] = [b.numpy().tolist() for b in ds.apply(
        m.data.experimental.bucket_by_sequence_length(
            lambda ids: m.shape(ids)[0], [3, 5], [2, 2, 2]))]
    out["lengths"] = ds.map(lambda ids: m.shape(ids)[0]).reduce(
        m.constant(0, m.int32), lambda a, n: a + n).numpy().tolist()
    out["calls"] = dict(calls)
    out["cache_files"] = bool(os.listdir(os.path.dirname(path)))
    return out


def image_pipeline(m, workdir):
    """Write PNG files, read them back through tf.data, decode, resize, batch, and write a
    TFRecord of serialized tensors; returns the values."""
    d = os.path.join(workdir, m.__name__ + "_img")
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(4)
    for i in range(5):
        img = rng.integers(0, 256, size=(6 + i, 5, 3), dtype=np.uint8)
        m.io.write_file(os.path.join(d, f"im{i}.png"), m.io.encode_png(img))
    files = m.data.Dataset.list_files(os.path.join(d, "*.png"), shuffle=False)

    def load(p):
        img = m.io.decode_png(m.io.read_file(p), channels=3)
        return m.image.convert_image_dtype(img, m.float32), m.shape(img)[0]

    ds = files.map(load).map(lambda img, h: (m.image.resize(img, [4, 4]), h)).batch(2)
    out = {"batches": [(np.round(x.numpy(), 5).tolist(), h.numpy().tolist()) for x, h in ds]}
    rec = os.path.join(d, "t.tfrecord")
    with m.io.TFRecordWriter(rec) as w:
        for x, _ in ds.unbatch().take(3):
            w.write(m.io.serialize_tensor(x).numpy())
    back = m.data.TFRecordDataset(rec).map(lambda s: m.io.parse_tensor(s, m.float32))
    out["records"] = [np.round(x.numpy(), 5).tolist() for x in back]
    return out


@pytest.mark.parametrize("program", [text_pipeline, image_pipeline])
def test_program_matches_tf(program, tmp_path):
    rtf = real_tf()
    ours = program(tf, str(tmp_path))
    theirs = program(rtf, str(tmp_path))
    if "spec" in theirs:
        # TF traces the map: set_shape([None]) leaves the length unknown. torchflow has no
        # tracing yet (issue 13) and reads the spec off the first element, so it is only
        # compatible with TF's; padded_batch and bucketing above still agree.
        assert rtf.TensorShape(theirs.pop("spec")).is_compatible_with(ours.pop("spec"))
    assert ours == theirs
