"""tf.keras.backend's tensor functions against real tf.keras.backend, table-driven."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

X = np.array([[1.5, -2.0, 0.0], [3.0, 0.5, -1.0]], dtype="float32")
Y = np.array([[0.5, 2.0, 1.0], [-3.0, 0.5, 4.0]], dtype="float32")
P = np.array([[0.2, 0.3, 0.5], [0.7, 0.2, 0.1]], dtype="float32")
T = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], dtype="float32")
V = np.arange(24, dtype="float32").reshape(2, 3, 4)

CASES = [
    ("sum", (X,), {}), ("sum", (X,), {"axis": 1, "keepdims": True}),
    ("mean", (X,), {"axis": 0}), ("mean", (X > 0,), {}), ("max", (X,), {"axis": -1}),
    ("min", (X,), {}), ("prod", (X,), {"axis": 1}), ("var", (X,), {"axis": 1}),
    ("std", (X,), {}), ("any", (X,), {"axis": 0}), ("all", (X,), {"axis": 1}),
    ("argmax", (X,), {}), ("argmin", (X,), {"axis": 0}), ("clip", (X, -1.0, 1.0), {}),
    ("clip", (X, 1.0, 0.5), {}), ("concatenate", ([X, Y],), {}),
    ("concatenate", ([X, Y],), {"axis": 0}), ("dot", (X, Y.T), {}), ("dot", (V, V[0].T), {}),
    ("cast", (X, "int32"), {}), ("pow", (np.abs(X), 2.5), {}), ("relu", (X,), {}),
    ("relu", (X,), {"alpha": 0.1}), ("relu", (X,), {"max_value": 1.0}),
    ("relu", (X,), {"threshold": 0.7}), ("relu", (X,), {"alpha": 0.2, "max_value": 2.0,
                                                          "threshold": 0.5}),
    ("softmax", (X,), {}), ("softmax", (X,), {"axis": 0}), ("elu", (X,), {}),
    ("elu", (X,), {"alpha": 0.5}), ("softplus", (X,), {}), ("softsign", (X,), {}),
    ("hard_sigmoid", (X * 3,), {}), ("sigmoid", (X,), {}), ("tanh", (X,), {}),
    ("sign", (X,), {}), ("round", (X,), {}), ("square", (X,), {}), ("sqrt", (X,), {}),
    ("abs", (X,), {}), ("exp", (X,), {}), ("log", (np.abs(X) + 1,), {}), ("cos", (X,), {}),
    ("sin", (X,), {}), ("equal", (X, Y), {}), ("not_equal", (X, Y), {}),
    ("greater", (X, Y), {}), ("greater_equal", (X, Y), {}), ("less", (X, Y), {}),
    ("less_equal", (X, Y), {}), ("maximum", (X, Y), {}), ("minimum", (X, Y), {}),
    ("categorical_crossentropy", (T, P), {}),
    ("categorical_crossentropy", (T, X), {"from_logits": True}),
    ("sparse_categorical_crossentropy", (np.array([2, 0]), P), {}),
    ("binary_crossentropy", (T, P), {}), ("binary_crossentropy", (T, X),
                                          {"from_logits": True}),
    ("l2_normalize", (X,), {"axis": 1}), ("one_hot", (np.array([0, 2, 1]), 3), {}),
    ("reshape", (V, (4, 6)), {}), ("permute_dimensions", (V, (2, 0, 1)), {}),
    ("transpose", (X,), {}), ("repeat_elements", (X, 2, 1), {}), ("repeat", (X, 3), {}),
    ("tile", (X, (2, 1)), {}), ("flatten", (V,), {}), ("batch_flatten", (V,), {}),
    ("expand_dims", (X,), {}), ("squeeze", (X[:, :1], 1), {}), ("stack", ([X, Y],), {}),
    ("gather", (X, np.array([1, 0, 1])), {}), ("reverse", (V, 1), {}),
    ("reverse", (V, [0, 2]), {}), ("arange", (5,), {}), ("arange", (1, 7, 2), {}),
    ("arange", (3,), {"dtype": "float32"}), ("zeros", ((2, 3),), {}),
    ("ones", ((2,),), {"dtype": "int32"}), ("eye", (3,), {}),
    ("zeros_like", (X,), {}), ("ones_like", (X,), {"dtype": "float64"}),
    ("constant", ([1, 2],), {}), ("shape", (V,), {}), ("cumsum", (X,), {"axis": 1}),
    ("cumprod", (X,), {}), ("bias_add", (V, np.array([1.0, 2, 3, 4], "float32")), {}),
    ("bias_add", (V, np.array([1.0, 2, 3], "float32")), {"data_format": "channels_first"}),
    ("stop_gradient", (X,), {}),
    ("switch", (np.array([True, False, True]), X[0], Y[0]), {}),
    ("in_train_phase", (X, Y), {"training": 1}), ("in_test_phase", (X, Y), {"training": 1}),
]


def _np(v):
    return np.asarray(v.numpy() if hasattr(v, "numpy") else v)


@pytest.mark.parametrize("name, args, kwargs", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_backend_function_matches_tf(name, args, kwargs):
    rtf = real_tf()
    conv = {"ours": tf.constant, "theirs": rtf.constant}

    def prep(side, a):
        if isinstance(a, np.ndarray):
            return conv[side](a)
        if isinstance(a, list) and a and isinstance(a[0], np.ndarray):
            return [conv[side](x) for x in a]
        return a

    got = getattr(tf.keras.backend, name)(*[prep("ours", a) for a in args], **kwargs)
    want = getattr(rtf.keras.backend, name)(*[prep("theirs", a) for a in args], **kwargs)
    assert isinstance(got, tf.Variable) == isinstance(want, rtf.Variable)
    g, w = _np(got), _np(want)
    assert g.dtype == w.dtype and g.shape == w.shape
    np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_variables_updates_and_random():
    rtf = real_tf()
    K, RK = tf.keras.backend, rtf.keras.backend
    v, rv = K.variable([[1, 2]], name="w"), RK.variable([[1, 2]], name="w")
    assert v.dtype.name == rv.dtype.name == "float32" and v.name == rv.name
    for fn, arg in (("update_add", [[1.0, 1.0]]), ("update_sub", [[0.5, 0.5]]),
                    ("update", [[4.0, 5.0]])):
        getattr(K, fn)(v, np.array(arg, "float32"))
        getattr(RK, fn)(rv, np.array(arg, "float32"))
        np.testing.assert_allclose(K.eval(v), RK.eval(rv))
    K.moving_average_update(v, np.array([[0.0, 1.0]], "float32"), 0.9)
    RK.moving_average_update(rv, np.array([[0.0, 1.0]], "float32"), 0.9)
    np.testing.assert_allclose(K.get_value(v), RK.get_value(rv), rtol=1e-6)
    for fn, kwargs in (("random_normal", {"stddev": 2.0}), ("random_uniform", {"maxval": 3.0}),
                       ("truncated_normal", {}), ("random_bernoulli", {"p": 0.3}),
                       ("random_binomial", {"p": 0.3})):
        x = getattr(K, fn)((2000,), **kwargs)
        y = getattr(RK, fn)((2000,), **kwargs)
        assert x.dtype.name == y.dtype.name
        np.testing.assert_allclose(np.mean(x.numpy()), np.mean(y.numpy()), atol=0.15)
        np.testing.assert_allclose(np.std(x.numpy()), np.std(y.numpy()), atol=0.15)
    d = K.dropout(tf.ones([1000]), 0.5)
    assert set(np.unique(d.numpy())) <= {0.0, 2.0}


def test_print_tensor_returns_its_input(capsys):
    x = tf.constant([1.0, 2.0])
    assert tf.keras.backend.print_tensor(x, message="x =") is x
