"""parse_single_sequence_example / parse_sequence_example / decode_json_example against
real TF on the same serialized protos."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


def _seq(rtf, n_frames, label):
    s = rtf.train.SequenceExample()
    s.context.feature["label"].int64_list.value.append(label)
    s.context.feature["name"].bytes_list.value.append(b"ex%d" % label)
    s.feature_lists.feature_list["tok"].SetInParent()  # present, maybe with no frames
    for f in range(n_frames):
        s.feature_lists.feature_list["tok"].feature.add().int64_list.value.extend([f, f + 1])
        s.feature_lists.feature_list["w"].feature.add().float_list.value.extend(
            [0.5 * f] * (f + 1))
    return s.SerializeToString()


def _np(v):
    if hasattr(v, "indices"):
        return ("sparse", v.indices.numpy().tolist(), np.asarray(v.values.numpy()).tolist(),
                v.dense_shape.numpy().tolist())
    return np.asarray(v.numpy()).tolist()


def _feats(m):
    ctx = {"label": m.io.FixedLenFeature([], m.int64), "name": m.io.VarLenFeature(m.string)}
    seqf = {"tok": m.io.FixedLenSequenceFeature([2], m.int64),
            "w": m.io.VarLenFeature(m.float32),
            "opt": m.io.FixedLenSequenceFeature([], m.float32, allow_missing=True)}
    return ctx, seqf


def test_single_sequence_example_matches_tf():
    rtf = real_tf()
    data = _seq(rtf, 3, 7)
    got = []
    for m in (tf, rtf):
        ctx, seq = m.io.parse_single_sequence_example(data, *_feats(m))
        got.append(({k: _np(v) for k, v in ctx.items()}, {k: _np(v) for k, v in seq.items()}))
    assert got[0] == got[1]


def test_batched_sequence_examples_match_tf():
    rtf = real_tf()
    data = np.array([_seq(rtf, 3, 1), _seq(rtf, 1, 2), _seq(rtf, 0, 3)], dtype=object)
    got = []
    for m in (tf, rtf):
        ctx, fl, lengths = m.io.parse_sequence_example(data, *_feats(m))
        got.append(tuple({k: _np(v) for k, v in d.items()} for d in (ctx, fl, lengths)))
    assert got[0] == got[1]


def test_missing_required_feature_list_raises_as_tf():
    rtf = real_tf()
    data = _seq(rtf, 2, 1)
    for m in (tf, rtf):
        with pytest.raises(m.errors.InvalidArgumentError,
                           match="Feature list 'nope' is required but could not be found"):
            m.io.parse_single_sequence_example(
                data, sequence_features={"nope": m.io.FixedLenSequenceFeature([], m.int64)})


def test_decode_json_example_matches_tf():
    rtf = real_tf()
    js = ['{"features": {"feature": {"a": {"int64List": {"value": ["1", "2"]}}, '
          '"b": {"floatList": {"value": [0.5]}}}}}',
          '{"features": {"feature": {"s": {"bytesList": {"value": ["aGk="]}}}}}']
    ours = tf.io.decode_json_example(js).numpy().tolist()
    theirs = rtf.io.decode_json_example(js).numpy().tolist()
    assert [rtf.train.Example.FromString(b) for b in ours] == \
        [rtf.train.Example.FromString(b) for b in theirs]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.io.decode_json_example('{"nope": 1}')


def test_match_filenames_once_matches_tf(tmp_path):
    rtf = real_tf()
    for n in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / n).write_text("x")
    pat = str(tmp_path / "*.txt")
    ours, theirs = tf.io.match_filenames_once(pat), rtf.io.match_filenames_once(pat)
    assert ours.numpy().tolist() == theirs.numpy().tolist()
    assert ours.dtype == tf.string and not ours.trainable
