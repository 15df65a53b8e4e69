"""Re-saving loaded functions that capture lookup tables, constants and variables:
``tf.saved_model.save(tf.saved_model.load(p), p2)`` with a SavedModel real TF (2.21)
wrote; real TF (its TF2 loader, its signatures and a TF1 Session on the MetaGraph)
and torchflow load ``p2`` and compute what the original computed.

A restored table is written back as TF writes a resource: a ``SavedResource`` node
with its ``_create_resource``/``_initialize``/``_destroy_resource`` functions; a
captured tensor (a table's default value) as a ``SavedConstant``; the signature
graph creates each table and the init op initializes it.
"""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.core.proto import tf_saved_model_pb2
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

WORDS = ["a", "c", "z", "b"]


def _tf_module(rtf, vocab_file=None):
    class M(rtf.Module):
        def __init__(self):
            super().__init__()
            self.v = rtf.Variable(2.0)
            self.table = rtf.lookup.StaticHashTable(rtf.lookup.KeyValueTensorInitializer(
                rtf.constant(["a", "b", "c"]), rtf.constant([1, 2, 3], rtf.int64)), -1)
            if vocab_file:
                self.vocab = rtf.lookup.StaticVocabularyTable(
                    rtf.lookup.TextFileInitializer(
                        vocab_file, rtf.string, rtf.lookup.TextFileIndex.WHOLE_LINE,
                        rtf.int64, rtf.lookup.TextFileIndex.LINE_NUMBER), num_oov_buckets=2)

        @rtf.function(input_signature=[rtf.TensorSpec([None], rtf.string)])
        def f(self, s):
            out = rtf.cast(self.table.lookup(s), rtf.float32) * self.v
            if vocab_file:
                out = out + 10.0 * rtf.cast(self.vocab.lookup(s), rtf.float32)
            return out

    return M()


def _session_serving(rtf, path, x):
    v1 = rtf.compat.v1
    with v1.Graph().as_default(), v1.Session() as sess:
        mg = v1.saved_model.loader.load(sess, ["serve"], path)
        sd = mg.signature_def["serving_default"]
        feed = {next(iter(sd.inputs.values())).name: x}
        return sess.run({k: v.name for k, v in sd.outputs.items()}, feed)


@pytest.mark.parametrize("with_vocab", [False, True])
def test_resaved_tables_serve_in_tf_and_torchflow(tmp_path, with_vocab):
    rtf = real_tf()
    vocab = None
    if with_vocab:
        vocab = str(tmp_path / "vocab.txt")
        with open(vocab, "w") as f:
            f.write("c\na\nq\n")
    ref = _tf_module(rtf, vocab)
    src, dst = str(tmp_path / "src"), str(tmp_path / "dst")
    rtf.saved_model.save(ref, src)
    ref.v.assign(3.0)  # the re-save keeps the value set after loading
    expected = ref.f(rtf.constant(WORDS)).numpy()

    loaded = tf.saved_model.load(src)
    loaded.v.assign(3.0)
    np.testing.assert_array_equal(np.asarray(loaded.f(tf.constant(WORDS))), expected)
    tf.saved_model.save(loaded, dst)

    sm = tf_saved_model_pb2.SavedModel()
    with open(f"{dst}/saved_model.pb", "rb") as f:
        sm.ParseFromString(f.read())
    kinds = [n.WhichOneof("kind") for n in sm.meta_graphs[0].object_graph_def.nodes]
    assert kinds.count("resource") == (2 if with_vocab else 1)
    assert "constant" in kinds

    theirs = rtf.saved_model.load(dst)
    np.testing.assert_array_equal(theirs.f(rtf.constant(WORDS)).numpy(), expected)
    served = theirs.signatures["serving_default"](s=rtf.constant(WORDS))
    np.testing.assert_array_equal(served["output_0"].numpy(), expected)
    np.testing.assert_array_equal(_session_serving(rtf, dst, WORDS)["output_0"], expected)
    again = tf.saved_model.load(dst)
    np.testing.assert_array_equal(np.asarray(again.f(tf.constant(WORDS))), expected)
    # ... and once more, from torchflow's own re-save.
    tf.saved_model.save(again, str(tmp_path / "dst2"))
    third = rtf.saved_model.load(str(tmp_path / "dst2"))
    np.testing.assert_array_equal(third.f(rtf.constant(WORDS)).numpy(), expected)
