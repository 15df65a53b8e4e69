"""File readers and tf.io: TFRecord both ways with real TF, Example parsing vs real TF,
text lines, CSV, list_files, read_file/write_file, gfile."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf


def _records(ds):
    return [r.numpy() for r in ds]


RECORDS = [b"", b"a", b"hello world", bytes(range(256)) * 5]


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_tfrecord_written_by_torchflow_read_by_tf(tmp_path, compression):
    rtf = real_tf()
    path = str(tmp_path / "a.tfrecord")
    with tf.io.TFRecordWriter(path, options=compression) as w:
        for r in RECORDS:
            w.write(r)
    got = [r.numpy() for r in rtf.data.TFRecordDataset(path, compression_type=compression)]
    assert got == RECORDS
    assert _records(tf.data.TFRecordDataset(path, compression_type=compression)) == RECORDS


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_tfrecord_written_by_tf_read_by_torchflow(tmp_path, compression):
    rtf = real_tf()
    path = str(tmp_path / "b.tfrecord")
    with rtf.io.TFRecordWriter(path, options=compression) as w:
        for r in RECORDS:
            w.write(r)
    assert _records(tf.data.TFRecordDataset([path], compression_type=compression)) == RECORDS


def test_tfrecord_corruption_is_data_loss(tmp_path):
    path = tmp_path / "c.tfrecord"
    with tf.io.TFRecordWriter(str(path)) as w:
        w.write(b"payload")
    raw = bytearray(path.read_bytes())
    raw[14] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(tf.errors.DataLossError):
        _records(tf.data.TFRecordDataset(str(path)))
    path.write_bytes(bytes(raw[:10]))
    with pytest.raises(tf.errors.DataLossError):
        _records(tf.data.TFRecordDataset(str(path)))
    with pytest.raises(tf.errors.NotFoundError):
        _records(tf.data.TFRecordDataset(str(tmp_path / "missing")))


def test_tfrecord_parallel_reads_interleave_files(tmp_path):
    paths = []
    for i in range(3):
        p = str(tmp_path / f"{i}.tfrecord")
        with tf.io.TFRecordWriter(p) as w:
            for j in range(2):
                w.write(f"{i}{j}".encode())
        paths.append(p)
    assert _records(tf.data.TFRecordDataset(paths)) == [b"00", b"01", b"10", b"11", b"20", b"21"]
    par = _records(tf.data.TFRecordDataset(paths, num_parallel_reads=3))
    assert par == [b"00", b"10", b"20", b"01", b"11", b"21"]  # TF's order (block 1)
    rtf = real_tf()
    assert [r.numpy() for r in rtf.data.TFRecordDataset(paths, num_parallel_reads=3)] == par


def _example(tfmod):
    return tfmod.train.Example(features=tfmod.train.Features(feature={
        "i": tfmod.train.Feature(int64_list=tfmod.train.Int64List(value=[1, 2, 3])),
        "f": tfmod.train.Feature(float_list=tfmod.train.FloatList(value=[0.5, -1.25])),
        "s": tfmod.train.Feature(bytes_list=tfmod.train.BytesList(value=[b"x", b"yz"])),
        "v": tfmod.train.Feature(int64_list=tfmod.train.Int64List(value=[7, 8])),
    }))


def test_example_proto_bytes_equal_tf():
    rtf = real_tf()
    ours = _example(tf).SerializeToString(deterministic=True)
    theirs = _example(rtf).SerializeToString(deterministic=True)
    assert ours == theirs
    assert rtf.train.Example.FromString(ours) == _example(rtf)


def test_parse_single_example_matches_tf():
    rtf = real_tf()
    data = _example(tf).SerializeToString()

    def spec(m):
        return {"i": m.io.FixedLenFeature([3], m.int64),
                "f": m.io.FixedLenFeature([2], m.float32),
                "s": m.io.FixedLenFeature([2], m.string),
                "missing": m.io.FixedLenFeature([], m.float32, default_value=9.0),
                "v": m.io.VarLenFeature(m.int64)}

    ours = tf.io.parse_single_example(tf.constant(data), spec(tf))
    theirs = rtf.io.parse_single_example(data, spec(rtf))
    for k in ("i", "f", "s", "missing"):
        assert ours[k].dtype.name == theirs[k].dtype.name
        np.testing.assert_array_equal(ours[k].numpy(), theirs[k].numpy())
    np.testing.assert_array_equal(ours["v"].values.numpy(), theirs["v"].values.numpy())
    np.testing.assert_array_equal(ours["v"].indices.numpy(), theirs["v"].indices.numpy())
    np.testing.assert_array_equal(ours["v"].dense_shape.numpy(),
                                  theirs["v"].dense_shape.numpy())
    np.testing.assert_array_equal(tf.sparse.to_dense(ours["v"]).numpy(), [7, 8])


def test_parse_example_batch_matches_tf():
    rtf = real_tf()
    a = _example(tf).SerializeToString()
    b = tf.train.Example(features=tf.train.Features(feature={
        "i": tf.train.Feature(int64_list=tf.train.Int64List(value=[4, 5, 6])),
        "v": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 2, 3]))}))
    batch = [a, b.SerializeToString()]

    def spec(m):
        return {"i": m.io.FixedLenFeature([3], m.int64), "v": m.io.VarLenFeature(m.int64)}

    ours = tf.io.parse_example(tf.constant(batch), spec(tf))
    theirs = rtf.io.parse_example(batch, spec(rtf))
    np.testing.assert_array_equal(ours["i"].numpy(), theirs["i"].numpy())
    for attr in ("indices", "values", "dense_shape"):
        np.testing.assert_array_equal(getattr(ours["v"], attr).numpy(),
                                      getattr(theirs["v"], attr).numpy())


def test_parse_errors_match_tf_types():
    rtf = real_tf()
    data = _example(tf).SerializeToString()
    for m in (tf, rtf):
        with pytest.raises(m.errors.InvalidArgumentError):
            m.io.parse_single_example(data, {"absent": m.io.FixedLenFeature([], m.int64)})
        with pytest.raises(m.errors.InvalidArgumentError):
            m.io.parse_single_example(data, {"i": m.io.FixedLenFeature([2], m.int64)})
        with pytest.raises(m.errors.InvalidArgumentError):
            m.io.parse_single_example(data, {"i": m.io.FixedLenFeature([3], m.float32)})


def test_tfrecord_of_examples_pipeline(tmp_path):
    rtf = real_tf()
    path = str(tmp_path / "ex.tfrecord")
    with rtf.io.TFRecordWriter(path) as w:
        for i in range(5):
            ex = rtf.train.Example(features=rtf.train.Features(feature={
                "x": rtf.train.Feature(float_list=rtf.train.FloatList(value=[i, i * 2.0])),
                "y": rtf.train.Feature(int64_list=rtf.train.Int64List(value=[i]))}))
            w.write(ex.SerializeToString())
    feats = {"x": tf.io.FixedLenFeature([2], tf.float32), "y": tf.io.FixedLenFeature([], tf.int64)}
    ds = tf.data.TFRecordDataset(path).map(lambda r: tf.io.parse_single_example(r, feats)).batch(2)
    out = [{k: v.numpy().tolist() for k, v in b.items()} for b in ds]
    assert out[0] == {"x": [[0.0, 0.0], [1.0, 2.0]], "y": [0, 1]}
    assert len(out) == 3


def test_text_line_dataset(tmp_path):
    p = tmp_path / "t.txt"
    p.write_bytes(b"one\ntwo\r\n\nlast")
    assert _records(tf.data.TextLineDataset(str(p))) == [b"one", b"two", b"", b"last"]
    g = tmp_path / "t.txt.gz"
    g.write_bytes(gzip.compress(b"a\nb\n"))
    assert _records(tf.data.TextLineDataset(str(g), compression_type="GZIP")) == [b"a", b"b"]
    rtf = real_tf()
    assert [x.numpy() for x in rtf.data.TextLineDataset(str(p))] == _records(
        tf.data.TextLineDataset(str(p)))


def test_fixed_length_record_dataset(tmp_path):
    p = tmp_path / "r.bin"
    p.write_bytes(b"HH" + b"abcdefgh" + b"F")
    ds = tf.data.FixedLengthRecordDataset(str(p), 3, header_bytes=2, footer_bytes=1)
    assert _records(ds) == [b"abc", b"def"]


def test_list_files(tmp_path):
    for n in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / n).write_text("x")
    names = _records(tf.data.Dataset.list_files(str(tmp_path / "*.txt"), shuffle=False))
    assert names == [str(tmp_path / "a.txt").encode(), str(tmp_path / "b.txt").encode()]
    shuffled = _records(tf.data.Dataset.list_files(str(tmp_path / "*"), seed=1))
    assert sorted(shuffled) == sorted(str(tmp_path / n).encode()
                                      for n in ("a.txt", "b.txt", "c.csv"))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.data.Dataset.list_files(str(tmp_path / "*.none"))


def test_csv_dataset_and_make_csv_dataset(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("a,b,name\n1,2.5,x\n3,,y\n5,6.5,\"z,w\"\n")
    ds = tf.data.experimental.CsvDataset(str(p), [tf.int32, tf.constant(-1.0), tf.string],
                                         header=True)
    rows = [tuple(v.numpy() for v in r) for r in ds]
    assert rows == [(1, 2.5, b"x"), (3, -1.0, b"y"), (5, 6.5, b"z,w")]
    assert ds.element_spec[1] == tf.TensorSpec([], tf.float32)
    rtf = real_tf()
    theirs = [tuple(v.numpy() for v in r) for r in rtf.data.experimental.CsvDataset(
        str(p), [rtf.int32, rtf.constant(-1.0), rtf.string], header=True)]
    assert rows == theirs
    made = tf.data.experimental.make_csv_dataset(str(p), batch_size=2, label_name="a",
                                                 shuffle=False, num_epochs=1,
                                                 column_defaults=[0, 0.0, ""])
    feats, label = next(iter(made))
    assert label.numpy().tolist() == [1, 3]
    assert sorted(feats) == ["b", "name"]
    assert feats["b"].numpy().tolist() == [2.5, 0.0]


def test_read_write_file_and_gfile(tmp_path):
    p = str(tmp_path / "sub" / "f.bin")
    tf.io.write_file(p, tf.constant(b"\x00data"))
    assert tf.io.read_file(p).numpy() == b"\x00data"
    assert tf.io.gfile.exists(p) and tf.io.gfile.isdir(str(tmp_path / "sub"))
    assert tf.io.gfile.glob(str(tmp_path / "sub" / "*")) == [p]
    with tf.io.gfile.GFile(p, "rb") as f:
        assert f.read() == b"\x00data"
    with pytest.raises(tf.errors.NotFoundError):
        tf.io.read_file(str(tmp_path / "nope"))


def test_decode_ops_match_tf(tmp_path):
    rtf = real_tf()
    raw = [b"\x01\x00\x02\x00", b"\x03\x00\x04\x00"]
    np.testing.assert_array_equal(tf.io.decode_raw(tf.constant(raw), tf.int16).numpy(),
                                  rtf.io.decode_raw(raw, rtf.int16).numpy())
    lines = ["1,a,2.5", "3,,"]
    ours = tf.io.decode_csv(tf.constant(lines), [[0], ["z"], [1.0]])
    theirs = rtf.io.decode_csv(lines, [[0], ["z"], [1.0]])
    for a, b in zip(ours, theirs):
        assert a.dtype.name == b.dtype.name
        assert a.numpy().tolist() == b.numpy().tolist()
    for m in (tf, rtf):
        with pytest.raises(m.errors.InvalidArgumentError):
            m.io.decode_csv(m.constant(["1,a"]), [[0], ["z"], [1.0]])
    for pad in (False, True):
        assert tf.io.encode_base64(tf.constant(b"hello?>"), pad=pad).numpy() == \
            rtf.io.encode_base64(b"hello?>", pad=pad).numpy()
    assert tf.io.decode_base64(tf.constant(b"aGVsbG8_Pg")).numpy() == b"hello?>"
    for n in ("x.txt", "y.txt"):
        (tmp_path / n).write_text("1")
    pat = str(tmp_path / "*.txt")
    assert tf.io.matching_files(pat).numpy().tolist() == \
        rtf.io.matching_files(pat).numpy().tolist()
    assert tf.io.gfile.stat(str(tmp_path / "x.txt")).length == 1


def test_varlen_feature_in_a_map(tmp_path):
    path = str(tmp_path / "v.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for n in (1, 3):
            ex = tf.train.Example(features=tf.train.Features(feature={
                "v": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(n))))}))
            w.write(ex.SerializeToString())
    ds = tf.data.TFRecordDataset(path).map(
        lambda r: tf.io.parse_single_example(r, {"v": tf.io.VarLenFeature(tf.int64)})["v"])
    got = [tf.sparse.to_dense(sv).numpy().tolist() for sv in ds]
    assert got == [[0], [0, 1, 2]]
