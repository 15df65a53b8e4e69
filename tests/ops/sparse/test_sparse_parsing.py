"""tf.io VarLenFeature / SparseFeature parse to tf.SparseTensor, as in real TF."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf


def _examples(tf):
    def ex(**feats):
        f = {}
        for k, v in feats.items():
            if isinstance(v[0], bytes):
                f[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
            elif isinstance(v[0], float):
                f[k] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
            else:
                f[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=v))
        return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()
    return [ex(ids=[3, 1, 4], w=[0.5, 1.5, 2.5], tok=[b"a", b"b"], ix=[4, 0, 2],
               iy=[1, 1, 0], val=[1.0, 2.0, 3.0]),
            ex(ids=[9], w=[3.0], tok=[b"c"], ix=[1], iy=[2], val=[7.0])]


def _spec(tf):
    return {"ids": tf.io.VarLenFeature(tf.int64), "w": tf.io.VarLenFeature(tf.float32),
            "tok": tf.io.VarLenFeature(tf.string),
            "sp": tf.io.SparseFeature("ix", "val", tf.float32, 5),
            "sp2": tf.io.SparseFeature(["ix", "iy"], "val", tf.float32, [5, 3]),
            "sorted": tf.io.SparseFeature("ix", "val", tf.float32, 5, already_sorted=True)}


def _canon(d):
    out = {}
    for k, v in d.items():
        assert type(v).__name__ == "SparseTensor", (k, type(v))
        out[k] = (v.indices.numpy().tolist(), np.asarray(v.values.numpy()).tolist(),
                  v.dense_shape.numpy().tolist(), v.dtype.name, v.shape.as_list(), repr(v))
    return out


@pytest.mark.compat
@pytest.mark.parametrize("batched", [False, True])
def test_parse_sparse_features_match_tf(batched):
    rtf = real_tf()
    got = []
    for m in (rtf, torchflow):
        data = _examples(m)
        if batched:
            got.append(_canon(m.io.parse_example(m.constant(data), _spec(m))))
        else:
            got.append(_canon(m.io.parse_single_example(m.constant(data[0]), _spec(m))))
    assert got[1] == got[0]


@pytest.mark.compat
def test_parsed_sparse_tensor_works_with_tf_sparse_ops():
    rtf = real_tf()
    res = []
    for m in (rtf, torchflow):
        data = _examples(m)
        p = m.io.parse_example(m.constant(data), _spec(m))
        res.append((m.sparse.to_dense(p["ids"]).numpy().tolist(),
                    m.sparse.to_dense(p["tok"], b"-").numpy().tolist(),
                    m.sparse.reduce_sum(p["sp2"], axis=1).numpy().tolist()))
    assert res[1] == res[0]


def _ragged_spec(tf):
    rf = tf.io.RaggedFeature
    # A value key takes one row_splits_dtype in TF (the "ids" features: int64).
    return {"plain": rf(tf.int64, value_key="ids", row_splits_dtype=tf.int64),
            "tok": rf(tf.string),
            "lens": rf(tf.float32, value_key="val", partitions=[rf.RowLengths("iy")]),
            "splits": rf(tf.int64, value_key="ids", partitions=[rf.RowSplits("sp")],
                         row_splits_dtype=tf.int64),
            "limits": rf(tf.int64, value_key="ids", partitions=[rf.RowLimits("lim")],
                         row_splits_dtype=tf.int64),
            "rowids": rf(tf.float32, value_key="val", partitions=[rf.ValueRowIds("rid")]),
            "uniform": rf(tf.float32, value_key="w", partitions=[rf.UniformRowLength(1)])}


def _ragged_canon(d):
    out = {}
    for k, v in d.items():
        if type(v).__name__ == "RaggedTensor":
            out[k] = ("ragged", v.to_list(), v.dtype.name, v.ragged_rank,
                      [s.dtype.name for s in v.nested_row_splits])
        else:
            out[k] = ("dense", np.asarray(v.numpy()).tolist(), v.dtype.name)
    return out


@pytest.mark.compat
@pytest.mark.parametrize("batched", [False, True])
def test_parse_ragged_features_match_tf(batched):
    rtf = real_tf()
    got = []
    for m in (rtf, torchflow):
        rf = m.io.RaggedFeature
        assert rf.RowLengths("k").key == "k"
        data = _examples(m)
        extra = [{"sp": [0, 1, 3], "lim": [2, 3], "rid": [0, 0, 2]},
                 {"sp": [0, 0, 1], "lim": [0, 1], "rid": [0]}]
        data = [_add(m, d, e) for d, e in zip(data, extra)]
        if batched:
            got.append(_ragged_canon(m.io.parse_example(m.constant(data), _ragged_spec(m))))
        else:
            got.append(_ragged_canon(m.io.parse_single_example(m.constant(data[0]),
                                                                _ragged_spec(m))))
    assert got[1] == got[0]


def _add(tf, serialized, extra):
    ex = tf.train.Example.FromString(serialized)
    for k, v in extra.items():
        ex.features.feature[k].int64_list.value.extend(v)
    return ex.SerializeToString()
