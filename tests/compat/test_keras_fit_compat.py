"""The same Keras program under real tf.keras 2.21 (Keras 2) and torchflow:
fit/evaluate/predict results match on the same model, weights and data."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

RNG = np.random.default_rng(0)
X = RNG.normal(size=(96, 10)).astype(np.float32)
Y = (X[:, :3].sum(1) > 0).astype(np.int64) + (X[:, 3] > 1).astype(np.int64)


def _build(k):
    return k.Sequential([k.layers.Dense(16, activation="relu", input_shape=(10,)),
                         k.layers.Dense(3)])


@pytest.mark.parametrize("opt", ["sgd", "adam", "rmsprop"])
@pytest.mark.parametrize("spe", [1, 4])
def test_fit_evaluate_predict_match_tf_keras(opt, spe):
    ref = real_tf()
    ref.keras.utils.set_random_seed(5)  # reproducible initial weights (shared below)
    theirs = _build(ref.keras)
    ours = _build(tf.keras)
    ours.set_weights(theirs.get_weights())
    kw = dict(metrics=["accuracy"], steps_per_execution=spe)
    # tf-keras 2.21's "rmsprop" is the newer optimizer (epsilon outside the square root,
    # TF 2.11+); TF 2.4's RMSprop (epsilon inside, ApplyRMSProp) is kept there as
    # optimizers.legacy.RMSprop. torchflow implements 2.4's, so that is the reference.
    theirs_opt = ref.keras.optimizers.legacy.RMSprop() if opt == "rmsprop" else opt
    theirs.compile(loss=ref.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                   optimizer=theirs_opt, **kw)
    ours.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                 optimizer=opt, **kw)
    h_t = theirs.fit(X, Y, batch_size=16, epochs=3, shuffle=False, verbose=0,
                     validation_split=0.25)
    h_o = ours.fit(X, Y, batch_size=16, epochs=3, shuffle=False, verbose=0,
                   validation_split=0.25)
    assert sorted(h_o.history) == sorted(h_t.history)
    for k in h_t.history:
        np.testing.assert_allclose(h_o.history[k], h_t.history[k], rtol=2e-4, atol=2e-5,
                                   err_msg=k)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-5)
    np.testing.assert_allclose(ours.evaluate(X, Y, verbose=0), theirs.evaluate(X, Y, verbose=0),
                               rtol=2e-4, atol=2e-5)
    np.testing.assert_allclose(ours.predict(X, batch_size=7), theirs.predict(X, batch_size=7),
                               rtol=2e-4, atol=2e-5)


def test_fit_on_dataset_with_sample_weights_and_class_weight():
    ref = real_tf()
    theirs = _build(ref.keras)
    ours = _build(tf.keras)
    ours.set_weights(theirs.get_weights())
    sw = RNG.uniform(0.5, 2.0, size=(96,)).astype(np.float32)
    for m, k in ((theirs, ref.keras), (ours, tf.keras)):
        m.compile(optimizer="sgd",
                  loss=k.losses.SparseCategoricalCrossentropy(from_logits=True),
                  weighted_metrics=["accuracy"])
    ds_t = ref.data.Dataset.from_tensor_slices((X, Y, sw)).batch(32)
    ds_o = tf.data.Dataset.from_tensor_slices((X, Y, sw)).batch(32)
    h_t = theirs.fit(ds_t, epochs=2, verbose=0)
    h_o = ours.fit(ds_o, epochs=2, verbose=0)
    for k in h_t.history:
        np.testing.assert_allclose(h_o.history[k], h_t.history[k], rtol=2e-4, atol=2e-5)
    cw = {0: 1.0, 1: 2.0, 2: 0.5}
    h_t = theirs.fit(X, Y, batch_size=32, epochs=1, class_weight=cw, shuffle=False, verbose=0)
    h_o = ours.fit(X, Y, batch_size=32, epochs=1, class_weight=cw, shuffle=False, verbose=0)
    np.testing.assert_allclose(h_o.history["loss"], h_t.history["loss"], rtol=2e-4)


def test_train_on_batch_and_metrics_names():
    ref = real_tf()
    theirs = _build(ref.keras)
    ours = _build(tf.keras)
    ours.set_weights(theirs.get_weights())
    for m in (theirs, ours):
        m.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    yt = np.clip(Y, 0, 2)
    r_t = theirs.train_on_batch(X[:16], yt[:16])
    r_o = ours.train_on_batch(X[:16], yt[:16])
    np.testing.assert_allclose(r_o, r_t, rtol=2e-4, atol=1e-5)
    assert ours.metrics_names == theirs.metrics_names
    np.testing.assert_allclose(ours.test_on_batch(X[:16], yt[:16]),
                               theirs.test_on_batch(X[:16], yt[:16]), rtol=2e-4, atol=1e-5)
    np.testing.assert_allclose(ours.predict_on_batch(X[:4]), theirs.predict_on_batch(X[:4]),
                               rtol=1e-5, atol=1e-6)
