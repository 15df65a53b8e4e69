"""``model.add_loss`` / ``add_metric`` of symbolic tensors insert tf.keras's AddLoss /
AddMetric layers (and the TFOpLambda layers computing them) into the Functional
graph: ``layers``, ``get_config``, ``from_config`` and the values, against real
tf.keras."""

from __future__ import annotations

import numpy as np

import torchflow as tf
from torchflow._src.testing import real_tf

X = np.random.RandomState(0).rand(4, 3).astype("float32")


def _model(mod):
    k = mod.keras
    inp = k.Input((3,), name="x")
    h = k.layers.Dense(4, name="d", kernel_initializer="ones")(inp)
    out = k.layers.Dense(1, name="o", kernel_initializer="ones")(h)
    model = k.Model(inp, out)
    model.add_loss(mod.math.multiply(mod.reduce_mean(h), 0.1))
    model.add_metric(mod.reduce_sum(out), name="s", aggregation="mean")
    return model


def _layers(model):
    return [(type(layer).__name__, layer.name) for layer in model.layers]


def _plain(cfg):
    return {k: v for k, v in cfg.items() if k in ("name", "unconditional", "aggregation",
                                                  "metric_name")}


def test_layers_and_configs_match_tf_keras():
    rtf = real_tf()
    ours, theirs = _model(tf), _model(rtf)
    assert _layers(ours) == _layers(theirs)
    assert _layers(ours)[-3:] == [("AddLoss", "add_loss"), ("TFOpLambda", "tf.math.reduce_sum"),
                                  ("AddMetric", "add_metric")]
    for i in (5, 7):
        assert _plain(ours.layers[i].get_config()) == _plain(theirs.layers[i].get_config())
    # A second symbolic loss adds uniquely named layers after the first ones.
    for mod, model in ((tf, ours), (rtf, theirs)):
        model.add_loss(mod.reduce_mean(model.output))
    assert _layers(ours) == _layers(theirs)


def test_values_losses_and_metrics_match_tf_keras():
    rtf = real_tf()
    ours, theirs = _model(tf), _model(rtf)
    np.testing.assert_allclose(ours(X).numpy(), theirs(X).numpy(), rtol=1e-6)
    np.testing.assert_allclose([float(v) for v in ours.losses],
                               [float(v) for v in theirs.losses], rtol=1e-6)
    assert [m.name for m in ours.metrics] == [m.name for m in theirs.metrics] == ["s"]
    np.testing.assert_allclose(float(ours.metrics[0].result()),
                               float(theirs.metrics[0].result()), rtol=1e-6)
    # The loss lives on the AddLoss layer, the metric on the AddMetric layer.
    assert len(ours.layers[5].losses) == 1 and [m.name for m in ours.layers[7].metrics] == ["s"]
    # Each call replaces the previous call's loss instead of accumulating.
    ours(X)
    assert len(ours.losses) == 1


def test_from_config_keeps_the_ancillary_layers_as_tf_keras():
    rtf = real_tf()
    ours, theirs = _model(tf), _model(rtf)
    ours2 = tf.keras.Model.from_config(ours.get_config())
    theirs2 = rtf.keras.Model.from_config(theirs.get_config())
    # (tf-keras 2.21 renames the rebuilt TFOpLambda layers "_3": classes compared
    # with it, names with the original model.)
    assert [c for c, _ in _layers(ours2)] == [c for c, _ in _layers(theirs2)]
    assert _layers(ours2) == _layers(ours)
    ours2.set_weights(ours.get_weights())
    ours2(X)
    ours(X)
    np.testing.assert_allclose([float(v) for v in ours2.losses],
                               [float(v) for v in ours.losses], rtol=1e-6)
    assert [m.name for m in ours2.metrics] == ["s"]


def test_fit_reports_the_symbolic_metric_and_adds_the_loss():
    rtf = real_tf()
    y = np.ones((4, 1), "float32")
    hist = []
    for mod in (tf, rtf):
        model = _model(mod)
        model.compile(mod.keras.optimizers.SGD(0.01), "mse")
        hist.append(model.fit(X, y, batch_size=2, epochs=2, shuffle=False, verbose=0).history)
    assert hist[0].keys() == hist[1].keys() == {"loss", "s"}
    for key in hist[1]:
        np.testing.assert_allclose(hist[0][key], hist[1][key], rtol=1e-4, err_msg=key)
