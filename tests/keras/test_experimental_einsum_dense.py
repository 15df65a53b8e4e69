"""tf.keras.layers.experimental.EinsumDense against real tf-keras' EinsumDense (TF 2.4's
layer, unchanged): the layer contract (shapes, weights, config, dtype policies, values
with the same weights) over the equation forms, gradients, TF's errors, fit and saving."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.keras.layers.core.einsum_dense import EinsumDense
from torchflow._src.keras.testing_utils import layer_test
from torchflow._src.testing import real_tf

CASES = [  # equation, bias_axes, input shape, output_shape, kernel shape, bias shape
    ("ab,bc->ac", None, (2, 32), 64, (32, 64), None),
    ("ab,bc->ac", "c", (2, 32), 64, (32, 64), (64,)),
    ("ab,bcd->acd", "cd", (2, 32), (8, 4), (32, 8, 4), (8, 4)),
    ("ab,bcd->acd", "d", (2, 32), (8, 4), (32, 8, 4), (4,)),
    ("abc,cd->abd", "bd", (2, 3, 5), (3, 4), (5, 4), (3, 4)),
    ("...b,bc->...c", "c", (2, 3, 5), 4, (5, 4), (4,)),
    ("...ab,bc->...ac", "a", (2, 3, 4, 5), (4, 6), (5, 6), (4, 1)),
    ("ab...,bc->ac...", "c", (2, 5, 3), (4, 3), (5, 4), (4, 1)),
    ("abcd,cde->abe", "e", (2, 3, 4, 5), (3, 6), (4, 5, 6), (6,)),
]


@pytest.mark.parametrize("eq,bias,shape,out,kshape,bshape", CASES)
def test_layer_contract_and_values_match_tf_keras(eq, bias, shape, out, kshape, bshape):
    layer_test(EinsumDense, kwargs={"equation": eq, "output_shape": out, "bias_axes": bias,
                                    "bias_initializer": "glorot_uniform",
                                    "activation": "tanh"},
               input_shape=shape)
    layer = EinsumDense(eq, out, bias_axes=bias)
    layer(np.ones(shape, np.float32))
    assert tuple(layer.kernel.shape) == kshape
    assert (None if layer.bias is None else tuple(layer.bias.shape)) == bshape
    ref = real_tf().keras.layers.EinsumDense(eq, out, bias_axes=bias)
    ref(np.ones(shape, np.float32))
    assert [tuple(w.shape) for w in ref.weights] == [tuple(w.shape) for w in layer.weights]
    assert [w.name.split("/")[-1] for w in layer.weights] == \
        [w.name.split("/")[-1] for w in ref.weights]


def test_unknown_batch_and_functional_shape():
    inp = tf.keras.Input((None, 5))
    y = EinsumDense("abc,cd->abd", output_shape=(None, 4), bias_axes="d")(inp)
    assert y.shape.as_list() == [None, None, 4]
    model = tf.keras.Model(inp, y)
    assert model(np.ones((3, 7, 5), np.float32)).shape == (3, 7, 4)


def test_gradients_match_tf_keras():
    ref = real_tf()
    x = np.random.default_rng(0).normal(size=(3, 4, 5)).astype(np.float32)
    ours = EinsumDense("abc,cde->abde", output_shape=(4, 2, 3), bias_axes="de",
                       activation="relu", bias_initializer="ones")
    theirs = ref.keras.layers.EinsumDense("abc,cde->abde", output_shape=(4, 2, 3),
                                          bias_axes="de", activation="relu")
    ours(x)
    theirs(x)
    theirs.set_weights(ours.get_weights())
    xt, xr = tf.constant(x), ref.constant(x)
    with tf.GradientTape() as t1:
        t1.watch(xt)
        lo = tf.reduce_sum(ours(xt) ** 2)
    with ref.GradientTape() as t2:
        t2.watch(xr)
        lr = ref.reduce_sum(theirs(xr) ** 2)
    for a, b in zip(t1.gradient(lo, [xt] + ours.trainable_weights),
                    t2.gradient(lr, [xr] + theirs.trainable_weights)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("eq,out,bias,shape,msg", [
    ("ab,bc", 4, None, (2, 3), "Invalid einsum equation 'ab,bc'"),
    ("ab...,bc->ac", 4, None, (2, 3), "Invalid einsum equation"),
    ("ab,bc->ad", 4, None, (2, 3), "Dimension 'd' was specified in the output"),
    ("ab,bd->ac", 4, None, (2, 3), "Dimension 'c' was specified in the output"),
    ("abc,cd->abd", (5, 4), None, (2, 3, 6), "Input shape and output shape do not match at "
     "shared dimension 'b'. Input shape is 3, and output shape is 5."),
    ("ab,bc->ac", 4, "x", (2, 3), "Bias dimension 'x' was requested, but is not a part of"),
])
def test_errors_are_tf_keras(eq, out, bias, shape, msg):
    with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        EinsumDense(eq, out, bias_axes=bias)(np.ones(shape, np.float32))
    with pytest.raises(ValueError):
        real_tf().keras.layers.EinsumDense(eq, out, bias_axes=bias)(np.ones(shape, np.float32))


def test_config_matches_tf_keras_keys_and_round_trips():
    kw = {"equation": "ab,bcd->acd", "output_shape": (8, 4), "bias_axes": "d",
          "activation": "relu", "kernel_regularizer": "l2"}
    ours = EinsumDense(**kw).get_config()
    theirs = real_tf().keras.layers.EinsumDense(**kw).get_config()
    assert sorted(ours) == sorted(theirs)
    assert ours["output_shape"] == tuple(theirs["output_shape"])
    back = tf.keras.layers.deserialize({"class_name": "EinsumDense", "config": ours})
    assert type(back) is EinsumDense and back.get_config() == ours


def test_fit_and_h5_save(tmp_path):
    ref = real_tf()
    rng = np.random.default_rng(1)
    x = rng.normal(size=(32, 6, 4)).astype(np.float32)
    y = rng.normal(size=(32, 6, 3)).astype(np.float32)
    models = []
    for k in (tf.keras, ref.keras):
        ed = (k.layers.experimental.EinsumDense if k is tf.keras else k.layers.EinsumDense)
        models.append(k.Sequential([k.layers.InputLayer((6, 4)),
                                    ed("abc,cd->abd", (6, 3), bias_axes="d")]))
    models[1].set_weights(models[0].get_weights())
    models[0].compile(tf.keras.optimizers.SGD(0.1), "mse")
    models[1].compile(ref.keras.optimizers.legacy.SGD(0.1), "mse")
    hists = [m.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0).history["loss"]
             for m in models]
    np.testing.assert_allclose(hists[0], hists[1], rtol=1e-5)
    path = str(tmp_path / "m.h5")
    models[0].save(path)
    back = tf.keras.models.load_model(path)
    np.testing.assert_allclose(back.predict(x), models[0].predict(x), rtol=1e-6)
    models[0].save(str(tmp_path / "sm"))
    back = tf.keras.models.load_model(str(tmp_path / "sm"))
    np.testing.assert_allclose(back.predict(x), models[0].predict(x), rtol=1e-6)
