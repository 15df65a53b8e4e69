"""tf.data.Options and auto-sharding between workers."""

from __future__ import annotations

import pytest

import torchflow as tf
from torchflow._src.data.distribute import auto_shard_dataset

Policy = tf.data.experimental.AutoShardPolicy


def test_options_defaults_set_and_merge():
    o = tf.data.Options()
    assert o.experimental_deterministic is None
    assert o.experimental_distribute.auto_shard_policy == Policy.AUTO
    o.experimental_deterministic = False
    o.experimental_threading.private_threadpool_size = 2
    o.experimental_optimization.map_parallelization = True
    ds = tf.data.Dataset.range(3).with_options(o).map(lambda x: x)
    got = ds.options()
    assert got.experimental_deterministic is False
    assert got.experimental_threading.private_threadpool_size == 2
    p = tf.data.Options()
    p.experimental_threading.max_intra_op_parallelism = 1
    merged = ds.with_options(p).options()
    assert merged.experimental_threading.private_threadpool_size == 2
    assert merged.experimental_threading.max_intra_op_parallelism == 1
    assert merged.deterministic is False  # the newer spelling reads the same option
    with pytest.raises(AttributeError):
        o.no_such_option = 1


def test_policy_values_match_tf():
    assert [Policy.OFF, Policy.AUTO, Policy.FILE, Policy.DATA] == [-1, 0, 1, 2]


def _files(tmp_path, n):
    paths = []
    for i in range(n):
        p = tmp_path / f"f{i}.txt"
        p.write_text("".join(f"{i}-{j}\n" for j in range(3)))
        paths.append(str(p))
    return paths


def _vals(ds):
    return [x.numpy() for x in ds]


def test_file_policy_splits_files(tmp_path):
    ds = tf.data.TextLineDataset(_files(tmp_path, 4)).map(lambda x: x)
    w0 = _vals(auto_shard_dataset(ds, 2, 0, Policy.FILE))
    w1 = _vals(auto_shard_dataset(ds, 2, 1, Policy.FILE))
    assert w0 == [b"0-0", b"0-1", b"0-2", b"2-0", b"2-1", b"2-2"]
    assert w1 == [b"1-0", b"1-1", b"1-2", b"3-0", b"3-1", b"3-2"]
    # AUTO picks FILE for file-based pipelines.
    assert _vals(auto_shard_dataset(ds, 2, 1, Policy.AUTO)) == w1


def test_file_policy_with_too_few_files_is_an_error(tmp_path):
    ds = tf.data.TextLineDataset(_files(tmp_path, 2))
    with pytest.raises(tf.errors.InvalidArgumentError, match="no data"):
        auto_shard_dataset(ds, 3, 0, Policy.FILE)


def test_data_policy_and_auto_without_files():
    ds = tf.data.Dataset.range(10).batch(2)
    got = [x.numpy().tolist() for x in auto_shard_dataset(ds, 2, 1, Policy.DATA)]
    assert got == [[2, 3], [6, 7]]
    assert [x.numpy().tolist() for x in auto_shard_dataset(ds, 2, 1)] == got
    with pytest.raises(tf.errors.InvalidArgumentError, match="no data"):
        auto_shard_dataset(tf.data.Dataset.range(2), 3, 0, Policy.DATA)
    with pytest.raises(tf.errors.NotFoundError):
        auto_shard_dataset(ds, 2, 0, Policy.FILE)
    assert auto_shard_dataset(ds, 2, 0, Policy.OFF) is ds


def test_policy_from_options():
    o = tf.data.Options()
    o.experimental_distribute.auto_shard_policy = Policy.OFF
    ds = tf.data.Dataset.range(4).with_options(o)
    assert len(_vals(auto_shard_dataset(ds, 2, 0))) == 4
