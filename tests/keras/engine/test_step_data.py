"""What a custom ``train_step``/``test_step``/``predict_step`` receives, on every
path that builds step data, against real tf.keras 2.21 (Keras 2).

TF packs each batch as ``pack_x_y_sample_weight`` does: ``(x, y)`` without sample
weights (so ``x, y = data`` works), ``(x, y, sample_weight)`` with them, ``x`` alone
for unlabeled data; lists become tuples and arrays become tensors.
"""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

X = np.arange(24, dtype="float32").reshape(8, 3) / 10
Y = np.ones((8, 1), "float32")
SW = np.linspace(0.5, 2.0, 8).astype("float32")


def _desc(mod, d):
    """The batch's structure: containers kept, tensors as T<rank>, None as None."""
    if isinstance(d, tuple):
        return tuple(_desc(mod, v) for v in d)
    if isinstance(d, list):
        return [_desc(mod, v) for v in d]
    if isinstance(d, dict):
        return {k: _desc(mod, v) for k, v in d.items()}
    if d is None:
        return None
    assert isinstance(d, mod.Tensor), type(d)  # arrays arrive as tensors
    return f"T{len(d.shape)}"


def _model(mod, seen):
    k = mod.keras

    class Probe(k.Model):
        def __init__(self):
            super().__init__()
            self.d = k.layers.Dense(1)

        def call(self, x):
            if isinstance(x, dict):
                x = x["a"]
            if isinstance(x, (list, tuple)):
                x = x[0]
            return self.d(x)

        def train_step(self, data):
            seen.add(("train", repr(_desc(mod, data))))
            return super().train_step(data)

        def test_step(self, data):
            seen.add(("test", repr(_desc(mod, data))))
            return super().test_step(data)

        def predict_step(self, data):
            seen.add(("predict", repr(_desc(mod, data))))
            return super().predict_step(data)

    m = Probe()
    m.compile("sgd", "mse")
    return m


def _gen(as_list):
    for i in range(2):
        batch = (X[4 * i:4 * i + 4], Y[4 * i:4 * i + 4])
        yield list(batch) if as_list else batch


def _ds(mod, *arrays):
    return mod.data.Dataset.from_tensor_slices(arrays if len(arrays) > 1 else arrays[0]).batch(4)


CASES = {
    "fit arrays": lambda m, mod: m.fit(X, Y, batch_size=4, verbose=0),
    "fit arrays sample_weight": lambda m, mod: m.fit(X, Y, sample_weight=SW, batch_size=4,
                                                     verbose=0),
    "fit class_weight": lambda m, mod: m.fit(X, np.zeros((8, 1), "int32"),
                                             class_weight={0: 1.0, 1: 2.0}, batch_size=4,
                                             verbose=0),
    "fit list x": lambda m, mod: m.fit([X, X], Y, batch_size=4, verbose=0),
    "fit dict x": lambda m, mod: m.fit({"a": X}, Y, batch_size=4, verbose=0),
    "fit dataset (x, y)": lambda m, mod: m.fit(_ds(mod, X, Y), verbose=0),
    "fit dataset (x, y, sw)": lambda m, mod: m.fit(_ds(mod, X, Y, SW), verbose=0),
    "fit generator": lambda m, mod: m.fit(_gen(False), steps_per_epoch=2, verbose=0),
    "fit generator of lists": lambda m, mod: m.fit(_gen(True), steps_per_epoch=2, verbose=0),
    "fit validation_data": lambda m, mod: m.fit(X, Y, validation_data=(X, Y), batch_size=4,
                                                verbose=0),
    "fit validation_data sw": lambda m, mod: m.fit(X, Y, validation_data=(X, Y, SW),
                                                   batch_size=4, verbose=0),
    "fit validation_split": lambda m, mod: m.fit(X, Y, validation_split=0.5, batch_size=4,
                                                 verbose=0),
    "fit validation_split sw": lambda m, mod: m.fit(X, Y, sample_weight=SW, validation_split=0.5,
                                                    batch_size=4, verbose=0),
    "fit validation dataset": lambda m, mod: m.fit(X, Y, validation_data=_ds(mod, X, Y),
                                                   batch_size=4, verbose=0),
    "evaluate": lambda m, mod: m.evaluate(X, Y, batch_size=4, verbose=0),
    "evaluate sw": lambda m, mod: m.evaluate(X, Y, sample_weight=SW, batch_size=4, verbose=0),
    "evaluate dataset": lambda m, mod: m.evaluate(_ds(mod, X, Y), verbose=0),
    "predict": lambda m, mod: m.predict(X, batch_size=4),
    "predict list": lambda m, mod: m.predict([X, X], batch_size=4),
    "predict dataset": lambda m, mod: m.predict(_ds(mod, X)),
    "predict dataset (x, y)": lambda m, mod: m.predict(_ds(mod, X, Y)),
    "train_on_batch": lambda m, mod: m.train_on_batch(X, Y),
    "train_on_batch sw": lambda m, mod: m.train_on_batch(X, Y, sample_weight=SW),
    "test_on_batch": lambda m, mod: m.test_on_batch(X, Y),
    "predict_on_batch": lambda m, mod: m.predict_on_batch(X),
}


def _seen(mod, case):
    seen = set()
    CASES[case](_model(mod, seen), mod)
    return seen


@pytest.mark.parametrize("case", sorted(CASES))
def test_step_data_matches_tf_keras(case):
    assert _seen(tf, case) == _seen(real_tf(), case)


def test_predict_of_a_dict_wraps_it_as_tf_2_4_does():
    # TF 2.4's pack_x_y_sample_weight wraps any nested x (nest.is_sequence: tuples,
    # lists and dicts) in a 1-tuple; tf-keras 2.21 wraps only tuples, so it passes a
    # dict as it is. 2.4 wins.
    assert _seen(tf, "predict") == {("predict", "'T2'")}
    seen = set()
    _model(tf, seen).predict({"a": X}, batch_size=4)
    assert seen == {("predict", "({'a': 'T2'},)")}


def test_x_y_unpacking_custom_train_step_trains_as_tf():
    # The guide's pattern: `x, y = data` in a custom train_step, same result as TF.
    def run(mod):
        k = mod.keras

        class Custom(k.Model):
            def train_step(self, data):
                x, y = data
                with mod.GradientTape() as tape:
                    y_pred = self(x, training=True)
                    loss = self.compiled_loss(y, y_pred)
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                self.compiled_metrics.update_state(y, y_pred)
                return {m.name: m.result() for m in self.metrics}

        inputs = k.Input(shape=(3,))
        model = Custom(inputs, k.layers.Dense(1, kernel_initializer="ones")(inputs))
        model.compile(k.optimizers.SGD(0.05), "mse", metrics=["mae"])
        h = model.fit(X, Y * 2, batch_size=4, epochs=3, shuffle=False, verbose=0)
        return h.history, model.get_weights()

    h_o, w_o = run(tf)
    h_t, w_t = run(real_tf())
    assert h_o.keys() == h_t.keys()
    for key in h_t:
        np.testing.assert_allclose(h_o[key], h_t[key], rtol=1e-5, err_msg=key)
    for a, b in zip(w_o, w_t):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("data", [
    "x", "(x,)", "(x, y)", "(x, y, sw)", "[x, y]"])
def test_unpack_x_y_sample_weight_as_tf(data):
    ref = real_tf()
    for mod in (tf, ref):
        x, y, sw = mod.ones([2, 3]), mod.zeros([2]), mod.ones([2])
        got = mod.keras.utils.unpack_x_y_sample_weight(eval(data))
        expected = {"x": (x, None, None), "(x,)": (x, None, None), "(x, y)": (x, y, None),
                    "(x, y, sw)": (x, y, sw), "[x, y]": (x, y, None)}[data]
        assert len(got) == 3
        assert all(a is b for a, b in zip(got, expected)), (mod.__name__, data)


def test_unpack_rejects_longer_tuples_as_tf():
    ref = real_tf()
    with pytest.raises(ValueError, match="Data is expected to be in format"):
        ref.keras.utils.unpack_x_y_sample_weight((1, 2, 3, 4))
    with pytest.raises(ValueError, match="Data is expected to be in format"):
        tf.keras.utils.unpack_x_y_sample_weight((1, 2, 3, 4))


def test_pack_x_y_sample_weight():
    x, y, sw = tf.ones([2, 3]), tf.zeros([2]), tf.ones([2])
    pack = tf.keras.utils.pack_x_y_sample_weight
    assert pack(x) is x
    assert pack(x, y) == (x, y)
    assert pack(x, y, sw) == (x, y, sw)
    assert pack((x, x)) == ((x, x),)
    assert pack(x, None, sw) is x
