"""tf.keras.backend.placeholder and tf.keras.backend.function (eager, as TF 2.4's Keras
gives them) against real tf.keras."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

X = np.random.RandomState(0).rand(2, 3).astype("float32")


def _program(mod):
    k = mod.keras
    out = {}
    p = k.backend.placeholder(shape=(2, 4, 5))
    q = k.backend.placeholder(ndim=3, dtype="int32", name="foo")
    out["placeholders"] = [(tuple(p.shape), p.dtype.name), (tuple(q.shape), q.dtype.name)]
    inp = k.Input((3,))
    h = k.layers.Dense(2, kernel_initializer="ones")(inp)
    o = k.layers.Dense(1, kernel_initializer="ones")(h)
    one = k.backend.function([inp], [h])([X])
    out["one"] = (type(one).__name__, [np.asarray(v) for v in one])
    two = k.backend.function(inp, [h, o])(X)
    out["two"] = [np.asarray(v) for v in two]
    bare = k.backend.function([inp], h)([X])
    out["bare"] = (type(bare).__name__, np.asarray(bare))
    scalar = k.backend.function([inp], [mod.reduce_sum(o)])([X])
    out["scalar"] = (type(scalar[0]).__name__, scalar[0])
    doubled = k.backend.function(p, [p * 2.0])(np.ones((2, 4, 5), "float32"))
    out["placeholder_fn"] = np.asarray(doubled[0])
    return out


def test_function_and_placeholder_match_tf():
    ours, theirs = _program(tf), _program(real_tf())
    assert ours["placeholders"] == theirs["placeholders"]
    assert ours["one"][0] == theirs["one"][0] == "list"
    for key in ("one", "two"):
        values_ours = ours[key][1] if key == "one" else ours[key]
        values_theirs = theirs[key][1] if key == "one" else theirs[key]
        assert len(values_ours) == len(values_theirs)
        for a, b in zip(values_ours, values_theirs):
            np.testing.assert_allclose(a, b, rtol=1e-6)
    assert ours["bare"][0] == theirs["bare"][0] == "ndarray"
    np.testing.assert_allclose(ours["bare"][1], theirs["bare"][1], rtol=1e-6)
    assert ours["scalar"][0] == theirs["scalar"][0] == "float"
    assert ours["scalar"][1] == pytest.approx(theirs["scalar"][1])
    np.testing.assert_allclose(ours["placeholder_fn"], theirs["placeholder_fn"])


@pytest.mark.parametrize("call", [
    lambda k, i: k.backend.function([i], [i], updates=[1]),
    lambda k, i: k.backend.function([i], [i], fetches=[1]),
    lambda k, i: k.backend.placeholder((2,), sparse=True, ragged=True),
])
def test_errors_match_tf(call):
    rtf = real_tf()
    with pytest.raises(ValueError) as theirs:
        call(rtf.keras, rtf.keras.Input((2,)))
    with pytest.raises(ValueError) as ours:
        call(tf.keras, tf.keras.Input((2,)))
    assert str(ours.value) == str(theirs.value)
