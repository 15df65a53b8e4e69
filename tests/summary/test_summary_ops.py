"""tf.summary writes event files that TensorBoard's own reader understands.

The reference is TensorBoard's ``EventAccumulator`` reading our files, and
NumPy for the values (histogram counts, image pixels decoded from the PNG).
"""

import glob
import zlib

import numpy as np
import pytest

import torchflow as tf


def _load(logdir):
    from tensorboard.backend.event_processing import event_accumulator

    acc = event_accumulator.EventAccumulator(logdir, size_guidance={"tensors": 0})
    acc.Reload()
    return acc


def _decode_png(data: bytes) -> np.ndarray:
    """Tiny PNG reader for our own encoder's output (filter 0 rows only)."""
    import struct

    pos, idat, w, h, ctype = 8, b"", 0, 0, 0
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, _, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    c = {0: 1, 4: 2, 2: 3, 6: 4}[ctype]
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, w * c + 1)
    assert (raw[:, 0] == 0).all()
    return raw[:, 1:].reshape(h, w, c)


def test_scalar_histogram_image_text_read_by_tensorboard(tmp_path):
    logdir = str(tmp_path)
    w = tf.summary.create_file_writer(logdir)
    data = np.random.default_rng(0).normal(size=1000)
    img = np.random.default_rng(1).uniform(size=(2, 4, 5, 3)).astype(np.float32)
    with w.as_default():
        for step in range(3):
            assert tf.summary.scalar("loss", 1.0 / (step + 1), step=step)
        with tf.name_scope("hist"):
            assert tf.summary.histogram("w", tf.constant(data), step=7, buckets=10)
        assert tf.summary.image("img", img, step=1, max_outputs=1)
        assert tf.summary.text("note", "hello *world*", step=2)
    w.close()
    assert glob.glob(f"{logdir}/events.out.tfevents.*.v2")
    acc = _load(logdir)
    from tensorboard.util import tensor_util

    ev = acc.Tensors("loss")
    assert [e.step for e in ev] == [0, 1, 2]
    np.testing.assert_allclose([tensor_util.make_ndarray(e.tensor_proto) for e in ev],
                               [1.0, 0.5, 1 / 3], rtol=1e-6)
    assert acc.SummaryMetadata("loss").plugin_data.plugin_name == "scalars"
    (h,) = acc.Tensors("hist/w")
    rows = tensor_util.make_ndarray(h.tensor_proto)
    counts, edges = np.histogram(data, bins=10)
    np.testing.assert_allclose(rows[:, 0], edges[:-1])
    np.testing.assert_allclose(rows[:, 1], edges[1:])
    np.testing.assert_array_equal(rows[:, 2], counts)
    (im,) = acc.Tensors("img")
    parts = tensor_util.make_ndarray(im.tensor_proto)
    assert parts[0] == b"5" and parts[1] == b"4" and len(parts) == 3
    expected = np.floor(np.clip(img[0], 0, 1) * 255.0 + 0.5).astype(np.uint8)
    np.testing.assert_array_equal(_decode_png(parts[2]), expected)
    (t,) = acc.Tensors("note")
    assert tensor_util.make_ndarray(t.tensor_proto).item() == b"hello *world*"
    assert acc.SummaryMetadata("note").plugin_data.plugin_name == "text"


def test_no_writer_and_record_if(tmp_path):
    assert tf.summary.scalar("x", 1.0, step=0) is False
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=5):
        with tf.summary.record_if(False):
            assert tf.summary.scalar("x", 1.0) is False
            assert not tf.summary.should_record_summaries()
        with tf.summary.record_if(lambda: True):
            assert tf.summary.scalar("x", 2.0)
    w.close()
    (e,) = _load(str(tmp_path)).Tensors("x")
    assert e.step == 5


def test_step_required_and_variable_step(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        with pytest.raises(ValueError, match="No step set"):
            tf.summary.scalar("x", 1.0)
        step = tf.Variable(3, dtype=tf.int64)
        tf.summary.experimental.set_step(step)
        tf.summary.scalar("x", 1.0)
        step.assign_add(1)
        tf.summary.scalar("x", 2.0)
    w.flush()
    assert [e.step for e in _load(str(tmp_path)).Tensors("x")] == [3, 4]


def test_histogram_edge_cases():
    from torchflow._src.summary.summary_ops import histogram_buckets

    assert histogram_buckets(np.array([]), None).shape == (0, 3)
    np.testing.assert_array_equal(histogram_buckets(np.array([2.0, 2.0]), 5),
                                  [[1.5, 2.5, 2.0]])
    rows = histogram_buckets(np.arange(10.0), None)
    assert rows.shape == (30, 3) and rows[:, 2].sum() == 10


def test_image_rejects_bad_rank(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=0), pytest.raises(ValueError):
        tf.summary.image("bad", np.zeros((4, 4, 3), np.float32))
