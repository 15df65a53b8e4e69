"""``tf.io.parse_example`` in SavedModels (a serving function that takes serialized
``tf.train.Example``s), both ways with real TF.

Dense features with and without defaults (float, int64, string) and a
``VarLenFeature``. Saved by torchflow (one ``ParseExampleV2`` node), the SavedModel
serves real TF's values in real TF and in torchflow; saved by real TF, it serves them
in torchflow. The Examples are built by real TF.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _module(m):
    io = m.io
    features = {
        "x": io.FixedLenFeature([3], m.float32),
        "id": io.FixedLenFeature([], m.int64, default_value=-1),
        "tag": io.FixedLenFeature([], m.string, default_value="none"),
        "grid": io.FixedLenFeature([2, 2], m.int64, default_value=[[1, 2], [3, 4]]),
        "tokens": io.VarLenFeature(m.int64),
    }

    class M(m.Module):
        def __init__(self):
            super().__init__()
            self.w = m.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))

        @m.function(input_signature=[m.TensorSpec([None], m.string)])
        def parse(self, serialized):
            f = io.parse_example(serialized, features)
            return {"y": m.matmul(f["x"], self.w), "id": f["id"], "tag": f["tag"],
                    "grid": f["grid"], "tokens": m.sparse.to_dense(f["tokens"], -7)}

    return M()


def _examples(rtf):
    train = rtf.train

    def ex(i, with_optional):
        feats = {"x": train.Feature(float_list=train.FloatList(value=[i, 1.0, -2.0])),
                 "tokens": train.Feature(int64_list=train.Int64List(value=list(range(i))))}
        if with_optional:
            feats["id"] = train.Feature(int64_list=train.Int64List(value=[10 * i]))
            feats["tag"] = train.Feature(bytes_list=train.BytesList(value=[b"t%d" % i]))
            feats["grid"] = train.Feature(int64_list=train.Int64List(value=[i, i, 0, 1]))
        return train.Example(features=train.Features(feature=feats)).SerializeToString()

    return [np.array([ex(1, True), ex(3, False), ex(0, True)], dtype=object),
            np.array([ex(2, False)], dtype=object)]


def _run(lib, mod, batches) -> list:
    out = []
    for batch in batches:
        got = mod.parse(lib.constant(batch))
        out += [np.asarray(got[k]) for k in sorted(got)]
    return out


@pytest.mark.parametrize("saver", ["torchflow", "tf"])
def test_saved_parse_example_serves_tf_values(saver, tmp_path):
    rtf = real_tf()
    batches = _examples(rtf)
    want = _run(rtf, _module(rtf), batches)
    m = tf if saver == "torchflow" else rtf
    mod = _module(m)
    if m is tf:
        ops = [op.type for op in mod.parse.get_concrete_function().graph.get_operations()]
        assert "ParseExampleV2" in ops
    m.saved_model.save(mod, str(tmp_path))
    for lib in (rtf, tf) if m is tf else (tf,):
        got = _run(lib, lib.saved_model.load(str(tmp_path)), batches)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            if g.dtype == object:
                assert g.tolist() == w.tolist()
            else:
                np.testing.assert_allclose(g, w, rtol=1e-6)
