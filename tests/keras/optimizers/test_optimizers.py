"""Optimizers step for step against real tf.keras (TF 2.21, legacy Keras 2).

The reference is ``tf.keras.optimizers.legacy`` (TF 2.4's OptimizerV2). Both sides start from the same variable values and receive the same
gradients; variables and optimizer weights (in ``get_weights`` order) must
agree to float32 tolerance after every step.
"""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

CASES = [
    ("SGD", {}),
    ("SGD", {"learning_rate": 0.1, "momentum": 0.9}),
    ("SGD", {"learning_rate": 0.1, "momentum": 0.5, "nesterov": True}),
    ("SGD", {"learning_rate": 0.1, "decay": 0.1}),
    ("Adam", {}),
    ("Adam", {"learning_rate": 0.01, "amsgrad": True}),
    ("Adam", {"learning_rate": 0.01, "beta_1": 0.5, "epsilon": 1e-3}),
    ("Adam", {"learning_rate": 0.01, "clipnorm": 0.5}),
    ("Adam", {"learning_rate": 0.01, "clipvalue": 0.1}),
    ("Adam", {"learning_rate": 0.01, "global_clipnorm": 0.3}),
    ("RMSprop", {}),
    ("RMSprop", {"momentum": 0.9}),
    ("RMSprop", {"centered": True}),
    ("RMSprop", {"centered": True, "momentum": 0.5, "rho": 0.8}),
    ("Adagrad", {"learning_rate": 0.1}),
    ("Adagrad", {"learning_rate": 0.1, "initial_accumulator_value": 0.5}),
    ("Adadelta", {"learning_rate": 1.0}),
    ("Adamax", {"learning_rate": 0.01}),
    ("Nadam", {"learning_rate": 0.01}),
    ("Ftrl", {"learning_rate": 0.1}),
    ("Ftrl", {"learning_rate": 0.1, "l1_regularization_strength": 0.01,
              "l2_regularization_strength": 0.1, "beta": 0.1}),
    ("Ftrl", {"learning_rate": 0.1, "l2_shrinkage_regularization_strength": 0.1,
              "learning_rate_power": -0.7}),
]


def _opts(mod):
    # tf_keras's OptimizerV2 (TF 2.4's optimizers) lives in optimizers.legacy.
    return getattr(mod.keras.optimizers, "legacy", mod.keras.optimizers)


def _run(mod, cls, kwargs, inits, grads_per_step):
    opt = getattr(_opts(mod), cls)(**kwargs)
    vs = [mod.Variable(x) for x in inits]
    history = []
    for grads in grads_per_step:
        opt.apply_gradients(zip([mod.constant(g) for g in grads], vs))
        history.append([v.numpy() for v in vs])
    return opt, history


@pytest.mark.parametrize("cls,kwargs", CASES, ids=[f"{c}-{i}" for i, (c, _) in enumerate(CASES)])
def test_steps_match_tf_keras(cls, kwargs):
    tf_ref = real_tf()
    rng = np.random.RandomState(0)
    inits = [rng.randn(3, 4).astype("float32"), rng.randn(4).astype("float32")]
    steps = [[rng.randn(3, 4).astype("float32"), rng.randn(4).astype("float32")]
             for _ in range(5)]
    opt, got = _run(tf, cls, kwargs, inits, steps)
    ref, want = _run(tf_ref, cls, kwargs, inits, steps)
    for g_step, w_step in zip(got, want):
        for g, w in zip(g_step, w_step):
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)
    gw, ww = opt.get_weights(), ref.get_weights()
    assert len(gw) == len(ww)
    for g, w in zip(gw, ww):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)
    assert [w.name.split("/")[-1] for w in opt.weights] == \
        [w.name.split("/")[-1] for w in ref.weights]
    assert int(opt.iterations.numpy()) == 5
    gc, wc = opt.get_config(), ref.get_config()
    assert set(gc) <= set(wc) | {"global_clipnorm"}
    for k in gc:
        if k in wc and k != "name" and isinstance(wc[k], (int, float, bool)):
            assert gc[k] == pytest.approx(wc[k], rel=1e-6), k


def test_schedule_as_learning_rate():
    tf_ref = real_tf()
    rng = np.random.RandomState(1)
    inits = [rng.randn(5).astype("float32")]
    steps = [[rng.randn(5).astype("float32")] for _ in range(4)]

    def run(mod):
        lr = mod.keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5, staircase=True)
        opt = _opts(mod).SGD(lr, momentum=0.3)
        v = mod.Variable(inits[0])
        for (g,) in steps:
            opt.apply_gradients([(mod.constant(g), v)])
        return v.numpy(), opt.get_config()

    (got, gc), (want, wc) = run(tf), run(tf_ref)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    for k in ("class_name", "config"):  # newer Keras adds module/registered_name
        assert gc["learning_rate"][k] == wc["learning_rate"][k]


def test_hyperparameter_set_after_creation_and_lr_alias():
    opt = tf.keras.optimizers.SGD(0.5)
    v = tf.Variable(1.0)
    opt.apply_gradients([(tf.constant(1.0), v)])
    opt.learning_rate = 0.1
    assert float(opt.lr.numpy()) == pytest.approx(0.1)
    opt.lr = 0.25
    opt.apply_gradients([(tf.constant(1.0), v)])
    assert float(v.numpy()) == pytest.approx(1.0 - 0.5 - 0.25)
    assert opt.get_config()["learning_rate"] == pytest.approx(0.25)


def test_minimize_with_tape_and_callable():
    v = tf.Variable([1.0, 2.0])
    opt = tf.keras.optimizers.SGD(0.1)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(v * v)
    opt.minimize(loss, [v], tape=tape)
    np.testing.assert_allclose(v.numpy(), [0.8, 1.6], rtol=1e-6)
    opt.minimize(lambda: tf.reduce_sum(v * v), lambda: [v])
    np.testing.assert_allclose(v.numpy(), [0.64, 1.28], rtol=1e-6)
    with pytest.raises(ValueError, match="tape"):
        opt.minimize(tf.reduce_sum(v), [v])


def test_missing_gradients_and_errors():
    opt = tf.keras.optimizers.Adam()
    a, b = tf.Variable(1.0), tf.Variable(2.0)
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.apply_gradients([(None, a)])
    opt.apply_gradients([(tf.constant(1.0), a), (None, b)])
    assert float(b.numpy()) == 2.0
    with pytest.raises(TypeError):
        tf.keras.optimizers.SGD(foo=1)
    with pytest.raises(ValueError):
        tf.keras.optimizers.SGD(momentum=2.0)
    with pytest.raises(ValueError):
        tf.keras.optimizers.Adam(clipnorm=1.0, global_clipnorm=1.0)


def test_gradient_transformers_and_aggregator():
    calls = []

    def aggregator(gv):
        calls.append("agg")
        return [(g * 2.0, v) for g, v in gv]

    def double(gv):
        calls.append("transform")
        return [(g * 3.0, v) for g, v in gv]

    opt = tf.keras.optimizers.SGD(1.0, gradient_aggregator=aggregator,
                                  gradient_transformers=[double])
    v = tf.Variable(0.0)
    opt.apply_gradients([(tf.constant(1.0), v)])
    assert calls == ["agg", "transform"] and float(v.numpy()) == -6.0
    opt.apply_gradients([(tf.constant(1.0), v)], experimental_aggregate_gradients=False)
    assert float(v.numpy()) == -9.0


def test_constraint_applied_after_update():
    v = tf.Variable([1.0, -1.0], constraint=lambda x: tf.maximum(x, 0.0))
    tf.keras.optimizers.SGD(1.0).apply_gradients([(tf.constant([2.0, 2.0]), v)])
    np.testing.assert_array_equal(v.numpy(), [0.0, 0.0])


def test_earlier_reads_keep_their_values():
    v = tf.Variable([1.0, 2.0])
    before = v.value()
    tf.keras.optimizers.Adam(0.1).apply_gradients([(tf.constant([1.0, 1.0]), v)])
    np.testing.assert_array_equal(before.numpy(), [1.0, 2.0])
    assert not np.allclose(v.numpy(), [1.0, 2.0])


def test_get_set_weights_and_get_slot():
    v = tf.Variable([1.0, 2.0])
    opt = tf.keras.optimizers.Adam()
    opt.apply_gradients([(tf.constant([1.0, 1.0]), v)])
    assert opt.get_slot_names() == ["m", "v"]
    w = opt.get_weights()
    assert w[0] == 1
    w[1] = np.array([5.0, 6.0], "float32")
    opt.set_weights(w)
    np.testing.assert_array_equal(opt.get_slot(v, "m").numpy(), [5.0, 6.0])
    with pytest.raises(ValueError):
        opt.set_weights(w[:1])
    with pytest.raises(KeyError):
        opt.get_slot(v, "nope")


def test_get_serialize_deserialize():
    assert isinstance(tf.keras.optimizers.get("adam"), tf.keras.optimizers.Adam)
    assert isinstance(tf.keras.optimizers.get("RMSprop"), tf.keras.optimizers.RMSprop)
    opt = tf.keras.optimizers.SGD(0.3, momentum=0.2)
    again = tf.keras.optimizers.deserialize(tf.keras.optimizers.serialize(opt))
    assert again.get_config() == opt.get_config()
    with pytest.raises(ValueError):
        tf.keras.optimizers.get("nope")


def test_slots_restored_through_checkpoint_before_creation(tmp_path):
    v = tf.Variable([1.0, 2.0])
    opt = tf.keras.optimizers.Adam(0.1)
    opt.apply_gradients([(tf.constant([1.0, -1.0]), v)])
    path = tf.train.Checkpoint(v=v, opt=opt).save(str(tmp_path / "ckpt"))
    m_want = opt.get_slot(v, "m").numpy()

    v2 = tf.Variable([0.0, 0.0])
    opt2 = tf.keras.optimizers.Adam(0.1)
    tf.train.Checkpoint(v=v2, opt=opt2).restore(path)
    np.testing.assert_array_equal(v2.numpy(), v.numpy())
    opt2._create_all_weights([v2])  # slots made after the restore get the saved values
    np.testing.assert_array_equal(opt2.get_slot(v2, "m").numpy(), m_want)
    assert int(opt2.iterations.numpy()) == 1


def test_custom_optimizer_written_against_tf_api():
    """A subclass with _create_slots/_prepare_local/_resource_apply_dense runs per variable."""

    class SignSGD(tf.keras.optimizers.Optimizer):
        def __init__(self, learning_rate=0.1, name="SignSGD", **kwargs):
            super().__init__(name, **kwargs)
            self._set_hyper("learning_rate", learning_rate)

        def _create_slots(self, var_list):
            for v in var_list:
                self.add_slot(v, "count")

        def _resource_apply_dense(self, grad, var, apply_state=None):
            coeff = apply_state[(var.device, var.dtype)]
            self.get_slot(var, "count").assign_add(tf.ones_like(var))
            var.assign_sub(coeff["lr_t"] * tf.sign(grad))

    v = tf.Variable([1.0, -1.0, 0.5])
    opt = SignSGD(0.25)
    opt.apply_gradients([(tf.constant([2.0, -3.0, 0.0]), v)])
    np.testing.assert_allclose(v.numpy(), [0.75, -0.75, 0.5])
    np.testing.assert_array_equal(opt.get_slot(v, "count").numpy(), [1.0, 1.0, 1.0])

    class MyAdam(tf.keras.optimizers.Adam):  # overrides the per-variable update: slow path
        def _resource_apply_dense(self, grad, var, apply_state=None):
            var.assign_sub(grad)

    w = tf.Variable([1.0])
    MyAdam().apply_gradients([(tf.constant([0.5]), w)])
    assert float(w.numpy()[0]) == 0.5


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_empty_grads_and_vars_is_a_no_op_as_tf(name):
    # A model without trainable weights (the custom layers guide) steps with an empty
    # list: TF 2.4's optimizer returns before applying and leaves iterations alone.
    # tf-keras's legacy optimizers are TF 2.4's OptimizerV2.
    ref = real_tf()
    theirs = getattr(ref.keras.optimizers.legacy, name)()
    ours = getattr(tf.keras.optimizers, name)()
    assert ours.apply_gradients([]) is None and theirs.apply_gradients([]) is None
    assert int(ours.iterations.numpy()) == int(theirs.iterations.numpy()) == 0
    v = tf.Variable(1.0)
    ours.apply_gradients([(tf.constant(1.0), v)])
    assert int(ours.iterations.numpy()) == 1
