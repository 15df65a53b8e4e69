"""tf.data with SparseTensor elements against real TF: element_specs and values of
from_tensor_slices, batch, unbatch, map, nested elements, dense_to_sparse_batch and
parsed VarLenFeatures from TFRecords."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _st(tf):
    return tf.sparse.SparseTensor([[0, 0], [1, 2], [2, 1], [2, 3]], [1, 2, 3, 4], [3, 4])


def _canon(x):
    if isinstance(x, dict):
        return {k: _canon(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(_canon(v) for v in x)
    if hasattr(x, "dense_shape"):
        return ("sparse", x.indices.numpy().tolist(), np.asarray(x.values.numpy()).tolist(),
                x.dense_shape.numpy().tolist(), x.dtype.name)
    return np.asarray(x.numpy()).tolist()


PIPELINES = {
    "slices": lambda tf: tf.data.Dataset.from_tensor_slices(_st(tf)),
    "slices_batch": lambda tf: tf.data.Dataset.from_tensor_slices(_st(tf)).batch(2),
    "slices_batch_drop": lambda tf: tf.data.Dataset.from_tensor_slices(_st(tf)).batch(
        2, drop_remainder=True),
    "batch_unbatch": lambda tf: tf.data.Dataset.from_tensor_slices(_st(tf)).batch(2).unbatch(),
    "from_tensors": lambda tf: tf.data.Dataset.from_tensors(_st(tf)),
    "dict": lambda tf: tf.data.Dataset.from_tensor_slices(
        {"a": _st(tf), "b": tf.constant([1, 2, 3])}).batch(2),
    "map_const_shape": lambda tf: tf.data.Dataset.range(3).map(
        lambda i: tf.sparse.SparseTensor([[0]], [i], [3])).batch(2),
    "map_to_dense": lambda tf: tf.data.Dataset.from_tensor_slices(_st(tf)).map(
        lambda s: tf.sparse.to_dense(s) * 2),
    "string_values": lambda tf: tf.data.Dataset.from_tensor_slices(tf.sparse.SparseTensor(
        [[0, 1], [2, 0]], [b"a", b"b"], [3, 2])).batch(3),
    "dense_to_sparse_batch": lambda tf: tf.data.Dataset.range(1, 5).map(
        lambda x: tf.fill([x], x)).apply(tf.data.experimental.dense_to_sparse_batch(2, [5])),
    "dense_to_sparse_batch_unknown": lambda tf: tf.data.Dataset.range(1, 4).map(
        lambda x: tf.fill([x, 2], x)).apply(
        tf.data.experimental.dense_to_sparse_batch(2, tf.TensorShape([None, 2]))),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_sparse_dataset_matches_tf(name):
    rtf = real_tf()
    out = []
    for m in (rtf, torchflow):
        ds = PIPELINES[name](m)
        out.append((repr(ds.element_spec), [_canon(e) for e in ds]))
    assert out[1][1] == out[0][1]
    assert out[1][0] == out[0][0]


def test_varlen_feature_from_tfrecords_in_a_pipeline(tmp_path):
    rtf = real_tf()
    path = str(tmp_path / "v.tfrecord")
    with rtf.io.TFRecordWriter(path) as w:
        for n in (1, 3, 2):
            ex = rtf.train.Example(features=rtf.train.Features(feature={
                "v": rtf.train.Feature(int64_list=rtf.train.Int64List(value=list(range(n)))),
                "y": rtf.train.Feature(float_list=rtf.train.FloatList(value=[float(n)]))}))
            w.write(ex.SerializeToString())
    out = []
    for m in (rtf, torchflow):
        feats = {"v": m.io.VarLenFeature(m.int64), "y": m.io.FixedLenFeature([], m.float32)}
        ds = m.data.TFRecordDataset(path).batch(2).map(lambda r: m.io.parse_example(r, feats))
        out.append([_canon(e) for e in ds])
    assert out[1] == out[0]
