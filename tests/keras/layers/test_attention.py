"""Attention layers vs real tf.keras with the same weights: values, masks, causal,
scores, weight layout, configs, every dtype policy, Functional use."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.keras.mixed_precision.policy import Policy
from torchflow._src.keras.testing_utils import POLICIES
from torchflow._src.testing import real_tf

L = tf.keras.layers
_TOL = {"float32": 1e-5, "float64": 1e-5, "mixed_float16": 3e-2, "mixed_bfloat16": 8e-2}


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def _np(y):
    return [_np(v) for v in y] if isinstance(y, (list, tuple)) else y.numpy()


def _check_policies(make, call, ref_out):
    """Every policy: output in the compute dtype, variables in the variable dtype,
    values close to float32's."""
    ref_layer = None
    for pname in POLICIES:
        pol = Policy(pname)
        layer = make(pname)
        out = call(layer)
        if ref_layer is None:
            ref_layer = (layer, out)
        outs = out if isinstance(out, (list, tuple)) else [out]
        assert all(o.dtype.name == pol.compute_dtype for o in outs), pname
        assert all(w.dtype.name == pol.variable_dtype for w in layer.weights), pname
        layer.set_weights([w.astype(pw.dtype.as_numpy_dtype)
                           for w, pw in zip(ref_out[0].get_weights(), layer.weights)])
        got = call(layer)
        tol = _TOL[pname]
        for a, b in zip(_np(got) if isinstance(got, (list, tuple)) else [_np(got)],
                        ref_out[1] if isinstance(ref_out[1], list) else [ref_out[1]]):
            np.testing.assert_allclose(a.astype(np.float64), b, rtol=tol, atol=tol,
                                       err_msg=pname)


@pytest.mark.parametrize("name,kwargs", [
    ("Attention", {}),
    ("Attention", {"use_scale": True, "dropout": 0.1}),
    ("AdditiveAttention", {}),
    ("AdditiveAttention", {"use_scale": False}),
])
def test_dense_attention_contract(name, kwargs):
    tfr = real_tf()
    q, v, k = _rand(2, 3, 4), _rand(2, 5, 4, seed=1), _rand(2, 5, 4, seed=2)
    ours = getattr(L, name)(**kwargs)
    y = ours([q, v, k])
    ref = getattr(tfr.keras.layers, name)(**kwargs)
    ref([q, v, k])
    assert [w.shape for w in ours.get_weights()] == [w.shape for w in ref.get_weights()]
    ref.set_weights(ours.get_weights())
    np.testing.assert_allclose(y.numpy(), ref([q, v, k]).numpy(), rtol=1e-5, atol=1e-6)
    cfg = ours.get_config()
    assert cfg["use_scale"] == kwargs.get("use_scale", name != "Attention")
    assert cfg["causal"] is False and cfg["dropout"] == kwargs.get("dropout", 0.0)
    clone = getattr(L, name).from_config(cfg)
    assert clone.get_config() == cfg
    _check_policies(lambda p: getattr(L, name)(**kwargs, dtype=p), lambda l: l([q, v, k]),
                    (ours, y.numpy()))
    # Functional: symbolic inputs
    qi, vi = tf.keras.Input((3, 4)), tf.keras.Input((5, 4))
    model = tf.keras.Model([qi, vi], getattr(L, name)(**kwargs)([qi, vi]))
    assert model.output_shape == (None, 3, 4)
    model.set_weights(ours.get_weights())
    np.testing.assert_allclose(model([q, v]).numpy(), ours([q, v]).numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["Attention", "AdditiveAttention"])
def test_dense_attention_masks_scores_and_causal(name):
    tfr = real_tf()
    q, v = _rand(2, 4, 3), _rand(2, 4, 3, seed=1)
    qm = np.array([[1, 1, 0, 0], [1, 0, 1, 1]], bool)
    vm = np.array([[1, 1, 1, 0], [1, 0, 0, 0]], bool)
    ours, ref = getattr(L, name)(), getattr(tfr.keras.layers, name)()
    ours([q, v])
    ref([q, v])
    ref.set_weights(ours.get_weights())
    y, s = ours([q, v], mask=[qm, vm], return_attention_scores=True)
    ty, ts = ref([q, v], mask=[qm, vm], return_attention_scores=True)
    np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s.numpy(), ts.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(ours.compute_mask([q, v], [qm, vm]).numpy(), qm)
    causal = getattr(L, name)(causal=True)
    causal([q, v])
    causal.set_weights(ours.get_weights())
    y, s = causal([q, v], return_attention_scores=True)
    ty, ts = ref([q, v], use_causal_mask=True, return_attention_scores=True)
    np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-5, atol=1e-6)
    assert np.all(np.triu(s.numpy()[0], 1) == 0)


def test_dense_attention_bad_inputs():
    with pytest.raises(ValueError):
        L.Attention()(_rand(2, 3, 4))
    with pytest.raises(ValueError):
        L.Attention()([_rand(2, 3, 4)])


@pytest.mark.parametrize("kwargs,q_shape,v_shape", [
    ({"num_heads": 2, "key_dim": 3}, (2, 4, 5), (2, 6, 7)),
    ({"num_heads": 3, "key_dim": 2, "value_dim": 4, "output_shape": 6, "use_bias": False},
     (2, 4, 5), (2, 6, 5)),
    ({"num_heads": 2, "key_dim": 2, "attention_axes": (1, 2)}, (2, 3, 4, 5), (2, 3, 4, 5)),
    ({"num_heads": 2, "key_dim": 2, "attention_axes": 2}, (2, 3, 4, 5), (2, 3, 2, 5)),
])
def test_multi_head_attention_matches_tf(kwargs, q_shape, v_shape):
    tfr = real_tf()
    q, v = _rand(*q_shape), _rand(*v_shape, seed=1)
    ours = L.MultiHeadAttention(**kwargs)
    y, s = ours(q, v, return_attention_scores=True)
    ref = tfr.keras.layers.MultiHeadAttention(**kwargs)
    ref(q, v)
    tw = ref.get_weights()
    assert [w.shape for w in ours.get_weights()] == [w.shape for w in tw]
    ref.set_weights(ours.get_weights())
    ty, ts = ref(q, v, return_attention_scores=True)
    np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(s.numpy(), ts.numpy(), rtol=1e-5, atol=1e-5)
    cfg = ours.get_config()
    assert L.MultiHeadAttention.from_config(cfg).get_config() == cfg
    for key in ("num_heads", "key_dim", "value_dim", "dropout", "use_bias", "output_shape"):
        assert cfg[key] == ref.get_config()[key]
    _check_policies(lambda p: L.MultiHeadAttention(**kwargs, dtype=p), lambda l: l(q, v),
                    (ours, y.numpy()))


def test_multi_head_attention_mask_key_and_functional():
    tfr = real_tf()
    q, v, k = _rand(2, 3, 4), _rand(2, 5, 6, seed=1), _rand(2, 5, 7, seed=2)
    mask = np.random.default_rng(3).random((2, 3, 5)) > 0.4
    ours = L.MultiHeadAttention(2, 3, dropout=0.5)
    y = ours(q, v, key=k, attention_mask=mask)
    ref = tfr.keras.layers.MultiHeadAttention(2, 3, dropout=0.5)
    ref(q, v, key=k)
    ref.set_weights(ours.get_weights())
    np.testing.assert_allclose(y.numpy(), ref(q, v, key=k, attention_mask=mask).numpy(),
                               rtol=1e-5, atol=1e-5)
    assert not np.allclose(y.numpy(), ours(q, v, key=k, attention_mask=mask,
                                           training=True).numpy())
    qi, vi = tf.keras.Input((3, 4)), tf.keras.Input((5, 6))
    model = tf.keras.Model([qi, vi], L.MultiHeadAttention(2, 3)(qi, vi))
    assert model.output_shape == (None, 3, 4)
    assert len(model.weights) == 8
