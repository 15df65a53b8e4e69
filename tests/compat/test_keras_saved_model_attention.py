"""MultiHeadAttention models through ``model.save(dir)`` / ``load_model`` and TF-format
weights, both ways with real tf.keras (TF 2.21 + tf-keras, TF_USE_LEGACY_KERAS=1).

tf.keras keeps MHA's weights in EinsumDense sublayers, so its checkpoints name them
``_query_dense/kernel`` ...; a call with several positional tensors is written in
the inbound node as keyword arguments (``{"value": ["v", 0, 0]}``); and tf-keras
(2.6+) rebuilds the layer from the ``query_shape``/``key_shape``/``value_shape``
of its saved config (TF 2.4's config has none; torchflow writes them only into
``keras_metadata.pb``, and its loader drops them).
"""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

pytestmark = pytest.mark.compat

RNG = np.random.RandomState(5)
XQ = RNG.rand(3, 4, 6).astype(np.float32)
XV = RNG.rand(3, 5, 6).astype(np.float32)


def _self_attention(lib):
    q = lib.keras.Input((4, 6), name="q")
    o = lib.keras.layers.MultiHeadAttention(2, 3)(q, q)
    return lib.keras.Model(q, lib.keras.layers.Dense(2)(o))


def _cross_attention(lib):
    L = lib.keras.layers
    q = lib.keras.Input((4, 6), name="q")
    v = lib.keras.Input((5, 6), name="v")
    k = L.Dense(6, name="k_proj")(v)
    o = L.MultiHeadAttention(2, 3, value_dim=4, output_shape=5)(q, v, k)
    return lib.keras.Model([q, v], L.GlobalAveragePooling1D()(o))


BUILDERS = {"self": (_self_attention, XQ), "cross": (_cross_attention, [XQ, XV])}


def _fill(model):
    rng = np.random.RandomState(1)
    model.set_weights([rng.uniform(-1, 1, size=w.shape).astype(np.float32)
                       for w in model.get_weights()])


def _predict(model, x):
    return np.asarray(model(x, training=False))


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_torchflow_saved_attention_model_loads_in_tf_keras(tmp_path, kind):
    rtf = real_tf()
    build, x = BUILDERS[kind]
    model = build(tf)
    _fill(model)
    expected = _predict(model, x)
    path = str(tmp_path / kind)
    model.save(path)
    theirs = rtf.keras.models.load_model(path)
    assert [type(la).__name__ for la in theirs.layers] == \
        [type(la).__name__ for la in model.layers]
    np.testing.assert_allclose(_predict(theirs, x), expected, rtol=1e-5, atol=1e-5)
    ours = tf.keras.models.load_model(path)
    np.testing.assert_allclose(_predict(ours, x), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_tf_saved_attention_model_loads_in_torchflow(tmp_path, kind):
    rtf = real_tf()
    build, x = BUILDERS[kind]
    ref = build(rtf)
    _fill(ref)
    path = str(tmp_path / kind)
    ref.save(path, save_format="tf")
    model = tf.keras.models.load_model(path)
    np.testing.assert_allclose(_predict(model, x), _predict(ref, x), rtol=1e-5, atol=1e-5)


def test_attention_weights_in_tf_format_both_ways(tmp_path):
    rtf = real_tf()
    ours, theirs = _cross_attention(tf), _cross_attention(rtf)
    _fill(ours)
    ours.save_weights(str(tmp_path / "ours"))
    theirs.load_weights(str(tmp_path / "ours"))
    np.testing.assert_allclose(_predict(theirs, [XQ, XV]), _predict(ours, [XQ, XV]),
                               rtol=1e-5, atol=1e-5)
    names = {n for n, _ in rtf.train.list_variables(str(tmp_path / "ours"))}
    assert "layer_with_weights-1/_query_dense/kernel/.ATTRIBUTES/VARIABLE_VALUE" in names
    again, back = _cross_attention(rtf), _cross_attention(tf)
    _fill(again)
    again.save_weights(str(tmp_path / "theirs"))
    back.load_weights(str(tmp_path / "theirs"))
    np.testing.assert_allclose(_predict(back, [XQ, XV]), _predict(again, [XQ, XV]),
                               rtol=1e-5, atol=1e-5)


def test_positional_tensor_arguments_are_written_as_tf_keyword_arguments():
    config = _cross_attention(tf).get_config()
    mha = next(lc for lc in config["layers"] if lc["class_name"] == "MultiHeadAttention")
    assert mha["inbound_nodes"] == [[["q", 0, 0, {"value": ["v", 0, 0],
                                                 "key": ["k_proj", 0, 0]}]]]
    rtf = real_tf()
    ref = _cross_attention(rtf).get_config()
    ref_mha = next(lc for lc in ref["layers"] if lc["class_name"] == "MultiHeadAttention")
    assert ref_mha["inbound_nodes"] == mha["inbound_nodes"]
    rebuilt = tf.keras.Model.from_config(config)
    assert [type(la).__name__ for la in rebuilt.layers] == \
        [type(la).__name__ for la in _cross_attention(tf).layers]
