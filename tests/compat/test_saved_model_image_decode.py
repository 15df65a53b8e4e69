"""Image decoding in SavedModels (a serving function that takes encoded images), both
ways with real TF.

``tf.io.decode_png``/``decode_jpeg``/``decode_image`` of a string argument, alone and
under ``tf.map_fn`` over a batch of encoded images, resized and scaled. Saved by
torchflow, the SavedModel serves real TF's values in real TF and in torchflow; saved
by real TF, it serves them in torchflow. The images are encoded by real TF.
"""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def _module(m):
    one = m.TensorSpec([], m.string)
    batch = m.TensorSpec([None], m.string)

    class M(m.Module):
        @m.function(input_signature=[one])
        def png(self, s):
            return m.io.decode_png(s, channels=3)

        @m.function(input_signature=[one])
        def jpeg_gray(self, s):
            # (TF's default IDCT is the fast one; torchflow's decoder is the accurate.)
            return m.cast(m.io.decode_jpeg(s, channels=1, dct_method="INTEGER_ACCURATE"),
                          m.int32) + 1

        @m.function(input_signature=[one])
        def image_float(self, s):
            return m.io.decode_image(s, channels=3, dtype=m.float32, expand_animations=False)

        @m.function(input_signature=[batch])
        def batch_resized(self, raw):
            def decode(s):
                img = m.cast(m.io.decode_png(s, channels=3), m.float32) / 255.0
                return m.image.resize(img, [4, 4])
            return m.map_fn(decode, raw, fn_output_signature=m.float32)

    return M()


def _images(rtf):
    rng = np.random.default_rng(7)
    pngs = [rtf.io.encode_png(rng.integers(0, 255, (h, w, 3), dtype=np.uint8)).numpy()
            for h, w in ((5, 6), (3, 8), (7, 7))]
    jpeg = rtf.io.encode_jpeg(rng.integers(0, 255, (6, 4, 3), dtype=np.uint8)).numpy()
    return pngs, jpeg


def _run(lib, mod, pngs, jpeg) -> list:
    c = lib.constant
    out = [mod.png(c(pngs[0])), mod.png(c(pngs[1])), mod.jpeg_gray(c(jpeg)),
           mod.image_float(c(pngs[2])),
           mod.batch_resized(c(np.array(pngs, dtype=object))),
           mod.batch_resized(c(np.array(pngs[1:2], dtype=object)))]
    return [np.asarray(t) for t in out]


@pytest.mark.parametrize("saver", ["torchflow", "tf"])
def test_saved_decoders_serve_tf_values(saver, tmp_path):
    rtf = real_tf()
    pngs, jpeg = _images(rtf)
    want = _run(rtf, _module(rtf), pngs, jpeg)
    m = tf if saver == "torchflow" else rtf
    m.saved_model.save(_module(m), str(tmp_path))
    for lib in (rtf, tf) if m is tf else (tf,):
        got = _run(lib, lib.saved_model.load(str(tmp_path)), pngs, jpeg)
        assert len(got) == len(want)
        for k, (g, w) in enumerate(zip(got, want)):
            assert g.dtype == w.dtype and g.shape == w.shape
            # JPEG (output 2): libjpeg builds may round the accurate IDCT one level
            # apart (PIL's here, TF's own there); PNG is lossless: exact.
            tol = 1.0 if k == 2 else 1e-6
            np.testing.assert_allclose(g, w, rtol=0, atol=tol)


def test_a_decoder_in_a_trace_without_values_has_tfs_static_shape():
    """The stand-in string decodes to a stand-in image in the dry trace; the graph's
    output has TF's shape (channels known, sizes unknown), not the stand-in's."""
    f = tf.function(lambda s: tf.io.decode_png(s, channels=3),
                    input_signature=[tf.TensorSpec([], tf.string)])
    rf = real_tf().function(lambda s: real_tf().io.decode_png(s, channels=3),
                            input_signature=[real_tf().TensorSpec([], real_tf().string)])
    want = rf.get_concrete_function().structured_outputs.shape.as_list()
    assert f.get_concrete_function().structured_outputs.shape.as_list() == want
