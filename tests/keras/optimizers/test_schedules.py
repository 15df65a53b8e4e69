"""Learning-rate schedules against real tf.keras."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

CASES = [
    ("ExponentialDecay", dict(initial_learning_rate=0.1, decay_steps=3, decay_rate=0.7)),
    ("ExponentialDecay", dict(initial_learning_rate=0.1, decay_steps=3, decay_rate=0.7,
                              staircase=True)),
    ("PiecewiseConstantDecay", dict(boundaries=[2, 5], values=[1.0, 0.5, 0.1])),
    ("PolynomialDecay", dict(initial_learning_rate=0.1, decay_steps=4, power=2.0)),
    ("PolynomialDecay", dict(initial_learning_rate=0.1, decay_steps=4, end_learning_rate=0.01,
                             cycle=True)),
    ("InverseTimeDecay", dict(initial_learning_rate=0.1, decay_steps=2, decay_rate=0.5)),
    ("InverseTimeDecay", dict(initial_learning_rate=0.1, decay_steps=2, decay_rate=0.5,
                              staircase=True)),
    ("CosineDecay", dict(initial_learning_rate=0.1, decay_steps=6, alpha=0.1)),
    ("CosineDecayRestarts", dict(initial_learning_rate=0.1, first_decay_steps=3)),
    ("CosineDecayRestarts", dict(initial_learning_rate=0.1, first_decay_steps=3, t_mul=1.0,
                                 m_mul=0.5, alpha=0.05)),
]


@pytest.mark.parametrize("cls,kwargs", CASES)
def test_schedule_values_and_config(cls, kwargs):
    tf_ref = real_tf()
    ours = getattr(tf.keras.optimizers.schedules, cls)(**kwargs)
    ref = getattr(tf_ref.keras.optimizers.schedules, cls)(**kwargs)
    for step in range(0, 13):
        np.testing.assert_allclose(float(ours(step)), float(ref(step)), rtol=1e-5, atol=1e-7)
    want = ref.get_config()
    for k in ("warmup_steps", "warmup_target"):  # added after TF 2.4
        want.pop(k, None)
    assert ours.get_config() == want
    again = tf.keras.optimizers.schedules.deserialize(tf.keras.optimizers.schedules.serialize(
        ours))
    assert type(again) is type(ours) and again.get_config() == ours.get_config()
