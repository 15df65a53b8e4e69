"""A Functional model's config from real tf.keras whose layers take tensors as
keyword arguments (``MultiHeadAttention(query, value=...)``): torchflow rebuilds
it and, with the same weights, predicts what tf.keras predicts."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat


def test_config_with_tensor_keyword_arguments_rebuilds():
    rtf = real_tf()

    def build(m):
        q = m.keras.Input((4, 6))
        v = m.keras.Input((5, 6))
        h = m.keras.layers.Dense(6)(v)
        a = m.keras.layers.MultiHeadAttention(num_heads=2, key_dim=3)(q, value=h)
        return m.keras.Model([q, v], m.keras.layers.GlobalAveragePooling1D()(a))

    theirs = build(rtf)
    config = theirs.get_config()
    for lc in config["layers"]:  # keys tf-keras 2.21 adds that TF 2.4's layer does not take
        if lc["class_name"] == "MultiHeadAttention":
            for k in ("query_shape", "key_shape", "value_shape", "softmax_robust_masking"):
                lc["config"].pop(k, None)
    ours = tf.keras.Model.from_config(config)
    assert [type(x).__name__ for x in ours.layers] == [type(x).__name__ for x in theirs.layers]
    ours.set_weights(theirs.get_weights())
    rng = np.random.default_rng(0)
    xq = rng.standard_normal((2, 4, 6)).astype(np.float32)
    xv = rng.standard_normal((2, 5, 6)).astype(np.float32)
    np.testing.assert_allclose(ours.predict([xq, xv], verbose=0),
                               theirs.predict([xq, xv], verbose=0), rtol=1e-5, atol=1e-5)
