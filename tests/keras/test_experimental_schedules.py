"""tf.keras.experimental's learning-rate schedules against real TF: the cosine
schedules step by step (tf-keras' own classes, TF's ``compat.v1.train`` decay
functions for the linear-cosine pair), the noise of NoisyLinearCosineDecay by its
moments, serialization, and fit with a schedule."""

import math

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

E = tf.keras.experimental
STEPS = [0, 1, 2, 5, 7, 10, 13, 25, 40]


@pytest.mark.parametrize("kw", [{}, {"alpha": 0.2}])
def test_cosine_decay_matches_tf_keras(kw):
    ref = real_tf().keras.experimental.CosineDecay(0.5, 20, **kw)
    ours = E.CosineDecay(0.5, 20, **kw)
    for s in STEPS:
        np.testing.assert_allclose(ours(s).numpy(), ref(s).numpy(), rtol=1e-6, err_msg=str(s))


@pytest.mark.parametrize("kw", [{}, {"t_mul": 1.0, "m_mul": 0.5, "alpha": 0.1},
                                {"t_mul": 3.0, "m_mul": 0.8}])
def test_cosine_decay_restarts_matches_tf_keras(kw):
    ref = real_tf().keras.experimental.CosineDecayRestarts(0.5, 4, **kw)
    ours = E.CosineDecayRestarts(0.5, 4, **kw)
    for s in STEPS:
        np.testing.assert_allclose(ours(s).numpy(), ref(s).numpy(), rtol=1e-5, atol=1e-7,
                                   err_msg=str(s))


@pytest.mark.parametrize("kw", [{}, {"num_periods": 2.0, "alpha": 0.1, "beta": 0.01}])
def test_linear_cosine_decay_matches_tf(kw):
    ours = E.LinearCosineDecay(0.3, 20, **kw)
    for s in STEPS:
        ref = real_tf().compat.v1.train.linear_cosine_decay(0.3, s, 20, **kw)
        ref = ref() if callable(ref) else ref
        np.testing.assert_allclose(ours(s).numpy(), ref.numpy(), rtol=1e-5, atol=1e-8,
                                   err_msg=str(s))
    assert ours(tf.constant(5)).dtype == tf.float32


def test_noisy_linear_cosine_decay_without_noise_matches_tf():
    kw = {"initial_variance": 0.0, "num_periods": 1.5, "alpha": 0.05}
    ours = E.NoisyLinearCosineDecay(0.3, 20, **kw)
    for s in STEPS:
        ref = real_tf().compat.v1.train.noisy_linear_cosine_decay(0.3, s, 20, **kw)
        ref = ref() if callable(ref) else ref
        np.testing.assert_allclose(ours(s).numpy(), ref.numpy(), rtol=1e-5, atol=1e-8)


def test_noisy_linear_cosine_decay_noise_has_tf_24s_variance():
    tf.random.set_seed(3)
    s, steps, var, vdecay = 4, 20, 0.5, 0.55
    ours = E.NoisyLinearCosineDecay(1.0, steps, initial_variance=var, variance_decay=vdecay,
                                    beta=0.0)
    cosine = 0.5 * (1 + math.cos(math.pi * s / steps))
    vals = np.array([float(ours(s)) for _ in range(3000)])
    noise = vals / cosine - (steps - s) / steps
    assert abs(noise.mean()) < 0.04
    np.testing.assert_allclose(noise.std(), math.sqrt(var / (1 + s) ** vdecay), rtol=0.06)
    assert len(set(vals[:10].tolist())) == 10  # a new draw at every call


@pytest.mark.parametrize("cls,kw", [
    ("LinearCosineDecay", {"num_periods": 1.0, "beta": 0.01}),
    ("NoisyLinearCosineDecay", {"initial_variance": 0.3, "variance_decay": 0.4}),
    ("CosineDecay", {"alpha": 0.1}),
    ("CosineDecayRestarts", {"t_mul": 1.5})])
def test_schedules_serialize_round_trip(cls, kw):
    s = getattr(E, cls)(0.1, 10, **kw)
    d = tf.keras.optimizers.schedules.serialize(s)
    assert d["class_name"] == cls
    back = tf.keras.optimizers.schedules.deserialize(d)
    assert type(back) is type(s) and back.get_config() == s.get_config()
    opt = tf.keras.optimizers.SGD(learning_rate=s)
    opt2 = tf.keras.optimizers.SGD.from_config(opt.get_config())
    assert type(opt2.learning_rate) is type(s)
    assert opt2.learning_rate.get_config() == s.get_config()


def test_linear_cosine_config_keys_are_tf_24s():
    assert sorted(E.LinearCosineDecay(0.1, 10).get_config()) == sorted(
        ["initial_learning_rate", "decay_steps", "num_periods", "alpha", "beta", "name"])
    assert sorted(E.NoisyLinearCosineDecay(0.1, 10).get_config()) == sorted(
        ["initial_learning_rate", "decay_steps", "initial_variance", "variance_decay",
         "num_periods", "alpha", "beta", "name"])


def test_fit_with_linear_cosine_decay_matches_tf_keras():
    ref = real_tf()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 4)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5, 3.0], np.float32))[:, None]
    w0 = [rng.normal(size=(4, 1)).astype(np.float32), np.zeros(1, np.float32)]
    hist = []
    for k, sched in ((tf.keras, E.LinearCosineDecay(0.1, 12, num_periods=1.0)),
                     (ref.keras, None)):
        m = k.Sequential([k.layers.Dense(1, input_shape=(4,))])
        m.set_weights(w0)
        if sched is None:  # tf-keras 2.21 has no LinearCosineDecay: TF 2.4's formula
            steps = 12.0

            class Ref(k.optimizers.schedules.LearningRateSchedule):
                def __call__(self, step):
                    s = ref.minimum(ref.cast(step, "float32"), steps)
                    cos = 0.5 * (1 + ref.cos(math.pi * 2.0 * s / steps))
                    return 0.1 * (((steps - s) / steps) * cos + 0.001)
            sched = Ref()
        opt = (k.optimizers.legacy.SGD(sched) if k is ref.keras else k.optimizers.SGD(sched))
        m.compile(optimizer=opt, loss="mse")
        hist.append(m.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
                    .history["loss"])
    np.testing.assert_allclose(hist[0], hist[1], rtol=1e-4)
