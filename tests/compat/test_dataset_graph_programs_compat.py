"""TF-guide pipelines with window/flat_map and list_files/interleave, sent as graphs (issue 18).

Each program builds its pipeline in torchflow, writes it as a TF graph
(``_as_serialized_graph()``), and runs that graph twice: in torchflow
(``dataset_from_graph``) and in real TF (``tf.raw_ops.DatasetFromGraph``); real TF also
runs its own pipeline. The time-series program (the windowing idiom of TF's "Time
series forecasting" tutorial) trains the same model on each and compares the losses;
the text program (the "Load text" tutorial's files read by ``interleave``) compares the
elements.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.data import dataset_graph, dataset_graph_read
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

_SERIES = np.sin(np.arange(40, dtype=np.float32) * 0.3) + np.arange(40, dtype=np.float32) * 0.01
_WIDTH = 5


def _windows(m):
    ds = m.data.Dataset.from_tensor_slices(_SERIES).window(_WIDTH + 1, shift=1,
                                                          drop_remainder=True)
    ds = ds.flat_map(lambda w: w.batch(_WIDTH + 1))
    return ds.map(lambda w: (w[:-1], w[-1:])).batch(8)


def _train(m, ds) -> list:
    model = m.keras.Sequential([
        m.keras.layers.Dense(4, activation="tanh", input_shape=(_WIDTH,),
                             kernel_initializer=m.keras.initializers.Constant(0.1),
                             bias_initializer="zeros"),
        m.keras.layers.Dense(1, kernel_initializer=m.keras.initializers.Constant(0.2)),
    ])
    model.compile(optimizer=m.keras.optimizers.SGD(0.05), loss="mse")
    return model.fit(ds, epochs=3, verbose=0).history["loss"]


def _tf_spec(rtf, spec):
    if isinstance(spec, tuple):
        return tuple(_tf_spec(rtf, s) for s in spec)
    return rtf.TensorSpec(spec.shape.as_list(), rtf.as_dtype(spec.dtype.name))


def _graph_in_tf(rtf, ds):
    data = ds._as_serialized_graph().numpy()
    variant = rtf.raw_ops.DatasetFromGraph(graph_def=data)
    return rtf.data.experimental.from_variant(variant, structure=_tf_spec(rtf, ds.element_spec))


def test_time_series_windows_train_the_same():
    rtf = real_tf()
    ds = _windows(tf)
    gd = dataset_graph.dataset_graph_def(ds)
    assert {"WindowDataset", "FlatMapDataset"} <= {n.op for n in gd.node}
    ours = _train(tf, dataset_graph_read.dataset_from_graph(ds._as_serialized_graph().numpy(),
                                                            ds.element_spec))
    theirs_from_graph = _train(rtf, _graph_in_tf(rtf, ds))
    theirs = _train(rtf, _windows(rtf))
    np.testing.assert_allclose(theirs_from_graph, theirs, rtol=1e-6)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)


def _text_files(d) -> str:
    for k, lines in enumerate([["id,text", "1,hello world", "2,good day"],
                               ["id,text", "3,a b c"], ["id,text", "4,x", "5,yy zz", "6,q"]]):
        with open(os.path.join(d, f"part-{k}.csv"), "w") as f:
            f.write("\n".join(lines) + "\n")
    return os.path.join(d, "part-*.csv")


def _text_pipeline(m, pattern):
    files = m.data.Dataset.list_files(pattern, shuffle=False)
    lines = files.interleave(lambda f: m.data.TextLineDataset(f).skip(1), cycle_length=2,
                             block_length=1)
    return m.data.Dataset.zip((lines, lines.map(m.strings.length))).batch(2)


def test_text_files_interleaved_the_same(tmp_path):
    rtf = real_tf()
    pattern = _text_files(tmp_path)
    ds = _text_pipeline(tf, pattern)
    ops = {n.op for n in dataset_graph.dataset_graph_def(ds).node}
    assert "InterleaveDataset" in ops

    def rows(d):
        return [(a.numpy().tolist(), b.numpy().tolist()) for a, b in d]

    want = rows(_text_pipeline(rtf, pattern))
    assert rows(_graph_in_tf(rtf, ds)) == want
    assert rows(dataset_graph_read.dataset_from_graph(ds._as_serialized_graph().numpy(),
                                                      ds.element_spec)) == want
    assert rows(ds) == want
