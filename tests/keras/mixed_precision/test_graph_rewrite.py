"""tf.train.experimental.enable/disable_mixed_precision_graph_rewrite (TF 2.4).

TF 2.21 only keeps the v1 endpoint, which no longer wraps Keras optimizers, so the
wrapping is checked against TF 2.4's documented behaviour and the training it gives
against real TF's equivalent: on CPU TF 2.4's rewrite leaves graphs in float32, so a
model fitted with the wrapped optimizer matches real TF fitting with
``LossScaleOptimizer(SGD)``. The error texts are compared with TF's v1 endpoint
(the same function in 2.4 and 2.21)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import torchflow
from torchflow._src.testing import real_tf

tx = torchflow.train.experimental


def test_wrapping_and_option_as_tf24(caplog):
    opt = tx.enable_mixed_precision_graph_rewrite(torchflow.keras.optimizers.SGD(0.1))
    try:
        assert isinstance(opt, torchflow.keras.mixed_precision.experimental.LossScaleOptimizer)
        assert opt.dynamic and float(opt.loss_scale) == 2.0 ** 15
        assert torchflow.config.optimizer.get_experimental_options()["auto_mixed_precision"]
        with pytest.raises(ValueError, match="must not already be an instance of a "
                                             "LossScaleOptimizer"):
            tx.enable_mixed_precision_graph_rewrite(opt)
        fixed = tx.enable_mixed_precision_graph_rewrite(torchflow.keras.optimizers.Adam(),
                                                        loss_scale=128)
        assert not fixed.dynamic and float(fixed.loss_scale) == 128.0
    finally:
        tx.disable_mixed_precision_graph_rewrite()
    assert not torchflow.config.optimizer.get_experimental_options()["auto_mixed_precision"]
    with caplog.at_level(logging.WARNING):
        tx.disable_mixed_precision_graph_rewrite()
    assert "called when mixed precision is already disabled" in caplog.text


@pytest.mark.compat
def test_errors_are_tfs():
    rtf = real_tf()
    enable = rtf.compat.v1.mixed_precision.enable_mixed_precision_graph_rewrite
    for bad in ("sgd", 3):
        with pytest.raises(ValueError) as want:
            enable(bad)
        with pytest.raises(ValueError) as got:
            tx.enable_mixed_precision_graph_rewrite(bad)
        assert str(got.value) == str(want.value)
    rtf.keras.mixed_precision.set_global_policy("mixed_float16")
    torchflow.keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        with pytest.raises(ValueError) as want:
            enable(rtf.compat.v1.train.GradientDescentOptimizer(0.1))
        with pytest.raises(ValueError) as got:
            tx.enable_mixed_precision_graph_rewrite(torchflow.keras.optimizers.SGD())
        assert str(got.value) == str(want.value)
    finally:
        rtf.keras.mixed_precision.set_global_policy("float32")
        torchflow.keras.mixed_precision.set_global_policy(None)


def _fit(m, wrap):
    model = m.keras.Sequential([m.keras.layers.Dense(3, activation="relu", input_shape=(4,)),
                                m.keras.layers.Dense(1)])
    w = [np.linspace(-0.5, 0.5, 12, dtype=np.float32).reshape(4, 3), np.zeros(3, np.float32),
         np.linspace(0.2, -0.4, 3, dtype=np.float32).reshape(3, 1), np.zeros(1, np.float32)]
    model.set_weights(w)
    model.compile(optimizer=wrap(m.keras.optimizers.SGD(0.05)), loss="mse")
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(16, 4)
    y = (x.sum(1, keepdims=True) * 0.5).astype(np.float32)
    model.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0)
    return model.get_weights()


@pytest.mark.compat
def test_training_with_the_rewrite_matches_tf_on_cpu():
    rtf = real_tf()
    want = _fit(rtf, rtf.keras.mixed_precision.LossScaleOptimizer)
    try:
        got = _fit(torchflow, tx.enable_mixed_precision_graph_rewrite)
    finally:
        tx.disable_mixed_precision_graph_rewrite()
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
