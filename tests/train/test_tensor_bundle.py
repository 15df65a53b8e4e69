"""TF's tensor-bundle format (train/tensor_bundle.py, train/sstable.py) against real TF.

References: files written by real TensorFlow's SaveV2 op (read here and compared
byte for byte with ours), real TF's CheckpointReader reading ours, and the
errors real TF raises on the same damaged files.
"""

import os

import ml_dtypes
import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf
from torchflow._src.train import sstable
from torchflow._src.train import tensor_bundle as tb

VALUES = {
    "a/kernel": np.arange(6, dtype=np.float32).reshape(2, 3),
    "b": np.array(3, np.int64),
    "c": np.array([b"hello", b"", b"x" * 300], dtype=object),
    "d": np.zeros((0, 3), np.float64),
    "e": np.array([1 + 2j], np.complex64),
    "f": np.array([True, False]),
    "g": np.arange(4, dtype=np.uint16),
    "h": np.array([1.5, -2.25], ml_dtypes.bfloat16),
    "i": np.array([1.5], np.float16),
    "j": np.array([2**63 + 7], np.uint64),
    "k": np.array([-3], np.int8),
    "l": np.array([3], np.uint8),
    "m": np.array([[3]], np.int16),
    "n": np.array([3], np.uint32),
    "o": np.array([1j], np.complex128),
    "p": np.array(b"scalar", dtype=object),
    "q": np.array([[1, 2]], np.int32),
}


def _tf_save(prefix, values):
    rtf = real_tf()
    rtf.raw_ops.SaveV2(prefix=prefix, tensor_names=list(values),
                       shape_and_slices=[""] * len(values),
                       tensors=[rtf.constant(v) for v in values.values()])


def _ours_save(prefix, values):
    w = tb.BundleWriter(prefix)
    for k, v in values.items():
        w.add(k, v)
    w.finish()


def test_reads_tf_bundle_and_writes_identical_bytes(tmp_path):
    tf_prefix, our_prefix = str(tmp_path / "tf"), str(tmp_path / "ours")
    _tf_save(tf_prefix, VALUES)
    r = tb.BundleReader(tf_prefix)
    assert sorted(r.entries) == sorted(VALUES)
    for k, v in VALUES.items():
        got = r.lookup(k)
        assert got.shape == v.shape, k
        if v.dtype.kind != "O":
            assert got.dtype == v.dtype, k
        np.testing.assert_array_equal(got, v)
    _ours_save(our_prefix, VALUES)
    for suffix in (".index", ".data-00000-of-00001"):
        with open(tf_prefix + suffix, "rb") as a, open(our_prefix + suffix, "rb") as b:
            assert a.read() == b.read(), suffix
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["tf.index", "tf.data-00000-of-00001", "ours.index", "ours.data-00000-of-00001"])


def test_tf_reads_ours_many_blocks(tmp_path):
    # 3,000 keys of 200 bytes: many restart points; big tensors: several data blocks.
    values = {f"var_{i:05d}/{'x' * 20}": np.full((50,), i, np.float32) for i in range(3000)}
    values["big"] = np.arange(300_000, dtype=np.float64)
    prefix = str(tmp_path / "many")
    _ours_save(prefix, values)
    reader = real_tf().train.load_checkpoint(prefix)
    shapes = reader.get_variable_to_shape_map()
    assert shapes == {k: list(v.shape) for k, v in values.items()}
    for k in ("var_00000/" + "x" * 20, "var_02999/" + "x" * 20, "big"):
        np.testing.assert_array_equal(reader.get_tensor(k), values[k])
    r = tb.BundleReader(prefix)
    np.testing.assert_array_equal(r.lookup("var_01234/" + "x" * 20), values["var_01234/" + "x" * 20])


def test_sstable_crc_mask_round_trip():
    for crc in (0, 1, 0xFFFFFFFF, 0x12345678):
        assert sstable.unmask(sstable.mask(crc)) == crc
    # LevelDB's published CRC-32C check value: crc32c("123456789") == 0xE3069283
    assert sstable.crc32c(b"123456789") == 0xE3069283


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what the test compares
        return type(e).__name__, getattr(e, "error_code", None), str(e)
    return None


def _damage(tmp_path, how):
    prefix = str(tmp_path / how)
    _tf_save(prefix, {"v": np.arange(100, dtype=np.float32), "s": np.array([b"ab", b"c"], object)})
    index, data = prefix + ".index", prefix + ".data-00000-of-00001"
    if how == "truncated_index":
        with open(index, "r+b") as f:
            f.truncate(os.path.getsize(index) - 10)
    elif how == "short_index":
        with open(index, "wb") as f:
            f.write(b"abc")
    elif how == "bad_magic":
        with open(index, "r+b") as f:
            f.seek(-1, 2)
            f.write(b"\x00")
    elif how == "flipped_index_byte":
        with open(index, "r+b") as f:
            f.seek(5)
            b = f.read(1)
            f.seek(5)
            f.write(bytes([b[0] ^ 0xFF]))
    elif how == "flipped_data_byte":
        with open(data, "r+b") as f:
            f.seek(40)
            f.write(b"\xff\xff")
    elif how == "truncated_data":
        with open(data, "r+b") as f:
            f.truncate(100)
    elif how == "missing_data":
        os.remove(data)
    return prefix


DAMAGE = ["truncated_index", "short_index", "bad_magic", "flipped_index_byte",
          "flipped_data_byte", "truncated_data", "missing_data"]


@pytest.mark.parametrize("how", DAMAGE)
def test_damaged_files_raise_tf_errors(tmp_path, how):
    prefix = _damage(tmp_path, how)
    rtf = real_tf()

    def read(module):
        def fn():
            r = module.train.load_checkpoint(prefix)
            r.get_tensor("v")
            r.get_tensor("s")
        return fn

    expected = _error(read(rtf))
    got = _error(read(tf))
    # TF's Python reader reports these as OpError (code UNKNOWN) with the cause in the text,
    # a truncated data file (OutOfRange) as IndexError.
    assert got[:2] == expected[:2], (how, got, expected)
    assert got[2] == expected[2], (how, got, expected)


@pytest.mark.parametrize("how", ["flipped_data_byte", "truncated_data"])
def test_bundle_reader_raises_restore_op_errors(tmp_path, how):
    # What TF's RestoreV2 kernel raises for the same bytes.
    prefix = _damage(tmp_path, how)
    rtf = real_tf()
    with pytest.raises(rtf.errors.OpError) as theirs:
        rtf.raw_ops.RestoreV2(prefix=prefix, tensor_names=["v"], shape_and_slices=[""],
                              dtypes=[rtf.float32])
    with pytest.raises(tf.errors.OpError) as ours:
        tb.BundleReader(prefix).lookup("v")
    assert type(ours.value).__name__ == type(theirs.value).__name__
    assert ours.value.message in theirs.value.message


def test_missing_prefix_is_not_found(tmp_path):
    prefix = str(tmp_path / "nothing")
    with pytest.raises(tf.errors.NotFoundError):
        tb.BundleReader(prefix)
    expected = _error(lambda: real_tf().train.load_checkpoint(prefix))
    assert expected[0] == "NotFoundError"
    assert _error(lambda: tf.train.load_checkpoint(prefix)) == expected


def _rewrite_header(prefix, **version):
    with open(prefix + ".index", "rb") as f:
        items = [(k, bytes(v)) for k, v in sstable.read_table(f.read())]
    from torchflow._src.core.proto import tf_tensor_bundle_pb2 as pb

    header = pb.BundleHeaderProto.FromString(items[0][1])
    for k, v in version.items():
        if k == "bad_consumers":
            header.version.bad_consumers.extend(v)
        else:
            setattr(header.version, k, v)
    items[0] = (b"", header.SerializeToString())
    with open(prefix + ".index", "wb") as f:
        f.write(sstable.build_table(items))


@pytest.mark.parametrize("version", [{"min_consumer": 5}, {"bad_consumers": [1]}])
def test_newer_format_version(tmp_path, version):
    prefix = str(tmp_path / "v")
    _ours_save(prefix, {"v": np.ones(3, np.float32)})
    _rewrite_header(prefix, **version)
    rtf = real_tf()
    # The bundle reader's status is InvalidArgument (as TF's BundleReader's) ...
    with pytest.raises(tf.errors.InvalidArgumentError):
        tb.BundleReader(prefix)
    # ... which TF's Python reader reports as a ValueError, same text.
    expected = _error(lambda: rtf.train.load_checkpoint(prefix))
    got = _error(lambda: tf.train.load_checkpoint(prefix))
    # TF names its own version in the text: 2.4.0 for torchflow (TF 2.4's words).
    assert got == expected[:2] + (expected[2].replace(rtf.__version__, "2.4.0"),)


def test_duplicate_key_and_unsaveable_dtype(tmp_path):
    w = tb.BundleWriter(str(tmp_path / "x"))
    w.add("a", np.ones(2))
    with pytest.raises(tf.errors.InvalidArgumentError):
        w.add("a", np.ones(2))
    with pytest.raises(tf.errors.InvalidArgumentError):
        w.add("b", np.array([(1, 2)], dtype=[("x", "i4"), ("y", "i4")]))
    w.abort()
    assert os.listdir(tmp_path) == []


def test_unfinished_writer_leaves_nothing_at_prefix(tmp_path):
    prefix = str(tmp_path / "p")
    w = tb.BundleWriter(prefix)
    w.add("a", np.ones(1000))
    assert not tb.exists(prefix)
    assert [n for n in os.listdir(tmp_path) if ".tempstate" in n]
    w.finish()
    assert tb.exists(prefix)
    assert sorted(os.listdir(tmp_path)) == ["p.data-00000-of-00001", "p.index"]


def test_partitioned_tensor_both_ways(tmp_path):
    rtf = real_tf()
    full = np.arange(300 * 3, dtype=np.float32).reshape(300, 3)
    tf_prefix, our_prefix = str(tmp_path / "tf"), str(tmp_path / "ours")
    rtf.raw_ops.SaveV2(prefix=tf_prefix, tensor_names=["part/v", "part/v", "part/v", "w"],
                       shape_and_slices=["300 3 0,100:-", "300 3 100,150:-", "300 3 250,50:-",
                                         "4 0,4"],
                       tensors=[rtf.constant(full[:100]), rtf.constant(full[100:250]),
                                rtf.constant(full[250:]), rtf.constant(np.ones(4, np.float32))])
    r = tb.BundleReader(tf_prefix)
    assert sorted(r.entries) == ["part/v", "w"]
    np.testing.assert_array_equal(r.lookup("part/v"), full)
    w = tb.BundleWriter(our_prefix)
    w.add_slices("part/v", [300, 3], [(0, full[:100]), (100, full[100:250]), (250, full[250:])])
    w.add_slices("w", [4], [(0, np.ones(4, np.float32))])
    w.finish()
    for suffix in (".index", ".data-00000-of-00001"):
        with open(tf_prefix + suffix, "rb") as a, open(our_prefix + suffix, "rb") as b:
            assert a.read() == b.read(), suffix
    got = rtf.raw_ops.RestoreV2(prefix=our_prefix, tensor_names=["part/v"],
                                shape_and_slices=["300 3 100,150:-"], dtypes=[rtf.float32])
    np.testing.assert_array_equal(got[0].numpy(), full[100:250])
    np.testing.assert_array_equal(rtf.train.load_checkpoint(our_prefix).get_tensor("part/v"), full)


def test_slice_key_is_tfs_ordered_code():
    # bytes TF's SaveV2 writes for "v", slice 0,100:- of [300, 3], and -1/large bounds
    assert tb.slice_key("v", [(0, 100), (0, -1)]) == b"\x00v\x00\x01\x01\x02\x80\xc0d\x80\x7f"
    assert tb.slice_key("v", [(100, 200), (0, -1)]) == b"\x00v\x00\x01\x01\x02\xc0d\xc0\xc8\x80\x7f"
